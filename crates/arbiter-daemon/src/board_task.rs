//! The board task: one per board, driver events -> journal -> tracker -> hub. It resumes
//! its board from the journal first (holding it for the arbiter when the journal proves
//! less than was played), answers the tracker's analysis requests on the blocking pool,
//! and carries out the arbiter's decisions and orders, journaled before they act.
//!
//! Time: the driver stamps events in ms since the daemon started. A board's events are
//! kept in ms since its journal's epoch (the wall-clock time its round started on this
//! board), so times keep increasing across restarts: at start-up each board's offset is
//! the wall-clock time since that epoch, and never less than its last journaled time
//! (a Raspberry Pi without a real-time clock may boot with a clock behind).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chess_rules::CanMate;
use dgt_protocol::{BoardEvent, ClockTime, Hms, TimedEvent};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use touch_tracker::analysis::{self, AnalysisRequest};
use touch_tracker::{ArbiterEvent, Tracker};

use crate::error::DaemonError;
use arbiter_hub::serials::{SerialRoutes, Switchboard};
use arbiter_hub::{Hub, HubEvent};
use arbiter_outputs::sinks::jsonl::Published;
use board_journal::{Durability, Journal, Record, Syncer};
use daemon_config::paths::Paths;
use daemon_config::{BoardConfig, Config};

mod commands;
mod port;
mod resume;

/// How a board's run went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardSummary {
    pub number: u32,
    /// Events regenerated from the journal at start-up.
    pub replayed: u64,
    /// Journal records written in this run.
    pub journaled: u64,
}

/// Runs blocking IO without stalling the other tasks of a multi-threaded runtime.
pub(crate) fn blocking<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// One board: its tracker, journal and place in the hub.
pub(crate) struct BoardTask {
    number: u32,
    round: u32,
    tracker: Tracker,
    journal: Journal,
    epoch_unix_ms: u64,
    /// Added to the driver's times.
    offset: u64,
    seq: u64,
    hub: Arc<Hub>,
    answers_tx: mpsc::Sender<(u64, CanMate)>,
    answers: mpsc::Receiver<(u64, CanMate)>,
    budget: Duration,
    /// The board's kept mating lines (issue 19): most dead-position questions are
    /// answered by replaying one instead of a search.
    analyst: Arc<std::sync::Mutex<analysis::Analyst>>,
    /// The clock's last state but its times (see [`BoardTask::durability`]).
    clock_state: Option<ClockTime>,
    /// Analyses asked for and not answered yet.
    in_flight: usize,
    replayed: u64,
    journal_failed: bool,
    /// The latest input time fed to the tracker (a decision is never before it).
    last_t: u64,
    /// Keep the hub's physical view (what the board shows, its clock frames) for the
    /// LiveChess API's feed: only when `[livechess_api]` serves it.
    physical_view: bool,
    /// The last serial the board's journal holds (the board's, see [`arbiter_hub::serials`]).
    pub(crate) journal_serial: Option<String>,
    /// Which board's game the events of this board's port feed.
    routes: Arc<SerialRoutes>,
    port: PortFeed,
}

/// What a board task knows of its port's link ([`arbiter_hub::serials`]).
#[derive(Debug, Default)]
pub(crate) struct PortFeed {
    /// The board whose game the port's events went to last.
    fed: Option<u32>,
    /// The port's `Connected`, while its link is up.
    connected: Option<TimedEvent>,
}

impl BoardTask {
    pub(crate) fn publish(&mut self, events: Vec<ArbiterEvent>, replayed: bool) {
        // Straight into the hub: no intermediate vector per input.
        self.hub.publish(events.into_iter().map(|event| {
            self.seq += 1;
            HubEvent {
                seq: self.seq,
                board: self.number,
                round: self.round,
                wall_ms: self.epoch_unix_ms + event.t_ms,
                replayed,
                event,
            }
        }));
    }

    /// An event from the driver, moved to the board's time.
    pub(crate) async fn on_event(&mut self, mut ev: TimedEvent) {
        ev.t_ms += self.offset;
        let durability = self.durability(&ev.event);
        self.input(Record::Event(ev), durability).await;
    }

