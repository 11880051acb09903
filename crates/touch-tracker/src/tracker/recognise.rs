//! Move recognition after every change of the placement: the board matched against the
//! last legal position plus one legal move (the candidate), plus the opponent's reply when
//! the mover did not press, and else against lines of lost moves (see `recovery.rs`); a
//! result shown by the kings; a new game set up on a board whose game is over.

use chess_rules::{Color, GameResult, Move, Placement, Position, Square, Status};

use super::{Change, How, Made, Phase, Tracker};
use crate::events::ArbiterEvent;
use crate::recover;

impl Tracker {
    /// The placement changed.
    pub(super) fn after_change(&mut self, t: u64, change: Change, out: &mut Vec<ArbiterEvent>) {
        if self.cfg.start_from_board && !self.start_from_board(t, out) {
            return;
        }
        match &self.phase {
            Phase::Over => {
                let start = self.cfg.start.placement();
                if self.placement == *start {
                    if self.left_start || !self.game.moves().is_empty() {
                        self.new_game(t, out);
                    }
                } else {
                    self.left_start = true;
                }
                return;
            }
            Phase::Restoring(_) => {
                self.restoring(t, out);
                return;
            }
            Phase::Playing if self.held.is_some() => {
                // Held for the arbiter: the game known here is not the whole game, so
                // what the board shows is matched against nothing (no move, no result).
                return;
            }
            Phase::Playing => {}
        }
        // Only a king put down (or a dump) can make the kings show a result.
        if matches!(change, Change::Dump | Change::Place { king: true }) {
            if let Some(result) = result_by_kings(&self.placement, self.game.position()) {
                self.result_on_board(t, result, out);
                return;
            }
        }
        if self.recognise(t, change, out) {
            return;
        }
        if self.placement == *self.cfg.start.placement()
            && !self.game.moves().is_empty()
            && self.base_diff > 0
        {
            self.new_game(t, out);
        }
    }

    /// Matches the placement against the candidate and the reply, then lost moves; returns
    /// true when it is explained.
    fn recognise(&mut self, t: u64, change: Change, out: &mut Vec<ArbiterEvent>) -> bool {
        if self.amended(t, out) {
            return true;
        }
        let base = *self.game.position();
        if self.candidate_shown(t, &base, change, out) {
            return true;
        }
        self.quiet_deadline = None;
        if self.base_diff == 0 {
            self.made = None;
            self.in_sync(t, out);
            if !self.line_down {
                // The board shows the last legal position: the gap hid no move.
                self.gap_open = false;
            }
            return true;
        }
        if self.reply_shown(t, &base, change, out) {
            return true;
        }
        self.lost_moves_shown(t, &base, change, out)
    }

    /// The move recorded at a press turned into another move of the same piece within the
    /// settle window (a slider registered part way): amended; true then. An amend whose
    /// window has passed is dropped.
    #[inline]
    fn amended(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) -> bool {
        if let Some(a) = &self.amend {
            if t > a.deadline {
                self.amend = None;
            } else if let Some((m, _)) = a.before.move_to_placement(&self.placement) {
                if m != a.old {
                    self.amend_to(t, m, out);
                    return true;
                }
            }
        }
        false
    }

    /// The board shows `base` plus one legal move (the candidate): made, and recorded at
    /// once when its player's press waits for it; true then.
    #[inline]
    fn candidate_shown(
        &mut self,
        t: u64,
        base: &Position,
        change: Change,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        let cand = if (2..=4).contains(&self.base_diff) {
            base.move_to_placement(&self.placement)
        } else {
            None
        };
        let Some((m, after)) = cand else {
            return false;
        };
        self.in_sync(t, out);
        self.set_made_seen(t, m, after, change != Change::Dump);
        if let Some(p) = self
            .pending_press
            .filter(|p| p.presser == base.side_to_move())
        {
            self.pending_press = None;
            self.record_now(t, m, How::pressed(p.clock), out);
        }
        true
    }

    /// The mover did not press and the opponent replied: the board shows the made move
    /// plus one legal move of the opponent's. The made move is recorded, the reply made
    /// (recorded at once when the opponent's press waits for it); true then.
    #[inline]
    fn reply_shown(
        &mut self,
        t: u64,
        base: &Position,
        change: Change,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        let Some(made) = self.made else {
            return false;
        };
        let Some((m2, after2)) = made.after.move_to_placement(&self.placement) else {
            return false;
        };
        self.in_sync(t, out);
        let press = self.pending_press.take();
        let mover = base.side_to_move();
        // A press by the mover completed his move; a press by the opponent, the
        // reply.
        let how = press
            .filter(|p| p.presser == mover)
            .map_or_else(How::default, |p| How::pressed(p.clock));
        self.commit_replied(t, made, how, out);
        if matches!(self.phase, Phase::Playing) {
            self.set_made_seen(t, m2, after2, change != Change::Dump);
            if let Some(p) = press.filter(|p| p.presser != mover) {
                if let Some(m) = self.current_candidate() {
                    self.record_pressed(t, m, p.clock, out);
                }
            }
        }
        true
    }

