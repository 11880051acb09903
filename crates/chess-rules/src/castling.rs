//! The castling a position allows, as a board-watcher needs it, for standard chess and
//! Chess960 alike: where the king stands before castling, which rook a right castles
//! with, and which rights a placement still allows. In standard chess these are e1/e8 and
//! the a- and h-rooks; in Chess960 (Guidelines II.3) the king's square is wherever it
//! started and each right names its rook's file: the tracker must never assume e1/h1 there,
//! or a legal castling is ruled an illegal move.

use crate::{
    CastleSide, CastlingRights, Color, Move, Piece, Placement, Position, PositionError, Role,
    Square, Variant,
};

/// The square `color`'s king castles from in `base`: e1/e8 in standard chess; in Chess960
/// the king's own square, when it stands on its back rank (II.3: wherever it started).
pub fn king_home(base: &Position, color: Color) -> Option<Square> {
    match base.variant() {
        Variant::Standard => Some(CastleSide::KingSide.king_move(color).from),
        Variant::Chess960 => {
            let king = base.king(color);
            (king.rank() == color.back_rank()).then_some(king)
        }
    }
}

/// The rook `color` castles with to `side` in `base`: the right's rook where the right is
/// held; without the right, the a- or h-rook in standard chess (touch-move 4.4 still
/// knows "the rook" of a castling that is illegal), none in Chess960 (no rook is "the"
/// castling rook of a right that is gone).
pub fn castle_rook(base: &Position, color: Color, side: CastleSide) -> Option<Square> {
    let rank = color.back_rank();
    match (base.castling().rook_file(color, side), base.variant()) {
        (Some(file), _) => Some(Square::new(file, rank)),
        (None, Variant::Standard) => Some(side.rook_move(color).0),
        (None, Variant::Chess960) => None,
    }
}

/// The castling side whose rook stands on `rook` for the side to move (see
/// [`castle_rook`]); in Chess960 also a rook of his on the back rank without a right, by
/// the side of the king it stands on (the castling that rook would make is illegal, but
/// king-then-rook still names that side, art. 4.4.1).
pub fn rook_side(base: &Position, rook: Square) -> Option<CastleSide> {
    let color = base.side_to_move();
    if let Some(side) = CastleSide::ALL
        .into_iter()
        .find(|&side| castle_rook(base, color, side) == Some(rook))
    {
        return Some(side);
    }
    if base.variant() != Variant::Chess960
        || base.piece_at(rook) != Some(Piece::new(color, Role::Rook))
    {
        return None;
    }
    let king = king_home(base, color)?;
    if rook.rank() != king.rank() || rook == king {
        return None;
    }
    Some(if rook.file() > king.file() {
        CastleSide::KingSide
    } else {
        CastleSide::QueenSide
    })
}

/// The rook a castling move castles with (`None` if `m` is no castling): the h- or a-rook
/// in standard chess, the rook the king takes in Chess960 (`b1a1`).
pub fn castles_with(base: &Position, m: Move) -> Option<Square> {
    let side = base.castle_side(m)?;
    Some(match base.variant() {
        Variant::Standard => side.rook_move(base.side_to_move()).0,
        Variant::Chess960 => m.to,
    })
}

/// The castling rights `base` held whose king and rook still stand on their squares on
/// `placement` (the king where it stood in `base`, the rook on its right's file): the
/// most a position the board shows after moves not seen can have (the board cannot say
/// they never moved).
pub fn rights_kept(base: &Position, placement: &Placement) -> CastlingRights {
    let mut rights = CastlingRights::NONE;
    for color in Color::ALL {
        let king = base.king(color);
        let king_stays = placement.get(king) == Some(Piece::new(color, Role::King));
        for side in CastleSide::ALL {
            let Some(file) = base.castling().rook_file(color, side) else {
                continue;
            };
            let rook = Square::new(file, color.back_rank());
            if king_stays && placement.get(rook) == Some(Piece::new(color, Role::Rook)) {
                rights = rights.with_rook_file(color, side, Some(file));
            }
        }
    }
    rights
}

/// A position of `like`'s variant from its parts (a Chess960 game's positions stay
/// Chess960: its castlings are the king taking its rook).
pub fn position_like(
    like: &Position,
    placement: Placement,
    side_to_move: Color,
    castling: CastlingRights,
    en_passant: Option<Square>,
    counters: (u32, u32),
) -> Result<Position, PositionError> {
    let (halfmove, fullmove) = counters;
    match like.variant() {
        Variant::Standard => Position::from_parts(
            placement,
            side_to_move,
            castling,
            en_passant,
            halfmove,
            fullmove,
        ),
        Variant::Chess960 => Position::from_parts_960(
            placement,
            side_to_move,
            castling,
            en_passant,
            halfmove,
            fullmove,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn standard_castling_is_e1_and_the_corner_rooks() {
        let p = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1").unwrap();
        assert_eq!(king_home(&p, Color::White), Some(sq("e1")));
        assert_eq!(
            castle_rook(&p, Color::White, CastleSide::KingSide),
            Some(sq("h1"))
        );
        assert_eq!(rook_side(&p, sq("h1")), Some(CastleSide::KingSide));
        assert_eq!(rook_side(&p, sq("a1")), Some(CastleSide::QueenSide));
        assert_eq!(castles_with(&p, "e1c1".parse().unwrap()), Some(sq("a1")));
        let kept = rights_kept(&p, p.placement());
        assert_eq!(kept, p.castling());
    }

    #[test]
    fn chess960_castling_is_the_kings_square_and_the_rights_rooks() {
        // King b1, rooks a1 and e1 (position with Shredder rights A and E).
        let p = Position::from_fen_960("2r1k1r1/4p3/8/8/8/8/8/RK2R3 w AEcg - 0 1").unwrap();
        assert_eq!(king_home(&p, Color::White), Some(sq("b1")));
        assert_eq!(
            castle_rook(&p, Color::White, CastleSide::KingSide),
            Some(sq("e1"))
        );
        assert_eq!(rook_side(&p, sq("e1")), Some(CastleSide::KingSide));
        assert_eq!(rook_side(&p, sq("a1")), Some(CastleSide::QueenSide));
        assert_eq!(castles_with(&p, "b1e1".parse().unwrap()), Some(sq("e1")));
        // The e-rook gone from e1: only the a-rook's right and Black's are kept.
        let mut moved = *p.placement();
        moved.set(sq("e1"), None);
        moved.set(sq("e2"), Some(Piece::new(Color::White, Role::Rook)));
        let kept = rights_kept(&p, &moved);
        assert!(!kept.has(Color::White, CastleSide::KingSide));
        assert!(kept.has(Color::White, CastleSide::QueenSide));
        assert_eq!(
            kept.rook_file(Color::Black, CastleSide::KingSide),
            Some(crate::File::G)
        );
        let stands = position_like(&p, moved, Color::Black, kept, None, (0, 1)).unwrap();
        assert_eq!(stands.variant(), Variant::Chess960);
    }
}
