//! The rulings at a press: the board classified against the last legal position, illegal
//! moves counted and penalised (or, on a player's second, a result asked of the analysis),
//! the wait for restoration, and partial supervision's illegal move that stands.

use chess_rules::{
    restore_steps, Attempt, CanMate, Classification, Color, Game, GameResult, IllegalCategory,
    Move, Piece, Placement, Position, RestoreStep, Role, Square,
};

use super::deep::DeepSearch;
use super::{idx, Change, Displaced, How, Phase, RestoreKind, Restoring, Tracker, Waiting};
use crate::analysis::Purpose;
use crate::config::Supervision;
use crate::events::{
    ArbiterEvent, ClockMs, DisplacedEvent, EventKind, IllegalMoveEvent, IllegalMoveStandsEvent,
    Penalty, RulingUnclearEvent,
};
use crate::{explain, recover, touch};

impl Tracker {
    /// The settle window after a press of the player to move has passed: rule on the board
    /// as it stands (arbiter-rules.md §2): P + one legal move is the move (art. 4.7,
    /// completed by the press, 6.2); P unchanged is a press without a move (7.5.3); an
    /// unpromoted pawn is corrected to a queen (7.5.2); a move with displaced pieces
    /// stands (7.4); anything else is an illegal move, P reinstated (7.5.1).
    pub(super) fn rule_press(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Some(p) = self.pending_press.take() else {
            return;
        };
        if !matches!(self.phase, Phase::Playing) || self.held.is_some() || self.cfg.start_from_board
        {
            // (A Chess960 game waiting for its start from the board: no game to rule on.)
            // Held for the arbiter (`Tracker::hold_for_arbiter`): no search, no ruling.
            return;
        }
        if self.desynced {
            // Out of sync: the lost moves may be found now that a press names who just
            // moved; otherwise the board stays out of sync. Never a ruling.
            self.recover_at_press(t, p, out);
            return;
        }
        if p.presser != self.game.position().side_to_move() {
            // A press completing a reply that the board does not show: the mover's move
            // stands (it was made), and the press is ruled as the opponent's.
            let late = self.unpressed_last == Some(p.presser);
            let Some(made) = self.made else { return };
            self.commit_replied(t, made, How::default(), out);
            if !matches!(self.phase, Phase::Playing)
                || p.presser != self.game.position().side_to_move()
            {
                return;
            }
            if late && self.placement == *self.game.position().placement() {
                // Art. 6.2.1: his last move was completed by no press and the opponent
                // replied on his time; he presses now and the board shows nothing new:
                // the late press for that move, not a press without a move (7.5.3).
                return;
            }
        }
        let base = *self.game.position();
        let touched = touch::touched_pieces(&base, &self.touches, None, self.cfg.flicker_wall_ms());
        let lifted: Vec<Square> = touched.iter().map(|t| t.square).collect();
        let classification = base.classify(&self.placement, &lifted);
        if (self.desynced || self.gap_open) && !matches!(classification, Classification::Legal(_)) {
            // Events were lost and the board has not confirmed the game since: what it
            // shows may be moves made unseen, not an illegal move. Never a ruling on a
            // guess: the deeper search, or out of sync, the arbiter told.
            let searched = self.recover_at_press(t, p, out);
            if searched != DeepSearch::Adopted {
                self.lose_sync(t, searched.plies_searched(), out);
            }
            return;
        }
        if !matches!(classification, Classification::Legal(_)) && self.doubt_explains(&lifted) {
            // After a line rebuilt by the deep search: a castling or en passant capture
            // the real game may allow. Not a ruling on a guess (see `deep.rs`).
            self.lose_sync(t, recover::MAX_PLIES, out);
            return;
        }
        match classification {
            Classification::Legal(m) => self.record_now(t, m, How::pressed(p.clock), out),
            Classification::NoChange => self.illegal(
                t,
                IllegalCategory::ClockWithoutMove,
                None,
                Vec::new(),
                p.clock,
                out,
            ),
            Classification::UnpromotedPawn {
                correction,
                restore,
            } => self.unpromoted(t, correction, restore, p.clock, out),
            Classification::Displaced { mv, reestablish } => {
                self.displaced_move(t, mv, reestablish, p.clock, out)
            }
            Classification::Unclear { readings } => self.unclear(t, &base, &readings, out),
            Classification::Illegal {
                category,
                attempt,
                restore,
            } => self.illegal(t, category, attempt, restore, p.clock, out),
        }
    }

