//! The daemon's configuration (`dgt-arbiter run --config FILE.toml`): the event, its time
//! control and rules, where the outputs go, the HTTP endpoint, and each board.
//!
//! Read with `toml` + serde (`deny_unknown_fields` everywhere), then validated. Every
//! mistake is one [`ConfigError::Invalid`] naming the file, line and column and saying
//! what is expected there; one load reports all of them ([`ConfigError::Several`]). See `config/*.toml` for examples and `docs/deployment.md` for
//! every key.

use std::cell::RefCell;
use std::fmt;
use std::net::SocketAddr;
use std::ops::Range;
use std::path::{Path, PathBuf};

use dgt_protocol::capture::TimeControl;
use dgt_protocol::ClockSide;
use messages::Language;
use serde::Deserialize;
use toml::Spanned;
use touch_tracker::{Penalties, Supervision, TimeCategory, TrackerConfig};

use crate::pairings::{BoardPairing, TrfRound};
pub use crate::said::{Said, Warning};
pub use crate::token::ArbiterToken;

/// The configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The cause is the error's `source()` (not repeated in its message, which the
    /// binary prints with its causes).
    #[error("cannot read the config file {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A mistake in the file, with its place.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        /// The mistake in the catalogue's words, for people in their language
        /// ([`ConfigError::message`]); `None`: said in English only.
        said: Option<Said>,
    },
    /// More than one mistake (each an [`ConfigError::Invalid`], in the file's order):
    /// one run reports them all, one per line.
    #[error("{path}: {} mistakes\n{}", .mistakes.len(), lines(.mistakes))]
    Several {
        path: PathBuf,
        mistakes: Vec<ConfigError>,
    },
}

impl ConfigError {
    /// Each mistake on its own (one for [`ConfigError::Read`] and
    /// [`ConfigError::Invalid`]).
    pub fn mistakes(&self) -> Vec<&ConfigError> {
        match self {
            ConfigError::Several { mistakes, .. } => mistakes.iter().collect(),
            one => vec![one],
        }
    }

    /// The same mistake with its words for people (an [`ConfigError::Invalid`]'s).
    fn said(mut self, words: Said) -> ConfigError {
        if let ConfigError::Invalid { said, .. } = &mut self {
            *said = Some(words);
        }
        self
    }
}

fn lines(mistakes: &[ConfigError]) -> String {
    mistakes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// At most this many mistakes are reported from one file (a file of garbage would
/// otherwise give one per line).
pub const MAX_MISTAKES: usize = 50;

/// Largest config file read (a thousand boards take about 100 KiB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The tournament: what goes into every PGN header and LiveChess file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventInfo {
    pub name: String,
    pub site: String,
    /// PGN form: `YYYY.MM.DD`.
    pub date: String,
    pub round: u32,
    /// The language of the rulings on the terminal and in the log (`[event] language`,
    /// `en` by default; `--lang` overrides it).
    pub language: Language,
}

/// The rules and start position a board's games are played from (arbiter-rules.md
/// section 6: known before move 1, never guessed from the board).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GameStart {
    /// Standard chess from the standard position.
    #[default]
    Standard,
    /// Chess960 from this start (`start_position = N` or `start_fen`).
    Chess960(chess_rules::Position),
    /// Chess960 whose start the board shows when play begins (`variant = "chess960"`
    /// without a start): its first placement, with every castling right it allows.
    Chess960FromBoard,
}

impl GameStart {
    pub fn is_chess960(self) -> bool {
        !matches!(self, GameStart::Standard)
    }
}

/// Where a board is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardPort {
    /// A device path (`/dev/dgt/board-3`, `/dev/ttyACM0`, a pty).
    Path(PathBuf),
    /// The board with this DGT serial number, searched among the serial ports.
    Serial(String),
    /// An e-board of a running LiveChess (or another daemon's `[livechess_api]`),
    /// followed over its WebSocket feed (`source = "livechess://HOST:1982/SERIALNR"`).
    LiveChess(livechess_api::follow::SourceUrl),
}

