//! Boards are their serial numbers (issue 36): the real `dgt-arbiter run` with emulated
//! boards of known serials on ptys, behind symlinks that the test re-points as an arbiter
//! re-cables boards:
//! - two boards' cables swapped mid-game: each game continues on its own board, the
//!   arbiter is told (both serials and ports), nothing of one game is recorded in the
//!   other;
//! - a board no one configured (a spare) on a board's port: nothing recorded until the
//!   arbiter confirms it (`POST /api/boards/B/serial/S`), then it is that board;
//! - one serial on two ports: the second records nothing while the first has it.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chess_rules::Color;
use common::*;
use dgt_sim::{Action, BoardHandle, Emulator, EmulatorConfig, ServeOptions};
use serde_json::Value;

/// Emulated boards with these serials, each behind the hub's stable symlink
/// `links/board-N` (re-pointed when its cable is plugged back).
fn boards(dir: &Path, serials: &[&str]) -> (dgt_sim::Hub, Vec<BoardHandle>) {
    let mut hub = dgt_sim::Hub::new().unwrap();
    std::fs::create_dir_all(dir.join("links")).unwrap();
    let handles = serials
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let config = EmulatorConfig {
                serial: (*s).to_owned(),
                long_serial: format!("3.25A{s}"),
                ..EmulatorConfig::default()
            };
            hub.serve_pty(
                Emulator::new(config),
                ServeOptions {
                    link: Some(dir.join(format!("links/board-{}", i + 1))),
                    ..ServeOptions::default()
                },
            )
            .unwrap()
        })
        .collect();
    (hub, handles)
}

/// The daemon's port of board `n`: a symlink the test points at a board (`links/board-M`).
fn port(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("port-{n}"))
}

/// Cables port `n` to emulated board `m` (atomically, as udev re-points a link).
fn cable(dir: &Path, n: usize, m: usize) {
    let tmp = dir.join(format!("port-{n}.new"));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(dir.join(format!("links/board-{m}")), &tmp).unwrap();
    std::fs::rename(&tmp, port(dir, n)).unwrap();
}

/// A config with `count` boards on the ports `port-1`...
fn config(dir: &Path, count: usize) -> PathBuf {
    let mut s = String::from(
        "[event]\nname = \"Serials\"\nsite = \"Test hall\"\ndate = \"2025-06-12\"\nround = 2\n\
         time_control = \"300+3\"\n\n[output]\ndir = \"out\"\n\n[http]\nbind = \"127.0.0.1:0\"\n",
    );
    for n in 1..=count {
        s.push_str(&format!(
            "\n[[board]]\nnumber = {n}\nport = \"{}\"\nwhite = \"White{n}, Ann\"\n\
             black = \"Black{n}, Bo\"\nwhite_clock = \"left\"\n",
            port(dir, n).display()
        ));
    }
    let path = dir.join("arbiter.toml");
    std::fs::write(&path, s).unwrap();
    path
}

/// Polls `done` every 100 ms for up to `limit`.
fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        pause(100);
    }
}

/// The moves board `n`'s events hold (SAN).
fn board_moves(out: &Path, n: usize) -> Vec<String> {
    moves(&board_events(&events(out), n))
}

/// The daemon's warnings (`/api/state`), as text.
fn warnings(out: &Path) -> String {
    let host = http_host(out);
    let (_, state) = http_json(&host, "GET", "/api/state", &token_header(out), "");
    state["warnings"].to_string()
}

/// One move by hand on emulated board `h` (White moving: `color`), pressed; waits until
/// game `game` has `ply` moves.
fn play(out: &Path, h: &BoardHandle, game: usize, ply: usize, uci: &str, fen_piece: char) {
    let color = if ply % 2 == 1 {
        Color::White
    } else {
        Color::Black
    };
    shift(h, uci, fen_piece);
    h.apply(Action::PressClock(color));
    wait_until(
        Duration::from_secs(10),
        &format!("game {game}'s move {uci} (ply {ply})"),
        || board_moves(out, game).len() >= ply,
    );
}

/// Black's press on each board: White's time runs.
fn start_clocks(handles: &[BoardHandle]) {
    for h in handles {
        h.apply(Action::PressClock(Color::Black));
    }
    pause(300);
}

/// Plays `moves` (uci, piece) on `h` as plies `from`, `from + 1`... of game `game`.
fn play_all(out: &Path, h: &BoardHandle, game: usize, from: usize, moves: &[(&str, char)]) {
    for (i, (uci, piece)) in moves.iter().enumerate() {
        play(out, h, game, from + i, uci, *piece);
    }
}

