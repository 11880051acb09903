//! `.dgtcap` capture files (formats.md §1): a header of `# key: value` lines, then one
//! record a line, `<ms> <dir> <hex bytes>`, with `<` for board-to-host bytes and `>` for
//! host-to-board bytes. The reader streams records and names the line of any error; the
//! writer formats the same lines.

use std::fmt;
use std::io::{self, BufRead, Write};

use serde::{Deserialize, Serialize};

use crate::clock::ClockSide;

/// The longest line the reader accepts (a full EE_MOVES frame in hex is about 24 kB).
pub const MAX_LINE_LEN: usize = 1 << 20;

/// Which way the bytes went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// `<`: from the board to the host.
    ToHost,
    /// `>`: from the host to the board.
    ToBoard,
}

impl Direction {
    pub fn symbol(self) -> char {
        match self {
            Direction::ToHost => '<',
            Direction::ToBoard => '>',
        }
    }
}

/// One read or write on the line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureRecord {
    pub t_ms: u64,
    pub direction: Direction,
    pub bytes: Vec<u8>,
}

impl CaptureRecord {
    /// A record to read into ([`CaptureReader::read_into`]): no bytes yet.
    pub fn empty() -> CaptureRecord {
        CaptureRecord {
            t_ms: 0,
            direction: Direction::ToHost,
            bytes: Vec::new(),
        }
    }
}

/// A game's time control: `BASE+INC` in seconds or periods in the PGN form (the
/// `time-control:` header; see the `time-control` crate).
pub use time_control::{TimeControl, TimeControlError};

/// The header lines of a capture (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureHeader {
    /// `board:`; readers default it to the file stem.
    pub board: Option<String>,
    /// `start-fen:` a full FEN (not checked here; X-FEN or Shredder-FEN in a Chess960
    /// game).
    pub start_fen: Option<String>,
    /// `variant:` `standard` (the default, not written) or `chess960`. A Chess960 capture
    /// without `start-fen` starts from the first board dump's placement (formats.md §1).
    #[serde(default)]
    pub variant: chess_rules::Variant,
    /// `time-control:`.
    pub time_control: Option<TimeControl>,
    /// `white-clock:` which side of the clock is White's.
    pub white_clock: Option<ClockSide>,
    /// Any other `key: value` header line, in file order.
    pub extra: Vec<(String, String)>,
}

impl CaptureHeader {
    /// The header as lines, starting with `# dgtcap 1`.
    pub fn to_lines(&self) -> String {
        let mut s = String::from("# dgtcap 1\n");
        let mut line = |k: &str, v: &dyn fmt::Display| s.push_str(&format!("# {k}: {v}\n"));
        if let Some(b) = &self.board {
            line("board", b);
        }
        if self.variant == chess_rules::Variant::Chess960 {
            line("variant", &"chess960");
        }
        if let Some(f) = &self.start_fen {
            line("start-fen", f);
        }
        if let Some(tc) = &self.time_control {
            line("time-control", tc);
        }
        if let Some(w) = &self.white_clock {
            line("white-clock", w);
        }
        for (k, v) in &self.extra {
            line(k, v);
        }
        s
    }
}

/// A capture file problem, with its 1-based line number.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {kind}")]
pub struct CaptureError {
    pub line: usize,
    pub kind: CaptureErrorKind,
}

/// What is wrong with a capture line.
#[derive(Debug, thiserror::Error)]
pub enum CaptureErrorKind {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("line is longer than {MAX_LINE_LEN} bytes")]
    TooLong,
    #[error("line is not UTF-8 text")]
    NotText,
    #[error("expected a time in ms, found {0:?}")]
    BadTime(String),
    #[error("expected a direction '<' or '>', found {0:?}")]
    BadDirection(String),
    #[error("bad hex bytes {0:?} (two hex digits a byte)")]
    BadHex(String),
    #[error("a record needs at least one byte")]
    NoBytes,
    #[error("time {t_ms} is before the previous record's {previous}")]
    TimeWentBack { t_ms: u64, previous: u64 },
    #[error("this is a dgtcap version {0} capture; this program reads version 1")]
    UnknownVersion(String),
    #[error("header {key:?} has a bad value {value:?} ({expected})")]
    BadHeader {
        key: String,
        value: String,
        expected: &'static str,
    },
}

/// Streams the records of a capture. The header is read on construction.
pub struct CaptureReader<R> {
    input: R,
    header: CaptureHeader,
    line_no: usize,
    last_t: u64,
    /// The first record, read while looking for the end of the header.
    pending: Option<Result<CaptureRecord, CaptureError>>,
    done: bool,
    buf: Vec<u8>,
}

impl<R: BufRead> CaptureReader<R> {
    /// Reads the header lines (up to the first record).
    pub fn new(input: R) -> Result<CaptureReader<R>, CaptureError> {
        let mut r = CaptureReader {
            input,
            header: CaptureHeader::default(),
            line_no: 0,
            last_t: 0,
            pending: None,
            done: false,
            buf: Vec::new(),
        };
        loop {
            r.line_no += 1;
            let line = r.line_no;
            let Some(text) = read_line(&mut r.input, &mut r.buf, line)? else {
                r.done = true;
                break;
            };
            let trimmed = text.trim();
            if trimmed.is_empty() {
                continue;
            }
            if let Some(comment) = trimmed.strip_prefix('#') {
                header_line(&mut r.header, line, comment.trim())?;
                continue;
            }
            r.pending = Some(parse_record(trimmed, line, &mut r.last_t));
            break;
        }
        Ok(r)
    }

