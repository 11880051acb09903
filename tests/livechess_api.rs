//! The LiveChess local API (`[livechess_api]`) against clients we did not write, on a
//! real daemon (`dgt-arbiter run`) driving emulated boards on ptys:
//!
//! - a WebSocket client that behaves as lichess's `/dgt` page does: `eboards` resent
//!   until answered (every 5 s there, shortened here), `subscribe` to `eboards[0]`,
//!   `setup` with the start position, then only `san`: new moves are the new length
//!   minus the old, an identical list is a duplicate. It follows a whole real game with
//!   an illegal move in it: every move arrives once and in order, none made up;
//! - the `livechess` operator CLI from PyPI (0.1.0, `tests/requirements.txt`), run as
//!   shipped against the daemon: it must list the tournament, the e-boards, the rounds
//!   and the games without error. It always asks port 1982, so the daemon listens on
//!   1982 of a loopback address of its own (127.0.0.X). Needs the package importable by
//!   `$DGT_TEST_PYTHON` (default `python3`); without it the test prints `skipped: ...`,
//!   unless `DGT_REQUIRE_PYTHON=1` (set by `.ci/run`), where it fails.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use chess_rules::{read_pgn, Move, Position};
use dgt_sim::hands::{IllegalKind, Irregularity};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use arbiter_demo::GAMES;

/// The shortest embedded game (Morphy's Opera game, 33 plies, ends in mate).
const GAME: usize = 2;

