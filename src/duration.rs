//! Humane durations: `90s`, `15m`, `2h`, `1d`, `500ms`, and sums such as `1h30m`.
//!
//! Operators type these at 3 a.m.; anything ambiguous (a bare number, a negative, an
//! unknown unit) is refused with a message rather than guessed.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A parsed duration that remembers nothing but its length; `Display` prints it humanely.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct HumanDuration(pub Duration);

/// Why a duration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDurationError(String);

impl fmt::Display for ParseDurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseDurationError {}

const MAX_SECS: u64 = 100 * 365 * 86_400;

/// What was typed, for an error: escaped (a control character would split the message) and
/// cut to a length a duration has.
fn shown(input: &str) -> String {
    let mut s: String = input.chars().take(40).collect();
    if input.chars().count() > 40 {
        s.push('…');
    }
    crate::escape::escape(&s)
}

pub fn parse(input: &str) -> Result<Duration, ParseDurationError> {
    let s = input.trim();
    let bad = |why: &str| {
        ParseDurationError(format!(
            "invalid duration `{}`: {why} (use e.g. 90s, 15m, 2h, 1d, 1h30m)",
            shown(input)
        ))
    };
    if s.is_empty() {
        return Err(bad("empty"));
    }
    // Zero needs no unit: it is zero in every one.
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total_ms: u128 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err(bad("expected a number"));
        }
        let (num, tail) = rest.split_at(digits);
        let unit_len = tail
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .map(char::len_utf8)
            .sum::<usize>();
        let (unit, tail) = tail.split_at(unit_len);
        if unit.is_empty() {
            return Err(bad("missing unit"));
        }
        let n: u128 = num.parse().map_err(|_| bad("number too large"))?;
        let ms_per: u128 = match unit {
            "ms" => 1,
            "s" | "sec" | "secs" => 1_000,
            "m" | "min" | "mins" => 60_000,
            "h" | "hr" | "hrs" => 3_600_000,
            "d" | "day" | "days" => 86_400_000,
            "w" => 7 * 86_400_000,
            _ => return Err(bad(&format!("unknown unit `{unit}`"))),
        };
        total_ms = n
            .checked_mul(ms_per)
            .and_then(|v| total_ms.checked_add(v))
            .ok_or_else(|| bad("too large"))?;
        if total_ms > u128::from(MAX_SECS) * 1_000 {
            return Err(bad("longer than 100 years"));
        }
        rest = tail;
    }
    Ok(Duration::from_millis(total_ms as u64))
}

/// The longest timeout PostgreSQL accepts for `statement_timeout` and `lock_timeout`: their
/// value is an `int` of milliseconds (2147483647 ms, 24d 20h 31m 23.647s).
pub const PG_TIMEOUT_MAX: Duration = Duration::from_millis(i32::MAX as u64);

/// A session timeout PostgreSQL would refuse at connect time ("invalid value for parameter",
/// which would read as a connection failure) is refused here, as the usage error it is.
fn within_pg_limit(flag: &str, s: &str, d: Duration) -> Result<Duration, ParseDurationError> {
    if d > PG_TIMEOUT_MAX {
        return Err(ParseDurationError(format!(
            "invalid duration `{}` for {flag}: PostgreSQL accepts at most 2147483647 ms (about {})",
            shown(s),
            format_duration(PG_TIMEOUT_MAX)
        )));
    }
    Ok(d)
}

/// `--lock-timeout`: `0s` means "do not wait" (the smallest wait PostgreSQL has, 1 ms), never
/// PostgreSQL's "0 = no limit"; at most [`PG_TIMEOUT_MAX`].
pub fn parse_lock_timeout(s: &str) -> Result<HumanDuration, ParseDurationError> {
    let d = within_pg_limit("--lock-timeout", s, parse(s)?)?;
    Ok(HumanDuration(if d.is_zero() {
        Duration::from_millis(1)
    } else {
        d
    }))
}

/// `--statement-timeout`: more than zero (PostgreSQL would take 0 as "no limit", and no
/// command may wait unbounded; a statement that may not take any time cannot run at all), and
/// at most [`PG_TIMEOUT_MAX`].
pub fn parse_statement_timeout(s: &str) -> Result<HumanDuration, ParseDurationError> {
    let d = within_pg_limit("--statement-timeout", s, parse(s)?)?;
    if d.is_zero() {
        return Err(ParseDurationError(format!(
            "invalid duration `{}`: the statement timeout must be more than 0 (PostgreSQL takes 0 as no limit at all); e.g. 10s",
            shown(s)
        )));
    }
    Ok(HumanDuration(d))
}

/// `--interval` of a `--watch`: at least a second (each refresh queries the database; a live
/// view must not become a load test).
pub fn parse_watch_interval(s: &str) -> Result<HumanDuration, ParseDurationError> {
    let d = parse(s)?;
    if d < Duration::from_secs(1) {
        return Err(ParseDurationError(format!(
            "invalid interval `{}`: at least 1s (each refresh queries the database)",
            shown(s)
        )));
    }
    Ok(HumanDuration(d))
}

