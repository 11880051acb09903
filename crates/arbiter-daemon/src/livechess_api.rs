//! The DGT LiveChess local API on its own listener (`[livechess_api] bind`, LiveChess's
//! port 1982 by default): the WebSocket `/api/v1.0` (the `eboardevent` feed lichess's
//! `/dgt` page and chess.com use) and the REST routes `/api/v1.0/...` (the `livechess`
//! CLI). The protocol is the crate `livechess-api`; this module fills its view from the
//! daemon's state and moves text over sockets.
//!
//! - Fed from the same state as every other output: the hub (driver status, what each
//!   board shows and its clock frames, set by the board tasks) and the public view (the
//!   recorded games). No second tracker: `san` is the arbiter's record, so an illegal
//!   move never reaches a consumer.
//! - Public: browsers connect from pages of other origins (lichess.org), so there is no
//!   Origin or Host check and REST answers carry `Access-Control-Allow-Origin: *`; the
//!   routes are in `http::access::ROUTES` as [`Group::Broadcast`] routes, open on
//!   this listener, which exists only when `[livechess_api]` is configured.
//! - The broadcast delay: when the public view is not live (a `[broadcast] delay`, boards
//!   off the air), every board's `board` is the position of its public game and there is
//!   no clock: nothing is shown before the public may see it. Without a delay `board` is
//!   what the board physically shows, one feed message per change.
//!
//! - Graceful shutdown ([`Closer::close`]): every connection gets a close frame (1001,
//!   going away) and a moment for the client's answer, so consumers see the daemon leave
//!   instead of a dead socket, and the daemon still exits promptly.
//!
//! [`Group::Broadcast`]: crate::http::access::Group::Broadcast

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use std::time::Duration;

use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chess_rules::{GameResult, Position};
use livechess_api::view::HallBoard;
use livechess_api::{BoardState, Clock, Eboard, EboardState, GameView, Hall, MoveView, Player};

use crate::http::access::ConnInfo;
use crate::http::room::{Busy, Room, Seat};
use arbiter_hub::{BoardView, Hub};
use arbiter_outputs::public::Public;
use daemon_config::{BoardConfig, Config};
use game_record::games::BoardGames;
use tokio::sync::watch;

/// The routes, as `http::access::ROUTES` names them.
use ::livechess_api::{REST_ROUTE, WS_ROUTE};

/// Largest WebSocket message taken (requests are a few hundred bytes).
const MAX_MESSAGE: usize = 16 * 1024;
/// WebSocket connections at once (each holds a task and a socket).
const MAX_SESSIONS: usize = 64;
/// WebSocket connections from one address at once: a hall's machines each run a page or
/// two; past its share a client's own oldest idle connection makes room
/// (`http::room`).
const PER_CLIENT_SESSIONS: usize = 32;
/// A connection with no subscription that has sent nothing for this long is idle and
/// closed (issue 36: 64 such connections held every place). lichess's `/dgt` page asks
/// `eboards` at once, again every 5 s until answered, then subscribes: 30 s is far past
/// any real client's silence before it subscribes. A subscribed connection is never
/// idle: the feed is what it waits for.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a closing connection waits for the client's close frame.
const CLOSE_ANSWER_WAIT: Duration = Duration::from_millis(500);

/// What the handlers see.
#[derive(Clone)]
pub struct ApiState {
    pub hub: Arc<Hub>,
    pub config: Arc<Config>,
    pub public: Arc<Public>,
    sessions: Arc<AtomicUsize>,
    /// The WebSocket places ([`MAX_SESSIONS`], [`PER_CLIENT_SESSIONS`]).
    room: Arc<Room>,
    /// True once the daemon stops ([`Closer`]).
    closing: watch::Receiver<bool>,
}

/// Closes the API's WebSocket connections when the daemon stops.
pub struct Closer {
    closing: watch::Sender<bool>,
    sessions: Arc<AtomicUsize>,
}

impl Closer {
    /// Sends every connection (and any that comes in meanwhile) a close frame, then
    /// waits until they have ended, `within` at most.
    pub async fn close(&self, within: Duration) {
        let _ = self.closing.send(true);
        let deadline = tokio::time::Instant::now() + within;
        while self.sessions.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let left = self.sessions.load(Ordering::SeqCst);
        if left > 0 {
            tracing::warn!("LiveChess API: {left} connection(s) still open at shutdown");
        }
    }
}

