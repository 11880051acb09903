//! The dashboard's routes, called in process: access rules, actions, bounded inputs,
//! alert states across a restart, history with touch logs, the page and the stream.

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use chess_rules::{Color, IllegalCategory, Piece, RestoreStep};
use futures_util::StreamExt;
use serde_json::Value;
use touch_tracker::events::{IllegalMoveEvent, MoveEvent};
use touch_tracker::{ArbiterEvent, ClockMs, EventKind, Penalty, Touch, TouchAction};
use tower::ServiceExt;

use super::*;
use arbiter_hub::HubEvent;

const TOKEN: &str = "s3cret-arbiter-token";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-dash-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(dir: &Path, http: &str) -> Config {
    let text = format!(
        "[event]\nname = \"Club blitz\"\nround = 4\ntime_control = \"180+2\"\n\
         [output]\ndir = \"{}\"\n[http]\n{http}\n\
         [[board]]\nnumber = 1\nport = \"/dev/null\"\nwhite = \"Ann\"\nblack = \"Bo\"\n\
         [[board]]\nnumber = 2\nport = \"/dev/zero\"\nunattended = true\n",
        dir.display()
    );
    Config::parse(&text, Path::new("t.toml")).unwrap()
}

fn touch(t_ms: u64, sq: &str, piece: char, action: TouchAction) -> Touch {
    Touch {
        t_ms,
        square: sq.parse().unwrap(),
        piece: Piece::from_fen_char(piece).unwrap(),
        action,
    }
}

fn mv(seq: u64, ply: u32, uci: &str, san: &str, replaces: Option<&str>) -> HubEvent {
    let color = if ply % 2 == 1 {
        Color::White
    } else {
        Color::Black
    };
    let from = &uci[..2];
    let to = &uci[2..4];
    let p = if color == Color::White { 'P' } else { 'p' };
    ev(
        1,
        seq,
        EventKind::Move(MoveEvent {
            ply,
            color,
            uci: uci.parse().unwrap(),
            san: san.into(),
            fen: chess_rules::START_FEN.into(),
            clock_ms: Some(ClockMs {
                white: 170_000,
                black: 175_000,
            }),
            pressed: true,
            replaces: replaces.map(|r| r.parse().unwrap()),
            recovered: false,
            correction: false,
            entered: false,
            touches: vec![
                touch(1000, from, p, TouchAction::Lift),
                touch(1400, to, p, TouchAction::Place),
            ],
        }),
    )
}

fn ev(board: u32, seq: u64, kind: EventKind) -> HubEvent {
    HubEvent {
        seq,
        board,
        round: 4,
        wall_ms: 1_749_755_000_000 + seq,
        replayed: false,
        event: ArbiterEvent {
            t_ms: seq,
            board: board.to_string(),
            kind,
        },
    }
}

/// White's bishop f1-f3 after 1. e4 e5.
fn illegal(seq: u64) -> HubEvent {
    let b = Piece::from_fen_char('B').unwrap();
    ev(
        1,
        seq,
        EventKind::IllegalMove(IllegalMoveEvent {
            color: Color::White,
            category: IllegalCategory::PieceMovement,
            attempt: Some(chess_rules::Attempt {
                from: "f1".parse().unwrap(),
                to: "f3".parse().unwrap(),
                piece: b,
            }),
            count: 1,
            restore_fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2".into(),
            restore: vec![
                RestoreStep::Remove {
                    square: "f3".parse().unwrap(),
                    piece: b,
                },
                RestoreStep::Put {
                    square: "f1".parse().unwrap(),
                    piece: b,
                },
            ],
            must_move: Some("f1".parse().unwrap()),
            penalty: Some(Penalty {
                add_ms: 60_000,
                to: Color::Black,
            }),
            result: None,
            result_undetermined: false,
            ply: 3,
            explanation: String::new(),
            clock_before: Some(ClockMs {
                white: 172_000,
                black: 175_000,
            }),
            clock_after: Some(ClockMs {
                white: 170_000,
                black: 235_000,
            }),
        }),
    )
}

