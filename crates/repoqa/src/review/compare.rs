//! Two runs on the same tasks, compared task by task at a threshold: the
//! 2×2 table of passes (both, only A, only B, neither) overall and per
//! language, McNemar's exact test on the tasks that differ (`stats`), and
//! those tasks, flipped one way or the other. Runs on different task sets
//! are refused, naming the tasks that differ: never silently compared.

use std::collections::HashSet;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::report::{ModelScores, TaskResult};
use crate::review::bootstrap::{bootstrap, Intervals, Resampling, Strata, Unit};
use crate::review::evidence::{points, points_span};
use crate::review::stats::mcnemar_exact;
use crate::scoring::breakdown::passes;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum CompareError {
    #[error("the two runs are not on the same tasks: {only_a} only in A (first: {first_a}), {only_b} only in B (first: {first_b}); a paired comparison needs the same tasks")]
    DifferentTasks { only_a: usize, first_a: String, only_b: usize, first_b: String },
    #[error(
        "run {run} holds task {task} more than once; a paired comparison needs each task once"
    )]
    Repeated { run: char, task: String },
}

/// The 2×2 table of two runs' passes on the same tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    pub both: usize,
    pub only_a: usize,
    pub only_b: usize,
    pub neither: usize,
}

impl Counts {
    fn add(&mut self, a: bool, b: bool) {
        match (a, b) {
            (true, true) => self.both += 1,
            (true, false) => self.only_a += 1,
            (false, true) => self.only_b += 1,
            (false, false) => self.neither += 1,
        }
    }

    pub fn tasks(&self) -> usize {
        self.both + self.only_a + self.only_b + self.neither
    }

    /// pass@1 of A minus pass@1 of B (0 without tasks).
    pub fn difference(&self) -> f64 {
        match self.tasks() {
            0 => 0.0,
            n => (self.only_a as f64 - self.only_b as f64) / n as f64,
        }
    }

    /// McNemar's exact p-value of the discordant pairs.
    pub fn mcnemar_p(&self) -> f64 {
        mcnemar_exact(self.only_a, self.only_b)
    }

    fn to_map(self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("both".into(), Value::from(self.both));
        m.insert("only_a".into(), Value::from(self.only_a));
        m.insert("only_b".into(), Value::from(self.only_b));
        m.insert("neither".into(), Value::from(self.neither));
        m.insert("mcnemar_p".into(), crate::python::json::float_value(self.mcnemar_p()));
        m
    }
}

/// A task one run passes and the other does not.
#[derive(Clone, Debug, PartialEq)]
pub struct Flip {
    pub language: String,
    pub repo: String,
    pub name: String,
    /// Whether A (and B) pass it.
    pub a: bool,
    pub b: bool,
    /// The best similarity of each run's answer.
    pub a_similarity: f64,
    pub b_similarity: f64,
    /// What each run's answer was closest to (None: nothing).
    pub a_target: Option<String>,
    pub b_target: Option<String>,
    pub needle_position: Value,
}

impl Flip {
    /// The needle's position ratio (0 when the record has none).
    pub fn depth(&self) -> f64 {
        self.needle_position.as_f64().unwrap_or(0.0)
    }
}

/// Two runs compared.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    pub threshold: f64,
    pub all: Counts,
    pub languages: IndexMap<String, Counts>,
    /// In A's task order.
    pub flipped: Vec<Flip>,
    /// Each task's pass in A minus its pass in B (−1, 0, 1), for the
    /// bootstrap intervals of the difference.
    pub differences: Strata,
}

/// The bootstrap intervals of A − B, resampling tasks and repositories.
#[derive(Clone, Debug, PartialEq)]
pub struct DifferenceIntervals {
    pub tasks: Intervals,
    pub repos: Intervals,
}

type Key<'a> = (&'a str, &'a str, &'a str);

