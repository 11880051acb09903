//! Line and cable faults laid over a finished script, inside ordinary plies only (nothing
//! irregular on the ply or next to it), so that they change no expected event: a pulled
//! board cable and garbage on the line while a player thinks or moves, a clock cable
//! pulled while he thinks and plugged back before he moves.

use super::options::Faults;
use super::plan::stream;
use super::rng::HandRng;
use super::script::PlyRecord;
use crate::action::{Action, TimedAction};

/// A stretch of time a fault may use.
#[derive(Debug, Clone, Copy)]
struct Window {
    from: u64,
    to: u64,
}

/// A cable pulled `count` times, inside one of `windows`, for `len` ms each time.
struct Pulls<'w> {
    count: u32,
    windows: &'w [Window],
    len: (u64, u64),
    /// The action of the cable, plugged or not.
    cable: fn(bool) -> Action,
}

/// The faults to add, at their times (not yet merged into the script).
pub(crate) fn faults(plies: &[PlyRecord], f: &Faults, seed: u64) -> Vec<TimedAction> {
    let mut rng = HandRng::derived(seed, stream::FAULTS);
    let quiet = |i: usize| {
        let lo = i.saturating_sub(1);
        let hi = (i + 1).min(plies.len().saturating_sub(1));
        plies[lo..=hi].iter().all(|p| p.irregularity.is_none())
    };
    // Whole turns (until just before the press) and thinks (until a second before the
    // hand moves).
    let mut turns = Vec::new();
    let mut thinks = Vec::new();
    for (i, p) in plies.iter().enumerate() {
        if !quiet(i) {
            continue;
        }
        let end = p.press_ms.unwrap_or(p.made_at_ms + 500);
        turns.push(Window {
            from: p.turn_start_ms + 100,
            to: end.saturating_sub(100),
        });
        thinks.push(Window {
            from: p.turn_start_ms + 200,
            to: p.first_touch_ms.saturating_sub(1000),
        });
    }
    let mut out = Vec::new();
    let mut used: Vec<Window> = Vec::new();
    let mut place = |windows: &[Window], len: (u64, u64), rng: &mut HandRng| -> Option<Window> {
        for _ in 0..50 {
            let w = *rng.pick(windows)?;
            let dur = rng.range(len.0, len.1);
            if w.to < w.from + dur {
                continue;
            }
            let from = rng.range(w.from, w.to - dur);
            let cand = Window {
                from,
                to: from + dur,
            };
            // Faults do not overlap one another.
            if used.iter().all(|u| cand.to < u.from || cand.from > u.to) {
                used.push(cand);
                return Some(cand);
            }
        }
        None
    };
    // Cables pulled at the start of a window and plugged back at its end.
    let cables = [
        Pulls {
            count: f.board_cable_pulls,
            windows: &turns,
            len: f.board_cable_off_ms,
            cable: |plugged| Action::BoardCable { plugged },
        },
        Pulls {
            count: f.clock_unplugs,
            windows: &thinks,
            len: f.clock_off_ms,
            cable: |plugged| Action::ClockCable { plugged },
        },
    ];
    for c in cables {
        for _ in 0..c.count {
            if let Some(w) = place(c.windows, c.len, &mut rng) {
                out.push(TimedAction {
                    at_ms: w.from,
                    action: (c.cable)(false),
                });
                out.push(TimedAction {
                    at_ms: w.to,
                    action: (c.cable)(true),
                });
            }
        }
    }
    for _ in 0..f.line_noise {
        if let Some(w) = place(&turns, (0, 0), &mut rng) {
            // Bytes without the high bit start no message: pure noise the decoder skips.
            let n = rng.range(1, 12) as usize;
            let bytes = (0..n).map(|_| rng.range(0, 0x7F) as u8).collect();
            out.push(TimedAction {
                at_ms: w.from,
                action: Action::LineNoise(bytes),
            });
        }
    }
    out
}
