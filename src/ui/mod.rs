//! The web app (wasm only). The UI calls the core (`repoqa::*`); it
//! computes nothing itself.
//!
//! Floors, each importing only from the floors below it (checked by
//! `tests/ui_layers.rs`):
//!
//! | floor | module | what |
//! |---|---|---|
//! | 0 | `error`, `format` | the UI's error type; numbers as text |
//! | 1 | `browser/` | the clock, yielding, fetch/read with progress, downloads, clipboard, DOM values |
//! | 2 | `storage/` | IndexedDB and localStorage |
//! | 3 | `state/` | the app state: signals, settings, derived scores, the route |
//! | 4 | `jobs/` | the job runner and the long jobs on it |
//! | 5 | `components/` | view pieces used by several pages |
//! | 6 | `pages/` | one module per page |
//! | 7 | this file | the app shell: header, navigation, the current page |

mod browser;
mod components;
mod error;
mod format;
mod jobs;
mod pages;
mod state;
mod storage;

use leptos::prelude::*;

use self::browser::dom::{current_hash, publish_global};
use self::browser::time::now_ms;
use self::components::tour::{Tour, TourButtons};
use self::jobs::curate::Curator;
use self::jobs::Runner;
use self::pages::{
    about, coreqa, curate, dataset, home, leaderboard, results, run, task_view, tasks, teach,
    verify,
};
use self::state::route::Page;
use self::state::AppState;

#[component]
pub fn App() -> impl IntoView {
    let app_state = AppState::new();
    let runner = Runner::new();
    provide_context(app_state);
    provide_context(runner);
    provide_context(Curator::new());
    provide_context(state::route::TaskListView::new());
    provide_context(jobs::run::ModelRun::new());
    provide_context(state::run::RunState::new());
    provide_context(state::reviewers::LeaderboardState::new());
    provide_context(state::coreqa::CoreqaState::new());
    provide_context(state::reviewers::VerifyState::new(app_state));
    // The last session (or the demo dataset on a first visit).
    jobs::dataset::restore_session(app_state, runner);
    let page = RwSignal::new(Page::from_hash(&current_hash()));
    // Each view opens at its top; going back to one seen before returns to
    // where the user was in it (the scroll position is kept per hash).
    let scroll_of = StoredValue::new_local(std::collections::HashMap::<String, f64>::new());
    let shown = StoredValue::new_local(current_hash());
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = current_hash();
        let y = web_sys::window().and_then(|w| w.scroll_y().ok()).unwrap_or(0.0);
        let left = shown.get_value();
        scroll_of.update_value(|m| {
            m.insert(left, y);
        });
        shown.set_value(hash.clone());
        let back_to = scroll_of.with_value(|m| m.get(&hash).copied()).unwrap_or(0.0);
        page.set(Page::from_hash(&hash));
        request_animation_frame(move || {
            if let Some(w) = web_sys::window() {
                w.scroll_to_with_x_and_y(0.0, back_to);
            }
        });
    });
    on_cleanup(move || on_hash.remove());

    // Each route names itself in the document title.
    Effect::new(move |_| {
        let title = page.with(Page::title);
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            doc.set_title(&title);
        }
    });

    // Navigation-to-mount time, read by the browser smoke test and shown on
    // the About page.
    publish_global("__repoqaMountedMs", &now_ms().into());

    // The guided tour's step (None: no tour).
    let tour_step = RwSignal::new(None::<usize>);

    view! {
        <header class="top">
            // The first tab stop: past the header and its ten links to the page.
            // Inside the header (a landmark), as axe's "region" rule asks.
            // (Not href="#app-main": the fragment is the route.)
            <a class="skip-link" id="skip-link" href="" on:click=move |ev| {
                ev.prevent_default();
                if let Some(main) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app-main")) {
                    use wasm_bindgen::JsCast;
                    if let Ok(el) = main.dyn_into::<web_sys::HtmlElement>() {
                        let _ = el.focus();
                    }
                }
            }>"Skip to the page"</a>
            <h1><a href="#">"RepoQA Web"</a></h1>
            <p class="tagline">"Searching Needle Function, scored locally with the official rules."</p>
            <nav>
                <a href="#" class:active=move || page.with(|p| p.section() == "home")>"Home"</a>
                <a href="#dataset" id="nav-dataset" class:active=move || page.with(|p| p.section() == "dataset")>"Dataset"</a>
                <a href="#tasks" id="nav-tasks" class:active=move || page.with(|p| p.section() == "tasks")>"Tasks"</a>
                <a href="#run" id="nav-run" class:active=move || page.with(|p| p.section() == "run")>"Run"</a>
                <a href="#results" id="nav-results" class:active=move || page.with(|p| p.section() == "results")>"Results"</a>
                <a href="#curate" id="nav-curate" class:active=move || page.with(|p| p.section() == "curate")>"Curate"</a>
                <a href="#coreqa" id="nav-coreqa" class:active=move || page.with(|p| p.section() == "coreqa")>"CoReQA"</a>
                <a href="#leaderboard" id="nav-leaderboard" class:active=move || page.with(|p| p.section() == "leaderboard")>"Leaderboard"</a>
                <a href="#verify" id="nav-verify" class:active=move || page.with(|p| p.section() == "verify")>"Verify"</a>
                <a href="#teach" id="nav-teach" class:active=move || page.with(|p| p.section() == "teach")>"Teach"</a>
                <a href="#about" class:active=move || page.with(|p| p.section() == "about")>"About"<span class="wide-word">" / self-check"</span></a>
            </nav>
            <TourButtons step=tour_step/>
        </header>
        {move || {
            // The built tasks' protocol first, else the one chosen.
            let protocol = app_state
                .tasks
                .with(|ts| ts.first().map(|t| t.protocol))
                .filter(|p| !p.is_official())
                .or_else(|| app_state.settings.with(|s| (!s.build.protocol.is_official()).then_some(s.build.protocol)));
            protocol.map(|p| view! {
                <p class="warning protocol-banner" id="protocol-banner" data-protocol=p.as_str()>
                    {format!("{}. Prompts built and scores computed with it are not comparable with published RepoQA scores. ", p.label())}
                    <a href="#dataset">"Settings"</a>
                </p>
            })
        }}
        <Tour step=tour_step/>
        <main id="app-main" data-mounted="true" tabindex="-1">
            {move || match page.get() {
                Page::Home => view! { <home::Home/> }.into_any(),
                Page::About => view! { <about::About/> }.into_any(),
                Page::Dataset => view! { <dataset::DatasetPage/> }.into_any(),
                Page::Tasks => view! { <tasks::TasksPage/> }.into_any(),
                Page::Task(id) => view! { <task_view::TaskView id=id/> }.into_any(),
                Page::Results => view! { <results::ResultsPage/> }.into_any(),
                Page::Run => view! { <run::RunPage/> }.into_any(),
                Page::Curate => view! { <curate::CuratePage/> }.into_any(),
                Page::Coreqa => view! { <coreqa::CoreqaPage/> }.into_any(),
                Page::Leaderboard => view! { <leaderboard::LeaderboardPage/> }.into_any(),
                Page::Verify => view! { <verify::VerifyPage/> }.into_any(),
                Page::Teach => view! { <teach::TeachPage/> }.into_any(),
            }}
        </main>
    }
}
