//! Hand motions: how a player's hands make one legal move on the board, in the orders seen
//! on real boards, with gaps between the steps that keep clear of the tracker's
//! two-handed evidence (two lifts, or a pawn's lift and its new piece's placement, at
//! least [`TWO_HAND_SAFE_MS`] apart).

use chess_rules::{Color, Move, MoveInfo, Piece, Placement, Position, Role, Square};

use super::options::Variations;
use super::rng::HandRng;
use crate::action::Action;

/// Lifts of two pieces, or a pawn's lift and the placement of its promotion piece, are at
/// least this far apart in normal play (the tracker's two-handed evidence is "within one
/// scan interval", < 250 ms).
pub const TWO_HAND_SAFE_MS: u64 = 400;

/// A touch whose evidence matters lasts at least this long, so that a board scanning
/// every 200-250 ms reports it.
pub const SEEN_TOUCH_MS: u64 = 400;

/// One physical step, `gap_ms` after the previous one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub gap_ms: u64,
    pub action: Action,
}

/// How a capture is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CaptureOrder {
    /// The victim is taken off first, then the own piece moves onto the empty square.
    VictimFirst,
    /// The own piece is put straight onto the victim: the square changes code with no
    /// empty state in between.
    DirectReplace,
    /// The own piece is lifted, the victim taken off, the own piece placed.
    LiftVictimPlace,
}

/// How a move was made, as a test checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveStyle {
    /// Lift, (sliding noise,) place.
    Plain,
    Capture(CaptureOrder),
    /// King lifted and placed, then the rook.
    Castling,
    /// Rook lifted and placed before the king (a touch-move violation).
    CastlingRookFirst,
    /// King and rook both off the board at once (suspected two-handed).
    CastlingTwoHanded,
    EnPassant {
        victim_first: bool,
    },
    Promotion {
        /// The new piece stood on the promotion square before the pawn was taken off.
        piece_first: bool,
        capture: Option<CaptureOrder>,
    },
    /// A pawn put on the last rank as a pawn (then replaced by a queen by the arbiter).
    Unpromoted,
}

/// A legal move's hand motion.
#[derive(Debug, Clone)]
pub(crate) struct Motion {
    pub steps: Vec<Step>,
    pub style: MoveStyle,
    /// Squares the piece was briefly put on along its path.
    pub slid_over: Vec<Square>,
}

/// What the motion may do.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MotionLimits {
    /// Captures may lift the victim before the own piece (when false: own piece first).
    pub victim_first: bool,
    /// Captures may lift the victim at all (when false: straight onto it).
    pub victim_lift: bool,
    pub sliding_noise: bool,
}

impl MotionLimits {
    pub const FREE: MotionLimits = MotionLimits {
        victim_first: true,
        victim_lift: true,
        sliding_noise: true,
    };
}

/// Builds steps with random gaps.
pub(crate) struct Steps<'r> {
    pub steps: Vec<Step>,
    rng: &'r mut HandRng,
    /// The gap before the next step.
    pending_gap: u64,
}

