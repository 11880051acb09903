//! One client cannot lock the arbiters out (issue 36), on a real daemon:
//!
//! - the HTTP endpoint: more idle connections from one address than its share (128),
//!   opened again as soon as they close, and still every `/healthz` and every request
//!   with the arbiter's token is answered (before: 0 of 59 `/healthz` answered);
//! - the LiveChess API: its 64 WebSocket places held by idle connections, opened again
//!   as they close, and a lichess `/dgt` client still gets its `eboards` answer.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;

/// Idle HTTP connections the flood holds: more than one address's share (128).
const HTTP_FLOOD: usize = 140;
/// Idle LiveChess WebSockets the flood holds: more than the API's places (64).
const WS_FLOOD: usize = 70;

/// Holds `size` idle connections to `addr` from a thread, each opened again as soon as
/// the daemon closes it, until `stop`; counts the openings.
fn idle_flood(
    size: usize,
    addr: String,
    open: impl Fn(&str) -> Option<TcpStream> + Send + 'static,
    stop: Arc<AtomicBool>,
    reopened: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut held: Vec<TcpStream> = Vec::new();
        while !stop.load(Ordering::SeqCst) {
            held.retain_mut(|s| {
                let mut byte = [0u8; 256];
                match s.read(&mut byte) {
                    Ok(0) => false,
                    Ok(_) => true,
                    Err(e) => e.kind() == ErrorKind::WouldBlock,
                }
            });
            while held.len() < size {
                let Some(s) = open(&addr) else { break };
                s.set_nonblocking(true).unwrap();
                held.push(s);
                reopened.fetch_add(1, Ordering::SeqCst);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    })
}

/// One GET with `Connection: close`: the status, or why there is none.
fn try_get(addr: &str, path: &str, headers: &str) -> Result<u16, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n"
    )
    .map_err(|e| format!("write: {e}"))?;
    let mut reply = Vec::new();
    s.read_to_end(&mut reply)
        .map_err(|e| format!("read: {e}"))?;
    let text = String::from_utf8_lossy(&reply);
    text.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("no status in {text:?}"))
}

fn start_daemon(dir: &Path, extra: &str) -> (Boards, DaemonProcess) {
    let boards = Boards::serve(vec![script(0, 5, vec![])]);
    let cfg = config(dir, &boards, extra);
    let daemon = start(&cfg);
    wait_events(
        &dir.join("out"),
        Duration::from_secs(30),
        "the first move",
        |ev| ev.iter().any(|e| e["kind"] == "move"),
    );
    (boards, daemon)
}

