//! Chess knowledge for the arbiter: positions, FEN, SAN, PGN, repetition, game end, dead
//! positions and illegal-move classification.
//!
//! This is the one crate that knows the rules of chess. It wraps the `chess` crate (legal
//! move generation) and `chasolver` (can a side still checkmate?) so that no other crate
//! sees their types: the rest of the project talks in [`Square`], [`Piece`], [`Move`],
//! [`Placement`] and the position and game types defined here.
//!
//! It does no IO and keeps no clocks: every function is driven by values.

pub mod placement;
pub mod types;

pub use placement::{Placement, PlacementError, SquareDiff};
pub use types::{Color, File, Move, ParseSquareError, ParseUciError, Piece, Rank, Role, Square};
