//! `dgt-arbiter run` end to end: the real binary, a config naming emulated boards that
//! this test serves on ptys (the `dgt-sim` hub playing hand-motion scripts with
//! irregularities, three times faster than real time), and checks of what it writes:
//! - the JSON events: moves and rulings equal the generator's expectations;
//! - the PGN files, parsed back: moves, clocks, results, rulings as comments;
//! - the LiveChess folder, against the shape of a real LiveChess export;
//! - the HTTP endpoints;
//! - `kill -9` mid-game, SIGTERM mid-game (games closed as unfinished), restarts: the
//!   complete game, no move lost or duplicated;
//! - config mistakes: the promised messages.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use chess_rules::{read_pgn, GameResult};
use common::*;
use dgt_sim::hands::{Expected, IllegalKind, Irregularity, Ruling, Script};
use serde_json::{json, Value};

/// Why a board's JSON events are not the script's expectations, if they are not.
/// A `two_handed_suspected` the script does not expect is tolerated: at three times real
/// speed, scheduling jitter can bring two lifts inside the (scaled) window.
fn check(script: &Script, events: &[&Value]) -> Result<(), String> {
    let mut got: Vec<&Value> = Vec::new();
    for e in events
        .iter()
        .copied()
        .filter(|e| Expected::KINDS.contains(&e["kind"].as_str().unwrap_or("")))
    {
        if e["kind"] == "move" && !e["replaces"].is_null() {
            if let Some(i) = got
                .iter()
                .rposition(|x| x["kind"] == "move" && x["ply"] == e["ply"])
            {
                got.truncate(i);
            }
        }
        got.push(e);
    }
    let want: Vec<&Expected> = script.events().collect();
    let mut g = got.iter().peekable();
    for (i, w) in want.iter().enumerate() {
        while g.peek().is_some_and(|e| {
            e["kind"] == "two_handed_suspected" && !matches!(w, Expected::TwoHandedSuspected { .. })
        }) {
            g.next();
        }
        let Some(e) = g.next() else {
            return Err(format!("event {i}: expected {w:?}, the events stopped"));
        };
        if let Some(m) = mismatch(w, e) {
            return Err(format!("event {i}: {m}"));
        }
    }
    match g.find(|e| e["kind"] != "two_handed_suspected") {
        Some(extra) => Err(format!("an extra event: {extra}")),
        None => Ok(()),
    }
}

/// Why an event is not the expected one, if it is not; a penalty is the configured 60 s.
fn mismatch(want: &Expected, e: &Value) -> Option<String> {
    if let Some(why) = want.mismatch(e) {
        return Some(format!("{why}\n  (expected {want:?})"));
    }
    let penalised = matches!(
        want,
        Expected::IllegalMove {
            ruling: Ruling::Penalty { .. },
            ..
        }
    );
    if penalised && e["penalty"]["add_ms"] != 60_000 {
        return Some(format!("penalty: expected 60 s, got {e}"));
    }
    None
}

/// Seqs per board are 1, 2, 3, ... each once; every line has the contract's fields.
fn check_stream(events: &[Value], boards: usize) {
    for b in 1..=boards {
        let seqs: Vec<u64> = board_events(events, b)
            .iter()
            .map(|e| e["seq"].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = (1..=seqs.len() as u64).collect();
        assert_eq!(seqs, want, "board {b}: each event once, in order");
    }
    for e in events {
        for k in ["t_ms", "board", "kind", "seq", "round", "at"] {
            assert!(!e[k].is_null(), "{k} missing in {e}");
        }
    }
}

/// Parses a PGN file and checks the game against the script: moves, the mover's clock
/// after each pressed move, the result.
fn check_pgn(path: &Path, script: &Script, board: usize, result: GameResult) {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        chess_rules::pgn::strict_reader_problems(&String::from_utf8_lossy(&text)),
        Vec::<String>::new(),
        "{}: one comment per move, commands on one line",
        path.display()
    );
    let games = read_pgn(&text).unwrap();
    assert_eq!(games.len(), 1, "{}", path.display());
    let g = &games[0];
    assert_eq!(g.tag("Board"), Some(board.to_string().as_str()));
    assert_eq!(g.tag("Round"), Some("2"));
    assert_eq!(g.tag("Event"), Some("E2E Open"));
    assert_eq!(g.tag("White"), Some(format!("White{board}, Ann").as_str()));
    assert_eq!(g.tag("TimeControl"), Some("60+1"));
    assert_eq!(g.result, Some(result));
    let game = g
        .replay()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let want: Vec<_> = script.plies.iter().map(|p| p.mv).collect();
    assert_eq!(game.moves(), want.as_slice(), "{}", path.display());
    // A clock on (almost) every move, within the time control's reach.
    let clocked = g.moves.iter().filter(|m| m.clock_ms.is_some()).count();
    assert!(
        clocked * 10 >= g.moves.len() * 8,
        "{clocked} of {} moves have a clock",
        g.moves.len()
    );
    for m in &g.moves {
        if let Some(ms) = m.clock_ms {
            assert!(ms <= 3 * 60_000, "clock {ms} ms after {}", m.san);
        }
    }
}

