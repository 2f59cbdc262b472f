//! Times found in history files, and the OSD Simple Times they become.
//!
//! ISO 8601 times and epoch milliseconds become absolute millisecond times
//! (`FlagsByte` 3); epoch seconds (OpenAI's `created`) stay absolute seconds
//! (`FlagsByte` 1). Naive local times need the user's time zone. A turn without any time
//! gets a relative time (`FlagsByte` 0): its position in the session, in seconds from an
//! arbitrary zero, never an invented wall-clock time.

use super::ImportOptions;
use crate::model::{AccuracyMode, SimpleTime, TimeSegment};
use serde_json::Number;

/// A time found in a file, or given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stamp {
    /// Milliseconds since the Unix epoch.
    Millis(i64),
    /// Seconds since the Unix epoch.
    Seconds(i64),
}

impl Stamp {
    /// In milliseconds since the epoch, to compare stamps of both units.
    pub fn millis(self) -> i64 {
        match self {
            Self::Millis(ms) => ms,
            Self::Seconds(s) => s.saturating_mul(1000),
        }
    }
}

/// Why a time could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeProblem {
    /// Not a date and time.
    Invalid,
    /// A local time without offset, and no `--timezone` given.
    NaiveWithoutZone,
}

/// An ISO 8601 / RFC 3339 date and time: with an offset (or `Z`) as it is, a naive local
/// time in the time zone of the options.
pub fn parse_iso(text: &str, options: &ImportOptions) -> Result<Stamp, TimeProblem> {
    if let Ok(timestamp) = text.parse::<jiff::Timestamp>() {
        return Ok(Stamp::Millis(timestamp.as_millisecond()));
    }
    let naive: jiff::civil::DateTime = text.parse().map_err(|_| TimeProblem::Invalid)?;
    let (_, zone) = options.zone().ok_or(TimeProblem::NaiveWithoutZone)?;
    let zoned = naive
        .to_zoned(zone.clone())
        .map_err(|_| TimeProblem::Invalid)?;
    Ok(Stamp::Millis(zoned.timestamp().as_millisecond()))
}

/// A Simple Time of one instant.
pub fn simple_time(id: &str, stamp: Stamp, note: Option<&str>) -> SimpleTime {
    let (flags, value) = match stamp {
        Stamp::Millis(ms) => (3_u8, ms),
        Stamp::Seconds(s) => (1, s),
    };
    instant(id, flags, Number::from(value), note.map(str::to_owned))
}

/// A relative Simple Time: `offset` seconds from an arbitrary zero.
pub fn relative_time(id: &str, offset: u64, note: &str) -> SimpleTime {
    instant(id, 0, Number::from(offset), Some(note.to_owned()))
}

fn instant(id: &str, flags: u8, at: Number, note: Option<String>) -> SimpleTime {
    SimpleTime {
        header: "OSD-STM-V1.5".to_owned(),
        m_instance_id: None,
        u_environment_id: None,
        simple_time_id: id.to_owned(),
        segments: vec![TimeSegment {
            flags_byte: Number::from(flags),
            start_time: at.clone(),
            end_time: at,
            accuracy_mode: Some(AccuracyMode::Single),
            accuracy_plus_minus: Some(Number::from(0)),
            accuracy_start_plus_minus: None,
            accuracy_end_plus_minus: None,
            time_type: None,
            time_unit: None,
            reserved: None,
        }],
        descriptive_metadata: note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_zones_and_naive_times() {
        let plain = ImportOptions::default();
        assert_eq!(
            parse_iso("2026-03-14T08:00:04.250Z", &plain),
            Ok(Stamp::Millis(1_773_475_204_250))
        );
        assert_eq!(
            parse_iso("2026-03-14T09:00:04.250+01:00", &plain),
            Ok(Stamp::Millis(1_773_475_204_250))
        );
        assert_eq!(
            parse_iso("2025-02-05T14:03:15", &plain),
            Err(TimeProblem::NaiveWithoutZone)
        );
        assert_eq!(parse_iso("yesterday", &plain), Err(TimeProblem::Invalid));
        let zurich = ImportOptions::default()
            .timezone("Europe/Zurich")
            .expect("zone");
        // 14:03:15 in Zurich in February is 13:03:15 UTC.
        assert_eq!(
            parse_iso("2025-02-05T14:03:15.123456", &zurich),
            Ok(Stamp::Millis(1_738_760_595_123))
        );
    }
}
