//! Helpers of the daemon's end-to-end tests: emulated boards served on ptys by this test
//! process (the `dgt-sim` hub, scripted by the hand-motion generator), a config naming
//! them, the real `dgt-arbiter` binary, and readers for what it writes.
#![allow(dead_code)] // Each test file uses a part.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use arbiter_demo::{GAMES, TIME_CONTROL};
use chess_rules::{read_pgn, Piece, Square};
use dgt_sim::hands::{generate, Faults, GameInput, HandOptions, Irregularity, Script};
use dgt_sim::{Action, BoardHandle, Emulator, ServeOptions};
use serde_json::Value;

/// Virtual time runs this much faster than real time in these tests. The tracker's
/// windows are scaled to match; higher speeds leave too little room for scheduling
/// jitter on a loaded 2-core machine.
pub const SPEED: f64 = 3.0;

/// The daemon tests start real processes and real-time emulators: one at a time keeps
/// their timing honest on a small machine.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// A square by name (`"f3"`).
pub fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// A piece by its FEN letter (`'B'`: a white bishop).
pub fn piece(fen: char) -> Piece {
    Piece::from_fen_char(fen).unwrap()
}

/// Waits `ms` milliseconds of real time (a hand between two actions).
pub fn pause(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

/// By hand, on a board served in real time: lifts the piece on the first square of `uci`
/// and puts `fen_piece` on the second (a move, or putting a piece back), at a human pace.
pub fn shift(board: &BoardHandle, uci: &str, fen_piece: char) {
    board.apply(Action::Lift(sq(&uci[..2])));
    pause(60);
    board.apply(Action::Place(sq(&uci[2..4]), piece(fen_piece)));
    pause(120);
}

/// `n` emulated boards with the emulator's defaults (a DGT3000 at 5+3, White on the
/// left), served on ptys in real time for a test to play on by hand.
pub fn hand_boards(n: usize) -> (dgt_sim::Hub, Vec<BoardHandle>) {
    let mut hub = dgt_sim::Hub::new().unwrap();
    let boards = (0..n)
        .map(|i| {
            hub.serve_pty(
                Emulator::new(dgt_sim::EmulatorConfig {
                    serial: board_serial(i),
                    ..dgt_sim::EmulatorConfig::default()
                }),
                ServeOptions::default(),
            )
            .unwrap()
        })
        .collect();
    (hub, boards)
}

/// The serial number of the `i`-th emulated board (from 0): each its own, as real boards
/// have (a game follows its board's serial, issue 36).
pub fn board_serial(i: usize) -> String {
    format!("{:05}", 10_001 + i)
}

/// A fresh folder for one test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dgt-arbiter-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One game of the demo's embedded games, scripted with these irregularities.
pub fn script(game: usize, seed: u64, irregularities: Vec<Irregularity>) -> Script {
    script_with(game, seed, irregularities, None, Faults::default())
}

/// [`script`], with the game cut after `plies` plies (if given) and these line faults.
pub fn script_with(
    game: usize,
    seed: u64,
    irregularities: Vec<Irregularity>,
    plies: Option<usize>,
    faults: Faults,
) -> Script {
    let games = read_pgn(GAMES.as_bytes()).unwrap();
    let mut input = GameInput::from_pgn(&games[game]).unwrap();
    if let Some(n) = plies {
        input.moves.truncate(n);
    }
    generate(
        &input,
        &HandOptions {
            seed,
            time_control: TIME_CONTROL,
            think_scale: 0.02,
            start_delay_ms: 6000,
            irregularities,
            faults,
            ..HandOptions::default()
        },
    )
    .unwrap()
}

/// Emulated boards on ptys, playing their scripts from now on.
pub struct Boards {
    pub hub: dgt_sim::Hub,
    pub handles: Vec<dgt_sim::BoardHandle>,
    pub scripts: Vec<Script>,
}

impl Boards {
    pub fn serve(scripts: Vec<Script>) -> Boards {
        Boards::serve_linked(scripts, None)
    }

    /// [`Boards::serve`]; with `links`, each board also gets a stable symlink
    /// `links/board-N` (N from 1) that survives its cable being pulled and plugged back,
    /// and [`config`] names the link.
    pub fn serve_linked(scripts: Vec<Script>, links: Option<&Path>) -> Boards {
        let mut hub = dgt_sim::Hub::new().unwrap();
        let handles = scripts
            .iter()
            .enumerate()
            .map(|(i, s)| {
                hub.serve_pty(
                    Emulator::new(dgt_sim::EmulatorConfig {
                        serial: board_serial(i),
                        ..s.emulator_config()
                    }),
                    ServeOptions {
                        script: s.actions.clone(),
                        speed: SPEED,
                        link: links.map(|d| d.join(format!("board-{}", i + 1))),
                        ..ServeOptions::default()
                    },
                )
                .unwrap()
            })
            .collect();
        Boards {
            hub,
            handles,
            scripts,
        }
    }

    /// Waits until every script has played out.
    pub fn wait_done(&self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        for (h, s) in self.handles.iter().zip(&self.scripts) {
            while !(h.script_left() == 0 && h.now_ms() >= s.end_ms) {
                assert!(
                    Instant::now() < deadline,
                    "the scripts did not finish in {timeout:?}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// A config for the served boards (HTTP on a free port).
pub fn config(dir: &Path, boards: &Boards, extra: &str) -> PathBuf {
    let scaled = |ms: f64| ((ms / SPEED).round() as u64).max(1);
    let mut s = format!(
        "[event]\nname = \"E2E Open\"\nsite = \"Test hall\"\ndate = \"2025-06-12\"\nround = 2\n\
         time_control = \"{TIME_CONTROL}\"\n\n[output]\ndir = \"out\"\n\n[http]\nbind = \"127.0.0.1:0\"\n\n\
         [timing]\nsettle_window_ms = {}\ntwo_handed_window_ms = {}\nflicker_ms = {}\n{extra}",
        scaled(400.0).max(10),
        scaled(250.0),
        scaled(150.0),
    );
    for (i, h) in boards.handles.iter().enumerate() {
        s.push_str(&format!(
            "\n[[board]]\nnumber = {}\nport = \"{}\"\nwhite = \"White{}, Ann\"\nblack = \"Black{}, Bo\"\nwhite_clock = \"left\"\n",
            i + 1,
            h.path().unwrap().display(),
            i + 1,
            i + 1
        ));
    }
    let path = dir.join("arbiter.toml");
    std::fs::write(&path, s).unwrap();
    path
}

/// The configs of hall A (these boards, [`config`]) and of a central following it alone,
/// in `hall_dir` and `central_dir`, each with this `[network]` body (the server's URL and
/// the logins).
pub fn hall_a_and_central(
    hall_dir: &Path,
    central_dir: &Path,
    boards: &Boards,
    network: &str,
) -> (PathBuf, PathBuf) {
    let hall = config(
        hall_dir,
        boards,
        &format!("\n[network]\nhall = \"A\"\n{network}"),
    );
    let central = central_dir.join("event.toml");
    std::fs::write(
        &central,
        format!(
            "[event]\nname = \"E2E Open\"\nsite = \"Test hall\"\ndate = \"2025-06-12\"\nround = 2\n\
             time_control = \"{TIME_CONTROL}\"\n\n[output]\ndir = \"out\"\n\n[http]\nbind = \"127.0.0.1:0\"\n\n\
             [network]\nhalls = [\"A\"]\n{network}"
        ),
    )
    .unwrap();
    (hall, central)
}

/// A running `dgt-arbiter run` (or `central`): killed when dropped, so a test that panics
/// leaves no daemon behind (one left running holds its board's pty and steals the next
/// test's). Derefs to its [`Child`].
pub struct DaemonProcess(pub Child);

impl std::ops::Deref for DaemonProcess {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for DaemonProcess {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for DaemonProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// `dgt-arbiter run --config PATH`, its stderr kept in a file beside it.
pub fn start(config: &Path) -> DaemonProcess {
    start_command("run", config)
}

/// `dgt-arbiter COMMAND --config PATH` (`run`, `central`), its stderr kept in a file
/// beside it.
pub fn start_command(command: &str, config: &Path) -> DaemonProcess {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(config.with_extension("log"))
        .unwrap();
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args([command, "--config"])
        .arg(config)
        // `DGT_E2E_LOG=info,dgt_serial=debug` to see a failing run's reconnects.
        .env(
            "RUST_LOG",
            std::env::var("DGT_E2E_LOG").unwrap_or_else(|_| "info".into()),
        )
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map(DaemonProcess)
        .unwrap()
}

/// Sends SIGTERM and waits for the exit; true if it exited with success.
pub fn terminate(child: &mut Child) -> bool {
    let ok = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -TERM failed");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.success();
        }
        assert!(
            Instant::now() < deadline,
            "the daemon did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The JSON events written so far.
pub fn events(out: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(out.join("events.jsonl")) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

/// Polls until `pred` holds for the events (or panics after `timeout`).
pub fn wait_events(out: &Path, timeout: Duration, what: &str, pred: impl Fn(&[Value]) -> bool) {
    let deadline = Instant::now() + timeout;
    loop {
        let ev = events(out);
        if pred(&ev) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not within {timeout:?}; {} events so far",
            ev.len()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The events of one board, in file order.
pub fn board_events(events: &[Value], board: usize) -> Vec<&Value> {
    let name = board.to_string();
    events
        .iter()
        .filter(|e| e["board"] == name.as_str())
        .collect()
}

/// The moves of a board as the sinks see them: a move that replaces the move of its ply
/// takes its place.
pub fn moves(events: &[&Value]) -> Vec<String> {
    let mut out: Vec<(u64, String)> = Vec::new();
    for e in events.iter().filter(|e| e["kind"] == "move") {
        let ply = e["ply"].as_u64().unwrap();
        out.retain(|(p, _)| *p < ply);
        out.push((ply, e["san"].as_str().unwrap().to_owned()));
    }
    out.into_iter().map(|(_, s)| s).collect()
}

/// The `host:port` of the daemon's HTTP endpoint, from the `http-address` it wrote in its
/// output folder.
pub fn http_host(out: &Path) -> String {
    try_http_host(out).expect("http-address written")
}

/// [`http_host`], `None` while the daemon has not written the file (or is down); an
/// `https://` address gives its `host:port` too.
pub fn try_http_host(out: &Path) -> Option<String> {
    let url = std::fs::read_to_string(out.join("http-address")).ok()?;
    Some(
        url.trim()
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned(),
    )
}

/// A connection to the daemon's HTTP endpoint (its address from `http-address`), and the
/// `host:port` it is on.
fn connect(out: &Path, read_timeout: Duration) -> (TcpStream, String) {
    let host = http_host(out);
    let s = TcpStream::connect(&host).unwrap();
    s.set_read_timeout(Some(read_timeout)).unwrap();
    (s, host)
}

/// The `X-Arbiter-Token` header line with the token the daemon keeps in its output
/// folder (empty when it has none there): the arbiter's routes need it.
pub fn token_header(out: &Path) -> String {
    std::fs::read_to_string(out.join("arbiter-token"))
        .map(|t| format!("X-Arbiter-Token: {}\r\n", t.trim()))
        .unwrap_or_default()
}

/// One HTTP request with a JSON body (`Connection: close`) to `host`, `headers` being
/// whole header lines (e.g. [`token_header`]'s): the status and the JSON body
/// (`Value::Null` when it is not JSON).
pub fn http_json(host: &str, method: &str, path: &str, headers: &str, body: &str) -> (u16, Value) {
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// What a GET answered: its status, its headers (names in lower case), its body.
pub struct HttpAnswer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpAnswer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A GET on the daemon's HTTP endpoint, as the arbiter: status code and body.
pub fn http_get(out: &Path, path: &str) -> (u16, String) {
    let answer = http_get_with(out, path, &token_header(out));
    (answer.status, String::from_utf8(answer.body).unwrap())
}

/// A GET on the daemon's HTTP endpoint with `headers` (whole header lines, e.g.
/// [`token_header`]'s), its body as bytes.
pub fn http_get_with(out: &Path, path: &str, headers: &str) -> HttpAnswer {
    let (mut s, host) = connect(out, Duration::from_secs(30));
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut reader = BufReader::new(s);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let code = status.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut found = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).unwrap();
        if h.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            found.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let chunked = found
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).unwrap();
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        reader.read_to_end(&mut body).unwrap();
    }
    HttpAnswer {
        status: code,
        headers: found,
        body,
    }
}

/// Subscribes to `/events` (Server-Sent Events) and returns the first event's `event:`
/// and `data:` lines.
pub fn sse_first_event(out: &Path) -> (String, String) {
    let (mut s, host) = connect(out, Duration::from_secs(10));
    let token = token_header(out);
    write!(s, "GET /events HTTP/1.1\r\nHost: {host}\r\n{token}\r\n").unwrap();
    let mut reader = BufReader::new(s);
    let (mut event, mut data) = (String::new(), String::new());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            panic!("the event stream ended");
        }
        // Chunked framing lines interleave; the SSE fields are whole lines.
        if let Some(e) = line.strip_prefix("event: ") {
            event = e.trim().to_owned();
        } else if let Some(d) = line.strip_prefix("data: ") {
            data = d.trim().to_owned();
        }
        if !event.is_empty() && !data.is_empty() {
            return (event, data);
        }
    }
}

/// Headless Chromium and its WebDriver (`DGT_ARBITER_CHROMIUM`, `DGT_ARBITER_CHROMEDRIVER`
/// or on `PATH`), or why a browser test cannot run.
pub fn chromium_and_driver() -> Result<(PathBuf, PathBuf), String> {
    let find = |env: &str, names: &[&str]| -> Option<PathBuf> {
        if let Some(p) = std::env::var_os(env) {
            return Some(PathBuf::from(p)).filter(|p| p.exists());
        }
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
            .find(|p| p.is_file())
    };
    let chromium = find(
        "DGT_ARBITER_CHROMIUM",
        &["chromium", "chromium-browser", "google-chrome"],
    )
    .ok_or("no chromium on PATH (apt-get install chromium)")?;
    let driver = find("DGT_ARBITER_CHROMEDRIVER", &["chromedriver"])
        .ok_or("no chromedriver on PATH (apt-get install chromium-driver)")?;
    Ok((chromium, driver))
}
