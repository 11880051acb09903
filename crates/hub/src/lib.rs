//! The [`Hub`]: the one place every board's decisions go. Board tasks publish their
//! [`HubEvent`]s and snapshots here; sinks and HTTP read from here, never from a tracker.
//!
//! - The event log of the round (every event in publication order, kept in memory: a
//!   round is a few hundred events per board) with a change counter ([`Hub::changed`]):
//!   file sinks catch up from the log, so they can never miss an event.
//! - A broadcast stream ([`Hub::subscribe`]) for live consumers that may lag and may lose
//!   events (logs, the demo's printer, SSE clients).
//! - Per board: the latest tracker [`Snapshot`], the driver's status and the games folded
//!   from its events ([`BoardGames`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use tokio::sync::{broadcast, oneshot, watch};
use touch_tracker::{ArbiterEvent, ArbiterInput, Decision, Snapshot};

use game_record::games::BoardGames;

pub mod commands;
pub mod decisions;
mod push_status;
pub mod serials;

pub use push_status::PushStatus;

/// How many events a live subscriber may fall behind before it loses some.
const STREAM_CAPACITY: usize = 4096;

/// One decision, as the sinks see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubEvent {
    /// Per board, from 1, in the order the board's tracker emitted them; stable across
    /// restarts (a resumed board regenerates the same events with the same numbers).
    pub seq: u64,
    pub board: u32,
    pub round: u32,
    /// Wall-clock time of the input that caused it (Unix ms).
    pub wall_ms: u64,
    /// Regenerated from the journal at start-up (already reported before the restart).
    pub replayed: bool,
    pub event: ArbiterEvent,
}

impl HubEvent {
    /// The event as one JSON line (formats.md §2) with the extension fields `seq`,
    /// `round` and `at` (RFC 3339 UTC).
    pub fn to_json(&self) -> String {
        // Appended to the tracker's own JSON so its field order stays as it is.
        let base = self.event.to_json();
        match base.strip_suffix('}') {
            Some(open) => format!(
                "{open},\"seq\":{},\"round\":{},\"at\":\"{}\"}}",
                self.seq,
                self.round,
                wall_clock::rfc3339(self.wall_ms)
            ),
            None => base,
        }
    }
}

/// What the hub knows about one board.
#[derive(Debug, Clone, Serialize)]
pub struct BoardView {
    pub number: u32,
    /// The tracker's latest view (`None` until the board task has started).
    pub snapshot: Option<Snapshot>,
    /// The driver's latest status.
    pub driver: Option<dgt_serial::BoardStatus>,
    /// Shared, so that a view is cheap to clone (sinks look at every board after each
    /// change); changed copy-on-write.
    #[serde(skip)]
    pub games: Arc<BoardGames>,
    /// The last event's `seq`.
    pub seq: u64,
    /// Bumped whenever `games` changes (sinks rewrite only changed boards).
    #[serde(skip)]
    pub version: u64,
}

/// What a board physically shows now and its clock's last reading: the LiveChess API's
/// feed (the daemon's `livechess_api`) sends one message per change of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Physical {
    /// The pieces as the board shows them (real squares: White at the bottom).
    pub placement: chess_rules::Placement,
    /// The clock's last frame and when it came (Unix ms).
    pub clock: Option<(dgt_protocol::ClockTime, u64)>,
}

/// A board's games as the file sinks see them (see [`Hub::games`]).
#[derive(Debug, Clone)]
pub struct GamesView {
    pub number: u32,
    /// [`BoardView::version`].
    pub version: u64,
    pub games: Arc<BoardGames>,
}

struct State {
    log: Vec<Arc<HubEvent>>,
    boards: BTreeMap<u32, BoardView>,
    controls: BTreeMap<u32, dgt_serial::BoardControl>,
    /// Problems of the daemon itself (a full disk, a deleted output folder), by key.
    warnings: BTreeMap<String, String>,
    /// The last push to a broadcast server (the daemon's `push`).
    push: Option<crate::PushStatus>,
    physical: BTreeMap<u32, Physical>,
}

/// How many daemon warnings the hub keeps (one per journal and sink at most).
pub const MAX_WARNINGS: usize = 256;

/// See the module documentation. Shared as `Arc<Hub>`.
pub struct Hub {
    state: Mutex<State>,
    stream: broadcast::Sender<Arc<HubEvent>>,
    changed: watch::Sender<u64>,
    /// The arbiter's commands to the running board tasks ([`crate::commands`]).
    pub commands: crate::commands::Commands,
    /// Bumped when a board's [`Physical`] state or driver status changes.
    physical_changed: watch::Sender<u64>,
}

impl Hub {
    /// A hub for these boards (by number), its games' comments in English.
    pub fn new(boards: impl IntoIterator<Item = u32>) -> Hub {
        Hub::speaking(boards, messages::Language::En)
    }

