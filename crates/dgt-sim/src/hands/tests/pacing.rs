//! Time: think times against the clock, the pace options, the arbiter's clock handling,
//! faults, and a script played through the emulator as a host would see it.

use chess_rules::{Color, Placement};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{BoardMessage, Decoder, Orientation, PieceCode, RawBoard};

use super::physical::{check_script, Replayer};
use super::*;
use crate::action::Action;
use crate::{BoardMode, Emulator};

fn long_game() -> GameInput {
    let games = corpus();
    let (_, pgn) = games
        .iter()
        .find(|(n, g)| n.starts_with("twic") && g.moves.len() > 120)
        .expect("a long game");
    GameInput::from_pgn(pgn).unwrap()
}

fn clock_left(script: &Script) -> (u64, u64) {
    let mut r = Replayer::new(script);
    r.until(script.actions.len());
    r.emu.advance_to(script.end_ms);
    (
        r.emu.remaining(Color::White).as_millis() as u64,
        r.emu.remaining(Color::Black).as_millis() as u64,
    )
}

#[test]
fn think_times_spend_a_good_share_of_the_clock_without_running_out() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let game = long_game();
    for (base, inc) in [(180, 2), (900, 10), (5400, 30)] {
        let tc = TimeControl::sudden_death(base, inc);
        let script = generate(
            &game,
            &HandOptions {
                time_control: tc,
                ..HandOptions::default()
            },
        )
        .unwrap();
        let (w, b) = clock_left(&script);
        let plies = script.plies.len() as u64;
        let given = u64::from(base) * 1000 + plies / 2 * u64::from(inc) * 1000;
        // Each player used between a quarter and all of what the clock gave him.
        for left in [w, b] {
            assert!(
                left > 0 && left < given * 3 / 4,
                "{tc}: {left} of {given} left"
            );
        }
        check_script(&game, &script).unwrap();
    }
}

#[test]
fn the_think_scale_sets_the_pace_and_the_minimum_think_holds() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let game = long_game();
    let normal = generate(&game, &HandOptions::default()).unwrap();
    let brisk = generate(
        &game,
        &HandOptions {
            think_scale: 0.05,
            ..HandOptions::default()
        },
    )
    .unwrap();
    let thinking = |s: &Script| -> u64 {
        s.plies
            .iter()
            .map(|p| p.first_touch_ms - p.turn_start_ms)
            .sum()
    };
    let (n, b) = (thinking(&normal), thinking(&brisk));
    // Thinks shrink twentyfold, but not below the minimum think.
    assert!(b * 3 < n, "{b} vs {n}");
    assert!(b >= 400 * brisk.plies.len() as u64);
    assert!(brisk.end_ms < normal.end_ms);
    let instant = generate(
        &game,
        &HandOptions {
            think_scale: 0.0,
            ..HandOptions::default()
        },
    )
    .unwrap();
    for p in &instant.plies {
        assert!(p.first_touch_ms >= p.turn_start_ms + 400, "ply {}", p.ply);
    }
    check_script(&game, &instant).unwrap();
}

#[test]
fn a_time_control_too_short_for_the_game_is_an_error_not_a_silent_flag() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let game = long_game();
    let err = generate(
        &game,
        &HandOptions {
            time_control: TimeControl::sudden_death(20, 0),
            ..HandOptions::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, HandsError::TimeTrouble { .. }), "{err}");
    assert!(err.to_string().contains("20+0"), "{err}");
}

#[test]
fn an_untouched_clock_runs_for_the_opponent_until_he_replies() {
    let game = uci_game(
        chess_rules::START_FEN,
        &[
            "d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4", "e2e3", "e8g8", "f1d3", "d7d5",
        ],
    );
    for seed in 0..6 {
        let script = generate(
            &game,
            &HandOptions {
                seed,
                irregularities: vec![Irregularity::ClockWithoutMove],
                arbiter_clock: ArbiterClock::Untouched,
                ..HandOptions::default()
            },
        )
        .unwrap();
        assert!(!script
            .actions
            .iter()
            .any(|a| a.action == Action::PauseClock));
        let inj = &script.injected[0];
        let color = game.positions().unwrap()[inj.index].side_to_move();
        // The offender's replacing move runs on his opponent's time.
        let p = script.plies.iter().find(|p| p.index == inj.index).unwrap();
        let mut r = Replayer::new(&script);
        r.until_time(p.made_at_ms);
        let running = Color::ALL
            .into_iter()
            .find(|c| r.emu.side_of(*c) == r.emu.lever());
        assert_eq!(running, Some(color.opponent()));
        check_script(&game, &script).unwrap();
    }
}

