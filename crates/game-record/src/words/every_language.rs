//! Every kind of ruling, from events as the tracker makes them, said in every language:
//! no message missing, no variable left unfilled.

use chess_rules::GameResult;
use messages::{Language, Messages};
use touch_tracker::events::BoardStatusEvent;
use touch_tracker::events::{
    DrawClaimableEvent, GameOverEvent, IllegalMoveStandsEvent, PositionAcceptedEvent,
    RulingUnclearEvent, Touched, TwoHandedEvent,
};
use touch_tracker::{ClockMs, GapCandidate, Penalty};

use super::*;

fn sq(s: &str) -> chess_rules::Square {
    s.parse().unwrap()
}

fn pc(c: char) -> Piece {
    Piece::from_fen_char(c).unwrap()
}

fn event(kind: EventKind) -> ArbiterEvent {
    ArbiterEvent {
        t_ms: 1,
        board: "3".into(),
        kind,
    }
}

fn illegal_move(category: IllegalCategory) -> IllegalMoveEvent {
    IllegalMoveEvent {
        color: Color::Black,
        category,
        attempt: Some(Attempt {
            from: sq("f6"),
            to: sq("d5"),
            piece: pc('n'),
        }),
        count: 2,
        restore_fen: String::new(),
        restore: vec![
            RestoreStep::Remove {
                square: sq("d5"),
                piece: pc('n'),
            },
            RestoreStep::Put {
                square: sq("f6"),
                piece: pc('n'),
            },
        ],
        must_move: Some(sq("f6")),
        penalty: Some(Penalty {
            add_ms: 120_000,
            to: Color::White,
        }),
        result: Some(GameResult::WhiteWins),
        result_undetermined: true,
        ply: 28,
        explanation: "black knight d5 added".into(),
        clock_before: Some(ClockMs {
            white: 151_000,
            black: 100_000,
        }),
        clock_after: Some(ClockMs {
            white: 271_000,
            black: 98_000,
        }),
    }
}

/// One event of every kind and variant the words distinguish.
fn every_kind() -> Vec<ArbiterEvent> {
    let mut out = Vec::new();
    for c in [
        IllegalCategory::KingInCheck,
        IllegalCategory::Castling,
        IllegalCategory::EnPassant,
        IllegalCategory::PieceMovement,
        IllegalCategory::UnpromotedPawn,
        IllegalCategory::ClockWithoutMove,
        IllegalCategory::WrongColor,
        IllegalCategory::MultipleMoves,
        IllegalCategory::PieceAddedOrRemoved,
        IllegalCategory::TwoHanded,
        IllegalCategory::Other,
    ] {
        out.push(event(EventKind::IllegalMove(illegal_move(c))));
    }
    let mut no_clocks = illegal_move(IllegalCategory::KingInCheck);
    no_clocks.clock_before = None;
    out.push(event(EventKind::IllegalMove(no_clocks)));
    out.push(event(EventKind::Restored { fen: "x".into() }));
    for obligation in [
        Obligation::Move,
        Obligation::Capture,
        Obligation::Castle,
        Obligation::KingMove,
    ] {
        out.push(event(EventKind::TouchMove(TouchMoveEvent {
            color: Color::White,
            touched: vec![
                Touched {
                    square: sq("d1"),
                    piece: pc('Q'),
                },
                Touched {
                    square: sq("e2"),
                    piece: pc('P'),
                },
            ],
            obligation,
            square: sq("d1"),
            played: "g1f3".parse().unwrap(),
            played_san: "Nf3".into(),
            violation: true,
            ply: 5,
        })));
    }
    out.push(event(EventKind::TwoHandedSuspected(TwoHandedEvent {
        color: Color::White,
        uci: "e1g1".parse().unwrap(),
        san: "O-O".into(),
        evidence: "both hands".into(),
        ply: 9,
    })));
    for (reason, with_move) in [
        (ClaimReason::Threefold, None),
        (ClaimReason::FiftyMoves, Some("e2e4".parse().unwrap())),
    ] {
        out.push(event(EventKind::DrawClaimable(DrawClaimableEvent {
            reason,
            color: Color::Black,
            plies: vec![],
            with_move,
            ply: 99,
        })));
    }
    for reason in EndReason::ALL {
        out.push(event(EventKind::GameOver(GameOverEvent {
            result: GameResult::BlackWins,
            reason,
            flag: (reason == EndReason::Flag).then_some(Color::White),
            undetermined: reason == EndReason::Flag,
            plies: 41,
        })));
    }
    out.push(event(EventKind::IllegalMoveStands(
        IllegalMoveStandsEvent {
            color: Color::White,
            attempt: None,
            fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
            count: 1,
            voided_penalty: None,
        },
    )));
    out.push(event(EventKind::RecoveryUncertain(
        RecoveryUncertainEvent {
            ply: 15,
            recorded: vec![],
            recorded_san: "8. Nd4 Qg5 9. Nf5".into(),
            alternatives: vec![vec![], vec![]],
            alternatives_san: vec!["8. Nh4 Qg5 9. Nf5".into(), "8. Ne5 Qg5 9. Nf5".into()],
        },
    )));
    for reestablished in [false, true] {
        out.push(event(EventKind::Displaced(DisplacedEvent {
            color: Color::White,
            ply: 7,
            squares: vec![RestoreStep::Put {
                square: sq("c2"),
                piece: pc('P'),
            }],
            reestablished,
            explanation: "pawn c2 knocked over".into(),
        })));
    }
    out.push(event(EventKind::RulingUnclear(RulingUnclearEvent {
        color: Color::Black,
        ply: 12,
        readings: vec![],
        explanation: "x".into(),
    })));
    for (reason, move_number) in [
        (MismatchReason::PeriodAddedEarly, 40),
        (MismatchReason::PeriodAddedEarly, 39),
        (MismatchReason::PeriodAddedLate, 41),
        (MismatchReason::PeriodNotAdded, 40),
    ] {
        out.push(event(EventKind::ClockMismatch(ClockMismatchEvent {
            color: Color::Black,
            reason,
            move_number,
            due_move: 40,
            clock_ms: 62_000,
            expected_ms: Some(1_862_000),
            explanation: String::new(),
        })));
    }
    let line = GapCandidate {
        ply: 7,
        uci: vec![],
        san: "4. O-O Bc5 5. d3".into(),
    };
    for (candidates, ply_unknown) in [(vec![], true), (vec![line.clone()], false)] {
        out.push(event(EventKind::PositionAccepted(PositionAcceptedEvent {
            fen: "x".into(),
            side_to_move: Color::White,
            last_known_ply: 6,
            ply: 11,
            ply_unknown,
            candidates,
        })));
    }
    for candidates in [vec![], vec![line]] {
        out.push(event(EventKind::BoardStatus(BoardStatusEvent {
            status: BoardStatus::OutOfSync,
            detail: Some("d".into()),
            candidates,
        })));
    }
    for reason in ["", "illegal move at ply 3 found later (art. 7.5.1)"] {
        out.push(event(EventKind::TakenBack(
            touch_tracker::events::TakenBackEvent {
                to_ply: 2,
                from_ply: 4,
                fen: "x".into(),
                reason: reason.into(),
                restore: Vec::new(),
            },
        )));
    }
    out.extend(
        decisions()
            .into_iter()
            .map(|d| event(EventKind::ArbiterDecision(d))),
    );
    out
}

