//! The wiring: [`Daemon::start`] resumes a task per board (`board_task`), starts the file
//! sinks, the log, the public view and its push, the dashboard, the HTTP endpoints and
//! the LiveChess API; [`Daemon::shutdown`] stops them gracefully.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use dgt_serial::{spawn_board, BoardSpec, DriverOptions, PortSpec};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::board_task::*;
pub use crate::error::DaemonError;
use crate::http;
use arbiter_hub::serials::{SerialRoutes, Switchboard};
use arbiter_hub::Hub;
use arbiter_outputs::public::Public;
use arbiter_outputs::sinks::jsonl::JsonlSink;
use arbiter_outputs::sinks::{self, livechess::LiveChessSink, pgn::PgnSink, Round, Sink};
use board_journal::Syncer;
use daemon_config::paths::Paths;
use daemon_config::{BoardPort, Config};

/// Settings of a run that are not in the config file.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Record each board's serial traffic as `.dgtcap` in `recordings/`.
    pub record: bool,
    /// The driver's settings for every board.
    pub driver: DriverOptions,
    /// Extra routes on the HTTP endpoint (the dashboard adds its own).
    pub extra_routes: Option<axum::Router<http::AppState>>,
    /// The boards are driven by other PCs (the central of a several-PC event, fed by
    /// `hall-link`): no journals, drivers or clock control here, only the hub, the sinks
    /// and the dashboard.
    pub remote_boards: bool,
    /// Where dashboard actions go first ([`arbiter_dashboard::Forward`]).
    pub forward_actions: Option<Arc<dyn arbiter_dashboard::Forward>>,
}

/// A running daemon.
pub struct Daemon {
    config: Arc<Config>,
    paths: Paths,
    hub: Arc<Hub>,
    public: Arc<Public>,
    stop_boards: watch::Sender<bool>,
    stop_sinks: watch::Sender<bool>,
    boards: Vec<JoinHandle<BoardSummary>>,
    sinks: Vec<JoinHandle<()>>,
    log: JoinHandle<()>,
    http: Option<(SocketAddr, JoinHandle<()>)>,
    /// Where the LiveChess API listens (its task is in `tasks`).
    livechess_api: Option<SocketAddr>,
    /// Closes the LiveChess API's WebSocket connections at shutdown.
    livechess_closer: Option<crate::livechess_api::Closer>,
    /// The dashboard's follower and the unattended clock control, aborted at shutdown.
    tasks: Vec<JoinHandle<()>>,
    dashboard: Option<Arc<arbiter_dashboard::Dashboard>>,
}

