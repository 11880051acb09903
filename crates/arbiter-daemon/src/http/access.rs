//! Who may reach which route: one table ([`ROUTES`]) and one middleware ([`layer`]) for
//! the whole HTTP endpoint, the dashboard's routes included.
//!
//! Every route is in one group:
//!
//! | group | routes | open to anyone when |
//! |---|---|---|
//! | [`Group::Open`] | `/healthz`, the dashboard page and its assets and words (`/api/messages`), `/api/login` | always (the page holds no data; login checks the token itself) |
//! | [`Group::Broadcast`] | `/boards` (the public board state), `/round.pgn`, `/games/{B}.pgn`, `/livechess/...`, all made from the delayed public view | `public_dashboard = true`, or a `[broadcast]` section is configured ([`broadcast_is_public`]) |
//! | [`Group::ArbiterRead`] | `/events`, `/api/state`, `/api/stream`, `/api/boards/{B}/history` | `public_dashboard = true` |
//! | [`Group::ArbiterAct`] | `/api/alerts/{id}/{action}`, `/api/boards/{B}/accept/{side}`, `/api/boards/{B}/serial/{S}`, `/api/boards/{B}/decision`, `/api/boards/{B}/moves`, `/api/boards/{B}/takeback`, `/api/boards/{B}/clock`, `/api/boards/{B}/evidence` (a GET, but the arbiter's whole record) | never: the token, in the header |
//!
//! The LiveChess API (`/api/v1.0`, `/api/v1.0/{*path}`, the daemon's `livechess_api`) is in
//! the Broadcast group but served on its own listener, which exists only when
//! `[livechess_api]` is configured: that section is the organiser's choice to publish
//! there, so the listener has no token, Host or Origin check (browsers on lichess.org
//! connect to it), and it shows the delayed public view like every broadcast output.
//!
//! A request for a closed route needs the arbiter token (the `X-Arbiter-Token` header) or
//! a read session (the cookie `POST /api/login` hands out); actions need the token
//! itself. A matched route that is missing from the table is refused (500, logged): a new
//! route cannot go out without a policy, and the test `every_route_has_a_policy` walks
//! the router to catch it before that.
//!
//! The same middleware checks the `Host` header (DNS rebinding: a page on another name
//! must not read a daemon on loopback) and the `Origin` of every request that changes
//! state (see [`HostCheck`]).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::json;

use arbiter_dashboard::auth::{Access, Refusal};
use arbiter_dashboard::Dashboard;
use daemon_config::Config;

/// Who may reach a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Anyone: health, the page without data, login (which checks the token itself).
    Open,
    /// The broadcast outputs (games as PGN, the LiveChess folder): public when the
    /// dashboard is public or a broadcast is configured, the arbiters' otherwise.
    Broadcast,
    /// What shows rulings, touch logs, alerts, state: public only with
    /// `public_dashboard = true`.
    ArbiterRead,
    /// What changes state: the arbiter token, always.
    ArbiterAct,
}

/// Every route of the endpoint, as axum matches it, with its group. Add a route here
/// when you add it to a router (the test `every_route_has_a_policy` fails otherwise).
pub const ROUTES: &[(&str, Group)] = &[
    // crate::http
    ("/healthz", Group::Open),
    ("/boards", Group::Broadcast),
    ("/round.pgn", Group::Broadcast),
    ("/games/{file}", Group::Broadcast),
    ("/livechess/{*path}", Group::Broadcast),
    ("/events", Group::ArbiterRead),
    // arbiter_dashboard
    ("/", Group::Open),
    ("/assets/dashboard.js", Group::Open),
    ("/assets/dashboard.css", Group::Open),
    ("/api/login", Group::Open),
    // The page's words: no data, like the page itself.
    ("/api/messages", Group::Open),
    ("/api/state", Group::ArbiterRead),
    ("/api/stream", Group::ArbiterRead),
    ("/api/boards/{board}/history", Group::ArbiterRead),
    ("/api/alerts/{id}/{action}", Group::ArbiterAct),
    ("/api/boards/{board}/accept/{side}", Group::ArbiterAct),
    ("/api/boards/{board}/serial/{serial}", Group::ArbiterAct),
    ("/api/boards/{board}/decision", Group::ArbiterAct),
    ("/api/boards/{board}/moves", Group::ArbiterAct),
    ("/api/boards/{board}/takeback", Group::ArbiterAct),
    ("/api/boards/{board}/clock", Group::ArbiterAct),
    // A GET, but the arbiter's whole record of an incident (journal, serial bytes).
    ("/api/boards/{board}/evidence", Group::ArbiterAct),
    // The daemon's livechess_api, on its own listener (`[livechess_api]`): public there, no
    // Host or Origin check (lichess.org's page connects from its own origin), delayed
    // as every broadcast output.
    (::livechess_api::WS_ROUTE, Group::Broadcast),
    (::livechess_api::REST_ROUTE, Group::Broadcast),
];

