//! The arbiter's answer to a board out of sync: "accept the board as the position, White
//! (or Black) to move", with the ply it stands at when he knows it (the scoresheets). The
//! tracker adopts the placement the board shows with the side the arbiter names, and the
//! game goes on from it. An input like any other (the daemon journals it), so a replay
//! reaches the same state.
//!
//! The ply (what PGN move numbers follow from) is never a guess (issue 36): the
//! arbiter's, else the one the clock's presses since the last known position prove (see
//! `proof.rs`), else the fewest the board's squares need, said to be unknown
//! (`ply_unknown` on the event).
//!
//! A board can also be held out of sync by the daemon ([`Tracker::hold_for_arbiter`]):
//! when part of its inputs is lost (a journal damaged in the middle, its header lost),
//! the game the tracker knows is not the game played, and only the arbiter can say which
//! position the board's placement is.

use chess_rules::{CastlingRights, Color, Game, Placement, Position};

use super::{deep, proof, Phase, Tracker};
use crate::events::{ArbiterEvent, BoardStatus, EventKind, GapCandidate, PositionAcceptedEvent};
use crate::recover;

/// Why the board's placement cannot be accepted as the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AcceptError {
    #[error(
        "board {0} is not out of sync: the tracker explains what it shows (nothing to accept)"
    )]
    NotOutOfSync(String),
    #[error("board {0} is not connected: what it shows now is not known")]
    LineDown(String),
    #[error("the board does not show a legal position with {side} to move: {reason}")]
    NotAPosition { side: Color, reason: String },
    #[error(
        "ply {ply} cannot be the board's: the last known position is ply {known}, the \
         board's squares need at least ply {least}, and with {side} to move the ply is {parity}"
    )]
    ImpossiblePly {
        ply: u32,
        known: u32,
        least: u32,
        side: Color,
        parity: &'static str,
    },
}

/// The position an acceptance adopts, and whether its ply is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcceptedPosition {
    pub position: Position,
    /// Neither the arbiter nor the clock gave the ply: the position's is the fewest the
    /// board's squares need.
    pub ply_unknown: bool,
}

/// What is known of a game whose inputs are partly lost, from the events already
/// published (a board held by [`Tracker::hold_for_arbiter`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KnownGame {
    /// The highest ply of a move published: an accepted position numbers its plies from
    /// no lower.
    pub ply: u32,
    /// Completed illegal moves published, per player: they stand (art. 7.5.5 counts per
    /// game, a second one loses).
    #[serde(default)]
    pub illegal_white: u32,
    #[serde(default)]
    pub illegal_black: u32,
}

/// A board held out of sync for the arbiter, and what is known of its game.
#[derive(Debug, Clone)]
pub(super) struct Held {
    known: KnownGame,
}

impl Tracker {
    /// Part of this board's inputs is lost (`why`: the daemon's journal damaged, its
    /// header lost), and `known` is what the events already published say of the game:
    /// the board goes out of sync with the last position the remaining inputs prove, and
    /// stays so, recognising no move and ruling nothing, until the arbiter accepts the
    /// position it shows ([`Tracker::accept_board`]) (or, the game being over, a new game
    /// is set up). Replaying what followed the loss could rule on a game that was not
    /// played (an illegal move for a placement whose record is lost); the illegal moves
    /// published stand.
    pub fn hold_for_arbiter(
        &mut self,
        t: u64,
        why: &str,
        known: KnownGame,
        out: &mut Vec<ArbiterEvent>,
    ) {
        self.held = Some(Held { known });
        self.followed = None;
        self.counts[0] = self.counts[0].max(known.illegal_white);
        self.counts[1] = self.counts[1].max(known.illegal_black);
        self.desynced = true;
        self.gap_open = true;
        self.last_gap_ms = Some(t);
        self.clear_pending();
        self.pending_recovery = None;
        self.recovery_forced = false;
        self.rebuilt_doubt = None;
        self.gap_dump = None;
        if matches!(self.phase, Phase::Restoring(_)) {
            // The ruling stands (it was published); its restoration is not known.
            self.phase = Phase::Playing;
        }
        let base = self.game.position();
        let detail = format!(
            "{why}; last position the journal proves: ply {} ({} to move, {}); the game \
             reached at least ply {}; the arbiter confirms the position the board \
             shows (accept it); no move, ruling or penalty on this board until then",
            base.plies(),
            base.side_to_move(),
            base.fen(),
            known.ply,
        );
        self.status(out, t, BoardStatus::OutOfSync, Some(detail));
    }

