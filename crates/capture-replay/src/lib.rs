//! Replaying `.dgtcap` captures (formats.md §1): this crate owns driving recorded boards,
//! many at once and in one merged order, through the same pipeline the live daemon runs: capture bytes -> [`Decoder`] -> [`EventFilter`] -> [`BatchedTracker`] (every
//! question answered at once, as [`touch_tracker::SyncTracker`] does, unless
//! [`ReplayOptions::dead_position_batch`] asks for batches). One capture is one board.
//!
//! Each board is replayed on its own: its records in order, and each of its tracker's
//! timers as an input of its own at its due time, as the daemon's timers fire. So a
//! board's events do not depend on the other captures replayed beside it, and boards can
//! be replayed on several threads ([`Replay::write_json_lines`]). The events of all boards
//! come out in one order, the same however they were computed: by their input's time (a
//! timer after the records of its own millisecond), ties to the capture listed first,
//! each board's in its own order ([`Merge`]). The caller supplies readers (the binary
//! opens the files) and decides the pacing: [`Replay::next_time`] says when the next input
//! is due.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, PoisonError};

use chess_rules::{FenError, Position, Variant};
use dgt_protocol::capture::{CaptureError, CaptureReader, CaptureRecord, Direction, TimeControl};
use dgt_protocol::{BoardEvent, ClockSide, Decoder, EventFilter, TimedEvent};

use touch_tracker::batched::{input_tag, BatchedTracker};
use touch_tracker::{ArbiterEvent, Supervision, TrackerConfig};

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
    #[error("writing the events: {0}")]
    Write(#[source] std::io::Error),
}

/// One capture being replayed.
struct Board<R> {
    /// Its place in the list of captures (ties between boards go to the lower).
    index: usize,
    name: String,
    records: CaptureReader<R>,
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
    /// The last timer fired (a timer that did not clear is not fired again).
    last_timer: Option<u64>,
    done: bool,
}

/// What a board takes next.
enum Next {
    Timer(u64),
    Record,
    End,
}

impl<R: BufRead> Board<R> {
    fn advance(&mut self) -> Result<(), ReplayError> {
        self.has_next = match self.records.read_into(&mut self.next) {
            None => false,
            Some(Ok(())) => true,
            Some(Err(error)) => {
                self.has_next = false;
                self.done = true;
                return Err(ReplayError::Capture {
                    name: self.name.clone(),
                    error,
                });
            }
        };
        Ok(())
    }

    fn next(&self) -> Option<Next> {
        if self.done {
            return None;
        }
        let timer = self
            .tracker
            .poll_timeout()
            .filter(|&d| self.last_timer.is_none_or(|f| d > f));
        Some(match (timer, self.has_next.then_some(self.next.t_ms)) {
            (Some(d), Some(t)) if d < t => Next::Timer(d),
            (_, Some(_)) => Next::Record,
            (Some(d), None) => Next::Timer(d),
            (None, None) => Next::End,
        })
    }

    /// The tag of the next input (see [`BatchedTracker::last_tag`]), `None` once done.
    fn next_tag(&self) -> Option<u64> {
        let tag = match self.next()? {
            Next::Timer(d) => input_tag(d, true),
            Next::Record => input_tag(self.next.t_ms, false),
            Next::End => 0,
        };
        Some(tag.max(self.tracker.last_tag()))
    }

    /// The least tag of an event the board has not released: none once done and settled.
    fn floor(&self) -> Option<u64> {
        self.tracker.held_from().or_else(|| self.next_tag())
    }

    /// Feeds the next input (a timer due before the next record, the record, or the
    /// end), and settles the open batch when it is full, or the board is done, or its
    /// capture cannot go on.
    fn step(&mut self) -> Result<(), ReplayError> {
        let result = match self.next() {
            None => Ok(()),
            Some(Next::Timer(d)) => {
                self.last_timer = Some(d);
                self.tracker.handle_timeout(d);
                Ok(())
            }
            Some(Next::Record) => {
                self.record();
                self.advance()
            }
            Some(Next::End) => {
                self.end();
                Ok(())
            }
        };
        if self.done || self.tracker.wants_settling() {
            self.tracker.settle();
        }
        result
    }

