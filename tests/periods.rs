//! A classical game with periods (arbiter-rules.md section 5) through the real binary, on
//! emulated boards with DGT3000s that add each period by their own count of presses: a
//! clock pressed without a move is counted by the clock; where the arbiter takes the
//! counter back by one the period comes at move 40 and nothing is said, where he leaves
//! it the period comes one move early and the daemon says `clock_mismatch`
//! `period_added_early`, never a ruling.

mod common;

use std::time::Duration;

use chess_rules::read_pgn;
use common::*;
use dgt_protocol::capture::TimeControl;
use dgt_sim::hands::{generate, ArbiterCounter, GameInput, HandOptions, Irregularity, Script};
use serde_json::Value;

const CLASSICAL: &str = "40/5400+30:1800+30";

/// A real game (lichess's CC0 database, in the repository) long enough to pass both
/// players' 40th move.
fn long_game() -> GameInput {
    let text = test_data::read("pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn");
    let games = read_pgn(&text[..]).unwrap();
    games
        .iter()
        .filter_map(|g| GameInput::from_pgn(g).ok())
        .find(|g| (84..=110).contains(&g.moves.len()))
        .expect("a game of 84 to 110 plies in the lichess sample")
}

/// The first script (seed upwards) with a clock pressed without a move before that
/// player's 40th move, so that the counter matters.
fn classical_script(game: &GameInput, counter: ArbiterCounter, seeds: u64) -> Script {
    let tc: TimeControl = CLASSICAL.parse().unwrap();
    (seeds..seeds + 40)
        .map(|seed| {
            generate(
                game,
                &HandOptions {
                    seed,
                    time_control: tc,
                    think_scale: 0.02,
                    start_delay_ms: 6000,
                    irregularities: vec![Irregularity::ClockWithoutMove],
                    arbiter_counter: counter,
                    ..HandOptions::default()
                },
            )
            .unwrap()
        })
        .find(|s| {
            !s.injected.is_empty()
                && s.period_mismatches().len() == usize::from(counter == ArbiterCounter::Leave)
        })
        .expect("a seed that presses the clock without a move before move 40")
}

fn kinds<'a>(events: &'a [&'a Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .copied()
        .filter(|e| e["kind"] == kind)
        .collect()
}

#[test]
fn a_classical_game_with_a_counted_press_says_only_what_the_clock_got_wrong() {
    let _one_at_a_time = serial();
    let dir = temp_dir("periods");
    let game = long_game();
    let left = classical_script(&game, ArbiterCounter::Leave, 1);
    let taken_back = classical_script(&game, ArbiterCounter::TakeBack, 1);
    let mismatch = left.period_mismatches()[0];
    let boards = Boards::serve(vec![left, taken_back]);
    let cfg = config(&dir, &boards, "");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text.replacen(
        &format!("time_control = \"{}\"", arbiter_demo::TIME_CONTROL),
        &format!("time_control = \"{CLASSICAL}\""),
        1,
    );
    assert!(text.contains(CLASSICAL), "{text}");
    std::fs::write(&cfg, text).unwrap();
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    boards.wait_done(Duration::from_secs(400));
    let plies = |b: usize| boards.scripts[b - 1].plies.len();
    wait_events(
        &out,
        Duration::from_secs(30),
        "every move of both games",
        |ev| (1..=2).all(|b| moves(&board_events(ev, b)).len() == plies(b)),
    );
    assert!(terminate(&mut daemon.0), "exit status 0 on SIGTERM");

    let events = events(&out);
    for b in 1..=2 {
        let ev = board_events(&events, b);
        let illegal = kinds(&ev, "illegal_move");
        assert_eq!(illegal.len(), 1, "board {b}: {illegal:?}");
        assert_eq!(illegal[0]["category"], "clock_without_move");
        // The ruling tells the arbiter the clock counted that press.
        let words = illegal[0]["explanation"].as_str().unwrap_or_default();
        assert!(words.contains("counter"), "board {b}: {words}");
        assert!(kinds(&ev, "game_over")
            .iter()
            .all(|e| e["reason"] != "flag"));
    }
    // Board 1: the counter left, the period one move early; said once, as it is.
    let said = kinds(&board_events(&events, 1), "clock_mismatch")
        .into_iter()
        .cloned()
        .collect::<Vec<_>>();
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(said[0]["reason"], mismatch.reason.name());
    assert_eq!(said[0]["color"], mismatch.color.to_string().to_lowercase());
    assert_eq!(said[0]["move"], mismatch.mv);
    assert_eq!(said[0]["due_move"], mismatch.due_move);
    // Board 2: the counter taken back, the period at move 40: nothing to say.
    let two = board_events(&events, 2);
    let said = kinds(&two, "clock_mismatch");
    assert!(said.is_empty(), "{said:?}");
    // Both PGNs carry the control in the standard form.
    let round = std::fs::read_to_string(out.join("pgn/round-2.pgn")).unwrap();
    let games = read_pgn(round.as_bytes()).unwrap();
    assert_eq!(games.len(), 2);
    assert!(games
        .iter()
        .all(|g| g.tag("TimeControl") == Some(CLASSICAL)));
    std::fs::remove_dir_all(&dir).unwrap();
}
