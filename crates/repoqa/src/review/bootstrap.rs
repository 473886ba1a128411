//! The percentile bootstrap of a pass rate (or of a paired difference of
//! two), seeded so a seed gives the same interval natively and in the
//! browser, and stratified by language as the benchmark is: each resample
//! draws, within every language, as many units as it has, with replacement.
//!
//! Two units: tasks, or repositories (a cluster bootstrap). The benchmark's
//! tasks are not independent — each repository carries ten needles cut
//! from one code base — so the repository interval is the one to quote; the
//! task interval shows how much narrower the independence assumption makes
//! it. A repository unit adds all its tasks' values and counts; the
//! statistic is always the resample's total value over its total count.
//!
//! The draws are fixed: for each resample, for each language in order, one
//! `SplitMix64::below(units)` per unit. The interval is the `(1 − level)/2`
//! and `(1 + level)/2` percentiles of the resampled statistics with linear
//! interpolation (numpy's default). tests/oracle/stats_oracle.py holds an
//! independent Python reference (same draws, `numpy.percentile`), and
//! crates/repoqa-cli/tests/it/stats_scipy.rs checks ours against it to 1e-12
//! and against scipy's `stats.bootstrap` on one stratum.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::python::json::float_value;
use crate::report::TaskResult;
use crate::review::stats::RateInterval;
use crate::scoring::breakdown::passes;
use crate::seeded::SplitMix64;

/// Resamples when none is asked for.
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// The most resamples a user may ask for (each costs one draw per unit).
pub const MAX_RESAMPLES: usize = 1_000_000;

/// What one resample draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Task,
    Repo,
}

impl Unit {
    /// As JSON and text name it: "task" or "repo".
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Task => "task",
            Unit::Repo => "repo",
        }
    }
}

/// How to resample: how many times, from which seed, at which level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resampling {
    pub level: f64,
    pub resamples: usize,
    pub seed: u64,
}

impl Resampling {
    /// 95 % with the default resamples and seed 0.
    pub fn at(level: f64) -> Resampling {
        Resampling { level, resamples: DEFAULT_RESAMPLES, seed: 0 }
    }
}

/// Per-task values (1 pass, 0 fail; or a paired difference −1, 0, 1),
/// grouped by language, then repository, in first-seen order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strata {
    pub languages: IndexMap<String, IndexMap<String, Vec<f64>>>,
}

impl Strata {
    pub fn push(&mut self, language: &str, repo: &str, value: f64) {
        self.languages
            .entry(language.to_string())
            .or_default()
            .entry(repo.to_string())
            .or_default()
            .push(value);
    }

    /// 1 for each task of `results` that passes at `threshold`, 0 for the
    /// others (empty languages left out).
    pub fn of_passes(results: &IndexMap<String, Vec<TaskResult>>, threshold: f64) -> Strata {
        let mut s = Strata::default();
        for (lang, tasks) in results {
            for t in tasks {
                s.push(lang, &t.repo, f64::from(u8::from(passes(t, threshold))));
            }
        }
        s
    }

    /// Each language's units: (value sum, task count).
    fn units(&self, unit: Unit) -> Vec<(&str, Vec<(f64, f64)>)> {
        self.languages
            .iter()
            .map(|(lang, repos)| {
                let units = match unit {
                    Unit::Task => repos.values().flatten().map(|&v| (v, 1.0)).collect(),
                    Unit::Repo => repos
                        .values()
                        .filter(|t| !t.is_empty())
                        .map(|t| (t.iter().sum(), t.len() as f64))
                        .collect(),
                };
                (lang.as_str(), units)
            })
            .filter(|(_, u): &(&str, Vec<(f64, f64)>)| !u.is_empty())
            .collect()
    }
}

/// A bootstrap interval overall and for each language.
#[derive(Clone, Debug, PartialEq)]
pub struct Intervals {
    pub unit: Unit,
    pub resampling: Resampling,
    /// None without any task.
    pub all: Option<RateInterval>,
    pub languages: IndexMap<String, RateInterval>,
}

impl Intervals {
    /// The interval of one language, or overall with None.
    pub fn get(&self, language: Option<&str>) -> Option<RateInterval> {
        match language {
            None => self.all,
            Some(l) => self.languages.get(l).copied(),
        }
    }

    /// `{"method": "bootstrap", "unit": "task"|"repo", "level", "resamples",
    /// "seed", "low", "high"}` for one language or overall (None); no
    /// "low"/"high" without an interval.
    pub fn to_map(&self, language: Option<&str>) -> Map<String, Value> {
        interval_map(self.unit, self.resampling, self.get(language))
    }
}

