//! Time controls with periods (arbiter-rules.md section 5, "Time controls with periods";
//! issue 38): a board driver in the style of `rulings.rs`, with a DGT3000 that keeps its
//! own count of each player's presses and adds a period's time when that count reaches the
//! period's moves (as set on the clock, which may differ from the game's control), and
//! whose time runs between frames sent as a running clock sends them. The tests read the
//! `clock_mismatch` alerts and the flag rulings that come out.

mod common;

use chess_rules::{Color, Game, GameResult, IllegalCategory, Placement, Position, Status};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{
    BoardEvent, ClockSide, ClockTime, FieldIndex, FieldUpdate, Hms, Orientation, PieceCode,
    RawBoard, SideTime, TimedEvent,
};
use touch_tracker::{
    ArbiterEvent, ClockMismatchEvent, EndReason, EventKind, GameState, MismatchReason, SyncTracker,
    TrackerConfig,
};

fn tc(s: &str) -> TimeControl {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn slot(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// A board, a DGT3000 set to `clock_tc` (its own count of presses) and a tracker told the
/// game's control, in virtual time. White's time is on the left.
struct Bench {
    t: u64,
    tracker: SyncTracker,
    board: Placement,
    pos: Position,
    /// Each player's time, in ms (the clock shows whole seconds, rounded up).
    ms: [u64; 2],
    running: bool,
    /// Whose time runs.
    lever: Color,
    clock_tc: TimeControl,
    /// The clock's own count of each player's presses.
    presses: [u32; 2],
    flag: [bool; 2],
    out: Vec<ArbiterEvent>,
    read: usize,
}

impl Bench {
    fn new(game_tc: &str, clock_tc: &str) -> Bench {
        let mut cfg = TrackerConfig::new("p");
        cfg.time_control = Some(tc(game_tc));
        cfg.white_clock = Some(ClockSide::Left);
        cfg.orientation = Some(Orientation::Normal);
        let clock_tc = tc(clock_tc);
        let base = u64::from(clock_tc.base_secs()) * 1000;
        let pos = cfg.start;
        let mut b = Bench {
            t: 0,
            board: *pos.placement(),
            pos,
            tracker: SyncTracker::new(cfg),
            ms: [base, base],
            running: false,
            lever: Color::White,
            clock_tc,
            presses: [0, 0],
            flag: [false, false],
            out: Vec::new(),
            read: 0,
        };
        b.feed(BoardEvent::Dump {
            board: RawBoard::from_placement(&b.board, Orientation::Normal),
        });
        b.frame();
        b.t += 100;
        b.running = true;
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
        let side = |ms: u64, flag: bool| SideTime {
            time: Hms::from_secs(u32::try_from(ms.div_ceil(1000)).unwrap()).unwrap(),
            flag_fallen: flag,
            ..SideTime::default()
        };
        let clock = ClockTime {
            left: side(self.ms[0], self.flag[0]),
            right: side(self.ms[1], self.flag[1]),
            running: self.running,
            lever: match self.lever {
                Color::White => ClockSide::Left,
                Color::Black => ClockSide::Right,
            },
            ..ClockTime::default()
        };
        self.feed(BoardEvent::Clock(clock));
    }

    /// Time passes; the running side's time runs (no frame).
    fn pass(&mut self, ms: u64) {
        self.t += ms;
        if self.running {
            let i = slot(self.lever);
            self.ms[i] = self.ms[i].saturating_sub(ms);
        }
    }

    fn field(&mut self, sq: chess_rules::Square, code: PieceCode) {
        self.pass(300);
        self.board.set(sq, code.piece());
        let field = FieldIndex::from_square(sq, Orientation::Normal);
        self.feed(BoardEvent::Field(FieldUpdate { field, piece: code }));
    }

    /// A legal move made by hand.
    fn play(&mut self, m: chess_rules::Move) {
        let pos = self.pos;
        let info = pos.move_info(m).unwrap();
        self.pos = pos.play(m).unwrap();
        if let Some((victim, _)) = info.capture.filter(|(s, _)| *s != m.to) {
            self.field(victim, PieceCode::Empty);
        }
        self.field(m.from, PieceCode::Empty);
        let landed = info.promotion.unwrap_or(info.piece);
        self.field(m.to, PieceCode::Piece(landed));
        if let Some((_, rf, rt)) = info.castling {
            let rook = self.board.get(rf).unwrap();
            self.field(rf, PieceCode::Empty);
            self.field(rt, PieceCode::Piece(rook));
        }
    }

    /// The player to move presses, the running clock's frame of a moment before first: the
    /// clock counts the press and adds what its own setting gives at that count.
    fn press(&mut self) {
        self.frame();
        self.press_unread();
    }

    /// A press with no frame just before it (frames lost): its rise cannot be read.
    fn press_unread(&mut self) {
        self.pass(100);
        let c = self.lever;
        let i = slot(c);
        self.presses[i] += 1;
        let owed = self.clock_tc.owed_at_move(self.presses[i]);
        self.ms[i] += u64::from(owed.increment_secs) * 1000;
        if let Some(p) = owed.next_period {
            self.ms[i] += u64::from(p.secs) * 1000;
        }
        self.lever = c.opponent();
        self.frame();
    }

    /// The player to move thinks `think` ms, plays `m` and presses.
    fn move_and_press(&mut self, m: chess_rules::Move, think: u64) {
        self.pass(think);
        self.frame();
        self.play(m);
        self.press();
    }

    /// A clock pressed without a move (7.5.3), then the arbiter's hands: clock stopped,
    /// penalty added, lever handed back, restarted.
    fn press_without_move(&mut self) {
        let c = self.lever;
        self.pass(2_000);
        self.press();
        self.pass(1_000);
        self.frame();
        self.running = false;
        self.frame();
        self.ms[slot(c.opponent())] += 120_000;
        self.lever = c;
        self.frame();
        self.t += 100;
        self.running = true;
        self.frame();
    }

    /// The running side's time runs out: the DGT3000 shows its flag and stops.
    fn run_out(&mut self) {
        let i = slot(self.lever);
        self.pass(self.ms[i]);
        self.flag[i] = true;
        self.running = false;
        self.frame();
        self.t += 100;
        self.frame();
    }

    /// The line goes down; the player to move plays `m` and presses unseen; the line comes
    /// back with a dump and the clock's frames.
    fn move_while_line_down(&mut self, m: chess_rules::Move) {
        self.feed(BoardEvent::Disconnected {
            reason: "cable".into(),
        });
        self.pass(20_000);
        let pos = self.pos;
        self.pos = pos.play(m).unwrap();
        self.board = *self.pos.placement();
        let c = self.lever;
        let i = slot(c);
        self.presses[i] += 1;
        let owed = self.clock_tc.owed_at_move(self.presses[i]);
        self.ms[i] += u64::from(owed.increment_secs) * 1000;
        if let Some(p) = owed.next_period {
            self.ms[i] += u64::from(p.secs) * 1000;
        }
        self.lever = c.opponent();
        self.pass(3_000);
        self.feed(BoardEvent::Connected {
            serial: None,
            version: None,
            clock_version: None,
        });
        self.feed(BoardEvent::Dump {
            board: RawBoard::from_placement(&self.board, Orientation::Normal),
        });
        self.frame();
        self.pass(1_000);
        self.frame();
    }

    fn events(&mut self) -> Vec<ArbiterEvent> {
        let new = self.out[self.read..].to_vec();
        self.read = self.out.len();
        new
    }
}

/// A long game of legal moves (pseudo-random from `seed`, captures avoided where it can be,
/// so that no position is dead): none ends the game within `plies`.
fn long_game(plies: usize, seed: u64) -> Vec<chess_rules::Move> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let mut game = Game::new(Position::start());
    let mut line = Vec::new();
    while line.len() < plies {
        let pos = *game.position();
        let all: Vec<_> = pos.legal_moves().collect();
        let quiet: Vec<_> = all
            .iter()
            .copied()
            .filter(|&m| pos.move_info(m).is_some_and(|i| i.capture.is_none()))
            .filter(|&m| pos.play(m).is_ok_and(|p| p.status() == Status::Ongoing))
            .collect();
        let pick = if quiet.is_empty() { &all } else { &quiet };
        assert!(!pick.is_empty(), "the game ended at ply {}", line.len());
        let m = pick[next() % pick.len()];
        game.play(m).unwrap();
        assert!(
            game.automatic_end().is_none(),
            "ended at ply {}",
            line.len()
        );
        line.push(m);
    }
    line
}

/// Plays the game's plies `from..to` (0-based), each after `think` ms, pressed.
fn play_plies(b: &mut Bench, line: &[chess_rules::Move], from: usize, to: usize, think: u64) {
    for &m in &line[from..to] {
        b.move_and_press(m, think);
    }
}

fn mismatches(events: &[ArbiterEvent]) -> Vec<ClockMismatchEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ClockMismatch(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn game_over(events: &[ArbiterEvent]) -> Vec<touch_tracker::events::GameOverEvent> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::GameOver(g) => Some(g.clone()),
            _ => None,
        })
        .collect()
}

