//! A stray message on a hall's subject, end to end: a real `nats-server`, a hall daemon
//! (`dgt-arbiter run` with `[network] hall = "A"`) driving an emulated board through a
//! real game, and a central (`dgt-arbiter central`). Mid-game any client of the server
//! sends one plain `PUB dgt.<event>.A.1.events` (as a mistaken script or a curious
//! visitor would): the hall keeps publishing, the central reaches the hall's last ply,
//! and both say what they skipped (log, and the central dashboard's warning).
//!
//! Needs `nats-server` (Debian package `nats-server`); skipped with a line saying so when
//! it is missing, unless `DGT_REQUIRE_NATS_SERVER=1` (set by `.ci/run`).

mod common;
/// The nats-server helpers of the hall-link tests.
#[path = "../crates/hall-link/tests/common/mod.rs"]
mod nats;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

fn plies(out: &Path) -> usize {
    events(out).iter().filter(|e| e["kind"] == "move").count()
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < deadline, "{what}: not within {timeout:?}");
        pause(200);
    }
}

/// One plain NATS `PUB` by a client of its own, as any program on the network could.
fn stray_pub(url: &str, subject: &str, payload: &str) {
    let addr = url.trim_start_matches("nats://");
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut info = String::new();
    reader.read_line(&mut info).unwrap();
    assert!(info.starts_with("INFO"), "{info}");
    let mut w = stream;
    write!(
        w,
        "CONNECT {{\"verbose\":false,\"pedantic\":false}}\r\nPUB {subject} {}\r\n{payload}\r\nPING\r\n",
        payload.len()
    )
    .unwrap();
    let mut pong = String::new();
    reader.read_line(&mut pong).unwrap();
    assert!(pong.starts_with("PONG"), "the server took the PUB: {pong}");
}

fn central_warnings(out: &Path) -> Vec<(String, String)> {
    let Some(_) = try_http_host(out) else {
        return Vec::new();
    };
    let (status, body) = http_get(out, "/api/state");
    if status != 200 {
        return Vec::new();
    }
    let state: Value = serde_json::from_str(&body).unwrap_or_default();
    state["warnings"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|w| {
                    (
                        w["key"].as_str().unwrap_or("").to_owned(),
                        w["text"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_stray_message_on_a_halls_subject_does_not_stop_its_feed() {
    let Some(binary) = nats::nats_server_or_skip() else {
        return;
    };
    let _one_at_a_time = serial();
    let dir = temp_dir("fault-hall-feed");
    let (_server, url) = nats::start_server(&binary, &dir.join("nats"), &[]);
    let boards = Boards::serve(vec![script_with(
        0,
        31,
        Vec::new(),
        Some(16),
        dgt_sim::hands::Faults::default(),
    )]);
    let (hall_dir, central_dir) = (dir.join("hall-a"), dir.join("central"));
    for d in [&hall_dir, &central_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let (hall_cfg, central_cfg) = hall_a_and_central(
        &hall_dir,
        &central_dir,
        &boards,
        &format!("nats = \"{url}\"\n"),
    );
    let (hall_out, central_out) = (hall_dir.join("out"), central_dir.join("out"));
    let _hall = start(&hall_cfg);
    let _central = start_command("central", &central_cfg);
    let game_time = Duration::from_secs(150);

    wait_for("the central at ply 4", game_time, || {
        plies(&central_out) >= 4
    });
    stray_pub(&url, "dgt.E2E_Open.A.1.events", "hello");
    boards.wait_done(game_time);
    let hall_plies = plies(&hall_out);
    assert_eq!(hall_plies, 16, "the hall records the whole game");
    wait_for(
        "the central at the hall's last ply",
        Duration::from_secs(30),
        || plies(&central_out) == hall_plies,
    );

    let said = "was not published by hall A";
    let hall_log = std::fs::read_to_string(hall_cfg.with_extension("log")).unwrap();
    assert!(hall_log.contains(said), "the hall logs the stray message");
    assert!(
        !hall_log.contains("publishing stopped"),
        "the hall's feed never stopped"
    );
    let central_log = std::fs::read_to_string(central_cfg.with_extension("log")).unwrap();
    assert!(
        central_log.contains(said),
        "the central logs the stray message"
    );
    let warnings = central_warnings(&central_out);
    let foreign = warnings
        .iter()
        .find(|(k, _)| k == "foreign-A")
        .unwrap_or_else(|| panic!("the central dashboard warns: {warnings:?}"));
    assert!(
        foreign.1.contains("dgt.E2E_Open.A.1.events"),
        "{}",
        foreign.1
    );
    let _ = std::fs::remove_dir_all(&dir);
}