#[test]
fn rulings_pgn_livechess_and_http_on_emulated_boards() {
    let _one_at_a_time = serial();
    let dir = temp_dir("rulings");
    let scripts = vec![
        script(
            0,
            11,
            vec![
                Irregularity::Illegal(IllegalKind::PinnedPiece),
                Irregularity::TouchOtherPiece,
            ],
        ),
        script(
            2,
            12,
            vec![
                Irregularity::ClockWithoutMove,
                Irregularity::Illegal(IllegalKind::KnightWrong),
            ],
        ),
        script(7, 13, vec![Irregularity::FlagFall]),
    ];
    for s in &scripts {
        assert!(
            !s.injected.is_empty(),
            "the game takes its irregularities: {:?}",
            s.skipped
        );
    }
    let boards = Boards::serve(scripts);
    let cfg = config(&dir, &boards, "");
    let out = dir.join("out");
    // Round 1 was played before: the LiveChess folder lists it.
    std::fs::create_dir_all(out.join("livechess")).unwrap();
    std::fs::write(
        out.join("livechess/tournament.json"),
        r#"{"id": "E2E Open", "name": "E2E Open", "rounds": [{"count": 3, "live": 0}]}"#,
    )
    .unwrap();
    let started = Instant::now();
    let mut daemon = start(&cfg);
    // Wait for every game's end.
    wait_events(&out, Duration::from_secs(150), "every game over", |ev| {
        (1..=3).all(|b| board_events(ev, b).iter().any(|e| e["kind"] == "game_over"))
    });
    // The HTTP endpoints while it runs.
    assert_eq!(http_get(&out, "/healthz"), (200, "ok\n".into()));
    let (code, body) = http_get(&out, "/boards");
    assert_eq!(code, 200);
    let b: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(b["boards"].as_array().unwrap().len(), 3);
    assert_eq!(b["boards"][0]["snapshot"]["state"], "over");
    let (code, round) = http_get(&out, "/round.pgn");
    assert_eq!(code, 200);
    assert_eq!(read_pgn(round.as_bytes()).unwrap().len(), 3);
    let (code, game) = http_get(&out, "/games/2.pgn");
    assert_eq!((code, game.contains("[Board \"2\"]")), (200, true));
    assert_eq!(http_get(&out, "/games/9.pgn").0, 404);
    assert_eq!(http_get(&out, "/games/x").0, 404);
    let (code, t) = http_get(&out, "/livechess/tournament.json");
    assert_eq!(code, 200);
    assert!(t.contains("\"rounds\""));
    // The served tournament.json is the file on disk, round 1 included.
    let on_disk = || std::fs::read_to_string(out.join("livechess/tournament.json")).unwrap();
    let t: Value = serde_json::from_str(&t).unwrap();
    assert_eq!(t["rounds"][0]["count"], 3, "{t}");
    assert_eq!(t["rounds"][1]["count"], 3, "{t}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while http_get(&out, "/livechess/tournament.json").1 != on_disk() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(http_get(&out, "/livechess/tournament.json").1, on_disk());
    assert_eq!(http_get(&out, "/livechess/round-2/game-3.pgn").0, 200);
    assert_eq!(http_get(&out, "/livechess/../../etc/passwd").0, 404);

    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    // stderr is a file, not a terminal: no colour codes in the log.
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert!(log.contains("INFO"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "ANSI escapes in a log file: {log:?}"
    );
    eprintln!(
        "three games with irregularities in {:.1?}",
        started.elapsed()
    );

    // The JSON events equal the generator's expectations, board by board.
    let events = events(&out);
    check_stream(&events, 3);
    for (i, s) in boards.scripts.iter().enumerate() {
        let ev = board_events(&events, i + 1);
        if let Err(e) = check(s, &ev) {
            panic!("board {}: {e}", i + 1);
        }
    }
    let kinds: BTreeSet<&str> = events.iter().filter_map(|e| e["kind"].as_str()).collect();
    for k in [
        "move",
        "illegal_move",
        "restored",
        "touch_move",
        "game_over",
        "board_status",
    ] {
        assert!(kinds.contains(k), "{k} in {kinds:?}");
    }
    let flag = board_events(&events, 3)
        .into_iter()
        .find(|e| e["kind"] == "game_over")
        .unwrap()
        .clone();
    assert_eq!(flag["reason"], "flag");

    // PGN per game and per round, parsed back.
    let pgn = out.join("pgn");
    for (i, s) in boards.scripts.iter().enumerate() {
        let over = board_events(&events, i + 1)
            .into_iter()
            .find(|e| e["kind"] == "game_over")
            .unwrap()
            .clone();
        let result: GameResult = over["result"].as_str().unwrap().parse().unwrap();
        check_pgn(
            &pgn.join(format!("round-2/board-{}.pgn", i + 1)),
            s,
            i + 1,
            result,
        );
    }
    let round = std::fs::read_to_string(pgn.join("round-2.pgn")).unwrap();
    assert_eq!(read_pgn(round.as_bytes()).unwrap().len(), 3);
    assert_eq!(
        chess_rules::pgn::strict_reader_problems(&round),
        Vec::<String>::new(),
        "{round}"
    );
    // Comments are wrapped at 80 columns: compare with single spaces.
    let round = round.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        round.contains("illegal move (king left in check)"),
        "rulings as comments"
    );
    assert!(round.contains("clock pressed without a move"));
    assert!(round.contains("[Termination \"time forfeit\"]"));

    check_livechess(&out.join("livechess"), 3);
}

/// The folder has the real LiveChess export's shape: the same files, the same JSON keys,
/// an ePGN tag, `Round "R.N"` and `[%clk HH:MM:SS]`.
fn check_livechess(ours: &Path, games: usize) {
    if !test_data::have("pgn/lichess-broadcaster/tournament-2") {
        return;
    }
    let real = test_data::path("pgn/lichess-broadcaster/tournament-2");
    let keys =
        |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect::<Vec<_>>() };
    let read = |p: &Path| -> Value { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    let (t_real, t_ours) = (
        read(&real.join("tournament.json")),
        read(&ours.join("tournament.json")),
    );
    assert_eq!(keys(&t_ours), keys(&t_real));
    assert_eq!(keys(&t_ours["rounds"][0]), keys(&t_real["rounds"][0]));
    assert_eq!(
        t_ours["rounds"][1],
        json!({"count": games, "live": 0}),
        "round 2"
    );
    let (i_real, i_ours) = (
        read(&real.join("round-1/index.json")),
        read(&ours.join("round-2/index.json")),
    );
    assert_eq!(keys(&i_ours), keys(&i_real));
    let (p_real, p_ours) = (&i_real["pairings"][0], &i_ours["pairings"][0]);
    assert_eq!(keys(p_ours), keys(p_real));
    assert_eq!(keys(&p_ours["white"]), keys(&p_real["white"]));
    assert_eq!(p_ours["white"]["lname"], "White1");
    assert_eq!(p_ours["white"]["fname"], "Ann");
    assert_eq!(i_ours["pairings"].as_array().unwrap().len(), games);
    let names = |d: &Path| -> BTreeSet<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with("game-") || n.ends_with(".pgn"))
            .map(|n| {
                if n.starts_with("game-") {
                    "game-N.pgn".into()
                } else {
                    n
                }
            })
            .collect()
    };
    assert_eq!(names(&ours.join("round-2")), names(&real.join("round-1")));
    for n in 1..=games {
        let text = std::fs::read_to_string(ours.join(format!("round-2/game-{n}.pgn"))).unwrap();
        assert!(text.starts_with("[ePGN \"0.1;"), "{text}");
        assert!(text.contains(&format!("[Round \"2.{n}\"]")));
        let g = &read_pgn(text.as_bytes()).unwrap()[0];
        g.replay().unwrap();
        // LiveChess's clock form: two-digit hours.
        assert!(text.contains("{[%clk 00:0"), "{text}");
        assert!(g.moves.iter().filter(|m| m.clock_ms.is_some()).count() > g.moves.len() / 2);
    }
    let all = std::fs::read(ours.join("round-2/games.pgn")).unwrap();
    assert_eq!(read_pgn(&all).unwrap().len(), games);
}

