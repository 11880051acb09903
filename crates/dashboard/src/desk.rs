//! The arbiter's desk (issue 40), through the same order channel as the acceptance
//! ([`super::accept`]): the board task checks the order against the tracker, journals it
//! (durable before it acts, so `kill -9` and a restart keep it) and applies it.
//!
//! - `POST /api/boards/{B}/moves` `{"moves": ["Bb5", "a6", ...], "from_ply": N}`: the
//!   moves of a gap, SAN or UCI, from ply `N` (default: the last recorded one). 200 with
//!   the record's last position, or 409 naming the first move that does not fit and why.
//! - `POST /api/boards/{B}/takeback` `{"to_ply": N, "reason": "..."}`: the record cut back
//!   to ply `N` (art. 7.5.1: an illegal move found later; or the arbiter's decision), the
//!   board to show that position again. 200, or 409 with why not.
//!
//! - `POST /api/boards/{B}/clock` `{"white_ms": ..., "black_ms": ..., "reason": "..."}`:
//!   the times the arbiter sets (art. 6.10 / 12.9), a `clock_set` decision ([`clock_route`]).
//!   200 with the decision's event, or 409 with why not.
//!
//! A body that is not such JSON is a 400 saying what is expected. Like every command they
//! work from a central, carried out by the board's hall ([`super::command`]).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::oneshot;

use super::accept::{ask_board, known_board};
use super::api::{error, refused};
use super::{Answer, Command, Dashboard};
use arbiter_hub::commands::ArbiterCommand;

/// Largest body of the moves route: a long gap's moves in SAN (the others take 1 KiB).
pub const MAX_MOVES_BODY: usize = 16 * 1024;

/// Most moves one order enters (a gap longer than a game's worth is a typing error).
const MAX_MOVES: usize = 600;