    pub fn header(&self) -> &CaptureHeader {
        &self.header
    }
}

impl<R: BufRead> CaptureReader<R> {
    /// The next record, into `record`, whose byte buffer is reused (no allocation per
    /// record once it has grown): `None` at the end of the input; after an error the
    /// reader stops. [`Iterator::next`] is this with a fresh record each time.
    pub fn read_into(&mut self, record: &mut CaptureRecord) -> Option<Result<(), CaptureError>> {
        if let Some(p) = self.pending.take() {
            self.done |= p.is_err();
            return Some(p.map(|r| *record = r));
        }
        while !self.done {
            self.line_no += 1;
            let line = self.line_no;
            let read = next_record(
                &mut self.input,
                &mut self.buf,
                line,
                &mut self.last_t,
                record,
            );
            match read {
                Line::Record => return Some(Ok(())),
                Line::Skipped => {}
                Line::End => self.done = true,
                Line::Error(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

impl<R: BufRead> Iterator for CaptureReader<R> {
    type Item = Result<CaptureRecord, CaptureError>;

    /// The next record; after an error the reader stops.
    fn next(&mut self) -> Option<Self::Item> {
        let mut record = CaptureRecord::empty();
        Some(self.read_into(&mut record)?.map(|()| record))
    }
}

/// One header line (`# key: value`, without the `#`).
fn header_line(header: &mut CaptureHeader, line: usize, text: &str) -> Result<(), CaptureError> {
    if let Some(version) = text.strip_prefix("dgtcap ") {
        let version = version.trim();
        if version != "1" {
            return Err(CaptureError {
                line,
                kind: CaptureErrorKind::UnknownVersion(version.chars().take(20).collect()),
            });
        }
        return Ok(());
    }
    let Some((key, value)) = text.split_once(':') else {
        return Ok(()); // A plain comment.
    };
    let (key, value) = (key.trim(), value.trim());
    if key.is_empty() || key.contains(char::is_whitespace) {
        return Ok(()); // Prose, not a header.
    }
    let bad = |expected| CaptureError {
        line,
        kind: CaptureErrorKind::BadHeader {
            key: key.to_owned(),
            value: value.to_owned(),
            expected,
        },
    };
    match key {
        "board" => header.board = Some(value.to_owned()),
        "start-fen" => header.start_fen = Some(value.to_owned()),
        "variant" => {
            header.variant = match value.to_ascii_lowercase().as_str() {
                "standard" => chess_rules::Variant::Standard,
                "chess960" => chess_rules::Variant::Chess960,
                _ => return Err(bad("standard or chess960")),
            }
        }
        "time-control" => {
            let tc: TimeControl = value.parse().map_err(|_| {
                bad("BASE+INC in seconds, or periods MOVES/SECONDS[+INC] joined by ':'")
            })?;
            // The bounds of the daemon's config (event.time_control).
            tc.check_bounds().map_err(|_| {
                bad("periods of 1 second to 6 hours (21600) and increments of 0 to 600 seconds")
            })?;
            header.time_control = Some(tc);
        }
        "white-clock" => {
            header.white_clock = Some(match value {
                "left" => ClockSide::Left,
                "right" => ClockSide::Right,
                _ => return Err(bad("left or right")),
            })
        }
        _ => header.extra.push((key.to_owned(), value.to_owned())),
    }
    Ok(())
}

/// What one line of a capture held.
enum Line {
    /// A record, read into the caller's record.
    Record,
    /// A blank or comment line.
    Skipped,
    /// Nothing: the end of the input.
    End,
    Error(CaptureError),
}

impl From<Option<Result<(), CaptureError>>> for Line {
    /// A line's text as [`record_line`] reads it.
    fn from(read: Option<Result<(), CaptureError>>) -> Line {
        match read {
            Some(Ok(())) => Line::Record,
            Some(Err(e)) => Line::Error(e),
            None => Line::Skipped,
        }
    }
}

/// Line `line`, read from `input`, as a record into `record`. A line whole in the
/// reader's buffer is taken in place (no copy): in one pass over its bytes when it is in
/// the writer's plain form ([`plain_record`]), else as text ([`record_line`]). Other
/// lines are read into `buf` ([`read_line`]).
fn next_record<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    line: usize,
    last_t: &mut u64,
    record: &mut CaptureRecord,
) -> Line {
    // The plain path reads the same `fill_buf` as the in-place path: the reader sees the
    // calls it saw before (one that fails once could tell the difference).
    if let Ok(avail) = input.fill_buf() {
        if let Some((used, t_ms, direction)) = plain_record(avail, *last_t, &mut record.bytes) {
            input.consume(used);
            *last_t = t_ms;
            record.t_ms = t_ms;
            record.direction = direction;
            return Line::Record;
        }
        if let Some(end) = memchr::memchr(b'\n', avail) {
            // The same limit as `read_line`'s: the line with its end.
            if end < MAX_LINE_LEN {
                let read = match line_text(&avail[..=end], line) {
                    Ok(text) => record_line(text, line, last_t, record),
                    Err(e) => return Line::Error(e),
                };
                input.consume(end + 1);
                return read.into();
            }
        }
    }
    // A line across buffer refills, a last line without its end, the end of the input
    // or a read error (`read_until` retries an interrupted read and reports the rest).
    match read_line(input, buf, line) {
        Ok(Some(text)) => record_line(text, line, last_t, record).into(),
        Ok(None) => Line::End,
        Err(e) => Line::Error(e),
    }
}

/// A line's text as a record: `None` for a blank or comment line.
fn record_line(
    text: &str,
    line: usize,
    last_t: &mut u64,
    record: &mut CaptureRecord,
) -> Option<Result<(), CaptureError>> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return None;
    }
    Some(parse_record_into(trimmed, line, last_t, record))
}

/// The record at the start of `avail` when its line is in the plain form the writer
/// writes, `<digits> <'<' or '>'> <hex pairs>` with single spaces between the fields and
/// the pairs, and `\n` or `\r\n` at the end:
/// `(bytes up to and with the line end, time, direction)`, the hex bytes in `bytes`.
/// `None` for anything else (the line's end not in `avail`, a longer time than 19 digits,
/// other blanks, a time before `last_t`, any error; `bytes` then holds nothing of use):
/// the general path decides those. Every byte of such a line is ASCII and the general
/// path reads the same record from it, so its UTF-8, trim and field splits are not needed.
fn plain_record(avail: &[u8], last_t: u64, bytes: &mut Vec<u8>) -> Option<(usize, u64, Direction)> {
    let mut i = 0;
    let mut t_ms: u64 = 0;
    loop {
        let digit = avail.get(i)?.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        // Wrapping: a longer time is refused below, before its value is used.
        t_ms = t_ms.wrapping_mul(10).wrapping_add(u64::from(digit));
        i += 1;
        if i > MAX_PLAIN_DIGITS {
            return None;
        }
    }
    if i == 0 {
        return None;
    }
    let direction = match avail.get(i..i + 3)? {
        b" < " => Direction::ToHost,
        b" > " => Direction::ToBoard,
        _ => return None,
    };
    let mut rest = avail.get(i + 3..)?;
    bytes.clear();
    // Pairs split by single spaces, each with the byte after it (pairs written together
    // are left to the general path).
    let end = loop {
        let (&[high, low, after], tail) = rest.split_first_chunk::<3>()?;
        let (high, low) = (HEX_VALUE[usize::from(high)], HEX_VALUE[usize::from(low)]);
        if (high | low) > 0x0f {
            return None;
        }
        bytes.push(high << 4 | low);
        rest = tail;
        if after != b' ' {
            break after;
        }
    };
    match end {
        b'\n' => {}
        b'\r' => rest = rest.strip_prefix(b"\n")?,
        _ => return None,
    }
    let used = avail.len() - rest.len();
    // `used - 1` is the line end's index: the in-place limit of `next_record`.
    if used > MAX_LINE_LEN || t_ms < last_t {
        return None;
    }
    Some((used, t_ms, direction))
}

/// The most digits of a time the plain path reads: any 19 digits fit in a `u64`.
const MAX_PLAIN_DIGITS: usize = 19;

/// Reads the next line (line number `line`) into `buf`; its text without the line end
/// and a first line's byte order mark, or `None` at the end of the input. The buffer is
/// reused from line to line: no allocation per line.
fn read_line<'b, R: BufRead>(
    input: &mut R,
    buf: &'b mut Vec<u8>,
    line: usize,
) -> Result<Option<&'b str>, CaptureError> {
    buf.clear();
    let n = io::Read::take(&mut *input, MAX_LINE_LEN as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| CaptureError {
            line,
            kind: CaptureErrorKind::Io(e),
        })?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_LINE_LEN {
        return Err(CaptureError {
            line,
            kind: CaptureErrorKind::TooLong,
        });
    }
    line_text(buf, line).map(Some)
}

