//! The board side of the protocol: raw field indices and their orientation, piece codes
//! (with the three "magic" result pieces), board dumps and field updates.

use std::fmt;

use chess_rules::{Color, Piece, Placement, Role, Square};
use serde::{Deserialize, Serialize};

/// A raw DGT field index, 0..=63, in the board's own numbering (index 0 is the corner
/// next to the black queen's rook on a normally oriented board: a8; 63 is h1). Which real
/// square it is depends on the board's [`Orientation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct FieldIndex(u8);

/// A byte that is not a field index (0..=63).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0:#04x} is not a DGT field index (expected 0x00..=0x3f)")]
pub struct BadFieldIndex(pub u8);

impl FieldIndex {
    /// 0..=63; `None` otherwise.
    pub fn new(index: u8) -> Option<FieldIndex> {
        (index < 64).then_some(FieldIndex(index))
    }

    /// The raw index, 0..=63.
    pub fn index(self) -> u8 {
        self.0
    }

    /// All 64 field indices in wire order.
    pub fn all() -> impl DoubleEndedIterator<Item = FieldIndex> + ExactSizeIterator {
        (0u8..64).map(FieldIndex)
    }

    /// The real square under this field on a board in `orientation`.
    pub fn square(self, orientation: Orientation) -> Square {
        // Normal: index = (8 - rank) * 8 + file, so square index = (7 - row) * 8 + col.
        let row = self.0 / 8;
        let col = self.0 % 8;
        let normal = Square::from_index((7 - row) * 8 + col);
        let sq = match normal {
            Some(sq) => sq,
            None => unreachable!("row and col are below 8"),
        };
        match orientation {
            Orientation::Normal => sq,
            Orientation::Rotated => sq.rotated(),
        }
    }

    /// The field that lies under `square` on a board in `orientation`.
    pub fn from_square(square: Square, orientation: Orientation) -> FieldIndex {
        let sq = match orientation {
            Orientation::Normal => square,
            Orientation::Rotated => square.rotated(),
        };
        let rank = sq.index() / 8;
        let file = sq.index() % 8;
        FieldIndex((7 - rank) * 8 + file)
    }
}

impl TryFrom<u8> for FieldIndex {
    type Error = BadFieldIndex;
    fn try_from(b: u8) -> Result<FieldIndex, BadFieldIndex> {
        FieldIndex::new(b).ok_or(BadFieldIndex(b))
    }
}

impl From<FieldIndex> for u8 {
    fn from(f: FieldIndex) -> u8 {
        f.0
    }
}

impl fmt::Display for FieldIndex {
    /// The raw index, with the square it is on a normally oriented board: `52 (e2)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.0, self.square(Orientation::Normal))
    }
}

/// How the board lies in front of the players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    /// White sits at the end of fields 48..=63 (the connector on White's left).
    #[default]
    Normal,
    /// The board is turned 180 degrees: White sits at the end of fields 0..=15.
    Rotated,
}

impl Orientation {
    /// The other orientation.
    #[must_use]
    pub fn flipped(self) -> Orientation {
        match self {
            Orientation::Normal => Orientation::Rotated,
            Orientation::Rotated => Orientation::Normal,
        }
    }
}

/// One of the three special pieces DGT boards use to signal a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MagicPiece {
    /// Code 0x0D: half white, half black: a draw.
    Draw,
    /// Code 0x0E: White wins.
    WhiteWins,
    /// Code 0x0F: Black wins.
    BlackWins,
}

/// What a field holds, as the board reports it (codes 0x00..=0x0F).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PieceCode {
    /// Code 0x00.
    #[default]
    Empty,
    /// Codes 0x01..=0x0C.
    Piece(Piece),
    /// Codes 0x0D..=0x0F.
    Magic(MagicPiece),
}

/// A byte that is not a piece code (0x00..=0x0F).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0:#04x} is not a DGT piece code (expected 0x00..=0x0f)")]
pub struct BadPieceCode(pub u8);

// Wire order of the piece codes 1..=6 within a colour.
const ROLE_ORDER: [Role; 6] = [
    Role::Pawn,
    Role::Rook,
    Role::Knight,
    Role::Bishop,
    Role::King,
    Role::Queen,
];

