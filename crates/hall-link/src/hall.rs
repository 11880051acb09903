//! A hall daemon on the event's network: publishes its round log and board states, and
//! answers the central's action requests. Runs beside the daemon's own sinks, fed by the
//! same hub; nothing here can stop or slow a board: when the server is unreachable the
//! hall goes on alone and the publisher sends the backlog, in order, when it returns.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use arbiter_dashboard::Dashboard;
use arbiter_hub::Hub;
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::message::StreamMessage;
use async_nats::jetstream::{self, kv, stream};
use daemon_config::Config;
use futures_util::StreamExt;
use hall_network::envelope::{self, BoardState, Envelope, Manifest};
use hall_network::{
    own_message, worth_logging, ActionReply, ActionRequest, Backlog, Chain, EventKey, Expect,
    Foreign, HallId, Names,
};
use tokio::task::JoinHandle;

/// How many publishes wait for their acks at once.
const IN_FLIGHT: usize = 256;
/// How often the board states are compared with what the bucket holds.
const STATES_EVERY: Duration = Duration::from_millis(500);
/// The pause before setting up again after the server failed.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// How long the server keeps message ids to drop a republish.
pub const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

/// The hub's warning key while the server cannot be reached.
const WARNING: &str = "network";
/// The hub's warning key once messages the hall did not publish were seen in its stream.
const FOREIGN_WARNING: &str = "network-foreign";

/// The hall's place in the event.
#[derive(Debug, Clone)]
pub struct HallLink {
    pub hall: HallId,
    pub names: Names,
    pub round: u32,
    pub boards: Vec<u32>,
}

impl HallLink {
    /// From the daemon's config; `None` without `[network] hall`.
    pub fn of(config: &Config) -> Option<Result<HallLink, hall_network::NameError>> {
        let net = config.network.as_ref()?;
        let hall = net.hall_id()?;
        Some(EventKey::new(&config.event.name).map(|key| HallLink {
            hall,
            names: Names::new(key),
            round: config.event.round,
            boards: config.boards.iter().map(|b| b.number).collect(),
        }))
    }
}

/// The hall's `[[board]]` tables as TOML, without ports (they are this PC's).
pub fn board_tables(config: &Config) -> String {
    board_tables_of(&std::fs::read_to_string(&config.path).unwrap_or_default())
}

/// [`board_tables`] of a config file's text.
fn board_tables_of(text: &str) -> String {
    // A whole document: `toml::Value`'s `FromStr` reads one value, not a file.
    let Ok(mut file) = toml::from_str::<toml::Table>(text) else {
        return String::new();
    };
    let Some(toml::Value::Array(mut boards)) = file.remove("board") else {
        return String::new();
    };
    for b in &mut boards {
        if let toml::Value::Table(t) = b {
            t.remove("port");
            t.remove("serial");
        }
    }
    let mut out = toml::map::Map::new();
    out.insert("board".into(), toml::Value::Array(boards));
    toml::to_string(&toml::Value::Table(out)).unwrap_or_default()
}

/// Starts the publisher and the responder of a hall daemon.
pub fn spawn(
    client: async_nats::Client,
    link: HallLink,
    config: Arc<Config>,
    hub: Arc<Hub>,
    dashboard: Option<Arc<Dashboard>>,
) -> Vec<JoinHandle<()>> {
    let manifest = Manifest {
        v: envelope::VERSION,
        hall: link.hall.clone(),
        round: link.round,
        boards: link.boards.clone(),
        board_tables: board_tables(&config),
    };
    vec![
        tokio::spawn(respond(client.clone(), link.clone(), dashboard)),
        tokio::spawn(publish(client, link, manifest, hub)),
    ]
}

/// The server refused or could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("{0}")]
    Nats(String),
    /// The stream's last message is not the one the publish named: a message the hall
    /// did not publish came between, or a publish was a duplicate.
    #[error("wrong last sequence (10071) or message id (10070)")]
    WrongLastSequence,
}

fn nats(e: impl std::fmt::Display) -> LinkError {
    LinkError::Nats(e.to_string())
}

