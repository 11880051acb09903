//! Unit tests: columns, bad lines, round pairings, board order, results written back.

use super::*;

/// One player line built by columns (TRF-16 positions), so the tests say what they mean.
fn player_line(
    rank: u16,
    title: &str,
    name: &str,
    rating: u16,
    points: &str,
    rounds: &[(u16, char, char)],
) -> String {
    let mut s = format!(
        "001 {rank:>4} m{title:<3} {name:<33} {rating:>4} GER {id:>11} 1990/01/01 {points:>4} {rank:>4}",
        id = 4_600_000 + rank as u32
    );
    assert_eq!(s.chars().count(), 89);
    for (opp, col, res) in rounds {
        s.push_str(&format!("  {opp:>4} {col} {res}"));
    }
    s
}

/// Six players, round 1 played, round 2 paired (results blank), a bye in round 2.
fn six_players() -> String {
    let mut lines = vec![
        "012 Test Open".to_owned(),
        "022 Springfield".to_owned(),
        "042 2025/11/08".to_owned(),
        "XXR 5".to_owned(),
    ];
    lines.push(player_line(
        1,
        "GM",
        "Alpha, Anna",
        2600,
        "1.0",
        &[(4, 'w', '1'), (3, 'b', ' ')],
    ));
    lines.push(player_line(
        2,
        "IM",
        "Beta, Bert",
        2500,
        "0.5",
        &[(5, 'b', '='), (0, '-', 'U')],
    ));
    lines.push(player_line(
        3,
        "",
        "Gamma, Greta",
        2400,
        "1.0",
        &[(6, 'w', '1'), (1, 'w', ' ')],
    ));
    lines.push(player_line(
        4,
        "FM",
        "Delta, Dora",
        2300,
        "0.0",
        &[(1, 'b', '0'), (6, 'w', ' ')],
    ));
    lines.push(player_line(
        5,
        "",
        "Epsilon, Emil",
        2200,
        "0.5",
        &[(2, 'w', '='), (0, '-', 'H')],
    ));
    lines.push(player_line(
        6,
        "",
        "Zeta, Zoe",
        2100,
        "0.0",
        &[(3, 'b', '0'), (4, 'b', ' ')],
    ));
    lines.join("\r\n") + "\r\n"
}

#[test]
fn reads_the_columns_of_a_player_line() {
    let trf = Trf::parse(six_players().as_bytes()).unwrap();
    assert_eq!(trf.encoding(), Encoding::Ascii);
    assert_eq!(trf.tournament_name(), Some("Test Open"));
    assert_eq!(trf.city(), Some("Springfield"));
    let p = trf.player(1).unwrap();
    assert_eq!(p.line, 5);
    assert_eq!(p.title, "GM");
    assert_eq!(p.name, "Alpha, Anna");
    assert_eq!(p.rating, Some(2600));
    assert_eq!(p.federation, "GER");
    assert_eq!(p.fide_id, Some(4_600_001));
    assert_eq!(p.points_tenths, Some(10));
    assert_eq!(p.rounds.len(), 2);
    assert_eq!(
        p.entry(1),
        RoundEntry {
            opponent: Some(4),
            colour: Colour::White,
            result: ResultCode::Win
        }
    );
    assert_eq!(
        trf.player(2).unwrap().entry(2).result,
        ResultCode::PairingAllocatedBye
    );
    assert_eq!(trf.rounds_in_file(), 2);
}

#[test]
fn unchanged_file_writes_back_byte_for_byte() {
    let text = six_players();
    let trf = Trf::parse(text.as_bytes()).unwrap();
    assert_eq!(trf.to_bytes(), text.as_bytes());
    // Mixed line ends and no final line end survive too.
    let mixed = text.replacen("\r\n", "\n", 2).replacen("\r\n", "\r", 1);
    let mixed = mixed.trim_end().to_owned();
    assert_eq!(
        Trf::parse(mixed.as_bytes()).unwrap().to_bytes(),
        mixed.as_bytes()
    );
}