impl PieceCode {
    /// Decodes a piece code byte.
    pub fn from_byte(b: u8) -> Result<PieceCode, BadPieceCode> {
        Ok(match b {
            0 => PieceCode::Empty,
            1..=6 => PieceCode::Piece(Piece::new(Color::White, ROLE_ORDER[usize::from(b - 1)])),
            7..=12 => PieceCode::Piece(Piece::new(Color::Black, ROLE_ORDER[usize::from(b - 7)])),
            0x0D => PieceCode::Magic(MagicPiece::Draw),
            0x0E => PieceCode::Magic(MagicPiece::WhiteWins),
            0x0F => PieceCode::Magic(MagicPiece::BlackWins),
            _ => return Err(BadPieceCode(b)),
        })
    }

    /// The wire byte.
    pub fn byte(self) -> u8 {
        match self {
            PieceCode::Empty => 0,
            PieceCode::Piece(p) => {
                let base = match p.color {
                    Color::White => 1,
                    Color::Black => 7,
                };
                let pos = ROLE_ORDER.iter().position(|&r| r == p.role).unwrap_or(0);
                base + pos as u8
            }
            PieceCode::Magic(MagicPiece::Draw) => 0x0D,
            PieceCode::Magic(MagicPiece::WhiteWins) => 0x0E,
            PieceCode::Magic(MagicPiece::BlackWins) => 0x0F,
        }
    }

    /// The chess piece, if this is one (empty fields and magic pieces give `None`).
    pub fn piece(self) -> Option<Piece> {
        match self {
            PieceCode::Piece(p) => Some(p),
            _ => None,
        }
    }

    /// One character: `.` empty, the FEN letter of a piece, and for the magic pieces
    /// `=` (draw), `+` (White wins), `#` (Black wins).
    pub fn char(self) -> char {
        match self {
            PieceCode::Empty => '.',
            PieceCode::Piece(p) => p.fen_char(),
            PieceCode::Magic(MagicPiece::Draw) => '=',
            PieceCode::Magic(MagicPiece::WhiteWins) => '+',
            PieceCode::Magic(MagicPiece::BlackWins) => '#',
        }
    }

    /// Reads [`PieceCode::char`] back.
    pub fn from_char(c: char) -> Option<PieceCode> {
        match c {
            '.' => Some(PieceCode::Empty),
            '=' => Some(PieceCode::Magic(MagicPiece::Draw)),
            '+' => Some(PieceCode::Magic(MagicPiece::WhiteWins)),
            '#' => Some(PieceCode::Magic(MagicPiece::BlackWins)),
            c => Piece::from_fen_char(c).map(PieceCode::Piece),
        }
    }
}

impl From<Option<Piece>> for PieceCode {
    fn from(p: Option<Piece>) -> PieceCode {
        p.map_or(PieceCode::Empty, PieceCode::Piece)
    }
}

impl fmt::Display for PieceCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

// Piece codes travel in JSON as their one-character form (see `PieceCode::char`).
impl Serialize for PieceCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 4];
        s.serialize_str(self.char().encode_utf8(&mut buf))
    }
}

impl<'de> Deserialize<'de> for PieceCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => PieceCode::from_char(c).ok_or_else(|| {
                serde::de::Error::custom(format!("not a DGT piece character: {s:?}"))
            }),
            _ => Err(serde::de::Error::custom(format!(
                "expected one piece character, got {s:?}"
            ))),
        }
    }
}

/// The 64 piece codes of a board dump, in DGT field order (index 0 first).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawBoard(pub [PieceCode; 64]);

impl Default for RawBoard {
    fn default() -> RawBoard {
        RawBoard([PieceCode::Empty; 64])
    }
}

impl RawBoard {
    pub fn get(&self, field: FieldIndex) -> PieceCode {
        self.0[usize::from(field.index())]
    }

    pub fn set(&mut self, field: FieldIndex, code: PieceCode) {
        self.0[usize::from(field.index())] = code;
    }

    /// Applies a field update.
    pub fn apply(&mut self, update: FieldUpdate) {
        self.set(update.field, update.piece);
    }

    /// The real placement, reading the board in `orientation`. Magic pieces are not chess
    /// pieces: their squares read as empty here (see [`RawBoard::magic_pieces`]).
    pub fn placement(&self, orientation: Orientation) -> Placement {
        let mut out = Placement::EMPTY;
        for field in FieldIndex::all() {
            if let Some(p) = self.get(field).piece() {
                out.set(field.square(orientation), Some(p));
            }
        }
        out
    }

