//! The live arbiter dashboard, served by the daemon (and so by `demo`) at `/`: every
//! board at a glance, a live feed of alerts ordered by urgency with a card per ruling
//! (board diagram of the position to reinstate, squares to change highlighted, steps,
//! clocks before and after), claimable draws in their own panel, per-board history with
//! the touch log of each move, acknowledge / resolve actions, an optional sound. One HTML
//! page with plain JS and CSS embedded in the binary; no front-end build step.
//!
//! | path | what | who |
//! |---|---|---|
//! | `/` | the page (`/assets/dashboard.js`, `/assets/dashboard.css`) | anyone |
//! | `/api/messages` | the page's words in its language ([`lang`]) | anyone |
//! | `/api/state` | boards, alerts (sorted), claims | viewer |
//! | `/api/stream` | Server-Sent Events: `hello` (the whole state), `alert`, `claim`, `boards` | viewer |
//! | `/api/boards/{B}/history` | the current game's moves with their touch logs, and the board's alerts | viewer |
//! | `POST /api/alerts/{id}/ack`, `.../resolve` | change an alert's state | arbiter |
//! | `POST /api/boards/{B}/accept/{white,black}` | accept an out-of-sync board as the position, that side to move ([`accept`]) | arbiter |
//! | `POST /api/boards/{B}/moves` | enter the moves of a gap, `{"moves": [...], "from_ply": N}` ([`desk`]) | arbiter |
//! | `POST /api/boards/{B}/takeback` | take the game back, `{"to_ply": N, "reason": "..."}` ([`desk`]) | arbiter |
//! | `POST /api/boards/{B}/clock` | the times the arbiter sets, `{"white_ms", "black_ms", "reason"}` ([`desk`]) | arbiter |
//! | `POST /api/boards/{B}/decision` | an arbiter's decision (penalty, result, clock) | arbiter |
//! | `GET /api/boards/{B}/evidence?ply=N[&around=60s]` | the evidence pack of the incident at ply `N`, one `.tar` ([`evidence_pack`]) | arbiter |
//! | `POST /api/login` | a read session cookie for the page's event stream | arbiter |
//!
//! Every `POST` but the login is a [`Command`] carried out by [`Dashboard::command`]: by
//! the board's task here, or, on a central, by the board's hall ([`command`]).
//!
//! Who may do what: [`auth`]. The alerts and their states: [`alerts`]. A follower task
//! reads the hub's event log (so it never misses an event), folds it into the alerts and
//! broadcasts each change to the open streams; board summaries go out when they change.
//!
//! Language ([`lang`]): the page's labels come from `/api/messages`; the routes that
//! carry words (state, stream, history, actions) say them in the `?lang=` they are asked
//! for (English without it, so scripts read what they always read).

mod accept;
pub mod alerts;
mod api;
pub mod auth;
mod command;
mod desk;
mod evidence_pack;
pub mod lang;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use messages::{Language, Messages};
use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use touch_tracker::{EventKind, GameState};

use alerts::{Action, Alerts, Change, SavedState};
use arbiter_hub::Hub;
use auth::Gate;
pub use command::{Answer, Command, Forward, ForwardError, ForwardFuture};
use daemon_config::paths::Paths;
use daemon_config::ArbiterToken;
use daemon_config::Config;

/// How often the board summaries are compared with what the streams last got.
const BOARDS_EVERY: Duration = Duration::from_millis(500);
/// Messages a slow stream may fall behind before it is sent the whole state again.
const STREAM_CAPACITY: usize = 1024;

/// One message for the open streams: the SSE event name and its JSON data (English),
/// and what it was made of when it has words to say in another language.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub event: &'static str,
    pub data: String,
    pub words: Option<Words>,
}

/// An alert or a claim of a stream message, typed, to say again in a stream's language.
#[derive(Debug, Clone, PartialEq)]
pub enum Words {
    Alert(Box<alerts::Alert>),
    Claim {
        board: u32,
        claim: Option<alerts::Claim>,
    },
}

impl Message {
    fn plain(event: &'static str, data: String) -> Message {
        Message {
            event,
            data,
            words: None,
        }
    }

