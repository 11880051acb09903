//! The fault campaign: games played on emulated boards (the `dgt-sim` hub on ptys, each
//! behind a stable symlink as udev gives real boards) while everything that can go wrong
//! on a hall's line goes wrong, and the real `dgt-arbiter run` follows them:
//! - the board's cable pulled and plugged back (the pty vanishes, a new one appears behind
//!   the link), while players move;
//! - bursts of garbage on the line: 7-bit noise, bytes with bit 7 set, truncated frames,
//!   frame headers with oversized lengths;
//! - the clock's cable pulled while a player thinks and plugged back;
//! - the daemon killed with `kill -9` at random moments and restarted at once (it resumes
//!   from its journal, and the board's next dump lets the tracker's reconnect search find
//!   the moves made meanwhile).
//!
//! At the end, for every game: the PGN file parsed back holds exactly the moves played,
//! and the JSON events hold each ply's move exactly once (a move that replaces its ply's
//! first reading, when a slider registered part way at the press, is the one correction
//! allowed, and it must name the move it replaces).
//!
//! `fault_campaign_ci` is the small version that runs with `cargo test`; the full one is
//! `#[ignore]`d and sized by environment variables (defaults in brackets):
//!
//! ```sh
//! FAULT_GAMES=24 FAULT_PULLS=100 FAULT_KILLS=20 \
//!   cargo test --release --test fault_campaign -- --ignored --nocapture
//! ```
//!
//! `FAULT_GAMES` [24] games, `FAULT_BATCH` [8] boards at a time under one daemon (a kill
//! hits every game of the batch), `FAULT_PULLS` [100] cable pulls per game, `FAULT_NOISE`
//! [40] garbage bursts per game (half 7-bit noise, half bit-7 bytes and truncated frames),
//! `FAULT_CLOCK` [6] clock unplugs per game, `FAULT_KILLS` [20] kills per batch,
//! `FAULT_PLIES` [whole game] plies per game, `FAULT_MIN_THINK_MS` [3000] the shortest
//! think, `FAULT_SEED` [1]. `FAULT_REPORT=FILE` appends the per-game table (markdown) to
//! FILE.
//!
//! Pacing (virtual time runs three times faster than real time, as in the other e2e
//! tests): no think is shorter than `FAULT_MIN_THINK_MS` [3000] virtual ms, so a ply takes
//! about a second of real time; a cable is out for 0.3 to 1.5 s (virtual) inside one
//! player's turn, so the mover makes his move blind and the board is back before the
//! press; a kill comes at least 2 s (real) after the previous one, never while a cable of
//! the batch is out or within a second of being replugged. The longest blind spot (a pull
//! the driver sees only by its 3 s liveness probe, then the reconnect) so spans at most
//! three or four plies, inside the four the reconnect search heals.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use arbiter_demo::{GAMES, TIME_CONTROL};
use chess_rules::{read_pgn, Position};
use common::*;
use dgt_protocol::capture::TimeControl;
use dgt_sim::hands::{generate, Faults, GameInput, HandOptions, HandRng, Script};
use dgt_sim::{Action, TimedAction};
use serde_json::Value;

/// How big a campaign is.
#[derive(Debug, Clone)]
struct Campaign {
    games: usize,
    batch: usize,
    plies: Option<usize>,
    pulls: u32,
    noise: u32,
    clock_unplugs: u32,
    kills: u32,
    /// The shortest think, virtual ms (see `paced_script`).
    min_think_ms: u64,
    seed: u64,
}

impl Campaign {
    /// Small enough for CI: two short games at once, a fifth of the faults.
    fn ci() -> Campaign {
        Campaign {
            games: 2,
            batch: 2,
            plies: Some(36),
            pulls: 20,
            noise: 12,
            clock_unplugs: 2,
            kills: 4,
            min_think_ms: 3000,
            seed: 7,
        }
    }

    fn from_env() -> Campaign {
        fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
            match std::env::var(name) {
                Ok(v) => v
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
                Err(_) => default,
            }
        }
        Campaign {
            games: var("FAULT_GAMES", 24),
            batch: var("FAULT_BATCH", 8),
            plies: std::env::var("FAULT_PLIES").ok().map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("FAULT_PLIES={v:?} is not a number"))
            }),
            pulls: var("FAULT_PULLS", 100),
            noise: var("FAULT_NOISE", 40),
            clock_unplugs: var("FAULT_CLOCK", 6),
            kills: var("FAULT_KILLS", 20),
            min_think_ms: var("FAULT_MIN_THINK_MS", 3000),
            seed: var("FAULT_SEED", 1),
        }
    }
}