    /// The tracker's deadline has come by the wall clock: rules the timeout once what the
    /// board sent before it has been read (see [`timeout_gate`]); otherwise holds it,
    /// asks the driver to read the line, and waits (`held`).
    pub(crate) async fn timeout_if_read(
        &mut self,
        handle: &mut dgt_serial::BoardHandle,
        held: &mut Option<u64>,
        epoch: Instant,
    ) {
        // Events already delivered were sent before now: the tracker sees them first.
        while let Ok(ev) = handle.events.try_recv() {
            self.on_port_event(ev, &handle.control, epoch).await;
        }
        let Some(deadline) = self.tracker.poll_timeout() else {
            *held = None;
            return;
        };
        let read_until = *handle.line_read_until.borrow_and_update();
        let now = Instant::now().saturating_duration_since(epoch).as_millis() as u64;
        match timeout_gate(deadline, self.offset, read_until, now) {
            TimeoutGate::NotDue => {}
            TimeoutGate::Hold => {
                if *held != Some(deadline) {
                    *held = Some(deadline);
                    handle.control.probe_line();
                }
            }
            gate @ (TimeoutGate::Rule | TimeoutGate::RuleUnread) => {
                if gate == TimeoutGate::RuleUnread {
                    tracing::warn!(
                        board = self.number,
                        deadline_ms = deadline,
                        line_read_until_ms = read_until + self.offset,
                        "the driver has not read the line up to the tracker's deadline \
                         {TIMEOUT_HOLD_MAX_MS} ms after it; ruling the timeout anyway"
                    );
                }
                *held = None;
                self.input(Record::Timeout { t_ms: deadline }, Durability::Now)
                    .await;
            }
        }
    }

    /// Journals an input, feeds it to the tracker, publishes what it decides. An input
    /// the tracker rules on is durable before the tracker sees it; the task awaits its
    /// sync on the journal's syncer threads, holding no thread of its own.
    pub(crate) async fn input(&mut self, rec: Record, durability: Durability) {
        let written = self.journal.append(&rec, durability);
        self.journal_health(written);
        self.journal.durable().await;
        let mut out = Vec::new();
        self.apply(&rec, &mut out);
        if !out.is_empty() {
            // A ride-along (a clock tick, a "yes") that decided something: its events go
            // out only once it is in the file (see `board_journal`).
            let written = self.journal.write_pending();
            self.journal_health(written);
        }
        while let Some(req) = self.tracker.poll_analysis() {
            self.spawn_analysis(req);
        }
        self.publish(out, false);
        self.hub.set_snapshot(self.number, self.tracker.snapshot());
        // What the board shows, for the LiveChess API's feed (crate::livechess_api).
        if !self.physical_view {
            return;
        }
        if let Record::Event(e) = &rec {
            match &e.event {
                BoardEvent::Field(_) | BoardEvent::Dump { .. } => self
                    .hub
                    .set_placement(self.number, *self.tracker.placement()),
                BoardEvent::Clock(c) => {
                    self.hub
                        .set_clock_frame(self.number, *c, self.epoch_unix_ms + e.t_ms)
                }
                _ => {}
            }
        }
    }

    /// Says (log and dashboard) when the journal cannot be written, when records are
    /// dropped, when it was recreated, and when it is written again.
    pub(crate) fn journal_health(&mut self, written: std::io::Result<()>) {
        if written.is_ok() && !self.journal_failed && !self.journal.was_moved() {
            return; // The usual case: nothing to say, nothing to format.
        }
        let key = format!("journal-{}", self.number);
        let path = self.journal.path().display().to_string();
        if let Some(moved) = self.journal.take_moved() {
            let text = format!(
                "Board {}: the journal {path} {} while running; recreated it with what it held",
                self.number,
                moved.words()
            );
            tracing::warn!(board = self.number, "{text}");
            self.hub.set_warning(&format!("{key}-moved"), Some(text));
        }
        match written {
            Ok(()) => {
                if self.journal_failed {
                    self.journal_failed = false;
                    tracing::info!(
                        board = self.number,
                        "the journal {path} is written again: every record that waited is in it"
                    );
                    if self.journal.dropped() == 0 {
                        self.hub.set_warning(&key, None);
                    }
                }
            }
            Err(e) => {
                let dropped = self.journal.dropped();
                if !self.journal_failed || dropped == 1 {
                    let text = if dropped > 0 {
                        format!(
                            "Board {}: the journal {path} cannot be written ({e}); {dropped} \
                             record(s) dropped: after a restart this board may need its \
                             position checked",
                            self.number
                        )
                    } else {
                        format!(
                            "Board {}: the journal {path} cannot be written ({e}); its records \
                             wait in memory (up to {} MiB) and are written when the disk takes \
                             them",
                            self.number,
                            board_journal::BACKLOG_BYTES >> 20
                        )
                    };
                    tracing::error!(board = self.number, "{text}");
                    self.hub.set_warning(&key, Some(text));
                }
                self.journal_failed = true;
            }
        }
    }

