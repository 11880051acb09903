//! Chess knowledge for the arbiter: positions, FEN, SAN, PGN, repetition, game end, dead
//! positions and illegal-move classification.
//!
//! This is the one crate that knows the rules of chess. It wraps the `chess` crate (legal
//! move generation) and `chasolver` (can a side still checkmate?) so that no other crate
//! sees their types: the rest of the project talks in [`Square`], [`Piece`], [`Move`],
//! [`Placement`] and the position and game types defined here.
//!
//! It does no IO and keeps no clocks: every function is driven by values.
//!
//! Where to start:
//! - [`Position`]: a legal position (`Copy`). Strict FEN in and out, legal moves
//!   ([`Position::legal_moves`], [`Position::legal_moves_from`], [`Position::is_legal`],
//!   [`Position::can_castle`], [`Position::can_be_captured`]), [`Position::play`], UCI,
//!   [`Position::move_info`] (what a move does on the board), and
//!   [`Position::move_to_placement`], the tracker's fast "which legal move is this board?".
//! - [`san`]: [`Position::san`] and the lenient [`Position::parse_san`].
//! - [`Game`]: the record of a game, with FIDE repetition (art. 9.2), threefold and 50-move
//!   claims (also for an intended move) and the automatic ends (checkmate, stalemate,
//!   fivefold, 75 moves).
//! - [`winnable`]: "can this side still mate?" ([`Position::can_mate`], [`CanMate`]) and dead
//!   positions, by chasolver; undecided answers stay [`CanMate::Undetermined`].
//! - [`classify`]: [`Position::classify`] rules on the board at a clock press: legal move,
//!   no change, unpromoted pawn, or illegal move with its [`IllegalCategory`], the
//!   [`Attempt`] and the [`RestoreStep`]s.
//! - [`pgn`]: [`read_pgn`] and [`PgnGame::to_pgn`] (export format with `[%clk]`).
//! - [`chess960`]: Chess960 (Laws, Guidelines II). A position knows its [`Variant`]:
//!   [`Position::start_960`] builds start position 0-959 (Scharnagl numbering,
//!   [`STANDARD_POSITION_NUMBER`] = 518), [`Position::from_fen_960`] reads X-FEN or
//!   Shredder-FEN, [`Position::fen`] writes X-FEN ([`Position::shredder_fen`]
//!   Shredder-FEN). Castling rights carry their rook's file
//!   ([`CastlingRights::rook_file`]); a castling [`Move`] is the king taking its own rook
//!   (`b1a1`, `e1h1`: UCI as written, in every Chess960 game, 518 included), SAN `O-O` /
//!   `O-O-O`; [`Position::move_to_placement`] and [`Position::classify`] recognise it from
//!   the final placement (king on g/c, rook on f/d). Everything else is the standard code.

mod bridge;
pub mod castling;
pub mod chess960;
pub mod classify;
pub mod game;
pub mod pgn;
pub mod placement;
pub mod position;
pub mod san;
#[cfg(test)]
mod test_util;
pub mod types;
pub mod winnable;

pub use chess960::{PositionNumberError, STANDARD_POSITION_NUMBER};
pub use classify::{
    restore_steps, Attempt, Classification, IllegalCategory, Obligation, RestoreStep,
};
pub use game::{AutomaticEnd, DrawClaim, EndReason, Game, GameResult, ParseResultError};
pub use pgn::{read_pgn, PgnError, PgnGame, PgnMove, PgnReader, ReplayError};
pub use placement::{Placement, PlacementError, SquareDiff};
pub use position::{
    CastleSide, CastlingRights, EnPassantField, FenError, IllegalMoveError, MoveInfo, Position,
    PositionError, RepetitionKey, Status, UciError, Variant, START_FEN,
};
pub use san::SanError;
pub use types::{Color, File, Move, ParseSquareError, ParseUciError, Piece, Rank, Role, Square};
pub use winnable::{CanMate, DeadPosition};
