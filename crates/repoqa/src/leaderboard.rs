//! A leaderboard like the paper's Table 2 from the per-task records of one
//! or many SCORES files, at any threshold: pass@1 per language and the mean
//! over languages, with task counts.
//!
//! A task passes at `t` exactly as in the official table (docs/parity.md
//! S6): its best target is the needle and its similarity ≥ `t`; pass@1 is
//! the passed count divided by the task count once. At the eleven official
//! thresholds every cell therefore equals the file's own `scores` table
//! bit for bit; between them it is the same direct count.

use indexmap::IndexMap;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::bootstrap::{Resampling, Strata};
use crate::breakdown::passes;
use crate::evidence::{evidence_of, percent_span, EvidenceTable};
use crate::report::{ModelScores, ReportError, ScoresFile, TaskResult};

#[derive(Debug, Error)]
pub enum LeaderboardError {
    #[error("threshold {0} is not a number between 0 and 1")]
    Threshold(String),
    #[error("{origin}: not a gzip file: {message}")]
    Gzip { origin: String, message: String },
    #[error("{origin}: {exceeded}")]
    Inflate { origin: String, exceeded: crate::limits::InflateExceeded },
    #[error("{origin}: not UTF-8 text (first bad byte at offset {offset})")]
    Utf8 { origin: String, offset: usize },
    #[error(transparent)]
    Scores(#[from] ReportError),
}

/// A SCORES file from its bytes, plain or gzip-compressed (the published
/// files are kept as `.json.gz`); `origin` names it in errors.
pub fn read_scores(bytes: &[u8], origin: &str) -> Result<ScoresFile, LeaderboardError> {
    let plain;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        // A SCORES file of 500 tasks is about 150 KB: the dataset's
        // ceilings are far above any real one.
        plain = crate::limits::gunzip(bytes, crate::limits::InflateLimits::DATASET).map_err(
            |e| match e {
                crate::limits::GunzipError::Gzip(message) => {
                    LeaderboardError::Gzip { origin: origin.to_string(), message }
                }
                crate::limits::GunzipError::Exceeded(exceeded) => {
                    LeaderboardError::Inflate { origin: origin.to_string(), exceeded }
                }
            },
        )?;
        &plain[..]
    } else {
        bytes
    };
    let text = std::str::from_utf8(bytes).map_err(|e| LeaderboardError::Utf8 {
        origin: origin.to_string(),
        offset: e.valid_up_to(),
    })?;
    Ok(ScoresFile::parse(text, origin)?)
}

/// Check a threshold given by a user (slider, `--threshold`).
pub fn check_threshold(t: f64) -> Result<f64, LeaderboardError> {
    if t.is_finite() && (0.0..=1.0).contains(&t) {
        Ok(t)
    } else {
        Err(LeaderboardError::Threshold(t.to_string()))
    }
}

/// One language cell: passed out of n.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub passed: usize,
    pub n: usize,
    /// `passed / n` (as `np.mean` of 0/1 values computes it).
    pub pass: f64,
}

/// One model's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub model: String,
    /// Where the row came from (a file name), for display.
    pub source: String,
    /// Languages in the order of the model's `results`.
    pub languages: IndexMap<String, Cell>,
    /// Mean of the language pass rates (the paper's "Avg."), 0 without any.
    pub average: f64,
    /// All tasks of the model.
    pub tasks: usize,
    /// Passed tasks over all languages.
    pub passed: usize,
    /// Each task's pass (1) or fail (0) by language and repository, for the
    /// bootstrap intervals.
    pub outcomes: Strata,
}

impl Row {
    /// The row's pass@1 overall ("all", passed / tasks) and per language
    /// with their intervals.
    pub fn evidence(&self, threshold: f64, resampling: Resampling) -> EvidenceTable {
        evidence_of(&self.outcomes, threshold, resampling)
    }
}

/// What a table can be sorted by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    Model,
    Average,
    Tasks,
    Language(String),
}

/// The leaderboard at one threshold.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaderboard {
    pub threshold: f64,
    pub rows: Vec<Row>,
}

/// The row of one model at `threshold`.
pub fn model_row(
    model: &str,
    source: &str,
    results: &IndexMap<String, Vec<TaskResult>>,
    threshold: f64,
) -> Row {
    let mut languages = IndexMap::new();
    let mut tasks = 0;
    let mut passed_all = 0;
    for (lang, records) in results {
        if records.is_empty() {
            continue;
        }
        let passed = records.iter().filter(|t| passes(t, threshold)).count();
        let n = records.len();
        tasks += n;
        passed_all += passed;
        languages.insert(lang.clone(), Cell { passed, n, pass: passed as f64 / n as f64 });
    }
    let average = if languages.is_empty() {
        0.0
    } else {
        languages.values().map(|c| c.pass).sum::<f64>() / languages.len() as f64
    };
    Row {
        model: model.to_string(),
        source: source.to_string(),
        languages,
        average,
        tasks,
        passed: passed_all,
        outcomes: Strata::of_passes(results, threshold),
    }
}

