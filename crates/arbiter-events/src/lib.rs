//! The arbiter's events: what a board's tracker decides, as the JSON objects of formats.md
//! §2 ([`ArbiterEvent`]), and what an arbiter tells it ([`ArbiterInput`], [`Decision`]).
//! This crate owns the types and their JSON lines, both ways (serde, and a direct writer
//! for the frequent kinds in `json`); the tracker that makes them is `touch-tracker`, the
//! consumers (hub, outputs, dashboard, records) read them here. Pure data, no IO.
//!
//! [`ArbiterEvent`]: what the tracker decides, as the JSON objects of formats.md §2. The
//! common fields are `t_ms`, `board` and `kind`; each kind carries the fields the table
//! requires (their names and values are a contract) plus a few extensions (`touches` and
//! `pressed` on moves, `clock_before`/`clock_after`, `explanation` and `ply` on illegal
//! moves, new kinds `new_game`, `illegal_move_stands` and `recovery_uncertain`).

use chess_rules::{
    Attempt, Color, EndReason, GameResult, IllegalCategory, Move, Obligation, Piece, RestoreStep,
    Square,
};
use serde::{Deserialize, Serialize};

mod json;

/// One decision, as one JSON line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArbiterEvent {
    /// The time of the input that caused it (capture time in a replay).
    pub t_ms: u64,
    pub board: String,
    #[serde(flatten)]
    pub kind: EventKind,
}

impl ArbiterEvent {
    /// The JSON `kind` name.
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    /// [`ArbiterEvent::to_json`] and a newline, appended to `out` (a writer's reused
    /// buffer: no allocation per event).
    pub fn write_json_line(&self, out: &mut Vec<u8>) {
        self.write_json(out);
        out.push(b'\n');
    }

    /// The event as one line of JSON (no newline).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(256);
        self.write_json(&mut out);
        // Both writers write only UTF-8: strings whole or split before ASCII bytes.
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// The JSON object, appended to `out`: the frequent kinds by hand (the same bytes,
    /// a fraction of the cost), the others through serde.
    fn write_json(&self, out: &mut Vec<u8>) {
        if json::write_direct(self, out) {
            return;
        }
        let start = out.len();
        // Serialising these plain structs cannot fail (no maps with non-string keys).
        if let Err(e) = serde_json::to_writer(&mut *out, self) {
            out.truncate(start);
            let line = format!(
                "{{\"t_ms\":{},\"kind\":\"board_status\",\"status\":\"error\",\"detail\":{:?}}}",
                self.t_ms,
                e.to_string()
            );
            out.extend_from_slice(line.as_bytes());
        }
    }
}

/// The kinds of event and their fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    Move(MoveEvent),
    IllegalMove(IllegalMoveEvent),
    /// The board is back in the position the ruling asked for.
    Restored {
        fen: String,
    },
    TouchMove(TouchMoveEvent),
    TwoHandedSuspected(TwoHandedEvent),
    DrawClaimable(DrawClaimableEvent),
    GameOver(GameOverEvent),
    BoardStatus(BoardStatusEvent),
    /// The start position was set up again: a new game begins.
    NewGame {
        fen: String,
    },
    /// Partial supervision: the opponent moved before the illegal move was corrected, so
    /// it stands and its penalty is void.
    IllegalMoveStands(IllegalMoveStandsEvent),
    /// The moves rebuilt after lost events could have been played otherwise: the record
    /// is one possibility, the arbiter must check it against the scoresheets. No longer
    /// emitted (issue 36: such a board goes out of sync with the lines as candidates);
    /// read from events and journals written before.
    RecoveryUncertain(RecoveryUncertainEvent),
    /// Art. 7.4: pieces knocked over or off the board with a move (not an illegal move);
    /// sent again with `reestablished: true` once the board shows them back.
    Displaced(DisplacedEvent),
    /// The board at a press fits more than one reading (a move with displaced pieces, or
    /// something else): the tracker does not rule, the arbiter must look.
    RulingUnclear(RulingUnclearEvent),
    /// The arbiter accepted what an out-of-sync board shows as the position, with the side
    /// to move he named: the game goes on from it (the moves between were not seen).
    PositionAccepted(PositionAcceptedEvent),
    /// A decision the arbiter took by hand on the dashboard (a penalty for displaced
    /// pieces, art. 7.4 / 12.9; a result set, cleared or confirmed). Never emitted on the
    /// tracker's own initiative.
    ArbiterDecision(ArbiterDecisionEvent),
    /// A player's clock disagrees with the time control's periods (art. 6.10.2): a
    /// period's time added at the wrong press, or not added. An alert for the arbiter; no
    /// penalty, no result.
    ClockMismatch(ClockMismatchEvent),
    /// The arbiter took the game back to an earlier ply (art. 7.5.1: an illegal move found
    /// later, the position before it reinstated; or his decision): the moves after
    /// `to_ply` are no longer in the record, and the board must show that position again.
    TakenBack(TakenBackEvent),
}

