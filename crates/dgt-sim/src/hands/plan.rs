//! Planning a script before any time is laid out: where the game ends by the rules, which
//! ply carries which irregularity (searched in the game's own positions), where presses
//! are forgotten and pieces adjusted, and how long each player thinks.

use std::collections::BTreeMap;

use chess_rules::{
    CanMate, Color, DeadPosition, EndReason, Game, GameResult, Move, Piece, Position, Role, Square,
    Status,
};

use super::attempts::{self, Checked};
use super::motion::{immovable_pieces, other_movable_pieces};
use super::options::{HandOptions, Irregularity};
use super::rng::HandRng;

/// Labels of the derived random streams (one per purpose, then per ply).
pub(crate) mod stream {
    pub const PLACE: u64 = 1 << 40;
    pub const ATTEMPT: u64 = 2 << 40;
    pub const FORGET: u64 = 3 << 40;
    pub const ADJUST: u64 = 4 << 40;
    pub const THINK: u64 = 5 << 40;
    pub const MOTION: u64 = 6 << 40;
    pub const FAULTS: u64 = 7 << 40;
    pub const ARBITER: u64 = 8 << 40;
}

/// How the game ends by the rules, after its first `moves` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RulesEnd {
    /// How many of the game's moves are played (the rest, if any, are dropped).
    pub moves: usize,
    pub result: GameResult,
    pub reason: EndReason,
}

/// The first end the rules impose (checkmate, stalemate, fivefold, 75 moves, dead
/// position), if any. A dead position whose search is undetermined does not end it.
pub(crate) fn rules_end(start: &Position, moves: &[Move]) -> Option<RulesEnd> {
    let mut positions = Vec::with_capacity(moves.len() + 1);
    positions.push(*start);
    for m in moves {
        let next = positions.last()?.play(*m).ok()?;
        positions.push(next);
    }
    let first_dead = first_dead(&positions);
    let mut game = Game::new(*start);
    for (i, m) in moves.iter().enumerate() {
        if game.play(*m).is_err() {
            return None;
        }
        let pos = *game.position();
        let end = |result, reason| {
            Some(RulesEnd {
                moves: i + 1,
                result,
                reason,
            })
        };
        match pos.status() {
            Status::Checkmate => {
                let winner = pos.side_to_move().opponent();
                return end(GameResult::win_for(winner), EndReason::Checkmate);
            }
            Status::Stalemate => return end(GameResult::Draw, EndReason::Stalemate),
            Status::Ongoing => {}
        }
        if let Some(auto) = game.automatic_end() {
            return end(auto.result(), auto.reason());
        }
        if first_dead == Some(i + 1) {
            return end(GameResult::Draw, EndReason::DeadPosition);
        }
    }
    None
}

/// The index of the first dead position (after that many moves), as a scan from the
/// start would find it. Deadness only grows along a game (a helpmate from a later position
/// extends to every earlier one), so the search runs from the end back while it proves
/// positions dead: one search for most games. An undetermined answer on the way back
/// falls back to scanning forward.
fn first_dead(positions: &[Position]) -> Option<usize> {
    let mut first = None;
    for i in (0..positions.len()).rev() {
        match dead(&positions[i]) {
            DeadPosition::Dead => first = Some(i),
            DeadPosition::NotDead => return first,
            DeadPosition::Undetermined => {
                return (0..i)
                    .find(|&j| dead(&positions[j]) == DeadPosition::Dead)
                    .or(first);
            }
        }
    }
    first
}

/// Is the position dead? The fast check proves positions like K+B v K dead at once;
/// material that can always mate (a queen or a rook, with no pawn anywhere to lock the
/// position) settles the rest without a search; otherwise the full helpmate search.
fn dead(pos: &Position) -> DeadPosition {
    if pos.dead_position_fast() == DeadPosition::Dead {
        return DeadPosition::Dead;
    }
    let has = |role: Role| pos.placement().pieces().any(|(_, p)| p.role == role);
    if (has(Role::Queen) || has(Role::Rook)) && !has(Role::Pawn) {
        return DeadPosition::NotDead;
    }
    pos.dead_position()
}

/// An irregularity placed on a ply, with what it needs to be played.
#[derive(Debug, Clone)]
pub(crate) enum Injection {
    Attempt(Box<Checked>),
    ClockWithoutMove,
    Unpromoted,
    TouchOther {
        square: Square,
        piece: Piece,
    },
    RookBeforeKing,
    TwoHandedCastling,
    FlagFall {
        result: GameResult,
    },
    /// An own piece knocked off the board with the move (art. 7.4), put back after the
    /// press.
    Displaced {
        square: Square,
        piece: Piece,
    },
}

