//! The positions around the ply, for the diagrams: the position before it, the board as
//! an illegal move left it and the position the ruling restores, and the position after
//! each move near the ply.

use chess_rules::{Move, Piece, Placement, Square};
use serde::Deserialize;
use serde_json::Value;

use crate::select::Event;

/// Moves this many plies before and after the pack's ply get a diagram.
pub const PLIES_AROUND: u64 = 3;

/// One position to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub caption: String,
    /// The FEN it was read from (for a board left by an illegal move: the position before
    /// it, the attempt applied on top).
    pub fen: String,
    pub placement: Placement,
    pub marked: Vec<Square>,
}

/// `attempt` of an `illegal_move` (docs/formats.md section 2).
#[derive(Debug, Deserialize)]
struct Attempt {
    from: Square,
    to: Square,
    piece: Piece,
}

/// The positions of the pack about `events[anchor]` at `ply`, `window` being the events
/// in the pack; a FEN that does not read is reported in `warnings` and left out.
pub fn positions(
    events: &[Event],
    anchor: usize,
    window: &[Event],
    ply: u32,
    warnings: &mut Vec<String>,
) -> Vec<Position> {
    let mut out = Vec::new();
    let mut add = |caption: String, fen: &str, edit: Option<&Attempt>, marked: Vec<Square>| {
        let field = fen.split_whitespace().next().unwrap_or_default();
        match Placement::from_fen_field(field) {
            Ok(mut placement) => {
                if let Some(a) = edit {
                    placement.set(a.from, None);
                    placement.set(a.to, Some(a.piece));
                }
                out.push(Position {
                    caption,
                    fen: fen.to_owned(),
                    placement,
                    marked,
                });
            }
            Err(e) => warnings.push(format!("{caption}: FEN {fen:?} does not read: {e}")),
        }
    };
    let before = fen_before(events, anchor, ply);
    if let Some(fen) = &before {
        add(format!("before ply {ply}"), fen, None, Vec::new());
    }
    let ruling = events[anchor].value();
    if ruling["kind"] == "illegal_move" {
        if let Some(restore) = ruling["restore_fen"].as_str() {
            let attempt = Attempt::deserialize(&ruling["attempt"]).ok();
            if let Some(a) = &attempt {
                let caption = format!(
                    "the illegal move as played: {} {}-{} ({})",
                    a.piece.fen_char(),
                    a.from,
                    a.to,
                    ruling["category"].as_str().unwrap_or("illegal")
                );
                add(caption, restore, Some(a), vec![a.from, a.to]);
            }
            let same = before.as_deref().map(placement_field) == Some(placement_field(restore));
            if !same {
                add("the position to restore".into(), restore, None, Vec::new());
            }
        }
    }
    for (p, mv) in moves_near(window, ply) {
        let uci = mv["uci"].as_str().unwrap_or_default();
        let marked = uci
            .parse::<Move>()
            .map(|m| vec![m.from, m.to])
            .unwrap_or_default();
        let san = mv["san"].as_str().unwrap_or(uci);
        if let Some(fen) = mv["fen"].as_str() {
            add(format!("after ply {p}: {san}"), fen, None, marked);
        }
    }
    out
}

/// The placement field of a FEN.
fn placement_field(fen: &str) -> &str {
    fen.split_whitespace().next().unwrap_or_default()
}

/// The last `move` of each ply within [`PLIES_AROUND`] of `ply` (a replacing move takes
/// its ply's place), in ply order.
fn moves_near<'a>(window: &'a [Event], ply: u32) -> Vec<(u64, &'a Value)> {
    let ply = u64::from(ply);
    let mut by_ply: std::collections::BTreeMap<u64, &Value> = Default::default();
    for e in window.iter().filter(|e| e.kind() == "move") {
        if let Some(p) = e.ply().filter(|p| p.abs_diff(ply) <= PLIES_AROUND) {
            by_ply.insert(p, e.value());
        }
    }
    by_ply.into_iter().collect()
}

/// The position before `ply` as the events before the anchor say: the move of the ply
/// before, a takeback to it, or for ply 1 the game's start.
fn fen_before(events: &[Event], anchor: usize, ply: u32) -> Option<String> {
    let prev = u64::from(ply).checked_sub(1)?;
    for e in events[..anchor].iter().rev() {
        let v = e.value();
        let fen = v["fen"].as_str().map(str::to_owned);
        match e.kind() {
            "move" if e.ply() == Some(prev) => return fen,
            "taken_back" if v["to_ply"].as_u64() == Some(prev) => return fen,
            "new_game" => return if prev == 0 { fen } else { None },
            _ => {}
        }
    }
    (prev == 0).then(|| chess_rules::Position::start().fen())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::read_jsonl;
    use crate::select::board_events;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

    fn events() -> String {
        [
            format!(r#"{{"board":"1","kind":"move","ply":1,"uci":"e2e4","san":"e4","fen":"{E4}"}}"#),
            format!(
                r#"{{"board":"1","kind":"illegal_move","ply":2,"category":"piece_movement","attempt":{{"from":"b8","to":"b6","piece":"n"}},"restore_fen":"{E4}"}}"#
            ),
            r#"{"board":"1","kind":"move","ply":2,"uci":"e7e5","san":"e5","fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"}"#.to_owned(),
            r#"{"board":"1","kind":"move","ply":3,"uci":"g1f3","san":"Nf3","fen":"bad fen"}"#.to_owned(),
        ]
        .join("\n")
    }

    #[test]
    fn an_illegal_move_gets_the_position_before_the_attempt_and_the_moves_after() {
        let text = events();
        let lines = read_jsonl("e", text.as_bytes()).0;
        let ev = board_events(&lines, "1", None);
        let mut warnings = Vec::new();
        let p = positions(&ev, 1, &ev, 2, &mut warnings);
        let captions: Vec<&str> = p.iter().map(|p| p.caption.as_str()).collect();
        assert_eq!(
            captions,
            [
                "before ply 2",
                "the illegal move as played: n b8-b6 (piece_movement)",
                "after ply 1: e4",
                "after ply 2: e5"
            ]
        );
        let b6: Square = "b6".parse().unwrap();
        let b8: Square = "b8".parse().unwrap();
        assert_eq!(p[1].placement.get(b6), Piece::from_fen_char('n'));
        assert_eq!(p[1].placement.get(b8), None);
        assert_eq!(p[1].marked, vec![b8, b6]);
        assert_eq!(p[0].placement.get(b8), Piece::from_fen_char('n'));
        assert_eq!(warnings.len(), 1, "the bad FEN: {warnings:?}");
        assert!(warnings[0].contains("after ply 3"));
    }

    #[test]
    fn ply_one_starts_from_the_start_position() {
        let text = events();
        let lines = read_jsonl("e", text.as_bytes()).0;
        let ev = board_events(&lines, "1", None);
        assert_eq!(fen_before(&ev, 0, 1).as_deref(), Some(START));
        assert_eq!(fen_before(&ev, 1, 2).as_deref(), Some(E4));
        assert_eq!(fen_before(&ev, 0, 5), None);
    }
}
