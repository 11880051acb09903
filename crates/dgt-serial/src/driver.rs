//! The tokio shell around [`Link`]: one task per board that opens the port (by path, or
//! by searching for the board's serial number), reads, writes, sleeps until the link's
//! next deadline, reopens after a loss, records the traffic, and delivers events.
//!
//! # Overload policy
//! Each board's event channel is bounded ([`DriverOptions::event_capacity`]) and the task
//! never waits on it, so a slow consumer cannot stall the serial reads (the board's own
//! buffer is tiny; a stalled reader would lose bytes there instead). When the channel is
//! full:
//! - field updates, clock frames and dumps are dropped and counted; everything else
//!   (connected/disconnected, clock (dis)connected, clock ACKs and buttons, battery) is
//!   kept, in order, in a small backlog (256 events; beyond it, dropped and counted too);
//! - a warning is logged (with the `board` field) when dropping starts and when it ends;
//! - when the consumer makes room again, the backlog goes out first, then a resync
//!   marker, then a fresh board dump the driver asks the board for (0x42). The marker is
//!   `Disconnected { reason: "overrun: ..." }` followed by `Connected`, the same shape
//!   as a reconnect, so the consumer resynchronises from the dump exactly as after a
//!   pulled cable (the tracker's reconnect search). No move is silently lost: the
//!   consumer always learns that it missed something and gets the board as it stands.
//! - the resync cannot feed itself (a line flooding far beyond 9600 baud, a faulty
//!   adapter, would otherwise cycle overrun -> resync -> overrun thousands of times a
//!   second): one resync is in flight at a time (until its dump arrives, or
//!   [`RESYNC_IN_FLIGHT_MS`]); an overrun that follows a resync within
//!   [`FLOOD_QUIET_MS`] waits longer before its own (backoff from
//!   [`RESYNC_BACKOFF_MIN_MS`], doubling, at most [`RESYNC_BACKOFF_MAX_MS`]), meanwhile
//!   still dropping field updates; after [`FLOOD_FAULTY_AFTER`] such overruns in a row
//!   the line is reported once as faulty ([`BoardStatus::line_flooding`], one error in
//!   the log; the per-overrun warnings stop) until it has been quiet for
//!   [`FLOOD_QUIET_MS`]. When the flood stops, the last resync brings the board back:
//!   it stays followed.
//!
//! # How far the line has been read
//! A consumer that rules on timers in the events' time (the tracker's settle window)
//! must not rule while bytes the board sent before the deadline still wait unread in the
//! kernel or undelivered in the task: on a loaded machine they can lag the wall clock.
//! [`BoardHandle::line_read_until`] says up to which `t_ms` that cannot be: it is set
//! when a real read found the port drained and every event decoded so far has been
//! delivered or counted as dropped (never while events wait in the backlog), and while
//! there is no port (nothing can arrive). A read that returned less than it asked for
//! drained the port ([`Port::read_some`]); after one that filled the buffer, the task
//! reads on until the port is empty. It also checks the port once a second, and when
//! asked ([`BoardControl::probe_line`]).

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dgt_protocol::capture::Direction;
use dgt_protocol::{BoardEvent, ClockCommand, TimedEvent};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tracing::Instrument;

use crate::link::{BoardInfo, ClockError, ClockOutcome, CommandId, Link, LinkConfig};
use crate::port::{find_by_serial, Port, PortRead, SearchOptions};
use crate::record::Recorder;

/// Where the board is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSpec {
    /// A device path (`/dev/dgt/board-A1B2`, `/dev/ttyACM0`, a pty); reopened at the same
    /// path after a loss.
    Path(PathBuf),
    /// The board with this DGT serial number, searched for among the candidate ports
    /// ([`DriverOptions::search`]) at every (re)connect.
    Serial(String),
}

/// How a board is driven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverOptions {
    pub link: LinkConfig,
    /// Events buffered for the consumer; see the module docs for what happens when full.
    pub event_capacity: usize,
    /// Where to look for a board named by its serial number.
    pub search: SearchOptions,
}

impl Default for DriverOptions {
    fn default() -> DriverOptions {
        DriverOptions {
            link: LinkConfig::default(),
            event_capacity: 1024,
            search: SearchOptions::default(),
        }
    }
}

/// One board to drive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardSpec {
    /// The board's name in logs, recordings and the daemon.
    pub name: String,
    pub port: PortSpec,
    pub options: DriverOptions,
}

