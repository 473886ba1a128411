//! The guided tour and presenter mode (issue 24).
//!
//! The tour walks a class through the demo: what a needle test is, the
//! dataset, the prompts, one prompt to scale, an answer and its verdict
//! step by step, the results and charts, and Be the model. It is a panel in
//! a corner, never a modal: the app underneath stays usable. → and ← (or
//! Page Down / Page Up) move between steps, Escape leaves; each step shows
//! its key number large, read from the app's state.
//!
//! Presenter mode is a class on `<html>` the stylesheet follows: large
//! type, high contrast, and no secret on screen (API key and token fields
//! are hidden).

use leptos::prelude::*;

use crate::ui::browser::dom::{open_details, root_has_class, set_hash, set_root_class};
use crate::ui::format::{count, thousands};
use crate::ui::jobs::demo::try_demo;
use crate::ui::jobs::use_runner;
use crate::ui::state::answers::score_one;
use crate::ui::state::route::task_href;
use crate::ui::state::{use_state, AppState};
use crate::ui::storage::local;

/// The root class of a running tour (the task view leaves ← → to it).
pub const TOURING: &str = "touring";
/// The root class of presenter mode.
pub const PRESENTER: &str = "presenter";
const KEY_PRESENTER: &str = "repoqa-presenter";

/// Whether the tour is running (its keys come first).
pub fn tour_running() -> bool {
    root_has_class(TOURING)
}

struct Step {
    title: &'static str,
    text: &'static str,
    /// What to show once the step's page is drawn: a `<details>` is opened,
    /// anything else scrolled into view.
    open: Option<&'static str>,
}

const STEPS: [Step; 7] = [
    Step {
        title: "A needle test",
        text: "A repository's code is cut into one long context with a \"needle\" function at a chosen depth. The model reads an instruction, the code, a description of the needle and the instruction again, and must repeat the function.",
        open: None,
    },
    Step {
        title: "The dataset",
        text: "Repositories in several languages, each with needle functions and a description of each. Every needle becomes one task.",
        open: None,
    },
    Step {
        title: "The prompts",
        text: "The page builds every prompt here, with the official code's rules: the same bytes as the official harness.",
        open: None,
    },
    Step {
        title: "One prompt, to scale",
        text: "Each band is part of what the model reads, as wide as its tokens; blue is the needle. Move the depth slider: the task is rebuilt and the needle moves. Red marks are artifacts of the construction that give the needle away.",
        open: Some("#anatomy"),
    },
    Step {
        title: "An answer and its verdict",
        text: "The answer's first function is compared with every needle of the repository by smoothed BLEU, step by step: matched n-grams, precisions, smoothing, brevity penalty. It passes if the closest needle is this one and the similarity clears 0.8.",
        open: Some("#answer-slot #verdict-steps"),
    },
    Step {
        title: "Results and charts",
        text: "Every answer scored as the official harness scores it: pass@1 by language, by threshold and by needle depth.",
        open: Some("#charts-card"),
    },
    Step {
        title: "Be the model",
        text: "Now the class's turn: a small window, a description, a timer. Pick the function it describes; the same scorer decides.",
        open: None,
    },
];

/// The task the tour shows: the first one with an answer, else the first.
fn tour_task(state: AppState) -> Option<String> {
    state.tasks.with_untracked(|ts| {
        state
            .answers
            .with_untracked(|a| ts.iter().map(|t| t.task_id()).find(|id| a.contains_key(id)))
            .or_else(|| ts.first().map(|t| t.task_id()))
    })
}

fn step_hash(state: AppState, step: usize) -> String {
    match step {
        0 => "#".into(),
        1 => "#dataset".into(),
        2 => "#tasks".into(),
        3 | 4 => tour_task(state).map_or_else(|| "#tasks".into(), |id| task_href(&id)),
        5 => "#results".into(),
        _ => "#teach".into(),
    }
}

/// The step's key number and what it counts (from the app's state).
fn key_number(state: AppState, step: usize) -> (String, String) {
    let none = || ("—".to_string(), "load the demo first".to_string());
    match step {
        0 | 1 => state.dataset.with(|d| match d {
            Some(d) => {
                let repos: usize = d.dataset.languages.values().map(Vec::len).sum();
                (
                    thousands(d.dataset.needle_count()),
                    format!(
                        "needles in {}, {}",
                        count(repos, "repository", "repositories"),
                        count(d.dataset.languages.len(), "language", "languages")
                    ),
                )
            }
            None => none(),
        }),
        2 => match state.tasks.with(Vec::len) {
            0 => ("0".into(), "prompts built: press Prepare the demo".into()),
            n => (thousands(n), "prompts built in this page".into()),
        },
        3 => {
            let id = state.tasks.with(|_| tour_task(state));
            state.tasks.with(|ts| {
                ts.iter().find(|t| Some(t.task_id()) == id).map_or_else(none, |t| {
                    (
                        format!(
                            "{}–{}",
                            thousands(t.needle_token_start),
                            thousands(t.needle_token_end)
                        ),
                        format!(
                            "the needle's tokens, of {} in the context",
                            thousands(t.code_context_ntokens)
                        ),
                    )
                })
            })
        }
        4 => {
            let id = state.tasks.with(|_| tour_task(state));
            let t = state.settings.with(|s| s.threshold);
            id.and_then(|id| score_one(state, &id))
                .and_then(|s| {
                    let e = s.result.as_ref().ok()?;
                    let verdict = if e.passes(t) { "PASS" } else { "FAIL" };
                    Some((
                        crate::ui::format::similarity(e.best_similarity),
                        format!("similarity: {verdict} at threshold {t}"),
                    ))
                })
                .unwrap_or_else(|| ("—".into(), "no answer to this task yet".into()))
        }
        5 => {
            let t = state.settings.with(|s| s.threshold);
            let ids: Vec<String> = state.answers.with(|a| a.keys().cloned().collect());
            let scored: Vec<bool> =
                ids.iter().filter_map(|id| score_one(state, id)).map(|s| s.passes(t)).collect();
            if scored.is_empty() {
                ("—".into(), "no answers scored yet".into())
            } else {
                let passed = scored.iter().filter(|p| **p).count();
                (format!("{passed} / {}", scored.len()), format!("answers pass at threshold {t}"))
            }
        }
        _ => ("?".into(), "which function is it?".into()),
    }
}

