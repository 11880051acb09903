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

use crate::hub::{GamesView, Hub};
use crate::public::Public;

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

/// A file sink: brings its files up to date with the hub.
pub trait Sink: Send + 'static {
    /// For logs.
    fn name(&self) -> &'static str;
    /// Writes what changed since the last call. Blocking IO; runs on the blocking pool.
    fn update(&mut self, hub: &Hub) -> std::io::Result<()>;
}

/// How long a sink lets changes gather before it writes (a move comes as a burst of
/// events; files are rewritten once for it).
pub const BATCH: Duration = Duration::from_millis(50);

/// A sink pauses at least this many times as long as its last update took, so that
/// however many boards there are, a sink keeps at most a fifth of a core busy (its files
/// then lag a little more behind a busy hall).
const PAUSE_PER_UPDATE: u32 = 4;

/// Runs a sink until `stop` turns true, then brings it up to date one last time.
pub async fn run(sink: Box<dyn Sink>, hub: Arc<Hub>, stop: watch::Receiver<bool>) {
    let changed = hub.changed();
    run_on(sink, hub, changed, stop).await
}

/// [`run`], woken by `changed` instead of the hub's changes (a sink of the public view
/// follows the view's changes).
pub async fn run_on(
    mut sink: Box<dyn Sink>,
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
        let done = tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            let r = sink.update(&h);
            (sink, r, started.elapsed())
        })
        .await;
        match done {
            Ok((s, r, took)) => {
                sink = s;
                pause = BATCH.max(took * PAUSE_PER_UPDATE);
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
