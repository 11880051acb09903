//! Chess960 (Laws, Guidelines II): the 960 start positions by their number (Scharnagl
//! numbering, 518 = the standard set-up) and the X-FEN / Shredder-FEN castling field. The
//! castling moves themselves are in [`crate::position`].

use crate::placement::Placement;
use crate::position::{CastleSide, CastlingRights, Position};
use crate::types::{Color, File, Piece, Rank, Role, Square};

/// The number of the standard start position among the 960.
pub const STANDARD_POSITION_NUMBER: u16 = 518;

/// A Chess960 start position number that is not one of 0-959.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Chess960 start position {0} does not exist: the positions are numbered 0 to 959")]
pub struct PositionNumberError(pub u16);

/// Where the knights go among the five squares the bishops and queen left (Scharnagl).
const KNIGHTS: [[usize; 2]; 10] = [
    [0, 1],
    [0, 2],
    [0, 3],
    [0, 4],
    [1, 2],
    [1, 3],
    [1, 4],
    [2, 3],
    [2, 4],
    [3, 4],
];

/// White's back rank of start position `n` (0-959), a to h (Scharnagl numbering: the
/// light-squared bishop, the dark-squared bishop, the queen, the knights, then rook, king,
/// rook on the three squares left, so the king always stands between the rooks).
pub fn back_rank(n: u16) -> Result<[Role; 8], PositionNumberError> {
    if n >= 960 {
        return Err(PositionNumberError(n));
    }
    let mut rank: [Option<Role>; 8] = [None; 8];
    let mut n = usize::from(n);
    rank[(n % 4) * 2 + 1] = Some(Role::Bishop);
    n /= 4;
    rank[(n % 4) * 2] = Some(Role::Bishop);
    n /= 4;
    let empty = |rank: &[Option<Role>; 8]| -> Vec<usize> {
        (0..8).filter(|&i| rank[i].is_none()).collect()
    };
    let queen = empty(&rank)[n % 6];
    rank[queen] = Some(Role::Queen);
    n /= 6;
    let free = empty(&rank);
    for k in KNIGHTS[n] {
        rank[free[k]] = Some(Role::Knight);
    }
    for (square, role) in empty(&rank)
        .into_iter()
        .zip([Role::Rook, Role::King, Role::Rook])
    {
        rank[square] = Some(role);
    }
    Ok(rank.map(|r| r.unwrap_or(Role::Pawn)))
}

impl Position {
    /// Chess960 start position `n` (0-959; 518 is the standard set-up), White to move, every
    /// castling right held.
    pub fn start_960(n: u16) -> Result<Position, PositionNumberError> {
        let roles = back_rank(n)?;
        // Ranks 1, 2, 7 and 8 are all overwritten below; ranks 3-6 are empty in the start.
        let mut placement = Placement::start();
        let mut rights = CastlingRights::NONE;
        for color in Color::ALL {
            let (back, pawns) = match color {
                Color::White => (Rank::First, Rank::Second),
                Color::Black => (Rank::Eighth, Rank::Seventh),
            };
            for (file, role) in File::ALL.into_iter().zip(roles) {
                placement.set(Square::new(file, back), Some(Piece::new(color, role)));
                placement.set(
                    Square::new(file, pawns),
                    Some(Piece::new(color, Role::Pawn)),
                );
            }
            let mut rooks = File::ALL
                .into_iter()
                .filter(|&f| roles[f.index() as usize] == Role::Rook);
            rights = rights
                .with_rook_file(color, CastleSide::QueenSide, rooks.next())
                .with_rook_file(color, CastleSide::KingSide, rooks.next());
        }
        // Every start position is legal: kings apart, no check, rights backed by their rooks.
        Position::from_parts_960(placement, Color::White, rights, None, 0, 1)
            .map_err(|_| PositionNumberError(n))
    }

    /// The number (0-959) of the Chess960 start position whose pieces stand where this
    /// position's do, if there is one (the rights, side to move and counters not looked at).
    pub fn chess960_number(&self) -> Option<u16> {
        let placement = self.placement();
        let mut roles = [Role::Pawn; 8];
        for (file, slot) in File::ALL.into_iter().zip(roles.iter_mut()) {
            *slot = placement
                .get(Square::new(file, Rank::First))
                .filter(|p| p.color == Color::White)?
                .role;
        }
        let n = (0..960).find(|&n| back_rank(n).is_ok_and(|r| r == roles))?;
        let start = Position::start_960(n).ok()?;
        (start.placement() == placement).then_some(n)
    }
}

/// The king of `color` on its back rank, if it stands there.
fn home_king(placement: &Placement, color: Color) -> Option<Square> {
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
fn outermost(placement: &Placement, color: Color, king: Square, side: CastleSide) -> Option<File> {
    let rook = Piece::new(color, Role::Rook);
    let mut found = None;
    for f in files_beyond(king.file(), side) {
        if placement.get(Square::new(f, color.back_rank())) == Some(rook) {
            found = Some(f);
        }
    }
    found
}
