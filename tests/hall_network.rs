//! One event across several hall PCs, end to end: a real `nats-server` with JetStream,
//! two hall daemons (`dgt-arbiter run` with `[network] hall`) each driving emulated
//! boards that play real games with irregularities, and a central (`dgt-arbiter
//! central`). During the games the server is killed and restarted, one hall is
//! `kill -9`ed and restarted, and the central is killed and restarted. At the end the
//! central's round PGN is the halls' round PGNs together, each hall event reached the
//! central's stream exactly once, every hall alert is on the central dashboard, an
//! action at the central reached the right hall, and an action for a hall that is down
//! fails visibly. And a board number claimed by two halls stops the central with an
//! error naming the board and both halls.
//!
//! Needs `nats-server` (Debian package `nats-server`); skipped with a line saying so when
//! it is missing, unless `DGT_REQUIRE_NATS_SERVER=1` (set by `.ci/run`).

mod common;
/// The nats-server helpers of the hall-link tests: finding the server (or skipping
/// visibly), the test event's certificates.
#[path = "../crates/hall-link/tests/common/mod.rs"]
mod nats;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use dgt_sim::hands::{Faults, IllegalKind, Irregularity};
use serde_json::Value;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A real nats-server with JetStream on a free loopback port and its own store; killed
/// when dropped.
struct NatsServer {
    binary: PathBuf,
    port: u16,
    monitor: u16,
    store: PathBuf,
    log: PathBuf,
    /// A config file (`-c`), for TLS and logins.
    conf: Option<PathBuf>,
    child: Option<Child>,
}

impl NatsServer {
    fn start(binary: PathBuf, dir: &Path) -> NatsServer {
        let mut s = NatsServer {
            binary,
            port: free_port(),
            monitor: free_port(),
            store: dir.join("nats-store"),
            log: dir.join("nats-server.log"),
            conf: None,
            child: None,
        };
        s.spawn();
        s
    }

    /// [`NatsServer::start`] with this config file text (written into `dir`).
    fn start_with_config(binary: PathBuf, dir: &Path, conf: &str) -> NatsServer {
        let path = dir.join("nats-server.conf");
        std::fs::write(&path, conf).unwrap();
        let mut s = NatsServer {
            binary,
            port: free_port(),
            monitor: free_port(),
            store: dir.join("nats-store"),
            log: dir.join("nats-server.log"),
            conf: Some(path),
            child: None,
        };
        s.spawn();
        s
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let mut command = Command::new(&self.binary);
        if let Some(conf) = &self.conf {
            command.arg("-c").arg(conf);
        }
        let child = command
            .args(["-js", "-a", "127.0.0.1", "-p"])
            .arg(self.port.to_string())
            .arg("-m")
            .arg(self.monitor.to_string())
            .arg("-sd")
            .arg(&self.store)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start nats-server");
        self.child = Some(child);
        // Ready when JetStream answers the monitoring endpoint's health check.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some((200, _)) = plain_get(self.monitor, "/healthz?js-enabled-only=true") {
                return;
            }
            assert!(Instant::now() < deadline, "nats-server did not come up");
            pause(100);
        }
    }

    /// `kill -9` and wait for the exit.
    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The monitoring endpoint's JetStream report (what an operator looks at).
    fn jsz(&self) -> Value {
        let (code, body) =
            plain_get(self.monitor, "/jsz?streams=true&consumers=true").expect("jsz answers");
        assert_eq!(code, 200);
        serde_json::from_str(&body).unwrap()
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A plain HTTP/1.0 GET on 127.0.0.1:port (the server's monitoring endpoint).
fn plain_get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let code = text.split_whitespace().nth(1)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned())?;
    Some((code, body))
}

/// A POST as the arbiter on a daemon's HTTP endpoint: status and JSON body.
fn http_post(out: &Path, path: &str) -> (u16, Value) {
    http_json(&http_host(out), "POST", path, &token_header(out), "")
}

