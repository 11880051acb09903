//! Every game of `shared/data/pgn` with every normal variation on: the physical model
//! checks each move's placement, the variations' promises, the timing and the presses.

use std::time::Instant;

use dgt_protocol::capture::TimeControl;

use super::physical::{check_script, Seen};
use super::*;

const TIME_CONTROLS: [(u32, u32); 4] = [(180, 2), (300, 3), (900, 10), (5400, 30)];

#[test]
fn every_game_of_the_corpus_with_every_variation() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let started = Instant::now();
    let games = corpus();
    assert!(games.len() >= 2000, "only {} games", games.len());
    let mut total = Seen::default();
    let mut failures = Vec::new();
    for (i, (name, pgn)) in games.iter().enumerate() {
        let game = GameInput::from_pgn(pgn).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (base, inc) = TIME_CONTROLS[i % TIME_CONTROLS.len()];
        let opts = HandOptions {
            seed: i as u64,
            time_control: TimeControl::sudden_death(base, inc),
            variations: Variations::all(),
            ..HandOptions::default()
        };
        let outcome = generate(&game, &opts)
            .map_err(|e| e.to_string())
            .and_then(|script| check_script(&game, &script));
        match outcome {
            Ok(seen) => total.add(&seen),
            Err(e) => failures.push(format!("{name} (seed {i}, {base}+{inc}): {e}")),
        }
    }
    eprintln!(
        "corpus: {} games, {} plies in {:.2?}\n  styles {:?}\n  slides {}, adjustments {} \
         ({} of pieces that cannot move), forgotten presses {}, underpromotions {}\n  ends \
         by the rules {:?}",
        games.len(),
        total.plies,
        started.elapsed(),
        total.styles,
        total.slides,
        total.adjustments,
        total.adjusted_immovable,
        total.forgotten,
        total.underpromotions,
        total.rules_ends
    );
    assert!(
        failures.is_empty(),
        "{} of {} games failed:\n{}",
        failures.len(),
        games.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // Every variation was met many times.
    for style in [
        "Plain",
        "Capture(VictimFirst)",
        "Capture(DirectReplace)",
        "Capture(LiftVictimPlace)",
        "Castling",
        "EnPassant { victim_first: true }",
        "EnPassant { victim_first: false }",
    ] {
        let n = total.styles.get(style).copied().unwrap_or(0);
        assert!(n >= 20, "{style}: {n}");
    }
    let promotions: Vec<_> = total
        .styles
        .iter()
        .filter(|(k, _)| k.starts_with("Promotion"))
        .collect();
    assert!(promotions.len() >= 5, "{promotions:?}");
    assert!(total.slides > 1000 && total.adjustments > 1000 && total.adjusted_immovable > 100);
    assert!(total.forgotten > 100);
    assert!(total.underpromotions >= 5, "{}", total.underpromotions);
}

/// How many corpus games can take each irregularity (and how many illegal attempts need
/// the replacing move to break touch-move). A survey, not a check:
/// `cargo test -p dgt-sim --lib coverage_survey -- --ignored --nocapture`.
#[test]
#[ignore]
fn coverage_survey() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let started = Instant::now();
    let games = corpus();
    let mut rows = Vec::new();
    for irr in Irregularity::all() {
        let (mut took, mut dirty) = (0, 0);
        for (i, (_, pgn)) in games.iter().enumerate() {
            let game = GameInput::from_pgn(pgn).unwrap();
            let opts = HandOptions {
                seed: i as u64,
                irregularities: vec![irr],
                ..HandOptions::default()
            };
            let script = generate(&game, &opts).unwrap();
            if let Some(inj) = script.injected.first() {
                took += 1;
                dirty += usize::from(inj.breaks_touch_move);
            }
        }
        rows.push(format!(
            "  {:<34} {took:>5} games, {dirty:>4} break touch-move",
            irr.name()
        ));
    }
    eprintln!(
        "{} games, {:.1?}:\n{}",
        games.len(),
        started.elapsed(),
        rows.join("\n")
    );
}
