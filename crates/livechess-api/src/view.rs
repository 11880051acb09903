//! The daemon's state as this API shows it: plain values the daemon fills in from its
//! hub and public view, serialised with LiveChess's field names and order.

use chess_rules::{GameResult, Move};
use serde::Serialize;

/// An e-board's link state, as LiveChess names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum EboardState {
    /// Connected and answering.
    Active,
    /// Not connected (no port, or the port cannot be opened).
    Inactive,
    /// The port is open but the board does not answer.
    NotResponding,
    /// LiveChess's fourth state (a board whose updates arrive late); this server does
    /// not produce it, consumers may.
    Delayed,
}

/// The clock object: `{"white":secs,"black":secs,"run":true|false|null,"time":ms}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Clock {
    /// White's time left, whole seconds.
    pub white: u64,
    pub black: u64,
    /// `true` while White's time runs, `false` while Black's, `None` (null) when stopped.
    pub run: Option<bool>,
    /// When the reading was taken, epoch ms.
    pub time: u64,
}

/// One e-board as the `eboards` call and REST route list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Eboard {
    pub serialnr: String,
    /// Where it is connected (a port).
    pub source: String,
    pub state: EboardState,
    /// Charge left, `"84%"`; `None` for boards without a battery.
    #[serde(serialize_with = "battery")]
    pub battery: Option<u8>,
    pub comment: Option<String>,
    /// The FEN placement field of what the board shows, White at the bottom.
    pub board: String,
    pub flipped: bool,
    pub clock: Option<Clock>,
}

fn battery<S: serde::Serializer>(b: &Option<u8>, s: S) -> Result<S::Ok, S::Error> {
    match b {
        Some(p) => s.serialize_str(&format!("{p}%")),
        None => s.serialize_none(),
    }
}

/// One recorded move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveView {
    pub san: String,
    pub uci: Move,
    /// The mover's clock after the move, whole seconds (`None`: no clock reading).
    pub clock_s: Option<u64>,
}

/// A board's current game as far as it may be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameView {
    /// The board's game number in the round (1, then 2 if set up again, ...).
    pub number: u32,
    /// The position it started from (full FEN).
    pub start_fen: String,
    /// Only legal moves the arbiter recorded: an illegal move never appears here.
    pub moves: Vec<MoveView>,
    /// `None` while it runs.
    pub result: Option<GameResult>,
    /// Still being played.
    pub live: bool,
}

impl GameView {
    /// A game from the start position, no moves yet.
    pub fn start(number: u32) -> GameView {
        GameView {
            number,
            start_fen: chess_rules::START_FEN.to_owned(),
            moves: Vec::new(),
            result: None,
            live: true,
        }
    }
}

/// What a feed subscription follows: an e-board and its game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardState {
    /// The board number in the round (a subscription by number also matches).
    pub number: u32,
    pub eboard: Eboard,
    pub game: GameView,
}

/// A player of a pairing.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Player {
    pub fname: Option<String>,
    pub mname: Option<String>,
    pub lname: Option<String>,
    pub title: Option<String>,
    pub federation: Option<String>,
    pub gender: Option<String>,
    pub fideid: Option<String>,
}

impl Player {
    /// From "Lastname, Firstname" (PGN's order) or a single name.
    pub fn from_name(name: &str) -> Player {
        let some = |s: &str| {
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_owned())
        };
        match name.split_once(',') {
            Some((last, first)) => Player {
                fname: some(first),
                lname: some(last),
                ..Player::default()
            },
            None => Player {
                lname: some(name),
                ..Player::default()
            },
        }
    }
}

/// One board of the round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HallBoard {
    pub state: BoardState,
    pub white: Player,
    pub black: Player,
}

/// Everything the REST routes show: the tournament, its current round and its boards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hall {
    pub name: String,
    pub location: String,
    /// ISO country code, if known.
    pub country: String,
    /// The round being played (1-based); the tournament has this many rounds so far.
    pub round: u32,
    /// `YYYY-MM-DD`, if known.
    pub date: Option<String>,
    /// In board-number order.
    pub boards: Vec<HallBoard>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_as_pgn_writes_them() {
        let p = Player::from_name("Anderssen, Adolf");
        assert_eq!(p.lname.as_deref(), Some("Anderssen"));
        assert_eq!(p.fname.as_deref(), Some("Adolf"));
        let p = Player::from_name("Morphy");
        assert_eq!((p.lname.as_deref(), p.fname), (Some("Morphy"), None));
        assert_eq!(Player::from_name(" ").lname, None);
    }

    #[test]
    fn states_battery_and_clock_serialise_as_livechess_writes_them() {
        let e = Eboard {
            serialnr: "1".into(),
            source: "COM3".into(),
            state: EboardState::NotResponding,
            battery: Some(84),
            comment: None,
            board: "8/8/8/8/8/8/8/8".into(),
            flipped: false,
            clock: Some(Clock {
                white: 300,
                black: 299,
                run: None,
                time: 7,
            }),
        };
        assert_eq!(
            serde_json::to_string(&e).unwrap(),
            r#"{"serialnr":"1","source":"COM3","state":"NOTRESPONDING","battery":"84%","comment":null,"board":"8/8/8/8/8/8/8/8","flipped":false,"clock":{"white":300,"black":299,"run":null,"time":7}}"#
        );
    }
}
