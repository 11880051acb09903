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

/// Idle connections the flood holds: more than one address's share (128).
const FLOOD: usize = 200;

/// Holds `FLOOD` idle connections to `addr` from a thread, each opened again as soon as
/// the daemon closes it, until `stop`; counts the reopenings.
fn idle_flood(
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
            while held.len() < FLOOD {
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
        opened > FLOOD,
        "the flood opened its connections again as they closed: {opened}"
    );
    assert!(
        failures.is_empty(),
        "{} of 60 requests not answered during the flood: {failures:?}",
        failures.len()
    );
    assert!(terminate(&mut daemon.0), "exit status 0 on SIGTERM");
}
