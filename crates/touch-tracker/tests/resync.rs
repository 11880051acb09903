//! Resync after a gap of any length: the deep reconnect search on real games, and the
//! tracker's `out_of_sync` state (no ruling, penalty or clock command on a board it
//! cannot explain; the line adopted once exactly one explains it).

use chess_rules::{read_pgn, Color, Move, Piece, Placement, Position, Square};
use dgt_protocol::capture::TimeControl;
use dgt_protocol::{
    BoardEvent, ClockSide, ClockTime, FieldIndex, FieldUpdate, Hms, Orientation, PieceCode,
    RawBoard, SideTime, TimedEvent,
};
use touch_tracker::recover::{self, Exhausted};
use touch_tracker::{
    events::{BoardStatusEvent, RecoveryUncertainEvent},
    ArbiterEvent, BoardStatus, EventKind, KnownGame, SyncTracker, TrackerConfig,
};

/// The demo's eight games (the daemon's `demo/games.pgn`, in this repository).
fn games() -> Vec<Vec<Move>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../arbiter-daemon/src/demo/games.pgn"
    );
    let text = std::fs::read(path).unwrap();
    read_pgn(&text)
        .unwrap()
        .iter()
        .map(|g| g.replay().unwrap().moves().to_vec())
        .collect()
}

#[test]
#[ignore]
fn deep_search_experiment() {
    for gap in [1usize, 3, 6, 8, 10, 12, 20] {
        let (mut exact, mut uncertain, mut other, mut none, mut exhausted) = (0, 0, 0, 0, 0);
        let (mut capped, mut shorter) = (0, 0);
        let mut slowest = std::time::Duration::ZERO;
        for moves in games() {
            let mut start = 0;
            while start + gap <= moves.len() {
                let mut from = Position::start();
                for m in &moves[..start] {
                    from = from.play(*m).unwrap();
                }
                let mut to = from;
                for m in &moves[start..start + gap] {
                    to = to.play(*m).unwrap();
                }
                let t0 = std::time::Instant::now();
                let r = recover::lost_moves_within(
                    &from,
                    to.placement(),
                    recover::DEEP_PLIES,
                    None,
                    recover::DEEP_NODES,
                );
                slowest = slowest.max(t0.elapsed());
                match r {
                    Err(Exhausted) => exhausted += 1,
                    Ok(None) => none += 1,
                    Ok(Some(f)) => {
                        let played = &moves[start..start + gap];
                        if f.others.is_empty() && f.line == played {
                            exact += 1
                        } else if f.line == played || f.others.iter().any(|o| o == played) {
                            uncertain += 1
                        } else if !f.others.is_empty() {
                            capped += 1
                        } else if f.line.len() < gap {
                            shorter += 1
                        } else {
                            other += 1
                        }
                    }
                }
                start += 7;
            }
        }
        eprintln!("gap {gap}: exact {exact} uncertain {uncertain} capped {capped} shorter {shorter} other {other} none {none} exhausted {exhausted} slowest {slowest:?}");
    }
}

/// A board, a clock and a tracker in virtual time (a small copy of the rulings tests'
/// driver: pieces up and down, presses, reconnects).
struct Bench {
    t: u64,
    tracker: SyncTracker,
    board: Placement,
    pos: Position,
    clock: ClockTime,
    out: Vec<ArbiterEvent>,
}

impl Bench {
    fn new(start: Position) -> Bench {
        let mut cfg = TrackerConfig::new("t");
        cfg.time_control = Some(TimeControl {
            base_secs: 180,
            increment_secs: 2,
        });
        cfg.start = start;
        let side = SideTime {
            time: Hms::from_secs(180).unwrap(),
            ..SideTime::default()
        };
        let mut b = Bench {
            t: 0,
            tracker: SyncTracker::new(cfg),
            board: *start.placement(),
            pos: start,
            clock: ClockTime {
                left: side,
                right: side,
                running: false,
                lever: ClockSide::Left,
                ..ClockTime::default()
            },
            out: Vec::new(),
        };
        b.feed(BoardEvent::Dump {
            board: RawBoard::from_placement(&b.board, Orientation::Normal),
        });
        b.t += 100;
        b.clock.running = true;
        b.clock.lever = b.side_of(start.side_to_move());
        b.frame();
        b
    }

