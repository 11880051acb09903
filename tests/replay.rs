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

/// A capture cut in the middle of its last line (the recorder crashed): a warning naming
/// the file and the line, the events before it printed, exit code 0.
#[test]
fn a_torn_last_line_is_warned_about_and_the_records_before_it_replayed() {
    let dir = std::env::temp_dir().join(format!("dgt-replay-torn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let whole = captures().swap_remove(0);
    let mut bytes = std::fs::read(&whole).unwrap();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    bytes.extend_from_slice(b"999999999 < 8e 00 0");
    let torn = dir.join("torn.dgtcap");
    std::fs::write(&torn, &bytes).unwrap();
    let expected = replay(&["--fast"], &[whole]);
    assert!(expected.status.success(), "{expected:?}");
    let got = replay(&["--fast"], std::slice::from_ref(&torn));
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(got.status.success(), "{stderr}");
    assert!(
        stderr.contains("torn.dgtcap") && stderr.contains(&format!("line {}", lines + 1)),
        "{stderr}"
    );
    assert!(got.stdout == expected.stdout, "the events before it");
    // A bad line in the middle is still an error.
    bytes.splice(0..0, b"12x < 8e00053400\n".iter().copied());
    std::fs::write(&torn, &bytes).unwrap();
    assert!(!replay(&["--fast"], &[torn]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}
