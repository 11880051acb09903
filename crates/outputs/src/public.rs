//! [`Public`]: the round as the public may see it now, and the one place that decides
//! it. The hub's events go through a [`DelayedView`] (the broadcast delay, boards off
//! the air, results only: `[broadcast]`) and are folded into games exactly as the hub
//! folds them; every public output (the PGN files, the LiveChess folder, the public HTTP
//! routes, the push) is made from these games. The arbiter's outputs (the JSON events,
//! `/events`, the dashboard) read the hub and stay real time.
//!
//! With no delay and every board on the air the public games are the hub's, byte for
//! byte. After a restart the view is rebuilt from the events the journal regenerates
//! (same `seq`, same wall-clock time); the last published `seq` of each board is kept in
//! `broadcast/round-R-published.json`, so nothing published before is held back again
//! even if the wall clock went back.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use broadcast_delay::{Air, DelayedView};
use tokio::sync::watch;

use arbiter_hub::{GamesView, Hub};
use daemon_config::Config;
use game_record::games::BoardGames;

struct PublicBoard {
    version: u64,
    games: Arc<BoardGames>,
}

struct State {
    view: DelayedView,
    /// How much of the hub's log has been fed to the view.
    read: usize,
    boards: BTreeMap<u32, PublicBoard>,
    /// Closed at shutdown: nothing more is published in this run.
    closed: bool,
}

/// See the module documentation. Shared as `Arc<Public>`.
pub struct Public {
    state: Mutex<State>,
    changed: watch::Sender<u64>,
    /// Where the published marks are kept (`None`: not kept, in tests).
    marks: Option<PathBuf>,
    /// The marks as last written there.
    saved: Mutex<BTreeMap<u32, u64>>,
}

