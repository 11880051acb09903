//! A round from the pairing program's TRF, end to end with the real binary:
//! `dgt-arbiter round` lists the pairings; `run` with `[event] trf` + `round` plays round 2
//! on emulated boards (players, titles, ratings, FIDE ids in the PGN headers, the
//! LiveChess folder and the dashboard); `dgt-arbiter results` writes the TRF back with the
//! boards' results, and the written file parses again with every other byte unchanged. A
//! result the TRF already has that the board contradicts is refused until the arbiter
//! settles it with `--set`.
//!
//! The TRF is Latin-1 (as Swiss-Manager writes it), with CR LF line ends.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use chess_rules::read_pgn;
use common::*;
use serde_json::Value;
use trf::{Encoding, ResultCode, Trf};

/// A player line by TRF-16 columns (FIDE C.04 Annex 2).
fn player_line(
    rank: u16,
    title: &str,
    name: &str,
    rating: u16,
    points: &str,
    rounds: &[(u16, char, char)],
) -> String {
    let mut s = format!(
        "001 {rank:>4} m{title:<3} {name:<33} {rating:>4} GER {id:>11} 1990/01/01 {points:>4} {rank:>4}",
        id = 4_600_000 + rank as u32
    );
    for (opp, col, res) in rounds {
        s.push_str(&format!("  {opp:>4} {col} {res}"));
    }
    s
}

/// Six players, round 1 played, round 2 paired: 3-1 on board 1, 4-6 on board 2, 2 has
/// the pairing-allocated bye and 5 a half-point bye. Latin-1 bytes, CR LF.
fn trf_bytes(board1_results: (char, char)) -> Vec<u8> {
    let (w1, b1) = board1_results;
    let lines = [
        "012 E2E Open".to_owned(),
        "022 Test hall".to_owned(),
        "042 2025/06/12".to_owned(),
        "XXR 5".to_owned(),
        player_line(
            1,
            "GM",
            "Müller, Jürgen",
            2600,
            "1.0",
            &[(4, 'w', '1'), (3, 'b', b1)],
        ),
        player_line(
            2,
            "IM",
            "Beta, Bert",
            2500,
            "1.5",
            &[(5, 'b', '='), (0, '-', 'U')],
        ),
        player_line(
            3,
            "",
            "Gómez, Inés",
            2400,
            "1.0",
            &[(6, 'w', '1'), (1, 'w', w1)],
        ),
        player_line(
            4,
            "WFM",
            "Delta, Dora",
            2300,
            "0.0",
            &[(1, 'b', '0'), (6, 'w', ' ')],
        ),
        player_line(
            5,
            "",
            "Epsilon, Emil",
            2200,
            "1.0",
            &[(2, 'w', '='), (0, '-', 'H')],
        ),
        player_line(
            6,
            "",
            "Zeta, Zoe",
            2100,
            "0.0",
            &[(3, 'b', '0'), (4, 'b', ' ')],
        ),
        format!("013 {:<32}{:>4} {:>4}", "Springfield CC", 1, 3),
    ];
    let text = lines.join("\r\n") + "\r\n";
    // Latin-1: every character here is below U+0100.
    text.chars().map(|c| c as u32 as u8).collect()
}

fn hall_config(dir: &Path, boards: &Boards) -> std::path::PathBuf {
    let scaled = |ms: f64| ((ms / SPEED).round() as u64).max(1);
    let mut s = format!(
        "[event]\nname = \"E2E Open\"\nsite = \"Test hall\"\ndate = \"2025-06-12\"\nround = 2\n\
         trf = \"round.trf\"\ntime_control = \"{}\"\n\n[output]\ndir = \"out\"\n\n\
         [http]\nbind = \"127.0.0.1:0\"\n\n[timing]\nsettle_window_ms = {}\n\
         two_handed_window_ms = {}\n",
        arbiter_demo::TIME_CONTROL,
        scaled(400.0).max(10),
        scaled(250.0),
    );
    for (i, h) in boards.handles.iter().enumerate() {
        s.push_str(&format!(
            "\n[[board]]\nnumber = {}\nport = \"{}\"\nwhite_clock = \"left\"\n",
            i + 1,
            h.path().unwrap().display(),
        ));
    }
    let path = dir.join("arbiter.toml");
    std::fs::write(&path, s).unwrap();
    path
}

