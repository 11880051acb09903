//! The other direction: following one e-board of a running LiveChess (or of another
//! daemon serving this API) as if it were a board on a serial line. [`Follower`] is fed
//! the feed's text frames and answers with the same [`BoardEvent`]s the serial driver
//! gives the tracker, so the same tracker and rulings apply:
//!
//! - the first feed message after `subscribe` (the full state) is `Connected` then a
//!   `Dump`; each later message whose `board` changed is one `Field` update per changed
//!   square (lifts first, then placements: a lift and a place arrive as two messages,
//!   but a server may merge them);
//! - a frame it cannot read is an error naming what is wrong; when the frame may have
//!   carried a change it also gives `Disconnected`, and the next full state (asked for
//!   with [`Follower::resync`]) brings the board back through the tracker's reconnect
//!   path, as after an overrun of the serial driver;
//! - `san`, `clock` and `flipped` are not used: `board` is always White at the bottom,
//!   and the moves are the tracker's to find. LiveChess's clock object (whole seconds,
//!   no lever) is not a DGT clock frame; such a board has no clock for the arbiter.
//!
//! [`Reconnect`] is the backoff between connection attempts; [`SourceUrl`] the
//! `livechess://HOST:PORT/SERIALNR` of the config.

use chess_rules::Placement;
use dgt_protocol::{BoardEvent, FieldIndex, FieldUpdate, Orientation, PieceCode, RawBoard};
use serde_json::Value;

use crate::protocol::Id;

/// LiveChess's port.
pub const DEFAULT_PORT: u16 = 1982;

/// `livechess://HOST[:PORT]/SERIALNR`: an e-board of a LiveChess instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceUrl {
    pub host: String,
    pub port: u16,
    pub serialnr: String,
}

impl SourceUrl {
    /// The WebSocket address of its API.
    pub fn websocket(&self) -> String {
        if self.host.contains(':') {
            format!("ws://[{}]:{}/api/v1.0", self.host, self.port)
        } else {
            format!("ws://{}:{}/api/v1.0", self.host, self.port)
        }
    }
}

impl std::fmt::Display for SourceUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(
                f,
                "livechess://[{}]:{}/{}",
                self.host, self.port, self.serialnr
            )
        } else {
            write!(
                f,
                "livechess://{}:{}/{}",
                self.host, self.port, self.serialnr
            )
        }
    }
}

/// A `livechess://` address that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SourceUrlError(String);

impl std::str::FromStr for SourceUrl {
    type Err = SourceUrlError;

    fn from_str(s: &str) -> Result<SourceUrl, SourceUrlError> {
        let err = |m: &str| SourceUrlError(m.to_owned());
        let rest = s
            .strip_prefix("livechess://")
            .ok_or_else(|| err("it does not start with livechess://"))?;
        let (authority, serialnr) = rest
            .split_once('/')
            .ok_or_else(|| err("no /SERIALNR after the host"))?;
        if serialnr.is_empty()
            || serialnr.len() > 32
            || !serialnr.chars().all(|c| c.is_ascii_alphanumeric())
        {
            return Err(err(
                "the serial number after the host must be 1 to 32 letters or digits",
            ));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (host, after) = v6
                .split_once(']')
                .ok_or_else(|| err("an IPv6 host needs its closing ]"))?;
            (host, after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        if host.is_empty()
            || !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
        {
            return Err(err("the host must be a name or an IP address"));
        }
        let port = match port {
            None => DEFAULT_PORT,
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| err("the port must be a number from 1 to 65535"))?,
        };
        Ok(SourceUrl {
            host: host.to_owned(),
            port,
            serialnr: serialnr.to_owned(),
        })
    }
}

/// A frame from the server that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("a message is a JSON object, not {0}")]
    NotAnObject(&'static str),
    #[error("the message has no \"response\" (call, feed or error)")]
    NoResponse,
    #[error("the feed message has no \"param\" object")]
    NoParam,
    #[error("the feed's \"board\" {board:?} is not a FEN placement: {why}")]
    BadBoard { board: String, why: String },
    #[error("the feed's first message has no \"board\"")]
    NoBoard,
    #[error("the server refused the subscription to e-board {serialnr}: {message}")]
    Refused { serialnr: String, message: String },
}

/// What a frame gave.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Received {
    /// Board events, in order.
    pub events: Vec<BoardEvent>,
    /// What was wrong with the frame, if anything (the events say what it cost).
    pub error: Option<FrameError>,
}

