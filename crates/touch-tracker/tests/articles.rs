//! The rulings an arbiter checks article by article (arbiter-rules.md), each on a
//! situation written as a player's hands (`dgt_sim::hands::ScriptedHands`), played on the
//! emulated board and clock, read back through the decoder, the event filter and the
//! tracker as the live daemon does. Each test is named by the article it checks.

mod common;

use chess_rules::{Color, IllegalCategory, Position, Square};
use common::sim::{config_for, play};
use dgt_protocol::Orientation;
use dgt_sim::hands::ScriptedHands;
use touch_tracker::events::{DisplacedEvent, IllegalMoveEvent};
use touch_tracker::{ArbiterEvent, EventKind};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

/// Plays the hands on a board lying normally and on one turned round; both must give the
/// same events (the squares are real squares either way).
fn run(h: &ScriptedHands) -> Vec<ArbiterEvent> {
    let script = h.script();
    let normal = play(&script, Orientation::Normal, config_for(&script));
    let turned = play(&script, Orientation::Rotated, config_for(&script));
    let kinds = |e: &[ArbiterEvent]| {
        e.iter()
            .filter(|e| e.kind_name() != "board_status")
            .map(|e| serde_json::to_value(&e.kind).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        kinds(&normal),
        kinds(&turned),
        "a turned board rules otherwise"
    );
    normal
}

fn illegal_moves(events: &[ArbiterEvent]) -> Vec<&IllegalMoveEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::IllegalMove(i) => Some(i),
            _ => None,
        })
        .collect()
}

fn displaced(events: &[ArbiterEvent]) -> Vec<&DisplacedEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Displaced(d) => Some(d),
            _ => None,
        })
        .collect()
}

fn sans(events: &[ArbiterEvent]) -> Vec<String> {
    common::final_moves(events)
        .iter()
        .map(|m| m.san.clone())
        .collect()
}

