//! Starting a board from its journal: the records replayed into a fresh tracker, their events
//! published again with their original numbers, and the board held for the arbiter when
//! the journal proves less than was played.

use super::*;

/// The settings that change a tracker's decisions, in a few words (kept in the journal).
fn rules_of(t: &touch_tracker::TrackerConfig) -> String {
    format!(
        "time control {}, {}, penalty {} ms, remove increment {}, {:?} supervision, \
         two-handed {}, white clock {:?}, windows {}/{} ms",
        t.time_control.map_or("?".into(), |tc| tc.to_string()),
        t.category.map_or("?", |c| c.name()),
        t.category.map_or(t.penalties.blitz_ms, |c| t.penalty_ms(c)),
        t.remove_offender_increment,
        t.supervision,
        if t.penalise_two_handed {
            "penalised"
        } else {
            "reported"
        },
        t.white_clock,
        t.settle_window_ms,
        t.two_handed_window_ms
    )
}

/// Why a resumed board must be held for the arbiter, if it must: its journal proves less
/// of the game than was played (a damaged record no [`Record::Held`] follows, a lost
/// header), or holds nothing of a game whose events were published.
fn why_held(
    opened: &board_journal::Opened,
    plan: &board_journal::ReplayPlan,
    published: Published,
) -> Option<String> {
    let path = opened.journal.path().display();
    let cause = if let Some(hole) = &plan.unheld {
        let after = plan.proven.iter().filter(|p| !**p).count();
        format!(
            "journal {path} damaged at line {} (byte {}: {}): the {after} record(s) after it \
             are not replayed",
            hole.line, hole.offset, hole.message
        )
    } else if let Some(lost @ board_journal::Lost::Header { .. }) = &opened.lost {
        format!("journal {path}: {}", lost.words())
    } else if opened.records.is_empty() && published.seq > 0 {
        let state = opened
            .lost
            .as_ref()
            .map_or("the journal was not there".to_owned(), |l| l.words());
        format!("journal {path}: {state}")
    } else {
        return None;
    };
    Some(if published.seq > 0 {
        format!(
            "{cause}; events.jsonl holds this board's events up to seq {} (moves up to ply \
             {}, illegal moves: White {}, Black {})",
            published.seq,
            published.known.ply,
            published.known.illegal_white,
            published.known.illegal_black
        )
    } else {
        cause
    })
}

impl BoardTask {
    /// Opens the board's journal and replays it: the tracker is rebuilt and the events it
    /// emitted are published again (marked as replayed, with their original `seq`).
    /// `published`: what events.jsonl already holds of the board. When the journal proves
    /// less than that (a damaged record, its header lost, empty), the board is held out
    /// of sync for the arbiter ([`Record::Held`]) instead of replayed into another game.
    pub(crate) async fn resume(
        config: &Config,
        b: &BoardConfig,
        paths: &Paths,
        hub: &Arc<Hub>,
        now_unix: u64,
        syncer: &Syncer,
        published: Published,
    ) -> Result<BoardTask, DaemonError> {
        let round = config.event.round;
        let tracker_config = config.tracker_config(b);
        let rules = rules_of(&tracker_config);
        let opened = open_journal(config, b, paths, now_unix, syncer, &rules)?;
        let plan = board_journal::replay_plan(&opened.records, &opened.skipped);
        let hold = why_held(&opened, &plan, published);
        let (answers_tx, answers) = mpsc::channel(16);
        let mut task = BoardTask {
            number: b.number,
            round,
            tracker: Tracker::new(tracker_config),
            journal: opened.journal,
            epoch_unix_ms: opened.header.epoch_unix_ms,
            offset: 0,
            seq: 0,
            hub: Arc::clone(hub),
            answers_tx,
            answers,
            budget: Duration::from_millis(config.timing.analysis_budget_ms),
            analyst: Arc::default(),
            clock_state: None,
            in_flight: 0,
            replayed: 0,
            journal_failed: false,
            last_t: 0,
            physical_view: config.livechess_api.is_some(),
            journal_serial: None,
            routes: Arc::new(SerialRoutes::new(Switchboard::default())),
            port: PortFeed::default(),
        };
        let (unanswered, last_t, last_disconnected) =
            task.replay_records(&opened.records, &plan.proven, paths);
        let since_epoch = now_unix.saturating_sub(task.epoch_unix_ms);
        task.offset = if opened.records.is_empty() {
            since_epoch
        } else {
            since_epoch.max(last_t + 1)
        };
        if let Some(why) = hold {
            // First: what follows is numbered after the events already published.
            task.republish(&paths.events(), published.seq);
            task.hold(why, published).await;
        }
        if !opened.records.is_empty() {
            tracing::info!(
                board = b.number,
                "resumed from the journal: {} records, {} events, ply {}",
                opened.records.len(),
                task.replayed,
                task.tracker.position().plies()
            );
            if !last_disconnected {
                // What the board did while the daemon was down is not in the touch log;
                // its next dump shows where the pieces are.
                task.input(
                    Record::Event(TimedEvent {
                        t_ms: task.offset,
                        event: BoardEvent::Disconnected {
                            reason: "the daemon restarted".into(),
                        },
                    }),
                    Durability::Now,
                )
                .await;
            }
        }
        for req in unanswered.into_values() {
            task.spawn_analysis(req);
        }
        task.hub.set_snapshot(task.number, task.tracker.snapshot());
        Ok(task)
    }

