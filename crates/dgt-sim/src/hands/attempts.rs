//! Illegal attempts: for each [`IllegalKind`], the attempts a player could physically make
//! in a position (lifts and placements), checked to be of that kind, with the touches
//! they leave behind, the obligation those touches create for the move that replaces the
//! attempt, and the steps that restore the position.
//!
//! Every step of an attempt and of its restoration is checked not to show the position
//! plus one legal move (the tracker would take it for a move made).

use chess_rules::{
    Attempt, CastleSide, Classification, Color, File, IllegalCategory, Move, Obligation, Piece,
    Placement, Position, Rank, RestoreStep, Role, Square,
};

use super::motion::{apply_to, castling_king_first, Step, Steps};
use super::options::IllegalKind;
use super::rng::HandRng;
use crate::action::Action;

/// An attempt as planned: its steps from the position before it.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub kind: IllegalKind,
    pub steps: Vec<Step>,
    /// The move meant, for single-piece attempts.
    pub attempt: Option<Attempt>,
}

/// A checked attempt, ready to play.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub plan: Plan,
    /// The pieces the offender lifted, in order, as they stood before.
    pub touched: Vec<(Square, Piece)>,
    /// The formats' `must_move`.
    pub must_move: Option<Square>,
    /// What `Position::classify` makes of the board at the press (it agrees with the
    /// plan's category), and its restore steps.
    pub category: IllegalCategory,
    pub attempt: Option<Attempt>,
    pub restore_list: Vec<RestoreStep>,
    /// The obligation the game's real move then breaks, if it breaks one.
    pub violation: Option<Obligation>,
    /// Steps that take the board back to the position before the attempt.
    pub restore: Vec<Step>,
}

/// Placements that are the position plus one legal move must not appear on the way.
fn shows_a_move(pos: &Position, board: &Placement) -> bool {
    pos.move_to_placement(board).is_some()
}

fn is_king(p: Option<Piece>) -> bool {
    p.is_some_and(|p| p.role == Role::King)
}

/// A square a piece may land on in an attempt: empty, or an opponent's piece other than
/// the king.
fn landable(pos: &Position, sq: Square, color: Color) -> bool {
    match pos.piece_at(sq) {
        None => true,
        Some(p) => p.color != color && p.role != Role::King,
    }
}

fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

const KING_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
const KNIGHT_JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn directions(role: Role) -> &'static [(i8, i8)] {
    match role {
        Role::Rook => &ROOK_DIRS,
        Role::Bishop => &BISHOP_DIRS,
        _ => &KING_STEPS,
    }
}

fn adjacent(a: Square, b: Square) -> bool {
    let df = (a.file().index() as i8 - b.file().index() as i8).abs();
    let dr = (a.rank().index() as i8 - b.rank().index() as i8).abs();
    a != b && df <= 1 && dr <= 1
}

/// A pawn moving diagonally onto an empty square: an en passant shape.
fn en_passant_shape(pos: &Position, m: Move) -> bool {
    pos.piece_at(m.from).is_some_and(|p| p.role == Role::Pawn)
        && m.from.file() != m.to.file()
        && pos.piece_at(m.to).is_none()
}

/// Steps of one piece moving from `from` to `to` (straight onto a victim there).
fn piece_steps(from: Square, to: Square, piece: Piece, rng: &mut HandRng) -> Vec<Step> {
    let mut s = Steps::new(rng);
    s.lift(from).wait(300, 900).place(to, piece);
    s.steps
}

fn one_piece_plan(
    kind: IllegalKind,
    from: Square,
    to: Square,
    piece: Piece,
    rng: &mut HandRng,
) -> Plan {
    Plan {
        kind,
        steps: piece_steps(from, to, piece, rng),
        attempt: Some(Attempt { from, to, piece }),
    }
}

/// Pseudo-legal moves of the side to move that leave its king in check (no castling, no
/// en passant, no promotion).
fn self_check_moves(pos: &Position) -> Vec<Move> {
    let color = pos.side_to_move();
    let mut out = Vec::new();
    for (from, piece) in pos.placement().pieces() {
        if piece.color != color {
            continue;
        }
        for to in Square::all() {
            if piece.role == Role::Pawn && to.rank() == color.promotion_rank() {
                continue;
            }
            let m = Move::new(from, to, None);
            if is_king(pos.piece_at(to)) || pos.castle_side(m).is_some() || en_passant_shape(pos, m)
            {
                continue;
            }
            if pos.is_pseudo_legal(m) && !pos.is_legal(m) {
                out.push(m);
            }
        }
    }
    out
}

