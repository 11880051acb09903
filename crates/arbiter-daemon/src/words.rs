//! Rulings in plain words, one line each, for the arbiter's terminal, logs and PGN
//! comments: "board 3, move 14, Black: illegal move (king left in check) Nf6-d5; put back:
//! take Nd5 off, put N on f6; add 1:00 to White: 2:31 -> 3:31".

use chess_rules::{Attempt, Color, IllegalCategory, Move, Piece, RestoreStep, Role};
use touch_tracker::events::{
    DisplacedEvent, IllegalMoveEvent, RecoveryUncertainEvent, TouchMoveEvent,
};
use touch_tracker::{
    ArbiterEvent, BoardStatus, ClaimReason, ClockMismatchEvent, EndReason, EventKind,
    MismatchReason, Obligation,
};

/// `M:SS`, or `H:MM:SS` from an hour on (clock displays; whole seconds).
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// `White` / `Black`.
pub fn side(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Why a game ended, in words for people ("checkmate", "result set with the kings").
pub fn end_reason(r: EndReason) -> String {
    match r {
        EndReason::ResultOnBoard => "result set with the kings".to_owned(),
        EndReason::SeventyFiveMoves => "75-move rule".to_owned(),
        EndReason::FiftyMoves => "50-move rule".to_owned(),
        EndReason::Fivefold => "fivefold repetition".to_owned(),
        EndReason::Threefold => "threefold repetition".to_owned(),
        other => other.name().replace('_', " "),
    }
}

/// Whether an event is a ruling or a suspicion the arbiter rules on (an illegal move,
/// one that stands, a touch-move violation, a two-handed move), not a notice.
pub fn is_ruling(e: &ArbiterEvent) -> bool {
    match &e.kind {
        EventKind::IllegalMove(_)
        | EventKind::IllegalMoveStands(_)
        | EventKind::TwoHandedSuspected(_) => true,
        EventKind::TouchMove(t) => t.violation,
        _ => false,
    }
}

/// The full move number of a ply (ply 27 is move 14).
pub fn move_number(ply: u32) -> u32 {
    ply.div_ceil(2).max(1)
}

/// What a category of illegal move is, in a few words.
pub fn category(c: IllegalCategory) -> &'static str {
    match c {
        IllegalCategory::KingInCheck => "king left in check",
        IllegalCategory::Castling => "castling not allowed",
        IllegalCategory::EnPassant => "en passant not allowed",
        IllegalCategory::PieceMovement => "piece moved against its rules",
        IllegalCategory::UnpromotedPawn => "pawn not promoted",
        IllegalCategory::ClockWithoutMove => "clock pressed without a move",
        IllegalCategory::WrongColor => "opponent's piece moved",
        IllegalCategory::MultipleMoves => "more than one move",
        IllegalCategory::PieceAddedOrRemoved => "piece added or removed",
        IllegalCategory::TwoHanded => "two-handed move",
        IllegalCategory::Other => "illegal move",
    }
}

/// `N` for a knight, `` for a pawn (SAN letters).
fn letter(p: Piece) -> String {
    p.role.san_char().map(String::from).unwrap_or_default()
}

fn attempt(a: &Attempt) -> String {
    format!("{}{}-{}", letter(a.piece), a.from, a.to)
}

fn piece_name(p: Piece) -> String {
    match p.role {
        Role::Pawn => format!("{} pawn", p.color),
        r => format!("{} {r}", p.color),
    }
}