/// Every kind of the arbiter's decision, with the tracker's English words.
fn decisions() -> Vec<touch_tracker::ArbiterDecisionEvent> {
    use touch_tracker::{ArbiterDecisionEvent, ArbiterResult, Decision};
    let decision = |decision, explanation: &str| ArbiterDecisionEvent {
        decision,
        color: Some(Color::White),
        ply: Some(7),
        penalty: None,
        result: None,
        board_result: None,
        clock_before: None,
        clock_after: None,
        reason: None,
        to_move: Color::Black,
        explanation: explanation.into(),
    };
    let time = ArbiterDecisionEvent {
        penalty: Some(Penalty {
            add_ms: 120_000,
            to: Color::Black,
        }),
        ..decision(
            Decision::TimeAdded,
            "the arbiter gives Black 2 minutes for the pieces White displaced (art. 7.4, 12.9.2)",
        )
    };
    let lost = ArbiterDecisionEvent {
        result: Some(ArbiterResult::BlackWins),
        ..decision(
            Decision::GameLost,
            "the arbiter declares the game lost by White for displacing pieces again \
             (art. 7.4, 12.9.6): 0-1",
        )
    };
    let set = ArbiterDecisionEvent {
        result: Some(ArbiterResult::Draw),
        board_result: Some(GameResult::WhiteWins),
        ..decision(
            Decision::ResultSet,
            "the arbiter sets the result 1/2-1/2 (the board's: 1-0)",
        )
    };
    let confirmed = ArbiterDecisionEvent {
        result: Some(ArbiterResult::WhiteWins),
        board_result: Some(GameResult::WhiteWins),
        ..decision(
            Decision::ResultConfirmed,
            "the arbiter confirms the result 1-0",
        )
    };
    let cleared = ArbiterDecisionEvent {
        board_result: Some(GameResult::WhiteWins),
        ..decision(
            Decision::ResultCleared,
            "the arbiter clears his result: the board's 1-0 counts",
        )
    };
    let clocks = ArbiterDecisionEvent {
        clock_after: Some(ClockMs {
            white: 300_000,
            black: 240_000,
        }),
        reason: Some("the clock was set wrong".into()),
        ..decision(Decision::ClockSet, "x")
    };
    vec![
        decision(
            Decision::Warning,
            "the arbiter warns White for the pieces displaced (art. 7.4, 12.9.1)",
        ),
        time,
        lost,
        set,
        confirmed,
        cleared,
        decision(Decision::ResultCleared, "the arbiter clears his result"),
        clocks,
    ]
}

