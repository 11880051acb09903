use super::*;
use chess_rules::Square;

/// The server's frames of the real capture (LiveChess 2 with a physical board), in order.
fn capture_replies() -> Vec<String> {
    crate::capture_lines()
        .into_iter()
        .filter(|l| l.starts_with("{\"response\""))
        .collect()
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// A field update as (square, what it holds now), reading the board normally.
fn field(e: &BoardEvent) -> Option<(Square, Option<chess_rules::Piece>)> {
    match e {
        BoardEvent::Field(f) => Some((f.square(Orientation::Normal), f.piece.piece())),
        _ => None,
    }
}

#[test]
fn the_real_capture_becomes_the_events_of_a_serial_board() {
    let mut f = Follower::new("23946");
    let sent = f.open();
    let v: Value = serde_json::from_str(&sent[0]).unwrap();
    assert_eq!(v["call"], "subscribe");
    assert_eq!(v["param"]["feed"], "eboardevent");
    assert_eq!(v["param"]["param"]["serialnr"], "23946");
    // The capture's subscribe was request 2: answer it as ours.
    let replies: Vec<String> = capture_replies()
        .into_iter()
        .map(|r| r.replace("\"id\":2,", &format!("\"id\":{},", v["id"])))
        .collect();
    assert_eq!(replies.len(), 9, "eboards, subscribe, 7 feed messages");
    let mut events = Vec::new();
    for r in &replies {
        let got = f.receive(r);
        assert_eq!(got.error, None, "{r}");
        events.extend(got.events);
    }
    assert!(
        matches!(&events[0], BoardEvent::Connected { serial: Some(s), .. } if s == "23946"),
        "{:?}",
        events[0]
    );
    let BoardEvent::Dump { board } = &events[1] else {
        panic!("a dump after connecting: {:?}", events[1]);
    };
    let mut shown = *board;
    assert_eq!(shown.placement(Orientation::Normal), Placement::start());
    let fields: Vec<_> = events[2..].iter().map(|e| field(e).unwrap()).collect();
    let w = |r| Some(chess_rules::Piece::new(chess_rules::Color::White, r));
    let b = |r| Some(chess_rules::Piece::new(chess_rules::Color::Black, r));
    use chess_rules::Role::{Knight, Pawn};
    assert_eq!(
        fields,
        vec![
            // ...e7-e5 came as one message: the lift first.
            (sq("e7"), None),
            (sq("e5"), b(Pawn)),
            (sq("e2"), None),
            (sq("e4"), w(Pawn)),
            (sq("g1"), None),
            (sq("f3"), w(Knight)),
            (sq("b8"), None),
        ]
    );
    for e in &events[2..] {
        if let BoardEvent::Field(u) = e {
            shown.apply(*u);
        }
    }
    assert_eq!(
        shown.placement(Orientation::Normal).fen_field(),
        "r1bqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
    );
    // The same state again (another field changed): no event.
    let again = replies
        .last()
        .unwrap()
        .replace("1587948138581", "1587948138999");
    assert_eq!(f.receive(&again), Received::default());
}

#[test]
fn a_merged_capture_lifts_both_squares_before_placing() {
    let mut f = Follower::new("7");
    f.open();
    let feed = |board: &str| {
        format!(
            r#"{{"response":"feed","id":1,"param":{{"serialnr":"7","flipped":false,"board":"{board}"}},"time":1}}"#
        )
    };
    f.receive(&feed("rnbqkbnr/pppp1ppp/8/4p3/3P4/8/PPP1PPPP/RNBQKBNR"));
    // exd4 in one message: e5 emptied, d4 from a white to a black pawn.
    let got = f.receive(&feed("rnbqkbnr/pppp1ppp/8/8/3p4/8/PPP1PPPP/RNBQKBNR"));
    let fields: Vec<_> = got.events.iter().map(|e| field(e).unwrap()).collect();
    let black_pawn = Some(chess_rules::Piece::new(
        chess_rules::Color::Black,
        chess_rules::Role::Pawn,
    ));
    assert_eq!(
        fields,
        vec![(sq("d4"), None), (sq("e5"), None), (sq("d4"), black_pawn)]
    );
}

#[test]
fn bad_frames_say_what_is_wrong_and_lose_nothing_silently() {
    let start = r#"{"response":"feed","id":1,"param":{"serialnr":"7","flipped":false,"board":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR","clock":null},"time":1}"#;
    let cases: &[(&str, &str, bool)] = &[
        ("{oops", "not JSON", true),
        ("[1]", "not an array", true),
        (r#"{"id":1}"#, "no \"response\"", true),
        (r#"{"response":"feed","id":1}"#, "no \"param\"", true),
        (
            r#"{"response":"feed","id":1,"param":{"board":"rnbqkbnr/ppp"}}"#,
            "\"rnbqkbnr/ppp\" is not a FEN placement",
            true,
        ),
        (
            r#"{"response":"feed","id":1,"param":{"board":7}}"#,
            "a string is expected, not a number",
            true,
        ),
        (
            r#"{"response":"error","id":1,"param":{"message":"no e-board \"7\" here"}}"#,
            "refused the subscription to e-board 7: no e-board",
            false,
        ),
    ];
    for (text, words, lost) in cases {
        let mut f = Follower::new("7");
        f.open();
        assert!(f.receive(start).error.is_none());
        assert!(f.is_connected());
        let got = f.receive(text);
        let e = got.error.unwrap_or_else(|| panic!("{text}: no error"));
        assert!(e.to_string().contains(words), "{text}: {e}");
        // A frame that may have carried a change: the board is disconnected until the
        // next full state, which comes back as Connected and a Dump.
        assert_eq!(
            matches!(got.events.as_slice(), [BoardEvent::Disconnected { reason }] if reason.contains(words)),
            *lost,
            "{text}: {:?}",
            got.events
        );
        if *lost {
            let ask: Value = serde_json::from_str(&f.resync()[0]).unwrap();
            assert_eq!(ask["call"], "subscribe");
            let back = f.receive(start).events;
            assert!(matches!(back[0], BoardEvent::Connected { .. }), "{back:?}");
            assert!(matches!(back[1], BoardEvent::Dump { .. }), "{back:?}");
        }
    }
    // The first message without a board: nothing to show.
    let mut f = Follower::new("7");
    f.open();
    let got = f.receive(r#"{"response":"feed","id":1,"param":{"serialnr":"7"}}"#);
    assert_eq!(got.error, Some(FrameError::NoBoard));
    // Other feeds, other calls' answers and errors: nothing.
    let mut f = Follower::new("7");
    f.open();
    f.receive(start);
    for other in [
        r#"{"response":"feed","id":2,"param":{"board":"8/8/8/8/8/8/8/8"}}"#,
        r#"{"response":"call","id":99,"param":[]}"#,
        r#"{"response":"error","id":99,"param":{"message":"x"}}"#,
        r#"{"response":"feed","id":1,"param":{"serialnr":"7","clock":{"white":1,"black":2,"run":true,"time":5}}}"#,
    ] {
        assert_eq!(f.receive(other), Received::default(), "{other}");
    }
    // The connection closes: one Disconnected, then nothing more to say.
    assert!(matches!(
        f.closed("connection lost"),
        Some(BoardEvent::Disconnected { .. })
    ));
    assert_eq!(f.closed("again"), None);
}

#[test]
fn source_urls() {
    let u: SourceUrl = "livechess://hall-pc.local:1982/23946".parse().unwrap();
    assert_eq!(
        u,
        SourceUrl {
            host: "hall-pc.local".into(),
            port: 1982,
            serialnr: "23946".into()
        }
    );
    assert_eq!(u.websocket(), "ws://hall-pc.local:1982/api/v1.0");
    assert_eq!(u.to_string(), "livechess://hall-pc.local:1982/23946");
    let u: SourceUrl = "livechess://10.0.0.5/1".parse().unwrap();
    assert_eq!(u.port, DEFAULT_PORT);
    let u: SourceUrl = "livechess://[::1]:2000/1".parse().unwrap();
    assert_eq!((u.host.as_str(), u.port), ("::1", 2000));
    assert_eq!(u.websocket(), "ws://[::1]:2000/api/v1.0");
    for (bad, words) in [
        ("ws://x:1982/1", "livechess://"),
        ("livechess://x:1982", "SERIALNR"),
        ("livechess://x:1982/", "serial number"),
        ("livechess://x:1982/a/b", "serial number"),
        ("livechess://x:0/1", "port"),
        ("livechess://x:99999/1", "port"),
        ("livechess://:1982/1", "host"),
        ("livechess://a b/1", "host"),
        ("livechess://[::1/1", "]"),
    ] {
        let e = bad.parse::<SourceUrl>().unwrap_err();
        assert!(e.to_string().contains(words), "{bad}: {e}");
    }
}

#[test]
fn reconnects_back_off_and_start_again_after_a_success() {
    let mut r = Reconnect::default();
    let waits: Vec<u64> = (0..8).map(|_| r.failed()).collect();
    assert_eq!(waits, [250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
    r.succeeded();
    assert_eq!(r.failed(), Reconnect::MIN_MS);
}
