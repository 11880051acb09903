//! [`Tracker`]: one board's state machine, sans-IO. Fed timestamped board events, it keeps
//! the physical placement and the last legal position, recognises moves (whatever the
//! order of lifts and places), reads presses off the clock, rules at each press of the
//! player to move, waits for restorations, and reports game ends, claims and touch-move
//! evidence as [`ArbiterEvent`]s.
//!
//! Move recognition needs no timer: `base` is the last legal position (its mover to
//! move); after every change the placement is compared with `base + one legal move` (the
//! candidate), and with `base + candidate + one opponent move` (the mover did not press
//! and the opponent replied). Timers only bound how long a press waits for the board's
//! scan to report the move's last squares (the settle window).

use std::collections::VecDeque;

use chess_rules::{
    Attempt, CanMate, Color, EndReason, Game, GameResult, Move, Placement, Position, Role, Square,
    Status,
};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{
    BoardEvent, ClockSide, ClockTime, FieldUpdate, MagicPiece, Orientation, PieceCode, RawBoard,
    TimedEvent,
};

use crate::analysis::{AnalysisRequest, Purpose};
use crate::clock::{self, ClockWatch, SideSource};
use crate::config::{TimeCategory, TrackerConfig};
use crate::events::{
    ArbiterEvent, BoardStatus, BoardStatusEvent, ClockMs, EventKind, IllegalMoveEvent, Penalty,
    Touch, TouchAction,
};
use crate::recover;

mod accept;
mod arbiter;
mod deep;
mod desk;
mod periods;
mod proof;
mod record;
mod rulings;

pub use accept::{AcceptError, AcceptedPosition, KnownGame};
pub use desk::{FillError, TakebackError};

use rulings::loss_unless_no_mate;

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameState {
    /// Moves are being made.
    Playing,
    /// A press came; the board is given the settle window to show the move.
    AwaitingBoard,
    /// After an illegal move: waiting for the board to show the position to reinstate.
    Restoring,
    /// The game is over (or its ending ruling waits for an analysis).
    Over,
}

/// What a dashboard shows of a board.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    pub board: String,
    /// The last legal position.
    pub fen: String,
    /// Plies played (in the game's own numbering).
    pub ply: u32,
    pub side_to_move: Color,
    pub clock_ms: Option<ClockMs>,
    pub last_move: Option<Move>,
    pub state: GameState,
    pub result: Option<GameResult>,
    /// Completed illegal moves so far.
    pub illegal_white: u32,
    pub illegal_black: u32,
    pub orientation: Orientation,
    pub white_clock: ClockSide,
}

/// A legal move the board shows (or showed) on top of `base`.
#[derive(Debug, Clone, Copy)]
struct Made {
    mv: Move,
    after: Position,
    /// Touch-log index where the move was completed: later touches are the opponent's if
    /// he replies before a press.
    split: usize,
    /// When it was completed: the opponent's turn began then if he replies before a press.
    at: u64,
    /// Seen being made by lifts and places; not when a dump or the reconnect search
    /// showed it (a move seen made after a gap confirms where the game stands).
    seen: bool,
}

/// A clock frame awaiting confirmation; a ruling it leads to keeps its time `t`.
#[derive(Debug, Clone, Copy)]
struct HeldClock {
    t: u64,
    frame: ClockTime,
    /// Taken as it is when no frame contradicted it by then.
    deadline: u64,
}

/// How long a held clock frame waits for the next one. A running DGT3000 sends a frame at
/// least every second (and at once on every change, dgt-protocol.md §7), so one bad frame
/// among running ones is contradicted well within this; a clock that went quiet (a real
/// flag blocks it) contradicts nothing, and the frame stands.
const CLOCK_CONFIRM_MS: u64 = 1500;

/// A running clock that sent no frame for this long while the board still talks is
/// reported to the arbiter (a cable, a dead clock): no ruling can rest on its times.
/// Noticed at the board's next input, so that replay and live agree with no timer.
const CLOCK_SILENT_MS: u64 = 30_000;

#[derive(Debug, Clone, Copy)]
struct PendingPress {
    deadline: u64,
    /// When the press came (the clock's times then are `clock`).
    at: u64,
    clock: Option<ClockMs>,
    /// Who pressed. Not the player to move when the clock runs a move ahead of the board:
    /// the mover made his move without pressing and the opponent completes his reply.
    presser: Color,
}

/// A move recorded at a press, which may still turn into another move of the same piece
/// (a slider registered part way when the press arrived).
#[derive(Debug, Clone)]
struct Amend {
    deadline: u64,
    before: Position,
    old: Move,
    clock: Option<ClockMs>,
    touches: Vec<Touch>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RestoreKind {
    /// Reinstate the position before the illegal move.
    Reinstate,
    /// Put the queen on the unpromoted pawn's square.
    Promotion,
    /// The position the arbiter took the game back to (issue 40, see `desk.rs`).
    TakenBack,
}

#[derive(Debug, Clone)]
struct Restoring {
    target: Placement,
    fen: String,
    offender: Color,
    kind: RestoreKind,
    /// What the board showed at the ruling (for partial supervision).
    illegal_board: Placement,
    attempt: Option<Attempt>,
    penalty: Option<Penalty>,
}

/// Pieces knocked over with a recorded move (art. 7.4), not yet re-established. The
/// tracker's placement shows them where they belong; the board does not yet.
#[derive(Debug, Clone)]
struct Displaced {
    event: crate::events::DisplacedEvent,
    /// The steps the board has not shown yet.
    pending: Vec<chess_rules::RestoreStep>,
    /// A square was then set otherwise (another piece put there): the position was not
    /// re-established as asked, so no `reestablished` follows.
    spoiled: bool,
}

#[derive(Debug, Clone)]
enum Phase {
    Playing,
    Restoring(Box<Restoring>),
    Over,
}

/// What an analysis answer is for.
#[derive(Debug, Clone)]
enum Waiting {
    Flag {
        t_ms: u64,
        flag: Color,
        generation: u64,
    },
    SecondIllegal {
        t_ms: u64,
        event: Box<IllegalMoveEvent>,
        generation: u64,
    },
    Dead {
        t_ms: u64,
        ply: u32,
        position: Box<Position>,
        first: bool,
        generation: u64,
    },
}

/// What changed the placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// A full dump (after a reconnect, events may have been lost).
    Dump,
    /// A piece left a square: the board may be in the middle of a move.
    Lift,
    /// A piece was put down (`king`: a king).
    Place { king: bool },
}

/// How a move gets recorded.
#[derive(Debug, Clone, Copy, Default)]
struct How {
    pressed: bool,
    clock: Option<ClockMs>,
    recovered: bool,
    correction: bool,
    replaces: Option<Move>,
    /// When the opponent's turn began, if not at this recording (he replied before it).
    turn_from: Option<u64>,
}

impl How {
    /// Completed by a press; the clock as the press left it.
    fn pressed(clock: Option<ClockMs>) -> How {
        How {
            pressed: true,
            clock,
            ..How::default()
        }
    }
}

/// Lost moves found for a placement, waiting to be recorded until the board has shown
/// it for the settle window (across reconnects: two dumps that agree a window apart
/// do), or a press comes; not at once: a dump can catch a hand in mid-move, and a line
/// of lost moves can explain that snapshot (a piece in the air taken for a capture).
#[derive(Debug, Clone)]
struct PendingRecovery {
    placement: Placement,
    /// When the board first showed `placement`.
    since: u64,
    /// The lines that explain it. Kept so that when the board comes back showing more
    /// moves than the search reaches from the last known position, it can go on from
    /// these (a line that later moves continue is no snapshot of a hand in mid-move).
    found: recover::LostMoves,
}