    /// Art. 7.4 (arbiter-rules.md "Displaced pieces"): the board at the press is the last
    /// legal position plus the legal move `mv` with pieces knocked over that the move did
    /// not involve. The move stands and is recorded; it is not an illegal move (no count,
    /// no penalty: 7.4.2 lets the player re-establish them in his own time, the arbiter
    /// may penalise him by hand, 12.9). A `displaced` event names the squares to
    /// re-establish; the tracker goes on from the position after the move and sends the
    /// event again with `reestablished: true` once the board shows them back.
    fn displaced_move(
        &mut self,
        t: u64,
        mv: Move,
        steps: Vec<RestoreStep>,
        clock: Option<ClockMs>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let base = *self.game.position();
        let color = base.side_to_move();
        // A knocked piece was not touched deliberately (art. 4.2): its lift or fall is no
        // touch-move evidence.
        self.touches
            .retain(|touch| !steps.iter().any(|s| s.square() == touch.square));
        self.record_now(t, mv, How::pressed(clock), out);
        let explanation = explain::displaced(&base, &steps);
        let event = DisplacedEvent {
            color,
            ply: base.plies() + 1,
            squares: steps.clone(),
            reestablished: false,
            explanation,
        };
        self.displacements.push((color, event.ply));
        self.emit(out, t, EventKind::Displaced(event.clone()));
        // The tracker reads the board as if the pieces stood where they belong until they
        // do (see `Tracker::on_displaced_square`).
        for step in &steps {
            match *step {
                RestoreStep::Put { square, piece } => self.placement.set(square, Some(piece)),
                RestoreStep::Remove { square, .. } => self.placement.set(square, None),
            }
        }
        self.recount();
        self.displaced = Some(Displaced {
            event,
            pending: steps,
            spoiled: false,
        });
        self.after_change(t, Change::Dump, out);
    }

    /// The board fits more than one move with displaced pieces: say so, rule nothing (the
    /// press stands unruled; the move is recorded once the board shows which one it is).
    fn unclear(
        &mut self,
        t: u64,
        base: &Position,
        readings: &[(Move, Vec<RestoreStep>)],
        out: &mut Vec<ArbiterEvent>,
    ) {
        let readings: Vec<String> = readings
            .iter()
            .map(|(m, steps)| {
                let san = base.san(*m).unwrap_or_else(|_| m.uci());
                format!("{san} with {}", explain::displaced(base, steps))
            })
            .collect();
        let explanation = format!(
            "the board fits more than one move with pieces knocked over ({}): arbiter, look; \
             no ruling is made",
            readings.join("; or ")
        );
        self.emit(
            out,
            t,
            EventKind::RulingUnclear(RulingUnclearEvent {
                color: base.side_to_move(),
                ply: base.plies() + 1,
                readings,
                explanation,
            }),
        );
    }

