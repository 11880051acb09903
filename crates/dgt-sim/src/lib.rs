//! An emulated DGT board with a DGT3000 clock behind it, served on a pseudo-terminal, and a
//! hand-motion generator that turns games into the physical actions real players make.

pub mod action;

pub use action::{Action, TimedAction};
