//! Building the call-path tasks (NOT UPSTREAM, `repoqa::api::callpath`)
//! of the loaded dataset in the compute engine (`Request::CallPathBuild`):
//! the plan of the page's settings — context size, languages, repos — with
//! the default selection, as `repoqa prompts --task call-path` builds it;
//! a model asked every task from the Run page as `repoqa run --task
//! call-path` asks it (the one runner, `jobs::ask`), its answers kept in
//! this browser as they arrive; and a model's outputs (that run, or a file)
//! read and scored against the dataset's call graphs
//! (`Request::CallPathScore`), as `repoqa score --task call-path` scores
//! them.

use std::collections::HashSet;
use std::sync::Arc;

use leptos::prelude::*;
use repoqa::api::callpath::{CallPathPlan, CallPathScoresFile, ScoredCallPaths};
use repoqa::engine::{Reply, Request};
use repoqa::llm::run::{BenchmarkRun, RunEvent, RunStats};
use repoqa::llm::runlog::{plan_run, RunLog};

use super::ask::{
    ask_all, endpoint_of, pace_of, show_in_flight, show_stats, summary, AskEnd, RunSession, Sink,
};
use super::{tokenizer, Ctx, Job, Line, Runner};
use crate::ui::browser::engine;
use crate::ui::browser::fetch::read_blob;
use crate::ui::error::UiError;
use crate::ui::format::{count, thousands};
use crate::ui::state::app::{CallPathBuilt, CallPathRun, CallPathScored};
use crate::ui::state::run::{RunLive, RunState};
use crate::ui::state::AppState;
use crate::ui::storage;

/// The plan of the page's settings.
pub fn plan_of(state: AppState) -> CallPathPlan {
    state.settings.with_untracked(|s| CallPathPlan {
        filter: s.build.filter.clone(),
        ..CallPathPlan::new(s.build.code_context_size)
    })
}

/// Build the call-path tasks on the main job line; they replace the last
/// ones when the build ends well.
pub fn start_call_path_build(state: AppState, runner: Runner) {
    let plan = plan_of(state);
    let what = format!("Building call-path tasks at {} tokens", plan.code_context_size);
    runner.spawn(Job::new(what), move |ctx| async move {
        let loaded = state
            .dataset
            .get_untracked()
            .ok_or_else(|| UiError::invalid("Load a dataset first."))?;
        tokenizer::ensure_in_engine(&ctx, state).await?;
        let dataset = ctx.wait_for(engine::dataset(&loaded.dataset, &loaded.origin)).await?;
        let size = plan.code_context_size;
        let request = Request::CallPathBuild { dataset, plan: Box::new(plan) };
        match ctx.wait_for(engine::call(&request)).await? {
            Reply::CallPathBuild { tasks, shortfalls } => {
                let short = shortfalls.len();
                ctx.done_flawed(
                    format!(
                        "Built {} at {size} tokens{}.",
                        count(tasks.len(), "call-path task", "call-path tasks"),
                        if short > 0 {
                            format!(
                                "; {} gave fewer than asked (below)",
                                count(short, "repository", "repositories")
                            )
                        } else {
                            String::new()
                        }
                    ),
                    tasks.is_empty(),
                );
                state.call_paths.set(Some(Arc::new(CallPathBuilt {
                    tasks,
                    shortfalls,
                    code_context_size: size,
                    origin: loaded.origin.clone(),
                })));
                Ok(())
            }
            _ => {
                Err(UiError::invalid("the engine answered another question than a call-path build"))
            }
        }
    });
}

