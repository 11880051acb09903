//! The bad-input table of `docs/reliability.md`, made by sending each input for real:
//! - bytes on the line, each followed by a real frame, to the board decoder (the one the
//!   driver runs) and its event filter;
//! - malformed capture lines to `dgt-arbiter replay` (after a good start that makes a
//!   move);
//! - config mistakes to `dgt-arbiter run --check`;
//! - bad HTTP requests to a running `dgt-arbiter run` following an emulated board.
//!
//! For each input the table quotes what came back, and the test checks that nothing
//! panicked and nothing was lost (the real frame after the garbage decodes; the move
//! before the bad capture line is printed; the daemon keeps serving and writing events).
//! The tables in the document must equal what the test sees: run it with
//! `BLESS_RELIABILITY=1` to rewrite them after a deliberate change.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::*;
use dgt_protocol::{
    BoardEvent, BoardMessage, Decoded, Decoder, EventFilter, FieldIndex, FieldUpdate, PieceCode,
    MAX_FRAME_LEN,
};
use dgt_sim::hands::HandRng;

/// A markdown table row: what was sent, what came back.
type Row = (String, String);

fn table(header: (&str, &str), rows: &[Row]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut t = format!("| {} | {} |\n|---|---|\n", header.0, header.1);
    for (a, b) in rows {
        t.push_str(&format!("| {} | {} |\n", cell(a), cell(b)));
    }
    t
}

