//! Where the workspace's test data lives, for tests, benches and examples only.
//!
//! Two places, looked up in this order (see `docs/test-data.md`):
//! 1. the repository's own copy, `crates/test-data/data/`: the MIT/CC0 third-party data
//!    (Lichess-database games, chasolver's labelled positions, scalachess perft suites,
//!    a LiveChess capture) and the captures the project records from its own emulator;
//! 2. the shared folder, `$DGT_SHARED_DIR/data`, or `../shared/data` beside the workspace
//!    root: the GPL/AGPL data (arnsholt's DGT captures, python-chess, pychess and
//!    shakmaty games and suites, D3-Chess positions, the lichess Broadcaster folder),
//!    which is never copied into the repository.
//!
//! A suite over shared data starts with `if !test_data::have("...") { return; }`: when
//! the shared folder is absent, [`have`] prints one visible line
//! (`skipped: <test>: needs DGT_SHARED_DIR, see docs/test-data.md (...)`) and the suite
//! returns; with `DGT_REQUIRE_SHARED=1` (set by CI) it fails instead. Nothing is skipped
//! silently.
//!
//! The crate has no dependencies, so every crate (`chess-rules` included) can use it as a
//! dev-dependency; callers parse what they read with their own types.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable naming the folder that holds the shared `data/`.
pub const SHARED_DIR_VAR: &str = "DGT_SHARED_DIR";

/// Set to `1` to make suites that need the shared folder fail instead of skip (CI).
pub const REQUIRE_SHARED_VAR: &str = "DGT_REQUIRE_SHARED";

/// The repository's own copy: `crates/test-data/data`.
pub fn repo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The shared `data/` folder when it exists: `$DGT_SHARED_DIR/data`, else
/// `../shared/data` beside the workspace root.
pub fn shared_dir() -> Option<PathBuf> {
    shared_dir_in(std::env::var_os(SHARED_DIR_VAR))
}

