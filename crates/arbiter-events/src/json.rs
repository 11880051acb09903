//! The JSON line of the frequent events written straight into the caller's buffer, byte for
//! byte what serde_json writes for them. Through serde a move line cost about 6,300
//! instructions (the map machinery of `#[serde(flatten)]` and its string escaper), a tenth of
//! a fast replay. Moves (nearly all events), board statuses and the two kinds that carry
//! only a FEN are written here; the rare kinds still go through serde. The tests hold both
//! writers to the same bytes.

use chess_rules::{Color, Move, Piece, Square};

use crate::{
    ArbiterEvent, BoardStatus, BoardStatusEvent, ClockMs, EventKind, MoveEvent, Touch, TouchAction,
};

/// Appends `event` as serde_json writes it (no newline). False, with nothing written, for
/// the kinds left to serde.
pub(crate) fn write_direct(event: &ArbiterEvent, out: &mut Vec<u8>) -> bool {
    match &event.kind {
        EventKind::Move(m) => {
            // One growth for the whole line: a move with a few touches is about 300 bytes.
            out.reserve(160 + m.fen.len() + 56 * m.touches.len());
            write_head(event, out);
            write_move(m, out);
        }
        // A status with candidate lines is rare: serde writes it.
        EventKind::BoardStatus(s) if s.candidates.is_empty() => {
            write_head(event, out);
            write_board_status(s, out);
        }
        EventKind::Restored { fen } | EventKind::NewGame { fen } => {
            write_head(event, out);
            out.extend_from_slice(b",\"fen\":");
            push_str(out, fen);
        }
        _ => return false,
    }
    out.push(b'}');
    true
}

/// `{"t_ms":..,"board":..,"kind":".."`: serde writes the struct's own fields, then the
/// flattened kind, its tag first.
fn write_head(event: &ArbiterEvent, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"t_ms\":");
    push_u64(out, event.t_ms);
    out.extend_from_slice(b",\"board\":");
    push_str(out, &event.board);
    out.extend_from_slice(b",\"kind\":\"");
    out.extend_from_slice(event.kind.name().as_bytes());
    out.push(b'"');
}

/// The fields of `MoveEvent`, in declaration order, skipping what serde skips.
fn write_move(m: &MoveEvent, out: &mut Vec<u8>) {
    out.extend_from_slice(b",\"ply\":");
    push_u64(out, u64::from(m.ply));
    out.extend_from_slice(b",\"color\":");
    push_color(out, m.color);
    out.extend_from_slice(b",\"uci\":");
    push_move(out, m.uci);
    out.extend_from_slice(b",\"san\":");
    push_str(out, &m.san);
    out.extend_from_slice(b",\"fen\":");
    push_str(out, &m.fen);
    out.extend_from_slice(b",\"clock_ms\":");
    match m.clock_ms {
        Some(clock) => push_clock(out, clock),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"pressed\":");
    push_bool(out, m.pressed);
    if let Some(replaces) = m.replaces {
        out.extend_from_slice(b",\"replaces\":");
        push_move(out, replaces);
    }
    if m.recovered {
        out.extend_from_slice(b",\"recovered\":true");
    }
    if m.correction {
        out.extend_from_slice(b",\"correction\":true");
    }
    if m.entered {
        out.extend_from_slice(b",\"entered\":true");
    }
    out.extend_from_slice(b",\"touches\":[");
    for (i, touch) in m.touches.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_touch(out, touch);
    }
    out.push(b']');
}

fn write_board_status(s: &BoardStatusEvent, out: &mut Vec<u8>) {
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(status_name(s.status).as_bytes());
    out.push(b'"');
    if let Some(detail) = &s.detail {
        out.extend_from_slice(b",\"detail\":");
        push_str(out, detail);
    }
}

