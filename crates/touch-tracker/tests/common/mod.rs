//! Helpers shared by the integration tests: replaying captures (found by `test_data`) and
//! reading events.
#![allow(dead_code)]

use std::io::BufRead;
use std::path::PathBuf;

use capture_replay::{Replay, ReplayOptions};
use touch_tracker::{ArbiterEvent, EventKind, MoveEvent};

/// Replays captures as fast as possible and returns every event.
pub fn replay(paths: &[PathBuf], opts: &ReplayOptions) -> Vec<ArbiterEvent> {
    let inputs = paths
        .iter()
        .map(|p| {
            let f = std::fs::File::open(p)
                .unwrap_or_else(|e| panic!("cannot open {}: {e}", p.display()));
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (
                stem,
                Box::new(std::io::BufReader::new(f)) as Box<dyn BufRead>,
            )
        })
        .collect();
    let mut r = Replay::new(inputs, opts).unwrap();
    let mut out = Vec::new();
    r.run(&mut out).unwrap();
    out
}

pub fn moves(events: &[ArbiterEvent]) -> Vec<&MoveEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Move(m) => Some(m),
            _ => None,
        })
        .collect()
}

/// The moves as the sinks see them: a move that `replaces` another takes its ply.
pub fn final_moves(events: &[ArbiterEvent]) -> Vec<&MoveEvent> {
    let mut out: Vec<&MoveEvent> = Vec::new();
    for m in moves(events) {
        if m.replaces.is_some() {
            if let Some(last) = out.last() {
                if last.ply == m.ply {
                    out.pop();
                }
            }
        }
        out.push(m);
    }
    out
}

pub fn count(events: &[ArbiterEvent], kind: &str) -> usize {
    events.iter().filter(|e| e.kind_name() == kind).count()
}

pub mod sim;
