//! The sans-IO emulator answers host commands and reports physical actions as fact sheet
//! §9 says, in virtual time.

use std::time::Duration;

use chess_rules::{Color, Piece, Placement, Role, Square};
use dgt_emulator::{Action, BoardMode, Emulator, EmulatorConfig, LineBehaviour};
use dgt_protocol::{
    BoardMessage, ClockButton, ClockCommand, ClockSide, ClockTime, Decoder, FieldIndex, Hms,
    HostCommand, Orientation, PieceCode, SetAndRunMode,
};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn messages(emu: &mut Emulator) -> Vec<BoardMessage> {
    let mut d = Decoder::new();
    d.push(&emu.take_bytes())
        .into_iter()
        .map(|r| r.unwrap())
        .collect()
}

fn send(emu: &mut Emulator, cmd: HostCommand) -> Vec<BoardMessage> {
    emu.receive(&cmd.encode());
    messages(emu)
}

fn clocks(msgs: &[BoardMessage]) -> Vec<ClockTime> {
    msgs.iter()
        .filter_map(|m| match m {
            BoardMessage::ClockTime(t) => Some(*t),
            _ => None,
        })
        .collect()
}

#[test]
fn answers_queries_in_idle_mode() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    assert_eq!(emu.mode(), BoardMode::Idle);
    let dump = send(&mut emu, HostCommand::SendBoard);
    assert!(
        matches!(&dump[..], [BoardMessage::BoardDump { board }] if board.placement(Orientation::Normal) == Placement::start())
    );
    assert!(matches!(
        &send(&mut emu, HostCommand::ReturnSerialNumber)[..],
        [BoardMessage::SerialNumber(s)] if s.number == "01025"
    ));
    assert!(matches!(
        &send(&mut emu, HostCommand::ReturnBusAddress)[..],
        [BoardMessage::BusAddress(a)] if a.address == 1025
    ));
    assert!(matches!(
        &send(&mut emu, HostCommand::SendVersion)[..],
        [BoardMessage::Version(v)] if v.major == 1
    ));
    assert!(matches!(
        &send(&mut emu, HostCommand::ReturnLongSerialNumber)[..],
        [BoardMessage::LongSerialNumber { .. }]
    ));
    assert!(matches!(
        &send(&mut emu, HostCommand::SendTrademark)[..],
        [BoardMessage::Trademark { .. }]
    ));
    assert!(matches!(
        &send(&mut emu, HostCommand::SendBatteryStatus)[..],
        [BoardMessage::BatteryStatus(_)]
    ));
    let clock = send(&mut emu, HostCommand::SendClock);
    let t = clocks(&clock)[0];
    assert_eq!(t.left.time.secs(), 300);
    assert!(!t.running);
    // The EE log starts with power-up and a field record per piece, and ends with 6B.
    // The whole log comes, as on a real board: a 0x1F03-byte frame (protocol notes §4),
    // its unused part as no-op bytes before the records.
    emu.receive(&HostCommand::SendEeMoves.encode());
    let bytes = emu.take_bytes();
    assert_eq!(bytes.len(), 0x1F03);
    assert_eq!(&bytes[..3], &[0x8F, 0x3E, 0x03]);
    assert_eq!(bytes.last(), Some(&0x6B));
    let ee = Decoder::new()
        .push(&bytes)
        .into_iter()
        .map(|r| r.unwrap())
        .collect::<Vec<_>>();
    let BoardMessage::EeMoves(log) = &ee[0] else {
        panic!("{ee:?}")
    };
    let records: Vec<_> = log
        .records
        .iter()
        .filter(|r| !matches!(r, dgt_protocol::EeRecord::Other { byte: 0 }))
        .collect();
    assert_eq!(records.len(), 1 + 32 + 1);
    // Idle: physical changes are not reported, and no clock frames come.
    emu.apply(&Action::Lift(sq("e2")));
    emu.advance_to(5000);
    assert!(messages(&mut emu).is_empty());
}

#[test]
fn reports_field_updates_and_clock_in_update_mode() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    let first = send(&mut emu, HostCommand::SendUpdate);
    assert_eq!(clocks(&first).len(), 1, "a clock frame at once");
    // e2-e4, as the real board reports it: 8E 00 05 34 00, 8E 00 05 24 01.
    emu.apply_at(100, &Action::Lift(sq("e2")));
    emu.apply_at(
        300,
        &Action::Place(sq("e4"), Piece::new(Color::White, Role::Pawn)),
    );
    let bytes = emu.take_bytes();
    assert_eq!(
        bytes,
        [0x8E, 0x00, 0x05, 0x34, 0x00, 0x8E, 0x00, 0x05, 0x24, 0x01]
    );
    // Clock frames at least once a second while nothing changes (paused clock).
    emu.advance_to(10_300);
    let frames = clocks(&messages(&mut emu));
    assert_eq!(frames.len(), 10);
    // Black presses: White's time runs; frames show it counting down.
    emu.apply(&Action::PressClock(Color::Black));
    emu.advance_to(20_300);
    let frames = clocks(&messages(&mut emu));
    assert!(frames.len() >= 10);
    let last = frames.last().unwrap();
    assert_eq!(last.running_side(), Some(ClockSide::Left));
    assert_eq!(last.left.time.secs(), 290);
    assert_eq!(last.right.time.secs(), 300);
    assert!(last.left.time_per_move, "Fischer indicator");
    assert!(last.left_turn_bit && !last.right_turn_bit);
}

