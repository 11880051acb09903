//! The DGT LiveChess folder layout, as LiveChess exports it and lichess's Broadcaster
//! reads it (compare `shared/data/pgn/lichess-broadcaster/tournament-2/`):
//!
//! - `tournament.json`: `{"id", "name", "rounds": [{"count", "live"}, ...]}`, one entry
//!   per round (entries of other rounds already in the file are kept); the keys of
//!   LiveChess's own export, no more (`tests/daemon.rs` compares them): the time control
//!   is in each game's PGN `TimeControl` tag, the board's own;
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

use serde::{Deserialize, Serialize};

use super::pgn::{push_game, render, Flavour};
use super::{GamesSource, Sink};
use arbiter_hub::{GamesView, Hub};
use crash_safe::RebuiltFiles;
use daemon_config::Config;

/// A player as LiveChess names one (fields in LiveChess's order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub fname: String,
    pub mname: Option<String>,
    pub lname: String,
    pub title: Option<String>,
    pub federation: Option<String>,
}

impl Player {
    /// From "Surname, First name" (or one name, taken as the surname).
    pub fn from_name(name: Option<&str>) -> Player {
        let (lname, fname) = match name {
            None => ("?", ""),
            Some(n) => match n.split_once(',') {
                Some((last, first)) => (last.trim(), first.trim()),
                None => (n.trim(), ""),
            },
        };
        Player {
            fname: fname.to_owned(),
            mname: None,
            lname: lname.to_owned(),
            title: None,
            federation: None,
        }
    }
}

impl Player {
    /// From the pairing program's TRF: the name, title and federation it gives.
    pub fn from_trf(p: &daemon_config::pairings::PlayerInfo) -> Player {
        Player {
            title: p.title.clone(),
            federation: p.federation.clone(),
            ..Player::from_name(Some(&p.name))
        }
    }
}

/// One game of `index.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    pub white: Player,
    pub black: Player,
    pub result: String,
    pub live: bool,
}

/// `round-R/index.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    pub pairings: Vec<Pairing>,
}

/// One round of `tournament.json`: its number of games, and how many are live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RoundEntry {
    pub count: usize,
    pub live: usize,
}

/// `tournament.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tournament {
    pub id: String,
    pub name: String,
    pub rounds: Vec<RoundEntry>,
}

fn pretty<T: Serialize>(v: &T) -> Vec<u8> {
    // Serialising these plain structs cannot fail.
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}

/// The folder's files for the round as it stands, by path relative to the folder.
/// `rounds` is the `tournament.json` round list before this round's entry.
pub fn render_folder(
    config: &Config,
    boards: &[GamesView],
    rounds: &[RoundEntry],
) -> BTreeMap<String, Vec<u8>> {
    render_changed(config, boards, rounds, &mut BTreeMap::new())
}

/// A board's current game as last rendered.
#[derive(Debug)]
struct RenderedGame {
    version: u64,
    index: usize,
    text: String,
}

/// [`render_folder`], rendering again only the games of boards whose games changed
/// since `rendered` was filled; the game files of the others are left out of the result
/// (they are as last rendered).
fn render_changed(
    config: &Config,
    boards: &[GamesView],
    rounds: &[RoundEntry],
    rendered: &mut BTreeMap<u32, RenderedGame>,
) -> BTreeMap<String, Vec<u8>> {
    let round = config.event.round;
    let dir = format!("round-{round}");
    let mut files = BTreeMap::new();
    let mut pairings = Vec::new();
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
        let (white, black) = match &board.pairing {
            Some(p) => (Player::from_trf(&p.white), Player::from_trf(&p.black)),
            None => (
                Player::from_name(board.white.as_deref()),
                Player::from_name(board.black.as_deref()),
            ),
        };
        pairings.push(Pairing {
            white,
            black,
            result: game.result_or_ongoing().as_str().to_owned(),
            live: game.is_live(),
        });
        let current = rendered
            .get(&view.number)
            .is_some_and(|r| r.version == view.version && r.index == index);
        if !current {
            let text = render(config, board, game, Flavour::LiveChess { index });
            files.insert(format!("{dir}/game-{index}.pgn"), text.clone().into_bytes());
            rendered.insert(
                view.number,
                RenderedGame {
                    version: view.version,
                    index,
                    text,
                },
            );
        }
    }
    let mut all = String::new();
    for view in boards {
        if let Some(r) = rendered.get(&view.number) {
            push_game(&mut all, &r.text);
        }
    }
    let mut rounds = rounds.to_vec();
    let at = (round as usize).saturating_sub(1);
    if rounds.len() <= at {
        rounds.resize(at + 1, RoundEntry::default());
    }
    rounds[at] = RoundEntry {
        count: pairings.len(),
        live,
    };
    files.insert(format!("{dir}/games.pgn"), all.into_bytes());
    files.insert(format!("{dir}/index.json"), pretty(&Index { pairings }));
    files.insert(
        "tournament.json".into(),
        pretty(&Tournament {
            id: config.event.name.clone(),
            name: config.event.name.clone(),
            rounds,
        }),
    );
    files
}