/// What one game went through, and how it came out.
#[derive(Debug, Clone, Default)]
struct GameReport {
    game: usize,
    seed: u64,
    plies: usize,
    pulls: usize,
    noise_7bit: usize,
    noise_bit7: usize,
    clock_unplugs: usize,
    kills: usize,
    /// Moves the reconnect search found (made while the daemon could not see the board).
    recovered: usize,
    /// Times the board's line went down, as the events tell.
    disconnects: usize,
    /// Moves that replaced their ply's first reading.
    replaced: usize,
    /// Rebuilt lines the arbiter was told are uncertain (`recovery_uncertain`).
    uncertain: usize,
    /// Plies of those lines recorded otherwise than played (the played line among the
    /// ones the alert named).
    flagged: usize,
    /// `illegal_move` or `illegal_move_stands` events: no illegal move is played in the
    /// campaign's games, so every one is a false ruling.
    false_rulings: usize,
    /// Times the board went out of sync (the arbiter asked).
    out_of_sync: usize,
    /// Plies of gaps several orders explain: not recorded, the game followed on from the
    /// position they all lead to (the arbiter picks the order).
    asked: usize,
    /// Plies never recorded (the board out of sync, the arbiter asked), those of `asked`
    /// among them.
    lost: usize,
    /// Whether the board was out of sync at the game's end (left for the arbiter).
    left_out_of_sync: bool,
}

/// The rulings of an illegal move among a board's events.
fn rulings(events: &[&Value]) -> usize {
    events
        .iter()
        .filter(|e| e["kind"] == "illegal_move" || e["kind"] == "illegal_move_stands")
        .count()
}

/// Counts the fault actions of a script by kind: (pulls, 7-bit noise, bit-7 noise, clock
/// unplugs).
fn count_faults(actions: &[TimedAction]) -> (usize, usize, usize, usize) {
    let mut c = (0, 0, 0, 0);
    for a in actions {
        match &a.action {
            Action::BoardCable { plugged: false } => c.0 += 1,
            Action::LineNoise(b) if b.iter().all(|x| *x < 0x80) => c.1 += 1,
            Action::LineNoise(_) => c.2 += 1,
            Action::ClockCable { plugged: false } => c.3 += 1,
            _ => {}
        }
    }
    c
}

/// Ids of the board's messages with their total frame lengths (fact sheet §3).
const FRAMES: [(u8, usize); 6] = [
    (0x86, 67),  // board dump
    (0x8E, 5),   // field update
    (0x8D, 10),  // clock time
    (0x91, 8),   // serial number
    (0x93, 5),   // version
    (0x8F, 100), // EE moves
];

/// The campaign's time control: the demo's 60+1 leaves no room for thinks long enough
/// for the pacing below in a whole game, so the games are played at 3+2 (the config the
/// e2e helpers write is changed to match).
const CAMPAIGN_TC: TimeControl = TimeControl::sudden_death(180, 2);

/// One of the demo's games (cut after `c.plies`), scripted with these faults at the
/// campaign's pace: no think shorter than `c.min_think_ms` (virtual). The end-to-end tests'
/// brisker pace (`common::script_with`, a ply about every 0.4 s real) is too fast here: a
/// pulled cable is not always seen as a hang-up by the daemon's driver (then only its
/// liveness probe, 3 s real, finds the line dead), and with the reconnect that blind spot
/// would span more than the four plies the tracker's reconnect search heals.
fn paced_script(c: &Campaign, game: usize, seed: u64, faults: Faults) -> Script {
    let games = read_pgn(GAMES.as_bytes()).unwrap();
    let mut input = GameInput::from_pgn(&games[game]).unwrap();
    if let Some(n) = c.plies {
        input.moves.truncate(n);
    }
    generate(
        &input,
        &HandOptions {
            seed,
            time_control: CAMPAIGN_TC,
            think_scale: 0.02,
            min_think_ms: c.min_think_ms,
            start_delay_ms: 6000,
            faults,
            ..HandOptions::default()
        },
    )
    .unwrap()
}

/// One burst of garbage with bit-7 bytes in it. Every burst starts with a bit-7 byte, so
/// that it never completes a frame an earlier burst left truncated (the board's own
/// frames, which also start with one, cut such a frame short).
fn bit7_burst(rng: &mut HandRng) -> Vec<u8> {
    let seven = |rng: &mut HandRng| rng.range(0, 0x7F) as u8;
    match rng.range(0, 3) {
        // Any bytes.
        0 => {
            let n = rng.range(1, 24) as usize;
            let mut v: Vec<u8> = (0..n).map(|_| rng.range(0, 0xFF) as u8).collect();
            v[0] |= 0x80;
            v
        }
        // A truncated frame: a real id and length, part of the payload.
        1 => {
            let (id, len) = FRAMES[rng.index(FRAMES.len())];
            let len_bytes = [(len >> 7) as u8 & 0x7F, len as u8 & 0x7F];
            let got = rng.range(0, (len - 4) as u64) as usize;
            let mut v = vec![id];
            v.extend(&len_bytes[..rng.range(0, 2) as usize]);
            if v.len() == 3 {
                v.extend((0..got).map(|_| seven(rng)));
            }
            v
        }
        // Stray bit-7 bytes.
        2 => (0..rng.range(1, 3))
            .map(|_| rng.range(0x80, 0xFF) as u8)
            .collect(),
        // A header announcing an oversized frame, then a few payload bytes.
        _ => {
            let id = FRAMES[rng.index(FRAMES.len())].0;
            let mut v = vec![id, 0x7F, 0x7F];
            v.extend((0..rng.range(0, 8)).map(|_| seven(rng)));
            v
        }
    }
}

