//! [`BatchedTracker`]: a [`Tracker`] answered on the caller's thread like
//! [`crate::SyncTracker`], except that its dead-position questions (art. 5.2.2) are
//! settled a batch at a time, from the batch's last position backwards, so that one
//! search answers a run of moves. For replays run as fast as possible (`dgt-arbiter
//! replay --fast`): the events are exactly those of answering every question at once
//! (batch size 0, as `SyncTracker` answers them), in the same order, each tagged with its
//! input's order key ([`BatchedTracker::last_tag`]); they come out when their batch is
//! settled. Timers fire as the daemon's do: each due one as an input of its own, before
//! the next board event.
//!
//! # Why a later proof answers an earlier question
//! After each move the tracker asks whether the side that moved can still mate. If a side
//! can mate from a position `Q` that one legal move `m` leads to from `P` (checked by
//! [`Position::move_reaching`]: `m` is legal in `P` and playing it gives exactly `Q`),
//! then it can mate from `P` too: `m` followed by `Q`'s series of legal moves is a series
//! of legal moves from `P` (art. 5.2.2, 6.9). Along a game, one proof for the batch's last
//! position therefore proves every earlier position of the batch that the game's moves
//! lead to it, with one legality check and one move played each, no search. Only "can
//! mate" is carried back; "cannot mate" and "undetermined" always come from the search
//! of the position itself.
//!
//! # Why the events stay exact
//! To a dead-position answer other than "cannot mate" (`Yes` or `Undetermined`) the
//! tracker does nothing: the game goes on (nor do its timers change). So each such question is answered `Yes` at once,
//! provisionally, and its position kept; the tracker's state just before the batch's
//! first provisional answer is kept (a clone), with every input since, and the events
//! since are held back. Settling the batch:
//! - if every provisional position is proven "can mate" (carried back, or by its own
//!   search) or its search says "undetermined", the answers given were as good as the
//!   real ones: the held events are the ones `SyncTracker` emits, and are released;
//! - if any search says "cannot mate", the tracker is put back to the clone, and every
//!   input since is fed again with every question answered at once (the answers already
//!   searched are reused), the timers fired again as that tracker has them; those events
//!   are released instead.
//!
//! Questions of other purposes (a flag, a second illegal move) are answered at once.

use chess_rules::{CanMate, Color, Position};
use dgt_protocol::board::FieldUpdate;
use dgt_protocol::clock::ClockTime;
use dgt_protocol::{BoardEvent, TimedEvent};

use crate::analysis::{side_index, AnalysisRequest, Analyst, Purpose};
use crate::config::TrackerConfig;
use crate::events::ArbiterEvent;
use crate::tracker::Tracker;

/// How many provisional answers a batch holds before it is settled: a search per side
/// per batch, and a bounded amount of held events and inputs to feed again.
pub const DEFAULT_BATCH: usize = 128;

/// An input to the tracker, kept to be fed again if a batch is undone. A batch logs
/// thousands of them, nearly all field updates and clock frames: those two are kept in
/// their own size (32 bytes a log entry instead of the 88 of the largest board event,
/// whose first touch of fresh memory was a sixth of `replay --fast`'s time). The timers
/// fired before an input are not logged: feeding it again fires the ones due then.
#[derive(Debug, Clone)]
enum Input {
    Field {
        t_ms: u64,
        update: FieldUpdate,
    },
    Clock {
        t_ms: u64,
        time: ClockTime,
    },
    Event(Box<TimedEvent>),
    /// [`BatchedTracker::handle_timeout`]: every timer due by then.
    Timeout(u64),
    Finish(u64),
}

// The log entry's size, as the comment on `Input` says.
const _: () = assert!(std::mem::size_of::<Input>() <= 32);

impl Input {
    /// A board event in the form the log keeps.
    fn logged(ev: TimedEvent) -> Input {
        match ev.event {
            BoardEvent::Field(update) => Input::Field {
                t_ms: ev.t_ms,
                update,
            },
            BoardEvent::Clock(time) => Input::Clock {
                t_ms: ev.t_ms,
                time,
            },
            _ => Input::Event(Box::new(ev)),
        }
    }
}

/// The order key of an input at `t_ms`: `2t`, or `2t + 1` for a timer due then (see
/// [`BatchedTracker::last_tag`]).
pub fn input_tag(t_ms: u64, timer: bool) -> u64 {
    t_ms.saturating_mul(2).saturating_add(u64::from(timer))
}

