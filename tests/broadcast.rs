//! The broadcast delay end to end, on emulated boards and the real binary: every public
//! output (the PGN files, the LiveChess folder, the public HTTP routes, the push) lags
//! the hall by the delay, a board off the air never shows a move, the arbiter's routes
//! are real time, a `kill -9` keeps the public stream monotonic, and the delayed PGN is
//! read by python-chess and pgn-extract.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use chess_rules::read_pgn;
use common::*;
use serde_json::Value;

/// The delay in these tests.
const DELAY_MS: u64 = 3_000;
/// The push endpoint's path and the token it wants.
const PUSH_PATH: &str = "/api/broadcast/round/e2eRound/push";
const TOKEN: &str = "lip_e2eBroadcastToken42";

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `2025-06-12T19:03:20.123Z` to Unix ms.
fn parse_at(at: &str) -> u64 {
    let n = |r: std::ops::Range<usize>| at[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    let (hh, mm, ss, ms) = (n(11..13), n(14..16), n(17..19), n(20..23));
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    (((days * 24 + hh) * 60 + mm) * 60 + ss) as u64 * 1000 + ms as u64
}

/// A GET with extra headers: status and body, `None` while the daemon is down.
fn get(out: &Path, path: &str, headers: &str) -> Option<(u16, String)> {
    let host = common::try_http_host(out)?;
    let mut s = TcpStream::connect(&host).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Connection: close\r\n\r\n"
    )
    .ok()?;
    let mut reader = BufReader::new(s);
    let mut status = String::new();
    reader.read_line(&mut status).ok()?;
    let code = status.split_whitespace().nth(1)?.parse().ok()?;
    let mut chunked = false;
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        if h.trim().is_empty() {
            break;
        }
        chunked |= h
            .to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked");
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim(), 16).ok()?;
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).ok()?;
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        reader.read_to_end(&mut body).ok()?;
    }
    Some((code, String::from_utf8(body).ok()?))
}

/// Each game of a PGN text: its `Board` tag, moves (SAN) and result.
fn games_of(text: &str) -> Vec<(u32, Vec<String>, String)> {
    // A board's game followed on from a position after a gap (issue 36) goes on in a game
    // of its own from a FEN: its moves are put at their plies, "" before them, and the
    // board's games are one list by ply.
    let mut by_board: Vec<(u32, Vec<String>, String)> = Vec::new();
    for g in read_pgn(text.as_bytes())
        .unwrap_or_else(|e| panic!("unreadable public PGN ({e}):\n{text}"))
        .iter()
    {
        let board = g.tag("Board").and_then(|b| b.parse().ok()).unwrap_or(0);
        let from = g
            .tag("FEN")
            .and_then(|f| chess_rules::Position::from_fen(f).ok())
            .map_or(0, |p| p.plies() as usize);
        let result = g.tag("Result").unwrap_or("?").to_owned();
        let i = match by_board.iter().position(|(b, _, _)| *b == board) {
            Some(i) => i,
            None => {
                by_board.push((board, Vec::new(), String::new()));
                by_board.len() - 1
            }
        };
        let (_, moves, res) = &mut by_board[i];
        if moves.len() < from {
            moves.resize(from, String::new());
        }
        moves.truncate(from);
        moves.extend(g.moves.iter().map(|m| m.san.clone()));
        *res = result;
    }
    by_board
}

/// Whether two lists of moves by ply agree where both show a move ("" is a ply one of
/// them does not show: a gap followed on after, issue 36).
fn agree(a: &[String], b: &[String]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| x.is_empty() || y.is_empty() || x == y)
}

/// One look at a public output: when it was read (after the answer came), where, and
/// each board's moves.
#[derive(Debug, Clone)]
struct Seen {
    read_ms: u64,
    what: String,
    games: Vec<(u32, Vec<String>, String)>,
}

