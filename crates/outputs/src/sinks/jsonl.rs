//! The JSON-lines event stream (formats.md §2), appended to `events.jsonl` and optionally
//! printed on stdout. Each line carries the extension fields `seq` (per board), `round`
//! and `at`. After a restart the boards regenerate their events from their journals with
//! the same `seq`; those already in the file are not written again, so a reader following
//! the file (`tail -f`) sees each event once.
//!
//! The file is not fdatasynced per line: the journals are the durable record, and the
//! lines lost to a power cut are regenerated from them at the next start.
//!
//! Each line of the file is framed: its object ends with a field `"crc32"` (eight
//! lower-case hex digits, the CRC-32 of the line's bytes before `,"crc32"`), so a line
//! cut short or two lines run together are detected; reading the file at start-up skips
//! such a line with a warning naming its byte offset (every other line counts). Any
//! JSON-lines reader reads the framed objects as before (one more field). Lines the disk
//! refuses (full, EIO) wait in memory (bounded) and are written, in order and whole, at
//! the next update that can; a file deleted or replaced (or its folder) while running is
//! recreated with what it held. Both are said in the log and on the dashboard. The lines
//! printed on stdout are not framed.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{GamesSource, Sink};
use arbiter_hub::Hub;
use crash_safe::{follow_path, frame, unframe, Backlog};

/// How many bytes of lines may wait for a disk that refuses them.
const BACKLOG_BYTES: usize = 16 * 1024 * 1024;
/// The dashboard warning's key.
const WARNING: &str = "events.jsonl";

/// See the module documentation.
pub struct JsonlSink {
    path: PathBuf,
    file: File,
    round: u32,
    stdout: bool,
    /// Index into the hub's log of the next event to look at.
    next: usize,
    /// Per board, what of this round is already in the file.
    written: HashMap<String, Published>,
    /// Lines the disk has not taken yet.
    backlog: Backlog,
    /// The last write failed (said once until one succeeds).
    failing: bool,
}

#[derive(Deserialize)]
struct Seen {
    board: String,
    round: Option<u32>,
    seq: Option<u64>,
    kind: Option<String>,
    ply: Option<u32>,
    color: Option<String>,
    count: Option<u32>,
}

/// What of a board's events of this round the file holds already.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Published {
    /// The highest `seq`: a restart never writes an event numbered up to it again.
    pub seq: u64,
    /// What they say of the game (the highest ply of a `move`, the illegal moves'
    /// counts), for a board whose journal proves less.
    pub known: touch_tracker::KnownGame,
}

impl Published {
    /// Takes in one event of the board.
    fn add(&mut self, seen: &Seen, seq: u64) {
        self.seq = self.seq.max(seq);
        let known = &mut self.known;
        match (seen.kind.as_deref(), seen.color.as_deref()) {
            (Some("move"), _) => known.ply = known.ply.max(seen.ply.unwrap_or(0)),
            (Some("illegal_move"), Some("white")) => {
                known.illegal_white = known.illegal_white.max(seen.count.unwrap_or(1));
            }
            (Some("illegal_move"), Some("black")) => {
                known.illegal_black = known.illegal_black.max(seen.count.unwrap_or(1));
            }
            // The board's next game: its plies and illegal moves count from nothing.
            (Some("new_game"), _) => *known = touch_tracker::KnownGame::default(),
            _ => {}
        }
    }
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
        let mut written: HashMap<String, Published> = HashMap::new();
        let mut reader = BufReader::with_capacity(1 << 20, &file);
        let mut buf = Vec::new();
        let mut offset = 0u64;
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf)?;
            if n == 0 {
                break;
            }
            let start = offset;
            offset += n as u64;
            let complete = buf.last() == Some(&b'\n');
            let raw = buf.strip_suffix(b"\n").unwrap_or(&buf);
            // A line that does not check or parse (cut short, run into the next) is not
            // counted: its events are written again.
            let seen = unframe(raw).and_then(|_| {
                serde_json::from_slice::<Seen>(raw).map_err(|e| format!("not an event: {e}"))
            });
            let seen = match seen {
                Ok(s) => s,
                Err(e) => {
                    if complete {
                        tracing::warn!(
                            "{}, byte {start}: skipped a damaged line ({e}); the lines before \
                             and after it are kept",
                            path.display()
                        );
                    }
                    continue;
                }
            };
            if let (Some(r), Some(seq)) = (seen.round, seen.seq) {
                if r == round {
                    written
                        .entry(seen.board.clone())
                        .or_default()
                        .add(&seen, seq);
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
            backlog: Backlog::new(BACKLOG_BYTES),
            failing: false,
        })
    }

    /// Writes the waiting lines, after checking the file is still at its path.
    fn flush(&mut self, hub: &Hub) -> io::Result<()> {
        if let Some((file, moved)) = follow_path(&self.file, &self.path)? {
            let text = format!(
                "{} {} while running; recreated it with what it held",
                self.path.display(),
                moved.words()
            );
            tracing::warn!("{text}");
            hub.set_warning("events.jsonl-moved", Some(text));
            self.file = file;
        }
        self.backlog.write_to(&self.file).1
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the file holds of `board`'s events of this round (read at opening).
    pub fn published(&self, board: &str) -> Published {
        self.written.get(board).copied().unwrap_or_default()
    }
}

