//! Real games from `shared/data/pgn` played by the hand-motion generator with every normal
//! variation on (capture orders, en passant and promotion orders, sliding noise,
//! adjustments, forgotten presses), on the emulator with its scan model, half of them on a
//! turned board, read back through the decoder, the event filter and the tracker: every
//! move exact, nothing else (no false alert).
//!
//! `TRACKER_CORPUS=all` plays every game of the folder; by default every
//! `TRACKER_CORPUS_STRIDE`-th game is played... no: by default the first 2,000 games.

mod common;

use std::time::Instant;

use common::sim::{check, config_for, corpus, play};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::Orientation;
use dgt_sim::hands::{generate, GameInput, HandOptions, Variations};

const TIME_CONTROLS: [(u32, u32); 4] = [(180, 2), (300, 3), (900, 10), (5400, 30)];

fn run(range: std::ops::Range<usize>) {
    let started = Instant::now();
    let games = corpus();
    let range = range.start.min(games.len())..range.end.min(games.len());
    let (mut plies, mut played, mut failures) = (0usize, 0usize, Vec::new());
    for i in range.clone() {
        let (name, pgn) = &games[i];
        let game = GameInput::from_pgn(pgn).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (base, inc) = TIME_CONTROLS[i % TIME_CONTROLS.len()];
        let opts = HandOptions {
            seed: i as u64,
            time_control: TimeControl {
                base_secs: base,
                increment_secs: inc,
            },
            variations: Variations::all(),
            ..HandOptions::default()
        };
        let script = match generate(&game, &opts) {
            Ok(s) => s,
            Err(e) => panic!("{name}: the generator failed: {e}"),
        };
        let orientation = if i % 2 == 0 {
            Orientation::Normal
        } else {
            Orientation::Rotated
        };
        let events = play(&script, orientation, config_for(&script));
        plies += script.plies.len();
        played += 1;
        if let Err(e) = check(&script, &events) {
            failures.push(format!("{name} (game {i}, {orientation:?}): {e}"));
        }
    }
    eprintln!(
        "games {}..{}: {played} games, {plies} plies, {} failures in {:.1?}",
        range.start,
        range.end,
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
fn corpus_first_100() {
    run(0..usize::MAX);
}
