//! The tracker's side of time controls with periods (arbiter-rules.md section 5, "Time
//! controls with periods"): reading each player's clock across his presses and across the
//! arbiter's hands on a stopped clock, and handing the readings to the pure
//! [`crate::periods::PeriodWatch`] at the recorded move, the illegal press and the clock at
//! 0:00. A game with one sudden-death period (`BASE+INC`) never gets here.

use chess_rules::{Color, Position};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{ClockSide, ClockTime};

use super::{idx, Tracker};
use crate::events::{ArbiterEvent, ClockMismatchEvent, ClockMs, EventKind};
use crate::explain;
use crate::periods::{player_moves, AtZero, Press, Reading, MAX_READING_SPAN_MS};

impl Tracker {
    /// The time control, when it has periods (a clock that adds time by its count of
    /// presses) and the players' move numbers are known; `None` for one sudden-death
    /// period, an unknown control, or a game followed from a position of unknown ply.
    #[inline]
    pub(super) fn period_control(&self) -> Option<TimeControl> {
        if self.period_moves_unknown {
            return None;
        }
        // Read through a reference: this runs at every clock frame, and most games are
        // sudden death, where the (copied) control is not wanted.
        match &self.time_control {
            Some(tc) if !tc.is_sudden_death_only() => Some(*tc),
            _ => None,
        }
    }

    /// A frame was taken (`prev` the one before it, taken at `prev_at`) in a game whose
    /// control `tc` has periods ([`Tracker::period_control`]): keeps the presser's clock
    /// across a press for the ruling at his move, and notes the arbiter's hands on a
    /// stopped clock (a period's time set by hand is no longer owed).
    pub(super) fn read_periods(
        &mut self,
        tc: TimeControl,
        prev: Option<ClockTime>,
        prev_at: u64,
        t: u64,
        frame: &ClockTime,
        press: Option<ClockSide>,
    ) {
        let Some(prev) = prev else {
            return;
        };
        if let Some(side) = press {
            let color = self.clock.color_of(side);
            let span = t.saturating_sub(prev_at);
            // No frame just before the press: what the clock did is not known (dgt-protocol
            // §7, a running clock talks every second), so nothing is read.
            let ran_ms = (span as f64 * self.cfg.time_scale.max(0.0)) as u64;
            self.press_readings[idx(color)] = (span <= MAX_READING_SPAN_MS).then_some(Reading {
                before_ms: prev.millis(side),
                after_ms: frame.millis(side),
                ran_ms,
            });
            return;
        }
        let times = |c: &ClockTime| ClockMs {
            white: c.millis(self.clock.side_of(Color::White)),
            black: c.millis(self.clock.side_of(Color::Black)),
        };
        if prev.running && !frame.running {
            self.stopped_times = Some(times(frame));
        } else if !prev.running && frame.running {
            if let Some(stopped) = self.stopped_times.take() {
                let now = times(frame);
                let plies = self.game.position().plies();
                for color in Color::ALL {
                    let reading = Reading {
                        before_ms: stopped.get(color),
                        after_ms: now.get(color),
                        ran_ms: 0,
                    };
                    let completed = player_moves(self.cfg.start.plies(), plies, color);
                    self.periods.set_by_hand(&tc, color, completed, &reading);
                }
            }
        }
    }

    /// The player's reading of the press that left his clock at `clock`, taken: `None`
    /// when there is none, or it is of another press.
    fn take_reading(&mut self, color: Color, clock: Option<ClockMs>) -> Option<Reading> {
        let reading = self.press_readings[idx(color)].take()?;
        // Never a ruling on a guess: after lost events the count of moves may be wrong.
        if self.gap_open || self.desynced || self.held.is_some() {
            return None;
        }
        (clock?.get(color) == reading.after_ms).then_some(reading)
    }

    /// A move of `mover`, game ply `ply`, was recorded completed by a press that left the
    /// clocks at `clock`: was the period's time added at the right press (art. 6.10.2)?
    pub(super) fn periods_at_move(
        &mut self,
        t: u64,
        mover: Color,
        ply: u32,
        clock: Option<ClockMs>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let Some(tc) = self.period_control() else {
            return;
        };
        let Some(reading) = self.take_reading(mover, clock) else {
            return;
        };
        let n = player_moves(self.cfg.start.plies(), ply, mover);
        let scale = self.cfg.time_scale;
        if let Some(e) = self
            .periods
            .at_press(&tc, mover, Press::Move(n), &reading, scale)
        {
            self.emit(out, t, EventKind::ClockMismatch(e));
        }
    }

    /// A press of `offender` that was no move (an illegal move, a clock pressed without a
    /// move) on `base`: the clock counted it, and may have added a period's time with it.
    pub(super) fn periods_at_no_move(
        &mut self,
        t: u64,
        offender: Color,
        base: &Position,
        clock: Option<ClockMs>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let Some(tc) = self.period_control() else {
            return;
        };
        let Some(reading) = self.take_reading(offender, clock) else {
            return;
        };
        let completed = player_moves(self.cfg.start.plies(), base.plies(), offender);
        let press = Press::NoMove { completed };
        let scale = self.cfg.time_scale;
        if let Some(e) = self.periods.at_press(&tc, offender, press, &reading, scale) {
            self.emit(out, t, EventKind::ClockMismatch(e));
        }
    }

    /// The words an illegal-move ruling adds in a game with a period still to come: the
    /// clock counted the press (arbiter-rules.md section 5); empty otherwise.
    pub(super) fn counted_press_words(&self, offender: Color, base: &Position) -> String {
        let completed = player_moves(self.cfg.start.plies(), base.plies(), offender);
        match self.period_control() {
            Some(tc) if tc.moves_to_control(completed).is_some() => {
                explain::clock_counted_press(offender)
            }
            _ => String::new(),
        }
    }

    /// `flag`'s clock shows 0:00: true when it is the clock's fault, not a flag fall (he
    /// completed the period's moves and its time was never added, art. 6.10.2): no result,
    /// the alert said once. False: a flag fall as ever (art. 6.9), also whenever the count
    /// of moves may be wrong (lost events).
    pub(super) fn clock_fault_at_zero(
        &mut self,
        t: u64,
        flag: Color,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        let Some(tc) = self.period_control() else {
            return false;
        };
        if self.gap_open || self.desynced || self.held.is_some() {
            return false;
        }
        let plies = self.game.position().plies();
        let completed = player_moves(self.cfg.start.plies(), plies, flag);
        match self.periods.at_zero(&tc, flag, completed) {
            AtZero::Flag => false,
            AtZero::ClockFault(event) => {
                if let Some(e) = event {
                    self.emit_mismatch(t, e, out);
                }
                true
            }
        }
    }

    fn emit_mismatch(&self, t: u64, e: ClockMismatchEvent, out: &mut Vec<ArbiterEvent>) {
        self.emit(out, t, EventKind::ClockMismatch(e));
    }
}
