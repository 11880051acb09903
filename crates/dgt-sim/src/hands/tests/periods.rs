//! Controls with periods: a classical game paced to reach the control with time left, the
//! second period added at the press of move 40 by the clock's own count, and the count's
//! drift after a counted illegal press, with and without the arbiter's correction.

use chess_rules::{read_pgn, Color};
use dgt_protocol::capture::TimeControl;

use super::physical::{check_script, Replayer};
use super::*;
use crate::action::Action;
use crate::emulator::{MoveCount, PeriodIndex};

/// In the repository (not the shared folder): always there.
const LICHESS: &str = "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn";

/// A standard game in which both players make 45 moves or more.
fn long_game() -> GameInput {
    let games = read_pgn(&test_data::read(LICHESS)).expect("the Lichess file reads");
    games
        .iter()
        .filter(|pgn| pgn.tag("Variant").is_none_or(|v| v == "Standard"))
        .filter_map(|pgn| GameInput::from_pgn(pgn).ok())
        .find(|g| g.start == chess_rules::Position::start() && g.moves.len() >= 92)
        .expect("a long game")
}

fn classical() -> TimeControl {
    "40/5400+30:1800+30".parse().expect("a valid control")
}

/// Realistic hands that never forget a press (a forgotten press moves the period too).
fn pressing_hands() -> Variations {
    Variations {
        forgotten_press: 0.0,
        ..Variations::realistic()
    }
}

/// `color`'s plies in order: the i-th is his move i + 1.
fn moves_of(script: &Script, color: Color) -> Vec<&PlyRecord> {
    script.plies.iter().filter(|p| p.color == color).collect()
}

/// The moves (1-based) of `color` at whose turn his clock began a period, and which.
fn periods_began(script: &Script, color: Color) -> Vec<(usize, PeriodIndex)> {
    moves_of(script, color)
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.period_began.map(|b| (i + 1, b)))
        .collect()
}

#[test]
fn a_classical_game_reaches_move_40_with_time_left_and_the_second_period_at_its_press() {
    let game = long_game();
    let script = generate(
        &game,
        &HandOptions {
            seed: 5,
            time_control: classical(),
            variations: pressing_hands(),
            ..HandOptions::default()
        },
    )
    .unwrap();
    assert!(script.plies.len() >= 92, "{} plies", script.plies.len());
    for color in Color::ALL {
        assert_eq!(
            periods_began(&script, color),
            [(40, PeriodIndex(1))],
            "{color}"
        );
        let moves = moves_of(&script, color);
        assert_eq!(moves[39].clock_count, MoveCount(40));
        // Pacing: by his 40th press he has spent a good share of the first period's
        // 5400 s and 40 increments, but not all of it.
        let press = moves[39].press_ms.expect("move 40 pressed");
        let mut r = Replayer::new(&script);
        r.until_time(press - 1);
        r.emu.advance_to(press - 1);
        let left = r.emu.remaining(color).as_millis() as u64;
        let given = (5400 + 40 * 30) * 1000;
        assert!(
            left > given / 10 && left < given * 3 / 4,
            "{color}: {left} ms of {given} left at move 40"
        );
    }
    assert_eq!(script.period_mismatches(), []);
    // Realistic pacing: move 40 comes after more than an hour and a half of play.
    let fortieth = moves_of(&script, Color::Black)[39].made_at_ms;
    assert!(fortieth > 90 * 60 * 1000, "move 40 at {fortieth} ms");
    check_script(&game, &script).unwrap();
}

/// The offender and his move number (1-based) at an injected press, if it was placed.
fn offender(script: &Script) -> Option<(Color, usize)> {
    let inj = script.injected.first()?;
    let ply = script.plies.iter().find(|p| p.index == inj.index)?;
    let number = moves_of(script, ply.color)
        .iter()
        .position(|p| p.index == inj.index)?;
    Some((ply.color, number + 1))
}

