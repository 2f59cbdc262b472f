//! MPAI OSD V1.5 Simple Time: segments, their flags and units, and their instants as
//! `xsd:dateTime` lexical forms.
//!
//! An absolute Simple Time counts its unit from the Unix epoch; the instant is written
//! in UTC to the nanosecond (finer digits are cut), for years 0001 to 9999. Relative
//! times have no calendar instant: they are kept as offset and unit only.

use super::JsonDecimal;
use serde::{Deserialize, Serialize};
use serde_json::Number;

/// An MPAI OSD V1.5 Simple Time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimpleTime {
    /// `Header`: `OSD-STM-V1.5`.
    #[serde(rename = "Header")]
    pub header: String,
    /// `MInstanceID`.
    #[serde(
        rename = "MInstanceID",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub m_instance_id: Option<String>,
    /// `UEnvironmentID`.
    #[serde(
        rename = "UEnvironmentID",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub u_environment_id: Option<String>,
    /// `SimpleTimeID`.
    #[serde(rename = "SimpleTimeID")]
    pub simple_time_id: String,
    /// `SimpleTimeData`: the time segments.
    #[serde(rename = "SimpleTimeData")]
    pub segments: Vec<TimeSegment>,
    /// `DescrMetadata`.
    #[serde(
        rename = "DescrMetadata",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub descriptive_metadata: Option<String>,
}

/// One segment of a Simple Time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSegment {
    /// `FlagsByte`: bit 0 time type, bits 1-2 unit, bits 3-7 reserved.
    #[serde(rename = "FlagsByte")]
    pub flags_byte: Number,
    /// `StartTime`, in the unit, from the epoch the time type implies.
    #[serde(rename = "StartTime")]
    pub start_time: Number,
    /// `EndTime`.
    #[serde(rename = "EndTime")]
    pub end_time: Number,
    /// `AccuracyMode`.
    #[serde(
        rename = "AccuracyMode",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_mode: Option<AccuracyMode>,
    /// `AccuracyPlusMinus`.
    #[serde(
        rename = "AccuracyPlusMinus",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_plus_minus: Option<Number>,
    /// `AccuracyStartPlusMinus`.
    #[serde(
        rename = "AccuracyStartPlusMinus",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_start_plus_minus: Option<Number>,
    /// `AccuracyEndPlusMinus`.
    #[serde(
        rename = "AccuracyEndPlusMinus",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub accuracy_end_plus_minus: Option<Number>,
    /// `TimeType`: repeats bit 0 of `FlagsByte`.
    #[serde(rename = "TimeType", skip_serializing_if = "Option::is_none", default)]
    pub time_type: Option<bool>,
    /// `TimeUnit`: repeats bits 1-2 of `FlagsByte` as `"00"`..`"11"`.
    #[serde(rename = "TimeUnit", skip_serializing_if = "Option::is_none", default)]
    pub time_unit: Option<String>,
    /// `Reserved`: repeats bits 3-7 of `FlagsByte`.
    #[serde(rename = "Reserved", skip_serializing_if = "Option::is_none", default)]
    pub reserved: Option<Number>,
}

impl TimeSegment {
    /// The flags decoded from `FlagsByte` (a checked document holds 0..=255).
    pub fn flags(&self) -> Option<TimeFlags> {
        let byte = JsonDecimal::parse(self.flags_byte.as_str())?.to_u64()?;
        u8::try_from(byte).ok().map(TimeFlags::from_byte)
    }
}

/// `AccuracyMode` of a Simple Time segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccuracyMode {
    /// One tolerance for both ends.
    Single,
    /// Distinct tolerances for start and end.
    Separate,
}

impl AccuracyMode {
    /// The schema's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Separate => "separate",
        }
    }
}

/// The unit of a Simple Time segment (`FlagsByte` bits 1-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// `00`.
    Second,
    /// `01`.
    Millisecond,
    /// `10`.
    Microsecond,
    /// `11`.
    Nanosecond,
}

impl TimeUnit {
    /// Decimal digits from this unit to seconds (a millisecond is `10^-3` s).
    pub fn digits_below_second(self) -> i64 {
        match self {
            Self::Second => 0,
            Self::Millisecond => 3,
            Self::Microsecond => 6,
            Self::Nanosecond => 9,
        }
    }

    /// The two-bit code the `TimeUnit` member spells.
    pub fn code(self) -> &'static str {
        match self {
            Self::Second => "00",
            Self::Millisecond => "01",
            Self::Microsecond => "10",
            Self::Nanosecond => "11",
        }
    }
}

/// The fields packed into a `FlagsByte`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeFlags {
    /// Bit 0: absolute (Unix epoch) rather than relative.
    pub absolute: bool,
    /// Bits 1-2.
    pub unit: TimeUnit,
    /// Bits 3-7.
    pub reserved: u8,
}

impl TimeFlags {
    /// Decodes a `FlagsByte`.
    pub fn from_byte(byte: u8) -> Self {
        let unit = match (byte >> 1) & 0b11 {
            0 => TimeUnit::Second,
            1 => TimeUnit::Millisecond,
            2 => TimeUnit::Microsecond,
            _ => TimeUnit::Nanosecond,
        };
        Self {
            absolute: byte & 1 == 1,
            unit,
            reserved: byte >> 3,
        }
    }
}

/// Seconds from the Unix epoch to 0001-01-01T00:00:00Z and to 10000-01-01T00:00:00Z.
const FIRST_SECOND: i64 = -62_135_596_800;
const END_SECOND: i64 = 253_402_300_800;

/// The `xsd:dateTime` lexical form of an absolute Simple Time value, if representable.
///
/// ```
/// use ihigraph::model::{absolute_date_time, TimeFlags};
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