    /// Moves the released events to `merge`, with the board's floor.
    fn released_to<T>(
        &mut self,
        scratch: &mut Vec<(u64, ArbiterEvent)>,
        merge: &mut Merge<T>,
        form: impl Fn(ArbiterEvent) -> T,
    ) {
        self.tracker.take_released(scratch);
        for (tag, e) in scratch.drain(..) {
            merge.push(self.index, tag, form(e));
        }
        merge.set_floor(self.index, self.floor());
    }

    /// Feeds the next record (`has_next`).
    fn record(&mut self) {
        let t_ms = self.next.t_ms;
        self.last_t = t_ms;
        if !self.started {
            self.started = true;
            self.tracker.handle(TimedEvent {
                t_ms,
                event: BoardEvent::Connected {
                    serial: None,
                    version: None,
                    clock_version: None,
                },
            });
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
                tracker.handle(TimedEvent { t_ms, event });
            }
        });
    }

    fn end(&mut self) {
        self.done = true;
        let _ = self.decoder.finish();
        self.tracker.finish(self.last_t);
        self.tracker.handle(TimedEvent {
            t_ms: self.last_t,
            event: BoardEvent::Disconnected {
                reason: "end of capture".into(),
            },
        });
    }
}

/// The boards of a replay, each taken in turn by whoever feeds it (the caller's thread,
/// or one of several): the one whose next input is earliest first, ties to the board
/// listed first. So the boards go on in time order together, which a paced replay needs
/// and which keeps little waiting in the [`Merge`]. A board is out while it is fed.
struct Boards<R> {
    /// By index (boxed: a board moves out and back at every input of a paced replay).
    boards: Vec<Option<Box<Board<R>>>>,
    /// (next tag, index) of every board in with an input left.
    queue: BinaryHeap<Reverse<(u64, usize)>>,
}

impl<R: BufRead> Boards<R> {
    fn new(boards: Vec<Board<R>>) -> Boards<R> {
        let mut all = Boards {
            boards: Vec::with_capacity(boards.len()),
            queue: BinaryHeap::with_capacity(boards.len()),
        };
        for b in boards {
            all.boards.push(None);
            all.put(Box::new(b));
        }
        all
    }

    fn next_tag(&self) -> Option<u64> {
        self.queue.peek().map(|Reverse((tag, _))| *tag)
    }

    /// The board whose next input is earliest, unless that input comes after `limit`.
    fn take(&mut self, limit: u64) -> Option<Box<Board<R>>> {
        let &Reverse((tag, i)) = self.queue.peek()?;
        if tag > limit {
            return None;
        }
        self.queue.pop();
        self.boards[i].take()
    }

    /// Puts a board back, queued if it has an input left.
    fn put(&mut self, b: Box<Board<R>>) {
        if let Some(tag) = b.next_tag() {
            self.queue.push(Reverse((tag, b.index)));
        }
        let i = b.index;
        self.boards[i] = Some(b);
    }

    /// The boards in, by index.
    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Board<R>> {
        self.boards.iter_mut().flatten().map(|b| &mut **b)
    }

    fn iter(&self) -> impl Iterator<Item = &Board<R>> {
        self.boards.iter().flatten().map(|b| &**b)
    }
}

/// Puts the events of many boards in one order: by tag, ties to the board listed first,
/// each board's events in their own order. An event goes out once no board can still
/// give one that comes before it: each board says the least tag it may still give (its
/// floor), which only grows.
struct Merge<T> {
    boards: Vec<MergeBoard<T>>,
    /// (a tag no greater than the board's next, board) of every board not finished, the
    /// least first; an entry whose board has moved on is put back with its new tag when
    /// it comes up (the next tag of a board only grows).
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

struct MergeBoard<T> {
    waiting: VecDeque<(u64, T)>,
    /// `None`: nothing more will come.
    floor: Option<u64>,
}

impl<T> Merge<T> {
    /// `n` boards, none of which has said anything yet (floor 0).
    fn new(n: usize) -> Merge<T> {
        Merge {
            boards: (0..n)
                .map(|_| MergeBoard {
                    waiting: VecDeque::new(),
                    floor: Some(0),
                })
                .collect(),
            heap: (0..n).map(|b| Reverse((0, b))).collect(),
        }
    }