#[test]
fn round_two_in_board_order_with_byes_unpaired() {
    let trf = Trf::parse(six_players().as_bytes()).unwrap();
    let r = trf.round(2).unwrap();
    // Scores before round 2: 1:1, 2:0.5, 3:1, 4:0, 5:0.5, 6:0.
    // Pairs 3-1 (higher 1, score 1, sum 2) and 4-6 (higher 4, score 0, sum 0).
    let boards: Vec<_> = r
        .games
        .iter()
        .map(|g| (g.board, g.white, g.black))
        .collect();
    assert_eq!(boards, vec![(1, 3, 1), (2, 4, 6)]);
    assert!(r.games.iter().all(|g| g.kind == GameKind::Played));
    let unpaired: Vec<_> = r
        .unpaired
        .iter()
        .map(|u| (u.start_rank, u.result))
        .collect();
    assert_eq!(
        unpaired,
        vec![
            (2, ResultCode::PairingAllocatedBye),
            (5, ResultCode::HalfPointBye)
        ]
    );
}

#[test]
fn board_order_uses_the_higher_players_score_then_the_sum_then_the_rank() {
    // Round 2 of eight players: after round 1, 1, 2, 3 and 4 won (except 4 drew).
    let mut lines = vec!["012 Order".to_owned()];
    let r1 = [
        (5, 'w', '1'),
        (6, 'b', '1'),
        (7, 'w', '1'),
        (8, 'b', '='),
        (1, 'b', '0'),
        (2, 'w', '0'),
        (3, 'b', '0'),
        (4, 'w', '='),
    ];
    // Round 2: 4 (0.5) - 1 (1), 2 (1) - 8 (0.5), 3 (1) - 6 (0), 5 (0) - 7 (0).
    let r2 = [
        (4, 'b'),
        (8, 'w'),
        (6, 'w'),
        (1, 'w'),
        (7, 'w'),
        (3, 'b'),
        (5, 'b'),
        (2, 'b'),
    ];
    for i in 0..8u16 {
        let (o1, c1, x1) = r1[i as usize];
        let (o2, c2) = r2[i as usize];
        lines.push(player_line(
            i + 1,
            "",
            &format!("Player, {}", i + 1),
            2000 - i,
            "",
            &[(o1, c1, x1), (o2, c2, ' ')],
        ));
    }
    let trf = Trf::parse(lines.join("\n").as_bytes()).unwrap();
    let r = trf.round(2).unwrap();
    let boards: Vec<_> = r.games.iter().map(|g| (g.white, g.black)).collect();
    // Higher players' scores: 1 (1.0, sum 1.5), 2 (1.0, sum 1.5), 3 (1.0, sum 1.0), 5 (0).
    // 1 and 2 tie on both scores: the lower start rank first.
    assert_eq!(boards, vec![(4, 1), (2, 8), (3, 6), (5, 7)]);
}

#[test]
fn forfeits_keep_their_number_but_need_no_board() {
    let text = six_players()
        .replace(
            &player_line(
                4,
                "FM",
                "Delta, Dora",
                2300,
                "0.0",
                &[(1, 'b', '0'), (6, 'w', ' ')],
            ),
            &player_line(
                4,
                "FM",
                "Delta, Dora",
                2300,
                "0.0",
                &[(1, 'b', '0'), (6, 'w', '+')],
            ),
        )
        .replace(
            &player_line(
                6,
                "",
                "Zeta, Zoe",
                2100,
                "0.0",
                &[(3, 'b', '0'), (4, 'b', ' ')],
            ),
            &player_line(
                6,
                "",
                "Zeta, Zoe",
                2100,
                "0.0",
                &[(3, 'b', '0'), (4, 'b', '-')],
            ),
        );
    let trf = Trf::parse(text.as_bytes()).unwrap();
    let r = trf.round(2).unwrap();
    assert_eq!(r.board(2).unwrap().kind, GameKind::NotPlayed);
    assert_eq!(r.board(1).unwrap().kind, GameKind::Played);
}

#[test]
fn results_written_back_change_only_their_columns() {
    let text = six_players();
    let mut trf = Trf::parse(text.as_bytes()).unwrap();
    let untouched = trf.record_game(2, 3, 1, Outcome::BlackWins).unwrap();
    assert!(untouched.is_empty());
    trf.record_game(2, 4, 6, Outcome::WhiteWinsByForfeit)
        .unwrap();
    let out = trf.to_bytes();
    let again = Trf::parse(&out).unwrap();
    assert_eq!(again.player(3).unwrap().entry(2).result, ResultCode::Loss);
    assert_eq!(again.player(1).unwrap().entry(2).result, ResultCode::Win);
    assert_eq!(again.player(1).unwrap().points_tenths, Some(20));
    assert_eq!(
        again.player(4).unwrap().entry(2).result,
        ResultCode::ForfeitWin
    );
    assert_eq!(
        again.player(6).unwrap().entry(2).result,
        ResultCode::ForfeitLoss
    );
    // Byte by byte: only result columns (round 2 = column 109) and points (81-84) moved.
    let before: Vec<&str> = text.split("\r\n").collect();
    let after_text = String::from_utf8(out).unwrap();
    let after: Vec<&str> = after_text.split("\r\n").collect();
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.len(), a.len());
        for (i, (x, y)) in b.chars().zip(a.chars()).enumerate() {
            let column = i + 1;
            if x != y {
                assert!(
                    column == 109 || (81..=84).contains(&column),
                    "column {column} changed in {a:?}"
                );
            }
        }
    }
}

