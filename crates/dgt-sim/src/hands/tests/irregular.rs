//! Each irregularity on positions of real games (and a few constructed ones): the script's
//! physical effect, checked with the emulator's clock, a placement and chess-rules'
//! classifier, and the events expected of the arbiter.

use chess_rules::{
    CanMate, CastleSide, Classification, Color, EndReason, GameResult, Obligation, Placement,
    Position, Role, Square,
};

use super::physical::{check_script, Replayer};
use super::*;
use crate::action::Action;

/// The first event of kind `kind` at or after index `from`.
fn find(script: &Script, from: usize, kind: &str) -> Option<usize> {
    (from..script.expected.len()).find(|&i| script.expected[i].event.kind() == kind)
}

/// The board after every action at or before `t`, and the emulator's clock then.
fn replay_to(script: &Script, t: u64) -> Replayer<'_> {
    let mut r = Replayer::new(script);
    r.until_time(t);
    r.emu.advance_to(t);
    r
}

/// The colour whose time runs.
fn running(r: &Replayer<'_>) -> Option<Color> {
    r.emu
        .clock_running()
        .then(|| {
            Color::ALL
                .into_iter()
                .find(|c| r.emu.side_of(*c) == r.emu.lever())
        })
        .flatten()
}

/// Squares lifted (of pieces standing at the start of the window) between two times.
fn lifted_between(script: &Script, start: &Placement, from: u64, to: u64) -> Vec<Square> {
    let mut out = Vec::new();
    for a in &script.actions {
        if a.at_ms > from && a.at_ms <= to {
            if let Action::Lift(sq) = a.action {
                if start.get(sq).is_some() && !out.contains(&sq) {
                    out.push(sq);
                }
            }
        }
    }
    out
}

/// The corpus games, a stride through them so a test meets many kinds of games quickly.
fn sample(step: usize) -> Vec<(String, GameInput)> {
    corpus()
        .into_iter()
        .step_by(step)
        .map(|(n, p)| {
            let g = GameInput::from_pgn(&p).unwrap();
            (n, g)
        })
        .collect()
}

fn with(irregularities: Vec<Irregularity>, seed: u64) -> HandOptions {
    HandOptions {
        seed,
        irregularities,
        variations: Variations::all(),
        ..HandOptions::default()
    }
}

