use super::*;

/// A valid file; `/dev/null` stands in for a board's device (it exists everywhere).
const GOOD: &str = r#"[event]
name = "Club blitz"
site = "Springfield"
date = "2025-06-12"
round = 3
time_control = "180+2"
supervision = "partial"

[output]
dir = "out"

[[board]]
number = 1
port = "/dev/null"
white = "Morphy, Paul"
black = "Anderssen, Adolf"
white_clock = "left"

[[board]]
number = 2
serial = "01025"
"#;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, Path::new("/etc/dgt/cfg.toml"))
}

/// The message for `text`, which must be invalid.
fn message(text: &str) -> String {
    match parse(text) {
        Ok(c) => panic!("accepted: {c:?}"),
        Err(e) => e.to_string(),
    }
}

/// `GOOD` with one line replaced.
fn with(old: &str, new: &str) -> String {
    assert!(GOOD.contains(old), "{old}");
    GOOD.replacen(old, new, 1)
}

/// Asserts the message names the file and `line:column`, and says all of `words`.
fn says(text: &str, line: usize, column: usize, words: &[&str]) {
    let m = message(text);
    let place = format!("/etc/dgt/cfg.toml:{line}:{column}: ");
    assert!(
        m.starts_with(&place),
        "expected {place:?} at the start of {m:?}"
    );
    for w in words {
        assert!(m.contains(w), "{w:?} missing from {m:?}");
    }
}

#[test]
fn a_good_file() {
    let c = parse(GOOD).unwrap();
    assert_eq!(c.event.name, "Club blitz");
    assert_eq!(c.event.date, "2025.06.12");
    assert_eq!(c.event.round, 3);
    assert_eq!(c.category, TimeCategory::Blitz);
    assert_eq!(c.penalty_ms, 60_000);
    assert_eq!(c.supervision, Supervision::Partial);
    assert_eq!(c.output.dir, Path::new("/etc/dgt/out"));
    assert_eq!(c.http.bind, "127.0.0.1:8080".parse().unwrap());
    assert_eq!(c.boards.len(), 2);
    assert_eq!(c.boards[0].port, BoardPort::Path("/dev/null".into()));
    assert_eq!(c.boards[0].white_clock, Some(ClockSide::Left));
    assert_eq!(c.boards[1].port, BoardPort::Serial("01025".into()));
    assert_eq!(c.boards[1].white_clock, None);
    let t = c.tracker_config(&c.boards[0]);
    assert_eq!(t.board, "1");
    assert_eq!(t.penalty_ms(TimeCategory::Blitz), 60_000);
    assert_eq!(t.supervision, Supervision::Partial);
}

#[test]
fn categories_penalties_and_overrides() {
    let standard = parse(&with("\"180+2\"", "\"5400+30\"")).unwrap();
    assert_eq!(standard.category, TimeCategory::Standard);
    assert_eq!(standard.penalty_ms, 120_000);
    let rapid = parse(&with("\"180+2\"", "\"900+10\"")).unwrap();
    assert_eq!(rapid.category, TimeCategory::Rapid);
    let over = parse(&with(
        "supervision = \"partial\"",
        "category = \"standard\"\n[penalties]\nfirst_illegal_secs = 90\ntwo_handed = \"penalise\"",
    ))
    .unwrap();
    assert_eq!(over.category, TimeCategory::Standard);
    assert_eq!(over.penalty_ms, 90_000);
    assert!(over.penalise_two_handed);
}

#[test]
fn syntax_error() {
    says(&with("round = 3", "round = = 3"), 5, 9, &["expected"]);
}

#[test]
fn unknown_key() {
    says(
        &with("white_clock = \"left\"", "colour = \"left\""),
        17,
        1,
        &["unknown field `colour`", "white_clock"],
    );
    says(
        &with("[output]", "[outputs]"),
        9,
        2,
        &["unknown field `outputs`"],
    );
}

#[test]
fn wrong_type() {
    says(
        &with("round = 3", "round = \"three\""),
        5,
        9,
        &["\"three\"", "expected a whole number"],
    );
}

#[test]
fn missing_key() {
    says(
        &with("time_control = \"180+2\"\n", ""),
        1,
        1,
        &["missing field `time_control`"],
    );
}

#[test]
fn bad_time_control() {
    says(
        &with("\"180+2\"", "\"3 min\""),
        6,
        16,
        &["BASE+INC", "180+2"],
    );
    says(
        &with("\"180+2\"", "\"0+2\""),
        6,
        16,
        &["not a sane time control"],
    );
}