/// Line `line`'s bytes as text, without a first line's byte order mark (some Windows
/// editors write one; it is not part of the text).
fn line_text(bytes: &[u8], line: usize) -> Result<&str, CaptureError> {
    let text = if line == 1 {
        bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes)
    } else {
        bytes
    };
    std::str::from_utf8(text).map_err(|_| CaptureError {
        line,
        kind: CaptureErrorKind::NotText,
    })
}

/// One record line (trimmed), line number `line`; `last_t` is the previous record's
/// time (times never go back) and becomes this one's.
fn parse_record(text: &str, line: usize, last_t: &mut u64) -> Result<CaptureRecord, CaptureError> {
    let mut record = CaptureRecord::empty();
    parse_record_into(text, line, last_t, &mut record).map(|()| record)
}

/// [`parse_record`] into `record`, its byte buffer reused. On an error `record` holds
/// nothing of use (the reader stops).
fn parse_record_into(
    text: &str,
    line: usize,
    last_t: &mut u64,
    record: &mut CaptureRecord,
) -> Result<(), CaptureError> {
    let err = |kind| CaptureError { line, kind };
    let (t_text, dir_text, hex) = record_fields(text);
    let t_ms: u64 = t_text
        .parse()
        .map_err(|_| err(CaptureErrorKind::BadTime(excerpt(t_text))))?;
    let direction = match dir_text {
        "<" => Direction::ToHost,
        ">" => Direction::ToBoard,
        other => return Err(err(CaptureErrorKind::BadDirection(excerpt(other)))),
    };
    if !parse_hex(hex, &mut record.bytes) {
        return Err(err(CaptureErrorKind::BadHex(excerpt(hex))));
    }
    if record.bytes.is_empty() {
        return Err(err(CaptureErrorKind::NoBytes));
    }
    if t_ms < *last_t {
        return Err(err(CaptureErrorKind::TimeWentBack {
            t_ms,
            previous: *last_t,
        }));
    }
    *last_t = t_ms;
    record.t_ms = t_ms;
    record.direction = direction;
    Ok(())
}