#[test]
fn update_nice_sends_clock_frames_only_on_change() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    send(&mut emu, HostCommand::SendUpdateNice);
    emu.advance_to(5000);
    assert!(messages(&mut emu).is_empty(), "paused clock: no frames");
    emu.apply(&Action::PressClock(Color::Black));
    emu.advance_to(5000 + 3000);
    let frames = clocks(&messages(&mut emu));
    // One at the press, then one a second as the display changes.
    assert_eq!(frames.len(), 4);
    assert_eq!(
        frames
            .iter()
            .map(|f| f.left.time.secs())
            .collect::<Vec<_>>(),
        [300, 299, 298, 297]
    );
}

#[test]
fn lever_presses_add_the_increment_and_flags_fall() {
    let cfg = EmulatorConfig {
        white_time: Duration::from_secs(10),
        black_time: Duration::from_secs(60),
        increment: Duration::from_secs(2),
        white_side: ClockSide::Right,
        ..EmulatorConfig::default()
    };
    let mut emu = Emulator::new(cfg);
    assert_eq!(
        emu.lever(),
        ClockSide::Left,
        "Black's lever up at the start"
    );
    emu.apply_at(0, &Action::PressClock(Color::Black));
    assert!(emu.clock_running());
    assert_eq!(emu.lever(), ClockSide::Right);
    emu.advance_to(4000);
    assert_eq!(emu.remaining(Color::White), Duration::from_secs(6));
    emu.apply(&Action::PressClock(Color::White));
    assert_eq!(emu.remaining(Color::White), Duration::from_secs(8));
    assert_eq!(emu.lever(), ClockSide::Left);
    // Pressing the lever that is already down changes nothing.
    emu.apply(&Action::PressClock(Color::White));
    assert_eq!(emu.lever(), ClockSide::Left);
    emu.apply_at(5000, &Action::PressClock(Color::Black));
    assert_eq!(emu.remaining(Color::Black), Duration::from_secs(61));
    // Pause and resume.
    emu.apply(&Action::PauseClock);
    emu.advance_to(50_000);
    assert_eq!(emu.remaining(Color::White), Duration::from_secs(8));
    emu.apply(&Action::PauseClock);
    emu.advance_to(50_000 + 7_999);
    assert_eq!(emu.flag(), None);
    assert_eq!(
        emu.clock_time().right.time.secs(),
        1,
        "the display rounds up"
    );
    emu.advance_to(60_000);
    assert_eq!(emu.flag(), Some(ClockSide::Right));
    assert!(!emu.clock_running());
    let t = emu.clock_time();
    assert_eq!(t.flag_fallen(), Some(ClockSide::Right));
    assert_eq!(t.right.time.secs(), 0);
    assert_eq!(t.left.time.secs(), 61);
}

#[test]
fn clock_commands_are_acked_and_applied() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    // No ACK outside the UPDATE modes, but the command still reaches the clock.
    let out = send(
        &mut emu,
        HostCommand::Clock(ClockCommand::ascii("HELLO").unwrap()),
    );
    assert!(out.is_empty());
    assert_eq!(emu.display_text(), Some("HELLO   "));
    send(&mut emu, HostCommand::SendUpdateNice);
    let out = send(&mut emu, HostCommand::Clock(ClockCommand::Version));
    assert!(
        matches!(&out[..], [BoardMessage::ClockAck(a)] if a.version().is_some_and(|v| v.is_dgt3000()))
    );
    let out = send(&mut emu, HostCommand::Clock(ClockCommand::End));
    assert!(matches!(&out[..], [BoardMessage::ClockAck(a)] if a.answers() == Some(0x03)));
    assert_eq!(emu.display_text(), None);
    // Set-and-run really sets and runs the clock.
    let out = send(
        &mut emu,
        HostCommand::Clock(ClockCommand::SetAndRun {
            left: Hms::new(0, 1, 0).unwrap(),
            right: Hms::new(1, 30, 0).unwrap(),
            mode: SetAndRunMode {
                runs: Some(ClockSide::Right),
                paused: false,
                switch_on_lever: true,
            },
        }),
    );
    assert!(matches!(&out[0], BoardMessage::ClockAck(a) if a.answers() == Some(0x0A)));
    let t = clocks(&out)[0];
    assert_eq!(t.right.time.to_string(), "1:30:00");
    assert_eq!(t.running_side(), Some(ClockSide::Right));
    emu.advance_to(emu.now_ms() + 2000);
    assert_eq!(emu.clock_time().right.time.to_string(), "1:29:58");
    send(
        &mut emu,
        HostCommand::Clock(ClockCommand::Beep { units: 2 }),
    );
    assert_eq!(emu.beeps(), 1);
    // A button on the clock.
    emu.apply(&Action::ClockButton(ClockButton::Ok));
    let out = messages(&mut emu);
    assert!(matches!(&out[..], [BoardMessage::ClockAck(a)]
        if a.button_press().is_some_and(|p| p.button == Some(ClockButton::Ok))));
}