/// A game's script with its faults: cable pulls, 7-bit noise and clock unplugs from the
/// hand-motion generator, bit-7 garbage and truncated frames added here at random moments.
fn faulty_script(c: &Campaign, game: usize, seed: u64) -> Script {
    let faults = Faults {
        board_cable_pulls: c.pulls,
        board_cable_off_ms: (300, 1500),
        line_noise: c.noise - c.noise / 2,
        clock_unplugs: c.clock_unplugs,
        clock_off_ms: (500, 2500),
    };
    let mut s = paced_script(c, game, seed, faults);
    let mut rng = HandRng::new(seed ^ 0xB17);
    let from = s.actions.first().map_or(0, |a| a.at_ms);
    for _ in 0..c.noise / 2 {
        let at = rng.range(from, s.end_ms);
        let bytes = bit7_burst(&mut rng);
        let i = s.actions.partition_point(|a| a.at_ms <= at);
        s.actions.insert(
            i,
            TimedAction {
                at_ms: at,
                action: Action::LineNoise(bytes),
            },
        );
    }
    s
}

/// When the batch's cables are out (virtual ms, each widened by a second after the replug
/// for the driver's reconnect).
fn blind_windows(scripts: &[Script]) -> Vec<(u64, u64)> {
    let mut w = Vec::new();
    for s in scripts {
        let mut out_since = None;
        for a in &s.actions {
            match a.action {
                Action::BoardCable { plugged: false } => out_since = Some(a.at_ms),
                Action::BoardCable { plugged: true } => {
                    if let Some(f) = out_since.take() {
                        w.push((f, a.at_ms + 1000));
                    }
                }
                _ => {}
            }
        }
    }
    w
}

/// The kill moments, in real ms after the boards started: one in each of `kills` equal
/// slices of the games' time, away from the slices' edges and from pulled cables.
fn kill_moments(c: &Campaign, scripts: &[Script], seed: u64) -> Vec<u64> {
    let virt = |real: u64| (real as f64 * SPEED) as u64;
    let from = scripts
        .iter()
        .map(|s| s.actions[0].at_ms)
        .max()
        .unwrap_or(0)
        + 1000;
    let to = scripts.iter().map(|s| s.end_ms).min().unwrap_or(0);
    let blind = blind_windows(scripts);
    let mut rng = HandRng::new(seed ^ 0x4B11);
    let slice = (to.saturating_sub(from)) / u64::from(c.kills.max(1));
    assert!(
        slice >= virt(2000),
        "{} kills do not fit {} s of play (at least 2 s apart)",
        c.kills,
        (to - from) / 1000
    );
    let mut out = Vec::new();
    for k in 0..u64::from(c.kills) {
        let lo = from + k * slice + slice / 6;
        let hi = from + (k + 1) * slice - slice / 6;
        let at = (0..200)
            .map(|_| rng.range(lo, hi))
            .find(|t| blind.iter().all(|(a, b)| t < a || t > b));
        // With 100 pulls a game, a slice can be all pulls (and their replug seconds):
        // then the kill comes anyway, at any moment of the slice.
        let at = at.unwrap_or_else(|| rng.range(lo, hi));
        out.push((at as f64 / SPEED) as u64);
    }
    out
}

/// The moves a board's events record, each ply once (a replacement takes its ply's
/// place), and the problems: a ply recorded twice without `replaces`, or a replacement
/// naming another move.
fn ply_moves(events: &[&Value]) -> (BTreeMap<u64, String>, Vec<String>) {
    let mut by_ply: BTreeMap<u64, String> = BTreeMap::new();
    let mut problems = Vec::new();
    for e in events.iter().filter(|e| e["kind"] == "move") {
        let ply = e["ply"].as_u64().unwrap();
        let uci = e["uci"].as_str().unwrap().to_owned();
        match (by_ply.get(&ply), e["replaces"].as_str()) {
            (Some(old), Some(r)) if r == old => {}
            (Some(old), _) => problems.push(format!("ply {ply} recorded twice: {old}, then {e}")),
            (None, Some(_)) => problems.push(format!("ply {ply} replaces nothing: {e}")),
            (None, None) => {}
        }
        by_ply.retain(|p, _| *p < ply);
        by_ply.insert(ply, uci);
    }
    (by_ply, problems)
}

/// Why a board's events do not yet hold the script's game, if they do not.
fn events_problem(script: &Script, events: &[&Value]) -> Option<String> {
    let (by_ply, problems) = ply_moves(events);
    if let Some(p) = problems.first() {
        return Some(p.clone());
    }
    let want: Vec<String> = script.plies.iter().map(|p| p.mv.uci()).collect();
    // Plies are counted from 1 in the events; a ply the events do not hold is "".
    let last = by_ply.keys().next_back().copied().unwrap_or(0) as usize;
    let mut got: Vec<String> = (1..=last.max(want.len()) as u64)
        .map(|p| by_ply.get(&p).cloned().unwrap_or_default())
        .collect();
    accept_flagged(&mut got, &want, events);
    accept_asked(&mut got, &want, events);
    // A ply the daemon did not record after it told the arbiter the board is out of sync
    // is lost, not garbled (issue 36: a gap is asked, never invented): counted by
    // `lost_plies`, never a wrong move.
    if asked_arbiter(events) {
        for (g, w) in got.iter_mut().zip(&want) {
            if g.is_empty() {
                g.clone_from(w);
            }
        }
    }
    (got != want).then(|| {
        let at = got.iter().zip(&want).take_while(|(a, b)| a == b).count();
        format!(
            "{} of {} plies; first difference at ply {}: got {:?}, want {:?}",
            got.len(),
            want.len(),
            at + 1,
            got.get(at),
            want.get(at)
        )
    })
}