/// Why castling to `side` is illegal, if it is and can physically be tried (king and rook
/// at home, the squares they land on empty).
pub(crate) fn castling_fault(pos: &Position, side: CastleSide) -> Option<IllegalKind> {
    let color = pos.side_to_move();
    let king_move = side.king_move(color);
    let (rook_from, rook_to) = side.rook_move(color);
    if pos.piece_at(king_move.from) != Some(Piece::new(color, Role::King))
        || pos.piece_at(rook_from) != Some(Piece::new(color, Role::Rook))
        || pos.piece_at(king_move.to).is_some()
        || pos.piece_at(rook_to).is_some()
        || pos.is_legal(king_move)
    {
        return None;
    }
    let rank = color.back_rank();
    let passing = Square::new(side.rook_to_file(), rank);
    let enemy = color.opponent();
    Some(if !pos.castling().has(color, side) {
        IllegalKind::CastlingAfterKingOrRookMoved
    } else if side == CastleSide::QueenSide && pos.piece_at(Square::new(File::B, rank)).is_some() {
        IllegalKind::CastlingThroughPieces
    } else if pos.is_check() {
        IllegalKind::CastlingOutOfCheck
    } else if pos.is_attacked(passing, enemy) {
        IllegalKind::CastlingThroughCheck
    } else if pos.is_attacked(king_move.to, enemy) {
        IllegalKind::CastlingIntoCheck
    } else {
        // Legal by every rule we know of, yet not legal: leave it alone.
        return None;
    })
}

