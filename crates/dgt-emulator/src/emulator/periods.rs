//! The DGT3000's move counter and the periods it adds by it (arbiter-rules.md section 5,
//! "What the clock does"): the clock counts each player's lever presses itself and adds
//! the next period's time when that count reaches the period's moves. The count is the
//! clock's, not the game's: an illegal move's press is counted, a forgotten press is not,
//! and an arbiter may set it from the clock's menu.

use dgt_protocol::capture::TimeControl;

pub use crate::action::MoveCount;

/// The 0-based period a player's clock is in (a repeating last period counts on:
/// `40/7200` is in period 2 after 80 counted presses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PeriodIndex(pub u32);

/// What one counted press gives a player's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gain {
    /// The increment of the period the clock was in at the press, ms.
    pub increment_ms: u64,
    /// The period this press began (its time is in `added_ms`), if any.
    pub began: Option<PeriodIndex>,
    /// The period's time added at this press, ms (0 without a new period).
    pub added_ms: u64,
}

/// The counted press that brings a player's count to `count` while his clock is in period
/// `in_period`. A period is added once: when the count reaches the end of a period later
/// than the one the clock is in (a counter set back across a period already added does
/// not add it again, so a corrected count gives each period exactly once).
pub(crate) fn counted_press(
    control: &TimeControl,
    in_period: PeriodIndex,
    count: MoveCount,
) -> Gain {
    let increment_ms = control
        .period(in_period.0)
        .map_or(0, |p| u64::from(p.increment_secs) * 1000);
    let start = control
        .owed_at_move(count.0)
        .next_period
        .filter(|start| start.index > in_period.0);
    Gain {
        increment_ms,
        began: start.map(|s| PeriodIndex(s.index)),
        added_ms: start.map_or(0, |s| u64::from(s.secs) * 1000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(text: &str) -> TimeControl {
        text.parse().expect("a valid control")
    }

    /// Presses `n` times from the start, following the periods; the gains in order.
    fn run(control: &TimeControl, n: u32) -> Vec<Gain> {
        let mut period = PeriodIndex(0);
        let mut count = MoveCount(0);
        (0..n)
            .map(|_| {
                count = count.next();
                let g = counted_press(control, period, count);
                if let Some(p) = g.began {
                    period = p;
                }
                g
            })
            .collect()
    }

    #[test]
    fn the_second_period_comes_at_the_fortieth_press_with_the_first_periods_increment() {
        let control = tc("40/5400+30:1800+15");
        let gains = run(&control, 45);
        let began: Vec<(usize, PeriodIndex)> = gains
            .iter()
            .enumerate()
            .filter_map(|(i, g)| g.began.map(|p| (i + 1, p)))
            .collect();
        assert_eq!(began, [(40, PeriodIndex(1))]);
        assert_eq!(gains[39].added_ms, 1_800_000);
        assert_eq!(gains[39].increment_ms, 30_000, "move 40 is period 1's");
        assert_eq!(gains[40].increment_ms, 15_000, "move 41 is period 2's");
        assert_eq!(gains[40].added_ms, 0);
    }

    #[test]
    fn a_repeating_last_period_comes_every_forty_presses() {
        let gains = run(&tc("40/7200"), 125);
        let at: Vec<usize> = gains
            .iter()
            .enumerate()
            .filter(|(_, g)| g.added_ms == 7_200_000)
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(at, [40, 80, 120]);
        let three = run(&tc("40/7200:20/3600:900+30"), 70);
        let added: Vec<(usize, u64, u64)> = three
            .iter()
            .enumerate()
            .filter(|(_, g)| g.began.is_some())
            .map(|(i, g)| (i + 1, g.added_ms, g.increment_ms))
            .collect();
        assert_eq!(added, [(40, 3_600_000, 0), (60, 900_000, 0)]);
        assert_eq!(
            three[60].increment_ms, 30_000,
            "sudden death has its increment"
        );
    }

    #[test]
    fn a_period_already_added_is_not_added_again_after_the_counter_is_set_back() {
        let control = tc("40/5400+30:1800+30");
        // The period came at 40 (early, say); the arbiter sets the counter to 39.
        let again = counted_press(&control, PeriodIndex(1), MoveCount(40));
        assert_eq!(again.began, None);
        assert_eq!(again.added_ms, 0);
        // Still in period 1 at 39: the 40th press adds it.
        let due = counted_press(&control, PeriodIndex(0), MoveCount(40));
        assert_eq!(due.began, Some(PeriodIndex(1)));
    }

    #[test]
    fn counts_step_and_never_wrap() {
        assert_eq!(MoveCount(u32::MAX).next(), MoveCount(u32::MAX));
        assert_eq!(MoveCount(0).previous(), MoveCount(0));
        assert_eq!(MoveCount(40).previous(), MoveCount(39));
    }
}
