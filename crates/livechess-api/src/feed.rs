//! One WebSocket connection: [`Session`] answers its requests and keeps its
//! subscriptions; a [`Subscription`] turns successive [`BoardState`]s of one e-board
//! into feed messages.
//!
//! The feed's rules (as LiveChess and its consumers have them):
//! - the first message after `subscribe` carries the full state (`serialnr`, `flipped`,
//!   `board`, `clock`, the last possibly null); later ones carry `serialnr` and
//!   `flipped` and only the fields that changed; nothing changed, no message. The daemon
//!   calls [`Session::refresh`] on every change it sees (a lift and a place are two).
//! - after a `setup` with a FEN, every message also carries `san`: the SAN moves of the
//!   board's current game from the first position that equals the FEN (placement and
//!   side to move), cumulative. The moves are the arbiter's record, so an illegal move
//!   never appears (nor does anything while a position is being restored); a move
//!   taken back or amended changes the list, which stays a list of legal moves from the
//!   setup position. A game that never reaches the setup position sends `[]`; a new
//!   game on the board (set up again) is searched afresh.

use chess_rules::{Color, Placement, Position};
use serde::Serialize;

use crate::protocol::{call_reply, error_reply, feed_message, parse_request, Call, Id};
use crate::view::{BoardState, Clock, GameView};

/// Bad requests in a row after which the connection is closed (garbage flooding).
pub const MAX_BAD_IN_A_ROW: u32 = 32;

/// Subscriptions one connection may hold.
pub const MAX_SUBSCRIPTIONS: usize = 64;

/// What to send on the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    /// A text frame.
    Text(String),
    /// Close the connection, saying why (after the frames before it).
    Close(String),
}

/// What was last sent on a feed.
#[derive(Debug, Clone)]
struct Sent {
    serialnr: String,
    flipped: bool,
    board: String,
    clock: Option<Clock>,
    san: Option<Vec<String>>,
}

/// Where the `san` list starts: ply `index` of game `game`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    game: u32,
    index: usize,
}

#[derive(Debug, Clone)]
struct Setup {
    placement: Placement,
    side: Color,
    anchor: Option<Anchor>,
    /// Not yet reported on the feed.
    fresh: bool,
}

/// A `setup` FEN that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("setup: {0}")]
pub struct SetupError(String);

impl Setup {
    fn new(fen: &str) -> Result<Setup, SetupError> {
        let mut fields = fen.split_whitespace();
        let placement = fields.next().unwrap_or("");
        let placement = Placement::from_fen_field(placement)
            .map_err(|e| SetupError(format!("the FEN's placement {placement:?}: {e}")))?;
        let side = match fields.next() {
            None | Some("w") => Color::White,
            Some("b") => Color::Black,
            Some(other) => {
                return Err(SetupError(format!(
                    "the FEN's side to move is w or b, not {other:?}"
                )))
            }
        };
        Ok(Setup {
            placement,
            side,
            anchor: None,
            fresh: true,
        })
    }

    fn matches(&self, p: &Position) -> bool {
        *p.placement() == self.placement && p.side_to_move() == self.side
    }

    /// The SAN list of `game` from the setup position (see the module documentation).
    fn san(&mut self, game: &GameView) -> Vec<String> {
        // The game's positions: start, then after each recorded move (a move that does
        // not replay ends the list: only what is certain is shown).
        let mut positions = Vec::with_capacity(game.moves.len() + 1);
        // A Chess960 start's X-FEN is no standard FEN (rights naming rooks off the corners).
        let start = Position::from_fen(&game.start_fen)
            .or_else(|_| Position::from_fen_960(&game.start_fen));
        if let Ok(start) = start {
            positions.push(start);
            for m in &game.moves {
                let Some(next) = positions.last().and_then(|p| p.play(m.uci).ok()) else {
                    break;
                };
                positions.push(next);
            }
        }
        let still = self.anchor.filter(|a| {
            a.game == game.number && positions.get(a.index).is_some_and(|p| self.matches(p))
        });
        self.anchor = still.or_else(|| {
            // The latest matching position: a setup sent mid-game names where it stands.
            positions
                .iter()
                .rposition(|p| self.matches(p))
                .map(|index| Anchor {
                    game: game.number,
                    index,
                })
        });
        match self.anchor {
            Some(a) => game.moves[a.index..positions.len() - 1]
                .iter()
                .map(|m| m.san.clone())
                .collect(),
            None => Vec::new(),
        }
    }
}

#[derive(Serialize)]
struct FeedParam<'a> {
    serialnr: &'a str,
    flipped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    board: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clock: Option<Option<&'a Clock>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    san: Option<&'a [String]>,
}

/// One `eboardevent` feed.
#[derive(Debug, Clone)]
pub struct Subscription {
    feed: Id,
    board: u32,
    sent: Option<Sent>,
    setup: Option<Setup>,
}

impl Subscription {
    /// Feed `feed` following board number `board`.
    pub fn new(feed: Id, board: u32) -> Subscription {
        Subscription {
            feed,
            board,
            sent: None,
            setup: None,
        }
    }

    /// The board number it follows.
    pub fn board(&self) -> u32 {
        self.board
    }

    /// `setup` with this FEN: the next message and every later one carry `san`.
    pub fn setup(&mut self, fen: &str) -> Result<(), SetupError> {
        self.setup = Some(Setup::new(fen)?);
        Ok(())
    }

