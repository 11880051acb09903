//! One alert as the arbiter sees it: its card (title, ruling, notes, facts, state), a
//! claimable draw, and their words in a dashboard's language.

use std::sync::Arc;

use messages::{Args, Language, Messages};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use touch_tracker::{ArbiterEvent, BoardStatus, EventKind};

use game_record::words;

/// Where an alert stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertState {
    Open,
    Acknowledged,
    Resolved,
}

/// How soon the arbiter must act, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    /// A second illegal move, a flag fall, any other end of the game.
    GameEnd,
    /// A first illegal move (or one that stands).
    Illegal,
    /// A possible touch-move violation, a suspected two-handed move.
    Suspicion,
    /// A board or clock that went away, a board out of sync.
    Connection,
}

/// What an arbiter does to an alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Acknowledge,
    Resolve,
}

impl Action {
    /// The action's word in the dashboard's routes (`POST /api/alerts/ID/<word>`).
    pub fn word(self) -> &'static str {
        match self {
            Action::Acknowledge => "ack",
            Action::Resolve => "resolve",
        }
    }

    /// [`Action::word`] read back.
    pub fn from_word(word: &str) -> Option<Action> {
        match word {
            "ack" => Some(Action::Acknowledge),
            "resolve" => Some(Action::Resolve),
            _ => None,
        }
    }

    pub(super) fn target(self) -> AlertState {
        match self {
            Action::Acknowledge => AlertState::Acknowledged,
            Action::Resolve => AlertState::Resolved,
        }
    }
}

/// One alert, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alert {
    /// `B-SEQ`.
    pub id: String,
    pub board: u32,
    pub seq: u64,
    /// The event's `kind`.
    pub kind: &'static str,
    pub urgency: Urgency,
    /// A few words: "Illegal move", "Flag fall", ...
    pub title: String,
    /// The ruling in plain words.
    pub text: String,
    /// When it happened (RFC 3339 UTC) and as Unix ms.
    pub at: String,
    pub wall_ms: u64,
    pub state: AlertState,
    /// When it was acknowledged / resolved (RFC 3339 UTC).
    pub acknowledged_at: Option<String>,
    pub resolved_at: Option<String>,
    /// What happened since: "position restored", "game over: 0-1", "reconnected".
    pub notes: Vec<Note>,
    /// The event itself (formats.md §2), for the card's details and diagram.
    pub event: Value,
    /// Plain words for an illegal move's card.
    pub details: Details,
    /// Bumped at every change, so a client keeps the newest copy.
    pub revision: u64,
    /// How many times it happened: a board that disconnects again and again is one alert
    /// (see [`COALESCE_MS`]).
    pub count: u32,
    /// A `board_status` alert's status, typed (so closing it needs no JSON lookup).
    #[serde(skip)]
    pub(super) status: Option<BoardStatus>,
    /// The message of its title (and the key an end's title selects on).
    #[serde(skip)]
    pub(super) title_msg: TitleMsg,
    /// The event it was made from: its words are said again from it in other languages.
    #[serde(skip)]
    pub(super) source: Option<Arc<ArbiterEvent>>,
}

/// A title's message id and the `$reason` it selects on, if any.
pub(super) type TitleMsg = (&'static str, Option<&'static str>);

pub(super) const EN: Messages = Messages::english();

pub(super) fn title_text(m: Messages, (id, reason): &TitleMsg) -> String {
    match reason {
        Some(r) => m.format(id, &Args::new().str("reason", *r)),
        None => m.text(id),
    }
}

/// "board 3: board disconnected (why)": a connection alert that has no ruling.
pub(super) fn status_text(m: Messages, board: u32, title: &str, detail: Option<&str>) -> String {
    let mut text = m.format(
        "at-board",
        &Args::new()
            .str("board", board.to_string())
            .str("text", title.to_lowercase()),
    );
    if let Some(d) = detail.filter(|d| !d.is_empty()) {
        text.push_str(&format!(" ({d})"));
    }
    text
}

pub(super) fn disputed_text(m: Messages, board: u32, on_board: &str, arbiter: &str) -> String {
    m.format(
        "alert-result-disputed-text",
        &Args::new()
            .str("board", board.to_string())
            .str("on-board", on_board.to_owned())
            .str("arbiter", arbiter.to_owned()),
    )
}

