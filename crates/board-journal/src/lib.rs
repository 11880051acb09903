//! The journal: one append-only file per board per round holding the tracker's **inputs**
//! (the board events with their times, the timer firings, the analysis answers), one
//! JSON object a line after a header line. The tracker is deterministic given its inputs,
//! so replaying the journal rebuilds the board's tracker and regenerates exactly the
//! events it emitted before a crash; the board's next dump then lets the tracker's
//! reconnect search find the moves made while the daemon was down.
//!
//! # Durability (fsync policy)
//! Every record but the ride-alongs below is written to the file before the tracker sees
//! it, so a crash of the daemon alone (`kill -9`, a panic, OOM) loses none of them: the
//! kernel has it. Against a power cut, records are made durable with `fdatasync`, by how
//! much a ruling hangs on them ([`Durability`]):
//! - **before the tracker acts on them** ([`Durability::Now`]): clock presses and every
//!   other change of the clock's state (start, stop, a flag), board dumps,
//!   (dis)connections, timer firings, and analysis answers that rule (a position where a
//!   side cannot mate, or an undetermined one);
//! - **within `timing.journal_sync_ms`** (150 ms by default, [`Durability::Soon`]): field
//!   updates (lifts and placements) and everything else the board sends;
//! - **with the journal's next sync**, whenever that comes ([`Durability::Later`]):
//!   clock ticks that change nothing but the displayed times (the clock keeps the time
//!   itself and its next frame says it again), and "yes, this side can still mate"
//!   answers (the question is asked again after a restart when its answer is missing).
//!   These ride-alongs are not even written on their own: they wait in memory for the
//!   board's next record and go out with it in one `writev(2)`, in order (or at the
//!   board's once-a-second [`Journal::retry`]), and whenever the tracker does decide
//!   something on one of them the board task writes it ([`Journal::write_pending`])
//!   before publishing. So the file always holds a prefix of the board's inputs that
//!   includes the input of every event published, a restart regenerates exactly the
//!   events already out, and what a `kill -9` can cost beyond today's power-cut loss is
//!   at most a second of clock ticks that decided nothing (the clock says the times again
//!   a second later) and "yes" answers that are asked again. At 1,000 boards they are
//!   about half of all records (a tick a second per board, an answer per move).
//!
//! So a power cut loses at most the last 150 ms of lifts and placements, the clock ticks
//! since the board's last press, and answers that ruled nothing; never a press or a
//! ruling, and the board's dump after the restart shows where the pieces are anyway.
//! A per-record `fdatasync` would cost a flash write per lift (tens per move, hundreds per
//! second in a 50-board hall), which wears out a Raspberry Pi's SD card and can take tens
//! of ms each on it; batching keeps it to a few writes a second.
//!
//! The `fdatasync`s run on a few threads of one [`Syncer`] shared by every journal (group
//! commit): the board's task never blocks on one. A [`Durability::Now`] record wakes a
//! syncer thread at once and the task awaits [`Journal::durable`] (without holding a
//! thread) before it feeds the record to the tracker; the others are synced when their
//! window closes, together with whatever else the journal holds by then. Urgent syncs
//! never queue behind timed ones: every thread takes an urgent sync before a timed one,
//! and some threads ([`Syncer::start`]'s `urgent`) take urgent syncs only, so that a
//! press finds a thread free even while slow timed syncs occupy all the others. When a
//! timed sync falls due while several others wait, they are all synced at once, with one
//! `syncfs(2)` per file system instead of an `fdatasync` each ([`GROUP_SYNC_MIN`]);
//! urgent syncs are never grouped.
//!
//! # Torn and merged records
//! Every line is framed (`crash_safe::frame`: a last field `"crc32"`, the CRC-32 of the line
//! before it), so a line cut short, or a torn line run together with the next, is
//! detected on reading. A record cut short by a power cut (the last line, without its
//! newline, or garbage as the last line) is dropped and the file truncated before it; a
//! damaged record anywhere else is skipped ([`Opened::skipped`] names its byte offset and
//! line, the daemon logs it) and every good record before and after it is kept, so the
//! board starts. Version 1 journals (no framing) are still read.
//!
//! # The journal never invents
//! The tracker's inputs depend on each other (a placement is a change from the last), so
//! the records after a damaged one prove nothing: [`replay_plan`] replays up to it; the
//! daemon takes the events published after it back from events.jsonl (the live game had
//! them) and holds the board out of sync for the arbiter ([`Record::Held`]: the next
//! events are numbered after those published), rather than replay the rest into rulings
//! the live game never had. A later restart replays up to the damage again, skips to the
//! `Held` record and goes on from there. A file whose first line is no header
//! ([`Lost::Header`]) is set aside and a new journal begun; the daemon holds that board
//! too, and an empty journal's when events.jsonl shows the game had begun: never a new
//! game from the start position.
//!
//! # Failed writes, a deleted folder
//! A record that cannot be written (a full disk, EIO) waits in memory, in order, and is
//! written at the next append or [`Journal::retry`] once the disk takes it, so that the
//! moves made during the spell reach the journal; a write cut short resumes where it
//! stopped, so the spell leaves no torn line. The wait is bounded ([`BACKLOG_BYTES`]);
//! beyond it records are dropped and counted ([`Journal::dropped`]). The journal checks
//! that its path is still its file (the path's device and inode against the open file's,
//! one `stat`) before a [`Durability::Now`] record and at every [`Journal::retry`] (once
//! a second); a journal deleted (or its folder) or replaced is recreated with everything
//! it held (`crash_safe::follow_path`, which copies from the open file), so nothing is lost
//! and no press is synced into a deleted file. Other records are not checked before
//! their write: one written into a deleted file is still in the open file, and the next
//! check copies it over with the rest. (A `stat` of the path before every record was 5%
//! of the daemon's CPU at 1,000 boards; an `fstat` before every record, 2,000 a second,
//! bought nothing the copy does not.)

