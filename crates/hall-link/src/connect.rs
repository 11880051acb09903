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
    #[error("cannot set up the NATS client for {url}: {source}")]
    Client {
        url: String,
        #[source]
        source: async_nats::ConnectError,
    },
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

/// Connects (in the background: the client retries the first connection and every
/// reconnection for ever) as `name`.
pub async fn connect(
    net: &NetworkConfig,
    config_dir: &Path,
    name: &str,
) -> Result<async_nats::Client, ConnectError> {
    net.check()?;
    let urls = net.servers()?;
    let mut opts = match net.credentials()? {
        Credentials::None => ConnectOptions::new(),
        Credentials::UserPassword { user, password } => {
            let password = match password {
                Password::Inline(p) => p,
                Password::File(f) => first_line("the password file", &resolve(config_dir, &f))?,
            };
            ConnectOptions::new().user_and_password(user, password)
        }
        Credentials::Creds(path) => {
            let path = resolve(config_dir, &path);
            ConnectOptions::with_credentials_file(&path)
                .await
                .map_err(|source| ConnectError::Read {
                    what: "the credentials file",
                    path,
                    source,
                })?
        }
        Credentials::NkeySeed(path) => ConnectOptions::with_nkey(first_line(
            "the nkey seed file",
            &resolve(config_dir, &path),
        )?),
    };
    if net.tls() {
        opts = opts.require_tls(true);
    }
    if let Some(ca) = &net.tls_ca {
        opts = opts.add_root_certificates(resolve(config_dir, ca));
    }
    let label = urls.join(",");
    let addrs: Vec<async_nats::ServerAddr> = urls.iter().filter_map(|u| u.parse().ok()).collect();
    let (url_for_events, label2) = (label.clone(), label.clone());
    opts.name(name)
        .retry_on_initial_connect()
        .max_reconnects(None)
        .connection_timeout(std::time::Duration::from_secs(3))
        .event_callback(move |event| {
            let url = url_for_events.clone();
            async move {
                match event {
                    async_nats::Event::Connected => tracing::info!("network: connected to {url}"),
                    async_nats::Event::Disconnected => {
                        tracing::warn!("network: lost the NATS server {url}; retrying")
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
