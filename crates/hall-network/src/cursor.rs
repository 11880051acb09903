//! The hall's backlog cursor. A hall publishes its round's log (every event of every
//! board, as the hub holds it: regenerated from the journals at a restart with the same
//! seq) and must get each event into its stream once, in order per board, whatever
//! happens to the link: the server may be down at start, vanish mid-publish, or come
//! back with or without its store.
//!
//! [`Backlog`] keeps, per board, the highest seq the server has acknowledged (a
//! JetStream publish ack means stored). On (re)connecting the hall tells it what the
//! stream already holds ([`Backlog::stored`], from the stream's last message per board
//! that is the hall's own, [`crate::own_message`]: a sound cursor because the hall
//! chains its publishes, each naming what it must follow ([`crate::Chain`]), so the
//! server never stores one past a lost one),
//! then sends every event above that, in log order ([`Backlog::to_send`]); acks move the
//! cursor ([`Backlog::acked`]). A failed publish is never skipped: the next pass resends
//! from the first unacknowledged event, with the same message id, so a copy the server
//! did store is dropped by its duplicate window, and the central drops any copy beyond
//! it by seq.

use std::collections::BTreeMap;

/// See the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backlog {
    acked: BTreeMap<u32, u64>,
}

impl Backlog {
    pub fn new() -> Backlog {
        Backlog::default()
    }

    /// The stream holds board `board`'s events up to `seq` (its last message's seq; 0
    /// for none), as read from the server after (re)connecting. The stream is the truth:
    /// a server that lost its store (started afresh) gets everything again.
    pub fn stored(&mut self, board: u32, seq: u64) {
        self.acked.insert(board, seq);
    }

    /// The server acknowledged board `board`'s event `seq`. Acks of a board arrive in
    /// order; an ack above a gap (an earlier event not acknowledged) does not move the
    /// cursor past the gap.
    pub fn acked(&mut self, board: u32, seq: u64) {
        let a = self.acked.entry(board).or_insert(0);
        if seq == *a + 1 {
            *a = seq;
        }
    }

    /// The highest seq of board `board` known stored.
    pub fn acked_seq(&self, board: u32) -> u64 {
        self.acked.get(&board).copied().unwrap_or(0)
    }

    /// The indexes (into `log`, a list of `(board, seq)` in publication order) of the
    /// events to send, in order: per board, from the first seq not known stored.
    pub fn to_send(&self, log: &[(u32, u64)]) -> Vec<usize> {
        log.iter()
            .enumerate()
            .filter(|(_, (board, seq))| *seq > self.acked_seq(*board))
            .map(|(i, _)| i)
            .collect()
    }

    /// True when every event of `log` is known stored.
    pub fn caught_up(&self, log: &[(u32, u64)]) -> bool {
        log.iter().all(|(b, s)| *s <= self.acked_seq(*b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_hall_sends_everything_in_log_order() {
        let log = [(1, 1), (2, 1), (1, 2), (2, 2)];
        let b = Backlog::new();
        assert_eq!(b.to_send(&log), vec![0, 1, 2, 3]);
        assert!(!b.caught_up(&log));
    }

    #[test]
    fn a_restarted_hall_sends_only_what_the_stream_lacks() {
        // The log regenerated from the journals: the stream had board 1 to 2, board 2 to 1.
        let log = [(1, 1), (2, 1), (1, 2), (2, 2), (1, 3)];
        let mut b = Backlog::new();
        b.stored(1, 2);
        b.stored(2, 1);
        assert_eq!(b.to_send(&log), vec![3, 4]);
        b.acked(2, 2);
        b.acked(1, 3);
        assert!(b.caught_up(&log));
        assert!(b.to_send(&log).is_empty());
    }

    #[test]
    fn a_lost_ack_is_resent_and_nothing_after_it_is_skipped() {
        let log = [(1, 1), (1, 2), (1, 3)];
        let mut b = Backlog::new();
        b.acked(1, 1);
        // The ack of 2 was lost with the link; 3's came.
        b.acked(1, 3);
        assert_eq!(b.acked_seq(1), 1);
        assert_eq!(b.to_send(&log), vec![1, 2]);
        // A stream that lost its store (a server started afresh) gets everything again.
        b.stored(1, 0);
        assert_eq!(b.to_send(&log), vec![0, 1, 2]);
    }
}