    fn feed(&mut self, event: BoardEvent) {
        let ev = TimedEvent {
            t_ms: self.t,
            event,
        };
        self.tracker.handle(&ev, &mut self.out);
    }

    fn frame(&mut self) {
        self.feed(BoardEvent::Clock(self.clock));
    }

    fn side_of(&self, c: Color) -> ClockSide {
        match c {
            Color::White => ClockSide::Left,
            Color::Black => ClockSide::Right,
        }
    }

    fn field(&mut self, s: Square, piece: Option<Piece>) {
        self.t += 300;
        self.board.set(s, piece);
        let code = piece.map_or(PieceCode::Empty, PieceCode::Piece);
        let field = FieldIndex::from_square(s, Orientation::Normal);
        self.feed(BoardEvent::Field(FieldUpdate { field, piece: code }));
    }

    /// A legal move made by hand.
    fn play(&mut self, uci: &str) {
        let pos = self.pos;
        let m = pos.parse_uci(uci).unwrap();
        self.pos = pos.play(m).unwrap();
        let after = *self.pos.placement();
        let changes: Vec<_> = pos.placement().diff(&after).collect();
        for d in changes.iter().filter(|d| d.after.is_none()) {
            self.field(d.square, None);
        }
        for d in changes.iter().filter(|d| d.after.is_some()) {
            self.field(d.square, d.after);
        }
    }

    /// `c` presses: his time stops, the other's runs.
    fn press(&mut self, c: Color) {
        self.t += 100;
        self.clock.lever = self.side_of(c).other();
        self.frame();
    }

    /// The line goes down; `moves` are played (and pressed) unseen; the board comes back.
    fn gap(&mut self, moves: &[Move]) {
        self.gap_then(moves, true);
    }

    /// As [`Bench::gap`]; `last_pressed`: the last of `moves` was pressed unseen.
    fn gap_then(&mut self, moves: &[Move], last_pressed: bool) {
        self.feed(BoardEvent::Disconnected {
            reason: "cable".into(),
        });
        for m in moves {
            self.pos = self.pos.play(*m).unwrap();
        }
        self.t += 5_000;
        let runs = match last_pressed {
            true => self.pos.side_to_move(),
            false => self.pos.side_to_move().opponent(),
        };
        self.clock.lever = self.side_of(runs);
        self.feed(BoardEvent::Connected {
            serial: None,
            version: None,
            clock_version: None,
        });
        self.board = *self.pos.placement();
        self.feed(BoardEvent::Dump {
            board: RawBoard::from_placement(&self.board, Orientation::Normal),
        });
        self.frame();
    }

    /// The line goes down while a player lifts the pieces on `held`; it comes back with
    /// them still in the hand (the dump shows their squares empty).
    fn gap_holding(&mut self, held: &[Square]) {
        self.feed(BoardEvent::Disconnected {
            reason: "cable".into(),
        });
        self.t += 2_000;
        self.feed(BoardEvent::Connected {
            serial: None,
            version: None,
            clock_version: None,
        });
        for &sq in held {
            self.board.set(sq, None);
        }
        self.feed(BoardEvent::Dump {
            board: RawBoard::from_placement(&self.board, Orientation::Normal),
        });
        self.frame();
    }

    /// The rest of a move whose pieces were lifted unseen: the pieces put down.
    fn finish(&mut self, from: Position, uci: &str) {
        let m = from.parse_uci(uci).unwrap();
        self.pos = from.play(m).unwrap();
        let after = *self.pos.placement();
        let changes: Vec<_> = self.board.diff(&after).collect();
        for d in changes {
            self.field(d.square, d.after);
        }
    }

    /// Time passes (past the settle window), a clock frame comes.
    fn settle(&mut self) {
        self.t += 1_500;
        self.frame();
    }

