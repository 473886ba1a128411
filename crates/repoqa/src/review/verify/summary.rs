//! A whole verification ([`Report`]): the models checked, the findings,
//! the headline numbers, and the verdict as JSON and as text.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{check_file, options_text, Finding, Rescored};
use crate::report::{ModelScores, ScoresFile};
use crate::scoring::score::{pass_table, THRESHOLD_KEYS};

/// One model of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelSummary {
    pub model: String,
    pub tasks: usize,
    pub rows: usize,
    /// Each row of the table at the official threshold ([`HEADLINE_KEY`]):
    /// the file's pass@1 beside the one recomputed from its records, so a
    /// verdict shows the numbers it confirms (or refutes).
    pub headline: Vec<RowPair>,
}

/// The threshold a verdict's numbers are shown at: the official default.
pub const HEADLINE_KEY: &str = "0.8";

/// A row of a SCORES table at one threshold: the file's cell and ours.
#[derive(Clone, Debug, PartialEq)]
pub struct RowPair {
    pub row: String,
    /// Tasks in the row (recomputed).
    pub n: usize,
    /// The file's `pass@1` (None: no such cell, or not a number).
    pub in_file: Option<f64>,
    pub recomputed: f64,
}

impl RowPair {
    /// The file's cell is the recomputed one (as the checks compare them:
    /// the same text).
    pub fn agrees(&self) -> bool {
        self.in_file.is_some_and(|f| {
            crate::python::json::float_repr(f) == crate::python::json::float_repr(self.recomputed)
        })
    }
}

/// The rows of `scores`' table at [`HEADLINE_KEY`], file beside recomputed.
pub(super) fn headline(scores: &ModelScores) -> Vec<RowPair> {
    let Ok(table) = pass_table(&scores.results) else { return Vec::new() };
    let Some(k) = THRESHOLD_KEYS.iter().position(|k| *k == HEADLINE_KEY) else {
        return Vec::new();
    };
    table
        .rows
        .iter()
        .map(|r| RowPair {
            row: r.name.clone(),
            n: r.n,
            in_file: scores.scores[&r.name][HEADLINE_KEY]["pass@1"].as_f64(),
            recomputed: r.pass_at_1[k],
        })
        .collect()
}

/// A whole verification.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The SCORES file's name.
    pub source: String,
    pub models: Vec<ModelSummary>,
    /// The dataset checked against, if any.
    pub dataset: Option<String>,
    pub rescored: Option<Rescored>,
    pub findings: Vec<Finding>,
}

impl Report {
    /// A report of the file-only checks.
    pub fn of_file(source: &str, file: &ScoresFile) -> Report {
        Report {
            source: source.to_string(),
            models: file
                .models
                .iter()
                .map(|(m, s)| ModelSummary {
                    model: m.clone(),
                    tasks: s.task_count(),
                    rows: s.scores.as_object().map_or(0, |o| o.len()),
                    headline: headline(s),
                })
                .collect(),
            dataset: None,
            rescored: None,
            findings: check_file(file),
        }
    }

    pub fn mismatches(&self) -> usize {
        self.findings.iter().filter(|f| f.is_mismatch()).count()
    }

    /// Table cells that follow from wrong records.
    pub fn derived(&self) -> usize {
        self.findings.iter().filter(|f| f.is_derived()).count()
    }

    /// The findings as shown: each with the cells that follow from it,
    /// under the first mismatch about one of their records (a derived
    /// cell whose records have no finding stands on its own).
    pub fn grouped(&self) -> Vec<(&Finding, Vec<&Finding>)> {
        let cause = |d: &Finding| -> Option<usize> {
            let Finding::Cell { follows_from, model, .. } = d else { return None };
            self.findings.iter().position(|f| {
                f.is_mismatch()
                    && f.model() == Some(model.as_str())
                    && f.task().is_some_and(|t| follows_from.contains(t))
            })
        };
        let mut out: Vec<(&Finding, Vec<&Finding>)> = Vec::new();
        let mut at: HashMap<usize, usize> = HashMap::new();
        let mut derived = Vec::new();
        for (i, f) in self.findings.iter().enumerate() {
            match f.is_derived().then(|| cause(f)).flatten() {
                Some(c) => derived.push((c, f)),
                None => {
                    at.insert(i, out.len());
                    out.push((f, Vec::new()));
                }
            }
        }
        for (c, f) in derived {
            if let Some(&k) = at.get(&c) {
                out[k].1.push(f);
            }
        }
        out
    }

    /// The verdict in words: "verified, no mismatch", or the number of
    /// mismatches and of the cells that follow from them.
    pub fn verdict_text(&self) -> String {
        if self.ok() {
            return "verified, no mismatch".into();
        }
        let n = self.mismatches();
        let mut out = format!("{n} mismatch{}", if n == 1 { "" } else { "es" });
        match self.derived() {
            0 => {}
            1 => out.push_str(", and 1 table cell that follows from them"),
            d => out.push_str(&format!(", and {d} table cells that follow from them")),
        }
        out
    }

