//! The two real captures from arnsholt/dgtdriver (a physical DGT board and clock) decode
//! message for message as the author's `.json` decodings say, and replaying their board
//! traffic passes through the position after every expected move, in order.
//!
//! The data is read at run time from `../shared/data` beside the workspace (or
//! `$DGT_SHARED_DIR`); it is AGPL and never copied into this repository.

use chess_rules::{Color, Move, Piece, Placement, Role, Square};
use dgt_protocol::capture::{CaptureReader, Direction};
use dgt_protocol::{
    BoardMessage, ClockTime, Decoder, FieldIndex, Orientation, PieceCode, RawBoard, SideTime,
};
use serde_json::{json, Value};

/// All board-to-host bytes of a capture, record by record.
fn board_chunks(name: &str) -> Vec<Vec<u8>> {
    let file = std::fs::File::open(test_data::capture(name)).unwrap();
    let reader = CaptureReader::new(std::io::BufReader::new(file)).unwrap();
    reader
        .map(|r| r.unwrap())
        .filter(|r| r.direction == Direction::ToHost)
        .map(|r| r.bytes)
        .collect()
}

fn decode_all(chunks: &[Vec<u8>]) -> Vec<BoardMessage> {
    let mut d = Decoder::new();
    let mut out = Vec::new();
    for c in chunks {
        for m in d.push(c) {
            out.push(m.unwrap());
        }
    }
    assert!(d.finish().is_empty());
    out
}

/// A message in the shape of the author's JSON decodings.
fn arnsholt_json(m: &BoardMessage) -> Value {
    fn side(s: &SideTime) -> Value {
        json!({
            "hours": s.time.hours(), "minutes": s.time.minutes(), "seconds": s.time.seconds(),
            "final_flag": s.flag_fallen, "flag": s.flag_shown, "time_per_move": s.time_per_move,
        })
    }
    fn clock(t: &ClockTime) -> Value {
        json!({
            "left_clock": side(&t.left), "right_clock": side(&t.right),
            "clock_running": t.running,
            "right_high": t.lever == dgt_protocol::ClockSide::Right,
            "battery_indicator": t.battery_low, "left_turn": t.left_turn_bit,
            "right_turn": t.right_turn_bit, "no_clock": t.no_clock,
        })
    }
    match m {
        BoardMessage::BoardDump { board } => {
            json!({ "board": board.0.iter().map(|c| c.char().to_string()).collect::<Vec<_>>() })
        }
        BoardMessage::FieldUpdate(u) => json!({
            "piece": u.piece.char().to_string(),
            // The author names fields as on a normally oriented board.
            "field": u.field.square(Orientation::Normal).to_string(),
        }),
        BoardMessage::ClockTime(t) => clock(t),
        other => panic!("unexpected message {other}"),
    }
}

fn check_against_json(name: &str) {
    let messages = decode_all(&board_chunks(&format!("{name}.dgtcap")));
    let text = std::fs::read_to_string(test_data::capture(&format!("{name}.json"))).unwrap();
    let expected: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(messages.len(), expected.len(), "{name}: message count");
    for (i, (m, e)) in messages.iter().zip(&expected).enumerate() {
        assert_eq!(&arnsholt_json(m), e, "{name}: message {} ({m})", i + 1);
    }
    // The same bytes in odd chunk sizes decode to the same messages.
    let all: Vec<u8> = board_chunks(&format!("{name}.dgtcap")).concat();
    let mut chunks = Vec::new();
    let mut rest = &all[..];
    let mut size = 1;
    while !rest.is_empty() {
        let n = size.min(rest.len());
        chunks.push(rest[..n].to_vec());
        rest = &rest[n..];
        size = size % 13 + 1;
    }
    assert_eq!(decode_all(&chunks), messages, "{name}: chunked decoding");
}

#[test]
fn game_2_decodes_as_recorded() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    check_against_json("2");
}

#[test]
fn game_johan_decodes_as_recorded() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    check_against_json("johan");
}

