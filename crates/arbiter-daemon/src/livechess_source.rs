//! `[[board]] source = "livechess://HOST:1982/SERIALNR"`: a board taken from a running
//! LiveChess (or another daemon's `[livechess_api]`) instead of a serial port. The
//! protocol is `livechess_api::follow` (sans-IO); this is its tokio shell: connect,
//! subscribe, pass frames in and board events out through the same
//! [`dgt_serial::BoardHandle`] a serial board has, so the same tracker and rulings apply.
//!
//! - A lost connection (or a frame that may have carried a lost change) is a
//!   `Disconnected`; the next full state is `Connected` and a `Dump`: the tracker's
//!   reconnect path. Connection attempts back off (`follow::Reconnect`).
//! - The arbiter's dump request subscribes anew (the server then sends the full state).
//! - There is no DGT clock behind a LiveChess feed: clock commands are answered "no
//!   clock" (the unattended clock control does not run such a board's clock).
//! - The line is "read" up to now whenever no frame waits: a WebSocket delivers whole
//!   messages, and what is still on the network cannot be known, as with a serial line
//!   whose bytes are in flight.

use std::path::PathBuf;
use std::time::Duration;

use dgt_protocol::{BoardEvent, TimedEvent};
use dgt_serial::external::{external_board, ExternalDriver, ExternalRequest};
use dgt_serial::{BoardHandle, ClockError};
use futures_util::{SinkExt, StreamExt};
use livechess_api::follow::{Follower, Reconnect, SourceUrl};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tracing::Instrument;

/// A connection attempt that takes longer is a failed one.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How often the line's "read up to" is moved on while the feed is quiet.
const READ_TICK: Duration = Duration::from_millis(100);
/// Largest frame taken from the server (feed messages are a few hundred bytes).
const MAX_FRAME: usize = 64 * 1024;

