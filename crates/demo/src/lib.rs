//! `dgt-arbiter demo`: the daemon's main job on a machine with nothing but this
//! repository. Eight emulated DGT boards with clocks are served on pseudo-terminals (the
//! `dgt-sim` hub), each playing a real 19th-century game embedded in the binary
//! (`games.pgn`, public domain) with a player's hands (the seeded hand-motion generator)
//! and a deterministic set of irregularities spread over the boards: illegal moves of
//! several categories, a clock press without a move, touch-move violations, a two-handed
//! castling, a flag fall, a player's second illegal move. A config naming the ptys is
//! written to a temporary folder and loaded like any other; the same [`Daemon`] as `run`
//! opens the ptys through the real driver. Each ruling is printed as one readable line;
//! PGN, the LiveChess folder and the events go to the folder; the HTTP endpoints are
//! served. When every game is over (or its script has run out) it prints a summary and
//! keeps serving the dashboard, with the results, until Ctrl-C (or ends at once with
//! [`DemoOptions::exit_when_done`]).

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chess_rules::{read_pgn, Color, GameResult, PgnGame, Piece, Role, Square};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::Orientation;
use dgt_sim::hands::{
    chess960_game, generate, Expected, GameInput, HandOptions, IllegalKind, Irregularity, Script,
};
use dgt_sim::{Action, Emulator, EmulatorConfig, ServeOptions, TimedAction};
use messages::{Args, Language, Messages};
use tokio::sync::broadcast::error::RecvError;

use arbiter_daemon::daemon::{Daemon, DaemonError, RunOptions};
use arbiter_hub::Hub;
use daemon_config::{Config, ConfigError};
use game_record::words;

/// The embedded games (public domain, checked legal).
pub const GAMES: &str = include_str!("games.pgn");

/// The demo's time control: fast enough that a flag can fall within a watchable game.
pub const TIME_CONTROL: TimeControl = TimeControl::sudden_death(60, 1);

/// What the demo does.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Virtual time runs this many times faster than real time (1: a game in two to
    /// four minutes).
    pub speed: f64,
    /// How many boards (1 to 8).
    pub boards: usize,
    /// Where outputs go (default: a new folder under the system's temp dir).
    pub dir: Option<PathBuf>,
    /// Seed of the hand motions.
    pub seed: u64,
    /// The HTTP endpoint (default 127.0.0.1:8080, or any free port if that is taken).
    pub http: Option<SocketAddr>,
    /// Think-time scale of the players (smaller: faster games).
    pub think_scale: f64,
    /// End when the games are over (by default the dashboard is served on until `stop`).
    pub exit_when_done: bool,
    /// Serve the LiveChess API (`[livechess_api]`) on 127.0.0.1:1982, or a free port if
    /// that is taken.
    pub livechess_api: bool,
    /// The language the rulings are printed (and logged) in.
    pub language: Language,
    /// Chess960 games (`--variant chess960`): each board its own start position, both
    /// players castling at once (arbiter-rules.md section 6).
    pub chess960: bool,
}