impl fmt::Display for BoardPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardPort::Path(p) => write!(f, "{}", p.display()),
            BoardPort::Serial(s) => write!(f, "serial {s}"),
            BoardPort::LiveChess(u) => write!(f, "{u}"),
        }
    }
}

/// One board of the hall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardConfig {
    /// The board number (1, 2, ...): its name in events, files and URLs.
    pub number: u32,
    pub port: BoardPort,
    pub white: Option<String>,
    pub black: Option<String>,
    /// Which side of the clock is White's; `None`: infer it.
    pub white_clock: Option<ClockSide>,
    /// The daemon may run the clock on its own after a ruling (handled by the unattended
    /// clock control; kept here so the config names it).
    pub unattended: bool,
    /// The players as the pairing program's TRF names them (`[event] trf`); `white` and
    /// `black` then hold their names.
    pub pairing: Option<BoardPairing>,
    /// Its games are published (`broadcast = false`: recorded, never published; see
    /// [`BroadcastConfig`]).
    pub broadcast: bool,
    /// Its own time control (`[[board]] time_control`), when it plays another than the
    /// event's (a top board's classical game beside a rapid section, a seniors' group).
    pub time_control: Option<TimeControl>,
    /// Its own Chess960 start (`[[board]] start_position` or `start_fen`), when it plays
    /// another than the event's.
    pub start: Option<GameStart>,
}

impl BoardConfig {
    /// The board's name in events (`"3"`).
    pub fn name(&self) -> String {
        self.number.to_string()
    }
}

/// Where outputs go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputConfig {
    /// Root of all outputs (journal, events, PGN, LiveChess folder).
    pub dir: PathBuf,
    /// Also write the JSON-lines event stream to stdout.
    pub events_stdout: bool,
}

/// The HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    pub enabled: bool,
    pub bind: SocketAddr,
    /// The arbiter token that dashboard actions need (`None`: the daemon makes one and
    /// keeps it in the output folder; see the daemon's `dashboard`).
    pub token: Option<ArbiterToken>,
    /// The dashboard's read-only view is open to anyone who reaches the endpoint.
    pub public_dashboard: bool,
    /// Host names the endpoint answers to besides its address and `localhost`
    /// (see the daemon's `http::access`).
    pub names: Vec<String>,
    /// HTTPS: the certificate chain and its key, PEM files (see [`crate::tls`]).
    pub tls: Option<TlsFiles>,
}

/// `[livechess_api]`: the DGT LiveChess local API (WebSocket and REST, crate
/// `livechess-api`) on its own listener, for lichess's `/dgt` page and other LiveChess
/// consumers. Off unless the section is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveChessApiConfig {
    /// Default `127.0.0.1:1982`, LiveChess's own port.
    pub bind: SocketAddr,
}

/// The PEM files of `[http] tls_cert` and `tls_key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// What the public sees and when (`[broadcast]`; see `broadcast_delay`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BroadcastConfig {
    /// A `[broadcast]` section is configured: the broadcast outputs are public (see
    /// `http::access::broadcast_is_public`).
    pub published: bool,
    /// Every public output lags the hall by this much, ms (`delay = "15m"`).
    pub delay_ms: u64,
    /// The round publishes results only: no moves from any board.
    pub results_only: bool,
    /// A board off the air (`broadcast = false`) shows its result once the game is over.
    pub results_off_air: bool,
    /// Push the delayed round PGN to a broadcast server.
    pub push: Option<PushConfig>,
}

impl BroadcastConfig {
    /// The public view's policy for these boards.
    pub fn policy(&self, boards: &[BoardConfig]) -> broadcast_delay::Policy {
        broadcast_delay::Policy {
            delay_ms: self.delay_ms,
            results_only: self.results_only,
            boards: boards
                .iter()
                .filter(|b| !b.broadcast)
                .map(|b| {
                    (
                        b.number,
                        broadcast_delay::Air::Off {
                            results: self.results_off_air,
                        },
                    )
                })
                .collect(),
        }
    }
}