fn dgt_arbiter(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Every line of `after` equals `before` except in the columns `changed`; returns the
/// number of differing bytes.
fn diff_outside(before: &[u8], after: &[u8], changed: &[usize]) -> usize {
    let b: Vec<&[u8]> = before.split(|c| *c == b'\n').collect();
    let a: Vec<&[u8]> = after.split(|c| *c == b'\n').collect();
    assert_eq!(a.len(), b.len(), "the same lines");
    let mut n = 0;
    for (i, (x, y)) in b.iter().zip(&a).enumerate() {
        assert_eq!(x.len(), y.len(), "line {} keeps its length", i + 1);
        for (k, (p, q)) in x.iter().zip(y.iter()).enumerate() {
            if p != q {
                assert!(
                    changed.contains(&(k + 1)),
                    "line {} column {} changed: {:?} -> {:?}",
                    i + 1,
                    k + 1,
                    String::from_utf8_lossy(x),
                    String::from_utf8_lossy(y)
                );
                n += 1;
            }
        }
    }
    n
}

#[test]
fn a_round_from_a_trf_played_on_emulated_boards_and_written_back() {
    let _one_at_a_time = serial();
    let dir = temp_dir("trf-round");
    let original = trf_bytes((' ', ' '));
    assert_eq!(Trf::parse(&original).unwrap().encoding(), Encoding::Latin1);
    std::fs::write(dir.join("round.trf"), &original).unwrap();

    // The round file, without and with the hall's boards.
    let o = dgt_arbiter(
        &[
            "round",
            "--trf",
            "round.trf",
            "--round",
            "2",
            "--out",
            "round-2.toml",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let round_file = std::fs::read_to_string(dir.join("round-2.toml")).unwrap();
    let parsed: toml_like::Doc = toml_like::parse(&round_file);
    assert_eq!(
        parsed.games,
        vec![
            (1, "Gómez, Inés".to_owned(), "Müller, Jürgen".to_owned()),
            (2, "Delta, Dora".to_owned(), "Zeta, Zoe".to_owned())
        ]
    );
    assert!(round_file.contains("white_title = \"WFM\""), "{round_file}");
    assert!(
        round_file.contains("reason = \"pairing-allocated bye (U)\""),
        "{round_file}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("Latin-1"));

    let scripts = vec![script(0, 21, vec![]), script(2, 22, vec![])];
    let boards = Boards::serve(scripts);
    let cfg = hall_config(&dir, &boards);
    let o = dgt_arbiter(
        &[
            "round",
            "--trf",
            "round.trf",
            "--round",
            "2",
            "--boards",
            "arbiter.toml",
            "--out",
            "-",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "hall_board = \"{}\"",
            boards.handles[0].path().unwrap().display()
        )),
        "{text}"
    );

    let out = dir.join("out");
    let mut daemon = start(&cfg);
    wait_events(&out, Duration::from_secs(150), "both games over", |ev| {
        (1..=2).all(|b| board_events(ev, b).iter().any(|e| e["kind"] == "game_over"))
    });
    // The board list (as the dashboard's) names the TRF's players.
    let (code, body) = http_get(&out, "/boards");
    assert_eq!(code, 200);
    let b: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(b["boards"][0]["white"], "Gómez, Inés");
    assert_eq!(b["boards"][0]["black"], "Müller, Jürgen");
    assert_eq!(b["boards"][1]["white"], "Delta, Dora");
    assert!(terminate(&mut daemon));

    // PGN headers from the TRF.
    let mut results = Vec::new();
    for (board, white, black) in [
        (1, "Gómez, Inés", "Müller, Jürgen"),
        (2, "Delta, Dora", "Zeta, Zoe"),
    ] {
        let path = out.join(format!("pgn/round-2/board-{board}.pgn"));
        let games = read_pgn(&std::fs::read(&path).unwrap()).unwrap();
        let g = &games[0];
        assert_eq!(g.tag("White"), Some(white));
        assert_eq!(g.tag("Black"), Some(black));
        assert_eq!(g.tag("Round"), Some(format!("2.{board}").as_str()));
        results.push(g.tag("Result").unwrap().to_owned());
    }
    let g1 = &read_pgn(&std::fs::read(out.join("pgn/round-2/board-1.pgn")).unwrap()).unwrap()[0];
    assert_eq!(g1.tag("WhiteElo"), Some("2400"));
    assert_eq!(g1.tag("BlackElo"), Some("2600"));
    assert_eq!(g1.tag("BlackTitle"), Some("GM"));
    assert_eq!(
        g1.tag("WhiteTitle"),
        None,
        "an untitled player has no title tag"
    );
    assert_eq!(g1.tag("WhiteFideId"), Some("4600003"));
    assert_eq!(g1.tag("BlackFideId"), Some("4600001"));
    assert_eq!(g1.tag("WhiteTeam"), Some("Springfield CC"));
    // The LiveChess folder: the same names, with title and federation.
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("livechess/round-2/index.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index["pairings"][0]["black"]["lname"], "Müller");
    assert_eq!(index["pairings"][0]["black"]["title"], "GM");
    assert_eq!(index["pairings"][0]["black"]["federation"], "GER");

    // Results out: the boards' results in round 2's columns, every other byte unchanged.
    let o = dgt_arbiter(
        &[
            "results",
            "--round",
            "2",
            "--trf",
            "round.trf",
            "--config",
            "arbiter.toml",
            "--out",
            "after.trf",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let after = std::fs::read(dir.join("after.trf")).unwrap();
    let t = Trf::parse(&after).unwrap();
    assert_eq!(t.encoding(), Encoding::Latin1);
    let code = |rank: u16| t.player(rank).unwrap().entry(2).result;
    let want = |r: &str| match r {
        "1-0" => (ResultCode::Win, ResultCode::Loss),
        "0-1" => (ResultCode::Loss, ResultCode::Win),
        "1/2-1/2" => (ResultCode::Draw, ResultCode::Draw),
        other => panic!("result {other}"),
    };
    assert_eq!((code(3), code(1)), want(&results[0]));
    assert_eq!((code(4), code(6)), want(&results[1]));
    // Round 2's result is column 109; the points are 81-84.
    let changed = diff_outside(&original, &after, &[81, 82, 83, 84, 109]);
    assert!(changed >= 4, "four result columns at least: {changed}");
    // Points moved with the results (1-½-0).
    let before = Trf::parse(&original).unwrap();
    for p in t.players() {
        let total: u32 = p.rounds.iter().map(|e| e.result.default_tenths()).sum();
        assert_eq!(p.points_tenths, Some(total), "player {}", p.start_rank);
        assert_eq!(p.name, before.player(p.start_rank).unwrap().name);
    }

    // A result already in the TRF that the board contradicts: refused, nothing written.
    let contradicting = match results[0].as_str() {
        "1-0" => ('0', '1'),
        _ => ('1', '0'),
    };
    std::fs::write(dir.join("entered.trf"), trf_bytes(contradicting)).unwrap();
    let o = dgt_arbiter(
        &[
            "results",
            "--round",
            "2",
            "--trf",
            "entered.trf",
            "--config",
            "arbiter.toml",
            "--out",
            "entered-after.trf",
        ],
        &dir,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("board 1") && err.contains("--set 1="), "{err}");
    assert!(!dir.join("entered-after.trf").exists());
    // The arbiter's word settles it.
    let set = format!("1={}", if contradicting.0 == '1' { "1-0" } else { "0-1" });
    let o = dgt_arbiter(
        &[
            "results",
            "--round",
            "2",
            "--trf",
            "entered.trf",
            "--config",
            "arbiter.toml",
            "--out",
            "entered-after.trf",
            "--set",
            &set,
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = Trf::parse(&std::fs::read(dir.join("entered-after.trf")).unwrap()).unwrap();
    assert_eq!(
        t.player(3).unwrap().entry(2).result,
        ResultCode::from_char(contradicting.0).unwrap()
    );

    // The arbiter's result set on the dashboard wins over the board's; while the two
    // disagree and he has confirmed neither, `results` refuses, naming the board.
    let _ = std::fs::remove_file(out.join("http-address"));
    let mut daemon = start(&cfg);
    common::wait_events(&out, Duration::from_secs(30), "restarted", |_| {
        out.join("http-address").exists()
    });
    // The boards resumed (their tasks take decisions once they run).
    std::thread::sleep(Duration::from_millis(500));
    let other = if results[1] == "1-0" { "0-1" } else { "1-0" };
    let (code, body) = post_decision(
        &out,
        2,
        &format!(r#"{{"decision":"result_set","result":"{other}"}}"#),
    );
    assert_eq!(code, 200, "{body}");
    let n_decisions = |ev: &[Value]| {
        ev.iter()
            .filter(|e| e["kind"] == "arbiter_decision")
            .count()
    };
    common::wait_events(
        &out,
        Duration::from_secs(10),
        "the decision written",
        |ev| n_decisions(ev) == 1,
    );
    let results_cmd = |extra: &[&str]| {
        let mut args = vec![
            "results",
            "--round",
            "2",
            "--trf",
            "round.trf",
            "--config",
            "arbiter.toml",
            "--out",
            "decided.trf",
        ];
        args.extend_from_slice(extra);
        dgt_arbiter(&args, &dir)
    };
    let o = results_cmd(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("board 2") && err.contains("not confirmed"),
        "{err}"
    );
    assert!(!err.contains("board 1:"), "board 1 is not disputed: {err}");
    assert!(!dir.join("decided.trf").exists());
    // --partial leaves it blank.
    let o = results_cmd(&["--partial"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = Trf::parse(&std::fs::read(dir.join("decided.trf")).unwrap()).unwrap();
    assert_eq!(t.player(4).unwrap().entry(2).result, ResultCode::Blank);
    // Confirmed: the arbiter's result is written.
    let (code, body) = post_decision(
        &out,
        2,
        &format!(r#"{{"decision":"result_confirmed","result":"{other}"}}"#),
    );
    assert_eq!(code, 200, "{body}");
    common::wait_events(
        &out,
        Duration::from_secs(10),
        "the confirmation written",
        |ev| n_decisions(ev) == 2,
    );
    let o = results_cmd(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 on the dashboard"));
    let t = Trf::parse(&std::fs::read(dir.join("decided.trf")).unwrap()).unwrap();
    assert_eq!(
        (
            t.player(3).unwrap().entry(2).result,
            t.player(1).unwrap().entry(2).result
        ),
        want(&results[0]),
        "board 1 is the board's"
    );
    let got = (
        t.player(4).unwrap().entry(2).result,
        t.player(6).unwrap().entry(2).result,
    );
    assert_eq!(got, want(other), "board 2 is the arbiter's");
    // A forfeit set on the dashboard (a result no board shows) goes out as one.
    for body in [
        r#"{"decision":"result_set","result":"-+"}"#,
        r#"{"decision":"result_confirmed","result":"-+"}"#,
    ] {
        assert_eq!(post_decision(&out, 2, body).0, 200);
    }
    common::wait_events(&out, Duration::from_secs(10), "the forfeit written", |ev| {
        n_decisions(ev) == 4
    });
    let o = results_cmd(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = Trf::parse(&std::fs::read(dir.join("decided.trf")).unwrap()).unwrap();
    assert_eq!(
        (
            t.player(4).unwrap().entry(2).result,
            t.player(6).unwrap().entry(2).result
        ),
        (
            ResultCode::from_char('-').unwrap(),
            ResultCode::from_char('+').unwrap()
        )
    );
    assert!(terminate(&mut daemon));
}

/// `POST /api/boards/B/decision` as the arbiter (the token the daemon keeps in its
/// output folder): status and body.
fn post_decision(out: &Path, board: u32, body: &str) -> (u16, Value) {
    let host = common::http_host(out);
    let path = format!("/api/boards/{board}/decision");
    common::http_json(&host, "POST", &path, &common::token_header(out), body)
}

#[test]
fn config_mistakes_with_a_trf_are_named() {
    let dir = temp_dir("trf-config");
    std::fs::write(dir.join("round.trf"), trf_bytes((' ', ' '))).unwrap();
    let base = "[event]\nname = \"E\"\nround = 2\ntime_control = \"60+1\"\ntrf = \"round.trf\"\n\
                [output]\ndir = \"out\"\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n";
    let check = |text: &str| {
        std::fs::write(dir.join("c.toml"), text).unwrap();
        let o = dgt_arbiter(&["run", "--check", "--config", "c.toml"], &dir);
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout),
        )
    };
    let (ok, text) = check(base);
    assert!(ok, "{text}");
    let (ok, text) = check(&base.replace("round = 2", "round = 4"));
    assert!(!ok && text.contains("round 4 is not in the file"), "{text}");
    let (ok, text) = check(&base.replace("round.trf", "missing.trf"));
    assert!(!ok && text.contains("cannot read the TRF file"), "{text}");
    let (ok, text) = check(&format!("{base}white = \"Someone\"\n"));
    assert!(!ok && text.contains("also come from event.trf"), "{text}");
    // A bad TRF line: named with its line and column.
    let bad = String::from_utf8_lossy(&trf_bytes((' ', ' '))).replace("2600", "26x0");
    std::fs::write(dir.join("bad.trf"), bad.as_bytes()).unwrap();
    let (ok, text) = check(&base.replace("round.trf", "bad.trf"));
    assert!(!ok && text.contains("line 5, column 49"), "{text}");
}

/// Just enough of the round file for the test: `[[game]]` board, white, black.
mod toml_like {
    #[derive(Debug, Default)]
    pub struct Doc {
        pub games: Vec<(u32, String, String)>,
    }

    pub fn parse(text: &str) -> Doc {
        let mut doc = Doc::default();
        let mut cur: Option<(u32, String, String)> = None;
        for line in text.lines().map(str::trim) {
            if line == "[[game]]" || line.starts_with("[[unpaired]]") {
                doc.games.extend(cur.take());
                if line == "[[game]]" {
                    cur = Some((0, String::new(), String::new()));
                }
                continue;
            }
            let Some(g) = cur.as_mut() else { continue };
            let value = |l: &str| {
                l.split_once(" = ")
                    .map(|(_, v)| v.trim_matches('"').to_owned())
            };
            if let Some(v) = line.strip_prefix("board = ") {
                g.0 = v.parse().unwrap();
            } else if line.starts_with("white = ") {
                g.1 = value(line).unwrap();
            } else if line.starts_with("black = ") {
                g.2 = value(line).unwrap();
            }
        }
        doc.games.extend(cur);
        doc
    }
}

#[test]
fn a_trf_control_in_the_pgn_form_must_be_the_events() {
    let dir = temp_dir("trf-control");
    let demo = arbiter_demo::TIME_CONTROL.to_string();
    let with_control = |control: &str| {
        let mut bytes = format!("122 {control}\r\n").into_bytes();
        bytes.extend(trf_bytes((' ', ' ')));
        bytes
    };
    let config = format!(
        "[event]\nname = \"E2E Open\"\nround = 2\ntrf = \"round.trf\"\ntime_control = \"{}\"\n\n\
         [output]\ndir = \"out\"\n\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n",
        arbiter_demo::TIME_CONTROL
    );
    std::fs::write(dir.join("arbiter.toml"), config).unwrap();
    let check = || dgt_arbiter(&["run", "--check", "--config", "arbiter.toml"], &dir);
    // The pairing program says classical; the config says the demo's blitz.
    std::fs::write(dir.join("round.trf"), with_control("40/5400+30:1800+30")).unwrap();
    let out = check();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("is not the control of event.trf (its line 122 says 40/5400+30:1800+30)"),
        "{err}"
    );
    // The same control, or words the pairing program wrote its own way: accepted.
    for control in [demo.as_str(), "90'/40 + 30' + 30''/move"] {
        std::fs::write(dir.join("round.trf"), with_control(control)).unwrap();
        let out = check();
        assert!(
            out.status.success(),
            "{control}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