impl Default for DemoOptions {
    fn default() -> DemoOptions {
        DemoOptions {
            speed: 1.0,
            boards: 8,
            dir: None,
            seed: 1,
            http: None,
            think_scale: 0.02,
            exit_when_done: false,
            livechess_api: false,
            language: Language::En,
            chess960: false,
        }
    }
}

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("bad demo options: {0}")]
    Options(String),
    #[error("the embedded games: {0}")]
    Games(String),
    #[error("cannot create the demo folder {path}: {source}")]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot serve the emulated boards on ptys: {0}")]
    Serve(#[source] std::io::Error),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Daemon(#[from] DaemonError),
    #[error("cannot print: {0}")]
    Print(#[source] std::io::Error),
}

/// The irregularities of board `i` (0-based), and whether a second illegal move may end
/// the game.
pub fn irregularities(i: usize) -> (Vec<Irregularity>, bool) {
    use IllegalKind::*;
    use Irregularity::*;
    match i % 8 {
        0 => (vec![Illegal(PinnedPiece)], false),
        1 => (vec![ClockWithoutMove], false),
        2 => (vec![TouchOtherPiece, Illegal(KnightWrong)], false),
        3 => (vec![FlagFall], false),
        4 => (vec![Illegal(WrongColor), Illegal(BishopOffDiagonal)], true),
        5 => (vec![Illegal(SliderJumping), Illegal(KingIntoCheck)], false),
        6 => (vec![TwoHandedCastling, Illegal(MultipleMoves)], false),
        _ => (
            vec![Illegal(PieceAdded), Illegal(PawnCapturingStraight)],
            false,
        ),
    }
}

/// "Adolf Anderssen" -> "Anderssen, Adolf", "Curt von Bardeleben" -> "von Bardeleben,
/// Curt" (PGN's order); other forms as they are.
fn surname_first(name: &str) -> String {
    let name = name.trim().replace('"', "'");
    if name.contains(',') || name.contains('/') {
        return name;
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    let Some(mut split) = words.len().checked_sub(1).filter(|n| *n > 0) else {
        return name;
    };
    // Particles (von, van, de) belong to the surname.
    while split > 1 && words[split - 1].starts_with(|c: char| c.is_lowercase()) {
        split -= 1;
    }
    format!("{}, {}", words[split..].join(" "), words[..split].join(" "))
}

/// The game was resigned in the source (it does not end on the board by the rules, the
/// flag or a second illegal move): the players show the result with the DGT convention,
/// both kings on the centre squares (both light: 1-0, both dark: 0-1, one of each: a
/// draw), after clearing those squares. `None` when the script ends the game itself.
fn result_by_kings(pgn: &PgnGame, script: &Script) -> Option<Vec<TimedAction>> {
    if matches!(
        script.expected.last().map(|e| &e.event),
        Some(Expected::GameOver { .. })
    ) {
        return None;
    }
    let result: GameResult = pgn.tag("Result")?.parse().ok()?;
    let sq = |s: &str| s.parse::<Square>().ok();
    let (white_to, black_to) = match result {
        GameResult::WhiteWins => (sq("d5")?, sq("e4")?),
        GameResult::BlackWins => (sq("d4")?, sq("e5")?),
        GameResult::Draw => (sq("d5")?, sq("d4")?),
        GameResult::Ongoing => return None,
    };
    let board = script.final_position;
    let mut at = script.end_ms + 2000;
    let mut out = Vec::new();
    let mut act = |action| {
        out.push(TimedAction { at_ms: at, action });
        at += 600;
    };
    for target in [white_to, black_to] {
        if board.piece_at(target).is_some_and(|p| p.role != Role::King) {
            act(Action::Lift(target));
        }
    }
    for (color, to) in [(Color::White, white_to), (Color::Black, black_to)] {
        let from = board.king(color);
        if from != to {
            act(Action::Lift(from));
            act(Action::Place(to, Piece::new(color, Role::King)));
        }
    }
    Some(out)
}

/// One emulated board of the demo.
pub struct DemoBoard {
    pub number: u32,
    pub white: String,
    pub black: String,
    pub script: Script,
    /// When its last action (the game's, or the result shown with the kings) is done.
    pub end_ms: u64,
    pub pty: PathBuf,
    handle: dgt_sim::BoardHandle,
}

/// The games, scripted for `opts`.
pub fn scripts(opts: &DemoOptions) -> Result<Vec<(PgnGame, Script)>, DemoError> {
    let games = read_pgn(GAMES.as_bytes()).map_err(|e| DemoError::Games(e.to_string()))?;
    if games.is_empty() {
        return Err(DemoError::Games("no game".into()));
    }
    (0..opts.boards)
        .map(|i| {
            let mut pgn = games[i % games.len()].clone();
            let game = if opts.chess960 {
                // The standard game's players play a 960 game of their own; its result is
                // what the board shows, not the PGN's.
                let from = (opts.seed.wrapping_mul(97).wrapping_add(i as u64 * 131) % 960) as u16;
                let (_, game) = chess960_game(from, 40, opts.seed.wrapping_add(i as u64))
                    .ok_or_else(|| DemoError::Games("no Chess960 start to play".into()))?;
                pgn.result = None;
                pgn.tags.retain(|(k, _)| k == "White" || k == "Black");
                game
            } else {
                GameInput::from_pgn(&pgn).map_err(|e| DemoError::Games(e.to_string()))?
            };
            let (irregularities, allow_second_illegal) = irregularities(i);
            let hands = HandOptions {
                seed: opts.seed.wrapping_add(i as u64),
                time_control: TIME_CONTROL,
                think_scale: opts.think_scale,
                // Time for the daemon to open the board before the clock starts.
                start_delay_ms: (3000.0 * opts.speed.max(1.0)) as u64,
                irregularities,
                allow_second_illegal,
                ..HandOptions::default()
            };
            let script = generate(&game, &hands)
                .map_err(|e| DemoError::Games(format!("game {} cannot be scripted: {e}", i + 1)))?;
            Ok((pgn, script))
        })
        .collect()
}

/// The config text for the demo's boards.
pub fn config_text(boards: &[DemoBoard], speed: f64, http: SocketAddr) -> String {
    let scaled = |ms: f64| ((ms / speed).round() as u64).max(1);
    let mut s = format!(
        "# Generated by `dgt-arbiter demo`: {n} emulated boards on ptys.\n\
         [event]\n\
         name = \"dgt-arbiter demo\"\n\
         site = \"Emulated hall\"\n\
         round = 1\n\
         time_control = \"{TIME_CONTROL}\"\n\
         supervision = \"full\"\n\n\
         [output]\n\
         # The folder of this file.\n\
         dir = \".\"\n\n\
         [http]\n\
         bind = \"{http}\"\n\
         # Anyone on this machine may watch the dashboard; acting needs the token.\n\
         public_dashboard = true\n\n\
         # The games run at {speed}x: the settle window is scaled to it; the two-handed\n\
         # window (art. 7.5.4) and its evidence are in game time.\n\
         [timing]\n\
         settle_window_ms = {settle}\n\
         two_handed_window_ms = 250\n\
         time_scale = {speed:?}\n",
        n = boards.len(),
        settle = scaled(400.0).max(10),
    );
    // Chess960: the event says so, each board its own start (arbiter-rules.md section 6).
    let starts: Vec<Option<u16>> = boards
        .iter()
        .map(|b| {
            (b.script.start.variant() == chess_rules::Variant::Chess960)
                .then(|| b.script.start.chess960_number())
                .flatten()
        })
        .collect();
    if starts.iter().any(Option::is_some) {
        s = s.replacen(
            "supervision = \"full\"\n",
            "supervision = \"full\"\nvariant = \"chess960\"\n",
            1,
        );
    }
    for (b, start) in boards.iter().zip(starts) {
        s.push_str(&format!(
            "\n[[board]]\nnumber = {}\nport = \"{}\"\nwhite = \"{}\"\nblack = \"{}\"\nwhite_clock = \"left\"\n",
            b.number,
            b.pty.display(),
            b.white,
            b.black
        ));
        if let Some(n) = start {
            s.push_str(&format!("start_position = {n}\n"));
        }
    }
    s
}

/// The serial number of demo board `i` (0-based): five digits, one per board.
pub fn demo_serial(i: usize) -> String {
    format!("{:05}", 10_001 + i)
}

fn free_http(requested: Option<SocketAddr>) -> SocketAddr {
    if let Some(a) = requested {
        return a;
    }
    let preferred = SocketAddr::from(([127, 0, 0, 1], 8080));
    match std::net::TcpListener::bind(preferred) {
        Ok(l) => {
            drop(l);
            preferred
        }
        Err(_) => SocketAddr::from(([127, 0, 0, 1], 0)),
    }
}

fn default_dir() -> PathBuf {
    std::env::temp_dir().join(format!(
        "dgt-arbiter-demo-{}-{}",
        wall_clock::unix_ms_now() / 1000,
        std::process::id()
    ))
}

/// How the demo ended, per board.
#[derive(Debug, Clone)]
pub struct DemoResult {
    pub number: u32,
    pub white: String,
    pub black: String,
    pub result: String,
    pub termination: Option<String>,
    pub plies: usize,
    pub rulings: usize,
}

/// Runs the demo, printing to `out`; ends when the games are over or `stop` resolves.
pub async fn run(
    opts: DemoOptions,
    out: &mut (dyn Write + Send),
    stop: impl std::future::Future<Output = ()>,
) -> Result<Vec<DemoResult>, DemoError> {
    check_options(&opts)?;
    let dir = opts.dir.clone().unwrap_or_else(default_dir);
    std::fs::create_dir_all(&dir).map_err(|source| DemoError::Folder {
        path: dir.clone(),
        source,
    })?;
    let scripted = scripts(&opts)?;
    let mut sim = dgt_sim::Hub::new().map_err(DemoError::Serve)?;
    let boards = serve_boards(&mut sim, scripted, opts.speed)?;
    let http = free_http(opts.http);
    let config_path = dir.join("demo.toml");
    let text = demo_config(&boards, &opts, http);
    std::fs::write(&config_path, &text).map_err(|source| DemoError::Folder {
        path: config_path.clone(),
        source,
    })?;
    let mut config = Config::load(&config_path)?;
    // The file stays the hall's plain example; the language is the command line's.
    config.event.language = opts.language;
    let say = Messages::new(opts.language);
    // The config's `dir = "."` is this folder: the outputs go to the folder given.
    let out_dir = dir.clone();
    let daemon = Daemon::start(config, RunOptions::default()).await?;

    print_banner(
        out,
        say,
        &boards,
        &daemon,
        opts.speed,
        (&config_path, &out_dir),
    )?;
    print_line(out, say.text("demo-rulings"))?;

    let hub = Arc::clone(daemon.hub());
    let mut rx = hub.subscribe();
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    tokio::pin!(stop);
    let mut grace: Option<tokio::time::Instant> = None;
    let mut done = false;
    let mut results = Vec::new();
    loop {
        tokio::select! {
            _ = &mut stop => {
                if !done {
                    print_line(out, say.text("demo-interrupted"))?;
                }
                break;
            }
            e = rx.recv() => match e {
                Ok(e) if !e.replayed => {
                    if let Some(line) = words::ruling_in(say, &e.event) {
                        print_line(out, format!("  {line}"))?;
                    }
                    if let Some(b) = boards.iter().find(|b| b.number == e.board) {
                        arbiter_sets_the_clock(b, &e.event);
                    }
                }
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            },
            _ = tick.tick(), if !done => {
                let scripts_done = boards
                    .iter()
                    .all(|b| b.handle.script_left() == 0 && b.handle.now_ms() >= b.end_ms);
                if scripts_done && !hub.all_over() {
                    // Let the last presses be ruled on.
                    grace.get_or_insert_with(|| tokio::time::Instant::now() + Duration::from_secs(3));
                }
                if hub.all_over() || grace.is_some_and(|at| tokio::time::Instant::now() >= at) {
                    // Print what is still queued (the last game's end).
                    while let Ok(e) = rx.try_recv() {
                        if let Some(line) = words::ruling_in(say, &e.event).filter(|_| !e.replayed) {
                            print_line(out, format!("  {line}"))?;
                        }
                    }
                    done = true;
                    results = summary(&hub, &boards, say);
                    print_summary(out, say, &results, &out_dir)?;
                    if opts.exit_when_done {
                        break;
                    }
                    // The boards stay on and the dashboard keeps showing the results.
                    if let Some(a) = daemon.http_addr() {
                        print_line(out, say.format("demo-over", &Args::new().str("addr", a.to_string())))?;
                    }
                }
            }
        }
    }
    if !done {
        results = summary(&hub, &boards, say);
        print_summary(out, say, &results, &out_dir)?;
    }
    daemon.shutdown().await;
    drop(sim);
    Ok(results)
}

/// Prints one line for the person at the terminal, at once.
fn print_line(out: &mut (dyn Write + Send), s: String) -> Result<(), DemoError> {
    writeln!(out, "{s}")
        .and_then(|()| out.flush())
        .map_err(DemoError::Print)
}

/// Refuses options the demo cannot run with, naming the option.
fn check_options(opts: &DemoOptions) -> Result<(), DemoError> {
    if !(opts.speed.is_finite() && opts.speed > 0.0 && opts.speed <= 100.0) {
        return Err(DemoError::Options(format!(
            "--speed must be more than 0 and at most 100, not {}",
            opts.speed
        )));
    }
    if !(1..=8).contains(&opts.boards) {
        return Err(DemoError::Options(format!(
            "--boards must be 1 to 8, not {}",
            opts.boards
        )));
    }
    Ok(())
}

/// Serves each scripted game on an emulated board behind a pty of its own.
fn serve_boards(
    sim: &mut dgt_sim::Hub,
    scripted: Vec<(PgnGame, Script)>,
    speed: f64,
) -> Result<Vec<DemoBoard>, DemoError> {
    let mut boards = Vec::new();
    for (i, (pgn, script)) in scripted.into_iter().enumerate() {
        let emu = Emulator::new(EmulatorConfig {
            // One board lies turned round, as boards sometimes do; the daemon notices.
            orientation: if i == 5 {
                Orientation::Rotated
            } else {
                Orientation::Normal
            },
            // Each board its own serial number (and bus address), as real boards have.
            serial: demo_serial(i),
            long_serial: format!("3.25A{}", demo_serial(i)),
            ..script.emulator_config()
        });
        let mut actions = script.actions.clone();
        actions.extend(result_by_kings(&pgn, &script).unwrap_or_default());
        let end_ms = actions
            .last()
            .map_or(script.end_ms, |a| a.at_ms.max(script.end_ms));
        let handle = sim
            .serve_pty(
                emu,
                ServeOptions {
                    script: actions,
                    speed,
                    ..ServeOptions::default()
                },
            )
            .map_err(DemoError::Serve)?;
        let pty = handle
            .pty_path()
            .ok_or_else(|| DemoError::Serve(std::io::Error::other("no pty")))?;
        boards.push(DemoBoard {
            end_ms,
            number: i as u32 + 1,
            white: surname_first(pgn.tag("White").unwrap_or("?")),
            black: surname_first(pgn.tag("Black").unwrap_or("?")),
            script,
            pty,
            handle,
        });
    }
    Ok(boards)
}

/// The demo's config file: the boards, and the LiveChess API when asked for (on its usual
/// port 1982 when free).
fn demo_config(boards: &[DemoBoard], opts: &DemoOptions, http: SocketAddr) -> String {
    let mut text = config_text(boards, opts.speed, http);
    if opts.livechess_api {
        let preferred = SocketAddr::from(([127, 0, 0, 1], 1982));
        let bind = match std::net::TcpListener::bind(preferred) {
            Ok(_) => preferred,
            Err(_) => SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        text.push_str(&format!(
            "\n# The DGT LiveChess local API (lichess /dgt, the livechess CLI).\n\
         [livechess_api]\nbind = \"{bind}\"\n"
        ));
    }
    text
}

/// What the demo runs and where to look: the config, the outputs, the addresses, and each
/// board with the irregularities its game carries, in the demo's language.
fn print_banner(
    out: &mut (dyn Write + Send),
    say: Messages,
    boards: &[DemoBoard],
    daemon: &Daemon,
    speed: f64,
    paths: (&Path, &Path),
) -> Result<(), DemoError> {
    let (config_path, out_dir) = paths;
    let banner = Args::new()
        .num("boards", boards.len() as u64)
        .str("tc", TIME_CONTROL.to_string())
        .str("speed", speed.to_string());
    print_line(out, say.format("demo-banner", &banner))?;
    let path = |p: &Path| Args::new().str("path", p.display().to_string());
    print_line(
        out,
        format!("  {}", say.format("demo-config", &path(config_path))),
    )?;
    print_line(
        out,
        format!("  {}", say.format("demo-outputs", &path(out_dir))),
    )?;
    if let Some(a) = daemon.http_addr() {
        print_line(
            out,
            format!(
                "  HTTP:    http://{a}/round.pgn  /boards  /events  /livechess/tournament.json"
            ),
        )?;
        let token = out_dir.join("arbiter-token").display().to_string();
        let args = Args::new().str("addr", a.to_string()).str("token", token);
        print_line(out, format!("  {}", say.format("demo-dashboard", &args)))?;
    }
    if let Some(a) = daemon.livechess_api_addr() {
        print_line(
            out,
            format!("  LiveChess API: ws://{a}/api/v1.0 and http://{a}/api/v1.0/tournaments"),
        )?;
    }
    for b in boards {
        let what: Vec<String> = b
            .script
            .injected
            .iter()
            .map(|i| {
                let args = Args::new()
                    .str("what", i.irregularity.to_string())
                    .num("ply", u64::from(i.ply));
                say.format("demo-irregularity", &args)
            })
            .collect();
        let args = Args::new()
            .num("board", u64::from(b.number))
            .str("white", b.white.as_str())
            .str("black", b.black.as_str())
            .str("pty", b.pty.display().to_string());
        let mut line = format!("  {}", say.format("demo-board", &args));
        if !what.is_empty() {
            let list = Args::new().str("list", what.join(", "));
            line.push_str(&say.format("demo-irregularities", &list));
        }
        print_line(out, line)?;
        for s in &b.script.skipped {
            let args = Args::new()
                .str("what", s.irregularity.to_string())
                .str("why", s.reason.as_str());
            print_line(out, format!("    {}", say.format("demo-skipped", &args)))?;
        }
    }
    Ok(())
}

/// The emulated arbiter does what a ruling says to the clock (the penalty added, an
/// illegal press's increment taken back), so the clock, and the PGN's `[%clk]` read
/// from it, show the times the ruling names.
fn arbiter_sets_the_clock(board: &DemoBoard, event: &touch_tracker::ArbiterEvent) {
    let touch_tracker::EventKind::IllegalMove(i) = &event.kind else {
        return;
    };
    let (Some(_), Some(before), Some(after)) = (i.penalty, i.clock_before, i.clock_after) else {
        return;
    };
    for color in [Color::White, Color::Black] {
        let delta_ms = after.get(color) as i64 - before.get(color) as i64;
        if delta_ms != 0 {
            board.handle.apply(Action::AdjustTime { color, delta_ms });
        }
    }
}

/// The summary: each board's result, then where the files are, in the demo's language.
fn print_summary(
    out: &mut (dyn Write + Send),
    say: Messages,
    results: &[DemoResult],
    out_dir: &Path,
) -> Result<(), DemoError> {
    print_line(out, say.text("demo-summary"))?;
    for r in results {
        let termination = r
            .termination
            .as_deref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        let args = Args::new()
            .num("board", u64::from(r.number))
            .str("white", r.white.as_str())
            .str("black", r.black.as_str())
            .str("result", r.result.to_string())
            .str("termination", termination)
            .num("plies", r.plies as u64)
            .num("rulings", r.rulings as u64);
        print_line(
            out,
            format!("  {}", say.format("demo-summary-board", &args)),
        )?;
    }
    let paths = daemon_config::paths::Paths::new(out_dir);
    let dir = Args::new().str("dir", out_dir.display().to_string());
    print_line(out, say.format("demo-files", &dir))?;
    let files = [
        (paths.round_pgn(1).display().to_string(), "demo-file-round"),
        (
            format!("{}/", paths.livechess().display()),
            "demo-file-livechess",
        ),
        (paths.events().display().to_string(), "demo-file-events"),
        (
            dir_of(&paths.journal(1, 1)).display().to_string(),
            "demo-file-journals",
        ),
    ];
    for (path, what) in files {
        print_line(out, format!("  {path}  {}", say.text(what)))?;
    }
    Ok(())
}

fn dir_of(p: &Path) -> PathBuf {
    p.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn summary(hub: &Hub, boards: &[DemoBoard], say: Messages) -> Vec<DemoResult> {
    let views = hub.boards();
    let mut rulings = std::collections::BTreeMap::<u32, usize>::new();
    for e in hub.events_since(0) {
        if words::is_ruling(&e.event) {
            *rulings.entry(e.board).or_default() += 1;
        }
    }
    boards
        .iter()
        .map(|b| {
            let view = views.iter().find(|v| v.number == b.number);
            let game = view.map(|v| v.games.current());
            DemoResult {
                number: b.number,
                white: b.white.clone(),
                black: b.black.clone(),
                result: game
                    .map_or("*", |g| g.result_or_ongoing().as_str())
                    .to_owned(),
                termination: game.and_then(|g| {
                    g.reason
                        .map(|r| words::end_reason_in(say, r))
                        .or_else(|| g.unfinished.as_ref().map(|_| say.text("demo-unfinished")))
                }),
                plies: game.map_or(0, |g| g.moves.len()),
                rulings: rulings.get(&b.number).copied().unwrap_or(0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_game_scripts_with_its_irregularities() {
        let opts = DemoOptions::default();
        let scripted = scripts(&opts).unwrap();
        assert_eq!(scripted.len(), 8);
        let mut injected = Vec::new();
        let mut shown = 0;
        for (i, (pgn, s)) in scripted.iter().enumerate() {
            // A resigned game ends with the kings in the centre, on squares of the result's
            // colours; the others end on the board by themselves.
            if let Some(kings) = result_by_kings(pgn, s) {
                shown += 1;
                let mut emu = Emulator::new(s.emulator_config());
                for a in s.actions.iter().chain(&kings) {
                    emu.apply_at(a.at_ms, &a.action);
                }
                let p = emu.placement();
                let (w, b) = (p.king(Color::White).unwrap(), p.king(Color::Black).unwrap());
                let want = match pgn.tag("Result") {
                    Some("1-0") => (true, true),
                    Some("0-1") => (false, false),
                    _ => (true, false),
                };
                assert_eq!((w.is_light(), b.is_light()), want, "game {i}");
            }
            let wanted = irregularities(i).0;
            assert!(
                !s.injected.is_empty(),
                "game {i} ({:?}) got none of {wanted:?}",
                pgn.tag("White")
            );
            injected.extend(s.injected.iter().map(|x| x.irregularity));
            // Watchable: a game in a few minutes at speed 1.
            let minutes = s.end_ms as f64 / 60_000.0;
            assert!(minutes < 6.0, "game {i} lasts {minutes:.1} minutes");
        }
        assert!(shown >= 2, "the resigned games show their results");
        for must in [
            Irregularity::ClockWithoutMove,
            Irregularity::FlagFall,
            Irregularity::TouchOtherPiece,
        ] {
            assert!(injected.contains(&must), "{must} missing");
        }
        let illegal = injected
            .iter()
            .filter(|i| matches!(i, Irregularity::Illegal(_)))
            .count();
        assert!(illegal >= 4, "{injected:?}");
    }

    #[test]
    fn names_and_config() {
        assert_eq!(surname_first("Adolf Anderssen"), "Anderssen, Adolf");
        assert_eq!(
            surname_first("Duke Karl / Count Isouard"),
            "Duke Karl / Count Isouard"
        );
        let text = config_text(&[], 4.0, "127.0.0.1:0".parse().unwrap());
        assert!(text.contains("settle_window_ms = 100"), "{text}");
        assert!(text.contains("two_handed_window_ms = 250"), "{text}");
        assert!(text.contains("time_scale = 4.0"), "{text}");
    }
}