#[test]
fn kill_9_and_sigterm_mid_game_then_restart_give_the_complete_game() {
    let _one_at_a_time = serial();
    let dir = temp_dir("restart");
    let s = script(
        1,
        21,
        vec![Irregularity::Illegal(IllegalKind::SliderJumping)],
    );
    let late = s.injected.first().map_or(u64::MAX, |i| u64::from(i.ply));
    let boards = Boards::serve(vec![s]);
    let cfg = config(&dir, &boards, "");
    let out = dir.join("out");
    let plies = |ev: &[Value]| moves(&board_events(ev, 1)).len() as u64;

    let mut daemon = start(&cfg);
    wait_events(&out, Duration::from_secs(60), "ply 6", |ev| plies(ev) >= 6);
    daemon.kill().unwrap(); // SIGKILL: no chance to flush anything
    daemon.wait().unwrap();
    let before = plies(&events(&out));
    assert!(
        before < late.saturating_sub(2),
        "killed before the irregularity"
    );

    eprintln!("killed at ply {before}; the illegal move comes at ply {late}");

    // Resumed: the illegal move is ruled and restored, the game goes on; then SIGTERM.
    let mut daemon = start(&cfg);
    wait_events(&out, Duration::from_secs(30), "the restart", |ev| {
        board_events(ev, 1)
            .iter()
            .any(|e| e["detail"] == "the daemon restarted")
    });
    // The live stream: the next event, as JSON.
    let (kind, data) = sse_first_event(&out);
    let data: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(data["kind"], kind.as_str());
    assert_eq!(data["board"], "1");
    wait_events(
        &out,
        Duration::from_secs(90),
        "the ruling, then two moves",
        |ev| {
            let b = board_events(ev, 1);
            b.iter().any(|e| e["kind"] == "restored") && plies(ev) > late
        },
    );
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    // Closed as unfinished, for now.
    let pgn = std::fs::read_to_string(out.join("pgn/round-2/board-1.pgn")).unwrap();
    let g = &read_pgn(pgn.as_bytes()).unwrap()[0];
    assert_eq!(g.result, Some(GameResult::Ongoing), "{pgn}");
    assert_eq!(g.tag("Termination"), Some("unterminated"));
    assert!(pgn.contains("unfinished: the daemon stopped"), "{pgn}");
    let index: Value =
        serde_json::from_slice(&std::fs::read(out.join("livechess/round-2/index.json")).unwrap())
            .unwrap();
    assert_eq!(index["pairings"][0]["result"], "*");

    let mut daemon = start(&cfg);
    wait_events(&out, Duration::from_secs(120), "game over", |ev| {
        board_events(ev, 1).iter().any(|e| e["kind"] == "game_over")
    });
    boards.wait_done(Duration::from_secs(30));
    assert!(terminate(&mut daemon));

    // Every move once, the whole game, the irregularity ruled.
    let events = events(&out);
    check_stream(&events, 1);
    let ev = board_events(&events, 1);
    if let Err(e) = check(&boards.scripts[0], &ev) {
        panic!("{e}");
    }
    let over = ev.iter().find(|e| e["kind"] == "game_over").unwrap();
    let result: GameResult = over["result"].as_str().unwrap().parse().unwrap();
    check_pgn(
        &out.join("pgn/round-2/board-1.pgn"),
        &boards.scripts[0],
        1,
        result,
    );
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert_eq!(log.matches("resumed from the journal").count(), 2, "{log}");
}