    /// Feeds the journal's proven records to the tracker and publishes their events as
    /// replayed (numbering on after a [`Record::Held`] from events.jsonl). Returns the
    /// analyses asked and not answered, the last time in the file, and whether the board
    /// was disconnected at its end.
    fn replay_records(
        &mut self,
        records: &[Record],
        proven: &[bool],
        paths: &Paths,
    ) -> (BTreeMap<u64, AnalysisRequest>, u64, bool) {
        let mut unanswered: BTreeMap<u64, AnalysisRequest> = BTreeMap::new();
        let mut out = Vec::new();
        let mut last_t = 0;
        let mut last_disconnected = true;
        for (rec, proven) in records.iter().zip(proven) {
            // Times count on after every record in the file, replayed or not.
            if let Some(t) = rec.t_ms() {
                last_t = last_t.max(t);
            }
            if !proven {
                continue;
            }
            if let Record::Event(e) = rec {
                last_disconnected = matches!(e.event, BoardEvent::Disconnected { .. });
                if let BoardEvent::Connected {
                    serial: Some(s), ..
                } = &e.event
                {
                    self.journal_serial = Some(s.clone());
                }
            }
            if let Record::Analysis { id, .. } = rec {
                unanswered.remove(id);
            }
            if let Record::Held { seq, .. } = rec {
                // The events before it keep their numbers; those of the inputs lost come
                // back from events.jsonl; it numbers on after them.
                self.replayed += out.len() as u64;
                self.publish(std::mem::take(&mut out), true);
                self.republish(&paths.events(), *seq);
            }
            self.apply(rec, &mut out);
            while let Some(req) = self.tracker.poll_analysis() {
                unanswered.insert(req.id, req);
            }
        }
        self.replayed += out.len() as u64;
        self.publish(out, true);
        (unanswered, last_t, last_disconnected)
    }

    /// Holds the board out of sync for the arbiter (`why`), numbering its next events
    /// after those `published` ([`Record::Held`], journaled so that every later restart
    /// holds it at the same point).
    pub(crate) async fn hold(&mut self, why: String, published: Published) {
        tracing::warn!(
            board = self.number,
            ply = self.tracker.position().plies(),
            "{why}: the board is held out of sync until the arbiter accepts its position"
        );
        let held = Record::Held {
            t_ms: self.offset,
            why,
            seq: self.seq.max(published.seq),
            known: published.known,
        };
        self.input(held, Durability::Now).await;
    }

