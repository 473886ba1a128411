//! What verification finds: a [`Finding`] names the cell or the task
//! (language, repo, needle) and shows what the file has against what was
//! recomputed; each variant's rules (mismatch, note, derived) and its text
//! are here beside the enum.

use serde_json::{Map, Value};

use super::SIMILARITY_TOLERANCE;
use crate::report::TaskResult;

/// A task: where it is in the file, and which needle it asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRef {
    pub language: String,
    /// Its index in `results[language]` (of the file, or of the re-scoring
    /// for a task the file lacks).
    pub index: usize,
    pub repo: String,
    pub needle: String,
}

impl std::fmt::Display for TaskRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {} (results.{}[{}])",
            self.language, self.repo, self.needle, self.language, self.index
        )
    }
}

/// How the dataset disagrees with the file's tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatasetProblem {
    /// The dataset has no such language.
    LanguageMissing,
    /// The dataset has no such repo in the language.
    RepoMissing,
    /// The repo has no needle of that name.
    NeedleMissing,
}

/// One thing verification found.
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    /// The table's rows differ (names or order).
    TableRows { model: String, in_file: Vec<String>, recomputed: Vec<String> },
    /// A row's threshold keys are not the eleven official ones in order.
    ThresholdKeys { model: String, row: String, in_file: Vec<String> },
    /// A table cell differs from the pass@1 of the per-task records.
    Cell {
        model: String,
        row: String,
        threshold: String,
        /// The cell's `pass@1` as written (None: no such cell).
        in_file: Option<String>,
        recomputed: String,
        passed: usize,
        n: usize,
        /// The records this cell follows from: with them corrected (their
        /// contradiction resolved, or their re-scored values), the table
        /// recomputed gives the file's cell. Empty: the cell itself is wrong.
        follows_from: Vec<TaskRef>,
    },
    /// The file has no per-task records to recompute from.
    NoTasks { model: String },
    /// A record contradicts itself (e.g. `is_best_similar` true while the
    /// best target is another needle): it was edited, or made by other code.
    Inconsistent { model: String, task: TaskRef, problem: String },
    /// A task's field differs from the re-scoring.
    TaskField { model: String, task: TaskRef, field: String, in_file: String, rescored: String },
    /// Same as `TaskField` for `best_similar_score`, but within
    /// [`SIMILARITY_TOLERANCE`]: libm rounding, not a mismatch.
    Rounding { model: String, task: TaskRef, in_file: String, rescored: String },
    /// The outputs have a task that the file lacks.
    MissingTask { model: String, task: TaskRef },
    /// The file has a task that the outputs lack.
    ExtraTask { model: String, task: TaskRef },
    /// Languages of `results` in another order than the outputs give.
    LanguageOrder { model: String, in_file: Vec<String>, rescored: Vec<String> },
    /// The tasks that differ are all reproduced with other options: the
    /// file looks made with them.
    OtherOptions { model: String, options: String, reproduced: usize, differing: usize },
    /// The dataset's needles differ from the file's (or the outputs') tasks.
    Dataset { language: String, repo: String, needle: Option<String>, problem: DatasetProblem },
    /// Needles of the dataset without a task in the file: a partial run.
    /// A note, as the scores are over the file's own tasks; `missing` are
    /// their task ids, `declared` how many of them the file lists as
    /// unanswered.
    Coverage {
        model: String,
        with_task: usize,
        needles: usize,
        declared: usize,
        missing: Vec<String>,
    },
    /// An outputs line the re-scoring could not use.
    OutputsLine { line: usize, message: String },
    /// NOT UPSTREAM: the file's `dataset_freshness` is not the dataset's (a
    /// mismatch: the file claims fresher or staler tasks than it has), or
    /// the file has none while the dataset has one (a note: upstream's
    /// tool and older files write none).
    Freshness { model: String, in_file: Option<String>, dataset: Option<String> },
}

impl Finding {
    /// Notes are shown but do not make verification fail; nor does a
    /// derived cell on its own (the record it follows from does).
    pub fn is_mismatch(&self) -> bool {
        !matches!(
            self,
            Finding::Rounding { .. }
                | Finding::OtherOptions { .. }
                | Finding::Coverage { .. }
                | Finding::Freshness { in_file: None, .. }
        ) && !self.is_derived()
    }

    /// A table cell that follows from wrong records: shown under them, and
    /// not counted as a mismatch of its own.
    pub fn is_derived(&self) -> bool {
        matches!(self, Finding::Cell { follows_from, .. } if !follows_from.is_empty())
    }

