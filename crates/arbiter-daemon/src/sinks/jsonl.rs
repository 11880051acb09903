//! The JSON-lines event stream (formats.md §2), appended to `events.jsonl` and optionally
//! printed on stdout. Each line carries the extension fields `seq` (per board), `round`
//! and `at`. After a restart the boards regenerate their events from their journals with
//! the same `seq`; those already in the file are not written again, so a reader following
//! the file (`tail -f`) sees each event once.
//!
//! The file is not fdatasynced per line: the journals are the durable record, and the
//! lines lost to a power cut are regenerated from them at the next start.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Sink;
use crate::hub::Hub;

/// See the module documentation.
pub struct JsonlSink {
    path: PathBuf,
    file: File,
    round: u32,
    stdout: bool,
    /// Index into the hub's log of the next event to look at.
    next: usize,
    /// Per board, the highest `seq` of this round already in the file.
    written: HashMap<String, u64>,
}

#[derive(Deserialize)]
struct Seen {
    board: String,
    round: Option<u32>,
    seq: Option<u64>,
}

impl JsonlSink {
    /// Opens (or creates) the file and notes which events of `round` it already holds.
    pub fn open(path: &Path, round: u32, stdout: bool) -> io::Result<JsonlSink> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        let mut written: HashMap<String, u64> = HashMap::new();
        for line in BufReader::new(&file).lines() {
            // A line that does not parse (cut by a power cut) is not counted.
            let Ok(seen) = serde_json::from_str::<Seen>(&line?) else {
                continue;
            };
            if let (Some(r), Some(seq)) = (seen.round, seen.seq) {
                if r == round {
                    let w = written.entry(seen.board).or_default();
                    *w = (*w).max(seq);
                }
            }
        }
        // A torn last line gets its newline, so the next event starts a line of its own.
        let len = file.metadata()?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                file.write_all(b"\n")?;
            }
        }
        Ok(JsonlSink {
            path: path.to_owned(),
            file,
            round,
            stdout,
            next: 0,
            written,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Sink for JsonlSink {
    fn name(&self) -> &'static str {
        "events.jsonl"
    }

    fn update(&mut self, hub: &Hub) -> io::Result<()> {
        let events = hub.events_since(self.next);
        self.next += events.len();
        let mut out = String::new();
        for e in events {
            let board = e.event.board.as_str();
            if e.round == self.round && self.written.get(board).is_some_and(|w| e.seq <= *w) {
                continue;
            }
            out.push_str(&e.to_json());
            out.push('\n');
        }
        if out.is_empty() {
            return Ok(());
        }
        self.file.write_all(out.as_bytes())?;
        if self.stdout {
            let mut stdout = io::stdout().lock();
            stdout.write_all(out.as_bytes())?;
            stdout.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sinks::pgn::tests::hub;

    #[test]
    fn events_already_in_the_file_are_not_written_again() {
        let dir = std::env::temp_dir().join(format!("arbiter-jsonl-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("events.jsonl");
        let mut sink = JsonlSink::open(&path, 3, false).unwrap();
        sink.update(&hub()).unwrap();
        let first = std::fs::read_to_string(&path).unwrap();
        assert_eq!(first.lines().count(), 2);
        // A restart regenerates the same two events: nothing new is written; a torn last
        // line gets its newline first.
        std::fs::write(&path, format!("{first}{{\"board\":\"1\",\"ro")).unwrap();
        let mut again = JsonlSink::open(&path, 3, false).unwrap();
        again.update(&hub()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{first}{{\"board\":\"1\",\"ro\n"));
        // Another round's events with the same seq are new.
        let mut other = JsonlSink::open(&path, 4, false).unwrap();
        other.written.clear();
        let hub = hub();
        other.round = 4;
        other.update(&hub).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 5);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