/// Ply index (0-based) of `color`'s move `n` (1-based) from the start.
fn ply_of(color: Color, n: usize) -> usize {
    2 * (n - 1) + usize::from(color == Color::Black)
}

const CLASSICAL: &str = "40/5400+30:1800+30";

#[test]
fn a_period_added_at_the_press_of_move_40_says_nothing() {
    let line = long_game(90, 1);
    let mut b = Bench::new(CLASSICAL, CLASSICAL);
    play_plies(&mut b, &line, 0, ply_of(Color::White, 40), 60_000);
    let before = b.ms[0];
    b.move_and_press(line[ply_of(Color::White, 40)], 60_000);
    // The clock did add it: 30:00 and 30 s, less the minute and a bit thought.
    assert!(
        b.ms[0] > before + 1_830_000 - 65_000,
        "{before} -> {}",
        b.ms[0]
    );
    play_plies(&mut b, &line, ply_of(Color::White, 40) + 1, 90, 60_000);
    let ev = b.events();
    assert!(mismatches(&ev).is_empty(), "{:#?}", mismatches(&ev));
    assert!(game_over(&ev).is_empty());
    assert_eq!(b.tracker.tracker().position().plies(), 90);
}

#[test]
fn a_clock_that_counted_an_illegal_press_adds_the_period_early() {
    let line = long_game(90, 2);
    let mut b = Bench::new(CLASSICAL, CLASSICAL);
    play_plies(&mut b, &line, 0, ply_of(Color::White, 10), 60_000);
    b.press_without_move();
    let ev = b.events();
    let illegal = ev
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::IllegalMove(i) => Some(i.clone()),
            _ => None,
        })
        .expect("a press without a move");
    assert_eq!(illegal.category, IllegalCategory::ClockWithoutMove);
    // Section 5: the ruling tells the arbiter the clock counted the press.
    assert!(
        illegal.explanation.contains("move counter"),
        "{}",
        illegal.explanation
    );
    assert!(illegal.clock_counted_press());
    play_plies(&mut b, &line, ply_of(Color::White, 10), 90, 60_000);
    let ev = b.events();
    let m = mismatches(&ev);
    assert_eq!(m.len(), 1, "{m:#?}");
    assert_eq!(
        (m[0].color, m[0].reason, m[0].move_number, m[0].due_move),
        (Color::White, MismatchReason::PeriodAddedEarly, 39, 40)
    );
    assert_eq!(m[0].expected_ms, None);
    assert_eq!(m[0].clock_ms, b_clock_after(&ev, Color::White, 39));
    assert!(game_over(&ev).is_empty());
}

