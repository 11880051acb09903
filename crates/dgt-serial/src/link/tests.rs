//! The link against the sans-IO emulator of `dgt-sim`, in virtual time: every timer,
//! retry and backoff is exercised without a port or a clock on the wall.

use super::*;
use crate::test_support::{board_from_events, kind};
use chess_rules::{Color, Piece, Role, Square};
use dgt_protocol::{FieldIndex, Orientation, PieceCode, RawBoard};
use dgt_sim::{Action, Emulator, EmulatorConfig, LineBehaviour};

fn cfg() -> LinkConfig {
    LinkConfig::default()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// A link wired to an emulator: bytes cross instantly, time is virtual.
struct Bench {
    link: Link,
    emu: Emulator,
    now: u64,
    /// The board's cable: when unplugged, openings fail and an open port is lost.
    plugged: bool,
    port_open: bool,
    events: Vec<TimedEvent>,
    completions: Vec<(CommandId, ClockOutcome)>,
    /// Every write, with its time.
    written: Vec<(u64, Vec<u8>)>,
    /// Times of the openings tried.
    open_attempts: Vec<u64>,
}

impl Bench {
    fn new(emu_cfg: EmulatorConfig, link_cfg: LinkConfig) -> Bench {
        Bench {
            link: Link::new(link_cfg, 0),
            emu: Emulator::new(emu_cfg),
            now: 0,
            plugged: true,
            port_open: false,
            events: Vec::new(),
            completions: Vec::new(),
            written: Vec::new(),
            open_attempts: Vec::new(),
        }
    }

    fn board() -> Bench {
        Bench::new(EmulatorConfig::default(), cfg())
    }

    /// Moves bytes and events until nothing more happens at `now`.
    fn settle_now(&mut self) {
        for _ in 0..100 {
            if self.link.open_due(self.now) {
                self.open_attempts.push(self.now);
                if self.plugged && self.emu.is_plugged() {
                    self.port_open = true;
                    self.link.on_opened(self.now);
                } else {
                    self.link.on_open_failed(self.now, "no such device");
                }
            }
            let tx = self.link.take_transmit();
            if !tx.is_empty() && self.port_open {
                self.written.push((self.now, tx.clone()));
                self.emu.receive_at(self.now, &tx);
            }
            let rx = self.emu.take_bytes();
            let progressed = !tx.is_empty() || (!rx.is_empty() && self.port_open);
            if self.port_open && !rx.is_empty() {
                self.link.on_input(self.now, &rx);
            }
            if !self.link.wants_port() {
                self.port_open = false;
            }
            self.events
                .extend(std::iter::from_fn(|| self.link.poll_event()));
            self.completions
                .extend(std::iter::from_fn(|| self.link.poll_completion()));
            if !progressed && !self.link.open_due(self.now) {
                return;
            }
        }
        panic!("no quiescence at {} ms", self.now);
    }

    /// Runs virtual time up to `t`.
    fn run_until(&mut self, t: u64) {
        loop {
            self.settle_now();
            let next = [self.link.poll_timeout(), self.emu.next_deadline()]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(u64::MAX)
                .max(self.now + 1);
            if next > t {
                self.now = t;
                self.emu.advance_to(t);
                self.link.on_timeout(t);
                self.settle_now();
                return;
            }
            self.now = next;
            self.emu.advance_to(next);
            self.link.on_timeout(next);
        }
    }

    fn run_for(&mut self, ms: u64) {
        self.run_until(self.now + ms);
    }

    /// Something happens at the board now.
    fn act(&mut self, action: Action) {
        if let Action::BoardCable { plugged } = action {
            self.plugged = plugged;
            if !plugged && self.port_open {
                self.port_open = false;
                self.link.on_port_lost(self.now, "read: Input/output error");
            }
        }
        self.emu.apply_at(self.now, &action);
        self.settle_now();
    }

    fn kinds(&self) -> Vec<&'static str> {
        self.events.iter().map(|e| kind(&e.event)).collect()
    }

    fn all_written(&self) -> Vec<u8> {
        self.written.iter().flat_map(|(_, b)| b.clone()).collect()
    }
}

