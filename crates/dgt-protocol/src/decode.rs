//! The incremental board-to-host decoder: push any chunk of bytes, get typed messages or
//! typed errors. It resynchronises on garbage, truncated frames and stray bit-7 bytes,
//! holds at most one frame (16 KiB) whatever the input, and never panics.

use crate::board::{FieldIndex, FieldUpdate, PieceCode, RawBoard};
use crate::clock::{ClockAck, ClockTime};
use crate::message::{
    id, BatteryStatus, BoardMessage, BusAddress, DraughtsPart, EeMoves, HoursMinutes, SerialNumber,
    Version, MAX_FRAME_LEN,
};

/// A decoding problem and the stream offset (bytes since the decoder started) where the
/// offending bytes began.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {kind}")]
pub struct DecodeError {
    pub offset: u64,
    pub kind: DecodeErrorKind,
}

/// What went wrong while decoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    #[error("{count} byte(s) outside any frame skipped")]
    Garbage { count: usize },
    #[error("unknown message id {id:#04x} skipped")]
    UnknownId { id: u8 },
    #[error("message {id:#04x} cannot be {len} bytes long; frame dropped")]
    BadLength { id: u8, len: usize },
    #[error(
        "message {id:#04x} cut short after {got} of {expected} bytes by a byte with bit 7 set"
    )]
    Truncated { id: u8, expected: usize, got: usize },
    #[error("message {id:#04x} incomplete at the end of the stream ({got} of {expected} bytes)")]
    Unfinished { id: u8, expected: usize, got: usize },
    #[error("message {id:#04x}: {problem}")]
    BadPayload { id: u8, problem: PayloadProblem },
}

/// Why a well-framed payload could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadProblem {
    #[error("byte {index} of the payload is {byte:#04x}, not a piece code")]
    BadPieceCode { index: usize, byte: u8 },
    #[error("{0:#04x} is not a field index")]
    BadField(u8),
    #[error("clock time {0:02x?} is not valid (hours above 9 or minutes/seconds not BCD 00..59)")]
    BadClockTime([u8; 7]),
}

/// The accepted total frame lengths (header included) for a message id, or `None` for an
/// unknown id.
fn length_ok(id: u8, len: usize) -> Option<bool> {
    Some(match id {
        id::BOARD_DUMP => len == 67 || len == 103,
        id::BWTIME => len == 10,
        id::FIELD_UPDATE | id::BUS_ADDRESS | id::VERSION => len == 5,
        id::EE_MOVES => (3..=MAX_FRAME_LEN).contains(&len),
        id::SERIAL_NUMBER => len == 8 || len == 12,
        id::TRADEMARK => (3..=1024).contains(&len),
        id::BOARD_DUMP_50B | id::BOARD_DUMP_50W => len == 53,
        id::BATTERY_STATUS => len == 12,
        id::LONG_SERIAL_NUMBER => len == 13,
        _ => return None,
    })
}

#[derive(Debug, Clone)]
enum State {
    /// Between frames.
    Idle,
    /// After the id byte; `hi` holds LEN_HI once read.
    Header { id: u8, start: u64, hi: Option<u8> },
    /// Reading `len - 3` payload bytes into `buf`.
    Payload { id: u8, start: u64, len: usize },
}

/// The incremental decoder. Feed it bytes as they arrive, in chunks of any size.
#[derive(Debug, Clone)]
pub struct Decoder {
    state: State,
    buf: Vec<u8>,
    /// Bytes consumed so far: the offset of the next byte.
    offset: u64,
    /// A run of skipped bytes outside frames: (start offset, count).
    garbage: Option<(u64, usize)>,
}

