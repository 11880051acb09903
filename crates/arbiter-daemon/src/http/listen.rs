//! The endpoint's accept loop (hyper's HTTP/1 under axum's router), so that no client can
//! starve the daemon:
//! - a connection must send its request headers within [`HEADER_READ_TIMEOUT`], and one
//!   idle between requests is closed after the same time (hyper's header read timer runs
//!   from the moment a connection waits for a request);
//! - a TLS handshake must finish within [`HANDSHAKE_TIMEOUT`];
//! - at most [`Caps::total`] connections at once, and [`Caps::per_client`] from one
//!   address. Past a cap the oldest *idle* connection (no request in flight: kept alive
//!   between requests, or still to send its first) makes room: of the same address when
//!   that address is at its share, else of the address holding the most. So a client that
//!   opens idle connections as fast as they close (issue 36: 0 of 59 `/healthz`
//!   answered) only ever closes its own, and the arbiter's request, which comes with its
//!   request at once, always gets in. Only when every connection has a request in flight
//!   (a stream such as `/events` streams) is the new one closed at once, and a warning
//!   says so (at most one line per [`CAP_LOG_EVERY`], with the count).
//!
//! The total cap comes from the open-file limit less what the boards, journals and file
//! writers need and a reserve ([`Caps::from_fd_limit`]): a flood of connections can never
//! take the descriptor a PGN or journal write needs.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use http_body_util::BodyExt;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use super::access::ConnInfo;
use super::room::{Room, Seat};

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

/// Counts something and says so at most once per [`CAP_LOG_EVERY`].
#[derive(Debug, Default)]
struct RateLog {
    since_log: u64,
    last_log: Option<Instant>,
}

impl RateLog {
    /// Counts one; the count since the last line when a line is due.
    fn count(&mut self) -> Option<u64> {
        self.since_log += 1;
        if self.last_log.is_some_and(|t| t.elapsed() < CAP_LOG_EVERY) {
            return None;
        }
        self.last_log = Some(Instant::now());
        Some(std::mem::take(&mut self.since_log))
    }
}

/// The places of the listener, and what its caps did.
struct Places {
    room: Arc<Room>,
    refused: Mutex<RateLog>,
    made_room: Mutex<RateLog>,
}

/// A place for a new connection from `ip` ([`Room::take`]), logged when a cap bites.
fn take_slot(places: &Places, ip: IpAddr) -> Option<Seat> {
    let count = |log: &Mutex<RateLog>| log.lock().unwrap_or_else(|p| p.into_inner()).count();
    match places.room.take(ip) {
        Ok(taken) => {
            if let Some(from) = taken.made_room_from {
                if let Some(n) = count(&places.made_room) {
                    tracing::warn!(
                        peer = %from,
                        "HTTP: at the connection cap: closed {n} idle connection(s) to make \
                         room for new ones since the last such line (the oldest idle first, \
                         of the client holding the most)"
                    );
                }
            }
            Some(taken.seat)
        }
        Err(why) => {
            if let Some(n) = count(&places.refused) {
                tracing::warn!(
                    "HTTP: refusing new connections: {why} ({n} refused since the last such \
                     line)"
                );
            }
            None
        }
    }
}

/// Serves `router` on `listener` (over TLS with `tls`) until the task is aborted;
/// aborting it closes every connection too.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    caps: Caps,
    tls: Option<Arc<rustls::ServerConfig>>,
) {
    let places = Places {
        room: Room::new(caps.total, caps.per_client),
        refused: Mutex::default(),
        made_room: Mutex::default(),
    };
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
        let Some(slot) = take_slot(&places, peer.ip()) else {
            drop(tcp);
            continue;
        };
        let local = tcp.local_addr().unwrap_or(peer);
        let info = ConnInfo { local, peer };
        let router = router.clone();
        let acceptor = acceptor.clone();
        connections.spawn(async move {
            let slot = Arc::new(slot);
            let closer = Arc::clone(&slot);
            let _ = tcp.set_nodelay(true);
            let serve = async {
                match acceptor {
                    None => serve_connection(tcp, router, info, slot).await,
                    Some(a) => match tokio::time::timeout(HANDSHAKE_TIMEOUT, a.accept(tcp)).await {
                        Ok(Ok(stream)) => serve_connection(stream, router, info, slot).await,
                        Ok(Err(e)) => {
                            tracing::debug!("HTTP: TLS handshake with {peer} failed: {e}")
                        }
                        Err(_) => tracing::debug!("HTTP: TLS handshake with {peer} timed out"),
                    },
                }
            };
            // Closed to make room: it had no request in flight (take_slot), so dropping it
            // loses no answer.
            tokio::select! {
                () = serve => {}
                () = closer.taken_back() => {}
            }
        });
    }
}

async fn serve_connection<S>(stream: S, router: Router, info: ConnInfo, slot: Arc<Seat>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service =
        hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(info);
            let busy = slot.busy();
            let mut router = router.clone();
            // Router is always ready; `call` without `poll_ready` is what axum::serve does.
            let answer = tower_service::Service::call(&mut router, request);
            async move {
                let response = answer.await?;
                // Busy until the body is sent to its end (or dropped): a stream is busy
                // while it streams.
                Ok::<_, std::convert::Infallible>(response.map(|body| {
                    axum::body::Body::new(body.map_frame(move |frame| {
                        let _busy = &busy;
                        frame
                    }))
                }))
            }
        });
    let result = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service)
        // WebSockets (the LiveChess API, the daemon's livechess_api) take the connection over.
        .with_upgrades()
        .await;
    if let Err(e) = result {
        tracing::debug!("HTTP: connection from {}: {e}", info.peer);
    }
}

/// The caps for a daemon of `boards` boards under the open-file limit in force.
pub fn caps_for(fd_limit: u64, boards: usize, record: bool) -> Caps {
    use crate::limits::{board_fds, DAEMON_BASE_FDS};
    Caps::from_fd_limit(fd_limit, DAEMON_BASE_FDS + board_fds(boards, record))
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

    /// One count of the daemon's own descriptors serves the start-up check and the
    /// listener's caps (two constants, 256 and 128, did before): at the least limit the
    /// daemon starts with, the listener gets the HTTP set-aside less the writers' reserve.
    #[test]
    fn the_least_limit_the_daemon_starts_with_leaves_the_http_set_aside() {
        use crate::limits::{fds_needed, HTTP_FDS};
        for (boards, record) in [(1, false), (1000, false), (1000, true)] {
            let caps = caps_for(fds_needed(boards, record), boards, record);
            assert_eq!(caps.total as u64, HTTP_FDS - FD_RESERVE, "{boards} boards");
        }
    }
}