impl Leaderboard {
    /// Every model of every file (`(source name, file)`), in order.
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a ScoresFile)>,
        threshold: f64,
    ) -> Result<Leaderboard, LeaderboardError> {
        let threshold = check_threshold(threshold)?;
        let mut rows = Vec::new();
        for (source, file) in files {
            for (model, scores) in &file.models {
                rows.push(model_row(model, source, &scores.results, threshold));
            }
        }
        Ok(Leaderboard { threshold, rows })
    }

    /// Models given one by one (`(model, source, scores)`).
    pub fn from_models<'a>(
        models: impl IntoIterator<Item = (&'a str, &'a str, &'a ModelScores)>,
        threshold: f64,
    ) -> Result<Leaderboard, LeaderboardError> {
        let threshold = check_threshold(threshold)?;
        let rows = models
            .into_iter()
            .map(|(model, source, s)| model_row(model, source, &s.results, threshold))
            .collect();
        Ok(Leaderboard { threshold, rows })
    }

    /// The language columns: every language of any row, in order of first
    /// appearance.
    pub fn languages(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.rows {
            for l in r.languages.keys() {
                if !out.contains(l) {
                    out.push(l.clone());
                }
            }
        }
        out
    }

    /// Sort rows (stable; ties keep their order). Descending puts the best
    /// first; a model without the language sorts after every model with it.
    pub fn sort(&mut self, key: &SortKey, descending: bool) {
        use std::cmp::Ordering;
        let value = |r: &Row| -> Option<f64> {
            match key {
                SortKey::Average => Some(r.average),
                SortKey::Tasks => Some(r.tasks as f64),
                SortKey::Language(l) => r.languages.get(l).map(|c| c.pass),
                SortKey::Model => None,
            }
        };
        self.rows.sort_by(|a, b| {
            if *key == SortKey::Model {
                let o = a.model.to_lowercase().cmp(&b.model.to_lowercase());
                return if descending { o.reverse() } else { o };
            }
            match (value(a), value(b)) {
                (Some(x), Some(y)) => {
                    let o = x.partial_cmp(&y).unwrap_or(Ordering::Equal);
                    if descending {
                        o.reverse()
                    } else {
                        o
                    }
                }
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
        });
    }

    /// `{"threshold": T, "models": [{"model", "languages": {LANG: PASS},
    /// "average", "tasks"}]}`, pass as a fraction.
    pub fn to_value(&self) -> Value {
        let models: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut langs = Map::new();
                for (l, c) in &r.languages {
                    langs.insert(l.clone(), float(c.pass));
                }
                let mut m = Map::new();
                m.insert("model".into(), Value::String(r.model.clone()));
                m.insert("languages".into(), Value::Object(langs));
                m.insert("average".into(), float(r.average));
                m.insert("tasks".into(), Value::from(r.tasks));
                Value::Object(m)
            })
            .collect();
        let mut out = Map::new();
        out.insert("threshold".into(), float(self.threshold));
        out.insert("models".into(), Value::Array(models));
        Value::Object(out)
    }

    /// The JSON text (Python layout, floats in `repr`).
    pub fn to_json(&self) -> String {
        crate::pyjson::dumps(&self.to_value())
    }

    /// [`Leaderboard::to_value`] with each model's Wilson score interval at
    /// the confidence level (`stats::wilson`): `"ci": {"method": "wilson",
    /// "level", "low", "high", LANG: {"method", "level", "low", "high"}}`,
    /// the first for its overall pass@1 (passed / tasks), then one per
    /// language; and its bootstrap intervals, `"ci_tasks"` and `"ci_repos"`
    /// of the same shape (`bootstrap::Intervals::to_map`). Without
    /// resampling, `to_value` as it is.
    pub fn to_value_with_ci(&self, resampling: Option<Resampling>) -> Value {
        let mut v = self.to_value();
        let Some(resampling) = resampling else { return v };
        if let Some(models) = v.get_mut("models").and_then(Value::as_array_mut) {
            for (m, r) in models.iter_mut().zip(&self.rows) {
                let Some(m) = m.as_object_mut() else { continue };
                let table = r.evidence(self.threshold, resampling);
                let Some((all, langs)) = table.rows.split_first() else { continue };
                let mut keyed = all.interval_values(resampling);
                for row in langs {
                    for ((_, c), (_, lang)) in keyed.iter_mut().zip(row.interval_values(resampling))
                    {
                        c.insert(row.name.clone(), Value::Object(lang));
                    }
                }
                for (key, c) in keyed {
                    m.insert(key.into(), Value::Object(c));
                }
            }
        }
        v
    }

    /// [`Leaderboard::render_text`] plus, with resampling, each model's
    /// overall pass@1, its Wilson interval and its bootstrap intervals by
    /// task and by repository.
    pub fn render_text_with_ci(&self, resampling: Option<Resampling>) -> String {
        let text = self.render_text();
        let Some(resampling) = resampling else { return text };
        let level = resampling.level;
        let mut lines = text.lines();
        let mut out = String::new();
        if let Some(title) = lines.next() {
            out.push_str(title);
            out.push('\n');
        }
        let head = format!("{:.0}% CI Wilson", 100.0 * level);
        if let Some(h) = lines.next() {
            out.push_str(&format!(
                "{h} {:>6} {head:>16} {:>16} {:>16}\n",
                "all", "by task", "by repository"
            ));
        }
        for (line, r) in lines.zip(&self.rows) {
            let table = r.evidence(self.threshold, resampling);
            let Some(all) = table.rows.first() else { continue };
            out.push_str(&format!(
                "{line} {:>6} {:>16} {:>16} {:>16}\n",
                percent(all.pass()),
                percent_span(all.wilson),
                percent_span(all.by_task),
                percent_span(all.by_repo)
            ));
        }
        out.push_str(&format!(
            "(\"all\" is passed / tasks; bootstrap: {} resamples, seed {}, stratified by language; the repository interval is the one to quote: a repository's needles share one code base)\n",
            resampling.resamples, resampling.seed
        ));
        out
    }

    /// A plain-text table: percentages with one decimal, task counts.
    pub fn render_text(&self) -> String {
        let langs = self.languages();
        let name_w = self.rows.iter().map(|r| r.model.chars().count()).max().unwrap_or(5).max(5);
        let mut out = format!("pass@1 (%) at threshold {}\n", fmt_threshold(self.threshold));
        out.push_str(&format!("{:<name_w$}", "Model"));
        for l in &langs {
            out.push_str(&format!(" {:>10}", l));
        }
        out.push_str(&format!(" {:>7} {:>6}\n", "Avg.", "tasks"));
        for r in &self.rows {
            out.push_str(&format!("{:<name_w$}", r.model));
            for l in &langs {
                match r.languages.get(l) {
                    Some(c) => out.push_str(&format!(" {:>10}", percent(c.pass))),
                    None => out.push_str(&format!(" {:>10}", "-")),
                }
            }
            out.push_str(&format!(" {:>7} {:>6}\n", percent(r.average), r.tasks));
        }
        out
    }
}