impl Daemon {
    /// Resumes every board from its journal, then starts the drivers, sinks, log and
    /// HTTP endpoint. Must run inside a tokio runtime.
    pub async fn start(config: Config, opts: RunOptions) -> Result<Daemon, DaemonError> {
        let http_caps = check_fd_limit(&config, &opts)?;
        let say = messages::Messages::new(config.event.language);
        for m in config.missing_ports.iter().filter(|_| !opts.remote_boards) {
            tracing::warn!(
                "{}",
                say.format(
                    "config-port-retry",
                    &messages::Args::new().str("text", m.message(say))
                )
            );
        }
        let config = Arc::new(config);
        let paths = Paths::new(&config.output.dir);
        std::fs::create_dir_all(paths.root()).map_err(|source| DaemonError::Output {
            path: paths.root().to_owned(),
            source,
        })?;
        let hub = Arc::new(Hub::speaking(
            config.boards.iter().map(|b| b.number),
            config.event.language,
        ));
        let public = Arc::new(Public::new(
            &config,
            Some(paths.published(config.event.round)),
        ));
        let epoch = std::time::Instant::now();
        let now_unix = wall_clock::unix_ms_now();

        // The event stream first, so it knows what it holds before boards replay.
        let jsonl = JsonlSink::open(
            &paths.events(),
            config.event.round,
            config.output.events_stdout,
        )
        .map_err(|source| DaemonError::Events {
            path: paths.events(),
            source,
        })?;

        // Resume every board from its journal before anything is published live.
        let syncer =
            Syncer::start(URGENT_SYNC_THREADS, SYNC_THREADS).map_err(DaemonError::Syncer)?;
        let mut resumed = Vec::with_capacity(config.boards.len());
        for b in config.boards.iter().filter(|_| !opts.remote_boards) {
            let published = jsonl.published(&b.name());
            resumed.push(
                BoardTask::resume(&config, b, &paths, &hub, now_unix, &syncer, published).await?,
            );
        }

        let (stop_sinks, stop_rx) = watch::channel(false);
        let sinks = spawn_sinks(jsonl, &config, &paths, &hub, &public, &stop_rx);
        let log = tokio::spawn(sinks::log::follow(Arc::clone(&hub), config.event.language));
        let mut tasks: Vec<JoinHandle<()>> = if opts.remote_boards {
            // Each hall controls its own clocks.
            Vec::new()
        } else {
            unattended_clock::spawn(Arc::clone(&hub), &config)
                .into_iter()
                .collect()
        };
        tasks.push(tokio::spawn(arbiter_outputs::public::follow(
            Arc::clone(&public),
            Arc::clone(&hub),
        )));
        if let Some(push) = config.broadcast.push.clone() {
            tracing::info!(
                "pushing the round (delayed {} s) to {} every {} ms at most",
                config.broadcast.delay_ms / 1000,
                push.url,
                push.interval_ms
            );
            tasks.push(tokio::spawn(arbiter_outputs::push::run(
                Arc::clone(&config),
                push,
                Arc::clone(&public),
                Arc::clone(&hub),
            )));
        }

        let (http, dashboard_of) = if config.http.enabled {
            let (addr, task, dash) =
                start_http(&config, &opts, &hub, &public, &paths, http_caps, &mut tasks).await?;
            (Some((addr, task)), Some(dash))
        } else {
            (None, None)
        };

        let mut livechess_closer = None;
        let livechess_api = match &config.livechess_api {
            Some(api) => {
                let listener = tokio::net::TcpListener::bind(api.bind)
                    .await
                    .map_err(|source| DaemonError::LiveChessApi {
                        addr: api.bind,
                        source,
                    })?;
                let addr = listener.local_addr().unwrap_or(api.bind);
                let (state, closer) = crate::livechess_api::ApiState::new(
                    Arc::clone(&hub),
                    Arc::clone(&config),
                    Arc::clone(&public),
                );
                livechess_closer = Some(closer);
                let router = crate::livechess_api::router(state);
                tasks.push(tokio::spawn(http::serve(listener, router, http_caps, None)));
                let url = format!("ws://{addr}{}\n", ::livechess_api::WS_ROUTE);
                let file = paths.livechess_api_address();
                if let Err(e) = crash_safe::write_atomic(&file, url.as_bytes()) {
                    tracing::warn!("cannot write {}: {e}", file.display());
                }
                tracing::info!(
                    "LiveChess API on ws://{addr}{ws} and http://{addr}{ws}/",
                    ws = ::livechess_api::WS_ROUTE
                );
                Some(addr)
            }
            None => None,
        };

        let (stop_boards, stop_rx) = watch::channel(false);
        let boards = start_boards(&config, &opts, &paths, resumed, epoch, &stop_rx)?;
        Ok(Daemon {
            config,
            paths,
            hub,
            public,
            stop_boards,
            stop_sinks,
            boards,
            sinks,
            log,
            http,
            livechess_api,
            livechess_closer,
            tasks,
            dashboard: dashboard_of,
        })
    }

    /// The arbiter's dashboard, when HTTP is on.
    pub fn dashboard(&self) -> Option<&Arc<arbiter_dashboard::Dashboard>> {
        self.dashboard.as_ref()
    }

    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// What the public may see ([`arbiter_outputs::public`]).
    pub fn public(&self) -> &Arc<Public> {
        &self.public
    }

    pub fn config(&self) -> &Arc<Config> {
        &self.config
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// Where the HTTP endpoint listens.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http.as_ref().map(|(a, _)| *a)
    }

    /// Where the LiveChess API listens (`[livechess_api]`).
    pub fn livechess_api_addr(&self) -> Option<SocketAddr> {
        self.livechess_api
    }

    /// Stops gracefully: the boards stop (journals synced, drivers reset their boards),
    /// running games are closed as unfinished in the PGN and LiveChess files (`*` and a
    /// comment; they resume at the next start), the sinks write a last time.
    pub async fn shutdown(self) -> Vec<BoardSummary> {
        // LiveChess consumers first: a close frame each, not a socket that goes dead.
        if let Some(closer) = &self.livechess_closer {
            closer.close(LIVECHESS_CLOSE_WAIT).await;
        }
        let _ = self.stop_boards.send(true);
        let mut summaries = Vec::new();
        for b in self.boards {
            match b.await {
                Ok(s) => summaries.push(s),
                Err(e) => tracing::error!("a board task failed: {e}"),
            }
        }
        let why = messages::Messages::new(self.config.event.language).text("pgn-daemon-stopped");
        let why = why.as_str();
        self.hub.close_unfinished(why);
        // The public games as far as they are public now, closed the same way.
        self.public.refresh(&self.hub, wall_clock::unix_ms_now());
        self.public.close_unfinished(why);
        // The follower writes the marks at most once a second: the last ones now.
        let public = Arc::clone(&self.public);
        let _ = tokio::task::spawn_blocking(move || public.save_marks()).await;
        let _ = self.stop_sinks.send(true);
        for s in self.sinks {
            let _ = s.await;
        }
        self.log.abort();
        for t in self.tasks {
            t.abort();
        }
        if let Some((_, task)) = self.http {
            task.abort();
        }
        summaries
    }
}

