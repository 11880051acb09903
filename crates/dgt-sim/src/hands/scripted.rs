//! Hands told what to do, step by step: a situation an arbiter describes ("White plays
//! d3 and knocks the c2 pawn off the board, presses, then puts it back") written as the
//! timed physical actions a player makes, with the generator's own move motions and
//! timing. Used to build the rulings' test cases that the seeded generator does not
//! choose by itself: knocked-over pieces (art. 7.4), touches in a given order (art. 4.3),
//! a captured piece brought back.
//!
//! ```
//! use dgt_sim::hands::ScriptedHands;
//! let mut h = ScriptedHands::new(chess_rules::Position::start(), 7);
//! h.play("e2e4").press().play("e7e5").knock_off("d7").press();
//! let script = h.script();
//! assert!(script.actions.len() > 6);
//! ```

use chess_rules::{Color, Piece, Placement, Position, Square};
use dgt_protocol::capture::TimeControl;

use super::motion::{self, apply_to, MotionLimits};
use super::{HandRng, Script, Variations};
use crate::action::{Action, TimedAction};

/// A board, a clock and a pair of hands that do what they are told. Every call adds the
/// actions after the last ones, a human gap apart (seeded).
#[derive(Debug, Clone)]
pub struct ScriptedHands {
    start: Position,
    time_control: TimeControl,
    /// The position the players believe in: advanced by [`ScriptedHands::play`] and by
    /// nothing else.
    pos: Position,
    board: Placement,
    /// Whose time runs (the player who presses next).
    running: Color,
    now: u64,
    actions: Vec<TimedAction>,
    rng: HandRng,
}

impl ScriptedHands {
    /// A game from `start` at 5400+30 (no flag falls in a test), the clock started by the
    /// side not to move one second in.
    pub fn new(start: Position, seed: u64) -> ScriptedHands {
        ScriptedHands::with_time_control(start, TimeControl::sudden_death(5400, 30), seed)
    }

    pub fn with_time_control(
        start: Position,
        time_control: TimeControl,
        seed: u64,
    ) -> ScriptedHands {
        let mover = start.side_to_move();
        ScriptedHands {
            start,
            time_control,
            pos: start,
            board: *start.placement(),
            running: mover,
            now: 1000,
            actions: vec![TimedAction {
                at_ms: 1000,
                action: Action::PressClock(mover.opponent()),
            }],
            rng: HandRng::new(seed),
        }
    }

    /// The position the players believe in (after the moves played).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// What the board shows now.
    pub fn board(&self) -> &Placement {
        &self.board
    }

    fn act(&mut self, gap_ms: u64, action: Action) {
        self.now += gap_ms;
        apply_to(&mut self.board, &action);
        self.actions.push(TimedAction {
            at_ms: self.now,
            action,
        });
    }

    /// Plays the legal move `uci` (in the believed position) with the generator's plain
    /// hand motion: captures, castling, en passant and promotion as real hands make them.
    ///
    /// # Panics
    /// When `uci` is not a legal move there: a test's script is wrong.
    pub fn play(&mut self, uci: &str) -> &mut Self {
        let m = self
            .pos
            .parse_uci(uci)
            .unwrap_or_else(|_| panic!("{uci} is not legal in {}", self.pos.fen()));
        let info = self
            .pos
            .move_info(m)
            .unwrap_or_else(|| panic!("{uci} is not legal in {}", self.pos.fen()));
        let limits = MotionLimits {
            sliding_noise: false,
            ..MotionLimits::FREE
        };
        let motion =
            motion::legal_move(&self.pos, &info, &Variations::none(), limits, &mut self.rng);
        let think = self.rng.range(800, 2000);
        self.now += think;
        for step in motion.steps {
            self.act(step.gap_ms.max(1), step.action);
        }
        self.pos = self
            .pos
            .play(m)
            .unwrap_or_else(|_| panic!("{uci} is not legal"));
        self
    }

    /// The player whose time runs presses the clock.
    pub fn press(&mut self) -> &mut Self {
        let gap = self.rng.range(300, 800);
        let who = self.running;
        self.act(gap, Action::PressClock(who));
        self.running = who.opponent();
        self
    }

    /// A piece lifted off `square` (a touch), kept in the hand.
    pub fn lift(&mut self, square: &str) -> &mut Self {
        let gap = self.rng.range(300, 700);
        self.act(gap, Action::Lift(sq(square)));
        self
    }

