//! How many dead-position searches a replay takes, per batch size (docs/performance.md,
//! "Dead-position questions in batches"): replays the captures once per size given, as
//! `replay --fast` does, and prints the events, the batches settled and undone, and the
//! questions that went to the analyst's fast check or search.
//!
//! `cargo run --release -p touch-tracker --example replay_searches -- SIZES FILE.dgtcap...`
//! with SIZES like `0,16,128` (0: every question answered at once).

use std::io::BufRead;
use std::time::Instant;

use capture_replay::{Replay, ReplayOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: replay_searches SIZES FILE.dgtcap...";
    let sizes: Vec<usize> = args
        .next()
        .ok_or(usage)?
        .split(',')
        .map(|s| s.parse().map_err(|e| format!("batch size {s:?}: {e}")))
        .collect::<Result<_, _>>()?;
    let files: Vec<String> = args.collect();
    if files.is_empty() {
        return Err(usage.into());
    }
    for size in sizes {
        let mut inputs = Vec::with_capacity(files.len());
        for f in &files {
            let file = std::fs::File::open(f).map_err(|e| format!("{f}: {e}"))?;
            inputs.push((
                f.clone(),
                Box::new(std::io::BufReader::new(file)) as Box<dyn BufRead>,
            ));
        }
        let opts = ReplayOptions {
            dead_position_batch: size,
            ..ReplayOptions::default()
        };
        let mut replay = Replay::new(inputs, &opts)?;
        let started = Instant::now();
        let mut events = Vec::new();
        replay.run(&mut events)?;
        let took = started.elapsed();
        let (settled, undone, searched) = replay
            .batch_counts()
            .fold((0, 0, 0), |(s, u, q), (a, b, c)| (s + a, u + b, q + c));
        println!(
            "batch size {size}: {} events; batches settled {settled}, undone {undone}; \
             questions to the fast check or search {searched}; {:.1} ms wall",
            events.len(),
            took.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
