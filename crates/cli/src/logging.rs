//! The log's set-up at the binary's edge: `tracing` to stderr, human-readable by default
//! or JSON lines (`--log-format json`); the level from `RUST_LOG`. What is logged is the
//! crates' own (the daemon's decisions: `arbiter_outputs::sinks::log::follow`). And the
//! async runtime of a long-running daemon (`run`, `central`), set up with its logs.

use anyhow::Context;

/// The log's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Human,
    Json,
}

/// Installs the global subscriber (once; later calls do nothing). The level comes from
/// `RUST_LOG`, else `default_level` (`info`, `warn`, ...).
pub fn init(format: LogFormat, default_level: &str) {
    use tracing_subscriber::EnvFilter;
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    // Colours only for a person at a terminal: a file, a pipe or journald gets plain text.
    let colours = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colours)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// The logs set up (`human` or `json`) and the async runtime a long-running daemon (`run`,
/// `central`) works in.
/// `async_threads`: the runtime's worker threads (`[runtime] async_threads`); `None`:
/// tokio's default, one per core.
pub fn daemon_runtime(
    log_format: &str,
    async_threads: Option<usize>,
) -> anyhow::Result<tokio::runtime::Runtime> {
    init(
        if log_format == "json" {
            LogFormat::Json
        } else {
            LogFormat::Human
        },
        "info",
    );
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = async_threads {
        builder.worker_threads(n);
    }
    builder
        .enable_all()
        // Journal fdatasyncs (`block_in_place`), analyses and sinks run on the blocking
        // pool; tokio's default of 512 threads let 1,000 boards grow ~500 threads whose
        // stacks and malloc arenas were most of the daemon's RSS (docs/performance.md).
        .max_blocking_threads(64)
        .build()
        .context("cannot start the async runtime")
}
