//! [`Emulator`]: a DGT board with a DGT3000 behind it, sans-IO. It is fed host bytes,
//! physical [`Action`]s and virtual time, and produces the board-to-host bytes a real
//! board would send (fact sheet §9), with their times.

use std::collections::VecDeque;
use std::time::Duration;

use chess_rules::{Color, Placement};
use dgt_protocol::capture::{CaptureRecord, Direction, TimeControl};
use dgt_protocol::{
    BatteryStatus, BoardMessage, BusAddress, ClockAck, ClockCommand, ClockSide, ClockTime,
    ClockVersion, CommandDecoder, EeMoves, EeRecord, FieldIndex, FieldUpdate, Hms, HostCommand,
    HoursMinutes, LedCommand, Orientation, PieceCode, RawBoard, SerialNumber, SideTime, Version,
};

use crate::action::Action;

mod periods;

pub use periods::{MoveCount, PeriodIndex};

/// How the emulated device behaves on the line, for driver tests.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LineBehaviour {
    /// A working DGT board.
    #[default]
    Board,
    /// A board that never answers anything (but takes the bytes).
    Mute,
    /// Some other device on the port: it answers every chunk of host bytes with this
    /// text (e.g. a modem's `"\r\nERROR\r\n"`) and never sends a DGT frame.
    NotDgt { reply: Vec<u8> },
}

/// Everything configurable about the emulated board and clock.
#[derive(Debug, Clone)]
pub struct EmulatorConfig {
    /// Five digits (SERIALNR; also the bus address, read as decimal, modulo 2^14).
    pub serial: String,
    /// Ten characters (LONG_SERIALNR).
    pub long_serial: String,
    pub version: Version,
    pub trademark: String,
    /// How the board lies; actions name real squares and are mapped through this.
    pub orientation: Orientation,
    /// The placement on the board at power-up.
    pub start: Placement,
    /// Whether a clock is plugged in at power-up.
    pub clock_present: bool,
    pub clock_version: ClockVersion,
    /// Which side of the clock is White's.
    pub white_side: ClockSide,
    pub white_time: Duration,
    pub black_time: Duration,
    /// Fischer increment, added to a player's time at each of their lever presses
    /// (without `periods`; with them, each period's own increment is added instead).
    pub increment: Duration,
    /// A control with periods (`40/5400+30:1800+30`) the clock runs by its own count of
    /// each player's presses: at the press that brings a player's count to a period's
    /// end it adds the next period's time, and each press adds the increment of the
    /// period the player's clock is in. `None`: `white_time`/`black_time` and
    /// `increment` only (a `BASE+INC` setting). See [`EmulatorConfig::with_time_control`].
    pub periods: Option<TimeControl>,
    /// The battery-low sign on the clock.
    pub battery_low: bool,
    /// The answer to SEND_BATTERY_STATUS (0x4C); `None`: the board does not answer it.
    pub battery: Option<BatteryStatus>,
    /// 0: every field change is reported at once. Otherwise the board scans every this
    /// many ms and reports what changed since the last scan (quick lift-and-replace
    /// moves in between go unseen, as on a real board: 200-250 ms per scan).
    pub scan_interval_ms: u64,
    /// Delay between a clock command and its ACK.
    pub ack_delay_ms: u64,
    /// Behave like a Bluetooth board with firmware 2.10: an all-zero BWTIME frame right
    /// after each clock command (fact sheet §4.4), before the ACK.
    pub zero_frame_after_clock_command: bool,
    pub behaviour: LineBehaviour,
}