/// `[broadcast.push]`: where the delayed round PGN goes.
#[derive(Clone, PartialEq, Eq)]
pub struct PushConfig {
    /// The round's push endpoint (`https://lichess.org/api/broadcast/round/ID/push`).
    pub url: String,
    /// The bearer token, read from `token_file` (never logged).
    pub token: String,
    /// The file it was read from (for messages).
    pub token_file: PathBuf,
    /// Least time between two pushes, ms.
    pub interval_ms: u64,
}

impl fmt::Debug for PushConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PushConfig")
            .field("url", &self.url)
            .field("token", &"(hidden)")
            .field("token_file", &self.token_file)
            .field("interval_ms", &self.interval_ms)
            .finish()
    }
}

/// Timings; the defaults suit real boards (tests and the sped-up demo scale them).
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// See [`TrackerConfig::settle_window_ms`].
    pub settle_window_ms: u64,
    /// See [`TrackerConfig::two_handed_window_ms`].
    pub two_handed_window_ms: u64,
    /// See [`TrackerConfig::flicker_ms`].
    pub flicker_ms: u64,
    /// Longest "can this side still mate?" search before the answer is "undetermined".
    pub analysis_budget_ms: u64,
    /// Longest time a journal record waits for its fdatasync (see the `board-journal` crate).
    pub journal_sync_ms: u64,
    /// How long an unattended ruling's text stays on the clock before the next one.
    pub ruling_text_ms: u64,
    /// See [`TrackerConfig::time_scale`]: the emulator's `--speed` for an emulated hall.
    pub time_scale: f64,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            settle_window_ms: 400,
            two_handed_window_ms: 250,
            flicker_ms: touch_tracker::touch::FLICKER_MS,
            analysis_budget_ms: 3000,
            journal_sync_ms: 150,
            ruling_text_ms: 1500,
            time_scale: 1.0,
        }
    }
}

/// How the daemon's process is run (`[runtime]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// Threads of the async runtime: the boards' tasks, the serial drivers, HTTP. The
    /// searches, the file sinks and the journal syncs have threads of their own. One is
    /// the default: at 1,000 boards it cost 11-12% less CPU than two, the work handed
    /// between two threads waking one another (docs/performance.md).
    pub async_threads: usize,
}

impl Default for RuntimeConfig {
    fn default() -> RuntimeConfig {
        RuntimeConfig { async_threads: 1 }
    }
}

/// A validated configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The file it was read from (for messages).
    pub path: PathBuf,
    pub event: EventInfo,
    pub time_control: TimeControl,
    /// `[event] variant` and its start (`start_position` or `start_fen`).
    pub start: GameStart,
    /// The category penalties are taken from (derived from the time control unless the
    /// file overrides it).
    pub category: TimeCategory,
    /// The file names the category (`event.category`): every board takes it, whatever
    /// its own time control.
    pub category_given: bool,
    pub supervision: Supervision,
    /// Extra time for a first illegal move, ms.
    pub penalty_ms: u64,
    /// The file names that time (`penalties.first_illegal_secs`): every board takes it.
    pub penalty_given: bool,
    pub remove_offender_increment: bool,
    pub penalise_two_handed: bool,
    pub output: OutputConfig,
    pub http: HttpConfig,
    pub timing: Timing,
    pub runtime: RuntimeConfig,
    pub broadcast: BroadcastConfig,
    /// `[livechess_api]` (`None`: not served).
    pub livechess_api: Option<LiveChessApiConfig>,
    /// In board-number order.
    pub boards: Vec<BoardConfig>,
    /// The pairing program's TRF file the round's players come from (`[event] trf`).
    pub trf: Option<PathBuf>,
    /// A message (with file, line and column) for each board whose port did not exist
    /// when the file was read: `run` warns and keeps trying to open it, `run --check`
    /// warns too (a cable out is no config mistake).
    pub missing_ports: Vec<Warning>,
    /// `[network]`: this daemon is a hall of a several-PC event, or its central.
    pub network: Option<hall_network::NetworkConfig>,
}

