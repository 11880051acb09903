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
//! All chess knowledge comes from `chess_rules`. The events are `arbiter_events`'s;
//! `capture_replay` feeds `.dgtcap` captures through the same decoder, event filter and
//! tracker the live daemon uses.

pub mod analysis;
mod answered_at_once;
pub mod batched;
mod clock;
pub mod config;
mod explain;
/// The events the tracker emits and takes are their own crate's (formats.md §2); kept
/// here under their old path for the tracker's callers.
pub use arbiter_events as events;
/// What a touch log proves (art. 4, 7.5.4) is its own crate's, kept here under its old path.
pub use touch_evidence as touch;
mod periods;
pub mod recover;
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
    ClockMismatchEvent, ClockMs, Decision, DecisionKind, EventKind, GapCandidate, MismatchReason,
    MoveEvent, Penalty, PenaltyDecision, PositionAcceptedEvent, ResultDecision, Touch, TouchAction,
    Touched,
};
pub use tracker::{
    AcceptError, AcceptedPosition, FillError, GameState, KnownGame, Snapshot, TakebackError,
    Tracker,
};
