//! `dgt-arbiter emulate` end to end: the binary serves a game on a pty; a host opens the
//! printed path as a serial port (through the driver's `serialport`-based `Port`), sends
//! the init commands, reads the dump and the field updates, and sees the game's moves
//! arrive; the capture and the expected events are written; bad arguments are refused
//! with clear messages.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use chess_rules::{read_pgn, Placement};
use dgt_protocol::{BoardMessage, ClockSide, Decoder, Orientation, PieceCode};
use dgt_serial::port::Port;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run dgt-arbiter")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dgt-emulate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Folds a message into the host's picture of the board.
fn follow(board: &mut Placement, msg: &BoardMessage) -> bool {
    match msg {
        BoardMessage::BoardDump { board: raw } => *board = raw.placement(Orientation::Normal),
        BoardMessage::FieldUpdate(u) => board.set(
            u.field.square(Orientation::Normal),
            match u.piece {
                PieceCode::Piece(p) => Some(p),
                _ => None,
            },
        ),
        _ => return false,
    }
    true
}

#[test]
fn a_host_follows_the_emulated_game_on_the_printed_pty() {
    if !test_data::have("pgn/python-chess/molinari-bordais-1979.pgn") {
        return;
    }
    let pgn_path = test_data::path("pgn/python-chess/molinari-bordais-1979.pgn");
    let pgn = &read_pgn(&std::fs::read(&pgn_path).unwrap()).unwrap()[0];
    let game = pgn.replay().unwrap();
    let placements: Vec<Placement> = game.positions().iter().map(|p| *p.placement()).collect();
    let capture = temp("game.dgtcap");
    let expect = temp("expected.jsonl");
    let mut child = bin()
        .args(["emulate", "--pgn"])
        .arg(&pgn_path)
        .args([
            "--speed",
            "20",
            "--think-scale",
            "0.05",
            "--start-delay",
            "6",
            "--seed",
            "3",
            // A turned board with its clock turned too, and a serial of its own.
            "--white-clock",
            "right",
            "--serial",
            "04321",
        ])
        .arg("--record")
        .arg(&capture)
        .arg("--expect")
        .arg(&expect)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let path = PathBuf::from(lines.next().expect("a path on stdout").unwrap());
    assert!(path.starts_with("/dev/pts"), "{}", path.display());

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // stderr is read to its end (a closed pipe would fail the emulator's last lines).
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (said_tx, said_rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = said_tx.send(line);
        }
    });
    let (reached, first_running, after_end) = rt.block_on(async {
        let port = Port::open(&path).expect("open the pty as a serial port");
        // SEND_BRD (dump), then SEND_UPDATE_NICE (field updates, clock on change).
        assert_eq!(port.try_write(&[0x42, 0x4B]).unwrap(), 2);
        let mut decoder = Decoder::new();
        let mut board = Placement::EMPTY;
        let mut reached = Vec::new();
        let mut first_running = None;
        let mut buf = [0u8; 512];
        let deadline = Instant::now() + Duration::from_secs(20);
        while reached.last() != Some(&(placements.len() - 1)) && Instant::now() < deadline {
            let n =
                match tokio::time::timeout(Duration::from_millis(200), port.read(&mut buf)).await {
                    Ok(Ok(0)) => break,
                    Ok(Ok(n)) => n,
                    Ok(Err(e)) => panic!("read: {e}"),
                    Err(_) => continue,
                };
            for msg in decoder.push(&buf[..n]) {
                let msg = msg.expect("valid frames only");
                if let BoardMessage::ClockTime(t) = &msg {
                    first_running = first_running.or(t.running_side());
                }
                if follow(&mut board, &msg) {
                    if let Some(k) = placements.iter().position(|p| *p == board) {
                        if reached.last() != Some(&k) {
                            reached.push(k);
                        }
                    }
                }
            }
        }
        // The game is over; the board stays on, as a real board does: the port still
        // answers (no EIO, no hang-up).
        let said = tokio::task::spawn_blocking(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match said_rx.recv_timeout(left) {
                    Ok(l) if l.starts_with("game over") => return Some(l),
                    Ok(_) => {}
                    Err(_) => return None,
                }
            }
        })
        .await
        .unwrap();
        assert!(said.is_some_and(|l| l.contains("stays on")));
        assert_eq!(port.try_write(&[0x45]).unwrap(), 1); // RETURN_SERIALNR
        let mut after_end = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !after_end
            .iter()
            .any(|m| matches!(m, BoardMessage::SerialNumber(_)))
            && Instant::now() < deadline
        {
            match tokio::time::timeout(Duration::from_millis(200), port.read(&mut buf)).await {
                Ok(Ok(0)) => break,
                Ok(Ok(n)) => after_end.extend(decoder.push(&buf[..n]).into_iter().flatten()),
                Ok(Err(e)) => panic!("read after the game: {e}"),
                Err(_) => continue,
            }
        }
        (reached, first_running, after_end)
    });
    // The host saw moves arrive, in order, up to the mate.
    assert!(reached.len() >= 4, "reached {reached:?}");
    assert!(reached.windows(2).all(|w| w[0] < w[1]), "{reached:?}");
    assert_eq!(reached.last(), Some(&(placements.len() - 1)));
    // White's time ran first, on the right of the clock.
    assert_eq!(first_running, Some(ClockSide::Right));
    // After the game the board answered with its own serial number.
    assert!(
        after_end
            .iter()
            .any(|m| matches!(m, BoardMessage::SerialNumber(s) if s.number == "04321")),
        "{after_end:?}"
    );
    // Still running; SIGTERM ends it cleanly.
    assert!(child.try_wait().unwrap().is_none(), "emulate stays on");
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "emulate did not exit on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    // The capture holds both directions; the expectations every move and the mate.
    let cap = std::fs::read_to_string(&capture).unwrap();
    assert!(
        cap.starts_with("# dgtcap 1"),
        "{}",
        &cap[..cap.len().min(200)]
    );
    assert!(cap.contains("# time-control: ") && cap.contains(" > ") && cap.contains(" < "));
    assert!(
        cap.contains("# white-clock: right"),
        "{}",
        &cap[..cap.len().min(400)]
    );
    let events: Vec<serde_json::Value> = std::fs::read_to_string(&expect)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let moves = events.iter().filter(|e| e["kind"] == "move").count();
    assert_eq!(moves, placements.len() - 1);
    let last = events.last().unwrap();
    assert_eq!(last["kind"], "game_over");
    assert_eq!(last["reason"], "checkmate");
    assert_eq!(last["result"], "0-1");
}

