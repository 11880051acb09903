//! Writes the captures of the replay comparison (`scripts/replay-vs-python.sh`, see
//! docs/performance.md): GAMES real games (default 20) from the Lichess database (CC0, the
//! repository's copy of `lichess_db_1000k.pgn`, 438 games), held out from the other uses
//! of that file that pick games (the captures kept in the repository are of games near
//! its start, the dead-position shortcut's test plays games 1-400; these are games 401
//! on), played by the seeded hand-motion generator with realistic
//! hands on the emulated board (250 ms scan) and clock, every byte both ways recorded
//! with its virtual time. Beside each `NN.dgtcap` goes `NN.uci`, the game's moves, for the
//! Python peer.
//!
//! `cargo run --release -p touch-tracker --example replay_captures -- DIR [GAMES]`.
//! Deterministic: the same games and seeds give the same files.

use std::io::Write;
use std::path::PathBuf;

use chess_rules::read_pgn;
use dgt_protocol::capture::{CaptureHeader, CaptureWriter, TimeControl};
use dgt_protocol::clock::ClockSide;
use dgt_protocol::HostCommand;
use dgt_sim::hands::{generate, GameInput, HandOptions, Variations};
use dgt_sim::{Emulator, EmulatorConfig};

const SOURCE: &str = "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn";
/// Games before this index are the other users' (see the module doc).
const FIRST: usize = 400;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: replay_captures DIR [GAMES]")?);
    let count: usize = match args.next() {
        Some(n) => n.parse().map_err(|e| format!("GAMES {n:?}: {e}"))?,
        None => 20,
    };
    std::fs::create_dir_all(&dir)?;
    let time_control = TimeControl::sudden_death(300, 3);
    let games = read_pgn(&test_data::read(SOURCE))?;
    let mut written = 0;
    for (index, pgn) in games.iter().enumerate().skip(FIRST) {
        if written == count {
            break;
        }
        if pgn.tag("Variant").is_some_and(|v| v != "Standard") {
            continue;
        }
        let Ok(game) = GameInput::from_pgn(pgn) else {
            continue;
        };
        let Ok(script) = generate(
            &game,
            &HandOptions {
                seed: index as u64,
                time_control,
                variations: Variations::realistic(),
                ..HandOptions::default()
            },
        ) else {
            continue;
        };
        if script.start != chess_rules::Position::start() {
            continue;
        }
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
        let name = format!("{written:02}");
        let header = CaptureHeader {
            variant: Default::default(),
            board: Some(name.clone()),
            start_fen: None,
            time_control: Some(time_control),
            white_clock: Some(ClockSide::Left),
            extra: vec![(
                "source".into(),
                format!("{SOURCE} game {}, Lichess database, CC0", index + 1),
            )],
        };
        let mut w = CaptureWriter::new(
            std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{name}.dgtcap")))?),
            &header,
        )?;
        for r in emu.take_capture() {
            w.write(&r)?;
        }
        w.flush()?;
        let uci: Vec<String> = game.moves.iter().map(|m| m.uci()).collect();
        let mut f = std::fs::File::create(dir.join(format!("{name}.uci")))?;
        writeln!(f, "{}", uci.join(" "))?;
        written += 1;
    }
    println!("{written} captures in {}", dir.display());
    Ok(())
}
