//! An arbiter's action at the central, as a NATS request to the hall that owns the board
//! (`dgt.<event>.<hall>.actions`), and the hall's answer. The hall carries it out with the
//! code its own dashboard's action runs, and answers what that code answered.

use serde::{Deserialize, Serialize};

/// What the central asks a hall to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionRequest {
    /// The board (event-wide number).
    pub board: u32,
    /// The alert (`BOARD-SEQ`).
    pub alert: String,
    /// The dashboard's action word (`ack`, `resolve`).
    pub action: String,
}

/// The hall's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionReply {
    /// The hall that answered.
    pub hall: String,
    /// The alert after the action, as the hall's dashboard shows it; `None` when refused.
    pub alert: Option<serde_json::Value>,
    /// Why it was refused.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_round_trip() {
        let r = ActionRequest {
            board: 3,
            alert: "3-17".into(),
            action: "ack".into(),
        };
        let back: ActionRequest = serde_json::from_slice(&r.to_json()).unwrap();
        assert_eq!(back, r);
        let a = ActionReply {
            hall: "A".into(),
            alert: None,
            error: Some("no alert 3-99".into()),
        };
        let back: ActionReply = serde_json::from_slice(&a.to_json()).unwrap();
        assert_eq!(back, a);
    }
}
