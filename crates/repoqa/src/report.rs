//! The files the official tools exchange (docs/parity.md "Files the official tools
//! exchange", S7, J1–J3):
//!
//! - tasks / model outputs JSONL: one task dict per line (`json.dumps(task)`),
//!   outputs add `"output": [reply]`;
//! - `<model>-SCORES.json`: `{model: {eval_date, train_size, scores, results}}`
//!   written by `json.dump` (Python layout, see [`crate::pyjson`]);
//! - a CSV of the per-task results (ours, for spreadsheets).
//!
//! Values the official code copies through untouched (`position_ratio`,
//! token positions, the score) are kept as JSON numbers, so an int stays an
//! int and a float keeps its exact repr when written back.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::{Map, Number, Value};
use thiserror::Error;

use crate::limits::{size_label, strip_bom, OutputsLimits};
use crate::pyjson;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error("{origin}: not valid JSON: {message}")]
    Json { origin: String, message: String },
    #[error("{origin}: {path}: {message}")]
    Field { origin: String, path: String, message: String },
    #[error("{origin}: no model entry (expected {{\"<model>\": {{\"eval_date\": ..., \"scores\": ..., \"results\": ...}}}})")]
    NoModel { origin: String },
    #[error("cannot serialize {what}: {message}")]
    Serialize { what: String, message: String },
    #[error("{0}")]
    Message(String),
}

/// One broken line of a JSONL file: 1-based line number and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// One line of a model-outputs file: the fields `compute_score` reads, plus
/// the whole record (task fields such as `code_context` and `description`
/// for display, and any extra fields, which the official code ignores).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelOutput {
    /// 1-based line number in the file.
    pub line: usize,
    pub language: String,
    pub repo: String,
    /// The needle's name (the ground truth).
    pub name: String,
    /// `output[0]`: the official scorer reads only the first reply.
    pub reply: String,
    /// `position_ratio`, copied into `needle_position` as is.
    pub position_ratio: Value,
    pub needle_token_start: Value,
    pub needle_token_end: Value,
    /// The whole JSON object of the line.
    pub record: Map<String, Value>,
}

impl ModelOutput {
    /// The id of the task this line answers (`context::task_id`).
    pub fn task_id(&self) -> String {
        crate::context::task_id(&self.language, &self.repo, &self.name)
    }

    /// The task's `code_context`, if the line has it as a string.
    pub fn code_context(&self) -> Option<&str> {
        self.record.get("code_context").and_then(Value::as_str)
    }
}

/// A parsed outputs file: the good lines and the broken ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutputsFile {
    pub outputs: Vec<ModelOutput>,
    pub errors: Vec<LineError>,
}

/// Lines as Python's text-mode file iteration yields them (universal
/// newlines: `\n`, `\r\n` and `\r` all end a line), numbered from 1.
fn py_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut n = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let mut i = start;
        while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
            i += 1;
        }
        let line = &text[start..i];
        start = if i + 1 < bytes.len() && bytes[i] == b'\r' && bytes[i + 1] == b'\n' {
            i + 2
        } else {
            i + 1
        };
        n += 1;
        Some((n, line))
    })
}

/// Read a model-outputs JSONL text (`json.loads` of each line). Blank lines
/// are skipped (the official reader would stop with a JSONDecodeError on
/// them); every other bad line is reported with its number and the fields
/// it lacks, and the good lines are kept.
///
/// A byte-order mark at the start is read past: the official harness's
/// `json.loads` refuses it ("Unexpected UTF-8 BOM"), but the lines are the
/// same, so the score is the one it gives for the file saved without the
/// mark (see `crate::limits::BOM`).
///
/// The default [`OutputsLimits`] apply: a line over the length limit is a
/// broken line, and reading stops with a broken line past the answer limit.
pub fn read_model_outputs(text: &str) -> OutputsFile {
    read_model_outputs_with_limits(text, &OutputsLimits::default())
}

/// [`read_model_outputs`] with other limits than the defaults.
pub fn read_model_outputs_with_limits(text: &str, limits: &OutputsLimits) -> OutputsFile {
    let mut file = OutputsFile::default();
    let mut answers = 0;
    for (n, line) in py_lines(strip_bom(text)) {
        if line.trim().is_empty() {
            continue;
        }
        answers += 1;
        if answers > limits.max_answers {
            file.errors.push(LineError {
                line: n,
                message: format!(
                    "more than {} answers in the file, the limit; the rest is not read",
                    limits.max_answers
                ),
            });
            break;
        }
        if line.len() > limits.max_line_bytes {
            file.errors.push(LineError {
                line: n,
                message: format!(
                    "the line is {} bytes long, over the limit of {}; not read",
                    line.len(),
                    size_label(limits.max_line_bytes as u64)
                ),
            });
            continue;
        }
        match parse_output_line(n, line) {
            Ok(o) => file.outputs.push(o),
            Err(message) => file.errors.push(LineError { line: n, message }),
        }
    }
    file
}