fn nothing_known(_: &Position, _: Color) -> Option<CanMate> {
    None
}

/// How the questions asked after an input are answered.
#[derive(Clone, Copy)]
enum Answering<'a> {
    /// Dead-position questions provisionally, in a batch (if batches are on).
    Batched,
    /// Every question at once, `known` answers first (feeding an undone batch again).
    Now(&'a dyn Fn(&Position, Color) -> Option<CanMate>),
}

/// A batch not yet settled.
#[derive(Debug, Clone)]
struct Batch {
    /// The tracker before the first provisional answer, its questions not yet answered.
    checkpoint: Box<Tracker>,
    /// The tag of the input that asked the first question.
    first_tag: u64,
    /// Inputs after that one.
    inputs: Vec<Input>,
    /// Events since the checkpoint, held back.
    held: Vec<(u64, ArbiterEvent)>,
    /// The provisionally answered positions and sides, in order.
    provisional: Vec<(Position, Color)>,
}

/// A tracker whose dead-position questions are settled in batches (see the module doc).
#[derive(Debug, Clone)]
pub struct BatchedTracker {
    tracker: Tracker,
    analyst: Analyst,
    /// Provisional answers per batch; 0 answers every question at once.
    batch_size: usize,
    batch: Option<Batch>,
    /// The tag of the last input (see [`BatchedTracker::last_tag`]).
    last_tag: u64,
    /// Events final and not yet taken.
    released: Vec<(u64, ArbiterEvent)>,
    /// The last batch's input log, emptied, for the next (a batch logs thousands of
    /// inputs: growing a fresh log each time cost more than the tracker's work on them).
    spare_inputs: Vec<Input>,
    /// Scratch for the tracker's events.
    out: Vec<ArbiterEvent>,
    /// Batches settled by carrying proofs back, and batches undone.
    pub settled: u64,
    pub undone: u64,
}

impl BatchedTracker {
    /// `batch_size` provisional answers per batch (0: every question answered at once).
    pub fn new(cfg: TrackerConfig, batch_size: usize) -> BatchedTracker {
        BatchedTracker {
            tracker: Tracker::new(cfg),
            analyst: Analyst::new(),
            batch_size,
            batch: None,
            last_tag: 0,
            released: Vec::new(),
            spare_inputs: Vec::new(),
            out: Vec::new(),
            settled: 0,
            undone: 0,
        }
    }

    /// The tracker inside (its state includes the provisional answers).
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The analyst answering the questions.
    pub fn analyst(&self) -> &Analyst {
        &self.analyst
    }

    /// See [`Tracker::poll_timeout`].
    pub fn poll_timeout(&self) -> Option<u64> {
        self.tracker.poll_timeout()
    }

    /// The tag of the last input: the order key its events carry. An input at time `t`
    /// is tagged `2t`, a timer due at `d` `2d + 1` (after the inputs of time `d`, before
    /// the later ones, as [`Tracker::handle`] orders them), never less than the tag
    /// before: a board's events come tagged in their order, and tags of different boards
    /// compare by time.
    pub fn last_tag(&self) -> u64 {
        self.last_tag
    }

    /// Takes one board event; first, each timer due before it fires as an input of its
    /// own (its questions answered before the next), as the daemon's timers fire.
    pub fn handle(&mut self, ev: TimedEvent) {
        self.feed(Input::logged(ev), Answering::Batched);
    }

