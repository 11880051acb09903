//! Unattended rulings end to end: the real `dgt-arbiter` binary with two emulated boards
//! (a DGT board and a DGT3000 each) on ptys, both `unattended = true`, played by hand from
//! this test in real time. Everything the daemon tells the clocks is read back from the
//! emulators: the texts on their displays (sampled every few ms) and the clock commands
//! on the line (the emulator's capture of the host's bytes, decoded).
//!
//! Board 1: 1. e4 e5, then White's bishop f1-f3 through its own pawn, pressed:
//! - the clock stops (set-and-run, paused, White's side), shows `ILLEGAL`, then `RESTORE`;
//! - the ACK of the restart is lost on the line: the daemon resends it;
//! - once the bishop is back on f1 the clock runs White's side with White's time of
//!   before the press (the increment of the illegal press taken off) and Black's time
//!   plus the one-minute penalty;
//! - the game goes on under host control (the daemon adds the increments), and White's
//!   second illegal move stops the clock, which shows `ILLEGAL` and then `0-1 ILLG`.
//!
//! Board 2: fool's mate; the clock stops and shows `0-1 MATE`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use chess_rules::Color;
use common::{pause, serial, shift, temp_dir};
use dgt_protocol::capture::Direction;
use dgt_protocol::{ClockCommand, ClockSide, CommandDecoder, HostCommand};
use dgt_sim::{Action, BoardHandle, Emulator};
use serde_json::Value;

/// How long a ruling's text stays on the clock before the next one (config).
const TEXT_HOLD_MS: u64 = 300;
/// The driver's wait for a clock ACK before it resends (dgt-serial's default).
const ACK_TIMEOUT: Duration = Duration::from_secs(2);
/// What the clock times may differ from the expectation: the clock frames the tracker
/// reads show whole seconds (rounded up), and the clock commands set whole seconds.
const SLACK_MS: i64 = 1_500;

/// One clock command the daemon sent, in a few words.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Sent {
    /// Set-and-run: left and right in whole seconds, the running side, paused.
    Set {
        left: u32,
        right: u32,
        runs: Option<ClockSide>,
        paused: bool,
    },
    Text(String),
    End,
}

/// A text as the clock shows it (8 characters, padded with spaces), without the padding.
fn shown(text: &str) -> String {
    text.trim_end().to_owned()
}

/// What one emulated clock showed and was told, as the test saw it.
struct Watch<'a> {
    board: &'a BoardHandle,
    decoder: CommandDecoder,
    /// Each change of the display's text (`None`: the times).
    texts: Vec<Option<String>>,
    /// The clock commands from the host, in order.
    sent: Vec<Sent>,
}

impl<'a> Watch<'a> {
    fn new(board: &'a BoardHandle) -> Watch<'a> {
        board.with(|e| e.record_capture());
        Watch {
            board,
            decoder: CommandDecoder::new(),
            texts: vec![None],
            sent: Vec::new(),
        }
    }

    /// Takes in what happened since the last look.
    fn sample(&mut self) {
        let (text, capture) = self
            .board
            .with(|e| (e.display_text().map(shown), e.take_capture()));
        for r in capture.iter().filter(|r| r.direction == Direction::ToBoard) {
            for c in self.decoder.push(&r.bytes) {
                let sent = match c.expect("the daemon's bytes decode") {
                    HostCommand::Clock(ClockCommand::SetAndRun { left, right, mode }) => {
                        Sent::Set {
                            left: left.secs(),
                            right: right.secs(),
                            runs: mode.runs,
                            paused: mode.paused,
                        }
                    }
                    HostCommand::Clock(ClockCommand::Ascii { text, .. }) => {
                        Sent::Text(shown(text.as_str()))
                    }
                    HostCommand::Clock(ClockCommand::End) => Sent::End,
                    _ => continue,
                };
                self.sent.push(sent);
            }
        }
        if self.texts.last() != Some(&text) {
            self.texts.push(text);
        }
    }

    /// The commands sent since the last call.
    fn take_sent(&mut self) -> Vec<Sent> {
        self.sample();
        std::mem::take(&mut self.sent)
    }

    /// Samples every 5 ms until `done` holds for the emulator (or panics after `limit`).
    fn until(&mut self, limit: Duration, what: &str, mut done: impl FnMut(&mut Emulator) -> bool) {
        let deadline = Instant::now() + limit;
        loop {
            self.sample();
            if self.board.with(&mut done) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {limit:?}; texts {:?}, commands {:?}",
                self.texts,
                self.sent
            );
            pause(5);
        }
    }

