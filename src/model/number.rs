//! Exact arithmetic on JSON number texts.
//!
//! JSON Schema's `integer`, `minimum` and `maximum` speak of mathematical values: `3.0`
//! and `1e2` are integers, `1e400` is a number. serde_json's `arbitrary_precision` keeps
//! each number's text; this module reads that text as an exact decimal so that checks
//! and conversions never round through `f64`.

use std::cmp::Ordering;

/// Digits beyond which a decimal is not written out as an `xsd:decimal`/`xsd:integer`
/// literal: the verbatim JSON keeps such a number, and `1e999999999` must not become a
/// gigabyte of zeros.
const MAX_EXPANDED_DIGITS: i64 = 4096;

/// An exact decimal read from a JSON number text: `(-1)^negative × digits × 10^exponent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonDecimal {
    negative: bool,
    /// Significant digits without leading or trailing zeros; empty for zero.
    digits: String,
    exponent: i64,
}

impl JsonDecimal {
    /// Reads a JSON number text (RFC 8259 grammar); `None` if it is not one.
    pub fn parse(text: &str) -> Option<Self> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(at) => {
                let exponent_text = &rest[at + 1..];
                let exponent_digits = exponent_text
                    .strip_prefix(['+', '-'])
                    .unwrap_or(exponent_text);
                if exponent_digits.is_empty()
                    || !exponent_digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                // Saturate: an exponent beyond i64 is beyond any use anyway.
                let exponent =
                    exponent_text
                        .parse::<i64>()
                        .unwrap_or(if exponent_text.starts_with('-') {
                            i64::MIN / 4
                        } else {
                            i64::MAX / 4
                        });
                (&rest[..at], exponent)
            }
            None => (rest, 0),
        };
        let (integer_part, fraction_part) = match mantissa.split_once('.') {
            Some((integer, fraction)) => {
                if fraction.is_empty() {
                    return None;
                }
                (integer, fraction)
            }
            None => (mantissa, ""),
        };
        let valid_integer = integer_part == "0"
            || (!integer_part.is_empty()
                && !integer_part.starts_with('0')
                && integer_part.bytes().all(|b| b.is_ascii_digit()));
        if !valid_integer || !fraction_part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut digits = format!("{integer_part}{fraction_part}");
        let fraction_len = i64::try_from(fraction_part.len()).ok()?;
        let mut exponent = exponent.saturating_sub(fraction_len);
        let trailing_zeros = digits.len() - digits.trim_end_matches('0').len();
        digits.truncate(digits.len() - trailing_zeros);
        exponent = exponent.saturating_add(i64::try_from(trailing_zeros).ok()?);
        let digits = digits.trim_start_matches('0').to_owned();
        if digits.is_empty() {
            exponent = 0;
        }
        Some(Self {
            negative: negative && !digits.is_empty(),
            digits,
            exponent,
        })
    }

    /// The decimal for a small integer.
    pub fn from_i64(value: i64) -> Self {
        Self::parse(&value.to_string()).expect("an i64 prints as a JSON number")
    }

    /// Whether the value has no fractional part (JSON Schema `integer`).
    pub fn is_integer(&self) -> bool {
        self.exponent >= 0
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// The value multiplied by `10^power`.
    #[must_use]
    pub fn scaled(&self, power: i64) -> Self {
        let mut scaled = self.clone();
        if !scaled.digits.is_empty() {
            scaled.exponent = scaled.exponent.saturating_add(power);
        }
        scaled
    }

    /// The value as a `u64`, if it is a non-negative integer that fits.
    pub fn to_u64(&self) -> Option<u64> {
        if self.negative || !self.is_integer() {
            return None;
        }
        self.to_integer_text()?.parse().ok()
    }

    /// Canonical `xsd:integer` text, if the value is an integer of sane length.
    pub fn to_integer_text(&self) -> Option<String> {
        if !self.is_integer() || self.magnitude_digits() > MAX_EXPANDED_DIGITS {
            return None;
        }
        let mut text = String::new();
        if self.negative {
            text.push('-');
        }
        if self.digits.is_empty() {
            text.push('0');
        } else {
            text.push_str(&self.digits);
            text.extend(std::iter::repeat_n(
                '0',
                usize::try_from(self.exponent).ok()?,
            ));
        }
        Some(text)
    }

    /// Canonical `xsd:decimal` text, if the value is of sane length.
    pub fn to_decimal_text(&self) -> Option<String> {
        if self.is_integer() {
            return self.to_integer_text();
        }
        if self.exponent < -MAX_EXPANDED_DIGITS {
            return None;
        }
        let (integer, fraction) = self.split_integer_fraction();
        let mut text = String::new();
        if self.negative {
            text.push('-');
        }
        text.push_str(if integer.is_empty() { "0" } else { &integer });
        text.push('.');
        text.push_str(&fraction);
        Some(text)
    }

    /// The absolute value's integer and fraction digits (fraction without trailing zeros).
    fn split_integer_fraction(&self) -> (String, String) {
        if self.is_integer() {
            return (
                self.to_integer_text()
                    .unwrap_or_default()
                    .trim_start_matches('-')
                    .to_owned(),
                String::new(),
            );
        }
        let fraction_len = usize::try_from(-self.exponent).unwrap_or(usize::MAX);
        if fraction_len >= self.digits.len() {
            let zeros = fraction_len - self.digits.len();
            (
                String::new(),
                format!("{}{}", "0".repeat(zeros), self.digits),
            )
        } else {
            let at = self.digits.len() - fraction_len;
            (self.digits[..at].to_owned(), self.digits[at..].to_owned())
        }
    }

    /// Floor of the value as an `i64` and the fraction below it, `0 <= fraction < 1`,
    /// as decimal digits truncated to `max_fraction_digits`; `None` out of `i64` range.
    pub fn floor_and_fraction(&self, max_fraction_digits: usize) -> Option<(i64, String)> {
        if self.magnitude_digits() > 19 {
            return None;
        }
        let (integer, fraction) = self.split_integer_fraction();
        let integer: i64 = if integer.is_empty() {
            0
        } else {
            integer.parse().ok()?
        };
        let mut fraction = fraction;
        fraction.truncate(max_fraction_digits);
        let fraction = fraction.trim_end_matches('0').to_owned();
        if !self.negative {
            return Some((integer, fraction));
        }
        if fraction.is_empty() {
            return Some((integer.checked_neg()?, fraction));
        }
        // -(I + 0.F) = -(I + 1) + (1 - 0.F), and 1 - 0.F is the ten's complement of F.
        let complement = ten_complement(&fraction);
        Some((integer.checked_add(1)?.checked_neg()?, complement))
    }

    /// Number of digits left of the decimal point (0 for values below one).
    fn magnitude_digits(&self) -> i64 {
        i64::try_from(self.digits.len())
            .unwrap_or(i64::MAX)
            .saturating_add(self.exponent)
    }
}

