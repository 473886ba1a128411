//! The answers (task id → reply), saved in IndexedDB, and their scores as
//! they arrive: every answered task is turned into the `ModelOutput` the
//! CLI would read (`repoqa::scoring::answers::model_output`) and scored by the
//! compute engine through the cache of `scoring.rs`, so typing in one
//! answer box re-scores one task.

use std::collections::BTreeMap;
use std::sync::Arc;

use indexmap::IndexMap;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::api::score::{with_run_notes, ScorePlan};
use repoqa::input::dataset::Dataset;
use repoqa::llm::runlog::{self, select_tasks, RunLog, TaskSelection};
use repoqa::naming;
use repoqa::report::ScoresFile;
use repoqa::report::{Unanswered, UnansweredScoring};
use repoqa::scoring::score::pass_table;

use super::app::AppState;
use super::run::RunState;
use super::scoring::{restore_scoring, settle, Pass, ScoredSet, Shared, TaskScore};
use crate::ui::browser::time::now_ms;
use crate::ui::error::UiError;
use crate::ui::storage;

/// Storage key of the answers (a JSON object task id → answer).
pub const KEY_ANSWERS: &str = "answers";

/// Score every answered task (tracked: tasks, answers, dataset, options,
/// the Run page's selection). The tasks of that selection without an
/// answer are counted as `repoqa run` counts them: by default each scored
/// as an empty reply (a failure), or left out.
pub fn score_set(state: AppState) -> Shared<ScoredSet> {
    let answers = state.answers.get();
    let selection = use_context::<RunState>()
        .map(|rs| rs.form.with(|f| f.selection.clone()))
        .unwrap_or_default();
    Shared(Arc::new(score_answers(state, &answers, &selection)))
}

/// [`score_set`] of any answers (a run kept beside the current one, say)
/// with the Run page's `selection` (given: a job has no context to read
/// it from), tracked the same way but for those two.
pub fn score_answers(
    state: AppState,
    answers: &BTreeMap<String, String>,
    selection: &TaskSelection,
) -> ScoredSet {
    let t0 = now_ms();
    state.scoring.version.track();
    let tasks = state.tasks.get();
    let dataset = state.dataset.with(|d| d.as_ref().map(|d| d.dataset.clone()));
    let mut pass = Pass::new(dataset.as_ref(), state.score_options());
    let items: Vec<Arc<TaskScore>> = tasks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let id = t.task_id();
            let answer = answers.get(&id)?;
            Some(pass.score(state.scoring, t, &id, answer, i + 1))
        })
        .collect();
    let ids: Vec<String> = tasks.iter().map(|t| t.task_id()).collect();
    let missing: Vec<usize> = select_tasks(&ids, selection)
        .into_iter()
        .filter(|&i| !answers.contains_key(&ids[i]))
        .collect();
    let scoring = state.scoring.unanswered.get();
    let unanswered = (!missing.is_empty())
        .then(|| Unanswered { scoring, tasks: missing.iter().map(|&i| ids[i].clone()).collect() });
    let no_answer: Vec<Arc<TaskScore>> = if scoring == UnansweredScoring::Failures {
        let first = items.len() + 1;
        missing
            .iter()
            .enumerate()
            .map(|(k, &i)| pass.score(state.scoring, &tasks[i], &ids[i], "", first + k))
            .collect()
    } else {
        Vec::new()
    };
    // Grouped as `repoqa score` groups an outputs file (`repoqa::scoring::run`),
    // the empty replies after the answers, as `repoqa run` adds them.
    // While scores are with the engine there are no results yet: a part of
    // them would be a number that looks right but is not.
    let pending = items.iter().chain(&no_answer).filter(|s| s.pending()).count();
    let results = if pending > 0 {
        IndexMap::new()
    } else {
        repoqa::scoring::run::group_results(items.iter().chain(&no_answer).filter_map(|s| {
            match (&s.output, &s.result) {
                (Ok(o), Ok(e)) => Some((o, e)),
                _ => None,
            }
        }))
    };
    // An answer the engine failed to score would be left out of the table
    // without a word: no table then, but the reason.
    let unscored: Vec<&Arc<TaskScore>> =
        items.iter().chain(&no_answer).filter(|s| s.unscored()).collect();
    let table = if pending > 0 {
        Err(UiError::Pending)
    } else if let Some(first) = unscored.first() {
        let why = first.result.as_ref().err().map(ToString::to_string).unwrap_or_default();
        Err(UiError::invalid(format!(
            "{} of {} answers could not be scored (task {}: {why}); a pass@1 without them would \
             not be the official score. Reload the page to start the engine again.",
            unscored.len(),
            items.len() + no_answer.len(),
            first.task.task_id()
        )))
    } else {
        pass_table(&results).map_err(UiError::from)
    };
    let rescored = pass.rescored;
    pass.finish(state.scoring);
    ScoredSet { items, results, table, unanswered, rescored, pending, ms: now_ms() - t0 }
}

/// [`score_answers`] once every score is back from the engine (for a job:
/// untracked, waiting as long as it takes).
pub async fn score_answers_settled(
    state: AppState,
    answers: &BTreeMap<String, String>,
    selection: &TaskSelection,
) -> ScoredSet {
    loop {
        let set = untrack(|| score_answers(state, answers, selection));
        if set.pending == 0 {
            return set;
        }
        settle(state.scoring).await;
    }
}