/// Applies a move to a placement by hand (castling, en passant and promotion included).
fn apply(p: &mut Placement, m: Move) {
    let piece = p
        .get(m.from)
        .unwrap_or_else(|| panic!("no piece on {}", m.from));
    let df =
        i8::try_from(m.to.file().index()).unwrap() - i8::try_from(m.from.file().index()).unwrap();
    if piece.role == Role::King && df.abs() == 2 {
        let (rook_from, rook_to) = if df > 0 { (7, 5) } else { (0, 3) };
        let rank = m.from.rank();
        let rf = Square::new(chess_rules::File::from_index(rook_from).unwrap(), rank);
        let rt = Square::new(chess_rules::File::from_index(rook_to).unwrap(), rank);
        let rook = p.get(rf);
        p.set(rf, None);
        p.set(rt, rook);
    }
    if piece.role == Role::Pawn && df != 0 && p.get(m.to).is_none() {
        p.set(Square::new(m.to.file(), m.from.rank()), None); // en passant
    }
    p.set(m.from, None);
    let placed = m.promotion.map_or(piece, |r| Piece::new(piece.color, r));
    p.set(m.to, Some(placed));
}

/// Resolves SAN against a placement (enough for these games: no pin-dependent ambiguity).
fn san_to_move(p: &Placement, color: Color, san: &str) -> Move {
    let s = san.trim_end_matches(['+', '#', '!', '?']);
    let back = color.back_rank();
    let sq = |f: u8, r| Square::new(chess_rules::File::from_index(f).unwrap(), r);
    if s == "O-O" || s == "O-O-O" {
        let to = if s == "O-O" { 6 } else { 2 };
        return Move::new(sq(4, back), sq(to, back), None);
    }
    let (s, promotion) = match s.split_once('=') {
        Some((a, b)) => (a, Role::from_char(b.chars().next().unwrap())),
        None => (s, None),
    };
    let role = s
        .chars()
        .next()
        .filter(|c| c.is_ascii_uppercase())
        .map_or(Role::Pawn, |c| Role::from_char(c).unwrap());
    let body: String = s.chars().filter(|&c| c != 'x').collect();
    let body = if role == Role::Pawn {
        &body[..]
    } else {
        &body[1..]
    };
    let to: Square = body[body.len() - 2..].parse().unwrap();
    let hint = &body[..body.len() - 2];
    let capture = s.contains('x');
    let candidates: Vec<Square> = p
        .squares_of(Piece::new(color, role))
        .filter(|&from| {
            hint.chars()
                .all(|h| from.file().char() == h || from.rank().char() == h)
                && reaches(p, color, role, from, to, capture)
        })
        .collect();
    assert_eq!(candidates.len(), 1, "SAN {san}: candidates {candidates:?}");
    Move::new(candidates[0], to, promotion)
}

fn reaches(
    p: &Placement,
    color: Color,
    role: Role,
    from: Square,
    to: Square,
    capture: bool,
) -> bool {
    let df = i8::try_from(to.file().index()).unwrap() - i8::try_from(from.file().index()).unwrap();
    let dr = i8::try_from(to.rank().index()).unwrap() - i8::try_from(from.rank().index()).unwrap();
    let clear = |sf: i8, sr: i8| {
        let mut cur = from.offset(sf, sr);
        while let Some(c) = cur {
            if c == to {
                return true;
            }
            if p.get(c).is_some() {
                return false;
            }
            cur = c.offset(sf, sr);
        }
        false
    };
    match role {
        Role::Knight => (df.abs(), dr.abs()) == (1, 2) || (df.abs(), dr.abs()) == (2, 1),
        Role::King => df.abs() <= 1 && dr.abs() <= 1,
        Role::Rook => (df == 0) != (dr == 0) && clear(df.signum(), dr.signum()),
        Role::Bishop => df.abs() == dr.abs() && df != 0 && clear(df.signum(), dr.signum()),
        Role::Queen => {
            ((df == 0) != (dr == 0) || (df.abs() == dr.abs() && df != 0))
                && clear(df.signum(), dr.signum())
        }
        Role::Pawn => {
            let dir = if color == Color::White { 1 } else { -1 };
            if capture {
                df.abs() == 1 && dr == dir
            } else {
                df == 0 && (dr == dir || (dr == 2 * dir && clear(0, dir)))
            }
        }
    }
}

/// The placements after each expected move.
fn expected_placements(moves: &[Move]) -> Vec<Placement> {
    let mut p = Placement::start();
    moves
        .iter()
        .map(|&m| {
            apply(&mut p, m);
            p
        })
        .collect()
}

