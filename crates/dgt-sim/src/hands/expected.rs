//! What the arbiter must emit for a script: [`Expected`] events in order, in the terms of
//! `formats.md` §2, built from `chess_rules` types only (this crate does not know the
//! tracker).
//!
//! Order conventions, per ply:
//! - a legal move: [`Expected::Move`], then any evidence about it
//!   ([`Expected::TouchMove`] with `violation: true`, [`Expected::TwoHandedSuspected`]);
//! - an illegal move: [`Expected::IllegalMove`], then [`Expected::Restored`] once the board
//!   shows `restore_fen` again, then the replacing `Move` (and its evidence);
//! - an unpromoted pawn: `IllegalMove`, then the queen promotion's `Move` (the ruling
//!   decides it), then `Restored` when the queen stands on the board;
//! - a second illegal move of a player: `IllegalMove` (with a result), `GameOver`;
//! - a game that ends by the rules (mate, stalemate, dead position, fivefold, 75 moves) or
//!   on the flag: `GameOver` last.
//!
//! Not listed: `touch_move` events without a violation (normal play never creates an
//! obligation the move then breaks, so a tracker may report touches as information),
//! `draw_claimable` (it follows from the move list: `chess_rules::Game::claims`) and
//! `board_status`.

use chess_rules::{
    Attempt, Color, EndReason, GameResult, IllegalCategory, Move, Obligation, Piece, RestoreStep,
    Square,
};
use serde_json::{json, Value};

/// What an illegal move costs: time for the opponent (the tracker's configuration decides
/// how much), or, for a player's second one, the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ruling {
    /// Extra time goes to this player (the offender's opponent).
    Penalty { to: Color },
    /// The game ends with this result (a loss for the offender, or a draw when the
    /// opponent cannot mate by any series of legal moves).
    Result(GameResult),
}

/// One event the arbiter must emit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// A legal move was made (`kind: move`).
    Move {
        /// The game's own ply number (`Position::plies() + 1` of the position before).
        ply: u32,
        color: Color,
        mv: Move,
        san: String,
        /// The position after the move.
        fen: String,
    },
    /// A completed illegal move (`kind: illegal_move`).
    IllegalMove {
        color: Color,
        category: IllegalCategory,
        /// What `Position::classify` names from the board at the press and the lift
        /// order (`None` for a clock press without a move).
        attempt: Option<Attempt>,
        /// This player's illegal moves so far, this one included.
        count: u32,
        restore_fen: String,
        /// The steps from the board at the press to `restore_fen`
        /// (`chess_rules::restore_steps`).
        restore: Vec<RestoreStep>,
        /// The first piece the offender touched, if it is his and can move legally in the
        /// position to restore; never set with a `Ruling::Result`.
        must_move: Option<Square>,
        ruling: Ruling,
    },
    /// The board shows the position the ruling asked for (`kind: restored`).
    Restored { fen: String },
    /// Touch-move evidence (`kind: touch_move`); only violations are expected.
    TouchMove {
        color: Color,
        /// The pieces touched during the turn, in order, as they stood before the turn.
        touched: Vec<(Square, Piece)>,
        obligation: Obligation,
        played: Move,
        violation: bool,
    },
    /// Overlapping lifts suggest a move made with two hands
    /// (`kind: two_handed_suspected`).
    TwoHandedSuspected { color: Color, mv: Move },
    /// The game is over (`kind: game_over`).
    GameOver {
        result: GameResult,
        reason: EndReason,
    },
    /// Pieces knocked over with a legal move (`kind: displaced`, art. 7.4): not an
    /// illegal move; sent again with `reestablished` once the board shows them back.
    Displaced {
        color: Color,
        ply: u32,
        squares: Vec<RestoreStep>,
        reestablished: bool,
    },
}

