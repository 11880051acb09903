//! Clock frames: a frame taken as a fact only on evidence (a press the board does not
//! explain, or a flag, held until the next frame or the board confirms it; noise dropped
//! and counted), a silent clock reported, and what a taken frame says: the press (the move
//! the board shows recorded, or the board waited for) and the flag.

use chess_rules::Color;
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{ClockSide, ClockTime};

use super::{How, PendingPress, Phase, Tracker, Waiting};
use crate::analysis::Purpose;
use crate::clock::{self, SideSource};
use crate::events::{ArbiterEvent, BoardStatus};

/// A clock frame awaiting confirmation; a ruling it leads to keeps its time `t`.
#[derive(Debug, Clone, Copy)]
pub(super) struct HeldClock {
    pub(super) t: u64,
    pub(super) frame: ClockTime,
    /// Taken as it is when no frame contradicted it by then.
    pub(super) deadline: u64,
}

/// How long a held clock frame waits for the next one. A running DGT3000 sends a frame at
/// least every second (and at once on every change, dgt-protocol.md §7), so one bad frame
/// among running ones is contradicted well within this; a clock that went quiet (a real
/// flag blocks it) contradicts nothing, and the frame stands.
const CLOCK_CONFIRM_MS: u64 = 1500;

/// A running clock that sent no frame for this long while the board still talks is
/// reported to the arbiter (a cable, a dead clock): no ruling can rest on its times.
/// Noticed at the board's next input, so that replay and live agree with no timer.
const CLOCK_SILENT_MS: u64 = 30_000;

impl Tracker {
    /// Clock facts need evidence (FIDE Laws 6.9 flag, 6.2 press; the protocol has no
    /// checksum). A self-contradictory frame is noise. A flag, or a press the board does
    /// not explain yet (no move of the presser's on it), is held until the next frame
    /// agrees, the board shows the presser's move, or `CLOCK_CONFIRM_MS` passes without a
    /// frame; a next frame that disagrees makes it noise, logged and counted, never a
    /// ruling. A taken frame keeps its own time, so replay and live agree.
    pub(super) fn on_clock(&mut self, t: u64, c: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        if clock::self_contradictory(c) {
            self.clock_noise(t, "clock frame contradicts itself (flag bit off 0:00)");
            return;
        }
        if matches!(self.phase, Phase::Playing) && self.needs_confirmation(t, c) {
            self.held_clock = Some(HeldClock {
                t,
                frame: *c,
                deadline: t + CLOCK_CONFIRM_MS,
            });
            return;
        }
        self.take_clock(t, c, out);
    }

    /// The board talks and a running clock has said nothing for `CLOCK_SILENT_MS`: said
    /// once, as the clock's status (an alert for the arbiter; no ruling).
    pub(super) fn note_clock_silence(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Some(heard) = self.clock_heard_at else {
            return;
        };
        if self.line_down || t < heard + CLOCK_SILENT_MS {
            return;
        }
        self.clock_heard_at = None;
        self.clock_silent_reported = true;
        let detail = "no frame from the running clock for 30 s: check the clock (no ruling)";
        self.status(out, t, BoardStatus::ClockDisconnected, Some(detail.into()));
    }

    /// A frame came: a silence reported is over; a running clock is expected to talk on.
    pub(super) fn hear_clock(&mut self, t: u64, c: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        if std::mem::take(&mut self.clock_silent_reported) {
            let detail = "the clock sends frames again";
            self.status(out, t, BoardStatus::ClockConnected, Some(detail.into()));
        }
        self.clock_heard_at = (c.running && !c.no_clock).then_some(t);
    }

    /// The side whose press a held frame shows.
    pub(super) fn held_press(&self) -> Option<ClockSide> {
        let held = self.held_clock.as_ref()?;
        self.clock.change_to(&held.frame).press
    }

    /// The next frame confirms a held one (it is taken, at its own time) or contradicts it
    /// (noise). A self-contradictory frame says nothing.
    pub(super) fn resolve_held_clock(&mut self, next: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        if self.held_clock.is_none() || clock::self_contradictory(next) {
            return;
        }
        let Some(held) = self.held_clock.take() else {
            return;
        };
        if clock::confirms(&held.frame, next) {
            self.take_clock(held.t, &held.frame, out);
        } else {
            self.clock_noise(held.t, "clock frame contradicted by the next one");
        }
    }

    /// Whether a frame shows a flag the clock's last frame did not lead to, or a press the
    /// board does not explain: the presser has no move on it (nor did the mover make one,
    /// for a press that completes the reply).
    pub(super) fn needs_confirmation(&self, t: u64, c: &ClockTime) -> bool {
        let change = self.clock.change_to(c);
        let unexpected_flag = change.flag.is_some_and(|side| {
            let last = self.clock.last();
            let elapsed = t.saturating_sub(self.clock_taken_at);
            last.and_then(clock::flag_side) != Some(side)
                && !last.is_some_and(|l| clock::could_run_out(l, side, elapsed))
        });
        unexpected_flag
            || change
                .press
                .is_some_and(|side| !self.board_explains_press(side))
    }

    pub(super) fn board_explains_press(&self, side: ClockSide) -> bool {
        if self.desynced {
            return false;
        }
        self.made.is_some()
            || (self.clock.color_of(side) == self.game.position().side_to_move()
                && self.current_candidate().is_some())
    }

    /// A held press is confirmed once the board shows the presser's move (a press can
    /// reach us before the last piece's place does). The move is recorded now, with the
    /// clock's times at the press, as a press waiting for the board always was.
    pub(super) fn confirm_held_press_by_board(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Some(held) = self.held_clock else {
            return;
        };
        let change = self.clock.change_to(&held.frame);
        if change.flag.is_none()
            && change
                .press
                .is_some_and(|side| self.board_explains_press(side))
        {
            self.held_clock = None;
            self.take_clock(t, &held.frame, out);
        }
    }