fn shared_dir_in(shared_override: Option<OsString>) -> Option<PathBuf> {
    let shared = match shared_override {
        Some(dir) => PathBuf::from(dir),
        // This crate sits at `<workspace>/crates/test-data`.
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let data = shared.join("data");
    data.is_dir().then_some(data)
}

/// Where `rel` is: the repository's copy first, then the shared folder.
fn find(rel: &Path, shared: Option<&Path>) -> Option<PathBuf> {
    std::iter::once(repo_dir())
        .chain(shared.map(Path::to_path_buf))
        .map(|dir| dir.join(rel))
        .find(|p| p.exists())
}

/// Whether `data/<rel>` (a file or folder) is there, in the repository or the shared
/// folder. When it is not, prints one visible line saying the calling test is skipped and
/// why, and returns `false`; the caller returns at once.
///
/// # Panics
/// When it is not there and `DGT_REQUIRE_SHARED=1`: CI must run every suite.
pub fn have(rel: impl AsRef<Path>) -> bool {
    let rel = rel.as_ref();
    let shared = shared_dir();
    if find(rel, shared.as_deref()).is_some() {
        return true;
    }
    let required = std::env::var_os(REQUIRE_SHARED_VAR).is_some_and(|v| v == "1");
    let why = skip_reason(rel, shared.is_some());
    assert!(!required, "{REQUIRE_SHARED_VAR}=1, but {why}");
    let test = std::thread::current()
        .name()
        .unwrap_or("a suite")
        .to_string();
    // Written to the process's stderr itself, not through `eprintln!`, which the test
    // harness captures and shows only for failing tests: a skip must be seen.
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
    false
}

/// Whether the whole PGN corpus of `data/pgn` is there (it needs the shared folder: most
/// of its games are GPL). Prints and panics as [`have`] does.
pub fn have_pgn_corpus() -> bool {
    have("pgn/pychess-gamefiles")
}

fn skip_reason(rel: &Path, shared_found: bool) -> String {
    if shared_found {
        format!(
            "data/{} is neither in the repository nor in the shared folder",
            rel.display()
        )
    } else {
        format!(
            "needs {SHARED_DIR_VAR}, see docs/test-data.md (data/{})",
            rel.display()
        )
    }
}

/// The path of `data/<rel>`: the repository's copy, else the shared folder's.
///
/// # Panics
/// When it is in neither, saying where it looked and how to point elsewhere.
pub fn path(rel: impl AsRef<Path>) -> PathBuf {
    let rel = rel.as_ref();
    let shared = shared_dir();
    find(rel, shared.as_deref()).unwrap_or_else(|| not_found(rel, shared.as_deref()))
}

fn not_found(rel: &Path, shared: Option<&Path>) -> ! {
    let shared = match shared {
        Some(dir) => dir.display().to_string(),
        None => format!("no shared folder (set {SHARED_DIR_VAR} to the folder holding data/)"),
    };
    panic!(
        "test data {} not found in {} nor in {shared}; see docs/test-data.md",
        rel.display(),
        repo_dir().display()
    )
}

/// A capture of the real DGT board of arnsholt/dgtdriver (`data/dgt-captures/arnsholt-dgtdriver/<name>`,
/// shared folder only: AGPL).
pub fn capture(name: &str) -> PathBuf {
    path(Path::new("dgt-captures/arnsholt-dgtdriver").join(name))
}

/// A capture the project recorded from its own emulator (`data/dgt-captures/emulator/<name>`,
/// in the repository; see the README there for how each was made).
pub fn emulator_capture(name: &str) -> PathBuf {
    path(Path::new("dgt-captures/emulator").join(name))
}

/// The bytes of `data/<rel>`.
///
/// # Panics
/// When the file cannot be read, naming it.
pub fn read(rel: impl AsRef<Path>) -> Vec<u8> {
    let path = path(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The text of `data/<rel>`.
///
/// # Panics
/// When the file cannot be read or is not UTF-8.
pub fn read_text(rel: impl AsRef<Path>) -> String {
    let rel = rel.as_ref();
    String::from_utf8(read(rel)).unwrap_or_else(|e| panic!("{} is not UTF-8: {e}", rel.display()))
}

/// Every `.pgn` file below `data/pgn` of the repository and the shared folder (each
/// relative path once, the repository's copy first), in a stable (sorted) order.
///
/// # Panics
/// When a folder cannot be listed or there are fewer than 20 files (the shared corpus is
/// missing or cut short: check [`have_pgn_corpus`] first).
pub fn pgn_files() -> Vec<PathBuf> {
    let shared = shared_dir();
    let mut rels = Vec::new();
    for root in std::iter::once(repo_dir()).chain(shared.clone()) {
        let pgn = root.join("pgn");
        if pgn.is_dir() {
            collect_pgn_files(&root, &pgn, &mut rels);
        }
    }
    rels.sort();
    rels.dedup();
    let files: Vec<PathBuf> = rels
        .iter()
        .map(|rel| find(rel, shared.as_deref()).unwrap_or_else(|| not_found(rel, None)))
        .collect();
    assert!(
        files.len() >= 20,
        "expected the PGN corpus in data/pgn (the shared folder), found {files:?}"
    );
    files
}

fn collect_pgn_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
                .path()
        });
    for path in entries {
        if path.is_dir() {
            collect_pgn_files(root, &path, out);
        } else if path.extension().is_some_and(|x| x == "pgn") {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
}

/// Every game of the PGN corpus (`data/pgn`), parsed by `parse` (one file's bytes to its
/// games), named `file.pgn#n` (n from 1), in file order.
///
/// # Panics
/// When a file cannot be read or `parse` fails on it, naming the file.
pub fn pgn_corpus<G, E: std::fmt::Display>(
    parse: impl Fn(&[u8]) -> Result<Vec<G>, E>,
) -> Vec<(String, G)> {
    let mut games = Vec::new();
    for path in pgn_files() {
        let bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let parsed = parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        games.extend(
            parsed
                .into_iter()
                .enumerate()
                .map(|(i, g)| (format!("{name}#{}", i + 1), g)),
        );
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_corpus_and_names_games_by_file_and_number() {
        if !have_pgn_corpus() {
            return;
        }
        // Count games as the `[Event` tags at the start of a line: enough to see naming.
        let games = pgn_corpus(|bytes| {
            let text = String::from_utf8_lossy(bytes);
            let n = text.lines().filter(|l| l.starts_with("[Event ")).count();
            Ok::<_, String>((1..=n).collect::<Vec<usize>>())
        });
        assert!(games.len() > 1000, "only {} games", games.len());
        for (name, n) in &games {
            assert!(name.ends_with(&format!(".pgn#{n}")), "{name} for game {n}");
        }
    }

    #[test]
    fn a_parse_error_names_the_file() {
        if !have_pgn_corpus() {
            return;
        }
        let err = std::panic::catch_unwind(|| pgn_corpus(|_| Err::<Vec<()>, _>("bad bytes")))
            .expect_err("must fail");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.ends_with(".pgn: bad bytes"), "{msg}");
    }

    #[test]
    fn a_missing_shared_folder_is_none_and_the_message_says_how_to_point_elsewhere() {
        assert_eq!(shared_dir_in(Some("/nonexistent/dgt".into())), None);
        let err =
            std::panic::catch_unwind(|| not_found(Path::new("perft/shakmaty-tricky.perft"), None))
                .expect_err("must fail");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            msg.starts_with("test data perft/shakmaty-tricky.perft not found in "),
            "{msg}"
        );
        assert!(
            msg.ends_with(
                "nor in no shared folder (set DGT_SHARED_DIR to the folder holding data/); \
                 see docs/test-data.md"
            ),
            "{msg}"
        );
        assert_eq!(
            skip_reason(Path::new("pgn/python-chess"), false),
            "needs DGT_SHARED_DIR, see docs/test-data.md (data/pgn/python-chess)"
        );
    }

    #[test]
    fn the_repository_copy_is_found_without_the_shared_folder() {
        // These are in the repository: found even when no shared folder is given.
        for rel in [
            "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn",
            "perft/scalachess-tricky.perft",
            "perft/scalachess-random.perft",
            "unwinnable/chasolver-positions.txt",
            "unwinnable/chasolver-lichess-1in16.txt",
            "dgt-captures/andrescavallin-lichess-dgt-boards/BoardWebSocket-LiveChess-DGT.txt",
        ] {
            let found = find(Path::new(rel), None).unwrap_or_else(|| panic!("{rel} missing"));
            assert!(found.starts_with(repo_dir()), "{}", found.display());
        }
        // GPL/AGPL data is never in the repository.
        for rel in [
            "dgt-captures/arnsholt-dgtdriver",
            "pgn/python-chess",
            "pgn/pychess-gamefiles",
            "pgn/lichess-broadcaster",
            "pgn/shakmaty-pgn-reader-benches/twic1599_1000k.pgn",
            "perft/shakmaty-tricky.perft",
            "unwinnable/cha-test-vector.txt",
        ] {
            assert_eq!(
                find(Path::new(rel), None),
                None,
                "{rel} is in the repository"
            );
        }
    }

    #[test]
    fn the_copies_in_the_repository_equal_the_shared_originals() {
        let Some(shared) = shared_dir() else {
            let _ = have("unwinnable/chasolver-lichess.txt");
            return;
        };
        for rel in [
            "pgn/shakmaty-pgn-reader-benches/lichess_db_1000k.pgn",
            "perft/scalachess-tricky.perft",
            "perft/scalachess-random.perft",
            "unwinnable/chasolver-positions.txt",
            "dgt-captures/andrescavallin-lichess-dgt-boards/BoardWebSocket-LiveChess-DGT.txt",
        ] {
            let ours = std::fs::read(repo_dir().join(rel)).unwrap();
            let theirs = std::fs::read(shared.join(rel)).unwrap();
            assert!(ours == theirs, "{rel} differs from the shared original");
        }
        // The 1-in-16 sample: exactly every 16th position of the original, in order.
        let positions = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect()
        };
        let full = positions(
            &std::fs::read_to_string(shared.join("unwinnable/chasolver-lichess.txt")).unwrap(),
        );
        let sample = positions(
            &std::fs::read_to_string(repo_dir().join("unwinnable/chasolver-lichess-1in16.txt"))
                .unwrap(),
        );
        let expected: Vec<String> = full.into_iter().step_by(16).collect();
        assert_eq!(sample, expected);
    }

    #[test]
    fn finds_a_capture_and_reads_text() {
        if !have("dgt-captures/arnsholt-dgtdriver") {
            return;
        }
        assert!(std::fs::metadata(capture("2.dgtcap")).unwrap().len() > 0);
        assert!(read_text("dgt-captures/arnsholt-dgtdriver/2.uci").contains("e2e4"));
    }
}
