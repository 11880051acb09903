//! What the arbiter must emit for a script: [`Expected`] events in order, in the terms of
//! `formats.md` §2, built from `chess_rules` types only (this crate does not know the
//! tracker).
//!
//! Order conventions, per ply:
//! - a legal move: [`Expected::Move`], then any evidence about it
//!   ([`Expected::TouchMove`] with `violation: true`, [`Expected::TwoHandedSuspected`]);
//! - an illegal move: [`Expected::IllegalMove`], then [`Expected::Restored`] once the board
//!   shows `restore_fen` again, then the replacing `Move` (and its evidence);
//! - an unpromoted pawn: `IllegalMove`, then the queen promotion's `Move` (the ruling
//!   decides it), then `Restored` when the queen stands on the board;
//! - a second illegal move of a player: `IllegalMove` (with a result), `GameOver`;
//! - a game that ends by the rules (mate, stalemate, dead position, fivefold, 75 moves) or
//!   on the flag: `GameOver` last.
//!
//! Not listed: `touch_move` events without a violation (normal play never creates an
//! obligation the move then breaks, so a tracker may report touches as information),
//! `draw_claimable` (it follows from the move list: `chess_rules::Game::claims`) and
//! `board_status`.

use chess_rules::{
    Attempt, Color, EndReason, GameResult, IllegalCategory, Move, Obligation, Piece, RestoreStep,
    Square,
};

/// What an illegal move costs: time for the opponent (the tracker's configuration decides
/// how much), or, for a player's second one, the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ruling {
    /// Extra time goes to this player (the offender's opponent).
    Penalty { to: Color },
    /// The game ends with this result (a loss for the offender, or a draw when the
    /// opponent cannot mate by any series of legal moves).
    Result(GameResult),
}

/// One event the arbiter must emit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// A legal move was made (`kind: move`).
    Move {
        /// The game's own ply number (`Position::plies() + 1` of the position before).
        ply: u32,
        color: Color,
        mv: Move,
        san: String,
        /// The position after the move.
        fen: String,
    },
    /// A completed illegal move (`kind: illegal_move`).
    IllegalMove {
        color: Color,
        category: IllegalCategory,
        /// What `Position::classify` names from the board at the press and the lift
        /// order (`None` for a clock press without a move).
        attempt: Option<Attempt>,
        /// This player's illegal moves so far, this one included.
        count: u32,
        restore_fen: String,
        /// The steps from the board at the press to `restore_fen`
        /// (`chess_rules::restore_steps`).
        restore: Vec<RestoreStep>,
        /// The first piece the offender touched, if it is his and can move legally in the
        /// position to restore; never set with a `Ruling::Result`.
        must_move: Option<Square>,
        ruling: Ruling,
    },
    /// The board shows the position the ruling asked for (`kind: restored`).
    Restored { fen: String },
    /// Touch-move evidence (`kind: touch_move`); only violations are expected.
    TouchMove {
        color: Color,
        /// The pieces touched during the turn, in order, as they stood before the turn.
        touched: Vec<(Square, Piece)>,
        obligation: Obligation,
        played: Move,
        violation: bool,
    },
    /// Overlapping lifts suggest a move made with two hands
    /// (`kind: two_handed_suspected`).
    TwoHandedSuspected { color: Color, mv: Move },
    /// The game is over (`kind: game_over`).
    GameOver {
        result: GameResult,
        reason: EndReason,
    },
}

impl Expected {
    /// The JSON `kind` of the event.
    pub fn kind(&self) -> &'static str {
        match self {
            Expected::Move { .. } => "move",
            Expected::IllegalMove { .. } => "illegal_move",
            Expected::Restored { .. } => "restored",
            Expected::TouchMove { .. } => "touch_move",
            Expected::TwoHandedSuspected { .. } => "two_handed_suspected",
            Expected::GameOver { .. } => "game_over",
        }
    }
}

/// An expected event and the script time of the physical action that should cause it
/// (the board reports it after its scan delay, so a tracker sees it a little later).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedExpected {
    pub at_ms: u64,
    pub event: Expected,
}
