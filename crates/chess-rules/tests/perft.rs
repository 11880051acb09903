//! Perft: legal move generation and move playing through our own `Position` API, against
//! the node counts of the suites in `shared/data/perft` (chessprogramming.org positions,
//! Kiwipete, en passant and castling traps, 6,838 random positions, perftsuite.epd).
//!
//! Each position is run to the deepest depth whose expected count fits a node budget
//! (`PERFT_NODE_BUDGET`; by default 100,000 for the 6,838 random positions, 1,000,000 for
//! perftsuite.epd and 10,000,000 for the small tricky suites). The opt-in test `perft_deep` (run with `--ignored`) goes to
//! 100,000,000 nodes a position.
//!
//! Chess960: scalachess's `chess960.perft` (960 positions, Shredder-FEN) to 200,000 nodes a
//! position, the tricky suite's X-FEN positions, and its standard positions read as
//! Chess960 ones (castling then made by our own layer); `perft_chess960_deep` (ignored)
//! goes to 10,000,000 nodes a position.

mod common;

use std::time::Instant;

use chess_rules::{FenError, Position, PositionError};

struct Case {
    id: String,
    fen: String,
    counts: Vec<(u32, u64)>,
}

/// Reads the `id` / `epd` / `perft DEPTH NODES` blocks of a `.perft` file.
fn read_perft(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(id) = line.strip_prefix("id ") {
            cases.push(Case {
                id: id.to_owned(),
                fen: String::new(),
                counts: Vec::new(),
            });
        } else if let Some(epd) = line.strip_prefix("epd ") {
            cases.last_mut().expect("epd before id").fen = epd.to_owned();
        } else if let Some(p) = line.strip_prefix("perft ") {
            let mut it = p.split_whitespace();
            let depth = it.next().unwrap().parse().unwrap();
            let nodes = it.next().unwrap().parse().unwrap();
            cases
                .last_mut()
                .expect("perft before id")
                .counts
                .push((depth, nodes));
        }
    }
    cases
}

/// Reads `FEN ;D1 n ;D2 n ...` lines of a perftsuite `.epd` file.
fn read_epd_suite(text: &str) -> Vec<Case> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .enumerate()
        .map(|(i, line)| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_owned();
            let counts = parts
                .map(|p| {
                    let p = p.trim();
                    let (d, n) = p.split_once(' ').unwrap();
                    (
                        d.trim_start_matches('D').parse().unwrap(),
                        n.trim().parse().unwrap(),
                    )
                })
                .collect();
            Case {
                id: format!("line {}", i + 1),
                fen,
                counts,
            }
        })
        .collect()
}

fn parse(fen: &str) -> Result<Position, FenError> {
    match fen.split_whitespace().count() {
        4 => Position::from_epd(fen),
        _ => Position::from_fen(fen),
    }
}

struct Outcome {
    positions: usize,
    checks: usize,
    nodes: u64,
    skipped: Vec<String>,
}

/// Reads a position as a Chess960 one (X-FEN or Shredder-FEN castling field).
fn parse_960(fen: &str) -> Result<Position, FenError> {
    match fen.split_whitespace().count() {
        4 => Position::from_epd_960(fen),
        _ => Position::from_fen_960(fen),
    }
}

/// Checks every count of `cases` up to `budget` nodes, reading each position with `read`.
fn run_960(cases: &[Case], budget: u64) -> Outcome {
    let mut out = Outcome {
        positions: 0,
        checks: 0,
        nodes: 0,
        skipped: Vec::new(),
    };
    for case in cases {
        let pos = parse_960(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.id));
        out.positions += 1;
        for &(depth, expected) in case.counts.iter().filter(|(_, n)| *n <= budget) {
            assert_eq!(
                pos.perft(depth),
                expected,
                "{} ({}) depth {depth}",
                case.id,
                case.fen
            );
            out.checks += 1;
            out.nodes += expected;
        }
    }
    out
}

fn run(cases: &[Case], budget: u64) -> Outcome {
    let mut out = Outcome {
        positions: 0,
        checks: 0,
        nodes: 0,
        skipped: Vec::new(),
    };
    for case in cases {
        let pos = match parse(&case.fen) {
            Ok(p) => p,
            // Chess960 (X-FEN, Shredder-FEN) castling rights, where the rook is not on the
            // a- or h-file or the king not on e1/e8 (standard chess only here), and
            // positions no game can reach (castling rights for a king not on e1/e8, 28
            // white pieces): the strict reader refuses them.
            Err(FenError::Castling(_))
            | Err(FenError::Position {
                error: PositionError::CastlingRight { .. } | PositionError::TooManyPieces { .. },
                ..
            }) => {
                out.skipped.push(case.id.clone());
                continue;
            }
            Err(e) => panic!("{}: {e}", case.id),
        };
        out.positions += 1;
        for &(depth, expected) in &case.counts {
            if expected > budget {
                continue;
            }
            assert_eq!(
                pos.perft(depth),
                expected,
                "{} ({}) depth {depth}",
                case.id,
                case.fen
            );
            out.checks += 1;
            out.nodes += expected;
        }
    }
    out
}

