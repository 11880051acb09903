//! [`BatchedTracker`]: a [`Tracker`] answered on the caller's thread like
//! [`crate::SyncTracker`], except that its dead-position questions (art. 5.2.2) are
//! settled a batch at a time, from the batch's last position backwards, so that one
//! search answers a run of moves. For replays run as fast as possible (`dgt-arbiter
//! replay --fast`): the events are exactly those `SyncTracker` emits, in the same order,
//! each tagged with the caller's sequence number of the input it came from; they come out
//! when their batch is settled.
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
//! tracker does nothing: the game goes on. So each such question is answered `Yes` at once,
//! provisionally, and its position kept; the tracker's state just before the batch's
//! first provisional answer is kept (a clone), with every input since, and the events
//! since are held back. Settling the batch:
//! - if every provisional position is proven "can mate" (carried back, or by its own
//!   search) or its search says "undetermined", the answers given were as good as the
//!   real ones: the held events are the ones `SyncTracker` emits, and are released;
//! - if any search says "cannot mate", the tracker is put back to the clone, and every
//!   input since is fed again with every question answered at once, as `SyncTracker`
//!   does (the answers already searched are reused); those events are released instead.
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
/// their own size (40 bytes a log entry instead of the 96 of the largest board event,
/// whose first touch of fresh memory was a sixth of `replay --fast`'s time).
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
    Timeout(u64),
    /// Every deadline before this time ([`BatchedTracker::deadlines_before`]); not kept
    /// (the caller says them again to [`BatchedTracker::settle`]).
    Before(u64),
    Finish(u64),
}

// The log entry's size, as the comment on `Input` says.
const _: () = assert!(std::mem::size_of::<(u64, Input)>() <= 40);

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

/// A batch not yet settled.
#[derive(Debug, Clone)]
struct Batch {
    /// The tracker before the first provisional answer, its questions not yet answered.
    checkpoint: Box<Tracker>,
    /// The sequence number of the input that asked the first question.
    first_seq: u64,
    /// Inputs after that one, with their sequence numbers.
    inputs: Vec<(u64, Input)>,
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
    /// Events final and not yet taken.
    released: Vec<(u64, ArbiterEvent)>,
    /// The last batch's input log, emptied, for the next (a batch logs thousands of
    /// inputs: growing a fresh log each time cost more than the tracker's work on them).
    spare_inputs: Vec<(u64, Input)>,
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

    /// Takes one board event, input number `seq`.
    pub fn handle(&mut self, seq: u64, ev: TimedEvent) {
        // Fed as it came; put in its log form only when a batch keeps it.
        self.tracker.handle(&ev, &mut self.out);
        let logged = self.batch.is_some().then(|| Input::logged(ev));
        self.after_input(seq, logged);
    }

    /// See [`Tracker::handle_timeout`].
    pub fn handle_timeout(&mut self, seq: u64, now_ms: u64) {
        self.input(seq, Input::Timeout(now_ms));
    }

    /// Fires, in order, every deadline before `t_ms`. Not kept in a batch: the caller
    /// gives every such call since [`BatchedTracker::held_from`] to
    /// [`BatchedTracker::settle`] (a replay calls it for every board at every record, far
    /// more often than anything else, and knows them without keeping them per board).
    pub fn deadlines_before(&mut self, seq: u64, t_ms: u64) {
        if self.tracker.poll_timeout().is_none_or(|d| d >= t_ms) {
            return;
        }
        self.input(seq, Input::Before(t_ms));
    }

    /// Whether the open batch is full: the caller settles it ([`BatchedTracker::settle`]).
    pub fn wants_settling(&self) -> bool {
        self.batch
            .as_ref()
            .is_some_and(|b| b.provisional.len() >= self.batch_size)
    }

    /// See [`Tracker::finish`].
    pub fn finish(&mut self, seq: u64, t_ms: u64) {
        self.input(seq, Input::Finish(t_ms));
    }

