//! Simulated players for the emulated DGT board: [`hands`] turns a game into the timed
//! physical [`Action`]s of real players' hands, with injected irregularities, plus the
//! events an arbiter must emit for them. The board and clock they act on are
//! `dgt-emulator`'s, re-exported here so that a test or tool needs one crate for both.

pub mod hands;

pub use dgt_emulator::{action, emulator, serve};
pub use dgt_emulator::{
    serve_pty, Action, BoardHandle, BoardMode, Emulator, EmulatorConfig, Hub, LineBehaviour,
    MoveCount, OutputChunk, PeriodIndex, SentChunk, SentLog, ServeOptions, ServedBoard,
    TimedAction,
};
pub use hands::{generate, GameInput, HandOptions, Script};
