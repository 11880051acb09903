//! Records the emulator captures kept in the repository
//! (`crates/test-data/data/dgt-captures/emulator/`): real games from the Lichess database
//! (CC0, the repository's copy of `lichess_db_1000k.pgn`) played by the seeded hand-motion
//! generator with realistic hands on the emulated board and clock, with the host's two
//! start commands, every byte both ways recorded with its virtual time. Beside each
//! `<name>.dgtcap` it writes `<name>.uci`, the game's moves, which the replay suite
//! (touch-tracker `tests/emulator_captures.rs`) must recover.
//!
//! Run from the repository root: `cargo run -p dgt-sim --example record_captures`.
//! The output is deterministic (fixed games and seeds), so re-running it rewrites the
//! same files unless the emulator or the generator changed.

use std::io::Write;

use chess_rules::{read_pgn, PgnGame, Position};
use dgt_protocol::capture::{CaptureHeader, CaptureWriter, TimeControl};
use dgt_protocol::clock::ClockSide;
use dgt_protocol::{HostCommand, Orientation};
use dgt_sim::hands::{generate, GameInput, HandOptions, Variations};
use dgt_sim::{Emulator, EmulatorConfig};

const SOURCE: &str = "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn";

/// One capture to record.
struct Recording {
    name: &'static str,
    /// Which game to take: the first one of the file this accepts.
    pick: fn(&PgnGame, &GameInput) -> bool,
    orientation: Orientation,
    seed: u64,
}

fn plies(game: &GameInput) -> usize {
    game.moves.len()
}

fn has(pgn: &PgnGame, what: &str) -> bool {
    pgn.moves.iter().any(|m| m.san.contains(what))
}

const RECORDINGS: [Recording; 3] = [
    Recording {
        name: "lichess-castling",
        pick: |pgn, g| (40..=70).contains(&plies(g)) && has(pgn, "O-O") && has(pgn, "#"),
        orientation: Orientation::Normal,
        seed: 1,
    },
    Recording {
        name: "lichess-promotion-turned",
        pick: |pgn, g| (30..=90).contains(&plies(g)) && has(pgn, "="),
        orientation: Orientation::Rotated,
        seed: 2,
    },
    Recording {
        name: "lichess-short",
        pick: |_, g| (16..=30).contains(&plies(g)),
        orientation: Orientation::Normal,
        seed: 3,
    },
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let games = read_pgn(&test_data::read(SOURCE))?;
    let out_dir = test_data::repo_dir().join("dgt-captures/emulator");
    std::fs::create_dir_all(&out_dir)?;
    let time_control = TimeControl::sudden_death(300, 3);
    for rec in &RECORDINGS {
        let (index, pgn, game) = games
            .iter()
            .enumerate()
            .filter(|(_, pgn)| pgn.tag("Variant").is_none_or(|v| v == "Standard"))
            .find_map(|(i, pgn)| {
                let game = GameInput::from_pgn(pgn).ok()?;
                (rec.pick)(pgn, &game).then_some((i, pgn, game))
            })
            .ok_or_else(|| format!("{}: no game fits", rec.name))?;
        let script = generate(
            &game,
            &HandOptions {
                seed: rec.seed,
                time_control,
                variations: Variations::realistic(),
                ..HandOptions::default()
            },
        )?;
        let mut emu = Emulator::new(EmulatorConfig {
            orientation: rec.orientation,
            // A real board scans every 200-250 ms.
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

        let site = pgn.tag("Site").unwrap_or("?");
        let header = CaptureHeader {
            board: Some(rec.name.into()),
            start_fen: (script.start != Position::start()).then(|| script.start.fen()),
            time_control: Some(time_control),
            white_clock: Some(ClockSide::Left),
            extra: vec![
                (
                    "source".into(),
                    format!(
                        "{SOURCE} game {} ({site}), Lichess database, CC0",
                        index + 1
                    ),
                ),
                (
                    "recorded-by".into(),
                    format!(
                        "cargo run -p dgt-sim --example record_captures (seed {}, {:?} board, realistic hands)",
                        rec.seed, rec.orientation
                    ),
                ),
            ],
        };
        let path = out_dir.join(format!("{}.dgtcap", rec.name));
        let mut w = CaptureWriter::new(
            std::io::BufWriter::new(std::fs::File::create(&path)?),
            &header,
        )?;
        for r in emu.take_capture() {
            w.write(&r)?;
        }
        w.flush()?;
        let uci: Vec<String> = game.moves.iter().map(|m| m.uci()).collect();
        let mut f = std::fs::File::create(out_dir.join(format!("{}.uci", rec.name)))?;
        writeln!(f, "{}", uci.join(" "))?;
        println!(
            "{}: game {} ({site}), {} plies -> {}",
            rec.name,
            index + 1,
            uci.len(),
            path.display()
        );
    }
    Ok(())
}