/// The group of a route pattern (as [`MatchedPath`] gives it).
pub fn group_of(pattern: &str) -> Option<Group> {
    ROUTES.iter().find(|(p, _)| *p == pattern).map(|&(_, g)| g)
}

/// Whether the broadcast outputs are open to anyone: a public dashboard, or a
/// `[broadcast]` section (the organiser publishes the round, delayed as configured; boards
/// off the air show only what the public view lets through).
pub fn broadcast_is_public(config: &Config) -> bool {
    config.http.public_dashboard || config.broadcast.published
}

/// Whether a group is open to anyone under this config.
pub fn is_open(group: Group, config: &Config) -> bool {
    match group {
        Group::Open => true,
        Group::Broadcast => broadcast_is_public(config),
        Group::ArbiterRead => config.http.public_dashboard,
        Group::ArbiterAct => false,
    }
}

/// Which `Host` names a request may carry, and so which origins may change state.
#[derive(Debug, Clone)]
pub struct HostCheck {
    bind: SocketAddr,
    /// Lower case, from `[http] names`.
    names: Vec<String>,
}

/// Where a connection came in: inserted into every request by [`super::listen`].
#[derive(Debug, Clone, Copy)]
pub struct ConnInfo {
    pub local: SocketAddr,
    pub peer: SocketAddr,
}

impl HostCheck {
    pub fn new(config: &Config) -> HostCheck {
        HostCheck {
            bind: config.http.bind,
            names: config
                .http
                .names
                .iter()
                .map(|n| n.to_ascii_lowercase())
                .collect(),
        }
    }

    /// Whether `host` (a `Host` header value, port and all) names this daemon: the bind
    /// address (or, bound to every address, the one the client connected to), the
    /// loopback names, or a configured name.
    pub fn allows(&self, host: &str, local: Option<SocketAddr>) -> bool {
        let name = strip_port(host).to_ascii_lowercase();
        if name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        if self.names.contains(&name) {
            return true;
        }
        let Ok(ip) = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        else {
            return false;
        };
        if ip == self.bind.ip() {
            return true;
        }
        let bound_everywhere = self.bind.ip().is_unspecified();
        match local {
            Some(l) => bound_everywhere && ip == l.ip(),
            None => bound_everywhere,
        }
    }
}

/// `name:port`, `[v6]:port`, `name` or `[v6]` to the name.
fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.find(']') {
            Some(i) => &host[..i + 2],
            None => host,
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// `scheme://host[:port]` to `host[:port]`.
fn origin_authority(origin: &str) -> Option<&str> {
    let (_, rest) = origin.split_once("://")?;
    Some(rest.trim_end_matches('/'))
}

/// What the middleware needs: the token and sessions (the dashboard's [`Gate`]), the
/// config, the names.
#[derive(Clone)]
pub struct Policy {
    pub dashboard: Arc<Dashboard>,
    pub config: Arc<Config>,
    pub hosts: HostCheck,
}

fn refuse(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({ "error": message.into() })),
    )
        .into_response()
}