impl Expected {
    /// The JSON `kind` of the event.
    pub fn kind(&self) -> &'static str {
        match self {
            Expected::Move { .. } => "move",
            Expected::IllegalMove { .. } => "illegal_move",
            Expected::Restored { .. } => "restored",
            Expected::TouchMove { .. } => "touch_move",
            Expected::TwoHandedSuspected { .. } => "two_handed_suspected",
            Expected::GameOver { .. } => "game_over",
            Expected::Displaced { .. } => "displaced",
        }
    }

    /// The kinds the generator lists; an arbiter's other kinds (claims, statuses, touches
    /// without a violation) are not compared with a script.
    pub const KINDS: [&'static str; 7] = [
        "move",
        "illegal_move",
        "restored",
        "touch_move",
        "two_handed_suspected",
        "game_over",
        "displaced",
    ];

    /// The event in its formats.md §2 shape, with `kind` but without the common `t_ms`
    /// and `board`. It holds only what the generator knows: no `clock_ms` on a move, no
    /// `add_ms` in a penalty (the arbiter's configuration sets it), no `evidence` text.
    pub fn to_json(&self) -> Value {
        let mut v = match self {
            Expected::Move {
                ply,
                color,
                mv,
                san,
                fen,
            } => json!({"ply": ply, "color": color, "uci": mv.uci(), "san": san, "fen": fen}),
            Expected::IllegalMove {
                color,
                category,
                attempt,
                count,
                restore_fen,
                restore,
                must_move,
                ruling,
            } => {
                let mut v = json!({"color": color, "category": category, "attempt": attempt,
                                   "count": count, "restore_fen": restore_fen,
                                   "restore": restore, "must_move": must_move});
                match ruling {
                    Ruling::Penalty { to } => v["penalty"] = json!({ "to": to }),
                    Ruling::Result(r) => v["result"] = json!(r),
                }
                v
            }
            Expected::Restored { fen } => json!({ "fen": fen }),
            Expected::TouchMove {
                color,
                touched,
                obligation,
                played,
                violation,
            } => {
                let touched: Vec<Value> = touched
                    .iter()
                    .map(|(square, piece)| json!({"square": square, "piece": piece}))
                    .collect();
                json!({"color": color, "touched": touched, "obligation": obligation,
                       "played": played.uci(), "violation": violation})
            }
            Expected::TwoHandedSuspected { color, mv } => {
                json!({"color": color, "uci": mv.uci()})
            }
            Expected::GameOver { result, reason } => json!({"result": result, "reason": reason}),
            Expected::Displaced {
                color,
                ply,
                squares,
                reestablished,
            } => json!({"color": color, "ply": ply, "squares": squares,
                        "reestablished": reestablished}),
        };
        v["kind"] = json!(self.kind());
        v
    }

    /// Why `got`, an arbiter's event as formats.md §2 JSON, is not this event, if it is
    /// not. Every field of [`Expected::to_json`] must be in `got` with the same value
    /// (objects may hold more fields, such as the penalty's `add_ms`), except `touched`:
    /// the expected touches must begin the list (the board may report more). An illegal
    /// move expected with a penalty must carry no result, and one with a result no
    /// penalty.
    pub fn mismatch(&self, got: &Value) -> Option<String> {
        let want = self.to_json();
        let Value::Object(fields) = &want else {
            return Some(format!("expected an object, not {want}"));
        };
        for (key, w) in fields {
            let g = &got[key.as_str()];
            let same = match (key.as_str(), w, g) {
                ("touched", Value::Array(w), Value::Array(g)) => {
                    w.len() <= g.len() && w.iter().zip(g).all(|(w, g)| contains(w, g))
                }
                _ => contains(w, g),
            };
            if !same {
                return Some(format!("{key}: expected {w}, got {got}"));
            }
        }
        if let Expected::IllegalMove { .. } = self {
            for key in ["penalty", "result"] {
                if want[key].is_null() && !got[key].is_null() {
                    return Some(format!("{key}: expected none, got {got}"));
                }
            }
        }
        None
    }
}

/// Whether `got` has `want`: equal, or, for objects, every field of `want` equal in `got`.
fn contains(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, w)| contains(w, g.get(k).unwrap_or(&Value::Null))),
        _ => want == got,
    }
}

/// An expected event and the script time of the physical action that should cause it
/// (the board reports it after its scan delay, so a tracker sees it a little later).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedExpected {
    pub at_ms: u64,
    pub event: Expected,
}