/// The start of a bad field, for its error: a line may be a megabyte long.
fn excerpt(text: &str) -> String {
    const SHOWN: usize = 40;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

/// A record line's time, direction and hex text: split at the first two whitespace
/// characters (each one splits: two spaces make an empty field), the rest is the hex.
fn record_fields(text: &str) -> (&str, &str, &str) {
    if !text.is_ascii() {
        let mut parts = text.splitn(3, char::is_whitespace);
        let mut next = || parts.next().unwrap_or("");
        return (next(), next(), next());
    }
    // ASCII: the same split on bytes (the ASCII characters `char::is_whitespace` takes,
    // which include the vertical tab that `u8::is_ascii_whitespace` does not).
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
    let split = |s: &'_ str| -> (usize, usize) {
        match s.as_bytes().iter().position(is_space) {
            Some(i) => (i, i + 1),
            None => (s.len(), s.len()),
        }
    };
    let (end, rest) = split(text);
    let (t_text, after) = (&text[..end], &text[rest..]);
    let (end, rest) = split(after);
    (t_text, &after[..end], &after[rest..])
}

/// Hex bytes, two digits each, separated by single spaces or written together, into
/// `out` (cleared first); `false` if they are not.
fn parse_hex(text: &str, out: &mut Vec<u8>) -> bool {
    out.clear();
    let text = text.as_bytes();
    if text.is_empty() {
        return true;
    }
    out.reserve(text.len() / 2);
    // A pair of digits, then the end, another pair, or one space and another pair: the
    // groups `split(' ')` would give, each of pairs, none empty, in one pass.
    let mut i = 0;
    loop {
        let (Some(&high), Some(&low)) = (text.get(i), text.get(i + 1)) else {
            return false;
        };
        let (high, low) = (HEX_VALUE[usize::from(high)], HEX_VALUE[usize::from(low)]);
        if (high | low) > 0x0f {
            return false;
        }
        out.push(high << 4 | low);
        i += 2;
        match text.get(i) {
            None => return true,
            Some(b' ') => i += 1,
            Some(_) => {}
        }
    }
}

/// The value of each byte as a hex digit (either case); [`NOT_HEX`] for the others.
const HEX_VALUE: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};
const NOT_HEX: u8 = 0xff;

/// One record as a line (with its newline): `1520 < 8e 00 05 34 00`.
pub fn format_record(record: &CaptureRecord) -> String {
    let mut s = format!("{} {}", record.t_ms, record.direction.symbol());
    for b in &record.bytes {
        s.push_str(&format!(" {b:02x}"));
    }
    s.push('\n');
    s
}

/// Writes a capture: the header first, then records.
pub struct CaptureWriter<W: Write> {
    out: W,
    last_t: u64,
}

impl<W: Write> CaptureWriter<W> {
    /// Writes the header lines.
    pub fn new(mut out: W, header: &CaptureHeader) -> io::Result<CaptureWriter<W>> {
        out.write_all(header.to_lines().as_bytes())?;
        Ok(CaptureWriter { out, last_t: 0 })
    }

    /// Writes one record. A time earlier than the previous one is written as the previous
    /// one, so that the file stays valid.
    pub fn write(&mut self, record: &CaptureRecord) -> io::Result<()> {
        if record.bytes.is_empty() {
            return Ok(());
        }
        let t_ms = record.t_ms.max(self.last_t);
        self.last_t = t_ms;
        let line = format_record(&CaptureRecord {
            t_ms,
            direction: record.direction,
            bytes: record.bytes.clone(),
        });
        self.out.write_all(line.as_bytes())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (CaptureHeader, Vec<Result<CaptureRecord, CaptureError>>) {
        match CaptureReader::new(text.as_bytes()) {
            Ok(r) => {
                let h = r.header().clone();
                (h, r.collect())
            }
            Err(e) => panic!("header error {e}"),
        }
    }

    /// Hex bytes: pairs, in groups split by single spaces; nothing else.
    #[test]
    fn hex_bytes_are_pairs_in_groups_split_by_single_spaces() {
        let cases: [(&str, Option<&[u8]>); 12] = [
            ("8e 00 05 34 00", Some(&[0x8e, 0x00, 0x05, 0x34, 0x00])),
            ("4b4c 4d", Some(&[0x4b, 0x4c, 0x4d])),
            ("4B 4c", Some(&[0x4b, 0x4c])),
            ("", Some(&[])),
            ("4", None),
            ("42 4", None),
            ("42  43", None),
            ("42 ", None),
            (" 42", None),
            ("42\t43", None),
            ("4g", None),
            ("42 \u{a0}43", None),
        ];
        for (text, bytes) in cases {
            // A buffer holding something already: cleared first.
            let mut out = vec![0x99];
            let ok = parse_hex(text, &mut out);
            assert_eq!(ok.then_some(&out[..]), bytes, "{text:?}");
        }
    }

    /// The fields of a record line split as `splitn(3, char::is_whitespace)` splits them,
    /// ASCII or not.
    #[test]
    fn record_fields_split_at_the_first_two_whitespace_characters() {
        fn reference(text: &str) -> (&str, &str, &str) {
            let mut parts = text.splitn(3, char::is_whitespace);
            let mut next = || parts.next().unwrap_or("");
            (next(), next(), next())
        }
        let pieces = [
            "0", "12", "<", ">", "8e 00", " ", "\t", "\u{0b}", "\u{0c}", "\r", "\u{a0}",
            "\u{2003}", "x", "",
        ];
        // Every line of up to four pieces.
        let mut lines = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = lines
                .iter()
                .flat_map(|l| pieces.iter().map(move |p| format!("{l}{p}")))
                .collect();
            lines.extend(longer);
        }
        for line in &lines {
            assert_eq!(record_fields(line), reference(line), "{line:?}");
        }
    }

