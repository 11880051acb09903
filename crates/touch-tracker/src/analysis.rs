//! Expensive chess analysis as an effect. The tracker never searches on its event path:
//! it asks "can this side still checkmate in this position?" through
//! [`crate::Tracker::poll_analysis`] and is told the answer through
//! [`crate::Tracker::analysis_done`]. The daemon answers on a blocking pool with a time
//! budget; replays and tests answer at once with [`answer`] (see [`crate::SyncTracker`]).

use chess_rules::{CanMate, Color, Position};

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

#[cfg(test)]
mod tests {
    use super::*;

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
