//! `dgt-arbiter demo` end to end, as a new user runs it: the real binary with emulated
//! boards on ptys. Its outputs go to the `--dir` folder itself; when the games are over it
//! prints the summary and keeps the dashboard up (every result on its board) until
//! Ctrl-C; the emulated arbiter puts each penalty on the emulated clock, so the next
//! clock reading shows it; every PGN file has one comment per move.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

mod common;
use common::*;

#[test]
fn the_demo_writes_to_its_folder_keeps_serving_and_puts_penalties_on_the_clock() {
    let _one_at_a_time = serial();
    let dir = temp_dir("demo");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args([
            "demo",
            "--boards",
            "3",
            "--speed",
            "4",
            "--http",
            "127.0.0.1:0",
        ])
        .arg("--dir")
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    // Generous: three games at 4x on a loaded machine.
    let mut printed = Vec::new();
    let stays_up = loop {
        match rx.recv_timeout(Duration::from_secs(600)) {
            Ok(line) => {
                let up = line.starts_with("The games are over; the dashboard stays up");
                printed.push(line);
                if up {
                    break true;
                }
            }
            Err(_) => break false,
        }
    };
    let text = printed.join("\n");
    assert!(stays_up, "no end of the games: {text}");
    // Its outputs are in the folder given, not below it.
    assert!(
        text.contains(&format!("outputs: {}", dir.display())),
        "{text}"
    );
    assert!(dir.join("pgn/round-1.pgn").is_file(), "{text}");
    assert!(!dir.join("out").exists());
    // The summary counts rulings only (not the end of the game or a restored position).
    let summary: Vec<&String> = printed
        .iter()
        .skip_while(|l| *l != "Summary:")
        .filter(|l| l.starts_with("  board "))
        .collect();
    assert_eq!(summary.len(), 3, "{text}");
    // Still serving: every board shows its final result.
    assert_eq!(http_get(&dir, "/healthz"), (200, "ok\n".into()));
    let (code, body) = http_get(&dir, "/boards");
    assert_eq!(code, 200);
    let boards: Value = serde_json::from_str(&body).unwrap();
    for b in boards["boards"].as_array().unwrap() {
        assert_ne!(b["game"]["result"], "*", "board {}: {b}", b["number"]);
    }
    // The penalty is on the clock: the offender's next move shows the opponent's time
    // with the added time (less what ran while the position was put back), not as it
    // was before the ruling (a clock only runs down).
    let events = events(&dir);
    let mut penalties = 0;
    for (i, e) in events.iter().enumerate() {
        // A press without a move set the opponent's time running: not a still reading.
        if e["kind"] != "illegal_move"
            || e["category"] == "clock_without_move"
            || e["penalty"].is_null()
            || e["clock_after"].is_null()
        {
            continue;
        }
        let to = e["penalty"]["to"].as_str().unwrap();
        let before = e["clock_before"][to].as_i64().unwrap();
        let add = e["penalty"]["add_ms"].as_i64().unwrap();
        let next = events[i + 1..]
            .iter()
            .find(|n| n["board"] == e["board"] && n["kind"] == "move");
        let Some(got) = next.and_then(|n| n["clock_ms"][to].as_i64()) else {
            continue;
        };
        assert!(
            got > before + add / 2,
            "board {}: {to}'s clock {got} ms after a penalty of {add} ms; {before} ms before",
            e["board"]
        );
        penalties += 1;
    }
    assert!(penalties >= 1, "no penalty was checked");
    // Every PGN file: one comment per move, no line break inside a [%clk].
    let mut files = 0;
    for sub in ["pgn", "pgn/round-1", "livechess/round-1"] {
        for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "pgn") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert_eq!(
                    chess_rules::pgn::strict_reader_problems(&text),
                    Vec::<String>::new(),
                    "{}",
                    path.display()
                );
                files += 1;
            }
        }
    }
    assert!(files >= 7, "{files} PGN files");
    // Ctrl-C ends it cleanly.
    let int = Command::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(int.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the demo did not stop on Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}

/// `demo --lang ru`: the rulings printed in Russian, an illegal move with its restore
/// steps and the time added to the opponent.
#[test]
fn the_demo_prints_its_rulings_in_russian() {
    let _one_at_a_time = serial();
    let dir = temp_dir("demo-ru");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args([
            "demo",
            "--boards",
            "3",
            "--speed",
            "8",
            "--http",
            "127.0.0.1:0",
            "--exit-when-done",
            "--lang",
            "ru",
        ])
        .arg("--dir")
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut printed = Vec::new();
    let ruling = loop {
        match rx.recv_timeout(Duration::from_secs(600)) {
            Ok(line) => {
                let found = line.contains("невозможный ход (")
                    && line.contains("восстановить позицию: ")
                    && line.contains("добавить сопернику (");
                printed.push(line.clone());
                if found {
                    break Some(line);
                }
            }
            Err(_) => break None,
        }
    };
    // The PGN follows the event's language too (the demo's config has `--lang`'s): the
    // comments in Russian, the SAN English for PGN readers; the LiveChess folder's too.
    let russian_pgn = |path: std::path::PathBuf| {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.contains("невозможный ход (") || std::time::Instant::now() > deadline
            {
                return text;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    let round = russian_pgn(dir.join("pgn/round-1.pgn"));
    let livechess = russian_pgn(dir.join("livechess/round-1/games.pgn"));
    let _ = child.kill();
    let _ = child.wait();
    for pgn in [&round, &livechess] {
        assert!(pgn.contains("невозможный ход ("), "{pgn}");
        assert!(
            !pgn.contains("illegal move") && !pgn.contains("{ $"),
            "{pgn}"
        );
        for game in chess_rules::read_pgn(pgn.as_bytes()).unwrap() {
            game.replay().unwrap();
        }
    }
    let text = printed.join("\n");
    let line = ruling.unwrap_or_else(|| panic!("no Russian illegal-move ruling:\n{text}"));
    assert!(line.trim_start().starts_with("доска "), "{line}");
    assert!(line.contains(", ход "), "{line}");
    assert!(
        !line.contains("illegal move") && !line.contains("put back"),
        "{line}"
    );
}

/// `demo --variant chess960`: each board a Chess960 game from its own start position,
/// both players castling first; the event is configured so, and the PGN says so.
#[test]
fn the_demo_plays_chess960_games() {
    let _one_at_a_time = serial();
    let dir = temp_dir("demo-960");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args([
            "demo",
            "--boards",
            "2",
            "--speed",
            "8",
            "--http",
            "127.0.0.1:0",
            "--exit-when-done",
            "--variant",
            "chess960",
        ])
        .arg("--dir")
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the 960 demo did not end in 600 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(status.success(), "{status}");
    let config = std::fs::read_to_string(dir.join("demo.toml")).unwrap();
    assert!(config.contains("variant = \"chess960\""), "{config}");
    assert_eq!(config.matches("start_position = ").count(), 2, "{config}");
    let events = events(&dir);
    for b in 1..=2 {
        let ev = board_events(&events, b);
        let first: Vec<&str> = ev
            .iter()
            .filter(|e| e["kind"] == "move")
            .take(2)
            .filter_map(|e| e["san"].as_str())
            .collect();
        assert_eq!(first, ["O-O", "O-O"], "board {b}");
    }
    let round = std::fs::read_to_string(dir.join("pgn/round-1.pgn")).unwrap();
    let games = chess_rules::read_pgn(round.as_bytes()).unwrap();
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.tag("Variant"), Some("Chess960"), "{round}");
        assert!(g.tag("FEN").is_some(), "{round}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
