//! Replaying `.dgtcap` captures (formats.md §1) through the same pipeline the live daemon
//! runs: capture bytes -> [`Decoder`] -> [`EventFilter`] -> [`BatchedTracker`] (every
//! question answered at once, as [`crate::SyncTracker`] does, unless
//! [`ReplayOptions::dead_position_batch`] asks for batches). One capture is one board;
//! several are merged by record time, so the events come out in input-time order, the
//! same order whatever the batches. The caller supplies readers (the binary opens the files) and decides the
//! pacing: [`Replay::next_time`] says when the next record was captured.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::io::BufRead;

use chess_rules::{FenError, Position};
use dgt_protocol::capture::{CaptureError, CaptureReader, CaptureRecord, Direction, TimeControl};
use dgt_protocol::{BoardEvent, ClockSide, Decoder, EventFilter, TimedEvent};

use crate::batched::BatchedTracker;
use crate::config::{Supervision, TrackerConfig};
use crate::events::ArbiterEvent;

/// Settings that override what the capture headers say.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Overrides the `time-control:` header.
    pub time_control: Option<TimeControl>,
    pub supervision: Supervision,
    /// Overrides the `white-clock:` header.
    pub white_clock: Option<ClockSide>,
    /// Dead-position questions settled per batch ([`BatchedTracker`]); 0 answers each at
    /// once. The events are the same either way; batches take one search for a run of
    /// moves, and hold the events back until settled (for `--fast`, not for a paced replay).
    pub dead_position_batch: usize,
}

/// Why a replay cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("capture {name}: {error}")]
    Capture { name: String, error: CaptureError },
    #[error(
        "captures {first} and {second} are both board {board:?}: their events could not be \
         told apart; give each its own `# board:` header (or file name)"
    )]
    DuplicateBoard {
        first: String,
        second: String,
        board: String,
    },
    #[error("capture {name}: the start-fen header is not a usable position: {error}")]
    StartFen { name: String, error: FenError },
}

/// One capture being replayed.
struct Board {
    name: String,
    records: CaptureReader<Box<dyn BufRead>>,
    /// The next record, if `has_next` (its byte buffer reused from record to record).
    next: CaptureRecord,
    has_next: bool,
    decoder: Decoder,
    filter: EventFilter,
    /// The events of one message, on their way to the tracker (reused).
    events: Vec<BoardEvent>,
    tracker: BatchedTracker,
    started: bool,
    last_t: u64,
    done: bool,
    /// The tracker's next deadline and first held input, as of its last input.
    deadline: Option<u64>,
    held_from: Option<u64>,
}

impl Board {
    fn advance(&mut self) -> Result<(), ReplayError> {
        self.has_next = match self.records.read_into(&mut self.next) {
            None => false,
            Some(Ok(())) => true,
            Some(Err(error)) => {
                self.has_next = false;
                return Err(ReplayError::Capture {
                    name: self.name.clone(),
                    error,
                });
            }
        };
        Ok(())
    }

    fn feed(&mut self, seq: u64, t: u64, event: BoardEvent) {
        self.tracker.handle(seq, TimedEvent { t_ms: t, event });
    }

    /// Feeds the next record (`has_next`).
    fn record(&mut self, seq: u64) {
        let t_ms = self.next.t_ms;
        self.last_t = t_ms;
        if !self.started {
            self.started = true;
            self.feed(
                seq,
                t_ms,
                BoardEvent::Connected {
                    serial: None,
                    version: None,
                    clock_version: None,
                },
            );
        }
        if self.next.direction != Direction::ToHost {
            return;
        }
        // Decoding problems are line noise: the decoder resynchronises and the tracker
        // recovers from what follows.
        let Board {
            decoder,
            filter,
            tracker,
            events,
            next: r,
            ..
        } = self;
        decoder.feed(&r.bytes, |decoded| {
            let Ok(msg) = decoded else { return };
            filter.on_message_into(&msg, events);
            for event in events.drain(..) {
                tracker.handle(seq, TimedEvent { t_ms, event });
            }
        });
    }

    fn end(&mut self, seq: u64) {
        self.done = true;
        let _ = self.decoder.finish();
        self.tracker.finish(seq, self.last_t);
        self.feed(
            seq,
            self.last_t,
            BoardEvent::Disconnected {
                reason: "end of capture".into(),
            },
        );
    }
}

