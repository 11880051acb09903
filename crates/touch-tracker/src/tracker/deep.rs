//! The deep reconnect search, run at a press while the board is out of sync: a gap longer
//! than the cheap search's four plies (a cable out for a few moves, a daemon down) rebuilt
//! from the squares, so play is followed again without the arbiter. Only at a press: the
//! press names who just completed a move (so only lines of that parity can be what
//! happened), and the mover's hands are off the board (a piece in the air would be
//! explained away as a capture). What a line rebuilt this far cannot tell (whether a king
//! or rook moved and came back, which pawn move came last) is kept as a doubt: a later
//! press that only such a doubt could make legal is never ruled (see
//! [`Tracker::doubt_explains`]).

use chess_rules::{
    CastlingRights, Classification, Color, Move, Placement, Position, Rank, Role, Square,
};

use super::proof::{self, ClockMark, Unproven};
use super::{accept::rights_still_possible, How, PendingPress, Phase, Tracker};
use crate::clock::SideSource;
use crate::events::{ArbiterEvent, BoardStatus, BoardStatusEvent, ClockMs, EventKind};
use crate::recover;

/// The squares a board showed when it came back out of sync, and the deep search's answer
/// for them by the side to move it was asked with. A press comes a move (or a few) after
/// the board came back; searching the gap's own squares, then the few moves since with
/// the cheap search, reaches lines one search to the board as it is now cannot afford.
#[derive(Debug, Clone)]
pub(super) struct GapDump {
    placement: Placement,
    /// Indexed by the side to move after the line (White, Black): `None` not asked yet,
    /// `Some(None)` nothing found within [`recover::GAP_NODES`].
    found: [Option<Option<recover::LostMoves>>; 2],
}

impl GapDump {
    pub(super) fn new(placement: Placement) -> GapDump {
        GapDump {
            placement,
            found: [None, None],
        }
    }
}

/// What the deep search at a press did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DeepSearch {
    /// A line was recorded and the board is in sync.
    Adopted,
    /// Lines were found but none is proven (see `proof.rs`): the board is out of sync with
    /// them as candidates for the arbiter.
    Asked,
    /// Nothing explains the board within [`recover::DEEP_PLIES`] plies and the budget.
    NothingFound,
    /// Not run (clock sides unknown, a piece possibly in a hand, the line down).
    NotRun,
}

impl DeepSearch {
    /// The plies the searches looked ahead, for the arbiter's out-of-sync detail.
    pub(super) fn plies_searched(self) -> usize {
        match self {
            DeepSearch::NothingFound => recover::DEEP_PLIES,
            _ => recover::MAX_PLIES,
        }
    }
}

/// What a rebuilt line may have got wrong that a ruling depends on.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RebuiltDoubt {
    /// Castling rights the line gave up that the real moves may have kept (a line can
    /// move the king or a rook away and back where the game did not).
    pub castling: CastlingRights,
    /// Squares the opponent may capture en passant on his first move after the line: the
    /// mover's last move may have been any double step his pawns show, whatever order
    /// the line put them in.
    pub en_passant: [Option<Square>; 8],
    /// The ply the line ends on: the en passant doubt holds only for the move after it.
    pub line_end_ply: u32,
}

impl RebuiltDoubt {
    /// The doubt a line from `base` to `after` leaves, for the placement `now` it explains.
    pub(super) fn of_line(base: &Position, after: &Position, now: &Placement) -> RebuiltDoubt {
        RebuiltDoubt {
            castling: rights_still_possible(base, now).difference(after.castling()),
            en_passant: double_steps_shown(base, now, after.side_to_move().opponent()),
            line_end_ply: after.plies(),
        }
    }
}