    /// Runs an analysis on the blocking pool; "undetermined" if it takes longer than the
    /// budget (the search itself cannot be interrupted and finishes in the background).
    pub(crate) fn spawn_analysis(&mut self, req: AnalysisRequest) {
        self.in_flight += 1;
        let tx = self.answers_tx.clone();
        let budget = self.budget;
        let analyst = Arc::clone(&self.analyst);
        tokio::spawn(async move {
            let id = req.id;
            let job = tokio::task::spawn_blocking(move || analysis::answer_shared(&analyst, &req));
            let answer = match tokio::time::timeout(budget, job).await {
                Ok(Ok(a)) => a,
                _ => CanMate::Undetermined,
            };
            let _ = tx.send((id, answer)).await;
        });
    }

    /// How soon a board event must reach the disk (see [`board_journal`]): a change of
    /// the clock's state (a press, start or stop, a flag) before the tracker sees it; a
    /// clock tick that changes only the displayed times with the journal's next sync.
    pub(crate) fn durability(&mut self, e: &BoardEvent) -> Durability {
        match e {
            BoardEvent::Clock(c) => {
                let state = ClockTime {
                    left: dgt_protocol::SideTime {
                        time: Hms::default(),
                        ..c.left
                    },
                    right: dgt_protocol::SideTime {
                        time: Hms::default(),
                        ..c.right
                    },
                    ..*c
                };
                let changed = self.clock_state != Some(state);
                self.clock_state = Some(state);
                let at_zero = c.left.time.millis() == 0 || c.right.time.millis() == 0;
                if changed || at_zero {
                    Durability::Now
                } else {
                    Durability::Later
                }
            }
            BoardEvent::Field(_)
            | BoardEvent::ClockAck(_)
            | BoardEvent::ClockButton(_)
            | BoardEvent::Battery(_) => Durability::Soon,
            BoardEvent::Dump { .. }
            | BoardEvent::Connected { .. }
            | BoardEvent::Disconnected { .. }
            | BoardEvent::ClockConnected
            | BoardEvent::ClockDisconnected => Durability::Now,
        }
    }

    /// How soon an analysis answer must reach the disk: "yes, this side can still mate"
    /// rules nothing, and an unanswered question is asked again after a restart.
    pub(crate) fn answer_durability(answer: CanMate) -> Durability {
        match answer {
            CanMate::Yes => Durability::Later,
            CanMate::No | CanMate::Undetermined => Durability::Now,
        }
    }