#[test]
fn points_with_another_scoring_are_left_alone() {
    // 3 points for a win: the column does not agree with 1-½-0, so it stays.
    let text = six_players().replacen("  1.0    1", "  3.0    1", 1);
    let mut trf = Trf::parse(text.as_bytes()).unwrap();
    let untouched = trf.record_game(2, 3, 1, Outcome::Draw).unwrap();
    assert_eq!(untouched, vec![1]);
    assert_eq!(trf.player(1).unwrap().points_tenths, Some(30));
    assert_eq!(trf.player(3).unwrap().points_tenths, Some(15));
}

#[test]
fn a_bye_code_with_an_opponent_is_refused_naming_the_line_and_the_code() {
    // Z is the zero-point bye (TRF-16): without an opponent it is read as one.
    let unpaired = six_players().replace("   0 - H", "   0 - Z");
    let trf = Trf::parse(unpaired.as_bytes()).unwrap();
    assert_eq!(
        trf.player(5).unwrap().rounds[1].result,
        ResultCode::ZeroPointBye,
        "read as the zero-point bye"
    );
    // Against an opponent it says both a game and no game: refused.
    let paired = six_players().replace("   6 w  ", "   6 w Z");
    let e = Trf::parse(paired.as_bytes()).unwrap_err();
    assert_eq!(e.line, 8, "{e}");
    assert!(e.message.contains("'Z' (zero-point bye)"), "{e}");
    assert!(e.message.contains("opponent 6"), "{e}");
}

#[test]
fn a_result_for_a_pair_that_is_not_paired_is_refused() {
    let mut trf = Trf::parse(six_players().as_bytes()).unwrap();
    let e = trf.record_game(2, 1, 3, Outcome::Draw).unwrap_err();
    assert_eq!(e.line, 5);
    assert!(e.message.contains("not paired with 3 as White"), "{e}");
}

#[test]
fn a_short_line_is_padded_to_take_its_result() {
    // The pairing program trimmed the blank result: "   3 b" ends the line.
    let text = six_players();
    let trimmed: String = text
        .split("\r\n")
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\r\n");
    let mut trf = Trf::parse(trimmed.as_bytes()).unwrap();
    trf.record_game(2, 3, 1, Outcome::WhiteWins).unwrap();
    let again = Trf::parse(&trf.to_bytes()).unwrap();
    assert_eq!(again.player(1).unwrap().entry(2).result, ResultCode::Loss);
}

fn err(text: &str) -> TrfError {
    Trf::parse(text.as_bytes()).unwrap_err()
}

#[test]
fn bad_lines_name_line_and_column() {
    let good = player_line(1, "", "Alpha, Anna", 2600, "0.0", &[(2, 'w', '1')]);
    let other = player_line(2, "", "Beta, Bert", 2500, "0.0", &[(1, 'b', '0')]);
    let file = |bad: &str| format!("012 T\n{bad}\n{other}\n");
    // The start rank.
    let e = err(&file(&good.replacen("   1", "  x1", 1)));
    assert_eq!((e.line, e.column), (2, 5), "{e}");
    // A rating with a letter.
    let e = err(&file(&good.replace("2600", "26O0")));
    assert_eq!((e.line, e.column), (2, 49), "{e}");
    assert!(e.message.contains("rating"), "{e}");
    // Points that are not a score.
    let e = err(&file(&good.replace(" 0.0", " 0,5")));
    assert_eq!((e.line, e.column), (2, 81), "{e}");
    // A colour that is not w/b/-.
    let e = err(&file(&good.replace("2 w 1", "2 x 1")));
    assert_eq!((e.line, e.column), (2, 97), "{e}");
    // An unknown result.
    let e = err(&file(&good.replace("2 w 1", "2 w 7")));
    assert_eq!((e.line, e.column), (2, 99), "{e}");
    // Shifted by one column.
    let e = err(&file(&good.replace("   2 w 1", "    2 w 1")));
    assert_eq!(e.line, 2, "{e}");
    // An opponent that is not in the file.
    let e = err(&file(&good.replace("   2 w 1", "   9 w 1")));
    assert_eq!((e.line, e.column), (2, 92), "{e}");
    // The same start rank twice.
    let e = err(&format!("{good}\n{good}\n"));
    assert_eq!((e.line, e.column), (2, 5), "{e}");
    assert!(e.message.contains("line 1"), "{e}");
}

