//! The clock behind `strftime_now`, injectable so that renders are reproducible.
//!
//! Templates such as Llama 3.1's print today's date into the system prompt;
//! tests and reference renders freeze it.

use std::fmt::Write;
use std::time::{SystemTime, UNIX_EPOCH};

/// A calendar date and time of day (proleptic Gregorian, no time zone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DateTime {
    /// Year, e.g. 2026.
    pub year: i32,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day of the month, 1 to 31.
    pub day: u32,
    /// Hour, 0 to 23.
    pub hour: u32,
    /// Minute, 0 to 59.
    pub minute: u32,
    /// Second, 0 to 59.
    pub second: u32,
}

/// Where `strftime_now` reads the time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// The system clock, in UTC (Python's `datetime.now()` uses local time;
    /// a library has no business guessing the user's zone).
    #[default]
    System,
    /// Always this instant.
    Fixed(DateTime),
}

impl Clock {
    /// The current time on this clock.
    pub fn now(&self) -> DateTime {
        match self {
            Clock::Fixed(t) => *t,
            Clock::System => {
                let secs = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs() as i64)
                    .unwrap_or(0);
                DateTime::from_unix(secs)
            }
        }
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

impl DateTime {
    /// Parses `YYYY-MM-DDTHH:MM[:SS]` (a space may replace the `T`).
    pub fn parse(s: &str) -> Result<DateTime, String> {
        let bad = || format!("expected a date and time like 2026-01-15T10:30:00, found {s:?}");
        let (date, time) = s.split_once(['T', ' ']).ok_or_else(bad)?;
        let date: Vec<&str> = date.split('-').collect();
        let time: Vec<&str> = time.split(':').collect();
        let num = |p: &str| p.parse::<u32>().map_err(|_| bad());
        let (year, month, day) = match date.as_slice() {
            [y, m, d] => (y.parse::<i32>().map_err(|_| bad())?, num(m)?, num(d)?),
            _ => return Err(bad()),
        };
        let (hour, minute, second) = match time.as_slice() {
            [h, m] => (num(h)?, num(m)?, 0),
            [h, m, s] => (num(h)?, num(m)?, num(s)?),
            _ => return Err(bad()),
        };
        let t = DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
        };
        let valid = (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month)
            && hour < 24
            && minute < 60
            && second < 60;
        if valid {
            Ok(t)
        } else {
            Err(format!("{s:?} is not a valid date and time"))
        }
    }

