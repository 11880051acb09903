//! The journal: one append-only file per board per round holding the tracker's **inputs**
//! (the board events with their times, the timer firings, the analysis answers), one
//! JSON object a line after a header line. The tracker is deterministic given its inputs,
//! so replaying the journal rebuilds the board's tracker and regenerates exactly the
//! events it emitted before a crash; the board's next dump then lets the tracker's
//! reconnect search find the moves made while the daemon was down.
//!
//! # Durability (fsync policy)
//! Every record is written to the file (one `write(2)`) before the tracker sees it, so a
//! crash of the daemon alone (`kill -9`, a panic, OOM) loses nothing: the kernel has it.
//! Against a power cut, records are made durable with `fdatasync`:
//! - **at once** for the records a ruling hangs on: clock presses (the running side
//!   changed), board dumps, (dis)connections, timer firings and analysis answers;
//! - **within `timing.journal_sync_ms`** (150 ms by default) for the rest (field updates
//!   and clock ticks), batched into one `fdatasync`.
//!
//! So a power cut loses at most the last 150 ms of lifts and placements, never a press
//! or a ruling, and the board's dump after the restart shows where the pieces are anyway.
//! A per-record `fdatasync` would cost a flash write per lift (tens per move, hundreds per
//! second in a 50-board hall), which wears out a Raspberry Pi's SD card and can take tens
//! of ms each on it; batching keeps it to a few writes a second.
//!
//! A record cut short by the power cut (the last line, without its newline) is dropped on
//! reading and the file truncated before it; damage anywhere else is an error naming the
//! line.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chess_rules::CanMate;
use dgt_protocol::TimedEvent;
use serde::{Deserialize, Serialize};

/// The journal format's version.
pub const VERSION: u32 = 1;

/// The first line of a journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub journal: u32,
    pub board: String,
    pub round: u32,
    /// Wall-clock time (Unix ms) of `t_ms` 0: the board's times are ms since then.
    pub epoch_unix_ms: u64,
    /// The rules the tracker was configured with when the journal began (time control,
    /// penalties, supervision, ...): replaying under other rules gives other events.
    #[serde(default)]
    pub rules: String,
}

/// One input of the tracker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    /// A board event, handed to `Tracker::handle`.
    Event(TimedEvent),
    /// `Tracker::handle_timeout(t_ms)` was called.
    Timeout { t_ms: u64 },
    /// `Tracker::analysis_done(id, answer)` was called.
    Analysis { id: u64, answer: CanMate },
}

impl Record {
    /// The input time, where the record has one.
    pub fn t_ms(&self) -> Option<u64> {
        match self {
            Record::Event(e) => Some(e.t_ms),
            Record::Timeout { t_ms } => Some(*t_ms),
            Record::Analysis { .. } => None,
        }
    }
}

/// A journal that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("journal {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("journal {path}, line {line}: {message}")]
    Corrupt {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(
        "journal {path} belongs to board {found_board} round {found_round}, not board \
         {board} round {round}"
    )]
    Mismatch {
        path: PathBuf,
        board: String,
        round: u32,
        found_board: String,
        found_round: u32,
    },
}

/// An open journal, appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    sync_within: Duration,
    /// Written but not yet fdatasynced since then.
    unsynced_since: Option<Instant>,
    /// Records written (this run), for tests and logs.
    written: u64,
    /// The line being written, kept to spare an allocation per record.
    line: Vec<u8>,
}

/// A journal opened for appending, with what it already held.
#[derive(Debug)]
pub struct Opened {
    pub journal: Journal,
    pub header: Header,
    pub records: Vec<Record>,
    /// Set when a torn last record was dropped (what it was).
    pub repaired: Option<String>,
}

