//! Messages on a hall's subjects that the hall did not publish, and what the hall's and
//! the central's bookkeeping does about them. Any client allowed to publish on
//! `dgt.<event>.<hall>.<board>.events` puts its message into the hall's stream (the
//! stream takes every message on its subjects); without the NATS permissions of
//! docs/deployment.md nothing stops it. Such a message must never stop the hall's feed:
//!
//! - [`own_message`]: a message is the hall's own when it is an envelope of this hall,
//!   of the board its subject names, carrying the message id the hall gives it
//!   (`Nats-Msg-Id`, [`crate::Envelope::msg_id`]); anything else is foreign, skipped and
//!   reported with the reason.
//! - [`Chain`]: what each publish must follow (the stream's last sequence, or the
//!   hall's previous message id, [`Expect`]). A foreign message moves the stream under
//!   the hall, which the server answers with "wrong last sequence" (10071) or "wrong
//!   last message id" (10070): the chain is then re-read from the stream, and the
//!   messages the hall did not expect ([`Chain::unexpected`]) are the ones to inspect
//!   and report.
//! - [`Lag`]: the central's view of a hall that is behind: a board whose last event, as
//!   the hall reports it in its board state, stays above what the central applied.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::envelope::{Envelope, EnvelopeError};
use crate::names::HallId;

/// Why a message on a hall's subject is not the hall's own.
#[derive(Debug, thiserror::Error)]
pub enum Foreign {
    #[error("{0}")]
    NotEnvelope(#[from] EnvelopeError),
    #[error("an envelope of hall {0}, on this hall's subject")]
    OtherHall(HallId),
    #[error(
        "an envelope without the message id its hall gives it (expected {expected:?}, got {got:?})"
    )]
    MessageId {
        expected: String,
        got: Option<String>,
    },
}

/// The envelope of a message on hall `hall`'s subject of board `subject_board`, when it
/// is the hall's own: an envelope of this hall and board with the message id
/// (`Nats-Msg-Id` header, `msg_id`) the hall gives it. An envelope of another round of
/// the hall is still the hall's own.
pub fn own_message(
    hall: &HallId,
    subject_board: Option<u32>,
    payload: &[u8],
    msg_id: Option<&str>,
) -> Result<Envelope, Foreign> {
    let e = Envelope::parse(payload, subject_board)?;
    if e.hall != *hall {
        return Err(Foreign::OtherHall(e.hall));
    }
    let expected = e.msg_id();
    if msg_id != Some(expected.as_str()) {
        return Err(Foreign::MessageId {
            expected,
            got: msg_id.map(str::to_owned),
        });
    }
    Ok(e)
}

/// How many foreign messages are logged one by one; after them one in every
/// [`LOG_EVERY`], so that a flood of them does not flood the log (the dashboards' warning
/// keeps the count).
pub const LOG_FIRST: u64 = 20;
/// See [`LOG_FIRST`].
pub const LOG_EVERY: u64 = 1000;

/// True when the `count`-th foreign message (from 1) is to be logged.
pub fn worth_logging(count: u64) -> bool {
    count <= LOG_FIRST || count % LOG_EVERY == 0
}

/// How many unexpected messages the hall reads after one refusal; a flood beyond that
/// is counted, not read one by one.
pub const INSPECT_AT_MOST: u64 = 1000;

/// What a publish names as the message it must follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// `Nats-Expected-Last-Sequence`: the first publish of a window follows the stream's
    /// last sequence the hall knows.
    Sequence(u64),
    /// `Nats-Expected-Last-Msg-Id`: the others follow the hall's previous publish. A
    /// sequence would not do inside a window: a foreign message stored before its first
    /// publish shifts the stream by one, and the first is refused but the next ones,
    /// naming one sequence more each, would be stored past the hole.
    MessageId(String),
}

/// The publish chain of a hall: what each publish must follow, and the last stream
/// sequence the hall knows its own. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// The stream's last sequence that the hall accounted for: read from the stream, or
    /// the sequence of one of its own stored publishes.
    confirmed: u64,
    /// The message id of the window's previous publish.
    previous: Option<String>,
}

