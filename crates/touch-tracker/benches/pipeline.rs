//! The event path's speed on one core, stage by stage, on generated real-game streams
//! with noise: real games (`shared/data/pgn`) played by the hand-motion generator with
//! every normal variation (capture orders, sliding noise, adjustments, forgotten presses),
//! one injected irregularity per game and bursts of line garbage, on the emulator with a
//! 250 ms board scan and a running DGT3000. The bytes it sends are what a board sends.
//!
//! - decode: bytes -> `BoardMessage`s (`dgt_protocol::Decoder`);
//! - decode + filter: bytes -> `BoardEvent`s (`EventFilter`), the driver's whole job on a
//!   byte;
//! - tracker + rulings: `BoardEvent`s -> `ArbiterEvent`s (analysis requests answered at
//!   once: the search runs off the event path), in field events a second;
//! - press to ruling in-process: the tracker's time for each press that brings a move or
//!   an illegal-move ruling (the distribution).
//!
//! `cargo bench -p touch-tracker --bench pipeline [-- GAMES [ROUNDS]]` (defaults 200 and
//! 7; reads `shared/data` beside the workspace, or `$DGT_SHARED_DIR/data`). Each stage runs
//! ROUNDS times over all streams; the median round is reported, and the best.

use std::hint::black_box;
use std::time::Instant;

use chess_rules::{read_pgn, CanMate};
use dgt_protocol::{BoardEvent, Decoder, EventFilter, HostCommand, TimedEvent};
use dgt_sim::hands::{generate, Faults, GameInput, HandOptions, Irregularity, Variations};
use dgt_sim::{Emulator, EmulatorConfig};
use touch_tracker::{ArbiterEvent, EventKind, Tracker, TrackerConfig};

/// One game as the line carried it.
struct Stream {
    config: TrackerConfig,
    /// What the board sent, chunk by chunk, with the time it sent it.
    chunks: Vec<(u64, Vec<u8>)>,
    /// The same, decoded and filtered.
    events: Vec<TimedEvent>,
}

