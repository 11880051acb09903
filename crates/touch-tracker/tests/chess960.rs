//! Chess960 games followed by the tracker (arbiter-rules.md §6, Guidelines II.3): each of
//! the four ways a castling is made on the board (both pieces moved, the two swapped, the
//! king only, the rook only; with the king in the air and the rook passing the king's
//! square) is recorded as the king taking its rook, with no ruling; touch-move 4.4.1 and
//! 4.4.2 as in standard chess; an illegal castling ruled `castling` and restored.

mod common;

use common::moves;

use chess_rules::{Color, IllegalCategory, Piece, Placement, Position, Square, Variant};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{
    BoardEvent, ClockSide, ClockTime, FieldIndex, FieldUpdate, Hms, Orientation, PieceCode,
    RawBoard, SideTime, TimedEvent,
};
use touch_tracker::{ArbiterEvent, EventKind, GameState, Obligation, SyncTracker, TrackerConfig};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn piece(c: char) -> Piece {
    Piece::from_fen_char(c).unwrap()
}

/// A board, a clock and a tracker, in virtual time.
struct Bench {
    t: u64,
    orientation: Orientation,
    tracker: SyncTracker,
    board: Placement,
    /// The position the hands believe in (advanced by `play`).
    pos: Position,
    clock: ClockTime,
    white_side: ClockSide,
    increment_ms: u64,
    /// Time between two square changes.
    gap: u64,
    out: Vec<ArbiterEvent>,
    read: usize,
}

impl Bench {
    fn new(cfg: TrackerConfig) -> Bench {
        let start = cfg.start;
        Bench::showing(cfg, start)
    }

    /// The board set up as `shown` (the hands believe in it) whatever `cfg` says.
    fn showing(cfg: TrackerConfig, shown: Position) -> Bench {
        let orientation = Orientation::Normal;
        let side = |s| SideTime {
            time: Hms::from_secs(s).unwrap(),
            ..SideTime::default()
        };
        let base = cfg.time_control.map_or(300, |tc| tc.base_secs());
        let increment_ms = cfg
            .time_control
            .map_or(0, |tc| u64::from(tc.first_increment_secs()) * 1000);
        let board = *shown.placement();
        let pos = shown;
        let white_side = match orientation {
            Orientation::Normal => ClockSide::Left,
            Orientation::Rotated => ClockSide::Right,
        };
        let mut b = Bench {
            t: 0,
            orientation,
            tracker: SyncTracker::new(cfg),
            board,
            pos,
            clock: ClockTime {
                left: side(base),
                right: side(base),
                running: false,
                lever: white_side,
                ..ClockTime::default()
            },
            white_side,
            increment_ms,
            gap: 300,
            out: Vec::new(),
            read: 0,
        };
        b.feed(BoardEvent::Dump {
            board: RawBoard::from_placement(&board, orientation),
        });
        b.frame();
        b
    }

    fn feed(&mut self, event: BoardEvent) {
        self.tracker.handle(
            &TimedEvent {
                t_ms: self.t,
                event,
            },
            &mut self.out,
        );
    }

    fn frame(&mut self) {
        self.feed(BoardEvent::Clock(self.clock));
    }

    /// One square changes, `gap` ms after the last event.
    fn field(&mut self, s: &str, code: PieceCode) {
        self.t += self.gap;
        self.board.set(sq(s), code.piece());
        let field = FieldIndex::from_square(sq(s), self.orientation);
        self.feed(BoardEvent::Field(FieldUpdate { field, piece: code }));
    }

    fn lift(&mut self, s: &str) {
        self.field(s, PieceCode::Empty);
    }

    fn place(&mut self, s: &str, p: char) {
        self.field(s, PieceCode::Piece(piece(p)));
    }

    /// Moves the piece on `from` to `to` (straight onto a victim there).
    fn slide(&mut self, from: &str, to: &str) {
        let p = self.board.get(sq(from)).expect("a piece to move");
        self.lift(from);
        self.field(to, PieceCode::Piece(p));
    }