/// Read the outputs file `file` and score it against the loaded dataset.
pub fn start_call_path_score(state: AppState, runner: Runner, file: web_sys::File) {
    let name = file.name();
    runner.spawn(Job::new(format!("Scoring {name}")), move |ctx| async move {
        let bytes = ctx.wait_for(read_blob(&file, &name)).await?;
        let text = String::from_utf8(bytes).map_err(|e| {
            UiError::invalid(format!(
                "{name}: not UTF-8 text (at byte {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        let said = score_text(&ctx, state, &name, &text).await?;
        ctx.done(said);
        Ok(())
    });
}

/// Score the outputs JSONL `text` (named `name`) against the loaded
/// dataset in the engine, as `repoqa score --task call-path` does; the
/// scores replace the last ones. Says what it scored.
async fn score_text(ctx: &Ctx, state: AppState, name: &str, text: &str) -> Result<String, UiError> {
    let loaded = state
        .dataset
        .get_untracked()
        .ok_or_else(|| UiError::invalid("Load the dataset the tasks were built from first."))?;
    let outputs = repoqa::api::callpath::read_outputs(text, name)?;
    let replies = outputs
        .iter()
        .map(|o| (o.task.id(), o.output.first().cloned().unwrap_or_default()))
        .collect();
    let closed_book = repoqa::api::callpath::closed_book_of(&outputs, name)?;
    let dataset = ctx.wait_for(engine::dataset(&loaded.dataset, &loaded.origin)).await?;
    let request = Request::CallPathScore { dataset, outputs };
    match ctx.wait_for(engine::call(&request)).await? {
        Reply::CallPathScore { scores, results } => {
            let pass = scores.overall.pass_at_1.map_or("–".to_string(), |p| format!("{p:.1}"));
            let said = format!(
                "Scored {}: pass@1 {pass}.",
                count(results.len(), "call-path answer", "call-path answers")
            );
            let model = repoqa::naming::model_name_from_path(name);
            let eval_date = repoqa::report::now_eval_date();
            let scored = ScoredCallPaths { scores: *scores, results, closed_book };
            let file = CallPathScoresFile::new(model, eval_date, scored, &loaded.dataset);
            state.call_path_scores.set(Some(Arc::new(CallPathScored {
                name: name.to_string(),
                file,
                replies,
            })));
            Ok(said)
        }
        _ => Err(UiError::invalid("the engine answered another question than a call-path score")),
    }
}

/// Score the Run page's call-path run (the Results page's "Score this run").
pub fn start_run_score(state: AppState, runner: Runner) {
    let Some(run) = state.call_path_run.get_untracked() else { return };
    let name = run_file_name(&run);
    runner.spawn(Job::new(format!("Scoring {name}")), move |ctx| async move {
        let said = score_text(&ctx, state, &name, &run.text).await?;
        ctx.done(said);
        Ok(())
    });
}

/// A call-path task's prompt as bands, each function of its path marked
/// (`Request::CallPathAnatomy`, the core's `api::callpath::anatomy`), for
/// the task's anatomy strip. Gives the engine the tokenizer if it has none.
pub async fn anatomy(
    state: AppState,
    runner: Runner,
    task: repoqa::callpath::task::CallPathTask,
) -> Result<repoqa::prompt::anatomy::Anatomy, UiError> {
    let what =
        format!("Counting the tokens of {} → {}'s prompt", task.source.name, task.target.name);
    runner
        .run(Job::new(what).queue(), move |ctx| async move {
            let loaded = state.dataset.get_untracked().ok_or_else(|| {
                UiError::invalid("Load the dataset the tasks were built from first.")
            })?;
            tokenizer::ensure_in_engine(&ctx, state).await?;
            let dataset = ctx.wait_for(engine::dataset(&loaded.dataset, &loaded.origin)).await?;
            let request = Request::CallPathAnatomy { dataset, task: Box::new(task) };
            match ctx.wait_for(engine::call(&request)).await? {
                Reply::CallPathAnatomy { anatomy } => Ok(anatomy),
                _ => Err(UiError::invalid("the engine answered another question than an anatomy")),
            }
        })
        .await
}

/// Where the call-path run is kept in this browser.
const KEY_CALL_PATH_RUN: &str = "call-path-run";

/// The last call-path run kept in this browser, read back once a page
/// that shows it opens (a reload keeps what arrived).
pub fn ensure_run_restored(state: AppState) {
    if state.call_path_run.with_untracked(Option::is_some) {
        return;
    }
    leptos::task::spawn_local(async move {
        if let Err(e) = restored_run(state).await {
            leptos::logging::warn!("{e}");
        }
    });
}

/// The call-path run of this page, read back from this browser first if
/// the page has none yet (so a run after a reload resumes it rather than
/// writing over it).
async fn restored_run(state: AppState) -> Result<Option<Arc<CallPathRun>>, UiError> {
    if let Some(run) = state.call_path_run.get_untracked() {
        return Ok(Some(run));
    }
    let Some(json) = storage::load_json(KEY_CALL_PATH_RUN).await? else { return Ok(None) };
    let run = serde_json::from_str::<CallPathRun>(&json).map_err(|e| {
        UiError::Storage(format!(
            "the call-path run kept in this browser is unreadable ({e}); New session clears it"
        ))
    })?;
    // Another restore may have finished first: the page's own stays.
    if state.call_path_run.with_untracked(Option::is_none) {
        state.call_path_run.set(Some(Arc::new(run)));
    }
    Ok(state.call_path_run.get_untracked())
}

/// The outputs file's name for a download: what `repoqa run --task
/// call-path` writes under its result folder, as one name.
pub fn run_file_name(run: &CallPathRun) -> String {
    repoqa::naming::call_path_run_outputs_path(run.code_context_size, &run.model, false)
        .replace('/', "_")
}

/// Ask the Run page's model every selected call-path task built on the
/// Tasks page that this model has not answered at their length (a run of
/// another model or length is replaced; its file can be downloaded
/// first); each answer is kept the moment it arrives, and the run's
/// outputs are scored at its end, for the Results page.
pub fn start_call_path_run(state: AppState, rs: RunState, runner: Runner) {
    let endpoint = match endpoint_of(rs) {
        Ok(e) => e,
        Err(e) => return runner.show(Line::Failed(e.to_string())),
    };
    if let Err(e) = rs.save_form() {
        leptos::logging::warn!("key not remembered: {e}");
    }
    let (config, timeout) = match pace_of(rs) {
        Ok(p) => p,
        Err(e) => return runner.show(Line::Failed(e.to_string())),
    };
    let Some(built) = state.call_paths.get_untracked().filter(|b| !b.tasks.is_empty()) else {
        return runner.show(Line::Failed(
            "No call-path tasks are built yet: build them on the Tasks page (Task: Call paths) first."
                .into(),
        ));
    };
    let selection = rs.form.with_untracked(|f| super::run::selection_of(f, false, None));
    let session = RunSession::now(rs);
    let model = endpoint.model.trim().to_string();
    let size = built.code_context_size;
    runner.spawn(Job::new(format!("Asking {model} the call-path tasks")), move |ctx| async move {
        let before = restored_run(state).await?;
        let same = before.as_ref().filter(|r| r.model == model && r.code_context_size == size);
        let done: HashSet<String> = same.map(|r| r.ids.iter().cloned().collect()).unwrap_or_default();
        let replaced = match (&before, same) {
            (Some(b), None) => format!(
                " It replaces {}'s call-path run at {} tokens.",
                b.model,
                thousands(b.code_context_size)
            ),
            _ => String::new(),
        };
        let ids: Vec<String> = built.tasks.iter().map(|t| t.id()).collect();
        let plan = plan_run(&ids, |id| done.contains(id), &RunLog::default(), &selection);
        if plan.todo.is_empty() {
            let said = match state.call_path_run.get_untracked() {
                Some(r) if same.is_some() => score_text(&ctx, state, &run_file_name(&r), &r.text).await?,
                _ => String::new(),
            };
            ctx.done(format!(
                "Nothing to ask: {} selected call-path task(s) answered already by {model}. {said}",
                plan.finished
            ));
            return Ok(());
        }
        if same.is_none() {
            let run = CallPathRun {
                model: model.clone(),
                code_context_size: size,
                text: String::new(),
                ids: Vec::new(),
            };
            state.call_path_run.set(Some(Arc::new(run)));
        }
        rs.live.update(|l| *l = RunLive { no_status: l.no_status.take(), ..RunLive::default() });
        let total = plan.todo.len();
        let answered_before = match plan.finished {
            0 => String::new(),
            n => format!(", besides the {n} answered before this run"),
        };
        ctx.progress(
            format!(
                "Asking {model}: {} at {} tokens{answered_before}.{replaced}",
                count(total, "call-path task", "call-path tasks"),
                thousands(size)
            ),
            0,
            total,
        );
        let seed = js_sys::Date::now() as u64;
        let mut run = BenchmarkRun::new(endpoint, &built.tasks, &plan.todo, config, seed);
        let mut sink =
            CallPathSink { state, rs, session, pending: String::new(), pending_ids: Vec::new() };
        if ask_all(&ctx, &mut run, timeout, &mut sink).await == AskEnd::Superseded {
            ctx.done("Ended by New session: nothing more was stored.");
            return Ok(());
        }
        let summary = summary(&run);
        let scored = match state.call_path_run.get_untracked() {
            Some(r) if !r.text.is_empty() => {
                format!(" {}", score_text(&ctx, state, &run_file_name(&r), &r.text).await?)
            }
            _ => String::new(),
        };
        if rs.live.with_untracked(|l| l.stopped.is_some()) {
            return Err(UiError::invalid(format!(
                "The run stopped ({summary}); why is said below. The answers so far are kept: fix it and press Run to ask the rest.{scored}"
            )));
        }
        let failed = run.stats.failed > 0;
        if ctx.cancelled() {
            ctx.done_flawed(format!("Cancelled: {summary}. Press Run to ask the rest.{scored}"), failed);
        } else if failed {
            ctx.done_flawed(format!("Done, with failures: {summary}. Press Run to ask them again.{scored}"), true);
        } else {
            ctx.done(format!("Done: {summary}.{scored}"));
        }
        Ok(())
    });
}

/// Where a call-path run's events go: the run's outputs (kept in this
/// browser) and the Run page's live counts.
struct CallPathSink {
    state: AppState,
    rs: RunState,
    session: RunSession,
    /// Lines of this batch, not yet kept, and their task ids.
    pending: String,
    pending_ids: Vec<String>,
}

impl Sink for CallPathSink {
    fn session(&self) -> RunSession {
        self.session
    }

    fn stats(&mut self, stats: RunStats) {
        show_stats(self.rs, stats);
    }

    fn in_flight(&mut self, n: usize) {
        show_in_flight(self.rs, n);
    }

    fn event(&mut self, event: RunEvent) {
        match event {
            RunEvent::Answered { output_line, record, .. } => {
                self.pending.push_str(&output_line);
                self.pending_ids.push(record.task_id.clone());
                if record.truncated {
                    self.rs.live.update(|l| l.truncated.push(record.task_id));
                }
            }
            RunEvent::Failed { .. } | RunEvent::Ignored => {}
            RunEvent::Retrying { task, reason, .. } => {
                self.rs.live.update(|l| l.last_retry = Some((task, reason)))
            }
            RunEvent::Stopped { reason } => self.rs.live.update(|l| {
                l.stopped.get_or_insert(reason);
            }),
        }
    }

    async fn store(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.pending);
        let Some(run) = self.state.call_path_run.get_untracked() else { return };
        let mut run = (*run).clone();
        run.text.push_str(&lines);
        run.ids.append(&mut self.pending_ids);
        let json = serde_json::to_string(&run);
        self.state.call_path_run.set(Some(Arc::new(run)));
        let saved = match json {
            Ok(json) => storage::save_json(KEY_CALL_PATH_RUN, &json).await,
            Err(e) => Err(UiError::Storage(format!("the call-path run not saved: {e}"))),
        };
        if let Err(e) = saved {
            self.rs.live.update(|l| l.save_error = Some(e.to_string()));
        }
    }
}