    /// The raw board that shows `placement` on a board lying in `orientation`.
    pub fn from_placement(placement: &Placement, orientation: Orientation) -> RawBoard {
        let mut out = RawBoard::default();
        for (sq, p) in placement.pieces() {
            out.set(
                FieldIndex::from_square(sq, orientation),
                PieceCode::Piece(p),
            );
        }
        out
    }

    /// The magic result pieces standing on the board, with their fields.
    pub fn magic_pieces(&self) -> impl Iterator<Item = (FieldIndex, MagicPiece)> + '_ {
        FieldIndex::all().filter_map(move |f| match self.get(f) {
            PieceCode::Magic(m) => Some((f, m)),
            _ => None,
        })
    }

    /// How the board lies, judged from a start position: `Normal` if the dump shows a
    /// start position (the standard one or any Chess960 set-up) with White on fields
    /// 48..=63, `Rotated` if it shows one with White on fields 0..=15, `None` otherwise.
    pub fn detect_orientation(&self) -> Option<Orientation> {
        [Orientation::Normal, Orientation::Rotated]
            .into_iter()
            .find(|&o| is_start_position(&self.placement(o)) && self.magic_pieces().count() == 0)
    }

    /// The 64 one-character codes (see [`PieceCode::char`]), field 0 first.
    pub fn to_code_string(&self) -> String {
        self.0.iter().map(|c| c.char()).collect()
    }
}

/// A standard or Chess960 start placement with White on ranks 1-2.
fn is_start_position(p: &Placement) -> bool {
    use chess_rules::{File, Rank};
    let mut back = Vec::with_capacity(8);
    for file in File::ALL {
        let w_pawn = p.get(Square::new(file, Rank::Second));
        let b_pawn = p.get(Square::new(file, Rank::Seventh));
        if w_pawn != Some(Piece::new(Color::White, Role::Pawn))
            || b_pawn != Some(Piece::new(Color::Black, Role::Pawn))
        {
            return false;
        }
        let (w, b) = (
            p.get(Square::new(file, Rank::First)),
            p.get(Square::new(file, Rank::Eighth)),
        );
        match (w, b) {
            (Some(w), Some(b))
                if w.color == Color::White && b.color == Color::Black && w.role == b.role =>
            {
                back.push(w.role)
            }
            _ => return false,
        }
        for rank in [Rank::Third, Rank::Fourth, Rank::Fifth, Rank::Sixth] {
            if p.get(Square::new(file, rank)).is_some() {
                return false;
            }
        }
    }
    let count = |r: Role| back.iter().filter(|&&x| x == r).count();
    if count(Role::King) != 1
        || count(Role::Queen) != 1
        || count(Role::Rook) != 2
        || count(Role::Knight) != 2
        || count(Role::Bishop) != 2
    {
        return false;
    }
    // Chess960: bishops on opposite colours, king between the rooks.
    let pos = |r: Role| {
        back.iter()
            .enumerate()
            .filter(move |(_, &x)| x == r)
            .map(|(i, _)| i)
    };
    let bishops: Vec<usize> = pos(Role::Bishop).collect();
    let rooks: Vec<usize> = pos(Role::Rook).collect();
    let king = pos(Role::King).next().unwrap_or(0);
    bishops[0] % 2 != bishops[1] % 2 && rooks[0] < king && king < rooks[1]
}

impl fmt::Debug for RawBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawBoard({})", self.to_code_string())
    }
}

impl fmt::Display for RawBoard {
    /// Eight rows of eight codes, field 0 first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.to_code_string();
        for (i, row) in s.as_bytes().chunks(8).enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(std::str::from_utf8(row).map_err(|_| fmt::Error)?)?;
        }
        Ok(())
    }
}

// A raw board travels in JSON as its 64-character code string, field 0 first.
impl Serialize for RawBoard {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_code_string())
    }
}

impl<'de> Deserialize<'de> for RawBoard {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let mut out = RawBoard::default();
        let mut n = 0;
        for (i, c) in s.chars().enumerate() {
            let code = PieceCode::from_char(c).ok_or_else(|| {
                serde::de::Error::custom(format!("not a DGT piece character: {c:?}"))
            })?;
            if i >= 64 {
                return Err(serde::de::Error::custom("a raw board has 64 fields"));
            }
            out.0[i] = code;
            n += 1;
        }
        if n != 64 {
            return Err(serde::de::Error::custom("a raw board has 64 fields"));
        }
        Ok(out)
    }
}

