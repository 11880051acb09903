//! [`SyncTracker`]: a [`Tracker`] whose analysis requests are answered at once, on the
//! caller's thread (replays and tests; the daemon answers on a blocking pool instead), by
//! an [`Analyst`], which tries the mating lines it found before searching again.

use dgt_protocol::TimedEvent;

use crate::analysis::Analyst;
use crate::config::TrackerConfig;
use crate::events::ArbiterEvent;
use crate::tracker::Tracker;

/// A tracker that answers its own analysis requests synchronously.
#[derive(Debug, Clone)]
pub struct SyncTracker {
    tracker: Tracker,
    analyst: Analyst,
}

impl SyncTracker {
    pub fn new(cfg: TrackerConfig) -> SyncTracker {
        SyncTracker {
            tracker: Tracker::new(cfg),
            analyst: Analyst::new(),
        }
    }

    /// The tracker inside.
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// Takes one board event (and answers what it asks).
    pub fn handle(&mut self, ev: &TimedEvent, out: &mut Vec<ArbiterEvent>) {
        self.tracker.handle(ev, out);
        self.answer_all(out);
    }

    /// See [`Tracker::poll_timeout`].
    pub fn poll_timeout(&self) -> Option<u64> {
        self.tracker.poll_timeout()
    }

    /// See [`Tracker::handle_timeout`].
    pub fn handle_timeout(&mut self, now_ms: u64, out: &mut Vec<ArbiterEvent>) {
        self.tracker.handle_timeout(now_ms, out);
        self.answer_all(out);
    }

    /// See [`Tracker::finish`].
    pub fn finish(&mut self, t_ms: u64, out: &mut Vec<ArbiterEvent>) {
        self.tracker.finish(t_ms, out);
        self.answer_all(out);
    }

    /// See [`Tracker::accept_board`].
    pub fn accept_board(
        &mut self,
        t_ms: u64,
        side: chess_rules::Color,
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), crate::AcceptError> {
        self.accept_board_at(t_ms, side, None, out)
    }

    /// See [`Tracker::accept_board_at`].
    pub fn accept_board_at(
        &mut self,
        t_ms: u64,
        side: chess_rules::Color,
        ply: Option<u32>,
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), crate::AcceptError> {
        let r = self.tracker.accept_board_at(t_ms, side, ply, out);
        self.answer_all(out);
        r
    }

    /// See [`Tracker::enter_moves`].
    pub fn enter_moves(
        &mut self,
        t_ms: u64,
        from_ply: Option<u32>,
        moves: &[String],
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), crate::FillError> {
        let r = self.tracker.enter_moves(t_ms, from_ply, moves, out);
        self.answer_all(out);
        r
    }

    /// See [`Tracker::take_back`].
    pub fn take_back(
        &mut self,
        t_ms: u64,
        to_ply: u32,
        reason: &str,
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), crate::TakebackError> {
        let r = self.tracker.take_back(t_ms, to_ply, reason, out);
        self.answer_all(out);
        r
    }

    /// See [`Tracker::hold_for_arbiter`].
    pub fn hold_for_arbiter(
        &mut self,
        t_ms: u64,
        why: &str,
        known: crate::KnownGame,
        out: &mut Vec<ArbiterEvent>,
    ) {
        self.tracker.hold_for_arbiter(t_ms, why, known, out);
    }

    fn answer_all(&mut self, out: &mut Vec<ArbiterEvent>) {
        while let Some(req) = self.tracker.poll_analysis() {
            let answer = self.analyst.answer(&req);
            self.tracker.analysis_done(req.id, answer, out);
        }
    }
}