    pub fn ok(&self) -> bool {
        self.mismatches() == 0
    }

    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("source".into(), Value::String(self.source.clone()));
        m.insert("ok".into(), Value::Bool(self.ok()));
        m.insert("mismatches".into(), Value::from(self.mismatches()));
        m.insert("derived_cells".into(), Value::from(self.derived()));
        m.insert(
            "models".into(),
            Value::Array(
                self.models
                    .iter()
                    .map(|s| {
                        let mut o = Map::new();
                        o.insert("model".into(), Value::String(s.model.clone()));
                        o.insert("tasks".into(), Value::from(s.tasks));
                        o.insert("rows".into(), Value::from(s.rows));
                        Value::Object(o)
                    })
                    .collect(),
            ),
        );
        m.insert("dataset".into(), self.dataset.clone().map_or(Value::Null, Value::String));
        m.insert(
            "rescored".into(),
            match &self.rescored {
                None => Value::Null,
                Some(r) => {
                    let mut o = Map::new();
                    o.insert("outputs".into(), Value::String(r.outputs.clone()));
                    o.insert("tasks".into(), Value::from(r.tasks));
                    o.insert("ignore_comments".into(), Value::Bool(r.options.ignore_comments));
                    o.insert(
                        "candidates".into(),
                        Value::String(r.options.candidates.name().into()),
                    );
                    Value::Object(o)
                }
            },
        );
        m.insert(
            "findings".into(),
            Value::Array(self.findings.iter().map(Finding::to_value).collect()),
        );
        Value::Object(m)
    }

    /// The JSON report (two-space indented).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.to_value()).unwrap_or_default()
    }

    /// One line per model and check, then one line per finding
    /// (`MISMATCH model: …` or `note model: …`), then the verdict.
    pub fn summary_text(&self) -> String {
        let mut out = String::new();
        for s in &self.models {
            let derived = self
                .findings
                .iter()
                .filter(|f| f.model() == Some(s.model.as_str()) && f.is_derived())
                .count();
            let table = self
                .findings
                .iter()
                .filter(|f| {
                    f.model() == Some(s.model.as_str()) && f.task().is_none() && f.is_mismatch()
                })
                .filter(|f| {
                    matches!(
                        f,
                        Finding::Cell { .. }
                            | Finding::TableRows { .. }
                            | Finding::ThresholdKeys { .. }
                            | Finding::NoTasks { .. }
                    )
                })
                .count();
            out.push_str(&format!(
                "{}: {}: table of {} rows recomputed from {} tasks: {}\n",
                self.source,
                s.model,
                s.rows,
                s.tasks,
                match (table, derived) {
                    (0, 0) => "OK".to_string(),
                    (t, 0) => format!("{t} mismatch(es)"),
                    (0, d) => format!("{d} cell(s) follow from wrong records"),
                    (t, d) =>
                        format!("{t} mismatch(es), and {d} cell(s) that follow from wrong records"),
                }
            ));
        }
        if let Some(d) = &self.dataset {
            let n = self.findings.iter().filter(|f| matches!(f, Finding::Dataset { .. })).count();
            let coverage = self.findings.iter().any(|f| matches!(f, Finding::Coverage { .. }));
            out.push_str(&format!(
                "{}: needles compared with {d}: {}\n",
                self.source,
                match (n, coverage) {
                    (0, false) => "OK".to_string(),
                    (0, true) => "OK, a partial run (see the coverage note)".to_string(),
                    (n, _) => format!("{n} difference(s)"),
                }
            ));
        }
        if let Some(r) = &self.rescored {
            let n = self
                .findings
                .iter()
                .filter(|f| {
                    f.is_mismatch()
                        && matches!(
                            f,
                            Finding::TaskField { .. }
                                | Finding::MissingTask { .. }
                                | Finding::ExtraTask { .. }
                                | Finding::LanguageOrder { .. }
                        )
                })
                .count();
            out.push_str(&format!(
                "{}: {} tasks re-scored from {} ({}): {}\n",
                self.source,
                r.tasks,
                r.outputs,
                options_text(r.options),
                if n == 0 { "OK".to_string() } else { format!("{n} mismatch(es)") }
            ));
        }
        for (f, derived) in self.grouped() {
            let who = f.model().map(|m| format!(" {m}")).unwrap_or_default();
            if f.is_mismatch() {
                out.push_str(&format!("MISMATCH{who}: {f}\n"));
            } else if f.is_derived() {
                out.push_str(&format!("follows from wrong records{who}: {f}\n"));
            } else {
                out.push_str(&format!("note{who}: {f}\n"));
            }
            for d in derived {
                out.push_str(&format!("  follows from it: {d}\n"));
            }
        }
        out.push_str(&format!("{}: {}\n", self.source, self.verdict_text()));
        out
    }
}
