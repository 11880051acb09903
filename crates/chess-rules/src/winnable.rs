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
use crate::position::{Position, Status};
use crate::types::{Color, Move};

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
            CanMate::No
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

    /// `Some(Some(line))`: a verified mating line; `Some(None)`: proven impossible;
    /// `None`: undetermined.
    fn helpmate_search(&self, color: Color) -> Option<Option<Vec<Move>>> {
        match chasolver::winnability(self.chess_board(), color_to(color))? {
            chasolver::Winnability::Unwinnable => Some(None),
            chasolver::Winnability::Winnable { helpmate } => {
                let line: Vec<Move> = helpmate.into_iter().map(move_from).collect();
                // Trust but verify: replay with our move legality (which corrects the chess
                // crate's en passant in check) and check the mate.
                let mut pos = *self;
                for &m in &line {
                    pos = pos.play(m).ok()?;
                }
                (pos.is_checkmate() && pos.side_to_move() != color).then_some(Some(line))
            }
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
}
