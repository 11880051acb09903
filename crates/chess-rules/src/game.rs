//! [`Game`]: the record of a game (positions and moves from a start position), with the
//! FIDE draw rules that depend on history: repetition (art. 9.2), the 50-move claim (9.3),
//! and the automatic ends (checkmate, stalemate, fivefold, 75 moves; art. 5 and 9.6).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::position::{IllegalMoveError, Position, RepetitionKey, Status};
use crate::san::SanError;
use crate::types::{Color, Move};

/// A game's result as PGN writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    #[serde(rename = "1-0")]
    WhiteWins,
    #[serde(rename = "0-1")]
    BlackWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// Still going, or unknown.
    #[serde(rename = "*")]
    Ongoing,
}

impl GameResult {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Ongoing => "*",
        }
    }

    /// The result of a win by `winner`.
    pub fn win_for(winner: Color) -> GameResult {
        match winner {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Text that is not a PGN result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a game result: {0:?} (expected 1-0, 0-1, 1/2-1/2 or *)")]
pub struct ParseResultError(pub String);

impl FromStr for GameResult {
    type Err = ParseResultError;

    fn from_str(s: &str) -> Result<GameResult, ParseResultError> {
        match s {
            "1-0" => Ok(GameResult::WhiteWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Ok(GameResult::Draw),
            "*" => Ok(GameResult::Ongoing),
            _ => Err(ParseResultError(s.to_owned())),
        }
    }
}

/// Why a game ended, with the `reason` names of the JSON `game_over` event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Checkmate,
    Stalemate,
    DeadPosition,
    Fivefold,
    SeventyFiveMoves,
    SecondIllegalMove,
    Flag,
    Threefold,
    FiftyMoves,
    Resignation,
    Agreement,
    Arbiter,
    /// The players showed the result on the board by the DGT conventions (both kings on
    /// the centre squares, or a magic result piece).
    ResultOnBoard,
}

impl EndReason {
    /// Every reason, in declaration order.
    pub const ALL: [EndReason; 13] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::DeadPosition,
        EndReason::Fivefold,
        EndReason::SeventyFiveMoves,
        EndReason::SecondIllegalMove,
        EndReason::Flag,
        EndReason::Threefold,
        EndReason::FiftyMoves,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Arbiter,
        EndReason::ResultOnBoard,
    ];

    /// The snake_case name used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::DeadPosition => "dead_position",
            EndReason::Fivefold => "fivefold",
            EndReason::SeventyFiveMoves => "seventy_five_moves",
            EndReason::SecondIllegalMove => "second_illegal_move",
            EndReason::Flag => "flag",
            EndReason::Threefold => "threefold",
            EndReason::FiftyMoves => "fifty_moves",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Arbiter => "arbiter",
            EndReason::ResultOnBoard => "result_on_board",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An end of the game that the rules impose without anyone claiming it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AutomaticEnd {
    /// The side to move is checkmated; `winner` gave mate.
    Checkmate {
        winner: Color,
    },
    Stalemate,
    /// The same position for the fifth time (art. 9.6.1).
    Fivefold,
    /// 75 moves by each side without a pawn move or capture, and the last move was not
    /// mate (art. 9.6.2).
    SeventyFiveMoves,
}

impl AutomaticEnd {
    pub fn result(self) -> GameResult {
        match self {
            AutomaticEnd::Checkmate { winner } => GameResult::win_for(winner),
            _ => GameResult::Draw,
        }
    }

    pub fn reason(self) -> EndReason {
        match self {
            AutomaticEnd::Checkmate { .. } => EndReason::Checkmate,
            AutomaticEnd::Stalemate => EndReason::Stalemate,
            AutomaticEnd::Fivefold => EndReason::Fivefold,
            AutomaticEnd::SeventyFiveMoves => EndReason::SeventyFiveMoves,
        }
    }
}

/// A draw the player having the move may claim (art. 9.2, 9.3), as the JSON
/// `draw_claimable` event reports it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum DrawClaim {
    /// The position (now, or after the intended move) stands for the third time or more;
    /// `plies` are the game plies after which it stood, oldest first (0 = the start).
    Threefold { plies: Vec<u32> },
    /// 50 moves by each side without a pawn move or capture (now, or after the intended
    /// move).
    FiftyMoves,
}

/// The record of one game: the start position, every move, every position.
#[derive(Debug, Clone)]
pub struct Game {
    positions: Vec<Position>,
    /// The Zobrist hash of each position's repetition key: compared before the keys
    /// themselves (which are rebuilt from `positions` only on a hash match).
    hashes: Vec<u64>,
    moves: Vec<Move>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new(Position::start())
    }
}