#[test]
fn a_time_control_with_periods_is_read_in_the_pgn_form() {
    let c = parse(&with("\"180+2\"", "\"40/5400+30:1800+30\"")).unwrap();
    assert_eq!(c.time_control.to_string(), "40/5400+30:1800+30");
    // 5400 + 1800 + 60 x 30 s for 60 moves: standard play, 2 minutes a penalty.
    assert_eq!(c.category, TimeCategory::Standard);
    assert_eq!(c.penalty_ms, 120_000);
    says(
        &with("\"180+2\"", "\"40/5400+30:1800m\""),
        6,
        16,
        &[
            "period 2 (\"1800m\")",
            "the time \"1800m\"",
            "40/5400+30:1800+30",
        ],
    );
    says(
        &with("\"180+2\"", "\"40/5400:30000+30\""),
        6,
        16,
        &["not a sane time control", "period 2", "6 hours"],
    );
}

#[test]
fn a_time_control_with_periods_on_an_unattended_board_is_refused() {
    let text = with("\"180+2\"", "\"40/5400+30:1800+30\"")
        .replace("number = 2\n", "number = 2\nunattended = true\n");
    says(
        &text,
        6,
        16,
        &[
            "has periods",
            "board(s) 2 run unattended",
            "unattended = false",
        ],
    );
    // BASE+INC stays allowed unattended.
    let text = GOOD.replace("number = 2\n", "number = 2\nunattended = true\n");
    assert!(parse(&text).is_ok());
}

#[test]
fn a_board_plays_its_own_time_control_and_category() {
    // Board 2 plays a classical game beside the blitz section.
    let text = GOOD.replace(
        "number = 2\n",
        "number = 2\ntime_control = \"40/5400+30:1800+30\"\n",
    );
    let c = parse(&text).unwrap();
    let (one, two) = (&c.boards[0], &c.boards[1]);
    assert_eq!(c.board_time_control(one).to_string(), "180+2");
    assert_eq!(c.board_time_control(two).to_string(), "40/5400+30:1800+30");
    assert_eq!(c.board_category(one), TimeCategory::Blitz);
    assert_eq!(c.board_category(two), TimeCategory::Standard);
    assert_eq!(
        (c.board_penalty_ms(one), c.board_penalty_ms(two)),
        (60_000, 120_000)
    );
    let t = c.tracker_config(two);
    assert_eq!(t.category, Some(TimeCategory::Standard));
    assert_eq!(
        t.time_control.map(|tc| tc.to_string()).as_deref(),
        Some("40/5400+30:1800+30")
    );
    assert_eq!(t.penalties.standard_ms, 120_000);
    // What the file names wins for every board.
    let named = text.replace(
        "supervision = \"partial\"\n",
        "supervision = \"partial\"\ncategory = \"rapid\"\n[penalties]\nfirst_illegal_secs = 90\n",
    );
    let c = parse(&named).unwrap();
    assert_eq!(c.board_category(&c.boards[1]), TimeCategory::Rapid);
    assert_eq!(c.board_penalty_ms(&c.boards[1]), 90_000);
    assert_eq!(
        c.tracker_config(&c.boards[1]).penalties,
        Penalties::same_for_all(90_000)
    );
}

#[test]
fn the_tracker_keeps_the_penalty_of_each_category() {
    // The tracker picks the penalty by its category: the file's defaults stay per
    // category, and agree with `board_penalty_ms` for every board.
    let text = GOOD.replace(
        "number = 2\n",
        "number = 2\ntime_control = \"40/5400+30:1800+30\"\n",
    );
    let c = parse(&text).unwrap();
    for b in &c.boards {
        let t = c.tracker_config(b);
        assert_eq!(t.penalties, Penalties::default());
        let category = t.category.unwrap();
        assert_eq!(t.penalty_ms(category), c.board_penalty_ms(b));
    }
}

