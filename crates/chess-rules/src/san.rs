//! Standard Algebraic Notation: an exact writer (disambiguation from the legal moves only,
//! `x` for captures incl. en passant, `=Q`, `O-O`/`O-O-O`, `+`/`#`) and a lenient reader
//! (`0-0`, `O-O+`, `e8Q`, `e8=Q`, `exd6 e.p.`, `Ng1-f3`, UCI, annotation marks).

use crate::position::{CastleSide, IllegalMoveError, Position, Variant};
use crate::types::{File, Move, Rank, Role, Square};

/// SAN text that names no legal move, or more than one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    #[error("{san:?} is not SAN (expected e.g. \"Nf3\", \"exd5\", \"e8=Q\", \"O-O\")")]
    Syntax { san: String },
    #[error("{san:?} is not a legal move in {fen}")]
    Illegal { san: String, fen: String },
    #[error("{san:?} is ambiguous in {fen}: it could be any of {candidates:?}")]
    Ambiguous {
        san: String,
        fen: String,
        candidates: Vec<String>,
    },
}

/// The parts of a SAN move, before it is matched against the legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SanParts {
    Castle(CastleSide),
    Normal {
        /// `None` when no piece letter was given (a pawn, or any piece in long algebraic).
        role: Option<Role>,
        from_file: Option<File>,
        from_rank: Option<Rank>,
        to: Square,
        promotion: Option<Role>,
    },
}

impl Position {
    /// The SAN of a legal move, with `+` or `#`.
    pub fn san(&self, m: Move) -> Result<String, IllegalMoveError> {
        if self.is_legal(m) {
            Ok(self.san_and_apply(m).0)
        } else {
            Err(IllegalMoveError {
                mv: m,
                fen: self.fen(),
            })
        }
    }

    /// The SAN of a legal move and the position after it (the writer needs that position
    /// for the check suffix anyway).
    pub fn san_and_play(&self, m: Move) -> Result<(String, Position), IllegalMoveError> {
        if self.is_legal(m) {
            Ok(self.san_and_apply(m))
        } else {
            Err(IllegalMoveError {
                mv: m,
                fen: self.fen(),
            })
        }
    }

    pub(crate) fn san_and_apply(&self, m: Move) -> (String, Position) {
        let mut san = String::with_capacity(8);
        let piece = self.piece_at(m.from).map_or(Role::Pawn, |p| p.role);
        if let Some(side) = self.castle_side(m) {
            san.push_str(side.san());
        } else if piece == Role::Pawn {
            let capture = m.from.file() != m.to.file();
            if capture {
                san.push(m.from.file().char());
                san.push('x');
            }
            push_square(&mut san, m.to);
            if let Some(r) = m.promotion {
                san.push('=');
                san.push(r.san_char().unwrap_or('?'));
            }
        } else {
            san.push(piece.san_char().unwrap_or('?'));
            // Disambiguate among the other legal moves of the same kind of piece to `to`.
            let (mut any, mut same_file, mut same_rank) = (false, false, false);
            for from in self.rivals(m) {
                any = true;
                same_file |= from.file() == m.from.file();
                same_rank |= from.rank() == m.from.rank();
            }
            if any {
                if !same_file {
                    san.push(m.from.file().char());
                } else if !same_rank {
                    san.push(m.from.rank().char());
                } else {
                    push_square(&mut san, m.from);
                }
            }
            if self.piece_at(m.to).is_some() {
                san.push('x');
            }
            push_square(&mut san, m.to);
        }
        let after = self.apply(m);
        if after.is_check() {
            san.push(if !after.has_legal_move() { '#' } else { '+' });
        }
        (san, after)
    }

