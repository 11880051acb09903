//! `dgt-arbiter evidence --config FILE.toml --board B --ply N [--around 60s] --out DIR`:
//! the evidence pack of one incident (issue 40). Reads ([`evidence::read`], as the
//! dashboard's evidence route does) what the daemon wrote under the
//! config's `output.dir` (events.jsonl, the board's journal for the round, its `.dgtcap`
//! recordings with `run --record`), running or stopped, and writes the pack the
//! `evidence` crate builds into DIR: the events, touch log, clock readings, journal and
//! serial bytes of the window around the ply, the ruling and the arbiter's decisions,
//! SVG diagrams, `index.html` and `manifest.json` (every file's SHA-256, times in UTC).

use std::path::{Path, PathBuf};

use crate::logging::{self, LogFormat};
use anyhow::{bail, Context};
use arbiter_daemon::Config;
use daemon_config::paths::Paths;
use evidence::read::{BoardFiles, ReadError};

/// Arguments of `evidence`.
#[derive(Debug, clap::Args)]
pub struct EvidenceArgs {
    /// The daemon's config: its `output.dir` holds what the daemon wrote, its
    /// `[event] round` the round.
    #[arg(long, value_name = "FILE.toml")]
    pub config: PathBuf,
    /// The board number.
    #[arg(long, value_name = "B")]
    pub board: u32,
    /// The ply of the incident (as in the events and on the dashboard): its ruling, else
    /// its move.
    #[arg(long, value_name = "N")]
    pub ply: u32,
    /// The window around the incident's time: `60s`, `2m`, `1500ms` (a bare number is
    /// seconds).
    #[arg(long, default_value = "60s", value_name = "DURATION", value_parser = evidence::time::parse_duration_ms)]
    pub around: u64,
    /// The folder to write the pack into (created; it must not hold files already).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: &EvidenceArgs) -> anyhow::Result<()> {
    logging::init(LogFormat::Human, "warn");
    let config = Config::load(&args.config)?;
    if !config.boards.iter().any(|b| b.number == args.board) {
        let boards: Vec<String> = config.boards.iter().map(|b| b.name()).collect();
        bail!(
            "board {} is not in {} (its boards: {})",
            args.board,
            args.config.display(),
            if boards.is_empty() {
                "none".to_owned()
            } else {
                boards.join(", ")
            }
        );
    }
    let paths = Paths::new(config.output.dir.clone());
    let files = BoardFiles::read(&paths, config.event.round, args.board).map_err(|e| match e {
        ReadError::NoEvents(_) => {
            anyhow::anyhow!("{e} (has the daemon run with {}?)", args.config.display())
        }
        e => e.into(),
    })?;
    let req = files.request(args.ply, args.around, wall_clock::unix_ms_now());
    let pack = evidence::build(&req)?;
    for w in &pack.warnings {
        tracing::warn!(board = args.board, ply = args.ply, "{w}");
    }
    write_pack(&args.out, &pack.files)?;
    println!(
        "evidence of board {} ply {}: {} ({} files; open index.html)",
        args.board,
        args.ply,
        args.out.display(),
        pack.files.len()
    );
    Ok(())
}

/// Writes the pack's files into `out`, created if missing; a folder holding files
/// already is refused (the manifest must list everything in it).
fn write_pack(out: &Path, files: &[evidence::PackFile]) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut existing =
        std::fs::read_dir(out).with_context(|| format!("cannot list {}", out.display()))?;
    if existing.next().is_some() {
        bail!(
            "{} is not empty: give a new folder for the pack (its manifest lists every file in it)",
            out.display()
        );
    }
    for f in files {
        let path = out.join(&f.name);
        std::fs::write(&path, &f.bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
