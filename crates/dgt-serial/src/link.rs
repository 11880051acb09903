//! [`Link`]: the sans-IO state machine of one board's serial line.
//!
//! It is fed what happened on the line (the port opened or failed to open, bytes arrived,
//! the port was lost) and the time in milliseconds; it yields the bytes to write, the
//! board events, the outcomes of clock commands and the next time it needs to be woken.
//! It owns the init sequence, the liveness probe, the reconnect backoff and the clock
//! command queue (one in flight, wait for the ACK, one resend, then give up). It does no
//! IO: the tokio task in [`crate::driver`] is a thin shell around it, and tests drive it
//! with an in-memory emulator in virtual time.
//!
//! Life of a connection (fact sheet §7, "Reconnect and liveness"):
//! 1. `Closed`: no port; the shell opens one when [`Link::open_due`] says so.
//! 2. `Settling`: RESET (0x40) is sent so a board left in an update mode by an earlier
//!    session goes quiet; input is dropped for `settle_ms` (as jchip's driver does), so
//!    stale traffic is not mistaken for answers.
//! 3. `Identifying`: VERSION and SERIALNR requests (4D 45), repeated every
//!    `ident_retry_ms` (Bluetooth boards may lose the first bytes while the link comes
//!    up), until both answers came; `ident_timeout_ms` without them: not a (working) DGT
//!    board, close and retry later.
//! 4. `Running`: `Connected` is emitted, then UPDATE_NICE (4B) *before* the board dump
//!    (42), so no change can fall between the dump and the first update; battery status
//!    (4C) and the clock version query follow. A serial number request (45) every
//!    `probe_interval_ms` proves the board is alive: no frame within `probe_timeout_ms`
//!    of a probe closes the link.

use std::collections::VecDeque;

use dgt_protocol::command::sub;
use dgt_protocol::{
    BatteryStatus, BoardEvent, BoardMessage, ClockAck, ClockCommand, ClockVersion, Decoder,
    EventFilter, HostCommand, TimedEvent, Version,
};

/// Timings and choices of the link. The defaults suit real boards; tests shorten them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkConfig {
    /// After the opening RESET, input is dropped for this long (stale traffic).
    pub settle_ms: u64,
    /// The identification requests are repeated this often until the board answers.
    pub ident_retry_ms: u64,
    /// No identification within this long after the settle: give up on this opening.
    pub ident_timeout_ms: u64,
    /// A serial number request is sent this often while running.
    pub probe_interval_ms: u64,
    /// No frame at all within this long after a probe: the link is dead.
    pub probe_timeout_ms: u64,
    /// A clock command is resent once, then given up, after this long without its ACK
    /// (picochess resends after 2 s; fact sheet §5).
    pub ack_timeout_ms: u64,
    /// The reconnect delay while the port is missing or keeps hanging up (a pulled cable:
    /// trying to open a missing device costs one system call, and every second blind is
    /// moves the reconnect search has to rebuild). It doubles after each opening the
    /// device did not answer...
    pub backoff_initial_ms: u64,
    /// ...up to this.
    pub backoff_max_ms: u64,
    /// Ask for the battery status (0x4C) after each connect. Only battery and Bluetooth
    /// boards answer; the others ignore it.
    pub query_battery: bool,
    /// Clock commands waiting behind the one in flight; more are refused at once.
    pub max_queued_clock_commands: usize,
}

impl Default for LinkConfig {
    fn default() -> LinkConfig {
        LinkConfig {
            settle_ms: 100,
            ident_retry_ms: 1000,
            ident_timeout_ms: 5000,
            probe_interval_ms: 1000,
            probe_timeout_ms: 3000,
            ack_timeout_ms: 2000,
            backoff_initial_ms: 250,
            backoff_max_ms: 2000,
            query_battery: true,
            max_queued_clock_commands: 16,
        }
    }
}

