//! A benchmark run from the page: the core's runner (`repoqa::llm::run`)
//! decides what to send and what each reply means; this job sends the
//! requests with `fetch`, stores every answer (in the answers the Results
//! table scores, and its record in the run log, both in IndexedDB) the
//! moment it arrives, and shows progress on its own job line (Pause,
//! Resume, Cancel). A reload finds the stored answers: the next run asks
//! only the rest (`repoqa::llm::runlog::plan_run`).

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::llm::presets::NO_STATUS;
use repoqa::llm::run::{BenchmarkRun, RunEvent, RunStats};
use repoqa::llm::runlog::{plan_run, TaskSelection};
use repoqa::llm::snippet_line;
use repoqa::llm::wire::{read_reply, Outcome, TransportError};
use repoqa::report::Task;

use super::ask::{
    ask_all, endpoint_of, endpoint_unchecked, pace_of, server_slots, show_in_flight, show_stats,
    summary, unlisted_model, AskEnd, RunSession, Sink,
};
use super::plan::plan_of;
use super::{Ctx, Job, Runner};
use crate::ui::browser::fetch::post_model_request;
use crate::ui::error::UiError;
use crate::ui::format::{count, thousands};
use crate::ui::state::answers::KEY_ANSWERS;
use crate::ui::state::run::{mark_active, save_log, RunForm, RunLive, RunState};
use crate::ui::state::runs::{
    current_owner, merge_saved_answers, switch_run, tasks_length, UNNAMED,
};
use crate::ui::state::{settings, AppState};
use crate::ui::storage;

/// The model run's own job line (provided by `App`), so a long run leaves
/// the main line free for imports and re-scoring.
#[derive(Clone, Copy)]
pub struct ModelRun {
    pub runner: Runner,
}

impl ModelRun {
    pub fn new() -> ModelRun {
        ModelRun { runner: Runner::new() }
    }
}

impl Default for ModelRun {
    fn default() -> Self {
        ModelRun::new()
    }
}

pub fn use_model_run() -> ModelRun {
    expect_context::<ModelRun>()
}

/// Store the answers now (awaited, so a reload right after finds them).
async fn save_answers(app: AppState) -> Result<(), UiError> {
    let json = app
        .answers
        .with_untracked(serde_json::to_string)
        .map_err(|e| UiError::Storage(format!("answers not saved: {e}")))?;
    storage::save_json(KEY_ANSWERS, &json).await
}

/// What a Start asks, read from the form once (each length of a ladder
/// run asks the same).
#[derive(Clone)]
struct Ask {
    settings: repoqa::llm::wire::Endpoint,
    config: repoqa::llm::schedule::ScheduleConfig,
    timeout: u32,
    form: RunForm,
    selection: TaskSelection,
    only_failed: bool,
    only: Option<String>,
    session: RunSession,
}

/// How a run over the tasks built now ended: its message, and whether it
/// is to be shown as flawed (failures, a cancel with failures).
struct Ended {
    message: String,
    flawed: bool,
    /// Nothing more is to be asked in this job (cancelled, or New session).
    last: bool,
}

/// The form read and checked for a Start; `None` when it is not valid (the
/// reason shown on `runner`'s line).
fn ask_of(rs: RunState, runner: Runner, only_failed: bool, only: Option<String>) -> Option<Ask> {
    rs.connection.set(None);
    let settings = match endpoint_of(rs) {
        Ok(s) => s,
        Err(e) => {
            runner.show(super::Line::Failed(e.to_string()));
            return None;
        }
    };
    if let Err(e) = rs.save_form() {
        leptos::logging::warn!("key not remembered: {e}");
    }
    let form = rs.form.get_untracked();
    let (config, timeout) = match pace_of(rs) {
        Ok(p) => p,
        Err(e) => {
            runner.show(super::Line::Failed(e.to_string()));
            return None;
        }
    };
    let selection = selection_of(&form, only_failed, only.as_ref());
    let session = RunSession::now(rs);
    Some(Ask { settings, config, timeout, form, selection, only_failed, only, session })
}