/// What an injected illegal attempt must look like; returns the checked category.
fn check_illegal_attempt(name: &str, game: &GameInput, script: &Script, kind: IllegalKind) {
    let inj = script
        .injected
        .iter()
        .find(|i| i.irregularity == Irregularity::Illegal(kind))
        .unwrap_or_else(|| panic!("{name}: {kind:?} not injected"));
    let positions = game.positions().unwrap();
    let pos = positions[inj.index];
    let real = game.moves[inj.index];
    let color = pos.side_to_move();
    let i = find(script, 0, "illegal_move").unwrap();
    let e = &script.expected[i];
    let Expected::IllegalMove {
        color: c,
        category,
        attempt,
        count,
        restore_fen,
        restore,
        must_move,
        ruling,
    } = &e.event
    else {
        unreachable!()
    };
    let ctx = format!("{name} {kind:?} at ply {} ({})", inj.ply, pos.fen());
    assert_eq!(*c, color, "{ctx}");
    assert_eq!(*category, kind.category(), "{ctx}");
    assert_eq!(*count, 1, "{ctx}");
    assert_eq!(*restore_fen, pos.fen(), "{ctx}");
    assert_eq!(
        *ruling,
        Ruling::Penalty {
            to: color.opponent()
        },
        "{ctx}"
    );
    // The board at the press, classified independently.
    let turn_start = script
        .plies
        .get(inj.index.wrapping_sub(1))
        .filter(|_| inj.index > 0)
        .and_then(|p| p.press_ms)
        .unwrap_or(0);
    let at_press = replay_to(script, e.at_ms);
    let board = at_press.board;
    assert_ne!(board, *pos.placement(), "{ctx}: nothing changed");
    assert!(
        pos.move_to_placement(&board).is_none(),
        "{ctx}: a legal move"
    );
    assert_eq!(
        running(&at_press),
        Some(color.opponent()),
        "{ctx}: press did not flip"
    );
    let lifted = lifted_between(script, pos.placement(), turn_start, e.at_ms);
    assert_eq!(
        lifted.first().copied(),
        inj.touched.first().map(|t| t.0),
        "{ctx}"
    );
    match pos.classify(&board, &lifted) {
        Classification::Illegal {
            category: cat,
            attempt: att,
            restore: steps,
        } => {
            assert_eq!(cat, kind.category(), "{ctx}");
            assert_eq!(att, *attempt, "{ctx}");
            assert_eq!(steps, *restore, "{ctx}");
        }
        other => panic!("{ctx}: classified {other:?}"),
    }
    check_kind_semantics(&ctx, &positions, inj.index, &board, kind);
    // must_move: the first piece touched, if the offender's and movable.
    let first = inj.touched[0];
    let want_must = (first.1.color == color && pos.can_move_from(first.0)).then_some(first.0);
    assert_eq!(*must_move, want_must, "{ctx}");
    // Restored: the board is the position again.
    let r = &script.expected[i + 1];
    assert_eq!(r.event, Expected::Restored { fen: pos.fen() }, "{ctx}");
    let restored = replay_to(script, r.at_ms);
    assert_eq!(restored.board, *pos.placement(), "{ctx}: not restored");
    // The arbiter handed the move back: the offender's time runs before he replays.
    let p = &script.plies.iter().find(|p| p.index == inj.index).unwrap();
    let back = replay_to(script, p.turn_start_ms);
    assert_eq!(running(&back), Some(color), "{ctx}: clock not handed back");
    // Then the real move, and a touch-move violation if it breaks the obligation.
    let m = &script.expected[i + 2];
    assert!(
        matches!(&m.event, Expected::Move { mv, .. } if *mv == real),
        "{ctx}: {m:?}"
    );
    let breaks = matches!(
        script.expected.get(i + 3).map(|e| &e.event),
        Some(Expected::TouchMove {
            violation: true,
            ..
        })
    );
    assert_eq!(breaks, inj.breaks_touch_move, "{ctx}");
    if let Some(sq) = must_move {
        assert_eq!(breaks, real.from != *sq, "{ctx}");
    }
    // Everything else in the game as normal.
    check_script(game, script).unwrap_or_else(|e| panic!("{ctx}: {e}"));
}

