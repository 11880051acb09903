//! Replaying `.dgtcap` captures (formats.md §1) through the same pipeline the live daemon
//! runs: capture bytes -> [`Decoder`] -> [`EventFilter`] -> [`SyncTracker`]. One capture
//! is one board; several are merged by record time, so the events come out in input-time
//! order. The caller supplies readers (the binary opens the files) and decides the
//! pacing: [`Replay::next_time`] says when the next record was captured.

use std::io::BufRead;

use chess_rules::{FenError, Position};
use dgt_protocol::capture::{CaptureError, CaptureReader, CaptureRecord, Direction, TimeControl};
use dgt_protocol::{BoardEvent, ClockSide, Decoder, EventFilter, TimedEvent};

use crate::config::{Supervision, TrackerConfig};
use crate::events::ArbiterEvent;
use crate::sync::SyncTracker;

/// Settings that override what the capture headers say.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Overrides the `time-control:` header.
    pub time_control: Option<TimeControl>,
    pub supervision: Supervision,
    /// Overrides the `white-clock:` header.
    pub white_clock: Option<ClockSide>,
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
    next: Option<CaptureRecord>,
    decoder: Decoder,
    filter: EventFilter,
    tracker: SyncTracker,
    started: bool,
    last_t: u64,
    done: bool,
}

impl Board {
    fn advance(&mut self) -> Result<(), ReplayError> {
        self.next = match self.records.next() {
            None => None,
            Some(Ok(r)) => Some(r),
            Some(Err(error)) => {
                return Err(ReplayError::Capture {
                    name: self.name.clone(),
                    error,
                })
            }
        };
        Ok(())
    }

    fn feed(&mut self, t: u64, event: BoardEvent, out: &mut Vec<ArbiterEvent>) {
        self.tracker.handle(&TimedEvent { t_ms: t, event }, out);
    }

    fn record(&mut self, r: CaptureRecord, out: &mut Vec<ArbiterEvent>) {
        self.last_t = r.t_ms;
        if !self.started {
            self.started = true;
            self.feed(
                r.t_ms,
                BoardEvent::Connected {
                    serial: None,
                    version: None,
                    clock_version: None,
                },
                out,
            );
        }
        if r.direction != Direction::ToHost {
            return;
        }
        // Decoding problems are line noise: the decoder resynchronises and the tracker
        // recovers from what follows.
        let messages: Vec<_> = self.decoder.push(&r.bytes).into_iter().flatten().collect();
        for msg in messages {
            for event in self.filter.on_message(&msg) {
                self.feed(r.t_ms, event, out);
            }
        }
    }

    fn end(&mut self, out: &mut Vec<ArbiterEvent>) {
        self.done = true;
        let _ = self.decoder.finish();
        self.tracker.finish(self.last_t, out);
        self.feed(
            self.last_t,
            BoardEvent::Disconnected {
                reason: "end of capture".into(),
            },
            out,
        );
    }
}

/// A replay of one or more captures, one board each.
pub struct Replay {
    boards: Vec<Board>,
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
                next: None,
                decoder: Decoder::new(),
                filter: EventFilter::new(),
                tracker: SyncTracker::new(cfg),
                started: false,
                last_t: 0,
                done: false,
            };
            board.advance()?;
            boards.push(board);
        }
        Ok(Replay { boards })
    }

    /// The capture time of the next record of any board, `None` when all are done.
    pub fn next_time(&self) -> Option<u64> {
        self.boards
            .iter()
            .filter_map(|b| b.next.as_ref().map(|r| r.t_ms))
            .min()
    }

    /// Replays the earliest next record (ties: the board listed first), with every
    /// deadline of every board that falls before it; at the end, finishes each board.
    /// Returns `false` when everything has been replayed.
    pub fn step(&mut self, out: &mut Vec<ArbiterEvent>) -> Result<bool, ReplayError> {
        let Some(t) = self.next_time() else {
            for b in self.boards.iter_mut().filter(|b| !b.done) {
                b.end(out);
            }
            return Ok(false);
        };
        for b in &mut self.boards {
            while let Some(d) = b.tracker.poll_timeout() {
                if d >= t {
                    break;
                }
                b.tracker.handle_timeout(d, out);
            }
        }
        let Some(b) = self
            .boards
            .iter_mut()
            .find(|b| b.next.as_ref().is_some_and(|r| r.t_ms == t))
        else {
            return Ok(false);
        };
        if let Some(r) = b.next.take() {
            b.record(r, out);
        }
        b.advance()?;
        if b.next.is_none() {
            b.end(out);
        }
        Ok(true)
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
}
