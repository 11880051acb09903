//! The delayed public view of a round: given every board's [`ArbiterEvent`]s with the
//! wall-clock time of the input that caused them, and the current time, which of them
//! the public may see now. Sans-IO: driven by values, no clock read, no files.
//!
//! The rules it owns (docs/deployment.md, "Broadcast"):
//! - Nothing public is ever ahead of `now - delay`: an event is released once
//!   `wall_ms + delay <= now`, a board's events strictly in their order (one not yet due
//!   holds back every later one of its board, so moves, comments and the result come out
//!   in order).
//! - A board off the air shows only its pairing: none of its events is released, except
//!   the end of the game (its result) when the policy shows results; the round-level
//!   "results only" switch puts every board off the air with results shown.
//! - Released means released for good: the view never takes an event back. After a
//!   restart, the events regenerated from the journal (same `seq`, same `wall_ms`) are
//!   released again by the same rule; [`DelayedView::restore_released`] tells the view
//!   how far each board was released before, so a wall clock that went back cannot
//!   withdraw anything.
//! - With no delay and every board on the air every event passes at once, whatever its
//!   time (the public outputs are then those of the live round, byte for byte).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use touch_tracker::{ArbiterEvent, EventKind};

/// Whether a board's games are published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Air {
    /// Published, with the delay.
    #[default]
    On,
    /// Recorded, never published: only its pairing and, when `results`, the result of
    /// a finished game (after the delay).
    Off { results: bool },
}

/// What the public may see.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    /// How long every public output lags the hall, ms.
    pub delay_ms: u64,
    /// The round publishes results only: every board is off the air, results shown.
    pub results_only: bool,
    /// Boards not listed are on the air.
    pub boards: BTreeMap<u32, Air>,
}

impl Policy {
    /// How board `number` is published.
    pub fn air(&self, number: u32) -> Air {
        if self.results_only {
            return Air::Off { results: true };
        }
        self.boards.get(&number).copied().unwrap_or_default()
    }

    /// Whether this policy lets everything through at once (no delay, all on the air).
    pub fn is_live(&self) -> bool {
        self.delay_ms == 0 && !self.results_only && self.boards.values().all(|a| *a == Air::On)
    }

    /// Whether an event of a board with this air may be shown at all.
    fn shows(air: Air, event: &ArbiterEvent) -> bool {
        match air {
            Air::On => true,
            Air::Off { results } => results && matches!(event.kind, EventKind::GameOver(_)),
        }
    }
}

/// An event waiting for its time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pending {
    seq: u64,
    wall_ms: u64,
    event: ArbiterEvent,
}

/// An event the public may see from now on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Released {
    pub board: u32,
    pub seq: u64,
    pub event: ArbiterEvent,
}

/// Per board: what waits, and how far it was released.
#[derive(Debug, Default)]
struct BoardQueue {
    pending: VecDeque<Pending>,
    /// The last `seq` released (shown or withheld for good).
    released: u64,
    /// Released before a restart: events up to here pass whatever the time.
    restored: u64,
}

/// See the crate documentation.
#[derive(Debug)]
pub struct DelayedView {
    policy: Policy,
    boards: BTreeMap<u32, BoardQueue>,
    /// Every board with an event waiting, by when its first one is due ([`Self::due`]):
    /// a release looks only at the boards due, not at every board, and the next due
    /// time is the first entry. Why: the daemon releases at every change of the hub, and
    /// at 1,000 boards walking them all each time was a few percent of its CPU.
    due: BTreeSet<(u64, u32)>,
    /// `policy.is_live()`, which does not change.
    live: bool,
    /// The latest time seen: time never goes back for the view.
    now_ms: u64,
}

