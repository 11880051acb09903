//! 200 emulated boards on real ptys, driven at once by one test process: every board
//! connects, and every field update of every board arrives, in order, at full line rate
//! (the emulators pace their output to 9600 baud).

mod common;

use std::time::Duration;

use common::*;
use dgt_protocol::{BoardEvent, TimedEvent};
use dgt_serial::{spawn_board, BoardSpec, DriverOptions, PortSpec};
use dgt_sim::{Emulator, EmulatorConfig, Hub, ServeOptions};

const BOARDS: usize = 200;
/// 100 changes = 500 bytes a board: half a second of line time.
const CHANGES: usize = 100;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_boards_every_event_arrives_in_order() {
    let mut hub = Hub::new().unwrap();
    let served: Vec<_> = (0..BOARDS)
        .map(|i| {
            let cfg = EmulatorConfig {
                serial: format!("{:05}", 10_000 + i),
                ..EmulatorConfig::default()
            };
            let opts = ServeOptions {
                line_pacing: true,
                ..ServeOptions::default()
            };
            hub.serve_pty(Emulator::new(cfg), opts).unwrap()
        })
        .collect();
    let epoch = std::time::Instant::now();
    // Timeouts that survive a debug build sharing two cores with 200 emulators.
    let mut link = fast_link();
    link.probe_interval_ms = 500;
    link.probe_timeout_ms = 3_000;
    link.ident_timeout_ms = 3_000;
    link.ack_timeout_ms = 2_000;
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<usize>(BOARDS);
    let mut collectors = Vec::new();
    let mut controls = Vec::new();
    for (i, s) in served.iter().enumerate() {
        let spec = BoardSpec {
            name: format!("board-{i}"),
            port: PortSpec::Path(s.path().unwrap()),
            options: DriverOptions {
                link: link.clone(),
                ..DriverOptions::default()
            },
        };
        let mut handle = spawn_board(spec, epoch, None).unwrap();
        controls.push(handle.control.clone());
        let ready = ready_tx.clone();
        collectors.push(tokio::spawn(async move {
            let mut events = Events::new(&mut handle);
            // Ready once the board runs in UPDATE_NICE and its clock has answered.
            events.kind("dump", Duration::from_secs(30)).await;
            events.kind("ack", Duration::from_secs(30)).await;
            ready.send(i).await.unwrap();
            let mut fields = 0;
            while fields < CHANGES {
                events.kind("field", Duration::from_secs(30)).await;
                fields += 1;
            }
            // Anything else that is already there.
            events.drain(Duration::from_millis(50)).await;
            events.seen
        }));
    }
    for _ in 0..BOARDS {
        tokio::time::timeout(Duration::from_secs(60), ready_rx.recv())
            .await
            .expect("all boards ready")
            .unwrap();
    }
    let actions = busy_actions(CHANGES);
    for s in &served {
        for (a, _) in &actions {
            s.apply(a.clone());
        }
    }
    let expected: Vec<_> = actions.iter().map(|(_, u)| *u).collect();
    for (i, c) in collectors.into_iter().enumerate() {
        let seen: Vec<TimedEvent> = c.await.unwrap();
        assert!(
            matches!(&seen[0].event, BoardEvent::Connected { serial: Some(s), .. }
                if *s == format!("{:05}", 10_000 + i)),
            "board {i}: {:?}",
            seen[0]
        );
        let fields: Vec<_> = seen
            .iter()
            .filter_map(|e| match e.event {
                BoardEvent::Field(u) => Some(u),
                _ => None,
            })
            .collect();
        assert_eq!(fields, expected, "board {i}: every update, in order");
        assert!(
            !seen
                .iter()
                .any(|e| matches!(e.event, BoardEvent::Disconnected { .. })),
            "board {i}: {seen:?}"
        );
        assert!(
            seen.windows(2).all(|w| w[0].t_ms <= w[1].t_ms),
            "board {i}: times in order"
        );
        assert_eq!(
            board_from_events(&seen),
            Some(served[i].with(|e| e.raw_board())),
            "board {i}"
        );
        assert_eq!(controls[i].status().dropped_events, 0);
    }
    for c in &controls {
        c.shutdown().await;
    }
}
