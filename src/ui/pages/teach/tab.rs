//! Teach against the model in this tab (issue 54): with a model loaded
//! under Run → "In this tab", it answers each round too — the official
//! prompt of the round's task in the round's window, streamed into the
//! round as it is written (rendered as text), scored by the same scorer,
//! its verdict shown once the round is over, kept beside the class's
//! attempts.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::exercise::Attempt;
use repoqa::report::Task;

use super::{save, score, Ended};
use crate::ui::browser::tab_model::{self, Writing};
use crate::ui::browser::time::now_ms;
use crate::ui::format::{self, thousands};
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::tab_answer;
use crate::ui::jobs::Runner;
use crate::ui::state::run::{use_run_state, RunState, TabModel};
use crate::ui::state::AppState;

/// Where the in-tab model's answers to the rounds are kept.
pub(super) const KEY_TAB_ATTEMPTS: &str = "repoqa-exercise-tab-attempts";

/// The in-tab model's answer to one round, as an attempt (never a pick),
/// with the model's name.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct TabAttempt {
    pub(super) model: String,
    pub(super) attempt: Attempt,
}

/// The in-tab model on the round that started at `round` (its start time).
#[derive(Clone)]
pub(super) enum TabLive {
    Off,
    Writing { round: f64, model: String, writing: Writing },
    Done { round: f64, model: String, ended: Box<Ended>, speed: Option<String> },
    Failed { round: f64, model: String, why: String },
}

impl TabLive {
    pub(super) fn round(&self) -> Option<f64> {
        match self {
            TabLive::Off => None,
            TabLive::Writing { round, .. }
            | TabLive::Done { round, .. }
            | TabLive::Failed { round, .. } => Some(*round),
        }
    }
}

/// The model loaded in this tab, if one is: its name as runs record it.
pub(super) fn tab_model_name(rs: RunState) -> Option<String> {
    rs.tab.with(|t| match t {
        TabModel::Ready(l) => Some(repoqa::llm::in_tab::model_name(&l.name)),
        _ => None,
    })
}

/// The model in this tab answers the round that started at `started`
/// (task `task` in a window of `size` tokens, as the class sees it); `live` follows it, and its answer
/// is scored and kept in `kept` once written. A later round's answer
/// replaces this one's view (this one is stopped when it starts).
pub(super) fn tab_answers(
    state: AppState,
    (rs, model_line): (RunState, Runner),
    (task, size, started): (Arc<Task>, usize, f64),
    model: String,
    live: RwSignal<TabLive>,
    kept: RwSignal<Vec<TabAttempt>>,
) {
    let max_tokens = rs.form.with_untracked(|f| {
        f.settings.sampling.max_tokens.unwrap_or(repoqa::llm::in_tab::DEFAULT_MAX_NEW_TOKENS)
    });
    let this = move |l: &TabLive| l.round() == Some(started);
    live.set(TabLive::Writing {
        round: started,
        model: model.clone(),
        writing: Writing::default(),
    });
    spawn_local(async move {
        let name = model.clone();
        let on_text = move |writing: Writing| {
            live.try_update(|l| {
                if this(l) {
                    *l = TabLive::Writing { round: started, model: name.clone(), writing };
                }
            });
        };
        let result =
            tab_answer::answer(model_line, task.clone(), model.clone(), max_tokens, on_text).await;
        let seconds = (now_ms() - started) / 1000.0;
        let end = match result {
            Ok(reply) => {
                let text = reply.answer.text.clone();
                let (output, scored) = score(state, &task, &text).await;
                let t = state.settings.with_untracked(|s| s.threshold);
                let (pass, similarity, best_target, evaluation) = match scored {
                    Ok(e) => (e.passes(t), e.best_similarity, e.best_target.clone(), Some(e)),
                    Err(e) => {
                        let why = format!("Cannot score the model's answer: {e}");
                        live.try_update(|l| {
                            if this(l) {
                                *l = TabLive::Failed { round: started, model: model.clone(), why };
                            }
                        });
                        return;
                    }
                };
                let attempt = Attempt {
                    task_id: task.task_id(),
                    position_ratio: task.position_ratio,
                    code_context_size: size,
                    picked: None,
                    reply: text,
                    pass,
                    similarity,
                    best_target,
                    seconds,
                    gave_up: false,
                };
                kept.try_update(|k| {
                    k.push(TabAttempt { model: model.clone(), attempt: attempt.clone() })
                });
                kept.with_untracked(|k| save(KEY_TAB_ATTEMPTS, k));
                let speed = reply.timing.map(|t| t.words());
                TabLive::Done {
                    round: started,
                    model: model.clone(),
                    ended: Box::new(Ended { attempt, evaluation, output }),
                    speed,
                }
            }
            Err(e) => TabLive::Failed { round: started, model: model.clone(), why: e.to_string() },
        };
        live.try_update(|l| {
            if this(l) {
                *l = end;
            }
        });
    });
}

