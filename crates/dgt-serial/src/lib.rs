//! The serial driver for DGT boards: one tokio task per board turns a USB, serial or
//! Bluetooth line that drops, garbles and comes back into a clean, timestamped stream of
//! [`dgt_protocol::BoardEvent`]s.
//!
//! - [`link::Link`] is the sans-IO state machine of one line: init sequence, liveness
//!   probe, reconnect backoff, clock-command pacing (one in flight, ACK, one resend, give
//!   up), and decoded messages to events through `dgt_protocol::EventFilter`.
//! - [`spawn_board`] runs a link on a real port in a tokio task and hands back a
//!   [`BoardHandle`]: a bounded event channel and a [`BoardControl`] for clock commands,
//!   dumps and shutdown. The reader never blocks on a slow consumer (see
//!   [`driver`] for the overload policy).
//! - [`port`] opens ports (9600 8N1, no flow control, non-blocking under tokio's
//!   `AsyncFd`) and finds a board by its DGT serial number.
//! - [`probe`] finds the ports that answer as DGT boards (`dgt-arbiter probe`).
//! - [`external`]: a board whose events come from elsewhere (a LiveChess feed), behind
//!   the same [`BoardHandle`], so the daemon drives it as any other.
//! - Recording (`--record DIR`) writes each board's traffic, both directions, as
//!   `.dgtcap` (see [`record`]).

pub mod driver;
pub mod external;
pub mod link;
pub mod port;
pub mod probe;
pub mod record;
#[cfg(test)]
mod test_support;

pub use driver::{
    spawn_board, BoardControl, BoardHandle, BoardSpec, BoardStatus, DriverOptions, DriverStopped,
    PortSpec, SpawnError,
};
pub use link::{BoardInfo, ClockError, ClockInfo, ClockOutcome, CommandId, Link, LinkConfig};
pub use port::SearchOptions;
pub use probe::{probe_ports, ProbeOptions, ProbeReport};
