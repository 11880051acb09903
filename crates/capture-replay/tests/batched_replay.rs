//! Dead-position questions settled in batches ([`touch_tracker::BatchedTracker`], which
//! `replay --fast` uses) give exactly the events of answering each question at once, in
//! the same order, on multi-board replays: games that go dead in the middle and are
//! played on (the batch is undone and fed again), games with illegal moves, presses
//! without a move and flag falls (questions answered at once while a batch is open), and
//! with the shared data real games from the corpus. Every batch size from 1 up is
//! compared with 0 (each question at once, as `SyncTracker` answers them), and so is the
//! replay shared among threads (`Replay::write_json_lines`, which `replay --fast` runs).

use std::io::Cursor;

use capture_replay::{Replay, ReplayOptions};
use chess_rules::read_pgn;
use dgt_protocol::capture::{CaptureHeader, CaptureWriter, TimeControl};
use dgt_protocol::clock::ClockSide;
use dgt_protocol::HostCommand;
use dgt_sim::hands::{generate, GameInput, HandOptions, Irregularity, Script, Variations};
use dgt_sim::{Emulator, EmulatorConfig};
use touch_tracker::EndReason;

/// Games written here, so that the test needs no shared data.
const GAMES: &str = r#"
[Event "Bishop takes the last rook: dead at once, and the players play on"]
[SetUp "1"]
[FEN "8/8/4k3/8/4B3/3K4/8/7r w - - 0 1"]

1. Bxh1 Kd6 2. Kd4 Ke6 3. Bd5+ Kd6 4. Bf3 Ke6 5. Ke4 Kd6 *

[Event "Opera game"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0

[Event "Trades down to bare kings after a long middlegame"]
[SetUp "1"]
[FEN "4k3/8/3r4/8/2n1N3/3R4/8/4K3 w - - 0 1"]

1. Nf6+ Kf7 2. Ne4 Ke7 3. Nc5 Rxd3 4. Nxd3 Nd6 5. Ne5 Ke6 6. Kd2 Kxe5 7. Kc3 Ne4+
8. Kb4 Kd5 9. Kb5 Nc3+ 10. Kb4 Ne4 11. Kb5 Nd6+ 12. Kb6 Nc4+ 13. Kb5 Ke4 14. Kxc4 Kf3 15. Kd3 *
"#;

fn capture_of(name: &str, script: &Script, time_control: TimeControl) -> Vec<u8> {
    let mut emu = Emulator::new(EmulatorConfig {
        scan_interval_ms: 250,
        ..script.emulator_config()
    });
    emu.record_capture();
    emu.receive_at(
        0,
        &[
            HostCommand::SendBoard.encode(),
            HostCommand::SendUpdateNice.encode(),
        ]
        .concat(),
    );
    for a in &script.actions {
        emu.apply_at(a.at_ms, &a.action);
    }
    emu.advance_to(script.end_ms + 2000);
    let header = CaptureHeader {
        variant: Default::default(),
        board: Some(name.to_owned()),
        start_fen: (script.start != chess_rules::Position::start()).then(|| script.start.fen()),
        time_control: Some(time_control),
        white_clock: Some(ClockSide::Left),
        extra: Vec::new(),
    };
    let mut w = CaptureWriter::new(Vec::new(), &header).unwrap();
    for r in emu.take_capture() {
        w.write(&r).unwrap();
    }
    w.flush().unwrap();
    w.into_inner()
}

/// Captures of `pgn_text`'s games, one board each, with irregularities taken in turn.
fn captures(pgn_text: &[u8], prefix: &str, limit: usize) -> Vec<(String, Vec<u8>)> {
    let time_control = TimeControl::sudden_death(180, 2);
    let irregular = [
        vec![],
        vec![Irregularity::FlagFall],
        vec![Irregularity::ClockWithoutMove],
        vec![Irregularity::Illegal(dgt_sim::hands::IllegalKind::ALL[0])],
    ];
    let mut out = Vec::new();
    for (i, pgn) in read_pgn(pgn_text).unwrap().iter().enumerate() {
        if out.len() == limit {
            break;
        }
        if pgn.tag("Variant").is_some_and(|v| v != "Standard") {
            continue;
        }
        let game = match GameInput::from_pgn(pgn) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{prefix}{i:03}: not played: {e}");
                continue;
            }
        };
        let opts = HandOptions {
            seed: i as u64,
            time_control,
            think_scale: 0.2,
            variations: Variations::realistic(),
            irregularities: irregular[i % irregular.len()].clone(),
            ..HandOptions::default()
        };
        let script = match generate(&game, &opts) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{prefix}{i:03}: not played: {e}");
                continue;
            }
        };
        let name = format!("{prefix}{i:03}");
        out.push((name.clone(), capture_of(&name, &script, time_control)));
    }
    out
}

