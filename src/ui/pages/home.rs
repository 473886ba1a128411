//! The home page: what a needle test is, the workflow, and what is loaded.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::browser::offline;
use crate::ui::format::bytes_label;

use crate::ui::components::progress::Progress;
use crate::ui::jobs::demo::{demo_loaded, try_demo};
use crate::ui::jobs::use_runner;
use crate::ui::state;

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <TryDemo/>
        <section class="card">
            <h2>"What is a needle test?"</h2>
            <p>
                "A repository's code is cut into a ~16k-token context with one \"needle\" function placed at a chosen depth. "
                "The model reads an instruction, the code, a plain-language description of the needle, and the instruction again, "
                "and must repeat the needle function. Its answer is compared with every needle of the repository by smoothed BLEU: "
                "it passes when the closest one is the right one and the similarity clears the threshold (0.8 by default)."
            </p>
            <p>"Everything runs in this page: tree-sitter grammars for six languages are compiled into it, and the CodeLlama tokenizer (tokenizer.json) is served with it and loaded from that file (Settings can use another)."</p>
            <p><a href="#about">"Run the self-check"</a></p>
        </section>
        <section class="card">
            <h2>"Workflow"</h2>
            <ol>
                <li><a href="#dataset">"Dataset"</a>": the built-in demo is loaded; or load the official file, a URL or your own."</li>
                <li><a href="#tasks">"Tasks"</a>": build the prompts here in the page, read them, download them as the official tasks JSONL."</li>
                <li><a href="#results">"Results"</a>": paste or import the model's answers and score them."</li>
            </ol>
            <HomeStatus/>
        </section>
        <KeepOffline/>
    }
}

#[derive(Clone)]
enum Offline {
    Asking,
    Kept(offline::Kept),
    Keeping(f64, f64),
    Failed(String),
    Unavailable(String),
}

/// What this browser keeps for offline use, and "Keep for offline" for the
/// rest (public/boot/sw.js keeps the shell and whatever a visit used).
#[component]
fn KeepOffline() -> impl IntoView {
    let shown = RwSignal::new(Offline::Asking);
    spawn_local(async move {
        shown.set(match offline::status().await {
            Ok(k) => Offline::Kept(k),
            Err(e) => Offline::Unavailable(e.to_string()),
        });
    });
    let keep = move |_| {
        shown.set(Offline::Keeping(0.0, 0.0));
        spawn_local(async move {
            let done = offline::keep_all(move |d, t| shown.set(Offline::Keeping(d, t))).await;
            shown.set(match done {
                Ok(k) => Offline::Kept(k),
                Err(e) => Offline::Failed(e.to_string()),
            });
        });
    };
    let mb = |b: f64| bytes_label(b as usize);
    view! {
        <section class="card" id="offline-card" data-state=move || match shown.get() {
            Offline::Asking => "asking",
            Offline::Kept(k) if k.missing_files == 0 => "all",
            Offline::Kept(_) => "used",
            Offline::Keeping(..) => "keeping",
            Offline::Failed(_) => "failed",
            Offline::Unavailable(_) => "unavailable",
        }>
            <h2>"Offline"</h2>
            {move || match shown.get() {
                Offline::Asking => view! { <p class="muted" id="offline-status">"Checking what this browser keeps for offline use…"</p> }.into_any(),
                Offline::Kept(k) if k.missing_files == 0 => view! {
                    <p class="pass" id="offline-status">{format!("Everything is kept for offline use in this browser ({}): every page works with the network off.", mb(k.kept_bytes))}</p>
                }.into_any(),
                Offline::Kept(k) => view! {
                    <p id="offline-status">{format!(
                        "This browser keeps the app and what you have used here for offline use ({} files, {}). The rest (the tokenizer, the demos, the published scores) is fetched when a page first needs it.",
                        k.kept_files, mb(k.kept_bytes))}</p>
                    <p><button type="button" id="offline-keep" on:click=keep>{format!("Keep for offline: {}", mb(k.missing_bytes))}</button></p>
                }.into_any(),
                Offline::Keeping(d, t) => view! {
                    <p id="offline-status" role="status">{format!("Keeping for offline: {} of {}…", mb(d), mb(t))}</p>
                }.into_any(),
                Offline::Failed(e) => view! {
                    <p class="fail" id="offline-status" role="alert">{format!("Keeping for offline stopped: {e}. What was kept stays; reload to try again.")}</p>
                }.into_any(),
                Offline::Unavailable(e) => view! {
                    <p class="muted" id="offline-status">{format!("No offline copy here: {e}. The app works online.")}</p>
                }.into_any(),
            }}
        </section>
    }
}

/// One click from a first visit to a scored table: the demo's 60 tasks
/// built, its sample answers scored, the Results page.
#[component]
fn TryDemo() -> impl IntoView {
    let st = state::use_state();
    let runner = use_runner();
    let error = RwSignal::new(None::<String>);
    view! {
        <section class="card try-demo" id="try-demo-card">
            <h2>"See it work in one click"</h2>
            {move || if demo_loaded(st) || st.dataset.with(Option::is_none) {
                view! {
                    <p>
                        <button type="button" id="try-demo" class="primary"
                            disabled=move || st.dataset.with(Option::is_none)
                            aria-disabled=move || runner.busy().to_string()
                            on:click=move |_| if !runner.busy_untracked() { try_demo(st, runner, error, "results") }>
                            "Try the demo"
                        </button>
                        " builds the demo's 60 prompts here in the page, scores 12 sample answers written by this project (some right, some wrong) and opens Results."
                    </p>
                }.into_any()
            } else {
                view! {
                    <p id="try-demo-other">"Your own dataset is loaded. The demo is on the " <a href="#dataset">"Dataset"</a> " page (loading it replaces yours)."</p>
                }.into_any()
            }}
            <Progress/>
            {move || error.get().map(|e| view! { <p class="fail error-box" id="try-demo-error" role="alert">{e}</p> })}
        </section>
    }
}

/// One line on what is loaded.
#[component]
fn HomeStatus() -> impl IntoView {
    let st = state::use_state();
    view! {
        <p class="muted" id="home-status">
            {move || match st.dataset.get() {
                None if !st.restored.get() => "Loading the last session…".to_string(),
                None => "No dataset loaded.".to_string(),
                Some(d) => format!("Dataset: {} ({} needles); {} tasks built.", d.origin, d.dataset.needle_count(), st.tasks.with(|t| t.len())),
            }}
        </p>
    }
}