/// Restore steps in plain words: "take the white bishop off f3, put a white bishop on f1".
pub fn steps(steps: &[RestoreStep]) -> String {
    steps
        .iter()
        .map(|s| match *s {
            RestoreStep::Remove { square, piece } => {
                format!("take the {} off {square}", piece_name(piece))
            }
            RestoreStep::Put { square, piece } => {
                format!("put a {} on {square}", piece_name(piece))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The ruling on an illegal move, without the board prefix.
pub fn illegal(i: &IllegalMoveEvent) -> String {
    let mut out = format!("{}: illegal move ({})", side(i.color), category(i.category));
    if let Some(a) = &i.attempt {
        out.push(' ');
        out.push_str(&attempt(a));
    }
    if i.category == IllegalCategory::PieceAddedOrRemoved && !i.explanation.is_empty() {
        // What came on or went off the board, square by square.
        out.push_str(&format!(": {}", i.explanation));
    }
    if i.count > 1 {
        out.push_str(&format!(", their illegal move no. {}", i.count));
    }
    if i.clock_counted_press() && i.category != IllegalCategory::PieceAddedOrRemoved {
        // Periods to come (arbiter-rules.md section 5): the clock's count is one ahead.
        out.push_str("; the clock counted this press as a move: take its move counter back by one");
    }
    if !i.restore.is_empty() {
        let what = if i.category == IllegalCategory::UnpromotedPawn {
            "correct"
        } else {
            "put back"
        };
        out.push_str(&format!("; {what}: {}", steps(&i.restore)));
    }
    if let Some(sq) = i.must_move {
        out.push_str(&format!("; the piece on {sq} must move (touch-move)"));
    }
    if let Some(p) = i.penalty {
        match (i.clock_before, i.clock_after) {
            (Some(before), Some(after)) => {
                out.push_str(&format!(
                    "; add {} to {}: {} -> {}",
                    clock(p.add_ms),
                    side(p.to),
                    clock(before.get(p.to)),
                    clock(after.get(p.to))
                ));
                let me = p.to.opponent();
                if after.get(me) != before.get(me) {
                    out.push_str(&format!(
                        "; {} {} -> {} (increment of the illegal press taken back)",
                        side(me),
                        clock(before.get(me)),
                        clock(after.get(me))
                    ));
                }
            }
            _ => out.push_str(&format!("; add {} to {}", clock(p.add_ms), side(p.to))),
        }
    }
    if let Some(r) = i.result {
        out.push_str(&format!("; second illegal move: the game ends {r}"));
        if i.result_undetermined {
            out.push_str(" (whether the opponent can still mate is undetermined: arbiter, look)");
        }
    }
    out
}

/// The move in SAN for a sentence; its UCI only for an event that has no SAN (written
/// before events carried it).
fn san_or(san: &str, uci: Move) -> String {
    if san.is_empty() {
        uci.to_string()
    } else {
        san.to_owned()
    }
}

fn touch(t: &TouchMoveEvent) -> String {
    let touched: Vec<String> = t
        .touched
        .iter()
        .map(|x| format!("{}{}", letter(x.piece), x.square))
        .collect();
    let duty = match t.obligation {
        Obligation::Move => format!("the piece on {} had to move", t.square),
        Obligation::Capture => format!("the piece on {} had to be captured", t.square),
        Obligation::Castle => format!("castling with the rook on {} was due", t.square),
        Obligation::KingMove => "the king had to move".to_owned(),
    };
    format!(
        "{}: possible touch-move violation: touched {} in that order, so {duty}; played {}",
        side(t.color),
        touched.join(", "),
        san_or(&t.played_san, t.played)
    )
}

/// Pieces knocked over with a move (art. 7.4): not an illegal move; what to put back.
pub fn displaced(d: &DisplacedEvent) -> String {
    if d.reestablished {
        return format!("{}: {}, re-established", side(d.color), d.explanation);
    }
    format!(
        "{}: {} (art. 7.4: displaced, not an illegal move; the arbiter may penalise); \
         re-establish: {}",
        side(d.color),
        d.explanation,
        steps(&d.squares)
    )
}

/// A clock wrong about a period's time (art. 6.10.2: its setting, not the player's
/// fault): what it did, the move it was due at, and what to set; never a penalty.
pub fn clock_mismatch(m: &ClockMismatchEvent) -> String {
    let what = match m.reason {
        // Seen at a press that was no move (the move it belongs to is not completed).
        MismatchReason::PeriodAddedEarly if m.move_number >= m.due_move => format!(
            "the clock added the next period's time at a press that was no move, before move \
             {} was completed (set its move counter right)",
            m.due_move
        ),
        MismatchReason::PeriodAddedEarly => format!(
            "the clock added the next period's time at move {}, but it is due at move {} \
             (the clock counted a press that was no move: set its move counter right)",
            m.move_number, m.due_move
        ),
        MismatchReason::PeriodAddedLate => format!(
            "the clock added the next period's time at move {}; it was due at move {}",
            m.move_number, m.due_move
        ),
        MismatchReason::PeriodNotAdded => format!(
            "the clock did not add the next period's time due at move {}",
            m.due_move
        ),
    };
    let set = m
        .expected_ms
        .map(|e| {
            format!(
                "; set {}'s clock: {} -> {}",
                side(m.color),
                clock(m.clock_ms),
                clock(e)
            )
        })
        .unwrap_or_default();
    format!(
        "{}: clock mismatch: {what} (art. 6.10.2){set}; no penalty, no result",
        side(m.color)
    )
}

/// The moves rebuilt after a disconnection, and what else could have been played.
fn uncertain(r: &RecoveryUncertainEvent) -> String {
    format!(
        "the moves made while the board could not be read are uncertain: recorded {}; \
         the board shows the same squares after {}; check the scoresheets",
        r.recorded_san,
        r.alternatives_san.join(", or after ")
    )
}

/// One line for a ruling or alert (`None` for moves, board status and other routine
/// events). Prefixed with the board and the move it concerns.
pub fn ruling(e: &ArbiterEvent) -> Option<String> {
    let prefix = |ply: u32| format!("board {}, move {}, ", e.board, move_number(ply));
    Some(match &e.kind {
        EventKind::IllegalMove(i) => format!("{}{}", prefix(i.ply), illegal(i)),
        EventKind::Restored { .. } => format!("board {}: position restored", e.board),
        EventKind::TouchMove(t) if t.violation => format!("{}{}", prefix(t.ply), touch(t)),
        EventKind::TwoHandedSuspected(t) => format!(
            "{}{}: two-handed move suspected ({}): {}",
            prefix(t.ply),
            side(t.color),
            san_or(&t.san, t.uci),
            t.evidence
        ),
        EventKind::DrawClaimable(d) => format!(
            "{}{} may claim a draw ({}){}",
            prefix(d.ply + 1),
            side(d.color),
            match d.reason {
                ClaimReason::Threefold => "threefold repetition",
                ClaimReason::FiftyMoves => "50-move rule",
            },
            d.with_move
                .map(|m| format!(" with the move {m}"))
                .unwrap_or_default()
        ),
        EventKind::GameOver(g) => {
            let mut s = format!(
                "board {}: game over after {} plies: {} ({})",
                e.board,
                g.plies,
                g.result,
                end_reason(g.reason)
            );
            if let Some(c) = g.flag {
                s.push_str(&format!(", {}'s flag fell", side(c)));
            }
            if g.undetermined {
                s.push_str("; whether the opponent can still mate is undetermined: arbiter, look");
            }
            s
        }
        EventKind::IllegalMoveStands(s) => format!(
            "board {}: {}'s illegal move stands (the opponent replied before it was \
             corrected); the game goes on from {}",
            e.board,
            side(s.color),
            s.fen
        ),
        EventKind::RecoveryUncertain(r) => format!("{}{}", prefix(r.ply), uncertain(r)),
        EventKind::Displaced(d) => format!("{}{}", prefix(d.ply), displaced(d)),
        EventKind::RulingUnclear(u) => {
            format!("{}{}: {}", prefix(u.ply), side(u.color), u.explanation)
        }
        // The player's own move number, which from the standard start is the full move.
        EventKind::ClockMismatch(m) => format!(
            "board {}, move {}, {}",
            e.board,
            m.move_number,
            clock_mismatch(m)
        ),
        EventKind::PositionAccepted(a) => format!(
            "board {}: {}, {} to move ({}); the moves after ply {} were not seen{}",
            e.board,
            if a.candidates.is_empty() {
                "the arbiter accepted the board as the position".to_owned()
            } else {
                format!(
                    "followed from the position every line found leads to, the order of \
                     its moves not known ({}: the arbiter picks it for the record)",
                    candidate_lines(&a.candidates)
                )
            },
            side(a.side_to_move),
            a.fen,
            a.last_known_ply,
            if a.ply_unknown {
                format!(
                    "; how many were made is not known (at least {}): move numbers from \
                     here may be too low",
                    a.ply - a.last_known_ply
                )
            } else {
                String::new()
            }
        ),
        EventKind::TakenBack(c) => format!(
            "board {}: {}; the board must show it again ({})",
            e.board,
            taken_back(c),
            c.fen
        ),
        EventKind::ArbiterDecision(d) => match d.ply {
            Some(ply) => format!("{}{}", prefix(ply), d.explanation),
            None => format!("board {}: {}", e.board, d.explanation),
        },
        EventKind::BoardStatus(b) if b.status == BoardStatus::OutOfSync => {
            let detail = b
                .detail
                .as_deref()
                .map_or(String::new(), |d| format!(" ({d})"));
            if b.candidates.is_empty() {
                format!(
                    "board {}: the board shows a position no legal moves explain; check \
                     it{detail}",
                    e.board
                )
            } else {
                // Issue 36: lines fit, none is proven; the arbiter picks or types.
                format!(
                    "board {}: the moves made unseen are not known for sure; lines that fit: \
                     {}; check them against the scoresheets{detail}",
                    e.board,
                    candidate_lines(&b.candidates)
                )
            }
        }
        _ => return None,
    })
}

/// A takeback in words: `the arbiter took the game back to ply 20 (3 plies annulled):
/// illegal move found later`.
pub fn taken_back(c: &touch_tracker::events::TakenBackEvent) -> String {
    let annulled = c.from_ply.saturating_sub(c.to_ply);
    let reason = if c.reason.is_empty() {
        String::new()
    } else {
        format!(": {}", c.reason)
    };
    format!(
        "the arbiter took the game back to ply {} ({annulled} {} annulled){reason}",
        c.to_ply,
        if annulled == 1 { "ply" } else { "plies" }
    )
}

/// Lines found after a gap, numbered for the arbiter: `1) 4. O-O Bc5 5. d3; 2) ...`.
pub fn candidate_lines(candidates: &[touch_tracker::GapCandidate]) -> String {
    let lines: Vec<String> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}) {}", i + 1, c.san))
        .collect();
    lines.join("; ")
}

/// The PGN comment for an event (the ruling without the board prefix), if it is one.
pub fn comment(e: &ArbiterEvent) -> Option<String> {
    let text = match &e.kind {
        EventKind::IllegalMove(i) => illegal(i),
        EventKind::TouchMove(t) if t.violation => touch(t),
        EventKind::TwoHandedSuspected(t) => format!(
            "{}: two-handed move suspected: {}",
            side(t.color),
            t.evidence
        ),
        EventKind::RecoveryUncertain(r) => uncertain(r),
        EventKind::RulingUnclear(u) => format!("{}: {}", side(u.color), u.explanation),
        EventKind::ClockMismatch(m) => clock_mismatch(m),
        EventKind::ArbiterDecision(d) => format!("the arbiter's decision: {}", d.explanation),
        EventKind::DrawClaimable(_) | EventKind::IllegalMoveStands(_) => {
            let line = ruling(e)?;
            // Drop "board N, move M, " / "board N: ".
            match line.split_once(", move ") {
                Some((_, rest)) => rest.split_once(", ").map(|(_, r)| r.to_owned())?,
                None => line.split_once(": ").map(|(_, r)| r.to_owned())?,
            }
        }
        _ => return None,
    };
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use touch_tracker::events::{GameOverEvent, IllegalMoveEvent};
    use touch_tracker::{ClockMs, Penalty};

    #[test]
    fn a_period_not_added_says_what_to_set_and_no_penalty() {
        let m = ClockMismatchEvent {
            color: Color::Black,
            reason: MismatchReason::PeriodNotAdded,
            move_number: 40,
            due_move: 40,
            clock_ms: 62_000,
            expected_ms: Some(1_862_000),
            explanation: String::new(),
        };
        let e = ArbiterEvent {
            t_ms: 0,
            board: "3".into(),
            kind: EventKind::ClockMismatch(m.clone()),
        };
        assert_eq!(
            ruling(&e).unwrap(),
            "board 3, move 40, Black: clock mismatch: the clock did not add the next \
             period's time due at move 40 (art. 6.10.2); set Black's clock: 1:02 -> 31:02; \
             no penalty, no result"
        );
        let early = ClockMismatchEvent {
            reason: MismatchReason::PeriodAddedEarly,
            move_number: 39,
            expected_ms: None,
            ..m
        };
        let line = clock_mismatch(&early);
        assert!(
            line.contains("at move 39, but it is due at move 40"),
            "{line}"
        );
        assert!(!line.contains("set Black's clock"), "{line}");
        assert_eq!(
            comment(&e).as_deref(),
            ruling(&e).as_deref().map(|l| &l[18..])
        );
    }

    #[test]
    fn clock_and_numbers() {
        assert_eq!(clock(151_000), "2:31");
        assert_eq!(clock(59_999), "0:59");
        assert_eq!(clock(5_400_000), "1:30:00");
        assert_eq!(move_number(1), 1);
        assert_eq!(move_number(27), 14);
        assert_eq!(move_number(28), 14);
    }

    #[test]
    fn uncertain_lost_moves_name_every_line() {
        let line = |l: &[&str]| l.iter().map(|u| u.parse().unwrap()).collect();
        let e = ArbiterEvent {
            t_ms: 1,
            board: "1".into(),
            kind: EventKind::RecoveryUncertain(RecoveryUncertainEvent {
                ply: 15,
                recorded: line(&["f3d4", "h6g5", "d4f5"]),
                recorded_san: "8. Nd4 Qg5 9. Nf5".into(),
                alternatives: vec![line(&["f3h4", "h6g5", "h4f5"])],
                alternatives_san: vec!["8. Nh4 Qg5 9. Nf5".into()],
            }),
        };
        let text = ruling(&e).unwrap();
        assert!(text.starts_with("board 1, move 8, "), "{text}");
        assert!(
            text.contains("recorded 8. Nd4 Qg5 9. Nf5; the board shows the same squares after 8. Nh4 Qg5 9. Nf5; check the scoresheets"),
            "{text}"
        );
        assert!(comment(&e).unwrap().starts_with("the moves made while"));
    }

    #[test]
    fn an_illegal_move_reads_as_the_ruling() {
        let mut e = ArbiterEvent {
            t_ms: 1,
            board: "3".into(),
            kind: EventKind::IllegalMove(IllegalMoveEvent {
                color: Color::Black,
                category: IllegalCategory::KingInCheck,
                attempt: Some(Attempt {
                    from: "f6".parse().unwrap(),
                    to: "d5".parse().unwrap(),
                    piece: Piece::from_fen_char('n').unwrap(),
                }),
                count: 1,
                restore_fen: String::new(),
                restore: vec![
                    RestoreStep::Remove {
                        square: "d5".parse().unwrap(),
                        piece: Piece::from_fen_char('n').unwrap(),
                    },
                    RestoreStep::Put {
                        square: "f6".parse().unwrap(),
                        piece: Piece::from_fen_char('n').unwrap(),
                    },
                ],
                must_move: Some("f6".parse().unwrap()),
                penalty: Some(Penalty {
                    add_ms: 60_000,
                    to: Color::White,
                }),
                result: None,
                result_undetermined: false,
                ply: 28,
                explanation: String::new(),
                clock_before: Some(ClockMs {
                    white: 151_000,
                    black: 100_000,
                }),
                clock_after: Some(ClockMs {
                    white: 211_000,
                    black: 98_000,
                }),
            }),
        };
        let line = ruling(&e).unwrap();
        assert_eq!(
            line,
            "board 3, move 14, Black: illegal move (king left in check) Nf6-d5; put back: \
             take the black knight off d5, put a black knight on f6; the piece on f6 must \
             move (touch-move); add 1:00 to White: 2:31 -> 3:31; Black 1:40 -> 1:38 \
             (increment of the illegal press taken back)"
        );
        assert!(comment(&e).unwrap().starts_with("Black: illegal move"));
        if let EventKind::IllegalMove(i) = &mut e.kind {
            i.count = 2;
        }
        assert!(ruling(&e).unwrap().contains(", their illegal move no. 2"));
    }

    #[test]
    fn game_over_and_routine_events() {
        let e = ArbiterEvent {
            t_ms: 1,
            board: "2".into(),
            kind: EventKind::GameOver(GameOverEvent {
                result: chess_rules::GameResult::BlackWins,
                reason: EndReason::Flag,
                flag: Some(Color::White),
                undetermined: false,
                plies: 40,
            }),
        };
        assert_eq!(
            ruling(&e).unwrap(),
            "board 2: game over after 40 plies: 0-1 (flag), White's flag fell"
        );
        let r = ArbiterEvent {
            t_ms: 1,
            board: "2".into(),
            kind: EventKind::NewGame { fen: "x".into() },
        };
        assert_eq!(ruling(&r), None);
        assert!(!is_ruling(&e) && !is_ruling(&r), "notices are no rulings");
        let kings = ArbiterEvent {
            t_ms: 1,
            board: "4".into(),
            kind: EventKind::GameOver(GameOverEvent {
                result: chess_rules::GameResult::WhiteWins,
                reason: EndReason::ResultOnBoard,
                flag: None,
                undetermined: false,
                plies: 51,
            }),
        };
        assert_eq!(
            ruling(&kings).unwrap(),
            "board 4: game over after 51 plies: 1-0 (result set with the kings)"
        );
    }

    #[test]
    fn moves_in_sentences_are_in_san() {
        let touch = ArbiterEvent {
            t_ms: 1,
            board: "2".into(),
            kind: EventKind::TouchMove(TouchMoveEvent {
                color: Color::Black,
                touched: vec![touch_tracker::events::Touched {
                    square: "d8".parse().unwrap(),
                    piece: Piece::from_fen_char('q').unwrap(),
                }],
                obligation: Obligation::Move,
                square: "d8".parse().unwrap(),
                played: "e7e6".parse().unwrap(),
                played_san: "e6".into(),
                violation: true,
                ply: 4,
            }),
        };
        let line = ruling(&touch).unwrap();
        assert!(line.ends_with("; played e6"), "{line}");
        assert!(is_ruling(&touch));
        let two = ArbiterEvent {
            t_ms: 1,
            board: "2".into(),
            kind: EventKind::TwoHandedSuspected(touch_tracker::events::TwoHandedEvent {
                color: Color::White,
                uci: "e1g1".parse().unwrap(),
                san: "O-O".into(),
                evidence: "both hands".into(),
                ply: 9,
            }),
        };
        assert_eq!(
            ruling(&two).unwrap(),
            "board 2, move 5, White: two-handed move suspected (O-O): both hands"
        );
    }
}