    /// Whether a line is taken in place from the reader's buffer or read across refills,
    /// the records and errors are the same, up to the longest line allowed.
    #[test]
    fn the_records_are_the_same_whatever_the_reader_buffer() {
        let long_hex = "42".repeat((MAX_LINE_LEN - 6) / 2);
        let mut texts: Vec<Vec<u8>> = [
            &b"\xef\xbb\xbf# dgtcap 1\r\n# board: 7\r\n0 > 42\r\n\r\n5 < 8e 00 05 34 00\r\n# c\n9 < 4b4c"[..],
            b"0 > 42\n1 < 43\n1 < 4\n2 < 44\n",
            b"0 > 42\n\xff\n",
            b"0 > 42\n3 < 44\n2 < 45\n",
        ]
        .iter()
        .map(|t| t.to_vec())
        .collect();
        // `10 < 4242...\n`: exactly the longest line, then one byte longer.
        for extra in ["", "4"] {
            let mut t = b"0 > 42\n".to_vec();
            t.extend_from_slice(format!("10 < {long_hex}{extra}\n20 < 43\n").as_bytes());
            texts.push(t);
        }
        // The same in the writer's spaced form, which the plain path reads: `1000 < 42 42
        // ... 42\n` is exactly the longest line; with `\r\n` it is one byte longer.
        let pairs = (MAX_LINE_LEN - 6) / 3;
        let spaced = vec!["42"; pairs].join(" ");
        assert_eq!(format!("1000 < {spaced}\n").len(), MAX_LINE_LEN);
        for end in ["\n", "\r\n"] {
            let mut t = b"0 > 42\n".to_vec();
            t.extend_from_slice(format!("1000 < {spaced}{end}2000 < 43\n").as_bytes());
            texts.push(t);
        }
        let records = |bytes: &[u8], capacity: usize| -> Vec<String> {
            let input = std::io::BufReader::with_capacity(capacity, bytes);
            match CaptureReader::new(input) {
                Ok(r) => r
                    .map(|r| match r {
                        Ok(r) => format!("{} {:?} {}", r.t_ms, r.direction, r.bytes.len()),
                        Err(e) => e.to_string(),
                    })
                    .collect(),
                Err(e) => vec![e.to_string()],
            }
        };
        for text in &texts {
            let whole = records(text, 2 * MAX_LINE_LEN + 64);
            assert!(!whole.is_empty());
            for capacity in [1, 3, 8, 64] {
                assert_eq!(records(text, capacity), whole, "capacity {capacity}");
            }
        }
        let longest = records(&texts[4], 2 * MAX_LINE_LEN + 64);
        assert_eq!(longest[1], format!("10 ToHost {}", (MAX_LINE_LEN - 6) / 2));
        let too_long = records(&texts[5], 2 * MAX_LINE_LEN + 64);
        assert_eq!(
            too_long[1],
            format!("line 2: line is longer than {MAX_LINE_LEN} bytes")
        );
        assert_eq!(too_long.len(), 2, "the reader stops at the error");
        let longest = records(&texts[6], 2 * MAX_LINE_LEN + 64);
        assert_eq!(longest[1], format!("1000 ToHost {pairs}"));
        assert_eq!(longest.len(), 3);
        let too_long = records(&texts[7], 2 * MAX_LINE_LEN + 64);
        assert_eq!(
            too_long[1..],
            [format!("line 2: line is longer than {MAX_LINE_LEN} bytes")]
        );
        // A bad field is named by its start, not copied whole into the error.
        let odd = format!("0 > 42\n10 < {}4\n", &long_hex[..1000]);
        let bad = records(odd.as_bytes(), 64);
        assert_eq!(
            bad[1],
            format!(
                "line 2: bad hex bytes \"{}...\" (two hex digits a byte)",
                &long_hex[..40]
            )
        );
    }

    /// The records and errors of `text` as the general path alone reads them, line by
    /// line through `read_line` and `record_line`, after the same header.
    fn general_records(text: &[u8], capacity: usize) -> Vec<String> {
        let input = std::io::BufReader::with_capacity(capacity, text);
        let mut r = match CaptureReader::new(input) {
            Ok(r) => r,
            Err(e) => return vec![e.to_string()],
        };
        let mut out = Vec::new();
        let mut record = CaptureRecord::empty();
        let mut result = r.pending.take().map(|p| p.map(|p| record = p));
        loop {
            match result {
                Some(Ok(())) => out.push(shown(&record)),
                Some(Err(e)) => {
                    out.push(e.to_string());
                    return out;
                }
                None if r.done => return out,
                None => {}
            }
            r.line_no += 1;
            let line = r.line_no;
            result = match read_line(&mut r.input, &mut r.buf, line) {
                Err(e) => Some(Err(e)),
                Ok(None) => return out,
                Ok(Some(text)) => record_line(text, line, &mut r.last_t, &mut record),
            };
        }
    }

    /// The records and errors of `text` as `read_into` reads them, into one record.
    fn read_into_records(text: &[u8], capacity: usize) -> Vec<String> {
        let input = std::io::BufReader::with_capacity(capacity, text);
        let mut r = match CaptureReader::new(input) {
            Ok(r) => r,
            Err(e) => return vec![e.to_string()],
        };
        let mut record = CaptureRecord::empty();
        let mut out = Vec::new();
        while let Some(result) = r.read_into(&mut record) {
            out.push(match result {
                Ok(()) => shown(&record),
                Err(e) => e.to_string(),
            });
        }
        out
    }