impl Default for EmulatorConfig {
    fn default() -> EmulatorConfig {
        EmulatorConfig {
            serial: "01025".into(),
            long_serial: "3.25A01025".into(),
            version: Version { major: 1, minor: 2 },
            trademark: "Digital Game Technology\r\nEmulated e-Board (dgt-sim)\r\n".into(),
            orientation: Orientation::Normal,
            start: Placement::start(),
            clock_present: true,
            clock_version: ClockVersion { major: 2, minor: 1 },
            white_side: ClockSide::Left,
            white_time: Duration::from_secs(300),
            black_time: Duration::from_secs(300),
            increment: Duration::from_secs(3),
            periods: None,
            battery_low: false,
            battery: Some(BatteryStatus {
                percent: 88,
                time_left: None,
                on_time: HoursMinutes {
                    hours: 0,
                    minutes: 0,
                },
                standby_days: 0,
                standby: HoursMinutes {
                    hours: 0,
                    minutes: 0,
                },
                charging: false,
                discharging: true,
            }),
            scan_interval_ms: 0,
            ack_delay_ms: 0,
            zero_frame_after_clock_command: false,
            behaviour: LineBehaviour::Board,
        }
    }
}

impl EmulatorConfig {
    /// This configuration with the clock set for `control` as an arbiter sets a DGT3000:
    /// both players on the first period's time, its increment, and the later periods (if
    /// any) added by the clock's own move counter.
    pub fn with_time_control(self, control: TimeControl) -> EmulatorConfig {
        let base = Duration::from_secs(u64::from(control.base_secs()));
        EmulatorConfig {
            white_time: base,
            black_time: base,
            increment: Duration::from_secs(u64::from(control.first_increment_secs())),
            periods: (!control.is_sudden_death_only()).then_some(control),
            ..self
        }
    }
}

/// The board's reporting mode (fact sheet §3, §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardMode {
    /// After 0x40 (and at power-up): answers only.
    Idle,
    /// 0x43: field updates, clock frames at least once a second.
    Update,
    /// 0x44: field updates only.
    UpdateBoard,
    /// 0x4B: field updates, clock frames when the clock data changes.
    UpdateNice,
}

/// Bytes the board sent at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputChunk {
    pub t_ms: u64,
    pub bytes: Vec<u8>,
}

/// The emulated clock.
#[derive(Debug, Clone)]
struct Clock {
    left_ms: u64,
    right_ms: u64,
    running: bool,
    /// The side whose lever is up: its time runs while the clock runs.
    lever: ClockSide,
    /// The clock has run since it was last set (a first lever press starts it).
    started: bool,
    flag: Option<ClockSide>,
    increment_ms: u64,
    /// The control whose periods the clock adds (`None`: `increment_ms` only; a host's
    /// SET_AND_RUN takes the clock out of it, as it does the increment).
    periods: Option<TimeControl>,
    /// The clock's own move counter of each side (left, right).
    counts: [MoveCount; 2],
    /// The period each side's clock is in (left, right).
    in_period: [PeriodIndex; 2],
    /// Text on the display instead of the times.
    text: Option<String>,
}

/// Index of a side in the clock's per-side arrays.
fn slot(side: ClockSide) -> usize {
    match side {
        ClockSide::Left => 0,
        ClockSide::Right => 1,
    }
}

impl Clock {
    fn ms_mut(&mut self, side: ClockSide) -> &mut u64 {
        match side {
            ClockSide::Left => &mut self.left_ms,
            ClockSide::Right => &mut self.right_ms,
        }
    }

    fn ms(&self, side: ClockSide) -> u64 {
        match side {
            ClockSide::Left => self.left_ms,
            ClockSide::Right => self.right_ms,
        }
    }

    /// Milliseconds until the display changes or a flag falls, if the clock runs.
    fn next_change_in(&self) -> Option<u64> {
        if !self.running || self.flag.is_some() {
            return None;
        }
        let rem = self.ms(self.lever);
        if rem == 0 {
            return Some(0);
        }
        let shown = rem.div_ceil(1000);
        Some(rem - (shown - 1) * 1000)
    }

