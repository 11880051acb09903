//! The arbiter's desk (issue 40): he enters the moves of a gap from the scoresheets, or
//! takes the game back to an earlier ply. Inputs like any other (the daemon journals
//! them), so a replay reaches the same state.
//!
//! - **Fill a gap.** The moves must lead from the last recorded position to what the board
//!   shows (its placement, and the side the clock runs for when it runs). They are
//!   recorded as moves `entered` by the arbiter, with no touch log, clock or ruling: the
//!   moves were played unseen, and a ruling needs what the board saw (art. 7.5 rests on
//!   the move made on the board). When the gap was followed on already (every line found
//!   led to the board's position, [`Tracker::follow_unordered`]), the moves fill the gap
//!   between the game before it and the position followed from: the record is one game
//!   again, the moves played since kept.
//! - **Take back.** Art. 7.5.1: an illegal move found later is annulled and the position
//!   before it reinstated; the arbiter may also decide to go back. The record is cut back
//!   to the ply and the board must show that position again: the tracker waits for it as
//!   for an illegal move's restoration, then the game goes on.

use chess_rules::{restore_steps, Game, Move, Position};

use super::{Phase, RestoreKind, Restoring, Tracker};
use crate::events::{ArbiterEvent, BoardStatus, EventKind, MoveEvent, TakenBackEvent, Touch};

/// Why the arbiter's moves do not fill the gap (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FillError {
    #[error(
        "board {0} has no gap to fill: it is not out of sync and no gap was followed on \
         (take the game back to correct its record)"
    )]
    NoGap(String),
    #[error("board {0} is not connected: what it shows now is not known")]
    LineDown(String),
    #[error("no moves given")]
    Empty,
    #[error("a ruling waits for the board to show a position: fill the gap after it")]
    Restoring,
    #[error(
        "from_ply {from_ply} is not a ply of the record: it runs from ply {first} to ply {last}"
    )]
    BadPly {
        from_ply: u32,
        first: u32,
        last: u32,
    },
    #[error("move {index} ({text:?}, ply {ply}) does not fit: not legal in that position ({why})")]
    NotLegal {
        /// 1-based, in the list given.
        index: usize,
        text: String,
        ply: u32,
        why: String,
    },
    #[error(
        "move {index} ({text:?}, ply {ply}) does not fit: the line ends on a position that \
         is not the board's ({reached}; the board shows {target})"
    )]
    WrongEnd {
        /// The last move of the line (1-based): the line as a whole does not fit.
        index: usize,
        text: String,
        ply: u32,
        reached: String,
        target: String,
    },
}

impl FillError {
    /// The move that does not fit (1-based) and as it was given, when one is to blame.
    pub fn culprit(&self) -> Option<(usize, &str)> {
        match self {
            FillError::NotLegal { index, text, .. } | FillError::WrongEnd { index, text, .. } => {
                Some((*index, text))
            }
            _ => None,
        }
    }
}

/// Why the game cannot be taken back (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TakebackError {
    #[error("the game is over: a result stands (art. 7.5.1 is for a game in progress)")]
    GameOver,
    #[error("a ruling waits for the board to show a position: take back after it")]
    Restoring,
    #[error(
        "board {0} is out of sync: the record's last position is not the board's; enter \
         the moves of the gap or accept the board first"
    )]
    OutOfSync(String),
    #[error(
        "ply {to_ply} is not an earlier ply of the record: it runs from ply {first} to ply {last}"
    )]
    BadPly { to_ply: u32, first: u32, last: u32 },
}

/// The game before a gap that was followed on from the position every line led to, kept
/// so that the arbiter's moves can fill it (see the module documentation).
#[derive(Debug, Clone)]
pub(super) struct Followed {
    before: Game,
    before_history: Vec<Vec<Touch>>,
    /// The position the game was followed from.
    at: Position,
}

/// A fill checked: the game the moves start from, and the moves with their plies.
struct Fill {
    start: Game,
    moves: Vec<Move>,
    followed: bool,
}

impl Tracker {
    /// Keeps the game before a gap followed on (`follow_unordered`), for the arbiter to
    /// fill.
    pub(super) fn remember_followed(&mut self, before: Game, history: Vec<Vec<Touch>>) {
        self.followed = Some(Box::new(Followed {
            before,
            before_history: history,
            at: *self.game.start(),
        }));
    }