/// Start a run over the selected tasks not answered yet (`only_failed`:
/// only those whose last attempt failed; `only`: just these task ids).
pub fn start(app: AppState, rs: RunState, runner: Runner, only_failed: bool, only: Option<String>) {
    let Some(ask) = ask_of(rs, runner, only_failed, only) else { return };
    let model = ask.settings.model.trim().to_string();
    runner.spawn(Job::new(format!("Asking {model}")), move |ctx| async move {
        let ended = ask_built_tasks(&ctx, app, rs, ask).await?;
        ctx.done_flawed(ended.message, ended.flawed);
        Ok(())
    });
}

/// Start a run at each of `lengths` in turn (a length ladder, issue 51):
/// the tasks built at that length (on the main job line, from this
/// browser's cache when they were built before), then the selected tasks
/// asked as Run asks them. Each length's answers are a run of their own
/// (`state::runs`), so the Leaderboard draws the model's ladder; a length
/// asked already resumes, and the tasks stay built at the last length.
/// Stops at the first length that ends with failures, is cancelled or
/// stopped.
pub fn start_at_lengths(
    app: AppState,
    rs: RunState,
    runner: Runner,
    main: Runner,
    lengths: Vec<usize>,
) {
    if lengths.is_empty() {
        return;
    }
    let Some(ask) = ask_of(rs, runner, false, None) else { return };
    let model = ask.settings.model.trim().to_string();
    let what = format!("Asking {model} at {}", count(lengths.len(), "length", "lengths"));
    runner.spawn(Job::new(what), move |ctx| async move {
        let total = lengths.len();
        let mut said: Vec<String> = Vec::new();
        for (i, &n) in lengths.iter().enumerate() {
            let at = format!("{} tokens (length {} of {total})", thousands(n), i + 1);
            ctx.progress(format!("Building the tasks at {at}"), 0, 0);
            if app.settings.with_untracked(|s| s.build.code_context_size) != n {
                settings::update(app.settings, |s| s.build.code_context_size = n);
            }
            if !untrack(|| super::build::tasks_current(app)) {
                super::build::build_queued(app, main)
                    .await
                    .map_err(|e| e.context(format!("the tasks at {at}")))?;
            }
            if ctx.cancelled() {
                return Err(UiError::cancelled(format!(
                    "Cancelled before asking at {at}.{}",
                    done_before(&said)
                )));
            }
            let ended = ask_built_tasks(&ctx, app, rs, ask.clone()).await?;
            said.push(format!("{}: {}", thousands(n), ended.message));
            if ended.last || ended.flawed {
                let rest = total - i - 1;
                let not = if rest > 0 {
                    format!(" Not asked at the {} after it.", count(rest, "length", "lengths"))
                } else {
                    String::new()
                };
                ctx.done_flawed(format!("{}{not}", said.join(" ")), true);
                return Ok(());
            }
        }
        ctx.done(format!(
            "{} Each length is a run of its own (Results switches between them; the Leaderboard draws {model}'s ladder).",
            said.join(" ")
        ));
        Ok(())
    });
}

/// What the lengths asked before said, after a stop.
fn done_before(said: &[String]) -> String {
    if said.is_empty() {
        String::new()
    } else {
        format!(" Before it: {}", said.join(" "))
    }
}

