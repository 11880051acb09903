//! Board-to-host messages (fact sheet §4): the typed [`BoardMessage`] and its encoder.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::{FieldIndex, FieldUpdate, PieceCode, RawBoard};
use crate::clock::{from_bcd, to_bcd, ClockAck, ClockSide, ClockTime, Hms};

/// The longest frame the 14-bit length field can describe.
pub const MAX_FRAME_LEN: usize = 0x3FFF;

/// Message ids (the first byte of a frame, bit 7 set).
pub mod id {
    pub const BOARD_DUMP: u8 = 0x86;
    pub const BWTIME: u8 = 0x8D;
    pub const FIELD_UPDATE: u8 = 0x8E;
    pub const EE_MOVES: u8 = 0x8F;
    pub const BUS_ADDRESS: u8 = 0x90;
    pub const SERIAL_NUMBER: u8 = 0x91;
    pub const TRADEMARK: u8 = 0x92;
    pub const VERSION: u8 = 0x93;
    pub const BOARD_DUMP_50B: u8 = 0x94;
    pub const BOARD_DUMP_50W: u8 = 0x95;
    pub const BATTERY_STATUS: u8 = 0xA0;
    pub const LONG_SERIAL_NUMBER: u8 = 0xA2;
}

/// One decoded board-to-host message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BoardMessage {
    /// 0x86: all 64 fields.
    BoardDump { board: RawBoard },
    /// 0x8E: one field changed.
    FieldUpdate(FieldUpdate),
    /// 0x8D carrying clock times.
    ClockTime(ClockTime),
    /// 0x8D carrying a clock ACK.
    ClockAck(ClockAck),
    /// 0x91.
    SerialNumber(SerialNumber),
    /// 0xA2: 10 ASCII characters.
    LongSerialNumber { text: String },
    /// 0x93.
    Version(Version),
    /// 0x92: free ASCII text, often several lines.
    Trademark { text: String },
    /// 0xA0.
    BatteryStatus(BatteryStatus),
    /// 0x8F: the board's event log.
    EeMoves(EeMoves),
    /// 0x90.
    BusAddress(BusAddress),
    /// 0x86 with 100 fields, 0x94 / 0x95 with 50: a 10x10 draughts board (raw codes).
    DraughtsDump { part: DraughtsPart, codes: Vec<u8> },
}

/// Which part of a draughts board a dump covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DraughtsPart {
    /// 0x86 with 100 codes.
    Full,
    /// 0x94: the 50 black squares.
    BlackSquares,
    /// 0x95: the 50 white squares.
    WhiteSquares,
}

/// A SERIALNR answer: 5 digits, and in the old 12-byte form a storage version ("1.0").
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SerialNumber {
    pub number: String,
    pub storage_version: Option<String>,
}

impl fmt::Display for SerialNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.number)?;
        if let Some(v) = &self.storage_version {
            write!(f, " (storage {v})")?;
        }
        Ok(())
    }
}

/// A board firmware version: two binary bytes (01 02 is "1.02" or "1.2"; sources vary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.major, self.minor)
    }
}

/// Hours and minutes, as the battery status reports durations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HoursMinutes {
    pub hours: u8,
    pub minutes: u8,
}

/// A BATTERY_STATUS answer (9 payload bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BatteryStatus {
    /// Charge left, percent.
    pub percent: u8,
    /// Run or charge time left; `None` when the board says "not available" (7F).
    pub time_left: Option<HoursMinutes>,
    pub on_time: HoursMinutes,
    pub standby_days: u8,
    pub standby: HoursMinutes,
    pub charging: bool,
    pub discharging: bool,
}

/// A BUSADRES answer: the 14-bit bus address (equals the serial number read as decimal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BusAddress {
    pub address: u16,
}

/// The board's EEPROM event log, parsed into records.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct EeMoves {
    pub records: Vec<EeRecord>,
}

/// One record of the EE_MOVES log (fact sheet §4.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum EeRecord {
    /// 40-5F + field: `field` changed to `piece`; `quick` when under ~250 ms after the
    /// previous record.
    Field {
        field: FieldIndex,
        piece: PieceCode,
        quick: bool,
    },
    /// 60-69 / 70-79 + BCD minutes + BCD seconds: a clock reading written at a lever press.
    Time { display: ClockSide, time: Hms },
    /// 6A.
    PowerUp,
    /// 6B: the log ends.
    EndOfFile,
    /// 6C: 16 pieces on files a, b, g, h, but not a start position.
    FourRows,
    /// 6D.
    EmptyBoard,
    /// 6E.
    Downloaded,
    /// 6F.
    StartPosition,
    /// 7A.
    RotatedStartPosition,
    /// 7B (bus mode).
    StartTag,
    /// 7C.
    WatchdogReset,
    /// Any other byte: the no-ops 00 and 7F, the reserved 7D and 7E, or a byte that does
    /// not start a valid record (a record cut short at the end, a bad field or BCD value).
    Other { byte: u8 },
}

