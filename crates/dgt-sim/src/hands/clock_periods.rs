//! Where a script's clock adds its periods against where the rules say they are due
//! (arbiter-rules.md section 5, "Rulings"): a reference for an arbiter's `clock_mismatch`
//! alerts, derived from the plies' records. Not among the [`Expected`](super::Expected)
//! events: the plies give `clock_count` and `period_began`, this reads them as the rules
//! do.

use chess_rules::Color;

use super::script::PlyRecord;
use super::Script;

/// Why a period's time is not where the rules say it is due (formats.md `clock_mismatch`
/// `reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MismatchReason {
    /// Added at a press before the due move (an illegal press left on the counter).
    AddedEarly,
    /// Added at a press after the due move (a press the clock missed).
    AddedLate,
    /// Not added at the press of the due move.
    NotAdded,
}

impl MismatchReason {
    /// The `reason` as formats.md writes it.
    pub fn name(self) -> &'static str {
        match self {
            MismatchReason::AddedEarly => "period_added_early",
            MismatchReason::AddedLate => "period_added_late",
            MismatchReason::NotAdded => "period_not_added",
        }
    }
}

/// One place where the clock and the rules disagree about a period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodMismatch {
    pub color: Color,
    pub reason: MismatchReason,
    /// The player's move (1-based, in this game) at whose press it is seen.
    pub mv: u32,
    /// The move at whose press the period was due.
    pub due_move: u32,
    /// The time of that press (of the move, when it was not pressed).
    pub at_ms: u64,
}

impl Script {
    /// Every press at which the clock's periods disagree with the rules, in time order:
    /// a period begun at another press than its due move's (early or late), and a due
    /// move pressed without its period. A turn with an illegal press counts as its
    /// move's: a period the clock began at that press is taken as begun at the move.
    pub fn period_mismatches(&self) -> Vec<PeriodMismatch> {
        let mut out: Vec<PeriodMismatch> = Color::ALL
            .into_iter()
            .flat_map(|color| {
                let plies: Vec<&PlyRecord> =
                    self.plies.iter().filter(|p| p.color == color).collect();
                mismatches_of(self, color, &plies)
            })
            .collect();
        out.sort_by_key(|m| m.at_ms);
        out
    }
}

/// One player's mismatches; his i-th ply is his move i + 1.
fn mismatches_of(script: &Script, color: Color, plies: &[&PlyRecord]) -> Vec<PeriodMismatch> {
    let tc = script.time_control;
    let mut in_period = 0u32;
    let mut out = Vec::new();
    for (i, p) in plies.iter().enumerate() {
        let mv = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let at_ms = p.press_ms.unwrap_or(p.made_at_ms);
        let found = match p.period_began {
            Some(began) => {
                in_period = began.0;
                tc.move_adding_period(began.0)
                    .filter(|due| *due != mv)
                    .map(|due_move| {
                        let reason = if mv < due_move {
                            MismatchReason::AddedEarly
                        } else {
                            MismatchReason::AddedLate
                        };
                        (reason, due_move)
                    })
            }
            // Due at this press, which was made, and the clock is still in an earlier
            // period (not already added early).
            None => tc
                .owed_at_move(mv)
                .next_period
                .filter(|next| p.press_ms.is_some() && next.index > in_period)
                .map(|_| (MismatchReason::NotAdded, mv)),
        };
        if let Some((reason, due_move)) = found {
            out.push(PeriodMismatch {
                color,
                reason,
                mv,
                due_move,
                at_ms,
            });
        }
    }
    out
}