impl OutputsFile {
    /// Every task (language, repo, needle) is scored once: a later line for
    /// a task already read becomes a broken line (naming the first), and
    /// only the first is kept, as the page's answers import does. The
    /// official scorer would count both, so a file with repeats has no
    /// official score; `repoqa score --skip-broken-lines` scores the first
    /// of each.
    pub fn drop_repeated_tasks(&mut self) {
        let mut first: HashMap<(&str, &str, &str), usize> = HashMap::new();
        let mut keep = Vec::with_capacity(self.outputs.len());
        for o in &self.outputs {
            let key = (o.language.as_str(), o.repo.as_str(), o.name.as_str());
            match first.get(&key) {
                Some(&line) => {
                    keep.push(false);
                    self.errors.push(LineError {
                        line: o.line,
                        // Worded as the page's answers import words it.
                        message: format!(
                            "task {} was already answered on line {line}; this line is ignored",
                            o.task_id()
                        ),
                    });
                }
                None => {
                    keep.push(true);
                    first.insert(key, o.line);
                }
            }
        }
        let mut keep = keep.into_iter();
        self.outputs.retain(|_| keep.next().unwrap_or(true));
        self.errors.sort_by_key(|e| e.line);
    }
}

fn parse_output_line(n: usize, line: &str) -> Result<ModelOutput, String> {
    // serde_json reports "line 1 column N" of the single line: keep the column.
    let value: Value = serde_json::from_str(line).map_err(|e| {
        format!("not valid JSON: {}", e.to_string().replace(" at line 1 column ", " at column "))
    })?;
    let Value::Object(record) = value else {
        return Err(format!(
            "expected a JSON object (a task dict with \"output\"), found {}",
            kind(&value)
        ));
    };
    let string = |key: &str| -> Result<String, String> {
        match record.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(format!("field \"{key}\" must be a string, found {}", kind(v))),
            None => Err(format!("field \"{key}\" is missing")),
        }
    };
    let present = |key: &str| -> Result<Value, String> {
        record.get(key).cloned().ok_or_else(|| format!("field \"{key}\" is missing"))
    };
    let language = string("language")?;
    let repo = string("repo")?;
    let reply = match record.get("output") {
        Some(Value::Array(items)) => match items.first() {
            Some(Value::String(s)) => s.clone(),
            Some(v) => {
                return Err(format!(
                    "field \"output\"[0] must be a string (the reply), found {}",
                    kind(v)
                ))
            }
            None => {
                return Err(
                    "field \"output\" is an empty list (the official scorer reads output[0])"
                        .into(),
                )
            }
        },
        Some(v) => {
            return Err(format!("field \"output\" must be a list of replies, found {}", kind(v)))
        }
        None => {
            return Err(
                "field \"output\" is missing (is this a tasks file rather than model outputs?)"
                    .into(),
            )
        }
    };
    let name = string("name")?;
    let position_ratio = present("position_ratio")?;
    let needle_token_start = present("needle_token_start")?;
    let needle_token_end = present("needle_token_end")?;
    Ok(ModelOutput {
        line: n,
        language,
        repo,
        name,
        reply,
        position_ratio,
        needle_token_start,
        needle_token_end,
        record,
    })
}

use crate::context::Protocol;
use crate::dataset::kind;

/// `json.dumps(value) + "\n"`: one line of a tasks or outputs JSONL file.
pub fn jsonl_line<T: serde::Serialize>(value: &T) -> Result<String, ReportError> {
    let v = serde_json::to_value(value).map_err(|e| ReportError::Serialize {
        what: "a JSONL record".into(),
        message: e.to_string(),
    })?;
    let mut s = pyjson::dumps(&v);
    s.push('\n');
    Ok(s)
}

/// One line of a model-outputs file, as the official harness writes it:
/// `json.dumps({**task, "output": replies}) + "\n"`.
pub fn output_line<T: serde::Serialize>(
    task: &T,
    replies: &[String],
) -> Result<String, ReportError> {
    let mut v = serde_json::to_value(task)
        .map_err(|e| ReportError::Serialize { what: "a task".into(), message: e.to_string() })?;
    let Value::Object(map) = &mut v else {
        return Err(ReportError::Serialize {
            what: "a task".into(),
            message: "not a JSON object".into(),
        });
    };
    map.insert("output".into(), Value::Array(replies.iter().cloned().map(Value::String).collect()));
    let mut s = pyjson::dumps(&v);
    s.push('\n');
    Ok(s)
}

/// The `unanswered_*` fields of a model's entry (all or none), or the
/// field that is wrong and why.
fn parse_unanswered(entry: &Map<String, Value>) -> Result<Option<Unanswered>, (String, String)> {
    let (count, scored_as, tasks) = (
        entry.get("unanswered_count"),
        entry.get("unanswered_scored_as"),
        entry.get("unanswered_tasks"),
    );
    if count.is_none() && scored_as.is_none() && tasks.is_none() {
        return Ok(None);
    }
    let err = |k: &str, m: String| (k.to_string(), m);
    let Some(Value::Array(list)) = tasks else {
        return Err(err("unanswered_tasks", "expected a list of task ids".into()));
    };
    let tasks = list
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()
        .ok_or_else(|| err("unanswered_tasks", "expected a list of task ids".into()))?;
    let scoring =
        scored_as.and_then(Value::as_str).and_then(UnansweredScoring::parse).ok_or_else(|| {
            err("unanswered_scored_as", "expected \"failures\" or \"left out\"".into())
        })?;
    if count.and_then(Value::as_u64) != Some(tasks.len() as u64) {
        return Err(err(
            "unanswered_count",
            format!("expected the number of unanswered_tasks ({})", tasks.len()),
        ));
    }
    Ok(Some(Unanswered { scoring, tasks }))
}

