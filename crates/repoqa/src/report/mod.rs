//! The files the official tools exchange (docs/parity.md "Files the official tools
//! exchange", S7, J1–J3):
//!
//! - tasks / model outputs JSONL: one task dict per line (`json.dumps(task)`,
//!   [`Task`], with its id and [`Protocol`]), outputs add `"output": [reply]`;
//! - `<model>-SCORES.json`: `{model: {eval_date, train_size, scores, results}}`
//!   written by `json.dump` (Python layout, see [`crate::python::json`]);
//! - a CSV of the per-task results (ours, for spreadsheets).
//!
//! Their names and folders are [`crate::naming`]'s.
//!
//! Values the official code copies through untouched (`position_ratio`,
//! token positions, the score) are kept as JSON numbers, so an int stays an
//! int and a float keeps its exact repr when written back.

use thiserror::Error;

use crate::python::json;

mod csv;
mod outputs;
mod scores;
mod task;

pub use self::csv::results_csv;
pub use self::outputs::{
    output_line, output_reply, outputs_protocol, read_model_outputs,
    read_model_outputs_with_limits, ModelOutput, OutputForm, OutputsFile,
};
pub use self::scores::{
    format_eval_date, now_eval_date, similarity_number, train_size, ModelScores, ReplyNotes,
    ScoresFile, TaskResult, TrainSize, Unanswered, UnansweredScoring,
};
pub use self::task::{fill_template, task_id, Protocol, Task, UnknownProtocol};

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

/// `json.dumps(value) + "\n"`: one line of a tasks or outputs JSONL file.
pub fn jsonl_line<T: serde::Serialize>(value: &T) -> Result<String, ReportError> {
    let v = serde_json::to_value(value).map_err(|e| ReportError::Serialize {
        what: "a JSONL record".into(),
        message: e.to_string(),
    })?;
    let mut s = json::dumps(&v);
    s.push('\n');
    Ok(s)
}

/// A model's SCORES record for tests: `results` with the table they give.
#[cfg(test)]
pub(crate) fn test_scores(results: indexmap::IndexMap<String, Vec<TaskResult>>) -> ModelScores {
    ModelScores {
        eval_date: "d".into(),
        train_size: "N/A".into(),
        scores: crate::scoring::score::pass_table(&results)
            .map(|t| t.to_value())
            .unwrap_or_default(),
        results,
        protocol: Default::default(),
        dataset_freshness: None,
        model_cutoff: None,
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
            None => serde_json::Number::from(0),
            Some(_) => serde_json::Number::from_f64(score).unwrap(),
        },
        best_target: best.map(str::to_string),
        token_start: serde_json::json!(1),
        token_end: serde_json::json!(2),
    }
}

#[cfg(test)]
mod tests;
