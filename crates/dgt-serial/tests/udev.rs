//! The udev rules in `udev/`: what they match (checked on their text), and that udev
//! parses them without a complaint:
//! - `udevadm verify` (systemd 253 and later) checks the files directly, where it exists;
//! - otherwise, as root, `udevadm test` (systemd 252, Debian 12) loads every rules file
//!   from /etc/udev/rules.d, where the test puts copies under unique names (removed
//!   afterwards), and reports each bad line as `FILE:LINE message`. A deliberately broken
//!   file proves that the check sees errors.
//!
//! Without `udevadm` (package `udev`) these two checks say so and pass, unless
//! `DGT_REQUIRE_UDEVADM=1`, which CI sets once it installs `udev`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn udev_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../udev")
}

fn read(name: &str) -> String {
    let path = udev_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rule lines (comments and blank lines dropped).
fn rules(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
fn the_generic_ftdi_id_never_matches_alone() {
    for name in ["70-dgt-boards.rules", "69-dgt-ftdi-local.rules.example"] {
        let text = read(name);
        let ftdi: Vec<&str> = rules(&text)
            .into_iter()
            .filter(|l| l.contains("\"6001\""))
            .collect();
        assert!(!ftdi.is_empty(), "{name} handles the FTDI boards");
        for line in ftdi {
            assert!(line.contains("ATTRS{idVendor}==\"0403\""), "{name}: {line}");
            assert!(
                line.contains("ATTRS{product}==\"*DGT*\"") || line.contains("ATTRS{serial}==\""),
                "{name}: the FTDI id needs another attribute: {line}"
            );
            assert!(
                !line.contains("SYMLINK") && !line.contains("GROUP"),
                "{name}: FTDI lines only mark the device: {line}"
            );
        }
    }
}

#[test]
fn names_and_permissions_only_after_the_dgt_gate() {
    let text = read("70-dgt-boards.rules");
    let lines = rules(&text);
    let gate = lines
        .iter()
        .position(|l| *l == "ENV{DGT_BOARD}!=\"1\", GOTO=\"dgt_end\"")
        .expect("the gate");
    for (i, l) in lines.iter().enumerate() {
        let acts = l.contains("SYMLINK") || l.contains("GROUP=") || l.contains("MODE=");
        assert!(!acts || i > gate, "before the gate: {l}");
    }
    assert!(lines.iter().any(|l| l.contains("SYMLINK+=\"dgt/board-")));
    assert!(lines.iter().any(|l| l.contains("SYMLINK+=\"dgt/port-")));
    assert!(lines.iter().any(|l| l.contains("GROUP=\"dialout\"")));
    assert!(lines
        .iter()
        .any(|l| l.contains("ATTRS{idVendor}==\"045b\"")));
    assert_eq!(lines.last(), Some(&"LABEL=\"dgt_end\""));
    // Every GOTO has its label.
    for l in &lines {
        if let Some(rest) = l.split("GOTO=\"").nth(1) {
            let label = rest.split('"').next().unwrap();
            assert!(
                lines.contains(&format!("LABEL=\"{label}\"").as_str()),
                "{l}"
            );
        }
    }
}

fn udevadm_available() -> bool {
    let found = Command::new("udevadm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("DGT_REQUIRE_UDEVADM").is_none(),
            "DGT_REQUIRE_UDEVADM is set but udevadm is missing (apt-get install -y udev)"
        );
        eprintln!("udevadm not found (package udev): udev parse check not run");
    }
    found
}

const BROKEN: &str = "SUBSYSTEM==\"tty\", NOT_A_KEY==\"x\", GOTO=\"dgt_end\"\n\
                      ATTRS{idVendor}=\"045b\"\nLABEL=\"dgt_end\"\n";

#[test]
fn udevadm_verify_accepts_the_rules_where_it_exists() {
    if !udevadm_available() {
        return;
    }
    let has_verify = Command::new("udevadm")
        .args(["verify", "--help"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_verify {
        eprintln!(
            "this udevadm has no `verify` (it came in systemd 253): see the udevadm test check"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("dgt-udev-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let example = dir.join("69-dgt-ftdi-local.rules");
    std::fs::write(&example, read("69-dgt-ftdi-local.rules.example")).unwrap();
    let broken = dir.join("72-broken.rules");
    std::fs::write(&broken, BROKEN).unwrap();
    let verify = |path: &Path| {
        Command::new("udevadm")
            .arg("verify")
            .arg(path)
            .output()
            .unwrap()
    };
    let good = verify(&udev_dir().join("70-dgt-boards.rules"));
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    let good = verify(&example);
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    assert!(
        !verify(&broken).status.success(),
        "verify must reject a broken file"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Removes the copied rules files, even when the test fails.
struct Installed(Vec<PathBuf>);

impl Drop for Installed {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[test]
fn udevadm_test_parses_the_rules_without_complaint() {
    // SAFETY: getuid has no preconditions.
    let root = unsafe { libc::getuid() } == 0;
    if !root {
        eprintln!("not root: the udevadm test check needs to write /etc/udev/rules.d");
        return;
    }
    if !udevadm_available() {
        return;
    }
    let rules_d = Path::new("/etc/udev/rules.d");
    std::fs::create_dir_all(rules_d).unwrap();
    let tag = std::process::id();
    let ours = rules_d.join(format!("70-dgt-boards-test-{tag}.rules"));
    let local = rules_d.join(format!("69-dgt-ftdi-local-test-{tag}.rules"));
    let broken = rules_d.join(format!("72-dgt-broken-test-{tag}.rules"));
    let _installed = Installed(vec![ours.clone(), local.clone(), broken.clone()]);
    std::fs::write(&ours, read("70-dgt-boards.rules")).unwrap();
    std::fs::write(&local, read("69-dgt-ftdi-local.rules.example")).unwrap();
    std::fs::write(&broken, BROKEN).unwrap();
    // Any tty will do: every rules file is parsed before the event runs.
    let out = Command::new("udevadm")
        .args(["test", "--action=add", "/sys/class/tty/tty0"])
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [&ours, &local] {
        let name = file.display().to_string();
        assert!(
            log.contains(&format!("Reading rules file: {name}")),
            "udev did not read {name}:\n{log}"
        );
        let complaints: Vec<&str> = log
            .lines()
            .filter(|l| l.starts_with(&format!("{name}:")))
            .collect();
        assert!(complaints.is_empty(), "{complaints:#?}");
    }
    // The check sees errors when there are some.
    let broken_name = broken.display().to_string();
    let complaints = log
        .lines()
        .filter(|l| l.starts_with(&format!("{broken_name}:")))
        .count();
    assert!(
        complaints >= 2,
        "the broken file's errors were not reported:\n{log}"
    );
}
