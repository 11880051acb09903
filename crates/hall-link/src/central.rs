//! `dgt-arbiter central`: the event-wide view of a several-PC event. It drives no boards:
//! it follows each hall's stream with a durable consumer and feeds what comes into one
//! hub, which the daemon's own dashboard, PGN and LiveChess sinks serve as they do for a
//! hall. It is a consumer of the halls' decisions, never a second tracker.
//!
//! What the central has received is kept in its output folder (`central/<hall>.jsonl`,
//! one envelope a line with the stream sequence it came with, synced before the batch is
//! acknowledged to the server), so a restarted central rebuilds its round from its own
//! files, and its durable consumer is made again after the last message kept
//! ([`hall_network::StreamPosition`]: a consumer's own place can lie past messages it
//! handed to a central that died before keeping them). An arbiter's action on the central dashboard is first a
//! request to the board's hall ([`Forwarder`]); a hall that does not answer fails the
//! action with a message.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_daemon::daemon::{Daemon, RunOptions};
use arbiter_dashboard::{Answer, Command, Forward, ForwardError, ForwardFuture};
use arbiter_hub::{Hub, HubEvent};
use async_nats::jetstream::{self, consumer, kv};
use daemon_config::Config;
use futures_util::StreamExt;
use hall_network::envelope::{BoardState, Envelope, Manifest};
use hall_network::{
    own_message, worth_logging, Accepted, ActionReply, ActionRequest, Delivery, EventKey, HallId,
    Lag, Merge, Names, Received, StreamPosition,
};
use messages::Language;
use tokio::task::JoinHandle;

use crate::connect::{self, ConnectError};