/// A hall's config: its boards numbered from `first` (numbers are event-wide).
fn hall_config(dir: &Path, hall: &str, first: u32, boards: &Boards, nats: &str) -> PathBuf {
    let cfg = config(
        dir,
        boards,
        &format!("\n[network]\nnats = \"{nats}\"\nhall = \"{hall}\"\n"),
    );
    // Renumber the boards: board i of this hall is event board first + i - 1.
    let text = std::fs::read_to_string(&cfg).unwrap();
    let mut out = String::new();
    let mut n = 0;
    for line in text.lines() {
        if line.starts_with("number = ") {
            out.push_str(&format!("number = {}\n", first + n));
            n += 1;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(&cfg, out).unwrap();
    cfg
}

fn central_config(dir: &Path, nats: &str) -> PathBuf {
    let text = format!(
        "[event]\nname = \"E2E Open\"\nsite = \"Test hall\"\ndate = \"2025-06-12\"\nround = 2\n\
         time_control = \"{}\"\n\n[output]\ndir = \"out\"\n\n[http]\nbind = \"127.0.0.1:0\"\n\n\
         [network]\nnats = \"{nats}\"\nhalls = [\"A\", \"B\"]\n",
        arbiter_demo::TIME_CONTROL
    );
    let path = dir.join("event.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `dgt-arbiter central --config PATH`, killed when dropped (a failing test leaves none
/// behind).
fn start_central(config: &Path) -> DaemonProcess {
    start_command("central", config)
}

fn kill_9(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Each (board, seq) of a daemon's events.jsonl with its kind, and how often it is there.
fn by_seq(out: &Path) -> BTreeMap<(u64, u64), (String, usize)> {
    let mut m: BTreeMap<(u64, u64), (String, usize)> = BTreeMap::new();
    for e in events(out) {
        let board: u64 = e["board"].as_str().unwrap().parse().unwrap();
        let seq = e["seq"].as_u64().unwrap();
        let kind = e["kind"].as_str().unwrap().to_owned();
        m.entry((board, seq)).or_insert((kind, 0)).1 += 1;
    }
    m
}

fn move_count(out: &Path) -> usize {
    events(out).iter().filter(|e| e["kind"] == "move").count()
}

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < deadline, "{what}: not within {timeout:?}");
        pause(200);
    }
}

/// The warnings and errors of these logs (the daemons' and the server's), for a
/// failure's message: CI keeps only the test's output.
fn log_tails(logs: &[PathBuf]) -> String {
    let mut out = String::new();
    for path in logs {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.contains("WARN")
                    || l.contains("ERROR")
                    || l.contains("[ERR]")
                    || l.contains("[WRN]")
                    || l.contains("network")
                    || l.contains("central:")
            })
            .collect();
        let from = lines.len().saturating_sub(40);
        out.push_str(&format!(
            "--- {} ({} lines kept)\n",
            path.display(),
            lines.len()
        ));
        for l in &lines[from..] {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// A round PGN's games, each trimmed.
fn games_of(pgn: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut cur = String::new();
    for line in pgn.lines() {
        if line.starts_with("[Event ") && !cur.trim().is_empty() {
            games.push(cur.trim().to_owned());
            cur.clear();
        }
        cur.push_str(line);
        cur.push('\n');
    }
    if !cur.trim().is_empty() {
        games.push(cur.trim().to_owned());
    }
    games
}

fn round_pgn(out: &Path) -> String {
    let (code, body) = http_get(out, "/round.pgn");
    assert_eq!(code, 200, "{body}");
    body
}

/// The alerts on a daemon's dashboard: id -> state.
fn alerts(out: &Path) -> BTreeMap<String, String> {
    let (code, body) = http_get(out, "/api/state");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_owned(),
                a["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_board_number_in_two_halls_stops_the_central_naming_both() {
    let Some(binary) = nats::nats_server_or_skip() else {
        return;
    };
    let _one_at_a_time = serial();
    let dir = temp_dir("hall-network-duplicate");
    let server = NatsServer::start(binary, &dir);
    let nats = server.url();
    let a_boards = Boards::serve(vec![script(0, 31, Vec::new())]);
    let b_boards = Boards::serve(vec![script(2, 32, Vec::new())]);
    let (a_dir, b_dir, c_dir) = (dir.join("hall-a"), dir.join("hall-b"), dir.join("central"));
    for d in [&a_dir, &b_dir, &c_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    // Both halls call their board number 1.
    let mut hall_a = start(&hall_config(&a_dir, "A", 1, &a_boards, &nats));
    let mut hall_b = start(&hall_config(&b_dir, "B", 1, &b_boards, &nats));
    let c_cfg = central_config(&c_dir, &nats);
    let mut central = start_central(&c_cfg);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = central.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the central did not stop on the duplicate board number"
        );
        pause(200);
    };
    assert!(!status.success(), "the central refuses to start");
    let log = std::fs::read_to_string(c_cfg.with_extension("log")).unwrap();
    let error = log
        .lines()
        .skip_while(|l| !l.starts_with("Error:"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        error.contains("board 1 is configured in hall")
            && error.contains("hall A")
            && error.contains("hall B"),
        "the error names the board and both halls: {log}"
    );
    // The halls are not stopped by the central's config error.
    assert!(terminate(&mut hall_a));
    assert!(terminate(&mut hall_b));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_halls_and_a_central_survive_a_server_a_hall_and_a_central_restart() {
    let Some(binary) = nats::nats_server_or_skip() else {
        return;
    };
    let _one_at_a_time = serial();
    let dir = temp_dir("hall-network");
    let mut server = NatsServer::start(binary, &dir);
    let nats = server.url();
    let plies = Some(40);
    let hall_scripts = |games: [(usize, u64, Vec<Irregularity>); 2]| {
        games
            .into_iter()
            .map(|(g, seed, irr)| {
                let s = script_with(g, seed, irr, plies, Faults::default());
                assert!(
                    !s.injected.is_empty(),
                    "the game takes its irregularities: {:?}",
                    s.skipped
                );
                s
            })
            .collect::<Vec<_>>()
    };
    let a_boards = Boards::serve(hall_scripts([
        (
            0,
            11,
            vec![
                Irregularity::Illegal(IllegalKind::PinnedPiece),
                Irregularity::TouchOtherPiece,
            ],
        ),
        (2, 12, vec![Irregularity::ClockWithoutMove]),
    ]));
    let b_boards = Boards::serve(hall_scripts([
        (2, 21, vec![Irregularity::Illegal(IllegalKind::KnightWrong)]),
        (0, 22, vec![Irregularity::TouchOtherPiece]),
    ]));
    let (a_dir, b_dir, c_dir) = (dir.join("hall-a"), dir.join("hall-b"), dir.join("central"));
    for d in [&a_dir, &b_dir, &c_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let a_cfg = hall_config(&a_dir, "A", 1, &a_boards, &nats);
    let b_cfg = hall_config(&b_dir, "B", 3, &b_boards, &nats);
    let c_cfg = central_config(&c_dir, &nats);
    let (a_out, b_out, c_out) = (a_dir.join("out"), b_dir.join("out"), c_dir.join("out"));
    let started = Instant::now();
    let mut hall_a = start(&a_cfg);
    let mut hall_b = start(&b_cfg);
    let mut central = start_central(&c_cfg);
    let game_time = Duration::from_secs(150);

    // The server dies mid-game and comes back (its store kept): the halls go on alone.
    wait_for("hall A's first moves", game_time, || {
        move_count(&a_out) >= 6
    });
    server.kill();
    eprintln!("{:?}: nats-server killed", started.elapsed());
    let before = move_count(&a_out) + move_count(&b_out);
    wait_for("moves while the server is down", game_time, || {
        move_count(&a_out) + move_count(&b_out) >= before + 4
    });
    server.spawn();
    eprintln!("{:?}: nats-server restarted", started.elapsed());

    // Hall A dies without a word and is started again (its journals resume its boards).
    wait_for("more of hall A's moves", game_time, || {
        move_count(&a_out) >= 16
    });
    kill_9(&mut hall_a);
    eprintln!("{:?}: hall A killed", started.elapsed());
    pause(1_000);
    let _ = std::fs::remove_file(a_out.join("http-address"));
    hall_a = start(&a_cfg);

    // The central dies too and is started again (its files and durable consumers).
    wait_for("more of hall B's moves", game_time, || {
        move_count(&b_out) >= 24
    });
    kill_9(&mut central);
    eprintln!("{:?}: central killed", started.elapsed());
    pause(1_500);
    let _ = std::fs::remove_file(c_out.join("http-address"));
    central = start_central(&c_cfg);

    a_boards.wait_done(game_time);
    b_boards.wait_done(game_time);
    eprintln!("{:?}: the games are played", started.elapsed());

    // Every hall event reaches the central's stream, each exactly once.
    let deadline = Instant::now() + Duration::from_secs(60);
    let union = loop {
        let mut union = by_seq(&a_out);
        union.extend(by_seq(&b_out));
        let c = by_seq(&c_out);
        if union.keys().all(|k| c.contains_key(k)) && union.len() == c.len() {
            break union;
        }
        if Instant::now() > deadline {
            let missing: Vec<_> = union.keys().filter(|k| !c.contains_key(k)).collect();
            let extra: Vec<_> = c.keys().filter(|k| !union.contains_key(k)).collect();
            panic!(
                "the halls' events at the central: not within 60 s.\n\
                 (board, seq) missing at the central: {missing:?}\n\
                 at the central only: {extra:?}\n{}",
                log_tails(&[
                    a_cfg.with_extension("log"),
                    b_cfg.with_extension("log"),
                    c_cfg.with_extension("log"),
                    server.log.clone(),
                ])
            );
        }
        pause(200);
    };
    let central_events = by_seq(&c_out);
    for (k, (kind, n)) in &central_events {
        assert_eq!(
            *n, 1,
            "board {} seq {} ({kind}) is in the central's stream {n} times",
            k.0, k.1
        );
        assert_eq!(&union[k].0, kind, "board {} seq {}", k.0, k.1);
    }
    let kinds: BTreeSet<&str> = central_events.values().map(|(k, _)| k.as_str()).collect();
    assert!(kinds.contains("illegal_move"), "{kinds:?}");
    assert!(
        central_events.values().any(|(k, _)| k == "board_status"),
        "the hall's restart is in the central's stream"
    );

    // The central's round PGN is the halls' round PGNs together.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut halls = games_of(&round_pgn(&a_out));
        halls.extend(games_of(&round_pgn(&b_out)));
        let central = games_of(&round_pgn(&c_out));
        if (halls == central && halls.len() == 4) || Instant::now() > deadline {
            assert_eq!(halls.len(), 4);
            assert_eq!(
                central, halls,
                "the central's round PGN is the halls' together"
            );
            break;
        }
        pause(300);
    }

    // Every hall alert is on the central dashboard, once (ids are board-seq).
    let mut hall_alerts = alerts(&a_out);
    hall_alerts.extend(alerts(&b_out));
    assert!(!hall_alerts.is_empty());
    wait_for(
        "the halls' alerts at the central",
        Duration::from_secs(30),
        || {
            let c = alerts(&c_out);
            c.keys().collect::<Vec<_>>() == hall_alerts.keys().collect::<Vec<_>>()
        },
    );

    // An action at the central is carried out by the board's hall.
    // Hall B's boards are 3 and 4; an alert still open there (some, such as a game's
    // end, are resolved by the hall itself).
    let b_alert = hall_alerts
        .iter()
        .find(|(id, state)| (id.starts_with("3-") || id.starts_with("4-")) && *state == "open")
        .unwrap_or_else(|| panic!("hall B has an open alert: {hall_alerts:?}"))
        .0
        .clone();
    let a_before = alerts(&a_out);
    let (code, body) = http_post(&c_out, &format!("/api/alerts/{b_alert}/ack"));
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        alerts(&b_out)[&b_alert],
        "acknowledged",
        "hall B carried the action out"
    );
    assert_eq!(alerts(&c_out)[&b_alert], "acknowledged");
    assert_eq!(alerts(&a_out), a_before, "hall A was not asked");

    // A hall that is down makes the action fail visibly, and nothing changes.
    assert!(terminate(&mut hall_b));
    let (code, why) = http_post(&c_out, &format!("/api/alerts/{b_alert}/resolve"));
    assert_eq!(code, 502, "{why}");
    assert!(why["error"].as_str().unwrap().contains("hall B"), "{why}");
    assert_eq!(alerts(&c_out)[&b_alert], "acknowledged");

    // What an operator sees on the server's monitoring endpoint.
    let jsz = server.jsz();
    let streams: Vec<String> = jsz["account_details"][0]["stream_detail"]
        .as_array()
        .map(|s| {
            s.iter()
                .map(|s| s["name"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(streams.contains(&"DGT_E2E_Open_A".to_owned()), "{jsz}");
    assert!(streams.contains(&"DGT_E2E_Open_B".to_owned()), "{jsz}");

    assert!(terminate(&mut hall_a));
    assert!(terminate(&mut central));
    eprintln!("{:?}: done", started.elapsed());
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hall A with one emulated board playing 12 plies of the first game, and a central
/// following it, both started in `a_dir` and `c_dir` with this `[network]` body; returns
/// once the game is played and every move is at the central.
struct OneHall {
    /// The emulated board: kept until the test ends (dropped, its pty closes).
    boards: Boards,
    a_cfg: PathBuf,
    c_cfg: PathBuf,
    a_out: PathBuf,
    c_out: PathBuf,
    hall: DaemonProcess,
    central: DaemonProcess,
}

fn one_hall_played(a_dir: &Path, c_dir: &Path, seed: u64, network: &str) -> OneHall {
    let boards = Boards::serve(vec![script_with(
        0,
        seed,
        Vec::new(),
        Some(12),
        Faults::default(),
    )]);
    let (a_cfg, c_cfg) = hall_a_and_central(a_dir, c_dir, &boards, network);
    let (a_out, c_out) = (a_dir.join("out"), c_dir.join("out"));
    let hall = start(&a_cfg);
    let central = start_central(&c_cfg);
    boards.wait_done(Duration::from_secs(120));
    wait_for(
        "hall A's moves at the central",
        Duration::from_secs(60),
        || {
            let played = move_count(&a_out);
            played == 12 && c_out.join("events.jsonl").is_file() && move_count(&c_out) == played
        },
    );
    OneHall {
        boards,
        a_cfg,
        c_cfg,
        a_out,
        c_out,
        hall,
        central,
    }
}

/// Every arbiter command at the central is the board's hall's: a takeback, a result and a
/// clock setting sent to the central are carried out, journaled and published by hall A (its events
/// and PGN show them, and they come back to the central); a command the hall refuses is
/// a 409 with the hall's reason and changes nothing; a hall that does not answer (stopped)
/// is a 504 naming it, within the bound.
#[test]
fn the_centrals_takeback_and_decision_are_carried_out_by_the_boards_hall() {
    let Some(binary) = nats::nats_server_or_skip() else {
        return;
    };
    let _one_at_a_time = serial();
    let dir = temp_dir("hall-network-commands");
    let server = NatsServer::start(binary, &dir);
    let (a_dir, c_dir) = (dir.join("hall-a"), dir.join("central"));
    for d in [&a_dir, &c_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let network = format!("nats = \"{}\"\n", server.url());
    let OneHall {
        a_cfg,
        c_cfg,
        a_out,
        c_out,
        mut hall,
        mut central,
        boards: _boards,
    } = one_hall_played(&a_dir, &c_dir, 51, &network);
    let at_central = |path: &str, body: &str| {
        http_json(
            &http_host(&c_out),
            "POST",
            path,
            &token_header(&c_out),
            body,
        )
    };
    let kinds = |out: &Path, kind: &str| events(out).iter().filter(|e| e["kind"] == kind).count();

    // Refused by the hall, with its reason: nothing changes there or here.
    let before = events(&a_out).len();
    let (code, body) = at_central(
        "/api/boards/1/decision",
        r#"{"decision":"result_confirmed","result":"1-0"}"#,
    );
    assert_eq!(code, 409, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("cannot confirm 1-0"),
        "{body}"
    );
    let (code, body) = at_central("/api/boards/1/takeback", r#"{"to_ply": 40}"#);
    assert_eq!(code, 409, "{body}");
    let (code, body) = at_central("/api/boards/1/takeback", r#"{"to_ply": "x"}"#);
    assert_eq!(code, 400, "{body}");
    pause(1_000);
    assert_eq!(
        events(&a_out).len(),
        before,
        "a refused command changed the hall"
    );

    // Art. 7.5.1 from the central: the hall takes the game back to ply 10.
    let (code, body) = at_central(
        "/api/boards/1/takeback",
        r#"{"to_ply": 10, "reason": "illegal move at ply 11 found later (art. 7.5.1)"}"#,
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["ply"].as_u64(), Some(10), "{body}");
    wait_for(
        "the hall's taken_back event",
        Duration::from_secs(10),
        || kinds(&a_out, "taken_back") == 1,
    );
    wait_for(
        "the takeback in the hall's PGN",
        Duration::from_secs(10),
        || {
            std::fs::read_to_string(a_out.join("pgn/round-2/board-1.pgn"))
                // The PGN's lines are wrapped: compare words.
                .is_ok_and(|t| {
                    let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
                    words.contains("took the game back to ply 10")
                })
        },
    );

    // An arbiter's result from the central: the hall's decision, back at the central.
    let (code, body) = at_central(
        "/api/boards/1/decision",
        r#"{"decision":"result_set","result":"1-0"}"#,
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["events"][0]["kind"], "arbiter_decision", "{body}");
    // The times the arbiter set on the clock (art. 6.10), recorded by the hall.
    let (code, body) = at_central(
        "/api/boards/1/clock",
        r#"{"white_ms": 60000, "black_ms": 61000, "reason": "clock defective (art. 6.10.1)"}"#,
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["events"][0]["decision"], "clock_set", "{body}");
    wait_for(
        "the hall's decision events",
        Duration::from_secs(10),
        || kinds(&a_out, "arbiter_decision") == 2,
    );
    wait_for(
        "the hall's takeback and decisions at the central",
        Duration::from_secs(30),
        || kinds(&c_out, "taken_back") == 1 && kinds(&c_out, "arbiter_decision") == 2,
    );

    // A hall that does not answer: a 504 naming it, not a hang.
    let stop = |signal: &str| {
        let ok = Command::new("kill")
            .arg(signal)
            .arg(hall.id().to_string())
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {signal}");
    };
    stop("-STOP");
    let asked = Instant::now();
    let (code, body) = at_central("/api/boards/1/decision", r#"{"decision":"result_cleared"}"#);
    stop("-CONT");
    assert_eq!(code, 504, "{body}");
    assert!(body["error"].as_str().unwrap().contains("hall A"), "{body}");
    assert!(
        asked.elapsed() < Duration::from_secs(15),
        "{:?}",
        asked.elapsed()
    );

    assert!(terminate(&mut hall));
    assert!(terminate(&mut central));
    for log in [a_cfg.with_extension("log"), c_cfg.with_extension("log")] {
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(!text.contains("panicked"), "{}: {text}", log.display());
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The last sync status of board 1 in a daemon's events (`out_of_sync` / `in_sync`).
fn last_sync(out: &Path) -> Option<String> {
    events(out)
        .iter()
        .rfind(|e| {
            e["kind"] == "board_status"
                && (e["status"] == "out_of_sync" || e["status"] == "in_sync")
        })
        .and_then(|e| e["status"].as_str().map(str::to_owned))
}

/// One move by hand on a board, completed by the mover's press.
fn by_hand(board: &dgt_sim::BoardHandle, color: chess_rules::Color, uci: &str, fen_piece: char) {
    shift(board, uci, fen_piece);
    board.apply(dgt_sim::Action::PressClock(color));
    pause(300);
}

/// The arbiter's desk from the central (issue 40), for a board out of sync in hall A:
/// the moves of a gap and the acceptance of what the board shows, sent to the central,
/// are carried out by the board's hall (its events and PGN show them) and come back to
/// the central; an acceptance the hall refuses (the board in sync) is its 409.
///
/// The board is played by hand: 1. e4 e5, then hall A is killed (`kill -9`) while 2. Nf3
/// Nc6 3. Nc3 Nf6 are made without a press (a gap, its order unknown); once the moves
/// are entered, hall A is killed again and White's e-pawn is put back on e3 (no line
/// explains it): the arbiter accepts the board, White to move.
#[test]
fn the_centrals_moves_and_accept_are_carried_out_by_the_boards_hall() {
    use chess_rules::Color;
    let Some(binary) = nats::nats_server_or_skip() else {
        return;
    };
    let _one_at_a_time = serial();
    let dir = temp_dir("hall-network-desk");
    let server = NatsServer::start(binary, &dir);
    let (a_dir, c_dir) = (dir.join("hall-a"), dir.join("central"));
    for d in [&a_dir, &c_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let network = format!("nats = \"{}\"\n", server.url());
    let (hub, handles) = hand_boards(1);
    let boards = Boards {
        hub,
        handles,
        scripts: Vec::new(),
    };
    let board = &boards.handles[0];
    let (a_cfg, c_cfg) = hall_a_and_central(&a_dir, &c_dir, &boards, &network);
    let (a_out, c_out) = (a_dir.join("out"), c_dir.join("out"));
    let mut hall = start(&a_cfg);
    let mut central = start_central(&c_cfg);
    wait_for("both HTTP addresses", Duration::from_secs(30), || {
        try_http_host(&a_out).is_some() && try_http_host(&c_out).is_some()
    });
    let at_central = |path: &str, body: &str| {
        http_json(
            &http_host(&c_out),
            "POST",
            path,
            &token_header(&c_out),
            body,
        )
    };
    let flagged = |out: &Path, flag: &str| events(out).iter().filter(|e| e[flag] == true).count();
    let of_kind = |out: &Path, kind: &str| events(out).iter().filter(|e| e["kind"] == kind).count();

    // 1. e4 e5, at the hall and the central.
    wait_for(
        "board 1 connected at hall A",
        Duration::from_secs(30),
        || {
            let (_, s) = http_json(
                &http_host(&a_out),
                "GET",
                "/api/state",
                &token_header(&a_out),
                "",
            );
            s["boards"][0]["connected"] == true
        },
    );
    board.apply(dgt_sim::Action::PressClock(Color::Black)); // starts White's time
    pause(300);
    by_hand(board, Color::White, "e2e4", 'P');
    by_hand(board, Color::Black, "e7e5", 'p');
    wait_for("1. e4 e5 at the central", Duration::from_secs(30), || {
        move_count(&a_out) == 2 && c_out.join("events.jsonl").is_file() && move_count(&c_out) == 2
    });

    // The gap: hall A down while 2. Nf3 Nc6 3. Nc3 Nf6 are made, no press.
    kill_9(&mut hall);
    for (uci, p) in [("g1f3", 'N'), ("b8c6", 'n'), ("b1c3", 'N'), ("g8f6", 'n')] {
        shift(board, uci, p);
        pause(200);
    }
    hall = start(&a_cfg);
    wait_for("the gap at hall A", Duration::from_secs(30), || {
        events(&a_out).iter().any(|e| {
            (e["kind"] == "board_status" && e["status"] == "out_of_sync")
                || (e["kind"] == "position_accepted" && e["candidates"].is_array())
        })
    });
    pause(1_000);

    // The moves of the gap from the central: entered by hall A, back at the central.
    let (code, body) = at_central(
        "/api/boards/1/moves",
        r#"{"moves": ["Nf3", "Nc6", "Nc3", "Nf6"]}"#,
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["ply"].as_u64(), Some(6), "{body}");
    wait_for(
        "the entered moves at hall A",
        Duration::from_secs(10),
        || flagged(&a_out, "entered") == 4 && last_sync(&a_out).as_deref() == Some("in_sync"),
    );
    wait_for(
        "the entered moves in hall A's PGN",
        Duration::from_secs(10),
        || {
            std::fs::read_to_string(a_out.join("pgn/round-2/board-1.pgn")).is_ok_and(|t| {
                let words = t.split_whitespace().collect::<Vec<_>>().join(" ");
                words.contains("entered by the arbiter") && words.contains("3. Nc3")
            })
        },
    );
    wait_for(
        "the entered moves at the central",
        Duration::from_secs(30),
        || flagged(&c_out, "entered") == 4,
    );

    // The board in sync: an acceptance is the hall's 409, nothing changes.
    let accepted = of_kind(&a_out, "position_accepted");
    let (code, body) = at_central("/api/boards/1/accept/white?ply=6", "");
    assert_eq!(code, 409, "{body}");
    pause(1_000);
    assert_eq!(of_kind(&a_out, "position_accepted"), accepted);

    // White's e-pawn back on e3 while hall A is down (a pawn never goes back): out of
    // sync, no line explains it; accepted from the central.
    kill_9(&mut hall);
    shift(board, "e4e3", 'P');
    pause(300);
    hall = start(&a_cfg);
    wait_for(
        "board 1 out of sync at hall A",
        Duration::from_secs(30),
        || last_sync(&a_out).as_deref() == Some("out_of_sync"),
    );
    let (code, body) = at_central("/api/boards/1/accept/white", "");
    assert_eq!(code, 200, "{body}");
    let accepted_e3 = |out: &Path| {
        events(out).iter().any(|e| {
            e["kind"] == "position_accepted"
                && e["fen"]
                    .as_str()
                    .is_some_and(|f| f.contains("/8/2N1PN2/") && f.contains(" w "))
        })
    };
    wait_for("the acceptance at hall A", Duration::from_secs(10), || {
        accepted_e3(&a_out) && last_sync(&a_out).as_deref() == Some("in_sync")
    });
    wait_for(
        "the acceptance at the central",
        Duration::from_secs(30),
        || accepted_e3(&c_out),
    );

    assert!(terminate(&mut hall));
    assert!(terminate(&mut central));
    for log in [a_cfg.with_extension("log"), c_cfg.with_extension("log")] {
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(!text.contains("panicked"), "{}: {text}", log.display());
    }
    drop(boards);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hall_and_the_central_log_in_with_nkeys_over_tls() {
    let Some(binary) = nats::nats_server_or_skip() else {
        return;
    };
    let _one_at_a_time = serial();
    let dir = temp_dir("hall-network-tls");
    nats::make_certificates(&dir);
    let (hall_key, central_key) = (nkeys::KeyPair::new_user(), nkeys::KeyPair::new_user());
    let server = NatsServer::start_with_config(
        binary,
        &dir,
        &format!(
            // 5 s for a TLS handshake, as in crates/hall-link/tests/logins.rs.
            "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n  timeout: 5\n}}\n\
             accounts {{\n  EVENT: {{\n    jetstream: enabled\n    users: [\n      \
             {{ nkey: \"{}\" }}\n      {{ nkey: \"{}\" }}\n    ]\n  }}\n}}\n",
            dir.join("server-cert.pem").display(),
            dir.join("server-key.pem").display(),
            hall_key.public_key(),
            central_key.public_key(),
        ),
    );
    let tls_url = server.url().replace("nats://", "tls://");
    let (a_dir, c_dir) = (dir.join("hall-a"), dir.join("central"));
    for (d, key) in [(&a_dir, &hall_key), (&c_dir, &central_key)] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("daemon.nk"), key.seed().unwrap()).unwrap();
    }
    let logins =
        format!("nats = \"{tls_url}\"\nnkey_seed_file = \"daemon.nk\"\ntls_ca = \"../ca.pem\"\n");
    // The hall's moves reach the central, over TLS with the nkey logins.
    let OneHall {
        mut hall,
        mut central,
        boards: _boards,
        ..
    } = one_hall_played(&a_dir, &c_dir, 41, &logins);
    let (code, body) = plain_get(server.monitor, "/connz").expect("connz answers");
    assert_eq!(code, 200);
    let connz: Value = serde_json::from_str(&body).unwrap();
    let connections = connz["connections"].as_array().unwrap();
    for name in ["dgt-arbiter hall A", "dgt-arbiter central"] {
        let c = connections
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} is connected: {connz}"));
        assert!(
            c["tls_version"].as_str().is_some_and(|v| !v.is_empty()),
            "{name} talks TLS: {c}"
        );
    }
    assert!(terminate(&mut hall));
    assert!(terminate(&mut central));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run --check` reads the `[network]` files as the link does: a seed file that holds no
/// seed and a CA file without a certificate are named (no server needed).
#[test]
fn run_check_names_a_seed_file_without_a_seed_and_a_ca_file_without_a_certificate() {
    let dir = temp_dir("hall-network-check");
    std::fs::write(dir.join("hall-a.nk"), "not a seed\n").unwrap();
    std::fs::write(
        dir.join("hall-b.nk"),
        nkeys::KeyPair::new_user().seed().unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("ca.pem"), "hello\n").unwrap();
    let check = |network: &str| {
        let path = dir.join("hall.toml");
        std::fs::write(
            &path,
            format!(
                "[event]\nname = \"X\"\nround = 1\ntime_control = \"180+2\"\n\n[output]\ndir = \"out\"\n\n\
                 [network]\nnats = \"tls://central:4222\"\nhall = \"A\"\n{network}\n\
                 [[board]]\nnumber = 1\nport = \"/dev/null\"\n"
            ),
        )
        .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
            .args(["run", "--check", "--config"])
            .arg(&path)
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8(out.stderr).unwrap())
    };
    let (ok, e) = check("nkey_seed_file = \"hall-a.nk\"");
    assert!(
        !ok && e.contains("hall-a.nk") && e.contains("does not hold a user nkey seed"),
        "{e}"
    );
    let (ok, e) = check("nkey_seed_file = \"hall-b.nk\"\ntls_ca = \"ca.pem\"");
    assert!(
        !ok && e.contains("ca.pem") && e.contains("no PEM certificate"),
        "{e}"
    );
    let (ok, e) = check("nkey_seed_file = \"hall-b.nk\"");
    assert!(ok, "a good seed passes: {e}");
    let _ = std::fs::remove_dir_all(&dir);
}