impl Alert {
    /// The alert with its words in `m`'s language (itself in English, as made).
    pub fn in_language(&self, m: Messages) -> Alert {
        let mut a = self.clone();
        if m.language() == Language::En {
            return a;
        }
        let title = title_text(m, &self.title_msg);
        a.title = if self.count > 1 && self.status.is_some() {
            m.format(
                "alert-times",
                &Args::new()
                    .str("title", title.clone())
                    .str("count", self.count.to_string()),
            )
        } else {
            title.clone()
        };
        let ruling = self
            .source
            .as_deref()
            .and_then(|e| game_record::words::ruling_in(m, e))
            .unwrap_or_default();
        a.text = match &self.source {
            _ if self.kind == "result_disputed" => disputed_text(
                m,
                self.board,
                self.event["board_result"].as_str().unwrap_or("?"),
                self.event["arbiter_result"].as_str().unwrap_or("?"),
            ),
            Some(e) if ruling.is_empty() => match &e.kind {
                EventKind::BoardStatus(s) => {
                    status_text(m, self.board, &title, s.detail.as_deref())
                }
                _ => ruling,
            },
            _ => ruling,
        };
        if let Some(e) = &self.source {
            a.details = Details::of(m, &e.kind);
        }
        for n in &mut a.notes {
            n.text = n.msg.text(m);
        }
        a
    }

    /// Whether it still asks the arbiter something (never archived then): open, and not
    /// only news of a board or clock gone away.
    pub fn asks(&self) -> bool {
        self.state == AlertState::Open
            && !matches!(
                self.status,
                Some(BoardStatus::Disconnected | BoardStatus::ClockDisconnected)
            )
    }
}

/// A follow-up on an alert, and when it happened (RFC 3339 UTC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    pub text: String,
    pub at: String,
    /// The message it is, to say it in another language.
    #[serde(skip)]
    pub(super) msg: NoteMsg,
}

/// A note's message: an id, or an id with one text argument (a result, the arbiter's
/// explanation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum NoteMsg {
    Id(&'static str),
    With(&'static str, &'static str, String),
}

impl NoteMsg {
    pub(super) fn text(&self, m: Messages) -> String {
        match self {
            NoteMsg::Id(id) => m.text(id),
            NoteMsg::With(id, name, value) => m.format(id, &Args::new().str(name, value.clone())),
        }
    }
}

/// An illegal move in plain words: its category, each restore step, and the card's
/// facts (the attempt with the language's piece letter, which of the player's illegal
/// moves it is, the time added).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Details {
    pub category: Option<String>,
    pub steps: Vec<String>,
    /// `Bf1-f3` (`Сf1-f3` in Russian).
    pub attempt: Option<String>,
    /// `1st illegal move of White`.
    pub count: Option<String>,
    /// `add 1:00 to Black`.
    pub penalty: Option<String>,
}

impl Details {
    pub(super) fn of(m: Messages, kind: &EventKind) -> Details {
        let steps = |list: &[chess_rules::RestoreStep]| {
            list.iter()
                .map(|s| words::steps_in(m, std::slice::from_ref(s)))
                .collect()
        };
        match kind {
            EventKind::IllegalMove(i) => Details {
                category: Some(words::category_in(m, i.category)),
                steps: steps(&i.restore),
                attempt: i.attempt.as_ref().map(|a| words::attempt(m, a)),
                count: Some(
                    m.format(
                        "alert-count",
                        &Args::new()
                            .num("count", i.count.into())
                            .str("side", i.color.name()),
                    ),
                ),
                penalty: i.penalty.as_ref().map(|p| words::penalty_in(m, p)),
            },
            EventKind::Displaced(d) => Details {
                category: Some(m.text("alert-displaced-category")),
                steps: steps(&d.squares),
                ..Details::default()
            },
            _ => Details::default(),
        }
    }
}

/// A draw the player to move may claim now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    pub id: String,
    pub board: u32,
    pub text: String,
    pub at: String,
    pub event: Value,
    #[serde(skip)]
    pub(super) source: Option<Arc<ArbiterEvent>>,
}

impl Claim {
    /// The claim with its words in `m`'s language.
    pub fn in_language(&self, m: Messages) -> Claim {
        let mut c = self.clone();
        if let Some(e) = self
            .source
            .as_deref()
            .filter(|_| m.language() != Language::En)
        {
            c.text = words::ruling_in(m, e).unwrap_or_default();
        }
        c
    }
}

/// What an event or an action changed, for live clients.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Boxed: an alert is many times the size of a claim.
    Alert(Box<Alert>),
    /// The board's claim now (`None`: nothing to claim).
    Claim { board: u32, claim: Option<Claim> },
}

impl Change {
    pub(super) fn alert(a: Alert) -> Change {
        Change::Alert(Box::new(a))
    }
}

/// Why an action was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActError {
    #[error("no alert {0:?}")]
    Unknown(String),
}

/// A saved state (see [`Alerts::saved`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedState {
    pub state: AlertState,
    #[serde(default)]
    pub acknowledged_at: Option<String>,
    #[serde(default)]
    pub resolved_at: Option<String>,
}