    fn side(&mut self, s: ClockSide) -> &mut SideTime {
        match s {
            ClockSide::Left => &mut self.clock.left,
            ClockSide::Right => &mut self.clock.right,
        }
    }

    fn side_of(&self, c: Color) -> ClockSide {
        if c == Color::White {
            self.white_side
        } else {
            self.white_side.other()
        }
    }

    /// The opponent of the side to move starts the clock: the mover's time runs.
    fn start_clock(&mut self) {
        self.t += 100;
        self.clock.running = true;
        self.clock.lever = self.side_of(self.pos.side_to_move());
        self.frame();
    }

    /// The player of `c` presses: his time stops (plus the increment), the other runs.
    fn press(&mut self, c: Color) {
        self.t += 100;
        let s = self.side_of(c);
        assert_eq!(
            self.clock.lever, s,
            "{c} cannot press: his time does not run"
        );
        let inc = self.increment_ms / 1000;
        let side = self.side(s);
        side.time = Hms::from_secs(side.time.secs() + inc as u32).unwrap();
        self.clock.lever = s.other();
        self.frame();
    }

    /// A press, then long enough for the settle window to pass.
    fn press_and_settle(&mut self, c: Color) {
        self.press(c);
        self.t += 1000;
        self.frame();
    }

    /// The events since the last call.
    fn events(&mut self) -> Vec<ArbiterEvent> {
        let new = self.out[self.read..].to_vec();
        self.read = self.out.len();
        new
    }

    fn kinds_of(&self, ev: &[ArbiterEvent]) -> Vec<&'static str> {
        ev.iter()
            .map(|e| e.kind_name())
            .filter(|k| *k != "board_status" && *k != "draw_claimable")
            .collect()
    }
}