/// Creates (or finds) the hall's stream and the event's bucket, puts the manifest, and
/// reads what the stream already holds of each board. Returns the bucket and the
/// stream's last sequence, the start of the publish chain ([`send_backlog`]).
async fn set_up(
    js: &jetstream::Context,
    link: &HallLink,
    manifest: &Manifest,
    backlog: &mut Backlog,
    foreign: &mut ForeignSeen,
) -> Result<(kv::Store, Chain), LinkError> {
    let mut stream = js
        .get_or_create_stream(stream::Config {
            name: link.names.stream(&link.hall),
            subjects: vec![link.names.hall_events(&link.hall)],
            storage: stream::StorageType::File,
            duplicate_window: DUPLICATE_WINDOW,
            ..Default::default()
        })
        .await
        .map_err(nats)?;
    let store = bucket(js, &link.names.bucket()).await?;
    store
        .put(
            Names::manifest_key(&link.hall),
            serde_json::to_vec(manifest).unwrap_or_default().into(),
        )
        .await
        .map_err(nats)?;
    // Read before the boards' last messages: a message another client slips in after
    // this is refused with "wrong last sequence" and read then ([`resync`]).
    let state = stream.info().await.map_err(nats)?.state.clone();
    for &b in &link.boards {
        let seq = stored_of_board(&stream, link, b, state.first_sequence, foreign).await?;
        backlog.stored(b, seq);
    }
    Ok((store, Chain::from_stream(state.last_sequence)))
}

/// The last seq of this round's events of board `board` that the stream holds: its last
/// message's, or, when that is not the hall's own (a message another client published
/// on the board's subject), the highest of the hall's own messages on the subject.
async fn stored_of_board(
    stream: &stream::Stream,
    link: &HallLink,
    board: u32,
    first_sequence: u64,
    foreign: &mut ForeignSeen,
) -> Result<u64, LinkError> {
    let subject = link.names.board_events(&link.hall, board);
    let last = match stream.get_last_raw_message_by_subject(&subject).await {
        Ok(m) => m,
        Err(e) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => return Ok(0),
        Err(e) => return Err(nats(e)),
    };
    let own = |m: &StreamMessage| {
        own_message(&link.hall, Some(board), &m.payload, msg_id_of(&m.headers)).map(|e| {
            if e.round == link.round {
                e.seq
            } else {
                0
            }
        })
    };
    let why = match own(&last) {
        Ok(seq) => return Ok(seq),
        Err(why) => why,
    };
    foreign.report(link, last.sequence, &last.subject, &why);
    // The hall's own messages of the board are 1..n of the round with no gap (the
    // chain): the highest one below the foreign message is the cursor.
    let mut highest = 0;
    let mut next = first_sequence.max(1);
    let mut read = 0;
    while next < last.sequence && read < SCAN_AT_MOST {
        let m = match stream
            .get_first_raw_message_by_subject(&subject, next)
            .await
        {
            Ok(m) => m,
            Err(e) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => break,
            Err(e) => return Err(nats(e)),
        };
        if m.sequence >= last.sequence {
            break;
        }
        match own(&m) {
            Ok(seq) => highest = highest.max(seq),
            Err(why) => foreign.report(link, m.sequence, &m.subject, &why),
        }
        next = m.sequence + 1;
        read += 1;
    }
    if read == SCAN_AT_MOST {
        // Sending the whole board again is safe: the server drops copies within its
        // duplicate window, the central the rest by seq.
        tracing::warn!(board, "network: board {board}'s subject holds more than {SCAN_AT_MOST} messages before a foreign one; sending the board's events again from the first");
        return Ok(0);
    }
    Ok(highest)
}

/// How many messages of one board's subject the hall reads to find its own last one.
const SCAN_AT_MOST: u64 = 20_000;

/// The `Nats-Msg-Id` header of a stored message.
fn msg_id_of(headers: &async_nats::HeaderMap) -> Option<&str> {
    headers
        .get(async_nats::header::NATS_MESSAGE_ID)
        .map(|v| v.as_str())
}

/// How many foreign messages' stream sequences the hall keeps, not to report one twice.
const REPORTED_AT_MOST: usize = 10_000;

