//! A board whose events come from elsewhere than a serial line (the daemon's
//! `livechess://` source follows an e-board of a running LiveChess): [`external_board`]
//! gives the consumer the same [`BoardHandle`] as [`crate::spawn_board`] and the source
//! the other ends ([`ExternalDriver`]): it sends the events, publishes the status and
//! how far its input has been read, and answers the control's requests.

use dgt_protocol::{ClockCommand, TimedEvent};
use tokio::sync::{mpsc, oneshot, watch};

use crate::driver::{BoardControl, BoardHandle, BoardStatus, Request};
use crate::link::ClockOutcome;

/// What the board's control asks of an external source.
#[derive(Debug)]
pub enum ExternalRequest {
    /// A clock command; answer with its outcome (`ClockError::NoClock` when the source
    /// has no clock to command).
    Clock {
        command: ClockCommand,
        reply: oneshot::Sender<ClockOutcome>,
    },
    /// Send the board's full state again (as a `Dump` event).
    Dump,
    /// Publish how far the input has been read now.
    Probe,
    /// Stop: offer a last `Disconnected`, then answer.
    Shutdown(oneshot::Sender<()>),
}

/// The source's ends of an external board.
#[derive(Debug)]
pub struct ExternalDriver {
    /// The board's events, in order (bounded: the source waits for room, its input is
    /// a socket that keeps the rest).
    pub events: mpsc::Sender<TimedEvent>,
    /// The board's status, as [`BoardControl::status`] shows it.
    pub status: watch::Sender<BoardStatus>,
    /// [`BoardHandle::line_read_until`]: up to which `t_ms` every event has been sent.
    pub read_until: watch::Sender<u64>,
    requests: mpsc::Receiver<Request>,
}

impl ExternalDriver {
    /// The next request of the control; `None` once every control is gone.
    pub async fn request(&mut self) -> Option<ExternalRequest> {
        Some(match self.requests.recv().await? {
            Request::Clock { command, reply } => ExternalRequest::Clock { command, reply },
            Request::Dump => ExternalRequest::Dump,
            Request::Probe => ExternalRequest::Probe,
            Request::Shutdown(done) => ExternalRequest::Shutdown(done),
        })
    }
}

/// A board named `name` fed by an external source; `event_capacity` events are buffered
/// for the consumer.
pub fn external_board(name: &str, event_capacity: usize) -> (BoardHandle, ExternalDriver) {
    let (events_tx, events) = mpsc::channel(event_capacity.max(1));
    let (requests_tx, requests) = mpsc::channel(32);
    let (status_tx, status_rx) = watch::channel(BoardStatus {
        name: name.to_owned(),
        ..BoardStatus::default()
    });
    let (read_until_tx, line_read_until) = watch::channel(0);
    (
        BoardHandle {
            events,
            control: BoardControl {
                requests: requests_tx,
                status: status_rx,
            },
            line_read_until,
        },
        ExternalDriver {
            events: events_tx,
            status: status_tx,
            read_until: read_until_tx,
            requests,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::ClockError;
    use dgt_protocol::BoardEvent;

    #[tokio::test]
    async fn the_control_reaches_the_source_and_the_events_the_consumer() {
        let (mut handle, mut driver) = external_board("3", 4);
        let source = tokio::spawn(async move {
            while let Some(r) = driver.request().await {
                match r {
                    ExternalRequest::Clock { reply, .. } => {
                        let _ = reply.send(Err(ClockError::NoClock));
                    }
                    ExternalRequest::Dump => {
                        let _ = driver
                            .events
                            .send(TimedEvent {
                                t_ms: 5,
                                event: BoardEvent::Dump {
                                    board: Default::default(),
                                },
                            })
                            .await;
                    }
                    ExternalRequest::Probe => {
                        let _ = driver.read_until.send(5);
                    }
                    ExternalRequest::Shutdown(done) => {
                        driver.status.send_modify(|s| s.stopped = true);
                        let _ = done.send(());
                        return;
                    }
                }
            }
        });
        assert_eq!(handle.control.status().name, "3");
        assert_eq!(
            handle.control.clock(ClockCommand::End).await,
            Err(ClockError::NoClock)
        );
        handle.control.request_dump().await.unwrap();
        let ev = handle.events.recv().await.unwrap();
        assert!(matches!(ev.event, BoardEvent::Dump { .. }));
        handle.control.probe_line();
        handle.line_read_until.changed().await.unwrap();
        assert_eq!(*handle.line_read_until.borrow(), 5);
        handle.control.shutdown().await;
        assert!(handle.control.status().stopped);
        source.await.unwrap();
    }
}
