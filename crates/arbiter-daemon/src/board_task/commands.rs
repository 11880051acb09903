//! The arbiter's commands for this board ([`arbiter_hub::commands`], the one way back
//! from the dashboard, the central and the CLI): checked against the tracker, journaled
//! before they act, answered with what came of them.

use super::*;

impl BoardTask {
    /// An order from the arbiter (the dashboard): checked against the tracker, journaled
    /// (so a restart keeps it), applied; the reply says what came of it.
    pub(crate) async fn on_command(
        &mut self,
        command: arbiter_hub::commands::ArbiterCommand,
        handle: &mut dgt_serial::BoardHandle,
        epoch: Instant,
    ) {
        match command {
            arbiter_hub::commands::ArbiterCommand::Decide { input, reply } => {
                // Board time now, after the events delivered so far.
                let t = self.last_t.max(self.order_time(epoch));
                self.decide(t, input, reply).await;
            }
            arbiter_hub::commands::ArbiterCommand::AcceptBoard { side, ply, reply } => {
                // What the board sent before the order comes first.
                while let Ok(ev) = handle.events.try_recv() {
                    self.on_port_event(ev, &handle.control, epoch).await;
                }
                let answer = match self.tracker.accepted_position_at(side, ply) {
                    Ok(accepted) => {
                        let pos = accepted.position;
                        let t_ms = self.order_time(epoch);
                        tracing::info!(
                            board = self.number,
                            "the arbiter accepts the board as the position, {side} to move: {}",
                            pos.fen()
                        );
                        self.input(Record::Accept { t_ms, side, ply }, Durability::Now)
                            .await;
                        Ok(arbiter_hub::commands::Accepted {
                            fen: pos.fen(),
                            ply: pos.plies(),
                            ply_unknown: accepted.ply_unknown,
                        })
                    }
                    Err(e) => Err(e.to_string()),
                };
                let _ = reply.send(answer);
            }
            arbiter_hub::commands::ArbiterCommand::EnterMoves {
                from_ply,
                moves,
                reply,
            } => {
                // What the board sent before the order comes first: the moves must lead
                // to what it shows now.
                self.drain(handle, epoch).await;
                let answer = match self.tracker.check_moves(from_ply, &moves) {
                    Ok(()) => {
                        let t_ms = self.order_time(epoch);
                        let record = Record::Moves {
                            t_ms,
                            from_ply,
                            moves,
                        };
                        self.input(record, Durability::Now).await;
                        Ok(self.recorded())
                    }
                    Err(e) => Err(arbiter_hub::commands::MovesRefused {
                        why: e.to_string(),
                        culprit: e.culprit().map(|(i, text)| (i, text.to_owned())),
                    }),
                };
                let _ = reply.send(Ok(answer));
            }
            arbiter_hub::commands::ArbiterCommand::TakeBack {
                to_ply,
                reason,
                reply,
            } => {
                self.drain(handle, epoch).await;
                let answer = match self.tracker.check_takeback(to_ply) {
                    Ok(()) => {
                        let t_ms = self.order_time(epoch);
                        let record = Record::Takeback {
                            t_ms,
                            to_ply,
                            reason,
                        };
                        self.input(record, Durability::Now).await;
                        Ok(self.recorded())
                    }
                    Err(e) => Err(e.to_string()),
                };
                let _ = reply.send(answer);
            }
            arbiter_hub::commands::ArbiterCommand::ConfirmSerial { serial, reply } => {
                let (answer, warnings) = self
                    .routes
                    .update(|s| s.confirm(self.number, self.number, &serial));
                self.set_warnings(warnings);
                if answer.is_ok() {
                    tracing::warn!(
                        board = self.number,
                        "the arbiter confirms serial {serial} as board {}",
                        self.number
                    );
                    self.follow_route(None, &handle.control, epoch).await;
                }
                let _ = reply.send(answer);
            }
        }
    }

    /// Feeds the events the driver has delivered (what the board sent before an order).
    pub(crate) async fn drain(&mut self, handle: &mut dgt_serial::BoardHandle, epoch: Instant) {
        while let Ok(ev) = handle.events.try_recv() {
            self.on_port_event(ev, &handle.control, epoch).await;
        }
    }

    /// The board's time now, for an order's record.
    pub(crate) fn order_time(&self, epoch: Instant) -> u64 {
        let now = Instant::now().saturating_duration_since(epoch).as_millis();
        u64::try_from(now).unwrap_or(u64::MAX) + self.offset
    }

    /// The record's last position, as an order's answer.
    pub(crate) fn recorded(&self) -> arbiter_hub::commands::Recorded {
        let pos = self.tracker.position();
        arbiter_hub::commands::Recorded {
            fen: pos.fen(),
            ply: pos.plies(),
        }
    }

    /// The arbiter's decision ([`arbiter_hub::decisions`]), at board time `t_ms`: checked with
    /// the tracker, journaled and durable before the tracker takes it, published; the
    /// events go back to the caller.
    pub(crate) async fn decide(
        &mut self,
        t_ms: u64,
        input: touch_tracker::ArbiterInput,
        reply: tokio::sync::oneshot::Sender<Result<Vec<ArbiterEvent>, String>>,
    ) {
        if let Err(why) = self.tracker.check_arbiter(&input) {
            let _ = reply.send(Err(why));
            return;
        }
        let rec = Record::Arbiter { t_ms, input };
        let written = self.journal.append(&rec, Durability::Now);
        self.journal_health(written);
        self.journal.durable().await;
        let mut out = Vec::new();
        self.apply(&rec, &mut out);
        tracing::info!(
            board = self.number,
            ply = self.tracker.position().plies(),
            "the arbiter's decision: {}",
            out.iter()
                .map(|e| e.kind_name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let answer = out.clone();
        self.publish(out, false);
        self.hub.set_snapshot(self.number, self.tracker.snapshot());
        // Answered once published: the caller's next look at the hub shows it.
        let _ = reply.send(Ok(answer));
    }
}