impl Chain {
    /// The chain after the stream's last sequence, as read from the stream.
    pub fn from_stream(last_sequence: u64) -> Chain {
        Chain {
            confirmed: last_sequence,
            previous: None,
        }
    }

    /// What the publish of the message `msg_id` must follow: the window's previous
    /// publish, or for the first one the stream's last known sequence.
    pub fn publish(&mut self, msg_id: String) -> Expect {
        match self.previous.replace(msg_id) {
            Some(previous) => Expect::MessageId(previous),
            None => Expect::Sequence(self.confirmed),
        }
    }

    /// The server stored one of the hall's publishes at `stream_seq`.
    pub fn stored(&mut self, stream_seq: u64) {
        self.confirmed = self.confirmed.max(stream_seq);
    }

    /// The window's acks are in (or it failed): the next publish starts a window, after
    /// the last sequence known stored. A duplicate (the same message id within the
    /// server's duplicate window) stored nothing and does not move it.
    pub fn end_window(&mut self) {
        self.previous = None;
    }

    /// After a refusal ("wrong last sequence" or "wrong last message id"), with the
    /// stream's last sequence re-read: the stream sequences the hall did not publish
    /// (or whose acks it lost), the last [`INSPECT_AT_MOST`] of them to read, and how
    /// many before those are not read. The chain then follows the stream's last
    /// sequence.
    pub fn unexpected(&mut self, stream_last: u64) -> (Range<u64>, u64) {
        let from = self.confirmed + 1;
        *self = Chain::from_stream(stream_last.max(self.confirmed));
        if stream_last < from {
            // A stream purged or made afresh: nothing to read between.
            return (0..0, 0);
        }
        let read_from = from.max(stream_last.saturating_sub(INSPECT_AT_MOST - 1));
        (read_from..stream_last + 1, read_from - from)
    }
}

/// A board whose hall is ahead of the central.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Behind {
    pub board: u32,
    /// The board's last event's seq as its hall reports it.
    pub hall_seq: u64,
    /// The last seq the central applied.
    pub central_seq: u64,
    /// Since when (ms, the caller's clock) the central is behind on this board.
    pub since_ms: u64,
}

/// Which boards the central is behind on, and since when. The hall puts its board
/// states a little after its events, so a moment behind is normal: only a board behind
/// for longer than the patience is reported.
#[derive(Debug, Clone, Default)]
pub struct Lag {
    since: BTreeMap<u32, u64>,
}

impl Lag {
    pub fn new() -> Lag {
        Lag::default()
    }

