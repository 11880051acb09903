//! The arbiter's decisions taken by hand on the dashboard, fed to the tracker as inputs
//! (so they are journaled, numbered and replayed like every other input):
//!
//! - Art. 7.4 / 12.9: a player who displaced pieces is not penalised by the tracker (it is
//!   not an illegal move); the arbiter *may* penalise him: a warning (12.9.1), time added
//!   to the opponent (12.9.2), and for a second displacement by the same player in the
//!   game, declaring the game lost (12.9.6), only as his explicit choice. A penalty names
//!   the `displaced` event (its player and ply) it is for.
//! - Art. 6.10 / 12.9: both clocks set by the arbiter (a wrong setting corrected, time
//!   added), with his reason; the clocks before are kept with the decision.
//! - A result set, cleared or confirmed by the arbiter: the tracker records it as said,
//!   with the board's own result next to it; it changes nothing of the tracker's game.

use chess_rules::{Color, EndReason};

use super::{Phase, Tracker};
use crate::events::{
    ArbiterDecisionEvent, ArbiterEvent, ArbiterInput, ArbiterResult, ClockMs, Decision,
    DecisionKind, EventKind, Penalty,
};

/// The most time a penalty may add: more is a typing error.
pub const MAX_ADDED_MS: u64 = 60 * 60 * 1000;

impl Tracker {
    /// The displacements of `color` in the current game, by ply (art. 7.4).
    pub fn displacements(&self, color: Color) -> Vec<u32> {
        self.displacements
            .iter()
            .filter(|(c, _)| *c == color)
            .map(|&(_, ply)| ply)
            .collect()
    }

    /// Whether the tracker takes this decision now, and if not why (in words for the
    /// arbiter). [`Tracker::arbiter`] takes only what this accepts.
    pub fn check_arbiter(&self, input: &ArbiterInput) -> Result<(), String> {
        if let DecisionKind::Penalty(_) = input.decision.kind() {
            let Some(color) = input.color else {
                return Err("a penalty needs the player (color: white or black)".into());
            };
            let Some(ply) = input.ply else {
                return Err(
                    "a penalty needs the ply of the move the pieces were displaced with".into(),
                );
            };
            let plies = self.displacements(color);
            let Some(nth) = plies.iter().position(|&p| p == ply) else {
                return Err(format!(
                    "{color:?} displaced no pieces with the move of ply {ply} in this game \
                     (art. 7.4: a penalty is for a displacement the board showed)"
                )
                .to_lowercase());
            };
            match input.decision {
                Decision::TimeAdded => match input.add_ms {
                    Some(ms) if ms > 0 && ms <= MAX_ADDED_MS => {}
                    _ => {
                        return Err(format!(
                            "time_added needs add_ms, more than 0 and at most {} minutes",
                            MAX_ADDED_MS / 60_000
                        ))
                    }
                },
                // Art. 12.9.6, only for a displacement after the first.
                Decision::GameLost if nth == 0 => {
                    return Err(
                        "declaring the game lost is for a second displacement by the same \
                         player; this is the first"
                            .into(),
                    )
                }
                _ => {}
            }
            if input.decision != Decision::Warning && matches!(self.phase, Phase::Over) {
                return Err("the game is over: only a warning can still be given".into());
            }
            return Ok(());
        }
        match input.decision {
            Decision::ResultSet | Decision::ResultConfirmed if input.result.is_none() => Err(
                "a result is one of 1-0, 0-1, 1/2-1/2, +- (White wins by forfeit), -+, --".into(),
            ),
            Decision::ClockSet => check_clock_set(input, matches!(self.phase, Phase::Over)),
            _ => Ok(()),
        }
    }

