//! One curated repository: its figures and warnings, downloads, the sampled
//! needles with their descriptions to write, and the model that can write
//! the missing ones.

use leptos::prelude::*;

use crate::ui::browser::dom::target_value;
use crate::ui::browser::download::download_text;
use crate::ui::components::model_api_form::ModelApiSettings;
use crate::ui::jobs::curate::{
    dataset_of, describe_with_model, file_stem, open_in_app, run, use_curator,
};
use crate::ui::jobs::use_runner;
use crate::ui::state::use_state;
use repoqa::curate::append_repo;

#[component]
pub fn CurateResult() -> impl IntoView {
    let cur = use_curator();
    let st = cur.st;
    let state = use_state();
    let main = use_runner();
    let download_error = RwSignal::new(None::<String>);
    let download = move |name: String, text: String| {
        download_error
            .set(download_text(&name, "application/json", &text).err().map(|e| e.to_string()));
    };
    view! {
        {move || st.report.get().map(|report| {
            let s = report.stats.clone();
            let needles = report.repo.needles.len();
            let ms = st.curate_ms.get_untracked().unwrap_or(0.0);
            let read_ms = st.input.with_untracked(|i| i.as_ref().map(|i| i.read_ms).unwrap_or(0.0));
            let warnings: Vec<String> = report.warnings.iter().map(|w| w.to_string()).collect();
            let sampled = report.sampled.clone();
            let (r1, r2, r3) = (report.clone(), report.clone(), report.clone());
            let stem = file_stem(&report.repo.repo);
            let stem2 = stem.clone();
            view! {
                <section class="card" id="curate-result">
                    <h2>{format!("{} ({})", report.repo.repo, report.language)}</h2>
                    <p id="curate-stats" data-files=s.files.to_string() data-functions=s.functions.to_string()
                        data-candidates=s.candidates.to_string() data-sampled=report.sampled.len().to_string()
                        data-needles=needles.to_string() data-ms=format!("{ms:.1}") data-read-ms=format!("{read_ms:.1}")>
                        {format!(
                            "{} files ({} skipped), {} characters, {} dependency edges, {} functions, {} needle candidates, {} needles sampled, {needles} with a description. Curated in {ms:.0} ms.",
                            s.files, s.skipped_files, s.chars, s.edges, s.functions, s.candidates, report.sampled.len()
                        )}
                    </p>
                    {(!warnings.is_empty()).then(|| view! {
                        <ul id="curate-warnings" class="warning" tabindex="0" aria-label="curation warnings">
                            {warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}
                        </ul>
                    })}
                    <div class="row">
                        <button type="button" id="curate-download-dataset"
                            on:click=move |_| download(format!("{stem}.json"), dataset_of(&r1).to_json_string())>"Download dataset JSON"</button>
                        <button type="button" id="curate-download-template"
                            on:click=move |_| download(format!("{stem2}-descriptions.json"), r2.description_template() + "\n")>"Download descriptions template"</button>
                        <button type="button" id="curate-append" on:click=move |_| {
                            let r = r3.clone();
                            let replaced = st.collection.try_update(|d| append_repo(d, r.language, r.repo.clone())).unwrap_or(false);
                            st.status.set(format!("{} {} the collection.", r.repo.repo, if replaced { "replaced in" } else { "appended to" }));
                        }>"Append to dataset"</button>
                        <button type="button" id="curate-open" disabled=needles == 0 on:click={
                            let r = report.clone();
                            move |_| open_in_app(cur, state, main, &dataset_of(&r), &format!("{}.json", file_stem(&r.repo.repo)))
                        }>"Open in the app"</button>
                    </div>
                    <p class="muted" id="curate-open-note">{move || if needles == 0 {
                        "Open in the app needs a needle with a description: none has one yet (write them below).".to_string()
                    } else {
                        match state.dataset.with(|d| d.as_ref().map(|d| d.origin.clone())) {
                            Some(o) => format!("Open in the app replaces the dataset loaded now ({o}) with this repository's {}.", crate::ui::format::count(needles, "needle", "needles")),
                            None => format!("Open in the app loads this repository's {} as the app's dataset.", crate::ui::format::count(needles, "needle", "needles")),
                        }
                    }}</p>
                    {move || download_error.get().map(|e| view! { <p class="fail error-box">{e}</p> })}
                    <h3>"Sampled needles"</h3>
                    <p class="note">"A needle without a description is left out of the dataset. Write the missing ones here, then apply them (the repository is curated again with them)."</p>
                    <div class="row">
                        <button type="button" id="curate-apply" on:click=move |_| run(cur) disabled=move || cur.runner.busy()>"Apply descriptions"</button>
                        <button type="button" id="curate-describe-model"
                            on:click=move |_| describe_with_model(cur)
                            disabled=move || cur.runner.busy() || st.model.with(|m| m.endpoint.validate().is_err())
                            title="Ask the model set below for the missing descriptions (the paper's annotation prompt)">
                            "Describe missing with model API"</button>
                        <button type="button" id="curate-describe-cancel"
                            style:display=move || if st.describing.get() { "" } else { "none" }
                            on:click=move |_| cur.runner.cancel()>"Stop asking"</button>
                    </div>
                    {move || st.model_message.get().map(|m| match m {
                        Ok(t) => view! { <p class="pass" id="curate-model-message">{t}</p> }.into_any(),
                        Err(e) => view! { <p class="fail" id="curate-model-message">{e}</p> }.into_any(),
                    })}
                    <details class="model-api-box" id="curate-model-api">
                        <summary>"Model API for descriptions"</summary>
                        <ModelApiSettings settings=st.model remember_key=st.remember_key />
                    </details>
                    <ol id="curate-needles">
                        {sampled.into_iter().map(|n| {
                            let code = report.needle_code(&n).unwrap_or_default();
                            let name = n.name.clone();
                            let name2 = n.name.clone();
                            let original = n.description.clone();
                            let missing = original.trim().is_empty();
                            view! {
                                <li class="needle" data-name=n.name.clone() data-missing=missing.to_string()>
                                    <p><strong>{n.name.clone()}</strong>
                                       {format!(" — {}, lines {}-{}", n.path, n.start_line + 1, n.end_line)}
                                       {missing.then(|| view! { <span class="fail">" (no description)"</span> })}</p>
                                    <pre class="code" tabindex="0" aria-label="the needle's code">{code}</pre>
                                    <textarea class="needle-description" rows="3" placeholder="What the function does, without its name"
                                        prop:value=move || st.edits.with(|e| e.get(&name).cloned().unwrap_or_else(|| original.clone()))
                                        on:input=move |ev| { let v = target_value(&ev); st.edits.update(|e| { e.insert(name2.clone(), v); }); }>
                                    </textarea>
                                </li>
                            }
                        }).collect_view()}
                    </ol>
                </section>
            }
        })}
    }
}
