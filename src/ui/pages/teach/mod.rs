//! Teach: "Be the model" (issue 24). A class gets a task in a small window
//! (rebuilt by the core builder at the task's own depth), a description
//! and a timer; the student picks the function they think is the needle,
//! or types an answer. The pick is scored by the real scorer, as a model's
//! reply would be, and the needle, its depth and the verdict are revealed,
//! with the similarity step by step. The attempts are compared with the
//! loaded model answers on the same tasks, by depth, and can be downloaded
//! as a model-outputs file that `repoqa score` scores the same way.
//! With a model loaded in this tab (Run → "In this tab"), the model answers
//! each round too (issue 54): the official prompt of the round's task, in
//! the round's window, written where the class can watch it (presenter
//! mode included), scored by the same scorer once the round is over, and
//! counted beside the class by depth.
//! Dataset text, typed answers and the model's answer are rendered as text.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::engine::{Reply, Request};
use repoqa::exercise::{self, Attempt, Choice};
use repoqa::report::{Protocol, Task};
use repoqa::scoring::breakdown::{depth_bin_label, Count, DEPTH_BINS};
use repoqa::scoring::score::Evaluation;

use crate::ui::browser::dom::focus_into_view;
use crate::ui::browser::download::download_text;
use crate::ui::browser::engine;
use crate::ui::browser::tab_model;
use crate::ui::browser::time::now_ms;
use crate::ui::components::charts::DepthChart;
use crate::ui::components::markdown::Markdown;
use crate::ui::components::verdict_steps::VerdictSteps;
use crate::ui::format::{self, thousands};
use crate::ui::jobs::anatomy::{rebuild, Rebuild};
use crate::ui::jobs::build::build_queued;
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::use_runner;
use crate::ui::state::answers::score_one;
use crate::ui::state::reviewers::LeaderboardState;
use crate::ui::state::route::task_href;
use crate::ui::state::run::use_run_state;
use crate::ui::state::{use_state, AppState};
use crate::ui::storage::local;

mod tab;
use tab::{
    tab_answers, tab_model_name, TabAttempt, TabLive, TabPanel, TabToggle, KEY_TAB_ATTEMPTS,
};

/// Where the attempts are kept between visits (small: no code contexts).
const KEY_ATTEMPTS: &str = "repoqa-exercise-attempts";
/// One round: the task as the class sees it, what can be picked, when it
/// started, and how it ended.
#[derive(Clone)]
struct Round {
    task: Arc<Task>,
    choices: Vec<Choice>,
    started_ms: f64,
    /// Seconds allowed (0 = no limit).
    limit_s: u32,
    ended: Option<Ended>,
}

#[derive(Clone)]
struct Ended {
    attempt: Attempt,
    evaluation: Option<Evaluation>,
    output: Option<repoqa::report::ModelOutput>,
}

