//! "Can this side checkmate by any series of legal moves?" (FIDE art. 6.9, 7.5.5, 9.6.2)
//! and dead positions (art. 5.2.2), decided by `chasolver` 3.0.0, which proves a helpmate
//! exists or that none does. Its search can stop at its limit without an answer: that is
//! reported as [`CanMate::Undetermined`], never as a draw.
//!
//! Cost: the fast check is microseconds on real positions; the full search is usually
//! well under a millisecond but can take seconds on constructed positions. Neither belongs
//! on the per-event path; the daemon runs them off its event loop.

use serde::{Deserialize, Serialize};

use crate::bridge::{color_to, move_from};
use crate::position::{Position, Status, Variant};
use crate::types::{Color, Move, Piece, Role, Square};

/// Whether a side can still checkmate the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CanMate {
    /// Some series of legal moves ends in this side giving mate (or it already has).
    Yes,
    /// Proven: no series of legal moves lets this side give mate.
    No,
    /// Not decided (the fast check is inconclusive, or the search hit its limit): an
    /// arbiter must look.
    Undetermined,
}

/// Whether the position is dead: neither side can checkmate by any series of legal moves
/// (art. 5.2.2), which ends the game as a draw at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadPosition {
    Dead,
    NotDead,
    Undetermined,
}

impl Position {
    /// Answers that need no search: a checkmate on the board (mate takes precedence over
    /// any material count) and a stalemate.
    fn mate_on_board(&self, color: Color) -> Option<CanMate> {
        match self.status() {
            Status::Checkmate => Some(if self.side_to_move() == color {
                CanMate::No
            } else {
                CanMate::Yes
            }),
            Status::Stalemate => Some(CanMate::No),
            Status::Ongoing => None,
        }
    }

    /// The cheap check (chasolver's `is_unwinnable_fast`): `No` when it proves `color`
    /// cannot mate, else `Undetermined` (or `Yes` if `color` has already mated).
    pub fn can_mate_fast(&self, color: Color) -> CanMate {
        if let Some(answer) = self.mate_on_board(color) {
            return answer;
        }
        if chasolver::is_unwinnable_fast(self.chess_board(), color_to(color)) {
            self.solver_no()
        } else {
            CanMate::Undetermined
        }
    }

    /// The full answer from chasolver's helpmate search (which does not repeat the fast
    /// check: call [`Position::can_mate_fast`] first when many positions are cheap). A
    /// `Yes` is backed by a mating line replayed through our own legality checks.
    pub fn can_mate(&self, color: Color) -> CanMate {
        if let Some(answer) = self.mate_on_board(color) {
            return answer;
        }
        match self.helpmate_search(color) {
            Some(Some(_)) => CanMate::Yes,
            Some(None) => CanMate::No,
            None => CanMate::Undetermined,
        }
    }

    /// A series of legal moves (both sides cooperating) after which `color` has given
    /// mate; empty if it already has. `None` if there is none or none was found.
    pub fn helpmate(&self, color: Color) -> Option<Vec<Move>> {
        match self.mate_on_board(color) {
            Some(CanMate::Yes) => Some(Vec::new()),
            Some(_) => None,
            None => self.helpmate_search(color).flatten(),
        }
    }

    /// The full answer with its proof: like [`Position::can_mate`], and for `Yes` the
    /// verified mating line (empty when `color` has already mated), which
    /// [`Position::mates_with`] can try on later positions.
    pub fn can_mate_with_line(&self, color: Color) -> (CanMate, Option<Vec<Move>>) {
        if let Some(answer) = self.mate_on_board(color) {
            return (answer, (answer == CanMate::Yes).then(Vec::new));
        }
        match self.helpmate_search(color) {
            Some(Some(line)) => (CanMate::Yes, Some(line)),
            Some(None) => (CanMate::No, None),
            None => (CanMate::Undetermined, None),
        }
    }

