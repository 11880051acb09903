//! The arbiter's decisions by hand, end to end: the real `dgt-arbiter` binary with one
//! emulated board and DGT3000 on a pty (`unattended = true`), played by hand from this
//! test, and the dashboard's `POST /api/boards/B/decision`.
//!
//! - Art. 7.4: White plays 2. d3 knocking the c2 pawn off the board and presses: a move
//!   and a `displaced` card, no illegal move, no penalty. Declaring the game lost is
//!   refused for a first displacement; without the token every decision is refused.
//! - Art. 12.9.2: the arbiter adds two minutes to Black: an `arbiter_decision` event with
//!   the clocks before and after, and (unattended) the DGT3000 is set to them: Black's
//!   time on the emulated clock goes up by two minutes.
//! - White displaces a piece again (3. Nf3 knocking h2 over): the arbiter declares the
//!   game lost (12.9.6): `game_over` 0-1, reason `arbiter`, the PGN says so.
//! - The result: the arbiter sets 1-0 over the board's 0-1: a "result disputed" alert
//!   until he confirms one; confirming it resolves the alert.
//! - After a restart the decisions are regenerated from the journal with the same `seq`.

mod common;

use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use chess_rules::Color;
use common::{http_host, pause, piece, serial, shift, sq, start, temp_dir, terminate};
use dgt_sim::{Action, BoardHandle};
use serde_json::Value;

const TOKEN: &str = "e2e-decisions-token-0123";

/// The daemon (killed when dropped, so also if the test fails before it stops it).
struct Daemon(Option<common::DaemonProcess>);

/// One HTTP request (`Connection: close`): status and JSON body.
fn request(host: &str, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    let auth = token
        .map(|t| format!("X-Arbiter-Token: {t}\r\n"))
        .unwrap_or_default();
    common::http_json(host, method, path, &auth, body)
}

fn decide(host: &str, body: &str) -> (u16, Value) {
    request(host, "POST", "/api/boards/1/decision", Some(TOKEN), body)
}

fn state(host: &str) -> Value {
    request(host, "GET", "/api/state", Some(TOKEN), "").1
}

fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        pause(50);
    }
}

fn plies(host: &str) -> u64 {
    state(host)["boards"][0]["ply"].as_u64().unwrap_or(0)
}

/// One move by hand, completed by the mover's press; waits until the daemon has it.
fn play(h: &BoardHandle, host: &str, color: Color, uci: &str, fen_piece: char) {
    let before = plies(host);
    shift(h, uci, fen_piece);
    h.apply(Action::PressClock(color));
    wait_until(Duration::from_secs(10), &format!("the move {uci}"), || {
        plies(host) > before
    });
}

/// A move made while knocking the piece on `knocked` off the board (art. 7.4), pressed.
fn play_knocking(h: &BoardHandle, color: Color, uci: &str, fen_piece: char, knocked: &str) {
    h.apply(Action::Lift(sq(&uci[..2])));
    pause(80);
    h.apply(Action::Lift(sq(knocked)));
    pause(80);
    h.apply(Action::Place(sq(&uci[2..4]), piece(fen_piece)));
    pause(150);
    h.apply(Action::PressClock(color));
}

fn events(out: &Path) -> Vec<Value> {
    common::events(out)
}

fn kinds(out: &Path, kind: &str) -> Vec<Value> {
    events(out)
        .into_iter()
        .filter(|e| e["kind"] == kind)
        .collect()
}

/// The daemon for one board played by hand, its DGT3000 driven (`unattended = true`),
/// started in `dir` and connected: its config, output folder, HTTP host.
fn start_unattended(
    dir: &Path,
    b: &BoardHandle,
) -> (std::path::PathBuf, std::path::PathBuf, String, Daemon) {
    let text = format!(
        "[event]\nname = \"Club blitz\"\nround = 2\ntime_control = \"300+3\"\n\
         [output]\ndir = \"out\"\n[http]\nbind = \"127.0.0.1:0\"\ntoken = \"{TOKEN}\"\n\
         [timing]\nsettle_window_ms = 100\ntwo_handed_window_ms = 40\nruling_text_ms = 300\n\
         [[board]]\nnumber = 1\nport = \"{}\"\nwhite = \"Carlsen, Anna\"\nblack = \"Nakamura, Ben\"\n\
         white_clock = \"left\"\nunattended = true\n",
        b.pty_path().unwrap().display()
    );
    let config = dir.join("arbiter.toml");
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon(Some(start(&config)));
    let out = dir.join("out");
    wait_until(Duration::from_secs(30), "the HTTP address", || {
        out.join("http-address").exists()
    });
    let host = http_host(&out);
    wait_until(Duration::from_secs(30), "the board connected", || {
        state(&host)["boards"][0]["connected"] == true
    });
    (config, out, host, daemon)
}

