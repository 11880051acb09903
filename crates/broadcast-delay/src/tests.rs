use super::*;
use chess_rules::{Color, GameResult};
use touch_tracker::events::GameOverEvent;
use touch_tracker::EndReason;

const T0: u64 = 1_749_755_000_000;

fn restored(board: u32) -> ArbiterEvent {
    ArbiterEvent {
        t_ms: 0,
        board: board.to_string(),
        kind: EventKind::Restored { fen: "f".into() },
    }
}

fn over(board: u32) -> ArbiterEvent {
    ArbiterEvent {
        t_ms: 0,
        board: board.to_string(),
        kind: EventKind::GameOver(GameOverEvent {
            result: GameResult::WhiteWins,
            reason: EndReason::Flag,
            flag: Some(Color::Black),
            undetermined: false,
            plies: 40,
        }),
    }
}

fn seqs(r: &[Released]) -> Vec<(u32, u64)> {
    r.iter().map(|r| (r.board, r.seq)).collect()
}

fn delayed(ms: u64) -> DelayedView {
    DelayedView::new(Policy {
        delay_ms: ms,
        ..Policy::default()
    })
}

#[test]
fn nothing_comes_out_before_its_delay_and_everything_in_order() {
    let mut v = delayed(3_000);
    v.push(1, 1, T0, restored(1));
    v.push(1, 2, T0 + 500, restored(1));
    v.push(2, 1, T0 + 200, restored(2));
    assert_eq!(v.next_due(), Some(T0 + 3_000));
    assert!(v.release(T0 + 2_999).is_empty());
    assert_eq!(seqs(&v.release(T0 + 3_000)), [(1, 1)]);
    assert_eq!(v.next_due(), Some(T0 + 3_200));
    assert_eq!(seqs(&v.release(T0 + 3_499)), [(2, 1)]);
    assert_eq!(seqs(&v.release(T0 + 3_500)), [(1, 2)]);
    assert!(v.release(T0 + 99_999).is_empty());
    assert_eq!(v.next_due(), None);
    assert_eq!(v.released_seq(1), 2);
}

#[test]
fn a_late_event_holds_back_the_later_ones_of_its_board() {
    // Wall-clock times that go back (a board's clock corrected) never reorder a board.
    let mut v = delayed(1_000);
    v.push(1, 1, T0 + 5_000, restored(1));
    v.push(1, 2, T0, restored(1));
    assert!(v.release(T0 + 5_999).is_empty());
    assert_eq!(seqs(&v.release(T0 + 6_000)), [(1, 1), (1, 2)]);
}

#[test]
fn time_never_goes_back_for_the_view() {
    let mut v = delayed(1_000);
    v.push(1, 1, T0, restored(1));
    assert!(v.release(T0 + 999).is_empty());
    v.push(1, 2, T0 + 10, restored(1));
    assert_eq!(seqs(&v.release(T0 + 1_010)), [(1, 1), (1, 2)]);
    v.push(1, 3, T0 + 5, restored(1));
    // The clock stepped back: what was due stays due.
    assert_eq!(seqs(&v.release(T0)), [(1, 3)]);
}

#[test]
fn no_delay_and_all_on_the_air_passes_everything_at_once() {
    let mut v = delayed(0);
    // Even an event stamped ahead of the wall clock (a Pi booted with its clock behind).
    v.push(1, 1, T0 + 60_000, restored(1));
    assert_eq!(seqs(&v.release(T0)), [(1, 1)]);
}

#[test]
fn off_the_air_shows_the_result_only_when_asked_and_after_the_delay() {
    let mut boards = BTreeMap::new();
    boards.insert(2, Air::Off { results: true });
    boards.insert(3, Air::Off { results: false });
    let mut v = DelayedView::new(Policy {
        delay_ms: 0,
        results_only: false,
        boards,
    });
    assert!(!v.policy().is_live());
    for b in [1, 2, 3] {
        v.push(b, 1, T0, restored(b));
        v.push(b, 2, T0 + 100, over(b));
    }
    let out = v.release(T0 + 100);
    assert_eq!(seqs(&out), [(1, 1), (1, 2), (2, 2)]);
    assert!(matches!(out[2].event.kind, EventKind::GameOver(_)));
    // Withheld events are consumed for good.
    assert_eq!(v.released_seq(3), 2);
    assert_eq!(v.waiting(), 0);
}