/// Pulls the cables of `boards`, re-cables the ports as `ports` says (port, board), and
/// plugs the boards back.
fn recable(dir: &Path, handles: &[BoardHandle], boards: &[usize], ports: &[(usize, usize)]) {
    for b in boards {
        handles[b - 1].apply(Action::BoardCable { plugged: false });
    }
    pause(300);
    for (n, m) in ports {
        cable(dir, *n, *m);
    }
    for b in boards {
        handles[b - 1].apply(Action::BoardCable { plugged: true });
    }
}

/// No move of the board's events was rebuilt from lost events.
fn nothing_recovered(out: &Path, n: usize) {
    let all = events(out);
    let recovered: Vec<&Value> = board_events(&all, n)
        .into_iter()
        .filter(|e| e["kind"] == "move" && e["recovered"] == true)
        .collect();
    assert!(
        recovered.is_empty(),
        "board {n} recorded moves as recovered: {recovered:?}"
    );
}

/// The PGN's moves of board `n` (SAN), once the daemon stopped.
fn pgn_sans(out: &Path, n: usize) -> Vec<String> {
    let path = out.join(format!("pgn/round-2/board-{n}.pgn"));
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let games = chess_rules::read_pgn(&text).unwrap();
    games[0].replay().unwrap().san_moves()
}

const OPENING: [(&str, char); 4] = [("e2e4", 'P'), ("e7e5", 'p'), ("g1f3", 'N'), ("b8c6", 'n')];

#[test]
fn swapped_cables_keep_each_game_on_its_board() {
    let _one = serial();
    let dir = temp_dir("serial-swap");
    let (_hub, h) = boards(&dir, &["11111", "22222"]);
    cable(&dir, 1, 1);
    cable(&dir, 2, 2);
    let cfg = config(&dir, 2);
    let mut daemon = start(&cfg);
    let out = dir.join("out");
    wait_until(Duration::from_secs(20), "the dashboard", || {
        try_http_host(&out).is_some()
    });
    pause(1500);
    start_clocks(&h);
    // Board 1 at ply 4, board 2 at ply 6: the same opening, then board 2 goes on.
    play_all(&out, &h[0], 1, 1, &OPENING);
    play_all(&out, &h[1], 2, 1, &OPENING);
    play_all(&out, &h[1], 2, 5, &[("f1c4", 'B'), ("f8c5", 'b')]);

    // The cables swapped: board 1 (11111) on port 2, board 2 (22222) on port 1.
    recable(&dir, &h, &[1, 2], &[(1, 2), (2, 1)]);
    let (p1, p2) = (port(&dir, 1), port(&dir, 2));
    wait_until(Duration::from_secs(15), "a warning naming the swap", || {
        let w = warnings(&out);
        w.contains("Board 2 (serial 22222)")
            && w.contains("Board 1 (serial 11111)")
            && w.contains(&*p1.to_string_lossy())
            && w.contains(&*p2.to_string_lossy())
    });
    // Each board's status shows where it is now.
    wait_until(Duration::from_secs(10), "the boards' status", || {
        let host = http_host(&out);
        let (_, state) = http_json(&host, "GET", "/api/state", &token_header(&out), "");
        let at = |i: usize| {
            let b = &state["boards"][i];
            (
                b["serial"].as_str().map(str::to_owned),
                b["port"].to_string(),
            )
        };
        let ((s1, port1), (s2, port2)) = (at(0), at(1));
        s1.as_deref() == Some("11111")
            && s2.as_deref() == Some("22222")
            && port1.contains(&*p2.to_string_lossy())
            && port2.contains(&*p1.to_string_lossy())
    });
    pause(2000);
    // Each board goes on with its own game.
    play_all(&out, &h[0], 1, 5, &[("f1b5", 'B'), ("a7a6", 'p')]);
    play_all(&out, &h[1], 2, 7, &[("d2d3", 'P'), ("g8f6", 'n')]);
    pause(1500);

    let want_1 = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"];
    let want_2 = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "d3", "Nf6"];
    assert_eq!(board_moves(&out, 1), want_1);
    assert_eq!(board_moves(&out, 2), want_2);
    nothing_recovered(&out, 1);
    nothing_recovered(&out, 2);
    assert!(terminate(&mut daemon), "the daemon did not stop cleanly");
    assert_eq!(pgn_sans(&out, 1), want_1);
    assert_eq!(pgn_sans(&out, 2), want_2);
}

