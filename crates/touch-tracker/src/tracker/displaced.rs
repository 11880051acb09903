//! Pieces knocked over with a recorded move (art. 7.4) until they are re-established: the
//! squares still to be set right, followed through field updates and dumps, and the
//! `displaced` event's `reestablished` once every one is.

use chess_rules::Square;

use super::Tracker;
use crate::events::{ArbiterEvent, EventKind};

impl Tracker {
    /// A square of a displaced piece (art. 7.4) changed to `new`: the piece put back (or
    /// lifted off the square it was knocked onto) is no change of the position, only of
    /// what is pending; `true` then. Anything else put there ends the wait for it.
    pub(super) fn on_displaced_square(
        &mut self,
        t: u64,
        sq: Square,
        new: Option<chess_rules::Piece>,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        let Some(d) = &mut self.displaced else {
            return false;
        };
        let Some(i) = d.pending.iter().position(|s| s.square() == sq) else {
            return false;
        };
        let (wanted, displaced_state) = match d.pending[i] {
            chess_rules::RestoreStep::Put { piece, .. } => (Some(piece), None),
            chess_rules::RestoreStep::Remove { piece, .. } => (None, Some(piece)),
        };
        let absorbed = if new == wanted {
            d.pending.remove(i);
            true
        } else if new == displaced_state {
            true
        } else {
            // Something else on that square: the board shows it as it is from now on.
            d.pending.remove(i);
            d.spoiled = true;
            let view = if displaced_state.is_some() {
                None
            } else {
                wanted
            };
            self.placement.set(sq, view);
            self.recount();
            false
        };
        self.displaced_done(t, out);
        absorbed
    }

    /// After a dump: each displaced piece is re-established, still displaced, or its
    /// square shows something else.
    pub(super) fn displaced_after_dump(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Some(d) = &mut self.displaced else {
            return;
        };
        let board = self.placement;
        d.pending.retain(|s| match *s {
            chess_rules::RestoreStep::Put { square, piece } => match board.get(square) {
                Some(p) if p == piece => false,
                None => {
                    self.placement.set(square, Some(piece));
                    true
                }
                Some(_) => {
                    d.spoiled = true;
                    false
                }
            },
            chess_rules::RestoreStep::Remove { square, piece } => match board.get(square) {
                None => false,
                Some(p) if p == piece => {
                    self.placement.set(square, None);
                    true
                }
                Some(_) => {
                    d.spoiled = true;
                    false
                }
            },
        });
        self.displaced_done(t, out);
    }

    /// Every displaced piece is back: say so (once).
    pub(super) fn displaced_done(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        if self
            .displaced
            .as_ref()
            .is_some_and(|d| d.pending.is_empty())
        {
            if let Some(d) = self.displaced.take() {
                if !d.spoiled {
                    let event = crate::events::DisplacedEvent {
                        reestablished: true,
                        ..d.event
                    };
                    self.emit(out, t, EventKind::Displaced(event));
                }
            }
        }
    }
}
