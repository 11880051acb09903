//! The WebSocket messages: requests as consumers send them, replies as LiveChess sends
//! them (field order as in the capture: `response`, `id`, `param`, `time`).
//!
//! Requests seen in the wild (all accepted):
//! - `{"id":1,"call":"eboards"}`, with `"param":null` or `"param":{}` or none;
//! - `{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"23946"}}}`
//!   (`param.id` is the feed id, chosen by the client);
//! - `{"id":3,"call":"call","param":{"id":1,"method":"setup","param":{"fen":"..."}}}`
//!   (`param.id` is the feed id the method acts on);
//! - `{"id":4,"call":"unsubscribe","param":{"id":1}}`.
//!
//! `id` is a number or a string and is echoed as sent.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// A request or feed id: a JSON number or string, kept as sent so the reply echoes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    Number(serde_json::Number),
    Text(String),
}

impl Id {
    fn from_value(v: &Value) -> Option<Id> {
        match v {
            Value::Number(n) => Some(Id::Number(n.clone())),
            Value::String(s) => Some(Id::Text(s.clone())),
            _ => None,
        }
    }
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::Text(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Number(n) => n.serialize(s),
            Id::Text(t) => t.serialize(s),
        }
    }
}

/// One request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub id: Id,
    pub call: Call,
}

/// What a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// The list of e-boards.
    Eboards,
    /// Start the `eboardevent` feed `feed` for the board with this serial number.
    Subscribe { feed: Id, serialnr: String },
    /// Stop feed `feed`.
    Unsubscribe { feed: Id },
    /// `call` `setup` on feed `feed`: from now on its messages carry the SAN moves
    /// played from `fen`.
    Setup { feed: Id, fen: String },
}

/// A request that cannot be answered, and why. [`RequestError::id`] is the request's id
/// when it could be read, so the error reply can name it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("a request is a JSON object such as {{\"id\":1,\"call\":\"eboards\"}}, not {0}")]
    NotAnObject(&'static str),
    #[error("the request has no \"id\" (a number or a string)")]
    NoId,
    #[error("the request's \"id\" must be a number or a string")]
    BadId,
    #[error("request {id}: no \"call\" (eboards, subscribe, unsubscribe or call)")]
    NoCall { id: Id },
    #[error("request {id}: unknown call {call:?} (eboards, subscribe, unsubscribe or call)")]
    UnknownCall { id: Id, call: String },
    #[error("request {id}: {what}")]
    BadParam { id: Id, what: String },
}