/// `BoardStatus`'s serde name (`rename_all = "snake_case"`).
fn status_name(status: BoardStatus) -> &'static str {
    match status {
        BoardStatus::Connected => "connected",
        BoardStatus::Disconnected => "disconnected",
        BoardStatus::ClockConnected => "clock_connected",
        BoardStatus::ClockDisconnected => "clock_disconnected",
        BoardStatus::Orientation => "orientation",
        BoardStatus::WhiteClock => "white_clock",
        BoardStatus::OutOfSync => "out_of_sync",
        BoardStatus::InSync => "in_sync",
    }
}

fn push_touch(out: &mut Vec<u8>, touch: &Touch) {
    out.extend_from_slice(b"{\"t_ms\":");
    push_u64(out, touch.t_ms);
    out.extend_from_slice(b",\"square\":\"");
    push_square(out, touch.square);
    out.extend_from_slice(b"\",\"piece\":");
    push_piece(out, touch.piece);
    out.extend_from_slice(match touch.action {
        TouchAction::Lift => b",\"action\":\"lift\"}",
        TouchAction::Place => b",\"action\":\"place\"}",
    });
}

fn push_clock(out: &mut Vec<u8>, clock: ClockMs) {
    out.extend_from_slice(b"{\"white\":");
    push_u64(out, clock.white);
    out.extend_from_slice(b",\"black\":");
    push_u64(out, clock.black);
    out.push(b'}');
}

fn push_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

fn push_color(out: &mut Vec<u8>, color: Color) {
    out.push(b'"');
    out.extend_from_slice(color.name().as_bytes());
    out.push(b'"');
}

/// A piece's FEN letter as a string, as `Piece` serialises.
fn push_piece(out: &mut Vec<u8>, piece: Piece) {
    out.push(b'"');
    push_char(out, piece.fen_char());
    out.push(b'"');
}

/// A move's UCI name as a string, as `Move` serialises.
fn push_move(out: &mut Vec<u8>, m: Move) {
    out.push(b'"');
    push_square(out, m.from);
    push_square(out, m.to);
    if let Some(role) = m.promotion {
        push_char(out, role.char());
    }
    out.push(b'"');
}