/// The protocol the prompts of an outputs file were built with: the
/// `"protocol"` field of its lines (absent = official). Lines of different
/// protocols cannot be scored together.
pub fn outputs_protocol(outputs: &[ModelOutput]) -> Result<Protocol, ReportError> {
    let mut found: Option<(Protocol, usize)> = None;
    for o in outputs {
        let p = match o.record.get("protocol") {
            None => Protocol::Official,
            Some(Value::String(s)) => s.parse().map_err(|e: crate::context::ContextError| {
                ReportError::Message(format!("line {}: field `protocol`: {e}", o.line))
            })?,
            Some(v) => {
                return Err(ReportError::Message(format!(
                    "line {}: field `protocol`: expected a string, found {}",
                    o.line,
                    kind(v)
                )))
            }
        };
        match found {
            None => found = Some((p, o.line)),
            Some((q, line)) if q != p => {
                return Err(ReportError::Message(format!(
                    "line {line} was built with the {q} protocol but line {} with the {p} protocol: score them separately",
                    o.line
                )))
            }
            Some(_) => {}
        }
    }
    Ok(found.map_or(Protocol::Official, |(p, _)| p))
}

/// The SCORES file name suffix: `-SCORES.json` for official scores, with
/// `CORRECTED-` (NOT OFFICIAL prompts) and `CONTEXT-` (NOT OFFICIAL
/// candidates) inserted so no such file takes the official name.
pub fn scores_suffix(protocol: Protocol, official_candidates: bool) -> String {
    let mut s = String::from("-");
    if !protocol.is_official() {
        s.push_str(&protocol.as_str().to_uppercase());
        s.push('-');
    }
    if !official_candidates {
        s.push_str("CONTEXT-");
    }
    s.push_str("SCORES.json");
    s
}

/// One entry of `results[language]` in a SCORES file.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskResult {
    pub repo: String,
    pub name: String,
    /// The task's `position_ratio`.
    pub needle_position: Value,
    pub is_best_similar: bool,
    /// A float, or the int `0` when no needle had a positive similarity.
    pub best_similar_score: Number,
    pub best_target: Option<String>,
    pub token_start: Value,
    pub token_end: Value,
}

impl TaskResult {
    /// The score as the threshold comparison sees it.
    pub fn score(&self) -> f64 {
        self.best_similar_score.as_f64().unwrap_or(0.0)
    }

    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("repo".into(), Value::String(self.repo.clone()));
        m.insert("name".into(), Value::String(self.name.clone()));
        m.insert("needle_position".into(), self.needle_position.clone());
        m.insert("is_best_similar".into(), Value::Bool(self.is_best_similar));
        m.insert("best_similar_score".into(), Value::Number(self.best_similar_score.clone()));
        m.insert(
            "best_target".into(),
            self.best_target.clone().map(Value::String).unwrap_or(Value::Null),
        );
        let mut pos = Map::new();
        pos.insert("token_start".into(), self.token_start.clone());
        pos.insert("token_end".into(), self.token_end.clone());
        m.insert("position".into(), Value::Object(pos));
        Value::Object(m)
    }
}

/// The official `best_similar_score` value: the int `0` it starts from when
/// nothing beat it, else the float similarity.
pub fn similarity_number(best_target: Option<&str>, similarity: f64) -> Number {
    match best_target {
        None => Number::from(0),
        Some(_) => Number::from_f64(similarity).unwrap_or_else(|| Number::from(0)),
    }
}

/// One model's entry of a SCORES file.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelScores {
    pub eval_date: String,
    pub train_size: String,
    /// The `scores` table as it is in the file (or as computed): row →
    /// threshold key → {"pass@1": value}.
    pub scores: Value,
    /// `results`: language → tasks, languages in order of first appearance.
    pub results: IndexMap<String, Vec<TaskResult>>,
    /// How the prompts were built. Not `Official` = NOT OFFICIAL, written as
    /// an extra `"protocol"` field after `train_size` (official files have
    /// none, so they stay byte-identical).
    pub protocol: Protocol,
    /// Selected tasks the run left without an answer, and how the score
    /// counts them: NOT UPSTREAM, written only when there are some (as
    /// extra fields after `train_size`), so a full run's file is official.
    pub unanswered: Option<Unanswered>,
    /// What the run's replies were (cut at the token limit, thinking taken
    /// out): NOT UPSTREAM, written only when there is something to say.
    pub replies: ReplyNotes,
}

/// What a run's replies were beyond their text, from its run log
/// (`llm::runlog::answer_notes`): NOT UPSTREAM fields of a SCORES file,
/// written after `train_size` (and the `unanswered_*` fields) only when
/// not empty, so a plain run's file stays official.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplyNotes {
    /// Tasks whose answer ended at the token limit (`cut_replies`, with
    /// `cut_replies_count`): scored as stored, but maybe incomplete.
    pub cut: Vec<String>,
    /// How many answers had an inline `<think>` block taken out before
    /// they were stored (`inline_reasoning_removed`); upstream stores the
    /// content whole (`--keep-reasoning`).
    pub reasoning_removed: usize,
}