    /// Reads SAN leniently: `O-O`, `0-0`, `O-O+`, `exd6`, `exd6 e.p.`, `e8=Q`, `e8Q`,
    /// `e8(Q)`, `Nbd7`, `Ng1-f3`, `Ng1xf3`, UCI `g1f3`, with any trailing `+ # ! ?` marks.
    /// A wrong or missing check mark and a missing `x` are forgiven; a move that matches no
    /// legal move or several is an error.
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        let parts = parse_parts(san).ok_or_else(|| SanError::Syntax {
            san: san.to_owned(),
        })?;
        let candidates: Vec<Move> = match parts {
            SanParts::Castle(side) => self.castling_move(side).into_iter().collect(),
            SanParts::Normal {
                role,
                from_file,
                from_rank,
                to,
                promotion,
            } => {
                let full_from = from_file.is_some() && from_rank.is_some();
                self.legal_moves_to(to)
                    .into_iter()
                    .filter(|m| {
                        let moving = self.piece_at(m.from).map(|p| p.role);
                        let role_ok = match role {
                            Some(r) => moving == Some(r),
                            // No letter: a pawn, unless the from square is given in full.
                            None => full_from || moving == Some(Role::Pawn),
                        };
                        // A Chess960 castling lands on the king's own rook: it is `O-O`
                        // or UCI (`g1h1`), never `Kh1`.
                        let castling_960 = self.variant() == Variant::Chess960
                            && !full_from
                            && self.castle_side(*m).is_some();
                        role_ok
                            && !castling_960
                            && from_file.is_none_or(|f| m.from.file() == f)
                            && from_rank.is_none_or(|r| m.from.rank() == r)
                            && m.promotion == promotion
                    })
                    .collect()
            }
        };
        match candidates.as_slice() {
            [m] => Ok(*m),
            [] => Err(SanError::Illegal {
                san: san.to_owned(),
                fen: self.fen(),
            }),
            many => Err(SanError::Ambiguous {
                san: san.to_owned(),
                fen: self.fen(),
                candidates: many.iter().map(|m| m.uci()).collect(),
            }),
        }
    }
}

fn push_square(s: &mut String, sq: Square) {
    s.push(sq.file().char());
    s.push(sq.rank().char());
}

/// Strips what a SAN token may carry after the move itself: check and mate marks,
/// annotation glyphs, an en passant remark.
fn strip_suffixes(mut s: &str) -> &str {
    loop {
        let before = s;
        s = s.trim_end();
        for suffix in ["e.p.", "ep", "e.p"] {
            if let Some(rest) = s.strip_suffix(suffix) {
                // "ep" only as a remark after a square, not the end of a move like "Rep"...
                // (no SAN move ends in "ep" otherwise, as ranks are digits).
                s = rest;
            }
        }
        s = s.trim_end_matches(['+', '#', '!', '?', '‡', '†']);
        if s == before {
            return s;
        }
    }
}

