//! Simple Time instants as `xsd:dateTime`.
//!
//! An absolute Simple Time counts its unit from the Unix epoch; the instant is written
//! in UTC to the nanosecond (finer digits are cut), for years 0001 to 9999. Relative
//! times have no calendar instant: they are kept as offset and unit only.

use crate::history::{TimeFlags, TimeSegment};
use crate::number::JsonDecimal;
use serde_json::Number;

/// Seconds from the Unix epoch to 0001-01-01T00:00:00Z and to 10000-01-01T00:00:00Z.
const FIRST_SECOND: i64 = -62_135_596_800;
const END_SECOND: i64 = 253_402_300_800;

/// The `xsd:dateTime` lexical form of an absolute Simple Time value, if representable.
///
/// ```
/// use ihigraph::{absolute_date_time, TimeFlags};
/// let flags = TimeFlags::from_byte(3); // absolute, milliseconds
/// let instant = serde_json::Number::from(1_767_254_400_250_u64);
/// assert_eq!(absolute_date_time(&instant, flags).as_deref(), Some("2026-01-01T08:00:00.25Z"));
/// ```
pub fn absolute_date_time(value: &Number, flags: TimeFlags) -> Option<String> {
    if !flags.absolute {
        return None;
    }
    let seconds = JsonDecimal::parse(value.as_str())?.scaled(-flags.unit.digits_below_second());
    let (whole_seconds, fraction) = seconds.floor_and_fraction(9)?;
    if !(FIRST_SECOND..END_SECOND).contains(&whole_seconds) {
        return None;
    }
    let days = whole_seconds.div_euclid(86_400);
    let second_of_day = whole_seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let mut text = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    );
    if !fraction.is_empty() {
        text.push('.');
        text.push_str(&fraction);
    }
    text.push('Z');
    Some(text)
}

/// The instant a segment starts at, if it is absolute and representable.
pub fn segment_start(segment: &TimeSegment) -> Option<String> {
    absolute_date_time(&segment.start_time, segment.flags()?)
}

/// Proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = u32::try_from(day_of_year - (153 * shifted_month + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    })
    .unwrap_or(1);
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    fn number(text: &str) -> Number {
        serde_json::from_str(text).expect("test numbers are JSON")
    }

    #[test_case("0", 1, "1970-01-01T00:00:00Z"; "epoch in seconds")]
    #[test_case("1767254400000", 3, "2026-01-01T08:00:00Z"; "milliseconds")]
    #[test_case("1767254400000000", 5, "2026-01-01T08:00:00Z"; "microseconds")]
    #[test_case("1767254400000000001", 7, "2026-01-01T08:00:00.000000001Z"; "nanoseconds")]
    #[test_case("951782400", 1, "2000-02-29T00:00:00Z"; "leap day")]
    #[test_case("-1.5", 1, "1969-12-31T23:59:58.5Z"; "before the epoch")]
    #[test_case("1.7672544e9", 1, "2026-01-01T08:00:00Z"; "exponent")]
    #[test_case("253402300799", 1, "9999-12-31T23:59:59Z"; "last second")]
    #[test_case("-62135596800", 1, "0001-01-01T00:00:00Z"; "first second")]
    fn absolute_instants(value: &str, flags: u8, expected: &str) {
        assert_eq!(
            absolute_date_time(&number(value), TimeFlags::from_byte(flags)).as_deref(),
            Some(expected)
        );
    }

    #[test_case("253402300800", 1; "year ten thousand")]
    #[test_case("1e30", 1; "far beyond")]
    #[test_case("1767254400000", 2; "relative")]
    fn no_instant(value: &str, flags: u8) {
        assert_eq!(
            absolute_date_time(&number(value), TimeFlags::from_byte(flags)),
            None
        );
    }
}
