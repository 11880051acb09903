//! Reading what the daemon wrote for one board (its only IO, kept apart from the pure
//! building): `events.jsonl`, the board's journal for the round, its `.dgtcap` recordings
//! (`run --record`). Shared by `dgt-arbiter evidence` and the dashboard's evidence route,
//! which reads a running daemon's files: a torn last line is read as it is, and
//! [`crate::build`] reports it in the pack's warnings.

use std::path::{Path, PathBuf};

use daemon_config::paths::Paths;

use crate::{Input, Request};

/// What cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// No `events.jsonl` yet: the daemon has not run with this output folder.
    #[error("{} does not exist: the daemon has written no events there yet", .0.display())]
    NoEvents(PathBuf),
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReadError + '_ {
    |source| ReadError::Io {
        path: path.to_owned(),
        source,
    }
}

/// One file read: its path as the pack names it, and its bytes.
#[derive(Debug, Clone)]
pub struct FileBytes {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl FileBytes {
    fn read(path: &Path) -> Result<FileBytes, ReadError> {
        Ok(FileBytes {
            name: path.display().to_string(),
            bytes: std::fs::read(path).map_err(io(path))?,
        })
    }

    fn input(&self) -> Input<'_> {
        Input {
            name: &self.name,
            bytes: &self.bytes,
        }
    }
}

/// The daemon's files of one board in one round.
#[derive(Debug, Clone)]
pub struct BoardFiles {
    pub board: String,
    pub round: u32,
    pub events: FileBytes,
    pub journal: Option<FileBytes>,
    /// Oldest first.
    pub recordings: Vec<FileBytes>,
}

impl BoardFiles {
    /// Reads board `board`'s files of round `round` under `paths`; no journal or no
    /// recording is no error (the pack says what it lacks).
    pub fn read(paths: &Paths, round: u32, board: u32) -> Result<BoardFiles, ReadError> {
        let events_path = paths.events();
        let events = match FileBytes::read(&events_path) {
            Err(ReadError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(ReadError::NoEvents(events_path));
            }
            other => other?,
        };
        let journal = match FileBytes::read(&paths.journal(round, board)) {
            Ok(j) => Some(j),
            Err(ReadError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                None
            }
            Err(e) => return Err(e),
        };
        let board = board.to_string();
        let recordings = recordings(&paths.recordings(), &board)?
            .iter()
            .map(|p| FileBytes::read(p))
            .collect::<Result<_, _>>()?;
        Ok(BoardFiles {
            board,
            round,
            events,
            journal,
            recordings,
        })
    }

    /// The pack's request for `ply`, the window `around_ms` either side, made at
    /// `generated_unix_ms`.
    pub fn request(&self, ply: u32, around_ms: u64, generated_unix_ms: u64) -> Request<'_> {
        Request {
            board: &self.board,
            round: Some(self.round),
            ply,
            around_ms,
            events: self.events.input(),
            journal: self.journal.as_ref().map(FileBytes::input),
            recordings: self.recordings.iter().map(FileBytes::input).collect(),
            generated_unix_ms,
        }
    }
}

/// The board's recordings (`recordings/<board>-<unix ms>.dgtcap`), oldest first.
fn recordings(dir: &Path, board: &str) -> Result<Vec<PathBuf>, ReadError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir)(e)),
    };
    let prefix = format!("{board}-");
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(io(dir))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let stamp = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".dgtcap"));
        // `1-...` must not take board 11's `11-...`: the rest is the stamp's digits only.
        if stamp.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_boards_own_recordings_are_read() {
        let dir = std::env::temp_dir().join(format!("evidence-recs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let recs = dir.join("recordings");
        std::fs::create_dir_all(&recs).unwrap();
        for name in [
            "1-200.dgtcap",
            "1-100.dgtcap",
            "11-100.dgtcap",
            "1-x.dgtcap",
            "1-5.txt",
        ] {
            std::fs::write(recs.join(name), name).unwrap();
        }
        let paths = Paths::new(&dir);
        assert!(matches!(
            BoardFiles::read(&paths, 1, 1),
            Err(ReadError::NoEvents(_))
        ));
        std::fs::write(paths.events(), "{}\n").unwrap();
        let got = BoardFiles::read(&paths, 1, 1).unwrap();
        let names: Vec<&str> = got
            .recordings
            .iter()
            .map(|f| std::str::from_utf8(&f.bytes).unwrap())
            .collect();
        assert_eq!(names, ["1-100.dgtcap", "1-200.dgtcap"]);
        assert!(got.journal.is_none());
        let req = got.request(7, 1000, 5);
        assert_eq!((req.board, req.round, req.ply), ("1", Some(1), 7));
        assert_eq!(req.recordings.len(), 2);
        assert!(recordings(&dir.join("none"), "1").unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
