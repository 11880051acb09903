//! Conversions between our value types and the `chess` crate's. Private: no other crate
//! (and no public item of this one) exposes a `chess::` type.

use crate::types::{Color, Move, Role, Square};

pub(crate) fn square_to(sq: Square) -> chess::Square {
    chess::ALL_SQUARES[usize::from(sq.index())]
}

pub(crate) fn square_from(sq: chess::Square) -> Square {
    // `to_int` is always below 64.
    Square::from_index_masked(sq.to_int())
}

pub(crate) fn color_to(c: Color) -> chess::Color {
    match c {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

pub(crate) fn color_from(c: chess::Color) -> Color {
    match c {
        chess::Color::White => Color::White,
        chess::Color::Black => Color::Black,
    }
}

pub(crate) fn role_to(r: Role) -> chess::Piece {
    match r {
        Role::Pawn => chess::Piece::Pawn,
        Role::Knight => chess::Piece::Knight,
        Role::Bishop => chess::Piece::Bishop,
        Role::Rook => chess::Piece::Rook,
        Role::Queen => chess::Piece::Queen,
        Role::King => chess::Piece::King,
    }
}

pub(crate) fn role_from(p: chess::Piece) -> Role {
    match p {
        chess::Piece::Pawn => Role::Pawn,
        chess::Piece::Knight => Role::Knight,
        chess::Piece::Bishop => Role::Bishop,
        chess::Piece::Rook => Role::Rook,
        chess::Piece::Queen => Role::Queen,
        chess::Piece::King => Role::King,
    }
}

pub(crate) fn move_to(m: Move) -> chess::ChessMove {
    chess::ChessMove::new(square_to(m.from), square_to(m.to), m.promotion.map(role_to))
}

pub(crate) fn move_from(m: chess::ChessMove) -> Move {
    Move::new(
        square_from(m.get_source()),
        square_from(m.get_dest()),
        m.get_promotion().map(role_from),
    )
}

pub(crate) fn bb(sq: Square) -> chess::BitBoard {
    chess::BitBoard::from_square(square_to(sq))
}