fn refused(r: Refusal) -> Response {
    let status = match r {
        Refusal::Missing => StatusCode::UNAUTHORIZED,
        Refusal::Wrong | Refusal::NoneConfigured => StatusCode::FORBIDDEN,
    };
    refuse(status, r.message())
}

fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The Host and Origin checks; `Some` is the refusal to answer with.
fn check_host(
    policy: &Policy,
    headers: &HeaderMap,
    method: &Method,
    local: Option<SocketAddr>,
) -> Option<Response> {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return Some(refuse(
            StatusCode::BAD_REQUEST,
            "no Host header: ask for this daemon by its address or a name in [http] names",
        ));
    };
    if !policy.hosts.allows(host, local) {
        return Some(refuse(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "Host {host:?} is not a name of this daemon: use its address, localhost, \
                 or add the name to [http] names"
            ),
        ));
    }
    if changes_state(method) {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let same = origin
                .to_str()
                .ok()
                .and_then(origin_authority)
                .is_some_and(|a| a.eq_ignore_ascii_case(host));
            if !same {
                return Some(refuse(
                    StatusCode::FORBIDDEN,
                    format!(
                        "a request from origin {:?} may not change anything here: only the \
                         dashboard's own page may",
                        origin.to_str().unwrap_or("?")
                    ),
                ));
            }
        }
    }
    None
}

/// The middleware: Host and Origin, then the route's group.
pub async fn enforce(State(policy): State<Policy>, request: Request, next: Next) -> Response {
    let local = request.extensions().get::<ConnInfo>().map(|c| c.local);
    if let Some(r) = check_host(&policy, request.headers(), request.method(), local) {
        return r;
    }
    // An unmatched path goes on to its 404.
    let Some(pattern) = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned())
    else {
        return next.run(request).await;
    };
    let Some(group) = group_of(&pattern) else {
        tracing::error!(
            "HTTP route {pattern} has no access policy: refused (add it to http::access::ROUTES)"
        );
        return refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "this route has no access policy yet, so it is closed",
        );
    };
    if !is_open(group, &policy.config) {
        let gate = policy.dashboard.gate();
        let allowed = match group {
            Group::ArbiterAct => gate.check_action(request.headers()),
            _ => match gate.access(request.headers()) {
                Access::Arbiter | Access::Viewer => Ok(()),
                Access::None => gate.check_read(request.headers()),
            },
        };
        if let Err(r) = allowed {
            return refused(r);
        }
    }
    next.run(request).await
}