#[test]
fn a_board_time_control_is_checked_and_named_in_the_message() {
    let text = GOOD.replace(
        "number = 2\n",
        "number = 2\ntime_control = \"40/5400+30:18x\"\n",
    );
    let m = message(&text);
    assert!(m.contains("board 2: time_control"), "{m}");
    assert!(m.contains("18x"), "{m}");
    // Periods on an unattended board are refused where the board names them.
    let text = GOOD.replace(
        "number = 2\n",
        "number = 2\nunattended = true\ntime_control = \"40/5400+30:1800+30\"\n",
    );
    let m = message(&text);
    assert!(
        m.contains("board 2: time_control 40/5400+30:1800+30 has periods"),
        "{m}"
    );
    assert!(m.contains("unattended = false"), "{m}");
}

#[test]
fn bad_category() {
    says(
        &with("supervision = \"partial\"", "category = \"bullet\""),
        7,
        12,
        &["\"bullet\"", "blitz, rapid or standard", "180+2 is blitz"],
    );
}

#[test]
fn bad_supervision() {
    says(
        &with("\"partial\"", "\"some\""),
        7,
        15,
        &["expected full", "partial"],
    );
}

#[test]
fn bad_date() {
    says(
        &with("\"2025-06-12\"", "\"2025-02-30\""),
        4,
        8,
        &["YYYY-MM-DD"],
    );
}

#[test]
fn round_out_of_range() {
    says(
        &with("round = 3", "round = 0"),
        5,
        9,
        &["event.round = 0", "1 to 999"],
    );
}

#[test]
fn penalty_out_of_range() {
    says(
        &with(
            "[output]",
            "[penalties]\nfirst_illegal_secs = 7200\n\n[output]",
        ),
        10,
        22,
        &["first_illegal_secs = 7200", "1 to 600 seconds"],
    );
}

#[test]
fn bad_two_handed() {
    says(
        &with("[output]", "[penalties]\ntwo_handed = \"ignore\"\n[output]"),
        10,
        14,
        &["report", "penalise"],
    );
}

#[test]
fn empty_output_dir() {
    says(
        &with("dir = \"out\"", "dir = \"  \""),
        10,
        7,
        &["output.dir is empty"],
    );
}

#[test]
fn bad_bind_address() {
    says(
        &with("[output]", "[http]\nbind = \"localhost:80:80\"\n[output]"),
        10,
        8,
        &["not an address", "127.0.0.1:8080"],
    );
}

#[test]
fn bad_timing() {
    says(
        &with("[output]", "[timing]\nsettle_window_ms = 0\n[output]"),
        10,
        20,
        &["timing.settle_window_ms = 0", "10 to 5000 ms"],
    );
}

#[test]
fn no_board() {
    let text = GOOD.split("[[board]]").next().unwrap().to_owned();
    let lines = text.lines().count();
    says(&text, lines + 1, 1, &["no [[board]]"]);
}

#[test]
fn duplicate_board_number() {
    says(
        &with("number = 2", "number = 1"),
        20,
        10,
        &["board number 1 is used twice"],
    );
}

#[test]
fn board_number_out_of_range() {
    says(
        &with("number = 2", "number = 0"),
        20,
        10,
        &["board.number = 0"],
    );
}

#[test]
fn a_missing_port_is_noted_not_refused() {
    // udev removes an unplugged board's link: a restarted daemon must still come up.
    let c = parse(&with("\"/dev/null\"", "\"/dev/no-such-board\"")).unwrap();
    assert_eq!(c.missing_ports.len(), 1, "{:?}", c.missing_ports);
    let m = &c.missing_ports[0];
    assert!(m.starts_with("/etc/dgt/cfg.toml:14:8: "), "{m}");
    for w in ["board 1", "does not exist", "dgt-arbiter probe"] {
        assert!(m.contains(w), "{w:?} missing from {m:?}");
    }
    assert!(parse(GOOD).unwrap().missing_ports.is_empty());
}

#[test]
fn bad_serial() {
    says(
        &with("\"01025\"", "\"01 025\""),
        21,
        10,
        &["not a DGT serial number"],
    );
}

#[test]
fn port_and_serial() {
    says(
        &with(
            "serial = \"01025\"",
            "serial = \"01025\"\nport = \"/dev/null\"",
        ),
        22,
        8,
        &["both port and serial"],
    );
}

#[test]
fn neither_port_nor_serial() {
    says(
        &with("serial = \"01025\"\n", ""),
        19,
        1,
        &["neither port nor serial"],
    );
}

#[test]
fn bad_white_clock() {
    says(
        &with("\"left\"", "\"west\""),
        17,
        15,
        &["left, right or infer"],
    );
}