/// A square's name, unquoted. The letters need no escaping.
fn push_square(out: &mut Vec<u8>, square: Square) {
    push_char(out, square.file().char());
    push_char(out, square.rank().char());
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// `n` in decimal, two digits at a time (serde_json's itoa does the same).
fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    // u64::MAX has 20 digits.
    let mut buf = [0u8; 20];
    let mut start = buf.len();
    while n >= 100 {
        let pair = usize::from((n % 100) as u8) * 2;
        n /= 100;
        start -= 2;
        buf[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    // n < 100 here.
    let n = n as u8;
    if n >= 10 {
        let pair = usize::from(n) * 2;
        start -= 2;
        buf[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        start -= 1;
        buf[start] = b'0' + n;
    }
    out.extend_from_slice(&buf[start..]);
}

/// `s` as a JSON string, escaped exactly as serde_json escapes: `"` and `\` with a
/// backslash, control bytes as `\b \t \n \f \r` or `\u00xx`, everything else (`/`, DEL,
/// non-ASCII) as it is.
fn push_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.push(b'"');
    // Our strings (FEN, SAN) and nearly every board name need no escape: one copy.
    if needs_escape(bytes) {
        push_escaped(out, bytes);
    } else {
        out.extend_from_slice(bytes);
    }
    out.push(b'"');
}

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

/// Whether any byte of `bytes` is `"`, `\` or below 0x20, eight at a time: a word has a byte
/// below `n` (`n` <= 0x80) iff `(w - n*ONES) & !w & HIGHS` is not zero (a borrow can only
/// flag bytes above a real hit, never make one up), and a byte equal to `c` iff `w ^ c*ONES`
/// has a byte below 1.
fn needs_escape(bytes: &[u8]) -> bool {
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS;
    let mut words = bytes.chunks_exact(8);
    for chunk in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_ne_bytes(word);
        let hits = below(w, 0x20)
            | below(w ^ (ONES * u64::from(b'"')), 1)
            | below(w ^ (ONES * u64::from(b'\\')), 1);
        if hits != 0 {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// The slow path of [`push_str`]: runs between escaped bytes copied whole. Every escaped
/// byte is ASCII, so the runs stay whole UTF-8 characters.
fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x09 => b't',
            0x0a => b'n',
            0x0c => b'f',
            0x0d => b'r',
            0x00..=0x1f => 0,
            _ => continue,
        };
        out.extend_from_slice(&bytes[run..i]);
        run = i + 1;
        if short != 0 {
            out.extend_from_slice(&[b'\\', short]);
        } else {
            let hex = |nibble: u8| HEX[usize::from(nibble & 0x0f)];
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b)]);
        }
    }
    out.extend_from_slice(&bytes[run..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;
    use chess_rules::{
        Attempt, EndReason, GameResult, IllegalCategory, Obligation, RestoreStep, Role,
    };
    use proptest::prelude::*;

    /// For messages only: the comparisons are of bytes.
    fn lossy(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    fn serde_bytes(e: &ArbiterEvent) -> Vec<u8> {
        serde_json::to_vec(e).unwrap()
    }

    fn direct_bytes(e: &ArbiterEvent) -> Option<Vec<u8>> {
        let mut out = b"kept".to_vec();
        let direct = write_direct(e, &mut out).then(|| out.split_off(4));
        assert_eq!(out, b"kept", "what was in the buffer stays");
        direct
    }

    /// The public writers agree with serde and with each other.
    fn assert_writers_agree(e: &ArbiterEvent) {
        let want = serde_bytes(e);
        let mut line = Vec::new();
        e.write_json_line(&mut line);
        assert_eq!(line.pop(), Some(b'\n'));
        assert!(line == want, "{}\nserde: {}", lossy(&line), lossy(&want));
        assert_eq!(e.to_json().as_bytes(), want.as_slice());
    }

    fn text() -> impl Strategy<Value = String> {
        let c = prop_oneof![
            any::<char>(),
            (0u8..0x20).prop_map(char::from),
            prop::sample::select(vec![
                '"', '\\', '/', '\u{7f}', 'a', 'é', '€', '𝄞', '\u{2028}'
            ]),
        ];
        prop::collection::vec(c, 0..40).prop_map(|cs| cs.into_iter().collect())
    }

    fn square() -> impl Strategy<Value = Square> {
        (0u8..64).prop_map(|i| Square::from_index(i).unwrap())
    }

    fn color() -> impl Strategy<Value = Color> {
        prop::sample::select(Color::ALL.to_vec())
    }

    fn piece() -> impl Strategy<Value = Piece> {
        (color(), prop::sample::select(Role::ALL.to_vec())).prop_map(|(c, r)| Piece::new(c, r))
    }

    fn a_move() -> impl Strategy<Value = Move> {
        let promotion = prop::option::of(prop::sample::select(vec![
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ]));
        (square(), square(), promotion).prop_map(|(from, to, p)| Move::new(from, to, p))
    }

    fn clock() -> impl Strategy<Value = ClockMs> {
        (any::<u64>(), 0u64..10_000_000).prop_map(|(white, black)| ClockMs { white, black })
    }

    fn touch() -> impl Strategy<Value = Touch> {
        (any::<u64>(), square(), piece(), any::<bool>()).prop_map(|(t_ms, square, piece, lift)| {
            Touch {
                t_ms,
                square,
                piece,
                action: if lift {
                    TouchAction::Lift
                } else {
                    TouchAction::Place
                },
            }
        })
    }

    prop_compose! {
        fn move_event()(
            ply in any::<u32>(),
            color in color(),
            uci in a_move(),
            san in text(),
            fen in text(),
            clock_ms in prop::option::of(clock()),
            pressed in any::<bool>(),
            replaces in prop::option::of(a_move()),
            recovered in any::<bool>(),
            correction in any::<bool>(),
            entered in any::<bool>(),
            touches in prop::collection::vec(touch(), 0..6),
        ) -> MoveEvent {
            MoveEvent { ply, color, uci, san, fen, clock_ms, pressed, replaces, recovered, correction, entered, touches }
        }
    }

    fn board_status() -> impl Strategy<Value = BoardStatusEvent> {
        (
            prop::sample::select(ALL_STATUSES.to_vec()),
            prop::option::of(text()),
        )
            .prop_map(|(status, detail)| BoardStatusEvent {
                status,
                detail,
                candidates: Vec::new(),
            })
    }

    const ALL_STATUSES: [BoardStatus; 8] = [
        BoardStatus::Connected,
        BoardStatus::Disconnected,
        BoardStatus::ClockConnected,
        BoardStatus::ClockDisconnected,
        BoardStatus::Orientation,
        BoardStatus::WhiteClock,
        BoardStatus::OutOfSync,
        BoardStatus::InSync,
    ];

    proptest! {
        #[test]
        fn move_lines_are_serdes(t_ms in any::<u64>(), board in text(), m in move_event()) {
            let e = ArbiterEvent { t_ms, board, kind: EventKind::Move(m) };
            let (direct, want) = (direct_bytes(&e), serde_bytes(&e));
            prop_assert!(direct.is_some(), "a move goes through serde");
            let got = direct.unwrap_or_default();
            prop_assert!(got == want, "{}\nserde: {}", lossy(&got), lossy(&want));
            assert_writers_agree(&e);
        }

        #[test]
        fn board_status_lines_are_serdes(
            t_ms in any::<u64>(),
            board in text(),
            s in board_status(),
        ) {
            let e = ArbiterEvent { t_ms, board, kind: EventKind::BoardStatus(s) };
            let (direct, want) = (direct_bytes(&e), serde_bytes(&e));
            prop_assert!(direct.is_some(), "a board status goes through serde");
            let got = direct.unwrap_or_default();
            prop_assert!(got == want, "{}\nserde: {}", lossy(&got), lossy(&want));
            assert_writers_agree(&e);
        }
    }

    /// Every byte that can stand alone in a string, at every offset of a word and of the
    /// tail, against serde_json's escaper.
    #[test]
    fn strings_escape_as_serde_does() {
        let mut specials: Vec<char> = (0u8..0x80).map(char::from).collect();
        specials.extend(['é', '€', '𝄞', '\u{2028}', '\u{ffff}']);
        for c in specials {
            for len in [1, 7, 8, 9, 17] {
                for at in 0..len {
                    let s: String = (0..len).map(|i| if i == at { c } else { 'x' }).collect();
                    let mut got = Vec::new();
                    push_str(&mut got, &s);
                    let want = serde_json::to_vec(&s).unwrap();
                    assert!(
                        got == want,
                        "{c:?} at {at} of {len}: {} against serde's {}",
                        lossy(&got),
                        lossy(&want)
                    );
                }
            }
        }
    }

    #[test]
    fn numbers_are_written_as_serde_does() {
        let mut ns = vec![0, u64::MAX, u64::MAX - 1];
        let mut p = 1u64;
        while let Some(next) = p.checked_mul(10) {
            ns.extend([p - 1, p, p + 1, p * 5]);
            p = next;
        }
        ns.extend([p - 1, p, p + 1]);
        for n in ns {
            let mut got = Vec::new();
            push_u64(&mut got, n);
            assert_eq!(got, n.to_string().into_bytes());
        }
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn every_kind() -> Vec<EventKind> {
        let p = |c| Piece::from_fen_char(c).unwrap();
        let clock = ClockMs {
            white: 61_000,
            black: 2_000,
        };
        let penalty = Penalty {
            add_ms: 60_000,
            to: Color::White,
        };
        let mut kinds = vec![
            EventKind::Move(MoveEvent {
                ply: 1,
                color: Color::White,
                uci: "e7e8q".parse().unwrap(),
                san: "e8=Q+".into(),
                fen: chess_rules::START_FEN.into(),
                clock_ms: Some(clock),
                pressed: true,
                replaces: Some("e7e8".parse().unwrap()),
                recovered: true,
                correction: true,
                entered: true,
                touches: vec![
                    Touch {
                        t_ms: 1000,
                        square: sq("e7"),
                        piece: p('P'),
                        action: TouchAction::Lift,
                    },
                    Touch {
                        t_ms: 1500,
                        square: sq("e8"),
                        piece: p('Q'),
                        action: TouchAction::Place,
                    },
                ],
            }),
            EventKind::IllegalMove(IllegalMoveEvent {
                color: Color::Black,
                category: IllegalCategory::PieceMovement,
                attempt: Some(Attempt {
                    from: sq("f8"),
                    to: sq("f6"),
                    piece: p('b'),
                }),
                count: 2,
                restore_fen: chess_rules::START_FEN.into(),
                restore: vec![
                    RestoreStep::Remove {
                        square: sq("f6"),
                        piece: p('b'),
                    },
                    RestoreStep::Put {
                        square: sq("f8"),
                        piece: p('b'),
                    },
                ],
                must_move: Some(sq("f8")),
                penalty: Some(penalty),
                result: Some(GameResult::WhiteWins),
                result_undetermined: true,
                ply: 2,
                explanation: "the \"bishop\"\n".into(),
                clock_before: Some(clock),
                clock_after: Some(clock),
            }),
            EventKind::Restored { fen: "f\\".into() },
            EventKind::TouchMove(TouchMoveEvent {
                color: Color::White,
                touched: vec![Touched {
                    square: sq("g1"),
                    piece: p('N'),
                }],
                obligation: Obligation::KingMove,
                square: sq("e1"),
                played: "e2e4".parse().unwrap(),
                played_san: "e4".into(),
                violation: true,
                ply: 1,
            }),
            EventKind::TwoHandedSuspected(TwoHandedEvent {
                color: Color::Black,
                uci: "e8g8".parse().unwrap(),
                san: "O-O".into(),
                evidence: "both\t".into(),
                ply: 20,
            }),
            EventKind::DrawClaimable(DrawClaimableEvent {
                reason: ClaimReason::Threefold,
                color: Color::White,
                plies: vec![4, 8, 12],
                with_move: Some("g1f3".parse().unwrap()),
                ply: 12,
            }),
            EventKind::GameOver(GameOverEvent {
                result: GameResult::Draw,
                reason: EndReason::Flag,
                flag: Some(Color::Black),
                undetermined: true,
                plies: 43,
            }),
            EventKind::NewGame {
                fen: chess_rules::START_FEN.into(),
            },
            EventKind::IllegalMoveStands(IllegalMoveStandsEvent {
                color: Color::White,
                attempt: None,
                fen: "x".into(),
                count: 1,
                voided_penalty: Some(penalty),
            }),
            EventKind::RecoveryUncertain(RecoveryUncertainEvent {
                ply: 15,
                recorded: vec!["g1f3".parse().unwrap()],
                recorded_san: "8. Nf3".into(),
                alternatives: vec![vec!["g1h3".parse().unwrap()]],
                alternatives_san: vec!["8. Nh3".into()],
            }),
            EventKind::Displaced(DisplacedEvent {
                color: Color::Black,
                ply: 9,
                squares: vec![RestoreStep::Put {
                    square: sq("c2"),
                    piece: p('P'),
                }],
                reestablished: false,
                explanation: "pawn c2 knocked over".into(),
            }),
            EventKind::RulingUnclear(RulingUnclearEvent {
                color: Color::White,
                ply: 30,
                readings: vec!["Rd1".into(), "€".into()],
                explanation: String::new(),
            }),
            EventKind::PositionAccepted(PositionAcceptedEvent {
                fen: chess_rules::START_FEN.into(),
                side_to_move: Color::Black,
                last_known_ply: 10,
                ply: 13,
                ply_unknown: true,
                candidates: Vec::new(),
            }),
            EventKind::PositionAccepted(PositionAcceptedEvent {
                fen: chess_rules::START_FEN.into(),
                side_to_move: Color::White,
                last_known_ply: 2,
                ply: 4,
                ply_unknown: false,
                candidates: vec![GapCandidate {
                    ply: 3,
                    uci: vec!["g1f3".parse().unwrap(), "b8c6".parse().unwrap()],
                    san: "2. Nf3 Nc6".into(),
                }],
            }),
            EventKind::ArbiterDecision(ArbiterDecisionEvent {
                decision: Decision::TimeAdded,
                color: Some(Color::White),
                ply: Some(12),
                penalty: Some(penalty),
                result: Some(ArbiterResult::WhiteWinsByForfeit),
                board_result: Some(GameResult::Ongoing),
                clock_before: Some(clock),
                clock_after: None,
                reason: None,
                to_move: Color::Black,
                explanation: "2 minutes".into(),
            }),
        ];
        kinds.push(EventKind::TakenBack(crate::TakenBackEvent {
            to_ply: 20,
            from_ply: 23,
            fen: chess_rules::START_FEN.into(),
            reason: "illegal move at ply 21 (art. 7.5.1)".into(),
            restore: Vec::new(),
        }));
        kinds.push(EventKind::ClockMismatch(ClockMismatchEvent {
            color: Color::Black,
            reason: MismatchReason::PeriodNotAdded,
            move_number: 40,
            due_move: 40,
            clock_ms: 61_000,
            expected_ms: Some(1_861_000),
            explanation: "period 2".into(),
        }));
        kinds.push(EventKind::ClockMismatch(ClockMismatchEvent {
            color: Color::White,
            reason: MismatchReason::PeriodAddedEarly,
            move_number: 39,
            due_move: 40,
            clock_ms: 1_861_000,
            expected_ms: None,
            explanation: String::new(),
        }));
        kinds.extend(ALL_STATUSES.map(|status| {
            EventKind::BoardStatus(BoardStatusEvent {
                status,
                detail: Some("left".into()),
                candidates: Vec::new(),
            })
        }));
        kinds.push(EventKind::BoardStatus(BoardStatusEvent {
            status: BoardStatus::OutOfSync,
            detail: None,
            candidates: vec![GapCandidate {
                ply: 7,
                uci: vec!["e2e4".parse().unwrap()],
                san: "4. e4".into(),
            }],
        }));
        kinds
    }

    /// Every kind, on whichever writer it takes, gives serde's bytes; the frequent kinds
    /// take the direct one.
    #[test]
    fn every_kind_is_written_as_serde_writes_it() {
        let kinds = every_kind();
        // One of each: a kind added later fails to compile here until it is listed.
        let mut seen = [false; 17];
        for kind in &kinds {
            let i = match kind {
                EventKind::Move(_) => 0,
                EventKind::IllegalMove(_) => 1,
                EventKind::Restored { .. } => 2,
                EventKind::TouchMove(_) => 3,
                EventKind::TwoHandedSuspected(_) => 4,
                EventKind::DrawClaimable(_) => 5,
                EventKind::GameOver(_) => 6,
                EventKind::BoardStatus(_) => 7,
                EventKind::NewGame { .. } => 8,
                EventKind::IllegalMoveStands(_) => 9,
                EventKind::RecoveryUncertain(_) => 10,
                EventKind::Displaced(_) => 11,
                EventKind::RulingUnclear(_) => 12,
                EventKind::PositionAccepted(_) => 13,
                EventKind::ArbiterDecision(_) => 14,
                EventKind::ClockMismatch(_) => 15,
                EventKind::TakenBack(_) => 16,
            };
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
        for kind in kinds {
            let direct = match &kind {
                EventKind::BoardStatus(s) => s.candidates.is_empty(),
                kind => matches!(
                    kind,
                    EventKind::Move(_) | EventKind::Restored { .. } | EventKind::NewGame { .. }
                ),
            };
            for board in ["7", "", "hall \"A\"\\\u{1}é"] {
                let e = ArbiterEvent {
                    t_ms: 1234,
                    board: board.into(),
                    kind: kind.clone(),
                };
                assert_eq!(direct_bytes(&e).is_some(), direct, "{}", e.kind_name());
                assert_writers_agree(&e);
            }
        }
    }
}