/// One board's tracker. See the crate documentation for the API's shape.
#[derive(Debug, Clone)]
pub struct Tracker {
    cfg: TrackerConfig,
    orientation: Orientation,
    seen_dump: bool,
    raw: RawBoard,
    placement: Placement,
    game: Game,
    /// Bumped when the game is replaced (new game, amended move, an illegal move that
    /// stands): analysis answers for older generations are dropped.
    generation: u64,
    /// Squares where the placement differs from `base`.
    base_diff: usize,
    made: Option<Made>,
    pending_press: Option<PendingPress>,
    amend: Option<Amend>,
    /// A game-ending candidate (mate, stalemate) is recorded when the board stays still
    /// this long without a press.
    quiet_deadline: Option<u64>,
    phase: Phase,
    clock: ClockWatch,
    /// A clock frame showing a press the board does not yet explain, or a flag, held until
    /// the clock or the board confirms it: the protocol has no checksum, so one frame is
    /// never a ruling (see `on_clock`).
    held_clock: Option<HeldClock>,
    /// Clock frames dropped as noise: self-contradictory, or contradicted by the next one.
    clock_noise: u32,
    /// When the last clock frame taken as a fact came.
    clock_taken_at: u64,
    /// When the last frame of a running clock came (none while it is stopped, absent or
    /// the line down): a running DGT3000 sends one at least every second.
    clock_heard_at: Option<u64>,
    /// A silent clock was reported and has not sent a frame since.
    clock_silent_reported: bool,
    /// The time control, configured or read off the first clock frame.
    time_control: Option<TimeControl>,
    touches: Vec<Touch>,
    counts: [u32; 2],
    analyses: VecDeque<AnalysisRequest>,
    waiting: Vec<(u64, Waiting)>,
    next_id: u64,
    /// Out of sync: after a gap, the board shows a placement no line of moves the searches
    /// reach explains. No ruling, penalty or clock command until it is explained again.
    desynced: bool,
    /// Board events were lost (a disconnect, a dump that differed) and the board has not
    /// confirmed the game since (shown the last legal position, or a move seen made on it):
    /// a press the board does not explain then puts it out of sync instead of a ruling (the
    /// moves rebuilt after the gap may not be the ones played).
    gap_open: bool,
    /// Touch log of every recorded move of the game, for disputes.
    history: Vec<Vec<Touch>>,
    result: Option<GameResult>,
    /// While the game is over: the board has left the start position since.
    left_start: bool,
    /// The line is down (between a disconnect and the next dump): a pending press waits for
    /// the board rather than being ruled on what it last said.
    line_down: bool,
    /// When board events were last lost (a disconnect, a dump that differed): a turn that
    /// began before has an incomplete touch log, which proves nothing about touch-move or
    /// two hands.
    last_gap_ms: Option<u64>,
    /// The last clock frame before the line went down and the side to move then, until
    /// the first frame after it.
    clock_before_gap: Option<(ClockTime, Color)>,
    /// Whose clock runs after a gap, when the clock agreed with the board before it: the
    /// move the board shows may have been completed unseen (see `complete_blind_press`).
    running_after_gap: Option<Color>,
    /// Who made the last recorded move, when no press completed it (his opponent replied
    /// first, or it was rebuilt after a gap): his press while the opponent is to move is
    /// that move's late press, not a new one to rule on.
    unpressed_last: Option<Color>,
    /// Lost moves found, waiting for the board to settle (see [`PendingRecovery`]).
    pending_recovery: Option<PendingRecovery>,
    /// A press came: record the lost moves the board shows now, settled or not.
    recovery_forced: bool,
    /// When the turn of the player to move began (the opponent's press, or his move).
    turn_start_ms: u64,
    /// Pieces knocked over, waiting to be re-established (art. 7.4).
    displaced: Option<Displaced>,
    /// Every displacement of the game (art. 7.4): who, and the ply of the move it came
    /// with (what the arbiter's penalties refer to, see [`Tracker::check_arbiter`]).
    displacements: Vec<(Color, u32)>,
    /// The last change on the board emptied a square: a piece may be in a hand (the deep
    /// search would explain it away as a capture).
    piece_in_air: bool,
    /// What a line rebuilt by the deep search may have got wrong (see `deep.rs`).
    rebuilt_doubt: Option<deep::RebuiltDoubt>,
    /// What the board showed when it came back out of sync, and what the deep search
    /// found for it (see `deep.rs`).
    gap_dump: Option<deep::GapDump>,
    /// What the clock says about a gap's length, and the lines last shown to the arbiter
    /// (see `proof.rs`).
    evidence: proof::GapEvidence,
    /// The daemon lost inputs of this game (see [`Tracker::hold_for_arbiter`]): out of
    /// sync, nothing recognised or ruled, until the arbiter accepts the position.
    held: Option<accept::Held>,
    /// Time controls with periods: the period each clock is seen to hold, the alerts said.
    periods: crate::periods::PeriodWatch,
    /// Each player's clock across his last press, until his move (or no move) is ruled.
    press_readings: [Option<crate::periods::Reading>; 2],
    /// Both clocks when the clock was stopped (the arbiter may set them before restarting).
    stopped_times: Option<ClockMs>,
    /// The game goes on from a position whose ply nobody gave (accepted after a gap): the
    /// players' move numbers may be wrong, so no period is judged until a new game.
    period_moves_unknown: bool,
    /// The game before a gap followed on, for the arbiter to fill (see `desk.rs`).
    followed: Option<Box<desk::Followed>>,
}

/// Touches a turn's log has room for before it grows (a move is a lift and a place, a
/// capture three touches, adjustments and sliding a few more).
const TOUCH_LOG_RESERVED: usize = 8;

