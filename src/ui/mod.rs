//! The web app (wasm only). The UI calls the core (`repoqa::*`); it computes
//! nothing itself.

mod about;
mod answers;
mod assets;
mod build;
mod charts;
mod curate_page;
mod dataset_page;
mod download;
pub mod model_api;
mod pager;
mod progress;
mod results;
mod scoring;
mod settings;
pub mod state;
pub mod storage;
mod tasks;

use leptos::prelude::*;

/// Which page is shown; kept in the URL hash so a reload stays put.
#[derive(Clone, PartialEq, Eq)]
enum Page {
    Home,
    Dataset,
    Tasks,
    /// One task, by task id ("lang::owner/repo::name").
    Task(String),
    Results,
    Curate,
    About,
}

impl Page {
    fn from_hash(hash: &str) -> Page {
        let h = hash.trim_start_matches('#');
        if let Some(id) = h.strip_prefix("task/") {
            // The id is URI-encoded (it holds "/" and ":").
            let id = js_sys::decode_uri_component(id)
                .map(String::from)
                .unwrap_or_else(|_| id.to_string());
            return Page::Task(id);
        }
        match h {
            "about" => Page::About,
            "dataset" => Page::Dataset,
            "tasks" => Page::Tasks,
            "results" => Page::Results,
            "curate" => Page::Curate,
            _ => Page::Home,
        }
    }

    /// The nav entry this page belongs to.
    fn section(&self) -> &'static str {
        match self {
            Page::Home => "home",
            Page::Dataset => "dataset",
            Page::Tasks | Page::Task(_) => "tasks",
            Page::Results => "results",
            Page::Curate => "curate",
            Page::About => "about",
        }
    }
}

fn current_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

#[component]
pub fn App() -> impl IntoView {
    let app_state = state::AppState::new();
    provide_context(app_state);
    provide_context(curate_page::CurateState::new());
    // The last session (or the demo dataset on a first visit).
    dataset_page::restore_session(app_state);
    let page = RwSignal::new(Page::from_hash(&current_hash()));
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        page.set(Page::from_hash(&current_hash()));
    });
    on_cleanup(move || on_hash.remove());

    // Navigation-to-mount time, read by the browser smoke test and shown on
    // the About page.
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let ms = perf.now();
        let _ = js_sys::Reflect::set(&js_sys::global(), &"__repoqaMountedMs".into(), &ms.into());
    }

    view! {
        <header class="top">
            <h1><a href="#">"RepoQA Web"</a></h1>
            <p class="tagline">"Searching Needle Function, scored locally with the official rules."</p>
            <nav>
                <a href="#" class:active=move || page.with(|p| p.section() == "home")>"Home"</a>
                <a href="#dataset" id="nav-dataset" class:active=move || page.with(|p| p.section() == "dataset")>"Dataset"</a>
                <a href="#tasks" id="nav-tasks" class:active=move || page.with(|p| p.section() == "tasks")>"Tasks"</a>
                <a href="#results" id="nav-results" class:active=move || page.with(|p| p.section() == "results")>"Results"</a>
                <a href="#curate" id="nav-curate" class:active=move || page.with(|p| p.section() == "curate")>"Curate"</a>
                <a href="#about" class:active=move || page.with(|p| p.section() == "about")>"About / self-check"</a>
            </nav>
        </header>
        <main id="app-main" data-mounted="true">
            {move || match page.get() {
                Page::Home => view! { <Home/> }.into_any(),
                Page::About => view! { <about::About/> }.into_any(),
                Page::Dataset => view! { <dataset_page::DatasetPage/> }.into_any(),
                Page::Tasks => view! { <tasks::TasksPage/> }.into_any(),
                Page::Task(id) => view! { <tasks::TaskView id=id/> }.into_any(),
                Page::Results => view! { <results::ResultsPage/> }.into_any(),
                Page::Curate => view! { <curate_page::CuratePage/> }.into_any(),
            }}
        </main>
    }
}

#[component]
fn Home() -> impl IntoView {
    view! {
        <section class="card">
            <h2>"What is a needle test?"</h2>
            <p>
                "A repository's code is cut into a ~16k-token context with one \"needle\" function placed at a chosen depth. "
                "The model reads an instruction, the code, a plain-language description of the needle, and the instruction again, "
                "and must repeat the needle function. Its answer is compared with every needle of the repository by smoothed BLEU: "
                "it passes when the closest one is the right one and the similarity clears the threshold (0.8 by default)."
            </p>
            <p>"Everything runs in this page: tree-sitter grammars for six languages and the CodeLlama tokenizer are compiled into it."</p>
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
