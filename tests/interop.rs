//! Interoperability with a reader we did not write: the real binary's `demo` (eight
//! emulated boards, irregularities and all, at a high speed) writes its PGN files, and
//! python-chess (`tests/read_pgn_with_python_chess.py`) reads every one of them: each game
//! parses without errors, has moves, every `[%clk]` written is a clock python-chess reads,
//! and the Result tag is set. Each game's move count and result must agree with what our
//! own JSON events say for that board, and a move must carry a clock exactly when its
//! event has one (a move completed without a press, e.g. a forgotten press, has none).
//!
//! Needs python-chess (`tests/requirements.txt`) in `$DGT_TEST_PYTHON` (default
//! `python3`); without it the test prints `skipped: ...` and passes, unless
//! `DGT_REQUIRE_PYTHON=1` (set by `.ci/run`), where it fails.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

const BOARDS: usize = 8;

fn python() -> String {
    std::env::var("DGT_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether python-chess can be imported; otherwise a visible skip line (or a failure when
/// `DGT_REQUIRE_PYTHON=1`).
fn have_python_chess() -> bool {
    let out = Command::new(python())
        .args(["-c", "import chess.pgn; print(chess.__version__)"])
        .output();
    let why = match out {
        Ok(o) if o.status.success() => return true,
        Ok(o) => format!(
            "python-chess not importable by {} ({}); pip install -r tests/requirements.txt",
            python(),
            String::from_utf8_lossy(&o.stderr)
                .trim()
                .lines()
                .last()
                .unwrap_or("")
        ),
        Err(e) => format!("cannot run {}: {e}", python()),
    };
    let required = std::env::var("DGT_REQUIRE_PYTHON").is_ok_and(|v| v == "1");
    assert!(!required, "DGT_REQUIRE_PYTHON=1, but {why}");
    // Straight to stderr: the harness would hide an `eprintln!` of a passing test.
    let _ = writeln!(std::io::stderr(), "skipped: interop: {why}");
    false
}

/// The folder below `dir` holding `events.jsonl`.
fn events_dir(dir: &Path) -> Option<PathBuf> {
    if dir.join("events.jsonl").is_file() {
        return Some(dir.to_path_buf());
    }
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .find_map(|p| events_dir(&p))
}

/// The boards with a `game_over` event.
fn boards_over(dir: &Path) -> BTreeSet<String> {
    let Some(dir) = events_dir(dir) else {
        return BTreeSet::new();
    };
    common::events(&dir)
        .iter()
        .filter(|e| e["kind"] == "game_over")
        .filter_map(|e| e["board"].as_str().map(str::to_string))
        .collect()
}

/// Runs the demo into `dir` until its games are over and it has stopped (it stops by
/// itself; if it keeps serving, it gets Ctrl-C once every board's game is over).
fn run_demo(dir: &Path) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args([
            "demo",
            "--speed",
            "8",
            "--exit-when-done",
            "--boards",
            &BOARDS.to_string(),
        ])
        .args(["--http", "127.0.0.1:0", "--dir"])
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dgt-arbiter demo");
    let stdout = Arc::new(Mutex::new(String::new()));
    let reader = {
        let pipe = child.stdout.take().expect("piped stdout");
        let stdout = Arc::clone(&stdout);
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut s = stdout.lock().unwrap_or_else(|p| p.into_inner());
                s.push_str(&line);
                s.push('\n');
            }
        })
    };
    // Not a timed assertion: a guard against a demo that never ends.
    let deadline = Instant::now() + Duration::from_secs(900);
    let mut interrupted = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the demo") {
            break status;
        }
        let text = stdout.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if !interrupted && (text.contains("\nSummary:") || boards_over(dir).len() == BOARDS) {
            // Let the last writes land, then stop it as a user would.
            std::thread::sleep(Duration::from_secs(2));
            if child.try_wait().expect("wait for the demo").is_none() {
                let _ = Command::new("kill")
                    .arg("-INT")
                    .arg(child.id().to_string())
                    .status();
            }
            interrupted = true;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the demo did not end within 15 minutes; its output:\n{text}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = reader.join();
    let text = stdout.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    assert!(status.success(), "demo failed: {status}\n{text}\n{err}");
    text
}

/// The board a PGN game belongs to: its `Board` tag, else the `N` of `Round "R.N"`.
fn board_of(game: &Value) -> Option<String> {
    game["board"].as_str().map(str::to_string).or_else(|| {
        game["round"]
            .as_str()
            .and_then(|r| r.split_once('.'))
            .map(|(_, n)| n.to_string())
    })
}

#[test]
fn python_chess_reads_every_pgn_the_demo_writes_with_every_clock() {
    if !have_python_chess() {
        return;
    }
    let dir = common::temp_dir("interop");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let demo_out = run_demo(&dir);

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/read_pgn_with_python_chess.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(&dir)
        .output()
        .expect("run the python-chess reader");
    let text = String::from_utf8_lossy(&out.stdout);
    let problems: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("problem: "))
        .collect();
    assert!(
        out.status.success() && problems.is_empty(),
        "python-chess found {} problems ({}):\n{}\n{}\ndemo output:\n{demo_out}",
        problems.len(),
        out.status,
        problems.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    let games: Vec<Value> = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();

    // What our events say, board by board: the moves as the sinks see them and the result.
    let events_dir = events_dir(&dir).expect("the demo writes events.jsonl");
    let events = common::events(&events_dir);
    let mut ours: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut our_clocks: BTreeMap<String, Vec<bool>> = BTreeMap::new();
    for board in 1..=BOARDS {
        let mine = common::board_events(&events, board);
        let moves = common::moves(&mine).len();
        // Per ply the last move event, as the sinks record it: has it a clock?
        let mut clocks: Vec<(u64, bool)> = Vec::new();
        for e in mine.iter().filter(|e| e["kind"] == "move") {
            let ply = e["ply"].as_u64().unwrap_or(0);
            clocks.retain(|(p, _)| *p < ply);
            clocks.push((ply, !e["clock_ms"].is_null()));
        }
        our_clocks.insert(
            board.to_string(),
            clocks.into_iter().map(|(_, c)| c).collect(),
        );
        let result = mine
            .iter()
            .rev()
            .find(|e| e["kind"] == "game_over")
            .and_then(|e| e["result"].as_str())
            .unwrap_or("*")
            .to_string();
        ours.insert(board.to_string(), (moves, result));
    }
    assert!(
        ours.values().all(|(moves, _)| *moves > 0),
        "a board without moves: {ours:?}"
    );

    let mut files = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for g in &games {
        let file = g["file"].as_str().unwrap_or("?");
        files.insert(file.to_string());
        let board = board_of(g).unwrap_or_else(|| panic!("{file}: no Board or Round tag"));
        let (moves, result) = ours
            .get(&board)
            .unwrap_or_else(|| panic!("{file}: board {board} is not a demo board"));
        assert_eq!(
            g["moves"].as_u64(),
            Some(*moves as u64),
            "{file} game {}: moves python-chess read vs our events",
            g["index"]
        );
        assert_eq!(
            g["result"].as_str(),
            Some(result.as_str()),
            "{file}: result"
        );
        seen.insert(board);
    }
    // Every board's game is in the PGN the demo wrote (the round file and the LiveChess
    // folder at least).
    assert_eq!(seen.len(), BOARDS, "boards in the PGN files: {seen:?}");
    assert!(files.len() > BOARDS, "PGN files read: {files:?}");
    assert!(games.len() >= 2 * BOARDS, "{} games read", games.len());
    let _ = std::fs::remove_dir_all(&dir);
}
