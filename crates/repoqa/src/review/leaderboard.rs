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

use crate::report::{ModelScores, Protocol, ReportError, ScoresFile, TaskResult};
use crate::review::bootstrap::{Resampling, Strata};
use crate::review::evidence::{evidence_of, percent_span, EvidenceTable};
use crate::review::memorized::closed_book_pairs;
use crate::scoring::breakdown::passes;

#[derive(Debug, Error)]
pub enum LeaderboardError {
    #[error("threshold {0} is not a number between 0 and 1")]
    Threshold(String),
    #[error("{origin}: not a gzip file: {message}")]
    Gzip { origin: String, message: String },
    #[error("{origin}: {exceeded}")]
    Inflate { origin: String, exceeded: crate::input::limits::InflateExceeded },
    #[error("{origin}: not a SCORES file: binary data, not UTF-8 text (first bad byte at offset {offset}); a SCORES file is JSON")]
    Utf8 { origin: String, offset: usize },
    #[error("{origin}: the file is empty; a SCORES file is a JSON object of models (repoqa score writes one)")]
    Empty { origin: String },
    /// Another of the project's files (`sniff::wrong_file`'s words).
    #[error("{origin}: {hint}")]
    OtherKind { origin: String, hint: String },
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
        plain = crate::input::limits::gunzip(bytes, crate::input::limits::InflateLimits::DATASET)
            .map_err(|e| match e {
            crate::input::limits::GunzipError::Gzip(message) => {
                LeaderboardError::Gzip { origin: origin.to_string(), message }
            }
            crate::input::limits::GunzipError::Exceeded(exceeded) => {
                LeaderboardError::Inflate { origin: origin.to_string(), exceeded }
            }
        })?;
        &plain[..]
    } else {
        bytes
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(LeaderboardError::Empty { origin: origin.to_string() });
    }
    // A file that does not read as SCORES is named for what it is, when it
    // is another of the project's files (an outputs JSONL, a dataset…),
    // rather than by the parser's "trailing characters at line 2".
    let other_kind = || {
        crate::input::sniff::wrong_file(bytes, crate::input::sniff::FileKind::Scores)
            .map(|hint| LeaderboardError::OtherKind { origin: origin.to_string(), hint })
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            return Err(other_kind().unwrap_or(LeaderboardError::Utf8 {
                origin: origin.to_string(),
                offset: e.valid_up_to(),
            }))
        }
    };
    ScoresFile::parse(text, origin).map_err(|e| other_kind().unwrap_or_else(|| e.into()))
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
    /// Parts of the file's own `scores` table (cells, the row list, a
    /// row's threshold keys) that differ from what its records give
    /// ([`table_differences`]): the row shows the records, so it then
    /// differs from the file's table. 0 for a row made from records alone.
    pub table_differs: usize,
    /// NOT UPSTREAM: the run was closed-book (the no-context protocol).
    pub closed_book: bool,
    /// NOT UPSTREAM: the file's `dataset_freshness` (`YYYY-MM-DD`).
    pub dataset_freshness: Option<String>,
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
    /// Each model given with a run with the code and a closed-book run:
    /// the two compared (`memorized`). Empty for rows from records alone.
    pub remembering: Vec<Remembering>,
}

/// A model's run with the code beside its closed-book run (NOT UPSTREAM).
#[derive(Clone, Debug, PartialEq)]
pub struct Remembering {
    pub model: String,
    /// pass@1 with the code.
    pub open_pass: f64,
    /// The memorized share: the tasks passed with no code.
    pub share: f64,
    /// McNemar's exact p of the two runs, task by task.
    pub mcnemar_p: f64,
    pub tasks: usize,
}

/// The closed-book pairs among `runs` at `threshold` (a pair that cannot be
/// compared is left out: `repoqa report` says why).
fn remembering<'a>(
    runs: impl IntoIterator<Item = (&'a str, &'a ModelScores)>,
    threshold: f64,
) -> Vec<Remembering> {
    closed_book_pairs(runs, threshold)
        .into_iter()
        .flatten()
        .map(|m| Remembering {
            open_pass: m.open_pass(),
            share: m.share(),
            mcnemar_p: m.paired.all.mcnemar_p(),
            tasks: m.paired.all.tasks(),
            model: m.model,
        })
        .collect()
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
        table_differs: 0,
        closed_book: false,
        dataset_freshness: None,
    }
}

