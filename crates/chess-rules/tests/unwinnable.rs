//! "Can this side still checkmate?" against the labels in `data/unwinnable` (see
//! `docs/test-data.md`):
//! chasolver's 3,414 hard positions (a quarter by default, all with `--ignored`; both
//! sides), a 1-in-16 sample of its 65,536
//! Lichess positions (both sides), and 40,000 Lichess games lost on time although the
//! opponent could not mate (the side not to move must come out "cannot mate").

mod common;

use std::time::Instant;

use chess_rules::{CanMate, Color, Position};

/// `XY FEN` lines: X is `W` if White can mate, `-` if not; Y likewise `B` for Black.
fn labelled(file: &str) -> Vec<(bool, bool, Position)> {
    test_data::read_text(format!("unwinnable/{file}"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (label, fen) = line.split_at(2);
            let fen = fen.trim();
            let pos = match fen.split_whitespace().count() {
                4 => Position::from_epd(fen),
                _ => Position::from_fen(fen),
            }
            .unwrap_or_else(|e| panic!("{file}: {line}: {e}"));
            let white = match &label[..1] {
                "W" => true,
                "-" => false,
                other => panic!("bad label {other:?} in {line}"),
            };
            let black = match &label[1..] {
                "B" => true,
                "-" => false,
                other => panic!("bad label {other:?} in {line}"),
            };
            (white, black, pos)
        })
        .collect()
}

/// Checks the full answer for both sides against the labels, and that the fast check
/// never claims "cannot mate" for a side that can. Returns the number of decisions.
fn check(cases: &[(bool, bool, Position)]) -> usize {
    let mut decisions = 0;
    for (white, black, pos) in cases {
        for (color, can) in [(Color::White, *white), (Color::Black, *black)] {
            let expected = if can { CanMate::Yes } else { CanMate::No };
            assert_eq!(pos.can_mate(color), expected, "{color} in {}", pos.fen());
            if can {
                assert_ne!(
                    pos.can_mate_fast(color),
                    CanMate::No,
                    "fast check unsound: {color} in {}",
                    pos.fen()
                );
            }
            decisions += 1;
        }
    }
    decisions
}

/// chasolver's hard positions: those with index `part (mod parts)` (interleaved, so the
/// test harness can run parts on several threads).
fn chasolver_positions_part(part: usize, parts: usize) {
    let started = Instant::now();
    let all = labelled("chasolver-positions.txt");
    assert_eq!(all.len(), 3_414);
    let mine: Vec<_> = all.into_iter().skip(part).step_by(parts).collect();
    let n = check(&mine);
    common::report(
        &format!("chasolver-positions part {part} of {parts}"),
        &format!("{} positions, {n} decisions", mine.len()),
        started,
    );
}

// The full search on all 3,414 hard positions costs about four CPU-minutes here (a few
// positions take seconds each), too much for every `cargo test`: by default two of eight
// interleaved parts run (854 positions, both sides); `--ignored` runs the other six.

#[test]
fn chasolver_positions_part_0_of_8() {
    chasolver_positions_part(0, 8);
}

#[test]
fn chasolver_positions_part_4_of_8() {
    chasolver_positions_part(4, 8);
}

#[test]
#[ignore = "about 3 CPU-minutes; run with --ignored"]
fn chasolver_positions_other_parts() {
    for part in [1, 2, 3, 5, 6, 7] {
        chasolver_positions_part(part, 8);
    }
}

#[test]
fn chasolver_lichess_sample() {
    let started = Instant::now();
    // Every 16th of chasolver's 65,536 (the repository's copy holds just these; test-data
    // checks it against the original when the shared folder is there).
    let sample = labelled("chasolver-lichess-1in16.txt");
    assert_eq!(sample.len(), 65_536 / 16);
    let n = check(&sample);
    common::report(
        "chasolver-lichess 1/16 sample",
        &format!("{} positions, {n} decisions", sample.len()),
        started,
    );
}

#[test]
fn unfair_timeouts_are_draws() {
    if !test_data::have("unwinnable/cha-lichess-unfair-timeouts-2022-04.txt") {
        return;
    }
    let started = Instant::now();
    let text = test_data::read_text("unwinnable/cha-lichess-unfair-timeouts-2022-04.txt");
    let mut count = 0;
    let mut by_fast_check = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields.len(), 7, "{line}");
        let pos =
            Position::from_fen(&fields[..6].join(" ")).unwrap_or_else(|e| panic!("{line}: {e}"));
        // The side to move flagged; its opponent must be unable to mate.
        let opponent = pos.side_to_move().opponent();
        if pos.can_mate_fast(opponent) == CanMate::No {
            by_fast_check += 1;
        } else {
            assert_eq!(pos.can_mate(opponent), CanMate::No, "{line}");
        }
        count += 1;
    }
    assert_eq!(count, 40_000);
    common::report(
        "unfair timeouts",
        &format!("{count} positions, {by_fast_check} settled by the fast check"),
        started,
    );
}