#[test]
fn init_sequence_identifies_then_updates_dumps_and_asks_the_clock() {
    let mut b = Bench::board();
    b.run_until(500);
    // RESET, then (after the settle) identification, then the running set-up.
    let writes: Vec<&[u8]> = b.written.iter().map(|(_, w)| w.as_slice()).collect();
    assert_eq!(writes[0], [0x40]);
    assert_eq!(b.written[1].0, cfg().settle_ms);
    assert_eq!(writes[1], [0x4D, 0x45]);
    assert_eq!(
        writes[2],
        [0x4B, 0x42, 0x4C, 0x2B, 0x03, 0x03, 0x09, 0x00],
        "UPDATE_NICE before the dump, battery, clock version"
    );
    assert_eq!(
        b.kinds(),
        [
            "connected",
            "clock_connected",
            "clock",
            "dump",
            "battery",
            "ack"
        ]
    );
    assert_eq!(
        b.events[0].event,
        BoardEvent::Connected {
            serial: Some("01025".into()),
            version: Some(Version { major: 1, minor: 2 }),
            clock_version: None,
        }
    );
    let info = b.link.info();
    assert!(info.connected);
    assert_eq!(
        info.clock,
        ClockInfo::Present {
            version: Some(ClockVersion { major: 2, minor: 1 }),
            asking: false
        }
    );
    assert_eq!(info.clock.describe(), "DGT3000 2.1");
    assert_eq!(
        info.clock.version(),
        Some(ClockVersion { major: 2, minor: 1 })
    );
    assert_eq!(ClockInfo::Absent.version(), None);
    assert_eq!(info.battery.map(|b| b.percent), Some(88));
    assert_eq!(
        board_from_events(&b.events),
        Some(RawBoard::from_placement(
            &chess_rules::Placement::start(),
            Orientation::Normal
        ))
    );
}

#[test]
fn stale_input_while_settling_is_dropped() {
    let mut b = Bench::board();
    b.link.on_opened(0);
    b.port_open = true;
    // A frame from an earlier session arrives during the settle.
    b.link
        .on_input(10, &[0x91, 0x00, 0x08, b'9', b'9', b'9', b'9', b'9']);
    assert_eq!(b.link.info().serial, None);
    assert_eq!(b.link.stats().frames, 0);
}

#[test]
fn identification_is_repeated_until_the_board_answers() {
    let mut b = Bench::board();
    b.act(Action::Hang { hung: true });
    b.run_until(2_500);
    let idents = b.written.iter().filter(|(_, w)| w == &[0x4D, 0x45]).count();
    assert_eq!(idents, 3, "at 100, 1100 and 2100 ms: {:?}", b.written);
    b.act(Action::Hang { hung: false });
    b.run_until(3_500);
    assert_eq!(b.kinds()[0], "connected");
}

#[test]
fn probes_keep_a_quiet_board_alive() {
    let mut b = Bench::board();
    b.run_until(1_000);
    let before = b.events.len();
    b.run_for(20_000);
    let probes = b.written.iter().filter(|(_, w)| w == &[0x45]).count();
    assert!((19..=21).contains(&probes), "{probes} probes in 20 s");
    assert_eq!(b.events.len(), before, "a quiet board gives no events");
    assert!(b.link.is_running());
}

