//! Chess960 differential test against `cozy-chess` (MIT, an independent generator that
//! plays Chess960 natively): from every one of the 960 start positions (ours built from
//! the Scharnagl number, cozy-chess's too), a seeded random playout; at every ply both must
//! agree on the legal moves (castling written as the king taking its rook by both), check
//! and the end, the castling rights with their rook files, and the other FEN fields. Our
//! X-FEN must read back to the same position, and cozy-chess's Shredder-FEN must read as
//! the same position too.

mod common;

use std::collections::BTreeSet;
use std::time::Instant;

use chess_rules::{CastleSide, Color, EnPassantField, File, Move, Position, Status};

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

/// cozy-chess's moves as it writes them: castling is the king taking its own rook.
fn cozy_moves(board: &cozy_chess::Board) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    board.generate_moves(|moves| {
        for mv in moves {
            out.insert(mv.to_string());
        }
        false
    });
    out
}

fn cozy_file(f: cozy_chess::File) -> File {
    File::from_index(f as u8).unwrap()
}

fn compare(pos: &Position, cozy: &cozy_chess::Board) -> BTreeSet<String> {
    let fen = pos.fen();
    let shredder = format!("{cozy:#}");
    let ours: BTreeSet<String> = pos.legal_moves().map(|m| m.uci()).collect();
    assert_eq!(
        ours,
        cozy_moves(cozy),
        "legal moves differ in {fen} ({shredder})"
    );
    assert_eq!(pos.legal_move_count(), ours.len(), "{fen}");
    assert_eq!(pos.is_check(), !cozy.checkers().is_empty(), "{fen}");
    let cozy_status = match cozy.status() {
        cozy_chess::GameStatus::Won => Status::Checkmate,
        cozy_chess::GameStatus::Drawn if ours.is_empty() => Status::Stalemate,
        _ => Status::Ongoing,
    };
    assert_eq!(pos.status(), cozy_status, "{fen}");
    for (color, cozy_color) in [
        (Color::White, cozy_chess::Color::White),
        (Color::Black, cozy_chess::Color::Black),
    ] {
        let rights = cozy.castle_rights(cozy_color);
        for (side, cozy_file_of) in [
            (CastleSide::KingSide, rights.short),
            (CastleSide::QueenSide, rights.long),
        ] {
            assert_eq!(
                pos.castling().rook_file(color, side),
                cozy_file_of.map(cozy_file),
                "{color} {side:?} right in {fen} ({shredder})"
            );
        }
    }
    // Placement, side to move and counters as cozy-chess writes them.
    let field = |s: &str, i: usize| s.split(' ').nth(i).unwrap_or_default().to_owned();
    for i in [0, 1, 4, 5] {
        assert_eq!(field(&fen, i), field(&shredder, i), "{fen} vs {shredder}");
    }
    let ours_shredder = pos.shredder_fen();
    for i in [0, 1, 2, 4, 5] {
        assert_eq!(
            field(&ours_shredder, i),
            field(&shredder, i),
            "{ours_shredder} vs {shredder}"
        );
    }
    // X-FEN and Shredder-FEN read back to this very position.
    let full = pos.fen_with(EnPassantField::AfterDoubleStep);
    assert_eq!(
        Position::from_fen_960(&full).as_ref(),
        Ok(pos),
        "X-FEN {full}"
    );
    let read = Position::from_fen_960(&fen).unwrap_or_else(|e| panic!("X-FEN {fen}: {e}"));
    assert_eq!(read.fen(), fen);
    let from_shredder = Position::from_fen_960(&shredder)
        .unwrap_or_else(|e| panic!("Shredder-FEN {shredder}: {e}"));
    assert_eq!(
        from_shredder.repetition_key(),
        pos.repetition_key(),
        "{shredder}"
    );
    // The fast queries agree with the generator.
    for m in &ours {
        let m: Move = m.parse().unwrap();
        assert!(pos.is_legal(m), "{m} in {fen}");
        let san = pos.san(m).unwrap();
        assert_eq!(pos.parse_san(&san), Ok(m), "{san} in {fen}");
        let (found, _) = pos
            .move_to_placement(pos.play(m).unwrap().placement())
            .unwrap_or_else(|| panic!("{m} not found from its placement in {fen}"));
        assert_eq!(found, m, "{fen}");
    }
    ours
}

#[test]
fn agrees_with_cozy_chess_from_every_start_position() {
    let started = Instant::now();
    let mut rng = Rng(0x0960_0960_0960_0960);
    let (mut positions, mut castlings) = (0usize, 0usize);
    for n in 0..960u16 {
        let mut pos = Position::start_960(n).unwrap();
        let mut cozy = cozy_chess::Board::chess960_startpos(u32::from(n));
        assert_eq!(pos.chess960_number(), Some(n));
        for _ in 0..60 {
            let moves: Vec<String> = compare(&pos, &cozy).into_iter().collect();
            positions += 1;
            if moves.is_empty() {
                break;
            }
            // Castle whenever possible half the time: castlings are rare in random play.
            let castles: Vec<&String> = moves
                .iter()
                .filter(|m| pos.castle_side(m.parse().unwrap()).is_some())
                .collect();
            let uci = if !castles.is_empty() && rng.below(2) == 0 {
                castlings += 1;
                castles[rng.below(castles.len())].clone()
            } else {
                moves[rng.below(moves.len())].clone()
            };
            pos = pos.play(uci.parse().unwrap()).unwrap();
            cozy.play(uci.parse().unwrap());
        }
    }
    assert!(castlings > 500, "only {castlings} castlings played");
    common::report(
        "differential chess960",
        &format!("{positions} positions from the 960 starts, {castlings} castlings played"),
        started,
    );
}

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut moves = Vec::new();
    board.generate_moves(|list| {
        moves.extend(list);
        false
    });
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|mv| {
            let mut next = board.clone();
            next.play_unchecked(mv);
            cozy_perft(&next, depth - 1)
        })
        .sum()
}

/// Every one of the 960 start positions to depth 3 (about 9,000 nodes each), our count
/// against cozy-chess's: the numbering and the start rights as well as the moves.
#[test]
fn start_positions_perft_agrees_with_cozy_chess() {
    let started = Instant::now();
    let mut nodes = 0;
    for n in 0..960u16 {
        let ours = Position::start_960(n).unwrap().perft(3);
        let theirs = cozy_perft(&cozy_chess::Board::chess960_startpos(u32::from(n)), 3);
        assert_eq!(ours, theirs, "start position {n}");
        nodes += ours;
    }
    common::report(
        "perft chess960 start positions",
        &format!("960 positions to depth 3, {nodes} nodes"),
        started,
    );
}