/// A replay of one or more captures, one board each.
pub struct Replay {
    boards: Vec<Board>,
    /// (time of the next record, board) of every board with one: the earliest first,
    /// ties to the board listed first.
    queue: BinaryHeap<Reverse<(u64, usize)>>,
    /// The number of the next input to a board's tracker (each input its own).
    seq: u64,
    /// Released events not yet passed on, by (input number, arrival): a board's batch is
    /// released after later inputs of other boards, and goes back in its place.
    merge: BTreeMap<(u64, u64), ArbiterEvent>,
    arrivals: u64,
    scratch: Vec<(u64, ArbiterEvent)>,
    /// Since the oldest open batch: each step's first input number and record time (every
    /// board's deadlines are fired then, board `i` with the number after it plus `i`).
    steps: VecDeque<(u64, u64)>,
    /// Boards holding events back.
    holding: usize,
    /// Boards given an input in this step.
    touched: Vec<usize>,
}

impl Replay {
    /// Reads each capture's header. `name` is the board's name unless its `board:`
    /// header gives one (the binary passes the file stem).
    pub fn new(
        captures: Vec<(String, Box<dyn BufRead>)>,
        opts: &ReplayOptions,
    ) -> Result<Replay, ReplayError> {
        let mut boards = Vec::with_capacity(captures.len());
        // (capture name, board name) of the captures read so far.
        let mut names: Vec<(String, String)> = Vec::with_capacity(captures.len());
        for (name, input) in captures {
            let records = CaptureReader::new(input).map_err(|error| ReplayError::Capture {
                name: name.clone(),
                error,
            })?;
            let header = records.header().clone();
            let board_name = header.board.clone().unwrap_or_else(|| name.clone());
            if let Some((first, _)) = names.iter().find(|(_, b)| *b == board_name) {
                return Err(ReplayError::DuplicateBoard {
                    first: String::clone(first),
                    second: name,
                    board: board_name,
                });
            }
            names.push((name.clone(), board_name.clone()));
            let mut cfg = TrackerConfig::new(board_name);
            if let Some(fen) = &header.start_fen {
                cfg.start = Position::from_fen(fen).map_err(|error| ReplayError::StartFen {
                    name: name.clone(),
                    error,
                })?;
            }
            cfg.time_control = opts.time_control.or(header.time_control);
            cfg.white_clock = opts.white_clock.or(header.white_clock);
            cfg.supervision = opts.supervision;
            let mut board = Board {
                name,
                records,
                next: CaptureRecord::empty(),
                has_next: false,
                decoder: Decoder::new(),
                filter: EventFilter::new(),
                events: Vec::new(),
                tracker: BatchedTracker::new(cfg, opts.dead_position_batch),
                started: false,
                last_t: 0,
                done: false,
                deadline: None,
                held_from: None,
            };
            board.advance()?;
            boards.push(board);
        }
        let queue = boards
            .iter()
            .enumerate()
            .filter(|(_, b)| b.has_next)
            .map(|(i, b)| Reverse((b.next.t_ms, i)))
            .collect();
        Ok(Replay {
            boards,
            queue,
            seq: 0,
            merge: BTreeMap::new(),
            arrivals: 0,
            scratch: Vec::new(),
            steps: VecDeque::new(),
            holding: 0,
            touched: Vec::new(),
        })
    }

    /// The capture time of the next record of any board, `None` when all are done.
    pub fn next_time(&self) -> Option<u64> {
        self.queue.peek().map(|Reverse((t, _))| *t)
    }