impl Public {
    /// The public view of `config`'s round; with `marks`, restores how far each board
    /// was published before (a missing or unreadable file: nothing was).
    pub fn new(config: &Config, marks: Option<PathBuf>) -> Public {
        let mut view = DelayedView::new(config.broadcast.policy(&config.boards));
        if let Some(path) = &marks {
            for (board, seq) in read_marks(path) {
                view.restore_released(board, seq);
            }
        }
        // The comments in the event's language, as the hub's.
        let games = Arc::new(
            BoardGames::default().speaking(messages::Messages::new(config.event.language)),
        );
        let boards = config
            .boards
            .iter()
            .map(|b| {
                (
                    b.number,
                    PublicBoard {
                        version: 0,
                        games: Arc::clone(&games),
                    },
                )
            })
            .collect();
        Public {
            state: Mutex::new(State {
                view,
                read: 0,
                boards,
                closed: false,
            }),
            changed: watch::channel(0).0,
            marks,
            saved: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the public sees everything at once (no delay, every board on the air).
    pub fn is_live(&self) -> bool {
        self.lock().view.policy().is_live()
    }

    /// Whether board `number`'s moves are published.
    pub fn on_air(&self, number: u32) -> bool {
        self.lock().view.policy().air(number) == Air::On
    }

    /// Feeds the hub's new events and publishes what is due at `now_ms` (Unix ms).
    /// Returns true when a public game changed.
    pub fn refresh(&self, hub: &Hub, now_ms: u64) -> bool {
        let changed = {
            let mut st = self.lock();
            if st.closed {
                return false;
            }
            for e in hub.events_since(st.read) {
                st.read += 1;
                st.view.push(e.board, e.seq, e.wall_ms, e.event.clone());
            }
            let mut changed = false;
            for r in st.view.release(now_ms) {
                if let Some(b) = st.boards.get_mut(&r.board) {
                    if Arc::make_mut(&mut b.games).apply(&r.event) {
                        b.version += 1;
                        changed = true;
                    }
                }
            }
            changed
        };
        if changed {
            self.changed.send_modify(|n| *n += 1);
        }
        changed
    }

    /// When (Unix ms) the next held event becomes public.
    pub fn next_due(&self) -> Option<u64> {
        self.lock().view.next_due()
    }

    /// Every board's public games with their version, in number order.
    pub fn games(&self) -> Vec<GamesView> {
        self.lock()
            .boards
            .iter()
            .map(|(n, b)| GamesView {
                number: *n,
                version: b.version,
                games: Arc::clone(&b.games),
            })
            .collect()
    }

    /// Each board's public games version.
    pub fn versions(&self) -> BTreeMap<u32, u64> {
        self.lock()
            .boards
            .iter()
            .map(|(n, b)| (*n, b.version))
            .collect()
    }

    /// One board's public games.
    pub fn board(&self, number: u32) -> Option<Arc<BoardGames>> {
        self.lock()
            .boards
            .get(&number)
            .map(|b| Arc::clone(&b.games))
    }

    /// A counter bumped whenever a public game changes.
    pub fn changed(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Closes every running public game as unfinished (the daemon stops), as the hub
    /// does its own; nothing more is published in this run (held events come out after
    /// the restart).
    pub fn close_unfinished(&self, why: &str) {
        let mut any = false;
        {
            let mut st = self.lock();
            st.closed = true;
            for b in st.boards.values_mut() {
                if Arc::make_mut(&mut b.games).close_unfinished(why) {
                    b.version += 1;
                    any = true;
                }
            }
        }
        if any {
            self.changed.send_modify(|n| *n += 1);
        }
    }

    /// Writes how far each board was published, if it changed since the last write;
    /// returns whether it wrote. Blocking IO (a file sync). The daemon's shutdown calls it
    /// once more after the last publication.
    pub fn save_marks(&self) -> bool {
        let Some(path) = &self.marks else {
            return false;
        };
        let marks = self.lock().view.released();
        let mut saved = self.saved.lock().unwrap_or_else(|p| p.into_inner());
        if marks == *saved {
            return false;
        }
        let text = serde_json::to_string(&marks).unwrap_or_default();
        match crash_safe::write_atomic(path, text.as_bytes()) {
            Ok(()) => {
                *saved = marks;
                true
            }
            Err(e) => {
                tracing::warn!("cannot write {}: {e}", path.display());
                false
            }
        }
    }
}

fn read_marks(path: &std::path::Path) -> BTreeMap<u32, u64> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!(
                "{}: not a list of published marks ({e}); publishing by the delay alone",
                path.display()
            );
            BTreeMap::new()
        }),
        Err(_) => BTreeMap::new(),
    }
}

/// Longest sleep between two looks at the clock (a wall clock stepped forward is
/// noticed this soon).
const MAX_TICK: Duration = Duration::from_secs(1);

/// How often at most the published marks are written (and so within twice this, the
/// follower waking at least every [`MAX_TICK`]). Each write is a file sync, and at 1,000
/// boards the marks change every few ms: written at each change they were 12% of the
/// daemon's CPU (docs/performance.md). What a crash can cost: marks up to 2 s old,
/// so that after a restart with the wall clock set back, up to this much of what was
/// published is held back again until its delay has passed by the new clock (with the
/// clock right, the delay releases it again at once).
const MARKS_EVERY: Duration = Duration::from_secs(1);

