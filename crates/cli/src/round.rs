//! `dgt-arbiter round --trf FILE.trf --round N [--boards HALL.toml] --out round-N.toml`:
//! the pairings of round N from the pairing program's TRF, as a round file: each board
//! number with its players (name, title, rating, federation, FIDE id, team), the games
//! decided without play (forfeits: no board), and the players without a game (byes).
//! With `--boards`, each board number is matched to the hall config's physical board
//! (port or serial), and board numbers the hall has no board for are listed.
//!
//! `run` reads the TRF itself (`[event] trf = "FILE.trf"`, `round = N`): this file is for
//! the arbiter to check the round before it starts, and for other tools.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use arbiter_daemon::Config;
use daemon_config::pairings::{PlayerInfo, TrfRound};
use trf::{GameKind, ResultCode};

/// Arguments of `round`.
#[derive(Debug, clap::Args)]
pub struct RoundArgs {
    /// The pairing program's TRF-16 file, with round N paired.
    #[arg(long, value_name = "FILE.trf")]
    pub trf: PathBuf,
    /// The round (1, 2, ...).
    #[arg(long, value_name = "N")]
    pub round: u32,
    /// The hall config whose `[[board]]`s say which port or serial holds which board
    /// number.
    #[arg(long, value_name = "HALL.toml")]
    pub boards: Option<PathBuf>,
    /// Where to write the round file (`-` for stdout).
    #[arg(long, value_name = "round-N.toml")]
    pub out: PathBuf,
}

/// A TOML basic string (JSON's escapes are TOML's).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

fn player(out: &mut String, side: &str, p: &PlayerInfo) {
    let _ = writeln!(out, "{side} = {}", quoted(&p.name));
    let _ = writeln!(out, "{side}_rank = {}", p.start_rank);
    if let Some(t) = &p.title {
        let _ = writeln!(out, "{side}_title = {}", quoted(t));
    }
    if let Some(r) = p.rating {
        let _ = writeln!(out, "{side}_elo = {r}");
    }
    if let Some(f) = &p.federation {
        let _ = writeln!(out, "{side}_federation = {}", quoted(f));
    }
    if let Some(id) = p.fide_id {
        let _ = writeln!(out, "{side}_fide_id = {id}");
    }
    if let Some(t) = &p.team {
        let _ = writeln!(out, "{side}_team = {}", quoted(t));
    }
}

/// What an unpaired player's result column says.
fn unpaired_reason(r: ResultCode) -> &'static str {
    match r {
        ResultCode::PairingAllocatedBye => "pairing-allocated bye (U)",
        ResultCode::FullPointBye => "full-point bye (F)",
        ResultCode::HalfPointBye => "half-point bye (H)",
        ResultCode::ZeroPointBye | ResultCode::Blank => "not paired (Z)",
        ResultCode::ForfeitWin => "bye scored as a forfeit win (+)",
        ResultCode::ForfeitLoss => "forfeit (-)",
        _ => "no opponent",
    }
}

pub fn run(args: &RoundArgs) -> anyhow::Result<()> {
    let round = TrfRound::load(&args.trf, args.round)?;
    let hall = match &args.boards {
        Some(path) => Some(Config::load(path)?),
        None => None,
    };
    let trf = &round.trf;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Round {} of {}, from the pairing program's TRF ({}), written by dgt-arbiter round.",
        args.round,
        trf.tournament_name().unwrap_or("the tournament"),
        trf.encoding()
    );
    let _ = writeln!(
        out,
        "# Boards in FIDE's order (C.04.1 F): score of the higher-ranked player, sum of both \
         scores, start rank.\n# `dgt-arbiter run` reads the TRF itself: [event] trf = \"...\" \
         and round = {}.",
        args.round
    );
    let _ = writeln!(out, "\n[round]");
    let _ = writeln!(out, "number = {}", args.round);
    let _ = writeln!(out, "trf = {}", quoted(&args.trf.display().to_string()));
    let _ = writeln!(out, "encoding = {}", quoted(&trf.encoding().to_string()));
    let mut without_board = Vec::new();
    let mut played = 0;
    for g in &round.pairings.games {
        let (Some(w), Some(b)) = (
            PlayerInfo::from_trf(trf, g.white),
            PlayerInfo::from_trf(trf, g.black),
        ) else {
            continue;
        };
        let _ = writeln!(out, "\n[[game]]");
        let _ = writeln!(out, "board = {}", g.board);
        player(&mut out, "white", &w);
        player(&mut out, "black", &b);
        match g.kind {
            GameKind::Played => {
                played += 1;
                let _ = writeln!(out, "played = true");
                if let Some(hall) = &hall {
                    match hall.board(g.board) {
                        Some(hb) => {
                            let _ = writeln!(out, "hall_board = {}", quoted(&hb.port.to_string()));
                        }
                        None => without_board.push(g.board),
                    }
                }
            }
            GameKind::NotPlayed => {
                let _ = writeln!(
                    out,
                    "played = false  # decided without a game ({}{}): no board",
                    g.white_result.as_char(),
                    g.black_result.as_char()
                );
            }
        }
    }
    for u in &round.pairings.unpaired {
        let name = trf
            .player(u.start_rank)
            .map(|p| p.name.clone())
            .unwrap_or_default();
        let _ = writeln!(out, "\n[[unpaired]]");
        let _ = writeln!(out, "rank = {}", u.start_rank);
        let _ = writeln!(out, "name = {}", quoted(&name));
        let _ = writeln!(out, "reason = {}", quoted(unpaired_reason(u.result)));
    }
    if args.out.as_os_str() == "-" {
        print!("{out}");
    } else {
        std::fs::write(&args.out, &out)
            .with_context(|| format!("cannot write {}", args.out.display()))?;
    }
    eprintln!(
        "round {}: {} games on boards, {} decided without a game, {} players without an \
         opponent ({}){}",
        args.round,
        played,
        round.pairings.games.len() - played,
        round.pairings.unpaired.len(),
        trf.encoding(),
        if args.out.as_os_str() == "-" {
            String::new()
        } else {
            format!("; written to {}", args.out.display())
        }
    );
    if !without_board.is_empty() {
        let list: Vec<String> = without_board.iter().map(u32::to_string).collect();
        eprintln!(
            "boards {} have no physical board in the hall config: the arbiter watches them \
             without the daemon",
            list.join(", ")
        );
    }
    Ok(())
}