    /// Replays the earliest next record (ties: the board listed first), with every
    /// deadline of every board that falls before it; at the end, finishes each board.
    /// Returns `false` when everything has been replayed.
    pub fn step(&mut self, out: &mut Vec<ArbiterEvent>) -> Result<bool, ReplayError> {
        let Some(Reverse((t, i))) = self.queue.pop() else {
            for i in 0..self.boards.len() {
                if !self.boards[i].done {
                    let seq = self.next_seq();
                    self.boards[i].end(seq);
                    self.touched.push(i);
                }
            }
            self.settle();
            self.pass_on(out);
            return Ok(false);
        };
        // Every board's deadlines before `t`, board `i` as input `first + i` (a board with
        // none before `t` has nothing to do; its number stays unused).
        let first = self.seq + 1;
        self.seq += self.boards.len() as u64;
        for (i, b) in self.boards.iter_mut().enumerate() {
            if b.deadline.is_some_and(|d| d < t) {
                b.tracker.deadlines_before(first + i as u64, t);
                self.touched.push(i);
            }
        }
        if self.holding > 0 {
            self.steps.push_back((first, t));
        }
        let seq = self.next_seq();
        let b = &mut self.boards[i];
        if b.has_next {
            b.record(seq);
        }
        if let Err(e) = b.advance() {
            // The capture cannot go on: every event so far goes out before the error.
            self.touched.extend(0..self.boards.len());
            self.settle_all();
            self.pass_on(out);
            return Err(e);
        }
        if b.has_next {
            self.queue.push(Reverse((b.next.t_ms, i)));
        } else {
            b.end(seq);
        }
        self.touched.push(i);
        self.settle();
        self.pass_on(out);
        Ok(true)
    }

    /// Settles every board's open batch.
    fn settle_all(&mut self) {
        for (i, b) in self.boards.iter_mut().enumerate() {
            let calls = self.steps.iter().map(|&(first, t)| (first + i as u64, t));
            b.tracker.settle(calls);
        }
    }

    /// Settles the full batches of the boards touched in this step, and every open batch
    /// of a board that has ended.
    fn settle(&mut self) {
        for &i in &self.touched {
            let b = &mut self.boards[i];
            if b.done || b.tracker.wants_settling() {
                let calls = self.steps.iter().map(|&(first, t)| (first + i as u64, t));
                b.tracker.settle(calls);
            }
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Passes on, in input order, every released event no held one comes before.
    fn pass_on(&mut self, out: &mut Vec<ArbiterEvent>) {
        self.touched.sort_unstable();
        self.touched.dedup();
        for &i in &self.touched {
            let b = &mut self.boards[i];
            b.tracker.take_released(&mut self.scratch);
            b.deadline = b.tracker.poll_timeout();
            let held = b.tracker.held_from();
            match (b.held_from.is_some(), held.is_some()) {
                (false, true) => self.holding += 1,
                (true, false) => self.holding -= 1,
                _ => {}
            }
            b.held_from = held;
        }
        self.touched.clear();
        if self.merge.is_empty() && self.holding == 0 {
            // Nothing held anywhere: already in order (the common case without batches).
            self.steps.clear();
            self.scratch.sort_by_key(|(seq, _)| *seq);
            out.extend(self.scratch.drain(..).map(|(_, e)| e));
            return;
        }
        for (seq, e) in self.scratch.drain(..) {
            self.arrivals += 1;
            self.merge.insert((seq, self.arrivals), e);
        }
        let held_from = match self.holding {
            0 => u64::MAX,
            _ => self
                .boards
                .iter()
                .filter_map(|b| b.held_from)
                .min()
                .unwrap_or(u64::MAX),
        };
        while let Some(entry) = self.merge.first_entry() {
            if entry.key().0 >= held_from {
                break;
            }
            out.push(entry.remove());
        }
        // Steps before the oldest open batch are no longer needed.
        let n = self.boards.len() as u64;
        while self
            .steps
            .front()
            .is_some_and(|&(first, _)| first + n <= held_from)
        {
            self.steps.pop_front();
        }
    }

    /// Replays everything as fast as possible.
    pub fn run(&mut self, out: &mut Vec<ArbiterEvent>) -> Result<(), ReplayError> {
        while self.step(out)? {}
        Ok(())
    }

    /// The trackers, in the order the captures were given.
    pub fn trackers(&self) -> impl Iterator<Item = &crate::Tracker> {
        self.boards.iter().map(|b| b.tracker.tracker())
    }

    /// Per board, in the order the captures were given: (batches settled by carrying
    /// proofs back, batches undone, questions answered by the analyst's search or fast
    /// check).
    pub fn batch_counts(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.boards.iter().map(|b| {
            (
                b.tracker.settled,
                b.tracker.undone,
                b.tracker.analyst().by_search,
            )
        })
    }
}