/// The attempt is what its kind says, judged from the positions alone.
fn check_kind_semantics(
    ctx: &str,
    positions: &[Position],
    index: usize,
    board: &Placement,
    kind: IllegalKind,
) {
    let pos = &positions[index];
    let color = pos.side_to_move();
    let diff: Vec<_> = pos.placement().diff(board).collect();
    // The one own piece that moved, for single-piece kinds.
    let moved = || {
        let left = |d: &&chess_rules::SquareDiff| {
            d.before.is_some_and(|p| p.color == color) && d.after.is_none()
        };
        // The king, if it moved (a castling attempt), else the one piece that left.
        let from = diff
            .iter()
            .filter(left)
            .find(|d| d.before.is_some_and(|p| p.role == Role::King))
            .or_else(|| diff.iter().find(left))
            .unwrap_or_else(|| panic!("{ctx}: no piece left a square"));
        let piece = from.before.unwrap();
        let to = diff
            .iter()
            .find(|d| d.after == Some(piece))
            .unwrap_or_else(|| panic!("{ctx}: the piece landed nowhere"));
        (from.square, to.square, piece)
    };
    use IllegalKind::*;
    match kind {
        PinnedPiece | KingIntoCheck | KingNextToKing | CheckNotParried => {
            let (from, to, piece) = moved();
            let m = chess_rules::Move::new(from, to, None);
            assert!(pos.is_pseudo_legal(m) && !pos.is_legal(m), "{ctx}");
            assert_eq!(pos.is_check(), kind == CheckNotParried, "{ctx}");
            let enemy_king = pos.king(color.opponent());
            let near = |s: Square| {
                s.file().index().abs_diff(enemy_king.file().index()) <= 1
                    && s.rank().index().abs_diff(enemy_king.rank().index()) <= 1
            };
            match kind {
                PinnedPiece => assert_ne!(piece.role, Role::King, "{ctx}"),
                KingIntoCheck => assert!(piece.role == Role::King && !near(to), "{ctx}"),
                KingNextToKing => assert!(piece.role == Role::King && near(to), "{ctx}"),
                _ => {}
            }
        }
        CastlingThroughCheck
        | CastlingOutOfCheck
        | CastlingIntoCheck
        | CastlingAfterKingOrRookMoved
        | CastlingThroughPieces => {
            let (from, to, piece) = moved();
            assert_eq!(piece.role, Role::King, "{ctx}");
            let m = chess_rules::Move::new(from, to, None);
            let side = pos
                .castle_side(m)
                .unwrap_or_else(|| panic!("{ctx}: not castling"));
            assert!(!pos.is_legal(m), "{ctx}");
            let rank = color.back_rank();
            let passing = Square::new(side.rook_to_file(), rank);
            let enemy = color.opponent();
            match kind {
                CastlingAfterKingOrRookMoved => {
                    assert!(!pos.castling().has(color, side), "{ctx}");
                    // They stand at home, so they moved and came back.
                    assert!(
                        positions[..index].iter().any(|p| {
                            p.piece_at(m.from) != pos.piece_at(m.from)
                                || p.piece_at(Square::new(side.rook_from_file(), rank))
                                    != pos.piece_at(Square::new(side.rook_from_file(), rank))
                        }) || !positions[0].castling().has(color, side),
                        "{ctx}"
                    );
                }
                CastlingThroughPieces => {
                    assert_eq!(side, CastleSide::QueenSide, "{ctx}");
                    assert!(
                        pos.piece_at(Square::new(chess_rules::File::B, rank))
                            .is_some(),
                        "{ctx}"
                    );
                }
                CastlingOutOfCheck => assert!(pos.is_check(), "{ctx}"),
                CastlingThroughCheck => assert!(pos.is_attacked(passing, enemy), "{ctx}"),
                _ => assert!(pos.is_attacked(to, enemy), "{ctx}"),
            }
        }
        EnPassantLate => {
            let (from, to, piece) = moved();
            assert_eq!(piece.role, Role::Pawn, "{ctx}");
            let earlier = &positions[index - 2];
            assert_eq!(earlier.legal_en_passant(), Some(to), "{ctx}");
            assert!(
                earlier.is_legal(chess_rules::Move::new(from, to, None)),
                "{ctx}"
            );
            assert_eq!(pos.legal_en_passant(), None, "{ctx}");
        }
        BishopOffDiagonal | SliderJumping | PawnCapturingStraight | KnightWrong => {
            let (from, to, piece) = moved();
            assert!(
                !pos.is_pseudo_legal(chess_rules::Move::new(from, to, None)),
                "{ctx}"
            );
            let role = match kind {
                BishopOffDiagonal => Some(Role::Bishop),
                PawnCapturingStraight => Some(Role::Pawn),
                KnightWrong => Some(Role::Knight),
                _ => None,
            };
            if let Some(role) = role {
                assert_eq!(piece.role, role, "{ctx}");
            }
            match kind {
                BishopOffDiagonal => assert!(
                    from.file() == to.file() || from.rank() == to.rank(),
                    "{ctx}"
                ),
                PawnCapturingStraight => {
                    assert_eq!(from.file(), to.file(), "{ctx}");
                    assert!(pos.piece_at(to).is_some_and(|p| p.color != color), "{ctx}");
                }
                SliderJumping => {
                    let path = super::super::motion::between(from, to);
                    assert!(path.iter().any(|s| pos.piece_at(*s).is_some()), "{ctx}");
                }
                _ => {}
            }
        }
        WrongColor => {
            assert!(
                diff.iter()
                    .any(|d| d.after.is_some_and(|p| p.color != color)),
                "{ctx}"
            );
        }
        MultipleMoves => {
            let left = diff
                .iter()
                .filter(|d| d.before.is_some_and(|p| p.color == color))
                .count();
            let arrived = diff
                .iter()
                .filter(|d| d.after.is_some_and(|p| p.color == color))
                .count();
            assert!(left == 2 && arrived == 2, "{ctx}");
        }
        PieceAdded | PieceRemoved => {
            let count = |b: &Placement| b.pieces().filter(|(_, p)| p.color == color).count();
            let before = count(pos.placement());
            let after = count(board);
            if kind == PieceAdded {
                assert_eq!(after, before + 1, "{ctx}");
            } else {
                assert_eq!(after + 1, before, "{ctx}");
            }
        }
    }
}