/// Reads the round list of an existing `tournament.json` (none if it is absent or not
/// one).
pub fn existing_rounds(folder: &std::path::Path) -> Vec<RoundEntry> {
    std::fs::read(folder.join("tournament.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Tournament>(&b).ok())
        .map(|t| t.rounds)
        .unwrap_or_default()
}

/// Keeps the LiveChess folder up to date.
pub struct LiveChessSink {
    config: Arc<Config>,
    folder: PathBuf,
    rounds: Vec<RoundEntry>,
    written: BTreeMap<String, Vec<u8>>,
    /// Each board's current game as last rendered (rendered again when it changes).
    rendered: BTreeMap<u32, RenderedGame>,
    /// The files, replaced atomically and synced at the end.
    files: RebuiltFiles,
}

impl LiveChessSink {
    pub fn new(config: Arc<Config>, folder: PathBuf) -> LiveChessSink {
        let rounds = existing_rounds(&folder);
        LiveChessSink {
            config,
            folder,
            rounds,
            written: BTreeMap::new(),
            rendered: BTreeMap::new(),
            files: RebuiltFiles::default(),
        }
    }
}

impl Sink for LiveChessSink {
    fn name(&self) -> &'static str {
        "livechess"
    }

    fn update(&mut self, _live: &Hub, source: &dyn GamesSource) -> io::Result<()> {
        let games = source.games();
        let rendered = &mut self.rendered;
        let files = render_changed(&self.config, &games, &self.rounds, rendered);
        for (rel, bytes) in files {
            if self.written.get(&rel) == Some(&bytes) {
                continue;
            }
            if let Err(e) = self.files.replace(&self.folder.join(&rel), &bytes) {
                // Rendered but not written: render it again next time.
                self.rendered.clear();
                return Err(e);
            }
            self.written.insert(rel, bytes);
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        self.files.sync()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sinks::pgn::tests::{config, hub};

    #[test]
    fn the_folder_for_a_round_keeps_the_other_rounds() {
        let config = config();
        let hub = hub();
        let before = [RoundEntry { count: 12, live: 0 }];
        let files = render_folder(&config, &hub.games(), &before);
        let names: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "round-3/game-1.pgn",
                "round-3/game-2.pgn",
                "round-3/games.pgn",
                "round-3/index.json",
                "tournament.json"
            ]
        );
        let t: Tournament = serde_json::from_slice(&files["tournament.json"]).unwrap();
        assert_eq!(t.name, "Open");
        assert_eq!(
            t.rounds,
            [
                RoundEntry { count: 12, live: 0 },
                RoundEntry::default(),
                RoundEntry { count: 2, live: 2 }
            ]
        );
        let i: Index = serde_json::from_slice(&files["round-3/index.json"]).unwrap();
        assert_eq!(i.pairings[0].white, Player::from_name(Some("Morphy, Paul")));
        assert_eq!(
            (
                i.pairings[0].white.lname.as_str(),
                i.pairings[0].white.fname.as_str()
            ),
            ("Morphy", "Paul")
        );
        assert_eq!(i.pairings[1].black.lname, "?");
        assert_eq!(
            (i.pairings[0].result.as_str(), i.pairings[0].live),
            ("*", true)
        );
        let all = chess_rules::read_pgn(&files["round-3/games.pgn"]).unwrap();
        assert_eq!(all.len(), 2);
        // The sink writes the files, and keeps what tournament.json had.
        let dir = std::env::temp_dir().join(format!("arbiter-livechess-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("tournament.json"),
            pretty(&Tournament {
                id: "x".into(),
                name: "x".into(),
                rounds: before.to_vec(),
            }),
        )
        .unwrap();
        let mut sink = LiveChessSink::new(std::sync::Arc::new(config.clone()), dir.clone());
        sink.update(&hub, &hub).unwrap();
        assert_eq!(existing_rounds(&dir)[0], before[0]);
        assert!(dir.join("round-3/game-2.pgn").is_file());
        // Only changed boards are rendered again; the round's games file stays whole.
        hub.close_unfinished("stopped");
        let mut rendered = BTreeMap::new();
        let first = render_changed(&config, &hub.games(), &before, &mut rendered);
        let again = render_changed(&config, &hub.games(), &before, &mut rendered);
        assert!(first.contains_key("round-3/game-1.pgn"));
        assert!(!again.contains_key("round-3/game-1.pgn"));
        assert_eq!(again["round-3/games.pgn"], first["round-3/games.pgn"]);
        assert_eq!(
            again["round-3/games.pgn"],
            render_folder(&config, &hub.games(), &before)["round-3/games.pgn"]
        );
        sink.update(&hub, &hub).unwrap();
        let written = std::fs::read(dir.join("round-3/games.pgn")).unwrap();
        assert_eq!(written, first["round-3/games.pgn"]);
        assert!(String::from_utf8(written)
            .unwrap()
            .contains("unfinished: stopped"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