impl EventKind {
    /// The JSON `kind` name.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Move(_) => "move",
            EventKind::IllegalMove(_) => "illegal_move",
            EventKind::Restored { .. } => "restored",
            EventKind::TouchMove(_) => "touch_move",
            EventKind::TwoHandedSuspected(_) => "two_handed_suspected",
            EventKind::DrawClaimable(_) => "draw_claimable",
            EventKind::GameOver(_) => "game_over",
            EventKind::BoardStatus(_) => "board_status",
            EventKind::NewGame { .. } => "new_game",
            EventKind::IllegalMoveStands(_) => "illegal_move_stands",
            EventKind::RecoveryUncertain(_) => "recovery_uncertain",
            EventKind::Displaced(_) => "displaced",
            EventKind::RulingUnclear(_) => "ruling_unclear",
            EventKind::PositionAccepted(_) => "position_accepted",
            EventKind::TakenBack(_) => "taken_back",
            EventKind::ArbiterDecision(_) => "arbiter_decision",
            EventKind::ClockMismatch(_) => "clock_mismatch",
        }
    }
}

/// Both clocks, in ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClockMs {
    pub white: u64,
    pub black: u64,
}

impl ClockMs {
    pub fn get(&self, color: Color) -> u64 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    pub fn set(&mut self, color: Color, ms: u64) {
        match color {
            Color::White => self.white = ms,
            Color::Black => self.black = ms,
        }
    }
}

/// A hand on the board: a piece lifted off a square or put on one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TouchAction {
    Lift,
    Place,
}

/// One entry of a turn's touch log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Touch {
    pub t_ms: u64,
    pub square: Square,
    /// The piece lifted, or the piece put down.
    pub piece: Piece,
    pub action: TouchAction,
}

/// `kind: move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveEvent {
    /// 1-based, in the game's own numbering.
    pub ply: u32,
    pub color: Color,
    pub uci: Move,
    pub san: String,
    /// The position after the move.
    pub fen: String,
    /// Both clocks after the move (after the press that completed it), or null.
    pub clock_ms: Option<ClockMs>,
    /// Completed by the mover's clock press (false: recorded because the opponent
    /// replied, the input ended, or the move ends the game).
    pub pressed: bool,
    /// This move replaces the one recorded for the same ply (a slider registered part way
    /// at the press).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<Move>,
    /// Found by the reconnect search after lost events.
    #[serde(default, skip_serializing_if = "is_false")]
    pub recovered: bool,
    /// The arbiter's correction of an unpromoted pawn (a queen), not the player's move.
    #[serde(default, skip_serializing_if = "is_false")]
    pub correction: bool,
    /// Entered by the arbiter (the moves of a gap, from the scoresheets; issue 40): not
    /// seen made, no clock, and no ruling rests on it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub entered: bool,
    /// The touch log of the turn: every lift and placement, in order.
    pub touches: Vec<Touch>,
}