use std::collections::VecDeque;
use std::fs::OpenOptions;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::Duration;

use chess_rules::CanMate;
use dgt_protocol::TimedEvent;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

/// The journal format's version: 2 frames every line with a `crc32` field.
pub const VERSION: u32 = 2;

/// How many bytes of records may wait in memory for a disk that refuses them (about
/// 100 000 records: hours of a game).
pub const BACKLOG_BYTES: usize = 16 * 1024 * 1024;

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
    /// `Tracker::accept_board_at(t_ms, side, ply)`: the arbiter accepted an out-of-sync
    /// board as the position, `side` to move, at `ply` when he gave it (the dashboard's
    /// action; journals written before issue 36 have no `ply`).
    Accept {
        t_ms: u64,
        side: chess_rules::Color,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<u32>,
    },
    /// `Tracker::enter_moves(t_ms, from_ply, moves)`: the arbiter entered the moves of a
    /// gap (SAN or UCI, as he gave them; issue 40).
    Moves {
        t_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_ply: Option<u32>,
        moves: Vec<String>,
    },
    /// `Tracker::take_back(t_ms, to_ply, reason)`: the arbiter took the game back to
    /// `to_ply` (art. 7.5.1, or his decision; issue 40).
    Takeback {
        t_ms: u64,
        to_ply: u32,
        reason: String,
    },
    /// `Tracker::arbiter(t_ms, input)` was called: the arbiter's decision on the
    /// dashboard (the daemon's `decisions`).
    Arbiter {
        t_ms: u64,
        input: touch_tracker::ArbiterInput,
    },
    /// Inputs before this record are lost (`why`: a damaged record before it, the header
    /// lost, an empty journal): `Tracker::hold_for_arbiter`, the board out of sync until
    /// the arbiter accepts its position. Events already published went up to `seq` (the
    /// board's next event is numbered after it) and say `known` of the game.
    Held {
        t_ms: u64,
        why: String,
        seq: u64,
        known: touch_tracker::KnownGame,
    },
}

impl Record {
    /// The input time, where the record has one.
    pub fn t_ms(&self) -> Option<u64> {
        match self {
            Record::Event(e) => Some(e.t_ms),
            Record::Timeout { t_ms }
            | Record::Accept { t_ms, .. }
            | Record::Moves { t_ms, .. }
            | Record::Takeback { t_ms, .. } => Some(*t_ms),
            Record::Analysis { .. } => None,
            Record::Arbiter { t_ms, .. } | Record::Held { t_ms, .. } => Some(*t_ms),
        }
    }
}

/// How soon a record must reach the disk (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Before the tracker acts on it: the caller awaits [`Journal::durable`].
    Now,
    /// Within the journal's sync window.
    Soon,
    /// With the journal's next sync, whenever that comes.
    Later,
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