impl<'r> Steps<'r> {
    pub fn new(rng: &'r mut HandRng) -> Steps<'r> {
        Steps {
            steps: Vec::new(),
            rng,
            pending_gap: 0,
        }
    }

    /// The next step comes `lo..=hi` ms after the previous one.
    pub fn wait(&mut self, lo: u64, hi: u64) -> &mut Self {
        self.pending_gap += self.rng.range(lo, hi);
        self
    }

    pub fn act(&mut self, action: Action) -> &mut Self {
        self.steps.push(Step {
            gap_ms: std::mem::take(&mut self.pending_gap),
            action,
        });
        self
    }

    pub fn lift(&mut self, sq: Square) -> &mut Self {
        self.act(Action::Lift(sq))
    }

    pub fn place(&mut self, sq: Square, piece: Piece) -> &mut Self {
        self.act(Action::Place(sq, piece))
    }

    pub fn rng(&mut self) -> &mut HandRng {
        self.rng
    }
}

/// What a board action does to a placement (other actions do nothing to it).
pub(crate) fn apply_to(placement: &mut Placement, action: &Action) {
    match action {
        Action::Lift(sq) => placement.set(*sq, None),
        Action::Place(sq, p) => placement.set(*sq, Some(*p)),
        _ => {}
    }
}

/// The squares strictly between `from` and `to` on a line (rank, file or diagonal);
/// empty if they are not on one.
pub(crate) fn between(from: Square, to: Square) -> Vec<Square> {
    let df = i8::try_from(to.file().index()).unwrap_or(0) - from.file().index() as i8;
    let dr = i8::try_from(to.rank().index()).unwrap_or(0) - from.rank().index() as i8;
    if !(df == 0 || dr == 0 || df.abs() == dr.abs()) || (df == 0 && dr == 0) {
        return Vec::new();
    }
    let (sf, sr) = (df.signum(), dr.signum());
    let mut out = Vec::new();
    let mut sq = from;
    while let Some(next) = sq.offset(sf, sr) {
        if next == to {
            break;
        }
        out.push(next);
        sq = next;
    }
    out
}

fn is_slider(role: Role) -> bool {
    matches!(role, Role::Rook | Role::Bishop | Role::Queen)
}

/// Sliding noise: one or two squares of the path (in path order), each briefly occupied.
fn slide(s: &mut Steps<'_>, path: &[Square], piece: Piece) -> Vec<Square> {
    let n = path.len().min(1 + s.rng().index(2));
    let mut picks: Vec<Square> = path.to_vec();
    // Keep `n` squares, in path order.
    while picks.len() > n {
        let i = s.rng().index(picks.len());
        picks.remove(i);
    }
    for sq in &picks {
        s.wait(60, 150).place(*sq, piece).wait(40, 180).lift(*sq);
    }
    picks
}

fn capture_order(rng: &mut HandRng, v: &Variations, limits: MotionLimits) -> CaptureOrder {
    let mut w = v.capture_order;
    if !limits.victim_first {
        w[0] = 0.0;
    }
    if !limits.victim_lift {
        w[0] = 0.0;
        w[2] = 0.0;
    }
    if w.iter().all(|x| *x <= 0.0) {
        return CaptureOrder::DirectReplace;
    }
    match rng.weighted(&w) {
        0 => CaptureOrder::VictimFirst,
        2 => CaptureOrder::LiftVictimPlace,
        _ => CaptureOrder::DirectReplace,
    }
}

/// The hand motion of the legal move `info` in `pos`.
pub(crate) fn legal_move(
    pos: &Position,
    info: &MoveInfo,
    v: &Variations,
    limits: MotionLimits,
    rng: &mut HandRng,
) -> Motion {
    let m = info.mv;
    let piece = info.piece;
    let mut slid_over = Vec::new();
    let mut s = Steps::new(rng);
    let style = if let Some((_, rook_from, rook_to)) = info.castling {
        // The king's target (g or c): in Chess960 the move is the king taking its rook.
        let king = Move::new(m.from, info.landing(), None);
        castling_king_first(&mut s, king, (rook_from, rook_to), piece.color);
        MoveStyle::Castling
    } else if info.en_passant {
        let victim_sq = info.capture.map_or(m.to, |(sq, _)| sq);
        let victim_first = limits.victim_first && limits.victim_lift && {
            let p = v.en_passant_victim_first;
            s.rng().chance(p)
        };
        if victim_first {
            s.lift(victim_sq)
                .wait(TWO_HAND_SAFE_MS, 700)
                .lift(m.from)
                .wait(300, 600)
                .place(m.to, piece);
        } else {
            s.lift(m.from)
                .wait(300, 700)
                .place(m.to, piece)
                .wait(150, 500)
                .lift(victim_sq);
        }
        MoveStyle::EnPassant { victim_first }
    } else if let Some(new_piece) = info.promotion {
        let capture = info.capture.map(|_| capture_order(s.rng(), v, limits));
        let p = v.promotion_piece_first;
        // Placing the new piece first never lifts the victim after the pawn.
        let piece_first = capture != Some(CaptureOrder::LiftVictimPlace) && s.rng().chance(p);
        match (piece_first, capture) {
            (false, None | Some(CaptureOrder::DirectReplace)) => {
                s.lift(m.from)
                    .wait(TWO_HAND_SAFE_MS, 1000)
                    .place(m.to, new_piece);
            }
            (false, Some(CaptureOrder::VictimFirst)) => {
                s.lift(m.to)
                    .wait(TWO_HAND_SAFE_MS, 700)
                    .lift(m.from)
                    .wait(TWO_HAND_SAFE_MS, 700)
                    .place(m.to, new_piece);
            }
            (_, Some(CaptureOrder::LiftVictimPlace)) => {
                s.lift(m.from)
                    .wait(TWO_HAND_SAFE_MS, 700)
                    .lift(m.to)
                    .wait(250, 600)
                    .place(m.to, new_piece);
            }
            (true, None | Some(CaptureOrder::DirectReplace)) => {
                s.place(m.to, new_piece)
                    .wait(TWO_HAND_SAFE_MS, 1000)
                    .lift(m.from);
            }
            (true, Some(CaptureOrder::VictimFirst)) => {
                s.lift(m.to)
                    .wait(300, 700)
                    .place(m.to, new_piece)
                    .wait(TWO_HAND_SAFE_MS, 900)
                    .lift(m.from);
            }
        }
        MoveStyle::Promotion {
            piece_first,
            capture,
        }
    } else {
        let path = if is_slider(piece.role) {
            between(m.from, m.to)
        } else {
            Vec::new()
        };
        let noisy = limits.sliding_noise && !path.is_empty() && {
            let p = v.sliding_noise;
            s.rng().chance(p)
        };
        match info.capture {
            None => {
                s.lift(m.from);
                if noisy {
                    slid_over = slide(&mut s, &path, piece);
                }
                s.wait(300, 900).place(m.to, piece);
                MoveStyle::Plain
            }
            Some(_) => {
                let order = capture_order(s.rng(), v, limits);
                match order {
                    CaptureOrder::VictimFirst => {
                        s.lift(m.to).wait(TWO_HAND_SAFE_MS, 700).lift(m.from);
                        if noisy {
                            slid_over = slide(&mut s, &path, piece);
                        }
                        s.wait(300, 600).place(m.to, piece);
                    }
                    CaptureOrder::DirectReplace => {
                        s.lift(m.from);
                        if noisy {
                            slid_over = slide(&mut s, &path, piece);
                        }
                        s.wait(300, 900).place(m.to, piece);
                    }
                    CaptureOrder::LiftVictimPlace => {
                        s.lift(m.from)
                            .wait(TWO_HAND_SAFE_MS, 700)
                            .lift(m.to)
                            .wait(250, 600)
                            .place(m.to, piece);
                    }
                }
                MoveStyle::Capture(order)
            }
        }
    };
    let _ = pos;
    Motion {
        steps: s.steps,
        style,
        slid_over,
    }
}

/// A castling as the rules want it made: the king lifted and put on its square, then the
/// rook (lifted at least a scan after the king, so a board sees the order). `king` goes
/// from the king's square to its target (g or c). In Chess960 (Guidelines II.3) a piece
/// may already stand on its target (only the other moves), or one's target may hold the
/// other: then the king is lifted off the board, the rook moved, the king set down
/// (II.3.2.5.1).
pub(crate) fn castling_king_first(
    s: &mut Steps<'_>,
    king: Move,
    (rook_from, rook_to): (Square, Square),
    color: Color,
) {
    let king_piece = Piece::new(color, Role::King);
    let rook = Piece::new(color, Role::Rook);
    if king.from == king.to {
        s.lift(rook_from).wait(250, 550).place(rook_to, rook);
        return;
    }
    if rook_from == rook_to {
        s.lift(king.from).wait(250, 550).place(king.to, king_piece);
        return;
    }
    if king.to == rook_from || rook_to == king.from {
        s.lift(king.from)
            .wait(250, 550)
            .lift(rook_from)
            .wait(250, 550)
            .place(rook_to, rook)
            .wait(100, 300)
            .place(king.to, king_piece);
        return;
    }
    s.lift(king.from)
        .wait(250, 550)
        .place(king.to, Piece::new(color, Role::King))
        .wait(100, 300)
        .lift(rook_from)
        .wait(250, 550)
        .place(rook_to, Piece::new(color, Role::Rook));
}

/// A castling made rook first: the rook is lifted and placed, then the king.
pub(crate) fn castling_rook_first(info: &MoveInfo, rng: &mut HandRng) -> Option<Motion> {
    let (_, rook_from, rook_to) = info.castling?;
    if squares_cross(info) {
        return None;
    }
    let rook = Piece::new(info.piece.color, Role::Rook);
    let mut s = Steps::new(rng);
    s.lift(rook_from)
        .wait(250, 550)
        .place(rook_to, rook)
        .wait(100, 300)
        .lift(info.mv.from)
        .wait(250, 550)
        .place(info.landing(), info.piece);
    Some(Motion {
        steps: s.steps,
        style: MoveStyle::CastlingRookFirst,
        slid_over: Vec::new(),
    })
}

/// A castling with both hands: king and rook lifted within a fraction of a second and
/// both off the board for over half a second.
pub(crate) fn castling_two_handed(info: &MoveInfo, rng: &mut HandRng) -> Option<Motion> {
    let (_, rook_from, rook_to) = info.castling?;
    if squares_cross(info) {
        return None;
    }
    let rook = Piece::new(info.piece.color, Role::Rook);
    let mut s = Steps::new(rng);
    s.lift(info.mv.from)
        .wait(60, 180)
        .lift(rook_from)
        .wait(550, 900)
        .place(info.landing(), info.piece)
        .wait(100, 300)
        .place(rook_to, rook);
    Some(Motion {
        steps: s.steps,
        style: MoveStyle::CastlingTwoHanded,
        slid_over: Vec::new(),
    })
}

/// A Chess960 castling whose king or rook stays, or whose target holds the other piece:
/// it has no "rook first" or "both in the air" shape of its own (the rook-only way is
/// already rook first, and the Guidelines' way has both off the board).
fn squares_cross(info: &MoveInfo) -> bool {
    let Some((_, rook_from, rook_to)) = info.castling else {
        return false;
    };
    let (king_from, king_to) = (info.mv.from, info.landing());
    king_from == king_to || rook_from == rook_to || king_to == rook_from || rook_to == king_from
}

/// A pawn pushed to the last rank and left a pawn (captures go straight onto the victim).
pub(crate) fn unpromoted(info: &MoveInfo, rng: &mut HandRng) -> Motion {
    let pawn = Piece::new(info.piece.color, Role::Pawn);
    let mut s = Steps::new(rng);
    s.lift(info.mv.from).wait(300, 900).place(info.mv.to, pawn);
    Motion {
        steps: s.steps,
        style: MoveStyle::Unpromoted,
        slid_over: Vec::new(),
    }
}

/// Lift a piece and put it back on its square. A touch that must be seen (the evidence
/// of an injected touch-move violation) stays off the board for longer than any board's
/// scan interval; an ordinary adjustment may be too quick for the board to notice.
pub(crate) fn adjustment(sq: Square, piece: Piece, seen: bool, rng: &mut HandRng) -> Vec<Step> {
    let mut s = Steps::new(rng);
    if seen {
        s.lift(sq).wait(SEEN_TOUCH_MS, 900).place(sq, piece);
    } else {
        s.lift(sq).wait(150, 500).place(sq, piece);
    }
    s.steps
}

/// The squares of `color`'s pieces that have no legal move in `pos` (`pos` must have
/// `color` to move). Adjusting one of them creates no obligation.
pub(crate) fn immovable_pieces(pos: &Position, color: Color) -> Vec<(Square, Piece)> {
    let movable: std::collections::HashSet<Square> = pos.legal_moves().map(|m| m.from).collect();
    pos.placement()
        .pieces()
        .filter(|(sq, p)| p.color == color && !movable.contains(sq))
        .collect()
}

/// The own pieces other than the one on `except` that have a legal move.
pub(crate) fn other_movable_pieces(pos: &Position, except: Square) -> Vec<(Square, Piece)> {
    let mut froms: Vec<Square> = pos.legal_moves().map(|m: Move| m.from).collect();
    froms.sort();
    froms.dedup();
    froms
        .into_iter()
        .filter(|sq| *sq != except)
        .filter_map(|sq| pos.piece_at(sq).map(|p| (sq, p)))
        .collect()
}
