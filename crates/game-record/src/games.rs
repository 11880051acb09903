//! [`BoardGames`]: the games of one board in a round, folded from its [`ArbiterEvent`]s
//! (moves with their clocks, rulings as comments on the move they concern, result and why).
//! The PGN and LiveChess sinks render these; they never look at the trackers.

use chess_rules::{Color, GameResult, Move, Position, START_FEN};
use messages::{Args, Messages};
use serde::Serialize;
use touch_tracker::{ArbiterEvent, DecisionKind, EndReason, EventKind};

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
    /// `result` in the PGN; [`crate::results`]).
    pub arbiter_result: Option<touch_tracker::ArbiterResult>,
    /// Followed on from the position every line found after a gap leads to: the
    /// arbiter's moves for the gap make it one game with the one before (issue 40).
    #[serde(skip)]
    pub follows_gap: bool,
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
            follows_gap: false,
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
    /// The board's result and the arbiter's ([`crate::results::ResultState`]).
    pub results: crate::results::ResultState,
    /// A followed-on game set aside while the moves of its gap come in.
    #[serde(skip)]
    followed: Option<GameRecord>,
    /// The language of the comments (the event's: they are for people; SAN stays
    /// English, PGN readers need it).
    #[serde(skip)]
    say: Messages,
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
            followed: None,
            say: Messages::english(),
        }
    }

    /// The same board with its comments in the language of `say` (English by default).
    pub fn speaking(self, say: Messages) -> BoardGames {
        BoardGames { say, ..self }
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
        let say = self.say;
        match &e.kind {
            EventKind::NewGame { fen } => {
                let cur = self.current_mut();
                if cur.moves.is_empty() && !cur.is_closed() {
                    *cur = GameRecord::new(cur.number, fen);
                } else {
                    if !cur.is_closed() {
                        cur.unfinished = Some(say.text("pgn-set-up-again"));
                    }
                    let n = cur.number + 1;
                    self.games.push(GameRecord::new(n, fen));
                }
                true
            }
            EventKind::Move(m) => {
                if m.entered {
                    self.rejoin_followed(m.ply);
                }
                let g = self.current_mut();
                let index = m.ply.saturating_sub(g.first_ply) as usize;
                g.moves.truncate(index);
                let comments = [
                    (m.recovered, "pgn-recovered"),
                    (m.correction, "pgn-promotion-corrected"),
                    (m.entered, "pgn-entered"),
                ]
                .into_iter()
                .filter(|(said, _)| *said)
                .map(|(_, id)| say.text(id))
                .collect();
                g.moves.push(RecordedMove {
                    ply: m.ply,
                    color: m.color,
                    uci: m.uci,
                    san: m.san.clone(),
                    clock_ms: m.clock_ms.map(|c| c.get(m.color)),
                    comments,
                });
                if m.entered {
                    self.append_followed(m.ply);
                }
                true
            }
            // Art. 7.5.1 (or the arbiter's decision): the moves after `to_ply` leave the
            // record; the reason is said on the move the game goes on from.
            EventKind::TakenBack(c) => {
                let g = self.current_mut();
                let keep = c.to_ply.saturating_sub(g.first_ply - 1) as usize;
                g.moves.truncate(keep);
                g.comment(words::taken_back_in(say, c));
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
                    say.text("accepted-as-is")
                } else {
                    say.format(
                        "pgn-accepted-lines",
                        &Args::new().str("lines", words::candidate_lines_in(say, &a.candidates)),
                    )
                };
                if !cur.is_closed() {
                    cur.unfinished = Some(
                        say.format(
                            "pgn-out-of-sync-closed",
                            &Args::new()
                                .num("ply", a.last_known_ply.into())
                                .str("by", by)
                                .num("next", (number + 1).into()),
                        ),
                    );
                }
                let mut next = GameRecord::new(number + 1, &a.fen);
                next.follows_gap = !a.candidates.is_empty();
                next.intro.push(
                    say.format(
                        "pgn-goes-on",
                        &Args::new()
                            .num("game", number.into())
                            .str("whose", if next.follows_gap { "lines" } else { "arbiter" })
                            .str("side", a.side_to_move.name())
                            .num("ply", a.last_known_ply.into()),
                    ),
                );
                if a.ply_unknown {
                    // Issue 36: never a silent wrong move number.
                    next.intro.push(say.format(
                        "pgn-count-unknown",
                        &Args::new().num("count", (a.ply - a.last_known_ply).into()),
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
                g.comment(words::game_over_comment_in(say, over));
                true
            }
            // Art. 7.4: a comment on the move it happened with, completed once the pieces
            // are back ("pawn c2 knocked over, re-established").
            EventKind::Displaced(d) => {
                let g = self.current_mut();
                let first = words::displaced_comment_in(say, d, false);
                let text = if d.reestablished {
                    words::displaced_comment_in(say, d, true)
                } else {
                    first.clone()
                };
                let index = d.ply.checked_sub(g.first_ply).map(|i| i as usize);
                match index.and_then(|i| g.moves.get_mut(i)) {
                    Some(m) => match m.comments.iter_mut().find(|c| **c == first) {
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
                let text = words::comment_in(say, e).unwrap_or_else(|| d.explanation.clone());
                let arbiter = self.results.arbiter;
                let g = self.current_mut();
                if let DecisionKind::Result(_) = d.decision.kind() {
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
            _ => match words::comment_in(say, e) {
                Some(text) => {
                    self.current_mut().comment(text);
                    true
                }
                None => false,
            },
        }
    }

    /// An entered move of ply `ply` before the current game's first: the gap the current
    /// game was followed on from is being filled (issue 40). The game before the gap is
    /// current again (one game per board, from its own start), the followed-on game set
    /// aside until the last entered move joins them ([`BoardGames::append_followed`]).
    fn rejoin_followed(&mut self, ply: u32) {
        let g = self.current();
        if !g.follows_gap || ply >= g.first_ply || self.games.len() < 2 {
            return;
        }
        self.followed = self.games.pop();
        let g = self.current_mut();
        g.unfinished = None;
    }

    /// After the entered move of ply `ply`: when it is the last before the set-aside
    /// game's first, that game's moves, result and notes go on in the current one.
    fn append_followed(&mut self, ply: u32) {
        if self
            .followed
            .as_ref()
            .is_none_or(|f| f.first_ply != ply + 1)
        {
            return;
        }
        let Some(f) = self.followed.take() else {
            return;
        };
        let gap_entered = self.say.text("pgn-gap-entered");
        let g = self.current_mut();
        if let Some(m) = g.moves.last_mut() {
            m.comments.push(gap_entered);
        }
        g.moves.extend(f.moves);
        g.result = f.result;
        g.reason = f.reason;
        g.unfinished = f.unfinished;
        g.arbiter_result = f.arbiter_result.or(g.arbiter_result);
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
                entered: false,
                touches: vec![],
            }),
        }
    }

    fn entered(ply: u32, uci: &str, san: &str) -> ArbiterEvent {
        let mut e = mv(ply, uci, san, None);
        if let EventKind::Move(m) = &mut e.kind {
            m.entered = true;
            m.pressed = false;
            m.clock_ms = None;
        }
        e
    }

    fn event(kind: EventKind) -> ArbiterEvent {
        ArbiterEvent {
            t_ms: 0,
            board: "1".into(),
            kind,
        }
    }

    fn sans(g: &GameRecord) -> Vec<&str> {
        g.moves.iter().map(|m| m.san.as_str()).collect()
    }

    #[test]
    fn a_takeback_cuts_the_record_and_says_why() {
        let mut games = BoardGames::default();
        for (i, (uci, san)) in [
            ("e2e4", "e4"),
            ("e7e5", "e5"),
            ("g1f3", "Nf3"),
            ("b8c6", "Nc6"),
        ]
        .iter()
        .enumerate()
        {
            games.apply(&mv(i as u32 + 1, uci, san, None));
        }
        games.apply(&event(EventKind::TakenBack(
            touch_tracker::events::TakenBackEvent {
                to_ply: 2,
                from_ply: 4,
                fen: String::new(),
                reason: "illegal move at ply 3 found later (art. 7.5.1)".into(),
                restore: Vec::new(),
            },
        )));
        let g = games.current();
        assert_eq!(sans(g), ["e4", "e5"]);
        assert!(
            g.moves[1].comments[0].contains("took the game back to ply 2 (2 plies annulled)"),
            "{:?}",
            g.moves[1].comments
        );
        // Play goes on from ply 3.
        games.apply(&mv(3, "f1c4", "Bc4", None));
        assert_eq!(sans(games.current()), ["e4", "e5", "Bc4"]);
    }

    #[test]
    fn the_moves_of_a_gap_followed_on_make_one_game_again() {
        let mut games = BoardGames::default();
        games.apply(&mv(1, "e2e4", "e4", None));
        games.apply(&mv(2, "e7e5", "e5", None));
        games.apply(&event(EventKind::PositionAccepted(
            touch_tracker::PositionAcceptedEvent {
                fen: "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".into(),
                side_to_move: Color::White,
                last_known_ply: 2,
                ply: 4,
                ply_unknown: false,
                candidates: vec![touch_tracker::GapCandidate {
                    ply: 3,
                    uci: vec!["g1f3".parse().unwrap(), "b8c6".parse().unwrap()],
                    san: "2. Nf3 Nc6".into(),
                }],
            },
        )));
        games.apply(&mv(5, "f1c4", "Bc4", None));
        assert_eq!(games.games.len(), 2);
        games.apply(&entered(3, "g1f3", "Nf3"));
        games.apply(&entered(4, "b8c6", "Nc6"));
        assert_eq!(games.games.len(), 1, "{games:#?}");
        let g = games.current();
        assert_eq!(sans(g), ["e4", "e5", "Nf3", "Nc6", "Bc4"]);
        assert!(g.is_live());
        assert!(g.moves[2]
            .comments
            .iter()
            .any(|c| c == "entered by the arbiter"));
        assert!(g.moves[3]
            .comments
            .iter()
            .any(|c| c.contains("moves of the gap were entered")));
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