    /// Does `line`, played from here, end with `color` having given checkmate? Every move
    /// is checked with our own legality (the same as for a move on the board) and the last
    /// position must be checkmate with `color`'s opponent to move.
    ///
    /// Soundness: `true` is a proof of [`CanMate::Yes`] by its definition (art. 5.2.2,
    /// 6.9: "checkmate by any possible series of legal moves"): the line *is* such a
    /// series, exhibited and checked move by move. It does not matter where the line came
    /// from (a search of an earlier position, another board): nothing about it is assumed,
    /// everything is checked here. `false` proves nothing (the caller asks the search).
    pub fn mates_with(&self, color: Color, line: &[Move]) -> bool {
        let mut pos = *self;
        for &m in line {
            if !pos.is_legal(m) {
                return false;
            }
            pos = pos.apply(m);
        }
        pos.side_to_move() != color && pos.is_checkmate()
    }

    /// Two moves that would take this position back to the placement of `earlier`, a
    /// position two plies before it with the same side to move, in playing order: the
    /// side to move puts back the piece it moved last, then the other side does. `None`
    /// unless the placements differ by exactly two plain piece moves (no pawn, capture,
    /// castling or promotion), one of each colour, on four different squares.
    ///
    /// Only a candidate, to try under [`Position::mates_with`] in front of a mating line
    /// of `earlier`: whether the moves are legal here (a path blocked, a king left in
    /// check), and whether the castling rights and en passant square that `earlier` had
    /// still matter to the line, is for that replay to find out.
    pub fn undo_pair(&self, earlier: &Position) -> Option<[Move; 2]> {
        if self.side_to_move() != earlier.side_to_move() {
            return None;
        }
        let mover = self.side_to_move();
        // (from, to) of each side's move between `earlier` and here.
        let mut mine: [Option<(Square, Piece)>; 2] = [None, None];
        let mut theirs: [Option<(Square, Piece)>; 2] = [None, None];
        let mut changed = 0;
        for d in earlier.placement().diff(self.placement()) {
            changed += 1;
            if changed > 4 {
                return None;
            }
            let (piece, slot) = match (d.before, d.after) {
                (Some(p), None) => (p, 0),
                (None, Some(p)) => (p, 1),
                _ => return None,
            };
            if piece.role == Role::Pawn {
                return None;
            }
            let side = if piece.color == mover {
                &mut mine
            } else {
                &mut theirs
            };
            if side[slot].is_some() {
                return None;
            }
            side[slot] = Some((d.square, piece));
        }
        let back = |[from, to]: [Option<(Square, Piece)>; 2]| -> Option<Move> {
            let ((was, p), (now, q)) = (from?, to?);
            (p == q).then_some(Move {
                from: now,
                to: was,
                promotion: None,
            })
        };
        Some([back(mine)?, back(theirs)?])
    }

    /// The legal move that takes this position to `next` (the same placement, side to
    /// move, castling rights, en passant square and counters as playing it gives), if one
    /// does: [`Position::move_to_placement`], and the whole position compared.
    ///
    /// For proofs carried back along a game: if `next` is proven "can mate" for a side,
    /// so is this position (the move, then `next`'s series of legal moves), art. 5.2.2.
    pub fn move_reaching(&self, next: &Position) -> Option<Move> {
        let (m, after) = self.move_to_placement(next.placement())?;
        (after == *next).then_some(m)
    }

    /// `Some(Some(line))`: a verified mating line; `Some(None)`: proven impossible;
    /// `None`: undetermined.
    fn helpmate_search(&self, color: Color) -> Option<Option<Vec<Move>>> {
        match chasolver::winnability(self.chess_board(), color_to(color))? {
            chasolver::Winnability::Unwinnable => match self.solver_no() {
                CanMate::No => Some(None),
                _ => None,
            },
            chasolver::Winnability::Winnable { helpmate } => {
                let line: Vec<Move> = helpmate.into_iter().map(move_from).collect();
                // Trust but verify: replay with our move legality (which corrects the chess
                // crate's en passant in check) and check the mate.
                self.mates_with(color, &line).then_some(Some(line))
            }
        }
    }

