//! [`HandOptions`]: everything that shapes a script, composable and seeded: the time
//! control and pace, the probabilities of the normal variations ([`Variations`]), the
//! irregularities to inject ([`Irregularity`]), how the arbiter handles the clock
//! ([`ArbiterClock`]) and line faults ([`Faults`]).

use std::fmt;
use std::str::FromStr;

use dgt_protocol::capture::TimeControl;

use chess_rules::IllegalCategory;

/// The probabilities of the normal (rule-abiding) ways of making moves. Each is a chance
/// per move where it applies.
#[derive(Debug, Clone, PartialEq)]
pub struct Variations {
    /// Relative weights of the three capture orders: victim removed first; own piece put
    /// straight onto the victim; own piece lifted, victim removed, own piece placed.
    pub capture_order: [f64; 3],
    /// En passant: the captured pawn is removed before the capturing pawn moves (else
    /// after it landed).
    pub en_passant_victim_first: f64,
    /// Promotion: the new piece is put on the promotion square before the pawn is taken
    /// off (else the pawn goes first).
    pub promotion_piece_first: f64,
    /// A rook, bishop or queen moving two or more squares is briefly registered on
    /// squares along its path.
    pub sliding_noise: f64,
    /// The player lifts and puts back (adjusts) a piece before moving: the piece he then
    /// moves, or one of his pieces that has no legal move.
    pub adjustment: f64,
    /// The player does not press the clock after his move; he presses after his next one.
    pub forgotten_press: f64,
}

impl Variations {
    /// Plain hands: captures straight onto the victim, no noise, no adjustments, every
    /// press made.
    pub fn none() -> Variations {
        Variations {
            capture_order: [0.0, 1.0, 0.0],
            en_passant_victim_first: 0.0,
            promotion_piece_first: 0.0,
            sliding_noise: 0.0,
            adjustment: 0.0,
            forgotten_press: 0.0,
        }
    }

    /// Every variation often (for tests that must meet each of them many times).
    pub fn all() -> Variations {
        Variations {
            capture_order: [1.0, 1.0, 1.0],
            en_passant_victim_first: 0.5,
            promotion_piece_first: 0.5,
            sliding_noise: 0.35,
            adjustment: 0.15,
            forgotten_press: 0.04,
        }
    }

    /// Roughly what real boards show (captures mostly straight onto the victim).
    pub fn realistic() -> Variations {
        Variations {
            capture_order: [0.3, 0.55, 0.15],
            en_passant_victim_first: 0.3,
            promotion_piece_first: 0.3,
            sliding_noise: 0.1,
            adjustment: 0.03,
            forgotten_press: 0.01,
        }
    }
}

impl Default for Variations {
    fn default() -> Variations {
        Variations::realistic()
    }
}

/// A specific illegal attempt, by the category it belongs to and how it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IllegalKind {
    /// A pinned piece leaves its line.
    PinnedPiece,
    /// The king steps onto an attacked square.
    KingIntoCheck,
    /// The king steps next to the other king.
    KingNextToKing,
    /// In check, a move that does not parry it.
    CheckNotParried,
    /// Castling across an attacked square.
    CastlingThroughCheck,
    /// Castling while in check.
    CastlingOutOfCheck,
    /// Castling onto an attacked square.
    CastlingIntoCheck,
    /// Castling after the king or that rook has moved (and come back).
    CastlingAfterKingOrRookMoved,
    /// Queen-side castling with a piece on the b-file square (the rook jumps it).
    CastlingThroughPieces,
    /// An en passant capture one move after the double step.
    EnPassantLate,
    /// A bishop moving like a rook.
    BishopOffDiagonal,
    /// A rook, bishop or queen jumping over a piece.
    SliderJumping,
    /// A pawn capturing straight ahead.
    PawnCapturingStraight,
    /// A knight moving to a square a knight cannot reach.
    KnightWrong,
    /// The player moves one of his opponent's pieces.
    WrongColor,
    /// The player moves two of his pieces.
    MultipleMoves,
    /// A piece appears on the board besides the move.
    PieceAdded,
    /// One of the player's pieces disappears besides the move.
    PieceRemoved,
}

impl IllegalKind {
    pub const ALL: [IllegalKind; 18] = [
        IllegalKind::PinnedPiece,
        IllegalKind::KingIntoCheck,
        IllegalKind::KingNextToKing,
        IllegalKind::CheckNotParried,
        IllegalKind::CastlingThroughCheck,
        IllegalKind::CastlingOutOfCheck,
        IllegalKind::CastlingIntoCheck,
        IllegalKind::CastlingAfterKingOrRookMoved,
        IllegalKind::CastlingThroughPieces,
        IllegalKind::EnPassantLate,
        IllegalKind::BishopOffDiagonal,
        IllegalKind::SliderJumping,
        IllegalKind::PawnCapturingStraight,
        IllegalKind::KnightWrong,
        IllegalKind::WrongColor,
        IllegalKind::MultipleMoves,
        IllegalKind::PieceAdded,
        IllegalKind::PieceRemoved,
    ];