    fn elapse(&mut self, dt: u64) {
        if !self.running || self.flag.is_some() || dt == 0 {
            return;
        }
        let side = self.lever;
        let rem = self.ms_mut(side);
        *rem = rem.saturating_sub(dt);
        if *rem == 0 {
            self.flag = Some(side);
            self.running = false;
        }
    }

    /// A press of `side` that the clock counts (its lever was up and its time ran): the
    /// count goes up and the side's time gains the increment, and the next period's time
    /// when the count reaches the end of the period it is in.
    fn counted_press(&mut self, side: ClockSide) {
        let i = slot(side);
        self.counts[i] = self.counts[i].next();
        let gain_ms = match &self.periods {
            None => self.increment_ms,
            Some(control) => {
                let gain = periods::counted_press(control, self.in_period[i], self.counts[i]);
                if let Some(p) = gain.began {
                    self.in_period[i] = p;
                }
                gain.increment_ms + gain.added_ms
            }
        };
        let rem = self.ms_mut(side);
        *rem = rem.saturating_add(gain_ms).min(Hms::MAX.millis());
    }

    /// Whether the display shows the time-per-move sign: some period has an increment.
    fn time_per_move(&self) -> bool {
        match &self.periods {
            None => self.increment_ms > 0,
            Some(control) => control.periods().iter().any(|p| p.increment_secs > 0),
        }
    }

    fn reading(&self, side: ClockSide) -> Hms {
        let secs = self.ms(side).div_ceil(1000);
        Hms::from_secs(u32::try_from(secs).unwrap_or(u32::MAX)).unwrap_or(Hms::MAX)
    }
}

/// Upper bound on undelivered output; beyond it bytes are dropped, as a full OS buffer
/// would.
const MAX_PENDING_OUTPUT: usize = 1 << 20;
/// The EEPROM log holds 0x1F00 bytes including its end marker.
const EE_CAPACITY: usize = 0x1F00 - 1;

/// The emulated board and clock. All times are virtual milliseconds.
pub struct Emulator {
    cfg: EmulatorConfig,
    now: u64,
    mode: BoardMode,
    physical: RawBoard,
    reported: RawBoard,
    next_scan: Option<u64>,
    clock: Clock,
    clock_present: bool,
    plugged: bool,
    hung: bool,
    last_clock_frame: Option<([u8; 7], u64)>,
    commands: CommandDecoder,
    /// Output scheduled for later (delayed ACKs), in time order.
    scheduled: VecDeque<(u64, Vec<u8>)>,
    output: Vec<OutputChunk>,
    pending_bytes: usize,
    capture: Option<Vec<CaptureRecord>>,
    ee_log: VecDeque<EeRecord>,
    ee_bytes: usize,
    beeps: u32,
    leds: Option<LedCommand>,
    /// Clock commands still to be carried out without their ACK reaching the host.
    acks_to_drop: u32,
}

impl Emulator {
    /// A board powered up at virtual time 0 in IDLE mode, the clock set and stopped.
    pub fn new(cfg: EmulatorConfig) -> Emulator {
        let physical = RawBoard::from_placement(&cfg.start, cfg.orientation);
        let (white_ms, black_ms) = (
            cfg.white_time.as_millis() as u64,
            cfg.black_time.as_millis() as u64,
        );
        let (left_ms, right_ms) = match cfg.white_side {
            ClockSide::Left => (white_ms, black_ms),
            ClockSide::Right => (black_ms, white_ms),
        };
        let clock = Clock {
            left_ms,
            right_ms,
            running: false,
            // Black's lever is up: Black's first press starts White's time.
            lever: cfg.white_side.other(),
            started: false,
            flag: None,
            increment_ms: cfg.increment.as_millis() as u64,
            periods: cfg.periods,
            counts: [MoveCount::default(); 2],
            in_period: [PeriodIndex::default(); 2],
            text: None,
        };
        let mut emu = Emulator {
            clock_present: cfg.clock_present,
            now: 0,
            mode: BoardMode::Idle,
            physical,
            reported: physical,
            next_scan: None,
            clock,
            plugged: true,
            hung: false,
            last_clock_frame: None,
            commands: CommandDecoder::new(),
            scheduled: VecDeque::new(),
            output: Vec::new(),
            pending_bytes: 0,
            capture: None,
            ee_log: VecDeque::new(),
            ee_bytes: 0,
            beeps: 0,
            leds: None,
            acks_to_drop: 0,
            cfg,
        };
        emu.log_power_up();
        emu
    }

