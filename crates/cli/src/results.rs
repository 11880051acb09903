//! `dgt-arbiter results --round N --trf FILE.trf --out FILE-after.trf (--config HALL.toml
//! | --output-dir DIR) [--set BOARD=RESULT]... [--partial]`: the TRF with round N's
//! results filled in, for the pairing program to import.
//!
//! Each board's result is read from the game file the daemon wrote
//! (`pgn/round-N/board-B.pgn`, see `arbiter_daemon::paths`), after checking that its
//! players are the TRF's pair for that board. `--set B=RESULT` is the arbiter's word
//! (`1-0`, `0-1`, `1/2-1/2`, and forfeits `+-`, `-+`, `--`) and wins over the board.
//! Whatever does not agree is refused with the list, until the arbiter settles it with
//! `--set`: two game files of one board with different results, a result the TRF already
//! has that is not the board's, a game still running (unless `--partial`: left blank).
//! The result the arbiter set on the dashboard (`arbiter_decision` events in
//! `events.jsonl`) wins over the board's too; while the board and the arbiter disagree
//! and he has confirmed neither, the board is refused (`--partial`: left blank).
//! Every column the results do not change stays byte for byte as the file was read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use arbiter_daemon::Config;
use chess_rules::{read_pgn, GameResult};
use daemon_config::pairings::TrfRound;
use daemon_config::paths::Paths;
use touch_tracker::ArbiterResult;
use trf::{GameKind, Outcome, ResultCode};

/// Arguments of `results`.
#[derive(Debug, clap::Args)]
pub struct ResultsArgs {
    /// The round (1, 2, ...).
    #[arg(long, value_name = "N")]
    pub round: u32,
    /// The pairing program's TRF the round was played from.
    #[arg(long, value_name = "FILE.trf")]
    pub trf: PathBuf,
    /// Where to write the TRF with the results.
    #[arg(long, value_name = "FILE-after.trf")]
    pub out: PathBuf,
    /// The daemon's config: its `output.dir` holds the games.
    #[arg(long, value_name = "HALL.toml", conflicts_with = "output_dir")]
    pub config: Option<PathBuf>,
    /// The daemon's output folder (instead of --config).
    #[arg(long, value_name = "DIR", required_unless_present = "config")]
    pub output_dir: Option<PathBuf>,
    /// The arbiter's result for a board, over the board's: `3=1-0`, `3=0-1`, `3=1/2-1/2`,
    /// forfeits `3=+-` (White wins), `3=-+`, `3=--` (neither played).
    #[arg(long = "set", value_name = "BOARD=RESULT")]
    pub set: Vec<String>,
    /// Write the file even with games still running (their results stay blank).
    #[arg(long)]
    pub partial: bool,
}

fn parse_set(s: &str) -> anyhow::Result<(u32, Outcome)> {
    let (board, result) = s
        .split_once('=')
        .with_context(|| format!("--set {s:?}: expected BOARD=RESULT, such as 3=1-0"))?;
    let board: u32 = board
        .trim()
        .parse()
        .with_context(|| format!("--set {s:?}: {board:?} is not a board number"))?;
    let outcome = match result.trim() {
        "1-0" => Outcome::WhiteWins,
        "0-1" => Outcome::BlackWins,
        "1/2-1/2" | "1/2" | "=" => Outcome::Draw,
        "+-" => Outcome::WhiteWinsByForfeit,
        "-+" => Outcome::BlackWinsByForfeit,
        "--" => Outcome::DoubleForfeit,
        other => bail!(
            "--set {s:?}: result {other:?} is unknown; expected 1-0, 0-1, 1/2-1/2, +-, -+ or --"
        ),
    };
    Ok((board, outcome))
}

/// The TRF's reading of the arbiter's result.
fn outcome_of(r: ArbiterResult) -> Outcome {
    match r {
        ArbiterResult::WhiteWins => Outcome::WhiteWins,
        ArbiterResult::BlackWins => Outcome::BlackWins,
        ArbiterResult::Draw => Outcome::Draw,
        ArbiterResult::WhiteWinsByForfeit => Outcome::WhiteWinsByForfeit,
        ArbiterResult::BlackWinsByForfeit => Outcome::BlackWinsByForfeit,
        ArbiterResult::DoubleForfeit => Outcome::DoubleForfeit,
    }
}

/// What the board says about its game.
enum BoardSays {
    /// No game file: the board was not a DGT board (or not set up).
    Nothing,
    Running,
    Result(Outcome),
}

/// The results of every game file of `board` in the round, checked against the TRF's
/// pair names.
fn board_result(
    paths: &Paths,
    round: u32,
    board: u32,
    white: &str,
    black: &str,
) -> anyhow::Result<BoardSays> {
    let mut results = Vec::new();
    for game in 1.. {
        let path = paths.game_pgn(round, board, game);
        if !path.exists() {
            break;
        }
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let games = read_pgn(&bytes).with_context(|| format!("{} is not PGN", path.display()))?;
        let Some(g) = games.first() else { continue };
        let (w, b) = (g.tag("White").unwrap_or("?"), g.tag("Black").unwrap_or("?"));
        if w != white || b != black {
            bail!(
                "board {board}: {} has {w} - {b}, but the TRF pairs {white} - {black} there; \
                 expected the output folder of this round, played from this TRF",
                path.display()
            );
        }
        results.push((path, g.tag("Result").unwrap_or("*").to_owned()));
    }
    let Some((_, last)) = results.last() else {
        return Ok(BoardSays::Nothing);
    };
    if results.iter().any(|(_, r)| r != last) {
        let list: Vec<String> = results
            .iter()
            .map(|(p, r)| format!("{} {r}", p.display()))
            .collect();
        bail!(
            "board {board} has games with different results ({}); the arbiter decides: \
             --set {board}=RESULT",
            list.join(", ")
        );
    }
    Ok(match last.parse::<GameResult>() {
        Ok(GameResult::WhiteWins) => BoardSays::Result(Outcome::WhiteWins),
        Ok(GameResult::BlackWins) => BoardSays::Result(Outcome::BlackWins),
        Ok(GameResult::Draw) => BoardSays::Result(Outcome::Draw),
        _ => BoardSays::Running,
    })
}

fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("trf.tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

pub fn run(args: &ResultsArgs) -> anyhow::Result<()> {
    let dir = match (&args.config, &args.output_dir) {
        (Some(c), _) => Config::load(c)?.output.dir,
        (None, Some(d)) => d.clone(),
        (None, None) => bail!("give --config HALL.toml or --output-dir DIR"),
    };
    let paths = Paths::new(dir);
    let mut round = TrfRound::load(&args.trf, args.round)?;
    let mut set: BTreeMap<u32, Outcome> = BTreeMap::new();
    for s in &args.set {
        let (board, outcome) = parse_set(s)?;
        if round.pairings.board(board).is_none() {
            bail!(
                "--set {s:?}: round {} has no board {board} (it has {})",
                args.round,
                round.pairings.games.len()
            );
        }
        set.insert(board, outcome);
    }
    let decided = arbiter_hub::decisions::results_from_events(&paths.events(), args.round)?;
    let mut problems = Vec::new();
    let mut from_dashboard = 0;
    let mut to_write = Vec::new();
    let mut blank = Vec::new();
    let (mut from_boards, mut from_arbiter, mut kept) = (0, 0, 0);
    for g in round.pairings.games.clone() {
        let in_file = Outcome::from_codes(g.white_result, g.black_result);
        let entered = g.white_result != ResultCode::Blank || g.black_result != ResultCode::Blank;
        if let Some(o) = set.get(&g.board) {
            to_write.push((g, *o));
            from_arbiter += 1;
            continue;
        }
        if g.kind == GameKind::NotPlayed {
            kept += 1;
            continue;
        }
        // The arbiter's result from the dashboard wins over the board's, unless the two
        // disagree and he has not confirmed one of them.
        if let Some(state) = decided.get(&g.board) {
            if state.disputed() {
                let text = format!(
                    "board {}: the board's result is {} but the arbiter's {}, not confirmed; \
                     confirm one on the dashboard, or --set {}=RESULT",
                    g.board,
                    state.board.map_or("?", |r| r.as_str()),
                    state.arbiter.map_or("?", |r| r.as_str()),
                    g.board
                );
                if args.partial {
                    blank.push(format!("{text}: left blank"));
                } else {
                    problems.push(text);
                }
                continue;
            }
            if let Some(a) = state.arbiter {
                to_write.push((g, outcome_of(a)));
                from_dashboard += 1;
                continue;
            }
        }
        let names = |rank| {
            round
                .trf
                .player(rank)
                .map(|p| p.name.clone())
                .unwrap_or_default()
        };
        let (white, black) = (names(g.white), names(g.black));
        let says = match board_result(&paths, args.round, g.board, &white, &black) {
            Ok(s) => s,
            Err(e) => {
                problems.push(format!("{e:#}"));
                continue;
            }
        };
        match says {
            BoardSays::Result(o) => {
                if entered && in_file != Some(o) {
                    problems.push(format!(
                        "board {}: the board says {o} but the TRF already has {}{} for \
                         {white} - {black}; the arbiter decides: --set {}=RESULT",
                        g.board,
                        g.white_result.as_char(),
                        g.black_result.as_char(),
                        g.board
                    ));
                    continue;
                }
                to_write.push((g, o));
                from_boards += 1;
            }
            BoardSays::Running if !entered => {
                if args.partial {
                    blank.push(format!("board {}: game still running", g.board));
                } else {
                    problems.push(format!(
                        "board {}: {white} - {black} is still running (*); wait for its \
                         result, --set {}=RESULT, or --partial to leave it blank",
                        g.board, g.board
                    ));
                }
            }
            BoardSays::Running | BoardSays::Nothing if entered => kept += 1,
            BoardSays::Running | BoardSays::Nothing => {
                blank.push(format!(
                    "board {}: {white} - {black} has no game file (not a DGT board?): left blank",
                    g.board
                ));
            }
        }
    }
    if !problems.is_empty() {
        bail!(
            "round {}: {} result(s) need the arbiter; nothing written:\n  {}",
            args.round,
            problems.len(),
            problems.join("\n  ")
        );
    }
    let mut points_kept = Vec::new();
    for (g, o) in &to_write {
        points_kept.extend(round.trf.record_game(args.round, g.white, g.black, *o)?);
    }
    write_atomic(&args.out, &round.trf.to_bytes())?;
    for b in &blank {
        eprintln!("{b}");
    }
    if !points_kept.is_empty() {
        eprintln!(
            "the points column (81-84) of {} player(s) did not add up under 1-½-0 scoring \
             and was left as it was (the pairing program recomputes it)",
            points_kept.len()
        );
    }
    eprintln!(
        "round {}: {} results from the boards, {} set by the arbiter ({} on the dashboard, \
         {} with --set), {} already in the TRF, {} left blank ({}); written to {}",
        args.round,
        from_boards,
        from_arbiter + from_dashboard,
        from_dashboard,
        from_arbiter,
        kept,
        blank.len(),
        round.trf.encoding(),
        args.out.display()
    );
    Ok(())
}
