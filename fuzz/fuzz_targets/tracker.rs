//! Fuzzes the touch tracker through its whole API: the input bytes are read as a board
//! configuration and a sequence of operations (legal moves made by hand, field updates with
//! any piece code, dumps, clock frames with any lever, running flag, flags and times,
//! presses, (dis)connections of board and clock, clock ACKs, buttons, battery reports,
//! time passing, timer firings, analysis answers in any order, snapshots), which drive a
//! `Tracker`. Checked: no panic; every event serialises and reads back the same; no event
//! comes from the future; every `move` is legal from the position before
//! it (as the events themselves describe the game) and carries that position's FEN;
//! plies go up by one (a move replacing the last ply's move excepted); no move is recorded
//! after the game is over until a new game begins; the snapshot agrees with the events.
//!
//! With `TRACKER_FUZZ_DUMP=1` set, the inputs are printed as JSON lines (the journal's
//! record shapes), ready to become a regression test.
#![no_main]

use std::collections::BTreeMap;

use chess_rules::{CanMate, Position};
use dgt_protocol::{
    BatteryStatus, BoardEvent, ButtonPress, ClockAck, ClockButton, ClockSide, ClockTime,
    FieldIndex, FieldUpdate, HeldButtons, Hms, HoursMinutes, Orientation, PieceCode, RawBoard,
    SideTime, TimedEvent,
};
use libfuzzer_sys::fuzz_target;
use touch_tracker::{ArbiterEvent, EventKind, Supervision, Tracker, TrackerConfig};

/// Reads the fuzzer's bytes as small numbers; zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One input of the tracker, as the journal records it.
enum Input {
    Event(TimedEvent),
    Timeout(u64),
    Analysis(u64, CanMate),
    Snapshot,
}

impl Input {
    fn dump(&self) {
        let line = match self {
            Input::Event(e) => serde_json::json!({ "event": e }),
            Input::Timeout(t) => serde_json::json!({ "timeout": { "t_ms": t } }),
            Input::Analysis(id, a) => serde_json::json!({ "analysis": { "id": id, "answer": a } }),
            Input::Snapshot => serde_json::json!({ "snapshot": null }),
        };
        println!("{line}");
    }
}

/// The game as the events describe it, checked event by event.
#[derive(Default)]
struct Described {
    start: Option<Position>,
    /// Position after each recorded ply.
    after: BTreeMap<u32, Position>,
    last_ply: Option<u32>,
    over: bool,
}

impl Described {
    fn check(&mut self, e: &ArbiterEvent, now: u64, board: &str) {
        let json = e.to_json();
        let back: ArbiterEvent = serde_json::from_str(&json).expect("an event reads back");
        assert_eq!(&back, e, "the JSON of an event reads back the same");
        assert_eq!(e.board, board);
        // An answer to an analysis carries the time of the question: not monotonic, but
        // never in the future.
        assert!(
            e.t_ms <= now,
            "an event from the future (now {now}): {json}"
        );
        match &e.kind {
            EventKind::NewGame { fen } => {
                self.start = Some(Position::from_fen(fen).expect("new_game FEN parses"));
                self.after.clear();
                self.last_ply = None;
                self.over = false;
            }
            EventKind::IllegalMoveStands(s) => {
                let p = Position::from_fen(&s.fen).expect("illegal_move_stands FEN parses");
                self.start = Some(p);
                self.after.clear();
                self.last_ply = None;
            }
            // The game goes on from a position adopted after a gap (issue 36).
            EventKind::PositionAccepted(a) => {
                let p = Position::from_fen(&a.fen).expect("position_accepted FEN parses");
                self.start = Some(p);
                self.after.clear();
                self.last_ply = None;
            }
            EventKind::GameOver(_) => self.over = true,
            EventKind::Move(m) => {
                assert!(!self.over, "a move after the game ended: {json}");
                let start = self.start.unwrap_or_default();
                let first = start.plies() + 1;
                match (self.last_ply, m.replaces) {
                    (None, None) => assert_eq!(m.ply, first, "first ply: {json}"),
                    (Some(last), None) => assert_eq!(m.ply, last + 1, "plies go up: {json}"),
                    (Some(last), Some(_)) => assert_eq!(m.ply, last, "replaces the last: {json}"),
                    (None, Some(_)) => panic!("replaces a move never recorded: {json}"),
                }
                let before = if m.ply == first {
                    start
                } else {
                    *self
                        .after
                        .get(&(m.ply - 1))
                        .expect("the ply before is known")
                };
                let after = before
                    .play(m.uci)
                    .unwrap_or_else(|x| panic!("move event not legal ({x}): {json}"));
                assert_eq!(after.fen(), m.fen, "the move's FEN: {json}");
                self.after.retain(|p, _| *p < m.ply);
                self.after.insert(m.ply, after);
                self.last_ply = Some(m.ply);
            }
            _ => {}
        }
    }
}