/// The player's clock in the `move` event of his move `n`.
fn b_clock_after(events: &[ArbiterEvent], color: Color, n: u32) -> u64 {
    let ply = u32::try_from(ply_of(color, n as usize)).unwrap() + 1;
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Move(m) if m.ply == ply => m.clock_ms.map(|c| c.get(color)),
            _ => None,
        })
        .expect("the move with its clock")
}

#[test]
fn a_clock_set_one_move_late_is_said_not_added_then_late() {
    let line = long_game(90, 3);
    // The clock is set to add the period after 41 moves.
    let mut b = Bench::new(CLASSICAL, "41/5400+30:1800+30");
    play_plies(&mut b, &line, 0, 90, 60_000);
    let ev = b.events();
    let m = mismatches(&ev);
    let of = |c: Color| -> Vec<_> {
        m.iter()
            .filter(|e| e.color == c)
            .map(|e| (e.reason, e.move_number, e.due_move))
            .collect()
    };
    for c in Color::ALL {
        assert_eq!(
            of(c),
            [
                (MismatchReason::PeriodNotAdded, 40, 40),
                (MismatchReason::PeriodAddedLate, 41, 40)
            ],
            "{m:#?}"
        );
    }
    let not_added = &m[0];
    let shown = b_clock_after(&ev, not_added.color, 40);
    assert_eq!(not_added.clock_ms, shown);
    assert_eq!(not_added.expected_ms, Some(shown + 1_800_000));
    assert!(game_over(&ev).is_empty());
}

