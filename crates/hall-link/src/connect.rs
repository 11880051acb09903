//! The client's options from `[network]`: credentials, TLS, and a client that keeps
//! trying: a daemon never waits for the network to start or to go on.

use std::path::{Path, PathBuf};

use async_nats::ConnectOptions;
use hall_network::config::Password;
use hall_network::{Credentials, NetworkConfig};

/// The network cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("[network]: {0}")]
    Config(#[from] hall_network::NetworkConfigError),
    #[error("[network]: cannot read {what} {path}: {source}")]
    Read {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("[network]: the nkey seed file {path} does not hold a user nkey seed (one line starting with SU, as `nk -gen user` writes it): {reason}")]
    Seed { path: PathBuf, reason: String },
    #[error("[network]: the CA file tls_ca {path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)")]
    CaFile { path: PathBuf },
    #[error("cannot set up the NATS client for {url}: {source}")]
    Client {
        url: String,
        #[source]
        source: async_nats::ConnectError,
    },
    /// One attempt to log in ([`check_login`]) failed; `reason` names what to check.
    #[error("NATS server {url}: {reason}")]
    Login { url: String, reason: String },
    /// One attempt found no server to talk to (not running, wrong address, no route).
    #[error("NATS server {url}: cannot reach it: {reason}")]
    Unreachable { url: String, reason: String },
}

/// A relative path is taken from the config file's folder.
pub fn resolve(config_dir: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_owned()
    } else {
        config_dir.join(p)
    }
}

fn first_line(what: &'static str, path: &Path) -> Result<String, ConnectError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConnectError::Read {
        what,
        path: path.to_owned(),
        source,
    })?;
    Ok(text.lines().next().unwrap_or("").trim().to_owned())
}

/// The client's options from `[network]` (without the retry and event settings), the
/// server addresses, a label naming the servers, and how this client logs in (for
/// messages: the seed's public key, never the seed).
struct Options {
    opts: ConnectOptions,
    addrs: Vec<async_nats::ServerAddr>,
    url: String,
    login: String,
}

