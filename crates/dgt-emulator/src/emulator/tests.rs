//! The emulated DGT3000 with periods: what each press adds by the clock's own count.

use super::*;

/// A game on the emulated clock: each move takes a second of its player's time.
struct Game {
    emu: Emulator,
    t: u64,
}

impl Game {
    fn new(control: &str) -> Game {
        let control: TimeControl = control.parse().expect("a valid control");
        let mut emu = Emulator::new(EmulatorConfig::default().with_time_control(control));
        // Black's press starts White's time; it is no move.
        emu.apply_at(0, &Action::PressClock(Color::Black));
        Game { emu, t: 0 }
    }

    /// `color` thinks a second and presses; what the press added to his time, ms.
    fn press(&mut self, color: Color) -> u64 {
        self.t += 1000;
        self.emu.advance_to(self.t);
        let before = self.emu.remaining(color);
        self.emu.apply(&Action::PressClock(color));
        let after = self.emu.remaining(color);
        after.saturating_sub(before).as_millis() as u64
    }

    /// A full move (White, then Black); White's gain.
    fn full_move(&mut self) -> u64 {
        let gain = self.press(Color::White);
        self.press(Color::Black);
        gain
    }

    /// White's illegal move, pressed (the clock counts it); the arbiter stops the clock,
    /// hands the move back (Black's lever, clock stopped) and restarts it, taking the
    /// counter back by one when `take_back`.
    fn illegal_white_press(&mut self, take_back: bool) -> u64 {
        let gain = self.press(Color::White);
        self.emu.apply(&Action::PauseClock);
        if take_back {
            let count = self.emu.move_count(Color::White).previous();
            self.emu.apply(&Action::SetMoveCounter {
                color: Color::White,
                count,
            });
        }
        self.emu.apply(&Action::PressClock(Color::Black));
        self.emu.apply(&Action::PauseClock);
        gain
    }

    /// White's gains over `moves` full moves, by White's move number (1-based).
    fn gains(&mut self, moves: u32) -> Vec<(u32, u64)> {
        (1..=moves).map(|n| (n, self.full_move())).collect()
    }
}

/// The moves (1-based) at whose press a gain other than the plain increment came.
fn periods_at(gains: &[(u32, u64)], increment_ms: u64) -> Vec<(u32, u64)> {
    gains
        .iter()
        .filter(|(_, g)| *g != increment_ms)
        .copied()
        .collect()
}

#[test]
fn the_second_period_is_added_at_the_press_that_completes_move_40() {
    let mut game = Game::new("40/5400+30:1800+30");
    let gains = game.gains(45);
    assert_eq!(periods_at(&gains, 30_000), [(40, 1_830_000)]);
    assert_eq!(game.emu.move_count(Color::White), MoveCount(45));
    assert_eq!(game.emu.period(Color::White), PeriodIndex(1));
    assert_eq!(game.emu.period(Color::Black), PeriodIndex(1));
    // Black's clock has had his own second period.
    assert!(game.emu.remaining(Color::Black) > Duration::from_secs(5400 + 1800));
}

#[test]
fn a_counted_illegal_press_brings_the_period_one_move_early() {
    let mut game = Game::new("40/5400+30:1800+30");
    let mut gains = game.gains(10);
    // White's 11th move is first an illegal one: its press is counted, then the move
    // is replaced and pressed again.
    assert_eq!(game.illegal_white_press(false), 30_000);
    gains.extend(game.gains(34).into_iter().map(|(n, g)| (n + 10, g)));
    assert_eq!(periods_at(&gains, 30_000), [(39, 1_830_000)]);
    assert_eq!(game.emu.move_count(Color::White), MoveCount(45));
}

#[test]
fn the_counter_taken_back_by_one_brings_the_period_at_move_40() {
    let mut game = Game::new("40/5400+30:1800+30");
    let mut gains = game.gains(10);
    game.illegal_white_press(true);
    assert_eq!(game.emu.move_count(Color::White), MoveCount(10));
    gains.extend(game.gains(34).into_iter().map(|(n, g)| (n + 10, g)));
    assert_eq!(periods_at(&gains, 30_000), [(40, 1_830_000)]);
}

#[test]
fn a_counter_set_back_after_the_period_came_does_not_add_it_twice() {
    let mut game = Game::new("40/5400+30:1800+30");
    game.gains(10);
    game.illegal_white_press(false);
    let gains = game.gains(29);
    assert_eq!(
        gains.last().map(|g| g.1),
        Some(1_830_000),
        "early, at move 39"
    );
    // The arbiter notices late and takes the counter back: move 40 adds no second time.
    game.emu.apply(&Action::SetMoveCounter {
        color: Color::White,
        count: MoveCount(39),
    });
    assert_eq!(game.full_move(), 30_000);
}

#[test]
fn a_repeating_last_period_is_added_every_forty_moves() {
    let mut game = Game::new("40/7200");
    let gains = game.gains(125);
    assert_eq!(
        periods_at(&gains, 0),
        [(40, 7_200_000), (80, 7_200_000), (120, 7_200_000)]
    );
    assert_eq!(game.emu.period(Color::White), PeriodIndex(3));
}

#[test]
fn each_period_adds_its_own_increment() {
    let mut game = Game::new("40/5400+30:20/1800+10:600+5");
    let gains = game.gains(65);
    // Moves 1-40 gain 30 s, 41-60 10 s, then 5 s; the periods come with the increment
    // of the period they end.
    let expected: Vec<(u32, u64)> = (1..=65)
        .map(|n| match n {
            40 => (n, 30_000 + 1_800_000),
            60 => (n, 10_000 + 600_000),
            1..=39 => (n, 30_000),
            41..=59 => (n, 10_000),
            _ => (n, 5_000),
        })
        .collect();
    assert_eq!(gains, expected);
    assert!(game.emu.clock_time().left.time_per_move);
}

#[test]
fn a_press_missed_brings_the_period_one_move_late() {
    let mut game = Game::new("40/5400:1800");
    let mut gains = game.gains(19);
    // White makes his 20th move without pressing; Black replies and presses, but his
    // lever is down (White's time still runs): only White's press after his 21st move
    // is counted, one press for two moves.
    assert_eq!(game.press(Color::Black), 0);
    gains.extend(game.gains(25).into_iter().map(|(n, g)| (n + 20, g)));
    assert_eq!(periods_at(&gains, 0), [(41, 1_800_000)]);
}

#[test]
fn a_host_setting_the_clock_takes_it_out_of_the_periods() {
    let mut game = Game::new("2/600+5:300+5");
    game.emu.receive(
        &HostCommand::Clock(ClockCommand::SetAndRun {
            left: Hms::from_secs(500).unwrap_or(Hms::MAX),
            right: Hms::from_secs(500).unwrap_or(Hms::MAX),
            mode: dgt_protocol::SetAndRunMode {
                runs: Some(ClockSide::Left),
                paused: false,
                switch_on_lever: true,
            },
        })
        .encode(),
    );
    let gains = game.gains(3);
    assert_eq!(gains, [(1, 0), (2, 0), (3, 0)]);
}
