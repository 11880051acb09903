//! Expensive chess analysis as an effect. The tracker never searches on its event path:
//! it asks "can this side still checkmate in this position?" through
//! [`crate::Tracker::poll_analysis`] and is told the answer through
//! [`crate::Tracker::analysis_done`]. The daemon answers on a blocking pool with a time
//! budget ([`answer_shared`], one [`Analyst`] per board); replays and tests answer at once
//! (see [`crate::SyncTracker`]) with an [`Analyst`], which remembers the mating lines it
//! found and tries them first, or with the plain [`answer`].

use chess_rules::{CanMate, Color, Move, Position};

/// Why the tracker needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// A flag fell: can the flagging player's opponent still mate? (art. 6.9)
    FlagFall,
    /// A player's second illegal move: can his opponent still mate? (art. 7.5.5)
    SecondIllegalMove,
    /// After a move: is the position dead? (art. 5.2.2; asked one side at a time)
    DeadPosition,
}

/// A question for the analysis pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysisRequest {
    /// Quote it back in [`crate::Tracker::analysis_done`].
    pub id: u64,
    pub position: Position,
    /// Can this side checkmate by any series of legal moves?
    pub side: Color,
    pub purpose: Purpose,
}

/// Answers a request synchronously: the cheap check first, the full helpmate search if
/// it is inconclusive. Can take seconds on constructed positions.
pub fn answer(req: &AnalysisRequest) -> CanMate {
    match req.position.can_mate_fast(req.side) {
        CanMate::Undetermined => req.position.can_mate(req.side),
        known => known,
    }
}

/// The longest mating line an [`Analyst`] builds by putting moves back in front of an
/// older one (replaying it costs about 0.1 us a ply); a longer one is searched afresh.
const MAX_LINE_PLIES: usize = 160;

/// Answers requests like [`answer`], but first tries to prove "can mate" from the last
/// proof it holds for the same side. After an ordinary move the tracker asks about the
/// side that just moved; two plies earlier it asked the same about that side, and the
/// search's mating line from there is the raw material:
///
/// 1. the old line itself, played from the new position;
/// 2. when the two moves since were plain piece moves (no pawn, capture, castling or
///    promotion; [`Position::undo_pair`]): those two moves put back, then the old line.
///
/// A line that works is kept as the proof of the new position, so a stretch of piece
/// moves is proven move after move by one search (lines up to 160 plies).
///
/// Soundness: a candidate answers [`CanMate::Yes`] only when [`Position::mates_with`] has
/// replayed it from the asked position, each move checked legal by our own rules, to a
/// checkmate given by the asked side. Such a line *is* the "series of legal moves" of art.
/// 5.2.2 and 6.9, exhibited, so the answer holds whatever the line's origin (an earlier
/// position, another game). A candidate that fails proves nothing, and the request goes
/// to the fast check and the full search exactly as [`answer`] does: `No` and
/// `Undetermined` are never answered from memory.
///
/// Why not reuse a verdict instead of a line ("same material and pawn structure as a
/// position proven not dead, within the same reversible stretch")? Because it does not
/// hold in general: a reversible move cannot always be undone (the move back can be
/// illegal, leaving a king in check or blocked by the other side's move; a king or rook
/// move loses castling rights for good; the side to move differs after an odd number of
/// plies), so the later position need not reach the earlier one or its mate. Putting the
/// moves back and replaying the old line checks exactly the cases where it does.
#[derive(Debug, Clone, Default)]
pub struct Analyst {
    /// Per side ([`Color::White`] first): the last position proven, with its line.
    proofs: [Option<(Position, Vec<Move>)>; 2],
    /// Requests answered by a kept proof.
    pub by_proof: u64,
    /// Requests answered by the fast check or the search.
    pub by_search: u64,
}

impl Analyst {
    pub fn new() -> Analyst {
        Analyst::default()
    }

    /// The answer to `req`: [`CanMate::Yes`] from a kept proof when one carries over,
    /// else as [`answer`] gives it (and a mating line found is kept).
    pub fn answer(&mut self, req: &AnalysisRequest) -> CanMate {
        if self.proven_mate(&req.position, req.side) {
            self.by_proof += 1;
            return CanMate::Yes;
        }
        self.by_search += 1;
        match req.position.can_mate_fast(req.side) {
            CanMate::Undetermined => {}
            known => return known,
        }
        let (verdict, line) = req.position.can_mate_with_line(req.side);
        if let Some(line) = line {
            self.remember(&req.position, req.side, line);
        }
        verdict
    }