impl ReplyNotes {
    pub fn is_empty(&self) -> bool {
        self.cut.is_empty() && self.reasoning_removed == 0
    }
}

/// The `cut_replies*` and `inline_reasoning_removed` fields of a model's
/// entry.
fn parse_reply_notes(entry: &Map<String, Value>) -> Result<ReplyNotes, (String, String)> {
    let err = |k: &str, m: &str| (k.to_string(), m.to_string());
    let cut = match entry.get("cut_replies") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| err("cut_replies", "expected a list of task ids"))?,
        Some(_) => return Err(err("cut_replies", "expected a list of task ids")),
    };
    match entry.get("cut_replies_count") {
        None if cut.is_empty() => {}
        Some(n) if n.as_u64() == Some(cut.len() as u64) => {}
        _ => {
            let m = format!("expected the number of cut_replies ({})", cut.len());
            return Err(err("cut_replies_count", &m));
        }
    }
    let reasoning_removed = match entry.get("inline_reasoning_removed") {
        None => 0,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| err("inline_reasoning_removed", "expected a number of answers"))?,
    };
    Ok(ReplyNotes { cut, reasoning_removed })
}

/// How a score counts the tasks a run left without an answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnansweredScoring {
    /// Each scored as an empty reply (`"output": [""]`), which the
    /// official scorer fails at every threshold: the `all` row is over
    /// every selected task, comparable with a full run.
    #[default]
    Failures,
    /// Left out (`compute_score` over the outputs file as it is).
    AnsweredOnly,
}

impl UnansweredScoring {
    pub fn as_str(self) -> &'static str {
        match self {
            UnansweredScoring::Failures => "failures",
            UnansweredScoring::AnsweredOnly => "left out",
        }
    }

    pub fn parse(s: &str) -> Option<UnansweredScoring> {
        [UnansweredScoring::Failures, UnansweredScoring::AnsweredOnly]
            .into_iter()
            .find(|u| u.as_str() == s)
    }
}

/// The tasks a run left without an answer (ids `language::repo::name`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unanswered {
    pub scoring: UnansweredScoring,
    pub tasks: Vec<String>,
}

impl Unanswered {
    /// `"N without an answer, scored as failures"`, for a table's title.
    pub fn label(&self) -> String {
        format!("{} without an answer, scored as {}", self.tasks.len(), self.scoring.as_str())
    }
}

impl ModelScores {
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("eval_date".into(), Value::String(self.eval_date.clone()));
        m.insert("train_size".into(), Value::String(self.train_size.clone()));
        if !self.protocol.is_official() {
            m.insert("protocol".into(), Value::String(self.protocol.as_str().into()));
        }
        if let Some(u) = &self.unanswered {
            m.insert("unanswered_count".into(), Value::from(u.tasks.len()));
            m.insert("unanswered_scored_as".into(), Value::String(u.scoring.as_str().into()));
            m.insert(
                "unanswered_tasks".into(),
                Value::Array(u.tasks.iter().cloned().map(Value::String).collect()),
            );
        }
        let r = &self.replies;
        if r.reasoning_removed > 0 {
            m.insert("inline_reasoning_removed".into(), Value::from(r.reasoning_removed));
        }
        if !r.cut.is_empty() {
            m.insert("cut_replies_count".into(), Value::from(r.cut.len()));
            m.insert(
                "cut_replies".into(),
                Value::Array(r.cut.iter().cloned().map(Value::String).collect()),
            );
        }
        m.insert("scores".into(), self.scores.clone());
        let mut results = Map::new();
        for (lang, tasks) in &self.results {
            results.insert(
                lang.clone(),
                Value::Array(tasks.iter().map(TaskResult::to_value).collect()),
            );
        }
        m.insert("results".into(), Value::Object(results));
        Value::Object(m)
    }

    /// Number of tasks over all languages.
    pub fn task_count(&self) -> usize {
        self.results.values().map(Vec::len).sum()
    }
}

/// A whole SCORES file: `{model_name: ModelScores}` (the official tool
/// writes exactly one model; COMBINED files hold several).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoresFile {
    pub models: IndexMap<String, ModelScores>,
}

impl ScoresFile {
    pub fn single(model: &str, scores: ModelScores) -> ScoresFile {
        let mut models = IndexMap::new();
        models.insert(model.to_string(), scores);
        ScoresFile { models }
    }

