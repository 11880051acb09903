//! Plain words for an illegal move ruling, for the arbiter's screen.

use chess_rules::{Attempt, CastleSide, IllegalCategory, Move, Position, Role};

/// One sentence saying what was wrong with the attempt in `base` (the position the
/// offender moved from).
pub fn illegal(base: &Position, category: IllegalCategory, attempt: Option<&Attempt>) -> String {
    let mover = base.side_to_move();
    let shape = |a: &Attempt| format!("{}{}-{}", letter(a.piece.role), a.from, a.to);
    match (category, attempt) {
        (IllegalCategory::ClockWithoutMove, _) => {
            format!("{mover} pressed the clock without making a move")
        }
        (IllegalCategory::UnpromotedPawn, Some(a)) => format!(
            "the pawn moved {}-{} to the last rank and was not promoted; it becomes a queen",
            a.from, a.to
        ),
        (IllegalCategory::WrongColor, Some(a)) => format!(
            "{mover} moved a {} piece: the {} {}-{}",
            mover.opponent(),
            a.piece.role,
            a.from,
            a.to
        ),
        (IllegalCategory::WrongColor, None) => {
            format!("{mover} moved a {} piece", mover.opponent())
        }
        (IllegalCategory::MultipleMoves, _) => {
            format!("more than one {mover} piece moved")
        }
        (IllegalCategory::PieceAddedOrRemoved, _) => {
            "a piece was added to the board or taken off it".to_owned()
        }
        (IllegalCategory::Castling, Some(a)) => castling(base, a),
        (IllegalCategory::Castling, None) => "castling is not allowed here".to_owned(),
        (IllegalCategory::EnPassant, Some(a)) => format!(
            "the en passant capture {}x{} is not allowed here (only at once after the double \
             step, and not into check)",
            a.from, a.to
        ),
        (IllegalCategory::PieceMovement, Some(a)) => {
            format!("{} is not a {} move", shape(a), a.piece.role)
        }
        (IllegalCategory::KingInCheck, Some(a)) => {
            let king = base.king(mover);
            if a.piece.role == Role::King {
                format!(
                    "{}: the {mover} king would be in check on {}",
                    shape(a),
                    a.to
                )
            } else if base.is_check() {
                format!(
                    "{} does not get the {mover} king on {king} out of check",
                    shape(a)
                )
            } else {
                format!(
                    "{} would leave the {mover} king on {king} in check",
                    shape(a)
                )
            }
        }
        (IllegalCategory::TwoHanded, _) => "the move was made with two hands".to_owned(),
        (c, _) => format!("illegal move ({c})"),
    }
}

fn castling(base: &Position, a: &Attempt) -> String {
    let mover = base.side_to_move();
    let Some(side) = base.castle_side(Move::new(a.from, a.to, None)) else {
        return "castling is not allowed here".to_owned();
    };
    let name = match side {
        CastleSide::KingSide => "short",
        CastleSide::QueenSide => "long",
    };
    let reason = if !base.castling().has(mover, side) {
        "the king or that rook has moved before"
    } else if base.is_check() {
        "the king is in check"
    } else {
        let passing = Move::new(
            a.from,
            chess_rules::Square::new(side.rook_to_file(), mover.back_rank()),
            None,
        );
        if base.is_attacked(passing.to, mover.opponent()) {
            "the king would cross an attacked square"
        } else if base.is_attacked(a.to, mover.opponent()) {
            "the king would land in check"
        } else {
            "there are pieces between the king and the rook"
        }
    };
    format!("{name} castling for {mover} is not allowed: {reason}")
}

fn letter(role: Role) -> String {
    role.san_char().map(String::from).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_rules::Piece;

    fn att(from: &str, to: &str, p: char) -> Attempt {
        Attempt {
            from: from.parse().unwrap(),
            to: to.parse().unwrap(),
            piece: Piece::from_fen_char(p).unwrap(),
        }
    }

    #[test]
    fn sentences() {
        let p = Position::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
            .unwrap();
        assert_eq!(
            illegal(
                &p,
                IllegalCategory::PieceMovement,
                Some(&att("f1", "f3", 'B'))
            ),
            "Bf1-f3 is not a bishop move"
        );
        assert!(illegal(&p, IllegalCategory::ClockWithoutMove, None).contains("without"));
        let pinned = Position::from_fen("4k3/4r3/8/8/8/4N3/8/4K3 w - - 0 1").unwrap();
        assert_eq!(
            illegal(
                &pinned,
                IllegalCategory::KingInCheck,
                Some(&att("e3", "c4", 'N'))
            ),
            "Ne3-c4 would leave the white king on e1 in check"
        );
        let c = Position::from_fen("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1").unwrap();
        assert!(
            illegal(&c, IllegalCategory::Castling, Some(&att("e1", "g1", 'K')))
                .contains("cross an attacked square")
        );
    }
}
