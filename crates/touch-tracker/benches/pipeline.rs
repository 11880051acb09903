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
//! ROUNDS times over all streams; the median round is reported, and the best. Rates are
//! per CPU second of the bench's thread (`CLOCK_THREAD_CPUTIME_ID`), so "per core"
//! holds on a shared machine too; the wall-clock rate is printed beside them.

use std::hint::black_box;
use std::time::Instant;

use chess_rules::CanMate;
use dgt_protocol::{BoardEvent, Decoder, EventFilter, TimedEvent};
use dgt_sim::hands::{Faults, HandOptions, Irregularity, Variations};
use touch_tracker::{ArbiterEvent, EventKind, Tracker};

mod common;
use common::{streams, Stream};

/// CPU time this thread has run, ns (`CLOCK_THREAD_CPUTIME_ID`); `None` where the kernel
/// does not say. Not `/proc/thread-self/schedstat`: some kernels (this project's CI VMs)
/// advance it only at the 4 ms scheduler tick, a quarter of a round's time here.
fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// A stage's times over its rounds, seconds.
struct Timing {
    /// Median and best CPU time of the thread (wall time where CPU time is unknown).
    cpu_med: f64,
    cpu_best: f64,
    /// Median wall time.
    wall_med: f64,
}

/// Runs `f` `rounds` times; returns its times and its last result.
fn timed(rounds: usize, mut f: impl FnMut() -> usize) -> (Timing, usize) {
    let (mut cpu, mut wall) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    let mut n = 0;
    for _ in 0..rounds {
        let (c0, t0) = (thread_cpu_ns(), Instant::now());
        n = black_box(f());
        let w = t0.elapsed().as_secs_f64();
        wall.push(w);
        cpu.push(match (c0, thread_cpu_ns()) {
            (Some(a), Some(b)) => b.saturating_sub(a) as f64 / 1e9,
            _ => w,
        });
    }
    cpu.sort_by(f64::total_cmp);
    wall.sort_by(f64::total_cmp);
    let t = Timing {
        cpu_med: cpu[cpu.len() / 2],
        cpu_best: cpu[0],
        wall_med: wall[wall.len() / 2],
    };
    (t, n)
}

/// Feeds a stream to a fresh tracker as the daemon does (timers and analysis answers
/// included); `each` sees every board event (`None` for a timer firing) with the time its
/// handling took (when `clocked`; else 0: reading the clock twice an event costs a
/// tenth of the tracker's own time, which the throughput stage must not count) and what
/// it emitted.
fn track(
    s: &Stream,
    out: &mut Vec<ArbiterEvent>,
    clocked: bool,
    mut each: impl FnMut(Option<&TimedEvent>, u64, &[ArbiterEvent]),
) {
    let now = || clocked.then(Instant::now);
    let ns = |t0: Option<Instant>| t0.map_or(0, |t0| t0.elapsed().as_nanos() as u64);
    let mut t = Tracker::new(s.config.clone());
    for e in &s.events {
        while let Some(d) = t.poll_timeout().filter(|d| *d <= e.t_ms) {
            let before = out.len();
            let t0 = now();
            t.handle_timeout(d, out);
            each(None, ns(t0), &out[before..]);
        }
        let before = out.len();
        let t0 = now();
        t.handle(e, out);
        each(Some(e), ns(t0), &out[before..]);
        while let Some(req) = t.poll_analysis() {
            t.analysis_done(req.id, CanMate::Yes, out);
        }
        out.clear();
    }
}