    /// Settles the open batch, if any: afterwards every event so far is released.
    /// `deadline_calls`: the (sequence number, time) of every
    /// [`BatchedTracker::deadlines_before`] call after [`BatchedTracker::held_from`], in
    /// order (fed again, with the other inputs, if the batch is undone).
    pub fn settle(&mut self, deadline_calls: impl IntoIterator<Item = (u64, u64)>) {
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
        self.answer_now(batch.first_seq, &known);
        let mut calls = deadline_calls
            .into_iter()
            .filter(|(seq, _)| *seq > batch.first_seq)
            .peekable();
        for (seq, input) in &batch.inputs {
            while let Some((s, t)) = calls.next_if(|(s, _)| s < seq) {
                self.apply(&Input::Before(t));
                self.answer_now(s, &known);
            }
            self.apply(input);
            self.answer_now(*seq, &known);
        }
        for (s, t) in calls {
            self.apply(&Input::Before(t));
            self.answer_now(s, &known);
        }
        batch.inputs.clear();
        self.spare_inputs = batch.inputs;
    }

    /// The sequence number from which events may still be held back (`None`: every
    /// event so far is released).
    pub fn held_from(&self) -> Option<u64> {
        self.batch.as_ref().map(|b| b.first_seq)
    }

    /// Moves the released events, with their inputs' sequence numbers, to `into`.
    pub fn take_released(&mut self, into: &mut Vec<(u64, ArbiterEvent)>) {
        into.append(&mut self.released);
    }

    fn input(&mut self, seq: u64, input: Input) {
        self.apply(&input);
        let logged = (!matches!(input, Input::Before(_))).then_some(input);
        self.after_input(seq, logged);
    }

    /// After input `seq` was fed: its events held or released, the input itself (`logged`)
    /// kept while a batch is open, and the tracker's questions answered.
    fn after_input(&mut self, seq: u64, logged: Option<Input>) {
        match &mut self.batch {
            Some(b) => {
                b.held.extend(self.out.drain(..).map(|e| (seq, e)));
                if let Some(input) = logged {
                    b.inputs.push((seq, input));
                }
            }
            None => self.released.extend(self.out.drain(..).map(|e| (seq, e))),
        }
        self.answer(seq);
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
            Input::Before(t) => {
                while let Some(d) = self.tracker.poll_timeout() {
                    if d >= *t {
                        break;
                    }
                    self.tracker.handle_timeout(d, &mut self.out);
                }
            }
            Input::Finish(t) => self.tracker.finish(*t, &mut self.out),
        }
    }

    /// Answers what the tracker asks after input `seq`: dead-position questions
    /// provisionally (opening a batch), the others at once.
    fn answer(&mut self, seq: u64) {
        if self.batch_size == 0 {
            self.answer_now(seq, &|_, _| None);
            return;
        }
        let checkpoint = self.batch.is_none()
            && self
                .tracker
                .pending_analyses()
                .any(|r| r.purpose == Purpose::DeadPosition);
        if checkpoint {
            self.batch = Some(Batch {
                checkpoint: Box::new(self.tracker.clone()),
                first_seq: seq,
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
            Some(b) => b.held.extend(self.out.drain(..).map(|e| (seq, e))),
            None => self.released.extend(self.out.drain(..).map(|e| (seq, e))),
        }
    }

    /// Answers every question at once, as [`crate::SyncTracker`] does (`known` first),
    /// and releases the events.
    fn answer_now(&mut self, seq: u64, known: &dyn Fn(&Position, Color) -> Option<CanMate>) {
        while let Some(req) = self.tracker.poll_analysis() {
            let answer = match req.purpose {
                Purpose::DeadPosition => known(&req.position, req.side),
                _ => None,
            }
            .unwrap_or_else(|| self.analyst.answer(&req));
            self.tracker.analysis_done(req.id, answer, &mut self.out);
        }
        self.released.extend(self.out.drain(..).map(|e| (seq, e)));
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
