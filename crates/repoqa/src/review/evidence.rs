//! A pass@1 with its evidence, overall and per language: passed out of n,
//! the Wilson score interval (`stats`), and the percentile bootstrap
//! intervals by task and by repository (`bootstrap`). One place computes
//! them for `repoqa score --ci`, `verify --ci`, `leaderboard --ci` and the
//! app's Results and Leaderboard pages.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::python::json::{float_repr, float_value};
use crate::report::TaskResult;
use crate::review::bootstrap::{bootstrap, interval_map, Resampling, Strata, Unit};
use crate::review::stats::{wilson, RateInterval};

/// One row: "all" or a language.
#[derive(Clone, Debug, PartialEq)]
pub struct RateEvidence {
    pub name: String,
    pub passed: usize,
    pub n: usize,
    pub wilson: Option<RateInterval>,
    pub by_task: Option<RateInterval>,
    pub by_repo: Option<RateInterval>,
}

impl RateEvidence {
    /// passed / n (0 without tasks).
    pub fn pass(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.passed as f64 / self.n as f64
        }
    }
}

/// "all" first, then each language with tasks.
#[derive(Clone, Debug, PartialEq)]
pub struct EvidenceTable {
    pub threshold: f64,
    pub resampling: Resampling,
    pub rows: Vec<RateEvidence>,
}

/// The evidence of pass values (1/0 per task) grouped by language and
/// repository.
pub fn evidence_of(outcomes: &Strata, threshold: f64, resampling: Resampling) -> EvidenceTable {
    let [tasks, repos] = [Unit::Task, Unit::Repo].map(|u| bootstrap(outcomes, u, resampling));
    let row = |name: &str, values: Vec<f64>, lang: Option<&str>| {
        let n = values.len();
        let passed = values.iter().filter(|&&v| v > 0.5).count();
        RateEvidence {
            name: name.to_string(),
            passed,
            n,
            wilson: wilson(passed, n, resampling.level),
            by_task: tasks.get(lang),
            by_repo: repos.get(lang),
        }
    };
    let all: Vec<f64> =
        outcomes.languages.values().flat_map(|r| r.values().flatten()).copied().collect();
    let mut rows = vec![row("all", all, None)];
    for (lang, repos) in &outcomes.languages {
        let values: Vec<f64> = repos.values().flatten().copied().collect();
        if !values.is_empty() {
            rows.push(row(lang, values, Some(lang)));
        }
    }
    EvidenceTable { threshold, resampling, rows }
}

/// The evidence of a run's records at `threshold`.
pub fn evidence(
    results: &IndexMap<String, Vec<TaskResult>>,
    threshold: f64,
    resampling: Resampling,
) -> EvidenceTable {
    evidence_of(&Strata::of_passes(results, threshold), threshold, resampling)
}

/// `{"method": "wilson", "level", "low", "high"}`.
fn wilson_map(level: f64, i: Option<RateInterval>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("method".into(), Value::String("wilson".into()));
    m.insert("level".into(), float_value(level));
    if let Some(i) = i {
        m.insert("low".into(), float_value(i.low));
        m.insert("high".into(), float_value(i.high));
    }
    m
}

impl RateEvidence {
    /// `{"name", "passed", "n", "pass", "ci", "ci_tasks", "ci_repos"}`,
    /// the intervals as the leaderboard writes them.
    pub fn to_value(&self, r: Resampling) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.name.clone()));
        m.insert("passed".into(), Value::from(self.passed));
        m.insert("n".into(), Value::from(self.n));
        m.insert("pass".into(), float_value(self.pass()));
        for (key, v) in self.interval_values(r) {
            m.insert(key.into(), Value::Object(v));
        }
        Value::Object(m)
    }

    /// `("ci", Wilson), ("ci_tasks", …), ("ci_repos", …)` as JSON objects.
    pub fn interval_values(&self, r: Resampling) -> [(&'static str, Map<String, Value>); 3] {
        [
            ("ci", wilson_map(r.level, self.wilson)),
            ("ci_tasks", interval_map(Unit::Task, r, self.by_task)),
            ("ci_repos", interval_map(Unit::Repo, r, self.by_repo)),
        ]
    }
}

/// An interval's ends as `repr` floats (data attributes), empty without one.
pub fn bounds_repr(i: Option<RateInterval>) -> (String, String) {
    i.map(|i| (float_repr(i.low), float_repr(i.high))).unwrap_or_default()
}

/// A difference of rates in points with a sign: `+1.2`.
pub fn points(x: f64) -> String {
    format!("{:+.1}", 100.0 * x)
}

/// `-1.8 to +2.2` points, "-" without an interval.
pub fn points_span(i: Option<RateInterval>) -> String {
    i.map(|i| format!("{} to {}", points(i.low), points(i.high))).unwrap_or_else(|| "-".into())
}

/// `12.3–45.6` in percent with one decimal, "-" without an interval.
pub fn percent_span(i: Option<RateInterval>) -> String {
    i.map(|i| format!("{:.1}–{:.1}", 100.0 * i.low, 100.0 * i.high)).unwrap_or_else(|| "-".into())
}

impl EvidenceTable {
    /// `{"threshold", "rows": [RateEvidence::to_value…]}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("threshold".into(), float_value(self.threshold));
        let rows = self.rows.iter().map(|r| r.to_value(self.resampling)).collect();
        m.insert("rows".into(), Value::Array(rows));
        Value::Object(m)
    }

    /// A plain-text table: pass@1, n and the three intervals in percent,
    /// then how the bootstrap was drawn and which interval to quote.
    pub fn render_text(&self) -> String {
        let r = self.resampling;
        let name_w = self.rows.iter().map(|r| r.name.len()).max().unwrap_or(3).max(10);
        let level = format!("{}%", 100.0 * r.level);
        let mut out = format!(
            "pass@1 (%) at threshold {} with {level} intervals\n{:<name_w$} {:>6} {:>5} {:>13} {:>13} {:>13}\n",
            self.threshold, "", "pass@1", "n", "Wilson", "by task", "by repository"
        );
        for row in &self.rows {
            out.push_str(&format!(
                "{:<name_w$} {:>6.1} {:>5} {:>13} {:>13} {:>13}\n",
                row.name,
                100.0 * row.pass(),
                row.n,
                percent_span(row.wilson),
                percent_span(row.by_task),
                percent_span(row.by_repo)
            ));
        }
        out.push_str(&format!(
            "(bootstrap: percentile, {} resamples, seed {}, stratified by language; quote the repository interval: a repository's needles share one code base, so its tasks are not independent; \"-\": a language of one repository has none)\n",
            r.resamples, r.seed
        ));
        out
    }
}