/// What the driver knows about a board, published on every change.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct BoardStatus {
    pub name: String,
    /// The port in use, if one is open.
    pub port: Option<PathBuf>,
    pub info: BoardInfo,
    /// Events dropped under overload so far.
    pub dropped_events: u64,
    /// The line floods the driver (overruns repeat one after the other): a faulty
    /// adapter or board; resyncs are spaced out (see the module docs).
    pub line_flooding: bool,
    /// The `.dgtcap` being written, with `record_dir`.
    pub recording: Option<PathBuf>,
    /// The task has ended.
    pub stopped: bool,
}

/// The board could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("board {board}: spawn_board must be called inside a tokio runtime")]
    NoRuntime { board: String },
    #[error("board {board}: cannot create the recording in {dir}: {source}")]
    Record {
        board: String,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The board's task has stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the board's driver task has stopped")]
pub struct DriverStopped;

pub(crate) enum Request {
    Clock {
        command: ClockCommand,
        reply: oneshot::Sender<ClockOutcome>,
    },
    Dump,
    Probe,
    Shutdown(oneshot::Sender<()>),
}

/// Commands to a running board; cheap to clone.
#[derive(Debug, Clone)]
pub struct BoardControl {
    pub(crate) requests: mpsc::Sender<Request>,
    pub(crate) status: watch::Receiver<BoardStatus>,
}

impl std::fmt::Debug for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Request::Clock { command, .. } => write!(f, "Clock({command})"),
            Request::Dump => f.write_str("Dump"),
            Request::Probe => f.write_str("Probe"),
            Request::Shutdown(_) => f.write_str("Shutdown"),
        }
    }
}

impl BoardControl {
    /// Sends a clock command and waits for its outcome: the ACK, or why there is none
    /// (one resend on an error ACK or a timeout, then given up; see [`LinkConfig`]).
    pub async fn clock(&self, command: ClockCommand) -> ClockOutcome {
        let (reply, outcome) = oneshot::channel();
        self.requests
            .send(Request::Clock { command, reply })
            .await
            .map_err(|_| ClockError::Stopped)?;
        outcome.await.unwrap_or(Err(ClockError::Stopped))
    }

    /// Asks the board for a fresh full dump (it arrives as a `Dump` event).
    pub async fn request_dump(&self) -> Result<(), DriverStopped> {
        self.requests
            .send(Request::Dump)
            .await
            .map_err(|_| DriverStopped)
    }

    /// Asks the task to read the port now, so that [`BoardHandle::line_read_until`]
    /// catches up with the clock when the line is idle. Does not wait; a request that
    /// does not fit in the queue is dropped (the task is busy reading anyway).
    pub fn probe_line(&self) {
        let _ = self.requests.try_send(Request::Probe);
    }

    /// Stops the task: the board gets a RESET, the recording is flushed, a final
    /// `Disconnected { reason: "driver stopped" }` is offered. Returns when done.
    pub async fn shutdown(&self) {
        let (done, finished) = oneshot::channel();
        if self.requests.send(Request::Shutdown(done)).await.is_ok() {
            let _ = finished.await;
        }
    }

    /// The board's status now.
    pub fn status(&self) -> BoardStatus {
        self.status.borrow().clone()
    }

    /// A receiver that sees every status change.
    pub fn watch_status(&self) -> watch::Receiver<BoardStatus> {
        self.status.clone()
    }
}

/// A running board: its events, and the control.
#[derive(Debug)]
pub struct BoardHandle {
    pub events: mpsc::Receiver<TimedEvent>,
    pub control: BoardControl,
    /// The `t_ms` (the events' clock) up to which the line has been read and every
    /// event from it delivered: an event stamped up to this time can no longer arrive,
    /// except after an overrun marker. See the module docs.
    pub line_read_until: watch::Receiver<u64>,
}

