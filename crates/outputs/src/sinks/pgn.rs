//! PGN per game and per round (formats.md §3): the Seven Tag Roster plus `Board`,
//! `TimeControl` and `Termination` (and, with a TRF, `Round "R.B"` and the players'
//! `Elo`, `Title`, `FideId`, `Team` tags), `{[%clk 0:03:12]}` after every move whose clock is
//! known, rulings as comments on the move they concern, the result. Files are rewritten
//! whole and atomically (temp file, rename) after every change of their board, and synced
//! at shutdown ([`RebuiltFiles`]: the journals rebuild them at every start).

use std::collections::BTreeMap;
use std::io;

use chess_rules::{PgnGame, PgnMove, START_FEN};

use super::{GamesSource, Sink};
use arbiter_hub::{GamesView, Hub};
use crash_safe::RebuiltFiles;
use daemon_config::pairings::PlayerInfo;
use daemon_config::paths::Paths;
use daemon_config::{BoardConfig, Config};
use game_record::games::GameRecord;

/// How the clock is written: `[%clk 0:03:12]` (chess-rules' export) or LiveChess's
/// `[%clk 00:03:12]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    Standard,
    /// As DGT LiveChess writes it: `ePGN` tag, `Round "R.N"`, two-digit hours.
    LiveChess {
        index: usize,
    },
}

/// `HH:MM:SS`, as LiveChess writes clocks.
pub fn livechess_clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// The PGN text of one game.
pub fn render(config: &Config, board: &BoardConfig, game: &GameRecord, flavour: Flavour) -> String {
    let mut pgn = PgnGame::default();
    let e = &config.event;
    pgn.set_tag("Event", e.name.as_str());
    pgn.set_tag("Site", e.site.as_str());
    pgn.set_tag("Date", e.date.as_str());
    pgn.set_tag(
        "Round",
        match flavour {
            // With the pairing program's TRF, "R.B": round and board number.
            Flavour::Standard => match &board.pairing {
                Some(_) => format!("{}.{}", e.round, board.number),
                None => e.round.to_string(),
            },
            Flavour::LiveChess { index } => format!("{}.{index}", e.round),
        },
    );
    pgn.set_tag("White", board.white.as_deref().unwrap_or("?"));
    pgn.set_tag("Black", board.black.as_deref().unwrap_or("?"));
    pgn.set_tag("Result", game.result_or_ongoing().as_str());
    if let Some(p) = &board.pairing {
        player_tags(&mut pgn, "White", &p.white);
        player_tags(&mut pgn, "Black", &p.black);
    }
    pgn.set_tag("Board", board.number.to_string());
    pgn.set_tag("TimeControl", config.board_time_control(board).to_string());
    if let Some(t) = game.termination() {
        pgn.set_tag("Termination", t);
    }
    if config.board_start(board).is_chess960() {
        // arbiter-rules.md section 6: a Chess960 game says so, with its start as X-FEN
        // (position 518 included: its castlings are written as the king taking its rook).
        pgn.set_tag("Variant", "Chess960");
        pgn.set_tag("SetUp", "1");
        pgn.set_tag("FEN", game.start_fen.as_str());
    } else if game.start_fen != START_FEN {
        pgn.set_tag("SetUp", "1");
        pgn.set_tag("FEN", game.start_fen.as_str());
    }
    pgn.comments = game.intro.clone();
    pgn.moves = game
        .moves
        .iter()
        .map(|m| {
            let mut out = PgnMove::new(m.san.clone());
            match flavour {
                Flavour::Standard => {
                    out.clock_ms = m.clock_ms;
                    out.comments = m.comments.clone();
                }
                Flavour::LiveChess { .. } => {
                    out.comments = m
                        .clock_ms
                        .map(|ms| format!("[%clk {}]", livechess_clock(ms)))
                        .into_iter()
                        .chain(m.comments.iter().cloned())
                        .collect();
                }
            }
            out
        })
        .collect();
    if let Some(why) = &game.unfinished {
        let note = messages::Messages::new(config.event.language).format(
            "pgn-unfinished",
            &messages::Args::new().str("why", why.as_str()),
        );
        match pgn.moves.last_mut() {
            Some(m) => m.comments.push(note),
            None => pgn.comments.push(note),
        }
    }
    pgn.result = Some(game.result_or_ongoing());
    let text = pgn.to_pgn();
    match flavour {
        Flavour::Standard => text,
        Flavour::LiveChess { .. } => format!(
            "[ePGN \"0.1;dgt-arbiter/{}\"]\n{text}",
            env!("CARGO_PKG_VERSION")
        ),
    }
}