    pub fn to_value(&self) -> Value {
        Value::Object(self.models.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
    }

    /// The file's text exactly as `json.dump(output_json, f)` writes it (no
    /// trailing newline).
    pub fn to_python_json(&self) -> String {
        pyjson::dumps(&self.to_value())
    }

    /// Parse a SCORES file; `origin` (the file name) prefixes every error,
    /// which names the offending field, e.g. `results.python[3].best_target`.
    ///
    /// A byte-order mark at the start is read past, as for outputs files.
    pub fn parse(text: &str, origin: &str) -> Result<ScoresFile, ReportError> {
        let value: Value = serde_json::from_str(strip_bom(text)).map_err(|e| {
            ReportError::Json { origin: origin.to_string(), message: e.to_string() }
        })?;
        let field = |path: &str, message: String| ReportError::Field {
            origin: origin.to_string(),
            path: path.to_string(),
            message,
        };
        let Value::Object(top) = value else {
            return Err(field(
                "(top level)",
                format!("expected an object keyed by model name, found {}", kind(&value)),
            ));
        };
        let mut models = IndexMap::new();
        for (model, entry) in top {
            let Value::Object(entry) = entry else {
                return Err(field(&model, format!("expected an object, found {}", kind(&entry))));
            };
            let get = |key: &str| {
                entry.get(key).ok_or_else(|| field(&format!("{model}.{key}"), "missing".into()))
            };
            let string = |key: &str| -> Result<String, ReportError> {
                match get(key)? {
                    Value::String(s) => Ok(s.clone()),
                    v => Err(field(
                        &format!("{model}.{key}"),
                        format!("expected a string, found {}", kind(v)),
                    )),
                }
            };
            let eval_date = string("eval_date")?;
            let train_size = string("train_size")?;
            let scores = get("scores")?.clone();
            if !scores.is_object() {
                return Err(field(
                    &format!("{model}.scores"),
                    format!("expected an object, found {}", kind(&scores)),
                ));
            }
            let Value::Object(results_v) = get("results")? else {
                return Err(field(
                    &format!("{model}.results"),
                    "expected an object keyed by language".into(),
                ));
            };
            let mut results = IndexMap::new();
            for (lang, tasks) in results_v {
                let Value::Array(tasks) = tasks else {
                    return Err(field(
                        &format!("{model}.results.{lang}"),
                        format!("expected a list, found {}", kind(tasks)),
                    ));
                };
                let mut parsed = Vec::with_capacity(tasks.len());
                for (i, t) in tasks.iter().enumerate() {
                    let at = format!("{model}.results.{lang}[{i}]");
                    parsed.push(
                        parse_task_result(t)
                            .map_err(|(sub, msg)| field(&format!("{at}{sub}"), msg))?,
                    );
                }
                results.insert(lang.clone(), parsed);
            }
            let protocol = match entry.get("protocol") {
                None => Protocol::Official,
                Some(Value::String(p)) => {
                    p.parse().map_err(|e: crate::context::ContextError| {
                        field(&format!("{model}.protocol"), e.to_string())
                    })?
                }
                Some(v) => {
                    return Err(field(
                        &format!("{model}.protocol"),
                        format!("expected a string, found {}", kind(v)),
                    ))
                }
            };
            let unanswered = parse_unanswered(&entry)
                .map_err(|(key, message)| field(&format!("{model}.{key}"), message))?;
            let replies = parse_reply_notes(&entry)
                .map_err(|(key, message)| field(&format!("{model}.{key}"), message))?;
            models.insert(
                model,
                ModelScores {
                    eval_date,
                    train_size,
                    scores,
                    results,
                    protocol,
                    unanswered,
                    replies,
                },
            );
        }
        if models.is_empty() {
            return Err(ReportError::NoModel { origin: origin.to_string() });
        }
        Ok(ScoresFile { models })
    }
}

/// A task record; errors are (".field", message).
fn parse_task_result(v: &Value) -> Result<TaskResult, (String, String)> {
    let Value::Object(m) = v else {
        return Err((String::new(), format!("expected an object, found {}", kind(v))));
    };
    let get = |key: &str| m.get(key).ok_or_else(|| (format!(".{key}"), "missing".to_string()));
    let string = |key: &str| match get(key)? {
        Value::String(s) => Ok(s.clone()),
        v => Err((format!(".{key}"), format!("expected a string, found {}", kind(v)))),
    };
    let is_best_similar = match get("is_best_similar")? {
        Value::Bool(b) => *b,
        v => {
            return Err((
                ".is_best_similar".into(),
                format!("expected a boolean, found {}", kind(v)),
            ))
        }
    };
    let best_similar_score = match get("best_similar_score")? {
        Value::Number(n) => n.clone(),
        v => {
            return Err((
                ".best_similar_score".into(),
                format!("expected a number, found {}", kind(v)),
            ))
        }
    };
    let best_target = match get("best_target")? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        v => {
            return Err((
                ".best_target".into(),
                format!("expected a string or null, found {}", kind(v)),
            ))
        }
    };
    let Value::Object(pos) = get("position")? else {
        return Err((".position".into(), "expected an object {token_start, token_end}".into()));
    };
    let pos_get = |key: &str| {
        pos.get(key).cloned().ok_or_else(|| (format!(".position.{key}"), "missing".to_string()))
    };
    Ok(TaskResult {
        repo: string("repo")?,
        name: string("name")?,
        needle_position: get("needle_position")?.clone(),
        is_best_similar,
        best_similar_score,
        best_target,
        token_start: pos_get("token_start")?,
        token_end: pos_get("token_end")?,
    })
}

/// `train_size` as `compute_score` decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainSize {
    pub value: String,
    /// The official code would ask the Hugging Face hub for the model's
    /// config (names with "/" other than bigcode/starcoder2). Without network
    /// that lookup fails and the official code itself writes "N/A" — which is
    /// what `value` holds then.
    pub needs_hub_lookup: bool,
}

