//! Test helpers shared by the unit tests (`link::tests`) and the integration tests
//! (`tests/common`, which includes this file by path).

use dgt_protocol::{BoardEvent, RawBoard, TimedEvent};

/// The short name of an event's kind.
pub fn kind(e: &BoardEvent) -> &'static str {
    match e {
        BoardEvent::Connected { .. } => "connected",
        BoardEvent::Dump { .. } => "dump",
        BoardEvent::Field(_) => "field",
        BoardEvent::Clock(_) => "clock",
        BoardEvent::ClockAck(_) => "ack",
        BoardEvent::ClockButton(_) => "button",
        BoardEvent::ClockConnected => "clock_connected",
        BoardEvent::ClockDisconnected => "clock_disconnected",
        BoardEvent::Battery(_) => "battery",
        BoardEvent::Disconnected { .. } => "disconnected",
    }
}

/// The board the events describe: the last dump with the field updates after it
/// (`None` after a disconnect until the next dump).
pub fn board_from_events(events: &[TimedEvent]) -> Option<RawBoard> {
    let mut board = None;
    for e in events {
        match &e.event {
            BoardEvent::Dump { board: b } => board = Some(*b),
            BoardEvent::Field(u) => {
                if let Some(b) = &mut board {
                    b.apply(*u);
                }
            }
            BoardEvent::Disconnected { .. } => board = None,
            _ => {}
        }
    }
    board
}