impl Journal {
    /// Opens (or creates) the journal of `board` in `round`. A new journal's epoch is
    /// `now_unix_ms`.
    pub fn open(
        path: &Path,
        board: &str,
        round: u32,
        rules: &str,
        now_unix_ms: u64,
        sync_within: Duration,
    ) -> Result<Opened, JournalError> {
        let io_err = |source| JournalError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_err)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_err)?;
        let (header, records, keep, repaired) = read(path, &file)?;
        let len = file.metadata().map_err(io_err)?.len();
        if keep < len {
            file.set_len(keep).map_err(io_err)?;
            file.sync_data().map_err(io_err)?;
        }
        let header = match header {
            Some(h) => {
                if h.board != board || h.round != round {
                    return Err(JournalError::Mismatch {
                        path: path.to_owned(),
                        board: board.to_owned(),
                        round,
                        found_board: h.board,
                        found_round: h.round,
                    });
                }
                h
            }
            None => {
                let h = Header {
                    journal: VERSION,
                    board: board.to_owned(),
                    round,
                    epoch_unix_ms: now_unix_ms,
                    rules: rules.to_owned(),
                };
                file.seek(SeekFrom::End(0)).map_err(io_err)?;
                let line = serde_json::to_string(&h).map_err(|e| io_err(io::Error::other(e)))?;
                file.write_all(format!("{line}\n").as_bytes())
                    .map_err(io_err)?;
                file.sync_data().map_err(io_err)?;
                if let Some(dir) = path.parent() {
                    crate::fsutil::sync_dir(dir).map_err(io_err)?;
                }
                h
            }
        };
        Ok(Opened {
            journal: Journal {
                path: path.to_owned(),
                file,
                sync_within,
                unsynced_since: None,
                written: 0,
                line: Vec::new(),
            },
            header,
            records,
            repaired,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a record (one write). `urgent` records are fdatasynced at once; others
    /// within the sync window (see [`Journal::sync_due`]).
    pub fn append(&mut self, record: &Record, urgent: bool) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, record).map_err(io::Error::other)?;
        self.line.push(b'\n');
        self.file.write_all(&self.line)?;
        self.written += 1;
        if self.syncs_at_once(urgent) {
            self.sync()
        } else {
            self.unsynced_since.get_or_insert_with(Instant::now);
            Ok(())
        }
    }

    /// Whether [`Journal::append`] of a record this urgent waits for an `fdatasync`
    /// (else it is one `write(2)` to the page cache, which does not block).
    pub fn syncs_at_once(&self, urgent: bool) -> bool {
        urgent || self.sync_within.is_zero()
    }

    /// When the batched fdatasync is due, if records wait for one.
    pub fn sync_due(&self) -> Option<Instant> {
        self.unsynced_since.map(|t| t + self.sync_within)
    }

    /// Makes everything written durable.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()?;
        self.unsynced_since = None;
        Ok(())
    }

    /// Records written since it was opened.
    pub fn written(&self) -> u64 {
        self.written
    }
}

type Read = (Option<Header>, Vec<Record>, u64, Option<String>);

