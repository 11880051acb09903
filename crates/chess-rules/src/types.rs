//! The small value types everything else is built from: [`Color`], [`Role`], [`Piece`],
//! [`File`], [`Rank`], [`Square`] and [`Move`]. They are plain `Copy` values; no other crate
//! passes squares or pieces around as bare integers or strings.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A side: White or Black.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[must_use]
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `"white"` or `"black"`, as in the JSON events.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `'w'` or `'b'`, as in FEN.
    pub fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The rank a pawn of this colour promotes on.
    pub fn promotion_rank(self) -> Rank {
        match self {
            Color::White => Rank::Eighth,
            Color::Black => Rank::First,
        }
    }

    /// The rank this side's king and rooks start on.
    pub fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of piece: pawn, knight, bishop, rook, queen or king.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// Lower-case letter: `p n b r q k` (UCI promotion suffix, FEN for Black).
    pub fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
        }
    }

    /// Upper-case SAN letter; `None` for a pawn (SAN writes no letter for pawns).
    pub fn san_char(self) -> Option<char> {
        match self {
            Role::Pawn => None,
            other => Some(other.char().to_ascii_uppercase()),
        }
    }

    /// Parses a role letter in either case.
    pub fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_lowercase() {
            'p' => Some(Role::Pawn),
            'n' => Some(Role::Knight),
            'b' => Some(Role::Bishop),
            'r' => Some(Role::Rook),
            'q' => Some(Role::Queen),
            'k' => Some(Role::King),
            _ => None,
        }
    }

    /// English name, for messages to arbiters ("knight").
    pub fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece: a role of a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// FEN letter: upper case for White, lower case for Black.
    pub fn fen_char(self) -> char {
        let c = self.role.char();
        match self.color {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// Parses a FEN letter (`P`..`K` White, `p`..`k` Black).
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.fen_char())
    }
}

// Pieces travel in JSON as their FEN letter ("P", "k"), as formats.md §2 says.
impl Serialize for Piece {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 4];
        s.serialize_str(self.fen_char().encode_utf8(&mut buf))
    }
}

impl<'de> Deserialize<'de> for Piece {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Piece::from_fen_char(c)
                .ok_or_else(|| serde::de::Error::custom(format!("not a piece letter: {s:?}"))),
            _ => Err(serde::de::Error::custom(format!(
                "expected one piece letter, got {s:?}"
            ))),
        }
    }
}

macro_rules! enum_from_index {
    ($ty:ident, [$($v:ident),*]) => {
        impl $ty {
            pub const ALL: [$ty; 8] = [$($ty::$v),*];

            /// 0..=7; `None` otherwise.
            pub fn from_index(i: u8) -> Option<$ty> {
                Self::ALL.get(usize::from(i)).copied()
            }

            /// 0..=7.
            pub fn index(self) -> u8 {
                self as u8
            }

            /// The one `delta` steps away, if it is on the board.
            pub fn offset(self, delta: i8) -> Option<$ty> {
                let i = i16::from(self.index()) + i16::from(delta);
                u8::try_from(i).ok().and_then($ty::from_index)
            }
        }
    };
}

/// A file (column), `a` to `h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum File {
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}
enum_from_index!(File, [A, B, C, D, E, F, G, H]);

impl File {
    pub fn char(self) -> char {
        char::from(b'a' + self.index())
    }

    pub fn from_char(c: char) -> Option<File> {
        if c.is_ascii_lowercase() {
            File::from_index((c as u8).wrapping_sub(b'a'))
        } else {
            None
        }
    }
}

/// A rank (row), `1` to `8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    First,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}
enum_from_index!(
    Rank,
    [First, Second, Third, Fourth, Fifth, Sixth, Seventh, Eighth]
);

impl Rank {
    pub fn char(self) -> char {
        char::from(b'1' + self.index())
    }

    pub fn from_char(c: char) -> Option<Rank> {
        if c.is_ascii_digit() {
            Rank::from_index((c as u8).wrapping_sub(b'1'))
        } else {
            None
        }
    }
}

