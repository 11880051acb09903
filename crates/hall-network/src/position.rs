//! The central's place in one hall's stream. The central keeps what it received in its
//! own file, each line with the stream sequence it had, and that file, not the server's
//! consumer state, says where to go on: a durable consumer acknowledges "everything up
//! to here" (`AckPolicy::All`), so a batch the server handed to a central that died
//! before keeping it (or to a fetch whose connection dropped) would be acknowledged by
//! the next batch's ack and never delivered again. So each time the central (re)makes
//! its consumer it starts it at [`StreamPosition::start`], and it takes a delivered
//! message only when it is the next one ([`StreamPosition::delivered`]): an earlier one
//! is a redelivery, a later one means the consumer skipped some, and the consumer is
//! made again from the position.

/// See the module documentation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamPosition {
    /// The stream sequence of the last message kept (0: none).
    kept: u64,
    /// A consumer was made at [`StreamPosition::start`] and has delivered nothing yet.
    awaiting_first: bool,
}

/// What to do with a delivered message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// The next one: keep it.
    Next,
    /// At or below the position: already kept; acknowledge and drop it.
    Again,
    /// Above the next one: the consumer skipped messages; make it again from
    /// [`StreamPosition::start`] without taking this one.
    Skipped { expected: u64, got: u64 },
    /// The first delivery of a consumer made at the start, past it: the stream holds
    /// none in between (deleted), so there is nothing to wait for; keep it.
    Gone { expected: u64, got: u64 },
}

impl StreamPosition {
    /// The position after the messages of the central's file (their highest sequence).
    pub fn after(kept: u64) -> StreamPosition {
        StreamPosition {
            kept,
            awaiting_first: false,
        }
    }

    /// The stream sequence of the last message kept.
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// The stream sequence a new consumer starts at, given the stream's first and last
    /// sequences now. A stream that holds less than the central kept was made afresh (a
    /// server started without its store, the halls sending everything again under new
    /// sequences): read it from the start, the merge drops what the central already has
    /// by each board's seq. A stream whose first message is past the next one lost the
    /// messages between (an operator purged it): go on from its first.
    pub fn start(&mut self, stream_first: u64, stream_last: u64) -> u64 {
        if stream_last < self.kept {
            self.kept = 0;
        }
        if stream_first > self.kept + 1 {
            self.kept = stream_first - 1;
        }
        self.awaiting_first = true;
        self.kept + 1
    }

    /// A delivered message's stream sequence.
    pub fn delivered(&mut self, stream_seq: u64) -> Delivery {
        let first = std::mem::take(&mut self.awaiting_first);
        let expected = self.kept + 1;
        match stream_seq {
            s if s < expected => Delivery::Again,
            s if s == expected => Delivery::Next,
            got if first => {
                self.kept = got - 1;
                Delivery::Gone { expected, got }
            }
            got => Delivery::Skipped { expected, got },
        }
    }

    /// The message at `stream_seq` (the next one) is kept.
    pub fn keep(&mut self, stream_seq: u64) {
        self.kept = self.kept.max(stream_seq);
    }

    /// Read the stream again from its start (the merge drops what was had).
    pub fn rewind(&mut self) {
        self.kept = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_next_message_is_taken_and_a_skip_is_seen() {
        let mut p = StreamPosition::after(0);
        assert_eq!(p.start(1, 0), 1);
        assert_eq!(p.delivered(1), Delivery::Next);
        p.keep(1);
        assert_eq!(p.delivered(1), Delivery::Again);
        // A batch the server handed to a dead fetch (2..=5) and a new consumer that
        // delivered after it.
        assert_eq!(
            p.delivered(6),
            Delivery::Skipped {
                expected: 2,
                got: 6
            }
        );
        assert_eq!(p.start(1, 9), 2);
    }

    #[test]
    fn a_restarted_central_goes_on_after_its_file_and_a_fresh_stream_is_read_again() {
        let mut p = StreamPosition::after(40);
        assert_eq!(p.start(1, 55), 41);
        assert_eq!(p.delivered(41), Delivery::Next);
        // The server came back without its store: 12 messages under new sequences.
        assert_eq!(p.start(1, 12), 1);
        assert_eq!(p.kept(), 0);
        let mut q = StreamPosition::after(7);
        q.rewind();
        assert_eq!(q.start(1, 7), 1);
    }

    #[test]
    fn messages_gone_from_the_stream_are_not_waited_for() {
        // Purged up to 20: the consumer starts at the stream's first.
        let mut p = StreamPosition::after(5);
        assert_eq!(p.start(21, 30), 21);
        assert_eq!(p.delivered(21), Delivery::Next);
        // Deleted in the middle: a fresh consumer at 8 delivers 11 first; it is taken.
        let mut q = StreamPosition::after(7);
        assert_eq!(q.start(1, 30), 8);
        assert_eq!(
            q.delivered(11),
            Delivery::Gone {
                expected: 8,
                got: 11
            }
        );
        q.keep(11);
        assert_eq!(q.delivered(12), Delivery::Next);
        // Only the first delivery: later, a message past the next one is a skip.
        assert!(matches!(q.delivered(14), Delivery::Skipped { .. }));
    }
}
