//! What travels: one arbiter event per message ([`Envelope`]), a board's last state in
//! the KV bucket ([`BoardState`]), and a hall's manifest ([`Manifest`]). All JSON.

use serde::{Deserialize, Serialize};
use touch_tracker::{ArbiterEvent, Snapshot};

use crate::names::HallId;

/// The envelope format's version.
pub const VERSION: u32 = 1;

/// A message that is not an envelope of ours.
#[derive(Debug, thiserror::Error)]
pub enum EnvelopeError {
    #[error("not an arbiter event message: {0}")]
    Json(#[from] serde_json::Error),
    #[error("envelope version {0} is newer than this program's ({VERSION}): update dgt-arbiter on the central")]
    Version(u32),
    #[error("the envelope names board {envelope} but came on the subject of board {subject}")]
    Subject { envelope: u32, subject: u32 },
}

/// One arbiter event as a hall publishes it: where it comes from, its place in the
/// board's sequence (the hub's `seq`: from 1 per board and round, stable across restarts
/// because a resumed board regenerates the same events from its journal) and the event
/// itself (formats.md §2, the object the events.jsonl line holds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    pub v: u32,
    pub hall: HallId,
    pub board: u32,
    pub round: u32,
    pub seq: u64,
    /// Wall-clock time of the input that caused it (Unix ms).
    pub wall_ms: u64,
    pub event: ArbiterEvent,
}

impl Envelope {
    /// The JetStream message id (`Nats-Msg-Id`): the same event always has the same id,
    /// so the server drops a republish within its duplicate window.
    pub fn msg_id(&self) -> String {
        msg_id(&self.hall, self.round, self.board, self.seq)
    }

    pub fn to_json(&self) -> Vec<u8> {
        // Plain structs and string-keyed maps: serialising cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Reads a message's payload; `subject_board` is the board its subject names.
    pub fn parse(payload: &[u8], subject_board: Option<u32>) -> Result<Envelope, EnvelopeError> {
        #[derive(Deserialize)]
        struct Version {
            v: u32,
        }
        let v: Version = serde_json::from_slice(payload)?;
        if v.v > VERSION {
            return Err(EnvelopeError::Version(v.v));
        }
        let e: Envelope = serde_json::from_slice(payload)?;
        if let Some(s) = subject_board.filter(|s| *s != e.board) {
            return Err(EnvelopeError::Subject {
                envelope: e.board,
                subject: s,
            });
        }
        Ok(e)
    }
}

/// A line of the central's file of what it received from a hall (`central/<hall>.jsonl`):
/// an envelope and the stream sequence it came with, where the central goes on after a
/// restart ([`crate::StreamPosition`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub stream_seq: u64,
    pub envelope: Envelope,
}

impl Received {
    pub fn to_json(&self) -> Vec<u8> {
        Received::line(self.stream_seq, &self.envelope.to_json())
    }

    /// The line for the message `payload` (an envelope's JSON, as it came: not written
    /// again) at `stream_seq`, without its newline.
    pub fn line(stream_seq: u64, payload: &[u8]) -> Vec<u8> {
        let mut line = format!("{{\"stream_seq\":{stream_seq},\"envelope\":").into_bytes();
        line.extend_from_slice(payload);
        line.push(b'}');
        line
    }

    /// Reads a line; a bare envelope (a file written before lines had their sequence)
    /// has sequence 0, so the central reads the stream again from the start.
    pub fn parse(line: &[u8]) -> Result<Received, EnvelopeError> {
        #[derive(Deserialize)]
        struct Line {
            stream_seq: u64,
            envelope: serde_json::Value,
        }
        match serde_json::from_slice::<Line>(line) {
            Ok(l) => Ok(Received {
                stream_seq: l.stream_seq,
                envelope: Envelope::parse(l.envelope.to_string().as_bytes(), None)?,
            }),
            Err(_) => Ok(Received {
                stream_seq: 0,
                envelope: Envelope::parse(line, None)?,
            }),
        }
    }
}