/// The row of one model of a SCORES file: [`model_row`] from its records,
/// with [`Row::table_differs`] counted against the file's own table.
fn file_row(model: &str, source: &str, scores: &ModelScores, threshold: f64) -> Row {
    let mut row = model_row(model, source, &scores.results, threshold);
    row.table_differs = table_differences(model, scores);
    dated(row, scores)
}

/// The row with what its file says of its tasks.
fn dated(mut row: Row, scores: &ModelScores) -> Row {
    row.closed_book = scores.protocol == Protocol::NoContext;
    row.dataset_freshness = scores.dataset_freshness.clone();
    row
}

/// How many parts of a model's own `scores` table differ from the table
/// its records give (`verify::check_table`): a cell whose number differs
/// or is missing, a differing row list, a row with other threshold keys.
/// A cell equal in number but not in text (`1` for `1.0`, as a re-save by
/// JavaScript writes it) is verify's concern, not a disagreement of
/// numbers. 0 when they agree, as in every published file.
pub fn table_differences(model: &str, scores: &ModelScores) -> usize {
    use crate::review::verify::Finding;
    let number = |s: &str| s.parse::<f64>().ok();
    crate::review::verify::check_table(model, scores)
        .iter()
        .filter(|f| match f {
            Finding::NoTasks { .. } => false,
            Finding::Cell { in_file, recomputed, .. } => {
                in_file.as_deref().and_then(number).is_none()
                    || in_file.as_deref().and_then(number) != number(recomputed)
            }
            _ => true,
        })
        .count()
}