/// Ask the selected tasks of the tasks built now that `ask.settings.model`
/// has not answered at their length.
async fn ask_built_tasks(
    ctx: &Ctx,
    app: AppState,
    rs: RunState,
    ask: Ask,
) -> Result<Ended, UiError> {
    let Ask { settings, mut config, timeout, form, selection, only_failed, only, session } = ask;
    let model = settings.model.trim().to_string();
    // The answers belong to the model that gave them at the length its
    // tasks were built at: another run is kept beside this one, and this
    // model's own at this length (if any) resumes.
    let (before, before_len) = (current_owner(app, rs), rs.length.get_untracked());
    let length = tasks_length(app);
    super::runs::warm_run(ctx, app, rs, &model, length)
        .await
        .map_err(|_| UiError::cancelled("Cancelled before anything was asked."))?;
    switch_run(app, rs, &model, length).await.map_err(|e| e.context("the runs kept"))?;
    let kept = if before == UNNAMED || (before == model && before_len == rs.length.get_untracked())
    {
        String::new()
    } else if before == model {
        format!(
            " Its run at {} tokens is kept beside it: switch to it on the Results page.",
            before_len.map_or_else(|| "another length".to_string(), thousands)
        )
    } else {
        format!(" {before}'s run is kept beside it: switch to it on the Results page.")
    };
    let (sub, finished) = tasks_to_ask(app, rs, &selection, only.as_deref()).await?;
    if sub.is_empty() {
        let message = format!(
            "Nothing to ask: {finished} selected task(s) answered already by {model}{}.{kept}",
            if only_failed { ", none failed" } else { "" }
        );
        return Ok(Ended { message, flawed: false, last: false });
    }
    // Above the cost the user set, the plan is shown and confirmed first.
    if let Some(limit) = form.confirm_above {
        let plan = plan_of(ctx, app, rs, &settings, config.concurrency, &sub).await?;
        let cost = plan.max_cost();
        rs.plan.set(Some(plan));
        if let Some(cost) = cost.filter(|c| *c > limit) {
            let ask = format!(
                "This run may cost up to ${cost:.2} (above the ${limit:.2} you set; the plan is on the Run page). Start it?"
            );
            if !confirm(&ask) {
                let message = format!(
                    "Not started: the plan's cost, up to ${cost:.2}, is above ${limit:.2}."
                );
                return Ok(Ended { message, flawed: false, last: true });
            }
        }
    }
    let plan_finished = finished;
    let todo: Vec<usize> = (0..sub.len()).collect();
    let total = sub.len();
    // A new run starts with clean counts and problems, but keeps the
    // advice on browser origins: a server that hid one reply may hide
    // the next, whatever failed in between.
    rs.live.update(|l| *l = RunLive { no_status: l.no_status.take(), ..RunLive::default() });
    rs.interrupted.set(false);
    mark_active(true).await;
    if let Some(w) = unlisted_model(&settings).await {
        rs.live.update(|l| l.unlisted_model = Some(format!("WARNING: {w}")));
    }
    if let Some((c, why)) = server_slots(&settings, config.concurrency).await {
        config.concurrency = c;
        rs.live.update(|l| l.concurrency_note = Some(format!("{why}.")));
    }
    // The line stays while the run goes on (and after a Pause and
    // Resume): it names what was true at the start, never a count that
    // goes stale; the live counts are beside it ("4 / 10").
    let before = match plan_finished {
        0 => String::new(),
        n => format!(", besides the {n} answered before this run"),
    };
    let what = format!(
        "Asking {model}: {}{before}.{kept}",
        crate::ui::format::count(total, "task", "tasks")
    );
    ctx.progress(what, 0, total);
    let seed = js_sys::Date::now() as u64;
    let mut run = BenchmarkRun::new(settings, &sub, &todo, config, seed);
    let mut sink = TaskSink::new(app, rs, session);
    if ask_all(ctx, &mut run, timeout, &mut sink).await == AskEnd::Superseded {
        let message = "Ended by New session: nothing more was stored.".to_string();
        return Ok(Ended { message, flawed: false, last: true });
    }
    mark_active(false).await;
    let summary = summary(&run);
    if rs.live.with_untracked(|l| l.stopped.is_some()) {
        // Why it stopped is said once, in the box below the line
        // (`#run-stopped`); the line says what the run did.
        return Err(UiError::invalid(format!(
            "The run stopped ({summary}); why is said below. The answers so far are kept: fix it and press Run to ask the rest."
        )));
    }
    // Failures are never shown in green.
    let failed = run.stats.failed > 0;
    Ok(if ctx.cancelled() {
        let message = format!("Cancelled: {summary}. Press Run to ask the rest.");
        Ended { message, flawed: failed, last: true }
    } else if failed {
        let message = format!(
            "Done, with failures: {summary}. \"Retry the failed tasks\" asks them again.{kept}"
        );
        Ended { message, flawed: true, last: false }
    } else {
        Ended { message: format!("Done: {summary}.{kept}"), flawed: false, last: false }
    })
}

/// What a Start would do: every built task, their ids, the indexes of
/// those to ask (the selection's without an answer) and how many selected
/// are answered already.
pub struct RunTodo {
    pub tasks: Vec<Arc<Task>>,
    pub ids: Vec<String>,
    pub todo: Vec<usize>,
    pub finished: usize,
}

