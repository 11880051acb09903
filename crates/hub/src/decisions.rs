//! The arbiter's decisions taken by hand (on the dashboard, or routed from a central
//! dashboard): a penalty for displaced pieces (art. 7.4 / 12.9: a warning, time added to
//! the opponent, the game declared lost for a second displacement), and a board's result
//! set, cleared or confirmed.
//!
//! A decision is a tracker input like a board event: [`crate::decide`] sends it as a
//! [`crate::commands::ArbiterCommand::Decide`] to the board's
//! task, which checks it with the tracker, journals it (durable before it acts), feeds it
//! to the tracker and publishes the `arbiter_decision` event it emits (and a `game_over`
//! for a game declared lost). So it is numbered in the board's events, regenerated from
//! the journal after a restart, and every sink shows it as the arbiter's decision. Nothing
//! here is ever applied on the daemon's own initiative.
//!
//! [`ResultState`] folds a board's results: the board's own (its game's `game_over`) and
//! the arbiter's; when both exist and differ the result is *disputed* until the arbiter
//! confirms one of them. `dgt-arbiter results` reads the same fold from `events.jsonl`
//! ([`results_from_events`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use touch_tracker::ArbiterEvent;

pub use game_record::ResultState;

/// Why a decision was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecisionError {
    #[error("no board {0}")]
    NoBoard(u32),
    #[error("board {0} is not running: its decision cannot be journaled now")]
    NotRunning(u32),
    #[error("board {0} has commands waiting already; try again")]
    Busy(u32),
    #[error("board {board}: {why}")]
    Refused { board: u32, why: String },
}

/// Why `events.jsonl` could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the event stream {path}: {source}")]
pub struct EventsError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

#[derive(Deserialize)]
struct LineRound {
    board: String,
    round: Option<u32>,
}

