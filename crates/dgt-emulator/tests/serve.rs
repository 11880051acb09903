//! The emulator behind a real pty answers a real client (opened with `serialport`, as the
//! driver opens a USB board), and on an in-process stream; scripts run in scaled real
//! time; unplug/replug keeps the stable path; one hub serves 1,000 boards.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use chess_rules::{Color, Piece, Role};
use dgt_emulator::{serve_pty, Action, Emulator, EmulatorConfig, Hub, ServeOptions, TimedAction};
use dgt_protocol::{BoardMessage, ClockCommand, Decoder, HostCommand};

fn open(path: &std::path::Path) -> Box<dyn serialport::SerialPort> {
    serialport::new(path.to_string_lossy(), 9600)
        .timeout(Duration::from_millis(50))
        .open()
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

/// Reads and decodes until `want` messages came or `timeout` passed.
fn read_messages(port: &mut dyn Read, want: usize, timeout: Duration) -> Vec<BoardMessage> {
    let deadline = Instant::now() + timeout;
    let mut d = Decoder::new();
    let mut out = Vec::new();
    let mut buf = [0u8; 512];
    while out.len() < want && Instant::now() < deadline {
        match port.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend(d.push(&buf[..n]).into_iter().map(|r| r.unwrap())),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(e) => panic!("read: {e}"),
        }
    }
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dgt-sim-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_real_client_talks_to_the_pty() {
    let dir = temp_dir("pty");
    let link = dir.join("dgt-board");
    let served = serve_pty(
        Emulator::new(EmulatorConfig::default()),
        ServeOptions {
            link: Some(link.clone()),
            ..ServeOptions::default()
        },
    )
    .unwrap();
    assert_eq!(served.path(), Some(link.clone()));
    assert!(served.pty_path().unwrap().starts_with("/dev/pts"));
    let mut port = open(&link);
    port.write_all(&[0x4D, 0x45, 0x42]).unwrap();
    let msgs = read_messages(&mut port, 3, Duration::from_secs(5));
    assert!(matches!(msgs[0], BoardMessage::Version(_)), "{msgs:?}");
    assert!(matches!(msgs[1], BoardMessage::SerialNumber(_)));
    assert!(matches!(msgs[2], BoardMessage::BoardDump { .. }));
    // UPDATE_NICE, then text on the clock: ACKed, and readable back.
    port.write_all(&[0x4B]).unwrap();
    port.write_all(&HostCommand::Clock(ClockCommand::ascii("ARBITER").unwrap()).encode())
        .unwrap();
    let msgs = read_messages(&mut port, 2, Duration::from_secs(5));
    assert!(matches!(msgs[0], BoardMessage::ClockTime(_)), "{msgs:?}");
    assert!(matches!(&msgs[1], BoardMessage::ClockAck(a) if a.answers() == Some(0x0C)));
    assert_eq!(
        served.with(|e| e.display_text().map(str::to_owned)),
        Some("ARBITER ".to_owned())
    );
    // A lift now is reported at once.
    served.apply(Action::Lift("e2".parse().unwrap()));
    let msgs = read_messages(&mut port, 1, Duration::from_secs(5));
    assert!(matches!(&msgs[0], BoardMessage::FieldUpdate(u) if u.field.index() == 0x34));
    drop(served);
    assert!(!link.exists(), "stopping removes the link");
}

#[test]
fn scripts_run_in_scaled_time_and_cables_replug_on_the_same_path() {
    let dir = temp_dir("replug");
    let link = dir.join("board");
    let capture = dir.join("traffic.dgtcap");
    let pawn = Piece::new(Color::White, Role::Pawn);
    let at = |at_ms, action| TimedAction { at_ms, action };
    // Ten virtual seconds at speed 20: half a second of real time.
    let script = vec![
        at(2_000, Action::Lift("e2".parse().unwrap())),
        at(3_000, Action::Place("e4".parse().unwrap(), pawn)),
        at(4_000, Action::BoardCable { plugged: false }),
        at(8_000, Action::BoardCable { plugged: true }),
        at(10_000, Action::Lift("d2".parse().unwrap())),
    ];
    let served = serve_pty(
        Emulator::new(EmulatorConfig::default()),
        ServeOptions {
            script,
            speed: 20.0,
            link: Some(link.clone()),
            capture: Some(capture.clone()),
            ..ServeOptions::default()
        },
    )
    .unwrap();
    let first_pty = served.pty_path().unwrap();
    let mut port = open(&link);
    port.write_all(&[0x44]).unwrap();
    let msgs = read_messages(&mut port, 2, Duration::from_secs(5));
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    // Unplugged: the link goes and the client sees the line hang up.
    let t0 = Instant::now();
    while link.exists() && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!link.exists());
    let mut buf = [0u8; 16];
    let hung_up = (0..100).any(|_| match port.read(&mut buf) {
        Ok(0) => true,
        Err(e) => e.kind() != std::io::ErrorKind::TimedOut,
        Ok(_) => false,
    });
    assert!(hung_up, "the client must see the line go");
    // Replugged: the same path leads to a new pty, in IDLE mode again.
    let t0 = Instant::now();
    while !link.exists() && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_ne!(served.pty_path().unwrap(), first_pty);
    let mut port = open(&link);
    port.write_all(&[0x44]).unwrap();
    assert!(served.wait_script_done(Duration::from_secs(5)));
    let msgs = read_messages(&mut port, 1, Duration::from_secs(5));
    assert!(
        matches!(&msgs[0], BoardMessage::FieldUpdate(u) if u.field.index() == 0x33),
        "{msgs:?}"
    );
    let elapsed = served.now_ms();
    assert!(elapsed >= 10_000);
    drop(port);
    drop(served);
    // The capture holds both directions and reads back.
    let file = std::fs::File::open(&capture).unwrap();
    let recs: Vec<_> = dgt_protocol::capture::CaptureReader::new(std::io::BufReader::new(file))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert!(recs.iter().any(|r| r.bytes == [0x44]));
    assert!(recs
        .iter()
        .any(|r| r.bytes == [0x8E, 0x00, 0x05, 0x33, 0x00]));
}

