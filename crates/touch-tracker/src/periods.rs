//! Time controls with periods (art. 6; arbiter-rules.md section 5, "Time controls with
//! periods"): what a player's clock did with a period's time, judged from readings of his
//! clock the tracker hands in. Pure: no clock of its own, no board.
//!
//! A DGT3000 adds a period's time when its own count of a player's presses reaches the
//! period's moves; that count is not the game's (it counts the press of an illegal move or
//! of a clock pressed without a move, an arbiter may reset it, a press may be missed). The
//! daemon knows the moves the player completed, so at each of his presses it reads his
//! clock's rise: a rise by the increment is the increment, a rise by the next period's
//! time (plus the increment) is the period's addition. A period added at another press
//! than the one of the move that ends the period, or not added at that press, is the
//! clock's setting being wrong (art. 6.10.2): an alert, never a penalty or a result. A
//! reading that fits neither rise, or that the tracker could not take (no frame just
//! before the press), says nothing: no ruling on a guess.

use chess_rules::Color;
use time_control::TimeControl;

use crate::events::{ClockMismatchEvent, MismatchReason};
use crate::explain;

/// One player's clock across one change: the time before and after, and how long his
/// clock ran in between (game time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reading {
    pub before_ms: u64,
    pub after_ms: u64,
    /// How long the player's own time ran between the two frames (0 when it did not run:
    /// the clock stopped, or running for the opponent).
    pub ran_ms: u64,
}

/// How far the time a change added can be from what the readings say: each reading shows
/// whole seconds (1 s either way, two readings), and each frame reaches the tracker a
/// little after the clock showed it (see `proof.rs`, the same bounds).
const READINGS_MS: i64 = 2_000;
const ARRIVAL_MS: i64 = 2 * 100;

/// A running DGT3000 sends a frame at least every second (dgt-protocol.md §7): between the
/// frame before a press and the press frame, longer than this means frames were lost or
/// the clock was stopped and set unseen, and the rise is not read.
pub(crate) const MAX_READING_SPAN_MS: u64 = 2_500;

/// What a press (or the arbiter's hands on a stopped clock) added to a player's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rise {
    /// The increment (or nothing, in a period without one).
    Increment,
    /// The next period's time, with or without an increment.
    Period,
    /// Neither, or both could fit: nothing is said.
    Unclear,
}

impl Reading {
    /// The time added, in ms: after - (before - ran). Negative when the clock lost more
    /// than it ran (it was set back).
    fn added_ms(&self) -> i64 {
        let ms = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        ms(self.after_ms)
            .saturating_sub(ms(self.before_ms))
            .saturating_add(ms(self.ran_ms))
    }

    /// Which rise this is: `increments` are the increments the press may have added (ms,
    /// the clock's period and the game's may differ around a control), `period_ms` the
    /// next period's time (`None`: no period comes).
    pub fn rise(&self, increments: &[u64], period_ms: Option<u64>, time_scale: f64) -> Rise {
        let added = self.added_ms();
        let scale = if time_scale.is_finite() && time_scale > 0.0 {
            time_scale
        } else {
            1.0
        };
        let error = READINGS_MS + (ARRIVAL_MS as f64 * scale) as i64;
        let (lo, hi) = increments.iter().fold((i64::MAX, 0i64), |(lo, hi), &i| {
            let i = i64::try_from(i).unwrap_or(i64::MAX);
            (lo.min(i), hi.max(i))
        });
        let lo = if lo == i64::MAX { 0 } else { lo };
        let within = |base: i64| added >= base + lo - error && added <= base + hi + error;
        let increment = within(0);
        let period = period_ms
            .and_then(|p| i64::try_from(p).ok())
            .is_some_and(within);
        match (increment, period) {
            (true, false) => Rise::Increment,
            (false, true) => Rise::Period,
            _ => Rise::Unclear,
        }
    }
}

/// What a press of the player was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Press {
    /// It completed his move `n` (1-based, his own moves).
    Move(u32),
    /// No move: an illegal move or a clock pressed without a move; he had completed
    /// `completed` moves.
    NoMove { completed: u32 },
}