    /// An event of `board`, tagged `tag` (never less than the board's floor, and never
    /// after its floor said nothing more will come).
    fn push(&mut self, board: usize, tag: u64, item: T) {
        if let Some(b) = self.boards.get_mut(board) {
            debug_assert!(b.floor.is_some_and(|f| tag >= f), "board {board}: {tag}");
            b.waiting.push_back((tag, item));
        }
    }

    fn set_floor(&mut self, board: usize, floor: Option<u64>) {
        if let Some(b) = self.boards.get_mut(board) {
            debug_assert!(
                floor >= b.floor || floor.is_none(),
                "a floor never goes back"
            );
            b.floor = floor;
        }
    }

    /// The tag of the board's next event, waiting or to come.
    fn next_of(&self, board: usize) -> Option<u64> {
        let b = &self.boards[board];
        b.waiting.front().map(|(tag, _)| *tag).or(b.floor)
    }

    /// The (tag, board) of the next event in the order, waiting or to come; `None` when
    /// nothing more will come.
    fn peek(&mut self) -> Option<(u64, usize)> {
        while let Some(&Reverse((tag, board))) = self.heap.peek() {
            match self.next_of(board) {
                None => {
                    self.heap.pop();
                }
                Some(next) if next > tag => {
                    self.heap.pop();
                    self.heap.push(Reverse((next, board)));
                }
                Some(_) => return Some((tag, board)),
            }
        }
        None
    }

    /// The same merge with its waiting events in another form.
    fn map<U>(self, mut f: impl FnMut(T) -> U) -> Merge<U> {
        Merge {
            boards: self
                .boards
                .into_iter()
                .map(|b| MergeBoard {
                    waiting: b.waiting.into_iter().map(|(tag, e)| (tag, f(e))).collect(),
                    floor: b.floor,
                })
                .collect(),
            heap: self.heap,
        }
    }

    /// The next event in the order, if it has come.
    fn pop(&mut self) -> Option<(u64, usize, T)> {
        let (_, board) = self.peek()?;
        let (tag, item) = self.boards[board].waiting.pop_front()?;
        Some((tag, board, item))
    }
}

/// A replay of one or more captures, one board each.
pub struct Replay<R = Box<dyn BufRead>> {
    boards: Boards<R>,
    merge: Merge<ArbiterEvent>,
    /// Scratch for a board's released events.
    released: Vec<(u64, ArbiterEvent)>,
}

impl<R: BufRead> Replay<R> {
    /// Reads each capture's header. `name` is the board's name unless its `board:`
    /// header gives one (the binary passes the file stem).
    pub fn new(captures: Vec<(String, R)>, opts: &ReplayOptions) -> Result<Replay<R>, ReplayError> {
        let mut boards = Vec::with_capacity(captures.len());
        // (capture name, board name) of the captures read so far.
        let mut names: Vec<(String, String)> = Vec::with_capacity(captures.len());
        for (index, (name, input)) in captures.into_iter().enumerate() {
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
            let start_fen_error = |error| ReplayError::StartFen {
                name: name.clone(),
                error,
            };
            // formats.md §1: a Chess960 capture's start is its `start-fen` (X-FEN or
            // Shredder-FEN), else the first board dump.
            match (&header.start_fen, header.variant) {
                (Some(fen), Variant::Standard) => {
                    cfg.start = Position::from_fen(fen).map_err(start_fen_error)?;
                }
                (Some(fen), Variant::Chess960) => {
                    cfg.start = Position::from_fen_960(fen).map_err(start_fen_error)?;
                }
                (None, Variant::Chess960) => cfg.start_from_board = true,
                (None, Variant::Standard) => {}
            }
            cfg.time_control = opts.time_control.or(header.time_control);
            cfg.white_clock = opts.white_clock.or(header.white_clock);
            cfg.supervision = opts.supervision;
            let mut board = Board {
                index,
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
                last_timer: None,
                done: false,
            };
            board.advance()?;
            boards.push(board);
        }
        let mut merge = Merge::new(boards.len());
        for b in &boards {
            merge.set_floor(b.index, b.floor());
        }
        Ok(Replay {
            boards: Boards::new(boards),
            merge,
            released: Vec::new(),
        })
    }

    /// The capture time of the next input of any board, `None` when all are done.
    pub fn next_time(&self) -> Option<u64> {
        self.boards.next_tag().map(|tag| tag / 2)
    }