/// What the driver knows about the clock behind the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(tag = "clock", rename_all = "snake_case")]
pub enum ClockInfo {
    /// The board has not reported a clock frame yet.
    #[default]
    Unknown,
    /// The board reports that no clock is connected.
    Absent,
    /// A clock is connected.
    Present {
        /// From the answer to the version query (`None` until, or if never, answered).
        version: Option<ClockVersion>,
        /// The version query is still running.
        asking: bool,
    },
}

impl ClockInfo {
    /// The clock's version, once its version query was answered.
    pub fn version(&self) -> Option<ClockVersion> {
        match self {
            ClockInfo::Present { version, .. } => *version,
            ClockInfo::Unknown | ClockInfo::Absent => None,
        }
    }

    /// A short human description: "DGT3000 2.1", "DGT XL 1.0", "none", ...
    pub fn describe(&self) -> String {
        match self {
            ClockInfo::Unknown => "unknown".into(),
            ClockInfo::Absent => "none".into(),
            ClockInfo::Present {
                version: Some(v), ..
            } => {
                let model = if v.is_dgt3000() { "DGT3000" } else { "DGT XL" };
                format!("{model} {}.{}", v.major, v.minor)
            }
            ClockInfo::Present {
                version: None,
                asking: true,
            } => "present (asking its version)".into(),
            ClockInfo::Present {
                version: None,
                asking: false,
            } => "present (did not answer the version query)".into(),
        }
    }
}

/// What the driver knows about the board on the line.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct BoardInfo {
    /// The board answered its identification in the current connection.
    pub connected: bool,
    /// The DGT serial number (5 digits), from the last connection that told it.
    pub serial: Option<String>,
    pub version: Option<Version>,
    pub clock: ClockInfo,
    /// The last battery status (Bluetooth and battery boards only).
    pub battery: Option<BatteryStatus>,
    /// Why the link last went down.
    pub last_disconnect: Option<String>,
}

/// Counters for logs and the closing figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct LinkStats {
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub frames: u64,
    pub decode_errors: u64,
    /// Connections that reached `Running`.
    pub connects: u64,
    /// Openings that failed or connections that were lost.
    pub failures: u64,
}

/// Identifies a clock command the caller queued, to match its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommandId(pub u64);

/// Why a clock command did not get its ACK.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("the board is not connected")]
    NotConnected,
    #[error("no clock is connected to the board")]
    NoClock,
    #[error("{0} clock commands are already waiting; command refused")]
    QueueFull(usize),
    #[error("the clock answered with an error twice (last: {0})")]
    Refused(ClockAck),
    #[error("no ACK from the clock after 2 attempts, {timeout_ms} ms each")]
    NoAck { timeout_ms: u64 },
    #[error("the link went down before the clock answered: {0}")]
    Disconnected(String),
    #[error("the driver stopped")]
    Stopped,
}

/// The outcome of one clock command.
pub type ClockOutcome = Result<ClockAck, ClockError>;

/// Who asked for a clock command: the caller, or the link itself (the version query).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Caller(CommandId),
    VersionQuery,
}

#[derive(Debug, Clone)]
struct Queued {
    origin: Origin,
    command: ClockCommand,
}

#[derive(Debug, Clone)]
struct InFlight {
    origin: Origin,
    sub: u8,
    bytes: Vec<u8>,
    deadline: u64,
    attempts: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Closed {
        reopen_at: u64,
    },
    Settling {
        until: u64,
    },
    Identifying {
        started: u64,
        retry_at: u64,
    },
    Running {
        next_probe: u64,
        probe_since: Option<u64>,
    },
}

/// When to try the port again after the link went down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Retry {
    /// The port is missing or hung up (a pulled cable): try again after the initial delay;
    /// the board comes back the moment it is plugged in.
    Soon,
    /// The port opened but nothing answered like a board: wait, longer each time.
    BackOff,
}

/// Facts of the current connection.
#[derive(Debug, Clone, Default)]
struct Session {
    serial: Option<String>,
    /// A different serial number the board sent once while running: asked again before
    /// it is believed (one stray frame must not make a disconnect/connect pair).
    suspect_serial: Option<String>,
    version: Option<Version>,
    bytes_in: u64,
}