impl Press {
    /// The player's move number the press belongs to (the move it completed, or the one
    /// he was trying to make).
    fn move_number(self) -> u32 {
        match self {
            Press::Move(n) => n,
            Press::NoMove { completed } => completed.saturating_add(1),
        }
    }
}

/// A clock at 0:00: a flag fall, or the clock's fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AtZero {
    /// The player had not completed the moves of the period his clock holds: a flag fall
    /// (art. 6.9).
    Flag,
    /// He had: the period's time should be on his clock (art. 6.10.2). No result; the
    /// alert, unless said already.
    ClockFault(Option<ClockMismatchEvent>),
}

/// Per player: the period the clock is seen to have given, and the alerts said.
#[derive(Debug, Clone, Default)]
pub(crate) struct PeriodWatch {
    /// The period (0-based, as `TimeControl::period`) whose time each player's clock was
    /// last seen to add; 0 for the first, on the clock from the start.
    given: [u32; 2],
    /// One alert per player, period and reason.
    said: Vec<(Color, u32, MismatchReason)>,
}

fn slot(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The moves `color` completed in the plies after `start_plies` up to `plies` (the game's
/// own numbering: odd plies are White's).
pub(crate) fn player_moves(start_plies: u32, plies: u32, color: Color) -> u32 {
    let upto = |x: u32| match color {
        Color::White => x.div_ceil(2),
        Color::Black => x / 2,
    };
    upto(plies).saturating_sub(upto(start_plies))
}

fn secs_ms(secs: u32) -> u64 {
    u64::from(secs) * 1000
}

impl PeriodWatch {
    /// The period the player's clock is seen to hold.
    pub fn given(&self, color: Color) -> u32 {
        self.given[slot(color)]
    }

    /// Says `reason` for period `index` once: `None` when said already.
    fn once(&mut self, color: Color, index: u32, reason: MismatchReason) -> Option<()> {
        if self.said.contains(&(color, index, reason)) {
            return None;
        }
        self.said.push((color, index, reason));
        Some(())
    }

    /// The increments a press of the player may add: his clock's period's and, around a
    /// control, the game's period for his move `n` and the next one's.
    fn increments(&self, tc: &TimeControl, color: Color, n: u32) -> [u64; 3] {
        let inc = |i: u32| tc.period(i).map_or(0, |p| secs_ms(p.increment_secs));
        let given = self.given(color);
        [
            inc(given),
            secs_ms(tc.owed_at_move(n).increment_secs),
            inc(given.saturating_add(1)),
        ]
    }

    /// A press of `color`: what his clock's rise says about the next period.
    pub fn at_press(
        &mut self,
        tc: &TimeControl,
        color: Color,
        press: Press,
        reading: &Reading,
        time_scale: f64,
    ) -> Option<ClockMismatchEvent> {
        let next = self.given(color).checked_add(1)?;
        let period = tc.period(next).copied();
        let due = tc.move_adding_period(next);
        let n = press.move_number();
        let increments = self.increments(tc, color, n);
        let period_ms = period.map(|p| secs_ms(p.secs));
        let mismatch = |reason, expected_ms| ClockMismatchEvent {
            color,
            reason,
            move_number: n,
            due_move: due.unwrap_or(0),
            clock_ms: reading.after_ms,
            expected_ms,
            explanation: String::new(),
        };
        let mut event = match reading.rise(&increments, period_ms, time_scale) {
            Rise::Unclear => return None,
            Rise::Period => {
                let due = due?;
                self.given[slot(color)] = next;
                let reason = match press {
                    Press::Move(n) if n == due => return None,
                    Press::Move(n) if n < due => MismatchReason::PeriodAddedEarly,
                    Press::NoMove { completed } if completed < due => {
                        MismatchReason::PeriodAddedEarly
                    }
                    _ => MismatchReason::PeriodAddedLate,
                };
                self.once(color, next, reason)?;
                mismatch(reason, None)
            }
            Rise::Increment => {
                // Only at the due move's own press: later, the arbiter may have set the
                // clock by hand meanwhile, unseen.
                if press != Press::Move(due?) {
                    return None;
                }
                let reason = MismatchReason::PeriodNotAdded;
                self.once(color, next, reason)?;
                let expected = reading.after_ms.saturating_add(period_ms?);
                mismatch(reason, Some(expected))
            }
        };
        event.explanation = explain::clock_mismatch(&event, next, period_ms.unwrap_or(0));
        Some(event)
    }

    /// The clock was stopped and started again (the arbiter's hands) while `color`, who
    /// completed `completed` moves, was owed the next period's time: if his clock gained at
    /// least half of it, the arbiter set it (art. 6.10.2's correction; no alert). Half, not
    /// the exact time: the arbiter sets what the player should have, which the seconds run
    /// since the due press change.
    pub fn set_by_hand(
        &mut self,
        tc: &TimeControl,
        color: Color,
        completed: u32,
        reading: &Reading,
    ) {
        let given = self.given(color);
        if tc.period_after_moves(completed) <= given {
            return;
        }
        let Some(next) = given.checked_add(1) else {
            return;
        };
        let Some(period) = tc.period(next) else {
            return;
        };
        let half = i64::from(period.secs) * 1000 / 2;
        if reading.added_ms() >= half {
            self.given[slot(color)] = next;
        }
    }

    /// `color`'s clock shows 0:00 after he completed `completed` moves: a flag fall
    /// (art. 6.9) while the period his clock holds is not over; the clock's fault
    /// (art. 6.10.2) when he completed its moves and the next period's time is not on it.
    pub fn at_zero(&mut self, tc: &TimeControl, color: Color, completed: u32) -> AtZero {
        let given = self.given(color);
        let due_index = tc.period_after_moves(completed);
        if due_index <= given {
            return AtZero::Flag;
        }
        // The first period he is owed and was not seen to get.
        let next = given.saturating_add(1);
        let (Some(due), Some(period)) = (tc.move_adding_period(next), tc.period(next).copied())
        else {
            return AtZero::Flag;
        };
        let period_ms = secs_ms(period.secs);
        let reason = MismatchReason::PeriodNotAdded;
        if self.once(color, next, reason).is_none() {
            return AtZero::ClockFault(None);
        }
        let mut event = ClockMismatchEvent {
            color,
            reason,
            move_number: completed.saturating_add(1),
            due_move: due,
            clock_ms: 0,
            expected_ms: Some(period_ms),
            explanation: String::new(),
        };
        event.explanation = explain::clock_at_zero(&event, next, period_ms);
        AtZero::ClockFault(Some(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    /// A press that ran `ran` ms of the player's time since the frame before.
    fn reading(before: u64, after: u64, ran: u64) -> Reading {
        Reading {
            before_ms: before,
            after_ms: after,
            ran_ms: ran,
        }
    }

    #[test]
    fn a_rise_is_the_increment_or_the_period() {
        let r = reading(60_000, 89_000, 900);
        assert_eq!(r.rise(&[30_000], Some(1_800_000), 1.0), Rise::Increment);
        let r = reading(60_000, 1_889_000, 900);
        assert_eq!(r.rise(&[30_000], Some(1_800_000), 1.0), Rise::Period);
        // The period without its increment still is the period.
        let r = reading(60_000, 1_859_000, 900);
        assert_eq!(r.rise(&[0, 30_000], Some(1_800_000), 1.0), Rise::Period);
        // Neither: ten minutes from nowhere is not read.
        let r = reading(60_000, 660_000, 900);
        assert_eq!(r.rise(&[30_000], Some(1_800_000), 1.0), Rise::Unclear);
        // No period to come: only the increment fits.
        let r = reading(60_000, 1_889_000, 900);
        assert_eq!(r.rise(&[30_000], None, 1.0), Rise::Unclear);
    }

    #[test]
    fn a_player_s_moves_are_counted_from_the_start() {
        assert_eq!(player_moves(0, 79, Color::White), 40);
        assert_eq!(player_moves(0, 79, Color::Black), 39);
        assert_eq!(player_moves(0, 80, Color::Black), 40);
        // From a set-up position with Black to move (ply 1 done).
        assert_eq!(player_moves(1, 2, Color::Black), 1);
        assert_eq!(player_moves(1, 2, Color::White), 0);
    }

    #[test]
    fn a_period_added_at_the_due_press_is_silent_and_others_are_said_once() {
        let t = tc("40/5400+30:1800+30");
        let inc = reading(100_000, 129_000, 800);
        let period = reading(100_000, 1_929_000, 800);
        let mut w = PeriodWatch::default();
        assert_eq!(
            w.at_press(&t, Color::White, Press::Move(39), &inc, 1.0),
            None
        );
        assert_eq!(
            w.at_press(&t, Color::White, Press::Move(40), &period, 1.0),
            None
        );
        assert_eq!(w.given(Color::White), 1);
        // Sudden death after: a later rise of 30 minutes fits nothing.
        assert_eq!(
            w.at_press(&t, Color::White, Press::Move(41), &period, 1.0),
            None
        );

        let mut w = PeriodWatch::default();
        let e = w
            .at_press(&t, Color::Black, Press::Move(39), &period, 1.0)
            .unwrap();
        assert_eq!(
            (e.reason, e.move_number, e.due_move, e.expected_ms),
            (MismatchReason::PeriodAddedEarly, 39, 40, None)
        );
        assert!(e.explanation.contains("6.10.2"), "{}", e.explanation);
        assert_eq!(
            w.at_press(&t, Color::Black, Press::Move(40), &inc, 1.0),
            None
        );

        let mut w = PeriodWatch::default();
        let e = w
            .at_press(&t, Color::White, Press::Move(40), &inc, 1.0)
            .unwrap();
        assert_eq!(e.reason, MismatchReason::PeriodNotAdded);
        assert_eq!(e.expected_ms, Some(129_000 + 1_800_000));
        assert_eq!(
            w.at_press(&t, Color::White, Press::Move(41), &inc, 1.0),
            None
        );
        let e = w
            .at_press(&t, Color::White, Press::Move(42), &period, 1.0)
            .unwrap();
        assert_eq!(
            (e.reason, e.move_number, e.due_move),
            (MismatchReason::PeriodAddedLate, 42, 40)
        );
    }

    #[test]
    fn a_counted_illegal_press_brings_the_period_early_and_it_is_said() {
        let t = tc("40/7200");
        let period = reading(100_000, 7_300_000, 900);
        let mut w = PeriodWatch::default();
        let e = w
            .at_press(
                &t,
                Color::White,
                Press::NoMove { completed: 39 },
                &period,
                1.0,
            )
            .unwrap();
        assert_eq!(
            (e.reason, e.move_number, e.due_move),
            (MismatchReason::PeriodAddedEarly, 40, 40)
        );
        assert!(
            e.explanation.contains("a press that was no move"),
            "{}",
            e.explanation
        );
    }

    #[test]
    fn zero_is_a_flag_until_the_period_s_moves_are_completed() {
        let t = tc("40/5400+30:1800+30");
        let mut w = PeriodWatch::default();
        assert_eq!(w.at_zero(&t, Color::White, 39), AtZero::Flag);
        let AtZero::ClockFault(Some(e)) = w.at_zero(&t, Color::White, 40) else {
            panic!("the clock's fault")
        };
        assert_eq!((e.due_move, e.expected_ms), (40, Some(1_800_000)));
        assert_eq!(w.at_zero(&t, Color::White, 40), AtZero::ClockFault(None));
        // Once the period is on the clock, 0:00 in sudden death is a flag.
        let mut w = PeriodWatch::default();
        let period = reading(100_000, 1_929_000, 800);
        w.at_press(&t, Color::White, Press::Move(40), &period, 1.0);
        assert_eq!(w.at_zero(&t, Color::White, 55), AtZero::Flag);
        // Set by hand after the alert (a little less than the period: the seconds run
        // since): a flag again.
        let mut w = PeriodWatch::default();
        let set = reading(10_000, 1_790_000, 0);
        w.set_by_hand(&t, Color::Black, 39, &set);
        assert_eq!(w.given(Color::Black), 0, "not owed before move 40");
        w.set_by_hand(&t, Color::Black, 40, &reading(10_000, 130_000, 0));
        assert_eq!(
            w.given(Color::Black),
            0,
            "2 minutes are a penalty, not the period"
        );
        w.set_by_hand(&t, Color::Black, 40, &set);
        assert_eq!(w.given(Color::Black), 1);
        assert_eq!(w.at_zero(&t, Color::Black, 50), AtZero::Flag);
    }
}