#[test]
fn bad_player_name() {
    says(
        &with("\"Morphy, Paul\"", "\"\""),
        15,
        9,
        &["not a player's name"],
    );
}

#[test]
fn unreadable_file() {
    let e = Config::load(Path::new("/no/such/dir/cfg.toml")).unwrap_err();
    assert!(e
        .to_string()
        .contains("cannot read the config file /no/such/dir/cfg.toml"));
    // The cause comes once, as the source (the binary printed it twice before).
    let cause = std::error::Error::source(&e).expect("the IO error is the source");
    assert!(!e.to_string().contains(&cause.to_string()), "{e}");
}

#[test]
fn line_and_column_count_characters() {
    assert_eq!(line_column("ab\ncdé\nf", 0), (1, 1));
    assert_eq!(line_column("ab\ncdé\nf", 3), (2, 1));
    assert_eq!(line_column("ab\ncdé\nf", 8), (3, 1));
    assert_eq!(line_column("ab\ncdé\nf", 7), (2, 4));
}

#[test]
fn example_configs_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config");
    let mut n = 0;
    for name in ["club-blitz.toml", "rapid-open-50.toml", "classical.toml"] {
        let path = dir.join(name);
        // The examples name real device paths: where they do not exist, they are
        // `missing_ports` (a warning), not an error.
        let text = std::fs::read_to_string(&path).unwrap();
        let c = Config::parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!c.boards.is_empty());
        n += c.boards.len();
    }
    assert!(n >= 50 + 2, "the rapid open has 50 boards");
}

