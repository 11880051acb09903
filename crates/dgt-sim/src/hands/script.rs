//! Laying a planned game out in time: think times clamped by the clock (the generator
//! plays its own script on an [`Emulator`] to know every player's exact remaining time),
//! hand motions, presses, the arbiter's handling of illegal moves, and the expected
//! events, each at the time of the action that causes it.

use std::ops::Range;

use chess_rules::{
    restore_steps, Attempt, Color, EndReason, GameResult, IllegalCategory, Move, Obligation, Piece,
    Position, RestoreStep, Role, Square,
};

use super::attempts::Checked;
use super::expected::{Expected, Ruling, TimedExpected};
use super::motion::{self, MotionLimits, MoveStyle, Step};
use super::options::{ArbiterClock, ArbiterCounter, HandOptions, Irregularity};
use super::plan::{stream, Injection, Plan};
use super::rng::HandRng;
use super::HandsError;
use crate::action::{Action, TimedAction};
use crate::emulator::{Emulator, EmulatorConfig, MoveCount, PeriodIndex};

/// Time kept in hand at every think: a move's hand motion, the press and a margin.
const RESERVE_MS: u64 = 5000;

/// What happened on one ply of the script, for tests and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlyRecord {
    /// Index into the game's moves.
    pub index: usize,
    /// The game's own ply number.
    pub ply: u32,
    pub color: Color,
    pub mv: Move,
    pub style: MoveStyle,
    /// The piece lifted and put back before the move (an adjustment, or the touch of an
    /// injected touch-move violation).
    pub adjusted: Option<Square>,
    /// Squares the piece was briefly put on along its path.
    pub slid_over: Vec<Square>,
    /// False when the mover did not press after this move.
    pub pressed: bool,
    pub irregularity: Option<Irregularity>,
    /// When the player's turn began (the opponent's press, or his move when he forgot to
    /// press).
    pub turn_start_ms: u64,
    /// When the player first touched a piece this turn (adjustment, attempt or move).
    pub first_touch_ms: u64,
    /// Indices into `Script::actions` of the legal move's hand motion; the placement
    /// after the last one is the position after the move.
    pub motion: Range<usize>,
    /// When the move was made (its motion's last action).
    pub made_at_ms: u64,
    /// When the mover pressed after it.
    pub press_ms: Option<u64>,
    /// The clock's move counter of the mover after this turn: his presses it counted
    /// (one ahead of his moves after an uncorrected illegal press, one behind after a
    /// forgotten one).
    pub clock_count: MoveCount,
    /// The period the clock began for the mover during this turn (it added that period's
    /// time at one of his presses), if any.
    pub period_began: Option<PeriodIndex>,
}

/// The timeline being written.
struct Walker<'a> {
    opts: &'a HandOptions,
    clock: Emulator,
    actions: Vec<TimedAction>,
    expected: Vec<TimedExpected>,
    now: u64,
}

impl Walker<'_> {
    fn act(&mut self, at: u64, action: Action) {
        let at = at.max(self.now);
        self.clock.apply_at(at, &action);
        self.actions.push(TimedAction { at_ms: at, action });
        self.now = at;
    }

    /// Plays steps, the first `gap` after `start`; returns the index range and the time
    /// of the last step.
    fn steps(&mut self, start: u64, steps: &[Step]) -> (Range<usize>, u64) {
        let first = self.actions.len();
        let mut t = start;
        for s in steps {
            t += s.gap_ms;
            self.act(t, s.action.clone());
        }
        (first..self.actions.len(), self.now.max(start))
    }

    fn expect(&mut self, at: u64, event: Expected) {
        self.expected.push(TimedExpected { at_ms: at, event });
    }

    /// The colour whose time runs at `t`, and how much it has left.
    fn running(&mut self, t: u64) -> Option<(Color, u64)> {
        self.clock.advance_to(t);
        if !self.clock.clock_running() {
            return None;
        }
        let lever = self.clock.lever();
        let color = Color::ALL
            .into_iter()
            .find(|c| self.clock.side_of(*c) == lever)?;
        Some((color, self.clock.remaining(color).as_millis() as u64))
    }

    /// The period `color`'s clock began since it was in `before`, if it did.
    fn clock_period_began(&self, color: Color, before: PeriodIndex) -> Option<PeriodIndex> {
        Some(self.clock.period(color)).filter(|p| *p != before)
    }

    /// A think of `wanted` ms from `start`, cut so that the running side keeps its
    /// reserve, and never shorter than the minimum.
    fn think(&mut self, start: u64, wanted: u64) -> u64 {
        let cap = self
            .running(start)
            .map_or(u64::MAX, |(_, left)| left.saturating_sub(RESERVE_MS));
        wanted.min(cap).max(self.opts.min_think_ms)
    }
}