    /// The `formats.md` category this attempt falls in.
    pub fn category(self) -> IllegalCategory {
        use IllegalKind::*;
        match self {
            PinnedPiece | KingIntoCheck | KingNextToKing | CheckNotParried => {
                IllegalCategory::KingInCheck
            }
            CastlingThroughCheck
            | CastlingOutOfCheck
            | CastlingIntoCheck
            | CastlingAfterKingOrRookMoved
            | CastlingThroughPieces => IllegalCategory::Castling,
            EnPassantLate => IllegalCategory::EnPassant,
            BishopOffDiagonal | SliderJumping | PawnCapturingStraight | KnightWrong => {
                IllegalCategory::PieceMovement
            }
            WrongColor => IllegalCategory::WrongColor,
            MultipleMoves => IllegalCategory::MultipleMoves,
            PieceAdded | PieceRemoved => IllegalCategory::PieceAddedOrRemoved,
        }
    }

    /// A kebab-case name (`pinned-piece`), as the command line takes it.
    pub fn name(self) -> &'static str {
        use IllegalKind::*;
        match self {
            PinnedPiece => "pinned-piece",
            KingIntoCheck => "king-into-check",
            KingNextToKing => "king-next-to-king",
            CheckNotParried => "check-not-parried",
            CastlingThroughCheck => "castling-through-check",
            CastlingOutOfCheck => "castling-out-of-check",
            CastlingIntoCheck => "castling-into-check",
            CastlingAfterKingOrRookMoved => "castling-after-king-or-rook-moved",
            CastlingThroughPieces => "castling-through-pieces",
            EnPassantLate => "en-passant-late",
            BishopOffDiagonal => "bishop-off-diagonal",
            SliderJumping => "slider-jumping",
            PawnCapturingStraight => "pawn-capturing-straight",
            KnightWrong => "knight-wrong",
            WrongColor => "wrong-color",
            MultipleMoves => "multiple-moves",
            PieceAdded => "piece-added",
            PieceRemoved => "piece-removed",
        }
    }
}

/// Something irregular to inject into a game, with the events the rules say follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Irregularity {
    /// An illegal move of this kind, completed by a clock press, then restored.
    Illegal(IllegalKind),
    /// The clock pressed without a move.
    ClockWithoutMove,
    /// A pawn put on the last rank as a pawn (where the game promotes to a queen).
    UnpromotedPawn,
    /// An own piece touched (lifted and put back), another one moved.
    TouchOtherPiece,
    /// Castling with the rook touched before the king.
    RookBeforeKing,
    /// King and rook off the board at the same time while castling.
    TwoHandedCastling,
    /// A player thinks longer than the time he has left.
    FlagFall,
    /// A legal move made while knocking an own piece off the board (art. 7.4), pressed,
    /// then the piece put back: never an illegal move.
    Displaced,
}

impl Irregularity {
    /// Every irregularity there is.
    pub fn all() -> Vec<Irregularity> {
        let mut v: Vec<Irregularity> = IllegalKind::ALL
            .iter()
            .map(|k| Irregularity::Illegal(*k))
            .collect();
        v.extend([
            Irregularity::ClockWithoutMove,
            Irregularity::UnpromotedPawn,
            Irregularity::TouchOtherPiece,
            Irregularity::RookBeforeKing,
            Irregularity::TwoHandedCastling,
            Irregularity::FlagFall,
            Irregularity::Displaced,
        ]);
        v
    }

    /// True for the irregularities that are completed illegal moves (they count towards
    /// the second-illegal-move rule).
    pub fn is_illegal_move(self) -> bool {
        matches!(
            self,
            Irregularity::Illegal(_)
                | Irregularity::ClockWithoutMove
                | Irregularity::UnpromotedPawn
        )
    }

    /// A kebab-case name (`clock-without-move`, `pinned-piece`), as the command line takes
    /// it.
    pub fn name(self) -> &'static str {
        match self {
            Irregularity::Illegal(k) => k.name(),
            Irregularity::ClockWithoutMove => "clock-without-move",
            Irregularity::UnpromotedPawn => "unpromoted-pawn",
            Irregularity::TouchOtherPiece => "touch-other-piece",
            Irregularity::RookBeforeKing => "rook-before-king",
            Irregularity::TwoHandedCastling => "two-handed-castling",
            Irregularity::FlagFall => "flag-fall",
            Irregularity::Displaced => "displaced",
        }
    }
}

impl fmt::Display for Irregularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no irregularity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown irregularity {0:?} (known: {known})", known = Irregularity::all().iter().map(|i| i.name()).collect::<Vec<_>>().join(", "))]
pub struct ParseIrregularityError(pub String);

impl FromStr for Irregularity {
    type Err = ParseIrregularityError;

    fn from_str(s: &str) -> Result<Irregularity, ParseIrregularityError> {
        let s = s.trim();
        Irregularity::all()
            .into_iter()
            .find(|i| i.name() == s || i.name().replace('-', "_") == s)
            .ok_or_else(|| ParseIrregularityError(s.to_owned()))
    }
}