impl ApiState {
    pub fn new(hub: Arc<Hub>, config: Arc<Config>, public: Arc<Public>) -> (ApiState, Closer) {
        let sessions = Arc::<AtomicUsize>::default();
        let (closing_tx, closing) = watch::channel(false);
        let state = ApiState {
            hub,
            config,
            public,
            sessions: Arc::clone(&sessions),
            room: Room::new(MAX_SESSIONS, PER_CLIENT_SESSIONS),
            closing,
        };
        (
            state,
            Closer {
                closing: closing_tx,
                sessions,
            },
        )
    }

    /// The round as this API shows it now.
    pub fn hall(&self) -> Hall {
        let now = wall_clock::unix_ms_now();
        self.public.refresh(&self.hub, now);
        hall(&self.hub, &self.public, &self.config)
    }
}

/// The API's routes.
pub fn router(state: ApiState) -> Router {
    Router::new()
        .route(WS_ROUTE, get(websocket))
        .route(REST_ROUTE, get(rest))
        .with_state(state)
}

/// `2025.06.12` (PGN) to `2025-06-12`; unknown parts (`?`) give none.
fn iso_date(pgn: &str) -> Option<String> {
    (!pgn.contains('?') && pgn.len() == 10).then(|| pgn.replace('.', "-"))
}

fn player(name: Option<&String>, info: Option<&daemon_config::pairings::PlayerInfo>) -> Player {
    match info {
        Some(i) => Player {
            title: i.title.clone(),
            federation: i.federation.clone(),
            fideid: i.fide_id.map(|id| id.to_string()),
            ..Player::from_name(&i.name)
        },
        None => name.map_or_else(Player::default, |n| Player::from_name(n)),
    }
}

fn game_view(games: &BoardGames) -> GameView {
    let g = games.current();
    GameView {
        number: g.number,
        start_fen: g.start_fen.clone(),
        moves: g
            .moves
            .iter()
            .map(|m| MoveView {
                san: m.san.clone(),
                uci: m.uci,
                clock_s: m.clock_ms.map(|ms| ms / 1000),
            })
            .collect(),
        // The arbiter's result where he set one, as the PGN has it (issue 37: the two
        // outputs disagreed after a decision).
        result: Some(g.result_or_ongoing()).filter(|r| *r != GameResult::Ongoing),
        live: g.is_live(),
    }
}

/// The placement after a game's recorded moves.
fn final_placement(game: &GameView) -> String {
    // A Chess960 start's X-FEN is no standard FEN (its rights name rooks off the corners).
    let mut pos = Position::from_fen(&game.start_fen)
        .or_else(|_| Position::from_fen_960(&game.start_fen))
        .unwrap_or_default();
    for m in &game.moves {
        match pos.play(m.uci) {
            Ok(next) => pos = next,
            Err(_) => break,
        }
    }
    pos.placement().fen_field()
}

/// The LiveChess state of a board's link.
fn link_state(view: &BoardView) -> EboardState {
    match &view.driver {
        Some(d) if d.stopped => EboardState::Inactive,
        Some(d) if d.info.connected => EboardState::Active,
        Some(d) if d.port.is_some() => EboardState::NotResponding,
        _ => EboardState::Inactive,
    }
}

fn board_state(
    hub: &Hub,
    cfg: &BoardConfig,
    view: &BoardView,
    games: &BoardGames,
    serialnr: String,
    live: bool,
) -> BoardState {
    let game = game_view(games);
    let physical = if live { hub.physical(cfg.number) } else { None };
    let board = match &physical {
        Some(p) => p.placement.fen_field(),
        None => final_placement(&game),
    };
    let clock = physical.and_then(|p| p.clock).and_then(|(c, at)| {
        if c.no_clock {
            return None;
        }
        let white_side = view
            .snapshot
            .as_ref()
            .map(|s| s.white_clock)
            .or(cfg.white_clock)
            .unwrap_or(dgt_protocol::ClockSide::Left);
        Some(Clock {
            white: c.side(white_side).time.millis() / 1000,
            black: c.side(white_side.other()).time.millis() / 1000,
            run: c.running.then_some(c.lever == white_side),
            time: at,
        })
    });
    let driver = view.driver.as_ref();
    BoardState {
        number: cfg.number,
        eboard: Eboard {
            serialnr,
            source: driver
                .and_then(|d| d.port.as_ref())
                .map_or_else(|| cfg.port.to_string(), |p| p.display().to_string()),
            state: link_state(view),
            battery: driver
                .and_then(|d| d.info.battery.as_ref())
                .map(|b| b.percent),
            comment: None,
            board,
            // Always White at the bottom: the tracker's squares are the real ones.
            flipped: false,
            clock,
        },
        game,
    }
}

