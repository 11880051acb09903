//! Unattended rulings on the DGT3000, for boards with `unattended = true`: club blitz
//! without an arbiter, where the clock itself must stop, say what happened and restart
//! with the corrected times (arbiter-rules.md §5).
//!
//! - A first illegal move: the clock is stopped (set-and-run, paused, the lever handed
//!   to the player who must move), shows `ILLEGAL` and then `RESTORE`; once the tracker
//!   says the board shows the reinstated position (`restored`), the corrected times are
//!   set (penalty added, the offender's increment from the illegal press removed) and the
//!   clock runs for the player to move in the reinstated position (the offender; after an
//!   unpromoted pawn, his opponent, the queen being the move). A penalised two-handed
//!   move stands: the clock restarts at once. If the illegal move stands (partial
//!   supervision: the opponent replied first), the clock restarts with the times of the
//!   press, the penalty void, for the opponent to complete his reply.
//! - A board out of sync after a gap (`board_status` `out_of_sync`): the clock shows
//!   `ARBITER` and is neither stopped nor corrected (nothing is ruled on a guess).
//! - A second illegal move, a flag fall, mate, stalemate, a dead position or any other
//!   end: the clock is stopped and shows the result (`0-1 FLAG`, `1/2 DEAD`, ...).
//! - After the daemon has set the clock, the DGT3000 adds no increment of its own (it
//!   runs under host control, as the emulator models it): the daemon adds it at each
//!   pressed move (the mover's time at the press plus the increment; the opponent's
//!   time at the press less the time since).
//!
//! [`Referee`] decides, sans-IO: fed the board's events, it says which [`Step`]s the
//! clock must get. [`spawn`] runs one referee per unattended board on the hub's event
//! log, and one executor per board that sends the steps in order through the driver's
//! clock command API (`dgt_serial::BoardControl::clock`: one command in flight, ACK
//! pacing, one resend after a lost ACK, then given up cleanly: the next step goes on).
//! While the daemon holds the clock stopped, the tracker takes no lever movement for a
//! press (it only reads presses while the clock runs).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use chess_rules::{Color, GameResult, IllegalCategory, Position};
use dgt_protocol::{ClockCommand, ClockSide, ClockText, Hms, SetAndRunMode};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use touch_tracker::events::{GameOverEvent, IllegalMoveEvent};
use touch_tracker::{ArbiterEvent, BoardStatus, ClockMs, EndReason, EventKind};

use arbiter_hub::Hub;
use daemon_config::Config;

/// The text shown first after an illegal move.
pub const ILLEGAL_TEXT: &str = "ILLEGAL";
/// The text shown while the position is being reinstated.
pub const RESTORE_TEXT: &str = "RESTORE";
/// The text shown, with the clock running, after pieces were knocked over (art. 7.4).
pub const DISPLACED_TEXT: &str = "PUT BACK";
/// The text shown, with the clock running, after the arbiter added time to a player
/// (a penalty for displaced pieces, art. 12.9.2, taken on the dashboard).
pub const TIME_ADDED_TEXT: &str = "+TIME";
/// The text shown when the board is out of sync after a gap: the daemon cannot tell what
/// was played, so it rules nothing and leaves the clock running; the players call the
/// arbiter.
pub const ARBITER_TEXT: &str = "ARBITER";
/// The beep with a ruling (1-15; see `ClockCommand::Ascii`).
const BEEP: u8 = 3;

/// What the clock gets, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Command(ClockCommand),
    /// Leave the display as it is this long before the next step.
    Hold(Duration),
}

/// The board's clock as the tracker sees it when an event is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockView {
    /// The side of the clock that is White's (the tracker's mapping).
    pub white_side: ClockSide,
    /// Both times of the last clock frame, if any.
    pub now: Option<ClockMs>,
}

impl ClockView {
    fn side_of(&self, color: Color) -> ClockSide {
        match color {
            Color::White => self.white_side,
            Color::Black => self.white_side.other(),
        }
    }
}