/// `router` with the policy applied to every route (and the Host check to every path).
pub fn layer(router: Router, policy: Policy) -> Router {
    router.layer(axum::middleware::from_fn_with_state(policy, enforce))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bind: &str, names: &[&str]) -> HostCheck {
        HostCheck {
            bind: bind.parse().unwrap(),
            names: names.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn hosts_are_the_bind_address_localhost_or_a_configured_name() {
        let h = check("127.0.0.1:8080", &["arbiter.local"]);
        assert!(h.allows("127.0.0.1:8080", None));
        assert!(h.allows("localhost:8080", None));
        assert!(h.allows("LOCALHOST", None));
        assert!(h.allows("Arbiter.Local:8080", None));
        assert!(!h.allows("evil.example:8080", None));
        assert!(!h.allows("evil.example", None));
        assert!(!h.allows("127.0.0.2:8080", None));
        assert!(!h.allows("", None));
        assert!(!h.allows("arbiter.local.evil.example", None));
        let any = check("0.0.0.0:8080", &[]);
        let local: SocketAddr = "192.168.1.5:8080".parse().unwrap();
        assert!(any.allows("192.168.1.5:8080", Some(local)));
        assert!(!any.allows("192.168.1.6:8080", Some(local)));
        assert!(!any.allows("rebind.example", Some(local)));
        let v6 = check("[::1]:8080", &[]);
        assert!(v6.allows("[::1]:8080", None));
        assert!(v6.allows("[::1]", None));
    }

    #[test]
    fn origins_are_reduced_to_their_authority() {
        assert_eq!(
            origin_authority("https://arbiter.local"),
            Some("arbiter.local")
        );
        assert_eq!(
            origin_authority("http://127.0.0.1:8080"),
            Some("127.0.0.1:8080")
        );
        assert_eq!(origin_authority("null"), None);
        assert_eq!(strip_port("[::1]:80"), "[::1]");
        assert_eq!(strip_port("a.b:80"), "a.b");
        assert_eq!(strip_port("a.b:x"), "a.b:x");
    }

    /// The route patterns a router holds, read from its `Debug` form (axum has no other
    /// way to list them). Fails loudly if that form changes.
    fn routes_of(router: &Router) -> Vec<String> {
        let text = format!("{router:?}");
        let mut found: Vec<String> = Vec::new();
        // `paths: {RouteId(0): "/healthz", ...}`
        for part in text.split("RouteId(").skip(1) {
            let Some(after) = part.split_once("): \"") else {
                continue;
            };
            let path = after.1.split('"').next().unwrap_or("");
            // axum's own catch-all for unmatched paths (the 404s), not a route.
            if path.contains("__private__axum") {
                continue;
            }
            if !found.iter().any(|f| f == path) {
                found.push(path.to_owned());
            }
        }
        found
    }

    #[tokio::test]
    async fn every_route_has_a_policy() {
        let dir = std::env::temp_dir().join(format!("arbiter-access-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "[event]\nname = \"X\"\nround = 1\ntime_control = \"180+2\"\n[output]\ndir = \"{}\"\n\
             [http]\ntoken = \"0123456789abcdef0123\"\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n",
            dir.display()
        );
        let config = Arc::new(Config::parse(&text, std::path::Path::new("c.toml")).unwrap());
        let hub = Arc::new(arbiter_hub::Hub::new([1]));
        let (_dash, dashboard, task) = arbiter_dashboard::Dashboard::start(
            Arc::clone(&hub),
            Arc::clone(&config),
            &daemon_config::paths::Paths::new(&dir),
        );
        // As the runtime builds it.
        let router = crate::http::router(crate::http::AppState {
            hub,
            config: Arc::clone(&config),
            public: Arc::new(arbiter_outputs::public::Public::new(&config, None)),
        })
        .merge(dashboard)
        // On its own listener in the runtime; merged here so the table is checked.
        .merge(crate::livechess_api::router(
            crate::livechess_api::ApiState::new(
                Arc::new(arbiter_hub::Hub::new([1])),
                Arc::clone(&config),
                Arc::new(arbiter_outputs::public::Public::new(&config, None)),
            )
            .0,
        ));
        let routes = routes_of(&router);
        task.abort();
        std::fs::remove_dir_all(&dir).ok();
        assert!(
            routes.len() >= 10,
            "the router's routes were not found: {routes:?}"
        );
        for r in &routes {
            assert!(
                group_of(r).is_some(),
                "route {r} has no access policy: add it to http::access::ROUTES"
            );
        }
        for (p, _) in ROUTES {
            assert!(
                routes.iter().any(|r| r == p),
                "ROUTES names {p}, which no router has"
            );
        }
    }

    #[test]
    fn every_group_is_open_or_closed_as_documented() {
        let text = "[event]\nname = \"X\"\nround = 1\ntime_control = \"180+2\"\n[output]\ndir = \"out\"\n[[board]]\nnumber = 1\nport = \"/dev/null\"\n";
        let closed = Config::parse(text, std::path::Path::new("c.toml")).unwrap();
        let open = Config::parse(
            &format!("{text}[http]\npublic_dashboard = true\n"),
            std::path::Path::new("c.toml"),
        )
        .unwrap();
        assert!(is_open(Group::Open, &closed));
        assert!(!is_open(Group::Broadcast, &closed));
        assert!(!is_open(Group::ArbiterRead, &closed));
        assert!(is_open(Group::Broadcast, &open));
        assert!(is_open(Group::ArbiterRead, &open));
        assert!(!is_open(Group::ArbiterAct, &open));
    }
}