    /// chasolver's "cannot mate", as far as it is a proof here.
    ///
    /// chasolver reads the chess crate's board, which for a Chess960 position holds no
    /// castling rights (the crate knows only e1g1-style castling; see [`Position`]): it
    /// answers for the position with the rights stripped. That loses nothing for a `Yes`:
    /// a right forbids no move, so every series of legal moves without castling is legal
    /// with the rights too (and the mating line is replayed under our own Chess960 rules
    /// in [`Position::mates_with`] anyway). A `No`, though, only proves that no mate can
    /// be reached *without castling*. Castling is not redundant in general (Guidelines
    /// II.3): king and rook move at once, can pass each other (king f1 and rook g1 swap
    /// places) and the king can jump two or more squares in one move, so in a locked
    /// position (pawns sealing the back rank, king and rook hemmed in beside each other)
    /// castling can be the only way a rook gets out, and with it the only way to mate.
    ///
    /// So a `No` is sound when no castling right is left (the board chasolver saw is then
    /// the whole position), which is always so in standard chess (the chess crate keeps
    /// the standard rights and chasolver plays castling itself) and in a Chess960 game once
    /// both sides have castled or moved king or rooks. With a Chess960 right left the answer
    /// is [`CanMate::Undetermined`]: not a proof of "cannot mate", so no draw is declared
    /// (art. 5.2.2, 6.9: treated as "not dead" and the arbiter looks). It costs little: a
    /// side with a castling right still has a rook, and positions with a rook are rarely
    /// dead.
    fn solver_no(&self) -> CanMate {
        if self.variant() == Variant::Chess960 && !self.castling().is_empty() {
            CanMate::Undetermined
        } else {
            CanMate::No
        }
    }

    /// Is the position dead (art. 5.2.2)? Decided with the full search for each side.
    pub fn dead_position(&self) -> DeadPosition {
        combine(self.can_mate(Color::White), || self.can_mate(Color::Black))
    }

    /// The cheap dead-position check: `Dead` when the fast check proves both sides cannot
    /// mate, `NotDead` when a side has just mated, else `Undetermined`.
    pub fn dead_position_fast(&self) -> DeadPosition {
        combine(self.can_mate_fast(Color::White), || {
            self.can_mate_fast(Color::Black)
        })
    }
}

