//! The per-task results as a CSV, for spreadsheets (ours, not upstream's).

use indexmap::IndexMap;
use serde_json::Value;

use super::TaskResult;
use crate::python::json;

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
        other => json::dumps(other),
    }
}