#[test]
fn every_kind_of_illegal_move_in_real_games() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let started = std::time::Instant::now();
    let games = sample(3);
    let mut found: std::collections::BTreeMap<IllegalKind, usize> = Default::default();
    let mut dirty = 0;
    for kind in IllegalKind::ALL {
        for (gi, (name, game)) in games.iter().enumerate() {
            let script = generate(game, &with(vec![Irregularity::Illegal(kind)], gi as u64))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            if script.injected.is_empty() {
                assert_eq!(script.skipped.len(), 1);
                continue;
            }
            check_illegal_attempt(name, game, &script, kind);
            if script.injected[0].breaks_touch_move {
                dirty += 1;
            }
            let n = found.entry(kind).or_default();
            *n += 1;
            if *n == 5 {
                break;
            }
        }
    }
    eprintln!(
        "illegal kinds: {found:?} ({dirty} replacements break touch-move) in {:.2?}",
        started.elapsed()
    );
    for kind in IllegalKind::ALL {
        // A piece of the mover's gone beside a legal move is a displaced piece (art. 7.4,
        // arbiter-rules.md), not an illegal move: the classifier never calls it one.
        if kind == IllegalKind::PieceRemoved {
            assert_eq!(found.get(&kind), None, "{kind:?} ruled illegal");
            continue;
        }
        assert!(
            found.get(&kind).copied().unwrap_or(0) >= 1,
            "{kind:?} found in no game"
        );
    }
}

#[test]
fn a_clock_press_without_a_move_is_ruled_restored_at_once_and_handed_back() {
    let game = uci_game(
        chess_rules::START_FEN,
        &[
            "d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4", "e2e3", "e8g8",
        ],
    );
    for seed in 0..8 {
        let script = generate(&game, &with(vec![Irregularity::ClockWithoutMove], seed)).unwrap();
        let inj = &script.injected[0];
        let positions = game.positions().unwrap();
        let pos = positions[inj.index];
        let color = pos.side_to_move();
        let i = find(&script, 0, "illegal_move").unwrap();
        let e = &script.expected[i];
        assert_eq!(
            e.event,
            Expected::IllegalMove {
                color,
                category: chess_rules::IllegalCategory::ClockWithoutMove,
                attempt: None,
                count: 1,
                restore_fen: pos.fen(),
                restore: Vec::new(),
                must_move: None,
                ruling: Ruling::Penalty {
                    to: color.opponent()
                },
            }
        );
        assert_eq!(
            script.expected[i + 1].event,
            Expected::Restored { fen: pos.fen() }
        );
        assert_eq!(script.expected[i + 1].at_ms, e.at_ms, "restored at once");
        // Nothing on the board moved before the press; the press flipped the lever.
        let r = replay_to(&script, e.at_ms);
        assert_eq!(r.board, *pos.placement());
        assert_eq!(
            script
                .actions
                .iter()
                .find(|a| a.at_ms == e.at_ms)
                .map(|a| &a.action),
            Some(&Action::PressClock(color))
        );
        assert_eq!(running(&r), Some(color.opponent()));
        // The arbiter stopped the clock, handed it back, and the offender then moved.
        let p = script.plies.iter().find(|p| p.index == inj.index).unwrap();
        assert_eq!(running(&replay_to(&script, p.turn_start_ms)), Some(color));
        assert!(
            matches!(&script.expected[i + 2].event, Expected::Move { mv, .. } if *mv == game.moves[inj.index])
        );
        check_script(&game, &script).unwrap();
    }
}

