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
//!
//! `cargo run -p dgt-sim --example record_captures -- --periods DIR` writes instead, into
//! DIR, two classical games with periods (`40/5400+30:1800+30`, realistic pace): one whose
//! clock adds the second period at each player's 40th press
//! (`classical-periods.dgtcap`), and one where a clock press without a move before move
//! 40 is counted by the clock and the arbiter leaves its counter, so the period comes a
//! move early (`classical-period-early.dgtcap`). Beside each: `.uci` (the moves),
//! `.expected.jsonl` (the events an arbiter must emit, formats.md section 2) and
//! `.periods` (at which ply each player's clock began a period, with its count, and the
//! `clock_mismatch` alerts the rules call for: `Script::period_mismatches`).

use std::io::Write;

use chess_rules::{read_pgn, PgnGame, Position};
use dgt_protocol::capture::{CaptureHeader, CaptureWriter, TimeControl};
use dgt_protocol::clock::ClockSide;
use dgt_protocol::{HostCommand, Orientation};
use dgt_sim::hands::{
    generate, ArbiterCounter, GameInput, HandOptions, Irregularity, Script, Variations,
};
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

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => lichess_captures(),
        [flag, dir] if flag == "--periods" => period_captures(std::path::Path::new(dir)),
        _ => Err("usage: record_captures [--periods DIR]".into()),
    }
}

/// The captures kept in the repository.
fn lichess_captures() -> Result<(), Error> {
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
            variant: Default::default(),
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

/// The classical control the period captures are played at.
const CLASSICAL: &str = "40/5400+30:1800+30";

/// The two period captures, into `dir`.
fn period_captures(dir: &std::path::Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir)?;
    let games = read_pgn(&test_data::read(SOURCE))?;
    // The first standard game in which both players make 45 moves or more.
    let (index, pgn, game) = games
        .iter()
        .enumerate()
        .filter(|(_, pgn)| pgn.tag("Variant").is_none_or(|v| v == "Standard"))
        .find_map(|(i, pgn)| {
            let game = GameInput::from_pgn(pgn).ok()?;
            (game.start == Position::start() && game.moves.len() >= 92).then_some((i, pgn, game))
        })
        .ok_or("no long game")?;
    let time_control: TimeControl = CLASSICAL.parse()?;
    let opts = |seed, irregularities| HandOptions {
        seed,
        time_control,
        // Every press made: a forgotten one would move the period too.
        variations: Variations {
            forgotten_press: 0.0,
            ..Variations::realistic()
        },
        irregularities,
        arbiter_counter: ArbiterCounter::Leave,
        ..HandOptions::default()
    };
    let site = pgn.tag("Site").unwrap_or("?");
    let source = format!(
        "{SOURCE} game {} ({site}), Lichess database, CC0",
        index + 1
    );
    let right = generate(&game, &opts(1, Vec::new()))?;
    write_period_capture(dir, "classical-periods", &game, &right, &source)?;
    // The first seed whose press without a move falls before its player's 40th move.
    let early = (0..64)
        .filter_map(|seed| generate(&game, &opts(seed, vec![Irregularity::ClockWithoutMove])).ok())
        .find(|s| {
            s.plies
                .iter()
                // The player's move number is his ply's full move (a game from the start).
                .any(|p| p.period_began.is_some() && p.ply.div_ceil(2) < 40)
        })
        .ok_or("no seed puts the press without a move before move 40")?;
    write_period_capture(dir, "classical-period-early", &game, &early, &source)
}

/// One period capture: the host's two start commands, the game, every byte recorded.
fn write_period_capture(
    dir: &std::path::Path,
    name: &str,
    game: &GameInput,
    script: &Script,
    source: &str,
) -> Result<(), Error> {
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
        board: Some(name.into()),
        start_fen: None,
        time_control: Some(script.time_control),
        white_clock: Some(ClockSide::Left),
        extra: vec![
            ("source".into(), source.into()),
            (
                "recorded-by".into(),
                "cargo run -p dgt-sim --example record_captures -- --periods DIR".into(),
            ),
        ],
    };
    let path = dir.join(format!("{name}.dgtcap"));
    let mut w = CaptureWriter::new(
        std::io::BufWriter::new(std::fs::File::create(&path)?),
        &header,
    )?;
    for r in emu.take_capture() {
        w.write(&r)?;
    }
    w.flush()?;
    let uci: Vec<String> = game.moves.iter().map(|m| m.uci()).collect();
    writeln!(
        std::fs::File::create(dir.join(format!("{name}.uci")))?,
        "{}",
        uci.join(" ")
    )?;
    let mut expected = std::io::BufWriter::new(std::fs::File::create(
        dir.join(format!("{name}.expected.jsonl")),
    )?);
    for e in &script.expected {
        writeln!(expected, "{}", e.to_json(name))?;
    }
    expected.flush()?;
    let mut periods = std::fs::File::create(dir.join(format!("{name}.periods")))?;
    for i in &script.injected {
        writeln!(periods, "{} at ply {}", i.irregularity, i.ply)?;
    }
    for p in script.plies.iter().filter(|p| p.period_began.is_some()) {
        writeln!(
            periods,
            "period {} began for {} at ply {} (press at {} ms, the clock's count {})",
            p.period_began.map_or(0, |b| b.0 + 1),
            p.color,
            p.ply,
            p.press_ms.unwrap_or(p.made_at_ms),
            p.clock_count
        )?;
    }
    for m in script.period_mismatches() {
        writeln!(
            periods,
            "clock_mismatch {} for {} at his move {} (due at move {}), press at {} ms",
            m.reason.name(),
            m.color,
            m.mv,
            m.due_move,
            m.at_ms
        )?;
    }
    println!(
        "{name}: {} plies, {} s of game time -> {}",
        script.plies.len(),
        script.end_ms / 1000,
        path.display()
    );
    Ok(())
}