    /// Feeds the earliest next input of any board (a record, a timer, or the end of a
    /// capture) and passes on to `out` every event whose turn has come. Returns `false`
    /// when everything has been replayed and passed on.
    pub fn step(&mut self, out: &mut Vec<ArbiterEvent>) -> Result<bool, ReplayError> {
        let Some(mut b) = self.boards.take(u64::MAX) else {
            self.pass_on(out);
            return Ok(false);
        };
        let result = b.step();
        b.released_to(&mut self.released, &mut self.merge, |e| e);
        self.boards.put(b);
        if let Err(e) = result {
            // The capture cannot go on: every event so far goes out before the error.
            for b in self.boards.iter_mut() {
                b.tracker.settle();
                b.released_to(&mut self.released, &mut self.merge, |e| e);
            }
            self.pass_on(out);
            return Err(e);
        }
        self.pass_on(out);
        Ok(true)
    }

    fn pass_on(&mut self, out: &mut Vec<ArbiterEvent>) {
        while let Some((_, _, e)) = self.merge.pop() {
            out.push(e);
        }
    }

    /// Replays everything as fast as possible.
    pub fn run(&mut self, out: &mut Vec<ArbiterEvent>) -> Result<(), ReplayError> {
        while self.step(out)? {}
        Ok(())
    }