impl TimedExpected {
    /// [`Expected::to_json`] with the common fields `t_ms` (the script time of the action
    /// that causes it) and `board`.
    pub fn to_json(&self, board: &str) -> Value {
        let mut v = self.event.to_json();
        v["t_ms"] = json!(self.at_ms);
        v["board"] = json!(board);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn piece(c: char) -> Piece {
        Piece::from_fen_char(c).unwrap()
    }

    fn illegal(ruling: Ruling) -> Expected {
        Expected::IllegalMove {
            color: Color::White,
            category: IllegalCategory::KingInCheck,
            attempt: Some(Attempt {
                from: sq("e1"),
                to: sq("e2"),
                piece: piece('K'),
            }),
            count: 1,
            restore_fen: "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1".into(),
            restore: vec![RestoreStep::Put {
                square: sq("e1"),
                piece: piece('K'),
            }],
            must_move: Some(sq("e1")),
            ruling,
        }
    }

    #[test]
    fn to_json_has_the_formats_shape() {
        let penalty = illegal(Ruling::Penalty { to: Color::Black }).to_json();
        assert_eq!(penalty["kind"], "illegal_move");
        assert_eq!(penalty["category"], "king_in_check");
        assert_eq!(
            penalty["attempt"],
            json!({"from": "e1", "to": "e2", "piece": "K"})
        );
        assert_eq!(penalty["restore"], json!([{"square": "e1", "put": "K"}]));
        assert_eq!(penalty["must_move"], "e1");
        assert_eq!(penalty["penalty"], json!({"to": "black"}));
        assert!(penalty.get("result").is_none());
        let touch = Expected::TouchMove {
            color: Color::Black,
            touched: vec![(sq("g8"), piece('n'))],
            obligation: Obligation::KingMove,
            played: "e8e7".parse().unwrap(),
            violation: true,
        }
        .to_json();
        assert_eq!(touch["touched"], json!([{"square": "g8", "piece": "n"}]));
        assert_eq!(touch["obligation"], "king_move");
        assert_eq!(touch["played"], "e8e7");
        let over = Expected::GameOver {
            result: GameResult::BlackWins,
            reason: EndReason::SecondIllegalMove,
        };
        let timed = TimedExpected {
            at_ms: 1500,
            event: over,
        }
        .to_json("7");
        assert_eq!(
            timed,
            json!({"kind": "game_over", "result": "0-1", "reason": "second_illegal_move",
                   "t_ms": 1500, "board": "7"})
        );
    }

    #[test]
    fn mismatch_compares_what_the_generator_knows() {
        let want = illegal(Ruling::Penalty { to: Color::Black });
        let mut got = want.to_json();
        got["t_ms"] = json!(10);
        got["penalty"]["add_ms"] = json!(60_000);
        assert_eq!(want.mismatch(&got), None, "extra fields are fine");
        let mut wrong = got.clone();
        wrong["count"] = json!(2);
        assert!(want.mismatch(&wrong).unwrap().starts_with("count:"));
        let mut wrong = got.clone();
        wrong["penalty"]["to"] = json!("white");
        assert!(want.mismatch(&wrong).unwrap().starts_with("penalty:"));
        let mut both = got.clone();
        both["result"] = json!("0-1");
        assert!(want.mismatch(&both).unwrap().starts_with("result:"));
        let lost = illegal(Ruling::Result(GameResult::BlackWins));
        let mut got = lost.to_json();
        assert_eq!(lost.mismatch(&got), None);
        got["penalty"] = json!({"to": "black", "add_ms": 60_000});
        assert!(lost.mismatch(&got).unwrap().starts_with("penalty:"));

        // The expected touches begin the list the arbiter reports.
        let touch = Expected::TouchMove {
            color: Color::White,
            touched: vec![(sq("g1"), piece('N'))],
            obligation: Obligation::Move,
            played: "e2e4".parse().unwrap(),
            violation: true,
        };
        let mut got = touch.to_json();
        got["touched"]
            .as_array_mut()
            .unwrap()
            .push(json!({"square": "e2", "piece": "P"}));
        assert_eq!(touch.mismatch(&got), None);
        got["touched"][0]["square"] = json!("f3");
        assert!(touch.mismatch(&got).unwrap().starts_with("touched:"));
        got["touched"] = json!([]);
        assert!(touch.mismatch(&got).is_some());
        assert!(touch.mismatch(&json!({"kind": "move"})).is_some());
    }
}
