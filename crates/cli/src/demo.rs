//! `dgt-arbiter demo [--speed X] [--boards N] [--dir DIR] [--seed S] [--exit-when-done]
//! [--livechess-api] [--lang en|ru] [--variant standard|chess960]`:
//! eight emulated boards on ptys playing embedded games with irregularities through the
//! real daemon; prints each ruling, writes PGN and the LiveChess folder, serves HTTP; when
//! the games are over it prints a summary and keeps the dashboard up until Ctrl-C (or
//! ends then, with `--exit-when-done`).

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::logging::{self, LogFormat};
use anyhow::Context;
use arbiter_demo::{self as demo, DemoOptions};
use messages::Language;

/// Arguments of `demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Pace: virtual time runs this many times faster than real time (1: a game in two
    /// to four minutes).
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    pub speed: f64,
    /// How many boards (1 to 8).
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub boards: usize,
    /// Where to write the outputs (default: a new folder under the temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Seed of the players' hand motions.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// End when the games are over (by default the dashboard stays up, showing the
    /// results, until Ctrl-C).
    #[arg(long)]
    pub exit_when_done: bool,
    /// HTTP address (default 127.0.0.1:8080, or a free port if it is taken).
    #[arg(long, value_name = "IP:PORT")]
    pub http: Option<SocketAddr>,
    /// Also serve the DGT LiveChess local API (lichess /dgt, the livechess CLI) on
    /// 127.0.0.1:1982, or a free port if it is taken (printed at start).
    #[arg(long)]
    pub livechess_api: bool,
    /// The language of the rulings printed: en (default) or ru.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<Language>,
    /// `chess960`: each board plays a Chess960 game from its own start position, both
    /// players castling (the config says `variant = "chess960"` and each board's
    /// `start_position`).
    #[arg(long, value_name = "VARIANT", default_value = "standard",
          value_parser = ["standard", "chess960"])]
    pub variant: String,
}

pub fn run(args: &DemoArgs) -> anyhow::Result<()> {
    // Rulings go to stdout; the log only says what goes wrong.
    logging::init(LogFormat::Human, "error");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let opts = DemoOptions {
        speed: args.speed,
        boards: args.boards,
        dir: args.dir.clone(),
        seed: args.seed,
        http: args.http,
        exit_when_done: args.exit_when_done,
        livechess_api: args.livechess_api,
        language: args.lang.unwrap_or_default(),
        chess960: args.variant == "chess960",
        ..DemoOptions::default()
    };
    runtime.block_on(async {
        let mut out = std::io::stdout();
        demo::run(opts, &mut out, arbiter_daemon::signal()).await?;
        anyhow::Ok(())
    })
}
