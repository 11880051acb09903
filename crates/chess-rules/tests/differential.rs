//! Differential test against `cozy-chess` (MIT, an independent move generator): on tens of
//! thousands of positions reached by seeded random playouts from the 6,838 perft-random
//! positions, both must agree on the legal moves, check, mate and stalemate, the move
//! counters, the FEN fields and whether an en passant capture is legal. SAN written by us
//! must read back to the same move and be unique among the legal moves, and the fast
//! `is_legal` must agree with the generated moves on every candidate move.

mod common;

use std::collections::BTreeSet;
use std::time::Instant;

use chess_rules::{Move, Position, Role, Square, Status};

/// A small deterministic generator (xorshift64*): the test needs no `rand`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn cozy_moves(board: &cozy_chess::Board) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    board.generate_moves(|moves| {
        for mv in moves {
            out.insert(cozy_chess::util::display_uci_move(board, mv).to_string());
        }
        false
    });
    out
}

fn compare(pos: &Position) -> usize {
    let fen = pos.fen();
    let cozy: cozy_chess::Board = cozy_chess::Board::from_fen(&fen, false)
        .unwrap_or_else(|e| panic!("cozy-chess refuses our FEN {fen}: {e:?}"));
    let ours: BTreeSet<String> = pos.legal_moves().map(|m| m.uci()).collect();
    assert_eq!(ours, cozy_moves(&cozy), "legal moves differ in {fen}");
    assert_eq!(pos.is_check(), !cozy.checkers().is_empty(), "{fen}");
    let cozy_status = match cozy.status() {
        cozy_chess::GameStatus::Won => Status::Checkmate,
        cozy_chess::GameStatus::Drawn if ours.is_empty() => Status::Stalemate,
        _ => Status::Ongoing,
    };
    assert_eq!(pos.status(), cozy_status, "{fen}");
    // Same FEN text (cozy writes the en passant file only when a capture is possible...
    // compare everything but that field, then the legality of the capture).
    let cozy_fen = cozy.to_string();
    let field = |s: &str, i: usize| s.split(' ').nth(i).unwrap_or_default().to_owned();
    for i in [0, 1, 2, 4, 5] {
        assert_eq!(
            field(&fen, i),
            field(&cozy_fen, i),
            "FEN field {i}: {fen} vs {cozy_fen}"
        );
    }
    let cozy_ep_legal = cozy.en_passant().is_some_and(|file| {
        ours.iter().any(|m| {
            let to_file = m.as_bytes()[2];
            let from_file = m.as_bytes()[0];
            let rank = m.as_bytes()[3];
            to_file == b'a' + file as u8
                && from_file != to_file
                && (rank == b'6' || rank == b'3')
                && pos
                    .piece_at(m[0..2].parse().unwrap())
                    .is_some_and(|p| p.role == chess_rules::Role::Pawn)
                && pos.piece_at(m[2..4].parse().unwrap()).is_none()
        })
    });
    assert_eq!(pos.legal_en_passant().is_some(), cozy_ep_legal, "{fen}");
    // SAN: unique and read back.
    let mut sans = BTreeSet::new();
    for m in pos.legal_moves() {
        let san = pos.san(m).unwrap();
        assert_eq!(pos.parse_san(&san).unwrap(), m, "{san} in {fen}");
        assert!(sans.insert(san.clone()), "{san} twice in {fen}");
    }
    ours.len()
}

/// `is_legal` (a fast path that does not generate moves) against the generated legal
/// moves, for every from/to pair of the mover's pieces. Returns the pairs checked.
fn check_is_legal(pos: &Position) -> usize {
    let legal: BTreeSet<Move> = pos.legal_moves().collect();
    let mut n = 0;
    for (from, _) in pos
        .placement()
        .pieces()
        .filter(|(_, p)| p.color == pos.side_to_move())
    {
        for to in Square::all() {
            for promotion in [None, Some(Role::Queen), Some(Role::Knight)] {
                let m = Move::new(from, to, promotion);
                assert_eq!(pos.is_legal(m), legal.contains(&m), "{m} in {}", pos.fen());
                n += 1;
            }
        }
    }
    n
}

#[test]
fn agrees_with_cozy_chess() {
    let started = Instant::now();
    let text = test_data::read_text("perft/scalachess-random.perft");
    let starts: Vec<Position> = text
        .lines()
        .filter_map(|l| l.strip_prefix("epd "))
        .map(|epd| Position::from_epd(epd).unwrap())
        .collect();
    assert_eq!(starts.len(), 6_838);
    let mut rng = Rng(0x5EED_CAFE_F00D_D00D);
    let (mut positions, mut moves, mut pairs) = (0usize, 0usize, 0usize);
    for start in starts.iter().step_by(2) {
        let mut pos = *start;
        // A random walk of up to 12 plies.
        for _ in 0..12 {
            moves += compare(&pos);
            if positions % 8 == 0 {
                pairs += check_is_legal(&pos);
            }
            positions += 1;
            let legal: Vec<_> = pos.legal_moves().collect();
            if legal.is_empty() {
                break;
            }
            pos = pos.play(legal[rng.below(legal.len())]).unwrap();
        }
    }
    assert!(positions > 30_000, "{positions}");
    common::report(
        "cozy-chess differential",
        &format!(
            "{positions} positions, {moves} legal moves (each with SAN written and read back), \
             is_legal checked on {pairs} candidate moves"
        ),
        started,
    );
}
