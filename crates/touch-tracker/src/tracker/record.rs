//! Recording a legal move: the `move` event with its touch log, touch-move and two-handed
//! evidence, then game end, draw claims and the dead-position question; amending the move
//! recorded at a press; and the ways a move gets recorded (at its press, when the opponent
//! replied first, with the board showing it), each splitting the touch log between the
//! mover and the opponent.

use chess_rules::{Color, DrawClaim, EndReason, GameResult, IllegalCategory, Move};

use super::{Amend, How, Made, Phase, Tracker, Waiting};
use crate::analysis::Purpose;
use crate::events::{
    ArbiterEvent, ClaimReason, ClockMs, DrawClaimableEvent, EventKind, GameOverEvent, MoveEvent,
    Touch, TouchMoveEvent, TwoHandedEvent,
};
use crate::touch;

/// Touches a turn's log has room for before it grows (a move is a lift and a place, a
/// capture three touches, adjustments and sliding a few more).
const TOUCH_LOG_RESERVED: usize = 8;

impl Tracker {
    /// Records a legal move of the side to move: the `move` event, its touch-move evidence
    /// (art. 4.3, 4.4: reported, never enforced; see `touch::obligation`) and two-handed
    /// evidence (7.5.4; penalised only if so configured), then game end, claims and the
    /// dead-position question.
    pub(super) fn record(
        &mut self,
        t: u64,
        m: Move,
        how: How,
        mine: Vec<Touch>,
        rest: Vec<Touch>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let before = *self.game.position();
        let Ok(san) = self.game.play_with_san(m) else {
            // Not legal here: nothing to record (callers only pass legal moves).
            self.touches = rest;
            return;
        };
        let mover = before.side_to_move();
        let ply = before.plies() + 1;
        self.unpressed_last = (!how.pressed).then_some(mover);
        if self
            .rebuilt_doubt
            .is_some_and(|d| d.castling.is_empty() && ply > d.line_end_ply)
        {
            // Nothing a rebuilt line may have got wrong matters any more.
            self.rebuilt_doubt = None;
        }
        self.emit(
            out,
            t,
            EventKind::Move(MoveEvent {
                ply,
                color: mover,
                uci: m,
                san: san.clone(),
                fen: self.game.position().fen(),
                clock_ms: how.clock,
                pressed: how.pressed,
                replaces: how.replaces,
                recovered: how.recovered,
                correction: how.correction,
                entered: false,
                touches: mine.clone(),
            }),
        );
        if how.pressed && !how.recovered && how.replaces.is_none() {
            // A period's time is due at the press of the move that ends the period.
            self.periods_at_move(t, mover, ply, how.clock, out);
        }
        // Events lost during this turn leave its touch log incomplete: no evidence from it.
        let gap = self.last_gap_ms.is_some_and(|g| g >= self.turn_start_ms);
        if !how.correction && !how.recovered && !gap {
            let touched =
                touch::touched_pieces(&before, &mine, Some(m), self.cfg.flicker_wall_ms());
            let castling = touch::castling_intent(&before, &mine);
            if let Some(b) = touch::obligation(&before, &touched, castling) {
                if !b.kept_by(&before, m) {
                    self.emit(
                        out,
                        t,
                        EventKind::TouchMove(TouchMoveEvent {
                            color: mover,
                            touched,
                            obligation: b.obligation,
                            square: b.square,
                            played: m,
                            played_san: san.clone(),
                            violation: true,
                            ply,
                        }),
                    );
                }
            }
            if let Some(evidence) = touch::two_handed_evidence(
                &before,
                &mine,
                m,
                self.cfg.two_handed_window_ms,
                self.cfg.time_scale,
            ) {
                self.emit(
                    out,
                    t,
                    EventKind::TwoHandedSuspected(TwoHandedEvent {
                        color: mover,
                        uci: m,
                        san: san.clone(),
                        evidence,
                        ply,
                    }),
                );
                if self.cfg.penalises(IllegalCategory::TwoHanded) && how.pressed {
                    // The position after the move, copied only for this rare ruling.
                    let after = *self.game.position();
                    self.two_handed_ruling(t, &before, &after, m, how.clock, out);
                }
            }
        }
        self.history.push(mine);
        self.touches = rest;
        self.turn_start_ms = how.turn_from.unwrap_or(t);
        self.made = None;
        self.pending_press = None;
        self.quiet_deadline = None;
        self.amend = None;
        self.recount();
        // A correction's consequences wait until the board shows it (see `restoring`).
        if matches!(self.phase, Phase::Playing) && !how.correction {
            self.after_move(t, ply, out);
        }
    }