#[test]
fn an_unpromoted_pawn_becomes_the_queen_promotion_and_takes_the_ply() {
    // 1. e4 d5 2. exd5 c6 3. dxc6 Nf6 4. cxb7 Nbd7 5. bxa8=Q
    let game = uci_game(
        chess_rules::START_FEN,
        &[
            "e2e4", "d7d5", "e4d5", "c7c6", "d5c6", "g8f6", "c6b7", "b8d7", "b7a8q", "e7e6",
        ],
    );
    let script = generate(&game, &with(vec![Irregularity::UnpromotedPawn], 3)).unwrap();
    let inj = &script.injected[0];
    assert_eq!(inj.index, 8);
    let positions = game.positions().unwrap();
    let (pos, after) = (&positions[8], &positions[9]);
    let m = game.moves[8];
    let i = find(&script, 0, "illegal_move").unwrap();
    let e = &script.expected[i];
    let Expected::IllegalMove {
        category,
        restore_fen,
        must_move,
        attempt,
        ..
    } = &e.event
    else {
        unreachable!()
    };
    assert_eq!(*category, chess_rules::IllegalCategory::UnpromotedPawn);
    assert_eq!(*restore_fen, after.fen());
    assert_eq!(*must_move, None);
    assert_eq!(
        attempt.map(|a| (a.from, a.to, a.piece.role)),
        Some((m.from, m.to, Role::Pawn))
    );
    // The board at the press: the pawn on the last rank, which the classifier corrects
    // into this very promotion.
    let board = replay_to(&script, e.at_ms).board;
    match pos.classify(&board, &[m.from]) {
        Classification::UnpromotedPawn { correction, .. } => assert_eq!(correction, m),
        other => panic!("{other:?}"),
    }
    assert!(matches!(&script.expected[i + 1].event, Expected::Move { mv, ply: 9, .. } if *mv == m));
    let r = &script.expected[i + 2];
    assert_eq!(r.event, Expected::Restored { fen: after.fen() });
    assert_eq!(replay_to(&script, r.at_ms).board, *after.placement());
    check_script(&game, &script).unwrap();
}

#[test]
fn touching_another_piece_then_moving_one_is_a_touch_move_violation() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let games = sample(97);
    let mut checked = 0;
    for (gi, (name, game)) in games.iter().enumerate() {
        let script = generate(game, &with(vec![Irregularity::TouchOtherPiece], gi as u64)).unwrap();
        let Some(inj) = script.injected.first() else {
            continue;
        };
        let positions = game.positions().unwrap();
        let pos = positions[inj.index];
        let m = game.moves[inj.index];
        let p = script.plies.iter().find(|p| p.index == inj.index).unwrap();
        let touched = p.adjusted.unwrap();
        assert_ne!(touched, m.from, "{name}");
        assert!(
            pos.can_move_from(touched),
            "{name}: touched piece cannot move"
        );
        // The touched piece was lifted first in the turn.
        let lifted = lifted_between(&script, pos.placement(), p.turn_start_ms, p.made_at_ms);
        assert_eq!(lifted[..2], [touched, m.from], "{name}");
        let i = find(&script, 0, "touch_move").unwrap();
        assert!(matches!(&script.expected[i - 1].event, Expected::Move { mv, .. } if *mv == m));
        assert_eq!(
            script.expected[i].event,
            Expected::TouchMove {
                color: pos.side_to_move(),
                touched: vec![
                    (touched, pos.piece_at(touched).unwrap()),
                    (m.from, pos.piece_at(m.from).unwrap())
                ],
                obligation: Obligation::Move,
                played: m,
                violation: true,
            }
        );
        check_script(game, &script).unwrap_or_else(|e| panic!("{name}: {e}"));
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}

/// A game where both sides castle short (White at index 6).
fn castling_game() -> GameInput {
    uci_game(
        chess_rules::START_FEN,
        &[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1", "g8f6", "d2d3", "e8g8",
        ],
    )
}

#[test]
fn castling_rook_first_is_a_touch_move_violation() {
    let game = castling_game();
    for seed in 0..6 {
        let script = generate(&game, &with(vec![Irregularity::RookBeforeKing], seed)).unwrap();
        let inj = &script.injected[0];
        let p = script.plies.iter().find(|p| p.index == inj.index).unwrap();
        assert_eq!(p.style, MoveStyle::CastlingRookFirst);
        let pos = game.positions().unwrap()[inj.index];
        let color = pos.side_to_move();
        let (_, rook_from, _) = pos.move_info(p.mv).unwrap().castling.unwrap();
        let lifted = lifted_between(&script, pos.placement(), p.turn_start_ms, p.made_at_ms);
        assert_eq!(lifted, [rook_from, p.mv.from]);
        let i = find(&script, 0, "touch_move").unwrap();
        assert_eq!(
            script.expected[i].event,
            Expected::TouchMove {
                color,
                touched: vec![
                    (rook_from, chess_rules::Piece::new(color, Role::Rook)),
                    (p.mv.from, chess_rules::Piece::new(color, Role::King))
                ],
                obligation: Obligation::Move,
                played: p.mv,
                violation: true,
            }
        );
        check_script(&game, &script).unwrap();
    }
}

