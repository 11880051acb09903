//! PGN per game and per round (formats.md §3): the Seven Tag Roster plus `Board`,
//! `TimeControl` and `Termination`, `{[%clk 0:03:12]}` after every move whose clock is
//! known, rulings as comments on the move they concern, the result. Files are rewritten
//! whole and atomically (temp file, fsync, rename) after every change of their board.

use std::collections::BTreeMap;
use std::io;

use chess_rules::{PgnGame, PgnMove, START_FEN};

use super::Sink;
use crate::config::{BoardConfig, Config};
use crate::fsutil::write_atomic;
use crate::hub::{BoardView, Hub};
use crate::paths::Paths;
use crate::record::GameRecord;

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
            Flavour::Standard => e.round.to_string(),
            Flavour::LiveChess { index } => format!("{}.{index}", e.round),
        },
    );
    pgn.set_tag("White", board.white.as_deref().unwrap_or("?"));
    pgn.set_tag("Black", board.black.as_deref().unwrap_or("?"));
    pgn.set_tag("Result", game.result_or_ongoing().as_str());
    pgn.set_tag("Board", board.number.to_string());
    pgn.set_tag("TimeControl", config.time_control.to_string());
    if let Some(t) = game.termination() {
        pgn.set_tag("Termination", t);
    }
    if game.start_fen != START_FEN {
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
        let note = format!("unfinished: {why}");
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

/// Every game of the round in board order, separated by blank lines.
pub fn render_round(config: &Config, boards: &[BoardView]) -> String {
    let mut out = String::new();
    for view in boards {
        let Some(board) = config.board(view.number) else {
            continue;
        };
        for game in &view.games.games {
            // A board's first game is written even before its first move: it shows the
            // pairing; a second game only once it has one.
            if game.number > 1 && game.moves.is_empty() && !game.is_closed() {
                continue;
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&render(config, board, game, Flavour::Standard));
        }
    }
    out
}

/// Writes `pgn/round-R.pgn` and `pgn/round-R/board-B.pgn`.
pub struct PgnSink {
    config: std::sync::Arc<Config>,
    paths: Paths,
    /// Per board, the games version last written.
    written: BTreeMap<u32, u64>,
    first: bool,
}

impl PgnSink {
    pub fn new(config: std::sync::Arc<Config>, paths: Paths) -> PgnSink {
        PgnSink {
            config,
            paths,
            written: BTreeMap::new(),
            first: true,
        }
    }
}

impl Sink for PgnSink {
    fn name(&self) -> &'static str {
        "pgn"
    }

    fn update(&mut self, hub: &Hub) -> io::Result<()> {
        let versions = hub.versions();
        if !self.first && versions == self.written {
            return Ok(());
        }
        let round = self.config.event.round;
        let boards = hub.boards();
        for view in &boards {
            if !self.first && self.written.get(&view.number) == Some(&view.version) {
                continue;
            }
            let Some(board) = self.config.board(view.number) else {
                continue;
            };
            for game in &view.games.games {
                let text = render(&self.config, board, game, Flavour::Standard);
                write_atomic(
                    &self.paths.game_pgn(round, view.number, game.number),
                    text.as_bytes(),
                )?;
            }
        }
        write_atomic(
            &self.paths.round_pgn(round),
            render_round(&self.config, &boards).as_bytes(),
        )?;
        self.written = boards.iter().map(|b| (b.number, b.version)).collect();
        self.first = false;
        Ok(())
    }
}
