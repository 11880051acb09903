//! What a player's hands (or the world) do to the emulated board and clock.
//!
//! The hand-motion generator (`hands`) produces [`TimedAction`]s from a game; the emulator
//! applies them one by one at their times. Squares are real chess squares: the emulator
//! maps them to DGT field indices through the board's orientation, so a script plays the
//! same on a board turned round.

use chess_rules::{Color, Piece, Square};
use dgt_protocol::ClockButton;

/// One physical thing that happens at the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A hand lifts the piece standing on the square (the square reads empty).
    Lift(Square),
    /// A hand puts a piece down on the square. If another piece stood there, the square
    /// changes code directly, with no empty state (as a capture made by putting the own
    /// piece straight onto the victim does on a real board).
    Place(Square, Piece),
    /// The player of this colour presses the clock lever (the lever flips, that player's
    /// time stops, the opponent's runs, the increment is added). Which physical side of the
    /// clock belongs to which colour is the emulator's configuration.
    PressClock(Color),
    /// The clock's start/stop (play/pause) button: the running side stops, or runs again.
    PauseClock,
    /// The clock cable is pulled (the board then reports "no clock") or plugged back.
    ClockCable { plugged: bool },
    /// The board's own cable is pulled (the host sees the line vanish) or plugged back.
    BoardCable { plugged: bool },
    /// Garbage on the line: these bytes reach the host as they are (a truncated frame
    /// is noise too: the first bytes of a frame and nothing more).
    LineNoise(Vec<u8>),
    /// A button on the front of the clock is pressed; the board reports it (as an
    /// unprompted clock ACK) in the UPDATE modes.
    ClockButton(ClockButton),
    /// The board's firmware hangs (sends nothing, ignores the host: a long silence) or
    /// recovers.
    Hang { hung: bool },
    /// The board is turned 180 degrees, pieces and all (as an arbiter turns a board
    /// that was set up the wrong way round before a game). The fields keep their
    /// contents, so nothing is reported; later actions name the real squares as the
    /// board now lies.
    TurnBoard,
    /// The arbiter changes a player's time on the clock by this many ms (more time for
    /// the opponent after an illegal move, FIDE 7.5.5; an increment taken back: less).
    AdjustTime { color: Color, delta_ms: i64 },
    /// The arbiter sets a player's move counter from the clock's menu (after an illegal
    /// move's press the clock counted, he takes it back by one, or the next period comes
    /// a move early: arbiter-rules.md section 5).
    SetMoveCounter { color: Color, count: MoveCount },
}

/// An action at a time, in milliseconds from the start of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedAction {
    pub at_ms: u64,
    pub action: Action,
}

/// The clock's own count of one player's presses, as its move counter shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MoveCount(pub u32);

impl MoveCount {
    /// One press more (saturating: a counter never wraps back into period 1).
    pub fn next(self) -> MoveCount {
        MoveCount(self.0.saturating_add(1))
    }

    /// One press fewer, as an arbiter takes the counter back (never below 0).
    pub fn previous(self) -> MoveCount {
        MoveCount(self.0.saturating_sub(1))
    }
}

impl std::fmt::Display for MoveCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