fn keyed<'a>(
    run: char,
    results: &'a IndexMap<String, Vec<TaskResult>>,
) -> Result<IndexMap<Key<'a>, &'a TaskResult>, CompareError> {
    let mut out = IndexMap::new();
    for (lang, tasks) in results {
        for t in tasks {
            let key = (lang.as_str(), t.repo.as_str(), t.name.as_str());
            if out.insert(key, t).is_some() {
                return Err(CompareError::Repeated {
                    run,
                    task: crate::report::task_id(lang, &t.repo, &t.name),
                });
            }
        }
    }
    Ok(out)
}

/// Compare `a` and `b` at `threshold`.
pub fn compare(a: &ModelScores, b: &ModelScores, threshold: f64) -> Result<Paired, CompareError> {
    let (ka, kb) = (keyed('A', &a.results)?, keyed('B', &b.results)?);
    let sa: HashSet<&Key> = ka.keys().collect();
    let sb: HashSet<&Key> = kb.keys().collect();
    let only_a: Vec<&Key> = ka.keys().filter(|k| !sb.contains(k)).collect();
    let only_b: Vec<&Key> = kb.keys().filter(|k| !sa.contains(k)).collect();
    if !only_a.is_empty() || !only_b.is_empty() {
        let name = |k: Option<&&Key>| {
            k.map(|(l, r, n)| crate::report::task_id(l, r, n)).unwrap_or_else(|| "none".into())
        };
        return Err(CompareError::DifferentTasks {
            only_a: only_a.len(),
            first_a: name(only_a.first()),
            only_b: only_b.len(),
            first_b: name(only_b.first()),
        });
    }
    let mut all = Counts::default();
    let mut languages: IndexMap<String, Counts> = IndexMap::new();
    let mut flipped = Vec::new();
    let mut differences = Strata::default();
    for (key, ta) in &ka {
        let tb = kb[key];
        let (pa, pb) = (passes(ta, threshold), passes(tb, threshold));
        all.add(pa, pb);
        differences.push(key.0, key.1, f64::from(u8::from(pa)) - f64::from(u8::from(pb)));
        languages.entry(key.0.to_string()).or_default().add(pa, pb);
        if pa != pb {
            flipped.push(Flip {
                language: key.0.to_string(),
                repo: key.1.to_string(),
                name: key.2.to_string(),
                a: pa,
                b: pb,
                a_similarity: ta.score(),
                b_similarity: tb.score(),
                a_target: ta.best_target.clone(),
                b_target: tb.best_target.clone(),
                needle_position: ta.needle_position.clone(),
            });
        }
    }
    Ok(Paired { threshold, all, languages, flipped, differences })
}

impl Paired {
    /// The percentile bootstrap intervals of pass@1(A) − pass@1(B),
    /// stratified by language: resampling tasks, and repositories.
    pub fn intervals(&self, resampling: Resampling) -> DifferenceIntervals {
        DifferenceIntervals {
            tasks: bootstrap(&self.differences, Unit::Task, resampling),
            repos: bootstrap(&self.differences, Unit::Repo, resampling),
        }
    }