/// `board`'s events of `round` that the file at `path` holds numbered after `after` and
/// up to `upto`, in file order, with their `seq`: the events of a board whose journal
/// lost their inputs, which the live game had (a damaged line is left out, as at opening).
pub fn board_events(
    path: &Path,
    round: u32,
    board: &str,
    after: u64,
    upto: u64,
) -> io::Result<Vec<(u64, touch_tracker::ArbiterEvent)>> {
    let mut reader = BufReader::with_capacity(1 << 20, File::open(path)?);
    let mut found = Vec::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        let raw = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let seq = unframe(raw)
            .ok()
            .and_then(|_| serde_json::from_slice::<Seen>(raw).ok())
            .filter(|s| s.board == board && s.round == Some(round))
            .and_then(|s| s.seq)
            .filter(|seq| *seq > after && *seq <= upto);
        if let (Some(seq), Ok(event)) = (seq, serde_json::from_slice(raw)) {
            found.push((seq, event));
        }
    }
    Ok(found)
}

impl Sink for JsonlSink {
    fn name(&self) -> &'static str {
        "events.jsonl"
    }

    fn update(&mut self, hub: &Hub, _games: &dyn GamesSource) -> io::Result<()> {
        let events = hub.events_since(self.next);
        self.next += events.len();
        let mut out = String::new();
        let dropped_before = self.backlog.dropped();
        for e in events {
            let board = e.event.board.as_str();
            if e.round == self.round && self.written.get(board).is_some_and(|w| e.seq <= w.seq) {
                continue;
            }
            let json = e.to_json();
            let mut line = json.clone().into_bytes();
            frame(&mut line);
            self.backlog.push(line);
            if self.stdout {
                out.push_str(&json);
                out.push('\n');
            }
        }
        if self.backlog.is_empty() && out.is_empty() {
            return Ok(());
        }
        match self.flush(hub) {
            Ok(()) if self.failing => {
                self.failing = false;
                tracing::info!("{} is written again", self.path.display());
                hub.set_warning(WARNING, None);
            }
            Ok(()) => {}
            Err(e) => {
                let dropped = self.backlog.dropped();
                if !self.failing || (dropped > 0 && dropped_before == 0) {
                    let text = if dropped > 0 {
                        format!(
                            "cannot write {} ({e}); {dropped} event line(s) dropped (they are \
                             regenerated from the journals at the next start)",
                            self.path.display()
                        )
                    } else {
                        format!(
                            "cannot write {} ({e}); its lines wait in memory and are written \
                             when the disk takes them",
                            self.path.display()
                        )
                    };
                    tracing::error!("{text}");
                    hub.set_warning(WARNING, Some(text));
                }
                self.failing = true;
            }
        }
        if self.stdout && !out.is_empty() {
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
    fn what_the_file_holds_of_a_board_is_read_at_opening() {
        let dir = std::env::temp_dir().join(format!("arbiter-jsonl-pub-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("events.jsonl");
        let lines = [
            r#"{"board":"1","kind":"move","ply":1,"seq":1,"round":3}"#,
            r#"{"board":"1","kind":"illegal_move","color":"black","count":1,"ply":2,"seq":2,"round":3}"#,
            r#"{"board":"1","kind":"move","ply":2,"seq":3,"round":3}"#,
            r#"{"t_ms":5,"board":"1","kind":"board_status","status":"connected","seq":4,"round":3}"#,
            r#"{"board":"1","kind":"move","ply":9,"seq":9,"round":2}"#,
            r#"{"board":"2","kind":"move","ply":5,"seq":6,"round":3}"#,
            r#"{"board":"2","kind":"illegal_move","color":"white","count":1,"seq":7,"round":3}"#,
            r#"{"board":"2","kind":"new_game","seq":8,"round":3}"#,
            r#"{"board":"2","kind":"move","ply":1,"seq":9,"round":3}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let sink = JsonlSink::open(&path, 3, false).unwrap();
        let one = sink.published("1");
        assert_eq!((one.seq, one.known.ply), (4, 2), "round 3 only");
        assert_eq!((one.known.illegal_white, one.known.illegal_black), (0, 1));
        let two = sink.published("2");
        assert_eq!(
            (two.seq, two.known.ply, two.known.illegal_white),
            (9, 1, 0),
            "a new game"
        );
        assert_eq!(sink.published("3"), Published::default());
        // The events themselves, by their numbers (round 3, board 1, after 3 up to 9).
        let found = board_events(&path, 3, "1", 3, 9).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0, found[0].1.kind_name()), (4, "board_status"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn events_already_in_the_file_are_not_written_again() {
        let dir = std::env::temp_dir().join(format!("arbiter-jsonl-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("events.jsonl");
        let mut sink = JsonlSink::open(&path, 3, false).unwrap();
        sink.update(&hub(), &hub()).unwrap();
        let first = std::fs::read_to_string(&path).unwrap();
        assert_eq!(first.lines().count(), 2);
        // A restart regenerates the same two events: nothing new is written; a torn last
        // line gets its newline first.
        std::fs::write(&path, format!("{first}{{\"board\":\"1\",\"ro")).unwrap();
        let mut again = JsonlSink::open(&path, 3, false).unwrap();
        again.update(&hub(), &hub()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{first}{{\"board\":\"1\",\"ro\n"));
        // Another round's events with the same seq are new.
        let mut other = JsonlSink::open(&path, 4, false).unwrap();
        other.written.clear();
        let hub = hub();
        other.round = 4;
        other.update(&hub, &hub).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 5);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