/// One output of the decoder.
pub type Decoded = Result<BoardMessage, DecodeError>;

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new()
    }
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder {
            state: State::Idle,
            buf: Vec::new(),
            offset: 0,
            garbage: None,
        }
    }

    /// Bytes consumed since the decoder started.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Bytes held for a frame in progress (never more than [`MAX_FRAME_LEN`]).
    pub fn buffered_len(&self) -> usize {
        self.buf.len()
    }

    /// Decodes a chunk, returning what it completes.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Decoded> {
        let mut out = Vec::new();
        self.feed(bytes, |d| out.push(d));
        out
    }

    /// Decodes a chunk, handing each output to `sink`.
    pub fn feed(&mut self, bytes: &[u8], mut sink: impl FnMut(Decoded)) {
        let mut rest = bytes;
        while let Some((&b, tail)) = rest.split_first() {
            if b & 0x80 != 0 && matches!(self.state, State::Idle) {
                if let Some(len) = self.whole_frame(rest, &mut sink) {
                    rest = rest.get(len..).unwrap_or_default();
                    continue;
                }
            }
            self.byte(b, &mut sink);
            self.offset += 1;
            rest = tail;
        }
    }

    /// A well-formed frame at the start of `bytes` (between frames), whole there: decoded
    /// straight from `bytes`, as [`Decoder::byte`] would byte by byte but without copying
    /// the payload or stepping through the states; its length. `None`, with nothing done,
    /// when the byte-wise path must decide: an unknown id, a bad length, a byte with bit 7
    /// set in the header or payload, or a frame that goes on past `bytes`.
    fn whole_frame(&mut self, bytes: &[u8], sink: &mut impl FnMut(Decoded)) -> Option<usize> {
        let (&[id, hi, lo], rest) = bytes.split_first_chunk::<3>()?;
        let (len, message) = match (id, hi, lo) {
            // The two messages of a game in progress, by their fixed sizes.
            (id::FIELD_UPDATE, 0, 5) => {
                let &[field, piece] = rest.first_chunk::<2>()?;
                if (field | piece) & 0x80 != 0 {
                    return None;
                }
                (5, field_update(field, piece))
            }
            (id::BWTIME, 0, 10) => {
                let &raw = rest.first_chunk::<7>()?;
                if raw.iter().fold(0, |all, b| all | b) & 0x80 != 0 {
                    return None;
                }
                (10, clock_frame(raw))
            }
            _ => {
                if (hi | lo) & 0x80 != 0 {
                    return None;
                }
                let len = usize::from(hi) * 128 + usize::from(lo);
                if length_ok(id, len) != Some(true) {
                    return None;
                }
                // `length_ok` admits no frame shorter than its header.
                let payload = rest.get(..len.checked_sub(3)?)?;
                if payload.iter().any(|&b| b & 0x80 != 0) {
                    return None;
                }
                (len, parse_payload(id, payload))
            }
        };
        // As when the id byte ends a run of garbage.
        self.flush_garbage(sink);
        let start = self.offset;
        self.offset += len as u64;
        sink(message.map_err(|problem| DecodeError {
            offset: start,
            kind: DecodeErrorKind::BadPayload { id, problem },
        }));
        Some(len)
    }

    /// Ends the stream: reports a trailing run of garbage or an unfinished frame, and
    /// resets the decoder to wait for a new frame.
    pub fn finish(&mut self) -> Vec<Decoded> {
        let mut out = Vec::new();
        self.flush_garbage(&mut |d| out.push(d));
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Idle => {}
            State::Header { id, start, hi } => out.push(Err(DecodeError {
                offset: start,
                kind: DecodeErrorKind::Unfinished {
                    id,
                    expected: 0,
                    got: 1 + usize::from(hi.is_some()),
                },
            })),
            State::Payload { id, start, len } => out.push(Err(DecodeError {
                offset: start,
                kind: DecodeErrorKind::Unfinished {
                    id,
                    expected: len,
                    got: 3 + self.buf.len(),
                },
            })),
        }
        self.buf.clear();
        out
    }

    /// Drops a partial frame and any pending garbage count without reporting them (after
    /// a reconnect, say).
    pub fn reset(&mut self) {
        self.state = State::Idle;
        self.buf.clear();
        self.garbage = None;
    }

    fn flush_garbage(&mut self, sink: &mut impl FnMut(Decoded)) {
        if let Some((offset, count)) = self.garbage.take() {
            sink(Err(DecodeError {
                offset,
                kind: DecodeErrorKind::Garbage { count },
            }));
        }
    }

    fn byte(&mut self, b: u8, sink: &mut impl FnMut(Decoded)) {
        let at = self.offset;
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Idle => self.start(b, at, sink),
            State::Header { id, start, hi } => {
                if b & 0x80 != 0 {
                    sink(Err(DecodeError {
                        offset: start,
                        kind: DecodeErrorKind::Truncated {
                            id,
                            expected: 3,
                            got: 1 + usize::from(hi.is_some()),
                        },
                    }));
                    self.start(b, at, sink);
                    return;
                }
                let Some(hi) = hi else {
                    self.state = State::Header {
                        id,
                        start,
                        hi: Some(b),
                    };
                    return;
                };
                let len = usize::from(hi) * 128 + usize::from(b);
                if length_ok(id, len) != Some(true) {
                    sink(Err(DecodeError {
                        offset: start,
                        kind: DecodeErrorKind::BadLength { id, len },
                    }));
                } else if len == 3 {
                    self.complete(id, start, sink);
                } else {
                    self.buf.clear();
                    self.state = State::Payload { id, start, len };
                }
            }
            State::Payload { id, start, len } => {
                if b & 0x80 != 0 {
                    sink(Err(DecodeError {
                        offset: start,
                        kind: DecodeErrorKind::Truncated {
                            id,
                            expected: len,
                            got: 3 + self.buf.len(),
                        },
                    }));
                    self.buf.clear();
                    self.start(b, at, sink);
                    return;
                }
                self.buf.push(b);
                if self.buf.len() + 3 == len {
                    self.complete(id, start, sink);
                } else {
                    self.state = State::Payload { id, start, len };
                }
            }
        }
    }

    /// A byte outside a frame.
    fn start(&mut self, b: u8, at: u64, sink: &mut impl FnMut(Decoded)) {
        if b & 0x80 == 0 {
            match &mut self.garbage {
                Some((_, count)) => *count += 1,
                None => self.garbage = Some((at, 1)),
            }
            return;
        }
        self.flush_garbage(sink);
        if length_ok(b, 3).is_some() {
            self.state = State::Header {
                id: b,
                start: at,
                hi: None,
            };
        } else {
            sink(Err(DecodeError {
                offset: at,
                kind: DecodeErrorKind::UnknownId { id: b },
            }));
        }
    }

    fn complete(&mut self, id: u8, start: u64, sink: &mut impl FnMut(Decoded)) {
        let result = parse_payload(id, &self.buf).map_err(|problem| DecodeError {
            offset: start,
            kind: DecodeErrorKind::BadPayload { id, problem },
        });
        self.buf.clear();
        self.state = State::Idle;
        sink(result);
    }
}