/// Whether the daemon told the arbiter that the board is out of sync.
fn asked_arbiter(events: &[&Value]) -> bool {
    events
        .iter()
        .any(|e| e["kind"] == "board_status" && e["status"] == "out_of_sync")
}

/// The plies of `want` the events do not hold (made, never recorded).
fn lost_plies(want: &[String], events: &[&Value]) -> usize {
    let (by_ply, _) = ply_moves(events);
    (1..=want.len() as u64)
        .filter(|p| !by_ply.contains_key(p))
        .count()
}

/// Where the daemon followed the game on from the position every line found after a gap
/// leads to (`position_accepted` with `candidates`, issue 36: several orders of the same
/// moves, none recorded, the arbiter picks), and the line played is among those lines,
/// the plies of the gap are not lost by mistake: `got` takes the played line there.
/// Returns the plies so accepted (not in the record until the arbiter picks).
fn accept_asked(got: &mut [String], want: &[String], events: &[&Value]) -> usize {
    let mut asked = 0;
    for e in events.iter().filter(|e| {
        e["kind"] == "position_accepted"
            && e["candidates"].as_array().is_some_and(|c| !c.is_empty())
    }) {
        let (Some(from), Some(to)) = (e["last_known_ply"].as_u64(), e["ply"].as_u64()) else {
            continue;
        };
        let (from, to) = (from as usize, to as usize);
        if to > want.len() || to > got.len() {
            continue;
        }
        let played = e["candidates"].as_array().into_iter().flatten().any(|c| {
            let line: Vec<&str> = c["uci"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            line == want[from..to]
        });
        if played && got[from..to].iter().all(String::is_empty) {
            got[from..to].clone_from_slice(&want[from..to]);
            asked += to - from;
        }
    }
    asked
}

/// Where the daemon told the arbiter that rebuilt moves are uncertain
/// (`recovery_uncertain`: the board showed squares that several lines explain), and the
/// line played is among those it named (or leaves the same squares, the same side to
/// move), the recorded line is the best the board allows: `got` takes the played line
/// there. Returns the plies so accepted that differ.
fn accept_flagged(got: &mut [String], want: &[String], events: &[&Value]) -> usize {
    let mut accepted = 0;
    for e in events.iter().filter(|e| e["kind"] == "recovery_uncertain") {
        let uci = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|m| m.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let recorded = uci(&e["recorded"]);
        let named: Vec<Vec<String>> = std::iter::once(recorded.clone())
            .chain(e["alternatives"].as_array().into_iter().flatten().map(uci))
            .collect();
        let Some(from) = e["ply"].as_u64().map(|p| p as usize - 1) else {
            continue;
        };
        let to = from + recorded.len();
        if to > got.len() || to > want.len() || got[from..to] != recorded[..] {
            continue;
        }
        // The played line among those named, or (a line longer than the alternatives a
        // card can list: six plies of three independent moves a side have 36 orders, and
        // a piece's route can differ too) a line that leaves the same squares with the
        // same side to move as the played one: an explanation of what the board showed,
        // in plies the arbiter was told to check.
        let reaches = |line: &[String]| -> Option<String> {
            let mut p = Position::start();
            for u in want[..from].iter().chain(line) {
                p = p.play(p.parse_uci(u).ok()?).ok()?;
            }
            Some(p.fen().split(' ').take(2).collect::<Vec<_>>().join(" "))
        };
        if named.iter().any(|l| l[..] == want[from..to])
            || reaches(&recorded).is_some_and(|r| Some(r) == reaches(&want[from..to]))
        {
            accepted += got[from..to]
                .iter()
                .zip(&want[from..to])
                .filter(|(a, b)| a != b)
                .count();
            got[from..to].clone_from_slice(&want[from..to]);
        }
    }
    accepted
}

/// The PGN file's moves, parsed back.
/// The moves of a board's PGN by ply (index 0 is ply 1), "" where it holds none: a game
/// the daemon followed on from a position after a gap (`position_accepted`) is a game of
/// its own in the file, from a FEN, and its moves go in at their plies.
fn pgn_plies(path: &Path) -> Vec<String> {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let games = read_pgn(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!games.is_empty(), "{}", path.display());
    let mut got: Vec<String> = Vec::new();
    for g in &games {
        let game = g
            .replay()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let from = game.start().plies() as usize;
        for (i, m) in game.moves().iter().enumerate() {
            let at = from + i;
            if got.len() <= at {
                got.resize(at + 1, String::new());
            }
            assert!(
                got[at].is_empty(),
                "{}: ply {} twice",
                path.display(),
                at + 1
            );
            got[at] = m.uci();
        }
    }
    got
}

/// Plays one batch of games under one daemon with its faults and kills; checks and
/// reports each game.
fn run_batch(c: &Campaign, first: usize, count: usize) -> Vec<GameReport> {
    let seed = c.seed.wrapping_mul(1000) + first as u64;
    let dir = temp_dir(&format!("faults-{first}"));
    let links = dir.join("dev");
    std::fs::create_dir_all(&links).unwrap();
    let games: Vec<(usize, u64)> = (first..first + count)
        .map(|i| (i % 8, seed + i as u64))
        .collect();
    let scripts: Vec<Script> = games.iter().map(|&(g, s)| faulty_script(c, g, s)).collect();
    let kills = kill_moments(c, &scripts, seed);
    let boards = Boards::serve_linked(scripts, Some(&links));
    let started = Instant::now();
    let cfg = config(&dir, &boards, "");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let demo_tc = format!("time_control = \"{TIME_CONTROL}\"");
    assert!(
        text.contains(&demo_tc),
        "the e2e config names the demo's time control"
    );
    let text = text.replace(&demo_tc, &format!("time_control = \"{CAMPAIGN_TC}\""));
    std::fs::write(&cfg, text).unwrap();
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    for &at in &kills {
        let due = started + Duration::from_millis(at);
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        daemon.kill().unwrap(); // SIGKILL
        daemon.wait().unwrap();
        daemon = start(&cfg);
    }
    let longest = boards.scripts.iter().map(|s| s.end_ms).max().unwrap_or(0);
    boards.wait_done(Duration::from_secs_f64(
        longest as f64 / 1000.0 / SPEED + 60.0,
    ));
    // The events catch up: every board's game, each ply once.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ev = events(&out);
        let problems: Vec<String> = boards
            .scripts
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                events_problem(s, &board_events(&ev, i + 1))
                    .map(|p| format!("board {}: {p}", i + 1))
            })
            .collect();
        if problems.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            let _ = terminate(&mut daemon);
            panic!(
                "games lost or garbled (outputs in {}):\n{}",
                dir.display(),
                problems.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert!(
        !log.contains("panicked"),
        "a panic in {}",
        cfg.with_extension("log").display()
    );
    assert_eq!(
        log.matches("resumed from the journal").count(),
        kills.len() * count,
        "every board resumed from its journal at every restart"
    );

    let ev = events(&out);
    let mut reports = Vec::new();
    for (i, (s, &(game, seed))) in boards.scripts.iter().zip(&games).enumerate() {
        let b = board_events(&ev, i + 1);
        if let Some(p) = events_problem(s, &b) {
            panic!("board {}: {p}", i + 1);
        }
        assert_eq!(rulings(&b), 0, "board {}: a false ruling", i + 1);
        let want: Vec<String> = s.plies.iter().map(|p| p.mv.uci()).collect();
        let pgn = out.join(format!("pgn/round-2/board-{}.pgn", i + 1));
        let mut recorded = pgn_plies(&pgn);
        recorded.resize(recorded.len().max(want.len()), String::new());
        let flagged = accept_flagged(&mut recorded, &want, &b);
        let asked = accept_asked(&mut recorded, &want, &b);
        let lost = lost_plies(&want, &b);
        if asked_arbiter(&b) {
            for (r, w) in recorded.iter_mut().zip(&want) {
                if r.is_empty() {
                    r.clone_from(w);
                }
            }
        }
        recorded.truncate(
            want.len().max(
                recorded
                    .iter()
                    .rposition(|r| !r.is_empty())
                    .map_or(0, |i| i + 1),
            ),
        );
        assert_eq!(recorded, want, "the PGN of board {}", i + 1);
        let (pulls, noise_7bit, noise_bit7, clock_unplugs) = count_faults(&s.actions);
        let moves = b.iter().filter(|e| e["kind"] == "move");
        reports.push(GameReport {
            game,
            seed,
            plies: s.plies.len(),
            pulls,
            noise_7bit,
            noise_bit7,
            clock_unplugs,
            kills: kills.len(),
            recovered: moves.clone().filter(|e| e["recovered"] == true).count(),
            disconnects: b
                .iter()
                .filter(|e| e["kind"] == "board_status" && e["status"] == "disconnected")
                .count(),
            replaced: moves.filter(|e| !e["replaces"].is_null()).count(),
            uncertain: b
                .iter()
                .filter(|e| e["kind"] == "recovery_uncertain")
                .count(),
            flagged,
            false_rulings: rulings(&b),
            out_of_sync: b
                .iter()
                .filter(|e| e["kind"] == "board_status" && e["status"] == "out_of_sync")
                .count(),
            asked,
            lost,
            left_out_of_sync: b
                .iter()
                .rfind(|e| {
                    e["kind"] == "board_status"
                        && (e["status"] == "out_of_sync" || e["status"] == "in_sync")
                })
                .is_some_and(|e| e["status"] == "out_of_sync"),
        });
    }
    eprintln!(
        "batch of {count} games from {first}: {:.0?} real time",
        started.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
    reports
}

fn run(c: &Campaign) -> Vec<GameReport> {
    let _one_at_a_time = serial();
    let started = Instant::now();
    let mut reports = Vec::new();
    let mut first = 0;
    // A batch that loses a game fails the campaign, after the other batches have run.
    let mut failures = Vec::new();
    while first < c.games {
        let n = c.batch.min(c.games - first);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_batch(c, first, n))) {
            Ok(r) => reports.extend(r),
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("games {} to {}: {msg}", first + 1, first + n));
            }
        }
        first += n;
    }
    let mut table = table(c, &reports, started.elapsed());
    if !failures.is_empty() {
        table.push_str(&format!(
            "\n{} of {} batches FAILED:\n\n{}\n",
            failures.len(),
            c.games.div_ceil(c.batch),
            failures.join("\n\n")
        ));
    }
    eprintln!("{table}");
    if let Ok(path) = std::env::var("FAULT_REPORT") {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(f, "{table}").unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    reports
}