#[test]
fn a_two_handed_castling_has_king_and_rook_off_the_board_together() {
    let game = castling_game();
    for seed in 0..6 {
        let script = generate(&game, &with(vec![Irregularity::TwoHandedCastling], seed)).unwrap();
        let inj = &script.injected[0];
        let p = script.plies.iter().find(|p| p.index == inj.index).unwrap();
        let pos = game.positions().unwrap()[inj.index];
        let (_, rook_from, rook_to) = pos.move_info(p.mv).unwrap().castling.unwrap();
        let king = chess_rules::Piece::new(pos.side_to_move(), Role::King);
        // Both off the board (in the hands) for longer than a scan.
        let mut r = Replayer::new(&script);
        let mut both_off_since = None;
        let mut longest = 0;
        for i in p.motion.clone() {
            r.until(i + 1);
            let t = script.actions[i].at_ms;
            let off = r.board.squares_of(king).next().is_none()
                && r.board.get(rook_from).is_none()
                && r.board.get(rook_to).is_none();
            match (off, both_off_since) {
                (true, None) => both_off_since = Some(t),
                (false, Some(s)) => {
                    longest = longest.max(t - s);
                    both_off_since = None;
                }
                _ => {}
            }
        }
        assert!(
            longest >= 500,
            "both off for {longest} ms: {:?}",
            &script.actions[p.motion.clone()]
        );
        let i = find(&script, 0, "two_handed_suspected").unwrap();
        assert!(matches!(&script.expected[i - 1].event, Expected::Move { mv, .. } if *mv == p.mv));
        assert_eq!(
            script.expected[i].event,
            Expected::TwoHandedSuspected {
                color: pos.side_to_move(),
                mv: p.mv
            }
        );
        check_script(&game, &script).unwrap();
    }
}

#[test]
fn a_flag_falls_when_a_player_thinks_longer_than_his_time() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let games = sample(151);
    let mut draws = 0;
    for (gi, (name, game)) in games.iter().enumerate() {
        let script = generate(game, &with(vec![Irregularity::FlagFall], gi as u64)).unwrap();
        let Some(inj) = script.injected.first() else {
            assert!(game.moves.len() < 3, "{name}: {:?}", script.skipped);
            continue;
        };
        let pos = game.positions().unwrap()[inj.index];
        let loser = pos.side_to_move();
        let last = script.expected.last().unwrap();
        let want = match pos.can_mate(loser.opponent()) {
            CanMate::Yes => GameResult::win_for(loser.opponent()),
            CanMate::No => GameResult::Draw,
            CanMate::Undetermined => panic!("{name}: undetermined"),
        };
        draws += usize::from(want == GameResult::Draw);
        assert_eq!(
            last.event,
            Expected::GameOver {
                result: want,
                reason: EndReason::Flag
            },
            "{name}"
        );
        // The flag is down exactly then, not before, and nothing is played after.
        let before = replay_to(&script, last.at_ms - 1);
        assert_eq!(before.emu.flag(), None, "{name}");
        let at = replay_to(&script, last.at_ms);
        assert_eq!(at.emu.flag(), Some(at.emu.side_of(loser)), "{name}");
        assert!(script.actions.last().unwrap().at_ms < last.at_ms);
        assert_eq!(script.plies.len(), inj.index, "{name}");
        check_script(game, &script).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    eprintln!("flag falls in {} games ({draws} drawn)", games.len());
}

#[test]
fn a_second_illegal_move_ends_the_game_lost_or_drawn_by_material() {
    // White has king and pawn against a bare king: Black's second illegal move loses,
    // White's is a draw (a bare king cannot mate).
    let game = uci_game(
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        &[
            "e1d2", "e8d8", "d2d3", "d8c7", "d3d4", "c7d6", "e2e3", "d6e6", "e3e4", "e6d6",
        ],
    );
    let (mut lost, mut drawn) = (0, 0);
    for seed in 0..40 {
        let opts = HandOptions {
            allow_second_illegal: true,
            ..with(vec![Irregularity::ClockWithoutMove; 3], seed)
        };
        let script = generate(&game, &opts).unwrap();
        let i = script
            .expected
            .iter()
            .position(|e| matches!(e.event, Expected::IllegalMove { count: 2, .. }));
        let Some(i) = i else { continue };
        let Expected::IllegalMove {
            color,
            ruling,
            must_move,
            ..
        } = &script.expected[i].event
        else {
            unreachable!()
        };
        let result = match color {
            Color::White => GameResult::Draw,
            Color::Black => GameResult::WhiteWins,
        };
        assert_eq!(*ruling, Ruling::Result(result), "seed {seed}");
        assert_eq!(*must_move, None);
        assert_eq!(
            script.expected[i + 1].event,
            Expected::GameOver {
                result,
                reason: EndReason::SecondIllegalMove
            }
        );
        assert_eq!(i + 2, script.expected.len(), "nothing after the end");
        if result == GameResult::Draw {
            drawn += 1;
        } else {
            lost += 1;
        }
        check_script(&game, &script).unwrap();
    }
    assert!(lost > 0 && drawn > 0, "lost {lost}, drawn {drawn}");
}