fn budget(default: u64) -> u64 {
    std::env::var("PERFT_NODE_BUDGET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn suite(file: &str, default_budget: u64) -> Outcome {
    let started = Instant::now();
    let text = test_data::read_text(format!("perft/{file}"));
    let cases = if file.ends_with(".epd") {
        read_epd_suite(&text)
    } else {
        read_perft(&text)
    };
    assert!(!cases.is_empty(), "{file} has no positions");
    let out = run(&cases, budget(default_budget));
    common::report(
        &format!("perft {file}"),
        &format!(
            "{} positions ({} refused as Chess960 or impossible: {:?}), {} counts, {} nodes",
            out.positions,
            out.skipped.len(),
            out.skipped,
            out.checks,
            out.nodes
        ),
        started,
    );
    out
}

/// The positions of the tricky suites the strict reader refuses, by id.
fn expected_refusal(id: &str) -> bool {
    id.starts_with("xfen-")
        || matches!(
            id,
            "hside-rook-blocks-aside-castling"
                | "asymmetrical-and-king-on-h"
                | "two-knight-checkers"
                | "max-legals-too-much-material"
        )
}

#[test]
fn perft_scalachess_tricky() {
    let out = suite("scalachess-tricky.perft", 10_000_000);
    assert!(
        out.skipped.iter().all(|id| expected_refusal(id)),
        "{:?}",
        out.skipped
    );
    assert_eq!(out.positions, 12);
}

#[test]
fn perft_shakmaty_tricky() {
    if !test_data::have("perft/shakmaty-tricky.perft") {
        return;
    }
    let out = suite("shakmaty-tricky.perft", 10_000_000);
    assert!(
        out.skipped.iter().all(|id| expected_refusal(id)),
        "{:?}",
        out.skipped
    );
    assert_eq!(out.positions, 17);
}

#[test]
fn perft_python_chess_tricky() {
    if !test_data::have("perft/python-chess-tricky.perft") {
        return;
    }
    let out = suite("python-chess-tricky.perft", 10_000_000);
    assert!(
        out.skipped.iter().all(|id| expected_refusal(id)),
        "{:?}",
        out.skipped
    );
    assert_eq!(out.positions, 13);
}

#[test]
fn perft_perftsuite() {
    if !test_data::have("perft/pychess-perftsuite.epd") {
        return;
    }
    let out = suite("pychess-perftsuite.epd", 1_000_000);
    assert!(out.skipped.is_empty());
    assert_eq!(out.positions, 127);
}

#[test]
fn perft_perftsuite2() {
    if !test_data::have("perft/pychess-perftsuite2.epd") {
        return;
    }
    let out = suite("pychess-perftsuite2.epd", 10_000_000);
    assert!(out.skipped.is_empty());
    assert!(out.positions >= 10);
}

#[test]
fn perft_random() {
    let out = suite("scalachess-random.perft", 100_000);
    assert!(out.skipped.is_empty());
    assert_eq!(out.positions, 6838);
    assert!(out.checks >= 6838 * 3);
}

#[test]
#[ignore = "deep counts: minutes; run with --ignored"]
fn perft_deep() {
    if !test_data::have("perft/shakmaty-tricky.perft") {
        return;
    }
    for file in [
        "scalachess-tricky.perft",
        "shakmaty-tricky.perft",
        "python-chess-tricky.perft",
        "pychess-perftsuite.epd",
        "pychess-perftsuite2.epd",
    ] {
        suite(file, budget(100_000_000));
    }
}

fn suite_960(file: &str, default_budget: u64, keep: impl Fn(&Case) -> bool) -> Outcome {
    let started = Instant::now();
    let text = test_data::read_text(format!("perft/{file}"));
    let cases: Vec<Case> = read_perft(&text).into_iter().filter(|c| keep(c)).collect();
    assert!(!cases.is_empty(), "{file} has no positions");
    let out = run_960(&cases, budget(default_budget));
    common::report(
        &format!("perft {file} as Chess960"),
        &format!(
            "{} positions, {} counts, {} nodes",
            out.positions, out.checks, out.nodes
        ),
        started,
    );
    out
}

/// The 960 positions of scalachess's Chess960 suite (chessprogramming.org's, one from each
/// start position's family, castling rights on every kind of file), each to the deepest
/// count within 200,000 nodes by default (depth 3, some 4).
#[test]
fn perft_chess960() {
    let out = suite_960("scalachess-chess960.perft", 200_000, |_| true);
    assert_eq!(out.positions, 960);
    assert!(out.checks >= 960 * 2, "{} counts", out.checks);
}

/// The Chess960 castling positions of the tricky suite (X-FEN fields, a rook that blocks the
/// other side's castling, a king on the h-file), which the standard reader refuses.
#[test]
fn perft_scalachess_tricky_960() {
    let out = suite_960("scalachess-tricky.perft", 10_000_000, |c| {
        c.id.starts_with("xfen-")
            || matches!(
                c.id.as_str(),
                "hside-rook-blocks-aside-castling" | "asymmetrical-and-king-on-h"
            )
    });
    assert_eq!(out.positions, 6);
}

/// The standard positions of the tricky suite give the same counts read as Chess960 ones
/// (castling then generated by our own Chess960 layer, not the chess crate).
#[test]
fn perft_standard_positions_as_chess960() {
    let out = suite_960("scalachess-tricky.perft", 1_000_000, |c| {
        !c.id.starts_with("xfen-")
            && !matches!(
                c.id.as_str(),
                "hside-rook-blocks-aside-castling"
                    | "asymmetrical-and-king-on-h"
                    | "two-knight-checkers"
                    | "max-legals-too-much-material"
            )
    });
    assert_eq!(out.positions, 12);
}

#[test]
#[ignore = "deep Chess960 counts: minutes; run with --ignored"]
fn perft_chess960_deep() {
    suite_960("scalachess-chess960.perft", budget(10_000_000), |_| true);
}