/// The per-game table and the totals, as markdown.
fn table(c: &Campaign, r: &[GameReport], took: Duration) -> String {
    let mut s = format!(
        "Campaign {c:?}: {} games in {:.0?}\n\n| game | seed | plies | cable pulls | noise 7-bit | noise bit-7/truncated | clock unplugs | kill -9 | line drops seen | moves recovered | uncertain lines | false rulings | out of sync | moves replaced | moves lost | left out of sync | PGN = game |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        r.len(),
        took
    );
    for g in r {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            g.game + 1,
            g.seed,
            g.plies,
            g.pulls,
            g.noise_7bit,
            g.noise_bit7,
            g.clock_unplugs,
            g.kills,
            g.disconnects,
            g.recovered,
            g.uncertain,
            g.false_rulings,
            g.out_of_sync,
            g.replaced,
            g.lost,
            if g.left_out_of_sync { "yes" } else { "no" },
            match (g.flagged, g.asked) {
                _ if g.lost > g.asked => format!("no: {} plies lost (asked)", g.lost),
                (0, 0) => "yes".to_owned(),
                (0, a) => format!("yes but {a} plies of unknown order left to the arbiter"),
                (n, _) => format!("yes but {n} plies of flagged lines"),
            }
        ));
    }
    let sum = |f: fn(&GameReport) -> usize| r.iter().map(f).sum::<usize>();
    s.push_str(&format!(
        "| **total** | | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} boards | {} of {} exact, {} with {} plies of flagged lines, {} with {} plies of unknown order left to the arbiter |\n",
        sum(|g| g.plies),
        sum(|g| g.pulls),
        sum(|g| g.noise_7bit),
        sum(|g| g.noise_bit7),
        sum(|g| g.clock_unplugs),
        sum(|g| g.kills),
        sum(|g| g.disconnects),
        sum(|g| g.recovered),
        sum(|g| g.uncertain),
        sum(|g| g.false_rulings),
        sum(|g| g.out_of_sync),
        sum(|g| g.replaced),
        sum(|g| g.lost),
        r.iter().filter(|g| g.left_out_of_sync).count(),
        r.iter().filter(|g| g.flagged == 0 && g.asked == 0 && g.lost == 0).count(),
        r.len(),
        r.iter().filter(|g| g.flagged > 0).count(),
        sum(|g| g.flagged),
        r.iter().filter(|g| g.asked > 0).count(),
        sum(|g| g.asked),
    ));
    s
}

