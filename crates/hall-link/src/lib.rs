//! The NATS JetStream link of one event across several hall PCs: thin async shells
//! around the sans-IO `hall-network` crate, using the official client `async-nats`.
//!
//! - [`hall`]: a hall daemon's publisher (every event of its round log, in order, with a
//!   deterministic message id; each board's last state in the event's KV bucket; its
//!   manifest) and its action responder (the central's requests, carried out by the
//!   hall's own dashboard code).
//! - [`central`]: `dgt-arbiter central`: a durable consumer per hall stream feeding one
//!   hub, the same dashboard, PGN and LiveChess sinks as the daemon's, and the actions
//!   forwarded to the board's hall.
//! - [`connect`]: the client's options from `[network]`.
//!
//! Works with nats-server 2.9.0 or newer (tested with 2.9.10, Debian 12's): the client is
//! built without its 2.10+ stream features, and the event's KV bucket is made as a plain
//! stream ([`hall::bucket`]), as the client's own bucket creation cannot read a 2.9
//! server's account reply. `tests/server_calls.rs` makes every call against the
//! installed server.

pub mod central;
pub mod connect;
pub mod hall;

/// How long a request to the server or a hall may take.
pub const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