    /// Samples until `n` commands were sent since the last [`Watch::take_sent`].
    fn until_sent(&mut self, n: usize, limit: Duration) {
        let deadline = Instant::now() + limit;
        self.sample();
        while self.sent.len() < n {
            assert!(
                Instant::now() < deadline,
                "{n} clock commands not within {limit:?}: {:?}",
                self.sent
            );
            pause(5);
            self.sample();
        }
    }

    /// The texts shown since the start, without the time display between them.
    fn shown(&self) -> Vec<&str> {
        self.texts.iter().flatten().map(String::as_str).collect()
    }
}

/// Both players' exact remaining times, ms.
fn times(b: &BoardHandle) -> (i64, i64) {
    b.with(|e| {
        (
            e.remaining(Color::White).as_millis() as i64,
            e.remaining(Color::Black).as_millis() as i64,
        )
    })
}

fn near(what: &str, got: i64, want: i64) {
    assert!(
        (got - want).abs() <= SLACK_MS,
        "{what}: {got} ms, expected {want} ms (± {SLACK_MS})"
    );
}

/// Events of board `board` of kind `kind` in the daemon's event stream.
fn count(out: &Path, board: usize, kind: &str) -> usize {
    common::board_events(&common::events(out), board)
        .iter()
        .filter(|e| e["kind"] == kind)
        .count()
}

/// The last event of board `board` of kind `kind`.
fn last(out: &Path, board: usize, kind: &str) -> Value {
    common::board_events(&common::events(out), board)
        .into_iter()
        .rfind(|e| e["kind"] == kind)
        .cloned()
        .unwrap_or(Value::Null)
}

/// Waits until board `board` has `n` events of kind `kind`.
fn wait_for(out: &Path, board: usize, kind: &str, n: usize) {
    common::wait_events(
        out,
        Duration::from_secs(5),
        &format!("{n} {kind} event(s) of board {board}"),
        |ev| {
            common::board_events(ev, board)
                .iter()
                .filter(|e| e["kind"] == kind)
                .count()
                >= n
        },
    );
}

/// A legal move completed by the mover's press; waits until the daemon has it.
fn play(b: &BoardHandle, out: &Path, board: usize, color: Color, uci: &str, fen_piece: char) {
    let before = count(out, board, "move");
    shift(b, uci, fen_piece);
    b.apply(Action::PressClock(color));
    wait_for(out, board, "move", before + 1);
}

fn start_daemon(dir: &Path, boards: &[BoardHandle]) -> common::DaemonProcess {
    let mut text = format!(
        "[event]\nname = \"Club blitz\"\nsite = \"Club\"\nround = 1\ntime_control = \"300+3\"\n\
         [output]\ndir = \"out\"\n[http]\nenabled = false\n\
         [timing]\nsettle_window_ms = 100\ntwo_handed_window_ms = 40\nruling_text_ms = {TEXT_HOLD_MS}\n"
    );
    for (i, b) in boards.iter().enumerate() {
        text.push_str(&format!(
            "[[board]]\nnumber = {}\nport = \"{}\"\nwhite = \"White{0}, Ann\"\nblack = \"Black{0}, Bo\"\n\
             white_clock = \"left\"\nunattended = true\n",
            i + 1,
            b.pty_path().unwrap().display()
        ));
    }
    let config = dir.join("arbiter.toml");
    std::fs::write(&config, text).unwrap();
    common::start(&config)
}

