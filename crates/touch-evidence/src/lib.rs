//! Touch-move evidence (arbiter-rules §3, FIDE art. 4.2-4.8) and two-handed evidence
//! (art. 7.5.4), worked out from a turn's touch log: this crate owns what a touch log
//! proves (which pieces were touched, what the player must move or capture, whether two
//! hands were used); the tracker records the log and reports what it proves. Pure functions of the position the
//! turn started from, the log, and the move played.

use chess_rules::{CastleSide, Move, Obligation, Piece, Position, Role, Square, Variant};

use chess_rules::castling::{castle_rook, castles_with, king_home, rook_side};

use arbiter_events::{Touch, TouchAction, Touched};

/// A piece read gone and back on its square within this time (game time) was never in a
/// hand: no player lifts and puts back a piece so fast (a sensor glitch or a scan's miss,
/// ~80 ms in issue 36), and a touch-move claim (art. 4.3) needs a touch that happened.
/// The default of `TrackerConfig::flicker_ms` (touch-tracker).
pub const FLICKER_MS: u64 = 150;

/// The pieces lifted during a turn, in order, as they stood before it: a lift counts when
/// the square still held the piece it held at the turn's start (lifting the piece again
/// from the square it was moved to is not a new touch), once per square, and when it was
/// not a flicker (back on its square within `flicker_ms` of the log's time, see
/// `TrackerConfig::flicker_wall_ms`).
///
/// Lifts reported at the same instant (one scan of the board) have no order the board can
/// tell: the player's own pieces count first (arbiter-rules §3), and among them the piece
/// of the move played (`played`), so that an unclear order never makes a violation.
pub fn touched_pieces(
    base: &Position,
    log: &[Touch],
    played: Option<Move>,
    flicker_ms: u64,
) -> Vec<Touched> {
    // Sized once: at most one entry a touch (this runs for every recorded move).
    let mut lifts: Vec<(u64, Touched)> = Vec::with_capacity(log.len());
    for (i, t) in log.iter().enumerate() {
        if t.action == TouchAction::Lift
            && base.piece_at(t.square) == Some(t.piece)
            && !lifts.iter().any(|(_, x)| x.square == t.square)
            && !flicker(t, &log[i + 1..], flicker_ms)
        {
            let touched = Touched {
                square: t.square,
                piece: t.piece,
            };
            lifts.push((t.t_ms, touched));
        }
    }
    let me = base.side_to_move();
    let rank = |t: &Touched| {
        let own = t.piece.color == me;
        let moved = played.is_some_and(|m| m.from == t.square);
        (!own, !moved)
    };
    // A stable sort within each instant only (times never decrease in the log).
    lifts.sort_by(|(ta, a), (tb, b)| ta.cmp(tb).then_with(|| rank(a).cmp(&rank(b))));
    lifts.into_iter().map(|(_, t)| t).collect()
}

/// Whether the lift `lift` is undone (the same piece back on its square) within
/// `flicker_ms` by the next touch of its square in `after`.
fn flicker(lift: &Touch, after: &[Touch], flicker_ms: u64) -> bool {
    after
        .iter()
        .take_while(|t| t.t_ms < lift.t_ms + flicker_ms)
        .find(|t| t.square == lift.square)
        .is_some_and(|t| t.action == TouchAction::Place && t.piece == lift.piece)
}

/// Did the player go for a castling: his king lifted from the square it castles from
/// (e1/e8; in Chess960 wherever it stands on its back rank, Guidelines II.3), and the next
/// of his pieces he lifted his rook, with the king meanwhile in the air or put on a square
/// a castling king lands on (g or c)? (A king touched for another purpose and then a rook
/// is not "king then rook" in the sense of art. 4.4.1.)
pub fn castling_intent(base: &Position, log: &[Touch]) -> bool {
    let me = base.side_to_move();
    let king = Piece::new(me, Role::King);
    let rook = Piece::new(me, Role::Rook);
    let Some(home) = king_home(base, me) else {
        return false;
    };
    let Some(i) = log
        .iter()
        .position(|t| t.action == TouchAction::Lift && t.piece == king && t.square == home)
    else {
        return false;
    };
    // The king's target is g1/c1 (g8/c8) in both variants (II.3).
    let landing = |sq: Square| CastleSide::ALL.iter().any(|s| s.king_move(me).to == sq);
    for t in &log[i + 1..] {
        match t.action {
            TouchAction::Place if t.piece == king && !landing(t.square) => return false,
            TouchAction::Lift if t.piece.color == me => return t.piece == rook,
            _ => {}
        }
    }
    false
}

