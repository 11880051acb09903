//! [`Alerts`]: the arbiter's alerts, folded from the hub's events, each with an identity
//! (`B-SEQ`: the board and the event's `seq`, stable across restarts) and a state (open,
//! acknowledged, resolved) that the daemon holds, so every open dashboard agrees and a
//! reload shows the current state. Claimable draws are kept apart, one per board, while
//! they can be claimed.
//!
//! Pure: fed [`HubEvent`]s and actions, no IO. The states that are not `open` can be
//! saved ([`Alerts::saved`]) and given back at the next start ([`Alerts::restore`]).
//!
//! Their words (titles, rulings, notes, card facts) are English as made; each alert keeps
//! the event and the message ids they came from, so [`Alert::in_language`] says them
//! again in the language a dashboard asks for, with the rulings' own Fluent messages
//! (plurals, cases, piece letters) rather than a second copy in the page.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use messages::Args;
use serde_json::Value;
use touch_tracker::events::{ArbiterDecisionEvent, GameOverEvent};
use touch_tracker::{BoardStatus, DecisionKind, EndReason, EventKind, MismatchReason};

use arbiter_hub::HubEvent;
use game_record::words;
use wall_clock::rfc3339;

mod card;
pub use card::*;

/// A board's connection alert (a disconnect, a clock gone, out of sync) that happens again
/// within this long of its last occurrence is the same alert, counted, reopened.
pub const COALESCE_MS: u64 = 30 * 60 * 1000;

/// See the module documentation.
#[derive(Debug, Default)]
pub struct Alerts {
    alerts: Vec<Alert>,
    by_id: HashMap<String, usize>,
    claims: BTreeMap<u32, Claim>,
    /// Per board, the last illegal-move alert (restorations and endings note there).
    last_illegal: HashMap<u32, usize>,
    /// Per board, the last displaced-pieces alert (art. 7.4), until they are back.
    last_displaced: HashMap<u32, usize>,
    saved: HashMap<String, SavedState>,
    revision: u64,
    /// Alerts moved to the archive (board, seq): their events, replayed after a restart,
    /// do not bring them back.
    archived: std::collections::HashSet<(u32, u64)>,
    /// When the list is next looked over for alerts to archive (its length then).
    next_check: usize,
    /// Per board, its result and the arbiter's ([`arbiter_hub::decisions::ResultState`]).
    results: HashMap<u32, arbiter_hub::decisions::ResultState>,
    /// Per board, the open "result disputed" alert.
    dispute: HashMap<u32, usize>,
}

/// The resolved alerts kept in memory for the page (the newest); older ones go to the
/// archive on disk.
pub const RESOLVED_KEPT: usize = 200;

/// The most alerts kept in memory: beyond it the oldest that ask the arbiter nothing
/// (acknowledged ones, a board or clock gone) go to the archive too. Alerts that ask him
/// something are never archived while open: they stay, and the page counts them.
pub const MAX_KEPT: usize = 2_000;

/// The alert id of a board's event.
pub fn alert_id(board: u32, seq: u64) -> String {
    format!("{board}-{seq}")
}

/// Whether a text is an alert id (`B-SEQ`, digits only, bounded).
pub fn is_alert_id(text: &str) -> bool {
    text.len() <= 32
        && text.split_once('-').is_some_and(|(b, s)| {
            !b.is_empty()
                && !s.is_empty()
                && b.bytes().all(|c| c.is_ascii_digit())
                && s.bytes().all(|c| c.is_ascii_digit())
        })
}

/// The board an alert id names (`BOARD-SEQ`), when it is one.
pub fn alert_board(id: &str) -> Option<u32> {
    id.split_once('-')
        .filter(|_| is_alert_id(id))
        .and_then(|(b, _)| b.parse().ok())
}

/// The title of a game's end: `alert-end-title` selects on the reason's key.
fn end_title(reason: EndReason) -> TitleMsg {
    let key = match reason {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::DeadPosition => "dead-position",
        EndReason::Fivefold => "fivefold",
        EndReason::SeventyFiveMoves => "seventy-five-moves",
        EndReason::SecondIllegalMove => "second-illegal-move",
        EndReason::Flag => "flag",
        EndReason::ResultOnBoard => "result-on-board",
        // The rules core's other reasons (the tracker does not announce them yet).
        EndReason::Threefold => "threefold",
        EndReason::FiftyMoves => "fifty-moves",
        EndReason::Resignation => "resignation",
        EndReason::Agreement => "agreement",
        EndReason::Arbiter => "arbiter",
    };
    ("alert-end-title", Some(key))
}

impl Alerts {
    pub fn new() -> Alerts {
        Alerts::default()
    }

    /// States saved by an earlier run; applied to alerts as their events come back.
    pub fn restore(&mut self, saved: HashMap<String, SavedState>) {
        for (id, s) in &saved {
            if let Some(&i) = self.by_id.get(id) {
                let a = &mut self.alerts[i];
                a.state = s.state;
                a.acknowledged_at.clone_from(&s.acknowledged_at);
                a.resolved_at.clone_from(&s.resolved_at);
            }
        }
        self.saved = saved;
    }

