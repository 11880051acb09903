//! Host-to-board commands (fact sheet §3) and clock commands through the board (§5):
//! typed values, their encoders, and an incremental decoder for the host's byte stream
//! (for emulators and for reading captures).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::FieldIndex;
use crate::clock::{ClockSide, Hms};

/// A command from the host to the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum HostCommand {
    /// 0x40: to IDLE (no automatic updates).
    Reset,
    /// 0x41: one BWTIME.
    SendClock,
    /// 0x42: a board dump.
    SendBoard,
    /// 0x43: mode UPDATE (field updates, clock at least once a second).
    SendUpdate,
    /// 0x44: mode UPDATE_BOARD (field updates only).
    SendUpdateBoard,
    /// 0x45.
    ReturnSerialNumber,
    /// 0x46.
    ReturnBusAddress,
    /// 0x47.
    SendTrademark,
    /// 0x49: the EEPROM event log (about 8 s at 9600 baud).
    SendEeMoves,
    /// 0x4A.
    ToBusMode,
    /// 0x4B: mode UPDATE_NICE (field updates, clock on change).
    SendUpdateNice,
    /// 0x4C.
    SendBatteryStatus,
    /// 0x4D.
    SendVersion,
    /// 0x4E: firmware loader. Never send it.
    StartBootloader,
    /// 0x50: draughts half-board dump (black squares).
    SendBoard50Black,
    /// 0x51.
    Scan50Black,
    /// 0x52: draughts half-board dump (white squares).
    SendBoard50White,
    /// 0x53.
    Scan50White,
    /// 0x54.
    Scan100,
    /// 0x55.
    ReturnLongSerialNumber,
    /// 0x60: Revelation II LEDs.
    Leds(LedCommand),
    /// 0x2B: a message for the clock.
    Clock(ClockCommand),
}

/// Revelation II LED commands (`60 04 <mode> <a> <b> 00`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "leds", rename_all = "snake_case")]
pub enum LedCommand {
    /// Mode 01: light the fields from `from` to `to`.
    On { from: FieldIndex, to: FieldIndex },
    /// Mode 00 with a = 0x40: all LEDs off.
    AllOff,
    /// Mode 00 for two fields.
    Off { from: FieldIndex, to: FieldIndex },
    /// Mode 02, setting 01: LEDs go off automatically when a piece changes.
    AutoOff { on: bool },
    /// Mode 02, setting 02: the board mirrors itself when it sees a reversed start.
    AutoReverse { on: bool },
}

/// A message for the clock, sent through the board as `2B <size> 03 <sub> <data> 00`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "clock", rename_all = "snake_case")]
pub enum ClockCommand {
    /// Sub 01: DGT XL 7-segment display contents.
    Display(XlDisplay),
    /// Sub 02: the icons.
    Icons(ClockIcons),
    /// Sub 03: back to the time display.
    End,
    /// Sub 08: button query (the ACK carries no button).
    ButtonQuery,
    /// Sub 09: version query.
    Version,
    /// Sub 0A: set both times and run.
    SetAndRun {
        left: Hms,
        right: Hms,
        mode: SetAndRunMode,
    },
    /// Sub 0B: beep for `units` x 64 ms.
    Beep { units: u8 },
    /// Sub 0C: 8 characters of text on a DGT3000; `beep` 0 is silent, 1-15 a beep
    /// (sources differ on its length).
    Ascii { text: ClockText<8>, beep: u8 },
    /// Sub 0D: 11 characters of text on a Revelation II, `beep` as for `Ascii`.
    AsciiRevelation { text: ClockText<11>, beep: u8 },
}

/// The clock sub-command ids.
pub mod sub {
    pub const DISPLAY: u8 = 0x01;
    pub const ICONS: u8 = 0x02;
    pub const END: u8 = 0x03;
    pub const BUTTON: u8 = 0x08;
    pub const VERSION: u8 = 0x09;
    pub const SET_AND_RUN: u8 = 0x0A;
    pub const BEEP: u8 = 0x0B;
    pub const ASCII: u8 = 0x0C;
    pub const ASCII_REVELATION: u8 = 0x0D;
}

