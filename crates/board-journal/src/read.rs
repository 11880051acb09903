//! Reading a journal back: its header, its records, the good length, a torn tail cut
//! off and damaged records skipped.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use super::*;

/// What [`read`] found in a journal file.
#[derive(Default)]
pub(crate) struct Read {
    pub(crate) header: Option<Header>,
    pub(crate) records: Vec<Record>,
    /// How many bytes from the start are good (the rest is a torn tail, cut off).
    pub(crate) good: u64,
    /// What was dropped from a torn tail.
    pub(crate) repaired: Option<String>,
    pub(crate) skipped: Vec<Skipped>,
    /// The first line is no header, and more follows (why it is none).
    pub(crate) header_lost: Option<String>,
}

/// Reads a journal: its header, its records, how many bytes are good, what was dropped
/// from a torn tail, and the damaged records skipped before it.
pub(crate) fn read(path: &Path, file: &File) -> Result<Read, JournalError> {
    let io_err = |source| JournalError::Io {
        path: path.to_owned(),
        source,
    };
    let mut reader = BufReader::with_capacity(1 << 20, file);
    reader.seek(SeekFrom::Start(0)).map_err(io_err)?;
    let mut read = Read::default();
    let mut offset: u64 = 0;
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io_err)?;
        if n == 0 {
            return Ok(read);
        }
        let start = offset;
        offset += n as u64;
        number += 1;
        let complete = buf.last() == Some(&b'\n');
        let raw = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let shown = || {
            String::from_utf8_lossy(raw)
                .chars()
                .take(60)
                .collect::<String>()
        };
        if !complete {
            // A torn last line, cut off by a crash while being written: drop it.
            read.repaired = Some(shown());
            return Ok(read);
        }
        let parsed: Result<(), String> = match (&read.header, crash_safe::unframe(raw)) {
            (_, Err(e)) => Err(e),
            (None, Ok(object)) => {
                let text = object.as_deref().unwrap_or(raw);
                match serde_json::from_slice::<Header>(text) {
                    Ok(h) if (1..=VERSION).contains(&h.journal) => {
                        read.header = Some(h);
                        Ok(())
                    }
                    // A journal of another daemon's version is no damage: refuse it.
                    Ok(h) => {
                        return Err(JournalError::Corrupt {
                            path: path.to_owned(),
                            line: number,
                            message: format!(
                                "journal version {} (this daemon reads versions 1 to \
                                 {VERSION})",
                                h.journal
                            ),
                        })
                    }
                    Err(e) => Err(format!("not a journal header: {e}")),
                }
            }
            (Some(h), Ok(None)) if h.journal >= 2 => {
                Err("no crc32 field: a torn or merged line".to_owned())
            }
            (Some(_), Ok(object)) => {
                let text = object.as_deref().unwrap_or(raw);
                serde_json::from_slice::<Record>(text)
                    .map(|r| read.records.push(r))
                    .map_err(|e| format!("not a journal record: {e}"))
            }
        };
        match parsed {
            Ok(()) => read.good = offset,
            Err(message) => {
                let at_end = reader.fill_buf().map(|b| b.is_empty()).unwrap_or(false);
                if at_end {
                    // Garbage as the last line (a power cut can leave zeros): drop it.
                    read.repaired = Some(shown());
                    return Ok(read);
                }
                if read.header.is_none() {
                    // Without its header nothing says what the records' times count
                    // from: the caller sets the file aside.
                    read.header_lost = Some(format!("line {number}: {message}"));
                    return Ok(read);
                }
                // Damage before the end: skip exactly this record, keep the others (and
                // say where it lay: what follows it is not proven, `replay_plan`).
                read.skipped.push(Skipped {
                    offset: start,
                    line: number,
                    message,
                    before: read.records.len(),
                });
            }
        }
    }
}
