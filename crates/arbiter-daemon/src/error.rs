//! What can stop the daemon from starting.

use std::net::SocketAddr;
use std::path::PathBuf;

use board_journal::JournalError;

/// What can stop the daemon from starting.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("cannot create the output folder {path}: {source}")]
    Output {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error("cannot start the journals' sync threads: {0}")]
    Syncer(#[source] std::io::Error),
    #[error("board {board}: {source}")]
    Board {
        board: u32,
        #[source]
        source: dgt_serial::SpawnError,
    },
    #[error("cannot serve HTTPS (check [http] tls_cert and tls_key)")]
    Tls(#[source] daemon_config::tls::TlsError),
    #[error("cannot listen for HTTP on {addr}: {source} (set [http] bind to a free address or enabled = false)")]
    Http {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot listen for the LiveChess API on {addr}: {source} (set [livechess_api] bind to a free address, or remove the section)")]
    LiveChessApi {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open the event stream {path}: {source}")]
    Events {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{boards} boards need about {needed} open files, but this process may open only {limit} (its hard limit): raise it (systemd: LimitNOFILE=; a shell: ulimit -Hn) or drive fewer boards")]
    FdLimit {
        boards: usize,
        needed: u64,
        limit: u64,
    },
}
