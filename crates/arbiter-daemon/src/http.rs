//! The HTTP endpoint (axum), read-only, for broadcast tools that poll and for people:
//!
//! | path | what |
//! |---|---|
//! | `/healthz` | `ok` |
//! | `/boards` | JSON: every board with its players, tracker snapshot, driver status and current game |
//! | `/round.pgn` | every game of the round (PGN, rewritten live) |
//! | `/games/{B}.pgn` | the current game on board B |
//! | `/livechess/...` | the LiveChess folder (`tournament.json`, `round-R/index.json`, `round-R/game-N.pgn`, `round-R/games.pgn`) |
//! | `/events` | the JSON events as Server-Sent Events (`event:` the kind, `id:` board-seq) |
//!
//! Who may read which route, and the Host/Origin checks: [`access`]. Connection caps,
//! timeouts and TLS: [`listen`], [`tls`].
//!
//! Everything is rendered on request: the public routes (`/boards`, `/round.pgn`,
//! `/games/*`, `/livechess/*`) from the public view ([`arbiter_outputs::public`]: the broadcast
//! delay, boards off the air), `/events` (the arbiter's feed) from the hub, real time.
//! Bodies are limited to 16 KiB (nothing
//! here takes one); bad paths get 404 with a word of explanation, never a panic. Other
//! modules add routes with [`router`]'s state ([`AppState`]) and `Router::merge`.

pub mod access;
pub mod listen;
pub mod room;

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures_util::stream::Stream;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use arbiter_hub::Hub;
use arbiter_outputs::public::Public;
use arbiter_outputs::sinks::livechess::{existing_rounds, render_folder};
use arbiter_outputs::sinks::pgn::{render, render_round, Flavour};
use daemon_config::Config;

/// Largest request body accepted.
pub const MAX_BODY: usize = 16 * 1024;

/// What handlers see.
#[derive(Clone)]
pub struct AppState {
    pub hub: Arc<Hub>,
    pub config: Arc<Config>,
    /// What the public may see now.
    pub public: Arc<Public>,
}

impl AppState {
    /// The public view, brought up to this moment.
    fn public(&self) -> &Public {
        self.public.refresh(&self.hub, wall_clock::unix_ms_now());
        &self.public
    }
}

/// The routes of this module.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/boards", get(boards))
        .route("/round.pgn", get(round_pgn))
        .route("/games/{file}", get(game_pgn))
        .route("/livechess/{*path}", get(livechess))
        .route("/events", get(events))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Serves until the task is aborted, with the connection caps and timeouts of
/// [`listen`] (over TLS when `tls` is given).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    caps: listen::Caps,
    tls: Option<Arc<rustls::ServerConfig>>,
) {
    listen::serve(listener, router, caps, tls).await
}

fn pgn(text: String) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/x-chess-pgn; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

fn not_found(what: String) -> Response {
    (StatusCode::NOT_FOUND, format!("{what}\n")).into_response()
}

async fn boards(State(s): State<AppState>) -> Json<Value> {
    let public = s.public();
    // Live (no delay, every board on the air): the hub's view as it is. Otherwise the
    // tracker's snapshot (the position now) and the event count are not public.
    let live = public.is_live();
    let list: Vec<Value> = s
        .hub
        .boards()
        .into_iter()
        .map(|v| {
            let cfg = s.config.board(v.number);
            let games = if live {
                Arc::clone(&v.games)
            } else {
                public.board(v.number).unwrap_or_default()
            };
            let game = games.current();
            json!({
                "number": v.number,
                "white": cfg.and_then(|c| c.white.clone()),
                "black": cfg.and_then(|c| c.black.clone()),
                "port": cfg.map(|c| c.port.to_string()),
                "snapshot": if live { v.snapshot } else { None },
                "driver": v.driver,
                "seq": if live { Some(v.seq) } else { None },
                "game": {
                    "number": game.number,
                    "plies": game.moves.len(),
                    "result": game.result_or_ongoing().as_str(),
                    "termination": game.termination(),
                    "live": game.is_live(),
                },
            })
        })
        .collect();
    Json(json!({
        "event": s.config.event.name,
        "round": s.config.event.round,
        "boards": list,
    }))
}

async fn round_pgn(State(s): State<AppState>) -> Response {
    pgn(render_round(&s.config, &s.public().games()))
}

async fn game_pgn(State(s): State<AppState>, Path(file): Path<String>) -> Response {
    let Some(number) = file
        .strip_suffix(".pgn")
        .and_then(|n| n.parse::<u32>().ok())
    else {
        return not_found(format!(
            "no game {file:?}: ask for /games/B.pgn, B a board number"
        ));
    };
    match (s.config.board(number), s.public().board(number)) {
        (Some(cfg), Some(games)) => pgn(render(&s.config, cfg, games.current(), Flavour::Standard)),
        _ => not_found(format!("no board {number}")),
    }
}

async fn livechess(State(s): State<AppState>, Path(path): Path<String>) -> Response {
    // The earlier rounds as the folder on disk has them, so that the served
    // tournament.json is the file the LiveChess sink writes.
    let folder = daemon_config::paths::Paths::new(&s.config.output.dir).livechess();
    let rounds = existing_rounds(&folder);
    let files = render_folder(&s.config, &s.public().games(), &rounds);
    match files.get(path.as_str()) {
        Some(bytes) => {
            let kind = if path.ends_with(".json") {
                "application/json"
            } else {
                "application/x-chess-pgn; charset=utf-8"
            };
            ([(header::CONTENT_TYPE, kind)], bytes.clone()).into_response()
        }
        None => not_found(format!(
            "no {path:?} in the LiveChess folder; it has: {}",
            files.keys().cloned().collect::<Vec<_>>().join(", ")
        )),
    }
}

async fn events(State(s): State<AppState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = s.hub.subscribe();
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let event = match rx.recv().await {
            Ok(e) => Event::default()
                .event(e.event.kind_name())
                .id(format!("{}-{}", e.board, e.seq))
                .data(e.to_json()),
            Err(RecvError::Lagged(n)) => Event::default().comment(format!("{n} events lost")),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(event), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
