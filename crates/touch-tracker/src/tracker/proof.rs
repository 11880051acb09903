//! What proves a line rebuilt after a gap (issue 36: a gap is explained or asked, never
//! invented). A board shows squares, not history: several lines can leave the same
//! squares (moves that commute, a piece's two routes), and a line with a wasted tempo
//! (a piece out and back) leaves the squares of a shorter one. The searches find the
//! shortest lines; what they cannot see, the clock can count: every press adds the
//! increment to the presser's time, and the clock ran for one player or the other all
//! along, so the time both clocks lost is the time passed less one increment a press.
//!
//! A line is recorded only when it is the one line found of its length and
//! - it is short (at most [`recover::MAX_PLIES`], the cheap search's reach: the shortest
//!   line is taken as what happened, as before issue 36; a gap of one or two plies has
//!   one line of its parity, a wasted tempo needs at least four plies more), or made of
//!   such stretches between placements the board showed (a line seen in passing, then
//!   continued), or
//! - the clock's presses since the last known position prove its length: that many
//!   presses fit the clock's times and no line two plies longer does.
//!
//! Otherwise the board goes out of sync with the lines found as candidates, and the
//! arbiter picks or types the moves. Pure logic: the tracker hands in the frames.

use crate::events::{ClockMs, GapCandidate};
use crate::recover;

/// A clock frame seen while the game was known: the last position recorded (`ply`), the
/// clock running for its side to move, nothing pending. Presses are counted from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ClockMark {
    pub t_ms: u64,
    pub times: ClockMs,
    pub ply: u32,
}

/// What the tracker keeps for judging gaps.
#[derive(Debug, Clone, Default)]
pub(super) struct GapEvidence {
    /// The last clock frame seen while the game was known (see [`ClockMark`]).
    pub mark: Option<ClockMark>,
    /// When the last clock frame came.
    pub last_frame_ms: u64,
    /// The candidates last shown to the arbiter: shown again only when they change.
    pub shown: Vec<GapCandidate>,
}

/// How far one side's time read off the clock can be from the time it had: the clock
/// shows whole seconds, so a side's fall between two readings is known to within a
/// second either way, and both sides' to within two.
const READINGS_MS: f64 = 2_000.0;

/// How late a frame can reach the tracker after the clock showed it (wall ms, each of the
/// two frames): a serial line delivers a frame within milliseconds; this leaves room for
/// a loaded machine.
const ARRIVAL_MS: f64 = 100.0;

/// The presses made between `mark` and a frame at `t_ms` showing `times`, the clock
/// running at both, as the range the readings allow (`lo..=hi`). `None` without an
/// increment (presses then leave no trace in the times), or when the times cannot come
/// from a clock that ran all along (it was paused or set: more time lost than passed).
/// `time_scale` turns wall time into the clock's (an emulated hall runs faster).
pub(super) fn presses_since(
    mark: &ClockMark,
    t_ms: u64,
    times: ClockMs,
    increment_ms: u64,
    time_scale: f64,
) -> Option<(u32, u32)> {
    // A scale that is not a positive number (NaN included) measures nothing.
    if increment_ms == 0
        || t_ms < mark.t_ms
        || time_scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
    {
        return None;
    }
    let passed = (t_ms - mark.t_ms) as f64 * time_scale;
    let before = (mark.times.white + mark.times.black) as f64;
    let after = (times.white + times.black) as f64;
    // Time lost by both clocks = time passed - presses x increment.
    let added = passed - (before - after);
    let error = READINGS_MS + 2.0 * ARRIVAL_MS * time_scale;
    let inc = increment_ms as f64;
    let hi = ((added + error) / inc).floor();
    if hi < 0.0 {
        return None;
    }
    let lo = ((added - error) / inc).ceil().max(0.0);
    Some((lo as u32, hi as u32))
}

/// Why a line found is not recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unproven {
    /// Other lines of the same length explain the board as well.
    Several,
    /// Longer than the cheap search's reach, and the clock does not prove its length
    /// (`presses`: the range the clock allows, when it counts at all).
    Unconfirmed { presses: Option<(u32, u32)> },
}

impl Unproven {
    /// Words for the arbiter's out-of-sync detail.
    pub fn words(&self, plies: usize) -> String {
        match self {
            Unproven::Several => format!(
                "several lines of {plies} plies explain it and the board cannot tell which \
                 was played"
            ),
            Unproven::Unconfirmed { presses: None } => format!(
                "a line of {plies} plies explains it, but a longer line (a piece moved out \
                 and back) would too, and the clock cannot count the presses"
            ),
            Unproven::Unconfirmed {
                presses: Some((lo, hi)),
            } => format!(
                "a line of {plies} plies explains it, but the clock's times allow {lo} to \
                 {hi} presses, so a longer line (a piece moved out and back) may have been \
                 played"
            ),
        }
    }
}