/// Extra time for the opponent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Penalty {
    pub add_ms: u64,
    pub to: Color,
}

/// `kind: illegal_move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IllegalMoveEvent {
    pub color: Color,
    pub category: IllegalCategory,
    pub attempt: Option<Attempt>,
    /// This player's completed illegal moves so far, this one included.
    pub count: u32,
    pub restore_fen: String,
    pub restore: Vec<RestoreStep>,
    pub must_move: Option<Square>,
    /// First illegal move: extra time for the opponent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penalty: Option<Penalty>,
    /// Second illegal move: the game's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
    /// The search could not decide whether the opponent can still mate: the loss stands,
    /// but the arbiter must look.
    #[serde(default, skip_serializing_if = "is_false")]
    pub result_undetermined: bool,
    /// The ply the move would have taken.
    pub ply: u32,
    /// Plain words for the arbiter.
    pub explanation: String,
    /// Both clocks at the press.
    pub clock_before: Option<ClockMs>,
    /// The clocks the arbiter must set: penalty added to the opponent, the offender's
    /// increment from the illegal press taken off (if so configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_after: Option<ClockMs>,
}

impl IllegalMoveEvent {
    /// Whether the ruling tells the arbiter that the clock counted the illegal press as a
    /// move (a time control with periods still to come: its move counter must go back by
    /// one, arbiter-rules.md section 5).
    pub fn clock_counted_press(&self) -> bool {
        self.explanation.contains(COUNTED_PRESS)
    }
}

/// The words of an illegal move's explanation that say the clock counted the illegal press
/// as a move (arbiter-rules.md section 5): the tracker writes them, [`IllegalMoveEvent::clock_counted_press`] reads them.
pub const COUNTED_PRESS: &str = "the clock counted this press as a move";

/// A piece as it stood before the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Touched {
    pub square: Square,
    pub piece: Piece,
}

/// `kind: touch_move`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TouchMoveEvent {
    pub color: Color,
    /// The pieces lifted during the turn, in order, as they stood before it.
    pub touched: Vec<Touched>,
    pub obligation: Obligation,
    /// The square of the piece that had to move or be captured.
    pub square: Square,
    pub played: Move,
    /// `played` in SAN, for sentences (empty in events written before it existed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub played_san: String,
    pub violation: bool,
    pub ply: u32,
}

/// `kind: two_handed_suspected`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TwoHandedEvent {
    pub color: Color,
    pub uci: Move,
    /// `uci` in SAN, for sentences (empty in events written before it existed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub san: String,
    pub evidence: String,
    pub ply: u32,
}

/// Why a draw may be claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimReason {
    Threefold,
    FiftyMoves,
}

/// `kind: draw_claimable`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawClaimableEvent {
    pub reason: ClaimReason,
    /// Who may claim: the player having the move.
    pub color: Color,
    /// For threefold: the game plies after which the position stood (0 = the start).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plies: Vec<u32>,
    /// Set when the claim needs this move written down first (art. 9.2.1.1).
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub with_move: Option<Move>,
    /// The ply last played.
    pub ply: u32,
}

/// `kind: game_over`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOverEvent {
    pub result: GameResult,
    pub reason: EndReason,
    /// For a flag fall: whose flag fell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<Color>,
    /// The "can the opponent still mate" search was undetermined: the loss stands, but the
    /// arbiter must look. Never a draw on an undetermined search.
    #[serde(default, skip_serializing_if = "is_false")]
    pub undetermined: bool,
    /// The plies played in the game.
    pub plies: u32,
}

/// What a `board_status` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardStatus {
    Connected,
    Disconnected,
    ClockConnected,
    ClockDisconnected,
    /// The board's orientation was detected (detail: normal / rotated).
    Orientation,
    /// Which side of the clock is White's was inferred (detail: left / right).
    WhiteClock,
    /// The board shows a placement no short series of legal moves explains; the tracker
    /// waits for one it can explain.
    OutOfSync,
    /// The board is explained again.
    InSync,
}

