//! The log as a consumer of the hub's live stream: [`follow`] logs every live decision
//! with `board` and `ply` fields: moves at `info`, rulings and alerts at `warn`, board
//! status at `info`. Where the log goes and in which format is the binary's choice
//! (`tracing`'s subscriber, installed by the command line).

use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use touch_tracker::events::BoardStatusEvent;
use touch_tracker::{BoardStatus, EventKind};

use messages::{Args, Language, Messages};

use arbiter_hub::Hub;
use game_record::words;

/// Logs the hub's live events until the stream closes (replayed ones are summed up by
/// the board task instead); rulings in `language`.
pub async fn follow(hub: Arc<Hub>, language: Language) {
    let say = Messages::new(language);
    let mut rx = hub.subscribe();
    loop {
        let e = match rx.recv().await {
            Ok(e) => e,
            Err(RecvError::Lagged(n)) => {
                tracing::warn!("the log fell behind: {n} events not logged");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        if e.replayed {
            continue;
        }
        let board = e.board;
        match &e.event.kind {
            EventKind::Move(m) => {
                let clock = m
                    .clock_ms
                    .map(|c| format!(" (clock {})", words::clock(c.get(m.color))))
                    .unwrap_or_default();
                tracing::info!(
                    board,
                    ply = m.ply,
                    "{}{} {}{clock}",
                    words::move_number(m.ply),
                    if m.ply % 2 == 1 { "." } else { "..." },
                    m.san
                );
            }
            EventKind::BoardStatus(s) => {
                tracing::info!(board, "{}", status_line(say, s));
            }
            _ => {
                if let Some(line) = words::ruling_in(say, &e.event) {
                    let ply = ply_of(&e.event.kind);
                    tracing::warn!(board, ply, kind = e.event.kind_name(), "{line}");
                }
            }
        }
    }
}

/// A board's status for the log: in English as it always was (`board status: OutOfSync
/// (...)`), in another language the status in its words. The detail is the tracker's or
/// the driver's own (a JSON field, English: formats.md) and is kept as it is.
fn status_line(say: Messages, s: &BoardStatusEvent) -> String {
    let detail = s
        .detail
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    if say.language() == Language::En {
        return format!("board status: {:?}{detail}", s.status);
    }
    let status = match s.status {
        BoardStatus::Connected => "connected",
        BoardStatus::Disconnected => "disconnected",
        BoardStatus::ClockConnected => "clock-connected",
        BoardStatus::ClockDisconnected => "clock-disconnected",
        BoardStatus::Orientation => "orientation",
        BoardStatus::WhiteClock => "white-clock",
        BoardStatus::OutOfSync => "out-of-sync",
        BoardStatus::InSync => "in-sync",
    };
    let line = say.format("board-status", &Args::new().str("status", status));
    format!("{line}{detail}")
}

/// The ply an event concerns, where it names one.
pub fn ply_of(kind: &EventKind) -> Option<u32> {
    match kind {
        EventKind::Move(m) => Some(m.ply),
        EventKind::IllegalMove(i) => Some(i.ply),
        EventKind::TouchMove(t) => Some(t.ply),
        EventKind::TwoHandedSuspected(t) => Some(t.ply),
        EventKind::RecoveryUncertain(r) => Some(r.ply),
        EventKind::Displaced(d) => Some(d.ply),
        EventKind::RulingUnclear(u) => Some(u.ply),
        EventKind::ArbiterDecision(d) => d.ply,
        EventKind::DrawClaimable(d) => Some(d.ply),
        EventKind::GameOver(g) => Some(g.plies),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_status_line_is_said_in_the_log_s_language() {
        let s = BoardStatusEvent {
            status: BoardStatus::OutOfSync,
            detail: Some("last known position: ply 12".into()),
            candidates: Vec::new(),
        };
        assert_eq!(
            status_line(Messages::english(), &s),
            "board status: OutOfSync (last known position: ply 12)"
        );
        let ru = status_line(Messages::strict(Language::Ru), &s);
        assert_eq!(
            ru,
            "состояние доски: не совпадает с записью (last known position: ply 12)"
        );
        let back = BoardStatusEvent {
            status: BoardStatus::Connected,
            detail: None,
            candidates: Vec::new(),
        };
        assert_eq!(
            status_line(Messages::strict(Language::Ru), &back),
            "состояние доски: подключена"
        );
    }
}