/// The `must_move` of an illegal move ruling (formats.md §2): art. 7.5.1 binds the move
/// that replaces an illegal one by art. 4.3, and art. 4.3.1 makes it "the first piece
/// touched that can be moved": the first of the offender's own pieces touched this turn
/// that has a legal move in `base` (the position reinstated). A touched piece that cannot
/// move is passed over, not a release; opponent's pieces touched do not bind it.
pub fn must_move(base: &Position, touched: &[Touched]) -> Option<Square> {
    let me = base.side_to_move();
    touched
        .iter()
        .find(|t| t.piece.color == me && base.can_move_from(t.square))
        .map(|t| t.square)
}

/// What the touches bound the player to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    pub obligation: Obligation,
    /// The piece bound: to move (`Move`, `KingMove`: the king), to capture (`Capture`), or
    /// the rook to castle with (`Castle`).
    pub square: Square,
    /// For "capture the first touched opponent's piece with the first touched own piece":
    /// the capturing piece.
    pub with: Option<Square>,
    /// Castling with this rook is excluded (rook touched before the king, art. 4.4.2).
    pub no_castling_with: Option<Square>,
}

impl Binding {
    /// Does `played` keep the obligation?
    pub fn kept_by(&self, base: &Position, played: Move) -> bool {
        match self.obligation {
            Obligation::Move => {
                // Chess960 (II.3): a castling with the king already on its target moves
                // only the rook; the rook touched alone is kept by that castling (art.
                // 4.4.2 forbids it only when the king is touched after the rook).
                let rook_castling = base.variant() == Variant::Chess960
                    && castles_with(base, played) == Some(self.square);
                (played.from == self.square || rook_castling)
                    && self
                        .no_castling_with
                        .is_none_or(|rook| castles_with(base, played) != Some(rook))
            }
            Obligation::KingMove => played.from == self.square,
            Obligation::Castle => castles_with(base, played) == Some(self.square),
            Obligation::Capture => {
                captures(base, played, self.square) && self.with.is_none_or(|w| played.from == w)
            }
        }
    }
}

/// Does `m` capture the piece on `square` (en passant included)?
fn captures(base: &Position, m: Move, square: Square) -> bool {
    base.move_info(m)
        .and_then(|i| i.capture)
        .is_some_and(|(sq, _)| sq == square)
}

/// Can the piece on `from` capture the piece on `victim` legally?
fn can_capture_with(base: &Position, from: Square, victim: Square) -> bool {
    // A capture of `victim` lands on its square (with any promotion piece), or, en
    // passant, behind it: only those moves need asking, not every move of the piece.
    let ep = base.legal_en_passant().filter(|&target| {
        base.piece_at(victim).is_some_and(|p| p.role == Role::Pawn)
            && target.file() == victim.file()
    });
    std::iter::once(victim)
        .chain(ep)
        .flat_map(|to| {
            [
                None,
                Some(Role::Queen),
                Some(Role::Rook),
                Some(Role::Bishop),
                Some(Role::Knight),
            ]
            .map(|promotion| Move::new(from, to, promotion))
        })
        .any(|m| base.is_legal(m) && captures(base, m, victim))
}

