//! The central's merge of every hall's stream. Board numbers are event-wide (`number` in
//! each hall's config); each board belongs to one hall. Per board the central applies
//! events in seq order, each once: a redelivery (a consumer that replays after a central
//! restart, a hall that republished beyond the server's duplicate window) is dropped by
//! seq, and an event that arrives ahead of a missing one (a publish that failed and was
//! resent after a later one was stored) waits for it.

use std::collections::BTreeMap;

use crate::envelope::{Envelope, Manifest};
use crate::names::HallId;

/// A merge that cannot be made, or a message that does not fit it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("board {board} is configured in hall {first} and in hall {second}: board numbers are event-wide, give each board one number in one hall's config")]
    DuplicateBoard {
        board: u32,
        first: HallId,
        second: HallId,
    },
    #[error("hall {hall} sent an event of board {board}, which is {}", match .owner { Some(o) => format!("hall {o}'s"), None => "in no hall's manifest".to_owned() })]
    NotHallsBoard {
        board: u32,
        hall: HallId,
        owner: Option<HallId>,
    },
}

/// What became of an accepted envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accepted {
    /// Apply these, in this order (the envelope, and any that waited for it).
    Apply(Vec<Envelope>),
    /// Already applied (seq at or below the board's last).
    Duplicate,
    /// Ahead of a missing event of its board: kept until that one comes.
    Held,
    /// Of another round than the central's.
    OtherRound,
}

/// See the module documentation.
#[derive(Debug, Clone, Default)]
pub struct Merge {
    round: u32,
    owner: BTreeMap<u32, HallId>,
    last: BTreeMap<u32, u64>,
    held: BTreeMap<u32, BTreeMap<u64, Envelope>>,
}

