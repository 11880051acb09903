//! The DGT e-board and clock serial protocol as a sans-IO codec, plus `.dgtcap` capture
//! files.
//!
//! - [`Decoder`] turns board-to-host bytes, pushed in chunks of any size, into typed
//!   [`BoardMessage`]s or typed [`DecodeError`]s; it resynchronises on noise and holds at
//!   most one frame of memory.
//! - [`HostCommand`] and [`ClockCommand`] encode what the host sends; [`CommandDecoder`]
//!   reads it back (for emulators and capture dumps).
//! - [`FieldIndex`] and [`Orientation`] map the board's field numbering to
//!   `chess_rules::Square`; [`PieceCode`] and [`RawBoard`] carry what the board reports.
//! - [`BoardEvent`] is what the driver emits and the tracker consumes; [`EventFilter`] is
//!   the one pure step from messages to events, shared by the live driver and replays.
//! - [`capture`] reads and writes `.dgtcap` files.
//!
//! Facts come from the project's protocol fact sheet (`shared/docs/dgt-protocol.md`); the
//! section numbers in comments refer to it. No IO and no async here.

pub mod board;
pub mod capture;
pub mod clock;
pub mod command;
pub mod decode;
pub mod event;
pub mod message;

pub use board::{
    BadFieldIndex, BadPieceCode, FieldIndex, FieldUpdate, MagicPiece, Orientation, PieceCode,
    RawBoard,
};
pub use clock::{
    BadHms, ButtonPress, ClockAck, ClockButton, ClockSide, ClockTime, ClockVersion, HeldButtons,
    Hms, SideTime,
};
pub use command::{
    ClockCommand, ClockIcons, ClockText, ClockTextError, CommandDecoder, CommandError,
    CommandProblem, DecodedCommand, HostCommand, LedCommand, SetAndRunMode, XlDisplay,
};
pub use decode::{DecodeError, DecodeErrorKind, Decoded, Decoder, PayloadProblem};
pub use event::{BoardEvent, BoardIdentity, EventFilter, TimedEvent};
pub use message::MAX_FRAME_LEN;
pub use message::{
    BatteryStatus, BoardMessage, BusAddress, DraughtsPart, EeMoves, EeRecord, HoursMinutes,
    SerialNumber, Version,
};
