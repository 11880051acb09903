//! `dgt-arbiter run --config FILE.toml [--log-format human|json] [--record]
//! [--events-stdout] [--lang en|ru]`: the daemon. Resumes every board from its journal, drives the
//! boards, writes events, PGN and the LiveChess folder, serves HTTP, and stops cleanly on
//! SIGINT/SIGTERM (games closed as unfinished; they resume at the next start).

use std::path::PathBuf;

use crate::logging::daemon_runtime;
use arbiter_daemon::{Config, Daemon, RunOptions};
use messages::Language;

/// Arguments of `run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The configuration (see config/*.toml and docs/deployment.md).
    #[arg(long, value_name = "FILE.toml")]
    pub config: PathBuf,
    /// Log format on stderr.
    #[arg(long, default_value = "human", value_parser = ["human", "json"])]
    pub log_format: String,
    /// Record each board's serial traffic as .dgtcap files in the output's recordings/.
    #[arg(long)]
    pub record: bool,
    /// Also print the JSON events on stdout (as `output.events_stdout = true`).
    #[arg(long)]
    pub events_stdout: bool,
    /// The language of the rulings on the terminal and in the log (en, ru); overrides
    /// the config's `[event] language`.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<Language>,
    /// Only check the config file and exit.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: &RunArgs) -> anyhow::Result<()> {
    let mut config = Config::load(&args.config)?;
    if args.check {
        // A cable out is no config mistake: `run` comes up and keeps trying the port
        // (udev removes an unplugged board's link), so the check warns and passes.
        let say = messages::Messages::new(crate::user_language(args.lang));
        for missing in &config.missing_ports {
            eprintln!(
                "{}",
                say.format(
                    "config-warning",
                    &messages::Args::new().str("text", missing.message(say))
                )
            );
        }
        // The network's files as the link reads them (a seed file holding no seed, a CA
        // file without a certificate), not only opened.
        if let Some(net) = &config.network {
            let dir = config.path.parent().unwrap_or(std::path::Path::new("."));
            hall_link::connect::check_files(net, dir)?;
        }
        println!(
            "{}: ok ({} boards, {} {}, round {})",
            args.config.display(),
            config.boards.len(),
            config.time_control,
            config.category,
            config.event.round
        );
        return Ok(());
    }
    config.output.events_stdout |= args.events_stdout;
    if let Some(lang) = args.lang {
        config.event.language = lang;
    }
    let runtime = daemon_runtime(&args.log_format, Some(config.runtime.async_threads))?;
    runtime.block_on(async {
        // Listened for before anything starts (see `signal`).
        let mut stop = std::pin::pin!(arbiter_daemon::signal());
        let out = config.output.dir.clone();
        let daemon = Daemon::start(
            config,
            RunOptions {
                record: args.record,
                ..RunOptions::default()
            },
        )
        .await?;
        tracing::info!("outputs in {}", out.display());
        // A hall of a several-PC event also publishes to the event's network.
        let network = tokio::select! {
            n = crate::central::start_hall(&daemon) => Some(n?),
            // The event's network may be slow to answer: a stop meanwhile is a stop.
            () = &mut stop => None,
        };
        if network.is_some() {
            stop.await;
        }
        tracing::info!("stopping");
        for t in network.into_iter().flatten() {
            t.abort();
        }
        daemon.shutdown().await;
        tracing::info!("stopped");
        anyhow::Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_has_the_async_threads_asked_for() {
        for n in [1, 3] {
            let rt = daemon_runtime("human", Some(n)).unwrap();
            assert_eq!(rt.metrics().num_workers(), n);
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let rt = daemon_runtime("human", None).unwrap();
        assert_eq!(rt.metrics().num_workers(), cores);
    }
}