/// Starts driving a board. `epoch` is the driver-wide time base of the events' `t_ms`;
/// with `record_dir`, the traffic is recorded there (see [`crate::record`]). Must be
/// called inside a tokio runtime.
pub fn spawn_board(
    spec: BoardSpec,
    epoch: std::time::Instant,
    record_dir: Option<PathBuf>,
) -> Result<BoardHandle, SpawnError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| SpawnError::NoRuntime {
        board: spec.name.clone(),
    })?;
    let recorder = match &record_dir {
        Some(dir) => {
            let epoch_unix_ms = SystemTime::now()
                .checked_sub(epoch.elapsed())
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as u64);
            Some(
                Recorder::create(dir, &spec.name, epoch_unix_ms).map_err(|source| {
                    SpawnError::Record {
                        board: spec.name.clone(),
                        dir: dir.clone(),
                        source,
                    }
                })?,
            )
        }
        None => None,
    };
    let epoch = Instant::from_std(epoch);
    let (events_tx, events) = mpsc::channel(spec.options.event_capacity.max(1));
    let (requests_tx, requests) = mpsc::channel(32);
    let status = BoardStatus {
        name: spec.name.clone(),
        recording: recorder.as_ref().map(|r| r.path().to_owned()),
        ..BoardStatus::default()
    };
    let (status_tx, status_rx) = watch::channel(status);
    let (read_until_tx, line_read_until) = watch::channel(0);
    let now = now_ms(epoch);
    let span = tracing::info_span!("board", board = %spec.name);
    let task = BoardTask {
        link: Link::new(spec.options.link.clone(), now),
        spec,
        epoch,
        port: None,
        pending: Vec::new(),
        outbox: Outbox::new(events_tx),
        waiting: HashMap::new(),
        next_command: 0,
        recorder,
        status: status_tx,
        published_info: u64::MAX,
        drained_at: None,
        read_until: read_until_tx,
    };
    runtime.spawn(task.run(requests).instrument(span));
    Ok(BoardHandle {
        events,
        control: BoardControl {
            requests: requests_tx,
            status: status_rx,
        },
        line_read_until,
    })
}

fn now_ms(epoch: Instant) -> u64 {
    now_ms_at(epoch, Instant::now())
}

/// `at` in ms since `epoch`.
fn now_ms_at(epoch: Instant, at: Instant) -> u64 {
    at.saturating_duration_since(epoch).as_millis() as u64
}

struct BoardTask {
    spec: BoardSpec,
    epoch: Instant,
    link: Link,
    port: Option<Port>,
    /// Bytes the port did not take yet.
    pending: Vec<u8>,
    outbox: Outbox,
    waiting: HashMap<CommandId, oneshot::Sender<ClockOutcome>>,
    next_command: u64,
    recorder: Option<Recorder>,
    status: watch::Sender<BoardStatus>,
    published_info: u64,
    /// The last time a read found the port drained, not yet published.
    drained_at: Option<u64>,
    read_until: watch::Sender<u64>,
}

/// Reads in a row after a read before the task turns to its other work; at 9600 baud the
/// port is drained long before (512 bytes a read).
const DRAIN_READS_MAX: usize = 8;

/// A read's outcome, without borrowing the buffer.
type ReadResult = std::io::Result<usize>;

async fn read_port(port: Option<&Port>, buf: &mut [u8]) -> std::io::Result<PortRead> {
    match port {
        Some(p) => p.read_some(buf).await,
        None => std::future::pending().await,
    }
}