    pub fn config(&self) -> &EmulatorConfig {
        &self.cfg
    }

    /// Virtual time now, ms.
    pub fn now_ms(&self) -> u64 {
        self.now
    }

    pub fn mode(&self) -> BoardMode {
        self.mode
    }

    /// Whether the board's own cable is plugged in (the serving layer closes the line
    /// while it is not).
    pub fn is_plugged(&self) -> bool {
        self.plugged
    }

    /// What stands on the board, as real squares.
    pub fn placement(&self) -> Placement {
        self.physical.placement(self.cfg.orientation)
    }

    /// The fields as the board reads them.
    pub fn raw_board(&self) -> RawBoard {
        self.physical
    }

    /// What a clock frame would say now.
    pub fn clock_time(&self) -> ClockTime {
        if !self.clock_present {
            return ClockTime {
                no_clock: true,
                ..ClockTime::default()
            };
        }
        let c = &self.clock;
        let tpm = c.time_per_move();
        let side = |s: ClockSide| SideTime {
            time: c.reading(s),
            flag_fallen: c.flag == Some(s),
            time_per_move: tpm,
            flag_shown: false,
        };
        ClockTime {
            left: side(ClockSide::Left),
            right: side(ClockSide::Right),
            running: c.running,
            lever: c.lever,
            battery_low: self.cfg.battery_low,
            left_turn_bit: c.lever == ClockSide::Left,
            right_turn_bit: c.lever == ClockSide::Right,
            no_clock: false,
        }
    }

    /// A player's exact remaining time.
    pub fn remaining(&self, color: Color) -> Duration {
        Duration::from_millis(self.clock.ms(self.side_of(color)))
    }

    /// The side whose lever is up.
    pub fn lever(&self) -> ClockSide {
        self.clock.lever
    }

    /// The clock's move counter for a player: his presses it counted (see
    /// [`EmulatorConfig::periods`]).
    pub fn move_count(&self, color: Color) -> MoveCount {
        self.clock.counts[slot(self.side_of(color))]
    }

    /// The period a player's clock is in (0 until it adds the second period's time).
    pub fn period(&self, color: Color) -> PeriodIndex {
        self.clock.in_period[slot(self.side_of(color))]
    }

    /// Whether the clock's time runs.
    pub fn clock_running(&self) -> bool {
        self.clock.running
    }

    /// The side whose flag fell, if any.
    pub fn flag(&self) -> Option<ClockSide> {
        self.clock.flag
    }

    /// The text on the clock's display, when a host put text there (`None`: the times).
    pub fn display_text(&self) -> Option<&str> {
        self.clock.text.as_deref()
    }

    /// How many beep commands the clock received.
    pub fn beeps(&self) -> u32 {
        self.beeps
    }

    /// The next `n` clock commands are carried out but their ACKs are lost on the line
    /// (for tests of the host's resend).
    pub fn drop_next_acks(&mut self, n: u32) {
        self.acks_to_drop = n;
    }

    /// The last LED command (Revelation II).
    pub fn leds(&self) -> Option<LedCommand> {
        self.leds
    }

    /// The clock side of a colour.
    pub fn side_of(&self, color: Color) -> ClockSide {
        match color {
            Color::White => self.cfg.white_side,
            Color::Black => self.cfg.white_side.other(),
        }
    }

    /// Starts keeping a capture of all traffic (take it with [`Emulator::take_capture`]).
    pub fn record_capture(&mut self) {
        self.capture.get_or_insert_with(Vec::new);
    }

