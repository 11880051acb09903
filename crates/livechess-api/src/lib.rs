//! The DGT LiveChess local API (`ws://HOST:1982/api/v1.0` and the REST routes under
//! `/api/v1.0/`), as values: what lichess's `/dgt` page, chess.com's board connection,
//! the `livechess` operator CLI and community bridges expect from DGT LiveChess.
//! Sans-IO: requests come in as text, replies and feed messages go out as text, every
//! time (`time`, epoch ms) is passed in; no socket, no clock, no tokio.
//!
//! - [`protocol`]: the WebSocket requests (`eboards`, `subscribe`, `unsubscribe`, `call`
//!   `setup`) parsed with every variant real consumers send, and the reply, feed and
//!   error messages.
//! - [`view`]: the daemon's state as this API shows it (e-boards, clock, games,
//!   tournament), a plain struct the daemon fills in.
//! - [`feed`]: one WebSocket connection ([`feed::Session`]): its subscriptions, each
//!   sending the full state first and then only what changed, with the cumulative
//!   `san` list after a `setup`.
//! - [`follow`]: the other direction: one e-board of a running LiveChess followed as if
//!   it were on a serial line (`livechess://HOST:1982/SERIALNR`), its feed turned into
//!   the serial driver's board events.
//! - [`rest`]: the REST routes (`eboards`, `tournaments`, `tournament/{uuid}`,
//!   `round/{uuid}/{n}`, `game/{uuid}`) rendered from a [`view::Hall`].
//!
//! What the messages look like comes from a real capture of LiveChess 2 with a
//! physical board (tests use it) and from the consumers' sources; docs/formats.md §
//! "LiveChess local API" is the contract.

/// Where LiveChess serves its API: the WebSocket feed, and the REST calls under it (in
/// axum's route syntax; consumers ask `/api/v1.0/...`).
pub const WS_ROUTE: &str = "/api/v1.0";
pub const REST_ROUTE: &str = "/api/v1.0/{*path}";

pub mod feed;
pub mod follow;
pub mod protocol;
pub mod rest;
pub mod view;

pub use feed::{Outgoing, Session, Subscription};
pub use protocol::{parse_request, Call, Id, Request, RequestError};
pub use view::{BoardState, Clock, Eboard, EboardState, GameView, Hall, MoveView, Player};

/// The JSON lines of the real capture (LiveChess 2 with a physical board; between `/*`
/// and `*/`), in order: requests and replies.
#[cfg(test)]
pub(crate) fn capture_lines() -> Vec<String> {
    let text = test_data::read_text(
        "dgt-captures/andrescavallin-lichess-dgt-boards/BoardWebSocket-LiveChess-DGT.txt",
    );
    let body = text
        .split_once("/*")
        .and_then(|(_, rest)| rest.split_once("*/"))
        .map(|(body, _)| body)
        .expect("the capture's JSON sits between /* and */");
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}
