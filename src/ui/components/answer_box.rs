//! `AnswerBox`: where the model's answer to one task is pasted, with the
//! live verdict. The text is written to `AppState.answers` (and saved) a
//! moment after typing stops, so scoring runs once per pause, not per key.
//! Answers are untrusted text: they are only ever set as text/`value`,
//! never as HTML.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use leptos::prelude::*;

use crate::ui::components::verdict_steps::VerdictSteps;
use crate::ui::format;
use crate::ui::state::answers::{ensure_answers_restored, persist_answers, score_one};
use crate::ui::state::{use_state, AppState};

/// Quiet time after the last key before the answer is committed.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// One task's answer box. `task_id` is `Task::task_id()`.
#[component]
pub fn AnswerBox(#[prop(into)] task_id: String) -> impl IntoView {
    let state = use_state();
    ensure_answers_restored(state);
    let id = StoredValue::new(task_id.clone());
    let saved = move || state.answers.with(|a| id.with_value(|id| a.get(id).cloned()));
    let text = RwSignal::new(saved().unwrap_or_default());
    // The edit waiting to be committed. Kept outside the reactive arena so a
    // commit still works while the component is being torn down (leaving the
    // page within the debounce time, or the textarea's blur on removal).
    let pending = Pending { task_id: task_id.clone(), inner: Arc::new(Mutex::new(None)) };

    // Answers arriving from elsewhere (import, restore, clear) replace the
    // text unless an edit is waiting to be committed.
    let p = pending.clone();
    Effect::new(move |_| {
        let s = saved().unwrap_or_default();
        if !p.is_waiting() && text.get_untracked() != s {
            text.set(s);
        }
    });
    let p = pending.clone();
    on_cleanup(move || p.commit(state));

    let p = pending.clone();
    let on_input = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        text.set(value.clone());
        let p2 = p.clone();
        let handle = set_timeout_with_handle(move || p2.commit(state), DEBOUNCE).ok();
        p.wait(value, handle);
        if handle.is_none() {
            p.commit(state);
        }
    };
    let p = pending.clone();
    let on_blur = move |_| p.commit(state);
    let p = pending.clone();
    let remove = move |_| {
        p.cancel();
        state.answers.update(|a| {
            a.remove(&id.get_value());
        });
        state.answers.with_untracked(persist_answers);
        text.set(String::new());
    };

    let score = Memo::new(move |_| id.with_value(|id| score_one(state, id)));
    let threshold = move || state.settings.with(|s| s.threshold);
    let verdict_state = move || match score.get() {
        None => "none",
        Some(s) => match &s.result {
            Err(e) if e.is_pending() => "pending",
            Err(_) => "error",
            Ok(_) if s.passes(threshold()) => "pass",
            Ok(_) => "fail",
        },
    };
    let verdict = move || {
        let t = threshold();
        match score.get() {
            None => view! { <span class="muted">"No answer yet. Paste the model's reply; it is scored as you type."</span> }.into_any(),
            Some(s) => match &s.result {
                Err(e) if e.is_pending() => view! { <span class="muted">"Scoring…"</span> }.into_any(),
                Err(e) => view! { <span class="fail">"Cannot score: " {e.to_string()}</span> }.into_any(),
                Ok(e) => {
                    let pass = e.passes(t);
                    let best = match &e.best_target {
                        Some(b) => format!("closest needle {b:?} (similarity {})", format::similarity(e.best_similarity)),
                        None => "no needle is similar at all (similarity 0)".to_string(),
                    };
                    let why = if pass {
                        String::new()
                    } else if !e.is_best_similar {
                        " — the closest needle is not this task's".to_string()
                    } else {
                        format!(" — similarity below the threshold {t}")
                    };
                    view! {
                        <span class=if pass { "pass" } else { "fail" }>{if pass { "PASS" } else { "FAIL" }}</span>
                        " at threshold " {t.to_string()} ": " {best} {why}
                    }
                    .into_any()
                }
            },
        }
    };
    let similarity = move || {
        score.get().and_then(|s| {
            s.result.as_ref().ok().map(|e| repoqa::python::json::float_repr(e.best_similarity))
        })
    };
    let box_id = format!("answer-{}", task_id.replace(|c: char| !c.is_ascii_alphanumeric(), "-"));

    view! {
        <div class="answer-box" data-task-id=task_id.clone() data-verdict=verdict_state data-similarity=similarity>
            <label for=box_id.clone()>"Model answer"</label>
            <textarea
                id=box_id
                class="answer-text"
                rows="10"
                spellcheck="false"
                prop:value=move || text.get()
                on:input=on_input
                on:blur=on_blur
            ></textarea>
            <div class="answer-actions">
                <p class="verdict" aria-live="polite">{verdict}</p>
                <button type="button" on:click=remove disabled=move || score.with(Option::is_none)>"Remove answer"</button>
            </div>
            // How the verdict came out, step by step (as on Results).
            {move || score.get().and_then(|s| {
                let e = s.result.as_ref().ok()?.clone();
                let output = s.output.as_ref().ok()?.clone();
                Some(view! { <VerdictSteps output=output evaluation=e needle=s.task.name.clone()/> })
            })}
        </div>
    }
}

/// The text waiting to be committed, and its debounce timer.
type Waiting = Option<(String, Option<TimeoutHandle>)>;

/// An answer typed but not yet committed to `AppState.answers`.
#[derive(Clone)]
struct Pending {
    task_id: String,
    inner: Arc<Mutex<Waiting>>,
}

impl Pending {
    fn take(&self) -> Waiting {
        self.inner.lock().ok().and_then(|mut g| g.take())
    }

    fn is_waiting(&self) -> bool {
        self.inner.lock().map(|g| g.is_some()).unwrap_or(false)
    }

    /// Replace the waiting edit (and its timer) with `text`.
    fn wait(&self, text: String, handle: Option<TimeoutHandle>) {
        if let Some((_, Some(h))) = self.take() {
            h.clear();
        }
        if let Ok(mut g) = self.inner.lock() {
            *g = Some((text, handle));
        }
    }

    fn cancel(&self) {
        if let Some((_, Some(h))) = self.take() {
            h.clear();
        }
    }

    /// Write the waiting edit, if any, to the answers and save them.
    fn commit(&self, state: AppState) {
        let Some((text, handle)) = self.take() else { return };
        if let Some(h) = handle {
            h.clear();
        }
        let changed = state
            .answers
            .try_with_untracked(|a| a.get(&self.task_id) != Some(&text))
            .unwrap_or(false);
        if changed {
            state.answers.update(|a| {
                a.insert(self.task_id.clone(), text);
            });
            state.answers.with_untracked(persist_answers);
        }
    }
}