    /// A short kind, as written in the JSON report.
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::TableRows { .. } => "table-rows",
            Finding::ThresholdKeys { .. } => "threshold-keys",
            Finding::Cell { .. } => "cell",
            Finding::NoTasks { .. } => "no-tasks",
            Finding::Inconsistent { .. } => "inconsistent-record",
            Finding::TaskField { .. } => "task-field",
            Finding::Rounding { .. } => "rounding",
            Finding::MissingTask { .. } => "missing-task",
            Finding::ExtraTask { .. } => "extra-task",
            Finding::LanguageOrder { .. } => "language-order",
            Finding::OtherOptions { .. } => "other-options",
            Finding::Dataset { .. } => "dataset",
            Finding::Coverage { .. } => "coverage",
            Finding::OutputsLine { .. } => "outputs-line",
            Finding::Freshness { .. } => "freshness",
        }
    }

    /// The task the finding is about, if any.
    pub fn task(&self) -> Option<&TaskRef> {
        match self {
            Finding::Inconsistent { task, .. }
            | Finding::TaskField { task, .. }
            | Finding::Rounding { task, .. }
            | Finding::MissingTask { task, .. }
            | Finding::ExtraTask { task, .. } => Some(task),
            _ => None,
        }
    }

    pub fn model(&self) -> Option<&str> {
        match self {
            Finding::TableRows { model, .. }
            | Finding::ThresholdKeys { model, .. }
            | Finding::Cell { model, .. }
            | Finding::NoTasks { model }
            | Finding::Inconsistent { model, .. }
            | Finding::TaskField { model, .. }
            | Finding::Rounding { model, .. }
            | Finding::MissingTask { model, .. }
            | Finding::ExtraTask { model, .. }
            | Finding::LanguageOrder { model, .. }
            | Finding::OtherOptions { model, .. }
            | Finding::Coverage { model, .. }
            | Finding::Freshness { model, .. } => Some(model),
            Finding::Dataset { .. } | Finding::OutputsLine { .. } => None,
        }
    }

    /// The finding as a JSON object: `kind`, then its fields.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("kind".into(), Value::String(self.kind().into()));
        m.insert("mismatch".into(), Value::Bool(self.is_mismatch()));
        if let Some(model) = self.model() {
            m.insert("model".into(), Value::String(model.into()));
        }
        let s = |x: &str| Value::String(x.to_string());
        let list = |xs: &[String]| Value::Array(xs.iter().map(|x| s(x)).collect());
        let task_value = |t: &TaskRef| {
            let mut tm = Map::new();
            tm.insert("language".into(), Value::String(t.language.clone()));
            tm.insert("index".into(), Value::from(t.index));
            tm.insert("repo".into(), Value::String(t.repo.clone()));
            tm.insert("needle".into(), Value::String(t.needle.clone()));
            Value::Object(tm)
        };
        if let Some(t) = self.task() {
            m.insert("task".into(), task_value(t));
        }
        match self {
            Finding::TableRows { in_file, recomputed, .. } => {
                m.insert("in_file".into(), list(in_file));
                m.insert("recomputed".into(), list(recomputed));
            }
            Finding::ThresholdKeys { row, in_file, .. } => {
                m.insert("row".into(), s(row));
                m.insert("in_file".into(), list(in_file));
            }
            Finding::Cell {
                row, threshold, in_file, recomputed, passed, n, follows_from, ..
            } => {
                m.insert("row".into(), s(row));
                m.insert("threshold".into(), s(threshold));
                m.insert("in_file".into(), in_file.as_deref().map_or(Value::Null, s));
                m.insert("recomputed".into(), s(recomputed));
                m.insert("passed".into(), Value::from(*passed));
                m.insert("n".into(), Value::from(*n));
                if !follows_from.is_empty() {
                    m.insert("derived".into(), Value::Bool(true));
                    m.insert(
                        "follows_from".into(),
                        Value::Array(follows_from.iter().map(task_value).collect()),
                    );
                }
            }
            Finding::Inconsistent { problem, .. } => {
                m.insert("problem".into(), s(problem));
            }
            Finding::TaskField { field, in_file, rescored, .. } => {
                m.insert("field".into(), s(field));
                m.insert("in_file".into(), s(in_file));
                m.insert("rescored".into(), s(rescored));
            }
            Finding::Rounding { in_file, rescored, .. } => {
                m.insert("field".into(), s("best_similar_score"));
                m.insert("in_file".into(), s(in_file));
                m.insert("rescored".into(), s(rescored));
            }
            Finding::LanguageOrder { in_file, rescored, .. } => {
                m.insert("in_file".into(), list(in_file));
                m.insert("rescored".into(), list(rescored));
            }
            Finding::OtherOptions { options, reproduced, differing, .. } => {
                m.insert("options".into(), s(options));
                m.insert("reproduced".into(), Value::from(*reproduced));
                m.insert("differing".into(), Value::from(*differing));
            }
            Finding::Dataset { language, repo, needle, problem } => {
                m.insert("language".into(), s(language));
                m.insert("repo".into(), s(repo));
                m.insert("needle".into(), needle.as_deref().map_or(Value::Null, s));
                m.insert("problem".into(), s(dataset_problem_text(problem)));
            }
            Finding::Coverage { with_task, needles, declared, missing, .. } => {
                m.insert("with_task".into(), Value::from(*with_task));
                m.insert("needles".into(), Value::from(*needles));
                m.insert("declared_unanswered".into(), Value::from(*declared));
                m.insert("missing".into(), list(missing));
            }
            Finding::OutputsLine { line, message } => {
                m.insert("line".into(), Value::from(*line));
                m.insert("message".into(), s(message));
            }
            Finding::Freshness { in_file, dataset, .. } => {
                m.insert("in_file".into(), in_file.as_deref().map_or(Value::Null, s));
                m.insert("dataset".into(), dataset.as_deref().map_or(Value::Null, s));
            }
            Finding::NoTasks { .. } | Finding::MissingTask { .. } | Finding::ExtraTask { .. } => {}
        }
        Value::Object(m)
    }
}