/// `run --check` with a broken config: it fails; the message (on stderr) is returned.
fn run_config(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(["run", "--check", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{name} was accepted");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn config_mistakes_give_their_messages() {
    let dir = temp_dir("config");
    let good = "[event]\nname = \"X\"\nround = 1\ntime_control = \"180+2\"\n\n[output]\ndir = \"out\"\n\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n";
    // The good one passes the check.
    let path = dir.join("good.toml");
    std::fs::write(&path, good).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(["run", "--check", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok (1 boards, 180+2 blitz, round 1)"));
    // A cable out is no mistake (the unit's ExecStartPre must pass): a warning, exit 0.
    let path = dir.join("port.toml");
    std::fs::write(&path, good.replace("/dev/null", "/dev/ttyNOPE9")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(["run", "--check", "--config"])
        .arg(&path)
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("warning: ")
            && stderr.contains("board 1: port \"/dev/ttyNOPE9\" does not exist"),
        "{stderr}"
    );
    // A mistake is one plain `Error:` line and its causes, never a backtrace, even with
    // RUST_BACKTRACE set.
    let path = dir.join("round0.toml");
    std::fs::write(&path, good.replace("round = 1", "round = 0")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(["run", "--check", "--config"])
        .arg(&path)
        .env("RUST_BACKTRACE", "1")
        .env("RUST_LIB_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.starts_with("Error: "), "{stderr}");
    assert!(
        !stderr.contains("backtrace") && !stderr.contains("main.rs"),
        "{stderr}"
    );
    let cases = [
        (
            "unknown.toml",
            good.replace("number = 1", "nummer = 1"),
            "unknown.toml:10:1: unknown field `nummer`",
        ),
        (
            "type.toml",
            good.replace("round = 1", "round = \"first\""),
            "type.toml:3:9: invalid type: string \"first\", expected a whole number",
        ),
        (
            "tc.toml",
            good.replace("180+2", "3 min"),
            "tc.toml:4:16: event.time_control \"3 min\": period 1 (\"3 min\"): the time \"3 min\" is not a whole number of seconds (write BASE+INC in seconds, e.g. 180+2",
        ),
        (
            "dup.toml",
            format!("{good}\n[[board]]\nnumber = 1\nserial = \"01025\"\n"),
            "dup.toml:14:10: board number 1 is used twice",
        ),
        (
            "syntax.toml",
            good.replace("[output]", "[output"),
            "syntax.toml:6:8:",
        ),
        (
            "supervision.toml",
            good.replace("\"180+2\"\n", "\"180+2\"\nsupervision = \"some\"\n"),
            "supervision.toml:5:15: event.supervision \"some\" is unknown; expected full",
        ),
        (
            "category.toml",
            good.replace("\"180+2\"\n", "\"180+2\"\ncategory = \"bullet\"\n"),
            "category.toml:5:12: event.category \"bullet\" is not a FIDE category",
        ),
        (
            "date.toml",
            good.replace("round = 1", "round = 1\ndate = \"2025-13-01\""),
            "date.toml:4:8: event.date \"2025-13-01\" is not a date; expected YYYY-MM-DD",
        ),
        (
            "round.toml",
            good.replace("round = 1", "round = 0"),
            "round.toml:3:9: event.round = 0 is out of range; expected 1 to 999",
        ),
        (
            "penalty.toml",
            format!("{good}\n[penalties]\nfirst_illegal_secs = 0\n"),
            "penalty.toml:14:22: penalties.first_illegal_secs = 0 is out of range",
        ),
        (
            "bind.toml",
            format!("{good}\n[http]\nbind = \"nowhere\"\n"),
            "bind.toml:14:8: http.bind \"nowhere\" is not an address",
        ),
        (
            "clock.toml",
            format!("{good}white_clock = \"west\"\n"),
            "clock.toml:12:15: board 1: white_clock \"west\" is unknown",
        ),
        (
            "serial.toml",
            good.replace("port = \"/dev/null\"", "serial = \"0 1\""),
            "serial.toml:11:10: board 1: serial \"0 1\" is not a DGT serial number",
        ),
        (
            "neither.toml",
            good.replace("port = \"/dev/null\"\n", ""),
            "neither.toml:9:1: board 1 has neither port nor serial",
        ),
        (
            "noboard.toml",
            good.split("[[board]]").next().unwrap().to_owned(),
            "noboard.toml:9:1: no [[board]] is configured",
        ),
    ];
    for (name, text, want) in cases {
        let err = run_config(&dir, name, &text);
        assert!(err.contains(want), "{name}: expected {want:?} in {err:?}");
        assert!(err.contains(&dir.join(name).display().to_string()), "{err}");
    }
    let err = run_config(&dir, "missing.toml", "");
    assert!(err.contains("missing field `event`"), "{err}");
}