pub(super) fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Both kings put on the four centre squares (the players' result, art. 5.1.2 / 5.2.3
/// agreement or resignation shown on the board): the DGT result convention (both light
/// squares: 1-0, both dark: 0-1, one of each: a draw). Never a legal position (the centre
/// squares all touch), so never a move; but a king stepping next to the other king in the
/// centre is an illegal move, not a result: both kings must have left their squares.
fn result_by_kings(p: &Placement, base: &Position) -> Option<GameResult> {
    let centre =
        |sq: Square| (3..=4).contains(&sq.file().index()) && (3..=4).contains(&sq.rank().index());
    let moved = |c: Color, sq: Square| base.king(c) != sq;
    let w = p
        .king(Color::White)
        .filter(|s| centre(*s) && moved(Color::White, *s))?;
    let b = p
        .king(Color::Black)
        .filter(|s| centre(*s) && moved(Color::Black, *s))?;
    Some(match (w.is_light(), b.is_light()) {
        (true, true) => GameResult::WhiteWins,
        (false, false) => GameResult::BlackWins,
        _ => GameResult::Draw,
    })
}

fn magic_result(m: MagicPiece) -> GameResult {
    match m {
        MagicPiece::Draw => GameResult::Draw,
        MagicPiece::WhiteWins => GameResult::WhiteWins,
        MagicPiece::BlackWins => GameResult::BlackWins,
    }
}

impl Tracker {
    pub fn new(cfg: TrackerConfig) -> Tracker {
        let orientation = cfg.orientation.unwrap_or_default();
        let placement = *cfg.start.placement();
        let mut clock = ClockWatch::new(cfg.white_clock);
        if let Some(o) = cfg.orientation {
            clock.learn_orientation(o);
        }
        Tracker {
            orientation,
            seen_dump: false,
            raw: RawBoard::from_placement(&placement, orientation),
            placement,
            game: Game::new(cfg.start),
            generation: 0,
            base_diff: 0,
            made: None,
            pending_press: None,
            amend: None,
            quiet_deadline: None,
            phase: Phase::Playing,
            clock,
            held_clock: None,
            clock_noise: 0,
            clock_taken_at: 0,
            clock_heard_at: None,
            clock_silent_reported: false,
            time_control: cfg.time_control,
            touches: Vec::with_capacity(64),
            counts: [0, 0],
            analyses: VecDeque::new(),
            waiting: Vec::new(),
            next_id: 1,
            desynced: false,
            gap_open: false,
            history: Vec::new(),
            result: None,
            left_start: false,
            last_gap_ms: None,
            clock_before_gap: None,
            running_after_gap: None,
            unpressed_last: None,
            pending_recovery: None,
            recovery_forced: false,
            turn_start_ms: 0,
            line_down: false,
            displaced: None,
            displacements: Vec::new(),
            piece_in_air: false,
            rebuilt_doubt: None,
            gap_dump: None,
            evidence: proof::GapEvidence::default(),
            held: None,
            periods: crate::periods::PeriodWatch::default(),
            press_readings: [None, None],
            stopped_times: None,
            period_moves_unknown: false,
            followed: None,
            cfg,
        }
    }

    pub fn config(&self) -> &TrackerConfig {
        &self.cfg
    }

    /// The last legal position (its side to move is the player to move).
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The game record so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// What the board shows now (in real squares).
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    pub fn orientation(&self) -> Orientation {
        self.orientation
    }

    /// The touch log of the move of game ply `ply` (for disputes about the order).
    pub fn touch_log(&self, ply: u32) -> Option<&[Touch]> {
        let first = self.game.start().plies() + 1;
        let i = usize::try_from(ply.checked_sub(first)?).ok()?;
        self.history.get(i).map(Vec::as_slice)
    }

    /// The time-control category used for penalties.
    pub fn category(&self) -> TimeCategory {
        self.cfg.category.unwrap_or_else(|| {
            self.time_control
                .map_or(TimeCategory::Blitz, TimeCategory::of)
        })
    }

    pub fn state(&self) -> GameState {
        match self.phase {
            Phase::Over => GameState::Over,
            Phase::Restoring(_) => GameState::Restoring,
            Phase::Playing if self.pending_press.is_some() || self.held_press().is_some() => {
                GameState::AwaitingBoard
            }
            Phase::Playing => GameState::Playing,
        }
    }

    /// The dashboard's view of the board.
    pub fn snapshot(&self) -> Snapshot {
        let pos = self.game.position();
        Snapshot {
            board: self.cfg.board.clone(),
            fen: pos.fen(),
            ply: pos.plies(),
            side_to_move: pos.side_to_move(),
            clock_ms: self.clock.times(),
            last_move: self.game.moves().last().copied(),
            state: self.state(),
            result: self.result,
            illegal_white: self.counts[0],
            illegal_black: self.counts[1],
            orientation: self.orientation,
            white_clock: self.clock.white_side(),
        }
    }

    /// The earliest time at which [`Tracker::handle_timeout`] has work to do.
    pub fn poll_timeout(&self) -> Option<u64> {
        // Called before every input: by reference and without an iterator chain (a copy
        // of each pending state and a flatten cost the bench 2% of its instructions).
        fn earliest(due: Option<u64>, d: u64) -> Option<u64> {
            Some(due.map_or(d, |x| x.min(d)))
        }
        let mut due = self.quiet_deadline;
        if !self.line_down {
            if let Some(p) = &self.pending_press {
                due = earliest(due, p.deadline);
            }
            if let Some(r) = &self.pending_recovery {
                due = earliest(due, r.since + self.cfg.settle_window_ms);
            }
        }
        if let Some(h) = &self.held_clock {
            due = earliest(due, h.deadline);
        }
        due
    }

    /// Time has reached `now_ms`: rule on a press whose settle window has passed, record a
    /// game-ending move the board has shown long enough.
    pub fn handle_timeout(&mut self, now_ms: u64, out: &mut Vec<ArbiterEvent>) {
        if let Some(h) = self.held_clock.filter(|h| h.deadline <= now_ms) {
            // No frame contradicted it: the clock stands as it showed.
            self.held_clock = None;
            self.take_clock(h.t, &h.frame, out);
        }
        if let Some(since) = self
            .pending_recovery
            .as_ref()
            .filter(|_| !self.line_down)
            .map(|p| p.since)
        {
            let due = since + self.cfg.settle_window_ms;
            if due <= now_ms {
                self.settle_recovery(due, false, out);
            }
        }
        if let Some(p) = self.pending_press {
            if p.deadline <= now_ms {
                self.rule_press(p.deadline, out);
            }
        }
        if let Some(d) = self.quiet_deadline {
            if d <= now_ms {
                self.quiet_deadline = None;
                self.record_shown_unpressed(d, out);
            }
        }
    }

    /// The next analysis the tracker needs answered.
    pub fn poll_analysis(&mut self) -> Option<AnalysisRequest> {
        self.analyses.pop_front()
    }

    /// The analyses asked and not yet polled, in order.
    pub fn pending_analyses(&self) -> impl Iterator<Item = &AnalysisRequest> {
        self.analyses.iter()
    }

    /// The answer to an analysis request; rulings that waited for it are emitted now.
    pub fn analysis_done(&mut self, id: u64, answer: CanMate, out: &mut Vec<ArbiterEvent>) {
        let Some(i) = self.waiting.iter().position(|(w, _)| *w == id) else {
            return;
        };
        let (_, waiting) = self.waiting.swap_remove(i);
        match waiting {
            Waiting::Flag {
                t_ms,
                flag,
                generation,
            } => {
                if generation != self.generation {
                    return;
                }
                let (result, undetermined) = loss_unless_no_mate(flag, answer);
                self.announce_end(t_ms, result, EndReason::Flag, Some(flag), undetermined, out);
            }
            Waiting::SecondIllegal {
                t_ms,
                mut event,
                generation,
            } => {
                if generation != self.generation {
                    return;
                }
                let (result, undetermined) = loss_unless_no_mate(event.color, answer);
                event.result = Some(result);
                event.result_undetermined = undetermined;
                self.emit(out, t_ms, EventKind::IllegalMove(*event));
                self.announce_end(
                    t_ms,
                    result,
                    EndReason::SecondIllegalMove,
                    None,
                    undetermined,
                    out,
                );
            }
            Waiting::Dead {
                t_ms,
                ply,
                position,
                first,
                generation,
            } => {
                if generation != self.generation || !matches!(self.phase, Phase::Playing) {
                    return;
                }
                if answer != CanMate::No {
                    return;
                }
                if first {
                    // This side cannot mate; can the other?
                    let side = position.side_to_move();
                    self.request(
                        *position,
                        side,
                        Purpose::DeadPosition,
                        Waiting::Dead {
                            t_ms,
                            ply,
                            position,
                            first: false,
                            generation,
                        },
                    );
                } else {
                    self.phase = Phase::Over;
                    self.clear_pending();
                    self.announce_end(
                        t_ms,
                        GameResult::Draw,
                        EndReason::DeadPosition,
                        None,
                        false,
                        out,
                    );
                }
            }
        }
    }

    /// The input ended (a replay's last record): rule on what waits, and record a move
    /// the board shows that was never completed by a press.
    pub fn finish(&mut self, t_ms: u64, out: &mut Vec<ArbiterEvent>) {
        while let Some(d) = self.poll_timeout() {
            self.handle_timeout(d, out);
        }
        self.record_shown_unpressed(t_ms, out);
    }

    /// Records the move the board shows, never completed by a press (it ends the game, or
    /// the input ended), with the clock as it reads.
    fn record_shown_unpressed(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        if let Some(m) = self.current_candidate() {
            let how = How {
                clock: self.clock.times(),
                ..How::default()
            };
            self.commit_made(t, m, how, out);
        }
    }

    /// Takes one board event.
    pub fn handle(&mut self, ev: &TimedEvent, out: &mut Vec<ArbiterEvent>) {
        let t = ev.t_ms;
        if let BoardEvent::Clock(c) = &ev.event {
            // First, at its own time: what this frame says of a held one.
            self.resolve_held_clock(c, out);
        }
        // Deadlines passed before this input are handled first, at their own time.
        while let Some(d) = self.poll_timeout() {
            if d >= t {
                break;
            }
            self.handle_timeout(d, out);
        }
        if !matches!(ev.event, BoardEvent::Clock(_)) {
            self.note_clock_silence(t, out);
        }
        match &ev.event {
            BoardEvent::Field(u) => {
                self.on_field(t, *u, out);
                self.confirm_held_press_by_board(t, out);
            }
            BoardEvent::Clock(c) => {
                self.on_clock(t, c, out);
                self.note_clock_frame(t);
                self.hear_clock(t, c, out);
            }
            BoardEvent::Dump { board } => {
                self.on_dump(t, board, out);
                self.confirm_held_press_by_board(t, out);
            }
            BoardEvent::Connected { .. } => self.status(out, t, BoardStatus::Connected, None),
            BoardEvent::Disconnected { reason } => {
                // A lever that moves while we cannot see it is not a press we saw; what
                // hands do meanwhile is not in the touch log.
                if let Some(last) = self.clock.last() {
                    self.clock_before_gap = Some((*last, self.game.position().side_to_move()));
                }
                self.clock.reset();
                self.press_readings = [None, None];
                self.stopped_times = None;
                self.held_clock = None;
                self.clock_heard_at = None;
                self.last_gap_ms = Some(t);
                self.gap_open = true;
                self.line_down = true;
                self.status(out, t, BoardStatus::Disconnected, Some(reason.clone()));
            }
            BoardEvent::ClockConnected => {
                self.status(out, t, BoardStatus::ClockConnected, None);
            }
            BoardEvent::ClockDisconnected => {
                self.clock_heard_at = None;
                self.status(out, t, BoardStatus::ClockDisconnected, None);
            }
            BoardEvent::ClockAck(_) | BoardEvent::ClockButton(_) | BoardEvent::Battery(_) => {}
        }
    }

    // ----- board input -----

    fn on_field(&mut self, t: u64, u: FieldUpdate, out: &mut Vec<ArbiterEvent>) {
        self.raw.apply(u);
        if let PieceCode::Magic(m) = u.piece {
            self.result_on_board(t, magic_result(m), out);
        }
        let sq = u.square(self.orientation);
        let new = u.piece.piece();
        if self.on_displaced_square(t, sq, new, out) {
            return;
        }
        let old = self.placement.get(sq);
        if old == new {
            return;
        }
        self.piece_in_air = new.is_none();
        self.placement.set(sq, new);
        let want = self.game.position().piece_at(sq);
        match (old == want, new == want) {
            (true, false) => self.base_diff += 1,
            (false, true) => self.base_diff = self.base_diff.saturating_sub(1),
            _ => {}
        }
        if matches!(self.phase, Phase::Playing) {
            let touch = match (old, new) {
                (Some(p), None) => Some(Touch {
                    t_ms: t,
                    square: sq,
                    piece: p,
                    action: TouchAction::Lift,
                }),
                (_, Some(p)) => Some(Touch {
                    t_ms: t,
                    square: sq,
                    piece: p,
                    action: TouchAction::Place,
                }),
                (None, None) => None,
            };
            if let Some(touch) = touch {
                if touch.action == TouchAction::Lift
                    && touch.piece.color == self.game.position().side_to_move()
                {
                    // The opponent of the last mover touched something: no amending.
                    self.amend = None;
                }
                self.touches.push(touch);
            }
        }
        let change = match new {
            None => Change::Lift,
            Some(p) => Change::Place {
                king: p.role == Role::King,
            },
        };
        self.after_change(t, change, out);
    }

    /// A square of a displaced piece (art. 7.4) changed to `new`: the piece put back (or
    /// lifted off the square it was knocked onto) is no change of the position, only of
    /// what is pending; `true` then. Anything else put there ends the wait for it.
    fn on_displaced_square(
        &mut self,
        t: u64,
        sq: Square,
        new: Option<chess_rules::Piece>,
        out: &mut Vec<ArbiterEvent>,
    ) -> bool {
        let Some(d) = &mut self.displaced else {
            return false;
        };
        let Some(i) = d.pending.iter().position(|s| s.square() == sq) else {
            return false;
        };
        let (wanted, displaced_state) = match d.pending[i] {
            chess_rules::RestoreStep::Put { piece, .. } => (Some(piece), None),
            chess_rules::RestoreStep::Remove { piece, .. } => (None, Some(piece)),
        };
        let absorbed = if new == wanted {
            d.pending.remove(i);
            true
        } else if new == displaced_state {
            true
        } else {
            // Something else on that square: the board shows it as it is from now on.
            d.pending.remove(i);
            d.spoiled = true;
            let view = if displaced_state.is_some() {
                None
            } else {
                wanted
            };
            self.placement.set(sq, view);
            self.recount();
            false
        };
        self.displaced_done(t, out);
        absorbed
    }

    /// After a dump: each displaced piece is re-established, still displaced, or its
    /// square shows something else.
    fn displaced_after_dump(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Some(d) = &mut self.displaced else {
            return;
        };
        let board = self.placement;
        d.pending.retain(|s| match *s {
            chess_rules::RestoreStep::Put { square, piece } => match board.get(square) {
                Some(p) if p == piece => false,
                None => {
                    self.placement.set(square, Some(piece));
                    true
                }
                Some(_) => {
                    d.spoiled = true;
                    false
                }
            },
            chess_rules::RestoreStep::Remove { square, piece } => match board.get(square) {
                None => false,
                Some(p) if p == piece => {
                    self.placement.set(square, None);
                    true
                }
                Some(_) => {
                    d.spoiled = true;
                    false
                }
            },
        });
        self.displaced_done(t, out);
    }

    /// Every displaced piece is back: say so (once).
    fn displaced_done(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        if self
            .displaced
            .as_ref()
            .is_some_and(|d| d.pending.is_empty())
        {
            if let Some(d) = self.displaced.take() {
                if !d.spoiled {
                    let event = crate::events::DisplacedEvent {
                        reestablished: true,
                        ..d.event
                    };
                    self.emit(out, t, EventKind::Displaced(event));
                }
            }
        }
    }

    fn on_dump(&mut self, t: u64, board: &RawBoard, out: &mut Vec<ArbiterEvent>) {
        self.raw = *board;
        let first = !self.seen_dump;
        self.seen_dump = true;
        if self.cfg.orientation.is_none() {
            let detected = board.detect_orientation();
            let new = if first {
                Some(detected.unwrap_or_else(|| self.closest_orientation(board)))
            } else if matches!(self.phase, Phase::Over) {
                detected
            } else {
                None
            };
            if let Some(o) = new {
                if first || o != self.orientation {
                    self.orientation = o;
                    let detail = match o {
                        Orientation::Normal => "normal",
                        Orientation::Rotated => "rotated",
                    };
                    self.status(out, t, BoardStatus::Orientation, Some(detail.into()));
                    if self.clock.learn_orientation(o) {
                        self.white_clock_status(t, out);
                    }
                }
            }
        }
        let placement = board.placement(self.orientation);
        if first
            && self.cfg.start.variant() == chess_rules::Variant::Chess960
            && !self.cfg.start_from_board
            && self.game.moves().is_empty()
        {
            // The record learns a configured Chess960 start (X-FEN) from the events, as it
            // learns every later game's: the game's PGN and LiveChess views start from it.
            self.emit(
                out,
                t,
                EventKind::NewGame {
                    fen: self.cfg.start.fen(),
                },
            );
        }
        if !first && placement != self.placement {
            self.last_gap_ms = Some(t);
            self.gap_open = true;
        }
        self.placement = placement;
        self.piece_in_air = false;
        self.displaced_after_dump(t, out);
        self.recount();
        if let Some((_, m)) = board.magic_pieces().next() {
            self.result_on_board(t, magic_result(m), out);
        }
        self.line_down = false;
        self.after_change(t, Change::Dump, out);
        if self.desynced {
            // The board came back showing what no search explains yet: kept for the deep
            // search at the next presses (the squares of the gap itself, before more moves).
            self.gap_dump = Some(deep::GapDump::new(self.placement));
        }
        if !first && self.base_diff > 0 {
            // What the dump shows beyond the last legal position was done unseen: the turn
            // it belongs to has an incomplete touch log.
            self.last_gap_ms = Some(t);
        }
        // A press made before the line went down, and not yet explained: the board gets a
        // settle window from now.
        if let Some(p) = &mut self.pending_press {
            p.deadline = p.deadline.max(t + self.cfg.settle_window_ms);
        }
        self.complete_blind_press(t, out);
    }

    /// A Chess960 game without a given start (`TrackerConfig::start_from_board`): the
    /// board's placement is the start, with every castling right it allows, once it is a
    /// legal position (arbiter-rules §6: the game is known to be Chess960 before move 1;
    /// only its position comes from the board). Said as a `new_game` with the start's FEN
    /// (X-FEN), so the record starts from it. Until then nothing on the board is matched
    /// or ruled (the stand-in start is no game): out of sync, said once. True when the
    /// start is known.
    fn start_from_board(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) -> bool {
        match Position::from_placement_960(self.placement) {
            Ok(start) => {
                self.cfg.start_from_board = false;
                self.cfg.start = start;
                self.game = Game::new(start);
                self.generation += 1;
                self.touches.clear();
                self.clear_pending();
                self.recount();
                let number = start.chess960_number().map_or_else(
                    || "not one of the 960 start positions".to_owned(),
                    |n| format!("Chess960 start position {n}"),
                );
                self.emit(out, t, EventKind::NewGame { fen: start.fen() });
                self.desynced = false;
                self.status(
                    out,
                    t,
                    BoardStatus::InSync,
                    Some(format!(
                        "the start was taken from the board: {number} ({})",
                        start.fen()
                    )),
                );
                true
            }
            Err(e) => {
                if !self.desynced {
                    self.desynced = true;
                    self.status(
                        out,
                        t,
                        BoardStatus::OutOfSync,
                        Some(format!(
                            "Chess960 game without a given start: the board does not show a \
                             legal start position yet ({e}); nothing is ruled until it does"
                        )),
                    );
                }
                false
            }
        }
    }

    /// The orientation under which a dump looks most like the last legal position.
    fn closest_orientation(&self, board: &RawBoard) -> Orientation {
        let base = self.game.position().placement();
        let dist = |o| board.placement(o).diff(base).count();
        if dist(Orientation::Rotated) < dist(Orientation::Normal) {
            Orientation::Rotated
        } else {
            Orientation::Normal
        }
    }

    fn recount(&mut self) {
        self.base_diff = self
            .placement
            .diff(self.game.position().placement())
            .count();
    }

    /// The placement changed.
    fn after_change(&mut self, t: u64, change: Change, out: &mut Vec<ArbiterEvent>) {
        if self.cfg.start_from_board && !self.start_from_board(t, out) {
            return;
        }
        match &self.phase {
            Phase::Over => {
                let start = self.cfg.start.placement();
                if self.placement == *start {
                    if self.left_start || !self.game.moves().is_empty() {
                        self.new_game(t, out);
                    }
                } else {
                    self.left_start = true;
                }
                return;
            }
            Phase::Restoring(_) => {
                self.restoring(t, out);
                return;
            }
            Phase::Playing if self.held.is_some() => {
                // Held for the arbiter: the game known here is not the whole game, so
                // what the board shows is matched against nothing (no move, no result).
                return;
            }
            Phase::Playing => {}
        }
        // Only a king put down (or a dump) can make the kings show a result.
        if matches!(change, Change::Dump | Change::Place { king: true }) {
            if let Some(result) = result_by_kings(&self.placement, self.game.position()) {
                self.result_on_board(t, result, out);
                return;
            }
        }
        if self.recognise(t, change, out) {
            return;
        }
        if self.placement == *self.cfg.start.placement()
            && !self.game.moves().is_empty()
            && self.base_diff > 0
        {
            self.new_game(t, out);
        }
    }

    /// Matches the placement against the candidate and the reply; returns true when it is
    /// explained.
    fn recognise(&mut self, t: u64, change: Change, out: &mut Vec<ArbiterEvent>) -> bool {
        if let Some(a) = &self.amend {
            if t > a.deadline {
                self.amend = None;
            } else if let Some((m, _)) = a.before.move_to_placement(&self.placement) {
                if m != a.old {
                    self.amend_to(t, m, out);
                    return true;
                }
            }
        }
        let base = *self.game.position();
        let cand = if (2..=4).contains(&self.base_diff) {
            base.move_to_placement(&self.placement)
        } else {
            None
        };
        if let Some((m, after)) = cand {
            self.in_sync(t, out);
            self.set_made_seen(t, m, after, change != Change::Dump);
            if let Some(p) = self
                .pending_press
                .filter(|p| p.presser == base.side_to_move())
            {
                self.pending_press = None;
                self.record_now(t, m, How::pressed(p.clock), out);
            }
            return true;
        }
        self.quiet_deadline = None;
        if self.base_diff == 0 {
            self.made = None;
            self.in_sync(t, out);
            if !self.line_down {
                // The board shows the last legal position: the gap hid no move.
                self.gap_open = false;
            }
            return true;
        }
        // The mover did not press and the opponent replied.
        if let Some(made) = self.made {
            if let Some((m2, after2)) = made.after.move_to_placement(&self.placement) {
                self.in_sync(t, out);
                let press = self.pending_press.take();
                let mover = base.side_to_move();
                // A press by the mover completed his move; a press by the opponent, the
                // reply.
                let how = press
                    .filter(|p| p.presser == mover)
                    .map_or_else(How::default, |p| How::pressed(p.clock));
                self.commit_replied(t, made, how, out);
                if matches!(self.phase, Phase::Playing) {
                    self.set_made_seen(t, m2, after2, change != Change::Dump);
                    if let Some(p) = press.filter(|p| p.presser != mover) {
                        if let Some(m) = self.current_candidate() {
                            self.record_pressed(t, m, p.clock, out);
                        }
                    }
                }
                return true;
            }
        }
        // Look for lost moves in a dump, or, while out of sync, when a piece is put down (a
        // lifted piece is a move under way: the search would explain it away as captures).
        let search = match change {
            Change::Dump => true,
            Change::Place { .. } => self.desynced || self.pending_recovery.is_some(),
            Change::Lift => false,
        };
        // Pieces lifted for a move (its piece, the piece it captures, the castling rook)
        // and nothing else changed, on the last legal position or on the move made on
        // it: a move under way, not lost moves; exchanges would explain it away. A dump
        // that shows this (the line came back while a player held a piece) waits for the
        // pieces to be put down, as lifts seen would: not out of sync for a piece in a hand.
        // Asked only of a search or a dump: a lift in play (most events here) needs neither.
        let only_lifted = (search || change == Change::Dump)
            && (move_under_way(&base, &self.placement)
                || self
                    .made
                    .is_some_and(|m| move_under_way(&m.after, &self.placement)));
        if search && !only_lifted {
            let pending = self.pending_recovery.as_ref();
            let same = pending.is_some_and(|p| p.placement == self.placement);
            let found = match pending {
                Some(p) if same => Some(p.found.clone()),
                pending => (self.base_diff <= 4 * recover::MAX_PLIES)
                    .then(|| {
                        recover::lost_moves(
                            &base,
                            &self.placement,
                            recover::MAX_PLIES,
                            self.made.map(|m| m.mv),
                        )
                    })
                    .flatten()
                    .or_else(|| {
                        pending.and_then(|p| recover::extend(&base, &p.found, &self.placement))
                    }),
            };
            if let Some(found) = found {
                let settled = same
                    && self
                        .pending_recovery
                        .as_ref()
                        .is_some_and(|p| t >= p.since + self.cfg.settle_window_ms);
                if !settled && !self.recovery_forced {
                    // Record it when the board has shown this for the settle window.
                    if !same {
                        self.pending_recovery = Some(PendingRecovery {
                            placement: self.placement,
                            since: t,
                            found,
                        });
                    }
                    return true;
                }
                self.pending_recovery = None;
                // Each stretch of the line is within the cheap search's reach, between
                // placements the board showed: proven when it is the only line.
                if let Err(why) = proof::judge(&found, recover::MAX_PLIES, None) {
                    // Not proven: the arbiter is asked, nothing is recorded (issue 36).
                    self.ask_arbiter(t, &base, &found, &why, out);
                    // Each stretch is short (proven length): the position every line
                    // leads to is followed now. The last mover may still press: a press
                    // by the player not to move, with no move made, is never ruled
                    // (`on_press`, `rule_press`).
                    if why == proof::Unproven::Several
                        && self.follow_unordered(t, &base, &found, out)
                    {
                        return true;
                    }
                    return false;
                }
                self.in_sync(t, out);
                // A press pending from before the loss completed the first lost move, if
                // its player pressed.
                let press = self
                    .pending_press
                    .take()
                    .filter(|p| p.presser == base.side_to_move());
                let last = self.record_lost_lines(t, &base, found, press, out);
                if let Some(m) = last {
                    if let Ok(after) = self.game.position().play(m) {
                        self.set_made(t, m, after);
                    }
                }
                return true;
            }
        }
        if change == Change::Dump && !only_lifted {
            self.lose_sync(t, recover::MAX_PLIES, out);
        }
        false
    }

    /// Records the lost moves of `found` (a line from `base`, the last known position,
    /// proven: see `proof.rs`) but the last, which is returned for the caller to complete
    /// (made, or pressed); `None` when the game ended on the way. `press` completed the
    /// first of them.
    fn record_lost_lines(
        &mut self,
        t: u64,
        base: &Position,
        found: recover::LostMoves,
        mut press: Option<PendingPress>,
        out: &mut Vec<ArbiterEvent>,
    ) -> Option<Move> {
        let after = found
            .line
            .iter()
            .try_fold(*base, |pos, &m| pos.play(m).ok())?;
        // What the line may have got wrong that a ruling depends on (castling, en passant):
        // kept, so that such a press is never ruled (see `deep.rs`).
        self.rebuilt_doubt = Some(deep::RebuiltDoubt::of_line(base, &after, &self.placement));
        let (&last, earlier) = found.line.split_last()?;
        for &m in earlier {
            let how = How {
                recovered: true,
                ..press
                    .take()
                    .map_or_else(How::default, |p| How::pressed(p.clock))
            };
            let mine = std::mem::take(&mut self.touches);
            self.record(t, m, how, mine, Vec::new(), out);
            if !matches!(self.phase, Phase::Playing) {
                return None;
            }
        }
        Some(last)
    }

    /// The board shows what no line the searches reach explains: out of sync. Says how
    /// far the last known position is and which squares differ; no ruling, penalty or
    /// clock command on this board until it is explained.
    pub(super) fn lose_sync(&mut self, t: u64, searched: usize, out: &mut Vec<ArbiterEvent>) {
        if self.desynced {
            return;
        }
        self.desynced = true;
        self.pending_press = None;
        self.quiet_deadline = None;
        let base = self.game.position();
        let squares: Vec<String> = base
            .placement()
            .diff(&self.placement)
            .map(|d| d.square.to_string())
            .collect();
        let detail = format!(
            "last known position: ply {} ({} to move, {}); the board differs on {} square(s): \
             {}; no line of up to {searched} plies explains it, at least {} plies were made \
             unseen; no ruling on this board until it is explained",
            base.plies(),
            base.side_to_move(),
            base.fen(),
            squares.len(),
            squares.join(" "),
            recover::min_plies(base, &self.placement),
        );
        let detail = match self.unexpected_chess960_start() {
            Some(n) => format!(
                "the board shows Chess960 start position {n}, but this game is standard \
                 chess: a set-up the configuration does not expect (if it is a Chess960 \
                 game, configure variant = \"chess960\" and its start); {detail}"
            ),
            None => detail,
        };
        self.status(out, t, BoardStatus::OutOfSync, Some(detail));
    }

    /// The Chess960 start position number the board shows, in a standard game not yet
    /// begun (arbiter-rules §6: reported to the arbiter as a set-up the configuration does
    /// not expect, never taken as a Chess960 game on a guess).
    fn unexpected_chess960_start(&self) -> Option<u16> {
        let base = self.game.position();
        if base.variant() != chess_rules::Variant::Standard || !self.game.moves().is_empty() {
            return None;
        }
        Position::from_placement_960(self.placement)
            .ok()?
            .chess960_number()
            .filter(|&n| n != chess_rules::STANDARD_POSITION_NUMBER)
    }

    /// `m` was made on the board, `after` is the position it leads to (shown by a dump or
    /// a search, not seen made).
    fn set_made(&mut self, t: u64, m: Move, after: Position) {
        self.set_made_seen(t, m, after, false);
    }

    /// `m` was made on the board; `seen`: by lifts and places seen (which confirms the
    /// game after a gap).
    fn set_made_seen(&mut self, t: u64, m: Move, after: Position, seen: bool) {
        // The same move shown again (its piece, or another, lifted and put back) was
        // completed when first shown: later touches may be the opponent's.
        let (split, at, seen) = match self.made {
            Some(old) if old.mv == m => (old.split, old.at, old.seen),
            _ => (self.touches.len(), t, seen),
        };
        if seen && !self.line_down && !self.desynced {
            self.gap_open = false;
        }
        self.made = Some(Made {
            mv: m,
            after,
            split,
            at,
            seen,
        });
        self.quiet_deadline =
            (after.status() != Status::Ongoing).then(|| t + self.cfg.settle_window_ms);
    }

    /// The made move, if the board shows it now.
    fn current_candidate(&self) -> Option<Made> {
        let m = self.made?;
        (matches!(self.phase, Phase::Playing) && *m.after.placement() == self.placement)
            .then_some(m)
    }

    fn in_sync(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        self.gap_dump = None;
        self.evidence.shown.clear();
        if self.desynced {
            self.desynced = false;
            self.status(out, t, BoardStatus::InSync, None);
        }
    }

    /// The touch log at a move's recording by a press: everything up to the move's
    /// completion is the mover's; later touches go by the colour of the piece (the mover
    /// adjusting his own before pressing, the opponent touching his).
    fn split_at_move(&mut self, split: usize) -> (Vec<Touch>, Vec<Touch>) {
        let mover = self.game.position().side_to_move();
        let all = std::mem::take(&mut self.touches);
        let split = split.min(all.len());
        // Sized once (this runs for every recorded move): `mine` takes at most all, and
        // `rest` becomes the next turn's log, which grows by a lift and a place a move.
        let mut mine = Vec::with_capacity(all.len());
        mine.extend_from_slice(&all[..split]);
        let mut rest = Vec::with_capacity(TOUCH_LOG_RESERVED);
        for t in &all[split..] {
            if t.piece.color == mover {
                mine.push(*t);
            } else {
                rest.push(*t);
            }
        }
        (mine, rest)
    }

    /// The touch log when the opponent replied without a press: his turn began when the
    /// move was completed, so every later touch is his (a victim he lifted included).
    fn split_at_reply(&mut self, split: usize) -> (Vec<Touch>, Vec<Touch>) {
        let rest = self.touches.split_off(split.min(self.touches.len()));
        (std::mem::take(&mut self.touches), rest)
    }

    // ----- the clock -----

    /// Clock facts need evidence (FIDE Laws 6.9 flag, 6.2 press; the protocol has no
    /// checksum). A self-contradictory frame is noise. A flag, or a press the board does
    /// not explain yet (no move of the presser's on it), is held until the next frame
    /// agrees, the board shows the presser's move, or `CLOCK_CONFIRM_MS` passes without a
    /// frame; a next frame that disagrees makes it noise, logged and counted, never a
    /// ruling. A taken frame keeps its own time, so replay and live agree.
    fn on_clock(&mut self, t: u64, c: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        if clock::self_contradictory(c) {
            self.clock_noise(t, "clock frame contradicts itself (flag bit off 0:00)");
            return;
        }
        if matches!(self.phase, Phase::Playing) && self.needs_confirmation(t, c) {
            self.held_clock = Some(HeldClock {
                t,
                frame: *c,
                deadline: t + CLOCK_CONFIRM_MS,
            });
            return;
        }
        self.take_clock(t, c, out);
    }

    /// The board talks and a running clock has said nothing for `CLOCK_SILENT_MS`: said
    /// once, as the clock's status (an alert for the arbiter; no ruling).
    fn note_clock_silence(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Some(heard) = self.clock_heard_at else {
            return;
        };
        if self.line_down || t < heard + CLOCK_SILENT_MS {
            return;
        }
        self.clock_heard_at = None;
        self.clock_silent_reported = true;
        let detail = "no frame from the running clock for 30 s: check the clock (no ruling)";
        self.status(out, t, BoardStatus::ClockDisconnected, Some(detail.into()));
    }

    /// A frame came: a silence reported is over; a running clock is expected to talk on.
    fn hear_clock(&mut self, t: u64, c: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        if std::mem::take(&mut self.clock_silent_reported) {
            let detail = "the clock sends frames again";
            self.status(out, t, BoardStatus::ClockConnected, Some(detail.into()));
        }
        self.clock_heard_at = (c.running && !c.no_clock).then_some(t);
    }

    /// The side whose press a held frame shows.
    fn held_press(&self) -> Option<ClockSide> {
        let held = self.held_clock.as_ref()?;
        self.clock.change_to(&held.frame).press
    }

    /// The next frame confirms a held one (it is taken, at its own time) or contradicts it
    /// (noise). A self-contradictory frame says nothing.
    fn resolve_held_clock(&mut self, next: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        if self.held_clock.is_none() || clock::self_contradictory(next) {
            return;
        }
        let Some(held) = self.held_clock.take() else {
            return;
        };
        if clock::confirms(&held.frame, next) {
            self.take_clock(held.t, &held.frame, out);
        } else {
            self.clock_noise(held.t, "clock frame contradicted by the next one");
        }
    }

    /// Whether a frame shows a flag the clock's last frame did not lead to, or a press the
    /// board does not explain: the presser has no move on it (nor did the mover make one,
    /// for a press that completes the reply).
    fn needs_confirmation(&self, t: u64, c: &ClockTime) -> bool {
        let change = self.clock.change_to(c);
        let unexpected_flag = change.flag.is_some_and(|side| {
            let last = self.clock.last();
            let elapsed = t.saturating_sub(self.clock_taken_at);
            last.and_then(clock::flag_side) != Some(side)
                && !last.is_some_and(|l| clock::could_run_out(l, side, elapsed))
        });
        unexpected_flag
            || change
                .press
                .is_some_and(|side| !self.board_explains_press(side))
    }

    fn board_explains_press(&self, side: ClockSide) -> bool {
        if self.desynced {
            return false;
        }
        self.made.is_some()
            || (self.clock.color_of(side) == self.game.position().side_to_move()
                && self.current_candidate().is_some())
    }

    /// A held press is confirmed once the board shows the presser's move (a press can
    /// reach us before the last piece's place does). The move is recorded now, with the
    /// clock's times at the press, as a press waiting for the board always was.
    fn confirm_held_press_by_board(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Some(held) = self.held_clock else {
            return;
        };
        let change = self.clock.change_to(&held.frame);
        if change.flag.is_none()
            && change
                .press
                .is_some_and(|side| self.board_explains_press(side))
        {
            self.held_clock = None;
            self.take_clock(t, &held.frame, out);
        }
    }

    fn clock_noise(&mut self, t: u64, what: &'static str) {
        self.clock_noise += 1;
        tracing::warn!(
            board = %self.cfg.board,
            ply = self.game.position().plies(),
            t_ms = t,
            noise = self.clock_noise,
            "{what}: ignored as noise"
        );
    }

    /// Clock frames dropped as noise so far.
    pub fn clock_noise_frames(&self) -> u32 {
        self.clock_noise
    }

    /// Takes a clock frame as a fact.
    fn take_clock(&mut self, t: u64, c: &ClockTime, out: &mut Vec<ArbiterEvent>) {
        let prev_at = self.clock_taken_at;
        let prev = self.clock.last().copied();
        self.clock_taken_at = t;
        if self.time_control.is_none() && self.clock.last().is_none() {
            // Unknown time control: the first reading stands for the base time.
            let secs = c.left.time.secs().max(c.right.time.secs());
            if secs > 0 {
                self.time_control = Some(TimeControl::sudden_death(secs, 0));
            }
        }
        let before_gap = match self.clock.last() {
            None => self.clock_before_gap.take(),
            Some(_) => None,
        };
        let change = self.clock.on_frame(c);
        if let Some(tc) = self.period_control() {
            self.read_periods(tc, prev, prev_at, t, c, change.press);
        }
        if let Some((prev, to_move)) = before_gap {
            if prev.running && c.running && self.clock.color_of(prev.lever) == to_move {
                self.running_after_gap = Some(self.clock.color_of(c.lever));
            }
        }
        if let Some(side) = change.started {
            if self.game.moves().is_empty() && matches!(self.phase, Phase::Playing) {
                let white = match self.game.position().side_to_move() {
                    Color::White => side,
                    Color::Black => side.other(),
                };
                if self.clock.learn(white, SideSource::ClockStart) {
                    self.white_clock_status(t, out);
                }
            }
        }
        if let Some(side) = change.press {
            self.on_press(t, side, out);
        }
        self.complete_blind_press(t, out);
        if let Some(side) = change.flag {
            self.on_flag(t, side, out);
        }
    }

    /// Records the lost moves found earlier, now (their settle window passed, or a press
    /// came), if the board still shows what a line of them explains.
    fn settle_recovery(&mut self, t: u64, forced: bool, out: &mut Vec<ArbiterEvent>) {
        let seen = |p: &Option<PendingRecovery>| p.as_ref().map(|p| (p.placement, p.since));
        let Some(before) = seen(&self.pending_recovery) else {
            return;
        };
        self.recovery_forced = forced;
        self.after_change(t, Change::Dump, out);
        self.recovery_forced = false;
        let recorded = self.pending_recovery.is_none();
        if seen(&self.pending_recovery) == Some(before) {
            // Not explained any more (a piece in the air, say): the search starts again
            // with the next change, as after a dump.
            self.pending_recovery = None;
        }
        if recorded {
            self.complete_blind_press(t, out);
        }
    }

    /// After a gap, once both the clock and the board have been seen again. The clock ran
    /// for the player to move before the gap, so each press since has passed the turn with
    /// a move: if it now runs for the opponent of the player whose move the board shows,
    /// that move was completed by a press we could not see. (If it still runs for him,
    /// the move is not complete: it is recorded at the next press or reply, as usual; and
    /// a clock that disagreed with the board before the gap proves nothing.)
    fn complete_blind_press(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        if self.line_down
            || self.clock.last().is_none()
            || self.pending_recovery.is_some()
            || self.desynced
        {
            // Out of sync: kept until the board is explained.
            return;
        }
        let Some(running) = self.running_after_gap.take() else {
            return;
        };
        if self.pending_press.is_some() {
            return;
        }
        let Some(m) = self.current_candidate() else {
            return;
        };
        if running != self.game.position().side_to_move() {
            let clock = self.clock.times();
            self.record_pressed(t, m, clock, out);
        }
    }

    fn white_clock_status(&self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let side = self.clock.white_side();
        self.status(out, t, BoardStatus::WhiteClock, Some(side.name().into()));
    }

    fn on_press(&mut self, t: u64, side: ClockSide, out: &mut Vec<ArbiterEvent>) {
        if !matches!(self.phase, Phase::Playing) {
            return;
        }
        if !self.line_down {
            // A press seen: the lost moves are recorded first, the press then completes
            // the move the board shows (no guess from the clock is needed).
            self.running_after_gap = None;
            self.settle_recovery(t, true, out);
            if !matches!(self.phase, Phase::Playing) {
                return;
            }
        }
        let mover = self.game.position().side_to_move();
        if self.current_candidate().is_some() {
            // A legal move on the board names the presser, while that is not yet known.
            if self.clock.source() < SideSource::Press {
                let white = match mover {
                    Color::White => side,
                    Color::Black => side.other(),
                };
                if self.clock.learn(white, SideSource::Press) {
                    self.white_clock_status(t, out);
                }
            }
        }
        let presser = self.clock.color_of(side);
        let clock = self.clock.times();
        if self.pending_press.is_some() {
            // The lever moves again before the board showed what the last press was for.
            self.rule_press(t, out);
            if !matches!(self.phase, Phase::Playing) {
                return;
            }
        }
        let mover = self.game.position().side_to_move();
        if self.desynced {
            // Out of sync: the press is kept for the deep search when its settle window
            // has passed (`rule_press`), whoever pressed; never ruled.
            self.pending_press = Some(PendingPress {
                deadline: t + self.cfg.settle_window_ms,
                at: t,
                clock,
                presser,
            });
            return;
        }
        if presser == mover {
            if let Some(m) = self.current_candidate() {
                self.record_pressed(t, m, clock, out);
                return;
            }
        } else {
            // The mover made his move without pressing (the clock runs a move ahead): a
            // press by his opponent completes the reply, when there is one.
            let Some(made) = self.made else {
                // Nothing made: a press by the player not to move is not ruled.
                return;
            };
            if let Some((reply, after)) = made.after.move_to_placement(&self.placement) {
                self.commit_replied(t, made, How::default(), out);
                if matches!(self.phase, Phase::Playing) {
                    self.set_made(t, reply, after);
                    if let Some(m) = self.current_candidate() {
                        self.record_pressed(t, m, clock, out);
                    }
                }
                return;
            }
        }
        self.pending_press = Some(PendingPress {
            deadline: t + self.cfg.settle_window_ms,
            at: t,
            clock,
            presser,
        });
    }

    /// Records the move the board shows, completed by a press now; it may still be
    /// amended within the settle window.
    fn record_pressed(
        &mut self,
        t: u64,
        m: Made,
        clock: Option<ClockMs>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        self.pending_press = None;
        let how = How::pressed(clock);
        let before = *self.game.position();
        let (mine, rest) = self.split_at_move(m.split);
        let keep = mine.clone();
        self.record(t, m.mv, how, mine, rest, out);
        if matches!(self.phase, Phase::Playing) {
            self.amend = Some(Amend {
                deadline: t + self.cfg.settle_window_ms,
                before,
                old: m.mv,
                clock,
                touches: keep,
            });
        }
    }

    /// Records the made move, completed by a press (in `how`) or by none; the board shows
    /// it still.
    fn commit_made(&mut self, t: u64, made: Made, how: How, out: &mut Vec<ArbiterEvent>) {
        let (mine, rest) = self.split_at_move(made.split);
        self.record(t, made.mv, how, mine, rest, out);
    }

    /// Records the made move because the opponent went on (he replied, or pressed for a
    /// reply): his turn began when the move was completed.
    fn commit_replied(&mut self, t: u64, made: Made, how: How, out: &mut Vec<ArbiterEvent>) {
        let (mine, rest) = self.split_at_reply(made.split);
        let how = How {
            turn_from: Some(made.at),
            ..how
        };
        self.record(t, made.mv, how, mine, rest, out);
    }

    /// Records `m` with every touch so far (it was completed just now).
    fn record_now(&mut self, t: u64, m: Move, how: How, out: &mut Vec<ArbiterEvent>) {
        let (mine, rest) = self.split_at_move(self.touches.len());
        self.record(t, m, how, mine, rest, out);
    }

    /// Art. 6.9: a flag fell: the player loses, unless his opponent cannot mate by any
    /// series of legal moves (asked of the analysis; see `loss_unless_no_mate`).
    fn on_flag(&mut self, t: u64, side: ClockSide, out: &mut Vec<ArbiterEvent>) {
        if self.pending_press.is_some() {
            self.rule_press(t, out);
        }
        if matches!(self.phase, Phase::Over) {
            return;
        }
        let flag = self.clock.color_of(side);
        if self.clock_fault_at_zero(t, flag, out) {
            // Art. 6.10.2: the period's time was never added; 0:00 is no flag fall.
            return;
        }
        let position = *self.game.position();
        self.phase = Phase::Over;
        self.clear_pending();
        let generation = self.generation;
        self.request(
            position,
            flag.opponent(),
            Purpose::FlagFall,
            Waiting::Flag {
                t_ms: t,
                flag,
                generation,
            },
        );
    }

    fn result_on_board(&mut self, t: u64, result: GameResult, out: &mut Vec<ArbiterEvent>) {
        if matches!(self.phase, Phase::Over) {
            return;
        }
        self.phase = Phase::Over;
        self.clear_pending();
        self.left_start = false;
        self.announce_end(t, result, EndReason::ResultOnBoard, None, false, out);
    }

    fn new_game(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        self.displaced = None;
        self.displacements.clear();
        self.game = Game::new(self.cfg.start);
        self.generation += 1;
        self.counts = [0, 0];
        self.periods = crate::periods::PeriodWatch::default();
        self.press_readings = [None, None];
        self.stopped_times = None;
        self.period_moves_unknown = false;
        self.followed = None;
        self.phase = Phase::Playing;
        self.touches.clear();
        self.history.clear();
        self.clear_pending();
        self.desynced = false;
        self.held = None;
        self.rebuilt_doubt = None;
        self.gap_dump = None;
        self.evidence = proof::GapEvidence::default();
        self.unpressed_last = None;
        self.gap_open = false;
        self.result = None;
        self.left_start = false;
        self.recount();
        self.emit(
            out,
            t,
            EventKind::NewGame {
                fen: self.cfg.start.fen(),
            },
        );
    }

    fn clear_pending(&mut self) {
        self.made = None;
        self.pending_press = None;
        self.amend = None;
        self.quiet_deadline = None;
    }

    // ----- plumbing -----

    fn request(&mut self, position: Position, side: Color, purpose: Purpose, waiting: Waiting) {
        let id = self.next_id;
        self.next_id += 1;
        self.analyses.push_back(AnalysisRequest {
            id,
            position,
            side,
            purpose,
        });
        self.waiting.push((id, waiting));
    }

    fn emit(&self, out: &mut Vec<ArbiterEvent>, t: u64, kind: EventKind) {
        out.push(ArbiterEvent {
            t_ms: t,
            board: self.cfg.board.clone(),
            kind,
        });
    }

    fn status(
        &self,
        out: &mut Vec<ArbiterEvent>,
        t: u64,
        status: BoardStatus,
        detail: Option<String>,
    ) {
        self.emit(
            out,
            t,
            EventKind::BoardStatus(BoardStatusEvent {
                status,
                detail,
                candidates: Vec::new(),
            }),
        );
    }
}

/// The board shows `pos` with pieces lifted, and one legal move involves every lifted
/// square (the mover's piece, the piece it captures, the castling rook): a move under
/// way. Pieces missing that no single move involves (two pawns of one side, a piece of
/// each side far apart) are not a hand in mid-move.
fn move_under_way(pos: &Position, board: &Placement) -> bool {
    let mut lifted = Vec::new();
    for d in pos.placement().diff(board) {
        if d.after.is_some() {
            return false;
        }
        lifted.push(d.square);
    }
    !lifted.is_empty()
        && pos.legal_moves().any(|m| {
            pos.play(m).is_ok_and(|after| {
                lifted
                    .iter()
                    .all(|&sq| after.piece_at(sq) != pos.piece_at(sq))
            })
        })
}
