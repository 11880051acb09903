//! [`BoardGames`]: the games of one board in a round, folded from its [`ArbiterEvent`]s
//! (moves with their clocks, rulings as comments on the move they concern, result and why).
//! The PGN and LiveChess sinks render these; they never look at the trackers.

use chess_rules::{Color, GameResult, Move, Position, START_FEN};
use serde::Serialize;
use touch_tracker::{ArbiterEvent, EndReason, EventKind};

use crate::words;

/// One move as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedMove {
    pub ply: u32,
    pub color: Color,
    pub uci: Move,
    pub san: String,
    /// The mover's clock after the move (after the press), ms.
    pub clock_ms: Option<u64>,
    /// Rulings and notes about this move or made after it.
    pub comments: Vec<String>,
}

/// One game on a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameRecord {
    /// 1 for the board's first game of the round, 2 if the board was set up again, ...
    pub number: u32,
    /// The position the game starts from (full FEN).
    pub start_fen: String,
    /// The ply number of the first move.
    pub first_ply: u32,
    /// Comments before the first move.
    pub intro: Vec<String>,
    pub moves: Vec<RecordedMove>,
    pub result: Option<GameResult>,
    pub reason: Option<EndReason>,
    /// Closed without a result (the daemon stopped, or a new game was set up), and why.
    pub unfinished: Option<String>,
    /// The result the arbiter set for the board while this game was current (wins over
    /// `result` in the PGN; [`crate::decisions`]).
    pub arbiter_result: Option<touch_tracker::ArbiterResult>,
}

impl GameRecord {
    fn new(number: u32, start_fen: &str) -> GameRecord {
        let first_ply = Position::from_fen(start_fen)
            .or_else(|_| Position::from_fen_960(start_fen))
            .map_or(1, |p| p.plies() + 1);
        GameRecord {
            number,
            start_fen: start_fen.to_owned(),
            first_ply,
            intro: Vec::new(),
            moves: Vec::new(),
            result: None,
            reason: None,
            unfinished: None,
            arbiter_result: None,
        }
    }

    /// Over (a result) or closed.
    pub fn is_closed(&self) -> bool {
        self.result.is_some() || self.unfinished.is_some()
    }

    /// Still being played: neither over nor closed.
    pub fn is_live(&self) -> bool {
        !self.is_closed()
    }

    /// The result as PGN writes it (`*` while running or unfinished): the arbiter's where
    /// he set one (a double forfeit has none), else the board's.
    pub fn result_or_ongoing(&self) -> GameResult {
        match self.arbiter_result {
            Some(r) => r.game_result().unwrap_or(GameResult::Ongoing),
            None => self.result.unwrap_or(GameResult::Ongoing),
        }
    }

    /// The PGN `Termination` value (`None` while the game runs).
    pub fn termination(&self) -> Option<&'static str> {
        match (self.reason, &self.unfinished) {
            (Some(EndReason::Flag), _) => Some("time forfeit"),
            (Some(EndReason::SecondIllegalMove), _) => Some("rules infraction"),
            (Some(_), _) => Some("normal"),
            (None, Some(_)) => Some("unterminated"),
            (None, None) => None,
        }
    }

    fn comment(&mut self, text: String) {
        match self.moves.last_mut() {
            Some(m) => m.comments.push(text),
            None => self.intro.push(text),
        }
    }
}

/// Every game of one board in the round, the last one current.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardGames {
    pub games: Vec<GameRecord>,
    /// The board's result and the arbiter's ([`crate::decisions::ResultState`]).
    pub results: crate::decisions::ResultState,
}

impl Default for BoardGames {
    fn default() -> BoardGames {
        BoardGames::new(START_FEN)
    }
}

impl BoardGames {
    /// A board whose first game starts from `start_fen`.
    pub fn new(start_fen: &str) -> BoardGames {
        BoardGames {
            games: vec![GameRecord::new(1, start_fen)],
            results: Default::default(),
        }
    }

    /// The game being played (or the last one played).
    pub fn current(&self) -> &GameRecord {
        // Never empty: created with one game, games are only added.
        &self.games[self.games.len() - 1]
    }

    fn current_mut(&mut self) -> &mut GameRecord {
        let i = self.games.len() - 1;
        &mut self.games[i]
    }

    /// Folds one event in. Returns true when a game record changed.
    pub fn apply(&mut self, e: &ArbiterEvent) -> bool {
        let results_changed = self.results.apply(&e.kind);
        let changed = self.fold(e);
        results_changed || changed
    }

