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

/// How a board's run went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardSummary {
    pub number: u32,
    /// Events regenerated from the journal at start-up.
    pub replayed: u64,
    /// Journal records written in this run.
    pub journaled: u64,
}

/// Why a resumed board must be held for the arbiter, if it must: its journal proves less
/// of the game than was played (a damaged record no [`Record::Held`] follows, a lost
/// header), or holds nothing of a game whose events were published.
/// The settings that change a tracker's decisions, in a few words (kept in the journal).
pub(crate) fn rules_of(t: &touch_tracker::TrackerConfig) -> String {
    format!(
        "time control {}, {}, penalty {} ms, remove increment {}, {:?} supervision, \
         two-handed {}, white clock {:?}, windows {}/{} ms",
        t.time_control.map_or("?".into(), |tc| tc.to_string()),
        t.category.map_or("?", |c| c.name()),
        t.penalties.blitz_ms,
        t.remove_offender_increment,
        t.supervision,
        if t.penalise_two_handed {
            "penalised"
        } else {
            "reported"
        },
        t.white_clock,
        t.settle_window_ms,
        t.two_handed_window_ms
    )
}

pub(crate) fn why_held(
    opened: &board_journal::Opened,
    plan: &board_journal::ReplayPlan,
    published: Published,
) -> Option<String> {
    let path = opened.journal.path().display();
    let cause = if let Some(hole) = &plan.unheld {
        let after = plan.proven.iter().filter(|p| !**p).count();
        format!(
            "journal {path} damaged at line {} (byte {}: {}): the {after} record(s) after it \
             are not replayed",
            hole.line, hole.offset, hole.message
        )
    } else if let Some(lost @ board_journal::Lost::Header { .. }) = &opened.lost {
        format!("journal {path}: {}", lost.words())
    } else if opened.records.is_empty() && published.seq > 0 {
        let state = opened
            .lost
            .as_ref()
            .map_or("the journal was not there".to_owned(), |l| l.words());
        format!("journal {path}: {state}")
    } else {
        return None;
    };
    Some(if published.seq > 0 {
        format!(
            "{cause}; events.jsonl holds this board's events up to seq {} (moves up to ply \
             {}, illegal moves: White {}, Black {})",
            published.seq,
            published.known.ply,
            published.known.illegal_white,
            published.known.illegal_black
        )
    } else {
        cause
    })
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
    /// The arbiter's decisions for this board ([`arbiter_hub::decisions`]).
    inbox_tx: arbiter_hub::decisions::Inbox,
    inbox: mpsc::Receiver<arbiter_hub::decisions::Request>,
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
    /// Opens the board's journal and replays it: the tracker is rebuilt and the events it
    /// emitted are published again (marked as replayed, with their original `seq`).
    /// `published`: what events.jsonl already holds of the board. When the journal proves
    /// less than that (a damaged record, its header lost, empty), the board is held out
    /// of sync for the arbiter ([`Record::Held`]) instead of replayed into another game.
    pub(crate) async fn resume(
        config: &Config,
        b: &BoardConfig,
        paths: &Paths,
        hub: &Arc<Hub>,
        now_unix: u64,
        syncer: &Syncer,
        published: Published,
    ) -> Result<BoardTask, DaemonError> {
        let round = config.event.round;
        let tracker_config = config.tracker_config(b);
        let rules = rules_of(&tracker_config);
        let opened = Journal::open(
            &paths.journal(round, b.number),
            &b.name(),
            round,
            &rules,
            now_unix,
            Duration::from_millis(config.timing.journal_sync_ms),
            syncer,
        )?;
        if !opened.header.rules.is_empty() && opened.header.rules != rules {
            tracing::warn!(
                board = b.number,
                "the config changed since this board's journal began ({} then, {rules} now): \
                 its events are regenerated under the new rules and may differ from those \
                 already reported",
                opened.header.rules
            );
        }
        if let Some(torn) = &opened.repaired {
            tracing::warn!(
                board = b.number,
                "journal {}: dropped a torn last record ({torn:?})",
                opened.journal.path().display()
            );
        }
        for skip in &opened.skipped {
            tracing::warn!(
                board = b.number,
                "journal {}, byte {}, line {}: skipped a damaged record ({}); the records \
                 before it are replayed, those after it only from where the board was held \
                 for the arbiter",
                opened.journal.path().display(),
                skip.offset,
                skip.line,
                skip.message
            );
        }
        let plan = board_journal::replay_plan(&opened.records, &opened.skipped);
        let hold = why_held(&opened, &plan, published);
        let (answers_tx, answers) = mpsc::channel(16);
        let (inbox_tx, inbox) = mpsc::channel(8);
        let mut task = BoardTask {
            number: b.number,
            round,
            tracker: Tracker::new(tracker_config),
            journal: opened.journal,
            epoch_unix_ms: opened.header.epoch_unix_ms,
            offset: 0,
            seq: 0,
            hub: Arc::clone(hub),
            answers_tx,
            answers,
            budget: Duration::from_millis(config.timing.analysis_budget_ms),
            analyst: Arc::default(),
            clock_state: None,
            in_flight: 0,
            replayed: 0,
            journal_failed: false,
            inbox_tx,
            inbox,
            last_t: 0,
            physical_view: config.livechess_api.is_some(),
            journal_serial: None,
            routes: Arc::new(SerialRoutes::new(Switchboard::default())),
            port: PortFeed::default(),
        };
        let mut unanswered: BTreeMap<u64, AnalysisRequest> = BTreeMap::new();
        let mut out = Vec::new();
        let mut last_t = 0;
        let mut last_disconnected = true;
        for (rec, proven) in opened.records.iter().zip(&plan.proven) {
            // Times count on after every record in the file, replayed or not.
            if let Some(t) = rec.t_ms() {
                last_t = last_t.max(t);
            }
            if !proven {
                continue;
            }
            if let Record::Event(e) = rec {
                last_disconnected = matches!(e.event, BoardEvent::Disconnected { .. });
                if let BoardEvent::Connected {
                    serial: Some(s), ..
                } = &e.event
                {
                    task.journal_serial = Some(s.clone());
                }
            }
            if let Record::Analysis { id, .. } = rec {
                unanswered.remove(id);
            }
            if let Record::Held { seq, .. } = rec {
                // The events before it keep their numbers; those of the inputs lost come
                // back from events.jsonl; it numbers on after them.
                task.replayed += out.len() as u64;
                task.publish(std::mem::take(&mut out), true);
                task.republish(&paths.events(), *seq);
            }
            task.apply(rec, &mut out);
            while let Some(req) = task.tracker.poll_analysis() {
                unanswered.insert(req.id, req);
            }
        }
        task.replayed += out.len() as u64;
        task.publish(out, true);
        let since_epoch = now_unix.saturating_sub(task.epoch_unix_ms);
        task.offset = if opened.records.is_empty() {
            since_epoch
        } else {
            since_epoch.max(last_t + 1)
        };
        if let Some(why) = hold {
            // First: what follows is numbered after the events already published.
            task.republish(&paths.events(), published.seq);
            task.hold(why, published).await;
        }
        if !opened.records.is_empty() {
            tracing::info!(
                board = b.number,
                "resumed from the journal: {} records, {} events, ply {}",
                opened.records.len(),
                task.replayed,
                task.tracker.position().plies()
            );
            if !last_disconnected {
                // What the board did while the daemon was down is not in the touch log;
                // its next dump shows where the pieces are.
                task.input(
                    Record::Event(TimedEvent {
                        t_ms: task.offset,
                        event: BoardEvent::Disconnected {
                            reason: "the daemon restarted".into(),
                        },
                    }),
                    Durability::Now,
                )
                .await;
            }
        }
        for req in unanswered.into_values() {
            task.spawn_analysis(req);
        }
        task.hub.set_snapshot(task.number, task.tracker.snapshot());
        Ok(task)
    }

    /// Holds the board out of sync for the arbiter (`why`), numbering its next events
    /// after those `published` ([`Record::Held`], journaled so that every later restart
    /// holds it at the same point).
    pub(crate) async fn hold(&mut self, why: String, published: Published) {
        tracing::warn!(
            board = self.number,
            ply = self.tracker.position().plies(),
            "{why}: the board is held out of sync until the arbiter accepts its position"
        );
        let held = Record::Held {
            t_ms: self.offset,
            why,
            seq: self.seq.max(published.seq),
            known: published.known,
        };
        self.input(held, Durability::Now).await;
    }

    /// Publishes again the board's events that `events` (events.jsonl) holds numbered
    /// after the last one published here and up to `upto`, as replayed, with their own
    /// numbers: the events of inputs the journal lost. The live game had them, so its
    /// moves and rulings stay in the game record (PGN, broadcast) and are never
    /// recomputed.
    pub(crate) fn republish(&mut self, events: &std::path::Path, upto: u64) {
        if upto <= self.seq {
            return;
        }
        let board = self.tracker.config().board.clone();
        match arbiter_outputs::sinks::jsonl::board_events(
            events, self.round, &board, self.seq, upto,
        ) {
            Ok(found) => {
                tracing::info!(
                    board = self.number,
                    "{} event(s) of inputs the journal lost taken from {}",
                    found.len(),
                    events.display()
                );
                self.replayed += found.len() as u64;
                self.hub
                    .publish(found.into_iter().map(|(seq, event)| HubEvent {
                        seq,
                        board: self.number,
                        round: self.round,
                        wall_ms: self.epoch_unix_ms + event.t_ms,
                        replayed: true,
                        event,
                    }));
            }
            Err(e) => tracing::warn!(
                board = self.number,
                "cannot read {} for the events of inputs the journal lost: {e}",
                events.display()
            ),
        }
        self.seq = upto;
    }

    /// Feeds one input to the tracker.
    pub(crate) fn apply(&mut self, rec: &Record, out: &mut Vec<ArbiterEvent>) {
        if let Some(t) = rec.t_ms() {
            self.last_t = self.last_t.max(t);
        }
        match rec {
            Record::Event(e) => self.tracker.handle(e, out),
            Record::Timeout { t_ms } => self.tracker.handle_timeout(*t_ms, out),
            Record::Analysis { id, answer } => self.tracker.analysis_done(*id, *answer, out),
            Record::Accept { t_ms, side, ply } => {
                // Checked before it was journaled; a replay refuses it the same way.
                if let Err(e) = self.tracker.accept_board_at(*t_ms, *side, *ply, out) {
                    tracing::warn!(board = self.number, "the arbiter's acceptance: {e}");
                }
            }
            Record::Moves {
                t_ms,
                from_ply,
                moves,
            } => {
                // Checked before it was journaled; a replay refuses it the same way.
                if let Err(e) = self.tracker.enter_moves(*t_ms, *from_ply, moves, out) {
                    tracing::warn!(board = self.number, "the arbiter's moves: {e}");
                }
            }
            Record::Takeback {
                t_ms,
                to_ply,
                reason,
            } => {
                if let Err(e) = self.tracker.take_back(*t_ms, *to_ply, reason, out) {
                    tracing::warn!(
                        board = self.number,
                        ply = to_ply,
                        "the arbiter's takeback: {e}"
                    );
                }
            }
            Record::Arbiter { t_ms, input } => self.tracker.arbiter(*t_ms, input, out),
            Record::Held {
                t_ms,
                why,
                seq,
                known,
            } => {
                // Never a second version of an event already out: number on after them.
                self.seq = self.seq.max(*seq);
                self.tracker.hold_for_arbiter(*t_ms, why, *known, out);
            }
        }
    }

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

    /// An order from the arbiter (the dashboard): checked against the tracker, journaled
    /// (so a restart keeps it), applied; the reply says what came of it.
    pub(crate) async fn on_order(
        &mut self,
        order: arbiter_hub::orders::ArbiterOrder,
        handle: &mut dgt_serial::BoardHandle,
        epoch: Instant,
    ) {
        match order {
            arbiter_hub::orders::ArbiterOrder::AcceptBoard { side, ply, reply } => {
                // What the board sent before the order comes first.
                while let Ok(ev) = handle.events.try_recv() {
                    self.on_port_event(ev, &handle.control, epoch).await;
                }
                let answer = match self.tracker.accepted_position_at(side, ply) {
                    Ok(accepted) => {
                        let pos = accepted.position;
                        let now = Instant::now().saturating_duration_since(epoch).as_millis();
                        let t_ms = u64::try_from(now).unwrap_or(u64::MAX) + self.offset;
                        tracing::info!(
                            board = self.number,
                            "the arbiter accepts the board as the position, {side} to move: {}",
                            pos.fen()
                        );
                        self.input(Record::Accept { t_ms, side, ply }, Durability::Now)
                            .await;
                        Ok(arbiter_hub::orders::Accepted {
                            fen: pos.fen(),
                            ply: pos.plies(),
                            ply_unknown: accepted.ply_unknown,
                        })
                    }
                    Err(e) => Err(e.to_string()),
                };
                let _ = reply.send(answer);
            }
            arbiter_hub::orders::ArbiterOrder::EnterMoves {
                from_ply,
                moves,
                reply,
            } => {
                // What the board sent before the order comes first: the moves must lead
                // to what it shows now.
                self.drain(handle, epoch).await;
                let answer = match self.tracker.check_moves(from_ply, &moves) {
                    Ok(()) => {
                        let t_ms = self.order_time(epoch);
                        let record = Record::Moves {
                            t_ms,
                            from_ply,
                            moves,
                        };
                        self.input(record, Durability::Now).await;
                        Ok(self.recorded())
                    }
                    Err(e) => Err(arbiter_hub::orders::MovesRefused {
                        why: e.to_string(),
                        culprit: e.culprit().map(|(i, text)| (i, text.to_owned())),
                    }),
                };
                let _ = reply.send(Ok(answer));
            }
            arbiter_hub::orders::ArbiterOrder::TakeBack {
                to_ply,
                reason,
                reply,
            } => {
                self.drain(handle, epoch).await;
                let answer = match self.tracker.check_takeback(to_ply) {
                    Ok(()) => {
                        let t_ms = self.order_time(epoch);
                        let record = Record::Takeback {
                            t_ms,
                            to_ply,
                            reason,
                        };
                        self.input(record, Durability::Now).await;
                        Ok(self.recorded())
                    }
                    Err(e) => Err(e.to_string()),
                };
                let _ = reply.send(answer);
            }
            arbiter_hub::orders::ArbiterOrder::ConfirmSerial { serial, reply } => {
                let (answer, warnings) = self
                    .routes
                    .update(|s| s.confirm(self.number, self.number, &serial));
                self.set_warnings(warnings);
                if answer.is_ok() {
                    tracing::warn!(
                        board = self.number,
                        "the arbiter confirms serial {serial} as board {}",
                        self.number
                    );
                    self.follow_route(None, &handle.control, epoch).await;
                }
                let _ = reply.send(answer);
            }
        }
    }

    /// Feeds the events the driver has delivered (what the board sent before an order).
    pub(crate) async fn drain(&mut self, handle: &mut dgt_serial::BoardHandle, epoch: Instant) {
        while let Ok(ev) = handle.events.try_recv() {
            self.on_port_event(ev, &handle.control, epoch).await;
        }
    }

    /// The board's time now, for an order's record.
    pub(crate) fn order_time(&self, epoch: Instant) -> u64 {
        let now = Instant::now().saturating_duration_since(epoch).as_millis();
        u64::try_from(now).unwrap_or(u64::MAX) + self.offset
    }

    /// The record's last position, as an order's answer.
    pub(crate) fn recorded(&self) -> arbiter_hub::orders::Recorded {
        let pos = self.tracker.position();
        arbiter_hub::orders::Recorded {
            fen: pos.fen(),
            ply: pos.plies(),
        }
    }

    /// An event of this board's port: to the game of the board that answers there now
    /// ([`arbiter_hub::serials`]).
    pub(crate) async fn on_port_event(
        &mut self,
        ev: TimedEvent,
        control: &dgt_serial::BoardControl,
        epoch: Instant,
    ) {
        if !self.routes.read(|s| s.drives(self.number)) {
            // A LiveChess feed names its board itself: its events are always this board's.
            return self.on_event(ev).await;
        }
        match &ev.event {
            BoardEvent::Connected { serial, .. } => {
                let serial = serial.clone();
                self.port.connected = Some(ev.clone());
                let ((), warnings) = self
                    .routes
                    .update(|s| s.connected(self.number, serial.as_deref()));
                self.set_warnings(warnings);
                self.follow_route(Some(ev), control, epoch).await;
            }
            BoardEvent::Disconnected { .. } => {
                self.port.connected = None;
                let fed = self.port.fed.take();
                self.deliver(fed, ev).await;
                let ((), warnings) = self.routes.update(|s| s.disconnected(self.number));
                self.set_warnings(warnings);
            }
            _ => self.deliver(self.port.fed, ev).await,
        }
    }

    /// The port's feed may have changed (its own link, another port's, the arbiter): the
    /// board it fed is told it left, the board it feeds now gets `connected` (or the
    /// port's last `Connected` and a fresh dump), and the clock commands follow it.
    pub(crate) async fn follow_route(
        &mut self,
        connected: Option<TimedEvent>,
        control: &dgt_serial::BoardControl,
        epoch: Instant,
    ) {
        let now = self.routes.read(|s| s.board_of(self.number));
        if now == self.port.fed {
            if let Some(ev) = connected {
                self.deliver(now, ev).await;
            }
            return;
        }
        let driver_now = Instant::now().saturating_duration_since(epoch).as_millis() as u64;
        let serial = self
            .routes
            .read(|s| s.serial_of(self.number).map(str::to_owned));
        if let Some(old) = self.port.fed {
            let reason = format!(
                "another board answers on board {}'s port (board {} is serial {})",
                self.number,
                self.number,
                serial.as_deref().unwrap_or("unknown")
            );
            let gone = TimedEvent {
                t_ms: driver_now,
                event: BoardEvent::Disconnected { reason },
            };
            self.deliver(Some(old), gone).await;
            // Its clock commands must not reach the clock of the board here now.
            if self.routes.read(|s| s.port_of(old)).is_none() {
                self.hub.remove_control(old);
            }
        }
        self.port.fed = now;
        let Some(board) = now else {
            return;
        };
        tracing::info!(
            board = self.number,
            "board {board}'s events come from board {}'s port now",
            self.number
        );
        self.hub.set_control(board, control.clone());
        self.hub.set_driver_status(board, control.status());
        match connected {
            Some(ev) => self.deliver(now, ev).await,
            None => {
                if let Some(mut ev) = self.port.connected.clone() {
                    ev.t_ms = ev.t_ms.max(driver_now);
                    self.deliver(now, ev).await;
                    // The dump came while the port fed nothing: a fresh one for the board.
                    if control.request_dump().await.is_err() {
                        tracing::warn!(board = self.number, "cannot ask the board for a dump");
                    }
                }
            }
        }
    }

    /// Hands an event of this board's port to `board`'s game (nothing: dropped).
    pub(crate) async fn deliver(&mut self, board: Option<u32>, ev: TimedEvent) {
        match board {
            Some(b) if b == self.number => self.on_event(ev).await,
            Some(b) => self.routes.forward(b, ev),
            None => tracing::debug!(
                board = self.number,
                "an event of a port that feeds no board: not recorded"
            ),
        }
    }

    /// Shows the switchboard's warnings (see [`arbiter_hub::serials`]); logs this port's.
    pub(crate) fn set_warnings(&self, warnings: Vec<(String, Option<String>)>) {
        let own = format!("board-serial-{}", self.number);
        for (key, text) in warnings {
            if key == own {
                if let Some(t) = &text {
                    tracing::warn!(board = self.number, "{t}");
                }
            }
            self.hub.set_warning(&key, text);
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

    /// The arbiter's decision ([`arbiter_hub::decisions`]), at board time `t_ms`: checked with
    /// the tracker, journaled and durable before the tracker takes it, published; the
    /// events go back to the caller.
    pub(crate) async fn decide(&mut self, t_ms: u64, req: arbiter_hub::decisions::Request) {
        if let Err(why) = self.tracker.check_arbiter(&req.input) {
            let _ = req.reply.send(Err(why));
            return;
        }
        let rec = Record::Arbiter {
            t_ms,
            input: req.input,
        };
        let written = self.journal.append(&rec, Durability::Now);
        self.journal_health(written);
        self.journal.durable().await;
        let mut out = Vec::new();
        self.apply(&rec, &mut out);
        tracing::info!(
            board = self.number,
            ply = self.tracker.position().plies(),
            "the arbiter's decision: {}",
            out.iter()
                .map(|e| e.kind_name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let answer = out.clone();
        self.publish(out, false);
        self.hub.set_snapshot(self.number, self.tracker.snapshot());
        // Answered once published: the caller's next look at the hub shows it.
        let _ = req.reply.send(Ok(answer));
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
        let mut orders = self.hub.orders.register(self.number);
        self.hub.set_inbox(self.number, self.inbox_tx.clone());
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
                Some(order) = orders.recv() => {
                    self.on_order(order, &mut handle, epoch).await;
                }
                Some(req) = self.inbox.recv() => {
                    // Board time now, after the events delivered so far.
                    let now = Instant::now().saturating_duration_since(epoch).as_millis() as u64;
                    let t = self.last_t.max(now + self.offset);
                    self.decide(t, req).await;
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
mod tests {
    use super::*;

    #[test]
    pub(crate) fn a_timeout_waits_for_the_line_to_be_read_up_to_its_deadline() {
        use TimeoutGate::*;
        // No offset: the deadline, the line and the clock in the same time.
        assert_eq!(timeout_gate(1_400, 0, 1_400, 1_399), NotDue);
        assert_eq!(timeout_gate(1_400, 0, 1_399, 1_400), Hold);
        assert_eq!(timeout_gate(1_400, 0, 1_400, 1_400), Rule);
        assert_eq!(timeout_gate(1_400, 0, 1_650, 1_700), Rule);
        // Read before the deadline, later and later by the clock: held until the cap.
        assert_eq!(timeout_gate(1_400, 0, 1_300, 3_399), Hold);
        assert_eq!(timeout_gate(1_400, 0, 1_300, 3_400), RuleUnread);
        // A restarted daemon: the board's time runs `offset` ahead of the driver's.
        let offset = 900_000;
        assert_eq!(timeout_gate(offset + 1_400, offset, 1_399, 1_500), Hold);
        assert_eq!(timeout_gate(offset + 1_400, offset, 1_400, 1_500), Rule);
        assert_eq!(timeout_gate(offset + 1_400, offset, 1_500, 1_300), NotDue);
        assert_eq!(
            timeout_gate(offset + 1_400, offset, 0, 1_400 + TIMEOUT_HOLD_MAX_MS),
            RuleUnread
        );
    }
    use dgt_protocol::{Decoder, EventFilter, HostCommand};
    use dgt_sim::hands::{generate, GameInput, HandOptions, Irregularity};
    use dgt_sim::Emulator;

    /// Tears line `i` of a journal in half and runs the half into the next line, as a
    /// power cut mid-write followed by the next append would.
    pub(crate) fn tear_into_next(path: &std::path::Path, i: usize) {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let torn = lines[i][..lines[i].len() / 2].to_owned();
        lines[i + 1] = format!("{torn}{}", lines[i + 1]);
        lines.remove(i);
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }

    /// A board's inputs as the driver would deliver them: a scripted game with a
    /// flag fall (which needs an analysis) played on the in-process emulator.
    pub(crate) fn inputs() -> Vec<TimedEvent> {
        let game = GameInput::from_uci(
            chess_rules::START_FEN,
            &[
                "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5",
            ],
        )
        .unwrap();
        let script = generate(
            &game,
            &HandOptions {
                seed: 5,
                think_scale: 0.02,
                irregularities: vec![Irregularity::ClockWithoutMove, Irregularity::FlagFall],
                ..HandOptions::default()
            },
        )
        .unwrap();
        let mut emu = Emulator::new(script.emulator_config());
        let (mut decoder, mut filter) = (Decoder::new(), EventFilter::new());
        let mut out = vec![TimedEvent {
            t_ms: 0,
            event: BoardEvent::Connected {
                serial: None,
                version: None,
                clock_version: None,
            },
        }];
        emu.receive(
            &[
                HostCommand::SendBoard.encode(),
                HostCommand::SendUpdateNice.encode(),
            ]
            .concat(),
        );
        let mut take = |emu: &mut Emulator, out: &mut Vec<TimedEvent>| {
            for c in emu.take_output() {
                for m in decoder.push(&c.bytes).into_iter().flatten() {
                    for event in filter.on_message(&m) {
                        out.push(TimedEvent {
                            t_ms: c.t_ms,
                            event,
                        });
                    }
                }
            }
        };
        for a in &script.actions {
            emu.advance_to(a.at_ms);
            take(&mut emu, &mut out);
            emu.apply(&a.action);
            take(&mut emu, &mut out);
        }
        emu.advance_to(script.end_ms + 2000);
        take(&mut emu, &mut out);
        out
    }

    pub(crate) fn config(dir: &std::path::Path) -> Config {
        let text = format!(
            "[event]\nname = \"T\"\nround = 1\ntime_control = \"300+3\"\n[output]\ndir = \"{}\"\n\
             [[board]]\nnumber = 4\nport = \"/dev/null\"\n",
            dir.display()
        );
        Config::parse(&text, std::path::Path::new("t.toml")).unwrap()
    }

    /// Feeds the inputs as the live loop does (timers and analysis answers included).
    pub(crate) async fn play(task: &mut BoardTask, inputs: &[TimedEvent]) {
        async fn feed_timers(task: &mut BoardTask, until: u64) {
            while let Some(d) = task.tracker.poll_timeout().filter(|d| *d < until) {
                task.input(Record::Timeout { t_ms: d }, Durability::Now)
                    .await;
            }
        }
        for ev in inputs {
            feed_timers(task, ev.t_ms).await;
            let durability = task.durability(&ev.event);
            task.input(Record::Event(ev.clone()), durability).await;
            while task.in_flight > 0 {
                let (id, answer) = task.answers.recv().await.unwrap();
                task.in_flight -= 1;
                task.input(
                    Record::Analysis { id, answer },
                    BoardTask::answer_durability(answer),
                )
                .await;
            }
        }
        feed_timers(task, u64::MAX).await;
    }

    /// Board 4 resumed from its journal at `now_unix`, events.jsonl holding `published`.
    pub(crate) async fn resumed(
        config: &Config,
        paths: &Paths,
        hub: &Arc<Hub>,
        now_unix: u64,
        syncer: &Syncer,
        published: Published,
    ) -> BoardTask {
        BoardTask::resume(
            config,
            &config.boards[0],
            paths,
            hub,
            now_unix,
            syncer,
            published,
        )
        .await
        .unwrap()
    }

    /// A restart of board 4 that sees `published` in events.jsonl: its events.
    pub(crate) async fn restart(
        config: &Config,
        paths: &Paths,
        syncer: &Syncer,
        published: Published,
    ) -> Vec<Arc<HubEvent>> {
        let hub = Arc::new(Hub::new([4]));
        let task = resumed(config, paths, &hub, 900_000, syncer, published).await;
        drop(task);
        hub.events_since(0)
    }

    #[tokio::test]
    pub(crate) async fn a_journal_damaged_in_the_middle_holds_the_board_at_the_same_point_at_every_restart(
    ) {
        let dir = std::env::temp_dir().join(format!("arbiter-runtime-hole-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = config(&dir);
        let paths = Paths::new(&dir);
        let syncer = Syncer::start(1, 1).unwrap();
        let hub = Arc::new(Hub::new([4]));
        let mut task = resumed(&config, &paths, &hub, 1_000, &syncer, Published::default()).await;
        play(&mut task, &inputs()).await;
        drop(task);
        let live = hub.events_since(0);
        let published = Published {
            seq: live.len() as u64,
            known: touch_tracker::KnownGame {
                ply: 8,
                ..Default::default()
            },
        };
        // A record in the middle torn and run into the next.
        let path = paths.journal(1, 4);
        let middle = std::fs::read_to_string(&path).unwrap().lines().count() / 2;
        tear_into_next(&path, middle);

        let first = restart(&config, &paths, &syncer, published).await;
        let replayed: Vec<_> = first.iter().take_while(|e| e.replayed).collect();
        assert!(
            replayed.len() < live.len(),
            "the replay stops at the damage"
        );
        for (a, b) in live.iter().zip(&replayed) {
            assert_eq!((a.seq, &a.event), (b.seq, &b.event), "the proven prefix");
        }
        let held = &first[replayed.len()];
        assert_eq!(held.seq, published.seq + 1, "numbered after events.jsonl");
        let json = held.event.to_json();
        assert!(
            json.contains("out_of_sync") && json.contains("damaged at line"),
            "{json}"
        );
        // Every later restart replays to the same point, holds there with the same
        // numbers, and holds no second time.
        let published = Published {
            seq: first.last().unwrap().seq,
            ..published
        };
        let second = restart(&config, &paths, &syncer, published).await;
        assert_eq!(second.len(), first.len());
        for (a, b) in first.iter().zip(&second) {
            assert_eq!((a.seq, &a.event), (b.seq, &b.event));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    pub(crate) async fn a_resumed_board_regenerates_the_same_events_with_the_same_seq() {
        let dir = std::env::temp_dir().join(format!("arbiter-runtime-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = config(&dir);
        let paths = Paths::new(&dir);
        let inputs = inputs();
        let syncer = Syncer::start(1, 1).unwrap();

        let hub = Arc::new(Hub::new([4]));
        let mut task = resumed(&config, &paths, &hub, 1_000, &syncer, Published::default()).await;
        assert_eq!(task.replayed, 0);
        play(&mut task, &inputs).await;
        drop(task);
        let live: Vec<Arc<HubEvent>> = hub.events_since(0);
        let kinds: Vec<&str> = live.iter().map(|e| e.event.kind_name()).collect();
        assert!(kinds.contains(&"illegal_move"), "{kinds:?}");
        assert!(kinds.contains(&"game_over"), "{kinds:?}");
        assert!(live
            .iter()
            .all(|e| !e.replayed && e.wall_ms == 1_000 + e.event.t_ms));
        assert_eq!(
            hub.physical(4),
            None,
            "no [livechess_api]: the board task keeps no physical view"
        );

        // A restart: the same events, marked as replayed, then the restart is noted.
        let hub2 = Arc::new(Hub::new([4]));
        let task = resumed(
            &config,
            &paths,
            &hub2,
            900_000,
            &syncer,
            Published::default(),
        )
        .await;
        let again = hub2.events_since(0);
        assert_eq!(task.replayed as usize, live.len());
        for (a, b) in live.iter().zip(&again) {
            assert_eq!((a.seq, &a.event, a.wall_ms), (b.seq, &b.event, b.wall_ms));
            assert!(b.replayed);
        }
        let last_t = inputs.last().unwrap().t_ms;
        assert_eq!(task.offset, 899_000, "wall-clock time since the epoch");
        assert!(task.offset > last_t);
        let restart = &again[live.len()];
        assert_eq!(restart.seq, live.len() as u64 + 1);
        assert!(!restart.replayed);
        assert!(restart.event.to_json().contains("the daemon restarted"));
        // The game as the sinks see it is the same.
        assert_eq!(hub.board(4).unwrap().games, hub2.board(4).unwrap().games);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    pub(crate) async fn with_the_livechess_api_the_hub_shows_what_the_board_shows() {
        let dir = std::env::temp_dir().join(format!("arbiter-physical-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut config = config(&dir);
        config.livechess_api = Some(daemon_config::LiveChessApiConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
        });
        let paths = Paths::new(&dir);
        let syncer = Syncer::start(1, 1).unwrap();
        let hub = Arc::new(Hub::new([4]));
        let mut task = resumed(&config, &paths, &hub, 1_000, &syncer, Published::default()).await;
        play(&mut task, &inputs()).await;
        let physical = hub.physical(4).expect("the physical view is kept");
        assert_eq!(physical.placement, *task.tracker.placement());
        assert!(physical.clock.is_some(), "the emulated clock's frames");
        drop(task);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
