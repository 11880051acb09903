//! Chess knowledge for the arbiter: positions, FEN, SAN, PGN, repetition, game end, dead
//! positions and illegal-move classification.
//!
//! This is the one crate that knows the rules of chess. It wraps the `chess` crate (legal
//! move generation) and `chasolver` (can a side still checkmate?) so that no other crate
//! sees their types: the rest of the project talks in [`Square`], [`Piece`], [`Move`],
//! [`Placement`] and the position and game types defined here.
//!
//! It does no IO and keeps no clocks: every function is driven by values.

mod bridge;
pub mod classify;
pub mod game;
pub mod pgn;
pub mod placement;
pub mod position;
pub mod san;
pub mod types;
pub mod winnable;

pub use classify::{restore_steps, Attempt, Classification, IllegalCategory, RestoreStep};
pub use game::{AutomaticEnd, DrawClaim, EndReason, Game, GameResult, ParseResultError};
pub use pgn::{read_pgn, PgnError, PgnGame, PgnMove, PgnReader, ReplayError};
pub use placement::{Placement, PlacementError, SquareDiff};
pub use position::{
    CastleSide, CastlingRights, EnPassantField, FenError, IllegalMoveError, MoveInfo, Position,
    PositionError, RepetitionKey, Status, UciError, START_FEN,
};
pub use san::SanError;
pub use types::{Color, File, Move, ParseSquareError, ParseUciError, Piece, Rank, Role, Square};
pub use winnable::{CanMate, DeadPosition};
