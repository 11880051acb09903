//! The emulator process: N boards with DGT3000 clocks on ptys (one `dgt_sim::Hub`
//! thread, output paced to 9600 baud, stable links `board-N` in the run's folder), each
//! playing a real game through the seeded hand-motion generator at the chosen pace, some
//! with injected irregularities. It notes when each lever-flip clock frame left for the
//! daemon (`dgt_sim::SentLog`) and writes, at the end, what the daemon must have said and
//! when each press went out (`farm.jsonl`).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chess_rules::{read_pgn, PgnGame};
use dgt_protocol::capture::TimeControl;
use dgt_sim::hands::{
    generate, Expected, GameInput, HandOptions, IllegalKind, Irregularity, Script,
};
use dgt_sim::{Emulator, EmulatorConfig, Hub, SentLog, ServeOptions};
use serde_json::json;

use crate::clock::{mono_ns, MonoClock};

/// The round's time control: rapid, as in a big open.
pub const TIME_CONTROL: TimeControl = TimeControl::sudden_death(900, 10);

/// Tournament pace: a ply every 30 s on a board (each player averages 30 s a move).
pub const TOURNAMENT_PLY_MS: f64 = 30_000.0;

/// Expected events this long before the end of play must have been reported.
pub const REQUIRED_MARGIN_MS: u64 = 3_000;

/// What the farm is told by the harness.
#[derive(Debug, Clone)]
pub struct FarmArgs {
    pub boards: usize,
    pub dir: PathBuf,
    /// Virtual ms before the first presses (time for the daemon to open every board).
    pub warmup_ms: u64,
    /// Virtual ms of play after the warm-up; the scripts are cut there.
    pub play_ms: u64,
    /// Times tournament pace.
    pub pace: f64,
    pub pgn: Option<PathBuf>,
    /// The boards' scan interval (real boards: 200-250 ms).
    pub scan_ms: u64,
    /// Every this many boards, one gets an injected irregularity.
    pub irregular_every: usize,
}

/// The link the daemon opens for board `number`.
pub fn link(dir: &Path, number: u32) -> PathBuf {
    dir.join("ptys").join(format!("board-{number}"))
}