/// A ruling waiting for the board to show the reinstated position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    /// The times at the illegal press.
    before: ClockMs,
    /// The times to set once the position is reinstated.
    corrected: ClockMs,
    /// Whose clock runs then.
    runs: Color,
}

/// One unattended board's decisions. See the module documentation.
#[derive(Debug, Clone)]
pub struct Referee {
    increment_ms: u64,
    text_hold: Duration,
    /// The daemon has set the clock: it adds no increment of its own any more.
    host_clock: bool,
    pending: Option<Pending>,
    over: bool,
}

/// Whole seconds for the clock (the nearest; the clock shows no less).
fn hms(ms: u64) -> Hms {
    let secs = u32::try_from(ms.saturating_add(500) / 1000).unwrap_or(u32::MAX);
    Hms::from_secs(secs).unwrap_or(Hms::MAX)
}

/// A text on the DGT3000 (8 characters at most; `None` for one it cannot show).
fn show(s: &str) -> Option<Step> {
    ClockText::new(s)
        .ok()
        .map(|text| Step::Command(ClockCommand::Ascii { text, beep: BEEP }))
}

/// What the clock shows at the end of a game: the result and the reason in 8 characters.
pub fn result_text(g: &GameOverEvent) -> String {
    let result = match g.result {
        GameResult::WhiteWins => "1-0",
        GameResult::BlackWins => "0-1",
        GameResult::Draw => "1/2",
        _ => "*",
    };
    let why = match g.reason {
        EndReason::Checkmate => "MATE",
        EndReason::Stalemate => "STAL",
        EndReason::DeadPosition => "DEAD",
        EndReason::Fivefold => "REP5",
        EndReason::SeventyFiveMoves => "75MV",
        EndReason::SecondIllegalMove => "ILLG",
        EndReason::Flag => "FLAG",
        // The result alone: shown by the players, or an end the tracker does not announce.
        EndReason::ResultOnBoard
        | EndReason::Threefold
        | EndReason::FiftyMoves
        | EndReason::Resignation
        | EndReason::Agreement
        | EndReason::Arbiter => "",
    };
    format!("{result} {why}").trim_end().to_owned()
}

impl Referee {
    /// A referee for a game with this increment (ms per move) that holds each ruling's
    /// text this long.
    pub fn new(increment_ms: u64, text_hold: Duration) -> Referee {
        Referee {
            increment_ms,
            text_hold,
            host_clock: false,
            pending: None,
            over: false,
        }
    }

    /// Whether a ruling waits for the reinstated position.
    pub fn is_waiting(&self) -> bool {
        self.pending.is_some()
    }

    fn set_and_run(view: &ClockView, times: ClockMs, runs: Option<Color>, paused: bool) -> Step {
        let (left, right) = match view.white_side {
            ClockSide::Left => (times.white, times.black),
            ClockSide::Right => (times.black, times.white),
        };
        Step::Command(ClockCommand::SetAndRun {
            left: hms(left),
            right: hms(right),
            mode: SetAndRunMode {
                runs: runs.map(|c| view.side_of(c)),
                paused,
                switch_on_lever: !paused,
            },
        })
    }

    /// Corrected times, the clock running for `runs`, the time display back.
    fn restart(&mut self, view: &ClockView, times: ClockMs, runs: Color) -> Vec<Step> {
        self.host_clock = true;
        vec![
            Referee::set_and_run(view, times, Some(runs), false),
            Step::Command(ClockCommand::End),
        ]
    }

    /// The clock stopped with these times (the lever to `lever`'s side).
    fn stop(view: &ClockView, times: Option<ClockMs>, lever: Option<Color>) -> Vec<Step> {
        times
            .map(|t| Referee::set_and_run(view, t, lever, true))
            .into_iter()
            .collect()
    }