    /// Its data for a stream in `language`: made again only when that is not English.
    pub fn data_in(&self, language: Language) -> std::borrow::Cow<'_, str> {
        let m = Messages::new(language);
        match &self.words {
            Some(w) if language != Language::En => std::borrow::Cow::Owned(match w {
                Words::Alert(a) => serde_json::to_string(&a.in_language(m)).unwrap_or_default(),
                Words::Claim { board, claim } => json!({
                    "board": board,
                    "claim": claim.as_ref().map(|c| c.in_language(m)),
                })
                .to_string(),
            }),
            _ => std::borrow::Cow::Borrowed(&self.data),
        }
    }
}

struct Inner {
    alerts: Alerts,
    /// How much of the hub's log is folded in.
    seen: usize,
    /// The board summaries the streams last got.
    boards: Option<Arc<Message>>,
    /// The daemon's warnings the streams last got.
    warnings: Option<String>,
    /// The last push status the streams got (JSON).
    push: String,
}

/// The dashboard's state, shared by its routes and its follower task.
pub struct Dashboard {
    hub: Arc<Hub>,
    config: Arc<Config>,
    gate: Gate,
    inner: Mutex<Inner>,
    stream: broadcast::Sender<Arc<Message>>,
    /// Where acknowledged and resolved states are kept across restarts.
    states_path: PathBuf,
    /// Where alerts taken out of memory go ([`ARCHIVE_FILE`]).
    archive_path: PathBuf,
    /// Where commands go (the central of a several-PC event: the board's hall).
    forwarder: std::sync::OnceLock<Arc<dyn Forward>>,
    /// The daemon's output folder, read for the evidence pack.
    paths: Paths,
}

/// The alert archive in the output folder: append-only JSON lines, one alert each, framed
/// like the journal (`crc32`, see [`crash_safe::frame`]).
pub const ARCHIVE_FILE: &str = "dashboard-alerts-archive.jsonl";

/// How many alerts `/api/state` gives when not asked (`alerts_limit`), and the most it
/// gives.
pub const ALERTS_PAGE: usize = 200;
pub const ALERTS_PAGE_MAX: usize = 1_000;

/// The alerts an archive holds, by board and seq (damaged lines are skipped, named).
fn archived_ids(path: &std::path::Path) -> Vec<(u32, u64)> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    let mut offset = 0usize;
    for line in bytes.split(|&b| b == b'\n') {
        let at = offset;
        offset += line.len() + 1;
        if line.is_empty() {
            continue;
        }
        let object = match crash_safe::unframe(line) {
            Ok(Some(o)) => o,
            Ok(None) => line.to_vec(),
            Err(e) => {
                tracing::warn!(
                    "dashboard: {}, byte {at}: skipped a damaged alert ({e})",
                    path.display()
                );
                continue;
            }
        };
        let v: Value = serde_json::from_slice(&object).unwrap_or(Value::Null);
        match (v["board"].as_u64(), v["seq"].as_u64()) {
            (Some(b), Some(seq)) => ids.push((u32::try_from(b).unwrap_or(u32::MAX), seq)),
            _ => tracing::warn!("dashboard: {}, byte {at}: not an alert", path.display()),
        }
    }
    ids
}

impl Dashboard {
    /// The dashboard of a daemon, its routes ready to merge into the HTTP endpoint, and
    /// its follower task (abort it at shutdown). Without `[http] token` the token is read
    /// from (or made and kept in) `arbiter-token` in the output folder. Must run inside
    /// a tokio runtime.
    pub fn start(
        hub: Arc<Hub>,
        config: Arc<Config>,
        paths: &Paths,
    ) -> (Arc<Dashboard>, axum::Router, JoinHandle<()>) {
        let token = match &config.http.token {
            Some(t) => Some(t.clone()),
            None => {
                let path = paths.root().join("arbiter-token");
                match ArbiterToken::load_or_create(&path) {
                    Ok(t) => {
                        tracing::info!(
                            "dashboard: the arbiter token is in {} ([http] token sets one)",
                            path.display()
                        );
                        Some(t)
                    }
                    Err(e) => {
                        tracing::error!(
                            "dashboard: cannot keep an arbiter token in {}: {e}; \
                             actions are refused until [http] token is set",
                            path.display()
                        );
                        None
                    }
                }
            }
        };
        let states_path = paths.root().join("dashboard-alerts.json");
        let archive_path = paths.root().join(ARCHIVE_FILE);
        let mut alerts = Alerts::new();
        alerts.restore_archived(archived_ids(&archive_path));
        if let Ok(text) = std::fs::read_to_string(&states_path) {
            match serde_json::from_str::<HashMap<String, SavedState>>(&text) {
                Ok(saved) => alerts.restore(saved),
                Err(e) => tracing::warn!(
                    "dashboard: ignoring {}: {e}; every alert starts open",
                    states_path.display()
                ),
            }
        }
        let dash = Arc::new(Dashboard {
            gate: Gate::new(token, config.http.public_dashboard),
            hub,
            config,
            inner: Mutex::new(Inner {
                alerts,
                seen: 0,
                boards: None,
                warnings: None,
                push: String::new(),
            }),
            stream: broadcast::channel(STREAM_CAPACITY).0,
            states_path,
            archive_path,
            forwarder: std::sync::OnceLock::new(),
            paths: paths.clone(),
        });
        dash.sync();
        let task = tokio::spawn(Arc::clone(&dash).follow());
        let router = api::router(Arc::clone(&dash));
        (dash, router, task)
    }

