//! Sinks: where the hub's decisions end up. File sinks ([`jsonl`], [`pgn`],
//! [`livechess`]) catch up from the hub's log and game records whenever it changes (in a
//! batch after a short pause), on the blocking pool, and once more at shutdown; so they
//! never miss an event and rebuild their files from state. [`log`] follows the live
//! stream.

pub mod jsonl;
pub mod livechess;
pub mod log;
pub mod pgn;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::public::Public;
use arbiter_hub::{GamesView, Hub};

/// Where a file sink takes its games from: the hub (the live round) or the public view
/// (the delayed round, [`crate::public`]).
pub trait GamesSource {
    /// Each board's games version.
    fn versions(&self) -> std::collections::BTreeMap<u32, u64>;
    /// Every board's games, in number order.
    fn games(&self) -> Vec<GamesView>;
}

impl GamesSource for Hub {
    fn versions(&self) -> std::collections::BTreeMap<u32, u64> {
        Hub::versions(self)
    }
    fn games(&self) -> Vec<GamesView> {
        Hub::games(self)
    }
}

impl GamesSource for Public {
    fn versions(&self) -> std::collections::BTreeMap<u32, u64> {
        Public::versions(self)
    }
    fn games(&self) -> Vec<GamesView> {
        Public::games(self)
    }
}

/// Which round a sink writes, chosen where the sink is registered ([`run`]), never by the
/// sink: the arbiter's files follow the live round, the public files (PGN, LiveChess
/// folder) the delayed public view. Sinks read state views (the log, the games), not the
/// event stream, so a sink woken late or twice writes the same files.
#[derive(Clone)]
pub enum Round {
    /// The hub's games, as decided.
    Live,
    /// The public view's games: the broadcast delay, boards off the air.
    Delayed(Arc<Public>),
}

