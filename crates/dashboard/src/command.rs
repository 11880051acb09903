//! Every arbiter command the dashboard takes, one way: a route reads its request into a
//! [`Command`] and hands it to [`Dashboard::command`]. A daemon that drives the board
//! carries it out ([`Dashboard::execute`]: the board's task checks it, journals it and
//! applies it); a central forwards it to the board's hall ([`Forward`]), whose responder
//! calls the same [`Dashboard::execute`], and answers what the hall answered. So a
//! decision, an acceptance or a takeback from the central is the hall's own, journaled
//! there as if asked locally, and refused there for the same reasons.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

pub use hall_network::Command;

use super::alerts::{alert_board, Action};
use super::Dashboard;

/// A command's answer: the route's status and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: StatusCode,
    pub body: Value,
}

impl Answer {
    pub fn ok(body: Value) -> Answer {
        Answer {
            status: StatusCode::OK,
            body,
        }
    }

    /// `{"error": message}` with `status`.
    pub fn error(status: StatusCode, message: impl Into<String>) -> Answer {
        Answer {
            status,
            body: json!({ "error": message.into() }),
        }
    }

    /// An answer given elsewhere (a hall's): its status as a number (one that is no HTTP
    /// status is a 502: what came back is not an answer).
    pub fn of_status(status: u16, body: Value) -> Answer {
        Answer {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY),
            body,
        }
    }

    /// The refusal's words, when it is one.
    pub fn error_text(&self) -> Option<String> {
        if self.status.is_success() {
            return None;
        }
        Some(
            self.body["error"]
                .as_str()
                .map_or_else(|| self.body.to_string(), str::to_owned),
        )
    }
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        if self.status.is_success() {
            super::api::fresh(self.body)
        } else {
            (self.status, Json(self.body)).into_response()
        }
    }
}

/// Why a forwarded command has no answer from the board's hall (nothing is known to have
/// changed there).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForwardError {
    /// The hall did not answer in time (504): it may still carry the command out, which
    /// its events will show.
    #[error("{0}")]
    NoAnswer(String),
    /// The hall cannot be reached, or answered something unreadable (502).
    #[error("{0}")]
    Unreachable(String),
}

impl ForwardError {
    fn status(&self) -> StatusCode {
        match self {
            ForwardError::NoAnswer(_) => StatusCode::GATEWAY_TIMEOUT,
            ForwardError::Unreachable(_) => StatusCode::BAD_GATEWAY,
        }
    }
}

/// What [`Forward::forward`] returns: the hall's answer, or why there is none.
pub type ForwardFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Answer, ForwardError>> + Send>>;

/// Carries an arbiter's command out elsewhere (the central forwards it to the hall that
/// owns the board). Must answer within a bounded time.
pub trait Forward: Send + Sync + std::fmt::Debug {
    fn forward(&self, board: u32, command: Command) -> ForwardFuture;
}

impl Dashboard {
    /// An arbiter's command for board `board`, as every route gives it: carried out here,
    /// or (a central) by the board's hall.
    pub async fn command(self: &Arc<Dashboard>, board: u32, command: Command) -> Answer {
        if self.hub.board(board).is_none() {
            return no_board(board, &command);
        }
        let Some(forward) = self.forwarder.get() else {
            return self.execute(board, command).await;
        };
        let alert_action = match &command {
            Command::Ack { alert } => Some((alert.clone(), Action::Acknowledge)),
            Command::Resolve { alert } => Some((alert.clone(), Action::Resolve)),
            _ => None,
        };
        let word = command.word();
        let answer = match forward.forward(board, command).await {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(board, "dashboard: the {word} was not carried out: {e}");
                return Answer::error(e.status(), e.to_string());
            }
        };
        match alert_action {
            // An alert's state is the dashboard's own, not a board event: recorded here
            // too once the hall has. The rest comes back with the hall's events.
            Some((id, action)) if answer.status.is_success() => {
                self.alert_answer(&id, action).await
            }
            _ => answer,
        }
    }

    /// Carries a command out on this daemon's own board (a hall answers its central with
    /// this): what the route answers.
    pub async fn execute(self: &Arc<Dashboard>, board: u32, command: Command) -> Answer {
        if self.hub.board(board).is_none() {
            return no_board(board, &command);
        }
        match command {
            Command::Ack { alert } => self.board_alert(board, &alert, Action::Acknowledge).await,
            Command::Resolve { alert } => self.board_alert(board, &alert, Action::Resolve).await,
            Command::Decision { input } => decision_answer(board, self.decide(board, input).await),
            Command::Accept { side, ply } => super::accept::accept(self, board, side, ply).await,
            Command::Serial { serial } => super::accept::confirm(self, board, serial).await,
            Command::Moves { moves, from_ply } => {
                super::desk::enter(self, board, moves, from_ply).await
            }
            Command::Takeback { to_ply, reason } => {
                super::desk::take_back(self, board, to_ply, reason).await
            }
        }
    }

    /// An action on an alert of board `board` (an alert id names its board).
    async fn board_alert(self: &Arc<Dashboard>, board: u32, id: &str, action: Action) -> Answer {
        if alert_board(id) != Some(board) {
            return Answer::error(
                StatusCode::BAD_REQUEST,
                format!("alert {id:?} is not of board {board}: an alert id is BOARD-SEQ"),
            );
        }
        self.alert_answer(id, action).await
    }

    async fn alert_answer(self: &Arc<Dashboard>, id: &str, action: Action) -> Answer {
        match self.act(id, action).await {
            Ok(alert) => Answer::ok(serde_json::to_value(&alert).unwrap_or_default()),
            Err(e) => Answer::error(StatusCode::NOT_FOUND, e.to_string()),
        }
    }
}

/// The 404 of a command for a board the event does not have (for an alert: no such
/// alert, as for any other unknown id).
fn no_board(board: u32, command: &Command) -> Answer {
    let why = match command {
        Command::Ack { alert } | Command::Resolve { alert } => {
            super::alerts::ActError::Unknown(alert.clone()).to_string()
        }
        _ => format!("no board {board}"),
    };
    Answer::error(StatusCode::NOT_FOUND, why)
}

/// A decision's answer: the events it made, or why not.
fn decision_answer(
    board: u32,
    result: Result<Vec<touch_tracker::ArbiterEvent>, arbiter_hub::decisions::DecisionError>,
) -> Answer {
    use arbiter_hub::decisions::DecisionError;
    match result {
        Ok(events) => {
            let list: Vec<Value> = events
                .iter()
                .map(|e| serde_json::to_value(e).unwrap_or_default())
                .collect();
            tracing::info!(board, "dashboard: the arbiter's decision is taken");
            Answer::ok(json!({ "board": board, "events": list }))
        }
        Err(e) => {
            let status = match e {
                DecisionError::NoBoard(_) => StatusCode::NOT_FOUND,
                DecisionError::NotRunning(_) => StatusCode::SERVICE_UNAVAILABLE,
                DecisionError::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
                DecisionError::Refused { .. } => StatusCode::CONFLICT,
            };
            Answer::error(status, e.to_string())
        }
    }
}