/// How many messages the central takes from a hall's stream in one batch.
const BATCH: usize = 512;
/// How long a fetch waits for messages.
const FETCH_WAIT: Duration = Duration::from_secs(1);
/// The pause before trying again after the server failed.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The central cannot start.
#[derive(Debug, thiserror::Error)]
pub enum CentralError {
    #[error("cannot read the config file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error("the halls' boards do not fit together:\n  {0}")]
    Boards(String),
    #[error("the central's config with the halls' boards: {0}")]
    Merged(#[source] daemon_config::ConfigError),
    #[error("cannot start the central: {0}")]
    Daemon(#[from] arbiter_daemon::daemon::DaemonError),
    #[error("cannot keep what the central received in {path}: {source}")]
    Journal {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A running central.
pub struct Central {
    daemon: Daemon,
    tasks: Vec<JoinHandle<()>>,
}

impl Central {
    pub fn daemon(&self) -> &Daemon {
        &self.daemon
    }

    /// Stops: the consumers first (what they received is on disk), then the daemon.
    pub async fn shutdown(self) {
        for t in &self.tasks {
            t.abort();
        }
        self.daemon.shutdown().await;
    }
}

/// The central's own file, as far as the network goes.
struct CentralFile {
    net: hall_network::NetworkConfig,
    halls: Vec<HallId>,
    names: Names,
    round: u32,
    table: toml::map::Map<String, toml::Value>,
}

fn read_central(path: &Path) -> Result<CentralFile, CentralError> {
    let bad = |message: String| CentralError::Config {
        path: path.to_owned(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|source| CentralError::Read {
        path: path.to_owned(),
        source,
    })?;
    let table: toml::map::Map<String, toml::Value> =
        toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if table.contains_key("board") {
        return Err(bad("the central has no [[board]] of its own: the boards are in the halls' configs (each with its event-wide number)".into()));
    }
    let net: hall_network::NetworkConfig = table
        .get("network")
        .cloned()
        .ok_or_else(|| {
            bad(
                "no [network] section; expected nats = \"nats://...\" and halls = [\"A\", ...]"
                    .into(),
            )
        })?
        .try_into()
        .map_err(|e: toml::de::Error| bad(format!("[network]: {}", e.message())))?;
    net.check().map_err(|e| bad(e.to_string()))?;
    let halls = net.hall_ids();
    if halls.is_empty() {
        return Err(bad("[network] has no halls; expected halls = [\"A\", \"B\"], the halls the central follows".into()));
    }
    let event = table.get("event").and_then(|e| e.as_table());
    let name = event
        .and_then(|e| e.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or("");
    let round = event
        .and_then(|e| e.get("round"))
        .and_then(|r| r.as_integer())
        .and_then(|r| u32::try_from(r).ok())
        .ok_or_else(|| bad("event.round is missing; expected the round's number".into()))?;
    let key = EventKey::new(name).map_err(|e| bad(format!("event.name: {e}")))?;
    Ok(CentralFile {
        net,
        halls,
        names: Names::new(key),
        round,
        table,
    })
}

/// Waits until every hall has put its manifest for this round.
async fn manifests(js: &jetstream::Context, f: &CentralFile) -> Vec<Manifest> {
    let mut said = std::time::Instant::now() - Duration::from_secs(60);
    loop {
        let mut found = Vec::new();
        let mut missing = Vec::new();
        match js.get_key_value(f.names.bucket()).await {
            Ok(store) => {
                for h in &f.halls {
                    match store.get(Names::manifest_key(h)).await {
                        Ok(Some(bytes)) => match serde_json::from_slice::<Manifest>(&bytes) {
                            Ok(m) if m.round == f.round && m.hall == *h => found.push(m),
                            Ok(m) => missing.push(format!("{h} (on round {})", m.round)),
                            Err(e) => missing.push(format!("{h} (unreadable: {e})")),
                        },
                        Ok(None) => missing.push(h.to_string()),
                        Err(e) => missing.push(format!("{h} ({e})")),
                    }
                }
            }
            Err(e) => missing.push(format!("every hall (the event's bucket: {e})")),
        }
        if missing.is_empty() {
            return found;
        }
        if said.elapsed() >= Duration::from_secs(10) {
            tracing::warn!(
                "central: waiting for the boards of hall {} (each hall daemon announces its boards when it reaches the server)",
                missing.join(", ")
            );
            said = std::time::Instant::now();
        }
        tokio::time::sleep(RETRY_AFTER).await;
    }
}

/// The central's config with every hall's boards (their ports named after the hall:
/// they are the halls' devices, never opened here).
fn merged_config(
    path: &Path,
    f: &CentralFile,
    manifests: &[Manifest],
) -> Result<Config, CentralError> {
    let mut table = f.table.clone();
    let mut boards = Vec::new();
    for m in manifests {
        let tables: toml::map::Map<String, toml::Value> =
            toml::from_str(&m.board_tables).map_err(|e| CentralError::Config {
                path: path.to_owned(),
                message: format!("hall {}'s boards are unreadable: {e}", m.hall),
            })?;
        if let Some(toml::Value::Array(list)) = tables.get("board") {
            for b in list {
                let mut b = b.clone();
                if let toml::Value::Table(t) = &mut b {
                    let number = t.get("number").and_then(|n| n.as_integer()).unwrap_or(0);
                    t.insert(
                        "port".into(),
                        toml::Value::String(format!("hall {} board {number}", m.hall)),
                    );
                }
                boards.push(b);
            }
        }
    }
    table.insert("board".into(), toml::Value::Array(boards));
    let text = toml::to_string(&toml::Value::Table(table)).unwrap_or_default();
    Config::parse(&text, path).map_err(CentralError::Merged)
}

/// Starts the central of the config file at `path`; `language` (`central --lang`), if
/// given, is the language of its terminal lines, log and PGN comments instead of the
/// config's `[event] language`.
pub async fn start(path: &Path, language: Option<Language>) -> Result<Central, CentralError> {
    let f = read_central(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let client = connect::connect(&f.net, dir, "dgt-arbiter central").await?;
    let js = jetstream::new(client.clone());
    tracing::info!(
        "central: following halls {:?} of event {}",
        f.halls.iter().map(HallId::as_str).collect::<Vec<_>>(),
        f.names.event()
    );
    let manifests = manifests(&js, &f).await;
    let merge = Merge::new(f.round, &manifests).map_err(|errors| {
        CentralError::Boards(
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n  "),
        )
    })?;
    let mut config = merged_config(path, &f, &manifests)?;
    if let Some(language) = language {
        config.event.language = language;
    }
    let owner: BTreeMap<u32, HallId> = merge.boards().map(|(b, h)| (b, h.clone())).collect();
    let forwarder = Forwarder {
        client: client.clone(),
        names: f.names.clone(),
        owner: owner.clone(),
    };
    let daemon = Daemon::start(
        config,
        RunOptions {
            remote_boards: true,
            forward_actions: Some(Arc::new(forwarder)),
            ..RunOptions::default()
        },
    )
    .await?;
    let hub = Arc::clone(daemon.hub());
    let folder = daemon.paths().root().join("central");
    std::fs::create_dir_all(&folder).map_err(|source| CentralError::Journal {
        path: folder.clone(),
        source,
    })?;
    let merge = Arc::new(Mutex::new(merge));
    let mut tasks = Vec::new();
    for h in &f.halls {
        let path = folder.join(format!("{h}.jsonl"));
        let (file, had, position) = reload(&path, &merge, &hub, f.round)?;
        tracing::info!(hall = %h, "central: {had} events of hall {h} from {}, going on after stream message {}", path.display(), position.kept());
        let follower = HallFollower {
            js: js.clone(),
            names: f.names.clone(),
            hall: h.clone(),
            file,
            position,
            merge: Arc::clone(&merge),
            hub: Arc::clone(&hub),
            round: f.round,
            gap_since: None,
            reread_for_gap: false,
            foreign: 0,
        };
        tasks.push(tokio::spawn(follower.follow()));
    }
    let reported = Arc::new(Mutex::new(BTreeMap::new()));
    tasks.push(tokio::spawn(follow_states(
        js,
        f.names.clone(),
        owner.clone(),
        Arc::clone(&hub),
        Arc::clone(&reported),
        f.round,
    )));
    tasks.push(tokio::spawn(watch_lag(owner, merge, reported, hub)));
    Ok(Central { daemon, tasks })
}

/// A hub event from an envelope.
fn hub_event(e: Envelope, replayed: bool) -> HubEvent {
    HubEvent {
        seq: e.seq,
        board: e.board,
        round: e.round,
        wall_ms: e.wall_ms,
        replayed,
        event: e.event,
    }
}

fn apply(merge: &Mutex<Merge>, hub: &Hub, e: Envelope, replayed: bool) -> bool {
    let accepted = merge.lock().unwrap_or_else(|p| p.into_inner()).accept(e);
    match accepted {
        Ok(Accepted::Apply(list)) => {
            hub.publish(list.into_iter().map(|e| hub_event(e, replayed)));
            true
        }
        Ok(Accepted::Held) => true,
        Ok(Accepted::Duplicate | Accepted::OtherRound) => false,
        Err(e) => {
            tracing::error!("central: {e}; the event is ignored");
            false
        }
    }
}

/// Reads what the central kept of a hall; a line cut short by a crash is cut off (its
/// batch was not acknowledged, so the server delivers it again); a damaged line (its
/// crc32 wrong) is skipped and the stream read again from the start. Returns the file to
/// append to, how many events it held, and the position in the hall's stream after them.
fn reload(
    path: &Path,
    merge: &Mutex<Merge>,
    hub: &Hub,
    round: u32,
) -> Result<(std::fs::File, usize, StreamPosition), CentralError> {
    let journal = |source| CentralError::Journal {
        path: path.to_owned(),
        source,
    };
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(journal(e)),
    };
    let whole = text.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
    let lines: Vec<&[u8]> = text[..whole]
        .split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    // Lines are framed (a crc32 field, as the journals' are) since this file had them; an
    // unframed line is an older file's, unless the file has framed ones: then it is a
    // damaged one.
    let framed = lines
        .iter()
        .any(|l| matches!(crash_safe::unframe(l), Ok(Some(_))));
    let mut had = 0;
    let mut kept = 0;
    let mut unsequenced = false;
    let mut damaged = false;
    for line in lines {
        let object = match crash_safe::unframe(line) {
            Ok(Some(object)) => object,
            Ok(None) if !framed => line.to_vec(),
            Ok(None) => {
                damaged = true;
                tracing::warn!("central: {}: a line without its crc32 among framed ones (torn or merged); skipped, the hall's stream is read again from the start", path.display());
                continue;
            }
            Err(e) => {
                damaged = true;
                tracing::warn!("central: {}: a damaged line ({e}); skipped, the hall's stream is read again from the start", path.display());
                continue;
            }
        };
        match Received::parse(&object) {
            Ok(r) => {
                kept = kept.max(r.stream_seq);
                unsequenced |= r.stream_seq == 0;
                if r.envelope.round == round {
                    apply(merge, hub, r.envelope, true);
                    had += 1;
                }
            }
            Err(e) => {
                damaged = true;
                tracing::warn!("central: {}: skipping a damaged line: {e}; the hall's stream is read again from the start", path.display());
            }
        }
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(journal)?;
    if whole < text.len() {
        file.set_len(whole as u64).map_err(journal)?;
    }
    // A line without its sequence (an older file), or a damaged one (its event is in
    // the stream, below what the file kept): read the stream from the start; the merge
    // drops what the central has by seq.
    let position = StreamPosition::after(if unsequenced || damaged { 0 } else { kept });
    Ok((file, had, position))
}

/// The line of the central's file for the message `payload` at `stream_seq`, with its
/// newline, framed as the journals' lines are (`crash_safe::frame`: a last field `crc32`),
/// so that [`reload`] tells a damaged line from a sound one.
fn framed_line(stream_seq: u64, payload: &[u8]) -> Vec<u8> {
    let mut line = Received::line(stream_seq, payload);
    crash_safe::frame(&mut line);
    line
}

/// How long events may wait for a missing one of their board before the central reads
/// the hall's stream again from the start (the missing one is in the stream, but not
/// where the central's position says: a stream made afresh under the same name).
const GAP_PATIENCE: Duration = Duration::from_secs(10);

/// One hall's stream as the central follows it: where it has read to, the file that keeps
/// what it took, and what it says about the stream.
struct HallFollower {
    js: jetstream::Context,
    names: Names,
    hall: HallId,
    file: std::fs::File,
    position: StreamPosition,
    merge: Arc<Mutex<Merge>>,
    hub: Arc<Hub>,
    round: u32,
    /// Since when events of this hall wait for a missing one.
    gap_since: Option<std::time::Instant>,
    /// Whether the stream was read again for that gap already.
    reread_for_gap: bool,
    /// Messages of the stream that the hall did not publish, since the central started.
    foreign: u64,
}

/// What the central takes of one fetched batch.
struct Taken<'m> {
    /// The position after the messages taken.
    position: StreamPosition,
    /// The new events' lines for the central's file.
    lines: Vec<u8>,
    /// The new events, to apply once kept.
    envelopes: Vec<Envelope>,
    /// The last message taken (acknowledges the batch).
    last: Option<&'m jetstream::Message>,
    /// The stream must be read again from the position.
    again: bool,
}

impl HallFollower {
    /// Follows the hall's stream for good: fetch a batch, keep it, apply it, acknowledge
    /// it. The consumer is made at the central's own position each time
    /// ([`StreamPosition`]), and made again when it delivers past it.
    async fn follow(mut self) {
        let mut warned = false;
        loop {
            let consumer = match self.consumer().await {
                Ok(c) => {
                    warned = false;
                    self.hub
                        .set_warning(&format!("network-{}", self.hall), None);
                    c
                }
                Err(e) => {
                    let (hall, stream_name) = (&self.hall, self.names.stream(&self.hall));
                    if !warned {
                        tracing::warn!(hall = %hall, "central: cannot follow hall {hall}'s stream {stream_name}: {e}; retrying");
                        warned = true;
                    }
                    self.hub.set_warning(
                        &format!("network-{hall}"),
                        Some(format!("Hall {hall}'s stream cannot be read ({e}): its boards show what came before.")),
                    );
                    tokio::time::sleep(RETRY_AFTER).await;
                    continue;
                }
            };
            while self.next_batch(&consumer).await {}
            tokio::time::sleep(RETRY_AFTER).await;
        }
    }

    /// A consumer of the hall's stream from the central's position (the consumer's own
    /// place is not trusted, see [`StreamPosition`]: it is made anew).
    async fn consumer(&mut self) -> Result<consumer::PullConsumer, String> {
        let mut stream = self
            .js
            .get_stream(&self.names.stream(&self.hall))
            .await
            .map_err(|e| e.to_string())?;
        let state = stream
            .info()
            .await
            .map_err(|e| e.to_string())?
            .state
            .clone();
        let start = self
            .position
            .start(state.first_sequence, state.last_sequence);
        let durable = Names::consumer(&self.hall);
        let _ = stream.delete_consumer(&durable).await;
        stream
            .create_consumer(consumer::pull::Config {
                durable_name: Some(durable),
                ack_policy: consumer::AckPolicy::All,
                deliver_policy: consumer::DeliverPolicy::ByStartSequence {
                    start_sequence: start,
                },
                ack_wait: Duration::from_secs(30),
                ..Default::default()
            })
            .await
            .map_err(|e| e.to_string())
    }

    /// Fetches, keeps, applies and acknowledges one batch. False when the consumer must be
    /// made again (a fetch failed, the stream must be read again, the file cannot be
    /// written).
    async fn next_batch(&mut self, consumer: &consumer::PullConsumer) -> bool {
        let hall = self.hall.clone();
        let batch = consumer
            .fetch()
            .max_messages(BATCH)
            .expires(FETCH_WAIT)
            .messages()
            .await;
        let mut batch = match batch {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(hall = %hall, "central: fetching from hall {hall}: {e}");
                return false;
            }
        };
        let mut got = Vec::new();
        let mut fetch_failed = false;
        while let Some(m) = batch.next().await {
            match m {
                Ok(m) => got.push(m),
                Err(e) => {
                    tracing::warn!(hall = %hall, "central: fetching from hall {hall}: {e}");
                    fetch_failed = true;
                    break;
                }
            }
        }
        let taken = self.take(&got);
        if !taken.lines.is_empty() {
            let mut file = &self.file;
            let kept = file
                .write_all(&taken.lines)
                .and_then(|()| self.file.sync_data());
            if let Err(e) = kept {
                tracing::error!("central: cannot keep hall {hall}'s events: {e}; not acknowledged, the server delivers them again");
                self.hub.set_warning(
                    &format!("central-file-{hall}"),
                    Some(format!("Cannot keep hall {hall}'s events: {e}")),
                );
                tokio::time::sleep(RETRY_AFTER).await;
                return false;
            }
            self.hub.set_warning(&format!("central-file-{hall}"), None);
        }
        self.position = taken.position;
        for e in taken.envelopes {
            apply(&self.merge, &self.hub, e, false);
        }
        if let Some(last) = taken.last {
            // AckPolicy::All: the last acknowledges the batch.
            if let Err(e) = last.ack().await {
                tracing::warn!(hall = %hall, "central: cannot acknowledge hall {hall}'s batch: {e} (delivered again; dropped by seq)");
            }
        }
        let reread = self.gap_waited_too_long();
        !(fetch_failed || taken.again || reread)
    }

    /// The batch's messages the central takes: the next ones of the stream, up to the
    /// first that is not; the hall's own events of this round that are new.
    fn take<'m>(&mut self, got: &'m [jetstream::Message]) -> Taken<'m> {
        let hall = &self.hall;
        let mut taken = Taken {
            position: self.position,
            lines: Vec::new(),
            envelopes: Vec::new(),
            last: None,
            again: false,
        };
        for m in got {
            let Some(stream_seq) = m.info().ok().map(|i| i.stream_sequence) else {
                tracing::warn!(hall = %hall, "central: a message of hall {hall}'s stream without its sequence; reading again from {}", taken.position.kept() + 1);
                taken.again = true;
                break;
            };
            match taken.position.delivered(stream_seq) {
                Delivery::Again => {
                    taken.last = Some(m);
                    continue;
                }
                Delivery::Gone { expected, got } => {
                    tracing::warn!(hall = %hall, "central: hall {hall}'s stream holds no messages {expected} to {}: deleted; going on from {got}", got - 1);
                }
                Delivery::Skipped { expected, got } => {
                    tracing::warn!(hall = %hall, "central: hall {hall}'s consumer delivered message {got} before {expected}; reading again from {expected}");
                    taken.again = true;
                    break;
                }
                Delivery::Next => {}
            }
            taken.position.keep(stream_seq);
            taken.last = Some(m);
            let board = Names::board_of_subject(m.subject.as_str());
            let msg_id = m
                .headers
                .as_ref()
                .and_then(|h| h.get(async_nats::header::NATS_MESSAGE_ID))
                .map(|v| v.as_str());
            match own_message(hall, board, &m.payload, msg_id) {
                Ok(e) if e.round == self.round => {
                    let is_new = self
                        .merge
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .is_new(&e);
                    if is_new {
                        taken.lines.extend(framed_line(stream_seq, &m.payload));
                        taken.envelopes.push(e);
                    }
                }
                Ok(_) => {}
                Err(why) => {
                    self.foreign += 1;
                    let foreign = self.foreign;
                    if worth_logging(foreign) {
                        tracing::warn!(hall = %hall, board, stream_seq, "central: hall {hall}'s stream message {stream_seq} on {} was not published by hall {hall}: {why}; skipped", m.subject);
                    }
                    self.hub.set_warning(
                        &format!("foreign-{hall}"),
                        Some(format!("Hall {hall}'s stream holds {foreign} messages hall {hall} did not publish (last: stream message {stream_seq} on {}: {why}). They are skipped; someone else publishes on the hall's subjects: give only the hall's user the right to publish there (docs/deployment.md).", m.subject)),
                    );
                }
            }
        }
        taken
    }

    /// Events that wait for a missing one past [`GAP_PATIENCE`]: the stream is read again
    /// from the start, once per gap (true: read it again now).
    fn gap_waited_too_long(&mut self) -> bool {
        let held = self
            .merge
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .held_by(&self.hall);
        if held == 0 {
            self.gap_since = None;
            self.reread_for_gap = false;
            return false;
        }
        let waited = self
            .gap_since
            .get_or_insert_with(std::time::Instant::now)
            .elapsed();
        if waited <= GAP_PATIENCE || self.reread_for_gap {
            return false;
        }
        let hall = &self.hall;
        tracing::warn!(hall = %hall, "central: {held} events of hall {hall} wait for a missing one; reading its stream again from the start");
        self.reread_for_gap = true;
        self.position.rewind();
        true
    }
}

/// Follows the boards' states in the event's bucket (position, clocks), and keeps each
/// board's last seq as its hall reports it (`reported`, for [`watch_lag`]).
async fn follow_states(
    js: jetstream::Context,
    names: Names,
    owner: BTreeMap<u32, HallId>,
    hub: Arc<Hub>,
    reported: Arc<Mutex<BTreeMap<u32, u64>>>,
    round: u32,
) {
    loop {
        let watch = async {
            let store: kv::Store = js
                .get_key_value(names.bucket())
                .await
                .map_err(|e| e.to_string())?;
            store
                .watch_with_history("board.>")
                .await
                .map_err(|e| e.to_string())
        }
        .await;
        let mut watch = match watch {
            Ok(w) => w,
            Err(_) => {
                tokio::time::sleep(RETRY_AFTER).await;
                continue;
            }
        };
        while let Some(entry) = watch.next().await {
            let Ok(entry) = entry else { break };
            let Ok(state) = serde_json::from_slice::<BoardState>(&entry.value) else {
                continue;
            };
            if owner.get(&state.board) != Some(&state.hall) {
                continue;
            }
            // A state of another round (a hall not moved on yet) says nothing of this one's.
            if state.round == round {
                reported
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(state.board, state.seq);
            }
            if let Some(s) = state.snapshot {
                hub.set_snapshot(state.board, s);
            }
        }
        tokio::time::sleep(RETRY_AFTER).await;
    }
}

/// How often the central compares what the halls report with what it has.
const LAG_EVERY: Duration = Duration::from_secs(2);
/// How long a board may stay behind its hall before the central says so: the hall puts
/// its states every half second and its events at once, so a moment behind is normal.
const LAG_PATIENCE: Duration = Duration::from_secs(10);

/// Warns, per hall, when the central stays behind the events its boards report (their
/// states in the bucket name each board's last seq): the events are not in the hall's
/// stream, or the central cannot take them. Cleared when it catches up.
async fn watch_lag(
    owner: BTreeMap<u32, HallId>,
    merge: Arc<Mutex<Merge>>,
    reported: Arc<Mutex<BTreeMap<u32, u64>>>,
    hub: Arc<Hub>,
) {
    let started = std::time::Instant::now();
    let mut lag = Lag::new();
    let halls: std::collections::BTreeSet<&HallId> = owner.values().collect();
    let mut tick = tokio::time::interval(LAG_EVERY);
    let mut said: std::collections::BTreeSet<HallId> = Default::default();
    loop {
        tick.tick().await;
        let boards: Vec<(u32, u64, u64)> = {
            let reported = reported.lock().unwrap_or_else(|p| p.into_inner());
            let merge = merge.lock().unwrap_or_else(|p| p.into_inner());
            reported
                .iter()
                .map(|(&b, &hall_seq)| (b, hall_seq, merge.last(b)))
                .collect()
        };
        let now_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let behind = lag.check(now_ms, LAG_PATIENCE.as_millis() as u64, boards);
        for &hall in &halls {
            let of_hall: Vec<_> = behind
                .iter()
                .filter(|b| owner.get(&b.board) == Some(hall))
                .collect();
            let key = format!("behind-{hall}");
            if of_hall.is_empty() {
                if said.remove(hall) {
                    tracing::info!(hall = %hall, "central: caught up with hall {hall}");
                }
                hub.set_warning(&key, None);
                continue;
            }
            let list = of_hall
                .iter()
                .map(|b| {
                    format!(
                        "board {} at event {} here, {} in the hall",
                        b.board, b.central_seq, b.hall_seq
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            if said.insert(hall.clone()) {
                tracing::warn!(hall = %hall, boards = of_hall.len(), "central: behind hall {hall}: {list}");
            }
            hub.set_warning(
                &key,
                Some(format!("The central is behind hall {hall} for more than {} s: {list}. The hall's events do not reach its stream (see the hall's dashboard and log), or the central cannot take them.", LAG_PATIENCE.as_secs())),
            );
        }
    }
}

/// Sends a central dashboard's command to the board's hall and brings its answer back.
#[derive(Debug)]
pub struct Forwarder {
    client: async_nats::Client,
    names: Names,
    owner: BTreeMap<u32, HallId>,
}

impl Forward for Forwarder {
    fn forward(&self, board: u32, command: Command) -> ForwardFuture {
        let Some(hall) = self.owner.get(&board).cloned() else {
            return Box::pin(std::future::ready(Err(ForwardError::Unreachable(format!(
                "board {board} is in no hall's manifest"
            )))));
        };
        let subject = self.names.actions(&hall);
        let request = ActionRequest { board, command };
        let client = self.client.clone();
        Box::pin(async move {
            let word = request.command.word();
            // Bounded: a hall that is stopped, or too busy to answer, must not hold the
            // arbiter's request open.
            let answer = tokio::time::timeout(
                crate::REQUEST_TIMEOUT,
                client.request(subject, request.to_json().into()),
            )
            .await;
            let msg = match answer {
                Err(_) => {
                    return Err(ForwardError::NoAnswer(format!(
                        "hall {hall} did not answer the {word} within {} s: whether it was carried out is not known here; look at board {board} (its events reach the central when the hall is back) before trying again",
                        crate::REQUEST_TIMEOUT.as_secs()
                    )))
                }
                Ok(Err(e)) => {
                    return Err(ForwardError::Unreachable(format!(
                        "hall {hall} cannot be reached ({e}): the {word} was not carried out"
                    )))
                }
                Ok(Ok(m)) => m,
            };
            match serde_json::from_slice::<ActionReply>(&msg.payload) {
                Ok(reply) => {
                    let body = reply.body.clone().unwrap_or_else(|| {
                        serde_json::json!({ "error": reply.error.clone().unwrap_or_default() })
                    });
                    if let Some(why) = &reply.error {
                        tracing::info!(board, hall = %hall, "central: hall {hall} refused the {word}: {why}");
                    }
                    Ok(Answer::of_status(reply.status(), body))
                }
                Err(e) => Err(ForwardError::Unreachable(format!(
                    "hall {hall} answered the {word} with something else ({e}): not known to be carried out"
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crash_safe;
    use touch_tracker::{ArbiterEvent, EventKind};

    fn envelope(seq: u64) -> Envelope {
        Envelope {
            v: hall_network::envelope::VERSION,
            hall: HallId::new("A").unwrap(),
            board: 1,
            round: 2,
            seq,
            wall_ms: 1_780_000_000_000 + seq,
            event: ArbiterEvent {
                t_ms: seq * 1000,
                board: "1".into(),
                kind: EventKind::NewGame {
                    fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
                },
            },
        }
    }

    fn merge_of_hall_a() -> Mutex<Merge> {
        let manifest = Manifest {
            v: 1,
            hall: HallId::new("A").unwrap(),
            round: 2,
            boards: vec![1],
            board_tables: String::new(),
        };
        Mutex::new(Merge::new(2, [&manifest]).unwrap())
    }

    #[test]
    fn a_damaged_line_of_the_central_file_is_detected_and_the_stream_read_again() {
        let dir = std::env::temp_dir().join(format!("central-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("A.jsonl");
        let mut text = Vec::new();
        for seq in 1..=3 {
            text.extend(framed_line(seq * 10, &envelope(seq).to_json()));
        }
        // One digit of the second line's wall clock changed on the disk: still JSON,
        // still an envelope, not what was received.
        let at = text
            .windows(13)
            .position(|w| w == b"1780000000002")
            .unwrap();
        text[at + 12] = b'7';
        std::fs::write(&path, &text).unwrap();
        let merge = merge_of_hall_a();
        let hub = Hub::new([1]);
        let (_file, had, position) = reload(&path, &merge, &hub, 2).unwrap();
        assert_eq!(had, 2, "the damaged line is not taken");
        assert_eq!(
            merge.lock().unwrap().last(1),
            1,
            "event 3 waits for event 2"
        );
        assert_eq!(
            position,
            StreamPosition::after(0),
            "the hall's stream is read again from the start for the damaged event"
        );
        // An older file, without framing, is still read.
        let mut old = Received::line(10, &envelope(1).to_json());
        old.push(b'\n');
        std::fs::write(&path, &old).unwrap();
        let merge = merge_of_hall_a();
        let (_file, had, position) = reload(&path, &merge, &hub, 2).unwrap();
        assert_eq!((had, position), (1, StreamPosition::after(10)));
        // What the central writes now is framed.
        assert!(
            crash_safe::unframe(framed_line(10, &envelope(1).to_json()).trim_ascii_end())
                .unwrap()
                .is_some()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