/// What the clock does after a set-and-run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SetAndRunMode {
    /// The side whose time runs (F bit 0 left, bit 1 right); `None`: neither.
    pub runs: Option<ClockSide>,
    /// F bit 2: paused.
    pub paused: bool,
    /// F bit 3: switch sides at a lever press.
    pub switch_on_lever: bool,
}

impl SetAndRunMode {
    fn byte(self) -> u8 {
        let mut f = match self.runs {
            None => 0,
            Some(ClockSide::Left) => 0x01,
            Some(ClockSide::Right) => 0x02,
        };
        if self.paused {
            f |= 0x04;
        }
        if self.switch_on_lever {
            f |= 0x08;
        }
        f
    }

    fn from_byte(f: u8) -> Option<SetAndRunMode> {
        let runs = match f & 0x03 {
            0 => None,
            1 => Some(ClockSide::Left),
            2 => Some(ClockSide::Right),
            _ => return None,
        };
        (f & !0x0F == 0).then_some(SetAndRunMode {
            runs,
            paused: f & 0x04 != 0,
            switch_on_lever: f & 0x08 != 0,
        })
    }
}

/// A DGT XL display: six 7-segment characters (leftmost first), the marks bit mask (01
/// right dot, 02 right colon, 04 right "1", 08 left dot, 10 left colon, 20 left "1") and
/// the beep byte (03 beep, 01 silent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct XlDisplay {
    pub segments: [u8; 6],
    pub marks: u8,
    pub beep: u8,
}

impl XlDisplay {
    /// The segment pattern of a digit, blank or minus; `None` for other characters.
    pub fn segment_pattern(c: char) -> Option<u8> {
        const DIGITS: [u8; 10] = [0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F];
        match c {
            '0'..='9' => Some(DIGITS[(c as u8 - b'0') as usize]),
            ' ' => Some(0x00),
            '-' => Some(0x40),
            _ => None,
        }
    }

    /// The character a segment pattern shows, `?` for patterns that are not one.
    pub fn pattern_char(pattern: u8) -> char {
        "0123456789 -"
            .chars()
            .find(|&c| XlDisplay::segment_pattern(c) == Some(pattern & 0x7F))
            .unwrap_or('?')
    }

    /// Digits, blanks and minus signs, up to 6 (padded with blanks on the right).
    pub fn text(text: &str, beep: bool) -> Result<XlDisplay, ClockTextError> {
        if text.chars().count() > 6 {
            return Err(ClockTextError::TooLong {
                text: text.to_owned(),
                max: 6,
            });
        }
        let mut segments = [0u8; 6];
        for (i, c) in text.chars().enumerate() {
            segments[i] = XlDisplay::segment_pattern(c).ok_or(ClockTextError::BadChar {
                text: text.to_owned(),
                ch: c,
            })?;
        }
        Ok(XlDisplay {
            segments,
            marks: 0,
            beep: if beep { 0x03 } else { 0x01 },
        })
    }

    /// What the display reads (digits, blanks, minus; `?` for other patterns).
    pub fn shown(&self) -> String {
        self.segments
            .iter()
            .map(|&p| XlDisplay::pattern_char(p))
            .collect()
    }
}

/// Icon bytes of the ICONS command: per side, bits 0-6 of `*_0` TIME, FISCH, DELAY,
/// HGLASS, UPCNT, BYO, END; bits 0-4 of `*_1` period 1-5, bit 5 flag; `special` bit 0
/// clear all, 1 sound, 2 black-white, 3 white-black, 4 BAT, 6 icons stay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ClockIcons {
    pub left_0: u8,
    pub right_0: u8,
    pub left_1: u8,
    pub right_1: u8,
    pub special: u8,
}

/// Exactly `N` printable ASCII characters for a clock display (shorter text is padded
/// with blanks on the right).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockText<const N: usize>([u8; N]);

/// Text a clock cannot show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockTextError {
    #[error("clock text {text:?} is longer than {max} characters")]
    TooLong { text: String, max: usize },
    #[error("clock text {text:?} holds {ch:?}, which the clock cannot show")]
    BadChar { text: String, ch: char },
}

