//! Property tests: encoding then decoding is the identity for every message and command
//! type; random bytes never panic, keep memory bounded, and never hide a valid frame that
//! follows them.

use dgt_protocol::{
    BatteryStatus, BoardMessage, BusAddress, ClockAck, ClockCommand, ClockIcons, ClockSide,
    ClockText, ClockTime, CommandDecoder, Decoder, DraughtsPart, EeMoves, EeRecord, FieldIndex,
    FieldUpdate, Hms, HostCommand, HoursMinutes, LedCommand, PieceCode, RawBoard, SerialNumber,
    SetAndRunMode, SideTime, Version, XlDisplay, MAX_FRAME_LEN,
};
use proptest::prelude::*;

fn field() -> impl Strategy<Value = FieldIndex> {
    (0u8..64).prop_map(|i| FieldIndex::new(i).unwrap())
}

fn piece_code() -> impl Strategy<Value = PieceCode> {
    (0u8..16).prop_map(|b| PieceCode::from_byte(b).unwrap())
}

fn hms() -> impl Strategy<Value = Hms> {
    (0u32..=Hms::MAX.secs()).prop_map(|s| Hms::from_secs(s).unwrap())
}

fn side_time() -> impl Strategy<Value = SideTime> {
    (hms(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(time, a, b, c)| SideTime {
        time,
        flag_fallen: a,
        time_per_move: b,
        flag_shown: c,
    })
}

fn clock_side() -> impl Strategy<Value = ClockSide> {
    prop_oneof![Just(ClockSide::Left), Just(ClockSide::Right)]
}

fn ascii(len: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = String> {
    proptest::collection::vec(0u8..0x80, len).prop_map(|v| v.into_iter().map(char::from).collect())
}

fn hm() -> impl Strategy<Value = HoursMinutes> {
    (0u8..0x7F, 0u8..0x7F).prop_map(|(hours, minutes)| HoursMinutes { hours, minutes })
}

fn ee_record() -> impl Strategy<Value = EeRecord> {
    prop_oneof![
        (field(), piece_code(), any::<bool>()).prop_map(|(field, piece, quick)| EeRecord::Field {
            field,
            piece,
            quick
        }),
        (clock_side(), hms()).prop_map(|(display, time)| EeRecord::Time { display, time }),
        prop::sample::select(vec![
            EeRecord::PowerUp,
            EeRecord::EndOfFile,
            EeRecord::FourRows,
            EeRecord::EmptyBoard,
            EeRecord::Downloaded,
            EeRecord::StartPosition,
            EeRecord::RotatedStartPosition,
            EeRecord::StartTag,
            EeRecord::WatchdogReset,
            EeRecord::Other { byte: 0x00 },
            EeRecord::Other { byte: 0x7D },
            EeRecord::Other { byte: 0x7E },
            EeRecord::Other { byte: 0x7F },
        ]),
    ]
}

fn board_message() -> impl Strategy<Value = BoardMessage> {
    let clock_time = (side_time(), side_time(), any::<[bool; 6]>(), clock_side()).prop_map(
        |(left, right, b, lever)| ClockTime {
            left,
            right,
            running: b[0],
            lever,
            battery_low: b[1],
            left_turn_bit: b[2],
            right_turn_bit: b[3],
            no_clock: b[4],
        },
    );
    prop_oneof![
        proptest::collection::vec(piece_code(), 64).prop_map(|v| {
            let mut board = RawBoard::default();
            board.0.copy_from_slice(&v);
            BoardMessage::BoardDump { board }
        }),
        (field(), piece_code())
            .prop_map(|(field, piece)| BoardMessage::FieldUpdate(FieldUpdate { field, piece })),
        clock_time.prop_map(BoardMessage::ClockTime),
        any::<[u8; 4]>().prop_map(|a| BoardMessage::ClockAck(ClockAck {
            ack0: a[0],
            ack1: a[1],
            ack2: a[2],
            ack3: a[3]
        })),
        ("[0-9]{5}", proptest::option::of("[0-9A-Za-z.]{3}")).prop_map(|(number, v)| {
            BoardMessage::SerialNumber(SerialNumber {
                number,
                storage_version: v,
            })
        }),
        ascii(10..=10).prop_map(|text| BoardMessage::LongSerialNumber { text }),
        ascii(0..=1021).prop_map(|text| BoardMessage::Trademark { text }),
        (0u8..0x80, 0u8..0x80)
            .prop_map(|(major, minor)| BoardMessage::Version(Version { major, minor })),
        (0u16..0x4000).prop_map(|a| BoardMessage::BusAddress(BusAddress { address: a })),
        (
            0u8..0x80,
            proptest::option::of(hm()),
            hm(),
            0u8..0x80,
            hm(),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(
                |(percent, time_left, on_time, standby_days, standby, c, d)| {
                    BoardMessage::BatteryStatus(BatteryStatus {
                        percent,
                        time_left,
                        on_time,
                        standby_days,
                        standby,
                        charging: c,
                        discharging: d,
                    })
                }
            ),
        proptest::collection::vec(ee_record(), 0..200)
            .prop_map(|records| BoardMessage::EeMoves(EeMoves { records })),
        prop_oneof![
            proptest::collection::vec(0u8..0x80, 100).prop_map(|codes| (DraughtsPart::Full, codes)),
            proptest::collection::vec(0u8..0x80, 50)
                .prop_map(|codes| (DraughtsPart::BlackSquares, codes)),
            proptest::collection::vec(0u8..0x80, 50)
                .prop_map(|codes| (DraughtsPart::WhiteSquares, codes)),
        ]
        .prop_map(|(part, codes)| BoardMessage::DraughtsDump { part, codes }),
    ]
}

fn text<const N: usize>() -> impl Strategy<Value = ClockText<N>> {
    proptest::collection::vec(0x20u8..0x7F, N)
        .prop_map(|v| ClockText::new(std::str::from_utf8(&v).unwrap()).unwrap())
}

fn clock_command() -> impl Strategy<Value = ClockCommand> {
    prop_oneof![
        (any::<[u8; 6]>(), 0u8..0x80, 0u8..0x80).prop_map(|(s, marks, beep)| {
            ClockCommand::Display(XlDisplay {
                segments: s.map(|b| b & 0x7F),
                marks,
                beep,
            })
        }),
        any::<[u8; 5]>().prop_map(|b| ClockCommand::Icons(ClockIcons {
            left_0: b[0] & 0x7F,
            right_0: b[1] & 0x7F,
            left_1: b[2] & 0x7F,
            right_1: b[3] & 0x7F,
            special: b[4] & 0x7F,
        })),
        Just(ClockCommand::End),
        Just(ClockCommand::ButtonQuery),
        Just(ClockCommand::Version),
        (
            hms(),
            hms(),
            proptest::option::of(clock_side()),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(left, right, runs, paused, switch_on_lever)| {
                ClockCommand::SetAndRun {
                    left,
                    right,
                    mode: SetAndRunMode {
                        runs,
                        paused,
                        switch_on_lever,
                    },
                }
            }),
        (0u8..0x80).prop_map(|units| ClockCommand::Beep { units }),
        (text::<8>(), 0u8..16).prop_map(|(text, beep)| ClockCommand::Ascii { text, beep }),
        (text::<11>(), 0u8..16)
            .prop_map(|(text, beep)| ClockCommand::AsciiRevelation { text, beep }),
    ]
}

fn host_command() -> impl Strategy<Value = HostCommand> {
    let single: Vec<HostCommand> = (0x40u8..=0x55)
        .filter_map(|b| CommandDecoder::new().push(&[b]).pop().and_then(|r| r.ok()))
        .collect();
    prop_oneof![
        prop::sample::select(single),
        clock_command().prop_map(HostCommand::Clock),
        prop_oneof![
            (field(), field()).prop_map(|(from, to)| LedCommand::On { from, to }),
            (field(), field()).prop_map(|(from, to)| LedCommand::Off { from, to }),
            Just(LedCommand::AllOff),
            any::<bool>().prop_map(|on| LedCommand::AutoOff { on }),
            any::<bool>().prop_map(|on| LedCommand::AutoReverse { on }),
        ]
        .prop_map(HostCommand::Leds),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn board_messages_round_trip(msgs in proptest::collection::vec(board_message(), 1..8),
                                 chunk in 1usize..40) {
        let bytes: Vec<u8> = msgs.iter().flat_map(|m| m.encode()).collect();
        let mut d = Decoder::new();
        let mut out = Vec::new();
        for c in bytes.chunks(chunk) {
            out.extend(d.push(c));
        }
        let out: Vec<BoardMessage> = out.into_iter().map(|r| r.unwrap()).collect();
        prop_assert_eq!(out, msgs);
        prop_assert!(d.finish().is_empty());
    }

    #[test]
    fn host_commands_round_trip(cmds in proptest::collection::vec(host_command(), 1..8),
                                chunk in 1usize..20) {
        let bytes: Vec<u8> = cmds.iter().flat_map(|c| c.encode()).collect();
        let mut d = CommandDecoder::new();
        let mut out = Vec::new();
        for c in bytes.chunks(chunk) {
            out.extend(d.push(c));
        }
        let out: Vec<HostCommand> = out.into_iter().map(|r| r.unwrap()).collect();
        prop_assert_eq!(out, cmds);
        prop_assert!(d.finish().is_none());
    }

    #[test]
    fn messages_and_commands_survive_json(msg in board_message(), cmd in host_command()) {
        let json = serde_json::to_string(&msg).unwrap();
        prop_assert_eq!(serde_json::from_str::<BoardMessage>(&json).unwrap(), msg.clone());
        let json = serde_json::to_string(&cmd).unwrap();
        prop_assert_eq!(serde_json::from_str::<HostCommand>(&json).unwrap(), cmd);
        // And as events, the way the daemon's journal stores them.
        let mut filter = dgt_protocol::EventFilter::new();
        for event in filter.on_message(&msg) {
            let timed = dgt_protocol::TimedEvent { t_ms: 7, event };
            let json = serde_json::to_string(&timed).unwrap();
            prop_assert_eq!(serde_json::from_str::<dgt_protocol::TimedEvent>(&json).unwrap(), timed);
        }
    }

    #[test]
    fn random_bytes_never_panic_and_stay_bounded(bytes in proptest::collection::vec(any::<u8>(), 0..4096),
                                                 chunk in 1usize..64) {
        let mut d = Decoder::new();
        for c in bytes.chunks(chunk) {
            let _ = d.push(c);
            prop_assert!(d.buffered_len() <= MAX_FRAME_LEN);
        }
        let _ = d.finish();
        prop_assert_eq!(d.offset(), bytes.len() as u64);
        let mut c = CommandDecoder::new();
        let _ = c.push(&bytes);
        let _ = c.finish();
    }

    #[test]
    fn noise_never_hides_a_following_frame(noise in proptest::collection::vec(any::<u8>(), 0..200),
                                           msg in board_message()) {
        let mut d = Decoder::new();
        let _ = d.push(&noise);
        let out = d.push(&msg.encode());
        let decoded: Vec<BoardMessage> = out.into_iter().filter_map(|r| r.ok()).collect();
        prop_assert_eq!(decoded.last(), Some(&msg));
    }
}

#[test]
fn a_huge_length_is_bounded_by_the_14_bit_field() {
    // An EE_MOVES header claiming the largest length, then a long run of payload bytes.
    let mut d = Decoder::new();
    let mut bytes = vec![0x8F, 0x7F, 0x7F];
    bytes.extend(std::iter::repeat_n(0x00, 100_000));
    let out = d.push(&bytes);
    assert!(d.buffered_len() <= MAX_FRAME_LEN);
    // One EE_MOVES of 16380 no-op records, then garbage counted as one run (so far).
    assert!(
        matches!(&out[0], Ok(BoardMessage::EeMoves(e)) if e.records.len() == MAX_FRAME_LEN - 3)
    );
    let tail = d.finish();
    assert_eq!(tail.len(), 1);
}
