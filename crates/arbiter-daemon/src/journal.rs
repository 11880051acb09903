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

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

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
    /// dashboard ([`crate::decisions`]).
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

/// Group commit: a few threads that `fdatasync` every journal that asks, so that board
/// tasks never block on the disk and records that gather while a sync runs share the
/// next one. Cheap to clone; the threads stop when the last clone (every journal holds
/// one) is dropped.
#[derive(Debug, Clone)]
pub struct Syncer(Arc<SyncerOwner>);

#[derive(Debug)]
struct SyncerOwner {
    shared: Arc<Shared>,
}

impl Drop for SyncerOwner {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake_urgent.notify_all();
        self.shared.wake_any.notify_all();
    }
}

/// One journal as the syncer sees it.
#[derive(Debug)]
struct Entry {
    /// The journal's file: the board's task appends, the syncer syncs.
    file: File,
    path: PathBuf,
    /// Records written so far (the journal sets it after each `write(2)`).
    written: AtomicU64,
    /// Records synced (or whose sync failed) so far.
    synced: watch::Sender<u64>,
    /// In the queue of urgent syncs (changed under the queue's lock).
    queued_now: AtomicBool,
    /// In the queue of timed syncs (changed under the queue's lock).
    queued_soon: AtomicBool,
    /// The last sync failed (logged once until one succeeds).
    failing: AtomicBool,
    /// The file's device and inode: compared with its path's without an `fstat`, and
    /// the device (its file system) says which journals one `syncfs` covers.
    id: Option<crash_safe::FileId>,
}

impl Entry {
    /// The entry of `file`, of which `written` records are durable already.
    fn new(file: File, path: PathBuf, written: u64) -> (Entry, watch::Receiver<u64>) {
        let (synced_tx, synced) = watch::channel(written);
        let id = crash_safe::file_id(&file).ok();
        let entry = Entry {
            file,
            path,
            written: AtomicU64::new(written),
            synced: synced_tx,
            queued_now: AtomicBool::new(false),
            queued_soon: AtomicBool::new(false),
            failing: AtomicBool::new(false),
            id,
        };
        (entry, synced)
    }

    /// Records written and not known to be synced (0 when an earlier sync covered them).
    fn to_sync(&self) -> u64 {
        let written = self.written.load(AtomicOrdering::Acquire);
        if *self.synced.borrow() >= written {
            0
        } else {
            written
        }
    }

    /// Syncs what has been written, unless an earlier sync covered it.
    fn sync(&self) {
        let written = self.to_sync();
        if written == 0 {
            return;
        }
        let r = self.file.sync_data();
        self.done(written, r);
    }

    /// A sync covering the first `written` records ended with `r`.
    fn done(&self, written: u64, r: io::Result<()>) {
        match r {
            Ok(()) => {
                if self.failing.swap(false, AtomicOrdering::Relaxed) {
                    tracing::info!("journal {}: synced again", self.path.display());
                }
            }
            Err(e) => {
                if !self.failing.swap(true, AtomicOrdering::Relaxed) {
                    tracing::error!(
                        "cannot sync the journal {}: {e}; the game goes on but its last \
                         records would not survive a power cut",
                        self.path.display()
                    );
                }
            }
        }
        // Also after a failure: nobody waits for a sync that will not come.
        self.synced.send_if_modified(|s| raise(s, written));
    }
}

/// At least this many journals of one file system due for a sync together are synced by
/// one `syncfs(2)` instead of one `fdatasync(2)` each.
///
/// Why: at 1,000 boards the journals' syncs were the daemon's largest cost (about a
/// quarter of its CPU, docs/performance.md), and each `fdatasync` writes its file's
/// inode on its own and flushes the disk's cache on its own; one `syncfs` writes every
/// dirty file of the file system in one pass, their inodes together, and flushes once.
/// Its price is that it also writes whatever else is dirty on that file system, so it is
/// used only where it replaces several syncs, and only for timed syncs (a press never
/// waits behind another program's writes; see [`Queues::next_job`]).
const GROUP_SYNC_MIN: usize = 4;

