//! The periods of the report's time charts: which unit they take (minutes, hours, days,
//! ISO weeks, months or years), chosen from the span of the activity so that a chart has
//! at most [`MAX_PERIODS`] bars, and the number and the label of each period.
//!
//! A period is a number on a line per unit (minutes since the epoch, months since year
//! 0, ...), so that the periods from the first turn's to the last's are a range of
//! numbers, and the empty ones between are there too: a time axis shows quiet spells.

use oxsdatatypes::{DateTime, TimezoneOffset};

/// The most bars a time chart has: a screen's width still gives each a few pixels and
/// its label.
pub const MAX_PERIODS: i64 = 60;

/// The unit of a time chart's periods, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeUnit {
    /// Minutes.
    Minute,
    /// Hours.
    Hour,
    /// Days.
    Day,
    /// ISO 8601 weeks, Monday to Sunday.
    Week,
    /// Calendar months.
    Month,
    /// Runs of this many calendar years (1, 2, 5, 10, 20, 50...), from a year that is a
    /// multiple of it.
    Years(i64),
}

/// A time's calendar fields, UTC (those a shorter form leaves out are at their start),
/// ordered as the times are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Civil {
    year: i64,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
}

impl Civil {
    /// The fields of a time, moved to UTC (a time without a zone is taken as UTC); none
    /// outside the years 0000 to 9999, which a chart's periods do not reach either.
    pub fn of(time: DateTime) -> Option<Self> {
        let time = match time.timezone_offset() {
            Some(_) => time.adjust(Some(TimezoneOffset::UTC))?,
            None => time,
        };
        (0..=9999).contains(&time.year()).then(|| Self {
            year: time.year(),
            month: time.month(),
            day: time.day(),
            hour: time.hour(),
            minute: time.minute(),
        })
    }

    /// The fields of the start of an `xsd:dateTime` lexical form cut after its year
    /// (`2026`), month (`2026-01`), day (`2026-01-02`), hour (`2026-01-02T10`) or
    /// minute (`2026-01-02T10:05`), as `report-activity` gives its periods; none for any
    /// other text.
    pub fn of_prefix(text: &str) -> Option<Self> {
        // (where a field starts, the separator before it (none before the year), its
        // least and greatest value)
        const FIELDS: [(usize, u8, u16, u16); 5] = [
            (0, b' ', 0, 9999),
            (5, b'-', 1, 12),
            (8, b'-', 1, 31),
            (11, b'T', 0, 23),
            (14, b':', 0, 59),
        ];
        let bytes = text.as_bytes();
        if bytes.len() < 4 {
            return None;
        }
        let mut values = [0_u16, 1, 1, 0, 0];
        for (at, (from, separator, low, high)) in FIELDS.iter().enumerate() {
            if bytes.len() == from.saturating_sub(1) {
                break;
            }
            let to = if at == 0 { 4 } else { from + 2 };
            let digits = bytes.get(*from..to)?;
            if (at > 0 && bytes.get(from - 1) != Some(separator))
                || !digits.iter().all(u8::is_ascii_digit)
                || !(bytes.len() == to || (bytes.len() > to + 1 && at < 4))
            {
                return None;
            }
            let value = digits
                .iter()
                .fold(0_u16, |value, digit| value * 10 + u16::from(digit - b'0'));
            if !(*low..=*high).contains(&value) {
                return None;
            }
            values[at] = value;
        }
        let [year, month, day, hour, minute] = values;
        let small = |value: u16| u8::try_from(value).ok();
        Some(Self {
            year: i64::from(year),
            month: small(month)?,
            day: small(day)?,
            hour: small(hour)?,
            minute: small(minute)?,
        })
    }

    fn days(self) -> i64 {
        days_from_civil(self.year, self.month, self.day)
    }
}

impl TimeUnit {
    /// The finest unit, not finer than `finest`, in which the periods from `first`'s to
    /// `last`'s number at most [`MAX_PERIODS`].
    pub fn for_span(first: Civil, last: Civil, finest: Self) -> Self {
        // Runs of years of a round length: the 10,000 years a `Civil` may be in fit in
        // 11 runs of 1,000.
        const YEARS: [i64; 10] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
        let units = [Self::Minute, Self::Hour, Self::Day, Self::Week, Self::Month]
            .into_iter()
            .chain(YEARS.map(Self::Years));
        let fits = |unit: Self| unit.index(last) - unit.index(first) < MAX_PERIODS;
        units
            .skip_while(|unit| unit.finer_than(finest))
            .find(|unit| fits(*unit))
            .unwrap_or(Self::Years(1000))
    }