    /// The traffic recorded since the last call.
    pub fn take_capture(&mut self) -> Vec<CaptureRecord> {
        self.capture
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Output produced so far, with times, oldest first.
    pub fn take_output(&mut self) -> Vec<OutputChunk> {
        self.pending_bytes = 0;
        std::mem::take(&mut self.output)
    }

    /// Output produced so far, as one byte string.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        self.take_output()
            .into_iter()
            .flat_map(|c| c.bytes)
            .collect()
    }

    /// The next virtual time at which the emulator does something by itself (a clock
    /// tick, a flag, a scan, a heartbeat frame, a delayed ACK); `None` if nothing is due.
    pub fn next_deadline(&self) -> Option<u64> {
        let mut d: Option<u64> = None;
        let mut consider = |t: u64| d = Some(d.map_or(t, |x| x.min(t)));
        if let Some(dt) = self.clock.next_change_in() {
            consider(self.now + dt);
        }
        if let Some(t) = self.next_scan {
            consider(t);
        }
        if let Some(&(t, _)) = self.scheduled.front() {
            consider(t);
        }
        if self.mode == BoardMode::Update && self.sends() {
            if let Some((_, sent)) = self.last_clock_frame {
                consider(sent + 1000);
            }
        }
        d
    }

    /// Lets virtual time pass up to `t_ms` (earlier times are ignored), doing everything
    /// that falls due on the way at its own time.
    pub fn advance_to(&mut self, t_ms: u64) {
        while let Some(d) = self.next_deadline() {
            if d > t_ms || d < self.now {
                break;
            }
            self.step_to(d);
            self.on_deadline();
            if self.next_deadline() == Some(d) && d == self.now {
                // Nothing more can happen at this instant.
                break;
            }
        }
        if t_ms > self.now {
            self.step_to(t_ms);
            self.on_deadline();
        }
    }

    fn step_to(&mut self, t: u64) {
        if t > self.now {
            self.clock.elapse(t - self.now);
            self.now = t;
        }
    }

    fn on_deadline(&mut self) {
        while let Some(&(t, _)) = self.scheduled.front() {
            if t > self.now {
                break;
            }
            if let Some((_, bytes)) = self.scheduled.pop_front() {
                self.emit(&bytes);
            }
        }
        if self.next_scan.is_some_and(|t| t <= self.now) {
            self.next_scan = None;
            self.scan();
        }
        self.maybe_send_clock();
    }

    /// Host bytes arrive now.
    pub fn receive(&mut self, bytes: &[u8]) {
        if !self.plugged {
            return; // The bytes go nowhere.
        }
        if let Some(cap) = &mut self.capture {
            cap.push(CaptureRecord {
                t_ms: self.now,
                direction: Direction::ToBoard,
                bytes: bytes.to_vec(),
            });
        }
        if self.hung {
            return;
        }
        match &self.cfg.behaviour {
            LineBehaviour::Board => {}
            LineBehaviour::Mute => return,
            LineBehaviour::NotDgt { reply } => {
                let reply = reply.clone();
                self.emit(&reply);
                return;
            }
        }
        // Bytes that are no command are ignored, as a board does.
        for cmd in self.commands.push(bytes).into_iter().flatten() {
            self.command(cmd);
        }
    }

    /// Host bytes arrive at `t_ms`.
    pub fn receive_at(&mut self, t_ms: u64, bytes: &[u8]) {
        self.advance_to(t_ms);
        self.receive(bytes);
    }