/// `kind: board_status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardStatusEvent {
    pub status: BoardStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For `out_of_sync`: the lines the searches found that explain the board, when more
    /// than one does or the evidence does not prove the one found (issue 36: a gap is
    /// explained or asked, never invented). None is recorded: the arbiter picks or types
    /// the moves. Empty (left out) when no line was found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<GapCandidate>,
}

/// A line of moves that explains what an out-of-sync board shows, from the last known
/// position: offered to the arbiter, never recorded by the tracker on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GapCandidate {
    /// The ply of the line's first move.
    pub ply: u32,
    pub uci: Vec<Move>,
    /// The same line in SAN with move numbers (`8. Nd4 Qg5 9. Nf5`).
    pub san: String,
}

/// `kind: illegal_move_stands`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IllegalMoveStandsEvent {
    /// The player whose illegal move stands.
    pub color: Color,
    pub attempt: Option<Attempt>,
    /// The position the game goes on from (the illegal move's placement, the opponent to
    /// move).
    pub fen: String,
    /// The offender's count after the void.
    pub count: u32,
    /// The penalty that no longer applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voided_penalty: Option<Penalty>,
}

/// `kind: recovery_uncertain`: after lost events (a pulled cable, a restart) the board
/// showed squares that more than one series of moves explains equally well.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecoveryUncertainEvent {
    /// The ply of the first rebuilt move.
    pub ply: u32,
    /// The line recorded (its moves carry `recovered: true`; its last move is recorded
    /// when it is completed).
    pub recorded: Vec<Move>,
    /// The same line in SAN with move numbers (`8. Nd4 Qg5 9. Nf5`).
    pub recorded_san: String,
    /// Other lines that leave the same squares.
    pub alternatives: Vec<Vec<Move>>,
    /// The same, in SAN.
    pub alternatives_san: Vec<String>,
}

/// `kind: taken_back`: the record cut back by the arbiter (issue 40).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakenBackEvent {
    /// The ply the record now ends at (the position to reinstate is the one after it).
    pub to_ply: u32,
    /// The ply the record ended at before: the moves `to_ply + 1 ..= from_ply` are gone.
    pub from_ply: u32,
    /// The position the board must show again (full FEN).
    pub fen: String,
    /// The arbiter's reason, as he gave it.
    pub reason: String,
    /// What to lift and put down to show it again, from what the board shows now.
    pub restore: Vec<RestoreStep>,
}

/// `kind: position_accepted`: the arbiter's action on a board out of sync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionAcceptedEvent {
    /// The position the game goes on from (full FEN: the side to move the arbiter named,
    /// castling rights kept where king and rook still stand at home and had them, no en
    /// passant).
    pub fen: String,
    pub side_to_move: Color,
    /// The ply of the last known position before the gap.
    pub last_known_ply: u32,
    /// The ply of the accepted position (the first move from it is `ply + 1`): the one
    /// the arbiter gave, or the one the clock's presses prove; otherwise the fewest the
    /// board's squares need (of the parity the side to move gives), and `ply_unknown`.
    pub ply: u32,
    /// Neither the arbiter nor the clock gave the number of plies played in the gap:
    /// `ply` is only the fewest possible, so move numbers from here may be too low.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ply_unknown: bool,
    /// Not the arbiter's acceptance but the daemon's own: every line found after the gap
    /// leads to this position (moves that could come in either order), so the game is
    /// followed from it and none of them is recorded; these are the lines, for the
    /// arbiter to pick for the record. Empty when the arbiter accepted the board.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<GapCandidate>,
}