    /// The token and the read sessions (for the endpoint's access policy).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Folds the hub's new events in and tells the streams what changed.
    fn sync(&self) {
        let mut inner = self.lock();
        let events = self.hub.events_since(inner.seen);
        inner.seen += events.len();
        for e in &events {
            for change in inner.alerts.apply(e) {
                let msg = match change {
                    Change::Alert(a) => Message {
                        event: "alert",
                        data: serde_json::to_string(&a).unwrap_or_default(),
                        words: Some(Words::Alert(a)),
                    },
                    Change::Claim { board, claim } => Message {
                        event: "claim",
                        data: json!({ "board": board, "claim": claim }).to_string(),
                        words: Some(Words::Claim { board, claim }),
                    },
                };
                // No open stream is fine.
                let _ = self.stream.send(Arc::new(msg));
            }
        }
        let taken = inner.alerts.take_archivable();
        drop(inner);
        if !taken.is_empty() {
            self.archive(&taken);
        }
    }

    /// Appends alerts taken out of memory to the archive (best effort: said in the log).
    fn archive(&self, alerts: &[alerts::Alert]) {
        use std::io::Write;
        let mut text = Vec::new();
        for a in alerts {
            let Ok(mut line) = serde_json::to_vec(a) else {
                continue;
            };
            crash_safe::frame(&mut line);
            text.extend_from_slice(&line);
        }
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.archive_path)
            .and_then(|mut f| f.write_all(&text));
        if let Err(e) = written {
            tracing::warn!(
                "dashboard: cannot archive {} resolved or quiet alert(s) in {}: {e}",
                alerts.len(),
                self.archive_path.display()
            );
        }
    }

    /// Sends the board summaries if they changed since the streams last got them.
    fn sync_boards(&self) {
        // Nobody on the stream: no summaries to build (10% of the daemon's CPU at 1,000
        // boards); a viewer who comes gets every board in the hello.
        if self.stream.receiver_count() == 0 {
            let mut inner = self.lock();
            inner.boards = None;
            inner.warnings = None;
            return;
        }
        let warnings = self.warnings_json().to_string();
        let boards = self.boards_text();
        let mut inner = self.lock();
        // A new viewer got the warnings in its hello: only changes go out.
        if inner.warnings.as_deref().unwrap_or("[]") != warnings {
            inner.warnings = Some(warnings.clone());
            let _ = self
                .stream
                .send(Arc::new(Message::plain("warnings", warnings)));
        }
        if inner.boards.as_ref().is_some_and(|m| m.data == boards) {
            return;
        }
        let msg = Arc::new(Message::plain("boards", boards));
        inner.boards = Some(Arc::clone(&msg));
        let _ = self.stream.send(msg);
    }

    /// Sends the last push to the broadcast server if it changed (the daemon's `push`).
    fn sync_push(&self) {
        let push = serde_json::to_string(&self.hub.push_status()).unwrap_or_default();
        let mut inner = self.lock();
        if inner.push == push {
            return;
        }
        inner.push = push.clone();
        let _ = self.stream.send(Arc::new(Message::plain("push", push)));
    }

    async fn follow(self: Arc<Dashboard>) {
        // Subscribed first, then caught up: nothing published in between is missed.
        let mut changed = self.hub.changed();
        self.sync();
        let mut tick = tokio::time::interval(BOARDS_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                r = changed.changed() => {
                    if r.is_err() {
                        break;
                    }
                    // Alerts at once; the board summaries on the tick only: rebuilding
                    // every board's summary at every event costs O(boards) per event,
                    // more than a core at 1,000 boards (docs/performance.md).
                    self.sync();
                }
                _ = tick.tick() => {
                    self.sync_boards();
                    self.sync_push();
                }
            }
        }
    }

    /// Every board at a glance.
    fn boards_json(&self) -> Value {
        let views = self.hub.boards();
        serde_json::to_value(self.board_summaries(&views)).unwrap_or_default()
    }

    /// [`Dashboard::boards_json`] as text, serialized straight from typed summaries: no
    /// `serde_json::Value` tree of every board every 500 ms (10% of the daemon's CPU at
    /// 1,000 boards while a dashboard watched, docs/performance.md).
    fn boards_text(&self) -> String {
        let views = self.hub.boards();
        serde_json::to_string(&self.board_summaries(&views)).unwrap_or_default()
    }

    fn board_summaries<'a>(&'a self, views: &'a [arbiter_hub::BoardView]) -> Vec<BoardSummary<'a>> {
        let open = self.lock().alerts.open_by_board();
        views
            .iter()
            .map(|v| {
                let cfg = self.config.board(v.number);
                let game = v.games.current();
                let last = game.moves.last();
                let snap = v.snapshot.as_ref();
                let connected = v.driver.as_ref().is_some_and(|d| d.info.connected);
                let clock_present = v
                    .driver
                    .as_ref()
                    .is_some_and(|d| matches!(d.info.clock, dgt_serial::ClockInfo::Present { .. }));
                let (worst, count) = open
                    .get(&v.number)
                    .map_or((None, 0), |&(u, n)| (Some(u), n));
                let over =
                    game.result.is_some() || snap.is_some_and(|s| s.state == GameState::Over);
                let restoring = snap.is_some_and(|s| s.state == GameState::Restoring);
                // The status colour: what the arbiter should look at first.
                let status = if !connected {
                    "offline"
                } else if restoring
                    || matches!(
                        worst,
                        Some(alerts::Urgency::GameEnd | alerts::Urgency::Illegal)
                    )
                {
                    "alert"
                } else if worst.is_some() {
                    "warning"
                } else if over {
                    "over"
                } else {
                    "ok"
                };
                let ply = snap.map_or(0, |s| s.ply);
                let time_control = cfg.map_or(self.config.time_control, |c| {
                    self.config.board_time_control(c)
                });
                BoardSummary {
                    number: v.number,
                    white: cfg.and_then(|c| c.white.as_deref()),
                    black: cfg.and_then(|c| c.black.as_deref()),
                    players: cfg.and_then(|c| c.pairing.as_ref()).map(players_json),
                    unattended: cfg.is_some_and(|c| c.unattended),
                    connected,
                    serial: v.driver.as_ref().and_then(|d| d.info.serial.as_deref()),
                    port: v
                        .driver
                        .as_ref()
                        .and_then(|d| d.port.as_ref())
                        .map(|p| p.display().to_string()),
                    clock_present,
                    clock_ms: snap.and_then(|s| s.clock_ms),
                    time_control: time_control.to_string(),
                    to_control: ToControl::at(time_control, ply),
                    ply,
                    move_number: game_record::words::move_number(ply + 1),
                    side_to_move: snap.map(|s| s.side_to_move),
                    fen: snap.map(|s| s.fen.as_str()),
                    last_move: last.map(|m| LastMove {
                        ply: m.ply,
                        san: &m.san,
                        uci: m.uci,
                        color: m.color,
                    }),
                    state: snap.map(|s| s.state),
                    result: game.result.map(|r| r.as_str()),
                    illegal: snap.map(|s| Illegal {
                        white: s.illegal_white,
                        black: s.illegal_black,
                    }),
                    game: game.number,
                    results: results_json(&v.games.results),
                    open_alerts: count,
                    status,
                }
            })
            .collect()
    }

    /// The daemon's own problems (a full disk, a deleted output folder): `[{key, text}]`.
    fn warnings_json(&self) -> Value {
        let list: Vec<Value> = self
            .hub
            .warnings()
            .into_iter()
            .map(|(key, text)| json!({ "key": key, "text": text }))
            .collect();
        Value::Array(list)
    }

    /// Everything the page shows (the first [`ALERTS_PAGE`] alerts), in `language`.
    fn state_json(&self, language: Language) -> Value {
        self.state_page_json(0, ALERTS_PAGE, language)
    }

    /// Everything the page shows, with `limit` alerts from `offset` in their order
    /// (`alerts_total` in all, `alerts_more` after this page, `alerts_archived` on disk).
    fn state_page_json(&self, offset: usize, limit: usize, language: Language) -> Value {
        let m = Messages::new(language);
        self.sync();
        let boards = self.boards_json();
        let inner = self.lock();
        let (page, total) = inner.alerts.page(offset, limit.min(ALERTS_PAGE_MAX));
        let more = total.saturating_sub(offset.saturating_add(page.len()));
        json!({
            "event": self.config.event.name,
            "round": self.config.event.round,
            "public": self.gate.is_public(),
            "boards": boards,
            "alerts": page.iter().map(|a| a.in_language(m)).collect::<Vec<_>>(),
            "alerts_total": total,
            "alerts_offset": offset,
            "alerts_more": more,
            "alerts_archived": inner.alerts.archived_count(),
            "claims": inner.alerts.claims().iter().map(|c| c.in_language(m)).collect::<Vec<_>>(),
            "warnings": self.warnings_json(),
            "push": self.hub.push_status(),
        })
    }

    /// The current game of a board: its moves with their touch logs, and its alerts.
    fn history_json(&self, board: u32, language: Language) -> Option<Value> {
        let m = Messages::new(language);
        let view = self.hub.board(board)?;
        self.sync();
        let events: Vec<_> = self
            .hub
            .events_since(0)
            .into_iter()
            .filter(|e| e.board == board)
            .collect();
        let start = events
            .iter()
            .rposition(|e| {
                matches!(
                    e.event.kind,
                    EventKind::NewGame { .. } | EventKind::PositionAccepted(_)
                )
            })
            .map_or(0, |i| i + 1);
        let mut moves: Vec<Value> = Vec::new();
        for e in &events[start..] {
            if let EventKind::Move(m) = &e.event.kind {
                // A move that replaces the one recorded for its ply takes its place.
                moves.retain(|x| x["ply"].as_u64() < Some(u64::from(m.ply)));
                moves.push(json!({
                    "ply": m.ply,
                    "color": m.color,
                    "san": m.san,
                    "uci": m.uci,
                    "clock_ms": m.clock_ms,
                    "pressed": m.pressed,
                    "at": wall_clock::rfc3339(e.wall_ms),
                    "touches": m.touches,
                }));
            }
            // The arbiter's takeback cuts the record (art. 7.5.1).
            if let EventKind::TakenBack(t) = &e.event.kind {
                moves.retain(|x| x["ply"].as_u64() <= Some(u64::from(t.to_ply)));
            }
        }
        let inner = self.lock();
        let alerts: Vec<_> = inner
            .alerts
            .sorted()
            .into_iter()
            .filter(|a| a.board == board)
            .map(|a| a.in_language(m))
            .collect();
        let cfg = self.config.board(board);
        Some(json!({
            "board": board,
            "white": cfg.and_then(|c| c.white.clone()),
            "black": cfg.and_then(|c| c.black.clone()),
            "players": cfg.and_then(|c| c.pairing.as_ref()).map(players_json),
            "game": view.games.current().number,
            "results": results_json(&view.games.results),
            "moves": moves,
            "alerts": alerts,
        }))
    }

    /// Takes the arbiter's decision for a board ([`arbiter_hub::decide`]) and folds
    /// what it made into the alerts before answering, so the page's next state shows it.
    pub async fn decide(
        &self,
        board: u32,
        input: touch_tracker::ArbiterInput,
    ) -> Result<Vec<touch_tracker::ArbiterEvent>, arbiter_hub::decisions::DecisionError> {
        let events = arbiter_hub::decide(&self.hub, board, input).await?;
        self.sync();
        Ok(events)
    }

    /// Makes every command go to `forward` (set once): [`Dashboard::command`].
    pub fn forward_actions_to(&self, forward: Arc<dyn Forward>) {
        let _ = self.forwarder.set(forward);
    }

    /// An arbiter's action on an alert, as `POST /api/alerts/ID/ACTION` does it (and a
    /// hall does it for its central): recorded, sent to the open streams, saved.
    pub async fn act(
        self: &Arc<Dashboard>,
        id: &str,
        action: Action,
    ) -> Result<alerts::Alert, alerts::ActError> {
        self.sync();
        let alert = self
            .lock()
            .alerts
            .act(id, action, wall_clock::unix_ms_now())?;
        tracing::info!(
            board = alert.board,
            "dashboard: alert {} is {:?}",
            alert.id,
            alert.state
        );
        let _ = self.stream.send(Arc::new(Message {
            event: "alert",
            data: serde_json::to_string(&alert).unwrap_or_default(),
            words: Some(Words::Alert(Box::new(alert.clone()))),
        }));
        self.save_states().await;
        Ok(alert)
    }

    /// Saves the alert states that are not open (best effort: the live state stays right).
    async fn save_states(self: &Arc<Dashboard>) {
        let saved = self.lock().alerts.saved();
        let text = serde_json::to_vec_pretty(&saved).unwrap_or_default();
        let path = self.states_path.clone();
        let written =
            tokio::task::spawn_blocking(move || crash_safe::write_atomic(&path, &text)).await;
        if let Ok(Err(e)) = written {
            tracing::warn!(
                "dashboard: cannot save the alert states in {}: {e}",
                self.states_path.display()
            );
        }
    }
}

