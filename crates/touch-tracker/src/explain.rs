//! Plain words for an illegal move ruling and a clock's period gone wrong, for the
//! arbiter's screen.

use chess_rules::{
    Attempt, CastleSide, Color, IllegalCategory, Move, Piece, Placement, Position, RestoreStep,
    Role, Variant,
};

use crate::events::{ClockMismatchEvent, MismatchReason};

/// The pieces knocked over (art. 7.4), from the steps that re-establish them: "pawn c2
/// knocked over", "black knight f6 knocked onto g5". The mover's own pieces go without
/// their colour.
pub fn displaced(base: &Position, steps: &[RestoreStep]) -> String {
    let mover = base.side_to_move();
    let name = |p: Piece| {
        if p.color == mover {
            p.role.to_string()
        } else {
            format!("{} {}", p.color, p.role)
        }
    };
    let beside = |a: chess_rules::Square, b: chess_rules::Square| {
        a.file().index().abs_diff(b.file().index()) <= 1
            && a.rank().index().abs_diff(b.rank().index()) <= 1
    };
    let mut used = vec![false; steps.len()];
    let mut parts = Vec::new();
    for step in steps {
        let RestoreStep::Put { square, piece } = *step else {
            continue;
        };
        // The square it was knocked onto: one beside it holding that kind of piece.
        let onto = steps.iter().enumerate().find_map(|(i, s)| match *s {
            RestoreStep::Remove {
                square: n,
                piece: p,
            } if p == piece && !used[i] && beside(n, square) => {
                used[i] = true;
                Some(n)
            }
            _ => None,
        });
        parts.push(match onto {
            Some(n) => format!("{} {square} knocked onto {n}", name(piece)),
            None => format!("{} {square} knocked over", name(piece)),
        });
    }
    parts.join(", ")
}