    /// The position [`Tracker::accept_board`] would adopt, or why it cannot.
    pub fn accepted_position(&self, side: Color) -> Result<Position, AcceptError> {
        self.accepted_position_at(side, None).map(|a| a.position)
    }

    /// The position [`Tracker::accept_board_at`] would adopt with `ply` (the arbiter's,
    /// if he gave one), or why it cannot.
    pub fn accepted_position_at(
        &self,
        side: Color,
        ply: Option<u32>,
    ) -> Result<AcceptedPosition, AcceptError> {
        if !self.desynced || !matches!(self.phase, Phase::Playing) {
            return Err(AcceptError::NotOutOfSync(self.cfg.board.clone()));
        }
        if self.line_down {
            return Err(AcceptError::LineDown(self.cfg.board.clone()));
        }
        let base = self.game.position();
        let castling = rights_still_possible(base, &self.placement);
        // White to move stands on an even ply, Black on an odd one.
        let parity = u32::from(side == Color::Black);
        // At least the plies the squares need (and the game is known to have reached),
        // of the parity the side to move gives.
        let mut least = base.plies() + recover::min_plies(base, &self.placement).max(1) as u32;
        if let Some(held) = &self.held {
            least = least.max(held.known.ply);
        }
        if least % 2 != parity {
            least += 1;
        }
        let (ply, ply_unknown) = match ply {
            Some(ply) if ply < least || ply % 2 != parity => {
                return Err(AcceptError::ImpossiblePly {
                    ply,
                    known: base.plies(),
                    least,
                    side,
                    parity: if parity == 0 { "even" } else { "odd" },
                })
            }
            Some(ply) => (ply, false),
            None => match self.clock_proven_ply(base, least, side) {
                Some(ply) => (ply, false),
                None => (least, true),
            },
        };
        // A Chess960 game stays one: its castlings are the king taking its rook.
        let position = chess_rules::castling::position_like(
            base,
            self.placement,
            side,
            castling,
            None,
            (0, ply / 2 + 1),
        )
        .map_err(|e| AcceptError::NotAPosition {
            side,
            reason: e.to_string(),
        })?;
        Ok(AcceptedPosition {
            position,
            ply_unknown,
        })
    }

    /// The ply the clock's presses since the last known position `base` prove for the
    /// board with `side` to move (at least `least`), when the clock runs for `side` now.
    fn clock_proven_ply(&self, base: &Position, least: u32, side: Color) -> Option<u32> {
        let last = self.clock.last().filter(|c| c.running)?;
        if self.clock.color_of(last.lever) != side {
            return None;
        }
        let presses = self.presses_to(base, self.evidence.last_frame_ms, self.clock.times());
        let parity = u32::from(side == Color::Black);
        proof::proven_ply(base.plies(), least - base.plies(), presses, parity)
    }

    /// The arbiter accepts what the out-of-sync board shows as the position, `side` to
    /// move: the game goes on from it (`position_accepted`, then `in_sync`). The moves of
    /// the gap are not in the record; the illegal-move counts stand (art. 7.5.5 counts per
    /// game).
    pub fn accept_board(
        &mut self,
        t: u64,
        side: Color,
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), AcceptError> {
        self.accept_board_at(t, side, None, out)
    }

    /// [`Tracker::accept_board`] at the ply the arbiter gives (`None`: he does not know
    /// it; see the module documentation).
    pub fn accept_board_at(
        &mut self,
        t: u64,
        side: Color,
        ply: Option<u32>,
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), AcceptError> {
        let AcceptedPosition {
            position: pos,
            ply_unknown,
        } = self.accepted_position_at(side, ply)?;
        let detail = format!("the arbiter accepted the board as the position, {side} to move");
        self.adopt_position(t, pos, ply_unknown, Vec::new(), detail, out);
        Ok(())
    }