#[test]
fn a_silent_board_is_declared_lost_and_reconnected_with_backoff_and_a_dump() {
    let mut b = Bench::board();
    b.run_until(1_000);
    b.act(Action::Hang { hung: true });
    let hung_at = b.now;
    b.run_for(30_000);
    let downs: Vec<&TimedEvent> = b
        .events
        .iter()
        .filter(|e| kind(&e.event) == "disconnected")
        .collect();
    assert_eq!(downs.len(), 1, "reported once, not per attempt");
    let BoardEvent::Disconnected { reason } = &downs[0].event else {
        unreachable!()
    };
    assert!(reason.contains("liveness probe"), "{reason}");
    let lost_at = downs[0].t_ms;
    let c = cfg();
    assert!(
        lost_at <= hung_at + c.probe_interval_ms + c.probe_timeout_ms,
        "lost at {lost_at}, hung at {hung_at}"
    );
    // Reopen attempts after the loss: each waits for the identification timeout, then
    // the backoff doubles up to its maximum.
    let attempts: Vec<u64> = b.open_attempts[1..].to_vec();
    let gaps: Vec<u64> = attempts.windows(2).map(|w| w[1] - w[0]).collect();
    let ident = c.settle_ms + c.ident_timeout_ms;
    assert_eq!(attempts[0], lost_at + c.backoff_initial_ms);
    assert_eq!(gaps[0], ident + 500, "{gaps:?}");
    assert_eq!(gaps[1], ident + 1000, "{gaps:?}");
    assert_eq!(gaps[2], ident + 2000, "{gaps:?}");
    let n = b.events.len();
    b.act(Action::Hang { hung: false });
    b.run_for(10_000);
    let after: Vec<&str> = b.events[n..].iter().map(|e| kind(&e.event)).collect();
    assert_eq!(after[0], "connected", "{after:?}");
    assert!(after.contains(&"dump"), "{after:?}");
}

#[test]
fn pulled_cable_mid_move_then_replugged_the_dump_shows_the_move() {
    let mut b = Bench::board();
    b.run_until(1_000);
    let pawn = Piece::new(Color::White, Role::Pawn);
    for round in 0..3 {
        let from = sq(["e2", "d2", "c2"][round]);
        let to = sq(["e4", "d4", "c4"][round]);
        b.act(Action::Lift(from));
        b.run_for(50);
        b.act(Action::BoardCable { plugged: false });
        // The move is finished while the line is down.
        b.run_for(3_000);
        b.act(Action::Place(to, pawn));
        b.run_for(7_000);
        b.act(Action::BoardCable { plugged: true });
        b.run_for(3_000);
        assert!(b.link.is_running(), "round {round}");
    }
    assert_eq!(
        b.events
            .iter()
            .filter(|e| kind(&e.event) == "connected")
            .count(),
        4
    );
    assert_eq!(
        b.events
            .iter()
            .filter(|e| kind(&e.event) == "disconnected")
            .count(),
        3
    );
    assert_eq!(board_from_events(&b.events), Some(b.emu.raw_board()));
    // Each lift was seen before its cable was pulled; nothing else was reported as a
    // field change: the moves themselves are known from the dumps.
    let fields: Vec<_> = b
        .events
        .iter()
        .filter_map(|e| match e.event {
            BoardEvent::Field(u) => Some(u),
            _ => None,
        })
        .collect();
    let lifted: Vec<u8> = ["e2", "d2", "c2"]
        .iter()
        .map(|s| FieldIndex::from_square(sq(s), Orientation::Normal).index())
        .collect();
    assert_eq!(
        fields.iter().map(|u| u.field.index()).collect::<Vec<_>>(),
        lifted
    );
    assert!(fields.iter().all(|u| u.piece == PieceCode::Empty));
}

#[test]
fn the_first_failure_is_reported_and_the_retries_are_quiet() {
    let mut b = Bench::board();
    b.plugged = false;
    b.run_until(10_000);
    assert_eq!(b.kinds(), ["disconnected"]);
    assert!(b.open_attempts.len() >= 5, "{:?}", b.open_attempts);
    b.plugged = true;
    b.run_for(3_000);
    assert_eq!(b.kinds()[1], "connected");
}

#[test]
fn a_pulled_cable_is_retried_at_the_initial_delay_however_long_it_is_out() {
    // A long pull must not push the retries out to the backoff maximum: each second blind
    // after the replug is moves the reconnect search must rebuild.
    let c = cfg();
    let mut b = Bench::board();
    b.run_until(1_000);
    for out_ms in [4_000, 1_500] {
        b.act(Action::BoardCable { plugged: false });
        let pulled = b.now;
        b.run_for(out_ms);
        let tries: Vec<u64> = b
            .open_attempts
            .iter()
            .copied()
            .filter(|&t| t > pulled)
            .collect();
        assert!(tries.len() >= 2, "{tries:?}");
        let gaps: Vec<u64> = tries.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(
            gaps.iter().all(|&g| g == c.backoff_initial_ms),
            "retries while the cable is out: {gaps:?}"
        );
        b.act(Action::BoardCable { plugged: true });
        let back = b.now;
        b.run_for(3_000);
        assert!(b.link.is_running());
        let reopened = b.open_attempts.iter().copied().find(|&t| t >= back);
        assert!(
            reopened.is_some_and(|t| t <= back + c.backoff_initial_ms),
            "replugged at {back}, opened at {reopened:?}"
        );
    }
}