/// Looks at every public output once.
fn look(out: &Path, round: u32, seen: &mut Vec<Seen>) {
    let mut add = |what: String, text: Option<String>| {
        let read_ms = unix_ms();
        if let Some(text) = text {
            if !text.trim().is_empty() {
                seen.push(Seen {
                    read_ms,
                    games: games_of(&text),
                    what,
                });
            }
        }
    };
    for path in [
        "/round.pgn".to_owned(),
        "/games/1.pgn".to_owned(),
        "/games/2.pgn".to_owned(),
        format!("/livechess/round-{round}/games.pgn"),
    ] {
        let body = get(out, &path, "")
            .filter(|(c, _)| *c == 200)
            .map(|(_, b)| b);
        add(format!("GET {path}"), body);
    }
    for file in [
        format!("pgn/round-{round}.pgn"),
        format!("pgn/round-{round}/board-1.pgn"),
        format!("pgn/round-{round}/board-2.pgn"),
        format!("livechess/round-{round}/games.pgn"),
        format!("livechess/round-{round}/game-1.pgn"),
        format!("livechess/round-{round}/game-2.pgn"),
    ] {
        add(file.clone(), std::fs::read_to_string(out.join(&file)).ok());
    }
}

/// The time (Unix ms) of each move of a board in the arbiter's stream, by ply.
fn move_times(events: &[Value], board: usize) -> Vec<(String, u64)> {
    let mut out: Vec<(u64, String, u64)> = Vec::new();
    for e in board_events(events, board)
        .into_iter()
        .filter(|e| e["kind"] == "move")
    {
        let ply = e["ply"].as_u64().unwrap();
        out.retain(|(p, _, _)| *p < ply);
        out.push((
            ply,
            e["san"].as_str().unwrap().to_owned(),
            parse_at(e["at"].as_str().unwrap()),
        ));
    }
    // By ply: a ply not recorded (a gap followed on after, issue 36) is "".
    let mut by_ply: Vec<(String, u64)> = Vec::new();
    for (ply, san, at) in out {
        by_ply.resize(ply as usize - 1, (String::new(), 0));
        by_ply.push((san, at));
    }
    by_ply
}

/// When (Unix ms) a board's game ended, by the arbiter's stream.
fn over_at(events: &[Value], board: usize) -> Option<u64> {
    board_events(events, board)
        .into_iter()
        .find(|e| e["kind"] == "game_over")
        .map(|e| parse_at(e["at"].as_str().unwrap()))
}

/// No public look shows a move of board 1 before `delay` after it was made, nor any
/// move of board 2 (off the air), nor a result before `delay` after the game's end;
/// returns how many looks showed board 1 moves.
fn check_delay(seen: &[Seen], events: &[Value]) -> usize {
    let times = move_times(events, 1);
    let mut shown = 0;
    for s in seen {
        for (board, moves, result) in &s.games {
            if result != "*" {
                let over = over_at(events, *board as usize).unwrap_or_else(|| {
                    panic!("{}: board {board} shows {result} before its end", s.what)
                });
                assert!(
                    s.read_ms >= over + DELAY_MS,
                    "{}: board {board}'s result {result} was public {} ms after the end",
                    s.what,
                    s.read_ms.saturating_sub(over)
                );
            }
            match board {
                1 => {
                    assert!(
                        moves.len() <= times.len(),
                        "{}: more moves than made",
                        s.what
                    );
                    if let Some(last) = moves.last() {
                        let (san, at) = &times[moves.len() - 1];
                        assert_eq!(last, san, "{}: the moves as made", s.what);
                        assert!(
                            s.read_ms >= at + DELAY_MS,
                            "{}: {san} (ply {}) made at {at} was public at {} ({} ms later, \
                             the delay is {DELAY_MS})",
                            s.what,
                            moves.len(),
                            s.read_ms,
                            s.read_ms.saturating_sub(*at)
                        );
                        shown += 1;
                    }
                }
                2 => assert!(
                    moves.is_empty(),
                    "{}: board 2 is off the air but shows {moves:?}",
                    s.what
                ),
                other => panic!("{}: a game of board {other}", s.what),
            }
        }
    }
    shown
}

