//! A whole real game (arnsholt/dgtdriver game 2: castling, en passant, 99 plies) played
//! by simple hands on the emulator, on a turned board with the realistic scan model,
//! read back through the decoder and the event filter: the reported placements pass
//! through the position after every move, and the clock switches at every press.
//!
//! The move list is read at run time from `../shared/data` beside the workspace (or
//! `$DGT_SHARED_DIR`); it is AGPL and never copied into this repository.

use chess_rules::{Color, File, Move, Piece, Placement, Role, Square};
use dgt_protocol::{BoardEvent, Decoder, EventFilter, HostCommand, Orientation, RawBoard};
use dgt_sim::{Action, Emulator, EmulatorConfig, TimedAction};

/// The hand actions for one move, and the placement after it.
fn hands_for(p: &mut Placement, m: Move, t: &mut u64, out: &mut Vec<TimedAction>) {
    let mut act = |action| {
        *t += 150;
        out.push(TimedAction { at_ms: *t, action });
    };
    let piece = p
        .get(m.from)
        .unwrap_or_else(|| panic!("no piece on the from square of {m}"));
    let df = i16::from(m.to.file().index()) - i16::from(m.from.file().index());
    let capture = p.get(m.to).is_some();
    if capture {
        act(Action::Lift(m.to)); // take the captured piece off first
        p.set(m.to, None);
    }
    act(Action::Lift(m.from));
    p.set(m.from, None);
    if piece.role == Role::Pawn && df != 0 && !capture {
        let victim = Square::new(m.to.file(), m.from.rank());
        act(Action::Lift(victim)); // en passant
        p.set(victim, None);
    }
    let placed = m.promotion.map_or(piece, |r| Piece::new(piece.color, r));
    act(Action::Place(m.to, placed));
    p.set(m.to, Some(placed));
    if piece.role == Role::King && df.abs() == 2 {
        let rank = m.from.rank();
        let (rf, rt) = if df > 0 {
            (File::H, File::F)
        } else {
            (File::A, File::D)
        };
        let rook = p.get(Square::new(rf, rank));
        act(Action::Lift(Square::new(rf, rank)));
        act(Action::Place(Square::new(rt, rank), rook.expect("a rook")));
        p.set(Square::new(rf, rank), None);
        p.set(Square::new(rt, rank), rook);
    }
    *t += 400;
    out.push(TimedAction {
        at_ms: *t,
        action: Action::PressClock(piece.color),
    });
}

#[test]
fn game_2_through_the_emulator() {
    if !test_data::have("dgt-captures/arnsholt-dgtdriver") {
        return;
    }
    let text = test_data::read_text("dgt-captures/arnsholt-dgtdriver/2.uci");
    let moves: Vec<Move> = text
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && *t != "*")
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(moves.len(), 99);
    let mut placement = Placement::start();
    let mut expected = Vec::new();
    let mut script = Vec::new();
    let mut t = 1000;
    for &m in &moves {
        hands_for(&mut placement, m, &mut t, &mut script);
        expected.push(placement);
    }

    let mut emu = Emulator::new(EmulatorConfig {
        orientation: Orientation::Rotated,
        scan_interval_ms: 100,
        ..EmulatorConfig::default()
    });
    let mut bytes = Vec::new();
    emu.receive(
        &[
            HostCommand::SendBoard.encode(),
            HostCommand::SendUpdateNice.encode(),
        ]
        .concat(),
    );
    for a in &script {
        emu.apply_at(a.at_ms, &a.action);
        bytes.extend(emu.take_bytes());
    }
    emu.advance_to(t + 2000);
    bytes.extend(emu.take_bytes());

    let mut decoder = Decoder::new();
    let mut filter = EventFilter::new();
    let mut raw = RawBoard::default();
    let mut orientation = None;
    let mut next = 0;
    let mut lever = None;
    let mut flips = 0;
    // Feed the bytes in odd chunks, as a serial port delivers them.
    for chunk in bytes.chunks(7) {
        for msg in decoder.push(chunk) {
            for event in filter.on_message(&msg.unwrap()) {
                match event {
                    BoardEvent::Dump { board } => {
                        orientation = board.detect_orientation();
                        raw = board;
                    }
                    BoardEvent::Field(u) => raw.apply(u),
                    BoardEvent::Clock(c) => {
                        if lever.is_some_and(|l| l != c.lever) {
                            flips += 1;
                        }
                        lever = Some(c.lever);
                        continue;
                    }
                    _ => continue,
                }
                let o = orientation.expect("the dump shows a start position");
                if next < expected.len() && raw.placement(o) == expected[next] {
                    next += 1;
                }
            }
        }
    }
    assert_eq!(orientation, Some(Orientation::Rotated));
    assert_eq!(next, expected.len(), "stopped before move {}", next + 1);
    // Black's lever is up at the start, so White's first press only starts the clock;
    // each of the other 98 presses flips the lever.
    assert_eq!(flips, 98);
    let white_left = emu.remaining(Color::White);
    assert!(white_left.as_secs() > 0);
}