#[test]
fn not_a_dgt_board_and_a_mute_board_never_connect() {
    for (behaviour, words) in [
        (
            LineBehaviour::NotDgt {
                reply: b"\r\nERROR\r\n".to_vec(),
            },
            "bytes received but no identification",
        ),
        (LineBehaviour::Mute, "no answer to the identification"),
    ] {
        let mut b = Bench::new(
            EmulatorConfig {
                behaviour,
                ..EmulatorConfig::default()
            },
            cfg(),
        );
        b.run_until(30_000);
        assert_eq!(b.kinds(), ["disconnected"], "{words}");
        let BoardEvent::Disconnected { reason } = &b.events[0].event else {
            unreachable!()
        };
        assert!(reason.contains(words), "{reason}");
        assert!(!b.link.info().connected);
        assert!(b.open_attempts.len() >= 4);
    }
}

#[test]
fn garbage_and_truncated_frames_invent_nothing() {
    let mut b = Bench::board();
    b.run_until(1_000);
    let n = b.events.len();
    b.act(Action::LineNoise(vec![0x00, 0x13, 0x7F, 0x55]));
    b.act(Action::Lift(sq("g1")));
    // A field update cut after its header, then a whole one.
    b.act(Action::LineNoise(vec![0x8E, 0x00, 0x05]));
    b.act(Action::Place(
        sq("f3"),
        Piece::new(Color::White, Role::Knight),
    ));
    b.act(Action::LineNoise(vec![0xFF, 0xFE]));
    b.run_for(2_000);
    assert_eq!(b.kinds()[n..], ["field", "field"]);
    assert!(b.link.stats().decode_errors >= 3);
    assert_eq!(board_from_events(&b.events), Some(b.emu.raw_board()));
    assert!(b.link.is_running());
}

#[test]
fn clock_commands_go_one_at_a_time_and_wait_for_their_ack() {
    let mut b = Bench::new(
        EmulatorConfig {
            ack_delay_ms: 300,
            ..EmulatorConfig::default()
        },
        cfg(),
    );
    b.run_until(1_500);
    let start = b.written.len();
    let now = b.now;
    for (i, text) in ["ONE", "TWO", "THREE"].iter().enumerate() {
        b.link
            .send_clock(now, CommandId(i as u64), ClockCommand::ascii(text).unwrap());
    }
    b.settle_now();
    let clock_writes = |b: &Bench| -> Vec<(u64, Vec<u8>)> {
        b.written[start..]
            .iter()
            .filter(|(_, w)| w.first() == Some(&0x2B))
            .cloned()
            .collect()
    };
    assert_eq!(clock_writes(&b).len(), 1, "only one in flight");
    b.run_for(2_000);
    let w = clock_writes(&b);
    assert_eq!(w.len(), 3);
    // Each went out when the previous ACK came, 300 ms apart.
    assert_eq!(w[1].0 - w[0].0, 300);
    assert_eq!(w[2].0 - w[1].0, 300);
    let ids: Vec<u64> = b.completions.iter().map(|(id, _)| id.0).collect();
    assert_eq!(ids, [0, 1, 2]);
    assert!(b
        .completions
        .iter()
        .all(|(_, r)| matches!(r, Ok(a) if a.answers() == Some(0x0C))));
    assert_eq!(b.emu.display_text(), Some("THREE   "));
}

