//! `POST /api/boards/{B}/accept/{white|black}[?ply=N]`: the arbiter accepts what an
//! out-of-sync board shows as the position, White or Black to move (issue 12), at ply `N`
//! when he knows it from the scoresheets (issue 36: the ply PGN move numbers follow from
//! is never a guess; without it the clock's presses decide when they prove it, otherwise
//! the answer and the event say it is unknown). An arbiter action (the token, in the
//! header): the board task checks it against the tracker, journals it and applies it; the
//! answer is the position adopted (200), or why not (409: the board is not out of sync,
//! what it shows is no legal position with that side to move, or the ply cannot be it).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chess_rules::Color;
use serde_json::json;
use tokio::sync::oneshot;

use super::api::{error, refused};
use super::{Answer, Command, Dashboard};
use arbiter_hub::commands::{ArbiterCommand, CommandError};

/// How long the answer may take (the board task journals the order durably first).
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

pub(super) async fn accept_board(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    Path((board, side)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    // Taken (and ignored) so that the body limit applies.
    _body: Bytes,
) -> Response {
    if let Err(r) = d.gate.check_action(&headers) {
        return refused(r);
    }
    let side = match side.as_str() {
        "white" => Color::White,
        "black" => Color::Black,
        _ => {
            return error(
                StatusCode::NOT_FOUND,
                "the side to move is white or black: POST /api/boards/B/accept/white",
            )
        }
    };
    let ply = match accept_ply(query.as_deref()) {
        Ok(ply) => ply,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    let number = match known_board(&d, &board, "POST /api/boards/B/accept/SIDE") {
        Ok(n) => n,
        Err(r) => return r,
    };
    d.command(number, Command::Accept { side, ply })
        .await
        .into_response()
}

/// Carries an acceptance out ([`Dashboard::execute`]).
pub(super) async fn accept(d: &Dashboard, number: u32, side: Color, ply: Option<u32>) -> Answer {
    let (reply, answer) = oneshot::channel();
    let order = ArbiterCommand::AcceptBoard { side, ply, reply };
    match ask_board(d, number, order, answer).await {
        Ok(a) => {
            tracing::info!(
                board = number,
                ply = a.ply,
                "dashboard: the board is accepted as {}",
                a.fen
            );
            Answer::ok(json!({
                "board": number,
                "side_to_move": side,
                "fen": a.fen,
                "ply": a.ply,
                "ply_unknown": a.ply_unknown,
            }))
        }
        Err(a) => a,
    }
}

/// `POST /api/boards/{B}/serial/{S}`: the arbiter confirms that the board answering on
/// board B's port with serial S, which no board of the event has, is board B (a spare put
/// in its place, [`arbiter_hub::serials`]): its events are recorded as board B's from then on.
/// 200, or 409 with why not (another serial answers there, board B answers elsewhere).
pub(super) async fn confirm_serial(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    Path((board, serial)): Path<(String, String)>,
    _body: Bytes,
) -> Response {
    if let Err(r) = d.gate.check_action(&headers) {
        return refused(r);
    }
    let number = match known_board(&d, &board, "POST /api/boards/B/serial/S") {
        Ok(n) => n,
        Err(r) => return r,
    };
    d.command(number, Command::Serial { serial })
        .await
        .into_response()
}

/// Carries a serial's confirmation out ([`Dashboard::execute`]).
pub(super) async fn confirm(d: &Dashboard, number: u32, serial: String) -> Answer {
    let (reply, answer) = oneshot::channel();
    let order = ArbiterCommand::ConfirmSerial {
        serial: serial.clone(),
        reply,
    };
    match ask_board(d, number, order, answer).await {
        Ok(()) => Answer::ok(json!({ "board": number, "serial": serial })),
        Err(a) => a,
    }
}

/// The board number of a route's `{B}`, when the hub has that board; else the 404 naming
/// the route as `usage` says it (`POST /api/boards/B/moves`).
// The error is the handler's own early answer, returned at once: no need to box it.
#[allow(clippy::result_large_err)]
pub(super) fn known_board(d: &Dashboard, board: &str, usage: &str) -> Result<u32, Response> {
    board
        .parse::<u32>()
        .ok()
        .filter(|_| board.len() <= 6)
        .filter(|n| d.hub.board(*n).is_some())
        .ok_or_else(|| {
            error(
                StatusCode::NOT_FOUND,
                format!("no board {board:?}: {usage}, B a board number"),
            )
        })
}

/// Sends `order` to board `number`'s task and waits for its answer: the answer, or the
/// answer that says why there is none (503 not running or silent, 429 busy, 409 with
/// the board's reason).
pub(super) async fn ask_board<T>(
    d: &Dashboard,
    number: u32,
    order: ArbiterCommand,
    answer: oneshot::Receiver<Result<T, String>>,
) -> Result<T, Answer> {
    match d.hub.commands.send(number, order) {
        Ok(()) => {}
        Err(e @ CommandError::NotRunning(_)) => {
            return Err(Answer::error(
                StatusCode::SERVICE_UNAVAILABLE,
                e.to_string(),
            ))
        }
        Err(e @ CommandError::Busy(_)) => {
            return Err(Answer::error(StatusCode::TOO_MANY_REQUESTS, e.to_string()))
        }
    }
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(Ok(Ok(a))) => Ok(a),
        Ok(Ok(Err(why))) => Err(Answer::error(StatusCode::CONFLICT, why)),
        _ => Err(Answer::error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("board {number} did not answer; look at its state and try again"),
        )),
    }
}

/// The `ply=N` of the query, if given (the only parameter the route takes).
fn accept_ply(query: Option<&str>) -> Result<Option<u32>, String> {
    let mut ply = None;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("ply", n)) if n.len() <= 6 && !n.is_empty() => match n.parse::<u32>() {
                Ok(n) => ply = Some(n),
                Err(_) => return Err(format!("ply={n:?} is not a number of plies")),
            },
            _ => {
                return Err(format!(
                    "bad query {pair:?}: POST /api/boards/B/accept/SIDE takes ply=N (the ply \
                     the board's position stands at, from the scoresheets) or nothing"
                ))
            }
        }
    }
    Ok(ply)
}

#[cfg(test)]
mod tests {
    use super::accept_ply;

    #[test]
    fn the_ply_comes_from_the_query_or_is_not_given() {
        assert_eq!(accept_ply(None), Ok(None));
        assert_eq!(accept_ply(Some("")), Ok(None));
        assert_eq!(accept_ply(Some("ply=18")), Ok(Some(18)));
        assert!(accept_ply(Some("ply=x")).is_err());
        assert!(accept_ply(Some("ply=")).is_err());
        assert!(accept_ply(Some("plies=18")).is_err());
        assert!(accept_ply(Some("ply=99999999999")).is_err());
    }
}
