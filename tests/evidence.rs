//! `dgt-arbiter evidence` end to end (issue 40): the daemon run with `--record` on an
//! emulated board whose player makes an illegal move, stopped; then the evidence pack of
//! the ruling's ply, checked file by file: the manifest lists every file in the folder
//! with its SHA-256 (computed here), the events hold the ruling, the diagrams are SVG
//! with the pieces, the capture span has serial bytes. A board or ply that is not there
//! is a non-zero exit naming it; a torn last line of events.jsonl is reported and skipped.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::*;
use dgt_sim::hands::{Faults, IllegalKind, Irregularity};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Plies of the game played.
const PLIES: usize = 20;

/// `dgt-arbiter run --config PATH --record`, its stderr kept beside the config.
fn start_recording(config: &Path) -> DaemonProcess {
    let log = std::fs::File::create(config.with_extension("log")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(["run", "--record", "--config"])
        .arg(config)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map(DaemonProcess)
        .unwrap()
}

/// `dgt-arbiter evidence --config CFG ARGS...`.
fn evidence(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .arg("evidence")
        .arg("--config")
        .arg(config)
        .args(args)
        .output()
        .unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every file of a folder (no subfolders expected) and its bytes.
fn folder(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            assert!(e.file_type().unwrap().is_file(), "{:?}", e.path());
            (
                e.file_name().into_string().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The pack's `manifest.json`, checked: it lists every other file of the pack, each with
/// its size and its SHA-256 (computed here).
fn checked_manifest(files: &BTreeMap<String, Vec<u8>>) -> Value {
    let manifest: Value = serde_json::from_slice(&files["manifest.json"]).unwrap();
    let listed: BTreeMap<String, String> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["sha256"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let on_disk: Vec<&String> = files.keys().filter(|n| *n != "manifest.json").collect();
    assert_eq!(listed.keys().collect::<Vec<_>>(), on_disk, "{manifest:#}");
    for (name, hash) in &listed {
        assert_eq!(hash, &sha256(&files[name]), "{name}");
        assert_eq!(
            manifest["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["name"] == name.as_str())
                .unwrap()["bytes"],
            files[name].len(),
        );
    }
    manifest
}

#[test]
fn the_evidence_of_an_illegal_move_holds_its_events_diagrams_and_serial_bytes() {
    let _serial = serial();
    let dir = temp_dir("evidence");
    let s = script_with(
        0,
        40,
        vec![Irregularity::Illegal(IllegalKind::KnightWrong)],
        Some(PLIES),
        Faults::default(),
    );
    assert!(
        !s.injected.is_empty(),
        "no illegal move in the script: {:?}",
        s.skipped
    );
    let boards = Boards::serve(vec![s]);
    let cfg = config(&dir, &boards, "");
    let out = dir.join("out");
    let mut daemon = start_recording(&cfg);
    wait_events(
        &out,
        Duration::from_secs(180),
        "the ruling, restored",
        |ev| {
            let b = board_events(ev, 1);
            b.iter().any(|e| e["kind"] == "illegal_move")
                && b.iter().any(|e| e["kind"] == "restored")
        },
    );
    std::thread::sleep(Duration::from_secs(2));
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    let ev = events(&out);
    let ruling = board_events(&ev, 1)
        .into_iter()
        .find(|e| e["kind"] == "illegal_move")
        .cloned()
        .unwrap();
    let ply = ruling["ply"].as_u64().unwrap().to_string();
    eprintln!("the ruling: {ruling}");

    let pack = dir.join("pack");
    let run = evidence(
        &cfg,
        &["--board", "1", "--ply", &ply, "--around", "60s", "--out"],
    );
    assert!(!run.status.success(), "--out without a value");
    let run = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(["evidence", "--board", "1", "--ply", &ply, "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&pack)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // The manifest lists every other file of the folder, each SHA-256 right.
    let files = folder(&pack);
    let manifest = checked_manifest(&files);
    assert_eq!(manifest["about"]["kind"], "illegal_move");
    assert_eq!(manifest["about"]["at"], ruling["at"]);
    assert_eq!(manifest["times"]["zone"], "UTC");
    assert!(manifest["times"]["clock_source"]
        .as_str()
        .unwrap()
        .contains("clock"));

    // The events: the daemon's own line of the ruling, byte for byte.
    let events_text = String::from_utf8(files["events.jsonl"].clone()).unwrap();
    let daemon_events = std::fs::read_to_string(out.join("events.jsonl")).unwrap();
    let ruling_line = events_text
        .lines()
        .find(|l| l.contains("\"kind\":\"illegal_move\""))
        .expect("the ruling in events.jsonl");
    assert!(daemon_events.lines().any(|l| l == ruling_line));
    for l in events_text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["board"], "1", "{l}");
    }
    let ruling_json: Value = serde_json::from_slice(&files["ruling.json"]).unwrap();
    assert_eq!(ruling_json["ruling"]["category"], ruling["category"]);
    assert!(!files["touches.jsonl"].is_empty(), "no touch log");
    let clocks = String::from_utf8(files["clocks.jsonl"].clone()).unwrap();
    assert!(clocks.contains("\"source\":\"journal\""), "{clocks}");

    // The diagrams: SVG with the pieces; the illegal move's one among them.
    let svgs: Vec<(&String, String)> = files
        .iter()
        .filter(|(n, _)| n.ends_with(".svg"))
        .map(|(n, b)| (n, String::from_utf8(b.clone()).unwrap()))
        .collect();
    assert!(svgs.len() >= 3, "{:?}", files.keys());
    for (name, svg) in &svgs {
        assert!(svg.starts_with("<svg "), "{name}");
        assert!(svg.trim_end().ends_with("</svg>"), "{name}");
        let pieces = svg.matches("class=\"piece\"").count();
        assert!((2..=32).contains(&pieces), "{name}: {pieces} pieces");
        assert!(svg.contains("data-piece=\"K\"") && svg.contains("data-piece=\"k\""));
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    }
    let attempt = &ruling["attempt"];
    let played = format!(
        "data-square=\"{}\" data-piece=\"{}\"",
        attempt["to"].as_str().unwrap(),
        attempt["piece"].as_str().unwrap()
    );
    assert!(
        svgs.iter().any(|(_, s)| s.contains(&played)),
        "no diagram with {played}"
    );

    // The serial bytes of the window.
    let capture: Vec<&String> = files.keys().filter(|n| n.ends_with(".dgtcap")).collect();
    assert_eq!(capture.len(), 1, "{:?}", files.keys());
    let capture_name = capture[0].clone();
    let capture = String::from_utf8(files[&capture_name].clone()).unwrap();
    let records = capture
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    assert!(records.count() > 10, "{capture}");
    assert!(capture.contains("# evidence-span:"));
    // A capture of its own: `decode` reads it whole.
    let decoded = Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .arg("decode")
        .arg(pack.join(capture_name))
        .output()
        .unwrap();
    assert!(
        decoded.status.success(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );
    assert!(!decoded.stdout.is_empty());

    let page = String::from_utf8(files["index.html"].clone()).unwrap();
    assert!(
        page.contains("illegal_move") && page.contains("<svg "),
        "{page}"
    );

    // The same folder again: refused, nothing changed.
    let again = evidence(
        &cfg,
        &[
            "--board",
            "1",
            "--ply",
            &ply,
            "--out",
            pack.to_str().unwrap(),
        ],
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
    assert_eq!(folder(&pack), files);

    // A board or a ply that is not there: a non-zero exit naming it, no panic.
    for (args, want) in [
        (["--board", "9", "--ply", "3"], "board 9"),
        (["--board", "1", "--ply", "999"], "ply 999"),
    ] {
        let miss = dir.join(format!("miss-{}", args[1]));
        let mut a = args.to_vec();
        a.extend(["--out", miss.to_str().unwrap()]);
        let r = evidence(&cfg, &a);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success(), "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!miss.join("manifest.json").exists());
    }

    // A torn last line in events.jsonl (a daemon cut off mid-write): reported, skipped.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join("events.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"board\":\"1\",\"kind\":\"mo").unwrap();
    let torn = dir.join("pack-torn");
    let r = evidence(
        &cfg,
        &[
            "--board",
            "1",
            "--ply",
            &ply,
            "--out",
            torn.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(err.contains("torn"), "{err}");
    let m: Value =
        serde_json::from_slice(&std::fs::read(torn.join("manifest.json")).unwrap()).unwrap();
    assert!(m["warnings"].to_string().contains("torn"), "{m}");

    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert!(!log.contains("panicked"), "a panic");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tar -xf` of an archive's bytes into `into` (created): the files it held.
fn untar(archive: &[u8], into: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::create_dir_all(into).unwrap();
    let file = into.with_extension("tar");
    std::fs::write(&file, archive).unwrap();
    let run = Command::new("tar")
        .arg("-xf")
        .arg(&file)
        .arg("-C")
        .arg(into)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    folder(into)
}

/// The dashboard's evidence route (the button on an alert card, issue 40), while the
/// daemon runs: the same pack as the CLI's, as one `.tar` that `tar` unpacks into files
/// whose SHA-256 match its manifest; the token required; a missing ply, a missing board
/// and a bad query answered in JSON; a torn line the daemon's file ends in reported in
/// the pack, not an error.
#[test]
fn the_evidence_route_answers_the_pack_as_a_tar_while_the_daemon_runs() {
    let _serial = serial();
    let dir = temp_dir("evidence-route");
    let s = script_with(
        0,
        40,
        vec![Irregularity::Illegal(IllegalKind::KnightWrong)],
        Some(PLIES),
        Faults::default(),
    );
    assert!(!s.injected.is_empty(), "no illegal move: {:?}", s.skipped);
    let boards = Boards::serve(vec![s]);
    let cfg = config(&dir, &boards, "");
    let out = dir.join("out");
    let mut daemon = start_recording(&cfg);
    wait_events(&out, Duration::from_secs(180), "the ruling", |ev| {
        board_events(ev, 1)
            .iter()
            .any(|e| e["kind"] == "illegal_move")
    });
    let ev = events(&out);
    let ply = board_events(&ev, 1)
        .into_iter()
        .find(|e| e["kind"] == "illegal_move")
        .unwrap()["ply"]
        .as_u64()
        .unwrap();
    let route = format!("/api/boards/1/evidence?ply={ply}&around=60s");
    let token = token_header(&out);
    assert!(
        !token.is_empty(),
        "the daemon keeps its token in out/arbiter-token"
    );

    let got = http_get_with(&out, &route, &token);
    assert_eq!(got.status, 200, "{}", String::from_utf8_lossy(&got.body));
    assert_eq!(got.header("content-type"), Some("application/x-tar"));
    assert_eq!(
        got.header("content-disposition"),
        Some(format!("attachment; filename=\"board-1-ply-{ply}-evidence.tar\"").as_str())
    );
    let files = untar(&got.body, &dir.join("unpacked"));
    let manifest = checked_manifest(&files);
    assert_eq!(manifest["about"]["kind"], "illegal_move");
    assert_eq!(manifest["ply"], ply);
    assert!(files.contains_key("index.html") && files.contains_key("ruling.json"));
    assert!(
        files.keys().any(|n| n.ends_with(".dgtcap")),
        "the serial bytes: {:?}",
        files.keys()
    );

    // The CLI's pack of the same ply, from the same running daemon's files: the same files.
    let cli_pack = dir.join("cli-pack");
    let cli = evidence(
        &cfg,
        &[
            "--board",
            "1",
            "--ply",
            &ply.to_string(),
            "--out",
            cli_pack.to_str().unwrap(),
        ],
    );
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    assert_eq!(
        folder(&cli_pack).keys().collect::<Vec<_>>(),
        files.keys().collect::<Vec<_>>()
    );

    // Refusals, as JSON with their status; never a panic.
    let json = |a: &HttpAnswer| -> Value { serde_json::from_slice(&a.body).unwrap() };
    let no_token = http_get_with(&out, &route, "");
    assert_eq!(no_token.status, 401);
    assert!(json(&no_token)["error"].as_str().unwrap().contains("token"));
    let wrong = http_get_with(&out, &route, "X-Arbiter-Token: not-the-token-at-all\r\n");
    assert_eq!(wrong.status, 403);
    for (path, status, want) in [
        ("/api/boards/1/evidence?ply=999", 404, "ply 999"),
        ("/api/boards/9/evidence?ply=3", 404, "board \"9\""),
        ("/api/boards/1/evidence", 400, "which ply"),
        ("/api/boards/1/evidence?ply=3&around=5days", 400, "days"),
    ] {
        let a = http_get_with(&out, path, &token);
        assert_eq!(
            a.status,
            status,
            "{path}: {}",
            String::from_utf8_lossy(&a.body)
        );
        let why = json(&a)["error"].as_str().unwrap().to_owned();
        assert!(why.contains(want), "{path}: {why}");
    }

    // A last line torn (a write cut off): the pack is made and says it skipped it.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(out.join("events.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"board\":\"1\",\"kind\":\"mo").unwrap();
    let torn = http_get_with(&out, &route, &token);
    assert_eq!(torn.status, 200);
    let m = checked_manifest(&untar(&torn.body, &dir.join("unpacked-torn")));
    assert!(m["warnings"].to_string().contains("skipped"), "{m}");

    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    let log = std::fs::read_to_string(cfg.with_extension("log")).unwrap();
    assert!(!log.contains("panicked"), "a panic");
    assert!(
        log.contains("evidence pack downloaded"),
        "the route logs its answer"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