    /// Something physical happens now.
    pub fn apply(&mut self, action: &Action) {
        match action {
            Action::Lift(sq) => self.set_field(*sq, PieceCode::Empty),
            Action::Place(sq, p) => self.set_field(*sq, PieceCode::Piece(*p)),
            Action::PressClock(color) => self.press(*color),
            Action::PauseClock => {
                if self.clock_present && self.clock.flag.is_none() {
                    self.clock.running = !self.clock.running;
                    self.clock.started = true;
                }
            }
            Action::ClockCable { plugged } => self.clock_present = *plugged,
            Action::BoardCable { plugged } => {
                if *plugged && !self.plugged {
                    self.power_up();
                }
                self.plugged = *plugged;
                if !*plugged {
                    self.output.clear();
                    self.pending_bytes = 0;
                    self.scheduled.clear();
                }
            }
            Action::LineNoise(bytes) => self.emit(bytes),
            Action::ClockButton(button) => {
                if self.clock_present && self.acks_enabled() {
                    let frame = BoardMessage::ClockAck(ClockAck::for_button(*button)).encode();
                    self.emit(&frame);
                }
            }
            Action::Hang { hung } => self.hung = *hung,
            Action::TurnBoard => self.cfg.orientation = self.cfg.orientation.flipped(),
            Action::AdjustTime { color, delta_ms } => {
                let side = self.side_of(*color);
                let ms = self.clock.ms_mut(side);
                *ms = ms.saturating_add_signed(*delta_ms);
            }
            Action::SetMoveCounter { color, count } => {
                if self.clock_present {
                    let side = self.side_of(*color);
                    self.clock.counts[slot(side)] = *count;
                }
            }
        }
        self.maybe_send_clock();
    }

    /// Something physical happens at `t_ms`.
    pub fn apply_at(&mut self, t_ms: u64, action: &Action) {
        self.advance_to(t_ms);
        self.apply(action);
    }

    fn set_field(&mut self, sq: chess_rules::Square, code: PieceCode) {
        let field = FieldIndex::from_square(sq, self.cfg.orientation);
        if self.physical.get(field) == code {
            return;
        }
        self.physical.set(field, code);
        self.log_ee(EeRecord::Field {
            field,
            piece: code,
            quick: false,
        });
        if self.cfg.scan_interval_ms == 0 {
            self.scan();
        } else if self.next_scan.is_none() {
            let s = self.cfg.scan_interval_ms;
            self.next_scan = Some((self.now / s + 1) * s);
        }
    }

    /// Reports the fields that changed since the last scan, in field order.
    fn scan(&mut self) {
        for field in FieldIndex::all() {
            let now = self.physical.get(field);
            if self.reported.get(field) != now {
                self.reported.set(field, now);
                if self.mode != BoardMode::Idle {
                    let frame =
                        BoardMessage::FieldUpdate(FieldUpdate { field, piece: now }).encode();
                    self.emit(&frame);
                }
            }
        }
    }

    fn press(&mut self, color: Color) {
        if !self.clock_present {
            return;
        }
        let side = self.side_of(color);
        let c = &mut self.clock;
        if c.lever == side {
            c.lever = side.other();
            // Only a press while the time runs is a move to the clock: the press that
            // starts it and a lever turned while it is stopped (an arbiter handing the
            // move back) are not counted.
            if c.running && c.flag.is_none() {
                c.counted_press(side);
            }
            let time = c.reading(side);
            self.log_ee(EeRecord::Time {
                display: side,
                time,
            });
        }
        let c = &mut self.clock;
        if !c.started && c.flag.is_none() {
            c.started = true;
            c.running = true;
        }
    }

    fn acks_enabled(&self) -> bool {
        matches!(self.mode, BoardMode::Update | BoardMode::UpdateNice)
    }

    fn sends(&self) -> bool {
        self.plugged && !self.hung && self.cfg.behaviour == LineBehaviour::Board
    }

    fn maybe_send_clock(&mut self) {
        if !matches!(self.mode, BoardMode::Update | BoardMode::UpdateNice) || !self.sends() {
            return;
        }
        let payload = self.clock_frame_payload();
        let due = match self.last_clock_frame {
            None => true,
            Some((last, sent)) => {
                last != payload || (self.mode == BoardMode::Update && self.now >= sent + 1000)
            }
        };
        if due {
            self.last_clock_frame = Some((payload, self.now));
            let frame = BoardMessage::ClockTime(self.clock_time()).encode();
            self.emit(&frame);
        }
    }

