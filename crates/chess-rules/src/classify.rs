//! What did the player do? Given the last legal position and the placement the board
//! shows at the clock press, [`Position::classify`] decides: a legal move (which one), no
//! change, a pawn moved to the last rank and left a pawn (art. 7.5.2), a legal move with
//! pieces knocked over (art. 7.4), or an illegal move
//! with its category (formats.md §2), the attempted move when it can be inferred, and the
//! put/remove steps that take the board back to the position to reinstate.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::bridge::bb;
use crate::placement::Placement;
use crate::position::{attacks, CastleSide, Position, Variant};
use crate::types::{Color, File, Move, Piece, Role, Square};

/// The kind of illegal move, with the JSON names of formats.md §2. Where several fit, the
/// first rule broken in this order wins: wrong colour, multiple moves / piece added or
/// removed, castling, en passant, piece movement, king in check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllegalCategory {
    /// The move leaves or puts the own king in check (kings side by side, a pinned piece
    /// leaving its line, a check not parried).
    KingInCheck,
    /// Any attempt to castle that is not legal (king or rook moved before, in check,
    /// through or onto an attacked square, pieces between, rook misplaced).
    Castling,
    /// Any attempt to capture en passant that is not legal (a move late, pinned, pawn
    /// not removed).
    EnPassant,
    /// Not even a move the piece can make by its own rules (bishop off its diagonal,
    /// slider jumping, pawn capturing straight or moving backwards).
    PieceMovement,
    /// A pawn moved to the last rank and left a pawn (art. 7.5.2).
    UnpromotedPawn,
    /// The clock was pressed without a move (art. 7.5.3).
    ClockWithoutMove,
    /// The player moved an opponent's piece from one square to another (a piece put on
    /// the board from off it is [`IllegalCategory::PieceAddedOrRemoved`]).
    WrongColor,
    /// More than one of the player's pieces moved.
    MultipleMoves,
    /// A piece appeared, vanished or changed into another.
    PieceAddedOrRemoved,
    /// A castling, capture or promotion made with two hands (art. 7.5.4; the board cannot
    /// see hands, the tracker reports it as suspected).
    TwoHanded,
    Other,
}

impl IllegalCategory {
    /// Every category, in the order of the contract's list.
    pub const ALL: [IllegalCategory; 11] = [
        IllegalCategory::KingInCheck,
        IllegalCategory::Castling,
        IllegalCategory::EnPassant,
        IllegalCategory::PieceMovement,
        IllegalCategory::UnpromotedPawn,
        IllegalCategory::ClockWithoutMove,
        IllegalCategory::WrongColor,
        IllegalCategory::MultipleMoves,
        IllegalCategory::PieceAddedOrRemoved,
        IllegalCategory::TwoHanded,
        IllegalCategory::Other,
    ];

    /// The snake_case name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            IllegalCategory::KingInCheck => "king_in_check",
            IllegalCategory::Castling => "castling",
            IllegalCategory::EnPassant => "en_passant",
            IllegalCategory::PieceMovement => "piece_movement",
            IllegalCategory::UnpromotedPawn => "unpromoted_pawn",
            IllegalCategory::ClockWithoutMove => "clock_without_move",
            IllegalCategory::WrongColor => "wrong_color",
            IllegalCategory::MultipleMoves => "multiple_moves",
            IllegalCategory::PieceAddedOrRemoved => "piece_added_or_removed",
            IllegalCategory::TwoHanded => "two_handed",
            IllegalCategory::Other => "other",
        }
    }
}

impl fmt::Display for IllegalCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What touching a piece binds the player to (art. 4.3, 4.4), with the JSON names of the
/// `touch_move` event's `obligation` (formats.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Obligation {
    /// Move the touched own piece.
    Move,
    /// Capture the touched opponent's piece.
    Capture,
    /// Castle on the side of the touched rook (king touched first, castling legal).
    Castle,
    /// Move the king (king touched first for a castling that is illegal).
    KingMove,
}

impl Obligation {
    /// Every obligation, in the order of the contract's list.
    pub const ALL: [Obligation; 4] = [
        Obligation::Move,
        Obligation::Capture,
        Obligation::Castle,
        Obligation::KingMove,
    ];

    /// The snake_case name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Obligation::Move => "move",
            Obligation::Capture => "capture",
            Obligation::Castle => "castle",
            Obligation::KingMove => "king_move",
        }
    }
}