/// One square changed: `field` now holds `piece` (`Empty` when a piece was lifted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FieldUpdate {
    pub field: FieldIndex,
    pub piece: PieceCode,
}

impl FieldUpdate {
    /// The real square, reading the board in `orientation`.
    pub fn square(&self, orientation: Orientation) -> Square {
        self.field.square(orientation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_index_mapping_matches_the_fact_sheet() {
        // index = (8 - r) * 8 + f on a normal board: 0 = a8, 7 = h8, 56 = a1, 63 = h1.
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let f = |i| FieldIndex::new(i).unwrap();
        assert_eq!(f(0).square(Orientation::Normal), sq("a8"));
        assert_eq!(f(7).square(Orientation::Normal), sq("h8"));
        assert_eq!(f(56).square(Orientation::Normal), sq("a1"));
        assert_eq!(f(63).square(Orientation::Normal), sq("h1"));
        assert_eq!(f(0x34).square(Orientation::Normal), sq("e2"));
        assert_eq!(f(0x24).square(Orientation::Normal), sq("e4"));
        // Turned: the real square is that of 63 - index.
        assert_eq!(f(0).square(Orientation::Rotated), sq("h1"));
        assert_eq!(f(0x0B).square(Orientation::Rotated), sq("e2"));
        for o in [Orientation::Normal, Orientation::Rotated] {
            for field in FieldIndex::all() {
                assert_eq!(FieldIndex::from_square(field.square(o), o), field);
                assert_eq!(
                    field.square(o.flipped()),
                    FieldIndex::new(63 - field.index()).unwrap().square(o)
                );
            }
        }
        assert_eq!(FieldIndex::new(64), None);
        assert_eq!(FieldIndex::try_from(0x40), Err(BadFieldIndex(0x40)));
    }

    #[test]
    fn piece_codes_match_the_fact_sheet() {
        let expect = [
            (0x00, '.'),
            (0x01, 'P'),
            (0x02, 'R'),
            (0x03, 'N'),
            (0x04, 'B'),
            (0x05, 'K'),
            (0x06, 'Q'),
            (0x07, 'p'),
            (0x08, 'r'),
            (0x09, 'n'),
            (0x0A, 'b'),
            (0x0B, 'k'),
            (0x0C, 'q'),
            (0x0D, '='),
            (0x0E, '+'),
            (0x0F, '#'),
        ];
        for (b, c) in expect {
            let code = PieceCode::from_byte(b).unwrap();
            assert_eq!(code.char(), c, "{b:#x}");
            assert_eq!(code.byte(), b);
            assert_eq!(PieceCode::from_char(c), Some(code));
        }
        assert_eq!(PieceCode::from_byte(0x10), Err(BadPieceCode(0x10)));
        assert_eq!(
            PieceCode::from_byte(0x0D),
            Ok(PieceCode::Magic(MagicPiece::Draw))
        );
    }

    #[test]
    fn start_dump_orientation_is_detected() {
        // The normal start dump of the fact sheet, §4.1.
        let mut bytes = vec![0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08];
        bytes.extend([0x07; 8]);
        bytes.extend([0x00; 32]);
        bytes.extend([0x01; 8]);
        bytes.extend([0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]);
        let mut raw = RawBoard::default();
        for (i, b) in bytes.iter().enumerate() {
            raw.0[i] = PieceCode::from_byte(*b).unwrap();
        }
        assert_eq!(raw.detect_orientation(), Some(Orientation::Normal));
        assert_eq!(raw.placement(Orientation::Normal), Placement::start());
        let mut turned = raw;
        turned.0.reverse();
        assert_eq!(turned.detect_orientation(), Some(Orientation::Rotated));
        assert_eq!(turned.placement(Orientation::Rotated), Placement::start());
        assert_eq!(
            RawBoard::from_placement(&Placement::start(), Orientation::Rotated),
            turned
        );
        let mut moved = raw;
        moved.0[0x34] = PieceCode::Empty;
        moved.0[0x24] = PieceCode::from_byte(1).unwrap();
        assert_eq!(moved.detect_orientation(), None);
        let json = serde_json::to_string(&raw).unwrap();
        assert_eq!(serde_json::from_str::<RawBoard>(&json).unwrap(), raw);
    }
}
