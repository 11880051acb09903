//! Small helpers shared by the unit tests of this crate.

use crate::position::Position;
use crate::types::{Move, Piece, Square};

/// A position from a six-field FEN.
pub(crate) fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

/// A move from UCI text.
pub(crate) fn mv(uci: &str) -> Move {
    uci.parse().unwrap()
}

/// A square from its name.
pub(crate) fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// A piece from its FEN letter.
pub(crate) fn piece(letter: char) -> Piece {
    Piece::from_fen_char(letter).unwrap()
}

/// A Chess960 position from a six-field X-FEN or Shredder-FEN.
pub(crate) fn pos960(fen: &str) -> Position {
    Position::from_fen_960(fen).unwrap()
}