#[test]
fn lines_that_do_not_name_each_other_are_an_error_for_the_round() {
    let a = player_line(1, "", "A", 2000, "", &[(2, 'w', ' ')]);
    let b = player_line(2, "", "B", 2000, "", &[(1, 'w', ' ')]);
    let trf = Trf::parse(format!("{a}\n{b}\n").as_bytes()).unwrap();
    let e = trf.round(1).unwrap_err();
    assert_eq!((e.line, e.column), (1, 92));
    assert!(trf.round(2).is_err());
}

#[test]
fn latin1_and_utf8_are_detected_and_kept() {
    let utf8 = player_line(1, "", "Müller, Jürgen", 2000, "0.0", &[(2, 'w', ' ')]);
    let other = player_line(2, "", "Ødegaard, Åse", 2000, "0.0", &[(1, 'b', ' ')]);
    let text = format!("012 Café\n{utf8}\n{other}\n");
    let mut trf = Trf::parse(text.as_bytes()).unwrap();
    assert_eq!(trf.encoding(), Encoding::Utf8);
    assert_eq!(trf.player(1).unwrap().name, "Müller, Jürgen");
    assert_eq!(trf.player(1).unwrap().rating, Some(2000));
    trf.record_game(1, 1, 2, Outcome::Draw).unwrap();
    let out = trf.to_bytes();
    let again = Trf::parse(&out).unwrap();
    assert_eq!(again.player(2).unwrap().entry(1).result, ResultCode::Draw);
    assert_eq!(again.player(2).unwrap().name, "Ødegaard, Åse");

    // The same file in Latin-1: one byte per character.
    let latin1: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
    let mut trf = Trf::parse(&latin1).unwrap();
    assert_eq!(trf.encoding(), Encoding::Latin1);
    assert_eq!(trf.player(1).unwrap().name, "Müller, Jürgen");
    assert_eq!(trf.tournament_name(), Some("Café"));
    trf.record_game(1, 1, 2, Outcome::WhiteWins).unwrap();
    let out = trf.to_bytes();
    assert_eq!(out.len(), latin1.len());
    let diff: Vec<usize> = out
        .iter()
        .zip(&latin1)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| i)
        .collect();
    // Two result columns, and the points of both players (0.0 -> 1.0 and 0.0 stays 0.0).
    assert!(diff.len() <= 4, "{diff:?}");
    assert_eq!(Trf::parse(&out).unwrap().encoding(), Encoding::Latin1);
}

#[test]
fn teams_from_013_lines() {
    let a = player_line(1, "", "A", 2000, "", &[]);
    let b = player_line(2, "", "B", 2000, "", &[]);
    let team = format!("013 {:<32}{:>4} {:>4}", "Springfield CC", 1, 2);
    let trf = Trf::parse(format!("{a}\n{b}\n{team}\n").as_bytes()).unwrap();
    assert_eq!(trf.team_of(2).unwrap().name, "Springfield CC");
    assert_eq!(trf.teams()[0].members, vec![1, 2]);
    let bad = format!("013 {:<32}{:>4} {:>4}", "Springfield CC", 1, 7);
    let e = Trf::parse(format!("{a}\n{b}\n{bad}\n").as_bytes()).unwrap_err();
    assert_eq!((e.line, e.column), (3, 42));
}

#[test]
fn never_panics_on_arbitrary_bytes() {
    // A cheap sweep: every prefix and some byte flips of a real-looking file.
    let text = six_players().into_bytes();
    for cut in 0..text.len() {
        let _ = Trf::parse(&text[..cut]).map(|t| (t.round(2).ok(), t.to_bytes()));
    }
    for i in (0..text.len()).step_by(7) {
        for b in [0u8, b'\n', b'9', 0xFF, 0xC3] {
            let mut t = text.clone();
            t[i] = b;
            if let Ok(mut trf) = Trf::parse(&t) {
                let _ = trf.round(2);
                let _ = trf.record_game(2, 3, 1, Outcome::Draw);
                let _ = trf.to_bytes();
            }
        }
    }
}