/// The obligation the touches of a turn create in `base` (the position the player moves
/// from), per arbiter-rules §3 and FIDE art. 4.3, 4.4:
/// - the first two pieces touched are one of each colour: capture the opponent's piece
///   with the own piece; if that is illegal, move or capture the first touched piece that
///   can be;
/// - an own piece first: move the first touched own piece that can move (else capture the
///   first touched opponent's piece that can be captured); king then rook (both at home,
///   `castling`: see [`castling_intent`]): castle with that rook if legal, else another
///   king move (free if the king cannot move); rook then king: no castling with that
///   rook, the rook counts as touched;
/// - an opponent's piece first: capture the first touched one that can be captured (else
///   move the first own piece that can move).
///
/// `None` when nothing touched can move or be captured (any legal move will do).
pub fn obligation(base: &Position, touched: &[Touched], castling: bool) -> Option<Binding> {
    let me = base.side_to_move();
    let first = touched.first()?;
    let movable = |sq: Square| base.can_move_from(sq);
    let capturable = |sq: Square| base.can_be_captured(sq);
    let bind = |obligation, square| Binding {
        obligation,
        square,
        with: None,
        no_castling_with: None,
    };
    let first_own = || {
        touched
            .iter()
            .find(|t| t.piece.color == me && movable(t.square))
            .map(|t| bind(Obligation::Move, t.square))
    };
    let first_opp = || {
        touched
            .iter()
            .find(|t| t.piece.color != me && capturable(t.square))
            .map(|t| bind(Obligation::Capture, t.square))
    };
    if let Some(second) = touched
        .get(1)
        .filter(|s| s.piece.color != first.piece.color)
    {
        let (own, opp) = if first.piece.color == me {
            (first, second)
        } else {
            (second, first)
        };
        if can_capture_with(base, own.square, opp.square) {
            return Some(Binding {
                with: Some(own.square),
                ..bind(Obligation::Capture, opp.square)
            });
        }
        return touched.iter().find_map(|t| {
            if t.piece.color == me {
                movable(t.square).then(|| bind(Obligation::Move, t.square))
            } else {
                capturable(t.square).then(|| bind(Obligation::Capture, t.square))
            }
        });
    }
    if first.piece.color != me {
        return first_opp().or_else(first_own);
    }
    let king = Piece::new(me, Role::King);
    let rook = Piece::new(me, Role::Rook);
    let second = touched.get(1);
    if castling && first.piece == king && Some(first.square) == king_home(base, me) {
        if let Some(side) = second
            .filter(|t| t.piece == rook)
            .and_then(|r| rook_side(base, r.square))
        {
            if let Some(rook_home) = castle_rook(base, me, side).filter(|_| base.can_castle(side)) {
                return Some(bind(Obligation::Castle, rook_home));
            }
            // Castling that side is illegal: another king move, or free.
            return movable(first.square).then(|| bind(Obligation::KingMove, first.square));
        }
    }
    // Rook then king: castling with that rook is out; the rook is the piece touched.
    let rook_first = first.piece == rook
        && second.is_some_and(|t| t.piece == king)
        && rook_side(base, first.square).is_some();
    let mut b = first_own().or_else(first_opp)?;
    if rook_first && b.obligation == Obligation::Move {
        b.no_castling_with = Some(first.square);
    }
    Some(b)
}