/// The attempts of `kind` in `history[index]` (the position before the game's move
/// `index`); earlier positions serve the en passant case.
pub(crate) fn plans(
    kind: IllegalKind,
    history: &[Position],
    index: usize,
    real: Move,
    rng: &mut HandRng,
) -> Vec<Plan> {
    let pos = &history[index];
    let color = pos.side_to_move();
    let own = |p: &Piece| p.color == color;
    let mut out = Vec::new();
    match kind {
        IllegalKind::PinnedPiece | IllegalKind::KingIntoCheck | IllegalKind::KingNextToKing => {
            if pos.is_check() {
                return out;
            }
            let enemy_king = pos.king(color.opponent());
            for m in self_check_moves(pos) {
                let Some(piece) = pos.piece_at(m.from) else {
                    continue;
                };
                let fits = match kind {
                    IllegalKind::PinnedPiece => piece.role != Role::King,
                    IllegalKind::KingIntoCheck => {
                        piece.role == Role::King && !adjacent(m.to, enemy_king)
                    }
                    _ => piece.role == Role::King && adjacent(m.to, enemy_king),
                };
                if fits {
                    out.push(one_piece_plan(kind, m.from, m.to, piece, rng));
                }
            }
        }
        IllegalKind::CheckNotParried => {
            if !pos.is_check() {
                return out;
            }
            for m in self_check_moves(pos) {
                if let Some(piece) = pos.piece_at(m.from) {
                    out.push(one_piece_plan(kind, m.from, m.to, piece, rng));
                }
            }
        }
        IllegalKind::CastlingThroughCheck
        | IllegalKind::CastlingOutOfCheck
        | IllegalKind::CastlingIntoCheck
        | IllegalKind::CastlingAfterKingOrRookMoved
        | IllegalKind::CastlingThroughPieces => {
            for side in CastleSide::ALL {
                if castling_fault(pos, side) != Some(kind) {
                    continue;
                }
                let king_move = side.king_move(color);
                let (rook_from, rook_to) = side.rook_move(color);
                let king = Piece::new(color, Role::King);
                let mut s = Steps::new(rng);
                castling_king_first(&mut s, king_move, (rook_from, rook_to), color);
                out.push(Plan {
                    kind,
                    steps: s.steps,
                    attempt: Some(Attempt {
                        from: king_move.from,
                        to: king_move.to,
                        piece: king,
                    }),
                });
            }
        }
        IllegalKind::EnPassantLate => {
            // The double step came three plies ago; the capture was legal two plies ago.
            let Some(earlier) = index.checked_sub(2).map(|i| &history[i]) else {
                return out;
            };
            let Some(target) = earlier.legal_en_passant() else {
                return out;
            };
            let Some(victim_sq) = target.offset(0, -forward(color)) else {
                return out;
            };
            let victim = Piece::new(color.opponent(), Role::Pawn);
            let pawn = Piece::new(color, Role::Pawn);
            if pos.piece_at(victim_sq) != Some(victim) || pos.piece_at(target).is_some() {
                return out;
            }
            for df in [-1, 1] {
                let Some(from) = victim_sq.offset(df, 0) else {
                    continue;
                };
                let m = Move::new(from, target, None);
                if pos.piece_at(from) == Some(pawn)
                    && earlier.piece_at(from) == Some(pawn)
                    && earlier.is_legal(m)
                    && !pos.is_legal(m)
                {
                    let mut s = Steps::new(rng);
                    s.lift(from)
                        .wait(300, 700)
                        .place(target, pawn)
                        .wait(200, 500)
                        .lift(victim_sq);
                    out.push(Plan {
                        kind,
                        steps: s.steps,
                        attempt: Some(Attempt {
                            from,
                            to: target,
                            piece: pawn,
                        }),
                    });
                }
            }
        }
        IllegalKind::BishopOffDiagonal
        | IllegalKind::SliderJumping
        | IllegalKind::PawnCapturingStraight
        | IllegalKind::KnightWrong => {
            for (from, piece) in pos.placement().pieces().filter(|(_, p)| own(p)) {
                for to in movement_faults(pos, kind, from, piece) {
                    out.push(one_piece_plan(kind, from, to, piece, rng));
                }
            }
        }
        IllegalKind::WrongColor => {
            for (from, piece) in pos.placement().pieces() {
                if own(&piece) || piece.role == Role::King {
                    continue;
                }
                for to in natural_steps(pos, from, piece) {
                    out.push(one_piece_plan(kind, from, to, piece, rng));
                }
            }
        }
        IllegalKind::MultipleMoves | IllegalKind::PieceAdded | IllegalKind::PieceRemoved => {
            let Some(info) = pos.move_info(real) else {
                return out;
            };
            if info.castling.is_some() || info.en_passant || info.promotion.is_some() {
                return out;
            }
            let mover = info.piece;
            let busy = |sq: Square| sq == real.from || sq == real.to;
            match kind {
                IllegalKind::MultipleMoves => {
                    for (from, piece) in pos.placement().pieces().filter(|(_, p)| own(p)) {
                        if busy(from) || piece.role == Role::King {
                            continue;
                        }
                        for to in Square::all() {
                            let m = Move::new(from, to, None);
                            if busy(to)
                                || pos.piece_at(to).is_some()
                                || en_passant_shape(pos, m)
                                || (piece.role == Role::Pawn && to.rank() == color.promotion_rank())
                                || !pos.is_pseudo_legal(m)
                            {
                                continue;
                            }
                            let extra = [Action::Lift(from), Action::Place(to, piece)];
                            out.push(around_real_move(kind, real, mover, &extra, rng));
                        }
                    }
                }
                IllegalKind::PieceRemoved => {
                    for (sq, piece) in pos.placement().pieces().filter(|(_, p)| own(p)) {
                        if busy(sq) || piece.role == Role::King {
                            continue;
                        }
                        out.push(around_real_move(
                            kind,
                            real,
                            mover,
                            &[Action::Lift(sq)],
                            rng,
                        ));
                    }
                }
                _ => {
                    let extra = returned_piece(pos, color);
                    for sq in Square::all() {
                        if busy(sq)
                            || pos.piece_at(sq).is_some()
                            || (extra.role == Role::Pawn
                                && matches!(sq.rank(), Rank::First | Rank::Eighth))
                        {
                            continue;
                        }
                        let added = [Action::Place(sq, extra)];
                        out.push(around_real_move(kind, real, mover, &added, rng));
                    }
                }
            }
        }
    }
    out
}

/// The real move's piece lifted first (so it is the first touch and the real move obeys
/// it), `extra` done while it is in the hand, then the piece put on its square.
fn around_real_move(
    kind: IllegalKind,
    real: Move,
    mover: Piece,
    extra: &[Action],
    rng: &mut HandRng,
) -> Plan {
    let mut s = Steps::new(rng);
    s.lift(real.from);
    for a in extra {
        s.wait(300, 600).act(a.clone());
    }
    s.wait(300, 600).place(real.to, mover);
    Plan {
        kind,
        steps: s.steps,
        attempt: None,
    }
}