/// The round as this API shows it (see the module documentation for the delay).
pub fn hall(hub: &Hub, public: &Public, config: &Config) -> Hall {
    let live = public.is_live();
    let views = hub.boards();
    // A board's serial number when the driver has read it and no other board has the
    // same; else its board number (a subscription by either finds it).
    let serial_of = |v: &BoardView| v.driver.as_ref().and_then(|d| d.info.serial.clone());
    let boards = config
        .boards
        .iter()
        .filter_map(|cfg| {
            let view = views.iter().find(|v| v.number == cfg.number)?;
            let serial = serial_of(view)
                .filter(|s| {
                    views
                        .iter()
                        .filter(|v| serial_of(v).as_ref() == Some(s))
                        .count()
                        == 1
                })
                .unwrap_or_else(|| cfg.number.to_string());
            let games = public.board(cfg.number).unwrap_or_default();
            let pairing = cfg.pairing.as_ref();
            Some(HallBoard {
                state: board_state(hub, cfg, view, &games, serial, live),
                white: player(cfg.white.as_ref(), pairing.map(|p| &p.white)),
                black: player(cfg.black.as_ref(), pairing.map(|p| &p.black)),
            })
        })
        .collect();
    Hall {
        name: config.event.name.clone(),
        location: config.event.site.clone(),
        country: String::new(),
        round: config.event.round,
        date: iso_date(&config.event.date),
        boards,
    }
}

async fn rest(State(s): State<ApiState>, Path(path): Path<String>) -> Response {
    let hall = s.hall();
    let cors = (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    match livechess_api::rest::get(&hall, &path) {
        Ok(body) => ([(header::CONTENT_TYPE, "application/json"), cors], body).into_response(),
        Err(livechess_api::rest::RestError::NotFound(m)) => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/json"), cors],
            serde_json::json!({ "error": m }).to_string(),
        )
            .into_response(),
    }
}

async fn websocket(
    State(s): State<ApiState>,
    conn: Option<Extension<ConnInfo>>,
    ws: WebSocketUpgrade,
) -> Response {
    let ip = conn.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.peer.ip());
    let seat = match s.room.take(ip) {
        Ok(taken) => {
            if let Some(from) = taken.made_room_from {
                tracing::info!(peer = %from, "LiveChess API: closed an idle connection to make room");
            }
            taken.seat
        }
        Err(why) => {
            tracing::warn!("LiveChess API: refused a connection: {why}");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("LiveChess API: {why} (at most {MAX_SESSIONS} at once)\n"),
            )
                .into_response();
        }
    };
    s.sessions.fetch_add(1, Ordering::SeqCst);
    ws.max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .on_upgrade(move |socket| async move {
            session(socket, &s, &seat).await;
            s.sessions.fetch_sub(1, Ordering::SeqCst);
        })
}

/// A frame or message over [`MAX_MESSAGE`] (tungstenite's capacity error).
fn is_too_big(e: axum::Error) -> bool {
    e.into_inner()
        .downcast_ref::<tokio_tungstenite::tungstenite::Error>()
        .is_some_and(|e| matches!(e, tokio_tungstenite::tungstenite::Error::Capacity(_)))
}