impl Tracker {
    /// Out of sync (or a gap not yet confirmed) and the board does not explain the press
    /// `p`: the lost moves are searched for up to [`recover::DEEP_PLIES`] plies, within
    /// [`recover::DEEP_NODES`] positions (counted, so a replay of the journal finds the
    /// same), among lines after which the presser's opponent is to move. A line found is
    /// recorded (the last move completed by this press) only when it is proven: the one
    /// line of its length, and short or of the length the clock's presses count (lines
    /// with a wasted tempo are not searched for, so one line found is not proof there is
    /// no other; see `proof.rs`); the board is then in sync again. Otherwise it stays out
    /// of sync with the lines as candidates for the arbiter. Adopts nothing when the
    /// clock's sides are not known, a piece may be in a hand, nothing explains the board
    /// within the bound, or the budget ran out; the answer then says how far the searches
    /// looked, for the arbiter.
    pub(super) fn recover_at_press(
        &mut self,
        t: u64,
        p: PendingPress,
        out: &mut Vec<ArbiterEvent>,
    ) -> DeepSearch {
        if self.line_down
            || self.piece_in_air
            || !matches!(self.phase, Phase::Playing)
            || self.clock.source() < SideSource::ClockStart
        {
            return DeepSearch::NotRun;
        }
        let base = *self.game.position();
        let to_move = p.presser.opponent();
        // A move seen made before the events were lost begins the line, when one does.
        let seen_first = self.made.map(|m| m.mv);
        let found = match recover::lost_moves_to(
            &base,
            &self.placement,
            recover::DEEP_PLIES,
            seen_first,
            to_move,
            recover::DEEP_NODES,
        ) {
            Ok(Some(found)) => found,
            Ok(None) | Err(recover::Exhausted) => {
                match self.through_gap_dump(&base, seen_first, to_move) {
                    Some(found) => found,
                    None => return DeepSearch::NothingFound,
                }
            }
        };
        // The press completes the line's last move: the presses up to it are the line's.
        let presses = self.presses_to(&base, p.at, p.clock);
        let unseen = found.line.len();
        if let Err(why) = proof::judge(&found, unseen, presses) {
            self.ask_arbiter(t, &base, &found, &why, out);
            // Several orders of the same moves, of a proven length: the record waits for
            // the arbiter, the game is followed from the position they all lead to.
            if why == Unproven::Several
                && proof::length_proven(unseen, unseen, presses).is_ok()
                && self.follow_unordered(t, &base, &found, out)
            {
                return DeepSearch::Adopted;
            }
            return DeepSearch::Asked;
        }
        self.pending_recovery = None;
        self.in_sync(t, out);
        let Some(last) = self.record_lost_lines(t, &base, found, None, out) else {
            return DeepSearch::Adopted;
        };
        let how = How {
            recovered: true,
            ..How::pressed(p.clock)
        };
        self.record_now(t, last, how, out);
        DeepSearch::Adopted
    }

    /// A clock frame came (at `t`): kept as the mark presses are counted from when the game
    /// is known and the clock runs for its side to move (see [`ClockMark`]).
    pub(super) fn note_clock_frame(&mut self, t: u64) {
        self.evidence.last_frame_ms = t;
        let known = matches!(self.phase, Phase::Playing)
            && !self.line_down
            && !self.desynced
            && !self.gap_open
            && self.pending_press.is_none()
            && self.pending_recovery.is_none();
        let Some(c) = self.clock.last().filter(|c| c.running && known) else {
            return;
        };
        let pos = self.game.position();
        if self.clock.color_of(c.lever) != pos.side_to_move() {
            return;
        }
        if let Some(times) = self.clock.times() {
            self.evidence.mark = Some(ClockMark {
                t_ms: t,
                times,
                ply: pos.plies(),
            });
        }
    }

    /// The presses the clock allows between the last known position `base` and a frame at
    /// `t` showing `times` (see [`proof::presses_since`]); `None` when it cannot count
    /// them (no mark at `base`, no increment, the times of a clock paused or set).
    pub(super) fn presses_to(
        &self,
        base: &Position,
        t: u64,
        times: Option<ClockMs>,
    ) -> Option<(u32, u32)> {
        let mark = self.evidence.mark.filter(|m| m.ply == base.plies())?;
        let increment_ms = u64::from(self.time_control?.first_increment_secs()) * 1000;
        proof::presses_since(&mark, t, times?, increment_ms, self.cfg.time_scale)
    }

    /// Lines explain the board but none is proven: out of sync (no ruling, nothing
    /// recorded), with the lines as candidates for the arbiter to pick or type (issue 36).
    /// Said again when the candidates change (the players went on).
    pub(super) fn ask_arbiter(
        &mut self,
        t: u64,
        base: &Position,
        found: &recover::LostMoves,
        why: &Unproven,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let candidates = proof::candidates(base, found);
        if self.desynced && self.evidence.shown == candidates {
            return;
        }
        self.desynced = true;
        self.pending_press = None;
        self.quiet_deadline = None;
        let detail = format!(
            "last known position: ply {} ({} to move, {}); {}; the lines found are listed \
             for the arbiter to pick, or he types the moves or accepts the board as the \
             position; nothing is recorded and no ruling on this board until then",
            base.plies(),
            base.side_to_move(),
            base.fen(),
            why.words(found.line.len()),
        );
        self.evidence.shown = candidates.clone();
        self.emit(
            out,
            t,
            EventKind::BoardStatus(BoardStatusEvent {
                status: BoardStatus::OutOfSync,
                detail: Some(detail),
                candidates,
            }),
        );
    }