#[test]
fn a_clock_set_to_sudden_death_never_adds_the_period_and_it_is_said_once() {
    let line = long_game(90, 4);
    let mut b = Bench::new(CLASSICAL, "5400+30");
    play_plies(&mut b, &line, 0, 90, 60_000);
    let m = mismatches(&b.events());
    assert_eq!(m.len(), 2, "{m:#?}");
    for e in &m {
        assert_eq!(
            (e.reason, e.move_number, e.due_move),
            (MismatchReason::PeriodNotAdded, 40, 40)
        );
        assert!(e.explanation.contains("6.10.2"), "{}", e.explanation);
    }
}

#[test]
fn a_flag_before_the_control_is_a_flag_fall() {
    let line = long_game(90, 5);
    let mut b = Bench::new(CLASSICAL, CLASSICAL);
    // 2.5 minutes a move: White's 5400 s run out during his move 30 or so.
    play_plies(&mut b, &line, 0, ply_of(Color::White, 30), 170_000);
    assert!(b.ms[0] > 0);
    b.run_out();
    let ev = b.events();
    let g = game_over(&ev);
    assert_eq!(g.len(), 1, "{ev:#?}");
    assert_eq!(
        (g[0].result, g[0].reason, g[0].flag),
        (GameResult::BlackWins, EndReason::Flag, Some(Color::White))
    );
    assert!(mismatches(&ev).is_empty());
}

#[test]
fn a_clock_at_zero_after_the_control_s_moves_is_the_clock_s_fault() {
    let line = long_game(90, 6);
    let mut b = Bench::new(CLASSICAL, "5400+30");
    play_plies(&mut b, &line, 0, ply_of(Color::White, 41), 60_000);
    let m = mismatches(&b.events());
    assert_eq!(m.len(), 2, "said at move 40, for each: {m:#?}");
    // White's clock runs out in his move 41: said already, no result.
    b.run_out();
    let ev = b.events();
    assert!(game_over(&ev).is_empty(), "{ev:#?}");
    assert!(
        mismatches(&ev).is_empty(),
        "one alert per period and reason"
    );
    assert_ne!(b.tracker.tracker().state(), GameState::Over);
}

#[test]
fn once_the_arbiter_set_the_period_a_clock_at_zero_is_a_flag_fall() {
    let line = long_game(90, 12);
    let mut b = Bench::new(CLASSICAL, "5400+30");
    play_plies(&mut b, &line, 0, ply_of(Color::White, 41), 60_000);
    assert_eq!(mismatches(&b.events()).len(), 2);
    // The arbiter stops the clock and gives White the period's time (less the seconds
    // run since move 40), then restarts it.
    b.pass(500);
    b.frame();
    b.running = false;
    b.frame();
    b.ms[0] += 1_800_000 - 70_000;
    b.frame();
    b.t += 100;
    b.running = true;
    b.frame();
    b.run_out();
    let ev = b.events();
    let g = game_over(&ev);
    assert_eq!(g.len(), 1, "{ev:#?}");
    assert_eq!(
        (g[0].result, g[0].reason, g[0].flag),
        (GameResult::BlackWins, EndReason::Flag, Some(Color::White))
    );
    assert!(mismatches(&ev).is_empty());
}

