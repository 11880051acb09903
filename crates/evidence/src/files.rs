//! The pack's data files (events, ruling, touches, clocks, journal, capture spans) and
//! its manifest.

use serde_json::{json, Value};

use crate::lines::read_jsonl;
use crate::select::{Event, DECISION_KINDS};
use crate::time::rfc3339;
use crate::{capture, sha256_hex, PackFile, Request, CLOCK_SOURCE};

/// The pack's span of wall-clock time (Unix ms): the anchor's time, and the window.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub at: u64,
    pub from: u64,
    pub to: u64,
}

impl Window {
    fn holds(&self, t: u64) -> bool {
        (self.from..=self.to).contains(&t)
    }
}

/// JSON lines, one a value.
fn jsonl(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

/// Every data file of the pack.
pub fn data_files(
    req: &Request,
    events: &[Event],
    anchor: usize,
    window_events: &[Event],
    window: &Window,
    warnings: &mut Vec<String>,
) -> Vec<PackFile> {
    let mut out = Vec::new();
    let raw: String = window_events
        .iter()
        .map(|e| format!("{}\n", e.line.raw))
        .collect();
    out.push(PackFile::new(
        "events.jsonl",
        "the board's events in the window, and those at the ply: the daemon's lines, byte for byte",
        raw,
    ));
    out.push(PackFile::new(
        "ruling.json",
        "the ruling (or move) at the ply, the events at the ply, and the arbiter's decisions",
        ruling(events, anchor, window_events, req.ply),
    ));
    out.push(PackFile::new(
        "touches.jsonl",
        "the touch log: every lift and placement of the moves in the window, with wall-clock times",
        jsonl(&touches(window_events, warnings)),
    ));
    let mut clocks = event_clocks(window_events);
    if let Some(journal) = &req.journal {
        let (records, clock_frames) = journal_span(journal, window, warnings);
        clocks.extend(clock_frames);
        out.push(PackFile::new(
            "journal.jsonl",
            "the journal's header and its records (the board's inputs) in the window, byte for byte",
            records,
        ));
    } else {
        warnings.push(format!("board {}: no journal for the round", req.board));
    }
    clocks.sort_by_key(|c| c["at_unix_ms"].as_u64().unwrap_or(0));
    out.push(PackFile::new(
        "clocks.jsonl",
        "the clock readings: at each move and ruling, and every clock frame the journal holds",
        jsonl(&clocks),
    ));
    for rec in &req.recordings {
        match capture::span(rec.name, rec.bytes, window.from, window.to, warnings) {
            Ok(Some(span)) => {
                let stem = rec.name.rsplit('/').next().unwrap_or(rec.name);
                let stem = stem.strip_suffix(".dgtcap").unwrap_or(stem);
                out.push(PackFile::new(
                    format!("capture-{stem}.dgtcap"),
                    format!(
                        "the raw serial bytes of the window from {} ({} records, {} bytes from the board, {} to it)",
                        span.source, span.records, span.bytes_from_board, span.bytes_to_board
                    ),
                    span.text,
                ));
            }
            Ok(None) => {}
            Err(why) => warnings.push(why),
        }
    }
    if !out.iter().any(|f| f.name.ends_with(".dgtcap")) {
        warnings.push(format!(
            "no serial bytes of the window: {}",
            if req.recordings.is_empty() {
                "the board was not recorded (`run --record`)"
            } else {
                "no recording of the board covers it"
            }
        ));
    }
    out
}

/// `ruling.json`: the anchor, every event at the ply, what followed the ruling (the board
/// restored, the game's end) and the arbiter's decisions in the window or about the ply.
fn ruling(events: &[Event], anchor: usize, window: &[Event], ply: u32) -> Vec<u8> {
    let a = &events[anchor];
    let at_ply: Vec<&Value> = window
        .iter()
        .filter(|e| e.ply() == Some(u64::from(ply)))
        .map(Event::value)
        .collect();
    let after: Vec<&Value> = events[anchor + 1..]
        .iter()
        .filter(|e| matches!(e.kind(), "restored" | "game_over" | "illegal_move_stands"))
        .filter(|e| window.iter().any(|w| w.line.number == e.line.number))
        .map(Event::value)
        .collect();
    let decisions: Vec<&Value> = window
        .iter()
        .filter(|e| DECISION_KINDS.contains(&e.kind()))
        .map(Event::value)
        .collect();
    let v = json!({
        "board": a.value()["board"],
        "ply": ply,
        "about": a.kind(),
        "ruling": a.value(),
        "at_ply": at_ply,
        "followed_by": after,
        "arbiter_decisions": decisions,
    });
    serde_json::to_vec_pretty(&v).unwrap_or_default()
}

/// The touch log of the window's moves, one line a lift or placement.
fn touches(window: &[Event], warnings: &mut Vec<String>) -> Vec<Value> {
    #[derive(serde::Deserialize)]
    struct Touch {
        t_ms: u64,
        square: chess_rules::Square,
        piece: chess_rules::Piece,
        action: String,
    }
    let mut out = Vec::new();
    for e in window.iter().filter(|e| e.kind() == "move") {
        let v = e.value();
        // The event's wall-clock time less its `t_ms`: the epoch its touches count from.
        let epoch =
            e.at.zip(v["t_ms"].as_u64())
                .map(|(a, t)| a.saturating_sub(t));
        for t in v["touches"].as_array().into_iter().flatten() {
            match serde_json::from_value::<Touch>(t.clone()) {
                Ok(t) => out.push(json!({
                    "ply": v["ply"],
                    "san": v["san"],
                    "color": v["color"],
                    "t_ms": t.t_ms,
                    "at": epoch.map(|ep| rfc3339(ep.saturating_add(t.t_ms))),
                    "square": t.square.to_string(),
                    "piece": t.piece.fen_char().to_string(),
                    "action": t.action,
                })),
                Err(err) => warnings.push(format!(
                    "events line {}: a touch that does not read ({err}): {t}",
                    e.line.number
                )),
            }
        }
    }
    out
}

/// The clocks as the window's events state them (moves, rulings, decisions).
fn event_clocks(window: &[Event]) -> Vec<Value> {
    let mut out = Vec::new();
    for e in window {
        let v = e.value();
        for field in ["clock_ms", "clock_before", "clock_after"] {
            if v[field].is_object() {
                out.push(json!({
                    "at": v["at"],
                    "at_unix_ms": e.at,
                    "source": "events",
                    "kind": e.kind(),
                    "ply": v["ply"],
                    "reading": field,
                    "white_ms": v[field]["white"],
                    "black_ms": v[field]["black"],
                }));
            }
        }
    }
    out
}

/// The journal's header and records in the window (verbatim), and its clock frames as
/// clock readings.
fn journal_span(
    journal: &crate::Input,
    window: &Window,
    warnings: &mut Vec<String>,
) -> (String, Vec<Value>) {
    let (lines, skipped) = read_jsonl(journal.name, journal.bytes);
    warnings.extend(skipped.iter().map(ToString::to_string));
    let Some(header) = lines.first().filter(|l| l.value["journal"].is_number()) else {
        warnings.push(format!(
            "{}: no header line, so no time for its records",
            journal.name
        ));
        return (String::new(), Vec::new());
    };
    let epoch = header.value["epoch_unix_ms"].as_u64().unwrap_or(0);
    let mut text = format!("{}\n", header.raw);
    let mut clocks = Vec::new();
    for l in &lines[1..] {
        // A record is `{"<variant>": {..., "t_ms": T}, "crc32": ...}` (`Record` in the
        // daemon): its one object value.
        let body = l
            .value
            .as_object()
            .and_then(|o| o.values().find(|v| v.is_object()));
        let Some(t) = body.and_then(|b| b["t_ms"].as_u64()) else {
            continue;
        };
        // Times from the file: no overflow on a damaged one.
        let wall = epoch.saturating_add(t);
        if !window.holds(wall) {
            continue;
        }
        text.push_str(&l.raw);
        text.push('\n');
        let inner = &l.value["event"]["event"];
        if inner["kind"] == "clock" {
            clocks.push(json!({
                "at": rfc3339(wall),
                "at_unix_ms": wall,
                "source": "journal",
                "t_ms": t,
                "frame": inner,
            }));
        }
    }
    (text, clocks)
}

/// `manifest.json`: every other file with its size and SHA-256, and the times.
pub fn manifest(
    req: &Request,
    anchor: &Event,
    window: &Window,
    figures: &[(String, String, String)],
    files: &[PackFile],
    warnings: &[String],
) -> Vec<u8> {
    let list: Vec<Value> = files
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "bytes": f.bytes.len(),
                "sha256": sha256_hex(&f.bytes),
                "what": f.what,
            })
        })
        .collect();
    let positions: Vec<Value> = figures
        .iter()
        .map(|(file, caption, fen)| json!({"file": file, "caption": caption, "fen": fen}))
        .collect();
    let v = json!({
        "evidence": 1,
        "board": req.board,
        "round": req.round,
        "ply": req.ply,
        "about": {
            "kind": anchor.kind(),
            "seq": anchor.value()["seq"],
            "line": anchor.line.number,
            "at": rfc3339(window.at),
        },
        "times": {
            "zone": "UTC",
            "clock_source": CLOCK_SOURCE,
            "at": rfc3339(window.at),
            "window_from": rfc3339(window.from),
            "window_to": rfc3339(window.to),
            "around_ms": req.around_ms,
            "generated_at": rfc3339(req.generated_unix_ms),
        },
        "inputs": {
            "events": req.events.name,
            "journal": req.journal.as_ref().map(|j| j.name),
            "recordings": req.recordings.iter().map(|r| r.name).collect::<Vec<_>>(),
        },
        "files": list,
        "positions": positions,
        "warnings": warnings,
    });
    serde_json::to_vec_pretty(&v).unwrap_or_default()
}