    /// Every line found after a gap leads to the position the board shows (moves that
    /// could come in either order; the length short or counted by the clock): the
    /// position is known though the record is not. The game is followed from it, as if
    /// the arbiter had accepted it at the line's ply, so that a cable's blip does not cost
    /// the rest of the game; nothing of the gap is recorded (the lines are the
    /// candidates the arbiter was just shown, to pick for the record). What the line
    /// may have got wrong that a ruling depends on (castling, en passant) is kept as
    /// doubt, as for a line recorded (see `deep.rs`).
    pub(super) fn follow_unordered(
        &mut self,
        t: u64,
        base: &Position,
        found: &recover::LostMoves,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        let Some(after) = found
            .line
            .iter()
            .try_fold(*base, |pos, &m| pos.play(m).ok())
        else {
            return false;
        };
        let doubt = deep::RebuiltDoubt::of_line(base, &after, &self.placement);
        let candidates = proof::candidates(base, found);
        let detail = format!(
            "every line found leads to the position the board shows ({} plies after ply \
             {}): the game is followed from it; the order of those moves is not known, so \
             none is recorded: the arbiter picks it for the record",
            found.line.len(),
            base.plies()
        );
        let before = self.game.clone();
        let history = std::mem::take(&mut self.history);
        self.adopt_position(t, after, false, candidates, detail, out);
        self.rebuilt_doubt = Some(doubt);
        // The arbiter may still enter the moves of the gap from the scoresheets.
        self.remember_followed(before, history);
        true
    }

    /// The game goes on from its position now, reached unseen (accepted, followed on,
    /// or filled in by the arbiter's moves): nothing of the gap is pending or held, the
    /// board is in sync.
    pub(super) fn resume_unseen(&mut self, t: u64) {
        self.touches.clear();
        self.clear_pending();
        self.pending_recovery = None;
        self.recovery_forced = false;
        self.displaced = None;
        self.running_after_gap = None;
        self.clock_before_gap = None;
        // The turn now under way began unseen: its touch log proves nothing.
        self.last_gap_ms = Some(t);
        self.turn_start_ms = t;
        self.gap_open = false;
        self.desynced = false;
        self.held = None;
        self.rebuilt_doubt = None;
        self.gap_dump = None;
        self.evidence = proof::GapEvidence::default();
        // The clock may still run for the player who made the position's last move: his
        // press, when it comes, is the late press of art. 6.2.1 for that move, never a
        // press without a move (7.5.3), even if his opponent has replied meanwhile.
        let to_move = self.game.position().side_to_move();
        self.unpressed_last = self
            .clock
            .last()
            .filter(|c| c.running)
            .map(|c| self.clock.color_of(c.lever))
            .filter(|&running| running != to_move);
        self.recount();
    }

    /// The game goes on from `pos`: the position the arbiter accepted, or the one every
    /// line found leads to (`candidates`, see [`Tracker::follow_unordered`]).
    fn adopt_position(
        &mut self,
        t: u64,
        pos: Position,
        ply_unknown: bool,
        candidates: Vec<GapCandidate>,
        in_sync_detail: String,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let last_known_ply = self.game.position().plies();
        self.game = Game::new(pos);
        self.followed = None;
        self.generation += 1;
        // Move numbers from a guessed ply may be wrong: periods are not judged on them.
        self.period_moves_unknown |= ply_unknown;
        self.history.clear();
        self.resume_unseen(t);
        self.emit(
            out,
            t,
            EventKind::PositionAccepted(PositionAcceptedEvent {
                fen: pos.fen(),
                side_to_move: pos.side_to_move(),
                last_known_ply,
                ply: pos.plies(),
                ply_unknown,
                candidates,
            }),
        );
        self.status(out, t, BoardStatus::InSync, Some(in_sync_detail));
    }
}

/// The castling rights `base` held whose king and rook still stand at home on `placement`:
/// the most a position the board shows after unseen moves can have (the board cannot say
/// they never moved). In Chess960 the king's square and the rights' rook files are the
/// game's own (Guidelines II.3), not e1 and the corners.
pub(super) fn rights_still_possible(base: &Position, placement: &Placement) -> CastlingRights {
    chess_rules::castling::rights_kept(base, placement)
}