/// A replay of `captures` (one board each) with dead-position batches of `batch`.
fn new_replay(captures: &[(String, Vec<u8>)], batch: usize) -> Replay<Cursor<Vec<u8>>> {
    let inputs = captures
        .iter()
        .map(|(n, bytes)| (n.clone(), Cursor::new(bytes.clone())))
        .collect();
    let opts = ReplayOptions {
        dead_position_batch: batch,
        ..ReplayOptions::default()
    };
    Replay::new(inputs, &opts).unwrap()
}

fn replay(captures: &[(String, Vec<u8>)], batch: usize) -> (Vec<String>, u64, u64) {
    let mut r = new_replay(captures, batch);
    let mut out = Vec::new();
    r.run(&mut out).unwrap();
    let (settled, undone) = r
        .batch_counts()
        .fold((0, 0), |(s, u), (a, b, _)| (s + a, u + b));
    (out.iter().map(|e| e.to_json()).collect(), settled, undone)
}

fn compare(captures: &[(String, Vec<u8>)], batches: &[usize]) -> Vec<String> {
    let (at_once, _, _) = replay(captures, 0);
    for &batch in batches {
        let (batched, settled, _) = replay(captures, batch);
        assert!(settled > 0, "batch {batch}: no batch was settled");
        if let Some(i) =
            (0..at_once.len().max(batched.len())).find(|&i| at_once.get(i) != batched.get(i))
        {
            panic!(
                "batch {batch}: event {i} differs\n  at once: {:?}\n  batched: {:?}",
                at_once.get(i),
                batched.get(i)
            );
        }
    }
    at_once
}

#[test]
fn batches_give_the_events_of_answering_at_once_on_games_that_go_dead() {
    let caps = captures(GAMES.as_bytes(), "g", usize::MAX);
    assert_eq!(caps.len(), 3, "every embedded game makes a capture");
    let events = compare(&caps, &[1, 2, 3, 5, 64]);
    // The comparison means something: two games end dead in their middle, and the
    // batched replay had to undo a batch for them.
    let dead = events
        .iter()
        .filter(|e| e.contains(EndReason::DeadPosition.name()))
        .count();
    assert!(dead >= 2, "dead-position ends: {dead}\n{events:#?}");
    let (_, _, undone) = replay(&caps, 64);
    assert!(undone >= 2, "batches undone: {undone}");
}

#[test]
fn batches_give_the_events_of_answering_at_once_on_real_games() {
    let source = "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn";
    if !test_data::have(source) {
        eprintln!("skipped: needs DGT_SHARED_DIR ({source})");
        return;
    }
    let caps = captures(&test_data::read(source), "l", 16);
    assert_eq!(caps.len(), 16);
    let events = compare(&caps, &[1, 7, 64]);
    assert!(events.iter().any(|e| e.contains("\"kind\":\"move\"")));
}

#[test]
fn batches_give_the_events_of_answering_at_once_on_recorded_captures() {
    // The emulator's captures kept in the repository, and the physical board's when the
    // shared data is there: all replayed together, as several boards.
    let mut paths: Vec<std::path::PathBuf> = ["short", "promotion-turned", "castling"]
        .iter()
        .map(|n| test_data::emulator_capture(&format!("lichess-{n}.dgtcap")))
        .collect();
    if test_data::have("dgt-captures/arnsholt-dgtdriver") {
        paths.extend(["2.dgtcap", "johan.dgtcap"].map(test_data::capture));
    }
    let caps: Vec<(String, Vec<u8>)> = paths
        .iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    let events = compare(&caps, &[1, 4, 128]);
    assert!(events.iter().any(|e| e.contains("\"kind\":\"move\"")));
}

#[test]
fn a_capture_that_cannot_go_on_gives_the_same_events_before_its_error() {
    let mut caps = captures(GAMES.as_bytes(), "g", usize::MAX);
    // Cut the second game's capture in its middle with a line that is not a record.
    let bytes = &mut caps[1].1;
    let middle = bytes.len() / 2;
    let cut = middle + bytes[middle..].iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.splice(cut..cut, b"12x < 8e00053400\n".iter().copied());
    let run = |batch: usize| {
        let mut r = new_replay(&caps, batch);
        let mut out = Vec::new();
        let result = r.run(&mut out);
        assert!(result.is_err(), "batch {batch}: the bad line was accepted");
        out.iter().map(|e| e.to_json()).collect::<Vec<_>>()
    };
    let at_once = run(0);
    assert!(at_once.iter().any(|e| e.contains("\"kind\":\"move\"")));
    assert_eq!(run(128), at_once);
    assert_eq!(run(3), at_once);
}