    /// `moves` played by hand from the board's position, each pressed by its mover.
    fn play_pressed(&mut self, moves: &[Move]) {
        for m in moves {
            let mover = self.pos.side_to_move();
            self.play(&m.uci());
            self.press(mover);
        }
    }

    /// The moves recorded so far, in order.
    fn recorded(&self) -> Vec<Move> {
        self.out
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Move(m) => Some(m.uci),
                _ => None,
            })
            .collect()
    }

    /// The `recovery_uncertain` events so far.
    fn uncertain(&self) -> Vec<&RecoveryUncertainEvent> {
        self.out
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::RecoveryUncertain(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    fn kinds(&self, kind: &str) -> usize {
        self.out.iter().filter(|e| e.kind_name() == kind).count()
    }

    fn statuses(&self, status: BoardStatus) -> Vec<&BoardStatusEvent> {
        self.out
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::BoardStatus(s) if s.status == status => Some(s),
                _ => None,
            })
            .collect()
    }

    fn no_ruling(&self) {
        let rulings: Vec<&ArbiterEvent> = self
            .out
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::IllegalMove(_) | EventKind::IllegalMoveStands(_)
                )
            })
            .collect();
        assert!(rulings.is_empty(), "{rulings:#?}");
    }
}

fn uci_line(pos: &Position, line: &[&str]) -> Vec<Move> {
    let mut p = *pos;
    line.iter()
        .map(|u| {
            let m = p.parse_uci(u).unwrap();
            p = p.play(m).unwrap();
            m
        })
        .collect()
}

#[test]
fn a_shorter_line_of_the_other_parity_never_leads_to_a_ruling() {
    // 1. e4 e5, then unseen 2. Qh5 Nc6 3. Qg4: the search finds the shorter 2. Qg4 Nc6
    // (the same squares, the wrong side to move). Black's next move then looks like a
    // second black move: before, his press was ruled an illegal move nobody made.
    let mut b = Bench::new(Position::start());
    b.play("e2e4");
    b.press(Color::White);
    b.play("e7e5");
    b.press(Color::Black);
    let lost = uci_line(&b.pos, &["d1h5", "b8c6", "h5g4"]);
    b.gap(&lost);
    b.settle();
    b.play("g8f6");
    b.press(Color::Black);
    b.settle();
    b.play("g4f5");
    b.press(Color::White);
    b.settle();
    b.no_ruling();
    let out = b.statuses(BoardStatus::OutOfSync);
    assert!(!out.is_empty(), "{:#?}", b.out);
    let detail = out[0].detail.as_deref().unwrap();
    assert!(detail.contains("no ruling"), "{detail}");
    // (The deep search at the presses may then adopt a line with a wasted tempo that
    // explains the board; whatever it adopts, nothing is ruled: see docs/reliability.md.)
}

#[test]
fn a_gap_of_twenty_plies_is_out_of_sync_and_never_ruled() {
    let moves = &games()[0];
    let mut b = Bench::new(Position::start());
    b.play_pressed(&moves[..2]);
    b.gap(&moves[2..22]);
    b.settle();
    let out = b.statuses(BoardStatus::OutOfSync);
    assert_eq!(out.len(), 1, "{:#?}", b.out);
    let detail = out[0].detail.as_deref().unwrap();
    assert!(
        detail.starts_with("last known position: ply 2 (white to move"),
        "{detail}"
    );
    assert!(detail.contains("at least"), "{detail}");
    // The players go on: six more plies, each pressed; nothing is ruled.
    for m in &moves[22..28] {
        let mover = b.pos.side_to_move();
        b.play(&m.uci());
        b.press(mover);
        b.settle();
    }
    b.no_ruling();
    assert_eq!(b.kinds("move"), 2, "only the moves before the gap");
    assert_eq!(b.statuses(BoardStatus::InSync).len(), 0);
}