impl<const N: usize> ClockText<N> {
    /// Validates and pads `text`.
    pub fn new(text: &str) -> Result<ClockText<N>, ClockTextError> {
        if let Some(ch) = text.chars().find(|c| !(' '..='~').contains(c)) {
            return Err(ClockTextError::BadChar {
                text: text.to_owned(),
                ch,
            });
        }
        if text.len() > N {
            return Err(ClockTextError::TooLong {
                text: text.to_owned(),
                max: N,
            });
        }
        let mut out = [b' '; N];
        out[..text.len()].copy_from_slice(text.as_bytes());
        Ok(ClockText(out))
    }

    /// Reads text as sent on the wire (`None` if it is not printable ASCII of length N).
    fn from_wire(bytes: &[u8]) -> Option<ClockText<N>> {
        let text = std::str::from_utf8(bytes).ok()?;
        (text.len() == N).then(|| ClockText::new(text).ok())?
    }

    /// The characters, padding included.
    pub fn as_str(&self) -> &str {
        // Only printable ASCII is ever stored.
        std::str::from_utf8(&self.0).unwrap_or("")
    }

    pub fn bytes(&self) -> &[u8; N] {
        &self.0
    }
}

impl<const N: usize> fmt::Debug for ClockText<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl<const N: usize> fmt::Display for ClockText<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<const N: usize> Serialize for ClockText<N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de, const N: usize> Deserialize<'de> for ClockText<N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ClockText::new(&s).map_err(serde::de::Error::custom)
    }
}

impl ClockCommand {
    /// DGT3000 text, validated to 8 printable ASCII characters, silent.
    pub fn ascii(text: &str) -> Result<ClockCommand, ClockTextError> {
        Ok(ClockCommand::Ascii {
            text: ClockText::new(text)?,
            beep: 0,
        })
    }

    /// The sub-command id.
    pub fn sub(&self) -> u8 {
        match self {
            ClockCommand::Display(_) => sub::DISPLAY,
            ClockCommand::Icons(_) => sub::ICONS,
            ClockCommand::End => sub::END,
            ClockCommand::ButtonQuery => sub::BUTTON,
            ClockCommand::Version => sub::VERSION,
            ClockCommand::SetAndRun { .. } => sub::SET_AND_RUN,
            ClockCommand::Beep { .. } => sub::BEEP,
            ClockCommand::Ascii { .. } => sub::ASCII,
            ClockCommand::AsciiRevelation { .. } => sub::ASCII_REVELATION,
        }
    }

    /// The data bytes between the sub-command and the 00 end marker.
    fn data(&self) -> Vec<u8> {
        match self {
            ClockCommand::Display(d) => {
                let s = d.segments;
                // Wire order for t0..t5 (t0 leftmost): t2 t1 t0 t5 t4 t3.
                vec![s[2], s[1], s[0], s[5], s[4], s[3], d.marks, d.beep]
            }
            ClockCommand::Icons(i) => {
                vec![i.left_0, i.right_0, i.left_1, i.right_1, i.special, 0, 0, 0]
            }
            ClockCommand::End | ClockCommand::ButtonQuery | ClockCommand::Version => vec![],
            ClockCommand::SetAndRun { left, right, mode } => vec![
                left.hours(),
                left.minutes(),
                left.seconds(),
                right.hours(),
                right.minutes(),
                right.seconds(),
                mode.byte(),
            ],
            ClockCommand::Beep { units } => vec![*units],
            ClockCommand::Ascii { text, beep } => [&text.bytes()[..], &[*beep]].concat(),
            ClockCommand::AsciiRevelation { text, beep } => [&text.bytes()[..], &[*beep]].concat(),
        }
    }

    /// The bytes after the 0x2B wrapper byte: size, 03, sub, data, 00.
    fn body(&self) -> Vec<u8> {
        let data = self.data();
        let mut out = Vec::with_capacity(data.len() + 4);
        out.push((data.len() + 3) as u8);
        out.push(0x03);
        out.push(self.sub());
        out.extend(data.iter().map(|b| b & 0x7F));
        out.push(0x00);
        out
    }

