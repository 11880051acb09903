//! `dgt-arbiter emulate --pgn FILE [--game N] [--seed S] [--speed X] [--time-control
//! CONTROL] [--arbiter-counter take-back|leave] [--irregularities LIST] [--rotated] [--white-clock left|right] [--serial
//! DIGITS] [--exit-at-end] [--record FILE.dgtcap]`: serves one
//! emulated DGT board with a DGT3000 on a pseudo-terminal and plays a game of a PGN file
//! on it with a player's hands (the seeded hand-motion generator of `dgt-sim`), in real
//! time scaled by `--speed`. It prints the pty path (and the stable link, with `--link`)
//! on stdout. When the game is over the board stays on, as a real one does, until Ctrl-C
//! (or exits then, with `--exit-at-end`).
//!
//! `--expect FILE` writes the events an arbiter must emit for the game, one JSON object
//! a line in the shapes of formats.md §2, to check a daemon run against the board.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{bail, Context};
use chess_rules::{read_pgn, Position};
use dgt_protocol::capture::{CaptureHeader, TimeControl};
use dgt_protocol::{ClockSide, Orientation};
use dgt_sim::hands::{
    generate, ArbiterCounter, GameInput, HandOptions, Irregularity, Script, Variations,
};
use dgt_sim::{serve_pty, Emulator, EmulatorConfig, ServeOptions};

/// Largest PGN file read (a big tournament's games are a few MiB).
const MAX_PGN_BYTES: u64 = 64 << 20;

/// Arguments of `emulate`.
#[derive(Debug, clap::Args)]
pub struct EmulateArgs {
    /// The PGN file holding the game.
    #[arg(long, value_name = "FILE")]
    pub pgn: PathBuf,
    /// Which game of the file (1 is the first).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub game: usize,
    /// Seed of the hand motions: the same seed plays the same script.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// Virtual time runs this many times faster than real time.
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub speed: f64,
    /// The clock's time control: BASE+INC in seconds (5400+30) or periods joined by `:`
    /// (40/5400+30:1800+30), which the emulated DGT3000 adds by its own count of each
    /// player's presses (default: the game's TimeControl tag when it reads as one, else
    /// 300+3).
    #[arg(long, value_name = "CONTROL")]
    pub time_control: Option<TimeControl>,
    /// After an illegal move or a press without a move (which the clock counts), the
    /// arbiter takes the player's move counter back by one (`take-back`) or leaves it
    /// (`leave`: the next period comes a move early). Periods only.
    #[arg(long, default_value = "take-back", value_parser = ["take-back", "leave"], value_name = "WHAT")]
    pub arbiter_counter: String,
    /// Irregularities to inject, comma-separated (e.g.
    /// `pinned-piece,clock-without-move,flag-fall`), or `all`.
    #[arg(long, value_name = "LIST", value_parser = parse_irregularities)]
    pub irregularities: Option<Irregularities>,
    /// The board is turned round (White at the connector's far end).
    #[arg(long)]
    pub rotated: bool,
    /// Which side of the clock is White's: `left` (default) or `right` (a turned board
    /// whose clock was turned with it).
    #[arg(long, default_value = "left", value_parser = ["left", "right"], value_name = "SIDE")]
    pub white_clock: String,
    /// The board's serial number, five digits (SERIALNR; also its bus address). Give
    /// each emulated board its own, as real boards have.
    #[arg(long, default_value = "01025", value_parser = parse_serial, value_name = "DIGITS")]
    pub serial: String,
    /// Exit when the game is over, closing the pty (by default the board stays on and
    /// keeps answering, as a real board does, until Ctrl-C).
    #[arg(long)]
    pub exit_at_end: bool,
    /// Write all traffic to this capture file.
    #[arg(long, value_name = "FILE.dgtcap")]
    pub record: Option<PathBuf>,
    /// Also serve the board at this stable path (a symlink to the pty).
    #[arg(long, value_name = "PATH")]
    pub link: Option<PathBuf>,
    /// Multiplies think times (1: a realistic share of the time control).
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub think_scale: f64,
    /// How hands move: `none` (plain), `realistic` or `all` (every variation often).
    #[arg(long, default_value = "realistic", value_parser = ["none", "realistic", "all"])]
    pub variations: String,
    /// Virtual seconds before the clock is started (time for a host to connect).
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS")]
    pub start_delay: f64,
    /// Write the events an arbiter must emit to this file (JSON lines).
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
}