#[test]
fn fault_campaign_ci() {
    let c = Campaign::ci();
    let reports = run(&c);
    for g in &reports {
        assert_eq!(
            g.pulls, c.pulls as usize,
            "every cable pull found its place"
        );
        assert!(g.noise_bit7 > 0 && g.noise_7bit > 0);
        assert_eq!(g.lost, 0, "no ply lost at CI size: {g:?}");
    }
}

/// The full campaign (see the module documentation for its knobs).
#[test]
#[ignore]
fn fault_campaign_full() {
    let c = Campaign::from_env();
    let reports = run(&c);
    assert_eq!(reports.len(), c.games);
}

// ----- gaps: many plies made while the daemon cannot see the board -----

/// How a gap is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GapKind {
    /// The board's cable is out for the gap's plies.
    Cable,
    /// The daemon is killed (`kill -9`) and restarted only after the gap's plies.
    Kill,
}

/// The ply after which a gap begins (its plies before are seen, and must be recorded).
const GAP_FROM: usize = 6;

/// Plies played after a gap (the players go on, the daemon follows as it can).
const GAP_AFTER: usize = 6;

/// What one game with a gap came to.
#[derive(Debug, Clone)]
struct GapReport {
    kind: GapKind,
    gap: usize,
    game: usize,
    plies: usize,
    /// `illegal_move` or `illegal_move_stands` events: no illegal move is played in these
    /// games, so every one is a false ruling.
    false_rulings: usize,
    /// Plies of the game that the events do not hold.
    lost: usize,
    /// Plies recorded otherwise than played, inside lines flagged `recovery_uncertain`.
    flagged: usize,
    /// Plies recorded otherwise than played, not flagged: a wrong record nobody was told of.
    wrong: usize,
    uncertain: usize,
    /// The board's last sync status was `out_of_sync`.
    left_out_of_sync: bool,
}