#[test]
fn faults_fall_in_quiet_plies_and_change_no_expectation() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let game = long_game();
    let base = HandOptions {
        seed: 5,
        variations: Variations::all(),
        irregularities: vec![
            Irregularity::Illegal(IllegalKind::KnightWrong),
            Irregularity::ClockWithoutMove,
        ],
        ..HandOptions::default()
    };
    let clean = generate(&game, &base).unwrap();
    let faulty = generate(
        &game,
        &HandOptions {
            faults: Faults {
                board_cable_pulls: 3,
                board_cable_off_ms: (1000, 4000),
                line_noise: 5,
                clock_unplugs: 2,
                clock_off_ms: (500, 2000),
            },
            ..base
        },
    )
    .unwrap();
    assert_eq!(clean.expected, faulty.expected);
    let physical = |s: &Script| -> Vec<TimedAction> {
        s.actions
            .iter()
            .filter(|a| {
                !matches!(
                    a.action,
                    Action::BoardCable { .. } | Action::ClockCable { .. } | Action::LineNoise(_)
                )
            })
            .cloned()
            .collect()
    };
    assert_eq!(physical(&clean), physical(&faulty));
    let count =
        |f: &dyn Fn(&Action) -> bool| faulty.actions.iter().filter(|a| f(&a.action)).count();
    assert_eq!(count(&|a| matches!(a, Action::BoardCable { .. })), 6);
    assert_eq!(count(&|a| matches!(a, Action::ClockCable { .. })), 4);
    assert_eq!(count(&|a| matches!(a, Action::LineNoise(_))), 5);
    // No press and no irregular ply while the clock is unplugged; noise starts no frame.
    let mut clock_off = false;
    for a in &faulty.actions {
        match &a.action {
            Action::ClockCable { plugged } => clock_off = !plugged,
            Action::PressClock(_) | Action::PauseClock => assert!(!clock_off, "{a:?}"),
            Action::LineNoise(bytes) => assert!(bytes.iter().all(|b| *b < 0x80)),
            _ => {}
        }
    }
    for (i, p) in faulty.plies.iter().enumerate() {
        if p.irregularity.is_some() {
            let lo = faulty.plies[i.saturating_sub(1)].turn_start_ms;
            let hi = faulty
                .plies
                .get(i + 1)
                .map_or(faulty.end_ms, |n| n.made_at_ms);
            assert!(!faulty.actions.iter().any(|a| a.at_ms >= lo
                && a.at_ms <= hi
                && matches!(
                    a.action,
                    Action::BoardCable { .. } | Action::ClockCable { .. } | Action::LineNoise(_)
                )));
        }
    }
    check_script(&game, &faulty).unwrap();
}

/// The placement a host rebuilds from a dump and field updates.
fn host_view(board: &mut Placement, msg: &BoardMessage) {
    match msg {
        BoardMessage::BoardDump { board: raw } => *board = raw.placement(Orientation::Normal),
        BoardMessage::FieldUpdate(u) => {
            let sq = u.field.square(Orientation::Normal);
            board.set(
                sq,
                match u.piece {
                    PieceCode::Piece(p) => Some(p),
                    _ => None,
                },
            );
        }
        _ => {}
    }
}

#[test]
fn a_script_with_irregularities_plays_through_the_emulator_as_a_host_sees_it() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let game = long_game();
    let script = generate(
        &game,
        &HandOptions {
            seed: 9,
            variations: Variations::all(),
            irregularities: Irregularity::all(),
            ..HandOptions::default()
        },
    )
    .unwrap();
    let mut emu = Emulator::new(crate::EmulatorConfig {
        scan_interval_ms: 250,
        ..script.emulator_config()
    });
    // UPDATE_NICE and a dump, as a driver starts.
    emu.receive(&[0x4B, 0x42]);
    assert_eq!(emu.mode(), BoardMode::UpdateNice);
    let mut decoder = Decoder::new();
    let mut host = Placement::EMPTY;
    let mut messages = 0;
    let mut clocks = 0;
    for a in &script.actions {
        emu.apply_at(a.at_ms, &a.action);
        for chunk in emu.take_output() {
            for msg in decoder.push(&chunk.bytes) {
                let msg = msg.expect("the emulator sends only valid frames");
                clocks += usize::from(matches!(msg, BoardMessage::ClockTime(_)));
                host_view(&mut host, &msg);
                messages += 1;
            }
        }
    }
    emu.advance_to(script.end_ms);
    for chunk in emu.take_output() {
        for msg in decoder.push(&chunk.bytes) {
            host_view(&mut host, &msg.unwrap());
        }
    }
    assert_eq!(host, *script.final_position.placement());
    assert_eq!(
        RawBoard::from_placement(&host, Orientation::Normal).placement(Orientation::Normal),
        host
    );
    assert!(
        messages > script.plies.len() * 2 && clocks > script.plies.len(),
        "{messages} {clocks}"
    );
}
