//! The DGT LiveChess folder layout, as LiveChess exports it and lichess's Broadcaster
//! reads it (compare `shared/data/pgn/lichess-broadcaster/tournament-2/`):
//!
//! - `tournament.json`: `{"id", "name", "rounds": [{"count", "live"}, ...]}`, one entry
//!   per round (entries of other rounds already in the file are kept);
//! - `round-R/index.json`: `{"pairings": [{"white": {fname, mname, lname, title,
//!   federation}, "black": {...}, "result", "live"}, ...]}` in board order;
//! - `round-R/game-N.pgn`: the board's current game, N its place in `pairings` from 1,
//!   with an `ePGN` tag, `Round "R.N"` and `{[%clk 00:15:19]}` after each move;
//! - `round-R/games.pgn`: every game of the round, one after another.
//!
//! Files are rewritten atomically when their content changes.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};

use super::pgn::{render, Flavour};
use super::Sink;
use crate::config::Config;
use crate::fsutil::write_atomic;
use crate::hub::{BoardView, Hub};

/// A player as LiveChess names one.
fn player(name: Option<&str>) -> Value {
    let (lname, fname) = match name {
        None => ("?", ""),
        Some(n) => match n.split_once(',') {
            Some((last, first)) => (last.trim(), first.trim()),
            None => (n.trim(), ""),
        },
    };
    json!({
        "fname": fname,
        "mname": null,
        "lname": lname,
        "title": null,
        "federation": null,
    })
}

fn pretty(v: &Value) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string());
    s.push('\n');
    s.into_bytes()
}

/// The folder's files for the round as it stands, by path relative to the folder.
/// `rounds` is the `tournament.json` round list before this round's entry.
pub fn render_folder(
    config: &Config,
    boards: &[BoardView],
    rounds: &[Value],
) -> BTreeMap<String, Vec<u8>> {
    let round = config.event.round;
    let dir = format!("round-{round}");
    let mut files = BTreeMap::new();
    let mut pairings = Vec::new();
    let mut all = String::new();
    let mut live = 0;
    for (i, view) in boards.iter().enumerate() {
        let Some(board) = config.board(view.number) else {
            continue;
        };
        let index = i + 1;
        let game = view.games.current();
        if game.is_live() {
            live += 1;
        }
        pairings.push(json!({
            "white": player(board.white.as_deref()),
            "black": player(board.black.as_deref()),
            "result": game.result_or_ongoing().as_str(),
            "live": game.is_live(),
        }));
        let text = render(config, board, game, Flavour::LiveChess { index });
        if !all.is_empty() {
            all.push('\n');
        }
        all.push_str(&text);
        files.insert(format!("{dir}/game-{index}.pgn"), text.into_bytes());
    }
    let mut rounds = rounds.to_vec();
    let entry = json!({"count": pairings.len(), "live": live});
    let at = round as usize - 1;
    while rounds.len() <= at {
        rounds.push(json!({"count": 0, "live": 0}));
    }
    rounds[at] = entry;
    files.insert(format!("{dir}/games.pgn"), all.into_bytes());
    files.insert(
        format!("{dir}/index.json"),
        pretty(&json!({ "pairings": pairings })),
    );
    files.insert(
        "tournament.json".into(),
        pretty(&json!({
            "id": config.event.name,
            "name": config.event.name,
            "rounds": rounds,
        })),
    );
    files
}

/// Reads the round list of an existing `tournament.json` (none if it is absent or not
/// one).
pub fn existing_rounds(folder: &std::path::Path) -> Vec<Value> {
    std::fs::read(folder.join("tournament.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.get("rounds").and_then(Value::as_array).cloned())
        .unwrap_or_default()
}

/// Keeps the LiveChess folder up to date.
pub struct LiveChessSink {
    config: Arc<Config>,
    folder: PathBuf,
    rounds: Vec<Value>,
    written: BTreeMap<String, Vec<u8>>,
}

impl LiveChessSink {
    pub fn new(config: Arc<Config>, folder: PathBuf) -> LiveChessSink {
        let rounds = existing_rounds(&folder);
        LiveChessSink {
            config,
            folder,
            rounds,
            written: BTreeMap::new(),
        }
    }
}

impl Sink for LiveChessSink {
    fn name(&self) -> &'static str {
        "livechess"
    }

    fn update(&mut self, hub: &Hub) -> io::Result<()> {
        let files = render_folder(&self.config, &hub.boards(), &self.rounds);
        for (rel, bytes) in files {
            if self.written.get(&rel) == Some(&bytes) {
                continue;
            }
            write_atomic(&self.folder.join(&rel), &bytes)?;
            self.written.insert(rel, bytes);
        }
        Ok(())
    }
}
