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

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use http_body_util::BodyExt;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Notify;
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

/// One open connection.
#[derive(Debug)]
struct Conn {
    ip: IpAddr,
    /// Requests being answered (their response bodies not yet sent to the end).
    in_flight: usize,
    /// When it last had no request in flight (its opening, at first).
    idle_since: Instant,
    /// Told when the connection is closed to make room.
    close: Arc<Notify>,
}

/// Connections open now.
#[derive(Debug, Default)]
struct Counts {
    conns: HashMap<u64, Conn>,
    next_id: u64,
    refused: RateLog,
    made_room: RateLog,
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

impl Counts {
    fn from_ip(&self, ip: IpAddr) -> usize {
        self.conns.values().filter(|c| c.ip == ip).count()
    }

    /// The connection idle the longest among those `which` picks.
    fn oldest_idle(&self, which: impl Fn(&Conn) -> bool) -> Option<u64> {
        self.conns
            .iter()
            .filter(|(_, c)| c.in_flight == 0 && which(c))
            .min_by_key(|(id, c)| (c.idle_since, **id))
            .map(|(id, _)| *id)
    }

    /// The connection to close for a new one from `ip`, or why there is none.
    fn room_for(&self, caps: Caps, ip: IpAddr) -> Result<Option<u64>, String> {
        let from_ip = self.from_ip(ip);
        if from_ip >= caps.per_client {
            return self.oldest_idle(|c| c.ip == ip).map(Some).ok_or_else(|| {
                format!(
                    "{from_ip} connections open from {ip}, the most one address may have, \
                     each with a request in flight"
                )
            });
        }
        if self.conns.len() < caps.total {
            return Ok(None);
        }
        // The client holding the most gives way first; any idle one else.
        let mut by_ip: HashMap<IpAddr, usize> = HashMap::new();
        for c in self.conns.values() {
            *by_ip.entry(c.ip).or_insert(0) += 1;
        }
        let heaviest = by_ip.into_iter().max_by_key(|(_, n)| *n).map(|(ip, _)| ip);
        self.oldest_idle(|c| Some(c.ip) == heaviest)
            .or_else(|| self.oldest_idle(|_| true))
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "{} connections open, the most this daemon takes, each with a request \
                     in flight",
                    self.conns.len()
                )
            })
    }
}

/// Holds one connection's place; gives it back when dropped.
struct Slot {
    counts: Arc<Mutex<Counts>>,
    id: u64,
    close: Arc<Notify>,
}

impl Slot {
    /// A request came in: the connection is busy until the guard is dropped (with the
    /// response's body, so that a stream is busy while it streams).
    fn busy(&self) -> Busy {
        let mut c = lock(&self.counts);
        if let Some(conn) = c.conns.get_mut(&self.id) {
            conn.in_flight += 1;
        }
        Busy {
            counts: Arc::clone(&self.counts),
            id: self.id,
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // Gone already when it was closed to make room.
        lock(&self.counts).conns.remove(&self.id);
    }
}

/// A request in flight on a connection.
struct Busy {
    counts: Arc<Mutex<Counts>>,
    id: u64,
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut c = lock(&self.counts);
        if let Some(conn) = c.conns.get_mut(&self.id) {
            conn.in_flight = conn.in_flight.saturating_sub(1);
            if conn.in_flight == 0 {
                conn.idle_since = Instant::now();
            }
        }
    }
}

fn lock(counts: &Mutex<Counts>) -> std::sync::MutexGuard<'_, Counts> {
    counts.lock().unwrap_or_else(|p| p.into_inner())
}

/// A place for a new connection from `ip`, closing the oldest idle one when a cap is
/// reached ([`Counts::room_for`]); `None` (logged) when there is none to close.
fn take_slot(counts: &Arc<Mutex<Counts>>, caps: Caps, ip: IpAddr) -> Option<Slot> {
    let mut c = lock(counts);
    match c.room_for(caps, ip) {
        Ok(victim) => {
            if let Some(conn) = victim.and_then(|id| c.conns.remove(&id)) {
                conn.close.notify_one();
                if let Some(n) = c.made_room.count() {
                    tracing::warn!(
                        peer = %conn.ip,
                        "HTTP: at the connection cap: closed {n} idle connection(s) to make \
                         room for new ones since the last such line (the oldest idle first, \
                         of the client holding the most)"
                    );
                }
            }
        }
        Err(why) => {
            if let Some(n) = c.refused.count() {
                tracing::warn!(
                    "HTTP: refusing new connections: {why} ({n} refused since the last such \
                     line)"
                );
            }
            return None;
        }
    }
    let id = c.next_id;
    c.next_id += 1;
    let close = Arc::new(Notify::new());
    c.conns.insert(
        id,
        Conn {
            ip,
            in_flight: 0,
            idle_since: Instant::now(),
            close: Arc::clone(&close),
        },
    );
    Some(Slot {
        counts: Arc::clone(counts),
        id,
        close,
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
            let slot = Arc::new(slot);
            let close = Arc::clone(&slot.close);
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
                () = close.notified() => {}
            }
        });
    }
}

async fn serve_connection<S>(stream: S, router: Router, info: ConnInfo, slot: Arc<Slot>)
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
        let _b1 = s1.busy();
        let s2 = take_slot(&counts, caps, a).unwrap();
        let _b2 = s2.busy();
        assert!(
            take_slot(&counts, caps, a).is_none(),
            "per client, all busy"
        );
        let s3 = take_slot(&counts, caps, b).unwrap();
        let _b3 = s3.busy();
        assert!(take_slot(&counts, caps, b).is_none(), "in all, all busy");
        drop(s1);
        assert!(take_slot(&counts, caps, a).is_some(), "given back");
    }

    #[test]
    fn the_oldest_idle_connection_makes_room_first_of_the_client_that_has_most() {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let caps = Caps {
            total: 3,
            per_client: 3,
        };
        let flood: IpAddr = "10.0.0.1".parse().unwrap();
        let arbiter: IpAddr = "10.0.0.2".parse().unwrap();
        let f1 = take_slot(&counts, caps, flood).unwrap();
        let f2 = take_slot(&counts, caps, flood).unwrap();
        let _f2_busy = f2.busy();
        let f3 = take_slot(&counts, caps, flood).unwrap();
        // The flood's fourth: its own oldest idle one (f1; f2 is busy) makes room.
        let f4 = take_slot(&counts, caps, flood).unwrap();
        assert!(lock(&counts).conns.get(&f1.id).is_none(), "f1 closed");
        // The arbiter at the total cap: the flood (the most) gives way, oldest idle first.
        let a1 = take_slot(&counts, caps, arbiter).unwrap();
        let _a1_busy = a1.busy();
        let c = lock(&counts);
        assert!(c.conns.get(&f3.id).is_none(), "f3, the oldest idle, closed");
        assert!(c.conns.contains_key(&f2.id) && c.conns.contains_key(&f4.id));
        assert_eq!(c.conns.len(), 3);
    }
}