#[test]
fn a_counted_illegal_press_brings_the_period_a_move_early_unless_the_arbiter_takes_it_back() {
    let game = long_game();
    let mut checked = 0;
    for seed in 0..6 {
        for irregularity in [
            Irregularity::ClockWithoutMove,
            Irregularity::Illegal(IllegalKind::KnightWrong),
        ] {
            let opts = |arbiter_counter| HandOptions {
                seed,
                time_control: classical(),
                variations: pressing_hands(),
                irregularities: vec![irregularity],
                arbiter_counter,
                ..HandOptions::default()
            };
            let left = generate(&game, &opts(ArbiterCounter::Leave)).unwrap();
            let Some((color, number)) = offender(&left).filter(|(_, n)| *n < 40) else {
                continue;
            };
            checked += 1;
            let what = format!("seed {seed}, {irregularity} at {color}'s move {number}");
            // Left alone, the clock's count runs one ahead: the period at move 39.
            assert_eq!(
                periods_began(&left, color),
                [(39, PeriodIndex(1))],
                "{what}"
            );
            assert_eq!(
                periods_began(&left, color.opponent()),
                [(40, PeriodIndex(1))],
                "{what}"
            );
            let last = moves_of(&left, color).len() as u32;
            assert_eq!(
                moves_of(&left, color).last().map(|p| p.clock_count),
                Some(MoveCount(last + 1)),
                "{what}"
            );
            let early = moves_of(&left, color)[38];
            assert_eq!(
                left.period_mismatches(),
                [PeriodMismatch {
                    color,
                    reason: MismatchReason::AddedEarly,
                    mv: 39,
                    due_move: 40,
                    at_ms: early.press_ms.unwrap_or(0),
                }],
                "{what}"
            );
            assert!(!left
                .actions
                .iter()
                .any(|a| matches!(a.action, Action::SetMoveCounter { .. })));
            // Taken back by one while the clock is stopped: the period at move 40.
            let taken = generate(&game, &opts(ArbiterCounter::TakeBack)).unwrap();
            assert_eq!(
                periods_began(&taken, color),
                [(40, PeriodIndex(1))],
                "{what}"
            );
            let set: Vec<&Action> = taken
                .actions
                .iter()
                .map(|a| &a.action)
                .filter(|a| matches!(a, Action::SetMoveCounter { .. }))
                .collect();
            assert_eq!(
                set,
                [&Action::SetMoveCounter {
                    color,
                    count: MoveCount(number as u32 - 1),
                }],
                "{what}"
            );
            assert_eq!(taken.period_mismatches(), [], "{what}");
            check_script(&game, &taken).unwrap();
        }
    }
    assert!(checked >= 3, "only {checked} injections before move 40");
}

#[test]
fn an_untouched_clock_counts_the_illegal_press_instead_of_the_replacing_one() {
    let game = long_game();
    let script = generate(
        &game,
        &HandOptions {
            seed: 1,
            time_control: classical(),
            variations: pressing_hands(),
            irregularities: vec![Irregularity::ClockWithoutMove],
            arbiter_clock: ArbiterClock::Untouched,
            arbiter_counter: ArbiterCounter::Leave,
            ..HandOptions::default()
        },
    )
    .unwrap();
    let (color, number) = offender(&script).expect("the press placed");
    assert!(number < 40, "placed at move {number}");
    assert_eq!(periods_began(&script, color), [(40, PeriodIndex(1))]);
}

#[test]
fn sudden_death_scripts_set_no_counter_and_begin_no_period() {
    let game = long_game();
    let script = generate(
        &game,
        &HandOptions {
            time_control: TimeControl::sudden_death(5400, 30),
            irregularities: vec![Irregularity::ClockWithoutMove],
            ..HandOptions::default()
        },
    )
    .unwrap();
    assert!(script.plies.iter().all(|p| p.period_began.is_none()));
    assert!(!script
        .actions
        .iter()
        .any(|a| matches!(a.action, Action::SetMoveCounter { .. })));
    assert_eq!(script.emulator_config().periods, None);
}

#[test]
fn a_forgotten_press_makes_the_period_late_after_it_was_not_added_at_move_40() {
    let game = long_game();
    let mut checked = 0;
    for seed in 0..12 {
        let script = generate(
            &game,
            &HandOptions {
                seed,
                time_control: classical(),
                variations: Variations {
                    forgotten_press: 0.02,
                    ..Variations::realistic()
                },
                ..HandOptions::default()
            },
        )
        .unwrap();
        for color in Color::ALL {
            let moves = moves_of(&script, color);
            let fortieth = moves[39];
            // One press short by move 40 (and move 40 pressed): the period comes at his
            // next counted press.
            if fortieth.clock_count != MoveCount(39) || fortieth.press_ms.is_none() {
                continue;
            }
            checked += 1;
            let began = periods_began(&script, color);
            assert_eq!(began.len(), 1, "seed {seed}, {color}: {began:?}");
            let late = began[0].0;
            assert!(late > 40, "seed {seed}, {color}: {began:?}");
            let mine: Vec<(MismatchReason, u32, u32)> = script
                .period_mismatches()
                .iter()
                .filter(|m| m.color == color)
                .map(|m| (m.reason, m.mv, m.due_move))
                .collect();
            assert_eq!(
                mine,
                [
                    (MismatchReason::NotAdded, 40, 40),
                    (MismatchReason::AddedLate, late as u32, 40)
                ],
                "seed {seed}, {color}"
            );
        }
    }
    assert!(checked >= 1, "no seed forgot a press before move 40");
}
