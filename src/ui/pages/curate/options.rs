//! The curation options: language, entry directory, repo name, seed, a
//! descriptions file; and the Curate / Stop buttons.

use leptos::prelude::*;
use repoqa::code::lang::Language;
use repoqa::curate::{default_seed, directories_of, EntryMatch};

use crate::ui::browser::dom::{picked_files, target_value};
use crate::ui::jobs::curate::{load_descriptions, run, use_curator};

#[component]
pub fn CurateOptionsCard() -> impl IntoView {
    let cur = use_curator();
    let st = cur.st;
    let on_descriptions = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        if let Some(f) = files.into_iter().next() {
            load_descriptions(cur, f);
        }
        if let Some(i) = input {
            i.set_value("");
        }
    };
    view! {
        {move || st.input.get().map(|input| {
            let counts: Vec<(Language, usize)> = input.counts.iter().copied().filter(|c| c.1 > 0).collect();
            let input2 = input.clone();
            let directories = move || st.language.get().map(|l| directories_of(&input2.files, l)).unwrap_or_default();
            view! {
                <section class="card" id="curate-options">
                    <h2>"Options"</h2>
                    <p id="curate-input" class="muted">{input.summary.clone()}</p>
                    <div class="settings-grid">
                        <label>"Language "
                            <select id="curate-language" on:change=move |ev| {
                                st.language.set(Language::from_name(&target_value(&ev)).ok());
                                st.entry.set(".".into());
                            }>
                                {counts.into_iter().map(|(l, n)| view! {
                                    <option value=l.name() selected=move || st.language.get() == Some(l)>{format!("{} ({n} files)", l.name())}</option>
                                }).collect_view()}
                            </select>
                        </label>
                        <label>"Entry directory "
                            <select id="curate-entry" on:change=move |ev| st.entry.set(target_value(&ev))>
                                {move || directories().into_iter().map(|d| {
                                    let label = if d == "." { ". (the whole repository)".to_string() } else { d.clone() };
                                    let d2 = d.clone();
                                    view! { <option value=d selected=move || st.entry.get() == d2>{label}</option> }
                                }).collect_view()}
                            </select>
                        </label>
                        <label title="Directory: the files inside the entry directory. Prefix: upstream's rule, path.startswith(entry), which made the official dataset (src/black also takes src/blackd/…).">"Entry match "
                            <select id="curate-entry-match" on:change=move |ev| {
                                st.entry_match.set(EntryMatch::from_name(&target_value(&ev)).unwrap_or_default());
                            }>
                                <option value="directory" selected=move || st.entry_match.get() == EntryMatch::Directory>"directory (its files)"</option>
                                <option value="prefix" selected=move || st.entry_match.get() == EntryMatch::Prefix>"prefix (upstream's startswith)"</option>
                            </select>
                        </label>
                        <label>"Repository (owner/name) "
                            <input type="text" id="curate-repo" prop:value=move || st.repo.get()
                                on:input=move |ev| st.repo.set(target_value(&ev)) />
                        </label>
                        <label>"Seed "
                            <input type="text" id="curate-seed" inputmode="numeric" prop:value=move || st.seed.get()
                                placeholder=move || format!("{} (crc32 of the name)", default_seed(st.repo.get().trim()))
                                on:input=move |ev| st.seed.set(target_value(&ev)) />
                        </label>
                        <label>"Descriptions (JSON, optional) "
                            <input type="file" id="curate-descriptions" accept=".json,application/json" on:change=on_descriptions />
                        </label>
                    </div>
                    <p class="note" id="curate-descriptions-name">{move || match st.descriptions_name.get() {
                        Some(n) => format!("{} descriptions from {n}.", st.descriptions.with(|d| d.len())),
                        None => "No descriptions file: write them below after curating, or download the template.".to_string(),
                    }}</p>
                    <button type="button" class="primary" id="curate-run" on:click=move |_| run(cur)
                        disabled=move || cur.runner.busy()>"Curate"</button>
                    " "
                    <button type="button" id="curate-stop" style:display=move || if st.curating.get() { "" } else { "none" }
                        on:click=move |_| cur.runner.cancel()>"Stop"</button>
                </section>
            }
        })}
    }
}
