//! Where the workspace's shared test data lives, for tests, benches and examples only.
//!
//! The data (real PGN games, DGT captures, FEN suites; see `shared/data/SOURCES.md`) is
//! third-party and partly GPL/AGPL, so it is never copied into the repository: it is read
//! at run time from `shared/data` beside the workspace root, or from `$DGT_SHARED_DIR/data`.
//! A missing folder is a failure with a clear message, never a silent skip: suites over
//! real data must not pass without it.
//!
//! The crate has no dependencies, so every crate (`chess-rules` included) can use it as a
//! dev-dependency; callers parse what they read with their own types.

use std::path::{Path, PathBuf};

/// The environment variable naming the folder that holds `data/`.
pub const SHARED_DIR_VAR: &str = "DGT_SHARED_DIR";

/// The `data/` folder: `$DGT_SHARED_DIR/data`, or `../shared/data` beside the workspace
/// root.
///
/// # Panics
/// When the folder does not exist, saying where it looked and how to point elsewhere.
pub fn data_dir() -> PathBuf {
    data_dir_in(std::env::var_os(SHARED_DIR_VAR))
}

fn data_dir_in(shared_override: Option<std::ffi::OsString>) -> PathBuf {
    let shared = match shared_override {
        Some(dir) => PathBuf::from(dir),
        // This crate sits at `<workspace>/crates/test-data`.
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let data = shared.join("data");
    assert!(
        data.is_dir(),
        "test data not found at {} (set {SHARED_DIR_VAR} to the folder holding data/)",
        data.display()
    );
    data
}

/// The path of `data/<rel>`.
pub fn path(rel: impl AsRef<Path>) -> PathBuf {
    data_dir().join(rel)
}

/// A capture of the real DGT board of arnsholt/dgtdriver (`data/dgt-captures/arnsholt-dgtdriver/<name>`).
pub fn capture(name: &str) -> PathBuf {
    path("dgt-captures/arnsholt-dgtdriver").join(name)
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

/// Every `.pgn` file below `data/pgn`, in a stable (sorted) order.
///
/// # Panics
/// When the folder cannot be listed or holds fewer than 20 files (the corpus is missing or
/// cut short).
pub fn pgn_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    collect_pgn_files(&path("pgn"), &mut files);
    assert!(
        files.len() >= 20,
        "expected the PGN corpus in {}, found {files:?}",
        path("pgn").display()
    );
    files
}

fn collect_pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
                .path()
        })
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_pgn_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "pgn") {
            out.push(path);
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
        let err = std::panic::catch_unwind(|| pgn_corpus(|_| Err::<Vec<()>, _>("bad bytes")))
            .expect_err("must fail");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.ends_with(".pgn: bad bytes"), "{msg}");
    }

    #[test]
    fn a_missing_folder_fails_and_says_how_to_point_elsewhere() {
        let err = std::panic::catch_unwind(|| data_dir_in(Some("/nonexistent/dgt".into())))
            .expect_err("must fail");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert_eq!(
            msg,
            "test data not found at /nonexistent/dgt/data \
             (set DGT_SHARED_DIR to the folder holding data/)"
        );
    }

    #[test]
    fn finds_a_capture_and_reads_text() {
        assert!(std::fs::metadata(capture("2.dgtcap")).unwrap().len() > 0);
        assert!(read_text("dgt-captures/arnsholt-dgtdriver/2.uci").contains("e2e4"));
    }
}