    /// Whether [`Tracker::enter_moves`] takes `moves` (SAN or UCI) from `from_ply` (the
    /// last recorded ply when `None`), and if not why.
    pub fn check_moves(&self, from_ply: Option<u32>, moves: &[String]) -> Result<(), FillError> {
        self.fill_of(from_ply, moves).map(|_| ())
    }

    fn fill_of(&self, from_ply: Option<u32>, moves: &[String]) -> Result<Fill, FillError> {
        if moves.is_empty() {
            return Err(FillError::Empty);
        }
        if matches!(self.phase, Phase::Restoring(_)) {
            return Err(FillError::Restoring);
        }
        let (start, target, side, followed) = if self.desynced {
            if self.line_down {
                return Err(FillError::LineDown(self.cfg.board.clone()));
            }
            let mut start = self.game.clone();
            let first = start.start().plies();
            let last = start.position().plies();
            let from = from_ply.unwrap_or(last);
            if from < first || from > last {
                return Err(FillError::BadPly {
                    from_ply: from,
                    first,
                    last,
                });
            }
            while start.position().plies() > from {
                start.pop();
            }
            // The side to move is the one the clock runs for, when it runs.
            let side = self
                .clock
                .last()
                .filter(|c| c.running)
                .map(|c| self.clock.color_of(c.lever));
            (start, self.placement, side, false)
        } else if let Some(f) = &self.followed {
            let last = f.before.position().plies();
            if from_ply.is_some_and(|p| p != last) {
                return Err(FillError::BadPly {
                    from_ply: from_ply.unwrap_or(last),
                    first: last,
                    last,
                });
            }
            (
                f.before.clone(),
                *f.at.placement(),
                Some(f.at.side_to_move()),
                true,
            )
        } else {
            return Err(FillError::NoGap(self.cfg.board.clone()));
        };
        let mut pos = *start.position();
        let mut line = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let m = pos
                .parse_san(text.trim())
                .map_err(|e| FillError::NotLegal {
                    index: i + 1,
                    text: text.clone(),
                    ply: pos.plies() + 1,
                    why: e.to_string(),
                })?;
            pos = pos.play(m).map_err(|e| FillError::NotLegal {
                index: i + 1,
                text: text.clone(),
                ply: pos.plies() + 1,
                why: e.to_string(),
            })?;
            line.push(m);
        }
        let wrong_side = side.is_some_and(|s| s != pos.side_to_move());
        if *pos.placement() != target || wrong_side {
            let target = match side {
                Some(s) if wrong_side => format!("its pieces with {s} to move by the clock"),
                _ => "other squares".to_owned(),
            };
            return Err(FillError::WrongEnd {
                index: moves.len(),
                text: moves[moves.len() - 1].clone(),
                ply: pos.plies(),
                reached: format!("{} to move, {}", pos.side_to_move(), pos.fen()),
                target,
            });
        }
        Ok(Fill {
            start,
            moves: line,
            followed,
        })
    }

    /// The arbiter enters the moves of a gap (SAN or UCI, from `from_ply`, the last
    /// recorded ply when `None`): recorded as `entered` moves, the board in sync and
    /// followed from there. Refused, with nothing changed, when they do not lead to the
    /// board's position.
    pub fn enter_moves(
        &mut self,
        t: u64,
        from_ply: Option<u32>,
        moves: &[String],
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), FillError> {
        let fill = self.fill_of(from_ply, moves)?;
        let mut game = fill.start;
        let first = game.start().plies();
        // A gap followed on earlier stays there to fill when this one is another.
        let mut history = if fill.followed {
            self.followed
                .take()
                .map(|f| f.before_history)
                .unwrap_or_default()
        } else {
            let mut h = std::mem::take(&mut self.history);
            h.truncate((game.position().plies() - first) as usize);
            h
        };
        let mut last_ply = game.position().plies();
        for m in fill.moves {
            let color = game.position().side_to_move();
            let Ok(san) = game.play_with_san(m) else {
                // Checked by `fill_of`: every move is legal in turn.
                return Ok(());
            };
            last_ply = game.position().plies();
            history.push(Vec::new());
            self.emit(
                out,
                t,
                EventKind::Move(MoveEvent {
                    ply: last_ply,
                    color,
                    uci: m,
                    san,
                    fen: game.position().fen(),
                    clock_ms: None,
                    pressed: false,
                    replaces: None,
                    recovered: false,
                    correction: false,
                    entered: true,
                    touches: Vec::new(),
                }),
            );
        }
        tracing::info!(board = %self.cfg.board, ply = last_ply, "the arbiter entered the moves of a gap");
        self.generation += 1;
        if fill.followed {
            // The moves played since the gap was followed on go on from the entered ones.
            for &m in self.game.moves() {
                if game.play(m).is_err() {
                    break;
                }
            }
            history.append(&mut self.history);
            self.game = game;
            self.history = history;
            self.recount();
            return Ok(());
        }
        self.game = game;
        self.history = history;
        self.resync_after_entry(t, last_ply, out);
        Ok(())
    }

    /// The board out of sync is explained by the arbiter's moves: followed from there
    /// (as after an acceptance, the turn under way began unseen).
    fn resync_after_entry(&mut self, t: u64, ply: u32, out: &mut Vec<ArbiterEvent>) {
        self.resume_unseen(t);
        self.status(
            out,
            t,
            BoardStatus::InSync,
            Some(format!(
                "the arbiter entered the moves of the gap: the record goes on from ply {ply}"
            )),
        );
        // The game may be over by the last of them (mate, stalemate), or a draw claimable.
        self.after_move(t, ply, out);
    }

    /// Whether [`Tracker::take_back`] takes the game back to `to_ply`, and if not why.
    pub fn check_takeback(&self, to_ply: u32) -> Result<(), TakebackError> {
        match self.phase {
            Phase::Over => return Err(TakebackError::GameOver),
            Phase::Restoring(_) => return Err(TakebackError::Restoring),
            Phase::Playing => {}
        }
        if self.desynced {
            return Err(TakebackError::OutOfSync(self.cfg.board.clone()));
        }
        let first = self.game.start().plies();
        let last = self.game.position().plies();
        if to_ply < first || to_ply >= last {
            return Err(TakebackError::BadPly {
                to_ply,
                first,
                last,
            });
        }
        Ok(())
    }

    /// The arbiter takes the game back to `to_ply` (art. 7.5.1, or his decision, `reason`):
    /// the moves after it leave the record (`taken_back`), and the tracker waits for the
    /// board to show that position again (`restored`), as after an illegal move.
    pub fn take_back(
        &mut self,
        t: u64,
        to_ply: u32,
        reason: &str,
        out: &mut Vec<ArbiterEvent>,
    ) -> Result<(), TakebackError> {
        self.check_takeback(to_ply)?;
        let from_ply = self.game.position().plies();
        let first = self.game.start().plies();
        while self.game.position().plies() > to_ply {
            self.game.pop();
        }
        self.history.truncate((to_ply - first) as usize);
        self.displacements.retain(|&(_, ply)| ply <= to_ply);
        self.generation += 1;
        self.clear_pending();
        self.touches.clear();
        self.pending_recovery = None;
        self.recovery_forced = false;
        self.displaced = None;
        self.rebuilt_doubt = None;
        self.unpressed_last = None;
        self.turn_start_ms = t;
        let pos = *self.game.position();
        tracing::warn!(
            board = %self.cfg.board,
            ply = to_ply,
            from_ply,
            "the arbiter takes the game back: {reason}"
        );
        self.emit(
            out,
            t,
            EventKind::TakenBack(TakenBackEvent {
                to_ply,
                from_ply,
                fen: pos.fen(),
                reason: reason.to_owned(),
                restore: restore_steps(&self.placement, pos.placement()),
            }),
        );
        self.phase = Phase::Restoring(Box::new(Restoring {
            target: *pos.placement(),
            fen: pos.fen(),
            offender: pos.side_to_move(),
            kind: RestoreKind::TakenBack,
            illegal_board: self.placement,
            attempt: None,
            penalty: None,
        }));
        self.recount();
        // The board may show it already (the players set it up before the arbiter came).
        self.restoring(t, out);
        Ok(())
    }
}