/// [`Envelope::msg_id`].
pub fn msg_id(hall: &HallId, round: u32, board: u32, seq: u64) -> String {
    format!("{hall}.r{round}.b{board}.s{seq}")
}

/// A board's last state, kept under `board.<N>` in the event's bucket: what the
/// dashboard shows of a board between events (position, clocks, the driver's status).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardState {
    pub v: u32,
    pub hall: HallId,
    pub board: u32,
    pub round: u32,
    /// The board's last event's seq.
    pub seq: u64,
    pub snapshot: Option<Snapshot>,
    /// The driver's status as the hall's dashboard shows it.
    pub driver: Option<serde_json::Value>,
}

/// A hall's boards, kept under `hall.<H>` in the event's bucket, so that the central
/// knows every board of the event (numbers are event-wide) and its players.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub v: u32,
    pub hall: HallId,
    pub round: u32,
    pub boards: Vec<u32>,
    /// The hall's `[[board]]` tables as TOML (players, clock side, pairing), without its
    /// `[network]` or `[http]` secrets.
    pub board_tables: String,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use touch_tracker::EventKind;

    pub(crate) fn envelope(hall: &str, board: u32, seq: u64) -> Envelope {
        Envelope {
            v: VERSION,
            hall: HallId::new(hall).unwrap(),
            board,
            round: 3,
            seq,
            wall_ms: 1_764_590_000_000 + seq,
            event: ArbiterEvent {
                t_ms: seq * 10,
                board: board.to_string(),
                kind: EventKind::NewGame {
                    fen: chess_rules::START_FEN.into(),
                },
            },
        }
    }

    #[test]
    fn an_envelope_round_trips_and_its_id_names_the_event() {
        let e = envelope("A", 12, 7);
        let back = Envelope::parse(&e.to_json(), Some(12)).unwrap();
        assert_eq!(back, e);
        assert_eq!(e.msg_id(), "A.r3.b12.s7");
        assert_ne!(envelope("B", 12, 7).msg_id(), e.msg_id());
        assert_ne!(envelope("A", 12, 8).msg_id(), e.msg_id());
        // The event object is the events.jsonl one.
        let v: serde_json::Value = serde_json::from_slice(&e.to_json()).unwrap();
        assert_eq!(v["event"]["kind"], "new_game");
        assert_eq!(v["event"]["board"], "12");
    }

    #[test]
    fn a_received_line_keeps_its_stream_sequence_and_a_bare_envelope_reads_as_zero() {
        let r = Received {
            stream_seq: 41,
            envelope: envelope("A", 3, 9),
        };
        assert_eq!(Received::parse(&r.to_json()).unwrap(), r);
        let bare = Received::parse(&r.envelope.to_json()).unwrap();
        assert_eq!((bare.stream_seq, bare.envelope), (0, r.envelope.clone()));
        let mut v: serde_json::Value = serde_json::from_slice(&r.to_json()).unwrap();
        v["envelope"]["v"] = 9.into();
        let err = Received::parse(v.to_string().as_bytes()).unwrap_err();
        assert!(err.to_string().contains("newer"), "{err}");
        assert!(Received::parse(b"{\"stream_seq\":1}").is_err());
    }

    #[test]
    fn foreign_or_wrong_messages_are_refused_with_a_reason() {
        let e = envelope("A", 12, 7);
        let err = Envelope::parse(&e.to_json(), Some(13)).unwrap_err();
        assert!(err.to_string().contains("board 12"), "{err}");
        let err = Envelope::parse(b"hello", None).unwrap_err();
        assert!(err.to_string().contains("not an arbiter event"), "{err}");
        let mut v: serde_json::Value = serde_json::from_slice(&e.to_json()).unwrap();
        v["v"] = 9.into();
        let err = Envelope::parse(v.to_string().as_bytes(), None).unwrap_err();
        assert!(err.to_string().contains("newer"), "{err}");
        v["v"] = 1.into();
        v["hall"] = "a.b".into();
        assert!(Envelope::parse(v.to_string().as_bytes(), None).is_err());
    }
}
