//! Shared helpers for the data-driven suites: where the third-party test data lives.

#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/data` beside the workspace root, or `$DGT_SHARED_DIR/data`. Panics with a
/// clear message when it is missing: these suites must not silently pass without data.
pub fn data_dir() -> PathBuf {
    let shared = match std::env::var_os("DGT_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let data = shared.join("data");
    assert!(
        data.is_dir(),
        "test data not found at {} (set DGT_SHARED_DIR to the folder holding data/)",
        data.display()
    );
    data
}

/// The bytes of `data/<rel>`.
pub fn read(rel: &str) -> Vec<u8> {
    let path = data_dir().join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The text of `data/<rel>`.
pub fn read_text(rel: &str) -> String {
    String::from_utf8(read(rel)).unwrap_or_else(|e| panic!("{rel} is not UTF-8: {e}"))
}

/// Prints how long a suite took and what it covered (shown with `--nocapture`).
pub fn report(suite: &str, what: &str, started: std::time::Instant) {
    eprintln!("{suite}: {what} in {:.2?}", started.elapsed());
}
