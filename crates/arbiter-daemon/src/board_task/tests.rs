use super::*;

#[test]
pub(crate) fn a_timeout_waits_for_the_line_to_be_read_up_to_its_deadline() {
    use TimeoutGate::*;
    // No offset: the deadline, the line and the clock in the same time.
    assert_eq!(timeout_gate(1_400, 0, 1_400, 1_399), NotDue);
    assert_eq!(timeout_gate(1_400, 0, 1_399, 1_400), Hold);
    assert_eq!(timeout_gate(1_400, 0, 1_400, 1_400), Rule);
    assert_eq!(timeout_gate(1_400, 0, 1_650, 1_700), Rule);
    // Read before the deadline, later and later by the clock: held until the cap.
    assert_eq!(timeout_gate(1_400, 0, 1_300, 3_399), Hold);
    assert_eq!(timeout_gate(1_400, 0, 1_300, 3_400), RuleUnread);
    // A restarted daemon: the board's time runs `offset` ahead of the driver's.
    let offset = 900_000;
    assert_eq!(timeout_gate(offset + 1_400, offset, 1_399, 1_500), Hold);
    assert_eq!(timeout_gate(offset + 1_400, offset, 1_400, 1_500), Rule);
    assert_eq!(timeout_gate(offset + 1_400, offset, 1_500, 1_300), NotDue);
    assert_eq!(
        timeout_gate(offset + 1_400, offset, 0, 1_400 + TIMEOUT_HOLD_MAX_MS),
        RuleUnread
    );
}
use dgt_protocol::{Decoder, EventFilter, HostCommand};
use dgt_sim::hands::{generate, GameInput, HandOptions, Irregularity};
use dgt_sim::Emulator;

