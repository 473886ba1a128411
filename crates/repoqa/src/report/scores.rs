//! `<model>-SCORES.json` as the official harness writes it
//! (`{model: {eval_date, train_size, scores, results}}`, Python's layout),
//! with the NOT UPSTREAM fields we add (protocol, unanswered tasks, reply
//! notes), read back field by field with the path of what is wrong.

use indexmap::IndexMap;
use serde_json::{Map, Number, Value};

use super::Protocol;
use super::ReportError;
use crate::input::dataset::{kind, Dataset};
use crate::input::freshness::{freshness, Day};
use crate::input::limits::strip_bom;
use crate::python::json;

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
    /// NOT UPSTREAM: the dataset's freshness (`YYYY-MM-DD`, the earliest
    /// first release its repositories record: `input::freshness`), written
    /// as `dataset_freshness` when the dataset has one, so a SCORES file
    /// alone says how fresh its tasks were. A closed-book run (protocol
    /// no-context) is also written `"closed_book": true`.
    pub dataset_freshness: Option<String>,
    /// NOT UPSTREAM: the model's training cutoff as stated by whoever ran
    /// it (`--model-cutoff`), written as `model_cutoff`.
    pub model_cutoff: Option<String>,
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
    /// Record the dataset's freshness (none for a dataset without dates)
    /// and the stated training cutoff.
    pub fn dated(mut self, dataset: &Dataset, model_cutoff: Option<&str>) -> ModelScores {
        self.dataset_freshness = freshness(dataset).map(|f| f.earliest.to_string());
        self.model_cutoff = model_cutoff.map(str::to_string);
        self
    }

    /// The stated training cutoff is on or after the dataset's freshness:
    /// the model may have been trained on some of its sources.
    pub fn cutoff_after_freshness(&self) -> bool {
        let day = |d: &Option<String>| d.as_deref().and_then(Day::parse);
        matches!((day(&self.model_cutoff), day(&self.dataset_freshness)), (Some(c), Some(f)) if c >= f)
    }

    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("eval_date".into(), Value::String(self.eval_date.clone()));
        m.insert("train_size".into(), Value::String(self.train_size.clone()));
        if !self.protocol.is_official() {
            m.insert("protocol".into(), Value::String(self.protocol.as_str().into()));
        }
        if self.protocol == Protocol::NoContext {
            m.insert("closed_book".into(), Value::Bool(true));
        }
        if let Some(d) = &self.dataset_freshness {
            m.insert("dataset_freshness".into(), Value::String(d.clone()));
        }
        if let Some(d) = &self.model_cutoff {
            m.insert("model_cutoff".into(), Value::String(d.clone()));
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
        json::dumps(&self.to_value())
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
                Some(Value::String(p)) => p.parse().map_err(|e: super::UnknownProtocol| {
                    field(&format!("{model}.protocol"), e.to_string())
                })?,
                Some(v) => {
                    return Err(field(
                        &format!("{model}.protocol"),
                        format!("expected a string, found {}", kind(v)),
                    ))
                }
            };
            match entry.get("closed_book") {
                None => {}
                Some(Value::Bool(b)) if *b == (protocol == Protocol::NoContext) => {}
                Some(Value::Bool(b)) => {
                    return Err(field(
                        &format!("{model}.closed_book"),
                        format!(
                            "{b}, but the protocol is {} (closed-book is the no-context protocol)",
                            protocol.as_str()
                        ),
                    ))
                }
                Some(v) => {
                    return Err(field(
                        &format!("{model}.closed_book"),
                        format!("expected a boolean, found {}", kind(v)),
                    ))
                }
            }
            let day = |key: &str| -> Result<Option<String>, ReportError> {
                match entry.get(key) {
                    None => Ok(None),
                    Some(Value::String(s)) if Day::parse(s).is_some() => Ok(Some(s.clone())),
                    Some(v) => Err(field(
                        &format!("{model}.{key}"),
                        format!("expected a date YYYY-MM-DD, found {v}"),
                    )),
                }
            };
            let dataset_freshness = day("dataset_freshness")?;
            let model_cutoff = day("model_cutoff")?;
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
                    dataset_freshness,
                    model_cutoff,
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
