//! Verifying a reported score: a `-SCORES.json` checked against its own
//! per-task records, against a dataset, and against a re-scoring of the
//! model outputs. Every difference is a typed [`Finding`] that names the
//! cell or the task (language, repo, needle) and shows what the file has
//! against what was recomputed. `repoqa verify` and the Verify page both
//! print these findings; [`Report`] writes them as JSON and as a readable
//! summary.
//!
//! Values are compared as the text Python would write (docs/parity.md J2),
//! so `0` against `0.0` or a last-bit difference counts — except that a
//! similarity within 1e-12 of the file's is a note, not a mismatch
//! (docs/parity.md S5: a libm may differ from CPython's in the last bit).

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::dataset::Dataset;
use crate::report::{ModelOutput, ModelScores, ScoresFile, TaskResult, UnansweredScoring};
use crate::score::{
    pass_table, task_result, Candidates, ScoreError, ScoreOptions, Scorer, THRESHOLD_KEYS,
};

/// Similarities closer than this are the same up to libm rounding (S5).
pub const SIMILARITY_TOLERANCE: f64 = 1e-12;

#[derive(Debug, Error)]
pub enum VerifyError {
    #[error("{source_name}: holds {models} models; re-scoring needs a single-model file")]
    ManyModels { source_name: String, models: usize },
    #[error(transparent)]
    Score(#[from] ScoreError),
}

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
}

impl Finding {
    /// Notes are shown but do not make verification fail; nor does a
    /// derived cell on its own (the record it follows from does).
    pub fn is_mismatch(&self) -> bool {
        !matches!(
            self,
            Finding::Rounding { .. } | Finding::OtherOptions { .. } | Finding::Coverage { .. }
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
            | Finding::Coverage { model, .. } => Some(model),
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
        }
    }
}

fn show(v: Option<&Value>) -> String {
    v.map(crate::pyjson::dumps).unwrap_or_else(|| "(nothing)".into())
}

fn task_ref(language: &str, index: usize, t: &TaskResult) -> TaskRef {
    TaskRef { language: language.to_string(), index, repo: t.repo.clone(), needle: t.name.clone() }
}

/// Records that contradict themselves or break the file format: the verdict
/// must be `best_target == name`, a missing target has the int score 0, a
/// score lies in [0, 1], `needle_position` is a number in [0, 1] and the
/// token positions are whole numbers, start before end.
pub fn check_records(model: &str, results: &IndexMap<String, Vec<TaskResult>>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (lang, tasks) in results {
        for (i, t) in tasks.iter().enumerate() {
            let mut problems = Vec::new();
            let verdict = t.best_target.as_deref() == Some(t.name.as_str());
            if t.is_best_similar != verdict {
                problems.push(format!(
                    "is_best_similar is {} but best_target is {}",
                    t.is_best_similar,
                    t.best_target.as_deref().map_or("null".to_string(), |b| format!("{b:?}"))
                ));
            }
            let score = t.score();
            if t.best_target.is_none() && !(t.best_similar_score.is_u64() && score == 0.0) {
                problems.push(format!(
                    "best_target is null but best_similar_score is {} (the official scorer writes the int 0)",
                    t.best_similar_score
                ));
            }
            if !(0.0..=1.0).contains(&score) {
                problems
                    .push(format!("best_similar_score {} is outside [0, 1]", t.best_similar_score));
            }
            if t.best_target.is_some() && score <= 0.0 {
                problems.push("best_target is set but best_similar_score is not positive".into());
            }
            // The task's own fields, as the official file writes them: the
            // position ratio a number in [0, 1], the needle's tokens whole
            // numbers from start to end.
            if !t.needle_position.as_f64().is_some_and(|p| (0.0..=1.0).contains(&p)) {
                problems.push(format!(
                    "needle_position is {}, not a number in [0, 1]",
                    crate::pyjson::dumps(&t.needle_position)
                ));
            }
            let (start, end) = (t.token_start.as_u64(), t.token_end.as_u64());
            for (key, v, n) in
                [("token_start", &t.token_start, start), ("token_end", &t.token_end, end)]
            {
                if n.is_none() {
                    problems.push(format!(
                        "position.{key} is {}, not a whole number of tokens",
                        crate::pyjson::dumps(v)
                    ));
                }
            }
            if let (Some(a), Some(b)) = (start, end) {
                if a > b {
                    problems.push(format!("position.token_start {a} is past token_end {b}"));
                }
            }
            for problem in problems {
                out.push(Finding::Inconsistent {
                    model: model.to_string(),
                    task: task_ref(lang, i, t),
                    problem,
                });
            }
        }
    }
    out
}

