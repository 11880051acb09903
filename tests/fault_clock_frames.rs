//! Issue 36 (clock facts): single bad clock frames on a running game, end to end. The real
//! `dgt-arbiter` binary with an emulated board and DGT3000 on a pty, `unattended = true`
//! (so the daemon would write a ruling on the clock). Into the line go, between the
//! clock's own frames: the frame of the issue (the running side's "flag fell" bit while
//! its time shows minutes), a flag frame at 0:00 the next frames contradict, and a frame
//! with the lever flipped while nobody moved. The protocol has no checksum: each is noise.
//! No game end, no penalty, nothing written to the clock; the game goes on.

mod common;

use std::path::Path;
use std::time::Duration;

use chess_rules::Color;
use common::{pause, serial, shift, temp_dir};
use dgt_protocol::capture::Direction;
use dgt_protocol::{BoardMessage, ClockSide, ClockTime, CommandDecoder, Hms, HostCommand};
use dgt_sim::{Action, BoardHandle};

fn count(out: &Path, kind: &str) -> usize {
    common::board_events(&common::events(out), 1)
        .iter()
        .filter(|e| e["kind"] == kind)
        .count()
}

/// A legal move completed by the mover's press; waits until the daemon has it.
fn play(b: &BoardHandle, out: &Path, color: Color, uci: &str, fen_piece: char) {
    let before = count(out, "move");
    shift(b, uci, fen_piece);
    b.apply(Action::PressClock(color));
    common::wait_events(out, Duration::from_secs(5), uci, |ev| {
        common::board_events(ev, 1)
            .iter()
            .filter(|e| e["kind"] == "move")
            .count()
            > before
    });
}

/// The clock's current frame, changed by `edit`, put on the line as it stands.
fn inject(b: &BoardHandle, edit: impl FnOnce(&mut ClockTime)) {
    let mut frame = b.with(|e| e.clock_time());
    edit(&mut frame);
    b.apply(Action::LineNoise(BoardMessage::ClockTime(frame).encode()));
    // The clock's own frames (one a second while it runs) follow and contradict it.
    pause(2500);
}

/// The clock commands the daemon sent to the board (decoded from the emulator's capture).
fn clock_commands(b: &BoardHandle) -> Vec<String> {
    let mut decoder = CommandDecoder::new();
    b.with(|e| e.take_capture())
        .iter()
        .filter(|r| r.direction == Direction::ToBoard)
        .flat_map(|r| decoder.push(&r.bytes))
        .filter_map(|c| match c {
            Ok(HostCommand::Clock(cmd)) => Some(format!("{cmd:?}")),
            _ => None,
        })
        .collect()
}

#[test]
fn single_flag_and_lever_frames_are_noise_not_rulings() {
    let _guard = serial();
    let dir = temp_dir("fault-clock-frames");
    let out = dir.join("out");
    let (_hub, boards) = common::hand_boards(1);
    let b = &boards[0];
    let text = format!(
        "[event]\nname = \"Club blitz\"\nsite = \"Club\"\nround = 1\ntime_control = \"300+0\"\n\
         [output]\ndir = \"out\"\n[http]\nenabled = false\n[timing]\nsettle_window_ms = 100\n\
         [[board]]\nnumber = 1\nport = \"{}\"\nwhite = \"White, Ann\"\nblack = \"Black, Bo\"\n\
         white_clock = \"left\"\nunattended = true\n",
        b.pty_path().unwrap().display()
    );
    let config = dir.join("arbiter.toml");
    std::fs::write(&config, text).unwrap();
    let mut daemon = common::start(&config);
    common::wait_events(&out, Duration::from_secs(20), "board connected", |ev| {
        common::board_events(ev, 1)
            .iter()
            .any(|e| e["kind"] == "board_status" && e["status"] == "connected")
    });
    pause(300);
    b.with(|e| e.record_capture());
    b.apply(Action::PressClock(Color::Black)); // Black's press starts White's time.
    pause(150);
    play(b, &out, Color::White, "e2e4", 'P');
    play(b, &out, Color::Black, "e7e5", 'p');
    // White (left) to move, his time running.
    assert_eq!(b.with(|e| e.lever()), ClockSide::Left);

    // The frame: the left side's "flag fell" bit while it shows minutes.
    inject(b, |f| f.left.flag_fallen = true);
    // A flag at 0:00 in one frame, the clock's next frames show the time running.
    inject(b, |f| {
        f.left.time = Hms::from_secs(0).unwrap();
        f.left.flag_fallen = true;
        f.running = false;
    });
    // The lever flipped in one frame, nobody moved; twice (a second would lose the game).
    inject(b, |f| f.lever = ClockSide::Right);
    inject(b, |f| f.lever = ClockSide::Right);

    assert_eq!(count(&out, "game_over"), 0, "a single frame ended the game");
    assert_eq!(
        count(&out, "illegal_move"),
        0,
        "a single lever frame was a press"
    );
    assert_eq!(
        clock_commands(b),
        Vec::<String>::new(),
        "unattended wrote to the clock on one frame"
    );
    // The game goes on.
    play(b, &out, Color::White, "g1f3", 'N');
    assert_eq!(count(&out, "move"), 3);
    assert!(common::terminate(&mut daemon), "the daemon did not stop");
}
