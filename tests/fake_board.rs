//! The real `dgt-arbiter run` against a board we did not write: `tests/fake_board.py`, a
//! fake DGT board with a DGT3000 in a few dozen lines of standard-library Python, written
//! only from the protocol fact sheet (not from `dgt-sim`), served on a pty behind a
//! symlink. So the recovery paths are checked against other timing than our emulator's:
//! a normal game, a pulled cable over 3 and 6 plies, a flood of field updates far beyond
//! 9600 baud (issue 12's overrun loop). Python 3 is needed (`$DGT_TEST_PYTHON`, default
//! `python3`); without it each test prints `skipped: ...` and passes, unless
//! `DGT_REQUIRE_PYTHON=1`.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// The moves `fake_board.py` plays, in SAN.
const GAME: [&str; 16] = [
    "e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "O-O", "Bc5", "d3", "O-O", "Bg5", "h6", "Bxf6", "Qxf6",
    "Nc3", "d6",
];

fn python() -> String {
    std::env::var("DGT_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The fake board playing `scenario`, once its link exists; `None` (after a visible
/// skip line) without Python.
fn fake_board(dir: &Path, scenario: &str) -> Option<(Child, PathBuf)> {
    let link = dir.join("board-1");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_board.py");
    let spawned = Command::new(python())
        .arg(&script)
        .arg(&link)
        .arg(scenario)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            assert!(
                std::env::var("DGT_REQUIRE_PYTHON").as_deref() != Ok("1"),
                "cannot run {} (DGT_REQUIRE_PYTHON=1): {e}",
                python()
            );
            println!("skipped: cannot run {}: {e}", python());
            return None;
        }
    };
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready", "fake_board.py did not start");
    // Keep reading its stdout ("done") so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in out.lines() {});
    Some((child, link))
}

fn config(dir: &Path, link: &Path) -> PathBuf {
    let text = format!(
        "[event]\nname = \"Fake board\"\nsite = \"Test hall\"\ndate = \"2025-06-12\"\nround = 1\n\
         time_control = \"300+0\"\n\n[output]\ndir = \"out\"\n\n[http]\nbind = \"127.0.0.1:0\"\n\n\
         [[board]]\nnumber = 1\nport = \"{}\"\nwhite = \"White, Ann\"\nblack = \"Black, Bo\"\n\
         white_clock = \"left\"\n",
        link.display()
    );
    let path = dir.join("arbiter.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `scenario` against the real daemon; the board's events once the fake board is
/// done and the daemon has written them (or `None` without Python).
fn run(scenario: &str) -> Option<Vec<Value>> {
    run_with(scenario, |_| {}).map(|(events, _)| events)
}

/// [`run`], with `meanwhile` called (on another thread) with the output folder 8 s into
/// the game; also the daemon's log.
fn run_with(
    scenario: &str,
    meanwhile: impl FnOnce(&Path) + Send + 'static,
) -> Option<(Vec<Value>, String)> {
    let _serial = serial();
    let dir = temp_dir(&format!("fake-{scenario}"));
    let (mut board, link) = fake_board(&dir, scenario)?;
    let cfg = config(&dir, &link);
    let mut daemon = start(&cfg);
    let out = dir.join("out");
    let out_meanwhile = out.clone();
    let side = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(8));
        meanwhile(&out_meanwhile);
    });
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(s) = board.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "fake_board.py did not finish");
        assert!(
            daemon.try_wait().unwrap().is_none(),
            "the daemon exited; its log: {}",
            std::fs::read_to_string(cfg.with_extension("log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "fake_board.py failed");
    side.join().unwrap();
    // The last move's events reach the file within a sink batch; wait a little for them.
    let wanted = |ev: &[Value]| moves(&board_events(ev, 1)).len() >= GAME.len();
    let until = Instant::now() + Duration::from_secs(10);
    while !wanted(&events(&out)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(terminate(&mut daemon), "the daemon did not stop cleanly");
    let events = events(&out);
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    Some((
        events.into_iter().filter(|e| e["board"] == "1").collect(),
        log,
    ))
}

fn kinds<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

fn assert_game(events: &[Value]) {
    let refs: Vec<&Value> = events.iter().collect();
    assert_eq!(moves(&refs), GAME, "the game as recorded");
    let illegal = kinds(events, "illegal_move");
    assert!(illegal.is_empty(), "an illegal-move ruling: {illegal:?}");
}

#[test]
fn a_normal_game_is_recorded() {
    let Some(events) = run("normal") else { return };
    assert_game(&events);
}

#[test]
fn an_output_folder_removed_mid_game_is_recreated_with_everything() {
    let removed = |out: &Path| std::fs::remove_dir_all(out).unwrap();
    let Some((events, log)) = run_with("normal", removed) else {
        return;
    };
    // The events written before the removal are back in the recreated file.
    assert_game(&events);
    assert!(
        log.contains("was deleted (or its folder)"),
        "no warning in the log:\n{log}"
    );
}

#[test]
fn a_cable_pulled_for_three_plies_is_rebuilt() {
    let Some(events) = run("gap3") else { return };
    assert_game(&events);
}

#[test]
fn a_flood_of_field_updates_does_not_feed_itself_and_the_game_is_recorded() {
    let Some(events) = run("flood") else { return };
    assert_game(&events);
    // One resync per overrun would be thousands of disconnect / connect pairs.
    let disconnects = kinds(&events, "board_status")
        .into_iter()
        .filter(|e| e["status"] == "disconnected")
        .count();
    assert!(
        disconnects <= 10,
        "{disconnects} disconnects for a 4 s flood: the resync feeds itself"
    );
}

#[test]
fn a_cable_pulled_for_six_plies_makes_no_illegal_move_ruling() {
    let Some(events) = run("gap6") else { return };
    let illegal = kinds(&events, "illegal_move");
    assert!(illegal.is_empty(), "a ruling on a guess: {illegal:?}");
}
