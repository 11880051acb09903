//! The pack as a whole, from small hand-made daemon files.

use serde_json::Value;

use super::*;

const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
/// 2025-06-12T19:00:00.000Z, the journal's and the recording's epoch.
const EPOCH: u64 = 1_749_754_800_000;

fn framed(object: &str) -> String {
    let body = object.strip_suffix('}').unwrap();
    format!(
        "{body},\"crc32\":\"{:08x}\"}}\n",
        crc32fast::hash(body.as_bytes())
    )
}

fn events() -> String {
    [
        format!(
            r#"{{"board":"1","round":2,"seq":1,"kind":"move","t_ms":10000,"at":"2025-06-12T19:00:10.000Z","ply":1,"color":"white","uci":"e2e4","san":"e4","fen":"{E4}","clock_ms":{{"white":300000,"black":300000}},"touches":[{{"t_ms":9000,"square":"e2","piece":"P","action":"lift"}},{{"t_ms":9300,"square":"e4","piece":"P","action":"place"}}]}}"#
        ),
        format!(
            r#"{{"board":"1","round":2,"seq":2,"kind":"illegal_move","t_ms":20000,"at":"2025-06-12T19:00:20.000Z","ply":2,"color":"black","category":"piece_movement","attempt":{{"from":"b8","to":"b6","piece":"n"}},"count":1,"restore_fen":"{E4}","restore":[],"must_move":"b8","penalty":{{"add_ms":120000,"to":"white"}},"clock_before":{{"white":290000,"black":280000}},"clock_after":{{"white":410000,"black":280000}}}}"#
        ),
        format!(
            r#"{{"board":"1","round":2,"seq":3,"kind":"restored","t_ms":25000,"at":"2025-06-12T19:00:25.000Z","fen":"{E4}"}}"#
        ),
        r#"{"board":"2","round":2,"seq":1,"kind":"board_status","status":"connected","at":"2025-06-12T19:00:00.000Z"}"#.to_owned(),
        r#"{"board":"1","round":2,"seq":4,"kind":"move","t_ms":300000,"at":"2025-06-12T19:05:00.000Z","ply":2,"color":"black","uci":"b8c6","san":"Nc6","fen":"r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2","clock_ms":null}"#.to_owned(),
    ]
    .iter()
    .map(|l| framed(l))
    .collect()
}

fn journal() -> String {
    [
        format!(r#"{{"journal":2,"board":"1","round":2,"epoch_unix_ms":{EPOCH},"rules":""}}"#),
        r#"{"event":{"t_ms":19000,"event":{"kind":"clock","white_ms":290000,"black_ms":281000}}}"#
            .to_owned(),
        r#"{"event":{"t_ms":200000,"event":{"kind":"clock","white_ms":200000,"black_ms":200000}}}"#
            .to_owned(),
        r#"{"analysis":{"id":1,"answer":"yes"}}"#.to_owned(),
    ]
    .iter()
    .map(|l| framed(l))
    .collect()
}

fn capture() -> String {
    format!(
        "# dgtcap 1\n# board: 1\n# timestamps: ms since the driver's epoch (unix ms {EPOCH})\n\
         19500 < 8e 00 05 24 01\n200000 < 8e 00 05 34 00\n"
    )
}

fn request<'a>(events: &'a str, journal: &'a str, cap: &'a str, ply: u32) -> Request<'a> {
    Request {
        board: "1",
        round: Some(2),
        ply,
        around_ms: 60_000,
        events: Input {
            name: "events.jsonl",
            bytes: events.as_bytes(),
        },
        journal: Some(Input {
            name: "journal/round-2/board-1.jsonl",
            bytes: journal.as_bytes(),
        }),
        recordings: vec![Input {
            name: "1-1749754800000.dgtcap",
            bytes: cap.as_bytes(),
        }],
        generated_unix_ms: EPOCH + 3_600_000,
    }
}

fn file<'a>(pack: &'a Pack, name: &str) -> &'a str {
    let f = pack
        .files
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no {name}"));
    std::str::from_utf8(&f.bytes).unwrap()
}