const RESET: u8 = 0x40;
const SEND_BOARD: u8 = 0x42;
const RETURN_SERIAL: u8 = 0x45;
const SEND_UPDATE_NICE: u8 = 0x4B;
const SEND_BATTERY: u8 = 0x4C;
const SEND_VERSION: u8 = 0x4D;

/// The sans-IO link of one board. See the module docs.
#[derive(Debug)]
pub struct Link {
    cfg: LinkConfig,
    phase: Phase,
    decoder: Decoder,
    filter: EventFilter,
    session: Session,
    transmit: Vec<u8>,
    events: VecDeque<TimedEvent>,
    completions: VecDeque<(CommandId, ClockOutcome)>,
    queue: VecDeque<Queued>,
    in_flight: Option<InFlight>,
    info: BoardInfo,
    /// Bumped whenever `info` changes, so the shell publishes only changes.
    info_version: u64,
    stats: LinkStats,
    backoff_ms: u64,
    /// A `Disconnected` was emitted and no `Connected` since: don't repeat it for every
    /// failed attempt.
    down_reported: bool,
}

impl Link {
    /// A link with no port; the first opening is due at once.
    pub fn new(cfg: LinkConfig, now: u64) -> Link {
        let backoff_ms = cfg.backoff_initial_ms;
        Link {
            cfg,
            phase: Phase::Closed { reopen_at: now },
            decoder: Decoder::new(),
            filter: EventFilter::new(),
            session: Session::default(),
            transmit: Vec::new(),
            events: VecDeque::new(),
            completions: VecDeque::new(),
            queue: VecDeque::new(),
            in_flight: None,
            info: BoardInfo::default(),
            info_version: 0,
            stats: LinkStats::default(),
            backoff_ms,
            down_reported: false,
        }
    }

    pub fn config(&self) -> &LinkConfig {
        &self.cfg
    }

    pub fn info(&self) -> &BoardInfo {
        &self.info
    }

    /// Changes whenever [`Link::info`] does.
    pub fn info_version(&self) -> u64 {
        self.info_version
    }

    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// The link wants an open port (false: the shell must close the port it holds).
    pub fn wants_port(&self) -> bool {
        !matches!(self.phase, Phase::Closed { .. })
    }

