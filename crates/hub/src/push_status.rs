//! The last push to a broadcast server, as the dashboard shows it (the daemon's `push`
//! sets it).

use serde::Serialize;

/// The last push, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushStatus {
    /// When it was made (RFC 3339 UTC).
    pub at: String,
    /// The server took it (a 2xx answer).
    pub ok: bool,
    /// The HTTP status, if an answer came.
    pub status: Option<u16>,
    /// The server's answer (its first KiB), or why there was none.
    pub answer: String,
    /// Games in the pushed PGN.
    pub games: usize,
    /// Pushes of this PGN that failed before this one.
    pub failures: u32,
}
