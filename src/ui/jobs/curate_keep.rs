//! What the Curate page keeps across a reload (issue 49): the files read,
//! the options, the descriptions (a file's and those written in the page)
//! and the dataset being assembled, in this browser's IndexedDB. A result
//! is not stored: it is curated again from what was kept (curation is
//! deterministic), so the page comes back as it was left, descriptions
//! typed and all.
//!
//! Saving waits until what was kept has been read back, so an empty page
//! never overwrites the last visit's work.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::code::lang::Language;
use repoqa::curate::{count_by_language, pack_files, unpack_files, Descriptions, EntryMatch};
use repoqa::input::dataset::Dataset;
use serde::{Deserialize, Serialize};

use super::curate::{run, Curator};
use crate::ui::error::UiError;
use crate::ui::state::curate::{CurateState, Input};
use crate::ui::storage;

const KEY_FILES: &str = "curate-files";
const KEY_STATE: &str = "curate-state";
const KEY_COLLECTION: &str = "curate-collection";

/// The options and texts of the page, and whether a result was shown.
#[derive(Serialize, Deserialize, PartialEq)]
struct Kept {
    name: String,
    summary: String,
    read_ms: f64,
    language: Option<Language>,
    entry: String,
    entry_match: EntryMatch,
    repo: String,
    seed: String,
    descriptions: Descriptions,
    descriptions_name: Option<String>,
    edits: BTreeMap<String, String>,
    curated: bool,
}

fn kept_of(st: CurateState) -> Option<Kept> {
    let (name, summary, read_ms) =
        st.input.with(|i| i.as_ref().map(|i| (i.name.clone(), i.summary.clone(), i.read_ms)))?;
    Some(Kept {
        name,
        summary,
        read_ms,
        language: st.language.get(),
        entry: st.entry.get(),
        entry_match: st.entry_match.get(),
        repo: st.repo.get(),
        seed: st.seed.get(),
        descriptions: st.descriptions.get(),
        descriptions_name: st.descriptions_name.get(),
        edits: st.edits.get(),
        curated: st.report.with(Option::is_some),
    })
}

/// Keep the page's work as it changes (while the page is shown; what
/// changes it is on the page). Errors go to the console: keeping is a
/// convenience, never in the way of the work itself.
pub fn keep(cur: Curator) {
    let st = cur.st;
    let warn = |what: &str, r: Result<(), UiError>| {
        if let Err(e) = r {
            leptos::logging::warn!("Curate: {what} not kept in this browser: {e}");
        }
    };
    // The files, when a new folder or archive is read.
    let saved_files = StoredValue::new(None::<usize>);
    Effect::new(move |_| {
        let input = st.input.get();
        if !st.restored.get() {
            return;
        }
        let Some(input) = input else { return };
        let id = Arc::as_ptr(&input) as usize;
        if saved_files.get_value() == Some(id) {
            return;
        }
        saved_files.set_value(Some(id));
        spawn_local(async move {
            warn("the files", storage::save_bytes(KEY_FILES, &pack_files(&input.files)).await)
        });
    });
    Effect::new(move |_| {
        let kept = kept_of(st);
        if !st.restored.get() {
            return;
        }
        if let Some(kept) = kept.and_then(|k| serde_json::to_string(&k).ok()) {
            spawn_local(
                async move { warn("the options", storage::save_json(KEY_STATE, &kept).await) },
            );
        }
    });
    Effect::new(move |_| {
        let json = st.collection.with(|d| (!d.languages.is_empty()).then(|| d.to_json_string()));
        if !st.restored.get() {
            return;
        }
        spawn_local(async move {
            let r = match json {
                Some(json) => storage::save_json(KEY_COLLECTION, &json).await,
                None => storage::delete(KEY_COLLECTION).await,
            };
            warn("the dataset being assembled", r);
        });
    });
}

/// Read back what was kept (once per visit), then curate again if a
/// result was shown. What cannot be read is left out (the console says
/// why); the page says what was read back.
pub fn restore(cur: Curator) {
    let st = cur.st;
    if st.restored.get_untracked() {
        return;
    }
    spawn_local(async move {
        let mut said = Vec::new();
        if let Ok(Some(json)) = storage::load_json(KEY_COLLECTION).await {
            match Dataset::from_bytes(json.as_bytes(), "the kept collection") {
                Ok(d) => {
                    said.push(format!(
                        "the dataset being assembled ({} needles)",
                        d.needle_count()
                    ));
                    st.collection.set(d);
                }
                Err(e) => leptos::logging::warn!("Curate: the kept collection is not read: {e}"),
            }
        }
        let kept = storage::load_json(KEY_STATE)
            .await
            .ok()
            .flatten()
            .and_then(|j| serde_json::from_str::<Kept>(&j).ok());
        let files =
            storage::load_bytes(KEY_FILES).await.ok().flatten().and_then(|b| unpack_files(&b));
        let mut curated = false;
        // Nothing read or picked since the page opened: this visit's own
        // input wins over the last one's.
        if let (Some(k), Some(files), true) =
            (kept, files, st.input.with_untracked(Option::is_none))
        {
            said.push(format!("{} ({} files)", k.name, files.len()));
            let counts = count_by_language(&files);
            st.input.set(Some(Arc::new(Input {
                name: k.name,
                files,
                counts,
                summary: k.summary,
                read_ms: k.read_ms,
            })));
            st.language.set(k.language);
            st.entry.set(k.entry);
            st.entry_match.set(k.entry_match);
            st.repo.set(k.repo);
            st.seed.set(k.seed);
            st.descriptions.set(k.descriptions);
            st.descriptions_name.set(k.descriptions_name);
            st.edits.set(k.edits);
            curated = k.curated;
        }
        st.restored.set(true);
        if !said.is_empty() {
            let again = if curated { "; curated again from them" } else { "" };
            st.restored_note
                .set(Some(format!("Kept from your last visit: {}{again}.", said.join(" and "))));
        }
        if curated {
            run(cur);
        }
    });
}
