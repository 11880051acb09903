use super::*;
use crate::view::{Eboard, EboardState, MoveView};
use serde_json::Value;

/// The JSON lines of the real capture, in order.
fn capture() -> Vec<String> {
    crate::capture_lines()
}

fn time_of(line: &str) -> u64 {
    let v: Value = serde_json::from_str(line).unwrap();
    v["time"].as_u64().unwrap()
}

fn state(board: &str, game: GameView) -> BoardState {
    BoardState {
        number: 1,
        eboard: Eboard {
            serialnr: "23946".into(),
            source: "COM3".into(),
            state: EboardState::Active,
            battery: Some(84),
            comment: None,
            board: board.into(),
            flipped: false,
            clock: None,
        },
        game,
    }
}

fn texts(out: Vec<Outgoing>) -> Vec<String> {
    out.into_iter()
        .map(|o| match o {
            Outgoing::Text(t) => t,
            Outgoing::Close(why) => panic!("closed: {why}"),
        })
        .collect()
}

/// The capture's session replayed against a session fed the same board states: every
/// reply and feed message is the capture's, byte for byte (its own times passed in).
#[test]
fn the_real_capture_is_answered_byte_for_byte() {
    let lines = capture();
    assert_eq!(lines.len(), 11, "{lines:#?}");
    let mut session = Session::new();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let boards = [state(start, GameView::start(1))];

    // eboards
    let out = texts(session.receive(&lines[0], &boards, time_of(&lines[1])));
    assert_eq!(out, [lines[1].clone()]);

    // subscribe: the reply, then the full state (its own time).
    let out = session.receive(&lines[2], &boards, time_of(&lines[3]));
    let out = texts(out);
    assert_eq!(out[0], lines[3]);
    let v: Value = serde_json::from_str(&out[1]).unwrap();
    let mut want: Value = serde_json::from_str(&lines[4]).unwrap();
    want["time"] = v["time"].clone();
    assert_eq!(v, want);
    // Field order too: rebuilt with the capture's time, the same text.
    let mut sub = Subscription::new(Id::Number(1.into()), 1);
    assert_eq!(
        sub.update(&boards[0], time_of(&lines[4])).unwrap(),
        lines[4]
    );

    // Each physical change: the placement only, as captured.
    for line in &lines[5..] {
        let v: Value = serde_json::from_str(line).unwrap();
        let board = v["param"]["board"].as_str().unwrap();
        let now = [state(board, GameView::start(1))];
        let out = session.refresh(&now, time_of(line));
        assert_eq!(out, std::slice::from_ref(line));
        // The same state again: nothing to say.
        assert!(session.refresh(&now, time_of(line) + 1).is_empty());
    }
}

fn mv(san: &str, uci: &str) -> MoveView {
    MoveView {
        san: san.into(),
        uci: uci.parse().unwrap(),
        clock_s: None,
    }
}

fn game(moves: &[(&str, &str)]) -> GameView {
    let mut g = GameView::start(1);
    g.moves = moves.iter().map(|(s, u)| mv(s, u)).collect();
    g
}

fn param(text: &str) -> Value {
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v["response"], "feed");
    v["param"].clone()
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn after_a_setup_every_message_carries_the_cumulative_san_list() {
    let mut sub = Subscription::new(Id::Text("f".into()), 1);
    let placement = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    let first = param(&sub.update(&state(placement, game(&[])), 1).unwrap());
    assert!(first.get("san").is_none(), "no san before a setup: {first}");
    assert_eq!(first["clock"], Value::Null);

    sub.setup(START).unwrap();
    let p = param(&sub.update(&state(placement, game(&[])), 2).unwrap());
    assert_eq!(p["san"], serde_json::json!([]));
    assert!(
        p.get("board").is_none(),
        "unchanged fields are left out: {p}"
    );

    // A lift: the board changes, the list does not (and is sent again).
    let lifted = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR";
    let p = param(&sub.update(&state(lifted, game(&[])), 3).unwrap());
    assert_eq!(
        (p["board"].as_str(), &p["san"]),
        (Some(lifted), &serde_json::json!([]))
    );
    let g = game(&[("e4", "e2e4"), ("e5", "e7e5")]);
    let p = param(&sub.update(&state("x", g.clone()), 4).unwrap());
    assert_eq!(p["san"], serde_json::json!(["e4", "e5"]));
    assert!(sub.update(&state("x", g), 5).is_none(), "nothing changed");

    // A setup mid-game: the list starts where the FEN stands.
    let mut late = Subscription::new(Id::Number(2.into()), 1);
    late.setup("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2")
        .unwrap();
    let g = game(&[("e4", "e2e4"), ("e5", "e7e5"), ("Nf3", "g1f3")]);
    assert_eq!(
        param(&late.update(&state("x", g), 6).unwrap())["san"],
        serde_json::json!(["Nf3"])
    );
}

