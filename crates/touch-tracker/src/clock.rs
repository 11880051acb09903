//! Reading the clock: presses (the lever flipping while the clock runs), the clock
//! starting, flag falls, and which side of the clock is White's (configured, or inferred
//! from the board's orientation, the side that runs when the game starts, and the press
//! that completes White's first move).
//!
//! # What evidence each clock fact needs (issue 36)
//!
//! A BWTIME frame has no checksum (dgt-protocol.md §2, §4.4): one frame can be serial
//! noise, and a ruling (a lost game, a minute to the opponent) is never made on one
//! frame the next contradicts. The tracker (`Tracker::on_clock`) takes a frame as a fact
//! only with this evidence:
//!
//! - **Flag** (FIDE 6.9): the flag bit (fallen or shown) on a side at 0:00 (§4.4: bit 4
//!   means "blocked at 0:00"; a flag bit beside a time left is self-contradictory, noise).
//!   Confirmed by the next frame showing the same flag (a real flag stays in every frame
//!   after), or by the clock's own history (the side ran at 0:01 a second before, so it
//!   could run out: a real flag arrives so in the captures, the clock then blocked and
//!   silent), or by no contradicting frame within `CLOCK_CONFIRM_MS` (a blocked clock may
//!   send nothing more; a running one sends a frame at least every second, §7).
//! - **Press** (6.2, the lever flipping while the clock runs, §7): taken at once when the
//!   board explains it (the presser's move is on it, or the mover made one and the
//!   opponent presses for the reply). Otherwise held until the board shows the presser's
//!   move (a press can reach us before the last scan), the next frame keeps the lever
//!   where it went (a real press leaves it there), or `CLOCK_CONFIRM_MS` passes without a
//!   frame. A next frame with the lever back is noise: no press, no `clock_without_move`.
//! - **Start** (stopped to running) and the **running side**: no ruling rests on them
//!   alone; read from each frame taken, never from a held one (a held frame changes
//!   nothing until it is taken).
//! - **Silence**: a running clock sends a frame at least every second; none for 30 s while
//!   the board talks is said to the arbiter (`clock_disconnected`), no ruling.
//!
//! A held frame is taken at its own time, so rulings keep the press's or the flag's time
//! (replay and live agree); frames dropped as noise are logged and counted
//! (`Tracker::clock_noise_frames`).

use chess_rules::Color;
use dgt_protocol::{ClockSide, ClockTime, Orientation};

use crate::events::ClockMs;

/// How sure we are which side is White's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SideSource {
    /// Nothing known: White on the left (a normally oriented board).
    Default,
    /// From the board's orientation (White on the left on a normal board).
    Orientation,
    /// The side that ran when the clock started with White to move.
    ClockStart,
    /// The side that went down at the press completing a legal move of White's or Black's.
    Press,
    /// Configuration or capture header: never changed.
    Config,
}

/// What one clock frame says that matters to the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ClockChange {
    /// The side whose lever went down while the clock ran: that player pressed.
    pub press: Option<ClockSide>,
    /// The clock went from stopped to running; the side that runs.
    pub started: Option<ClockSide>,
    /// A side whose flag shows (fallen, or 0:00:00 with the flag shown).
    pub flag: Option<ClockSide>,
}

/// The clock as far as the tracker follows it.
#[derive(Debug, Clone)]
pub(crate) struct ClockWatch {
    last: Option<ClockTime>,
    white_side: ClockSide,
    source: SideSource,
}

impl ClockWatch {
    pub fn new(configured: Option<ClockSide>) -> ClockWatch {
        match configured {
            Some(side) => ClockWatch {
                last: None,
                white_side: side,
                source: SideSource::Config,
            },
            None => ClockWatch {
                last: None,
                white_side: ClockSide::Left,
                source: SideSource::Default,
            },
        }
    }

    /// The last frame seen (since the last reset).
    pub fn last(&self) -> Option<&ClockTime> {
        self.last.as_ref()
    }

    pub fn white_side(&self) -> ClockSide {
        self.white_side
    }

    /// The clock side of a colour.
    pub fn side_of(&self, color: Color) -> ClockSide {
        match color {
            Color::White => self.white_side,
            Color::Black => self.white_side.other(),
        }
    }