/// Tears line `i` of a journal in half and runs the half into the next line, as a
/// power cut mid-write followed by the next append would.
pub(crate) fn tear_into_next(path: &std::path::Path, i: usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let torn = lines[i][..lines[i].len() / 2].to_owned();
    lines[i + 1] = format!("{torn}{}", lines[i + 1]);
    lines.remove(i);
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// A board's inputs as the driver would deliver them: a scripted game with a
/// flag fall (which needs an analysis) played on the in-process emulator.
pub(crate) fn inputs() -> Vec<TimedEvent> {
    let game = GameInput::from_uci(
        chess_rules::START_FEN,
        &[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5",
        ],
    )
    .unwrap();
    let script = generate(
        &game,
        &HandOptions {
            seed: 5,
            think_scale: 0.02,
            irregularities: vec![Irregularity::ClockWithoutMove, Irregularity::FlagFall],
            ..HandOptions::default()
        },
    )
    .unwrap();
    let mut emu = Emulator::new(script.emulator_config());
    let (mut decoder, mut filter) = (Decoder::new(), EventFilter::new());
    let mut out = vec![TimedEvent {
        t_ms: 0,
        event: BoardEvent::Connected {
            serial: None,
            version: None,
            clock_version: None,
        },
    }];
    emu.receive(
        &[
            HostCommand::SendBoard.encode(),
            HostCommand::SendUpdateNice.encode(),
        ]
        .concat(),
    );
    let mut take = |emu: &mut Emulator, out: &mut Vec<TimedEvent>| {
        for c in emu.take_output() {
            for m in decoder.push(&c.bytes).into_iter().flatten() {
                for event in filter.on_message(&m) {
                    out.push(TimedEvent {
                        t_ms: c.t_ms,
                        event,
                    });
                }
            }
        }
    };
    for a in &script.actions {
        emu.advance_to(a.at_ms);
        take(&mut emu, &mut out);
        emu.apply(&a.action);
        take(&mut emu, &mut out);
    }
    emu.advance_to(script.end_ms + 2000);
    take(&mut emu, &mut out);
    out
}

pub(crate) fn config(dir: &std::path::Path) -> Config {
    let text = format!(
        "[event]\nname = \"T\"\nround = 1\ntime_control = \"300+3\"\n[output]\ndir = \"{}\"\n\
         [[board]]\nnumber = 4\nport = \"/dev/null\"\n",
        dir.display()
    );
    Config::parse(&text, std::path::Path::new("t.toml")).unwrap()
}

/// Feeds the inputs as the live loop does (timers and analysis answers included).
pub(crate) async fn play(task: &mut BoardTask, inputs: &[TimedEvent]) {
    async fn feed_timers(task: &mut BoardTask, until: u64) {
        while let Some(d) = task.tracker.poll_timeout().filter(|d| *d < until) {
            task.input(Record::Timeout { t_ms: d }, Durability::Now)
                .await;
        }
    }
    for ev in inputs {
        feed_timers(task, ev.t_ms).await;
        let durability = task.durability(&ev.event);
        task.input(Record::Event(ev.clone()), durability).await;
        while task.in_flight > 0 {
            let (id, answer) = task.answers.recv().await.unwrap();
            task.in_flight -= 1;
            task.input(
                Record::Analysis { id, answer },
                BoardTask::answer_durability(answer),
            )
            .await;
        }
    }
    feed_timers(task, u64::MAX).await;
}

/// Board 4 resumed from its journal at `now_unix`, events.jsonl holding `published`.
pub(crate) async fn resumed(
    config: &Config,
    paths: &Paths,
    hub: &Arc<Hub>,
    now_unix: u64,
    syncer: &Syncer,
    published: Published,
) -> BoardTask {
    BoardTask::resume(
        config,
        &config.boards[0],
        paths,
        hub,
        now_unix,
        syncer,
        published,
    )
    .await
    .unwrap()
}

/// A restart of board 4 that sees `published` in events.jsonl: its events.
pub(crate) async fn restart(
    config: &Config,
    paths: &Paths,
    syncer: &Syncer,
    published: Published,
) -> Vec<Arc<HubEvent>> {
    let hub = Arc::new(Hub::new([4]));
    let task = resumed(config, paths, &hub, 900_000, syncer, published).await;
    drop(task);
    hub.events_since(0)
}

#[tokio::test]
pub(crate) async fn a_journal_damaged_in_the_middle_holds_the_board_at_the_same_point_at_every_restart(
) {
    let dir = std::env::temp_dir().join(format!("arbiter-runtime-hole-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = config(&dir);
    let paths = Paths::new(&dir);
    let syncer = Syncer::start(1, 1).unwrap();
    let hub = Arc::new(Hub::new([4]));
    let mut task = resumed(&config, &paths, &hub, 1_000, &syncer, Published::default()).await;
    play(&mut task, &inputs()).await;
    drop(task);
    let live = hub.events_since(0);
    let published = Published {
        seq: live.len() as u64,
        known: touch_tracker::KnownGame {
            ply: 8,
            ..Default::default()
        },
    };
    // A record in the middle torn and run into the next.
    let path = paths.journal(1, 4);
    let middle = std::fs::read_to_string(&path).unwrap().lines().count() / 2;
    tear_into_next(&path, middle);

    let first = restart(&config, &paths, &syncer, published).await;
    let replayed: Vec<_> = first.iter().take_while(|e| e.replayed).collect();
    assert!(
        replayed.len() < live.len(),
        "the replay stops at the damage"
    );
    for (a, b) in live.iter().zip(&replayed) {
        assert_eq!((a.seq, &a.event), (b.seq, &b.event), "the proven prefix");
    }
    let held = &first[replayed.len()];
    assert_eq!(held.seq, published.seq + 1, "numbered after events.jsonl");
    let json = held.event.to_json();
    assert!(
        json.contains("out_of_sync") && json.contains("damaged at line"),
        "{json}"
    );
    // Every later restart replays to the same point, holds there with the same
    // numbers, and holds no second time.
    let published = Published {
        seq: first.last().unwrap().seq,
        ..published
    };
    let second = restart(&config, &paths, &syncer, published).await;
    assert_eq!(second.len(), first.len());
    for (a, b) in first.iter().zip(&second) {
        assert_eq!((a.seq, &a.event), (b.seq, &b.event));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
pub(crate) async fn a_resumed_board_regenerates_the_same_events_with_the_same_seq() {
    let dir = std::env::temp_dir().join(format!("arbiter-runtime-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = config(&dir);
    let paths = Paths::new(&dir);
    let inputs = inputs();
    let syncer = Syncer::start(1, 1).unwrap();

    let hub = Arc::new(Hub::new([4]));
    let mut task = resumed(&config, &paths, &hub, 1_000, &syncer, Published::default()).await;
    assert_eq!(task.replayed, 0);
    play(&mut task, &inputs).await;
    drop(task);
    let live: Vec<Arc<HubEvent>> = hub.events_since(0);
    let kinds: Vec<&str> = live.iter().map(|e| e.event.kind_name()).collect();
    assert!(kinds.contains(&"illegal_move"), "{kinds:?}");
    assert!(kinds.contains(&"game_over"), "{kinds:?}");
    assert!(live
        .iter()
        .all(|e| !e.replayed && e.wall_ms == 1_000 + e.event.t_ms));
    assert_eq!(
        hub.physical(4),
        None,
        "no [livechess_api]: the board task keeps no physical view"
    );

    // A restart: the same events, marked as replayed, then the restart is noted.
    let hub2 = Arc::new(Hub::new([4]));
    let task = resumed(
        &config,
        &paths,
        &hub2,
        900_000,
        &syncer,
        Published::default(),
    )
    .await;
    let again = hub2.events_since(0);
    assert_eq!(task.replayed as usize, live.len());
    for (a, b) in live.iter().zip(&again) {
        assert_eq!((a.seq, &a.event, a.wall_ms), (b.seq, &b.event, b.wall_ms));
        assert!(b.replayed);
    }
    let last_t = inputs.last().unwrap().t_ms;
    assert_eq!(task.offset, 899_000, "wall-clock time since the epoch");
    assert!(task.offset > last_t);
    let restart = &again[live.len()];
    assert_eq!(restart.seq, live.len() as u64 + 1);
    assert!(!restart.replayed);
    assert!(restart.event.to_json().contains("the daemon restarted"));
    // The game as the sinks see it is the same.
    assert_eq!(hub.board(4).unwrap().games, hub2.board(4).unwrap().games);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
pub(crate) async fn with_the_livechess_api_the_hub_shows_what_the_board_shows() {
    let dir = std::env::temp_dir().join(format!("arbiter-physical-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut config = config(&dir);
    config.livechess_api = Some(daemon_config::LiveChessApiConfig {
        bind: "127.0.0.1:0".parse().unwrap(),
    });
    let paths = Paths::new(&dir);
    let syncer = Syncer::start(1, 1).unwrap();
    let hub = Arc::new(Hub::new([4]));
    let mut task = resumed(&config, &paths, &hub, 1_000, &syncer, Published::default()).await;
    play(&mut task, &inputs()).await;
    let physical = hub.physical(4).expect("the physical view is kept");
    assert_eq!(physical.placement, *task.tracker.placement());
    assert!(physical.clock.is_some(), "the emulated clock's frames");
    drop(task);
    std::fs::remove_dir_all(&dir).unwrap();
}
