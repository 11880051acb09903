//! Reading a time control's text: periods `MOVES/SECONDS[+INC]` joined by `:`, the last
//! may be sudden death `SECONDS[+INC]`; blanks around any number are allowed. An error
//! names the period and the part of it that is wrong, so an organiser can fix his config.

use std::num::NonZeroU32;

use crate::{Period, TimeControl};

/// A time control's text that cannot be read, with the text and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?}: {problem} (write BASE+INC in seconds, e.g. 180+2, or periods \
     MOVES/SECONDS[+INC] joined by ':', e.g. 40/5400+30:1800+30)"
)]
pub struct TimeControlError {
    /// The text as given.
    pub text: String,
    pub problem: Problem,
}

/// What is wrong with a time control's text (periods are counted from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("it is empty")]
    Empty,
    #[error("period {period} is empty")]
    EmptyPeriod { period: usize },
    #[error("period {period} ({part:?}): the move count {moves:?} is not a whole number above 0")]
    BadMoves {
        period: usize,
        part: String,
        moves: String,
    },
    #[error("period {period} ({part:?}): the time {secs:?} is not a whole number of seconds")]
    BadSeconds {
        period: usize,
        part: String,
        secs: String,
    },
    #[error(
        "period {period} ({part:?}): the increment {increment:?} is not a whole number of seconds"
    )]
    BadIncrement {
        period: usize,
        part: String,
        increment: String,
    },
    #[error(
        "period {period} ({part:?}) has no move count, so it lasts the rest of the game, yet \
         another period follows it"
    )]
    SuddenDeathNotLast { period: usize, part: String },
    #[error(
        "period {period} ({part:?}) is out of bounds: a period gives 1 second to 6 hours \
         (21600) and an increment of 0 to 600 seconds"
    )]
    OutOfBounds { period: usize, part: String },
    #[error(
        "{periods} periods: a time control has at most {max} (the DGT3000's)",
        max = crate::MAX_PERIODS
    )]
    TooManyPeriods { periods: usize },
    #[error(
        "{part:?} is a PGN form the daemon cannot follow ('?' unknown, '-' no control, \
         '*SECONDS' a sandclock)"
    )]
    Unsupported { part: String },
}

/// Whole seconds or moves: ASCII digits only (`u32::from_str` would take a leading '+',
/// letting `180++2` through).
fn whole(t: &str) -> Option<u32> {
    let t = t.trim();
    (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.parse().ok())
        .flatten()
}

fn period(index: usize, part: &str) -> Result<Period, Problem> {
    let trimmed = part.trim();
    if trimmed.is_empty() {
        return Err(Problem::EmptyPeriod { period: index });
    }
    if trimmed == "?" || trimmed == "-" || trimmed.starts_with('*') {
        return Err(Problem::Unsupported {
            part: trimmed.to_owned(),
        });
    }
    let (moves, rest) = match trimmed.split_once('/') {
        Some((m, rest)) => {
            let moves = whole(m)
                .and_then(NonZeroU32::new)
                .ok_or(Problem::BadMoves {
                    period: index,
                    part: trimmed.to_owned(),
                    moves: m.trim().to_owned(),
                })?;
            (Some(moves), rest)
        }
        None => (None, trimmed),
    };
    let (secs, increment) = match rest.split_once('+') {
        Some((s, i)) => (s, Some(i)),
        None => (rest, None),
    };
    let secs = whole(secs).ok_or_else(|| Problem::BadSeconds {
        period: index,
        part: trimmed.to_owned(),
        secs: secs.trim().to_owned(),
    })?;
    let increment_secs = match increment {
        None => 0,
        Some(i) => whole(i).ok_or_else(|| Problem::BadIncrement {
            period: index,
            part: trimmed.to_owned(),
            increment: i.trim().to_owned(),
        })?,
    };
    Ok(Period {
        moves,
        secs,
        increment_secs,
    })
}

pub(crate) fn time_control(text: &str) -> Result<TimeControl, TimeControlError> {
    let err = |problem| TimeControlError {
        text: text.to_owned(),
        problem,
    };
    if text.trim().is_empty() {
        return Err(err(Problem::Empty));
    }
    let periods = text
        .split(':')
        .enumerate()
        .map(|(i, part)| period(i + 1, part))
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    TimeControl::from_periods(&periods).map_err(err)
}
