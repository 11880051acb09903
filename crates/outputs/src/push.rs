//! The push to a broadcast server (`[broadcast.push]`): the delayed round PGN (every
//! game of the round from the public view, UTF-8) POSTed with `Authorization: Bearer
//! <token>` to a round-push endpoint as lichess's broadcast API takes it
//! (`POST /api/broadcast/round/{id}/push`, body the PGN as `text/plain`, answer JSON
//! `{"games": [...]}`), whenever the public round changed and at most once per
//! `interval`. A failed push is tried again with a growing pause; it runs in its own
//! task, one connection per push with a time limit, so it never holds up a board. The
//! last push and its answer are on the dashboard (`push` in `/api/state`).

use std::sync::Arc;
use std::time::Duration;

use http::{header, Request};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

use crate::public::Public;
use crate::sinks::pgn::render_round;
use arbiter_hub::Hub;
use arbiter_hub::PushStatus;
use daemon_config::Endpoint;
use daemon_config::{Config, PushConfig};

/// Longest a push may take, connection to answer.
const PUSH_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest pause between two tries of a failed push.
const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// Largest answer read.
const MAX_ANSWER: usize = 64 * 1024;

/// Why a push got no answer.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    #[error("cannot connect to {0}: {1}")]
    Connect(String, #[source] std::io::Error),
    #[error("TLS with {0}: {1}")]
    Tls(String, String),
    #[error("HTTP: {0}")]
    Http(String),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

/// One POST of `body`; the answer's status and (first bytes of its) body.
pub async fn post(
    endpoint: &Endpoint,
    token: &str,
    body: String,
    tls: Option<&tokio_rustls::TlsConnector>,
) -> Result<(u16, String), PushError> {
    match tokio::time::timeout(PUSH_TIMEOUT, post_now(endpoint, token, body, tls)).await {
        Ok(r) => r,
        Err(_) => Err(PushError::Timeout(PUSH_TIMEOUT)),
    }
}

async fn post_now(
    endpoint: &Endpoint,
    token: &str,
    body: String,
    tls: Option<&tokio_rustls::TlsConnector>,
) -> Result<(u16, String), PushError> {
    let authority = endpoint.authority();
    let tcp = tokio::net::TcpStream::connect((endpoint.host.as_str(), endpoint.port))
        .await
        .map_err(|e| PushError::Connect(authority.clone(), e))?;
    let request = Request::post(endpoint.path.as_str())
        .header(header::HOST, authority.as_str())
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .header(
            header::USER_AGENT,
            concat!("dgt-arbiter/", env!("CARGO_PKG_VERSION")),
        )
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| PushError::Http(e.to_string()))?;
    if endpoint.tls {
        let Some(connector) = tls else {
            return Err(PushError::Tls(
                authority,
                "no root certificates could be loaded".into(),
            ));
        };
        let name = rustls::pki_types::ServerName::try_from(endpoint.host.clone())
            .map_err(|e| PushError::Tls(authority.clone(), e.to_string()))?;
        let stream = connector
            .connect(name, tcp)
            .await
            .map_err(|e| PushError::Tls(authority.clone(), e.to_string()))?;
        exchange(TokioIo::new(stream), request).await
    } else {
        exchange(TokioIo::new(tcp), request).await
    }
}

async fn exchange<IO>(io: IO, request: Request<Full<Bytes>>) -> Result<(u16, String), PushError>
where
    IO: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| PushError::Http(e.to_string()))?;
    let conn = tokio::spawn(conn);
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| PushError::Http(e.to_string()))?;
    let status = response.status().as_u16();
    let answer = Limited::new(response.into_body(), MAX_ANSWER)
        .collect()
        .await
        .map(|b| String::from_utf8_lossy(&b.to_bytes()).into_owned())
        .unwrap_or_else(|e| format!("(the answer could not be read: {e})"));
    conn.abort();
    Ok((status, answer))
}

