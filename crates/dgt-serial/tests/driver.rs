//! The driver on real pseudo-terminals with the emulator at the other end: init, dumps
//! and field updates at full line rate, clock frames, ACKs and a replugged clock, pulled
//! board cables, noise and silences, a port that is no board, a board that never
//! answers, a board found by its serial number, overload, recording and shutdown.

mod common;

use std::time::Duration;

use chess_rules::{Color, Role};
use common::*;
use dgt_protocol::capture::{CaptureReader, Direction};
use dgt_protocol::{BoardEvent, ClockButton, ClockCommand, Decoder, EventFilter, Orientation};
use dgt_serial::{spawn_board, BoardSpec, ClockError, ClockInfo, DriverOptions, PortSpec};
use dgt_sim::{
    serve_pty, Action, BoardMode, Emulator, EmulatorConfig, LineBehaviour, ServeOptions,
};

fn epoch() -> std::time::Instant {
    std::time::Instant::now()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_dump_and_field_updates_at_full_line_rate() {
    let (served, link) = serve(
        "rate",
        EmulatorConfig::default(),
        ServeOptions {
            line_pacing: true,
            ..ServeOptions::default()
        },
    );
    let mut handle = spawn_board(spec("rate", &link), epoch(), None).unwrap();
    let mut events = Events::new(&mut handle);
    let connected = events.kind("connected", SHORT).await;
    assert_eq!(
        connected.event,
        BoardEvent::Connected {
            serial: Some("01025".into()),
            version: Some(dgt_protocol::Version { major: 1, minor: 2 }),
            clock_version: None,
        }
    );
    let dump = events.kind("dump", SHORT).await;
    assert_eq!(
        board_from_events(&[dump]),
        Some(served.with(|e| e.raw_board()))
    );
    events.kind("ack", SHORT).await;
    assert_eq!(served.with(|e| e.mode()), BoardMode::UpdateNice);
    let status = handle.control.status();
    assert!(status.info.connected);
    assert_eq!(status.port.as_deref(), Some(link.as_path()));
    assert_eq!(status.info.clock.describe(), "DGT3000 2.1");
    assert_eq!(status.info.battery.map(|b| b.percent), Some(88));

    // 300 changes at once: 1,500 bytes, about 1.6 s at 960 bytes a second.
    let actions = busy_actions(300);
    for (a, _) in &actions {
        served.apply(a.clone());
    }
    let mut fields = Vec::new();
    while fields.len() < actions.len() {
        let ev = events.kind("field", SHORT).await;
        if let BoardEvent::Field(u) = ev.event {
            fields.push(u);
        }
    }
    let expected: Vec<_> = actions.iter().map(|(_, u)| *u).collect();
    assert_eq!(fields, expected, "every update, in order");
    assert_eq!(
        board_from_events(&events.seen),
        Some(served.with(|e| e.raw_board()))
    );
    assert!(
        !events.kinds().contains(&"disconnected"),
        "{:?}",
        events.kinds()
    );
    handle.control.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_frames_acks_buttons_and_a_clock_unplugged_and_plugged_back() {
    let (served, link) = serve(
        "clock",
        EmulatorConfig {
            ack_delay_ms: 30,
            ..EmulatorConfig::default()
        },
        ServeOptions::default(),
    );
    let mut handle = spawn_board(spec("clock", &link), epoch(), None).unwrap();
    let control = handle.control.clone();
    let mut events = Events::new(&mut handle);
    events.kind("dump", SHORT).await;
    // Three commands at once: they go one at a time, each answered.
    let texts = ["ARBITER", "ROUND 3", "BOARD 7"];
    let outcomes = futures_join(
        texts
            .iter()
            .map(|t| {
                let c = control.clone();
                let cmd = ClockCommand::ascii(t).unwrap();
                async move { c.clock(cmd).await }
            })
            .collect(),
    )
    .await;
    for o in &outcomes {
        assert!(matches!(o, Ok(a) if a.answers() == Some(0x0C)), "{o:?}");
    }
    assert!(texts.contains(
        &served
            .with(|e| e.display_text().unwrap_or("").trim().to_owned())
            .as_str()
    ));
    // Lever presses and buttons.
    served.apply(Action::PressClock(Color::Black));
    events
        .until(
            "a running clock",
            SHORT,
            |e| matches!(e, BoardEvent::Clock(t) if t.running),
        )
        .await;
    served.apply(Action::ClockButton(ClockButton::Ok));
    let b = events.kind("button", SHORT).await;
    assert!(matches!(b.event, BoardEvent::ClockButton(p) if p.button == Some(ClockButton::Ok)));
    // The clock cable.
    served.apply(Action::ClockCable { plugged: false });
    events.kind("clock_disconnected", SHORT).await;
    assert_eq!(control.status().info.clock, ClockInfo::Absent);
    assert_eq!(
        control.clock(ClockCommand::End).await,
        Err(ClockError::NoClock)
    );
    served.apply(Action::ClockCable { plugged: true });
    events.kind("clock_connected", SHORT).await;
    let ack = events.kind("ack", SHORT).await;
    assert!(matches!(ack.event, BoardEvent::ClockAck(a) if a.version().is_some()));
    assert!(control.clock(ClockCommand::End).await.is_ok());
    assert_eq!(control.status().info.clock.describe(), "DGT3000 2.1");
    control.shutdown().await;
    drop(served);
}

/// Runs futures concurrently on the runtime, returning their outputs in order.
async fn futures_join<F>(futures: Vec<F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_pulled_plugs_in_one_game_lose_nothing_and_invent_nothing() {
    let dir = temp_dir("plugs");
    let link = dir.join("board");
    let emu_capture = dir.join("emulator.dgtcap");
    let record_dir = dir.join("recorded");
    let served = serve_pty(
        Emulator::new(EmulatorConfig::default()),
        ServeOptions {
            link: Some(link.clone()),
            line_pacing: true,
            capture: Some(emu_capture.clone()),
            ..ServeOptions::default()
        },
    )
    .unwrap();
    let mut handle = spawn_board(spec("plugs", &link), epoch(), Some(record_dir.clone())).unwrap();
    let recording = handle.control.status().recording.unwrap();
    let mut events = Events::new(&mut handle);
    events.kind("dump", SHORT).await;
    let pawn = white(Role::Pawn);
    let knight = white(Role::Knight);
    // (lifted, placed after the plug is pulled, piece) for three moves cut in the middle,
    // with a black reply played normally between them.
    let cut_moves = [("e2", "e4", pawn), ("g1", "f3", knight), ("d2", "d4", pawn)];
    let replies = [("e7", "e5"), ("b8", "c6"), ("e5", "d4")];
    for ((from, to, piece), (rf, rt)) in cut_moves.into_iter().zip(replies) {
        served.apply(Action::Lift(sq(from)));
        events.kind("field", SHORT).await;
        served.apply(Action::BoardCable { plugged: false });
        events.kind("disconnected", SHORT).await;
        // The hand finishes the move while the line is down.
        served.apply(Action::Place(sq(to), piece));
        tokio::time::sleep(Duration::from_millis(100)).await;
        served.apply(Action::BoardCable { plugged: true });
        events.kind("connected", SHORT).await;
        let dump = events.kind("dump", SHORT).await;
        assert_eq!(
            board_from_events(&[dump]),
            Some(served.with(|e| e.raw_board())),
            "the dump after the reconnect shows the finished move"
        );
        // The game goes on: Black replies (a capture on the last round).
        // On the last round the pawn is put straight onto the captured one (d4).
        let mover = served.with(|e| e.placement().get(sq(rf))).unwrap();
        served.apply(Action::Lift(sq(rf)));
        served.apply(Action::Place(sq(rt), mover));
        events.kind("field", SHORT).await;
        events.kind("field", SHORT).await;
    }
    // After the last reconnect, its dump plus the later updates give the real board.
    assert_eq!(
        board_from_events(&events.seen),
        Some(served.with(|e| e.raw_board()))
    );
    let expected_fen_board = {
        let mut p = chess_rules::Placement::start();
        for (from, to) in [
            ("e2", "e4"),
            ("e7", "e5"),
            ("g1", "f3"),
            ("b8", "c6"),
            ("d2", "d4"),
            ("e5", "d4"),
        ] {
            let piece = p.get(sq(from));
            p.set(sq(from), None);
            p.set(sq(to), piece);
        }
        dgt_protocol::RawBoard::from_placement(&p, Orientation::Normal)
    };
    assert_eq!(served.with(|e| e.raw_board()), expected_fen_board);
    let kinds = events.kinds();
    assert_eq!(kinds.iter().filter(|&&k| k == "disconnected").count(), 3);
    assert_eq!(kinds.iter().filter(|&&k| k == "connected").count(), 4);
    handle.control.shutdown().await;
    drop(served);

    // No event invented: every update and dump the driver reported was sent by the board,
    // in the same order.
    let sent = capture_board_events(&emu_capture);
    let reported = board_events(&events.seen);
    assert!(
        is_subsequence(&reported, &sent),
        "reported {reported:?}\nsent {sent:?}"
    );
    // The driver's recording replays to the same updates and dumps it reported.
    let file = std::io::BufReader::new(std::fs::File::open(&recording).unwrap());
    let reader = CaptureReader::new(file).unwrap();
    assert_eq!(reader.header().board.as_deref(), Some("plugs"));
    let records: Vec<_> = reader.map(|r| r.unwrap()).collect();
    assert!(records.iter().any(|r| r.direction == Direction::ToBoard
        && r.bytes == [0x4B, 0x42, 0x4C, 0x2B, 0x03, 0x03, 0x09, 0x00]));
    let mut decoder = Decoder::new();
    let mut filter = EventFilter::new();
    let mut replayed = Vec::new();
    for r in records.iter().filter(|r| r.direction == Direction::ToHost) {
        for msg in decoder.push(&r.bytes).into_iter().flatten() {
            for ev in filter.on_message(&msg) {
                if matches!(ev, BoardEvent::Field(_) | BoardEvent::Dump { .. }) {
                    replayed.push(ev);
                }
            }
        }
    }
    assert_eq!(replayed, reported);
    let text = std::fs::read_to_string(&recording).unwrap();
    // Each connect, loss and close is marked: 4 opens, 3 losses, 3 closes, the stop.
    assert!(text.matches("# at ").count() >= 11, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_truncated_frames_and_silences() {
    let (served, link) = serve("noise", EmulatorConfig::default(), ServeOptions::default());
    let mut handle = spawn_board(spec("noise", &link), epoch(), None).unwrap();
    let mut events = Events::new(&mut handle);
    events.kind("dump", SHORT).await;
    events.kind("ack", SHORT).await;
    let n = events.seen.len();
    served.apply(Action::LineNoise(vec![0x00, 0x13, 0x7F, 0x55, 0xFF]));
    served.apply(Action::Lift(sq("g1")));
    // A field update cut after its header, then garbage with bit 7 set, then a good one.
    served.apply(Action::LineNoise(vec![0x8E, 0x00]));
    served.apply(Action::LineNoise(vec![0x8E, 0x00, 0x05, 0xC4]));
    served.apply(Action::Place(sq("f3"), white(Role::Knight)));
    events.kind("field", SHORT).await;
    events.kind("field", SHORT).await;
    // A quiet board (no moves for a while) stays connected: the probes are answered.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let quiet = events.drain(Duration::from_millis(50)).await;
    assert!(quiet.is_empty(), "{quiet:?}");
    assert_eq!(events.kinds()[n..], ["field", "field"]);
    // A board that goes silent (hung firmware) is declared lost, and taken back with a
    // fresh dump when it talks again; the move made meanwhile is in the dump.
    served.apply(Action::Hang { hung: true });
    let down = events.kind("disconnected", SHORT).await;
    assert!(
        matches!(&down.event, BoardEvent::Disconnected { reason } if reason.contains("liveness")),
        "{down:?}"
    );
    served.apply(Action::Lift(sq("e2")));
    served.apply(Action::Place(sq("e4"), white(Role::Pawn)));
    served.apply(Action::Hang { hung: false });
    events.kind("connected", SHORT).await;
    events.kind("dump", SHORT).await;
    assert_eq!(
        board_from_events(&events.seen),
        Some(served.with(|e| e.raw_board()))
    );
    handle.control.shutdown().await;
}

/// Waits until the line has been read up to `t_ms`; returns how far it has.
async fn read_up_to(read_until: &mut tokio::sync::watch::Receiver<u64>, t_ms: u64) -> u64 {
    let got = tokio::time::timeout(SHORT, read_until.wait_for(|&w| w >= t_ms))
        .await
        .map(|r| r.map(|w| *w));
    match got {
        Ok(Ok(w)) => w,
        Ok(Err(_)) => panic!("the driver stopped before reading the line up to {t_ms} ms"),
        Err(_) => panic!(
            "the line not read up to {t_ms} ms within {SHORT:?}: only to {} ms",
            *read_until.borrow()
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_line_is_read_past_every_delivered_event_and_on_while_idle_or_unplugged() {
    let (served, link) = serve(
        "read-until",
        EmulatorConfig::default(),
        ServeOptions::default(),
    );
    let t0 = epoch();
    let now_ms = || t0.elapsed().as_millis() as u64;
    let mut handle = spawn_board(spec("read-until", &link), t0, None).unwrap();
    let mut read_until = handle.line_read_until.clone();
    let control = handle.control.clone();
    let mut events = Events::new(&mut handle);
    events.kind("dump", SHORT).await;
    events.kind("ack", SHORT).await;
    // A move: once its updates are delivered, the line is read at least up to them.
    served.apply(Action::Lift(sq("g1")));
    served.apply(Action::Place(sq("f3"), white(Role::Knight)));
    events.kind("field", SHORT).await;
    let placed = events.kind("field", SHORT).await;
    let after_move = read_up_to(&mut read_until, placed.t_ms).await;
    // Idle: nothing arrives, and a probe moves the mark on to the driver's clock.
    tokio::time::sleep(Duration::from_millis(30)).await;
    let asked = now_ms();
    assert!(asked > after_move, "{asked} {after_move}");
    control.probe_line();
    let idle = read_up_to(&mut read_until, asked).await;
    assert!(
        idle <= now_ms(),
        "the mark is never ahead of the clock: {idle}"
    );
    assert!(events.drain(Duration::from_millis(20)).await.is_empty());
    // A pulled cable: nothing can arrive, so the line is read up to now all the same.
    served.apply(Action::BoardCable { plugged: false });
    events.kind("disconnected", SHORT).await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    let unplugged = now_ms();
    control.probe_line();
    read_up_to(&mut read_until, unplugged).await;
    // And back: what the board sends is delivered before the mark passes it.
    served.apply(Action::BoardCable { plugged: true });
    let dump = events.kind("dump", SHORT).await;
    read_up_to(&mut read_until, dump.t_ms).await;
    handle.control.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_that_is_not_a_dgt_board_and_a_board_that_never_answers() {
    for (name, behaviour, words) in [
        (
            "modem",
            LineBehaviour::NotDgt {
                reply: b"\r\nERROR\r\n".to_vec(),
            },
            "not a DGT board?",
        ),
        (
            "mute",
            LineBehaviour::Mute,
            "no answer to the identification",
        ),
    ] {
        let cfg = EmulatorConfig {
            behaviour,
            ..EmulatorConfig::default()
        };
        let (_served, link) = serve(name, cfg, ServeOptions::default());
        let mut handle = spawn_board(spec(name, &link), epoch(), None).unwrap();
        let mut events = Events::new(&mut handle);
        let down = events.kind("disconnected", SHORT).await;
        let BoardEvent::Disconnected { reason } = &down.event else {
            unreachable!()
        };
        assert!(reason.contains(words), "{name}: {reason}");
        // It keeps trying, quietly, and never connects.
        tokio::time::sleep(Duration::from_millis(800)).await;
        let more = events.drain(Duration::from_millis(20)).await;
        assert!(more.is_empty(), "{name}: {more:?}");
        let status = handle.control.status();
        assert!(!status.info.connected);
        assert_eq!(
            status.info.last_disconnect.as_deref(),
            Some(reason.as_str())
        );
        handle.control.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_named_by_serial_number_is_found_and_found_again_after_a_replug() {
    let dir = temp_dir("serial");
    let mut hub = dgt_sim::Hub::new().unwrap();
    let boards: Vec<_> = ["00001", "00002", "00003"]
        .iter()
        .map(|s| {
            hub.serve_pty(
                Emulator::new(EmulatorConfig {
                    serial: (*s).into(),
                    ..EmulatorConfig::default()
                }),
                ServeOptions {
                    link: Some(dir.join(format!("emu-{s}"))),
                    ..ServeOptions::default()
                },
            )
            .unwrap()
        })
        .collect();
    let spec = BoardSpec {
        name: "by-serial".into(),
        port: PortSpec::Serial("00002".into()),
        options: DriverOptions {
            link: fast_link(),
            search: emulator_search(&dir),
            ..DriverOptions::default()
        },
    };
    let mut handle = spawn_board(spec, epoch(), None).unwrap();
    let mut events = Events::new(&mut handle);
    let c = events.kind("connected", SHORT).await;
    assert!(matches!(&c.event, BoardEvent::Connected { serial: Some(s), .. } if s == "00002"));
    assert_eq!(
        handle.control.status().port,
        Some(dir.join("emu-00002")),
        "found through its stable link"
    );
    // A second driver for the same serial finds nothing: the port is in use.
    let other = DriverOptions {
        link: fast_link(),
        search: emulator_search(&dir),
        ..DriverOptions::default()
    };
    let mut second = spawn_board(
        BoardSpec {
            name: "second".into(),
            port: PortSpec::Serial("00002".into()),
            options: other,
        },
        epoch(),
        None,
    )
    .unwrap();
    let mut second_events = Events::new(&mut second);
    let d = second_events.kind("disconnected", SHORT).await;
    assert!(
        matches!(&d.event, BoardEvent::Disconnected { reason } if reason.contains("no port answers")),
        "{d:?}"
    );
    second.control.shutdown().await;
    // Pulled and plugged back: found again, with a dump.
    boards[1].apply(Action::BoardCable { plugged: false });
    events.kind("disconnected", SHORT).await;
    boards[1].apply(Action::Lift(sq("a2")));
    boards[1].apply(Action::BoardCable { plugged: true });
    let c = events.kind("connected", SHORT).await;
    assert!(matches!(&c.event, BoardEvent::Connected { serial: Some(s), .. } if s == "00002"));
    events.kind("dump", SHORT).await;
    assert_eq!(
        board_from_events(&events.seen),
        Some(boards[1].with(|e| e.raw_board()))
    );
    // The other boards were asked for their serial number, nothing more.
    assert_eq!(boards[0].with(|e| e.mode()), BoardMode::Idle);
    handle.control.shutdown().await;
}

fn emulator_search(dir: &std::path::Path) -> dgt_serial::SearchOptions {
    dgt_serial::SearchOptions {
        patterns: vec![format!("{}/emu-*", dir.display())],
        system_ports: false,
        answer_timeout: Duration::from_millis(300),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_consumer_never_blocks_the_reader_and_gets_a_resync() {
    let (served, link) = serve(
        "overload",
        EmulatorConfig::default(),
        ServeOptions::default(),
    );
    let mut options = DriverOptions {
        link: fast_link(),
        event_capacity: 16,
        ..DriverOptions::default()
    };
    options.link.query_battery = false;
    let spec = BoardSpec {
        name: "overload".into(),
        port: PortSpec::Path(link.clone()),
        options,
    };
    let mut handle = spawn_board(spec, epoch(), None).unwrap();
    let mut events = Events::new(&mut handle);
    events.kind("ack", SHORT).await;
    // The consumer stops reading while 200 changes and a clock button arrive.
    let actions = busy_actions(200);
    for (a, _) in &actions[..100] {
        served.apply(a.clone());
    }
    served.apply(Action::ClockButton(ClockButton::Plus));
    for (a, _) in &actions[100..] {
        served.apply(a.clone());
    }
    // The reader kept going while nobody read the events: at most 16 updates fit in the
    // channel, the rest were read from the line and dropped.
    let capacity = 16;
    assert!(
        eventually(|| handle.control.status().dropped_events + capacity >= 200).await,
        "dropped {}",
        handle.control.status().dropped_events
    );
    // Now the consumer reads: the first events, the kept button, the marker, a dump.
    let marker = events
        .until(
            "the overrun marker",
            SHORT,
            |e| matches!(e, BoardEvent::Disconnected { reason } if reason.starts_with("overrun")),
        )
        .await;
    let BoardEvent::Disconnected { reason } = &marker.event else {
        unreachable!()
    };
    let dropped = handle.control.status().dropped_events;
    assert!(
        reason.contains(&format!("{dropped} events")),
        "{reason} / {dropped}"
    );
    assert!(events.kinds().contains(&"button"), "{:?}", events.kinds());
    assert!(!events.kinds()[..events.kinds().len() - 1].contains(&"disconnected"));
    // The link stayed up, so the resync already knows the clock (its version answer was
    // the first ack).
    let resync = events.kind("connected", SHORT).await;
    assert!(
        matches!(
            resync.event,
            BoardEvent::Connected {
                clock_version: Some(v),
                ..
            } if v == EmulatorConfig::default().clock_version
        ),
        "{resync:?}"
    );
    events.kind("dump", SHORT).await;
    assert_eq!(
        board_from_events(&events.seen),
        Some(served.with(|e| e.raw_board()))
    );
    // The fields that did arrive are the first ones, in order.
    let fields: Vec<_> = events
        .seen
        .iter()
        .filter_map(|e| match e.event {
            BoardEvent::Field(u) => Some(u),
            _ => None,
        })
        .collect();
    let expected: Vec<_> = actions.iter().map(|(_, u)| *u).collect();
    assert!(is_subsequence(&fields, &expected));
    assert!(
        fields.len() + dropped as usize >= actions.len(),
        "{} + {dropped}",
        fields.len()
    );
    handle.control.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_resets_the_board_and_reports_it() {
    let (served, link) = serve(
        "shutdown",
        EmulatorConfig::default(),
        ServeOptions::default(),
    );
    let mut handle = spawn_board(spec("bye", &link), epoch(), None).unwrap();
    let control = handle.control.clone();
    let mut events = Events::new(&mut handle);
    events.kind("dump", SHORT).await;
    control.shutdown().await;
    let last = events.kind("disconnected", SHORT).await;
    assert_eq!(
        last.event,
        BoardEvent::Disconnected {
            reason: "driver stopped".into()
        }
    );
    assert!(control.status().stopped);
    // The RESET reached the board.
    assert!(eventually(|| served.with(|e| e.mode()) == BoardMode::Idle).await);
    assert_eq!(
        control.clock(ClockCommand::End).await,
        Err(ClockError::Stopped)
    );
    assert!(control.request_dump().await.is_err());
    assert!(events.rx.recv().await.is_none(), "the channel closes");

    // Dropping the handle (events and control) stops a board's task too, even one that
    // has nothing to report (a board that is not there).
    let missing = served_dir(&link).join("not-plugged");
    let mut handle = spawn_board(spec("gone", &missing), epoch(), None).unwrap();
    let status = handle.control.watch_status();
    let mut events = Events::new(&mut handle);
    // After the first failure the retries are quiet: no event will tell the task.
    events.kind("disconnected", SHORT).await;
    drop(events);
    drop(handle);
    assert!(eventually(|| status.borrow().stopped).await);
}

fn served_dir(link: &std::path::Path) -> std::path::PathBuf {
    link.parent().unwrap().to_owned()
}
