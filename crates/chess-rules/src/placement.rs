//! [`Placement`]: what stands on each of the 64 squares, with no game state attached.
//! It is what a board dump shows, and what the tracker compares with positions.

use std::fmt;
use std::ops::{Index, IndexMut};

use crate::types::{Color, File, Piece, Rank, Role, Square};

/// The piece (or nothing) on every square.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement([Option<Piece>; 64]);

/// One square where two placements differ: what stands there in `from` and in `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareDiff {
    pub square: Square,
    pub before: Option<Piece>,
    pub after: Option<Piece>,
}

/// The first field of a FEN could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    #[error("piece placement {0:?} does not have 8 ranks separated by '/'")]
    RankCount(String),
    #[error("rank {rank} of the piece placement {field:?} does not describe exactly 8 squares")]
    RankWidth { field: String, rank: char },
    #[error("unexpected character {ch:?} in the piece placement {field:?}")]
    BadChar { field: String, ch: char },
}

impl Placement {
    /// No piece anywhere.
    pub const EMPTY: Placement = Placement([None; 64]);

    /// The standard starting placement.
    pub fn start() -> Placement {
        // Infallible: the literal is a valid placement.
        match Placement::from_fen_field("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR") {
            Ok(p) => p,
            Err(_) => unreachable!("the start placement is valid"),
        }
    }

    pub fn get(&self, sq: Square) -> Option<Piece> {
        self.0[usize::from(sq.index())]
    }

    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        self.0[usize::from(sq.index())] = piece;
    }

    /// Every occupied square and its piece, a1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(move |sq| self.get(sq).map(|p| (sq, p)))
    }

    /// The squares holding `piece`.
    pub fn squares_of(&self, piece: Piece) -> impl Iterator<Item = Square> + '_ {
        self.pieces()
            .filter(move |&(_, p)| p == piece)
            .map(|(sq, _)| sq)
    }

    /// The king of `color`, if there is exactly one.
    pub fn king(&self, color: Color) -> Option<Square> {
        let mut kings = self.squares_of(Piece::new(color, Role::King));
        match (kings.next(), kings.next()) {
            (Some(sq), None) => Some(sq),
            _ => None,
        }
    }

    /// The squares where `self` and `other` differ, a1 first.
    pub fn diff<'a>(&'a self, other: &'a Placement) -> impl Iterator<Item = SquareDiff> + 'a {
        // Whole ranks compare at once; only ranks that differ are walked square by square
        // (the tracker diffs placements that differ in a few squares, very often).
        (0u8..8)
            .filter(move |&r| {
                let range = usize::from(r) * 8..usize::from(r) * 8 + 8;
                self.0[range.clone()] != other.0[range]
            })
            .flat_map(move |r| {
                (r * 8..r * 8 + 8).filter_map(move |i| {
                    let square = Square::from_index_masked(i);
                    let (before, after) = (self.get(square), other.get(square));
                    (before != after).then_some(SquareDiff {
                        square,
                        before,
                        after,
                    })
                })
            })
    }

    /// The placement turned 180 degrees (what a board turned round reports).
    #[must_use]
    pub fn rotated(&self) -> Placement {
        let mut out = Placement::EMPTY;
        for (sq, p) in self.pieces() {
            out.set(sq.rotated(), Some(p));
        }
        out
    }

    /// Reads the first field of a FEN (`rnbqkbnr/pppppppp/8/...`).
    pub fn from_fen_field(field: &str) -> Result<Placement, PlacementError> {
        let ranks: Vec<&str> = field.split('/').collect();
        if ranks.len() != 8 {
            return Err(PlacementError::RankCount(field.to_owned()));
        }
        let mut out = Placement::EMPTY;
        for (row, text) in ranks.iter().enumerate() {
            let rank = Rank::ALL[7 - row];
            let mut file = 0u8;
            for ch in text.chars() {
                if let Some(d) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += d as u8;
                } else if let Some(piece) = Piece::from_fen_char(ch) {
                    let f = File::from_index(file).ok_or_else(|| PlacementError::RankWidth {
                        field: field.to_owned(),
                        rank: rank.char(),
                    })?;
                    out.set(Square::new(f, rank), Some(piece));
                    file += 1;
                } else {
                    return Err(PlacementError::BadChar {
                        field: field.to_owned(),
                        ch,
                    });
                }
                if file > 8 {
                    break;
                }
            }
            if file != 8 {
                return Err(PlacementError::RankWidth {
                    field: field.to_owned(),
                    rank: rank.char(),
                });
            }
        }
        Ok(out)
    }

    /// Writes the first field of a FEN.
    pub fn fen_field(&self) -> String {
        let mut s = String::with_capacity(72);
        self.write_fen_field(&mut s);
        s
    }

    /// Appends the first field of a FEN to `out` (no allocation when `out` has room: the
    /// tracker writes a FEN for every move).
    pub fn write_fen_field(&self, out: &mut String) {
        let mut buf = [0u8; 71];
        let n = self.fen_field_bytes(&mut buf);
        // Only ASCII was written.
        out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
    }

    /// Writes the first field of a FEN into `buf` as ASCII; returns its length (at most
    /// 64 pieces and 7 slashes: 71).
    pub(crate) fn fen_field_bytes(&self, buf: &mut [u8; 71]) -> usize {
        let mut n = 0;
        for rank in (0..8usize).rev() {
            let mut empty = 0u8;
            for square in &self.0[rank * 8..rank * 8 + 8] {
                match square {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            buf[n] = b'0' + empty;
                            n += 1;
                            empty = 0;
                        }
                        buf[n] = FEN_LETTERS[p.color as usize][p.role as usize];
                        n += 1;
                    }
                }
            }
            if empty > 0 {
                buf[n] = b'0' + empty;
                n += 1;
            }
            if rank > 0 {
                buf[n] = b'/';
                n += 1;
            }
        }
        n
    }
}