/// The messages on the hall's subjects that the hall did not publish, as far as seen.
#[derive(Debug, Default)]
struct ForeignSeen {
    /// The stream sequences reported (each once, though set-up reads them again).
    reported: std::collections::BTreeSet<u64>,
    /// Those not read one by one (a flood).
    unread: u64,
    last: Option<String>,
}

impl ForeignSeen {
    /// Logs a message on the hall's subjects that the hall did not publish, once.
    fn report(&mut self, link: &HallLink, stream_seq: u64, subject: &str, why: &Foreign) {
        // The set stays bounded under a flood: past it, messages are counted only.
        if self.reported.len() >= REPORTED_AT_MOST {
            self.unread += 1;
        } else if !self.reported.insert(stream_seq) {
            return;
        }
        self.last = Some(format!("stream message {stream_seq} on {subject}: {why}"));
        if !worth_logging(self.count()) {
            return;
        }
        let board = Names::board_of_subject(subject);
        tracing::warn!(
            hall = %link.hall,
            board,
            stream_seq,
            "network: stream message {stream_seq} on {subject} was not published by hall {}: {why}; skipped, the hall's events go on (only the hall's user should publish on its subjects: docs/deployment.md)",
            link.hall
        );
    }

    fn count(&self) -> u64 {
        self.reported.len() as u64 + self.unread
    }

    /// The hall's dashboard warning (the first time and when more came).
    fn warn(&self, hub: &Hub, link: &HallLink) {
        let Some(last) = &self.last else { return };
        let count = self.count();
        hub.set_warning(
            FOREIGN_WARNING,
            Some(format!("Hall {}'s stream holds {count} messages this hall did not publish (last: {last}). They are skipped and the events go on being sent; someone else publishes on the hall's subjects: give only the hall's user the right to publish there (docs/deployment.md).", link.hall)),
        );
    }
}

/// After a "wrong last sequence" refusal: re-reads the stream's last sequence, reads the
/// messages the hall did not expect (its own whose acks were lost move the backlog on;
/// the others are reported) and moves the chain to the stream's last sequence.
async fn resync(
    js: &jetstream::Context,
    link: &HallLink,
    backlog: &mut Backlog,
    chain: &mut Chain,
    foreign: &mut ForeignSeen,
) -> Result<(), LinkError> {
    let mut stream = js
        .get_stream(link.names.stream(&link.hall))
        .await
        .map_err(nats)?;
    let last = stream.info().await.map_err(nats)?.state.last_sequence;
    let (to_read, unread) = chain.unexpected(last);
    foreign.unread += unread;
    if unread > 0 {
        tracing::warn!(hall = %link.hall, "network: {unread} messages the hall did not publish came before stream message {}; not read one by one", to_read.start);
    }
    for seq in to_read {
        let m = match stream.get_raw_message(seq).await {
            Ok(m) => m,
            // Deleted since.
            Err(e) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => continue,
            Err(e) => return Err(nats(e)),
        };
        let board = Names::board_of_subject(&m.subject);
        match own_message(&link.hall, board, &m.payload, msg_id_of(&m.headers)) {
            // A publish of ours whose ack was lost: stored all the same.
            Ok(e) if e.round == link.round => backlog.acked(e.board, e.seq),
            Ok(_) => {}
            Err(why) => foreign.report(link, m.sequence, &m.subject, &why),
        }
    }
    Ok(())
}

/// The event's KV bucket, made when missing. Not with `create_key_value`: that first
/// asks for the account's info, whose reply from nats-server 2.9 lacks the
/// `reserved_memory` and `reserved_storage` fields async-nats 0.46 requires, so it fails
/// ("data did not match any variant of untagged enum Response"). The bucket is a stream
/// like any other: the same config a KV bucket of one value per key gets.
pub async fn bucket(js: &jetstream::Context, name: &str) -> Result<kv::Store, LinkError> {
    js.get_or_create_stream(stream::Config {
        name: format!("KV_{name}"),
        subjects: vec![format!("$KV.{name}.>")],
        max_messages_per_subject: 1,
        storage: stream::StorageType::File,
        allow_rollup: true,
        deny_delete: true,
        allow_direct: true,
        discard: stream::DiscardPolicy::New,
        num_replicas: 1,
        ..Default::default()
    })
    .await
    .map_err(nats)?;
    js.get_key_value(name).await.map_err(nats)
}

