//! The repos appended so far, as one dataset to download or open.

use leptos::prelude::*;
use repoqa::input::dataset::Dataset;

use crate::ui::browser::download::download_text;
use crate::ui::jobs::curate::{open_in_app, use_curator};
use crate::ui::jobs::use_runner;
use crate::ui::state::use_state;

/// The repos appended so far, as one dataset.
#[component]
pub fn CurateCollection() -> impl IntoView {
    let cur = use_curator();
    let st = cur.st;
    let state = use_state();
    let main = use_runner();
    let download_error = RwSignal::new(None::<String>);
    view! {
        {move || {
            let d = st.collection.get();
            (!d.languages.is_empty()).then(|| {
                let rows: Vec<(String, String, usize)> = d.languages.iter()
                    .flat_map(|(l, repos)| repos.iter().map(move |r| (l.clone(), r.repo.clone(), r.needles.len())))
                    .collect();
                let repos = rows.len();
                let needles = d.needle_count();
                let d2 = d.clone();
                view! {
                    <section class="card" id="curate-collection" data-repos=repos.to_string() data-needles=needles.to_string()>
                        <h2>"Dataset being assembled"</h2>
                        <p>{format!("{repos} repos, {needles} needles.")}</p>
                        <table class="grid">
                            <thead><tr><th>"Language"</th><th>"Repo"</th><th>"Needles"</th></tr></thead>
                            <tbody>{rows.into_iter().map(|(l, r, n)| view! { <tr><td>{l}</td><td>{r}</td><td>{n}</td></tr> }).collect_view()}</tbody>
                        </table>
                        <div class="row">
                            <button type="button" id="curate-download-collection" on:click=move |_| {
                                download_error.set(download_text("curated-dataset.json", "application/json", &d.to_json_string()).err().map(|e| e.to_string()));
                            }>"Download dataset JSON"</button>
                            <button type="button" id="curate-open-collection"
                                on:click=move |_| open_in_app(cur, state, main, &d2, "curated-dataset.json")>"Open in the app"</button>
                            <button type="button" id="curate-clear-collection" on:click=move |_| st.collection.set(Dataset::default())>"Clear"</button>
                        </div>
                        {move || download_error.get().map(|e| view! { <p class="fail error-box">{e}</p> })}
                    </section>
                }
            })
        }}
    }
}