#[test]
fn bad_arguments_and_unreadable_files_are_refused_clearly() {
    if !test_data::have("pgn/python-chess/molinari-bordais-1979.pgn") {
        return;
    }
    let pgn = test_data::path("pgn/python-chess/molinari-bordais-1979.pgn");
    let pgn = pgn.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &["emulate", "--pgn", "/nonexistent/x.pgn"],
            "cannot read the PGN file",
        ),
        (&["emulate", "--pgn", pgn, "--game", "9"], "out of range"),
        (
            &["emulate", "--pgn", pgn, "--time-control", "fast"],
            "BASE+INC",
        ),
        // Periods are played now, but a period of more than 6 hours is a typing mistake.
        (
            &["emulate", "--pgn", pgn, "--time-control", "40/99999:1800"],
            "out of bounds",
        ),
        (
            &["emulate", "--pgn", pgn, "--irregularities", "castle-badly"],
            "unknown irregularity",
        ),
        (&["emulate", "--pgn", pgn, "--speed", "0"], "--speed"),
    ];
    for (args, want) in cases {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed a path");
    }
    let not_pgn = temp("not.pgn");
    std::fs::write(&not_pgn, "1. e4 e5 2. Kxe8\n").unwrap();
    let out = run(&["emulate", "--pgn", not_pgn.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not.pgn"));
}

/// The first standard game of the repository's Lichess file in which both players make
/// 45 moves or more, and its number in the file (1-based).
fn long_lichess_game() -> (PathBuf, usize) {
    let rel = "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn";
    let games = read_pgn(&test_data::read(rel)).unwrap();
    let index = games
        .iter()
        .position(|g| {
            g.tag("Variant").is_none_or(|v| v == "Standard")
                && g.tag("FEN").is_none()
                && g.moves.len() >= 92
        })
        .expect("a long game");
    (test_data::path(rel), index + 1)
}

#[test]
fn a_control_with_periods_is_played_and_the_clock_adds_the_second_period() {
    let (pgn, game) = long_lichess_game();
    let mut child = bin()
        .args(["emulate", "--pgn"])
        .arg(&pgn)
        .args(["--game", &game.to_string()])
        .args([
            "--time-control",
            "40/5400+30:1800+30",
            "--speed",
            "100",
            "--think-scale",
            "0.01",
            "--start-delay",
            "100",
            "--variations",
            "none",
            "--exit-at-end",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let path = PathBuf::from(lines.next().expect("a path on stdout").unwrap());
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let said = std::thread::spawn(move || {
        stderr
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Each side's clock readings (seconds) as the host saw them, in order.
    let readings = rt.block_on(async {
        let port = Port::open(&path).expect("open the pty as a serial port");
        assert_eq!(port.try_write(&[0x4B]).unwrap(), 1); // SEND_UPDATE_NICE
        let mut decoder = Decoder::new();
        let mut readings: Vec<(u32, u32)> = Vec::new();
        let mut buf = [0u8; 512];
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            let n =
                match tokio::time::timeout(Duration::from_millis(200), port.read(&mut buf)).await {
                    Ok(Ok(n)) if n > 0 => n,
                    // The board exits at the end of the game: the pty closes.
                    Ok(_) => break,
                    Err(_) => continue,
                };
            for msg in decoder.push(&buf[..n]).into_iter().flatten() {
                if let BoardMessage::ClockTime(t) = msg {
                    readings.push((t.left.time.secs(), t.right.time.secs()));
                }
            }
        }
        readings
    });
    let status = child.wait().unwrap();
    let said = said.join().unwrap().join("\n");
    assert!(status.success(), "{status}: {said}");
    assert!(said.contains("time control 40/5400+30:1800+30"), "{said}");
    assert!(said.contains("period 2 begins for white"), "{said}");
    // Each side's time rose once by the second period's 1800 s and the increment.
    for side in [0, 1] {
        let jumps = readings
            .windows(2)
            .map(|w| {
                let (a, b) = if side == 0 {
                    (w[0].0, w[1].0)
                } else {
                    (w[0].1, w[1].1)
                };
                i64::from(b) - i64::from(a)
            })
            .filter(|d| *d > 1000)
            .count();
        assert_eq!(jumps, 1, "side {side}: {} readings", readings.len());
    }
}