/// Recompute the `scores` table from the file's own `results` and list
/// every row, key and cell that differs (exact text comparison).
pub fn check_table(model: &str, scores: &ModelScores) -> Vec<Finding> {
    let model_s = model.to_string();
    let table = match pass_table(&scores.results) {
        Ok(t) => t,
        Err(_) => return vec![Finding::NoTasks { model: model_s }],
    };
    let ours = table.to_value();
    let mut out = Vec::new();
    let empty = Map::new();
    let file = scores.scores.as_object().unwrap_or(&empty);
    let file_rows: Vec<String> = file.keys().cloned().collect();
    let our_rows: Vec<String> = table.rows.iter().map(|r| r.name.clone()).collect();
    if file_rows != our_rows {
        out.push(Finding::TableRows {
            model: model_s.clone(),
            in_file: file_rows,
            recomputed: our_rows,
        });
    }
    for r in &table.rows {
        let file_row = file.get(&r.name);
        for (i, key) in THRESHOLD_KEYS.iter().enumerate() {
            let ours_cell = ours.get(&r.name).and_then(|row| row.get(*key));
            let file_cell = file_row.and_then(|row| row.get(*key));
            if show(file_cell) != show(ours_cell) {
                let in_file = file_cell.map(|c| match c.get("pass@1") {
                    Some(v) if c.as_object().is_some_and(|o| o.len() == 1) => {
                        crate::pyjson::dumps(v)
                    }
                    _ => crate::pyjson::dumps(c),
                });
                out.push(Finding::Cell {
                    model: model_s.clone(),
                    row: r.name.clone(),
                    threshold: key.to_string(),
                    in_file,
                    recomputed: crate::pyjson::float_repr(r.pass_at_1[i]),
                    passed: r.passed[i],
                    n: r.n,
                    follows_from: Vec::new(),
                });
            }
        }
        if let Some(Value::Object(fr)) = file_row {
            let keys: Vec<String> = fr.keys().cloned().collect();
            if !keys.iter().map(String::as_str).eq(THRESHOLD_KEYS) {
                out.push(Finding::ThresholdKeys {
                    model: model_s.clone(),
                    row: r.name.clone(),
                    in_file: keys,
                });
            }
        }
    }
    out
}

/// The checks that need nothing but the file: records, then table, for
/// every model. A record whose verdict contradicts its best target is
/// taken as the edited part: cells that its correction explains follow
/// from it.
pub fn check_file(file: &ScoresFile) -> Vec<Finding> {
    let mut out = Vec::new();
    for (model, scores) in &file.models {
        let records = check_records(model, &scores.results);
        let mut fixes: Vec<(TaskRef, TaskResult)> = Vec::new();
        for f in &records {
            let Some(task) = f.task() else { continue };
            let Some(t) = scores.results.get(&task.language).and_then(|ts| ts.get(task.index))
            else {
                continue;
            };
            let verdict = t.best_target.as_deref() == Some(t.name.as_str());
            if t.is_best_similar != verdict && !fixes.iter().any(|(r, _)| r == task) {
                fixes.push((task.clone(), TaskResult { is_best_similar: verdict, ..t.clone() }));
            }
        }
        let mut table = check_table(model, scores);
        attribute_cells(&mut table, model, scores, &fixes);
        out.extend(records);
        out.extend(table);
    }
    out
}

/// Mark the cells of `model` that follow from wrong records: with each
/// record of `fixes` replaced by its corrected version, the table
/// recomputed from the records gives the file's cell. Such a cell follows
/// from the fixed records of its row (every one, for `all`).
pub fn attribute_cells(
    findings: &mut [Finding],
    model: &str,
    scores: &ModelScores,
    fixes: &[(TaskRef, TaskResult)],
) {
    if fixes.is_empty() {
        return;
    }
    let mut corrected = scores.results.clone();
    for (task, fixed) in fixes {
        if let Some(slot) = corrected.get_mut(&task.language).and_then(|ts| ts.get_mut(task.index))
        {
            *slot = fixed.clone();
        }
    }
    let Ok(table) = pass_table(&corrected) else { return };
    let ours = table.to_value();
    for f in findings.iter_mut() {
        let Finding::Cell { model: m, row, threshold, follows_from, .. } = f else { continue };
        if m != model || !follows_from.is_empty() {
            continue;
        }
        let file_cell = scores.scores.get(row.as_str()).and_then(|r| r.get(threshold.as_str()));
        let fixed_cell = ours.get(row.as_str()).and_then(|r| r.get(threshold.as_str()));
        if file_cell.is_none() || show(file_cell) != show(fixed_cell) {
            continue;
        }
        *follows_from = fixes
            .iter()
            .filter(|(t, _)| row == "all" || t.language == *row)
            .map(|(t, _)| t.clone())
            .collect();
    }
}