fn parse_parts(san: &str) -> Option<SanParts> {
    let s = strip_suffixes(san.trim());
    let castle = s.replace('0', "O").to_ascii_uppercase();
    match castle.as_str() {
        "O-O" => return Some(SanParts::Castle(CastleSide::KingSide)),
        "O-O-O" => return Some(SanParts::Castle(CastleSide::QueenSide)),
        _ => {}
    }
    let chars: Vec<char> = s.chars().collect();
    let mut end = chars.len();
    // Promotion: a piece letter after the destination, with or without '=' or '(...)'.
    let mut promotion = None;
    if end >= 3 && chars[end - 1] == ')' {
        let r = Role::from_char(chars[end - 2])?;
        if chars[end - 3] != '(' {
            return None;
        }
        promotion = Some(r);
        end -= 3;
    } else if end >= 3 && chars[end - 1].is_ascii_alphabetic() {
        let r = Role::from_char(chars[end - 1])?;
        promotion = Some(r);
        end -= 1;
        if matches!(chars[end - 1], '=' | '/') {
            end -= 1;
        }
    }
    if promotion.is_some_and(|r| matches!(r, Role::Pawn | Role::King)) {
        return None;
    }
    if end < 2 {
        return None;
    }
    let to = Square::new(
        File::from_char(chars[end - 2])?,
        Rank::from_char(chars[end - 1])?,
    );
    let mut prefix = &chars[..end - 2];
    let mut role = None;
    if let Some(&c) = prefix.first() {
        if c.is_ascii_uppercase() {
            role = Some(Role::from_char(c)?);
            prefix = &prefix[1..];
        }
    }
    if let Some(&c) = prefix.last() {
        if matches!(c, 'x' | ':' | '-' | '×') {
            prefix = &prefix[..prefix.len() - 1];
        }
    }
    let (mut from_file, mut from_rank) = (None, None);
    for &c in prefix {
        if let Some(f) = File::from_char(c).filter(|_| from_file.is_none() && from_rank.is_none()) {
            from_file = Some(f);
        } else if let Some(r) = Rank::from_char(c).filter(|_| from_rank.is_none()) {
            from_rank = Some(r);
        } else {
            return None;
        }
    }
    Some(SanParts::Normal {
        role,
        from_file,
        from_rank,
        to,
        promotion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{mv, pos};

    #[test]
    fn writer_covers_every_kind_of_move() {
        let kiwipete = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let cases = [
            (Position::start(), "e2e4", "e4"),
            (Position::start(), "g1f3", "Nf3"),
            (kiwipete, "e1g1", "O-O"),
            (kiwipete, "e1c1", "O-O-O"),
            (kiwipete, "e5f7", "Nxf7"),
            (kiwipete, "d5e6", "dxe6"),
            (kiwipete, "g2h3", "gxh3"),
            (pos("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), "h1h8", "Rh8+"),
            (pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1"), "a1d1", "Rad1"),
            // The h1 rook cannot reach d1 through the king: no disambiguation.
            (pos("4k3/8/8/8/8/8/8/R3K2R w - - 0 1"), "a1d1", "Rd1"),
            (pos("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1"), "a1a3", "R1a3"),
            (pos("7k/8/8/8/2Q1Q3/8/2Q5/K7 w - - 0 1"), "c4d3", "Qc4d3"),
            (pos("k7/8/8/3pP3/8/8/8/K7 w - d6 0 2"), "e5d6", "exd6"),
            (pos("k7/4P3/8/8/8/8/8/K7 w - - 0 1"), "e7e8q", "e8=Q+"),
            (pos("k7/4P3/8/8/8/8/8/K7 w - - 0 1"), "e7e8n", "e8=N"),
            (pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), "a1a8", "Ra8#"),
        ];
        for (p, uci, san) in cases {
            assert_eq!(p.san(mv(uci)).unwrap(), san, "{uci} in {}", p.fen());
            assert_eq!(p.parse_san(san).unwrap(), mv(uci));
        }
    }

    #[test]
    fn disambiguation_uses_legal_moves_only() {
        // The knight on c3 is pinned by the bishop on b4: Ne2 is not ambiguous.
        let p = pos("4k3/8/8/8/1b6/2N5/8/4K1N1 w - - 0 1");
        assert_eq!(p.san(mv("g1e2")).unwrap(), "Ne2");
    }

    #[test]
    fn lenient_reader() {
        let castles = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        for s in ["O-O", "0-0", "O-O+", "o-o", "O-O!?"] {
            assert_eq!(castles.parse_san(s).unwrap(), mv("e1g1"), "{s}");
        }
        assert_eq!(castles.parse_san("0-0-0").unwrap(), mv("e1c1"));
        let ep = pos("k7/8/8/3pP3/8/8/8/K7 w - d6 0 2");
        for s in ["exd6", "exd6e.p.", "exd6 e.p.", "ed6", "e5xd6", "e5d6"] {
            assert_eq!(ep.parse_san(s).unwrap(), mv("e5d6"), "{s}");
        }
        let promo = pos("k7/4P3/8/8/8/8/8/K7 w - - 0 1");
        for s in ["e8=Q", "e8Q", "e8(Q)", "e8=Q+", "e8/Q", "e7e8q"] {
            assert_eq!(promo.parse_san(s).unwrap(), mv("e7e8q"), "{s}");
        }
        let start = Position::start();
        for s in ["Nf3", "Ng1f3", "Ng1-f3", "g1f3", "Nf3!", "Nf3?!"] {
            assert_eq!(start.parse_san(s).unwrap(), mv("g1f3"), "{s}");
        }
    }

    #[test]
    fn reader_errors() {
        let start = Position::start();
        assert!(matches!(
            start.parse_san("Nf4"),
            Err(SanError::Illegal { .. })
        ));
        assert!(matches!(
            start.parse_san("O-O"),
            Err(SanError::Illegal { .. })
        ));
        assert!(matches!(
            start.parse_san("Zf3"),
            Err(SanError::Syntax { .. })
        ));
        assert!(matches!(start.parse_san(""), Err(SanError::Syntax { .. })));
        let two_rooks = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        assert!(matches!(
            two_rooks.parse_san("Rd1"),
            Err(SanError::Ambiguous { .. })
        ));
        // A promotion must name its piece.
        let promo = pos("k7/4P3/8/8/8/8/8/K7 w - - 0 1");
        assert!(promo.parse_san("e8").is_err());
        assert!(promo.parse_san("e8=K").is_err());
    }
}