/// `10^n - F` for the `n` digits of a non-zero `F`, without trailing zeros:
/// the nines' complement of `F`, plus one.
fn ten_complement(fraction: &str) -> String {
    let mut digits: Vec<u8> = fraction.bytes().map(|b| 9 - (b - b'0')).collect();
    for digit in digits.iter_mut().rev() {
        if *digit == 9 {
            *digit = 0;
        } else {
            *digit += 1;
            break;
        }
    }
    let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    text.trim_end_matches('0').to_owned()
}

impl PartialOrd for JsonDecimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JsonDecimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let zero_self = self.digits.is_empty();
        let zero_other = other.digits.is_empty();
        match (zero_self, zero_other) {
            (true, true) => return Ordering::Equal,
            (true, false) => {
                return if other.negative {
                    Ordering::Greater
                } else {
                    Ordering::Less
                };
            }
            (false, true) => {
                return if self.negative {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
            }
            (false, false) => {}
        }
        if self.negative != other.negative {
            return if self.negative {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let magnitude = self
            .magnitude_digits()
            .cmp(&other.magnitude_digits())
            .then_with(|| {
                // Same number of integer digits: the significant digits decide.
                let length = self.digits.len().max(other.digits.len());
                let pad = |digits: &str| {
                    let mut padded = digits.to_owned();
                    padded.extend(std::iter::repeat_n('0', length - digits.len()));
                    padded
                };
                pad(&self.digits).cmp(&pad(&other.digits))
            });
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_case::test_case;

    fn decimal(text: &str) -> JsonDecimal {
        JsonDecimal::parse(text).expect("test input is a JSON number")
    }

    #[test_case("3", true; "plain integer")]
    #[test_case("3.0", true; "integer with zero fraction")]
    #[test_case("1e2", true; "integer by exponent")]
    #[test_case("1.5e1", true; "fraction moved by exponent")]
    #[test_case("1.5", false; "fraction")]
    #[test_case("15e-1", false; "negative exponent")]
    #[test_case("-0", true; "negative zero")]
    fn integer_per_json_schema(text: &str, expected: bool) {
        assert_eq!(decimal(text).is_integer(), expected);
    }

    #[test_case("01"; "leading zero")]
    #[test_case("1."; "empty fraction")]
    #[test_case("1e"; "empty exponent")]
    #[test_case("+1"; "plus sign")]
    #[test_case(""; "empty")]
    fn refuses_what_json_refuses(text: &str) {
        assert_eq!(JsonDecimal::parse(text), None);
    }

    #[test_case("1.5e3", "1500")]
    #[test_case("1e-3", "0.001")]
    #[test_case("-12.50", "-12.5")]
    #[test_case("123456789012345678901234567890", "123456789012345678901234567890")]
    #[test_case("0.000", "0")]
    fn decimal_text(text: &str, expected: &str) {
        assert_eq!(decimal(text).to_decimal_text().as_deref(), Some(expected));
    }

    #[test]
    fn absurd_exponent_is_not_expanded() {
        assert_eq!(decimal("1e999999999").to_decimal_text(), None);
        assert_eq!(decimal("1e-999999999").to_decimal_text(), None);
    }

    #[test_case("1", "1.0"; "one equals one point zero")]
    #[test_case("0.5", "5e-1"; "half")]
    fn equal_values(left: &str, right: &str) {
        assert_eq!(decimal(left).cmp(&decimal(right)), Ordering::Equal);
    }

    #[test_case("-1", "0")]
    #[test_case("0", "0.0001")]
    #[test_case("0.99", "1")]
    #[test_case("255", "256")]
    #[test_case("-2", "-1.5")]
    #[test_case("9", "10")]
    fn ordered(smaller: &str, larger: &str) {
        assert_eq!(decimal(smaller).cmp(&decimal(larger)), Ordering::Less);
        assert_eq!(decimal(larger).cmp(&decimal(smaller)), Ordering::Greater);
    }

    #[test_case("1767254400000", 3, 1_767_254_400, ""; "milliseconds to seconds")]
    #[test_case("1.25", 0, 1, "25"; "positive fraction")]
    #[test_case("-1.25", 0, -2, "75"; "negative fraction floors")]
    #[test_case("-3", 0, -3, ""; "negative integer")]
    #[test_case("1767254400123456789", 9, 1_767_254_400, "123456789"; "nanoseconds")]
    fn floor_and_fraction(text: &str, unit_digits: i64, floor: i64, fraction: &str) {
        let seconds = decimal(text).scaled(-unit_digits);
        assert_eq!(
            seconds.floor_and_fraction(9),
            Some((floor, fraction.to_owned()))
        );
    }
}