/// `WhiteElo`, `WhiteTitle`, `WhiteFideId`, `WhiteTeam` (and Black's) from the TRF, the
/// ones the file has.
fn player_tags(pgn: &mut PgnGame, side: &str, p: &PlayerInfo) {
    if let Some(elo) = p.rating {
        pgn.set_tag(&format!("{side}Elo"), elo.to_string());
    }
    if let Some(title) = &p.title {
        pgn.set_tag(&format!("{side}Title"), title.as_str());
    }
    if let Some(id) = p.fide_id {
        pgn.set_tag(&format!("{side}FideId"), id.to_string());
    }
    if let Some(team) = &p.team {
        pgn.set_tag(&format!("{side}Team"), team.as_str());
    }
}

/// Every game of the round in board order, separated by blank lines.
pub fn render_round(config: &Config, boards: &[GamesView]) -> String {
    let mut out = String::new();
    for view in boards {
        let Some(board) = config.board(view.number) else {
            continue;
        };
        for game in view.games.games.iter().filter(|g| in_round(g)) {
            push_game(&mut out, &render(config, board, game, Flavour::Standard));
        }
    }
    out
}

/// Whether the round's file shows a game: a board's first game even before its first
/// move (it shows the pairing); a later game only once it has one.
fn in_round(game: &GameRecord) -> bool {
    game.number <= 1 || !game.moves.is_empty() || game.is_closed()
}

/// Appends a game to a file of several, separated by a blank line.
pub(crate) fn push_game(out: &mut String, text: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
}

/// Writes `pgn/round-R.pgn` and `pgn/round-R/board-B.pgn`.
pub struct PgnSink {
    config: std::sync::Arc<Config>,
    paths: Paths,
    /// The games version of each board as last written.
    written: BTreeMap<u32, u64>,
    /// Each board's games as last rendered (a board is rendered again only when its
    /// games change, not at every update of the round's file).
    rendered: BTreeMap<u32, RenderedBoard>,
    first: bool,
    /// The files, replaced atomically and synced at the end.
    files: RebuiltFiles,
}

/// A board's games as rendered for its version of them.
struct RenderedBoard {
    version: u64,
    /// Each game's text, if it goes in the round's file.
    games: Vec<(String, bool)>,
}

impl PgnSink {
    pub fn new(config: std::sync::Arc<Config>, paths: Paths) -> PgnSink {
        PgnSink {
            config,
            paths,
            written: BTreeMap::new(),
            rendered: BTreeMap::new(),
            first: true,
            files: RebuiltFiles::default(),
        }
    }
}