/// A model's tasks against a dataset's needles: tasks whose needle the
/// dataset lacks (mismatches), then one coverage note if some needles of
/// the dataset have no task in the file (a partial run).
pub fn check_dataset(model: &str, ms: &ModelScores, dataset: &Dataset) -> Vec<Finding> {
    let results = &ms.results;
    let mut out = Vec::new();
    let mut seen: std::collections::HashSet<(&str, &str, &str)> = Default::default();
    for (lang, tasks) in results {
        let repos = dataset.repos(lang);
        for t in tasks {
            seen.insert((lang.as_str(), t.repo.as_str(), t.name.as_str()));
            let problem = match repos {
                None => Some(DatasetProblem::LanguageMissing),
                Some(repos) => match repos.iter().find(|r| r.repo == t.repo) {
                    None => Some(DatasetProblem::RepoMissing),
                    Some(r) if !r.needles.iter().any(|n| n.name == t.name) => {
                        Some(DatasetProblem::NeedleMissing)
                    }
                    Some(_) => None,
                },
            };
            if let Some(problem) = problem {
                out.push(Finding::Dataset {
                    language: lang.clone(),
                    repo: t.repo.clone(),
                    needle: Some(t.name.clone()),
                    problem,
                });
            }
        }
    }
    let declared: std::collections::HashSet<&str> =
        ms.unanswered.iter().flat_map(|u| u.tasks.iter().map(String::as_str)).collect();
    let (mut needles, mut missing) = (0, Vec::new());
    for (lang, repos) in &dataset.languages {
        for r in repos {
            for n in &r.needles {
                needles += 1;
                if !seen.contains(&(lang.as_str(), r.repo.as_str(), n.name.as_str())) {
                    missing.push(crate::context::task_id(lang, &r.repo, &n.name));
                }
            }
        }
    }
    // One finding per missing language or repo is enough.
    out.dedup_by(|a, b| match (a, b) {
        (
            Finding::Dataset { language: l1, repo: r1, problem: p1, .. },
            Finding::Dataset { language: l2, repo: r2, problem: p2, .. },
        ) => {
            l1 == l2
                && p1 == p2
                && (*p1 == DatasetProblem::LanguageMissing
                    || (*p1 == DatasetProblem::RepoMissing && r1 == r2))
        }
        _ => false,
    });
    if !missing.is_empty() {
        out.push(Finding::Coverage {
            model: model.to_string(),
            with_task: needles - missing.len(),
            needles,
            declared: missing.iter().filter(|id| declared.contains(id.as_str())).count(),
            missing,
        });
    }
    out
}

/// Outputs the dataset can score, and a finding for each it cannot (its
/// language or repo is missing). Their indexes into `outputs` are returned.
pub fn scorable_outputs(outputs: &[ModelOutput], dataset: &Dataset) -> (Vec<usize>, Vec<Finding>) {
    let mut ok = Vec::new();
    let mut findings = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        let problem = match dataset.repos(&o.language) {
            None => Some(DatasetProblem::LanguageMissing),
            Some(repos) => match repos.iter().find(|r| r.repo == o.repo) {
                None => Some(DatasetProblem::RepoMissing),
                Some(r) if !r.needles.iter().any(|n| n.name == o.name) => {
                    // Scorable (it just cannot pass), but say so.
                    findings.push(Finding::Dataset {
                        language: o.language.clone(),
                        repo: o.repo.clone(),
                        needle: Some(o.name.clone()),
                        problem: DatasetProblem::NeedleMissing,
                    });
                    None
                }
                Some(_) => None,
            },
        };
        match problem {
            Some(problem) => findings.push(Finding::Dataset {
                language: o.language.clone(),
                repo: o.repo.clone(),
                needle: Some(o.name.clone()),
                problem,
            }),
            None => ok.push(i),
        }
    }
    (ok, findings)
}

type Key<'a> = (&'a str, &'a str, &'a str, usize);

/// `(language, repo, name, occurrence)` → (index, record), for each task.
fn keyed(results: &IndexMap<String, Vec<TaskResult>>) -> IndexMap<Key<'_>, (usize, &TaskResult)> {
    let mut out = IndexMap::new();
    let mut count: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (lang, tasks) in results {
        for (i, t) in tasks.iter().enumerate() {
            let c = count.entry((lang.as_str(), t.repo.as_str(), t.name.as_str())).or_default();
            out.insert((lang.as_str(), t.repo.as_str(), t.name.as_str(), *c), (i, t));
            *c += 1;
        }
    }
    out
}

