//! `probe` finds the emulated boards among ports, tells their serial number, version,
//! battery and clock, and names what is wrong with the ports that are no boards.

mod common;

use std::time::Duration;

use common::*;
use dgt_serial::{probe_ports, ClockInfo, LinkConfig, ProbeOptions, SearchOptions};
use dgt_sim::{BoardMode, Emulator, EmulatorConfig, Hub, LineBehaviour, ServeOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_finds_the_boards_and_names_the_rest() {
    let dir = temp_dir("probe");
    let mut hub = Hub::new().unwrap();
    let boards = [
        ("board-a", EmulatorConfig::default()),
        (
            "board-b",
            EmulatorConfig {
                serial: "31337".into(),
                clock_present: false,
                battery: None,
                ..EmulatorConfig::default()
            },
        ),
        (
            "board-c",
            EmulatorConfig {
                serial: "00042".into(),
                clock_version: dgt_protocol::ClockVersion { major: 1, minor: 0 },
                ..EmulatorConfig::default()
            },
        ),
        (
            "board-modem",
            EmulatorConfig {
                behaviour: LineBehaviour::NotDgt {
                    reply: b"\r\nOK\r\n".to_vec(),
                },
                ..EmulatorConfig::default()
            },
        ),
        (
            "board-mute",
            EmulatorConfig {
                behaviour: LineBehaviour::Mute,
                ..EmulatorConfig::default()
            },
        ),
    ];
    let served: Vec<_> = boards
        .into_iter()
        .map(|(name, cfg)| {
            hub.serve_pty(
                Emulator::new(cfg),
                ServeOptions {
                    link: Some(dir.join(name)),
                    ..ServeOptions::default()
                },
            )
            .unwrap()
        })
        .collect();
    let opts = ProbeOptions {
        timeout: Duration::from_secs(3),
        battery_grace: Duration::from_millis(100),
        link: LinkConfig {
            ident_timeout_ms: 600,
            ack_timeout_ms: 300,
            ..fast_link()
        },
        search: SearchOptions {
            patterns: vec![format!("{}/board-*", dir.display())],
            system_ports: false,
            ..SearchOptions::default()
        },
    };
    let reports = probe_ports(&[], &opts).await;
    let names: Vec<String> = reports
        .iter()
        .map(|r| r.port.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["board-a", "board-b", "board-c", "board-modem", "board-mute"]
    );
    let a = reports[0].board.as_ref().expect("board-a answers");
    assert_eq!(a.serial.as_deref(), Some("01025"));
    assert_eq!(a.version.map(|v| v.to_string()).as_deref(), Some("1.02"));
    assert_eq!(a.battery.map(|b| b.percent), Some(88));
    assert_eq!(reports[0].clock_model().as_deref(), Some("DGT3000 2.1"));
    assert_eq!(reports[0].problem, None);
    let b = reports[1].board.as_ref().expect("board-b answers");
    assert_eq!(b.serial.as_deref(), Some("31337"));
    assert_eq!(b.clock, ClockInfo::Absent);
    assert_eq!(b.battery, None);
    assert_eq!(reports[2].clock_model().as_deref(), Some("DGT XL 1.0"));
    assert!(reports[3].board.is_none());
    assert!(
        reports[3]
            .problem
            .as_deref()
            .unwrap()
            .contains("not a DGT board?"),
        "{:?}",
        reports[3]
    );
    assert!(
        reports[4]
            .problem
            .as_deref()
            .unwrap()
            .contains("no answer to the identification"),
        "{:?}",
        reports[4]
    );
    // Named ports are probed as given, missing ones reported.
    let missing = dir.join("no-such-port");
    let reports = probe_ports(&[dir.join("board-c"), missing.clone()], &opts).await;
    assert_eq!(
        reports[0].board.as_ref().unwrap().serial.as_deref(),
        Some("00042")
    );
    assert_eq!(reports[1].port, missing);
    assert!(
        reports[1]
            .problem
            .as_deref()
            .unwrap()
            .contains("cannot open"),
        "{:?}",
        reports[1]
    );
    // The boards are left quiet (RESET) when the probe is done.
    for s in &served[..3] {
        assert!(eventually(|| s.with(|e| e.mode()) == BoardMode::Idle).await);
    }
    // The JSON form the CLI prints.
    let json = serde_json::to_string(&reports[0]).unwrap();
    assert!(json.contains("\"serial\":\"00042\""), "{json}");
}