fn dump(events: &[ArbiterEvent]) -> String {
    events
        .iter()
        .map(|e| e.to_json())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The only illegal move ruled.
fn the_illegal(events: &[ArbiterEvent]) -> &IllegalMoveEvent {
    let all = illegal_moves(events);
    assert_eq!(all.len(), 1, "one illegal move expected:\n{}", dump(events));
    all[0]
}

// ----- wrong colour / piece added (formats.md §2 categories) -----

#[test]
fn wrong_color_is_only_a_moved_opponent_piece() {
    // White moves Black's e-pawn: wrong colour, with the attempt named.
    let mut h = ScriptedHands::new(Position::start(), 1);
    h.lift("e7").put("e5", 'p').press();
    let e = run(&h);
    let i = the_illegal(&e);
    assert_eq!(i.category, IllegalCategory::WrongColor, "{}", dump(&e));
    let a = i.attempt.expect("the attempt");
    assert_eq!((a.from, a.to), (sq("e7"), sq("e5")));
}

#[test]
fn wrong_color_is_not_a_captured_piece_brought_back() {
    // The black knight was captured; White puts it back on c3 (from off the board).
    let start = pos("r1bqkbnr/pppppppp/8/8/8/8/PP1PPPPP/R1BQKBNR w KQkq - 0 3");
    let mut h = ScriptedHands::new(start, 2);
    h.put("c3", 'n').press();
    let e = run(&h);
    let i = the_illegal(&e);
    assert_eq!(i.category, IllegalCategory::PieceAddedOrRemoved);
    assert_eq!(i.attempt, None);
    assert_eq!(i.color, Color::White);
    assert!(
        i.explanation
            .contains("a black knight was put on c3 from off the board"),
        "{}",
        i.explanation
    );
    // The same with a White move made beside it: still a piece added.
    let mut h = ScriptedHands::new(start, 3);
    h.play("e2e4");
    h.put("c3", 'n').press();
    let i = the_illegal(&run(&h)).clone();
    assert_eq!(i.category, IllegalCategory::PieceAddedOrRemoved);
    assert_eq!(i.restore_fen, start.fen());
}

// ----- art. 4.3.1 applied by 7.5.1: must_move -----

#[test]
fn art_4_3_1_must_move_skips_a_touched_piece_that_cannot_move() {
    // 1. d4 d5; White touches the a1 rook (no legal move), then plays the bishop c1-a3
    // over the b2 pawn: the bishop binds the replacing move.
    let mut h = ScriptedHands::new(Position::start(), 4);
    h.play("d2d4").press().play("d7d5").press();
    h.touch("a1").lift("c1").put("a3", 'B').press();
    let e = run(&h);
    let i = the_illegal(&e);
    assert_eq!(i.category, IllegalCategory::PieceMovement, "{}", dump(&e));
    assert_eq!(i.must_move, Some(sq("c1")), "{}", dump(&e));
}

#[test]
fn art_4_3_1_must_move_is_null_when_no_touched_piece_can_move() {
    // The a1 rook and the c1 bishop cannot move at the start; White drops the bishop on
    // a3 anyway: nothing he touched can move, so nothing binds.
    let mut h = ScriptedHands::new(Position::start(), 5);
    h.touch("a1").lift("c1").put("a3", 'B').press();
    let i = the_illegal(&run(&h)).clone();
    assert_eq!(i.category, IllegalCategory::PieceMovement);
    assert_eq!(i.must_move, None);
}

#[test]
fn art_4_3_1_must_move_passes_over_an_opponents_piece_touched_first() {
    // White touches Black's e7 pawn (it cannot be captured), then his g1 knight, then
    // drops the knight on g3: the knight binds.
    let mut h = ScriptedHands::new(Position::start(), 6);
    h.touch("e7").lift("g1").put("g3", 'N').press();
    let e = run(&h);
    let i = the_illegal(&e);
    assert_eq!(i.category, IllegalCategory::PieceMovement, "{}", dump(&e));
    assert_eq!(i.must_move, Some(sq("g1")));
}

#[test]
fn art_7_5_3_touches_before_a_press_without_a_move_bind_the_same_way() {
    // White lifts the g1 knight, puts it back, and presses: a press without a move, and
    // the knight binds the move he now makes.
    let mut h = ScriptedHands::new(Position::start(), 7);
    h.touch("g1").press();
    let e = run(&h);
    let i = the_illegal(&e);
    assert_eq!(
        i.category,
        IllegalCategory::ClockWithoutMove,
        "{}",
        dump(&e)
    );
    assert_eq!(i.must_move, Some(sq("g1")));
    assert!(i.penalty.is_some());
}

#[test]
fn art_7_5_2_unpromoted_pawn_binds_nothing() {
    // The pawn goes to e8 and stays a pawn, after White touched his h1 rook.
    let start = pos("k7/4P3/8/8/8/8/8/4K2R w K - 0 1");
    let mut h = ScriptedHands::new(start, 8);
    h.touch("h1").lift("e7").put("e8", 'P').press();
    let e = run(&h);
    let i = the_illegal(&e);
    assert_eq!(i.category, IllegalCategory::UnpromotedPawn, "{}", dump(&e));
    assert_eq!(i.must_move, None);
    // The correction is the promotion: the position after e8=Q.
    let after = start.play("e7e8q".parse().unwrap()).unwrap();
    assert_eq!(i.restore_fen, after.fen());
}

// ----- art. 7.5.5: a second illegal move -----

#[test]
fn art_7_5_5_second_illegal_unpromoted_pawn_restores_the_position_before() {
    let start = pos("k7/4P3/8/8/8/8/8/4K2R w K - 0 1");
    let mut h = ScriptedHands::new(start, 9);
    // First: a press without a move (the arbiter hands the move back: Black presses).
    h.press().wait(1500).press();
    // Second: the pawn left unpromoted on e8.
    h.lift("e7").put("e8", 'P').press();
    let e = run(&h);
    let all = illegal_moves(&e);
    assert_eq!(all.len(), 2, "{}", dump(&e));
    let second = all[1];
    assert_eq!(second.category, IllegalCategory::UnpromotedPawn);
    assert_eq!(second.count, 2);
    assert!(second.result.is_some());
    assert_eq!(second.penalty, None);
    assert_eq!(second.must_move, None);
    assert_eq!(second.restore_fen, start.fen(), "{}", dump(&e));
    // The steps put the pawn back on e7 (nothing is corrected into a queen).
    let steps = serde_json::to_string(&second.restore).unwrap();
    assert_eq!(
        steps,
        r#"[{"square":"e8","remove":"P"},{"square":"e7","put":"P"}]"#
    );
    assert!(e.iter().any(|e| matches!(&e.kind, EventKind::GameOver(g)
        if g.reason == touch_tracker::EndReason::SecondIllegalMove)));
    // No queen move was recorded.
    assert!(sans(&e).is_empty(), "{:?}", sans(&e));
}

// ----- art. 7.4: displaced pieces -----

/// The `displaced` events: first the squares, then the same with `reestablished`.
fn displaced_pair(events: &[ArbiterEvent]) -> (&DisplacedEvent, Option<&DisplacedEvent>) {
    let d = displaced(events);
    assert!(
        !d.is_empty() && d.len() <= 2,
        "one or two displaced events expected:\n{}",
        dump(events)
    );
    assert!(!d[0].reestablished);
    if let Some(second) = d.get(1) {
        assert!(second.reestablished);
        assert_eq!(second.squares, d[0].squares);
        assert_eq!(second.ply, d[0].ply);
    }
    (d[0], d.get(1).copied())
}

fn steps_json(d: &DisplacedEvent) -> String {
    serde_json::to_string(&d.squares).unwrap()
}

/// Plays 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 (White to move).
fn italian(seed: u64) -> ScriptedHands {
    let mut h = ScriptedHands::new(Position::start(), seed);
    for m in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"] {
        h.play(m).press();
    }
    h
}