    /// The message this state calls for, if any (see the module documentation).
    pub fn update(&mut self, state: &BoardState, time_ms: u64) -> Option<String> {
        let e = &state.eboard;
        let san = self.setup.as_mut().map(|s| s.san(&state.game));
        let fresh_setup = self.setup.as_ref().is_some_and(|s| s.fresh);
        let text = match &self.sent {
            None => feed_message(
                &self.feed,
                FeedParam {
                    serialnr: &e.serialnr,
                    flipped: e.flipped,
                    board: Some(&e.board),
                    clock: Some(e.clock.as_ref()),
                    san: san.as_deref(),
                },
                time_ms,
            ),
            Some(last) => {
                let board = (last.board != e.board).then_some(e.board.as_str());
                let clock = (last.clock != e.clock).then_some(e.clock.as_ref());
                let san_changed = last.san != san || fresh_setup;
                let meta_changed = last.serialnr != e.serialnr || last.flipped != e.flipped;
                if board.is_none() && clock.is_none() && !san_changed && !meta_changed {
                    return None;
                }
                feed_message(
                    &self.feed,
                    FeedParam {
                        serialnr: &e.serialnr,
                        flipped: e.flipped,
                        board,
                        clock,
                        // After a setup every message carries the list.
                        san: san.as_deref(),
                    },
                    time_ms,
                )
            }
        };
        if let Some(s) = self.setup.as_mut() {
            s.fresh = false;
        }
        self.sent = Some(Sent {
            serialnr: e.serialnr.clone(),
            flipped: e.flipped,
            board: e.board.clone(),
            clock: e.clock,
            san,
        });
        Some(text)
    }
}

/// One connection's state.
#[derive(Debug, Default)]
pub struct Session {
    subscriptions: Vec<Subscription>,
    bad_in_a_row: u32,
}

/// The board a subscription names: its serial number or its board number.
fn find<'a>(boards: &'a [BoardState], serialnr: &str) -> Option<&'a BoardState> {
    boards
        .iter()
        .find(|b| b.eboard.serialnr == serialnr)
        .or_else(|| boards.iter().find(|b| b.number.to_string() == serialnr))
}

impl Session {
    pub fn new() -> Session {
        Session::default()
    }

    /// The board numbers its feeds follow.
    pub fn boards(&self) -> impl Iterator<Item = u32> + '_ {
        self.subscriptions.iter().map(Subscription::board)
    }

    /// Answers one text frame, given every e-board now.
    pub fn receive(&mut self, text: &str, boards: &[BoardState], time_ms: u64) -> Vec<Outgoing> {
        let request = match parse_request(text) {
            Ok(r) => r,
            Err(e) => return self.bad(e.id(), &e.to_string(), time_ms),
        };
        let id = request.id;
        let mut out = Vec::new();
        match request.call {
            Call::Eboards => {
                let list: Vec<_> = boards.iter().map(|b| &b.eboard).collect();
                out.push(Outgoing::Text(call_reply(&id, list, time_ms)));
            }
            Call::Subscribe { feed, serialnr } => {
                let Some(board) = find(boards, &serialnr) else {
                    let known: Vec<&str> =
                        boards.iter().map(|b| b.eboard.serialnr.as_str()).collect();
                    return self.bad(
                        Some(&id),
                        &format!(
                            "request {id}: no e-board {serialnr:?} here (e-boards: {})",
                            known.join(", ")
                        ),
                        time_ms,
                    );
                };
                self.subscriptions.retain(|s| s.feed != feed);
                if self.subscriptions.len() >= MAX_SUBSCRIPTIONS {
                    return self.bad(
                        Some(&id),
                        &format!("request {id}: at most {MAX_SUBSCRIPTIONS} feeds per connection"),
                        time_ms,
                    );
                }
                let mut sub = Subscription::new(feed, board.number);
                out.push(Outgoing::Text(call_reply(&id, (), time_ms)));
                out.extend(sub.update(board, time_ms).map(Outgoing::Text));
                self.subscriptions.push(sub);
            }
            Call::Unsubscribe { feed } => {
                let before = self.subscriptions.len();
                self.subscriptions.retain(|s| s.feed != feed);
                if self.subscriptions.len() == before {
                    return self.bad(Some(&id), &format!("request {id}: no feed {feed}"), time_ms);
                }
                out.push(Outgoing::Text(call_reply(&id, (), time_ms)));
            }
            Call::Setup { feed, fen } => {
                let Some(sub) = self.subscriptions.iter_mut().find(|s| s.feed == feed) else {
                    return self.bad(
                        Some(&id),
                        &format!("request {id}: no feed {feed}: subscribe first"),
                        time_ms,
                    );
                };
                if let Err(e) = sub.setup(&fen) {
                    return self.bad(Some(&id), &format!("request {id}: {e}"), time_ms);
                }
                out.push(Outgoing::Text(call_reply(&id, (), time_ms)));
                if let Some(board) = boards.iter().find(|b| b.number == sub.board) {
                    out.extend(sub.update(board, time_ms).map(Outgoing::Text));
                }
            }
        }
        self.bad_in_a_row = 0;
        out
    }

    fn bad(&mut self, id: Option<&Id>, message: &str, time_ms: u64) -> Vec<Outgoing> {
        self.bad_in_a_row += 1;
        let mut out = vec![Outgoing::Text(error_reply(id, message, time_ms))];
        if self.bad_in_a_row >= MAX_BAD_IN_A_ROW {
            out.push(Outgoing::Close(format!(
                "{MAX_BAD_IN_A_ROW} bad requests in a row"
            )));
        }
        out
    }

    /// The feed messages the boards' states now call for.
    pub fn refresh(&mut self, boards: &[BoardState], time_ms: u64) -> Vec<String> {
        let mut out = Vec::new();
        for sub in &mut self.subscriptions {
            if let Some(board) = boards.iter().find(|b| b.number == sub.board) {
                out.extend(sub.update(board, time_ms));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