impl fmt::Display for Obligation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The move the player appears to have tried: `{"from":"e1","to":"g1","piece":"K"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Attempt {
    pub from: Square,
    pub to: Square,
    pub piece: Piece,
}

/// One step of putting the board back: put a piece on a square, or take one off it. In
/// JSON `{"square":"e4","put":"P"}` or `{"square":"e4","remove":"p"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RestoreStep {
    Put { square: Square, piece: Piece },
    Remove { square: Square, piece: Piece },
}

impl RestoreStep {
    pub fn square(self) -> Square {
        match self {
            RestoreStep::Put { square, .. } | RestoreStep::Remove { square, .. } => square,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct RestoreStepJson {
    square: Square,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    put: Option<Piece>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    remove: Option<Piece>,
}

impl Serialize for RestoreStep {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let json = match *self {
            RestoreStep::Put { square, piece } => RestoreStepJson {
                square,
                put: Some(piece),
                remove: None,
            },
            RestoreStep::Remove { square, piece } => RestoreStepJson {
                square,
                put: None,
                remove: Some(piece),
            },
        };
        json.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RestoreStep {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let json = RestoreStepJson::deserialize(d)?;
        match (json.put, json.remove) {
            (Some(piece), None) => Ok(RestoreStep::Put {
                square: json.square,
                piece,
            }),
            (None, Some(piece)) => Ok(RestoreStep::Remove {
                square: json.square,
                piece,
            }),
            _ => Err(D::Error::custom(
                "a restore step needs exactly one of \"put\" and \"remove\"",
            )),
        }
    }
}

/// The steps that turn placement `from` into `to`: first every removal, then every put
/// (a1 to h8 each), so a square holding the wrong piece is cleared before it is filled.
pub fn restore_steps(from: &Placement, to: &Placement) -> Vec<RestoreStep> {
    let diff: Vec<_> = from.diff(to).collect();
    let removes = diff.iter().filter_map(|d| {
        d.before.map(|piece| RestoreStep::Remove {
            square: d.square,
            piece,
        })
    });
    let puts = diff.iter().filter_map(|d| {
        d.after.map(|piece| RestoreStep::Put {
            square: d.square,
            piece,
        })
    });
    removes.chain(puts).collect()
}

/// What the board shows at the clock press, measured against the last legal position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classification {
    /// The position plus exactly this legal move.
    Legal(Move),
    /// The position unchanged (a clock press without a move, art. 7.5.3).
    NoChange,
    /// A pawn moved to the last rank and is still a pawn (art. 7.5.2): illegal, and the
    /// correction is the promotion to a queen, which then stands as the move.
    UnpromotedPawn {
        /// The promotion to a queen that replaces the move.
        correction: Move,
        /// Steps from the board as seen to the position after `correction`.
        restore: Vec<RestoreStep>,
    },
    /// The position plus this legal move, with pieces the move did not involve knocked
    /// off the board or onto an empty square beside their own (art. 7.4): the move
    /// stands, the pieces are to be re-established; not an illegal move.
    Displaced {
        mv: Move,
        /// Steps from the board as seen to the position after `mv`.
        reestablish: Vec<RestoreStep>,
    },
    /// The board fits more than one move with displaced pieces: which move was made is a
    /// question for the arbiter, not a ruling to take on a guess.
    Unclear {
        /// Each move the board fits, with its steps to re-establish.
        readings: Vec<(Move, Vec<RestoreStep>)>,
    },
    /// Anything else: an illegal move; the position is to be reinstated.
    Illegal {
        category: IllegalCategory,
        attempt: Option<Attempt>,
        /// Steps from the board as seen back to the position.
        restore: Vec<RestoreStep>,
    },
}

/// A piece that left a square, or arrived on one.
type Seen = (Square, Piece);

impl Position {
    /// Classifies the placement `observed` at a clock press, this position being the last
    /// legal one (its side to move pressed). `lifted` is the order in which squares were
    /// lifted this turn, if known: it helps name the attempt when several pieces moved.
    pub fn classify(&self, observed: &Placement, lifted: &[Square]) -> Classification {
        if self.placement() == observed {
            return Classification::NoChange;
        }
        if let Some((m, _)) = self.move_to_placement(observed) {
            return Classification::Legal(m);
        }
        if let Some(correction) = self.unpromoted_pawn(observed) {
            let after = self.apply(correction);
            return Classification::UnpromotedPawn {
                correction,
                restore: restore_steps(observed, after.placement()),
            };
        }
        let mut readings = self.displaced_readings(observed);
        match readings.len() {
            0 => {}
            1 => {
                let (mv, reestablish) = readings.remove(0);
                return Classification::Displaced { mv, reestablish };
            }
            _ => return Classification::Unclear { readings },
        }
        let (category, attempt) = self.illegal_kind(observed, lifted);
        Classification::Illegal {
            category,
            attempt,
            restore: restore_steps(observed, self.placement()),
        }
    }

    /// Art. 7.4 (arbiter-rules.md "Displaced pieces"): the legal moves `m` such that
    /// `observed` is the position after `m` with, in addition, only pieces displaced:
    /// - every square that differs lies outside the squares `m` involves (from, to, the
    ///   en passant victim's, the castling rook's);
    /// - a piece is missing from its square (knocked off the board), or stands on an
    ///   empty square beside it (king-distance 1) where that piece could not have moved
    ///   by its own rules (a pawn sideways, a bishop straight, a knight anywhere near): a
    ///   piece that went one step as it moves is a second move, not a knock;
    /// - no piece appears from off the board, no piece changes into another.
    ///
    /// Each with the steps that re-establish the position after `m`.
    fn displaced_readings(&self, observed: &Placement) -> Vec<(Move, Vec<RestoreStep>)> {
        let mut out = Vec::new();
        for m in self.legal_moves() {
            let Some(info) = self.move_info(m) else {
                continue;
            };
            let after = self.apply(m);
            let mut involved = vec![m.from, m.to];
            involved.extend(info.capture.map(|(sq, _)| sq));
            if let Some((side, rf, rt)) = info.castling {
                // In Chess960 `m.to` is the rook's square: the king's target is involved too.
                involved.extend([rf, rt, Square::new(side.king_to_file(), m.from.rank())]);
            }
            if knocked_over(after.placement(), observed, &involved) {
                out.push((m, restore_steps(observed, after.placement())));
            }
        }
        out
    }

    /// The queen promotion whose placement, with a pawn left on the promotion square, is
    /// `observed`.
    fn unpromoted_pawn(&self, observed: &Placement) -> Option<Move> {
        let color = self.side_to_move();
        self.legal_moves()
            .filter(|m| m.promotion == Some(Role::Queen))
            .find(|&m| {
                let mut expected = *self.apply(m).placement();
                expected.set(m.to, Some(Piece::new(color, Role::Pawn)));
                expected == *observed
            })
    }

    fn illegal_kind(
        &self,
        observed: &Placement,
        lifted: &[Square],
    ) -> (IllegalCategory, Option<Attempt>) {
        let mover = self.side_to_move();
        let mut left: Vec<Seen> = Vec::new();
        let mut arrived: Vec<Seen> = Vec::new();
        for d in self.placement().diff(observed) {
            if let Some(p) = d.before {
                left.push((d.square, p));
            }
            if let Some(p) = d.after {
                arrived.push((d.square, p));
            }
        }
        let (my_left, opp_left): (Vec<Seen>, Vec<Seen>) =
            left.iter().partition(|(_, p)| p.color == mover);
        let (my_arrived, opp_arrived): (Vec<Seen>, Vec<Seen>) =
            arrived.iter().partition(|(_, p)| p.color == mover);

        // 1. An opponent's piece moved from one square to another (formats.md §2): one
        //    of his pieces stands somewhere new and a piece like it left a square. A piece
        //    that arrived from off the board (a captured one brought back, a spare queen)
        //    is `piece_added_or_removed`, whatever its colour.
        let moved_opp: Vec<Seen> = opp_arrived
            .iter()
            .copied()
            .filter(|(_, p)| opp_left.iter().any(|(_, l)| l == p))
            .collect();
        if !moved_opp.is_empty() {
            let attempt = pick_moved(&opp_left, &moved_opp, lifted);
            return (IllegalCategory::WrongColor, attempt);
        }
        if !opp_arrived.is_empty() {
            return (IllegalCategory::PieceAddedOrRemoved, None);
        }

        // 2. Pieces appeared or vanished; several pieces moved.
        if my_left.len() != my_arrived.len() || my_left.is_empty() {
            let attempt = pick_moved(&my_left, &my_arrived, lifted);
            return (IllegalCategory::PieceAddedOrRemoved, attempt);
        }
        if my_left.len() >= 2 {
            if let Some(attempt) = self.castling_shape(&my_left, &my_arrived) {
                return (IllegalCategory::Castling, Some(attempt));
            }
            let attempt = pick_moved(&my_left, &my_arrived, lifted);
            return (IllegalCategory::MultipleMoves, attempt);
        }

        // Exactly one of the mover's pieces moved.
        let (from, piece) = my_left[0];
        let (to, landed) = my_arrived[0];
        let attempt = Some(Attempt { from, to, piece });
        let promotion_rank = to.rank() == mover.promotion_rank();
        let promotes = piece.role == Role::Pawn && promotion_rank;
        if landed.role != piece.role && !promotes {
            // A knight left and a bishop arrived: not one piece moving.
            return (IllegalCategory::PieceAddedOrRemoved, attempt);
        }
        let ep_victim = Square::new(to.file(), from.rank());
        let diagonal_pawn_step = piece.role == Role::Pawn
            && from.file() != to.file()
            && from.file().index().abs_diff(to.file().index()) == 1
            && to.rank().index() as i8 - from.rank().index() as i8 == forward(mover)
            && self.piece_at(to).is_none();
        // At most one opponent piece may go: the one on the target square, or the pawn
        // beside a diagonal pawn step (en passant).
        let ep_capture = [(ep_victim, Piece::new(mover.opponent(), Role::Pawn))];
        let capture_fits = match opp_left.as_slice() {
            [] => true,
            [(sq, _)] if *sq == to => true,
            one => diagonal_pawn_step && one == ep_capture,
        };
        if !capture_fits {
            return (IllegalCategory::PieceAddedOrRemoved, attempt);
        }

        // 3. Castling: the king moved two files from its home square.
        if piece.role == Role::King && self.castle_side(Move::new(from, to, None)).is_some() {
            return (IllegalCategory::Castling, attempt);
        }
        if self.variant() == Variant::Chess960 && opp_left.is_empty() {
            if let Some(attempt) = self.one_piece_castling_960(from, to, piece) {
                return (IllegalCategory::Castling, Some(attempt));
            }
        }
        // 4. En passant: a pawn stepped diagonally onto an empty square beside which an
        //    enemy pawn stood (removed or not).
        if diagonal_pawn_step {
            let victim = Piece::new(mover.opponent(), Role::Pawn);
            return if self.piece_at(ep_victim) == Some(victim) {
                (IllegalCategory::EnPassant, attempt)
            } else {
                (IllegalCategory::PieceMovement, attempt)
            };
        }
        // 5. Not a move of this piece at all; 6. a move of the right shape into check.
        // An unpromoted pawn: judge the shape as if it had become a queen.
        let promotion = promotes.then_some(match landed.role {
            Role::Pawn => Role::Queen,
            other => other,
        });
        let m = Move::new(from, to, promotion);
        if !self.is_pseudo_legal(m) {
            return (IllegalCategory::PieceMovement, attempt);
        }
        if !self.is_legal(m) {
            return (IllegalCategory::KingInCheck, attempt);
        }
        (IllegalCategory::Other, attempt)
    }

    /// King and rook both moved along the back rank from their home squares, the king two
    /// files: a castling attempt (its king move is the attempt). In Chess960, see
    /// [`Position::castling_shape_960`].
    fn castling_shape(&self, left: &[Seen], arrived: &[Seen]) -> Option<Attempt> {
        let color = self.side_to_move();
        if left.len() != 2 || arrived.len() != 2 {
            return None;
        }
        if self.variant() == Variant::Chess960 {
            return self.castling_shape_960(left, arrived);
        }
        let king = Piece::new(color, Role::King);
        let rook = Piece::new(color, Role::Rook);
        let (&(kf, _), &(kt, _)) = (
            left.iter().find(|(_, p)| *p == king)?,
            arrived.iter().find(|(_, p)| *p == king)?,
        );
        let (&(rf, _), _) = (
            left.iter().find(|(_, p)| *p == rook)?,
            arrived.iter().find(|(_, p)| *p == rook)?,
        );
        let side = self.castle_side(Move::new(kf, kt, None))?;
        let rook_home = Square::new(
            match side {
                CastleSide::KingSide => File::H,
                CastleSide::QueenSide => File::A,
            },
            color.back_rank(),
        );
        (rf == rook_home).then_some(Attempt {
            from: kf,
            to: kt,
            piece: king,
        })
    }
}

impl Position {
    /// Chess960, king and rook both moved (II.3): the king from its back rank to g or c, a
    /// rook of his from the same side of it to f or d (the swap of king f1 and rook g1
    /// included). The attempt is the castling as a move, the king taking that rook.
    fn castling_shape_960(&self, left: &[Seen], arrived: &[Seen]) -> Option<Attempt> {
        let color = self.side_to_move();
        let king = Piece::new(color, Role::King);
        let rook = Piece::new(color, Role::Rook);
        let (&(kf, _), &(kt, _)) = (
            left.iter().find(|(_, p)| *p == king)?,
            arrived.iter().find(|(_, p)| *p == king)?,
        );
        let (&(rf, _), &(rt, _)) = (
            left.iter().find(|(_, p)| *p == rook)?,
            arrived.iter().find(|(_, p)| *p == rook)?,
        );
        let side = castled_side(color, kt, rt)?;
        let rank = color.back_rank();
        let rook_outside = match side {
            CastleSide::KingSide => rf.file() > kf.file(),
            CastleSide::QueenSide => rf.file() < kf.file(),
        };
        (kf.rank() == rank && rf.rank() == rank && rook_outside).then_some(Attempt {
            from: kf,
            to: rf,
            piece: king,
        })
    }

    /// Chess960, one piece moved where no single move of it can go (II.3): the king two
    /// files or more along its back rank onto g or c, a rook of his already on f or d
    /// beside the target; or a rook jumping over its king standing on g or c onto f or d.
    /// Both are castlings done with one piece, the other already on its target.
    fn one_piece_castling_960(&self, from: Square, to: Square, piece: Piece) -> Option<Attempt> {
        let color = self.side_to_move();
        let rank = color.back_rank();
        if from.rank() != rank || to.rank() != rank {
            return None;
        }
        let king = Piece::new(color, Role::King);
        let rook = Piece::new(color, Role::Rook);
        match piece.role {
            Role::King if from.file().index().abs_diff(to.file().index()) >= 2 => {
                let side = CastleSide::ALL
                    .into_iter()
                    .find(|s| s.king_to_file() == to.file())?;
                let rook_at = Square::new(side.rook_to_file(), rank);
                // The king jumped the rook: it stood on that side of the king.
                let rook_outside = match side {
                    CastleSide::KingSide => rook_at.file() > from.file(),
                    CastleSide::QueenSide => rook_at.file() < from.file(),
                };
                (rook_outside && self.piece_at(rook_at) == Some(rook)).then_some(Attempt {
                    from,
                    to: rook_at,
                    piece: king,
                })
            }
            Role::Rook => {
                let king_at = self.king(color);
                castled_side(color, king_at, to)?;
                let (lo, hi) = (from.file().min(to.file()), from.file().max(to.file()));
                let jumps_king = lo < king_at.file() && king_at.file() < hi;
                jumps_king.then_some(Attempt {
                    from: king_at,
                    to: from,
                    piece: king,
                })
            }
            _ => None,
        }
    }
}

/// The side whose castled squares the king on `king` and rook on `rook` stand on (king g,
/// rook f; or king c, rook d; on `color`'s back rank).
fn castled_side(color: Color, king: Square, rook: Square) -> Option<CastleSide> {
    let rank = color.back_rank();
    CastleSide::ALL.into_iter().find(|side| {
        king == Square::new(side.king_to_file(), rank)
            && rook == Square::new(side.rook_to_file(), rank)
    })
}

/// Is `observed` the placement `expected` with only pieces knocked off the board or onto
/// an empty square beside theirs, none of them on `involved` squares? (See
/// [`Position::displaced_readings`].)
fn knocked_over(expected: &Placement, observed: &Placement, involved: &[Square]) -> bool {
    let mut missing: Vec<Seen> = Vec::new();
    let mut arrived: Vec<Seen> = Vec::new();
    for d in expected.diff(observed) {
        if involved.contains(&d.square) {
            return false;
        }
        match (d.before, d.after) {
            (Some(p), None) => missing.push((d.square, p)),
            (None, Some(p)) => arrived.push((d.square, p)),
            // A piece changed into another: not a knock.
            _ => return false,
        }
    }
    if missing.is_empty() {
        return false;
    }
    // Each piece that stands somewhere new came from a square beside it that misses that
    // very piece, by no step that piece makes (else it is a second move).
    let mut used = vec![false; missing.len()];
    for &(to, piece) in &arrived {
        let from = missing.iter().enumerate().position(|(i, &(from, p))| {
            !used[i] && p == piece && king_distance(from, to) == 1 && !is_step_of(piece, from, to)
        });
        match from {
            Some(i) => used[i] = true,
            None => return false,
        }
    }
    true
}

fn king_distance(a: Square, b: Square) -> u8 {
    let df = a.file().index().abs_diff(b.file().index());
    let dr = a.rank().index().abs_diff(b.rank().index());
    df.max(dr)
}

/// Is going from `from` to the square `to` beside it a step the piece makes by its own
/// rules (onto an empty square)? A pawn one square forward; a bishop diagonally; a rook
/// straight; a queen or king any way; a knight never.
fn is_step_of(piece: Piece, from: Square, to: Square) -> bool {
    let straight = from.file() == to.file() || from.rank() == to.rank();
    match piece.role {
        Role::Pawn => {
            from.file() == to.file()
                && to.rank().index() as i8 - from.rank().index() as i8 == forward(piece.color)
        }
        Role::Knight => false,
        Role::Bishop => !straight,
        Role::Rook => straight,
        Role::Queen | Role::King => true,
    }
}

fn forward(color: Color) -> i8 {
    match color {
        Color::White => 1,
        Color::Black => -1,
    }
}

/// Names the move of one piece among those that left and arrived: the first lifted square
/// that a piece left (else the only one that left), and where that kind of piece (or, for
/// a pawn, what it became) arrived, if that is unambiguous.
fn pick_moved(left: &[Seen], arrived: &[Seen], lifted: &[Square]) -> Option<Attempt> {
    let from = lifted
        .iter()
        .find_map(|sq| left.iter().find(|(s, _)| s == sq))
        .or(match left {
            [only] => Some(only),
            _ => None,
        })?;
    let (from, piece) = *from;
    let mut same: Vec<&Seen> = arrived.iter().filter(|(_, p)| *p == piece).collect();
    if same.len() > 1 {
        // Several pieces of that kind arrived: keep those it could reach on an empty board.
        same.retain(|(to, _)| could_reach(piece, from, *to));
    }
    let to = match same.as_slice() {
        [one] => one.0,
        [] => match arrived {
            // A pawn that became something else, or a piece that changed: the only arrival.
            [one] if one.1.color == piece.color => one.0,
            _ => return None,
        },
        _ => return None,
    };
    Some(Attempt { from, to, piece })
}

/// Could `piece` go from `from` to `to` on an empty board?
fn could_reach(piece: Piece, from: Square, to: Square) -> bool {
    if piece.role == Role::Pawn {
        let dr = to.rank().index() as i8 - from.rank().index() as i8;
        let df = to.file().index().abs_diff(from.file().index());
        let f = forward(piece.color);
        return (df == 0 && (dr == f || dr == 2 * f)) || (df == 1 && dr == f);
    }
    attacks(piece, from, chess::EMPTY) & bb(to) != chess::EMPTY
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{piece, pos, sq};

    /// The placement after physically moving pieces: `"e2e4"` moves what stands on e2,
    /// `"xd5"` removes the piece on d5, `"+Qd1"` puts a piece there.
    fn physical(p: &Position, steps: &[&str]) -> Placement {
        let mut pl = *p.placement();
        for step in steps {
            if let Some(rest) = step.strip_prefix('x') {
                pl.set(sq(rest), None);
            } else if let Some(rest) = step.strip_prefix('+') {
                let mut c = rest.chars();
                let pc = piece(c.next().unwrap());
                pl.set(sq(c.as_str()), Some(pc));
            } else {
                let (a, b) = (sq(&step[0..2]), sq(&step[2..4]));
                let moved = pl.get(a);
                pl.set(a, None);
                pl.set(b, moved);
            }
        }
        pl
    }

    fn illegal(p: &Position, steps: &[&str], lifted: &[&str]) -> (IllegalCategory, Option<String>) {
        let observed = physical(p, steps);
        let lifted: Vec<Square> = lifted.iter().map(|s| sq(s)).collect();
        match p.classify(&observed, &lifted) {
            Classification::Illegal {
                category,
                attempt,
                restore,
            } => {
                // The restore steps take the board back to the position.
                let mut board = observed;
                for step in &restore {
                    match *step {
                        RestoreStep::Remove { square, piece } => {
                            assert_eq!(board.get(square), Some(piece));
                            board.set(square, None);
                        }
                        RestoreStep::Put { square, piece } => {
                            assert_eq!(board.get(square), None);
                            board.set(square, Some(piece));
                        }
                    }
                }
                assert_eq!(board, *p.placement());
                let attempt = attempt.map(|a| format!("{}{}{}", a.piece, a.from, a.to));
                (category, attempt)
            }
            other => panic!("expected an illegal move, got {other:?}"),
        }
    }

    use IllegalCategory::*;

    #[test]
    fn legal_no_change_and_unpromoted() {
        let p = Position::start();
        assert_eq!(p.classify(p.placement(), &[]), Classification::NoChange);
        assert_eq!(
            p.classify(&physical(&p, &["g1f3"]), &[]),
            Classification::Legal("g1f3".parse().unwrap())
        );
        let p = pos("1r5k/P7/8/8/8/8/8/K7 w - - 0 1");
        for (steps, correction) in [(&["a7a8"][..], "a7a8q"), (&["xb8", "a7b8"][..], "a7b8q")] {
            match p.classify(&physical(&p, steps), &[]) {
                Classification::UnpromotedPawn {
                    correction: c,
                    restore,
                } => {
                    assert_eq!(c.uci(), correction);
                    let to = c.to;
                    assert_eq!(
                        restore,
                        vec![
                            RestoreStep::Remove {
                                square: to,
                                piece: piece('P')
                            },
                            RestoreStep::Put {
                                square: to,
                                piece: piece('Q')
                            }
                        ]
                    );
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn king_in_check_cases() {
        // Kings side by side.
        let p = pos("8/8/8/3k4/8/3K4/8/8 w - - 0 1");
        assert_eq!(
            illegal(&p, &["d3d4"], &[]),
            (KingInCheck, Some("Kd3d4".into()))
        );
        // A pinned knight leaves its line.
        let p = pos("4k3/4r3/8/8/8/4N3/8/4K3 w - - 0 1");
        assert_eq!(
            illegal(&p, &["e3c4"], &[]),
            (KingInCheck, Some("Ne3c4".into()))
        );
        // A check not parried.
        let p = pos("4k3/8/8/8/8/8/3P4/r3K3 w - - 0 1");
        assert_eq!(
            illegal(&p, &["d2d4"], &[]),
            (KingInCheck, Some("Pd2d4".into()))
        );
        // An unpromoted pawn that is also pinned: the shape is right, the king in check.
        let p = pos("k3rn2/4P3/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(
            illegal(&p, &["xf8", "e7f8"], &[]),
            (KingInCheck, Some("Pe7f8".into()))
        );
    }

    #[test]
    fn castling_cases() {
        // Through an attacked square (f1 covered by the bishop on c4).
        let p = pos("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(
            illegal(&p, &["e1g1", "h1f1"], &[]),
            (Castling, Some("Ke1g1".into()))
        );
        // Out of check.
        let p = pos("r3k2r/8/8/4q3/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(
            illegal(&p, &["e1c1", "a1d1"], &[]),
            (Castling, Some("Ke1c1".into()))
        );
        // After the king has moved (no right left), king only moved two squares.
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1");
        assert_eq!(illegal(&p, &["e1g1", "h1f1"], &[]).0, Castling);
        assert_eq!(
            illegal(&p, &["e1g1"], &[]),
            (Castling, Some("Ke1g1".into()))
        );
        // A legal castling with the rook on the wrong square is still a castling attempt.
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(illegal(&p, &["e1g1", "h1e1"], &[]).0, Castling);
        // Pieces between.
        let p = pos("r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1");
        assert_eq!(illegal(&p, &["e1c1", "a1d1"], &[]).0, Castling);
    }

    /// The classification of a Chess960 board after these physical steps, as a legal move.
    fn legal960(p: &Position, steps: &[&str]) -> Option<String> {
        match p.classify(&physical(p, steps), &[]) {
            Classification::Legal(m) => Some(m.uci()),
            _ => None,
        }
    }

    #[test]
    fn chess960_castling_is_told_by_the_placement_alone() {
        use crate::test_util::pos960;
        // Both moved; king on b1 with rook a1 (O-O-O: king c1, rook d1).
        let p = pos960("4k3/8/8/8/8/8/8/RK6 w A - 0 1");
        assert_eq!(legal960(&p, &["b1c1", "a1d1"]).as_deref(), Some("b1a1"));
        assert_eq!(legal960(&p, &["a1d1", "b1c1"]).as_deref(), Some("b1a1"));
        // The two swap: king f1, rook g1.
        let p = pos960("4k3/8/8/8/8/8/8/5KR1 w G - 0 1");
        assert_eq!(
            legal960(&p, &["xg1", "f1g1", "+Rf1"]).as_deref(),
            Some("f1g1")
        );
        // Only the rook moved: the king already stands on g1.
        let p = pos960("4k3/8/8/8/8/8/8/6KR w H - 0 1");
        assert_eq!(legal960(&p, &["h1f1"]).as_deref(), Some("g1h1"));
        // Only the king moved: the rook already stands on f1.
        let p = pos960("4k3/8/8/8/8/8/8/4KR2 w F - 0 1");
        assert_eq!(legal960(&p, &["e1g1"]).as_deref(), Some("e1f1"));
        // King f1, rook h1: the king set down on g1 first is the king's step (II.3.2.1:
        // the placement at the press decides), the rook following makes the castling.
        let p = pos960("4k3/8/8/8/8/8/8/5K1R w H - 0 1");
        assert_eq!(legal960(&p, &["f1g1"]).as_deref(), Some("f1g1"));
        assert_eq!(legal960(&p, &["f1g1", "h1f1"]).as_deref(), Some("f1h1"));
        // Position 518 in a Chess960 game: O-O is e1h1.
        let p = pos960("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(legal960(&p, &["e1g1", "h1f1"]).as_deref(), Some("e1h1"));
        assert_eq!(legal960(&p, &["e1c1", "a1d1"]).as_deref(), Some("e1a1"));
    }

    #[test]
    fn chess960_illegal_castling_cases() {
        use crate::test_util::pos960;
        // No right left: the swap, the rook alone over its king, the king alone over its rook.
        let p = pos960("4k3/8/8/8/8/8/8/5KR1 w - - 0 1");
        assert_eq!(
            illegal(&p, &["xg1", "f1g1", "+Rf1"], &[]),
            (Castling, Some("Kf1g1".into()))
        );
        let p = pos960("4k3/8/8/8/8/8/8/6KR w - - 0 1");
        assert_eq!(
            illegal(&p, &["h1f1"], &[]),
            (Castling, Some("Kg1h1".into()))
        );
        let p = pos960("4k3/8/8/8/8/8/8/4KR2 w - - 0 1");
        assert_eq!(
            illegal(&p, &["e1g1"], &[]),
            (Castling, Some("Ke1f1".into()))
        );
        // The king's target attacked (a rook on c8), and out of check.
        let p = pos960("2r1k3/8/8/8/8/8/8/RK6 w A - 0 1");
        assert_eq!(
            illegal(&p, &["b1c1", "a1d1"], &[]),
            (Castling, Some("Kb1a1".into()))
        );
        let p = pos960("1r2k3/8/8/8/8/8/8/RK6 w A - 0 1");
        assert_eq!(illegal(&p, &["b1c1", "a1d1"], &[]).0, Castling);
        // The castling rook shaded c1 from the rook on a1's side: king d1, rook b1, black
        // rook a1; after O-O-O the king on c1 would be in check.
        let p = pos960("4k3/8/8/8/8/8/8/rR1K4 w B - 0 1");
        assert!(!p.can_castle(CastleSide::QueenSide));
        assert_eq!(illegal(&p, &["d1c1", "b1d1"], &[]).0, Castling);
        // Pieces between: a knight between the rook and its target.
        let p = pos960("4k3/8/8/8/8/8/8/RN2K3 w A - 0 1");
        assert_eq!(
            illegal(&p, &["e1c1", "a1d1"], &[]),
            (Castling, Some("Ke1a1".into()))
        );
    }

    #[test]
    fn en_passant_cases() {
        // One move late: Black's d5 was played two plies ago.
        let p = pos("4k3/8/8/3pP3/8/8/8/4K2n w - - 0 3");
        assert_eq!(
            illegal(&p, &["e5d6", "xd5"], &[]),
            (EnPassant, Some("Pe5d6".into()))
        );
        // The pawn was not removed (the legal capture left incomplete).
        let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 3");
        assert_eq!(illegal(&p, &["e5d6"], &[]).0, EnPassant);
        // Pinned along the rank.
        let p = pos("8/8/8/K2pP2r/8/8/8/7k w - d6 0 3");
        assert_eq!(illegal(&p, &["e5d6", "xd5"], &[]).0, EnPassant);
        // A pawn stepping diagonally onto an empty square with nothing beside it.
        let p = pos("4k3/8/8/4P3/8/8/8/4K3 w - - 0 3");
        assert_eq!(
            illegal(&p, &["e5d6"], &[]),
            (PieceMovement, Some("Pe5d6".into()))
        );
    }

    #[test]
    fn piece_movement_cases() {
        // Bishop off its diagonal.
        let p = Position::start().play("e2e4".parse().unwrap()).unwrap();
        let p = p.play("e7e5".parse().unwrap()).unwrap();
        assert_eq!(
            illegal(&p, &["f1f3"], &[]),
            (PieceMovement, Some("Bf1f3".into()))
        );
        // Bishop jumping over its own pawn.
        assert_eq!(illegal(&Position::start(), &["c1e3"], &[]).0, PieceMovement);
        // Pawn capturing straight.
        let p = pos("4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(
            illegal(&p, &["xe5", "e4e5"], &[]),
            (PieceMovement, Some("Pe4e5".into()))
        );
        // Pawn moving backwards, rook moving like a bishop, knight moving like a king.
        let p = pos("4k3/8/8/8/4P3/8/8/R3K1N1 w - - 0 1");
        assert_eq!(illegal(&p, &["e4e3"], &[]).0, PieceMovement);
        assert_eq!(illegal(&p, &["a1b2"], &[]).0, PieceMovement);
        assert_eq!(illegal(&p, &["g1g2"], &[]).0, PieceMovement);
        // A king step of three squares, not from its home square.
        let p = pos("4k3/8/8/8/8/8/3K4/8 w - - 0 1");
        assert_eq!(illegal(&p, &["d2g2"], &[]).0, PieceMovement);
    }

    #[test]
    fn wrong_colour_multiple_and_material() {
        let p = Position::start();
        // Moving the opponent's pawn.
        assert_eq!(
            illegal(&p, &["e7e5"], &[]),
            (WrongColor, Some("pe7e5".into()))
        );
        // Both a white and a black move: wrong colour comes first.
        assert_eq!(illegal(&p, &["e2e4", "e7e5"], &["e2", "e7"]).0, WrongColor);
        // Two white moves; the lifted order names the first.
        assert_eq!(
            illegal(&p, &["e2e4", "d2d4"], &["d2", "e2"]),
            (MultipleMoves, Some("Pd2d4".into()))
        );
        assert_eq!(illegal(&p, &["e2e4", "d2d4"], &[]), (MultipleMoves, None));
        // A piece lifted and not put back; a piece added; a piece swapped.
        assert_eq!(illegal(&p, &["xg1"], &["g1"]), (PieceAddedOrRemoved, None));
        assert_eq!(illegal(&p, &["+Qd4"], &[]).0, PieceAddedOrRemoved);
        assert_eq!(illegal(&p, &["xb1", "+Bc3"], &[]).0, PieceAddedOrRemoved);
        // Only an opponent's piece removed.
        assert_eq!(illegal(&p, &["xd7"], &[]).0, PieceAddedOrRemoved);
        // An opponent's piece put on the board from off it is not a moved one.
        assert_eq!(illegal(&p, &["+nd4"], &[]), (PieceAddedOrRemoved, None));
        // A captured black knight brought back onto c3 (in place of the pawn that took it).
        let q = pos("r1bqkbnr/pppppppp/8/8/8/2P5/PP1PPPPP/R1BQKBNR w KQkq - 0 3");
        assert_eq!(illegal(&q, &["+nc3"], &[]).0, PieceAddedOrRemoved);
        // A white move plus a black piece added: still added, not wrong colour.
        assert_eq!(
            illegal(&p, &["e2e4", "+qh4"], &["e2"]).0,
            PieceAddedOrRemoved
        );
        // A capture with an extra opponent piece gone: the capture stands, the f5 pawn
        // was displaced (art. 7.4).
        let q = pos("4k3/8/8/3p1p2/4P3/8/8/4K3 w - - 0 1");
        assert!(matches!(
            q.classify(&physical(&q, &["xd5", "xf5", "e4d5"]), &[]),
            Classification::Displaced { mv, .. } if mv.uci() == "e4d5"
        ));
        // The same without the capture made: a piece removed.
        assert_eq!(illegal(&q, &["xf5"], &[]).0, PieceAddedOrRemoved);
    }

    fn displaced(p: &Position, steps: &[&str]) -> Classification {
        p.classify(&physical(p, steps), &[])
    }

    #[test]
    fn displaced_pieces_with_a_legal_move() {
        let p = Position::start()
            .play("e2e4".parse().unwrap())
            .unwrap()
            .play("e7e5".parse().unwrap())
            .unwrap();
        // d2-d3 with the c2 pawn knocked off the board.
        match displaced(&p, &["d2d3", "xc2"]) {
            Classification::Displaced { mv, reestablish } => {
                assert_eq!(mv.uci(), "d2d3");
                assert_eq!(
                    reestablish,
                    vec![RestoreStep::Put {
                        square: sq("c2"),
                        piece: piece('P')
                    }]
                );
            }
            other => panic!("{other:?}"),
        }
        // Two pieces: a pawn knocked sideways onto an empty square, a black one off.
        match displaced(&p, &["g1f3", "d2e3", "xd7"]) {
            Classification::Displaced { mv, reestablish } => {
                assert_eq!(mv.uci(), "g1f3");
                assert_eq!(reestablish.len(), 3, "{reestablish:?}");
            }
            other => panic!("{other:?}"),
        }
        // With a capture: exd5 and the f2 pawn knocked off.
        let q = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        assert!(matches!(
            displaced(&q, &["xd5", "e4d5", "xf2"]),
            Classification::Displaced { mv, .. } if mv.uci() == "e4d5"
        ));
        // A knight knocked next to its square (no knight step).
        assert!(matches!(
            displaced(&p, &["d2d3", "b1b2"]),
            Classification::Illegal { .. }
        ));
    }

    #[test]
    fn displaced_is_never_a_second_move_or_an_added_piece() {
        let p = Position::start()
            .play("e2e4".parse().unwrap())
            .unwrap()
            .play("e7e5".parse().unwrap())
            .unwrap();
        // A second pawn pushed one square: a second move.
        assert_eq!(illegal(&p, &["d2d3", "c2c3"], &[]).0, MultipleMoves);
        // A pawn two squares away: not beside its square.
        assert_eq!(illegal(&p, &["g1f3", "d2d4"], &[]).0, MultipleMoves);
        // A piece added beside a move.
        assert_eq!(illegal(&p, &["d2d3", "+Nc3"], &[]).0, PieceAddedOrRemoved);
        // A piece knocked onto a square the move involves (the h2 pawn onto g1, which
        // the knight left): not a displaced reading.
        assert_eq!(illegal(&p, &["g1f3", "h2g1"], &[]).0, MultipleMoves);
        // An illegal move with a pawn knocked off stays illegal.
        assert_eq!(illegal(&p, &["f1f3", "xc2"], &[]).0, PieceAddedOrRemoved);
        assert_eq!(illegal(&p, &["f1f3", "c2b3"], &[]).0, MultipleMoves);
        // En passant with the victim left is still en passant, not a displaced reading.
        let e = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 3");
        assert_eq!(illegal(&e, &["e5d6"], &[]).0, EnPassant);
    }

    #[test]
    fn two_moves_that_fit_are_unclear() {
        // Rooks on a1 and f1, the board shows a rook on d1 and neither home square
        // occupied: Ra1-d1 with f1 knocked off, or Rf1-d1 with a1 knocked off.
        let p = pos("4k3/8/8/8/8/8/8/R4RK1 w - - 0 1");
        match displaced(&p, &["a1d1", "xf1"]) {
            Classification::Unclear { readings } => assert_eq!(readings.len(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn json_contract() {
        assert_eq!(
            serde_json::to_string(&IllegalCategory::PieceAddedOrRemoved).unwrap(),
            "\"piece_added_or_removed\""
        );
        for c in IllegalCategory::ALL {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.name())
            );
        }
        let names: Vec<String> = Obligation::ALL
            .iter()
            .map(|o| serde_json::to_string(o).unwrap())
            .collect();
        assert_eq!(
            names,
            [r#""move""#, r#""capture""#, r#""castle""#, r#""king_move""#]
        );
        for o in Obligation::ALL {
            assert_eq!(format!("\"{o}\""), serde_json::to_string(&o).unwrap());
            assert_eq!(
                serde_json::from_str::<Obligation>(&format!("\"{}\"", o.name())).unwrap(),
                o
            );
        }
        let put = RestoreStep::Put {
            square: sq("e4"),
            piece: piece('P'),
        };
        let remove = RestoreStep::Remove {
            square: sq("e4"),
            piece: piece('p'),
        };
        assert_eq!(
            serde_json::to_string(&put).unwrap(),
            r#"{"square":"e4","put":"P"}"#
        );
        assert_eq!(
            serde_json::to_string(&remove).unwrap(),
            r#"{"square":"e4","remove":"p"}"#
        );
        assert_eq!(
            serde_json::from_str::<RestoreStep>(r#"{"square":"e4","put":"P"}"#).unwrap(),
            put
        );
        assert!(serde_json::from_str::<RestoreStep>(r#"{"square":"e4"}"#).is_err());
        let a = Attempt {
            from: sq("e1"),
            to: sq("g1"),
            piece: piece('K'),
        };
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"from":"e1","to":"g1","piece":"K"}"#
        );
    }
}