    /// A piece (FEN letter) put on `square` from the hand or from off the board.
    pub fn put(&mut self, square: &str, piece: char) -> &mut Self {
        let gap = self.rng.range(300, 700);
        self.act(gap, Action::Place(sq(square), pc(piece)));
        self
    }

    /// A piece lifted and put back on its square, long enough for the board's scan to see
    /// it (a touch, or an unannounced adjustment).
    pub fn touch(&mut self, square: &str) -> &mut Self {
        let s = sq(square);
        let piece = self
            .board
            .get(s)
            .unwrap_or_else(|| panic!("nothing to touch on {square}"));
        let gap = self.rng.range(300, 700);
        self.act(gap, Action::Lift(s));
        let held = self.rng.range(motion::SEEN_TOUCH_MS + 200, 1200);
        self.act(held, Action::Place(s, piece));
        self
    }

    /// The piece on `square` knocked off the board by the hand (it falls to the side).
    pub fn knock_off(&mut self, square: &str) -> &mut Self {
        let gap = self.rng.range(20, 150);
        self.act(gap, Action::Lift(sq(square)));
        self
    }

    /// The piece on `square` knocked over onto the empty square `onto` beside it.
    pub fn knock_onto(&mut self, square: &str, onto: &str) -> &mut Self {
        let s = sq(square);
        let piece = self
            .board
            .get(s)
            .unwrap_or_else(|| panic!("nothing to knock over on {square}"));
        let gap = self.rng.range(20, 150);
        self.act(gap, Action::Lift(s));
        let fall = self.rng.range(30, 120);
        self.act(fall, Action::Place(sq(onto), piece));
        self
    }

    /// The piece that stood on `square` in the believed position put back there (from off
    /// the board, or lifted from the square it was knocked onto first).
    pub fn reestablish(&mut self, square: &str, from: Option<&str>) -> &mut Self {
        let s = sq(square);
        let piece = self
            .pos
            .piece_at(s)
            .unwrap_or_else(|| panic!("nothing stood on {square}"));
        if let Some(from) = from {
            let gap = self.rng.range(400, 900);
            self.act(gap, Action::Lift(sq(from)));
        }
        let gap = self.rng.range(300, 700);
        self.act(gap, Action::Place(s, piece));
        self
    }

    /// Time passes with nothing done.
    pub fn wait(&mut self, ms: u64) -> &mut Self {
        self.now += ms;
        self
    }

    /// The arbiter (or the players) set the board to `placement`: each square that differs
    /// lifted, then each missing piece put, as the restoring hands do.
    pub fn set_board(&mut self, placement: &Placement) -> &mut Self {
        let wrong: Vec<Square> = Square::all()
            .filter(|s| self.board.get(*s).is_some() && self.board.get(*s) != placement.get(*s))
            .collect();
        for s in wrong {
            let gap = self.rng.range(300, 600);
            self.act(gap, Action::Lift(s));
        }
        let missing: Vec<(Square, Piece)> = Square::all()
            .filter_map(|s| placement.get(s).map(|p| (s, p)))
            .filter(|(s, p)| self.board.get(*s) != Some(*p))
            .collect();
        for (s, p) in missing {
            let gap = self.rng.range(300, 600);
            self.act(gap, Action::Place(s, p));
        }
        self
    }

    /// Forgets the believed position and believes `pos` (after the arbiter reinstated it,
    /// or a correction stood).
    pub fn believe(&mut self, pos: Position) -> &mut Self {
        self.pos = pos;
        self
    }

    /// The script: its actions, no expected events (the test says what it expects).
    pub fn script(&self) -> Script {
        Script {
            start: self.start,
            time_control: self.time_control,
            actions: self.actions.clone(),
            expected: Vec::new(),
            plies: Vec::new(),
            injected: Vec::new(),
            skipped: Vec::new(),
            rules_end: None,
            final_position: self.pos,
            end_ms: self.now + 2000,
        }
    }
}

fn sq(s: &str) -> Square {
    s.parse()
        .unwrap_or_else(|_| panic!("{s:?} is not a square"))
}

fn pc(c: char) -> Piece {
    Piece::from_fen_char(c).unwrap_or_else(|| panic!("{c:?} is not a piece letter"))
}