    fn illegal(&mut self, i: &IllegalMoveEvent, view: &ClockView) -> Vec<Step> {
        let mut steps;
        if i.result.is_some() {
            // The second: the game is over; `game_over` shows the result next.
            self.pending = None;
            steps = Referee::stop(view, i.clock_before.or(view.now), None);
            steps.extend(show(ILLEGAL_TEXT));
            steps.push(Step::Hold(self.text_hold));
            return steps;
        }
        let (Some(before), Some(penalty)) = (i.clock_before, i.penalty) else {
            // No clock times known: nothing to set.
            return Vec::new();
        };
        let mut plus_penalty = before;
        plus_penalty.set(penalty.to, before.get(penalty.to) + penalty.add_ms);
        // Under host control the illegal press added no increment, so none comes off.
        let corrected = if self.host_clock {
            plus_penalty
        } else {
            i.clock_after.unwrap_or(plus_penalty)
        };
        // A Chess960 game's FEN is X-FEN, which the standard reader may refuse.
        let runs = Position::from_fen(&i.restore_fen)
            .or_else(|_| Position::from_fen_960(&i.restore_fen))
            .map(|p| p.side_to_move())
            .unwrap_or(i.color);
        steps = Referee::stop(view, Some(before), Some(runs));
        steps.extend(show(ILLEGAL_TEXT));
        steps.push(Step::Hold(self.text_hold));
        steps.extend(show(RESTORE_TEXT));
        if i.category == IllegalCategory::TwoHanded {
            // The move stands: nothing to reinstate.
            steps.extend(self.restart(view, corrected, runs));
        } else {
            self.pending = Some(Pending {
                before,
                corrected,
                runs,
            });
        }
        steps
    }

