//! The castling field of a FEN in both Chess960 notations (X-FEN and Shredder-FEN), read
//! against the placement, and the rooks its letters name.

use crate::placement::Placement;
use crate::position::{CastleSide, CastlingRights};
use crate::types::{Color, File, Piece, Role, Square};

/// The king of `color` on its back rank, if it stands there.
pub(crate) fn home_king(placement: &Placement, color: Color) -> Option<Square> {
    let rank = color.back_rank();
    File::ALL
        .into_iter()
        .map(|f| Square::new(f, rank))
        .find(|&sq| placement.get(sq) == Some(Piece::new(color, Role::King)))
}

/// The files beyond `from` towards `side`'s edge, nearest first.
fn files_beyond(from: File, side: CastleSide) -> Vec<File> {
    let mut files: Vec<File> = File::ALL
        .into_iter()
        .filter(|&f| match side {
            CastleSide::KingSide => f > from,
            CastleSide::QueenSide => f < from,
        })
        .collect();
    if side == CastleSide::QueenSide {
        files.reverse();
    }
    files
}

/// Is the rook of `color` on `file` the outermost one on `side` of the back rank (no other
/// rook of that colour further out)? X-FEN then writes its right as `K`/`Q`/`k`/`q`.
pub(crate) fn outermost_rook(
    placement: &Placement,
    color: Color,
    side: CastleSide,
    file: File,
) -> bool {
    let rook = Piece::new(color, Role::Rook);
    !files_beyond(file, side)
        .into_iter()
        .any(|f| placement.get(Square::new(f, color.back_rank())) == Some(rook))
}

/// Reads an X-FEN or Shredder-FEN castling field against the placement: `K`/`Q` (`k`/`q`)
/// name the outermost rook on that side of the king, a file letter (upper case for White)
/// the rook on that file, whose side the king's file decides. `None` if a letter is not
/// one of these, is repeated, or names no rook where it should stand (a missing rook is
/// then reported by the position's own check).
pub(crate) fn parse_castling_field(field: &str, placement: &Placement) -> Option<CastlingRights> {
    if field == "-" {
        return Some(CastlingRights::NONE);
    }
    if field.is_empty() {
        return None;
    }
    let mut rights = CastlingRights::NONE;
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let king = home_king(placement, color)?;
        let (side, file) = match c.to_ascii_lowercase() {
            'k' => (
                CastleSide::KingSide,
                outermost(placement, color, king, CastleSide::KingSide)?,
            ),
            'q' => (
                CastleSide::QueenSide,
                outermost(placement, color, king, CastleSide::QueenSide)?,
            ),
            letter => {
                let file = File::from_char(letter)?;
                let side = match file.cmp(&king.file()) {
                    std::cmp::Ordering::Greater => CastleSide::KingSide,
                    std::cmp::Ordering::Less => CastleSide::QueenSide,
                    std::cmp::Ordering::Equal => return None,
                };
                (side, file)
            }
        };
        if rights.has(color, side) {
            return None;
        }
        rights = rights.with_rook_file(color, side, Some(file));
    }
    Some(rights)
}

/// The outermost rook of `color` on `side` of its king on the back rank.
pub(crate) fn outermost(
    placement: &Placement,
    color: Color,
    king: Square,
    side: CastleSide,
) -> Option<File> {
    let rook = Piece::new(color, Role::Rook);
    let mut found = None;
    for f in files_beyond(king.file(), side) {
        if placement.get(Square::new(f, color.back_rank())) == Some(rook) {
            found = Some(f);
        }
    }
    found
}