/// Every board's [`ResultState`] in `round`, folded from the event stream the daemon
/// writes (`events.jsonl`). A missing file is no decision at all; a line that is not an
/// event (cut short by a power cut) or whose crc32 is wrong is skipped (with a warning).
pub fn results_from_events(
    path: &Path,
    round: u32,
) -> Result<BTreeMap<u32, ResultState>, EventsError> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(source) => {
            return Err(EventsError {
                path: path.display().to_string(),
                source,
            })
        }
    };
    let mut out: BTreeMap<u32, ResultState> = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        // Only these kinds change a result: skip the rest unparsed.
        if !["\"arbiter_decision\"", "\"game_over\"", "\"new_game\""]
            .iter()
            .any(|k| line.contains(k))
        {
            continue;
        }
        // Framed as the journals' lines are: a line whose crc32 is wrong (torn, merged,
        // changed on the disk) gives no result; an unframed one is an older daemon's.
        let framed = match crash_safe::unframe(line.as_bytes()) {
            Ok(object) => object,
            Err(e) => {
                tracing::warn!(
                    "{}: line {} is damaged ({e}); skipped: check that board's result by hand",
                    path.display(),
                    number + 1
                );
                continue;
            }
        };
        let object = framed.as_deref().map(String::from_utf8_lossy);
        let line = object.as_deref().unwrap_or(line);
        let Ok(head) = serde_json::from_str::<LineRound>(line) else {
            continue;
        };
        let Ok(board) = head.board.parse::<u32>() else {
            continue;
        };
        if head.round != Some(round) {
            continue;
        }
        let Ok(event) = serde_json::from_str::<ArbiterEvent>(line) else {
            continue;
        };
        out.entry(board).or_default().apply(&event.kind);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decide, Hub};
    use chess_rules::GameResult;
    use touch_tracker::events::{ArbiterDecisionEvent, GameOverEvent};
    use touch_tracker::EndReason;
    use touch_tracker::{ArbiterInput, ArbiterResult, Decision, EventKind};

    fn decision(decision: Decision, result: Option<ArbiterResult>) -> EventKind {
        EventKind::ArbiterDecision(ArbiterDecisionEvent {
            decision,
            color: None,
            ply: None,
            penalty: None,
            result,
            board_result: None,
            clock_before: None,
            clock_after: None,
            reason: None,
            to_move: chess_rules::Color::White,
            explanation: String::new(),
        })
    }

    fn over(result: GameResult) -> EventKind {
        EventKind::GameOver(GameOverEvent {
            result,
            reason: EndReason::Checkmate,
            flag: None,
            undetermined: false,
            plies: 30,
        })
    }

    fn confirm(result: ArbiterResult) -> ArbiterInput {
        serde_json::from_value(serde_json::json!({
            "decision": "result_confirmed",
            "result": result.to_string(),
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn only_the_boards_or_the_arbiters_result_can_be_confirmed() {
        let hub = Hub::new([1]);
        let refused = |e: Result<Vec<ArbiterEvent>, DecisionError>| match e {
            Err(DecisionError::Refused { why, .. }) => why,
            other => panic!("not refused: {other:?}"),
        };
        let why = refused(decide(&hub, 1, confirm(ArbiterResult::WhiteWins)).await);
        assert!(why.contains("neither the board nor the arbiter"), "{why}");

        hub.publish([crate::HubEvent {
            seq: 1,
            board: 1,
            round: 1,
            wall_ms: 0,
            replayed: false,
            event: ArbiterEvent {
                t_ms: 1,
                board: "1".into(),
                kind: over(GameResult::BlackWins),
            },
        }]);
        let why = refused(decide(&hub, 1, confirm(ArbiterResult::WhiteWins)).await);
        assert!(why.contains("cannot confirm 1-0"), "{why}");
        assert!(why.contains("are 0-1"), "names the board's result: {why}");
        // The board's own result passes the check (no board task here to take it).
        assert_eq!(
            decide(&hub, 1, confirm(ArbiterResult::BlackWins)).await,
            Err(DecisionError::NotRunning(1))
        );
    }

    #[test]
    fn a_result_the_board_and_the_arbiter_disagree_on_is_disputed_until_confirmed() {
        let mut s = ResultState::default();
        assert!(s.apply(&decision(
            Decision::ResultSet,
            Some(ArbiterResult::BlackWins)
        )));
        assert!(!s.disputed(), "no board result yet");
        assert_eq!(s.result(), Some(ArbiterResult::BlackWins));
        s.apply(&over(GameResult::WhiteWins));
        assert!(s.disputed());
        assert_eq!(s.result(), Some(ArbiterResult::BlackWins));
        // The arbiter confirms his: resolved.
        s.apply(&decision(
            Decision::ResultConfirmed,
            Some(ArbiterResult::BlackWins),
        ));
        assert!(!s.disputed());
        // Set again: disputed again; confirming the board's resolves it too.
        s.apply(&decision(Decision::ResultSet, Some(ArbiterResult::Draw)));
        assert!(s.disputed());
        s.apply(&decision(
            Decision::ResultConfirmed,
            Some(ArbiterResult::WhiteWins),
        ));
        assert!(!s.disputed());
        assert_eq!(s.result(), Some(ArbiterResult::WhiteWins));
        // A forfeit never agrees with a played game.
        s.apply(&decision(
            Decision::ResultSet,
            Some(ArbiterResult::WhiteWinsByForfeit),
        ));
        assert!(s.disputed());
        s.apply(&decision(Decision::ResultCleared, None));
        assert!(!s.disputed());
        assert_eq!(s.result(), Some(ArbiterResult::WhiteWins));
        // The agreeing result is no dispute.
        s.apply(&decision(
            Decision::ResultSet,
            Some(ArbiterResult::WhiteWins),
        ));
        assert!(!s.disputed());
    }

    /// One framed events.jsonl line, as the daemon writes it.
    fn events_line(board: u32, round: u32, kind: EventKind) -> String {
        let e = crate::HubEvent {
            seq: 1,
            board,
            round,
            wall_ms: 0,
            replayed: false,
            event: ArbiterEvent {
                t_ms: 0,
                board: board.to_string(),
                kind,
            },
        };
        let mut bytes = e.to_json().into_bytes();
        crash_safe::frame(&mut bytes);
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn the_event_stream_gives_each_boards_results_of_the_round() {
        let dir = std::env::temp_dir().join(format!("arbiter-decisions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("events.jsonl");
        let line = events_line;
        let text = [
            line(1, 2, over(GameResult::WhiteWins)),
            line(
                1,
                2,
                decision(Decision::ResultSet, Some(ArbiterResult::Draw)),
            ),
            line(
                2,
                1,
                decision(Decision::ResultSet, Some(ArbiterResult::Draw)),
            ),
            line(2, 2, over(GameResult::BlackWins)),
            "{\"t_ms\":1,\"board\":\"2\",\"kind\":\"game_ov".to_owned(),
        ]
        .join("\n");
        std::fs::write(&path, text).unwrap();
        let r = results_from_events(&path, 2).unwrap();
        assert!(r[&1].disputed());
        assert_eq!(r[&1].result(), Some(ArbiterResult::Draw));
        assert!(!r[&2].disputed(), "round 1's decision is not round 2's");
        assert_eq!(r[&2].result(), Some(ArbiterResult::BlackWins));
        assert!(results_from_events(&dir.join("none.jsonl"), 2)
            .unwrap()
            .is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_line_of_the_event_stream_is_not_taken_for_a_result() {
        let dir = std::env::temp_dir().join(format!("arbiter-damaged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("events.jsonl");
        let white = serde_json::to_string(&ArbiterResult::WhiteWins).unwrap();
        let black = serde_json::to_string(&ArbiterResult::BlackWins).unwrap();
        let set = events_line(
            3,
            2,
            decision(Decision::ResultSet, Some(ArbiterResult::WhiteWins)),
        );
        assert!(set.contains(&white), "{set}");
        // The arbiter's result changed on the disk: still JSON, still an event.
        std::fs::write(&path, set.replace(&white, &black)).unwrap();
        let r = results_from_events(&path, 2).unwrap();
        assert_eq!(
            r.get(&3).and_then(ResultState::result),
            None,
            "a line whose crc32 is wrong gives no result"
        );
        // The sound line, and an unframed one (an older daemon's), are read.
        std::fs::write(&path, &set).unwrap();
        let r = results_from_events(&path, 2).unwrap();
        assert_eq!(r[&3].result(), Some(ArbiterResult::WhiteWins));
        let unframed = set.split(",\"crc32\"").next().unwrap().to_owned() + "}\n";
        std::fs::write(&path, unframed).unwrap();
        let r = results_from_events(&path, 2).unwrap();
        assert_eq!(r[&3].result(), Some(ArbiterResult::WhiteWins));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