    /// The line through the squares the board showed when it came back: the gap's own
    /// lines from `base` (searched once for each side to move, within
    /// [`recover::GAP_NODES`]), continued by up to [`recover::MAX_PLIES`] plies to the board
    /// as it is now, ending with `to_move` to move. Tried with the side the press names
    /// first (one move since the board came back), then the other.
    fn through_gap_dump(
        &mut self,
        base: &Position,
        seen_first: Option<Move>,
        to_move: Color,
    ) -> Option<recover::LostMoves> {
        let dump = self.gap_dump.as_mut()?;
        for at_dump in [to_move.opponent(), to_move] {
            let slot = &mut dump.found[usize::from(at_dump == Color::Black)];
            let gap = slot.get_or_insert_with(|| {
                recover::lost_moves_to(
                    base,
                    &dump.placement,
                    recover::DEEP_PLIES,
                    seen_first,
                    at_dump,
                    recover::GAP_NODES,
                )
                .ok()
                .flatten()
            });
            let Some(gap) = gap else { continue };
            let line = if dump.placement == self.placement {
                // No move since the board came back (the press completes the gap's last).
                Some(gap.clone())
            } else {
                recover::extend(base, gap, &self.placement)
            };
            let Some(line) = line else { continue };
            let ends_with = if line.line.len() % 2 == 0 {
                base.side_to_move()
            } else {
                base.side_to_move().opponent()
            };
            if ends_with == to_move {
                return Some(line);
            }
        }
        None
    }

    /// A press the board does not explain, after a rebuilt line: true when the board is a
    /// legal move from the position as the line's doubt allows it (a castling the real
    /// moves may have kept the right to, an en passant capture of a double step the line
    /// played earlier): then the press is not ruled, the board goes out of sync instead.
    pub(super) fn doubt_explains(&self, lifted: &[Square]) -> bool {
        let Some(doubt) = self.rebuilt_doubt else {
            return false;
        };
        let pos = self.game.position();
        let castling = pos.castling().union(
            doubt
                .castling
                .intersection(rights_still_possible(pos, pos.placement())),
        );
        let with = |ep: Option<Square>| {
            chess_rules::castling::position_like(
                pos,
                *pos.placement(),
                pos.side_to_move(),
                castling,
                ep,
                (pos.halfmove_clock(), pos.fullmove_number()),
            )
            .ok()
        };
        let en_passant = (pos.plies() == doubt.line_end_ply).then_some(doubt.en_passant);
        std::iter::once(None)
            .chain(en_passant.iter().flatten().flatten().map(|&sq| Some(sq)))
            .filter_map(with)
            .any(|p| {
                matches!(
                    p.classify(&self.placement, lifted),
                    Classification::Legal(_)
                )
            })
    }
}

/// The squares behind the mover's pawns that stand on his fourth rank now and on his
/// second in `base` of the same file with the square between empty: a double step the
/// real game may have played last, whatever the rebuilt line says.
fn double_steps_shown(base: &Position, now: &Placement, mover: Color) -> [Option<Square>; 8] {
    let (second, third, fourth) = match mover {
        Color::White => (Rank::Second, Rank::Third, Rank::Fourth),
        Color::Black => (Rank::Seventh, Rank::Sixth, Rank::Fifth),
    };
    let pawn = Some(chess_rules::Piece::new(mover, Role::Pawn));
    let mut out = [None; 8];
    for (slot, file) in out.iter_mut().zip(chess_rules::File::ALL) {
        let at = |rank| Square::new(file, rank);
        if base.placement().get(at(second)) == pawn
            && now.get(at(second)).is_none()
            && now.get(at(third)).is_none()
            && now.get(at(fourth)) == pawn
        {
            *slot = Some(at(third));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(from: &Position, ucis: &[&str]) -> Position {
        ucis.iter()
            .fold(*from, |p, u| p.play(p.parse_uci(u).unwrap()).unwrap())
    }

    #[test]
    fn a_rebuilt_line_doubts_the_rights_it_gave_up_and_the_double_steps_it_reordered() {
        let base = line(&Position::start(), &["e2e4", "e7e5"]);
        // The rook went out and back: the board shows it home, so the real game may have
        // kept the right the line lost; d2-d4 then Nf3 (or the other order).
        let after = line(
            &base,
            &["d2d4", "b8c6", "g1f3", "c6b8", "h1g1", "b8c6", "g1h1"],
        );
        let doubt = RebuiltDoubt::of_line(&base, &after, after.placement());
        assert!(doubt
            .castling
            .has(Color::White, chess_rules::CastleSide::KingSide));
        assert!(!doubt
            .castling
            .has(Color::White, chess_rules::CastleSide::QueenSide));
        assert!(!doubt
            .castling
            .has(Color::Black, chess_rules::CastleSide::KingSide));
        // The last mover is White (his pawn on d4 from d2): d3 may be capturable.
        assert_eq!(after.side_to_move(), Color::Black);
        let d3: Square = "d3".parse().unwrap();
        assert_eq!(doubt.en_passant.iter().flatten().collect::<Vec<_>>(), [&d3]);
        assert_eq!(doubt.line_end_ply, after.plies());
        // A line that kept everything leaves no castling doubt.
        let kept = line(&base, &["d2d4", "b8c6", "g1f3"]);
        let none = RebuiltDoubt::of_line(&base, &kept, kept.placement());
        assert!(none.castling.is_empty());
    }
}