    /// `{"threshold", "both", "only_a", "only_b", "neither", "mcnemar_p",
    /// "difference", "ci_tasks", "ci_repos", "languages": {LANG: {the same
    /// for the language}}, "flipped": [{"language", "repo", "name", "a",
    /// "b", "a_similarity", "b_similarity", "a_target", "b_target",
    /// "needle_position"}]}`; the intervals as
    /// `bootstrap::Intervals::to_map` writes them.
    pub fn to_value(&self, resampling: Resampling) -> Value {
        let ci = self.intervals(resampling);
        let with_ci = |c: &Counts, lang: Option<&str>| {
            let mut m = c.to_map();
            m.insert("difference".into(), crate::python::json::float_value(c.difference()));
            m.insert("ci_tasks".into(), Value::Object(ci.tasks.to_map(lang)));
            m.insert("ci_repos".into(), Value::Object(ci.repos.to_map(lang)));
            m
        };
        let mut m = Map::new();
        m.insert("threshold".into(), crate::python::json::float_value(self.threshold));
        m.extend(with_ci(&self.all, None));
        let langs: Map<String, Value> = self
            .languages
            .iter()
            .map(|(l, c)| (l.clone(), Value::Object(with_ci(c, Some(l)))))
            .collect();
        m.insert("languages".into(), Value::Object(langs));
        let flipped: Vec<Value> = self
            .flipped
            .iter()
            .map(|f| {
                let mut x = Map::new();
                x.insert("language".into(), Value::String(f.language.clone()));
                x.insert("repo".into(), Value::String(f.repo.clone()));
                x.insert("name".into(), Value::String(f.name.clone()));
                x.insert("a".into(), Value::Bool(f.a));
                x.insert("b".into(), Value::Bool(f.b));
                x.insert("a_similarity".into(), crate::python::json::float_value(f.a_similarity));
                x.insert("b_similarity".into(), crate::python::json::float_value(f.b_similarity));
                let target =
                    |t: &Option<String>| t.clone().map(Value::String).unwrap_or(Value::Null);
                x.insert("a_target".into(), target(&f.a_target));
                x.insert("b_target".into(), target(&f.b_target));
                x.insert("needle_position".into(), f.needle_position.clone());
                Value::Object(x)
            })
            .collect();
        m.insert("flipped".into(), Value::Array(flipped));
        Value::Object(m)
    }

    /// A plain-text report: the table overall and per language, the test,
    /// the difference with its intervals, the flipped tasks.
    pub fn render_text(&self, a: &str, b: &str, resampling: Resampling) -> String {
        let mut out = format!(
            "A = {a}\nB = {b}\npaired on {} tasks at threshold {}\n\n",
            self.all.tasks(),
            self.threshold
        );
        out.push_str(&format!(
            "{:<12} {:>6} {:>7} {:>7} {:>8} {:>12}\n",
            "", "both", "only A", "only B", "neither", "McNemar p"
        ));
        let row = |name: &str, c: &Counts| {
            format!(
                "{name:<12} {:>6} {:>7} {:>7} {:>8} {:>12.4}\n",
                c.both,
                c.only_a,
                c.only_b,
                c.neither,
                c.mcnemar_p()
            )
        };
        out.push_str(&row("all", &self.all));
        for (l, c) in &self.languages {
            out.push_str(&row(l, c));
        }
        let verdict = if self.all.mcnemar_p() < 0.05 {
            "the runs differ at the 0.05 level (McNemar's exact test)"
        } else {
            "no difference at the 0.05 level (McNemar's exact test): the gap is within the noise of these tasks"
        };
        out.push_str(&format!("\n{verdict}\n"));
        let ci = self.intervals(resampling);
        out.push_str(&format!(
            "\n{:<12} {:>9} {:>20} {:>20}\n",
            "A − B",
            "points",
            format!("{:.0}% CI by task", 100.0 * resampling.level),
            "by repository"
        ));
        let diff_row = |name: &str, c: &Counts, lang: Option<&str>| {
            format!(
                "{name:<12} {:>9} {:>20} {:>20}\n",
                points(c.difference()),
                points_span(ci.tasks.get(lang)),
                points_span(ci.repos.get(lang))
            )
        };
        out.push_str(&diff_row("all", &self.all, None));
        for (l, c) in &self.languages {
            out.push_str(&diff_row(l, c, Some(l)));
        }
        out.push_str(&format!(
            "(percentile bootstrap, {} resamples, seed {}, stratified by language; quote the repository interval: a repository's needles come from one code base, so its tasks are not independent)\n",
            resampling.resamples, resampling.seed
        ));
        if !self.flipped.is_empty() {
            out.push_str(&format!("\n{} task(s) flipped:\n", self.flipped.len()));
            for f in &self.flipped {
                out.push_str(&format!(
                    "  {} {} {}: {} (A {:.3}, B {:.3})\n",
                    f.language,
                    f.repo,
                    f.name,
                    if f.a { "only A passes" } else { "only B passes" },
                    f.a_similarity,
                    f.b_similarity
                ));
            }
        }
        out
    }
}
