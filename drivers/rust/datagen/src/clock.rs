//! Dates in Twitter's `created_at` format, e.g. "Wed Aug 27 13:08:45 +0000 2008".

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Formats milliseconds since the Unix epoch (UTC).
pub fn twitter_date(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let time = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let weekday = (days + 4).rem_euclid(7) as usize; // 1970-01-01 was a Thursday
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} +0000 {}",
        WEEKDAYS[weekday],
        MONTHS[month as usize - 1],
        day,
        time / 3600,
        time % 3600 / 60,
        time % 60,
        year
    )
}

/// (year, month 1–12, day 1–31) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_twitter_api() {
        assert_eq!(
            twitter_date(1_219_842_525_000),
            "Wed Aug 27 13:08:45 +0000 2008"
        );
        assert_eq!(twitter_date(0), "Thu Jan 01 00:00:00 +0000 1970");
        assert_eq!(
            twitter_date(951_782_400_000),
            "Tue Feb 29 00:00:00 +0000 2000"
        );
        assert_eq!(
            twitter_date(1_409_444_953_999),
            "Sun Aug 31 00:29:13 +0000 2014"
        );
    }
}