/// Whether `found` may be recorded: see the module documentation. `unseen`: the most
/// plies of the line made without the board being seen in between; `presses`: the
/// presses the clock allows since the last known position, up to the press that
/// completes the line's last move (`None`: the clock does not count them).
pub(super) fn judge(
    found: &recover::LostMoves,
    unseen: usize,
    presses: Option<(u32, u32)>,
) -> Result<(), Unproven> {
    if !found.others.is_empty() {
        return Err(Unproven::Several);
    }
    length_proven(found.line.len(), unseen, presses)
}

/// Whether a line of `plies` is of a proven length: short (each stretch of at most
/// [`recover::MAX_PLIES`] unseen), or counted by the clock's presses (see [`judge`]).
pub(super) fn length_proven(
    plies: usize,
    unseen: usize,
    presses: Option<(u32, u32)>,
) -> Result<(), Unproven> {
    let plies = plies as u32;
    if unseen <= recover::MAX_PLIES {
        return Ok(());
    }
    match presses {
        Some((lo, hi)) if (lo..=hi).contains(&plies) && hi < plies + 2 => Ok(()),
        presses => Err(Unproven::Unconfirmed { presses }),
    }
}

/// The ply count the clock proves for a position `side_parity` gives (the ply's parity:
/// 0 White to move, 1 Black), at least `fewest` plies after `base_ply`: the one count in
/// the clock's range of that parity.
pub(super) fn proven_ply(
    base_ply: u32,
    fewest: u32,
    presses: Option<(u32, u32)>,
    side_parity: u32,
) -> Option<u32> {
    let (lo, hi) = presses?;
    let mut fits = (lo.max(fewest)..=hi).filter(|n| (base_ply + n) % 2 == side_parity);
    let n = fits.next()?;
    fits.next().is_none().then_some(base_ply + n)
}

/// The lines of `found` as candidates for the arbiter, from `base`.
pub(super) fn candidates(
    base: &chess_rules::Position,
    found: &recover::LostMoves,
) -> Vec<GapCandidate> {
    std::iter::once(&found.line)
        .chain(&found.others)
        .map(|line| GapCandidate {
            ply: base.plies() + 1,
            uci: line.clone(),
            san: recover::san_line(base, line),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_rules::Move;

    fn mark(white: u64, black: u64) -> ClockMark {
        ClockMark {
            t_ms: 10_000,
            times: ClockMs { white, black },
            ply: 6,
        }
    }

    #[test]
    fn the_clock_counts_the_presses_within_its_whole_seconds() {
        // Six presses at 2 s each in 30 s: the clocks lost 30 - 12 = 18 s between them.
        let m = mark(170_000, 175_000);
        let now = ClockMs {
            white: 160_000,
            black: 167_000,
        };
        let got = presses_since(&m, 40_000, now, 2_000, 1.0).unwrap();
        assert!(got.0 <= 6 && 6 <= got.1, "{got:?}");
        assert!(got.1 < 8 && got.0 > 4, "{got:?}");
        // No increment: presses leave no trace.
        assert_eq!(presses_since(&m, 40_000, now, 0, 1.0), None);
        // More time lost than passed: paused or set, no count.
        let set = ClockMs {
            white: 100_000,
            black: 100_000,
        };
        assert_eq!(presses_since(&m, 40_000, set, 2_000, 1.0), None);
        // An emulated hall three times as fast: 10 s of wall time are 30 s of the clock's.
        assert_eq!(
            presses_since(&m, 20_000, now, 2_000, 3.0).map(|(lo, hi)| lo <= 6 && 6 <= hi),
            Some(true)
        );
    }

    fn line(n: usize) -> Vec<Move> {
        vec!["e2e4".parse().unwrap(); n]
    }

    #[test]
    fn a_line_is_recorded_only_alone_and_short_or_counted() {
        let alone = |n| recover::LostMoves {
            line: line(n),
            others: Vec::new(),
        };
        let several = recover::LostMoves {
            line: line(3),
            others: vec![line(3)],
        };
        assert_eq!(judge(&several, 3, Some((3, 3))), Err(Unproven::Several));
        assert_eq!(judge(&alone(3), 3, None), Ok(()));
        assert_eq!(judge(&alone(6), 6, Some((5, 7))), Ok(()));
        assert!(judge(&alone(6), 6, None).is_err());
        // Eight presses fit too: a wasted tempo is not excluded.
        assert!(judge(&alone(6), 6, Some((5, 8))).is_err());
        assert!(judge(&alone(6), 6, Some((8, 9))).is_err());
        // Six plies seen in passing after three: two short stretches.
        assert_eq!(judge(&alone(6), 3, None), Ok(()));
    }

    #[test]
    fn the_accepted_ply_is_the_one_count_of_its_parity_the_clock_allows() {
        assert_eq!(proven_ply(6, 4, Some((11, 13)), 0), Some(18));
        assert_eq!(proven_ply(6, 4, Some((10, 13)), 0), None);
        assert_eq!(proven_ply(6, 4, Some((10, 13)), 1), None);
        assert_eq!(proven_ply(6, 4, Some((11, 12)), 1), Some(17));
        assert_eq!(proven_ply(6, 14, Some((11, 13)), 0), None);
        assert_eq!(proven_ply(6, 4, None, 0), None);
    }
}