    /// The board answered its identification and the link runs.
    pub fn is_running(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// The shell should try to open the port now.
    pub fn open_due(&self, now: u64) -> bool {
        matches!(self.phase, Phase::Closed { reopen_at } if now >= reopen_at)
    }

    /// The port opened: start the init sequence.
    pub fn on_opened(&mut self, now: u64) {
        self.decoder = Decoder::new();
        self.filter.reset_clock();
        self.session = Session::default();
        self.transmit.push(RESET);
        self.phase = Phase::Settling {
            until: now + self.cfg.settle_ms,
        };
    }

    /// Opening the port failed (or the board was not among the candidates).
    pub fn on_open_failed(&mut self, now: u64, reason: &str) {
        self.go_down(now, format!("cannot open the port: {reason}"), Retry::Soon);
    }

    /// The port is gone: a read or write error, end of file, a vanished device.
    pub fn on_port_lost(&mut self, now: u64, reason: &str) {
        if self.wants_port() {
            self.go_down(now, reason.to_owned(), Retry::Soon);
        }
    }

    /// Bytes arrived from the board.
    pub fn on_input(&mut self, now: u64, bytes: &[u8]) {
        self.stats.bytes_in += bytes.len() as u64;
        self.session.bytes_in += bytes.len() as u64;
        match self.phase {
            Phase::Closed { .. } | Phase::Settling { .. } => return,
            Phase::Identifying { .. } | Phase::Running { .. } => {}
        }
        let mut decoded = Vec::new();
        self.decoder.feed(bytes, |d| decoded.push(d));
        for d in decoded {
            match d {
                Ok(msg) => {
                    self.stats.frames += 1;
                    self.on_message(now, msg);
                }
                Err(e) => {
                    self.stats.decode_errors += 1;
                    tracing::debug!(error = %e, "noise on the line");
                }
            }
        }
    }

    /// Does what is due at `now`.
    pub fn on_timeout(&mut self, now: u64) {
        match self.phase {
            Phase::Closed { .. } => {}
            Phase::Settling { until } => {
                if now >= until {
                    // Whatever arrived while settling is stale; start clean.
                    self.decoder = Decoder::new();
                    self.start_identifying(now);
                }
            }
            Phase::Identifying { started, retry_at } => {
                if now >= started + self.cfg.ident_timeout_ms {
                    let reason = if self.session.bytes_in == 0 {
                        format!(
                            "no answer to the identification requests within {} ms \
                             (not a DGT board, or it does not answer)",
                            self.cfg.ident_timeout_ms
                        )
                    } else {
                        format!(
                            "{} bytes received but no identification within {} ms \
                             (not a DGT board?)",
                            self.session.bytes_in, self.cfg.ident_timeout_ms
                        )
                    };
                    self.go_down(now, reason, Retry::BackOff);
                    return;
                }
                if now >= retry_at {
                    self.transmit.extend([SEND_VERSION, RETURN_SERIAL]);
                    self.phase = Phase::Identifying {
                        started,
                        retry_at: now + self.cfg.ident_retry_ms,
                    };
                }
            }
            Phase::Running {
                mut next_probe,
                mut probe_since,
            } => {
                if let Some(since) = probe_since {
                    if now >= since + self.cfg.probe_timeout_ms {
                        self.go_down(
                            now,
                            format!(
                                "no answer to the liveness probe within {} ms",
                                self.cfg.probe_timeout_ms
                            ),
                            Retry::BackOff,
                        );
                        return;
                    }
                }
                if now >= next_probe {
                    self.transmit.push(RETURN_SERIAL);
                    probe_since.get_or_insert(now);
                    while next_probe <= now {
                        next_probe += self.cfg.probe_interval_ms.max(1);
                    }
                    self.phase = Phase::Running {
                        next_probe,
                        probe_since,
                    };
                }
                self.check_ack_deadline(now);
            }
        }
    }

    /// When [`Link::on_timeout`] must next be called (or the port opened).
    pub fn poll_timeout(&self) -> Option<u64> {
        let phase = match self.phase {
            Phase::Closed { reopen_at } => reopen_at,
            Phase::Settling { until } => until,
            Phase::Identifying { started, retry_at } => {
                retry_at.min(started + self.cfg.ident_timeout_ms)
            }
            Phase::Running {
                next_probe,
                probe_since,
            } => probe_since.map_or(next_probe, |s| {
                next_probe.min(s + self.cfg.probe_timeout_ms)
            }),
        };
        let ack = self.in_flight.as_ref().map(|f| f.deadline);
        Some(ack.map_or(phase, |a| a.min(phase)))
    }

    /// The bytes to write to the board, oldest first.
    pub fn take_transmit(&mut self) -> Vec<u8> {
        self.stats.bytes_out += self.transmit.len() as u64;
        std::mem::take(&mut self.transmit)
    }

    /// The next board event.
    pub fn poll_event(&mut self) -> Option<TimedEvent> {
        self.events.pop_front()
    }

    /// The next finished clock command.
    pub fn poll_completion(&mut self) -> Option<(CommandId, ClockOutcome)> {
        self.completions.pop_front()
    }

    /// Queues a clock command; its outcome comes from [`Link::poll_completion`]. Refused
    /// at once when the board is not connected, has no clock, or too many wait.
    pub fn send_clock(&mut self, now: u64, id: CommandId, command: ClockCommand) {
        let refusal = if !self.is_running() {
            Some(ClockError::NotConnected)
        } else if self.info.clock == ClockInfo::Absent {
            Some(ClockError::NoClock)
        } else if self.queue.len() >= self.cfg.max_queued_clock_commands {
            Some(ClockError::QueueFull(self.queue.len()))
        } else {
            None
        };
        if let Some(e) = refusal {
            self.completions.push_back((id, Err(e)));
            return;
        }
        self.queue.push_back(Queued {
            origin: Origin::Caller(id),
            command,
        });
        self.start_next_command(now);
    }

    /// Asks the board for a full dump (0x42); false when not connected.
    pub fn request_dump(&mut self) -> bool {
        if self.is_running() {
            self.transmit.push(SEND_BOARD);
        }
        self.is_running()
    }

    /// The driver stops: RESET the board (it goes quiet) and fail waiting commands.
    pub fn shutdown(&mut self, now: u64) {
        if self.wants_port() {
            self.transmit.push(RESET);
        }
        self.fail_commands(|| ClockError::Stopped);
        if self.info.connected || !self.down_reported {
            self.emit(
                now,
                BoardEvent::Disconnected {
                    reason: "driver stopped".into(),
                },
            );
        }
        self.set_connected(false);
        self.phase = Phase::Closed {
            reopen_at: u64::MAX,
        };
    }

    fn start_identifying(&mut self, now: u64) {
        self.transmit.extend([SEND_VERSION, RETURN_SERIAL]);
        self.phase = Phase::Identifying {
            started: now,
            retry_at: now + self.cfg.ident_retry_ms,
        };
    }

    fn go_down(&mut self, now: u64, reason: String, retry: Retry) {
        self.stats.failures += 1;
        if self.info.connected || !self.down_reported {
            tracing::warn!(%reason, "board link down");
            self.emit(
                now,
                BoardEvent::Disconnected {
                    reason: reason.clone(),
                },
            );
            self.down_reported = true;
        } else {
            tracing::debug!(%reason, "reconnect attempt failed");
        }
        self.set_connected(false);
        self.info.last_disconnect = Some(reason.clone());
        self.touch_info();
        self.fail_commands(|| ClockError::Disconnected(reason.clone()));
        // Report a frame cut by the loss, then forget it.
        for e in self.decoder.finish().into_iter().filter_map(Result::err) {
            tracing::debug!(error = %e, "at disconnect");
        }
        self.transmit.clear();
        let delay = match retry {
            Retry::Soon => self.cfg.backoff_initial_ms,
            Retry::BackOff => {
                let d = self.backoff_ms;
                self.backoff_ms = (self.backoff_ms * 2).min(self.cfg.backoff_max_ms);
                d
            }
        };
        self.phase = Phase::Closed {
            reopen_at: now + delay,
        };
    }

    fn fail_commands(&mut self, error: impl Fn() -> ClockError) {
        let waiting = self.in_flight.take().map(|f| f.origin).into_iter();
        let queued: Vec<Origin> = self.queue.drain(..).map(|q| q.origin).collect();
        for origin in waiting.chain(queued) {
            self.complete(origin, Err(error()));
        }
    }

    fn set_connected(&mut self, connected: bool) {
        if self.info.connected != connected {
            self.info.connected = connected;
            self.touch_info();
        }
    }

    fn touch_info(&mut self) {
        self.info_version += 1;
    }

    fn emit(&mut self, t_ms: u64, event: BoardEvent) {
        self.events.push_back(TimedEvent { t_ms, event });
    }

    fn on_message(&mut self, now: u64, msg: BoardMessage) {
        // Any well-formed frame proves the board is alive.
        if let Phase::Running {
            next_probe,
            probe_since: Some(_),
        } = self.phase
        {
            self.phase = Phase::Running {
                next_probe,
                probe_since: None,
            };
        }
        match &msg {
            BoardMessage::SerialNumber(s) => {
                let differs = self
                    .session
                    .serial
                    .as_ref()
                    .is_some_and(|old| *old != s.number);
                let confirmed = self.session.suspect_serial.as_ref() == Some(&s.number);
                if differs && self.is_running() && !confirmed {
                    tracing::warn!(
                        "the board sent serial {} where it is {}: asking again before \
                         taking it for another board",
                        s.number,
                        self.session.serial.as_deref().unwrap_or("?")
                    );
                    self.session.suspect_serial = Some(s.number.clone());
                    self.transmit.push(RETURN_SERIAL);
                    return;
                }
                if !differs && self.session.suspect_serial.take().is_some() {
                    tracing::info!(
                        "the board confirmed its serial {}: the other one was a stray frame",
                        s.number
                    );
                }
                let swapped = differs;
                if swapped && self.is_running() {
                    // Another board answers on this port (cables swapped): start over on
                    // the same port, so its own dump follows.
                    let reason = format!(
                        "a different board (serial {}) now answers on this port",
                        s.number
                    );
                    self.emit(now, BoardEvent::Disconnected { reason });
                    self.set_connected(false);
                    self.fail_commands(|| ClockError::Disconnected("board swapped".into()));
                    self.session = Session::default();
                    self.filter.reset_clock();
                    self.start_identifying(now);
                }
                self.session.serial = Some(s.number.clone());
                if self.info.serial.as_ref() != Some(&s.number) {
                    self.info.serial = Some(s.number.clone());
                    self.touch_info();
                }
            }
            BoardMessage::Version(v) => {
                self.session.version = Some(*v);
                if self.info.version != Some(*v) {
                    self.info.version = Some(*v);
                    self.touch_info();
                }
            }
            _ => {}
        }
        match self.phase {
            Phase::Identifying { .. } => {
                if self.session.serial.is_some() && self.session.version.is_some() {
                    self.become_running(now);
                }
            }
            Phase::Running { .. } => {
                if let BoardMessage::ClockAck(ack) = &msg {
                    self.on_ack(now, ack);
                }
                for event in self.filter.on_message(&msg) {
                    self.on_event(now, &event);
                    self.emit(now, event);
                }
            }
            Phase::Closed { .. } | Phase::Settling { .. } => {}
        }
    }

    fn become_running(&mut self, now: u64) {
        self.stats.connects += 1;
        self.backoff_ms = self.cfg.backoff_initial_ms;
        self.down_reported = false;
        self.set_connected(true);
        self.info.clock = ClockInfo::Unknown;
        self.info.last_disconnect = None;
        self.touch_info();
        tracing::info!(
            serial = self.session.serial.as_deref().unwrap_or("?"),
            "board connected"
        );
        self.emit(
            now,
            BoardEvent::Connected {
                serial: self.session.serial.clone(),
                version: self.session.version,
                // Not known yet: the clock may have changed while the link was down, and
                // its version query follows below.
                clock_version: None,
            },
        );
        // UPDATE_NICE before the dump: every change after the dump is reported.
        self.transmit.extend([SEND_UPDATE_NICE, SEND_BOARD]);
        if self.cfg.query_battery {
            self.transmit.push(SEND_BATTERY);
        }
        self.phase = Phase::Running {
            next_probe: now + self.cfg.probe_interval_ms,
            probe_since: None,
        };
        // Until a clock frame (or the answer) comes, whether there is a clock is unknown.
        self.queue.push_front(Queued {
            origin: Origin::VersionQuery,
            command: ClockCommand::Version,
        });
        self.start_next_command(now);
    }

    /// Keeps [`BoardInfo`] in step with what the filter reports.
    fn on_event(&mut self, now: u64, event: &BoardEvent) {
        match event {
            BoardEvent::ClockConnected => {
                let version_known = matches!(
                    self.info.clock,
                    ClockInfo::Present {
                        version: Some(_),
                        ..
                    }
                );
                let asking = self.version_query_pending();
                if !version_known && !asking {
                    // A clock was plugged in: learn what it is.
                    self.queue.push_back(Queued {
                        origin: Origin::VersionQuery,
                        command: ClockCommand::Version,
                    });
                }
                if !matches!(self.info.clock, ClockInfo::Present { .. }) {
                    self.set_clock_info(ClockInfo::Present {
                        version: None,
                        asking: self.version_query_pending(),
                    });
                }
                self.start_next_command(now);
            }
            BoardEvent::ClockDisconnected => {
                self.set_clock_info(ClockInfo::Absent);
                self.fail_commands(|| ClockError::NoClock);
            }
            BoardEvent::Battery(b) if self.info.battery != Some(*b) => {
                self.info.battery = Some(*b);
                self.touch_info();
            }
            _ => {}
        }
    }

    fn set_clock_info(&mut self, clock: ClockInfo) {
        if self.info.clock != clock {
            self.info.clock = clock;
            self.touch_info();
        }
    }

    fn version_query_pending(&self) -> bool {
        self.in_flight
            .as_ref()
            .is_some_and(|f| f.origin == Origin::VersionQuery)
            || self.queue.iter().any(|q| q.origin == Origin::VersionQuery)
    }

    fn start_next_command(&mut self, now: u64) {
        if self.in_flight.is_some() || !self.is_running() {
            return;
        }
        let Some(next) = self.queue.pop_front() else {
            return;
        };
        let bytes = HostCommand::Clock(next.command.clone()).encode();
        self.transmit.extend_from_slice(&bytes);
        self.in_flight = Some(InFlight {
            origin: next.origin,
            sub: next.command.sub(),
            bytes,
            deadline: now + self.cfg.ack_timeout_ms,
            attempts: 1,
        });
    }

    fn on_ack(&mut self, now: u64, ack: &ClockAck) {
        let Some(f) = &mut self.in_flight else {
            return;
        };
        if !ack_answers(f.sub, ack) {
            return;
        }
        if ack.is_ok() {
            let origin = f.origin;
            self.in_flight = None;
            self.complete(origin, Ok(*ack));
        } else if f.attempts < 2 {
            tracing::debug!(%ack, "clock error ACK; resending once");
            f.attempts += 1;
            f.deadline = now + self.cfg.ack_timeout_ms;
            let bytes = f.bytes.clone();
            self.transmit.extend_from_slice(&bytes);
            return;
        } else {
            let origin = f.origin;
            self.in_flight = None;
            self.complete(origin, Err(ClockError::Refused(*ack)));
        }
        self.start_next_command(now);
    }

    fn check_ack_deadline(&mut self, now: u64) {
        let Some(f) = &mut self.in_flight else {
            return;
        };
        if now < f.deadline {
            return;
        }
        if f.attempts < 2 {
            tracing::debug!(sub = f.sub, "no clock ACK in time; resending once");
            f.attempts += 1;
            f.deadline = now + self.cfg.ack_timeout_ms;
            let bytes = f.bytes.clone();
            self.transmit.extend_from_slice(&bytes);
            return;
        }
        let origin = f.origin;
        self.in_flight = None;
        self.complete(
            origin,
            Err(ClockError::NoAck {
                timeout_ms: self.cfg.ack_timeout_ms,
            }),
        );
        self.start_next_command(now);
    }

    fn complete(&mut self, origin: Origin, outcome: ClockOutcome) {
        match origin {
            Origin::Caller(id) => self.completions.push_back((id, outcome)),
            Origin::VersionQuery => {
                let clock = match (&outcome, self.info.clock) {
                    (Ok(ack), _) => ClockInfo::Present {
                        version: ack.version(),
                        asking: false,
                    },
                    (Err(_), ClockInfo::Present { version, .. }) => ClockInfo::Present {
                        version,
                        asking: false,
                    },
                    // Neither a clock frame nor an answer: nothing answers for a clock.
                    (Err(ClockError::NoAck { .. }), ClockInfo::Unknown) => ClockInfo::Absent,
                    (Err(_), other) => other,
                };
                self.set_clock_info(clock);
            }
        }
    }
}

/// Whether `ack` answers the clock sub-command `sub`. Sources disagree on two answers
/// (fact sheet §10.5): ASCII may be answered as DISPLAY (01), END as "ready" (81).
fn ack_answers(sub: u8, ack: &ClockAck) -> bool {
    match ack.answers() {
        Some(s) => s == sub || (s == sub::DISPLAY && sub == sub::ASCII),
        None => sub == sub::END && ack.ack1 == 0x81,
    }
}

#[cfg(test)]
mod tests;