    /// The states that are not `open`, by id (to keep across restarts).
    pub fn saved(&self) -> BTreeMap<String, SavedState> {
        self.alerts
            .iter()
            .filter(|a| a.state != AlertState::Open)
            .map(|a| {
                (
                    a.id.clone(),
                    SavedState {
                        state: a.state,
                        acknowledged_at: a.acknowledged_at.clone(),
                        resolved_at: a.resolved_at.clone(),
                    },
                )
            })
            .collect()
    }

    fn bump(&mut self) -> u64 {
        self.revision += 1;
        self.revision
    }

    fn add(&mut self, e: &HubEvent, urgency: Urgency, title_msg: TitleMsg) -> usize {
        let id = alert_id(e.board, e.seq);
        if let Some(&i) = self.by_id.get(&id) {
            // The same event again (a resumed board replays its journal).
            return i;
        }
        let saved = self.saved.get(&id).cloned();
        let revision = self.bump();
        let alert = Alert {
            id: id.clone(),
            board: e.board,
            seq: e.seq,
            kind: e.event.kind_name(),
            urgency,
            title: title_text(EN, &title_msg),
            text: words::ruling(&e.event).unwrap_or_default(),
            at: rfc3339(e.wall_ms),
            wall_ms: e.wall_ms,
            state: saved.as_ref().map_or(AlertState::Open, |s| s.state),
            acknowledged_at: saved.as_ref().and_then(|s| s.acknowledged_at.clone()),
            resolved_at: saved.and_then(|s| s.resolved_at),
            notes: Vec::new(),
            event: serde_json::from_str(&e.to_json()).unwrap_or(Value::Null),
            details: Details::of(EN, &e.event.kind),
            revision,
            count: 1,
            status: match &e.event.kind {
                EventKind::BoardStatus(s) => Some(s.status),
                _ => None,
            },
            title_msg,
            source: Some(Arc::new(e.event.clone())),
        };
        self.alerts.push(alert);
        self.by_id.insert(id, self.alerts.len() - 1);
        self.alerts.len() - 1
    }

    fn note(&mut self, i: usize, msg: NoteMsg, at: &str) -> Alert {
        let revision = self.bump();
        let text = msg.text(EN);
        let a = &mut self.alerts[i];
        if !a.notes.iter().any(|n| n.text == text) {
            a.notes.push(Note {
                text,
                at: at.to_owned(),
                msg,
            });
        }
        a.revision = revision;
        a.clone()
    }

    /// The board's newest open alert of this kind and status, if any.
    fn open_status(&self, board: u32, status: BoardStatus) -> Option<usize> {
        self.alerts.iter().rposition(|a| {
            a.board == board && a.status == Some(status) && a.state != AlertState::Resolved
        })
    }

    /// The board's last alert of this status, if it is recent enough to count this event
    /// as a repeat ([`COALESCE_MS`]) and is not this very event (a replay).
    fn repeated(&self, e: &HubEvent, status: BoardStatus) -> Option<usize> {
        if self.by_id.contains_key(&alert_id(e.board, e.seq)) {
            return None;
        }
        let i = self
            .alerts
            .iter()
            .rposition(|a| a.board == e.board && a.status == Some(status))?;
        (e.wall_ms.saturating_sub(self.alerts[i].wall_ms) < COALESCE_MS).then_some(i)
    }

    /// Alerts archived by an earlier run (by board and seq, from the archive file): their
    /// events, replayed, are left out.
    pub fn restore_archived(&mut self, ids: impl IntoIterator<Item = (u32, u64)>) {
        self.archived.extend(ids);
    }

    /// How many alerts are in the archive (this run's and earlier runs').
    pub fn archived_count(&self) -> usize {
        self.archived.len()
    }

    /// Takes out of memory the alerts to archive (see [`RESOLVED_KEPT`], [`MAX_KEPT`]);
    /// the caller appends them to the archive file. Looks the list over only once it has
    /// grown by a margin, so adding alerts stays cheap.
    pub fn take_archivable(&mut self) -> Vec<Alert> {
        if self.alerts.len() < self.next_check.max(RESOLVED_KEPT) {
            return Vec::new();
        }
        let mut resolved: Vec<(u64, usize)> = self
            .alerts
            .iter()
            .enumerate()
            .filter(|(_, a)| a.state == AlertState::Resolved)
            .map(|(i, a)| (a.wall_ms, i))
            .collect();
        // Newest first: the first RESOLVED_KEPT stay.
        resolved.sort_unstable_by(|a, b| b.cmp(a));
        let mut out: std::collections::BTreeSet<usize> = resolved
            .iter()
            .skip(RESOLVED_KEPT)
            .map(|&(_, i)| i)
            .collect();
        let left = self.alerts.len() - out.len();
        if left > MAX_KEPT {
            let mut quiet: Vec<(u64, usize)> = self
                .alerts
                .iter()
                .enumerate()
                .filter(|(i, a)| !out.contains(i) && !a.asks())
                .map(|(i, a)| (a.wall_ms, i))
                .collect();
            // Oldest first.
            quiet.sort_unstable();
            out.extend(quiet.iter().take(left - MAX_KEPT).map(|&(_, i)| i));
        }
        if out.is_empty() {
            self.next_check = self.alerts.len() + RESOLVED_KEPT / 4;
            return Vec::new();
        }
        let mut taken = Vec::with_capacity(out.len());
        let mut new_index = vec![usize::MAX; self.alerts.len()];
        let mut kept = Vec::with_capacity(self.alerts.len() - out.len());
        for (i, a) in std::mem::take(&mut self.alerts).into_iter().enumerate() {
            if out.contains(&i) {
                self.archived.insert((a.board, a.seq));
                taken.push(a);
            } else {
                new_index[i] = kept.len();
                kept.push(a);
            }
        }
        self.alerts = kept;
        self.by_id = self
            .alerts
            .iter()
            .enumerate()
            .map(|(i, a)| (a.id.clone(), i))
            .collect();
        for map in [&mut self.last_illegal, &mut self.last_displaced] {
            map.retain(|_, i| {
                *i = new_index[*i];
                *i != usize::MAX
            });
        }
        self.next_check = self.alerts.len() + RESOLVED_KEPT / 4;
        taken
    }