/// Syncs `entries` together: one `syncfs` for each file system with at least
/// [`GROUP_SYNC_MIN`] of them to sync, an `fdatasync` each for the others. A failed
/// `syncfs` says only that some file of the file system failed: each of its journals is
/// then synced on its own, so that each learns its own error.
fn sync_together(entries: &[Arc<Entry>]) {
    let mut by_device: std::collections::BTreeMap<Option<u64>, Vec<(&Arc<Entry>, u64)>> =
        Default::default();
    for e in entries {
        let written = e.to_sync();
        if written > 0 {
            by_device
                .entry(e.id.map(|(dev, _)| dev))
                .or_default()
                .push((e, written));
        }
    }
    for (device, group) in by_device {
        if device.is_none() || group.len() < GROUP_SYNC_MIN {
            for (e, _) in group {
                e.sync();
            }
            continue;
        }
        match syncfs(&group[0].0.file) {
            Ok(()) => {
                for (e, written) in group {
                    e.done(written, Ok(()));
                }
            }
            Err(err) => {
                tracing::warn!("syncfs failed ({err}): syncing each journal on its own");
                for (e, _) in group {
                    e.sync();
                }
            }
        }
    }
}

/// Whether this kernel's `syncfs(2)` reports a failed write of any file it syncs (Linux
/// 5.8 and later). On older kernels it returned success whatever happened, and a journal
/// synced by it could be taken for durable when its write had failed: there every
/// journal keeps its own `fdatasync`.
fn syncfs_reports_errors() -> bool {
    static REPORTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REPORTS.get_or_init(|| {
        let release = kernel_release();
        let reports = release
            .as_deref()
            .and_then(release_major_minor)
            .is_some_and(|v| v >= (5, 8));
        if !reports {
            tracing::info!(
                kernel = release.as_deref().unwrap_or("unknown"),
                "syncfs does not report write errors on this kernel: journals are synced one by one"
            );
        }
        reports
    })
}

/// The running kernel's release (`uname -r`).
fn kernel_release() -> Option<String> {
    // SAFETY: `utsname` is plain data; `uname` fills it or fails.
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut uts) } != 0 {
        return None;
    }
    let bytes: Vec<u8> = uts
        .release
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8(bytes).ok()
}

