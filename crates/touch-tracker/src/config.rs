//! [`TrackerConfig`]: what a tracker needs to know about its board and the tournament's
//! rules: the board's name, clock side and orientation (or "infer"), the start position,
//! the time control and the penalties it implies, supervision, and the two timing
//! windows.

use std::fmt;

use chess_rules::Position;
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{ClockSide, Orientation};
use serde::{Deserialize, Serialize};

use chess_rules::IllegalCategory;

/// The FIDE time-control category (arbiter-rules §2): a player's time for 60 moves
/// (`BASE + 60 x INC`, summed over the periods 60 moves reach) of 10 minutes or less is
/// blitz, under 60 minutes rapid, else
/// standard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeCategory {
    Blitz,
    Rapid,
    Standard,
}

impl TimeCategory {
    /// The category of a time control: its time for 60 moves over the periods they reach
    /// (the `time-control` crate decides it).
    pub fn of(tc: TimeControl) -> TimeCategory {
        match tc.category() {
            time_control::Category::Blitz => TimeCategory::Blitz,
            time_control::Category::Rapid => TimeCategory::Rapid,
            time_control::Category::Standard => TimeCategory::Standard,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TimeCategory::Blitz => "blitz",
            TimeCategory::Rapid => "rapid",
            TimeCategory::Standard => "standard",
        }
    }
}

impl fmt::Display for TimeCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Extra time the opponent gets for a player's first illegal move, per category
/// (art. 7.5.5: 2 minutes in standard play, 1 minute in rapid and blitz by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Penalties {
    pub blitz_ms: u64,
    pub rapid_ms: u64,
    pub standard_ms: u64,
}

impl Default for Penalties {
    fn default() -> Penalties {
        Penalties {
            blitz_ms: 60_000,
            rapid_ms: 60_000,
            standard_ms: 120_000,
        }
    }
}

impl Penalties {
    /// One time for every category (an event's config that names the penalty).
    pub fn same_for_all(ms: u64) -> Penalties {
        Penalties {
            blitz_ms: ms,
            rapid_ms: ms,
            standard_ms: ms,
        }
    }

    pub fn for_category(&self, c: TimeCategory) -> u64 {
        match c {
            TimeCategory::Blitz => self.blitz_ms,
            TimeCategory::Rapid => self.rapid_ms,
            TimeCategory::Standard => self.standard_ms,
        }
    }
}

/// How closely the game is watched (FIDE Laws, Appendix A.5 / B).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Supervision {
    /// An illegal move is corrected whenever it is discovered.
    #[default]
    Full,
    /// Club rapid/blitz without an arbiter at the board: an illegal move can be corrected
    /// only until the opponent has made his next move; after that it stands.
    Partial,
}

/// Parses `full` or `partial`.
impl std::str::FromStr for Supervision {
    type Err = String;

    fn from_str(s: &str) -> Result<Supervision, String> {
        match s {
            "full" => Ok(Supervision::Full),
            "partial" => Ok(Supervision::Partial),
            other => Err(format!(
                "unknown supervision {other:?} (expected full or partial)"
            )),
        }
    }
}

/// Everything a [`crate::Tracker`] is told about its board and the rules in force.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackerConfig {
    /// The board's name, carried in every event.
    pub board: String,
    /// Which side of the clock is White's; `None`: infer it (from the board's orientation,
    /// the side that runs when the game starts, and the first press of White's move).
    pub white_clock: Option<ClockSide>,
    /// How the board lies; `None`: detect it from the first board dump.
    pub orientation: Option<Orientation>,
    /// The position the game starts from (the standard start, a set-up position, or a
    /// Chess960 start: its [`Position::variant`] says which rules the game is played by).
    pub start: Position,
    /// A Chess960 game whose start nobody gave (formats.md §1: a `variant: chess960`
    /// capture without `start-fen`): the first board dump that shows a legal position is
    /// the start, with every castling right of that placement
    /// ([`Position::from_placement_960`]). `start` is only a stand-in until then.
    pub start_from_board: bool,
    /// `None`: unknown; the base time is then taken from the first clock reading and the
    /// increment is taken as zero (only to pick the penalty's category).
    pub time_control: Option<TimeControl>,
    /// Overrides the category the time control gives.
    pub category: Option<TimeCategory>,
    pub penalties: Penalties,
    /// Take back the increment the offender's illegal press added to his clock.
    pub remove_offender_increment: bool,
    pub supervision: Supervision,
    /// Rule a suspected two-handed move (7.5.4) like an illegal move; otherwise it is only
    /// reported.
    pub penalise_two_handed: bool,
    /// Two lifts this close (ms) are evidence of two hands (capture, promotion); king and
    /// rook off the board together this long are evidence for a castling.
    pub two_handed_window_ms: u64,
    /// After a press, how long (ms) the board's scan may still report the move's last
    /// field changes before the board is ruled on as it stands.
    pub settle_window_ms: u64,
    /// A piece gone and back on its square within this (game time, ms) was never
    /// touched: a sensor's flicker (see [`crate::touch::FLICKER_MS`], the default).
    pub flicker_ms: u64,
    /// Game time per wall-clock time: 1 for real boards; an emulated hall playing at a
    /// pace factor (`dgt-arbiter emulate --speed 4`, the demo) has that factor. The
    /// touch times measured (wall clock) are scaled by it, so the two-handed window and
    /// evidence (art. 7.5.4) are in the game's time, as the players' hands would be.
    pub time_scale: f64,
}