/// The file's per-task records against a re-scoring's, task by task
/// (matched by language, repo and needle, so a missing or extra task is
/// named rather than shifting every later one).
pub fn compare_tasks(
    model: &str,
    file: &IndexMap<String, Vec<TaskResult>>,
    rescored: &IndexMap<String, Vec<TaskResult>>,
) -> Vec<Finding> {
    let model_s = model.to_string();
    let mut out = Vec::new();
    let fl: Vec<String> = file.keys().cloned().collect();
    let rl: Vec<String> = rescored.keys().cloned().collect();
    let mut fs = fl.clone();
    let mut rs = rl.clone();
    fs.sort();
    rs.sort();
    if fl != rl && fs == rs {
        out.push(Finding::LanguageOrder { model: model_s.clone(), in_file: fl, rescored: rl });
    }
    let file_keyed = keyed(file);
    let ours_keyed = keyed(rescored);
    for (key, (i, o)) in &ours_keyed {
        let Some((fi, f)) = file_keyed.get(key) else {
            out.push(Finding::MissingTask { model: model_s.clone(), task: task_ref(key.0, *i, o) });
            continue;
        };
        let task = task_ref(key.0, *fi, f);
        let (Value::Object(fv), Value::Object(ov)) = (f.to_value(), o.to_value()) else {
            continue;
        };
        for (field, our_v) in &ov {
            let file_v = fv.get(field);
            let (a, b) = (show(file_v), show(Some(our_v)));
            if a == b {
                continue;
            }
            let close = field == "best_similar_score"
                && f.best_target.is_some()
                && o.best_target.is_some()
                && (f.score() - o.score()).abs() <= SIMILARITY_TOLERANCE;
            out.push(if close {
                Finding::Rounding {
                    model: model_s.clone(),
                    task: task.clone(),
                    in_file: a,
                    rescored: b,
                }
            } else {
                Finding::TaskField {
                    model: model_s.clone(),
                    task: task.clone(),
                    field: field.clone(),
                    in_file: a,
                    rescored: b,
                }
            });
        }
    }
    for (key, (i, f)) in &file_keyed {
        if !ours_keyed.contains_key(key) {
            out.push(Finding::ExtraTask { model: model_s.clone(), task: task_ref(key.0, *i, f) });
        }
    }
    out
}

/// The options to try when tasks differ: the other comment setting, and
/// the non-official candidate rule when the outputs carry their contexts.
pub fn alternative_options(given: ScoreOptions, have_contexts: bool) -> Vec<ScoreOptions> {
    let mut out = Vec::new();
    for candidates in [Candidates::Needles, Candidates::Context] {
        if candidates == Candidates::Context && !have_contexts {
            continue;
        }
        for ignore_comments in [false, true] {
            let o = ScoreOptions { ignore_comments, candidates };
            if o != given {
                out.push(o);
            }
        }
    }
    out
}

/// How options are written on the command line.
pub fn options_text(o: ScoreOptions) -> String {
    let mut parts = Vec::new();
    if o.ignore_comments {
        parts.push("--ignore-comments".to_string());
    }
    if o.candidates != Candidates::Needles {
        parts.push(format!("--candidates {} (not official)", o.candidates.name()));
    }
    if parts.is_empty() {
        "the official defaults".into()
    } else {
        parts.join(" ")
    }
}

/// What another set of options must give a differing task to explain the
/// file's record: its verdict, target and similarity.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Reproduce {
    pub is_best_similar: bool,
    pub best_target: Option<String>,
    pub score: f64,
}

impl Reproduce {
    pub fn of(record: &TaskResult) -> Reproduce {
        Reproduce {
            is_best_similar: record.is_best_similar,
            best_target: record.best_target.clone(),
            score: record.score(),
        }
    }

    /// Whether re-scored record `r` reproduces it (similarity up to rounding).
    pub fn by(&self, r: &TaskResult) -> bool {
        r.is_best_similar == self.is_best_similar
            && r.best_target == self.best_target
            && (r.score() - self.score).abs() <= SIMILARITY_TOLERANCE
    }
}

/// The tasks a re-scoring found differing from the file, with their
/// outputs: what [`best_options`] tries other options on. Serde: the page
/// has the compute engine try them.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Differing {
    pub model: String,
    /// The options of the re-scoring.
    pub given: ScoreOptions,
    pub tasks: Vec<(ModelOutput, Reproduce)>,
}

