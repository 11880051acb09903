//! The REST routes under `/api/v1.0/`, rendered from a [`Hall`]:
//!
//! | path | JSON |
//! |---|---|
//! | `eboards` | the e-boards, as the `eboards` call lists them |
//! | `tournaments` | `[{uuid, description, rounds}]`: the one tournament of the daemon |
//! | `tournament/{uuid}` | `{uuid, name, description, location, country, rounds, eboards}`; `eboards[i]` is the serial number of board `i + 1` (`""` where the round has no such board) |
//! | `round/{uuid}/{n}` | `{nr, date, pairings}`: `n` counts from 0, as the `livechess` CLI asks (`n = 0` is round 1); only the round being played has pairings, earlier ones are empty |
//! | `game/{uuid}` | `{chess960, result, comment, clock, moves}`; `chess960` is the start position's Chess960 number (Scharnagl numbering, as LiveChess sends it): 518 for a standard game (the standard position), the game's own start for a Chess960 one; a move is `"SAN SECONDS"` (the mover's clock after it), or `"SAN"` when no clock reading came with it |
//!
//! Results: `WHITEWIN`, `BLACKWIN`, `DRAW` (`WHITEFORFAIT`/`BLACKFORFAIT` are never
//! produced: the boards cannot tell a forfeit), null while the game runs. The uuids are
//! stable: made from the event name, round, board and game number.
//!
//! The objects have exactly LiveChess's fields: the `livechess` CLI builds Python
//! dataclasses from them and fails on any other field.

use chess_rules::GameResult;
use serde::Serialize;

use crate::view::{Clock, Eboard, Hall, HallBoard, Player};

/// A route that has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestError {
    /// Nothing at this path (HTTP 404).
    #[error("{0}")]
    NotFound(String),
}

/// A stable uuid (RFC 4122 layout, version 8: made by us) from these parts.
pub fn uuid_of(parts: &[&str]) -> String {
    // Two FNV-1a 64-bit hashes with different bases: 128 bits, no dependency.
    let hash = |basis: u64| {
        let mut h = basis;
        for p in parts {
            for b in p.bytes().chain([0xff]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h
    };
    let (hi, lo) = (hash(0xcbf2_9ce4_8422_2325), hash(0x6c62_272e_07bb_0142));
    let hi = (hi & !0xf000) | 0x8000; // version 8
    let lo = (lo & !(0b11 << 62)) | (0b10 << 62); // RFC 4122 variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xffff,
        lo >> 48,
        lo & 0xffff_ffff_ffff
    )
}

impl Hall {
    /// The tournament's uuid.
    pub fn uuid(&self) -> String {
        uuid_of(&["tournament", &self.name])
    }

    /// The uuid of a board's current game.
    pub fn game_uuid(&self, board: &HallBoard) -> String {
        uuid_of(&[
            "game",
            &self.name,
            &self.round.to_string(),
            &board.state.number.to_string(),
            &board.state.game.number.to_string(),
        ])
    }
}

fn result_name(r: Option<GameResult>) -> Option<&'static str> {
    match r? {
        GameResult::WhiteWins => Some("WHITEWIN"),
        GameResult::BlackWins => Some("BLACKWIN"),
        GameResult::Draw => Some("DRAW"),
        GameResult::Ongoing => None,
    }
}

#[derive(Serialize)]
struct TournamentSummary {
    uuid: String,
    description: String,
    rounds: u32,
}

#[derive(Serialize)]
struct TournamentDetail<'a> {
    uuid: String,
    name: &'a str,
    description: &'a str,
    location: &'a str,
    country: &'a str,
    rounds: u32,
    eboards: Vec<&'a str>,
}

#[derive(Serialize)]
struct Pairing<'a> {
    nr: u32,
    uuid: String,
    white: &'a Player,
    black: &'a Player,
    live: bool,
    result: Option<&'static str>,
}

#[derive(Serialize)]
struct Round<'a> {
    nr: u32,
    date: Option<&'a str>,
    pairings: Vec<Pairing<'a>>,
}

#[derive(Serialize)]
struct Game<'a> {
    chess960: u16,
    result: Option<&'static str>,
    comment: Option<&'a str>,
    clock: Option<&'a Clock>,
    moves: Vec<String>,
}

fn json<T: Serialize>(v: &T) -> String {
    // Plain structs of strings and numbers: cannot fail.
    serde_json::to_string(v).unwrap_or_default()
}

/// The e-boards as the REST route and the `eboards` call list them.
pub fn eboards(hall: &Hall) -> Vec<&Eboard> {
    hall.boards.iter().map(|b| &b.state.eboard).collect()
}

