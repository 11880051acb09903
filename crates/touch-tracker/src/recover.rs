//! The reconnect search: when the board shows a placement that the last known position
//! plus one move does not explain (events were lost: a cable pull, a dropped frame), look
//! a few plies ahead for the moves that got lost.

use chess_rules::{CastleSide, Color, Move, Placement, Position};

/// The most plies the search looks ahead.
pub const MAX_PLIES: usize = 4;

/// The most lines [`lost_moves`] returns: enough to say what else could have happened.
pub const MAX_LINES: usize = 4;

/// The most plies a deep search ([`lost_moves_within`], [`lost_moves_to`]) looks ahead
/// (measured in docs/reliability.md). The tracker runs it only at a press while out of
/// sync, so the side to move is known (see [`lost_moves_to`]).
pub const DEEP_PLIES: usize = 10;

/// The most positions the deep search visits (about a tenth of a second, see
/// docs/reliability.md). It is counted, not timed, so a replay of the journal gets the
/// same answer.
pub const DEEP_NODES: u64 = 100_000;

/// The most positions the deep search visits for the squares a board showed when it came
/// back (about a third of a second at worst on the 2-core test machine, release build).
/// Asked at most twice a gap (once for each side to move), so it can afford ten times
/// [`DEEP_NODES`].
pub const GAP_NODES: u64 = 1_000_000;

/// The deep search ran out of its node budget before it could say what explains the
/// board: nothing is adopted on such a search (a line found may not be the only one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted;

/// What the search found: the shortest series of legal moves that explains the board,
/// and any other series just as short that explains it as well. A board shows squares, not
/// history: Nf3-h4-f5 and Nf3-d4-f5 leave the same squares, and so do two independent
/// moves played in either order. Only the first line is recorded; when there are others
/// the arbiter must be told the record is uncertain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostMoves {
    /// The line recorded (the first found).
    pub line: Vec<Move>,
    /// Other lines of the same length that lead to the same placement (at most
    /// [`MAX_LINES`] - 1).
    pub others: Vec<Vec<Move>>,
}

/// The shortest series of at most `max_plies` legal moves from `from` that ends on the
/// placement `target`, if there is one, with the other series of that length that do too.
/// `seen_first` is a move the board was seen to show before the events were lost: among
/// lines of the same length, those that begin with it are the ones the evidence supports,
/// and the others are dropped. Pruned by the squares that differ: no ply can fix more
/// than four squares, and each move of a side puts that side's pieces on one square (two
/// when castling), so the squares that must come to hold a piece of a side need as many
/// of its moves.
pub fn lost_moves(
    from: &Position,
    target: &Placement,
    max_plies: usize,
    seen_first: Option<Move>,
) -> Option<LostMoves> {
    lost_moves_within(from, target, max_plies, seen_first, u64::MAX).unwrap_or(None)
}

/// [`lost_moves`] visiting at most `nodes` positions: `Err(Exhausted)` when the budget ran
/// out before a depth was searched to its end (what was found then proves nothing about
/// the other lines). Each depth is searched only when the squares that differ can be
/// filled in that many plies, so a gap too long for the bound costs next to nothing.
pub fn lost_moves_within(
    from: &Position,
    target: &Placement,
    max_plies: usize,
    seen_first: Option<Move>,
    nodes: u64,
) -> Result<Option<LostMoves>, Exhausted> {
    lines_to(from, target, max_plies, seen_first, None, nodes)
}

/// [`lost_moves_within`] for lines after which `to_move` is to move: a press names the
/// player who just completed a move, so only lines of that parity can be what happened.
/// Without it the shortest line can be of the other parity (2. Qh5 Nc6 3. Qg4 leaves the
/// squares of 2. Qg4 Nc6, with the wrong side to move), and the game would go on a ply
/// out of step.
pub fn lost_moves_to(
    from: &Position,
    target: &Placement,
    max_plies: usize,
    seen_first: Option<Move>,
    to_move: Color,
    nodes: u64,
) -> Result<Option<LostMoves>, Exhausted> {
    lines_to(from, target, max_plies, seen_first, Some(to_move), nodes)
}

fn lines_to(
    from: &Position,
    target: &Placement,
    max_plies: usize,
    seen_first: Option<Move>,
    to_move: Option<Color>,
    nodes: u64,
) -> Result<Option<LostMoves>, Exhausted> {
    let mut line = Vec::with_capacity(max_plies);
    let mut found = Vec::new();
    let mut budget = Budget {
        nodes,
        dead_ends: std::collections::HashSet::new(),
    };
    let seen = seen_first.and_then(|m| from.play(m).ok().map(|after| (m, after)));
    for depth in min_plies(from, target).max(1)..=max_plies {
        let mover_after = if depth % 2 == 0 {
            from.side_to_move()
        } else {
            from.side_to_move().opponent()
        };
        if to_move.is_some_and(|c| c != mover_after) {
            continue;
        }
        if let Some((m, after)) = &seen {
            line.clear();
            line.push(*m);
            search(after, target, depth - 1, &mut line, &mut found, &mut budget)?;
        }
        if found.is_empty() {
            line.clear();
            search(from, target, depth, &mut line, &mut found, &mut budget)?;
        }
        let mut lines = std::mem::take(&mut found).into_iter();
        if let Some(line) = lines.next() {
            return Ok(Some(LostMoves {
                line,
                others: lines.collect(),
            }));
        }
    }
    Ok(None)
}