/// A parsed `--irregularities` list.
#[derive(Debug, Clone)]
pub struct Irregularities(pub Vec<Irregularity>);

fn parse_irregularities(s: &str) -> Result<Irregularities, String> {
    if s.trim() == "all" {
        return Ok(Irregularities(Irregularity::all()));
    }
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.parse::<Irregularity>().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()
        .map(Irregularities)
}

fn parse_serial(s: &str) -> Result<String, String> {
    if s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(s.to_owned())
    } else {
        Err(format!(
            "a serial number is five digits (like 01025), not {s:?}"
        ))
    }
}

/// The game's own `TimeControl` tag, when it reads as a control the clock can be set to
/// (with or without periods: the emulated DGT3000 adds them by its own count).
fn tag_time_control(tag: Option<&str>) -> Option<TimeControl> {
    tag.and_then(|t| t.parse().ok())
        .filter(|tc: &TimeControl| tc.check_bounds().is_ok())
}

pub fn run(args: &EmulateArgs) -> anyhow::Result<()> {
    if let Some(tc) = args.time_control {
        if let Err(problem) = tc.check_bounds() {
            bail!("--time-control {tc}: {problem}");
        }
    }
    if !(args.speed.is_finite() && args.speed > 0.0) {
        bail!("--speed must be a positive number, not {}", args.speed);
    }
    if !(args.start_delay.is_finite() && args.start_delay >= 0.0) {
        bail!(
            "--start-delay must be zero or more seconds, not {}",
            args.start_delay
        );
    }
    let bytes = crash_safe::read_bounded(&args.pgn, MAX_PGN_BYTES)
        .with_context(|| format!("cannot read the PGN file {}", args.pgn.display()))?;
    let games = read_pgn(&bytes).with_context(|| format!("in {}", args.pgn.display()))?;
    if games.is_empty() {
        bail!("{} holds no game", args.pgn.display());
    }
    let Some(pgn) = args.game.checked_sub(1).and_then(|i| games.get(i)) else {
        bail!(
            "--game {} is out of range: {} holds {} game(s), numbered from 1",
            args.game,
            args.pgn.display(),
            games.len()
        );
    };
    let game = GameInput::from_pgn(pgn)
        .with_context(|| format!("game {} of {}", args.game, args.pgn.display()))?;
    let time_control = args
        .time_control
        .or_else(|| tag_time_control(pgn.tag("TimeControl")))
        .unwrap_or(TimeControl::sudden_death(300, 3));
    let opts = HandOptions {
        seed: args.seed,
        time_control,
        think_scale: args.think_scale,
        start_delay_ms: (args.start_delay * 1000.0) as u64,
        variations: match args.variations.as_str() {
            "none" => Variations::none(),
            "all" => Variations::all(),
            _ => Variations::realistic(),
        },
        irregularities: args.irregularities.clone().map(|i| i.0).unwrap_or_default(),
        arbiter_counter: if args.arbiter_counter == "leave" {
            ArbiterCounter::Leave
        } else {
            ArbiterCounter::TakeBack
        },
        ..HandOptions::default()
    };
    let script = generate(&game, &opts).context("cannot script the game")?;
    let board = board_name(&args.pgn, args.game);
    report(&script, &board, time_control);
    if let Some(path) = &args.expect {
        write_expected(path, &script, &board)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let white_side = if args.white_clock == "right" {
        ClockSide::Right
    } else {
        ClockSide::Left
    };
    let cfg = EmulatorConfig {
        orientation: if args.rotated {
            Orientation::Rotated
        } else {
            Orientation::Normal
        },
        white_side,
        long_serial: format!("3.25A{}", args.serial),
        serial: args.serial.clone(),
        ..script.emulator_config()
    };
    let header = CaptureHeader {
        variant: script.start.variant(),
        board: Some(board.clone()),
        start_fen: (script.start != Position::start()).then(|| script.start.fen()),
        time_control: Some(time_control),
        white_clock: Some(white_side),
        extra: vec![(
            "source".into(),
            format!("dgt-arbiter emulate, seed {}", args.seed),
        )],
    };
    let served = serve_pty(
        Emulator::new(cfg),
        ServeOptions {
            script: script.actions.clone(),
            speed: args.speed,
            link: args.link.clone(),
            capture: args.record.clone(),
            capture_header: header,
            ..ServeOptions::default()
        },
    )
    .context("cannot serve the emulated board on a pseudo-terminal")?;
    let pty = served.pty_path().context("the emulated board has no pty")?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", pty.display())?;
    if let Some(link) = &args.link {
        writeln!(out, "{}", link.display())?;
    }
    out.flush()?;
    drop(out);
    if args.speed != 1.0 {
        eprintln!(
            "at --speed {0}: give the arbiter's config [timing] time_scale = {0:?} (the \
             two-handed window and evidence in game time)",
            args.speed
        );
    }

    let interrupted = ctrl_c();
    let mut over = false;
    loop {
        if interrupted.try_recv().is_ok() {
            eprintln!("interrupted");
            break;
        }
        if !over && served.script_left() == 0 && served.now_ms() >= script.end_ms {
            over = true;
            if args.exit_at_end {
                eprintln!("game over");
                break;
            }
            // A real board stays on after the game: hosts keep their port (no EIO).
            eprintln!("game over; the board stays on (Ctrl-C to stop)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if let Some(e) = served.last_error() {
        eprintln!("last port error: {e}");
    }
    // Dropping the board closes the pty, removes the link and flushes the capture.
    drop(served);
    Ok(())
}

/// A channel that receives once on Ctrl-C (SIGINT) or SIGTERM.
fn ctrl_c() -> mpsc::Receiver<()> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            use tokio::signal::unix::{signal, SignalKind};
            let Ok(mut term) = signal(SignalKind::terminate()) else {
                return;
            };
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            let _ = tx.send(());
        });
    });
    rx
}

