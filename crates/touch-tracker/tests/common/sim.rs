//! Playing a hand-motion script on the in-process emulator (virtual time, realistic scan)
//! and reading it back through the decoder, the event filter and the tracker, as the live
//! daemon does; and comparing the tracker's events with the generator's expectations.

use chess_rules::{read_pgn, PgnGame};
use dgt_protocol::{BoardEvent, Decoder, EventFilter, HostCommand, Orientation, TimedEvent};
use dgt_sim::hands::{Expected, Script};
use dgt_sim::{Action, Emulator, EmulatorConfig, OutputChunk};
use touch_tracker::{ArbiterEvent, EventKind, SyncTracker, TrackerConfig};

/// The board's scan interval in the emulator (a real board: 200-250 ms).
pub const SCAN_MS: u64 = 250;

/// The tracker configuration a script is played under.
pub fn config_for(script: &Script) -> TrackerConfig {
    let mut cfg = TrackerConfig::new("sim");
    cfg.start = script.start;
    cfg.time_control = Some(script.time_control);
    cfg
}

/// The driver's side of the line, in the small: decode, filter, track.
struct Pipe {
    decoder: Decoder,
    filter: EventFilter,
    tracker: SyncTracker,
    out: Vec<ArbiterEvent>,
}

impl Pipe {
    fn event(&mut self, t: u64, event: BoardEvent) {
        self.tracker
            .handle(&TimedEvent { t_ms: t, event }, &mut self.out);
    }

    fn chunks(&mut self, chunks: Vec<OutputChunk>) {
        for c in chunks {
            let msgs: Vec<_> = self.decoder.push(&c.bytes).into_iter().flatten().collect();
            for m in msgs {
                for e in self.filter.on_message(&m) {
                    self.event(c.t_ms, e);
                }
            }
        }
    }
}

fn init(emu: &mut Emulator) {
    emu.receive(
        &[
            HostCommand::SendBoard.encode(),
            HostCommand::SendUpdateNice.encode(),
        ]
        .concat(),
    );
}

/// Plays `script` on an emulated board lying in `orientation` and returns the tracker's
/// events.
pub fn play(script: &Script, orientation: Orientation, cfg: TrackerConfig) -> Vec<ArbiterEvent> {
    let mut emu = Emulator::new(EmulatorConfig {
        orientation,
        scan_interval_ms: SCAN_MS,
        ..script.emulator_config()
    });
    let mut pipe = Pipe {
        decoder: Decoder::new(),
        filter: EventFilter::new(),
        tracker: SyncTracker::new(cfg),
        out: Vec::new(),
    };
    pipe.event(
        0,
        BoardEvent::Connected {
            serial: None,
            version: None,
            clock_version: None,
        },
    );
    init(&mut emu);
    for a in &script.actions {
        emu.advance_to(a.at_ms);
        pipe.chunks(emu.take_output());
        emu.apply(&a.action);
        match a.action {
            // What the driver does when the line goes and comes back.
            Action::BoardCable { plugged: false } => {
                pipe.chunks(emu.take_output());
                pipe.event(
                    a.at_ms,
                    BoardEvent::Disconnected {
                        reason: "cable".into(),
                    },
                );
                pipe.decoder.reset();
                pipe.filter.reset_clock();
            }
            Action::BoardCable { plugged: true } => {
                pipe.event(
                    a.at_ms,
                    BoardEvent::Connected {
                        serial: None,
                        version: None,
                        clock_version: None,
                    },
                );
                init(&mut emu);
            }
            _ => {}
        }
        pipe.chunks(emu.take_output());
    }
    let end = script.end_ms + 2 * SCAN_MS;
    emu.advance_to(end);
    pipe.chunks(emu.take_output());
    pipe.tracker.finish(end, &mut pipe.out);
    pipe.out
}

/// Touch-move violations the generator injects by an adjustment (a piece lifted and put
/// back) that the board could not see: lifted and put back between two scans, so never
/// reported. No tracker can rule on them; tests set such games aside and count them.
pub fn unseen_adjustments(script: &Script) -> usize {
    let mut n = 0;
    for p in &script.plies {
        let Some(sq) = p.adjusted else { continue };
        if p.irregularity.is_none() {
            continue;
        }
        let before = &script.actions[..p.motion.start];
        let Some(i) = before
            .iter()
            .rposition(|a| matches!(a.action, Action::Lift(s) if s == sq))
        else {
            continue;
        };
        let lifted = before[i].at_ms;
        let placed = before[i..]
            .iter()
            .find(|a| matches!(a.action, Action::Place(s, _) if s == sq))
            .map_or(u64::MAX, |a| a.at_ms);
        // The scan after the lift comes at the next multiple of the interval.
        if placed < (lifted / SCAN_MS + 1) * SCAN_MS {
            n += 1;
        }
    }
    n
}

/// The tracker's events as the sinks see them: only the compared kinds, and a move that
/// replaces the move of its ply (with what followed it) takes its place.
pub fn compared(events: &[ArbiterEvent]) -> Vec<&ArbiterEvent> {
    let mut out: Vec<&ArbiterEvent> = Vec::new();
    for e in events
        .iter()
        .filter(|e| Expected::KINDS.contains(&e.kind_name()))
    {
        if let EventKind::Move(m) = &e.kind {
            if m.replaces.is_some() {
                if let Some(i) = out
                    .iter()
                    .rposition(|x| matches!(&x.kind, EventKind::Move(o) if o.ply == m.ply))
                {
                    out.truncate(i);
                }
            }
        }
        out.push(e);
    }
    out
}

/// Why an event is not the expected one, if it is not.
pub fn mismatch(want: &Expected, got: &ArbiterEvent) -> Option<String> {
    let json = serde_json::to_value(got).unwrap();
    want.mismatch(&json)
        .map(|why| format!("{why}\n  (expected {want:?})"))
}

/// Compares the whole sequence; the first difference, with context.
pub fn check(script: &Script, events: &[ArbiterEvent]) -> Result<(), String> {
    let got = compared(events);
    let mut want: Vec<Expected> = script.events().cloned().collect();
    // The generator leaves out the end by the rules when the game's last move is the
    // queen that corrects an unpromoted pawn (and it mates): the end is still its own
    // `rules_end`, and comes after the queen is put on the board.
    if let Some(end) = script.rules_end {
        if !want.iter().any(|e| matches!(e, Expected::GameOver { .. })) {
            want.push(Expected::GameOver {
                result: end.result,
                reason: end.reason,
            });
        }
    }
    for (i, w) in want.iter().enumerate() {
        let Some(g) = got.get(i) else {
            return Err(format!(
                "event {i}: expected {w:?}, the tracker stopped after {} events",
                got.len()
            ));
        };
        if let Some(m) = mismatch(w, g) {
            let from = i.saturating_sub(3);
            let context: Vec<String> = got[from..i].iter().map(|e| e.to_json()).collect();
            return Err(format!(
                "event {i}: {m}\n  after:\n    {}",
                context.join("\n    ")
            ));
        }
    }
    if got.len() > want.len() {
        return Err(format!(
            "{} extra events, first: {}",
            got.len() - want.len(),
            got[want.len()].to_json()
        ));
    }
    Ok(())
}

/// Every game of `shared/data/pgn`, named `file#n`.
pub fn corpus() -> Vec<(String, PgnGame)> {
    test_data::pgn_corpus(read_pgn)
}
