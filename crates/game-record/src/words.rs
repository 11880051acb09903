//! Rulings in plain words, one line each, for the arbiter's terminal, logs and PGN
//! comments: "board 3, move 14, Black: illegal move (king left in check) Nf6-d5; put back:
//! take Nd5 off, put N on f6; add 1:00 to White: 2:31 -> 3:31".
//!
//! The words are the `messages` crate's (one Fluent catalogue a language); this module
//! says which message each part of a ruling is and puts the parts together. The `_in`
//! functions take the language; the others are English (PGN comments, and the dashboard's
//! alerts as made: it says them again in a page's language, `dashboard::alerts`).

use chess_rules::{Attempt, Color, IllegalCategory, Move, Piece, RestoreStep, Role};
use messages::{Args, Language, Messages};
use touch_tracker::events::{
    DisplacedEvent, IllegalMoveEvent, RecoveryUncertainEvent, TouchMoveEvent,
};
use touch_tracker::{
    ArbiterEvent, BoardStatus, ClaimReason, ClockMismatchEvent, EndReason, EventKind,
    MismatchReason, Obligation,
};

const EN: Messages = Messages::english();

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

/// `White` / `Black` in a language (as the subject of a sentence).
pub fn side_in(m: Messages, c: Color) -> String {
    m.format("side", &Args::new().str("side", c.name()))
}

/// "Black: {text}".
fn by_side(m: Messages, c: Color, text: String) -> String {
    m.format(
        "by-side",
        &Args::new().str("side", c.name()).str("text", text),
    )
}

/// Why a game ended, in words for people ("checkmate", "result set with the kings").
pub fn end_reason(r: EndReason) -> String {
    end_reason_in(EN, r)
}

pub fn end_reason_in(m: Messages, r: EndReason) -> String {
    m.format(
        "end-reason",
        &Args::new().str("reason", r.name().replace('_', "-")),
    )
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

/// The catalogue's key of a category of illegal move.
fn category_key(c: IllegalCategory) -> &'static str {
    match c {
        IllegalCategory::KingInCheck => "king-in-check",
        IllegalCategory::Castling => "castling",
        IllegalCategory::EnPassant => "en-passant",
        IllegalCategory::PieceMovement => "piece-movement",
        IllegalCategory::UnpromotedPawn => "unpromoted-pawn",
        IllegalCategory::ClockWithoutMove => "clock-without-move",
        IllegalCategory::WrongColor => "wrong-color",
        IllegalCategory::MultipleMoves => "multiple-moves",
        IllegalCategory::PieceAddedOrRemoved => "piece-added-or-removed",
        IllegalCategory::TwoHanded => "two-handed",
        IllegalCategory::Other => "other",
    }
}

/// What a category of illegal move is, in a few words.
pub fn category(c: IllegalCategory) -> String {
    category_in(EN, c)
}

pub fn category_in(m: Messages, c: IllegalCategory) -> String {
    m.format(
        "illegal-category",
        &Args::new().str("category", category_key(c)),
    )
}

/// `N` for a knight, `` for a pawn (SAN letters; `К` for a knight in Russian).
fn letter(m: Messages, role: Role) -> String {
    m.format("piece-letter", &Args::new().str("role", role.name()))
}

/// A move in SAN (or a line of them) with the piece letters of the language: squares,
/// castling and move numbers stay as they are.
fn san_in(m: Messages, san: &str) -> String {
    if m.language() == Language::En {
        return san.to_owned();
    }
    san.chars()
        .map(|ch| match san_role(ch) {
            Some(role) => letter(m, role),
            None => ch.to_string(),
        })
        .collect()
}

/// The piece of a SAN letter (upper case: `b` is a file).
fn san_role(ch: char) -> Option<Role> {
    Some(match ch {
        'K' => Role::King,
        'Q' => Role::Queen,
        'R' => Role::Rook,
        'B' => Role::Bishop,
        'N' => Role::Knight,
        _ => return None,
    })
}

/// An attempted move with the language's piece letter: `Bf1-f3`, `Сf1-f3`.
pub fn attempt(m: Messages, a: &Attempt) -> String {
    format!("{}{}-{}", letter(m, a.piece.role), a.from, a.to)
}

