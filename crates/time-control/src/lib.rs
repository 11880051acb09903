//! Time controls as the PGN standard's `TimeControl` tag writes them, and what they give a
//! player's clock (FIDE Laws art. 6; arbiter-rules.md section 5).
//!
//! This crate owns one idea, "what a clock owes a player, and when": the text form
//! (`40/5400+30:1800+30`, `40/7200:20/3600:900+30`, `5400+30`, `300+3`) with errors that
//! name the part that is wrong; the FIDE category (the time for 60 moves over the periods
//! those moves reach); and, at the press that completes a player's move N, the additions
//! due (the increment of the period the move was played in, and the next period's time
//! when move N ends a period), so that a reading of the clock after a press can be judged.
//! Pure: no IO, no clock of its own.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

mod parse;

pub use parse::{Problem, TimeControlError};

/// One period: `MOVES/SECONDS[+INC]`, or sudden death `SECONDS[+INC]` (no move count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Period {
    /// The moves to make in this period; `None` is sudden death (the rest of the game).
    pub moves: Option<NonZeroU32>,
    /// The time the period gives, in seconds.
    pub secs: u32,
    /// Added at each move completed in this period, in seconds (a Fischer increment).
    pub increment_secs: u32,
}

/// The most periods a control may have: the DGT3000 shows and counts five (its period
/// icons 1-5), and no FIDE control has more.
pub const MAX_PERIODS: usize = 5;

/// A time control: one to [`MAX_PERIODS`] periods. Every period but the last has a move
/// count; a last period with a move count repeats (`40/7200` is two hours for every 40
/// moves). `Copy`, like the `BASE+INC` pair it grew from: it travels in every board's
/// configuration and capture header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeControl {
    /// The first `len` are the periods (only the last may be sudden death); the rest are
    /// [`UNUSED`], so that equality and hashing see the periods only.
    slots: [Period; MAX_PERIODS],
    len: u8,
}

/// The longest period the daemon takes (6 hours), in seconds.
pub const MAX_PERIOD_SECS: u32 = 6 * 3600;
/// The largest increment the daemon takes, in seconds.
pub const MAX_INCREMENT_SECS: u32 = 600;

const UNUSED: Period = Period {
    moves: None,
    secs: 0,
    increment_secs: 0,
};

/// The FIDE category of a time control (Laws, Appendix A and B): it decides the default
/// penalty of art. 7.5.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// 10 minutes or less for 60 moves.
    Blitz,
    /// More than 10 and less than 60 minutes for 60 moves.
    Rapid,
    /// 60 minutes or more for 60 moves.
    Standard,
}

/// What the clock owes a player at the press that completes one of his moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owed {
    /// The increment of the period the move was made in, in seconds.
    pub increment_secs: u32,
    /// The period that begins after this move, when the move ends a period: its time is
    /// added at this press (art. 6; the DGT3000 adds it by its own count of presses).
    pub next_period: Option<PeriodStart>,
}

/// A period that begins: which one (0-based, counting repetitions of a repeating last
/// period: `40/7200` has periods 0, 1, 2, ...) and the time it adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodStart {
    pub index: u32,
    pub secs: u32,
}

impl TimeControl {
    /// One sudden-death period: `BASE+INC` in seconds.
    pub const fn sudden_death(base_secs: u32, increment_secs: u32) -> TimeControl {
        let mut slots = [UNUSED; MAX_PERIODS];
        slots[0] = Period {
            moves: None,
            secs: base_secs,
            increment_secs,
        };
        TimeControl { slots, len: 1 }
    }

    /// A control from its periods, or what is wrong with them.
    pub fn from_periods(periods: &[Period]) -> Result<TimeControl, Problem> {
        if periods.is_empty() {
            return Err(Problem::Empty);
        }
        if periods.len() > MAX_PERIODS {
            return Err(Problem::TooManyPeriods {
                periods: periods.len(),
            });
        }
        let last = periods.len() - 1;
        if let Some(index) = periods[..last].iter().position(|p| p.moves.is_none()) {
            return Err(Problem::SuddenDeathNotLast {
                period: index + 1,
                part: periods[index].to_string(),
            });
        }
        let mut slots = [UNUSED; MAX_PERIODS];
        slots[..periods.len()].copy_from_slice(periods);
        Ok(TimeControl {
            slots,
            len: periods.len() as u8,
        })
    }

    /// The bounds of a control the daemon follows: each period gives 1 second to 6 hours
    /// (21,600 s) and adds 0 to 600 seconds a move. Outside them the text is a typing
    /// mistake (minutes for seconds), not an event's control.
    pub fn check_bounds(&self) -> Result<(), Problem> {
        for (i, p) in self.periods().iter().enumerate() {
            if p.secs == 0 || p.secs > MAX_PERIOD_SECS || p.increment_secs > MAX_INCREMENT_SECS {
                return Err(Problem::OutOfBounds {
                    period: i + 1,
                    part: p.to_string(),
                });
            }
        }
        Ok(())
    }

    /// The periods as written (a repeating last period once).
    #[inline]
    pub fn periods(&self) -> &[Period] {
        &self.slots[..usize::from(self.len)]
    }

    /// The time on each clock at the start, in seconds (the first period's).
    pub fn base_secs(&self) -> u32 {
        self.periods()[0].secs
    }

    /// The first period's increment, in seconds (the only one of a `BASE+INC` control).
    pub fn first_increment_secs(&self) -> u32 {
        self.periods()[0].increment_secs
    }