#[test]
fn art_7_4_displaced_pawn_is_not_illegal() {
    // 4. d3, the c2 pawn knocked off the board in the same motion; press; the pawn is put
    // back (in Black's time); Black replies.
    let mut h = italian(10);
    h.play("d2d3").knock_off("c2").press();
    h.reestablish("c2", None).play("g8f6").press();
    let e = run(&h);
    assert!(illegal_moves(&e).is_empty(), "{}", dump(&e));
    assert_eq!(
        sans(&e),
        ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "d3", "Nf6"]
    );
    let (first, again) = displaced_pair(&e);
    assert_eq!(first.color, Color::White);
    assert_eq!(first.ply, 7);
    assert_eq!(steps_json(first), r#"[{"square":"c2","put":"P"}]"#);
    assert_eq!(first.explanation, "pawn c2 knocked over");
    assert!(again.is_some(), "not re-established:\n{}", dump(&e));
    // No penalty, no count: the snapshot shows none.
    let json = dump(&e);
    assert!(!json.contains("\"penalty\""), "{json}");
}

#[test]
fn art_7_4_black_displaces_two_pieces_with_a_capture() {
    // 4. d4 exd4: Black knocks the d7 pawn off the board and the h7 pawn onto g6 (a
    // diagonal step onto an empty square is no pawn move), presses, puts both back.
    let mut h = italian(11);
    h.play("d2d4").press();
    h.play("e5d4")
        .knock_off("d7")
        .knock_onto("h7", "g6")
        .press();
    h.reestablish("h7", Some("g6")).reestablish("d7", None);
    h.play("e1g1").press();
    let e = run(&h);
    assert!(illegal_moves(&e).is_empty(), "{}", dump(&e));
    assert_eq!(sans(&e)[6..], ["d4", "exd4", "O-O"]);
    let (first, again) = displaced_pair(&e);
    assert_eq!(first.color, Color::Black);
    assert_eq!(first.ply, 8);
    assert_eq!(
        steps_json(first),
        r#"[{"square":"g6","remove":"p"},{"square":"d7","put":"p"},{"square":"h7","put":"p"}]"#
    );
    assert_eq!(
        first.explanation,
        "pawn d7 knocked over, pawn h7 knocked onto g6"
    );
    assert!(again.is_some(), "{}", dump(&e));
}