/// FEN letters by colour and role (in `Role` order).
const FEN_LETTERS: [[u8; 6]; 2] = [*b"PNBRQK", *b"pnbrqk"];

impl Default for Placement {
    fn default() -> Placement {
        Placement::EMPTY
    }
}

impl Index<Square> for Placement {
    type Output = Option<Piece>;
    fn index(&self, sq: Square) -> &Option<Piece> {
        &self.0[usize::from(sq.index())]
    }
}

impl IndexMut<Square> for Placement {
    fn index_mut(&mut self, sq: Square) -> &mut Option<Piece> {
        &mut self.0[usize::from(sq.index())]
    }
}

impl fmt::Debug for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Placement({})", self.fen_field())
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen_field())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_field_round_trip() {
        let start = Placement::start();
        assert_eq!(
            start.fen_field(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        );
        let f = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R";
        assert_eq!(Placement::from_fen_field(f).unwrap().fen_field(), f);
        assert_eq!(start.king(Color::White), Some(Square::E1));
    }

    #[test]
    fn bad_fields_are_named() {
        assert!(matches!(
            Placement::from_fen_field("8/8/8"),
            Err(PlacementError::RankCount(_))
        ));
        assert!(matches!(
            Placement::from_fen_field("9/8/8/8/8/8/8/8"),
            Err(PlacementError::BadChar { ch: '9', .. })
        ));
        assert!(matches!(
            Placement::from_fen_field("ppppppppp/8/8/8/8/8/8/8"),
            Err(PlacementError::RankWidth { rank: '8', .. })
        ));
        assert!(matches!(
            Placement::from_fen_field("7/8/8/8/8/8/8/8"),
            Err(PlacementError::RankWidth { rank: '8', .. })
        ));
        assert!(matches!(
            Placement::from_fen_field("8/8/8/8/8/8/8/7x"),
            Err(PlacementError::BadChar { ch: 'x', .. })
        ));
    }

    #[test]
    fn diff_and_rotation() {
        let start = Placement::start();
        let mut after = start;
        after.set("e2".parse().unwrap(), None);
        after.set(
            "e4".parse().unwrap(),
            Some(Piece::new(Color::White, Role::Pawn)),
        );
        let d: Vec<_> = start.diff(&after).map(|d| d.square.to_string()).collect();
        assert_eq!(d, ["e2", "e4"]);
        assert_eq!(start.rotated().rotated(), start);
        assert_eq!(
            start.rotated().get(Square::A1),
            Some(Piece::new(Color::Black, Role::Rook))
        );
    }
}
