//! `[[board]] source = "livechess://HOST:PORT/SERIALNR"` end to end, against our own
//! LiveChess API: daemon A drives an emulated board on a pty and serves
//! `[livechess_api]`; daemon B has no serial port at all and follows A's board 1 over the
//! WebSocket feed. B's tracker sees the same placements A's board showed (as field
//! updates and dumps), so B records the same game: its PGN's moves and result equal A's
//! and the source game's.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use arbiter_daemon::demo::{GAMES, TIME_CONTROL};
use chess_rules::read_pgn;
use dgt_sim::hands::{generate, GameInput, HandOptions};

/// The shortest embedded game (Morphy's Opera game, 33 plies, ends in mate).
const GAME: usize = 2;

fn wait_for(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !ok() {
        assert!(Instant::now() < deadline, "{what}: not within {timeout:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The SAN moves and result of board 1's PGN in `out`.
fn pgn_game(out: &Path) -> (Vec<String>, String) {
    let path = out.join("pgn/round-2/board-1.pgn");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let games = read_pgn(text.as_bytes()).unwrap();
    assert_eq!(games.len(), 1, "{text}");
    let g = &games[0];
    (
        g.moves.iter().map(|m| m.san.clone()).collect(),
        format!("{:?}", g.result),
    )
}

#[test]
fn a_daemon_following_another_over_livechess_records_the_same_game() {
    let _serial = common::serial();
    let dir = common::temp_dir("livechess-source");
    let (dir_a, dir_b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&dir_a).unwrap();
    std::fs::create_dir_all(&dir_b).unwrap();
    // The game starts late enough for both daemons to be up (virtual ms; SPEED 3).
    let source = read_pgn(GAMES.as_bytes()).unwrap().remove(GAME);
    let script = generate(
        &GameInput::from_pgn(&source).unwrap(),
        &HandOptions {
            seed: 17,
            time_control: TIME_CONTROL,
            think_scale: 0.02,
            start_delay_ms: 45_000,
            ..HandOptions::default()
        },
    )
    .unwrap();
    let boards = common::Boards::serve(vec![script]);
    let config_a = common::config(
        &dir_a,
        &boards,
        "\n[livechess_api]\nbind = \"127.0.0.1:0\"\n",
    );
    let out_a = dir_a.join("out");
    let out_b = dir_b.join("out");
    let mut a = common::start(&config_a);
    let address = out_a.join("livechess-api-address");
    wait_for("A's livechess-api-address", Duration::from_secs(30), || {
        address.exists()
    });
    let url = std::fs::read_to_string(&address).unwrap();
    let host_port = url
        .trim()
        .trim_start_matches("ws://")
        .trim_end_matches("/api/v1.0")
        .to_owned();

    // B: the same event and timing, board 1 taken from A's feed (by its board number).
    let text_a = std::fs::read_to_string(&config_a).unwrap();
    let head = text_a.split("\n[[board]]").next().unwrap();
    let head = head.replace("\n[livechess_api]\nbind = \"127.0.0.1:0\"\n", "\n");
    let config_b = dir_b.join("arbiter.toml");
    std::fs::write(
        &config_b,
        format!(
            "{head}\n[[board]]\nnumber = 1\nsource = \"livechess://{host_port}/1\"\n\
             white = \"White1, Ann\"\nblack = \"Black1, Bo\"\n"
        ),
    )
    .unwrap();
    let mut b = common::start(&config_b);

    common::wait_events(&out_a, Duration::from_secs(300), "A: game over", |e| {
        e.iter().any(|e| e["kind"] == "game_over")
    });
    common::wait_events(&out_b, Duration::from_secs(60), "B: game over", |e| {
        e.iter().any(|e| e["kind"] == "game_over")
    });
    // The PGN sinks write after the event: wait until both files hold the result.
    wait_for("both PGNs with a result", Duration::from_secs(30), || {
        [&out_a, &out_b].iter().all(|o| {
            std::fs::read_to_string(o.join("pgn/round-2/board-1.pgn"))
                .is_ok_and(|t| t.contains("\n1-0") || t.contains(" 1-0"))
        })
    });
    assert!(common::terminate(&mut b));
    assert!(common::terminate(&mut a));

    let (moves_a, result_a) = pgn_game(&out_a);
    let (moves_b, result_b) = pgn_game(&out_b);
    let want: Vec<String> = source.moves.iter().map(|m| m.san.clone()).collect();
    assert_eq!(moves_a, want, "A recorded the game");
    assert_eq!(
        moves_b, moves_a,
        "B, following A over LiveChess, recorded the same"
    );
    assert_eq!(result_b, result_a);
    // B saw the board connect through the feed, and no illegal move was made up.
    let events_b = common::events(&out_b);
    assert!(
        !events_b.iter().any(|e| e["kind"] == "illegal_move"),
        "B ruled an illegal move that A's board never showed"
    );
    drop(boards);
    std::fs::remove_dir_all(&dir).ok();
}
