//! The dashboard's routes (see the table in the module above). Every answer is JSON or
//! the page; errors are `{"error": "..."}` with 400, 401, 403 or 404. Request bodies are
//! limited to 1 KiB (actions need none), paths and ids are checked before use.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::stream::Stream;
use tokio::sync::broadcast::error::RecvError;

use messages::{Language, Messages};

use super::alerts::{alert_board, Action};
use super::auth::{Refusal, SESSION_COOKIE};
use super::lang::lang_query;
use super::{Answer, Command, Dashboard, Message};

/// Largest request body the dashboard accepts.
pub const MAX_BODY: usize = 1024;

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/dashboard.js");
const STYLE: &str = include_str!("page/dashboard.css");

/// No inline script or style, nothing from elsewhere.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

type Shared = Arc<Dashboard>;

/// The dashboard's routes with their state.
pub fn router(dash: Shared) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/assets/dashboard.js", get(script))
        .route("/assets/dashboard.css", get(style))
        .route("/api/messages", get(super::lang::messages))
        .route("/api/state", get(state))
        .route("/api/stream", get(stream))
        .route("/api/boards/{board}/history", get(history))
        .route("/api/alerts/{id}/{action}", post(act))
        .route(
            "/api/boards/{board}/accept/{side}",
            post(super::accept::accept_board),
        )
        .route(
            "/api/boards/{board}/serial/{serial}",
            post(super::accept::confirm_serial),
        )
        .route(
            "/api/boards/{board}/moves",
            post(super::desk::moves_route)
                .layer(DefaultBodyLimit::max(super::desk::MAX_MOVES_BODY)),
        )
        .route(
            "/api/boards/{board}/takeback",
            post(super::desk::takeback_route),
        )
        .route("/api/boards/{board}/decision", post(decision))
        .route(
            "/api/boards/{board}/evidence",
            get(super::evidence_pack::evidence_route),
        )
        .route("/api/boards/{board}/clock", post(super::desk::clock_route))
        .route("/api/login", post(login))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::map_response(json_when_too_large))
        .with_state(dash)
}

/// The body limit's refusal (axum's, in plain text) as JSON like every other error here.
async fn json_when_too_large(response: Response) -> Response {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE || is_json {
        return response;
    }
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is over {MAX_BODY} bytes, the most this API takes"),
    )
}

pub(super) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    Answer::error(status, message).into_response()
}

pub(super) fn refused(r: Refusal) -> Response {
    let status = match r {
        Refusal::Missing => StatusCode::UNAUTHORIZED,
        Refusal::Wrong | Refusal::NoneConfigured => StatusCode::FORBIDDEN,
    };
    error(status, r.message())
}

/// JSON that no cache keeps.
pub(super) fn fresh(value: serde_json::Value) -> Response {
    ([(header::CACHE_CONTROL, "no-store")], Json(value)).into_response()
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn page() -> Response {
    asset("text/html; charset=utf-8", PAGE)
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

async fn state(
    State(d): State<Shared>,
    headers: HeaderMap,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Response {
    if let Err(r) = d.gate.check_read(&headers) {
        return refused(r);
    }
    let (mut offset, mut limit) = (0, super::ALERTS_PAGE);
    let mut language = Language::En;
    for pair in query
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key == "lang" {
            match super::lang::parse_lang(value) {
                Ok(l) => language = l,
                Err(why) => return error(StatusCode::BAD_REQUEST, why),
            }
            continue;
        }
        let number = value.parse::<usize>().ok().filter(|_| value.len() <= 9);
        match (key, number) {
            ("alerts_offset", Some(n)) => offset = n,
            ("alerts_limit", Some(n)) if n <= super::ALERTS_PAGE_MAX => limit = n,
            _ => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "bad query {pair:?}: /api/state takes alerts_offset=N and \
                         alerts_limit=N (N at most {}), lang=CODE ({})",
                        super::ALERTS_PAGE_MAX,
                        Language::choices()
                    ),
                )
            }
        }
    }
    fresh(d.state_page_json(offset, limit, language))
}

