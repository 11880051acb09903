//! What the daemon writes and sends from the round's state, never from a tracker:
//!
//! - [`sinks`]: files that follow the hub or the public view: the JSON-lines stream
//!   (`events.jsonl`), PGN per game and round, the DGT LiveChess folder, and the log. A
//!   sink reads state views (the hub's event log, the games), not events, so it never
//!   misses one and can rebuild its files from state.
//! - [`public`]: the round as the public may see it (broadcast delay, boards off the air),
//!   folded into games as the hub folds them; every public output is made from it.
//! - [`push`]: the delayed round PGN pushed to a broadcast server.

pub mod public;
pub mod push;
pub mod sinks;