    /// One page of [`Alerts::sorted`]: `limit` alerts from `offset`, and how many there
    /// are in all.
    pub fn page(&self, offset: usize, limit: usize) -> (Vec<&Alert>, usize) {
        let all = self.sorted();
        let total = all.len();
        (all.into_iter().skip(offset).take(limit).collect(), total)
    }

    /// Folds one event in; says what changed.
    pub fn apply(&mut self, e: &HubEvent) -> Vec<Change> {
        let board = e.board;
        if !self.archived.is_empty() && self.archived.contains(&(board, e.seq)) {
            // Its alert is in the archive (a replay after a restart).
            return Vec::new();
        }
        // Formatted only for the events that note a time: most events (moves, touches)
        // change nothing here.
        let when = || rfc3339(e.wall_ms);
        let mut out = Vec::new();
        match &e.event.kind {
            EventKind::IllegalMove(i) => {
                let (urgency, title) = if i.result.is_some() || i.count >= 2 {
                    (Urgency::GameEnd, "alert-second-illegal")
                } else {
                    (Urgency::Illegal, "alert-illegal")
                };
                let at = self.add(e, urgency, (title, None));
                self.last_illegal.insert(board, at);
                out.push(Change::alert(self.alerts[at].clone()));
            }
            EventKind::Restored { .. } => {
                if let Some(&i) = self.last_illegal.get(&board) {
                    out.push(Change::alert(self.note(
                        i,
                        NoteMsg::Id("position-restored"),
                        &when(),
                    )));
                }
            }
            EventKind::IllegalMoveStands(_) => {
                out.push(self.added(e, Urgency::Illegal, ("alert-illegal-stands", None)));
                if let Some(&i) = self.last_illegal.get(&board) {
                    out.push(Change::alert(self.note(
                        i,
                        NoteMsg::Id("note-stands"),
                        &when(),
                    )));
                }
            }
            EventKind::GameOver(g) => out.extend(self.game_over(e, g)),
            EventKind::TouchMove(t) if t.violation => {
                out.push(self.added(e, Urgency::Suspicion, ("alert-touch-move", None)));
            }
            EventKind::TwoHandedSuspected(_) => {
                out.push(self.added(e, Urgency::Suspicion, ("alert-two-handed", None)));
            }
            EventKind::Displaced(d) if !d.reestablished => {
                let at = self.add(e, Urgency::Suspicion, ("alert-displaced", None));
                self.last_displaced.insert(board, at);
                out.push(Change::alert(self.alerts[at].clone()));
            }
            EventKind::Displaced(_) => {
                if let Some(i) = self.last_displaced.remove(&board) {
                    out.push(Change::alert(self.note(
                        i,
                        NoteMsg::Id("note-reestablished"),
                        &when(),
                    )));
                }
            }
            EventKind::RulingUnclear(_) => {
                out.push(self.added(e, Urgency::Illegal, ("alert-ruling-unclear", None)));
            }
            // Art. 6.10.2: the clock's setting is wrong; the arbiter corrects the clock.
            EventKind::ClockMismatch(m) => {
                let title = match m.reason {
                    MismatchReason::PeriodAddedEarly => "alert-clock-early",
                    MismatchReason::PeriodAddedLate => "alert-clock-late",
                    MismatchReason::PeriodNotAdded => "alert-clock-not-added",
                };
                out.push(self.added(e, Urgency::Illegal, (title, None)));
            }
            EventKind::RecoveryUncertain(_) => {
                out.push(self.added(e, Urgency::Suspicion, ("alert-uncertain", None)));
            }
            EventKind::BoardStatus(s) => {
                out.extend(self.board_status(e, s.status, s.detail.as_deref()));
            }
            EventKind::DrawClaimable(_) => out.push(self.claim(e)),
            EventKind::Move(_) | EventKind::NewGame { .. } => {
                // A claim is for the player to move at that moment only.
                out.extend(self.clear_claim(board));
            }
            // The arbiter's own action: no news for him (its answer says what to restore).
            EventKind::TouchMove(_) | EventKind::PositionAccepted(_) | EventKind::TakenBack(_) => {}
            // The arbiter's own decision is no news for him: it goes as a note on the
            // card it is about (the displaced pieces), which it settles.
            EventKind::ArbiterDecision(d)
                if matches!(d.decision.kind(), DecisionKind::Penalty(_)) =>
            {
                out.extend(self.penalty_noted(e, d));
            }
            EventKind::ArbiterDecision(_) => {}
        }
        out.extend(self.follow_result(e));
        out
    }