#[test]
fn an_unknown_serial_records_nothing_until_the_arbiter_confirms_it() {
    let _one = serial();
    let dir = temp_dir("serial-unknown");
    // Board 1 (11111) and a spare (33333) that no board of the event has.
    let (_hub, h) = boards(&dir, &["11111", "33333"]);
    cable(&dir, 1, 1);
    let cfg = config(&dir, 1);
    let mut daemon = start(&cfg);
    let out = dir.join("out");
    wait_until(Duration::from_secs(20), "the dashboard", || {
        try_http_host(&out).is_some()
    });
    pause(1500);
    start_clocks(&h);
    play_all(&out, &h[0], 1, 1, &OPENING[..2]);

    // The spare on board 1's port.
    h[0].apply(Action::BoardCable { plugged: false });
    pause(300);
    cable(&dir, 1, 2);
    let p1 = port(&dir, 1);
    wait_until(
        Duration::from_secs(15),
        "a warning naming the spare",
        || {
            let w = warnings(&out);
            w.contains("Serial 33333") && w.contains("11111") && w.contains(&*p1.to_string_lossy())
        },
    );
    // Moves on the spare (set up as board 1's game) are not board 1's game yet.
    for ((uci, piece), side) in OPENING[..2].iter().zip([Color::White, Color::Black]) {
        shift(&h[1], uci, *piece);
        h[1].apply(Action::PressClock(side));
    }
    pause(2500);
    assert_eq!(board_moves(&out, 1), ["e4", "e5"]);

    let host = http_host(&out);
    let token = token_header(&out);
    let (status, _) = http_json(&host, "POST", "/api/boards/1/serial/44444", &token, "");
    assert_eq!(status, 409, "a serial that does not answer there");
    let (status, body) = http_json(&host, "POST", "/api/boards/1/serial/33333", "", "");
    assert_ne!(status, 200, "no token: {body}");
    let (status, body) = http_json(&host, "POST", "/api/boards/1/serial/33333", &token, "");
    assert_eq!(status, 200, "{body}");
    wait_until(Duration::from_secs(10), "the warning cleared", || {
        !warnings(&out).contains("33333")
    });
    pause(1500);
    play(&out, &h[1], 1, 3, "g1f3", 'N');
    assert_eq!(board_moves(&out, 1), ["e4", "e5", "Nf3"]);
    nothing_recovered(&out, 1);
    assert!(terminate(&mut daemon), "the daemon did not stop cleanly");
}

#[test]
fn one_serial_on_two_ports_records_from_the_first_only() {
    let _one = serial();
    let dir = temp_dir("serial-twice");
    // Boards 1 and 2, and a second board answering with board 1's serial.
    let (_hub, h) = boards(&dir, &["11111", "22222", "11111"]);
    cable(&dir, 1, 1);
    cable(&dir, 2, 2);
    let cfg = config(&dir, 2);
    let mut daemon = start(&cfg);
    let out = dir.join("out");
    wait_until(Duration::from_secs(20), "the dashboard", || {
        try_http_host(&out).is_some()
    });
    pause(1500);
    start_clocks(&h);
    play_all(&out, &h[0], 1, 1, &OPENING[..2]);
    play_all(&out, &h[1], 2, 1, &OPENING[..2]);

    // Board 2's port now answers with 11111 too.
    recable(&dir, &h, &[2], &[(2, 3)]);
    let (p1, p2) = (port(&dir, 1), port(&dir, 2));
    wait_until(
        Duration::from_secs(15),
        "a warning naming both ports",
        || {
            let w = warnings(&out);
            w.contains("Serial 11111 answers on two ports")
                && w.contains(&*p1.to_string_lossy())
                && w.contains(&*p2.to_string_lossy())
        },
    );
    // The second one's moves are no game's; the first goes on.
    shift(&h[2], "d2d4", 'P');
    h[2].apply(Action::PressClock(Color::White));
    play(&out, &h[0], 1, 3, "g1f3", 'N');
    pause(2000);
    assert_eq!(board_moves(&out, 1), ["e4", "e5", "Nf3"]);
    assert_eq!(board_moves(&out, 2), ["e4", "e5"]);
    nothing_recovered(&out, 1);
    assert!(terminate(&mut daemon), "the daemon did not stop cleanly");
}