/// A placed irregularity.
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    pub irregularity: Irregularity,
    pub injection: Injection,
    /// For completed illegal moves: the offender's count, and the result if it is his
    /// second.
    pub count: u32,
    pub result: Option<GameResult>,
}

/// An irregularity that could not be placed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub irregularity: Irregularity,
    pub reason: String,
}

/// The plan of every ply.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// How many of the game's moves are played.
    pub moves: usize,
    /// Set when the rules end the game after `moves` moves.
    pub rules_end: Option<RulesEnd>,
    pub placed: BTreeMap<usize, Placed>,
    pub skipped: Vec<Skipped>,
    pub forgotten: Vec<bool>,
    /// The piece adjusted before the move, per ply.
    pub adjust: Vec<Option<(Square, Piece)>>,
    pub think_ms: Vec<u64>,
}

/// The winner of a game lost by `loser`, or a draw when the winner cannot mate in `pos`;
/// `None` when the search cannot tell.
pub(crate) fn loss_or_draw(pos: &Position, loser: Color) -> Option<GameResult> {
    let winner = loser.opponent();
    match pos.can_mate(winner) {
        CanMate::Yes => Some(GameResult::win_for(winner)),
        CanMate::No => Some(GameResult::Draw),
        CanMate::Undetermined => None,
    }
}

/// Plans the whole game. `positions[i]` is the position before move `i`.
pub(crate) fn plan(positions: &[Position], moves: &[Move], opts: &HandOptions) -> Plan {
    let end = rules_end(&positions[0], moves);
    let n = end.map_or(moves.len(), |e| e.moves);
    // Per-ply vectors cover every move: the ply after the last one played may still
    // carry the injection that ends the game.
    let mut plan = Plan {
        moves: n,
        rules_end: end,
        forgotten: vec![false; moves.len()],
        adjust: vec![None; moves.len()],
        ..Plan::default()
    };
    let seed = opts.seed;
    let mut place_rng = HandRng::derived(seed, stream::PLACE);
    let mut illegal_by: [u32; 2] = [0, 0];
    let mut flag_requested = false;
    for &irr in &opts.irregularities {
        if irr == Irregularity::FlagFall {
            flag_requested = true;
            continue;
        }
        let mut order: Vec<usize> = (0..n).filter(|k| !plan.placed.contains_key(k)).collect();
        if irr.is_illegal_move() && !opts.allow_second_illegal {
            order.retain(|&k| illegal_by[positions[k].side_to_move() as usize] == 0);
        }
        place_rng.shuffle(&mut order);
        match find_ply(irr, positions, moves, &order, seed) {
            Some((k, injection)) => {
                if irr.is_illegal_move() {
                    illegal_by[positions[k].side_to_move() as usize] += 1;
                }
                plan.placed.insert(
                    k,
                    Placed {
                        irregularity: irr,
                        injection,
                        count: 0,
                        result: None,
                    },
                );
            }
            None => plan.skipped.push(Skipped {
                irregularity: irr,
                reason: if order.is_empty() {
                    "no ply left for it (each player makes at most one illegal move unless a \
                     second is allowed)"
                        .into()
                } else {
                    "no position of this game allows it".into()
                },
            }),
        }
    }
    settle_counts(&mut plan, positions);
    if flag_requested {
        place_flag(&mut plan, positions, &mut place_rng);
    }
    plan_forgotten_presses(&mut plan, opts);
    plan_adjustments(&mut plan, positions, moves, opts);
    plan.think_ms = plan_thinks(positions, (plan.moves + 1).min(moves.len()), opts);
    plan
}