/// What a ruling on an illegal move says besides who, how many and what it costs.
struct Ruled {
    category: IllegalCategory,
    attempt: Option<Attempt>,
    restore_fen: String,
    restore: Vec<chess_rules::RestoreStep>,
    must_move: Option<Square>,
}

impl Walker<'_> {
    /// Expects the ruling on `color`'s illegal move number `count` at the press; with a
    /// `result` (his second) the game is over: `true`.
    fn rule(
        &mut self,
        press: u64,
        color: Color,
        (count, result): (u32, Option<GameResult>),
        r: Ruled,
    ) -> bool {
        let ruling = result.map_or(
            Ruling::Penalty {
                to: color.opponent(),
            },
            Ruling::Result,
        );
        self.expect(
            press,
            Expected::IllegalMove {
                color,
                category: r.category,
                attempt: r.attempt,
                count,
                restore_fen: r.restore_fen,
                restore: r.restore,
                // A game-ending ruling binds nobody.
                must_move: r.must_move.filter(|_| result.is_none()),
                ruling,
            },
        );
        if let Some(result) = result {
            self.expect(
                press,
                Expected::GameOver {
                    result,
                    reason: EndReason::SecondIllegalMove,
                },
            );
        }
        result.is_some()
    }
}

/// The whole script of a planned game.
pub(crate) struct Laid {
    pub actions: Vec<TimedAction>,
    pub expected: Vec<TimedExpected>,
    pub plies: Vec<PlyRecord>,
    pub end_ms: u64,
}

fn move_event(pos: &Position, next: &Position, m: Move) -> Expected {
    Expected::Move {
        ply: pos.plies() + 1,
        color: pos.side_to_move(),
        mv: m,
        san: pos.san(m).unwrap_or_else(|_| m.uci()),
        fen: next.fen(),
    }
}

/// The clock configuration the script is timed for (and that an emulator playing it
/// needs): both players on the first period's time and increment, the later periods
/// added by the clock's own count, the start placement.
pub(crate) fn clock_config(start: &Position, opts: &HandOptions) -> EmulatorConfig {
    EmulatorConfig {
        start: *start.placement(),
        ..EmulatorConfig::default()
    }
    .with_time_control(opts.time_control)
}