/// The [`RunTodo`] of `selection`, with the answers saved in IndexedDB.
pub async fn run_todo(
    app: AppState,
    rs: RunState,
    selection: &TaskSelection,
) -> Result<RunTodo, UiError> {
    merge_saved_answers(app).await;
    let tasks = app.tasks.get_untracked();
    if tasks.is_empty() {
        return Err(UiError::invalid(
            "No tasks are built yet: load a dataset and build the tasks first (Tasks page).",
        ));
    }
    let ids: Vec<String> = tasks.iter().map(|t| t.task_id()).collect();
    let log = rs.run_log();
    let plan =
        app.answers.with_untracked(|a| plan_run(&ids, |id| a.contains_key(id), &log, selection));
    Ok(RunTodo { tasks, ids, todo: plan.todo, finished: plan.finished })
}

/// The tasks a Start would ask (with `only`, just that one), and how many
/// selected are answered already.
pub async fn tasks_to_ask(
    app: AppState,
    rs: RunState,
    selection: &TaskSelection,
    only: Option<&str>,
) -> Result<(Vec<Task>, usize), UiError> {
    let t = run_todo(app, rs, selection).await?;
    let sub = t
        .todo
        .iter()
        .filter(|&&i| only.is_none_or(|id| t.ids[i] == id))
        .map(|&i| (*t.tasks[i]).clone())
        .collect();
    Ok((sub, t.finished))
}

/// The selection of a Start, from the form (`only_failed`: only the tasks
/// whose last attempt failed; `only`: just that task).
pub fn selection_of(form: &RunForm, only_failed: bool, only: Option<&String>) -> TaskSelection {
    match only {
        Some(id) => {
            TaskSelection { filter: id.clone(), only_failed: true, ..TaskSelection::default() }
        }
        None => TaskSelection { only_failed, ..form.selection.clone() },
    }
}

/// Ask the browser to confirm `question` (true when there is no window).
fn confirm(question: &str) -> bool {
    web_sys::window().is_none_or(|w| w.confirm_with_message(question).unwrap_or(false))
}

/// "Plan": the plan of what Run would ask now, shown on the Run page.
pub fn start_plan(app: AppState, rs: RunState, runner: Runner) {
    let endpoint = endpoint_unchecked(rs);
    let (config, _) = match pace_of(rs) {
        Ok(p) => p,
        Err(e) => return runner.show(super::Line::Failed(e.to_string())),
    };
    let selection = rs.form.with_untracked(|f| selection_of(f, false, None));
    runner.spawn(Job::new("Planning the run"), move |ctx| async move {
        let (tasks, _) = tasks_to_ask(app, rs, &selection, None).await?;
        let plan = plan_of(&ctx, app, rs, &endpoint, config.concurrency, &tasks).await?;
        let n = plan.tasks;
        rs.plan.set(Some(plan));
        ctx.done(format!("Planned: {n} task(s) to ask; the plan is below."));
        Ok(())
    });
}

/// What a batch of replies left to store.
#[derive(Clone, Copy, Default)]
struct Unsaved {
    answers: bool,
    log: bool,
}

/// Where a RepoQA run's events go: the answers the Results table scores
/// and the run log.
pub struct TaskSink {
    app: AppState,
    rs: RunState,
    session: RunSession,
    unsaved: Unsaved,
}

impl TaskSink {
    pub fn new(app: AppState, rs: RunState, session: RunSession) -> TaskSink {
        TaskSink { app, rs, session, unsaved: Unsaved::default() }
    }
}

impl Sink for TaskSink {
    fn session(&self) -> RunSession {
        self.session
    }

    fn stats(&mut self, stats: RunStats) {
        show_stats(self.rs, stats);
    }

    fn in_flight(&mut self, n: usize) {
        show_in_flight(self.rs, n);
    }

    async fn store(&mut self) {
        store(self.app, self.rs, std::mem::take(&mut self.unsaved)).await;
    }

