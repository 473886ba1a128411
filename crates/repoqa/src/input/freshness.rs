//! How fresh a dataset is: the earliest first release of its sources.
//!
//! A fresh split (`repoqa curate --registry`) records each repository's
//! `first_release` (its package's first release, as the registry dates it);
//! the dataset's freshness is the earliest of those days. The official
//! dataset records none: its sources have no date, and it has no freshness.
//! A SCORES file carries the day as `dataset_freshness`, and a report warns
//! when a model's stated training cutoff is later.

use std::fmt;

use serde_json::Value;

use super::dataset::Dataset;

/// A calendar day, `YYYY-MM-DD` (the registries' timestamps are UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Day {
    year: i32,
    month: u8,
    day: u8,
}

impl Day {
    /// `YYYY-MM-DD`, a real date.
    pub fn parse(text: &str) -> Option<Day> {
        let b = text.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let year: i32 = text[..4].parse().ok()?;
        let month: u8 = text[5..7].parse().ok()?;
        let day: u8 = text[8..10].parse().ok()?;
        let m = time::Month::try_from(month).ok()?;
        time::Date::from_calendar_date(year, m, day).ok()?;
        Some(Day { year, month, day })
    }

    /// The day of an ISO 8601 timestamp (its first ten characters).
    pub fn from_timestamp(ts: &str) -> Option<Day> {
        Day::parse(ts.get(..10)?)
    }
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// How fresh a dataset is: every repository records its first release and
/// the earliest of them is the dataset's date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Freshness {
    /// The earliest first release of its repositories.
    pub earliest: Day,
    pub repos: usize,
}

impl fmt::Display for Freshness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sources first released on {} or later", self.earliest)
    }
}

/// The dataset's freshness; `None` when a repository does not record its
/// first release (the official dataset: its sources have no date).
pub fn freshness(dataset: &Dataset) -> Option<Freshness> {
    let mut earliest: Option<Day> = None;
    let mut repos = 0;
    for repo in dataset.languages.values().flatten() {
        let day = repo
            .extra
            .get("first_release")
            .and_then(Value::as_str)
            .and_then(Day::from_timestamp)?;
        earliest = Some(earliest.map_or(day, |e| e.min(day)));
        repos += 1;
    }
    earliest.map(|earliest| Freshness { earliest, repos })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_parse_and_order() {
        assert_eq!(Day::parse("2026-03-01").unwrap().to_string(), "2026-03-01");
        assert!(Day::parse("2026-02-30").is_none());
        assert!(Day::parse("2026-3-1").is_none());
        assert!(Day::parse("yesterday").is_none());
        let d = Day::from_timestamp("2026-03-02T00:00:01.123456+00:00").unwrap();
        assert!(d > Day::parse("2026-03-01").unwrap());
    }
}