    /// The colour of a clock side.
    pub fn color_of(&self, side: ClockSide) -> Color {
        if side == self.white_side {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Both times of the last frame, by colour.
    pub fn times(&self) -> Option<ClockMs> {
        let t = self.last.as_ref()?;
        Some(ClockMs {
            white: t.millis(self.side_of(Color::White)),
            black: t.millis(self.side_of(Color::Black)),
        })
    }

    /// Forget the last frame (after a disconnect: a lever that moved meanwhile is not a
    /// press now).
    pub fn reset(&mut self) {
        self.last = None;
    }

    /// Learn White's side from evidence of a given strength; returns true when it changed.
    pub fn learn(&mut self, white_side: ClockSide, source: SideSource) -> bool {
        if source < self.source || self.source == SideSource::Config {
            return false;
        }
        if source == self.source && source == SideSource::Press {
            // The first press decides; later presses do not flip it back and forth.
            return false;
        }
        let changed = self.white_side != white_side;
        self.white_side = white_side;
        self.source = source;
        changed
    }

    /// Learn White's side from the board's orientation.
    pub fn learn_orientation(&mut self, o: Orientation) -> bool {
        let side = match o {
            Orientation::Normal => ClockSide::Left,
            Orientation::Rotated => ClockSide::Right,
        };
        self.learn(side, SideSource::Orientation)
    }

    pub fn source(&self) -> SideSource {
        self.source
    }

    /// Takes a frame and says what changed.
    pub fn on_frame(&mut self, t: &ClockTime) -> ClockChange {
        let change = self.change_to(t);
        self.last = Some(*t);
        change
    }

    /// What a frame would change, without taking it (a frame held for confirmation).
    pub fn change_to(&self, t: &ClockTime) -> ClockChange {
        let mut change = ClockChange::default();
        if let Some(prev) = &self.last {
            if prev.running && t.running && prev.lever != t.lever {
                change.press = Some(prev.lever);
            }
            if !prev.running && t.running {
                change.started = Some(t.lever);
            }
        }
        change.flag = flag_side(t);
        change
    }
}

/// The side whose flag a frame shows: its flag bit (fallen, or shown) with its time at
/// 0:00. A DGT3000 blocks a fallen side at 0:00 (dgt-protocol.md §4.4, bit 4).
pub(crate) fn flag_side(t: &ClockTime) -> Option<ClockSide> {
    [ClockSide::Left, ClockSide::Right].into_iter().find(|&s| {
        let side = t.side(s);
        (side.flag_fallen || side.flag_shown) && side.time.secs() == 0
    })
}

/// A frame that contradicts itself: a "flag fell" bit on a side whose time is not 0:00
/// (§4.4: that bit means the clock is blocked at 0:00). Serial noise, not a clock.
pub(crate) fn self_contradictory(t: &ClockTime) -> bool {
    [t.left, t.right]
        .iter()
        .any(|side| side.flag_fallen && side.time.secs() != 0)
}

/// Whether `side`, running in frame `last`, could have run out `elapsed_ms` later: a
/// display shows whole seconds rounded up, so "0:01" is at most 1000 ms. A flag that
/// follows such a run-down is the clock's own evidence (a real flag comes so, in one
/// frame, the clock then blocked and silent: the johan capture).
pub(crate) fn could_run_out(last: &ClockTime, side: ClockSide, elapsed_ms: u64) -> bool {
    last.running
        && last.lever == side
        && u64::from(last.side(side).time.secs()) * 1000 <= elapsed_ms + 1000
}

/// Whether `next` agrees with a `held` frame that showed a press or a flag: a real press
/// leaves the lever where it went in every frame after, a real flag stays (§4.4, §7).
pub(crate) fn confirms(held: &ClockTime, next: &ClockTime) -> bool {
    let flag = flag_side(held);
    next.lever == held.lever && (flag.is_none() || flag_side(next) == flag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_protocol::{Hms, SideTime};

    fn frame(left: u32, right: u32, running: bool, lever: ClockSide) -> ClockTime {
        let side = |s| SideTime {
            time: Hms::from_secs(s).unwrap(),
            ..SideTime::default()
        };
        ClockTime {
            left: side(left),
            right: side(right),
            running,
            lever,
            ..ClockTime::default()
        }
    }

    #[test]
    fn presses_only_while_running() {
        use ClockSide::*;
        let mut w = ClockWatch::new(None);
        assert_eq!(
            w.on_frame(&frame(300, 300, false, Right)),
            ClockChange::default()
        );
        // The start press: stopped to running is a start, not a press.
        let c = w.on_frame(&frame(300, 300, true, Left));
        assert_eq!((c.press, c.started), (None, Some(Left)));
        // White (left) presses: the lever goes to the right.
        let c = w.on_frame(&frame(295, 300, true, Right));
        assert_eq!(c.press, Some(Left));
        // The arbiter stops the clock and turns the lever: no press.
        assert_eq!(w.on_frame(&frame(295, 290, false, Right)).press, None);
        assert_eq!(w.on_frame(&frame(295, 290, false, Left)).press, None);
        assert_eq!(w.on_frame(&frame(295, 290, true, Left)).started, Some(Left));
        assert_eq!(
            w.times(),
            Some(ClockMs {
                white: 295_000,
                black: 290_000
            })
        );
        // After a reset the next frame only sets the reference.
        w.reset();
        assert_eq!(w.on_frame(&frame(290, 290, true, Right)).press, None);
    }

    #[test]
    fn flags_and_sides() {
        let mut w = ClockWatch::new(None);
        let mut f = frame(0, 10, false, ClockSide::Left);
        f.left.flag_fallen = true;
        assert_eq!(w.on_frame(&f).flag, Some(ClockSide::Left));
        let mut g = frame(0, 10, true, ClockSide::Left);
        g.left.flag_shown = true;
        assert_eq!(w.on_frame(&g).flag, Some(ClockSide::Left));
        g.left.time = Hms::from_secs(1).unwrap();
        assert_eq!(w.on_frame(&g).flag, None);
        // Evidence of growing strength moves White's side; weaker evidence does not.
        assert!(w.learn_orientation(Orientation::Rotated));
        assert_eq!(w.color_of(ClockSide::Right), Color::White);
        assert!(w.learn(ClockSide::Left, SideSource::ClockStart));
        assert!(!w.learn_orientation(Orientation::Rotated));
        assert!(w.learn(ClockSide::Right, SideSource::Press));
        assert!(!w.learn(ClockSide::Left, SideSource::Press));
        let mut fixed = ClockWatch::new(Some(ClockSide::Right));
        assert!(!fixed.learn(ClockSide::Left, SideSource::Press));
        assert_eq!(fixed.side_of(Color::Black), ClockSide::Left);
    }
}
