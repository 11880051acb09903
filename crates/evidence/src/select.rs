//! Choosing what the pack is about: the board's events, the event at the ply (its
//! ruling, else its move), and the window of wall-clock time around it.

use serde_json::Value;

use crate::lines::Line;
use crate::time::parse_rfc3339;
use crate::EvidenceError;

/// Kinds that are rulings or alerts about a ply, the most telling first: the pack is
/// about the first of them found at the ply.
pub const RULING_KINDS: [&str; 9] = [
    "illegal_move",
    "illegal_move_stands",
    "touch_move",
    "two_handed_suspected",
    "ruling_unclear",
    "displaced",
    "arbiter_decision",
    "draw_claimable",
    "game_over",
];

/// Kinds that record the arbiter's own decisions.
pub const DECISION_KINDS: [&str; 3] = ["arbiter_decision", "taken_back", "position_accepted"];

/// One event of the board, with its wall-clock time when it has one.
#[derive(Debug, Clone)]
pub struct Event<'a> {
    pub line: &'a Line,
    pub at: Option<u64>,
}

impl Event<'_> {
    pub fn kind(&self) -> &str {
        self.line.value["kind"].as_str().unwrap_or("")
    }

    pub fn ply(&self) -> Option<u64> {
        self.line.value["ply"].as_u64()
    }

    pub fn value(&self) -> &Value {
        &self.line.value
    }
}

/// The board's events (of `round` where the lines say their round).
pub fn board_events<'a>(lines: &'a [Line], board: &str, round: Option<u32>) -> Vec<Event<'a>> {
    lines
        .iter()
        .filter(|l| l.value["board"].as_str() == Some(board))
        .filter(|l| match (round, l.value["round"].as_u64()) {
            (Some(want), Some(r)) => r == u64::from(want),
            _ => true,
        })
        .map(|line| Event {
            line,
            at: line.value["at"].as_str().and_then(parse_rfc3339),
        })
        .collect()
}

/// The index (in `events`) of the event the pack is about: the last ruling at `ply` in the
/// order of [`RULING_KINDS`] (a board's later game with the same ply wins), else the last
/// move of that ply.
pub fn anchor(events: &[Event], board: &str, ply: u32, file: &str) -> Result<usize, EvidenceError> {
    let at_ply = |e: &Event| e.ply() == Some(u64::from(ply));
    let found = RULING_KINDS
        .iter()
        .find_map(|k| events.iter().rposition(|e| at_ply(e) && e.kind() == *k))
        .or_else(|| events.iter().rposition(|e| at_ply(e) && e.kind() == "move"));
    let Some(i) = found else {
        let plies = events
            .iter()
            .filter(|e| e.kind() == "move")
            .filter_map(Event::ply);
        let (first, last) = plies.fold((None, None), |(lo, hi): (Option<u64>, Option<u64>), p| {
            (
                Some(lo.map_or(p, |l| l.min(p))),
                Some(hi.map_or(p, |h| h.max(p))),
            )
        });
        return Err(EvidenceError::NoPly {
            board: board.to_owned(),
            ply,
            file: file.to_owned(),
            plies: match (first, last) {
                (Some(a), Some(b)) => format!("its moves are plies {a} to {b}"),
                _ => "it has no moves".to_owned(),
            },
        });
    };
    if events[i].at.is_none() {
        return Err(EvidenceError::NoTime {
            board: board.to_owned(),
            ply,
            file: file.to_owned(),
            line: events[i].line.number,
        });
    }
    Ok(i)
}

/// The events in the window `[from, to]` (Unix ms), with those at the ply whenever they
/// happened and the arbiter's decisions about it (a takeback across it).
pub fn in_window<'a>(events: &[Event<'a>], ply: u32, from: u64, to: u64) -> Vec<Event<'a>> {
    let ply = u64::from(ply);
    events
        .iter()
        .filter(|e| {
            e.at.is_some_and(|t| (from..=to).contains(&t))
                || e.ply() == Some(ply)
                || about_ply(e.value(), ply)
        })
        .cloned()
        .collect()
}

/// A decision that concerns the ply without carrying it in `ply`: a takeback that
/// annulled it.
fn about_ply(v: &Value, ply: u64) -> bool {
    v["kind"] == "taken_back"
        && v["to_ply"].as_u64().is_some_and(|t| t < ply)
        && v["from_ply"].as_u64().is_some_and(|f| f >= ply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::read_jsonl;

    fn lines(text: &str) -> Vec<Line> {
        read_jsonl("events.jsonl", text.as_bytes()).0
    }

    const EVENTS: &str = r#"{"board":"1","round":2,"kind":"move","ply":1,"at":"2025-06-12T19:00:00.000Z"}
{"board":"2","round":2,"kind":"move","ply":1,"at":"2025-06-12T19:00:01.000Z"}
{"board":"1","round":2,"kind":"move","ply":2,"at":"2025-06-12T19:00:10.000Z"}
{"board":"1","round":2,"kind":"illegal_move","ply":3,"at":"2025-06-12T19:00:20.000Z"}
{"board":"1","round":2,"kind":"move","ply":3,"at":"2025-06-12T19:00:30.000Z"}
{"board":"1","round":1,"kind":"illegal_move","ply":2,"at":"2025-06-11T19:00:00.000Z"}
{"board":"1","round":2,"kind":"taken_back","to_ply":2,"from_ply":3,"at":"2025-06-12T20:00:00.000Z"}
"#;

    #[test]
    fn the_ruling_at_the_ply_is_the_anchor_else_the_move() {
        let l = lines(EVENTS);
        let ev = board_events(&l, "1", Some(2));
        assert_eq!(ev.len(), 5, "board 1, round 2 only");
        assert_eq!(ev[anchor(&ev, "1", 3, "e").unwrap()].kind(), "illegal_move");
        assert_eq!(ev[anchor(&ev, "1", 2, "e").unwrap()].kind(), "move");
        let err = anchor(&ev, "1", 9, "events.jsonl").unwrap_err().to_string();
        assert!(
            err.contains("ply 9") && err.contains("plies 1 to 3"),
            "{err}"
        );
        let none = board_events(&l, "7", None);
        let err = anchor(&none, "7", 1, "events.jsonl")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no moves"), "{err}");
    }

    #[test]
    fn the_window_has_its_times_the_ply_and_a_takeback_across_it() {
        let l = lines(EVENTS);
        let ev = board_events(&l, "1", Some(2));
        let t = parse_rfc3339("2025-06-12T19:00:20.000Z").unwrap();
        let w = in_window(&ev, 3, t - 10_000, t + 5_000);
        let kinds: Vec<(&str, Option<u64>)> = w.iter().map(|e| (e.kind(), e.ply())).collect();
        assert_eq!(
            kinds,
            [
                ("move", Some(2)),
                ("illegal_move", Some(3)),
                ("move", Some(3)),
                ("taken_back", None)
            ]
        );
        let w = in_window(&ev, 1, t, t);
        assert_eq!(w.len(), 2, "the ruling at t and the move of ply 1");
    }
}
