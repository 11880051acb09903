//! The endpoint's accept loop (hyper's HTTP/1 under axum's router), so that no client can
//! starve the daemon:
//! - a connection must send its request headers within [`HEADER_READ_TIMEOUT`], and one
//!   idle between requests is closed after the same time (hyper's header read timer runs
//!   from the moment a connection waits for a request);
//! - a TLS handshake must finish within [`HANDSHAKE_TIMEOUT`];
//! - at most [`Caps::total`] connections at once, and [`Caps::per_client`] from one
//!   address; past a cap the new connection is closed at once and a warning says so (at
//!   most one line per [`CAP_LOG_EVERY`], with the count).
//!
//! The total cap comes from the open-file limit less what the boards, journals and file
//! writers need and a reserve ([`Caps::from_fd_limit`]): a flood of connections can never
//! take the descriptor a PGN or journal write needs.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use super::access::ConnInfo;

/// Longest wait for a request's headers (and for the next request on an idle connection).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Descriptors kept free of HTTP connections for the file writers, the journal and logs.
pub const FD_RESERVE: u64 = 64;
/// A flood is logged at most this often.
pub const CAP_LOG_EVERY: Duration = Duration::from_secs(10);

/// How many connections may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    pub total: usize,
    pub per_client: usize,
}

impl Caps {
    /// Connections from one address at most (a venue's NAT puts many phones behind one).
    pub const PER_CLIENT: usize = 128;
    /// The total, however many descriptors there are.
    pub const MAX_TOTAL: usize = 4096;

    /// The caps under an open-file limit of `fd_limit` when the rest of the daemon needs
    /// `fds_needed` (see [`crate::limits::fds_needed`]) and [`FD_RESERVE`] stay free.
    pub fn from_fd_limit(fd_limit: u64, fds_needed: u64) -> Caps {
        let spare = fd_limit.saturating_sub(fds_needed.saturating_add(FD_RESERVE));
        let total = (spare as usize).clamp(4, Caps::MAX_TOTAL);
        Caps {
            total,
            per_client: Caps::PER_CLIENT.min(total),
        }
    }
}

/// Connections open now, in all and by client address.
#[derive(Debug, Default)]
struct Counts {
    total: usize,
    by_ip: HashMap<IpAddr, usize>,
    refused_since_log: u64,
    last_log: Option<Instant>,
}

/// Holds one connection's place; gives it back when dropped.
struct Slot {
    counts: Arc<Mutex<Counts>>,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.by_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                c.by_ip.remove(&self.ip);
            }
        }
    }
}

fn take_slot(counts: &Arc<Mutex<Counts>>, caps: Caps, ip: IpAddr) -> Option<Slot> {
    let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
    let from_ip = c.by_ip.get(&ip).copied().unwrap_or(0);
    let which = if c.total >= caps.total {
        Some(format!(
            "{} connections open, the most this daemon takes",
            c.total
        ))
    } else if from_ip >= caps.per_client {
        Some(format!(
            "{from_ip} connections open from {ip}, the most one address may have"
        ))
    } else {
        None
    };
    if let Some(why) = which {
        c.refused_since_log += 1;
        let due = c.last_log.is_none_or(|t| t.elapsed() >= CAP_LOG_EVERY);
        if due {
            tracing::warn!(
                "HTTP: refusing new connections: {why} ({} refused since the last such line; \
                 idle ones close after {} s)",
                c.refused_since_log,
                HEADER_READ_TIMEOUT.as_secs()
            );
            c.refused_since_log = 0;
            c.last_log = Some(Instant::now());
        }
        return None;
    }
    c.total += 1;
    *c.by_ip.entry(ip).or_insert(0) += 1;
    Some(Slot {
        counts: Arc::clone(counts),
        ip,
    })
}

/// Serves `router` on `listener` (over TLS with `tls`) until the task is aborted;
/// aborting it closes every connection too.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    caps: Caps,
    tls: Option<Arc<rustls::ServerConfig>>,
) {
    let counts = Arc::new(Mutex::new(Counts::default()));
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let mut connections = JoinSet::new();
    tracing::debug!(
        total = caps.total,
        per_client = caps.per_client,
        "HTTP connection caps"
    );
    loop {
        // Finished connections' tasks are reaped as we go.
        while connections.try_join_next().is_some() {}
        let (tcp, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors or similar: wait instead of spinning.
                tracing::warn!("HTTP: cannot accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Some(slot) = take_slot(&counts, caps, peer.ip()) else {
            drop(tcp);
            continue;
        };
        let local = tcp.local_addr().unwrap_or(peer);
        let info = ConnInfo { local, peer };
        let router = router.clone();
        let acceptor = acceptor.clone();
        connections.spawn(async move {
            let _slot = slot;
            let _ = tcp.set_nodelay(true);
            match acceptor {
                None => serve_connection(tcp, router, info).await,
                Some(a) => match tokio::time::timeout(HANDSHAKE_TIMEOUT, a.accept(tcp)).await {
                    Ok(Ok(stream)) => serve_connection(stream, router, info).await,
                    Ok(Err(e)) => tracing::debug!("HTTP: TLS handshake with {peer} failed: {e}"),
                    Err(_) => tracing::debug!("HTTP: TLS handshake with {peer} timed out"),
                },
            }
        });
    }
}

async fn serve_connection<S>(stream: S, router: Router, info: ConnInfo)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service =
        hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(info);
            let mut router = router.clone();
            // Router is always ready; `call` without `poll_ready` is what axum::serve does.
            tower_service::Service::call(&mut router, request)
        });
    let result = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service)
        // WebSockets (the LiveChess API, crate::livechess_api) take the connection over.
        .with_upgrades()
        .await;
    if let Err(e) = result {
        tracing::debug!("HTTP: connection from {}: {e}", info.peer);
    }
}

/// Descriptors the daemon holds besides its boards and its HTTP connections (runtime,
/// stdio, log, sinks' files while they write, sync threads).
pub const DAEMON_BASE_FDS: u64 = 128;

/// The caps for a daemon of `boards` boards under the open-file limit in force.
pub fn caps_for(fd_limit: u64, boards: usize, record: bool) -> Caps {
    use crate::limits::fds_needed;
    let boards_fds = fds_needed(boards, record) - fds_needed(0, record);
    Caps::from_fd_limit(fd_limit, DAEMON_BASE_FDS + boards_fds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_leaves_the_writers_their_descriptors() {
        let c = caps_for(300, 1, false);
        assert_eq!(c.total, 300 - (128 + 2) - 64);
        let c = caps_for(1024, 8, true);
        assert_eq!(c.total, 1024 - (128 + 24) - 64);
        assert_eq!(Caps::from_fd_limit(100, 90).total, 4, "a floor");
        assert_eq!(c.per_client, 128);
        assert_eq!(Caps::from_fd_limit(1 << 20, 300).total, Caps::MAX_TOTAL);
    }

    #[test]
    fn slots_are_counted_by_address_and_given_back() {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let caps = Caps {
            total: 3,
            per_client: 2,
        };
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let s1 = take_slot(&counts, caps, a).unwrap();
        let _s2 = take_slot(&counts, caps, a).unwrap();
        assert!(take_slot(&counts, caps, a).is_none(), "per client");
        let _s3 = take_slot(&counts, caps, b).unwrap();
        assert!(take_slot(&counts, caps, b).is_none(), "in all");
        drop(s1);
        assert!(take_slot(&counts, caps, a).is_some(), "given back");
    }
}