impl FromStr for HumanDuration {
    type Err = ParseDurationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s).map(HumanDuration)
    }
}

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration(self.0))
    }
}

/// `3d 4h`, `12m 5s`, `3h`, `40s`, `250ms`: the largest unit and the next one (whole units,
/// the rest dropped), for tables and messages. Never a far smaller unit beside a large one
/// (`3h`, not `3h 2s`): an age should not change its wording every second. Under a second,
/// milliseconds (a `500ms` timeout).
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        return format!("{ms}ms");
    }
    let secs = d.as_secs();
    let units = [(86_400, "d"), (3_600, "h"), (60, "m"), (1, "s")];
    // At least a second, so some unit fits.
    let i = units
        .iter()
        .position(|(size, _)| secs >= *size)
        .unwrap_or(units.len() - 1);
    let (size, name) = units[i];
    let mut text = format!("{}{name}", secs / size);
    if let Some((next, next_name)) = units.get(i + 1) {
        let rest = (secs % size) / next;
        if rest > 0 {
            text.push_str(&format!(" {rest}{next_name}"));
        }
    }
    text
}

/// A length for people to the nearest second (`2h 15m`, `47m 59s`, `0s` under half a
/// second): the age of a pause, the span to its end.
pub fn humane(d: Duration) -> String {
    let secs = (d.as_millis() + 500) / 1000;
    if secs == 0 {
        return "0s".into();
    }
    format_duration(Duration::from_secs(secs as u64))
}

/// Seconds (possibly negative) between two instants, humanely: `5m` or `-40s`.
pub fn format_signed_secs(secs: f64) -> String {
    let d = Duration::from_secs_f64(secs.abs());
    if secs < 0.0 {
        format!("-{}", format_duration(d))
    } else {
        format_duration(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_refreshes_at_most_once_a_second() {
        assert!(parse_watch_interval("500ms").is_err());
        assert!(parse_watch_interval("0").is_err());
        assert_eq!(
            parse_watch_interval("1s").unwrap().0,
            Duration::from_secs(1)
        );
        assert_eq!(
            parse_watch_interval("5m").unwrap().0,
            Duration::from_secs(300)
        );
    }

    #[test]
    fn session_timeouts_stop_at_what_postgresql_accepts() {
        assert!(parse_statement_timeout("24d").is_ok());
        assert!(parse_lock_timeout("24d").is_ok());
        let err = parse_lock_timeout("30d").unwrap_err().to_string();
        assert!(err.contains("--lock-timeout"), "{err}");
        assert!(err.contains("2147483647 ms"), "{err}");
        assert!(parse_statement_timeout("25d").is_err());
        assert!(parse_statement_timeout("2147483647ms").is_ok());
        assert!(parse_statement_timeout("2147483648ms").is_err());
    }

    #[test]
    fn parses_humane_units() {
        assert_eq!(parse("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(parse("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse("1d").unwrap(), Duration::from_secs(86_400));
        assert_eq!(parse("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse("0s").unwrap(), Duration::ZERO);
        assert_eq!(parse("0").unwrap(), Duration::ZERO);
    }

    #[test]
    fn refuses_ambiguous_input() {
        for bad in [
            "",
            "10",
            "banana",
            "-5m",
            "5 m",
            "1.5h",
            "5x",
            "m",
            "99999999999999999999d",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn formats_the_largest_unit_and_the_next() {
        assert_eq!(format_duration(Duration::from_secs(40)), "40s");
        assert_eq!(format_duration(Duration::from_secs(725)), "12m 5s");
        assert_eq!(
            format_duration(Duration::from_secs(3 * 86_400 + 4 * 3600 + 7)),
            "3d 4h"
        );
        assert_eq!(format_duration(Duration::from_secs(7200)), "2h");
        assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
        // The two formatters that disagreed here (issue 25): the next unit, not the
        // next one that is not zero.
        assert_eq!(format_duration(Duration::from_secs(10_802)), "3h");
        assert_eq!(format_duration(Duration::from_secs(86_400 + 59)), "1d");
        assert_eq!(format_duration(Duration::from_millis(1_999)), "1s");
    }

    #[test]
    fn humane_lengths_keep_two_adjacent_units_to_the_nearest_second() {
        let h = |secs: f64| humane(Duration::from_secs_f64(secs));
        assert_eq!(h(3.0 * 3600.0 + 2.0), "3h");
        assert_eq!(h(2.0 * 3600.0 + 15.0 * 60.0 + 10.0), "2h 15m");
        assert_eq!(h(3599.7), "1h");
        assert_eq!(h(47.0 * 60.0 + 59.0), "47m 59s");
        assert_eq!(h(86_400.0 + 3600.0 + 61.0), "1d 1h");
        assert_eq!(h(0.2), "0s");
        assert_eq!(h(0.7), "1s");
    }
}
