//! The `[network]` section: where the NATS server is, who this daemon is to it, and how
//! it proves it.
//!
//! ```toml
//! [network]
//! nats = "tls://central.example:4222"   # nats:// plain, tls:// TLS
//! hall = "A"                            # a hall daemon (`dgt-arbiter run`)
//! # halls = ["A", "B"]                  # the central (`dgt-arbiter central`)
//! user = "hall-a"                       # with password or password_file
//! password_file = "nats-password"
//! # creds = "hall-a.creds"              # or a JWT + nkey credentials file
//! # nkey_seed_file = "hall-a.nk"        # or an nkey seed
//! # tls_ca = "event-ca.pem"             # the CA to trust (instead of the system's)
//! ```
//!
//! Relative paths are taken from the config file's folder (by the caller).

use std::path::PathBuf;

use serde::Deserialize;

use crate::names::HallId;

/// A `[network]` section that cannot be used; the message says which key and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NetworkConfigError(pub String);

/// How the daemon proves who it is to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    None,
    /// `user` with `password` (or the first line of `password_file`).
    UserPassword {
        user: String,
        password: Password,
    },
    /// A `.creds` file (a user JWT and its nkey seed, as `nsc` writes it).
    Creds(PathBuf),
    /// A file holding an nkey seed (`SU...`).
    NkeySeed(PathBuf),
}

/// A password, given inline or in a file.
#[derive(Clone, PartialEq, Eq)]
pub enum Password {
    Inline(String),
    File(PathBuf),
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Password::Inline(_) => f.write_str("Password(hidden)"),
            Password::File(p) => write!(f, "Password(file {})", p.display()),
        }
    }
}

/// The section as written.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// `nats://host:port` or `tls://host:port` (several, comma-separated, for a cluster).
    pub nats: String,
    /// This hall's id (a hall daemon).
    pub hall: Option<String>,
    /// The halls the central follows.
    pub halls: Option<Vec<String>>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub password_file: Option<PathBuf>,
    pub creds: Option<PathBuf>,
    pub nkey_seed_file: Option<PathBuf>,
    pub tls_ca: Option<PathBuf>,
}

impl std::fmt::Debug for NetworkConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkConfig")
            .field("nats", &self.nats)
            .field("hall", &self.hall)
            .field("halls", &self.halls)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "hidden"))
            .field("password_file", &self.password_file)
            .field("creds", &self.creds)
            .field("nkey_seed_file", &self.nkey_seed_file)
            .field("tls_ca", &self.tls_ca)
            .finish()
    }
}

fn err(m: impl Into<String>) -> NetworkConfigError {
    NetworkConfigError(m.into())
}

impl NetworkConfig {
    /// Checks the section as a whole (every key alone is checked by the parser).
    pub fn check(&self) -> Result<(), NetworkConfigError> {
        self.servers()?;
        if let Some(h) = &self.hall {
            HallId::new(h).map_err(|e| err(format!("network.hall: {e}")))?;
        }
        if let Some(halls) = &self.halls {
            if halls.is_empty() {
                return Err(err("network.halls is empty; expected the ids of the halls the central follows, such as [\"A\", \"B\"]"));
            }
            for (i, h) in halls.iter().enumerate() {
                HallId::new(h).map_err(|e| err(format!("network.halls: {e}")))?;
                if halls[..i].contains(h) {
                    return Err(err(format!("network.halls names hall {h:?} twice")));
                }
            }
        }
        if self.hall.is_some() && self.halls.is_some() {
            return Err(err("network has both hall (a hall daemon) and halls (the central); expected one of them"));
        }
        self.credentials()?;
        Ok(())
    }

    /// The server URLs.
    pub fn servers(&self) -> Result<Vec<String>, NetworkConfigError> {
        let urls: Vec<String> = self
            .nats
            .split(',')
            .map(|u| u.trim().to_owned())
            .filter(|u| !u.is_empty())
            .collect();
        if urls.is_empty() {
            return Err(err("network.nats is empty; expected the NATS server's URL, such as \"nats://central:4222\" (or tls:// for TLS)"));
        }
        for u in &urls {
            let Some((scheme, rest)) = u.split_once("://") else {
                return Err(err(format!("network.nats {u:?} has no scheme; expected nats://host:port or tls://host:port")));
            };
            if !matches!(scheme, "nats" | "tls") {
                return Err(err(format!(
                    "network.nats {u:?}: the scheme {scheme:?} is not nats or tls"
                )));
            }
            if rest.is_empty() || rest.contains(char::is_whitespace) {
                return Err(err(format!("network.nats {u:?} has no host")));
            }
        }
        Ok(urls)
    }