    pub(super) fn clock_noise(&mut self, t: u64, what: &'static str) {
        self.clock_noise += 1;
        tracing::warn!(
            board = %self.cfg.board,
            ply = self.game.position().plies(),
            t_ms = t,
            noise = self.clock_noise,
            "{what}: ignored as noise"
        );
    }

    /// Clock frames dropped as noise so far.
    pub fn clock_noise_frames(&self) -> u32 {
        self.clock_noise
    }

    /// Takes a clock frame as a fact.
    pub(super) fn take_clock(&mut self, t: u64, c: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        let prev_at = self.clock_taken_at;
        let prev = self.clock.last().copied();
        self.clock_taken_at = t;
        if self.time_control.is_none() && self.clock.last().is_none() {
            // Unknown time control: the first reading stands for the base time.
            let secs = c.left.time.secs().max(c.right.time.secs());
            if secs > 0 {
                self.time_control = Some(TimeControl::sudden_death(secs, 0));
            }
        }
        let before_gap = match self.clock.last() {
            None => self.clock_before_gap.take(),
            Some(_) => None,
        };
        let change = self.clock.on_frame(c);
        if let Some(tc) = self.period_control() {
            self.read_periods(tc, prev, prev_at, t, c, change.press);
        }
        if let Some((prev, to_move)) = before_gap {
            if prev.running && c.running && self.clock.color_of(prev.lever) == to_move {
                self.running_after_gap = Some(self.clock.color_of(c.lever));
            }
        }
        if let Some(side) = change.started {
            if self.game.moves().is_empty() && matches!(self.phase, Phase::Playing) {
                let white = match self.game.position().side_to_move() {
                    Color::White => side,
                    Color::Black => side.other(),
                };
                if self.clock.learn(white, SideSource::ClockStart) {
                    self.white_clock_status(t, out);
                }
            }
        }
        if let Some(side) = change.press {
            self.on_press(t, side, out);
        }
        self.complete_blind_press(t, out);
        if let Some(side) = change.flag {
            self.on_flag(t, side, out);
        }
    }

    pub(super) fn white_clock_status(&self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let side = self.clock.white_side();
        self.status(out, t, BoardStatus::WhiteClock, Some(side.name().into()));
    }

    pub(super) fn on_press(&mut self, t: u64, side: ClockSide, out: &mut Vec<ArbiterEvent>) {
        if !matches!(self.phase, Phase::Playing) {
            return;
        }
        if !self.line_down {
            // A press seen: the lost moves are recorded first, the press then completes
            // the move the board shows (no guess from the clock is needed).
            self.running_after_gap = None;
            self.settle_recovery(t, true, out);
            if !matches!(self.phase, Phase::Playing) {
                return;
            }
        }
        let mover = self.game.position().side_to_move();
        if self.current_candidate().is_some() {
            // A legal move on the board names the presser, while that is not yet known.
            if self.clock.source() < SideSource::Press {
                let white = match mover {
                    Color::White => side,
                    Color::Black => side.other(),
                };
                if self.clock.learn(white, SideSource::Press) {
                    self.white_clock_status(t, out);
                }
            }
        }
        let presser = self.clock.color_of(side);
        let clock = self.clock.times();
        if self.pending_press.is_some() {
            // The lever moves again before the board showed what the last press was for.
            self.rule_press(t, out);
            if !matches!(self.phase, Phase::Playing) {
                return;
            }
        }
        let mover = self.game.position().side_to_move();
        if self.desynced {
            // Out of sync: the press is kept for the deep search when its settle window
            // has passed (`rule_press`), whoever pressed; never ruled.
            self.pending_press = Some(PendingPress {
                deadline: t + self.cfg.settle_window_ms,
                at: t,
                clock,
                presser,
            });
            return;
        }
        if presser == mover {
            if let Some(m) = self.current_candidate() {
                self.record_pressed(t, m, clock, out);
                return;
            }
        } else {
            // The mover made his move without pressing (the clock runs a move ahead): a
            // press by his opponent completes the reply, when there is one.
            let Some(made) = self.made else {
                // Nothing made: a press by the player not to move is not ruled.
                return;
            };
            if let Some((reply, after)) = made.after.move_to_placement(&self.placement) {
                self.commit_replied(t, made, How::default(), out);
                if matches!(self.phase, Phase::Playing) {
                    self.set_made(t, reply, after);
                    if let Some(m) = self.current_candidate() {
                        self.record_pressed(t, m, clock, out);
                    }
                }
                return;
            }
        }
        self.pending_press = Some(PendingPress {
            deadline: t + self.cfg.settle_window_ms,
            at: t,
            clock,
            presser,
        });
    }

    /// Art. 6.9: a flag fell: the player loses, unless his opponent cannot mate by any
    /// series of legal moves (asked of the analysis; see `loss_unless_no_mate`).
    pub(super) fn on_flag(&mut self, t: u64, side: ClockSide, out: &mut Vec<ArbiterEvent>) {
        if self.pending_press.is_some() {
            self.rule_press(t, out);
        }
        if matches!(self.phase, Phase::Over) {
            return;
        }
        let flag = self.clock.color_of(side);
        if self.clock_fault_at_zero(t, flag, out) {
            // Art. 6.10.2: the period's time was never added; 0:00 is no flag fall.
            return;
        }
        let position = *self.game.position();
        self.phase = Phase::Over;
        self.clear_pending();
        let generation = self.generation;
        self.request(
            position,
            flag.opponent(),
            Purpose::FlagFall,
            Waiting::Flag {
                t_ms: t,
                flag,
                generation,
            },
        );
    }
}