impl Config {
    /// Reads and validates a config file. Relative `output.dir` is taken from the file's
    /// folder.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = crash_safe::read_text_bounded(path, MAX_CONFIG_BYTES).map_err(|source| {
            ConfigError::Read {
                path: path.to_owned(),
                source,
            }
        })?;
        Config::parse(&text, path)
    }

    /// Validates config text; `path` names it in messages and anchors relative paths.
    /// Every mistake found is reported, not only the first (see [`ConfigError::Several`]).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut mistakes = Vec::new();
        let raw = read_raw(text, path, &mut mistakes);
        let v = Validate {
            path,
            text,
            mistakes: RefCell::new(mistakes),
        };
        let config = match raw {
            Some(raw) => v.config(raw),
            None => Err(v.stop()),
        };
        v.finish(config)
    }

    /// The time control board `b` plays: its own, or the event's.
    pub fn board_time_control(&self, b: &BoardConfig) -> TimeControl {
        b.time_control.unwrap_or(self.time_control)
    }

    /// The rules and start of board `b`'s games: its own, or the event's.
    pub fn board_start(&self, b: &BoardConfig) -> GameStart {
        b.start.unwrap_or(self.start)
    }

    /// The FIDE category of board `b`'s game (penalties follow it): the event's when the
    /// file names one, otherwise its own time control's (arbiter-rules.md section 5).
    pub fn board_category(&self, b: &BoardConfig) -> TimeCategory {
        match b.time_control {
            Some(tc) if !self.category_given => TimeCategory::of(tc),
            _ => self.category,
        }
    }

    /// The time added to the opponent for a first illegal move on board `b` (art. 7.5.5):
    /// the file's, or its category's.
    pub fn board_penalty_ms(&self, b: &BoardConfig) -> u64 {
        if self.penalty_given {
            self.penalty_ms
        } else {
            Penalties::default().for_category(self.board_category(b))
        }
    }

    /// The tracker configuration of one board.
    pub fn tracker_config(&self, board: &BoardConfig) -> TrackerConfig {
        let mut t = TrackerConfig::new(board.name());
        t.white_clock = board.white_clock;
        t.time_control = Some(self.board_time_control(board));
        match self.board_start(board) {
            GameStart::Standard => {}
            GameStart::Chess960(start) => t.start = start,
            GameStart::Chess960FromBoard => t.start_from_board = true,
        }
        t.category = Some(self.board_category(board));
        // The tracker takes the penalty of the board's category (art. 7.5.5), as
        // `board_penalty_ms` says it; a time the file names is every category's.
        t.penalties = if self.penalty_given {
            Penalties::same_for_all(self.penalty_ms)
        } else {
            Penalties::default()
        };
        t.remove_offender_increment = self.remove_offender_increment;
        t.supervision = self.supervision;
        t.penalise_two_handed = self.penalise_two_handed;
        t.settle_window_ms = self.timing.settle_window_ms;
        t.two_handed_window_ms = self.timing.two_handed_window_ms;
        t.flicker_ms = self.timing.flicker_ms;
        t.time_scale = self.timing.time_scale;
        t
    }

    /// The board with this number.
    pub fn board(&self, number: u32) -> Option<&BoardConfig> {
        self.boards.iter().find(|b| b.number == number)
    }
}

fn invalid(path: &Path, text: &str, offset: usize, message: String) -> ConfigError {
    let (line, column) = line_column(text, offset);
    ConfigError::Invalid {
        path: path.to_owned(),
        line,
        column,
        message,
        said: None,
    }
}