    /// True when the connection must be TLS (a `tls://` URL or a `tls_ca`).
    pub fn tls(&self) -> bool {
        self.tls_ca.is_some() || self.nats.split(',').any(|u| u.trim().starts_with("tls://"))
    }

    /// The hall id of a hall daemon.
    pub fn hall_id(&self) -> Option<HallId> {
        self.hall.as_deref().and_then(|h| HallId::new(h).ok())
    }

    /// The halls the central follows.
    pub fn hall_ids(&self) -> Vec<HallId> {
        self.halls
            .iter()
            .flatten()
            .filter_map(|h| HallId::new(h).ok())
            .collect()
    }

    /// The credentials; at most one way of proving who one is.
    pub fn credentials(&self) -> Result<Credentials, NetworkConfigError> {
        let ways = [
            self.user.is_some(),
            self.creds.is_some(),
            self.nkey_seed_file.is_some(),
        ];
        if ways.iter().filter(|w| **w).count() > 1 {
            return Err(err("network: user, creds and nkey_seed_file are three ways to log in; expected one of them"));
        }
        if self.password.is_some() && self.password_file.is_some() {
            return Err(err(
                "network: password and password_file both given; expected one",
            ));
        }
        if let Some(user) = &self.user {
            let password = match (&self.password, &self.password_file) {
                (Some(p), None) => Password::Inline(p.clone()),
                (None, Some(f)) => Password::File(f.clone()),
                _ => return Err(err("network.user needs password or password_file")),
            };
            return Ok(Credentials::UserPassword {
                user: user.clone(),
                password,
            });
        }
        if self.password.is_some() || self.password_file.is_some() {
            return Err(err("network: a password without user; expected user too"));
        }
        if let Some(c) = &self.creds {
            return Ok(Credentials::Creds(c.clone()));
        }
        if let Some(k) = &self.nkey_seed_file {
            return Ok(Credentials::NkeySeed(k.clone()));
        }
        Ok(Credentials::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> NetworkConfig {
        #[derive(Deserialize)]
        struct File {
            network: NetworkConfig,
        }
        let f: File = toml_like(text);
        f.network
    }

    /// The section as JSON (the crate does not read TOML itself; the daemon's config
    /// does, with the same serde derive).
    fn toml_like<T: serde::de::DeserializeOwned>(json: &str) -> T {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_hall_and_a_central_section() {
        let hall = parse(
            r#"{"network": {"nats": "tls://c:4222", "hall": "A", "user": "a", "password_file": "pw"}}"#,
        );
        hall.check().unwrap();
        assert!(hall.tls());
        assert_eq!(hall.hall_id().unwrap().as_str(), "A");
        assert_eq!(
            hall.credentials().unwrap(),
            Credentials::UserPassword {
                user: "a".into(),
                password: Password::File("pw".into())
            }
        );
        let central = parse(
            r#"{"network": {"nats": "nats://c:4222, nats://d:4222", "halls": ["A", "B"], "password": "x", "user": "c"}}"#,
        );
        central.check().unwrap();
        assert!(!central.tls());
        assert_eq!(central.servers().unwrap().len(), 2);
        assert_eq!(central.hall_ids().len(), 2);
        assert!(
            !format!("{central:?}").contains("\"x\""),
            "the password is not logged"
        );
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            (r#"{"nats": "c:4222", "hall": "A"}"#, "no scheme"),
            (r#"{"nats": "http://c", "hall": "A"}"#, "not nats or tls"),
            (r#"{"nats": "", "hall": "A"}"#, "empty"),
            (r#"{"nats": "nats://c", "hall": "A.1"}"#, "hall id"),
            (r#"{"nats": "nats://c", "halls": []}"#, "halls is empty"),
            (r#"{"nats": "nats://c", "halls": ["A", "A"]}"#, "twice"),
            (
                r#"{"nats": "nats://c", "hall": "A", "halls": ["B"]}"#,
                "both",
            ),
            (
                r#"{"nats": "nats://c", "hall": "A", "user": "u"}"#,
                "needs password",
            ),
            (
                r#"{"nats": "nats://c", "hall": "A", "password": "p"}"#,
                "without user",
            ),
            (
                r#"{"nats": "nats://c", "hall": "A", "user": "u", "password": "p", "creds": "c"}"#,
                "one of them",
            ),
        ];
        for (json, want) in cases {
            let n: NetworkConfig = toml_like(json);
            let e = n.check().unwrap_err().to_string();
            assert!(e.contains(want), "{json}: {e}");
        }
        let unknown: Result<NetworkConfig, _> =
            serde_json::from_str(r#"{"nats": "nats://c", "hal": "A"}"#);
        assert!(unknown.unwrap_err().to_string().contains("hal"));
    }
}