/// Raises the open-file limit and refuses to start when even the hard limit is too low
/// for the configured boards; returns the HTTP listener's caps under the limit.
fn check_fd_limit(config: &Config, opts: &RunOptions) -> Result<http::listen::Caps, DaemonError> {
    let needed = crate::limits::fds_needed(config.boards.len(), opts.record);
    let fd_limit = crate::limits::raise_nofile_limit();
    let http_caps = http::listen::caps_for(
        *fd_limit.as_ref().unwrap_or(&1024),
        config.boards.len(),
        opts.record,
    );
    match fd_limit {
        Ok(limit) if limit < needed => {
            return Err(DaemonError::FdLimit {
                boards: config.boards.len(),
                needed,
                limit,
            })
        }
        Ok(_) => {}
        Err(e) => tracing::warn!("cannot read the open-file limit: {e}"),
    }
    Ok(http_caps)
}

/// The HTTP endpoint: the public routes, the dashboard and any extra routes, behind the
/// access policy, on `[http] bind` (with TLS when configured); its address is written to
/// the output folder.
async fn start_http(
    config: &Arc<Config>,
    opts: &RunOptions,
    hub: &Arc<Hub>,
    public: &Arc<Public>,
    paths: &Paths,
    http_caps: http::listen::Caps,
    tasks: &mut Vec<JoinHandle<()>>,
) -> Result<
    (
        SocketAddr,
        JoinHandle<()>,
        Arc<arbiter_dashboard::Dashboard>,
    ),
    DaemonError,
