//! `POST /api/boards/{B}/accept/{white|black}`: the arbiter accepts what an out-of-sync
//! board shows as the position, White or Black to move (issue 12). An arbiter action (the
//! token, in the header): the board task checks it against the tracker, journals it and
//! applies it; the answer is the position adopted (200), or why not (409: the board is
//! not out of sync, or what it shows is no legal position with that side to move).

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chess_rules::Color;
use serde_json::json;
use tokio::sync::oneshot;

use super::api::{error, fresh, refused};
use super::Dashboard;
use crate::orders::{ArbiterOrder, OrderError};

/// How long the answer may take (the board task journals the order durably first).
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

pub(super) async fn accept_board(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    Path((board, side)): Path<(String, String)>,
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
    let Some(number) = board
        .parse::<u32>()
        .ok()
        .filter(|_| board.len() <= 6)
        .filter(|n| d.hub.board(*n).is_some())
    else {
        return error(
            StatusCode::NOT_FOUND,
            format!("no board {board:?}: POST /api/boards/B/accept/SIDE, B a board number"),
        );
    };
    let (reply, answer) = oneshot::channel();
    match d
        .hub
        .orders
        .send(number, ArbiterOrder::AcceptBoard { side, reply })
    {
        Ok(()) => {}
        Err(e @ OrderError::NotRunning(_)) => {
            return error(StatusCode::SERVICE_UNAVAILABLE, e.to_string())
        }
        Err(e @ OrderError::Busy(_)) => return error(StatusCode::TOO_MANY_REQUESTS, e.to_string()),
    }
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(Ok(Ok(fen))) => {
            tracing::info!(board = number, "dashboard: the board is accepted as {fen}");
            fresh(json!({ "board": number, "side_to_move": side, "fen": fen }))
        }
        Ok(Ok(Err(why))) => error(StatusCode::CONFLICT, why),
        _ => error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("board {number} did not answer; look at its state and try again"),
        ),
    }
}
