//! The reconnect search: when the board shows a placement that the last known position
//! plus one move does not explain (events were lost: a cable pull, a dropped frame), look
//! a few plies ahead for the moves that got lost.

use chess_rules::{Move, Placement, Position};

/// The most plies the search looks ahead.
pub const MAX_PLIES: usize = 4;

/// The shortest series of at most `max_plies` legal moves from `from` that ends on the
/// placement `target`, if there is one. Pruned by the squares that differ: a move's piece
/// must stand on a square whose contents still have to change, and no ply can fix more
/// than four squares.
pub fn lost_moves(from: &Position, target: &Placement, max_plies: usize) -> Option<Vec<Move>> {
    let mut line = Vec::with_capacity(max_plies);
    (1..=max_plies).find_map(|depth| {
        line.clear();
        search(from, target, depth, &mut line).then(|| line.clone())
    })
}

fn differing(a: &Placement, b: &Placement) -> usize {
    a.diff(b).count()
}

fn search(pos: &Position, target: &Placement, depth: usize, line: &mut Vec<Move>) -> bool {
    let diff = differing(pos.placement(), target);
    if depth == 0 {
        return diff == 0;
    }
    if diff > 4 * depth {
        return false;
    }
    for m in pos.legal_moves() {
        // A piece standing where the target wants it stays (prune).
        if pos.piece_at(m.from) == target.get(m.from) {
            continue;
        }
        let Ok(next) = pos.play(m) else { continue };
        line.push(m);
        if search(&next, target, depth - 1, line) {
            return true;
        }
        line.pop();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_lost_plies() {
        let start = Position::start();
        let mut p = start;
        let moves: Vec<Move> = ["e2e4", "c7c5", "g1f3", "d7d6"]
            .iter()
            .map(|u| u.parse().unwrap())
            .collect();
        for m in &moves {
            p = p.play(*m).unwrap();
        }
        let found = lost_moves(&start, p.placement(), MAX_PLIES).unwrap();
        // Same placement, and legal in turn (the order may differ where moves commute).
        let mut q = start;
        for m in &found {
            q = q.play(*m).unwrap();
        }
        assert_eq!(q.placement(), p.placement());
        assert_eq!(found.len(), 4);
        // A placement no series explains.
        let mut odd = *start.placement();
        odd.set("e4".parse().unwrap(), odd.get("d1".parse().unwrap()));
        odd.set("d1".parse().unwrap(), None);
        odd.set("a7".parse().unwrap(), None);
        assert_eq!(lost_moves(&start, &odd, MAX_PLIES), None);
        // Nothing to find.
        assert_eq!(lost_moves(&start, start.placement(), 2), None);
    }
}
