//! What a run keeps so that nothing is lost and nothing is asked twice.
//!
//! Two files, both appended one line at a time the moment an answer (or a
//! failure) arrives:
//! - the official outputs JSONL: the task's fields plus `"output": [reply]`,
//!   exactly what upstream writes, so `repoqa score` (and the official
//!   `compute_score`) read it as is;
//! - a run log beside it ([`runlog_path_for`]): one [`RunRecord`] per
//!   answered or failed task saying what produced it (provider, model,
//!   base URL without the key, parameters, time, latency, usage) and, for a
//!   failure, why.
//!
//! A rerun reads both ([`plan_resume`]): a task with a line in the outputs
//! is finished and never asked again; a failed one is listed and asked
//! again (or alone, with `only_failed`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::wire::{Endpoint, Provider, RequestParams, Usage};
use crate::report::{OutputsFile, ReplyNotes};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordStatus {
    Answered,
    Failed,
}

/// One line of the run log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// `language::repo::name`, as upstream's `make_task_id`.
    pub task_id: String,
    pub status: RecordStatus,
    pub provider: Provider,
    pub model: String,
    /// Without user, password or query: never the key.
    pub base_url: String,
    pub params: RequestParams,
    /// UTC, `YYYY-MM-DD HH:MM:SS.ffffff`.
    pub time: String,
    /// Of the last request (the one that answered or failed for good).
    pub latency_ms: f64,
    pub attempts: u32,
    pub usage: Usage,
    /// The task's own token count (`code_context_ntokens`).
    pub task_ntokens: usize,
    /// The API reported far fewer prompt tokens than the task holds.
    #[serde(default)]
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The model the reply named, when it is not the one asked for (see
    /// [`other_model`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// The answer ended at the token limit (finish reason `length`,
    /// `max_tokens`, `MAX_TOKENS`): stored, counted and named in the
    /// run's summary and its SCORES file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    /// The model's thinking, as the reply showed it (the outputs file holds
    /// only the answer that follows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// NOT UPSTREAM: an inline `<think>` block was taken out of the answer
    /// (`--keep-reasoning` stores the content whole, as upstream).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasoning_inline: bool,
}

/// What a record says besides the task and its outcome.
#[derive(Clone, Debug)]
pub struct RecordContext<'a> {
    pub settings: &'a Endpoint,
    pub time: String,
}

/// The model a reply names (`answered`), when it is another than the one
/// asked for (`asked`). A dated, numbered or tagged release of the name
/// asked for is the same model: `gpt-4o` answered by `gpt-4o-2024-08-06`,
/// `llama3` by `llama3:8b`, `gemini-1.5-flash` by
/// `models/gemini-1.5-flash-002`, `claude-3-5-sonnet-latest` by
/// `claude-3-5-sonnet-20241022`; `gpt-4o-mini` is not `gpt-4o`.
pub fn other_model(asked: &str, answered: Option<&str>) -> Option<String> {
    let answered = answered?.trim();
    let norm = |m: &str| m.trim().trim_start_matches("models/").to_ascii_lowercase();
    let (a, b) = (norm(asked), norm(answered));
    let a = a.strip_suffix("-latest").unwrap_or(&a);
    let variant = b.strip_prefix(a).is_some_and(|rest| {
        let mut c = rest.chars();
        match c.next() {
            None => true,
            Some(':' | '@') => true,
            Some('-' | '.') => c.next().is_some_and(|d| d.is_ascii_digit()),
            Some(_) => false,
        }
    });
    if answered.is_empty() || variant {
        None
    } else {
        Some(answered.to_string())
    }
}

/// The warning a run gives once, at the first reply naming another model.
pub fn other_model_warning(asked: &str, answered: &str, task_id: &str) -> String {
    format!(
        "WARNING: asked for model {asked:?}, but the reply to {task_id} names {answered:?}: the server may be serving another model than the one asked for (some servers put any name, or their own, in replies, so it can be harmless); every such reply is marked \"answered_by\" in the run log"
    )
}

