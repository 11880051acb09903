//! The illegal-move classifier on positions from real games (TWIC 2025, shared/data/pgn):
//! at every sampled position, every legal move is recognised as that move, every legal
//! promotion left as a pawn is `unpromoted_pawn`, every move of the right shape that leaves
//! the king in check is `king_in_check`, and every move a piece cannot make by its rules
//! is `piece_movement` (or `castling` / `en_passant` for those shapes) — each with the
//! attempt named and restore steps that rebuild the position exactly.

mod common;

use std::time::Instant;

use chess_rules::{
    read_pgn, Attempt, Classification, IllegalCategory, Move, Placement, Position, RestoreStep,
    Role, Square,
};

fn apply_steps(mut board: Placement, steps: &[RestoreStep]) -> Placement {
    for step in steps {
        match *step {
            RestoreStep::Remove { square, piece } => {
                assert_eq!(board.get(square), Some(piece), "{step:?}");
                board.set(square, None);
            }
            RestoreStep::Put { square, piece } => {
                assert_eq!(board.get(square), None, "{step:?}");
                board.set(square, Some(piece));
            }
        }
    }
    board
}

/// The placement after picking up the piece on `from` and putting it on `to` (capturing
/// what stands there), nothing else.
fn lift_and_place(pos: &Position, from: Square, to: Square) -> Placement {
    let mut pl = *pos.placement();
    let piece = pl.get(from);
    pl.set(from, None);
    pl.set(to, piece);
    pl
}

#[derive(Default)]
struct Tally {
    positions: usize,
    legal: usize,
    unpromoted: usize,
    king_in_check: usize,
    piece_movement: usize,
    castling: usize,
    en_passant: usize,
}

fn check_position(pos: &Position, tally: &mut Tally) {
    tally.positions += 1;
    let color = pos.side_to_move();
    for m in pos.legal_moves() {
        let after = pos.play(m).unwrap();
        assert_eq!(
            pos.classify(after.placement(), &[m.from]),
            Classification::Legal(m),
            "{m} in {}",
            pos.fen()
        );
        tally.legal += 1;
        if m.promotion == Some(Role::Queen) {
            let mut pl = *after.placement();
            pl.set(m.to, pos.piece_at(m.from));
            match pos.classify(&pl, &[]) {
                Classification::UnpromotedPawn {
                    correction,
                    restore,
                } => {
                    assert_eq!(correction, m);
                    assert_eq!(apply_steps(pl, &restore), *after.placement());
                }
                other => panic!("{m} unpromoted in {}: {other:?}", pos.fen()),
            }
            tally.unpromoted += 1;
        }
    }
    for (from, piece) in pos.placement().pieces().filter(|(_, p)| p.color == color) {
        for to in Square::all() {
            if to == from || pos.piece_at(to).is_some_and(|p| p.color == color) {
                continue;
            }
            let promotes = piece.role == Role::Pawn && to.rank() == color.promotion_rank();
            let m = Move::new(from, to, promotes.then_some(Role::Queen));
            if pos.is_legal(m) {
                continue;
            }
            let observed = lift_and_place(pos, from, to);
            let Classification::Illegal {
                category,
                attempt,
                restore,
            } = pos.classify(&observed, &[from])
            else {
                panic!("{piece}{from}{to} in {} is not illegal", pos.fen());
            };
            assert_eq!(apply_steps(observed, &restore), *pos.placement());
            assert_eq!(
                attempt,
                Some(Attempt { from, to, piece }),
                "{piece}{from}{to} in {}",
                pos.fen()
            );
            let castle_shape = pos.castle_side(Move::new(from, to, None)).is_some();
            let diagonal_to_empty =
                piece.role == Role::Pawn && from.file() != to.file() && pos.piece_at(to).is_none();
            let expected = if castle_shape {
                IllegalCategory::Castling
            } else if diagonal_to_empty && pos.is_pseudo_legal(m) {
                // The en passant target square, but the capture is not legal (pinned).
                IllegalCategory::EnPassant
            } else if pos.is_pseudo_legal(m) {
                IllegalCategory::KingInCheck
            } else if diagonal_to_empty
                && from.rank().index().abs_diff(to.rank().index()) == 1
                && from.file().index().abs_diff(to.file().index()) == 1
                && pos
                    .piece_at(Square::new(to.file(), from.rank()))
                    .is_some_and(|p| p.role == Role::Pawn && p.color != color)
                && (to.rank().index() as i8 - from.rank().index() as i8)
                    == if color == chess_rules::Color::White {
                        1
                    } else {
                        -1
                    }
            {
                // A diagonal step past an enemy pawn: an en passant attempt out of time.
                IllegalCategory::EnPassant
            } else {
                IllegalCategory::PieceMovement
            };
            assert_eq!(category, expected, "{piece}{from}{to} in {}", pos.fen());
            match category {
                IllegalCategory::KingInCheck => tally.king_in_check += 1,
                IllegalCategory::PieceMovement => tally.piece_movement += 1,
                IllegalCategory::Castling => tally.castling += 1,
                IllegalCategory::EnPassant => tally.en_passant += 1,
                _ => {}
            }
        }
    }
}

#[test]
fn classifier_on_positions_from_real_games() {
    if !test_data::have("pgn/shakmaty-pgn-reader-benches/twic1599_1000k.pgn") {
        return;
    }
    let started = Instant::now();
    let games = read_pgn(&test_data::read(
        "pgn/shakmaty-pgn-reader-benches/twic1599_1000k.pgn",
    ))
    .unwrap();
    let mut tally = Tally::default();
    // Every 7th position of the first 150 games (openings, middlegames, endgames).
    for pgn in games.iter().take(150) {
        let game = pgn.replay().unwrap();
        for pos in game.positions().iter().step_by(7) {
            check_position(pos, &mut tally);
        }
    }
    // Positions rich in promotions, castling and en passant.
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "8/8/8/K2pP2r/8/8/8/7k w - d6 0 3",
    ] {
        check_position(&Position::from_fen(fen).unwrap(), &mut tally);
    }
    assert!(tally.positions > 1000, "{}", tally.positions);
    assert!(tally.unpromoted > 0 && tally.castling > 0 && tally.en_passant > 0);
    common::report(
        "classifier",
        &format!(
            "{} positions: {} legal, {} unpromoted, {} king_in_check, {} piece_movement, {} castling, {} en_passant",
            tally.positions,
            tally.legal,
            tally.unpromoted,
            tally.king_in_check,
            tally.piece_movement,
            tally.castling,
            tally.en_passant
        ),
        started,
    );
}
