//! Tests of the hand-motion generator: a tiny physical model (a placement and the real
//! emulator's clock) replays scripts, and the checks say what each variation promises.

mod corpus;
mod irregular;
mod pacing;
mod periods;
mod physical;

use chess_rules::{read_pgn, PgnGame};

use super::*;

/// Every game of `data/pgn`, named `file#n`.
pub(super) fn corpus() -> Vec<(String, PgnGame)> {
    test_data::pgn_corpus(read_pgn)
}

/// A game from UCI moves (test shorthand).
pub(super) fn uci_game(fen: &str, moves: &[&str]) -> GameInput {
    GameInput::from_uci(fen, moves).unwrap()
}

#[test]
fn a_short_game_plays_to_its_final_position_on_the_emulator() {
    let game = uci_game(chess_rules::START_FEN, &["e2e4", "e7e5", "g1f3"]);
    let script = generate(&game, &HandOptions::default()).unwrap();
    assert_eq!(script.plies.len(), 3);
    let mut emu = crate::Emulator::new(script.emulator_config());
    for a in &script.actions {
        emu.apply_at(a.at_ms, &a.action);
    }
    assert_eq!(emu.placement(), *script.final_position.placement());
    let kinds: Vec<&str> = script.events().map(|e| e.kind()).collect();
    assert_eq!(kinds, ["move", "move", "move"]);
}

#[test]
fn the_same_seed_gives_the_same_script_and_another_seed_another() {
    let game = uci_game(
        chess_rules::START_FEN,
        &[
            "e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5", "d2d4", "c7c6", "g1f3", "c8g4",
        ],
    );
    let opts = HandOptions {
        seed: 11,
        variations: Variations::all(),
        irregularities: Irregularity::all(),
        ..HandOptions::default()
    };
    let a = generate(&game, &opts).unwrap();
    let b = generate(&game, &opts).unwrap();
    assert_eq!(a.actions, b.actions);
    assert_eq!(a.expected, b.expected);
    let c = generate(&game, &HandOptions { seed: 12, ..opts }).unwrap();
    assert_ne!(a.actions, c.actions);
}

#[test]
fn bad_options_and_illegal_moves_are_errors_that_say_what_is_wrong() {
    let game = uci_game(chess_rules::START_FEN, &["e2e4"]);
    let err = generate(
        &game,
        &HandOptions {
            think_scale: -1.0,
            ..HandOptions::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("think_scale"), "{err}");
    let err = GameInput::from_uci(chess_rules::START_FEN, &["e2e4", "e2e4"]).unwrap_err();
    assert!(err.to_string().contains("move 1"), "{err}");
    let start = chess_rules::Position::start();
    let bad = "e7e5".parse().unwrap();
    assert!(GameInput::new(start, vec![bad]).is_err());
}