impl RunRecord {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ctx: &RecordContext<'_>,
        task_id: String,
        status: RecordStatus,
        latency_ms: f64,
        attempts: u32,
        usage: Usage,
        task_ntokens: usize,
        finish_reason: Option<String>,
        reason: Option<String>,
    ) -> RunRecord {
        RunRecord {
            task_id,
            status,
            provider: ctx.settings.provider,
            model: ctx.settings.model.trim().to_string(),
            base_url: ctx.settings.base_url_shown(),
            params: ctx.settings.params(),
            time: ctx.time.clone(),
            latency_ms,
            attempts,
            truncated: status == RecordStatus::Answered && usage.looks_truncated(task_ntokens),
            usage,
            task_ntokens,
            finish_reason,
            reason,
            answered_by: None,
            cut: false,
            reasoning: None,
            reasoning_inline: false,
        }
    }

    /// The record's JSONL line (with its newline).
    pub fn line(&self) -> String {
        // Plain strings and numbers: serializing cannot fail.
        let mut s = serde_json::to_string(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// `<outputs without .jsonl>.runlog.jsonl`.
pub fn runlog_path_for(outputs_path: &str) -> String {
    let base = outputs_path.strip_suffix(".jsonl").unwrap_or(outputs_path);
    format!("{base}.runlog.jsonl")
}

/// The length of `text` up to its last complete line: a process killed
/// in the middle of a write leaves a cut last line, dropped on resume.
pub fn complete_prefix_len(text: &str) -> usize {
    text.rfind('\n').map_or(0, |i| i + 1)
}

/// A run log read back: good records, and the numbers of lines that were
/// not records (reported, skipped).
#[derive(Debug, Default)]
pub struct RunLog {
    pub records: Vec<RunRecord>,
    pub bad_lines: Vec<usize>,
}

pub fn read_runlog(text: &str) -> RunLog {
    let mut log = RunLog::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<RunRecord>(line) {
            Ok(r) => log.records.push(r),
            Err(_) => log.bad_lines.push(i + 1),
        }
    }
    log
}

/// What a rerun does.
#[derive(Debug, Default, PartialEq)]
pub struct ResumePlan {
    /// Indices of the tasks to ask, in task order.
    pub todo: Vec<usize>,
    /// Tasks already in the outputs file.
    pub finished: usize,
    /// Task ids whose last record is a failure and that have no answer,
    /// with the reason.
    pub failed_before: Vec<(String, String)>,
    /// Task ids with more than one line in the outputs file (never by us;
    /// reported so a hand-merged file is noticed).
    pub duplicates: Vec<String>,
    /// Indices of selected tasks with no answer that never failed either
    /// (an interrupted run never asked them), left out because only the
    /// failed are asked: they are still unanswered, not "not failed".
    pub never_asked: Vec<usize>,
}

/// Which of `task_ids` still need asking, given the outputs file and run
/// log of earlier runs (the CLI's resume). `only_failed`: only those that
/// failed before. [`plan_run`] over every task, with what the outputs file
/// answers, plus the ids it answers more than once.
pub fn plan_resume(
    task_ids: &[String],
    outputs: &OutputsFile,
    log: &RunLog,
    selection: &TaskSelection,
) -> ResumePlan {
    let mut done: HashSet<String> = HashSet::new();
    let mut duplicates = Vec::new();
    for o in &outputs.outputs {
        let id = o.task_id();
        if !done.insert(id.clone()) {
            duplicates.push(id);
        }
    }
    ResumePlan { duplicates, ..plan_run(task_ids, |id| done.contains(id), log, selection) }
}

/// Which tasks a run asks (the page's "which tasks"; the CLI's
/// `--only-failed`): those whose id contains `filter` (case-insensitive;
/// empty: all), then a seeded sample of `sample` of them (the same seed
/// picks the same tasks, whatever was answered since), then, with
/// `only_failed`, those whose last record is a failure.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskSelection {
    /// Tasks whose id (`language::repo::name`) contains it (any case).
    pub filter: String,
    /// Needle (function) names; empty: any.
    pub needles: Vec<String>,
    /// A seeded random sample of this many of the matching tasks.
    pub sample: Option<usize>,
    pub seed: u64,
    /// At most this many of what is left, the first in task order.
    pub max: Option<usize>,
    pub only_failed: bool,
}

/// The indices of `task_ids` that `selection`'s filter and sample keep,
/// in task order (before anything answered is skipped).
pub fn select_tasks(task_ids: &[String], selection: &TaskSelection) -> Vec<usize> {
    let needle = selection.filter.trim().to_lowercase();
    let names: HashSet<&str> =
        selection.needles.iter().map(|n| n.trim()).filter(|n| !n.is_empty()).collect();
    let name_of = |id: &str| id.rsplit("::").next().unwrap_or(id).to_string();
    let matching: Vec<usize> = (0..task_ids.len())
        .filter(|&i| needle.is_empty() || task_ids[i].to_lowercase().contains(&needle))
        .filter(|&i| names.is_empty() || names.contains(name_of(&task_ids[i]).as_str()))
        .collect();
    let mut picked = match selection.sample {
        Some(n) if n < matching.len() => {
            crate::prompt::agent::sample_indexes(matching.len(), n, selection.seed)
                .into_iter()
                .map(|k| matching[k])
                .collect()
        }
        _ => matching,
    };
    if let Some(max) = selection.max {
        picked.truncate(max);
    }
    picked
}