/// One sentence saying what was wrong with the attempt in `base` (the position the
/// offender moved from); `observed` is what the board showed at the press.
pub fn illegal(
    base: &Position,
    observed: &Placement,
    category: IllegalCategory,
    attempt: Option<&Attempt>,
) -> String {
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
        (IllegalCategory::PieceAddedOrRemoved, _) => added_or_removed(base, observed),
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

/// What appeared from off the board and what went off it, square by square: "a black
/// knight was put on c3 from off the board, in place of the white pawn".
fn added_or_removed(base: &Position, observed: &Placement) -> String {
    let diff: Vec<_> = base.placement().diff(observed).collect();
    let name = |p: Piece| format!("{} {}", p.color, p.role);
    let mut parts = Vec::new();
    for d in &diff {
        // A piece that also left (or arrived on) another square moved: not added/removed.
        let came = d.after.filter(|&p| {
            !diff
                .iter()
                .any(|o| o.square != d.square && o.before == Some(p))
        });
        let went = d.before.filter(|&p| {
            !diff
                .iter()
                .any(|o| o.square != d.square && o.after == Some(p))
        });
        match (came, went, d.before) {
            (Some(new), _, Some(old)) => parts.push(format!(
                "a {} was put on {} from off the board, in place of the {}",
                name(new),
                d.square,
                name(old)
            )),
            (Some(new), _, None) => parts.push(format!(
                "a {} was put on {} from off the board",
                name(new),
                d.square
            )),
            (None, Some(old), _) if d.after.is_none() => parts.push(format!(
                "the {} on {} was taken off the board",
                name(old),
                d.square
            )),
            _ => {}
        }
    }
    if parts.is_empty() {
        return "a piece was added to the board or taken off it".to_owned();
    }
    parts.join("; ")
}

/// Why a castling is illegal (arbiter-rules §6; Guidelines II.3 for Chess960, where the
/// attempt is the king taking its rook and the king's target is g or c wherever it stood).
fn castling(base: &Position, a: &Attempt) -> String {
    let mover = base.side_to_move();
    let Some(side) = base.castle_side(Move::new(a.from, a.to, None)) else {
        return "castling is not allowed here".to_owned();
    };
    let name = match side {
        CastleSide::KingSide => "short",
        CastleSide::QueenSide => "long",
    };
    let rank = mover.back_rank();
    let king_to = chess_rules::Square::new(side.king_to_file(), rank);
    let right_rook = base.castling().rook_file(mover, side);
    // The squares the king crosses on its way to its target (f1 or d1 from e1).
    let (lo, hi) = {
        let (f, t) = (a.from.file().index(), king_to.file().index());
        (f.min(t) + 1, f.max(t))
    };
    let crossed = chess_rules::File::ALL
        .into_iter()
        .filter(|f| (lo..hi).contains(&f.index()))
        .map(|f| chess_rules::Square::new(f, rank));
    let reason = if right_rook.is_none() {
        "the king or that rook has moved before"
    } else if base.variant() == Variant::Chess960 && right_rook != Some(a.to.file()) {
        "that rook is not the one the castling right belongs to"
    } else if base.is_check() {
        "the king is in check"
    } else if crossed
        .clone()
        .any(|sq| base.is_attacked(sq, mover.opponent()))
    {
        "the king would cross an attacked square"
    } else if base.is_attacked(king_to, mover.opponent()) {
        "the king would land in check"
    } else {
        "there are pieces between the king and the rook"
    };
    format!("{name} castling for {mover} is not allowed: {reason}")
}

fn letter(role: Role) -> String {
    role.san_char().map(String::from).unwrap_or_default()
}

/// A time for people: `1:30:00`, `2:31`.
pub(crate) fn hms(ms: u64) -> String {
    let secs = ms / 1000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// A period's time and its number for people: "the 30:00 of period 2" (`index` 0-based).
fn period_words(index: u32, period_ms: u64) -> String {
    format!(
        "the {} of period {}",
        hms(period_ms),
        index.saturating_add(1)
    )
}

/// Words for a `clock_mismatch` seen at a press: period `index` (0-based) gives
/// `period_ms`. Art. 6.10.2: the clock's setting is wrong; the arbiter corrects it, no
/// penalty, no result.
pub fn clock_mismatch(e: &ClockMismatchEvent, index: u32, period_ms: u64) -> String {
    let who = e.color;
    let period = period_words(index, period_ms);
    match e.reason {
        MismatchReason::PeriodAddedEarly if e.move_number >= e.due_move => format!(
            "{who}'s clock added {period} at a press that was no move, before he completed \
             move {}: the clock counts presses, not moves (art. 6.10.2); set its move \
             counter right; no penalty, no result",
            e.due_move
        ),
        MismatchReason::PeriodAddedEarly => format!(
            "{who}'s clock added {period} at the press of his move {}, but it is due at the \
             press of move {}: the clock counts a press that was no move, or is set wrong \
             (art. 6.10.2); set its move counter right; no penalty, no result",
            e.move_number, e.due_move
        ),
        MismatchReason::PeriodAddedLate => format!(
            "{who}'s clock added {period} at the press of his move {}; it was due at the \
             press of move {} (art. 6.10.2: the clock is set wrong or missed a press); \
             no penalty, no result",
            e.move_number, e.due_move
        ),
        MismatchReason::PeriodNotAdded => format!(
            "{who} completed move {} and his clock did not add {period}: it shows {}, it \
             should show {} (art. 6.10.2: the arbiter corrects the clock); no penalty, no \
             result",
            e.due_move,
            hms(e.clock_ms),
            hms(e.expected_ms.unwrap_or(e.clock_ms)),
        ),
    }
}

/// Words for a clock at 0:00 after the player completed the period's moves: not a flag
/// fall (art. 6.9 needs the period's time to have run out; art. 6.10.2, the clock is
/// wrong).
pub fn clock_at_zero(e: &ClockMismatchEvent, index: u32, period_ms: u64) -> String {
    format!(
        "{}'s clock shows 0:00 after he completed move {}: {} was never added, so this is \
         not a flag fall (art. 6.9, 6.10.2); the arbiter sets the clock right (about {} \
         more); no result",
        e.color,
        e.due_move,
        period_words(index, period_ms),
        hms(period_ms)
    )
}

/// The sentence added to an illegal-move ruling in a game with periods still to come: the
/// DGT3000 counted the press as a move (art. 6.10.2 if left so).
pub fn clock_counted_press(offender: Color) -> String {
    format!(
        "; {COUNTED_PRESS} of {offender}'s: take its move counter back by one, or the next \
         period's time comes a move early"
    )
}

// The words `clock_counted_press` begins with (what `IllegalMoveEvent` looks for).
pub(crate) use arbiter_events::COUNTED_PRESS;

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
                p.placement(),
                IllegalCategory::PieceMovement,
                Some(&att("f1", "f3", 'B'))
            ),
            "Bf1-f3 is not a bishop move"
        );
        assert!(
            illegal(&p, p.placement(), IllegalCategory::ClockWithoutMove, None).contains("without")
        );
        let pinned = Position::from_fen("4k3/4r3/8/8/8/4N3/8/4K3 w - - 0 1").unwrap();
        assert_eq!(
            illegal(
                &pinned,
                pinned.placement(),
                IllegalCategory::KingInCheck,
                Some(&att("e3", "c4", 'N'))
            ),
            "Ne3-c4 would leave the white king on e1 in check"
        );
        let c = Position::from_fen("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1").unwrap();
        assert!(illegal(
            &c,
            c.placement(),
            IllegalCategory::Castling,
            Some(&att("e1", "g1", 'K'))
        )
        .contains("cross an attacked square"));
        // A captured black knight brought back onto c3, where the white pawn stood.
        let q = Position::from_fen("r1bqkbnr/pppppppp/8/8/8/2P5/PP1PPPPP/R1BQKBNR w KQkq - 0 3")
            .unwrap();
        let mut seen = *q.placement();
        seen.set(
            "c3".parse().unwrap(),
            Some(Piece::from_fen_char('n').unwrap()),
        );
        assert_eq!(
            illegal(&q, &seen, IllegalCategory::PieceAddedOrRemoved, None),
            "a black knight was put on c3 from off the board, in place of the white pawn"
        );
        let mut gone = *q.placement();
        gone.set("g1".parse().unwrap(), None);
        assert_eq!(
            illegal(&q, &gone, IllegalCategory::PieceAddedOrRemoved, None),
            "the white knight on g1 was taken off the board"
        );
    }
}