    fn clock_frame_payload(&self) -> [u8; 7] {
        let frame = BoardMessage::ClockTime(self.clock_time()).encode();
        let mut p = [0u8; 7];
        p.copy_from_slice(&frame[3..10]);
        p
    }

    fn send_message(&mut self, msg: BoardMessage) {
        let frame = msg.encode();
        self.emit(&frame);
    }

    fn emit(&mut self, bytes: &[u8]) {
        if !self.plugged || self.hung || bytes.is_empty() {
            return;
        }
        if self.pending_bytes + bytes.len() > MAX_PENDING_OUTPUT {
            return;
        }
        if let Some(cap) = &mut self.capture {
            cap.push(CaptureRecord {
                t_ms: self.now,
                direction: Direction::ToHost,
                bytes: bytes.to_vec(),
            });
        }
        self.pending_bytes += bytes.len();
        match self.output.last_mut() {
            Some(last) if last.t_ms == self.now => last.bytes.extend_from_slice(bytes),
            _ => self.output.push(OutputChunk {
                t_ms: self.now,
                bytes: bytes.to_vec(),
            }),
        }
    }

    fn command(&mut self, cmd: HostCommand) {
        match cmd {
            HostCommand::Reset | HostCommand::StartBootloader | HostCommand::ToBusMode => {
                self.set_mode(BoardMode::Idle)
            }
            HostCommand::SendUpdate => self.set_mode(BoardMode::Update),
            HostCommand::SendUpdateBoard => self.set_mode(BoardMode::UpdateBoard),
            HostCommand::SendUpdateNice => self.set_mode(BoardMode::UpdateNice),
            HostCommand::SendClock => self.send_message(BoardMessage::ClockTime(self.clock_time())),
            HostCommand::SendBoard => {
                // A dump is a fresh scan.
                self.reported = self.physical;
                self.next_scan = None;
                self.send_message(BoardMessage::BoardDump {
                    board: self.physical,
                });
            }
            HostCommand::ReturnSerialNumber => {
                self.send_message(BoardMessage::SerialNumber(SerialNumber {
                    number: self.cfg.serial.clone(),
                    storage_version: None,
                }))
            }
            HostCommand::ReturnBusAddress => {
                let n: u32 = self.cfg.serial.parse().unwrap_or(0);
                self.send_message(BoardMessage::BusAddress(BusAddress {
                    address: (n % 0x4000) as u16,
                }));
            }
            HostCommand::SendTrademark => self.send_message(BoardMessage::Trademark {
                text: self.cfg.trademark.clone(),
            }),
            HostCommand::SendEeMoves => {
                // A real board sends its whole 0x1F00-byte log (protocol notes §4): the
                // unused part as no-op bytes before the oldest record, 6B last. Hosts
                // wait for that full frame.
                let pad = EE_CAPACITY.saturating_sub(self.ee_bytes);
                let mut records: Vec<EeRecord> =
                    std::iter::repeat_n(EeRecord::Other { byte: 0 }, pad)
                        .chain(self.ee_log.iter().copied())
                        .collect();
                records.push(EeRecord::EndOfFile);
                self.send_message(BoardMessage::EeMoves(EeMoves { records }));
            }
            HostCommand::SendBatteryStatus => {
                if let Some(b) = self.cfg.battery {
                    self.send_message(BoardMessage::BatteryStatus(b));
                }
            }
            HostCommand::SendVersion => self.send_message(BoardMessage::Version(self.cfg.version)),
            HostCommand::ReturnLongSerialNumber => {
                self.send_message(BoardMessage::LongSerialNumber {
                    text: self.cfg.long_serial.clone(),
                })
            }
            // Draughts scans and dumps are not emulated.
            HostCommand::SendBoard50Black
            | HostCommand::SendBoard50White
            | HostCommand::Scan50Black
            | HostCommand::Scan50White
            | HostCommand::Scan100 => {}
            HostCommand::Leds(l) => self.leds = Some(l),
            HostCommand::Clock(c) => self.clock_command(c),
        }
    }