/// `kind: displaced` (formats.md §2, art. 7.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisplacedEvent {
    /// Who displaced the pieces (the player who made the move).
    pub color: Color,
    /// The ply of the move it happened with.
    pub ply: u32,
    /// The steps that re-establish the position: a piece to put back on its square, and
    /// (for a piece knocked onto a square beside it) the square to clear.
    pub squares: Vec<RestoreStep>,
    /// False when first seen; true once the board shows the position re-established.
    pub reestablished: bool,
    /// Plain words for the arbiter ("pawn c2 knocked over").
    pub explanation: String,
}

/// `kind: ruling_unclear`: what the board showed at a press, and the readings it fits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulingUnclearEvent {
    /// The player who pressed.
    pub color: Color,
    /// The ply the move would take.
    pub ply: u32,
    /// Each reading in words ("Rd1 with the rook f1 knocked off").
    pub readings: Vec<String>,
    pub explanation: String,
}

/// How a player's clock went wrong with a period's time (arbiter-rules.md section 5,
/// "Time controls with periods").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchReason {
    /// Added at a press before the one of the move that ends the period.
    PeriodAddedEarly,
    /// Added at a press after it.
    PeriodAddedLate,
    /// Not added at the press of the move that ends the period (nor earlier), or the
    /// clock reached 0:00 after the player completed the period's moves.
    PeriodNotAdded,
}

impl MismatchReason {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            MismatchReason::PeriodAddedEarly => "period_added_early",
            MismatchReason::PeriodAddedLate => "period_added_late",
            MismatchReason::PeriodNotAdded => "period_not_added",
        }
    }
}

/// `kind: clock_mismatch` (formats.md §2): a period's time and the press that brought
/// it, or should have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockMismatchEvent {
    /// Whose clock.
    pub color: Color,
    pub reason: MismatchReason,
    /// The player's move number (1-based, his own moves) at whose press it was seen; for
    /// a press that was no move (an illegal move, a clock pressed without a move) and for a
    /// clock at 0:00, the move he was to make.
    #[serde(rename = "move")]
    pub move_number: u32,
    /// The move at whose press the period's time was due.
    pub due_move: u32,
    /// The player's clock as read after the press (0 for a clock at 0:00).
    pub clock_ms: u64,
    /// What the player's clock should show, when the daemon knows it.
    pub expected_ms: Option<u64>,
    /// Plain words for the arbiter.
    pub explanation: String,
}

/// What the arbiter decided by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Art. 12.9.1: a warning for displaced pieces (art. 7.4).
    Warning,
    /// Art. 12.9.2: time added to the opponent of the player who displaced pieces.
    TimeAdded,
    /// Art. 12.9.6: the game declared lost by the player who displaced pieces again.
    GameLost,
    /// The arbiter's result for the board, over the board's own.
    ResultSet,
    /// The arbiter's result taken back: the board's result counts again.
    ResultCleared,
    /// The board and the arbiter disagreed; the arbiter confirmed this result.
    ResultConfirmed,
    /// Art. 6.10 / 12.9: both clocks set by the arbiter (a wrong setting or a defective
    /// clock corrected, time added), with his reason.
    ClockSet,
}

/// What a [`Decision`] is about: the three kinds are handled apart (a penalty goes on the
/// move the pieces were displaced with and needs the player and the ply; a result is the
/// game's; a clock setting is neither), so every decision names its kind here, and a new
/// decision cannot be taken for one of the others by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecisionKind {
    /// Art. 12.9 for displaced pieces (art. 7.4): on a player, at a ply.
    Penalty(PenaltyDecision),
    /// The game's result as the arbiter has it.
    Result(ResultDecision),
    /// Art. 6.10 / 12.9: the clocks set by the arbiter.
    Clock,
}

/// A penalty for displaced pieces (art. 7.4, 12.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PenaltyDecision {
    Warning,
    TimeAdded,
    GameLost,
}

/// An arbiter's decision on the game's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultDecision {
    Set,
    Cleared,
    Confirmed,
}

