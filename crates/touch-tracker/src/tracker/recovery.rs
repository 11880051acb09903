//! Gaps and sync: lost moves found after a gap, recorded once the board has shown them for
//! the settle window (or a press comes) and proven; a move completed by a press unseen in a
//! gap; the board going out of sync (what no line explains) and back in.

use chess_rules::{Move, Position};

use super::{deep, proof, Change, How, PendingPress, PendingRecovery, Phase, Tracker};
use crate::events::{ArbiterEvent, BoardStatus};
use crate::recover;

impl Tracker {
    /// The lines of lost moves from `base` (the last known position) that explain what the
    /// board shows: those found before when the board still shows the same (`same`),
    /// else the cheap search's, else the lines found before continued by later moves.
    #[inline]
    pub(super) fn lost_lines(&self, base: &Position, same: bool) -> Option<recover::LostMoves> {
        match self.pending_recovery.as_ref() {
            Some(p) if same => Some(p.found.clone()),
            pending => (self.base_diff <= 4 * recover::MAX_PLIES)
                .then(|| {
                    recover::lost_moves(
                        base,
                        &self.placement,
                        recover::MAX_PLIES,
                        self.made.map(|m| m.mv),
                    )
                })
                .flatten()
                .or_else(|| pending.and_then(|p| recover::extend(base, &p.found, &self.placement))),
        }
    }

    /// Lost moves `found` explain the board: kept until the board has shown them for the
    /// settle window (or a press forces them), then recorded when proven, else shown to the
    /// arbiter (and followed on when every line leads to the board's position). True when
    /// the board is explained (recorded, waiting, or followed).
    #[inline]
    pub(super) fn take_lost_lines(
        &mut self,
        t: u64,
        base: &Position,
        found: recover::LostMoves,
        same: bool,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        let settled = same
            && self
                .pending_recovery
                .as_ref()
                .is_some_and(|p| t >= p.since + self.cfg.settle_window_ms);
        if !settled && !self.recovery_forced {
            // Record it when the board has shown this for the settle window.
            if !same {
                self.pending_recovery = Some(PendingRecovery {
                    placement: self.placement,
                    since: t,
                    found,
                });
            }
            return true;
        }
        self.pending_recovery = None;
        // Each stretch of the line is within the cheap search's reach, between
        // placements the board showed: proven when it is the only line.
        if let Err(why) = proof::judge(&found, recover::MAX_PLIES, None) {
            // Not proven: the arbiter is asked, nothing is recorded (issue 36).
            self.ask_arbiter(t, base, &found, &why, out);
            // Each stretch is short (proven length): the position every line
            // leads to is followed now. The last mover may still press: a press
            // by the player not to move, with no move made, is never ruled
            // (`on_press`, `rule_press`).
            return why == proof::Unproven::Several && self.follow_unordered(t, base, &found, out);
        }
        self.in_sync(t, out);
        // A press pending from before the loss completed the first lost move, if
        // its player pressed.
        let press = self
            .pending_press
            .take()
            .filter(|p| p.presser == base.side_to_move());
        let last = self.record_lost_lines(t, base, found, press, out);
        if let Some(m) = last {
            if let Ok(after) = self.game.position().play(m) {
                self.set_made(t, m, after);
            }
        }
        true
    }

    /// Records the lost moves of `found` (a line from `base`, the last known position,
    /// proven: see `proof.rs`) but the last, which is returned for the caller to complete
    /// (made, or pressed); `None` when the game ended on the way. `press` completed the
    /// first of them.
    pub(super) fn record_lost_lines(
        &mut self,
        t: u64,
        base: &Position,
        found: recover::LostMoves,
        mut press: Option<PendingPress>,
        out: &mut Vec<ArbiterEvent>,
    ) -> Option<Move> {
        let after = found
            .line
            .iter()
            .try_fold(*base, |pos, &m| pos.play(m).ok())?;
        // What the line may have got wrong that a ruling depends on (castling, en passant):
        // kept, so that such a press is never ruled (see `deep.rs`).
        self.rebuilt_doubt = Some(deep::RebuiltDoubt::of_line(base, &after, &self.placement));
        let (&last, earlier) = found.line.split_last()?;
        for &m in earlier {
            let how = How {
                recovered: true,
                ..press
                    .take()
                    .map_or_else(How::default, |p| How::pressed(p.clock))
            };
            let mine = std::mem::take(&mut self.touches);
            self.record(t, m, how, mine, Vec::new(), out);
            if !matches!(self.phase, Phase::Playing) {
                return None;
            }
        }
        Some(last)
    }