    /// Parses the bytes after the size byte (03, sub, data, 00).
    fn parse(body: &[u8]) -> Result<ClockCommand, CommandProblem> {
        let bad = || CommandProblem::BadClockCommand(body.to_vec());
        let [0x03, subcmd, data @ .., 0x00] = body else {
            return Err(bad());
        };
        let exact = |n: usize| if data.len() == n { Ok(()) } else { Err(bad()) };
        let hms = |b: &[u8]| Hms::new(b[0], b[1], b[2]).map_err(|_| bad());
        Ok(match *subcmd {
            sub::DISPLAY => {
                exact(8)?;
                let d = data;
                ClockCommand::Display(XlDisplay {
                    segments: [d[2], d[1], d[0], d[5], d[4], d[3]],
                    marks: d[6],
                    beep: d[7],
                })
            }
            sub::ICONS => {
                exact(8)?;
                ClockCommand::Icons(ClockIcons {
                    left_0: data[0],
                    right_0: data[1],
                    left_1: data[2],
                    right_1: data[3],
                    special: data[4],
                })
            }
            sub::END => {
                exact(0)?;
                ClockCommand::End
            }
            sub::BUTTON => {
                exact(0)?;
                ClockCommand::ButtonQuery
            }
            sub::VERSION => {
                exact(0)?;
                ClockCommand::Version
            }
            sub::SET_AND_RUN => {
                exact(7)?;
                ClockCommand::SetAndRun {
                    left: hms(&data[0..3])?,
                    right: hms(&data[3..6])?,
                    mode: SetAndRunMode::from_byte(data[6]).ok_or_else(bad)?,
                }
            }
            sub::BEEP => {
                exact(1)?;
                ClockCommand::Beep { units: data[0] }
            }
            sub::ASCII => {
                exact(9)?;
                ClockCommand::Ascii {
                    text: ClockText::from_wire(&data[..8]).ok_or_else(bad)?,
                    beep: data[8],
                }
            }
            sub::ASCII_REVELATION => {
                exact(12)?;
                ClockCommand::AsciiRevelation {
                    text: ClockText::from_wire(&data[..11]).ok_or_else(bad)?,
                    beep: data[11],
                }
            }
            _ => return Err(bad()),
        })
    }
}

const SINGLE_BYTE: [(u8, HostCommand); 20] = [
    (0x40, HostCommand::Reset),
    (0x41, HostCommand::SendClock),
    (0x42, HostCommand::SendBoard),
    (0x43, HostCommand::SendUpdate),
    (0x44, HostCommand::SendUpdateBoard),
    (0x45, HostCommand::ReturnSerialNumber),
    (0x46, HostCommand::ReturnBusAddress),
    (0x47, HostCommand::SendTrademark),
    (0x49, HostCommand::SendEeMoves),
    (0x4A, HostCommand::ToBusMode),
    (0x4B, HostCommand::SendUpdateNice),
    (0x4C, HostCommand::SendBatteryStatus),
    (0x4D, HostCommand::SendVersion),
    (0x4E, HostCommand::StartBootloader),
    (0x50, HostCommand::SendBoard50Black),
    (0x51, HostCommand::Scan50Black),
    (0x52, HostCommand::SendBoard50White),
    (0x53, HostCommand::Scan50White),
    (0x54, HostCommand::Scan100),
    (0x55, HostCommand::ReturnLongSerialNumber),
];

const CLOCK_WRAPPER: u8 = 0x2B;
const LED_WRAPPER: u8 = 0x60;

