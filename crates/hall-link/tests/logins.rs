//! The nkey and TLS logins of `[network]` against the real `nats-server` installed here
//! (Debian 12's 2.9.10): a user nkey made by the test and let in by the server's
//! `authorization` block, a wrong one refused, a seed file that holds no seed named; a
//! CA and a server certificate made by the test, `tls://` with `tls_ca` let in (with an
//! nkey and with a password), without `tls_ca` refused, and `tls://` against a server
//! without TLS refused, each with an error saying what to check. Needs `nats-server`;
//! skipped with a line saying so when it is missing, unless `DGT_REQUIRE_NATS_SERVER=1`.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_nats::jetstream::{self, stream};
use common::{make_certificates, nats_server_or_skip, start_server, wait_until_listening};
use hall_network::NetworkConfig;

fn test_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hall-link-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn network(section: &str) -> NetworkConfig {
    toml::from_str(section).unwrap()
}

/// A server started with the config file `conf` (written into `dir`); its `nats://` URL.
fn start_with_config(binary: &Path, dir: &Path, conf: &str) -> (common::Server, String) {
    let path = dir.join("nats-server.conf");
    std::fs::write(&path, conf).unwrap();
    start_server(binary, &dir.join("server"), &["-c", path.to_str().unwrap()])
}

/// The hall's calls through this client: its stream, a publish with a message id read
/// back as the subject's last message, and a value in the event's bucket. `Err` when
/// they do not succeed within `bound` (a refused client keeps retrying for ever).
async fn jetstream_works(client: async_nats::Client, bound: Duration) -> Result<(), String> {
    let js = jetstream::new(client);
    let calls = async {
        let s = js
            .get_or_create_stream(stream::Config {
                name: "DGT_T_A".into(),
                subjects: vec!["dgt.T.A.*.events".into()],
                duplicate_window: hall_link::hall::DUPLICATE_WINDOW,
                ..Default::default()
            })
            .await
            .map_err(|e| e.to_string())?;
        let msg = jetstream::message::PublishMessage::build()
            .payload("first".into())
            .message_id("A-1-1-1");
        js.send_publish("dgt.T.A.1.events", msg)
            .await
            .map_err(|e| e.to_string())?
            .await
            .map_err(|e| e.to_string())?;
        let last = s
            .get_last_raw_message_by_subject("dgt.T.A.1.events")
            .await
            .map_err(|e| e.to_string())?;
        if &last.payload[..] != b"first" {
            return Err(format!("read back {:?}", last.payload));
        }
        let store = hall_link::hall::bucket(&js, "dgt_T")
            .await
            .map_err(|e| e.to_string())?;
        store
            .put("hall.A", "boards 1".into())
            .await
            .map_err(|e| e.to_string())?;
        Ok(())
    };
    tokio::time::timeout(bound, calls)
        .await
        .map_err(|_| format!("no answer within {bound:?}"))?
}

/// Let in: one checked login, and the retrying client's JetStream calls.
async fn let_in(net: &NetworkConfig, dir: &Path) {
    hall_link::connect::check_login(net, dir).await.unwrap();
    let client = hall_link::connect::connect(net, dir, "test hall A")
        .await
        .unwrap();
    jetstream_works(client, Duration::from_secs(30))
        .await
        .unwrap();
}

/// Refused: the checked login's error (returned, to be read), and the retrying client
/// gets nowhere.
async fn refused(net: &NetworkConfig, dir: &Path) -> String {
    let e = hall_link::connect::check_login(net, dir)
        .await
        .expect_err("the login is refused")
        .to_string();
    let client = hall_link::connect::connect(net, dir, "test hall A")
        .await
        .unwrap();
    let calls = jetstream_works(client, Duration::from_secs(3)).await;
    assert!(calls.is_err(), "a refused client's calls succeeded");
    eprintln!("refused: {e}");
    e
}