    /// The board shows what no line the searches reach explains: out of sync. Says how
    /// far the last known position is and which squares differ; no ruling, penalty or
    /// clock command on this board until it is explained.
    pub(super) fn lose_sync(&mut self, t: u64, searched: usize, out: &mut Vec<ArbiterEvent>) {
        if self.desynced {
            return;
        }
        self.desynced = true;
        self.pending_press = None;
        self.quiet_deadline = None;
        let base = self.game.position();
        let squares: Vec<String> = base
            .placement()
            .diff(&self.placement)
            .map(|d| d.square.to_string())
            .collect();
        let detail = format!(
            "last known position: ply {} ({} to move, {}); the board differs on {} square(s): \
             {}; no line of up to {searched} plies explains it, at least {} plies were made \
             unseen; no ruling on this board until it is explained",
            base.plies(),
            base.side_to_move(),
            base.fen(),
            squares.len(),
            squares.join(" "),
            recover::min_plies(base, &self.placement),
        );
        let detail = match self.unexpected_chess960_start() {
            Some(n) => format!(
                "the board shows Chess960 start position {n}, but this game is standard \
                 chess: a set-up the configuration does not expect (if it is a Chess960 \
                 game, configure variant = \"chess960\" and its start); {detail}"
            ),
            None => detail,
        };
        self.status(out, t, BoardStatus::OutOfSync, Some(detail));
    }

    /// The Chess960 start position number the board shows, in a standard game not yet
    /// begun (arbiter-rules §6: reported to the arbiter as a set-up the configuration does
    /// not expect, never taken as a Chess960 game on a guess).
    fn unexpected_chess960_start(&self) -> Option<u16> {
        let base = self.game.position();
        if base.variant() != chess_rules::Variant::Standard || !self.game.moves().is_empty() {
            return None;
        }
        Position::from_placement_960(self.placement)
            .ok()?
            .chess960_number()
            .filter(|&n| n != chess_rules::STANDARD_POSITION_NUMBER)
    }

    pub(super) fn in_sync(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        self.gap_dump = None;
        self.evidence.shown.clear();
        if self.desynced {
            self.desynced = false;
            self.status(out, t, BoardStatus::InSync, None);
        }
    }

    /// Records the lost moves found earlier, now (their settle window passed, or a press
    /// came), if the board still shows what a line of them explains.
    pub(super) fn settle_recovery(&mut self, t: u64, forced: bool, out: &mut Vec<ArbiterEvent>) {
        let seen = |p: &Option<PendingRecovery>| p.as_ref().map(|p| (p.placement, p.since));
        let Some(before) = seen(&self.pending_recovery) else {
            return;
        };
        self.recovery_forced = forced;
        self.after_change(t, Change::Dump, out);
        self.recovery_forced = false;
        let recorded = self.pending_recovery.is_none();
        if seen(&self.pending_recovery) == Some(before) {
            // Not explained any more (a piece in the air, say): the search starts again
            // with the next change, as after a dump.
            self.pending_recovery = None;
        }
        if recorded {
            self.complete_blind_press(t, out);
        }
    }

    /// After a gap, once both the clock and the board have been seen again. The clock ran
    /// for the player to move before the gap, so each press since has passed the turn with
    /// a move: if it now runs for the opponent of the player whose move the board shows,
    /// that move was completed by a press we could not see. (If it still runs for him,
    /// the move is not complete: it is recorded at the next press or reply, as usual; and
    /// a clock that disagreed with the board before the gap proves nothing.)
    pub(super) fn complete_blind_press(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        if self.line_down
            || self.clock.last().is_none()
            || self.pending_recovery.is_some()
            || self.desynced
        {
            // Out of sync: kept until the board is explained.
            return;
        }
        let Some(running) = self.running_after_gap.take() else {
            return;
        };
        if self.pending_press.is_some() {
            return;
        }
        let Some(m) = self.current_candidate() else {
            return;
        };
        if running != self.game.position().side_to_move() {
            let clock = self.clock.times();
            self.record_pressed(t, m, clock, out);
        }
    }
}