#[test]
fn idle_connections_refilled_past_the_cap_never_keep_the_arbiter_out() {
    let _one_at_a_time = serial();
    let dir = temp_dir("lockout-http");
    let (_boards, mut daemon) = start_daemon(&dir, "");
    let out = dir.join("out");
    let addr = http_host(&out);
    let token = token_header(&out);
    assert!(
        !token.is_empty(),
        "the daemon keeps its token in its folder"
    );

    let stop = Arc::new(AtomicBool::new(false));
    let reopened = Arc::new(AtomicUsize::new(0));
    let flood = idle_flood(
        HTTP_FLOOD,
        addr.clone(),
        |a| TcpStream::connect(a).ok(),
        Arc::clone(&stop),
        Arc::clone(&reopened),
    );
    std::thread::sleep(Duration::from_secs(1));
    let mut failures = Vec::new();
    for _ in 0..30 {
        for (path, headers) in [("/healthz", ""), ("/api/state", token.as_str())] {
            match try_get(&addr, path, headers) {
                Ok(200) => {}
                other => failures.push(format!("{path}: {other:?}")),
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::SeqCst);
    flood.join().unwrap();
    let opened = reopened.load(Ordering::SeqCst);
    assert!(
        opened > HTTP_FLOOD,
        "the flood opened its connections again as they closed: {opened}"
    );
    assert!(
        failures.is_empty(),
        "{} of 60 requests not answered during the flood: {failures:?}",
        failures.len()
    );
    assert!(terminate(&mut daemon.0), "exit status 0 on SIGTERM");
}

/// The LiveChess API's WebSocket URL, from the file the daemon writes.
fn api_url(out: &Path) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(u) = std::fs::read_to_string(out.join("livechess-api-address")) {
            return u.trim().to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no livechess-api-address"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A WebSocket opened by hand (`host:port`), then left idle: `None` unless upgraded.
fn idle_websocket(host: &str) -> Option<TcpStream> {
    let mut s = TcpStream::connect(host).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET /api/v1.0 HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    head.starts_with(b"HTTP/1.1 101").then_some(s)
}

/// lichess's `/dgt` page, to its first answers: `eboards` answered with the board, the
/// subscription to it answered.
async fn lichess_dgt(url: &str) -> Result<(), String> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let answer = async |ws: &mut tokio_tungstenite::WebSocketStream<_>, id: u64| {
        let next = tokio::time::timeout(Duration::from_secs(5), ws.next()).await;
        match next {
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(&t).map_err(|e| e.to_string())?;
                if v["id"].as_u64() == Some(id) {
                    Ok(v)
                } else {
                    Err(format!("not the answer to {id}: {v}"))
                }
            }
            other => Err(format!("no answer to {id}: {other:?}")),
        }
    };
    ws.send(Message::text(r#"{"id":1,"call":"eboards"}"#))
        .await
        .map_err(|e| e.to_string())?;
    let eboards = answer(&mut ws, 1).await?;
    let serial = eboards["param"][0]["serialnr"]
        .as_str()
        .ok_or(format!("no e-board in {eboards}"))?
        .to_owned();
    let subscribe = serde_json::json!({"id":2,"call":"subscribe","param":
        {"feed":"eboardevent","id":1,"param":{"serialnr":serial}}});
    ws.send(Message::text(subscribe.to_string()))
        .await
        .map_err(|e| e.to_string())?;
    answer(&mut ws, 2).await?;
    let _ = ws.close(None).await;
    Ok(())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn idle_livechess_websockets_refilled_never_keep_lichess_out() {
    let _one_at_a_time = serial();
    let dir = temp_dir("lockout-livechess");
    let (_boards, mut daemon) = start_daemon(&dir, "\n[livechess_api]\nbind = \"127.0.0.1:0\"\n");
    let url = api_url(&dir.join("out"));
    let host = url
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();

    let stop = Arc::new(AtomicBool::new(false));
    let opened = Arc::new(AtomicUsize::new(0));
    let flood = idle_flood(
        WS_FLOOD,
        host,
        idle_websocket,
        Arc::clone(&stop),
        Arc::clone(&opened),
    );
    std::thread::sleep(Duration::from_secs(1));
    let rt = runtime();
    let mut failures = Vec::new();
    for _ in 0..10 {
        if let Err(e) = rt.block_on(lichess_dgt(&url)) {
            failures.push(e);
        }
    }
    stop.store(true, Ordering::SeqCst);
    flood.join().unwrap();
    let opened = opened.load(Ordering::SeqCst);
    assert!(opened >= 64, "the flood held the API's places: {opened}");
    assert!(
        failures.is_empty(),
        "{} of 10 lichess clients not served during the flood: {failures:?}",
        failures.len()
    );
    assert!(terminate(&mut daemon.0), "exit status 0 on SIGTERM");
}

/// A message over 16 KiB: a close frame saying so (1009), not a dropped connection.
#[test]
fn a_livechess_message_over_16_kib_gets_a_close_frame_1009() {
    let _one_at_a_time = serial();
    let dir = temp_dir("lockout-livechess-big");
    let (_boards, mut daemon) = start_daemon(&dir, "\n[livechess_api]\nbind = \"127.0.0.1:0\"\n");
    let url = api_url(&dir.join("out"));
    let big = runtime().block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        ws.send(Message::text("x".repeat(20 * 1024))).await.unwrap();
        tokio::time::timeout(Duration::from_secs(5), ws.next()).await
    });
    match big {
        Ok(Some(Ok(Message::Close(Some(frame))))) => {
            assert_eq!(frame.code, CloseCode::Size, "{frame:?}")
        }
        other => panic!("no close frame 1009 for a message over 16 KiB: {other:?}"),
    }
    assert!(terminate(&mut daemon.0), "exit status 0 on SIGTERM");
}

/// A WebSocket that sends nothing and subscribes to nothing is closed after 30 s, with
/// a close frame saying why.
#[test]
fn an_idle_livechess_websocket_is_closed_after_30_s() {
    let _one_at_a_time = serial();
    let dir = temp_dir("lockout-livechess-idle");
    let (_boards, mut daemon) = start_daemon(&dir, "\n[livechess_api]\nbind = \"127.0.0.1:0\"\n");
    let url = api_url(&dir.join("out"));
    let started = std::time::Instant::now();
    let closed = runtime().block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        tokio::time::timeout(Duration::from_secs(45), ws.next()).await
    });
    match closed {
        Ok(Some(Ok(Message::Close(Some(frame))))) => {
            assert_eq!(frame.code, CloseCode::Normal, "{frame:?}");
            assert!(frame.reason.contains("idle"), "{frame:?}");
        }
        other => panic!("no close frame for an idle connection: {other:?}"),
    }
    assert!(
        started.elapsed() >= Duration::from_secs(29),
        "not before 30 s"
    );
    assert!(terminate(&mut daemon.0), "exit status 0 on SIGTERM");
}
