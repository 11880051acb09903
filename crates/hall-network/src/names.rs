//! Names on the NATS server. Subject tokens may not hold `.`, `*`, `>` or white space,
//! stream and bucket names not even `-` in every client: every name here is built from
//! checked parts ([`EventKey`], [`HallId`]) so none can be malformed.
//!
//! | what | name |
//! |---|---|
//! | a board's events | `dgt.<event>.<hall>.<board>.events` |
//! | a hall's stream (all its boards) | `DGT_<event>_<hall>` on `dgt.<event>.<hall>.*.events` |
//! | the event's KV bucket | `dgt_<event>`: `hall.<hall>` (the hall's boards), `board.<board>` (a board's last state) |
//! | a hall's action requests | `dgt.<event>.<hall>.actions` |
//! | the central's durable consumer of a hall | `central_<hall>` |

use std::fmt;

/// A name that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the hall id {0:?} is not usable: 1 to 32 letters, digits or '_' (such as \"A\" or \"hall_2\")")]
    Hall(String),
    #[error("the event name {0:?} has no letter or digit to name its streams by")]
    Event(String),
}

/// The event's name as it appears in subjects: its letters and digits, other
/// characters as `_`, at most 48 (so "Open 2026, Round robin" is `Open_2026_Round_robin`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKey(String);

impl EventKey {
    pub fn new(event_name: &str) -> Result<EventKey, NameError> {
        let mut key = String::new();
        for c in event_name.chars() {
            if c.is_ascii_alphanumeric() {
                key.push(c);
            } else if !key.is_empty() && !key.ends_with('_') {
                key.push('_');
            }
        }
        let key: String = key.trim_end_matches('_').chars().take(48).collect();
        if key.is_empty() {
            return Err(NameError::Event(event_name.to_owned()));
        }
        Ok(EventKey(key))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EventKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A hall's id (`[network] hall`): 1 to 32 ASCII letters, digits or `_`.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct HallId(String);

impl HallId {
    pub fn new(id: &str) -> Result<HallId, NameError> {
        let ok = !id.is_empty()
            && id.len() <= 32
            && id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        if ok {
            Ok(HallId(id.to_owned()))
        } else {
            Err(NameError::Hall(id.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for HallId {
    type Error = NameError;
    fn try_from(s: String) -> Result<HallId, NameError> {
        HallId::new(&s)
    }
}

impl From<HallId> for String {
    fn from(h: HallId) -> String {
        h.0
    }
}

impl fmt::Display for HallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The names of one event on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    event: EventKey,
}

impl Names {
    pub fn new(event: EventKey) -> Names {
        Names { event }
    }

    pub fn event(&self) -> &EventKey {
        &self.event
    }

    /// The subject of a board's events.
    pub fn board_events(&self, hall: &HallId, board: u32) -> String {
        format!("dgt.{}.{hall}.{board}.events", self.event)
    }

    /// The subjects of a hall's stream.
    pub fn hall_events(&self, hall: &HallId) -> String {
        format!("dgt.{}.{hall}.*.events", self.event)
    }

    /// The stream holding a hall's events.
    pub fn stream(&self, hall: &HallId) -> String {
        format!("DGT_{}_{hall}", self.event)
    }

    /// The event's key-value bucket.
    pub fn bucket(&self) -> String {
        format!("dgt_{}", self.event)
    }

    /// The bucket's key of a hall's manifest (its boards).
    pub fn manifest_key(hall: &HallId) -> String {
        format!("hall.{hall}")
    }

    /// The bucket's key of a board's last state.
    pub fn state_key(board: u32) -> String {
        format!("board.{board}")
    }

    /// The subject a hall answers action requests on.
    pub fn actions(&self, hall: &HallId) -> String {
        format!("dgt.{}.{hall}.actions", self.event)
    }

    /// The central's durable consumer of a hall's stream.
    pub fn consumer(hall: &HallId) -> String {
        format!("central_{hall}")
    }

    /// The board number in a subject of [`Names::board_events`].
    pub fn board_of_subject(subject: &str) -> Option<u32> {
        let mut parts = subject.rsplit('.');
        match (parts.next(), parts.next()) {
            (Some("events"), Some(b)) if b.len() <= 9 => b.parse().ok(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_built_from_checked_parts() {
        let names = Names::new(EventKey::new("Open 2026, Round-robin!").unwrap());
        assert_eq!(names.event().as_str(), "Open_2026_Round_robin");
        let a = HallId::new("A").unwrap();
        assert_eq!(
            names.board_events(&a, 12),
            "dgt.Open_2026_Round_robin.A.12.events"
        );
        assert_eq!(
            names.hall_events(&a),
            "dgt.Open_2026_Round_robin.A.*.events"
        );
        assert_eq!(names.stream(&a), "DGT_Open_2026_Round_robin_A");
        assert_eq!(names.bucket(), "dgt_Open_2026_Round_robin");
        assert_eq!(Names::manifest_key(&a), "hall.A");
        assert_eq!(Names::state_key(7), "board.7");
        assert_eq!(names.actions(&a), "dgt.Open_2026_Round_robin.A.actions");
        assert_eq!(Names::consumer(&a), "central_A");
        assert_eq!(
            Names::board_of_subject(&names.board_events(&a, 12)),
            Some(12)
        );
        assert_eq!(Names::board_of_subject("dgt.x.A.*.events"), None);
        assert_eq!(Names::board_of_subject("dgt.x.A.12.actions"), None);
    }

    #[test]
    fn bad_names_are_refused_with_what_is_wrong() {
        for bad in ["", "a.b", "a b", "*", ">", "é", &"x".repeat(33), "a-b"] {
            let e = HallId::new(bad).unwrap_err();
            assert!(e.to_string().contains("hall id"), "{e}");
        }
        assert!(HallId::new("hall_2").is_ok());
        assert!(EventKey::new("!!! ...").is_err());
        assert_eq!(EventKey::new(&"y".repeat(80)).unwrap().as_str().len(), 48);
        let h: Result<HallId, _> = serde_json::from_str("\"a.b\"");
        assert!(h.is_err());
    }
}