    /// Time has reached `now_ms`: each timer due by then fires, as in
    /// [`BatchedTracker::handle`].
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.feed(Input::Timeout(now_ms), Answering::Batched);
    }

    /// Whether the open batch is full: the caller settles it ([`BatchedTracker::settle`]).
    pub fn wants_settling(&self) -> bool {
        self.batch
            .as_ref()
            .is_some_and(|b| b.provisional.len() >= self.batch_size)
    }

    /// The input has ended at `t_ms`: the timers left fire, then [`Tracker::finish`].
    pub fn finish(&mut self, t_ms: u64) {
        self.feed(Input::Finish(t_ms), Answering::Batched);
    }

    /// Settles the open batch, if any: afterwards every event so far is released.
    pub fn settle(&mut self) {
        let Some(mut batch) = self.batch.take() else {
            return;
        };
        let answers = self.prove(&batch.provisional);
        if answers.iter().all(|(_, _, a)| *a != CanMate::No) {
            self.settled += 1;
            self.released.append(&mut batch.held);
            batch.inputs.clear();
            self.spare_inputs = batch.inputs;
            return;
        }
        // A position a side cannot mate from: feed everything again, answering at once.
        self.undone += 1;
        self.tracker = *batch.checkpoint;
        let known = |pos: &Position, side: Color| {
            answers
                .iter()
                .find(|(p, s, _)| p == pos && *s == side)
                .map(|(_, _, a)| *a)
        };
        self.last_tag = batch.first_tag;
        self.answer(batch.first_tag, Answering::Now(&known));
        for input in batch.inputs.drain(..) {
            self.feed(input, Answering::Now(&known));
        }
        self.spare_inputs = batch.inputs;
    }

    /// The tag from which events may still be held back (`None`: every event so far is
    /// released).
    pub fn held_from(&self) -> Option<u64> {
        self.batch.as_ref().map(|b| b.first_tag)
    }

    /// Moves the released events, with their inputs' tags, to `into`.
    pub fn take_released(&mut self, into: &mut Vec<(u64, ArbiterEvent)>) {
        into.append(&mut self.released);
    }

    /// The next tag: [`input_tag`], never less than the last.
    fn tag(&mut self, t_ms: u64, timer: bool) -> u64 {
        let tag = input_tag(t_ms, timer).max(self.last_tag);
        self.last_tag = tag;
        tag
    }

    /// Feeds `input` after the timers due before it (every one left, for the end), each
    /// an input of its own; answers the questions after each.
    fn feed(&mut self, input: Input, answering: Answering) {
        let due = |d: u64| match &input {
            Input::Field { t_ms, .. } | Input::Clock { t_ms, .. } => d < *t_ms,
            Input::Event(ev) => d < ev.t_ms,
            Input::Timeout(now) => d <= *now,
            Input::Finish(_) => true,
        };
        let mut fired = None;
        while let Some(d) = self.tracker.poll_timeout().filter(|&d| due(d)) {
            // A timer that did not clear is left to the input's own handling.
            if fired.is_some_and(|f| d <= f) {
                break;
            }
            fired = Some(d);
            let tag = self.tag(d, true);
            self.tracker.handle_timeout(d, &mut self.out);
            self.after_input(tag, None, answering);
        }
        let tag = match &input {
            Input::Field { t_ms, .. } | Input::Clock { t_ms, .. } => self.tag(*t_ms, false),
            Input::Event(ev) => self.tag(ev.t_ms, false),
            // Its timers have fired: nothing more to feed, but the log keeps it, so that
            // feeding the batch again fires the timers due then.
            Input::Timeout(_) => {
                if let (Some(b), Answering::Batched) = (&mut self.batch, answering) {
                    b.inputs.push(input);
                }
                return;
            }
            Input::Finish(t) => self.tag(*t, false),
        };
        self.apply(&input);
        self.after_input(tag, Some(input), answering);
    }

    /// After input `tag` was fed: its events held or released, the input itself (`logged`)
    /// kept while a batch is open, and the tracker's questions answered.
    fn after_input(&mut self, tag: u64, logged: Option<Input>, answering: Answering) {
        match (&mut self.batch, answering) {
            (Some(b), Answering::Batched) => {
                b.held.extend(self.out.drain(..).map(|e| (tag, e)));
                if let Some(input) = logged {
                    b.inputs.push(input);
                }
            }
            _ => self.released.extend(self.out.drain(..).map(|e| (tag, e))),
        }
        self.answer(tag, answering);
    }

    fn apply(&mut self, input: &Input) {
        match input {
            Input::Field { t_ms, update } => self.tracker.handle(
                &TimedEvent {
                    t_ms: *t_ms,
                    event: BoardEvent::Field(*update),
                },
                &mut self.out,
            ),
            Input::Clock { t_ms, time } => self.tracker.handle(
                &TimedEvent {
                    t_ms: *t_ms,
                    event: BoardEvent::Clock(*time),
                },
                &mut self.out,
            ),
            Input::Event(ev) => self.tracker.handle(ev, &mut self.out),
            Input::Timeout(t) => self.tracker.handle_timeout(*t, &mut self.out),
            Input::Finish(t) => self.tracker.finish(*t, &mut self.out),
        }
    }

    /// Answers what the tracker asks after input `tag`: dead-position questions
    /// provisionally (opening a batch), the others at once; or all at once.
    fn answer(&mut self, tag: u64, answering: Answering) {
        let known = match answering {
            Answering::Now(known) => known,
            Answering::Batched if self.batch_size == 0 => &nothing_known,
            Answering::Batched => {
                self.answer_provisionally(tag);
                return;
            }
        };
        self.answer_now(tag, known);
    }

    fn answer_provisionally(&mut self, tag: u64) {
        let checkpoint = self.batch.is_none()
            && self
                .tracker
                .pending_analyses()
                .any(|r| r.purpose == Purpose::DeadPosition);
        if checkpoint {
            self.batch = Some(Batch {
                checkpoint: Box::new(self.tracker.clone()),
                first_tag: tag,
                inputs: std::mem::take(&mut self.spare_inputs),
                held: Vec::new(),
                provisional: Vec::new(),
            });
        }
        while let Some(req) = self.tracker.poll_analysis() {
            let answer = match (&mut self.batch, req.purpose) {
                (Some(b), Purpose::DeadPosition) => {
                    b.provisional.push((req.position, req.side));
                    CanMate::Yes
                }
                _ => self.analyst.answer(&req),
            };
            self.tracker.analysis_done(req.id, answer, &mut self.out);
        }
        match &mut self.batch {
            Some(b) => b.held.extend(self.out.drain(..).map(|e| (tag, e))),
            None => self.released.extend(self.out.drain(..).map(|e| (tag, e))),
        }
    }

    /// Answers every question at once, as [`crate::SyncTracker`] does (`known` first),
    /// and releases the events.
    fn answer_now(&mut self, tag: u64, known: &dyn Fn(&Position, Color) -> Option<CanMate>) {
        while let Some(req) = self.tracker.poll_analysis() {
            let answer = match req.purpose {
                Purpose::DeadPosition => known(&req.position, req.side),
                _ => None,
            }
            .unwrap_or_else(|| self.analyst.answer(&req));
            self.tracker.analysis_done(req.id, answer, &mut self.out);
        }
        self.released.extend(self.out.drain(..).map(|e| (tag, e)));
    }

    /// The real answer to every provisional question, last first, as far as needed: a
    /// "can mate" carried back from the next position where one move leads there (see the
    /// module doc), else the position's own search. A "cannot mate" does not stop it: the
    /// batch will be undone, and feeding it again reuses these answers (a game that went
    /// dead is searched back to its last position a side could mate from, then carried).
    fn prove(&mut self, provisional: &[(Position, Color)]) -> Vec<(Position, Color, CanMate)> {
        let mut answers = Vec::with_capacity(provisional.len());
        // Per side: a position later in the batch proven "can mate", which the game's
        // moves since the current position lead to.
        let mut proven = [false; 2];
        let mut next: Option<&Position> = None;
        for (pos, side) in provisional.iter().rev() {
            if let Some(later) = next {
                if later == pos {
                    // The same position asked again: what holds there holds here.
                } else if pos.move_reaching(later).is_none() {
                    proven = [false; 2];
                }
            }
            next = Some(pos);
            let answer = self.proven_or_searched(&mut proven, pos, *side);
            answers.push((*pos, *side, answer));
            if answer == CanMate::No {
                // The tracker then asks about the other side, here: answer that too, for
                // feeding the batch again.
                let other = side.opponent();
                let answer = self.proven_or_searched(&mut proven, pos, other);
                answers.push((*pos, other, answer));
            }
        }
        answers
    }

    /// `Yes` if a later position proven for `side` is reached from here (`proven`), else
    /// the analyst's answer; keeps `proven` up to date for the positions before.
    fn proven_or_searched(
        &mut self,
        proven: &mut [bool; 2],
        pos: &Position,
        side: Color,
    ) -> CanMate {
        let i = side_index(side);
        let answer = if proven[i] {
            CanMate::Yes
        } else {
            self.analyst.answer(&AnalysisRequest {
                id: 0,
                position: *pos,
                side,
                purpose: Purpose::DeadPosition,
            })
        };
        proven[i] = answer == CanMate::Yes;
        answer
    }
}