impl Leaderboard {
    /// Every model of every file (`(source name, file)`), in order.
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a ScoresFile)>,
        threshold: f64,
    ) -> Result<Leaderboard, LeaderboardError> {
        let threshold = check_threshold(threshold)?;
        let mut rows = Vec::new();
        let mut runs = Vec::new();
        for (source, file) in files {
            for (model, scores) in &file.models {
                rows.push(file_row(model, source, scores, threshold));
                runs.push((model.as_str(), scores));
            }
        }
        Ok(Leaderboard { threshold, rows, remembering: remembering(runs, threshold) })
    }

    /// The same files at another threshold: each row recounted, its file's
    /// table check ([`Row::table_differs`]) taken from `self` (it does not
    /// depend on the threshold), so a slider moving does not redo it. A
    /// model `self` lacks is checked.
    pub fn at_threshold<'a>(
        &self,
        files: impl IntoIterator<Item = (&'a str, &'a ScoresFile)>,
        threshold: f64,
    ) -> Result<Leaderboard, LeaderboardError> {
        let threshold = check_threshold(threshold)?;
        let mut rows = Vec::new();
        let mut runs = Vec::new();
        for (source, file) in files {
            for (model, scores) in &file.models {
                let mut row = model_row(model, source, &scores.results, threshold);
                row.table_differs = self
                    .rows
                    .iter()
                    .find(|r| r.source == source && r.model == *model)
                    .map_or_else(|| table_differences(model, scores), |r| r.table_differs);
                rows.push(dated(row, scores));
                runs.push((model.as_str(), scores));
            }
        }
        Ok(Leaderboard { threshold, rows, remembering: remembering(runs, threshold) })
    }

    /// Models given one by one (`(model, source, scores)`).
    pub fn from_models<'a>(
        models: impl IntoIterator<Item = (&'a str, &'a str, &'a ModelScores)>,
        threshold: f64,
    ) -> Result<Leaderboard, LeaderboardError> {
        let threshold = check_threshold(threshold)?;
        let models: Vec<_> = models.into_iter().collect();
        let rows =
            models.iter().map(|(model, source, s)| file_row(model, source, s, threshold)).collect();
        let remembering = remembering(models.iter().map(|(m, _, s)| (*m, *s)), threshold);
        Ok(Leaderboard { threshold, rows, remembering })
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
    /// "average", "tasks"}]}`, pass as a fraction; a row whose file's own
    /// table differs from its records also has `"table_differs": N`.
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
                if r.table_differs > 0 {
                    m.insert("table_differs".into(), Value::from(r.table_differs));
                }
                if r.closed_book {
                    m.insert("closed_book".into(), Value::Bool(true));
                }
                if let Some(d) = &r.dataset_freshness {
                    m.insert("dataset_freshness".into(), Value::String(d.clone()));
                }
                Value::Object(m)
            })
            .collect();
        let mut out = Map::new();
        out.insert("threshold".into(), float(self.threshold));
        out.insert("models".into(), Value::Array(models));
        if !self.remembering.is_empty() {
            let pairs = self
                .remembering
                .iter()
                .map(|r| {
                    let mut m = Map::new();
                    m.insert("model".into(), Value::String(r.model.clone()));
                    m.insert("open_pass".into(), float(r.open_pass));
                    m.insert("memorized_share".into(), float(r.share));
                    m.insert("mcnemar_p".into(), float(r.mcnemar_p));
                    m.insert("tasks".into(), Value::from(r.tasks));
                    Value::Object(m)
                })
                .collect();
            out.insert("remembering".into(), Value::Array(pairs));
        }
        Value::Object(out)
    }

    /// The JSON text (Python layout, floats in `repr`).
    pub fn to_json(&self) -> String {
        crate::python::json::dumps(&self.to_value())
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
        // Rows first: `zip` takes from its first side first, so no note
        // line is taken and dropped when the rows run out.
        for (r, line) in self.rows.iter().zip(lines.by_ref()) {
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
        // The notes under the table (rows whose file's table differs).
        for line in lines {
            out.push_str(line);
            out.push('\n');
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
        let label = |r: &Row| {
            if r.closed_book {
                format!("{} [closed-book]", r.model)
            } else {
                r.model.clone()
            }
        };
        let name_w = self.rows.iter().map(|r| label(r).chars().count()).max().unwrap_or(5).max(5);
        let mut out = format!("pass@1 (%) at threshold {}\n", fmt_threshold(self.threshold));
        out.push_str(&format!("{:<name_w$}", "Model"));
        for l in &langs {
            out.push_str(&format!(" {:>10}", l));
        }
        out.push_str(&format!(" {:>7} {:>6}\n", "Avg.", "tasks"));
        for r in &self.rows {
            out.push_str(&format!("{:<name_w$}", label(r)));
            for l in &langs {
                match r.languages.get(l) {
                    Some(c) => out.push_str(&format!(" {:>10}", percent(c.pass))),
                    None => out.push_str(&format!(" {:>10}", "-")),
                }
            }
            out.push_str(&format!(" {:>7} {:>6}\n", percent(r.average), r.tasks));
        }
        for r in self.rows.iter().filter(|r| r.table_differs > 0) {
            out.push_str(&format!(
                "! {} ({}): {} of its file's own table {} from its records; the row shows the records (repoqa verify names them)\n",
                r.model,
                r.source,
                if r.table_differs == 1 { "1 part".to_string() } else { format!("{} parts", r.table_differs) },
                if r.table_differs == 1 { "differs" } else { "differ" }
            ));
        }
        for r in self.rows.iter().filter(|r| r.dataset_freshness.is_some()) {
            out.push_str(&format!(
                "{}{}: dataset sources first released on {} or later\n",
                r.model,
                if r.closed_book { " [closed-book]" } else { "" },
                r.dataset_freshness.as_deref().unwrap_or("")
            ));
        }
        for m in &self.remembering {
            out.push_str(&format!(
                "Is the model remembering? {}: pass@1 {} with the code, {} closed-book (the memorized share), McNemar p = {:.4}, {} tasks\n",
                m.model,
                percent(m.open_pass),
                percent(m.share),
                m.mcnemar_p,
                m.tasks
            ));
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
    let s = crate::python::json::dumps(&float(t));
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

fn float(x: f64) -> Value {
    crate::python::json::float_value(x)
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
    use crate::scoring::score::{pass_table, THRESHOLDS};
    use serde_json::json;

    use crate::report::{test_record as rec, test_scores};

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
    fn a_file_that_is_no_scores_file_is_named_for_what_it_is() {
        let said = |bytes: &[u8]| read_scores(bytes, "f").unwrap_err().to_string();
        assert!(said(b"").starts_with("f: the file is empty"), "{}", said(b""));
        assert!(said(b" \n").starts_with("f: the file is empty"));
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert!(said(png).starts_with("f: not a SCORES file: binary data"), "{}", said(png));
        let outputs = concat!(
            r#"{"repo": "a/b", "name": "f", "language": "python", "output": ["x"]}"#,
            "\n",
            r#"{"repo": "a/b", "name": "g", "language": "python", "output": ["y"]}"#,
            "\n"
        );
        let s = said(outputs.as_bytes());
        assert!(s.starts_with("f: this looks like a model-outputs JSONL"), "{s}");
        assert!(s.contains("Results page"), "{s}");
        let demo = include_bytes!("../../../../public/demo/repoqa-demo.json");
        assert!(said(demo).starts_with("f: this looks like a RepoQA dataset"), "{}", said(demo));
        // A SCORES file with a fault is still told its fault.
        let s = said(br#"{"m": {"eval_date": "d", "train_size": "N/A", "scores": {}}}"#);
        assert!(s.contains("results"), "{s}");
    }

    #[test]
    fn json_shape_and_sorting() {
        let r = results();
        let mut other = IndexMap::new();
        other.insert("python".to_string(), vec![rec("f", Some("f"), 1.0)]);
        let (a, b) = (test_scores(r), test_scores(other));
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
    fn a_row_whose_file_table_differs_from_its_records_is_flagged() {
        let r = results();
        let agrees = test_scores(r.clone());
        let mut scores = agrees.scores.clone();
        // Equal numbers written otherwise are no disagreement.
        scores["rust"]["1.0"] = json!({"pass@1": 0});
        let rewritten = ModelScores { scores: scores.clone(), ..agrees.clone() };
        assert_eq!(table_differences("a", &rewritten), 0);
        // One cell edited: the file claims more than its records give.
        scores["python"]["0.8"] = json!({"pass@1": 0.75});
        let edited = ModelScores { scores, ..agrees.clone() };
        let lb =
            Leaderboard::from_models([("a", "a.json", &agrees), ("b", "b.json", &edited)], 0.8)
                .unwrap();
        assert_eq!((lb.rows[0].table_differs, lb.rows[1].table_differs), (0, 1));
        // The row shows the records either way.
        assert_eq!(lb.rows[0].languages, lb.rows[1].languages);
        let json = lb.to_json();
        assert!(json.contains(r#""tasks": 6, "table_differs": 1}"#), "{json}");
        assert_eq!(json.matches("table_differs").count(), 1, "{json}");
        let note = "! b (b.json): 1 part of its file's own table differs from its records";
        assert!(lb.render_text().contains(note), "{}", lb.render_text());
        let with_ci =
            lb.render_text_with_ci(Some(Resampling { resamples: 50, ..Resampling::at(0.95) }));
        assert!(with_ci.contains(note), "{with_ci}");
        assert_eq!(
            with_ci.lines().filter(|l| l.starts_with("a ") || l.starts_with("b ")).count(),
            2
        );
        // At another threshold the check is carried over, not redone.
        let files = [
            ("a.json", ScoresFile::single("a", agrees.clone())),
            ("b.json", ScoresFile::single("b", edited.clone())),
        ];
        let checked = Leaderboard::from_files(files.iter().map(|(s, f)| (*s, f)), 0.8).unwrap();
        let moved = checked.at_threshold(files.iter().map(|(s, f)| (*s, f)), 0.3).unwrap();
        let fresh = Leaderboard::from_files(files.iter().map(|(s, f)| (*s, f)), 0.3).unwrap();
        assert_eq!(moved, fresh);
        assert_eq!((moved.rows[0].table_differs, moved.rows[1].table_differs), (0, 1));
        // A row from records alone has no table to differ from.
        assert_eq!(model_row("m", "x", &r, 0.8).table_differs, 0);
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