    fn fold(&mut self, e: &ArbiterEvent) -> bool {
        match &e.kind {
            EventKind::NewGame { fen } => {
                let cur = self.current_mut();
                if cur.moves.is_empty() && !cur.is_closed() {
                    *cur = GameRecord::new(cur.number, fen);
                } else {
                    if !cur.is_closed() {
                        cur.unfinished = Some("the start position was set up again".into());
                    }
                    let n = cur.number + 1;
                    self.games.push(GameRecord::new(n, fen));
                }
                true
            }
            EventKind::Move(m) => {
                let g = self.current_mut();
                let index = m.ply.saturating_sub(g.first_ply) as usize;
                g.moves.truncate(index);
                let mut comments = Vec::new();
                if m.recovered {
                    comments.push(
                        "recorded from the board after a gap in its events (no clock press seen)"
                            .to_owned(),
                    );
                }
                if m.correction {
                    comments.push(
                        "the arbiter's correction: the unpromoted pawn becomes a queen".to_owned(),
                    );
                }
                g.moves.push(RecordedMove {
                    ply: m.ply,
                    color: m.color,
                    uci: m.uci,
                    san: m.san.clone(),
                    clock_ms: m.clock_ms.map(|c| c.get(m.color)),
                    comments,
                });
                true
            }
            // An out-of-sync board the arbiter accepted as it stands: the moves between
            // were not seen, so the record goes on in a game of its own from that
            // position (a PGN with a FEN), the first one closed unfinished.
            EventKind::PositionAccepted(a) => {
                let cur = self.current_mut();
                let number = cur.number;
                // Issue 36: the daemon's own (every line found leads to this position, in
                // an order not known) or the arbiter's.
                let by = if a.candidates.is_empty() {
                    "the arbiter accepted the board as the position".to_owned()
                } else {
                    format!(
                        "every line found leads to the same position, in an order not known \
                         ({}): the arbiter picks it",
                        words::candidate_lines(&a.candidates)
                    )
                };
                if !cur.is_closed() {
                    cur.unfinished = Some(format!(
                        "the board went out of sync after ply {}; {by}; the game goes on in \
                         game {}",
                        a.last_known_ply,
                        number + 1
                    ));
                }
                let mut next = GameRecord::new(number + 1, &a.fen);
                let whose = if a.candidates.is_empty() {
                    "the position the arbiter accepted"
                } else {
                    "the position every line found leads to"
                };
                next.intro.push(format!(
                    "game {number} goes on from {whose} after the board went out of sync ({} \
                     to move; the moves after ply {} were not seen)",
                    words::side(a.side_to_move),
                    a.last_known_ply
                ));
                if a.ply_unknown {
                    // Issue 36: never a silent wrong move number.
                    next.intro.push(format!(
                        "how many moves were made unseen is not known (at least {} plies): \
                         the move numbers from here are the fewest possible and may be too low",
                        a.ply - a.last_known_ply
                    ));
                }
                self.games.push(next);
                true
            }
            EventKind::GameOver(over) => {
                let g = self.current_mut();
                g.result = Some(over.result);
                g.reason = Some(over.reason);
                g.unfinished = None;
                let mut why = format!("game over: {}", crate::words::end_reason(over.reason));
                if let Some(c) = over.flag {
                    why.push_str(&format!(", {}'s flag fell", words::side(c)));
                }
                if over.undetermined {
                    why.push_str(" (whether the opponent can still mate is undetermined)");
                }
                g.comment(why);
                true
            }
            // Art. 7.4: a comment on the move it happened with, completed once the pieces
            // are back ("pawn c2 knocked over, re-established").
            EventKind::Displaced(d) => {
                let g = self.current_mut();
                let text = if d.reestablished {
                    format!("{}, re-established", d.explanation)
                } else {
                    d.explanation.clone()
                };
                let index = d.ply.checked_sub(g.first_ply).map(|i| i as usize);
                match index.and_then(|i| g.moves.get_mut(i)) {
                    Some(m) => match m.comments.iter_mut().find(|c| **c == d.explanation) {
                        Some(c) => *c = text,
                        None => m.comments.push(text),
                    },
                    None => g.comment(text),
                }
                true
            }
            // The arbiter's decision: a penalty on the move the pieces were displaced
            // with, a result on the game, which then shows the arbiter's result.
            EventKind::ArbiterDecision(d) => {
                let text = words::comment(e).unwrap_or_else(|| d.explanation.clone());
                let arbiter = self.results.arbiter;
                let g = self.current_mut();
                if !d.decision.is_penalty() {
                    g.arbiter_result = arbiter;
                }
                let index = d
                    .ply
                    .and_then(|p| p.checked_sub(g.first_ply))
                    .map(|i| i as usize);
                match index.and_then(|i| g.moves.get_mut(i)) {
                    Some(m) => m.comments.push(text),
                    None => g.comment(text),
                }
                true
            }
            _ => match words::comment(e) {
                Some(text) => {
                    self.current_mut().comment(text);
                    true
                }
                None => false,
            },
        }
    }