/// The real games: the given file, else the TWIC file of `shared/data` when it is there,
/// else the daemon's embedded demo games. Says which.
fn load_games(pgn: Option<&Path>) -> Result<(Vec<PgnGame>, String), String> {
    let shared = std::env::var_os("DGT_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
        .join("data/pgn/shakmaty-pgn-reader-benches/twic1599_1000k.pgn");
    let path = match pgn {
        Some(p) => Some(p.to_owned()),
        None => shared.is_file().then_some(shared),
    };
    match path {
        Some(p) => {
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let games = read_pgn(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
            Ok((games, p.display().to_string()))
        }
        None => {
            // The demo crate's games (it depends on this crate, so not through it).
            let games = read_pgn(include_str!("../../../demo/src/games.pgn").as_bytes())
                .map_err(|e| format!("the embedded games: {e}"))?;
            Ok((games, "the embedded demo games".into()))
        }
    }
}

/// Irregularities handed out in turn to every `irregular_every`-th board.
fn irregularity(k: usize) -> Irregularity {
    let mut all: Vec<Irregularity> = IllegalKind::ALL
        .iter()
        .map(|k| Irregularity::Illegal(*k))
        .collect();
    all.extend([
        Irregularity::ClockWithoutMove,
        Irregularity::TouchOtherPiece,
        Irregularity::RookBeforeKing,
        Irregularity::TwoHandedCastling,
        Irregularity::UnpromotedPawn,
    ]);
    all[k % all.len()]
}

fn hands(i: usize, args: &FarmArgs, think_scale: f64) -> HandOptions {
    let stagger = (i as f64 * TOURNAMENT_PLY_MS / args.pace / args.boards as f64) as u64;
    let irregular =
        args.irregular_every > 0 && i % args.irregular_every == args.irregular_every / 2;
    HandOptions {
        seed: i as u64,
        time_control: TIME_CONTROL,
        think_scale,
        start_delay_ms: args.warmup_ms + stagger,
        irregularities: if irregular {
            vec![irregularity(i / args.irregular_every)]
        } else {
            Vec::new()
        },
        ..HandOptions::default()
    }
}

/// Mean ms between plies of a script (from the first move to the last).
fn mean_ply_ms(s: &Script) -> Option<f64> {
    let (first, last) = (s.plies.first()?, s.plies.last()?);
    (s.plies.len() > 1)
        .then(|| (last.made_at_ms - first.made_at_ms) as f64 / (s.plies.len() - 1) as f64)
}

/// The think-time scale that gives the wanted mean ply interval on a sample of games.
fn calibrate(games: &[GameInput], args: &FarmArgs) -> f64 {
    let target = TOURNAMENT_PLY_MS / args.pace;
    let mut scale = 0.1;
    for _ in 0..3 {
        let (sum, n) = games
            .iter()
            .take(40)
            .enumerate()
            .filter_map(|(i, g)| generate(g, &hands(i, args, scale)).ok())
            .filter_map(|s| mean_ply_ms(&s))
            .fold((0.0, 0usize), |(s, n), m| (s + m, n + 1));
        if n == 0 {
            break;
        }
        let mean = sum / n as f64;
        scale = (scale * target / mean).clamp(0.001, 1.0);
    }
    scale
}

/// One board as served.
struct Board {
    number: u32,
    script: Script,
    /// `mono_ns()` of the board's virtual time 0.
    start_ns: u64,
    log: SentLog,
    /// Subtracted from the script's times when serving (boards are added one by one but
    /// share one timeline).
    shift_ms: u64,
}

/// Serves the boards until stdin closes.
pub fn run(args: &FarmArgs) -> Result<(), String> {
    let t0 = Instant::now();
    let clock = MonoClock::new();
    let (pgns, source) = load_games(args.pgn.as_deref())?;
    let min_plies = (args.play_ms as f64 / (TOURNAMENT_PLY_MS / args.pace)) as usize + 10;
    let all: Vec<GameInput> = pgns
        .iter()
        .filter_map(|p| GameInput::from_pgn(p).ok())
        .collect();
    let long: Vec<GameInput> = all
        .iter()
        .filter(|g| g.moves.len() >= min_plies)
        .cloned()
        .collect();
    let games = if long.len() >= 20 { long } else { all };
    if games.is_empty() {
        return Err(format!("no playable game in {source}"));
    }
    let think_scale = calibrate(&games, args);
    let cut_ms = args.warmup_ms + args.play_ms;
    let mut scripts = Vec::with_capacity(args.boards);
    let mut g = 0usize;
    for i in 0..args.boards {
        // A game the generator cannot take (rare) gives way to the next one.
        let script = loop {
            if g > i + games.len() * 2 {
                return Err("the generator refuses the games".into());
            }
            let game = &games[g % games.len()];
            g += 1;
            if let Ok(s) = generate(game, &hands(i, args, think_scale)) {
                break s;
            }
        };
        scripts.push(script);
    }
    eprintln!(
        "farm: {} boards, games from {source} ({} usable), think scale {think_scale:.4}, \
         scripts made in {:.1} s",
        args.boards,
        games.len(),
        t0.elapsed().as_secs_f64()
    );

    std::fs::create_dir_all(args.dir.join("ptys")).map_err(|e| e.to_string())?;
    let mut hub = Hub::new().map_err(|e| e.to_string())?;
    let mut handles = Vec::with_capacity(args.boards);
    let mut boards = Vec::with_capacity(args.boards);
    let served_at = Instant::now();
    let timeline_ns = clock.ns(served_at);
    for (i, script) in scripts.into_iter().enumerate() {
        let number = i as u32 + 1;
        let shift_ms = served_at.elapsed().as_millis() as u64;
        let actions = script
            .actions
            .iter()
            .filter(|a| a.at_ms <= cut_ms)
            .map(|a| dgt_sim::TimedAction {
                at_ms: a.at_ms.saturating_sub(shift_ms),
                action: a.action.clone(),
            })
            .collect();
        let emu = Emulator::new(EmulatorConfig {
            serial: format!("{:05}", 10_000 + number),
            scan_interval_ms: args.scan_ms,
            ..script.emulator_config()
        });
        let log = SentLog::new();
        let start_ns = mono_ns();
        let handle = hub
            .serve_pty(
                emu,
                ServeOptions {
                    script: actions,
                    link: Some(link(&args.dir, number)),
                    line_pacing: true,
                    sent_log: Some(log.clone()),
                    ..ServeOptions::default()
                },
            )
            .map_err(|e| format!("board {number}: {e}"))?;
        handles.push(handle);
        boards.push(Board {
            number,
            script,
            start_ns,
            log,
            shift_ms,
        });
    }
    let ms_ns = |ms: u64| timeline_ns + ms * 1_000_000;
    println!(
        "ready {} {} {}",
        ms_ns(0),
        ms_ns(args.warmup_ms),
        ms_ns(cut_ms)
    );
    let _ = std::io::stdout().flush();

    // Collect the sent logs as the run goes: (serving ms, CLOCK_MONOTONIC ns) per board.
    let mut sent: Vec<Vec<(u64, u64)>> = vec![Vec::new(); boards.len()];
    let end = served_at + Duration::from_millis(cut_ms + 2_000);
    let stdin_closed = stdin_watch();
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(200));
        collect(&boards, &mut sent, &clock);
        if stdin_closed.try_recv().is_ok() {
            return Err("the harness went away".into());
        }
    }
    collect(&boards, &mut sent, &clock);
    write_records(args, &boards, &sent, cut_ms).map_err(|e| e.to_string())?;
    println!("done");
    let _ = std::io::stdout().flush();
    // Keep the ptys open until the harness has stopped the daemon.
    let _ = stdin_closed.recv_timeout(Duration::from_secs(120));
    drop(handles);
    drop(hub);
    Ok(())
}