/// The first ply in `order` where `irr` can be placed (a clean illegal attempt anywhere
/// before one that makes the real move break touch-move).
fn find_ply(
    irr: Irregularity,
    positions: &[Position],
    moves: &[Move],
    order: &[usize],
    seed: u64,
) -> Option<(usize, Injection)> {
    let mut fallback: Option<(usize, Injection)> = None;
    for &k in order {
        let pos = &positions[k];
        let m = moves[k];
        let info = pos.move_info(m)?;
        let found = match irr {
            Irregularity::Illegal(kind) => {
                let mut rng = HandRng::derived(seed, stream::ATTEMPT + k as u64 * 64 + kind as u64);
                let mut plans = attempts::plans(kind, positions, k, m, &mut rng);
                rng.shuffle(&mut plans);
                let mut dirty = None;
                let mut clean = None;
                for p in plans {
                    match attempts::check(pos, p, m, &mut rng) {
                        Some(c) if c.violation.is_none() => {
                            clean = Some(c);
                            break;
                        }
                        Some(c) if dirty.is_none() => dirty = Some(c),
                        _ => {}
                    }
                }
                if clean.is_none() && fallback.is_none() {
                    fallback = dirty.map(|c| (k, Injection::Attempt(Box::new(c))));
                }
                clean.map(|c| Injection::Attempt(Box::new(c)))
            }
            Irregularity::ClockWithoutMove => Some(Injection::ClockWithoutMove),
            Irregularity::UnpromotedPawn => (info.promotion.is_some_and(|p| p.role == Role::Queen))
                .then_some(Injection::Unpromoted),
            Irregularity::TouchOtherPiece => {
                if info.castling.is_some() || info.en_passant || info.promotion.is_some() {
                    None
                } else {
                    let others = other_movable_pieces(pos, m.from);
                    let mut rng = HandRng::derived(seed, stream::ATTEMPT + k as u64 * 64 + 63);
                    rng.pick(&others)
                        .map(|&(square, piece)| Injection::TouchOther { square, piece })
                }
            }
            Irregularity::RookBeforeKing => info
                .castling
                .filter(|(_, rook_from, _)| pos.can_move_from(*rook_from))
                .map(|_| Injection::RookBeforeKing),
            Irregularity::TwoHandedCastling => info.castling.map(|_| Injection::TwoHandedCastling),
            Irregularity::FlagFall => None,
            Irregularity::Displaced => displaced_piece(positions, k, m, seed),
        };
        if let Some(inj) = found {
            return Some((k, inj));
        }
    }
    fallback
}

/// Art. 7.4: an own piece (not the king, not one the move involves) that can be knocked
/// off the board with move `m` at index `k` so that the board at the press reads as that
/// move with that piece displaced and nothing else (the classifier's own reading: no
/// other move fits). Not on a move that ends the game.
fn displaced_piece(positions: &[Position], k: usize, m: Move, seed: u64) -> Option<Injection> {
    let pos = &positions[k];
    let after = positions.get(k + 1)?;
    let info = pos.move_info(m)?;
    if info.castling.is_some()
        || info.en_passant
        || info.promotion.is_some()
        || after.status() != Status::Ongoing
    {
        return None;
    }
    let color = pos.side_to_move();
    let mut candidates = Vec::new();
    for (square, piece) in pos.placement().pieces() {
        if piece.color != color || piece.role == Role::King || square == m.from || square == m.to {
            continue;
        }
        let mut observed = *after.placement();
        observed.set(square, None);
        let want = vec![chess_rules::RestoreStep::Put { square, piece }];
        if matches!(
            pos.classify(&observed, &[m.from, square]),
            chess_rules::Classification::Displaced { mv, reestablish }
                if mv == m && reestablish == want
        ) {
            candidates.push((square, piece));
        }
    }
    let mut rng = HandRng::derived(seed, stream::ATTEMPT + k as u64 * 64 + 62);
    rng.pick(&candidates)
        .map(|&(square, piece)| Injection::Displaced { square, piece })
}

/// Counts each player's illegal moves in ply order; a second one ends the game there (or
/// is dropped when its result cannot be decided), and what comes after it is dropped.
fn settle_counts(plan: &mut Plan, positions: &[Position]) {
    let mut counts = [0u32; 2];
    let mut end_at: Option<usize> = None;
    let plies: Vec<usize> = plan.placed.keys().copied().collect();
    for k in plies {
        if let Some(e) = end_at {
            if let Some(p) = plan.placed.remove(&k) {
                plan.skipped.push(Skipped {
                    irregularity: p.irregularity,
                    reason: format!("the game ended at move index {e} on a second illegal move"),
                });
            }
            continue;
        }
        let Some(p) = plan.placed.get_mut(&k) else {
            continue;
        };
        if !p.irregularity.is_illegal_move() {
            continue;
        }
        let color = positions[k].side_to_move();
        let count = counts[color as usize] + 1;
        if count >= 2 {
            match loss_or_draw(&positions[k], color) {
                Some(result) => {
                    p.count = count;
                    p.result = Some(result);
                    counts[color as usize] = count;
                    end_at = Some(k);
                }
                None => {
                    let irr = p.irregularity;
                    plan.placed.remove(&k);
                    plan.skipped.push(Skipped {
                        irregularity: irr,
                        reason: "a second illegal move here, but whether the opponent can \
                                 still mate is undetermined"
                            .into(),
                    });
                }
            }
        } else {
            p.count = count;
            counts[color as usize] = count;
        }
    }
    if let Some(e) = end_at {
        plan.moves = e;
        plan.rules_end = None;
    }
}