async fn port_writable(port: Option<&Port>) -> std::io::Result<()> {
    match port {
        Some(p) => p.writable().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

async fn reserve(
    tx: Option<mpsc::Sender<TimedEvent>>,
) -> Result<mpsc::OwnedPermit<TimedEvent>, mpsc::error::SendError<()>> {
    match tx {
        Some(tx) => tx.reserve_owned().await,
        None => std::future::pending().await,
    }
}

impl BoardTask {
    fn now(&self) -> u64 {
        now_ms(self.epoch)
    }

    fn instant_at(&self, ms: u64) -> Instant {
        self.epoch
            .checked_add(Duration::from_millis(ms))
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400))
    }

    async fn run(mut self, mut requests: mpsc::Receiver<Request>) {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut requests_open = true;
        let mut buf = vec![0u8; 512];
        loop {
            self.pump();
            self.publish_read_until();
            if self.outbox.closed {
                tracing::info!("event receiver dropped; stopping");
                self.stop();
                return;
            }
            let deadline = self.link.poll_timeout().map(|ms| self.instant_at(ms));
            let wants_permit = self.outbox.wants_permit(self.now());
            let permit_tx = wants_permit.then(|| self.outbox.tx.clone());
            let has_port = self.port.is_some();
            let must_write = has_port && !self.pending.is_empty();
            tokio::select! {
                req = requests.recv(), if requests_open => match req {
                    Some(Request::Clock { command, reply }) => {
                        let id = CommandId(self.next_command);
                        self.next_command += 1;
                        self.waiting.insert(id, reply);
                        let now = self.now();
                        self.link.send_clock(now, id, command);
                    }
                    Some(Request::Dump) => {
                        self.link.request_dump();
                    }
                    Some(Request::Probe) => self.drain(&mut buf),
                    Some(Request::Shutdown(done)) => {
                        self.stop();
                        let _ = done.send(());
                        return;
                    }
                    // Every control is gone: run on while someone reads the events.
                    None => requests_open = false,
                },
                r = read_port(self.port.as_ref(), &mut buf), if has_port => {
                    let now = self.now();
                    let drained = r.as_ref().ok().and_then(|r| r.drained_before);
                    if self.on_read(now, r.map(|r| r.len), &buf) {
                        match drained {
                            // A short read took all the port held: no read to find it
                            // empty (`Port::read_some`).
                            Some(before) => {
                                let at = Some(now_ms_at(self.epoch, before));
                                self.drained_at = self.drained_at.max(at);
                            }
                            None => self.drain(&mut buf),
                        }
                    }
                }
                r = port_writable(self.port.as_ref()), if must_write => {
                    if let Err(e) = r {
                        let now = self.now();
                        self.link.on_port_lost(now, &format!("write error: {e}"));
                    }
                }
                () = sleep_until(deadline) => {
                    if self.link.open_due(self.now()) {
                        self.open().await;
                    }
                    let now = self.now();
                    self.link.on_timeout(now);
                }
                permit = reserve(permit_tx), if wants_permit => match permit {
                    Ok(permit) => {
                        let resync = self.link.is_running().then(|| BoardEvent::Connected {
                            serial: self.link.info().serial.clone(),
                            version: self.link.info().version,
                            clock_version: self.link.info().clock.version(),
                        });
                        let now = self.now();
                        if self.outbox.on_permit(permit, now, resync) {
                            self.link.request_dump();
                        }
                    }
                    Err(_) => self.outbox.closed = true,
                },
                _ = tick.tick() => {
                    if let Some(rec) = &mut self.recorder {
                        rec.flush();
                    }
                    // An idle line still moves `line_read_until` on.
                    self.drain(&mut buf);
                }
                // Nobody will read the events any more, even if none come for a while.
                () = self.outbox.tx.closed() => self.outbox.closed = true,
            }
        }
    }

    /// Feeds a read's outcome to the link; true if the port is still good.
    fn on_read(&mut self, now: u64, r: ReadResult, buf: &[u8]) -> bool {
        match r {
            Ok(0) => {
                self.link
                    .on_port_lost(now, "the line hung up (end of file)");
                false
            }
            Ok(n) => {
                if let Some(rec) = &mut self.recorder {
                    rec.record(now, Direction::ToHost, &buf[..n]);
                }
                self.link.on_input(now, &buf[..n]);
                true
            }
            Err(e) => {
                self.link.on_port_lost(now, &format!("read error: {e}"));
                false
            }
        }
    }

    /// Reads what the port holds until it holds nothing (then notes the time, for
    /// `line_read_until`) or [`DRAIN_READS_MAX`] reads were made. The time is taken
    /// before the read that finds nothing: whatever the board sent before it was read.
    fn drain(&mut self, buf: &mut [u8]) {
        for _ in 0..DRAIN_READS_MAX {
            let now = self.now();
            let r = match &self.port {
                None => {
                    self.drained_at = Some(now);
                    return;
                }
                Some(port) => match port.try_read(buf) {
                    Ok(None) => {
                        self.drained_at = Some(now);
                        return;
                    }
                    Ok(Some(n)) => Ok(n),
                    Err(e) => Err(e),
                },
            };
            if !self.on_read(now, r, buf) {
                return;
            }
        }
    }

    /// Publishes the last drained time once everything read before it has left the
    /// outbox; with no port, nothing can arrive, so the line is read up to now.
    fn publish_read_until(&mut self) {
        if self.port.is_none() {
            self.drained_at = Some(self.now());
        }
        if self.outbox.busy() {
            return;
        }
        if let Some(t) = self.drained_at.take() {
            self.read_until.send_if_modified(|v| {
                let later = t > *v;
                if later {
                    *v = t;
                }
                later
            });
        }
    }

    /// Moves what the link produced: events to the outbox, outcomes to their callers,
    /// bytes to the port; closes the port when the link no longer wants it.
    fn pump(&mut self) {
        // Status first: a consumer that sees an event finds the status that goes with it.
        self.publish_status();
        loop {
            while let Some(ev) = self.link.poll_event() {
                if let BoardEvent::Disconnected { reason } = &ev.event {
                    if let Some(rec) = &mut self.recorder {
                        rec.comment(ev.t_ms, &format!("disconnected: {reason}"));
                    }
                }
                self.outbox.offer(ev);
            }
            while let Some((id, outcome)) = self.link.poll_completion() {
                if let Some(reply) = self.waiting.remove(&id) {
                    let _ = reply.send(outcome);
                }
            }
            self.pending.extend(self.link.take_transmit());
            let lost = self.flush_writes();
            if self.port.is_some() && !self.link.wants_port() {
                let now = self.now();
                if let Some(rec) = &mut self.recorder {
                    rec.comment(now, "port closed");
                    rec.flush();
                }
                self.port = None;
            }
            if self.port.is_none() {
                self.pending.clear();
            }
            if !lost {
                break;
            }
        }
        self.publish_status();
    }

    /// Writes what the port takes now; true if the port was lost doing so.
    fn flush_writes(&mut self) -> bool {
        let Some(port) = &self.port else {
            return false;
        };
        if self.pending.is_empty() {
            return false;
        }
        let now = now_ms(self.epoch);
        match port.try_write(&self.pending) {
            Ok(n) => {
                if let Some(rec) = &mut self.recorder {
                    rec.record(now, Direction::ToBoard, &self.pending[..n]);
                }
                self.pending.drain(..n);
                false
            }
            Err(e) => {
                self.link.on_port_lost(now, &format!("write error: {e}"));
                true
            }
        }
    }

    async fn open(&mut self) {
        let found = match &self.spec.port {
            PortSpec::Path(path) => Port::open(path)
                .map(|port| (port, Vec::new(), Vec::new()))
                .map_err(|e| e.to_string()),
            PortSpec::Serial(serial) => find_by_serial(serial, &self.spec.options.search)
                .await
                .map(|f| (f.port, f.sent, f.received))
                .map_err(|e| e.to_string()),
        };
        let now = self.now();
        match found {
            Ok((port, sent, received)) => {
                tracing::debug!(port = %port.path().display(), "port opened");
                if let Some(rec) = &mut self.recorder {
                    rec.comment(now, &format!("opened {}", port.path().display()));
                    rec.record(now, Direction::ToBoard, &sent);
                    rec.record(now, Direction::ToHost, &received);
                }
                self.port = Some(port);
                self.link.on_opened(now);
            }
            Err(reason) => self.link.on_open_failed(now, &reason),
        }
    }

    /// The end: RESET the board, offer the last events, flush the recording.
    fn stop(&mut self) {
        let now = self.now();
        self.link.shutdown(now);
        self.pump();
        self.outbox.flush_best_effort();
        self.port = None;
        if let Some(rec) = &mut self.recorder {
            rec.comment(now, "driver stopped");
            rec.flush();
        }
        self.status.send_modify(|s| {
            s.port = None;
            s.stopped = true;
        });
    }

    fn publish_status(&mut self) {
        // Called twice a read: compared in place, copied only when it changed.
        let port = self.port.as_ref().map(|p| p.path());
        let dropped = self.outbox.dropped_total;
        let info_changed = self.published_info != self.link.info_version();
        let flooding = self.outbox.flooding;
        let cur = self.status.borrow();
        let changed = info_changed
            || cur.port.as_deref() != port
            || cur.dropped_events != dropped
            || cur.line_flooding != flooding;
        drop(cur);
        if changed {
            self.published_info = self.link.info_version();
            let info = self.link.info().clone();
            let port = port.map(ToOwned::to_owned);
            self.status.send_modify(|s| {
                s.port = port;
                s.info = info;
                s.dropped_events = dropped;
                s.line_flooding = flooding;
            });
        }
    }
}