    /// The ruling's common part, art. 7.5.5: a player's first completed illegal move gives
    /// his opponent extra time (2 minutes standard, 1 minute rapid and blitz; counts kept
    /// per player); his second loses the game, unless the opponent cannot mate by any
    /// series of legal moves (then drawn): a result to ask of the analysis. Returns the
    /// event (with its penalty) when it can go out now.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ruling(
        &mut self,
        t: u64,
        base: &Position,
        category: IllegalCategory,
        attempt: Option<Attempt>,
        restore_fen: String,
        restore: Vec<RestoreStep>,
        must_move: Option<Square>,
        clock: Option<ClockMs>,
    ) -> Option<IllegalMoveEvent> {
        let offender = base.side_to_move();
        let count = self.counts[idx(offender)] + 1;
        self.counts[idx(offender)] = count;
        let mut event = IllegalMoveEvent {
            color: offender,
            category,
            explanation: explain::illegal(base, &self.placement, category, attempt.as_ref()),
            attempt,
            count,
            restore_fen,
            restore,
            must_move,
            penalty: None,
            result: None,
            result_undetermined: false,
            ply: base.plies() + 1,
            clock_before: clock,
            clock_after: None,
        };
        if count < 2 && counted_by_clock(category) {
            // Art. 6.10.2: a DGT3000 counts this press as a move (section 5).
            let words = self.counted_press_words(offender, base);
            event.explanation.push_str(&words);
        }
        if count >= 2 {
            event.must_move = None;
            self.phase = Phase::Over;
            self.clear_pending();
            let generation = self.generation;
            self.request(
                *base,
                offender.opponent(),
                Purpose::SecondIllegalMove,
                Waiting::SecondIllegal {
                    t_ms: t,
                    event: Box::new(event),
                    generation,
                },
            );
            return None;
        }
        let penalty = Penalty {
            add_ms: self.cfg.penalty_ms(self.category()),
            to: offender.opponent(),
        };
        event.penalty = Some(penalty);
        event.clock_after = clock.map(|mut c| {
            c.set(penalty.to, c.get(penalty.to) + penalty.add_ms);
            if self.cfg.remove_offender_increment {
                c.set(
                    offender,
                    c.get(offender).saturating_sub(self.cfg_increment_ms()),
                );
            }
            c
        });
        Some(event)
    }

    pub(super) fn cfg_increment_ms(&self) -> u64 {
        self.time_control
            .map_or(0, |tc| u64::from(tc.first_increment_secs()) * 1000)
    }

    pub(super) fn illegal(
        &mut self,
        t: u64,
        category: IllegalCategory,
        attempt: Option<Attempt>,
        restore: Vec<RestoreStep>,
        clock: Option<ClockMs>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let base = *self.game.position();
        let touched = touch::touched_pieces(&base, &self.touches, None, self.cfg.flicker_wall_ms());
        // Touches made before a press without a move bind the same way (formats.md §2);
        // an unpromoted pawn's correction is the promotion, which binds nothing.
        let must_move = match category {
            IllegalCategory::UnpromotedPawn => None,
            _ => touch::must_move(&base, &touched),
        };
        self.made = None;
        self.quiet_deadline = None;
        let Some(event) = self.ruling(
            t,
            &base,
            category,
            attempt,
            base.fen(),
            restore,
            must_move,
            clock,
        ) else {
            return;
        };
        let penalty = event.penalty;
        self.emit(out, t, EventKind::IllegalMove(event));
        self.periods_at_no_move(t, base.side_to_move(), &base, clock, out);
        if category == IllegalCategory::ClockWithoutMove {
            // The board is as it was: restored at once, and the turn goes on.
            self.emit(out, t, EventKind::Restored { fen: base.fen() });
            return;
        }
        self.phase = Phase::Restoring(Box::new(Restoring {
            target: *base.placement(),
            fen: base.fen(),
            offender: base.side_to_move(),
            kind: RestoreKind::Reinstate,
            illegal_board: self.placement,
            attempt,
            penalty,
        }));
    }

    pub(super) fn unpromoted(
        &mut self,
        t: u64,
        correction: Move,
        restore: Vec<RestoreStep>,
        clock: Option<ClockMs>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let base = *self.game.position();
        let Ok(after) = base.play(correction) else {
            return;
        };
        let offender = base.side_to_move();
        let attempt = Attempt {
            from: correction.from,
            to: correction.to,
            piece: Piece::new(offender, Role::Pawn),
        };
        self.made = None;
        self.quiet_deadline = None;
        // Art. 7.5.2 corrects a first unpromoted pawn to a queen; a second illegal move
        // ends the game (7.5.5), nothing is corrected: the position to reinstate is the
        // one before it (formats.md §2).
        let second = self.counts[idx(offender)] >= 1;
        let (restore_fen, restore) = if second {
            (base.fen(), restore_steps(&self.placement, base.placement()))
        } else {
            (after.fen(), restore)
        };
        let Some(event) = self.ruling(
            t,
            &base,
            IllegalCategory::UnpromotedPawn,
            Some(attempt),
            restore_fen,
            restore,
            None,
            clock,
        ) else {
            return;
        };
        let penalty = event.penalty;
        self.emit(out, t, EventKind::IllegalMove(event));
        // The queen promotion is the move (it takes the ply).
        let how = How {
            correction: true,
            ..How::pressed(clock)
        };
        let mine = std::mem::take(&mut self.touches);
        self.record(t, correction, how, mine, Vec::new(), out);
        if matches!(self.phase, Phase::Playing) {
            self.phase = Phase::Restoring(Box::new(Restoring {
                target: *after.placement(),
                fen: after.fen(),
                offender,
                kind: RestoreKind::Promotion,
                illegal_board: self.placement,
                attempt: Some(attempt),
                penalty,
            }));
        }
    }

    /// While a ruling waits for the board to show the position it asked for.
    pub(super) fn restoring(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) {
        let Phase::Restoring(r) = &self.phase else {
            return;
        };
        let base = *self.game.position();
        if self.placement == r.target {
            let fen = r.fen.clone();
            let kind = r.kind;
            self.phase = Phase::Playing;
            self.emit(out, t, EventKind::Restored { fen });
            if kind == RestoreKind::Promotion {
                // The queen stands: now the game may be over, or a draw claimable.
                self.after_move(t, base.plies(), out);
            }
            return;
        }
        if r.kind == RestoreKind::Promotion {
            return;
        }
        // The offender put the piece straight onto a legal square: the position is
        // reinstated with his replacing move made.
        if (2..=4).contains(&self.base_diff) {
            if let Some((m, after)) = base.move_to_placement(&self.placement) {
                let fen = r.fen.clone();
                self.phase = Phase::Playing;
                self.emit(out, t, EventKind::Restored { fen });
                self.set_made(t, m, after);
                return;
            }
        }
        // A takeback has no offender whose illegal move could stand (Appendix A.5 / B).
        if self.cfg.supervision == Supervision::Partial && r.kind == RestoreKind::Reinstate {
            let r = r.clone();
            if let Some(stands) = standing_position(&base, &r.illegal_board, r.offender) {
                if let Some(reply) = stands.move_to_placement(&self.placement) {
                    self.illegal_move_stands(t, &r, stands, reply, out);
                }
            }
        }
    }

    /// Partial supervision (Appendix A.5 / B): the opponent moved from the illegal position
    /// before it was corrected; the illegal move stands and its penalty is void.
    pub(super) fn illegal_move_stands(
        &mut self,
        t: u64,
        r: &Restoring,
        stands: Position,
        (reply, after): (Move, Position),
        out: &mut Vec<ArbiterEvent>,
    ) {
        let i = idx(r.offender);
        self.counts[i] = self.counts[i].saturating_sub(1);
        self.emit(
            out,
            t,
            EventKind::IllegalMoveStands(IllegalMoveStandsEvent {
                color: r.offender,
                attempt: r.attempt,
                fen: stands.fen(),
                count: self.counts[i],
                voided_penalty: r.penalty,
            }),
        );
        self.game = Game::new(stands);
        self.generation += 1;
        self.phase = Phase::Playing;
        self.touches.clear();
        self.recount();
        self.set_made(t, reply, after);
    }

    /// Art. 7.5.4 when configured: a two-handed move is penalised like an illegal move;
    /// the move itself stands.
    pub(super) fn two_handed_ruling(
        &mut self,
        t: u64,
        before: &Position,
        after: &Position,
        m: Move,
        clock: Option<ClockMs>,
        out: &mut Vec<ArbiterEvent>,
    ) {
        let attempt = before.move_info(m).map(|i| Attempt {
            from: m.from,
            to: m.to,
            piece: i.piece,
        });
        if let Some(event) = self.ruling(
            t,
            before,
            IllegalCategory::TwoHanded,
            attempt,
            after.fen(),
            Vec::new(),
            None,
            clock,
        ) {
            self.emit(out, t, EventKind::IllegalMove(event));
        }
    }
}

