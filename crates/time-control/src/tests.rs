use super::*;
use proptest::prelude::*;

fn tc(s: &str) -> TimeControl {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn base_plus_increment_reads_and_writes_as_it_always_did() {
    let t = tc("180+2");
    assert_eq!(t, TimeControl::sudden_death(180, 2));
    assert_eq!(t.to_string(), "180+2");
    assert_eq!(tc(" 900 + 10 ").to_string(), "900+10");
    // No increment: still one sudden-death period, written BASE+INC as before.
    assert_eq!(tc("300").to_string(), "300+0");
    assert!(t.is_sudden_death_only());
    assert_eq!(t.owed_at_move(1).next_period, None);
    assert_eq!(t.moves_to_control(10), None);
}

#[test]
fn periods_read_and_write_in_the_pgn_form() {
    for s in [
        "40/5400+30:1800+30",
        "40/7200:20/3600:900+30",
        "40/6000+30:20/3000+30:900+30",
        "40/7200",
        "40/5400:1800+0",
    ] {
        let t = tc(s);
        assert_eq!(t.to_string(), s);
        assert_eq!(tc(&t.to_string()), t, "{s} reads back");
    }
    let t = tc("40/5400+30:1800+30");
    assert_eq!(t.periods().len(), 2);
    assert_eq!(t.base_secs(), 5400);
    assert_eq!(t.first_increment_secs(), 30);
    assert!(!t.is_sudden_death_only());
}

#[test]
fn a_bad_time_control_names_the_part_that_is_wrong() {
    let cases = [
        ("", "it is empty"),
        ("40/5400+30:", "period 2 is empty"),
        ("0/5400:1800", "the move count \"0\""),
        ("x/5400:1800", "the move count \"x\""),
        ("40/90m:1800", "period 1 (\"40/90m\"): the time \"90m\""),
        ("40/5400+3s:1800", "the increment \"3s\""),
        ("180++2", "the increment \"+2\""),
        ("5400+30:1800", "period 1 (\"5400+30\") has no move count"),
        ("?", "a PGN form the daemon cannot follow"),
        ("*180", "a PGN form the daemon cannot follow"),
        ("99999999999+0", "the time \"99999999999\""),
        (
            "1/1:1/1:1/1:1/1:1/1:1",
            "6 periods: a time control has at most 5",
        ),
    ];
    for (text, says) in cases {
        let e = text.parse::<TimeControl>().unwrap_err().to_string();
        assert!(e.contains(says), "{text:?}: {e}");
        assert!(
            e.contains("40/5400+30:1800+30"),
            "{text:?} shows the form: {e}"
        );
    }
}

#[test]
fn bounds_catch_minutes_typed_for_seconds() {
    assert_eq!(tc("40/5400+30:1800+30").check_bounds(), Ok(()));
    assert_eq!(tc("1+0").check_bounds(), Ok(()));
    for (text, period) in [("0+0", 1), ("40/90:30000", 2), ("40/5400+601", 1)] {
        let e = tc(text).check_bounds().unwrap_err();
        assert!(
            matches!(e, Problem::OutOfBounds { period: p, .. } if p == period),
            "{text}: {e}"
        );
        assert!(e.to_string().contains("1 second to 6 hours"), "{e}");
    }
}

#[test]
fn the_category_counts_sixty_moves_over_the_periods_they_reach() {
    // arbiter-rules.md section 5: 5400 + 1800 + 60 x 30 = 9000 s.
    let t = tc("40/5400+30:1800+30");
    assert_eq!(t.secs_for_moves(60), 9000);
    assert_eq!(t.category(), Category::Standard);
    // 7200 (moves 1-40) + 3600 (41-60); the last period is not reached.
    assert_eq!(tc("40/7200:20/3600:900+30").secs_for_moves(60), 10800);
    // A repeating period: moves 41-60 are in its second run.
    assert_eq!(tc("40/7200").secs_for_moves(60), 14400);
    // A control at move 60 exactly: what follows it is for moves 61 on.
    assert_eq!(tc("60/1500:1800").secs_for_moves(60), 1500);
    assert_eq!(tc("60/1500:1800").category(), Category::Rapid);
    for (s, c) in [
        ("180+2", Category::Blitz),
        ("300+3", Category::Blitz),
        ("600+0", Category::Blitz),
        ("900+10", Category::Rapid),
        ("5400+30", Category::Standard),
        ("3000+10", Category::Standard),
    ] {
        assert_eq!(tc(s).category(), c, "{s}");
    }
}

#[test]
fn a_period_is_due_at_the_press_that_ends_the_previous_one() {
    let t = tc("40/5400+30:1800+30");
    assert_eq!(
        t.owed_at_move(39),
        Owed {
            increment_secs: 30,
            next_period: None
        }
    );
    assert_eq!(
        t.owed_at_move(40),
        Owed {
            increment_secs: 30,
            next_period: Some(PeriodStart {
                index: 1,
                secs: 1800
            })
        }
    );
    assert_eq!(t.owed_at_move(41).next_period, None);
    assert_eq!(t.owed_at_move(80).next_period, None, "sudden death after");
    // Two periods with moves, then sudden death: due at 40 and at 60.
    let t = tc("40/7200:20/3600:900+30");
    assert_eq!(t.owed_at_move(40).next_period.map(|p| p.secs), Some(3600));
    assert_eq!(t.owed_at_move(40).increment_secs, 0);
    assert_eq!(t.owed_at_move(60).next_period.map(|p| p.secs), Some(900));
    assert_eq!(t.owed_at_move(61).increment_secs, 30);
    // A repeating last period: due at 40, 80, 120, ...
    let t = tc("40/7200");
    for n in [40, 80, 120, 4_000_000_000] {
        assert_eq!(
            t.owed_at_move(n).next_period.map(|p| p.secs),
            Some(7200),
            "{n}"
        );
    }
    assert_eq!(t.owed_at_move(81).next_period, None);
}

#[test]
fn each_period_begins_at_the_move_that_ends_the_ones_before() {
    let t = tc("40/7200:20/3600:900+30");
    assert_eq!(
        t.move_adding_period(0),
        None,
        "the first is on the clock at the start"
    );
    assert_eq!(t.move_adding_period(1), Some(40));
    assert_eq!(t.move_adding_period(2), Some(60));
    assert_eq!(t.move_adding_period(3), None, "nothing after sudden death");
    assert_eq!(t.period_after_moves(0), 0);
    assert_eq!(t.period_after_moves(39), 0);
    assert_eq!(t.period_after_moves(40), 1);
    assert_eq!(t.period_after_moves(60), 2);
    assert_eq!(t.period_after_moves(500), 2);
    // A repeating last period: every 40 moves.
    let r = tc("40/7200");
    assert_eq!(r.move_adding_period(1), Some(40));
    assert_eq!(r.move_adding_period(3), Some(120));
    assert_eq!(r.period_after_moves(79), 1);
    assert_eq!(r.period_after_moves(80), 2);
    // One sudden-death period: no period is ever added.
    let s = tc("5400+30");
    assert_eq!(s.move_adding_period(1), None);
    assert_eq!(s.period_after_moves(200), 0);
    // A repeating last period of two: 40, 60, then every 20.
    let repeating = tc("40/7200:20/3600");
    assert_eq!(repeating.move_adding_period(2), Some(60));
    assert_eq!(repeating.move_adding_period(4), Some(100));
    assert_eq!(tc("1/60").move_adding_period(u32::MAX), Some(u32::MAX));
}

#[test]
fn moves_to_the_control_count_down_to_each_period() {
    let t = tc("40/5400+30:20/1800+30:900+30");
    assert_eq!(t.moves_to_control(0), Some(40));
    assert_eq!(t.moves_to_control(28), Some(12));
    assert_eq!(t.moves_to_control(39), Some(1));
    assert_eq!(t.moves_to_control(40), Some(20));
    assert_eq!(t.moves_to_control(60), None);
    assert_eq!(tc("40/7200").moves_to_control(79), Some(1));
}

#[test]
fn serde_carries_the_text_form() {
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Cfg {
        time_control: TimeControl,
    }
    let text = r#"{"time_control":"40/5400+30:1800+30"}"#;
    let c: Cfg = serde_json::from_str(text).unwrap();
    assert_eq!(c.time_control, tc("40/5400+30:1800+30"));
    assert_eq!(serde_json::to_string(&c).unwrap(), text);
    let e = serde_json::from_str::<Cfg>(r#"{"time_control":"40/90m"}"#).unwrap_err();
    assert!(e.to_string().contains("the time \"90m\""), "{e}");
}

proptest! {
    /// A period's due move is exactly the move whose press `owed_at_move` begins it.
    #[test]
    fn due_moves_agree_with_what_each_press_owes(
        periods in proptest::collection::vec(1u32..80, 1..4),
        sudden in proptest::bool::ANY,
        n in 1u32..400,
    ) {
        let mut ps: Vec<Period> = periods
            .iter()
            .map(|&m| Period { moves: NonZeroU32::new(m), secs: 60, increment_secs: 0 })
            .collect();
        if sudden {
            ps.push(Period { moves: None, secs: 60, increment_secs: 0 });
        }
        let t = TimeControl::from_periods(&ps).unwrap();
        match t.owed_at_move(n).next_period {
            Some(start) => prop_assert_eq!(t.move_adding_period(start.index), Some(n)),
            None => {
                let (index, _) = t.period_of_move(n);
                prop_assert_ne!(t.move_adding_period(index + 1), Some(n));
            }
        }
    }
}

proptest! {
    /// Whatever control is written, it reads back the same; and the periods' due moves
    /// are exactly where `moves_to_control` reaches 0.
    #[test]
    fn any_control_reads_back_and_its_due_moves_agree(
        periods in proptest::collection::vec((1u32..80, 0u32..10_000, 0u32..60), 1..4),
        sudden in proptest::option::of((0u32..10_000, 0u32..60)),
        n in 1u32..400,
    ) {
        let mut ps: Vec<Period> = periods
            .iter()
            .map(|&(m, s, i)| Period { moves: NonZeroU32::new(m), secs: s, increment_secs: i })
            .collect();
        if let Some((s, i)) = sudden {
            ps.push(Period { moves: None, secs: s, increment_secs: i });
        }
        let t = TimeControl::from_periods(&ps).unwrap();
        prop_assert_eq!(tc(&t.to_string()), t);
        let due = t.owed_at_move(n).next_period.is_some();
        let to_control = t.moves_to_control(n - 1);
        prop_assert_eq!(due, to_control == Some(1), "move {} of {}", n, t);
        // The period a press adds is the one that begins at that move.
        if let Some(p) = t.owed_at_move(n).next_period {
            prop_assert_eq!(t.move_adding_period(p.index), Some(n));
            prop_assert_eq!(t.period_after_moves(n), p.index);
        }
    }
}
