//! Every game in `shared/data/pgn` (real OTB, online and broadcast games, about 2,500):
//! read, replay, and write the SAN of every move back exactly as the source wrote it
//! (check and mate marks included); write each game in export format and read it back.

mod common;

use std::time::Instant;

use chess_rules::{read_pgn, AutomaticEnd, Move, PgnGame, Position, Square, Status};

/// Some sources disambiguate among pseudo-legal moves ("Nge2" with the other knight
/// pinned). SAN disambiguates among legal moves only, so our shorter SAN is the right one
/// exactly when the source names a square that only a pinned rival made necessary.
fn redundant_disambiguation(pos: &Position, m: Move, ours: &str, theirs: &str) -> bool {
    let piece = pos.piece_at(m.from).unwrap();
    let pinned_rival = Square::all().any(|sq| {
        sq != m.from
            && pos.piece_at(sq) == Some(piece)
            && pos.is_pseudo_legal(Move::new(sq, m.to, None))
            && !pos.is_legal(Move::new(sq, m.to, None))
    });
    let (o, t) = (ours.as_bytes(), theirs.as_bytes());
    // Same letter, then the source has one or two extra disambiguation characters.
    pinned_rival && t.len() > o.len() && t[0] == o[0] && t[t.len() - (o.len() - 1)..] == o[1..]
}

/// Every game of the corpus, named `file.pgn#n`.
fn all_games() -> Vec<(String, PgnGame)> {
    test_data::pgn_corpus(read_pgn)
}

#[test]
fn every_game_replays_and_its_san_is_written_back_identically() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let started = Instant::now();
    let games = all_games();
    let mut plies = 0usize;
    let mut mismatches = Vec::new();
    let mut mates = 0usize;
    let mut overspecified = 0usize;
    for (game_name, pgn) in &games {
        let game = pgn.replay().unwrap_or_else(|e| panic!("{game_name}: {e}"));
        let written = game.san_moves();
        assert_eq!(written.len(), pgn.moves.len());
        for (i, (ours, theirs)) in written.iter().zip(&pgn.moves).enumerate() {
            plies += 1;
            let (pos, m) = (&game.positions()[i], game.moves()[i]);
            if *ours != theirs.san && redundant_disambiguation(pos, m, ours, &theirs.san) {
                overspecified += 1;
            } else if *ours != theirs.san {
                mismatches.push(format!(
                    "{game_name} ply {}: wrote {ours}, source {}",
                    i + 1,
                    theirs.san
                ));
            }
        }
        if pgn.moves.last().is_some_and(|m| m.san.ends_with('#')) {
            mates += 1;
            assert_eq!(game.position().status(), Status::Checkmate, "{game_name}");
            assert!(matches!(
                game.automatic_end(),
                Some(AutomaticEnd::Checkmate { .. })
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} SAN mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(games.len() >= 2_150, "only {} games", games.len());
    assert!(mates >= 100, "only {mates} games end in mate");
    common::report(
        "pgn replay + SAN",
        &format!(
            "{} games, {plies} plies, {mates} mates, {overspecified} source SANs that disambiguate against a pinned piece",
            games.len()
        ),
        started,
    );
}

#[test]
fn every_game_survives_export_and_reading_back() {
    if !test_data::have_pgn_corpus() {
        return;
    }
    let started = Instant::now();
    let games = all_games();
    for (game_name, pgn) in &games {
        let text = pgn.to_pgn();
        assert!(
            text.lines()
                .filter(|l| !l.starts_with('['))
                .all(|l| l.chars().count() <= 80),
            "{game_name}: a movetext line longer than 80 characters"
        );
        let back = read_pgn(text.as_bytes()).unwrap_or_else(|e| panic!("{game_name}: {e}\n{text}"));
        assert_eq!(back.len(), 1, "{game_name}");
        let back = &back[0];
        // The writer joins a move's comments into one brace group (strict readers take
        // one comment after a move): compare them joined.
        let joined = |c: &[String]| -> Vec<String> {
            Some(c.join(" "))
                .filter(|j| !j.is_empty())
                .into_iter()
                .collect()
        };
        assert_eq!(back.moves.len(), pgn.moves.len(), "{game_name}");
        for (b, m) in back.moves.iter().zip(&pgn.moves) {
            assert_eq!(
                (&b.san, &b.nags, b.clock_ms, b.comments.clone()),
                (&m.san, &m.nags, m.clock_ms, joined(&m.comments)),
                "{game_name}"
            );
        }
        assert_eq!(back.comments, joined(&pgn.comments), "{game_name}");
        for (name, value) in &pgn.tags {
            if name != "Result" {
                assert_eq!(
                    back.tag(name),
                    Some(value.as_str()),
                    "{game_name} tag {name}"
                );
            }
        }
        assert_eq!(back.to_pgn(), text, "{game_name}: export is not stable");
    }
    common::report(
        "pgn export round trip",
        &format!("{} games", games.len()),
        started,
    );
}

#[test]
fn clocks_are_read_from_lichess_and_livechess_games() {
    if !test_data::have("pgn/lichess-broadcaster/tournament-2") {
        return;
    }
    let games = read_pgn(&test_data::read(
        "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn",
    ))
    .unwrap();
    assert_eq!(games.len(), 438);
    let timed = games
        .iter()
        .filter(|g| !g.moves.is_empty() && g.moves.iter().all(|m| m.clock_ms.is_some()))
        .count();
    // Every Lichess game with moves carries a clock on every move.
    let with_moves = games.iter().filter(|g| !g.moves.is_empty()).count();
    assert_eq!(timed, with_moves);
    let broadcast = read_pgn(&test_data::read(
        "pgn/lichess-broadcaster/tournament-2/round-1/games.pgn",
    ))
    .unwrap();
    assert_eq!(broadcast.len(), 12);
    let missing: usize = broadcast
        .iter()
        .map(|g| g.moves.iter().filter(|m| m.clock_ms.is_none()).count())
        .sum();
    // SOURCES.md: 10 moves without %clk in the LiveChess export.
    assert_eq!(missing, 10);
    let zero_clock = broadcast[3].moves[34].clock_ms;
    assert_eq!(
        zero_clock,
        Some(0),
        "game 1.4 ply 35 shows the 00:00:00 glitch"
    );
}
