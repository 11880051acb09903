//! A Chess960 game through the real binary (arbiter-rules.md section 6): an emulated
//! board on a pty set up in a 960 start position, both players castling with their
//! hands in one of the physical ways of Guidelines II.3, the event configured with
//! `variant = "chess960"` and the position's number. Every move is recorded (a castling
//! as the king taking its rook), nothing is ruled, and the PGN says `Variant "Chess960"`
//! with the start's X-FEN.

mod common;

use std::time::Duration;

use chess_rules::{read_pgn, Position};
use common::*;
use dgt_protocol::capture::TimeControl;
use dgt_sim::hands::{chess960_game, generate, HandOptions, Variations};

#[test]
fn a_chess960_game_with_both_castlings_is_recorded_and_never_ruled() {
    let _one_at_a_time = serial();
    let dir = temp_dir("chess960");
    let (number, game) = chess960_game(0, 24, 960).expect("a start where both castle at once");
    let castlings = [game.moves[0], game.moves[1]];
    let script = generate(
        &game,
        &HandOptions {
            seed: 960,
            time_control: TimeControl::sudden_death(180, 2),
            think_scale: 0.02,
            start_delay_ms: 6000,
            variations: Variations::all(),
            ..HandOptions::default()
        },
    )
    .unwrap();
    let plies = script.plies.len();
    let boards = Boards::serve(vec![script]);
    let cfg = config(&dir, &boards, "");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text.replacen(
        "[output]",
        &format!("variant = \"chess960\"\nstart_position = {number}\n\n[output]"),
        1,
    );
    std::fs::write(&cfg, text).unwrap();
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    boards.wait_done(Duration::from_secs(300));
    wait_events(&out, Duration::from_secs(30), "every move", |ev| {
        moves(&board_events(ev, 1)).len() == plies
    });
    assert!(terminate(&mut daemon.0), "exit status 0 on SIGTERM");

    let events = events(&out);
    let ev = board_events(&events, 1);
    let ruled: Vec<_> = ev
        .iter()
        .filter(|e| e["kind"] == "illegal_move" || e["kind"] == "touch_move")
        .collect();
    assert!(ruled.is_empty(), "{ruled:?}");
    let recorded: Vec<&str> = ev
        .iter()
        .filter(|e| e["kind"] == "move")
        .filter_map(|e| e["uci"].as_str())
        .collect();
    let played: Vec<String> = game.moves.iter().map(|m| m.uci()).collect();
    assert_eq!(recorded, played, "position {number}");
    // Each castling is written as the king taking its own rook, and as O-O.
    for (i, c) in castlings.iter().enumerate() {
        assert_eq!(recorded[i], c.uci());
        let san = ev.iter().filter(|e| e["kind"] == "move").nth(i).unwrap()["san"].clone();
        assert_eq!(san, "O-O", "ply {}", i + 1);
    }
    let round = std::fs::read_to_string(out.join("pgn/round-2.pgn")).unwrap();
    let pgn = read_pgn(round.as_bytes()).unwrap();
    assert_eq!(pgn[0].tag("Variant"), Some("Chess960"));
    assert_eq!(pgn[0].tag("SetUp"), Some("1"));
    let start = Position::start_960(number).unwrap();
    assert_eq!(pgn[0].tag("FEN"), Some(start.fen().as_str()));
    std::fs::remove_dir_all(&dir).unwrap();
}