/// Reads the payload of a well-framed message (length already checked).
fn parse_payload(msg_id: u8, p: &[u8]) -> Result<BoardMessage, PayloadProblem> {
    let text = |p: &[u8]| p.iter().map(|&b| char::from(b & 0x7F)).collect::<String>();
    Ok(match msg_id {
        id::BOARD_DUMP if p.len() == 64 => {
            let mut board = RawBoard::default();
            for (i, &byte) in p.iter().enumerate() {
                board.0[i] = PieceCode::from_byte(byte)
                    .map_err(|_| PayloadProblem::BadPieceCode { index: i, byte })?;
            }
            BoardMessage::BoardDump { board }
        }
        id::BOARD_DUMP => BoardMessage::DraughtsDump {
            part: DraughtsPart::Full,
            codes: p.to_vec(),
        },
        id::BOARD_DUMP_50B | id::BOARD_DUMP_50W => BoardMessage::DraughtsDump {
            part: if msg_id == id::BOARD_DUMP_50B {
                DraughtsPart::BlackSquares
            } else {
                DraughtsPart::WhiteSquares
            },
            codes: p.to_vec(),
        },
        id::FIELD_UPDATE => match *p {
            [field, piece] => field_update(field, piece)?,
            _ => unreachable!("a field update passed the length check with {p:02x?}"),
        },
        id::BWTIME => match <[u8; 7]>::try_from(p) {
            Ok(raw) => clock_frame(raw)?,
            Err(_) => unreachable!("a clock frame passed the length check with {p:02x?}"),
        },
        id::SERIAL_NUMBER => {
            let t = text(p);
            match t.split_once(' ') {
                Some((n, v)) => BoardMessage::SerialNumber(SerialNumber {
                    number: n.to_owned(),
                    storage_version: Some(v.to_owned()),
                }),
                None => BoardMessage::SerialNumber(SerialNumber {
                    number: t,
                    storage_version: None,
                }),
            }
        }
        id::LONG_SERIAL_NUMBER => BoardMessage::LongSerialNumber { text: text(p) },
        id::TRADEMARK => BoardMessage::Trademark { text: text(p) },
        id::VERSION => BoardMessage::Version(Version {
            major: p[0],
            minor: p[1],
        }),
        id::BUS_ADDRESS => BoardMessage::BusAddress(BusAddress {
            address: (u16::from(p[0]) << 7) | u16::from(p[1]),
        }),
        id::BATTERY_STATUS => {
            let hm = |h: u8, m: u8| HoursMinutes {
                hours: h,
                minutes: m,
            };
            BoardMessage::BatteryStatus(BatteryStatus {
                percent: p[0],
                time_left: (p[1] != 0x7F && p[2] != 0x7F).then(|| hm(p[1], p[2])),
                on_time: hm(p[3], p[4]),
                standby_days: p[5],
                standby: hm(p[6], p[7]),
                charging: p[8] & 1 != 0,
                discharging: p[8] & 2 != 0,
            })
        }
        id::EE_MOVES => BoardMessage::EeMoves(EeMoves::parse(p)),
        // `length_ok` admits no other id.
        other => unreachable!("message id {other:#04x} passed the length check"),
    })
}