struct Fixture {
    hub: Arc<Hub>,
    router: Router,
    task: JoinHandle<()>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn start(dir: &Path, http: &str) -> Fixture {
    let config = Arc::new(config(dir, http));
    let hub = Arc::new(Hub::new([1, 2]));
    hub.publish(vec![
        mv(1, 1, "e2e4", "e4", None),
        mv(2, 2, "e7e6", "e6", None),
        mv(3, 2, "e7e5", "e5", Some("e7e6")),
        illegal(4),
    ]);
    let (dash, router, task) = Dashboard::start(Arc::clone(&hub), config, &Paths::new(dir));
    drop(dash);
    Fixture { hub, router, task }
}

async fn call(router: &Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Value) {
    let r = router.clone().oneshot(req).await.unwrap();
    let status = r.status();
    let headers = r.headers().clone();
    let bytes = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
    let v = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, headers, v)
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).unwrap()
}

fn post(path: &str, token: Option<&str>) -> Request<Body> {
    let mut r = Request::post(path);
    if let Some(t) = token {
        r = r.header(auth::TOKEN_HEADER, t);
    }
    r.body(Body::empty()).unwrap()
}

#[tokio::test]
async fn a_private_dashboard_needs_the_token_or_a_session() {
    let dir = temp_dir("private");
    let f = start(&dir, &format!("token = \"{TOKEN}\""));
    let (s, _, v) = call(&f.router, get("/api/state")).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(v["error"].as_str().unwrap().contains("X-Arbiter-Token"));
    let wrong = Request::get("/api/state")
        .header(auth::TOKEN_HEADER, "not-the-arbiter-token")
        .body(Body::empty())
        .unwrap();
    assert_eq!(call(&f.router, wrong).await.0, StatusCode::FORBIDDEN);
    assert_eq!(
        call(&f.router, get("/api/stream")).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        call(&f.router, get("/api/boards/1/history")).await.0,
        StatusCode::UNAUTHORIZED
    );
    // The page itself holds no data: it loads, and asks for the token.
    assert_eq!(call(&f.router, get("/")).await.0, StatusCode::OK);

    // A login with the token gives a session cookie that reads, and only reads.
    assert_eq!(
        call(
            &f.router,
            post("/api/login", Some("wrong-wrong-wrong-wrong"))
        )
        .await
        .0,
        StatusCode::FORBIDDEN
    );
    let (s, h, _) = call(&f.router, post("/api/login", Some(TOKEN))).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let cookie = h[header::SET_COOKIE].to_str().unwrap().to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    assert!(!cookie.contains(TOKEN));
    let session = cookie.split(';').next().unwrap().to_owned();
    let with_cookie = |path: &str, method: &str| {
        Request::builder()
            .method(method)
            .uri(path)
            .header(header::COOKIE, &session)
            .body(Body::empty())
            .unwrap()
    };
    let (s, _, v) = call(&f.router, with_cookie("/api/state", "GET")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["boards"].as_array().unwrap().len(), 2);
    assert_eq!(v["public"], false);
    let (s, _, _) = call(&f.router, with_cookie("/api/alerts/1-4/ack", "POST")).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "a session cannot act");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn actions_need_the_token_and_their_state_survives_a_restart() {
    let dir = temp_dir("actions");
    let f = start(
        &dir,
        &format!("token = \"{TOKEN}\"\npublic_dashboard = true"),
    );
    let (s, _, v) = call(&f.router, get("/api/state")).await;
    assert_eq!(s, StatusCode::OK);
    let alerts = v["alerts"].as_array().unwrap();
    assert_eq!(alerts.len(), 1);
    let a = &alerts[0];
    assert_eq!(
        (a["id"].as_str(), a["kind"].as_str(), a["state"].as_str()),
        (Some("1-4"), Some("illegal_move"), Some("open"))
    );
    assert_eq!(a["urgency"], "illegal");
    assert_eq!(a["details"]["category"], "piece moved against its rules");
    assert_eq!(
        a["details"]["steps"],
        serde_json::json!(["take the white bishop off f3", "put a white bishop on f1"])
    );
    assert_eq!(a["event"]["restore"][0]["square"], "f3");

    let (s, _, v) = call(&f.router, post("/api/alerts/1-4/ack", None)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(v["error"].is_string());
    let (s, _, _) = call(
        &f.router,
        post("/api/alerts/1-4/ack", Some("wrong-token-1234567")),
    )
    .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (_, _, v) = call(&f.router, get("/api/state")).await;
    assert_eq!(
        v["alerts"][0]["state"], "open",
        "refused actions change nothing"
    );

    let (s, _, v) = call(&f.router, post("/api/alerts/1-4/ack", Some(TOKEN))).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["state"], "acknowledged");
    assert!(v["acknowledged_at"].is_string());
    let (_, _, v) = call(&f.router, get("/api/state")).await;
    assert_eq!(v["alerts"][0]["state"], "acknowledged");

    // Bounded, checked inputs.
    let (s, _, _) = call(&f.router, post("/api/alerts/1-99/ack", Some(TOKEN))).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _, _) = call(&f.router, post("/api/alerts/1-4/delete", Some(TOKEN))).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _, _) = call(&f.router, post("/api/alerts/..%2F..%2Fx/ack", Some(TOKEN))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let big = Request::post("/api/alerts/1-4/resolve")
        .header(auth::TOKEN_HEADER, TOKEN)
        .header(header::CONTENT_LENGTH, "100000")
        .body(Body::from(vec![b'x'; 100_000]))
        .unwrap();
    let (s, _, v) = call(&f.router, big).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("over 1024 bytes")),
        "answered as JSON like every other error: {v}"
    );
    let huge_token = "x".repeat(10_000);
    let (s, _, _) = call(&f.router, post("/api/alerts/1-4/ack", Some(&huge_token))).await;
    assert_eq!(s, StatusCode::FORBIDDEN);

    // A restart: the same events come back with the state kept.
    drop(f);
    let f = start(
        &dir,
        &format!("token = \"{TOKEN}\"\npublic_dashboard = true"),
    );
    let (_, _, v) = call(&f.router, get("/api/state")).await;
    assert_eq!(v["alerts"][0]["state"], "acknowledged");
    let (s, _, v) = call(&f.router, post("/api/alerts/1-4/resolve", Some(TOKEN))).await;
    assert_eq!((s, v["state"].as_str()), (StatusCode::OK, Some("resolved")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn without_a_configured_token_one_is_made_and_kept() {
    let dir = temp_dir("made");
    let f = start(&dir, "public_dashboard = true");
    let kept = std::fs::read_to_string(dir.join("arbiter-token")).unwrap();
    let kept = kept.trim().to_owned();
    assert_eq!(kept.len(), 32);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.join("arbiter-token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "only the owner reads the token");
    let (s, _, _) = call(&f.router, post("/api/alerts/1-4/ack", Some(&kept))).await;
    assert_eq!(s, StatusCode::OK);
    drop(f);
    let _again = start(&dir, "public_dashboard = true");
    let same = std::fs::read_to_string(dir.join("arbiter-token")).unwrap();
    assert_eq!(same.trim(), kept);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn history_has_the_touch_log_of_each_move() {
    let dir = temp_dir("history");
    let f = start(&dir, "public_dashboard = true");
    let (s, _, v) = call(&f.router, get("/api/boards/1/history")).await;
    assert_eq!(s, StatusCode::OK);
    let moves = v["moves"].as_array().unwrap();
    let sans: Vec<&str> = moves.iter().map(|m| m["san"].as_str().unwrap()).collect();
    assert_eq!(sans, ["e4", "e5"], "the amended move replaced e6");
    assert_eq!(
        moves[1]["touches"][0],
        serde_json::json!({"t_ms": 1000, "square": "e7", "piece": "p", "action": "lift"})
    );
    assert_eq!(v["white"], "Ann");
    assert_eq!(v["alerts"][0]["id"], "1-4");
    for bad in [
        "/api/boards/9/history",
        "/api/boards/x/history",
        "/api/boards/99999999999/history",
    ] {
        assert_eq!(
            call(&f.router, get(bad)).await.0,
            StatusCode::NOT_FOUND,
            "{bad}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn boards_at_a_glance() {
    let dir = temp_dir("boards");
    let f = start(&dir, "public_dashboard = true");
    let (_, _, v) = call(&f.router, get("/api/state")).await;
    let b = &v["boards"];
    assert_eq!(b[0]["white"], "Ann");
    assert_eq!(b[0]["last_move"]["san"], "e5");
    assert_eq!(b[0]["open_alerts"], 1);
    // No driver has reported: the boards are offline.
    assert_eq!(b[0]["status"], "offline");
    assert_eq!(b[1]["unattended"], true);
    assert_eq!(b[1]["last_move"], Value::Null);
    // Sudden death: no control to count down to.
    assert_eq!(b[0]["time_control"], "180+2");
    assert_eq!(b[0]["to_control"], Value::Null);
    assert_eq!(v["claims"], serde_json::json!([]));
    assert_eq!(v["event"], "Club blitz");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_with_a_strict_policy() {
    let dir = temp_dir("page");
    let f = start(&dir, "");
    for (path, kind, needle) in [
        ("/", "text/html", "dashboard.js"),
        ("/assets/dashboard.js", "text/javascript", "EventSource"),
        ("/assets/dashboard.css", "text/css", ".alert-card"),
    ] {
        let (s, h, v) = call(&f.router, get(path)).await;
        assert_eq!(s, StatusCode::OK, "{path}");
        assert!(h[header::CONTENT_TYPE].to_str().unwrap().starts_with(kind));
        assert!(h[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .contains("script-src 'self'"));
        assert!(v.as_str().unwrap().contains(needle), "{path}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_stream_says_hello_then_each_change() {
    let dir = temp_dir("stream");
    let f = start(&dir, "public_dashboard = true");
    let r = f.router.clone().oneshot(get("/api/stream")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let mut body = r.into_body().into_data_stream();
    let mut text = String::new();
    while !text.contains("\n\n") {
        text.push_str(&String::from_utf8_lossy(&next(&mut body).await));
    }
    assert!(text.starts_with("event: hello\n"), "{text}");
    assert!(text.contains("\"1-4\""));
    // A change published later reaches the open stream.
    f.hub
        .publish(vec![ev(1, 5, EventKind::Restored { fen: "x".into() })]);
    let mut seen = String::new();
    while !seen.contains("position restored") {
        seen.push_str(&String::from_utf8_lossy(&next(&mut body).await));
    }
    assert!(seen.contains("event: alert"), "{seen}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The next chunk of a streamed body (5 s at most).
async fn next(body: &mut axum::body::BodyDataStream) -> axum::body::Bytes {
    tokio::time::timeout(std::time::Duration::from_secs(5), body.next())
        .await
        .expect("an event within 5 s")
        .unwrap()
        .unwrap()
}

#[test]
fn the_config_takes_the_token_and_never_shows_it() {
    let dir = temp_dir("config");
    let c = config(
        &dir,
        &format!("token = \"{TOKEN}\"\npublic_dashboard = true"),
    );
    assert!(c.http.public_dashboard);
    assert!(c.http.token.as_ref().unwrap().matches(TOKEN));
    assert!(!format!("{c:?}").contains(TOKEN));
    let text =
        "[event]\nname = \"E\"\nround = 1\ntime_control = \"180+2\"\n[output]\ndir = \"o\"\n\
                [http]\ntoken = \"short\"\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n";
    let e = Config::parse(text, Path::new("t.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("t.toml:8:9: http.token is not usable"), "{e}");
    assert!(e.contains("16 to 200"), "{e}");
    let d = config(&dir, "");
    assert!(!d.http.public_dashboard);
    assert!(d.http.token.is_none());
    assert_eq!(d.timing.ruling_text_ms, 1500);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn board_summaries_are_built_only_while_someone_watches() {
    let dir = temp_dir("summaries");
    let config = Arc::new(config(&dir, ""));
    let hub = Arc::new(Hub::new([1, 2]));
    hub.publish(vec![mv(1, 1, "e2e4", "e4", None)]);
    let (dash, _router, task) = Dashboard::start(hub, config, &Paths::new(&dir));
    task.abort();
    dash.sync_boards();
    assert!(
        dash.lock().boards.is_none(),
        "built with nobody on the stream"
    );
    let mut rx = dash.stream.subscribe();
    dash.sync_boards();
    assert!(dash.lock().boards.is_some());
    let msg = rx.recv().await.unwrap();
    assert_eq!(msg.event, "boards");
    assert!(msg.data.contains("e4"), "{}", msg.data);
}

/// A game over on board 2 (news: resolved at once) at `seq`.
fn game_end(seq: u64) -> HubEvent {
    ev(
        2,
        seq,
        EventKind::GameOver(touch_tracker::events::GameOverEvent {
            result: chess_rules::GameResult::Draw,
            reason: touch_tracker::EndReason::Stalemate,
            flag: None,
            undetermined: false,
            plies: 40,
        }),
    )
}

/// A possible touch-move violation on board 1 (asks the arbiter) at `seq`.
fn touch_violation(seq: u64) -> HubEvent {
    ev(
        1,
        seq,
        EventKind::TouchMove(touch_tracker::events::TouchMoveEvent {
            color: Color::Black,
            touched: vec![],
            obligation: chess_rules::Obligation::Move,
            square: "g8".parse().unwrap(),
            played: "e7e5".parse().unwrap(),
            played_san: "e5".into(),
            violation: true,
            ply: 2,
        }),
    )
}

#[tokio::test]
async fn a_flood_of_alerts_keeps_the_state_bounded_and_archives_what_is_resolved() {
    let dir = temp_dir("flood");
    let f = start(&dir, "public_dashboard = true");
    // 6,000 resolved game ends and 1,500 open touch-move questions.
    let resolved = 6_000u64;
    let asking = 1_500u64;
    f.hub.publish((0..resolved).map(|i| game_end(100 + i)));
    f.hub
        .publish((0..asking).map(|i| touch_violation(100_000 + i)));
    let (s, _, v) = call(&f.router, get("/api/state")).await;
    assert_eq!(s, StatusCode::OK);
    let page = v["alerts"].as_array().unwrap();
    assert_eq!(page.len(), ALERTS_PAGE);
    // The questions come first, none dropped: the illegal move and every touch-move
    // question are still there, counted.
    assert!(page.iter().all(|a| a["state"] == "open"));
    let open = asking + 1;
    assert_eq!(
        v["alerts_total"].as_u64(),
        Some(open + alerts::RESOLVED_KEPT as u64)
    );
    assert_eq!(
        v["alerts_more"].as_u64(),
        Some(open + alerts::RESOLVED_KEPT as u64 - ALERTS_PAGE as u64)
    );
    assert_eq!(
        v["alerts_archived"].as_u64(),
        Some(resolved - alerts::RESOLVED_KEPT as u64)
    );
    let bytes = serde_json::to_vec(&v).unwrap().len();
    assert!(bytes < 2 << 20, "/api/state is {bytes} bytes");
    // Paginated: the next page, the last one, bad parameters.
    let (_, _, v2) = call(
        &f.router,
        get("/api/state?alerts_offset=200&alerts_limit=50"),
    )
    .await;
    assert_eq!(v2["alerts"].as_array().unwrap().len(), 50);
    assert_ne!(v2["alerts"][0]["id"], v["alerts"][0]["id"]);
    let last = format!("/api/state?alerts_offset={}", open + 150);
    let (_, _, v3) = call(&f.router, get(&last)).await;
    assert_eq!(v3["alerts"].as_array().unwrap().len(), 50);
    assert_eq!(v3["alerts_more"], 0);
    for bad in ["alerts_limit=5000", "alerts_offset=x", "page=2"] {
        let (s, _, e) = call(&f.router, get(&format!("/api/state?{bad}"))).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}");
        assert!(e["error"].as_str().unwrap().contains("alerts_limit"), "{e}");
    }
    // The archive holds the resolved ones, each line framed.
    let archive = std::fs::read_to_string(dir.join(ARCHIVE_FILE)).unwrap();
    let lines: Vec<&str> = archive.lines().collect();
    assert_eq!(lines.len() as u64, resolved - alerts::RESOLVED_KEPT as u64);
    for l in &lines {
        let object = crash_safe::unframe(l.as_bytes()).unwrap().unwrap();
        let a: Value = serde_json::from_slice(&object).unwrap();
        assert_eq!(a["state"], "resolved");
        assert_eq!(a["kind"], "game_over");
    }
    // A restart replays the same events: the archived ones stay in the archive.
    drop(f);
    let f = start(&dir, "public_dashboard = true");
    f.hub.publish((0..resolved).map(|i| game_end(100 + i)));
    f.hub
        .publish((0..asking).map(|i| touch_violation(100_000 + i)));
    let (_, _, v) = call(&f.router, get("/api/state")).await;
    assert_eq!(
        v["alerts_total"].as_u64(),
        Some(open + alerts::RESOLVED_KEPT as u64)
    );
    let again = std::fs::read_to_string(dir.join(ARCHIVE_FILE)).unwrap();
    assert_eq!(again.lines().count(), lines.len(), "archived twice");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_player_counts_down_to_his_time_control() {
    let tc: dgt_protocol::capture::TimeControl = "40/5400+30:1800+30".parse().unwrap();
    // After 28. ... (ply 56) both have 12 moves to make; White's 29th move leaves him 11.
    let t = ToControl::at(tc, 56).unwrap();
    assert_eq!((t.white, t.black), (Some(12), Some(12)));
    let t = ToControl::at(tc, 57).unwrap();
    assert_eq!((t.white, t.black), (Some(11), Some(12)));
    // Past move 40 the last period is sudden death: no control left.
    let t = ToControl::at(tc, 80).unwrap();
    assert_eq!((t.white, t.black), (None, None));
    // A repeating period counts to the next one.
    let t = ToControl::at("40/7200".parse().unwrap(), 81).unwrap();
    assert_eq!((t.white, t.black), (Some(39), Some(40)));
    assert!(ToControl::at("180+2".parse().unwrap(), 10).is_none());
}

/// A central's forwarder that never answers: the evidence route must not use it.
#[derive(Debug)]
struct NoHall;

impl Forward for NoHall {
    fn forward(&self, _board: u32, _command: Command) -> ForwardFuture {
        Box::pin(async { Err(ForwardError::Unreachable("no hall in this test".into())) })
    }
}

fn get_as_arbiter(path: &str) -> Request<Body> {
    Request::get(path)
        .header(auth::TOKEN_HEADER, TOKEN)
        .body(Body::empty())
        .unwrap()
}

#[tokio::test]
async fn the_evidence_route_says_why_it_has_no_pack() {
    let dir = temp_dir("evidence");
    let config = Arc::new(config(&dir, &format!("token = \"{TOKEN}\"")));
    let hub = Arc::new(Hub::new([1, 2]));
    let (dash, router, task) = Dashboard::start(Arc::clone(&hub), config, &Paths::new(&dir));
    let (status, _, body) = call(&router, get("/api/boards/1/evidence?ply=3")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    for (path, want, words) in [
        (
            "/api/boards/1/evidence",
            StatusCode::BAD_REQUEST,
            "which ply",
        ),
        (
            "/api/boards/1/evidence?ply=3&x=1",
            StatusCode::BAD_REQUEST,
            "x=1",
        ),
        (
            "/api/boards/7/evidence?ply=3",
            StatusCode::NOT_FOUND,
            "no board \"7\"",
        ),
        // No events.jsonl yet.
        (
            "/api/boards/1/evidence?ply=3",
            StatusCode::NOT_FOUND,
            "no events",
        ),
    ] {
        let (status, headers, body) = call(&router, get_as_arbiter(path)).await;
        assert_eq!(status, want, "{path}: {body}");
        assert!(headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .contains("json"));
        assert!(
            body["error"].as_str().unwrap().contains(words),
            "{path}: {body}"
        );
    }
    // A central: the board's files are on its hall's PC, and the answer says where to
    // make the pack.
    dash.forward_actions_to(Arc::new(NoHall));
    let (status, _, body) = call(&router, get_as_arbiter("/api/boards/1/evidence?ply=3")).await;
    assert_eq!(status, StatusCode::NOT_IMPLEMENTED, "{body}");
    let why = body["error"].as_str().unwrap();
    assert!(
        why.contains("dgt-arbiter evidence") && why.contains("--ply 3"),
        "{why}"
    );
    task.abort();
    let _ = std::fs::remove_dir_all(&dir);
}
