//! The journal's tests: records written, read back, torn, damaged, moved, synced.

use super::*;
use dgt_protocol::BoardEvent;
use std::fs::File;
use std::time::Instant;

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
        println!("skipped: cannot mount a tmpfs here (not root?); the disk-full test did not run");
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            // Lazily: the syncer's threads may still hold the file open for a moment,
            // and a busy mount left behind is one more on the machine each run.
            let _ = std::process::Command::new("umount")
                .arg("-l")
                .arg(&self.0)
                .status();
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
