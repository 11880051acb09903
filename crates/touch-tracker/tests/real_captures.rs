//! The real captures from arnsholt/dgtdriver (a physical DGT board and clock) replayed
//! through the capture reader, decoder, event filter and tracker: every move recovered
//! exactly (the turned board included), no illegal move and no touch-move violation, and
//! johan's flag fall ruled 1-0. The data is AGPL and read at run time, never copied.

mod common;

use capture_replay::ReplayOptions;
use chess_rules::{Color, Game, GameResult};
use common::{count, final_moves, replay};
use test_data::capture;
use touch_tracker::{EndReason, EventKind};

fn expected_uci(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(capture(name)).unwrap();
    text.split_whitespace()
        .filter(|w| !w.ends_with('.') && *w != "*")
        .map(str::to_owned)
        .collect()
}

fn expected_pgn_uci(name: &str) -> Vec<String> {
    let bytes = std::fs::read(capture(name)).unwrap();
    let games = chess_rules::read_pgn(&bytes).unwrap();
    let game: Game = games[0].replay().unwrap();
    game.moves().iter().map(|m| m.uci()).collect()
}

#[test]
fn game_2_turned_board_every_move() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    let events = replay(&[capture("2.dgtcap")], &ReplayOptions::default());
    let got: Vec<String> = final_moves(&events).iter().map(|m| m.uci.uci()).collect();
    let want = expected_uci("2.uci");
    assert_eq!(want.len(), 99);
    assert_eq!(got, want);
    assert_eq!(count(&events, "illegal_move"), 0);
    assert_eq!(count(&events, "touch_move"), 0);
    assert_eq!(count(&events, "two_handed_suspected"), 0);
    // 98 presses for 99 plies: the last move was recorded at the end of the capture.
    let moves = final_moves(&events);
    assert!(moves[..98]
        .iter()
        .all(|m| m.pressed && m.clock_ms.is_some()));
    assert!(!moves[98].pressed);
    // The board lay turned round: White's clock is on the right.
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::BoardStatus(s) if s.detail.as_deref() == Some("rotated"))));
}

#[test]
fn johan_every_move_and_the_flag() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    let events = replay(&[capture("johan.dgtcap")], &ReplayOptions::default());
    let got: Vec<String> = final_moves(&events).iter().map(|m| m.uci.uci()).collect();
    assert_eq!(got, expected_pgn_uci("johan.pgn"));
    assert_eq!(count(&events, "illegal_move"), 0);
    assert_eq!(count(&events, "touch_move"), 0);
    assert_eq!(count(&events, "two_handed_suspected"), 0);
    let over: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::GameOver(g) => Some(g),
            _ => None,
        })
        .collect();
    assert_eq!(over.len(), 1, "one game end");
    assert_eq!(over[0].reason, EndReason::Flag);
    assert_eq!(over[0].flag, Some(Color::Black));
    assert_eq!(over[0].result, GameResult::WhiteWins);
}

#[test]
fn two_captures_replay_as_two_boards_in_time_order() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    let events = replay(
        &[capture("johan.dgtcap"), capture("2.dgtcap")],
        &ReplayOptions::default(),
    );
    assert!(
        events.windows(2).all(|w| w[0].t_ms <= w[1].t_ms),
        "input-time order"
    );
    let boards: std::collections::BTreeSet<&str> =
        events.iter().map(|e| e.board.as_str()).collect();
    assert_eq!(boards.into_iter().collect::<Vec<_>>(), ["2", "johan"]);
    let per_board = |b: &str| {
        let mine: Vec<_> = events.iter().filter(|e| e.board == b).cloned().collect();
        final_moves(&mine).len()
    };
    assert_eq!(per_board("2"), 99);
    assert_eq!(per_board("johan"), 43);
}

#[test]
fn a_malformed_capture_is_an_error_naming_the_line() {
    use capture_replay::{Replay, ReplayError};
    use std::io::BufRead;
    let text = "# dgtcap 1\n0 < 86 00 43\n10 < zz\n";
    let input: Box<dyn BufRead> = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
    let mut r = Replay::new(vec![("bad".into(), input)], &ReplayOptions::default()).unwrap();
    let mut out = Vec::new();
    let err = r.run(&mut out).unwrap_err();
    assert!(matches!(err, ReplayError::Capture { .. }));
    let msg = err.to_string();
    assert!(msg.contains("bad") && msg.contains("line 3"), "{msg}");
    // A bad start position in the header is refused up front.
    let text = "# dgtcap 1\n# start-fen: nonsense\n0 < 42\n";
    let input: Box<dyn BufRead> = Box::new(std::io::Cursor::new(text.as_bytes().to_vec()));
    assert!(matches!(
        Replay::new(vec![("fen".into(), input)], &ReplayOptions::default()),
        Err(ReplayError::StartFen { .. })
    ));
}

#[test]
fn header_overrides_time_control_and_supervision() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    use touch_tracker::Supervision;
    let opts = ReplayOptions {
        time_control: Some(dgt_protocol::capture::TimeControl::sudden_death(5400, 30)),
        supervision: Supervision::Partial,
        white_clock: None,
        dead_position_batch: 0,
    };
    let inputs = vec![(
        "johan".to_owned(),
        Box::new(std::io::BufReader::new(
            std::fs::File::open(capture("johan.dgtcap")).unwrap(),
        )) as Box<dyn std::io::BufRead>,
    )];
    let mut r = capture_replay::Replay::new(inputs, &opts).unwrap();
    let mut out = Vec::new();
    r.run(&mut out).unwrap();
    let t = r.trackers().next().unwrap();
    assert_eq!(t.category(), touch_tracker::TimeCategory::Standard);
    assert_eq!(t.config().supervision, Supervision::Partial);
    assert_eq!(t.game().moves().len(), 43);
}