/// The run directory's folder of the current answers (`ntoken_<N>`, or
/// `ntoken_<N>-<protocol>`, `repoqa::naming::run_dir`): only when `log`
/// shows every answer given to the tasks as they are built now
/// (`runlog::answered_at_these_sizes`); answers kept from tasks built at
/// another length, typed or imported say no length.
pub fn run_folder(state: AppState, log: &RunLog) -> Option<String> {
    let (size, protocol) = state.tasks_settings.with_untracked(|s| {
        let p = state.tasks.with_untracked(|ts| ts.first().map(|t| t.protocol));
        Some((s.as_ref()?.code_context_size, p.unwrap_or_default()))
    })?;
    let given_here = state.answers.with_untracked(|a| {
        state.tasks.with_untracked(|ts| {
            let sizes: std::collections::HashMap<String, usize> =
                ts.iter().map(|t| (t.task_id(), t.code_context_ntokens)).collect();
            runlog::answered_at_these_sizes(log, a.keys().map(String::as_str), |id| {
                sizes.get(id).copied()
            })
        })
    });
    given_here.then(|| naming::run_dir(size, protocol))
}

/// The scoring the Results page's fields make (untracked): the options,
/// `model` ("model" when blank), the eval date (blank: now) and the stated
/// training cutoff (blank: none) — the plan the CLI's `score` makes of its
/// flags.
pub fn score_plan(state: AppState, model: &str) -> ScorePlan {
    let model = if model.trim().is_empty() { "model" } else { model };
    let cutoff = state.scoring.model_cutoff.get_untracked();
    ScorePlan {
        options: state.scoring.options.get_untracked(),
        eval_date: Some(state.scoring.eval_date.get_untracked()),
        model_cutoff: (!cutoff.trim().is_empty()).then(|| cutoff.trim().to_string()),
        ..ScorePlan::new(model, Default::default())
    }
}

/// The SCORES file of `set`, the answers of `model` (the eval date and
/// options as the Results page sets them; what `log` says of the answers:
/// cut replies, thinking taken out), and its name as upstream names it.
pub fn scores_file_of(
    state: AppState,
    set: &ScoredSet,
    model: &str,
    log: Option<&RunLog>,
) -> Result<(String, ScoresFile, String), UiError> {
    let table = set.table.as_ref().map_err(|e| e.clone())?;
    let plan = score_plan(state, model);
    plan.check().map_err(|e| UiError::invalid(e.to_string()))?;
    let model = plan.model.clone();
    // The protocol the scored tasks were built with.
    let protocol =
        state.tasks.with_untracked(|ts| ts.first().map(|t| t.protocol).unwrap_or_default());
    let scored: std::collections::HashSet<String> =
        set.items.iter().map(|i| i.task.task_id()).collect();
    let replies =
        log.map(|l| runlog::answer_notes(l, |id| scored.contains(id))).unwrap_or_default();
    // Dated by the loaded dataset, as the CLI dates it.
    let entry = state.dataset.with_untracked(|d| {
        let none = Dataset::default();
        let dataset = d.as_ref().map_or(&none, |d| &d.dataset);
        plan.entry(dataset, protocol, table, set.results.clone())
    });
    let scores = with_run_notes(entry, set.unanswered.clone(), replies);
    let name = plan.file_name(protocol);
    Ok((model.clone(), ScoresFile::single(&model, scores), name))
}

/// The score of one task's answer (tracked like [`score_set`]); `None`
/// when the task has no answer or is not built.
pub fn score_one(state: AppState, task_id: &str) -> Option<Shared<TaskScore>> {
    let answer = state.answers.with(|a| a.get(task_id).cloned())?;
    let tasks = state.tasks.get();
    let (i, task) = tasks.iter().enumerate().find(|(_, t)| t.task_id() == task_id)?;
    let dataset = state.dataset.with(|d| d.as_ref().map(|d| d.dataset.clone()));
    state.scoring.version.track();
    let mut pass = Pass::new(dataset.as_ref(), state.score_options());
    let score = pass.score(state.scoring, task, task_id, &answer, i + 1);
    pass.finish(state.scoring);
    Some(Shared(score))
}

/// Save the answers (IndexedDB, key [`KEY_ANSWERS`]); failures are logged,
/// the page keeps working without persistence.
pub fn persist_answers(answers: &BTreeMap<String, String>) {
    let json = match serde_json::to_string(answers) {
        Ok(j) => j,
        Err(e) => return leptos::logging::warn!("answers not saved: {e}"),
    };
    spawn_local(async move {
        if let Err(e) = storage::save_json(KEY_ANSWERS, &json).await {
            leptos::logging::warn!("answers not saved: {e}");
        }
    });
}

/// Read saved answers and scoring options back once per page load;
/// answers typed meanwhile win.
pub fn ensure_answers_restored(state: AppState) {
    let started = state.scoring.answers_restore_started;
    if started.get_value() {
        return;
    }
    started.set_value(true);
    spawn_local(async move {
        restore_scoring(state.scoring).await;
        match storage::load_json(KEY_ANSWERS).await {
            Ok(Some(json)) => match serde_json::from_str::<BTreeMap<String, String>>(&json) {
                Ok(saved) if !saved.is_empty() => state.answers.update(|a| {
                    for (k, v) in saved {
                        a.entry(k).or_insert(v);
                    }
                }),
                Ok(_) => {}
                Err(e) => leptos::logging::warn!("saved answers unreadable: {e}"),
            },
            Ok(None) => {}
            Err(e) => leptos::logging::warn!("saved answers not read: {e}"),
        }
    });
}
