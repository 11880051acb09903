//! A board's journal damaged while the daemon is down (`kill -9`, then the file damaged,
//! then the restart), with the game going on on an emulated board: a record in the middle
//! torn and run into the next, the header line lost, the file emptied. The journal never
//! invents: the daemon replays only what the remaining records prove, takes the events of
//! the inputs lost back from events.jsonl (the PGN keeps every move published), holds the
//! board out of sync naming the damage, rules nothing the live game did not rule, and
//! never writes a second version of a ply already in events.jsonl; the arbiter's
//! acceptance then numbers the game on from where it is known to have got.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use arbiter_demo::{GAMES, TIME_CONTROL};
use chess_rules::read_pgn;
use common::*;
use dgt_sim::hands::{generate, GameInput, HandOptions, Script};
use serde_json::Value;

/// Plies played in each game.
const PLIES: usize = 22;
/// The daemon is killed once the events hold this ply.
const KILL_AT_PLY: u64 = 10;

/// How the journal is damaged while the daemon is down.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// A placement in the second half of the file torn and run into the next record (a
    /// write cut short, the next one written after it on the same line).
    TornIntoNext,
    /// The header line gone.
    HeaderLost,
    /// The file emptied.
    Emptied,
}

impl Damage {
    /// Damages the journal at `path`; the words the board's status must then name.
    fn apply(self, path: &Path) -> &'static str {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        match self {
            Damage::TornIntoNext => {
                let i = (lines.len() / 2..lines.len() - 1)
                    .find(|&i| is_placement(&lines[i]))
                    .expect("a placement in the second half of the journal");
                let torn = lines[i][..lines[i].len() / 2].to_owned();
                lines[i + 1] = format!("{torn}{}", lines[i + 1]);
                lines.remove(i);
                std::fs::write(path, lines.join("\n") + "\n").unwrap();
                "damaged at line"
            }
            Damage::HeaderLost => {
                lines.remove(0);
                std::fs::write(path, lines.join("\n") + "\n").unwrap();
                "header is lost"
            }
            Damage::Emptied => {
                std::fs::write(path, "").unwrap();
                "is empty"
            }
        }
    }
}

/// Whether a journal line is a board event putting a piece down.
fn is_placement(line: &str) -> bool {
    fn find(v: &Value) -> bool {
        match v {
            Value::Object(m) => {
                (m.get("kind").and_then(Value::as_str) == Some("field")
                    && m.get("piece").and_then(Value::as_str) != Some("."))
                    || m.values().any(find)
            }
            _ => false,
        }
    }
    serde_json::from_str::<Value>(line).is_ok_and(|v| find(&v))
}

/// A demo game cut at `PLIES`, at a pace that leaves the restart room within the game.
fn game_script() -> Script {
    let games = read_pgn(GAMES.as_bytes()).unwrap();
    let mut input = GameInput::from_pgn(&games[0]).unwrap();
    input.moves.truncate(PLIES);
    generate(
        &input,
        &HandOptions {
            seed: 36,
            time_control: TIME_CONTROL,
            think_scale: 0.02,
            min_think_ms: 1500,
            start_delay_ms: 6000,
            ..HandOptions::default()
        },
    )
    .unwrap()
}

fn highest_ply(events: &[Value]) -> u64 {
    events
        .iter()
        .filter(|e| e["kind"] == "move")
        .filter_map(|e| e["ply"].as_u64())
        .max()
        .unwrap_or(0)
}