/// The feed id this follower subscribes with.
const FEED: u64 = 1;

/// One followed e-board (see the module documentation).
#[derive(Debug, Clone)]
pub struct Follower {
    serialnr: String,
    next_id: u64,
    /// The `subscribe` request waiting for its answer.
    subscribe_id: Option<u64>,
    /// The placement last reported; `None` until a full state arrived.
    shown: Option<Placement>,
    /// The board was reported connected (and not disconnected since).
    connected: bool,
}

impl Follower {
    /// Follows the e-board with this serial number.
    pub fn new(serialnr: &str) -> Follower {
        Follower {
            serialnr: serialnr.to_owned(),
            next_id: 1,
            subscribe_id: None,
            shown: None,
            connected: false,
        }
    }

    /// The connection is open: the frames to send (the subscription).
    pub fn open(&mut self) -> Vec<String> {
        self.shown = None;
        self.subscribe()
    }

    fn subscribe(&mut self) -> Vec<String> {
        let id = self.next_id;
        self.next_id += 1;
        self.subscribe_id = Some(id);
        vec![serde_json::json!({
            "id": id,
            "call": "subscribe",
            "param": {"feed": "eboardevent", "id": FEED, "param": {"serialnr": self.serialnr}},
        })
        .to_string()]
    }

    /// Asks for the full state again (subscribing anew sends it): the next feed message
    /// is a `Dump`. For a dump the arbiter asks for, and after a frame that was lost.
    pub fn resync(&mut self) -> Vec<String> {
        self.shown = None;
        self.subscribe()
    }

    /// The connection is gone: `Disconnected` if the board was connected.
    pub fn closed(&mut self, reason: &str) -> Option<BoardEvent> {
        self.shown = None;
        self.subscribe_id = None;
        std::mem::take(&mut self.connected).then(|| BoardEvent::Disconnected {
            reason: reason.to_owned(),
        })
    }

    /// Whether the board is connected (a full state has arrived on this connection).
    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// One text frame from the server.
    pub fn receive(&mut self, text: &str) -> Received {
        match self.frame(text) {
            Ok(events) => Received {
                events,
                error: None,
            },
            Err((error, lost)) => {
                let mut events = Vec::new();
                if lost {
                    // The frame may have carried a change: the board is not known any
                    // more until the next full state (the reconnect path).
                    events.extend(self.closed(&format!("bad frame from LiveChess: {error}")));
                }
                Received {
                    events,
                    error: Some(error),
                }
            }
        }
    }