/// The JSON lines (without their newline) of a replay shared among `threads` threads, and
/// its error.
fn on_threads(
    captures: &[(String, Vec<u8>)],
    batch: usize,
    threads: usize,
) -> (Vec<String>, Option<String>) {
    let mut bytes = Vec::new();
    let result = new_replay(captures, batch).write_json_lines(threads, &mut bytes);
    let text = String::from_utf8(bytes).unwrap();
    (
        text.lines().map(str::to_owned).collect(),
        result.err().map(|e| e.to_string()),
    )
}

/// Captures of the embedded games with irregularities (presses the board reports late,
/// flag falls: timers), the repository's emulator captures, and with the shared data
/// real games and the physical board's captures.
fn many_boards() -> Vec<(String, Vec<u8>)> {
    let mut caps = captures(GAMES.as_bytes(), "g", usize::MAX);
    for name in ["short", "promotion-turned", "castling"] {
        let path = test_data::emulator_capture(&format!("lichess-{name}.dgtcap"));
        caps.push((name.to_owned(), std::fs::read(path).unwrap()));
    }
    let source = "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn";
    if test_data::have(source) {
        caps.extend(captures(&test_data::read(source), "l", 8));
    }
    caps
}

#[test]
fn threads_give_the_events_of_one_thread_in_the_same_order() {
    let caps = many_boards();
    let (at_once, _, _) = replay(&caps, 0);
    assert!(at_once.len() > 100, "{}", at_once.len());
    // Threads take boards in turn as they finish their bursts: several runs of each,
    // for the orders the scheduler gives.
    let runs = [1, 2, 2, 3, 3, 4, 9, 9, 9];
    for batch in [0, 5, 128] {
        for threads in runs {
            let (lines, error) = on_threads(&caps, batch, threads);
            assert_eq!(error, None);
            if let Some(i) =
                (0..at_once.len().max(lines.len())).find(|&i| at_once.get(i) != lines.get(i))
            {
                panic!(
                    "batch {batch}, {threads} threads: line {i} differs\n  one thread: {:?}\n  \
                     threads: {:?}",
                    at_once.get(i),
                    lines.get(i)
                );
            }
        }
    }
}

#[test]
fn threads_stop_at_a_capture_error_where_one_thread_does() {
    let mut caps = many_boards();
    // Cut the second game's capture in its middle: the other boards go on after it.
    let bytes = &mut caps[1].1;
    let middle = bytes.len() / 2;
    let cut = middle + bytes[middle..].iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.splice(cut..cut, b"12x < 8e00053400\n".iter().copied());
    let mut r = new_replay(&caps, 0);
    let mut out = Vec::new();
    let error = r.run(&mut out).unwrap_err().to_string();
    let at_once: Vec<String> = out.iter().map(|e| e.to_json()).collect();
    assert!(error.contains("g001"), "{error}");
    // The error comes before the end of other boards' games.
    let (all, _) = on_threads(&many_boards(), 0, 1);
    assert!(
        all.len() > at_once.len() + 50,
        "{} {}",
        all.len(),
        at_once.len()
    );
    for (batch, threads) in [(0, 1), (128, 1), (0, 2), (128, 2), (3, 3), (128, 9)] {
        assert_eq!(
            on_threads(&caps, batch, threads),
            (at_once.clone(), Some(error.clone())),
            "batch {batch}, {threads} threads"
        );
    }
}

#[test]
fn a_board_gives_the_same_events_whatever_is_replayed_beside_it() {
    let caps = many_boards();
    let (together, _, _) = replay(&caps, 0);
    for (name, bytes) in &caps {
        let (alone, _, _) = replay(&[(name.clone(), bytes.clone())], 0);
        assert!(alone.len() > 3, "board {name}: {alone:?}");
        // The board's name (a capture's header may name it otherwise than its file).
        let board = |line: &String| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["board"].as_str().unwrap().to_owned()
        };
        let name = board(&alone[0]);
        let mine: Vec<&String> = together.iter().filter(|e| board(e) == name).collect();
        assert_eq!(mine, alone.iter().collect::<Vec<_>>(), "board {name}");
    }
}
