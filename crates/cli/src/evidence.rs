//! `dgt-arbiter evidence --config FILE.toml --board B --ply N [--around 60s] --out DIR`:
//! the evidence pack of one incident (issue 40). Reads what the daemon wrote under the
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
    #[arg(long, default_value = "60s", value_name = "DURATION", value_parser = parse_duration_ms)]
    pub around: u64,
    /// The folder to write the pack into (created; it must not hold files already).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Milliseconds of `60s`, `2m`, `1500ms`, `90`.
fn parse_duration_ms(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (such as 60s, 2m, 1500ms)"))?;
    let scale = match unit.trim() {
        "" | "s" => 1000,
        "ms" => 1,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        other => return Err(format!("unit {other:?} of {s:?}: use ms, s, m or h")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("{s:?} is too long"))
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
    let round = config.event.round;
    let board = args.board.to_string();
    let events_path = paths.events();
    let events = std::fs::read(&events_path).with_context(|| {
        format!(
            "cannot read {} (has the daemon run with {}?)",
            events_path.display(),
            args.config.display()
        )
    })?;
    let journal_path = paths.journal(round, args.board);
    let journal = match std::fs::read(&journal_path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).context(format!("cannot read {}", journal_path.display())),
    };
    let recordings = recordings(&paths.recordings(), &board)?;
    let events_name = events_path.display().to_string();
    let journal_name = journal_path.display().to_string();
    let req = evidence::Request {
        board: &board,
        round: Some(round),
        ply: args.ply,
        around_ms: args.around,
        events: evidence::Input {
            name: &events_name,
            bytes: &events,
        },
        journal: journal.as_deref().map(|bytes| evidence::Input {
            name: &journal_name,
            bytes,
        }),
        recordings: recordings
            .iter()
            .map(|(name, bytes)| evidence::Input { name, bytes })
            .collect(),
        generated_unix_ms: wall_clock::unix_ms_now(),
    };
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

/// The board's recordings (`recordings/<board>-<unix ms>.dgtcap`), by path, oldest first.
fn recordings(dir: &Path, board: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).context(format!("cannot list {}", dir.display())),
    };
    let prefix = format!("{board}-");
    let mut found = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("cannot list {}", dir.display()))?
            .path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let stamp = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".dgtcap"));
        // `1-...` must not take board 11's `11-...`: the rest is the stamp's digits only.
        if stamp.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())) {
            found.push(path);
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|p| {
            let bytes =
                std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
            Ok((p.display().to_string(), bytes))
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_their_units() {
        assert_eq!(parse_duration_ms("60s"), Ok(60_000));
        assert_eq!(parse_duration_ms("90"), Ok(90_000));
        assert_eq!(parse_duration_ms("2m"), Ok(120_000));
        assert_eq!(parse_duration_ms("1500ms"), Ok(1500));
        assert!(parse_duration_ms("s").is_err());
        assert!(parse_duration_ms("5 days").unwrap_err().contains("days"));
        assert!(parse_duration_ms("99999999999999999999h").is_err());
    }

    #[test]
    fn only_the_boards_own_recordings_are_read() {
        let dir = std::env::temp_dir().join(format!("evidence-recs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "1-200.dgtcap",
            "1-100.dgtcap",
            "11-100.dgtcap",
            "1-x.dgtcap",
            "1-5.txt",
        ] {
            std::fs::write(dir.join(name), name).unwrap();
        }
        let got = recordings(&dir, "1").unwrap();
        let names: Vec<&str> = got
            .iter()
            .map(|(_, b)| std::str::from_utf8(b).unwrap())
            .collect();
        assert_eq!(names, ["1-100.dgtcap", "1-200.dgtcap"]);
        assert!(recordings(&dir.join("none"), "1").unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