    /// A hub for these boards whose games' comments are in `language` (the event's).
    pub fn speaking(boards: impl IntoIterator<Item = u32>, language: messages::Language) -> Hub {
        let games = Arc::new(BoardGames::default().speaking(messages::Messages::new(language)));
        let boards = boards
            .into_iter()
            .map(|number| {
                (
                    number,
                    BoardView {
                        number,
                        snapshot: None,
                        driver: None,
                        games: Arc::clone(&games),
                        seq: 0,
                        version: 0,
                    },
                )
            })
            .collect();
        Hub {
            state: Mutex::new(State {
                log: Vec::new(),
                boards,
                controls: BTreeMap::new(),
                warnings: BTreeMap::new(),
                push: None,
                physical: BTreeMap::new(),
            }),
            stream: broadcast::channel(STREAM_CAPACITY).0,
            changed: watch::channel(0).0,
            commands: crate::commands::Commands::default(),
            physical_changed: watch::channel(0).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind: keep serving it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets (or with `None` clears) the warning under `key`: a problem of the daemon
    /// itself the dashboard shows until it is cleared. At most [`MAX_WARNINGS`] are kept.
    pub fn set_warning(&self, key: &str, text: Option<String>) {
        let mut state = self.lock();
        match text {
            Some(t) if state.warnings.len() < MAX_WARNINGS || state.warnings.contains_key(key) => {
                state.warnings.insert(key.to_owned(), t);
            }
            Some(_) => {}
            None => {
                state.warnings.remove(key);
            }
        }
    }

    /// The warnings now, by key.
    pub fn warnings(&self) -> Vec<(String, String)> {
        self.lock()
            .warnings
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Adds a board's events (in its order) to the log, its games and the stream.
    pub fn publish(&self, events: impl IntoIterator<Item = HubEvent>) {
        let events: Vec<Arc<HubEvent>> = events.into_iter().map(Arc::new).collect();
        if events.is_empty() {
            return;
        }
        {
            let mut st = self.lock();
            for e in &events {
                if let Some(b) = st.boards.get_mut(&e.board) {
                    b.seq = b.seq.max(e.seq);
                    if Arc::make_mut(&mut b.games).apply(&e.event) {
                        b.version += 1;
                    }
                }
                st.log.push(Arc::clone(e));
            }
        }
        for e in events {
            // No live subscriber is fine.
            let _ = self.stream.send(e);
        }
        self.changed.send_modify(|n| *n += 1);
    }

    /// Replaces a board's snapshot.
    pub fn set_snapshot(&self, board: u32, snapshot: Snapshot) {
        if let Some(b) = self.lock().boards.get_mut(&board) {
            b.snapshot = Some(snapshot);
        }
    }

    /// Replaces a board's driver status.
    pub fn set_driver_status(&self, board: u32, status: dgt_serial::BoardStatus) {
        if let Some(b) = self.lock().boards.get_mut(&board) {
            b.driver = Some(status);
        }
        self.physical_changed.send_modify(|n| *n += 1);
    }

    /// What board `board` shows now (after a field update or a dump): wakes the
    /// LiveChess feeds only when it changed.
    pub fn set_placement(&self, board: u32, placement: chess_rules::Placement) {
        let changed = {
            let mut st = self.lock();
            match st.physical.get_mut(&board) {
                Some(p) if p.placement == placement => false,
                Some(p) => {
                    p.placement = placement;
                    true
                }
                None => {
                    st.physical.insert(
                        board,
                        Physical {
                            placement,
                            clock: None,
                        },
                    );
                    true
                }
            }
        };
        if changed {
            self.physical_changed.send_modify(|n| *n += 1);
        }
    }

    /// Board `board`'s clock frame, read at `wall_ms` (Unix ms).
    pub fn set_clock_frame(&self, board: u32, clock: dgt_protocol::ClockTime, wall_ms: u64) {
        let changed = {
            let mut st = self.lock();
            let p = st.physical.entry(board).or_insert(Physical {
                placement: chess_rules::Placement::start(),
                clock: None,
            });
            let changed = p.clock.map(|(c, _)| c) != Some(clock);
            if changed {
                p.clock = Some((clock, wall_ms));
            }
            changed
        };
        if changed {
            self.physical_changed.send_modify(|n| *n += 1);
        }
    }

    /// What board `board` shows and its clock, once the board has reported them.
    pub fn physical(&self, board: u32) -> Option<Physical> {
        self.lock().physical.get(&board).copied()
    }

    /// A counter bumped when a board's [`Physical`] state or driver status changes.
    pub fn physical_changed(&self) -> watch::Receiver<u64> {
        self.physical_changed.subscribe()
    }

    /// Registers the driver's control of a running board (clock commands, dumps).
    pub fn set_control(&self, board: u32, control: dgt_serial::BoardControl) {
        self.lock().controls.insert(board, control);
    }

    /// Board `board` is on no port now: no clock command may reach another board's clock.
    pub fn remove_control(&self, board: u32) {
        self.lock().controls.remove(&board);
    }

    /// The driver's control of a board, while it runs (for clock commands).
    pub fn control(&self, board: u32) -> Option<dgt_serial::BoardControl> {
        self.lock().controls.get(&board).cloned()
    }

    /// Records the last push to a broadcast server (the dashboard shows it).
    pub fn set_push_status(&self, status: crate::PushStatus) {
        self.lock().push = Some(status);
    }

    /// The last push to a broadcast server, if any was made.
    pub fn push_status(&self) -> Option<crate::PushStatus> {
        self.lock().push.clone()
    }

    /// Live events from now on (lagging receivers lose the oldest).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<HubEvent>> {
        self.stream.subscribe()
    }

    /// A counter bumped on every change of the log or the games.
    pub fn changed(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The number of events in the log.
    pub fn log_len(&self) -> usize {
        self.lock().log.len()
    }

    /// The log from index `from` on.
    pub fn events_since(&self, from: usize) -> Vec<Arc<HubEvent>> {
        let st = self.lock();
        st.log.get(from..).map(<[_]>::to_vec).unwrap_or_default()
    }

    /// Every board, in number order.
    pub fn boards(&self) -> Vec<BoardView> {
        self.lock().boards.values().cloned().collect()
    }

    /// Every board's games with their version, in number order: what the file sinks
    /// need, without copying snapshots and driver states under the hub's lock.
    pub fn games(&self) -> Vec<GamesView> {
        self.lock()
            .boards
            .values()
            .map(|b| GamesView {
                number: b.number,
                version: b.version,
                games: Arc::clone(&b.games),
            })
            .collect()
    }

    /// One board.
    pub fn board(&self, number: u32) -> Option<BoardView> {
        self.lock().boards.get(&number).cloned()
    }

    /// Each board's games version (for sinks that rewrite changed boards only).
    pub fn versions(&self) -> BTreeMap<u32, u64> {
        self.lock()
            .boards
            .iter()
            .map(|(n, b)| (*n, b.version))
            .collect()
    }

    /// True when every board's current game is over.
    pub fn all_over(&self) -> bool {
        self.lock()
            .boards
            .values()
            .all(|b| b.games.current().result.is_some())
    }

    /// Closes every running game as unfinished (`*` and a comment saying why).
    pub fn close_unfinished(&self, why: &str) {
        let mut any = false;
        {
            let mut st = self.lock();
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
}

/// Hands the arbiter's decision to board `board` and waits until it is journaled and
/// published; returns the events it made. A plain function: the dashboard's HTTP handler
/// calls it, and so can any other route to the arbiter (a central dashboard).
pub async fn decide(
    hub: &Hub,
    board: u32,
    input: ArbiterInput,
) -> Result<Vec<ArbiterEvent>, decisions::DecisionError> {
    let Some(view) = hub.board(board) else {
        return Err(decisions::DecisionError::NoBoard(board));
    };
    if input.decision == Decision::ResultConfirmed {
        view.games
            .results
            .check_confirmation(input.result)
            .map_err(|why| decisions::DecisionError::Refused { board, why })?;
    }
    let (reply, answer) = oneshot::channel();
    hub.commands
        .send(board, commands::ArbiterCommand::Decide { input, reply })
        .map_err(|e| match e {
            commands::CommandError::NotRunning(_) => decisions::DecisionError::NotRunning(board),
            commands::CommandError::Busy(_) => decisions::DecisionError::Busy(board),
        })?;
    match answer.await {
        Ok(Ok(events)) => Ok(events),
        Ok(Err(why)) => Err(decisions::DecisionError::Refused { board, why }),
        Err(_) => Err(decisions::DecisionError::NotRunning(board)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use touch_tracker::EventKind;

    fn ev(board: u32, seq: u64) -> HubEvent {
        HubEvent {
            seq,
            board,
            round: 2,
            wall_ms: 1_749_755_000_000,
            replayed: false,
            event: ArbiterEvent {
                t_ms: seq,
                board: board.to_string(),
                kind: EventKind::Restored { fen: "f".into() },
            },
        }
    }

    #[test]
    fn log_stream_and_json() {
        let hub = Hub::new([1, 2]);
        let mut rx = hub.subscribe();
        let changed = hub.changed();
        hub.publish(vec![ev(1, 1), ev(1, 2)]);
        hub.publish(vec![ev(2, 1)]);
        assert!(changed.has_changed().unwrap());
        assert_eq!(hub.log_len(), 3);
        assert_eq!(hub.events_since(2)[0].board, 2);
        assert!(hub.events_since(9).is_empty());
        assert_eq!(rx.try_recv().unwrap().seq, 1);
        assert_eq!(hub.board(1).unwrap().seq, 2);
        let v: serde_json::Value = serde_json::from_str(&ev(1, 7).to_json()).unwrap();
        assert_eq!(v["kind"], "restored");
        assert_eq!(v["seq"], 7);
        assert_eq!(v["round"], 2);
        assert_eq!(v["at"], "2025-06-12T19:03:20.000Z");
        assert!(!hub.all_over());
        hub.close_unfinished("stopped");
        assert!(hub.boards()[0].games.current().unfinished.is_some());
        let games = hub.games();
        let views = hub.boards();
        assert_eq!(games[1].number, 2);
        assert_eq!(games[0].version, views[0].version);
        assert!(
            games[0].version > 0,
            "closing the game changed board 1's games"
        );
        assert!(Arc::ptr_eq(&games[0].games, &views[0].games));
    }
}