impl DelayedView {
    pub fn new(policy: Policy) -> DelayedView {
        DelayedView {
            live: policy.is_live(),
            policy,
            boards: BTreeMap::new(),
            due: BTreeSet::new(),
            now_ms: 0,
        }
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Before a restart, board `board` was released up to `seq`: its regenerated events
    /// up to there are released at once.
    pub fn restore_released(&mut self, board: u32, seq: u64) {
        let q = self.boards.entry(board).or_default();
        let before = Self::due(&self.policy, self.live, q);
        q.restored = q.restored.max(seq);
        let after = Self::due(&self.policy, self.live, q);
        if before != after {
            if let Some(at) = before {
                self.due.remove(&(at, board));
            }
            if let Some(at) = after {
                self.due.insert((at, board));
            }
        }
    }

    /// When the first event waiting in `q` is due: at once (0) when the policy is live
    /// or it was released before a restart, else `delay` after its time.
    fn due(policy: &Policy, live: bool, q: &BoardQueue) -> Option<u64> {
        let p = q.pending.front()?;
        if p.seq <= q.restored || live {
            Some(0)
        } else {
            Some(p.wall_ms.saturating_add(policy.delay_ms))
        }
    }

    /// Adds a board's next event (in its order; an event at or below the board's last
    /// `seq` is a repeat and ignored).
    pub fn push(&mut self, board: u32, seq: u64, wall_ms: u64, event: ArbiterEvent) {
        let q = self.boards.entry(board).or_default();
        let last = q.pending.back().map_or(q.released, |p| p.seq);
        if seq <= last {
            return;
        }
        q.pending.push_back(Pending {
            seq,
            wall_ms,
            event,
        });
        if q.pending.len() == 1 {
            if let Some(at) = Self::due(&self.policy, self.live, q) {
                self.due.insert((at, board));
            }
        }
    }

    /// The events that become public at `now_ms` (Unix ms), each board's in their order
    /// (boards by when their first one fell due).
    /// Events withheld for good (a board off the air) are consumed without being
    /// returned.
    pub fn release(&mut self, now_ms: u64) -> Vec<Released> {
        self.now_ms = self.now_ms.max(now_ms);
        let now = self.now_ms;
        let live = self.live;
        let mut out = Vec::new();
        while let Some(&(at, board)) = self.due.first() {
            if at > now {
                break;
            }
            self.due.pop_first();
            let Some(q) = self.boards.get_mut(&board) else {
                continue;
            };
            let air = self.policy.air(board);
            while let Some(p) = q.pending.front() {
                let due = live
                    || p.seq <= q.restored
                    || p.wall_ms.saturating_add(self.policy.delay_ms) <= now;
                if !due {
                    break;
                }
                let Some(p) = q.pending.pop_front() else {
                    break;
                };
                q.released = p.seq;
                if Policy::shows(air, &p.event) {
                    out.push(Released {
                        board,
                        seq: p.seq,
                        event: p.event,
                    });
                }
            }
            if let Some(at) = Self::due(&self.policy, self.live, q) {
                self.due.insert((at, board));
            }
        }
        out
    }

    /// When (Unix ms) the next waiting event becomes public, if any waits.
    pub fn next_due(&self) -> Option<u64> {
        self.due.first().map(|&(at, _)| at)
    }

    /// The last `seq` of board `board` released so far.
    pub fn released_seq(&self, board: u32) -> u64 {
        self.boards.get(&board).map_or(0, |q| q.released)
    }

    /// Every board's last released `seq` (what to keep for [`DelayedView::restore_released`]).
    pub fn released(&self) -> BTreeMap<u32, u64> {
        self.boards.iter().map(|(b, q)| (*b, q.released)).collect()
    }

    /// How many events wait.
    pub fn waiting(&self) -> usize {
        self.boards.values().map(|q| q.pending.len()).sum()
    }
}

/// Reads a delay as the config writes it: `"15m"`, `"90s"`, `"1h"`, `"1500ms"`, `"0"`.
pub fn parse_delay(text: &str) -> Result<u64, DelayError> {
    let t = text.trim();
    if t == "0" {
        return Ok(0);
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| DelayError(text.to_owned()))?;
    let scale = match unit.trim() {
        "ms" => 1,
        "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => return Err(DelayError(text.to_owned())),
    };
    n.checked_mul(scale)
        .ok_or_else(|| DelayError(text.to_owned()))
}

/// A delay that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a delay; expected a whole number with a unit: \"15m\", \"90s\", \"1h\", \"500ms\" (or \"0\")")]
pub struct DelayError(pub String);

#[cfg(test)]
mod tests;
