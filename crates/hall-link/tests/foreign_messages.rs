//! A message on a hall's subjects that the hall did not publish (any client of the
//! server: `PUB dgt.<event>.<hall>.<board>.events`), on the real `nats-server` installed
//! here: the hall keeps publishing, through a restart too; the central reaches the
//! hall's last event and warns of the foreign message; a central behind a hall's boards
//! says so; and the NATS permissions of docs/deployment.md let only the hall publish on
//! its subjects. Needs `nats-server`; skipped with a line saying so when it is missing,
//! unless `DGT_REQUIRE_NATS_SERVER=1`.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_hub::{Hub, HubEvent};
use async_nats::jetstream;
use common::{nats_server_or_skip, start_server, wait_until_listening};
use daemon_config::Config;
use hall_link::hall::{self, HallLink};
use hall_network::envelope::BoardState;
use hall_network::{HallId, Names};
use touch_tracker::{ArbiterEvent, EventKind};

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// What the hall and the central logged, all tests of this file together.
fn logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<u8>>>> = std::sync::OnceLock::new();
    Arc::clone(LOGS.get_or_init(|| {
        let logs: Arc<Mutex<Vec<u8>>> = Arc::default();
        let sink = Arc::clone(&logs);
        let _ = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || LogWriter(Arc::clone(&sink)))
            .try_init();
        logs
    }))
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        std::io::stderr().write_all(buf)?;
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logged() -> String {
    String::from_utf8_lossy(&logs().lock().unwrap()).into_owned()
}