/// Which of the tasks `selection` keeps still need asking, with what is
/// answered given by `is_answered` (the page keeps answers by task id, the
/// CLI an outputs file: [`plan_resume`]) and what failed by the run log.
/// `todo` indexes `task_ids`; `finished` counts the selected tasks already
/// answered.
pub fn plan_run(
    task_ids: &[String],
    is_answered: impl Fn(&str) -> bool,
    log: &RunLog,
    selection: &TaskSelection,
) -> ResumePlan {
    let mut last: HashMap<&str, &RunRecord> = HashMap::new();
    for r in &log.records {
        last.insert(r.task_id.as_str(), r);
    }
    let mut plan = ResumePlan::default();
    for i in select_tasks(task_ids, selection) {
        let id = &task_ids[i];
        if is_answered(id) {
            plan.finished += 1;
            continue;
        }
        let failed = last.get(id.as_str()).filter(|r| r.status == RecordStatus::Failed);
        if let Some(r) = failed {
            plan.failed_before.push((id.clone(), r.reason.clone().unwrap_or_default()));
        }
        if !selection.only_failed || failed.is_some() {
            plan.todo.push(i);
        } else {
            plan.never_asked.push(i);
        }
    }
    plan
}

/// The last of `records` for each task, in the order tasks first appear.
fn last_by_task<'a>(records: impl Iterator<Item = &'a RunRecord>) -> Vec<&'a RunRecord> {
    let mut last: Vec<&RunRecord> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for r in records {
        match at.get(r.task_id.as_str()) {
            Some(&k) => last[k] = r,
            None => {
                at.insert(r.task_id.as_str(), last.len());
                last.push(r);
            }
        }
    }
    last
}

/// What a run's answers say beyond the outputs file (the NOT UPSTREAM
/// fields of its SCORES file): the tasks whose answer was cut at the token
/// limit, and how many had an inline `<think>` block taken out. From each
/// task's last answered record, for the tasks `is_answered` knows (those
/// in the outputs file).
pub fn answer_notes(log: &RunLog, is_answered: impl Fn(&str) -> bool) -> ReplyNotes {
    let last = last_by_task(log.records.iter().filter(|r| r.status == RecordStatus::Answered));
    let mut notes = ReplyNotes::default();
    for r in last.into_iter().filter(|r| is_answered(&r.task_id)) {
        if r.cut {
            notes.cut.push(r.task_id.clone());
        }
        notes.reasoning_removed += usize::from(r.reasoning_inline);
    }
    notes
}

/// Whether the answers `answered` (task ids) were all given by the run
/// this log records to tasks of the size they have now: each one's last
/// answered record holds `task_ntokens` equal to `ntokens_of(id)` (the
/// current task's `code_context_ntokens`). False for an answer without
/// such a record (typed, imported, or kept from tasks built at another
/// length) and for no answers: only then may the answers carry these
/// tasks' length, as a run directory's `ntoken_<N>/` says it.
pub fn answered_at_these_sizes<'a>(
    log: &RunLog,
    answered: impl IntoIterator<Item = &'a str>,
    ntokens_of: impl Fn(&str) -> Option<usize>,
) -> bool {
    let last = last_by_task(log.records.iter().filter(|r| r.status == RecordStatus::Answered));
    let by_id: HashMap<&str, usize> =
        last.iter().map(|r| (r.task_id.as_str(), r.task_ntokens)).collect();
    let mut any = false;
    for id in answered {
        any = true;
        if by_id.get(id).copied() != ntokens_of(id) || ntokens_of(id).is_none() {
            return false;
        }
    }
    any
}

