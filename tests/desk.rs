//! The arbiter's desk end to end (issue 40): the daemon killed while the game goes on on
//! an emulated board, so the moves made meanwhile are a gap the board comes back with;
//! the arbiter enters them through `POST /api/boards/1/moves`. A wrong line is refused
//! (409 naming the move) and changes nothing; the right one makes the PGN whole, with no
//! ruling, and a restart after `kill -9` keeps it.

mod common;

use std::time::Duration;

use arbiter_demo::{GAMES, TIME_CONTROL};
use chess_rules::read_pgn;
use common::*;
use dgt_sim::hands::{generate, GameInput, HandOptions, Script};
use serde_json::Value;

/// Plies played in the game.
const PLIES: usize = 22;
/// The daemon is killed once the events hold this ply; the rest is the gap.
const KILL_AT_PLY: u64 = 6;

fn game_script() -> Script {
    let games = read_pgn(GAMES.as_bytes()).unwrap();
    let mut input = GameInput::from_pgn(&games[0]).unwrap();
    input.moves.truncate(PLIES);
    generate(
        &input,
        &HandOptions {
            seed: 40,
            time_control: TIME_CONTROL,
            think_scale: 0.02,
            min_think_ms: 1500,
            start_delay_ms: 6000,
            ..HandOptions::default()
        },
    )
    .unwrap()
}

fn highest_ply(events: &[&Value]) -> u64 {
    events
        .iter()
        .filter(|e| e["kind"] == "move")
        .filter_map(|e| e["ply"].as_u64())
        .max()
        .unwrap_or(0)
}

/// The PGN's moves (UCI) of board 1's first game, and its text.
fn pgn_moves(out: &std::path::Path) -> (Vec<String>, String) {
    let text = std::fs::read_to_string(out.join("pgn/round-2/board-1.pgn")).unwrap();
    let games = read_pgn(text.as_bytes()).unwrap();
    let moves = games[0]
        .replay()
        .unwrap()
        .moves()
        .iter()
        .map(|m| m.uci())
        .collect();
    (moves, text)
}

