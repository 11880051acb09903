//! Property tests: random event sequences (legal moves made by hand, mixed with random
//! field changes, clock frames, dumps, disconnects and time passing) never make the
//! tracker panic, every event serialises, and every `move` event is a legal move from the
//! position before it (as the events themselves describe the game).

use std::collections::BTreeMap;

use chess_rules::Position;
use dgt_protocol::{
    BoardEvent, ClockSide, ClockTime, FieldIndex, FieldUpdate, Hms, Orientation, PieceCode,
    RawBoard, SideTime, TimedEvent,
};
use proptest::prelude::*;
use touch_tracker::{ArbiterEvent, EventKind, Supervision, SyncTracker, TrackerConfig};

#[derive(Debug, Clone)]
enum Op {
    /// Make the `n`-th legal move of the position the hands believe in, by hand.
    Move(usize),
    /// A random square change.
    Noise(u8, u8),
    /// The side whose time runs presses (the lever flips).
    Press,
    /// A random clock frame.
    Clock {
        left: u32,
        right: u32,
        running: bool,
        right_lever: bool,
        flag: bool,
    },
    /// A dump of what stands on the board.
    Dump,
    /// A dump of the start position (a new game set up).
    DumpStart,
    Disconnect,
    Wait(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0usize..64).prop_map(Op::Move),
        3 => (0u8..64, 0u8..16).prop_map(|(f, c)| Op::Noise(f, c)),
        4 => Just(Op::Press),
        1 => (0u32..400, 0u32..400, any::<bool>(), any::<bool>(), prop::bool::weighted(0.05))
            .prop_map(|(left, right, running, right_lever, flag)| Op::Clock {
                left,
                right,
                running,
                right_lever,
                flag,
            }),
        1 => Just(Op::Dump),
        1 => Just(Op::DumpStart),
        1 => Just(Op::Disconnect),
        2 => (0u64..2000).prop_map(Op::Wait),
    ]
}

/// The position before each ply, as the events describe the game.
#[derive(Default)]
struct Record {
    start: Option<Position>,
    after: BTreeMap<u32, Position>,
}

impl Record {
    fn check(&mut self, e: &ArbiterEvent) -> Result<(), String> {
        let _ = e.to_json();
        match &e.kind {
            EventKind::NewGame { fen }
            | EventKind::IllegalMoveStands(touch_tracker::events::IllegalMoveStandsEvent {
                fen,
                ..
            }) => {
                self.start = Some(Position::from_fen(fen).map_err(|x| x.to_string())?);
                self.after.clear();
            }
            // The game goes on from a position the arbiter or the tracker adopted after a
            // gap (issue 36): its plies follow that position's.
            EventKind::PositionAccepted(a) => {
                self.start = Some(Position::from_fen(&a.fen).map_err(|x| x.to_string())?);
                self.after.clear();
            }
            EventKind::Move(m) => {
                let start = self.start.unwrap_or_default();
                let first = start.plies() + 1;
                let before = if m.ply == first {
                    start
                } else {
                    *self
                        .after
                        .get(&(m.ply - 1))
                        .ok_or_else(|| format!("ply {} without ply {}", m.ply, m.ply - 1))?
                };
                let after = before
                    .play(m.uci)
                    .map_err(|x| format!("move event not legal: {x}"))?;
                if after.fen() != m.fen {
                    return Err(format!(
                        "fen {} after {} is not {}",
                        m.fen,
                        m.uci,
                        after.fen()
                    ));
                }
                self.after.retain(|p, _| *p < m.ply);
                self.after.insert(m.ply, after);
            }
            _ => {}
        }
        Ok(())
    }
}