/// A channel that gets a message when stdin closes.
fn stdin_watch() -> std::sync::mpsc::Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let stdin = std::io::stdin();
        while stdin.lock().read_line(&mut line).is_ok_and(|n| n > 0) {
            line.clear();
        }
        let _ = tx.send(());
    });
    rx
}

/// The first board scan at or after `t`, ms: the scan that reports a change made at `t`.
fn scan_after(t: u64, scan_ms: u64) -> u64 {
    match t.checked_div(scan_ms) {
        Some(scans) => (scans + 1) * scan_ms,
        None => t,
    }
}

fn collect(boards: &[Board], sent: &mut [Vec<(u64, u64)>], clock: &MonoClock) {
    for (b, sent) in boards.iter().zip(sent) {
        sent.extend(b.log.take().into_iter().map(|c| (c.t_ms, clock.ns(c.at))));
    }
}

/// The first chunk the board emitted at serving time `t` or later: (its time, when it
/// left).
fn first_sent_from(sent: &[(u64, u64)], t: u64) -> Option<(u64, u64)> {
    let i = sent.partition_point(|(at, _)| *at < t);
    sent.get(i).copied()
}

/// The key under which an event is matched between what the farm expects and what the
/// daemon said (`n`: how many of that kind the board has had, this one included).
pub fn key(kind: &str, n: usize, ply: Option<u64>, detail: &str) -> String {
    match kind {
        "move" => format!("move:{}:{detail}", ply.unwrap_or(0)),
        "game_over" => format!("game_over:{detail}"),
        _ => format!("{kind}:{n}:{detail}"),
    }
}

