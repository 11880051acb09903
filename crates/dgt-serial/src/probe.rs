//! Finding the ports that answer as DGT boards, for `dgt-arbiter probe`: each candidate
//! is driven by a short-lived board task (the same init sequence as the daemon's) until
//! the board has told its serial number, version, clock and battery, or has failed to.

use std::path::PathBuf;
use std::time::Duration;

use dgt_protocol::BoardEvent;
use tokio::time::Instant;

use crate::driver::{spawn_board, BoardSpec, DriverOptions, PortSpec};
use crate::link::{BoardInfo, ClockInfo, LinkConfig};
use crate::port::{candidates, SearchOptions};

/// How to probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeOptions {
    /// Longest time for one port to tell everything.
    pub timeout: Duration,
    /// After the identification, how long to wait for a battery status (only battery
    /// boards send one).
    pub battery_grace: Duration,
    /// The link's timings (identification and ACK timeouts shorter than the daemon's).
    pub link: LinkConfig,
    /// Where to look when no port is named.
    pub search: SearchOptions,
}

impl Default for ProbeOptions {
    fn default() -> ProbeOptions {
        ProbeOptions {
            timeout: Duration::from_secs(4),
            battery_grace: Duration::from_millis(300),
            link: LinkConfig {
                ident_timeout_ms: 2500,
                ack_timeout_ms: 1000,
                ..LinkConfig::default()
            },
            search: SearchOptions::default(),
        }
    }
}

/// What one port said.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProbeReport {
    pub port: PathBuf,
    /// The board's facts, when the port answered as a DGT board.
    pub board: Option<BoardInfo>,
    /// Why not, otherwise.
    pub problem: Option<String>,
}

impl ProbeReport {
    /// A one-line summary of the clock: "DGT3000 2.1", "DGT XL 1.0", "none".
    pub fn clock_model(&self) -> Option<String> {
        self.board.as_ref().map(|b| b.clock.describe())
    }
}

/// Probes `ports`, or every candidate port of `opts.search` when none is named, all at
/// once. Reports come in the order of the ports. Must run inside a tokio runtime.
pub async fn probe_ports(ports: &[PathBuf], opts: &ProbeOptions) -> Vec<ProbeReport> {
    let ports: Vec<PathBuf> = if ports.is_empty() {
        candidates(&opts.search)
    } else {
        ports.to_vec()
    };
    let mut tasks = tokio::task::JoinSet::new();
    for (i, port) in ports.iter().enumerate() {
        let (port, opts) = (port.clone(), opts.clone());
        tasks.spawn(async move { (i, probe_one(port, &opts).await) });
    }
    let mut reports: Vec<Option<ProbeReport>> = vec![None; ports.len()];
    while let Some(joined) = tasks.join_next().await {
        if let Ok((i, report)) = joined {
            reports[i] = Some(report);
        }
    }
    reports
        .into_iter()
        .zip(ports)
        .map(|(r, port)| {
            r.unwrap_or_else(|| ProbeReport {
                port,
                board: None,
                problem: Some("the probe task failed".into()),
            })
        })
        .collect()
}

/// Drives one port until the board has told everything, failed, or the time is up.
pub async fn probe_one(port: PathBuf, opts: &ProbeOptions) -> ProbeReport {
    let report = |board, problem| ProbeReport {
        port: port.clone(),
        board,
        problem,
    };
    let spec = BoardSpec {
        name: port.display().to_string(),
        port: PortSpec::Path(port.clone()),
        options: DriverOptions {
            link: opts.link.clone(),
            event_capacity: 64,
            search: opts.search.clone(),
        },
    };
    let mut handle = match spawn_board(spec, std::time::Instant::now(), None) {
        Ok(h) => h,
        Err(e) => return report(None, Some(e.to_string())),
    };
    let mut status = handle.control.watch_status();
    let deadline = Instant::now() + opts.timeout;
    let mut connected_at: Option<Instant> = None;
    let outcome = loop {
        let info = status.borrow_and_update().info.clone();
        let now = Instant::now();
        if info.connected {
            let since = *connected_at.get_or_insert(now);
            let clock_known = match info.clock {
                ClockInfo::Unknown => false,
                ClockInfo::Absent => true,
                ClockInfo::Present { asking, .. } => !asking,
            };
            let battery_known = info.battery.is_some() || now >= since + opts.battery_grace;
            if clock_known && battery_known {
                break report(Some(info), None);
            }
        }
        let wake = connected_at.map_or(deadline, |c| deadline.min(c + opts.battery_grace));
        tokio::select! {
            ev = handle.events.recv() => match ev {
                Some(ev) => if let BoardEvent::Disconnected { reason } = ev.event {
                    // Before the identification, the first failure is the answer.
                    if !info.connected && connected_at.is_none() {
                        break report(None, Some(reason));
                    }
                },
                None => break report(None, Some("the driver stopped".into())),
            },
            changed = status.changed() => {
                if changed.is_err() {
                    break report(None, Some("the driver stopped".into()));
                }
            }
            () = tokio::time::sleep_until(wake) => {
                if Instant::now() >= deadline {
                    let partial = info.connected.then_some(info);
                    break report(
                        partial,
                        Some(format!("no complete answer within {} ms", opts.timeout.as_millis())),
                    );
                }
            }
        }
    };
    handle.control.shutdown().await;
    outcome
}
