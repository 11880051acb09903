//! The pairings of one round, read from the round's columns of the player lines.
//!
//! **Board order.** A TRF has no board numbers: a pairing program prints its pairings
//! sorted, and the engines write them in that order. The rule implemented here is FIDE's
//! (C.04.1 F "Final remarks", kept by the Dutch system C.04.3 and by JaVaFo's and
//! bbpPairings' output): the pairs are sorted by, in descending priority,
//! 1. the score of the higher-ranked player of the pair (higher first),
//! 2. the sum of the scores of both players (higher first),
//! 3. the start rank of the higher-ranked player (lower first),
//!
//! where a player's score is the sum of their results of the rounds before (win 1,
//! draw ½, forfeit win and full-point or pairing-allocated bye 1, half-point bye ½) and the
//! higher-ranked of two players is the one with more points, or with the same points the
//! lower start rank (the pairing number). Board 1 is the first pair.
//!
//! Pairs whose result is already a forfeit (`+`/`-`) or a game of less than one move
//! (`W`/`D`/`L`) keep their place (and number) in that order, as on the printed pairing
//! list, but are [`GameKind::NotPlayed`]: no board is needed for them. Players with no
//! opponent (byes, absences) are [`Unpaired`] and get no board number.

use crate::{round_column, Colour, Player, ResultCode, Trf, TrfError};

/// What a pair of the round needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameKind {
    /// A game on the board (its result may be blank or already entered).
    Played,
    /// Decided without a game (forfeit, or `W`/`D`/`L`): no board is set up.
    NotPlayed,
}

/// One pair of the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    /// 1-based, in the board order described in this module.
    pub board: u32,
    /// Start ranks.
    pub white: u16,
    pub black: u16,
    pub kind: GameKind,
    /// The result columns as the file has them now (blank before the round is played).
    pub white_result: ResultCode,
    pub black_result: ResultCode,
}

/// A player without an opponent in the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unpaired {
    pub start_rank: u16,
    /// `U` pairing-allocated bye, `F`/`H`/`Z` byes, blank absent, `+` a bye scored as a
    /// forfeit win, ...
    pub result: ResultCode,
}

/// The round's pairings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundPairings {
    pub round: u32,
    /// In board order.
    pub games: Vec<Game>,
    /// In start-rank order.
    pub unpaired: Vec<Unpaired>,
}

impl RoundPairings {
    /// The pair on board `board`.
    pub fn board(&self, board: u32) -> Option<&Game> {
        self.games.iter().find(|g| g.board == board)
    }
}

impl Trf {
    /// The pairings of round `round` (1-based). An error names the line and column of a
    /// player whose opponent does not name them back with the other colour.
    pub fn round(&self, round: u32) -> Result<RoundPairings, TrfError> {
        if round == 0 || round > self.rounds_in_file() {
            return Err(TrfError {
                line: 0,
                column: round_column(round),
                message: format!(
                    "round {round} is not in the file: its player lines have columns for \
                     rounds 1 to {} (is the round paired yet?)",
                    self.rounds_in_file()
                ),
            });
        }
        let mut pairs: Vec<(&Player, &Player)> = Vec::new();
        let mut unpaired = Vec::new();
        for p in &self.players {
            let e = p.entry(round);
            let Some(o) = e.opponent else {
                unpaired.push(Unpaired {
                    start_rank: p.start_rank,
                    result: e.result,
                });
                continue;
            };
            // check_references: every opponent is a player.
            let Some(opp) = self.player(o) else { continue };
            let back = opp.entry(round);
            let colours_ok = matches!(
                (e.colour, back.colour),
                (Colour::White, Colour::Black) | (Colour::Black, Colour::White)
            );
            if back.opponent != Some(p.start_rank) || !colours_ok {
                return Err(TrfError {
                    line: p.line,
                    column: round_column(round),
                    message: format!(
                        "round {round}: player {} is paired with {o} as {}, but line {} \
                         (player {o}) has opponent {} as {}; expected the two lines to name \
                         each other with opposite colours",
                        p.start_rank,
                        colour_word(e.colour),
                        opp.line,
                        back.opponent.unwrap_or(0),
                        colour_word(back.colour)
                    ),
                });
            }
            if e.colour == Colour::White {
                pairs.push((p, opp));
            }
        }
        let score = |p: &Player| p.tenths_before(round);
        let mut keyed: Vec<_> = pairs
            .into_iter()
            .map(|(w, b)| {
                let h = higher(w, b, round);
                let key = (
                    std::cmp::Reverse(score(h)),
                    std::cmp::Reverse(score(w) + score(b)),
                    h.start_rank,
                );
                (key, w, b)
            })
            .collect();
        keyed.sort_by_key(|(k, ..)| *k);
        let games = keyed
            .into_iter()
            .enumerate()
            .map(|(i, (_, w, b))| {
                let (wr, br) = (w.entry(round).result, b.entry(round).result);
                let not_played = [wr, br].iter().any(|r| {
                    matches!(
                        r,
                        ResultCode::ForfeitWin
                            | ResultCode::ForfeitLoss
                            | ResultCode::WinUnrated
                            | ResultCode::DrawUnrated
                            | ResultCode::LossUnrated
                    )
                });
                Game {
                    board: i as u32 + 1,
                    white: w.start_rank,
                    black: b.start_rank,
                    kind: if not_played {
                        GameKind::NotPlayed
                    } else {
                        GameKind::Played
                    },
                    white_result: wr,
                    black_result: br,
                }
            })
            .collect();
        unpaired.sort_by_key(|u| u.start_rank);
        Ok(RoundPairings {
            round,
            games,
            unpaired,
        })
    }
}

fn colour_word(c: Colour) -> &'static str {
    match c {
        Colour::White => "White",
        Colour::Black => "Black",
        Colour::None => "no colour",
    }
}

/// The higher-ranked of two players before `round`: more points, then the lower start
/// rank.
fn higher<'p>(a: &'p Player, b: &'p Player, round: u32) -> &'p Player {
    let key = |p: &Player| (p.tenths_before(round), std::cmp::Reverse(p.start_rank));
    if key(b) > key(a) {
        b
    } else {
        a
    }
}