impl Decision {
    /// The kind of decision, which says how it is checked, applied and recorded.
    pub fn kind(self) -> DecisionKind {
        match self {
            Decision::Warning => DecisionKind::Penalty(PenaltyDecision::Warning),
            Decision::TimeAdded => DecisionKind::Penalty(PenaltyDecision::TimeAdded),
            Decision::GameLost => DecisionKind::Penalty(PenaltyDecision::GameLost),
            Decision::ResultSet => DecisionKind::Result(ResultDecision::Set),
            Decision::ResultCleared => DecisionKind::Result(ResultDecision::Cleared),
            Decision::ResultConfirmed => DecisionKind::Result(ResultDecision::Confirmed),
            Decision::ClockSet => DecisionKind::Clock,
        }
    }
}

/// A result as the arbiter sets it: the three game results and the forfeits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArbiterResult {
    #[serde(rename = "1-0")]
    WhiteWins,
    #[serde(rename = "0-1")]
    BlackWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// White wins by forfeit (Black did not play).
    #[serde(rename = "+-")]
    WhiteWinsByForfeit,
    #[serde(rename = "-+")]
    BlackWinsByForfeit,
    /// Neither played.
    #[serde(rename = "--")]
    DoubleForfeit,
}

impl ArbiterResult {
    pub const ALL: [ArbiterResult; 6] = [
        ArbiterResult::WhiteWins,
        ArbiterResult::BlackWins,
        ArbiterResult::Draw,
        ArbiterResult::WhiteWinsByForfeit,
        ArbiterResult::BlackWinsByForfeit,
        ArbiterResult::DoubleForfeit,
    ];

    /// `1-0`, `0-1`, `1/2-1/2`, `+-`, `-+`, `--`.
    pub fn as_str(self) -> &'static str {
        match self {
            ArbiterResult::WhiteWins => "1-0",
            ArbiterResult::BlackWins => "0-1",
            ArbiterResult::Draw => "1/2-1/2",
            ArbiterResult::WhiteWinsByForfeit => "+-",
            ArbiterResult::BlackWinsByForfeit => "-+",
            ArbiterResult::DoubleForfeit => "--",
        }
    }

    /// Reads [`ArbiterResult::as_str`] (and `1/2`, `=` for a draw).
    pub fn parse(text: &str) -> Option<ArbiterResult> {
        match text.trim() {
            "1/2" | "=" => Some(ArbiterResult::Draw),
            t => ArbiterResult::ALL.into_iter().find(|r| r.as_str() == t),
        }
    }

    /// The game result a PGN `Result` tag gives it (a forfeit is won or lost; a double
    /// forfeit has none).
    pub fn game_result(self) -> Option<GameResult> {
        match self {
            ArbiterResult::WhiteWins | ArbiterResult::WhiteWinsByForfeit => {
                Some(GameResult::WhiteWins)
            }
            ArbiterResult::BlackWins | ArbiterResult::BlackWinsByForfeit => {
                Some(GameResult::BlackWins)
            }
            ArbiterResult::Draw => Some(GameResult::Draw),
            ArbiterResult::DoubleForfeit => None,
        }
    }

    /// Whether the board's game result says the same (a forfeit never does: a game was
    /// played on the board).
    pub fn agrees_with(self, board: GameResult) -> bool {
        matches!(
            (self, board),
            (ArbiterResult::WhiteWins, GameResult::WhiteWins)
                | (ArbiterResult::BlackWins, GameResult::BlackWins)
                | (ArbiterResult::Draw, GameResult::Draw)
        )
    }

    /// The arbiter's reading of a board's game result.
    pub fn of_game(r: GameResult) -> Option<ArbiterResult> {
        match r {
            GameResult::WhiteWins => Some(ArbiterResult::WhiteWins),
            GameResult::BlackWins => Some(ArbiterResult::BlackWins),
            GameResult::Draw => Some(ArbiterResult::Draw),
            GameResult::Ongoing => None,
        }
    }
}

