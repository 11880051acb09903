//! The touch-move tracker and arbiter rulings: one state machine per DGT board, fed
//! timestamped board events (dumps, field updates, clock frames), deciding what a FIDE
//! arbiter decides and saying it as the JSON events of formats.md §2.
//!
//! Pure logic, no IO, no async, in the sans-IO style of quinn-proto:
//! - [`Tracker::new`] with a [`TrackerConfig`];
//! - [`Tracker::handle`] for each [`dgt_protocol::TimedEvent`], pushing
//!   [`ArbiterEvent`]s to a caller's vector;
//! - [`Tracker::poll_timeout`] / [`Tracker::handle_timeout`] for the one timer it needs
//!   (how long a press waits for the board's scan to report the move);
//! - [`Tracker::poll_analysis`] / [`Tracker::analysis_done`] for the expensive "can this
//!   side still mate?" searches, which the caller runs where it likes (the daemon on a
//!   blocking pool; [`SyncTracker`] at once; [`BatchedTracker`] a run of dead-position
//!   questions with one search, for fast replays). Rulings that need an answer are emitted when
//!   it arrives; the tracker is deterministic given its inputs and the answers.
//!
//! All chess knowledge comes from `chess_rules`. [`replay`] feeds `.dgtcap` captures
//! through the same decoder, event filter and tracker the live daemon uses.

pub mod analysis;
mod answered_at_once;
pub mod batched;
mod castling;
mod clock;
pub mod config;
pub mod events;
mod events_json;
mod explain;
mod periods;
pub mod recover;
pub mod replay;
pub mod touch;
mod tracker;

pub use analysis::{AnalysisRequest, Purpose};
pub use answered_at_once::SyncTracker;
pub use batched::BatchedTracker;
/// The `touch_move` obligation and the `game_over` reason are the rules core's
/// (re-exported: they are part of the events).
pub use chess_rules::{EndReason, Obligation};
pub use config::{Penalties, Supervision, TimeCategory, TrackerConfig};
pub use events::{
    ArbiterDecisionEvent, ArbiterEvent, ArbiterInput, ArbiterResult, BoardStatus, ClaimReason,
    ClockMismatchEvent, ClockMs, Decision, EventKind, GapCandidate, MismatchReason, MoveEvent,
    Penalty, PositionAcceptedEvent, Touch, TouchAction, Touched,
};
pub use tracker::{
    AcceptError, AcceptedPosition, FillError, GameState, KnownGame, Snapshot, TakebackError,
    Tracker,
};