#[test]
fn in_process_stream() {
    let mut hub = Hub::new().unwrap();
    let (handle, mut stream) = hub
        .serve_stream(
            Emulator::new(EmulatorConfig::default()),
            ServeOptions::default(),
        )
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    stream.write_all(&[0x43]).unwrap();
    // UPDATE: a clock frame at once and at least one a second (paused clock).
    let msgs = read_messages(&mut stream, 2, Duration::from_secs(5));
    assert_eq!(msgs.len(), 2);
    assert!(msgs.iter().all(|m| matches!(m, BoardMessage::ClockTime(_))));
    handle.apply(Action::PressClock(Color::Black));
    let msgs = read_messages(&mut stream, 1, Duration::from_secs(5));
    assert!(matches!(&msgs[0], BoardMessage::ClockTime(t) if t.running));
    handle.apply(Action::BoardCable { plugged: false });
    let mut buf = [0u8; 64];
    let t0 = Instant::now();
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) if t0.elapsed() < Duration::from_secs(5) => {}
            Err(e) => panic!("no EOF: {e}"),
        }
    }
    handle.apply(Action::BoardCable { plugged: true });
    let mut again = handle.take_stream(Duration::from_secs(5)).unwrap();
    again
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    again.write_all(&[0x4D]).unwrap();
    let msgs = read_messages(&mut again, 1, Duration::from_secs(5));
    assert!(matches!(msgs[0], BoardMessage::Version(_)));
}

#[test]
fn one_hub_serves_a_thousand_ptys() {
    let mut hub = Hub::new().unwrap();
    let boards: Vec<_> = (0..1000)
        .map(|i| {
            let cfg = EmulatorConfig {
                serial: format!("{:05}", i),
                ..EmulatorConfig::default()
            };
            hub.serve_pty(Emulator::new(cfg), ServeOptions::default())
                .unwrap()
        })
        .collect();
    // Every board answers its own serial number.
    for (i, b) in boards.iter().enumerate() {
        let path = b.path().unwrap();
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        f.write_all(&[0x45]).unwrap();
        let mut buf = [0u8; 8];
        f.read_exact(&mut buf).unwrap();
        assert_eq!(&buf[3..], format!("{:05}", i).as_bytes());
    }
}

#[test]
fn line_pacing_holds_output_to_9600_baud() {
    let mut hub = Hub::new().unwrap();
    let (_handle, mut stream) = hub
        .serve_stream(
            Emulator::new(EmulatorConfig::default()),
            ServeOptions {
                line_pacing: true,
                ..ServeOptions::default()
            },
        )
        .unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    // Ten dumps, 670 bytes: at 960 bytes a second (after at most 64 bytes of burst) they
    // cannot all arrive in less than (670 - 64) / 960 s.
    let start = Instant::now();
    stream.write_all(&[0x42; 10]).unwrap();
    let msgs = read_messages(&mut stream, 10, Duration::from_secs(10));
    assert_eq!(msgs.len(), 10);
    assert!(
        start.elapsed() >= Duration::from_secs_f64((670.0 - 64.0) / 960.0),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn dropping_the_hub_before_its_handles_stops_it() {
    let mut hub = Hub::new().unwrap();
    let handle = hub
        .serve_pty(
            Emulator::new(EmulatorConfig::default()),
            ServeOptions::default(),
        )
        .unwrap();
    assert!(handle.pty_path().is_some());
    drop(hub); // must not wait for the handle
    assert!(handle.pty_path().is_none(), "the board was closed");
    handle.apply(Action::Lift("e2".parse().unwrap())); // harmless after the stop
}
