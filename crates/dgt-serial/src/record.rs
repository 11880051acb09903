//! Recording a board's traffic (`--record DIR`) as `.dgtcap` (formats.md §1).
//!
//! One file per board per driver run, `DIR/<board>-<unix ms at start>.dgtcap`; every
//! read and every write is one record, so the game replays byte for byte. Reconnects
//! stay in the same file, marked by `#` comment lines (which readers ignore), so one
//! file holds a whole game however often the cable was pulled. Times are milliseconds
//! since the driver's epoch, shared by all boards of a run. Writes go through a buffer
//! flushed at least once a second (the driver's tick) and at shutdown.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use dgt_protocol::capture::{format_record, CaptureHeader, CaptureRecord, Direction};

/// A `.dgtcap` being written.
#[derive(Debug)]
pub struct Recorder {
    out: BufWriter<File>,
    path: PathBuf,
    last_t: u64,
    /// Set after the first write error: recording stops, the board goes on.
    failed: bool,
}

impl Recorder {
    /// Creates the file for `board` in `dir` (created if missing) and writes its header.
    /// `epoch_unix_ms` is the wall-clock time of the driver's epoch, for the header.
    pub fn create(dir: &Path, board: &str, epoch_unix_ms: u64) -> io::Result<Recorder> {
        std::fs::create_dir_all(dir)?;
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let path = dir.join(format!("{}-{stamp}.dgtcap", file_safe(board)));
        let mut out = BufWriter::new(File::create_new(&path)?);
        let header = CaptureHeader {
            variant: Default::default(),
            board: Some(board.to_owned()),
            extra: vec![
                ("source".into(), "dgt-serial --record".into()),
                (
                    "timestamps".into(),
                    format!("ms since the driver's epoch (unix ms {epoch_unix_ms})"),
                ),
            ],
            ..CaptureHeader::default()
        };
        out.write_all(header.to_lines().as_bytes())?;
        Ok(Recorder {
            out,
            path,
            last_t: 0,
            failed: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records one read (`ToHost`) or write (`ToBoard`).
    pub fn record(&mut self, t_ms: u64, direction: Direction, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        // Times never decrease in a capture.
        let t_ms = t_ms.max(self.last_t);
        self.last_t = t_ms;
        let line = format_record(&CaptureRecord {
            t_ms,
            direction,
            bytes: bytes.to_vec(),
        });
        self.write(line.as_bytes());
    }

    /// Writes a `#` comment line (connects, losses).
    pub fn comment(&mut self, t_ms: u64, text: &str) {
        let line = format!("# at {t_ms} ms: {}\n", text.replace('\n', " "));
        self.write(line.as_bytes());
    }

    pub fn flush(&mut self) {
        if !self.failed {
            if let Err(e) = self.out.flush() {
                self.fail(&e);
            }
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if !self.failed {
            if let Err(e) = self.out.write_all(bytes) {
                self.fail(&e);
            }
        }
    }

    fn fail(&mut self, e: &io::Error) {
        tracing::warn!(path = %self.path.display(), error = %e, "recording stopped");
        self.failed = true;
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The board name as a file name: letters, digits, `-`, `_` and `.` kept, the rest `_`.
fn file_safe(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("board{s}")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dgt_protocol::capture::CaptureReader;

    #[test]
    fn records_read_back_with_comments_ignored() {
        let dir = std::env::temp_dir().join(format!("dgt-serial-rec-{}", std::process::id()));
        let mut r = Recorder::create(&dir, "table 7/a", 1_700_000_000_000).unwrap();
        assert!(r
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("table_7_a-"));
        r.comment(0, "opened /dev/pts/3");
        r.record(5, Direction::ToBoard, &[0x40]);
        r.record(9, Direction::ToHost, &[0x93, 0x00, 0x05, 0x01, 0x02]);
        r.comment(10, "lost: read error\nsecond line");
        // A time that went back is written as the last one.
        r.record(8, Direction::ToHost, &[0x8E]);
        r.record(8, Direction::ToHost, &[]);
        let path = r.path().to_owned();
        drop(r);
        let file = std::io::BufReader::new(File::open(&path).unwrap());
        let reader = CaptureReader::new(file).unwrap();
        assert_eq!(reader.header().board.as_deref(), Some("table 7/a"));
        let recs: Vec<CaptureRecord> = reader.map(|r| r.unwrap()).collect();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[1].bytes, [0x93, 0x00, 0x05, 0x01, 0x02]);
        assert_eq!(recs[2].t_ms, 9);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_safe("board-01025"), "board-01025");
        assert_eq!(file_safe("../etc"), "board.._etc");
        assert_eq!(file_safe(""), "board");
    }
}
