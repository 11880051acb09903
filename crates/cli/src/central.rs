//! `dgt-arbiter central --config EVENT.toml`: the central of a several-PC event
//! (`hall-link`), and the hall side of `run` when its config has `[network] hall`.

use std::path::PathBuf;

use anyhow::Context;
use arbiter_daemon::Daemon;
use messages::Language;
use tokio::task::JoinHandle;

/// Arguments of `central`.
#[derive(Debug, clap::Args)]
pub struct CentralArgs {
    /// The central's configuration: [event], [output], [http], [network] with
    /// `halls = [...]`, no boards (see docs/deployment.md, "Several PCs").
    #[arg(long, value_name = "FILE.toml")]
    pub config: PathBuf,
    /// Log format on stderr.
    #[arg(long, default_value = "human", value_parser = ["human", "json"])]
    pub log_format: String,
    /// The language of the rulings on the terminal and in the log (en, ru); overrides
    /// the config's `[event] language`.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<Language>,
}

pub fn run(args: &CentralArgs) -> anyhow::Result<()> {
    // The central's config is read inside the runtime (`hall_link::central::start`):
    // tokio's default threads (`[runtime]` is the hall's setting, for its boards).
    let runtime = crate::logging::daemon_runtime(&args.log_format, None)?;
    runtime.block_on(async {
        // Listened for before anything starts (see `arbiter_daemon::signal`).
        let mut stop = std::pin::pin!(arbiter_daemon::signal());
        let central = tokio::select! {
            c = hall_link::central::start(&args.config, args.lang) => c?,
            // Waiting for the halls can take a while: a stop request ends it.
            () = &mut stop => return anyhow::Ok(()),
        };
        tracing::info!(
            "central: outputs in {}",
            central.daemon().paths().root().display()
        );
        stop.await;
        tracing::info!("stopping");
        central.shutdown().await;
        tracing::info!("stopped");
        anyhow::Ok(())
    })
}

/// Starts a hall's link to the event's network when its config has `[network] hall`.
pub async fn start_hall(daemon: &Daemon) -> anyhow::Result<Vec<JoinHandle<()>>> {
    let config = daemon.config();
    let Some(link) = hall_link::hall::HallLink::of(config) else {
        return Ok(Vec::new());
    };
    let link = link.context("[network]")?;
    let Some(net) = config.network.as_ref() else {
        return Ok(Vec::new());
    };
    let dir = config.path.parent().unwrap_or(std::path::Path::new("."));
    let client =
        hall_link::connect::connect(net, dir, &format!("dgt-arbiter hall {}", link.hall)).await?;
    tracing::info!(
        "network: hall {} of event {} on {}",
        link.hall,
        link.names.event(),
        net.nats
    );
    Ok(hall_link::hall::spawn(
        client,
        link,
        std::sync::Arc::clone(config),
        std::sync::Arc::clone(daemon.hub()),
        daemon.dashboard().cloned(),
    ))
}
