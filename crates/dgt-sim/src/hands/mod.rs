//! The hand-motion generator: a game (a start position and its moves, or a PGN game)
//! becomes the timed physical actions real players make at a DGT board and clock, plus
//! the ordered events an arbiter must emit when watching them.
//!
//! - Normal play ([`Variations`]): plain moves with varied timing; captures in the three
//!   orders seen on real boards; castling king first; en passant with the pawn removed
//!   before or after; promotions pawn-first or piece-first (underpromotions as played);
//!   sliding noise; adjustments that bind to nothing; think time and a press after each
//!   move, budgeted to the time control; a press now and then forgotten.
//! - Injected irregularities ([`Irregularity`]), each with the events the rules say must
//!   follow: an illegal move of every category (searched in the game's own positions,
//!   made physically, pressed, restored, then the game's real move), a press without a
//!   move, a pawn left unpromoted, touch-move violations, a two-handed castling, a flag
//!   fall.
//! - Faults ([`Faults`]): cable pulls, garbage and clock unplugs at quiet moments.
//!
//! Everything is seeded: the same game, seed and options give the same [`Script`]. The
//! generator plays its own script on an [`Emulator`](crate::Emulator) to know each
//! player's exact clock, so nobody loses on time unless a flag fall is asked for.
//!
//! ```
//! use dgt_sim::hands::{generate, GameInput, HandOptions};
//! let game = GameInput::from_uci(chess_rules::START_FEN, &["e2e4", "e7e5", "g1f3"]).unwrap();
//! let script = generate(&game, &HandOptions::default()).unwrap();
//! assert_eq!(script.plies.len(), 3);
//! let mut emu = dgt_sim::Emulator::new(script.emulator_config());
//! for a in &script.actions {
//!     emu.apply_at(a.at_ms, &a.action);
//! }
//! assert_eq!(emu.placement(), *script.final_position.placement());
//! ```

mod attempts;
mod chess960;
mod clock_periods;
mod expected;
mod faults;
mod motion;
mod options;
mod plan;
mod rng;
mod script;
mod scripted;

use chess_rules::{Color, Move, PgnGame, Position, ReplayError};
use dgt_protocol::capture::TimeControl;

pub use chess960::chess960_game;
pub use chess_rules::{Attempt, IllegalCategory, RestoreStep};
pub use clock_periods::{MismatchReason, PeriodMismatch};
pub use expected::{Expected, Ruling, TimedExpected};
pub use motion::{CaptureOrder, MoveStyle, SEEN_TOUCH_MS, TWO_HAND_SAFE_MS};
pub use options::{
    ArbiterClock, ArbiterCounter, Faults, HandOptions, IllegalKind, Irregularity,
    ParseIrregularityError, Variations,
};
pub use plan::{RulesEnd, Skipped};
pub use rng::HandRng;
pub use script::PlyRecord;
pub use scripted::ScriptedHands;

use crate::action::TimedAction;
use crate::emulator::EmulatorConfig;

/// Why a script could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HandsError {
    #[error("cannot replay the game: {0}")]
    Replay(#[from] ReplayError),
    #[error("move {index} ({mv}) is not legal in {fen}")]
    IllegalMove {
        index: usize,
        mv: String,
        fen: String,
    },
    #[error("bad start position: {0}")]
    Fen(#[from] chess_rules::FenError),
    #[error("bad options: {0}")]
    Options(String),
    #[error(
        "{color} would lose on time although no flag fall was asked for: time control \
         {time_control} is too short for this game at think scale {think_scale}"
    )]
    TimeTrouble {
        color: Color,
        time_control: TimeControl,
        think_scale: f64,
    },
    #[error("hand-motion generator bug: {0}")]
    Internal(String),
}

/// A game to play: where it starts and its moves (all legal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInput {
    pub start: Position,
    pub moves: Vec<Move>,
}

impl GameInput {
    /// Checks that every move is legal in turn.
    pub fn new(start: Position, moves: Vec<Move>) -> Result<GameInput, HandsError> {
        let mut pos = start;
        for (index, &m) in moves.iter().enumerate() {
            pos = pos.play(m).map_err(|e| HandsError::IllegalMove {
                index,
                mv: m.uci(),
                fen: e.fen,
            })?;
        }
        Ok(GameInput { start, moves })
    }

    /// A PGN game's start position (its `FEN` tag or the standard start) and moves.
    pub fn from_pgn(pgn: &PgnGame) -> Result<GameInput, HandsError> {
        let game = pgn.replay()?;
        Ok(GameInput {
            start: *game.start(),
            moves: game.moves().to_vec(),
        })
    }

    /// A start FEN and UCI moves.
    pub fn from_uci(fen: &str, moves: &[&str]) -> Result<GameInput, HandsError> {
        let start = Position::from_fen(fen)?;
        let mut pos = start;
        let mut out = Vec::with_capacity(moves.len());
        for (index, uci) in moves.iter().enumerate() {
            let m = pos.parse_uci(uci).map_err(|_| HandsError::IllegalMove {
                index,
                mv: (*uci).to_owned(),
                fen: pos.fen(),
            })?;
            pos = pos.play(m).map_err(|e| HandsError::IllegalMove {
                index,
                mv: m.uci(),
                fen: e.fen,
            })?;
            out.push(m);
        }
        Ok(GameInput { start, moves: out })
    }