fn dataset_problem_text(p: &DatasetProblem) -> &'static str {
    match p {
        DatasetProblem::LanguageMissing => "the dataset has no such language",
        DatasetProblem::RepoMissing => "the dataset has no such repo",
        DatasetProblem::NeedleMissing => "the dataset's repo has no such needle",
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::TableRows { in_file, recomputed, .. } => write!(
                f,
                "table rows: file has {in_file:?}, recomputed {recomputed:?}"
            ),
            Finding::ThresholdKeys { row, in_file, .. } => write!(
                f,
                "scores.{row}: threshold keys {in_file:?}, expected the eleven official ones in order"
            ),
            Finding::Cell { row, threshold, in_file, recomputed, passed, n, .. } => write!(
                f,
                "scores.{row}.{threshold}: file has {}, recomputed {recomputed} ({passed}/{n} tasks pass)",
                in_file.as_deref().unwrap_or("(nothing)")
            ),
            Finding::NoTasks { .. } => write!(f, "results: no per-task records to recompute from"),
            Finding::Inconsistent { task, problem, .. } => write!(f, "task {task}: {problem}"),
            Finding::TaskField { task, field, in_file, rescored, .. } => write!(
                f,
                "task {task}: {field}: file has {in_file}, re-scored {rescored}"
            ),
            Finding::Rounding { task, in_file, rescored, .. } => write!(
                f,
                "note: task {task}: best_similar_score: file has {in_file}, re-scored {rescored} (within {SIMILARITY_TOLERANCE:e}: libm rounding, not a mismatch)"
            ),
            Finding::MissingTask { task, .. } => {
                write!(f, "task {task}: in the outputs but not in the file")
            }
            Finding::ExtraTask { task, .. } => {
                write!(f, "task {task}: in the file but not in the outputs")
            }
            Finding::LanguageOrder { in_file, rescored, .. } => write!(
                f,
                "results languages: file has {in_file:?}, the outputs give {rescored:?}"
            ),
            Finding::OtherOptions { options, reproduced, differing, .. } => write!(
                f,
                "note: {reproduced} of the {differing} differing tasks are reproduced with {options}: the file looks made with other options"
            ),
            Finding::Dataset { language, repo, needle, problem } => write!(
                f,
                "dataset: {language} {repo}{}: {}",
                needle.as_deref().map(|n| format!(" {n}")).unwrap_or_default(),
                dataset_problem_text(problem)
            ),
            Finding::Coverage { with_task, needles, declared, missing, .. } => {
                let other = missing.len();
                write!(f, "coverage: {with_task} of {needles} needles of the dataset have a task in the file")?;
                if other == 0 {
                    return Ok(());
                }
                if *declared == other {
                    write!(f, "; the other {other} are listed as unanswered")
                } else {
                    let shown: Vec<&str> = missing.iter().take(3).map(String::as_str).collect();
                    write!(
                        f,
                        "; {other} have none ({}{}){}: the scores cover only the file's tasks",
                        shown.join(", "),
                        if other > shown.len() { ", …" } else { "" },
                        if *declared > 0 {
                            format!(", {declared} of them listed as unanswered")
                        } else {
                            String::new()
                        }
                    )
                }
            }
            Finding::OutputsLine { line, message } => write!(f, "outputs line {line}: {message}"),
            Finding::Freshness { in_file: None, dataset, .. } => write!(
                f,
                "note: dataset_freshness: the file records none; the dataset's sources were first released on {} or later",
                dataset.as_deref().unwrap_or("?")
            ),
            Finding::Freshness { in_file: Some(claimed), dataset, .. } => write!(
                f,
                "dataset_freshness: the file says {claimed}, the dataset {}",
                match dataset {
                    Some(d) => format!("has {d}"),
                    None => "records no first releases (it has no freshness)".into(),
                }
            ),
        }
    }
}

pub(super) fn show(v: Option<&Value>) -> String {
    v.map(crate::python::json::dumps).unwrap_or_else(|| "(nothing)".into())
}

pub(super) fn task_ref(language: &str, index: usize, t: &TaskResult) -> TaskRef {
    TaskRef { language: language.to_string(), index, repo: t.repo.clone(), needle: t.name.clone() }
}