/// Checks the document's region `name` against `text` (or rewrites it when blessing).
fn check_doc(name: &str, text: &str) {
    static DOC: Mutex<()> = Mutex::new(());
    let _one_writer = DOC.lock().unwrap_or_else(|p| p.into_inner());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reliability.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = (
        format!("<!-- bad-inputs:{name} -->\n"),
        format!("<!-- /bad-inputs:{name} -->"),
    );
    let (Some(b), Some(e)) = (doc.find(&begin), doc.find(&end)) else {
        panic!("{} lacks the markers {begin:?} and {end:?}", path.display());
    };
    let current = &doc[b + begin.len()..e];
    if current == text {
        return;
    }
    if std::env::var_os("BLESS_RELIABILITY").is_some() {
        let new = format!("{}{text}{}", &doc[..b + begin.len()], &doc[e..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    panic!(
        "the {name} table in {} is not what the inputs get now; if the change is deliberate, \
         rerun with BLESS_RELIABILITY=1. What they get:\n{text}",
        path.display()
    );
}

/// The binary, with no backtraces in its messages whatever the test's environment says
/// (anyhow prints one with `RUST_BACKTRACE=1`), so the tables read the same everywhere.
fn dgt_arbiter() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"));
    c.env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    c
}

/// A message of several lines (anyhow's "Caused by:" list) as one table cell.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn hex(bytes: &[u8]) -> String {
    let mut s: Vec<String> = bytes.iter().take(16).map(|b| format!("{b:02X}")).collect();
    if bytes.len() > 16 {
        s.push(format!("... ({} bytes)", bytes.len()));
    }
    s.join(" ")
}

// ----- bytes -----

/// The frame sent after each piece of garbage: e2 emptied (a lift).
const REAL: [u8; 5] = [0x8E, 0x00, 0x05, 52, 0x00];

fn real_update() -> BoardMessage {
    BoardMessage::FieldUpdate(FieldUpdate {
        field: FieldIndex::new(52).unwrap(),
        piece: PieceCode::Empty,
    })
}

/// Decodes `garbage` then the real frame, in one go and byte by byte; returns what the
/// decoder said about the garbage and the events the filter made of it all.
fn decode(garbage: &[u8], finish: bool) -> (Vec<String>, Vec<BoardEvent>) {
    let mut stream = garbage.to_vec();
    if !finish {
        stream.extend(REAL);
    }
    let run = |chunk: usize| {
        let mut d = Decoder::new();
        let mut out: Vec<Decoded> = Vec::new();
        for c in stream.chunks(chunk) {
            out.extend(d.push(c));
            assert!(d.buffered_len() <= MAX_FRAME_LEN);
        }
        out.extend(d.finish());
        out
    };
    let whole = run(stream.len().max(1));
    assert_eq!(whole, run(1), "byte by byte decodes the same");
    let mut filter = EventFilter::new();
    let mut said = Vec::new();
    let mut events = Vec::new();
    let mut real = 0;
    for d in whole {
        match d {
            Ok(m) if m == real_update() => real += 1,
            Ok(m) => events.extend(filter.on_message(&m)),
            Err(e) => said.push(e.to_string()),
        }
    }
    if !finish {
        assert_eq!(
            real,
            1,
            "the real frame after {} is decoded once",
            hex(garbage)
        );
    }
    (said, events)
}

fn clock_frame(payload: [u8; 7]) -> Vec<u8> {
    let mut v = vec![0x8D, 0x00, 0x0A];
    v.extend(payload);
    v
}

#[test]
fn bytes_on_the_line() {
    let mut rng = HandRng::new(8);
    let random: Vec<u8> = (0..1 << 20).map(|_| rng.range(0, 255) as u8).collect();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "7-bit noise between frames",
            vec![0x00, 0x41, 0x7F, 0x20, 0x0D, 0x0A],
        ),
        ("a stray bit-7 byte", vec![0xFF]),
        (
            "an unknown message id with a payload",
            vec![0x99, 0x00, 0x05, 0x01, 0x02],
        ),
        ("a field update cut short", vec![0x8E, 0x00, 0x05, 0x34]),
        (
            "a board dump cut short",
            [vec![0x86, 0x00, 0x43], vec![0x01; 20]].concat(),
        ),
        ("a header cut after its id", vec![0x8D]),
        (
            "a field update with the wrong length",
            vec![0x8E, 0x00, 0x06, 0x34, 0x00, 0x00],
        ),
        (
            "an oversized length (16383) on a fixed-size message",
            vec![0x86, 0x7F, 0x7F, 0x01],
        ),
        (
            "an oversized length (16383) on EE_MOVES, then 8 bytes",
            [vec![0x8F, 0x7F, 0x7F], vec![0x05; 8]].concat(),
        ),
        (
            "a field update with piece code 0x20",
            vec![0x8E, 0x00, 0x05, 0x34, 0x20],
        ),
        (
            "a field update for field 0x50",
            vec![0x8E, 0x00, 0x05, 0x50, 0x01],
        ),
        (
            "a clock frame with minutes 0x7A (not BCD)",
            clock_frame([0x00, 0x7A, 0x00, 0x00, 0x03, 0x00, 0x01]),
        ),
        (
            "an all-zero clock frame (Bluetooth boards after a clock command)",
            clock_frame([0; 7]),
        ),
        ("1 MiB of random bytes", random),
    ];
    // A clock frame and one jumping by more than an hour: the filter drops the jump.
    let mut jump = clock_frame([0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x01]);
    jump.extend(clock_frame([0x02, 0x03, 0x00, 0x00, 0x03, 0x00, 0x01]));
    cases.push(("a clock frame, then one 2 hours off (once)", jump));
    let mut rows: Vec<Row> = Vec::new();
    for (what, bytes) in &cases {
        let (said, events) = decode(bytes, false);
        let mut got = if said.is_empty() {
            "decoded, no error".to_owned()
        } else if said.len() > 3 {
            format!(
                "{} errors, e.g. \"{}\"; buffer never above 16383 bytes",
                said.len(),
                said[0]
            )
        } else {
            said.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let kinds: Vec<String> = events
            .iter()
            .map(|e| {
                serde_json::to_value(e).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        if bytes.starts_with(&[0x8D]) && said.is_empty() {
            got.push_str(&format!("; events: {kinds:?}"));
        }
        rows.push((
            format!("{what}: `{}`", hex(bytes)),
            format!("{got}; the field update after it decodes"),
        ));
    }
    // The end of the stream in the middle of a frame.
    let (said, _) = decode(&[0x8E, 0x00, 0x05, 0x34], true);
    rows.push((
        "the line ends inside a frame: `8E 00 05 34`".into(),
        format!("\"{}\"", said.join("; ")),
    ));
    check_doc(
        "bytes",
        &table(
            (
                "sent (then `8E 00 05 34 00`, a real field update)",
                "the decoder says",
            ),
            &rows,
        ),
    );
}

// ----- capture lines -----

/// A capture of a good start: the board in the start position, the clock started, 1. e4
/// made and pressed, then a clock frame two seconds later.
fn good_capture() -> String {
    use chess_rules::Placement;
    use dgt_protocol::{Orientation, RawBoard};
    let dump = RawBoard::from_placement(&Placement::start(), Orientation::Normal);
    let hexs = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let dump = hexs(&BoardMessage::BoardDump { board: dump }.encode());
    // Right side (Black's) runs 3:00, left 3:00 and the lever: payload as the fact sheet.
    let clock = |right_running: bool, left_s: u8| {
        let p = [
            0x00,
            0x03,
            0x00,
            0x00,
            0x02,
            left_s,
            if right_running { 0x03 } else { 0x01 },
        ];
        hexs(&clock_frame(p))
    };
    let field = |f: u8, p: u8| hexs(&[0x8E, 0x00, 0x05, f, p]);
    [
        "# dgtcap 1".to_owned(),
        "# board: bad".into(),
        "# time-control: 180+2".into(),
        "# white-clock: left".into(),
        format!("0 < {dump}"),
        format!("1000 < {}", clock(false, 0x59)),
        format!("2000 < {}", field(52, 0)),
        format!("2300 < {}", field(36, 1)),
        format!("2600 < {}", clock(true, 0x57)),
        format!("4600 < {}", clock(true, 0x57)),
    ]
    .join("\n")
        + "\n"
}

/// `dgt-arbiter replay --fast` on a capture: exit status, stderr's last line, the moves
/// printed.
fn replay(dir: &Path, name: &str, content: &[u8]) -> (bool, String, usize) {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    let out = dgt_arbiter()
        .args(["replay", "--fast"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    let moves = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"kind\":\"move\""))
        .count();
    let msg = one_line(&stderr).replace(&format!("{}/", dir.display()), "");
    (out.status.success(), msg, moves)
}

#[test]
fn capture_lines() {
    let dir = temp_dir("bad-captures");
    let good = good_capture();
    let (ok, msg, moves) = replay(&dir, "good.dgtcap", good.as_bytes());
    assert!(
        ok && moves == 1,
        "the good start replays with its move: {msg}"
    );
    let long = format!("5000 < {}\n", "8e".repeat(600_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "a time that is not a number",
            b"5000x < 8e00053400\n".to_vec(),
        ),
        ("a negative time", b"-5 < 8e00053400\n".to_vec()),
        (
            "a direction other than < or >",
            b"5000 ? 8e00053400\n".to_vec(),
        ),
        ("a record without bytes", b"5000 <\n".to_vec()),
        ("bytes that are not hex", b"5000 < 8e0005zz00\n".to_vec()),
        (
            "an odd number of hex digits",
            b"5000 < 8e0005340\n".to_vec(),
        ),
        (
            "a time before the previous record's",
            b"100 < 8e00053400\n".to_vec(),
        ),
        ("a line that is not UTF-8", b"5000 < 8e\xff\xfe\n".to_vec()),
        ("a line longer than 1 MiB", long.into_bytes()),
        ("a NUL byte in the line", b"5000 < 8e00\x0005\n".to_vec()),
    ];
    let mut rows: Vec<Row> = Vec::new();
    for (i, (what, line)) in cases.iter().enumerate() {
        let mut content = good.clone().into_bytes();
        content.extend(line);
        content.extend(b"6000 < 8e00051c00\n");
        let (ok, msg, moves) = replay(&dir, &format!("case{i}.dgtcap"), &content);
        assert!(!ok, "{what} was accepted");
        assert_eq!(moves, 1, "{what}: the move before the bad line is kept");
        let shown = String::from_utf8_lossy(&line[..line.len().min(40)])
            .trim_end()
            .replace('\u{fffd}', "\\xFF")
            .replace('\0', "\\0");
        rows.push((
            format!(
                "{what}: `{shown}`{}",
                if line.len() > 40 { "..." } else { "" }
            ),
            format!("exit 1: \"{msg}\"; 1. e4 before it printed"),
        ));
    }
    // Header mistakes stop the replay before any record.
    let headers: [(&str, &str); 3] = [
        (
            "a time control that is not BASE+INC",
            "# time-control: 3 min",
        ),
        (
            "a white clock side other than left/right",
            "# white-clock: west",
        ),
        (
            "a start position that is no position",
            "# start-fen: 8/8/8 w - - 0 1",
        ),
    ];
    for (i, (what, line)) in headers.iter().enumerate() {
        let content = good.replacen("# board: bad", line, 1);
        let (ok, msg, _) = replay(&dir, &format!("header{i}.dgtcap"), content.as_bytes());
        assert!(!ok, "{what} was accepted");
        rows.push((format!("{what}: `{line}`"), format!("exit 1: \"{msg}\"")));
    }
    let (ok, msg, _) = replay(&dir, "empty.dgtcap", b"");
    rows.push((
        "an empty file".into(),
        format!(
            "exit {}: {}",
            if ok { 0 } else { 1 },
            if msg.is_empty() {
                "no events, no message".into()
            } else {
                format!("\"{msg}\"")
            }
        ),
    ));
    let out = dgt_arbiter()
        .args(["replay", "--fast", "/nonexistent/x.dgtcap"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    rows.push((
        "a file that does not exist".into(),
        format!(
            "exit 1: \"{}\"",
            one_line(&String::from_utf8_lossy(&out.stderr))
        ),
    ));
    check_doc(
        "capture",
        &table(
            (
                "appended to a good capture (start, 1. e4 pressed)",
                "`dgt-arbiter replay` says",
            ),
            &rows,
        ),
    );
}

// ----- config -----

const GOOD: &str = "[event]\nname = \"X\"\nround = 1\ntime_control = \"180+2\"\n\n[output]\ndir = \"out\"\n\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n";

#[test]
fn config_mistakes() {
    let dir = temp_dir("bad-configs");
    let add = |extra: &str| format!("{GOOD}{extra}");
    let swap = |a: &str, b: &str| GOOD.replace(a, b);
    let cases: Vec<(&str, String)> = vec![
        ("not TOML", swap("[output]", "[output")),
        ("an unknown key", swap("number = 1", "nummer = 1")),
        (
            "a section missing",
            swap(
                "[event]\nname = \"X\"\nround = 1\ntime_control = \"180+2\"\n",
                "",
            ),
        ),
        ("a key missing", swap("round = 1\n", "")),
        (
            "a string for a number",
            swap("round = 1", "round = \"first\""),
        ),
        ("a number for a string", swap("name = \"X\"", "name = 5")),
        ("an empty event name", swap("name = \"X\"", "name = \"  \"")),
        ("round 0", swap("round = 1", "round = 0")),
        (
            "a round beyond i64",
            swap("round = 1", "round = 99999999999999999999"),
        ),
        (
            "a date that does not exist",
            swap("round = 1", "round = 1\ndate = \"2025-02-29\""),
        ),
        ("a time control in words", swap("180+2", "3 min")),
        ("a time control of 0 seconds", swap("180+2", "0+2")),
        (
            "an unknown category",
            swap("\"180+2\"\n", "\"180+2\"\ncategory = \"bullet\"\n"),
        ),
        (
            "an unknown supervision",
            swap("\"180+2\"\n", "\"180+2\"\nsupervision = \"some\"\n"),
        ),
        (
            "a penalty of 0 s",
            add("\n[penalties]\nfirst_illegal_secs = 0\n"),
        ),
        (
            "an unknown two-handed policy",
            add("\n[penalties]\ntwo_handed = \"warn\"\n"),
        ),
        (
            "an empty output folder",
            swap("dir = \"out\"", "dir = \"\""),
        ),
        (
            "an HTTP address without a port",
            add("\n[http]\nbind = \"127.0.0.1\"\n"),
        ),
        (
            "a settle window of 1 ms",
            add("\n[timing]\nsettle_window_ms = 1\n"),
        ),
        (
            "a negative journal sync",
            add("\n[timing]\njournal_sync_ms = -1\n"),
        ),
        (
            "no board",
            GOOD.split("[[board]]").next().unwrap().to_owned(),
        ),
        ("board number 0", swap("number = 1", "number = 0")),
        (
            "a board number used twice",
            add("\n[[board]]\nnumber = 1\nserial = \"01025\"\n"),
        ),
        (
            "both port and serial",
            swap(
                "port = \"/dev/null\"",
                "port = \"/dev/null\"\nserial = \"01025\"",
            ),
        ),
        (
            "neither port nor serial",
            swap("port = \"/dev/null\"\n", ""),
        ),
        (
            "a serial number with a space",
            swap("port = \"/dev/null\"", "serial = \"0 1\""),
        ),
        (
            "an unknown white clock side",
            add("white_clock = \"west\"\n"),
        ),
        (
            "a player name with a quote",
            add("white = \"O\\\"Neil, Pat\"\n"),
        ),
        (
            "a player name of 101 characters",
            add(&format!("black = \"{}\"\n", "x".repeat(101))),
        ),
        ("an empty file", String::new()),
    ];
    let check = |path: &Path| {
        dgt_arbiter()
            .args(["run", "--check", "--config"])
            .arg(path)
            .output()
            .unwrap()
    };
    let quiet = |out: &std::process::Output| {
        one_line(&String::from_utf8_lossy(&out.stderr)).replace(&format!("{}/", dir.display()), "")
    };
    let mut rows: Vec<Row> = Vec::new();
    for (i, (what, text)) in cases.iter().enumerate() {
        let path = dir.join(format!("c{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let out = check(&path);
        let msg = quiet(&out);
        assert!(!out.status.success(), "{what} was accepted");
        assert!(!msg.contains("panicked"), "{what}: {msg}");
        assert!(
            msg.contains(&format!("c{i}.toml:")),
            "{what}: the message names the file: {msg}"
        );
        rows.push((what.to_string(), format!("\"{msg}\"")));
    }
    let bin = dir.join("binary.toml");
    std::fs::write(&bin, b"[event]\nname = \"\xff\"\n").unwrap();
    let out = check(&bin);
    assert!(!out.status.success());
    rows.push((
        "a file that is not UTF-8".into(),
        format!("\"{}\"", quiet(&out)),
    ));
    let out = check(&dir.join("missing.toml"));
    assert!(!out.status.success());
    rows.push((
        "a file that does not exist".into(),
        format!("\"{}\"", quiet(&out)),
    ));
    check_doc(
        "config",
        &table(
            (
                "mistake (in an otherwise good file)",
                "`dgt-arbiter run --check` says (exit 1)",
            ),
            &rows,
        ),
    );
}

// ----- HTTP -----

/// Sends raw bytes to the daemon (from another thread, so that a response that comes
/// before the request is all sent is read); returns the status line and the body's first
/// line, or what happened to the connection.
fn raw_http(addr: &str, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut w = s.try_clone().unwrap();
    let request = request.to_vec();
    let writer = std::thread::spawn(move || w.write_all(&request).map_err(|e| e.kind()));
    let mut buf = Vec::new();
    let read = s.read_to_end(&mut buf);
    let sent = writer.join().unwrap();
    if buf.is_empty() {
        return match (sent, read) {
            (Err(e), _) => format!("connection closed while sending ({e:?}), no response"),
            (_, Err(e)) => format!("connection closed ({:?}), no response", e.kind()),
            _ => "connection closed, no response".into(),
        };
    }
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.lines().next().unwrap_or("").trim().to_owned();
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body: String = if chunked {
        body.split("\r\n").nth(1).unwrap_or("").to_owned()
    } else {
        body.lines().next().unwrap_or("").to_owned()
    };
    let mut body = body.trim().to_owned();
    if body.chars().count() > 90 {
        body = body.chars().take(90).collect::<String>() + "...";
    }
    if body.is_empty() {
        status
    } else {
        format!("{status}: \"{body}\"")
    }
}

fn get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").into_bytes()
}

/// A request with the arbiter token header (none if `token` is empty) and a body.
fn with_token(method: &str, path: &str, token: &str, body: &[u8]) -> Vec<u8> {
    let header = if token.is_empty() {
        String::new()
    } else {
        format!("X-Arbiter-Token: {token}\r\n")
    };
    let mut r = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{header}Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend(body);
    r
}

#[test]
fn http_requests() {
    let _one_at_a_time = serial();
    let dir = temp_dir("bad-http");
    let boards = Boards::serve(vec![script(0, 3, vec![])]);
    let cfg = config(&dir, &boards, "");
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    wait_events(&out, Duration::from_secs(30), "the first move", |ev| {
        ev.iter().any(|e| e["kind"] == "move")
    });
    let addr = std::fs::read_to_string(out.join("http-address"))
        .unwrap()
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();

    let token = std::fs::read_to_string(out.join("arbiter-token"))
        .unwrap()
        .trim()
        .to_owned();

    // Slow clients first, held open through everything else: half-sent requests
    // (slowloris) and an event stream nobody reads.
    let mut slow: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).unwrap();
            s.write_all(b"GET /boards HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .unwrap();
            s
        })
        .collect();
    let mut sse = TcpStream::connect(&addr).unwrap();
    sse.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();

    let big_body = {
        let mut r = b"POST /boards HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1048576\r\n\r\n".to_vec();
        r.extend(vec![b'{'; 1 << 20]);
        r
    };
    let get_with_body = {
        let mut r = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1048576\r\n\r\n".to_vec();
        r.extend(vec![b'x'; 1 << 20]);
        r
    };
    let cases: Vec<(String, Vec<u8>)> = vec![
        ("GET /healthz (for comparison)".into(), get("/healthz")),
        ("GET /nope (unknown path)".into(), get("/nope")),
        ("POST /healthz (a method the route does not take)".into(), b"POST /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}".to_vec()),
        ("DELETE /boards".into(), b"DELETE /boards HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec()),
        ("POST /boards with a 1 MiB body".into(), big_body),
        ("GET /healthz with a 1 MiB body".into(), get_with_body),
        ("GET /games/abc".into(), get("/games/abc")),
        ("GET /games/99.pgn (no such board)".into(), get("/games/99.pgn")),
        ("GET /games/99999999999999999999.pgn".into(), get("/games/99999999999999999999.pgn")),
        ("GET /games/%00.pgn".into(), get("/games/%00.pgn")),
        ("GET /livechess/../../etc/passwd".into(), get("/livechess/../../etc/passwd")),
        ("GET /livechess/%2e%2e/%2e%2e/etc/passwd".into(), get("/livechess/%2e%2e/%2e%2e/etc/passwd")),
        ("GET /livechess/round-2/..%2f..%2f..%2fetc%2fpasswd".into(), get("/livechess/round-2/..%2f..%2f..%2fetc%2fpasswd")),
        ("GET /livechess/ (the folder itself)".into(), get("/livechess/")),
        ("GET with a 64 KiB path".into(), get(&format!("/{}", "a".repeat(64 * 1024)))),
        ("a 1 MiB header".into(), format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "b".repeat(1 << 20)).into_bytes()),
        ("a request line that is not HTTP: `HELLO`".into(), b"HELLO\r\n\r\n".to_vec()),
        ("an unknown HTTP version: `GET / HTTP/9.9`".into(), b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n".to_vec()),
        ("GET /api/state without the arbiter token".into(), get("/api/state")),
        ("GET /api/state with a wrong token".into(), with_token("GET", "/api/state", "0123456789abcdef0123", b"")),
        ("POST /api/alerts/1-1/ack without the token".into(), with_token("POST", "/api/alerts/1-1/ack", "", b"")),
        ("POST /api/alerts/1-1/ack with a wrong token".into(), with_token("POST", "/api/alerts/1-1/ack", "0123456789abcdef0123", b"")),
        ("POST /api/alerts/1-1/ack with a token of 10 KiB".into(), with_token("POST", "/api/alerts/1-1/ack", &"t".repeat(10 * 1024), b"")),
        ("POST /api/alerts/1-1/ack with the token and a 2 KiB body".into(), with_token("POST", "/api/alerts/1-1/ack", &token, &[b'x'; 2048])),
        ("POST /api/alerts/..%2f..%2fetc/ack with the token".into(), with_token("POST", "/api/alerts/..%2f..%2fetc/ack", &token, b"")),
        ("POST /api/alerts/1-1/explode with the token".into(), with_token("POST", "/api/alerts/1-1/explode", &token, b"")),
        ("POST /api/alerts/999-999/resolve with the token (no such alert)".into(), with_token("POST", "/api/alerts/999-999/resolve", &token, b"")),
        ("POST /api/login with the token and bad JSON `{\"a\":` (login reads only the token header, never the body)".into(), with_token("POST", "/api/login", &token, b"{\"a\":")),
        ("GET /api/boards/99999999999/history with the token".into(), with_token("GET", "/api/boards/99999999999/history", &token, b"")),
        ("GET /api/boards/..%2f..%2fetc%2fpasswd/history with the token".into(), with_token("GET", "/api/boards/..%2f..%2fetc%2fpasswd/history", &token, b"")),
        ("binary garbage (4 KiB)".into(), {
            let mut rng = HandRng::new(80);
            (0..4096).map(|_| rng.range(0, 255) as u8).collect()
        }),
    ];
    let mut rows: Vec<Row> = Vec::new();
    for (what, req) in &cases {
        let got = raw_http(&addr, req);
        rows.push((what.clone(), got));
    }
    // While the slow clients hang on, the others are served at once.
    let t = Instant::now();
    let health = raw_http(&addr, &get("/healthz"));
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "served despite the slow clients"
    );
    rows.push((
        "64 connections sending half a request and waiting, and an `/events` stream never read, held open through all the above".into(),
        format!("the others are served meanwhile (`GET /healthz` then: {health})"),
    ));
    for s in &mut slow {
        let _ = s.write_all(b"finally\r\nConnection: close\r\n\r\n");
    }
    let mut finished = String::new();
    let _ = slow[0].set_read_timeout(Some(Duration::from_secs(10)));
    let _ = slow[0].read_to_string(&mut finished);
    assert!(
        finished.starts_with("HTTP/1.1 200"),
        "a slow request completes: {finished:.80}"
    );
    drop(slow);
    drop(sse);

    // Nothing lost: the daemon still follows the game and answers, and stops cleanly.
    let before = events(&out).len();
    wait_events(
        &out,
        Duration::from_secs(60),
        "more events after the requests",
        |ev| ev.len() > before,
    );
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert!(!log.contains("panicked"), "{log}");
    check_doc(
        "http",
        &table(
            ("request", "response (status line: first line of the body)"),
            &rows,
        ),
    );
}