    /// After a legal move: checkmate (art. 5.1.1) and stalemate (5.2.1) end the game at
    /// once; fivefold repetition and 75 moves (9.6) end it automatically, mate on the
    /// last move first; threefold repetition (9.2) and 50 moves (9.3) are claimable by
    /// the player having the move; a dead position (5.2.2) is asked of the analysis.
    pub(super) fn after_move(&mut self, t: u64, ply: u32, out: &mut Vec<ArbiterEvent>) {
        if let Some(end) = self.game.automatic_end() {
            self.phase = Phase::Over;
            self.clear_pending();
            self.announce_end(t, end.result(), end.reason(), None, false, out);
            return;
        }
        let pos = *self.game.position();
        let color = pos.side_to_move();
        for claim in self.game.claims() {
            let (reason, plies) = match claim {
                DrawClaim::Threefold { plies } => (ClaimReason::Threefold, plies),
                DrawClaim::FiftyMoves => (ClaimReason::FiftyMoves, Vec::new()),
            };
            self.emit(
                out,
                t,
                EventKind::DrawClaimable(DrawClaimableEvent {
                    reason,
                    color,
                    plies,
                    with_move: None,
                    ply,
                }),
            );
        }
        // A claim by writing down a move that repeats a position for the third time needs
        // two earlier occurrences, four and eight plies back at least.
        if pos.halfmove_clock() >= 7 {
            for (m, claim) in self.game.threefold_claims_by_move() {
                if let DrawClaim::Threefold { plies } = claim {
                    self.emit(
                        out,
                        t,
                        EventKind::DrawClaimable(DrawClaimableEvent {
                            reason: ClaimReason::Threefold,
                            color,
                            plies,
                            with_move: Some(m),
                            ply,
                        }),
                    );
                }
            }
        }
        // Is the position dead? Asked of the side that just moved first (it is the one
        // that can usually still mate), then of the other.
        let generation = self.generation;
        self.request(
            pos,
            color.opponent(),
            Purpose::DeadPosition,
            Waiting::Dead {
                t_ms: t,
                ply,
                position: Box::new(pos),
                first: true,
                generation,
            },
        );
    }

    /// Replaces the move recorded at the last press with `m` (same mover, same ply).
    pub(super) fn amend_to(&mut self, t: u64, m: Move, out: &mut Vec<ArbiterEvent>) {
        let Some(a) = self.amend.take() else { return };
        if self.game.moves().last() != Some(&a.old) || !matches!(self.phase, Phase::Playing) {
            return;
        }
        self.game.pop();
        self.history.pop();
        self.generation += 1;
        let mut mine = a.touches;
        mine.append(&mut self.touches);
        let how = How {
            replaces: Some(a.old),
            ..How::pressed(a.clock)
        };
        self.recount();
        self.record(t, m, how, mine, Vec::new(), out);
    }

    pub(super) fn announce_end(
        &mut self,
        t: u64,
        result: GameResult,
        reason: EndReason,
        flag: Option<Color>,
        undetermined: bool,
        out: &mut Vec<ArbiterEvent>,
    ) {
        self.result = Some(result);
        let plies = self.game.position().plies();
        self.emit(
            out,
            t,
            EventKind::GameOver(GameOverEvent {
                result,
                reason,
                flag,
                undetermined,
                plies,
            }),
        );
    }

    /// The touch log at a move's recording by a press: everything up to the move's
    /// completion is the mover's; later touches go by the colour of the piece (the mover
    /// adjusting his own before pressing, the opponent touching his).
    pub(super) fn split_at_move(&mut self, split: usize) -> (Vec<Touch>, Vec<Touch>) {
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
    pub(super) fn split_at_reply(&mut self, split: usize) -> (Vec<Touch>, Vec<Touch>) {
        let rest = self.touches.split_off(split.min(self.touches.len()));
        (std::mem::take(&mut self.touches), rest)
    }

    /// Records the move the board shows, completed by a press now; it may still be
    /// amended within the settle window.
    pub(super) fn record_pressed(
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
    pub(super) fn commit_made(
        &mut self,
        t: u64,
        made: Made,
        how: How,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let (mine, rest) = self.split_at_move(made.split);
        self.record(t, made.mv, how, mine, rest, out);
    }

    /// Records the made move because the opponent went on (he replied, or pressed for a
    /// reply): his turn began when the move was completed.
    pub(super) fn commit_replied(
        &mut self,
        t: u64,
        made: Made,
        how: How,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let (mine, rest) = self.split_at_reply(made.split);
        let how = How {
            turn_from: Some(made.at),
            ..how
        };
        self.record(t, made.mv, how, mine, rest, out);
    }

    /// Records `m` with every touch so far (it was completed just now).
    pub(super) fn record_now(&mut self, t: u64, m: Move, how: How, out: &mut Vec<ArbiterEvent>) {
        let (mine, rest) = self.split_at_move(self.touches.len());
        self.record(t, m, how, mine, rest, out);
    }
}