#[test]
fn a_clock_at_zero_unread_at_the_control_is_said_then() {
    let line = long_game(90, 7);
    let mut b = Bench::new(CLASSICAL, "5400+30");
    play_plies(&mut b, &line, 0, ply_of(Color::White, 40), 60_000);
    // White's move 40: no frame in the seconds before the press (frames lost).
    b.pass(60_000);
    b.frame();
    b.play(line[ply_of(Color::White, 40)]);
    b.pass(5_000);
    b.press_unread();
    let ev = b.events();
    assert!(
        mismatches(&ev).iter().all(|e| e.color != Color::White),
        "nothing said on a press not read: {:#?}",
        mismatches(&ev)
    );
    b.move_and_press(line[ply_of(Color::Black, 40)], 60_000);
    b.run_out();
    let ev = b.events();
    assert!(game_over(&ev).is_empty(), "{ev:#?}");
    let m: Vec<_> = mismatches(&ev)
        .into_iter()
        .filter(|e| e.color == Color::White)
        .collect();
    assert_eq!(m.len(), 1, "{m:#?}");
    assert_eq!(
        (m[0].reason, m[0].move_number, m[0].due_move, m[0].clock_ms),
        (MismatchReason::PeriodNotAdded, 41, 40, 0)
    );
    assert_eq!(m[0].expected_ms, Some(1_800_000));
}

#[test]
fn a_press_the_line_hid_is_not_read() {
    let line = long_game(90, 11);
    let mut b = Bench::new(CLASSICAL, "5400+30");
    play_plies(&mut b, &line, 0, ply_of(Color::White, 40), 60_000);
    b.pass(30_000);
    b.move_while_line_down(line[ply_of(Color::White, 40)]);
    play_plies(&mut b, &line, ply_of(Color::White, 40) + 1, 90, 60_000);
    let ev = b.events();
    assert_eq!(common::moves(&ev).len(), 90, "every move followed");
    // White's move 40 was completed unseen: nothing said of his clock; Black's was seen.
    let m: Vec<_> = mismatches(&ev)
        .iter()
        .map(|e| (e.color, e.reason, e.move_number))
        .collect();
    assert_eq!(m, [(Color::Black, MismatchReason::PeriodNotAdded, 40)]);
}

#[test]
fn a_repeating_period_comes_every_40_moves() {
    let line = long_game(170, 8);
    let mut b = Bench::new("40/7200", "40/7200");
    play_plies(&mut b, &line, 0, 170, 30_000);
    let ev = b.events();
    assert!(mismatches(&ev).is_empty(), "{:#?}", mismatches(&ev));
    // 85 moves each: 2 hours thrice, 30.9 s a move less.
    assert!(b.ms[0] > 3 * 7_200_000 - 85 * 31_000);

    // A counted press without a move: each repetition comes a move early, said once each.
    let mut b = Bench::new("40/7200", "40/7200");
    play_plies(&mut b, &line, 0, ply_of(Color::Black, 5), 30_000);
    b.press_without_move();
    play_plies(&mut b, &line, ply_of(Color::Black, 5), 170, 30_000);
    let m: Vec<_> = mismatches(&b.events())
        .iter()
        .map(|e| (e.color, e.reason, e.move_number, e.due_move))
        .collect();
    let early = MismatchReason::PeriodAddedEarly;
    assert_eq!(
        m,
        [(Color::Black, early, 39, 40), (Color::Black, early, 79, 80)]
    );
}

#[test]
fn a_single_sudden_death_period_never_alerts() {
    let line = long_game(90, 9);
    // The clock adds a period the game does not have: no period is followed in BASE+INC.
    let mut b = Bench::new("5400+30", CLASSICAL);
    play_plies(&mut b, &line, 0, 20, 60_000);
    b.press_without_move();
    play_plies(&mut b, &line, 20, 90, 60_000);
    let ev = b.events();
    assert!(mismatches(&ev).is_empty());
    // The ruling's words are today's: no clock count to take back.
    let illegal = only_illegal(&ev);
    assert!(!illegal.clock_counted_press(), "{}", illegal.explanation);
    assert_eq!(
        illegal.explanation,
        "white pressed the clock without making a move"
    );

    // Past the last control nothing is counted either: no period is left to come.
    let mut b = Bench::new(CLASSICAL, CLASSICAL);
    play_plies(&mut b, &line, 0, ply_of(Color::White, 45), 60_000);
    b.press_without_move();
    let illegal = only_illegal(&b.events());
    assert!(!illegal.clock_counted_press(), "{}", illegal.explanation);
}