fn touch_moves(events: &[ArbiterEvent]) -> Vec<touch_tracker::events::TouchMoveEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TouchMove(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

fn illegal(events: &[ArbiterEvent]) -> touch_tracker::events::IllegalMoveEvent {
    let mut found: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::IllegalMove(i) => Some(i.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "{events:#?}");
    found.remove(0)
}

/// A Chess960 game (blitz) from an X-FEN or Shredder-FEN.
fn game960(fen: &str) -> TrackerConfig {
    let mut cfg = TrackerConfig::new("t");
    cfg.time_control = Some(TimeControl::sudden_death(180, 2));
    cfg.start = Position::from_fen_960(fen).unwrap();
    assert_eq!(cfg.start.variant(), Variant::Chess960);
    cfg
}

/// One hand's work on the board: `-sq` lifts the piece on `sq`, `Xsq` puts piece `X`
/// (FEN letter) on `sq`.
fn hands(b: &mut Bench, steps: &[&str]) {
    for s in steps {
        let (what, square) = s.split_at(1);
        if what == "-" {
            b.lift(square);
        } else {
            b.place(square, what.chars().next().unwrap());
        }
    }
}

/// Plays `steps` from `fen` with the side to move pressing after: the events of the turn.
fn castle(fen: &str, steps: &[&str]) -> (Bench, Vec<ArbiterEvent>) {
    let mut b = Bench::new(game960(fen));
    // The configured start is said once, at the first dump, for the record (X-FEN).
    let start = b.events();
    assert_eq!(b.kinds_of(&start), ["new_game"], "{start:#?}");
    assert!(
        matches!(&start[start.len() - 1].kind, EventKind::NewGame { fen: f } if *f == b.pos.fen())
    );
    b.start_clock();
    let mover = b.pos.side_to_move();
    hands(&mut b, steps);
    b.press_and_settle(mover);
    let ev = b.events();
    (b, ev)
}

/// The turn recorded exactly one move, `uci` (`san`), and ruled nothing.
fn recorded_alone(b: &Bench, ev: &[ArbiterEvent], uci: &str, san: &str) {
    assert_eq!(b.kinds_of(ev), ["move"], "{ev:#?}");
    let m = moves(ev);
    assert_eq!((m[0].uci.uci(), m[0].san.as_str()), (uci.to_owned(), san));
    assert_eq!(b.tracker.tracker().state(), GameState::Playing);
}

// King d1, rook h1 (king's side) and rook a1 (queen's side: king d1 -> c1, rook a1 -> d1).
const BOTH_SIDES: &str = "4k3/pppppppp/8/8/8/8/PPPPPPPP/R2K3R w HA - 0 1";

#[test]
fn both_pieces_moved_king_first_on_either_side() {
    let (b, ev) = castle(BOTH_SIDES, &["-d1", "Kg1", "-h1", "Rf1"]);
    recorded_alone(&b, &ev, "d1h1", "O-O");
    assert_eq!(
        b.tracker.tracker().position().fen(),
        "4k3/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b - - 1 1"
    );
    let (b, ev) = castle(BOTH_SIDES, &["-d1", "Kc1", "-a1", "Rd1"]);
    recorded_alone(&b, &ev, "d1a1", "O-O-O");
}

#[test]
fn the_king_in_the_air_while_the_rook_moves_is_the_guidelines_way() {
    // II.3.2.5.1: the king lifted off next to its target, the rook moved, the king set down.
    let (b, ev) = castle(BOTH_SIDES, &["-d1", "-h1", "Rf1", "Kg1"]);
    recorded_alone(&b, &ev, "d1h1", "O-O");
    let (b, ev) = castle(BOTH_SIDES, &["-d1", "-a1", "Rd1", "Kc1"]);
    recorded_alone(&b, &ev, "d1a1", "O-O-O");
}

#[test]
fn the_two_swapped_are_a_castling() {
    // King f1, rook g1: after O-O the king is on g1, the rook on f1.
    let fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/5KR1 w G - 0 1";
    let (b, ev) = castle(fen, &["-f1", "-g1", "Rf1", "Kg1"]);
    recorded_alone(&b, &ev, "f1g1", "O-O");
    // King d1, rook c1: after O-O-O the king is on c1, the rook on d1.
    let fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/2RK4 w C - 0 1";
    let (b, ev) = castle(fen, &["-d1", "-c1", "Rd1", "Kc1"]);
    recorded_alone(&b, &ev, "d1c1", "O-O-O");
}

#[test]
fn the_king_alone_castles_with_its_rook_already_on_its_target() {
    // Rook on f1 already: the king jumps it, e1 -> g1.
    let fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4KR2 w F - 0 1";
    let (b, ev) = castle(fen, &["-e1", "Kg1"]);
    recorded_alone(&b, &ev, "e1f1", "O-O");
    // Rook on d1 already: the king goes f1 -> c1 over it.
    let fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/3R1K2 w D - 0 1";
    let (b, ev) = castle(fen, &["-f1", "Kc1"]);
    recorded_alone(&b, &ev, "f1d1", "O-O-O");
}

#[test]
fn the_rook_alone_castles_past_its_king_already_on_its_target() {
    // The bug this file was written for: rook h8 -> f8 past the king on g8 is O-O, no
    // illegal move.
    let fen = "6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR b Hh - 0 1";
    let (b, ev) = castle(fen, &["-h8", "rf8"]);
    recorded_alone(&b, &ev, "g8h8", "O-O");
    let fen = "6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR w Hh - 0 1";
    let (b, ev) = castle(fen, &["-h1", "Rf1"]);
    recorded_alone(&b, &ev, "g1h1", "O-O");
    // Queen's side: king c1, rook a1 -> d1 passes b1 and the king's square.
    let fen = "2k4r/pppppppp/8/8/8/8/PPPPPPPP/R1K5 w A - 0 1";
    let (b, ev) = castle(fen, &["-a1", "Rd1"]);
    recorded_alone(&b, &ev, "c1a1", "O-O-O");
}

#[test]
fn a_king_set_down_on_its_target_first_is_completed_by_the_rook() {
    // King f1, rook h1: Kg1 is a legal step, but the rook following makes the castling
    // (II.3.2.1: what the board shows at the press decides).
    let fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/5K1R w H - 0 1";
    let (b, ev) = castle(fen, &["-f1", "Kg1", "-h1", "Rf1"]);
    recorded_alone(&b, &ev, "f1h1", "O-O");
    // Pressed with the king alone on g1: the king's step.
    let (b, ev) = castle(fen, &["-f1", "Kg1"]);
    recorded_alone(&b, &ev, "f1g1", "Kg1");
}

#[test]
fn rook_touched_first_then_king_is_recorded_and_reported() {
    // Art. 4.4.2: the rook touched before the king: no castling with it on this move. The
    // castling played is recorded and the violation reported, as in standard chess.
    let (b, ev) = castle(BOTH_SIDES, &["-h1", "Rf1", "-d1", "Kg1"]);
    assert_eq!(b.kinds_of(&ev), ["move", "touch_move"], "{ev:#?}");
    assert_eq!(moves(&ev)[0].uci.uci(), "d1h1");
    let tm = &touch_moves(&ev)[0];
    assert_eq!(
        (tm.obligation, tm.square, tm.violation),
        (Obligation::Move, sq("h1"), true)
    );
    // The swapped pair with the rook lifted first: the same.
    let fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/5KR1 w G - 0 1";
    let (b, ev) = castle(fen, &["-g1", "-f1", "Rf1", "Kg1"]);
    assert_eq!(b.kinds_of(&ev), ["move", "touch_move"], "{ev:#?}");
    assert_eq!(touch_moves(&ev)[0].square, sq("g1"));
}

#[test]
fn king_touched_first_then_rook_obliges_castling() {
    // Art. 4.4.1: king then rook, castling that side legal: castle. The player puts both
    // back and plays Ke1 instead: recorded, the violation reported.
    let (b, ev) = castle(BOTH_SIDES, &["-d1", "-h1", "Rh1", "Ke1"]);
    assert_eq!(b.kinds_of(&ev), ["move", "touch_move"], "{ev:#?}");
    assert_eq!(moves(&ev)[0].uci.uci(), "d1e1");
    let tm = &touch_moves(&ev)[0];
    assert_eq!(
        (tm.obligation, tm.square, tm.violation),
        (Obligation::Castle, sq("h1"), true)
    );
    // Kept: king then rook, and the castling with that rook.
    let (b, ev) = castle(BOTH_SIDES, &["-d1", "-a1", "Rd1", "Kc1"]);
    recorded_alone(&b, &ev, "d1a1", "O-O-O");
}

#[test]
fn an_illegal_castling_is_ruled_castling_and_restored() {
    // No right left (the rook moved before): the rook alone past its king.
    let fen = "6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR w - - 0 1";
    let (mut b, ev) = castle(fen, &["-h1", "Rf1"]);
    let i = illegal(&ev);
    assert_eq!(i.category, IllegalCategory::Castling);
    assert_eq!(i.restore_fen, "6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR w - - 0 1");
    assert!(
        i.explanation.contains("has moved before"),
        "{}",
        i.explanation
    );
    assert!(i.penalty.is_some());
    assert_eq!(b.tracker.tracker().state(), GameState::Restoring);
    b.slide("f1", "h1");
    let after = b.events();
    assert_eq!(b.kinds_of(&after), ["restored"]);
    // The king would cross f1, attacked by the rook on f8.
    let fen = "4kr2/ppppp1pp/8/8/8/8/PPPPP1PP/R2K3R w HA - 0 1";
    let (_, ev) = castle(fen, &["-d1", "Kg1", "-h1", "Rf1"]);
    let i = illegal(&ev);
    assert_eq!(i.category, IllegalCategory::Castling);
    assert!(
        i.explanation.contains("attacked square"),
        "{}",
        i.explanation
    );
    assert_eq!(
        i.attempt.map(|a| (a.from, a.to)),
        Some((sq("d1"), sq("h1")))
    );
}

#[test]
fn a_chess960_game_without_a_start_takes_it_from_the_first_dump() {
    // formats.md §1: `variant: chess960` without `start-fen`: the first board dump is the
    // start, with every castling right of its placement.
    let shown = Position::start_960(0).unwrap();
    let mut cfg = game960("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1");
    cfg.start = Position::start();
    cfg.start_from_board = true;
    let mut b = Bench::showing(cfg, shown);
    let ev = b.events();
    let fen = ev
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::NewGame { fen } => Some(fen.clone()),
            _ => None,
        })
        .expect("a new_game with the start");
    assert_eq!(fen, shown.fen());
    assert_eq!(b.tracker.tracker().position().chess960_number(), Some(0));
    // The game goes on from it.
    b.start_clock();
    b.slide("e2", "e4");
    b.press_and_settle(Color::White);
    let ev = b.events();
    assert_eq!(b.kinds_of(&ev), ["move"], "{ev:#?}");
}