/// Plays the game, kills the daemon at `KILL_AT_PLY`, damages the journal, restarts, and
/// checks what the daemon wrote.
fn run(damage: Damage) {
    let _serial = serial();
    let dir = temp_dir(&format!("journal-{damage:?}"));
    let links = dir.join("dev");
    std::fs::create_dir_all(&links).unwrap();
    let script = game_script();
    let want: Vec<String> = script.plies.iter().map(|p| p.mv.uci()).collect();
    let boards = Boards::serve_linked(vec![script], Some(&links));
    let cfg = config(&dir, &boards, "");
    let out = dir.join("out");
    let mut daemon = start(&cfg);
    wait_events(&out, Duration::from_secs(120), "the kill's ply", |ev| {
        highest_ply(ev) >= KILL_AT_PLY
    });
    daemon.kill().unwrap(); // SIGKILL
    daemon.wait().unwrap();
    let published = highest_ply(&events(&out));
    let named = damage.apply(&out.join("journal/round-2/board-1.jsonl"));
    let mut daemon = start(&cfg);
    let longest = boards.scripts[0].end_ms;
    boards.wait_done(Duration::from_secs_f64(
        longest as f64 / 1000.0 / SPEED + 60.0,
    ));
    std::thread::sleep(Duration::from_secs(3));
    let log_path = cfg.with_extension("log");
    let ev = events(&out);
    let b = board_events(&ev, 1);

    // No ruling the live game did not have.
    let rulings: Vec<&&Value> = b
        .iter()
        .filter(|e| e["kind"] == "illegal_move" || e["kind"] == "illegal_move_stands")
        .collect();
    assert!(rulings.is_empty(), "{damage:?}: false rulings {rulings:?}");
    let pgn_path = out.join("pgn/round-2/board-1.pgn");
    let pgn = std::fs::read_to_string(&pgn_path).unwrap();
    assert!(
        !pgn.to_lowercase().contains("illegal"),
        "{damage:?}: a false ruling in the PGN: {pgn}"
    );
    // Each event once, and each ply's move once (a correction names the move it
    // replaces), as played.
    let seqs: Vec<u64> = b.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "{damage:?}: seq not increasing {seqs:?}"
    );
    let mut by_ply: BTreeMap<u64, String> = BTreeMap::new();
    for e in b.iter().filter(|e| e["kind"] == "move") {
        let ply = e["ply"].as_u64().unwrap();
        let uci = e["uci"].as_str().unwrap().to_owned();
        if let Some(first) = by_ply.get(&ply) {
            assert_eq!(
                e["replaces"].as_str(),
                Some(first.as_str()),
                "{damage:?}: a second version of ply {ply}: {e}"
            );
        }
        by_ply.insert(ply, uci);
    }
    for (ply, uci) in &by_ply {
        assert_eq!(
            Some(uci),
            want.get(*ply as usize - 1),
            "{damage:?}: ply {ply} recorded otherwise than played"
        );
    }
    // The moves published before the kill are kept.
    assert!(
        (1..=published).all(|p| by_ply.contains_key(&p)),
        "{damage:?}: plies 1 to {published} published, now {by_ply:?}"
    );
    // Out of sync, naming the damage.
    let sync = b
        .iter()
        .rfind(|e| {
            e["kind"] == "board_status"
                && (e["status"] == "out_of_sync" || e["status"] == "in_sync")
        })
        .unwrap_or_else(|| panic!("{damage:?}: no sync status"));
    assert_eq!(sync["status"], "out_of_sync", "{damage:?}: {sync}");
    let detail = sync["detail"].as_str().unwrap_or_default();
    eprintln!("{damage:?}: published to ply {published}; out of sync: {detail}");
    assert!(
        detail.contains(named),
        "{damage:?}: {detail:?} names no {named:?}"
    );
    // The PGN: the moves published before the kill, those the journal proves replayed,
    // the rest taken back from events.jsonl; nothing after them while the board is held.
    let games = read_pgn(pgn.as_bytes()).unwrap();
    let moves: Vec<String> = games[0]
        .replay()
        .unwrap()
        .moves()
        .iter()
        .map(|m| m.uci())
        .collect();
    assert_eq!(
        moves[..],
        want[..published as usize],
        "{damage:?}: the PGN's moves"
    );
    if let Damage::TornIntoNext = damage {
        let proven = detail
            .split("journal proves: ply ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no proven ply in {detail:?}"));
        assert!(proven <= published, "{detail}");
    }

    // The arbiter accepts what the board shows: the game numbers on from where it is
    // known to have got, never over the plies already written.
    let side = if want.len() % 2 == 0 {
        "white"
    } else {
        "black"
    };
    let (code, body) = http_json(
        &http_host(&out),
        "POST",
        &format!("/api/boards/1/accept/{side}"),
        &token_header(&out),
        "",
    );
    assert_eq!(code, 200, "{damage:?}: {body}");
    wait_events(&out, Duration::from_secs(10), "position_accepted", |ev| {
        ev.iter().any(|e| e["kind"] == "position_accepted")
    });
    let ev = events(&out);
    let accepted = ev
        .iter()
        .find(|e| e["kind"] == "position_accepted")
        .unwrap();
    eprintln!("{damage:?}: {accepted}");
    assert!(
        accepted["ply"].as_u64().unwrap() >= published,
        "{damage:?}: accepted at {accepted} below ply {published} already written"
    );
    assert!(terminate(&mut daemon), "exit status 0 on SIGTERM");
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        !log.contains("panicked"),
        "a panic in {}",
        log_path.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_record_torn_into_the_next_holds_the_board_and_rules_nothing() {
    run(Damage::TornIntoNext);
}

#[test]
fn a_journal_without_its_header_holds_the_board_and_invents_no_game() {
    run(Damage::HeaderLost);
}

#[test]
fn an_emptied_journal_holds_the_board_and_invents_no_game() {
    run(Damage::Emptied);
}
