//! The captures the project recorded from its own emulator (in the repository, so they run
//! on every clone: `crates/test-data/data/dgt-captures/emulator/`, made by
//! `cargo run -p dgt-sim --example record_captures` from CC0 Lichess games) replayed
//! through the capture reader, decoder, event filter and tracker: every move of the
//! game recovered exactly (a turned board included), no ruling, and a game that ends in
//! mate ends there.

mod common;

use capture_replay::ReplayOptions;
use chess_rules::Game;
use common::{count, final_moves, replay};
use touch_tracker::{EndReason, EventKind};

/// The recorded captures, by name (`<name>.dgtcap` beside `<name>.uci`).
fn names() -> Vec<String> {
    let dir = test_data::path("dgt-captures/emulator");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".dgtcap").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

fn expected_uci(name: &str) -> Vec<String> {
    test_data::read_text(format!("dgt-captures/emulator/{name}.uci"))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn every_recorded_capture_replays_to_its_game() {
    let names = names();
    assert!(names.len() >= 3, "{names:?}");
    for name in &names {
        let events = replay(
            &[test_data::emulator_capture(&format!("{name}.dgtcap"))],
            &ReplayOptions::default(),
        );
        let got: Vec<String> = final_moves(&events).iter().map(|m| m.uci.uci()).collect();
        let want = expected_uci(name);
        assert!(want.len() >= 16, "{name}: {} moves", want.len());
        assert_eq!(got, want, "{name}");
        for kind in ["illegal_move", "touch_move", "two_handed_suspected"] {
            assert_eq!(count(&events, kind), 0, "{name}: {kind}");
        }
        // A game whose last move mates ends there, as the rules engine sees it.
        let start = chess_rules::Position::start();
        let mut game = Game::new(start);
        for m in &want {
            game.play(m.parse().unwrap()).unwrap();
        }
        let mated = game.position().status() == chess_rules::Status::Checkmate;
        let over: Vec<_> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::GameOver(g) => Some(g),
                _ => None,
            })
            .collect();
        if mated {
            assert_eq!(over.len(), 1, "{name}: one game end");
            assert_eq!(over[0].reason, EndReason::Checkmate, "{name}");
            assert_eq!(over[0].plies as usize, want.len(), "{name}");
        }
        // The turned board is seen as turned.
        let rotated = events.iter().any(|e| {
            matches!(&e.kind, EventKind::BoardStatus(s) if s.detail.as_deref() == Some("rotated"))
        });
        assert_eq!(rotated, name.ends_with("-turned"), "{name}");
    }
}