    /// Compares each board's seq as the hall reports it with the central's, at `now_ms`;
    /// returns the boards behind for at least `patience_ms`, in number order.
    pub fn check(
        &mut self,
        now_ms: u64,
        patience_ms: u64,
        boards: impl IntoIterator<Item = (u32, u64, u64)>,
    ) -> Vec<Behind> {
        let mut out = Vec::new();
        let mut still = BTreeMap::new();
        for (board, hall_seq, central_seq) in boards {
            if hall_seq <= central_seq {
                continue;
            }
            let since = self.since.get(&board).copied().unwrap_or(now_ms);
            still.insert(board, since);
            if now_ms.saturating_sub(since) >= patience_ms {
                out.push(Behind {
                    board,
                    hall_seq,
                    central_seq,
                    since_ms: since,
                });
            }
        }
        self.since = still;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::tests::envelope;

    fn hall(h: &str) -> HallId {
        HallId::new(h).unwrap()
    }

    #[test]
    fn only_an_envelope_of_this_hall_with_its_message_id_is_the_halls_own() {
        let e = envelope("A", 4, 7);
        let id = e.msg_id();
        let own = own_message(&hall("A"), Some(4), &e.to_json(), Some(&id)).unwrap();
        assert_eq!(own, e);
        // Any client's plain message on the subject.
        let err = own_message(&hall("A"), Some(4), b"hello", None).unwrap_err();
        assert!(err.to_string().contains("not an arbiter event"), "{err}");
        // Another hall's envelope, or an envelope without (or with another) message id.
        let b = envelope("B", 4, 7);
        let err = own_message(&hall("A"), Some(4), &b.to_json(), Some(&b.msg_id())).unwrap_err();
        assert!(err.to_string().contains("hall B"), "{err}");
        let err = own_message(&hall("A"), Some(4), &e.to_json(), None).unwrap_err();
        assert!(err.to_string().contains("message id"), "{err}");
        let err = own_message(&hall("A"), Some(4), &e.to_json(), Some("A.r3.b4.s8")).unwrap_err();
        assert!(err.to_string().contains("A.r3.b4.s7"), "{err}");
        // On another board's subject.
        assert!(own_message(&hall("A"), Some(5), &e.to_json(), Some(&id)).is_err());
    }

    #[test]
    fn a_window_follows_the_stream_then_each_previous_publish() {
        let mut chain = Chain::from_stream(10);
        assert_eq!(chain.publish("A.r2.b1.s1".into()), Expect::Sequence(10));
        assert_eq!(
            chain.publish("A.r2.b1.s2".into()),
            Expect::MessageId("A.r2.b1.s1".into())
        );
        chain.stored(11);
        chain.stored(12);
        chain.end_window();
        assert_eq!(chain.publish("A.r2.b1.s3".into()), Expect::Sequence(12));
        // A duplicate stored nothing: the next window follows the same sequence.
        chain.end_window();
        assert_eq!(chain.publish("A.r2.b1.s3".into()), Expect::Sequence(12));
    }

    #[test]
    fn a_refusal_reads_what_moved_the_stream_and_the_chain_follows_the_stream() {
        let mut chain = Chain::from_stream(10);
        chain.publish("a".into());
        chain.stored(11);
        chain.end_window();
        // A foreign message became 12; the hall's next publish named 11 and was refused.
        assert_eq!(chain.publish("b".into()), Expect::Sequence(11));
        let (read, unread) = chain.unexpected(12);
        assert_eq!((read, unread), (12..13, 0));
        assert_eq!(
            chain.publish("b".into()),
            Expect::Sequence(12),
            "the chain follows the stream"
        );
        chain.stored(13);
        // A flood: only the last INSPECT_AT_MOST are read.
        let (read, unread) = chain.unexpected(13 + 5000);
        assert_eq!(read, 5014 - INSPECT_AT_MOST..5014);
        assert_eq!(unread, 5000 - INSPECT_AT_MOST);
        assert_eq!(chain.publish("c".into()), Expect::Sequence(5013));
        // A stream made afresh (below what the hall knew): nothing to read.
        let (read, unread) = chain.unexpected(3);
        assert!(read.is_empty());
        assert_eq!(unread, 0);
    }

    #[test]
    fn a_flood_of_foreign_messages_is_logged_sparingly() {
        let logged: Vec<u64> = (1..=5000).filter(|&n| worth_logging(n)).collect();
        assert_eq!(logged.len(), 20 + 5);
        assert_eq!(logged[..3], [1, 2, 3]);
        assert_eq!(logged[20..], [1000, 2000, 3000, 4000, 5000]);
    }

    #[test]
    fn a_board_is_reported_behind_only_after_the_patience() {
        let mut lag = Lag::new();
        assert!(lag.check(0, 10_000, [(1, 8, 4), (2, 3, 3)]).is_empty());
        assert!(lag.check(5_000, 10_000, [(1, 8, 4), (2, 3, 3)]).is_empty());
        let behind = lag.check(10_000, 10_000, [(1, 8, 4), (2, 4, 3)]);
        assert_eq!(
            behind,
            [Behind {
                board: 1,
                hall_seq: 8,
                central_seq: 4,
                since_ms: 0
            }]
        );
        // Caught up: forgotten; behind again: the patience starts again.
        assert!(lag.check(11_000, 10_000, [(1, 8, 8)]).is_empty());
        assert!(lag.check(12_000, 10_000, [(1, 9, 8)]).is_empty());
        assert_eq!(lag.check(22_000, 10_000, [(1, 9, 8)]).len(), 1);
    }
}