impl EeMoves {
    /// Parses the log bytes. Never fails: bytes that do not form a record become
    /// [`EeRecord::Other`].
    pub fn parse(data: &[u8]) -> EeMoves {
        let mut records = Vec::new();
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            let rest = &data[i + 1..];
            let (rec, used) = match b {
                0x40..=0x5F => match rest.first().and_then(|&f| FieldIndex::new(f)) {
                    Some(field) => (
                        EeRecord::Field {
                            field,
                            piece: PieceCode::from_byte(b & 0x0F).unwrap_or_default(),
                            quick: b & 0x10 != 0,
                        },
                        2,
                    ),
                    None => (EeRecord::Other { byte: b }, 1),
                },
                0x60..=0x69 | 0x70..=0x79 => {
                    let time = match rest {
                        [m, s, ..] => from_bcd(*m)
                            .zip(from_bcd(*s))
                            .and_then(|(m, s)| Hms::new(b & 0x0F, m, s).ok()),
                        _ => None,
                    };
                    match time {
                        Some(time) => (
                            EeRecord::Time {
                                display: if b & 0x10 != 0 {
                                    ClockSide::Left
                                } else {
                                    ClockSide::Right
                                },
                                time,
                            },
                            3,
                        ),
                        None => (EeRecord::Other { byte: b }, 1),
                    }
                }
                0x6A => (EeRecord::PowerUp, 1),
                0x6B => (EeRecord::EndOfFile, 1),
                0x6C => (EeRecord::FourRows, 1),
                0x6D => (EeRecord::EmptyBoard, 1),
                0x6E => (EeRecord::Downloaded, 1),
                0x6F => (EeRecord::StartPosition, 1),
                0x7A => (EeRecord::RotatedStartPosition, 1),
                0x7B => (EeRecord::StartTag, 1),
                0x7C => (EeRecord::WatchdogReset, 1),
                other => (EeRecord::Other { byte: other }, 1),
            };
            records.push(rec);
            i += used;
        }
        EeMoves { records }
    }

    /// The log bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.records.len() * 2);
        for r in &self.records {
            match *r {
                EeRecord::Field {
                    field,
                    piece,
                    quick,
                } => {
                    out.push(0x40 | if quick { 0x10 } else { 0 } | piece.byte());
                    out.push(field.index());
                }
                EeRecord::Time { display, time } => {
                    let side = if display == ClockSide::Left { 0x10 } else { 0 };
                    out.extend([
                        0x60 | side | time.hours(),
                        to_bcd(time.minutes()),
                        to_bcd(time.seconds()),
                    ]);
                }
                EeRecord::PowerUp => out.push(0x6A),
                EeRecord::EndOfFile => out.push(0x6B),
                EeRecord::FourRows => out.push(0x6C),
                EeRecord::EmptyBoard => out.push(0x6D),
                EeRecord::Downloaded => out.push(0x6E),
                EeRecord::StartPosition => out.push(0x6F),
                EeRecord::RotatedStartPosition => out.push(0x7A),
                EeRecord::StartTag => out.push(0x7B),
                EeRecord::WatchdogReset => out.push(0x7C),
                EeRecord::Other { byte } => out.push(byte & 0x7F),
            }
        }
        out
    }
}

impl BoardMessage {
    /// The message id byte.
    pub fn id(&self) -> u8 {
        match self {
            BoardMessage::BoardDump { .. } => id::BOARD_DUMP,
            BoardMessage::FieldUpdate(_) => id::FIELD_UPDATE,
            BoardMessage::ClockTime(_) | BoardMessage::ClockAck(_) => id::BWTIME,
            BoardMessage::SerialNumber(_) => id::SERIAL_NUMBER,
            BoardMessage::LongSerialNumber { .. } => id::LONG_SERIAL_NUMBER,
            BoardMessage::Version(_) => id::VERSION,
            BoardMessage::Trademark { .. } => id::TRADEMARK,
            BoardMessage::BatteryStatus(_) => id::BATTERY_STATUS,
            BoardMessage::EeMoves(_) => id::EE_MOVES,
            BoardMessage::BusAddress(_) => id::BUS_ADDRESS,
            BoardMessage::DraughtsDump { part, .. } => match part {
                DraughtsPart::Full => id::BOARD_DUMP,
                DraughtsPart::BlackSquares => id::BOARD_DUMP_50B,
                DraughtsPart::WhiteSquares => id::BOARD_DUMP_50W,
            },
        }
    }