/// lichess resends `eboards` every 5 s, up to 20 times; shortened here.
const EBOARDS_EVERY: Duration = Duration::from_millis(300);

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The moves of a SAN list, replayed from the start (panics on a move that is not legal:
/// a made-up move).
fn replay(sans: &[String]) -> Vec<Move> {
    let mut pos = Position::start();
    sans.iter()
        .map(|san| {
            let m = match pos.parse_san(san) {
                Ok(m) => m,
                Err(e) => panic!("{san} is not legal after {}: {e}", pos.fen()),
            };
            pos = pos.play(m).unwrap();
            m
        })
        .collect()
}

fn source_moves() -> Vec<Move> {
    let games = read_pgn(GAMES.as_bytes()).unwrap();
    let sans: Vec<String> = games[GAME].moves.iter().map(|m| m.san.clone()).collect();
    replay(&sans)
}

/// The daemon's `ws://` URL, once it has written it.
fn api_url(out: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(u) = std::fs::read_to_string(out.join("livechess-api-address")) {
            return u.trim().to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "no livechess-api-address written"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What the lichess-like client saw.
#[derive(Debug, Default)]
struct Seen {
    /// Moves as lichess would play them, in order.
    moves: Vec<String>,
    duplicates: usize,
    /// Lists that were neither the old list nor an extension of it.
    rewrites: Vec<(Vec<String>, Vec<String>)>,
    eboards_sent: usize,
    first_feed: Option<Value>,
}

/// Plays the lichess `/dgt` client until `want` moves arrived or `timeout` passed.
async fn lichess_dgt(url: &str, want: usize, timeout: Duration) -> Seen {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut seen = Seen::default();
    let deadline = tokio::time::Instant::now() + timeout;
    // eboards until answered.
    let serial = loop {
        assert!(seen.eboards_sent < 20, "eboards not answered 20 times");
        seen.eboards_sent += 1;
        ws.send(Message::text(r#"{"id":1,"call":"eboards"}"#))
            .await
            .unwrap();
        match tokio::time::timeout(EBOARDS_EVERY, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(&t).unwrap();
                assert_eq!(
                    (v["response"].as_str(), v["id"].as_u64()),
                    (Some("call"), Some(1)),
                    "{v}"
                );
                assert!(v["time"].as_u64().unwrap() > 1_500_000_000_000, "{v}");
                if let Some(first) = v["param"].get(0) {
                    break first["serialnr"].as_str().unwrap().to_owned();
                }
            }
            Ok(other) => panic!("unexpected {other:?}"),
            Err(_) => {} // not answered in time: send again
        }
    };
    ws.send(Message::text(
        json!({"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":serial}}})
            .to_string(),
    ))
    .await
    .unwrap();
    ws.send(Message::text(
        json!({"id":3,"call":"call","param":{"id":1,"method":"setup","param":{"fen":START}}})
            .to_string(),
    ))
    .await
    .unwrap();
    let mut last: Option<Vec<String>> = None;
    while seen.moves.len() < want {
        let msg = tokio::time::timeout_at(deadline, ws.next())
            .await
            .unwrap_or_else(|_| panic!("{want} moves not seen in {timeout:?}: {seen:?}"));
        let Some(Ok(Message::Text(t))) = msg else {
            panic!("the connection ended: {msg:?}");
        };
        let v: Value = serde_json::from_str(&t).unwrap();
        match v["response"].as_str() {
            // A late answer to an `eboards` sent again; subscribe and setup answer null.
            Some("call") if v["id"] == 1 => {}
            Some("call") => assert!(v["param"].is_null(), "{v}"),
            Some("feed") => {
                assert_eq!(v["id"], 1, "{v}");
                if seen.first_feed.is_none() {
                    seen.first_feed = Some(v["param"].clone());
                }
                let Some(san) = v["param"].get("san") else {
                    continue;
                };
                let san: Vec<String> = serde_json::from_value(san.clone()).unwrap();
                let old = last.clone().unwrap_or_default();
                if last.as_ref() == Some(&san) {
                    seen.duplicates += 1;
                } else if san.len() > old.len() && san.starts_with(&old) {
                    seen.moves.extend(san[old.len()..].iter().cloned());
                } else if !(last.is_none() && san.is_empty()) {
                    seen.rewrites.push((old, san.clone()));
                }
                last = Some(san);
            }
            _ => panic!("unexpected message {v}"),
        }
    }
    seen
}

#[test]
fn a_lichess_dgt_client_sees_every_move_once_in_order() {
    let _serial = common::serial();
    let dir = common::temp_dir("livechess-ws");
    let script = common::script(
        GAME,
        7,
        vec![Irregularity::Illegal(IllegalKind::KnightWrong)],
    );
    let boards = common::Boards::serve(vec![script]);
    let config = common::config(&dir, &boards, "\n[livechess_api]\nbind = \"127.0.0.1:0\"\n");
    let out = dir.join("out");
    let mut daemon = common::start(&config);
    let url = api_url(&out);
    let want = source_moves();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let seen = runtime.block_on(lichess_dgt(&url, want.len(), Duration::from_secs(300)));
    assert!(common::terminate(&mut daemon));

    let first = seen.first_feed.clone().unwrap();
    assert!(
        first.get("board").is_some() && first.get("clock").is_some(),
        "the first feed message carries the full state: {first}"
    );
    assert!(
        seen.rewrites.is_empty(),
        "lists that are not extensions: {:?}",
        seen.rewrites
    );
    assert_eq!(
        replay(&seen.moves),
        want,
        "the moves as lichess played them"
    );
    // The illegal move was ruled (the arbiter saw it) and never reached the feed.
    let events = common::events(&out);
    assert!(
        events.iter().any(|e| e["kind"] == "illegal_move"),
        "the script's illegal move was not ruled"
    );
    let _ = writeln!(
        std::io::stderr(),
        "livechess_api: {} moves, {} duplicate lists, eboards sent {} times",
        seen.moves.len(),
        seen.duplicates,
        seen.eboards_sent
    );
    drop(boards);
    std::fs::remove_dir_all(&dir).ok();
}

fn python() -> String {
    std::env::var("DGT_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether the `livechess` CLI can be imported; otherwise a visible skip line (or a
/// failure when `DGT_REQUIRE_PYTHON=1`).
fn have_livechess_cli() -> bool {
    let out = Command::new(python())
        .args(["-c", "import livechess.main"])
        .output();
    let why =
        match out {
            Ok(o) if o.status.success() => return true,
            Ok(o) => format!(
            "the livechess CLI is not importable by {} ({}); pip install -r tests/requirements.txt",
            python(),
            String::from_utf8_lossy(&o.stderr).trim().lines().last().unwrap_or("")
        ),
            Err(e) => format!("cannot run {}: {e}", python()),
        };
    let required = std::env::var("DGT_REQUIRE_PYTHON").is_ok_and(|v| v == "1");
    assert!(!required, "DGT_REQUIRE_PYTHON=1, but {why}");
    let _ = writeln!(std::io::stderr(), "skipped: livechess_api: {why}");
    false
}

/// `python -m livechess ARGS --host HOST`: its stdout; panics with its stderr on failure.
fn cli(host: &str, args: &[&str]) -> String {
    let out = Command::new(python())
        .args(["-m", "livechess"])
        .args(args)
        .args(["--host", host])
        // A wide table: rich cuts columns to the terminal's width.
        .env("COLUMNS", "250")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "livechess {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_livechess_cli_lists_the_tournament_rounds_and_games() {
    if !have_livechess_cli() {
        return;
    }
    let _serial = common::serial();
    let dir = common::temp_dir("livechess-cli");
    // The CLI always asks port 1982: a loopback address of this run's own.
    let host = format!("127.0.0.{}", 2 + std::process::id() % 250);
    // Board 1 plays a whole game; board 2's is cut short and stays live (the CLI lists
    // only rounds with a live game).
    let scripts = vec![
        common::script(GAME, 3, vec![]),
        common::script_with(0, 4, vec![], Some(12), dgt_sim::hands::Faults::default()),
    ];
    let boards = common::Boards::serve(scripts);
    let config = common::config(
        &dir,
        &boards,
        &format!("\n[livechess_api]\nbind = \"{host}:1982\"\n"),
    );
    let out = dir.join("out");
    let mut daemon = common::start(&config);
    api_url(&out);
    // Some moves on both boards.
    common::wait_events(
        &out,
        Duration::from_secs(120),
        "moves on both boards",
        |e| (1..=2).all(|b| common::moves(&common::board_events(e, b)).len() >= 4),
    );

    let tournaments = cli(&host, &["tournaments"]);
    assert!(tournaments.contains("E2E Open"), "{tournaments}");
    let uuid = tournaments
        .split(|c: char| !(c.is_ascii_hexdigit() || c == '-'))
        .find(|w| w.len() == 36)
        .unwrap_or_else(|| panic!("no uuid in {tournaments}"))
        .to_owned();
    let eboards = cli(&host, &["eboards"]);
    assert!(eboards.contains("ACTIVE"), "{eboards}");
    // `tournament` asks rounds 0 .. rounds-1 (the config's round 2 is index 1) and
    // lists the live round's games with their last move.
    let games = cli(&host, &["tournament", &uuid]);
    for name in ["White1", "Black1", "White2", "Black2"] {
        assert!(games.contains(name), "{name} not in\n{games}");
    }
    assert!(
        games.contains("1. ") || games.contains(".. "),
        "no last move in\n{games}"
    );
    cli(&host, &["events", &uuid]);

    // After board 1's game: its result, beside board 2's live game.
    common::wait_events(&out, Duration::from_secs(300), "board 1's game over", |e| {
        common::board_events(e, 1)
            .iter()
            .any(|e| e["kind"] == "game_over")
    });
    let games = cli(&host, &["tournament", &uuid]);
    assert!(games.contains("1-0"), "no result in\n{games}");
    assert!(games.contains("White2"), "{games}");
    cli(&host, &["events", &uuid]);
    assert!(common::terminate(&mut daemon));
    drop(boards);
    std::fs::remove_dir_all(&dir).ok();
}

/// SIGTERM with a consumer connected: it gets a close frame (1001, going away) and the
/// daemon exits (within `common::terminate`'s bound) instead of leaving a dead socket.
#[test]
fn a_stopping_daemon_closes_its_livechess_connections() {
    let _serial = common::serial();
    let dir = common::temp_dir("livechess-close");
    let boards = common::Boards::serve(vec![common::script(GAME, 11, vec![])]);
    let config = common::config(&dir, &boards, "\n[livechess_api]\nbind = \"127.0.0.1:0\"\n");
    let out = dir.join("out");
    let mut daemon = common::start(&config);
    let url = api_url(&out);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (ws, first) = runtime.block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        ws.send(Message::text(
            json!({"id":1,"call":"subscribe","param":{"feed":"eboardevent","id":9,"param":{"serialnr":"1"}}})
                .to_string(),
        ))
        .await
        .unwrap();
        // The subscribe's answer, then the feed's first message.
        let mut first = None;
        while first.is_none() {
            let msg = tokio::time::timeout(Duration::from_secs(60), ws.next())
                .await
                .expect("no answer to subscribe");
            let Some(Ok(Message::Text(t))) = msg else {
                panic!("unexpected {msg:?}");
            };
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["response"] == "feed" {
                first = Some(v);
            }
        }
        (ws, first.unwrap())
    });
    assert_eq!(first["id"], 9, "{first}");

    let ok = Command::new("kill")
        .arg("-TERM")
        .arg(daemon.id().to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -TERM failed");
    let close = runtime.block_on(async move {
        let mut ws = ws;
        loop {
            match tokio::time::timeout(Duration::from_secs(20), ws.next()).await {
                Err(_) => panic!("no close frame within 20 s of SIGTERM"),
                Ok(Some(Ok(Message::Close(frame)))) => return frame,
                // Feed messages may still come before it.
                Ok(Some(Ok(Message::Text(_)))) => {}
                Ok(other) => panic!("the connection ended without a close frame: {other:?}"),
            }
        }
    });
    let frame = close.expect("the close frame carries a code");
    assert_eq!(u16::from(frame.code), 1001, "going away: {frame:?}");
    assert!(frame.reason.contains("stopping"), "{frame:?}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = daemon.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the daemon did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    drop(boards);
    std::fs::remove_dir_all(&dir).ok();
}