async fn publish(client: async_nats::Client, link: HallLink, manifest: Manifest, hub: Arc<Hub>) {
    let js = jetstream::new(client);
    let mut backlog = Backlog::new();
    let mut changed = hub.changed();
    let mut states: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut warned = false;
    let mut foreign = ForeignSeen::default();
    loop {
        let set = set_up(&js, &link, &manifest, &mut backlog, &mut foreign).await;
        foreign.warn(&hub, &link);
        let (store, mut chain) = match set {
            Ok(set) => set,
            Err(e) => {
                if !warned {
                    tracing::warn!("network: cannot reach the event's stream: {e}; the hall goes on alone and sends its backlog when the server returns");
                    warned = true;
                }
                let waiting = waiting(&hub, &backlog);
                hub.set_warning(
                    WARNING,
                    Some(format!("The event network is unreachable ({e}): {waiting} events wait and are sent, in order, when it returns.")),
                );
                tokio::time::sleep(RETRY_AFTER).await;
                continue;
            }
        };
        tracing::info!(hall = %link.hall, "network: publishing to stream {}", link.names.stream(&link.hall));
        warned = false;
        hub.set_warning(WARNING, None);
        states.clear();
        // Every event before `from` is known stored.
        let mut from = 0usize;
        let mut tick = tokio::time::interval(STATES_EVERY);
        let mut states_due = true;
        let failure = loop {
            // The states (clocks change every second) at their own pace, first: the
            // central compares them with the events it has to see a hall it is behind.
            if states_due {
                if let Err(e) = put_states(&store, &link, &hub, &mut states).await {
                    break e;
                }
                states_due = false;
            }
            match send_backlog(&js, &link, &hub, &mut backlog, &mut from, &mut chain).await {
                Ok(()) => {}
                Err(LinkError::WrongLastSequence) => {
                    match resync(&js, &link, &mut backlog, &mut chain, &mut foreign).await {
                        Ok(()) => {
                            foreign.warn(&hub, &link);
                            continue;
                        }
                        Err(e) => break e,
                    }
                }
                Err(e) => break e,
            }
            tokio::select! {
                r = changed.changed() => if r.is_err() { return },
                _ = tick.tick() => states_due = true,
            }
        };
        tracing::warn!(hall = %link.hall, "network: publishing stopped: {failure}; the hall goes on alone and sends its backlog when the server returns");
        hub.set_warning(
            WARNING,
            Some(format!("The event network failed ({failure}): events wait and are sent, in order, when it returns.")),
        );
        tokio::time::sleep(RETRY_AFTER).await;
    }
}

fn waiting(hub: &Hub, backlog: &Backlog) -> usize {
    let log: Vec<(u32, u64)> = hub
        .events_since(0)
        .iter()
        .map(|e| (e.board, e.seq))
        .collect();
    backlog.to_send(&log).len()
}

