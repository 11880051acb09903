//! Real TRF files from a public tournament-file library (MIT, see docs/test-data.md):
//! read by columns, pairings of a round, results written back byte for byte.

use trf::{Colour, Encoding, GameKind, Outcome, ResultCode, Trf};

fn data(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/trf")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn gonzaga_classic_reads_by_columns() {
    let bytes = data("gonzaga_classic_2008.trf");
    let t = Trf::parse(&bytes).unwrap();
    assert_eq!(t.encoding(), Encoding::Ascii);
    assert_eq!(t.tournament_name(), Some("Gonzaga Classic"));
    assert_eq!(t.city(), Some("Dublin"));
    assert_eq!(t.players().len(), 12);
    assert_eq!(t.rounds_in_file(), 5);
    let p = t.player(2).unwrap();
    assert_eq!(p.name, "Hotak,Marian");
    assert_eq!(p.federation, "SVK");
    assert_eq!(p.fide_id, Some(14_909_677));
    assert_eq!(p.rating, None);
    assert_eq!(p.points_tenths, Some(35));
    // Every player's points column is the sum of their results (1-½-0, '=' bye ½).
    for p in t.players() {
        let sum: u32 = p.rounds.iter().map(|e| e.result.default_tenths()).sum();
        assert_eq!(p.points_tenths, Some(sum), "player {}", p.start_rank);
    }
    // Forfeits: 4 beat 11 by forfeit in round 4.
    assert_eq!(t.player(4).unwrap().entry(4).result, ResultCode::ForfeitWin);
    assert_eq!(
        t.player(11).unwrap().entry(4).result,
        ResultCode::ForfeitLoss
    );
    // The line of player 12 ends after round 3: rounds 4 and 5 are blank (absent).
    assert_eq!(t.player(12).unwrap().rounds.len(), 3);
    assert_eq!(t.to_bytes(), bytes, "written back unchanged");
}

#[test]
fn gonzaga_classic_round_pairings_in_board_order() {
    let t = Trf::parse(&data("gonzaga_classic_2008.trf")).unwrap();
    // Round 1: nobody has points: boards by the higher player's start rank.
    let r1 = t.round(1).unwrap();
    let pairs: Vec<(u16, u16)> = r1.games.iter().map(|g| (g.white, g.black)).collect();
    assert_eq!(pairs, vec![(2, 3), (7, 4), (10, 5), (12, 6), (11, 9)]);
    let byes: Vec<u16> = r1.unpaired.iter().map(|u| u.start_rank).collect();
    assert_eq!(byes, vec![1, 8]);
    // Round 5. Scores after round 4: 1:3.0 2:2.5 3:2.5 4:2.5 5:3.0 6:2.5 7:2.5 8:1.5
    // 9:1.5 10:1.0 11:1.5 12:0.5.
    let r5 = t.round(5).unwrap();
    let pairs: Vec<(u32, u16, u16)> = r5
        .games
        .iter()
        .map(|g| (g.board, g.white, g.black))
        .collect();
    // 7-1 (higher 1: 3.0, sum 5.5), 5-2 (higher 5: 3.0, sum 5.5): equal, rank 1 first;
    // 4-6 (2.5, sum 5.0), 8-3 (higher 3: 2.5, sum 4.0), 9-10 (1.5, sum 2.5).
    assert_eq!(
        pairs,
        vec![(1, 1, 7), (2, 2, 5), (3, 4, 6), (4, 3, 8), (5, 9, 10)]
    );
    // 11 has a bye scored "+" (no opponent); 12 is absent (blank).
    let unpaired: Vec<(u16, ResultCode)> = r5
        .unpaired
        .iter()
        .map(|u| (u.start_rank, u.result))
        .collect();
    assert_eq!(
        unpaired,
        vec![(11, ResultCode::ForfeitWin), (12, ResultCode::Blank)]
    );
    // Round 4's forfeit keeps its board but needs none.
    let r4 = t.round(4).unwrap();
    let forfeit = r4.games.iter().find(|g| g.white == 11).unwrap();
    assert_eq!((forfeit.black, forfeit.kind), (4, GameKind::NotPlayed));
    assert!(t.round(6).is_err());
}

#[test]
fn gonzaga_classic_results_rewritten_change_only_result_columns() {
    let bytes = data("gonzaga_classic_2008.trf");
    let mut t = Trf::parse(&bytes).unwrap();
    // Rewrite round 5 with the opposite of every result, then with the originals again.
    let r5 = t.round(5).unwrap();
    let originals: Vec<_> = r5
        .games
        .iter()
        .map(|g| {
            (
                g.white,
                g.black,
                Outcome::from_codes(g.white_result, g.black_result).unwrap(),
            )
        })
        .collect();
    for (w, b, o) in &originals {
        let flipped = match o {
            Outcome::WhiteWins => Outcome::BlackWins,
            Outcome::BlackWins => Outcome::WhiteWins,
            other => *other,
        };
        t.record_game(5, *w, *b, flipped).unwrap();
    }
    let flipped = t.to_bytes();
    assert_ne!(flipped, bytes);
    for (a, b) in String::from_utf8(flipped)
        .unwrap()
        .lines()
        .zip(String::from_utf8(bytes.clone()).unwrap().lines())
    {
        for (i, (x, y)) in a.chars().zip(b.chars()).enumerate() {
            assert!(
                x == y || i + 1 == 139 || (81..=84).contains(&(i + 1)),
                "column {} of {a:?}",
                i + 1
            );
        }
    }
    for (w, b, o) in &originals {
        t.record_game(5, *w, *b, *o).unwrap();
    }
    assert_eq!(
        t.to_bytes(),
        bytes,
        "the original results give back the original file"
    );
}

#[test]
fn utf8_and_latin1_files_say_which_and_keep_their_bytes() {
    for (name, encoding) in [
        ("las_vegas_utf8.trf", Encoding::Utf8),
        ("las_vegas_latin1.trf", Encoding::Latin1),
    ] {
        let bytes = data(name);
        let mut t = Trf::parse(&bytes).unwrap();
        assert_eq!(t.encoding(), encoding, "{name}");
        assert_eq!(
            t.tournament_name(),
            Some("Läs Végas National Opeñ"),
            "{name}"
        );
        assert_eq!(
            t.player(1).unwrap().name,
            "Uì Laighlèis,Gearoìdin",
            "{name}"
        );
        assert_eq!(t.player(2).unwrap().name, "Örr,Mârk", "{name}");
        assert_eq!(t.player(2).unwrap().points_tenths, Some(20));
        // Round 2: 2 had no game; 1 plays 3 with White.
        let r2 = t.round(2).unwrap();
        assert_eq!(r2.games.len(), 1);
        assert_eq!((r2.games[0].white, r2.games[0].black), (1, 3));
        assert_eq!(t.player(3).unwrap().entry(2).colour, Colour::Black);
        assert_eq!(r2.unpaired[0].start_rank, 2);
        assert_eq!(t.to_bytes(), bytes, "{name}");
        // A draw instead of 1-0, written into lines with multi-byte names: the two result
        // bytes and the points (1.0 -> 0.5: two bytes; 0.0 -> 0.5: one) change.
        t.record_game(2, 1, 3, Outcome::Draw).unwrap();
        let out = t.to_bytes();
        assert_eq!(out.len(), bytes.len(), "{name}");
        let changed = out.iter().zip(&bytes).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 5, "{name}");
        assert_eq!(t.player(1).unwrap().points_tenths, Some(5));
        assert_eq!(Trf::parse(&out).unwrap().encoding(), encoding);
    }
}