fn only_illegal(events: &[ArbiterEvent]) -> touch_tracker::events::IllegalMoveEvent {
    let found: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::IllegalMove(i) => Some(i.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    found[0].clone()
}

/// A capture of `line` played on the emulated board, its clock set to `clock_tc` (the
/// emulator's DGT3000 adds the first period's increment and never a period), with a
/// `time-control:` header of `header_tc`.
fn capture_of(line: &[chess_rules::Move], clock_tc: &str, header_tc: &str) -> Vec<u8> {
    use dgt_protocol::capture::{CaptureHeader, CaptureWriter};
    use dgt_protocol::HostCommand;
    use dgt_sim::hands::{generate, GameInput, HandOptions, Variations};
    use dgt_sim::{Emulator, EmulatorConfig};

    let game = GameInput::new(Position::start(), line.to_vec()).unwrap();
    let opts = HandOptions {
        seed: 38,
        time_control: tc(clock_tc),
        think_scale: 0.05,
        variations: Variations::none(),
        ..HandOptions::default()
    };
    let script = generate(&game, &opts).unwrap();
    let mut emu = Emulator::new(EmulatorConfig {
        scan_interval_ms: 250,
        ..script.emulator_config()
    });
    emu.record_capture();
    emu.receive_at(
        0,
        &[
            HostCommand::SendBoard.encode(),
            HostCommand::SendUpdateNice.encode(),
        ]
        .concat(),
    );
    for a in &script.actions {
        emu.apply_at(a.at_ms, &a.action);
    }
    emu.advance_to(script.end_ms + 2000);
    let header = CaptureHeader {
        variant: Default::default(),
        board: Some("periods".to_owned()),
        start_fen: None,
        time_control: Some(tc(header_tc)),
        white_clock: Some(ClockSide::Left),
        extra: Vec::new(),
    };
    let mut w = CaptureWriter::new(Vec::new(), &header).unwrap();
    for r in emu.take_capture() {
        w.write(&r).unwrap();
    }
    w.flush().unwrap();
    w.into_inner()
}

fn replay_bytes(capture: Vec<u8>) -> Vec<ArbiterEvent> {
    use capture_replay::{Replay, ReplayOptions};
    let inputs: Vec<(String, Box<dyn std::io::BufRead>)> = vec![(
        "periods".to_owned(),
        Box::new(std::io::Cursor::new(capture)),
    )];
    let mut r = Replay::new(inputs, &ReplayOptions::default()).unwrap();
    let mut out = Vec::new();
    r.run(&mut out).unwrap();
    out
}

#[test]
fn a_replayed_capture_of_a_clock_without_the_period_is_said_at_move_40() {
    let line = long_game(86, 10);
    // The clock on the board is set to 5400+30; the event plays 40/5400+30:1800+30.
    let events = replay_bytes(capture_of(&line, "5400+30", CLASSICAL));
    assert_eq!(common::moves(&events).len(), 86, "every move followed");
    assert!(game_over(&events).is_empty());
    let m = mismatches(&events);
    let got: Vec<_> = m
        .iter()
        .map(|e| (e.color, e.reason, e.move_number, e.due_move))
        .collect();
    let not_added = MismatchReason::PeriodNotAdded;
    assert_eq!(
        got,
        [
            (Color::White, not_added, 40, 40),
            (Color::Black, not_added, 40, 40)
        ],
        "{m:#?}"
    );
    // The same capture read as a 5400+30 game: nothing to say.
    let events = replay_bytes(capture_of(&line, "5400+30", "5400+30"));
    assert!(mismatches(&events).is_empty());
}