/// One line for a stage that eats the line's bytes and yields `n` items of `unit`.
fn print_byte_stage(name: &str, unit: &str, bytes: usize, n: usize, t: &Timing) {
    println!(
        "{name}   {:>7.1} MB/s, {:>6.2} M {unit}/s ({:.2}) [{n} {unit} in {:.1} ms CPU, {:.1} ms wall]",
        bytes as f64 / t.cpu_med / 1e6,
        n as f64 / t.cpu_med / 1e6,
        n as f64 / t.cpu_best / 1e6,
        t.cpu_med * 1e3,
        t.wall_med * 1e3
    );
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
    let irregularities: Vec<Irregularity> = Irregularity::all()
        .into_iter()
        .filter(|i| *i != Irregularity::FlagFall)
        .collect();
    let streams = streams(games, |i| HandOptions {
        seed: i as u64,
        variations: Variations::all(),
        irregularities: vec![irregularities[i % irregularities.len()]],
        faults: Faults {
            line_noise: 3,
            ..Faults::default()
        },
        ..HandOptions::default()
    });
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
         ({fields} field updates); median (best) of {rounds} rounds, per CPU second of one \
         thread",
        streams.len(),
        t0.elapsed().as_secs_f64()
    );

    let (t, messages) = timed(rounds, || {
        let mut n = 0;
        for s in &streams {
            let mut d = Decoder::new();
            for (_, b) in &s.chunks {
                d.feed(b, |m| n += usize::from(m.is_ok()));
            }
        }
        n
    });
    print_byte_stage("decode:         ", "messages", bytes, messages, &t);

    let (t, n) = timed(rounds, || {
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
    print_byte_stage("decode + filter:", "events", bytes, n, &t);

    let mut out = Vec::with_capacity(64);
    let (t, emitted) = timed(rounds, || {
        let mut n = 0;
        for s in &streams {
            track(s, &mut out, false, |_, _, o| n += o.len());
        }
        n
    });
    println!(
        "tracker + rulings: {:>6.2} M field events/s ({:.2}), {:.2} M board events/s, \
         wall {:.2} M field events/s [{emitted} arbiter events in {:.1} ms CPU, {:.1} ms wall]",
        fields as f64 / t.cpu_med / 1e6,
        fields as f64 / t.cpu_best / 1e6,
        events as f64 / t.cpu_med / 1e6,
        fields as f64 / t.wall_med / 1e6,
        t.cpu_med * 1e3,
        t.wall_med * 1e3
    );

    // What the tracker said, as one digest (FNV-1a over the JSON lines of every event):
    // a change of speed must not change it. `PIPELINE_EVENTS=FILE` writes the lines too,
    // to find what differs.
    let mut lines = String::new();
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    for s in &streams {
        track(s, &mut out, false, |_, _, o| {
            for a in o {
                let line = serde_json::to_string(a).unwrap_or_default();
                for b in line.bytes().chain([b'\n']) {
                    digest = (digest ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
                }
                lines.push_str(&line);
                lines.push('\n');
            }
        });
    }
    println!("tracker output digest: {digest:016x} ({emitted} arbiter events)");
    if let Some(path) = std::env::var_os("PIPELINE_EVENTS") {
        if let Err(e) = std::fs::write(&path, &lines) {
            eprintln!("cannot write {}: {e}", path.to_string_lossy());
        }
    }

    // Per event kind, and the presses that bring a ruling: ruled in the press's own
    // handling, or later (the board reports the move after the press; an illegal move is
    // ruled when the board has had its settle window), with the tracker's virtual wait.
    let mut field_ns = Vec::new();
    let mut press_ns = Vec::new();
    let (mut later_ns, mut later_wait_ms) = (Vec::new(), Vec::new());
    let (mut illegal_ns, mut illegal_wait_ms) = (Vec::new(), Vec::new());
    for s in &streams {
        let (mut running, mut press_at) = (None, None);
        track(s, &mut out, true, |e, ns, o| {
            let mut pressed_now = false;
            match e.map(|e| &e.event) {
                Some(BoardEvent::Field(_)) => field_ns.push(ns),
                Some(BoardEvent::Clock(c)) => {
                    let side = c.running_side();
                    if side.is_some() && side != running {
                        pressed_now = true;
                        press_at = e.map(|e| e.t_ms);
                    }
                    running = side;
                }
                _ => {}
            }
            for a in o {
                let wait = press_at.map_or(0, |p| a.t_ms.saturating_sub(p));
                match &a.kind {
                    EventKind::IllegalMove(_) => {
                        illegal_ns.push(ns);
                        illegal_wait_ms.push(wait);
                    }
                    EventKind::Move(m) if m.pressed && pressed_now => press_ns.push(ns),
                    EventKind::Move(m) if m.pressed => {
                        later_ns.push(ns);
                        later_wait_ms.push(wait);
                    }
                    _ => {}
                }
            }
        });
    }
    for (name, mut v) in [
        ("board wait: move", later_wait_ms),
        ("board wait: illegal", illegal_wait_ms),
    ] {
        v.sort_unstable();
        println!(
            "  {name:<22} n {:>7}  p50 {:>6} ms  p99 {:>6} ms  max {:>7} ms (virtual time from the press to the ruling)",
            v.len(),
            percentile(&v, 50.0),
            percentile(&v, 99.0),
            v.last().copied().unwrap_or(0)
        );
    }
    for (name, mut v) in [
        ("field update", field_ns),
        ("press -> move at once", press_ns),
        ("move after the press", later_ns),
        ("illegal move ruling", illegal_ns),
    ] {
        v.sort_unstable();
        println!(
            "  {name:<22} n {:>7}  p50 {:>6.2} us  p99 {:>6.2} us  max {:>7.2} us (one handle call, wall)",
            v.len(),
            percentile(&v, 50.0) as f64 / 1e3,
            percentile(&v, 99.0) as f64 / 1e3,
            v.last().copied().unwrap_or(0) as f64 / 1e3
        );
    }
}