    pub(crate) async fn run(
        mut self,
        mut handle: dgt_serial::BoardHandle,
        epoch: std::time::Instant,
        mut stop: watch::Receiver<bool>,
        routes: Arc<SerialRoutes>,
    ) -> BoardSummary {
        let epoch = Instant::from_std(epoch);
        self.hub.set_control(self.number, handle.control.clone());
        let mut forwarded = routes.register(self.number);
        let mut route_changes = routes.watch();
        self.routes = routes;
        let mut commands = self.hub.commands.register(self.number);
        let mut status = handle.control.watch_status();
        let instant_of =
            |t: u64, offset: u64| epoch + Duration::from_millis(t.saturating_sub(offset));
        // The due timeout held back until the driver has read the line up to it.
        let mut held: Option<u64> = None;
        let mut line_open = true;
        // Retries a journal the disk refused, and notices a deleted output folder while
        // the board is quiet.
        let mut journal_tick = tokio::time::interval(JOURNAL_CHECK_EVERY);
        journal_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let due = self.tracker.poll_timeout();
            let holding = held.is_some() && held == due;
            // While held, wake at the cap; the line's progress wakes the task before.
            let deadline = due.map(|d| {
                let at = if holding { d + TIMEOUT_HOLD_MAX_MS } else { d };
                instant_of(at, self.offset)
            });
            tokio::select! {
                biased;
                r = stop.changed() => {
                    if r.is_err() || *stop.borrow() {
                        break;
                    }
                }
                ev = handle.events.recv() => match ev {
                    Some(ev) => self.on_port_event(ev, &handle.control, epoch).await,
                    None => {
                        tracing::warn!(board = self.number, "the driver stopped");
                        break;
                    }
                },
                Some((id, answer)) = self.answers.recv() => {
                    self.in_flight = self.in_flight.saturating_sub(1);
                    self.input(Record::Analysis { id, answer }, Self::answer_durability(answer))
                        .await;
                }
                _ = sleep_until(deadline) => {
                    self.timeout_if_read(&mut handle, &mut held, epoch).await;
                }
                r = handle.line_read_until.changed(), if holding && line_open => {
                    // A stopped driver ends the loop through its events; until then the
                    // cap rules.
                    line_open = r.is_ok();
                    self.timeout_if_read(&mut handle, &mut held, epoch).await;
                }
                Some(ev) = forwarded.recv() => self.on_event(ev).await,
                r = route_changes.changed() => {
                    if r.is_ok() {
                        self.follow_route(None, &handle.control, epoch).await;
                    }
                }
                Some(command) = commands.recv() => {
                    self.on_command(command, &mut handle, epoch).await;
                }
                _ = journal_tick.tick() => {
                    let r = self.journal.retry();
                    self.journal_health(r);
                }
                r = status.changed() => {
                    if r.is_ok() {
                        let s = status.borrow_and_update().clone();
                        // The status of the port shows on the board answering there (its
                        // serial and port), or on the port's own board when none does
                        // and that board is on no other port.
                        let home = self.routes.read(|r| r.port_of(self.number));
                        let board = self
                            .port
                            .fed
                            .or((home.is_none() || home == Some(self.number)).then_some(self.number));
                        if let Some(b) = board {
                            self.hub.set_driver_status(b, s);
                        }
                    }
                }
            }
        }
        if let Err(e) = blocking(|| self.journal.sync()) {
            tracing::error!(board = self.number, "cannot sync the journal: {e}");
        }
        handle.control.shutdown().await;
        BoardSummary {
            number: self.number,
            replayed: self.replayed,
            journaled: self.journal.written(),
        }
    }
}

/// How often a board's journal is retried after a failed write and checked for a deleted
/// or replaced file.
pub(crate) const JOURNAL_CHECK_EVERY: Duration = Duration::from_secs(1);

/// How long a due timeout waits for the driver to read the line up to it (a wedged
/// driver) before it is ruled anyway: a board's rulings never stall for good.
pub(crate) const TIMEOUT_HOLD_MAX_MS: u64 = 2_000;

/// What to do with the tracker's timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeoutGate {
    /// The wall clock has not reached the deadline.
    NotDue,
    /// Due, but bytes the board sent before the deadline may still be unread: ruling
    /// now could rule on a half-seen move (a false illegal-move alert).
    Hold,
    /// Due, and the line has been read up to the deadline.
    Rule,
    /// Held for [`TIMEOUT_HOLD_MAX_MS`] and the line is still not read: rule anyway.
    RuleUnread,
}

/// Whether the timeout at `deadline` (the board's time: the driver's plus `offset`) may
/// be ruled, given that the driver has read the line up to `read_until` and its clock
/// says `now` (both the driver's time, without the offset).
pub(crate) fn timeout_gate(deadline: u64, offset: u64, read_until: u64, now: u64) -> TimeoutGate {
    let now = now.saturating_add(offset);
    if now < deadline {
        TimeoutGate::NotDue
    } else if read_until.saturating_add(offset) >= deadline {
        TimeoutGate::Rule
    } else if now >= deadline.saturating_add(TIMEOUT_HOLD_MAX_MS) {
        TimeoutGate::RuleUnread
    } else {
        TimeoutGate::Hold
    }
}

pub(crate) async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests;