#[test]
fn a_late_ack_is_awaited_once_then_the_command_is_given_up() {
    let c = cfg();
    // The ACK comes after 1.5 timeouts: the resend is answered (by the first ACK).
    let mut b = Bench::new(
        EmulatorConfig {
            ack_delay_ms: c.ack_timeout_ms * 3 / 2,
            ..EmulatorConfig::default()
        },
        cfg(),
    );
    b.run_until(10_000);
    let start = b.written.len();
    b.link
        .send_clock(b.now, CommandId(7), ClockCommand::Beep { units: 2 });
    b.run_for(10_000);
    assert!(matches!(b.completions[..], [(CommandId(7), Ok(_))]));
    let beeps = b.written[start..]
        .iter()
        .filter(|(_, w)| w.first() == Some(&0x2B))
        .count();
    assert_eq!(beeps, 2, "the beep and its resend");

    // The ACK comes after 3 timeouts: resent once, then given up cleanly.
    let mut b = Bench::new(
        EmulatorConfig {
            ack_delay_ms: c.ack_timeout_ms * 3,
            ..EmulatorConfig::default()
        },
        cfg(),
    );
    b.run_until(20_000);
    assert_eq!(
        b.link.info().clock,
        ClockInfo::Present {
            version: None,
            asking: false
        },
        "the version query gave up too"
    );
    let t0 = b.now;
    b.link.send_clock(t0, CommandId(8), ClockCommand::End);
    b.run_for(2 * c.ack_timeout_ms - 1);
    assert!(b.completions.is_empty());
    b.run_for(1);
    assert_eq!(
        b.completions,
        [(
            CommandId(8),
            Err(ClockError::NoAck {
                timeout_ms: c.ack_timeout_ms
            })
        )]
    );
    assert!(b.link.is_running(), "a mute clock does not drop the board");
}

#[test]
fn an_error_ack_is_resent_once() {
    let mut b = Bench::new(
        EmulatorConfig {
            // The emulator's own ACKs come too late to matter here.
            ack_delay_ms: 1_000_000,
            ..EmulatorConfig::default()
        },
        cfg(),
    );
    b.run_until(10_000);
    let error = BoardMessage::ClockAck(ClockAck {
        ack0: 0x40,
        ack1: 0x0A,
        ack2: 0,
        ack3: 0,
    })
    .encode();
    let ok = BoardMessage::ClockAck(ClockAck::reply(0x0A)).encode();
    let set = ClockCommand::SetAndRun {
        left: dgt_protocol::Hms::from_secs(300).unwrap(),
        right: dgt_protocol::Hms::from_secs(300).unwrap(),
        mode: dgt_protocol::SetAndRunMode::default(),
    };
    // Error, then OK after the resend.
    b.link.send_clock(b.now, CommandId(1), set.clone());
    b.settle_now();
    b.link.on_input(b.now, &error);
    assert!(b.link.poll_completion().is_none());
    assert_eq!(
        b.link.take_transmit(),
        HostCommand::Clock(set.clone()).encode()
    );
    b.link.on_input(b.now, &ok);
    assert!(matches!(
        b.link.poll_completion(),
        Some((CommandId(1), Ok(_)))
    ));
    // Error twice: refused.
    b.link.send_clock(b.now, CommandId(2), set);
    b.link.take_transmit();
    b.link.on_input(b.now, &error);
    b.link.take_transmit();
    b.link.on_input(b.now, &error);
    assert!(matches!(
        b.link.poll_completion(),
        Some((CommandId(2), Err(ClockError::Refused(a)))) if a.ack0 == 0x40
    ));
}

#[test]
fn a_clock_unplugged_and_plugged_back_is_reported_and_asked_again() {
    let mut b = Bench::board();
    b.run_until(1_000);
    let n = b.events.len();
    b.act(Action::ClockCable { plugged: false });
    b.run_for(100);
    assert_eq!(b.kinds()[n..], ["clock_disconnected"]);
    assert_eq!(b.link.info().clock, ClockInfo::Absent);
    b.link.send_clock(b.now, CommandId(3), ClockCommand::End);
    assert_eq!(
        b.link.poll_completion(),
        Some((CommandId(3), Err(ClockError::NoClock)))
    );
    b.act(Action::ClockCable { plugged: true });
    b.run_for(100);
    assert_eq!(b.kinds()[n + 1..], ["clock_connected", "clock", "ack"]);
    assert_eq!(b.link.info().clock.describe(), "DGT3000 2.1");
    // Lever presses give clock frames.
    b.act(Action::PressClock(Color::Black));
    b.run_for(2_500);
    let frames = b.events[n..]
        .iter()
        .filter(|e| kind(&e.event) == "clock")
        .count();
    assert!(frames >= 3, "start plus the running seconds: {frames}");
}