impl TrackerConfig {
    /// A board named `board` starting from the standard position, everything else
    /// inferred or at its default.
    pub fn new(board: impl Into<String>) -> TrackerConfig {
        TrackerConfig {
            board: board.into(),
            white_clock: None,
            orientation: None,
            start: Position::start(),
            start_from_board: false,
            time_control: None,
            category: None,
            penalties: Penalties::default(),
            remove_offender_increment: true,
            supervision: Supervision::Full,
            penalise_two_handed: false,
            two_handed_window_ms: 250,
            settle_window_ms: 400,
            flicker_ms: crate::touch::FLICKER_MS,
            time_scale: 1.0,
        }
    }

    /// [`TrackerConfig::flicker_ms`] in the touch log's time (wall clock, see
    /// [`TrackerConfig::time_scale`]).
    pub fn flicker_wall_ms(&self) -> u64 {
        if self.time_scale > 0.0 && self.time_scale.is_finite() {
            (self.flicker_ms as f64 / self.time_scale).round() as u64
        } else {
            self.flicker_ms
        }
    }

    /// The increment in ms, if the time control is known.
    pub fn increment_ms(&self) -> u64 {
        self.time_control
            .map_or(0, |tc| u64::from(tc.first_increment_secs()) * 1000)
    }

    /// The penalty for a first illegal move under a category.
    pub fn penalty_ms(&self, category: TimeCategory) -> u64 {
        self.penalties.for_category(category)
    }

    /// Whether a category of illegal move is penalised at all (a two-handed move only
    /// when configured).
    pub fn penalises(&self, category: IllegalCategory) -> bool {
        category != IllegalCategory::TwoHanded || self.penalise_two_handed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fide_categories() {
        let tc = |b, i| TimeCategory::of(TimeControl::sudden_death(b, i));
        assert_eq!(tc(180, 2), TimeCategory::Blitz);
        assert_eq!(tc(300, 3), TimeCategory::Blitz);
        assert_eq!(tc(600, 0), TimeCategory::Blitz);
        assert_eq!(tc(600, 1), TimeCategory::Rapid);
        assert_eq!(tc(900, 10), TimeCategory::Rapid);
        assert_eq!(tc(3599, 0), TimeCategory::Rapid);
        assert_eq!(tc(3600, 0), TimeCategory::Standard);
        assert_eq!(tc(5400, 30), TimeCategory::Standard);
    }

    #[test]
    fn parsing() {
        assert_eq!("partial".parse(), Ok(Supervision::Partial));
        assert!("some".parse::<Supervision>().is_err());
        let d = Penalties::default();
        assert_eq!(d.for_category(TimeCategory::Standard), 120_000);
        assert_eq!(d.for_category(TimeCategory::Rapid), 60_000);
    }

    #[test]
    fn flicker_bound_is_game_time_turned_into_the_logs_wall_time() {
        // A hall emulated at 3x: the 150 ms bound is 50 ms on the touch log's clock.
        let mut cfg = TrackerConfig::new("t");
        assert_eq!(cfg.flicker_wall_ms(), crate::touch::FLICKER_MS);
        cfg.time_scale = 3.0;
        assert_eq!(cfg.flicker_wall_ms(), 50);
    }
}