#[test]
fn amended_or_taken_back_moves_and_a_new_game_give_a_new_consistent_list() {
    let mut sub = Subscription::new(Id::Number(1.into()), 1);
    sub.setup(START).unwrap();
    let san = |sub: &mut Subscription, g: GameView, t: u64| {
        sub.update(&state(&t.to_string(), g), t)
            .map(|m| param(&m)["san"].clone())
    };
    let s = san(&mut sub, game(&[("e4", "e2e4"), ("e6", "e7e6")]), 1);
    assert_eq!(s, Some(serde_json::json!(["e4", "e6"])));
    // The slider registered part way: e6 became e5.
    let s = san(&mut sub, game(&[("e4", "e2e4"), ("e5", "e7e5")]), 2);
    assert_eq!(s, Some(serde_json::json!(["e4", "e5"])));
    let s = san(&mut sub, game(&[("e4", "e2e4")]), 3);
    assert_eq!(s, Some(serde_json::json!(["e4"])));
    // The board set up again: game 2, searched from its start.
    let mut g2 = game(&[("d4", "d2d4")]);
    g2.number = 2;
    assert_eq!(san(&mut sub, g2, 4), Some(serde_json::json!(["d4"])));
    // A position the game never reaches: an empty list, no invented moves.
    let mut other = Subscription::new(Id::Number(3.into()), 1);
    other.setup("8/8/8/8/8/8/8/K6k w - - 0 1").unwrap();
    let s = san(&mut other, game(&[("e4", "e2e4")]), 5);
    assert_eq!(s, Some(serde_json::json!([])));
    // A repeated position keeps its first anchor: the list never shrinks by itself.
    let mut rep = Subscription::new(Id::Number(4.into()), 1);
    rep.setup(START).unwrap();
    let knights = [
        ("Nf3", "g1f3"),
        ("Nf6", "g8f6"),
        ("Ng1", "f3g1"),
        ("Ng8", "f6g8"),
    ];
    assert_eq!(
        san(&mut rep, game(&knights[..2]), 6),
        Some(serde_json::json!(["Nf3", "Nf6"]))
    );
    let s = san(&mut rep, game(&knights), 7).unwrap();
    assert_eq!(s.as_array().unwrap().len(), 4, "{s}");
}

#[test]
fn bad_requests_get_an_error_reply_and_a_flood_closes() {
    let mut session = Session::new();
    let boards = [state("8/8/8/8/8/8/8/8", game(&[]))];
    let out = texts(session.receive("{\"id\":5,\"call\":\"subscribe\",\"param\":{\"feed\":\"eboardevent\",\"id\":1,\"param\":{\"serialnr\":\"999\"}}}", &boards, 1));
    let v: Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!(
        (v["response"].as_str(), v["id"].as_u64()),
        (Some("error"), Some(5))
    );
    assert!(
        v["param"]["message"].as_str().unwrap().contains("23946"),
        "{v}"
    );
    // Setup on a feed not subscribed, a bad FEN.
    let out = texts(session.receive(
        r#"{"id":6,"call":"call","param":{"id":9,"method":"setup","param":{"fen":"x"}}}"#,
        &boards,
        1,
    ));
    assert!(out[0].contains("subscribe first"), "{out:?}");
    // By board number.
    let out = texts(session.receive(r#"{"id":7,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"1"}}}"#, &boards, 1));
    assert_eq!(out.len(), 2);
    let out = texts(session.receive(
        r#"{"id":8,"call":"call","param":{"id":1,"method":"setup","param":{"fen":"xx/8 w"}}}"#,
        &boards,
        1,
    ));
    assert!(out[0].contains("placement"), "{out:?}");
    assert_eq!(session.boards().collect::<Vec<_>>(), [1]);
    // A good request resets the count; garbage in a row closes.
    assert_eq!(
        texts(session.receive(r#"{"id":10,"call":"eboards"}"#, &boards, 1)).len(),
        1
    );
    for i in 1..MAX_BAD_IN_A_ROW {
        let out = session.receive("garbage", &boards, 1);
        assert_eq!(out.len(), 1, "bad request {i} is answered, not closed");
    }
    let out = session.receive("garbage", &boards, 1);
    assert!(matches!(out.last(), Some(Outgoing::Close(_))), "{out:?}");
    let out = texts(session.receive(
        r#"{"id":9,"call":"unsubscribe","param":{"id":1}}"#,
        &boards,
        1,
    ));
    assert_eq!(out, [r#"{"response":"call","id":9,"param":null,"time":1}"#]);
    assert_eq!(session.boards().count(), 0);
}