pub fn train_size(model_name: &str) -> TrainSize {
    let fixed = |v: &str| TrainSize { value: v.to_string(), needs_hub_lookup: false };
    let m = model_name;
    if m.contains('/') {
        if m.starts_with("bigcode/starcoder2") {
            fixed("16k")
        } else {
            TrainSize { value: "N/A".into(), needs_hub_lookup: true }
        }
    } else if m.starts_with("gpt-4-turbo") || m.starts_with("gpt-4o-") {
        fixed("128k")
    } else if m.starts_with("gpt-3.5-") {
        fixed("16k")
    } else if m.starts_with("gemini-1.5-pro") || m.starts_with("gemini-1.5-flash") {
        fixed("1000k")
    } else if m.starts_with("gemini-1.0-pro") {
        fixed("32k")
    } else if m.starts_with("claude-3-") {
        fixed("200k")
    } else {
        fixed("N/A")
    }
}

/// The last component of a path (either separator).
fn file_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// `compute_score.get_model_name(path)`: `Path(path).stem` split on `_`,
/// each `slash` segment becomes `/`, the others are concatenated — so other
/// underscores disappear (`my_model.jsonl` → `mymodel`), as in the official
/// tool.
pub fn model_name_from_path(path: &str) -> String {
    let name = file_name(path);
    // pathlib's stem: strip the last suffix unless the dot is the first or
    // last character of the name.
    let stem = match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[..i],
        _ => name,
    };
    stem.split('_').map(|seg| if seg == "slash" { "/" } else { seg }).collect()
}

/// The official result path: `os.path.splitext(path)[0] + "-SCORES.json"`.
pub fn scores_path_for(outputs_path: &str) -> String {
    let base_start = outputs_path.rfind('/').map_or(0, |i| i + 1);
    let base = &outputs_path[base_start..];
    // splitext ignores leading dots of the file name.
    let lead = base.len() - base.trim_start_matches('.').len();
    let stem_end = match base[lead..].rfind('.') {
        Some(i) => base_start + lead + i,
        None => outputs_path.len(),
    };
    format!("{}-SCORES.json", &outputs_path[..stem_end])
}

/// `str(datetime)` of a UTC instant (`YYYY-MM-DD HH:MM:SS[.ffffff]`, the
/// microseconds omitted when zero, as Python does). The official tool uses
/// local time; callers pass whatever instant they want recorded.
/// An instant out of `time`'s range (years -9999 to 9999) is written as
/// the epoch.
pub fn format_eval_date(unix_seconds: i64, micros: u32) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(unix_seconds)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let mut out = format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    if micros != 0 {
        out.push_str(&format!(".{:06}", micros.min(999_999)));
    }
    out
}

/// [`format_eval_date`] of now, in UTC: the `eval_date` of a SCORES file
/// and the time of a run record, the same in the CLI and the page.
pub fn now_eval_date() -> String {
    let now = time::OffsetDateTime::now_utc();
    format_eval_date(now.unix_timestamp(), now.microsecond())
}

/// Per-task results as CSV (RFC 4180 quoting), one row per task in file
/// order; numbers in Python's repr so nothing is rounded.
pub fn results_csv(results: &IndexMap<String, Vec<TaskResult>>) -> String {
    let mut w =
        csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let head = [
        "language",
        "repo",
        "name",
        "needle_position",
        "is_best_similar",
        "best_similar_score",
        "best_target",
        "token_start",
        "token_end",
    ];
    // Writing to memory cannot fail; a record of strings is always valid.
    let _ = w.write_record(head);
    for (lang, tasks) in results {
        for t in tasks {
            let _ = w.write_record([
                lang.clone(),
                t.repo.clone(),
                t.name.clone(),
                plain(&t.needle_position),
                t.is_best_similar.to_string(),
                plain(&Value::Number(t.best_similar_score.clone())),
                t.best_target.clone().unwrap_or_default(),
                plain(&t.token_start),
                plain(&t.token_end),
            ]);
        }
    }
    let bytes = w.into_inner().unwrap_or_default();
    // Every cell is a Rust string: the bytes are UTF-8.
    String::from_utf8(bytes).unwrap_or_default()
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => pyjson::dumps(other),
    }
}

/// A model's SCORES record for tests: `results` with the table they give.
#[cfg(test)]
pub(crate) fn test_scores(results: IndexMap<String, Vec<TaskResult>>) -> ModelScores {
    ModelScores {
        eval_date: "d".into(),
        train_size: "N/A".into(),
        scores: crate::score::pass_table(&results).map(|t| t.to_value()).unwrap_or_default(),
        results,
        protocol: Default::default(),
        unanswered: None,
        replies: Default::default(),
    }
}

