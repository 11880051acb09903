//! How fast the tracker's event path is: real games played by the hand-motion generator
//! on the emulator (scan model, clock frames), decoded and filtered beforehand, then fed to
//! a tracker and timed. The streams are the pipeline bench's (`benches/common`) without
//! its irregularities and line noise. Analysis requests are answered "can mate" at once,
//! so the search is not measured (it runs off the event path).
//!
//! `cargo run --release -p touch-tracker --example throughput [GAMES]` (reads
//! `shared/data/pgn/...` beside the workspace, or `$DGT_SHARED_DIR`).

use std::time::Instant;

use chess_rules::CanMate;
use dgt_protocol::BoardEvent;
use dgt_sim::hands::{HandOptions, Variations};
use touch_tracker::Tracker;

#[path = "../benches/common/mod.rs"]
mod common;
use common::streams;

fn main() {
    let games: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let streams = streams(games, |i| HandOptions {
        seed: i as u64,
        variations: Variations::all(),
        ..HandOptions::default()
    });
    let total: usize = streams.iter().map(|s| s.events.len()).sum();
    let fields: usize = streams
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| matches!(e.event, BoardEvent::Field(_)))
        .count();
    let mut out = Vec::with_capacity(1024);
    let mut moves = 0usize;
    // Time spent on field updates that did not complete a move (the common path), and on
    // everything else.
    let (mut quiet_ns, mut quiet_n) = (0u128, 0usize);
    let started = Instant::now();
    for s in &streams {
        let mut t = Tracker::new(s.config.clone());
        for e in &s.events {
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