/// Plays the ops; returns the moves made by hand and the events.
fn run(
    ops: &[Op],
    supervision: Supervision,
    orientation: Orientation,
) -> Result<(Vec<String>, Vec<ArbiterEvent>), String> {
    let mut played = Vec::new();
    let mut cfg = TrackerConfig::new("prop");
    cfg.supervision = supervision;
    let mut tracker = SyncTracker::new(cfg);
    let mut out = Vec::new();
    let mut t = 0u64;
    let mut raw = RawBoard::from_placement(&chess_rules::Placement::start(), orientation);
    let mut pos = Position::start();
    let side = |s| SideTime {
        time: Hms::from_secs(s).unwrap(),
        ..SideTime::default()
    };
    let mut clock = ClockTime {
        left: side(300),
        right: side(300),
        running: true,
        lever: ClockSide::Left,
        ..ClockTime::default()
    };
    fn feed(tracker: &mut SyncTracker, t: u64, event: BoardEvent, out: &mut Vec<ArbiterEvent>) {
        tracker.handle(&TimedEvent { t_ms: t, event }, out);
    }
    feed(&mut tracker, t, BoardEvent::Dump { board: raw }, &mut out);
    feed(&mut tracker, t, BoardEvent::Clock(clock), &mut out);
    for op in ops {
        t += 50;
        match op {
            Op::Move(n) => {
                let moves: Vec<_> = pos.legal_moves().collect();
                if moves.is_empty() {
                    continue;
                }
                let m = moves[n % moves.len()];
                let Ok(next) = pos.play(m) else { continue };
                // Set the squares that change, the ones emptied first.
                let mut diff: Vec<_> = pos.placement().diff(next.placement()).collect();
                diff.sort_by_key(|d| d.after.is_some());
                for d in diff {
                    t += 120;
                    let field = FieldIndex::from_square(d.square, orientation);
                    let piece = PieceCode::from(d.after);
                    raw.set(field, piece);
                    feed(
                        &mut tracker,
                        t,
                        BoardEvent::Field(FieldUpdate { field, piece }),
                        &mut out,
                    );
                }
                pos = next;
                played.push(m.uci());
            }
            Op::Noise(f, c) => {
                let field = FieldIndex::new(*f).unwrap();
                let piece = PieceCode::from_byte(*c).unwrap();
                raw.set(field, piece);
                feed(
                    &mut tracker,
                    t,
                    BoardEvent::Field(FieldUpdate { field, piece }),
                    &mut out,
                );
            }
            Op::Press => {
                clock.lever = clock.lever.other();
                feed(&mut tracker, t, BoardEvent::Clock(clock), &mut out);
            }
            Op::Clock {
                left,
                right,
                running,
                right_lever,
                flag,
            } => {
                clock.left = side(*left);
                clock.right = side(*right);
                clock.running = *running;
                clock.lever = if *right_lever {
                    ClockSide::Right
                } else {
                    ClockSide::Left
                };
                clock.right.flag_fallen = *flag;
                feed(&mut tracker, t, BoardEvent::Clock(clock), &mut out);
            }
            Op::Dump => feed(&mut tracker, t, BoardEvent::Dump { board: raw }, &mut out),
            Op::DumpStart => {
                raw = RawBoard::from_placement(&chess_rules::Placement::start(), orientation);
                pos = Position::start();
                feed(&mut tracker, t, BoardEvent::Dump { board: raw }, &mut out);
            }
            Op::Disconnect => {
                feed(
                    &mut tracker,
                    t,
                    BoardEvent::Disconnected {
                        reason: "prop".into(),
                    },
                    &mut out,
                );
                feed(
                    &mut tracker,
                    t,
                    BoardEvent::Connected {
                        serial: None,
                        version: None,
                        clock_version: None,
                    },
                    &mut out,
                );
            }
            Op::Wait(ms) => {
                t += ms;
                tracker.handle_timeout(t, &mut out);
            }
        }
    }
    tracker.finish(t, &mut out);
    let mut record = Record::default();
    for e in &out {
        record
            .check(e)
            .map_err(|x| format!("{x}\n at {}", e.to_json()))?;
    }
    Ok((played, out))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_sequences_never_panic_and_moves_are_legal(
        ops in prop::collection::vec(op(), 0..250),
        partial in any::<bool>(),
        rotated in any::<bool>(),
    ) {
        let supervision = if partial { Supervision::Partial } else { Supervision::Full };
        let orientation = if rotated { Orientation::Rotated } else { Orientation::Normal };
        if let Err(e) = run(&ops, supervision, orientation) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn mostly_legal_play_stays_legal(
        moves in prop::collection::vec(0usize..64, 0..120),
    ) {
        let ops: Vec<Op> = moves.iter().flat_map(|&n| [Op::Move(n), Op::Press]).collect();
        match run(&ops, Supervision::Full, Orientation::Normal) {
            Err(e) => prop_assert!(false, "{}", e),
            Ok((played, events)) => {
                // Every move made and pressed is recorded, in order, until the game ends.
                let recorded: Vec<String> = events
                    .iter()
                    .filter_map(|e| match &e.kind {
                        EventKind::Move(m) => Some(m.uci.uci()),
                        _ => None,
                    })
                    .collect();
                let over = events.iter().any(|e| e.kind_name() == "game_over");
                prop_assert!(played.starts_with(&recorded), "{:?} vs {:?}", played, recorded);
                if !over {
                    prop_assert_eq!(recorded, played);
                }
            }
        }
    }
}
