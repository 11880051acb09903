//! Board input: a square's change (kept in the turn's touch log), a dump (the board's
//! orientation, a gap seen, the line back up), a result shown on the board ending the game
//! (a magic piece read here; the kings in the centre are seen in `recognise.rs`), and a
//! Chess960 start taken from the board's squares.

use chess_rules::{EndReason, Game, GameResult, Position, Role};
use dgt_protocol::{FieldUpdate, MagicPiece, Orientation, PieceCode, RawBoard};

use super::{deep, Change, Phase, Tracker};
use crate::events::{ArbiterEvent, BoardStatus, EventKind, Touch, TouchAction};

impl Tracker {
    pub(super) fn on_field(&mut self, t: u64, u: FieldUpdate, out: &mut Vec<ArbiterEvent>) {
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

    pub(super) fn on_dump(&mut self, t: u64, board: &RawBoard, out: &mut Vec<ArbiterEvent>) {
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
    pub(super) fn start_from_board(&mut self, t: u64, out: &mut Vec<ArbiterEvent>) -> bool {
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
    pub(super) fn closest_orientation(&self, board: &RawBoard) -> Orientation {
        let base = self.game.position().placement();
        let dist = |o| board.placement(o).diff(base).count();
        if dist(Orientation::Rotated) < dist(Orientation::Normal) {
            Orientation::Rotated
        } else {
            Orientation::Normal
        }
    }

    pub(super) fn recount(&mut self) {
        self.base_diff = self
            .placement
            .diff(self.game.position().placement())
            .count();
    }

    pub(super) fn result_on_board(
        &mut self,
        t: u64,
        result: GameResult,
        out: &mut Vec<ArbiterEvent>,
    ) {
        if matches!(self.phase, Phase::Over) {
            return;
        }
        self.phase = Phase::Over;
        self.clear_pending();
        self.left_start = false;
        self.announce_end(t, result, EndReason::ResultOnBoard, None, false, out);
    }
}

fn magic_result(m: MagicPiece) -> GameResult {
    match m {
        MagicPiece::Draw => GameResult::Draw,
        MagicPiece::WhiteWins => GameResult::WhiteWins,
        MagicPiece::BlackWins => GameResult::BlackWins,
    }
}