    fn shown(r: &CaptureRecord) -> String {
        format!("{} {:?} {:02x?}", r.t_ms, r.direction, r.bytes)
    }

    /// One of `options`, each with its weight.
    fn one_of(
        options: &[(u32, &'static [u8])],
    ) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let options: Vec<(u32, &[u8])> = options.to_vec();
        let total: u32 = options.iter().map(|(w, _)| w).sum();
        (0..total).prop_map(move |mut pick| {
            for (weight, text) in &options {
                if pick < *weight {
                    return text.to_vec();
                }
                pick -= weight;
            }
            Vec::new()
        })
    }

    /// A record line's time: `After(step)` is the previous record's time plus `step`
    /// (which may be negative: a time that goes back), `Text` any text.
    #[derive(Debug, Clone)]
    enum Time {
        After(i64),
        Text(Vec<u8>),
    }

    /// Record lines (without their line end), as (start, time, rest): mostly
    /// `<time> <dir> <hex>` with each part and blank well formed or not in the ways it can
    /// be, some of free pieces.
    fn record_parts() -> impl proptest::strategy::Strategy<Value = (Vec<u8>, Time, Vec<u8>)> {
        use proptest::prelude::*;
        let time = prop_oneof![
            50 => (0i64..2_000).prop_map(Time::After),
            1 => (-2_000i64..0).prop_map(Time::After),
            10 => one_of(&[
                (1, b"18446744073709551615"),
                (1, b"18446744073709551616"),
                (1, b"99999999999999999999"),
                (1, b"9999999999999999999"),
                (1, b"0000000000000000000012"),
                (1, b"+5"),
                (1, b"-1"),
                (1, b""),
                (1, b"1\xc3\xa9"),
                (1, b"1x"),
            ])
            .prop_map(Time::Text),
        ];
        let blank = || {
            one_of(&[
                (100, b" "),
                (1, b"  "),
                (1, b"\t"),
                (1, b"\x0b"),
                (1, b"\xc2\xa0"),
                (1, b""),
            ])
        };
        let direction = one_of(&[(60, b"<"), (40, b">"), (1, b"="), (1, b""), (1, b"<<")]);
        let pair = prop_oneof![
            80 => any::<u8>().prop_map(|b| format!("{b:02x}").into_bytes()),
            20 => any::<u8>().prop_map(|b| format!("{b:02X}").into_bytes()),
            3 => one_of(&[(1, b"4"), (1, b"4g"), (1, b"g4"), (1, b"424"), (1, b"\xc3\xa9")]),
        ];
        let split = one_of(&[(100, b" "), (4, b""), (1, b"  "), (1, b"\t")]);
        let groups = prop_oneof![
            30 => proptest::collection::vec((split, pair), 1..10),
            1 => Just(Vec::new()),
        ];
        let hex = groups.prop_map(|groups| {
            let mut hex = Vec::new();
            for (i, (split, pair)) in groups.into_iter().enumerate() {
                if i > 0 {
                    hex.extend(split);
                }
                hex.extend(pair);
            }
            hex
        });
        let start = one_of(&[(100, b""), (1, b" "), (1, b"\xef\xbb\xbf"), (1, b"#")]);
        let tail = one_of(&[
            (100, b""),
            (1, b" "),
            (1, b"\t"),
            (1, b"\r"),
            (1, b"\xc2\x85"),
            (1, b"\xff"),
        ]);
        let structured = (start, time, blank(), direction, blank(), hex, tail)
            .prop_map(|(a, time, c, d, e, f, g)| (a, time, [c, d, e, f, g].concat()));
        prop_oneof![
            20 => structured,
            1 => free_pieces().prop_map(|p| (Vec::new(), Time::Text(Vec::new()), p)),
        ]
    }

    /// Joins a record line's parts, its time after `previous` (which becomes its time).
    fn record_line_text(
        (start, time, rest): (Vec<u8>, Time, Vec<u8>),
        previous: &mut u64,
    ) -> Vec<u8> {
        let time = match time {
            Time::After(step) => {
                *previous = previous.saturating_add_signed(step);
                previous.to_string().into_bytes()
            }
            Time::Text(text) => text,
        };
        [start, time, rest].concat()
    }

    /// One record line (without its line end), its time after 50000.
    fn record_text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        record_parts().prop_map(|parts| record_line_text(parts, &mut 50_000))
    }