/// The expected event's kind, detail and ply, as [`key`] wants them.
fn describe(e: &Expected) -> (&'static str, String, Option<u64>) {
    match e {
        Expected::Move { ply, mv, .. } => ("move", mv.uci(), Some(u64::from(*ply))),
        Expected::IllegalMove { category, .. } => ("illegal_move", category.name().into(), None),
        Expected::Restored { .. } => ("restored", String::new(), None),
        Expected::TouchMove { .. } => ("touch_move", String::new(), None),
        Expected::TwoHandedSuspected { .. } => ("two_handed_suspected", String::new(), None),
        Expected::GameOver { result, reason } => (
            "game_over",
            format!("{}:{}", result.as_str(), reason.name()),
            None,
        ),
        Expected::Displaced { reestablished, .. } => ("displaced", reestablished.to_string(), None),
    }
}

fn write_records(
    args: &FarmArgs,
    boards: &[Board],
    sent: &[Vec<(u64, u64)>],
    cut_ms: u64,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(args.dir.join("farm.jsonl"))?);
    for (b, sent) in boards.iter().zip(sent) {
        // Script times are served `shift_ms` earlier; the board scans on serving time.
        let serving = |script_ms: u64| script_ms.saturating_sub(b.shift_ms);
        let sched = |script_ms: u64| b.start_ns + serving(script_ms) * 1_000_000;
        let mut counts = std::collections::HashMap::<&str, usize>::new();
        let mut press_of_ply = std::collections::HashMap::new();
        for p in &b.script.plies {
            press_of_ply.insert(p.ply, p);
        }
        for e in &b.script.expected {
            let (kind, detail, ply) = describe(&e.event);
            let n = counts.entry(kind).or_default();
            *n += 1;
            let key = key(kind, *n, ply, &detail);
            // A move is recorded at its press, or at the opponent's when its own was
            // forgotten: one made just before the cut whose press never came is not due.
            let due_ms = match &e.event {
                Expected::Move { ply, .. } => [*ply, ply + 1]
                    .iter()
                    .find_map(|p| press_of_ply.get(p).and_then(|p| p.press_ms))
                    .map(|press| press.max(e.at_ms)),
                _ => Some(e.at_ms),
            };
            let required = due_ms.is_some_and(|t| t + REQUIRED_MARGIN_MS <= cut_ms);
            writeln!(
                out,
                "{}",
                json!({"board": b.number, "kind": "expect", "key": key, "required": required})
            )?;
            // The press that should bring this ruling, if it was made before the cut.
            let (press_ms, made_ms) = match &e.event {
                Expected::Move { ply, .. } => match press_of_ply.get(ply) {
                    Some(p) => match p.press_ms {
                        Some(t) => (t, Some(p.made_at_ms)),
                        None => continue,
                    },
                    None => continue,
                },
                Expected::IllegalMove { .. } => (e.at_ms, None),
                _ => continue,
            };
            if press_ms > cut_ms {
                continue;
            }
            // The press's clock frame: in the chunk of the press's ms, unless the board
            // was not sending then (a later chunk).
            let frame = first_sent_from(sent, serving(press_ms));
            // The board reports the move's last square at its first scan after the move;
            // when that comes after the press, the tracker waits for it (up to its settle
            // window).
            let report_at = made_ms.map(|m| scan_after(serving(m), args.scan_ms));
            let report = report_at.and_then(|r| first_sent_from(sent, r));
            let waited = report_at.is_some_and(|r| r > serving(press_ms));
            writeln!(
                out,
                "{}",
                json!({
                    "board": b.number,
                    "kind": "press",
                    "key": key,
                    "scheduled_ns": sched(press_ms),
                    "sent_ns": frame.map(|f| f.1),
                    "frame_late": frame.is_some_and(|f| f.0 != serving(press_ms)),
                    "report_sent_ns": report.map(|r| r.1),
                    "waited": waited,
                })
            )?;
        }
    }
    out.flush()
}