/// The parser's words, with Rust type names put plainly.
fn friendly(message: &str) -> String {
    message
        .replace("expected i64", "expected a whole number")
        .replace("expected a boolean", "expected true or false")
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The file as written, deserialized. toml stops at its first mistake; so that one run
/// reports the others too, the line of an unknown or mistyped key (or an unknown
/// section, up to the next header) is blanked out and the text read again. Blanking
/// keeps every byte offset, so each message keeps its place in the original text. A
/// syntax error or a missing key ends the reading: after the first mistake they may be
/// its consequence (a mistyped required key is missing once blanked), so they are then
/// not reported. `None`: the file cannot be read into the structure at all.
fn read_raw(text: &str, path: &Path, mistakes: &mut Vec<ConfigError>) -> Option<RawConfig> {
    let mut read = text.to_owned();
    loop {
        let (syntax, e) = match toml::de::DeTable::parse(&read) {
            Err(e) => (true, e),
            Ok(_) => match toml::from_str::<RawConfig>(&read) {
                Ok(raw) => return Some(raw),
                Err(e) => (false, e),
            },
        };
        let message = e.message().trim_end();
        let missing = message.starts_with("missing field");
        if (syntax || missing) && !mistakes.is_empty() {
            return None;
        }
        let at = e.span().map_or(0, |s| s.start);
        mistakes.push(invalid(path, text, at, friendly(message)).said(toml_said(syntax, message)));
        if syntax || missing || mistakes.len() >= MAX_MISTAKES || !blank_out(&mut read, at) {
            return None;
        }
    }
}

/// The TOML reader's mistake in the catalogue's words: a key not known or missing by
/// name; the parser's own words (English) otherwise, said to be a syntax error or a
/// wrong value.
fn toml_said(syntax: bool, message: &str) -> Said {
    let quoted = |after: &str| {
        message
            .strip_prefix(after)
            .and_then(|rest| rest.strip_prefix('`'))
            .and_then(|rest| rest.split_once('`'))
    };
    if let Some((key, rest)) = quoted("unknown field ") {
        let expected = rest.strip_prefix(", expected ").unwrap_or_default();
        if expected.is_empty() {
            return Said::new("config-unknown-key-alone").arg("key", key);
        }
        return Said::new("config-unknown-key").arg("key", key).arg(
            "expected",
            expected.strip_prefix("one of ").unwrap_or(expected),
        );
    }
    if let Some((key, _)) = quoted("missing field ") {
        return Said::new("config-missing-key").arg("key", key);
    }
    let id = if syntax {
        "config-toml-syntax"
    } else {
        "config-bad-value"
    };
    Said::new(id).arg("detail", friendly(message))
}

/// Blanks out (with spaces, byte for byte) the line holding byte `at`, or the whole
/// section when it is a `[header]` line; false when there was nothing left to blank.
fn blank_out(text: &mut String, at: usize) -> bool {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
    let mut end = line_end(start);
    if text[start..end].trim_start().starts_with('[') {
        // The section's lines, up to the next header.
        while end < text.len() {
            let next = end + 1;
            let next_end = line_end(next);
            if text[next..next_end].trim_start().starts_with('[') {
                break;
            }
            end = next_end;
        }
    }
    if text[start..end].bytes().all(|b| b == b' ' || b == b'\n') {
        return false;
    }
    let blank: String = text[start..end]
        .bytes()
        .map(|b| if b == b'\n' { '\n' } else { ' ' })
        .collect();
    text.replace_range(start..end, &blank);
    true
}

/// `YYYY-MM-DD` or `YYYY.MM.DD` to the PGN form `YYYY.MM.DD`.
fn parse_date(s: &str) -> Option<String> {
    let parts: Vec<&str> = s.trim().split(['-', '.']).collect();
    let [y, m, d] = parts.as_slice() else {
        return None;
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (u32, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days)
        .contains(&d)
        .then(|| format!("{y:04}.{m:02}.{d:02}"))
}

/// Today's date (UTC) in PGN form.
fn today() -> String {
    let (y, m, d, ..) = wall_clock::civil(wall_clock::unix_ms_now());
    format!("{y:04}.{m:02}.{d:02}")
}

pub mod endpoint;
pub mod pairings;
pub mod paths;
mod raw;
mod said;
pub mod tls;
pub mod token;
mod validate;

pub use endpoint::Endpoint;
use raw::*;
use validate::Validate;

#[cfg(test)]
mod tests;