    /// A game's end: a card of its own, or a note on the second illegal move's card.
    fn game_over(&mut self, e: &HubEvent, g: &GameOverEvent) -> Vec<Change> {
        let board = e.board;
        let when = || rfc3339(e.wall_ms);
        let mut out = Vec::new();
        let result = NoteMsg::With("note-game-over", "result", g.result.to_string());
        match self.last_illegal.get(&board) {
            // The second illegal move already has its card: the end goes there.
            Some(&i)
                if g.reason == EndReason::SecondIllegalMove
                    && self.alerts[i].urgency == Urgency::GameEnd =>
            {
                out.push(Change::alert(self.note(i, result, &when())));
            }
            _ => {
                let at = self.add(e, Urgency::GameEnd, end_title(g.reason));
                // The end of a game is news, not a task: no Acknowledge needed,
                // unless the arbiter must look (can the opponent still mate?).
                let a = &mut self.alerts[at];
                if !g.undetermined && a.state == AlertState::Open {
                    a.state = AlertState::Resolved;
                    a.resolved_at = Some(when());
                }
                out.push(Change::alert(self.alerts[at].clone()));
            }
        }
        out.extend(self.clear_claim(board));
        out
    }

    /// A board's connection or sync trouble opens (or counts again) a card; its end
    /// resolves the open ones by itself.
    fn board_status(
        &mut self,
        e: &HubEvent,
        status: BoardStatus,
        detail: Option<&str>,
    ) -> Vec<Change> {
        let board = e.board;
        let when = || rfc3339(e.wall_ms);
        let mut out = Vec::new();
        let opened = match status {
            BoardStatus::Disconnected => Some("alert-disconnected"),
            BoardStatus::ClockDisconnected => Some("alert-clock-disconnected"),
            BoardStatus::OutOfSync => Some("alert-out-of-sync"),
            _ => None,
        };
        let closes = match status {
            BoardStatus::Connected => Some((BoardStatus::Disconnected, "note-reconnected")),
            BoardStatus::ClockConnected => {
                Some((BoardStatus::ClockDisconnected, "note-clock-reconnected"))
            }
            BoardStatus::InSync => Some((BoardStatus::OutOfSync, "note-back-in-sync")),
            _ => None,
        };
        let again = opened.and_then(|_| self.repeated(e, status));
        if let Some(i) = again {
            // The same trouble again: one alert, counted, open again.
            let revision = self.bump();
            let a = &mut self.alerts[i];
            a.count += 1;
            a.state = AlertState::Open;
            a.resolved_at = None;
            a.wall_ms = e.wall_ms;
            a.at = when();
            a.title = EN.format(
                "alert-times",
                &Args::new()
                    .str("title", EN.text(opened.unwrap_or_default()))
                    .str("count", a.count.to_string()),
            );
            a.revision = revision;
            out.push(Change::alert(a.clone()));
        } else if let Some(title) = opened {
            let at = self.add(e, Urgency::Connection, (title, None));
            if self.alerts[at].text.is_empty() {
                self.alerts[at].text = status_text(EN, board, &EN.text(title), detail);
            }
            out.push(Change::alert(self.alerts[at].clone()));
        }
        if let Some((status, words)) = closes {
            let when = when();
            // Solved by itself: the arbiter need not act.
            while let Some(i) = self.open_status(board, status) {
                out.push(self.settle(i, NoteMsg::Id(words), &when));
            }
        }
        out
    }

    /// A draw the player to move may claim: the board's claim until the next move.
    fn claim(&mut self, e: &HubEvent) -> Change {
        let board = e.board;
        let claim = Claim {
            id: alert_id(board, e.seq),
            board,
            text: words::ruling(&e.event).unwrap_or_default(),
            at: rfc3339(e.wall_ms),
            event: serde_json::from_str(&e.to_json()).unwrap_or(Value::Null),
            source: Some(Arc::new(e.event.clone())),
        };
        self.claims.insert(board, claim.clone());
        Change::Claim {
            board,
            claim: Some(claim),
        }
    }

    /// The arbiter's penalty for displaced pieces (art. 7.4) goes as a note on the card it
    /// is about, which it settles.
    fn penalty_noted(&mut self, e: &HubEvent, d: &ArbiterDecisionEvent) -> Option<Change> {
        let board = e.board;
        let about = self.alerts.iter().rposition(|a| {
            a.board == board
                && a.kind == "displaced"
                && a.event["ply"].as_u64() == d.ply.map(u64::from)
        });
        let msg = NoteMsg::With("arbiter-decision-comment", "text", d.explanation.clone());
        about.map(|i| self.settle(i, msg, &rfc3339(e.wall_ms)))
    }

    /// Notes `msg` on alert `i` and resolves it (when it is not already): the matter
    /// settled by itself or by the arbiter's decision.
    fn settle(&mut self, i: usize, msg: NoteMsg, when: &str) -> Change {
        self.note(i, msg, when);
        let revision = self.bump();
        let a = &mut self.alerts[i];
        if a.state != AlertState::Resolved {
            a.state = AlertState::Resolved;
            a.resolved_at = Some(when.to_owned());
        }
        a.revision = revision;
        Change::alert(a.clone())
    }

    /// A new alert for event `e`, as a change for live clients.
    fn added(&mut self, e: &HubEvent, urgency: Urgency, title_msg: TitleMsg) -> Change {
        let at = self.add(e, urgency, title_msg);
        Change::alert(self.alerts[at].clone())
    }