/// The fewest plies that can turn `from` into `target` by the bound the search prunes
/// with (each side fills at most one square a move, two when castling): a lower bound on
/// the moves made unseen, for telling the arbiter how much is missing.
pub fn min_plies(from: &Position, target: &Placement) -> usize {
    if from.placement() == target {
        return 0;
    }
    (1..)
        .find(|&d| !too_few_moves(from, target, d))
        .unwrap_or(0)
}

/// `earlier` (lines from `from`) continued by up to [`MAX_PLIES`] more plies to `target`:
/// for a board that came back showing more moves than one search reaches.
pub fn extend(from: &Position, earlier: &LostMoves, target: &Placement) -> Option<LostMoves> {
    let mut pos = *from;
    for &m in &earlier.line {
        pos = pos.play(m).ok()?;
    }
    let more = lost_moves(&pos, target, MAX_PLIES, None)?;
    let join = |a: &[Move], b: &[Move]| a.iter().chain(b).copied().collect::<Vec<Move>>();
    let mut others: Vec<Vec<Move>> = more.others.iter().map(|o| join(&earlier.line, o)).collect();
    others.extend(earlier.others.iter().map(|o| join(o, &more.line)));
    others.truncate(MAX_LINES - 1);
    Some(LostMoves {
        line: join(&earlier.line, &more.line),
        others,
    })
}

/// A line in SAN with move numbers, as on a scoresheet: `8. Nd4 Qg5 9. Nf5`, or
/// `8... Qg5 9. Nf5` when Black plays first. Stops at the first move that is not legal.
pub fn san_line(from: &Position, line: &[Move]) -> String {
    let mut out = String::new();
    let mut pos = *from;
    for (i, &m) in line.iter().enumerate() {
        let Ok((san, next)) = pos.san_and_play(m) else {
            break;
        };
        let n = pos.fullmove_number();
        match pos.side_to_move() {
            Color::White => out.push_str(&format!("{n}. ")),
            Color::Black if i == 0 => out.push_str(&format!("{n}... ")),
            Color::Black => {}
        }
        out.push_str(&san);
        out.push(' ');
        pos = next;
    }
    out.truncate(out.trim_end().len());
    out
}

/// True when `depth` plies from `pos` cannot fill every square that must come to hold a
/// piece of one side. (A piece standing where the target wants one like it may still
/// have to move: Rd1xd7 then Rh1-d1 leaves a rook on d1, so no cheaper rule is sound.)
fn too_few_moves(pos: &Position, target: &Placement, depth: usize) -> bool {
    let mut to_fill = [0usize; 2];
    for d in pos.placement().diff(target) {
        if let Some(p) = d.after {
            to_fill[usize::from(p.color == Color::Black)] += 1;
        }
    }
    let mover = pos.side_to_move();
    [Color::White, Color::Black].into_iter().any(|c| {
        let moves = if c == mover {
            depth.div_ceil(2)
        } else {
            depth / 2
        };
        let castles = [CastleSide::KingSide, CastleSide::QueenSide]
            .into_iter()
            .any(|side| pos.castling().has(c, side));
        to_fill[usize::from(c == Color::Black)] > moves + usize::from(castles && moves > 0)
    })
}

fn differing(a: &Placement, b: &Placement) -> usize {
    a.diff(b).count()
}

/// Collects the lines of exactly `depth` plies that end on `target` into `found`, up to
/// [`MAX_LINES`]; returns true when that many are found (stop searching).
fn search(
    pos: &Position,
    target: &Placement,
    depth: usize,
    line: &mut Vec<Move>,
    found: &mut Vec<Vec<Move>>,
    budget: &mut Budget,
) -> Result<bool, Exhausted> {
    budget.nodes = budget.nodes.checked_sub(1).ok_or(Exhausted)?;
    let diff = differing(pos.placement(), target);
    if depth == 0 {
        if diff == 0 {
            found.push(line.clone());
        }
        return Ok(found.len() >= MAX_LINES);
    }
    if diff > 4 * depth || too_few_moves(pos, target, depth) {
        return Ok(false);
    }
    // Moves that commute reach the same position by several orders: a position from
    // which nothing was found at this depth is not searched again.
    let key = (pos.repetition_hash(), depth as u8);
    if budget.dead_ends.contains(&key) {
        return Ok(false);
    }
    let before = found.len();
    for m in pos.legal_moves() {
        let Ok(next) = pos.play(m) else { continue };
        line.push(m);
        let full = search(&next, target, depth - 1, line, found, budget);
        line.pop();
        if full? {
            return Ok(true);
        }
    }
    if found.len() == before {
        budget.dead_ends.insert(key);
    }
    Ok(false)
}