    /// Nothing one or two moves explain: lost moves are looked for (see `recovery.rs`) in a
    /// dump, or, while out of sync, when a piece is put down; a dump that no line explains
    /// puts the board out of sync. True when the lost moves explain the board (recorded,
    /// waiting for it to settle, or followed on).
    #[inline]
    fn lost_moves_shown(
        &mut self,
        t: u64,
        base: &Position,
        change: Change,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        // Look for lost moves in a dump, or, while out of sync, when a piece is put down (a
        // lifted piece is a move under way: the search would explain it away as captures).
        let search = match change {
            Change::Dump => true,
            Change::Place { .. } => self.desynced || self.pending_recovery.is_some(),
            Change::Lift => false,
        };
        // Pieces lifted for a move (its piece, the piece it captures, the castling rook)
        // and nothing else changed, on the last legal position or on the move made on
        // it: a move under way, not lost moves; exchanges would explain it away. A dump
        // that shows this (the line came back while a player held a piece) waits for the
        // pieces to be put down, as lifts seen would: not out of sync for a piece in a hand.
        // Asked only of a search or a dump: a lift in play (most events here) needs neither.
        let only_lifted = (search || change == Change::Dump)
            && (move_under_way(base, &self.placement)
                || self
                    .made
                    .is_some_and(|m| move_under_way(&m.after, &self.placement)));
        if search && !only_lifted {
            let same = self
                .pending_recovery
                .as_ref()
                .is_some_and(|p| p.placement == self.placement);
            if let Some(found) = self.lost_lines(base, same) {
                return self.take_lost_lines(t, base, found, same, out);
            }
        }
        if change == Change::Dump && !only_lifted {
            self.lose_sync(t, recover::MAX_PLIES, out);
        }
        false
    }

    /// `m` was made on the board, `after` is the position it leads to (shown by a dump or
    /// a search, not seen made).
    pub(super) fn set_made(&mut self, t: u64, m: Move, after: Position) {
        self.set_made_seen(t, m, after, false);
    }

    /// `m` was made on the board; `seen`: by lifts and places seen (which confirms the
    /// game after a gap).
    pub(super) fn set_made_seen(&mut self, t: u64, m: Move, after: Position, seen: bool) {
        // The same move shown again (its piece, or another, lifted and put back) was
        // completed when first shown: later touches may be the opponent's.
        let (split, at, seen) = match self.made {
            Some(old) if old.mv == m => (old.split, old.at, old.seen),
            _ => (self.touches.len(), t, seen),
        };
        if seen && !self.line_down && !self.desynced {
            self.gap_open = false;
        }
        self.made = Some(Made {
            mv: m,
            after,
            split,
            at,
            seen,
        });
        self.quiet_deadline =
            (after.status() != Status::Ongoing).then(|| t + self.cfg.settle_window_ms);
    }

    /// The made move, if the board shows it now.
    pub(super) fn current_candidate(&self) -> Option<Made> {
        let m = self.made?;
        (matches!(self.phase, Phase::Playing) && *m.after.placement() == self.placement)
            .then_some(m)
    }
}

/// Both kings put on the four centre squares (the players' result, art. 5.1.2 / 5.2.3
/// agreement or resignation shown on the board): the DGT result convention (both light
/// squares: 1-0, both dark: 0-1, one of each: a draw). Never a legal position (the centre
/// squares all touch), so never a move; but a king stepping next to the other king in the
/// centre is an illegal move, not a result: both kings must have left their squares.
fn result_by_kings(p: &Placement, base: &Position) -> Option<GameResult> {
    let centre =
        |sq: Square| (3..=4).contains(&sq.file().index()) && (3..=4).contains(&sq.rank().index());
    let moved = |c: Color, sq: Square| base.king(c) != sq;
    let w = p
        .king(Color::White)
        .filter(|s| centre(*s) && moved(Color::White, *s))?;
    let b = p
        .king(Color::Black)
        .filter(|s| centre(*s) && moved(Color::Black, *s))?;
    Some(match (w.is_light(), b.is_light()) {
        (true, true) => GameResult::WhiteWins,
        (false, false) => GameResult::BlackWins,
        _ => GameResult::Draw,
    })
}

/// The board shows `pos` with pieces lifted, and one legal move involves every lifted
/// square (the mover's piece, the piece it captures, the castling rook): a move under
/// way. Pieces missing that no single move involves (two pawns of one side, a piece of
/// each side far apart) are not a hand in mid-move.
fn move_under_way(pos: &Position, board: &Placement) -> bool {
    let mut lifted = Vec::new();
    for d in pos.placement().diff(board) {
        if d.after.is_some() {
            return false;
        }
        lifted.push(d.square);
    }
    !lifted.is_empty()
        && pos.legal_moves().any(|m| {
            pos.play(m).is_ok_and(|after| {
                lifted
                    .iter()
                    .all(|&sq| after.piece_at(sq) != pos.piece_at(sq))
            })
        })
}