impl HostCommand {
    /// The bytes to send.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            HostCommand::Clock(c) => {
                let mut out = vec![CLOCK_WRAPPER];
                out.extend(c.body());
                out
            }
            HostCommand::Leds(l) => {
                let (mode, a, b) = match *l {
                    LedCommand::On { from, to } => (0x01, from.index(), to.index()),
                    LedCommand::AllOff => (0x00, 0x40, 0x00),
                    LedCommand::Off { from, to } => (0x00, from.index(), to.index()),
                    LedCommand::AutoOff { on } => (0x02, 0x01, u8::from(on)),
                    LedCommand::AutoReverse { on } => (0x02, 0x02, u8::from(on)),
                };
                vec![LED_WRAPPER, 0x04, mode, a, b, 0x00]
            }
            single => {
                let byte = SINGLE_BYTE
                    .iter()
                    .find(|(_, c)| c == single)
                    .map_or(0x40, |(b, _)| *b);
                vec![byte]
            }
        }
    }

    fn parse_leds(body: &[u8]) -> Result<LedCommand, CommandProblem> {
        let bad = || CommandProblem::BadLedCommand(body.to_vec());
        let field = |b: u8| FieldIndex::new(b).ok_or_else(bad);
        let [mode, a, b, 0x00] = *body else {
            return Err(bad());
        };
        Ok(match (mode, a, b) {
            (0x01, a, b) => LedCommand::On {
                from: field(a)?,
                to: field(b)?,
            },
            (0x00, 0x40, 0x00) => LedCommand::AllOff,
            (0x00, a, b) => LedCommand::Off {
                from: field(a)?,
                to: field(b)?,
            },
            (0x02, 0x01, on @ (0 | 1)) => LedCommand::AutoOff { on: on == 1 },
            (0x02, 0x02, on @ (0 | 1)) => LedCommand::AutoReverse { on: on == 1 },
            _ => return Err(bad()),
        })
    }
}

impl fmt::Display for HostCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostCommand::Clock(c) => write!(f, "clock {c}"),
            HostCommand::Leds(l) => write!(f, "leds {l:?}"),
            other => write!(f, "{other:?}"),
        }
    }
}

impl fmt::Display for ClockCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockCommand::Display(d) => write!(f, "display {:?}", d.shown()),
            ClockCommand::Ascii { text, beep } => write!(f, "ascii {text:?} beep {beep}"),
            ClockCommand::AsciiRevelation { text, beep } => {
                write!(f, "ascii (Revelation) {text:?} beep {beep}")
            }
            ClockCommand::SetAndRun { left, right, mode } => {
                write!(f, "set-and-run left {left} right {right}")?;
                match mode.runs {
                    Some(s) => write!(f, ", {s} runs")?,
                    None => write!(f, ", none runs")?,
                }
                if mode.paused {
                    f.write_str(", paused")?;
                }
                if mode.switch_on_lever {
                    f.write_str(", switch at lever")?;
                }
                Ok(())
            }
            ClockCommand::Beep { units } => write!(f, "beep {} ms", u32::from(*units) * 64),
            other => write!(f, "{other:?}"),
        }
    }
}

/// A host byte stream problem, with the stream offset where the command began.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at host byte {offset}: {problem}")]
pub struct CommandError {
    pub offset: u64,
    pub problem: CommandProblem,
}

/// What is wrong with host bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandProblem {
    #[error("{0:#04x} is not a host command")]
    UnknownByte(u8),
    #[error("clock command bytes {0:02x?} are not a valid clock message")]
    BadClockCommand(Vec<u8>),
    #[error("LED command bytes {0:02x?} are not valid")]
    BadLedCommand(Vec<u8>),
    #[error("command {wrapper:#04x} incomplete at the end of the stream")]
    Unfinished { wrapper: u8 },
}

/// One output of the command decoder.
pub type DecodedCommand = Result<HostCommand, CommandError>;

/// Incremental decoder for the host-to-board byte stream. Memory is bounded: a wrapped
/// command holds at most 127 bytes.
#[derive(Debug, Clone, Default)]
pub struct CommandDecoder {
    offset: u64,
    /// A wrapped command in progress: wrapper byte, start offset, size (once read).
    pending: Option<(u8, u64, Option<usize>)>,
    buf: Vec<u8>,
}

impl CommandDecoder {
    pub fn new() -> CommandDecoder {
        CommandDecoder::default()
    }