    /// The UTC date and time `secs` seconds after 1970-01-01T00:00:00.
    pub fn from_unix(secs: i64) -> DateTime {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400) as u32;
        let (year, month, day) = civil_from_days(days);
        DateTime {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem / 60 % 60,
            second: rem % 60,
        }
    }

    /// Seconds since 1970-01-01T00:00:00, reading this date and time as UTC;
    /// the inverse of [`DateTime::from_unix`], so that callers can do
    /// arithmetic on instants without a calendar of their own.
    pub fn unix_seconds(&self) -> i64 {
        self.days() * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    /// Days since 1970-01-01.
    fn days(&self) -> i64 {
        // Howard Hinnant's days_from_civil.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// 0 for Monday, as Python's `weekday()`.
    fn weekday(&self) -> usize {
        // 1970-01-01 was a Thursday.
        (self.days() + 3).rem_euclid(7) as usize
    }

    fn day_of_year(&self) -> u32 {
        (1..self.month)
            .map(|m| days_in_month(self.year, m))
            .sum::<u32>()
            + self.day
    }

    /// Formats like Python's `datetime.strftime` in the C locale.
    /// Unknown directives are kept as written, as glibc does.
    pub fn strftime(&self, format: &str) -> String {
        let mut out = String::new();
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let Some(d) = chars.next() else {
                out.push('%');
                break;
            };
            let month = MONTHS[(self.month.clamp(1, 12) - 1) as usize];
            let weekday = WEEKDAYS[self.weekday()];
            let hour12 = match self.hour % 12 {
                0 => 12,
                h => h,
            };
            let _ = match d {
                'Y' => write!(out, "{}", self.year),
                'y' => write!(out, "{:02}", self.year.rem_euclid(100)),
                'm' => write!(out, "{:02}", self.month),
                'd' => write!(out, "{:02}", self.day),
                'e' => write!(out, "{:2}", self.day),
                '-' => match chars.next() {
                    // glibc's no-padding flag, used by some templates ("%-d").
                    Some('d') => write!(out, "{}", self.day),
                    Some('m') => write!(out, "{}", self.month),
                    Some('H') => write!(out, "{}", self.hour),
                    Some('I') => write!(out, "{hour12}"),
                    Some('M') => write!(out, "{}", self.minute),
                    Some('S') => write!(out, "{}", self.second),
                    Some('j') => write!(out, "{}", self.day_of_year()),
                    Some(other) => write!(out, "%-{other}"),
                    None => write!(out, "%-"),
                },
                'H' => write!(out, "{:02}", self.hour),
                'I' => write!(out, "{hour12:02}"),
                'M' => write!(out, "{:02}", self.minute),
                'S' => write!(out, "{:02}", self.second),
                'p' => write!(out, "{}", if self.hour < 12 { "AM" } else { "PM" }),
                'B' => write!(out, "{month}"),
                'b' | 'h' => write!(out, "{}", &month[..3]),
                'A' => write!(out, "{weekday}"),
                'a' => write!(out, "{}", &weekday[..3]),
                'j' => write!(out, "{:03}", self.day_of_year()),
                'w' => write!(out, "{}", (self.weekday() + 1) % 7),
                'u' => write!(out, "{}", self.weekday() + 1),
                'F' => write!(out, "{}-{:02}-{:02}", self.year, self.month, self.day),
                'T' => write!(
                    out,
                    "{:02}:{:02}:{:02}",
                    self.hour, self.minute, self.second
                ),
                'R' => write!(out, "{:02}:{:02}", self.hour, self.minute),
                'D' => write!(
                    out,
                    "{:02}/{:02}/{:02}",
                    self.month,
                    self.day,
                    self.year.rem_euclid(100)
                ),
                'c' => write!(
                    out,
                    "{} {} {:2} {:02}:{:02}:{:02} {}",
                    &weekday[..3],
                    &month[..3],
                    self.day,
                    self.hour,
                    self.minute,
                    self.second,
                    self.year
                ),
                'x' => write!(
                    out,
                    "{:02}/{:02}/{:02}",
                    self.month,
                    self.day,
                    self.year.rem_euclid(100)
                ),
                'X' => write!(
                    out,
                    "{:02}:{:02}:{:02}",
                    self.hour, self.minute, self.second
                ),
                'Z' => Ok(()),
                'z' => Ok(()),
                'n' => out.write_char('\n'),
                't' => out.write_char('\t'),
                '%' => out.write_char('%'),
                other => write!(out, "%{other}"),
            };
        }
        out
    }
}

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Howard Hinnant's civil_from_days.
fn civil_from_days(days: i64) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_python() {
        let t = DateTime::parse("2026-01-15T10:30:00").unwrap();
        assert_eq!(t.strftime("%d %b %Y"), "15 Jan 2026");
        assert_eq!(t.strftime("%Y-%m-%d %H:%M:%S"), "2026-01-15 10:30:00");
        assert_eq!(
            t.strftime("%A, %B %-d, %I%p %j %%"),
            "Thursday, January 15, 10AM 015 %"
        );
        assert_eq!(DateTime::from_unix(t.days() * 86_400 + 37_800), t);
    }

    #[test]
    fn unix_seconds_round_trip() {
        for secs in [0i64, 86_399, 951_782_400, 1_768_473_000, -86_400] {
            assert_eq!(DateTime::from_unix(secs).unix_seconds(), secs);
        }
    }

    #[test]
    fn rejects_bad_dates() {
        assert!(DateTime::parse("2026-02-30T00:00:00").is_err());
        assert!(DateTime::parse("yesterday").is_err());
    }
}
