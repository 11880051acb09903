//! The span of a `.dgtcap` recording (`run --record`, docs/formats.md section 1) that
//! falls in the pack's window: its header kept, so the span replays and decodes as a
//! capture of its own, and only the records and comments of the window after it.

/// What the driver writes in its `timestamps:` header before the Unix ms of its epoch.
const EPOCH_MARK: &str = "unix ms ";

/// The window's part of one recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureSpan {
    /// The recording's file name.
    pub source: String,
    /// The span as a `.dgtcap` file.
    pub text: String,
    /// Records in the span, and their bytes each way.
    pub records: usize,
    pub bytes_from_board: usize,
    pub bytes_to_board: usize,
    /// Unix ms of the recording's epoch (its times are ms since then).
    pub epoch_unix_ms: u64,
}

/// The recording `name` (`text`) cut to the Unix-ms window `[from, to]`: `Ok(None)` when
/// none of its records is in it; `Err` (why) when it cannot be placed in time (no epoch
/// in its header). A malformed line is skipped and reported in `warnings`, as is a torn
/// last line (no newline: the driver writes whole lines, so it was cut).
pub fn span(
    name: &str,
    text: &[u8],
    from: u64,
    to: u64,
    warnings: &mut Vec<String>,
) -> Result<Option<CaptureSpan>, String> {
    let mut header = String::new();
    let mut body = String::new();
    let mut epoch = None;
    let mut in_header = true;
    let (mut records, mut from_board, mut to_board) = (0, 0, 0);
    let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
    for (i, chunk) in lines.iter().enumerate() {
        let number = i + 1;
        if !chunk.ends_with(b"\n") {
            warnings.push(format!(
                "{name}: line {number}: the last line, torn (no newline), skipped"
            ));
            break;
        }
        let Ok(line) = std::str::from_utf8(chunk) else {
            warnings.push(format!("{name}: line {number}: not UTF-8, skipped"));
            continue;
        };
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            if in_header {
                if let Some(ms) = header_epoch(comment) {
                    epoch = Some(ms);
                }
                header.push_str(line);
                header.push('\n');
            } else if let Some(t) = comment_time(comment) {
                // A reconnect's comment line (`# at T ms: ...`), kept when in the window.
                if epoch.is_some_and(|e| (from..=to).contains(&e.saturating_add(t))) {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            continue;
        }
        in_header = false;
        let Some(epoch) = epoch else {
            return Err(format!(
                "{name}: no `timestamps: ... unix ms N` header line, so its times cannot be \
                 placed on the wall clock"
            ));
        };
        match record(line) {
            Ok((t_ms, to_host, n)) => {
                if (from..=to).contains(&epoch.saturating_add(t_ms)) {
                    records += 1;
                    if to_host {
                        from_board += n;
                    } else {
                        to_board += n;
                    }
                    body.push_str(line);
                    body.push('\n');
                }
            }
            Err(why) => warnings.push(format!("{name}: line {number}: {why}, skipped")),
        }
    }
    let Some(epoch_unix_ms) = epoch else {
        return Ok(None);
    };
    if records == 0 {
        return Ok(None);
    }
    header.push_str(&format!(
        "# evidence-span: from {} to {} (unix ms {from}..{to}) of {name}\n",
        crate::time::rfc3339(from),
        crate::time::rfc3339(to)
    ));
    Ok(Some(CaptureSpan {
        source: name.to_owned(),
        text: header + &body,
        records,
        bytes_from_board: from_board,
        bytes_to_board: to_board,
        epoch_unix_ms,
    }))
}

/// The epoch of a `timestamps:` header line (the text after `#`).
fn header_epoch(comment: &str) -> Option<u64> {
    let (key, value) = comment.trim().split_once(':')?;
    if key.trim() != "timestamps" {
        return None;
    }
    let at = value.find(EPOCH_MARK)? + EPOCH_MARK.len();
    let digits: String = value[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The time of a recorder's comment line (`# at T ms: ...`, the text after `#`).
fn comment_time(comment: &str) -> Option<u64> {
    let rest = comment.trim_start().strip_prefix("at ")?;
    let (t, _) = rest.split_once(" ms")?;
    t.parse().ok()
}

/// A record line: its time, whether it is from the board (`<`), and its byte count.
fn record(line: &str) -> Result<(u64, bool, usize), String> {
    let mut parts = line.splitn(3, char::is_whitespace);
    let t = parts.next().unwrap_or_default();
    let t_ms: u64 = t.parse().map_err(|_| format!("bad time {t:?}"))?;
    let to_host = match parts.next() {
        Some("<") => true,
        Some(">") => false,
        other => return Err(format!("bad direction {:?}", other.unwrap_or_default())),
    };
    let hex: String = parts
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if hex.is_empty() || hex.len() % 2 != 0 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err("bad hex bytes".into());
    }
    Ok((t_ms, to_host, hex.len() / 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: &str = "# dgtcap 1\n# board: 1\n# source: dgt-serial --record\n\
        # timestamps: ms since the driver's epoch (unix ms 1000000)\n\
        0 > 40\n5 > 42\n31 < 86 00 43 08\n# at 40 ms: reconnected\n1520 < 8e 00 05 34 00\n\
        9000 < 8e 00 05 24 01\n";

    #[test]
    fn the_window_keeps_the_header_and_its_records_only() {
        let mut warnings = Vec::new();
        let s = span(
            "1-5.dgtcap",
            CAP.as_bytes(),
            1_000_005,
            1_001_520,
            &mut warnings,
        )
        .unwrap()
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(s.records, 3);
        assert_eq!((s.bytes_from_board, s.bytes_to_board), (9, 1));
        assert_eq!(s.epoch_unix_ms, 1_000_000);
        assert!(s.text.starts_with("# dgtcap 1\n# board: 1\n"), "{}", s.text);
        assert!(s
            .text
            .contains("# evidence-span: from 1970-01-01T00:16:40.005Z"));
        let body: Vec<&str> = s.text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            body,
            ["5 > 42", "31 < 86 00 43 08", "1520 < 8e 00 05 34 00"]
        );
        assert!(s.text.contains("# at 40 ms: reconnected"));
    }

    #[test]
    fn outside_the_window_there_is_no_span_and_bad_lines_are_reported() {
        let mut warnings = Vec::new();
        assert_eq!(
            span("c", CAP.as_bytes(), 0, 999_999, &mut warnings),
            Ok(None)
        );
        let bad = format!("{CAP}9100 < zz\n9200 ? 40\n9300 < 8e 00");
        let s = span("c", bad.as_bytes(), 1_009_000, 1_010_000, &mut warnings)
            .unwrap()
            .unwrap();
        assert_eq!(s.records, 1);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].contains("line 11: bad hex"), "{warnings:?}");
        assert!(warnings[1].contains("bad direction"), "{warnings:?}");
        assert!(warnings[2].contains("torn"), "{warnings:?}");
    }

    #[test]
    fn a_recording_without_its_epoch_is_refused_by_name() {
        let err = span(
            "x.dgtcap",
            b"# dgtcap 1\n0 > 40\n",
            0,
            u64::MAX,
            &mut Vec::new(),
        );
        assert!(err.unwrap_err().contains("x.dgtcap"));
    }
}