impl Differing {
    /// The [`Finding::OtherOptions`] note of [`best_options`]' answer.
    pub fn note(&self, best: Option<(usize, ScoreOptions)>) -> Option<Finding> {
        best.map(|(reproduced, options)| Finding::OtherOptions {
            model: self.model.clone(),
            options: options_text(options),
            reproduced,
            differing: self.tasks.len(),
        })
    }
}

/// Re-score the differing tasks with each alternative to the given
/// options: the first set that reproduces every one of them, or else the
/// one reproducing most (if any), with how many it reproduces.
pub fn best_options(differing: &Differing, dataset: &Dataset) -> Option<(usize, ScoreOptions)> {
    if differing.tasks.is_empty() {
        return None;
    }
    let have_contexts = differing.tasks.iter().all(|(o, _)| o.code_context().is_some());
    let mut best: Option<(usize, ScoreOptions)> = None;
    for options in alternative_options(differing.given, have_contexts) {
        let mut scorer = Scorer::new(dataset, options);
        let mut reproduced = 0;
        for (o, want) in &differing.tasks {
            let Ok(e) = scorer.evaluate(o) else { continue };
            reproduced += usize::from(want.by(&task_result(o, &e)));
        }
        if reproduced > best.map_or(0, |b| b.0) {
            best = Some((reproduced, options));
        }
        if reproduced == differing.tasks.len() {
            break;
        }
    }
    best
}

/// The differing tasks of a comparison, paired with their outputs.
pub fn differing_outputs<'a>(
    findings: &[Finding],
    outputs: &'a [ModelOutput],
    file: &'a IndexMap<String, Vec<TaskResult>>,
) -> Vec<(&'a ModelOutput, &'a TaskResult)> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for f in findings {
        let Finding::TaskField { task, .. } = f else { continue };
        if seen.contains(&task) {
            continue;
        }
        seen.push(task);
        let Some(record) = file.get(&task.language).and_then(|ts| ts.get(task.index)) else {
            continue;
        };
        if let Some(o) = outputs
            .iter()
            .find(|o| o.language == task.language && o.repo == task.repo && o.name == task.needle)
        {
            out.push((o, record));
        }
    }
    out
}

/// What a re-scoring was made from.
#[derive(Clone, Debug, PartialEq)]
pub struct Rescored {
    pub outputs: String,
    pub tasks: usize,
    pub options: ScoreOptions,
}

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
            crate::pyjson::float_repr(f) == crate::pyjson::float_repr(self.recomputed)
        })
    }
}