/// Publishes every event of the log not known stored, in log order, a window at a time.
///
/// Each publish names what it must follow ([`Chain`]: a window's first publish the
/// stream's last sequence known, the others the message id of the one before), so the
/// server stores a window's events only as an unbroken run: when one is lost on the way
/// (the connection dropped under it and the client sent the next ones on the new
/// connection), every later one is refused instead of stored past a hole. That keeps
/// the stream, per board, the events 1..n with no gap, so the last message of a board's
/// subject is a sound cursor at the next set-up ([`Backlog::stored`]); without the chain,
/// a lost event below a stored one would never be sent again and the central would wait
/// for it for good. A message another client publishes on the hall's subjects moves the
/// stream under the chain: the refusal that follows ([`LinkError::WrongLastSequence`])
/// is healed by [`resync`], never waited out.
async fn send_backlog(
    js: &jetstream::Context,
    link: &HallLink,
    hub: &Hub,
    backlog: &mut Backlog,
    from: &mut usize,
    chain: &mut Chain,
) -> Result<(), LinkError> {
    loop {
        let events = hub.events_since(*from);
        let log: Vec<(u32, u64)> = events.iter().map(|e| (e.board, e.seq)).collect();
        let todo = backlog.to_send(&log);
        if todo.is_empty() {
            *from += events.len();
            return Ok(());
        }
        let mut acks = Vec::with_capacity(IN_FLIGHT.min(todo.len()));
        for &i in todo.iter().take(IN_FLIGHT) {
            let e = &events[i];
            let env = Envelope {
                v: envelope::VERSION,
                hall: link.hall.clone(),
                board: e.board,
                round: e.round,
                seq: e.seq,
                wall_ms: e.wall_ms,
                event: e.event.clone(),
            };
            let msg = jetstream::message::PublishMessage::build()
                .payload(env.to_json().into())
                .message_id(env.msg_id());
            let msg = match chain.publish(env.msg_id()) {
                Expect::Sequence(last) => msg.expected_last_sequence(last),
                Expect::MessageId(previous) => msg.expected_last_message_id(previous),
            };
            let ack = js
                .send_publish(link.names.board_events(&link.hall, e.board), msg)
                .await
                .map_err(nats)?;
            acks.push((e.board, e.seq, ack));
        }
        chain.end_window();
        for (board, seq, ack) in acks {
            match ack.await {
                Ok(a) if a.duplicate => {}
                Ok(a) => chain.stored(a.sequence),
                Err(e)
                    if matches!(
                        e.kind(),
                        PublishErrorKind::WrongLastSequence | PublishErrorKind::WrongLastMessageId
                    ) =>
                {
                    return Err(LinkError::WrongLastSequence)
                }
                Err(e) => return Err(nats(e)),
            }
            backlog.acked(board, seq);
        }
        // Skip the stored prefix next time.
        let stored = log
            .iter()
            .take_while(|(b, s)| *s <= backlog.acked_seq(*b))
            .count();
        *from += stored;
    }
}

/// Puts each board's state whose JSON changed since the last put, many at once (one at a
/// time, a hall of hundreds of boards would spend its loop waiting for the server).
async fn put_states(
    store: &kv::Store,
    link: &HallLink,
    hub: &Hub,
    last: &mut BTreeMap<u32, Vec<u8>>,
) -> Result<(), LinkError> {
    let mut changed = Vec::new();
    for b in hub.boards() {
        let state = BoardState {
            v: envelope::VERSION,
            hall: link.hall.clone(),
            board: b.number,
            round: link.round,
            seq: b.seq,
            snapshot: b.snapshot.clone(),
            driver: b.driver.as_ref().and_then(|d| serde_json::to_value(d).ok()),
        };
        let bytes = serde_json::to_vec(&state).unwrap_or_default();
        if last.get(&b.number) != Some(&bytes) {
            changed.push((b.number, bytes));
        }
    }
    let puts = futures_util::stream::iter(changed.into_iter().map(|(board, bytes)| async move {
        let put = store
            .put(Names::state_key(board), bytes.clone().into())
            .await;
        (board, bytes, put)
    }))
    .buffer_unordered(IN_FLIGHT)
    .collect::<Vec<_>>()
    .await;
    let mut failed = None;
    for (board, bytes, put) in puts {
        match put {
            Ok(_) => {
                last.insert(board, bytes);
            }
            Err(e) => failed = failed.or(Some(nats(e))),
        }
    }
    failed.map_or(Ok(()), Err)
}

/// Answers the central's action requests with the hall's own dashboard code.
async fn respond(client: async_nats::Client, link: HallLink, dashboard: Option<Arc<Dashboard>>) {
    let subject = link.names.actions(&link.hall);
    let mut requests = loop {
        match client.subscribe(subject.clone()).await {
            Ok(s) => break s,
            Err(e) => {
                tracing::warn!("network: cannot take action requests on {subject}: {e}; retrying");
                tokio::time::sleep(RETRY_AFTER).await;
            }
        }
    };
    while let Some(msg) = requests.next().await {
        let Some(reply_to) = msg.reply.clone() else {
            continue;
        };
        let reply = answer(&link, dashboard.as_ref(), &msg.payload).await;
        if let Err(e) = client.publish(reply_to, reply.to_json().into()).await {
            tracing::warn!("network: cannot answer an action request: {e}");
        }
    }
}