    /// The events of a frame, or the error and whether a change may have been lost.
    fn frame(&mut self, text: &str) -> Result<Vec<BoardEvent>, (FrameError, bool)> {
        // Not even JSON: it may have been a feed message.
        let value: Value =
            serde_json::from_str(text).map_err(|e| (FrameError::NotJson(e.to_string()), true))?;
        let Value::Object(obj) = value else {
            return Err((
                FrameError::NotAnObject(crate::protocol::kind_of(&value)),
                true,
            ));
        };
        let id = obj.get("id").and_then(|v| match v {
            Value::Number(n) => Some(Id::Number(n.clone())),
            Value::String(s) => Some(Id::Text(s.clone())),
            _ => None,
        });
        let is = |n: u64| id == Some(Id::Number(n.into()));
        match obj.get("response").and_then(Value::as_str) {
            Some("call") => Ok(Vec::new()),
            Some("error") => {
                if self.subscribe_id.is_some_and(is) {
                    let message = obj
                        .get("param")
                        .and_then(|p| p.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("no reason given")
                        .to_owned();
                    return Err((
                        FrameError::Refused {
                            serialnr: self.serialnr.clone(),
                            message,
                        },
                        false,
                    ));
                }
                Ok(Vec::new())
            }
            Some("feed") if is(FEED) => {
                let param = match obj.get("param") {
                    Some(Value::Object(p)) => p,
                    _ => return Err((FrameError::NoParam, true)),
                };
                let board = match param.get("board") {
                    None | Some(Value::Null) if self.shown.is_some() => return Ok(Vec::new()),
                    None | Some(Value::Null) => return Err((FrameError::NoBoard, true)),
                    Some(Value::String(b)) => b,
                    Some(other) => {
                        return Err((
                            FrameError::BadBoard {
                                board: other.to_string(),
                                why: format!(
                                    "a string is expected, not {}",
                                    crate::protocol::kind_of(other)
                                ),
                            },
                            true,
                        ))
                    }
                };
                let placement = Placement::from_fen_field(board).map_err(|e| {
                    (
                        FrameError::BadBoard {
                            board: board.chars().take(100).collect(),
                            why: e.to_string(),
                        },
                        true,
                    )
                })?;
                Ok(self.show(placement))
            }
            // Another feed's message, or a kind this follower has no use for.
            Some(_) => Ok(Vec::new()),
            None => Err((FrameError::NoResponse, true)),
        }
    }

    /// The events that take the board from what was shown to `placement`.
    fn show(&mut self, placement: Placement) -> Vec<BoardEvent> {
        let field = |sq| FieldIndex::from_square(sq, Orientation::Normal);
        let mut out = Vec::new();
        match self.shown {
            None => {
                if !self.connected {
                    self.connected = true;
                    out.push(BoardEvent::Connected {
                        serial: Some(self.serialnr.clone()),
                        version: None,
                        clock_version: None,
                    });
                }
                out.push(BoardEvent::Dump {
                    board: RawBoard::from_placement(&placement, Orientation::Normal),
                });
            }
            Some(old) => {
                let changed: Vec<_> = chess_rules::Square::all()
                    .filter(|sq| old.get(*sq) != placement.get(*sq))
                    .collect();
                // Lifts first (a square emptied, or a piece replaced: a capture), then
                // the pieces put down.
                for sq in &changed {
                    if old.get(*sq).is_some() {
                        out.push(BoardEvent::Field(FieldUpdate {
                            field: field(*sq),
                            piece: PieceCode::Empty,
                        }));
                    }
                }
                for sq in &changed {
                    if let Some(p) = placement.get(*sq) {
                        out.push(BoardEvent::Field(FieldUpdate {
                            field: field(*sq),
                            piece: PieceCode::Piece(p),
                        }));
                    }
                }
            }
        }
        self.shown = Some(placement);
        out
    }
}

/// The wait before each connection attempt: none for the first, then from
/// [`Reconnect::MIN_MS`] doubling to [`Reconnect::MAX_MS`]; a connection that delivered
/// the board starts again from the first.
#[derive(Debug, Clone, Default)]
pub struct Reconnect {
    failures: u32,
}

impl Reconnect {
    pub const MIN_MS: u64 = 250;
    pub const MAX_MS: u64 = 10_000;

    /// An attempt failed or a connection was lost: how long to wait before the next.
    pub fn failed(&mut self) -> u64 {
        let wait = Self::MIN_MS
            .saturating_mul(1 << self.failures.min(16))
            .min(Self::MAX_MS);
        self.failures = self.failures.saturating_add(1);
        wait
    }

    /// The board came through: the next loss waits the least.
    pub fn succeeded(&mut self) {
        self.failures = 0;
    }
}

#[cfg(test)]
mod tests;