/// What a search may still spend, and where it found nothing.
struct Budget {
    nodes: u64,
    dead_ends: std::collections::HashSet<(u64, u8)>,
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
        let found = lost_moves(&start, p.placement(), MAX_PLIES, None)
            .unwrap()
            .line;
        // Same placement, and legal in turn (the order may differ where moves commute).
        let mut q = start;
        for m in &found {
            q = q.play(*m).unwrap();
        }
        assert_eq!(q.placement(), p.placement());
        assert_eq!(found.len(), 4);
        // e4, c5 and Nf3, d6 commute: the same squares by another order.
        let all = lost_moves(&start, p.placement(), MAX_PLIES, None).unwrap();
        assert!(!all.others.is_empty());
        assert!(all.others.iter().all(|l| l.len() == 4 && *l != all.line));
        // A placement no series explains.
        let mut odd = *start.placement();
        odd.set("e4".parse().unwrap(), odd.get("d1".parse().unwrap()));
        odd.set("d1".parse().unwrap(), None);
        odd.set("a7".parse().unwrap(), None);
        assert_eq!(lost_moves(&start, &odd, MAX_PLIES, None), None);
        // Nothing to find.
        assert_eq!(lost_moves(&start, start.placement(), 2, None), None);
    }

    #[test]
    fn a_knight_route_is_ambiguous_a_single_move_is_not() {
        // White to move (the fault campaign's board 1, ply 15): the knight from f3
        // reaches f5 by h4 or by d4 around one black move: two lines, the same squares.
        let from =
            Position::from_fen("rnb1kb1r/p1pp1ppp/7q/1B5n/4Pp2/3P1N2/PPP3PP/RNBQ1K1R w kq - 1 8")
                .unwrap();
        let mut played = from;
        for u in ["f3h4", "h6g5", "h4f5"] {
            played = played.play(u.parse().unwrap()).unwrap();
        }
        let found = lost_moves(&from, played.placement(), MAX_PLIES, None).unwrap();
        let mut lines: Vec<Vec<String>> = std::iter::once(&found.line)
            .chain(&found.others)
            .map(|l| l.iter().map(|m| m.to_string()).collect())
            .collect();
        lines.sort();
        assert_eq!(
            lines,
            [["f3d4", "h6g5", "d4f5"], ["f3h4", "h6g5", "h4f5"]],
            "{found:?}"
        );
        let line: Vec<Move> = ["f3h4", "h6g5", "h4f5"]
            .iter()
            .map(|u| u.parse().unwrap())
            .collect();
        assert_eq!(san_line(&from, &line), "8. Nh4 Qg5 9. Nf5");
        let after = from.play(line[0]).unwrap();
        assert_eq!(san_line(&after, &line[1..]), "8... Qg5 9. Nf5");
        // One lost move: nothing else explains it.
        let one = from.play("f3h4".parse().unwrap()).unwrap();
        let found = lost_moves(&from, one.placement(), MAX_PLIES, None).unwrap();
        assert!(found.others.is_empty(), "{found:?}");
    }

    #[test]
    fn a_move_seen_before_the_loss_settles_the_order() {
        // 1. e4 was on the board (seen, not yet pressed) when the line went down; then
        // ...e5 2. Nf3 d6 were played unseen: e4 first is the line the evidence supports.
        let start = Position::start();
        let mut p = start;
        for u in ["e2e4", "e7e5", "g1f3", "d7d6"] {
            p = p.play(u.parse().unwrap()).unwrap();
        }
        let blind = lost_moves(&start, p.placement(), MAX_PLIES, None).unwrap();
        assert!(!blind.others.is_empty());
        let seen = lost_moves(
            &start,
            p.placement(),
            MAX_PLIES,
            Some("e2e4".parse().unwrap()),
        )
        .unwrap();
        assert!(seen
            .others
            .iter()
            .chain([&seen.line])
            .all(|l| l[0].to_string() == "e2e4"));
        // ...d6 and ...e5 still commute.
        assert_eq!(seen.others.len(), 1, "{seen:?}");
        // A move seen and then taken back is no evidence: the line without it is found.
        let q = start.play("d2d4".parse().unwrap()).unwrap();
        let back = lost_moves(
            &start,
            q.placement(),
            MAX_PLIES,
            Some("e2e4".parse().unwrap()),
        )
        .unwrap();
        assert_eq!(back.line.len(), 1);
        assert_eq!(back.line[0].to_string(), "d2d4");
    }

    #[test]
    fn a_square_refilled_by_a_like_piece_is_searched() {
        // The fault campaign's game 3: 13. Rxd7 Rxd7 14. Rd1: a rook is on d1 before and
        // after, yet the d1 rook moved.
        let from =
            Position::from_fen("3rkb1r/p2nqppp/5n2/1B2p1B1/4P3/1Q6/PPP2PPP/2KR3R w k - 2 13")
                .unwrap();
        let mut p = from;
        for u in ["d1d7", "d8d7", "h1d1"] {
            p = p.play(u.parse().unwrap()).unwrap();
        }
        let found = lost_moves(&from, p.placement(), MAX_PLIES, None).unwrap();
        let line: Vec<String> = found.line.iter().map(|m| m.to_string()).collect();
        assert_eq!(line, ["d1d7", "d8d7", "h1d1"], "{found:?}");
    }
}