/// Places the flag fall after every other irregularity, in the second half of the game
/// where possible, on a ply whose result the search can decide.
fn place_flag(plan: &mut Plan, positions: &[Position], rng: &mut HandRng) {
    let after = plan.placed.keys().next_back().map_or(1, |k| k + 1).max(1);
    let n = plan.moves;
    let ended_early = plan.placed.values().any(|p| p.result.is_some());
    let mut order: Vec<usize> = (after.max(n / 2)..n).collect();
    rng.shuffle(&mut order);
    let mut rest: Vec<usize> = (after..after.max(n / 2).min(n)).collect();
    rng.shuffle(&mut rest);
    order.extend(rest);
    if !ended_early {
        for k in order {
            let loser = positions[k].side_to_move();
            if let Some(result) = loss_or_draw(&positions[k], loser) {
                plan.placed.insert(
                    k,
                    Placed {
                        irregularity: Irregularity::FlagFall,
                        injection: Injection::FlagFall { result },
                        count: 0,
                        result: Some(result),
                    },
                );
                plan.moves = k;
                plan.rules_end = None;
                return;
            }
        }
    }
    plan.skipped.push(Skipped {
        irregularity: Irregularity::FlagFall,
        reason: if ended_early {
            "the game ends earlier on a second illegal move".into()
        } else {
            "no ply after the other irregularities where the result can be decided".into()
        },
    });
}

/// A press is forgotten only among ordinary plies: the forgetter presses after his next
/// move, and nothing irregular happens around it.
fn plan_forgotten_presses(plan: &mut Plan, opts: &HandOptions) {
    let n = plan.moves;
    let p = opts.variations.forgotten_press;
    for k in 0..n {
        let quiet = (k.saturating_sub(2)..=k + 2).all(|j| !plan.placed.contains_key(&j));
        let neighbours_pressed = (k.saturating_sub(2)..k).all(|j| !plan.forgotten[j]);
        if k + 2 < n && quiet && neighbours_pressed {
            let mut rng = HandRng::derived(opts.seed, stream::FORGET + k as u64);
            plan.forgotten[k] = rng.chance(p);
        }
    }
}

/// Adjustments never create an obligation the move breaks: the piece then moved, or a
/// piece of the mover with no legal move.
fn plan_adjustments(plan: &mut Plan, positions: &[Position], moves: &[Move], opts: &HandOptions) {
    for k in 0..plan.moves {
        if let Some(p) = plan.placed.get(&k) {
            if let Injection::TouchOther { square, piece } = p.injection {
                plan.adjust[k] = Some((square, piece));
            }
            continue;
        }
        let mut rng = HandRng::derived(opts.seed, stream::ADJUST + k as u64);
        if !rng.chance(opts.variations.adjustment) {
            continue;
        }
        let pos = &positions[k];
        let m = moves[k];
        let stuck = immovable_pieces(pos, pos.side_to_move());
        plan.adjust[k] = if stuck.is_empty() || rng.chance(0.6) {
            pos.piece_at(m.from).map(|p| (m.from, p))
        } else {
            rng.pick(&stuck).copied()
        };
    }
}

/// Per ply, the think time aimed at (before the clock clamps it): in each period of the
/// control, each player spends about half of what that period gives him (its time and
/// the increments of his moves in it), little in the opening, with a long-tailed spread.
/// So a classical game reaches the control (move 40) with time left, as most do, and
/// goes on with the next period's time.
fn plan_thinks(positions: &[Position], n: usize, opts: &HandOptions) -> Vec<u64> {
    let mut rng = HandRng::derived(opts.seed, stream::THINK);
    let tc = opts.time_control;
    let mut out = vec![0u64; n];
    for color in Color::ALL {
        let plies: Vec<usize> = (0..n)
            .filter(|&k| positions[k].side_to_move() == color)
            .collect();
        if plies.is_empty() {
            continue;
        }
        let weights: Vec<f64> = plies
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let phase = match i {
                    0..=5 => 0.15,
                    6..=12 => 0.6,
                    _ => 1.0,
                };
                phase * rng.lognormal(0.8)
            })
            .collect();
        // The period of each of his moves, by the clock's count of them (his i-th move
        // in this game is its press number i + 1).
        let period_of: Vec<u32> = (1..=plies.len() as u32)
            .map(|m| tc.period_of_move(m).0)
            .collect();
        let mut first = 0;
        while first < plies.len() {
            let index = period_of[first];
            let len = period_of[first..]
                .iter()
                .take_while(|&&p| p == index)
                .count();
            let group = first..first + len;
            let (secs, inc) = tc
                .period(index)
                .map_or((0, 0), |p| (p.secs, p.increment_secs));
            let count = len as f64;
            let available =
                f64::from(secs) * 1000.0 + count * f64::from(inc) * 1000.0 - count * 2500.0;
            let budget = (available.max(0.0) * 0.55 * opts.think_scale.max(0.0)).max(0.0);
            let total: f64 = weights[group.clone()].iter().sum();
            for i in group {
                out[plies[i]] = (budget * weights[i] / total.max(f64::MIN_POSITIVE)) as u64;
            }
            first += len;
        }
    }
    out
}