/// Events kept in order while the consumer is behind.
const BACKLOG_MAX: usize = 256;

/// A resync whose dump has not come after this long no longer holds the next one back.
pub const RESYNC_IN_FLIGHT_MS: u64 = 5_000;
/// The first wait before a resync when overruns repeat, doubled at each repeat...
pub const RESYNC_BACKOFF_MIN_MS: u64 = 500;
/// ... up to this.
pub const RESYNC_BACKOFF_MAX_MS: u64 = 30_000;
/// An overrun within this long of the last resync is a repeat; this long without one,
/// the line is quiet again.
pub const FLOOD_QUIET_MS: u64 = 10_000;
/// After this many repeats in a row the line is reported as faulty.
pub const FLOOD_FAULTY_AFTER: u32 = 5;

/// The bounded, never-blocking way events leave a board task (see the module docs).
struct Outbox {
    tx: mpsc::Sender<TimedEvent>,
    backlog: VecDeque<TimedEvent>,
    /// Dropping since this time, and how many so far.
    overload: Option<(u64, u64)>,
    dropped_total: u64,
    closed: bool,
    /// The last resync marker went out at this time; its dump has not come yet.
    resync_in_flight: Option<u64>,
    /// When the last resync marker went out.
    last_resync: Option<u64>,
    /// Overruns in a row, each within [`FLOOD_QUIET_MS`] of the resync before it.
    repeats: u32,
    /// No resync before this time (the backoff).
    resync_not_before: u64,
    /// Reported as faulty (see the module docs).
    flooding: bool,
}