/// White's time started and 1. e4 e5 played.
fn open_game(b: &BoardHandle, host: &str) {
    b.apply(Action::PressClock(Color::Black)); // starts White's time
    pause(200);
    play(b, host, Color::White, "e2e4", 'P');
    play(b, host, Color::Black, "e7e5", 'p');
}

#[test]
fn art_7_4_penalties_and_the_result_by_the_arbiters_hand() {
    let _one_at_a_time = serial();
    let dir = temp_dir("decisions");
    let (_hub, boards) = common::hand_boards(1);
    let b = &boards[0];
    let (config, out, host, mut daemon) = start_unattended(&dir, b);

    open_game(b, &host);
    // 2. d3, the c2 pawn knocked off the board with it.
    play_knocking(b, Color::White, "d2d3", 'P', "c2");
    wait_until(Duration::from_secs(10), "the displaced card", || {
        state(&host)["alerts"]
            .as_array()
            .is_some_and(|a| a.iter().any(|a| a["kind"] == "displaced"))
    });
    common::wait_events(
        &out,
        Duration::from_secs(10),
        "displaced in the stream",
        |ev| ev.iter().any(|e| e["kind"] == "displaced"),
    );
    assert!(
        kinds(&out, "illegal_move").is_empty(),
        "art. 7.4: no illegal move"
    );
    let d = &kinds(&out, "displaced")[0];
    assert_eq!(
        (d["color"].as_str(), d["ply"].as_u64()),
        (Some("white"), Some(3))
    );
    assert_eq!(d["reestablished"], false);
    assert!(
        kinds(&out, "arbiter_decision").is_empty(),
        "nothing is applied on the daemon's own initiative"
    );

    // Refused: no token, a wrong token; declaring the game lost for a first displacement;
    // a penalty for a displacement that did not happen; nonsense.
    let warn = r#"{"decision":"warning","color":"white","ply":3}"#;
    let no_token = request(&host, "POST", "/api/boards/1/decision", None, warn);
    assert_eq!(no_token.0, 401, "{:?}", no_token.1);
    let wrong = request(
        &host,
        "POST",
        "/api/boards/1/decision",
        Some("nope-nope-nope"),
        warn,
    );
    assert_eq!(wrong.0, 403);
    let (code, body) = decide(&host, r#"{"decision":"game_lost","color":"white","ply":3}"#);
    assert_eq!(code, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("second"), "{body}");
    let (code, body) = decide(&host, r#"{"decision":"warning","color":"black","ply":3}"#);
    assert_eq!(code, 409, "{body}");
    let (code, body) = decide(&host, r#"{"decision":"warn"}"#);
    assert_eq!(code, 400, "{body}");
    let (code, _) = request(&host, "POST", "/api/boards/9/decision", Some(TOKEN), warn);
    assert_eq!(code, 404);
    assert!(kinds(&out, "arbiter_decision").is_empty());

    // The pawn put back: re-established.
    b.apply(Action::Place(sq("c2"), piece('P')));
    common::wait_events(&out, Duration::from_secs(10), "re-established", |ev| {
        ev.iter()
            .any(|e| e["kind"] == "displaced" && e["reestablished"] == true)
    });

    // Art. 12.9.2: two minutes to Black, set on the DGT3000 (unattended).
    let black_before = b.with(|e| e.remaining(Color::Black)).as_millis() as i64;
    let (code, body) = decide(
        &host,
        r#"{"decision":"time_added","color":"white","ply":3,"add_ms":120000}"#,
    );
    assert_eq!(code, 200, "{body}");
    let e = &body["events"][0];
    assert_eq!(e["kind"], "arbiter_decision");
    assert_eq!(e["decision"], "time_added");
    assert_eq!(e["penalty"]["to"], "black");
    assert_eq!(e["penalty"]["add_ms"], 120_000);
    let (before, after) = (&e["clock_before"], &e["clock_after"]);
    assert_eq!(
        after["black"].as_u64().unwrap(),
        before["black"].as_u64().unwrap() + 120_000
    );
    assert_eq!(after["white"], before["white"]);
    wait_until(
        Duration::from_secs(10),
        "two minutes more on Black's clock",
        || {
            let now = b.with(|e| e.remaining(Color::Black)).as_millis() as i64;
            // Black's clock runs meanwhile; the clock frames show whole seconds.
            (now - black_before - 120_000).abs() < 5_000
        },
    );
    // The card notes the decision and is settled; the event is in the stream.
    let st = state(&host);
    let card = st["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "displaced")
        .unwrap()
        .clone();
    assert_eq!(card["state"], "resolved");
    assert!(
        card["notes"].to_string().contains("gives Black 2 minutes"),
        "{card}"
    );
    common::wait_events(
        &out,
        Duration::from_secs(10),
        "the decision in the stream",
        |ev| {
            ev.iter()
                .filter(|e| e["kind"] == "arbiter_decision")
                .count()
                == 1
        },
    );

    // 2... Nc6 3. Nf3, knocking the h2 pawn over: a second displacement by White.
    play(b, &host, Color::Black, "b8c6", 'n');
    play_knocking(b, Color::White, "g1f3", 'N', "h2");
    common::wait_events(
        &out,
        Duration::from_secs(10),
        "the second displacement",
        |ev| {
            ev.iter()
                .filter(|e| e["kind"] == "displaced" && e["reestablished"] == false)
                .count()
                == 2
        },
    );
    let (code, body) = decide(&host, r#"{"decision":"game_lost","color":"white","ply":5}"#);
    assert_eq!(code, 200, "{body}");
    let over = &body["events"][1];
    assert_eq!(over["kind"], "game_over");
    assert_eq!(
        (over["result"].as_str(), over["reason"].as_str()),
        (Some("0-1"), Some("arbiter"))
    );
    // After the end only a warning can still be given.
    let (code, _) = decide(
        &host,
        r#"{"decision":"time_added","color":"white","ply":3,"add_ms":60000}"#,
    );
    assert_eq!(code, 409);
    let (code, _) = decide(&host, warn);
    assert_eq!(code, 200);

    // The arbiter's result over the board's: disputed until he confirms one.
    let (code, body) = decide(&host, r#"{"decision":"result_set","result":"1-0"}"#);
    assert_eq!(code, 200, "{body}");
    let dispute = |st: &Value| {
        st["alerts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["kind"] == "result_disputed")
            .cloned()
    };
    let st = state(&host);
    let card = dispute(&st).expect("a result-disputed alert");
    assert_eq!(card["state"], "open");
    assert_eq!(card["event"]["board_result"], "0-1");
    assert_eq!(card["event"]["arbiter_result"], "1-0");
    assert_eq!(st["boards"][0]["results"]["disputed"], true);
    let (code, _) = decide(&host, r#"{"decision":"result_confirmed","result":"0-1"}"#);
    assert_eq!(code, 200);
    let st = state(&host);
    assert_eq!(dispute(&st).unwrap()["state"], "resolved");
    assert_eq!(st["boards"][0]["results"]["result"], "0-1");
    assert_eq!(st["boards"][0]["results"]["disputed"], false);

    // The PGN comments say who decided what.
    wait_until(Duration::from_secs(10), "the PGN", || {
        std::fs::read_to_string(out.join("pgn/round-2/board-1.pgn"))
            .is_ok_and(|p| p.contains("declares the game lost"))
    });
    // PGN wraps its lines: compared with single spaces.
    let pgn = std::fs::read_to_string(out.join("pgn/round-2/board-1.pgn"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert!(pgn.contains("declares the game lost by White"), "{pgn}");
    assert!(
        pgn.contains("the arbiter's decision: the arbiter gives Black 2 minutes"),
        "{pgn}"
    );

    // A restart regenerates the decisions from the journal, numbered as before.
    common::wait_events(&out, Duration::from_secs(10), "five decisions", |ev| {
        ev.iter()
            .filter(|e| e["kind"] == "arbiter_decision")
            .count()
            == 5
    });
    let decided: Vec<(u64, String)> = kinds(&out, "arbiter_decision")
        .iter()
        .map(|e| {
            (
                e["seq"].as_u64().unwrap(),
                e["decision"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(decided.len(), 5, "{decided:?}");
    assert!(terminate(daemon.0.as_mut().unwrap()));
    let mut daemon = Daemon(Some(start(&config)));
    wait_until(Duration::from_secs(30), "the board resumed", || {
        std::fs::read_to_string(out.join("http-address")).is_ok()
            && TcpStream::connect(
                std::fs::read_to_string(out.join("http-address"))
                    .unwrap()
                    .trim()
                    .trim_start_matches("http://")
                    .trim_end_matches('/'),
            )
            .is_ok()
    });
    let host = http_host(&out);
    wait_until(
        Duration::from_secs(30),
        "the state after the restart",
        || state(&host)["boards"][0]["results"]["result"] == "0-1",
    );
    let again: Vec<(u64, String)> = kinds(&out, "arbiter_decision")
        .iter()
        .map(|e| {
            (
                e["seq"].as_u64().unwrap(),
                e["decision"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(again, decided, "written once, the same numbers");
    assert!(dispute(&state(&host)).is_some_and(|a| a["state"] == "resolved"));
    assert!(terminate(daemon.0.as_mut().unwrap()));
    daemon.0 = None;
}

/// Art. 6.10 / 12.9: the arbiter sets both clocks from the desk (`POST /api/boards/1/clock`):
/// an `arbiter_decision` `clock_set` with the clocks before and after and his reason, the
/// unattended board's DGT3000 set to those times, the PGN comment with the reason. A
/// setting without a reason is refused (409) and changes nothing; a body that is not such
/// JSON is a 400, no token a 401.
#[test]
fn art_6_10_the_arbiter_sets_the_clocks_from_the_desk() {
    let _one_at_a_time = serial();
    let dir = temp_dir("decisions-clock");
    let (_hub, boards) = common::hand_boards(1);
    let b = &boards[0];
    let (_config, out, host, mut daemon) = start_unattended(&dir, b);
    open_game(b, &host);
    let clock = |body: &str| request(&host, "POST", "/api/boards/1/clock", Some(TOKEN), body);

    let (code, body) = clock(r#"{"white_ms": 200000, "black_ms": 250000, "reason": " "}"#);
    assert_eq!(code, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("reason"), "{body}");
    let (code, body) = clock(r#"{"white_ms": "3 min", "black_ms": 1, "reason": "x"}"#);
    assert_eq!(code, 400, "{body}");
    let (code, _) = request(
        &host,
        "POST",
        "/api/boards/1/clock",
        None,
        r#"{"white_ms": 1, "black_ms": 1, "reason": "x"}"#,
    );
    assert_eq!(code, 401);
    pause(500);
    assert!(kinds(&out, "arbiter_decision").is_empty());

    // White to move: the clocks set to 3:20 and 4:10.
    let reason = "the clock was set wrong (art. 6.10.2)";
    let (code, body) = clock(&format!(
        r#"{{"white_ms": 200000, "black_ms": 250000, "reason": "{reason}"}}"#
    ));
    assert_eq!(code, 200, "{body}");
    let e = &body["events"][0];
    assert_eq!(e["kind"], "arbiter_decision", "{body}");
    assert_eq!(e["decision"], "clock_set");
    assert_eq!(
        e["clock_after"],
        serde_json::json!({"white": 200_000, "black": 250_000})
    );
    assert!(e["clock_before"]["black"].is_u64(), "{e}");
    assert_eq!(e["reason"], reason);
    wait_until(Duration::from_secs(10), "the DGT3000 set", || {
        let (white, black) = b.with(|e| {
            (
                e.remaining(Color::White).as_millis() as i64,
                e.remaining(Color::Black).as_millis() as i64,
            )
        });
        // White's clock runs from the setting on.
        (black - 250_000).abs() < 2_000 && white <= 200_000 && white > 190_000
    });
    wait_until(Duration::from_secs(10), "the PGN comment", || {
        std::fs::read_to_string(out.join("pgn/round-2/board-1.pgn")).is_ok_and(|p| {
            p.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&format!(
                "the arbiter's decision: the arbiter sets the clocks to White 3:20, Black 4:10 \
                 (art. 6.10, 12.9): {reason}"
            ))
        })
    });
    assert!(terminate(daemon.0.as_mut().unwrap()));
    daemon.0 = None;
    let _ = std::fs::remove_dir_all(&dir);
}