/// Reads a journal: its header, its records, how many bytes are good, and what was
/// dropped from a torn tail.
fn read(path: &Path, file: &File) -> Result<Read, JournalError> {
    let corrupt = |line: usize, message: String| JournalError::Corrupt {
        path: path.to_owned(),
        line,
        message,
    };
    let mut reader = BufReader::new(file);
    reader
        .seek(SeekFrom::Start(0))
        .map_err(|source| JournalError::Io {
            path: path.to_owned(),
            source,
        })?;
    let mut header = None;
    let mut records = Vec::new();
    let mut good: u64 = 0;
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| JournalError::Io {
                path: path.to_owned(),
                source,
            })?;
        if n == 0 {
            return Ok((header, records, good, None));
        }
        number += 1;
        let complete = buf.last() == Some(&b'\n');
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_end();
        let parsed: Result<(), String> = if header.is_none() {
            serde_json::from_str::<Header>(text)
                .map_err(|e| format!("not a journal header: {e}"))
                .and_then(|h| {
                    if h.journal == VERSION {
                        header = Some(h);
                        Ok(())
                    } else {
                        Err(format!(
                            "journal version {} (this daemon reads version {VERSION})",
                            h.journal
                        ))
                    }
                })
        } else {
            serde_json::from_str::<Record>(text)
                .map(|r| records.push(r))
                .map_err(|e| format!("not a journal record: {e}"))
        };
        let shown = || text.chars().take(60).collect::<String>();
        if !complete {
            // A torn last line, cut off by a crash while being written: drop it.
            if parsed.is_ok() {
                if number == 1 {
                    header = None;
                } else {
                    records.pop();
                }
            }
            return Ok((header, records, good, Some(shown())));
        }
        match parsed {
            Ok(()) => good += n as u64,
            Err(message) => {
                let at_end = reader.fill_buf().map(|b| b.is_empty()).unwrap_or(false);
                if at_end {
                    // Garbage as the last line (a power cut can leave zeros): drop it.
                    return Ok((header, records, good, Some(shown())));
                }
                // Damage before the end: what follows may be lost, so say so.
                return Err(corrupt(number, message));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_protocol::BoardEvent;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("arbiter-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        let _ = std::fs::remove_file(&p);
        p
    }

    fn event(t: u64) -> Record {
        Record::Event(TimedEvent {
            t_ms: t,
            event: BoardEvent::Disconnected {
                reason: format!("r{t}"),
            },
        })
    }

    const SYNC: Duration = Duration::from_millis(150);

    #[test]
    fn records_come_back_in_order_and_the_epoch_is_kept() {
        let path = temp("a.jsonl");
        let mut o = Journal::open(&path, "3", 1, "r", 1000, SYNC).unwrap();
        assert!(o.records.is_empty());
        o.journal.append(&event(5), false).unwrap();
        assert!(o.journal.sync_due().is_some());
        o.journal
            .append(&Record::Timeout { t_ms: 9 }, true)
            .unwrap();
        assert!(
            o.journal.sync_due().is_none(),
            "urgent records sync at once"
        );
        o.journal
            .append(
                &Record::Analysis {
                    id: 2,
                    answer: CanMate::No,
                },
                true,
            )
            .unwrap();
        drop(o);
        let o = Journal::open(&path, "3", 1, "r", 99_999, SYNC).unwrap();
        assert_eq!(o.header.epoch_unix_ms, 1000);
        assert_eq!(
            o.records,
            vec![
                event(5),
                Record::Timeout { t_ms: 9 },
                Record::Analysis {
                    id: 2,
                    answer: CanMate::No
                }
            ]
        );
        assert_eq!(o.records[1].t_ms(), Some(9));
        assert!(o.repaired.is_none());
    }

    #[test]
    fn a_torn_last_record_is_dropped_and_cut_off() {
        let path = temp("b.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC).unwrap();
        o.journal.append(&event(1), false).unwrap();
        o.journal.append(&event(2), false).unwrap();
        drop(o);
        let full = std::fs::read(&path).unwrap();
        // Cut the last record in the middle, as a power cut may.
        std::fs::write(&path, &full[..full.len() - 10]).unwrap();
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC).unwrap();
        assert_eq!(o.records, vec![event(1)]);
        assert!(o.repaired.is_some());
        o.journal.append(&event(3), false).unwrap();
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC).unwrap();
        assert_eq!(o.records, vec![event(1), event(3)]);
    }

    #[test]
    fn damage_in_the_middle_and_a_wrong_board_are_errors() {
        let path = temp("c.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC).unwrap();
        o.journal.append(&event(1), false).unwrap();
        o.journal.append(&event(2), false).unwrap();
        drop(o);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("\"t_ms\":1", "\"t_ms\":x", 1)).unwrap();
        let e = Journal::open(&path, "1", 2, "r", 0, SYNC).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        std::fs::write(&path, text).unwrap();
        let e = Journal::open(&path, "2", 2, "r", 0, SYNC).unwrap_err();
        assert!(e.to_string().contains("belongs to board 1 round 2"), "{e}");
    }
}