fn board_name(pgn: &Path, game: usize) -> String {
    let stem = pgn
        .file_stem()
        .map_or_else(|| "emulated".into(), |s| s.to_string_lossy().into_owned());
    format!("{stem}-{game}")
}

/// What will be played, on stderr.
fn report(script: &Script, board: &str, tc: TimeControl) {
    eprintln!(
        "board {board}: {} plies, time control {tc}, about {} s of game time",
        script.plies.len(),
        script.end_ms / 1000
    );
    for i in &script.injected {
        eprintln!("  {} at ply {}", i.irregularity, i.ply);
    }
    // Where the clock adds a period by its own count (a move early after an illegal
    // press left on its counter), for reading a capture of the game.
    for p in script.plies.iter().filter(|p| p.period_began.is_some()) {
        let period = p.period_began.map_or(0, |b| b.0 + 1);
        eprintln!(
            "  period {period} begins for {} at ply {} (the clock's count {})",
            p.color, p.ply, p.clock_count
        );
    }
    for s in &script.skipped {
        eprintln!("  {} skipped: {}", s.irregularity, s.reason);
    }
    if let Some(end) = script.rules_end {
        eprintln!("  ends by the rules: {} {}", end.result, end.reason);
    }
}

/// Writes the expected events as JSON lines (formats.md §2; `t_ms` is the script time of
/// the action that causes the event).
fn write_expected(path: &Path, script: &Script, board: &str) -> anyhow::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    for e in &script.expected {
        writeln!(f, "{}", e.to_json(board))?;
    }
    f.flush()?;
    Ok(())
}