#[test]
fn art_7_4_displaced_piece_put_back_after_the_opponent_moved() {
    // White's bishop c4 knocked off with 4. c3; Black replies at once; White puts the
    // bishop back only after that: the reply is still a move, nothing illegal.
    let mut h = italian(12);
    h.play("c2c3").knock_off("c4").press();
    h.play("g8f6").press();
    h.reestablish("c4", None);
    h.play("d2d4").press();
    let e = run(&h);
    assert!(illegal_moves(&e).is_empty(), "{}", dump(&e));
    assert_eq!(sans(&e)[6..], ["c3", "Nf6", "d4"]);
    let (first, again) = displaced_pair(&e);
    assert_eq!(first.explanation, "bishop c4 knocked over");
    assert!(again.is_some());
}

#[test]
fn art_7_4_an_opponents_piece_knocked_over() {
    // White plays 4. Nc3 and knocks Black's f7 pawn off the board.
    let mut h = italian(13);
    h.play("b1c3").knock_off("f7").press().wait(2000);
    h.reestablish("f7", None);
    let e = run(&h);
    assert!(illegal_moves(&e).is_empty(), "{}", dump(&e));
    let (first, again) = displaced_pair(&e);
    assert_eq!(first.color, Color::White);
    assert_eq!(first.explanation, "black pawn f7 knocked over");
    assert!(again.is_some());
}

#[test]
fn art_7_4_a_second_move_beside_is_not_a_displaced_piece() {
    // 4. d3 and the c2 pawn pushed to c3: two moves, an illegal move.
    let mut h = italian(14);
    h.play("d2d3").lift("c2").put("c3", 'P').press();
    let i = the_illegal(&run(&h)).clone();
    assert_eq!(i.category, IllegalCategory::MultipleMoves);
    assert_eq!(i.count, 1);
}

#[test]
fn art_7_4_a_piece_added_is_not_a_displaced_piece() {
    // 4. d3 and a spare white knight put on the empty e2: a piece from off the board.
    let mut h = italian(15);
    h.play("d2d3").put("e2", 'N').press();
    let i = the_illegal(&run(&h)).clone();
    assert_eq!(i.category, IllegalCategory::PieceAddedOrRemoved);
}

#[test]
fn art_7_4_an_illegal_move_with_a_piece_knocked_over_stays_illegal() {
    // The c1 bishop jumps over the d2 pawn to e3, and the c2 pawn is knocked off: no
    // legal move explains the board.
    let mut h = italian(16);
    h.lift("c1").put("e3", 'B').knock_off("c2").press();
    let i = the_illegal(&run(&h)).clone();
    assert_eq!(i.count, 1);
    assert_eq!(i.restore_fen, h.position().fen());
}

#[test]
fn art_7_4_two_moves_that_fit_are_left_to_the_arbiter() {
    // Rooks a1 and f1: a rook on d1, neither a1 nor f1 occupied: Ra1-d1 with the f1
    // rook knocked off, or Rf1-d1 with the a1 rook knocked off. No ruling on a guess.
    let start = pos("4k3/p7/8/8/8/8/7P/R4RK1 w - - 0 1");
    let mut h = ScriptedHands::new(start, 17);
    h.lift("a1").put("d1", 'R').knock_off("f1").press();
    let e = run(&h);
    assert!(illegal_moves(&e).is_empty(), "{}", dump(&e));
    assert!(displaced(&e).is_empty());
    assert!(common::moves(&e).is_empty());
    assert_eq!(common::count(&e, "ruling_unclear"), 1, "{}", dump(&e));
}
