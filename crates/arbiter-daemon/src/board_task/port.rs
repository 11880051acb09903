//! The board's serial port: which board's game its events feed (a board moved to another
//! port, two boards swapped), and the clock commands following the game.

use super::*;

impl BoardTask {
    /// An event of this board's port: to the game of the board that answers there now
    /// ([`arbiter_hub::serials`]).
    pub(crate) async fn on_port_event(
        &mut self,
        ev: TimedEvent,
        control: &dgt_serial::BoardControl,
        epoch: Instant,
    ) {
        if !self.routes.read(|s| s.drives(self.number)) {
            // A LiveChess feed names its board itself: its events are always this board's.
            return self.on_event(ev).await;
        }
        match &ev.event {
            BoardEvent::Connected { serial, .. } => {
                let serial = serial.clone();
                self.port.connected = Some(ev.clone());
                let ((), warnings) = self
                    .routes
                    .update(|s| s.connected(self.number, serial.as_deref()));
                self.set_warnings(warnings);
                self.follow_route(Some(ev), control, epoch).await;
            }
            BoardEvent::Disconnected { .. } => {
                self.port.connected = None;
                let fed = self.port.fed.take();
                self.deliver(fed, ev).await;
                let ((), warnings) = self.routes.update(|s| s.disconnected(self.number));
                self.set_warnings(warnings);
            }
            _ => self.deliver(self.port.fed, ev).await,
        }
    }

    /// The port's feed may have changed (its own link, another port's, the arbiter): the
    /// board it fed is told it left, the board it feeds now gets `connected` (or the
    /// port's last `Connected` and a fresh dump), and the clock commands follow it.
    pub(crate) async fn follow_route(
        &mut self,
        connected: Option<TimedEvent>,
        control: &dgt_serial::BoardControl,
        epoch: Instant,
    ) {
        let now = self.routes.read(|s| s.board_of(self.number));
        if now == self.port.fed {
            if let Some(ev) = connected {
                self.deliver(now, ev).await;
            }
            return;
        }
        let driver_now = Instant::now().saturating_duration_since(epoch).as_millis() as u64;
        let serial = self
            .routes
            .read(|s| s.serial_of(self.number).map(str::to_owned));
        if let Some(old) = self.port.fed {
            let reason = format!(
                "another board answers on board {}'s port (board {} is serial {})",
                self.number,
                self.number,
                serial.as_deref().unwrap_or("unknown")
            );
            let gone = TimedEvent {
                t_ms: driver_now,
                event: BoardEvent::Disconnected { reason },
            };
            self.deliver(Some(old), gone).await;
            // Its clock commands must not reach the clock of the board here now.
            if self.routes.read(|s| s.port_of(old)).is_none() {
                self.hub.remove_control(old);
            }
        }
        self.port.fed = now;
        let Some(board) = now else {
            return;
        };
        tracing::info!(
            board = self.number,
            "board {board}'s events come from board {}'s port now",
            self.number
        );
        self.hub.set_control(board, control.clone());
        self.hub.set_driver_status(board, control.status());
        match connected {
            Some(ev) => self.deliver(now, ev).await,
            None => {
                if let Some(mut ev) = self.port.connected.clone() {
                    ev.t_ms = ev.t_ms.max(driver_now);
                    self.deliver(now, ev).await;
                    // The dump came while the port fed nothing: a fresh one for the board.
                    if control.request_dump().await.is_err() {
                        tracing::warn!(board = self.number, "cannot ask the board for a dump");
                    }
                }
            }
        }
    }

    /// Hands an event of this board's port to `board`'s game (nothing: dropped).
    pub(crate) async fn deliver(&mut self, board: Option<u32>, ev: TimedEvent) {
        match board {
            Some(b) if b == self.number => self.on_event(ev).await,
            Some(b) => self.routes.forward(b, ev),
            None => tracing::debug!(
                board = self.number,
                "an event of a port that feeds no board: not recorded"
            ),
        }
    }

    /// Shows the switchboard's warnings (see [`arbiter_hub::serials`]); logs this port's.
    pub(crate) fn set_warnings(&self, warnings: Vec<(String, Option<String>)>) {
        let own = format!("board-serial-{}", self.number);
        for (key, text) in warnings {
            if key == own {
                if let Some(t) = &text {
                    tracing::warn!(board = self.number, "{t}");
                }
            }
            self.hub.set_warning(&key, text);
        }
    }
}