    /// Whether its periods are shorter than `other`'s.
    fn finer_than(self, other: Self) -> bool {
        match (self, other) {
            (Self::Years(mine), Self::Years(theirs)) => mine < theirs,
            _ => self.rank() < other.rank(),
        }
    }

    /// Its place from finest to coarsest.
    fn rank(self) -> u8 {
        match self {
            Self::Minute => 0,
            Self::Hour => 1,
            Self::Day => 2,
            Self::Week => 3,
            Self::Month => 4,
            Self::Years(_) => 5,
        }
    }

    /// How many characters of a UTC `xsd:dateTime` lexical form name the periods this
    /// unit is made of (`report-activity`'s `width`): a week is made of days, and a run of
    /// years of years.
    pub fn width(self) -> u64 {
        match self {
            Self::Minute => 16,
            Self::Hour => 13,
            Self::Day | Self::Week => 10,
            Self::Month => 7,
            Self::Years(_) => 4,
        }
    }

    /// The number of the period a time falls in.
    pub fn index(self, time: Civil) -> i64 {
        let days = time.days();
        match self {
            Self::Minute => (days * 24 + i64::from(time.hour)) * 60 + i64::from(time.minute),
            Self::Hour => days * 24 + i64::from(time.hour),
            Self::Day => days,
            // 1970-01-01 was a Thursday: weeks are counted from Monday 1969-12-29.
            Self::Week => (days + 3).div_euclid(7),
            Self::Month => time.year * 12 + i64::from(time.month) - 1,
            Self::Years(years) => time.year.div_euclid(years.max(1)),
        }
    }

    /// The unit's name after "per" in a chart's title ("Turns per hour").
    pub fn name(self) -> String {
        match self {
            Self::Minute => "minute".to_owned(),
            Self::Hour => "hour".to_owned(),
            Self::Day => "day".to_owned(),
            Self::Week => "week".to_owned(),
            Self::Month => "month".to_owned(),
            Self::Years(1) => "year".to_owned(),
            Self::Years(years) => format!("{years} years"),
        }
    }

    /// A period's label in full: `2026-01-02 10:05`, `2026-01-02 10:00`, `2026-01-02`,
    /// `2026-W01 (from 2025-12-29)`, `2026-01`, `2026` or `2020–2029`.
    pub fn label(self, index: i64) -> String {
        match self {
            Self::Minute | Self::Hour | Self::Day => {
                let (date, clock) = self.date_and_clock(index);
                match clock {
                    Some(clock) => format!("{date} {clock}"),
                    None => date,
                }
            }
            Self::Week => {
                let monday = index * 7 - 3;
                format!("{} (from {})", iso_week(monday), date(monday))
            }
            Self::Month => format!(
                "{:04}-{:02}",
                index.div_euclid(12),
                index.rem_euclid(12) + 1
            ),
            Self::Years(1) => format!("{index:04}"),
            Self::Years(years) => {
                let first = index.saturating_mul(years);
                format!("{first:04}–{:04}", first.saturating_add(years - 1))
            }
        }
    }

    /// A period's label on the axis, short: the time of day alone for minutes and
    /// hours when every period is on one day (`day_too` false), the week alone for
    /// weeks.
    pub fn axis_label(self, index: i64, day_too: bool) -> String {
        match self {
            Self::Minute | Self::Hour => {
                let (date, clock) = self.date_and_clock(index);
                let clock = clock.unwrap_or_default();
                if day_too {
                    // Without the year, which the axis's description gives.
                    format!("{} {clock}", date.get(5..).unwrap_or(&date))
                } else {
                    clock
                }
            }
            Self::Week => iso_week(index * 7 - 3),
            _ => self.label(index),
        }
    }

    /// The day a period of minutes, hours or days is on, if it is one of those.
    pub fn day_of(self, index: i64) -> Option<i64> {
        match self {
            Self::Minute => Some(index.div_euclid(24 * 60)),
            Self::Hour => Some(index.div_euclid(24)),
            Self::Day => Some(index),
            _ => None,
        }
    }

    /// The date, and for minutes and hours the time of day, of a period's start.
    fn date_and_clock(self, index: i64) -> (String, Option<String>) {
        let day = self.day_of(index).unwrap_or(index);
        let clock = match self {
            Self::Minute => {
                let minute = index.rem_euclid(24 * 60);
                Some(format!("{:02}:{:02}", minute / 60, minute % 60))
            }
            Self::Hour => Some(format!("{:02}:00", index.rem_euclid(24))),
            _ => None,
        };
        (date(day), clock)
    }
}