/// A file sink: brings its files up to date with the round it was registered for.
pub trait Sink: Send + 'static {
    /// For logs.
    fn name(&self) -> &'static str;
    /// Writes what changed since the last call: `live` is the hub (its event log, always
    /// live), `games` the games of the sink's [`Round`]. Blocking IO; runs on the blocking
    /// pool.
    fn update(&mut self, live: &Hub, games: &dyn GamesSource) -> std::io::Result<()>;
    /// Makes everything written so far durable; called after the last update.
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How long a sink lets changes gather before it writes (a move comes as a burst of
/// events; files are rewritten once for it).
pub const BATCH: Duration = Duration::from_millis(50);

/// A sink pauses at least this many times as long as its last update kept its thread on
/// a CPU, so that however many boards there are, a sink keeps at most a fiftieth of a
/// core busy; its files then lag a little more behind a busy hall, and a board that
/// changed several times meanwhile is written once. CPU time, not wall time: on a busy
/// machine an update waits for a CPU and the disk much longer than it computes, and
/// pacing by wall time let the folders of 1,000 boards lag 20 s behind. At 1,000 boards
/// at ten times tournament pace an update of the PGN folder costs about 55 ms of CPU
/// (spare files, `crash_safe::RebuiltFiles`), so the folders lag about 3 s behind; a fifth
/// and then a twentieth of a core each for the PGN and LiveChess sinks was most of what
/// the daemon spent beyond the boards themselves (docs/performance.md).
const PAUSE_PER_UPDATE: u32 = 49;

/// Runs a sink on `round` until `stop` turns true, then brings it up to date one last
/// time. It subscribes to the round's changes when called, before the future runs: a
/// change made after this call is never missed.
pub fn run(
    sink: Box<dyn Sink>,
    round: Round,
    hub: Arc<Hub>,
    stop: watch::Receiver<bool>,
) -> impl std::future::Future<Output = ()> + Send {
    let changed = match &round {
        Round::Live => hub.changed(),
        Round::Delayed(public) => public.changed(),
    };
    run_on(sink, round, hub, changed, stop)
}

/// [`run`], woken by `changed`.
async fn run_on(
    mut sink: Box<dyn Sink>,
    round: Round,
    hub: Arc<Hub>,
    mut changed: watch::Receiver<u64>,
    mut stop: watch::Receiver<bool>,
) {
    let name = sink.name();
    let mut pause = BATCH;
    loop {
        let stopping = *stop.borrow_and_update()
            || tokio::select! {
                r = changed.changed() => r.is_err(),
                r = stop.changed() => r.is_err() || *stop.borrow_and_update(),
            };
        if !stopping {
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                // Stopping cuts the pause short; the last update follows at once.
                _ = stop.changed() => {}
            }
        }
        changed.borrow_and_update();
        let h = Arc::clone(&hub);
        let r = round.clone();
        let done = tokio::task::spawn_blocking(move || {
            let games: &dyn GamesSource = match &r {
                Round::Live => h.as_ref(),
                Round::Delayed(public) => public.as_ref(),
            };
            let started = std::time::Instant::now();
            let cpu_before = thread_cpu_time();
            // The last update leaves durable files behind (rebuilt files are not synced
            // one by one: `crash_safe::RebuiltFiles`).
            let r = sink
                .update(&h, games)
                .and_then(|()| if stopping { sink.sync() } else { Ok(()) });
            let took = started.elapsed();
            let cpu = match (cpu_before, thread_cpu_time()) {
                (Some(a), Some(b)) => b.saturating_sub(a),
                _ => took,
            };
            (sink, r, took, cpu)
        })
        .await;
        match done {
            Ok((s, r, took, cpu)) => {
                sink = s;
                pause = BATCH.max(cpu * PAUSE_PER_UPDATE);
                tracing::debug!(
                    sink = name,
                    took_ms = took.as_secs_f64() * 1e3,
                    cpu_ms = cpu.as_secs_f64() * 1e3,
                    pause_ms = pause.as_millis() as u64,
                    "files updated"
                );
                if let Err(e) = r {
                    tracing::error!(sink = name, "cannot write: {e}");
                }
            }
            Err(e) => {
                tracing::error!(sink = name, "the sink failed: {e}");
                return;
            }
        }
        if stopping {
            return;
        }
    }
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`); `None` where
/// the kernel does not say.
fn thread_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A sink that writes down what the runner asks of it.
    struct Calls(Arc<Mutex<Vec<&'static str>>>);

    impl Sink for Calls {
        fn name(&self) -> &'static str {
            "calls"
        }
        fn update(&mut self, _: &Hub, _: &dyn GamesSource) -> std::io::Result<()> {
            self.0.lock().unwrap().push("update");
            Ok(())
        }
        fn sync(&mut self) -> std::io::Result<()> {
            self.0.lock().unwrap().push("sync");
            Ok(())
        }
    }

    #[tokio::test]
    async fn the_last_update_at_shutdown_is_synced_and_no_other() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let hub = Arc::new(Hub::new([1]));
        let (stop, stop_rx) = watch::channel(false);
        let (change, changed) = watch::channel(0u64);
        let task = tokio::spawn(run_on(
            Box::new(Calls(Arc::clone(&calls))),
            Round::Live,
            hub,
            changed,
            stop_rx,
        ));
        change.send(1).unwrap();
        while calls.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        stop.send(true).unwrap();
        task.await.unwrap();
        assert_eq!(*calls.lock().unwrap(), ["update", "update", "sync"]);
    }

    #[test]
    fn the_thread_cpu_clock_counts_work_not_sleep() {
        let Some(before) = thread_cpu_time() else {
            return; // No such clock here: the sinks pace by wall time.
        };
        std::thread::sleep(Duration::from_millis(30));
        let slept = thread_cpu_time().unwrap() - before;
        let mut x = 0u64;
        let t0 = std::time::Instant::now();
        while t0.elapsed() < Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let worked = thread_cpu_time().unwrap() - before - slept;
        assert!(slept < Duration::from_millis(15), "slept {slept:?}");
        assert!(worked > slept, "worked {worked:?}, slept {slept:?}");
    }
}
