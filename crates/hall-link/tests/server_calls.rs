//! Every JetStream call the hall link and the central make, against the real
//! `nats-server` installed here (Debian 12's is 2.9.10, the oldest we support): the
//! hall's stream, the event's bucket, a publish and its deduplicated republish, the last
//! message of a board's subject, the central's durable pull consumer and the bucket's
//! watch; and a client set up from `[network]` with a user and a password file. Needs
//! `nats-server` (Debian package `nats-server`); skipped with a line saying
//! so when it is missing, unless `DGT_REQUIRE_NATS_SERVER=1` (set by `.ci/run`).

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{nats_server_or_skip, start_server};

use async_nats::jetstream::{self, consumer, stream};
use futures_util::StreamExt;

#[tokio::test]
async fn a_client_from_the_network_section_logs_in_with_the_password_file() {
    let Some(binary) = nats_server_or_skip() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("hall-link-login-{}", std::process::id()));
    let (_server, url) = start_server(&binary, &dir, &["--user", "hall_a", "--pass", "s3cret-a"]);
    let js_with = |password: &str| {
        std::fs::write(dir.join("nats-password"), format!("{password}\n")).unwrap();
        let net: hall_network::NetworkConfig = toml::from_str(&format!(
            "nats = \"{url}\"\nhall = \"A\"\nuser = \"hall_a\"\npassword_file = \"nats-password\"\n"
        ))
        .unwrap();
        let dir = dir.clone();
        async move {
            let client = hall_link::connect::connect(&net, &dir, "test hall A")
                .await
                .unwrap();
            jetstream::new(client)
        }
    };
    let stream = |js: jetstream::Context| async move {
        tokio::time::timeout(
            Duration::from_secs(10),
            js.get_or_create_stream(stream::Config {
                name: "DGT_T_A".into(),
                subjects: vec!["dgt.T.A.*.events".into()],
                ..Default::default()
            }),
        )
        .await
    };
    // The right password (the file's first line) is let in: the stream is made.
    let made = stream(js_with("s3cret-a").await).await;
    assert!(matches!(made, Ok(Ok(_))), "{made:?}");
    // A wrong one is not: the client keeps trying and the request never succeeds.
    let refused = stream(js_with("wrong").await).await;
    assert!(!matches!(refused, Ok(Ok(_))), "{refused:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_calls_we_make_work_on_the_installed_server() {
    let Some(binary) = nats_server_or_skip() else {
        return;
    };
    let version = Command::new(&binary).arg("--version").output().unwrap();
    eprintln!("{}", String::from_utf8_lossy(&version.stdout).trim());
    let store_dir = std::env::temp_dir().join(format!("hall-link-calls-{}", std::process::id()));
    let (_server, url) = start_server(&binary, &store_dir, &[]);
    let deadline = Instant::now() + Duration::from_secs(20);
    let client = loop {
        match async_nats::connect(&url).await {
            Ok(c) => break c,
            Err(e) => {
                assert!(
                    Instant::now() < deadline,
                    "nats-server did not come up: {e}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    let js = jetstream::new(client);

    // The hall's stream, made once and found the second time.
    let config = stream::Config {
        name: "DGT_T_A".into(),
        subjects: vec!["dgt.T.A.*.events".into()],
        storage: stream::StorageType::File,
        duplicate_window: hall_link::hall::DUPLICATE_WINDOW,
        ..Default::default()
    };
    let stream = js.get_or_create_stream(config.clone()).await.unwrap();
    js.get_or_create_stream(config).await.unwrap();

    // The event's bucket (made by us, see `hall::bucket`), twice, and a value.
    let store = hall_link::hall::bucket(&js, "dgt_T").await.unwrap();
    hall_link::hall::bucket(&js, "dgt_T").await.unwrap();
    store.put("hall.A", "boards".into()).await.unwrap();
    store.put("hall.A", "boards 1 2".into()).await.unwrap();
    let value = store.get("hall.A").await.unwrap();
    assert_eq!(value.as_deref(), Some(&b"boards 1 2"[..]));

    // No message yet on a board's subject.
    let none = stream
        .get_last_raw_message_by_subject("dgt.T.A.1.events")
        .await
        .unwrap_err();
    assert_eq!(none.kind(), stream::LastRawMessageErrorKind::NoMessageFound);

    // A publish, and the same message id again: stored once.
    for payload in ["first", "first again", "second"] {
        let id = if payload == "second" {
            "A-2-1-2"
        } else {
            "A-2-1-1"
        };
        let msg = jetstream::message::PublishMessage::build()
            .payload(payload.into())
            .message_id(id);
        let ack = js
            .send_publish("dgt.T.A.1.events", msg)
            .await
            .unwrap()
            .await
            .unwrap();
        assert_eq!(
            ack.duplicate,
            payload == "first again",
            "{payload}: {ack:?}"
        );
    }
    let last = stream
        .get_last_raw_message_by_subject("dgt.T.A.1.events")
        .await
        .unwrap();
    assert_eq!(&last.payload[..], b"second");

    // The central's durable pull consumer: both messages, acknowledged by the last.
    let durable = "central_A".to_owned();
    let consumer_config = consumer::pull::Config {
        durable_name: Some(durable.clone()),
        ack_policy: consumer::AckPolicy::All,
        deliver_policy: consumer::DeliverPolicy::All,
        ack_wait: Duration::from_secs(30),
        ..Default::default()
    };
    let consumer = stream
        .get_or_create_consumer(&durable, consumer_config.clone())
        .await
        .unwrap();
    let mut batch = consumer
        .fetch()
        .max_messages(10)
        .expires(Duration::from_secs(1))
        .messages()
        .await
        .unwrap();
    let mut got = Vec::new();
    while let Some(m) = batch.next().await {
        got.push(m.unwrap());
    }
    let payloads: Vec<&[u8]> = got.iter().map(|m| &m.payload[..]).collect();
    assert_eq!(payloads, [&b"first"[..], &b"second"[..]]);
    got.last().unwrap().ack().await.unwrap();
    // Found again (a restarted central), with nothing left to deliver.
    let consumer = stream
        .get_or_create_consumer(&durable, consumer_config)
        .await
        .unwrap();
    let mut batch = consumer
        .fetch()
        .max_messages(10)
        .expires(Duration::from_millis(500))
        .messages()
        .await
        .unwrap();
    assert!(batch.next().await.is_none(), "all acknowledged");
    stream.delete_consumer(&durable).await.unwrap();

    // The hall's publish chain: each publish names the stream sequence it must follow;
    // the server stores the right one and refuses one past a hole.
    let chained = |payload: &'static str, id: &str, after: u64| {
        jetstream::message::PublishMessage::build()
            .payload(payload.into())
            .message_id(id)
            .expected_last_sequence(after)
    };
    let ack = js
        .send_publish("dgt.T.A.1.events", chained("third", "A-2-1-3", 2))
        .await
        .unwrap()
        .await
        .unwrap();
    assert_eq!(ack.sequence, 3);
    let past_a_hole = js
        .send_publish("dgt.T.A.1.events", chained("fifth", "A-2-1-5", 4))
        .await
        .unwrap()
        .await;
    assert!(past_a_hole.is_err(), "{past_a_hole:?}");
    let mut stream = stream;
    assert_eq!(stream.info().await.unwrap().state.last_sequence, 3);

    // Why the central does not trust a durable consumer's place: a batch handed to a
    // fetch that never acknowledges it (a central killed mid-batch) is skipped by the
    // next fetch, and AckPolicy::All's next ack would take it along.
    let fetch_all = |consumer: consumer::Consumer<consumer::pull::Config>, n: usize| async move {
        let mut batch = consumer
            .fetch()
            .max_messages(n)
            .expires(Duration::from_secs(2))
            .messages()
            .await
            .unwrap();
        let mut seqs = Vec::new();
        while let Some(m) = batch.next().await {
            seqs.push(m.unwrap().info().unwrap().stream_sequence);
        }
        seqs
    };
    let consumer = consumer_from(&stream, consumer::DeliverPolicy::All).await;
    assert_eq!(
        fetch_all(consumer.clone(), 1).await,
        [1],
        "handed out, never kept"
    );
    assert_eq!(
        fetch_all(consumer, 10).await,
        [2, 3],
        "message 1 is skipped"
    );
    // So the central makes its consumer at its own position, from its file.
    stream.delete_consumer(&durable).await.unwrap();
    let consumer = consumer_from(
        &stream,
        consumer::DeliverPolicy::ByStartSequence { start_sequence: 2 },
    )
    .await;
    assert_eq!(fetch_all(consumer, 10).await, [2, 3]);
    stream.delete_consumer(&durable).await.unwrap();
    // A message deleted from the stream: a consumer made at it delivers the next one
    // first (`Delivery::Gone`), and the stream's state names its first.
    stream.delete_message(2).await.unwrap();
    let consumer = consumer_from(
        &stream,
        consumer::DeliverPolicy::ByStartSequence { start_sequence: 2 },
    )
    .await;
    assert_eq!(fetch_all(consumer, 10).await, [3]);
    stream.delete_consumer(&durable).await.unwrap();
    stream.delete_message(1).await.unwrap();
    assert_eq!(stream.info().await.unwrap().state.first_sequence, 3);

    // The bucket's watch, from its history.
    let mut watch = store.watch_with_history("hall.>").await.unwrap();
    let entry = tokio::time::timeout(Duration::from_secs(5), watch.next())
        .await
        .expect("the watch delivers the value")
        .unwrap()
        .unwrap();
    assert_eq!(entry.key, "hall.A");
    assert_eq!(&entry.value[..], b"boards 1 2");
    let _ = std::fs::remove_dir_all(&store_dir);
}

/// The central's durable pull consumer (as `central::follow` makes it), from `deliver`.
async fn consumer_from(
    stream: &stream::Stream,
    deliver: consumer::DeliverPolicy,
) -> consumer::Consumer<consumer::pull::Config> {
    stream
        .create_consumer(consumer::pull::Config {
            durable_name: Some("central_A".to_owned()),
            ack_policy: consumer::AckPolicy::All,
            deliver_policy: deliver,
            ack_wait: Duration::from_secs(30),
            ..Default::default()
        })
        .await
        .unwrap()
}
