//! The Curate page (`#curate`): make a RepoQA dataset from the user's own
//! repository, in the page. A folder (picked with `webkitdirectory`) or an
//! archive (.zip, .tar, .tar.gz; picked or dropped) is read into memory,
//! the core's `repoqa::curate` does the rest (files, dependencies,
//! functions, the seeded needle sample) exactly as `repoqa curate` does,
//! and the user writes the missing needle descriptions here.
//!
//! Sizes are refused by the files' `size` before anything is read; reading
//! yields to the browser between files and slices, with progress text.
//! Everything taken from the user's files is shown as text (Leptos text
//! nodes and `value` properties), never as HTML. The state lives in memory
//! for the session (`state::curate`) and is kept across a reload
//! (`jobs::curate_keep`); the reading and curating are `jobs::curate`'s,
//! on the page's own job line. Without a repository at hand, a sample from
//! the demo dataset can be curated.

mod collection;
mod options;
mod result;

use leptos::prelude::*;

use self::collection::CurateCollection;
use self::options::CurateOptionsCard;
use self::result::CurateResult;
use crate::ui::browser::dom::{folder_picker, picked_files};
use crate::ui::components::drop_zone::DropZone;
use crate::ui::jobs::curate::{load_input, load_sample, use_curator, SAMPLE_REPO};
use crate::ui::jobs::curate_keep::{keep, restore};

#[component]
pub fn CuratePage() -> impl IntoView {
    let cur = use_curator();
    let st = cur.st;
    // The last visit's work comes back; this visit's is kept as it changes.
    restore(cur);
    keep(cur);
    let folder_ref = folder_picker();

    let on_folder = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        load_input(cur, files, true);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let on_archive = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        load_input(cur, files, false);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let on_drop = move |files: Vec<web_sys::File>| match files.len() {
        1 => load_input(cur, files, false),
        0 => st.error.set(Some(
            "Nothing to read: drop a .zip or .tar.gz file (for a folder, use the folder picker)."
                .into(),
        )),
        n => st.error.set(Some(format!(
            "{n} files dropped: drop one archive, or pick a folder with the folder picker."
        ))),
    };

    view! {
        <section class="card" id="curate">
            <h2>"Curate a dataset from your repository"</h2>
            <p>"Pick a repository folder, or a " <code>".zip"</code> ", " <code>".tar"</code> " or " <code>".tar.gz"</code>
               " of it. The files stay in this browser; the curation is the one of " <code>"repoqa curate"</code>
               " (upstream rules: files, dependencies, functions, 10 needles sampled with the seed)."</p>
            <div class="load-options">
                <label class="file-pick">"Folder: "
                    <input type="file" id="curate-folder" node_ref=folder_ref multiple=true on:change=on_folder
                        disabled=move || cur.runner.busy() />
                </label>
                <label class="file-pick">"Archive: "
                    <input type="file" id="curate-archive" accept=".zip,.tar,.gz,.tgz,application/zip,application/gzip,application/x-tar"
                        on:change=on_archive disabled=move || cur.runner.busy() />
                </label>
            </div>
            <DropZone id="curate-drop" label="Drop a .zip or .tar.gz here" on_drop=on_drop/>
            <p class="row">
                <button type="button" id="curate-sample" on:click=move |_| load_sample(cur) disabled=move || cur.runner.busy()>
                    {format!("No repository at hand? Try the sample: {SAMPLE_REPO}")}</button>
                <span class="muted">" (a real Rust crate from the demo dataset, with its needle descriptions)"</span>
            </p>
            <p id="curate-status" class="muted" role="status" aria-live="polite" data-busy=move || cur.runner.busy().to_string() data-steps=move || cur.runner.finished().to_string()>
                {move || cur.status()}
            </p>
            {move || st.restored_note.get().map(|m| view! { <p class="note" id="curate-kept">{m}</p> })}
            {move || st.error.get().map(|e| view! { <p class="fail error-box" id="curate-error" role="alert">{e}</p> })}
        </section>
        <CurateOptionsCard/>
        <CurateResult/>
        <CurateCollection/>
    }
}