/// A broadcast server's push endpoint on a local port: checks each request and keeps
/// the bodies with the time they came.
struct PushReceiver {
    url: String,
    pushes: Arc<Mutex<Vec<(u64, String)>>>,
    problems: Arc<Mutex<Vec<String>>>,
}

impl PushReceiver {
    fn start() -> PushReceiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}{PUSH_PATH}", listener.local_addr().unwrap());
        let pushes = Arc::new(Mutex::new(Vec::new()));
        let problems = Arc::new(Mutex::new(Vec::new()));
        let (p, q) = (Arc::clone(&pushes), Arc::clone(&problems));
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                match Self::take(conn) {
                    Ok(body) => p.lock().unwrap().push((unix_ms(), body)),
                    Err(e) => q.lock().unwrap().push(e),
                }
            }
        });
        PushReceiver {
            url,
            pushes,
            problems,
        }
    }

    /// Reads one request, checks it and answers as lichess does.
    fn take(conn: TcpStream) -> Result<String, String> {
        conn.set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let mut reader = BufReader::new(conn.try_clone().map_err(|e| e.to_string())?);
        let mut line = String::new();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        let mut problems = Vec::new();
        if line.trim_end() != format!("POST {PUSH_PATH} HTTP/1.1") {
            problems.push(format!("request line {line:?}"));
        }
        let (mut length, mut auth, mut kind) = (None, None, None);
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).map_err(|e| e.to_string())?;
            if h.trim().is_empty() {
                break;
            }
            let (name, value) = h.split_once(':').ok_or(format!("header {h:?}"))?;
            let value = value.trim().to_owned();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "authorization" => auth = Some(value),
                "content-type" => kind = Some(value),
                _ => {}
            }
        }
        if auth.as_deref() != Some(&format!("Bearer {TOKEN}")) {
            problems.push(format!("Authorization {auth:?}"));
        }
        if !kind.as_deref().is_some_and(|k| k.starts_with("text/plain")) {
            problems.push(format!("Content-Type {kind:?}"));
        }
        let mut body = vec![0; length.ok_or("no Content-Length")?];
        reader.read_exact(&mut body).map_err(|e| e.to_string())?;
        let body = String::from_utf8(body).map_err(|_| "a body that is not UTF-8".to_owned())?;
        let games: Vec<String> = games_of(&body)
            .iter()
            .map(|(b, m, _)| format!("{{\"tags\":{{\"Board\":\"{b}\"}},\"moves\":{}}}", m.len()))
            .collect();
        let answer = format!("{{\"games\":[{}]}}", games.join(","));
        let mut conn = conn;
        write!(
            conn,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
            answer.len()
        )
        .map_err(|e| e.to_string())?;
        if problems.is_empty() {
            Ok(body)
        } else {
            Err(problems.join("; "))
        }
    }
}

/// The config's `[broadcast]` part (board 2 off the air is set per board).
fn broadcast_toml(dir: &Path, push: Option<&PushReceiver>) -> String {
    let mut s = format!("\n[broadcast]\ndelay = \"{DELAY_MS}ms\"\nresults_off_air = true\n");
    if let Some(p) = push {
        std::fs::write(dir.join("push-token"), format!("{TOKEN}\n")).unwrap();
        s.push_str(&format!(
            "\n[broadcast.push]\nurl = \"{}\"\ntoken_file = \"push-token\"\ninterval = \"500ms\"\n",
            p.url
        ));
    }
    s
}

/// Puts `broadcast = false` on board 2 of a written config.
fn board_2_off_the_air(cfg: &Path) {
    let text = std::fs::read_to_string(cfg).unwrap();
    let text = text.replacen(
        "[[board]]\nnumber = 2\n",
        "[[board]]\nnumber = 2\nbroadcast = false\n",
        1,
    );
    assert!(text.contains("broadcast = false"));
    std::fs::write(cfg, text).unwrap();
}