    /// What the clock must get after this event. `since_ms` is how long ago the event's
    /// input happened (for the opponent's running time when an increment is added).
    pub fn on_event(&mut self, e: &ArbiterEvent, view: &ClockView, since_ms: u64) -> Vec<Step> {
        match &e.kind {
            EventKind::NewGame { .. } => {
                *self = Referee::new(self.increment_ms, self.text_hold);
                Vec::new()
            }
            _ if self.over => Vec::new(),
            EventKind::IllegalMove(i) => self.illegal(i, view),
            EventKind::BoardStatus(s) if s.status == BoardStatus::OutOfSync => {
                show(ARBITER_TEXT).into_iter().collect()
            }
            // Explained again (or accepted by the arbiter): the times are shown again.
            EventKind::BoardStatus(s) if s.status == BoardStatus::InSync => {
                vec![Step::Command(ClockCommand::End)]
            }
            EventKind::Restored { .. } => match self.pending.take() {
                Some(p) => self.restart(view, p.corrected, p.runs),
                None => Vec::new(),
            },
            // Art. 7.4: displaced pieces are no illegal move: the clock keeps running and
            // only shows, for a while, that pieces must be put back.
            EventKind::Displaced(d) if !d.reestablished && self.pending.is_none() => {
                let mut steps: Vec<Step> = show(DISPLACED_TEXT).into_iter().collect();
                steps.push(Step::Hold(self.text_hold));
                steps.push(Step::Command(ClockCommand::End));
                steps
            }
            // The arbiter's penalty for displaced pieces (art. 12.9.2), or the times he set
            // (art. 6.10), taken by hand on the dashboard: the clock is set as he decided
            // and keeps running for the player to move (less the time since the decision).
            EventKind::ArbiterDecision(d)
                if matches!(
                    d.decision,
                    touch_tracker::Decision::TimeAdded | touch_tracker::Decision::ClockSet
                ) && self.pending.is_none() =>
            {
                let Some(mut times) = d.clock_after else {
                    return Vec::new();
                };
                times.set(d.to_move, times.get(d.to_move).saturating_sub(since_ms));
                self.host_clock = true;
                let mut steps = vec![Referee::set_and_run(view, times, Some(d.to_move), false)];
                if d.decision == touch_tracker::Decision::TimeAdded {
                    steps.extend(show(TIME_ADDED_TEXT));
                    steps.push(Step::Hold(self.text_hold));
                    steps.push(Step::Command(ClockCommand::End));
                }
                steps
            }
            EventKind::IllegalMoveStands(s) => match self.pending.take() {
                // The opponent's reply is on the board: his press completes it.
                Some(p) => self.restart(view, p.before, s.color.opponent()),
                None => Vec::new(),
            },
            EventKind::GameOver(g) => {
                self.over = true;
                self.pending = None;
                let mut steps = if g.reason == EndReason::Flag {
                    // The clock stopped itself at 0:00.
                    Vec::new()
                } else {
                    Referee::stop(view, view.now, None)
                };
                steps.extend(show(&result_text(g)));
                steps
            }
            EventKind::Move(m) => {
                let add = self.host_clock
                    && self.increment_ms > 0
                    && self.pending.is_none()
                    && m.pressed
                    && !m.correction
                    && m.replaces.is_none();
                match m.clock_ms.filter(|_| add) {
                    Some(at_press) => {
                        let mut t = at_press;
                        t.set(m.color, at_press.get(m.color) + self.increment_ms);
                        let opp = m.color.opponent();
                        t.set(opp, at_press.get(opp).saturating_sub(since_ms));
                        vec![Referee::set_and_run(view, t, Some(opp), false)]
                    }
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// After a restart: a ruling that was waiting is shown again (the clock stopped,
    /// `RESTORE`), since the clock may have been reset meanwhile.
    pub fn resume(&self, view: &ClockView) -> Vec<Step> {
        match &self.pending {
            Some(p) => {
                let mut steps = Referee::stop(view, Some(p.before), Some(p.runs));
                steps.extend(show(RESTORE_TEXT));
                steps
            }
            None => Vec::new(),
        }
    }
}

/// The clock view of a board now, from the hub's snapshot.
fn view_of(hub: &Hub, board: u32) -> ClockView {
    let snap = hub.board(board).and_then(|v| v.snapshot);
    ClockView {
        white_side: snap.as_ref().map_or(ClockSide::Left, |s| s.white_clock),
        now: snap.and_then(|s| s.clock_ms),
    }
}

/// Runs the unattended boards of the config (`None` if there are none) until aborted.
pub fn spawn(hub: Arc<Hub>, config: &Config) -> Option<JoinHandle<()>> {
    let hold = Duration::from_millis(config.timing.ruling_text_ms);
    // Each board's own increment (its own time control, or the event's).
    let boards: Vec<(u32, u64)> = config
        .boards
        .iter()
        .filter(|b| b.unattended)
        .map(|b| {
            let tc = config.board_time_control(b);
            (b.number, u64::from(tc.first_increment_secs()) * 1000)
        })
        .collect();
    if boards.is_empty() {
        return None;
    }
    tracing::info!(
        "unattended clock control on board{} {}",
        if boards.len() == 1 { "" } else { "s" },
        boards
            .iter()
            .map(|(b, _)| b.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Some(tokio::spawn(follow(hub, boards, hold)))
}

async fn follow(hub: Arc<Hub>, boards: Vec<(u32, u64)>, hold: Duration) {
    let mut referees: BTreeMap<u32, (Referee, mpsc::UnboundedSender<Vec<Step>>)> = BTreeMap::new();
    let mut executors = Vec::new();
    for &(b, increment_ms) in &boards {
        let (tx, rx) = mpsc::unbounded_channel();
        executors.push(tokio::spawn(execute(Arc::clone(&hub), b, rx)));
        referees.insert(b, (Referee::new(increment_ms, hold), tx));
    }
    // Stops the executors when this task is aborted.
    struct AbortOnDrop(Vec<JoinHandle<()>>);
    impl Drop for AbortOnDrop {
        fn drop(&mut self) {
            for h in &self.0 {
                h.abort();
            }
        }
    }
    let _executors = AbortOnDrop(executors);
    let mut changed = hub.changed();
    let mut seen = 0;
    let mut first = true;
    loop {
        let events = hub.events_since(seen);
        seen += events.len();
        let now = wall_clock::unix_ms_now();
        for e in &events {
            let Some((referee, tx)) = referees.get_mut(&e.board) else {
                continue;
            };
            let view = view_of(&hub, e.board);
            let steps = referee.on_event(&e.event, &view, now.saturating_sub(e.wall_ms));
            // A replayed event was acted on before the restart: it only rebuilds the state.
            if !e.replayed && !steps.is_empty() {
                let _ = tx.send(steps);
            }
        }
        if first {
            first = false;
            for (&b, (referee, tx)) in &referees {
                let steps = referee.resume(&view_of(&hub, b));
                if !steps.is_empty() {
                    tracing::info!(board = b, "unattended: a ruling still waits for the board");
                    let _ = tx.send(steps);
                }
            }
        }
        if changed.changed().await.is_err() {
            break;
        }
    }
}

/// Sends one board's steps in order.
async fn execute(hub: Arc<Hub>, board: u32, mut rx: mpsc::UnboundedReceiver<Vec<Step>>) {
    while let Some(steps) = rx.recv().await {
        for step in steps {
            match step {
                Step::Hold(d) => tokio::time::sleep(d).await,
                Step::Command(c) => match hub.control(board) {
                    None => tracing::warn!(
                        board,
                        "unattended: the board's driver is not running; clock command {c} not sent"
                    ),
                    Some(control) => match control.clock(c.clone()).await {
                        Ok(_) => tracing::info!(board, "unattended: clock {c}"),
                        Err(e) => tracing::warn!(
                            board,
                            "unattended: the clock did not take {c}: {e}; going on"
                        ),
                    },
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_rules::{Attempt, Piece, RestoreStep, START_FEN};
    use touch_tracker::events::{IllegalMoveStandsEvent, MoveEvent};
    use touch_tracker::Penalty;

    const HOLD: Duration = Duration::from_millis(700);
    /// After 1. e4 e5: White to move.
    const AFTER_E4_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";

    fn ms(white: u64, black: u64) -> ClockMs {
        ClockMs { white, black }
    }

    fn ev(kind: EventKind) -> ArbiterEvent {
        ArbiterEvent {
            t_ms: 1,
            board: "1".into(),
            kind,
        }
    }

    fn view(white_side: ClockSide) -> ClockView {
        ClockView {
            white_side,
            now: Some(ms(290_000, 297_000)),
        }
    }

    /// White's bishop f1-f3 at 4:53 (the press added 3 s) against Black's 4:57.
    fn illegal(category: IllegalCategory, restore_fen: &str, count: u32) -> IllegalMoveEvent {
        let before = ms(293_000, 297_000);
        IllegalMoveEvent {
            color: Color::White,
            category,
            attempt: Some(Attempt {
                from: "f1".parse().unwrap(),
                to: "f3".parse().unwrap(),
                piece: Piece::from_fen_char('B').unwrap(),
            }),
            count,
            restore_fen: restore_fen.into(),
            restore: vec![RestoreStep::Remove {
                square: "f3".parse().unwrap(),
                piece: Piece::from_fen_char('B').unwrap(),
            }],
            must_move: Some("f1".parse().unwrap()),
            penalty: (count == 1).then_some(Penalty {
                add_ms: 60_000,
                to: Color::Black,
            }),
            result: (count > 1).then_some(GameResult::BlackWins),
            result_undetermined: false,
            ply: 3,
            explanation: String::new(),
            clock_before: Some(before),
            clock_after: (count == 1).then_some(ms(290_000, 357_000)),
        }
    }

    fn set(left: u32, right: u32, runs: Option<ClockSide>, paused: bool) -> Step {
        Step::Command(ClockCommand::SetAndRun {
            left: Hms::from_secs(left).unwrap(),
            right: Hms::from_secs(right).unwrap(),
            mode: SetAndRunMode {
                runs,
                paused,
                switch_on_lever: !paused,
            },
        })
    }

    fn ascii(s: &str) -> Step {
        show(s).unwrap()
    }

    fn pressed_move(color: Color, clock: ClockMs) -> MoveEvent {
        MoveEvent {
            ply: 3,
            color,
            uci: "f1c4".parse().unwrap(),
            san: "Bc4".into(),
            fen: START_FEN.into(),
            clock_ms: Some(clock),
            pressed: true,
            replaces: None,
            recovered: false,
            correction: false,
            entered: false,
            touches: vec![],
        }
    }

    #[test]
    fn an_illegal_move_stops_the_clock_and_restarts_it_once_restored() {
        let mut r = Referee::new(3000, HOLD);
        let v = view(ClockSide::Left);
        let e = illegal(IllegalCategory::PieceMovement, AFTER_E4_E5, 1);
        let steps = r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        assert_eq!(
            steps,
            [
                set(293, 297, Some(ClockSide::Left), true),
                ascii("ILLEGAL"),
                Step::Hold(HOLD),
                ascii("RESTORE"),
            ]
        );
        assert!(r.is_waiting());
        // A new game drops a waiting ruling.
        assert!(r
            .on_event(
                &ev(EventKind::NewGame {
                    fen: START_FEN.into()
                }),
                &v,
                0
            )
            .is_empty());
        assert!(!r.is_waiting());
        r.on_event(
            &ev(EventKind::IllegalMove(illegal(
                IllegalCategory::PieceMovement,
                AFTER_E4_E5,
                1,
            ))),
            &v,
            0,
        );
        let steps = r.on_event(
            &ev(EventKind::Restored {
                fen: AFTER_E4_E5.into(),
            }),
            &v,
            0,
        );
        // Penalty to Black, White's increment of the illegal press taken off, White runs.
        assert_eq!(
            steps,
            [
                set(290, 357, Some(ClockSide::Left), false),
                Step::Command(ClockCommand::End)
            ]
        );
        assert!(!r.is_waiting());
        assert!(r
            .on_event(
                &ev(EventKind::Restored {
                    fen: AFTER_E4_E5.into()
                }),
                &v,
                0
            )
            .is_empty());
    }

    #[test]
    fn displaced_pieces_are_shown_without_stopping_the_clock() {
        let mut r = Referee::new(3000, HOLD);
        let v = view(ClockSide::Left);
        let d = |reestablished| {
            ev(EventKind::Displaced(
                touch_tracker::events::DisplacedEvent {
                    color: Color::White,
                    ply: 3,
                    squares: vec![],
                    reestablished,
                    explanation: "pawn c2 knocked over".into(),
                },
            ))
        };
        let steps = r.on_event(&d(false), &v, 0);
        assert_eq!(steps.len(), 3, "{steps:?}");
        assert_eq!(steps[0], show(DISPLACED_TEXT).unwrap());
        assert_eq!(steps[1], Step::Hold(HOLD));
        assert_eq!(steps[2], Step::Command(ClockCommand::End));
        // No stop, no set-and-run: nothing touches the times.
        assert!(!steps
            .iter()
            .any(|s| matches!(s, Step::Command(ClockCommand::SetAndRun { .. }))));
        assert!(r.on_event(&d(true), &v, 0).is_empty());
    }

    #[test]
    fn out_of_sync_shows_arbiter_and_leaves_the_clock_running() {
        let mut r = Referee::new(2000, HOLD);
        let v = view(ClockSide::Left);
        let status = touch_tracker::events::BoardStatusEvent {
            status: BoardStatus::OutOfSync,
            detail: Some("last known position: ply 12".into()),
            candidates: Vec::new(),
        };
        let steps = r.on_event(&ev(EventKind::BoardStatus(status)), &v, 0);
        assert_eq!(steps, vec![ascii("ARBITER")]);
        assert!(!r.is_waiting());
        let back = touch_tracker::events::BoardStatusEvent {
            status: BoardStatus::InSync,
            detail: None,
            candidates: Vec::new(),
        };
        let steps = r.on_event(&ev(EventKind::BoardStatus(back)), &v, 0);
        assert_eq!(steps, vec![Step::Command(ClockCommand::End)]);
    }

    #[test]
    fn sides_follow_the_trackers_clock_mapping() {
        let mut r = Referee::new(0, HOLD);
        let v = view(ClockSide::Right);
        let e = illegal(IllegalCategory::PieceMovement, AFTER_E4_E5, 1);
        let steps = r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        assert_eq!(steps[0], set(297, 293, Some(ClockSide::Right), true));
        let steps = r.on_event(
            &ev(EventKind::Restored {
                fen: AFTER_E4_E5.into(),
            }),
            &v,
            0,
        );
        assert_eq!(steps[0], set(357, 290, Some(ClockSide::Right), false));
    }

    #[test]
    fn after_the_daemon_set_the_clock_it_adds_the_increments() {
        let mut r = Referee::new(3000, HOLD);
        let v = view(ClockSide::Left);
        // Before any takeover the clock adds its own increment.
        let m = pressed_move(Color::White, ms(200_000, 250_000));
        assert!(r
            .on_event(&ev(EventKind::Move(m.clone())), &v, 0)
            .is_empty());
        let e = illegal(IllegalCategory::PieceMovement, AFTER_E4_E5, 1);
        r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        r.on_event(
            &ev(EventKind::Restored {
                fen: AFTER_E4_E5.into(),
            }),
            &v,
            0,
        );
        // White presses at 3:20 (no increment from the clock); 1.2 s later Black's time
        // has run on: White gets 3 s, Black runs from 4:10 less 1.2 s.
        let steps = r.on_event(&ev(EventKind::Move(m.clone())), &v, 1200);
        assert_eq!(steps, [set(203, 249, Some(ClockSide::Right), false)]);
        // Moves not completed by a press, corrections and amendments add nothing.
        for changed in [
            MoveEvent {
                pressed: false,
                ..m.clone()
            },
            MoveEvent {
                correction: true,
                ..m.clone()
            },
            MoveEvent {
                replaces: Some("f1e2".parse().unwrap()),
                ..m.clone()
            },
        ] {
            assert!(r.on_event(&ev(EventKind::Move(changed)), &v, 0).is_empty());
        }
        // Another illegal move: the press added no increment, so none is taken off.
        let mut e = illegal(IllegalCategory::KingInCheck, AFTER_E4_E5, 1);
        e.clock_after = Some(ms(290_000, 357_000));
        r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        let steps = r.on_event(
            &ev(EventKind::Restored {
                fen: AFTER_E4_E5.into(),
            }),
            &v,
            0,
        );
        assert_eq!(steps[0], set(293, 357, Some(ClockSide::Left), false));
    }

    #[test]
    fn the_side_to_move_after_the_correction_runs() {
        // An unpromoted pawn: the queen is the move, so Black runs after it.
        let mut r = Referee::new(3000, HOLD);
        let v = view(ClockSide::Left);
        let after_queen = "4Q3/8/8/8/8/8/k7/6K1 b - - 0 60";
        let e = illegal(IllegalCategory::UnpromotedPawn, after_queen, 1);
        let steps = r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        assert_eq!(steps[0], set(293, 297, Some(ClockSide::Right), true));
        let steps = r.on_event(
            &ev(EventKind::Restored {
                fen: after_queen.into(),
            }),
            &v,
            0,
        );
        assert_eq!(steps[0], set(290, 357, Some(ClockSide::Right), false));
        // A penalised two-handed move stands: the clock restarts at once.
        let mut r = Referee::new(3000, HOLD);
        let e = illegal(
            IllegalCategory::TwoHanded,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5B2/PPPP1PPP/RNBQK1NR b KQkq - 1 2",
            1,
        );
        let steps = r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        assert_eq!(
            &steps[3..],
            [
                ascii("RESTORE"),
                set(290, 357, Some(ClockSide::Right), false),
                Step::Command(ClockCommand::End)
            ]
        );
        assert!(!r.is_waiting());
    }

    #[test]
    fn an_illegal_move_that_stands_restarts_with_the_times_of_the_press() {
        let mut r = Referee::new(3000, HOLD);
        let v = view(ClockSide::Left);
        let e = illegal(IllegalCategory::PieceMovement, AFTER_E4_E5, 1);
        r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        let stands = IllegalMoveStandsEvent {
            color: Color::White,
            attempt: None,
            fen: START_FEN.into(),
            count: 0,
            voided_penalty: None,
        };
        let steps = r.on_event(&ev(EventKind::IllegalMoveStands(stands)), &v, 0);
        assert_eq!(steps[0], set(293, 297, Some(ClockSide::Right), false));
    }

    #[test]
    fn game_ends_stop_the_clock_and_show_the_result() {
        let v = view(ClockSide::Left);
        let over = |reason, result| {
            ev(EventKind::GameOver(GameOverEvent {
                result,
                reason,
                flag: None,
                undetermined: false,
                plies: 40,
            }))
        };
        let mut r = Referee::new(3000, HOLD);
        assert_eq!(
            r.on_event(&over(EndReason::Checkmate, GameResult::WhiteWins), &v, 0),
            [set(290, 297, None, true), ascii("1-0 MATE")]
        );
        // Over is over: nothing more until a new game.
        assert!(r
            .on_event(&over(EndReason::Flag, GameResult::BlackWins), &v, 0)
            .is_empty());
        r.on_event(
            &ev(EventKind::NewGame {
                fen: START_FEN.into(),
            }),
            &v,
            0,
        );
        // A flag: the clock stopped by itself; only the result.
        assert_eq!(
            r.on_event(&over(EndReason::Flag, GameResult::BlackWins), &v, 0),
            [ascii("0-1 FLAG")]
        );
        for (reason, result, shown) in [
            (EndReason::Stalemate, GameResult::Draw, "1/2 STAL"),
            (EndReason::DeadPosition, GameResult::Draw, "1/2 DEAD"),
            (EndReason::Fivefold, GameResult::Draw, "1/2 REP5"),
            (EndReason::SeventyFiveMoves, GameResult::Draw, "1/2 75MV"),
            (
                EndReason::SecondIllegalMove,
                GameResult::WhiteWins,
                "1-0 ILLG",
            ),
            (EndReason::ResultOnBoard, GameResult::Draw, "1/2"),
        ] {
            let mut r = Referee::new(3000, HOLD);
            let steps = r.on_event(&over(reason, result), &v, 0);
            assert_eq!(steps.last(), Some(&ascii(shown)), "{reason}");
            assert!(shown.len() <= 8);
        }
    }

    #[test]
    fn a_second_illegal_move_stops_the_clock() {
        let mut r = Referee::new(3000, HOLD);
        let v = view(ClockSide::Left);
        let e = illegal(IllegalCategory::PieceMovement, AFTER_E4_E5, 2);
        let steps = r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        assert_eq!(
            steps,
            [
                set(293, 297, None, true),
                ascii("ILLEGAL"),
                Step::Hold(HOLD)
            ]
        );
        assert!(!r.is_waiting());
    }

    #[test]
    fn a_waiting_ruling_is_shown_again_after_a_restart() {
        let mut r = Referee::new(3000, HOLD);
        let v = view(ClockSide::Left);
        assert!(r.resume(&v).is_empty());
        let e = illegal(IllegalCategory::PieceMovement, AFTER_E4_E5, 1);
        r.on_event(&ev(EventKind::IllegalMove(e)), &v, 0);
        assert_eq!(
            r.resume(&v),
            [set(293, 297, Some(ClockSide::Left), true), ascii("RESTORE")]
        );
    }

    #[test]
    fn times_round_to_whole_seconds() {
        assert_eq!(hms(0), Hms::from_secs(0).unwrap());
        assert_eq!(hms(1_499), Hms::from_secs(1).unwrap());
        assert_eq!(hms(1_500), Hms::from_secs(2).unwrap());
        assert_eq!(hms(u64::MAX), Hms::MAX);
        assert!(show("TOO LONG!").is_none());
    }
}