    /// One period, sudden death: a `BASE+INC` control, whose clock never adds a period.
    #[inline]
    pub fn is_sudden_death_only(&self) -> bool {
        self.periods().len() == 1 && self.periods()[0].moves.is_none()
    }

    /// Period `index` as played (0-based; past the written ones a repeating last period
    /// repeats), or `None` past a sudden-death end.
    pub fn period(&self, index: u32) -> Option<&Period> {
        let last = self.periods().len() - 1;
        match usize::try_from(index) {
            Ok(i) if i <= last => Some(&self.periods()[i]),
            _ => Some(&self.periods()[last]).filter(|p| p.moves.is_some()),
        }
    }

    /// The period (0-based, as [`TimeControl::period`]) in which a player's move `n`
    /// (1-based) is made, and the move that ends it (`None` in sudden death).
    pub fn period_of_move(&self, n: u32) -> (u32, Option<u32>) {
        let n = n.max(1);
        let mut end: u64 = 0;
        for (i, p) in self.periods().iter().enumerate() {
            let Some(moves) = p.moves else {
                return (i as u32, None);
            };
            let moves = u64::from(moves.get());
            if u64::from(n) <= end + moves || i == self.periods().len() - 1 {
                // The last written period repeats: which repetition holds move n.
                let past = (u64::from(n) - 1).saturating_sub(end) / moves;
                let ends = end + (past + 1) * moves;
                let index = i as u64 + past;
                return (
                    u32::try_from(index).unwrap_or(u32::MAX),
                    u32::try_from(ends).ok(),
                );
            }
            end += moves;
        }
        // Not reached: the last period either is sudden death or repeats.
        (self.periods().len() as u32 - 1, None)
    }

    /// What the press that completes a player's move `n` (1-based) owes his clock.
    pub fn owed_at_move(&self, n: u32) -> Owed {
        let (index, ends) = self.period_of_move(n);
        let increment_secs = self.period(index).map_or(0, |p| p.increment_secs);
        let next_period = (ends == Some(n.max(1)))
            .then(|| index.checked_add(1))
            .flatten()
            .and_then(|next| {
                self.period(next).map(|p| PeriodStart {
                    index: next,
                    secs: p.secs,
                })
            });
        Owed {
            increment_secs,
            next_period,
        }
    }

    /// The player's move at whose press period `index` (0-based, as [`TimeControl::period`])
    /// begins: the moves of every period before it (40 for period 1 of
    /// `40/5400+30:1800+30`, 80 for period 2 of `40/7200`). `None` for the first period
    /// (on the clock from the start) and for a period past a sudden-death end.
    pub fn move_adding_period(&self, index: u32) -> Option<u32> {
        if index == 0 {
            return None;
        }
        self.period(index)?;
        let mut moves: u32 = 0;
        for i in 0..index {
            let m = self.period(i)?.moves?;
            moves = moves.checked_add(m.get())?;
        }
        Some(moves)
    }

    /// The period (0-based) a player who has completed `completed` moves plays his next
    /// move in: the period whose time his clock should hold now.
    pub fn period_after_moves(&self, completed: u32) -> u32 {
        self.period_of_move(completed.saturating_add(1)).0
    }

    /// Moves a player who has completed `completed` moves still has to make to reach the
    /// time control ("12 moves to the time control"), or `None` in sudden death.
    pub fn moves_to_control(&self, completed: u32) -> Option<u32> {
        let (_, ends) = self.period_of_move(completed.saturating_add(1));
        ends.map(|e| e - completed)
    }

    /// The time a player is given for his first `moves` moves: every period those moves
    /// reach, with the increments of the moves (the FIDE category counts 60 moves).
    pub fn secs_for_moves(&self, moves: u32) -> u64 {
        let mut total = 0u64;
        let mut first = 1u32; // the first move of period `index`
        let mut index = 0u32;
        while first <= moves {
            let Some(p) = self.period(index) else { break };
            total += u64::from(p.secs);
            let last = p
                .moves
                .map_or(moves, |m| first.saturating_add(m.get() - 1).min(moves));
            total += u64::from(last - first + 1) * u64::from(p.increment_secs);
            match last.checked_add(1) {
                Some(next) if p.moves.is_some() => first = next,
                _ => break,
            }
            index += 1;
        }
        total
    }

    /// The FIDE category: the time for 60 moves (arbiter-rules.md section 2 and 5).
    pub fn category(&self) -> Category {
        Category::of_secs_for_60_moves(self.secs_for_moves(60))
    }
}

impl Category {
    /// The category of a player's time for 60 moves, in seconds.
    pub fn of_secs_for_60_moves(secs: u64) -> Category {
        if secs <= 600 {
            Category::Blitz
        } else if secs < 3600 {
            Category::Rapid
        } else {
            Category::Standard
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Category::Blitz => "blitz",
            Category::Rapid => "rapid",
            Category::Standard => "standard",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Period {
    /// `MOVES/SECONDS` with `+INC` when it has one; sudden death as `SECONDS+INC` always,
    /// the `BASE+INC` form this project has always written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.moves {
            Some(m) => {
                write!(f, "{m}/{}", self.secs)?;
                if self.increment_secs > 0 {
                    write!(f, "+{}", self.increment_secs)?;
                }
                Ok(())
            }
            None => write!(f, "{}+{}", self.secs, self.increment_secs),
        }
    }
}

impl fmt::Display for TimeControl {
    /// The PGN standard's form, periods joined by `:`; it reads back as the same control.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.periods().iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl FromStr for TimeControl {
    type Err = TimeControlError;
    fn from_str(s: &str) -> Result<TimeControl, TimeControlError> {
        parse::time_control(s)
    }
}

impl serde::Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