/// Longest reason kept with a takeback.
const MAX_REASON: usize = 300;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MovesBody {
    moves: Vec<String>,
    #[serde(default)]
    from_ply: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockBody {
    white_ms: u64,
    black_ms: u64,
    reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TakebackBody {
    to_ply: u32,
    #[serde(default)]
    reason: String,
}

/// What both desk routes check first: the arbiter's token, the board, the JSON body
/// (`example` shows the form in the 400 answer).
// The error is the handler's own early answer, as `known_board`'s: no need to box it.
#[allow(clippy::result_large_err)]
fn desk_order<T: serde::de::DeserializeOwned>(
    d: &Dashboard,
    headers: &HeaderMap,
    board: &str,
    route: &str,
    body: &[u8],
    example: &str,
) -> Result<(u32, T), Response> {
    d.gate.check_action(headers).map_err(refused)?;
    let number = known_board(d, board, &format!("POST /api/boards/B/{route}"))?;
    let body = serde_json::from_slice(body)
        .map_err(|e| error(StatusCode::BAD_REQUEST, format!("{example}: {e}")))?;
    Ok((number, body))
}

pub(super) async fn moves_route(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    Path(board): Path<String>,
    body: Bytes,
) -> Response {
    let example = "the moves are JSON such as {\"moves\": [\"Bb5\", \"a6\"]} (SAN or UCI; \
                   optional \"from_ply\": N)";
    match desk_order::<MovesBody>(&d, &headers, &board, "moves", &body, example) {
        Ok((number, b)) => {
            let command = Command::Moves {
                moves: b.moves,
                from_ply: b.from_ply,
            };
            d.command(number, command).await.into_response()
        }
        Err(r) => r,
    }
}

/// Enters the moves of a gap ([`Dashboard::execute`]): 200 with the record's last
/// position, 409 naming the first move that does not fit, 400 for what is no list of
/// moves.
pub(super) async fn enter(
    d: &Dashboard,
    number: u32,
    moves: Vec<String>,
    from_ply: Option<u32>,
) -> Answer {
    if moves.is_empty() || moves.len() > MAX_MOVES {
        return Answer::error(
            StatusCode::BAD_REQUEST,
            format!("give from 1 to {MAX_MOVES} moves"),
        );
    }
    if let Some(bad) = moves
        .iter()
        .position(|m| m.trim().is_empty() || m.len() > 12)
    {
        return Answer::error(
            StatusCode::BAD_REQUEST,
            format!("move {} is not a move in SAN or UCI", bad + 1),
        );
    }
    let count = moves.len();
    let (reply, answer) = oneshot::channel();
    let order = ArbiterCommand::EnterMoves {
        from_ply,
        moves,
        reply,
    };
    match ask_board(d, number, order, answer).await {
        Ok(Ok(r)) => {
            tracing::info!(
                board = number,
                ply = r.ply,
                "dashboard: {count} move(s) entered by the arbiter"
            );
            Answer::ok(json!({ "board": number, "entered": count, "ply": r.ply, "fen": r.fen }))
        }
        Ok(Err(refusal)) => {
            let (index, text) = match refusal.culprit {
                Some((i, t)) => (Some(i), Some(t)),
                None => (None, None),
            };
            Answer {
                status: StatusCode::CONFLICT,
                body: json!({
                    "error": refusal.why,
                    "move_index": index,
                    "move": text,
                }),
            }
        }
        Err(a) => a,
    }
}

pub(super) async fn takeback_route(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    Path(board): Path<String>,
    body: Bytes,
) -> Response {
    let example = "the takeback is JSON such as {\"to_ply\": 20, \"reason\": \"illegal move \
                   at ply 21 found later (art. 7.5.1)\"}";
    match desk_order::<TakebackBody>(&d, &headers, &board, "takeback", &body, example) {
        Ok((number, b)) => {
            let command = Command::Takeback {
                to_ply: b.to_ply,
                reason: b.reason,
            };
            d.command(number, command).await.into_response()
        }
        Err(r) => r,
    }
}

/// Takes the game back to `to_ply` ([`Dashboard::execute`]): 200 with the record's last
/// position, 409 with why not.
pub(super) async fn take_back(d: &Dashboard, number: u32, to_ply: u32, reason: String) -> Answer {
    if reason.len() > MAX_REASON {
        return Answer::error(
            StatusCode::BAD_REQUEST,
            format!("the reason is at most {MAX_REASON} bytes"),
        );
    }
    let (reply, answer) = oneshot::channel();
    let order = ArbiterCommand::TakeBack {
        to_ply,
        reason: reason.trim().to_owned(),
        reply,
    };
    match ask_board(d, number, order, answer).await {
        Ok(r) => {
            tracing::warn!(
                board = number,
                ply = r.ply,
                "dashboard: the game is taken back"
            );
            Answer::ok(json!({ "board": number, "ply": r.ply, "fen": r.fen }))
        }
        Err(a) => a,
    }
}

/// `POST /api/boards/{B}/clock` `{"white_ms", "black_ms", "reason"}`: the times the
/// arbiter sets (art. 6.10: a clock set wrong or defective; 12.9: time added), an
/// arbiter's decision (`clock_set`) like those of `/decision`, which the tracker checks
/// and the board task journals; an unattended board's DGT3000 is set to them, any other
/// clock is the arbiter's to set and the decision records what he set.
pub(super) async fn clock_route(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    Path(board): Path<String>,
    body: Bytes,
) -> Response {
    let example = "the clocks are JSON such as {\"white_ms\": 1800000, \"black_ms\": \
                   1750000, \"reason\": \"the clock was set wrong (art. 6.10.2)\"}";
    match desk_order::<ClockBody>(&d, &headers, &board, "clock", &body, example) {
        Ok((number, b)) => {
            let input = touch_tracker::ArbiterInput {
                decision: touch_tracker::Decision::ClockSet,
                color: None,
                ply: None,
                add_ms: None,
                result: None,
                white_ms: Some(b.white_ms),
                black_ms: Some(b.black_ms),
                reason: Some(b.reason),
            };
            d.command(number, Command::Decision { input })
                .await
                .into_response()
        }
        Err(r) => r,
    }
}
