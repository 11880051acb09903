//! An emulated DGT board with a DGT3000 clock behind it, served on a pseudo-terminal: this
//! crate owns what the board and clock do and say, not who moves the pieces (the simulated
//! players are `dgt-sim`'s `hands`).
//!
//! - [`Emulator`] is the sans-IO core: host bytes, physical [`Action`]s and virtual time
//!   in, board-to-host bytes out, as the protocol fact sheet §9 describes.
//! - [`serve`] puts emulators on pseudo-terminals (with a stable symlink that survives
//!   unplug/replug) or on in-process byte streams, all driven by one thread, in real time
//!   scaled by a speed factor.

pub mod action;
pub mod emulator;
pub mod serve;

pub use action::{Action, TimedAction};
pub use emulator::{
    BoardMode, Emulator, EmulatorConfig, LineBehaviour, MoveCount, OutputChunk, PeriodIndex,
};
pub use serve::{serve_pty, BoardHandle, Hub, SentChunk, SentLog, ServeOptions, ServedBoard};
