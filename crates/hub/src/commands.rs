//! [`Commands`]: the one way back to a running board task, for every arbiter command that
//! changes what its tracker decides (a decision, accepting an out-of-sync board as the
//! position, entering a gap's moves, a takeback, confirming a serial). The dashboard, a
//! central's forwarded actions and the CLI all send here. Each board task registers a
//! channel when it starts; a command carries a reply, so the caller answers with what
//! the tracker did or why it refused.

use std::collections::BTreeMap;
use std::sync::Mutex;

use chess_rules::Color;
use tokio::sync::{mpsc, oneshot};
use touch_tracker::{ArbiterEvent, ArbiterInput};

/// How many commands may wait for one board task.
pub const COMMANDS_PER_BOARD: usize = 16;

/// What the tracker said: the accepted position, or why not.
pub type AcceptReply = Result<Accepted, String>;

/// The position an acceptance adopted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    pub fen: String,
    /// Its ply (the first move from it is `ply + 1`).
    pub ply: u32,
    /// Neither the arbiter nor the clock gave the ply: `ply` is the fewest possible.
    pub ply_unknown: bool,
}

/// The record after the arbiter's moves or takeback (issue 40).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The last position of the record (full FEN) and its ply.
    pub fen: String,
    pub ply: u32,
}

/// Why the arbiter's moves were refused: in words, and the move to blame (1-based, and
/// as he gave it) when one is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovesRefused {
    pub why: String,
    pub culprit: Option<(usize, String)>,
}

/// One order for a board task.
#[derive(Debug)]
pub enum ArbiterCommand {
    /// The arbiter's decision ([`crate::decisions`], [`crate::decide`]): the events it
    /// made once journaled and published, or why the tracker refused it.
    Decide {
        input: ArbiterInput,
        reply: oneshot::Sender<Result<Vec<ArbiterEvent>, String>>,
    },
    /// Accept what the out-of-sync board shows as the position, `side` to move, at `ply`
    /// when the arbiter gives it (from the scoresheets).
    AcceptBoard {
        side: Color,
        ply: Option<u32>,
        reply: oneshot::Sender<AcceptReply>,
    },
    /// Enter the moves of a gap (SAN or UCI) from `from_ply` (the last recorded one when
    /// `None`). Always answered `Ok`: the inner result is the tracker's.
    EnterMoves {
        from_ply: Option<u32>,
        moves: Vec<String>,
        reply: oneshot::Sender<Result<Result<Recorded, MovesRefused>, String>>,
    },
    /// Take the game back to `to_ply` (art. 7.5.1, or the arbiter's decision).
    TakeBack {
        to_ply: u32,
        reason: String,
        reply: oneshot::Sender<Result<Recorded, String>>,
    },
    /// The board answering on this board's port with `serial`, which no board of the
    /// event has, is this board (a spare put in its place; [`crate::serials`]).
    ConfirmSerial {
        serial: String,
        reply: oneshot::Sender<Result<(), String>>,
    },
}

/// Why an order did not reach its board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("board {0} is not running")]
    NotRunning(u32),
    #[error("board {0} has {COMMANDS_PER_BOARD} commands waiting already; try again")]
    Busy(u32),
}

/// The running boards' order channels, by board number.
#[derive(Debug, Default)]
pub struct Commands {
    senders: Mutex<BTreeMap<u32, mpsc::Sender<ArbiterCommand>>>,
}

impl Commands {
    /// A board task starts: the receiving end of its channel.
    pub fn register(&self, board: u32) -> mpsc::Receiver<ArbiterCommand> {
        let (tx, rx) = mpsc::channel(COMMANDS_PER_BOARD);
        self.lock().insert(board, tx);
        rx
    }

    /// Sends an order to a board's task.
    pub fn send(&self, board: u32, order: ArbiterCommand) -> Result<(), CommandError> {
        let tx = self
            .lock()
            .get(&board)
            .cloned()
            .ok_or(CommandError::NotRunning(board))?;
        tx.try_send(order).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => CommandError::Busy(board),
            mpsc::error::TrySendError::Closed(_) => CommandError::NotRunning(board),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, mpsc::Sender<ArbiterCommand>>> {
        self.senders.lock().unwrap_or_else(|p| p.into_inner())
    }
}
