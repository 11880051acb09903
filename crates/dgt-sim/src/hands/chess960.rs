//! Chess960 games to play on an emulated board (the demo's `--variant chess960`, the
//! end-to-end tests): real 960 start positions, both players castling at once, then quiet
//! moves. The castling itself is made by the hands in one of the physical ways of
//! Guidelines II.3 (see `motion.rs`).

use chess_rules::{CastleSide, Move, Position};

use super::GameInput;

/// The first start position from `from` (wrapping past 959) where both players can castle
/// king's side on their first move, and a game from it: both castle, then `quiet` moves
/// (no capture, no promotion, none that leaves the opponent without a move: the game must
/// not end) picked by a fixed pseudo-random sequence from `seed`. Returns the position's
/// number with the game; `None` if no start allows it.
pub fn chess960_game(from: u16, quiet: usize, seed: u64) -> Option<(u16, GameInput)> {
    (0..960u16).find_map(|k| {
        let n = (from % 960 + k) % 960;
        let start = Position::start_960(n).ok()?;
        let white = start.castling_move(CastleSide::KingSide)?;
        let after = start.play(white).ok()?;
        let black = after.castling_move(CastleSide::KingSide)?;
        let mut pos = after.play(black).ok()?;
        let mut moves = vec![white, black];
        let mut state = seed ^ (0x960 + u64::from(n));
        for _ in 0..quiet {
            let candidates: Vec<Move> = pos
                .legal_moves()
                .filter(|m| pos.piece_at(m.to).is_none() && m.promotion.is_none())
                .filter(|&m| pos.play(m).is_ok_and(|p| p.legal_moves().next().is_some()))
                .collect();
            if candidates.is_empty() {
                return None;
            }
            // A linear congruential step (Knuth's MMIX constants): the same seed, the same game.
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = candidates[(state >> 33) as usize % candidates.len()];
            pos = pos.play(m).ok()?;
            moves.push(m);
        }
        Some((n, GameInput::new(start, moves).ok()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_960_game_castles_on_both_sides_first_and_is_the_same_for_a_seed() {
        let (n, game) = chess960_game(0, 20, 7).expect("a start where both castle at once");
        assert_eq!(game.moves.len(), 22);
        let start = Position::start_960(n).unwrap();
        assert_eq!(game.start, start);
        assert_ne!(n, 518, "king and rook side by side are no standard start");
        assert_eq!(start.castle_side(game.moves[0]), Some(CastleSide::KingSide));
        let after = start.play(game.moves[0]).unwrap();
        assert_eq!(after.castle_side(game.moves[1]), Some(CastleSide::KingSide));
        assert_eq!(chess960_game(0, 20, 7).unwrap().1.moves, game.moves);
        assert_ne!(chess960_game(0, 20, 8).unwrap().1.moves, game.moves);
        // Another start further on.
        let (m, _) = chess960_game(n + 1, 4, 7).unwrap();
        assert_ne!(m, n);
    }
}
