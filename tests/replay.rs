//! `dgt-arbiter replay --fast` end to end on the repository's emulator captures: the
//! boards shared among threads give the events of one thread, byte for byte, and a
//! capture that cannot go on stops every thread's output where one thread stops.

use std::path::PathBuf;
use std::process::{Command, Output};

fn replay(args: &[&str], captures: &[PathBuf]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .arg("replay")
        .args(args)
        .args(captures)
        .output()
        .expect("run dgt-arbiter")
}

fn captures() -> Vec<PathBuf> {
    ["short", "promotion-turned", "castling"]
        .iter()
        .map(|n| test_data::emulator_capture(&format!("lichess-{n}.dgtcap")))
        .collect()
}

#[test]
fn threads_print_the_events_of_one_thread() {
    let caps = captures();
    let one = replay(&["--fast", "--threads", "1"], &caps);
    assert!(one.status.success(), "{one:?}");
    let text = String::from_utf8_lossy(&one.stdout);
    let moves = text
        .lines()
        .filter(|l| l.contains(r#""kind":"move""#))
        .count();
    assert!(moves > 50, "{moves} moves:\n{text}");
    for threads in ["2", "3", "8"] {
        let many = replay(&["--fast", "--threads", threads], &caps);
        assert!(many.status.success(), "{many:?}");
        assert!(
            many.stdout == one.stdout,
            "{threads} threads printed otherwise"
        );
    }
    // The default: one thread per CPU.
    assert!(replay(&["--fast"], &caps).stdout == one.stdout);
}

#[test]
fn a_bad_line_stops_every_thread_where_one_thread_stops() {
    let dir = std::env::temp_dir().join(format!("dgt-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut caps = captures();
    // The first capture breaks in its middle; the others go on after that time.
    let mut bytes = std::fs::read(&caps[0]).unwrap();
    let middle = bytes.len() / 2;
    let cut = middle + bytes[middle..].iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.splice(cut..cut, b"12x < 8e00053400\n".iter().copied());
    let broken = dir.join("broken.dgtcap");
    std::fs::write(&broken, bytes).unwrap();
    caps[0] = broken;
    let one = replay(&["--fast", "--threads", "1"], &caps);
    assert!(!one.status.success());
    let stderr = String::from_utf8_lossy(&one.stderr);
    assert!(
        stderr.contains("broken") && stderr.contains("line"),
        "{stderr}"
    );
    let all = replay(&["--fast"], &captures());
    assert!(
        one.stdout.len() < all.stdout.len(),
        "the error did not stop the replay"
    );
    for threads in ["2", "3"] {
        let many = replay(&["--fast", "--threads", threads], &caps);
        assert_eq!(many.status.code(), one.status.code());
        assert!(
            many.stdout == one.stdout,
            "{threads} threads printed otherwise"
        );
        assert_eq!(many.stderr, one.stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn threads_are_for_fast_replays_and_at_least_one() {
    let caps = captures();
    let out = replay(&["--threads", "2"], &caps);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fast"));
    let out = replay(&["--fast", "--threads", "0"], &caps);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threads"));
}
