//! A board's results in the round: the board's own (its game's `game_over`) and the
//! arbiter's. When both exist and differ the result is *disputed* until the arbiter
//! confirms one of them (art. 8.7: the arbiter decides the result).

use chess_rules::GameResult;
use serde::{Deserialize, Serialize};
use touch_tracker::{ArbiterResult, Decision, EventKind};

/// A board's results in the round: its own and the arbiter's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultState {
    /// The result of the board's current game, as the board ended it (`game_over`).
    pub board: Option<GameResult>,
    /// The result the arbiter set (wins over the board's).
    pub arbiter: Option<ArbiterResult>,
    /// The arbiter confirmed his result against a board result that differs.
    pub confirmed: bool,
}

impl ResultState {
    /// Folds one of the board's events in; true when something changed.
    pub fn apply(&mut self, kind: &EventKind) -> bool {
        let before = *self;
        match kind {
            EventKind::NewGame { .. } => {
                self.board = None;
                self.confirmed = false;
            }
            EventKind::GameOver(g) if g.result != GameResult::Ongoing => {
                self.board = Some(g.result);
                // A confirmation was against the board's earlier result.
                self.confirmed = false;
            }
            EventKind::ArbiterDecision(d) => match d.decision {
                Decision::ResultSet => {
                    self.arbiter = d.result;
                    self.confirmed = false;
                }
                Decision::ResultCleared => {
                    self.arbiter = None;
                    self.confirmed = false;
                }
                Decision::ResultConfirmed => {
                    self.arbiter = d.result;
                    self.confirmed = true;
                }
                Decision::Warning
                | Decision::TimeAdded
                | Decision::GameLost
                | Decision::ClockSet => {}
            },
            _ => {}
        }
        *self != before
    }

    /// The results a `result_confirmed` may name: the board's and the arbiter's. To
    /// confirm is to pick one of the two; any other result is set (`result_set`), so
    /// that a slip of the hand never passes as a confirmation.
    pub fn confirmable(&self) -> Vec<ArbiterResult> {
        let mut list: Vec<ArbiterResult> = self.arbiter.into_iter().collect();
        if let Some(b) = self.board.and_then(ArbiterResult::of_game) {
            if !list.contains(&b) {
                list.push(b);
            }
        }
        list
    }

    /// Why a confirmation of `result` is refused, if it is.
    pub fn check_confirmation(&self, result: Option<ArbiterResult>) -> Result<(), String> {
        let confirmable = self.confirmable();
        if result.is_some_and(|r| confirmable.contains(&r)) {
            return Ok(());
        }
        let named = result.map_or_else(|| "no result".to_owned(), |r| r.to_string());
        Err(if confirmable.is_empty() {
            format!(
                "cannot confirm {named}: neither the board nor the arbiter has given a result \
                 (set one with result_set)"
            )
        } else {
            let list: Vec<String> = confirmable.iter().map(|r| r.to_string()).collect();
            format!(
                "cannot confirm {named}: the results that can be confirmed are {} \
                 (the board's and the arbiter's); set another with result_set",
                list.join(" or ")
            )
        })
    }

    /// The board and the arbiter disagree and the arbiter has not confirmed either.
    pub fn disputed(&self) -> bool {
        match (self.board, self.arbiter) {
            (Some(b), Some(a)) => !a.agrees_with(b) && !self.confirmed,
            _ => false,
        }
    }

    /// The result that counts: the arbiter's, else the board's.
    pub fn result(&self) -> Option<ArbiterResult> {
        self.arbiter
            .or_else(|| self.board.and_then(ArbiterResult::of_game))
    }
}