/// The JSON at `path` (after `/api/v1.0/`, no leading slash).
pub fn get(hall: &Hall, path: &str) -> Result<String, RestError> {
    let uuid = hall.uuid();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let unknown_tournament = |u: &str| {
        RestError::NotFound(format!(
            "no tournament {u:?}: this daemon has one, {uuid} (see /api/v1.0/tournaments)"
        ))
    };
    match segments.as_slice() {
        ["eboards"] => Ok(json(&eboards(hall))),
        ["tournaments"] => Ok(json(&[TournamentSummary {
            uuid: uuid.clone(),
            description: hall.name.clone(),
            rounds: hall.round,
        }])),
        ["tournament", u] if *u == uuid => {
            let max = hall.boards.iter().map(|b| b.state.number).max().unwrap_or(0);
            let eboards = (1..=max)
                .map(|n| {
                    hall.boards
                        .iter()
                        .find(|b| b.state.number == n)
                        .map_or("", |b| b.state.eboard.serialnr.as_str())
                })
                .collect();
            Ok(json(&TournamentDetail {
                uuid: uuid.clone(),
                name: &hall.name,
                description: &hall.name,
                location: &hall.location,
                country: &hall.country,
                rounds: hall.round,
                eboards,
            }))
        }
        ["tournament", u] | ["round", u, _] if *u != uuid => Err(unknown_tournament(u)),
        ["round", _, n] => {
            let index: u32 = n.parse().map_err(|_| {
                RestError::NotFound(format!("round {n:?}: expected a round index from 0"))
            })?;
            if index >= hall.round {
                return Err(RestError::NotFound(format!(
                    "no round index {index}: rounds count from 0 here (index {} is round {}, the one being played)",
                    hall.round.saturating_sub(1),
                    hall.round
                )));
            }
            let nr = index + 1;
            let pairings = if nr == hall.round {
                hall.boards
                    .iter()
                    .map(|b| Pairing {
                        nr: b.state.number,
                        uuid: hall.game_uuid(b),
                        white: &b.white,
                        black: &b.black,
                        live: b.state.game.live,
                        result: result_name(b.state.game.result),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            Ok(json(&Round {
                nr,
                date: if nr == hall.round { hall.date.as_deref() } else { None },
                pairings,
            }))
        }
        ["game", g] => {
            let Some(board) = hall.boards.iter().find(|b| hall.game_uuid(b) == *g) else {
                return Err(RestError::NotFound(format!(
                    "no game {g:?}: the games of the round are in /api/v1.0/round/{uuid}/{}",
                    hall.round.saturating_sub(1)
                )));
            };
            let game = &board.state.game;
            Ok(json(&Game {
                // The start's number among the 960 (Scharnagl numbering), as LiveChess
                // sends it: 518 for a standard game (and a set-up position, which has
                // none), the game's own for a Chess960 one.
                chess960: chess_rules::Position::from_fen_960(&game.start_fen)
                    .ok()
                    .and_then(|p| p.chess960_number())
                    .unwrap_or(chess_rules::STANDARD_POSITION_NUMBER),
                result: result_name(game.result),
                comment: None,
                clock: if game.live { board.state.eboard.clock.as_ref() } else { None },
                moves: game
                    .moves
                    .iter()
                    .map(|m| match m.clock_s {
                        Some(s) => format!("{} {s}", m.san),
                        None => m.san.clone(),
                    })
                    .collect(),
            }))
        }
        _ => Err(RestError::NotFound(format!(
            "no route {path:?}: the routes are eboards, tournaments, tournament/UUID, round/UUID/N, game/UUID"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{BoardState, EboardState, GameView, MoveView};
    use serde_json::Value;

    pub(crate) fn hall() -> Hall {
        let mut game = GameView::start(1);
        game.moves = vec![
            MoveView {
                san: "e4".into(),
                uci: "e2e4".parse().unwrap(),
                clock_s: Some(5400),
            },
            MoveView {
                san: "e5".into(),
                uci: "e7e5".parse().unwrap(),
                clock_s: None,
            },
        ];
        let eboard = |serial: &str| Eboard {
            serialnr: serial.into(),
            source: "/dev/ttyACM0".into(),
            state: EboardState::Active,
            battery: None,
            comment: None,
            board: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR".into(),
            flipped: false,
            clock: Some(Clock {
                white: 5400,
                black: 5399,
                run: Some(true),
                time: 1,
            }),
        };
        let mut over = GameView::start(2);
        over.result = Some(GameResult::Draw);
        over.live = false;
        Hall {
            name: "Club Open".into(),
            location: "Hall".into(),
            country: String::new(),
            round: 2,
            date: Some("2026-12-01".into()),
            boards: vec![
                HallBoard {
                    state: BoardState {
                        number: 1,
                        eboard: eboard("10001"),
                        game,
                    },
                    white: Player::from_name("Anderssen, Adolf"),
                    black: Player::from_name("Kieseritzky, Lionel"),
                },
                HallBoard {
                    state: BoardState {
                        number: 3,
                        eboard: eboard("10003"),
                        game: over,
                    },
                    white: Player::default(),
                    black: Player::default(),
                },
            ],
        }
    }

    fn get_json(h: &Hall, path: &str) -> Value {
        serde_json::from_str(&get(h, path).unwrap()).unwrap()
    }

    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        k.sort();
        k
    }

    #[test]
    fn uuids_are_stable_distinct_and_well_formed() {
        let a = uuid_of(&["x", "1"]);
        assert_eq!(a, uuid_of(&["x", "1"]));
        assert_ne!(a, uuid_of(&["x1"]));
        assert_ne!(a, uuid_of(&["x", "2"]));
        let groups: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(groups, [8, 4, 4, 4, 12], "{a}");
        assert_eq!(&a[14..15], "8");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
    }

    #[test]
    fn every_route_has_exactly_livechess_fields() {
        let h = hall();
        let uuid = h.uuid();
        let list = get_json(&h, "tournaments");
        assert_eq!(keys(&list[0]), ["description", "rounds", "uuid"]);
        assert_eq!(list[0]["uuid"], uuid.as_str());
        assert_eq!(list[0]["rounds"], 2);
        let t = get_json(&h, &format!("tournament/{uuid}"));
        assert_eq!(
            keys(&t),
            [
                "country",
                "description",
                "eboards",
                "location",
                "name",
                "rounds",
                "uuid"
            ]
        );
        // Indexed by board number - 1.
        assert_eq!(t["eboards"], serde_json::json!(["10001", "", "10003"]));
        let e = get_json(&h, "eboards");
        assert_eq!(
            keys(&e[0]),
            ["battery", "board", "clock", "comment", "flipped", "serialnr", "source", "state"]
        );
        assert_eq!(
            get_json(&h, &format!("round/{uuid}/0"))["pairings"],
            serde_json::json!([])
        );
        let r = get_json(&h, &format!("round/{uuid}/1"));
        assert_eq!(keys(&r), ["date", "nr", "pairings"]);
        assert_eq!(r["nr"], 2);
        let p = &r["pairings"][0];
        assert_eq!(keys(p), ["black", "live", "nr", "result", "uuid", "white"]);
        assert_eq!(
            keys(&p["white"]),
            [
                "federation",
                "fideid",
                "fname",
                "gender",
                "lname",
                "mname",
                "title"
            ]
        );
        assert_eq!(p["white"]["lname"], "Anderssen");
        assert_eq!(
            (p["live"].as_bool(), &p["result"]),
            (Some(true), &Value::Null)
        );
        assert_eq!(r["pairings"][1]["result"], "DRAW");
        assert_eq!(r["pairings"][1]["nr"], 3);
        let g = get_json(&h, &format!("game/{}", p["uuid"].as_str().unwrap()));
        assert_eq!(
            keys(&g),
            ["chess960", "clock", "comment", "moves", "result"]
        );
        assert_eq!(g["moves"], serde_json::json!(["e4 5400", "e5"]));
        assert_eq!(g["clock"]["run"], true);
        let over = get_json(
            &h,
            &format!("game/{}", r["pairings"][1]["uuid"].as_str().unwrap()),
        );
        assert_eq!(
            (&over["clock"], &over["result"]),
            (&Value::Null, &Value::from("DRAW"))
        );
    }

    #[test]
    fn a_standard_game_gives_livechess_position_518() {
        // LiveChess puts the Chess960 position number in `chess960`, and the standard
        // start is position 518 in that numbering: 0 would be the set-up BBQNNRKR.
        let h = hall();
        for board in &h.boards {
            let g = get_json(&h, &format!("game/{}", h.game_uuid(board)));
            assert_eq!(g["chess960"], 518, "board {}", board.state.number);
        }
        // A Chess960 game gives its own start's number (X-FEN start of position 0).
        let mut h = hall();
        h.boards[0].state.game.start_fen = chess_rules::Position::start_960(0).unwrap().fen();
        let g = get_json(&h, &format!("game/{}", h.game_uuid(&h.boards[0])));
        assert_eq!(g["chess960"], 0);
    }

    #[test]
    fn unknown_paths_say_what_there_is() {
        let h = hall();
        let uuid = h.uuid();
        for (path, words) in [
            ("tournament/nope".to_owned(), "no tournament"),
            (format!("round/{uuid}/2"), "count from 0"),
            (format!("round/{uuid}/x"), "round index"),
            ("round/nope/0".to_owned(), "no tournament"),
            ("game/nope".to_owned(), "no game"),
            ("boards".to_owned(), "no route"),
            (String::new(), "no route"),
        ] {
            let RestError::NotFound(m) = get(&h, &path).unwrap_err();
            assert!(m.contains(words), "{path}: {m}");
        }
    }
}