    /// The payload bytes (after the 3 header bytes). Text and codes are masked to 7 bits
    /// so that the frame stays well formed.
    pub fn payload(&self) -> Vec<u8> {
        let text = |s: &str| s.bytes().map(|b| b & 0x7F).collect::<Vec<u8>>();
        match self {
            BoardMessage::BoardDump { board } => board.0.iter().map(|c| c.byte()).collect(),
            BoardMessage::FieldUpdate(u) => vec![u.field.index(), u.piece.byte()],
            BoardMessage::ClockTime(t) => t.encode().to_vec(),
            BoardMessage::ClockAck(a) => a.encode().to_vec(),
            BoardMessage::SerialNumber(s) => {
                let mut out = text(&s.number);
                if let Some(v) = &s.storage_version {
                    out.push(b' ');
                    out.extend(text(v));
                }
                out
            }
            BoardMessage::LongSerialNumber { text: t } | BoardMessage::Trademark { text: t } => {
                text(t)
            }
            BoardMessage::Version(v) => vec![v.major & 0x7F, v.minor & 0x7F],
            BoardMessage::BatteryStatus(b) => {
                let left = b.time_left.unwrap_or(HoursMinutes {
                    hours: 0x7F,
                    minutes: 0x7F,
                });
                let status = u8::from(b.charging) | (u8::from(b.discharging) << 1);
                [
                    b.percent,
                    left.hours,
                    left.minutes,
                    b.on_time.hours,
                    b.on_time.minutes,
                    b.standby_days,
                    b.standby.hours,
                    b.standby.minutes,
                    status,
                ]
                .iter()
                .map(|b| b & 0x7F)
                .collect()
            }
            BoardMessage::EeMoves(e) => e.to_bytes(),
            BoardMessage::BusAddress(a) => {
                vec![((a.address >> 7) & 0x7F) as u8, (a.address & 0x7F) as u8]
            }
            BoardMessage::DraughtsDump { codes, .. } => codes.iter().map(|b| b & 0x7F).collect(),
        }
    }

    /// The whole frame: id, 14-bit length, payload. Payloads longer than a frame can
    /// carry (16380 bytes) are cut.
    pub fn encode(&self) -> Vec<u8> {
        let mut payload = self.payload();
        payload.truncate(MAX_FRAME_LEN - 3);
        let len = payload.len() + 3;
        let mut out = Vec::with_capacity(len);
        out.push(self.id());
        out.push(((len >> 7) & 0x7F) as u8);
        out.push((len & 0x7F) as u8);
        out.extend(payload);
        out
    }
}

impl fmt::Display for BoardMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardMessage::BoardDump { board } => {
                write!(f, "board dump {board}")?;
                match board.detect_orientation() {
                    Some(crate::board::Orientation::Normal) => f.write_str(" (start position)"),
                    Some(crate::board::Orientation::Rotated) => {
                        f.write_str(" (start position, board turned)")
                    }
                    None => Ok(()),
                }
            }
            BoardMessage::FieldUpdate(u) => write!(f, "field {} = {}", u.field, u.piece),
            BoardMessage::ClockTime(t) => write!(f, "clock {t}"),
            BoardMessage::ClockAck(a) => write!(f, "clock {a}"),
            BoardMessage::SerialNumber(s) => write!(f, "serial number {s}"),
            BoardMessage::LongSerialNumber { text } => write!(f, "long serial number {text:?}"),
            BoardMessage::Version(v) => write!(f, "version {v}"),
            BoardMessage::Trademark { text } => write!(f, "trademark {text:?}"),
            BoardMessage::BatteryStatus(b) => write!(
                f,
                "battery {}%{}{}",
                b.percent,
                if b.charging { " charging" } else { "" },
                if b.discharging { " discharging" } else { "" }
            ),
            BoardMessage::EeMoves(e) => write!(f, "ee moves ({} records)", e.records.len()),
            BoardMessage::BusAddress(a) => write!(f, "bus address {}", a.address),
            BoardMessage::DraughtsDump { part, codes } => {
                write!(f, "draughts dump {part:?} ({} fields)", codes.len())
            }
        }
    }
}