fn streams(games: usize) -> Vec<Stream> {
    let bytes = test_data::read("pgn/pychess-gamefiles/world_matches.pgn");
    let pgns = read_pgn(&bytes).expect("the PGN file reads");
    let irregularities: Vec<Irregularity> = Irregularity::all()
        .into_iter()
        .filter(|i| *i != Irregularity::FlagFall)
        .collect();
    let mut out = Vec::new();
    for (i, pgn) in pgns.iter().take(games).enumerate() {
        let Ok(game) = GameInput::from_pgn(pgn) else {
            continue;
        };
        let opts = HandOptions {
            seed: i as u64,
            variations: Variations::all(),
            irregularities: vec![irregularities[i % irregularities.len()]],
            faults: Faults {
                line_noise: 3,
                ..Faults::default()
            },
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
        let mut chunks = Vec::new();
        for a in &script.actions {
            emu.apply_at(a.at_ms, &a.action);
            chunks.extend(emu.take_output().into_iter().map(|c| (c.t_ms, c.bytes)));
        }
        emu.advance_to(script.end_ms + 2_000);
        chunks.extend(emu.take_output().into_iter().map(|c| (c.t_ms, c.bytes)));
        let (mut decoder, mut filter) = (Decoder::new(), EventFilter::new());
        let mut events = vec![TimedEvent {
            t_ms: 0,
            event: BoardEvent::Connected {
                serial: None,
                version: None,
            },
        }];
        for (t_ms, bytes) in &chunks {
            for msg in decoder.push(bytes).into_iter().flatten() {
                for event in filter.on_message(&msg) {
                    events.push(TimedEvent { t_ms: *t_ms, event });
                }
            }
        }
        let mut config = TrackerConfig::new("bench");
        config.start = script.start;
        config.time_control = Some(script.time_control);
        out.push(Stream {
            config,
            chunks,
            events,
        });
    }
    out
}

/// Runs `f` `rounds` times; returns the median and the best time, seconds.
fn timed(rounds: usize, mut f: impl FnMut() -> usize) -> (f64, f64, usize) {
    let mut secs = Vec::with_capacity(rounds);
    let mut n = 0;
    for _ in 0..rounds {
        let t0 = Instant::now();
        n = black_box(f());
        secs.push(t0.elapsed().as_secs_f64());
    }
    secs.sort_by(f64::total_cmp);
    (secs[secs.len() / 2], secs[0], n)
}

/// Feeds a stream to a fresh tracker as the daemon does (timers and analysis answers
/// included); `each` sees every event with the time its handling took and what it
/// emitted.
fn track(
    s: &Stream,
    out: &mut Vec<ArbiterEvent>,
    mut each: impl FnMut(&TimedEvent, u64, &[ArbiterEvent]),
) {
    let mut t = Tracker::new(s.config.clone());
    for e in &s.events {
        while let Some(d) = t.poll_timeout().filter(|d| *d <= e.t_ms) {
            t.handle_timeout(d, out);
        }
        let before = out.len();
        let t0 = Instant::now();
        t.handle(e, out);
        let ns = t0.elapsed().as_nanos() as u64;
        each(e, ns, &out[before..]);
        while let Some(req) = t.poll_analysis() {
            t.analysis_done(req.id, CanMate::Yes, out);
        }
        out.clear();
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    let i = ((p / 100.0) * (sorted.len().saturating_sub(1)) as f64).round() as usize;
    sorted.get(i).copied().unwrap_or(0)
}

fn main() {
    // `cargo bench` passes `--bench`; the numbers are ours.
    let nums: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let games = nums.first().copied().unwrap_or(200);
    let rounds = nums.get(1).copied().unwrap_or(7).max(1);

    let t0 = Instant::now();
    let streams = streams(games);
    let bytes: usize = streams
        .iter()
        .flat_map(|s| &s.chunks)
        .map(|(_, b)| b.len())
        .sum();
    let events: usize = streams.iter().map(|s| s.events.len()).sum();
    let fields = streams
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| matches!(e.event, BoardEvent::Field(_)))
        .count();
    println!(
        "{} games generated in {:.1} s: {bytes} bytes on the line, {events} board events \
         ({fields} field updates); median (best) of {rounds} rounds, one core",
        streams.len(),
        t0.elapsed().as_secs_f64()
    );

    let (med, best, messages) = timed(rounds, || {
        let mut n = 0;
        for s in &streams {
            let mut d = Decoder::new();
            for (_, b) in &s.chunks {
                d.feed(b, |m| n += usize::from(m.is_ok()));
            }
        }
        n
    });
    println!(
        "decode:            {:>7.1} MB/s, {:>6.2} M messages/s ({:.2}) [{messages} messages in {:.1} ms]",
        bytes as f64 / med / 1e6,
        messages as f64 / med / 1e6,
        messages as f64 / best / 1e6,
        med * 1e3
    );

    let (med, best, n) = timed(rounds, || {
        let mut n = 0;
        for s in &streams {
            let (mut d, mut f) = (Decoder::new(), EventFilter::new());
            for (_, b) in &s.chunks {
                d.feed(b, |m| {
                    if let Ok(m) = m {
                        n += f.on_message(&m).len();
                    }
                });
            }
        }
        n
    });
    println!(
        "decode + filter:   {:>7.1} MB/s, {:>6.2} M events/s ({:.2}) [{n} events in {:.1} ms]",
        bytes as f64 / med / 1e6,
        n as f64 / med / 1e6,
        n as f64 / best / 1e6,
        med * 1e3
    );

    let mut out = Vec::with_capacity(64);
    let (med, best, emitted) = timed(rounds, || {
        let mut n = 0;
        for s in &streams {
            track(s, &mut out, |_, _, o| n += o.len());
        }
        n
    });
    println!(
        "tracker + rulings: {:>6.2} M field events/s ({:.2}), {:.2} M board events/s \
         [{emitted} arbiter events in {:.1} ms]",
        fields as f64 / med / 1e6,
        fields as f64 / best / 1e6,
        events as f64 / med / 1e6,
        med * 1e3
    );

    // Per event kind, and the presses that bring a ruling.
    let mut field_ns = Vec::new();
    let mut press_ns = Vec::new();
    let mut illegal_ns = Vec::new();
    for s in &streams {
        track(s, &mut out, |e, ns, o| match &e.event {
            BoardEvent::Field(_) => field_ns.push(ns),
            BoardEvent::Clock(_) => {
                if o.iter()
                    .any(|a| matches!(a.kind, EventKind::IllegalMove(_)))
                {
                    illegal_ns.push(ns);
                } else if o.iter().any(|a| matches!(a.kind, EventKind::Move(_))) {
                    press_ns.push(ns);
                }
            }
            _ => {}
        });
    }
    for (name, mut v) in [
        ("field update", field_ns),
        ("press -> move", press_ns),
        ("press -> illegal move", illegal_ns),
    ] {
        v.sort_unstable();
        println!(
            "  {name:<22} n {:>7}  p50 {:>6.2} us  p99 {:>6.2} us  max {:>7.2} us (one handle call, timer included)",
            v.len(),
            percentile(&v, 50.0) as f64 / 1e3,
            percentile(&v, 99.0) as f64 / 1e3,
            v.last().copied().unwrap_or(0) as f64 / 1e3
        );
    }
}