pub(crate) fn lay_out(
    positions: &[Position],
    moves: &[Move],
    plan: &Plan,
    opts: &HandOptions,
) -> Result<Laid, HandsError> {
    let mut w = Walker {
        opts,
        clock: Emulator::new(clock_config(&positions[0], opts)),
        actions: Vec::new(),
        expected: Vec::new(),
        now: 0,
    };
    let mut plies = Vec::new();
    // The press of the side not to move starts the clock (Black's, from the standard
    // start): the mover's time runs.
    let starter = positions[0].side_to_move().opponent();
    w.act(opts.start_delay_ms, Action::PressClock(starter));
    let mut turn_start = w.now;
    let mut end_ms = None;
    let mut opponent_forgot = false;
    // The ply after the last one played may carry the injection that ends the game (a
    // flag fall, a second illegal move).
    for k in 0..moves.len().min(plan.moves + 1) {
        if k == plan.moves && !plan.placed.contains_key(&k) {
            break;
        }
        let pos = &positions[k];
        let next = &positions[k + 1];
        let m = moves[k];
        let color = pos.side_to_move();
        let mut rng = HandRng::derived(opts.seed, stream::MOTION + k as u64);
        let info = pos
            .move_info(m)
            .ok_or_else(|| HandsError::Internal(format!("move {m} not legal at index {k}")))?;
        let placed = plan.placed.get(&k);
        let ply_start = w.actions.len();
        let period_before = w.clock.period(color);
        let irregularity = placed.map(|p| p.irregularity);
        let think = w.think(turn_start, plan.think_ms[k]);
        let mut t = turn_start + think;
        let mut limits = MotionLimits::FREE;
        let mut pressed_turn_start = turn_start;

        // What comes before the legal move: an illegal move and its restoration.
        if let Some(p) = placed {
            match &p.injection {
                Injection::FlagFall { result } => {
                    let (running, left) = w.running(turn_start).ok_or_else(|| {
                        HandsError::Internal(format!("no clock runs at the flag ply {k}"))
                    })?;
                    if running != color {
                        return Err(HandsError::Internal(format!(
                            "{running}'s time runs at {color}'s flag ply {k}"
                        )));
                    }
                    let flag_at = turn_start + left;
                    w.expect(
                        flag_at,
                        Expected::GameOver {
                            result: *result,
                            reason: EndReason::Flag,
                        },
                    );
                    w.clock.advance_to(flag_at + 1);
                    if w.clock.flag() != Some(w.clock.side_of(color)) {
                        return Err(HandsError::Internal(format!(
                            "the flag of {color} did not fall at {flag_at} ms"
                        )));
                    }
                    end_ms = Some(flag_at + 1000);
                    break;
                }
                Injection::Attempt(_) | Injection::ClockWithoutMove => {
                    // The attempt on the board (none for a press without a move), the
                    // press, the ruling and the restoration.
                    let attempt = match &p.injection {
                        Injection::Attempt(c) => Some(&**c),
                        _ => None,
                    };
                    let press_from = match attempt {
                        Some(c) => w.steps(t, &c.plan.steps).1,
                        None => t,
                    };
                    let outcome = illegal_press(
                        &mut w,
                        pos,
                        color,
                        (p.count, p.result),
                        press_from,
                        &mut rng,
                        attempt,
                    )?;
                    let Some(back) = outcome else {
                        end_ms = Some(w.now + 1000);
                        break;
                    };
                    pressed_turn_start = back;
                    t = back + w.think(back, replacement_think(opts, &mut rng));
                    // The replacing move touches its own piece first.
                    limits.victim_first = false;
                }
                Injection::Unpromoted => {
                    let mv = motion::unpromoted(&info, &mut rng);
                    let (range, last) = w.steps(t, &mv.steps);
                    let press = last + rng.range(50, 500);
                    w.act(press, Action::PressClock(color));
                    let mut pawn_board = *next.placement();
                    pawn_board.set(m.to, Some(Piece::new(color, Role::Pawn)));
                    // A second illegal move corrects nothing: the position before it.
                    let (restore_fen, restore) = match p.result {
                        None => (next.fen(), restore_steps(&pawn_board, next.placement())),
                        Some(_) => (pos.fen(), restore_steps(&pawn_board, pos.placement())),
                    };
                    let over = w.rule(
                        press,
                        color,
                        (p.count, p.result),
                        Ruled {
                            category: IllegalCategory::UnpromotedPawn,
                            attempt: Some(Attempt {
                                from: m.from,
                                to: m.to,
                                piece: Piece::new(color, Role::Pawn),
                            }),
                            restore_fen: restore_fen.clone(),
                            restore,
                            must_move: None,
                        },
                    );
                    if over {
                        end_ms = Some(press + 1000);
                        break;
                    }
                    w.expect(press, move_event(pos, next, m));
                    // The arbiter replaces the pawn with a queen; the opponent is to move.
                    let mut t = press + rng.range(opts.arbiter_delay_ms.0, opts.arbiter_delay_ms.1);
                    let pause = opts.arbiter_clock == ArbiterClock::PauseAndHandBack;
                    if pause {
                        w.act(t, Action::PauseClock);
                    }
                    t += rng.range(500, 1000);
                    w.act(t, Action::Place(m.to, Piece::new(color, Role::Queen)));
                    let motion_end = w.actions.len();
                    let made = t;
                    w.expect(t, Expected::Restored { fen: restore_fen });
                    if pause {
                        t += rng.range(300, 800);
                        w.act(t, Action::PauseClock);
                    }
                    plies.push(PlyRecord {
                        index: k,
                        ply: pos.plies() + 1,
                        color,
                        mv: m,
                        style: MoveStyle::Unpromoted,
                        adjusted: None,
                        slid_over: Vec::new(),
                        pressed: true,
                        irregularity,
                        turn_start_ms: turn_start,
                        first_touch_ms: first_touch(&w.actions[ply_start..]).unwrap_or(t),
                        motion: range.start..motion_end,
                        made_at_ms: made,
                        press_ms: Some(press),
                        clock_count: w.clock.move_count(color),
                        period_began: w.clock_period_began(color, period_before),
                    });
                    turn_start = w.now;
                    continue;
                }
                _ => {}
            }
        }

        // An adjustment (or the touch of an injected violation) during the think.
        let replacing = matches!(
            placed.map(|p| &p.injection),
            Some(Injection::Attempt(_) | Injection::ClockWithoutMove)
        );
        let displaced = match placed.map(|p| &p.injection) {
            Some(Injection::Displaced { square, piece }) => Some((*square, *piece)),
            _ => None,
        };
        let adjusted = if replacing || displaced.is_some() {
            None
        } else {
            plan.adjust[k]
        };
        if let Some((sq, piece)) = adjusted {
            let lo = turn_start + opts.min_think_ms;
            let at = lo.max(turn_start + (think as f64 * (0.2 + 0.4 * rng.unit())) as u64);
            let injected = matches!(
                placed.map(|p| &p.injection),
                Some(Injection::TouchOther { .. })
            );
            let steps = motion::adjustment(sq, piece, injected, &mut rng);
            let (_, end) = w.steps(at, &steps);
            t = t.max(end + rng.range(300, 1200));
        }
        if matches!(
            placed.map(|p| &p.injection),
            Some(Injection::TouchOther { .. })
        ) {
            limits = MotionLimits {
                victim_first: false,
                victim_lift: false,
                sliding_noise: true,
            };
        }
        let mv = match placed.map(|p| &p.injection) {
            Some(Injection::RookBeforeKing) => motion::castling_rook_first(&info, &mut rng),
            Some(Injection::TwoHandedCastling) => motion::castling_two_handed(&info, &mut rng),
            _ => None,
        }
        .unwrap_or_else(|| motion::legal_move(pos, &info, &opts.variations, limits, &mut rng));
        let mut mv = mv;
        if let Some((square, _)) = displaced {
            // Art. 7.4: the piece knocked off the board while the move is being made.
            let at = 1.min(mv.steps.len());
            mv.steps.insert(
                at,
                Step {
                    gap_ms: rng.range(150, 400),
                    action: Action::Lift(square),
                },
            );
        }
        let (range, made) = w.steps(t, &mv.steps);
        w.expect(made, move_event(pos, next, m));
        match placed.map(|p| &p.injection) {
            Some(Injection::TouchOther { square, piece }) => w.expect(
                made,
                Expected::TouchMove {
                    color,
                    touched: vec![(*square, *piece), (m.from, info.piece)],
                    obligation: Obligation::Move,
                    played: m,
                    violation: true,
                },
            ),
            Some(Injection::RookBeforeKing) => {
                let rook_from = info.castling.map_or(m.from, |(_, from, _)| from);
                w.expect(
                    made,
                    Expected::TouchMove {
                        color,
                        touched: vec![
                            (rook_from, Piece::new(color, Role::Rook)),
                            (m.from, info.piece),
                        ],
                        obligation: Obligation::Move,
                        played: m,
                        violation: true,
                    },
                )
            }
            Some(Injection::TwoHandedCastling) => {
                w.expect(made, Expected::TwoHandedSuspected { color, mv: m })
            }
            Some(Injection::Attempt(c)) => {
                if let Some(obligation) = c.violation {
                    w.expect(
                        made,
                        Expected::TouchMove {
                            color,
                            touched: c.touched.clone(),
                            obligation,
                            played: m,
                            violation: true,
                        },
                    )
                }
            }
            _ => {}
        }
        let last_of_game = k + 1 == plan.moves;
        if last_of_game {
            if let Some(end) = plan.rules_end {
                w.expect(
                    made,
                    Expected::GameOver {
                        result: end.result,
                        reason: end.reason,
                    },
                );
            }
        }
        // The press: forgotten, or (after the opponent forgot his) perhaps left out too.
        let forgot =
            displaced.is_none() && (plan.forgotten[k] || (opponent_forgot && rng.chance(0.5)));
        let press_ms = if forgot {
            None
        } else {
            let at = made + rng.range(50, 500);
            w.act(at, Action::PressClock(color));
            Some(at)
        };
        opponent_forgot = plan.forgotten[k] && displaced.is_none();
        // Art. 7.4: ruled at the press as the move with a piece displaced; the player puts
        // it back after the ruling, before the opponent starts his move.
        let mut turn_end = press_ms.unwrap_or(made);
        if let (Some((square, piece)), Some(press)) = (displaced, press_ms) {
            let ply = pos.plies() + 1;
            let squares = vec![RestoreStep::Put { square, piece }];
            w.expect(
                press,
                Expected::Displaced {
                    color,
                    ply,
                    squares: squares.clone(),
                    reestablished: false,
                },
            );
            let back = press + rng.range(1500, 2500);
            w.act(back, Action::Place(square, piece));
            w.expect(
                back,
                Expected::Displaced {
                    color,
                    ply,
                    squares,
                    reestablished: true,
                },
            );
            turn_end = back;
        }
        plies.push(PlyRecord {
            index: k,
            ply: pos.plies() + 1,
            color,
            mv: m,
            style: mv.style,
            adjusted: adjusted.map(|(sq, _)| sq),
            slid_over: mv.slid_over,
            pressed: press_ms.is_some(),
            irregularity,
            turn_start_ms: pressed_turn_start,
            first_touch_ms: first_touch(&w.actions[ply_start..]).unwrap_or(made),
            motion: range,
            made_at_ms: made,
            press_ms,
            clock_count: w.clock.move_count(color),
            period_began: w.clock_period_began(color, period_before),
        });
        turn_start = turn_end;
    }
    let end_ms = end_ms.unwrap_or(w.now + 1000);
    // Nobody may lose on time unless a flag fall was asked for.
    w.clock.advance_to(end_ms);
    let flag_planned = plan
        .placed
        .values()
        .any(|p| p.irregularity == Irregularity::FlagFall);
    if !flag_planned {
        if let Some(side) = w.clock.flag() {
            let color = if w.clock.side_of(Color::White) == side {
                Color::White
            } else {
                Color::Black
            };
            return Err(HandsError::TimeTrouble {
                color,
                time_control: opts.time_control,
                think_scale: opts.think_scale,
            });
        }
    }
    Ok(Laid {
        actions: w.actions,
        expected: w.expected,
        plies,
        end_ms,
    })
}