/// A damaged record skipped on reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Where the line starts in the file.
    pub offset: u64,
    /// Its line number (1-based).
    pub line: usize,
    pub message: String,
    /// How many good records come before it: it lay between `records[before - 1]` and
    /// `records[before]`.
    pub before: usize,
}

/// A journal that held less than a journal to resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lost {
    /// The file was there, empty.
    Empty,
    /// Its first line is no header (lost, or damaged): nothing says what its records'
    /// times count from. The file was renamed to `aside` (kept for the arbiter) and a new
    /// journal begun.
    Header { message: String, aside: PathBuf },
}

impl Lost {
    /// In words, for the board's status and the log.
    pub fn words(&self) -> String {
        match self {
            Lost::Empty => "the journal is empty".to_owned(),
            Lost::Header { message, aside } => format!(
                "the journal's header is lost ({message}); the file is kept as {}",
                aside.display()
            ),
        }
    }
}

/// What a replay of the records read may feed the tracker ([`replay_plan`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayPlan {
    /// Which records to replay, in order: `proven[i]` for `records[i]`.
    pub proven: Vec<bool>,
    /// The first damaged record that no [`Record::Held`] follows: the records after it
    /// are not replayed, and the board must be held for the arbiter now.
    pub unheld: Option<Skipped>,
}

/// Which records a replay may feed the tracker. The tracker's inputs depend on each other
/// (a placement is a change from the one before), so after a damaged record nothing
/// that follows is proven: replaying it could rule on a game that was not played (the
/// placement of a lost lift read as a piece added). Those records are skipped up to the
/// next [`Record::Held`] (written when the daemon held the board for the arbiter, after
/// which the inputs are complete again).
pub fn replay_plan(records: &[Record], skipped: &[Skipped]) -> ReplayPlan {
    let mut proven = Vec::with_capacity(records.len());
    let mut holes = skipped.iter().peekable();
    let mut unheld: Option<&Skipped> = None;
    for (i, rec) in records.iter().enumerate() {
        while let Some(hole) = holes.next_if(|h| h.before <= i) {
            unheld = unheld.or(Some(hole));
        }
        if matches!(rec, Record::Held { .. }) {
            unheld = None;
        }
        proven.push(unheld.is_none());
    }
    // A damaged record after the last good one.
    if let Some(hole) = holes.next() {
        unheld = unheld.or(Some(hole));
    }
    ReplayPlan {
        proven,
        unheld: unheld.cloned(),
    }
}

/// An open journal, appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    sync_within: Duration,
    /// The file, shared with the syncer, and this journal's place in its queues.
    entry: Arc<Entry>,
    syncer: Syncer,
    /// How many records the syncer has made durable (or tried to), from `entry`.
    synced: watch::Receiver<u64>,
    /// Records written (this run), for tests and logs; also the number the syncer
    /// compares with.
    written: u64,
    /// Records up to this number must be durable before the tracker sees the next one.
    durable_upto: u64,
    /// Records not written yet (a full disk); see the module documentation.
    backlog: crash_safe::Backlog,
    /// What last happened to the file's path, until [`Journal::take_moved`].
    moved: Option<crash_safe::Moved>,
    /// The last write failed: the records in `backlog` wait for the disk (not only
    /// ride-alongs for the next write).
    write_failed: bool,
}

/// Whether [`Journal::flush`] checks that the file is still at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathCheck {
    /// The path's device and inode against the file's (a `stat` of the path).
    Full,
    /// Not now: a record written into a deleted or replaced file stays readable through
    /// the open file, and the next full check (before the next urgent record, and at the
    /// once-a-second [`Journal::retry`]) copies it into the recreated file with the rest.
    Deferred,
}

/// A journal opened for appending, with what it already held.
#[derive(Debug)]
pub struct Opened {
    pub journal: Journal,
    pub header: Header,
    pub records: Vec<Record>,
    /// Set when a torn last record was dropped (what it was).
    pub repaired: Option<String>,
    /// Damaged records skipped before the end (the records after them are kept, and
    /// not replayed: [`replay_plan`]).
    pub skipped: Vec<Skipped>,
    /// The file held no journal to resume (empty, or its header lost).
    pub lost: Option<Lost>,
}