    /// The position before each move, and after the last: `moves.len() + 1` positions.
    pub fn positions(&self) -> Result<Vec<Position>, HandsError> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        out.push(self.start);
        for (index, &m) in self.moves.iter().enumerate() {
            let pos = out[index].play(m).map_err(|e| HandsError::IllegalMove {
                index,
                mv: m.uci(),
                fen: e.fen,
            })?;
            out.push(pos);
        }
        Ok(out)
    }
}

/// An irregularity as it was injected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injected {
    pub irregularity: Irregularity,
    /// Index into the game's moves of the move it comes with.
    pub index: usize,
    /// The game's ply number of that move.
    pub ply: u32,
    /// For an illegal attempt: the pieces it touched, and whether the game's real move
    /// then breaks the touch-move obligation they create (a `touch_move` is expected).
    pub touched: Vec<(chess_rules::Square, chess_rules::Piece)>,
    pub breaks_touch_move: bool,
}

/// A game as physical actions, and what the arbiter must make of them.
#[derive(Debug, Clone)]
pub struct Script {
    pub start: Position,
    pub time_control: TimeControl,
    /// Times never decrease.
    pub actions: Vec<TimedAction>,
    /// In the order the arbiter must emit them.
    pub expected: Vec<TimedExpected>,
    /// One record per move played (an unplayed final ply, e.g. on a flag fall, has none).
    pub plies: Vec<PlyRecord>,
    pub injected: Vec<Injected>,
    /// Irregularities asked for that this game could not take, and why.
    pub skipped: Vec<Skipped>,
    /// Set when the game ends by the rules (mate, stalemate, dead position, fivefold,
    /// 75 moves); moves after that point in the source are not played.
    pub rules_end: Option<RulesEnd>,
    /// The position after the last move played.
    pub final_position: Position,
    /// When the game is over (after the last action, or the flag's fall).
    pub end_ms: u64,
}

impl Script {
    /// An emulator configuration that plays this script as it was timed: the start
    /// placement, the time control on both sides, White on the left. Orientation and the
    /// rest may be changed freely.
    pub fn emulator_config(&self) -> EmulatorConfig {
        script::clock_config(
            &self.start,
            &HandOptions {
                time_control: self.time_control,
                ..HandOptions::default()
            },
        )
    }

    /// Just the events, in order.
    pub fn events(&self) -> impl Iterator<Item = &Expected> {
        self.expected.iter().map(|e| &e.event)
    }
}

/// Turns a game into a script.
pub fn generate(game: &GameInput, opts: &HandOptions) -> Result<Script, HandsError> {
    if !(opts.think_scale.is_finite() && opts.think_scale >= 0.0) {
        return Err(HandsError::Options(format!(
            "think_scale must be a non-negative number, not {}",
            opts.think_scale
        )));
    }
    if opts.arbiter_delay_ms.0 > opts.arbiter_delay_ms.1 {
        return Err(HandsError::Options(format!(
            "arbiter_delay_ms {:?} is not a range (low, high)",
            opts.arbiter_delay_ms
        )));
    }
    let positions = game.positions()?;
    let plan = plan::plan(&positions, &game.moves, opts);
    let laid = script::lay_out(&positions, &game.moves, &plan, opts)?;
    let injected = plan
        .placed
        .iter()
        .map(|(&index, p)| {
            let (touched, breaks) = match &p.injection {
                plan::Injection::Attempt(c) => (c.touched.clone(), c.violation.is_some()),
                _ => (Vec::new(), false),
            };
            Injected {
                irregularity: p.irregularity,
                index,
                ply: positions[index].plies() + 1,
                touched,
                breaks_touch_move: breaks,
            }
        })
        .collect();
    let fault_actions = faults::faults(&laid.plies, &opts.faults, opts.seed);
    let (actions, plies) = merge(laid.actions, laid.plies, fault_actions);
    let played = plies.len();
    Ok(Script {
        start: game.start,
        time_control: opts.time_control,
        actions,
        expected: laid.expected,
        plies,
        injected,
        skipped: plan.skipped,
        rules_end: plan.rules_end,
        final_position: positions[played],
        end_ms: laid.end_ms,
    })
}

/// Merges fault actions into the script by time (after script actions at the same
/// time) and moves the plies' action indices along.
fn merge(
    base: Vec<TimedAction>,
    mut plies: Vec<PlyRecord>,
    mut extra: Vec<TimedAction>,
) -> (Vec<TimedAction>, Vec<PlyRecord>) {
    if extra.is_empty() {
        return (base, plies);
    }
    extra.sort_by_key(|a| a.at_ms);
    let mut new_index = Vec::with_capacity(base.len() + 1);
    let mut out = Vec::with_capacity(base.len() + extra.len());
    let mut extra = extra.into_iter().peekable();
    for a in base {
        while extra.peek().is_some_and(|e| e.at_ms < a.at_ms) {
            out.extend(extra.next());
        }
        new_index.push(out.len());
        out.push(a);
    }
    new_index.push(out.len());
    out.extend(extra);
    for p in &mut plies {
        p.motion = new_index[p.motion.start]..new_index[p.motion.end - 1] + 1;
    }
    (out, plies)
}

#[cfg(test)]
mod tests;