/// The time of the first lift or placement among `actions`.
fn first_touch(actions: &[TimedAction]) -> Option<u64> {
    actions
        .iter()
        .find(|a| matches!(a.action, Action::Lift(_) | Action::Place(..)))
        .map(|a| a.at_ms)
}

fn replacement_think(opts: &HandOptions, rng: &mut HandRng) -> u64 {
    (rng.range(1000, 6000) as f64 * opts.think_scale) as u64
}

/// The press that completes an illegal move (`c`: the attempt on the board; `None`: a
/// press without a move, made at `at`), its ruling, and the arbiter's restoration. Returns
/// when the offender's replacing turn begins, or `None` when the game is over.
fn illegal_press(
    w: &mut Walker<'_>,
    pos: &Position,
    color: Color,
    (count, result): (u32, Option<GameResult>),
    at: u64,
    rng: &mut HandRng,
    c: Option<&Checked>,
) -> Result<Option<u64>, HandsError> {
    let opts = w.opts;
    let press = if c.is_some() {
        at + rng.range(50, 500)
    } else {
        at
    };
    w.act(press, Action::PressClock(color));
    let fen = pos.fen();
    let (category, attempt, must_move, restore) = match c {
        Some(c) => (c.category, c.attempt, c.must_move, c.restore_list.clone()),
        None => (IllegalCategory::ClockWithoutMove, None, None, Vec::new()),
    };
    let ruled = Ruled {
        category,
        attempt,
        restore_fen: fen.clone(),
        restore,
        must_move,
    };
    if w.rule(press, color, (count, result), ruled) {
        return Ok(None);
    }
    let pause = opts.arbiter_clock == ArbiterClock::PauseAndHandBack;
    let mut arb = HandRng::derived(opts.seed, stream::ARBITER + u64::from(pos.plies()));
    let mut t = press + arb.range(opts.arbiter_delay_ms.0, opts.arbiter_delay_ms.1);
    if pause {
        w.act(t, Action::PauseClock);
    }
    match c {
        Some(c) => {
            let (_, last) = w.steps(t + arb.range(300, 800), &c.restore);
            t = last;
            w.expect(t, Expected::Restored { fen });
        }
        None => w.expect(press, Expected::Restored { fen }),
    }
    if pause {
        // The clock counted the illegal press: with periods to add, the arbiter takes the
        // offender's counter back by one while the clock is stopped, or leaves it (the
        // next period then comes a move early).
        let periods = !opts.time_control.is_sudden_death_only();
        if periods && opts.arbiter_counter == ArbiterCounter::TakeBack {
            t += arb.range(1500, 4000);
            let count = w.clock.move_count(color).previous();
            w.act(t, Action::SetMoveCounter { color, count });
        }
        // Hand the move back: the lever goes to the offender's side while the clock is
        // stopped, then the clock runs again.
        t += arb.range(500, 1200);
        w.act(t, Action::PressClock(color.opponent()));
        t += arb.range(300, 800);
        w.act(t, Action::PauseClock);
    }
    Ok(Some(t.max(w.now)))
}
