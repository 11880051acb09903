//! What the tests against the real `nats-server` share: finding it (or skipping
//! visibly, unless `DGT_REQUIRE_NATS_SERVER=1`), starting one on a free port, and the
//! test event's TLS certificates. Also included by the workspace's
//! `tests/hall_network.rs`.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub fn nats_server_binary() -> Option<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")])
        .map(|d| d.join("nats-server"))
        .find(|p| p.is_file())
}

/// The server, killed when dropped.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The installed nats-server; `None` (after a line saying so) when a test must skip.
pub fn nats_server_or_skip() -> Option<PathBuf> {
    let binary = nats_server_binary();
    if binary.is_none() {
        if std::env::var("DGT_REQUIRE_NATS_SERVER").as_deref() == Ok("1") {
            panic!("nats-server is required (DGT_REQUIRE_NATS_SERVER=1) but not installed: apt-get install nats-server");
        }
        eprintln!("skipped: nats-server is not installed (apt-get install nats-server)");
    }
    binary
}

/// A JetStream server on a free loopback port with its own store in `dir`, with these
/// extra arguments; its URL.
pub fn start_server(binary: &Path, dir: &Path, extra: &[&str]) -> (Server, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let server = Server(
        Command::new(binary)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(dir.join("store"))
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    (server, format!("nats://127.0.0.1:{port}"))
}

/// Waits until the server at `url` (`nats://` or `tls://` `127.0.0.1:PORT`) takes TCP
/// connections: a single attempt to log in needs the server up.
pub async fn wait_until_listening(url: &str) {
    let addr = url.rsplit("//").next().unwrap().to_owned();
    for _ in 0..400 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nats-server at {url} did not come up in 20 s");
}

/// A CA, and a certificate it signed for `127.0.0.1` and `localhost`, as PEM files in
/// `dir`: `ca.pem`, `server-cert.pem`, `server-key.pem`.
pub fn make_certificates(dir: &Path) {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
        KeyUsagePurpose,
    };
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "test event CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut server = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()]).unwrap();
    server
        .distinguished_name
        .push(DnType::CommonName, "central");
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let cert = server.signed_by(&key, &ca, &ca_key).unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("server-cert.pem"), cert.pem()).unwrap();
    std::fs::write(dir.join("server-key.pem"), key.serialize_pem()).unwrap();
}
