//! Chess960 (Laws, Guidelines II): the 960 start positions by their number (Scharnagl
//! numbering, 518 = the standard set-up) and the X-FEN / Shredder-FEN castling field. The
//! castling moves and the reading of the castling field are in [`crate::position`].

use crate::placement::Placement;
use crate::position::castling_field::{home_king, outermost};
use crate::position::{CastleSide, CastlingRights, Position, PositionError};
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

    /// A Chess960 game's start from the placement a board shows (formats.md: without a
    /// `start-fen` the first board dump gives it): White to move, every castling right the
    /// placement allows (for each king on its back rank, the outermost rook of its colour
    /// on each side of it: X-FEN `KQkq`), counters 0 and 1.
    pub fn from_placement_960(placement: Placement) -> Result<Position, PositionError> {
        let mut rights = CastlingRights::NONE;
        for color in Color::ALL {
            if let Some(king) = home_king(&placement, color) {
                for side in CastleSide::ALL {
                    let file = outermost(&placement, color, king, side);
                    rights = rights.with_rook_file(color, side, file);
                }
            }
        }
        Position::from_parts_960(placement, Color::White, rights, None, 0, 1)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{FenError, Variant};
    use crate::test_util::{mv, pos, pos960};

    #[test]
    fn start_positions_by_number() {
        let standard = Position::start_960(STANDARD_POSITION_NUMBER).unwrap();
        assert_eq!(standard.placement(), Position::start().placement());
        assert_eq!(standard.variant(), Variant::Chess960);
        assert_eq!(standard.fen(), crate::START_FEN);
        assert_eq!(Position::start().chess960_number(), Some(518));
        let first = |n| Position::start_960(n).unwrap().fen();
        assert!(first(0).starts_with("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq"));
        assert!(first(959).starts_with("rkrnnqbb/"), "{}", first(959));
        assert_eq!(Position::start_960(960), Err(PositionNumberError(960)));
        // Every number gives a distinct legal set-up with the king between its rooks.
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let p = Position::start_960(n).unwrap();
            assert!(seen.insert(*p.placement()), "{n}");
            assert_eq!(p.chess960_number(), Some(n));
            let rights = p.castling();
            let king = p.king(Color::White).file();
            assert!(rights.rook_file(Color::White, CastleSide::QueenSide) < Some(king));
            assert!(rights.rook_file(Color::White, CastleSide::KingSide) > Some(king));
        }
    }

    #[test]
    fn a_start_from_the_board_gets_every_right_its_placement_allows() {
        for n in [0, 518, 959, 314] {
            let start = Position::start_960(n).unwrap();
            let from_board = Position::from_placement_960(*start.placement()).unwrap();
            assert_eq!(from_board, start, "{n}");
        }
        // A king without rooks beside it on its rank has none; two rooks on one side: the
        // outer one.
        let p = pos960("4k3/8/8/8/8/8/8/1KR4R w - - 0 1");
        let p = Position::from_placement_960(*p.placement()).unwrap();
        assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/1KR4R w K - 0 1");
    }

    #[test]
    fn position_518_castles_as_the_king_taking_its_rook() {
        let p = pos960("rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQK2R w KQkq - 0 1");
        assert_eq!(p.castling_move(CastleSide::KingSide), Some(mv("e1h1")));
        assert!(!p.is_legal(mv("e1g1")));
        assert!(p.parse_uci("e1g1").is_err());
        assert_eq!(p.parse_uci("e1h1"), Ok(mv("e1h1")));
        assert_eq!(p.san(mv("e1h1")).as_deref(), Ok("O-O"));
        assert_eq!(p.parse_san("O-O"), Ok(mv("e1h1")));
        let after = p.play(mv("e1h1")).unwrap();
        assert_eq!(
            after.fen(),
            "rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1RK1 b kq - 1 1"
        );
        // The same set-up in a standard game castles e1g1.
        let s = pos("rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQK2R w KQkq - 0 1");
        assert_eq!(s.castling_move(CastleSide::KingSide), Some(mv("e1g1")));
    }

    /// The position after castling to `side` in `fen` (which must be legal).
    fn castled(fen: &str, side: CastleSide) -> String {
        let p = pos960(fen);
        let m = p.castling_move(side).unwrap();
        assert_eq!(p.san(m).as_deref(), Ok(side.san()));
        p.play(m).unwrap().fen()
    }

    #[test]
    fn castling_edge_cases() {
        use CastleSide::{KingSide, QueenSide};
        // King and rook adjacent (f1, g1): they swap.
        assert_eq!(
            castled("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", KingSide),
            "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"
        );
        // What the move does on the board: the king lands on g1, the rook goes f1.
        let p = pos960("4k3/8/8/8/8/8/8/5KR1 w G - 0 1");
        let info = p.move_info(mv("f1g1")).unwrap();
        assert_eq!(info.capture, None);
        assert_eq!(info.castling, Some((KingSide, Square::G1, Square::F1)));
        assert_eq!(info.landing(), Square::G1);
        let info = pos960("4k3/8/8/8/8/8/8/RK6 w A - 0 1")
            .move_info(mv("b1a1"))
            .unwrap();
        assert_eq!(info.landing(), Square::C1);
        assert_eq!(info.castling, Some((QueenSide, Square::A1, Square::D1)));
        // The king already on g1: only the rook moves.
        assert_eq!(
            castled("4k3/8/8/8/8/8/8/6KR w H - 0 1", KingSide),
            "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"
        );
        // The rook already on f1: only the king moves, over it.
        assert_eq!(
            castled("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", KingSide),
            "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"
        );
        // King on b1, rook on a1: O-O-O, king c1 and rook d1.
        assert_eq!(
            castled("4k3/8/8/8/8/8/8/RK6 w A - 0 1", QueenSide),
            "4k3/8/8/8/8/8/8/2KR4 b - - 1 1"
        );
        // The other rook stands on f1: O-O (rook h1 to f1) is blocked by it; O-O-O with
        // that rook (king g1 to c1, rook f1 to d1) is not.
        let p = pos960("4k3/8/8/8/8/8/8/5RKR w HF - 0 1");
        assert!(!p.can_castle(KingSide));
        assert_eq!(p.castling_move(QueenSide), Some(mv("g1f1")));
        assert_eq!(
            p.play(mv("g1f1")).unwrap().fen(),
            "4k3/8/8/8/8/8/8/2KR3R b - - 1 1"
        );
        // Castling through the other rook's square: king b1, rooks c1 and h1, right for h1.
        let p = pos960("4k3/8/8/8/8/8/8/1KR4R w H - 0 1");
        assert!(!p.can_castle(KingSide));
        // An attacked square the king crosses (e1, by the rook on e8).
        let p = pos960("4r1k1/8/8/8/8/8/8/1K5R w H - 0 1");
        assert!(!p.can_castle(KingSide));
        assert!(!p.is_legal(mv("b1h1")));
        // The castling rook shades the king's target: king d1, rook b1, black rook a1.
        let p = pos960("4k3/8/8/8/8/8/8/rR1K4 w B - 0 1");
        assert!(!p.can_castle(QueenSide));
        // Out of check, and the right gone: no castling.
        assert!(!pos960("3rk3/8/8/8/8/8/8/R2K4 w A - 0 1").can_castle(QueenSide));
        assert!(!pos960("4k3/8/8/8/8/8/8/5KR1 w - - 0 1").can_castle(KingSide));
    }

    #[test]
    fn rights_follow_the_rooks_and_x_fen_names_them() {
        // Two rooks on the king's side, the right with the inner one: X-FEN names its file.
        let p = pos960("4k3/8/8/8/8/8/8/1KR4R w C - 0 1");
        assert_eq!(
            p.castling().rook_file(Color::White, CastleSide::KingSide),
            Some(File::C)
        );
        assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/1KR4R w C - 0 1");
        // `K` is the outermost rook; Shredder's `H` is the same right.
        let k = pos960("4k3/8/8/8/8/8/8/1KR4R w K - 0 1");
        assert_eq!(
            k.castling().rook_file(Color::White, CastleSide::KingSide),
            Some(File::H)
        );
        assert_eq!(pos960("4k3/8/8/8/8/8/8/1KR4R w H - 0 1"), k);
        assert_eq!(k.fen(), "4k3/8/8/8/8/8/8/1KR4R w K - 0 1");
        // Same placement, different castling rook: different positions (art. 9.2.2).
        assert_ne!(p.repetition_key(), k.repetition_key());
        assert_ne!(p.repetition_hash(), k.repetition_hash());
        // The outer rook moves away: the c1 rook's right is now written `K`.
        let q = pos960("4k3/8/8/8/8/8/8/1KR4R w C - 0 1")
            .play(mv("h1h2"))
            .unwrap();
        assert_eq!(q.fen(), "4k3/8/8/8/8/8/7R/1KR5 b K - 1 1");
        assert_eq!(pos960(&q.fen()), q);
        // A captured rook loses its right.
        let c = pos960("1r2k3/8/8/8/8/8/8/1RK4R b HB - 0 1");
        let c = c.play(mv("b8b1")).unwrap();
        assert_eq!(c.castling().fen_field(), "K");
        assert_eq!(c.fen(), "4k3/8/8/8/8/8/8/1rK4R w K - 0 2");
    }

    #[test]
    fn x_fen_and_shredder_fen_read_back() {
        for (input, x_fen) in [
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
            ),
            (
                "2r5/8/8/8/8/8/6PP/k2KR3 w E - 0 1",
                "2r5/8/8/8/8/8/6PP/k2KR3 w K - 0 1",
            ),
            (
                "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
                "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
            ),
            (
                "rr2k2r/8/8/8/8/8/8/RR2K2R w BHbh - 0 1",
                "rr2k2r/8/8/8/8/8/8/RR2K2R w KBkb - 0 1",
            ),
        ] {
            let p = pos960(input);
            assert_eq!(p.fen(), x_fen, "{input}");
            assert_eq!(pos960(&p.shredder_fen()), p, "{input}");
            assert!(
                !p.shredder_fen()
                    .split(' ')
                    .nth(2)
                    .unwrap_or("K")
                    .contains(['K', 'Q', 'k', 'q']),
                "{}",
                p.shredder_fen()
            );
            assert_eq!(pos960(x_fen), p, "{x_fen}");
        }
    }

    #[test]
    fn bad_castling_fields_are_refused() {
        for fen in [
            // No rook on the king's side, a letter that is no file, a right twice, the
            // king's own file, a rook file with no rook on it.
            "4k3/8/8/8/8/8/8/RK6 w K - 0 1",
            "4k3/8/8/8/8/8/8/RK6 w X - 0 1",
            "4k3/8/8/8/8/8/8/RK5R w HK - 0 1",
            "4k3/8/8/8/8/8/8/RK6 w B - 0 1",
            "4k3/8/8/8/8/8/8/RK6 w G - 0 1",
            "4k3/8/8/8/8/8/8/RK6 w  - 0 1",
        ] {
            assert!(Position::from_fen_960(fen).is_err(), "{fen}");
        }
        assert!(matches!(
            Position::from_fen_960("4k3/8/8/8/8/8/8/RK6 w G - 0 1"),
            Err(FenError::Position { .. })
        ));
        // The standard reader stays strict: no file letters.
        assert!(
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1").is_err()
        );
    }
}