/// Events that are rare and cannot be recovered from a dump.
fn must_keep(event: &BoardEvent) -> bool {
    !matches!(
        event,
        BoardEvent::Field(_) | BoardEvent::Clock(_) | BoardEvent::Dump { .. }
    )
}

impl Outbox {
    fn new(tx: mpsc::Sender<TimedEvent>) -> Outbox {
        Outbox {
            tx,
            backlog: VecDeque::new(),
            overload: None,
            dropped_total: 0,
            closed: false,
            resync_in_flight: None,
            last_resync: None,
            repeats: 0,
            resync_not_before: 0,
            flooding: false,
        }
    }

    fn offer(&mut self, ev: TimedEvent) {
        if self.closed {
            return;
        }
        if matches!(ev.event, BoardEvent::Dump { .. }) {
            // The resync's dump came (delivered, or dropped by a new overrun, whose own
            // resync then follows).
            self.resync_in_flight = None;
        }
        if self.flooding
            && self.overload.is_none()
            && self
                .last_resync
                .is_some_and(|r| ev.t_ms >= r + FLOOD_QUIET_MS)
        {
            self.flooding = false;
            self.repeats = 0;
            tracing::warn!("the line is quiet again: no overrun for {FLOOD_QUIET_MS} ms");
        }
        if self.overload.is_none() {
            if self.backlog.is_empty() {
                match self.tx.try_send(ev) {
                    Ok(()) => return,
                    Err(TrySendError::Closed(_)) => {
                        self.closed = true;
                        return;
                    }
                    Err(TrySendError::Full(ev)) => {
                        self.start_overload(ev.t_ms);
                        self.keep_or_drop(ev);
                        return;
                    }
                }
            }
            if self.backlog.len() < BACKLOG_MAX {
                self.backlog.push_back(ev);
                return;
            }
            self.start_overload(ev.t_ms);
        }
        self.keep_or_drop(ev);
    }

    fn start_overload(&mut self, t_ms: u64) {
        let repeat = self.last_resync.is_some_and(|r| t_ms < r + FLOOD_QUIET_MS);
        if repeat {
            self.repeats += 1;
        } else {
            self.repeats = 0;
        }
        let backoff = if self.repeats == 0 {
            0
        } else {
            (RESYNC_BACKOFF_MIN_MS << (self.repeats - 1).min(16)).min(RESYNC_BACKOFF_MAX_MS)
        };
        self.resync_not_before = self.last_resync.map_or(0, |r| r + backoff);
        if self.repeats >= FLOOD_FAULTY_AFTER && !self.flooding {
            self.flooding = true;
            tracing::error!(
                repeats = self.repeats,
                "the line floods the driver (overrun after overrun, far more than a board \
                 sends): a faulty adapter or board? Field updates are dropped and the board \
                 is resynchronised at most every {} s until the flood stops",
                RESYNC_BACKOFF_MAX_MS / 1000
            );
        }
        if !self.flooding {
            tracing::warn!(
                capacity = self.tx.max_capacity(),
                backoff_ms = backoff,
                "event channel full: dropping field updates and clock frames until the \
                 consumer catches up; a resync marker and a fresh dump follow"
            );
        }
        self.overload = Some((t_ms, 0));
    }