/// One connection: requests in, replies and feed messages out, until either side closes,
/// the connection is idle for [`IDLE_TIMEOUT`] or its place is taken back.
async fn session(mut socket: WebSocket, s: &ApiState, seat: &Seat) {
    let mut session = livechess_api::Session::new();
    let mut physical = s.hub.physical_changed();
    let mut public = s.public.changed();
    let mut closing = s.closing.clone();
    let stopping = *closing.borrow_and_update();
    if stopping {
        go_away(&mut socket).await;
        return;
    }
    // Busy (never taken back, never idle) while it has a subscription.
    let mut subscribed: Option<Busy> = None;
    let mut idle_at = tokio::time::Instant::now() + IDLE_TIMEOUT;
    loop {
        tokio::select! {
            r = closing.changed() => {
                // Stopping (or the daemon's sender is gone): say so, wait a moment for
                // the client's answer.
                let stopping = r.is_err() || *closing.borrow();
                if stopping {
                    go_away(&mut socket).await;
                    return;
                }
            }
            () = seat.taken_back() => {
                close_with(&mut socket, close_code::NORMAL, "idle: closed to make room for another connection").await;
                return;
            }
            () = tokio::time::sleep_until(idle_at), if subscribed.is_none() => {
                tracing::debug!("LiveChess API: closed an idle connection");
                close_with(&mut socket, close_code::NORMAL, "idle: no request and no subscription for 30 s").await;
                return;
            }
            msg = socket.recv() => {
                let text = match msg {
                    Some(Ok(Message::Text(t))) => t.as_str().to_owned(),
                    Some(Ok(Message::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None => return,
                    Some(Err(e)) => {
                        if is_too_big(e) {
                            tracing::info!("LiveChess API: closed a connection: a message over {MAX_MESSAGE} bytes");
                            close_with(&mut socket, close_code::SIZE, "message too big: at most 16 KiB").await;
                        } else {
                            tracing::debug!("LiveChess API: connection lost");
                        }
                        return;
                    }
                };
                seat.touch();
                idle_at = tokio::time::Instant::now() + IDLE_TIMEOUT;
                let boards = boards_now(s);
                let now = wall_clock::unix_ms_now();
                for out in session.receive(&text, &boards, now) {
                    match out {
                        livechess_api::Outgoing::Text(t) => {
                            if socket.send(Message::Text(t.into())).await.is_err() {
                                return;
                            }
                        }
                        livechess_api::Outgoing::Close(why) => {
                            tracing::info!("LiveChess API: closed a connection: {why}");
                            let _ = socket.send(Message::Close(None)).await;
                            return;
                        }
                    }
                }
                let has_subscription = session.boards().next().is_some();
                if has_subscription != subscribed.is_some() {
                    subscribed = has_subscription.then(|| seat.busy());
                }
            }
            r = physical.changed() => {
                if r.is_err() || !feed(&mut socket, &mut session, s).await {
                    return;
                }
            }
            r = public.changed() => {
                if r.is_err() || !feed(&mut socket, &mut session, s).await {
                    return;
                }
            }
        }
    }
}

/// Closes the connection because the daemon stops: 1001 (going away).
async fn go_away(socket: &mut WebSocket) {
    close_with(socket, close_code::AWAY, "the daemon is stopping").await
}

/// Closes the connection: a close frame with `code` and `reason`, then the client's
/// answer, [`CLOSE_ANSWER_WAIT`] at most.
async fn close_with(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    if socket.send(Message::Close(Some(frame))).await.is_err() {
        return;
    }
    let _ = tokio::time::timeout(CLOSE_ANSWER_WAIT, async {
        while let Some(r) = socket.recv().await {
            if matches!(r, Ok(Message::Close(_))) {
                break;
            }
        }
    })
    .await;
}

fn boards_now(s: &ApiState) -> Vec<BoardState> {
    s.hall().boards.into_iter().map(|b| b.state).collect()
}

/// Sends what the session's feeds call for; false when the connection is gone.
async fn feed(socket: &mut WebSocket, session: &mut livechess_api::Session, s: &ApiState) -> bool {
    if session.boards().next().is_none() {
        return true;
    }
    let boards = boards_now(s);
    for text in session.refresh(&boards, wall_clock::unix_ms_now()) {
        if socket.send(Message::Text(text.into())).await.is_err() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_hub::HubEvent;
    use touch_tracker::{ArbiterEvent, EventKind, MoveEvent};

    #[test]
    fn the_game_s_result_is_the_arbiter_s_where_he_set_one() {
        let mut games = BoardGames::default();
        assert_eq!(game_view(&games).result, None);
        games.games[0].result = Some(GameResult::WhiteWins);
        assert_eq!(game_view(&games).result, Some(GameResult::WhiteWins));
        // The arbiter decided otherwise (say, an appeal): the PGN's result, here too.
        games.games[0].arbiter_result = Some(touch_tracker::ArbiterResult::Draw);
        assert_eq!(games.games[0].result_or_ongoing(), GameResult::Draw);
        assert_eq!(game_view(&games).result, Some(GameResult::Draw));
    }

    fn config(extra: &str) -> Config {
        let text = format!(
            "[event]\nname = \"Open\"\ndate = \"2026-12-01\"\nround = 2\ntime_control = \"300+3\"\n\
             [output]\ndir = \"out\"\n{extra}\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n\
             white = \"Morphy, Paul\"\nblack = \"Anderssen, Adolf\"\n"
        );
        Config::parse(&text, std::path::Path::new("c.toml")).unwrap()
    }

    /// 1. e4 played now, on a board that shows it with a lifted knight besides.
    fn hub_with_a_move() -> Hub {
        let hub = Hub::new([1]);
        let now = wall_clock::unix_ms_now();
        hub.publish([HubEvent {
            seq: 1,
            board: 1,
            round: 2,
            wall_ms: now,
            replayed: false,
            event: ArbiterEvent {
                t_ms: 1,
                board: "1".into(),
                kind: EventKind::Move(MoveEvent {
                    ply: 1,
                    color: chess_rules::Color::White,
                    uci: "e2e4".parse().unwrap(),
                    san: "e4".into(),
                    fen: String::new(),
                    clock_ms: None,
                    pressed: true,
                    replaces: None,
                    recovered: false,
                    correction: false,
                    entered: false,
                    touches: vec![],
                }),
            },
        }]);
        let mut shown =
            chess_rules::Placement::from_fen_field("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR")
                .unwrap();
        shown.set("b8".parse().unwrap(), None);
        hub.set_placement(1, shown);
        hub
    }

    #[test]
    fn live_the_board_as_it_stands_delayed_only_what_is_public() {
        let hub = hub_with_a_move();
        let live = config("");
        let public = Public::new(&live, None);
        public.refresh(&hub, wall_clock::unix_ms_now());
        let h = hall(&hub, &public, &live);
        let b = &h.boards[0];
        assert_eq!(
            b.state.eboard.board,
            "r1bqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
        );
        assert_eq!(b.state.game.moves.len(), 1);
        assert_eq!(
            b.state.eboard.serialnr, "1",
            "no serial read yet: the board number"
        );
        assert_eq!(b.state.eboard.state, EboardState::Inactive);
        assert_eq!(b.white.lname.as_deref(), Some("Morphy"));
        assert_eq!(h.date.as_deref(), Some("2026-12-01"));

        let delayed = config("[broadcast]\ndelay = \"15m\"\n");
        let public = Public::new(&delayed, None);
        public.refresh(&hub, wall_clock::unix_ms_now());
        let h = hall(&hub, &public, &delayed);
        let b = &h.boards[0];
        assert!(b.state.game.moves.is_empty(), "the move is not public yet");
        assert_eq!(
            b.state.eboard.board,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        );
        assert_eq!(b.state.eboard.clock, None);
        // Its feed after a setup: nothing before the public may see it.
        let mut sub = livechess_api::Subscription::new(livechess_api::Id::Number(1.into()), 1);
        sub.setup(chess_rules::START_FEN).unwrap();
        let msg: serde_json::Value =
            serde_json::from_str(&sub.update(&b.state, 1).unwrap()).unwrap();
        assert_eq!(msg["param"]["san"], serde_json::json!([]));
    }

    #[test]
    fn dates_and_players() {
        assert_eq!(iso_date("2025.06.12").as_deref(), Some("2025-06-12"));
        assert_eq!(iso_date("2025.??.??"), None);
        let p = player(Some(&"Morphy, Paul".to_owned()), None);
        assert_eq!(
            (p.lname.as_deref(), p.fname.as_deref()),
            (Some("Morphy"), Some("Paul"))
        );
        let mut g = GameView::start(1);
        g.moves.push(MoveView {
            san: "e4".into(),
            uci: "e2e4".parse().unwrap(),
            clock_s: None,
        });
        assert_eq!(
            final_placement(&g),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
        );
    }
}
