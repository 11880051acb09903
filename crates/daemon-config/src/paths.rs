//! Where the daemon writes, under the configured `output.dir`:
//!
//! ```text
//! events.jsonl                      the JSON-lines event stream (all rounds)
//! journal/round-R/board-B.jsonl     the journal of each board (crash recovery)
//! pgn/round-R.pgn                   every game of the round
//! pgn/round-R/board-B.pgn           one game (board-B-game-2.pgn for a board's 2nd game)
//! livechess/tournament.json         the DGT LiveChess folder layout, for lichess's
//! livechess/round-R/index.json      Broadcaster and other tools that read it
//! livechess/round-R/game-N.pgn
//! livechess/round-R/games.pgn
//! recordings/                       .dgtcap recordings (with --record)
//! http-address                      the HTTP endpoint's URL, once it listens
//! ```

use std::path::{Path, PathBuf};

/// The output layout under one root folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    root: PathBuf,
}

impl Paths {
    pub fn new(root: impl Into<PathBuf>) -> Paths {
        Paths { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn events(&self) -> PathBuf {
        self.root.join("events.jsonl")
    }

    pub fn journal(&self, round: u32, board: u32) -> PathBuf {
        self.root
            .join("journal")
            .join(format!("round-{round}"))
            .join(format!("board-{board}.jsonl"))
    }

    pub fn round_pgn(&self, round: u32) -> PathBuf {
        self.root.join("pgn").join(format!("round-{round}.pgn"))
    }

    /// The file of game `game` (1, 2, ...) played on `board` in `round`.
    pub fn game_pgn(&self, round: u32, board: u32, game: u32) -> PathBuf {
        let name = if game <= 1 {
            format!("board-{board}.pgn")
        } else {
            format!("board-{board}-game-{game}.pgn")
        };
        self.root
            .join("pgn")
            .join(format!("round-{round}"))
            .join(name)
    }

    pub fn livechess(&self) -> PathBuf {
        self.root.join("livechess")
    }

    pub fn recordings(&self) -> PathBuf {
        self.root.join("recordings")
    }

    /// How far each board's events were published (see the daemon's `public`).
    pub fn published(&self, round: u32) -> PathBuf {
        self.root
            .join("broadcast")
            .join(format!("round-{round}-published.json"))
    }

    pub fn http_address(&self) -> PathBuf {
        self.root.join("http-address")
    }

    /// The LiveChess API's WebSocket URL, written at start (`[livechess_api]`).
    pub fn livechess_api_address(&self) -> PathBuf {
        self.root.join("livechess-api-address")
    }
}