#[test]
fn a_line_only_the_deep_search_reaches_is_adopted_when_it_is_the_only_one() {
    // From the demo's games: a gap of six plies that exactly one line of six explains
    // (found by the search itself, so the test does not depend on a hand-picked game).
    let games = games();
    let (before, seen, lost) = games
        .iter()
        .flat_map(|moves| (1..moves.len().saturating_sub(6)).map(move |i| (moves, i)))
        .find_map(|(moves, i)| {
            let mut before = Position::start();
            for m in &moves[..i - 1] {
                before = before.play(*m).unwrap();
            }
            let from = before.play(moves[i - 1]).unwrap();
            let mut to = from;
            for m in &moves[i..i + 6] {
                to = to.play(*m).unwrap();
            }
            let found = recover::lost_moves_within(
                &from,
                to.placement(),
                recover::DEEP_PLIES,
                None,
                recover::DEEP_NODES,
            );
            match found {
                Ok(Some(f)) if f.others.is_empty() && f.line == moves[i..i + 6] => {
                    Some((before, moves[i - 1], moves[i..i + 6].to_vec()))
                }
                _ => None,
            }
        })
        .expect("a six-ply gap with one line in the demo games");
    // One move seen and pressed first: the press tells the tracker which side of the
    // clock is whose, without which a press after the gap names nobody for sure.
    let mut b = Bench::new(before);
    let mover = before.side_to_move();
    b.play(&seen.uci());
    b.press(mover);
    b.settle();
    // The last lost move is pressed once the board is back: the press sets the deep
    // search off.
    b.gap_then(&lost, false);
    b.settle();
    assert_eq!(b.kinds("move"), 1, "only the move seen before the gap");
    b.press(b.pos.side_to_move().opponent());
    b.settle();
    b.no_ruling();
    let got = b.recorded();
    // The last move is on the board, completed by the press the clock shows.
    assert_eq!(got[0], seen);
    assert_eq!(got[1..], lost, "{:#?}", b.out);
    assert_eq!(b.statuses(BoardStatus::InSync).len(), 1);
    // Six plies are more than a search can vouch for (a line with a wasted tempo is not
    // searched for): the arbiter is told, with the line recorded and no other found.
    let uncertain = b.uncertain();
    assert_eq!(uncertain.len(), 1, "{:#?}", b.out);
    assert_eq!(uncertain[0].recorded, lost);
    assert!(uncertain[0].alternatives.is_empty());
}

/// Plays `sans` from the start, each move pressed.
fn bench_after(sans: &[&str]) -> Bench {
    let mut b = Bench::new(Position::start());
    for uci in sans {
        let mover = b.pos.side_to_move();
        b.play(uci);
        b.press(mover);
    }
    b
}