/// A board's result and the arbiter's: `{board, arbiter, confirmed, disputed, result}`.
fn results_json(r: &arbiter_hub::decisions::ResultState) -> Value {
    json!({
        "board": r.board.map(|x| x.as_str()),
        "arbiter": r.arbiter.map(|x| x.as_str()),
        "confirmed": r.confirmed,
        "disputed": r.disputed(),
        "result": r.result().map(|x| x.as_str()),
    })
}

/// One board at a glance, as the page reads it (the fields of `/api/state`'s `boards`).
#[derive(serde::Serialize)]
struct BoardSummary<'a> {
    number: u32,
    white: Option<&'a str>,
    black: Option<&'a str>,
    players: Option<Value>,
    unattended: bool,
    connected: bool,
    /// The serial and the port the board answers with now ([`arbiter_hub::serials`]).
    serial: Option<&'a str>,
    port: Option<String>,
    clock_present: bool,
    clock_ms: Option<touch_tracker::ClockMs>,
    /// The board's time control in the PGN form (`40/5400+30:1800+30`).
    time_control: String,
    /// Each player's moves still to make to the next time control (art. 6; "12 moves to
    /// the time control"); `None` in sudden death.
    to_control: Option<ToControl>,
    ply: u32,
    move_number: u32,
    side_to_move: Option<chess_rules::Color>,
    fen: Option<&'a str>,
    last_move: Option<LastMove<'a>>,
    state: Option<GameState>,
    result: Option<&'static str>,
    illegal: Option<Illegal>,
    game: u32,
    results: Value,
    open_alerts: usize,
    status: &'static str,
}