#[test]
fn a_chess960_start_in_a_standard_game_is_reported_not_ruled() {
    // arbiter-rules §6: a set-up the configuration does not expect, never re-ruled.
    let mut cfg = TrackerConfig::new("t");
    cfg.time_control = Some(TimeControl::sudden_death(180, 2));
    let shown = Position::start_960(100).unwrap();
    let mut b = Bench::showing(cfg, shown);
    let ev = b.events();
    let said = ev
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::BoardStatus(s) => s.detail.clone().filter(|d| d.contains("Chess960")),
            _ => None,
        })
        .expect("the unexpected set-up reported");
    assert!(said.contains("start position 100"), "{said}");
    // A move and a press on it: still no ruling.
    b.start_clock();
    b.slide("e2", "e4");
    b.press_and_settle(Color::White);
    let ev = b.events();
    assert!(
        ev.iter()
            .all(|e| !matches!(e.kind, EventKind::IllegalMove(_) | EventKind::Move(_))),
        "{ev:#?}"
    );
}

#[test]
fn the_hand_generator_castles_every_way_and_the_tracker_records_it() {
    use common::sim::{check, config_for, play};
    use dgt_sim::hands::{generate, GameInput, HandOptions, Variations};
    // Each line castles at once (and goes on with pawn moves): both pieces moving, the
    // two swapped, the king alone, the rook alone, on either side and for either colour.
    let games: [(&str, &[&str]); 6] = [
        (BOTH_SIDES, &["d1h1", "e7e6", "a2a3"]),
        (BOTH_SIDES, &["d1a1", "e7e6", "h2h3"]),
        (
            "4k3/pppppppp/8/8/8/8/PPPPPPPP/5KR1 w G - 0 1",
            &["f1g1", "e7e6", "a2a3"],
        ),
        (
            "4k3/pppppppp/8/8/8/8/PPPPPPPP/4KR2 w F - 0 1",
            &["e1f1", "e7e6", "a2a3"],
        ),
        (
            "6kr/pppppppp/8/8/8/8/PPPPPPPP/6KR w Hh - 0 1",
            &["g1h1", "g8h8", "a2a3"],
        ),
        (
            "2k4r/pppppppp/8/8/8/8/PPPPPPPP/R1K5 w A - 0 1",
            &["c1a1", "e7e6", "h2h3"],
        ),
    ];
    for (i, (fen, ucis)) in games.iter().enumerate() {
        let start = Position::from_fen_960(fen).unwrap();
        let mut pos = start;
        let moves: Vec<_> = ucis
            .iter()
            .map(|u| {
                let m = pos.parse_uci(u).unwrap();
                pos = pos.play(m).unwrap();
                m
            })
            .collect();
        let game = GameInput::new(start, moves).unwrap();
        for seed in 0..4 {
            let opts = HandOptions {
                seed: seed * 31 + i as u64,
                time_control: TimeControl::sudden_death(180, 2),
                variations: Variations::all(),
                ..HandOptions::default()
            };
            let script = generate(&game, &opts).unwrap();
            let events = play(&script, Orientation::Normal, config_for(&script));
            assert!(
                events
                    .iter()
                    .all(|e| !matches!(e.kind, EventKind::IllegalMove(_))),
                "{fen} seed {seed}: {events:#?}"
            );
            if let Err(e) = check(&script, &events) {
                panic!("{fen} seed {seed}: {e}");
            }
        }
    }
}