/// A square of the board. Index 0 is a1, 7 is h1, 56 is a8, 63 is h8 (little-endian
/// rank-file order, as the `chess` crate numbers them). The DGT board numbers squares
/// differently; `dgt-protocol` maps its field indices to this type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const A1: Square = Square(0);
    pub const B1: Square = Square(1);
    pub const C1: Square = Square(2);
    pub const D1: Square = Square(3);
    pub const E1: Square = Square(4);
    pub const F1: Square = Square(5);
    pub const G1: Square = Square(6);
    pub const H1: Square = Square(7);
    pub const A8: Square = Square(56);
    pub const B8: Square = Square(57);
    pub const C8: Square = Square(58);
    pub const D8: Square = Square(59);
    pub const E8: Square = Square(60);
    pub const F8: Square = Square(61);
    pub const G8: Square = Square(62);
    pub const H8: Square = Square(63);

    pub fn new(file: File, rank: Rank) -> Square {
        Square(rank.index() * 8 + file.index())
    }

    /// 0..=63 in a1, b1, .., h8 order; `None` otherwise.
    pub fn from_index(i: u8) -> Option<Square> {
        (i < 64).then_some(Square(i))
    }

    /// 0..=63 in a1, b1, .., h8 order.
    pub fn index(self) -> u8 {
        self.0
    }

    /// The square with index `i & 63`; for indices that are known to be in range.
    pub(crate) const fn from_index_masked(i: u8) -> Square {
        Square(i & 63)
    }

    pub fn file(self) -> File {
        File::ALL[usize::from(self.0 % 8)]
    }

    pub fn rank(self) -> Rank {
        Rank::ALL[usize::from(self.0 / 8)]
    }

    /// All 64 squares, a1 first.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0u8..64).map(Square)
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        Some(Square::new(
            self.file().offset(df)?,
            self.rank().offset(dr)?,
        ))
    }

    /// The same square seen from the other side of the board (a1 <-> h8).
    #[must_use]
    pub fn rotated(self) -> Square {
        Square(63 - self.0)
    }

    /// True for light squares (h1, a8, ...).
    pub fn is_light(self) -> bool {
        (self.file().index() + self.rank().index()) % 2 == 1
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name().as_str())
    }
}

impl Square {
    /// The name (`e4`), on the stack.
    fn name(self) -> AsciiName {
        let mut name = AsciiName::default();
        name.push_square(self);
        name
    }
}

/// A square's or a move's name, built on the stack: written and serialised as one string,
/// without the formatting machinery that `write!` and `collect_str` go through (which was
/// a fifth of writing a move event's JSON line).
#[derive(Default)]
struct AsciiName {
    bytes: [u8; 5],
    len: usize,
}

impl AsciiName {
    /// Appends an ASCII character (file, rank, promotion letter).
    fn push(&mut self, c: char) {
        if let (Some(slot), Ok(b)) = (self.bytes.get_mut(self.len), u8::try_from(c)) {
            *slot = b;
            self.len += 1;
        }
    }

    fn push_square(&mut self, square: Square) {
        self.push(square.file().char());
        self.push(square.rank().char());
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

/// A string that is not a square name like `e4`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a square name: {0:?} (expected a file a-h and a rank 1-8, e.g. \"e4\")")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => File::from_char(f)
                .zip(Rank::from_char(r))
                .map(|(f, r)| Square::new(f, r))
                .ok_or_else(|| ParseSquareError(s.to_owned())),
            _ => Err(ParseSquareError(s.to_owned())),
        }
    }
}

// Squares travel in JSON as their names ("e4").
impl Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name().as_str())
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A move in coordinate form: from, to, and the promotion piece if any. Castling is the
/// king's move (`e1g1`), as in UCI. Whether it is legal depends on a position; see
/// `Position`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl Move {
    pub fn new(from: Square, to: Square, promotion: Option<Role>) -> Move {
        Move {
            from,
            to,
            promotion,
        }
    }

    /// UCI text: `e2e4`, `e7e8q`.
    pub fn uci(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name().as_str())
    }
}