#[derive(serde::Serialize)]
struct LastMove<'a> {
    ply: u32,
    san: &'a str,
    uci: chess_rules::Move,
    color: chess_rules::Color,
}

#[derive(serde::Serialize)]
struct ToControl {
    white: Option<u32>,
    black: Option<u32>,
}

impl ToControl {
    /// At `ply` of a game in the standard numbering (White moves on odd plies): each
    /// player's moves completed, and what is left of his period's moves.
    fn at(tc: dgt_protocol::capture::TimeControl, ply: u32) -> Option<ToControl> {
        if tc.is_sudden_death_only() {
            return None;
        }
        Some(ToControl {
            white: tc.moves_to_control(ply.div_ceil(2)),
            black: tc.moves_to_control(ply / 2),
        })
    }
}

#[derive(serde::Serialize)]
struct Illegal {
    white: u32,
    black: u32,
}

/// The TRF's details of a board's players (title, rating, federation, FIDE id, team), as
/// the PGN headers give them.
fn players_json(p: &daemon_config::pairings::BoardPairing) -> Value {
    let one = |x: &daemon_config::pairings::PlayerInfo| {
        json!({
            "name": x.name, "title": x.title, "rating": x.rating,
            "federation": x.federation, "fide_id": x.fide_id, "team": x.team,
            "start_rank": x.start_rank,
        })
    };
    json!({"white": one(&p.white), "black": one(&p.black)})
}

#[cfg(test)]
mod tests;