async fn history(
    State(d): State<Shared>,
    headers: HeaderMap,
    Path(board): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    if let Err(r) = d.gate.check_read(&headers) {
        return refused(r);
    }
    let language = match lang_query(query.as_deref(), "/api/boards/B/history") {
        Ok(l) => l.unwrap_or_default(),
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    let number = board.parse::<u32>().ok().filter(|_| board.len() <= 6);
    match number.and_then(|n| d.history_json(n, language)) {
        Some(v) => fresh(v),
        None => error(
            StatusCode::NOT_FOUND,
            format!("no board {board:?}: ask for /api/boards/B/history, B a board number"),
        ),
    }
}

async fn act(
    State(d): State<Shared>,
    headers: HeaderMap,
    Path((id, action)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    // Taken (and ignored) so that the body limit applies.
    _body: Bytes,
) -> Response {
    if let Err(r) = d.gate.check_action(&headers) {
        return refused(r);
    }
    let language = match lang_query(query.as_deref(), "POST /api/alerts/ID/ACTION") {
        Ok(l) => l.unwrap_or_default(),
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    let Some(action) = Action::from_word(&action) else {
        return error(
            StatusCode::NOT_FOUND,
            "no such action: POST /api/alerts/ID/ack or /api/alerts/ID/resolve",
        );
    };
    // The id names its board: the board whose hall carries the action out on a central.
    let Some(board) = alert_board(&id) else {
        return error(
            StatusCode::BAD_REQUEST,
            "an alert id is BOARD-SEQ, two numbers (such as 3-17)",
        );
    };
    let command = match action {
        Action::Acknowledge => Command::Ack { alert: id.clone() },
        Action::Resolve => Command::Resolve { alert: id.clone() },
    };
    let answer = d.command(board, command).await;
    if answer.status.is_success() && language != Language::En {
        // The alert is kept (and answered by a hall) in English: said again here in the
        // language asked for.
        let alert = d.lock().alerts.get(&id).cloned();
        if let Some(alert) = alert {
            return fresh(
                serde_json::to_value(alert.in_language(Messages::new(language)))
                    .unwrap_or_default(),
            );
        }
    }
    answer.into_response()
}

/// `POST /api/boards/{B}/decision` with the arbiter's decision as JSON
/// (`touch_tracker::ArbiterInput`: `{"decision":"warning","color":"white","ply":23}`,
/// `{"decision":"time_added",...,"add_ms":120000}`, `{"decision":"game_lost",...}`,
/// `{"decision":"result_set","result":"1-0"}`, `{"decision":"result_cleared"}`,
/// `{"decision":"result_confirmed","result":"0-1"}`, `{"decision":"clock_set",
/// "white_ms":...,"black_ms":...,"reason":"..."}`). Answers the events it made.
async fn decision(
    State(d): State<Shared>,
    headers: HeaderMap,
    Path(board): Path<String>,
    body: Bytes,
) -> Response {
    if let Err(r) = d.gate.check_action(&headers) {
        return refused(r);
    }
    let Some(number) = board.parse::<u32>().ok().filter(|_| board.len() <= 6) else {
        return error(
            StatusCode::NOT_FOUND,
            format!("no board {board:?}: POST /api/boards/B/decision, B a board number"),
        );
    };
    let input: touch_tracker::ArbiterInput = match serde_json::from_slice(&body) {
        Ok(i) => i,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                format!(
                    "the decision is JSON such as {{\"decision\":\"warning\",\"color\":                     \"white\",\"ply\":23}} or {{\"decision\":\"result_set\",\"result\":\"1-0\"}}: {e}"
                ),
            )
        }
    };
    d.command(number, Command::Decision { input })
        .await
        .into_response()
}

async fn login(State(d): State<Shared>, headers: HeaderMap, _body: Bytes) -> Response {
    if let Err(r) = d.gate.check_action(&headers) {
        return refused(r);
    }
    match d.gate.open_session() {
        Ok(id) => {
            let cookie = format!("{SESSION_COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict");
            match HeaderValue::from_str(&cookie) {
                Ok(v) => (StatusCode::NO_CONTENT, [(header::SET_COOKIE, v)]).into_response(),
                Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "cannot make a session"),
            }
        }
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot make a session: {e}"),
        ),
    }
}

fn sse(m: &Message, language: Language) -> Event {
    Event::default().event(m.event).data(m.data_in(language))
}

async fn stream(
    State(d): State<Shared>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if let Err(r) = d.gate.check_read(&headers) {
        return refused(r);
    }
    let language = match lang_query(query.as_deref(), "/api/stream") {
        Ok(l) => l.unwrap_or_default(),
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    // Subscribe before taking the state, so nothing falls between the two.
    let rx = d.stream.subscribe();
    let hello = Message {
        event: "hello",
        data: d.state_json(language).to_string(),
        words: None,
    };
    let events = live(d, rx, hello, language);
    let mut r = Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn live(
    d: Shared,
    rx: tokio::sync::broadcast::Receiver<Arc<Message>>,
    hello: Message,
    language: Language,
) -> impl Stream<Item = Result<Event, Infallible>> {
    futures_util::stream::unfold((d, rx, Some(hello)), move |(d, mut rx, first)| async move {
        if let Some(h) = first {
            return Some((Ok(sse(&h, language)), (d, rx, None)));
        }
        let event = match rx.recv().await {
            Ok(m) => sse(&m, language),
            // Fell a whole buffer behind (a client that does not read): dropped. Its
            // messages were never copied for it; a browser's EventSource reconnects and
            // gets the whole state in a new hello.
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(
                    "dashboard: dropped a stream that fell {n} messages behind (not reading)"
                );
                return None;
            }
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(event), (d, rx, None)))
    })
}
