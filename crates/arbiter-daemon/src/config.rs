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

use crate::dashboard::auth::ArbiterToken;
use crate::pairings::{BoardPairing, TrfRound};

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
    /// keeps it in the output folder; see [`crate::dashboard`]).
    pub token: Option<ArbiterToken>,
    /// The dashboard's read-only view is open to anyone who reaches the endpoint.
    pub public_dashboard: bool,
    /// Host names the endpoint answers to besides its address and `localhost`
    /// (see [`crate::http::access`]).
    pub names: Vec<String>,
    /// HTTPS: the certificate chain and its key, PEM files (see [`crate::http::tls`]).
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
    /// Longest time a journal record waits for its fdatasync (see [`board_journal`]).
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
    pub missing_ports: Vec<String>,
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
        let penalty_ms = self.board_penalty_ms(board);
        t.penalties = Penalties {
            blitz_ms: penalty_ms,
            rapid_ms: penalty_ms,
            standard_ms: penalty_ms,
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
        mistakes.push(invalid(path, text, at, friendly(message)));
        if syntax || missing || mistakes.len() >= MAX_MISTAKES || !blank_out(&mut read, at) {
            return None;
        }
    }
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

// ----- the file as written -----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    event: RawEvent,
    #[serde(default)]
    penalties: RawPenalties,
    output: RawOutput,
    #[serde(default)]
    http: RawHttp,
    #[serde(default)]
    timing: RawTiming,
    #[serde(default)]
    runtime: RawRuntime,
    broadcast: Option<RawBroadcast>,
    livechess_api: Option<RawLiveChessApi>,
    #[serde(default, rename = "board")]
    boards: Vec<Spanned<RawBoard>>,
    /// One event across several hall PCs (the `hall-network` crate owns the section).
    network: Option<Spanned<hall_network::NetworkConfig>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    name: Spanned<String>,
    site: Option<Spanned<String>>,
    date: Option<Spanned<String>>,
    round: Spanned<i64>,
    /// The pairing program's TRF file: the round's players come from it.
    trf: Option<Spanned<String>>,
    time_control: Spanned<String>,
    category: Option<Spanned<String>>,
    supervision: Option<Spanned<String>>,
    /// `standard` (the default) or `chess960`.
    variant: Option<Spanned<String>>,
    /// A Chess960 start position number (0-959).
    start_position: Option<Spanned<i64>>,
    /// A Chess960 start as X-FEN or Shredder-FEN.
    start_fen: Option<Spanned<String>>,
    /// `en` (default) or `ru`: the rulings' language.
    language: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPenalties {
    first_illegal_secs: Option<Spanned<i64>>,
    remove_offender_increment: Option<bool>,
    two_handed: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    dir: Spanned<String>,
    #[serde(default)]
    events_stdout: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttp {
    enabled: Option<bool>,
    bind: Option<Spanned<String>>,
    token: Option<Spanned<String>>,
    public_dashboard: Option<bool>,
    names: Option<Vec<Spanned<String>>>,
    tls_cert: Option<Spanned<String>>,
    tls_key: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLiveChessApi {
    bind: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBroadcast {
    delay: Option<Spanned<String>>,
    #[serde(default)]
    results_only: bool,
    #[serde(default)]
    results_off_air: bool,
    push: Option<Spanned<RawPush>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPush {
    url: Spanned<String>,
    token_file: Spanned<String>,
    interval: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTiming {
    settle_window_ms: Option<Spanned<i64>>,
    two_handed_window_ms: Option<Spanned<i64>>,
    flicker_ms: Option<Spanned<i64>>,
    analysis_budget_ms: Option<Spanned<i64>>,
    journal_sync_ms: Option<Spanned<i64>>,
    ruling_text_ms: Option<Spanned<i64>>,
    time_scale: Option<Spanned<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuntime {
    async_threads: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBoard {
    number: Spanned<i64>,
    port: Option<Spanned<String>>,
    serial: Option<Spanned<String>>,
    /// `livechess://HOST:PORT/SERIALNR` instead of a port or serial.
    source: Option<Spanned<String>>,
    white: Option<Spanned<String>>,
    black: Option<Spanned<String>>,
    white_clock: Option<Spanned<String>>,
    #[serde(default)]
    unattended: bool,
    broadcast: Option<bool>,
    time_control: Option<Spanned<String>>,
    start_position: Option<Spanned<i64>>,
    start_fen: Option<Spanned<String>>,
}

// ----- validation -----

struct Validate<'a> {
    path: &'a Path,
    text: &'a str,
    /// The mistakes found so far: validation goes on past a mistake (with a stand-in
    /// value) so that one run reports them all.
    mistakes: RefCell<Vec<ConfigError>>,
}

impl Validate<'_> {
    fn err(&self, span: Range<usize>, message: impl Into<String>) -> ConfigError {
        invalid(self.path, self.text, span.start, message.into())
    }

    /// Notes a mistake and goes on.
    fn note(&self, mistake: ConfigError) {
        self.mistakes.borrow_mut().push(mistake);
    }

    /// `r`'s value, or `None` with its mistake noted.
    fn keep<T>(&self, r: Result<T, ConfigError>) -> Option<T> {
        r.map_err(|e| self.note(e)).ok()
    }

    /// The error to return once mistakes are noted ([`Validate::finish`] puts it back
    /// among the others).
    fn stop(&self) -> ConfigError {
        self.mistakes
            .borrow_mut()
            .pop()
            .unwrap_or_else(|| invalid(self.path, self.text, 0, "the config is not usable".into()))
    }

    /// The config, or every mistake noted (and `result`'s own), in the file's order,
    /// one per place.
    fn finish(&self, result: Result<Config, ConfigError>) -> Result<Config, ConfigError> {
        let mut mistakes = self.mistakes.take();
        match result {
            Ok(config) if mistakes.is_empty() => return Ok(config),
            Ok(_) => {}
            Err(e) => mistakes.push(e),
        }
        let place = |e: &ConfigError| match e {
            ConfigError::Invalid { line, column, .. } => (*line, *column),
            _ => (0, 0),
        };
        mistakes.sort_by_key(place);
        mistakes.dedup_by(|a, b| place(a) == place(b));
        mistakes.truncate(MAX_MISTAKES);
        if mistakes.len() == 1 {
            return Err(mistakes.remove(0));
        }
        Err(ConfigError::Several {
            path: self.path.to_owned(),
            mistakes,
        })
    }

    /// A text that goes into PGN tags, paths or logs must be one line of printable text:
    /// a newline in a player's name would split a PGN tag in two.
    fn one_line(&self, s: &Spanned<String>, key: &str) -> Result<(), ConfigError> {
        match s
            .get_ref()
            .chars()
            .enumerate()
            .find(|(_, c)| c.is_control())
        {
            None => Ok(()),
            Some((i, c)) => Err(self.err(
                s.span(),
                format!(
                    "{key} holds a control character (U+{:04X}) at character {}; expected \
                     one line of printable text",
                    c as u32,
                    i + 1
                ),
            )),
        }
    }

    /// Every text field of the file, checked with [`Validate::one_line`].
    fn text_fields(&self, raw: &RawConfig) {
        let e = &raw.event;
        self.keep(self.one_line(&e.name, "event.name"));
        for (v, key) in [
            (&e.site, "event.site"),
            (&e.date, "event.date"),
            (&e.category, "event.category"),
            (&e.supervision, "event.supervision"),
            (&e.language, "event.language"),
            (&raw.penalties.two_handed, "penalties.two_handed"),
            (&raw.http.bind, "http.bind"),
            (&raw.http.tls_cert, "http.tls_cert"),
            (&raw.http.tls_key, "http.tls_key"),
        ] {
            if let Some(v) = v {
                self.keep(self.one_line(v, key));
            }
        }
        self.keep(self.one_line(&e.time_control, "event.time_control"));
        self.keep(self.one_line(&raw.output.dir, "output.dir"));
        for n in raw.http.names.iter().flatten() {
            self.keep(self.one_line(n, "http.names"));
        }
        for b in &raw.boards {
            let b = b.get_ref();
            for (v, key) in [
                (&b.port, "board.port"),
                (&b.serial, "board.serial"),
                (&b.white, "board.white"),
                (&b.black, "board.black"),
                (&b.white_clock, "board.white_clock"),
            ] {
                if let Some(v) = v {
                    self.keep(self.one_line(v, key));
                }
            }
        }
    }

    fn config(&self, raw: RawConfig) -> Result<Config, ConfigError> {
        self.text_fields(&raw);
        let e = &raw.event;
        let name = e.name.get_ref().trim();
        if name.is_empty() {
            self.note(self.err(
                e.name.span(),
                "event.name is empty; expected the event's name",
            ));
        }
        let round = self
            .keep(self.in_range(&e.round, "event.round", 1, 999, ""))
            .unwrap_or(1);
        let date = match &e.date {
            Some(d) => parse_date(d.get_ref()).unwrap_or_else(|| {
                self.note(self.err(
                    d.span(),
                    format!(
                        "event.date {:?} is not a date; expected YYYY-MM-DD (or YYYY.MM.DD)",
                        d.get_ref()
                    ),
                ));
                today()
            }),
            None => today(),
        };
        let time_control = self.keep(self.time_control(&e.time_control, "event.time_control"));
        let category = match &e.category {
            Some(c) => match c.get_ref().as_str() {
                "blitz" => TimeCategory::Blitz,
                "rapid" => TimeCategory::Rapid,
                "standard" => TimeCategory::Standard,
                other => {
                    let hint = time_control.map_or_else(String::new, |tc| {
                        format!(" (or leave it out: {tc} is {})", TimeCategory::of(tc))
                    });
                    self.note(self.err(
                        c.span(),
                        format!(
                            "event.category {other:?} is not a FIDE category; expected blitz, \
                             rapid or standard{hint}"
                        ),
                    ));
                    TimeCategory::Blitz
                }
            },
            None => time_control.map_or(TimeCategory::Blitz, TimeCategory::of),
        };
        // A stand-in for a time control already reported as a mistake.
        let time_control = time_control.unwrap_or(TimeControl::sudden_death(180, 2));
        let supervision = match &e.supervision {
            Some(s) => s.get_ref().parse::<Supervision>().unwrap_or_else(|_| {
                self.note(self.err(
                    s.span(),
                    format!(
                        "event.supervision {:?} is unknown; expected full (an arbiter watches \
                         the boards) or partial (club play without enough arbiters)",
                        s.get_ref()
                    ),
                ));
                Supervision::Full
            }),
            None => Supervision::Full,
        };
        let language = match &e.language {
            Some(s) => s.get_ref().parse::<Language>().unwrap_or_else(|err| {
                self.note(self.err(s.span(), format!("event.language: {err}")));
                Language::default()
            }),
            None => Language::default(),
        };
        let p = &raw.penalties;
        let penalty_ms = match &p.first_illegal_secs {
            Some(s) => {
                1000 * self
                    .keep(self.in_range(s, "penalties.first_illegal_secs", 1, 600, " seconds"))
                    .unwrap_or(60)
            }
            None => Penalties::default().for_category(category),
        };
        let penalise_two_handed = match &p.two_handed {
            None => false,
            Some(s) => match s.get_ref().as_str() {
                "report" => false,
                "penalise" | "penalize" => true,
                other => {
                    self.note(self.err(
                        s.span(),
                        format!(
                            "penalties.two_handed {other:?} is unknown; expected report (tell \
                             the arbiter) or penalise (rule it like an illegal move)"
                        ),
                    ));
                    false
                }
            },
        };
        let dir = raw.output.dir.get_ref().trim();
        if dir.is_empty() {
            self.note(self.err(
                raw.output.dir.span(),
                "output.dir is empty; expected the folder for journal, events, PGN and LiveChess files",
            ));
        }
        let dir = PathBuf::from(dir);
        let dir = if dir.is_relative() {
            self.path.parent().unwrap_or(Path::new(".")).join(dir)
        } else {
            dir
        };
        let default_bind = SocketAddr::from(([127, 0, 0, 1], 8080));
        let bind = match &raw.http.bind {
            Some(b) => b.get_ref().parse::<SocketAddr>().unwrap_or_else(|_| {
                self.note(self.err(
                    b.span(),
                    format!(
                        "http.bind {:?} is not an address; expected IP:PORT such as \
                         127.0.0.1:8080 (or [::1]:8080)",
                        b.get_ref()
                    ),
                ));
                default_bind
            }),
            None => default_bind,
        };
        let livechess_api = match &raw.livechess_api {
            None => None,
            Some(l) => Some(LiveChessApiConfig {
                bind: match &l.bind {
                    Some(b) => b.get_ref().parse::<SocketAddr>().map_err(|_| {
                        self.err(
                            b.span(),
                            format!(
                                "livechess_api.bind {:?} is not an address; expected IP:PORT \
                                 such as 127.0.0.1:1982",
                                b.get_ref()
                            ),
                        )
                    })?,
                    None => SocketAddr::from(([127, 0, 0, 1], 1982)),
                },
            }),
        };
        let t = &raw.timing;
        let d = Timing::default();
        let ms = |v: &Option<Spanned<i64>>, key: &str, lo: i64, hi: i64, default: u64| {
            self.keep(self.opt_range(v, key, lo, hi))
                .flatten()
                .unwrap_or(default)
        };
        let timing = Timing {
            settle_window_ms: ms(
                &t.settle_window_ms,
                "timing.settle_window_ms",
                10,
                5000,
                d.settle_window_ms,
            ),
            two_handed_window_ms: ms(
                &t.two_handed_window_ms,
                "timing.two_handed_window_ms",
                1,
                5000,
                d.two_handed_window_ms,
            ),
            flicker_ms: ms(&t.flicker_ms, "timing.flicker_ms", 1, 1000, d.flicker_ms),
            analysis_budget_ms: ms(
                &t.analysis_budget_ms,
                "timing.analysis_budget_ms",
                10,
                600_000,
                d.analysis_budget_ms,
            ),
            journal_sync_ms: ms(
                &t.journal_sync_ms,
                "timing.journal_sync_ms",
                0,
                10_000,
                d.journal_sync_ms,
            ),
            ruling_text_ms: ms(
                &t.ruling_text_ms,
                "timing.ruling_text_ms",
                0,
                10_000,
                d.ruling_text_ms,
            ),
            time_scale: match &t.time_scale {
                None => d.time_scale,
                Some(v) => {
                    let x = *v.get_ref();
                    if !(0.01..=1000.0).contains(&x) {
                        self.note(self.err(
                            v.span(),
                            format!(
                                "timing.time_scale = {x} is out of range; expected 0.01 to 1000 \
                                 (1 for real boards; an emulated hall's --speed)"
                            ),
                        ));
                    }
                    x
                }
            },
        };
        let token = match &raw.http.token {
            None => None,
            Some(t) => self.keep(ArbiterToken::new(t.get_ref()).map_err(|e| {
                self.err(
                    t.span(),
                    format!(
                        "http.token is not usable: {e}; expected 16 to 200 printable ASCII \
                         characters without spaces (or leave it out: the daemon then makes \
                         one and keeps it in the output folder's arbiter-token file)"
                    ),
                )
            })),
        };
        let http_enabled = raw.http.enabled.unwrap_or(true);
        let names = self.host_names(&raw.http);
        let tls = self.tls_files(&raw.http, http_enabled);
        let start = self.event_start(e);
        let (mut boards, missing_ports) = self.boards(&raw.boards, start.is_chess960());
        if let Some(n) = &raw.network {
            let net = n.get_ref();
            if let Err(e) = net.check() {
                self.note(self.err(n.span(), e.to_string()));
            }
            // The files the link reads when it connects, opened now: a missing one is a
            // mistake that `run --check` finds, not an exit after the daemon started.
            let dir = self.path.parent().unwrap_or(Path::new("."));
            let files = [
                ("network.password_file", &net.password_file),
                ("network.creds", &net.creds),
                ("network.nkey_seed_file", &net.nkey_seed_file),
                ("network.tls_ca", &net.tls_ca),
            ];
            for (key, file) in files {
                let Some(f) = file else { continue };
                let path = if f.is_absolute() {
                    f.clone()
                } else {
                    dir.join(f)
                };
                if let Err(e) = std::fs::File::open(&path) {
                    self.note(self.err(
                        n.span(),
                        format!("{key}: cannot read {}: {e}", path.display()),
                    ));
                }
            }
        }
        let trf = match &e.trf {
            Some(t) => self.keep(self.trf_players(
                t,
                round as u32,
                (time_control, &e.time_control),
                &raw.boards,
                &mut boards,
            )),
            None => None,
        };
        let broadcast = match &raw.broadcast {
            Some(b) => BroadcastConfig {
                published: true,
                ..self.broadcast(b)
            },
            None => BroadcastConfig::default(),
        };
        let runtime = RuntimeConfig {
            async_threads: raw
                .runtime
                .async_threads
                .as_ref()
                .and_then(|v| self.keep(self.in_range(v, "runtime.async_threads", 1, 64, "")))
                .map_or(RuntimeConfig::default().async_threads, |n| n as usize),
        };
        self.unattended_periods(time_control, &e.time_control, &raw.boards, &boards);
        if !self.mistakes.borrow().is_empty() {
            return Err(self.stop());
        }
        Ok(Config {
            path: self.path.to_owned(),
            event: EventInfo {
                name: name.to_owned(),
                site: e
                    .site
                    .as_ref()
                    .map_or_else(|| "?".into(), |s| s.get_ref().clone()),
                date,
                round: round as u32,
                language,
            },
            time_control,
            start,
            category,
            category_given: e.category.is_some(),
            supervision,
            penalty_ms,
            penalty_given: p.first_illegal_secs.is_some(),
            remove_offender_increment: p.remove_offender_increment.unwrap_or(true),
            penalise_two_handed,
            output: OutputConfig {
                dir,
                events_stdout: raw.output.events_stdout,
            },
            http: HttpConfig {
                enabled: http_enabled,
                bind,
                token,
                public_dashboard: raw.http.public_dashboard.unwrap_or(false),
                names,
                tls,
            },
            timing,
            runtime,
            broadcast,
            livechess_api,
            boards,
            trf,
            missing_ports,
            network: raw.network.map(Spanned::into_inner),
        })
    }

    /// `[http] names`: host names such as `arbiter.local`.
    fn host_names(&self, http: &RawHttp) -> Vec<String> {
        let mut out = Vec::new();
        for n in http.names.iter().flatten() {
            let name = n.get_ref();
            let ok = !name.is_empty()
                && name.len() <= 253
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
            if !ok {
                self.note(self.err(
                    n.span(),
                    format!(
                        "http.names: {name:?} is not a host name; expected letters, digits, \
                         dots and hyphens, such as \"arbiter.local\""
                    ),
                ));
                continue;
            }
            out.push(name.to_ascii_lowercase());
        }
        out
    }

    /// `[http] tls_cert` and `tls_key`: both or neither, relative to the file's folder.
    /// With HTTP on, the pair is loaded as the server will load it, so that a bad
    /// certificate or key is a mistake `run --check` reports, not a failed start.
    fn tls_files(&self, http: &RawHttp, enabled: bool) -> Option<TlsFiles> {
        let resolve = |s: &Spanned<String>| {
            let p = PathBuf::from(s.get_ref());
            if p.is_relative() {
                self.path.parent().unwrap_or(Path::new(".")).join(p)
            } else {
                p
            }
        };
        match (&http.tls_cert, &http.tls_key) {
            (None, None) => None,
            (Some(c), Some(k)) => {
                let files = TlsFiles {
                    cert: resolve(c),
                    key: resolve(k),
                };
                if enabled {
                    if let Err(e) = crate::http::tls::server_config(&files) {
                        use crate::http::tls::TlsError;
                        let (span, key) = match &e {
                            TlsError::Read { path, .. } if *path == files.key => {
                                (k.span(), "http.tls_key")
                            }
                            TlsError::NoKey { .. } => (k.span(), "http.tls_key"),
                            _ => (c.span(), "http.tls_cert"),
                        };
                        self.note(self.err(
                            span,
                            format!(
                                "{key}: {e}; expected a PEM certificate chain (tls_cert) and \
                                 its private key (tls_key); `dgt-arbiter tls-selfsigned` makes \
                                 a pair"
                            ),
                        ));
                    }
                }
                Some(files)
            }
            (Some(s), None) | (None, Some(s)) => {
                self.note(self.err(
                    s.span(),
                    "http.tls_cert and http.tls_key go together; expected both PEM files (\
                     `dgt-arbiter tls-selfsigned` makes a pair) or neither",
                ));
                None
            }
        }
    }

    fn broadcast(&self, raw: &RawBroadcast) -> BroadcastConfig {
        let delay = |d: &Spanned<String>, key: &str| {
            self.keep(
                broadcast_delay::parse_delay(d.get_ref())
                    .map_err(|e| self.err(d.span(), format!("{key}: {e}"))),
            )
        };
        let delay_ms = match &raw.delay {
            Some(d) => delay(d, "broadcast.delay").unwrap_or(0),
            None => 0,
        };
        if delay_ms > 24 * 3_600_000 {
            if let Some(d) = &raw.delay {
                self.note(self.err(
                    d.span(),
                    "broadcast.delay is longer than a day; expected a delay such as \"15m\"",
                ));
            }
        }
        let push = raw.push.as_ref().and_then(|p| self.push(p, delay));
        BroadcastConfig {
            published: false,
            delay_ms,
            results_only: raw.results_only,
            results_off_air: raw.results_off_air,
            push,
        }
    }

    /// `[broadcast.push]`; `None` with its mistakes noted.
    fn push(
        &self,
        p: &Spanned<RawPush>,
        delay: impl Fn(&Spanned<String>, &str) -> Option<u64>,
    ) -> Option<PushConfig> {
        let span = p.span();
        let p = p.get_ref();
        let url = p.url.get_ref().trim();
        let mut ok = true;
        if crate::push::Endpoint::parse(url).is_none() {
            ok = false;
            self.note(self.err(
                p.url.span(),
                format!(
                    "broadcast.push.url {url:?} is not a push URL; expected \
                     http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH, such as \
                     https://lichess.org/api/broadcast/round/ROUNDID/push"
                ),
            ));
        }
        let file = PathBuf::from(p.token_file.get_ref().trim());
        let file = if file.is_relative() {
            self.path.parent().unwrap_or(Path::new(".")).join(file)
        } else {
            file
        };
        let token = match std::fs::read_to_string(&file) {
            Ok(token) => token.trim().to_owned(),
            Err(e) => {
                self.note(self.err(
                    p.token_file.span(),
                    format!(
                        "broadcast.push.token_file {}: cannot read it ({e}); expected a \
                         file holding the broadcast server's API token",
                        file.display()
                    ),
                ));
                return None;
            }
        };
        if token.is_empty() || token.len() > 1000 || !token.chars().all(|c| c.is_ascii_graphic()) {
            ok = false;
            self.note(self.err(
                p.token_file.span(),
                format!(
                    "broadcast.push.token_file {} does not hold a token; expected 1 to \
                     1000 printable ASCII characters without spaces",
                    file.display()
                ),
            ));
        }
        let interval_ms = match &p.interval {
            Some(i) => delay(i, "broadcast.push.interval"),
            None => Some(10_000),
        };
        match interval_ms {
            Some(ms) if !(100..=3_600_000).contains(&ms) => {
                ok = false;
                self.note(self.err(
                    p.interval.as_ref().map_or(span, |i| i.span()),
                    "broadcast.push.interval is out of range; expected 100ms to 1h",
                ));
            }
            Some(_) => {}
            None => ok = false,
        }
        ok.then(|| PushConfig {
            url: url.to_owned(),
            token,
            token_file: file,
            interval_ms: interval_ms.unwrap_or(10_000),
        })
    }

    fn in_range(
        &self,
        v: &Spanned<i64>,
        key: &str,
        lo: i64,
        hi: i64,
        unit: &str,
    ) -> Result<u64, ConfigError> {
        let x = *v.get_ref();
        if x < lo || x > hi {
            return Err(self.err(
                v.span(),
                format!("{key} = {x} is out of range; expected {lo} to {hi}{unit}"),
            ));
        }
        Ok(x as u64)
    }

    fn opt_range(
        &self,
        v: &Option<Spanned<i64>>,
        key: &str,
        lo: i64,
        hi: i64,
    ) -> Result<Option<u64>, ConfigError> {
        v.as_ref()
            .map(|v| self.in_range(v, key, lo, hi, " ms"))
            .transpose()
    }

    /// A time control in the PGN form; `key` names it in messages.
    fn time_control(&self, s: &Spanned<String>, key: &str) -> Result<TimeControl, ConfigError> {
        let text = s.get_ref();
        let tc: TimeControl = text
            .parse()
            .map_err(|e| self.err(s.span(), format!("{key} {e}")))?;
        tc.check_bounds().map_err(|e| {
            self.err(
                s.span(),
                format!("{key} {text:?} is not a sane time control: {e}"),
            )
        })?;
        Ok(tc)
    }

    /// An unattended board runs its clock itself after a ruling (SetNRun with the times it
    /// computes), so the DGT3000's own count of presses no longer decides when a period's
    /// time comes (arbiter-rules.md section 5). Adding each period at the due move is not
    /// built yet: a control with periods on an unattended board is refused, never guessed.
    fn unattended_periods(
        &self,
        time_control: TimeControl,
        text: &Spanned<String>,
        raw: &[Spanned<RawBoard>],
        boards: &[BoardConfig],
    ) {
        let why = "the daemon sets an unattended board's clock itself after a ruling, so the \
                   clock's own count of moves would not add the periods";
        let event_wide: Vec<String> = boards
            .iter()
            .filter(|b| b.unattended && b.time_control.is_none())
            .map(|b| b.number.to_string())
            .collect();
        if !time_control.is_sudden_death_only() && !event_wide.is_empty() {
            self.note(self.err(
                text.span(),
                format!(
                    "event.time_control {time_control} has periods, and board(s) {} run \
                     unattended: {why}; expected unattended = false on those boards, or a \
                     BASE+INC control",
                    event_wide.join(", ")
                ),
            ));
        }
        for b in boards.iter().filter(|b| b.unattended) {
            let Some(own) = b.time_control.filter(|tc| !tc.is_sudden_death_only()) else {
                continue;
            };
            let span = raw
                .iter()
                .find(|r| i64::from(b.number) == *r.get_ref().number.get_ref())
                .and_then(|r| r.get_ref().time_control.as_ref())
                .map_or(text.span(), |t| t.span());
            self.note(self.err(
                span,
                format!(
                    "board {}: time_control {own} has periods, and the board runs \
                     unattended: {why}; expected unattended = false, or a BASE+INC control",
                    b.number
                ),
            ));
        }
    }

    /// Fills each board's players from round `round` of the TRF file `t` (relative to
    /// the config's folder). A board whose number has no game in the round (fewer pairs
    /// than boards, or a forfeit) stays without players.
    fn trf_players(
        &self,
        t: &Spanned<String>,
        round: u32,
        (time_control, tc_text): (TimeControl, &Spanned<String>),
        raw: &[Spanned<RawBoard>],
        boards: &mut [BoardConfig],
    ) -> Result<PathBuf, ConfigError> {
        let path = PathBuf::from(t.get_ref().trim());
        let path = if path.is_relative() {
            self.path.parent().unwrap_or(Path::new(".")).join(path)
        } else {
            path
        };
        let loaded = TrfRound::load(&path, round).map_err(|e| {
            let cause = match &e {
                crate::pairings::PairingsError::Read { source, .. } => format!(": {source}"),
                crate::pairings::PairingsError::Trf { .. } => String::new(),
            };
            self.err(
                t.span(),
                format!("event.trf: {e}{cause}; expected the pairing program's TRF-16 file with round {round} paired"),
            )
        })?;
        // A TRF's own control (line 122), where it is written in the PGN form, must be the
        // event's: two controls for one round would leave the category and penalties
        // (art. 7.5.5) to a guess. Words there (`90'/40 + 30'`) are the pairing
        // program's, not read.
        let trf_control = loaded.trf.time_control_text();
        if let Some(Ok(trf_tc)) = trf_control.map(str::parse::<TimeControl>) {
            if trf_tc != time_control {
                return Err(self.err(
                    tc_text.span(),
                    format!(
                        "event.time_control {time_control} is not the control of event.trf \
                         (its line 122 says {trf_tc}); expected the same control in both"
                    ),
                ));
            }
        }
        for r in raw {
            let r = r.get_ref();
            if let Some(name) = r.white.as_ref().or(r.black.as_ref()) {
                return Err(self.err(
                    name.span(),
                    "white/black are set here and the players also come from event.trf; \
                     expected one of them (remove white and black from the boards)",
                ));
            }
        }
        for b in boards.iter_mut() {
            if let Some(p) = loaded.board(b.number) {
                b.white = Some(p.white.name.clone());
                b.black = Some(p.black.name.clone());
                b.pairing = Some(p);
            }
        }
        Ok(path)
    }

    /// `[[board]] source = "livechess://..."`, alone (no port, no serial).
    fn livechess_source(&self, number: i64, b: &RawBoard, usable: &mut bool) -> BoardPort {
        let Some(src) = &b.source else {
            return BoardPort::Path(PathBuf::new());
        };
        if let Some(other) = b.port.as_ref().or(b.serial.as_ref()) {
            *usable = false;
            self.note(self.err(
                other.span(),
                format!("board {number} has a source and a port or serial; expected one of them"),
            ));
        }
        match src.get_ref().parse::<livechess_api::follow::SourceUrl>() {
            Ok(url) => BoardPort::LiveChess(url),
            Err(e) => {
                *usable = false;
                self.note(self.err(
                    src.span(),
                    format!(
                        "board {number}: source {:?}: {e}; expected \
                         \"livechess://HOST:1982/SERIALNR\" (an e-board of a running LiveChess)",
                        src.get_ref()
                    ),
                ));
                BoardPort::Path(PathBuf::new())
            }
        }
    }

    /// The boards, and a message for each configured port that does not exist now.
    /// `[event] variant`, `start_position`, `start_fen` (arbiter-rules.md section 6).
    fn event_start(&self, e: &RawEvent) -> GameStart {
        let chess960 = match &e.variant {
            None => false,
            Some(v) => match v.get_ref().as_str() {
                "standard" => false,
                "chess960" => true,
                other => {
                    self.note(self.err(
                        v.span(),
                        format!(
                            "event.variant {other:?} is not a variant; expected \"standard\" \
                             or \"chess960\""
                        ),
                    ));
                    false
                }
            },
        };
        self.start(&e.start_position, &e.start_fen, "event.", chess960)
            .unwrap_or(if chess960 {
                GameStart::Chess960FromBoard
            } else {
                GameStart::Standard
            })
    }

    /// A Chess960 start from `start_position` or `start_fen` (`prefix` names the section
    /// in messages: `event.` or `board 3: `); `None` when neither is given (or one is
    /// wrong, noted). Either needs a Chess960 event.
    fn start(
        &self,
        number: &Option<Spanned<i64>>,
        fen: &Option<Spanned<String>>,
        prefix: &str,
        chess960: bool,
    ) -> Option<GameStart> {
        if let (Some(_), Some(f)) = (number, fen) {
            self.note(self.err(
                f.span(),
                format!(
                    "{prefix}start_position and start_fen are both given; expected one of them"
                ),
            ));
            return None;
        }
        let span = number
            .as_ref()
            .map(Spanned::span)
            .or_else(|| fen.as_ref().map(Spanned::span))?;
        if !chess960 {
            self.note(self.err(
                span,
                format!(
                    "{prefix}a start position is for Chess960 games; expected [event] variant \
                     = \"chess960\" with it (a standard game starts from the standard \
                     position)"
                ),
            ));
            return None;
        }
        if let Some(n) = number {
            let found = u16::try_from(*n.get_ref())
                .ok()
                .and_then(|k| chess_rules::Position::start_960(k).ok());
            if found.is_none() {
                self.note(self.err(
                    n.span(),
                    format!(
                        "{prefix}start_position {} is not a Chess960 position; expected 0 to \
                         959 (518 is the standard set-up)",
                        n.get_ref()
                    ),
                ));
            }
            return found.map(GameStart::Chess960);
        }
        let f = fen.as_ref()?;
        match chess_rules::Position::from_fen_960(f.get_ref()) {
            Ok(p) => Some(GameStart::Chess960(p)),
            Err(e) => {
                self.note(self.err(
                    f.span(),
                    format!(
                        "{prefix}start_fen is not a Chess960 position: {e}; expected an X-FEN \
                         or Shredder-FEN (such as \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR \
                         w HFhf - 0 1\")"
                    ),
                ));
                None
            }
        }
    }

    fn boards(&self, raw: &[Spanned<RawBoard>], chess960: bool) -> (Vec<BoardConfig>, Vec<String>) {
        if raw.is_empty() {
            self.note(invalid(
                self.path,
                self.text,
                self.text.len(),
                "no [[board]] is configured; expected at least one board with its number and \
                 port (or serial)"
                    .into(),
            ));
            return (Vec::new(), Vec::new());
        }
        let mut out: Vec<BoardConfig> = Vec::with_capacity(raw.len());
        let mut missing = Vec::new();
        // (board, the port as its canonical path) of the boards so far.
        let mut devices: Vec<(i64, PathBuf)> = Vec::with_capacity(raw.len());
        for b in raw {
            let span = b.span();
            let b = b.get_ref();
            // A board whose number is a mistake is left out; its other keys are checked
            // under its number as written.
            let number = self.keep(self.in_range(&b.number, "board.number", 1, 9999, ""));
            let mut usable = number.is_some();
            let number = number.map_or_else(|| *b.number.get_ref(), |n| n as i64);
            if usable && out.iter().any(|o| i64::from(o.number) == number) {
                usable = false;
                self.note(self.err(
                    b.number.span(),
                    format!("board number {number} is used twice; expected each board to have its own number"),
                ));
            }
            let port = match (&b.port, &b.serial) {
                _ if b.source.is_some() => self.livechess_source(number, b, &mut usable),
                (Some(p), None) => {
                    let path = PathBuf::from(p.get_ref());
                    // Not an error: udev removes a board's link while its cable is out,
                    // and a daemon restarted then must still come up (the driver keeps
                    // trying to open the port). `run --check` warns about it, to catch typos.
                    if !path.exists() {
                        missing.push(
                            self.err(
                                p.span(),
                                format!(
                                    "board {number}: port {:?} does not exist; expected the \
                                     board's device (such as /dev/dgt/board-{number} or \
                                     /dev/ttyACM0; `dgt-arbiter probe` lists them), or give \
                                     its serial = \"...\"",
                                    p.get_ref()
                                ),
                            )
                            .to_string(),
                        );
                    }
                    // Two boards on one device (the same path twice, or a link and its
                    // target) would read each other's bytes.
                    let device = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                    if let Some((other, _)) = devices.iter().find(|(_, d)| *d == device) {
                        usable = false;
                        self.note(self.err(
                            p.span(),
                            format!(
                                "board {number}: port {:?} is the device of board {other} \
                                 ({}); expected each board on its own port",
                                p.get_ref(),
                                device.display()
                            ),
                        ));
                    } else {
                        devices.push((number, device));
                    }
                    BoardPort::Path(path)
                }
                (None, Some(s)) => {
                    let serial = s.get_ref();
                    if serial.is_empty()
                        || serial.len() > 16
                        || !serial.chars().all(|c| c.is_ascii_alphanumeric())
                    {
                        usable = false;
                        self.note(self.err(
                            s.span(),
                            format!(
                                "board {number}: serial {serial:?} is not a DGT serial number; \
                                 expected 1 to 16 letters or digits, such as \"01025\" \
                                 (`dgt-arbiter probe` shows it)"
                            ),
                        ));
                    }
                    BoardPort::Serial(serial.clone())
                }
                (Some(p), Some(_)) => {
                    usable = false;
                    self.note(self.err(
                        p.span(),
                        format!("board {number} has both port and serial; expected one of them"),
                    ));
                    BoardPort::Path(PathBuf::new())
                }
                (None, None) => {
                    usable = false;
                    self.note(self.err(
                        span,
                        format!(
                            "board {number} has neither port nor serial; expected port = \
                             \"/dev/...\" or serial = \"...\" (or source = \"livechess://...\")"
                        ),
                    ));
                    BoardPort::Path(PathBuf::new())
                }
            };
            let white_clock = match &b.white_clock {
                None => None,
                Some(w) => match w.get_ref().as_str() {
                    "left" => Some(ClockSide::Left),
                    "right" => Some(ClockSide::Right),
                    "infer" => None,
                    other => {
                        self.note(self.err(
                            w.span(),
                            format!(
                                "board {number}: white_clock {other:?} is unknown; expected \
                                 left, right or infer"
                            ),
                        ));
                        None
                    }
                },
            };
            let player = |p: &Option<Spanned<String>>, key: &str| -> Option<String> {
                match p {
                    None => None,
                    Some(s) => {
                        let name = s.get_ref().trim();
                        if name.is_empty() || name.chars().count() > 100 || name.contains('"') {
                            self.note(self.err(
                                s.span(),
                                format!(
                                    "board {number}: {key} {:?} is not a player's name; expected \
                                     \"Surname, First name\" (1 to 100 characters, no quotes), \
                                     or leave it out",
                                    s.get_ref()
                                ),
                            ));
                            return None;
                        }
                        Some(name.to_owned())
                    }
                }
            };
            let white = player(&b.white, "white");
            let black = player(&b.black, "black");
            if let (true, BoardPort::LiveChess(_), Some(src)) = (b.unattended, &port, &b.source) {
                usable = false;
                self.note(self.err(
                    src.span(),
                    format!(
                        "board {number}: unattended = true needs a DGT clock the daemon can \
                         command, and a board followed on LiveChess has none; expected \
                         unattended = false (or a port or serial) for it"
                    ),
                ));
            }
            let time_control = b.time_control.as_ref().and_then(|t| {
                self.keep(self.time_control(t, &format!("board {number}: time_control")))
            });
            let start = self.start(
                &b.start_position,
                &b.start_fen,
                &format!("board {number}: "),
                chess960,
            );
            if !usable {
                continue;
            }
            out.push(BoardConfig {
                number: number as u32,
                port,
                white,
                black,
                white_clock,
                unattended: b.unattended,
                pairing: None,
                broadcast: b.broadcast.unwrap_or(true),
                time_control,
                start,
            });
        }
        out.sort_by_key(|b| b.number);
        (out, missing)
    }
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

#[cfg(test)]
mod tests;