    fn keep_or_drop(&mut self, ev: TimedEvent) {
        if must_keep(&ev.event) && self.backlog.len() < BACKLOG_MAX {
            self.backlog.push_back(ev);
        } else {
            self.dropped_total += 1;
            if let Some((_, n)) = &mut self.overload {
                *n += 1;
            }
        }
    }

    /// Whether events wait to go out (or an overrun waits for its resync).
    fn busy(&self) -> bool {
        !self.closed && (!self.backlog.is_empty() || self.overload.is_some())
    }

    /// Whether the task should wait for room in the channel at `now`: for the backlog,
    /// or for an overrun's resync once it is allowed (one in flight, the backoff).
    fn wants_permit(&self, now: u64) -> bool {
        !self.closed
            && (!self.backlog.is_empty() || self.overload.is_some() && self.may_resync(now))
    }

    fn may_resync(&self, now: u64) -> bool {
        let in_flight = self
            .resync_in_flight
            .is_some_and(|at| now < at + RESYNC_IN_FLIGHT_MS);
        !in_flight && now >= self.resync_not_before
    }

    /// There is room again: sends the next event. `resync` is the `Connected` event to
    /// put in the marker when the link runs. Returns true when a dump must be requested.
    fn on_permit(
        &mut self,
        permit: mpsc::OwnedPermit<TimedEvent>,
        now: u64,
        resync: Option<BoardEvent>,
    ) -> bool {
        let mut want_dump = false;
        if self.overload.is_some() && !self.may_resync(now) {
            // Only the backlog goes out until the resync is allowed.
            if let Some(ev) = self.backlog.pop_front() {
                permit.send(ev);
            }
            return false;
        }
        if let Some((since, dropped)) = self.overload.take() {
            if !self.flooding {
                tracing::warn!(
                    dropped,
                    since_ms = since,
                    "consumer caught up after dropping events; resynchronising with a dump"
                );
            }
            if let Some(connected) = resync {
                self.resync_in_flight = Some(now);
                self.last_resync = Some(now);
                let reason = format!(
                    "overrun: the consumer fell behind and {dropped} events since t={since} ms \
                     were dropped; a fresh board dump follows"
                );
                self.backlog.push_back(TimedEvent {
                    t_ms: now,
                    event: BoardEvent::Disconnected { reason },
                });
                self.backlog.push_back(TimedEvent {
                    t_ms: now,
                    event: connected,
                });
                want_dump = true;
            }
        }
        if let Some(ev) = self.backlog.pop_front() {
            permit.send(ev);
        }
        want_dump
    }