impl Merge {
    /// The merge of these halls' boards for `round`; every board claimed twice is an
    /// error (all of them are reported).
    pub fn new<'a>(
        round: u32,
        manifests: impl IntoIterator<Item = &'a Manifest>,
    ) -> Result<Merge, Vec<MergeError>> {
        let mut merge = Merge {
            round,
            ..Merge::default()
        };
        let mut errors = Vec::new();
        for m in manifests {
            for &b in &m.boards {
                match merge.owner.get(&b) {
                    Some(first) if *first != m.hall => errors.push(MergeError::DuplicateBoard {
                        board: b,
                        first: first.clone(),
                        second: m.hall.clone(),
                    }),
                    Some(_) => {}
                    None => {
                        merge.owner.insert(b, m.hall.clone());
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(merge)
        } else {
            Err(errors)
        }
    }

    /// The hall a board belongs to.
    pub fn hall_of(&self, board: u32) -> Option<&HallId> {
        self.owner.get(&board)
    }

    /// Every board with its hall, in number order.
    pub fn boards(&self) -> impl Iterator<Item = (u32, &HallId)> {
        self.owner.iter().map(|(b, h)| (*b, h))
    }

    /// The last seq applied of a board.
    pub fn last(&self, board: u32) -> u64 {
        self.last.get(&board).copied().unwrap_or(0)
    }

    /// How many events wait for a missing one, over all boards.
    pub fn held(&self) -> usize {
        self.held.values().map(BTreeMap::len).sum()
    }

    /// How many events of hall `hall`'s boards wait for a missing one.
    pub fn held_by(&self, hall: &HallId) -> usize {
        self.held
            .iter()
            .filter(|(b, _)| self.owner.get(b) == Some(hall))
            .map(|(_, w)| w.len())
            .sum()
    }

    /// True when [`Merge::accept`] would apply or hold `e` (it is of this round, of its
    /// hall's board, and neither applied nor waiting yet): what the central must keep in
    /// its file before it acknowledges; a copy of what it has is not kept twice.
    pub fn is_new(&self, e: &Envelope) -> bool {
        self.owner.get(&e.board) == Some(&e.hall)
            && e.round == self.round
            && e.seq > self.last(e.board)
            && !self
                .held
                .get(&e.board)
                .is_some_and(|w| w.contains_key(&e.seq))
    }

    /// Takes one envelope from a hall's stream (or from the central's own journal).
    pub fn accept(&mut self, e: Envelope) -> Result<Accepted, MergeError> {
        match self.owner.get(&e.board) {
            Some(h) if *h == e.hall => {}
            owner => {
                return Err(MergeError::NotHallsBoard {
                    board: e.board,
                    hall: e.hall,
                    owner: owner.cloned(),
                })
            }
        }
        if e.round != self.round {
            return Ok(Accepted::OtherRound);
        }
        let board = e.board;
        let last = self.last.entry(board).or_insert(0);
        if e.seq <= *last {
            return Ok(Accepted::Duplicate);
        }
        if e.seq > *last + 1 {
            self.held.entry(board).or_default().insert(e.seq, e);
            return Ok(Accepted::Held);
        }
        *last = e.seq;
        let mut out = vec![e];
        if let Some(waiting) = self.held.get_mut(&board) {
            while let Some(next) = waiting.remove(&(*last + 1)) {
                *last = next.seq;
                out.push(next);
            }
            // Copies of what was just applied.
            waiting.retain(|s, _| *s > *last);
        }
        Ok(Accepted::Apply(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::tests::envelope;

    fn manifest(hall: &str, boards: &[u32]) -> Manifest {
        Manifest {
            v: 1,
            hall: HallId::new(hall).unwrap(),
            round: 3,
            boards: boards.to_vec(),
            board_tables: String::new(),
        }
    }

    fn seqs(a: Accepted) -> Vec<u64> {
        match a {
            Accepted::Apply(v) => v.iter().map(|e| e.seq).collect(),
            other => panic!("not applied: {other:?}"),
        }
    }

    #[test]
    fn each_event_is_applied_once_in_seq_order() {
        let m = [manifest("A", &[1, 2]), manifest("B", &[3])];
        let mut merge = Merge::new(3, &m).unwrap();
        assert_eq!(merge.hall_of(3).unwrap().as_str(), "B");
        assert_eq!(seqs(merge.accept(envelope("A", 1, 1)).unwrap()), [1]);
        assert_eq!(
            merge.accept(envelope("A", 1, 1)).unwrap(),
            Accepted::Duplicate
        );
        assert!(!merge.is_new(&envelope("A", 1, 1)));
        // 3 before 2 (2's publish failed and was resent): 3 waits.
        assert!(merge.is_new(&envelope("A", 1, 3)));
        assert_eq!(merge.accept(envelope("A", 1, 3)).unwrap(), Accepted::Held);
        assert!(!merge.is_new(&envelope("A", 1, 3)));
        assert_eq!(merge.accept(envelope("A", 1, 3)).unwrap(), Accepted::Held);
        assert_eq!(merge.held(), 1);
        assert_eq!(merge.held_by(&HallId::new("A").unwrap()), 1);
        assert_eq!(merge.held_by(&HallId::new("B").unwrap()), 0);
        assert!(merge.is_new(&envelope("A", 1, 2)));
        assert_eq!(seqs(merge.accept(envelope("A", 1, 2)).unwrap()), [2, 3]);
        assert_eq!(merge.held(), 0);
        assert_eq!(
            merge.accept(envelope("A", 1, 3)).unwrap(),
            Accepted::Duplicate
        );
        assert_eq!(merge.last(1), 3);
        // Boards are independent.
        assert_eq!(seqs(merge.accept(envelope("B", 3, 1)).unwrap()), [1]);
        assert_eq!(merge.last(2), 0);
        let mut other = envelope("A", 2, 1);
        other.round = 2;
        assert!(!merge.is_new(&other));
        assert_eq!(merge.accept(other).unwrap(), Accepted::OtherRound);
        assert!(!merge.is_new(&envelope("B", 1, 9)), "not B's board");
    }

    #[test]
    fn a_board_in_two_halls_is_a_config_error_naming_both() {
        let m = [manifest("A", &[1, 2, 5]), manifest("B", &[2, 3, 5])];
        let errors = Merge::new(3, &m).unwrap_err();
        assert_eq!(errors.len(), 2);
        let text = errors[0].to_string();
        assert!(
            text.contains("board 2") && text.contains("hall A") && text.contains("hall B"),
            "{text}"
        );
    }

    #[test]
    fn a_hall_cannot_speak_for_another_halls_board() {
        let m = [manifest("A", &[1]), manifest("B", &[2])];
        let mut merge = Merge::new(3, &m).unwrap();
        let e = merge.accept(envelope("B", 1, 1)).unwrap_err();
        assert!(e.to_string().contains("hall A's"), "{e}");
        let e = merge.accept(envelope("B", 9, 1)).unwrap_err();
        assert!(e.to_string().contains("no hall's manifest"), "{e}");
    }
}