/// The hall's answer to one request of the central: what its own dashboard's route
/// answers for the command ([`Dashboard::execute`]). What it cannot read (not JSON, an
/// unknown command, a board of another hall) is refused with a 400 or 404 and logged.
async fn answer(
    link: &HallLink,
    dashboard: Option<&Arc<Dashboard>>,
    payload: &[u8],
) -> ActionReply {
    let refuse = |status: u16, why: String| {
        tracing::warn!(hall = %link.hall, "network: refused a request of the central: {why}");
        ActionReply {
            hall: link.hall.to_string(),
            status,
            body: Some(serde_json::json!({ "error": why })),
            error: Some(why),
        }
    };
    let req: ActionRequest = match serde_json::from_slice(payload) {
        Ok(r) => r,
        Err(e) => {
            return refuse(
                400,
                format!(
                    "not a command ({e}): expected {{\"board\": B, \"action\": WORD, ...}}, \
                     WORD one of ack, resolve, decision, accept, serial, moves, takeback"
                ),
            )
        }
    };
    if !link.boards.contains(&req.board) {
        return refuse(
            404,
            format!("board {} is not in hall {}", req.board, link.hall),
        );
    }
    let Some(dash) = dashboard else {
        return refuse(
            503,
            format!(
                "hall {} has no dashboard ([http] enabled = false)",
                link.hall
            ),
        );
    };
    let word = req.command.word();
    let answer = dash.execute(req.board, req.command).await;
    let error = answer.error_text();
    match &error {
        None => tracing::info!(
            board = req.board,
            hall = %link.hall,
            "network: the central's {word} carried out"
        ),
        Some(why) => tracing::info!(
            board = req.board,
            hall = %link.hall,
            status = answer.status.as_u16(),
            "network: the central's {word} refused: {why}"
        ),
    }
    ActionReply {
        hall: link.hall.to_string(),
        status: answer.status.as_u16(),
        body: Some(answer.body),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bad_requests_of_the_central_are_refused_with_a_reason() {
        let link = HallLink {
            hall: HallId::new("A").unwrap(),
            names: Names::new(EventKey::new("Open").unwrap()),
            round: 1,
            boards: vec![1, 2],
        };
        let refused = |r: ActionReply, status: u16, words: &str| {
            assert_eq!(r.status, status, "{r:?}");
            assert!(
                r.error.as_deref().is_some_and(|e| e.contains(words)),
                "{r:?}"
            );
            assert_eq!(r.body.as_ref().map(|b| b["error"].is_string()), Some(true));
        };
        refused(
            answer(&link, None, b"\xff not json").await,
            400,
            "not a command",
        );
        refused(
            answer(&link, None, br#"{"board":1,"action":"castle"}"#).await,
            400,
            "unknown variant `castle`",
        );
        refused(
            answer(
                &link,
                None,
                br#"{"board":1,"action":"takeback","to_ply":-3}"#,
            )
            .await,
            400,
            "not a command",
        );
        refused(
            answer(&link, None, br#"{"board":7,"action":"ack","alert":"7-1"}"#).await,
            404,
            "board 7 is not in hall A",
        );
        refused(
            answer(&link, None, br#"{"board":1,"action":"ack","alert":"1-1"}"#).await,
            503,
            "no dashboard",
        );
    }

    #[test]
    fn board_tables_keep_the_boards_without_their_ports() {
        let text = "[event]\nname = \"Open\"\n\n[[board]]\nnumber = 3\nport = \"/dev/ttyACM0\"\nwhite = \"Ann\"\n\n[[board]]\nnumber = 4\nserial = \"12345\"\n";
        let tables: toml::Table = toml::from_str(&board_tables_of(text)).unwrap();
        let boards = tables["board"].as_array().unwrap();
        assert_eq!(boards.len(), 2);
        assert_eq!(boards[0]["number"].as_integer(), Some(3));
        assert_eq!(boards[0]["white"].as_str(), Some("Ann"));
        assert!(boards[0].get("port").is_none());
        assert!(boards[1].get("serial").is_none());
        assert!(tables.get("event").is_none());
    }
}