    /// Free pieces of record lines, in any order.
    fn free_pieces() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let piece = one_of(&[
            (4, b" < "),
            (2, b" > "),
            (4, b"8e 00"),
            (2, b"12"),
            (1, b" "),
            (1, b"\t"),
            (1, b"\r"),
            (1, b"\r\n"),
            (1, b"\n"),
            (1, b"#"),
            (1, b"4"),
            (1, b"g"),
            (1, b"\xc2\xa0"),
            (1, b"\xe2\x80\x83"),
            (1, b"\xff"),
            (1, b"\xe2\x80"),
        ]);
        proptest::collection::vec(piece, 0..10).prop_map(|p| p.concat())
    }

    /// A capture of such lines, each ended by a line end (some by none: the next runs on),
    /// their times mostly in order.
    fn capture_text() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        let end = one_of(&[
            (80, b"\n"),
            (20, b"\r\n"),
            (1, b""),
            (1, b" \n"),
            (1, b"\r\r\n"),
        ]);
        proptest::collection::vec((record_parts(), end), 0..12).prop_map(|lines| {
            let mut previous = 0;
            let mut text = Vec::new();
            for (parts, end) in lines {
                text.extend(record_line_text(parts, &mut previous));
                text.extend(end);
            }
            text
        })
    }

    /// The lines next to the plain form read as the general path reads them (a record
    /// or an error), the plain form's own as records.
    #[test]
    fn lines_next_to_the_plain_form_read_as_the_general_path_reads_them() {
        let lines: [&[u8]; 26] = [
            b"5 < 8e 00 05 34 00\n",
            b"5 > 8E 00\r\n",
            b"9999999999999999999 < 42\n",
            b"18446744073709551615 < 42\n",
            b"18446744073709551616 < 42\n",
            b"99999999999999999999 < 42\n",
            b"00000000000000000000005 < 42\n",
            b"+5 < 42\n",
            b" < 42\n",
            b" 5 < 42\n",
            b"5  < 42\n",
            b"5\t< 42\n",
            b"5 <\t42\n",
            b"5 < 42 \n",
            b"5 < 42\t\n",
            b"5 < 42\r\r\n",
            b"5 < 42\r5 < 43\n",
            b"5 < 4243 44\n",
            b"5 < 42  43\n",
            b"5 < 4\n",
            b"5 < \n",
            b"5 <\n",
            b"5 < 42\xc2\x85\n",
            b"5 = 42\n",
            b"5 < 42\n3 < 42\n",
            b"5 < 42",
        ];
        for line in lines {
            // After a record at 0, so that no time is refused for going back but one.
            let text = [&b"0 > 40\n"[..], line, b"6 < 43\n"].concat();
            for capacity in [4, 8192] {
                assert_eq!(
                    read_into_records(&text, capacity),
                    general_records(&text, capacity),
                    "{:?}",
                    line.escape_ascii()
                );
            }
        }
    }

    proptest::proptest! {
        /// Whatever the text and the reader's buffer, `read_into` (the plain path first)
        /// reads the records and errors the general path alone reads.
        #[test]
        fn the_plain_path_reads_what_the_general_path_reads(
            text in capture_text(),
            capacity in proptest::prop_oneof![1usize..=64, proptest::strategy::Just(8192)],
        ) {
            proptest::prop_assert_eq!(
                read_into_records(&text, capacity),
                general_records(&text, capacity)
            );
        }

        /// A line the plain path takes ends at its line end, and the general path reads
        /// the same record from it.
        #[test]
        fn a_plain_record_is_the_general_record(
            avail in record_text(),
            end in proptest::sample::select(vec![&b"\n"[..], b"\r\n", b"", b"\r"]),
            last_t in proptest::prop_oneof![proptest::strategy::Just(0u64), 0u64..200_000],
        ) {
            let avail = [&avail[..], end, b"0 < 42\n"].concat();
            let mut bytes = vec![0x99];
            let Some((used, t_ms, direction)) = plain_record(&avail, last_t, &mut bytes) else {
                return Ok(());
            };
            proptest::prop_assert_eq!(avail.get(used - 1), Some(&b'\n'));
            let text = std::str::from_utf8(&avail[..used]);
            proptest::prop_assert!(text.is_ok());
            let (mut general, mut t) = (CaptureRecord::empty(), last_t);
            let read = record_line(text.unwrap_or_default(), 7, &mut t, &mut general);
            proptest::prop_assert!(matches!(read, Some(Ok(()))), "{:?}", read);
            proptest::prop_assert_eq!((t_ms, direction, &bytes), (t, general.direction, &general.bytes));
        }

        /// Every record the writer writes with a time of up to 19 digits takes the plain
        /// path (the fast one).
        #[test]
        fn written_records_take_the_plain_path(
            t_ms in proptest::prop_oneof![0u64..100_000, 0u64..=9_999_999_999_999_999_999],
            to_host: bool,
            bytes in proptest::collection::vec(proptest::arbitrary::any::<u8>(), 1..80),
            crlf: bool,
        ) {
            let direction = if to_host { Direction::ToHost } else { Direction::ToBoard };
            let record = CaptureRecord { t_ms, direction, bytes };
            let mut line = format_record(&record);
            if crlf {
                line.insert(line.len() - 1, '\r');
            }
            let mut out = Vec::new();
            let plain = plain_record(format!("{line}9 < 00").as_bytes(), t_ms, &mut out);
            proptest::prop_assert_eq!(plain, Some((line.len(), t_ms, direction)));
            proptest::prop_assert_eq!(out, record.bytes);
        }
    }

    #[test]
    fn versions_time_controls_and_a_byte_order_mark() {
        let header_error = |text: &str| match CaptureReader::new(text.as_bytes()) {
            Ok(_) => panic!("{text:?} was accepted"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            header_error("# dgtcap 2\n0 > 45\n"),
            "line 1: this is a dgtcap version 2 capture; this program reads version 1"
        );
        let e = header_error("# dgtcap 1\n# time-control: 0+0\n0 > 45\n");
        assert!(e.starts_with("line 2: header \"time-control\""), "{e}");
        let (h, records) = read("\u{feff}# dgtcap 1\n# board: 3\n0 > 45\n");
        assert_eq!(h.board.as_deref(), Some("3"));
        assert_eq!(records.len(), 1);
        assert!(records[0].is_ok());
    }

    #[test]
    fn time_control_parses_base_plus_increment() {
        let tc = |b, i| TimeControl::sudden_death(b, i);
        assert_eq!("180+2".parse(), Ok(tc(180, 2)));
        assert_eq!(" 5400 + 30 ".parse(), Ok(tc(5400, 30)));
        assert_eq!("0+0".parse(), Ok(tc(0, 0)));
        assert_eq!(tc(900, 10).to_string().parse(), Ok(tc(900, 10)));
    }

    #[test]
    fn a_time_control_header_takes_periods_and_names_what_is_wrong() {
        let (h, _) = read("# dgtcap 1\n# time-control: 40/5400+30:1800+30\n0 > 45\n");
        let tc = h.time_control.unwrap();
        assert_eq!(tc.to_string(), "40/5400+30:1800+30");
        assert_eq!(tc.periods().len(), 2);
        for (bad, says) in [
            ("3 min", "BASE+INC in seconds, or periods"),
            ("40/5400+30:", "BASE+INC in seconds, or periods"),
            ("40/30000:1800", "periods of 1 second to 6 hours"),
            ("40/5400+900", "increments of 0 to 600 seconds"),
        ] {
            let text = format!("# dgtcap 1\n# time-control: {bad}\n0 > 45\n");
            let e = match CaptureReader::new(text.as_bytes()) {
                Ok(_) => panic!("{bad:?} was accepted"),
                Err(e) => e.to_string(),
            };
            assert!(e.starts_with("line 2: header \"time-control\""), "{e}");
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }

    #[test]
    fn reads_the_format_example() {
        let text = "# dgtcap 1\n# board: 7\n# time-control: 180+2\n# white-clock: right\n\
                    # source: test\n\n0 > 40\n5 > 42\n31 < 86 00 43 08\n1520 < 8e0005 34 00\n\
                    # a comment\n1788 < 8e 00 05 24 01\n";
        let (h, recs) = read(text);
        assert_eq!(h.board.as_deref(), Some("7"));
        assert_eq!(h.time_control, Some(TimeControl::sudden_death(180, 2)));
        assert_eq!(h.white_clock, Some(ClockSide::Right));
        assert_eq!(h.extra, vec![("source".into(), "test".into())]);
        let recs: Vec<CaptureRecord> = recs.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(recs.len(), 5);
        assert_eq!(recs[0].direction, Direction::ToBoard);
        assert_eq!(recs[3].bytes, [0x8e, 0x00, 0x05, 0x34, 0x00]);
        assert_eq!(recs[4].t_ms, 1788);
        // Write and read back.
        let mut w = CaptureWriter::new(Vec::new(), &h).unwrap();
        for r in &recs {
            w.write(r).unwrap();
        }
        let written = String::from_utf8(w.into_inner()).unwrap();
        let (h2, recs2) = read(&written);
        assert_eq!(h2, h);
        assert_eq!(
            recs2.into_iter().map(|r| r.unwrap()).collect::<Vec<_>>(),
            recs
        );
    }

    #[test]
    fn the_variant_header_names_chess960() {
        let text = "# dgtcap 1\n# variant: chess960\n# start-fen: \
                    bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\n0 > 40\n";
        let (h, _) = read(text);
        assert_eq!(h.variant, chess_rules::Variant::Chess960);
        assert!(h.extra.is_empty());
        // Written back, read the same.
        let w = CaptureWriter::new(Vec::new(), &h).unwrap();
        let written = String::from_utf8(w.into_inner()).unwrap();
        assert!(written.contains("# variant: chess960\n"), "{written}");
        assert_eq!(read(&written).0, h);
        // Standard is the default, and is not written.
        let (h, _) = read("# dgtcap 1\n# variant: standard\n0 > 40\n");
        assert_eq!(h.variant, chess_rules::Variant::Standard);
        assert!(!h.to_lines().contains("variant"));
        assert!(CaptureReader::new("# dgtcap 1\n# variant: shogi\n".as_bytes()).is_err());
    }

    #[test]
    fn errors_name_the_line() {
        type Case = (&'static str, usize, fn(&CaptureErrorKind) -> bool);
        let cases: [Case; 7] = [
            ("0 < 86\nx < 00\n", 2, |k| {
                matches!(k, CaptureErrorKind::BadTime(_))
            }),
            ("0 < 86\n\n5 = 00\n", 3, |k| {
                matches!(k, CaptureErrorKind::BadDirection(_))
            }),
            ("0 < 8g\n", 1, |k| matches!(k, CaptureErrorKind::BadHex(_))),
            ("0 < 8\n", 1, |k| matches!(k, CaptureErrorKind::BadHex(_))),
            ("0 < 86  00\n", 1, |k| {
                matches!(k, CaptureErrorKind::BadHex(_))
            }),
            ("10 < 86\n9 < 00\n", 2, |k| {
                matches!(k, CaptureErrorKind::TimeWentBack { .. })
            }),
            ("0 <\n", 1, |k| matches!(k, CaptureErrorKind::NoBytes)),
        ];
        for (text, line, is_kind) in cases {
            let (_, recs) = read(text);
            let err = recs.into_iter().find_map(|r| r.err()).expect(text);
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(is_kind(&err.kind), "{text:?}: {err}");
        }
        let err = CaptureReader::new("# time-control: blitz\n".as_bytes())
            .err()
            .unwrap();
        assert_eq!(err.line, 1);
        assert!(err.to_string().contains("time-control"), "{err}");
        let err = CaptureReader::new(&b"0 < \xff\n"[..]).err().unwrap();
        assert!(matches!(err.kind, CaptureErrorKind::NotText));
        let err = CaptureReader::new(&b"0 < 40\n1 < \xff\n"[..])
            .unwrap()
            .nth(1)
            .unwrap()
            .unwrap_err();
        assert!(matches!(err.kind, CaptureErrorKind::NotText) && err.line == 2);
    }
}