    /// The shortcut alone: does the kept proof of `side` carry over to `position`? `true`
    /// proves [`CanMate::Yes`] there (see the type's doc) and keeps the new line; `false`
    /// proves nothing.
    pub fn proven_mate(&mut self, position: &Position, side: Color) -> bool {
        let Some((earlier, line)) = &mut self.proofs[side_index(side)] else {
            return false;
        };
        if position.mates_with(side, line) {
            *earlier = *position;
            return true;
        }
        let Some(back) = position.undo_pair(earlier) else {
            return false;
        };
        if line.len() + 2 > MAX_LINE_PLIES {
            return false;
        }
        let candidate: Vec<Move> = back.iter().chain(line.iter()).copied().collect();
        if !position.mates_with(side, &candidate) {
            return false;
        }
        *earlier = *position;
        *line = candidate;
        true
    }

    /// Keeps `line`, a mating line of `side` from `position`, as the proof to carry over.
    pub fn remember(&mut self, position: &Position, side: Color, line: Vec<Move>) {
        self.proofs[side_index(side)] = Some((*position, line));
    }
}

/// [`Analyst::answer`] for an analyst shared by the searches of one board (the daemon runs
/// each on its own thread): the lock is held only to try the kept proof and to keep a new
/// line, never during the search, so a long search does not hold back the next question.
pub fn answer_shared(analyst: &std::sync::Mutex<Analyst>, req: &AnalysisRequest) -> CanMate {
    // A search that panicked left the proofs as they were: still sound to use.
    let lock = || {
        analyst
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    {
        let mut a = lock();
        if a.proven_mate(&req.position, req.side) {
            a.by_proof += 1;
            return CanMate::Yes;
        }
        a.by_search += 1;
    }
    match req.position.can_mate_fast(req.side) {
        CanMate::Undetermined => {}
        known => return known,
    }
    let (verdict, line) = req.position.can_mate_with_line(req.side);
    if let Some(line) = line {
        lock().remember(&req.position, req.side, line);
    }
    verdict
}

/// The index of a side in per-side arrays: White 0, Black 1.
pub(crate) fn side_index(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_analyst_answers_as_the_search_does_and_reuses_its_proof() {
        let mutex = std::sync::Mutex::new(Analyst::new());
        let mut game = chess_rules::Game::default();
        // As the tracker asks: after each of White's moves, can White still mate?
        for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6", "Nb1"] {
            let mover = game.position().side_to_move();
            game.play_san(san).unwrap();
            if mover == Color::White {
                let req = AnalysisRequest {
                    id: 1,
                    position: *game.position(),
                    side: Color::White,
                    purpose: Purpose::DeadPosition,
                };
                assert_eq!(answer_shared(&mutex, &req), answer(&req));
            }
        }
        let a = mutex.lock().unwrap();
        assert!(a.by_proof > 0, "{a:?}");
        // A lone knight cannot mate: never answered from a kept proof.
        let req = AnalysisRequest {
            id: 2,
            position: Position::from_fen("8/8/4k3/8/8/3KN3/8/8 w - - 0 1").unwrap(),
            side: Color::White,
            purpose: Purpose::FlagFall,
        };
        drop(a);
        assert_eq!(answer_shared(&mutex, &req), CanMate::No);
    }

    #[test]
    fn answers() {
        let req = |fen: &str, side| AnalysisRequest {
            id: 1,
            position: Position::from_fen(fen).unwrap(),
            side,
            purpose: Purpose::FlagFall,
        };
        // K+N v K: the knight's side cannot mate; two knights can.
        assert_eq!(
            answer(&req("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", Color::White)),
            CanMate::No
        );
        assert_eq!(
            answer(&req("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1", Color::White)),
            CanMate::Yes
        );
        assert_eq!(
            answer(&req(chess_rules::START_FEN, Color::Black)),
            CanMate::Yes
        );
    }
}