    /// The trackers, in the order the captures were given.
    pub fn trackers(&self) -> impl Iterator<Item = &touch_tracker::Tracker> {
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

/// A burst of one board's inputs, as [`Replay::write_json_lines`] passes it on: the JSON
/// lines of the events the board released, (tag, line) in order, its floor after them,
/// and the error that stopped its capture.
struct Chunk {
    board: usize,
    lines: Vec<(u64, Vec<u8>)>,
    floor: Option<u64>,
    error: Option<(u64, ReplayError)>,
}

/// The inputs of one board fed before it goes back among the others: enough that taking
/// boards costs nothing, few enough that the boards go on together (what one releases
/// waits in the merge for the others).
const BURST: usize = 256;

impl<R: BufRead> Board<R> {
    /// Feeds up to `burst` inputs, none after the tag `cut` (lowered to the tag of the
    /// input whose capture cannot go on, if this one's cannot).
    fn burst(
        &mut self,
        burst: usize,
        cut: &AtomicU64,
        scratch: &mut Vec<(u64, ArbiterEvent)>,
    ) -> Chunk {
        let mut error = None;
        for _ in 0..burst.max(1) {
            let Some(tag) = self
                .next_tag()
                .filter(|&t| t <= cut.load(Ordering::Relaxed))
            else {
                break;
            };
            if let Err(e) = self.step() {
                cut.fetch_min(tag, Ordering::Relaxed);
                error = Some((tag, e));
                break;
            }
        }
        Chunk {
            error,
            ..self.chunk(scratch)
        }
    }

    /// What the board has released since, and its floor.
    fn chunk(&mut self, scratch: &mut Vec<(u64, ArbiterEvent)>) -> Chunk {
        self.tracker.take_released(scratch);
        let lines = scratch
            .drain(..)
            .map(|(tag, e)| {
                let mut line = Vec::with_capacity(512);
                e.write_json_line(&mut line);
                (tag, line)
            })
            .collect();
        Chunk {
            board: self.index,
            lines,
            floor: self.floor(),
            error: None,
        }
    }
}

impl<R: BufRead> Boards<R> {
    /// The chunks of the boards left before the cut once nothing can be fed: their open
    /// batches settled (settling twice does nothing).
    fn settle_all(&mut self, scratch: &mut Vec<(u64, ArbiterEvent)>) -> Vec<Chunk> {
        self.iter_mut()
            .map(|b| {
                b.tracker.settle();
                b.chunk(scratch)
            })
            .collect()
    }
}

impl<R: BufRead + Send> Replay<R> {
    /// Replays everything as fast as possible on up to `threads` threads, and writes the
    /// events' JSON lines (formats.md §2) to `out` in the order [`Replay::run`] gives
    /// them. A thread takes the board whose next input is earliest, feeds a burst of its
    /// inputs and puts it back, so no thread idles while boards are left. A capture that
    /// cannot go on stops the replay at its error, as in [`Replay::run`]: the events
    /// before it are written, then the error is returned.
    pub fn write_json_lines(self, threads: usize, out: &mut impl Write) -> Result<(), ReplayError> {
        self.write_json_lines_in_bursts(threads, BURST, out)
    }

    /// [`Replay::write_json_lines`], a board fed `burst` inputs at a time.
    fn write_json_lines_in_bursts(
        self,
        threads: usize,
        burst: usize,
        out: &mut impl Write,
    ) -> Result<(), ReplayError> {
        let threads = threads.clamp(1, self.boards.boards.len().max(1));
        let Replay { boards, merge, .. } = self;
        let lines = LineMerge {
            merge: merge.map(|e| {
                let mut line = Vec::new();
                e.write_json_line(&mut line);
                line
            }),
            error: None,
        };
        // The tag past which nothing need be fed: that of the earliest capture error.
        let cut = AtomicU64::new(u64::MAX);
        let boards = Mutex::new(boards);
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|s| {
            // The caller's thread feeds boards too, and merges and writes between its
            // bursts: it waits for the others only at the end.
            for _ in 1..threads {
                let (tx, boards, cut) = (tx.clone(), &boards, &cut);
                s.spawn(move || feed_in_bursts(boards, burst, &tx, cut));
            }
            drop(tx);
            let written = feed_and_write(&boards, burst, &cut, &rx, lines, out);
            // Writing failed, or the cut is reached: the threads stop after their burst.
            drop(rx);
            cut.store(0, Ordering::Relaxed);
            written
        })
    }
}

/// The caller's thread of [`Replay::write_json_lines`]: bursts of the earliest board's
/// inputs, as the other threads feed them ([`feed_in_bursts`]), each chunk merged with
/// theirs and written as soon as its turn comes; then what the others still send.
fn feed_and_write<R: BufRead>(
    boards: &Mutex<Boards<R>>,
    burst: usize,
    cut: &AtomicU64,
    rx: &mpsc::Receiver<Chunk>,
    mut lines: LineMerge,
    out: &mut impl Write,
) -> Result<(), ReplayError> {
    let lock = || boards.lock().unwrap_or_else(PoisonError::into_inner);
    let mut scratch = Vec::new();
    loop {
        let taken = lock().take(cut.load(Ordering::Relaxed));
        let Some(mut b) = taken else { break };
        let chunk = b.burst(burst, cut, &mut scratch);
        // Another thread's chunks of this board were sent before it went back, so they
        // are all waiting: merged first, they keep the board's order.
        for sent in rx.try_iter() {
            if lines.add(sent, out)? {
                return lines.finish();
            }
        }
        let done = lines.add(chunk, out)?;
        lock().put(b);
        if done {
            return lines.finish();
        }
    }
    {
        // Under the lock, as the other threads settle and send: what they sent before is
        // merged first, and after this nothing they send holds lines of these boards.
        let mut all = lock();
        let sent: Vec<Chunk> = rx.try_iter().collect();
        for chunk in sent.into_iter().chain(all.settle_all(&mut scratch)) {
            if lines.add(chunk, out)? {
                return lines.finish();
            }
        }
    }
    for chunk in rx {
        if lines.add(chunk, out)? {
            break;
        }
    }
    lines.finish()
}

/// One thread of [`Replay::write_json_lines`]: bursts of the earliest board's inputs
/// until every board is done or past the cut, or the receiver is gone; then the boards
/// stopped at the cut are settled.
fn feed_in_bursts<R: BufRead>(
    boards: &Mutex<Boards<R>>,
    burst: usize,
    tx: &mpsc::Sender<Chunk>,
    cut: &AtomicU64,
) {
    let lock = || boards.lock().unwrap_or_else(PoisonError::into_inner);
    let mut scratch = Vec::new();
    loop {
        let taken = lock().take(cut.load(Ordering::Relaxed));
        let Some(mut b) = taken else { break };
        let chunk = b.burst(burst, cut, &mut scratch);
        // Sent before the board goes back: the next thread's chunk of it comes after.
        if tx.send(chunk).is_err() {
            return;
        }
        lock().put(b);
    }
    for chunk in lock().settle_all(&mut scratch) {
        if tx.send(chunk).is_err() {
            return;
        }
    }
}

/// The lines of the boards' chunks put in the order of [`Merge`] and written as soon as
/// their turn comes, up to the earliest capture error if any.
struct LineMerge {
    merge: Merge<Vec<u8>>,
    /// (tag, board, error) of the earliest error so far.
    error: Option<(u64, usize, ReplayError)>,
}

impl LineMerge {
    /// Takes `chunk` in and writes every line whose turn has come; `true` once nothing
    /// more is to be written (all written, or all before the earliest error).
    fn add(&mut self, chunk: Chunk, out: &mut impl Write) -> Result<bool, ReplayError> {
        for (tag, line) in chunk.lines {
            self.merge.push(chunk.board, tag, line);
        }
        self.merge.set_floor(chunk.board, chunk.floor);
        if let Some((tag, e)) = chunk.error {
            if self
                .error
                .as_ref()
                .is_none_or(|(t, b, _)| (tag, chunk.board) < (*t, *b))
            {
                self.error = Some((tag, chunk.board, e));
            }
        }
        let cut = self.error.as_ref().map(|(tag, board, _)| (*tag, *board));
        loop {
            match (self.merge.peek(), cut) {
                (None, _) => return Ok(true),
                (Some(next), Some(cut)) if next > cut => return Ok(true),
                _ => {}
            }
            let Some((_, _, line)) = self.merge.pop() else {
                return Ok(false);
            };
            out.write_all(&line).map_err(ReplayError::Write)?;
        }
    }

