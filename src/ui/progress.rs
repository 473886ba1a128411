//! The progress bar of the current long job (`AppState::job`) with its
//! cancel button (`AppState::cancel`), and the two helpers long jobs need to
//! keep the page responsive: a clock and a yield to the browser.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::state::{use_state, Job};

/// Milliseconds since navigation (`performance.now()`).
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

/// Let the browser run input handlers and paint before the next chunk of
/// work: a macrotask (`setTimeout(0)`), not a microtask, which would not
/// give the event loop a turn.
pub async fn yield_to_browser() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        if let Some(w) = web_sys::window() {
            if w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0).is_ok() {
                return;
            }
        }
        let _ = resolve.call0(&JsValue::NULL);
    });
    let _ = JsFuture::from(promise).await;
}

/// Human-readable byte count.
pub fn bytes_label(n: usize) -> String {
    let n = n as f64;
    if n >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} GiB", n / (1024.0 * 1024.0 * 1024.0))
    } else if n >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", n / (1024.0 * 1024.0))
    } else if n >= 1024.0 {
        format!("{:.1} KiB", n / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// The bar: what runs, how far it is, and a button to stop it. The
/// `data-*` attributes are read by the browser tests.
#[component]
pub fn Progress() -> impl IntoView {
    let state = use_state();
    let job = state.job;
    let data_state = move || match job.get() {
        Job::Idle => "idle",
        Job::Running { .. } => "running",
        Job::Failed(_) => "failed",
        Job::Done(_) => "done",
    };
    let percent = move || match job.get() {
        Job::Running { done, total, .. } if total > 0 => {
            (done as f64 * 100.0 / total as f64).min(100.0)
        }
        Job::Running { .. } => 0.0,
        Job::Done(_) => 100.0,
        _ => 0.0,
    };
    // Fixed elements with reactive contents: re-creating the cancel button
    // at every progress update could swallow a click.
    let running = move || matches!(job.get(), Job::Running { .. });
    let what = move || match job.get() {
        Job::Running { what, .. } => what,
        _ => String::new(),
    };
    let counts = move || match job.get() {
        Job::Running { done, total, .. } => (done, total),
        _ => (0, 0),
    };
    let message = move || match job.get() {
        Job::Idle => String::new(),
        Job::Failed(m) | Job::Done(m) => m,
        Job::Running { .. } => String::new(),
    };
    view! {
        <div id="job" class="job" data-state=data_state data-percent=move || format!("{:.0}", percent())
            role="status" aria-live="polite">
            <span class="job-running" style:display=move || if running() { "" } else { "none" }>
                <span class="job-what">{what}</span>
                <progress max="100" value=move || format!("{:.1}", percent())></progress>
                <span class="job-count" data-done=move || counts().0.to_string() data-total=move || counts().1.to_string()>
                    {move || format!("{:.0}%", percent())}
                </span>
                <button id="job-cancel" type="button" on:click=move |_| state.cancel.set(true)
                    disabled=move || state.cancel.get()>
                    {move || if state.cancel.get() { "Cancelling…" } else { "Cancel" }}
                </button>
            </span>
            <span id="job-message" class=move || match job.get() {
                Job::Failed(_) => "fail",
                Job::Done(_) => "pass",
                _ => "muted",
            }>{message}</span>
        </div>
    }
}