/// The rows of `scores`' table at [`HEADLINE_KEY`], file beside recomputed.
fn headline(scores: &ModelScores) -> Vec<RowPair> {
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

/// Re-score outputs and compare them with a single-model file: the
/// dataset check, the task comparison, the re-scored table against the
/// file's, and an options hint. `progress(done, total)` after each task.
/// The page does the scoring in slices itself and calls
/// [`finish_rescore`] with the results.
#[allow(clippy::too_many_arguments)]
pub fn rescore(
    report: &mut Report,
    file: &ScoresFile,
    outputs: &[ModelOutput],
    outputs_name: &str,
    dataset: &Dataset,
    dataset_name: &str,
    options: ScoreOptions,
    mut progress: impl FnMut(usize, usize),
) -> Result<(), VerifyError> {
    if file.models.len() != 1 {
        return Err(VerifyError::ManyModels {
            source_name: report.source.clone(),
            models: file.models.len(),
        });
    }
    let (usable, dataset_findings) = scorable_outputs(outputs, dataset);
    let mut scorer = Scorer::new(dataset, options);
    let mut results: IndexMap<String, Vec<TaskResult>> = IndexMap::new();
    for (k, &i) in usable.iter().enumerate() {
        let o = &outputs[i];
        let e = scorer.evaluate(o)?;
        results.entry(o.language.clone()).or_default().push(task_result(o, &e));
        progress(k + 1, usable.len());
    }
    let differing = finish_rescore(
        report,
        file,
        outputs,
        outputs_name,
        dataset,
        dataset_name,
        options,
        dataset_findings,
        &results,
    );
    let note = differing.note(best_options(&differing, dataset));
    report.findings.extend(note);
    Ok(())
}

/// The comparison half of [`rescore`], given the re-scored records (in
/// outputs order) and the findings of [`scorable_outputs`]: the tasks that
/// differ come back, for [`best_options`] (whose [`Differing::note`] goes
/// last into the report).
#[allow(clippy::too_many_arguments)]
pub fn finish_rescore(
    report: &mut Report,
    file: &ScoresFile,
    outputs: &[ModelOutput],
    outputs_name: &str,
    dataset: &Dataset,
    dataset_name: &str,
    options: ScoreOptions,
    dataset_findings: Vec<Finding>,
    rescored: &IndexMap<String, Vec<TaskResult>>,
) -> Differing {
    let Some((model, ms)) = file.models.iter().next() else { return Differing::default() };
    report.dataset = Some(dataset_name.to_string());
    report.findings.extend(check_dataset(model, ms, dataset));
    for f in dataset_findings {
        if !report.findings.contains(&f) {
            report.findings.push(f);
        }
    }
    let with_unanswered;
    let rescored = match &ms.unanswered {
        Some(u) if u.scoring == UnansweredScoring::Failures => {
            with_unanswered = add_no_answers(&ms.results, rescored, &u.tasks);
            &with_unanswered
        }
        _ => rescored,
    };
    let compared = compare_tasks(model, &ms.results, rescored);
    let fixes = rescored_fixes(&compared, rescored);
    attribute_cells(&mut report.findings, model, ms, &fixes);
    let tasks = differing_outputs(&compared, outputs, &ms.results)
        .into_iter()
        .map(|(o, r)| (o.clone(), Reproduce::of(r)))
        .collect();
    report.findings.extend(compared);
    report.rescored = Some(Rescored {
        outputs: outputs_name.to_string(),
        tasks: rescored.values().map(Vec::len).sum(),
        options,
    });
    Differing { model: model.clone(), given: options, tasks }
}

/// The file's records that differ from the re-scoring (not by rounding
/// alone), each with its re-scored record.
fn rescored_fixes(
    compared: &[Finding],
    rescored: &IndexMap<String, Vec<TaskResult>>,
) -> Vec<(TaskRef, TaskResult)> {
    let mut out: Vec<(TaskRef, TaskResult)> = Vec::new();
    for f in compared {
        let Finding::TaskField { task, .. } = f else { continue };
        if out.iter().any(|(t, _)| t == task) {
            continue;
        }
        let Some(r) = rescored
            .get(&task.language)
            .and_then(|rs| rs.iter().find(|r| r.repo == task.repo && r.name == task.needle))
        else {
            continue;
        };
        out.push((task.clone(), r.clone()));
    }
    out
}

/// The re-scoring plus, for each task the file lists as unanswered and
/// scored as a failure that the outputs do not answer, the record an empty
/// reply gets (no target, similarity 0), with the file's own task fields:
/// a file that passes such a task is then a mismatch.
fn add_no_answers(
    file: &IndexMap<String, Vec<TaskResult>>,
    rescored: &IndexMap<String, Vec<TaskResult>>,
    unanswered: &[String],
) -> IndexMap<String, Vec<TaskResult>> {
    let listed: std::collections::HashSet<&str> = unanswered.iter().map(String::as_str).collect();
    let mut out = rescored.clone();
    for (lang, records) in file {
        for r in records {
            let id = crate::context::task_id(lang, &r.repo, &r.name);
            let have = rescored
                .get(lang)
                .is_some_and(|rs| rs.iter().any(|o| o.repo == r.repo && o.name == r.name));
            if listed.contains(id.as_str()) && !have {
                out.entry(lang.clone()).or_default().push(TaskResult {
                    is_best_similar: false,
                    best_similar_score: 0.into(),
                    best_target: None,
                    ..r.clone()
                });
            }
        }
    }
    out
}

/// The dataset check alone (no outputs): the file's tasks against the
/// dataset's needles.
/// Whether the dataset holds at least one repository the file's tasks come
/// from: a dataset that shares none (the demo, for a published file) is
/// another benchmark, and comparing needles with it says nothing.
pub fn shares_repos(file: &ScoresFile, dataset: &Dataset) -> bool {
    file.models.values().any(|ms| {
        ms.results.iter().any(|(lang, tasks)| {
            dataset
                .repos(lang)
                .is_some_and(|repos| tasks.iter().any(|t| repos.iter().any(|r| r.repo == t.repo)))
        })
    })
}

pub fn add_dataset_check(
    report: &mut Report,
    file: &ScoresFile,
    dataset: &Dataset,
    dataset_name: &str,
) {
    report.dataset = Some(dataset_name.to_string());
    for (model, ms) in &file.models {
        report.findings.extend(check_dataset(model, ms, dataset));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Number};

    use crate::report::test_record as rec;

    fn model_scores() -> ModelScores {
        let mut results = IndexMap::new();
        results.insert(
            "python".to_string(),
            vec![rec("f", Some("f"), 0.9), rec("g", Some("f"), 0.7), rec("h", None, 0.0)],
        );
        results.insert("rust".to_string(), vec![rec("r", Some("r"), 0.85)]);
        let scores = pass_table(&results).unwrap().to_value();
        ModelScores {
            eval_date: "d".into(),
            train_size: "N/A".into(),
            scores,
            results,
            protocol: Default::default(),
            unanswered: None,
            replies: Default::default(),
        }
    }

    #[test]
    fn a_clean_file_has_no_findings() {
        let file = ScoresFile::single("m", model_scores());
        let r = Report::of_file("m-SCORES.json", &file);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert!(r.ok());
        assert!(r.summary_text().contains("verified, no mismatch"));
        // The numbers the verdict confirms: each row at 0.8, file beside ours.
        let h = &r.models[0].headline;
        assert_eq!(h.iter().map(|p| p.row.as_str()).collect::<Vec<_>>(), ["all", "python", "rust"]);
        assert!(h.iter().all(RowPair::agrees), "{h:?}");
        assert_eq!((h[1].n, h[1].recomputed), (3, 1.0 / 3.0));
        let mut ms = model_scores();
        ms.scores["python"]["0.8"]["pass@1"] = json!(0.9);
        let r = Report::of_file("x", &ScoresFile::single("m", ms));
        let python = &r.models[0].headline[1];
        assert_eq!((python.in_file, python.agrees()), (Some(0.9), false));
    }

    #[test]
    fn an_edited_cell_is_named_with_its_counts() {
        let mut ms = model_scores();
        ms.scores["python"]["0.6"]["pass@1"] = json!(0.5);
        let f = check_table("m", &ms);
        assert_eq!(
            f,
            [Finding::Cell {
                model: "m".into(),
                row: "python".into(),
                threshold: "0.6".into(),
                in_file: Some("0.5".into()),
                recomputed: "0.3333333333333333".into(),
                passed: 1,
                n: 3,
                follows_from: Vec::new(),
            }]
        );
        assert_eq!(
            f[0].to_string(),
            "scores.python.0.6: file has 0.5, recomputed 0.3333333333333333 (1/3 tasks pass)"
        );
    }

    #[test]
    fn a_flipped_verdict_is_pinpointed_without_outputs() {
        let mut ms = model_scores();
        ms.results["python"][1].is_best_similar = true;
        let f = check_records("m", &ms.results);
        assert_eq!(f.len(), 1);
        let t = f[0].task().unwrap();
        assert_eq!(
            (t.language.as_str(), t.index, t.repo.as_str(), t.needle.as_str()),
            ("python", 1, "a/b", "g")
        );
        assert!(
            f[0].to_string().contains("is_best_similar is true but best_target is \"f\""),
            "{}",
            f[0]
        );
        // The table, recomputed from the edited records, no longer matches.
        assert!(check_table("m", &ms)
            .iter()
            .any(|f| matches!(f, Finding::Cell { row, .. } if row == "python")));
    }

    #[test]
    fn fields_of_the_wrong_type_or_range_are_findings() {
        let mut ms = model_scores();
        assert!(check_records("m", &ms.results).is_empty());
        ms.results["python"][0].needle_position = Value::String("abc".into());
        ms.results["python"][1].needle_position = serde_json::json!(1.5);
        ms.results["python"][2].token_start = serde_json::json!(-3);
        ms.results["rust"][0].token_start = serde_json::json!(9);
        ms.results["rust"][0].token_end = serde_json::json!(2);
        let f: Vec<String> =
            check_records("m", &ms.results).iter().map(|f| f.to_string()).collect();
        assert_eq!(f.len(), 4, "{f:#?}");
        assert!(f[0].ends_with("needle_position is \"abc\", not a number in [0, 1]"), "{}", f[0]);
        assert!(f[1].ends_with("needle_position is 1.5, not a number in [0, 1]"), "{}", f[1]);
        assert!(
            f[2].ends_with("position.token_start is -3, not a whole number of tokens"),
            "{}",
            f[2]
        );
        assert!(f[3].ends_with("position.token_start 9 is past token_end 2"), "{}", f[3]);
    }

    #[test]
    fn task_comparison_names_fields_missing_and_extra_tasks() {
        let file = model_scores().results;
        let mut ours = file.clone();
        ours["python"][0] = rec("f", Some("g"), 0.95);
        ours["python"].remove(2);
        ours["rust"].push(rec("s", None, 0.0));
        ours["rust"][0].best_similar_score = Number::from_f64(0.85 + 1e-15).unwrap();
        let f = compare_tasks("m", &file, &ours);
        let kinds: Vec<&str> = f.iter().map(Finding::kind).collect();
        assert_eq!(
            kinds,
            ["task-field", "task-field", "task-field", "rounding", "missing-task", "extra-task"],
            "{f:#?}"
        );
        assert_eq!(
            f[0].to_string(),
            "task python a/b f (results.python[0]): is_best_similar: file has true, re-scored false"
        );
        assert!(f[1].to_string().contains("best_similar_score: file has 0.9, re-scored 0.95"));
        assert!(f[2].to_string().contains("best_target: file has \"f\", re-scored \"g\""));
        assert!(!f[3].is_mismatch());
        assert_eq!(f[4].task().unwrap().needle, "s");
        assert_eq!(f[5].task().unwrap().needle, "h");
    }

    #[test]
    fn dataset_needles_are_compared() {
        let d = Dataset::from_value(
            json!({"python": [{"repo": "a/b", "content": {"m.py": "x\n"}, "dependency": {"m.py": []},
                "functions": {}, "needles": [
                    {"name": "f", "start_line": 0, "end_line": 1, "start_byte": 0, "end_byte": 1, "path": "m.py", "description": "d"},
                    {"name": "g", "start_line": 0, "end_line": 1, "start_byte": 0, "end_byte": 1, "path": "m.py", "description": "d"},
                    {"name": "k", "start_line": 0, "end_line": 1, "start_byte": 0, "end_byte": 1, "path": "m.py", "description": "d"}
                ]}]}),
            "d.json",
        )
        .unwrap();
        let ms = model_scores();
        let f = check_dataset("m", &ms, &d);
        let got: Vec<(String, DatasetProblem)> = f
            .iter()
            .filter_map(|f| match f {
                Finding::Dataset { needle, problem, .. } => {
                    Some((needle.clone().unwrap_or_default(), problem.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            [
                ("h".to_string(), DatasetProblem::NeedleMissing),
                ("r".to_string(), DatasetProblem::LanguageMissing)
            ]
        );
        // The needle without a task is one coverage note, not a mismatch.
        let last = f.last().unwrap();
        assert_eq!(last.kind(), "coverage");
        assert!(!last.is_mismatch());
        assert_eq!(
            last.to_string(),
            "coverage: 2 of 3 needles of the dataset have a task in the file; 1 have none (python::a/b::k): the scores cover only the file's tasks"
        );
        // Listed as unanswered: said so.
        let mut partial = ms.clone();
        partial.unanswered = Some(crate::report::Unanswered {
            scoring: UnansweredScoring::AnsweredOnly,
            tasks: vec!["python::a/b::k".into()],
        });
        let f = check_dataset("m", &partial, &d);
        assert!(f.last().unwrap().to_string().ends_with("; the other 1 are listed as unanswered"));
    }

    #[test]
    fn cells_that_follow_from_a_flipped_verdict_are_grouped_under_it() {
        let mut ms = model_scores();
        ms.results["python"][1].is_best_similar = true;
        let r = Report::of_file("x", &ScoresFile::single("m", ms.clone()));
        let grouped = r.grouped();
        assert_eq!(r.mismatches(), 1, "{:#?}", r.findings);
        assert!(r.derived() > 0);
        assert_eq!(grouped.len(), 1, "{grouped:#?}");
        assert_eq!(grouped[0].0.kind(), "inconsistent-record");
        assert!(grouped[0].1.iter().all(|c| c.is_derived() && !c.is_mismatch()));
        assert!(
            r.summary_text().contains("  follows from it: scores.python."),
            "{}",
            r.summary_text()
        );
        assert_eq!(r.to_value()["derived_cells"], json!(r.derived()));

        // A cell edited besides stands on its own.
        ms.scores["rust"]["0.0"]["pass@1"] = json!(0.1);
        let r = Report::of_file("x", &ScoresFile::single("m", ms));
        assert_eq!(r.mismatches(), 2, "{:#?}", r.findings);
        assert!(r.verdict_text().starts_with("2 mismatches, and "), "{}", r.verdict_text());
    }

    #[test]
    fn report_json_and_options() {
        let mut ms = model_scores();
        ms.scores["all"]["0.0"]["pass@1"] = json!(0.1);
        let r = Report::of_file("x", &ScoresFile::single("m", ms));
        let v = r.to_value();
        assert_eq!(v["ok"], json!(false));
        assert_eq!(v["findings"][0]["kind"], json!("cell"));
        assert_eq!(v["findings"][0]["row"], json!("all"));
        assert!(r.summary_text().contains("MISMATCH m: scores.all.0.0: file has 0.1"));
        assert_eq!(alternative_options(ScoreOptions::default(), false).len(), 1);
        assert_eq!(alternative_options(ScoreOptions::default(), true).len(), 3);
        assert_eq!(
            options_text(ScoreOptions { ignore_comments: true, candidates: Candidates::Needles }),
            "--ignore-comments"
        );
    }
}