/// `{"method": "bootstrap", "unit", "level", "resamples", "seed", "low",
/// "high"}`, no "low"/"high" without an interval.
pub fn interval_map(unit: Unit, r: Resampling, i: Option<RateInterval>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("method".into(), Value::String("bootstrap".into()));
    m.insert("unit".into(), Value::String(unit.as_str().into()));
    m.insert("level".into(), float_value(r.level));
    m.insert("resamples".into(), Value::from(r.resamples));
    m.insert("seed".into(), Value::from(r.seed));
    if let Some(i) = i {
        m.insert("low".into(), float_value(i.low));
        m.insert("high".into(), float_value(i.high));
    }
    m
}

/// The `q` percentile (0..=1) of sorted `v`, numpy's linear rule.
fn percentile(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    let t = h - lo as f64;
    let (a, b) = (v[lo], v[hi]);
    // numpy's `_lerp`: from the nearer end, so equal ends give that value.
    if t >= 0.5 {
        b - (b - a) * (1.0 - t)
    } else {
        a + (b - a) * t
    }
}

fn interval(mut stats: Vec<f64>, level: f64) -> RateInterval {
    stats.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    RateInterval { low: percentile(&stats, tail), high: percentile(&stats, 1.0 - tail) }
}

/// The percentile bootstrap interval of the mean value of `strata`,
/// overall and per language. A language of one unit (one repository, for
/// the repository unit) has no interval, and then neither has the whole.
/// With no resamples or a level outside (0, 1) every interval is
/// None/empty.
pub fn bootstrap(strata: &Strata, unit: Unit, resampling: Resampling) -> Intervals {
    let mut out = Intervals { unit, resampling, all: None, languages: IndexMap::new() };
    let groups = strata.units(unit);
    let level = resampling.level;
    if groups.is_empty() || resampling.resamples == 0 || !(level > 0.0 && level < 1.0) {
        return out;
    }
    let b = resampling.resamples.min(MAX_RESAMPLES);
    let mut rng = SplitMix64(resampling.seed);
    let mut per_lang: Vec<Vec<f64>> = vec![Vec::with_capacity(b); groups.len()];
    let mut all = Vec::with_capacity(b);
    for _ in 0..b {
        let (mut sum_all, mut count_all) = (0.0, 0.0);
        for (g, (_, units)) in groups.iter().enumerate() {
            let (mut sum, mut count) = (0.0, 0.0);
            for _ in 0..units.len() {
                let (s, c) = units[rng.below(units.len() as u64) as usize];
                sum += s;
                count += c;
            }
            per_lang[g].push(sum / count);
            sum_all += sum;
            count_all += count;
        }
        all.push(sum_all / count_all);
    }
    // One unit cannot show how the rate varies: that language has no
    // interval, and the overall one would understate the spread.
    let all_varied = groups.iter().all(|(_, u)| u.len() >= 2);
    out.all = all_varied.then(|| interval(all, level));
    for ((lang, units), stats) in groups.iter().zip(per_lang) {
        if units.len() >= 2 {
            out.languages.insert(lang.to_string(), interval(stats, level));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_follows_numpy_linear() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 1.0), 4.0);
        assert!((percentile(&v, 0.5) - 2.5).abs() < 1e-15);
        assert!((percentile(&v, 0.025) - 1.075).abs() < 1e-15);
        assert_eq!(percentile(&[0.7], 0.975), 0.7);
    }

    #[test]
    fn a_constant_rate_has_a_point_interval_and_the_seed_fixes_the_rest() {
        let mut s = Strata::default();
        for r in 0..3 {
            for t in 0..10 {
                s.push("python", &format!("r{r}"), 1.0);
                s.push("go", &format!("g{r}"), f64::from(u8::from(t % 2 == 0)));
            }
        }
        let r = Resampling { level: 0.95, resamples: 500, seed: 7 };
        let task = bootstrap(&s, Unit::Task, r);
        assert_eq!(task.languages["python"], RateInterval { low: 1.0, high: 1.0 });
        let go = task.languages["go"];
        assert!(go.low < 0.5 && go.high > 0.5, "{go:?}");
        // Every go repository passes half its tasks: resampling repositories
        // cannot move the rate.
        let repo = bootstrap(&s, Unit::Repo, r);
        assert_eq!(repo.languages["go"], RateInterval { low: 0.5, high: 0.5 });
        // One repository: no interval by repository, for it or overall.
        let mut one_repo = s.clone();
        one_repo.push("rust", "only", 1.0);
        one_repo.push("rust", "only", 0.0);
        let one = bootstrap(&one_repo, Unit::Repo, r);
        assert_eq!((one.all, one.languages.get("rust")), (None, None));
        assert!(one.languages.contains_key("go"));
        assert!(bootstrap(&one_repo, Unit::Task, r).languages.contains_key("rust"));
        assert_eq!(bootstrap(&s, Unit::Task, r), task);
        assert_ne!(bootstrap(&s, Unit::Task, Resampling { seed: 8, ..r }).all, task.all);
        assert_eq!(bootstrap(&Strata::default(), Unit::Task, r).all, None);
        assert_eq!(bootstrap(&s, Unit::Task, Resampling { level: 1.0, ..r }).all, None);
    }
}
