//! Fuzzes the daemon's config loader (`arbiter_daemon::Config::parse`) with any text: no
//! panic; each mistake is one message naming the file and a line and column inside the text;
//! an accepted config holds what validation promises (round 1 to 999, boards numbered
//! uniquely in order, timings in range).
#![no_main]

use std::path::Path;

use arbiter_daemon::{Config, ConfigError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::parse(text, Path::new("/fuzz/arbiter.toml")) {
        Ok(c) => {
            assert!((1..=999).contains(&c.event.round));
            assert!(!c.event.name.is_empty());
            assert!(!c.boards.is_empty());
            assert!(c.boards.windows(2).all(|w| w[0].number < w[1].number));
            assert!((10..=5000).contains(&c.timing.settle_window_ms));
            assert!((1..=600_000).contains(&c.penalty_ms));
            for b in &c.boards {
                let _ = c.tracker_config(b);
            }
        }
        Err(e) => {
            for m in e.mistakes() {
                check_mistake(text, m);
            }
        }
    }
});

/// One mistake names the file and a place inside the text.
fn check_mistake(text: &str, e: &ConfigError) {
    match e {
        ConfigError::Invalid {
            path,
            line,
            column,
            message,
        } => {
            let (line, column) = (*line, *column);
            assert_eq!(path, Path::new("/fuzz/arbiter.toml"));
            let lines = text.split('\n').count();
            assert!(
                (1..=lines).contains(&line),
                "line {line} of {lines}: {message}"
            );
            let len = text
                .split('\n')
                .nth(line - 1)
                .map_or(0, |l| l.chars().count());
            assert!(
                (1..=len + 1).contains(&column),
                "column {column} of {len}: {message}"
            );
            assert!(!message.trim().is_empty());
        }
        ConfigError::Several { .. } => panic!("several mistakes inside one: {e}"),
        ConfigError::Read { .. } => panic!("parse does not read files: {e}"),
    }
}