fn piece_name(m: Messages, p: Piece) -> String {
    m.format(
        "piece",
        &Args::new()
            .str("color", p.color.name())
            .str("role", p.role.name()),
    )
}

/// Restore steps in plain words: "take the white bishop off f3, put a white bishop on f1".
pub fn steps(steps: &[RestoreStep]) -> String {
    steps_in(EN, steps)
}

pub fn steps_in(m: Messages, steps: &[RestoreStep]) -> String {
    steps
        .iter()
        .map(|s| {
            let (id, square, piece) = match *s {
                RestoreStep::Remove { square, piece } => ("step-remove", square, piece),
                RestoreStep::Put { square, piece } => ("step-put", square, piece),
            };
            m.format(
                id,
                &Args::new()
                    .str("piece", piece_name(m, piece))
                    .str("square", square.to_string()),
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The ruling on an illegal move, without the board prefix.
pub fn illegal(i: &IllegalMoveEvent) -> String {
    illegal_in(EN, i)
}

pub fn illegal_in(m: Messages, i: &IllegalMoveEvent) -> String {
    let mut out = m.format(
        "illegal-move",
        &Args::new().str("category", category_in(m, i.category)),
    );
    if let Some(a) = &i.attempt {
        out.push(' ');
        out.push_str(&attempt(m, a));
    }
    if i.category == IllegalCategory::PieceAddedOrRemoved && !i.explanation.is_empty() {
        // What came on or went off the board, square by square.
        out.push_str(&format!(": {}", i.explanation));
    }
    if i.count > 1 {
        let count = m.format("illegal-count", &Args::new().num("count", i.count.into()));
        out.push_str(&format!(", {count}"));
    }
    // The clauses after the first, each a sentence of its own after "; ".
    let mut clauses = Vec::new();
    if i.clock_counted_press() && i.category != IllegalCategory::PieceAddedOrRemoved {
        // Periods to come (arbiter-rules.md section 5): the clock's count is one ahead.
        clauses.push(m.text("illegal-clock-counted"));
    }
    if !i.restore.is_empty() {
        let id = if i.category == IllegalCategory::UnpromotedPawn {
            "illegal-correct"
        } else {
            "illegal-put-back"
        };
        clauses.push(m.format(id, &Args::new().str("steps", steps_in(m, &i.restore))));
    }
    if let Some(sq) = i.must_move {
        clauses.push(m.format(
            "illegal-must-move",
            &Args::new().str("square", sq.to_string()),
        ));
    }
    if let Some(p) = i.penalty {
        penalty(m, i, p, &mut clauses);
    }
    if let Some(r) = i.result {
        let mut second = m.format("illegal-second", &Args::new().str("result", r.as_str()));
        if i.result_undetermined {
            second.push_str(&format!(" ({})", m.text("mate-undetermined")));
        }
        clauses.push(second);
    }
    for c in clauses {
        out.push_str("; ");
        out.push_str(&c);
    }
    by_side(m, i.color, out)
}

/// The time added to the opponent, alone: "add 1:00 to Black" (the dashboard's card).
pub fn penalty_in(m: Messages, p: &touch_tracker::Penalty) -> String {
    m.format(
        "penalty",
        &Args::new()
            .str("add", clock(p.add_ms))
            .str("to", p.to.name()),
    )
}

/// The time added to the opponent (art. 7.5.5) and, where the clocks were read, what
/// each shows before and after.
fn penalty(
    m: Messages,
    i: &IllegalMoveEvent,
    p: touch_tracker::Penalty,
    clauses: &mut Vec<String>,
) {
    let add = Args::new()
        .str("add", clock(p.add_ms))
        .str("to", p.to.name());
    match (i.clock_before, i.clock_after) {
        (Some(before), Some(after)) => {
            clauses.push(
                m.format(
                    "penalty-clock",
                    &add.str("before", clock(before.get(p.to)))
                        .str("after", clock(after.get(p.to))),
                ),
            );
            let me = p.to.opponent();
            if after.get(me) != before.get(me) {
                clauses.push(
                    m.format(
                        "increment-taken-back",
                        &Args::new()
                            .str("side", me.name())
                            .str("before", clock(before.get(me)))
                            .str("after", clock(after.get(me))),
                    ),
                );
            }
        }
        _ => clauses.push(m.format("penalty", &add)),
    }
}

/// The move in SAN for a sentence; its UCI only for an event that has no SAN (written
/// before events carried it).
fn san_or(m: Messages, san: &str, uci: Move) -> String {
    if san.is_empty() {
        uci.to_string()
    } else {
        san_in(m, san)
    }
}

fn touch(m: Messages, t: &TouchMoveEvent) -> String {
    let touched: Vec<String> = t
        .touched
        .iter()
        .map(|x| format!("{}{}", letter(m, x.piece.role), x.square))
        .collect();
    let square = Args::new().str("square", t.square.to_string());
    let duty = match t.obligation {
        Obligation::Move => m.format("duty-move", &square),
        Obligation::Capture => m.format("duty-capture", &square),
        Obligation::Castle => m.format("duty-castle", &square),
        Obligation::KingMove => m.text("duty-king"),
    };
    let text = m.format(
        "touch-move",
        &Args::new()
            .str("touched", touched.join(", "))
            .str("duty", duty)
            .str("played", san_or(m, &t.played_san, t.played)),
    );
    by_side(m, t.color, text)
}

/// Pieces knocked over with a move (art. 7.4): not an illegal move; what to put back.
pub fn displaced(d: &DisplacedEvent) -> String {
    displaced_in(EN, d)
}

pub fn displaced_in(m: Messages, d: &DisplacedEvent) -> String {
    let what = Args::new().str("what", d.explanation.as_str());
    let text = if d.reestablished {
        m.format("displaced-reestablished", &what)
    } else {
        m.format("displaced", &what.str("steps", steps_in(m, &d.squares)))
    };
    by_side(m, d.color, text)
}

/// The PGN comment on pieces displaced with a move (art. 7.4), first as seen, then
/// (`reestablished`) once put back: the tracker's words in English ("pawn c2 knocked
/// over"), the re-establishing steps in another language.
pub fn displaced_comment_in(m: Messages, d: &DisplacedEvent, reestablished: bool) -> String {
    let args = Args::new()
        .str("what", d.explanation.as_str())
        .str("steps", steps_in(m, &d.squares));
    if reestablished {
        m.format("pgn-displaced-reestablished", &args)
    } else {
        m.format("pgn-displaced", &args)
    }
}

/// A clock wrong about a period's time (art. 6.10.2: its setting, not the player's
/// fault): what it did, the move it was due at, and what to set; never a penalty.
pub fn clock_mismatch(e: &ClockMismatchEvent) -> String {
    clock_mismatch_in(EN, e)
}

pub fn clock_mismatch_in(m: Messages, e: &ClockMismatchEvent) -> String {
    let moves = Args::new()
        .num("move", e.move_number.into())
        .num("due", e.due_move.into());
    let what = match e.reason {
        // Seen at a press that was no move (the move it belongs to is not completed).
        MismatchReason::PeriodAddedEarly if e.move_number >= e.due_move => {
            m.format("mismatch-early-no-move", &moves)
        }
        MismatchReason::PeriodAddedEarly => m.format("mismatch-early", &moves),
        MismatchReason::PeriodAddedLate => m.format("mismatch-late", &moves),
        MismatchReason::PeriodNotAdded => m.format("mismatch-not-added", &moves),
    };
    let mut clauses = vec![m.format("clock-mismatch", &Args::new().str("what", what))];
    if let Some(expected) = e.expected_ms {
        clauses.push(
            m.format(
                "clock-set",
                &Args::new()
                    .str("side", e.color.name())
                    .str("before", clock(e.clock_ms))
                    .str("after", clock(expected)),
            ),
        );
    }
    clauses.push(m.text("no-penalty"));
    by_side(m, e.color, clauses.join("; "))
}

/// A press the board fits more than one way: no ruling. The readings stay the tracker's
/// (SAN and its words: a JSON field).
fn unclear(m: Messages, u: &touch_tracker::events::RulingUnclearEvent) -> String {
    tracker_said(m, &u.explanation, || {
        let or = m.text("ruling-unclear-or");
        m.format(
            "ruling-unclear",
            &Args::new().str("readings", u.readings.join(&format!("; {or} "))),
        )
    })
}

/// The moves rebuilt after a disconnection, and what else could have been played.
fn uncertain(m: Messages, r: &RecoveryUncertainEvent) -> String {
    let mut alternatives = String::new();
    for (n, line) in r.alternatives_san.iter().enumerate() {
        let line = san_in(m, line);
        if n == 0 {
            alternatives = line;
        } else {
            alternatives.push_str(&m.format("or-after", &Args::new().str("line", line)));
        }
    }
    m.format(
        "recovery-uncertain",
        &Args::new()
            .str("recorded", san_in(m, &r.recorded_san))
            .str("alternatives", alternatives),
    )
}

/// One line for a ruling or alert (`None` for moves, board status and other routine
/// events). Prefixed with the board and the move it concerns. In English.
pub fn ruling(e: &ArbiterEvent) -> Option<String> {
    ruling_in(EN, e)
}

/// One line for a ruling or alert in a language (see [`ruling`]).
pub fn ruling_in(m: Messages, e: &ArbiterEvent) -> Option<String> {
    let prefix = |ply: u32, text: String| at_move(m, e, move_number(ply), text);
    let at_board = |text: String| {
        m.format(
            "at-board",
            &Args::new().str("board", e.board.as_str()).str("text", text),
        )
    };
    Some(match &e.kind {
        EventKind::IllegalMove(i) => prefix(i.ply, illegal_in(m, i)),
        EventKind::Restored { .. } => at_board(m.text("position-restored")),
        EventKind::TouchMove(t) if t.violation => prefix(t.ply, touch(m, t)),
        EventKind::TwoHandedSuspected(t) => {
            let text = m.format(
                "two-handed",
                &Args::new()
                    .str("move", san_or(m, &t.san, t.uci))
                    .str("evidence", t.evidence.as_str()),
            );
            prefix(t.ply, by_side(m, t.color, text))
        }
        EventKind::DrawClaimable(d) => prefix(d.ply + 1, draw_claimable(m, d)),
        EventKind::GameOver(g) => at_board(game_over(m, g)),
        EventKind::IllegalMoveStands(s) => at_board(
            m.format(
                "illegal-stands",
                &Args::new()
                    .str("side", s.color.name())
                    .str("fen", s.fen.as_str()),
            ),
        ),
        EventKind::RecoveryUncertain(r) => prefix(r.ply, uncertain(m, r)),
        EventKind::Displaced(d) => prefix(d.ply, displaced_in(m, d)),
        EventKind::RulingUnclear(u) => prefix(u.ply, by_side(m, u.color, unclear(m, u))),
        // The player's own move number, which from the standard start is the full move.
        EventKind::ClockMismatch(c) => at_move(m, e, c.move_number, clock_mismatch_in(m, c)),
        EventKind::PositionAccepted(a) => at_board(position_accepted(m, a)),
        EventKind::TakenBack(c) => at_board(
            m.format(
                "taken-back-show",
                &Args::new()
                    .str("text", taken_back_in(m, c))
                    .str("fen", c.fen.as_str()),
            ),
        ),
        EventKind::ArbiterDecision(d) => match d.ply {
            Some(ply) => prefix(ply, decision_in(m, d)),
            None => at_board(decision_in(m, d)),
        },
        EventKind::BoardStatus(b) if b.status == BoardStatus::OutOfSync => {
            let detail = b
                .detail
                .as_deref()
                .map_or(String::new(), |d| format!(" ({d})"));
            let text = if b.candidates.is_empty() {
                m.text("out-of-sync")
            } else {
                // Issue 36: lines fit, none is proven; the arbiter picks or types.
                m.format(
                    "out-of-sync-lines",
                    &Args::new().str("lines", candidate_lines_in(m, &b.candidates)),
                )
            };
            at_board(format!("{text}{detail}"))
        }
        _ => return None,
    })
}

/// A takeback in words: `the arbiter took the game back to ply 20 (3 plies annulled):
/// illegal move found later`.
pub fn taken_back(c: &touch_tracker::events::TakenBackEvent) -> String {
    taken_back_in(EN, c)
}

pub fn taken_back_in(m: Messages, c: &touch_tracker::events::TakenBackEvent) -> String {
    let args = Args::new()
        .num("ply", c.to_ply.into())
        .num("annulled", c.from_ply.saturating_sub(c.to_ply).into());
    if c.reason.is_empty() {
        m.format("taken-back", &args)
    } else {
        // The arbiter's reason as he typed it.
        m.format("taken-back-why", &args.str("reason", c.reason.as_str()))
    }
}

/// "board 3, move 14, {text}" with the move number as it is.
fn at_move(m: Messages, e: &ArbiterEvent, move_number: u32, text: String) -> String {
    m.format(
        "at-move",
        &Args::new()
            .str("board", e.board.as_str())
            .num("move", move_number.into())
            .str("text", text),
    )
}

fn draw_claimable(m: Messages, d: &touch_tracker::events::DrawClaimableEvent) -> String {
    let reason = match d.reason {
        ClaimReason::Threefold => "threefold",
        ClaimReason::FiftyMoves => "fifty-moves",
    };
    let args = Args::new().str("side", d.color.name()).str(
        "reason",
        m.format("draw-reason", &Args::new().str("reason", reason)),
    );
    match d.with_move {
        Some(mv) => m.format("draw-claimable-with", &args.str("move", mv.to_string())),
        None => m.format("draw-claimable", &args),
    }
}

fn game_over(m: Messages, g: &touch_tracker::events::GameOverEvent) -> String {
    let mut s = m.format(
        "game-over",
        &Args::new()
            .num("plies", g.plies.into())
            .str("result", g.result.as_str())
            .str("reason", end_reason_in(m, g.reason)),
    );
    if let Some(c) = g.flag {
        s.push_str(", ");
        s.push_str(&m.format("flag-fell", &Args::new().str("side", c.name())));
    }
    if g.undetermined {
        s.push_str("; ");
        s.push_str(&m.text("mate-undetermined"));
    }
    s
}

fn position_accepted(m: Messages, a: &touch_tracker::events::PositionAcceptedEvent) -> String {
    let how = if a.candidates.is_empty() {
        m.text("accepted-as-is")
    } else {
        m.format(
            "accepted-lines",
            &Args::new().str("lines", candidate_lines_in(m, &a.candidates)),
        )
    };
    let mut s = m.format(
        "position-accepted",
        &Args::new()
            .str("how", how)
            .str("side", a.side_to_move.name())
            .str("fen", a.fen.as_str())
            .num("ply", a.last_known_ply.into()),
    );
    if a.ply_unknown {
        s.push_str("; ");
        s.push_str(&m.format(
            "accepted-count-unknown",
            &Args::new().num("count", (a.ply - a.last_known_ply).into()),
        ));
    }
    s
}

/// Lines found after a gap, numbered for the arbiter: `1) 4. O-O Bc5 5. d3; 2) ...`.
pub fn candidate_lines(candidates: &[touch_tracker::GapCandidate]) -> String {
    candidate_lines_in(EN, candidates)
}

pub fn candidate_lines_in(m: Messages, candidates: &[touch_tracker::GapCandidate]) -> String {
    let lines: Vec<String> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}) {}", i + 1, san_in(m, &c.san)))
        .collect();
    lines.join("; ")
}

/// The tracker's own words for an event (a JSON field, in English: formats.md) in
/// English; in another language the catalogue's, said from the event's facts.
fn tracker_said(m: Messages, english: &str, said: impl FnOnce() -> String) -> String {
    if m.language() == Language::En {
        english.to_owned()
    } else {
        said()
    }
}

/// An arbiter's decision in words: a clock setting from the catalogue (the times and
/// his reason), the others as the tracker explained them (in another language, from
/// the decision's facts).
fn decision_in(m: Messages, d: &touch_tracker::ArbiterDecisionEvent) -> String {
    use touch_tracker::Decision;
    match (d.decision, d.clock_after, d.reason.as_deref()) {
        (Decision::ClockSet, Some(after), Some(reason)) => m.format(
            "arbiter-clock-set",
            &Args::new()
                .str("white", clock(after.white))
                .str("black", clock(after.black))
                .str("reason", reason),
        ),
        _ => tracker_said(m, &d.explanation, || decision_said(m, d)),
    }
}

/// A decision from its facts alone (the tracker's explanation is English).
fn decision_said(m: Messages, d: &touch_tracker::ArbiterDecisionEvent) -> String {
    use touch_tracker::Decision;
    let side = d.color.map_or("", Color::name);
    let result = d.result.map(|r| r.to_string()).unwrap_or_default();
    let board = d.board_result.map(|b| b.as_str()).unwrap_or_default();
    match d.decision {
        Decision::Warning => m.format("decision-warning", &Args::new().str("side", side)),
        Decision::TimeAdded => {
            let (add, to) = d.penalty.map_or((0, ""), |p| (p.add_ms, p.to.name()));
            m.format(
                "decision-time-added",
                &Args::new()
                    .str("side", side)
                    .str("to", to)
                    .str("add", clock(add)),
            )
        }
        Decision::GameLost => m.format(
            "decision-game-lost",
            &Args::new().str("side", side).str("result", result),
        ),
        Decision::ResultSet | Decision::ResultConfirmed => {
            let verb = if d.decision == Decision::ResultSet {
                "set"
            } else {
                "confirm"
            };
            let args = Args::new().str("verb", verb).str("result", result);
            // As the tracker says it: the board's result named where it disagrees.
            match (d.result, d.board_result) {
                (Some(r), Some(b)) if !r.agrees_with(b) => {
                    m.format("decision-result-board", &args.str("board", board))
                }
                _ => m.format("decision-result", &args),
            }
        }
        Decision::ResultCleared if board.is_empty() => m.text("decision-cleared"),
        Decision::ResultCleared => {
            m.format("decision-cleared-board", &Args::new().str("board", board))
        }
        Decision::ClockSet => d.explanation.clone(),
    }
}

/// The PGN comment on a game's end: `game over: checkmate`, with whose flag fell and
/// whether mate is still possible.
pub fn game_over_comment_in(m: Messages, g: &touch_tracker::events::GameOverEvent) -> String {
    let mut why = m.format(
        "pgn-game-over",
        &Args::new().str("reason", end_reason_in(m, g.reason)),
    );
    if let Some(c) = g.flag {
        why.push_str(", ");
        why.push_str(&m.format("flag-fell", &Args::new().str("side", c.name())));
    }
    if g.undetermined {
        why.push_str(&format!(" ({})", m.text("pgn-mate-undetermined")));
    }
    why
}

/// The PGN comment for an event (the ruling without the board prefix), if it is one.
/// In English.
pub fn comment(e: &ArbiterEvent) -> Option<String> {
    comment_in(EN, e)
}

/// The PGN comment for an event in a language: the comments are for people (the
/// event's language); the PGN's own SAN, outside them, stays English for programs.
pub fn comment_in(m: Messages, e: &ArbiterEvent) -> Option<String> {
    let text = match &e.kind {
        EventKind::IllegalMove(i) => illegal_in(m, i),
        EventKind::TouchMove(t) if t.violation => touch(m, t),
        EventKind::TwoHandedSuspected(t) => by_side(
            m,
            t.color,
            m.format(
                "two-handed-comment",
                &Args::new().str("evidence", t.evidence.as_str()),
            ),
        ),
        EventKind::RecoveryUncertain(r) => uncertain(m, r),
        EventKind::RulingUnclear(u) => by_side(m, u.color, unclear(m, u)),
        EventKind::ClockMismatch(c) => clock_mismatch_in(m, c),
        EventKind::ArbiterDecision(d) => m.format(
            "arbiter-decision-comment",
            &Args::new().str("text", decision_in(m, d)),
        ),
        EventKind::DrawClaimable(d) => draw_claimable(m, d),
        EventKind::IllegalMoveStands(s) => m.format(
            "illegal-stands",
            &Args::new()
                .str("side", s.color.name())
                .str("fen", s.fen.as_str()),
        ),
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

#[cfg(test)]
mod every_language;