    /// Takes the arbiter's decision (at `t`, the board's time): emits `arbiter_decision`,
    /// and for `game_lost` the `game_over` that follows (reason `arbiter`). A decision
    /// [`Tracker::check_arbiter`] refuses is ignored.
    pub fn arbiter(&mut self, t: u64, input: &ArbiterInput, out: &mut Vec<ArbiterEvent>) {
        if self.check_arbiter(input).is_err() {
            return;
        }
        let to_move = self.game.position().side_to_move();
        let penalty = matches!(input.decision.kind(), DecisionKind::Penalty(_));
        let mut event = ArbiterDecisionEvent {
            decision: input.decision,
            color: input.color.filter(|_| penalty),
            ply: input.ply.filter(|_| penalty),
            penalty: None,
            result: None,
            board_result: self.result,
            clock_before: None,
            clock_after: None,
            reason: None,
            to_move,
            explanation: String::new(),
        };
        let side = |c: Color| match c {
            Color::White => "White",
            Color::Black => "Black",
        };
        match (input.decision, input.color) {
            (Decision::Warning, Some(c)) => {
                event.explanation = format!(
                    "the arbiter warns {} for the pieces displaced (art. 7.4, 12.9.1)",
                    side(c)
                );
            }
            (Decision::TimeAdded, Some(c)) => {
                let add_ms = input.add_ms.unwrap_or_default();
                let to = c.opponent();
                event.penalty = Some(Penalty { add_ms, to });
                event.clock_before = self.clock.times();
                event.clock_after = self.clock.times().map(|mut ms| {
                    ms.set(to, ms.get(to) + add_ms);
                    ms
                });
                event.explanation = format!(
                    "the arbiter gives {} {} for the pieces {} displaced (art. 7.4, 12.9.2)",
                    side(to),
                    duration(add_ms),
                    side(c)
                );
            }
            (Decision::GameLost, Some(c)) => {
                let result = match c {
                    Color::White => ArbiterResult::BlackWins,
                    Color::Black => ArbiterResult::WhiteWins,
                };
                event.result = Some(result);
                event.explanation = format!(
                    "the arbiter declares the game lost by {} for displacing pieces again \
                     (art. 7.4, 12.9.6): {result}",
                    side(c)
                );
            }
            (Decision::ResultSet, _) | (Decision::ResultConfirmed, _) => {
                let r = input.result.unwrap_or(ArbiterResult::DoubleForfeit);
                event.result = Some(r);
                let verb = if input.decision == Decision::ResultSet {
                    "sets"
                } else {
                    "confirms"
                };
                event.explanation = match self.result {
                    Some(b) if !r.agrees_with(b) => {
                        format!("the arbiter {verb} the result {r} (the board's: {b})")
                    }
                    _ => format!("the arbiter {verb} the result {r}"),
                };
            }
            (Decision::ClockSet, _) => {
                let (white, black) = (
                    input.white_ms.unwrap_or_default(),
                    input.black_ms.unwrap_or_default(),
                );
                let reason = input
                    .reason
                    .as_deref()
                    .unwrap_or_default()
                    .trim()
                    .to_owned();
                // Said at the move it was set after, where the PGN comment goes.
                let ply = self.game.position().plies();
                event.ply = Some(ply).filter(|&p| p > self.game.start().plies());
                event.clock_before = self.clock.times();
                event.clock_after = Some(ClockMs { white, black });
                event.explanation = format!(
                    "the arbiter sets the clocks to White {}, Black {} (art. 6.10, 12.9): {reason}",
                    crate::explain::hms(white),
                    crate::explain::hms(black)
                );
                event.reason = Some(reason);
            }
            (Decision::ResultCleared, _) => {
                event.explanation = match self.result {
                    Some(b) => format!("the arbiter clears his result: the board's {b} counts"),
                    None => "the arbiter clears his result".into(),
                };
            }
            _ => return,
        }
        let game_lost = event.decision == Decision::GameLost;
        let result = event.result.and_then(ArbiterResult::game_result);
        self.emit(out, t, EventKind::ArbiterDecision(event));
        if let (true, Some(result)) = (game_lost, result) {
            self.phase = Phase::Over;
            self.generation += 1;
            self.clear_pending();
            self.announce_end(t, result, EndReason::Arbiter, None, false, out);
        }
    }
}

/// The most time the arbiter may set on a clock: more is a typing error.
pub const MAX_CLOCK_MS: u64 = 10 * 60 * 60 * 1000;

/// The longest reason kept with a clock setting.
pub const MAX_CLOCK_REASON: usize = 300;

/// Why a `clock_set` is refused, if it is (art. 6.10: the arbiter sets the times he
/// judges right; the reason is his, and is kept).
fn check_clock_set(input: &ArbiterInput, over: bool) -> Result<(), String> {
    if over {
        return Err("the game is over: its clocks are no longer set".into());
    }
    let (Some(white), Some(black)) = (input.white_ms, input.black_ms) else {
        return Err("clock_set needs both times: white_ms and black_ms".into());
    };
    if white.max(black) > MAX_CLOCK_MS {
        return Err(format!(
            "a clock is set to at most {} hours",
            MAX_CLOCK_MS / 3_600_000
        ));
    }
    let reason = input.reason.as_deref().unwrap_or_default().trim();
    if reason.is_empty() || reason.len() > MAX_CLOCK_REASON {
        return Err(format!(
            "clock_set needs the arbiter's reason (1 to {MAX_CLOCK_REASON} bytes), such as \
             \"the clock was set wrong (art. 6.10.2)\""
        ));
    }
    Ok(())
}

/// `1 minute`, `2 minutes`, `30 seconds`, `1 min 30 s`.
fn duration(ms: u64) -> String {
    let s = ms / 1000;
    match (s / 60, s % 60) {
        (0, s) => format!("{s} seconds"),
        (1, 0) => "1 minute".into(),
        (m, 0) => format!("{m} minutes"),
        (m, s) => format!("{m} min {s} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock_set(json: &str) -> ArbiterInput {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_clock_setting_needs_both_times_a_reason_and_a_game_going_on() {
        let good = clock_set(
            r#"{"decision":"clock_set","white_ms":60000,"black_ms":0,"reason":"art. 6.10.2"}"#,
        );
        assert_eq!(check_clock_set(&good, false), Ok(()));
        let why = |input: &ArbiterInput, over: bool| check_clock_set(input, over).unwrap_err();
        assert!(why(&good, true).contains("game is over"));
        let one = clock_set(r#"{"decision":"clock_set","white_ms":60000,"reason":"x"}"#);
        assert!(why(&one, false).contains("both times"));
        let long = clock_set(&format!(
            r#"{{"decision":"clock_set","white_ms":{},"black_ms":1,"reason":"x"}}"#,
            MAX_CLOCK_MS + 1
        ));
        assert!(why(&long, false).contains("at most 10 hours"));
        for reason in ["", "   ", &"x".repeat(MAX_CLOCK_REASON + 1)] {
            let r = ArbiterInput {
                reason: Some(reason.to_owned()),
                ..good.clone()
            };
            assert!(why(&r, false).contains("reason"), "{reason:?}");
        }
    }
}