/// Evidence that `played` (a castling, capture or promotion) was made with two hands,
/// from the turn's touch log, as plain words; `None` if there is none.
/// - castling: king and rook both off the board at once for at least `window_ms`;
/// - capture: the moving piece and the captured one lifted less than `window_ms` apart;
/// - promotion: the new piece put on the promotion square less than `window_ms` from the
///   pawn's lift.
///
/// The log's times are wall clock; `time_scale` (game time per wall-clock time, see
/// `TrackerConfig::time_scale`) turns each span into game time before it is
/// compared with `window_ms` (game time too) and put in words.
pub fn two_handed_evidence(
    base: &Position,
    log: &[Touch],
    played: Move,
    window_ms: u64,
    time_scale: f64,
) -> Option<String> {
    let game = |wall_ms: u64| -> u64 {
        if time_scale == 1.0 {
            wall_ms
        } else {
            (wall_ms as f64 * time_scale).round() as u64
        }
    };
    // Most moves are none of the three: no evidence, without describing the move. (A
    // capture lands on a piece, or is a pawn's diagonal step: en passant.)
    let pawn = base
        .piece_at(played.from)
        .is_some_and(|p| p.role == Role::Pawn);
    let capture =
        base.piece_at(played.to).is_some() || (pawn && played.from.file() != played.to.file());
    if !capture && played.promotion.is_none() && base.castle_side(played).is_none() {
        return None;
    }
    let info = base.move_info(played)?;
    let color = info.piece.color;
    if let Some((_, rook_from, _)) = info.castling {
        if base.variant() == Variant::Chess960 {
            // Guidelines II.3.2.5.1 recommends castling with the king put off the board
            // while the rook moves: king and rook both off the board is the recommended
            // way, not evidence of two hands. No evidence then, rather than a guess.
            return None;
        }
        let king = Piece::new(color, Role::King);
        let rook = Piece::new(color, Role::Rook);
        let k = off_board(log, played.from, king)?;
        let r = off_board(log, rook_from, rook)?;
        let both = game(k.1.min(r.1).saturating_sub(k.0.max(r.0)));
        return (k.0.max(r.0) < k.1.min(r.1) && both >= window_ms).then(|| {
            format!(
                "the king ({}) and the rook ({}) were both off the board for {} ms",
                played.from, rook_from, both
            )
        });
    }
    let mover_lift = lift_time(log, played.from, info.piece)?;
    if let Some(new_piece) = info.promotion {
        let placed = log
            .iter()
            .filter(|t| {
                t.action == TouchAction::Place && t.square == played.to && t.piece == new_piece
            })
            .map(|t| t.t_ms)
            .min_by_key(|t| t.abs_diff(mover_lift))?;
        let gap = game(placed.abs_diff(mover_lift));
        return (gap < window_ms).then(|| {
            format!(
                "the new {} was put on {} {} ms from the pawn leaving {}",
                new_piece.role, played.to, gap, played.from
            )
        });
    }
    let (victim_sq, victim) = info.capture?;
    let victim_lift = lift_time(log, victim_sq, victim)?;
    let gap = game(victim_lift.abs_diff(mover_lift));
    (gap < window_ms).then(|| {
        format!(
            "the {} on {} and the captured {} on {} were lifted {} ms apart",
            info.piece.role, played.from, victim.role, victim_sq, gap
        )
    })
}

/// When `piece` was last lifted off `square` in the log.
fn lift_time(log: &[Touch], square: Square, piece: Piece) -> Option<u64> {
    log.iter()
        .rev()
        .find(|t| t.action == TouchAction::Lift && t.square == square && t.piece == piece)
        .map(|t| t.t_ms)
}