/// A piece of `color` that was captured earlier (so it lies beside the board), for a
/// piece put back by mistake; a knight if none is missing.
fn returned_piece(pos: &Position, color: Color) -> Piece {
    let count = |role: Role| {
        pos.placement()
            .pieces()
            .filter(|(_, p)| *p == Piece::new(color, role))
            .count()
    };
    let start = [
        (Role::Queen, 1),
        (Role::Rook, 2),
        (Role::Bishop, 2),
        (Role::Knight, 2),
        (Role::Pawn, 8),
    ];
    start
        .iter()
        .find(|(role, n)| count(*role) < *n)
        .map_or(Piece::new(color, Role::Knight), |(role, _)| {
            Piece::new(color, *role)
        })
}

/// Target squares for a piece moving against its rules, by `kind`.
fn movement_faults(pos: &Position, kind: IllegalKind, from: Square, piece: Piece) -> Vec<Square> {
    let color = piece.color;
    let mut out = Vec::new();
    let free = |sq: Square| pos.piece_at(sq).is_none();
    match (kind, piece.role) {
        (IllegalKind::BishopOffDiagonal, Role::Bishop) => {
            for (df, dr) in ROOK_DIRS {
                let mut sq = from;
                for _ in 0..2 {
                    let Some(next) = sq.offset(df, dr) else { break };
                    if landable(pos, next, color) {
                        out.push(next);
                    }
                    if !free(next) {
                        break;
                    }
                    sq = next;
                }
            }
        }
        (IllegalKind::SliderJumping, Role::Rook | Role::Bishop | Role::Queen) => {
            for &(df, dr) in directions(piece.role) {
                let mut sq = from;
                let mut jumped = false;
                let mut beyond = 0;
                while let Some(next) = sq.offset(df, dr) {
                    sq = next;
                    if jumped {
                        if landable(pos, next, color) {
                            out.push(next);
                        }
                        beyond += 1;
                        if !free(next) || beyond == 2 {
                            break;
                        }
                    } else if !free(next) {
                        jumped = true;
                    }
                }
            }
        }
        (IllegalKind::PawnCapturingStraight, Role::Pawn) => {
            if let Some(front) = from.offset(0, forward(color)) {
                if front.rank() != color.promotion_rank()
                    && pos
                        .piece_at(front)
                        .is_some_and(|p| p.color != color && p.role != Role::King)
                {
                    out.push(front);
                }
            }
        }
        (IllegalKind::KnightWrong, Role::Knight) => {
            let mut shapes: Vec<(i8, i8)> = KING_STEPS.to_vec();
            shapes.extend([(2, 0), (-2, 0), (0, 2), (0, -2)]);
            for (df, dr) in shapes {
                if let Some(to) = from.offset(df, dr) {
                    if landable(pos, to, color) {
                        out.push(to);
                    }
                }
            }
        }
        _ => {}
    }
    // Whatever the geometry, it must not be a move the piece may make.
    out.retain(|to| !pos.is_pseudo_legal(Move::new(from, *to, None)));
    out
}

/// One step an opponent's piece could make by its own rules onto an empty square (as a
/// player who confuses the colours would move it).
fn natural_steps(pos: &Position, from: Square, piece: Piece) -> Vec<Square> {
    let shapes: Vec<(i8, i8)> = match piece.role {
        Role::Knight => KNIGHT_JUMPS.to_vec(),
        Role::Pawn => vec![(0, forward(piece.color))],
        role => directions(role).to_vec(),
    };
    shapes
        .into_iter()
        .filter_map(|(df, dr)| from.offset(df, dr))
        .filter(|to| pos.piece_at(*to).is_none())
        .filter(|to| !(piece.role == Role::Pawn && matches!(to.rank(), Rank::First | Rank::Eighth)))
        .collect()
}