fn options(net: &NetworkConfig, config_dir: &Path) -> Result<Options, ConnectError> {
    net.check()?;
    let urls = net.servers()?;
    let (mut opts, login) = match net.credentials()? {
        Credentials::None => (ConnectOptions::new(), "no login".to_owned()),
        Credentials::UserPassword { user, password } => {
            let password = match password {
                Password::Inline(p) => p,
                Password::File(f) => first_line("the password file", &resolve(config_dir, &f))?,
            };
            let login = format!("user {user:?}");
            (
                ConnectOptions::new().user_and_password(user, password),
                login,
            )
        }
        Credentials::Creds(path) => {
            let path = resolve(config_dir, &path);
            let login = format!("the credentials file {}", path.display());
            // Read now (not by the client at each attempt), so that a missing file is an
            // error of the config.
            let text = std::fs::read_to_string(&path).map_err(|source| ConnectError::Read {
                what: "the credentials file",
                path: path.clone(),
                source,
            })?;
            let opts =
                ConnectOptions::new()
                    .credentials(&text)
                    .map_err(|source| ConnectError::Read {
                        what: "the credentials file",
                        path,
                        source,
                    })?;
            (opts, login)
        }
        Credentials::NkeySeed(path) => {
            let path = resolve(config_dir, &path);
            let seed = first_line("the nkey seed file", &path)?;
            // The client only decodes the seed when it signs the server's challenge, and
            // then reports "failed signing nonce" at every attempt, naming no file.
            let key = nkeys::KeyPair::from_seed(&seed).map_err(|e| ConnectError::Seed {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            let public = key.public_key();
            if !public.starts_with('U') {
                return Err(ConnectError::Seed {
                    path,
                    reason: format!("it is the seed of {public}, not of a user (U...)"),
                });
            }
            let login = format!("the nkey {public} of nkey_seed_file {}", path.display());
            (ConnectOptions::with_nkey(seed), login)
        }
    };
    if net.tls() {
        opts = opts.require_tls(true);
    }
    if let Some(ca) = &net.tls_ca {
        let path = resolve(config_dir, ca);
        let text = std::fs::read_to_string(&path).map_err(|source| ConnectError::Read {
            what: "the CA file tls_ca",
            path: path.clone(),
            source,
        })?;
        // The client takes a file without certificates as an empty list, and then trusts
        // nothing: every server would be refused as "unknown issuer".
        if !text.contains("-----BEGIN CERTIFICATE-----") {
            return Err(ConnectError::CaFile { path });
        }
        opts = opts.add_root_certificates(path);
    }
    // Each one parsed, or named: a URL dropped here would leave a daemon retrying nothing.
    let addrs = urls
        .iter()
        .map(|u| {
            u.parse().map_err(|e: std::io::Error| {
                ConnectError::Config(hall_network::NetworkConfigError(format!(
                    "network.nats {u:?}: {e}"
                )))
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Options {
        opts,
        addrs,
        url: urls.join(","),
        login,
    })
}

/// The attempt found no server: the TCP connection itself failed (before any TLS).
fn unreachable(e: &async_nats::ConnectError) -> bool {
    use std::io::ErrorKind as Io;
    match e.kind() {
        async_nats::ConnectErrorKind::Dns | async_nats::ConnectErrorKind::TimedOut => true,
        async_nats::ConnectErrorKind::Io => std::error::Error::source(e)
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .is_some_and(|io| {
                matches!(
                    io.kind(),
                    Io::ConnectionRefused
                        | Io::HostUnreachable
                        | Io::NetworkUnreachable
                        | Io::AddrNotAvailable
                )
            }),
        _ => false,
    }
}

/// The `[network]` section as [`connect`] reads it, without connecting: the URLs parsed,
/// the password, seed, credentials and CA files read and the seed decoded. For `run
/// --check`.
pub fn check_files(net: &NetworkConfig, config_dir: &Path) -> Result<(), ConnectError> {
    options(net, config_dir).map(|_| ())
}

/// What to check when an attempt fails, from the client's error.
fn reason(net: &NetworkConfig, login: &str, e: &async_nats::ConnectError) -> String {
    use async_nats::ConnectErrorKind as K;
    let text = e.to_string();
    let tls_hint = if text.contains("UnknownIssuer") || text.contains("BadSignature") {
        match &net.tls_ca {
            Some(ca) => format!(
                "the server's certificate is not signed by the CA in tls_ca {}",
                ca.display()
            ),
            None => "the server's certificate is signed by a CA this PC does not trust: name the event's CA in tls_ca (without it only the system's CAs are trusted)".to_owned(),
        }
    } else if text.contains("NotValidForName") {
        "the server's certificate is not made for the host name or address in network.nats"
            .to_owned()
    } else if text.contains("InvalidContentType") || text.contains("corrupt message") {
        "the server answered in plain text: it has no TLS (no tls block in its config); use a nats:// URL or turn TLS on at the server".to_owned()
    } else {
        "is TLS on at the server (a tls block in its config), and is tls_ca the CA that signed its certificate?".to_owned()
    };
    match e.kind() {
        K::AuthorizationViolation => format!(
            "the server refused the login with {login} (authorization violation): check [network] against the users the server lets in (its authorization or accounts block)"
        ),
        K::Authentication => format!("cannot sign the server's challenge with {login}: {e}"),
        K::Tls => format!("TLS failed: {e}; {tls_hint}"),
        K::Io if net.tls() => format!("TLS failed: {e}; {tls_hint}"),
        _ => text,
    }
}

/// One attempt to connect and log in with `[network]`, bounded in time: `Ok` when the
/// server let this client in, else an error saying what to check (the login refused,
/// the server's certificate not trusted, a server without TLS for a `tls://` URL, no
/// server). [`connect`] runs it once in the background to log a clear reason; the
/// retrying client itself only reports the kind of error.
pub async fn check_login(net: &NetworkConfig, config_dir: &Path) -> Result<(), ConnectError> {
    let o = options(net, config_dir)?;
    let attempt = o
        .opts
        .name("dgt-arbiter login check")
        .connection_timeout(std::time::Duration::from_secs(3))
        .connect(o.addrs);
    match tokio::time::timeout(std::time::Duration::from_secs(10), attempt).await {
        Ok(Ok(client)) => {
            let _ = client.drain().await;
            Ok(())
        }
        Ok(Err(e)) if unreachable(&e) => Err(ConnectError::Unreachable {
            reason: format!("{e} (is the server running, and is network.nats its address?)"),
            url: o.url,
        }),
        Ok(Err(e)) => Err(ConnectError::Login {
            reason: reason(net, &o.login, &e),
            url: o.url,
        }),
        Err(_) => Err(ConnectError::Unreachable {
            url: o.url,
            reason: "no NATS answer within 10 s (is network.nats the address of a NATS server?)"
                .to_owned(),
        }),
    }
}

/// Connects (in the background: the client retries the first connection and every
/// reconnection for ever) as `name`. The files named in `[network]` are read now: a
/// missing or malformed one is an error here, not a retry for ever.
pub async fn connect(
    net: &NetworkConfig,
    config_dir: &Path,
    name: &str,
) -> Result<async_nats::Client, ConnectError> {
    let Options {
        opts,
        addrs,
        url: label,
        login,
    } = options(net, config_dir)?;
    // The retrying client says only "authorization violation" or "TLS error", again at
    // every attempt; one checked attempt says why, once.
    {
        let (net, dir) = (net.clone(), config_dir.to_owned());
        tokio::spawn(async move {
            match check_login(&net, &dir).await {
                Ok(()) => {}
                // The retrying client says so too, and goes on trying.
                Err(e @ ConnectError::Unreachable { .. }) => tracing::warn!("network: {e}"),
                Err(e) => tracing::error!("network: {e}"),
            }
        });
    }
    let (url_for_events, label2) = (label.clone(), label.clone());
    opts.name(name)
        .retry_on_initial_connect()
        .max_reconnects(None)
        .connection_timeout(std::time::Duration::from_secs(3))
        .event_callback(move |event| {
            let url = url_for_events.clone();
            let login = login.clone();
            async move {
                match event {
                    async_nats::Event::Connected => tracing::info!("network: connected to {url}"),
                    async_nats::Event::Disconnected => {
                        tracing::warn!("network: lost the NATS server {url}; retrying")
                    }
                    async_nats::Event::ClientError(e) => {
                        tracing::warn!("network: {url} ({login}): {e}; retrying")
                    }
                    other => tracing::info!("network: {other}"),
                }
            }
        })
        .connect(addrs)
        .await
        .map_err(|source| ConnectError::Client {
            url: label2,
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(section: &str) -> NetworkConfig {
        toml::from_str(section).unwrap()
    }

    /// The error `connect` gives for the `[network]` section with this `nats` URL list.
    async fn connect_error(nats: &str) -> String {
        connect(
            &net(&format!("nats = \"{nats}\"\nhall = \"A\"\n")),
            Path::new("."),
            "test",
        )
        .await
        .map(|_| ())
        .unwrap_err()
        .to_string()
    }

    #[tokio::test]
    async fn a_server_url_that_does_not_parse_is_named() {
        for (url, says) in [
            ("nats://central:99999", "invalid port number"),
            ("nats://cen tral:4222", "no host"),
        ] {
            let e = connect_error(url).await;
            assert!(e.contains(url), "{e}");
            assert!(e.contains(says), "{e}");
        }
        // One bad URL among good ones is not dropped either.
        let e = connect_error("nats://a:4222, nats://b:4222:1").await;
        assert!(e.contains("nats://b:4222:1"), "{e}");
    }

    #[tokio::test]
    async fn no_server_at_a_tls_url_is_unreachable_not_a_tls_failure() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = check_login(
            &net(&format!(
                "nats = \"tls://127.0.0.1:{port}\"\nhall = \"A\"\n"
            )),
            Path::new("."),
        )
        .await
        .unwrap_err();
        assert!(matches!(e, ConnectError::Unreachable { .. }), "{e}");
        assert!(e.to_string().contains("cannot reach it"), "{e}");
    }
}