/// A list kept under `key` (empty when none is, or it cannot be read).
fn load<T: serde::de::DeserializeOwned>(key: &str) -> Vec<T> {
    local::get(key).ok().flatten().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

fn save_attempts(attempts: &[Attempt]) {
    save(KEY_ATTEMPTS, attempts);
}

fn save<T: serde::Serialize>(key: &str, list: &[T]) {
    if let Ok(json) = serde_json::to_string(list) {
        if let Err(e) = local::set(key, &json) {
            leptos::logging::warn!("attempts not saved: {e}");
        }
    }
}

/// Score `reply` to the round's task with the real scorer (the compute
/// engine's).
async fn score(
    state: AppState,
    task: &Task,
    reply: &str,
) -> (Option<repoqa::report::ModelOutput>, Result<Evaluation, String>) {
    let output = match repoqa::scoring::answers::model_output(task, reply, 1) {
        Ok(o) => o,
        Err(e) => return (None, Err(e)),
    };
    let options = state.score_options_for(state.scoring.options.get_untracked());
    let Some(d) = state.dataset.get_untracked() else {
        return (Some(output), Err("no dataset is loaded".to_string()));
    };
    let result = async {
        let id = engine::dataset(&d.dataset, &d.origin).await.map_err(|e| e.to_string())?;
        let request = Request::Evaluate { dataset: id, options, outputs: vec![output.clone()] };
        match engine::call(&request).await.map_err(|e| e.to_string())? {
            Reply::Evaluate { evaluations } => evaluations
                .into_iter()
                .next()
                .unwrap_or_else(|| Err("the engine scored nothing".into())),
            _ => Err("the engine answered another question than scoring".to_string()),
        }
    }
    .await;
    (Some(output), result)
}

/// The tasks a round can be played on, as (id, label): the built tasks
/// (with their depth), or before a build the loaded dataset's needles (the
/// first round builds them), so a class can be given a task from the start.
fn choosable(state: AppState) -> Vec<(String, String)> {
    let built = state.tasks.with(|ts| {
        ts.iter()
            .map(|t| (t.task_id(), format!("{} ({}, depth {})", t.name, t.repo, t.position_ratio)))
            .collect::<Vec<_>>()
    });
    if !built.is_empty() {
        return built;
    }
    state.dataset.with(|d| {
        let Some(d) = d else { return Vec::new() };
        d.dataset
            .languages
            .iter()
            .flat_map(|(language, repos)| {
                repos.iter().flat_map(move |r| {
                    r.needles.iter().map(move |n| {
                        (
                            repoqa::report::task_id(language, &r.repo, &n.name),
                            format!("{} ({}, {language})", n.name, r.repo),
                        )
                    })
                })
            })
            .collect()
    })
}

/// The functions a student can pick in `task` (`exercise::choices`, by
/// the compute engine).
async fn choices_of(state: AppState, task: &Task) -> Result<Vec<Choice>, String> {
    let Some(d) = state.dataset.get_untracked() else { return Ok(Vec::new()) };
    let id = engine::dataset(&d.dataset, &d.origin).await.map_err(|e| e.to_string())?;
    let request = Request::Choices { dataset: id, task: Box::new(task.clone()) };
    match engine::call(&request).await.map_err(|e| e.to_string())? {
        Reply::Choices { choices } => Ok(choices),
        _ => Err("the engine answered another question than the functions to pick".to_string()),
    }
}

#[component]
pub fn TeachPage() -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let size = RwSignal::new(2048usize);
    let limit = RwSignal::new(60u32);
    // The rounds' prompts built with the corrected protocol (NOT OFFICIAL):
    // the official one can leave a stray line right above the needle (an
    // `export ` cut from its function) that gives it away to a class.
    let corrected = RwSignal::new(false);
    // A chosen task's id, or empty for a random one.
    let chosen = RwSignal::new(String::new());
    let round = RwSignal::new(None::<Round>);
    let error = RwSignal::new(None::<String>);
    let attempts = RwSignal::new(load::<Attempt>(KEY_ATTEMPTS));
    // The model in this tab: whether it answers the rounds, its answers,
    // and the one being written.
    let rs = use_run_state();
    let model_line = use_model_run().runner;
    let ask_tab = RwSignal::new(true);
    let tab_attempts = RwSignal::new(load::<TabAttempt>(KEY_TAB_ATTEMPTS));
    let tab_live = RwSignal::new(TabLive::Off);
    on_cleanup(move || {
        // The class left: the model stops writing for it.
        if matches!(tab_live.try_get_untracked(), Some(TabLive::Writing { .. })) {
            spawn_local(async {
                let _ = tab_model::stop().await;
            });
        }
    });
    let now = RwSignal::new(now_ms());
    let tick = set_interval_with_handle(move || now.set(now_ms()), Duration::from_millis(250)).ok();
    on_cleanup(move || {
        if let Some(t) = tick {
            t.clear();
        }
    });

    // The round being scored (its start time): a round ends once.
    let finishing = StoredValue::new(None::<f64>);
    // `gave_up`: the needle revealed with no answer (listed, not counted).
    let finish = move |picked: Option<String>, reply: String, gave_up: bool| {
        let Some(r) = round.get_untracked() else { return };
        if r.ended.is_some() || finishing.get_value() == Some(r.started_ms) {
            return;
        }
        finishing.set_value(Some(r.started_ms));
        let seconds = (now_ms() - r.started_ms) / 1000.0;
        spawn_local(async move {
            let (output, result) = score(state, &r.task, &reply).await;
            // A new round started meanwhile: this one's answer is not its.
            if round.with_untracked(|now| now.as_ref().map(|n| n.started_ms)) != Some(r.started_ms)
            {
                return;
            }
            let t = state.settings.with_untracked(|s| s.threshold);
            let (pass, similarity, best_target, evaluation) = match result {
                Ok(e) => (e.passes(t), e.best_similarity, e.best_target.clone(), Some(e)),
                Err(e) => {
                    error.set(Some(format!("Cannot score the answer: {e}")));
                    (false, 0.0, None, None)
                }
            };
            let attempt = Attempt {
                task_id: r.task.task_id(),
                position_ratio: r.task.position_ratio,
                code_context_size: size.get_untracked(),
                picked,
                reply,
                pass,
                similarity,
                best_target,
                seconds,
                gave_up,
            };
            attempts.update(|a| a.push(attempt.clone()));
            attempts.with_untracked(|a| save_attempts(a));
            round.update(|r| {
                if let Some(r) = r {
                    r.ended = Some(Ended { attempt, evaluation, output });
                }
            });
            // The verdict is at the top of the round, above the code the
            // student was reading: bring it (and the focus) there.
            focus_into_view("exercise-result");
        });
    };

    // Time's up: the round ends with no answer.
    Effect::new(move |_| {
        let n = now.get();
        let expired = round.with_untracked(|r| {
            r.as_ref().is_some_and(|r| {
                r.ended.is_none() && r.limit_s > 0 && n - r.started_ms >= r.limit_s as f64 * 1000.0
            })
        });
        if expired {
            finish(None, String::new(), false);
        }
    });

    // Building the tasks for a first round (a fresh visit has the demo
    // loaded but nothing built): the button does it rather than send the
    // class to two other pages.
    let building = RwSignal::new(false);
    let start = move |_| {
        error.set(None);
        if building.get_untracked() {
            return;
        }
        spawn_local(async move {
            if state.tasks.with_untracked(Vec::is_empty) {
                // A dataset still loading (the demo, on a first visit) is
                // waited for: the build queues behind it.
                if state.dataset.with_untracked(Option::is_none) && !runner.busy_untracked() {
                    return error.set(Some(
                        "No dataset is loaded yet: load the demo (or your own) on the Dataset page."
                            .into(),
                    ));
                }
                building.set(true);
                let built = build_queued(state, runner).await;
                building.set(false);
                if let Err(e) = built {
                    return error.set(Some(format!("Cannot build the tasks: {e}")));
                }
            }
            let tasks = state.tasks.get_untracked();
            if tasks.is_empty() {
                return error.set(Some("The dataset gave no tasks to play.".into()));
            }
            // The chosen task, else one not tried yet at random (any task
            // once all were tried).
            let want = chosen.get_untracked();
            let tried: Vec<String> =
                attempts.with_untracked(|a| a.iter().map(|a| a.task_id.clone()).collect());
            let fresh: Vec<&Arc<Task>> =
                tasks.iter().filter(|t| !tried.contains(&t.task_id())).collect();
            let pool: Vec<&Arc<Task>> =
                if fresh.is_empty() { tasks.iter().collect() } else { fresh };
            let i = ((js_sys::Math::random() * pool.len() as f64) as usize).min(pool.len() - 1);
            let task = if want.is_empty() {
                pool[i].clone()
            } else {
                match tasks.iter().find(|t| t.task_id() == want) {
                    Some(t) => t.clone(),
                    None => {
                        return error.set(Some(format!(
                            "{want} is not among the built tasks (the Tasks page's languages and repositories leave it out): choose another, or a random one."
                        )))
                    }
                }
            };
            let r = Rebuild {
                position_ratio: task.position_ratio,
                code_context_size: size.get_untracked(),
                protocol: corrected.get_untracked().then_some(Protocol::Corrected),
            };
            let limit_s = limit.get_untracked();
            match rebuild(state, runner, task, r).await {
                Ok(task) => {
                    let choices = match choices_of(state, &task).await {
                        Ok(c) => c,
                        Err(e) => return error.set(Some(e)),
                    };
                    let started_ms = now_ms();
                    round.set(Some(Round {
                        task: task.clone(),
                        choices,
                        started_ms,
                        limit_s,
                        ended: None,
                    }));
                    // The model in this tab answers this round too (the
                    // last round's answer, if still being written, stops).
                    let model = tab_model_name(rs).filter(|_| ask_tab.get_untracked());
                    let writing = matches!(tab_live.get_untracked(), TabLive::Writing { .. });
                    if writing {
                        let _ = tab_model::stop().await;
                    }
                    match model {
                        Some(m) => {
                            // The stopped answer's job ends first; another job
                            // on the line (a Run) is not waited for.
                            if writing {
                                while model_line.busy_untracked() {
                                    crate::ui::browser::time::sleep_ms(50).await;
                                }
                            }
                            if model_line.busy_untracked() {
                                tab_live.set(TabLive::Failed {
                                    round: started_ms,
                                    model: m,
                                    why: "The model in this tab is busy with a run on the Run page: it answers the rounds once that run ends or is cancelled.".into(),
                                });
                            } else {
                                let size = r.code_context_size;
                                tab_answers(
                                    state,
                                    (rs, model_line),
                                    (task, size, started_ms),
                                    m,
                                    tab_live,
                                    tab_attempts,
                                );
                            }
                        }
                        None => tab_live.set(TabLive::Off),
                    }
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        });
    };

    let clear = move |_| {
        attempts.set(Vec::new());
        save_attempts(&[]);
        tab_attempts.set(Vec::new());
        save::<TabAttempt>(KEY_TAB_ATTEMPTS, &[]);
    };
    // The in-tab model's last answer to each task, as the official outputs
    // file (named after the model).
    let download_tab = move |_| {
        let tasks = state.tasks.get_untracked();
        let (last, model): (BTreeMap<String, String>, Option<String>) = tab_attempts
            .with_untracked(|a| {
                (
                    a.iter()
                        .map(|t| (t.attempt.task_id.clone(), t.attempt.reply.clone()))
                        .collect(),
                    a.last().map(|t| t.model.clone()),
                )
            });
        let model = model.unwrap_or_else(|| "in-tab-model".into());
        match repoqa::scoring::answers::outputs_jsonl(&tasks, &last) {
            Ok(text) => {
                let name = format!("{}-in-tab.jsonl", repoqa::naming::model_file_stem(&model));
                if let Err(e) = download_text(&name, "application/x-ndjson", &text) {
                    error.set(Some(e.to_string()));
                }
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    let download = move |_| {
        // The last attempt of each task, in the tasks' order, as the
        // official outputs file (repoqa score reads it).
        let tasks = state.tasks.get_untracked();
        // A round given up is no answer: its task is left out.
        let last: BTreeMap<String, String> = attempts.with_untracked(|a| {
            a.iter()
                .filter(|a| a.answered())
                .map(|a| (a.task_id.clone(), a.reply.clone()))
                .collect()
        });
        let size = size.get_untracked();
        // The scorer reads the names and the reply: the official task's
        // line scores as the round's rebuilt task did.
        let text = repoqa::scoring::answers::outputs_jsonl(&tasks, &last);
        match text {
            Ok(text) => {
                let name = format!("class-answers_ntoken_{size}.jsonl");
                if let Err(e) = download_text(&name, "application/x-ndjson", &text) {
                    error.set(Some(e.to_string()));
                }
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    };

    view! {
        <section class="card" id="teach">
            <h2>"Be the model"</h2>
            <p>"A class exercise: read a description and a small code context, then pick the function it describes before the time runs out — what a model is asked to do, in a window small enough to read. Your pick is scored by the same scorer as a model's answer."</p>
            <div class="row">
                <span class="control"><label for="exercise-task">"Task"</label>
                <select id="exercise-task" on:change=move |ev| chosen.set(event_target_value(&ev))>
                    <option value="" selected=true>"a random one"</option>
                    // Drawn again once the first round builds the tasks: the
                    // chosen one stays chosen.
                    {move || choosable(state).into_iter().map(|(id, label)| view! {
                        <option selected=chosen.get_untracked() == id value=id>{label}</option>
                    }).collect_view()}
                </select></span>
                <span class="control"><label for="exercise-size">"Window"</label>
                <select id="exercise-size" on:change=move |ev| if let Ok(n) = event_target_value(&ev).parse() { size.set(n) }>
                    {[512usize, 1024, 2048, 4096, 8192].into_iter().map(|n| view! {
                        <option value=n.to_string() selected=n == 2048>{format!("{} tokens", thousands(n))}</option>
                    }).collect_view()}
                </select></span>
                <span class="control"><label for="exercise-limit">"Time"</label>
                <select id="exercise-limit" on:change=move |ev| if let Ok(n) = event_target_value(&ev).parse() { limit.set(n) }>
                    {[(30u32, "30 s"), (60, "1 min"), (120, "2 min"), (300, "5 min"), (0, "no limit")].into_iter().map(|(n, l)| view! {
                        <option value=n.to_string() selected=n == 60>{l}</option>
                    }).collect_view()}
                </select></span>
                <span class="control"><label for="exercise-prompt">"Prompt"</label>
                <select id="exercise-prompt" on:change=move |ev| corrected.set(event_target_value(&ev) == "corrected")>
                    <option value="official" selected=true>"official (as the models were asked)"</option>
                    <option value="corrected">"corrected (NOT OFFICIAL: no stray line gives the needle away)"</option>
                </select></span>
                <button type="button" class="primary" id="exercise-start" on:click=start
                    disabled=move || round.with(|r| r.as_ref().is_some_and(|r| r.ended.is_none()))>"New round"</button>
            </div>
            <TabToggle ask_tab=ask_tab/>
            {move || building.get().then(|| view! {
                <p class="muted" id="exercise-building" role="status"><span class="spinner" aria-hidden="true"></span>" Building the tasks of the loaded dataset first…"</p>
            })}
            {move || error.get().map(|e| view! { <p class="fail" id="exercise-error">{e}</p> })}
            {move || round.get().map(|r| view! { <RoundView round=r now=now finish=finish tab=tab_live/> })}
        </section>
        <section class="card" id="exercise-results">
            <h2>"The class against the models"</h2>
            <ByDepth attempts=attempts tab=tab_attempts/>
            <Attempts attempts=attempts/>
            <p class="row">
                <button type="button" id="exercise-download" on:click=download disabled=move || attempts.with(|a| !a.iter().any(Attempt::answered))>"Download the class's answers (model outputs JSONL)"</button>
                {move || tab_attempts.with(|a| !a.is_empty()).then(|| view! {
                    <button type="button" id="exercise-tab-download" on:click=download_tab>"Download the in-tab model's answers (model outputs JSONL)"</button>
                })}
                <button type="button" id="exercise-clear" on:click=clear disabled=move || attempts.with(Vec::is_empty)>"Forget the attempts"</button>
            </p>
            <p class="muted small">"The file holds each task's last answer as the official harness writes model outputs; "<code>"repoqa score --model-output-path FILE --dataset-path DATASET"</code>" scores it the same way."</p>
        </section>
    }
}

#[component]
fn RoundView(
    round: Round,
    now: RwSignal<f64>,
    finish: impl Fn(Option<String>, String, bool) + Copy + Send + Sync + 'static,
    tab: RwSignal<TabLive>,
) -> impl IntoView {
    let task = round.task.clone();
    let ended = round.ended.clone();
    let done = ended.is_some();
    let answer = RwSignal::new(String::new());
    let (started, limit) = (round.started_ms, round.limit_s);
    let timer = move || {
        let secs = ((now.get() - started) / 1000.0).max(0.0);
        if limit == 0 {
            format!("{:.0} s", secs.floor())
        } else {
            let left = (limit as f64 - secs).max(0.0).ceil() as u64;
            format!("{}:{:02} left", left / 60, left % 60)
        }
    };
    // The code, with each function a button (the needle and the pick marked
    // once the round is over).
    let ctx = task.code_context.clone();
    let picked = ended.as_ref().and_then(|e| e.attempt.picked.clone());
    let mut parts = Vec::new();
    let mut at = 0;
    for c in &round.choices {
        if c.at.start < at || c.at.end > ctx.len() {
            continue;
        }
        parts.push(view! { <span>{ctx[at..c.at.start].to_string()}</span> }.into_any());
        let name = c.name.clone();
        let is_needle = c.name == task.name && c.path == task.path;
        let class = match (done, is_needle, picked.as_deref() == Some(c.name.as_str())) {
            (true, true, true) => "choice needle picked",
            (true, true, false) => "choice needle",
            (true, false, true) => "choice picked",
            _ => "choice",
        };
        let text = c.text(&task).to_string();
        let reply = exercise::pick_reply(&task, &text);
        parts.push(view! {
            <button type="button" class=class data-name=name.clone() data-path=c.path.clone() disabled=done
                aria-label=format!("pick the function {name}")
                on:click=move |_| finish(Some(name.clone()), reply.clone(), false)>{text}</button>
        }.into_any());
        at = c.at.end;
    }
    parts.push(view! { <span>{ctx[at.min(ctx.len())..].to_string()}</span> }.into_any());
    let result = ended.map(|e| {
        let a = &e.attempt;
        let (verdict, verdict_class) = match (a.gave_up, a.pass) {
            (true, _) => ("REVEALED", "muted big"),
            (false, true) => ("PASS", "pass big"),
            (false, false) => ("FAIL", "fail big"),
        };
        let what = match (&a.picked, a.reply.trim().is_empty()) {
            _ if a.gave_up => "You gave up: not counted as a failed attempt (no answer is not a wrong one).".to_string(),
            (Some(p), _) => format!("You picked {p}."),
            (None, true) => "No answer.".to_string(),
            (None, false) => "You typed an answer.".to_string(),
        };
        let closest = match &a.best_target {
            Some(b) => format!(" Closest needle: {b} (similarity {}).", format::similarity(a.similarity)),
            None => String::new(),
        };
        let depth = format!(
            " The needle is {} in {}, at depth {} (tokens {}–{} of {}). Time: {:.1} s.",
            task.name, task.path, task.position_ratio,
            thousands(task.needle_token_start), thousands(task.needle_token_end), thousands(task.code_context_ntokens), a.seconds
        );
        // No answer to explain when the student gave up.
        let steps = e.evaluation.as_ref().zip(e.output.clone()).filter(|_| !a.gave_up).map(|(ev, o)| {
            view! { <VerdictSteps output=o evaluation=ev.clone() needle=task.name.clone()/> }
        });
        view! {
            <div id="exercise-result" tabindex="-1" data-pass=a.pass.to_string() data-similarity=repoqa::python::json::float_repr(a.similarity)
                data-picked=a.picked.clone().unwrap_or_default() data-gave-up=a.gave_up.to_string()>
                <p><span class=verdict_class>{verdict}</span>" " {what} {closest} {depth}</p>
                <p><a href=task_href(&task.task_id())>"This task in full: its anatomy, the audit and the prompt"</a></p>
                {steps}
            </div>
        }
    });
    let submit = move |_| finish(None, answer.get_untracked(), false);
    view! {
        <div id="exercise-round" data-task-id=task.task_id() data-state=if done { "done" } else { "running" }
            data-position-ratio=task.position_ratio.to_string() data-protocol=task.protocol.as_str()>
            <p class="exercise-timer" id="exercise-timer" aria-live="off">{move || if done { "Round over".to_string() } else { timer() }}</p>
            {result}
            {(!task.protocol.is_official()).then(|| view! {
                <p class="warning small" id="exercise-protocol">"Corrected prompt (NOT OFFICIAL): the code is cut as the leak audit's corrected protocol cuts it, with no stray line break or shifted cut around the needle to give it away. A pick is scored as always."</p>
            })}
            <div class="desc"><strong>"The description"</strong><Markdown text=task.description.trim().to_string()/></div>
            {move || {
                let live = tab.get();
                (live.round() == Some(started)).then(|| view! { <TabPanel live=live round_over=done/> })
            }}
            <p class="muted small">{format!("{} functions below; click the one described ({} tokens of {}).", round.choices.len(), thousands(task.code_context_ntokens), task.repo)}</p>
            <pre class="prompt exercise-code" id="exercise-code" tabindex="0" aria-label="the code context">{parts}</pre>
            <details>
                <summary>"Or type an answer, as a model would"</summary>
                <textarea id="exercise-answer" rows="6" spellcheck="false" disabled=done
                    prop:value=move || answer.get() on:input=move |ev| answer.set(event_target_value(&ev))></textarea>
                <p><button type="button" id="exercise-submit" on:click=submit disabled=done>"Score my answer"</button></p>
            </details>
            {(!done).then(|| view! {
                <p><button type="button" id="exercise-reveal" on:click=move |_| finish(None, String::new(), true)>"Give up and reveal the needle"</button></p>
            })}
        </div>
    }
}

/// Students and models by depth: the models are the answers loaded on
/// Results and the runs of the SCORES files loaded on the Leaderboard.
#[component]
fn ByDepth(attempts: RwSignal<Vec<Attempt>>, tab: RwSignal<Vec<TabAttempt>>) -> impl IntoView {
    let state = use_state();
    let board = expect_context::<LeaderboardState>();
    move || {
        let list = attempts.get();
        if list.is_empty() {
            return view! { <p class="muted" id="exercise-by-depth-empty">"No attempts yet."</p> }
                .into_any();
        }
        let t = state.settings.with(|s| s.threshold);
        // The models: the answers loaded on Results, and every run of the
        // SCORES files loaded on the Leaderboard (the published ones).
        let tried: std::collections::BTreeSet<&str> =
            list.iter().map(|a| a.task_id.as_str()).collect();
        let mut models: BTreeMap<String, Vec<bool>> = BTreeMap::new();
        for id in &tried {
            if let Some(s) = score_one(state, id).filter(|s| !s.pending()) {
                models.entry(id.to_string()).or_default().push(s.passes(t));
            }
        }
        let mut runs = usize::from(!models.is_empty());
        board.files.with(|fs| {
            for f in fs {
                for m in f.file.models.values() {
                    runs += 1;
                    for (lang, results) in &m.results {
                        for r in results {
                            let id = repoqa::report::task_id(lang, &r.repo, &r.name);
                            if tried.contains(id.as_str()) {
                                models
                                    .entry(id)
                                    .or_default()
                                    .push(repoqa::scoring::breakdown::passes(r, t));
                            }
                        }
                    }
                }
            }
        });
        let (tab_list, tab_models): (Vec<Attempt>, std::collections::BTreeSet<String>) =
            tab.with(|t| {
                (
                    t.iter().map(|t| t.attempt.clone()).collect(),
                    t.iter().map(|t| t.model.clone()).collect(),
                )
            });
        let rows = exercise::by_depth(&list, &models, &tab_list);
        let with_tab = rows.iter().any(|r| r.tab.n > 0);
        let mut class = [Count::default(); DEPTH_BINS];
        let mut model = [Count::default(); DEPTH_BINS];
        let mut in_tab = [Count::default(); DEPTH_BINS];
        for r in &rows {
            class[r.bin] = r.students;
            model[r.bin] = r.models;
            in_tab[r.bin] = r.tab;
        }
        let mut series = vec![("the class".to_string(), class), ("models".to_string(), model)];
        if with_tab {
            series.push(("the model in this tab".to_string(), in_tab));
        }
        let tab_names = tab_models.into_iter().collect::<Vec<_>>().join(", ");
        let rate = |c: repoqa::scoring::breakdown::Count| match c.rate() {
            Some(r) => format!("{}/{} ({:.0}%)", c.passed, c.n, 100.0 * r),
            None => "—".to_string(),
        };
        view! {
            <DepthChart id="exercise" title=format!("Pass rate at threshold {t} by needle depth: the class and the models, on the same tasks") series=series/>
            <div class="table-scroll" tabindex="0" role="region" aria-label="students and models by depth">
            <table class="grid" id="exercise-by-depth">
                <thead><tr><th>"Needle depth"</th><th>"The class"</th><th>{format!("Models ({}, same tasks)", format::count(runs, "run", "runs"))}</th>
                    {with_tab.then(|| view! { <th id="exercise-tab-column">{format!("In this tab ({tab_names}, same rounds)")}</th> })}
                    <th>"Tasks"</th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|r| view! {
                        <tr data-bin=r.bin.to_string() data-students=format!("{}/{}", r.students.passed, r.students.n)
                            data-models=format!("{}/{}", r.models.passed, r.models.n)
                            data-tab=format!("{}/{}", r.tab.passed, r.tab.n)>
                            <td>{depth_bin_label(r.bin)}</td>
                            <td>{rate(r.students)}</td>
                            <td>{rate(r.models)}</td>
                            {with_tab.then(|| view! { <td>{rate(r.tab)}</td> })}
                            <td>{r.tasks.iter().map(|id| {
                                let name = id.rsplit("::").next().unwrap_or(id).to_string();
                                view! { <a href=task_href(id) class="task-link">{name}</a>" " }
                            }).collect_view()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            </div>
            {(runs == 0 && !with_tab).then(|| view! {
                <p class="muted" id="exercise-no-models">
                    "No model to set the class against yet: score a model's answers on "<a href="#results">"Results"</a>
                    " (Try the demo's sample answers there), or load the published runs on the "<a href="#leaderboard">"Leaderboard"</a>
                    " (30 models); their results on the same tasks appear here."
                </p>
            })}
        }.into_any()
    }
}

#[component]
fn Attempts(attempts: RwSignal<Vec<Attempt>>) -> impl IntoView {
    move || {
        let list = attempts.get();
        (!list.is_empty()).then(|| view! {
            <details id="exercise-attempts">
                <summary>{format!("Every attempt ({})", list.len())}</summary>
                <ol>
                    {list.into_iter().rev().map(|a| view! {
                        <li data-pass=a.pass.to_string() data-gave-up=a.gave_up.to_string()>
                            <a href=task_href(&a.task_id)>{a.task_id.clone()}</a>
                            {if a.gave_up {
                                format!(" — gave up, the needle revealed (not counted), {:.1} s", a.seconds)
                            } else {
                                format!(" — {} ({}), {}, {:.1} s",
                                    if a.pass { "PASS" } else { "FAIL" }, format::similarity(a.similarity),
                                    a.picked.as_deref().map_or("typed or none".to_string(), |p| format!("picked {p}")), a.seconds)
                            }}
                        </li>
                    }).collect_view()}
                </ol>
            </details>
        })
    }
}