    /// At shutdown: whatever fits now.
    fn flush_best_effort(&mut self) {
        while let Some(ev) = self.backlog.pop_front() {
            if self.tx.try_send(ev).is_err() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_protocol::{FieldIndex, FieldUpdate, PieceCode};

    fn field(t_ms: u64) -> TimedEvent {
        TimedEvent {
            t_ms,
            event: BoardEvent::Field(FieldUpdate {
                field: FieldIndex::new((t_ms % 64) as u8).unwrap(),
                piece: PieceCode::Empty,
            }),
        }
    }

    fn button(t_ms: u64) -> TimedEvent {
        TimedEvent {
            t_ms,
            event: BoardEvent::ClockButton(dgt_protocol::ButtonPress {
                button: None,
                held: dgt_protocol::HeldButtons(0),
            }),
        }
    }

    #[tokio::test]
    async fn overload_drops_updates_keeps_the_rest_and_resyncs() {
        let (tx, mut rx) = mpsc::channel(4);
        let mut out = Outbox::new(tx);
        for t in 0..4 {
            out.offer(field(t));
        }
        assert!(!out.wants_permit(4));
        // Full: updates are dropped, a button press is kept.
        out.offer(field(4));
        out.offer(button(5));
        out.offer(field(6));
        assert_eq!(out.dropped_total, 2);
        assert!(out.wants_permit(7));
        for t in 0..4 {
            assert_eq!(rx.recv().await.unwrap().t_ms, t);
        }
        let connected = BoardEvent::Connected {
            serial: Some("01025".into()),
            version: None,
            clock_version: None,
        };
        let permit = out.tx.clone().reserve_owned().await.unwrap();
        assert!(
            out.on_permit(permit, 7, Some(connected.clone())),
            "dump wanted"
        );
        // The backlog is drained in order, the marker after it; a new update waits
        // behind them.
        out.offer(field(8));
        while out.wants_permit(9) {
            let permit = out.tx.clone().reserve_owned().await.unwrap();
            assert!(!out.on_permit(permit, 9, None));
        }
        let got: Vec<TimedEvent> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert_eq!(got[0], button(5));
        assert!(matches!(&got[1].event, BoardEvent::Disconnected { reason }
            if reason.starts_with("overrun") && reason.contains("2 events")));
        assert_eq!(got[2].event, connected);
        assert_eq!(got[3], field(8));
        assert_eq!(got.len(), 4);
    }

    #[tokio::test]
    async fn a_dropped_receiver_closes_the_outbox() {
        let (tx, rx) = mpsc::channel(4);
        let mut out = Outbox::new(tx);
        drop(rx);
        out.offer(field(0));
        assert!(out.closed);
        assert!(!out.wants_permit(0));
    }

    fn dump(t_ms: u64) -> TimedEvent {
        TimedEvent {
            t_ms,
            event: BoardEvent::Dump {
                board: dgt_protocol::RawBoard([PieceCode::Empty; 64]),
            },
        }
    }

    /// A flood: the consumer empties the channel every 50 ms and the line fills it again
    /// at once. Resyncs back off instead of following every overrun, the line is
    /// reported as flooding, and once the flood stops one more resync follows the board.
    #[tokio::test]
    async fn a_flood_backs_off_its_resyncs_and_the_board_is_followed_after_it() {
        let (tx, mut rx) = mpsc::channel(4);
        let mut out = Outbox::new(tx);
        let connected = BoardEvent::Connected {
            serial: None,
            version: None,
            clock_version: None,
        };
        let mut markers = Vec::new();
        let mut dump_asked = false;
        let flood_ms = 60_000;
        let mut t = 0;
        while t < flood_ms {
            if dump_asked {
                out.offer(dump(t));
                dump_asked = false;
            }
            for i in 0..10 {
                out.offer(field(t + i));
            }
            // The consumer takes what came, then there is room.
            while let Ok(ev) = rx.try_recv() {
                if matches!(&ev.event, BoardEvent::Disconnected { .. }) {
                    markers.push(ev.t_ms);
                }
            }
            while out.wants_permit(t) {
                let permit = out.tx.clone().reserve_owned().await.unwrap();
                dump_asked |= out.on_permit(permit, t, Some(connected.clone()));
                while let Ok(ev) = rx.try_recv() {
                    if matches!(&ev.event, BoardEvent::Disconnected { .. }) {
                        markers.push(ev.t_ms);
                    }
                }
            }
            t += 50;
        }
        // Without the backoff: one resync per cycle, 1,200 of them.
        assert!(
            markers.len() <= 12,
            "{} resyncs in a minute of flood: {markers:?}",
            markers.len()
        );
        assert!(out.flooding, "the flood is reported");
        let gaps: Vec<u64> = markers.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            gaps.windows(2).all(|g| g[1] >= g[0]),
            "the waits grow: {gaps:?}"
        );
        // The flood stops: the pending resync comes within the backoff and the board is
        // followed again (updates flow, the flood report ends after a quiet spell).
        let before = markers.len();
        let mut resynced = false;
        let stop = t;
        while t < stop + 2 * RESYNC_BACKOFF_MAX_MS {
            while rx.try_recv().is_ok() {}
            if out.wants_permit(t) {
                let permit = out.tx.clone().reserve_owned().await.unwrap();
                resynced |= out.on_permit(permit, t, Some(connected.clone()));
            }
            t += 500;
        }
        while rx.try_recv().is_ok() {}
        assert!(
            resynced || markers.len() > before,
            "no resync after the flood"
        );
        out.offer(dump(t));
        out.offer(field(t + FLOOD_QUIET_MS));
        assert_eq!(rx.try_recv().unwrap(), dump(t));
        assert_eq!(rx.try_recv().unwrap(), field(t + FLOOD_QUIET_MS));
        assert!(!out.flooding, "quiet again");
    }
}
