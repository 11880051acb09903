//! An arbiter's command at the central, as a NATS request to the hall that owns the board
//! (`dgt.<event>.<hall>.actions`), and the hall's answer. This is the one way back from
//! the central to a board: every dashboard command that changes something (an alert's
//! state, a decision, an acceptance, the desk's moves and takeback) travels as an
//! [`ActionRequest`]. The hall carries it out with the code its own dashboard's route
//! runs, and answers what that route answers (status and JSON body), which the central
//! gives its caller as it is.

use chess_rules::Color;
use serde::{Deserialize, Serialize};
use touch_tracker::ArbiterInput;

/// What the central asks a hall to do: one command for one of its boards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRequest {
    /// The board (event-wide number).
    pub board: u32,
    #[serde(flatten)]
    pub command: Command,
}

/// An arbiter's command for a board, as the dashboard's routes take it. On the wire the
/// `action` field names it and its fields sit beside it (`{"board": 3, "action": "ack",
/// "alert": "3-17"}`, the form acknowledge and resolve always had).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// `POST /api/alerts/ID/ack`.
    Ack { alert: String },
    /// `POST /api/alerts/ID/resolve`.
    Resolve { alert: String },
    /// `POST /api/boards/B/decision`: a tracker input (penalty, result).
    Decision { input: ArbiterInput },
    /// `POST /api/boards/B/accept/SIDE[?ply=N]`.
    Accept {
        side: Color,
        #[serde(default)]
        ply: Option<u32>,
    },
    /// `POST /api/boards/B/serial/S`.
    Serial { serial: String },
    /// `POST /api/boards/B/moves`: the moves of a gap.
    Moves {
        moves: Vec<String>,
        #[serde(default)]
        from_ply: Option<u32>,
    },
    /// `POST /api/boards/B/takeback`.
    Takeback {
        to_ply: u32,
        #[serde(default)]
        reason: String,
    },
}

impl Command {
    /// The command's word, for logs and messages.
    pub fn word(&self) -> &'static str {
        match self {
            Command::Ack { .. } => "ack",
            Command::Resolve { .. } => "resolve",
            Command::Decision { .. } => "decision",
            Command::Accept { .. } => "accept",
            Command::Serial { .. } => "serial",
            Command::Moves { .. } => "moves",
            Command::Takeback { .. } => "takeback",
        }
    }
}

/// The hall's answer: what its own dashboard route answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionReply {
    /// The hall that answered.
    pub hall: String,
    /// The HTTP status the hall's route answered (200 done; 409 refused by the board,
    /// nothing changed; 400 a bad command; 404 no such board or alert).
    #[serde(default)]
    pub status: u16,
    /// The route's JSON body (the alert after an ack, a decision's events, the record
    /// after a takeback; `{"error": ...}` when refused).
    #[serde(default)]
    pub body: Option<serde_json::Value>,
    /// Why it was refused, in words.
    pub error: Option<String>,
}

impl ActionRequest {
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

impl ActionReply {
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The status the central answers with: the hall's, or (a hall that gave none) 200
    /// when it did not refuse, 409 when it did.
    pub fn status(&self) -> u16 {
        match (self.status, &self.error) {
            (100..=599, _) => self.status,
            (_, None) => 200,
            (_, Some(_)) => 409,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_round_trip() {
        let r = ActionRequest {
            board: 3,
            command: Command::Ack {
                alert: "3-17".into(),
            },
        };
        let back: ActionRequest = serde_json::from_slice(&r.to_json()).unwrap();
        assert_eq!(back, r);
        let a = ActionReply {
            hall: "A".into(),
            status: 404,
            body: None,
            error: Some("no alert 3-99".into()),
        };
        let back: ActionReply = serde_json::from_slice(&a.to_json()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn the_acknowledge_keeps_its_wire_form_and_the_desk_commands_have_theirs() {
        let ack: ActionRequest =
            serde_json::from_str(r#"{"board":3,"alert":"3-17","action":"ack"}"#).unwrap();
        assert_eq!(
            ack.command,
            Command::Ack {
                alert: "3-17".into()
            }
        );
        let takeback: ActionRequest = serde_json::from_str(
            r#"{"board":1,"action":"takeback","to_ply":20,"reason":"art. 7.5.1"}"#,
        )
        .unwrap();
        assert_eq!(takeback.command.word(), "takeback");
        let decision: ActionRequest = serde_json::from_str(
            r#"{"board":1,"action":"decision","input":{"decision":"result_set","result":"1-0"}}"#,
        )
        .unwrap();
        assert!(matches!(decision.command, Command::Decision { .. }));
        // What a hall cannot read is an error, never a guess.
        for bad in [
            r#"{"board":1,"action":"castle"}"#,
            r#"{"board":1,"action":"takeback"}"#,
            r#"{"board":"x","action":"ack","alert":"1-1"}"#,
            r#"not json"#,
        ] {
            assert!(serde_json::from_str::<ActionRequest>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_reply_without_a_status_answers_by_its_error() {
        let mut a = ActionReply {
            hall: "A".into(),
            status: 0,
            body: None,
            error: None,
        };
        assert_eq!(a.status(), 200);
        a.error = Some("no".into());
        assert_eq!(a.status(), 409);
        a.status = 404;
        assert_eq!(a.status(), 404);
    }
}