/// The squares a host sees emptied, in order, between two script times, on an emulated
/// board that scans every `scan_ms`.
fn host_lifts(script: &Script, scan_ms: u64, from: u64, to: u64) -> Vec<Square> {
    use dgt_protocol::{BoardMessage, Decoder, Orientation, PieceCode};
    let mut emu = crate::Emulator::new(crate::EmulatorConfig {
        scan_interval_ms: scan_ms,
        ..script.emulator_config()
    });
    emu.receive(&[0x44]); // SEND_UPDATE_BRD: field updates only
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    let mut take = |emu: &mut crate::Emulator, out: &mut Vec<Square>| {
        for chunk in emu.take_output() {
            for msg in decoder.push(&chunk.bytes) {
                if let Ok(BoardMessage::FieldUpdate(u)) = msg {
                    if u.piece == PieceCode::Empty
                        && chunk.t_ms > from
                        && chunk.t_ms <= to + scan_ms
                    {
                        out.push(u.field.square(Orientation::Normal));
                    }
                }
            }
        }
    };
    for a in &script.actions {
        emu.apply_at(a.at_ms, &a.action);
        take(&mut emu, &mut out);
    }
    emu.advance_to(script.end_ms);
    take(&mut emu, &mut out);
    out
}

#[test]
fn a_scanning_board_reports_every_touch_the_expectations_rely_on_in_order() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let games = sample(41);
    let mut checked = 0;
    for (gi, (name, game)) in games.iter().enumerate() {
        let irr = [
            Irregularity::TouchOtherPiece,
            Irregularity::RookBeforeKing,
            Irregularity::Illegal(IllegalKind::CastlingThroughPieces),
            Irregularity::Illegal(IllegalKind::MultipleMoves),
            Irregularity::Illegal(IllegalKind::PieceRemoved),
            Irregularity::Illegal(IllegalKind::EnPassantLate),
            Irregularity::Illegal(IllegalKind::WrongColor),
        ][gi % 7];
        let script = generate(game, &with(vec![irr], gi as u64)).unwrap();
        let Some(inj) = script.injected.first() else {
            continue;
        };
        let pos = game.positions().unwrap()[inj.index];
        let p = script.plies.iter().find(|p| p.index == inj.index).unwrap();
        let turn_start = if inj.index == 0 {
            0
        } else {
            script.plies[inj.index - 1].press_ms.unwrap_or(0)
        };
        // The touches whose order the expected events depend on.
        let (want, until): (Vec<Square>, u64) = match irr {
            Irregularity::TouchOtherPiece => (vec![p.adjusted.unwrap(), p.mv.from], p.made_at_ms),
            Irregularity::RookBeforeKing => {
                let (_, rook, _) = pos.move_info(p.mv).unwrap().castling.unwrap();
                (vec![rook, p.mv.from], p.made_at_ms)
            }
            _ => {
                let press = script
                    .expected
                    .iter()
                    .find(|e| e.event.kind() == "illegal_move")
                    .unwrap()
                    .at_ms;
                (inj.touched.iter().map(|t| t.0).collect(), press)
            }
        };
        for scan in [200, 250] {
            let seen: Vec<Square> = host_lifts(&script, scan, turn_start, until)
                .into_iter()
                .filter(|s| pos.piece_at(*s).is_some())
                .fold(Vec::new(), |mut v, s| {
                    if !v.contains(&s) {
                        v.push(s);
                    }
                    v
                });
            assert!(
                seen.len() >= want.len() && seen[..want.len()] == want[..],
                "{name} {irr} scan {scan}: host saw {seen:?}, expectations rely on {want:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
}