    /// Closes the current game as unfinished (the daemon stops): `*` with the reason.
    /// Returns true if it was still running.
    pub fn close_unfinished(&mut self, why: &str) -> bool {
        let g = self.current_mut();
        if g.is_closed() {
            return false;
        }
        g.unfinished = Some(why.to_owned());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use touch_tracker::events::{GameOverEvent, IllegalMoveEvent};
    use touch_tracker::{ClockMs, MoveEvent, Penalty};

    fn mv(ply: u32, uci: &str, san: &str, replaces: Option<&str>) -> ArbiterEvent {
        ArbiterEvent {
            t_ms: u64::from(ply) * 1000,
            board: "1".into(),
            kind: EventKind::Move(MoveEvent {
                ply,
                color: if ply % 2 == 1 {
                    Color::White
                } else {
                    Color::Black
                },
                uci: uci.parse().unwrap(),
                san: san.into(),
                fen: String::new(),
                clock_ms: Some(ClockMs {
                    white: 180_000 - u64::from(ply),
                    black: 170_000,
                }),
                pressed: true,
                replaces: replaces.map(|r| r.parse().unwrap()),
                recovered: false,
                correction: false,
                touches: vec![],
            }),
        }
    }

    #[test]
    fn displaced_pieces_comment_the_move_they_came_with() {
        let mut b = BoardGames::default();
        b.apply(&mv(1, "d2d3", "d3", None));
        let displaced = |reestablished| ArbiterEvent {
            t_ms: 9,
            board: "1".into(),
            kind: EventKind::Displaced(touch_tracker::events::DisplacedEvent {
                color: Color::White,
                ply: 1,
                squares: vec![chess_rules::RestoreStep::Put {
                    square: "c2".parse().unwrap(),
                    piece: chess_rules::Piece::from_fen_char('P').unwrap(),
                }],
                reestablished,
                explanation: "pawn c2 knocked over".into(),
            }),
        };
        assert!(b.apply(&displaced(false)));
        b.apply(&mv(2, "e7e5", "e5", None));
        assert!(b.apply(&displaced(true)));
        let g = b.current();
        assert_eq!(
            g.moves[0].comments,
            ["pawn c2 knocked over, re-established"]
        );
        assert!(g.moves[1].comments.is_empty());
    }

    #[test]
    fn moves_amendments_rulings_and_the_end() {
        let mut b = BoardGames::default();
        assert!(b.apply(&mv(1, "e2e4", "e4", None)));
        assert!(b.apply(&mv(2, "e7e6", "e6", None)));
        // The slider registered part way: the move of ply 2 becomes e7e5.
        assert!(b.apply(&mv(2, "e7e5", "e5", Some("e7e6"))));
        let illegal = ArbiterEvent {
            t_ms: 5,
            board: "1".into(),
            kind: EventKind::IllegalMove(IllegalMoveEvent {
                color: Color::White,
                category: chess_rules::IllegalCategory::ClockWithoutMove,
                attempt: None,
                count: 1,
                restore_fen: String::new(),
                restore: vec![],
                must_move: None,
                penalty: Some(Penalty {
                    add_ms: 60_000,
                    to: Color::Black,
                }),
                result: None,
                result_undetermined: false,
                ply: 3,
                explanation: String::new(),
                clock_before: None,
                clock_after: None,
            }),
        };
        assert!(b.apply(&illegal));
        assert!(b.apply(&mv(3, "g1f3", "Nf3", None)));
        let g = b.current();
        assert_eq!(
            g.moves.iter().map(|m| m.san.as_str()).collect::<Vec<_>>(),
            ["e4", "e5", "Nf3"]
        );
        assert_eq!(g.moves[0].clock_ms, Some(179_999));
        assert_eq!(g.moves[1].clock_ms, Some(170_000));
        assert!(g.moves[1].comments[0].contains("clock pressed without a move"));
        assert!(g.is_live());
        assert!(!b.apply(&ArbiterEvent {
            t_ms: 6,
            board: "1".into(),
            kind: EventKind::Restored { fen: "x".into() },
        }));
        b.apply(&ArbiterEvent {
            t_ms: 7,
            board: "1".into(),
            kind: EventKind::GameOver(GameOverEvent {
                result: GameResult::BlackWins,
                reason: EndReason::Flag,
                flag: Some(Color::White),
                undetermined: false,
                plies: 3,
            }),
        });
        assert_eq!(b.current().termination(), Some("time forfeit"));
        assert!(!b.close_unfinished("stopped"));
        // The board set up again: a second game.
        b.apply(&ArbiterEvent {
            t_ms: 8,
            board: "1".into(),
            kind: EventKind::NewGame {
                fen: START_FEN.into(),
            },
        });
        assert_eq!(b.games.len(), 2);
        assert_eq!(b.current().number, 2);
        assert!(b.close_unfinished("stopped"));
        assert_eq!(b.current().termination(), Some("unterminated"));
        assert_eq!(b.current().result_or_ongoing(), GameResult::Ongoing);
    }
}