/// One of the demo's games (cut `GAP_AFTER` plies after the gap) at a brisker pace than
/// the fault runs (no short pulls to pace for), with no other faults.
fn gap_script(game: usize, gap: usize, seed: u64) -> Script {
    let games = read_pgn(GAMES.as_bytes()).unwrap();
    let mut input = GameInput::from_pgn(&games[game]).unwrap();
    input.moves.truncate(GAP_FROM + gap + GAP_AFTER);
    generate(
        &input,
        &HandOptions {
            seed,
            time_control: CAMPAIGN_TC,
            think_scale: 0.02,
            min_think_ms: 1500,
            start_delay_ms: 6000,
            ..HandOptions::default()
        },
    )
    .unwrap()
}

/// The virtual moments a gap begins and ends: from just after the press that ends ply
/// `GAP_FROM` to just after the press that ends the gap's last ply.
fn gap_window(s: &Script, gap: usize) -> (u64, u64) {
    let begin = s.plies[GAP_FROM].turn_start_ms + 100;
    let end = s.plies[GAP_FROM + gap].turn_start_ms + 100;
    (begin, end)
}

/// A demo game long enough for a gap of `gap` plies (the shortest of them has 33).
fn game_for(gap: usize, i: usize) -> usize {
    let games = read_pgn(GAMES.as_bytes()).unwrap();
    let need = GAP_FROM + gap + GAP_AFTER;
    (0..games.len())
        .map(|k| (k + i) % games.len())
        .find(|&k| games[k].moves.len() >= need)
        .unwrap_or_else(|| panic!("no demo game has {need} plies"))
}

/// Plays games with one gap each under one daemon: with `GapKind::Cable` each board gets
/// its own gap; with `GapKind::Kill` one board, the daemon down for the gap's plies.
fn run_gaps(kind: GapKind, gaps: &[usize], seed: u64) -> Vec<GapReport> {
    let dir = temp_dir(&format!("gaps-{kind:?}-{seed}"));
    let links = dir.join("dev");
    std::fs::create_dir_all(&links).unwrap();
    let games: Vec<usize> = gaps
        .iter()
        .enumerate()
        .map(|(i, &g)| game_for(g, i))
        .collect();
    let scripts: Vec<Script> = gaps
        .iter()
        .zip(&games)
        .enumerate()
        .map(|(i, (&gap, &game))| {
            let mut s = gap_script(game, gap, seed + i as u64);
            if kind == GapKind::Cable {
                let (begin, end) = gap_window(&s, gap);
                for (at, plugged) in [(begin, false), (end, true)] {
                    let i = s.actions.partition_point(|a| a.at_ms <= at);
                    s.actions.insert(
                        i,
                        TimedAction {
                            at_ms: at,
                            action: Action::BoardCable { plugged },
                        },
                    );
                }
            }
            s
        })
        .collect();
    let windows: Vec<(u64, u64)> = scripts
        .iter()
        .zip(gaps)
        .map(|(s, &g)| gap_window(s, g))
        .collect();
    let boards = Boards::serve_linked(scripts, Some(&links));
    let started = Instant::now();
    // The hall's clocks run at the emulator's speed: the daemon is told (`time_scale`), so
    // that it can count the presses made in a gap from the clock's times (issue 36).
    let cfg = config(&dir, &boards, &format!("time_scale = {SPEED:.1}\n"));
    let text = std::fs::read_to_string(&cfg).unwrap();
    let demo_tc = format!("time_control = \"{TIME_CONTROL}\"");
    let text = text.replace(&demo_tc, &format!("time_control = \"{CAMPAIGN_TC}\""));
    std::fs::write(&cfg, text).unwrap();
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    if kind == GapKind::Kill {
        for &(begin, end) in &windows {
            let real = |v: u64| started + Duration::from_millis((v as f64 / SPEED) as u64);
            std::thread::sleep(real(begin).saturating_duration_since(Instant::now()));
            daemon.kill().unwrap(); // SIGKILL
            daemon.wait().unwrap();
            std::thread::sleep(real(end).saturating_duration_since(Instant::now()));
            daemon = start(&cfg);
        }
    }
    let longest = boards.scripts.iter().map(|s| s.end_ms).max().unwrap_or(0);
    boards.wait_done(Duration::from_secs_f64(
        longest as f64 / 1000.0 / SPEED + 60.0,
    ));
    // The board's last dump after the game, and the deep search, get a few seconds.
    std::thread::sleep(Duration::from_secs(3));
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert!(
        !log.contains("panicked"),
        "a panic in {}",
        cfg.with_extension("log").display()
    );
    let ev = events(&out);
    let mut reports = Vec::new();
    for (i, (s, (&gap, &game))) in boards
        .scripts
        .iter()
        .zip(gaps.iter().zip(&games))
        .enumerate()
    {
        let b = board_events(&ev, i + 1);
        let (by_ply, problems) = ply_moves(&b);
        assert!(problems.is_empty(), "board {}: {problems:?}", i + 1);
        let want: Vec<String> = s.plies.iter().map(|p| p.mv.uci()).collect();
        // Plies are counted from 1 in the events; a ply the events do not hold is lost.
        let mut got: Vec<String> = (1..=want.len() as u64)
            .map(|p| by_ply.get(&p).cloned().unwrap_or_default())
            .collect();
        let flagged = accept_flagged(&mut got, &want, &b);
        let lost = got.iter().filter(|g| g.is_empty()).count();
        let wrong = got
            .iter()
            .zip(&want)
            .filter(|(g, w)| !g.is_empty() && g != w)
            .count();
        // The plies before the gap were seen: they are recorded as played. The last of
        // them may be lost with the gap (never recorded otherwise): a kill comes 100 ms of
        // the hall's time after its press, on a loaded machine before the daemon saw it.
        assert_eq!(
            got[..GAP_FROM - 1],
            want[..GAP_FROM - 1],
            "board {}: the plies before the gap",
            i + 1
        );
        assert!(
            got[GAP_FROM - 1].is_empty() || got[GAP_FROM - 1] == want[GAP_FROM - 1],
            "board {}: ply {GAP_FROM} recorded as {:?}, played {:?}",
            i + 1,
            got[GAP_FROM - 1],
            want[GAP_FROM - 1]
        );
        let sync = b.iter().rfind(|e| {
            e["kind"] == "board_status"
                && (e["status"] == "out_of_sync" || e["status"] == "in_sync")
        });
        reports.push(GapReport {
            kind,
            gap,
            game,
            plies: want.len(),
            false_rulings: rulings(&b),
            lost,
            flagged,
            wrong,
            uncertain: b
                .iter()
                .filter(|e| e["kind"] == "recovery_uncertain")
                .count(),
            left_out_of_sync: sync.is_some_and(|e| e["status"] == "out_of_sync"),
        });
    }
    eprintln!(
        "{kind:?} gaps {gaps:?}: {:.0?} real time",
        started.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
    reports
}

/// The gap table, as markdown.
fn gap_table(r: &[GapReport]) -> String {
    let mut s = String::from(
        "| gap made by | plies in the gap | game | plies | false rulings | moves lost | uncertain recoveries | plies in flagged lines | plies wrong, unflagged | left out of sync |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for g in r {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            match g.kind {
                GapKind::Cable => "cable out",
                GapKind::Kill => "kill -9, down",
            },
            g.gap,
            g.game + 1,
            g.plies,
            g.false_rulings,
            g.lost,
            g.uncertain,
            g.flagged,
            g.wrong,
            if g.left_out_of_sync { "yes" } else { "no" },
        ));
    }
    let sum = |f: fn(&GapReport) -> usize| r.iter().map(f).sum::<usize>();
    s.push_str(&format!(
        "| **total** | | | {} | {} | {} | {} | {} | {} | {} of {} |\n",
        sum(|g| g.plies),
        sum(|g| g.false_rulings),
        sum(|g| g.lost),
        sum(|g| g.uncertain),
        sum(|g| g.flagged),
        sum(|g| g.wrong),
        r.iter().filter(|g| g.left_out_of_sync).count(),
        r.len(),
    ));
    s
}

