//! How fast the tracker's event path is: real games played by the hand-motion generator
//! on the emulator (scan model, clock frames), decoded and filtered beforehand, then fed to
//! a tracker and timed. Analysis requests are answered "can mate" at once, so the search
//! is not measured (it runs off the event path).
//!
//! `cargo run --release -p touch-tracker --example throughput [GAMES]` (reads
//! `shared/data/pgn/...` beside the workspace, or `$DGT_SHARED_DIR`).

use std::time::Instant;

use chess_rules::{read_pgn, CanMate};
use dgt_protocol::{BoardEvent, Decoder, EventFilter, HostCommand, TimedEvent};
use dgt_sim::hands::{generate, GameInput, HandOptions, Variations};
use dgt_sim::{Emulator, EmulatorConfig};
use touch_tracker::{Tracker, TrackerConfig};

fn main() {
    let games: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let bytes = test_data::read("pgn/pychess-gamefiles/world_matches.pgn");
    let pgns = read_pgn(&bytes).expect("the PGN file reads");
    let mut streams: Vec<(TrackerConfig, Vec<TimedEvent>)> = Vec::new();
    for (i, pgn) in pgns.iter().take(games).enumerate() {
        let Ok(game) = GameInput::from_pgn(pgn) else {
            continue;
        };
        let opts = HandOptions {
            seed: i as u64,
            variations: Variations::all(),
            ..HandOptions::default()
        };
        let Ok(script) = generate(&game, &opts) else {
            continue;
        };
        let mut emu = Emulator::new(EmulatorConfig {
            scan_interval_ms: 250,
            ..script.emulator_config()
        });
        emu.receive(
            &[
                HostCommand::SendBoard.encode(),
                HostCommand::SendUpdateNice.encode(),
            ]
            .concat(),
        );
        let (mut decoder, mut filter) = (Decoder::new(), EventFilter::new());
        let mut events = Vec::new();
        let mut take = |emu: &mut Emulator, events: &mut Vec<TimedEvent>| {
            for chunk in emu.take_output() {
                for msg in decoder.push(&chunk.bytes).into_iter().flatten() {
                    for event in filter.on_message(&msg) {
                        events.push(TimedEvent {
                            t_ms: chunk.t_ms,
                            event,
                        });
                    }
                }
            }
        };
        for a in &script.actions {
            emu.apply_at(a.at_ms, &a.action);
            take(&mut emu, &mut events);
        }
        let mut cfg = TrackerConfig::new("bench");
        cfg.start = script.start;
        cfg.time_control = Some(script.time_control);
        streams.push((cfg, events));
    }
    let total: usize = streams.iter().map(|(_, e)| e.len()).sum();
    let fields: usize = streams
        .iter()
        .flat_map(|(_, e)| e)
        .filter(|e| matches!(e.event, BoardEvent::Field(_)))
        .count();
    let mut out = Vec::with_capacity(1024);
    let mut moves = 0usize;
    // Time spent on field updates that did not complete a move (the common path), and on
    // everything else.
    let (mut quiet_ns, mut quiet_n) = (0u128, 0usize);
    let started = Instant::now();
    for (cfg, events) in &streams {
        let mut t = Tracker::new(cfg.clone());
        for e in events {
            let before = out.len();
            let t0 = Instant::now();
            t.handle(e, &mut out);
            if matches!(e.event, BoardEvent::Field(_)) && out.len() == before {
                quiet_ns += t0.elapsed().as_nanos();
                quiet_n += 1;
            }
            while let Some(req) = t.poll_analysis() {
                t.analysis_done(req.id, CanMate::Yes, &mut out);
            }
        }
        moves += t.game().moves().len();
        out.clear();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} games, {moves} moves, {total} events ({fields} field updates) in {:.3} s: \
         {:.0} events/s overall",
        streams.len(),
        secs,
        total as f64 / secs,
    );
    println!(
        "field updates that record nothing: {quiet_n}, {:.0} ns each ({:.2} million/s, \
         timer overhead included)",
        quiet_ns as f64 / quiet_n.max(1) as f64,
        quiet_n as f64 / (quiet_ns as f64 / 1e9) / 1e6
    );
}