/// What the arbiter does with the clock after a completed illegal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArbiterClock {
    /// Stops the clock, has the position restored, hands the move back to the offender
    /// (a lever press while stopped) and restarts it: the offender's time runs while he
    /// replaces the move (`arbiter-rules.md` §5).
    #[default]
    PauseAndHandBack,
    /// Leaves the clock alone: the opponent's time runs until he has replied (the
    /// offender's replacing move then looks like a move without a press).
    Untouched,
}

/// What the arbiter does with the clock's move counter after an illegal move or a press
/// without a move, in a control with periods: the DGT3000 counted that press (the move is
/// taken back, the count stays), so its count runs one ahead of the player's moves
/// (arbiter-rules.md section 5). Only with [`ArbiterClock::PauseAndHandBack`]: the
/// replacing move's press is then counted too; an untouched clock counts the illegal
/// press instead of the replacing move's, which its lever ignores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArbiterCounter {
    /// With the clock stopped, he takes the player's counter back by one (as the ruling
    /// tells him): the next period comes at the due move.
    #[default]
    TakeBack,
    /// He leaves the counter: the next period comes one move early.
    Leave,
}

/// Faults of the line and cables, at random moments of normal plies (never while an
/// irregularity is being played out). They change no expected event: the tracker must
/// recover every move.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Faults {
    /// How many times the board's cable is pulled (and plugged back in).
    pub board_cable_pulls: u32,
    /// How long a pull lasts, ms (inclusive range).
    pub board_cable_off_ms: (u64, u64),
    /// How many bursts of garbage reach the host.
    pub line_noise: u32,
    /// How many times the clock cable is pulled while a player thinks (and plugged back
    /// before he moves, so no press is lost).
    pub clock_unplugs: u32,
    /// How long a clock unplug lasts, ms.
    pub clock_off_ms: (u64, u64),
}

/// Everything that shapes a script. `Default` is a realistic 5+3 blitz game without
/// irregularities or faults.
#[derive(Debug, Clone, PartialEq)]
pub struct HandOptions {
    /// The same seed and options give the same script.
    pub seed: u64,
    /// The clock's setting; think times are budgeted so that nobody loses on time unless
    /// a flag fall is injected.
    pub time_control: TimeControl,
    /// Multiplies think times (1.0: a realistic share of the time control; 0.05: a brisk
    /// demo). Hand motions are not scaled (serve with a speed factor for that).
    pub think_scale: f64,
    /// No think time is shorter than this, ms (a new turn's first lift comes at least a
    /// board scan after the opponent's last placement).
    pub min_think_ms: u64,
    /// From the start of the script to Black's press that starts the clock, ms.
    pub start_delay_ms: u64,
    pub variations: Variations,
    /// Irregularities to inject, each once where the game allows it (see
    /// `Script::skipped` for those it does not).
    pub irregularities: Vec<Irregularity>,
    /// May an injected illegal move be its player's second (ending the game)? When false
    /// each player makes at most one and the game goes on to its end.
    pub allow_second_illegal: bool,
    pub arbiter_clock: ArbiterClock,
    /// Whether the arbiter corrects the clock's move counter after an illegal press (a
    /// control with periods only).
    pub arbiter_counter: ArbiterCounter,
    /// How long the arbiter takes to come and rule after an illegal press, ms.
    pub arbiter_delay_ms: (u64, u64),
    pub faults: Faults,
}

impl Default for HandOptions {
    fn default() -> HandOptions {
        HandOptions {
            seed: 0,
            time_control: TimeControl::sudden_death(300, 3),
            think_scale: 1.0,
            min_think_ms: 400,
            start_delay_ms: 2000,
            variations: Variations::default(),
            irregularities: Vec::new(),
            allow_second_illegal: false,
            arbiter_clock: ArbiterClock::default(),
            arbiter_counter: ArbiterCounter::default(),
            arbiter_delay_ms: (2000, 6000),
            faults: Faults::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn irregularity_names_round_trip_and_are_distinct() {
        let all = Irregularity::all();
        let mut names: Vec<&str> = all.iter().map(|i| i.name()).collect();
        for i in &all {
            assert_eq!(i.name().parse::<Irregularity>(), Ok(*i));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        assert_eq!(
            "clock_without_move".parse::<Irregularity>(),
            Ok(Irregularity::ClockWithoutMove)
        );
        let err = "castle-badly".parse::<Irregularity>().unwrap_err();
        assert!(err.to_string().contains("pinned-piece"), "{err}");
    }

    #[test]
    fn every_category_of_an_attempt_is_covered() {
        let cats: std::collections::HashSet<_> =
            IllegalKind::ALL.iter().map(|k| k.category()).collect();
        for c in [
            IllegalCategory::KingInCheck,
            IllegalCategory::Castling,
            IllegalCategory::EnPassant,
            IllegalCategory::PieceMovement,
            IllegalCategory::WrongColor,
            IllegalCategory::MultipleMoves,
            IllegalCategory::PieceAddedOrRemoved,
        ] {
            assert!(cats.contains(&c), "{c}");
        }
    }
}
