//! `dgt-arbiter init`: probes emulated boards served on ptys and writes a config that
//! `run --check` accepts, names each board by its stable link, refuses to overwrite a file
//! without `--force`, and with no board writes an example board and says so.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::*;
use dgt_sim::{Emulator, EmulatorConfig, LineBehaviour, ServeOptions};

/// The binary with stdin closed: not a terminal, so `init` must ask nothing.
fn dgt_arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dgt-arbiter"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that the command succeeded and printed `wanted` (on stderr or stdout).
fn succeeded_saying(output: &Output, on_stderr: bool, wanted: &str) {
    assert!(output.status.success(), "{}", text(&output.stderr));
    let said = text(if on_stderr {
        &output.stderr
    } else {
        &output.stdout
    });
    assert!(said.contains(wanted), "wanted {wanted:?} in:\n{said}");
}

fn check(config: &Path) -> Output {
    dgt_arbiter(&["run", "--check", "--config", config.to_str().unwrap()])
}

#[test]
fn init_writes_one_board_per_board_found_by_its_stable_name() {
    let _one = serial();
    let dir = temp_dir("init-boards");
    let links = dir.join("links");
    std::fs::create_dir_all(&links).unwrap();
    let mut hub = dgt_sim::Hub::new().unwrap();
    let served: Vec<_> = [("01025", "board-01025"), ("31337", "board-31337")]
        .into_iter()
        .map(|(serial, link)| {
            hub.serve_pty(
                Emulator::new(EmulatorConfig {
                    serial: serial.into(),
                    ..EmulatorConfig::default()
                }),
                ServeOptions {
                    link: Some(links.join(link)),
                    ..ServeOptions::default()
                },
            )
            .unwrap()
        })
        .collect();
    // A modem on a third port: probed, no board.
    let modem = hub
        .serve_pty(
            Emulator::new(EmulatorConfig {
                behaviour: LineBehaviour::NotDgt {
                    reply: b"\r\nOK\r\n".to_vec(),
                },
                ..EmulatorConfig::default()
            }),
            ServeOptions::default(),
        )
        .unwrap();
    let out = dir.join("hall.toml");
    let ptys: Vec<String> = served
        .iter()
        .chain([&modem])
        // The ptys themselves (`path` is the link where there is one), as `probe` finds
        // them among the system's ports: init must name them by their links.
        .map(|h| {
            let pty = std::fs::canonicalize(h.path().unwrap()).unwrap();
            assert!(pty.starts_with("/dev/pts"), "{}", pty.display());
            pty.display().to_string()
        })
        .collect();
    let mut args = vec!["init", "--out", out.to_str().unwrap()];
    for pty in &ptys {
        args.extend(["--port", pty.as_str()]);
    }
    args.extend(["--stable-names", links.to_str().unwrap()]);
    args.extend(["--output-dir", "out", "--timeout-ms", "3000"]);
    succeeded_saying(&dgt_arbiter(&args), false, "with 2 board(s)");
    let written = std::fs::read_to_string(&out).unwrap();
    let port_lines: Vec<&str> = written.lines().filter(|l| l.starts_with("port")).collect();
    assert_eq!(
        port_lines,
        [
            format!("port = \"{}\"", links.join("board-01025").display()),
            format!("port = \"{}\"", links.join("board-31337").display()),
        ],
        "{written}"
    );
    assert!(
        written.contains("# DGT serial 31337, firmware"),
        "{written}"
    );
    let checked = check(&out);
    succeeded_saying(&checked, false, "ok (2 boards, 5400+30 standard, round 1)");
    assert_eq!(text(&checked.stderr), "", "no warning: the ports exist");

    // A second init leaves the file alone without --force, replaces it with it.
    std::fs::write(&out, "# the organiser's edits\n").unwrap();
    let again = dgt_arbiter(&args);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("exists; it is left as it is (--force replaces it)"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "# the organiser's edits\n"
    );
    args.push("--force");
    succeeded_saying(&dgt_arbiter(&args), false, "with 2 board(s)");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), written);
}

#[test]
fn init_without_boards_writes_an_example_board_and_says_so() {
    let _one = serial();
    let dir = temp_dir("init-none");
    let mut hub = dgt_sim::Hub::new().unwrap();
    let mute = hub
        .serve_pty(
            Emulator::new(EmulatorConfig {
                behaviour: LineBehaviour::Mute,
                ..EmulatorConfig::default()
            }),
            ServeOptions::default(),
        )
        .unwrap();
    let pty = mute.path().unwrap().display().to_string();
    let out = dir.join("club.toml");
    let init = dgt_arbiter(&[
        "init",
        "--out",
        out.to_str().unwrap(),
        "--port",
        &pty,
        "--timeout-ms",
        "1500",
    ]);
    succeeded_saying(&init, false, "no DGT board found among 1 port(s)");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains("dir = \"/var/lib/dgt-arbiter/club\""),
        "{written}"
    );
    assert!(written.contains("port = \"/dev/dgt/board-00000\""));
    // The placeholder port does not exist: a warning, and the check passes.
    succeeded_saying(&check(&out), true, "warning:");
}