#[test]
fn results_only_puts_every_board_off_the_air() {
    let mut v = DelayedView::new(Policy {
        delay_ms: 500,
        results_only: true,
        boards: BTreeMap::new(),
    });
    v.push(1, 1, T0, restored(1));
    v.push(1, 2, T0 + 100, over(1));
    assert!(v.release(T0 + 599).is_empty());
    assert_eq!(seqs(&v.release(T0 + 600)), [(1, 2)]);
}

#[test]
fn restored_marks_release_at_once_and_repeats_are_ignored() {
    let mut v = delayed(60_000);
    v.restore_released(1, 2);
    v.push(1, 1, T0, restored(1));
    v.push(1, 2, T0 + 10, restored(1));
    v.push(1, 3, T0 + 20, restored(1));
    assert_eq!(seqs(&v.release(T0 + 30)), [(1, 1), (1, 2)]);
    v.push(1, 2, T0 + 10, restored(1));
    v.push(1, 3, T0 + 20, restored(1));
    assert_eq!(v.waiting(), 1);
    assert_eq!(v.released().get(&1), Some(&2));
}

#[test]
fn delays_as_written() {
    assert_eq!(parse_delay("15m"), Ok(900_000));
    assert_eq!(parse_delay("3s"), Ok(3_000));
    assert_eq!(parse_delay("1h"), Ok(3_600_000));
    assert_eq!(parse_delay("250ms"), Ok(250));
    assert_eq!(parse_delay("0"), Ok(0));
    assert_eq!(parse_delay(" 30 min"), Ok(1_800_000));
    for bad in [
        "",
        "m",
        "15",
        "-3s",
        "1.5m",
        "3 days",
        "99999999999999999999s",
    ] {
        let e = parse_delay(bad).unwrap_err();
        assert!(e.to_string().contains("is not a delay"), "{bad}: {e}");
    }
}

#[test]
fn marks_restored_after_the_events_came_release_them_at_once() {
    let mut v = delayed(60_000);
    v.push(1, 1, T0, restored(1));
    v.push(1, 2, T0 + 10, restored(1));
    v.push(2, 1, T0 + 5, restored(2));
    assert_eq!(v.next_due(), Some(T0 + 60_000));
    v.restore_released(1, 1);
    assert!(
        v.next_due().is_some_and(|at| at <= T0 + 30),
        "board 1 is due now"
    );
    assert_eq!(seqs(&v.release(T0 + 30)), [(1, 1)]);
    assert_eq!(v.next_due(), Some(T0 + 60_005), "board 2's first event");
    assert_eq!(seqs(&v.release(T0 + 60_010)), [(2, 1), (1, 2)]);
    assert_eq!(v.next_due(), None);
}

#[test]
fn many_boards_each_come_out_in_order_when_due() {
    let mut v = delayed(1_000);
    // Board b's events at T0 + b, T0 + b + 100, ...: each board due at its own time.
    for round in 0..3u64 {
        for b in (1..=50u32).rev() {
            v.push(b, round + 1, T0 + u64::from(b) + 100 * round, restored(b));
        }
    }
    let mut out = Vec::new();
    for t in (0..1_400).step_by(7) {
        for r in v.release(T0 + t) {
            let due = T0 + u64::from(r.board) + 100 * (r.seq - 1) + 1_000;
            assert!(due <= T0 + t, "board {} seq {} out early", r.board, r.seq);
            assert!(due + 7 > T0 + t, "board {} seq {} out late", r.board, r.seq);
            out.push((r.board, r.seq));
        }
    }
    assert_eq!(out.len(), 150);
    for b in 1..=50u32 {
        let mine: Vec<u64> = out.iter().filter(|o| o.0 == b).map(|o| o.1).collect();
        assert_eq!(mine, [1, 2, 3], "board {b} in order");
    }
    assert_eq!(v.waiting(), 0);
}