#[test]
fn a_gap_whose_moves_transpose_is_flagged_uncertain() {
    // 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6, then unseen 4. O-O Bc5 5. d3: 4. d3 Bc5 5. O-O
    // leaves the same squares; the order is not known, so the arbiter is told.
    let mut b = bench_after(&["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]);
    let lost = uci_line(&b.pos, &["e1g1", "f8c5", "d2d3"]);
    b.gap(&lost);
    b.settle();
    b.no_ruling();
    let uncertain = b.uncertain();
    assert_eq!(uncertain.len(), 1, "{:#?}", b.out);
    let mut lines: Vec<&str> = std::iter::once(uncertain[0].recorded_san.as_str())
        .chain(uncertain[0].alternatives_san.iter().map(String::as_str))
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        ["4. O-O Bc5 5. d3", "4. d3 Bc5 5. O-O"],
        "{uncertain:#?}"
    );
}

#[test]
fn the_arbiter_accepts_an_out_of_sync_board_and_play_goes_on() {
    let moves = &games()[0];
    let mut b = Bench::new(Position::start());
    b.play_pressed(&moves[..2]);
    let p = b.pos;
    b.gap(&moves[2..22]);
    b.settle();
    assert_eq!(b.statuses(BoardStatus::OutOfSync).len(), 1);
    let side = b.pos.side_to_move();
    // Refused with the wrong side to move only if that is no position; a board in sync
    // refuses outright.
    let pos = b.tracker.tracker().accepted_position(side).unwrap();
    assert_eq!(pos.placement(), b.pos.placement());
    assert_eq!(pos.side_to_move(), side);
    assert!(pos.plies() >= 2 + recover::min_plies(&p, b.pos.placement()) as u32);
    let mut out = Vec::new();
    b.t += 100;
    b.tracker.accept_board(b.t, side, &mut out).unwrap();
    b.out.extend(out);
    assert_eq!(b.kinds("position_accepted"), 1);
    assert_eq!(b.statuses(BoardStatus::InSync).len(), 1);
    assert!(b.tracker.tracker().accepted_position(side).is_err());
    // Play goes on from there and is recorded.
    for m in &moves[22..28] {
        let mover = b.pos.side_to_move();
        b.play(&m.uci());
        b.press(mover);
        b.settle();
    }
    b.no_ruling();
    let after: Vec<Move> = b
        .out
        .iter()
        .skip_while(|e| e.kind_name() != "position_accepted")
        .filter_map(|e| match &e.kind {
            EventKind::Move(m) => Some(m.uci),
            _ => None,
        })
        .collect();
    assert_eq!(after, moves[22..28]);
}

/// Inputs of the game lost (the daemon's journal damaged in the middle): the tracker
/// knows the game only up to the damage, and the board goes on from a position it never
/// saw. Nothing it shows is matched against the known game (a move recognised there, or
/// an illegal move ruled, would be a guess) until the arbiter accepts the position.
#[test]
fn a_board_held_for_the_arbiter_records_and_rules_nothing_until_it_is_accepted() {
    let moves = &games()[0];
    let mut b = Bench::new(Position::start());
    b.play_pressed(&moves[..2]);
    b.settle();
    let mut out = Vec::new();
    b.t += 100;
    let known = KnownGame {
        ply: 6,
        illegal_white: 1,
        illegal_black: 0,
    };
    b.tracker
        .hold_for_arbiter(b.t, "journal damaged at line 9", known, &mut out);
    b.out.extend(out);
    let held = b.statuses(BoardStatus::OutOfSync);
    assert_eq!(held.len(), 1);
    let detail = held[0].detail.clone().unwrap_or_default();
    for words in ["journal damaged at line 9", "ply 2", "at least ply 6"] {
        assert!(detail.contains(words), "{detail}");
    }
    // The players go on, each move pressed: the first would be a legal move on the known
    // game, the others are moves of a game the tracker does not know in full.
    for m in &moves[2..8] {
        let mover = b.pos.side_to_move();
        b.play(&m.uci());
        b.press(mover);
        b.settle();
    }
    b.no_ruling();
    assert_eq!(b.recorded(), moves[..2], "nothing recorded while held");
    assert!(b.statuses(BoardStatus::InSync).is_empty());
    assert_eq!(
        b.tracker.tracker().snapshot().illegal_white,
        1,
        "the illegal move published stands"
    );
    // The arbiter accepts: the game numbers on from no lower than it is known to have got.
    let side = b.pos.side_to_move();
    let pos = b.tracker.tracker().accepted_position(side).unwrap();
    assert!(pos.plies() >= 6, "{}", pos.fen());
    let mut out = Vec::new();
    b.t += 100;
    b.tracker.accept_board(b.t, side, &mut out).unwrap();
    b.out.extend(out);
    assert_eq!(b.statuses(BoardStatus::InSync).len(), 1);
    b.play_pressed(&moves[8..12]);
    b.settle();
    b.no_ruling();
    assert_eq!(b.recorded()[2..], moves[8..12], "recorded once accepted");
}

#[test]
fn a_line_back_while_a_piece_is_in_the_hand_is_not_out_of_sync() {
    // 1. e4 e5; the cable is out while White lifts the g1 knight; the dump shows g1
    // empty and nothing else changed: a move under way, not lost moves.
    let mut b = bench_after(&["e2e4", "e7e5"]);
    b.gap_holding(&[Square::G1]);
    b.settle();
    let before = b.pos;
    b.finish(before, "g1f3");
    b.press(Color::White);
    // The same after a move made and not pressed: 2... Nf6, 3. Nc3 made, and Black holds
    // the b8 knight when the line comes back (the board shows 3. Nc3 with b8 empty).
    b.play("g8f6");
    b.press(Color::Black);
    b.play("b1c3");
    b.gap_holding(&[Square::B8]);
    let before = b.pos;
    b.finish(before, "b8c6");
    // White presses late, after the reply; then Black.
    b.press(Color::White);
    b.press(Color::Black);
    b.settle();
    b.no_ruling();
    assert_eq!(
        b.statuses(BoardStatus::OutOfSync).len(),
        0,
        "{:#?}",
        b.statuses(BoardStatus::OutOfSync)
    );
    let sans: Vec<String> = b
        .out
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Move(m) => Some(m.san.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        sans,
        ["e4", "e5", "Nf3", "Nf6", "Nc3", "Nc6"],
        "{:#?}",
        b.out
    );
}

#[test]
fn a_gap_one_search_cannot_reach_from_the_board_now_is_found_through_the_squares_it_came_back_with()
{
    // Demo game 2: six plies unseen from ply 6, then the opponent's reply seen. Seven
    // plies to the board as it is at his press are beyond the press's budget; the six of
    // the gap, searched on the squares the board came back with, are not.
    let moves = &games()[1];
    let mut b = Bench::new(Position::start());
    b.play_pressed(&moves[..6]);
    let p = b.pos;
    let direct = {
        let mut to = p;
        for m in &moves[6..13] {
            to = to.play(*m).unwrap();
        }
        recover::lost_moves_to(
            &p,
            to.placement(),
            recover::DEEP_PLIES,
            None,
            to.side_to_move(),
            recover::DEEP_NODES,
        )
    };
    assert_eq!(direct, Err(Exhausted), "the case this test is about");
    b.gap(&moves[6..12]);
    b.settle();
    assert_eq!(b.statuses(BoardStatus::OutOfSync).len(), 1, "{:#?}", b.out);
    let mover = b.pos.side_to_move();
    b.play(&moves[12].uci());
    b.press(mover);
    b.settle();
    b.no_ruling();
    assert_eq!(b.statuses(BoardStatus::InSync).len(), 1, "{:#?}", b.out);
    assert!(b.kinds("recovery_uncertain") >= 1);
    assert_eq!(b.kinds("move"), 13);
    let now = b.tracker.tracker().position();
    assert_eq!(now.placement(), b.pos.placement());
    assert_eq!(now.side_to_move(), b.pos.side_to_move());
    // Play goes on, seen and pressed, with no ruling.
    for m in &moves[13..16] {
        let mover = b.pos.side_to_move();
        b.play(&m.uci());
        b.press(mover);
        b.settle();
    }
    b.no_ruling();
    assert_eq!(b.kinds("move"), 16);
}

#[test]
fn an_en_passant_capture_a_rebuilt_line_s_order_forbids_is_never_ruled() {
    // Unseen: 3. Nf3 Nf6 4. b4, the double step last, so Black may take en passant. The
    // board shows only squares: the rebuilt line may put b4 first (no en passant then).
    let start =
        Position::from_fen("rnbqkbnr/pp1ppppp/8/8/2p5/8/PPPPPPPP/RNBQKBNR w KQkq - 0 3").unwrap();
    let mut b = Bench::new(start);
    let lost = uci_line(&b.pos, &["g1f3", "g8f6", "b2b4"]);
    b.gap(&lost);
    b.settle();
    let recorded = b.recorded();
    assert_eq!(recorded.len(), 3, "{:#?}", b.out);
    b.play("c4b3");
    b.press(Color::Black);
    b.settle();
    b.no_ruling();
    if recorded[0] == lost[2] {
        // b4 recorded first: the capture is not legal from the record; the board goes out
        // of sync for the arbiter rather than a ruling.
        assert!(
            !b.statuses(BoardStatus::OutOfSync).is_empty(),
            "{:#?}",
            b.out
        );
    } else {
        assert_eq!(b.kinds("move"), 4, "{:#?}", b.out);
    }
}