/// `95.0`, `90.6`: a rate as a percentage with one decimal.
pub fn percent(rate: f64) -> String {
    format!("{:.1}", 100.0 * rate)
}

/// A threshold as typed: `0.8`, `0.55`, `1`.
pub fn fmt_threshold(t: f64) -> String {
    let s = crate::pyjson::dumps(&float(t));
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

fn float(x: f64) -> Value {
    crate::pyjson::float_value(x)
}

/// Why a task does not pass at a threshold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MissKind {
    /// No needle had a positive similarity.
    NoTarget,
    /// Another needle was the closest.
    WrongTarget,
    /// The needle was the closest, but below the threshold.
    BelowThreshold,
}

impl MissKind {
    pub fn label(&self) -> &'static str {
        match self {
            MissKind::NoTarget => "no match",
            MissKind::WrongTarget => "picked another needle",
            MissKind::BelowThreshold => "below threshold",
        }
    }
}

/// A task a model did not pass, and what it picked instead.
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub language: String,
    pub repo: String,
    pub needle: String,
    pub best_target: Option<String>,
    pub similarity: f64,
    pub position: f64,
    pub kind: MissKind,
}

/// Every task of `results` that fails at `threshold`, in file order.
pub fn misses(results: &IndexMap<String, Vec<TaskResult>>, threshold: f64) -> Vec<Miss> {
    let mut out = Vec::new();
    for (lang, records) in results {
        for t in records {
            if passes(t, threshold) {
                continue;
            }
            let kind = if t.best_target.is_none() {
                MissKind::NoTarget
            } else if !t.is_best_similar {
                MissKind::WrongTarget
            } else {
                MissKind::BelowThreshold
            };
            out.push(Miss {
                language: lang.clone(),
                repo: t.repo.clone(),
                needle: t.name.clone(),
                best_target: t.best_target.clone(),
                similarity: t.score(),
                position: t.needle_position.as_f64().unwrap_or(0.0),
                kind,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{pass_table, THRESHOLDS};
    use serde_json::json;

    use crate::report::test_record as rec;

    fn results() -> IndexMap<String, Vec<TaskResult>> {
        let mut r = IndexMap::new();
        r.insert(
            "python".to_string(),
            vec![
                rec("f", Some("f"), 0.8),
                rec("g", Some("f"), 0.99),
                rec("h", None, 0.0),
                rec("i", Some("i"), 0.55),
            ],
        );
        r.insert("rust".to_string(), vec![rec("r", Some("r"), 0.83), rec("s", Some("s"), 0.1)]);
        r
    }

    #[test]
    fn equals_the_official_table_at_official_thresholds() {
        let r = results();
        let table = pass_table(&r).unwrap();
        for (i, t) in THRESHOLDS.iter().enumerate() {
            let row = model_row("m", "x", &r, *t);
            for (lang, cell) in &row.languages {
                let official = table.row(lang).unwrap();
                assert_eq!(cell.pass.to_bits(), official.pass_at_1[i].to_bits(), "{lang} at {t}");
                assert_eq!(cell.n, official.n);
            }
        }
    }

    #[test]
    fn any_threshold_is_a_direct_count() {
        let r = results();
        let row = model_row("m", "x", &r, 0.55);
        assert_eq!(row.languages["python"], Cell { passed: 2, n: 4, pass: 0.5 });
        assert_eq!(row.languages["rust"].passed, 1);
        assert_eq!(row.average, (0.5 + 0.5) / 2.0);
        assert_eq!((row.tasks, row.passed), (6, 3));
        let row = model_row("m", "x", &r, 0.83);
        assert_eq!(row.languages["python"].passed, 0);
        assert_eq!(row.languages["rust"].passed, 1);
        assert!(check_threshold(1.5).is_err());
        let gz = {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(
                br#"{"m": {"eval_date": "d", "train_size": "N/A", "scores": {}, "results": {}}}"#,
            )
            .unwrap();
            e.finish().unwrap()
        };
        assert_eq!(read_scores(&gz, "m.json.gz").unwrap().models.len(), 1);
        assert!(read_scores(&gz[..10], "m.json.gz")
            .unwrap_err()
            .to_string()
            .starts_with("m.json.gz: not a gzip"));
        assert!(check_threshold(f64::NAN).is_err());
    }

    #[test]
    fn json_shape_and_sorting() {
        let r = results();
        let mut other = IndexMap::new();
        other.insert("python".to_string(), vec![rec("f", Some("f"), 1.0)]);
        let ms = |results| ModelScores {
            eval_date: "d".into(),
            train_size: "N/A".into(),
            scores: json!({}),
            results,
            protocol: Default::default(),
            unanswered: None,
            replies: Default::default(),
        };
        let (a, b) = (ms(r), ms(other));
        let mut lb =
            Leaderboard::from_models([("a", "a.json", &a), ("b", "b.json", &b)], 0.8).unwrap();
        assert_eq!(lb.languages(), ["python", "rust"]);
        assert_eq!(
            lb.to_json(),
            r#"{"threshold": 0.8, "models": [{"model": "a", "languages": {"python": 0.25, "rust": 0.5}, "average": 0.375, "tasks": 6}, {"model": "b", "languages": {"python": 1.0}, "average": 1.0, "tasks": 1}]}"#
        );
        lb.sort(&SortKey::Average, true);
        assert_eq!(lb.rows[0].model, "b");
        lb.sort(&SortKey::Language("rust".into()), true);
        assert_eq!(lb.rows[0].model, "a");
        lb.sort(&SortKey::Language("rust".into()), false);
        assert_eq!(lb.rows[0].model, "a", "a model without the language sorts last");
        lb.sort(&SortKey::Model, false);
        assert_eq!(lb.rows[0].model, "a");
        assert!(lb.render_text().contains("25.0"));
        assert_eq!(fmt_threshold(0.8), "0.8");
        assert_eq!(fmt_threshold(1.0), "1");
    }

    #[test]
    fn misses_say_what_was_picked() {
        let m = misses(&results(), 0.8);
        let got: Vec<(&str, MissKind)> =
            m.iter().map(|m| (m.needle.as_str(), m.kind.clone())).collect();
        assert_eq!(
            got,
            [
                ("g", MissKind::WrongTarget),
                ("h", MissKind::NoTarget),
                ("i", MissKind::BelowThreshold),
                ("s", MissKind::BelowThreshold)
            ]
        );
        assert_eq!(m[0].best_target.as_deref(), Some("f"));
    }
}