/// Whether the clock counted the press of an illegal move of this category as a move that
/// is not one: an unpromoted pawn's press completes the promotion (the move stands), a
/// two-handed move is a move; the others are taken back.
fn counted_by_clock(category: IllegalCategory) -> bool {
    !matches!(
        category,
        IllegalCategory::UnpromotedPawn | IllegalCategory::TwoHanded
    )
}

/// The loser's result unless the winner cannot mate by any series of legal moves (then a
/// draw: art. 6.9 for a flag, 7.5.5 for a second illegal move); an undetermined search
/// leaves the loss standing, flagged.
pub(super) fn loss_unless_no_mate(loser: Color, opponent_can_mate: CanMate) -> (GameResult, bool) {
    match opponent_can_mate {
        CanMate::No => (GameResult::Draw, false),
        CanMate::Yes => (GameResult::win_for(loser.opponent()), false),
        CanMate::Undetermined => (GameResult::win_for(loser.opponent()), true),
    }
}

/// The position an illegal move left, with the opponent to move (partial supervision),
/// if it is one: castling rights kept where king and rook still stand at home (in
/// Chess960 the game's own king square and rook files, Guidelines II.3).
pub(super) fn standing_position(
    base: &Position,
    board: &Placement,
    offender: Color,
) -> Option<Position> {
    let rights = chess_rules::castling::rights_kept(base, board);
    let fullmove = base.fullmove_number() + u32::from(offender == Color::Black);
    chess_rules::castling::position_like(
        base,
        *board,
        offender.opponent(),
        rights,
        None,
        (0, fullmove),
    )
    .ok()
}