/// The dashboard's host once the daemon listens again.
fn host_of(out: &std::path::Path) -> String {
    for _ in 0..100 {
        if let Some(h) = try_http_host(out) {
            return h;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    http_host(out)
}

/// The last sync status of board 1.
fn last_sync(out: &std::path::Path) -> Option<String> {
    let ev = events(out);
    board_events(&ev, 1)
        .iter()
        .rfind(|e| {
            e["kind"] == "board_status"
                && (e["status"] == "out_of_sync" || e["status"] == "in_sync")
        })
        .and_then(|e| e["status"].as_str().map(str::to_owned))
}

#[test]
fn the_moves_of_a_gap_entered_by_the_arbiter_make_the_pgn_whole_and_survive_a_restart() {
    let _serial = serial();
    let dir = temp_dir("desk");
    let links = dir.join("dev");
    std::fs::create_dir_all(&links).unwrap();
    let script = game_script();
    let want: Vec<String> = script.plies.iter().map(|p| p.mv.uci()).collect();
    let boards = Boards::serve_linked(vec![script], Some(&links));
    let cfg = config(&dir, &boards, "");
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    wait_events(&out, Duration::from_secs(120), "the kill's ply", |ev| {
        highest_ply(&board_events(ev, 1)) >= KILL_AT_PLY
    });
    daemon.kill().unwrap(); // SIGKILL: the moves from here on are not seen
    daemon.wait().unwrap();
    let longest = boards.scripts[0].end_ms;
    boards.wait_done(Duration::from_secs_f64(
        longest as f64 / 1000.0 / SPEED + 60.0,
    ));
    let mut daemon = start(&cfg);
    // The board comes back several plies on: the lines that explain it are the arbiter's
    // to pick (out of sync, or followed on with candidates).
    wait_events(&out, Duration::from_secs(30), "the gap's status", |ev| {
        board_events(ev, 1).iter().any(|e| {
            (e["kind"] == "board_status" && e["status"] == "out_of_sync")
                || (e["kind"] == "position_accepted" && e["candidates"].is_array())
        })
    });
    std::thread::sleep(Duration::from_secs(2));
    let ev = events(&out);
    let recorded = highest_ply(
        &board_events(&ev, 1)
            .into_iter()
            .filter(|e| e["entered"] != true)
            .collect::<Vec<_>>(),
    );
    let from = usize::try_from(recorded).unwrap();
    let gap = board_events(&ev, 1)
        .iter()
        .rfind(|e| e["kind"] == "position_accepted" || e["status"] == "out_of_sync")
        .map(|e| e.to_string())
        .unwrap_or_default();
    eprintln!("the gap after ply {from}: {gap}");
    assert!(from < PLIES, "no gap left: {recorded}");
    let host = http_host(&out);
    let token = token_header(&out);

    // One move short: refused, naming the last move, and nothing changes.
    let count_before = events(&out).len();
    let short: Vec<&str> = want[from..PLIES - 1].iter().map(String::as_str).collect();
    let (code, body) = http_json(
        &host,
        "POST",
        "/api/boards/1/moves",
        &token,
        &serde_json::json!({ "moves": short }).to_string(),
    );
    assert_eq!(code, 409, "{body}");
    assert_eq!(
        body["move_index"].as_u64(),
        Some(short.len() as u64),
        "{body}"
    );
    assert!(
        body["error"].as_str().unwrap().contains("not the board's"),
        "{body}"
    );
    // A bad body is a 400.
    let (code, body) = http_json(
        &host,
        "POST",
        "/api/boards/1/moves",
        &token,
        "{\"moves\": 3}",
    );
    assert_eq!(code, 400, "{body}");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        events(&out).len(),
        count_before,
        "a refused line changed the events"
    );

    // The right line: recorded as entered, the PGN whole, no ruling.
    let line: Vec<&str> = want[from..].iter().map(String::as_str).collect();
    let (code, body) = http_json(
        &host,
        "POST",
        "/api/boards/1/moves",
        &token,
        &serde_json::json!({ "moves": line }).to_string(),
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["ply"].as_u64(), Some(PLIES as u64), "{body}");
    wait_events(&out, Duration::from_secs(10), "the entered moves", |ev| {
        board_events(ev, 1)
            .iter()
            .filter(|e| e["kind"] == "move" && e["entered"] == true)
            .count()
            == PLIES - from
    });
    std::thread::sleep(Duration::from_secs(2));
    let check = |when: &str| {
        let (moves, text) = pgn_moves(&out);
        assert_eq!(moves, want, "{when}: the PGN's moves\n{text}");
        assert!(text.contains("entered by the arbiter"), "{when}: {text}");
        assert!(!text.to_lowercase().contains("illegal"), "{when}: {text}");
        let ev = events(&out);
        let rulings = board_events(&ev, 1)
            .iter()
            .filter(|e| e["kind"] == "illegal_move")
            .count();
        assert_eq!(rulings, 0, "{when}");
        assert_eq!(last_sync(&out).as_deref(), Some("in_sync"), "{when}");
    };
    check("entered");

    // kill -9 and a restart: the journal keeps the arbiter's moves.
    daemon.kill().unwrap();
    daemon.wait().unwrap();
    let mut daemon = start(&cfg);
    let _ = try_http_host(&out);
    std::thread::sleep(Duration::from_secs(5));
    check("after the restart");

    // Art. 7.5.1: an illegal move found later; the game taken back to ply 20. The PGN
    // loses plies 21 and 22, the board must show ply 20 again, and kill -9 keeps the cut.
    let (code, body) = http_json(
        &host_of(&out),
        "POST",
        "/api/boards/1/takeback",
        &token,
        r#"{"to_ply": 20, "reason": "illegal move at ply 21 found later (art. 7.5.1)"}"#,
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["ply"].as_u64(), Some(20), "{body}");
    let (code, body) = http_json(
        &host_of(&out),
        "POST",
        "/api/boards/1/takeback",
        &token,
        r#"{"to_ply": "x"}"#,
    );
    assert_eq!(code, 400, "{body}");
    let cut = |when: &str| {
        let (moves, text) = pgn_moves(&out);
        assert_eq!(moves, want[..20], "{when}: the PGN's moves\n{text}");
        assert!(
            text.contains("took the game back to ply 20"),
            "{when}: {text}"
        );
        let ev = events(&out);
        let b = board_events(&ev, 1);
        let taken: Vec<&&Value> = b.iter().filter(|e| e["kind"] == "taken_back").collect();
        assert_eq!(taken.len(), 1, "{when}: {taken:?}");
        assert_eq!(taken[0]["from_ply"].as_u64(), Some(PLIES as u64), "{when}");
        assert!(
            !taken[0]["restore"].as_array().unwrap().is_empty(),
            "{when}"
        );
    };
    std::thread::sleep(Duration::from_secs(2));
    cut("taken back");
    daemon.kill().unwrap();
    daemon.wait().unwrap();
    let mut daemon = start(&cfg);
    let _ = try_http_host(&out);
    std::thread::sleep(Duration::from_secs(5));
    cut("taken back, after the restart");
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert!(!log.contains("panicked"), "a panic");
    let _ = std::fs::remove_dir_all(&dir);
}
