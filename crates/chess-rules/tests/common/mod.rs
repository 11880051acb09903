//! Shared helpers for the data-driven suites (the data itself is found by `test_data`).

#![allow(dead_code)]

/// Prints how long a suite took and what it covered (shown with `--nocapture`).
pub fn report(suite: &str, what: &str, started: std::time::Instant) {
    eprintln!("{suite}: {what} in {:.2?}", started.elapsed());
}