impl RequestError {
    /// The id of the request, when it could be read.
    pub fn id(&self) -> Option<&Id> {
        match self {
            RequestError::NoCall { id }
            | RequestError::UnknownCall { id, .. }
            | RequestError::BadParam { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// What a JSON value is, for an error message ("a number", "an array").
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parses one text frame.
pub fn parse_request(text: &str) -> Result<Request, RequestError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| RequestError::NotJson(e.to_string()))?;
    let obj = match value {
        Value::Object(o) => o,
        other => return Err(RequestError::NotAnObject(kind_of(&other))),
    };
    let id = match obj.get("id") {
        None | Some(Value::Null) => return Err(RequestError::NoId),
        Some(v) => Id::from_value(v).ok_or(RequestError::BadId)?,
    };
    let call = match obj.get("call") {
        None => return Err(RequestError::NoCall { id }),
        Some(Value::String(c)) => c.clone(),
        Some(_) => {
            return Err(RequestError::BadParam {
                id,
                what: "\"call\" must be a string".into(),
            })
        }
    };
    let bad = |what: String| RequestError::BadParam {
        id: id.clone(),
        what,
    };
    // `param` absent, null or an object.
    let empty = Map::new();
    let param = match obj.get("param") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(p)) => p,
        Some(other) => {
            return Err(bad(format!(
                "\"param\" must be an object or null, not {}",
                kind_of(other)
            )))
        }
    };
    let feed_id = |p: &Map<String, Value>| -> Result<Id, RequestError> {
        match p.get("id") {
            None | Some(Value::Null) => Err(bad(format!(
                "{call} needs param.id, the feed id (a number or a string)"
            ))),
            Some(v) => Id::from_value(v)
                .ok_or_else(|| bad("param.id (the feed id) must be a number or a string".into())),
        }
    };
    let inner = |p: &Map<String, Value>, what: &str| -> Result<Map<String, Value>, RequestError> {
        match p.get("param") {
            Some(Value::Object(o)) => Ok(o.clone()),
            None | Some(Value::Null) => Ok(Map::new()),
            Some(_) => Err(bad(format!("{what}: param.param must be an object"))),
        }
    };
    let call = match call.as_str() {
        "eboards" => Call::Eboards,
        "subscribe" => {
            match param.get("feed").and_then(Value::as_str) {
                Some("eboardevent") => {}
                Some(other) => {
                    return Err(bad(format!(
                        "unknown feed {other:?}: this server has the \"eboardevent\" feed"
                    )))
                }
                None => return Err(bad("subscribe needs param.feed (\"eboardevent\")".into())),
            }
            let feed = feed_id(param)?;
            let p = inner(param, "subscribe")?;
            let serialnr = match p.get("serialnr") {
                Some(Value::String(s)) => s.clone(),
                // Some clients send the number as a number.
                Some(Value::Number(n)) => n.to_string(),
                _ => {
                    return Err(bad(
                        "subscribe needs param.param.serialnr, the e-board's serial number".into(),
                    ))
                }
            };
            Call::Subscribe { feed, serialnr }
        }
        "unsubscribe" => Call::Unsubscribe {
            feed: feed_id(param)?,
        },
        "call" => {
            let feed = feed_id(param)?;
            match param.get("method").and_then(Value::as_str) {
                Some("setup") => {}
                Some(other) => {
                    return Err(bad(format!(
                        "unknown method {other:?}: this server has \"setup\""
                    )))
                }
                None => return Err(bad("call needs param.method (\"setup\")".into())),
            }
            let p = inner(param, "setup")?;
            let fen = match p.get("fen") {
                Some(Value::String(f)) => f.clone(),
                _ => return Err(bad("setup needs param.param.fen, a FEN".into())),
            };
            Call::Setup { feed, fen }
        }
        other => {
            return Err(RequestError::UnknownCall {
                id,
                call: other.to_owned(),
            })
        }
    };
    Ok(Request { id, call })
}

#[derive(Serialize)]
struct Envelope<'a, P: Serialize> {
    response: &'static str,
    id: &'a Id,
    param: P,
    time: u64,
}

fn to_text<P: Serialize>(response: &'static str, id: &Id, param: P, time_ms: u64) -> String {
    // Plain structs, strings and numbers: serialising cannot fail.
    serde_json::to_string(&Envelope {
        response,
        id,
        param,
        time: time_ms,
    })
    .unwrap_or_default()
}

/// The answer to request `id`: `{"response":"call","id":..,"param":..,"time":..}`.
pub fn call_reply<P: Serialize>(id: &Id, param: P, time_ms: u64) -> String {
    to_text("call", id, param, time_ms)
}

/// A message of feed `feed`: `{"response":"feed","id":FEED,"param":..,"time":..}`.
pub fn feed_message<P: Serialize>(feed: &Id, param: P, time_ms: u64) -> String {
    to_text("feed", feed, param, time_ms)
}

