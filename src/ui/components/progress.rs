//! The main job line: what runs, how far it is, and a button to stop it.
//! The `data-*` attributes are read by the browser tests.

use leptos::prelude::*;

use crate::ui::browser::dom::current_hash;
use crate::ui::jobs::{use_runner, Line, Runner};
use crate::ui::state::route::Page;

/// A model run's line as its `data-state` says it (tracked): idle,
/// running, paused, failed or done (a flawed end is done, with
/// `data-flawed` and the failure colour).
pub fn run_state(runner: Runner) -> &'static str {
    match runner.line_signal().get() {
        Line::Idle => "idle",
        Line::Running { .. } if runner.paused() => "paused",
        Line::Running { .. } => "running",
        Line::Failed(_) => "failed",
        Line::Done(_) | Line::Flawed(_) => "done",
    }
}

/// Pause (Resume) and Cancel buttons of a model run's line:
/// `{prefix}-pause` and `{prefix}-cancel`.
#[component]
pub fn PauseCancel(runner: Runner, prefix: &'static str) -> impl IntoView {
    let busy = move || runner.busy();
    view! {
        <button type="button" id=format!("{prefix}-pause") disabled=move || !busy()
            on:click=move |_| runner.set_paused(!runner.paused())>
            {move || if runner.paused() { "Resume" } else { "Pause" }}
        </button>
        <button type="button" id=format!("{prefix}-cancel") disabled=move || !busy() || runner.cancelling()
            on:click=move |_| runner.cancel()>{move || if runner.cancelling() { "Cancelling…" } else { "Cancel" }}</button>
    }
}

#[component]
pub fn Progress() -> impl IntoView {
    let runner = use_runner();
    // An ended job's message shows only on the pages it belongs to.
    let here = Page::from_hash(&current_hash()).section();
    let line = Memo::new(move |_| runner.line_on(here));
    let data_state = move || match line.get() {
        Line::Idle => "idle",
        Line::Running { .. } => "running",
        Line::Failed(_) => "failed",
        Line::Done(_) | Line::Flawed(_) => "done",
    };
    let flawed = move || matches!(line.get(), Line::Flawed(_)).to_string();
    let percent = move || match line.get() {
        Line::Running { done, total, .. } if total > 0 => {
            (done as f64 * 100.0 / total as f64).min(100.0)
        }
        Line::Running { .. } => 0.0,
        Line::Done(_) | Line::Flawed(_) => 100.0,
        _ => 0.0,
    };
    // Fixed elements with reactive contents: re-creating the cancel button
    // at every progress update could swallow a click.
    let running = move || matches!(line.get(), Line::Running { .. });
    let what = move || match line.get() {
        Line::Running { what, .. } => what,
        _ => String::new(),
    };
    let counts = move || match line.get() {
        Line::Running { done, total, .. } => (done, total),
        _ => (0, 0),
    };
    let message = move || line.get().message().map(str::to_string).unwrap_or_default();
    view! {
        <div id="job" class="job" data-state=data_state data-flawed=flawed data-percent=move || format!("{:.0}", percent())
            role="status" aria-live="polite">
            <span class="job-running" style:display=move || if running() { "" } else { "none" }>
                <span class="job-what">{what}</span>
                <progress max="100" value=move || format!("{:.1}", percent())></progress>
                <span class="job-count" data-done=move || counts().0.to_string() data-total=move || counts().1.to_string()>
                    {move || format!("{:.0}%", percent())}
                </span>
                <button id="job-cancel" type="button" on:click=move |_| runner.cancel()
                    disabled=move || runner.cancelling()>
                    {move || if runner.cancelling() { "Cancelling…" } else { "Cancel" }}
                </button>
            </span>
            <span id="job-message" class=move || line.get().class()>{message}</span>
        </div>
    }
}