    /// Decodes a chunk of host bytes.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<DecodedCommand> {
        let mut out = Vec::new();
        for &b in bytes {
            if let Some(d) = self.byte(b) {
                out.push(d);
            }
            self.offset += 1;
        }
        out
    }

    /// Ends the stream, reporting an unfinished wrapped command.
    pub fn finish(&mut self) -> Option<DecodedCommand> {
        let (wrapper, offset, _) = self.pending.take()?;
        self.buf.clear();
        Some(Err(CommandError {
            offset,
            problem: CommandProblem::Unfinished { wrapper },
        }))
    }

    fn byte(&mut self, b: u8) -> Option<DecodedCommand> {
        let at = self.offset;
        match self.pending.take() {
            None => match b {
                CLOCK_WRAPPER | LED_WRAPPER => {
                    self.pending = Some((b, at, None));
                    self.buf.clear();
                    None
                }
                _ => Some(
                    SINGLE_BYTE
                        .iter()
                        .find(|(byte, _)| *byte == b)
                        .map(|(_, c)| c.clone())
                        .ok_or(CommandError {
                            offset: at,
                            problem: CommandProblem::UnknownByte(b),
                        }),
                ),
            },
            Some((wrapper, start, None)) => {
                if b == 0 || b >= 0x80 {
                    let problem = if wrapper == CLOCK_WRAPPER {
                        CommandProblem::BadClockCommand(vec![b])
                    } else {
                        CommandProblem::BadLedCommand(vec![b])
                    };
                    return Some(Err(CommandError {
                        offset: start,
                        problem,
                    }));
                }
                self.pending = Some((wrapper, start, Some(usize::from(b))));
                None
            }
            Some((wrapper, start, Some(size))) => {
                self.buf.push(b);
                if b & 0x80 != 0 {
                    // Clock and LED data are 7-bit; this is no such command.
                    let bytes = std::mem::take(&mut self.buf);
                    let problem = if wrapper == CLOCK_WRAPPER {
                        CommandProblem::BadClockCommand(bytes)
                    } else {
                        CommandProblem::BadLedCommand(bytes)
                    };
                    return Some(Err(CommandError {
                        offset: start,
                        problem,
                    }));
                }
                if self.buf.len() < size {
                    self.pending = Some((wrapper, start, Some(size)));
                    return None;
                }
                let body = std::mem::take(&mut self.buf);
                let parsed = if wrapper == CLOCK_WRAPPER {
                    ClockCommand::parse(&body).map(HostCommand::Clock)
                } else {
                    HostCommand::parse_leds(&body).map(HostCommand::Leds)
                };
                Some(parsed.map_err(|problem| CommandError {
                    offset: start,
                    problem,
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_one(bytes: &[u8]) -> HostCommand {
        let mut d = CommandDecoder::new();
        let mut out = d.push(bytes);
        assert_eq!(out.len(), 1, "{out:?}");
        out.remove(0).unwrap()
    }

    #[test]
    fn single_byte_commands_match_the_table() {
        for (byte, cmd) in SINGLE_BYTE.iter() {
            assert_eq!(cmd.encode(), vec![*byte]);
            assert_eq!(&decode_one(&[*byte]), cmd);
        }
        assert_eq!(HostCommand::SendUpdateNice.encode(), [0x4B]);
        assert_eq!(HostCommand::ReturnLongSerialNumber.encode(), [0x55]);
        let mut d = CommandDecoder::new();
        assert!(matches!(
            d.push(&[0x48])[0],
            Err(CommandError {
                offset: 0,
                problem: CommandProblem::UnknownByte(0x48)
            })
        ));
    }

    #[test]
    fn clock_commands_match_the_fact_sheet() {
        let cases: Vec<(ClockCommand, Vec<u8>)> = vec![
            (ClockCommand::End, vec![0x2B, 0x03, 0x03, 0x03, 0x00]),
            (
                ClockCommand::ButtonQuery,
                vec![0x2B, 0x03, 0x03, 0x08, 0x00],
            ),
            (ClockCommand::Version, vec![0x2B, 0x03, 0x03, 0x09, 0x00]),
            (
                ClockCommand::Beep { units: 1 },
                vec![0x2B, 0x04, 0x03, 0x0B, 0x01, 0x00],
            ),
            (
                ClockCommand::SetAndRun {
                    left: Hms::new(0, 5, 0).unwrap(),
                    right: Hms::new(1, 30, 15).unwrap(),
                    mode: SetAndRunMode {
                        runs: Some(ClockSide::Right),
                        paused: false,
                        switch_on_lever: false,
                    },
                },
                vec![0x2B, 0x0A, 0x03, 0x0A, 0, 5, 0, 1, 30, 15, 0x02, 0x00],
            ),
            (
                ClockCommand::ascii("HELLO").unwrap(),
                vec![
                    0x2B, 0x0C, 0x03, 0x0C, b'H', b'E', b'L', b'L', b'O', b' ', b' ', b' ', 0, 0x00,
                ],
            ),
            (
                ClockCommand::AsciiRevelation {
                    text: ClockText::new("ABCDEFGHIJK").unwrap(),
                    beep: 3,
                },
                [0x2B, 0x0F, 0x03, 0x0D]
                    .into_iter()
                    .chain(*b"ABCDEFGHIJK")
                    .chain([3, 0])
                    .collect(),
            ),
            (
                ClockCommand::Icons(ClockIcons {
                    left_0: 1,
                    right_0: 2,
                    left_1: 3,
                    right_1: 4,
                    special: 5,
                }),
                vec![0x2B, 0x0B, 0x03, 0x02, 1, 2, 3, 4, 5, 0, 0, 0, 0],
            ),
            (
                ClockCommand::Display(XlDisplay::text("123456", true).unwrap()),
                // Bytes 5..10 are t2 t1 t0 t5 t4 t3.
                vec![
                    0x2B, 0x0B, 0x03, 0x01, 0x4F, 0x5B, 0x06, 0x7D, 0x6D, 0x66, 0, 3, 0,
                ],
            ),
        ];
        for (cmd, bytes) in cases {
            let host = HostCommand::Clock(cmd.clone());
            assert_eq!(host.encode(), bytes, "{cmd}");
            assert_eq!(decode_one(&bytes), host);
        }
        assert!(ClockCommand::ascii("NINECHARS").is_err());
        assert!(ClockCommand::ascii("é").is_err());
        assert_eq!(XlDisplay::text("12 -", false).unwrap().shown(), "12 -  ");
    }

    #[test]
    fn led_commands() {
        let f = |i| FieldIndex::new(i).unwrap();
        for (cmd, bytes) in [
            (
                LedCommand::On {
                    from: f(12),
                    to: f(28),
                },
                vec![0x60, 0x04, 0x01, 12, 28, 0],
            ),
            (LedCommand::AllOff, vec![0x60, 0x04, 0x00, 0x40, 0x00, 0]),
            (
                LedCommand::AutoReverse { on: false },
                vec![0x60, 0x04, 0x02, 0x02, 0x00, 0],
            ),
        ] {
            assert_eq!(HostCommand::Leds(cmd).encode(), bytes);
            assert_eq!(decode_one(&bytes), HostCommand::Leds(cmd));
        }
    }

    #[test]
    fn bad_and_split_commands() {
        let mut d = CommandDecoder::new();
        // Split across pushes.
        assert!(d.push(&[0x2B, 0x03]).is_empty());
        assert_eq!(
            d.push(&[0x03, 0x09, 0x00, 0x42]),
            vec![
                Ok(HostCommand::Clock(ClockCommand::Version)),
                Ok(HostCommand::SendBoard)
            ]
        );
        // Wrong end marker.
        let out = d.push(&[0x2B, 0x03, 0x03, 0x09, 0x01]);
        assert!(matches!(
            out[0],
            Err(CommandError {
                offset: 6,
                problem: CommandProblem::BadClockCommand(_)
            })
        ));
        // Clock data is 7-bit: a byte with bit 7 ends the command as an error.
        let out = d.push(&[0x2B, 0x04, 0x03, 0x0B, 0x81, 0x00, 0x42]);
        assert!(
            matches!(
                &out[..],
                [
                    Err(CommandError {
                        problem: CommandProblem::BadClockCommand(_),
                        ..
                    }),
                    Err(CommandError {
                        problem: CommandProblem::UnknownByte(0x00),
                        ..
                    }),
                    Ok(HostCommand::SendBoard)
                ]
            ),
            "{out:?}"
        );
        assert!(d.push(&[0x2B, 0x05]).is_empty());
        assert!(matches!(
            d.finish(),
            Some(Err(CommandError {
                problem: CommandProblem::Unfinished { wrapper: 0x2B },
                ..
            }))
        ));
    }
}
