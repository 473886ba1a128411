//! Loading the CoReQA page's files (picked, dropped, or the demo's), each
//! told apart and read by the core (`repoqa::coreqa::files`), and keeping
//! them in IndexedDB so a reload finds them.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::coreqa::files::{read_coreqa_file, MAX_COREQA_FILE_BYTES};
use serde::{Deserialize, Serialize};

use crate::ui::browser::fetch::{fetch_bytes, read_blob};
use crate::ui::error::UiError;
use crate::ui::state::coreqa::{CoreqaState, LoadedCoreqa};
use crate::ui::storage;

/// Where the loaded files are kept.
const KEY_FILES: &str = "coreqa-files";

/// The demo (Trunk copies `public/demo/coreqa/` to `demo/coreqa/`): four
/// questions about the demo's semver crate, and answers and verdicts from
/// the project's test model server (a deterministic stand-in, not a model).
pub const DEMO_FILES: [&str; 5] = [
    "semver-qa.jsonl",
    "answers-good-model.jsonl",
    "answers-weak-model.jsonl",
    "judge-scores.jsonl",
    "pairwise-none.jsonl",
];

#[derive(Serialize, Deserialize)]
struct Saved {
    name: String,
    text: String,
}

fn parse(name: String, bytes: Vec<u8>) -> Result<LoadedCoreqa, UiError> {
    let file = read_coreqa_file(&bytes, &name)?;
    // read_coreqa_file checked the bytes are UTF-8.
    let text: Arc<str> = String::from_utf8_lossy(&bytes).into();
    Ok(LoadedCoreqa { name, text, file: Arc::new(file) })
}

async fn save(st: CoreqaState) -> Result<(), UiError> {
    let saved: Vec<Saved> = st.files.with_untracked(|fs| {
        fs.iter().map(|f| Saved { name: f.name.clone(), text: f.text.to_string() }).collect()
    });
    storage::save_json(KEY_FILES, &serde_json::to_string(&saved)?).await
}

fn report(st: CoreqaState, loaded: Vec<String>, errors: Vec<String>) {
    st.status.set(Some(if errors.is_empty() {
        Ok(format!("Loaded {}.", loaded.join(", ")))
    } else {
        Err(errors.join(" "))
    }));
}

/// Load picked or dropped files.
pub fn load_files(st: CoreqaState, files: Vec<web_sys::File>) {
    spawn_local(async move {
        let (mut loaded, mut errors) = (Vec::new(), Vec::new());
        for f in files {
            let name = f.name();
            let r = async {
                let size = f.size() as u64;
                if size > MAX_COREQA_FILE_BYTES {
                    return Err(UiError::TooLarge {
                        what: name.clone(),
                        size: size as usize,
                        max: MAX_COREQA_FILE_BYTES as usize,
                    });
                }
                parse(name.clone(), read_blob(&f, &name).await?)
            }
            .await;
            match r {
                Ok(l) => {
                    loaded.push(format!("{} ({}, {})", l.name, l.file.kind(), l.file.len()));
                    st.add(l);
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        if let Err(e) = save(st).await {
            errors.push(format!("Not saved for the next visit: {e}"));
        }
        report(st, loaded, errors);
    });
}

/// Load the demo's files.
pub fn load_demo(st: CoreqaState) {
    st.status.set(Some(Ok("Loading the demo…".into())));
    spawn_local(async move {
        let (mut loaded, mut errors) = (Vec::new(), Vec::new());
        for name in DEMO_FILES {
            let r = async {
                parse(name.to_string(), fetch_bytes(&format!("demo/coreqa/{name}")).await?)
            }
            .await;
            match r {
                Ok(l) => {
                    loaded.push(l.name.clone());
                    st.add(l);
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        if let Err(e) = save(st).await {
            errors.push(format!("Not saved for the next visit: {e}"));
        }
        report(st, loaded, errors);
    });
}

/// Read back the files saved by an earlier visit (once per page load).
pub fn restore(st: CoreqaState) {
    if st.restored.get_untracked() {
        return;
    }
    st.restored.set(true);
    spawn_local(async move {
        let saved = match storage::load_json(KEY_FILES).await {
            Ok(Some(json)) => serde_json::from_str::<Vec<Saved>>(&json).unwrap_or_default(),
            _ => return,
        };
        let mut errors = Vec::new();
        for s in saved {
            match parse(s.name, s.text.into_bytes()) {
                Ok(l) if st.files.with_untracked(|fs| fs.iter().all(|f| f.name != l.name)) => {
                    st.add(l)
                }
                Ok(_) => {}
                Err(e) => errors.push(e.to_string()),
            }
        }
        if !errors.is_empty() {
            st.status.set(Some(Err(errors.join(" "))));
        }
    });
}

/// Remove one file (`None`: all of them).
pub fn remove(st: CoreqaState, name: Option<String>) {
    st.files.update(|fs| fs.retain(|f| name.as_ref().is_some_and(|n| &f.name != n)));
    spawn_local(async move {
        let r = if st.files.with_untracked(Vec::is_empty) {
            storage::delete(KEY_FILES).await
        } else {
            save(st).await
        };
        if let Err(e) = r {
            st.status.set(Some(Err(format!("Not saved for the next visit: {e}"))));
        }
    });
}