/// A request that cannot be answered: `{"response":"error","id":..,"param":{"message":..},"time":..}`
/// (`id` null when the request's id could not be read). LiveChess's own error form is
/// not in any capture; consumers that do not know it ignore it.
pub fn error_reply(id: Option<&Id>, message: &str, time_ms: u64) -> String {
    #[derive(Serialize)]
    struct ErrorEnvelope<'a> {
        response: &'static str,
        id: Option<&'a Id>,
        param: ErrorParam<'a>,
        time: u64,
    }
    #[derive(Serialize)]
    struct ErrorParam<'a> {
        message: &'a str,
    }
    serde_json::to_string(&ErrorEnvelope {
        response: "error",
        id,
        param: ErrorParam { message },
        time: time_ms,
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(n: u64) -> Id {
        Id::Number(n.into())
    }

    #[test]
    fn every_eboards_variant_is_one_request() {
        for text in [
            r#"{"id":1,"call":"eboards"}"#,
            r#"{"call":"eboards","id":1,"param":null}"#,
            r#"{"call":"eboards","id":1,"param":{}}"#,
        ] {
            assert_eq!(
                parse_request(text).unwrap(),
                Request {
                    id: num(1),
                    call: Call::Eboards
                },
                "{text}"
            );
        }
        let r = parse_request(r#"{"call":"eboards","id":"abc"}"#).unwrap();
        assert_eq!(r.id, Id::Text("abc".into()));
        assert_eq!(
            call_reply(&r.id, (), 5),
            r#"{"response":"call","id":"abc","param":null,"time":5}"#
        );
    }

    #[test]
    fn subscribe_setup_and_unsubscribe() {
        let r = parse_request(
            r#"{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"23946"}}}"#,
        )
        .unwrap();
        assert_eq!(
            r.call,
            Call::Subscribe {
                feed: num(1),
                serialnr: "23946".into()
            }
        );
        let r = parse_request(
            r#"{"id":3,"call":"call","param":{"id":1,"method":"setup","param":{"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}}}"#,
        )
        .unwrap();
        assert_eq!(r.id, num(3));
        assert!(
            matches!(r.call, Call::Setup { feed, ref fen } if feed == num(1) && fen.starts_with("rnbq"))
        );
        let r = parse_request(r#"{"id":"u","call":"unsubscribe","param":{"id":"f"}}"#).unwrap();
        assert_eq!(
            r.call,
            Call::Unsubscribe {
                feed: Id::Text("f".into())
            }
        );
        // A serial number sent as a number.
        let r = parse_request(
            r#"{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":23946}}}"#,
        )
        .unwrap();
        assert!(matches!(r.call, Call::Subscribe { ref serialnr, .. } if serialnr == "23946"));
    }

    #[test]
    fn bad_requests_say_what_is_wrong_and_keep_the_id() {
        let cases: &[(&str, Option<Id>, &str)] = &[
            ("{not json", None, "not JSON"),
            ("[1,2]", None, "not an array"),
            (r#"{"call":"eboards"}"#, None, "no \"id\""),
            (r#"{"id":[1],"call":"eboards"}"#, None, "number or a string"),
            (r#"{"id":7}"#, Some(num(7)), "no \"call\""),
            (
                r#"{"id":7,"call":"fly"}"#,
                Some(num(7)),
                "unknown call \"fly\"",
            ),
            (
                r#"{"id":7,"call":"eboards","param":3}"#,
                Some(num(7)),
                "\"param\" must be an object",
            ),
            (
                r#"{"id":7,"call":"subscribe","param":{"feed":"x","id":1}}"#,
                Some(num(7)),
                "unknown feed \"x\"",
            ),
            (
                r#"{"id":7,"call":"subscribe","param":{"feed":"eboardevent","id":1}}"#,
                Some(num(7)),
                "serialnr",
            ),
            (
                r#"{"id":7,"call":"subscribe","param":{"feed":"eboardevent","param":{"serialnr":"1"}}}"#,
                Some(num(7)),
                "feed id",
            ),
            (
                r#"{"id":7,"call":"call","param":{"id":1,"method":"fly"}}"#,
                Some(num(7)),
                "unknown method",
            ),
            (
                r#"{"id":7,"call":"call","param":{"id":1,"method":"setup","param":{}}}"#,
                Some(num(7)),
                "fen",
            ),
        ];
        for (text, id, words) in cases {
            let e = parse_request(text).unwrap_err();
            assert_eq!(e.id(), id.as_ref(), "{text}");
            assert!(e.to_string().contains(words), "{text}: {e}");
            let reply: Value =
                serde_json::from_str(&error_reply(e.id(), &e.to_string(), 9)).unwrap();
            assert_eq!(reply["response"], "error");
            assert_eq!(reply["time"], 9);
        }
    }
}
