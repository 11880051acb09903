//! Wall-clock times as the daemon writes them: Unix milliseconds and RFC 3339 UTC
//! (`2025-06-12T19:03:12.345Z`, the events' `at`). Written by `wall-clock`; read back here.

/// Unix ms of an RFC 3339 UTC time `YYYY-MM-DDTHH:MM:SS[.fff]Z`; `None` for anything else
/// (the daemon writes only that form).
pub fn parse_rfc3339(s: &str) -> Option<u64> {
    let s = s.strip_suffix('Z').or_else(|| s.strip_suffix("+00:00"))?;
    let (date, time) = s.split_once(['T', 't'])?;
    let mut d = date.splitn(3, '-');
    let year = d.next()?;
    // Four digits, as the daemon writes them (and no overflow below).
    if year.len() != 4 {
        return None;
    }
    let year: i64 = year.parse().ok()?;
    let month: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut t = hms.splitn(3, ':');
    let hour: u64 = t.next()?.parse().ok()?;
    let minute: u64 = t.next()?.parse().ok()?;
    let second: u64 = t.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Milliseconds: the first three digits of the fraction.
    let ms = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0'));
    let days = days_from_civil(year, month, day);
    let secs = days.checked_mul(86_400)? + (hour * 3600 + minute * 60 + second) as i64;
    u64::try_from(secs).ok()?.checked_mul(1000)?.checked_add(ms)
}

/// RFC 3339 UTC with milliseconds, as the daemon writes `at` (the daemon's own formatter).
pub use wall_clock::rfc3339;

/// Howard Hinnant's days-from-civil: days since 1970-01-01.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Milliseconds of a window's width as the arbiter gives it: `60s`, `2m`, `1500ms`, `90`
/// (a bare number is seconds); the error says what is wrong.
pub fn parse_duration_ms(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (such as 60s, 2m, 1500ms)"))?;
    let scale = match unit.trim() {
        "" | "s" => 1000,
        "ms" => 1,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        other => return Err(format!("unit {other:?} of {s:?}: use ms, s, m or h")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("{s:?} is too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_daemons_times_read_back_and_forth() {
        for ms in [0, 951_827_696_789, 1_749_755_000_000, 4_102_444_800_123] {
            assert_eq!(parse_rfc3339(&rfc3339(ms)), Some(ms), "{}", rfc3339(ms));
        }
        assert_eq!(rfc3339(1_749_755_000_000), "2025-06-12T19:03:20.000Z");
        assert_eq!(
            parse_rfc3339("2000-02-29T12:34:56.7Z"),
            Some(951_827_696_700)
        );
        assert_eq!(
            parse_rfc3339("2025-06-12T19:03:20Z"),
            Some(1_749_755_000_000)
        );
    }

    #[test]
    fn other_forms_are_refused() {
        for bad in [
            "",
            "2025-06-12 19:03:20",
            "2025-13-12T19:03:20Z",
            "2025-06-12T25:03:20Z",
            "2025-06-12T19:03:20.x1Z",
            "yesterday",
            "99999999999999999-01-01T00:00:00Z",
            "+999-01-01T00:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn durations_read_with_their_units() {
        assert_eq!(parse_duration_ms("60s"), Ok(60_000));
        assert_eq!(parse_duration_ms("90"), Ok(90_000));
        assert_eq!(parse_duration_ms("2m"), Ok(120_000));
        assert_eq!(parse_duration_ms("1500ms"), Ok(1500));
        assert!(parse_duration_ms("s").is_err());
        assert!(parse_duration_ms("5 days").unwrap_err().contains("days"));
        assert!(parse_duration_ms("99999999999999999999h").is_err());
    }
}
