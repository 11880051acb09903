//! Helpers shared by the driver's integration tests: emulated boards on real ptys (from
//! `dgt-sim`), short link timings, and waiting for events with real but short timeouts.
#![allow(dead_code)] // Each test file uses a different part.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chess_rules::{Color, Piece, Role, Square};
use dgt_protocol::capture::{CaptureReader, Direction};
use dgt_protocol::{
    BoardEvent, BoardMessage, Decoder, FieldIndex, FieldUpdate, Orientation, PieceCode, TimedEvent,
};
use dgt_serial::{BoardHandle, BoardSpec, DriverOptions, LinkConfig, PortSpec};
use dgt_sim::{serve_pty, Action, Emulator, EmulatorConfig, ServeOptions, ServedBoard};
use tokio::sync::mpsc;

#[path = "../../src/test_support.rs"]
mod support;
#[allow(unused_imports)] // Not every test file uses both.
pub use support::{board_from_events, kind};

/// Link timings for tests: tens to hundreds of milliseconds.
pub fn fast_link() -> LinkConfig {
    LinkConfig {
        settle_ms: 20,
        ident_retry_ms: 150,
        ident_timeout_ms: 500,
        probe_interval_ms: 100,
        probe_timeout_ms: 300,
        ack_timeout_ms: 250,
        backoff_initial_ms: 20,
        backoff_max_ms: 150,
        ..LinkConfig::default()
    }
}

pub fn spec(name: &str, path: &Path) -> BoardSpec {
    BoardSpec {
        name: name.into(),
        port: PortSpec::Path(path.to_owned()),
        options: DriverOptions {
            link: fast_link(),
            ..DriverOptions::default()
        },
    }
}

/// A fresh directory under the system's temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dgt-serial-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

pub fn white(role: Role) -> Piece {
    Piece::new(Color::White, role)
}

/// A board's events as they arrive, all kept for later checks.
pub struct Events {
    pub rx: mpsc::Receiver<TimedEvent>,
    pub seen: Vec<TimedEvent>,
}

impl Events {
    pub fn new(handle: &mut BoardHandle) -> Events {
        // Swap the receiver out so the handle keeps its control.
        let (_, empty) = mpsc::channel(1);
        Events {
            rx: std::mem::replace(&mut handle.events, empty),
            seen: Vec::new(),
        }
    }

    /// Waits for the first event (after those seen) that `pred` accepts.
    pub async fn until(
        &mut self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&BoardEvent) -> bool,
    ) -> TimedEvent {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(ev)) => {
                    self.seen.push(ev.clone());
                    if pred(&ev.event) {
                        return ev;
                    }
                }
                Ok(None) => panic!("the driver stopped while waiting for {what}"),
                Err(_) => panic!(
                    "no {what} within {timeout:?}; saw {:?}",
                    self.seen.iter().map(|e| kind(&e.event)).collect::<Vec<_>>()
                ),
            }
        }
    }

    pub async fn kind(&mut self, k: &str, timeout: Duration) -> TimedEvent {
        self.until(k, timeout, |e| kind(e) == k).await
    }

    /// Takes what arrives within `quiet` of the last event.
    pub async fn drain(&mut self, quiet: Duration) -> Vec<TimedEvent> {
        let mut got = Vec::new();
        while let Ok(Some(ev)) = tokio::time::timeout(quiet, self.rx.recv()).await {
            self.seen.push(ev.clone());
            got.push(ev);
        }
        got
    }

    pub fn kinds(&self) -> Vec<&'static str> {
        self.seen.iter().map(|e| kind(&e.event)).collect()
    }
}

/// A long, varied stream of field changes: pieces put on the empty middle of the board
/// (ranks 3-6), then taken off again, round after round. Each action changes one field,
/// so each gives exactly one field update.
pub fn busy_actions(n: usize) -> Vec<(Action, FieldUpdate)> {
    let roles = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    (0..n)
        .map(|k| {
            let square = Square::from_index(16 + (k % 32) as u8).unwrap();
            let field = FieldIndex::from_square(square, Orientation::Normal);
            if (k / 32) % 2 == 0 {
                let color = if k % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let piece = Piece::new(color, roles[k % roles.len()]);
                (
                    Action::Place(square, piece),
                    FieldUpdate {
                        field,
                        piece: PieceCode::Piece(piece),
                    },
                )
            } else {
                (
                    Action::Lift(square),
                    FieldUpdate {
                        field,
                        piece: PieceCode::Empty,
                    },
                )
            }
        })
        .collect()
}

/// The field updates and dumps in a capture's board-to-host bytes, in order.
pub fn capture_board_events(path: &Path) -> Vec<BoardEvent> {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    for rec in CaptureReader::new(file).unwrap() {
        let rec = rec.unwrap();
        if rec.direction != Direction::ToHost {
            continue;
        }
        for msg in decoder.push(&rec.bytes).into_iter().flatten() {
            match msg {
                BoardMessage::FieldUpdate(u) => out.push(BoardEvent::Field(u)),
                BoardMessage::BoardDump { board } => out.push(BoardEvent::Dump { board }),
                _ => {}
            }
        }
    }
    out
}

/// Field updates and dumps among the events.
pub fn board_events(events: &[TimedEvent]) -> Vec<BoardEvent> {
    events
        .iter()
        .filter(|e| matches!(e.event, BoardEvent::Field(_) | BoardEvent::Dump { .. }))
        .map(|e| e.event.clone())
        .collect()
}

/// True when `sub` appears in `seq` in order (not necessarily contiguously).
pub fn is_subsequence<T: PartialEq>(sub: &[T], seq: &[T]) -> bool {
    let mut it = seq.iter();
    sub.iter().all(|x| it.any(|y| y == x))
}

pub const SHORT: Duration = Duration::from_secs(5);

/// One emulated board on a pty, reachable through a stable link in a fresh directory.
pub fn serve(name: &str, cfg: EmulatorConfig, opts: ServeOptions) -> (ServedBoard, PathBuf) {
    let link = temp_dir(name).join("board");
    let served = serve_pty(
        Emulator::new(cfg),
        ServeOptions {
            link: Some(link.clone()),
            ..opts
        },
    )
    .unwrap();
    (served, link)
}

/// Waits (polling every 10 ms, at most `SHORT`) until `cond` holds; returns whether it did.
pub async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let t0 = std::time::Instant::now();
    while !cond() {
        if t0.elapsed() > SHORT {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    true
}
