//! The web app (wasm only). The UI calls the core (`repoqa::*`); it computes
//! nothing itself.

mod about;
mod assets;
pub mod state;

use leptos::prelude::*;

/// Which page is shown; kept in the URL hash so a reload stays put.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Page {
    Home,
    About,
}

impl Page {
    fn from_hash(hash: &str) -> Page {
        match hash.trim_start_matches('#') {
            "about" => Page::About,
            _ => Page::Home,
        }
    }
}

fn current_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

#[component]
pub fn App() -> impl IntoView {
    provide_context(state::AppState::new());
    let page = RwSignal::new(Page::from_hash(&current_hash()));
    let on_hash = window_event_listener(leptos::ev::hashchange, move |_| {
        page.set(Page::from_hash(&current_hash()));
    });
    on_cleanup(move || on_hash.remove());

    // Navigation-to-mount time, read by the browser smoke test and shown on
    // the About page.
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let ms = perf.now();
        let _ = js_sys::Reflect::set(
            &js_sys::global(),
            &"__repoqaMountedMs".into(),
            &ms.into(),
        );
    }

    view! {
        <header class="top">
            <h1><a href="#">"RepoQA Web"</a></h1>
            <p class="tagline">"Searching Needle Function, scored locally with the official rules."</p>
            <nav>
                <a href="#" class:active=move || page.get() == Page::Home>"Home"</a>
                <a href="#about" class:active=move || page.get() == Page::About>"About / self-check"</a>
            </nav>
        </header>
        <main id="app-main" data-mounted="true">
            {move || match page.get() {
                Page::Home => view! { <Home/> }.into_any(),
                Page::About => view! { <about::About/> }.into_any(),
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
    }
}
