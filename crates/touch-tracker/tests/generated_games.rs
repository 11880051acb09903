//! Real games from `shared/data/pgn` played by the hand-motion generator with every normal
//! variation on (capture orders, en passant and promotion orders, sliding noise,
//! adjustments, forgotten presses), on the emulator with its scan model, half of them on a
//! turned board, read back through the decoder, the event filter and the tracker: every
//! move exact, nothing else (no false alert).
//!
//! The corpus is played in two halves (even and odd games), one test each, so that the
//! two run side by side. `TRACKER_CORPUS_ROUNDS=N` plays it N times, with other seeds and
//! the boards turned the other way round each time (a bigger sweep; default 1).

mod common;

use std::time::Instant;

use common::sim::{check, config_for, corpus, play};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::Orientation;
use dgt_sim::hands::{generate, GameInput, HandOptions, Variations};

const TIME_CONTROLS: [(u32, u32); 4] = [(180, 2), (300, 3), (900, 10), (5400, 30)];

fn rounds() -> u64 {
    std::env::var("TRACKER_CORPUS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

fn run(parity: usize) {
    for round in 0..rounds() {
        run_round(parity, round);
    }
}

fn run_round(parity: usize, round: u64) {
    let started = Instant::now();
    let games = corpus();
    assert!(
        games.len() >= 2000,
        "only {} games in the corpus",
        games.len()
    );
    let (mut plies, mut played, mut failures) = (0usize, 0usize, Vec::new());
    let (mut unpressed, mut replaced) = (0usize, 0usize);
    for i in (parity..games.len()).step_by(2) {
        let (name, pgn) = &games[i];
        let game = GameInput::from_pgn(pgn).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (base, inc) = TIME_CONTROLS[i % TIME_CONTROLS.len()];
        let opts = HandOptions {
            seed: i as u64 + round * 1_000_003,
            time_control: TimeControl::sudden_death(base, inc),
            variations: Variations::all(),
            ..HandOptions::default()
        };
        let script = match generate(&game, &opts) {
            Ok(s) => s,
            Err(e) => panic!("{name}: the generator failed: {e}"),
        };
        let orientation = if (i as u64 + round) % 2 == 0 {
            Orientation::Normal
        } else {
            Orientation::Rotated
        };
        let events = play(&script, orientation, config_for(&script));
        plies += script.plies.len();
        played += 1;
        for e in &events {
            if let touch_tracker::EventKind::Move(m) = &e.kind {
                unpressed += usize::from(!m.pressed);
                replaced += usize::from(m.replaces.is_some());
            }
        }
        if let Err(e) = check(&script, &events) {
            failures.push(format!("{name} (game {i}, {orientation:?}): {e}"));
        }
    }
    eprintln!(
        "corpus half {parity}, round {round}: {played} games, {plies} plies, {} failures in {:.1?} \
         ({unpressed} moves recorded without a press, {replaced} amended after the press)",
        failures.len(),
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} of {played} games failed:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n\n")
    );
}

#[test]
fn every_even_corpus_game_with_every_variation() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    run(0);
}

#[test]
fn every_odd_corpus_game_with_every_variation() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    run(1);
}