/// A TLS client with the system's root certificates (`None` if none could be loaded).
fn tls_connector() -> Option<tokio_rustls::TlsConnector> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = rustls::RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        tracing::warn!(
            "no root certificates found on this system (install ca-certificates): \
             https pushes will fail"
        );
        return None;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Some(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// The first KiB of an answer, on one line.
fn summary(answer: &str) -> String {
    let one_line: String = answer
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(1024)
        .collect();
    one_line.trim().to_owned()
}

/// The pause before the next try after `failures` failed pushes.
fn backoff(interval: Duration, failures: u32) -> Duration {
    interval
        .saturating_mul(2u32.saturating_pow(failures.min(16)))
        .min(MAX_BACKOFF.max(interval))
}

/// Pushes the public round whenever it changes. Runs until aborted.
pub async fn run(config: Arc<Config>, push: PushConfig, public: Arc<Public>, hub: Arc<Hub>) {
    let Some(endpoint) = Endpoint::parse(&push.url) else {
        tracing::error!("broadcast.push.url {:?} is not a push URL", push.url);
        return;
    };
    let tls = if endpoint.tls {
        tokio::task::spawn_blocking(tls_connector)
            .await
            .ok()
            .flatten()
    } else {
        None
    };
    let interval = Duration::from_millis(push.interval_ms);
    let mut changed = public.changed();
    let mut pushed: Option<String> = None;
    let mut failures = 0u32;
    loop {
        let body = render_round(&config, &public.games());
        if pushed.as_deref() == Some(body.as_str()) {
            if changed.changed().await.is_err() {
                return;
            }
            continue;
        }
        changed.borrow_and_update();
        let games = body.matches("\n[Event ").count() + usize::from(body.starts_with("[Event "));
        let result = post(&endpoint, &push.token, body.clone(), tls.as_ref()).await;
        let (ok, status, answer) = match result {
            Ok((status, answer)) => ((200..300).contains(&status), Some(status), summary(&answer)),
            Err(e) => (false, None, e.to_string()),
        };
        hub.set_push_status(PushStatus {
            at: wall_clock::rfc3339(wall_clock::unix_ms_now()),
            ok,
            status,
            answer: answer.clone(),
            games,
            failures,
        });
        let pause = if ok {
            tracing::info!(games, status, "pushed the round to {}", push.url);
            pushed = Some(body);
            failures = 0;
            interval
        } else {
            failures += 1;
            let pause = backoff(interval, failures);
            tracing::warn!(
                status,
                "the push to {} failed ({answer}); trying again in {pause:?}",
                push.url
            );
            pause
        };
        tokio::time::sleep(pause).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_from_urls() {
        let e = Endpoint::parse("https://lichess.org/api/broadcast/round/AbCd1234/push").unwrap();
        assert_eq!(
            e,
            Endpoint {
                tls: true,
                host: "lichess.org".into(),
                port: 443,
                path: "/api/broadcast/round/AbCd1234/push".into(),
            }
        );
        assert_eq!(e.authority(), "lichess.org");
        let e = Endpoint::parse("http://127.0.0.1:8099/push?x=1").unwrap();
        assert_eq!((e.tls, e.port, e.path.as_str()), (false, 8099, "/push?x=1"));
        assert_eq!(e.authority(), "127.0.0.1:8099");
        let e = Endpoint::parse("http://[::1]:81/p").unwrap();
        assert_eq!(e.authority(), "[::1]:81");
        for bad in ["", "lichess.org/push", "ftp://x/y", "http:///p", "https://"] {
            assert_eq!(Endpoint::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_pause_grows_and_stops_growing() {
        let i = Duration::from_secs(10);
        assert_eq!(backoff(i, 1), Duration::from_secs(20));
        assert_eq!(backoff(i, 2), Duration::from_secs(40));
        assert_eq!(backoff(i, 30), MAX_BACKOFF);
        assert_eq!(
            backoff(Duration::from_secs(600), 3),
            Duration::from_secs(600)
        );
    }
}
