//! The Dataset page: load the built-in demo, a URL, or a local file (picker
//! or drag-and-drop) — the loading itself is `jobs::dataset` — and show
//! what the loaded dataset holds, the settings panel and "New session".

use leptos::prelude::*;

use crate::ui::browser::dom::picked_files;
use crate::ui::components::drop_zone::DropZone;
use crate::ui::components::progress::Progress;
use crate::ui::components::settings_panel::SettingsPanel;
use crate::ui::error::UiError;
use crate::ui::jobs::dataset::{fail, load_demo, load_file, load_url, new_session};
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::use_runner;
use crate::ui::state::run::use_run_state;
use crate::ui::state::use_state;

#[component]
pub fn DatasetPage() -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let model = use_model_run().runner;
    let rs = use_run_state();
    let url = RwSignal::new(String::new());

    let on_file = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        if let Some(file) = files.into_iter().next() {
            load_file(state, runner, file);
        }
        // Choosing the same file again should load it again.
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let on_drop = move |files: Vec<web_sys::File>| match files.into_iter().next() {
        Some(f) => load_file(state, runner, f),
        None => fail(state, &UiError::invalid("Nothing to load: drop a .json or .json.gz file.")),
    };

    view! {
        <section class="card" id="dataset">
            <h2>"Dataset"</h2>
            <p>"A RepoQA dataset file (" <code>".json"</code> " or " <code>".json.gz"</code>
               ", the official schema). Everything stays in this browser."</p>
            <div class="load-options">
                <button type="button" id="load-demo" on:click=move |_| load_demo(state, runner)>"Use the built-in demo"</button>
                <form class="url-form" on:submit=move |ev| {
                    ev.prevent_default();
                    let u = url.get_untracked().trim().to_string();
                    if u.is_empty() { fail(state, &UiError::invalid("Enter the URL of a dataset file.")); } else { load_url(state, runner, u); }
                }>
                    <input type="url" id="dataset-url" placeholder="https://…/repoqa-2024-04-20.json.gz"
                        prop:value=move || url.get()
                        on:input=move |ev| url.set(event_target_value(&ev)) />
                    <button type="submit" id="load-url">"Load URL"</button>
                </form>
                <label class="file-pick">"Or a file: "
                    <input type="file" id="dataset-file" accept=".json,.gz,application/json,application/gzip" on:change=on_file />
                </label>
                // The browser's own label says "No file chosen" once the input
                // is reset after a load: say what is loaded instead.
                <span class="muted" id="dataset-file-name">
                    {move || state.dataset.with(|d| d.as_ref().map(|d| format!("loaded: {}", d.origin)))}
                </span>
            </div>
            <DropZone id="drop-zone" label="Drop a dataset file here" on_drop=on_drop/>
            <Progress/>
            {move || state.dataset_error.get().map(|e| view! {
                <p class="fail error-box" id="dataset-error" role="alert">{e}</p>
            })}
        </section>
        <DatasetSummary/>
        <SettingsPanel/>
        <section class="card">
            <h2>"Session"</h2>
            <p>"The dataset, settings, built tasks and answers are kept in this browser (IndexedDB) until you start over."</p>
            <button type="button" id="new-session" on:click=move |_| new_session(state, runner, model, rs)>"New session"</button>
        </section>
    }
}

/// What the loaded dataset holds, by language.
#[component]
fn DatasetSummary() -> impl IntoView {
    let state = use_state();
    view! {
        {move || state.dataset.get().map(|d| {
            let ds = d.dataset.clone();
            let rows: Vec<(String, usize, usize, usize)> = ds.languages.iter().map(|(lang, repos)| {
                let files: usize = repos.iter().map(|r| r.content.len()).sum();
                let needles: usize = repos.iter().map(|r| r.needles.len()).sum();
                (lang.clone(), repos.len(), files, needles)
            }).collect();
            let repos: usize = rows.iter().map(|r| r.1).sum();
            let nlang = rows.len();
            view! {
                <section class="card" id="dataset-summary" data-needles=ds.needle_count().to_string()
                    data-repos=repos.to_string() data-languages=nlang.to_string()>
                    <h2>"Loaded: " <span id="dataset-origin">{d.origin.clone()}</span></h2>
                    <p>{format!("{nlang} languages, {repos} repos, {} needles (= tasks).", ds.needle_count())}</p>
                    <table class="grid">
                        <thead><tr><th>"Language"</th><th>"Repos"</th><th>"Files"</th><th>"Needles"</th></tr></thead>
                        <tbody>
                            {rows.into_iter().map(|(l, r, f, n)| view! {
                                <tr data-lang=l.clone()><td>{l.clone()}</td><td>{r}</td><td>{f}</td><td>{n}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    <p><a href="#tasks">"Build and browse the tasks →"</a></p>
                </section>
            }
        })}
    }
}
