//! `index.html`: the incident for a person to read, in one self-contained page (no
//! scripts, no outside resources): what was ruled, the timeline of the window, the
//! diagrams inline, and the pack's files.

use serde_json::Value;

use crate::files::Window;
use crate::select::Event;
use crate::svg::escape;
use crate::time::rfc3339;
use crate::{PackFile, Request, CLOCK_SOURCE};

/// What the page is made of.
pub struct PageInput<'a> {
    pub req: &'a Request<'a>,
    pub anchor: &'a Event<'a>,
    pub window: &'a Window,
    pub events: &'a [Event<'a>],
    /// (file, caption, FEN) of each diagram.
    pub figures: &'a [(String, String, String)],
    /// The pack's files so far (data and diagrams).
    pub files: &'a [PackFile],
    pub warnings: &'a [String],
}

/// The page.
pub fn page(p: &PageInput) -> String {
    let req = p.req;
    let a = p.anchor.value();
    let title = format!(
        "Board {}, ply {}: {}",
        req.board,
        req.ply,
        a["kind"].as_str().unwrap_or("?")
    );
    let mut h = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{t}</title>\n<style>\nbody{{font-family:sans-serif;margin:2em;max-width:70em}}\n\
         table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.2em .5em;\
         text-align:left;vertical-align:top}}\ntr.anchor{{background:#fde2e2}}\n\
         figure{{display:inline-block;margin:.5em}}\ncode{{word-break:break-all}}\n</style>\n\
         </head>\n<body>\n<h1>{t}</h1>\n",
        t = escape(&title)
    );
    h.push_str(&format!(
        "<p>Round {}, board {}. At <strong>{}</strong> UTC. Window {} to {} UTC \
         (&plusmn;{} s).</p>\n<p><small>Times: {}.</small></p>\n",
        req.round.map_or("?".to_owned(), |r| r.to_string()),
        escape(req.board),
        rfc3339(p.window.at),
        rfc3339(p.window.from),
        rfc3339(p.window.to),
        req.around_ms / 1000,
        escape(CLOCK_SOURCE),
    ));
    h.push_str("<h2>The ruling</h2>\n");
    h.push_str(&ruling_text(a));
    h.push_str(&format!(
        "<details><summary>as recorded</summary><pre>{}</pre></details>\n",
        escape(&serde_json::to_string_pretty(a).unwrap_or_default())
    ));
    h.push_str("<h2>Positions</h2>\n");
    for (file, caption, fen) in p.figures {
        let svg = p
            .files
            .iter()
            .find(|f| &f.name == file)
            .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
            .unwrap_or_default();
        h.push_str(&format!(
            "<figure>{svg}<figcaption><a href=\"{f}\">{c}</a><br><code>{fen}</code>\
             </figcaption></figure>\n",
            f = escape(file),
            c = escape(caption),
            fen = escape(fen),
        ));
    }
    h.push_str(&timeline(p.events, p.anchor.line.number));
    h.push_str("<h2>Files</h2>\n<ul>\n");
    for f in p.files {
        h.push_str(&format!(
            "<li><a href=\"{n}\">{n}</a>: {w}</li>\n",
            n = escape(&f.name),
            w = escape(&f.what)
        ));
    }
    h.push_str(
        "<li><a href=\"manifest.json\">manifest.json</a>: every file's SHA-256 and the \
         times</li>\n</ul>\n",
    );
    if !p.warnings.is_empty() {
        h.push_str("<h2>Left out</h2>\n<ul>\n");
        for w in p.warnings {
            h.push_str(&format!("<li>{}</li>\n", escape(w)));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// The ruling in a few lines: who, what, the penalty or result, the arbiter's words.
fn ruling_text(a: &Value) -> String {
    let mut rows = Vec::new();
    for (label, key) in [
        ("kind", "kind"),
        ("player", "color"),
        ("category", "category"),
        ("count", "count"),
        ("result", "result"),
        ("explanation", "explanation"),
        ("decision", "decision"),
        ("reason", "reason"),
        ("must move", "must_move"),
        ("restore to", "restore_fen"),
        ("move", "san"),
    ] {
        if let Some(v) = text(&a[key]) {
            rows.push(format!("<tr><th>{label}</th><td>{}</td></tr>", escape(&v)));
        }
    }
    if let Some(pen) = a["penalty"].as_object() {
        rows.push(format!(
            "<tr><th>penalty</th><td>{} s added to {}</td></tr>",
            pen.get("add_ms").and_then(Value::as_u64).unwrap_or(0) / 1000,
            escape(pen.get("to").and_then(Value::as_str).unwrap_or("?"))
        ));
    }
    if let Some(att) = a["attempt"].as_object() {
        let s = |k: &str| att.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
        rows.push(format!(
            "<tr><th>attempt</th><td>{} {}-{}</td></tr>",
            escape(&s("piece")),
            escape(&s("from")),
            escape(&s("to"))
        ));
    }
    format!("<table>\n{}\n</table>\n", rows.join("\n"))
}

/// A JSON scalar as text; `None` for null, arrays and objects.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The window's events in a table, the anchor's row marked.
fn timeline(events: &[Event], anchor_line: usize) -> String {
    let mut h = String::from(
        "<h2>Timeline</h2>\n<table>\n<tr><th>time (UTC)</th><th>seq</th><th>kind</th>\
         <th>ply</th><th>what</th></tr>\n",
    );
    for e in events {
        let v = e.value();
        let what = [
            "san",
            "category",
            "status",
            "reason",
            "decision",
            "explanation",
            "fen",
        ]
        .iter()
        .find_map(|k| text(&v[*k]))
        .unwrap_or_default();
        let class = if e.line.number == anchor_line {
            " class=\"anchor\""
        } else {
            ""
        };
        h.push_str(&format!(
            "<tr{class}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            e.at.map(rfc3339).unwrap_or_default(),
            text(&v["seq"]).unwrap_or_default(),
            escape(e.kind()),
            text(&v["ply"]).unwrap_or_default(),
            escape(&what),
        ));
    }
    h.push_str("</table>\n");
    h
}
