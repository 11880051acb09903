//! Who may do what on the dashboard.
//!
//! - Actions (acknowledge, resolve) need the arbiter token in the `X-Arbiter-Token`
//!   header, compared in constant time. A header cannot be set by another site's page,
//!   so actions are safe from cross-site requests without further ceremony.
//! - The read-only view (the page's data and its event stream) is open when the config
//!   says `public_dashboard = true`; otherwise it needs the token too, in the header or
//!   as a session cookie handed out by `POST /api/login` (an `EventSource` cannot send
//!   headers). Sessions are random, held in memory and bounded; they only allow reading.
//! - The token never appears in logs: [`ArbiterToken`]'s `Debug` hides it.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::http::HeaderMap;
use daemon_config::token::{constant_time_eq, random_hex, ArbiterToken, MAX_TOKEN_LEN};

/// The header that carries the token.
pub const TOKEN_HEADER: &str = "x-arbiter-token";
/// The cookie that carries a read session.
pub const SESSION_COOKIE: &str = "arbiter_session";
/// Sessions kept; the oldest goes when a new one would exceed this.
const MAX_SESSIONS: usize = 256;

/// What a request may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read and act: it carries the token.
    Arbiter,
    /// Read only: a session cookie, or the view is public.
    Viewer,
    /// Nothing.
    None,
}

/// Why a request was refused, as the JSON error says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 401: no token was given.
    Missing,
    /// 403: a token was given and it is wrong.
    Wrong,
    /// 403: the daemon has no token, so nobody may act.
    NoneConfigured,
}

impl Refusal {
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Missing => {
                "this needs the arbiter token: send it in the X-Arbiter-Token header"
            }
            Refusal::Wrong => "the arbiter token is wrong",
            Refusal::NoneConfigured => {
                "no arbiter token is set up, so nobody may act: set [http] token in the config"
            }
        }
    }
}

/// The token, the public flag and the read sessions.
#[derive(Debug)]
pub struct Gate {
    token: Option<ArbiterToken>,
    public: bool,
    sessions: Mutex<VecDeque<String>>,
}

impl Gate {
    pub fn new(token: Option<ArbiterToken>, public: bool) -> Gate {
        Gate {
            token,
            public,
            sessions: Mutex::new(VecDeque::new()),
        }
    }

    /// Whether the read-only view is open to anyone.
    pub fn is_public(&self) -> bool {
        self.public
    }

    fn header_token(headers: &HeaderMap) -> Option<&str> {
        headers
            .get(TOKEN_HEADER)
            .map(|v| v.to_str().unwrap_or("\u{0}"))
    }

    /// May this request act? `Err` says why not.
    pub fn check_action(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(token) = &self.token else {
            return Err(Refusal::NoneConfigured);
        };
        match Gate::header_token(headers) {
            None => Err(Refusal::Missing),
            Some(given) if given.len() <= MAX_TOKEN_LEN && token.matches(given) => Ok(()),
            Some(_) => Err(Refusal::Wrong),
        }
    }

    /// What this request may do.
    pub fn access(&self, headers: &HeaderMap) -> Access {
        if self.check_action(headers).is_ok() {
            return Access::Arbiter;
        }
        if self.public || self.has_session(headers) {
            return Access::Viewer;
        }
        Access::None
    }

    /// May this request read? `Err` says why not.
    pub fn check_read(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        match self.access(headers) {
            // Without access, the action check fails too, and says why.
            Access::None => self.check_action(headers),
            Access::Arbiter | Access::Viewer => Ok(()),
        }
    }

    /// A new read session for a request that carries the token; its cookie value.
    pub fn open_session(&self) -> std::io::Result<String> {
        let id = random_hex(16)?;
        let mut s = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if s.len() >= MAX_SESSIONS {
            s.pop_front();
        }
        s.push_back(id.clone());
        Ok(id)
    }

    fn has_session(&self, headers: &HeaderMap) -> bool {
        let Some(id) = session_cookie(headers) else {
            return false;
        };
        let s = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        s.iter()
            .any(|known| constant_time_eq(known.as_bytes(), id.as_bytes()))
    }
}

/// The session cookie's value, if the request has one.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value)
        .filter(|v| v.len() <= 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    const T: &str = "correct-horse-battery";

    #[test]
    fn actions_need_the_token() {
        let gate = Gate::new(Some(ArbiterToken::new(T).unwrap()), false);
        assert_eq!(gate.check_action(&headers(&[])), Err(Refusal::Missing));
        assert_eq!(
            gate.check_action(&headers(&[(TOKEN_HEADER, "wrong-token-value!")])),
            Err(Refusal::Wrong)
        );
        assert_eq!(gate.check_action(&headers(&[(TOKEN_HEADER, T)])), Ok(()));
        let none = Gate::new(None, true);
        assert_eq!(
            none.check_action(&headers(&[(TOKEN_HEADER, T)])),
            Err(Refusal::NoneConfigured)
        );
        assert_eq!(none.access(&headers(&[])), Access::Viewer);
    }

    #[test]
    fn reading_needs_the_token_or_a_session_unless_public() {
        let gate = Gate::new(Some(ArbiterToken::new(T).unwrap()), false);
        assert_eq!(gate.access(&headers(&[])), Access::None);
        assert_eq!(gate.check_read(&headers(&[])), Err(Refusal::Missing));
        assert_eq!(gate.access(&headers(&[(TOKEN_HEADER, T)])), Access::Arbiter);
        let id = gate.open_session().unwrap();
        let cookie = format!("theme=dark; {SESSION_COOKIE}={id}");
        assert_eq!(
            gate.access(&headers(&[("cookie", &cookie)])),
            Access::Viewer
        );
        let forged = format!("{SESSION_COOKIE}=0123456789abcdef0123456789abcdef");
        assert_eq!(gate.access(&headers(&[("cookie", &forged)])), Access::None);
        let public = Gate::new(Some(ArbiterToken::new(T).unwrap()), true);
        assert_eq!(public.access(&headers(&[])), Access::Viewer);
        assert!(public.check_read(&headers(&[])).is_ok());
    }

    #[test]
    fn sessions_are_bounded() {
        let gate = Gate::new(Some(ArbiterToken::new(T).unwrap()), false);
        let first = gate.open_session().unwrap();
        for _ in 0..MAX_SESSIONS {
            gate.open_session().unwrap();
        }
        let cookie = format!("{SESSION_COOKIE}={first}");
        assert_eq!(gate.access(&headers(&[("cookie", &cookie)])), Access::None);
    }
}