/// Issue 41: what the tracker explains in English (a JSON field) is said from the
/// event's facts in Russian, on the terminal and in PGN comments alike; in English the
/// tracker's words stay.
#[test]
fn the_tracker_s_english_is_said_from_the_facts_in_russian() {
    let ru = Messages::strict(Language::Ru);
    let said: Vec<String> = every_kind()
        .iter()
        .flat_map(|e| [ruling_in(ru, e), comment_in(ru, e)])
        .flatten()
        .collect();
    for text in &said {
        assert!(!text.contains('⟪') && !text.contains("{ $"), "{text}");
        for english in [
            "the arbiter",
            "knocked over",
            "re-established",
            "the board fits",
        ] {
            assert!(!text.contains(english), "{english:?} in {text}");
        }
    }
    let text = said.join("\n");
    for term in [
        "арбитр делает предупреждение белым за сдвинутые фигуры (ст. 7.4, 12.9.1)",
        "арбитр добавляет чёрным 2:00 за фигуры, сдвинутые белыми",
        "арбитр засчитывает поражение белым за повторно сдвинутые фигуры (ст. 7.4, 12.9.6): 0-1",
        "арбитр устанавливает результат 1/2-1/2 (по доске: 1-0)",
        "арбитр подтверждает результат 1-0",
        "действует результат доски 1-0",
        "арбитр вернул партию к полуходу 2 (отменены 2 полухода): illegal move at ply 3",
        "доска должна снова показать эту позицию",
        "доска допускает больше одного хода со сбитыми фигурами",
    ] {
        assert!(text.contains(term), "no {term:?} in:\n{text}");
    }
    // English: the tracker's own words, as the JSON has them.
    for d in decisions()
        .into_iter()
        .filter(|d| d.decision != touch_tracker::Decision::ClockSet)
    {
        let e = event(EventKind::ArbiterDecision(d.clone()));
        assert_eq!(
            comment_in(Messages::strict(Language::En), &e),
            Some(format!("the arbiter's decision: {}", d.explanation))
        );
    }
}

#[test]
fn every_ruling_is_said_whole_in_every_language() {
    let events = every_kind();
    for language in Language::ALL {
        let m = Messages::strict(language);
        for e in &events {
            let line = ruling_in(m, e).unwrap_or_else(|| panic!("no ruling: {e:?}"));
            assert!(
                !line.contains('⟪') && !line.contains('{') && !line.contains('}'),
                "{language}: {line}"
            );
        }
    }
    // English is the words of the English functions, byte for byte.
    for e in &events {
        assert_eq!(ruling_in(Messages::strict(Language::En), e), ruling(e));
    }
}

#[test]
fn russian_rulings_use_the_terms_of_the_laws() {
    let ru = Messages::strict(Language::Ru);
    let say = |kind| ruling_in(ru, &event(kind)).unwrap();
    let line = say(EventKind::IllegalMove(illegal_move(
        IllegalCategory::KingInCheck,
    )));
    assert_eq!(
        line,
        "доска 3, ход 14, Чёрные: невозможный ход (король остался под шахом) Кf6-d5, \
         2-й невозможный ход этого игрока; восстановить позицию: снять чёрного коня с d5, \
         поставить чёрного коня на f6; фигура на f6 должна сделать ход («тронул — ходи»); \
         добавить сопернику (белым) 2:00: 2:31 -> 4:31; Чёрные 1:40 -> 1:38 (добавление \
         за невозможное нажатие снято); второй невозможный ход: партия окончена, 1-0 \
         (неизвестно, может ли соперник ещё поставить мат: арбитр, проверьте)"
    );
    let press = say(EventKind::IllegalMove(illegal_move(
        IllegalCategory::ClockWithoutMove,
    )));
    assert!(press.contains("нажатие часов без хода"), "{press}");
    let all: Vec<String> = every_kind()
        .iter()
        .filter_map(|e| ruling_in(ru, e))
        .collect();
    let text = all.join("\n");
    for term in [
        "«тронул — ходи»",
        "ход двумя руками",
        "недопустимая рокировка",
        "взятие на проходе",
        "превращения пешки",
        "падение флажка белых",
        "мёртвая позиция",
        "троекратное повторение",
        "пятикратное повторение",
        "правило 50 ходов",
        "правило 75 ходов",
        "сыграно Кf3",
        "тронуты Фd1, e2",
        "поставить белую пешку на c2",
        "после 41 полухода",
        "(как минимум 5 полуходов)",
        "1) 4. O-O Сc5 5. d3",
        "установить часы чёрных: 1:02 -> 31:02",
    ] {
        assert!(text.contains(term), "no {term:?} in:\n{text}");
    }
}
