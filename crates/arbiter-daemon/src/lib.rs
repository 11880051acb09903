//! The arbiter daemon: everything `dgt-arbiter run` (and the demo, crate `arbiter-demo`) does between the
//! boards and the outside world.
//!
//! - [`config`]: the TOML file (event, time control, rules, outputs, HTTP, boards),
//!   validated with messages that name file, line and column.
//! - [`daemon`]: [`Daemon`] wires each board one way (the task is [`board_task`]): driver events (`dgt-serial`) ->
//!   the journal (`board-journal`) -> tracker (`touch-tracker`) -> [`hub`]. It resumes every board from its
//!   journal after a crash and shuts down gracefully.
//! - [`hub`]: the one place decisions go: an event log, a live broadcast and per-board
//!   snapshots and games (`game_record`). Sinks and HTTP read from it.
//! - [`sinks`]: the JSON-lines stream, PGN per game and round, the DGT LiveChess folder,
//!   and logs; [`http`]: the endpoints for broadcast tools; the live arbiter dashboard at `/` is
//!   the `arbiter-dashboard` crate's.
//! - Unattended boards (crate `unattended-clock`): boards that run without an arbiter: the daemon stops the DGT3000,
//!   shows the ruling and restarts it with the corrected times.
//!
//! The round's players from the pairing program's TRF file: [`pairings`].
//! - [`public`]: the round as the public may see it (broadcast delay, boards off the
//!   air); every public output is made from it. [`push`]: the delayed round PGN pushed to
//!   a broadcast server.
//!
//! - [`livechess_api`]: the DGT LiveChess local API (WebSocket feed and REST, crate
//!   `livechess-api`) on its own port, for lichess `/dgt` and other LiveChess consumers;
//!   [`livechess_source`]: the other direction, a board followed on a running LiveChess
//!   (`source = "livechess://..."`).
//!
//! Output layout: [`paths`]. Game records and rulings in plain words are the
//! `game-record` crate's; crash-safe files `crash-safe`'s; wall-clock stamps `wall-clock`'s.

pub mod board_task;
pub mod daemon;
pub mod error;
pub mod http;
pub mod limits;
pub mod livechess_api;
pub mod livechess_source;

pub use arbiter_hub::{Hub, HubEvent};
pub use daemon::{signal, Daemon, DaemonError, RunOptions};
pub use daemon_config::{Config, ConfigError};