/// Plays the plan on the position's placement, checks every state on the way, works out
/// the touches and their obligation for the real move, and the restoration. `None` when
/// the attempt would show a legal move on the way, changes nothing, or leaves an
/// obligation the rules word ambiguously.
pub(crate) fn check(pos: &Position, plan: Plan, real: Move, rng: &mut HandRng) -> Option<Checked> {
    let color = pos.side_to_move();
    let start = *pos.placement();
    let mut board = start;
    let mut touched: Vec<(Square, Piece)> = Vec::new();
    for step in &plan.steps {
        if let Action::Lift(sq) = &step.action {
            if board.get(*sq).is_some()
                && board.get(*sq) == start.get(*sq)
                && !touched.iter().any(|(t, _)| t == sq)
            {
                touched.push((*sq, board.get(*sq)?));
            }
        }
        apply_to(&mut board, &step.action);
        if shows_a_move(pos, &board) {
            return None;
        }
    }
    if board == start {
        return None;
    }
    let lifted: Vec<Square> = touched.iter().map(|(sq, _)| *sq).collect();
    let Classification::Illegal {
        category,
        attempt,
        restore: restore_list,
    } = pos.classify(&board, &lifted)
    else {
        return None;
    };
    // The classifier must see the kind meant, and name the move meant.
    if category != plan.kind.category() || (plan.attempt.is_some() && attempt != plan.attempt) {
        return None;
    }
    let (must_move, violation) = obligation(pos, &plan, &touched, real, color)?;
    let restore = restoration(pos, &board, &start, rng)?;
    Some(Checked {
        plan,
        touched,
        must_move,
        category,
        attempt,
        restore_list,
        violation,
        restore,
    })
}

/// The `must_move` of the attempt and the obligation `real` breaks, if any. `None` when
/// the first piece touched cannot move and later touches make the rules ambiguous.
fn obligation(
    pos: &Position,
    plan: &Plan,
    touched: &[(Square, Piece)],
    real: Move,
    color: Color,
) -> Option<(Option<Square>, Option<Obligation>)> {
    let &(first, first_piece) = touched.first()?;
    if first_piece.color == color {
        if pos.can_move_from(first) {
            let kind = if plan.kind.category() == IllegalCategory::Castling {
                Obligation::KingMove
            } else {
                Obligation::Move
            };
            let broken = (real.from != first).then_some(kind);
            return Some((Some(first), broken));
        }
        // The first piece cannot move: only clear when no other touch binds either.
        let binds = touched[1..].iter().any(|&(sq, p)| {
            if p.color == color {
                pos.can_move_from(sq)
            } else {
                pos.can_be_captured(sq)
            }
        });
        return (!binds).then_some((None, None));
    }
    // An opponent's piece first: it must be captured if it can be.
    if touched.iter().any(|(_, p)| p.color == color) {
        return None;
    }
    let capturable = touched.iter().find(|(sq, _)| pos.can_be_captured(*sq));
    match capturable {
        None => Some((None, None)),
        Some(&(sq, _)) => {
            let captures = real.to == sq
                || pos
                    .move_info(real)
                    .is_some_and(|i| i.capture.is_some_and(|(c, _)| c == sq));
            Some((None, (!captures).then_some(Obligation::Capture)))
        }
    }
}

/// Steps from `board` back to `target`: each misplaced piece lifted (and put back where
/// it belongs if it belongs somewhere), then missing pieces placed. Tries the squares in
/// both orders and returns the first order that never shows a legal move on the way.
pub(crate) fn restoration(
    pos: &Position,
    board: &Placement,
    target: &Placement,
    rng: &mut HandRng,
) -> Option<Vec<Step>> {
    let wrong: Vec<Square> = Square::all()
        .filter(|sq| board.get(*sq).is_some() && board.get(*sq) != target.get(*sq))
        .collect();
    for reversed in [false, true] {
        let mut order = wrong.clone();
        if reversed {
            order.reverse();
        }
        let mut b = *board;
        let mut s = Steps::new(rng);
        for w in order {
            let Some(piece) = b.get(w) else { continue };
            s.wait(200, 500).lift(w);
            b.set(w, None);
            // Its home, if one is waiting for it.
            let home =
                Square::all().find(|sq| target.get(*sq) == Some(piece) && b.get(*sq).is_none());
            if let Some(home) = home {
                s.wait(300, 700).place(home, piece);
                b.set(home, Some(piece));
            }
        }
        for sq in Square::all() {
            if let Some(p) = target.get(sq) {
                if b.get(sq) != Some(p) {
                    s.wait(300, 700).place(sq, p);
                    b.set(sq, Some(p));
                }
            }
        }
        debug_assert_eq!(b, *target);
        let steps = s.steps;
        let mut replay = *board;
        let mut clean = true;
        for (i, step) in steps.iter().enumerate() {
            apply_to(&mut replay, &step.action);
            if i + 1 < steps.len() && (replay == *target || shows_a_move(pos, &replay)) {
                clean = false;
                break;
            }
        }
        if clean && replay == *target {
            return Some(steps);
        }
    }
    None
}
