//! Wall-clock time for stamps and file names: Unix milliseconds and their UTC calendar
//! form. The trackers never read a clock; only sinks and the journal do.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch now (0 if the system clock is before 1970).
pub fn unix_ms_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The UTC calendar form of Unix ms: (year, month, day, hour, minute, second, ms).
pub fn civil(unix_ms: u64) -> (i64, u32, u32, u32, u32, u32, u32) {
    let secs = (unix_ms / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400) as u32;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        (unix_ms % 1000) as u32,
    )
}

/// RFC 3339 UTC with milliseconds: `2025-06-12T19:03:12.345Z`.
pub fn rfc3339(unix_ms: u64) -> String {
    let (y, mo, d, h, mi, s, ms) = civil(unix_ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 12:34:56.789 UTC (a leap day of a century leap year).
        assert_eq!(rfc3339(951_827_696_789), "2000-02-29T12:34:56.789Z");
        assert_eq!(rfc3339(1_749_755_000_000), "2025-06-12T19:03:20.000Z");
        let (y, m, d, ..) = civil(4_102_444_800_000);
        assert_eq!((y, m, d), (2100, 1, 1));
    }
}