/// Starts following `url` as board `name`; `epoch` is the time base of the events.
pub fn spawn(name: &str, url: SourceUrl, epoch: std::time::Instant) -> BoardHandle {
    let (handle, driver) = external_board(name, 1024);
    let span = tracing::info_span!("board", board = %name);
    tokio::spawn(
        Source {
            follower: Follower::new(&url.serialnr),
            url,
            epoch: Instant::from_std(epoch),
            driver,
        }
        .run()
        .instrument(span),
    );
    handle
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

struct Source {
    url: SourceUrl,
    follower: Follower,
    epoch: Instant,
    driver: ExternalDriver,
}

/// Why a connection ended.
enum Ended {
    /// The daemon stops.
    Stop,
    /// Lost (or refused): reconnect.
    Lost(String),
}

impl Source {
    fn now(&self) -> u64 {
        u64::try_from(
            Instant::now()
                .saturating_duration_since(self.epoch)
                .as_millis(),
        )
        .unwrap_or(u64::MAX)
    }

    async fn emit(&mut self, event: BoardEvent) -> bool {
        let ev = TimedEvent {
            t_ms: self.now(),
            event,
        };
        self.driver.events.send(ev).await.is_ok()
    }

    fn read_up_to_now(&self) {
        let now = self.now();
        self.driver.read_until.send_if_modified(|t| {
            let moved = *t < now;
            *t = (*t).max(now);
            moved
        });
    }

    fn set_connected(&self, connected: bool, why: Option<&str>) {
        let port = PathBuf::from(self.url.to_string());
        let serial = self.url.serialnr.clone();
        self.driver.status.send_if_modified(|s| {
            let before = s.clone();
            s.port = Some(port);
            s.info.connected = connected;
            if connected {
                s.info.serial = Some(serial);
            }
            if let Some(w) = why {
                s.info.last_disconnect = Some(w.to_owned());
            }
            *s != before
        });
    }

    /// Answers a request of the control; `false`: stop.
    async fn on_request(
        &mut self,
        r: Option<ExternalRequest>,
        socket: Option<&mut Socket>,
    ) -> bool {
        match r {
            Some(ExternalRequest::Clock { reply, .. }) => {
                let _ = reply.send(Err(ClockError::NoClock));
            }
            Some(ExternalRequest::Dump) => {
                if let Some(ws) = socket {
                    for text in self.follower.resync() {
                        let _ = ws.send(Message::text(text)).await;
                    }
                }
            }
            Some(ExternalRequest::Probe) => self.read_up_to_now(),
            Some(ExternalRequest::Shutdown(done)) => {
                if let Some(ws) = socket {
                    let _ = ws.close(None).await;
                }
                if let Some(e) = self.follower.closed("driver stopped") {
                    let _ = self.emit(e).await;
                }
                self.driver.status.send_modify(|s| {
                    s.info.connected = false;
                    s.stopped = true;
                });
                let _ = done.send(());
                return false;
            }
            // Every control is gone: nobody drives this board any more.
            None => return false,
        }
        true
    }

    async fn run(mut self) {
        let mut backoff = Reconnect::default();
        let mut first = true;
        loop {
            if !first {
                let wait = Duration::from_millis(backoff.failed());
                let until = Instant::now() + wait;
                loop {
                    tokio::select! {
                        () = tokio::time::sleep_until(until) => break,
                        r = self.driver.request() => {
                            if !self.on_request(r, None).await {
                                return;
                            }
                        }
                    }
                }
            }
            first = false;
            self.set_connected(false, None);
            let address = self.url.websocket();
            let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
                .max_message_size(Some(MAX_FRAME))
                .max_frame_size(Some(MAX_FRAME));
            let attempt = tokio::time::timeout(
                CONNECT_TIMEOUT,
                tokio_tungstenite::connect_async_with_config(&address, Some(config), false),
            );
            let mut socket = tokio::select! {
                r = attempt => match r {
                    Ok(Ok((ws, _))) => ws,
                    Ok(Err(e)) => {
                        tracing::warn!("cannot connect to LiveChess at {address}: {e}");
                        continue;
                    }
                    Err(_) => {
                        tracing::warn!(
                            "cannot connect to LiveChess at {address}: no answer in {} s",
                            CONNECT_TIMEOUT.as_secs()
                        );
                        continue;
                    }
                },
                r = self.driver.request() => {
                    if !self.on_request(r, None).await {
                        return;
                    }
                    continue;
                }
            };
            tracing::info!(
                "connected to LiveChess at {address}, following e-board {}",
                self.url.serialnr
            );
            match self.follow(&mut socket, &mut backoff).await {
                Ended::Stop => return,
                Ended::Lost(why) => {
                    tracing::warn!("LiveChess at {address}: {why}; reconnecting");
                    if let Some(e) = self.follower.closed(&why) {
                        if !self.emit(e).await {
                            return;
                        }
                    }
                    self.set_connected(false, Some(&why));
                }
            }
        }
    }

    /// One connection, until it ends.
    async fn follow(&mut self, socket: &mut Socket, backoff: &mut Reconnect) -> Ended {
        for text in self.follower.open() {
            if let Err(e) = socket.send(Message::text(text)).await {
                return Ended::Lost(format!("cannot subscribe: {e}"));
            }
        }
        let mut tick = tokio::time::interval(READ_TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                msg = socket.next() => {
                    let text = match msg {
                        Some(Ok(Message::Text(t))) => t.as_str().to_owned(),
                        Some(Ok(Message::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
                        Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
                        Some(Ok(Message::Close(frame))) => {
                            let why = frame.map_or_else(
                                || "closed by the server".to_owned(),
                                |f| format!("closed by the server ({}: {})", u16::from(f.code), f.reason),
                            );
                            return Ended::Lost(why);
                        }
                        Some(Err(e)) => return Ended::Lost(format!("connection lost: {e}")),
                        None => return Ended::Lost("connection lost".into()),
                    };
                    let was_connected = self.follower.is_connected();
                    let got = self.follower.receive(&text);
                    for e in got.events {
                        if !self.emit(e).await {
                            return Ended::Stop;
                        }
                    }
                    if let Some(e) = &got.error {
                        tracing::warn!("LiveChess at {}: {e}", self.url.websocket());
                        if matches!(e, livechess_api::follow::FrameError::Refused { .. }) {
                            return Ended::Lost(e.to_string());
                        }
                        if !self.follower.is_connected() {
                            // The board is not known any more: ask for its full state.
                            for text in self.follower.resync() {
                                if let Err(e) = socket.send(Message::text(text)).await {
                                    return Ended::Lost(format!("cannot subscribe: {e}"));
                                }
                            }
                        }
                    }
                    if self.follower.is_connected() != was_connected {
                        self.set_connected(self.follower.is_connected(), got.error.as_ref().map(|e| e.to_string()).as_deref());
                        if self.follower.is_connected() {
                            backoff.succeeded();
                        }
                    }
                    self.read_up_to_now();
                }
                r = self.driver.request() => {
                    if !self.on_request(r, Some(socket)).await {
                        return Ended::Stop;
                    }
                }
                _ = tick.tick() => self.read_up_to_now(),
            }
        }
    }
}