/// Replays the dump and field updates and checks that `expected` occur in order.
fn check_replay(name: &str, expected: &[Placement], orientation: Orientation) {
    let messages = decode_all(&board_chunks(&format!("{name}.dgtcap")));
    let mut raw = RawBoard::default();
    let mut next = 0;
    let mut seen_dump = false;
    for m in &messages {
        match m {
            BoardMessage::BoardDump { board } => {
                assert_eq!(board.detect_orientation(), Some(orientation), "{name}");
                raw = *board;
                seen_dump = true;
            }
            BoardMessage::FieldUpdate(u) => raw.apply(*u),
            _ => continue,
        }
        if next < expected.len() && raw.placement(orientation) == expected[next] {
            next += 1;
        }
    }
    assert!(seen_dump);
    assert_eq!(
        next,
        expected.len(),
        "{name}: stopped before expected move {} (placement {})",
        next + 1,
        expected
            .get(next)
            .map(|p| p.fen_field())
            .unwrap_or_default()
    );
}

#[test]
fn game_2_replays_through_every_expected_move() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    let text = std::fs::read_to_string(test_data::capture("2.uci")).unwrap();
    let moves: Vec<Move> = text
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && *t != "*")
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(moves.len(), 99);
    // Game 2 was played on a board turned round, and has an en passant (15...a4b3).
    check_replay("2", &expected_placements(&moves), Orientation::Rotated);
}

#[test]
fn game_johan_replays_through_every_expected_move() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    let text = std::fs::read_to_string(test_data::capture("johan.pgn")).unwrap();
    let mut p = Placement::start();
    let mut moves = Vec::new();
    let mut color = Color::White;
    for token in text.split_whitespace() {
        if token.ends_with('.') || token.contains('-') && !token.starts_with('O') {
            continue;
        }
        let m = san_to_move(&p, color, token);
        apply(&mut p, m);
        moves.push(m);
        color = color.opponent();
    }
    assert_eq!(moves.len(), 43);
    check_replay("johan", &expected_placements(&moves), Orientation::Normal);
}

#[test]
fn johan_ends_in_a_flag_fall() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    let messages = decode_all(&board_chunks("johan.dgtcap"));
    let last_clock = messages
        .iter()
        .rev()
        .find_map(|m| match m {
            BoardMessage::ClockTime(t) => Some(*t),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        last_clock.flag_fallen(),
        Some(dgt_protocol::ClockSide::Right)
    );
    assert_eq!(last_clock.right.time.secs(), 0);
    assert!(!last_clock.running);
    // And the first clock frame shows 5:05 on both sides.
    let first = messages.iter().find_map(|m| match m {
        BoardMessage::ClockTime(t) => Some(*t),
        _ => None,
    });
    assert_eq!(first.unwrap().left.time.secs(), 305);
    // Field indices in this capture are all within 0..=63 and piece codes are chess pieces.
    for m in &messages {
        if let BoardMessage::FieldUpdate(u) = m {
            assert!(FieldIndex::new(u.field.index()).is_some());
            assert!(!matches!(u.piece, PieceCode::Magic(_)));
        }
    }
}

#[test]
fn real_traffic_passes_the_event_filter() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    use dgt_protocol::{BoardEvent, EventFilter};
    for name in ["2", "johan"] {
        let messages = decode_all(&board_chunks(&format!("{name}.dgtcap")));
        let mut filter = EventFilter::new();
        let events: Vec<BoardEvent> = messages.iter().flat_map(|m| filter.on_message(m)).collect();
        let clock_frames = messages
            .iter()
            .filter(|m| matches!(m, BoardMessage::ClockTime(_)))
            .count();
        let clock_events = events
            .iter()
            .filter(|e| matches!(e, BoardEvent::Clock(_)))
            .count();
        // Real frames are all sane: none is dropped, and the clock appears once.
        assert_eq!(clock_events, clock_frames, "{name}");
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, BoardEvent::ClockConnected))
                .count(),
            1
        );
        // Lever flips, as picochess detects presses (bit 1 changing): one per ply that was
        // followed by a press (all but the last in game 2).
        let mut flips: usize = 0;
        let mut last = None;
        for e in &events {
            if let BoardEvent::Clock(t) = e {
                if last.is_some_and(|l| l != t.lever) {
                    flips += 1;
                }
                last = Some(t.lever);
            }
        }
        let expected = if name == "2" { 98 } else { 43 };
        assert_eq!(flips, expected, "{name}: lever flips");
    }
}