/// `$DGT_TEST_PYTHON` (default python3), if it has python-chess; a visible skip line
/// otherwise (a failure under `DGT_REQUIRE_PYTHON=1`).
fn python_chess() -> Option<String> {
    let python = std::env::var("DGT_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    assert!(
        std::env::var("DGT_REQUIRE_PYTHON").as_deref() != Ok("1"),
        "DGT_REQUIRE_PYTHON=1 but {python} has no python-chess (pip install -r tests/requirements.txt)"
    );
    println!("skipped: python-chess is not installed for {python} (set DGT_TEST_PYTHON)");
    None
}

/// `pgn-extract` (Debian puts it in /usr/games), or a visible skip line (a failure under
/// `DGT_REQUIRE_PGN_EXTRACT=1`).
fn pgn_extract() -> Option<PathBuf> {
    for p in [
        "pgn-extract",
        "/usr/games/pgn-extract",
        "/usr/bin/pgn-extract",
    ] {
        if Command::new(p).arg("-h").output().is_ok() {
            return Some(PathBuf::from(p));
        }
    }
    assert!(
        std::env::var("DGT_REQUIRE_PGN_EXTRACT").as_deref() != Ok("1"),
        "DGT_REQUIRE_PGN_EXTRACT=1 but pgn-extract is not installed (apt-get install pgn-extract)"
    );
    println!("skipped: pgn-extract is not installed (apt-get install pgn-extract)");
    None
}

/// The delayed PGN read by python-chess: each game's board, result and moves, one line
/// each, as `want`.
fn read_with_python_chess(path: &Path, want: &[String]) {
    let Some(python) = python_chess() else {
        return;
    };
    let script = r#"
import sys, chess.pgn
with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        if g.errors:
            sys.exit("errors: %r" % g.errors)
        board = g.board()
        sans = []
        for m in g.mainline_moves():
            sans.append(board.san(m))
            board.push(m)
        print(" ".join([g.headers["Board"], g.headers["Result"]] + sans))
"#;
    let o = Command::new(&python)
        .arg("-c")
        .arg(script)
        .arg(path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "python-chess: {}{stdout}",
        String::from_utf8_lossy(&o.stderr)
    );
    let got: Vec<String> = stdout.lines().map(|l| l.trim().to_owned()).collect();
    assert_eq!(got, want, "python-chess read {}", path.display());
}

/// The delayed PGN read by pgn-extract: it reports no error and writes every game out
/// again, with the same moves (`-Wsan`, no comments).
fn read_with_pgn_extract(path: &Path, games: usize, moves: &[String]) {
    let Some(tool) = pgn_extract() else {
        return;
    };
    let dir = path.parent().unwrap();
    let again = dir.join("pgn-extract-out.pgn");
    let log = dir.join("pgn-extract.log");
    let o = Command::new(&tool)
        .arg("-s")
        .arg("-C")
        .arg("-Wsan")
        .arg(format!("-o{}", again.display()))
        .arg(format!("-l{}", log.display()))
        .arg(path)
        .output()
        .unwrap();
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(o.status.success(), "pgn-extract failed: {log}");
    assert!(
        !log.to_lowercase().contains("error") && !log.contains("Unknown"),
        "pgn-extract complained: {log}"
    );
    let text = std::fs::read_to_string(&again).unwrap();
    assert_eq!(text.matches("[Event ").count(), games, "{text}");
    let first = games_of(&text)
        .into_iter()
        .find(|(b, _, _)| *b == 1)
        .unwrap();
    assert_eq!(first.1, moves, "pgn-extract wrote:\n{text}");
}

/// Every look at one output is a prefix of the next look at it: nothing published is
/// taken back or published twice.
fn check_monotonic(seen: &[Seen]) {
    let mut last: std::collections::BTreeMap<(String, u32), &Vec<String>> = Default::default();
    for s in seen {
        for (board, moves, _) in &s.games {
            let key = (s.what.clone(), *board);
            if let Some(before) = last.get(&key) {
                assert!(
                    moves.len() >= before.len() && agree(moves, before),
                    "{} board {board} went from {before:?} to {moves:?}",
                    s.what
                );
            }
            last.insert(key, moves);
        }
    }
}