impl Journal {
    /// Opens (or creates) the journal of `board` in `round`, synced by `syncer`. A new
    /// journal's epoch is `now_unix_ms`.
    pub fn open(
        path: &Path,
        board: &str,
        round: u32,
        rules: &str,
        now_unix_ms: u64,
        sync_within: Duration,
        syncer: &Syncer,
    ) -> Result<Opened, JournalError> {
        let io_err = |source| JournalError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_err)?;
        }
        let existed = path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_err)?;
        let len = file.metadata().map_err(io_err)?.len();
        let mut read = read(path, &file)?;
        let mut lost = (existed && len == 0).then_some(Lost::Empty);
        if let Some(message) = read.header_lost.take() {
            // Kept for the arbiter under another name; a new journal begins.
            let mut aside = path.as_os_str().to_owned();
            aside.push(format!(".damaged-{now_unix_ms}"));
            let aside = PathBuf::from(aside);
            std::fs::rename(path, &aside).map_err(io_err)?;
            file = OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .open(path)
                .map_err(io_err)?;
            read = Read::default();
            lost = Some(Lost::Header { message, aside });
        } else if read.good < len {
            file.set_len(read.good).map_err(io_err)?;
            file.sync_data().map_err(io_err)?;
        }
        let Read {
            header,
            records,
            repaired,
            skipped,
            ..
        } = read;
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
                let mut line = serde_json::to_vec(&h).map_err(|e| io_err(io::Error::other(e)))?;
                crash_safe::frame(&mut line);
                file.write_all(&line).map_err(io_err)?;
                file.sync_data().map_err(io_err)?;
                if let Some(dir) = path.parent() {
                    crash_safe::sync_dir(dir).map_err(io_err)?;
                }
                h
            }
        };
        let (entry, synced) = Entry::new(file, path.to_owned(), 0);
        let entry = Arc::new(entry);
        Ok(Opened {
            journal: Journal {
                path: path.to_owned(),
                sync_within,
                entry,
                syncer: syncer.clone(),
                synced,
                written: 0,
                durable_upto: 0,
                backlog: crash_safe::Backlog::new(BACKLOG_BYTES),
                moved: None,
                write_failed: false,
            },
            header,
            records,
            repaired,
            skipped,
            lost,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a record (one `write(2)`, which does not block on the disk) and has it
    /// synced as `durability` says. After a [`Durability::Now`] record, await
    /// [`Journal::durable`] before acting on it. An error means the record waits in
    /// memory (or, past the bound, was dropped: [`Journal::dropped`]); it is written,
    /// after those before it, by the next append or [`Journal::retry`] that can.
    pub fn append(&mut self, record: &Record, durability: Durability) -> io::Result<()> {
        let mut line = Vec::with_capacity(128);
        serde_json::to_writer(&mut line, record).map_err(io::Error::other)?;
        crash_safe::frame(&mut line);
        // A zero window means every record reaches the disk before it is acted on.
        let durability = if self.sync_within.is_zero() {
            Durability::Now
        } else {
            durability
        };
        let had_failed = self.write_failed;
        if !self.backlog.push(line) {
            let _ = self.flush(PathCheck::Full);
            return Err(io::Error::other(format!(
                "{} bytes of records already wait for the disk: this one is dropped",
                BACKLOG_BYTES
            )));
        }
        if durability == Durability::Later
            && !had_failed
            && self.backlog.len() < crash_safe::WRITE_LINES_MAX
        {
            // A ride-along: written with the next record (one `writev(2)` for both), by
            // `write_pending` before anything decided on it is published, or by the next
            // `retry`, whichever comes first. Never more than one `writev(2)` of them
            // wait: a long run of ride-alongs alone (a clock ticking through a long
            // think, a replayed flood) must not fill the bound meant for a full disk.
            return Ok(());
        }
        // A press is never synced into a file that is no longer at its path.
        let check = if durability == Durability::Now {
            PathCheck::Full
        } else {
            PathCheck::Deferred
        };
        self.flush(check)?;
        if had_failed {
            // The records of the spell are in the file now: make them durable soon.
            self.syncer.0.shared.now(&self.entry);
        }
        match durability {
            Durability::Now => {
                self.durable_upto = self.written;
                self.syncer.0.shared.now(&self.entry);
            }
            Durability::Soon => self.syncer.0.shared.soon(&self.entry, self.sync_within),
            Durability::Later => {}
        }
        Ok(())
    }

    /// Writes the ride-alongs ([`Durability::Later`] records) that wait for the next
    /// record: call it before publishing anything the tracker decided on one of them, so
    /// that every published event's inputs are in the file.
    pub fn write_pending(&mut self) -> io::Result<()> {
        if self.backlog.is_empty() {
            return Ok(());
        }
        let had_failed = self.write_failed;
        self.flush(PathCheck::Deferred)?;
        if had_failed {
            self.syncer.0.shared.now(&self.entry);
        }
        Ok(())
    }

    /// Writes the waiting records (after checking the file is still at its path).
    fn flush(&mut self, check: PathCheck) -> io::Result<()> {
        let r = self.write_waiting(check);
        self.write_failed = r.is_err();
        r
    }

    fn write_waiting(&mut self, check: PathCheck) -> io::Result<()> {
        if let Err(e) = self.follow(check) {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot recreate the journal at its path: {e}"),
            ));
        }
        if self.backlog.is_empty() {
            return Ok(());
        }
        let (done, r) = self.backlog.write_to(&self.entry.file);
        if done > 0 {
            self.written += done;
            self.entry
                .written
                .store(self.written, AtomicOrdering::Release);
        }
        r
    }

    /// Recreates the file at its path if it was deleted or replaced (see the module
    /// documentation).
    fn follow(&mut self, check: PathCheck) -> io::Result<()> {
        if check == PathCheck::Deferred {
            return Ok(());
        }
        let followed = match self.entry.id {
            Some(id) => crash_safe::follow_path_of(&self.entry.file, id, &self.path)?,
            None => crash_safe::follow_path(&self.entry.file, &self.path)?,
        };
        let Some((file, moved)) = followed else {
            return Ok(());
        };
        tracing::warn!(
            "journal {} {}: recreated it with the {} records it held",
            self.path.display(),
            moved.words(),
            self.written
        );
        // The copy is durable: a new entry, synced up to here.
        let (entry, synced) = Entry::new(file, self.path.clone(), self.written);
        self.entry = Arc::new(entry);
        self.synced = synced;
        self.moved = Some(moved);
        Ok(())
    }

    /// Tries again to write the records that wait (a full disk), and checks the file is
    /// still at its path. `Ok` once nothing waits.
    pub fn retry(&mut self) -> io::Result<()> {
        let had_failed = self.write_failed;
        self.flush(PathCheck::Full)?;
        if had_failed {
            self.syncer.0.shared.now(&self.entry);
        }
        Ok(())
    }

    /// Records waiting in memory for the disk.
    pub fn waiting(&self) -> usize {
        self.backlog.len()
    }

    /// Records dropped because too many waited.
    pub fn dropped(&self) -> u64 {
        self.backlog.dropped()
    }

    /// Whether [`Journal::take_moved`] has something to say.
    pub fn was_moved(&self) -> bool {
        self.moved.is_some()
    }

    /// Whether the file was found deleted or replaced (and recreated) since the last call.
    pub fn take_moved(&mut self) -> Option<crash_safe::Moved> {
        self.moved.take()
    }

    /// Waits until every [`Durability::Now`] record appended so far has been synced (or
    /// its sync has failed, which the syncer logs). Holds no thread while it waits.
    pub async fn durable(&mut self) {
        let upto = self.durable_upto;
        if *self.synced.borrow() >= upto {
            return;
        }
        // The sender lives in `entry`, which this journal holds: it cannot close.
        let _ = self.synced.wait_for(|s| *s >= upto).await;
    }

    /// Whether records wait for a sync (the syncer's, or the last one at shutdown).
    pub fn unsynced(&self) -> bool {
        *self.synced.borrow() < self.written || !self.backlog.is_empty()
    }

    /// Makes everything written durable now, on this thread (at shutdown), after a last
    /// try to write what waits.
    pub fn sync(&mut self) -> io::Result<()> {
        let flushed = self.flush(PathCheck::Full);
        let written = self.written;
        self.entry.file.sync_data()?;
        self.entry.synced.send_if_modified(|s| raise(s, written));
        flushed
    }

    /// Records written since it was opened.
    pub fn written(&self) -> u64 {
        self.written
    }
}

impl Drop for Journal {
    /// A board task that ends without [`Journal::sync`] (a panic unwinding) still leaves
    /// its ride-alongs in the file.
    fn drop(&mut self) {
        let _ = self.write_pending();
    }
}

/// Raises a counter to `to`; true if it changed.
fn raise(counter: &mut u64, to: u64) -> bool {
    let raised = to > *counter;
    if raised {
        *counter = to;
    }
    raised
}

mod read;
mod syncer;

use read::{read, Read};
pub use syncer::Syncer;
use syncer::*;

#[cfg(test)]
mod tests;