impl std::fmt::Display for ArbiterResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The arbiter's decision as the dashboard hands it to a board (a tracker input, kept in
/// the journal).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArbiterInput {
    pub decision: Decision,
    /// The player penalised (penalties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
    /// The ply of the move the pieces were displaced with (penalties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
    /// Time added to the opponent (`time_added`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_ms: Option<u64>,
    /// The result set or confirmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ArbiterResult>,
    /// `clock_set`: the times the arbiter set, White's and Black's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_ms: Option<u64>,
    /// `clock_set`: why, in the arbiter's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `kind: arbiter_decision`: a decision the arbiter took by hand on the dashboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArbiterDecisionEvent {
    pub decision: Decision,
    /// The player penalised (penalties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
    /// The ply of the move the pieces were displaced with (penalties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
    /// `time_added`: the time and who gets it (the penalised player's opponent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penalty: Option<Penalty>,
    /// The result set, confirmed, or (`game_lost`) given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ArbiterResult>,
    /// The board's own result of the current game when the decision was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_result: Option<GameResult>,
    /// `time_added`, `clock_set`: both clocks before and after (what the clock must be
    /// set to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_before: Option<ClockMs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_after: Option<ClockMs>,
    /// `clock_set`: the arbiter's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The player to move when it was decided (whose clock runs).
    pub to_move: Color,
    /// Plain words for the log and the PGN comment.
    pub explanation: String,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn ev(kind: EventKind) -> Value {
        let e = ArbiterEvent {
            t_ms: 1234,
            board: "7".into(),
            kind,
        };
        let text = e.to_json();
        let back: ArbiterEvent = serde_json::from_str(&text).unwrap();
        assert_eq!(back, e, "round trip of {text}");
        serde_json::from_str(&text).unwrap()
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn move_fields_match_the_table() {
        let v = ev(EventKind::Move(MoveEvent {
            ply: 1,
            color: Color::White,
            uci: "e2e4".parse().unwrap(),
            san: "e4".into(),
            fen: "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
            clock_ms: None,
            pressed: false,
            replaces: None,
            recovered: false,
            correction: false,
            entered: false,
            touches: vec![Touch {
                t_ms: 1000,
                square: sq("e2"),
                piece: Piece::from_fen_char('P').unwrap(),
                action: TouchAction::Lift,
            }],
        }));
        assert_eq!(v["kind"], "move");
        assert_eq!(v["t_ms"], 1234);
        assert_eq!(v["board"], "7");
        assert_eq!(v["ply"], 1);
        assert_eq!(v["color"], "white");
        assert_eq!(v["uci"], "e2e4");
        assert_eq!(v["san"], "e4");
        assert!(v["fen"].as_str().unwrap().ends_with(" b KQkq - 0 1"));
        // Present and null when there is no clock.
        assert!(v.as_object().unwrap().contains_key("clock_ms"));
        assert_eq!(v["clock_ms"], Value::Null);
        assert_eq!(
            v["touches"][0],
            json!({"t_ms": 1000, "square": "e2", "piece": "P", "action": "lift"})
        );
        assert!(v.get("replaces").is_none());
    }

    #[test]
    fn illegal_move_fields_match_the_table() {
        let v = ev(EventKind::IllegalMove(IllegalMoveEvent {
            color: Color::Black,
            category: IllegalCategory::PieceMovement,
            attempt: Some(Attempt {
                from: sq("f8"),
                to: sq("f6"),
                piece: Piece::from_fen_char('b').unwrap(),
            }),
            count: 1,
            restore_fen: chess_rules::START_FEN.into(),
            restore: vec![RestoreStep::Remove {
                square: sq("f6"),
                piece: Piece::from_fen_char('b').unwrap(),
            }],
            must_move: Some(sq("f8")),
            penalty: Some(Penalty {
                add_ms: 60_000,
                to: Color::White,
            }),
            result: None,
            result_undetermined: false,
            ply: 2,
            explanation: "x".into(),
            clock_before: Some(ClockMs {
                white: 1000,
                black: 2000,
            }),
            clock_after: Some(ClockMs {
                white: 61_000,
                black: 2000,
            }),
        }));
        assert_eq!(v["kind"], "illegal_move");
        assert_eq!(v["category"], "piece_movement");
        assert_eq!(
            v["attempt"],
            json!({"from": "f8", "to": "f6", "piece": "b"})
        );
        assert_eq!(v["count"], 1);
        assert_eq!(v["restore"], json!([{"square": "f6", "remove": "b"}]));
        assert_eq!(v["must_move"], "f8");
        assert_eq!(v["penalty"], json!({"add_ms": 60000, "to": "white"}));
        assert!(v.get("result").is_none());
        assert_eq!(v["clock_after"]["white"], 61000);
    }

    #[test]
    fn other_kinds_match_the_table() {
        let v = ev(EventKind::Restored { fen: "f".into() });
        assert_eq!(
            (v["kind"].as_str(), v["fen"].as_str()),
            (Some("restored"), Some("f"))
        );
        let v = ev(EventKind::TouchMove(TouchMoveEvent {
            color: Color::White,
            touched: vec![Touched {
                square: sq("g1"),
                piece: Piece::from_fen_char('N').unwrap(),
            }],
            obligation: Obligation::KingMove,
            square: sq("e1"),
            played: "e2e4".parse().unwrap(),
            played_san: "e4".into(),
            violation: true,
            ply: 1,
        }));
        assert_eq!(v["kind"], "touch_move");
        assert_eq!(v["touched"], json!([{"square": "g1", "piece": "N"}]));
        assert_eq!(v["obligation"], "king_move");
        assert_eq!(v["played"], "e2e4");
        assert_eq!(v["played_san"], "e4");
        assert_eq!(v["violation"], true);
        let v = ev(EventKind::TwoHandedSuspected(TwoHandedEvent {
            color: Color::Black,
            uci: "e8g8".parse().unwrap(),
            san: "O-O".into(),
            evidence: "both".into(),
            ply: 20,
        }));
        assert_eq!(
            (v["kind"].as_str(), v["color"].as_str(), v["uci"].as_str()),
            (Some("two_handed_suspected"), Some("black"), Some("e8g8"))
        );
        assert_eq!(v["evidence"], "both");
        let v = ev(EventKind::DrawClaimable(DrawClaimableEvent {
            reason: ClaimReason::Threefold,
            color: Color::White,
            plies: vec![4, 8, 12],
            with_move: None,
            ply: 12,
        }));
        assert_eq!(v["reason"], "threefold");
        assert_eq!(v["plies"], json!([4, 8, 12]));
        let v = ev(EventKind::DrawClaimable(DrawClaimableEvent {
            reason: ClaimReason::FiftyMoves,
            color: Color::Black,
            plies: vec![],
            with_move: Some("g1f3".parse().unwrap()),
            ply: 100,
        }));
        assert_eq!(v["reason"], "fifty_moves");
        assert_eq!(v["move"], "g1f3");
        for (result, text) in [
            (GameResult::WhiteWins, "1-0"),
            (GameResult::BlackWins, "0-1"),
            (GameResult::Draw, "1/2-1/2"),
        ] {
            let v = ev(EventKind::GameOver(GameOverEvent {
                result,
                reason: EndReason::Flag,
                flag: Some(Color::Black),
                undetermined: false,
                plies: 43,
            }));
            assert_eq!(v["kind"], "game_over");
            assert_eq!(v["result"], text);
            assert_eq!(v["reason"], "flag");
        }
        let v = ev(EventKind::BoardStatus(BoardStatusEvent {
            status: BoardStatus::ClockDisconnected,
            detail: None,
            candidates: Vec::new(),
        }));
        assert_eq!(v["status"], "clock_disconnected");
        let v = ev(EventKind::NewGame { fen: "x".into() });
        assert_eq!(v["kind"], "new_game");
    }
}
