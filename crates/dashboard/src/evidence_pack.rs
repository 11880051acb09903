//! `GET /api/boards/{B}/evidence?ply=N[&around=60s]`: the evidence pack of an incident
//! (issue 40) as one `.tar`, for the button on an alert card, while the daemon runs. The
//! same pack as `dgt-arbiter evidence` writes into a folder (same files, same manifest):
//! the daemon's files read by [`evidence::read`] off the async runtime, built by
//! [`evidence::build`], archived by [`evidence::tar`]. An arbiter route (the token in the
//! header): the pack holds the arbiter's whole record of the span.
//!
//! A torn last line of a file the daemon is writing is in the pack's warnings, never an
//! error. Errors are JSON: 400 a bad query, 404 an unknown board or a ply with no move
//! or ruling (named), 501 on a central (the board's files are on its hall's PC).

use std::sync::Arc;

use ::evidence::read::{BoardFiles, ReadError};
use ::evidence::EvidenceError;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use daemon_config::paths::Paths;

use super::accept::known_board;
use super::api::{error, refused};
use super::Dashboard;

const USAGE: &str = "GET /api/boards/B/evidence?ply=N[&around=60s]";

/// The window either side of the incident when the query gives none (the CLI's default).
const DEFAULT_AROUND_MS: u64 = 60_000;
/// The widest window the route makes (the CLI makes any).
const MAX_AROUND_MS: u64 = 3_600_000;

/// The query's ply and window (ms).
fn evidence_query(query: Option<&str>) -> Result<(u32, u64), String> {
    let mut ply = None;
    let mut around = DEFAULT_AROUND_MS;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("ply", n)) => match n.parse::<u32>() {
                Ok(number) if n.len() <= 6 => ply = Some(number),
                _ => return Err(format!("ply={n:?} is not a ply number: {USAGE}")),
            },
            Some(("around", d)) => {
                around = ::evidence::time::parse_duration_ms(d)
                    .map_err(|why| format!("around={d:?}: {why}"))?;
                if around > MAX_AROUND_MS {
                    return Err(format!(
                        "around={d:?} is over the hour this route takes: use \
                         `dgt-arbiter evidence --around` for a wider window"
                    ));
                }
            }
            _ => return Err(format!("bad query {pair:?}: {USAGE}")),
        }
    }
    let ply = ply.ok_or_else(|| format!("which ply? {USAGE}"))?;
    Ok((ply, around))
}

/// The pack as one archive, and how many files and warnings went in it.
struct Archive {
    bytes: Vec<u8>,
    files: usize,
    warnings: usize,
}

/// Reads board `board`'s files and makes the pack's archive (blocking IO: run it off the
/// async runtime).
fn make_archive(
    paths: &Paths,
    round: u32,
    board: u32,
    ply: u32,
    around_ms: u64,
) -> Result<Archive, (StatusCode, String)> {
    let files = BoardFiles::read(paths, round, board).map_err(|e| match e {
        ReadError::NoEvents(_) => (StatusCode::NOT_FOUND, format!("board {board}: {e}")),
        ReadError::Io { .. } => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    })?;
    let now = wall_clock::unix_ms_now();
    let pack = ::evidence::build(&files.request(ply, around_ms, now)).map_err(|e| {
        let status = match e {
            EvidenceError::NoBoard { .. } | EvidenceError::NoPly { .. } => StatusCode::NOT_FOUND,
            EvidenceError::NoTime { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        };
        (status, e.to_string())
    })?;
    for w in &pack.warnings {
        tracing::warn!(board, ply, "evidence: {w}");
    }
    let bytes = ::evidence::tar::archive(&pack.files, now / 1000)
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(Archive {
        bytes,
        files: pack.files.len(),
        warnings: pack.warnings.len(),
    })
}

pub(super) async fn evidence_route(
    State(d): State<Arc<Dashboard>>,
    headers: HeaderMap,
    Path(board): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    if let Err(r) = d.gate.check_action(&headers) {
        return refused(r);
    }
    let number = match known_board(&d, &board, USAGE) {
        Ok(n) => n,
        Err(r) => return r,
    };
    let (ply, around_ms) = match evidence_query(query.as_deref()) {
        Ok(q) => q,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    // A central follows the board through its hall; the journal and the recordings are on
    // that hall's PC, and the CLI there makes the same pack.
    if d.forwarder.get().is_some() {
        return error(
            StatusCode::NOT_IMPLEMENTED,
            format!(
                "board {number} is followed by its hall's daemon, and its files are on that \
                 hall's PC: run `dgt-arbiter evidence --config HALL.toml --board {number} \
                 --ply {ply} --out DIR` there"
            ),
        );
    }
    let paths = d.paths.clone();
    let round = d.config.event.round;
    let made =
        tokio::task::spawn_blocking(move || make_archive(&paths, round, number, ply, around_ms))
            .await;
    let archive = match made {
        Ok(Ok(a)) => a,
        Ok(Err((status, why))) => return error(status, why),
        Err(e) => {
            tracing::error!(board = number, ply, "evidence: the pack was not made: {e}");
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the evidence pack was not made: {e}"),
            );
        }
    };
    tracing::info!(
        board = number,
        ply,
        files = archive.files,
        warnings = archive.warnings,
        "dashboard: evidence pack downloaded"
    );
    let disposition = format!("attachment; filename=\"board-{number}-ply-{ply}-evidence.tar\"");
    (
        [
            (header::CONTENT_TYPE, "application/x-tar".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        ],
        archive.bytes,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_gives_the_ply_and_the_window() {
        assert_eq!(evidence_query(Some("ply=21")), Ok((21, 60_000)));
        assert_eq!(evidence_query(Some("ply=21&around=90")), Ok((21, 90_000)));
        assert_eq!(evidence_query(Some("around=2m&ply=3")), Ok((3, 120_000)));
        for bad in [
            None,
            Some(""),
            Some("ply="),
            Some("ply=x"),
            Some("ply=-1"),
            Some("ply=12345678"),
            Some("ply=3&around=5days"),
            Some("ply=3&around=2h"),
            Some("ply=3&board=2"),
        ] {
            let why = evidence_query(bad).unwrap_err();
            assert!(!why.is_empty(), "{bad:?}");
        }
    }
}