> {
    let tls = match &config.http.tls {
        Some(files) => Some(daemon_config::tls::server_config(files).map_err(DaemonError::Tls)?),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(config.http.bind)
        .await
        .map_err(|source| DaemonError::Http {
            addr: config.http.bind,
            source,
        })?;
    let addr = listener.local_addr().unwrap_or(config.http.bind);
    let state = http::AppState {
        hub: Arc::clone(hub),
        config: Arc::clone(config),
        public: Arc::clone(public),
    };
    let (dash, dashboard, follower) =
        arbiter_dashboard::Dashboard::start(Arc::clone(hub), Arc::clone(config), paths);
    tasks.push(follower);
    let dash_of = Arc::clone(&dash);
    if let Some(f) = opts.forward_actions.clone() {
        dash.forward_actions_to(f);
    }
    let mut router = http::router(state.clone()).merge(dashboard);
    if let Some(extra) = opts.extra_routes.clone() {
        router = router.merge(extra.with_state(state));
    }
    let router = http::access::layer(
        router,
        http::access::Policy {
            dashboard: dash,
            config: Arc::clone(config),
            hosts: http::access::HostCheck::new(config),
        },
    );
    let scheme = if tls.is_some() { "https" } else { "http" };
    let task = tokio::spawn(http::serve(listener, router, http_caps, tls));
    let url = format!("{scheme}://{addr}/\n");
    if let Err(e) = crash_safe::write_atomic(&paths.http_address(), url.as_bytes()) {
        tracing::warn!("cannot write {}: {e}", paths.http_address().display());
    }
    tracing::info!("HTTP endpoint on {scheme}://{addr}/");
    Ok((addr, task, dash_of))
}

/// Starts the file sinks, each on the round it is registered for.
fn spawn_sinks(
    jsonl: JsonlSink,
    config: &Arc<Config>,
    paths: &Paths,
    hub: &Arc<Hub>,
    public: &Arc<Public>,
    stop_rx: &watch::Receiver<bool>,
) -> Vec<JoinHandle<()>> {
    // The arbiter's stream follows the hub; the PGN and LiveChess files are public:
    // they follow the public view (the broadcast delay, boards off the air). Each is
    // subscribed before the view's follower starts: no change is missed.
    let delayed = Round::Delayed(Arc::clone(public));
    let registered: [(Box<dyn Sink>, Round); 3] = [
        (Box::new(jsonl), Round::Live),
        (
            Box::new(PgnSink::new(Arc::clone(config), paths.clone())),
            delayed.clone(),
        ),
        (
            Box::new(LiveChessSink::new(Arc::clone(config), paths.livechess())),
            delayed,
        ),
    ];
    registered
        .into_iter()
        .map(|(sink, round)| {
            tokio::spawn(sinks::run(sink, round, Arc::clone(hub), stop_rx.clone()))
        })
        .collect()
}

/// Starts each resumed board's task on its input: a serial driver, or a LiveChess feed.
fn start_boards(
    config: &Config,
    opts: &RunOptions,
    paths: &Paths,
    resumed: Vec<BoardTask>,
    epoch: std::time::Instant,
    stop_rx: &watch::Receiver<bool>,
) -> Result<Vec<JoinHandle<BoardSummary>>, DaemonError> {
    let record_dir = opts.record.then(|| paths.recordings());
    let routes = Arc::new(SerialRoutes::new(switchboard(config, &resumed)));
    let mut boards = Vec::with_capacity(resumed.len());
    for (task, b) in resumed.into_iter().zip(&config.boards) {
        let port = match &b.port {
            BoardPort::Path(p) => PortSpec::Path(p.clone()),
            BoardPort::Serial(s) => PortSpec::Serial(s.clone()),
            BoardPort::LiveChess(url) => {
                let handle = crate::livechess_source::spawn(&b.name(), url.clone(), epoch);
                tracing::info!(board = b.number, "following board {} at {url}", b.number);
                boards.push(tokio::spawn(task.run(
                    handle,
                    epoch,
                    stop_rx.clone(),
                    Arc::clone(&routes),
                )));
                continue;
            }
        };
        let spec = BoardSpec {
            name: b.name(),
            port,
            options: opts.driver.clone(),
        };
        let handle =
            spawn_board(spec, epoch, record_dir.clone()).map_err(|source| DaemonError::Board {
                board: b.number,
                source,
            })?;
        tracing::info!(board = b.number, "driving board {} on {}", b.number, b.port);
        boards.push(tokio::spawn(task.run(
            handle,
            epoch,
            stop_rx.clone(),
            Arc::clone(&routes),
        )));
    }
    Ok(boards)
}

/// How long the shutdown waits for the LiveChess API's connections to close.
const LIVECHESS_CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Waits for SIGINT (Ctrl-C) or SIGTERM (systemd's stop). Both are listened for from the
/// call on (the handlers are installed here, not at the first poll): called before the
/// daemon starts, a stop asked while it starts is a graceful stop once it has started
/// (LiveChess consumers get their close frame, journals are synced), not the signal's
/// default kill.
pub fn signal() -> impl std::future::Future<Output = ()> + Send {
    use tokio::signal::unix::{signal, SignalKind};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        match (interrupt, terminate) {
            (Ok(mut i), Ok(mut t)) => {
                tokio::select! {
                    _ = i.recv() => {}
                    _ = t.recv() => {}
                }
            }
            (Ok(mut one), Err(e)) | (Err(e), Ok(mut one)) => {
                tracing::warn!("cannot listen for a stop signal: {e}");
                one.recv().await;
            }
            (Err(e), Err(_)) => {
                tracing::error!(
                    "cannot listen for SIGINT or SIGTERM: {e}; stop the daemon with SIGKILL"
                );
                std::future::pending::<()>().await;
            }
        }
    }
}

/// The ports driven here and the serials the boards are known by: the configured one,
/// else the last one the board's journal holds ([`arbiter_hub::serials`]).
fn switchboard(config: &Config, resumed: &[BoardTask]) -> Switchboard {
    let mut board = Switchboard::default();
    for (b, task) in config.boards.iter().zip(resumed) {
        let serial = match &b.port {
            BoardPort::Path(_) => task.journal_serial.clone(),
            BoardPort::Serial(s) => Some(s.clone()),
            BoardPort::LiveChess(_) => continue,
        };
        board.add_port(b.number, &b.port.to_string(), serial);
    }
    board
}

/// Threads syncing the journals: a few, so that the file system can commit concurrent
/// syncs together, while one board's press never waits behind many others. The
/// `URGENT_SYNC_THREADS` take presses and other urgent records only, so those never
/// wait behind the timed syncs of field updates; the `SYNC_THREADS` take urgent records
/// first and timed ones when none wait.
const URGENT_SYNC_THREADS: usize = 2;
const SYNC_THREADS: usize = 4;
