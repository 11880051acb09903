//! Wall-clock times as the daemon writes them: Unix milliseconds and RFC 3339 UTC
//! (`2025-06-12T19:03:12.345Z`, the events' `at`).

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

/// RFC 3339 UTC with milliseconds, as the daemon writes `at`.
pub fn rfc3339(unix_ms: u64) -> String {
    let secs = (unix_ms / 1000) as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        unix_ms % 1000
    )
}

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

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
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
}