    /// A result the board and the arbiter disagree on is an alert until the arbiter
    /// confirms one of them (or clears his): opened when the dispute begins, resolved by
    /// itself when it ends. Its id is `B-SEQ-result` (the event that began it).
    fn follow_result(&mut self, e: &HubEvent) -> Option<Change> {
        let board = e.board;
        let state = self.results.entry(board).or_default();
        if !state.apply(&e.event.kind) {
            return None;
        }
        let state = *state;
        let open = self.dispute.get(&board).copied();
        match (state.disputed(), open) {
            (true, None) => {
                let id = format!("{}-result", alert_id(board, e.seq));
                if self.by_id.contains_key(&id) {
                    return None;
                }
                let (b, a) = (
                    state.board.map_or("?", |r| r.as_str()),
                    state.arbiter.map_or("?", |r| r.as_str()),
                );
                let revision = self.bump();
                self.alerts.push(Alert {
                    id: id.clone(),
                    board,
                    seq: e.seq,
                    kind: "result_disputed",
                    urgency: Urgency::GameEnd,
                    title: EN.text("alert-result-disputed"),
                    text: disputed_text(EN, board, b, a),
                    at: rfc3339(e.wall_ms),
                    wall_ms: e.wall_ms,
                    state: AlertState::Open,
                    acknowledged_at: None,
                    resolved_at: None,
                    notes: Vec::new(),
                    event: serde_json::json!({
                        "board": board,
                        "board_result": b,
                        "arbiter_result": a,
                    }),
                    details: Details::default(),
                    revision,
                    count: 1,
                    status: None,
                    title_msg: ("alert-result-disputed", None),
                    source: None,
                });
                let i = self.alerts.len() - 1;
                self.by_id.insert(id, i);
                self.dispute.insert(board, i);
                Some(Change::alert(self.alerts[i].clone()))
            }
            (false, Some(i)) => {
                self.dispute.remove(&board);
                let when = rfc3339(e.wall_ms);
                let text = match state.result() {
                    Some(r) => NoteMsg::With("note-settled-with", "result", r.to_string()),
                    None => NoteMsg::Id("note-settled"),
                };
                self.note(i, text, &when);
                let revision = self.bump();
                let a = &mut self.alerts[i];
                a.state = AlertState::Resolved;
                a.resolved_at = Some(when);
                a.revision = revision;
                Some(Change::alert(a.clone()))
            }
            (true, Some(i)) => {
                // Still disputed, with other results: the card says the new ones.
                let (b, a) = (
                    state.board.map_or("?", |r| r.as_str()),
                    state.arbiter.map_or("?", |r| r.as_str()),
                );
                let revision = self.bump();
                let alert = &mut self.alerts[i];
                alert.text = disputed_text(EN, board, b, a);
                alert.event["board_result"] = b.into();
                alert.event["arbiter_result"] = a.into();
                alert.revision = revision;
                Some(Change::alert(alert.clone()))
            }
            (false, None) => None,
        }
    }

    fn clear_claim(&mut self, board: u32) -> Option<Change> {
        self.claims
            .remove(&board)
            .map(|_| Change::Claim { board, claim: None })
    }

    /// Acknowledges or resolves an alert (resolving is final: a resolved alert is not
    /// acknowledged again).
    pub fn act(&mut self, id: &str, action: Action, now_ms: u64) -> Result<Alert, ActError> {
        let Some(&i) = self.by_id.get(id) else {
            return Err(ActError::Unknown(id.to_owned()));
        };
        let target = action.target();
        if self.alerts[i].state >= target {
            return Ok(self.alerts[i].clone());
        }
        let revision = self.bump();
        let when = rfc3339(now_ms);
        let a = &mut self.alerts[i];
        a.state = target;
        match action {
            Action::Acknowledge => a.acknowledged_at = Some(when),
            Action::Resolve => a.resolved_at = Some(when),
        }
        a.revision = revision;
        Ok(a.clone())
    }

    /// Every alert, in the order the arbiter should look at them: open ones first, then
    /// acknowledged, then resolved; by urgency; newest first.
    pub fn sorted(&self) -> Vec<&Alert> {
        let mut v: Vec<&Alert> = self.alerts.iter().collect();
        v.sort_by(|a, b| {
            (
                a.state,
                a.urgency,
                std::cmp::Reverse(a.wall_ms),
                a.board,
                a.seq,
            )
                .cmp(&(
                    b.state,
                    b.urgency,
                    std::cmp::Reverse(b.wall_ms),
                    b.board,
                    b.seq,
                ))
        });
        v
    }

    /// Per board with open alerts: the most urgent open one and how many are open.
    pub fn open_by_board(&self) -> HashMap<u32, (Urgency, usize)> {
        let mut out: HashMap<u32, (Urgency, usize)> = HashMap::new();
        for a in self.alerts.iter().filter(|a| a.state == AlertState::Open) {
            let e = out.entry(a.board).or_insert((a.urgency, 0));
            e.0 = e.0.min(a.urgency);
            e.1 += 1;
        }
        out
    }

    /// One alert.
    pub fn get(&self, id: &str) -> Option<&Alert> {
        self.by_id.get(id).map(|&i| &self.alerts[i])
    }