impl Sink for PgnSink {
    fn name(&self) -> &'static str {
        "pgn"
    }

    fn update(&mut self, _live: &Hub, source: &dyn GamesSource) -> io::Result<()> {
        let versions = source.versions();
        if !self.first && versions == self.written {
            return Ok(());
        }
        let round = self.config.event.round;
        let boards = source.games();
        let mut size = 0;
        for view in &boards {
            let Some(board) = self.config.board(view.number) else {
                continue;
            };
            let current = self
                .rendered
                .get(&view.number)
                .filter(|r| r.version == view.version);
            if let Some(r) = current {
                size += r.games.iter().map(|(t, _)| t.len() + 1).sum::<usize>();
                continue;
            }
            let mut games = Vec::with_capacity(view.games.games.len());
            for game in &view.games.games {
                let text = render(&self.config, board, game, Flavour::Standard);
                self.files.replace(
                    &self.paths.game_pgn(round, view.number, game.number),
                    text.as_bytes(),
                )?;
                size += text.len() + 1;
                games.push((text, in_round(game)));
            }
            // A game gone from the board's record (a followed-on game made one with the
            // game before it by the arbiter's moves, issue 40): its file goes too.
            let before = self.rendered.get(&view.number).map_or(0, |r| r.games.len());
            for n in games.len() + 1..=before {
                let gone = self.paths.game_pgn(round, view.number, n as u32);
                if let Err(e) = std::fs::remove_file(&gone) {
                    tracing::warn!(board = view.number, "cannot remove {}: {e}", gone.display());
                }
            }
            self.rendered.insert(
                view.number,
                RenderedBoard {
                    version: view.version,
                    games,
                },
            );
        }
        let mut all = String::with_capacity(size);
        for view in &boards {
            if let Some(r) = self.rendered.get(&view.number) {
                for (text, _) in r.games.iter().filter(|(_, shown)| *shown) {
                    push_game(&mut all, text);
                }
            }
        }
        self.files
            .replace(&self.paths.round_pgn(round), all.as_bytes())?;
        self.written = boards.iter().map(|b| (b.number, b.version)).collect();
        self.first = false;
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        self.files.sync()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use arbiter_hub::HubEvent;
    use touch_tracker::{ArbiterEvent, ClockMs, EventKind, MoveEvent};

    /// A config with boards 1 and 2 (players on board 1 only).
    pub fn config() -> Config {
        let text = "[event]\nname = \"Open\"\nsite = \"Hall\"\ndate = \"2025-06-12\"\nround = 3\n\
                    time_control = \"900+10\"\n[output]\ndir = \"/tmp/x\"\n\
                    [[board]]\nnumber = 1\nport = \"/dev/null\"\nwhite = \"Morphy, Paul\"\nblack = \"Anderssen, Adolf\"\n\
                    [[board]]\nnumber = 2\nport = \"/dev/zero\"\n";
        Config::parse(text, std::path::Path::new("t.toml")).unwrap()
    }

    /// A hub where board 1 played 1. e4 e5 with clocks.
    pub fn hub() -> Hub {
        hub_in(messages::Language::En)
    }

    /// [`hub`], its games' comments in `language`.
    pub fn hub_in(language: messages::Language) -> Hub {
        let hub = Hub::speaking([1, 2], language);
        let mv = |seq: u64, uci: &str, san: &str, clock: u64| HubEvent {
            seq,
            board: 1,
            round: 3,
            wall_ms: 0,
            replayed: false,
            event: ArbiterEvent {
                t_ms: seq,
                board: "1".into(),
                kind: EventKind::Move(MoveEvent {
                    ply: seq as u32,
                    color: if seq == 1 {
                        chess_rules::Color::White
                    } else {
                        chess_rules::Color::Black
                    },
                    uci: uci.parse().unwrap(),
                    san: san.into(),
                    fen: String::new(),
                    clock_ms: Some(ClockMs {
                        white: clock,
                        black: clock,
                    }),
                    pressed: true,
                    replaces: None,
                    recovered: false,
                    correction: false,
                    entered: false,
                    touches: vec![],
                }),
            },
        };
        hub.publish(vec![
            mv(1, "e2e4", "e4", 905_000),
            mv(2, "e7e5", "e5", 3_612_300),
        ]);
        hub
    }

    #[test]
    fn a_game_and_a_round() {
        let config = config();
        let hub = hub();
        let boards = hub.games();
        let text = render(
            &config,
            &config.boards[0],
            boards[0].games.current(),
            Flavour::Standard,
        );
        let g = &chess_rules::read_pgn(text.as_bytes()).unwrap()[0];
        for (tag, value) in [
            ("Event", "Open"),
            ("Site", "Hall"),
            ("Date", "2025.06.12"),
            ("Round", "3"),
            ("White", "Morphy, Paul"),
            ("Black", "Anderssen, Adolf"),
            ("Result", "*"),
            ("Board", "1"),
            ("TimeControl", "900+10"),
        ] {
            assert_eq!(g.tag(tag), Some(value), "{tag}");
        }
        assert_eq!(g.tag("Termination"), None, "running");
        assert_eq!(g.moves[0].clock_ms, Some(905_000));
        assert!(
            text.contains("1. e4 {[%clk 0:15:05]} 1... e5 {[%clk 1:00:12.3]} *"),
            "{text}"
        );
        let live = render(
            &config,
            &config.boards[0],
            boards[0].games.current(),
            Flavour::LiveChess { index: 1 },
        );
        assert!(live.starts_with("[ePGN \"0.1;dgt-arbiter/"), "{live}");
        assert!(live.contains("[Round \"3.1\"]"));
        assert!(
            live.contains("1. e4 {[%clk 00:15:05]} 1... e5 {[%clk 01:00:12]} *"),
            "{live}"
        );
        // The round: both boards, the second without players.
        let round = render_round(&config, &boards);
        let games = chess_rules::read_pgn(round.as_bytes()).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].tag("White"), Some("?"));
        assert!(games[1].moves.is_empty());
    }

    #[test]
    fn comments_follow_the_event_s_language_and_the_san_stays_english() {
        use messages::Language;
        let illegal = EventKind::IllegalMove(touch_tracker::events::IllegalMoveEvent {
            color: chess_rules::Color::White,
            category: chess_rules::IllegalCategory::ClockWithoutMove,
            attempt: None,
            count: 1,
            restore_fen: String::new(),
            restore: vec![],
            must_move: None,
            penalty: Some(touch_tracker::Penalty {
                add_ms: 120_000,
                to: chess_rules::Color::Black,
            }),
            result: None,
            result_undetermined: false,
            ply: 2,
            explanation: String::new(),
            clock_before: None,
            clock_after: None,
        });
        let over = EventKind::GameOver(touch_tracker::events::GameOverEvent {
            result: chess_rules::GameResult::BlackWins,
            reason: touch_tracker::EndReason::Flag,
            flag: Some(chess_rules::Color::White),
            undetermined: false,
            plies: 2,
        });
        let rendered = |language: Language| {
            let mut config = config();
            config.event.language = language;
            let hub = hub_in(language);
            let event = |seq: u64, board: u32, kind| HubEvent {
                seq,
                board,
                round: 3,
                wall_ms: 0,
                replayed: false,
                event: ArbiterEvent {
                    t_ms: seq,
                    board: board.to_string(),
                    kind,
                },
            };
            hub.publish(vec![
                event(3, 1, illegal.clone()),
                event(4, 1, over.clone()),
            ]);
            let why = messages::Messages::new(language).text("pgn-daemon-stopped");
            hub.close_unfinished(&why);
            let boards = hub.games();
            let render_board = |i: usize| {
                render(
                    &config,
                    &config.boards[i],
                    boards[i].games.current(),
                    Flavour::Standard,
                )
            };
            (render_board(0), render_board(1))
        };
        // Lines break where they fill up: compared on one line.
        let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let (en, en_unfinished) = rendered(Language::En);
        assert!(
            flat(&en).contains(
                "1... e5 {[%clk 1:00:12.3] White: illegal move (clock pressed without a \
                 move); add 2:00 to Black game over: flag, White's flag fell} 0-1"
            ),
            "{en}"
        );
        assert!(
            flat(&en_unfinished).contains(
                "{unfinished: the daemon stopped; the game resumes when it is restarted}"
            ),
            "{en_unfinished}"
        );
        let (ru, ru_unfinished) = rendered(Language::Ru);
        for said in [
            "невозможный ход (нажатие часов без хода)",
            "добавить сопернику (чёрным) 2:00",
            "партия окончена: падение флажка, падение флажка белых",
        ] {
            assert!(flat(&ru).contains(said), "{said}: {ru}");
        }
        assert!(
            flat(&ru_unfinished).contains("не закончена: демон остановлен"),
            "{ru_unfinished}"
        );
        // The moves, tags and result are the same: only the comments are said in Russian.
        let (g_en, g_ru) = (
            &chess_rules::read_pgn(en.as_bytes()).unwrap()[0],
            &chess_rules::read_pgn(ru.as_bytes()).unwrap()[0],
        );
        assert!(ru.contains("1. e4 {[%clk 0:15:05]} 1... e5"), "{ru}");
        assert_eq!(
            g_en.replay().unwrap().moves(),
            g_ru.replay().unwrap().moves()
        );
        assert_eq!(g_en.result, g_ru.result);
        for text in [&ru, &ru_unfinished] {
            assert!(!text.contains("{ $") && !text.contains('⟪'), "{text}");
            assert!(
                !text.contains("illegal") && !text.contains("game over"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_chess960_game_has_its_variant_and_start() {
        // arbiter-rules.md section 6: [Variant "Chess960"], [SetUp "1"], [FEN] as X-FEN.
        let text = "[event]\nname = \"Open\"\nround = 3\ntime_control = \"900+10\"\n\
                    variant = \"chess960\"\nstart_position = 0\n[output]\ndir = \"/tmp/x\"\n\
                    [[board]]\nnumber = 1\nport = \"/dev/null\"\n";
        let config = Config::parse(text, std::path::Path::new("t.toml")).unwrap();
        let start = chess_rules::Position::start_960(0).unwrap();
        let hub = Hub::new([1]);
        let ev = |seq: u64, kind| HubEvent {
            seq,
            board: 1,
            round: 3,
            wall_ms: 0,
            replayed: false,
            event: ArbiterEvent {
                t_ms: seq,
                board: "1".into(),
                kind,
            },
        };
        hub.publish(vec![
            ev(1, EventKind::NewGame { fen: start.fen() }),
            ev(
                2,
                EventKind::Move(MoveEvent {
                    ply: 1,
                    color: chess_rules::Color::White,
                    uci: "e2e4".parse().unwrap(),
                    san: "e4".into(),
                    fen: String::new(),
                    clock_ms: None,
                    pressed: true,
                    replaces: None,
                    recovered: false,
                    correction: false,
                    entered: false,
                    touches: vec![],
                }),
            ),
        ]);
        let boards = hub.games();
        let text = render(
            &config,
            &config.boards[0],
            boards[0].games.current(),
            Flavour::Standard,
        );
        let g = &chess_rules::read_pgn(text.as_bytes()).unwrap()[0];
        assert_eq!(g.tag("Variant"), Some("Chess960"), "{text}");
        assert_eq!(g.tag("SetUp"), Some("1"));
        assert_eq!(g.tag("FEN"), Some(start.fen().as_str()));
        let replayed = g.start_position().unwrap();
        assert_eq!(replayed.variant(), chess_rules::Variant::Chess960);
        assert_eq!(replayed.chess960_number(), Some(0));
        assert_eq!(g.replay().unwrap().moves().len(), 1);
        // A standard game has no Variant tag.
        let config = super::tests::config();
        let hub = super::tests::hub();
        let text = render(
            &config,
            &config.boards[0],
            hub.games()[0].games.current(),
            Flavour::Standard,
        );
        assert!(!text.contains("Variant"), "{text}");
    }

    #[test]
    fn the_sink_renders_again_only_changed_boards_and_keeps_the_round_whole() {
        let config = config();
        let hub = hub();
        let dir = std::env::temp_dir().join(format!("arbiter-pgn-sink-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let paths = Paths::new(&dir);
        let mut sink = PgnSink::new(std::sync::Arc::new(config.clone()), paths.clone());
        sink.update(&hub, &hub).unwrap();
        let read = |p: std::path::PathBuf| std::fs::read_to_string(p).unwrap();
        assert_eq!(
            read(paths.round_pgn(3)),
            render_round(&config, &hub.games())
        );
        // Board 2's file is not written again while board 2 does not change.
        let board2 = paths.game_pgn(3, 2, 1);
        std::fs::write(&board2, "stale").unwrap();
        hub.publish(vec![HubEvent {
            seq: 3,
            board: 1,
            round: 3,
            wall_ms: 0,
            replayed: false,
            event: ArbiterEvent {
                t_ms: 3,
                board: "1".into(),
                kind: EventKind::Move(MoveEvent {
                    ply: 3,
                    color: chess_rules::Color::White,
                    uci: "g1f3".parse().unwrap(),
                    san: "Nf3".into(),
                    fen: String::new(),
                    clock_ms: None,
                    pressed: true,
                    replaces: None,
                    recovered: false,
                    correction: false,
                    entered: false,
                    touches: vec![],
                }),
            },
        }]);
        sink.update(&hub, &hub).unwrap();
        assert_eq!(read(board2.clone()), "stale");
        assert!(read(paths.game_pgn(3, 1, 1)).contains("2. Nf3"));
        // The round's file has the new move and board 2's game as rendered before.
        let round = read(paths.round_pgn(3));
        assert_eq!(round, render_round(&config, &hub.games()));
        // A closed game changes the board's version: its file is written again.
        hub.close_unfinished("stopped");
        sink.update(&hub, &hub).unwrap();
        assert_ne!(read(board2), "stale");
        assert_eq!(
            read(paths.round_pgn(3)),
            render_round(&config, &hub.games())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