/// A per-task record for tests of the modules that read SCORES files
/// (`verify`, `leaderboard`): needle `name` in repo `a/b`, best target `best`
/// (none: similarity 0) with similarity `score`.
#[cfg(test)]
pub(crate) fn test_record(name: &str, best: Option<&str>, score: f64) -> TaskResult {
    TaskResult {
        repo: "a/b".into(),
        name: name.into(),
        needle_position: serde_json::json!(0.5),
        is_best_similar: best == Some(name),
        best_similar_score: match best {
            None => Number::from(0),
            Some(_) => Number::from_f64(score).unwrap(),
        },
        best_target: best.map(str::to_string),
        token_start: serde_json::json!(1),
        token_end: serde_json::json!(2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outputs_keep_good_lines_and_report_bad_ones() {
        let text = concat!(
            r#"{"repo": "a/b", "name": "f", "language": "python", "position_ratio": 0.5, "needle_token_start": 1, "needle_token_end": 2, "output": ["x"], "extra": 1}"#,
            "\n\n",
            "{not json\n",
            r#"{"repo": "a/b", "name": "f", "language": "python", "position_ratio": 0.5, "needle_token_start": 1, "needle_token_end": 2}"#,
            "\r\n",
            r#"{"repo": "a/b", "name": "g", "language": "python", "needle_token_start": 1, "needle_token_end": 2, "output": ["y"]}"#,
            "\n",
            r#"{"repo": "a/b", "name": "h", "language": "python", "position_ratio": 1, "needle_token_start": 1, "needle_token_end": 2, "output": "z"}"#,
            "\r",
            r#"{"repo": "a/b", "name": "i", "language": "rust", "position_ratio": 0.25, "needle_token_start": 3, "needle_token_end": 4, "output": ["w", "v"]}"#,
        );
        let f = read_model_outputs(text);
        assert_eq!(f.outputs.len(), 2);
        assert_eq!((f.outputs[0].line, f.outputs[0].reply.as_str()), (1, "x"));
        assert_eq!((f.outputs[1].line, f.outputs[1].reply.as_str()), (7, "w"));
        let lines: Vec<usize> = f.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [3, 4, 5, 6]);
        assert!(f.errors[1].message.contains("\"output\" is missing"), "{}", f.errors[1]);
        assert!(f.errors[2].message.contains("\"position_ratio\" is missing"), "{}", f.errors[2]);
        assert!(f.errors[3].message.contains("must be a list"), "{}", f.errors[3]);
    }

    #[test]
    fn a_repeated_task_is_a_broken_line_and_the_first_is_kept() {
        let line = |name: &str, reply: &str| {
            format!(
                "{}\n",
                json!({"repo": "a/b", "name": name, "language": "python", "position_ratio": 0.5,
                    "needle_token_start": 1, "needle_token_end": 2, "output": [reply]})
            )
        };
        let text =
            [line("f", "1"), line("g", "2"), "{bad\n".into(), line("f", "3"), line("f", "4")];
        let mut f = read_model_outputs(&text.concat());
        f.drop_repeated_tasks();
        let kept: Vec<(usize, &str)> =
            f.outputs.iter().map(|o| (o.line, o.reply.as_str())).collect();
        assert_eq!(kept, [(1, "1"), (2, "2")]);
        let errors: Vec<String> = f.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            errors,
            [
                "line 3: not valid JSON: key must be a string at column 2",
                "line 4: task python::a/b::f was already answered on line 1; this line is ignored",
                "line 5: task python::a/b::f was already answered on line 1; this line is ignored",
            ]
        );
    }

    #[test]
    fn model_name_and_scores_path_follow_the_official_rules() {
        assert_eq!(
            model_name_from_path(
                "results/ntoken_16384/meta-llama_slash_Meta-Llama-3-8B-Instruct.jsonl"
            ),
            "meta-llama/Meta-Llama-3-8B-Instruct"
        );
        assert_eq!(model_name_from_path("gpt-4o-2024-05-13.jsonl"), "gpt-4o-2024-05-13");
        assert_eq!(model_name_from_path("my_model.v2.jsonl"), "mymodel.v2");
        assert_eq!(model_name_from_path(".jsonl"), ".jsonl");
        assert_eq!(scores_path_for("out/a_slash_b.jsonl"), "out/a_slash_b-SCORES.json");
        assert_eq!(scores_path_for("out.d/model"), "out.d/model-SCORES.json");
        assert_eq!(scores_path_for("x/.hidden"), "x/.hidden-SCORES.json");
        assert_eq!(scores_path_for("a.b.jsonl"), "a.b-SCORES.json");
    }

    #[test]
    fn train_size_rules() {
        assert_eq!(train_size("gpt-4o-2024-05-13").value, "128k");
        assert_eq!(train_size("gpt-4-turbo-2024-04-09").value, "128k");
        assert_eq!(train_size("gpt-4o").value, "N/A");
        assert_eq!(train_size("gpt-3.5-turbo-0125").value, "16k");
        assert_eq!(train_size("gemini-1.5-flash-latest").value, "1000k");
        assert_eq!(train_size("gemini-1.0-pro").value, "32k");
        assert_eq!(train_size("claude-3-opus-20240229").value, "200k");
        assert_eq!(
            train_size("bigcode/starcoder2-15b"),
            TrainSize { value: "16k".into(), needs_hub_lookup: false }
        );
        assert_eq!(
            train_size("Qwen/Qwen1.5-7B-Chat"),
            TrainSize { value: "N/A".into(), needs_hub_lookup: true }
        );
        assert_eq!(train_size("mymodel").value, "N/A");
    }

    #[test]
    fn eval_date_like_python_str_datetime() {
        // datetime.utcfromtimestamp(1716068231.078575) → 2024-05-18 21:37:11.078575
        assert_eq!(format_eval_date(1_716_068_231, 78_575), "2024-05-18 21:37:11.078575");
        assert_eq!(format_eval_date(0, 0), "1970-01-01 00:00:00");
        assert_eq!(format_eval_date(951_782_400, 5), "2000-02-29 00:00:00.000005");
        assert_eq!(format_eval_date(-1, 0), "1969-12-31 23:59:59");
        assert_eq!(format_eval_date(i64::MAX, 0), "1970-01-01 00:00:00", "out of range");
        let now = now_eval_date();
        assert!(now.len() >= 19 && now.as_bytes()[10] == b' ', "{now}");
    }

    #[test]
    fn scores_file_round_trips_in_python_layout() {
        let text = r#"{"m/x": {"eval_date": "2024-05-13 01:38:17.550466", "train_size": "N/A", "scores": {"all": {"0.0": {"pass@1": 0.5}}}, "results": {"python": [{"repo": "a/b", "name": "f", "needle_position": 0.5, "is_best_similar": false, "best_similar_score": 0, "best_target": null, "position": {"token_start": 1, "token_end": 2}}, {"repo": "a/b", "name": "g\u00e9", "needle_position": 0.1, "is_best_similar": true, "best_similar_score": 1.0, "best_target": "g\u00e9", "position": {"token_start": 3, "token_end": 4}}]}}}"#;
        let f = ScoresFile::parse(text, "x.json").unwrap();
        assert_eq!(f.to_python_json(), text);
        let m = &f.models["m/x"];
        assert_eq!(m.task_count(), 2);
        assert_eq!(m.results["python"][0].best_similar_score, Number::from(0));
        let bad = text.replace(r#""best_target": null"#, r#""best_target": 3"#);
        let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
        assert_eq!(
            e,
            "x.json: m/x.results.python[0].best_target: expected a string or null, found a number"
        );
    }

    #[test]
    fn reply_notes_round_trip_and_a_wrong_count_is_named() {
        let text = r#"{"m": {"eval_date": "d", "train_size": "N/A", "inline_reasoning_removed": 3, "cut_replies_count": 1, "cut_replies": ["python::a/b::g"], "scores": {}, "results": {"python": []}}}"#;
        let f = ScoresFile::parse(text, "x.json").unwrap();
        let r = &f.models["m"].replies;
        assert_eq!(
            (r.cut.as_slice(), r.reasoning_removed),
            (&["python::a/b::g".to_string()][..], 3)
        );
        assert_eq!(f.to_python_json(), text, "written back byte for byte");
        let bad = text.replace(r#""cut_replies_count": 1"#, r#""cut_replies_count": 2"#);
        let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
        assert_eq!(e, "x.json: m.cut_replies_count: expected the number of cut_replies (1)");
        let bad =
            text.replace(r#""inline_reasoning_removed": 3"#, r#""inline_reasoning_removed": "3""#);
        let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
        assert!(e.contains("m.inline_reasoning_removed"), "{e}");
        let plain = r#"{"m": {"eval_date": "d", "train_size": "N/A", "scores": {}, "results": {"python": []}}}"#;
        let f = ScoresFile::parse(plain, "x.json").unwrap();
        assert!(f.models["m"].replies.is_empty());
        assert_eq!(f.to_python_json(), plain, "no notes: nothing written");
    }

    #[test]
    fn unanswered_tasks_round_trip_and_a_wrong_count_is_named() {
        let text = r#"{"m": {"eval_date": "d", "train_size": "N/A", "unanswered_count": 1, "unanswered_scored_as": "failures", "unanswered_tasks": ["python::a/b::g"], "scores": {}, "results": {"python": []}}}"#;
        let f = ScoresFile::parse(text, "x.json").unwrap();
        assert_eq!(f.to_python_json(), text);
        let u = f.models["m"].unanswered.as_ref().unwrap();
        assert_eq!(u.scoring, UnansweredScoring::Failures);
        assert_eq!(u.label(), "1 without an answer, scored as failures");
        let bad = text.replace(r#""unanswered_count": 1"#, r#""unanswered_count": 2"#);
        let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
        assert_eq!(e, "x.json: m.unanswered_count: expected the number of unanswered_tasks (1)");
        let bad = text.replace(r#""failures""#, r#""maybe""#);
        let e = ScoresFile::parse(&bad, "x.json").unwrap_err().to_string();
        assert!(e.contains("m.unanswered_scored_as"), "{e}");
    }

    #[test]
    fn lines_written_like_json_dumps() {
        let task = json!({"repo": "a/b", "position_ratio": 0.5, "code_context": "é\n"});
        assert_eq!(
            jsonl_line(&task).unwrap(),
            "{\"repo\": \"a/b\", \"position_ratio\": 0.5, \"code_context\": \"\\u00e9\\n\"}\n"
        );
        assert_eq!(
            output_line(&task, &["r".into()]).unwrap(),
            "{\"repo\": \"a/b\", \"position_ratio\": 0.5, \"code_context\": \"\\u00e9\\n\", \"output\": [\"r\"]}\n"
        );
    }

    #[test]
    fn csv_quotes_when_needed() {
        let mut results = IndexMap::new();
        results.insert(
            "python".to_string(),
            vec![TaskResult {
                repo: "a/b".into(),
                name: "f,g".into(),
                needle_position: json!(0.5),
                is_best_similar: true,
                best_similar_score: Number::from_f64(0.25).unwrap(),
                best_target: Some("say \"hi\"".into()),
                token_start: json!(1),
                token_end: json!(2),
            }],
        );
        assert_eq!(
            results_csv(&results).lines().nth(1).unwrap(),
            "python,a/b,\"f,g\",0.5,true,0.25,\"say \"\"hi\"\"\",1,2"
        );
    }
}