/// Plies a new [`Game`] has room for before it grows.
const GAME_PLIES_RESERVED: usize = 127;

/// Plies in 50 moves by each side (art. 9.3).
pub const FIFTY_MOVES_PLIES: u32 = 100;
/// Plies in 75 moves by each side (art. 9.6.2).
pub const SEVENTY_FIVE_MOVES_PLIES: u32 = 150;

impl Game {
    /// A game starting from `start`.
    pub fn new(start: Position) -> Game {
        // Room for a game of usual length up front: growing the positions one doubling at
        // a time copied the whole game each time (a sixth of `play_with_san` in the
        // pipeline bench; a game of 65-128 plies ends with this capacity anyway).
        let mut positions = Vec::with_capacity(GAME_PLIES_RESERVED + 1);
        let mut hashes = Vec::with_capacity(GAME_PLIES_RESERVED + 1);
        hashes.push(start.repetition_hash());
        positions.push(start);
        Game {
            hashes,
            positions,
            moves: Vec::with_capacity(GAME_PLIES_RESERVED),
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        // Never empty: `new` puts the start position in.
        &self.positions[self.positions.len() - 1]
    }

    /// Every position, the start first; `positions()[i]` stood after `i` moves.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The game ply after which `positions()[index]` stood (the start position's own ply
    /// count for index 0: 0 for the standard start).
    pub fn ply_of(&self, index: usize) -> u32 {
        self.start().plies() + u32::try_from(index).unwrap_or(u32::MAX)
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) -> Result<&Position, IllegalMoveError> {
        let next = self.position().play(m)?;
        self.push(m, next);
        Ok(self.position())
    }

    /// Plays a legal move and returns its SAN (checking legality once, playing it once).
    pub fn play_with_san(&mut self, m: Move) -> Result<String, IllegalMoveError> {
        let (san, next) = self.position().san_and_play(m)?;
        self.push(m, next);
        Ok(san)
    }

    /// Reads a SAN move (leniently, see [`Position::parse_san`]) and plays it.
    pub fn play_san(&mut self, san: &str) -> Result<Move, SanError> {
        let m = self.position().parse_san(san)?;
        let next = self.position().apply(m);
        self.push(m, next);
        Ok(m)
    }

    pub(crate) fn push(&mut self, m: Move, next: Position) {
        self.hashes.push(next.repetition_hash());
        self.positions.push(next);
        self.moves.push(m);
    }

    /// Takes back the last move (an illegal move found late, a takeback); `None` at the
    /// start.
    pub fn pop(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.hashes.pop();
        Some(m)
    }

    /// The SAN of every move played.
    pub fn san_moves(&self) -> Vec<String> {
        self.moves
            .iter()
            .zip(&self.positions)
            .map(|(&m, p)| p.san_and_apply(m).0)
            .collect()
    }

    /// The indices (into `positions()`) before `last` where the position `key` stood,
    /// oldest first. Only positions with the same side to move since the last pawn move or
    /// capture (`halfmove_clock` plies back) can be the same.
    fn occurrences(
        &self,
        key: &RepetitionKey,
        hash: u64,
        last: usize,
        halfmove_clock: u32,
    ) -> Vec<usize> {
        let mut found: Vec<usize> = self
            .candidates(last, halfmove_clock)
            .filter(|&i| self.hashes[i] == hash && self.key(i) == *key)
            .collect();
        found.reverse();
        found
    }

    /// The repetition key of `positions()[i]`.
    fn key(&self, i: usize) -> RepetitionKey {
        self.positions[i].repetition_key()
    }

    /// The indices before `last` that can hold the same position as `last` by the
    /// halfmove clock (same side to move, no pawn move or capture since), newest first.
    fn candidates(&self, last: usize, halfmove_clock: u32) -> impl Iterator<Item = usize> {
        let window = usize::try_from(halfmove_clock).unwrap_or(usize::MAX);
        let first = last.saturating_sub(window);
        (first..last.saturating_sub(1)).rev().step_by(2)
    }

    /// The game plies after which the current position stood, oldest first, including now.
    pub fn repetitions(&self) -> Vec<u32> {
        let last = self.positions.len() - 1;
        let clock = self.position().halfmove_clock();
        let mut idx = self.occurrences(&self.key(last), self.hashes[last], last, clock);
        idx.push(last);
        idx.into_iter().map(|i| self.ply_of(i)).collect()
    }

    /// How many times the current position has stood (1 the first time).
    pub fn repetition_count(&self) -> usize {
        let last = self.positions.len() - 1;
        let hash = self.hashes[last];
        // The key is built only if a hash matches (rarely: most positions are new).
        let mut key = None;
        self.candidates(last, self.position().halfmove_clock())
            .filter(|&i| {
                self.hashes[i] == hash && self.key(i) == *key.get_or_insert_with(|| self.key(last))
            })
            .count()
            + 1
    }

    /// A threefold claim the side to move could make now (the current position stands
    /// for at least the third time).
    pub fn threefold_claim(&self) -> Option<DrawClaim> {
        // Counted first: the plies are only listed (allocated) for a claim.
        (self.repetition_count() >= 3).then(|| DrawClaim::Threefold {
            plies: self.repetitions(),
        })
    }

    /// A threefold claim the side to move could make by writing down `m` (the position
    /// after it would stand for at least the third time). `None` if `m` is illegal.
    pub fn threefold_claim_after(&self, m: Move) -> Option<DrawClaim> {
        let next = self.position().play(m).ok()?;
        let last = self.positions.len();
        let key = next.repetition_key();
        let mut idx = self.occurrences(&key, key.zobrist(), last, next.halfmove_clock());
        idx.push(last);
        (idx.len() >= 3).then(|| DrawClaim::Threefold {
            plies: idx.into_iter().map(|i| self.ply_of(i)).collect(),
        })
    }

    /// Every move the side to move could write down to claim a threefold repetition (the
    /// position after it would stand for at least the third time), with its claim, in the
    /// order of [`Position::legal_moves`]: the same as asking
    /// [`Game::threefold_claim_after`] of every legal move, but cheap when no claim exists.
    ///
    /// Why skipping is sound: a claim after `m` needs two earlier positions equal to the
    /// one after `m` among those with the opponent to move since the last irreversible
    /// move (a capture or pawn move resets the halfmove clock, leaving no earlier
    /// candidates). Two equal positions have equal Zobrist hashes, so unless two of those
    /// earlier positions share a hash, no move can lead to a claim and no move is tried.
    pub fn threefold_claims_by_move(&self) -> Vec<(Move, DrawClaim)> {
        let pos = self.position();
        // The position after a reversible move stands at index `next` with the clock one
        // more; its candidates are those `occurrences` would look at.
        let next = self.positions.len();
        let clock = pos.halfmove_clock().saturating_add(1);
        let repeated = self.candidates(next, clock).enumerate().any(|(j, i)| {
            self.candidates(next, clock)
                .skip(j + 1)
                .any(|k| self.hashes[k] == self.hashes[i])
        });
        if !repeated {
            return Vec::new();
        }
        pos.legal_moves()
            .filter_map(|m| self.threefold_claim_after(m).map(|c| (m, c)))
            .collect()
    }

    /// Can the side to move claim under the 50-move rule now?
    pub fn fifty_move_claim(&self) -> bool {
        self.position().halfmove_clock() >= FIFTY_MOVES_PLIES
    }

    /// Could the side to move claim under the 50-move rule by writing down `m`?
    pub fn fifty_move_claim_after(&self, m: Move) -> bool {
        self.position()
            .play(m)
            .is_ok_and(|next| next.halfmove_clock() >= FIFTY_MOVES_PLIES)
    }

    /// Every draw the side to move may claim now (not counting claims with an intended
    /// move).
    pub fn claims(&self) -> Vec<DrawClaim> {
        let mut out = Vec::new();
        if let Some(c) = self.threefold_claim() {
            out.push(c);
        }
        if self.fifty_move_claim() {
            out.push(DrawClaim::FiftyMoves);
        }
        out
    }

    /// The end the rules impose now, if any: checkmate (which takes precedence over the
    /// 75-move rule), stalemate, fivefold repetition, or 75 moves. A dead position needs a
    /// search and is asked separately ([`Position::dead_position`]).
    pub fn automatic_end(&self) -> Option<AutomaticEnd> {
        let pos = self.position();
        match pos.status() {
            Status::Checkmate => {
                return Some(AutomaticEnd::Checkmate {
                    winner: pos.side_to_move().opponent(),
                })
            }
            Status::Stalemate => return Some(AutomaticEnd::Stalemate),
            Status::Ongoing => {}
        }
        if self.repetition_count() >= 5 {
            return Some(AutomaticEnd::Fivefold);
        }
        if pos.halfmove_clock() >= SEVENTY_FIVE_MOVES_PLIES {
            return Some(AutomaticEnd::SeventyFiveMoves);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(game: &mut Game, sans: &str) {
        for san in sans.split_whitespace() {
            game.play_san(san).unwrap();
        }
    }

    #[test]
    fn threefold_and_fivefold_by_knight_shuffles() {
        let mut g = Game::default();
        assert_eq!(g.repetition_count(), 1);
        play_all(&mut g, "Nf3 Nf6 Ng1 Ng8");
        assert_eq!(g.repetitions(), vec![0, 4]);
        assert_eq!(g.threefold_claim(), None);
        play_all(&mut g, "Nf3 Nf6 Ng1");
        // Black may claim by writing down Ng8: the start position a third time.
        let ng8 = g.position().parse_san("Ng8").unwrap();
        assert_eq!(
            g.threefold_claim_after(ng8),
            Some(DrawClaim::Threefold {
                plies: vec![0, 4, 8]
            })
        );
        play_all(&mut g, "Ng8");
        assert_eq!(g.repetition_count(), 3);
        assert!(g.threefold_claim().is_some());
        assert_eq!(g.automatic_end(), None);
        play_all(&mut g, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
        assert_eq!(g.repetition_count(), 5);
        assert_eq!(g.automatic_end(), Some(AutomaticEnd::Fivefold));
        assert_eq!(AutomaticEnd::Fivefold.result(), GameResult::Draw);
    }

    /// Every position of real games (the repetition-rich pychess files and 150 world
    /// championship games): the filtered claim search finds exactly what asking every legal
    /// move finds, and the hashed repetition count is the plain count of equal keys.
    #[test]
    fn claims_by_move_match_asking_every_move_in_real_games() {
        if !test_data::have("pgn/pychess-gamefiles") {
            return;
        }
        let mut games = Vec::new();
        for file in [
            "3fold.pgn",
            "threefold.pgn",
            "draw.pgn",
            "50.pgn",
            "50halfmoves.pgn",
            "world_matches.pgn",
        ] {
            let bytes = test_data::read(format!("pgn/pychess-gamefiles/{file}"));
            games.extend(crate::read_pgn(&bytes).unwrap().into_iter().take(150));
        }
        let (mut claims, mut positions) = (0, 0);
        for pgn in &games {
            let Ok(full) = pgn.replay() else { continue };
            let mut g = Game::new(*full.start());
            for &m in full.moves() {
                g.play(m).unwrap();
                positions += 1;
                let brute: Vec<(Move, DrawClaim)> = g
                    .position()
                    .legal_moves()
                    .filter_map(|m| g.threefold_claim_after(m).map(|c| (m, c)))
                    .collect();
                assert_eq!(g.threefold_claims_by_move(), brute, "{:?}", g.position());
                claims += brute.len();
                let keys: Vec<RepetitionKey> =
                    g.positions().iter().map(Position::repetition_key).collect();
                let last = keys.len() - 1;
                let plain = keys.iter().filter(|k| **k == keys[last]).count();
                let since = g.position().halfmove_clock() as usize;
                let window = keys[last.saturating_sub(since)..]
                    .iter()
                    .rev()
                    .step_by(2)
                    .filter(|k| **k == keys[last])
                    .count();
                assert_eq!(g.repetition_count(), window);
                assert!(window <= plain);
            }
        }
        assert!(positions > 10_000, "only {positions} positions");
        assert!(
            claims > 0,
            "no claim by an intended move in {positions} positions"
        );
    }

    #[test]
    fn lost_castling_rights_make_a_different_position() {
        // After Ke2 Ke7 Ke1 Ke8 the pieces stand as at the start, but castling rights are
        // gone: not a repetition of the start position.
        let mut g = Game::default();
        play_all(&mut g, "e4 e5 Ke2 Ke7 Ke1 Ke8");
        assert_eq!(g.repetition_count(), 1);
        play_all(&mut g, "Ke2 Ke7 Ke1 Ke8");
        assert_eq!(g.repetitions(), vec![6, 10]);
        // The king moves did not reset the 50-move count.
        assert_eq!(g.position().halfmove_clock(), 8);
    }

    #[test]
    fn an_illegal_en_passant_does_not_distinguish_positions() {
        // Black's pawn on d4 is pinned along the fourth rank by the rook on h4, so after
        // e2-e4 no en passant capture is legal: the position is the same as after a quiet
        // shuffle that leads to the same placement.
        let start = Position::from_fen("8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1").unwrap();
        let mut g = Game::new(start);
        play_all(&mut g, "e4 Ka5 Kd2 Ka4 Ke1 Ka5 Kd2 Ka4 Ke1");
        // Now Black to move, same placement as after 1. e4, which had an (illegal) ep target.
        assert_eq!(g.repetitions(), vec![1, 5, 9]);
        assert!(g.threefold_claim().is_some());
        // With the rook gone, the capture after e4 is legal and the first position differs.
        let start = Position::from_fen("8/8/8/8/k2p4/8/4P3/4K3 w - - 0 1").unwrap();
        let mut g = Game::new(start);
        play_all(&mut g, "e4 Ka5 Kd2 Ka4 Ke1 Ka5 Kd2 Ka4 Ke1");
        assert_eq!(g.repetitions(), vec![5, 9]);
        assert!(g.threefold_claim().is_none());
    }

    #[test]
    fn fifty_and_seventy_five_moves() {
        // Start with 98 plies already on the clock, a castling right to lose on the way.
        let start = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 98 80").unwrap();
        let mut g = Game::new(start);
        assert!(!g.fifty_move_claim());
        let ra2 = g.position().parse_san("Ra2").unwrap();
        assert!(!g.fifty_move_claim_after(ra2));
        play_all(&mut g, "Ra2");
        // Losing the castling right does not reset the count.
        assert_eq!(g.position().castling(), crate::CastlingRights::NONE);
        let kd7 = g.position().parse_san("Kd7").unwrap();
        assert!(g.fifty_move_claim_after(kd7));
        play_all(&mut g, "Kd7");
        assert!(g.fifty_move_claim());
        assert_eq!(g.claims(), vec![DrawClaim::FiftyMoves]);
        assert_eq!(g.automatic_end(), None);
        // A capture resets it.
        let start = Position::from_fen("4k3/8/8/8/8/8/r7/R3K3 w - - 149 80").unwrap();
        let mut g = Game::new(start);
        play_all(&mut g, "Rxa2");
        assert_eq!(g.position().halfmove_clock(), 0);
        let start = Position::from_fen("4k3/8/8/8/8/8/r7/R3K3 w - - 149 80").unwrap();
        let mut g = Game::new(start);
        play_all(&mut g, "Kf1");
        assert_eq!(g.automatic_end(), Some(AutomaticEnd::SeventyFiveMoves));
    }

    #[test]
    fn mate_on_the_75th_move_takes_precedence() {
        let start = Position::from_fen("7k/8/6K1/8/8/8/8/R7 w - - 149 120").unwrap();
        let mut g = Game::new(start);
        play_all(&mut g, "Ra8#");
        assert_eq!(g.position().halfmove_clock(), 150);
        assert_eq!(
            g.automatic_end(),
            Some(AutomaticEnd::Checkmate {
                winner: Color::White
            })
        );
    }

    #[test]
    fn stalemate_and_pop() {
        let start = Position::from_fen("7k/8/5K2/6Q1/8/8/8/8 w - - 0 1").unwrap();
        let mut g = Game::new(start);
        play_all(&mut g, "Qg6");
        assert_eq!(g.automatic_end(), Some(AutomaticEnd::Stalemate));
        assert_eq!(g.pop().map(|m| m.uci()), Some("g5g6".to_owned()));
        assert_eq!(g.pop(), None);
        assert_eq!(g.automatic_end(), None);
    }

    #[test]
    fn results_and_reasons_serialize_as_the_contract_says() {
        assert_eq!(
            serde_json::to_string(&GameResult::Draw).unwrap(),
            "\"1/2-1/2\""
        );
        assert_eq!(
            serde_json::to_string(&EndReason::SeventyFiveMoves).unwrap(),
            "\"seventy_five_moves\""
        );
        assert_eq!(
            serde_json::to_string(&EndReason::ResultOnBoard).unwrap(),
            "\"result_on_board\""
        );
        for r in EndReason::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{r}\""));
            assert_eq!(serde_json::from_str::<EndReason>(&json).unwrap(), r);
        }
        assert_eq!(
            serde_json::to_string(&DrawClaim::Threefold {
                plies: vec![1, 5, 9]
            })
            .unwrap(),
            r#"{"reason":"threefold","plies":[1,5,9]}"#
        );
        for r in ["1-0", "0-1", "1/2-1/2", "*"] {
            assert_eq!(r.parse::<GameResult>().unwrap().as_str(), r);
        }
    }
}