    fn set_mode(&mut self, mode: BoardMode) {
        self.mode = mode;
        // A clock frame follows at once in the clock-reporting modes.
        self.last_clock_frame = None;
        self.maybe_send_clock();
    }

    fn clock_command(&mut self, cmd: ClockCommand) {
        if !self.clock_present {
            return;
        }
        let mut ack = ClockAck::reply(cmd.sub());
        match cmd {
            ClockCommand::Display(d) => self.clock.text = Some(d.shown()),
            ClockCommand::Icons(_) | ClockCommand::ButtonQuery => {}
            ClockCommand::End => self.clock.text = None,
            ClockCommand::Version => {
                let v = self.cfg.clock_version;
                ack.ack2 = (v.major << 4) | (v.minor & 0x0F);
            }
            ClockCommand::SetAndRun { left, right, mode } => {
                let c = &mut self.clock;
                c.left_ms = left.millis();
                c.right_ms = right.millis();
                c.flag = None;
                c.started = true;
                // Under host control the clock adds no increment and no period of its
                // own: the host sets the times.
                c.increment_ms = 0;
                c.periods = None;
                if let Some(side) = mode.runs {
                    c.lever = side;
                }
                c.running = mode.runs.is_some() && !mode.paused;
            }
            ClockCommand::Beep { .. } => self.beeps += 1,
            ClockCommand::Ascii { text, beep } => self.show_text(text.as_str(), beep),
            ClockCommand::AsciiRevelation { text, beep } => self.show_text(text.as_str(), beep),
        }
        if self.acks_enabled() && self.cfg.zero_frame_after_clock_command {
            let zero = BoardMessage::ClockTime(ClockTime::default()).encode();
            self.emit(&zero);
        }
        if self.acks_enabled() && self.acks_to_drop > 0 {
            self.acks_to_drop -= 1;
        } else if self.acks_enabled() {
            let frame = BoardMessage::ClockAck(ack).encode();
            if self.cfg.ack_delay_ms == 0 {
                self.emit(&frame);
            } else {
                self.scheduled
                    .push_back((self.now + self.cfg.ack_delay_ms, frame));
            }
        }
        self.maybe_send_clock();
    }

    fn show_text(&mut self, text: &str, beep: u8) {
        self.clock.text = Some(text.to_owned());
        if beep > 0 {
            self.beeps += 1;
        }
    }

    fn power_up(&mut self) {
        self.mode = BoardMode::Idle;
        self.commands = CommandDecoder::new();
        self.reported = self.physical;
        self.next_scan = None;
        self.last_clock_frame = None;
        self.scheduled.clear();
        self.hung = false;
        self.log_power_up();
    }

    fn log_power_up(&mut self) {
        self.log_ee(EeRecord::PowerUp);
        for field in FieldIndex::all() {
            let piece = self.physical.get(field);
            if piece != PieceCode::Empty {
                self.log_ee(EeRecord::Field {
                    field,
                    piece,
                    quick: false,
                });
            }
        }
    }

    fn log_ee(&mut self, rec: EeRecord) {
        let size = |r: &EeRecord| match r {
            EeRecord::Field { .. } => 2,
            EeRecord::Time { .. } => 3,
            _ => 1,
        };
        self.ee_bytes += size(&rec);
        self.ee_log.push_back(rec);
        while self.ee_bytes > EE_CAPACITY {
            match self.ee_log.pop_front() {
                Some(old) => self.ee_bytes -= size(&old),
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests;
