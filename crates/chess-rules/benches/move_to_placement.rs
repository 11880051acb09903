//! How fast is the tracker's question "is this placement the position plus one legal
//! move?" Run with `cargo bench -p chess-rules --bench move_to_placement`. Positions come
//! from the real games in shared/data/pgn (run at the workspace root, beside ../shared).

use std::hint::black_box;
use std::time::Instant;

use chess_rules::{read_pgn, Placement, Position};

fn main() {
    let bytes = test_data::read("pgn/shakmaty-pgn-reader-benches/twic1599_1000k.pgn");
    let games = read_pgn(&bytes).expect("PGN");
    // (position, a placement to test) pairs of four kinds.
    let mut hits: Vec<(Position, Placement)> = Vec::new();
    let mut lifted: Vec<(Position, Placement)> = Vec::new();
    let mut wrong: Vec<(Position, Placement)> = Vec::new();
    for g in games.iter().take(300) {
        let game = g.replay().expect("replay");
        for (pos, next) in game.positions().iter().zip(&game.positions()[1..]) {
            hits.push((*pos, *next.placement()));
            let m = game.moves()[hits.len() % game.moves().len().max(1)];
            let _ = m;
            let (from, piece) = pos
                .placement()
                .pieces()
                .find(|(_, p)| p.color == pos.side_to_move())
                .expect("a piece");
            let mut pl = *pos.placement();
            pl.set(from, None);
            lifted.push((*pos, pl));
            // The piece put back one square off (usually not a legal move).
            if let Some(to) = from.offset(0, 1).filter(|s| pos.piece_at(*s).is_none()) {
                pl.set(to, Some(piece));
                wrong.push((*pos, pl));
            }
        }
    }
    for (name, cases) in [
        ("legal move", &hits),
        ("piece lifted", &lifted),
        ("piece misplaced", &wrong),
    ] {
        let rounds = 20;
        let started = Instant::now();
        let mut found = 0usize;
        for _ in 0..rounds {
            for (pos, pl) in cases.iter() {
                found += usize::from(black_box(pos).move_to_placement(black_box(pl)).is_some());
            }
        }
        let calls = rounds * cases.len();
        let ns = started.elapsed().as_nanos() as f64 / calls as f64;
        println!(
            "move_to_placement, {name}: {calls} calls, {ns:.0} ns/call ({found} found a move)"
        );
    }
    let started = Instant::now();
    let mut n = 0usize;
    for (pos, pl) in wrong.iter().chain(&lifted) {
        n += usize::from(matches!(
            pos.classify(pl, &[]),
            chess_rules::Classification::Illegal { .. }
        ));
    }
    let ns = started.elapsed().as_nanos() as f64 / (wrong.len() + lifted.len()) as f64;
    println!(
        "classify (illegal placements): {} calls, {ns:.0} ns/call ({n} illegal)",
        wrong.len() + lifted.len()
    );
}