#[test]
fn the_clock_rules_alone_on_illegal_moves_and_game_ends() {
    let _guard = serial();
    let started = Instant::now();
    let dir = temp_dir("unattended");
    let out = dir.join("out");
    let (hub, boards) = common::hand_boards(2);
    let mut daemon = start_daemon(&dir, &boards);
    for board in [1, 2] {
        common::wait_events(
            &out,
            Duration::from_secs(20),
            &format!("board {board} connected"),
            |ev| {
                common::board_events(ev, board)
                    .iter()
                    .any(|e| e["kind"] == "board_status" && e["status"] == "connected")
            },
        );
    }
    pause(300);
    let (white, black) = (Color::White, Color::Black);

    // Board 1: 1. e4 e5.
    let b1 = &boards[0];
    let mut w1 = Watch::new(b1);
    b1.apply(Action::PressClock(black)); // Black's press starts White's time.
    pause(150);
    play(b1, &out, 1, white, "e2e4", 'P');
    play(b1, &out, 1, black, "e7e5", 'p');
    assert!(w1.take_sent().is_empty(), "nothing for the clock yet");

    // 2. Bf1-f3?, pressed.
    shift(b1, "f1f3", 'B');
    let (w0, b0) = times(b1);
    b1.apply(Action::PressClock(white));
    w1.until(Duration::from_secs(5), "RESTORE on the clock", |e| {
        e.display_text().map(shown).as_deref() == Some("RESTORE")
    });
    assert_eq!(w1.shown(), ["ILLEGAL", "RESTORE"]);
    let illegal = last(&out, 1, "illegal_move");
    assert_eq!(illegal["count"], 1, "{illegal}");
    let stop = w1.take_sent();
    assert_eq!(stop.len(), 3, "{stop:?}");
    let Sent::Set {
        left,
        right,
        runs,
        paused,
    } = stop[0]
    else {
        panic!("the clock is not stopped first: {stop:?}");
    };
    // Stopped at the times of the press (White's with the increment the press added).
    assert_eq!((runs, paused), (Some(ClockSide::Left), true));
    near(
        "White's time on the stopped clock",
        i64::from(left) * 1000,
        w0 + 3000,
    );
    near(
        "Black's time on the stopped clock",
        i64::from(right) * 1000,
        b0,
    );
    assert_eq!(
        stop[1..],
        [Sent::Text("ILLEGAL".into()), Sent::Text("RESTORE".into())]
    );
    b1.with(|e| assert!(!e.clock_running(), "the clock runs while RESTORE shows"));
    // A press while the ruling waits is no press: no move, no second illegal move.
    b1.apply(Action::PressClock(white));
    pause(200);
    assert_eq!(count(&out, 1, "move"), 2);
    assert_eq!(count(&out, 1, "illegal_move"), 1);

    // The bishop goes back to f1; the restart's ACK is lost on the line.
    b1.with(|e| e.drop_next_acks(1));
    let lost_at = Instant::now();
    shift(b1, "f3f1", 'B');
    w1.until(
        ACK_TIMEOUT + Duration::from_secs(5),
        "the clock back on the times after the restart",
        |e| e.clock_running() && e.display_text().is_none(),
    );
    let resent_after = lost_at.elapsed();
    let restart = w1.take_sent();
    let penalty_white = w0;
    let penalty_black = b0 + 60_000;
    match restart.as_slice() {
        [set @ Sent::Set {
            left,
            right,
            runs: Some(ClockSide::Left),
            paused: false,
        }, again, Sent::End]
            if again == set =>
        {
            near(
                "White's corrected time",
                i64::from(*left) * 1000,
                penalty_white,
            );
            near(
                "Black's corrected time",
                i64::from(*right) * 1000,
                penalty_black,
            );
        }
        other => panic!("not the restart, resent once, then the times: {other:?}"),
    }
    assert!(
        resent_after >= ACK_TIMEOUT,
        "the restart was done {resent_after:?} after the restoration: no resend?"
    );
    assert_eq!(count(&out, 1, "restored"), 1);
    // White's clock runs, from White's time before the illegal press.
    let (w, b) = times(b1);
    b1.with(|e| assert_eq!(e.lever(), e.side_of(white), "White's side runs"));
    near("White's time after the restart", w, penalty_white);
    near("Black's time after the restart", b, penalty_black);

    // 2. Bc4 (the bishop touched must move) Nc6: the daemon adds the increments now.
    shift(b1, "f1c4", 'B');
    let (w_press, _) = times(b1);
    b1.apply(Action::PressClock(white));
    wait_for(&out, 1, "move", 3);
    play(b1, &out, 1, black, "b8c6", 'n');
    w1.until_sent(2, Duration::from_secs(3));
    let steps = w1.take_sent();
    assert_eq!(steps.len(), 2, "one set-and-run a press: {steps:?}");
    match steps[0] {
        Sent::Set {
            left,
            runs: Some(ClockSide::Right),
            paused: false,
            ..
        } => near(
            "White's time after Bc4, increment added",
            i64::from(left) * 1000,
            w_press + 3000,
        ),
        ref other => panic!("not Black's clock started after Bc4: {other:?}"),
    }

    // 3. Bc4-c5?: the second illegal move ends the game.
    shift(b1, "c4c5", 'B');
    b1.apply(Action::PressClock(white));
    w1.until(Duration::from_secs(5), "the result on the clock", |e| {
        e.display_text().map(shown).as_deref() == Some("0-1 ILLG")
    });
    assert_eq!(w1.shown(), ["ILLEGAL", "RESTORE", "ILLEGAL", "0-1 ILLG"]);
    let end = w1.take_sent();
    assert!(
        matches!(
            end.as_slice(),
            [Sent::Set { runs: None, paused: true, .. }, Sent::Text(a), .., Sent::Text(b)]
                if a == "ILLEGAL" && b == "0-1 ILLG"
        ),
        "{end:?}"
    );
    b1.with(|e| assert!(!e.clock_running(), "the clock still runs after the game"));
    let over = last(&out, 1, "game_over");
    assert_eq!(
        (over["result"].as_str(), over["reason"].as_str()),
        (Some("0-1"), Some("second_illegal_move")),
        "{over}"
    );

    // Board 2: 1. f3 e5 2. g4 Qh4#.
    let b2 = &boards[1];
    let mut w2 = Watch::new(b2);
    b2.apply(Action::PressClock(black));
    pause(150);
    play(b2, &out, 2, white, "f2f3", 'P');
    play(b2, &out, 2, black, "e7e5", 'p');
    play(b2, &out, 2, white, "g2g4", 'P');
    shift(b2, "d8h4", 'q');
    b2.apply(Action::PressClock(black));
    w2.until(Duration::from_secs(5), "the mate on the clock", |e| {
        e.display_text().map(shown).as_deref() == Some("0-1 MATE")
    });
    b2.with(|e| assert!(!e.clock_running(), "the clock runs after the mate"));
    assert_eq!(w2.shown(), ["0-1 MATE"]);
    let end = w2.take_sent();
    assert!(
        matches!(
            end.as_slice(),
            [Sent::Set { runs: None, paused: true, .. }, Sent::Text(t)] if t == "0-1 MATE"
        ),
        "{end:?}"
    );

    assert!(common::terminate(&mut daemon), "the daemon stopped cleanly");
    eprintln!(
        "displays: board 1 {:?}, board 2 {:?}; the lost ACK's restart came {resent_after:?} after the restoration; {:?} in all",
        w1.shown(),
        w2.shown(),
        started.elapsed()
    );
    drop(boards);
    drop(hub);
    std::fs::remove_dir_all(&dir).unwrap();
}