fn side(b: &mut Bytes) -> SideTime {
    let bits = b.u8();
    SideTime {
        time: Hms::from_secs(u32::from(b.u16()) % 36_000).unwrap_or_default(),
        flag_fallen: bits & 1 != 0,
        time_per_move: bits & 2 != 0,
        flag_shown: bits & 4 != 0,
    }
}

fn ev(t_ms: u64, event: BoardEvent) -> Input {
    Input::Event(TimedEvent { t_ms, event })
}

fn piece_code(b: u8) -> PieceCode {
    PieceCode::from_byte(b % 16).unwrap_or(PieceCode::Empty)
}

fuzz_target!(|data: &[u8]| {
    let dump = std::env::var_os("TRACKER_FUZZ_DUMP").is_some();
    let mut b = Bytes(data);
    let flags = b.u8();
    let mut cfg = TrackerConfig::new("fz");
    cfg.supervision = if flags & 1 != 0 {
        Supervision::Partial
    } else {
        Supervision::Full
    };
    cfg.orientation = match (flags >> 1) & 3 {
        1 => Some(Orientation::Normal),
        2 => Some(Orientation::Rotated),
        _ => None,
    };
    cfg.white_clock = match (flags >> 3) & 3 {
        1 => Some(ClockSide::Left),
        2 => Some(ClockSide::Right),
        _ => None,
    };
    cfg.penalise_two_handed = flags & 0x20 != 0;
    cfg.remove_offender_increment = flags & 0x40 != 0;
    if flags & 0x80 != 0 {
        cfg.time_control = Some(dgt_protocol::capture::TimeControl {
            base_secs: 180,
            increment_secs: 2,
        });
    }
    let board_turned = b.bool();
    let lay = if board_turned {
        Orientation::Rotated
    } else {
        Orientation::Normal
    };
    let mut tracker = Tracker::new(cfg);

    // The hands' world: what stands on the board, the legal position they play from,
    // the clock.
    let mut pos = Position::start();
    let mut raw = RawBoard::from_placement(pos.placement(), lay);
    let secs = |s: u32| SideTime {
        time: Hms::from_secs(s).unwrap_or_default(),
        ..SideTime::default()
    };
    let mut clock = ClockTime {
        left: secs(180),
        right: secs(180),
        running: false,
        lever: ClockSide::Right,
        ..ClockTime::default()
    };
    let mut t = 0u64;
    let mut inputs: Vec<Input> = vec![
        Input::Event(TimedEvent {
            t_ms: 0,
            event: BoardEvent::Connected {
                serial: None,
                version: None,
                clock_version: None,
            },
        }),
        Input::Event(TimedEvent {
            t_ms: 0,
            event: BoardEvent::Dump { board: raw },
        }),
    ];
    let mut asked: Vec<u64> = Vec::new();
    let mut described = Described::default();
    let mut out = Vec::new();
    let mut ops = 0;

    // Feeds the queued inputs.
    let mut run = |tracker: &mut Tracker,
                   inputs: &mut Vec<Input>,
                   asked: &mut Vec<u64>,
                   described: &mut Described,
                   now: u64| {
        for input in inputs.drain(..) {
            if dump {
                input.dump();
            }
            out.clear();
            match &input {
                Input::Event(e) => tracker.handle(e, &mut out),
                Input::Timeout(at) => tracker.handle_timeout(*at, &mut out),
                Input::Analysis(id, a) => tracker.analysis_done(*id, *a, &mut out),
                Input::Snapshot => {
                    let s = tracker.snapshot();
                    let _ = serde_json::to_string(&s).expect("a snapshot serialises");
                    assert_eq!(s.ply, tracker.position().plies());
                    assert_eq!(s.fen, tracker.position().fen());
                    let start = described.start.unwrap_or_default();
                    let (ply, fen) = match described.last_ply {
                        Some(last) => (last, described.after[&last].fen()),
                        None => (start.plies(), start.fen()),
                    };
                    assert_eq!((s.ply, &s.fen), (ply, &fen), "the snapshot and the events");
                }
            }
            while let Some(req) = tracker.poll_analysis() {
                asked.push(req.id);
            }
            for e in &out {
                described.check(e, now, "fz");
            }
        }
    };
    run(&mut tracker, &mut inputs, &mut asked, &mut described, t);

    while !b.is_empty() && ops < 2_000 {
        ops += 1;
        let op = b.u8();
        t += u64::from(b.u8());
        match op % 20 {
            // A legal move by hand, the emptied squares first or last.
            0..=5 => {
                let n = usize::from(b.u8());
                let moves: Vec<_> = pos.legal_moves().collect();
                if moves.is_empty() {
                    continue;
                }
                let m = moves[n % moves.len()];
                let Ok(next) = pos.play(m) else { continue };
                let mut diff: Vec<_> = pos.placement().diff(next.placement()).collect();
                let empty_last = b.bool();
                diff.sort_by_key(|d| d.after.is_some() == empty_last);
                for d in diff {
                    t += u64::from(b.u8());
                    let field = FieldIndex::from_square(d.square, lay);
                    let piece = PieceCode::from(d.after);
                    raw.set(field, piece);
                    inputs.push(Input::Event(TimedEvent {
                        t_ms: t,
                        event: BoardEvent::Field(FieldUpdate { field, piece }),
                    }));
                }
                pos = next;
            }
            // The player whose time runs presses.
            6..=7 => {
                let spent = u32::from(b.u8() % 30);
                let s = clock.lever;
                let now = match s {
                    ClockSide::Left => &mut clock.left,
                    ClockSide::Right => &mut clock.right,
                };
                now.time =
                    Hms::from_secs(now.time.secs().saturating_sub(spent)).unwrap_or_default();
                if clock.running || b.bool() {
                    clock.lever = s.other();
                }
                clock.running = true;
                inputs.push(ev(t, BoardEvent::Clock(clock)));
            }
            // Any field, any code (magic pieces included).
            8 => {
                let field = FieldIndex::new(b.u8() % 64).unwrap_or(FieldIndex::new(0).unwrap());
                let piece = piece_code(b.u8());
                raw.set(field, piece);
                inputs.push(ev(t, BoardEvent::Field(FieldUpdate { field, piece })));
            }
            // Any clock frame.
            9 => {
                let bits = b.u8();
                let frame = ClockTime {
                    left: side(&mut b),
                    right: side(&mut b),
                    running: bits & 1 != 0,
                    lever: if bits & 2 != 0 {
                        ClockSide::Right
                    } else {
                        ClockSide::Left
                    },
                    battery_low: bits & 4 != 0,
                    left_turn_bit: bits & 8 != 0,
                    right_turn_bit: bits & 16 != 0,
                    no_clock: bits & 32 != 0,
                };
                if bits & 64 != 0 {
                    clock = frame;
                }
                inputs.push(ev(t, BoardEvent::Clock(frame)));
            }
            // A dump of what stands there.
            10 => inputs.push(ev(t, BoardEvent::Dump { board: raw })),
            // A new game set up (or the board turned round).
            11 => {
                pos = Position::start();
                let turned = b.bool();
                raw = RawBoard::from_placement(
                    pos.placement(),
                    if turned { lay.flipped() } else { lay },
                );
                inputs.push(ev(t, BoardEvent::Dump { board: raw }));
            }
            // The line drops (and maybe comes back with a dump).
            12 => {
                inputs.push(ev(
                    t,
                    BoardEvent::Disconnected {
                        reason: "fuzz".into(),
                    },
                ));
                if b.bool() {
                    inputs.push(ev(
                        t,
                        BoardEvent::Connected {
                            serial: Some("01025".into()),
                            version: None,
                            clock_version: None,
                        },
                    ));
                    inputs.push(ev(t, BoardEvent::Dump { board: raw }));
                }
            }
            13 => inputs.push(ev(
                t,
                if b.bool() {
                    BoardEvent::ClockDisconnected
                } else {
                    BoardEvent::ClockConnected
                },
            )),
            14 => {
                let k = b.u8();
                let e = match k % 3 {
                    0 => BoardEvent::ClockAck(ClockAck {
                        ack0: b.u8(),
                        ack1: b.u8(),
                        ack2: b.u8(),
                        ack3: b.u8(),
                    }),
                    1 => BoardEvent::ClockButton(ButtonPress {
                        button: ClockButton::ALL.get(usize::from(b.u8() % 6)).copied(),
                        held: HeldButtons(b.u8()),
                    }),
                    _ => BoardEvent::Battery(BatteryStatus {
                        percent: b.u8(),
                        time_left: None,
                        on_time: HoursMinutes {
                            hours: b.u8(),
                            minutes: b.u8(),
                        },
                        standby_days: b.u8(),
                        standby: HoursMinutes {
                            hours: 0,
                            minutes: 0,
                        },
                        charging: b.bool(),
                        discharging: b.bool(),
                    }),
                };
                inputs.push(ev(t, e));
            }
            // Time passes; the timer fires when it is due (or early, or late).
            15 => {
                t += u64::from(b.u16());
                match b.u8() % 3 {
                    0 => {
                        if let Some(d) = tracker.poll_timeout() {
                            t = t.max(d);
                            inputs.push(Input::Timeout(d));
                        }
                    }
                    1 => inputs.push(Input::Timeout(t)),
                    _ => {
                        while let Some(d) = tracker.poll_timeout().filter(|d| *d <= t) {
                            inputs.push(Input::Timeout(d));
                            run(&mut tracker, &mut inputs, &mut asked, &mut described, t);
                        }
                    }
                }
            }
            // An analysis answered, in any order, or an unknown id.
            16..=17 => {
                let answer = match b.u8() % 3 {
                    0 => CanMate::Yes,
                    1 => CanMate::No,
                    _ => CanMate::Undetermined,
                };
                let pick = usize::from(b.u8());
                let id = if asked.is_empty() || pick == 255 {
                    u64::from(b.u8())
                } else {
                    asked.remove(pick % asked.len())
                };
                inputs.push(Input::Analysis(id, answer));
            }
            // A lift and the same piece put back (adjusting).
            18 => {
                let field = FieldIndex::new(b.u8() % 64).unwrap_or(FieldIndex::new(0).unwrap());
                let piece = raw.get(field);
                inputs.push(ev(
                    t,
                    BoardEvent::Field(FieldUpdate {
                        field,
                        piece: PieceCode::Empty,
                    }),
                ));
                t += u64::from(b.u8());
                inputs.push(Input::Event(TimedEvent {
                    t_ms: t,
                    event: BoardEvent::Field(FieldUpdate { field, piece }),
                }));
            }
            _ => inputs.push(Input::Snapshot),
        }
        run(&mut tracker, &mut inputs, &mut asked, &mut described, t);
    }
    // Answer what is still asked, then the input ends.
    for id in std::mem::take(&mut asked) {
        inputs.push(Input::Analysis(id, CanMate::Undetermined));
    }
    inputs.push(Input::Snapshot);
    run(&mut tracker, &mut inputs, &mut asked, &mut described, t);
    out.clear();
    // The end of the input rules on what waits, at the deadlines it waits for.
    tracker.finish(t, &mut out);
    for e in &out {
        described.check(e, u64::MAX, "fz");
    }
});
