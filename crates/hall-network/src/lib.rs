//! One event across several hall PCs, without IO: what the hall daemons and the central
//! say to each other over NATS JetStream, and the bookkeeping that makes it lossless and
//! free of doubles. The IO (the NATS client) lives in `hall-link`.
//!
//! - [`names`]: the event key, the hall id, the subjects, the stream and the KV bucket.
//! - [`envelope`]: one arbiter event as it travels (hall, board, round, seq, the event
//!   record of formats.md §2) and its deterministic JetStream message id
//!   (`Nats-Msg-Id`), so that a republish after a reconnect or a restart is deduplicated.
//! - [`foreign`]: messages on a hall's subjects that the hall did not publish: how the
//!   hall and the central tell them apart, skip them and heal the publish chain; a hall
//!   the central is behind.
//! - [`cursor`]: the hall's backlog: what the server has acknowledged per board, what to
//!   send (again) from the round's log, in order.
//! - [`merge`]: the central's merge of every hall's stream: per board in seq order, each
//!   event once; a board number claimed by two halls is a config error.
//! - [`position`]: the central's place in a hall's stream: where its consumer starts,
//!   and which delivered message it takes.
//! - [`action`]: an arbiter's command at the central (an alert's state, a decision, the
//!   desk's moves and takeback), as a request to the board's hall and its answer.
//! - [`config`]: the `[network]` section of a hall's or the central's config.

pub mod action;
pub mod config;
pub mod cursor;
pub mod envelope;
pub mod foreign;
pub mod merge;
pub mod names;
pub mod position;

pub use action::{ActionReply, ActionRequest, Command};
pub use config::{Credentials, NetworkConfig, NetworkConfigError};
pub use cursor::Backlog;
pub use envelope::{Envelope, EnvelopeError, Manifest, Received};
pub use foreign::{own_message, worth_logging, Behind, Chain, Expect, Foreign, Lag};
pub use merge::{Accepted, Merge, MergeError};
pub use names::{EventKey, HallId, NameError, Names};
pub use position::{Delivery, StreamPosition};