#[test]
fn delayed_acks_come_at_their_time() {
    let mut emu = Emulator::new(EmulatorConfig {
        ack_delay_ms: 1500,
        ..EmulatorConfig::default()
    });
    send(&mut emu, HostCommand::SendUpdateNice);
    emu.receive(&HostCommand::Clock(ClockCommand::Version).encode());
    assert!(messages(&mut emu).is_empty());
    assert_eq!(emu.next_deadline(), Some(1500));
    emu.advance_to(1499);
    assert!(messages(&mut emu).is_empty());
    emu.advance_to(1500);
    assert_eq!(messages(&mut emu).len(), 1);
}

#[test]
fn a_lost_ack_is_lost_but_its_command_is_carried_out() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    send(&mut emu, HostCommand::SendUpdateNice);
    emu.drop_next_acks(1);
    let out = send(
        &mut emu,
        HostCommand::Clock(ClockCommand::ascii("LOST").unwrap()),
    );
    assert!(!out.iter().any(|m| matches!(m, BoardMessage::ClockAck(_))));
    assert_eq!(emu.display_text(), Some("LOST    "));
    // Only that one: the next command is answered again.
    let out = send(&mut emu, HostCommand::Clock(ClockCommand::End));
    assert!(matches!(&out[..], [BoardMessage::ClockAck(a)] if a.answers() == Some(0x03)));
}

#[test]
fn turned_board_maps_squares() {
    let mut emu = Emulator::new(EmulatorConfig {
        orientation: Orientation::Rotated,
        ..EmulatorConfig::default()
    });
    let dump = send(&mut emu, HostCommand::SendBoard);
    let BoardMessage::BoardDump { board } = &dump[0] else {
        panic!()
    };
    assert_eq!(board.detect_orientation(), Some(Orientation::Rotated));
    send(&mut emu, HostCommand::SendUpdateBoard);
    emu.apply(&Action::Lift(sq("e2")));
    let out = messages(&mut emu);
    assert!(matches!(&out[..], [BoardMessage::FieldUpdate(u)]
        if u.field == FieldIndex::new(11).unwrap() && u.piece == PieceCode::Empty));
    assert_eq!(emu.placement().get(sq("e2")), None);
}

#[test]
fn scan_model_hides_quick_adjustments() {
    let mut emu = Emulator::new(EmulatorConfig {
        scan_interval_ms: 250,
        ..EmulatorConfig::default()
    });
    send(&mut emu, HostCommand::SendUpdateBoard);
    let pawn = Piece::new(Color::White, Role::Pawn);
    // Lifted and put back within one scan: unseen.
    emu.apply_at(10, &Action::Lift(sq("d2")));
    emu.apply_at(100, &Action::Place(sq("d2"), pawn));
    emu.advance_to(1000);
    assert!(messages(&mut emu).is_empty());
    // A move spread over two scans: lift seen at 1250, place at 1500.
    emu.apply_at(1010, &Action::Lift(sq("e2")));
    emu.apply_at(1300, &Action::Place(sq("e4"), pawn));
    let mut times = Vec::new();
    emu.advance_to(2000);
    for chunk in emu.take_output() {
        times.push(chunk.t_ms);
    }
    assert_eq!(times, [1250, 1500]);
}