/// A FIELD_UPDATE payload.
#[inline]
fn field_update(field: u8, piece: u8) -> Result<BoardMessage, PayloadProblem> {
    let field = FieldIndex::new(field).ok_or(PayloadProblem::BadField(field))?;
    let piece = PieceCode::from_byte(piece).map_err(|_| PayloadProblem::BadPieceCode {
        index: 1,
        byte: piece,
    })?;
    Ok(BoardMessage::FieldUpdate(FieldUpdate { field, piece }))
}

/// A BWTIME payload: a clock ACK or the clock's times.
#[inline]
fn clock_frame(raw: [u8; 7]) -> Result<BoardMessage, PayloadProblem> {
    Ok(if ClockAck::is_ack_payload(&raw) {
        BoardMessage::ClockAck(ClockAck::decode(&raw))
    } else {
        BoardMessage::ClockTime(ClockTime::decode(&raw).ok_or(PayloadProblem::BadClockTime(raw))?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Orientation;
    use crate::clock::ClockSide;
    use chess_rules::Placement;

    fn one(bytes: &[u8]) -> BoardMessage {
        let mut d = Decoder::new();
        let mut out = d.push(bytes);
        assert_eq!(out.len(), 1, "{out:?}");
        out.remove(0).unwrap()
    }

    /// What a decoder gives for `bytes` fed in chunks of `size`: the outputs, its offset
    /// and held bytes after the last chunk, and what `finish` reports.
    fn decoded_in_chunks(bytes: &[u8], size: usize) -> (Vec<Decoded>, u64, usize, Vec<Decoded>) {
        let mut d = Decoder::new();
        let mut out = Vec::new();
        for chunk in bytes.chunks(size) {
            d.feed(chunk, |m| out.push(m));
        }
        let (offset, held) = (d.offset(), d.buffered_len());
        (out, offset, held, d.finish())
    }

    /// Streams of frames as boards send them, with every kind of damage: a bad payload,
    /// a byte with bit 7 inside a frame, a cut, garbage, unknown ids, bad lengths.
    fn stream() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let seven_bits = || proptest::collection::vec(0u8..0x80, 0..12);
        let frame = prop_oneof![
            4 => (0u8..0x80, 0u8..0x80).prop_map(|(f, p)| vec![0x8E, 0, 5, f, p]),
            // Piece codes and fields mostly valid.
            4 => (0u8..64, 0u8..16).prop_map(|(f, p)| vec![0x8E, 0, 5, f, p]),
            4 => proptest::collection::vec(0u8..0x80, 7).prop_map(|p| [&[0x8D, 0, 10][..], &p].concat()),
            // Clock times mostly valid: BCD minutes and seconds, hours 0..=9 or ACK 0x0a.
            4 => (proptest::collection::vec((0u8..=0x0a, 0u8..60, 0u8..60), 2), 0u8..0x40).prop_map(
                |(sides, status)| {
                    let mut f = vec![0x8D, 0, 10];
                    for (h, m, s) in sides {
                        f.extend([h, crate::clock::to_bcd(m), crate::clock::to_bcd(s)]);
                    }
                    f.push(status);
                    f
                }
            ),
            1 => proptest::collection::vec(0u8..13, 64).prop_map(|p| [&[0x86, 0, 67][..], &p].concat()),
            2 => (prop::sample::select(vec![0x86u8, 0x8D, 0x8E, 0x8F, 0x90, 0x91, 0x92, 0x93, 0x94, 0xA0, 0xA2]),
                  0u8..0x80, 0u8..20, seven_bits())
                .prop_map(|(id, hi, lo, p)| [&[id, hi & 1, lo][..], &p].concat()),
            2 => (prop::sample::select(vec![0x90u8, 0x93]), 0u8..0x80, 0u8..0x80)
                .prop_map(|(id, a, b)| vec![id, 0, 5, a, b]),
            2 => proptest::collection::vec(any::<u8>(), 1..6),
        ];
        (
            proptest::collection::vec(frame, 0..16),
            proptest::collection::vec((any::<usize>(), any::<u8>()), 0..3),
        )
            .prop_map(|(frames, damage)| {
                let mut bytes = frames.concat();
                // A few bytes overwritten anywhere: bit-7 bytes inside frames, cuts.
                if !bytes.is_empty() {
                    for (at, b) in damage {
                        let n = bytes.len();
                        bytes[at % n] = b;
                    }
                }
                bytes
            })
    }

    proptest::proptest! {
        /// Frames whole in a chunk take the direct path; fed a byte at a time none can.
        /// Both give the same outputs, offsets and state, whatever the chunks.
        #[test]
        fn whole_frames_decode_as_byte_by_byte(bytes in stream(), size in 2usize..40) {
            let by_byte = decoded_in_chunks(&bytes, 1);
            proptest::prop_assert_eq!(&decoded_in_chunks(&bytes, bytes.len().max(1)), &by_byte);
            proptest::prop_assert_eq!(&decoded_in_chunks(&bytes, size), &by_byte);
        }
    }

    #[test]
    fn fact_sheet_frames() {
        // §4.1: the normal start dump.
        let mut dump = vec![
            0x86, 0x00, 0x43, 0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08,
        ];
        dump.extend([0x07; 8]);
        dump.extend([0x00; 32]);
        dump.extend([0x01; 8]);
        dump.extend([0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]);
        let BoardMessage::BoardDump { board } = one(&dump) else {
            panic!("not a dump")
        };
        assert_eq!(board.placement(Orientation::Normal), Placement::start());
        // §4.3: e2-e4 is 8E 00 05 34 00 then 8E 00 05 24 01.
        let mut d = Decoder::new();
        let out = d.push(&[0x8E, 0x00, 0x05, 0x34, 0x00, 0x8E, 0x00, 0x05, 0x24, 0x01]);
        let squares: Vec<String> = out
            .iter()
            .map(|m| match m {
                Ok(BoardMessage::FieldUpdate(u)) => {
                    format!("{}{}", u.square(Orientation::Normal), u.piece)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(squares, ["e2.", "e4P"]);
        // §4.4: a running clock frame.
        let BoardMessage::ClockTime(t) =
            one(&[0x8D, 0x00, 0x0A, 0x20, 0x05, 0x05, 0x20, 0x05, 0x04, 0x09])
        else {
            panic!("not a clock time")
        };
        assert_eq!(t.running_side(), Some(ClockSide::Left));
        // §4.5: an ACK.
        assert!(matches!(
            one(&[0x8D, 0x00, 0x0A, 0x0A, 0x10, 0x09, 0x0A, 0x21, 0x00, 0x00]),
            BoardMessage::ClockAck(a) if a.version().is_some()
        ));
        // §4.6: serial 01025 has bus address 08 01.
        assert_eq!(
            one(&[0x90, 0x00, 0x05, 0x08, 0x01]),
            BoardMessage::BusAddress(BusAddress { address: 1025 })
        );
        // §4.6: battery payload 58 00 00 00 00 00 00 00 02 = 88 %, discharging.
        let BoardMessage::BatteryStatus(b) = one(&[
            0xA0, 0x00, 0x0C, 0x58, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
        ]) else {
            panic!("not a battery status")
        };
        assert_eq!((b.percent, b.charging, b.discharging), (88, false, true));
        // §4.6: both serial number lengths.
        assert_eq!(
            one(b"\x91\x00\x0812345"),
            BoardMessage::SerialNumber(SerialNumber {
                number: "12345".into(),
                storage_version: None
            })
        );
        assert_eq!(
            one(b"\x91\x00\x0c12345 1.0"),
            BoardMessage::SerialNumber(SerialNumber {
                number: "12345".into(),
                storage_version: Some("1.0".into())
            })
        );
        assert_eq!(
            one(b"\xa2\x00\x0d3.25A12345"),
            BoardMessage::LongSerialNumber {
                text: "3.25A12345".into()
            }
        );
        assert_eq!(
            one(&[0x93, 0x00, 0x05, 0x01, 0x02]),
            BoardMessage::Version(Version { major: 1, minor: 2 })
        );
        assert_eq!(
            one(b"\x92\x00\x08DGT\r\n"),
            BoardMessage::Trademark {
                text: "DGT\r\n".into()
            }
        );
        // §4.6: an EE log: power-up, a field record, a time record, end of file.
        let BoardMessage::EeMoves(e) =
            one(&[0x8F, 0x00, 0x0A, 0x6A, 0x41, 0x34, 0x70, 0x03, 0x02, 0x6B])
        else {
            panic!("not an EE log")
        };
        assert_eq!(e.records.len(), 4);
        assert!(matches!(
            e.records[1],
            crate::message::EeRecord::Field { quick: false, .. }
        ));
        assert!(matches!(
            e.records[2],
            crate::message::EeRecord::Time { display: ClockSide::Left, time } if time.secs() == 182
        ));
    }

    #[test]
    fn resync_on_noise() {
        let mut d = Decoder::new();
        let update = [0x8E, 0x00, 0x05, 0x34, 0x00];
        // Garbage, a truncated frame cut by a new id, a bad length, an unknown id.
        let mut bytes = vec![0x01, 0x02, 0x03];
        bytes.extend([0x8D, 0x00, 0x0A, 0x20]);
        bytes.extend(update);
        bytes.extend([0x8E, 0x00, 0x06]);
        bytes.extend([0xFF]);
        bytes.extend(update);
        let out = d.push(&bytes);
        let kinds: Vec<String> = out
            .iter()
            .map(|r| match r {
                Ok(m) => format!("ok {}", m.id()),
                Err(e) => format!("{:?}@{}", std::mem::discriminant(&e.kind), e.offset),
            })
            .collect();
        assert_eq!(out.len(), 6, "{kinds:?}");
        assert!(matches!(
            out[0],
            Err(DecodeError {
                offset: 0,
                kind: DecodeErrorKind::Garbage { count: 3 }
            })
        ));
        assert!(matches!(
            out[1],
            Err(DecodeError {
                offset: 3,
                kind: DecodeErrorKind::Truncated {
                    id: 0x8D,
                    expected: 10,
                    got: 4
                }
            })
        ));
        assert!(matches!(out[2], Ok(BoardMessage::FieldUpdate(_))));
        assert!(matches!(
            out[3],
            Err(DecodeError {
                offset: 12,
                kind: DecodeErrorKind::BadLength { id: 0x8E, len: 6 }
            })
        ));
        assert!(matches!(
            out[4],
            Err(DecodeError {
                kind: DecodeErrorKind::UnknownId { id: 0xFF },
                ..
            })
        ));
        assert!(matches!(out[5], Ok(BoardMessage::FieldUpdate(_))));
        // Invalid payloads are typed errors.
        let out = d.push(&[0x8E, 0x00, 0x05, 0x40, 0x00, 0x8E, 0x00, 0x05, 0x00, 0x10]);
        assert!(matches!(
            &out[0],
            Err(DecodeError {
                kind: DecodeErrorKind::BadPayload {
                    problem: PayloadProblem::BadField(0x40),
                    ..
                },
                ..
            })
        ));
        assert!(matches!(
            &out[1],
            Err(DecodeError {
                kind: DecodeErrorKind::BadPayload {
                    problem: PayloadProblem::BadPieceCode { .. },
                    ..
                },
                ..
            })
        ));
        let out = d.push(&[0x8D, 0x00, 0x0A, 0x00, 0x5A, 0x00, 0x00, 0x00, 0x00, 0x00]);
        assert!(matches!(
            &out[0],
            Err(DecodeError {
                kind: DecodeErrorKind::BadPayload {
                    problem: PayloadProblem::BadClockTime(_),
                    ..
                },
                ..
            })
        ));
        // A frame cut off at the end of the stream is reported by `finish`.
        assert!(d.push(&[0x8E, 0x00]).is_empty());
        assert!(matches!(
            d.finish()[0],
            Err(DecodeError {
                kind: DecodeErrorKind::Unfinished { id: 0x8E, .. },
                ..
            })
        ));
    }
}