fn run_gap_campaign(gaps: &[usize], seed: u64) -> Vec<GapReport> {
    let _one_at_a_time = serial();
    let mut reports = run_gaps(GapKind::Cable, gaps, seed);
    for (i, &g) in gaps.iter().enumerate() {
        reports.extend(run_gaps(GapKind::Kill, &[g], seed + 100 + i as u64));
    }
    let table = gap_table(&reports);
    eprintln!("{table}");
    if let Ok(path) = std::env::var("FAULT_REPORT") {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap();
        writeln!(f, "Gaps {gaps:?}, seed {seed}:\n\n{table}").unwrap();
    }
    // Never a ruling on a board the daemon could not see; never a wrong record, and no
    // line in the record that is not proven (issue 36: an uncertain line goes to the
    // arbiter as candidates, never into the main line, flagged or not).
    for g in &reports {
        assert_eq!(g.false_rulings, 0, "{g:?}\n{table}");
        assert_eq!(g.wrong, 0, "{g:?}\n{table}");
        assert_eq!(g.flagged, 0, "{g:?}\n{table}");
        assert_eq!(g.uncertain, 0, "{g:?}\n{table}");
    }
    reports
}

/// Gaps of 6 and 20 plies, by a pulled cable and by a `kill -9` (part of `cargo test`).
#[test]
fn gaps_ci() {
    run_gap_campaign(&[6, 20], 9);
}

/// Gaps of 1, 3, 6, 10, 20 and 40 plies, both ways (`FAULT_SEED` as above; `FAULT_GAPS`,
/// a comma-separated list of plies, for others).
#[test]
#[ignore]
fn gaps_full() {
    let seed = std::env::var("FAULT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let gaps: Vec<usize> = match std::env::var("FAULT_GAPS") {
        Ok(list) => list
            .split(',')
            .map(|g| {
                g.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("FAULT_GAPS: {g:?} is not a number of plies"))
            })
            .collect(),
        Err(_) => vec![1, 3, 6, 10, 20, 40],
    };
    run_gap_campaign(&gaps, seed * 1000 + 500);
}
