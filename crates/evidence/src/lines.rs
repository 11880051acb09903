//! Reading the daemon's JSON-lines files (`events.jsonl`, a journal) as they are on disk,
//! possibly while the daemon still appends to them: a damaged line is reported and
//! skipped, never fatal.

use serde_json::Value;

/// The framing field the daemon appends to each line (docs/formats.md, section 2).
const CRC_KEY: &[u8] = b",\"crc32\":\"";

/// One good line of a JSON-lines file.
#[derive(Debug, Clone)]
pub struct Line {
    /// 1-based line number in its file.
    pub number: usize,
    /// The line as written (its `crc32` field included), without the newline: the pack
    /// copies it byte for byte so that it can be compared with the daemon's file.
    pub raw: String,
    pub value: Value,
}

/// A line left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub file: String,
    pub line: usize,
    /// Byte offset of the line's start in its file.
    pub offset: usize,
    pub why: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: line {} (byte {}) skipped: {}",
            self.file, self.line, self.offset, self.why
        )
    }
}

/// Every line of `bytes` (the file `name`) that is a JSON object whose checksum, when it
/// has one, is right; the others are listed as skipped. A last line without its newline
/// is kept when it checks out (a running daemon's line whose newline is not written yet
/// reads whole); otherwise it is a torn line.
pub fn read_jsonl(name: &str, bytes: &[u8]) -> (Vec<Line>, Vec<Skipped>) {
    let mut good = Vec::new();
    let mut skipped = Vec::new();
    let mut offset = 0;
    for (i, chunk) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let start = offset;
        offset += chunk.len();
        let complete = chunk.ends_with(b"\n");
        let line = chunk.strip_suffix(b"\n").unwrap_or(chunk);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let torn = if complete {
            ""
        } else {
            " (the last line, torn)"
        };
        match check_line(line) {
            Ok((raw, value)) => good.push(Line {
                number: i + 1,
                raw,
                value,
            }),
            Err(why) => skipped.push(Skipped {
                file: name.to_owned(),
                line: i + 1,
                offset: start,
                why: format!("{why}{torn}"),
            }),
        }
    }
    (good, skipped)
}

/// The line's text and object, or what is wrong with it.
fn check_line(line: &[u8]) -> Result<(String, Value), String> {
    let text = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_owned())?;
    check_crc(line)?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if !value.is_object() {
        return Err("not a JSON object".into());
    }
    Ok((text.to_owned(), value))
}

/// A framed line's checksum (`crash_safe::frame` in the daemon); lines without the field
/// (written before it) pass.
fn check_crc(line: &[u8]) -> Result<(), String> {
    // `,"crc32":"` + 8 hex digits + `"}`.
    let suffix = CRC_KEY.len() + 8 + 2;
    let n = line.len();
    if n < suffix + 1 || !line.ends_with(b"\"}") || &line[n - suffix..n - 10] != CRC_KEY {
        return Ok(());
    }
    let hex = std::str::from_utf8(&line[n - 10..n - 2]).map_err(|_| "a bad crc32")?;
    let want = u32::from_str_radix(hex, 16).map_err(|_| format!("crc32 {hex:?} is not hex"))?;
    let got = crc32fast::hash(&line[..n - suffix]);
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "checksum mismatch (crc32 {want:08x} written, {got:08x} read): a torn or merged line"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line framed as the daemon frames it.
    pub fn framed(object: &str) -> String {
        let body = object.strip_suffix('}').unwrap();
        format!(
            "{body},\"crc32\":\"{:08x}\"}}\n",
            crc32fast::hash(body.as_bytes())
        )
    }

    #[test]
    fn good_lines_are_kept_verbatim_and_a_torn_last_line_is_reported() {
        let a = framed(r#"{"kind":"move","ply":1}"#);
        let b = framed(r#"{"kind":"move","ply":2}"#);
        let torn = &b[..b.len() - 9];
        let text = format!("{a}\n{b}{torn}");
        let (good, skipped) = read_jsonl("events.jsonl", text.as_bytes());
        assert_eq!(good.len(), 2);
        assert_eq!(good[0].raw, a.trim_end());
        assert_eq!(good[1].number, 3);
        assert_eq!(good[1].value["ply"], 2);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].line, 4);
        assert_eq!(skipped[0].offset, a.len() + 1 + b.len());
        assert!(skipped[0].why.contains("torn"), "{}", skipped[0]);
    }

    #[test]
    fn a_wrong_checksum_or_garbage_is_skipped_and_old_unframed_lines_pass() {
        let good = framed(r#"{"kind":"restored","fen":"x"}"#);
        let bad = good.replace("restored", "restorex");
        let text = format!("{bad}{{\"plain\":1}}\n\u{1}\u{2}garbage\n[1,2]\n{good}");
        let (lines, skipped) = read_jsonl("f", text.as_bytes());
        let kept: Vec<usize> = lines.iter().map(|l| l.number).collect();
        assert_eq!(kept, vec![2, 5]);
        let whys: Vec<&str> = skipped.iter().map(|s| s.why.as_str()).collect();
        assert!(whys[0].starts_with("checksum mismatch"), "{whys:?}");
        assert!(whys[1].starts_with("not JSON"), "{whys:?}");
        assert_eq!(whys[2], "not a JSON object");
    }

    #[test]
    fn a_complete_last_line_without_its_newline_is_kept() {
        let a = framed(r#"{"kind":"move","ply":1}"#);
        let (lines, skipped) = read_jsonl("f", a.trim_end().as_bytes());
        assert_eq!(lines.len(), 1);
        assert!(skipped.is_empty());
    }
}