/// `(5, 8)` of a release such as `5.8.0-63-generic`.
fn release_major_minor(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// `syncfs(2)` of the file system `file` is on.
fn syncfs(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for the whole call (`file` is borrowed).
    if unsafe { libc::syncfs(file.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A timed sync, ordered so that the earliest is the heap's top.
#[derive(Debug)]
struct Timed {
    at: Instant,
    entry: Arc<Entry>,
}

impl PartialEq for Timed {
    fn eq(&self, other: &Timed) -> bool {
        self.at == other.at
    }
}
impl Eq for Timed {}
impl PartialOrd for Timed {
    fn partial_cmp(&self, other: &Timed) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timed {
    fn cmp(&self, other: &Timed) -> Ordering {
        other.at.cmp(&self.at)
    }
}

#[derive(Debug, Default)]
struct Queues {
    now: VecDeque<Arc<Entry>>,
    soon: BinaryHeap<Timed>,
    /// Threads of each kind waiting for work (only then is a wake-up worth a syscall).
    idle_urgent: usize,
    idle_any: usize,
    stop: bool,
}

/// What a syncer thread does next.
#[derive(Debug)]
enum Job {
    Sync(Arc<Entry>),
    /// Timed syncs fallen due, with every other timed sync that waits (early, but within
    /// its window): synced together ([`sync_together`]).
    SyncTogether(Vec<Arc<Entry>>),
    /// Nothing due: wait, until this instant if a timed sync is pending.
    Wait(Option<Instant>),
    Stop,
}

impl Queues {
    /// The next job of a thread that takes only urgent syncs (`urgent_only`) or any:
    /// urgent syncs first, then timed ones that are due.
    fn next_job(&mut self, urgent_only: bool, now: Instant) -> Job {
        if self.stop {
            return Job::Stop;
        }
        if let Some(e) = self.now.pop_front() {
            e.queued_now.store(false, AtomicOrdering::Relaxed);
            return Job::Sync(e);
        }
        if urgent_only {
            return Job::Wait(None);
        }
        if self.soon.peek().is_some_and(|t| t.at <= now) {
            if self.soon.len() >= GROUP_SYNC_MIN && syncfs_reports_errors() {
                // Syncing the others a little before their time costs nothing more: one
                // `syncfs` covers them all.
                let all: Vec<Arc<Entry>> = self
                    .soon
                    .drain()
                    .map(|t| {
                        t.entry.queued_soon.store(false, AtomicOrdering::Relaxed);
                        t.entry
                    })
                    .collect();
                return Job::SyncTogether(all);
            }
            if let Some(t) = self.soon.pop() {
                t.entry.queued_soon.store(false, AtomicOrdering::Relaxed);
                return Job::Sync(t.entry);
            }
        }
        Job::Wait(self.soon.peek().map(|t| t.at))
    }
}

#[derive(Debug, Default)]
struct Shared {
    queues: Mutex<Queues>,
    /// Wakes a thread that takes urgent syncs only.
    wake_urgent: Condvar,
    /// Wakes a thread that takes any sync.
    wake_any: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queues> {
        // The queues stay consistent whatever panicked while holding the lock.
        self.queues.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues an urgent sync of `entry`.
    fn now(&self, entry: &Arc<Entry>) {
        let mut q = self.lock();
        if entry.queued_now.swap(true, AtomicOrdering::Relaxed) {
            return; // Not synced yet: that sync will cover this record too.
        }
        q.now.push_back(Arc::clone(entry));
        // A reserved thread first, so that the others stay free for timed syncs.
        if q.idle_urgent > 0 {
            self.wake_urgent.notify_one();
        } else if q.idle_any > 0 {
            self.wake_any.notify_one();
        }
    }

    /// Queues a sync of `entry` within `window`, unless one is queued already.
    fn soon(&self, entry: &Arc<Entry>, window: Duration) {
        let mut q = self.lock();
        if entry.queued_soon.swap(true, AtomicOrdering::Relaxed) {
            return; // An earlier deadline covers this record.
        }
        let at = Instant::now() + window;
        let earliest = q.soon.peek().is_none_or(|t| at < t.at);
        q.soon.push(Timed {
            at,
            entry: Arc::clone(entry),
        });
        if earliest && q.idle_any > 0 {
            // A waiting thread's timeout was set for a later deadline (or none).
            self.wake_any.notify_one();
        }
    }

    /// A syncer thread: urgent syncs first, then (unless `urgent_only`) timed ones as
    /// they fall due.
    fn work(&self, urgent_only: bool) {
        let (wake, mut q) = if urgent_only {
            (&self.wake_urgent, self.lock())
        } else {
            (&self.wake_any, self.lock())
        };
        loop {
            match q.next_job(urgent_only, Instant::now()) {
                Job::Stop => return,
                Job::Sync(entry) => {
                    drop(q);
                    entry.sync();
                    q = self.lock();
                }
                Job::SyncTogether(entries) => {
                    drop(q);
                    sync_together(&entries);
                    q = self.lock();
                }
                Job::Wait(until) => {
                    fn idle(q: &mut Queues, urgent_only: bool) -> &mut usize {
                        if urgent_only {
                            &mut q.idle_urgent
                        } else {
                            &mut q.idle_any
                        }
                    }
                    *idle(&mut q, urgent_only) += 1;
                    q = match until {
                        Some(at) => {
                            let left = at.saturating_duration_since(Instant::now());
                            wake.wait_timeout(q, left)
                                .unwrap_or_else(|p| p.into_inner())
                                .0
                        }
                        None => wake.wait(q).unwrap_or_else(|p| p.into_inner()),
                    };
                    *idle(&mut q, urgent_only) -= 1;
                }
            }
        }
    }
}

impl Syncer {
    /// Starts `urgent` threads that take only [`Durability::Now`] syncs and `any`
    /// threads that take those first and timed ones as they fall due (at least one of
    /// each). Several threads let the file system commit concurrent syncs together.
    pub fn start(urgent: usize, any: usize) -> io::Result<Syncer> {
        let shared = Arc::new(Shared::default());
        let roles =
            std::iter::repeat_n(true, urgent.max(1)).chain(std::iter::repeat_n(false, any.max(1)));
        for (i, urgent_only) in roles.enumerate() {
            let s = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("journal-sync-{i}"))
                .stack_size(256 * 1024)
                .spawn(move || s.work(urgent_only))?;
        }
        Ok(Syncer(Arc::new(SyncerOwner { shared })))
    }
}

/// What [`read`] found in a journal file.
#[derive(Default)]
struct Read {
    header: Option<Header>,
    records: Vec<Record>,
    /// How many bytes from the start are good (the rest is a torn tail, cut off).
    good: u64,
    /// What was dropped from a torn tail.
    repaired: Option<String>,
    skipped: Vec<Skipped>,
    /// The first line is no header, and more follows (why it is none).
    header_lost: Option<String>,
}

/// Reads a journal: its header, its records, how many bytes are good, what was dropped
/// from a torn tail, and the damaged records skipped before it.
fn read(path: &Path, file: &File) -> Result<Read, JournalError> {
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use dgt_protocol::BoardEvent;

    /// A path in this process's scratch folder, removed (file or folder) when the test
    /// ends, so runs do not leave journals behind in the system's temp folder.
    struct Temp(PathBuf);

    impl std::ops::Deref for Temp {
        type Target = PathBuf;
        fn deref(&self) -> &PathBuf {
            &self.0
        }
    }

    impl AsRef<Path> for Temp {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
            let _ = std::fs::remove_dir_all(&self.0);
            // And what the journal set aside beside it (`NAME.damaged-N`).
            if let (Some(dir), Some(name)) = (self.0.parent(), self.0.file_name()) {
                let aside = format!("{}.", name.to_string_lossy());
                for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                    if entry.file_name().to_string_lossy().starts_with(&aside) {
                        let _ = std::fs::remove_file(entry.path());
                    }
                }
            }
            // The process's folder goes with its last path (fails while others remain).
            if let Some(dir) = self.0.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }

    fn temp(name: &str) -> Temp {
        let dir = std::env::temp_dir().join(format!("arbiter-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        let _ = std::fs::remove_file(&p);
        Temp(p)
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

    fn syncer() -> Syncer {
        Syncer::start(1, 1).unwrap()
    }

    #[tokio::test]
    async fn records_come_back_in_order_and_the_epoch_is_kept() {
        let syncer = syncer();
        let path = temp("a.jsonl");
        let mut o = Journal::open(&path, "3", 1, "r", 1000, SYNC, &syncer).unwrap();
        assert!(o.records.is_empty());
        o.journal.append(&event(5), Durability::Later).unwrap();
        assert!(o.journal.unsynced());
        o.journal
            .append(&Record::Timeout { t_ms: 9 }, Durability::Now)
            .unwrap();
        o.journal.durable().await;
        assert!(
            !o.journal.unsynced(),
            "an urgent sync covers the records before it"
        );
        o.journal
            .append(
                &Record::Analysis {
                    id: 2,
                    answer: CanMate::No,
                },
                Durability::Soon,
            )
            .unwrap();
        assert!(o.journal.unsynced());
        drop(o);
        let o = Journal::open(&path, "3", 1, "r", 99_999, SYNC, &syncer).unwrap();
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
        let syncer = syncer();
        let path = temp("b.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        o.journal.append(&event(1), Durability::Soon).unwrap();
        o.journal.append(&event(2), Durability::Soon).unwrap();
        drop(o);
        let full = std::fs::read(&path).unwrap();
        // Cut the last record in the middle, as a power cut may.
        std::fs::write(&path, &full[..full.len() - 10]).unwrap();
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, vec![event(1)]);
        assert!(o.repaired.is_some());
        o.journal.append(&event(3), Durability::Soon).unwrap();
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, vec![event(1), event(3)]);
    }

    #[test]
    fn a_torn_record_in_the_middle_is_skipped_and_the_others_kept() {
        let syncer = syncer();
        let path = temp("c.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        for t in 1..=4 {
            o.journal.append(&event(t), Durability::Soon).unwrap();
        }
        drop(o);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // Record 2 torn by a full disk, record 3 written right after it on the same line
        // (as a write that resumed elsewhere would leave it).
        let torn = &lines[2][..lines[2].len() / 2];
        let damaged = format!(
            "{}\n{}\n{torn}{}\n{}\n",
            lines[0], lines[1], lines[3], lines[4]
        );
        std::fs::write(&path, &damaged).unwrap();
        let offset = (lines[0].len() + lines[1].len() + 2) as u64;
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, vec![event(1), event(4)]);
        assert_eq!(o.skipped.len(), 1, "{:?}", o.skipped);
        assert_eq!(o.skipped[0].offset, offset);
        assert_eq!(o.skipped[0].line, 3);
        assert!(o.repaired.is_none());
        // A bit flipped inside a record is caught by its checksum too.
        o.journal.append(&event(5), Durability::Soon).unwrap();
        drop(o);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("\"r4\"", "\"r7\"", 1)).unwrap();
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, vec![event(1), event(5)]);
        assert_eq!(o.skipped.len(), 2);
        assert!(o.skipped[1].message.contains("checksum"), "{:?}", o.skipped);
        drop(o);
        let e = Journal::open(&path, "2", 2, "r", 0, SYNC, &syncer).unwrap_err();
        assert!(e.to_string().contains("belongs to board 1 round 2"), "{e}");
    }

    /// Tears line `i` (0-based) of the file at `path` in half and runs it into the next
    /// (a write cut short, the next record written after it on the same line).
    pub(crate) fn tear_into_next(path: &Path, i: usize) {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let torn = lines[i][..lines[i].len() / 2].to_owned();
        lines[i + 1] = format!("{torn}{}", lines[i + 1]);
        lines.remove(i);
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }

    fn hole(before: usize) -> Skipped {
        Skipped {
            offset: 0,
            line: before + 2,
            message: "no crc32 field".into(),
            before,
        }
    }

    fn held(t_ms: u64) -> Record {
        Record::Held {
            t_ms,
            why: "journal damaged".into(),
            seq: 9,
            known: touch_tracker::KnownGame::default(),
        }
    }

    #[test]
    fn nothing_after_a_damaged_record_is_replayed_until_the_board_was_held() {
        let records = vec![event(1), event(2), event(4), held(5), event(6)];
        // Record 3 lost between 2 and 4: 4 is not proven; the board held at 5 (an
        // earlier restart) is where the inputs are complete again.
        let plan = replay_plan(&records, &[hole(2)]);
        assert_eq!(plan.proven, [true, true, false, true, true]);
        assert_eq!(plan.unheld, None);
        // Not held yet: the board must be held now.
        let plan = replay_plan(&records[..3], &[hole(2)]);
        assert_eq!(plan.proven, [true, true, false]);
        assert_eq!(plan.unheld, Some(hole(2)));
        // Damaged again after it was held: the first damage not held decides.
        let plan = replay_plan(&records, &[hole(2), hole(4)]);
        assert_eq!(plan.proven, [true, true, false, true, false]);
        assert_eq!(plan.unheld, Some(hole(4)));
        let plan = replay_plan(&records[..3], &[hole(1), hole(2)]);
        assert_eq!(plan.proven, [true, false, false]);
        assert_eq!(plan.unheld, Some(hole(1)));
        // After the last good record: what it was and what it decided is lost too.
        let plan = replay_plan(&records[..2], &[hole(2)]);
        assert_eq!(plan.proven, [true, true]);
        assert_eq!(plan.unheld, Some(hole(2)));
        // Undamaged: everything.
        let plan = replay_plan(&records, &[]);
        assert!(plan.proven.iter().all(|p| *p) && plan.unheld.is_none());
    }

    #[test]
    fn a_record_torn_into_the_next_is_a_hole_that_the_replay_stops_at() {
        let syncer = syncer();
        let path = temp("hole.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        for t in 1..=40 {
            o.journal.append(&event(t), Durability::Soon).unwrap();
        }
        drop(o);
        // Record 24 (line 25) torn and run into record 25.
        tear_into_next(&path, 24);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(
            o.records.len(),
            38,
            "records 24 and 25 are one damaged line"
        );
        assert_eq!(o.skipped.len(), 1);
        assert_eq!((o.skipped[0].line, o.skipped[0].before), (25, 23));
        let plan = replay_plan(&o.records, &o.skipped);
        assert_eq!(plan.proven.iter().filter(|p| **p).count(), 23);
        assert_eq!(plan.unheld.as_ref(), Some(&o.skipped[0]));
        assert!(o.lost.is_none());
    }

    #[test]
    fn a_journal_without_its_header_is_set_aside_and_begun_again() {
        let syncer = syncer();
        let path = temp("headless.jsonl");
        for damage in ["lost", "flipped"] {
            let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
            for t in 1..=3 {
                o.journal.append(&event(t), Durability::Soon).unwrap();
            }
            drop(o);
            let text = std::fs::read_to_string(&path).unwrap();
            let damaged = match damage {
                "lost" => text.split_once('\n').unwrap().1.to_owned(),
                _ => text.replacen("\"board\":\"1\"", "\"board\":\"7\"", 1),
            };
            std::fs::write(&path, &damaged).unwrap();
            let o = Journal::open(&path, "1", 2, "r", 77, SYNC, &syncer).unwrap();
            let Some(Lost::Header { message, aside }) = &o.lost else {
                panic!("{damage}: {:?}", o.lost)
            };
            assert!(message.starts_with("line 1: "), "{message}");
            assert!(o.records.is_empty(), "{damage}: nothing replayed");
            assert_eq!(o.header.epoch_unix_ms, 77, "a new journal");
            assert_eq!(
                std::fs::read_to_string(aside).unwrap(),
                damaged,
                "kept aside"
            );
            assert!(o.lost.as_ref().unwrap().words().contains("header is lost"));
            drop(o);
            let o = Journal::open(&path, "1", 2, "r", 99, SYNC, &syncer).unwrap();
            assert_eq!((o.lost, o.header.epoch_unix_ms), (None, 77), "{damage}");
            std::fs::remove_file(&path).unwrap();
        }
        // A journal of a version this daemon does not read is refused, not set aside.
        let header = r#"{"journal":99,"board":"1","round":2,"epoch_unix_ms":5}"#;
        std::fs::write(&path, format!("{header}\n{header}\n")).unwrap();
        let e = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap_err();
        assert!(e.to_string().contains("journal version 99"), "{e}");
    }

    #[test]
    fn an_empty_journal_says_so() {
        let syncer = syncer();
        let path = temp("empty.jsonl");
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.lost, None, "a journal that was not there is new");
        drop(o);
        std::fs::write(&path, "").unwrap();
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.lost, Some(Lost::Empty));
        assert!(o.records.is_empty());
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.lost, None);
    }

    #[test]
    fn a_version_1_journal_without_framing_is_still_read() {
        let syncer = syncer();
        let path = temp("v1.jsonl");
        let header = r#"{"journal":1,"board":"1","round":2,"epoch_unix_ms":5,"rules":"r"}"#;
        let rec = serde_json::to_string(&event(1)).unwrap();
        std::fs::write(&path, format!("{header}\n{rec}\n")).unwrap();
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, vec![event(1)]);
        o.journal.append(&event(2), Durability::Soon).unwrap();
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, vec![event(1), event(2)]);
    }

    #[test]
    fn a_deleted_journal_folder_is_recreated_with_every_record() {
        let syncer = syncer();
        let dir = temp("gone");
        let path = dir.join("round-2/board-1.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        o.journal.append(&event(1), Durability::Soon).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        // Written into the deleted file, still open; the once-a-second check finds it
        // gone and copies both into a new one.
        o.journal.append(&event(2), Durability::Soon).unwrap();
        assert_eq!(o.journal.take_moved(), None);
        o.journal.retry().unwrap();
        assert_eq!(o.journal.take_moved(), Some(crash_safe::Moved::Deleted));
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, vec![event(1), event(2)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_long_run_of_ride_alongs_alone_is_written_a_writev_at_a_time_and_none_is_dropped() {
        let syncer = syncer();
        let path = temp("g.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        let n = 200_000u64;
        for t in 0..n {
            o.journal.append(&event(t), Durability::Later).unwrap();
            assert!(o.journal.waiting() < crash_safe::WRITE_LINES_MAX);
        }
        assert_eq!(o.journal.dropped(), 0);
        o.journal.sync().unwrap();
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records.len() as u64, n);
        assert_eq!(o.records.last(), Some(&event(n - 1)));
    }

    #[test]
    fn ride_alongs_wait_for_the_next_write_and_keep_their_order() {
        let syncer = syncer();
        let path = temp("f.jsonl");
        let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().count();
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        o.journal.append(&event(1), Durability::Later).unwrap();
        o.journal.append(&event(2), Durability::Later).unwrap();
        assert_eq!(lines(&path), 1, "only the header: the ride-alongs wait");
        assert_eq!(o.journal.written(), 0);
        assert!(o.journal.unsynced(), "waiting records wait for a sync too");
        // The next record takes them along, before itself.
        o.journal.append(&event(3), Durability::Soon).unwrap();
        assert_eq!(lines(&path), 4);
        assert_eq!(o.journal.written(), 3);
        // Written on demand (the tracker decided something on it) ...
        o.journal.append(&event(4), Durability::Later).unwrap();
        o.journal.write_pending().unwrap();
        assert_eq!(lines(&path), 5);
        o.journal.write_pending().unwrap();
        // ... or by the board's once-a-second retry.
        o.journal.append(&event(5), Durability::Later).unwrap();
        o.journal.retry().unwrap();
        assert_eq!(lines(&path), 6);
        // And at shutdown.
        o.journal.append(&event(6), Durability::Later).unwrap();
        o.journal.sync().unwrap();
        assert!(!o.journal.unsynced());
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, (1..=6).map(event).collect::<Vec<_>>());
        assert!(o.skipped.is_empty() && o.repaired.is_none());
    }

    /// A folder renamed away keeps the file's link, so only the full check (before an
    /// urgent record) sees that the path is not the file any more.
    #[test]
    fn a_renamed_journal_folder_is_found_before_the_next_press() {
        let syncer = syncer();
        let dir = temp("moved");
        let path = dir.join("round-2/board-1.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        o.journal.append(&event(1), Durability::Soon).unwrap();
        let aside = temp("moved-aside");
        let _ = std::fs::remove_dir_all(&aside);
        std::fs::rename(&dir, &aside).unwrap();
        o.journal.append(&event(2), Durability::Soon).unwrap();
        assert!(
            !o.journal.was_moved(),
            "a field update does not stat the path"
        );
        o.journal
            .append(&Record::Timeout { t_ms: 3 }, Durability::Now)
            .unwrap();
        assert_eq!(o.journal.take_moved(), Some(crash_safe::Moved::Deleted));
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(
            o.records,
            vec![event(1), event(2), Record::Timeout { t_ms: 3 }]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&aside).unwrap();
    }

    /// A real full disk: a small tmpfs (mounted when the test runs as root, as in CI)
    /// fills mid-game; the records of the spell wait and reach the journal, in order,
    /// once space returns.
    #[test]
    fn records_of_a_disk_full_spell_reach_the_journal_when_space_returns() {
        let dir = temp("tmpfs");
        std::fs::create_dir_all(&dir).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
            .arg(&*dir)
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            if std::env::var_os("DGT_REQUIRE_TMPFS").is_some() {
                panic!("cannot mount a tmpfs (DGT_REQUIRE_TMPFS is set)");
            }
            println!(
                "skipped: cannot mount a tmpfs here (not root?); the disk-full test did not run"
            );
            return;
        }
        struct Unmount(PathBuf);
        impl Drop for Unmount {
            fn drop(&mut self) {
                let _ = std::process::Command::new("umount").arg(&self.0).status();
            }
        }
        let _unmount = Unmount(dir.clone());
        let syncer = syncer();
        let path = dir.join("board-1.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        for t in 0..10 {
            o.journal.append(&event(t), Durability::Soon).unwrap();
        }
        // Fill the disk.
        let filler = dir.join("filler");
        {
            let mut f = File::create(&filler).unwrap();
            let block = vec![7u8; 4096];
            while f.write_all(&block).is_ok() {}
            // Whatever byte is left.
            while f.write_all(&[7]).is_ok() {}
        }
        let mut failed = 0;
        for t in 10..60 {
            if o.journal.append(&event(t), Durability::Now).is_err() {
                failed += 1;
            }
        }
        assert!(failed > 0, "the disk never refused a write");
        assert!(o.journal.waiting() > 0);
        assert!(o.journal.retry().is_err(), "still full");
        std::fs::remove_file(&filler).unwrap();
        o.journal.retry().unwrap();
        assert_eq!(o.journal.waiting(), 0);
        assert_eq!(o.journal.dropped(), 0);
        o.journal.append(&event(60), Durability::Soon).unwrap();
        drop(o);
        let o = Journal::open(&path, "1", 2, "r", 0, SYNC, &syncer).unwrap();
        assert_eq!(o.records, (0..=60).map(event).collect::<Vec<_>>());
        assert!(o.skipped.is_empty() && o.repaired.is_none(), "no torn line");
    }

    #[tokio::test]
    async fn timed_syncs_come_within_the_window_and_ride_alongs_with_the_next_sync() {
        let syncer = syncer();
        let path = temp("d.jsonl");
        let window = Duration::from_millis(20);
        let mut o = Journal::open(&path, "1", 2, "r", 0, window, &syncer).unwrap();
        o.journal.append(&event(1), Durability::Later).unwrap();
        o.journal.append(&event(2), Durability::Soon).unwrap();
        let waited = tokio::time::timeout(
            Duration::from_secs(5),
            o.journal.synced.wait_for(|s| *s >= 2),
        )
        .await
        .is_ok();
        assert!(waited, "the window's sync never came");
        o.journal.append(&event(3), Durability::Later).unwrap();
        // Nothing syncs a ride-along on its own...
        tokio::time::sleep(window * 3).await;
        assert!(o.journal.unsynced());
        // ... the next sync takes it along.
        o.journal
            .append(&Record::Timeout { t_ms: 4 }, Durability::Now)
            .unwrap();
        o.journal.durable().await;
        assert!(!o.journal.unsynced());
        assert_eq!(*o.journal.synced.borrow(), 4);
    }

    fn entry(name: &str) -> Arc<Entry> {
        let path = temp(name);
        // The queue compares paths only; the open file outlives its unlinked name.
        let (e, _) = Entry::new(File::create(&path).unwrap(), path.to_path_buf(), 0);
        e.written.store(1, AtomicOrdering::Release);
        Arc::new(e)
    }

    fn synced_entry(job: Job) -> Option<PathBuf> {
        match job {
            Job::Sync(e) => Some(e.path.clone()),
            _ => None,
        }
    }

    #[test]
    fn urgent_syncs_go_first_and_reserved_threads_take_nothing_else() {
        let shared = Shared::default();
        let (timed, urgent) = (entry("q1.jsonl"), entry("q2.jsonl"));
        // A timed sync falls due first, then a press arrives.
        shared.soon(&timed, Duration::ZERO);
        let due = Instant::now() + Duration::from_millis(1);
        shared.now(&urgent);
        let mut q = shared.lock();
        // Every thread takes the urgent sync before the timed one already due...
        assert_eq!(
            synced_entry(q.next_job(false, due)),
            Some(urgent.path.clone())
        );
        assert!(!urgent.queued_now.load(AtomicOrdering::Relaxed));
        // ... and a reserved thread never takes a timed sync, so it is free for the next
        // press however long the timed syncs take.
        assert!(matches!(q.next_job(true, due), Job::Wait(None)));
        assert_eq!(
            synced_entry(q.next_job(false, due)),
            Some(timed.path.clone())
        );
        assert!(matches!(q.next_job(false, due), Job::Wait(None)));
        drop(q);
        // A timed sync not yet due makes a thread wait until it is.
        shared.soon(&timed, Duration::from_secs(60));
        assert!(matches!(
            shared.lock().next_job(false, Instant::now()),
            Job::Wait(Some(_))
        ));
        shared.lock().stop = true;
        assert!(matches!(shared.lock().next_job(true, due), Job::Stop));
    }

    #[test]
    fn kernel_releases_are_read_for_their_version() {
        assert_eq!(release_major_minor("5.8.0-63-generic"), Some((5, 8)));
        assert_eq!(release_major_minor("6.18.44-fc-v1045"), Some((6, 18)));
        assert_eq!(release_major_minor("4.19"), Some((4, 19)));
        assert_eq!(release_major_minor("weird"), None);
        assert!((4, 19) < (5, 8) && (5, 10) >= (5, 8));
    }

    #[test]
    fn due_timed_syncs_are_synced_together_with_the_others_waiting() {
        if !syncfs_reports_errors() {
            return; // an old kernel: journals are synced one by one, as tested elsewhere
        }
        let shared = Shared::default();
        let entries: Vec<_> = (0..GROUP_SYNC_MIN)
            .map(|i| entry(&format!("g{i}.jsonl")))
            .collect();
        shared.soon(&entries[0], Duration::ZERO);
        for e in &entries[1..] {
            shared.soon(e, Duration::from_secs(60));
        }
        let due = Instant::now() + Duration::from_millis(1);
        // A reserved thread stays free for presses.
        assert!(matches!(shared.lock().next_job(true, due), Job::Wait(None)));
        let job = shared.lock().next_job(false, due);
        let Job::SyncTogether(all) = job else {
            panic!("not synced together: {job:?}")
        };
        assert_eq!(all.len(), GROUP_SYNC_MIN, "the ones not due yet come along");
        assert!(all
            .iter()
            .all(|e| !e.queued_soon.load(AtomicOrdering::Relaxed)));
        assert!(matches!(
            shared.lock().next_job(false, due),
            Job::Wait(None)
        ));
        sync_together(&all);
        for e in &entries {
            assert_eq!(*e.synced.borrow(), 1, "{} synced", e.path.display());
        }
        // Fewer waiting: one at a time, as before.
        shared.soon(&entries[0], Duration::ZERO);
        shared.soon(&entries[1], Duration::from_secs(60));
        let due = Instant::now() + Duration::from_millis(1);
        assert!(matches!(shared.lock().next_job(false, due), Job::Sync(_)));
    }

    #[tokio::test]
    async fn a_zero_window_syncs_every_record_before_it_is_acted_on() {
        let syncer = syncer();
        let path = temp("e.jsonl");
        let mut o = Journal::open(&path, "1", 2, "r", 0, Duration::ZERO, &syncer).unwrap();
        o.journal.append(&event(1), Durability::Later).unwrap();
        o.journal.durable().await;
        assert!(!o.journal.unsynced());
    }
}
