//! The syncer: group commit of the journals' `fdatasync`s on threads of their own, urgent
//! records first, so board tasks never block on the disk.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::*;

/// Group commit: a few threads that `fdatasync` every journal that asks, so that board
/// tasks never block on the disk and records that gather while a sync runs share the
/// next one. Cheap to clone; the threads stop when the last clone (every journal holds
/// one) is dropped.
#[derive(Debug, Clone)]
pub struct Syncer(pub(crate) Arc<SyncerOwner>);

#[derive(Debug)]
pub(crate) struct SyncerOwner {
    pub(crate) shared: Arc<Shared>,
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
pub(crate) struct Entry {
    /// The journal's file: the board's task appends, the syncer syncs.
    pub(crate) file: File,
    pub(crate) path: PathBuf,
    /// Records written so far (the journal sets it after each `write(2)`).
    pub(crate) written: AtomicU64,
    /// Records synced (or whose sync failed) so far.
    pub(crate) synced: watch::Sender<u64>,
    /// In the queue of urgent syncs (changed under the queue's lock).
    pub(crate) queued_now: AtomicBool,
    /// In the queue of timed syncs (changed under the queue's lock).
    pub(crate) queued_soon: AtomicBool,
    /// The last sync failed (logged once until one succeeds).
    pub(crate) failing: AtomicBool,
    /// The file's device and inode: compared with its path's without an `fstat`, and
    /// the device (its file system) says which journals one `syncfs` covers.
    pub(crate) id: Option<crash_safe::FileId>,
}

impl Entry {
    /// The entry of `file`, of which `written` records are durable already.
    pub(crate) fn new(file: File, path: PathBuf, written: u64) -> (Entry, watch::Receiver<u64>) {
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
    pub(crate) fn to_sync(&self) -> u64 {
        let written = self.written.load(AtomicOrdering::Acquire);
        if *self.synced.borrow() >= written {
            0
        } else {
            written
        }
    }

    /// Syncs what has been written, unless an earlier sync covered it.
    pub(crate) fn sync(&self) {
        let written = self.to_sync();
        if written == 0 {
            return;
        }
        let r = self.file.sync_data();
        self.done(written, r);
    }

    /// A sync covering the first `written` records ended with `r`.
    pub(crate) fn done(&self, written: u64, r: io::Result<()>) {
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
pub(crate) const GROUP_SYNC_MIN: usize = 4;

/// Syncs `entries` together: one `syncfs` for each file system with at least
/// [`GROUP_SYNC_MIN`] of them to sync, an `fdatasync` each for the others. A failed
/// `syncfs` says only that some file of the file system failed: each of its journals is
/// then synced on its own, so that each learns its own error.
pub(crate) fn sync_together(entries: &[Arc<Entry>]) {
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
pub(crate) fn syncfs_reports_errors() -> bool {
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
pub(crate) fn kernel_release() -> Option<String> {
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
pub(crate) fn release_major_minor(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// `syncfs(2)` of the file system `file` is on.
pub(crate) fn syncfs(file: &File) -> io::Result<()> {
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
pub(crate) struct Timed {
    pub(crate) at: Instant,
    pub(crate) entry: Arc<Entry>,
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
pub(crate) struct Queues {
    pub(crate) now: VecDeque<Arc<Entry>>,
    pub(crate) soon: BinaryHeap<Timed>,
    /// Threads of each kind waiting for work (only then is a wake-up worth a syscall).
    pub(crate) idle_urgent: usize,
    pub(crate) idle_any: usize,
    pub(crate) stop: bool,
}

/// What a syncer thread does next.
#[derive(Debug)]
pub(crate) enum Job {
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
    pub(crate) fn next_job(&mut self, urgent_only: bool, now: Instant) -> Job {
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
pub(crate) struct Shared {
    pub(crate) queues: Mutex<Queues>,
    /// Wakes a thread that takes urgent syncs only.
    pub(crate) wake_urgent: Condvar,
    /// Wakes a thread that takes any sync.
    pub(crate) wake_any: Condvar,
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Queues> {
        // The queues stay consistent whatever panicked while holding the lock.
        self.queues.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues an urgent sync of `entry`.
    pub(crate) fn now(&self, entry: &Arc<Entry>) {
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
    pub(crate) fn soon(&self, entry: &Arc<Entry>, window: Duration) {
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
    pub(crate) fn work(&self, urgent_only: bool) {
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