/// The moves of the last look at `what`, board 1.
fn last_moves(seen: &[Seen], what: &str) -> Vec<String> {
    seen.iter()
        .rev()
        .find(|s| s.what == what)
        .and_then(|s| s.games.iter().find(|g| g.0 == 1))
        .map(|g| g.1.clone())
        .unwrap_or_default()
}

/// The arbiter token the daemon made.
fn token(out: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(t) = std::fs::read_to_string(out.join("arbiter-token")) {
            if !t.trim().is_empty() {
                return t.trim().to_owned();
            }
        }
        assert!(Instant::now() < deadline, "no arbiter-token written");
        pause(100);
    }
}

/// The moves (SAN) of a board's current game on the dashboard (real time).
fn dashboard_moves(out: &Path, token: &str, board: u32) -> Option<Vec<String>> {
    let (code, body) = get(
        out,
        &format!("/api/boards/{board}/history"),
        &format!("X-Arbiter-Token: {token}\r\n"),
    )?;
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    Some(
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap().to_owned())
            .collect(),
    )
}

#[test]
fn the_public_round_lags_the_hall_and_a_board_off_the_air_shows_no_move() {
    let _one_at_a_time = serial();
    let dir = temp_dir("broadcast");
    let push = PushReceiver::start();
    let boards = Boards::serve(vec![script(2, 31, vec![]), script(0, 32, vec![])]);
    let cfg = config(&dir, &boards, &broadcast_toml(&dir, Some(&push)));
    board_2_off_the_air(&cfg);
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    let token = token(&out);

    let mut seen = Vec::new();
    // Looks at the dashboard that showed a move before it was public.
    let mut ahead = 0;
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        look(&out, 2, &mut seen);
        let ev = events(&out);
        let times = move_times(&ev, 1);
        if let (Some((_, at)), Some(moves)) = (times.last(), dashboard_moves(&out, &token, 1)) {
            let read = unix_ms();
            // The arbiter's view is real time: every move of the stream file, at once.
            assert!(moves.len() >= times.len(), "{moves:?} behind {times:?}");
            if read < at + DELAY_MS {
                ahead += 1;
            }
        }
        let ended = [1, 2].map(|b| over_at(&ev, b));
        if let [Some(a), Some(b)] = ended {
            if unix_ms() > a.max(b) + DELAY_MS + 1_500 {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the games did not end in time");
        pause(150);
    }
    boards.wait_done(Duration::from_secs(30));
    look(&out, 2, &mut seen);
    let (_, state) = get(&out, "/api/state", &format!("X-Arbiter-Token: {token}\r\n")).unwrap();
    // The board's state: no position from the tracker while the round is delayed.
    let (_, boards_json) = get(&out, "/boards", "").unwrap();
    let boards_json: Value = serde_json::from_str(&boards_json).unwrap();
    assert!(
        boards_json["boards"][0]["snapshot"].is_null(),
        "{boards_json}"
    );
    let off_air = dashboard_moves(&out, &token, 2).unwrap();
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");

    let events = events(&out);
    let made: Vec<String> = move_times(&events, 1).into_iter().map(|(s, _)| s).collect();
    assert_eq!(made, moves(&board_events(&events, 1)));
    assert!(!off_air.is_empty(), "the arbiter sees board 2's moves");
    assert!(
        ahead > 0,
        "the dashboard never showed a move before it was public"
    );
    let shown = check_delay(&seen, &events);
    assert!(shown > 0, "no public look showed a move");
    check_monotonic(&seen);
    // In the end the whole game is public, board 2 with its result only.
    for what in [
        "GET /round.pgn",
        "GET /games/1.pgn",
        "pgn/round-2/board-1.pgn",
        "livechess/round-2/game-1.pgn",
    ] {
        assert_eq!(last_moves(&seen, what), made, "{what}");
    }
    let result = |b: usize| {
        board_events(&events, b)
            .into_iter()
            .find(|e| e["kind"] == "game_over")
            .unwrap()["result"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let last_round = seen
        .iter()
        .rev()
        .find(|s| s.what == "GET /round.pgn")
        .unwrap();
    assert_eq!(
        last_round.games,
        vec![(1, made.clone(), result(1)), (2, vec![], result(2))]
    );

    // The push: checked requests only, each as delayed as the rest, the last one the
    // final round.
    let problems = push.problems.lock().unwrap().clone();
    assert!(problems.is_empty(), "bad pushes: {problems:?}");
    let pushes = push.pushes.lock().unwrap().clone();
    assert!(pushes.len() >= 2, "{} pushes", pushes.len());
    let pushed: Vec<Seen> = pushes
        .iter()
        .map(|(at, body)| Seen {
            read_ms: *at,
            what: "push".into(),
            games: games_of(body),
        })
        .collect();
    check_delay(&pushed, &events);
    check_monotonic(&pushed);
    let last = &pushes.last().unwrap().1;
    assert_eq!(games_of(last), last_round.games);
    let state: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["push"]["ok"], true, "{state}");
    assert_eq!(state["push"]["status"], 200, "{state}");
    assert!(
        state["push"]["answer"]
            .as_str()
            .unwrap()
            .contains("\"games\""),
        "{state}"
    );

    // Independent readers of the pushed PGN.
    let file = dir.join("pushed.pgn");
    std::fs::write(&file, last).unwrap();
    read_with_python_chess(
        &file,
        &[
            format!("1 {} {}", result(1), made.join(" ")),
            format!("2 {}", result(2)),
        ],
    );
    read_with_pgn_extract(&file, 2, &made);
    eprintln!(
        "{} public looks, {shown} with moves, {} pushes, the dashboard ahead {ahead} times",
        seen.len(),
        pushes.len()
    );
}

#[test]
fn kill_9_keeps_the_public_stream_monotonic() {
    let _one_at_a_time = serial();
    let dir = temp_dir("broadcast-kill");
    let boards = Boards::serve(vec![script(2, 41, vec![])]);
    let cfg = config(&dir, &boards, &broadcast_toml(&dir, None));
    let out = dir.join("out");
    let mut seen = Vec::new();
    let mut daemon = start(&cfg);
    let deadline = Instant::now() + Duration::from_secs(120);
    // Killed once some moves are public and more are held back.
    loop {
        look(&out, 2, &mut seen);
        let made = move_times(&events(&out), 1).len();
        let public = last_moves(&seen, "GET /games/1.pgn").len();
        if public >= 3 && made > public {
            break;
        }
        assert!(Instant::now() < deadline, "no public moves in time");
        pause(100);
    }
    daemon.kill().unwrap(); // SIGKILL: no chance to flush anything
    daemon.wait().unwrap();
    let at_kill = last_moves(&seen, "GET /games/1.pgn");
    eprintln!("killed with {} moves public", at_kill.len());
    // While it is down the files stay as they were; then it resumes.
    for _ in 0..5 {
        look(&out, 2, &mut seen);
        pause(100);
    }
    std::fs::remove_file(out.join("http-address")).unwrap();
    let mut daemon = start(&cfg);
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        look(&out, 2, &mut seen);
        if let Some(over) = over_at(&events(&out), 1) {
            if unix_ms() > over + DELAY_MS + 1_500 {
                break;
            }
        }
        assert!(Instant::now() < deadline, "the game did not end in time");
        pause(150);
    }
    look(&out, 2, &mut seen);
    assert!(terminate(&mut daemon));
    let events = events(&out);
    check_delay(&seen, &events);
    check_monotonic(&seen);
    let made: Vec<String> = move_times(&events, 1).into_iter().map(|(s, _)| s).collect();
    let public = last_moves(&seen, "GET /games/1.pgn");
    assert!(
        public.len() == made.len() && agree(&public, &made) && public.last() == made.last(),
        "public {public:?}, made {made:?}"
    );
    assert!(at_kill.len() < made.len());
    let marks: Value = serde_json::from_slice(
        &std::fs::read(out.join("broadcast/round-2-published.json")).unwrap(),
    )
    .unwrap();
    assert!(marks["1"].as_u64().unwrap() > 0, "{marks}");
}