/// The tasks whose last record is a failure and that `is_answered` does
/// not know, with the reason: what a "retry the failed" would ask.
pub fn failed_tasks(log: &RunLog, is_answered: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    last_by_task(log.records.iter())
        .into_iter()
        .filter(|r| r.status == RecordStatus::Failed && !is_answered(&r.task_id))
        .map(|r| (r.task_id.clone(), r.reason.clone().unwrap_or_default()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::read_model_outputs;

    fn rec(id: &str, status: RecordStatus, reason: Option<&str>) -> RunRecord {
        let mut s = Endpoint::new(Provider::OpenAi, "m");
        s.base_url = "http://user:pw@127.0.0.1:1/v1?key=sk-1".into();
        s.api_key = Some("sk-1".into());
        let ctx = RecordContext { settings: &s, time: "2026-01-01 00:00:00.000000".into() };
        RunRecord::new(
            &ctx,
            id.into(),
            status,
            12.5,
            1,
            Usage { prompt_tokens: Some(100), completion_tokens: Some(5), ..Usage::default() },
            1000,
            None,
            reason.map(str::to_string),
        )
    }

    #[test]
    fn answers_carry_a_length_only_when_the_run_gave_them_at_it() {
        let log = RunLog {
            records: vec![
                rec("t1", RecordStatus::Answered, None),
                rec("t2", RecordStatus::Answered, None),
                rec("t3", RecordStatus::Failed, Some("500")),
            ],
            bad_lines: Vec::new(),
        };
        let now = |id: &str| (id != "t9").then_some(1000);
        assert!(answered_at_these_sizes(&log, ["t1", "t2"], now));
        // Tasks rebuilt at another size: the records say 1000, they hold 2000.
        assert!(!answered_at_these_sizes(&log, ["t1", "t2"], |_| Some(2000)));
        // An answer the run never gave (typed, imported), or a failed task.
        assert!(!answered_at_these_sizes(&log, ["t1", "t4"], now));
        assert!(!answered_at_these_sizes(&log, ["t3"], now));
        // A task no longer built, and no answers at all.
        assert!(!answered_at_these_sizes(&log, ["t9"], now));
        assert!(!answered_at_these_sizes(&log, [], now));
    }

    #[test]
    fn the_notes_come_from_each_answered_task_s_last_record() {
        let mut cut = rec("t1", RecordStatus::Answered, None);
        cut.cut = true;
        cut.reasoning_inline = true;
        let mut again = rec("t1", RecordStatus::Answered, None);
        again.reasoning_inline = true;
        let mut gone = rec("t2", RecordStatus::Answered, None);
        gone.cut = true;
        let log = RunLog {
            records: vec![cut.clone(), rec("t3", RecordStatus::Failed, Some("x")), cut, gone],
            bad_lines: vec![],
        };
        let notes = answer_notes(&log, |id| id != "t2");
        assert_eq!(notes, ReplyNotes { cut: vec!["t1".into()], reasoning_removed: 1 });
        let log = RunLog { records: vec![again], bad_lines: vec![] };
        assert_eq!(answer_notes(&log, |_| true), ReplyNotes { cut: vec![], reasoning_removed: 1 });
    }

    #[test]
    fn records_say_what_produced_an_answer_never_the_key() {
        let r = rec("python::a/b::f", RecordStatus::Answered, None);
        let line = r.line();
        assert!(!line.contains("sk-1") && !line.contains("pw"), "{line}");
        assert!(line.contains("\"base_url\":\"http://127.0.0.1:1/v1\""), "{line}");
        assert!(line.contains("\"max_tokens\":1024") && line.contains("\"temperature\":0.0"));
        assert!(r.truncated, "100 prompt tokens for a 1000-token task");
        let back = read_runlog(&format!("{line}garbage\n"));
        assert_eq!(back.records, vec![r]);
        assert_eq!(back.bad_lines, vec![2]);
        assert!(!rec("x", RecordStatus::Failed, Some("r")).truncated);
    }

    #[test]
    fn resume_skips_finished_and_lists_failed() {
        let ids: Vec<String> =
            ["python::a/b::f", "python::a/b::g", "python::a/b::h", "python::a/b::i"]
                .map(String::from)
                .to_vec();
        let line = |name: &str| {
            format!(
                "{{\"repo\": \"a/b\", \"name\": \"{name}\", \"language\": \"python\", \"position_ratio\": 0.5, \"needle_token_start\": 1, \"needle_token_end\": 2, \"output\": [\"x\"]}}\n"
            )
        };
        let outputs = read_model_outputs(&format!("{}{}", line("f"), line("h")));
        let log = RunLog {
            records: vec![
                rec("python::a/b::g", RecordStatus::Failed, Some("too long")),
                rec("python::a/b::h", RecordStatus::Failed, Some("500")),
                rec("python::a/b::h", RecordStatus::Answered, None),
            ],
            bad_lines: vec![],
        };
        let plan = plan_resume(&ids, &outputs, &log, &TaskSelection::default());
        assert_eq!(plan.todo, vec![1, 3]);
        assert_eq!(plan.finished, 2);
        assert_eq!(plan.failed_before, vec![("python::a/b::g".into(), "too long".into())]);
        let only = plan_resume(
            &ids,
            &outputs,
            &log,
            &TaskSelection { only_failed: true, ..Default::default() },
        );
        assert_eq!(only.todo, vec![1]);
        let dup = read_model_outputs(&format!("{}{}", line("f"), line("f")));
        assert_eq!(
            plan_resume(&ids, &dup, &RunLog::default(), &TaskSelection::default()).duplicates,
            vec!["python::a/b::f".to_string()]
        );
    }

    #[test]
    fn another_model_is_told_from_a_variant_of_the_one_asked() {
        assert_eq!(other_model("gpt-4o", Some("gpt-4o-2024-08-06")), None);
        assert_eq!(other_model("llama3", Some("llama3:8b")), None);
        assert_eq!(other_model("gemini-1.5-flash", Some("models/gemini-1.5-flash-002")), None);
        assert_eq!(other_model("Qwen/Qwen2.5", Some("qwen/qwen2.5")), None);
        assert_eq!(other_model("m", None), None);
        assert_eq!(
            other_model("claude-3-5-sonnet-latest", Some("claude-3-5-sonnet-20241022")),
            None
        );
        assert_eq!(other_model("gpt-4o", Some("gpt-4o-mini")), Some("gpt-4o-mini".into()));
        assert_eq!(other_model("gpt-4", Some("gpt-4o")), Some("gpt-4o".into()));
        assert_eq!(other_model("m", Some("other-9")), Some("other-9".into()));
    }

    #[test]
    fn a_cut_last_line_is_dropped() {
        assert_eq!(complete_prefix_len("a\nb\n"), 4);
        assert_eq!(complete_prefix_len("a\n{\"cut"), 2);
        assert_eq!(complete_prefix_len("{\"cut"), 0);
        assert_eq!(runlog_path_for("r/ntoken_8/m.jsonl"), "r/ntoken_8/m.runlog.jsonl");
    }
    #[test]
    fn selection_filters_samples_and_skips_answered() {
        let ids: Vec<String> = (0..10)
            .map(|i| format!("{}::a/b::f{i}", if i < 5 { "python" } else { "go" }))
            .collect();
        let all = TaskSelection::default();
        assert_eq!(select_tasks(&ids, &all).len(), 10);
        let go = TaskSelection { filter: "GO::".into(), ..TaskSelection::default() };
        assert_eq!(select_tasks(&ids, &go), vec![5, 6, 7, 8, 9]);
        let sample = TaskSelection { sample: Some(3), seed: 7, ..TaskSelection::default() };
        let picked = select_tasks(&ids, &sample);
        assert_eq!(picked.len(), 3);
        assert_eq!(picked, select_tasks(&ids, &sample), "same seed, same tasks");
        let names = TaskSelection {
            needles: vec!["f7".into(), " f2 ".into(), "f".into()],
            ..TaskSelection::default()
        };
        assert_eq!(select_tasks(&ids, &names), vec![2, 7], "whole names only");
        let first =
            TaskSelection { filter: "go::".into(), max: Some(2), ..TaskSelection::default() };
        assert_eq!(select_tasks(&ids, &first), vec![5, 6]);
        let log = RunLog {
            records: vec![rec(&ids[picked[1]], RecordStatus::Failed, Some("too long"))],
            bad_lines: vec![],
        };
        let answered = ids[picked[0]].clone();
        let plan = plan_run(&ids, |id| id == answered, &log, &sample);
        assert_eq!(plan.finished, 1);
        assert_eq!(plan.todo, vec![picked[1], picked[2]]);
        assert_eq!(plan.failed_before, vec![(ids[picked[1]].clone(), "too long".into())]);
        let only = TaskSelection { only_failed: true, ..sample.clone() };
        let plan = plan_run(&ids, |id| id == answered, &log, &only);
        assert_eq!(plan.todo, vec![picked[1]]);
        assert_eq!(plan.never_asked, vec![picked[2]], "unanswered, never failed");
        assert_eq!(
            failed_tasks(&log, |_| false),
            vec![(ids[picked[1]].clone(), "too long".into())]
        );
        assert!(failed_tasks(&log, |_| true).is_empty());
    }
}
