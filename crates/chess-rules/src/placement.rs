//! [`Placement`]: what stands on each of the 64 squares, with no game state attached.
//! It is what a board dump shows, and what the tracker compares with positions.

use std::fmt;
use std::ops::Index;

use crate::types::{Color, File, Piece, Rank, Role, Square};

/// The piece (or nothing) on every square.
///
/// Stored as one byte a square (0 empty, else [`piece_code`]) rather than
/// `[Option<Piece>; 64]`: equality is then a 64-byte compare and a diff compares a rank in
/// one word. The tracker compares placements after every field update.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement([u8; 64]);

/// The byte a square holds for `piece` (1..=12; 0 is an empty square).
const fn piece_code(piece: Option<Piece>) -> u8 {
    match piece {
        None => 0,
        Some(p) => 1 + p.color as u8 * 6 + p.role as u8,
    }
}

/// The piece of each square byte, the inverse of [`piece_code`].
static PIECE_OF_CODE: [Option<Piece>; 13] = {
    let mut table = [None; 13];
    let mut c = 0;
    while c < Color::ALL.len() {
        let mut r = 0;
        while r < Role::ALL.len() {
            let piece = Piece::new(Color::ALL[c], Role::ALL[r]);
            table[piece_code(Some(piece)) as usize] = Some(piece);
            r += 1;
        }
        c += 1;
    }
    table
};

/// FEN letters by square byte.
const FEN_LETTERS: [u8; 13] = *b" PNBRQKpnbrqk";

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
    pub const EMPTY: Placement = Placement([0; 64]);

    /// The standard starting placement.
    pub fn start() -> Placement {
        // Infallible: the literal is a valid placement.
        match Placement::from_fen_field("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR") {
            Ok(p) => p,
            Err(_) => unreachable!("the start placement is valid"),
        }
    }

    pub fn get(&self, sq: Square) -> Option<Piece> {
        PIECE_OF_CODE[usize::from(self.0[usize::from(sq.index())])]
    }

    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        self.0[usize::from(sq.index())] = piece_code(piece);
    }

    /// The square bytes, a1 first (0 empty, 1..=12 a piece): for hashing.
    pub(crate) fn codes(&self) -> &[u8; 64] {
        &self.0
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
        Diff {
            a: self,
            b: other,
            rank: 0,
            bits: 0,
        }
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
            let squares = &self.0[rank * 8..rank * 8 + 8];
            if squares == [0; 8] {
                // An empty rank (several in most positions) in one compare.
                buf[n] = b'8';
                n += 1;
                if rank > 0 {
                    buf[n] = b'/';
                    n += 1;
                }
                continue;
            }
            for &code in squares {
                if code == 0 {
                    empty += 1;
                } else {
                    if empty > 0 {
                        buf[n] = b'0' + empty;
                        n += 1;
                        empty = 0;
                    }
                    buf[n] = FEN_LETTERS[usize::from(code)];
                    n += 1;
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

/// The squares where two placements differ: whole ranks compare as one word, and only
/// the differing bytes of a rank are visited (the tracker diffs placements that differ in
/// a few squares, very often).
struct Diff<'a> {
    a: &'a Placement,
    b: &'a Placement,
    /// The next rank to compare.
    rank: usize,
    /// The lowest bit of each differing byte of the rank before `rank` not yet visited.
    bits: u64,
}

impl Iterator for Diff<'_> {
    type Item = SquareDiff;

    fn next(&mut self) -> Option<SquareDiff> {
        while self.bits == 0 {
            if self.rank == 8 {
                return None;
            }
            let word = |p: &Placement| {
                let mut bytes = [0u8; 8];
                bytes.copy_from_slice(&p.0[self.rank * 8..self.rank * 8 + 8]);
                u64::from_le_bytes(bytes)
            };
            let x = word(self.a) ^ word(self.b);
            // Fold each byte onto its lowest bit (shifts of 0 to 7 never cross into the
            // byte below): one bit for each differing square.
            let y = x | (x >> 4);
            let y = y | (y >> 2);
            let y = y | (y >> 1);
            self.bits = y & 0x0101_0101_0101_0101;
            self.rank += 1;
        }
        let byte = (self.bits.trailing_zeros() / 8) as usize;
        self.bits &= self.bits - 1;
        let i = (self.rank - 1) * 8 + byte;
        let square = Square::from_index_masked(i as u8);
        Some(SquareDiff {
            square,
            before: self.a.get(square),
            after: self.b.get(square),
        })
    }
}

impl Default for Placement {
    fn default() -> Placement {
        Placement::EMPTY
    }
}

impl Index<Square> for Placement {
    type Output = Option<Piece>;
    fn index(&self, sq: Square) -> &Option<Piece> {
        &PIECE_OF_CODE[usize::from(self.0[usize::from(sq.index())])]
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
    fn diff_finds_exactly_the_differing_squares() {
        let pieces: Vec<Option<Piece>> = std::iter::once(None)
            .chain(
                Color::ALL
                    .into_iter()
                    .flat_map(|c| Role::ALL.into_iter().map(move |r| Some(Piece::new(c, r)))),
            )
            .collect();
        let bases = [
            Placement::start(),
            Placement::EMPTY,
            Placement::from_fen_field("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R")
                .unwrap(),
        ];
        for base in bases {
            for (n, sq) in Square::all().enumerate() {
                let mut other = base;
                // One square changed to every piece, and a second one further on.
                for (k, &p) in pieces.iter().enumerate() {
                    other.set(sq, p);
                    if let Some(far) = Square::from_index(((n + 7 * k + 13) % 64) as u8) {
                        other.set(far, pieces[(k + 5) % pieces.len()]);
                    }
                    let naive: Vec<SquareDiff> = Square::all()
                        .filter(|&s| base.get(s) != other.get(s))
                        .map(|s| SquareDiff {
                            square: s,
                            before: base.get(s),
                            after: other.get(s),
                        })
                        .collect();
                    assert_eq!(base.diff(&other).collect::<Vec<_>>(), naive);
                    assert_eq!(base == other, naive.is_empty());
                    assert_eq!(other[sq], other.get(sq));
                }
            }
        }
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