/// Whether the model loaded in this tab answers the rounds; or where to
/// load one.
#[component]
pub(super) fn TabToggle(ask_tab: RwSignal<bool>) -> impl IntoView {
    let rs = use_run_state();
    move || {
        match tab_model_name(rs) {
        Some(model) => {
            let tokens = rs.form.with(|f| {
                f.settings.sampling.max_tokens.unwrap_or(repoqa::llm::wire::DEFAULT_MAX_NEW_TOKENS)
            });
            view! {
                <p class="row" id="exercise-tab-toggle">
                    <label><input type="checkbox" id="exercise-tab" prop:checked=move || ask_tab.get()
                        on:change=move |ev| ask_tab.set(event_target_checked(&ev))/>
                    {format!(" {model}, loaded in this tab, answers each round too: the official prompt of the round's task, greedy, up to {} new tokens (set on Run).", thousands(tokens as usize))}</label>
                </p>
            }
            .into_any()
        }
        None => view! {
            <p class="muted small" id="exercise-tab-none">"To set the class against a real model, load a small one in this tab on "<a href="#run">"Run"</a>" (provider \"In this tab\"): it then answers each round while the class watches."</p>
        }
        .into_any(),
    }
    }
}

/// The in-tab model on this round: the prompt being read, the answer as
/// it is written, and once the round is over its verdict (before, the
/// class would see whether to trust it).
#[component]
pub(super) fn TabPanel(live: TabLive, round_over: bool) -> impl IntoView {
    let (model, state, status, text, verdict) = match live {
        TabLive::Off => return ().into_any(),
        TabLive::Writing { model, writing, .. } => {
            let status = match (writing.text.is_empty(), writing.prompt) {
                (true, Some((done, total))) if done < total => format!(
                    "Reading the prompt: {} of {} tokens…",
                    thousands(done as usize),
                    thousands(total as usize)
                ),
                (true, _) => "Reading the prompt…".to_string(),
                (false, _) => format!(
                    "Writing… ({} characters so far)",
                    thousands(writing.text.chars().count())
                ),
            };
            let state = if writing.text.is_empty() { "reading" } else { "writing" };
            (model, state, status, writing.text, None)
        }
        TabLive::Done { model, ended, speed, .. } => {
            let a = &ended.attempt;
            let status = format!(
                "Answered in {:.1} s{}.",
                a.seconds,
                speed.map(|s| format!(": {s}")).unwrap_or_default()
            );
            let verdict = if round_over {
                let closest = match &a.best_target {
                    Some(b) => format!(
                        " Closest needle: {b} (similarity {}).",
                        format::similarity(a.similarity)
                    ),
                    None => " No function in its answer.".to_string(),
                };
                Some(view! {
                    <p id="exercise-tab-result" data-pass=a.pass.to_string()
                        data-similarity=repoqa::python::json::float_repr(a.similarity)>
                        <span class=if a.pass { "pass big" } else { "fail big" }>{if a.pass { "PASS" } else { "FAIL" }}</span>
                        {format!(" The model in this tab.{closest}")}
                    </p>
                }
                .into_any())
            } else {
                Some(view! { <p class="muted" id="exercise-tab-wait">"It has answered; its verdict is shown when the round is over."</p> }.into_any())
            };
            (model, "done", status, a.reply.clone(), verdict)
        }
        TabLive::Failed { model, why, .. } => (model, "failed", why, String::new(), None),
    };
    let class = if state == "failed" { "fail" } else { "muted" };
    let model_line = use_model_run().runner;
    let writing = matches!(state, "reading" | "writing");
    view! {
        <section class="exercise-tab" id="exercise-tab-panel" data-state=state aria-label="the model in this tab">
            <h3>{format!("The model in this tab: {model}")}</h3>
            <p class=class id="exercise-tab-status" role="status">{status}</p>
            {writing.then(|| view! {
                <p><button type="button" id="exercise-tab-stop" disabled=move || model_line.cancelling()
                    on:click=move |_| {
                        model_line.cancel();
                        spawn_local(async {
                            let _ = tab_model::stop().await;
                        });
                    }>{move || if model_line.cancelling() { "Stopping…" } else { "Stop the model" }}</button></p>
            })}
            {verdict}
            {(!text.is_empty()).then(|| view! {
                <pre class="prompt exercise-tab-text" id="exercise-tab-text" tabindex="0" aria-label="the model's answer">{text}</pre>
            })}
        </section>
    }
    .into_any()
}