fn combine(white: CanMate, black: impl FnOnce() -> CanMate) -> DeadPosition {
    if white == CanMate::Yes {
        return DeadPosition::NotDead;
    }
    match (white, black()) {
        (_, CanMate::Yes) => DeadPosition::NotDead,
        (CanMate::No, CanMate::No) => DeadPosition::Dead,
        _ => DeadPosition::Undetermined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn epd(s: &str) -> Position {
        Position::from_epd(s).unwrap()
    }

    #[test]
    fn chess960_rights_make_a_solver_no_undetermined() {
        // A lone black king can never mate; the solver says so for the board without
        // castling rights. With a Chess960 right left that is not taken as a proof.
        let without = Position::from_epd_960("4k3/8/8/8/8/8/8/5KR1 w - -").unwrap();
        let with = Position::from_epd_960("4k3/8/8/8/8/8/8/5KR1 w G -").unwrap();
        assert_eq!(without.can_mate_fast(Color::Black), CanMate::No);
        assert_eq!(with.can_mate_fast(Color::Black), CanMate::Undetermined);
        assert_eq!(without.can_mate(Color::Black), CanMate::No);
        assert_eq!(with.can_mate(Color::Black), CanMate::Undetermined);
        assert_ne!(with.dead_position(), DeadPosition::Dead);
        assert_ne!(with.dead_position_fast(), DeadPosition::Dead);
        // A found mate stands with the rights: the line is checked under Chess960 rules.
        let knn = Position::from_epd_960("r3k3/8/8/8/8/8/8/3K1NN1 w q -").unwrap();
        assert_eq!(knn.can_mate(Color::White), CanMate::Yes);
    }

    #[test]
    fn insufficient_material_and_its_exceptions() {
        // K v K, K+B v K, K+N v K: dead.
        for s in [
            "8/8/4k3/8/8/3K4/8/8 w - -",
            "8/8/4k3/8/8/3KB3/8/8 w - -",
            "8/8/4k3/8/8/3KN3/8/8 b - -",
        ] {
            assert_eq!(epd(s).dead_position(), DeadPosition::Dead, "{s}");
            assert_eq!(epd(s).dead_position_fast(), DeadPosition::Dead, "{s}");
        }
        // K+N+N v K is not dead: a helpmate exists.
        let knn = epd("8/8/4k3/8/8/3KNN2/8/8 w - -");
        assert_eq!(knn.can_mate(Color::White), CanMate::Yes);
        assert_eq!(knn.can_mate(Color::Black), CanMate::No);
        assert_eq!(knn.dead_position(), DeadPosition::NotDead);
        let line = knn.helpmate(Color::White).unwrap();
        let mut p = knn;
        for m in &line {
            p = p.play(*m).unwrap();
        }
        assert!(p.is_checkmate());
        // A lone knight against a king and pawn can mate (the pawn blocks its own king).
        assert_eq!(
            epd("7k/7p/8/8/8/8/8/K4N2 w - -").can_mate(Color::White),
            CanMate::Yes
        );
    }

    #[test]
    fn checkmate_with_insufficient_material_takes_precedence() {
        // Two bishops of one colour have mated the white king (chasolver labels it -B).
        let p = epd("8/8/8/8/8/2b1k1b1/8/3RKR2 w - -");
        assert!(p.is_checkmate());
        assert_eq!(p.can_mate(Color::Black), CanMate::Yes);
        assert_eq!(p.can_mate_fast(Color::Black), CanMate::Yes);
        assert_eq!(p.can_mate(Color::White), CanMate::No);
        assert_eq!(p.dead_position(), DeadPosition::NotDead);
        assert_eq!(p.helpmate(Color::Black), Some(Vec::new()));
    }

    #[test]
    fn locked_pawn_wall_is_dead() {
        // From chasolver's README: Black cannot mate behind the locked wall; White can.
        let p = epd("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - -");
        assert_eq!(p.can_mate(Color::Black), CanMate::No);
        assert_eq!(p.can_mate(Color::White), CanMate::Yes);
        let wall = epd("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -");
        assert_eq!(wall.dead_position(), DeadPosition::Dead);
        // Stalemate: nobody can mate any more.
        let stalemate = epd("7k/8/6QK/8/8/8/8/8 b - -");
        assert_eq!(stalemate.can_mate(Color::White), CanMate::No);
    }

    #[test]
    fn a_line_proves_a_mate_only_where_it_mates() {
        // K+N+N v K: the search's line mates from here.
        let knn = epd("8/8/4k3/8/8/3KNN2/8/8 w - -");
        let (verdict, line) = knn.can_mate_with_line(Color::White);
        assert_eq!(verdict, CanMate::Yes);
        let line = line.unwrap();
        assert!(!line.is_empty());
        assert!(knn.mates_with(Color::White, &line));
        // Not for the other side, nor from the position after its first move (the moves
        // come in the wrong turn), nor cut short.
        assert!(!knn.mates_with(Color::Black, &line));
        let after = knn.play(line[0]).unwrap();
        assert!(!after.mates_with(Color::White, &line));
        assert!(!knn.mates_with(Color::White, &line[..line.len() - 1]));
        // A position where the line's pieces stand elsewhere: illegal, no proof.
        let elsewhere = epd("8/8/4k3/8/8/3K4/8/5NN1 w - -");
        assert!(!elsewhere.mates_with(Color::White, &line));
        // Fool's mate mates from the start; from a position with White's g-pawn on g3
        // (so g2g4 is no move) the same line proves nothing.
        let uci = |p: &Position, s: &str| p.parse_uci(s).unwrap();
        let start = Position::start();
        let mut line = Vec::new();
        let mut p = start;
        for s in ["f2f3", "e7e5", "g2g4", "d8h4"] {
            let m = uci(&p, s);
            line.push(m);
            p = p.play(m).unwrap();
        }
        assert!(start.mates_with(Color::Black, &line));
        assert!(!start.mates_with(Color::White, &line));
        let g3 = epd("rnbqkbnr/pppppppp/8/8/8/6P1/PPPPPP1P/RNBQKBNR w KQkq -");
        assert!(!g3.mates_with(Color::Black, &line));
        // The empty line: only where the side has mated already.
        let mated = epd("8/8/8/8/8/2b1k1b1/8/3RKR2 w - -");
        assert!(mated.mates_with(Color::Black, &[]));
        assert!(!mated.mates_with(Color::White, &[]));
        assert!(!knn.mates_with(Color::White, &[]));
    }

    #[test]
    fn undo_pair_puts_back_two_plain_piece_moves() {
        let start = Position::start();
        let uci = |p: &Position, s: &str| p.parse_uci(s).unwrap();
        let after = |p: &Position, moves: &[&str]| {
            moves.iter().fold(*p, |p, s| p.play(uci(&p, s)).unwrap())
        };
        let two = after(&start, &["g1f3", "b8c6"]);
        // Two plies later, White to move: White's knight back first, then Black's.
        let back = two.undo_pair(&start).unwrap();
        assert_eq!(
            back,
            [uci(&two, "f3g1"), Move::new(back[1].from, back[1].to, None)]
        );
        assert_eq!(
            after(&two, &["f3g1", "c6b8"]).placement(),
            start.placement()
        );
        // Not after a pawn move, nor across an odd number of plies.
        let pawn = after(&start, &["e2e4", "b8c6"]);
        assert_eq!(pawn.undo_pair(&start), None);
        let one = after(&start, &["g1f3"]);
        assert_eq!(one.undo_pair(&start), None);
        // Not after a capture.
        let open = after(&start, &["e2e4", "d7d5"]);
        let took = after(&open, &["e4d5", "d8d5"]);
        assert_eq!(took.undo_pair(&open), None);
    }

    #[test]
    fn serde_names() {
        assert_eq!(
            serde_json::to_string(&CanMate::Undetermined).unwrap(),
            "\"undetermined\""
        );
        assert_eq!(
            serde_json::to_string(&DeadPosition::NotDead).unwrap(),
            "\"not_dead\""
        );
    }

    #[test]
    fn the_move_reaching_the_next_position_of_a_game_is_found_and_nothing_else() {
        // Castling both ways, en passant, a capture promoting to a knight, and checks.
        let game = [
            "e4", "d5", "e5", "f5", "exf6", "Nc6", "fxg7", "Be6", "gxh8=N", "Qd7", "Nf3", "O-O-O",
            "Bb5", "Kb8", "O-O",
        ];
        let mut pos = Position::start();
        for san in game {
            let m = pos.parse_san(san).unwrap();
            let next = pos.play(m).unwrap();
            assert_eq!(
                pos.move_reaching(&next),
                Some(m),
                "{san} from {}",
                pos.fen()
            );
            // Not the other way round, nor to itself, nor across two moves.
            assert_eq!(next.move_reaching(&pos), None, "{san} back");
            assert_eq!(pos.move_reaching(&pos), None);
            if let Some(after) = next.legal_moves().next().map(|r| next.play(r).unwrap()) {
                assert_eq!(pos.move_reaching(&after), None, "{san} and a reply");
            }
            pos = next;
        }
        // The same placement with other castling rights is not reached.
        let a = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let b = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1").unwrap();
        let m = a.parse_san("Ra2").unwrap();
        assert_eq!(a.move_reaching(&a.play(m).unwrap()), Some(m));
        assert_eq!(b.move_reaching(&a.play(m).unwrap()), None);
    }
}