    /// The draws that may be claimed now, by board.
    pub fn claims(&self) -> Vec<&Claim> {
        self.claims.values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chess_rules::{Color, GameResult, IllegalCategory};
    use messages::{Language, Messages};
    use touch_tracker::events::{
        BoardStatusEvent, DrawClaimableEvent, GameOverEvent, IllegalMoveEvent, TouchMoveEvent,
    };
    use touch_tracker::{ArbiterEvent, ClaimReason, Obligation, Penalty};

    fn ev(board: u32, seq: u64, wall_ms: u64, kind: EventKind) -> HubEvent {
        HubEvent {
            seq,
            board,
            round: 1,
            wall_ms,
            replayed: false,
            event: ArbiterEvent {
                t_ms: wall_ms,
                board: board.to_string(),
                kind,
            },
        }
    }

    fn illegal(count: u32) -> EventKind {
        EventKind::IllegalMove(IllegalMoveEvent {
            color: Color::White,
            category: IllegalCategory::PieceMovement,
            attempt: None,
            count,
            restore_fen: chess_rules::START_FEN.into(),
            restore: vec![],
            must_move: None,
            penalty: (count == 1).then_some(Penalty {
                add_ms: 60_000,
                to: Color::Black,
            }),
            result: (count > 1).then_some(GameResult::BlackWins),
            result_undetermined: false,
            ply: 5,
            explanation: String::new(),
            clock_before: None,
            clock_after: None,
        })
    }

    fn status(s: BoardStatus) -> EventKind {
        EventKind::BoardStatus(BoardStatusEvent {
            status: s,
            detail: None,
            candidates: Vec::new(),
        })
    }

    fn game_over(reason: EndReason) -> EventKind {
        EventKind::GameOver(GameOverEvent {
            result: GameResult::BlackWins,
            reason,
            flag: None,
            undetermined: false,
            plies: 9,
        })
    }

    fn touch(violation: bool) -> EventKind {
        EventKind::TouchMove(TouchMoveEvent {
            color: Color::Black,
            touched: vec![],
            obligation: Obligation::Move,
            square: "g8".parse().unwrap(),
            played: "e7e5".parse().unwrap(),
            played_san: "e5".into(),
            violation,
            ply: 2,
        })
    }

    /// The bishop f1-f3 through its own pawn: put back, touch-move, a minute to Black.
    fn bishop_through_its_pawn() -> EventKind {
        let bishop = chess_rules::Piece {
            color: Color::White,
            role: chess_rules::Role::Bishop,
        };
        let (f1, f3) = ("f1".parse().unwrap(), "f3".parse().unwrap());
        let EventKind::IllegalMove(mut i) = illegal(1) else {
            unreachable!()
        };
        i.attempt = Some(chess_rules::Attempt {
            from: f1,
            to: f3,
            piece: bishop,
        });
        i.restore = vec![
            chess_rules::RestoreStep::Remove {
                square: f3,
                piece: bishop,
            },
            chess_rules::RestoreStep::Put {
                square: f1,
                piece: bishop,
            },
        ];
        i.must_move = Some(f1);
        EventKind::IllegalMove(i)
    }

    #[test]
    fn alerts_are_said_again_in_the_dashboard_s_language() {
        let mut a = Alerts::new();
        a.apply(&ev(1, 1, 100, bishop_through_its_pawn()));
        a.apply(&ev(
            1,
            2,
            200,
            EventKind::Restored {
                fen: chess_rules::START_FEN.into(),
            },
        ));
        a.apply(&ev(2, 1, 300, status(BoardStatus::Disconnected)));
        a.apply(&ev(2, 2, 400, status(BoardStatus::Connected)));
        a.apply(&ev(2, 3, 500, status(BoardStatus::Disconnected)));
        a.apply(&ev(3, 1, 600, game_over(EndReason::Flag)));
        let claim = EventKind::DrawClaimable(DrawClaimableEvent {
            reason: ClaimReason::Threefold,
            color: Color::White,
            plies: vec![4, 8, 12],
            with_move: None,
            ply: 12,
        });
        a.apply(&ev(4, 1, 700, claim));
        let ru = Messages::strict(Language::Ru);
        let en = Messages::strict(Language::En);

        // English: as made, the words the tests and tools read.
        let illegal = a.get("1-1").unwrap();
        assert_eq!(illegal.in_language(en), *illegal);
        assert_eq!(illegal.title, "Illegal move");
        assert_eq!(illegal.details.attempt.as_deref(), Some("Bf1-f3"));
        assert_eq!(
            illegal.details.count.as_deref(),
            Some("1st illegal move of White")
        );
        assert_eq!(
            illegal.details.penalty.as_deref(),
            Some("add 1:00 to Black")
        );
        assert_eq!(illegal.notes[0].text, "position restored");

        // Russian: the seeds' terms, Russian piece letters, squares as they are.
        let r = illegal.in_language(ru);
        assert_eq!(r.title, "Невозможный ход");
        assert!(
            r.text
                .contains("невозможный ход (фигура пошла не по правилам) Сf1-f3"),
            "{}",
            r.text
        );
        assert!(
            r.text
                .contains("восстановить позицию: снять белого слона с f3"),
            "{}",
            r.text
        );
        assert_eq!(r.details.attempt.as_deref(), Some("Сf1-f3"));
        assert_eq!(
            r.details.count.as_deref(),
            Some("1-й невозможный ход белых")
        );
        assert_eq!(
            r.details.penalty.as_deref(),
            Some("добавить сопернику (чёрным) 1:00")
        );
        assert_eq!(
            r.details.steps,
            ["снять белого слона с f3", "поставить белого слона на f1"]
        );
        assert_eq!(r.notes[0].text, "позиция восстановлена");
        // The machine's fields stay as they are.
        assert_eq!(
            (r.kind, &r.id, &r.event),
            (illegal.kind, &illegal.id, &illegal.event)
        );

        let gone = a.get("2-1").unwrap();
        assert_eq!(gone.title, "Board disconnected (2 times)");
        let r = gone.in_language(ru);
        assert_eq!(r.title, "Доска отключена (2 раз)");
        assert_eq!(r.text, "доска 2: доска отключена");
        assert_eq!(r.notes[0].text, "связь восстановлена");

        let flag = a.get("3-1").unwrap().in_language(ru);
        assert_eq!(flag.title, "Падение флажка");
        assert!(flag.text.contains("падение флажка"), "{}", flag.text);

        let claim = a.claims()[0].in_language(ru);
        assert!(
            claim
                .text
                .contains("Белые могут потребовать ничью (троекратное повторение)"),
            "{}",
            claim.text
        );
        // Nothing left in English, no message missing (strict marks it ⟪...⟫).
        for text in [&claim.text, &flag.text, &r.text] {
            assert!(!text.contains('⟪') && !text.contains("board"), "{text}");
        }
    }

    #[test]
    fn a_stream_says_its_messages_in_its_language() {
        use crate::{Message, Words};
        let mut a = Alerts::new();
        let changes = a.apply(&ev(1, 1, 100, bishop_through_its_pawn()));
        let Some(Change::Alert(alert)) = changes.into_iter().next() else {
            panic!("no alert")
        };
        let english = serde_json::to_string(&alert).unwrap();
        let msg = Message {
            event: "alert",
            data: english.clone(),
            words: Some(Words::Alert(alert)),
        };
        assert_eq!(msg.data_in(Language::En), english);
        let ru: Value = serde_json::from_str(&msg.data_in(Language::Ru)).unwrap();
        assert_eq!(ru["title"], "Невозможный ход");
        assert_eq!(ru["details"]["attempt"], "Сf1-f3");
        // A message without words is the same in every language.
        let plain = Message {
            event: "boards",
            data: "[]".into(),
            words: None,
        };
        assert_eq!(plain.data_in(Language::Ru), "[]");
    }

    #[test]
    fn beyond_the_cap_the_quiet_alerts_are_archived_never_a_question() {
        let mut a = Alerts::new();
        // Boards going away (news), then more questions than the cap.
        for b in 0..600u32 {
            a.apply(&ev(
                1_000 + b,
                1,
                10 + u64::from(b),
                status(BoardStatus::Disconnected),
            ));
        }
        let questions = MAX_KEPT as u64 + 500;
        for i in 0..questions {
            a.apply(&ev(1, 10 + i, 1_000 + i, touch(true)));
        }
        let taken = a.take_archivable();
        assert_eq!(taken.len(), 600);
        assert!(taken.iter().all(|t| t.kind == "board_status"));
        assert_eq!(a.sorted().len() as u64, questions);
        assert!(a.sorted().iter().all(|x| x.asks()));
        assert_eq!(a.archived_count(), 600);
        // Replayed (a restart), an archived alert does not come back.
        assert!(a
            .apply(&ev(1_000, 1, 10, status(BoardStatus::Disconnected)))
            .is_empty());
        assert_eq!(a.sorted().len() as u64, questions);
        // The indices still point at the right alerts.
        let id = alert_id(1, 10);
        assert_eq!(a.get(&id).unwrap().id, id);
        assert!(a.act(&id, Action::Resolve, 5_000).is_ok());
    }

    #[test]
    fn alerts_are_ordered_by_state_urgency_and_time() {
        let mut a = Alerts::new();
        a.apply(&ev(1, 1, 100, status(BoardStatus::Disconnected)));
        a.apply(&ev(2, 1, 200, touch(true)));
        a.apply(&ev(2, 2, 250, touch(false)));
        a.apply(&ev(3, 1, 300, illegal(1)));
        a.apply(&ev(4, 1, 400, illegal(1)));
        a.apply(&ev(5, 1, 500, illegal(2)));
        let ids: Vec<&str> = a.sorted().iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, ["5-1", "4-1", "3-1", "2-1", "1-1"]);
        assert_eq!(a.get("5-1").unwrap().title, "Second illegal move");
        // Acknowledged alerts go below the open ones, resolved ones last.
        a.act("4-1", Action::Acknowledge, 1_000).unwrap();
        a.act("5-1", Action::Resolve, 1_000).unwrap();
        let ids: Vec<&str> = a.sorted().iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids, ["3-1", "2-1", "1-1", "4-1", "5-1"]);
        // Resolving is final.
        let r = a.act("5-1", Action::Acknowledge, 2_000).unwrap();
        assert_eq!(r.state, AlertState::Resolved);
        assert_eq!(
            a.act("9-9", Action::Resolve, 0),
            Err(ActError::Unknown("9-9".into()))
        );
    }

    #[test]
    fn a_game_end_is_information_unless_the_arbiter_must_look() {
        let mut a = Alerts::new();
        a.apply(&ev(5, 1, 500, game_over(EndReason::Flag)));
        let flag = a.get("5-1").unwrap();
        assert_eq!(
            (flag.title.as_str(), flag.state),
            ("Flag fall", AlertState::Resolved)
        );
        assert!(a.open_by_board().is_empty(), "nothing to acknowledge");
        let mut undetermined = game_over(EndReason::Flag);
        if let EventKind::GameOver(g) = &mut undetermined {
            g.undetermined = true;
        }
        a.apply(&ev(6, 1, 600, undetermined));
        assert_eq!(a.get("6-1").unwrap().state, AlertState::Open);
    }

    #[test]
    fn follow_ups_note_and_resolve() {
        let mut a = Alerts::new();
        a.apply(&ev(1, 3, 100, illegal(1)));
        let ch = a.apply(&ev(1, 4, 150, EventKind::Restored { fen: "f".into() }));
        let Change::Alert(al) = &ch[0] else { panic!() };
        assert_eq!(al.id, "1-3");
        assert_eq!(al.notes[0].text, "position restored");
        assert_eq!(al.notes[0].at, "1970-01-01T00:00:00.150Z");
        // A second illegal move: one card, the end of the game noted on it.
        a.apply(&ev(1, 9, 300, illegal(2)));
        let ch = a.apply(&ev(1, 10, 300, game_over(EndReason::SecondIllegalMove)));
        assert_eq!(ch.len(), 1);
        let second = a.get("1-9").unwrap();
        assert_eq!(
            (second.urgency, second.title.as_str()),
            (Urgency::GameEnd, "Second illegal move")
        );
        assert_eq!(second.notes[0].text, "game over: 0-1");
        assert!(a.get("1-10").is_none());
        // A reconnection resolves the disconnection.
        a.apply(&ev(2, 1, 100, status(BoardStatus::Disconnected)));
        assert_eq!(a.get("2-1").unwrap().state, AlertState::Open);
        a.apply(&ev(2, 2, 200, status(BoardStatus::Connected)));
        let d = a.get("2-1").unwrap();
        assert_eq!(d.state, AlertState::Resolved);
        assert_eq!(d.notes[0].text, "reconnected");
        assert!(a.get("2-2").is_none(), "a connection is no alert");
    }

    #[test]
    fn a_repeating_disconnect_is_one_alert_with_a_count() {
        let mut a = Alerts::new();
        for i in 0..1000u64 {
            a.apply(&ev(
                3,
                2 * i + 1,
                100 + 10 * i,
                status(BoardStatus::Disconnected),
            ));
            a.apply(&ev(
                3,
                2 * i + 2,
                105 + 10 * i,
                status(BoardStatus::Connected),
            ));
        }
        assert_eq!(a.sorted().len(), 1, "one alert for the whole spell");
        let d = a.get("3-1").unwrap();
        assert_eq!(d.count, 1000);
        assert_eq!(d.title, "Board disconnected (1000 times)");
        assert_eq!(d.state, AlertState::Resolved, "reconnected at the end");
        // Again much later: a new alert.
        a.apply(&ev(
            3,
            5000,
            100 + COALESCE_MS * 2,
            status(BoardStatus::Disconnected),
        ));
        assert_eq!(a.get("3-5000").unwrap().count, 1);
        assert_eq!(a.get("3-5000").unwrap().state, AlertState::Open);
    }

    #[test]
    fn claims_live_until_the_next_move() {
        let mut a = Alerts::new();
        let claim = EventKind::DrawClaimable(DrawClaimableEvent {
            reason: ClaimReason::Threefold,
            color: Color::White,
            plies: vec![4, 8, 12],
            with_move: None,
            ply: 12,
        });
        a.apply(&ev(6, 20, 100, claim));
        assert_eq!(a.claims().len(), 1);
        assert!(a.claims()[0].text.contains("threefold"));
        assert!(a.get("6-20").is_none(), "a claim is no alert");
        let ch = a.apply(&ev(6, 21, 200, EventKind::NewGame { fen: "x".into() }));
        assert_eq!(
            ch,
            [Change::Claim {
                board: 6,
                claim: None
            }]
        );
        assert!(a.claims().is_empty());
    }

    #[test]
    fn states_survive_a_restart_and_replays_are_not_doubled() {
        let mut a = Alerts::new();
        a.apply(&ev(1, 3, 100, illegal(1)));
        a.apply(&ev(1, 3, 100, illegal(1)));
        assert_eq!(a.sorted().len(), 1);
        a.act("1-3", Action::Acknowledge, 1_749_755_000_000)
            .unwrap();
        let saved: HashMap<String, SavedState> = a.saved().into_iter().collect();
        let text = serde_json::to_string(&saved).unwrap();
        let back: HashMap<String, SavedState> = serde_json::from_str(&text).unwrap();
        let mut b = Alerts::new();
        b.restore(back);
        b.apply(&ev(1, 3, 100, illegal(1)));
        let x = b.get("1-3").unwrap();
        assert_eq!(x.state, AlertState::Acknowledged);
        assert_eq!(
            x.acknowledged_at.as_deref(),
            Some("2025-06-12T19:03:20.000Z")
        );
    }

    #[test]
    fn ids_are_checked() {
        assert!(is_alert_id("12-345"));
        for bad in ["", "-", "1-", "-2", "a-1", "1-2-3", "1 -2", &"9".repeat(40)] {
            assert!(!is_alert_id(bad), "{bad:?}");
        }
    }
}