    /// Publishes again the board's events that `events` (events.jsonl) holds numbered
    /// after the last one published here and up to `upto`, as replayed, with their own
    /// numbers: the events of inputs the journal lost. The live game had them, so its
    /// moves and rulings stay in the game record (PGN, broadcast) and are never
    /// recomputed.
    pub(crate) fn republish(&mut self, events: &std::path::Path, upto: u64) {
        if upto <= self.seq {
            return;
        }
        let board = self.tracker.config().board.clone();
        match arbiter_outputs::sinks::jsonl::board_events(
            events, self.round, &board, self.seq, upto,
        ) {
            Ok(found) => {
                tracing::info!(
                    board = self.number,
                    "{} event(s) of inputs the journal lost taken from {}",
                    found.len(),
                    events.display()
                );
                self.replayed += found.len() as u64;
                self.hub
                    .publish(found.into_iter().map(|(seq, event)| HubEvent {
                        seq,
                        board: self.number,
                        round: self.round,
                        wall_ms: self.epoch_unix_ms + event.t_ms,
                        replayed: true,
                        event,
                    }));
            }
            Err(e) => tracing::warn!(
                board = self.number,
                "cannot read {} for the events of inputs the journal lost: {e}",
                events.display()
            ),
        }
        self.seq = upto;
    }

    /// Feeds one input to the tracker.
    pub(crate) fn apply(&mut self, rec: &Record, out: &mut Vec<ArbiterEvent>) {
        if let Some(t) = rec.t_ms() {
            self.last_t = self.last_t.max(t);
        }
        match rec {
            Record::Event(e) => self.tracker.handle(e, out),
            Record::Timeout { t_ms } => self.tracker.handle_timeout(*t_ms, out),
            Record::Analysis { id, answer } => self.tracker.analysis_done(*id, *answer, out),
            Record::Accept { t_ms, side, ply } => {
                // Checked before it was journaled; a replay refuses it the same way.
                if let Err(e) = self.tracker.accept_board_at(*t_ms, *side, *ply, out) {
                    tracing::warn!(board = self.number, "the arbiter's acceptance: {e}");
                }
            }
            Record::Moves {
                t_ms,
                from_ply,
                moves,
            } => {
                // Checked before it was journaled; a replay refuses it the same way.
                if let Err(e) = self.tracker.enter_moves(*t_ms, *from_ply, moves, out) {
                    tracing::warn!(board = self.number, "the arbiter's moves: {e}");
                }
            }
            Record::Takeback {
                t_ms,
                to_ply,
                reason,
            } => {
                if let Err(e) = self.tracker.take_back(*t_ms, *to_ply, reason, out) {
                    tracing::warn!(
                        board = self.number,
                        ply = to_ply,
                        "the arbiter's takeback: {e}"
                    );
                }
            }
            Record::Arbiter { t_ms, input } => self.tracker.arbiter(*t_ms, input, out),
            Record::Held {
                t_ms,
                why,
                seq,
                known,
            } => {
                // Never a second version of an event already out: number on after them.
                self.seq = self.seq.max(*seq);
                self.tracker.hold_for_arbiter(*t_ms, why, *known, out);
            }
        }
    }
}

/// Opens the board's journal (creating it for a new round), saying in the log what it had
/// to repair or skip and when the config changed since it began.
fn open_journal(
    config: &Config,
    b: &BoardConfig,
    paths: &Paths,
    now_unix: u64,
    syncer: &Syncer,
    rules: &str,
) -> Result<board_journal::Opened, DaemonError> {
    let round = config.event.round;
    let opened = Journal::open(
        &paths.journal(round, b.number),
        &b.name(),
        round,
        rules,
        now_unix,
        Duration::from_millis(config.timing.journal_sync_ms),
        syncer,
    )?;
    if !opened.header.rules.is_empty() && opened.header.rules != rules {
        tracing::warn!(
            board = b.number,
            "the config changed since this board's journal began ({} then, {rules} now): \
             its events are regenerated under the new rules and may differ from those \
             already reported",
            opened.header.rules
        );
    }
    if let Some(torn) = &opened.repaired {
        tracing::warn!(
            board = b.number,
            "journal {}: dropped a torn last record ({torn:?})",
            opened.journal.path().display()
        );
    }
    for skip in &opened.skipped {
        tracing::warn!(
            board = b.number,
            "journal {}, byte {}, line {}: skipped a damaged record ({}); the records \
             before it are replayed, those after it only from where the board was held \
             for the arbiter",
            opened.journal.path().display(),
            skip.offset,
            skip.line,
            skip.message
        );
    }
    Ok(opened)
}