#[tokio::test]
async fn an_nkey_seed_file_logs_in_and_a_wrong_or_malformed_one_is_named() {
    let Some(binary) = nats_server_or_skip() else {
        return;
    };
    let dir = test_dir("nkey");
    let hall_a = nkeys::KeyPair::new_user();
    let (_server, url) = start_with_config(
        &binary,
        &dir,
        &format!(
            "authorization {{\n  users = [\n    {{ nkey: \"{}\" }}\n  ]\n}}\n",
            hall_a.public_key()
        ),
    );
    wait_until_listening(&url).await;
    let with_seed = |file: &str, seed: &str| {
        std::fs::write(dir.join(file), format!("{seed}\n")).unwrap();
        network(&format!(
            "nats = \"{url}\"\nhall = \"A\"\nnkey_seed_file = \"{file}\"\n"
        ))
    };

    // The hall's seed, in a file relative to the config's folder.
    let_in(&with_seed("hall-a.nk", &hall_a.seed().unwrap()), &dir).await;

    // Another user's seed: refused, naming the key the server did not know and its file.
    let other = nkeys::KeyPair::new_user();
    let e = refused(&with_seed("other.nk", &other.seed().unwrap()), &dir).await;
    assert!(e.contains("authorization violation"), "{e}");
    assert!(e.contains(&other.public_key()), "{e}");
    assert!(e.contains("other.nk"), "{e}");
    assert!(
        !e.contains(&other.seed().unwrap()),
        "a seed is never shown: {e}"
    );

    // Not a seed, an account's seed, no file: errors of the config, naming the file.
    let connect = |net: NetworkConfig| {
        let dir = dir.clone();
        async move {
            hall_link::connect::connect(&net, &dir, "test hall A")
                .await
                .map(|_| ())
                .unwrap_err()
                .to_string()
        }
    };
    let e = connect(with_seed("garbage.nk", "not a seed at all")).await;
    assert!(e.contains("garbage.nk"), "{e}");
    assert!(e.contains("does not hold a user nkey seed"), "{e}");
    let account = nkeys::KeyPair::new_account();
    let e = connect(with_seed("account.nk", &account.seed().unwrap())).await;
    assert!(e.contains("account.nk"), "{e}");
    assert!(e.contains("not of a user"), "{e}");
    assert!(!e.contains(&account.seed().unwrap()), "{e}");
    let e = connect(network(&format!(
        "nats = \"{url}\"\nhall = \"A\"\nnkey_seed_file = \"missing.nk\"\n"
    )))
    .await;
    assert!(e.contains("cannot read the nkey seed file"), "{e}");
    assert!(e.contains("missing.nk"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn tls_with_the_event_ca_logs_in_and_an_untrusted_or_plain_server_is_named() {
    let Some(binary) = nats_server_or_skip() else {
        return;
    };
    let dir = test_dir("tls");
    make_certificates(&dir);
    let hall_a = nkeys::KeyPair::new_user();
    std::fs::write(dir.join("hall-a.nk"), hall_a.seed().unwrap()).unwrap();
    std::fs::write(dir.join("nats-password"), "s3cret-b\n").unwrap();
    let (_server, url) = start_with_config(
        &binary,
        &dir,
        &format!(
            // The logins in an account of the event (as docs/deployment.md shows).
            // A handshake gets 5 s, not nats-server's 0.5 s: the debug build's rustls on a
            // busy 2-core CI machine missed that once (the server reset the connection).
            "tls {{\n  cert_file: \"{}\"\n  key_file: \"{}\"\n  timeout: 5\n}}\n\
             accounts {{\n  EVENT: {{\n    jetstream: enabled\n    users: [\n      \
             {{ nkey: \"{}\" }}\n      {{ user: \"hall_b\", password: \"s3cret-b\" }}\n    \
             ]\n  }}\n}}\n",
            dir.join("server-cert.pem").display(),
            dir.join("server-key.pem").display(),
            hall_a.public_key()
        ),
    );
    wait_until_listening(&url).await;
    let tls_url = url.replace("nats://", "tls://");
    let nkey = "nkey_seed_file = \"hall-a.nk\"\n";
    let password = "user = \"hall_b\"\npassword_file = \"nats-password\"\n";

    // tls:// with the event's CA: with an nkey, and with a user and password.
    for login in [nkey, password] {
        let_in(
            &network(&format!(
                "nats = \"{tls_url}\"\nhall = \"A\"\ntls_ca = \"ca.pem\"\n{login}"
            )),
            &dir,
        )
        .await;
    }

    // Without tls_ca the server's certificate is signed by a CA nobody trusts.
    let e = refused(
        &network(&format!("nats = \"{tls_url}\"\nhall = \"A\"\n{nkey}")),
        &dir,
    )
    .await;
    assert!(e.contains("TLS failed"), "{e}");
    assert!(e.contains("UnknownIssuer"), "{e}");
    assert!(e.contains("name the event's CA in tls_ca"), "{e}");

    // Another event's CA: refused, naming the file.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    make_certificates(&other);
    let e = refused(
        &network(&format!(
            "nats = \"{tls_url}\"\nhall = \"A\"\ntls_ca = \"other/ca.pem\"\n{nkey}"
        )),
        &dir,
    )
    .await;
    assert!(
        e.contains("not signed by the CA in tls_ca other/ca.pem"),
        "{e}"
    );

    // A CA file that holds no certificate: an error of the config naming it.
    std::fs::write(dir.join("not-a-ca.pem"), "hello\n").unwrap();
    let net = network(&format!(
        "nats = \"{tls_url}\"\nhall = \"A\"\ntls_ca = \"not-a-ca.pem\"\n{nkey}"
    ));
    let e = hall_link::connect::connect(&net, &dir, "test hall A")
        .await
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not-a-ca.pem"), "{e}");
    assert!(e.contains("no PEM certificate"), "{e}");

    // tls:// against a server without TLS: refused (not a wait for ever), saying TLS.
    let plain_dir = dir.join("plain");
    let (_plain, plain_url) = start_server(&binary, &plain_dir, &[]);
    wait_until_listening(&plain_url).await;
    let e = refused(
        &network(&format!(
            "nats = \"{}\"\nhall = \"A\"\ntls_ca = \"ca.pem\"\n",
            plain_url.replace("nats://", "tls://")
        )),
        &dir,
    )
    .await;
    assert!(e.contains("TLS failed"), "{e}");
    assert!(e.contains("it has no TLS"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
