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
//!
//! This file holds the state and the entry points; each concern has its own file beside
//! it: `board.rs` (field updates and dumps), `displaced.rs` (art. 7.4), `recognise.rs`
//! (the board matched against moves), `recovery.rs` (gaps and sync), `clock_frames.rs`
//! (clock frames, presses and flags), `record.rs` (recording a move), `rulings.rs` (the
//! rulings at a press), `deep.rs`, `proof.rs` and `accept.rs` (long gaps), `desk.rs` and
//! `arbiter.rs` (the arbiter's inputs), `periods.rs` (time controls with periods).

use std::collections::VecDeque;

use chess_rules::{
    Attempt, CanMate, Color, EndReason, Game, GameResult, Move, Placement, Position,
};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{BoardEvent, ClockSide, ClockTime, Orientation, RawBoard, TimedEvent};

use crate::analysis::{AnalysisRequest, Purpose};
use crate::clock::ClockWatch;
use crate::config::{TimeCategory, TrackerConfig};
use crate::events::{
    ArbiterEvent, BoardStatus, BoardStatusEvent, ClockMs, EventKind, IllegalMoveEvent, Penalty,
    Touch,
};
use crate::recover;

mod accept;
mod arbiter;
mod board;
mod clock_frames;
mod deep;
mod desk;
mod displaced;
mod periods;
mod proof;
mod recognise;
mod record;
mod recovery;
mod rulings;

pub use accept::{AcceptError, AcceptedPosition, KnownGame};
pub use desk::{FillError, TakebackError};

use clock_frames::HeldClock;
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

pub(super) fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
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