/// Keeps the public view current: on every change of the hub and whenever a held event
/// comes due. Runs until aborted.
pub async fn follow(public: Arc<Public>, hub: Arc<Hub>) {
    let mut changed = hub.changed();
    let mut saved_at: Option<std::time::Instant> = None;
    loop {
        let now = wall_clock::unix_ms_now();
        public.refresh(&hub, now);
        let since_saved = saved_at.map_or(MARKS_EVERY, |t| t.elapsed());
        if since_saved >= MARKS_EVERY {
            let p = Arc::clone(&public);
            if let Ok(true) = tokio::task::spawn_blocking(move || p.save_marks()).await {
                saved_at = Some(std::time::Instant::now());
            }
        }
        let wait = public
            .next_due()
            .map_or(MAX_TICK, |due| {
                Duration::from_millis(due.saturating_sub(wall_clock::unix_ms_now()))
            })
            // At least once a second: marks that changed meanwhile are written then.
            .min(MAX_TICK);
        tokio::select! {
            r = changed.changed() => {
                if r.is_err() {
                    return;
                }
            }
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sinks::pgn::{render_round, tests as pgn_tests};

    fn config(extra: &str, board2: &str) -> Config {
        let text = format!(
            "[event]\nname = \"Open\"\nsite = \"Hall\"\ndate = \"2025-06-12\"\nround = 3\n\
             time_control = \"900+10\"\n[output]\ndir = \"/tmp/x\"\n{extra}\n\
             [[board]]\nnumber = 1\nport = \"/dev/null\"\nwhite = \"Morphy, Paul\"\nblack = \"Anderssen, Adolf\"\n\
             [[board]]\nnumber = 2\nport = \"/dev/zero\"\n{board2}\n"
        );
        Config::parse(&text, std::path::Path::new("t.toml")).unwrap()
    }

    #[test]
    fn no_delay_gives_the_hubs_games() {
        let config = pgn_tests::config();
        let hub = pgn_tests::hub();
        let public = Public::new(&config, None);
        assert!(public.is_live());
        assert!(public.refresh(&hub, 0));
        assert_eq!(
            render_round(&config, &public.games()),
            render_round(&config, &hub.games())
        );
        hub.close_unfinished("stopped");
        public.close_unfinished("stopped");
        assert_eq!(
            render_round(&config, &public.games()),
            render_round(&config, &hub.games())
        );
    }

    #[test]
    fn a_delay_holds_the_moves_back() {
        let config = config("[broadcast]\ndelay = \"3s\"\n", "");
        let hub = pgn_tests::hub();
        let first = hub.events_since(0)[0].wall_ms;
        let public = Public::new(&config, None);
        assert!(!public.is_live());
        assert!(!public.refresh(&hub, first + 2_999));
        assert!(public.board(1).unwrap().current().moves.is_empty());
        assert_eq!(public.next_due(), Some(first + 3_000));
        assert!(public.refresh(&hub, first + 3_000));
        assert_eq!(public.board(1).unwrap().current().moves.len(), 2);
        public.refresh(&hub, first + 60_000);
        assert_eq!(
            public.board(1).unwrap().games,
            hub.board(1).unwrap().games.games
        );
    }

    #[test]
    fn a_board_off_the_air_shows_its_pairing_only() {
        let config = config("", "broadcast = false\n");
        // Board 2 is off the air: give it board 1's moves.
        let hub = Hub::new([1, 2]);
        let mut events: Vec<_> = pgn_tests::hub()
            .events_since(0)
            .iter()
            .map(|e| (**e).clone())
            .collect();
        for e in &mut events {
            e.board = 2;
            e.event.board = "2".into();
        }
        hub.publish(events);
        let public = Public::new(&config, None);
        assert!(!public.on_air(2));
        public.refresh(&hub, u64::MAX);
        let round = render_round(&config, &public.games());
        assert!(!round.contains("e4"), "{round}");
        assert!(round.contains("[Board \"2\"]"), "{round}");
    }

    #[test]
    fn published_marks_survive_a_restart() {
        let dir = std::env::temp_dir().join(format!("arbiter-public-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let marks = dir.join("published.json");
        let config = config("[broadcast]\ndelay = \"1h\"\n", "");
        let hub = pgn_tests::hub();
        let first = hub.events_since(0)[0].wall_ms;
        let public = Public::new(&config, Some(marks.clone()));
        public.refresh(&hub, first + 3_600_000);
        let shown = public.board(1).unwrap().current().moves.len();
        assert!(shown >= 1);
        assert!(public.save_marks());
        assert!(
            !public.save_marks(),
            "unchanged marks are not written again"
        );
        // Restarted with the wall clock an hour behind: what was published stays.
        let again = Public::new(&config, Some(marks));
        again.refresh(&hub, first);
        assert_eq!(again.board(1).unwrap().current().moves.len(), shown);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