/// The header's buttons: start the tour, presenter mode.
#[component]
pub fn TourButtons(step: RwSignal<Option<usize>>) -> impl IntoView {
    let presenter =
        RwSignal::new(local::get(KEY_PRESENTER).ok().flatten().as_deref() == Some("on"));
    Effect::new(move |_| {
        let on = presenter.get();
        set_root_class(PRESENTER, on);
        let _ = local::set(KEY_PRESENTER, if on { "on" } else { "off" });
    });
    view! {
        <span class="mode-buttons">
            <button type="button" id="tour-start" on:click=move |_| step.set(Some(0))><span class="wide-word">"Guided "</span>"tour"</button>
            <button type="button" id="presenter-toggle" aria-pressed=move || presenter.get().to_string()
                on:click=move |_| presenter.update(|p| *p = !*p)><span class="on-mark" aria-hidden="true">"✓ "</span>"Present"<span class="wide-word">"er mode"</span></button>
        </span>
    }
}

/// The tour's panel (when `step` is set).
#[component]
pub fn Tour(step: RwSignal<Option<usize>>) -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let prepare_error = RwSignal::new(None::<String>);
    // Entering a step: its page, then what it opens once drawn.
    Effect::new(move |_| {
        let Some(i) = step.get() else {
            set_root_class(TOURING, false);
            return;
        };
        set_root_class(TOURING, true);
        set_hash(step_hash(state, i).trim_start_matches('#'));
        if let Some(sel) = STEPS[i].open {
            open_when_drawn(sel, 40);
        }
    });
    let go = move |delta: isize| {
        step.update(|s| {
            if let Some(i) = s {
                *i = (*i as isize + delta).clamp(0, STEPS.len() as isize - 1) as usize;
            }
        });
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        // A key a control used already (a chart's arrows, a slider's) is
        // not the tour's.
        if step.get_untracked().is_none() || ev.default_prevented() || typing(&ev) {
            return;
        }
        match ev.key().as_str() {
            "ArrowRight" | "PageDown" => go(1),
            "ArrowLeft" | "PageUp" => go(-1),
            "Escape" => step.set(None),
            _ => return,
        }
        ev.prevent_default();
        ev.stop_immediate_propagation();
    });
    on_cleanup(move || keys.remove());
    move || {
        let i = step.get()?;
        let s = &STEPS[i];
        let (number, what) = key_number(state, i);
        let ready = state.tasks.with(|t| !t.is_empty()) && state.answers.with(|a| !a.is_empty());
        Some(view! {
            <aside id="tour" class="tour" role="dialog" aria-modal="false" aria-labelledby="tour-title" data-step=i.to_string()>
                <p class="muted small">{format!("Guided tour · step {} of {} · → next, ← back, Esc to leave", i + 1, STEPS.len())}</p>
                <h2 id="tour-title">{s.title}</h2>
                <p class="tour-key" id="tour-key"><span class="tour-number">{number}</span>" "<span class="tour-what">{what}</span></p>
                <p>{s.text}</p>
                {(i == 0 && !ready).then(|| view! {
                    <p><button type="button" id="tour-prepare" on:click=move |_| {
                        try_demo(state, runner, prepare_error, "");
                    }>"Prepare the demo (build its prompts, score its sample answers)"</button></p>
                })}
                {move || prepare_error.get().map(|e| view! { <p class="fail">{e}</p> })}
                <p class="row tour-nav">
                    <button type="button" id="tour-prev" on:click=move |_| go(-1) disabled=i == 0>"← Back"</button>
                    {if i + 1 < STEPS.len() {
                        view! { <button type="button" class="primary" id="tour-next" on:click=move |_| go(1)>"Next →"</button> }.into_any()
                    } else {
                        view! { <button type="button" class="primary" id="tour-next" on:click=move |_| step.set(None)>"Finish"</button> }.into_any()
                    }}
                    <button type="button" id="tour-close" on:click=move |_| step.set(None)>"Leave the tour (Esc)"</button>
                </p>
            </aside>
        })
    }
}

/// Open `selector` once it is on the page (a page draws after the route
/// changes, a task's answer after its score): tried every 100 ms, `tries`
/// times.
fn open_when_drawn(selector: &'static str, tries: u32) {
    if open_details(selector) || tries == 0 {
        return;
    }
    set_timeout(
        move || open_when_drawn(selector, tries - 1),
        std::time::Duration::from_millis(100),
    );
}

/// Whether a key press is typing into a field (the tour leaves those).
fn typing(ev: &leptos::ev::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    if ev.alt_key() || ev.ctrl_key() || ev.meta_key() {
        return true;
    }
    ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).is_some_and(|el| {
        matches!(el.tag_name().to_ascii_lowercase().as_str(), "input" | "textarea" | "select")
            || el.closest("[contenteditable]").ok().flatten().is_some()
    })
}