#[test]
fn a_board_without_a_clock_reports_none() {
    let mut b = Bench::new(
        EmulatorConfig {
            clock_present: false,
            ..EmulatorConfig::default()
        },
        cfg(),
    );
    b.run_until(1_000);
    assert_eq!(b.link.info().clock, ClockInfo::Absent);
    assert_eq!(b.link.info().clock.describe(), "none");
    assert!(b.kinds().contains(&"clock_disconnected"));
}

#[test]
fn a_swapped_board_on_the_same_port_starts_a_new_session() {
    let mut b = Bench::board();
    b.run_until(1_000);
    // Another board appears behind the same port, without a hang-up.
    b.emu = Emulator::new(EmulatorConfig {
        serial: "04711".into(),
        ..EmulatorConfig::default()
    });
    b.emu.advance_to(b.now);
    b.run_for(3_000);
    let k = b.kinds();
    let down = k.iter().position(|&k| k == "disconnected").unwrap();
    assert_eq!(k[down + 1], "connected", "{k:?}");
    assert_eq!(b.link.info().serial.as_deref(), Some("04711"));
    assert!(k[down..].contains(&"dump"));
}

#[test]
fn one_stray_serial_frame_is_asked_about_again_not_taken_for_another_board() {
    let mut b = Bench::board();
    b.run_until(1_000);
    let serial = b.link.info().serial.clone();
    assert!(serial.is_some());
    let stray = BoardMessage::SerialNumber(dgt_protocol::SerialNumber {
        number: "99999".into(),
        storage_version: None,
    })
    .encode();
    let before = b.written.len();
    b.link.on_input(b.now, &stray);
    b.run_for(2_000);
    let asked_again = b.written[before..]
        .iter()
        .any(|(_, bytes)| bytes.contains(&RETURN_SERIAL));
    assert!(asked_again, "the serial number is asked again");
    assert!(!b.kinds().contains(&"disconnected"), "{:?}", b.kinds());
    assert_eq!(b.link.info().serial, serial);
    assert!(
        b.link.session.suspect_serial.is_none(),
        "the board's answer cleared it"
    );
}

#[test]
fn commands_are_refused_when_not_connected_or_the_queue_is_full() {
    let mut b = Bench::new(
        EmulatorConfig {
            ack_delay_ms: 1_000_000,
            ..EmulatorConfig::default()
        },
        LinkConfig {
            max_queued_clock_commands: 2,
            ..cfg()
        },
    );
    b.link.send_clock(0, CommandId(0), ClockCommand::End);
    assert_eq!(
        b.link.poll_completion(),
        Some((CommandId(0), Err(ClockError::NotConnected)))
    );
    b.run_until(1_000);
    for i in 1..=4 {
        b.link.send_clock(b.now, CommandId(i), ClockCommand::End);
    }
    // The version query is in flight; two wait; the fourth is refused.
    assert_eq!(
        b.link.poll_completion(),
        Some((CommandId(3), Err(ClockError::QueueFull(2))))
    );
    assert_eq!(
        b.link.poll_completion(),
        Some((CommandId(4), Err(ClockError::QueueFull(2))))
    );
    // A lost link fails the waiting ones.
    b.act(Action::BoardCable { plugged: false });
    let failed: Vec<_> = std::iter::from_fn(|| b.link.poll_completion())
        .chain(b.completions.drain(..))
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed
        .iter()
        .all(|(_, r)| matches!(r, Err(ClockError::Disconnected(_)))));
}

#[test]
fn shutdown_resets_the_board_and_says_so() {
    let mut b = Bench::board();
    b.run_until(1_000);
    b.link.shutdown(b.now);
    assert_eq!(b.link.take_transmit(), [0x40]);
    let last = std::iter::from_fn(|| b.link.poll_event()).last().unwrap();
    assert_eq!(
        last.event,
        BoardEvent::Disconnected {
            reason: "driver stopped".into()
        }
    );
    assert!(!b.link.wants_port());
    assert!(!b.all_written().is_empty());
}