#[test]
fn a_ruling_makes_a_pack_whose_manifest_hashes_every_file() {
    let (ev, jo, cap) = (events(), journal(), capture());
    let pack = build(&request(&ev, &jo, &cap, 2)).unwrap();
    assert!(pack.warnings.is_empty(), "{:?}", pack.warnings);
    let manifest: Value = serde_json::from_str(file(&pack, "manifest.json")).unwrap();
    let listed: Vec<(&str, &str)> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap(), f["sha256"].as_str().unwrap()))
        .collect();
    assert_eq!(
        listed.len(),
        pack.files.len() - 1,
        "all but the manifest itself"
    );
    for f in pack.files.iter().filter(|f| f.name != "manifest.json") {
        let hash = listed.iter().find(|(n, _)| *n == f.name).map(|(_, h)| *h);
        assert_eq!(hash, Some(sha256_hex(&f.bytes).as_str()), "{}", f.name);
    }
    assert_eq!(manifest["about"]["kind"], "illegal_move");
    assert_eq!(manifest["times"]["at"], "2025-06-12T19:00:20.000Z");
    assert_eq!(manifest["times"]["window_from"], "2025-06-12T18:59:20.000Z");
    assert!(manifest["times"]["clock_source"]
        .as_str()
        .unwrap()
        .contains("system clock"));

    // The window: the move before, the ruling, the board restored; not board 2, not the
    // move 4:40 later, but its ply's move all the same (it is at the ply).
    let events = file(&pack, "events.jsonl");
    let seqs: Vec<u64> = events
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["seq"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert!(
        ev.contains(events.lines().nth(1).unwrap()),
        "verbatim lines"
    );
    let ruling: Value = serde_json::from_str(file(&pack, "ruling.json")).unwrap();
    assert_eq!(ruling["ruling"]["category"], "piece_movement");
    assert_eq!(ruling["followed_by"][0]["kind"], "restored");

    let touches: Vec<Value> = file(&pack, "touches.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(touches.len(), 2);
    assert_eq!(touches[0]["at"], "2025-06-12T19:00:09.000Z");
    assert_eq!(touches[1]["square"], "e4");

    // Clocks: the move's, the ruling's two, the journal's frame in the window.
    let clocks = file(&pack, "clocks.jsonl");
    assert_eq!(clocks.lines().count(), 4, "{clocks}");
    assert!(clocks.contains("\"source\":\"journal\"") && clocks.contains("281000"));
    assert!(!clocks.contains("200000"), "the frame outside the window");
    let journal = file(&pack, "journal.jsonl");
    assert_eq!(
        journal.lines().count(),
        2,
        "the header and one record: {journal}"
    );

    let cap_span = file(&pack, "capture-1-1749754800000.dgtcap");
    assert!(cap_span.contains("19500 < 8e 00 05 24 01"));
    assert!(!cap_span.contains("200000 <"));

    let svgs: Vec<&PackFile> = pack
        .files
        .iter()
        .filter(|f| f.name.ends_with(".svg"))
        .collect();
    // Before ply 2, the knight on b6, after ply 1, after ply 2.
    assert_eq!(svgs.len(), 4);
    let knight = file(&pack, "position-02.svg");
    assert!(
        knight.contains("data-square=\"b6\" data-piece=\"n\""),
        "{knight}"
    );
    let page = file(&pack, "index.html");
    assert!(page.contains("piece_movement") && page.contains("position-02.svg"));
    assert!(page.contains("class=\"anchor\""));
}

#[test]
fn torn_lines_are_reported_and_the_rest_is_packed() {
    let ev = events();
    let torn = format!("{ev}{{\"board\":\"1\",\"kind\":\"mo");
    let jo = journal().replace("281000", "281001");
    let cap = format!("{}300000 < 8e", capture());
    let pack = build(&request(&torn, &jo, &cap, 2)).unwrap();
    let w = pack.warnings.join("\n");
    assert!(
        w.contains("events.jsonl: line 6") && w.contains("torn"),
        "{w}"
    );
    assert!(
        w.contains("board-1.jsonl: line 2") && w.contains("checksum"),
        "{w}"
    );
    assert!(w.contains("dgtcap: line 6"), "{w}");
    let manifest: Value = serde_json::from_str(file(&pack, "manifest.json")).unwrap();
    assert_eq!(
        manifest["warnings"].as_array().unwrap().len(),
        pack.warnings.len()
    );
    assert!(file(&pack, "index.html").contains("Left out"));
}

#[test]
fn a_missing_board_or_ply_is_an_error_naming_it() {
    let (ev, jo, cap) = (events(), journal(), capture());
    let mut req = request(&ev, &jo, &cap, 2);
    req.board = "9";
    let err = build(&req).unwrap_err().to_string();
    assert!(
        err.contains("board 9") && err.contains("boards in it: 1, 2"),
        "{err}"
    );
    let err = build(&request(&ev, &jo, &cap, 40)).unwrap_err().to_string();
    assert!(
        err.contains("ply 40") && err.contains("plies 1 to 2"),
        "{err}"
    );
    let err = build(&request("", &jo, &cap, 1)).unwrap_err().to_string();
    assert!(err.contains("holds no board"), "{err}");
}

#[test]
fn without_a_recording_or_journal_the_pack_says_so() {
    let ev = events();
    let mut req = request(&ev, "", "", 1);
    req.journal = None;
    req.recordings.clear();
    let pack = build(&req).unwrap();
    let w = pack.warnings.join("\n");
    assert!(
        w.contains("not recorded") && w.contains("no journal"),
        "{w}"
    );
    assert!(!pack.files.iter().any(|f| f.name.ends_with(".dgtcap")));
    let manifest: Value = serde_json::from_str(file(&pack, "manifest.json")).unwrap();
    assert_eq!(manifest["about"]["kind"], "move");
}