#[test]
fn the_broadcast_section() {
    let c = parse(GOOD).unwrap();
    assert_eq!(c.broadcast, BroadcastConfig::default());
    assert!(c.boards.iter().all(|b| b.broadcast));
    assert!(c.broadcast.policy(&c.boards).is_live());

    let dir = std::env::temp_dir().join(format!("arbiter-config-push-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("token"), "lip_secret123\n").unwrap();
    std::fs::write(dir.join("empty"), "\n").unwrap();
    let text = with(
        "[[board]]\nnumber = 2\n",
        "[broadcast]\ndelay = \"15m\"\nresults_off_air = true\n\
         [broadcast.push]\nurl = \"https://lichess.org/api/broadcast/round/AbCd1234/push\"\n\
         token_file = \"token\"\n\n[[board]]\nnumber = 2\nbroadcast = false\n",
    );
    let c = Config::parse(&text, &dir.join("cfg.toml")).unwrap();
    assert_eq!(c.broadcast.delay_ms, 900_000);
    assert!(c.broadcast.results_off_air && !c.broadcast.results_only);
    let push = c.broadcast.push.clone().unwrap();
    assert_eq!(push.token, "lip_secret123");
    assert_eq!(push.interval_ms, 10_000);
    assert!(
        !format!("{c:?}").contains("lip_secret123"),
        "the token is never logged"
    );
    let policy = c.broadcast.policy(&c.boards);
    assert_eq!(policy.air(1), broadcast_delay::Air::On);
    assert_eq!(policy.air(2), broadcast_delay::Air::Off { results: true });

    let bad = |section: &str, words: &[&str]| {
        let text = with(
            "[[board]]\nnumber = 1\n",
            &format!("{section}\n[[board]]\nnumber = 1\n"),
        );
        let m = match Config::parse(&text, &dir.join("cfg.toml")) {
            Ok(c) => panic!("accepted: {c:?}"),
            Err(e) => e.to_string(),
        };
        assert!(m.contains("cfg.toml:1"), "names the file and line: {m}");
        for w in words {
            assert!(m.contains(w), "{w:?} missing from {m:?}");
        }
    };
    bad(
        "[broadcast]\ndelay = \"15 minutes\"",
        &["broadcast.delay", "is not a delay", "\"15m\""],
    );
    bad("[broadcast]\ndelay = \"2000h\"", &["longer than a day"]);
    bad("[broadcast]\nlag = \"1m\"", &["unknown field `lag`"]);
    bad(
        "[broadcast.push]\nurl = \"lichess.org/push\"\ntoken_file = \"token\"",
        &["broadcast.push.url", "is not a push URL"],
    );
    bad(
        "[broadcast.push]\nurl = \"http://127.0.0.1:9/p\"\ntoken_file = \"missing\"",
        &["broadcast.push.token_file", "cannot read it"],
    );
    bad(
        "[broadcast.push]\nurl = \"http://127.0.0.1:9/p\"\ntoken_file = \"empty\"",
        &["does not hold a token"],
    );
    bad(
        "[broadcast.push]\nurl = \"http://127.0.0.1:9/p\"\ntoken_file = \"token\"\ninterval = \"1ms\"",
        &["broadcast.push.interval is out of range"],
    );
    bad(
        "[broadcast]\nresults_only = \"yes\"",
        &["expected true or false"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_mistake_is_reported_in_one_run() {
    // Four mistakes in four places, of validation: all come back, in the file's order,
    // each with its own line and column and its usual words.
    let text = with("round = 3", "round = 0")
        .replacen("supervision = \"partial\"", "supervision = \"some\"", 1)
        .replacen("white_clock = \"left\"", "white_clock = \"west\"", 1)
        .replacen("\"01025\"", "\"01 025\"", 1);
    let e = parse(&text).unwrap_err();
    let m = e.to_string();
    assert!(
        m.starts_with("/etc/dgt/cfg.toml: 4 mistakes\n"),
        "a heading line first: {m}"
    );
    let lines: Vec<&str> = m.lines().skip(1).collect();
    let expected = [
        ("/etc/dgt/cfg.toml:5:9: ", "event.round = 0 is out of range"),
        (
            "/etc/dgt/cfg.toml:7:15: ",
            "event.supervision \"some\" is unknown",
        ),
        ("/etc/dgt/cfg.toml:17:15: ", "board 1: white_clock \"west\""),
        ("/etc/dgt/cfg.toml:21:10: ", "board 2: serial \"01 025\""),
    ];
    assert_eq!(lines.len(), expected.len(), "{m}");
    for (line, (place, words)) in lines.iter().zip(expected) {
        assert!(line.starts_with(place), "{place:?} starts {line:?}");
        assert!(line.contains(words), "{words:?} in {line:?}");
    }
    assert_eq!(e.mistakes().len(), 4);
    assert!(e
        .mistakes()
        .iter()
        .all(|m| matches!(m, ConfigError::Invalid { .. })));
}

#[test]
fn mistakes_the_toml_reader_finds_are_all_reported_too() {
    // An unknown key and a mistyped one stop the toml reader; both are reported, and
    // the validation behind them still runs (the time control).
    let text = with("site = \"Springfield\"", "sitte = \"Springfield\"")
        .replacen("white_clock = \"left\"", "white_clock = 1", 1)
        .replacen("\"180+2\"", "\"3 min\"", 1);
    let m = message(&text);
    assert!(m.starts_with("/etc/dgt/cfg.toml: 3 mistakes\n"), "{m}");
    let lines: Vec<&str> = m.lines().skip(1).collect();
    assert!(
        lines[0].starts_with("/etc/dgt/cfg.toml:3:1: unknown field `sitte`"),
        "{m}"
    );
    assert!(
        lines[1].starts_with("/etc/dgt/cfg.toml:6:16: event.time_control"),
        "{m}"
    );
    assert!(lines[2].starts_with("/etc/dgt/cfg.toml:17:15: "), "{m}");
    assert!(lines[2].contains("expected a string"), "{m}");
}

#[test]
fn a_mistyped_required_key_is_one_mistake_not_two() {
    // Read without it, the key is missing: that is the same mistake, not reported again.
    says(
        &with("round = 3", "round = \"three\""),
        5,
        9,
        &["\"three\"", "expected a whole number"],
    );
    assert!(!message(&with("round = 3", "round = \"three\"")).contains("missing"));
    // An unknown section's keys are not read into the section before it.
    let m = message(&with("[output]", "[outputs]"));
    assert!(!m.contains("mistakes"), "{m}");
    // A syntax error stops the reading: what follows it cannot be told apart.
    let m = message(&with("round = 3", "round = = 3").replacen("\"left\"", "\"west\"", 1));
    assert!(m.starts_with("/etc/dgt/cfg.toml:5:9: "), "{m}");
    assert!(!m.contains("west"), "{m}");
}

#[test]
fn a_file_of_mistakes_reports_a_bounded_number() {
    let mut text = GOOD.to_owned();
    for i in 0..200 {
        text.push_str(&format!(
            "\n[[board]]\nnumber = {}\nserial = \"x y\"\n",
            i + 3
        ));
    }
    let e = parse(&text).unwrap_err();
    assert_eq!(e.mistakes().len(), MAX_MISTAKES);
}

#[test]
fn the_tls_pair_is_loaded_when_checked() {
    let dir = std::env::temp_dir().join(format!("arbiter-config-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pair = crate::tls::self_signed(&["arbiter.local".into()]).unwrap();
    std::fs::write(dir.join("cert.pem"), &pair.cert_pem).unwrap();
    std::fs::write(dir.join("key.pem"), &pair.key_pem).unwrap();
    std::fs::write(dir.join("junk.pem"), "not a certificate\n").unwrap();
    let at = |cert: &str, key: &str, extra: &str| {
        let text = with(
            "[[board]]\nnumber = 1\n",
            &format!(
                "[http]\ntls_cert = \"{cert}\"\ntls_key = \"{key}\"\n{extra}\n[[board]]\nnumber = 1\n"
            ),
        );
        Config::parse(&text, &dir.join("cfg.toml"))
    };
    let good = at("cert.pem", "key.pem", "").unwrap();
    assert_eq!(good.http.tls.unwrap().cert, dir.join("cert.pem"));
    let m = at("junk.pem", "key.pem", "").unwrap_err().to_string();
    assert!(m.contains("cfg.toml:13:12: http.tls_cert: "), "{m}");
    assert!(m.contains("no PEM certificate"), "{m}");
    let m = at("cert.pem", "junk.pem", "").unwrap_err().to_string();
    assert!(m.contains("cfg.toml:14:11: http.tls_key: "), "{m}");
    let m = at("cert.pem", "missing.pem", "").unwrap_err().to_string();
    assert!(m.contains("http.tls_key: cannot read"), "{m}");
    // A certificate with another pair's key cannot serve.
    let other = crate::tls::self_signed(&["arbiter.local".into()]).unwrap();
    std::fs::write(dir.join("other-key.pem"), &other.key_pem).unwrap();
    let m = at("cert.pem", "other-key.pem", "").unwrap_err().to_string();
    assert!(
        m.contains("http.tls_cert: the certificate and key cannot serve TLS"),
        "{m}"
    );
    // With HTTP off, the files are not the server's: not loaded.
    assert!(at("junk.pem", "key.pem", "enabled = false").is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_time_scale_of_an_emulated_hall() {
    assert_eq!(parse(GOOD).unwrap().timing.time_scale, 1.0);
    let text = with("[output]", "[timing]\ntime_scale = 4\n[output]");
    let c = parse(&text).unwrap();
    assert_eq!(c.timing.time_scale, 4.0);
    assert_eq!(c.tracker_config(&c.boards[0]).time_scale, 4.0);
    let text = with("[output]", "[timing]\ntime_scale = 2.5\n[output]");
    assert_eq!(parse(&text).unwrap().timing.time_scale, 2.5);
    says(
        &with("[output]", "[timing]\ntime_scale = 0\n[output]"),
        10,
        14,
        &["timing.time_scale = 0 is out of range", "--speed"],
    );
}

#[test]
fn the_livechess_api_is_off_by_default_and_binds_1982_when_asked() {
    assert_eq!(parse(GOOD).unwrap().livechess_api, None);
    let on = parse(&format!("{GOOD}\n[livechess_api]\n")).unwrap();
    assert_eq!(
        on.livechess_api.unwrap().bind,
        "127.0.0.1:1982".parse().unwrap()
    );
    let at = parse(&format!(
        "{GOOD}\n[livechess_api]\nbind = \"0.0.0.0:2000\"\n"
    ))
    .unwrap();
    assert_eq!(at.livechess_api.unwrap().bind.port(), 2000);
    let m = message(&format!("{GOOD}\n[livechess_api]\nbind = \"1982\"\n"));
    assert!(
        m.contains("livechess_api.bind \"1982\" is not an address"),
        "{m}"
    );
    let m = message(&format!("{GOOD}\n[livechess_api]\nport = 1982\n"));
    assert!(m.contains("port"), "{m}");
}

#[test]
fn a_board_from_a_livechess_feed() {
    let c = parse(&with(
        "serial = \"01025\"",
        "source = \"livechess://hall-2.local:1982/23946\"",
    ))
    .unwrap();
    let BoardPort::LiveChess(url) = &c.boards[1].port else {
        panic!("{:?}", c.boards[1].port);
    };
    assert_eq!(
        (url.host.as_str(), url.port, url.serialnr.as_str()),
        ("hall-2.local", 1982, "23946")
    );
    assert_eq!(
        c.boards[1].port.to_string(),
        "livechess://hall-2.local:1982/23946"
    );
    // Not an address, or beside a port: said where and why.
    let line = GOOD.lines().position(|l| l.starts_with("serial")).unwrap() + 1;
    says(
        &with("serial = \"01025\"", "source = \"livechess://x:1982\""),
        line,
        10,
        &["board 2", "SERIALNR", "livechess://HOST:1982/SERIALNR"],
    );
    says(
        &with("serial = \"01025\"", "source = \"ws://x/1\""),
        line,
        10,
        &["does not start with livechess://"],
    );
    let m = message(&with(
        "serial = \"01025\"",
        "serial = \"01025\"\nsource = \"livechess://x/1\"",
    ));
    assert!(m.contains("a source and a port or serial"), "{m}");
    says(
        &with(
            "serial = \"01025\"",
            "source = \"livechess://x/1\"\nunattended = true",
        ),
        line,
        10,
        &[
            "board 2: unattended = true needs a DGT clock",
            "LiveChess has none",
        ],
    );
}

#[test]
fn the_network_files_are_opened_when_checked() {
    let dir = std::env::temp_dir().join(format!("arbiter-config-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("nats-password"), "secret\n").unwrap();
    let at = |extra: &str| {
        let text = format!(
            "{GOOD}\n[network]\nnats = \"nats://central:4222\"\nhall = \"A\"\nuser = \"hall-a\"\n{extra}\n"
        );
        Config::parse(&text, &dir.join("cfg.toml"))
    };
    // Relative to the config file's folder, as the link reads it.
    assert!(at("password_file = \"nats-password\"").is_ok());
    let m = at("password_file = \"missing\"").unwrap_err().to_string();
    assert!(m.contains("network.password_file: cannot read"), "{m}");
    assert!(m.contains("missing"), "{m}");
    let m = at("password_file = \"nats-password\"\ntls_ca = \"ca.pem\"")
        .unwrap_err()
        .to_string();
    assert!(m.contains("network.tls_ca: cannot read"), "{m}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_async_threads_default_to_one_and_are_bounded() {
    assert_eq!(parse(GOOD).unwrap().runtime.async_threads, 1);
    let text = with("[output]", "[runtime]\nasync_threads = 4\n[output]");
    assert_eq!(parse(&text).unwrap().runtime.async_threads, 4);
    says(
        &with("[output]", "[runtime]\nasync_threads = 0\n[output]"),
        10,
        17,
        &["runtime.async_threads = 0 is out of range; expected 1 to 64"],
    );
    says(
        &with("[output]", "[runtime]\nthreads = 2\n[output]"),
        10,
        1,
        &["threads"],
    );
}

#[test]
fn a_chess960_event_names_its_start_for_the_event_and_per_board() {
    // arbiter-rules.md section 6: the variant and the position are known before move 1.
    let text = GOOD
        .replace(
            "supervision = \"partial\"\n",
            "supervision = \"partial\"\nvariant = \"chess960\"\nstart_position = 0\n",
        )
        .replace(
            "number = 2\n",
            "number = 2\nstart_fen = \"rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1\"\n",
        );
    let c = parse(&text).unwrap();
    let (one, two) = (&c.boards[0], &c.boards[1]);
    let t = c.tracker_config(one);
    assert_eq!(t.start.variant(), chess_rules::Variant::Chess960);
    assert_eq!(t.start.chess960_number(), Some(0));
    assert!(!t.start_from_board);
    let t = c.tracker_config(two);
    assert_eq!(t.start.variant(), chess_rules::Variant::Chess960);
    assert_eq!(
        t.start.fen().split(' ').next(),
        Some("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB")
    );
    // Without a start: the board's first placement gives it.
    let text = GOOD.replace(
        "supervision = \"partial\"\n",
        "supervision = \"partial\"\nvariant = \"chess960\"\n",
    );
    let c = parse(&text).unwrap();
    assert_eq!(c.start, GameStart::Chess960FromBoard);
    assert!(c.tracker_config(&c.boards[0]).start_from_board);
    // A standard event is standard chess from the standard position.
    let c = parse(GOOD).unwrap();
    assert_eq!(c.start, GameStart::Standard);
    let t = c.tracker_config(&c.boards[0]);
    assert_eq!(t.start, chess_rules::Position::start());
    assert!(!t.start_from_board);
}

#[test]
fn a_wrong_chess960_start_is_named_with_its_board() {
    let chess960 = |board: &str| {
        GOOD.replace(
            "supervision = \"partial\"\n",
            "supervision = \"partial\"\nvariant = \"chess960\"\n",
        )
        .replace("number = 2\n", &format!("number = 2\n{board}\n"))
    };
    let m = message(&chess960("start_position = 1000"));
    assert!(
        m.contains("board 2: start_position 1000 is not a Chess960 position; expected 0 to 959"),
        "{m}"
    );
    let m = message(&chess960("start_fen = \"rnbqkbnr/8/8/8 w - - 0 1\""));
    assert!(
        m.contains("board 2: start_fen is not a Chess960 position"),
        "{m}"
    );
    let m = message(&chess960("start_position = 3\nstart_fen = \"x\""));
    assert!(m.contains("both given"), "{m}");
    // A start in a standard event, and a variant nobody plays.
    let m = message(&GOOD.replace("number = 2\n", "number = 2\nstart_position = 518\n"));
    assert!(
        m.contains("board 2: a start position is for Chess960 games"),
        "{m}"
    );
    let m = message(&with(
        "supervision = \"partial\"\n",
        "supervision = \"partial\"\nvariant = \"fischer\"\n",
    ));
    assert!(
        m.contains("event.variant \"fischer\" is not a variant"),
        "{m}"
    );
}

#[test]
fn the_rulings_language_is_english_unless_the_event_says() {
    assert_eq!(parse(GOOD).unwrap().event.language, Language::En);
    let ru = parse(&with(
        "supervision = \"partial\"",
        "supervision = \"partial\"\nlanguage = \"ru\"",
    ))
    .unwrap();
    assert_eq!(ru.event.language, Language::Ru);
    let m = message(&with(
        "supervision = \"partial\"",
        "supervision = \"partial\"\nlanguage = \"fr\"",
    ));
    assert!(
        m.contains("event.language") && m.contains("\"fr\"") && m.contains("en, ru"),
        "{m}"
    );
}

/// Issue 41: the commonest mistakes said in Russian at the same place; in English the
/// error's Display, and the English catalogue says a time control's mistake as it does.
#[test]
fn mistakes_are_said_in_the_user_s_language_at_their_place() {
    use messages::{Language, Messages};
    let ru = Messages::strict(Language::Ru);
    for (text, russian) in [
        (
            with("\"180+2\"", "\"40/5400+x\""),
            "event.time_control \"40/5400+x\" — не контроль времени (период 1 (\"40/5400+x\"): \
             добавление \"x\" — не целое число секунд)",
        ),
        (
            with("\"180+2\"", "\"0+2\""),
            "— не контроль времени (период 1 (\"0+2\") вне пределов",
        ),
        (
            with("serial = \"01025\"", "serial = \"0 1\""),
            "доска 2: serial \"0 1\" — не серийный номер DGT",
        ),
        (
            with("number = 2", "number = 1"),
            "номер доски 1 указан дважды",
        ),
        (
            with("round = 3", "rund = 3"),
            "неизвестный ключ `rund`; допустимые ключи: `name`",
        ),
        (
            with("round = 3", "round = 0"),
            "event.round = 0 вне допустимых пределов",
        ),
    ] {
        let e = parse(&text).unwrap_err();
        let english = e.to_string();
        let said = e.message(ru);
        let place = |s: &str| s.splitn(4, ':').take(3).collect::<Vec<_>>().join(":");
        assert_eq!(place(&said), place(&english), "{said}");
        assert!(said.contains(russian), "{russian:?} not in {said:?}");
        assert!(!said.contains('⟪'), "{said}");
        assert_eq!(e.message(Messages::strict(Language::En)), english);
    }
    let e = parse(&with("\"180+2\"", "\"40/5400+x\"")).unwrap_err();
    let ConfigError::Invalid {
        said: Some(said), ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert!(e
        .to_string()
        .ends_with(&said.say(Messages::strict(Language::En))));
    // Several mistakes: counted with Russian plurals, each at its place.
    let two = parse(&with("round = 3", "round = 0\nrund = 1")).unwrap_err();
    let said = two.message(ru);
    assert!(said.starts_with("/etc/dgt/cfg.toml: 2 ошибки\n"), "{said}");
    assert_eq!(said.lines().count(), 3, "{said}");
}