#[test]
fn cables_and_misbehaviour() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    send(&mut emu, HostCommand::SendUpdate);
    // Clock cable pulled: frames say "no clock", clock commands get no ACK.
    emu.apply(&Action::ClockCable { plugged: false });
    let out = messages(&mut emu);
    assert!(clocks(&out).iter().all(|t| t.no_clock) && !out.is_empty());
    assert!(send(&mut emu, HostCommand::Clock(ClockCommand::Version))
        .iter()
        .all(|m| !matches!(m, BoardMessage::ClockAck(_))));
    emu.apply(&Action::ClockCable { plugged: true });
    // Board cable pulled: nothing at all, commands ignored; plugged back: powered up idle.
    emu.apply(&Action::BoardCable { plugged: false });
    assert!(!emu.is_plugged());
    emu.take_bytes();
    emu.advance_to(emu.now_ms() + 5000);
    assert!(send(&mut emu, HostCommand::SendBoard).is_empty());
    emu.apply(&Action::BoardCable { plugged: true });
    assert_eq!(emu.mode(), BoardMode::Idle);
    assert_eq!(send(&mut emu, HostCommand::SendBoard).len(), 1);
    // Hung firmware: silence, then answers again.
    emu.apply(&Action::Hang { hung: true });
    assert!(send(&mut emu, HostCommand::SendBoard).is_empty());
    emu.apply(&Action::Hang { hung: false });
    assert_eq!(send(&mut emu, HostCommand::SendBoard).len(), 1);
    // Noise goes out as it is.
    emu.apply(&Action::LineNoise(vec![0x8E, 0x00]));
    assert_eq!(emu.take_bytes(), [0x8E, 0x00]);
    // A mute board and a device that is no DGT board.
    let mut mute = Emulator::new(EmulatorConfig {
        behaviour: LineBehaviour::Mute,
        ..EmulatorConfig::default()
    });
    assert!(send(&mut mute, HostCommand::SendVersion).is_empty());
    let mut modem = Emulator::new(EmulatorConfig {
        behaviour: LineBehaviour::NotDgt {
            reply: b"\r\nERROR\r\n".to_vec(),
        },
        ..EmulatorConfig::default()
    });
    modem.receive(&[0x4D]);
    assert_eq!(modem.take_bytes(), b"\r\nERROR\r\n");
}

#[test]
fn records_its_own_capture() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    emu.record_capture();
    emu.receive_at(5, &[0x42, 0x4B]);
    emu.apply_at(100, &Action::Lift(sq("g1")));
    let recs = emu.take_capture();
    assert_eq!(recs[0].bytes, [0x42, 0x4B]);
    assert_eq!(recs[0].direction, dgt_protocol::capture::Direction::ToBoard);
    let mut d = Decoder::new();
    let decoded: Vec<BoardMessage> = recs
        .iter()
        .filter(|r| r.direction == dgt_protocol::capture::Direction::ToHost)
        .flat_map(|r| d.push(&r.bytes))
        .map(|r| r.unwrap())
        .collect();
    assert!(matches!(decoded[0], BoardMessage::BoardDump { .. }));
    assert!(matches!(decoded.last(), Some(BoardMessage::FieldUpdate(u)) if u.field.index() == 62));
}

#[test]
fn turning_the_board_keeps_the_fields() {
    let mut emu = Emulator::new(EmulatorConfig::default());
    send(&mut emu, HostCommand::SendUpdateBoard);
    emu.apply(&Action::TurnBoard);
    assert!(
        messages(&mut emu).is_empty(),
        "the pieces ride along: no updates"
    );
    assert_eq!(emu.placement(), Placement::start().rotated());
    // The white pawn from e2 (field 52) now stands on the real square d7.
    emu.apply(&Action::Lift(sq("d7")));
    let out = messages(&mut emu);
    assert!(matches!(&out[..], [BoardMessage::FieldUpdate(u)] if u.field.index() == 52));
}

#[test]
fn bluetooth_boards_send_a_zero_frame_after_clock_commands() {
    let mut emu = Emulator::new(EmulatorConfig {
        zero_frame_after_clock_command: true,
        ..EmulatorConfig::default()
    });
    send(&mut emu, HostCommand::SendUpdateNice);
    let out = send(&mut emu, HostCommand::Clock(ClockCommand::End));
    assert!(
        matches!(&out[0], BoardMessage::ClockTime(t) if t.is_all_zero()),
        "{out:?}"
    );
    assert!(matches!(&out[1], BoardMessage::ClockAck(_)));
    // The event filter drops it.
    let mut filter = dgt_protocol::EventFilter::new();
    assert!(filter.on_message(&out[0]).is_empty());
}

#[test]
fn the_arbiter_adjusts_a_players_time_on_the_clock() {
    let mut emu = Emulator::new(EmulatorConfig {
        white_side: ClockSide::Right,
        ..EmulatorConfig::default()
    });
    let before = (emu.remaining(Color::White), emu.remaining(Color::Black));
    emu.apply(&Action::AdjustTime {
        color: Color::White,
        delta_ms: 60_000,
    });
    emu.apply(&Action::AdjustTime {
        color: Color::Black,
        delta_ms: -2_000,
    });
    assert_eq!(
        emu.remaining(Color::White),
        before.0 + Duration::from_secs(60)
    );
    assert_eq!(
        emu.remaining(Color::Black),
        before.1 - Duration::from_secs(2)
    );
    // White's time is on the right of this clock.
    assert_eq!(emu.clock_time().right.time.secs(), 360);
}