impl Move {
    /// The UCI name (`e2e4`, `e7e8q`), on the stack.
    fn name(self) -> AsciiName {
        let mut name = AsciiName::default();
        name.push_square(self.from);
        name.push_square(self.to);
        if let Some(role) = self.promotion {
            name.push(role.char());
        }
        name
    }
}

/// A string that is not a UCI move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a UCI move: {0:?} (expected e.g. \"e2e4\" or \"e7e8q\")")]
pub struct ParseUciError(pub String);

impl FromStr for Move {
    type Err = ParseUciError;

    /// Parses UCI coordinates without checking legality (see `Position::parse_uci`).
    fn from_str(s: &str) -> Result<Move, ParseUciError> {
        let err = || ParseUciError(s.to_owned());
        if !s.is_ascii() || !(4..=5).contains(&s.len()) {
            return Err(err());
        }
        let from: Square = s[0..2].parse().map_err(|_| err())?;
        let to: Square = s[2..4].parse().map_err(|_| err())?;
        let promotion = match s[4..].chars().next() {
            None => None,
            Some(c) => match Role::from_char(c) {
                Some(r) if c.is_ascii_lowercase() && !matches!(r, Role::Pawn | Role::King) => {
                    Some(r)
                }
                _ => return Err(err()),
            },
        };
        Ok(Move {
            from,
            to,
            promotion,
        })
    }
}

impl Serialize for Move {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name().as_str())
    }
}

impl<'de> Deserialize<'de> for Move {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            let name = sq.to_string();
            assert_eq!(name.parse::<Square>(), Ok(sq));
        }
        assert_eq!(Square::E1.to_string(), "e1");
        assert_eq!("h8".parse::<Square>(), Ok(Square::H8));
        for bad in ["", "e", "e9", "i1", "E1", "e10", "é1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn square_geometry() {
        let e4: Square = "e4".parse().unwrap();
        assert_eq!(e4.offset(1, 1).map(|s| s.to_string()), Some("f5".into()));
        assert_eq!(Square::H8.offset(1, 0), None);
        assert_eq!(Square::A1.rotated(), Square::H8);
        assert!(Square::H1.is_light());
        assert!(!Square::A1.is_light());
    }

    #[test]
    fn uci_round_trip() {
        for s in ["e2e4", "e7e8q", "a2a1n", "e1g1"] {
            assert_eq!(s.parse::<Move>().unwrap().uci(), s);
        }
        for bad in ["e2e4k", "e2e4p", "e2e", "e2e4Q", "z2e4", "e2e4qq"] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }

    /// Squares and moves are written, and travel in JSON, as their names.
    #[test]
    fn squares_and_moves_in_json_are_their_names() {
        let square_name = |sq: Square| {
            let file = ["a", "b", "c", "d", "e", "f", "g", "h"][usize::from(sq.file().index())];
            format!("{file}{}", sq.rank().index() + 1)
        };
        for from in Square::all() {
            assert_eq!(
                serde_json::to_string(&from).unwrap(),
                format!("\"{}\"", square_name(from))
            );
            for to in Square::all() {
                for (promotion, letter) in [
                    (None, ""),
                    (Some(Role::Knight), "n"),
                    (Some(Role::Queen), "q"),
                ] {
                    let m = Move {
                        from,
                        to,
                        promotion,
                    };
                    let uci = format!("{}{}{letter}", square_name(from), square_name(to));
                    assert_eq!(m.to_string(), uci);
                    assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{uci}\""));
                }
            }
        }
    }

    #[test]
    fn pieces_in_json_are_fen_letters() {
        let p = Piece::new(Color::Black, Role::Knight);
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"n\"");
        assert_eq!(
            serde_json::from_str::<Piece>("\"Q\"").unwrap().role,
            Role::Queen
        );
        assert!(serde_json::from_str::<Piece>("\"x\"").is_err());
    }
}