fn test_dir(name: &str) -> PathBuf {
    logs();
    let dir = std::env::temp_dir().join(format!("hall-link-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The event's `[event]` section.
fn event_section() -> String {
    format!(
        "[event]\nname = \"Foreign Open\"\nsite = \"Test hall\"\ndate = \"2026-06-12\"\nround = 2\ntime_control = \"{}\"\n\n[output]\ndir = \"out\"\n",
        arbiter_demo::TIME_CONTROL
    )
}

/// Hall A's config with boards 1 and 2 (never opened: the test feeds the hub itself).
fn hall_config(dir: &Path, network: &str) -> Config {
    let path = dir.join("hall.toml");
    let mut text = event_section();
    text.push_str(&format!("\n[network]\n{network}\n"));
    for b in [1, 2] {
        text.push_str(&format!(
            "\n[[board]]\nnumber = {b}\nport = \"/dev/null-{b}\"\nwhite = \"White{b}, Ann\"\nblack = \"Black{b}, Bo\"\n"
        ));
    }
    std::fs::write(&path, text).unwrap();
    Config::load(&path).unwrap()
}

fn central_config(dir: &Path, network: &str) -> PathBuf {
    let central = dir.join("central");
    std::fs::create_dir_all(&central).unwrap();
    let path = central.join("central.toml");
    std::fs::write(
        &path,
        format!(
            "{}\n[http]\nbind = \"127.0.0.1:0\"\n\n[network]\n{network}\n",
            event_section()
        ),
    )
    .unwrap();
    path
}

/// Board `board`'s events `seqs` as the hall's trackers would give them.
fn events(board: u32, seqs: std::ops::RangeInclusive<u64>) -> Vec<HubEvent> {
    seqs.map(|seq| HubEvent {
        seq,
        board,
        round: 2,
        wall_ms: 1_780_000_000_000 + seq,
        replayed: false,
        event: ArbiterEvent {
            t_ms: seq * 1000,
            board: board.to_string(),
            kind: EventKind::NewGame {
                fen: START_FEN.into(),
            },
        },
    })
    .collect()
}

/// A hall's hub holding each board's events 1..=n, as its trackers (or, after a restart,
/// its journals) give them.
fn hub_with(boards: &[(u32, u64)]) -> Arc<Hub> {
    let hub = Arc::new(Hub::new([1, 2]));
    for &(board, last) in boards {
        hub.publish(events(board, 1..=last));
    }
    hub
}

/// A hall publisher on `hub`; its tasks.
fn start_hall(
    client: async_nats::Client,
    config: &Config,
    hub: &Arc<Hub>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let link = HallLink::of(config).unwrap().unwrap();
    hall::spawn(
        client,
        link,
        Arc::new(config.clone()),
        Arc::clone(hub),
        None,
    )
}

async fn wait_for<F: std::future::Future<Output = bool>>(
    what: &str,
    timeout: Duration,
    mut ok: impl FnMut() -> F,
) {
    let deadline = Instant::now() + timeout;
    while !ok().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The seq of the hall's last message on board `board`'s subject.
async fn last_in_stream(js: &jetstream::Context, board: u32) -> Option<u64> {
    let stream = js.get_stream("DGT_Foreign_Open_A").await.ok()?;
    let m = stream
        .get_last_raw_message_by_subject(&format!("dgt.Foreign_Open.A.{board}.events"))
        .await
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&m.payload).ok()?;
    v["seq"].as_u64()
}

/// A plain client of the server at `url`, once it takes clients.
async fn connect(url: &str) -> async_nats::Client {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match async_nats::connect(url).await {
            Ok(c) => return c,
            Err(e) => {
                assert!(
                    Instant::now() < deadline,
                    "nats-server did not come up: {e}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// The seqs of the envelopes on board `board`'s subject, in stream order.
async fn in_stream(js: &jetstream::Context, board: u32) -> Vec<u64> {
    let Ok(stream) = js.get_stream("DGT_Foreign_Open_A").await else {
        return Vec::new();
    };
    let subject = format!("dgt.Foreign_Open.A.{board}.events");
    let mut seqs = Vec::new();
    let mut next = 1;
    while let Ok(m) = stream
        .get_first_raw_message_by_subject(&subject, next)
        .await
    {
        let v: serde_json::Value = serde_json::from_slice(&m.payload).unwrap_or_default();
        if let Some(seq) = v["seq"].as_u64() {
            seqs.push(seq);
        }
        next = m.sequence + 1;
    }
    seqs
}

async fn stream_messages(js: &jetstream::Context) -> u64 {
    match js.get_stream("DGT_Foreign_Open_A").await {
        Ok(mut s) => s.info().await.map_or(0, |i| i.state.messages),
        Err(_) => 0,
    }
}

fn warning(hub: &Hub, key: &str) -> Option<String> {
    hub.warnings()
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

fn applied(hub: &Hub, board: u32) -> u64 {
    hub.board(board).map_or(0, |b| b.seq)
}

/// A central following hall A with this `[network]` body, and its hub.
async fn start_central(dir: &Path, network: &str) -> (hall_link::central::Central, Arc<Hub>) {
    start_central_in(dir, network, None).await
}

/// [`start_central`], speaking `language` (`central --lang`) if given.
async fn start_central_in(
    dir: &Path,
    network: &str,
    language: Option<messages::Language>,
) -> (hall_link::central::Central, Arc<Hub>) {
    let central = hall_link::central::start(&central_config(dir, network), language)
        .await
        .unwrap();
    let hub = Arc::clone(central.daemon().hub());
    (central, hub)
}

/// Waits until the central has applied each board's events up to the seq given.
async fn wait_applied(hub: &Arc<Hub>, seqs: &[(u32, u64)]) {
    wait_for(
        &format!("the central at {seqs:?}"),
        Duration::from_secs(20),
        || {
            let done = seqs.iter().all(|&(b, s)| applied(hub, b) == s);
            async move { done }
        },
    )
    .await;
}

/// A server with hall A's stream holding board 1's events 1 to 4 (and `more`), from a
/// running hall publisher.
struct Started {
    _server: common::Server,
    url: String,
    dir: PathBuf,
    config: Config,
    client: async_nats::Client,
    js: jetstream::Context,
    hub: Arc<Hub>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

async fn start(name: &str, more: &[(u32, u64)]) -> Option<Started> {
    let binary = nats_server_or_skip()?;
    let dir = test_dir(name);
    let (server, url) = start_server(&binary, &dir.join("nats"), &[]);
    wait_until_listening(&url).await;
    let config = hall_config(&dir, &format!("nats = \"{url}\"\nhall = \"A\""));
    let client = connect(&url).await;
    let js = jetstream::new(client.clone());
    let mut boards = vec![(1, 4)];
    boards.extend_from_slice(more);
    let hub = hub_with(&boards);
    let tasks = start_hall(client.clone(), &config, &hub);
    wait_for(
        "the hall's first events",
        Duration::from_secs(20),
        || async { last_in_stream(&js, 1).await == Some(4) },
    )
    .await;
    Some(Started {
        _server: server,
        url,
        dir,
        config,
        client,
        js,
        hub,
        tasks,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_message_mid_game_is_skipped_and_the_hall_feed_goes_on() {
    // Mid-game: board 1 at event 4, board 2 at event 2, all in the stream.
    let Some(Started {
        _server,
        url,
        dir,
        config,
        client,
        js,
        hub,
        tasks,
    }) = start("foreign", &[(2, 2)]).await
    else {
        return;
    };

    // Any client's plain message on board 1's subject, as in `PUB ... 5\r\nhello`.
    let stranger = connect(&url).await;
    stranger
        .publish("dgt.Foreign_Open.A.1.events", "hello".into())
        .await
        .unwrap();
    stranger.flush().await.unwrap();
    wait_for(
        "the foreign message in the stream",
        Duration::from_secs(5),
        || async { stream_messages(&js).await == 7 },
    )
    .await;
    hub.publish(events(1, 5..=8));
    // All of them, in order, with no hole (a hole would keep the central waiting).
    wait_for(
        "the hall's events after the foreign message",
        Duration::from_secs(10),
        || async { in_stream(&js, 1).await == (1..=8).collect::<Vec<_>>() },
    )
    .await;
    let said = warning(&hub, "network-foreign").expect("the hall reports the foreign message");
    assert!(said.contains("did not publish"), "{said}");
    assert!(
        warning(&hub, "network").is_none(),
        "the hall's feed is not stopped: {:?}",
        hub.warnings()
    );

    // A foreign message last on board 2's subject, then the hall restarts (its hub
    // regenerated from its journals): it finds its own last event of board 2 behind it
    // and goes on.
    stranger
        .publish("dgt.Foreign_Open.A.2.events", "{\"v\":1}".into())
        .await
        .unwrap();
    stranger.flush().await.unwrap();
    for t in tasks {
        t.abort();
    }
    let hub = hub_with(&[(1, 8), (2, 3)]);
    let _tasks = start_hall(client.clone(), &config, &hub);
    wait_for(
        "board 2's event after the restart",
        Duration::from_secs(10),
        || async { in_stream(&js, 2).await == [1, 2, 3] },
    )
    .await;
    assert!(warning(&hub, "network").is_none(), "{:?}", hub.warnings());
    let said = warning(&hub, "network-foreign").expect("the restarted hall reports it");
    assert!(said.contains("dgt.Foreign_Open.A.2.events"), "{said}");
    // Each event once: the restart sent nothing again.
    assert_eq!(
        stream_messages(&js).await,
        8 + 3 + 2,
        "8 + 3 events and 2 foreign messages"
    );

    // The central reaches the hall's last events and warns of the foreign messages.
    let (central, chub) = start_central(&dir, &format!("nats = \"{url}\"\nhalls = [\"A\"]")).await;
    wait_applied(&chub, &[(1, 8), (2, 3)]).await;
    let said = warning(&chub, "foreign-A").expect("the central warns of the foreign messages");
    assert!(said.contains("2 messages hall A did not publish"), "{said}");
    // And both logged it, naming the message.
    let logs = logged();
    for said in [
        "network: stream message 7 on dgt.Foreign_Open.A.1.events was not published by hall A",
        "central: hall A's stream message 7 on dgt.Foreign_Open.A.1.events was not published by hall A",
    ] {
        assert!(logs.contains(said), "not logged: {said}");
    }
    central.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_foreign_messages_neither_stops_the_hall_nor_floods_its_log() {
    let Some(Started {
        _server,
        url,
        dir,
        js,
        hub,
        ..
    }) = start("flood", &[]).await
    else {
        return;
    };
    let stranger = connect(&url).await;
    for n in 0..3000 {
        stranger
            .publish("dgt.Foreign_Open.A.2.events", format!("flood {n}").into())
            .await
            .unwrap();
    }
    stranger.flush().await.unwrap();
    wait_for(
        "the flood in the stream",
        Duration::from_secs(20),
        || async { stream_messages(&js).await == 3004 },
    )
    .await;
    hub.publish(events(1, 5..=8));
    wait_for(
        "the hall's events after the flood",
        Duration::from_secs(20),
        || async { in_stream(&js, 1).await == (1..=8).collect::<Vec<_>>() },
    )
    .await;
    let said = warning(&hub, "network-foreign").expect("the hall reports the flood");
    assert!(said.contains("3000 messages"), "{said}");
    // Each of this file's tests logs a few; the flood only its first ones and a count.
    let lines = logged()
        .lines()
        .filter(|l| l.contains("network: stream message"))
        .count();
    assert!(lines <= 30, "{lines} log lines for the foreign messages");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_central_warns_when_it_stays_behind_a_hall() {
    let Some(Started {
        _server,
        url,
        dir,
        js,
        tasks,
        ..
    }) = start("behind", &[]).await
    else {
        return;
    };
    for t in tasks {
        t.abort();
    }
    let (central, chub) = start_central(&dir, &format!("nats = \"{url}\"\nhalls = [\"A\"]")).await;
    wait_applied(&chub, &[(1, 4)]).await;
    // The hall says board 1 is at event 8, but events 5 to 8 never reach its stream.
    let store = hall::bucket(&js, "dgt_Foreign_Open").await.unwrap();
    let state = BoardState {
        v: 1,
        hall: HallId::new("A").unwrap(),
        board: 1,
        round: 2,
        seq: 8,
        snapshot: None,
        driver: None,
    };
    store
        .put(
            Names::state_key(1),
            serde_json::to_vec(&state).unwrap().into(),
        )
        .await
        .unwrap();
    let said: Arc<Mutex<Option<String>>> = Arc::default();
    wait_for("the central's warning", Duration::from_secs(25), || {
        let found = warning(&chub, "behind-A");
        *said.lock().unwrap() = found.clone();
        async move { found.is_some() }
    })
    .await;
    let said = said.lock().unwrap().clone().unwrap_or_default();
    assert!(
        said.contains("board 1 at event 4 here, 8 in the hall"),
        "{said}"
    );
    central.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 41: `central --lang ru` says the halls' rulings on its terminal in Russian (the
/// config's `[event] language` is English here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_central_says_the_halls_rulings_in_its_language() {
    let Some(Started {
        _server,
        url,
        dir,
        hub,
        tasks,
        ..
    }) = start("central-ru", &[]).await
    else {
        return;
    };
    let (central, chub) = start_central_in(
        &dir,
        &format!("nats = \"{url}\"\nhalls = [\"A\"]"),
        Some(messages::Language::Ru),
    )
    .await;
    wait_applied(&chub, &[(1, 4)]).await;
    let mut over = events(1, 5..=5);
    over[0].event.kind = EventKind::GameOver(touch_tracker::events::GameOverEvent {
        result: chess_rules::GameResult::WhiteWins,
        reason: touch_tracker::EndReason::Resignation,
        flag: None,
        undetermined: false,
        plies: 0,
    });
    hub.publish(over);
    wait_for(
        "the central's ruling line in Russian",
        Duration::from_secs(25),
        || {
            let said = logged().contains("доска 1: партия окончена");
            async move { said }
        },
    )
    .await;
    assert!(!logged().contains("board 1: game over"), "{}", logged());
    for t in tasks {
        t.abort();
    }
    central.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// docs/deployment.md's permissions, with the passwords of this test.
fn permissions_conf(store: &Path, port: u16) -> String {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/deployment.md"),
    )
    .unwrap();
    // The block between the markers of the permissions example.
    let start = doc
        .find("# nats-server.conf: permissions")
        .expect("docs/deployment.md has the permissions example");
    let end = start + doc[start..].find("```").expect("the example's end");
    let block = doc[start..end]
        .replace("<event>", "Foreign_Open")
        .replace("<hall-A-password>", "pw-a")
        .replace("<hall-B-password>", "pw-b")
        .replace("<central-password>", "pw-c")
        .replace("<viewer-password>", "pw-v");
    format!(
        "listen: 127.0.0.1:{port}\njetstream {{ store_dir: \"{}\" }}\n{block}",
        store.display()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_hall_may_publish_on_its_subjects_with_the_documented_permissions() {
    let Some(binary) = nats_server_or_skip() else {
        return;
    };
    let dir = test_dir("permissions");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conf = dir.join("nats-server.conf");
    std::fs::write(&conf, permissions_conf(&dir.join("store"), port)).unwrap();
    let _server = common::Server(
        std::process::Command::new(&binary)
            .arg("-c")
            .arg(&conf)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let url = format!("nats://127.0.0.1:{port}");
    wait_until_listening(&url).await;

    // Hall A with its user publishes its events.
    let config = hall_config(
        &dir,
        &format!("nats = \"{url}\"\nhall = \"A\"\nuser = \"hall_A\"\npassword = \"pw-a\""),
    );
    let hall_client =
        hall_link::connect::connect(config.network.as_ref().unwrap(), &dir, "test hall A")
            .await
            .unwrap();
    let hub = hub_with(&[(1, 3)]);
    let _tasks = start_hall(hall_client, &config, &hub);

    // The central with its user follows it.
    let (central, chub) = start_central(
        &dir,
        &format!("nats = \"{url}\"\nhalls = [\"A\"]\nuser = \"central\"\npassword = \"pw-c\""),
    )
    .await;
    wait_applied(&chub, &[(1, 3)]).await;

    // Any other user, hall B's and the central's are refused on hall A's subjects.
    for (user, password) in [("viewer", "pw-v"), ("hall_B", "pw-b"), ("central", "pw-c")] {
        let errors: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = Arc::clone(&errors);
        let other =
            async_nats::ConnectOptions::with_user_and_password(user.into(), password.into())
                .event_callback(move |event| {
                    let seen = Arc::clone(&seen);
                    async move { seen.lock().unwrap().push(event.to_string()) }
                })
                .connect(&url)
                .await
                .unwrap();
        other
            .publish("dgt.Foreign_Open.A.1.events", "hello".into())
            .await
            .unwrap();
        other.flush().await.unwrap();
        wait_for(
            &format!("the server's refusal of {user}"),
            Duration::from_secs(5),
            || {
                let refused = errors
                    .lock()
                    .unwrap()
                    .iter()
                    .any(|e| e.to_lowercase().contains("permissions violation"));
                async move { refused }
            },
        )
        .await;
    }
    // Nothing but the hall's events in its stream, and the hall goes on.
    hub.publish(events(1, 4..=5));
    wait_applied(&chub, &[(1, 5)]).await;
    assert!(
        warning(&chub, "foreign-A").is_none(),
        "{:?}",
        chub.warnings()
    );
    let admin = async_nats::ConnectOptions::with_user_and_password("hall_A".into(), "pw-a".into())
        .connect(&url)
        .await
        .unwrap();
    let held = stream_messages(&jetstream::new(admin)).await;
    assert_eq!(held, 5, "only the hall's 5 events");
    central.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
