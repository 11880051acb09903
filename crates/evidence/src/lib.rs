//! The arbiter's evidence pack (issue 40): everything the daemon recorded around one ply
//! of one board, as a folder a person can read and anyone can check. This crate owns the
//! pure part: choosing the span (the ruling or move at the ply and a window of wall-clock
//! time around it), and building each file's contents: the events and the touch log of
//! the span, the clock readings, the journal's records and the raw serial bytes of the
//! span, the ruling with the arbiter's decisions, an SVG diagram of each position around
//! the ply, the page `index.html`, and `manifest.json` with every file's SHA-256 and the
//! times in UTC with the clock they come from. It takes the daemon's files' contents in
//! and gives the pack's files out, or the pack as one archive ([`tar`]). Reading the
//! daemon's files is [`read`]'s alone, shared by `dgt-arbiter evidence` (which writes the
//! pack into a folder) and the dashboard's evidence route (which answers the archive).
//!
//! A damaged line in an input (a torn last line of a running daemon's file, a checksum
//! that does not match) is skipped and reported in [`Pack::warnings`] and in the
//! manifest, never fatal; a board or ply that is not in the events is an
//! [`EvidenceError`] naming what is missing.

pub mod capture;
mod files;
mod html;
pub mod lines;
pub mod positions;
pub mod read;
pub mod select;
pub mod svg;
pub mod tar;
pub mod time;

use sha2::{Digest, Sha256};

/// Where the pack's times come from, as the manifest and the page say it.
pub const CLOCK_SOURCE: &str = "the system clock of the computer running the daemon, in UTC, \
    as the daemon wrote it: events' `at`; the journal's `epoch_unix_ms` + `t_ms`; a \
    recording's `timestamps:` header (unix ms of its epoch) + the record's ms. Line video \
    up with these by that computer's clock (its offset from the camera's, if known)";

/// One input file: its name (for messages and the manifest) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// What to build the pack from.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The board's name as the events say it (`"1"`).
    pub board: &'a str,
    /// Only events of this round, where the events say their round.
    pub round: Option<u32>,
    pub ply: u32,
    /// The window is the anchor's time +- this.
    pub around_ms: u64,
    /// `events.jsonl`.
    pub events: Input<'a>,
    /// The board's journal for the round, if there is one.
    pub journal: Option<Input<'a>>,
    /// The board's `.dgtcap` recordings (`run --record`); those without a record in the
    /// window are left out.
    pub recordings: Vec<Input<'a>>,
    /// When the pack is made (Unix ms), for the manifest.
    pub generated_unix_ms: u64,
}

/// One file of the pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackFile {
    /// File name in the pack's folder.
    pub name: String,
    /// What it holds, in a few words (manifest and page).
    pub what: String,
    pub bytes: Vec<u8>,
}

impl PackFile {
    fn new(name: impl Into<String>, what: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        PackFile {
            name: name.into(),
            what: what.into(),
            bytes: bytes.into(),
        }
    }
}

/// The pack: its files, `manifest.json` last, and what was skipped on the way.
#[derive(Debug, Clone)]
pub struct Pack {
    pub files: Vec<PackFile>,
    pub warnings: Vec<String>,
}

/// What cannot be made into a pack.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvidenceError {
    #[error("board {board} has no events{} in {file} ({seen})", round.map_or(String::new(), |r| format!(" of round {r}")))]
    NoBoard {
        board: String,
        round: Option<u32>,
        file: String,
        seen: String,
    },
    #[error("board {board} has no move or ruling at ply {ply} in {file} ({plies})")]
    NoPly {
        board: String,
        ply: u32,
        file: String,
        plies: String,
    },
    #[error(
        "board {board}, ply {ply}: the event on line {line} of {file} has no readable `at` time"
    )]
    NoTime {
        board: String,
        ply: u32,
        file: String,
        line: usize,
    },
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Builds the pack.
pub fn build(req: &Request) -> Result<Pack, EvidenceError> {
    let mut warnings = Vec::new();
    let (lines, skipped) = lines::read_jsonl(req.events.name, req.events.bytes);
    warnings.extend(skipped.iter().map(ToString::to_string));
    let events = select::board_events(&lines, req.board, req.round);
    if events.is_empty() {
        let mut seen: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.value["board"].as_str())
            .collect();
        seen.sort_unstable_by_key(|b| (b.parse::<u64>().unwrap_or(u64::MAX), *b));
        seen.dedup();
        return Err(EvidenceError::NoBoard {
            board: req.board.to_owned(),
            round: req.round,
            file: req.events.name.to_owned(),
            seen: if seen.is_empty() {
                "it holds no board's events".to_owned()
            } else {
                format!("boards in it: {}", seen.join(", "))
            },
        });
    }
    let anchor = select::anchor(&events, req.board, req.ply, req.events.name)?;
    // `anchor` checked that it has a time.
    let at = events[anchor].at.unwrap_or_default();
    let window = files::Window {
        from: at.saturating_sub(req.around_ms),
        to: at.saturating_add(req.around_ms),
        at,
    };
    let in_window = select::in_window(&events, req.ply, window.from, window.to);
    let mut out = files::data_files(req, &events, anchor, &in_window, &window, &mut warnings);
    let diagrams = positions::positions(&events, anchor, &in_window, req.ply, &mut warnings);
    let mut figures = Vec::new();
    for (i, p) in diagrams.iter().enumerate() {
        let name = format!("position-{:02}.svg", i + 1);
        let svg = svg::diagram(&p.placement, &p.marked, &p.caption);
        figures.push((name.clone(), p.caption.clone(), p.fen.clone()));
        out.push(PackFile::new(name, format!("diagram: {}", p.caption), svg));
    }
    let page = html::page(&html::PageInput {
        req,
        anchor: &events[anchor],
        window: &window,
        events: &in_window,
        figures: &figures,
        files: &out,
        warnings: &warnings,
    });
    out.push(PackFile::new(
        "index.html",
        "the page to read the incident",
        page,
    ));
    let manifest = files::manifest(req, &events[anchor], &window, &figures, &out, &warnings);
    out.push(PackFile::new("manifest.json", "this list", manifest));
    Ok(Pack {
        files: out,
        warnings,
    })
}

#[cfg(test)]
mod tests;