/// `YYYY-MM-DD` of a day number.
pub fn date(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `YYYY-Www` of the ISO week that starts on this Monday: the year is the one its
/// Thursday is in.
fn iso_week(monday: i64) -> String {
    let thursday = monday + 3;
    let (year, _, _) = civil_from_days(thursday);
    let week = (thursday - days_from_civil(year, 1, 1)).div_euclid(7) + 1;
    format!("{year:04}-W{week:02}")
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day number from 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;
    use test_case::test_case;

    fn at(text: &str) -> Civil {
        Civil::of_prefix(text).expect("a test's time")
    }

    fn periods(unit: TimeUnit, first: &str, last: &str) -> i64 {
        unit.index(at(last)) - unit.index(at(first)) + 1
    }

    #[test_case("2026-01-02T10:05", "2026-01-02T10:05", TimeUnit::Minute; "no time at all: one minute")]
    #[test_case("2026-01-02T10:00", "2026-01-02T10:59", TimeUnit::Minute; "sixty minutes")]
    #[test_case("2026-01-02T10:00", "2026-01-02T11:00", TimeUnit::Hour; "sixty-one minutes")]
    #[test_case("2026-01-02T10:30", "2026-01-02T11:29", TimeUnit::Minute; "an hour across two hours")]
    #[test_case("2026-01-02T00:00", "2026-01-03T00:00", TimeUnit::Hour; "exactly one day")]
    #[test_case("2026-01-01T00", "2026-01-03T11", TimeUnit::Hour; "sixty hours")]
    #[test_case("2026-01-01T00", "2026-01-03T12", TimeUnit::Day; "sixty-one hours")]
    #[test_case("2026-01-01", "2026-03-01", TimeUnit::Day; "sixty days")]
    #[test_case("2026-01-01", "2026-03-02", TimeUnit::Week; "sixty-one days")]
    #[test_case("2026-01-01", "2026-01-31T23:59", TimeUnit::Day; "a month")]
    #[test_case("2025-12-29", "2027-02-21", TimeUnit::Week; "sixty weeks")]
    #[test_case("2025-12-29", "2027-02-22", TimeUnit::Month; "sixty-one weeks")]
    #[test_case("2024-03-15", "2026-03-14", TimeUnit::Month; "two years")]
    #[test_case("2021-01", "2025-12", TimeUnit::Month; "sixty months")]
    #[test_case("2021-01", "2026-01", TimeUnit::Years(1); "sixty-one months")]
    #[test_case("1950", "2026", TimeUnit::Years(2); "seventy-seven years")]
    #[test_case("0000", "9999", TimeUnit::Years(200); "every year there is")]
    fn the_unit_is_the_finest_with_at_most_sixty_periods(
        first: &str,
        last: &str,
        expected: TimeUnit,
    ) {
        let unit = TimeUnit::for_span(at(first), at(last), TimeUnit::Minute);
        assert_eq!(unit, expected);
        assert!(periods(unit, first, last) <= MAX_PERIODS);
    }

    #[test]
    fn a_span_of_no_time_is_one_period_of_any_unit() {
        for unit in [
            TimeUnit::Minute,
            TimeUnit::Hour,
            TimeUnit::Day,
            TimeUnit::Week,
            TimeUnit::Month,
            TimeUnit::Years(1),
        ] {
            let time = at("2026-01-02T10:05");
            assert_eq!(TimeUnit::for_span(time, time, unit), unit);
            assert_eq!(periods(unit, "2026-01-02T10:05", "2026-01-02T10:05"), 1);
        }
    }

    #[test]
    fn a_unit_is_never_finer_than_the_one_asked_for() {
        let (first, last) = (at("2026-01-02T10:00"), at("2026-01-02T10:30"));
        assert_eq!(
            TimeUnit::for_span(first, last, TimeUnit::Day),
            TimeUnit::Day
        );
        assert_eq!(
            TimeUnit::for_span(at("1950"), at("2026"), TimeUnit::Years(5)),
            TimeUnit::Years(5)
        );
    }

    #[test_case(
        TimeUnit::Minute,
        "2026-01-02T10:05",
        "2026-01-02 10:05",
        "10:05",
        "01-02 10:05"
    )]
    #[test_case(
        TimeUnit::Hour,
        "2026-01-02T10",
        "2026-01-02 10:00",
        "10:00",
        "01-02 10:00"
    )]
    #[test_case(TimeUnit::Day, "2026-01-02", "2026-01-02", "2026-01-02", "2026-01-02")]
    #[test_case(TimeUnit::Week, "2026-01-01", "2026-W01 (from 2025-12-29)", "2026-W01", "2026-W01"; "a week begun the year before")]
    #[test_case(TimeUnit::Week, "2021-01-03", "2020-W53 (from 2020-12-28)", "2020-W53", "2020-W53"; "a Sunday in the last week of the year before")]
    #[test_case(TimeUnit::Week, "2024-12-30", "2025-W01 (from 2024-12-30)", "2025-W01", "2025-W01"; "a Monday in the first week of the year after")]
    #[test_case(TimeUnit::Month, "2026-02", "2026-02", "2026-02", "2026-02")]
    #[test_case(TimeUnit::Years(1), "2026", "2026", "2026", "2026")]
    #[test_case(TimeUnit::Years(10), "2026", "2020–2029", "2020–2029", "2020–2029")]
    fn periods_are_labelled_by_their_start(
        unit: TimeUnit,
        time: &str,
        label: &str,
        short: &str,
        with_day: &str,
    ) {
        let index = unit.index(at(time));
        assert_eq!(unit.label(index), label);
        assert_eq!(unit.axis_label(index, false), short);
        assert_eq!(unit.axis_label(index, true), with_day);
    }

    #[test]
    fn consecutive_periods_are_consecutive_numbers() {
        let hour = TimeUnit::Hour;
        assert_eq!(
            hour.index(at("2026-01-01T00")) - hour.index(at("2025-12-31T23")),
            1
        );
        let month = TimeUnit::Month;
        assert_eq!(month.index(at("2026-01")) - month.index(at("2025-12")), 1);
        assert_eq!(month.label(month.index(at("2025-12")) + 1), "2026-01");
        // 2024 is a leap year, 2100 is not.
        let day = TimeUnit::Day;
        assert_eq!(day.label(day.index(at("2024-02-28")) + 1), "2024-02-29");
        assert_eq!(day.label(day.index(at("2100-02-28")) + 1), "2100-03-01");
        assert_eq!(day.index(at("1970-01-01")), 0);
        assert_eq!(day.label(-1), "1969-12-31");
    }

    #[test_case("2026-01-02T10:05"; "minute")]
    #[test_case("2026-01-02T10"; "hour")]
    #[test_case("2026-01-02"; "day")]
    #[test_case("2026-01"; "month")]
    #[test_case("2026"; "year")]
    fn periods_read_back_from_their_prefix(text: &str) {
        let civil = at(text);
        let full = DateTime::from_str("2026-01-02T10:05:59.5Z").expect("a time");
        let whole = Civil::of(full).expect("in range");
        let unit = match text.len() {
            16 => TimeUnit::Minute,
            13 => TimeUnit::Hour,
            10 => TimeUnit::Day,
            7 => TimeUnit::Month,
            _ => TimeUnit::Years(1),
        };
        assert_eq!(unit.index(civil), unit.index(whole));
        assert_eq!(unit.width(), text.len() as u64);
    }

    #[test_case(""; "empty")]
    #[test_case("202"; "short year")]
    #[test_case("2026-"; "a separator alone")]
    #[test_case("2026-1"; "one digit")]
    #[test_case("2026-13"; "month 13")]
    #[test_case("2026/01"; "slash")]
    #[test_case("2026-01-00"; "day 0")]
    #[test_case("2026-01-02 10"; "space")]
    #[test_case("2026-01-02T24"; "hour 24")]
    #[test_case("2026-01-02T10:60"; "minute 60")]
    #[test_case("2026-01-02T10:05:00"; "seconds")]
    #[test_case("-026-01"; "sign")]
    #[test_case("２０２６"; "wide digits")]
    fn other_text_is_no_period(text: &str) {
        assert_eq!(Civil::of_prefix(text), None);
    }

    #[test]
    fn times_are_moved_to_utc() {
        let local = DateTime::from_str("2026-01-02T01:30:00+02:00").expect("a time");
        assert_eq!(Civil::of(local), Some(at("2026-01-01T23:30")));
        let far = DateTime::from_str("12026-01-02T01:30:00Z").expect("a time");
        assert_eq!(Civil::of(far), None);
    }
}