    /// The earliest capture error, if any, once its lines are written.
    fn finish(self) -> Result<(), ReplayError> {
        match self.error {
            Some((_, _, e)) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's emulator captures, as a replay of several boards.
    fn emulator_replay(batch: usize) -> Replay<std::io::Cursor<Vec<u8>>> {
        let captures = ["short", "promotion-turned", "castling"]
            .iter()
            .map(|n| {
                let path = test_data::emulator_capture(&format!("lichess-{n}.dgtcap"));
                let bytes = std::fs::read(&path).unwrap();
                (n.to_string(), std::io::Cursor::new(bytes))
            })
            .collect();
        let opts = ReplayOptions {
            dead_position_batch: batch,
            ..ReplayOptions::default()
        };
        Replay::new(captures, &opts).unwrap()
    }

    #[test]
    fn boards_handed_between_threads_at_every_input_keep_the_order() {
        // A board's chunks must reach the merge in the order they were made, whichever
        // thread fed it: bursts of one input hand the boards over all the time.
        let mut one = Vec::new();
        emulator_replay(0).write_json_lines(1, &mut one).unwrap();
        assert!(one.len() > 10_000);
        for batch in [0, 7] {
            for threads in [1, 2, 3, 6] {
                let mut many = Vec::new();
                emulator_replay(batch)
                    .write_json_lines_in_bursts(threads, 1, &mut many)
                    .unwrap();
                assert!(many == one, "batch {batch}, {threads} threads");
            }
        }
    }

    #[test]
    fn merge_orders_by_tag_then_board_and_waits_for_the_floors() {
        let mut m: Merge<&str> = Merge::new(3);
        m.push(1, 4, "b4");
        m.set_floor(1, Some(10));
        // Boards 0 and 2 have said nothing: board 1's event could still be preceded.
        assert_eq!(m.pop(), None);
        m.push(0, 4, "a4");
        m.push(0, 7, "a7");
        m.set_floor(0, None);
        m.set_floor(2, Some(4));
        assert_eq!(m.pop().map(|(_, _, e)| e), Some("a4"));
        assert_eq!(m.pop().map(|(_, _, e)| e), Some("b4"));
        // Board 2 may still give one at 4, before a7.
        assert_eq!(m.pop(), None);
        assert_eq!(m.peek(), Some((4, 2)));
        m.push(2, 7, "c7");
        m.set_floor(2, None);
        assert_eq!(m.pop().map(|(_, _, e)| e), Some("a7"));
        assert_eq!(m.pop().map(|(_, _, e)| e), Some("c7"));
        assert_eq!(m.pop(), None);
        // Board 1 still may give more at 10.
        assert_eq!(m.peek(), Some((10, 1)));
        m.set_floor(1, None);
        assert_eq!(m.peek(), None);
    }
}
