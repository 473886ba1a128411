//! The checks that need nothing but the SCORES file: each record against
//! itself and the file format, the table against the records, and which
//! table cells follow from wrong records.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::finding::{show, task_ref};
use super::{Finding, TaskRef};
use crate::report::{ModelScores, ScoresFile, TaskResult};
use crate::scoring::score::{pass_table, THRESHOLD_KEYS};

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
                    crate::python::json::dumps(&t.needle_position)
                ));
            }
            let (start, end) = (t.token_start.as_u64(), t.token_end.as_u64());
            for (key, v, n) in
                [("token_start", &t.token_start, start), ("token_end", &t.token_end, end)]
            {
                if n.is_none() {
                    problems.push(format!(
                        "position.{key} is {}, not a whole number of tokens",
                        crate::python::json::dumps(v)
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
                        crate::python::json::dumps(v)
                    }
                    _ => crate::python::json::dumps(c),
                });
                out.push(Finding::Cell {
                    model: model_s.clone(),
                    row: r.name.clone(),
                    threshold: key.to_string(),
                    in_file,
                    recomputed: crate::python::json::float_repr(r.pass_at_1[i]),
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