/// When `piece` was last lifted off `square`, and when a piece like it was next put down
/// (anywhere): the span it was in the air.
fn off_board(log: &[Touch], square: Square, piece: Piece) -> Option<(u64, u64)> {
    let i = log
        .iter()
        .rposition(|t| t.action == TouchAction::Lift && t.square == square && t.piece == piece)?;
    let lifted = log[i].t_ms;
    let placed = log[i + 1..]
        .iter()
        .find(|t| t.action == TouchAction::Place && t.piece == piece)?
        .t_ms;
    Some((lifted, placed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    fn lift(t: u64, s: &str, p: char) -> Touch {
        Touch {
            t_ms: t,
            square: sq(s),
            piece: Piece::from_fen_char(p).unwrap(),
            action: TouchAction::Lift,
        }
    }

    fn place(t: u64, s: &str, p: char) -> Touch {
        Touch {
            action: TouchAction::Place,
            ..lift(t, s, p)
        }
    }

    fn bound(p: &Position, log: &[Touch]) -> Option<(Obligation, String)> {
        let castling = castling_intent(p, log);
        obligation(p, &touched_pieces(p, log, None, FLICKER_MS), castling)
            .map(|b| (b.obligation, b.square.to_string()))
    }

    fn kept(p: &Position, log: &[Touch], m: &str) -> bool {
        let b = obligation(
            p,
            &touched_pieces(p, log, None, FLICKER_MS),
            castling_intent(p, log),
        )
        .unwrap();
        b.kept_by(p, m.parse().unwrap())
    }

    #[test]
    fn can_capture_with_agrees_with_every_move_of_the_piece() {
        let mut found = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "k4r2/4P3/8/8/8/8/8/K7 w - - 0 1",
            "8/8/8/4k3/4p3/8/3P4/4K3 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1",
        ] {
            let start = pos(fen);
            let mut positions = vec![start];
            positions.extend(start.legal_moves().filter_map(|m| start.play(m).ok()));
            for p in positions {
                for from in Square::all() {
                    for victim in Square::all() {
                        let generated = p
                            .legal_moves_from(from)
                            .into_iter()
                            .any(|m| captures(&p, m, victim));
                        assert_eq!(
                            can_capture_with(&p, from, victim),
                            generated,
                            "{from}x{victim} in {}",
                            p.fen()
                        );
                        found += usize::from(generated);
                    }
                }
            }
        }
        assert!(found > 100, "only {found} captures");
    }

    #[test]
    fn a_piece_gone_and_back_within_a_flicker_was_not_touched() {
        let p = Position::start();
        // e2 reads empty for 80 ms (a glitch), then the knight is lifted and played.
        let log = [
            lift(1000, "e2", 'P'),
            place(1080, "e2", 'P'),
            lift(2000, "g1", 'N'),
            place(2400, "f3", 'N'),
        ];
        let t = touched_pieces(&p, &log, None, FLICKER_MS);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].square, sq("g1"));
        // Held in the hand for 400 ms and put back: a touch.
        let log = [lift(1000, "e2", 'P'), place(1400, "e2", 'P')];
        assert_eq!(
            touched_pieces(&p, &log, None, FLICKER_MS)[0].square,
            sq("e2")
        );
        // A hall emulated at 3x: 400 ms of game time is 133 ms on the log's clock, a touch
        // with the bound in wall time (`TrackerConfig::flicker_wall_ms`).
        let log = [lift(1000, "e2", 'P'), place(1133, "e2", 'P')];
        assert!(touched_pieces(&p, &log, None, FLICKER_MS).is_empty());
        // (touch-tracker's `flicker_wall_ms` at a time scale of 3: 150 / 3.)
        assert_eq!(touched_pieces(&p, &log, None, FLICKER_MS / 3).len(), 1);
    }

    #[test]
    fn touched_list_is_first_lifts_from_home_squares() {
        let p = Position::start();
        let log = [
            lift(1000, "g1", 'N'),
            place(2000, "g1", 'N'),
            lift(3000, "e2", 'P'),
            place(4000, "e4", 'P'),
            lift(5000, "e4", 'P'),
            place(6000, "e4", 'P'),
            lift(7000, "g1", 'N'),
        ];
        let t = touched_pieces(&p, &log, None, FLICKER_MS);
        assert_eq!(
            t.iter().map(|t| t.square.to_string()).collect::<Vec<_>>(),
            ["g1", "e2"]
        );
        assert_eq!(must_move(&p, &t), Some(sq("g1")));
        assert_eq!(bound(&p, &log), Some((Obligation::Move, "g1".into())));
        assert!(!kept(&p, &log, "e2e4"));
        assert!(kept(&p, &log, "g1f3"));
    }

    #[test]
    fn an_immovable_piece_binds_nothing() {
        // The rook on a1 cannot move at the start; the knight then moved is free.
        let p = Position::start();
        let log = [
            lift(1000, "a1", 'R'),
            place(2000, "a1", 'R'),
            lift(3000, "b1", 'N'),
        ];
        assert_eq!(bound(&p, &log), Some((Obligation::Move, "b1".into())));
        // Art. 4.3.1: the rook is passed over, the knight binds the replacing move.
        assert_eq!(
            must_move(&p, &touched_pieces(&p, &log, None, FLICKER_MS)),
            Some(sq("b1"))
        );
        let only = [lift(1000, "a1", 'R'), place(2000, "a1", 'R')];
        assert_eq!(
            must_move(&p, &touched_pieces(&p, &only, None, FLICKER_MS)),
            None
        );
        // An opponent's piece touched first does not stop an own piece binding.
        let log = [
            lift(1000, "e7", 'p'),
            place(2000, "e7", 'p'),
            lift(3000, "g1", 'N'),
        ];
        assert_eq!(
            must_move(&p, &touched_pieces(&p, &log, None, FLICKER_MS)),
            Some(sq("g1"))
        );
        let only = [lift(1000, "a1", 'R'), place(2000, "a1", 'R')];
        assert_eq!(bound(&p, &only), None);
    }

    #[test]
    fn opponent_pieces_must_be_captured() {
        // 1. e4 d5: White touches the d5 pawn first, then plays Nf3.
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        let log = [lift(1000, "d5", 'p'), place(2000, "d5", 'p')];
        assert_eq!(bound(&p, &log), Some((Obligation::Capture, "d5".into())));
        assert!(kept(&p, &log, "e4d5"));
        assert!(!kept(&p, &log, "g1f3"));
        // Both colours: the victim first, then the capturing pawn: capture with it.
        let log = [
            lift(1000, "d5", 'p'),
            lift(2000, "e4", 'P'),
            place(3000, "d5", 'P'),
        ];
        let b = obligation(&p, &touched_pieces(&p, &log, None, FLICKER_MS), false).unwrap();
        assert_eq!(
            (b.obligation, b.with),
            (Obligation::Capture, Some(sq("e4")))
        );
        assert!(b.kept_by(&p, "e4d5".parse().unwrap()));
        // Own knight first, then the pawn it cannot take: move the first touched that can.
        let log = [lift(1000, "g1", 'N'), lift(2000, "d5", 'p')];
        assert_eq!(bound(&p, &log), Some((Obligation::Move, "g1".into())));
    }

    #[test]
    fn castling_order() {
        let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
        // King then rook: castle that side.
        let log = [
            lift(1000, "e1", 'K'),
            place(2000, "g1", 'K'),
            lift(3000, "h1", 'R'),
        ];
        assert_eq!(bound(&p, &log), Some((Obligation::Castle, "h1".into())));
        assert!(kept(&p, &log, "e1g1"));
        assert!(!kept(&p, &log, "e1c1"));
        assert!(!kept(&p, &log, "e1f1"));
        // Rook then king: castling with that rook is out, the rook must move.
        let log = [
            lift(1000, "h1", 'R'),
            place(2000, "f1", 'R'),
            lift(3000, "e1", 'K'),
        ];
        assert_eq!(bound(&p, &log), Some((Obligation::Move, "h1".into())));
        assert!(!kept(&p, &log, "e1g1"));
        assert!(kept(&p, &log, "h1g1"));
        // A king touched and put back, then the rook: not a castling; the king must move.
        let log = [
            lift(1000, "e1", 'K'),
            place(2000, "e1", 'K'),
            lift(3000, "h1", 'R'),
        ];
        assert_eq!(bound(&p, &log), Some((Obligation::Move, "e1".into())));
        // King then rook where castling is illegal: another king move.
        let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPP1PP/R3K2R w Qkq - 0 1");
        let log = [lift(1000, "e1", 'K'), lift(3000, "h1", 'R')];
        assert_eq!(bound(&p, &log), Some((Obligation::KingMove, "e1".into())));
        assert!(kept(&p, &log, "e1f2"));
        assert!(kept(&p, &log, "e1c1"));
        assert!(!kept(&p, &log, "h1g1"));
    }

    #[test]
    fn two_handed_evidence_cases() {
        let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
        let oo: Move = "e1g1".parse().unwrap();
        // King placed before the rook is lifted: one hand.
        let one = [
            lift(0, "e1", 'K'),
            place(400, "g1", 'K'),
            lift(600, "h1", 'R'),
            place(900, "f1", 'R'),
        ];
        assert_eq!(two_handed_evidence(&p, &one, oo, 250, 1.0), None);
        // Both in the air for 600 ms.
        let two = [
            lift(0, "e1", 'K'),
            lift(100, "h1", 'R'),
            place(700, "g1", 'K'),
            place(900, "f1", 'R'),
        ];
        assert!(two_handed_evidence(&p, &two, oo, 250, 1.0)
            .unwrap()
            .contains("600 ms"));
        // A scan that reports the rook's lift just before the king's placement: no overlap
        // in time.
        let scan = [
            lift(0, "e1", 'K'),
            lift(250, "h1", 'R'),
            place(250, "g1", 'K'),
            place(500, "f1", 'R'),
        ];
        assert_eq!(two_handed_evidence(&p, &scan, oo, 250, 1.0), None);
        // Capture: mover and victim lifted 100 ms apart, or 500 ms apart.
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        let exd5: Move = "e4d5".parse().unwrap();
        let close = [
            lift(0, "d5", 'p'),
            lift(100, "e4", 'P'),
            place(400, "d5", 'P'),
        ];
        assert!(two_handed_evidence(&p, &close, exd5, 250, 1.0).is_some());
        let far = [
            lift(0, "d5", 'p'),
            lift(500, "e4", 'P'),
            place(800, "d5", 'P'),
        ];
        assert_eq!(two_handed_evidence(&p, &far, exd5, 250, 1.0), None);
        // Promotion: the queen put down 80 ms after the pawn left.
        let p = pos("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
        let e8q: Move = "e7e8q".parse().unwrap();
        let quick = [lift(0, "e7", 'P'), place(80, "e8", 'Q')];
        assert!(two_handed_evidence(&p, &quick, e8q, 250, 1.0).is_some());
        let slow = [lift(0, "e7", 'P'), place(600, "e8", 'Q')];
        assert_eq!(two_handed_evidence(&p, &slow, e8q, 250, 1.0), None);
        // A quiet move has no two-handed shape.
        assert_eq!(
            two_handed_evidence(&p, &quick, "e1d1".parse().unwrap(), 250, 1.0),
            None
        );
    }

    #[test]
    fn two_handed_evidence_is_in_game_time() {
        // A hall emulated at 4x: 50 ms of wall clock between the lifts are 200 ms of the
        // game (evidence, said as 200 ms); 100 ms are 400 ms (one hand can do that).
        let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        let exd5: Move = "e4d5".parse().unwrap();
        let log = |gap: u64| {
            [
                lift(0, "d5", 'p'),
                lift(gap, "e4", 'P'),
                place(300, "d5", 'P'),
            ]
        };
        let said = two_handed_evidence(&p, &log(50), exd5, 250, 4.0).unwrap();
        assert!(said.contains("lifted 200 ms apart"), "{said}");
        assert_eq!(two_handed_evidence(&p, &log(100), exd5, 250, 4.0), None);
        // At 1x the same 100 ms are evidence, said as they were measured.
        let said = two_handed_evidence(&p, &log(100), exd5, 250, 1.0).unwrap();
        assert!(said.contains("lifted 100 ms apart"), "{said}");
        // Castling: king and rook 100 ms in the air together at 4x are 400 ms.
        let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
        let two = [
            lift(0, "e1", 'K'),
            lift(100, "h1", 'R'),
            place(200, "g1", 'K'),
            place(300, "f1", 'R'),
        ];
        let oo: Move = "e1g1".parse().unwrap();
        assert_eq!(two_handed_evidence(&p, &two, oo, 250, 1.0), None);
        let said = two_handed_evidence(&p, &two, oo, 250, 4.0).unwrap();
        assert!(said.contains("for 400 ms"), "{said}");
    }
}