    fn event(&mut self, ev: RunEvent) {
        let (app, rs, unsaved) = (self.app, self.rs, &mut self.unsaved);
        match ev {
            RunEvent::Answered { task, reply, record, .. } => {
                clear_retry(rs, task);
                let id = record.task_id.clone();
                app.answers.update(|a| {
                    a.insert(id.clone(), reply);
                });
                if record.truncated {
                    rs.live.update(|l| l.truncated.push(id));
                }
                if let Some(other) = &record.answered_by {
                    let w = repoqa::llm::runlog::other_model_warning(
                        &record.model,
                        other,
                        &record.task_id,
                    );
                    rs.live.update(|l| {
                        l.other_model.get_or_insert(w);
                    });
                }
                rs.log.update(|l| l.push(record));
                unsaved.answers = true;
                unsaved.log = true;
            }
            RunEvent::Failed { task, record } => {
                clear_retry(rs, task);
                rs.log.update(|l| l.push(record));
                unsaved.log = true;
            }
            RunEvent::Retrying { task, reason, lowered_to, .. } => rs.live.update(|l| {
                l.last_retry = Some((task, reason));
                if let Some(c) = lowered_to {
                    l.concurrency_note = Some(format!(
                        "{}. Set Concurrency to {c} to start there.",
                        repoqa::llm::schedule::lowered_message(c)
                    ));
                }
            }),
            RunEvent::Stopped { reason } => rs.live.update(|l| {
                l.stopped.get_or_insert(reason);
            }),
            RunEvent::Ignored => {}
        }
    }
}

/// The last retry's message goes once its request has its answer (or
/// has failed for good).
fn clear_retry(rs: RunState, task: usize) {
    if rs.live.with_untracked(|l| l.last_retry.as_ref().is_some_and(|(t, _)| *t == task)) {
        rs.live.update(|l| l.last_retry = None);
    }
}

/// Store the answers and the run log a batch of replies changed (awaited
/// before the next request is sent, so a reload right after finds them).
/// One write per batch, not per reply: each IndexedDB commit costs a few
/// milliseconds, and at high concurrency replies arrive in bunches.
/// The log goes first: a reload between the two writes then leaves a
/// record whose answer is not kept (the task is asked again on resume),
/// never a kept answer missing from the log.
async fn store(app: AppState, rs: RunState, unsaved: Unsaved) {
    let logged = if unsaved.log { save_log(&rs.log.get_untracked()).await } else { Ok(()) };
    let saved = if unsaved.answers { save_answers(app).await } else { Ok(()) };
    if let Err(e) = saved.and(logged) {
        rs.live.update(|l| l.save_error = Some(e.to_string()));
    }
}

/// "Test connection": one short request with the form's settings; the
/// verdict goes to `rs.connection` (and a failure before any HTTP status
/// to `rs.live.no_status`, which shows how to allow browser origins).
pub fn test_connection(rs: RunState) {
    let mut settings = match endpoint_of(rs) {
        Ok(s) => s,
        Err(e) => return rs.connection.set(Some((false, e.to_string()))),
    };
    settings.sampling.max_tokens = Some(16);
    let request = settings.request("Reply with the single word OK.");
    let timeout = match pace_of(rs) {
        Ok((_, ms)) => ms.min(60_000),
        Err(e) => return rs.connection.set(Some((false, e.to_string()))),
    };
    rs.connection.set(Some((true, "Testing…".into())));
    let session = rs.session_now();
    spawn_local(async move {
        let reply = post_model_request(&request, timeout).await;
        if rs.session_now() != session {
            return;
        }
        if let Err(TransportError::NoStatus(m)) = &reply {
            let m = m.clone();
            rs.live.update(|l| l.no_status = Some(m));
        }
        let verdict = match read_reply(&settings, reply.as_ref()) {
            Outcome::Answer(a) => (
                true,
                format!(
                    "Connected: {} at {} replied “{}”.",
                    settings.model.trim(),
                    settings.base_url_shown(),
                    snippet_line(&a.text)
                ),
            ),
            // Reached and keyed, but refused: a run's requests would be
            // refused alike, so this is no success (never shown as one).
            Outcome::TaskFailed { reason } => (
                false,
                format!(
                    "Not usable as set: the server answered and took the key, but refused the \
                     test prompt: {reason}. A run's requests would likely be refused the same \
                     way: check the model name and the settings above."
                ),
            ),
            Outcome::Stop { reason } => (false, reason),
            Outcome::Retry { reason, .. } if reason.contains(NO_STATUS) => {
                (false, format!("No reply: {reason}. See below how to allow this page."))
            }
            Outcome::Retry { reason, .. } => (false, format!("No usable reply: {reason}")),
        };
        rs.connection.set(Some(verdict));
    });
}
