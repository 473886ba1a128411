//! Building the tasks in the page with the core's `ContextBuilder`, in
//! chunks: a few tasks, then a yield to the browser, so the page keeps
//! answering clicks and the cancel button works. Built tasks are cached in
//! IndexedDB under (dataset digest, prompt settings, tokenizer digest), a
//! file with one task's JSON per line.
//!
//! Also the tokenizer: which file (built-in, URL, uploaded), its digest
//! (for the cache key) and the parsed `Tokenizer` (only when building).

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use repoqa::context::{self, ContextBuilder, Task};
use repoqa::tokenize::Tokenizer;

use super::dataset_page::{fetch_with_progress, read_file_with_progress};
use super::progress::{now_ms, yield_to_browser};
use super::state::{AppState, BuildStats, Job};
use super::{assets, settings, storage};

/// Largest stretch of work between two yields. Building one task can take
/// longer on its own (the first task of a repo parses all its files); the
/// chunk then holds that one task.
const CHUNK_BUDGET_MS: f64 = 30.0;

/// A tokenizer file larger than this is not a tokenizer.json.
const MAX_TOKENIZER_BYTES: usize = 64 << 20;

thread_local! {
    /// The bytes of the tokenizer whose digest is `AppState::tokenizer_id`,
    /// kept until they are parsed (parsing is only needed to build).
    static TOKENIZER_BYTES: RefCell<Option<(Vec<u8>, String)>> = const { RefCell::new(None) };
}

/// The tasks cache key for the current dataset, settings and tokenizer.
pub fn cache_key(state: AppState) -> Option<String> {
    let digest = state.dataset_digest.get_untracked()?;
    let tok = state.tokenizer_id.get_untracked()?;
    let prompts = settings::prompt_key(&state.settings.get_untracked());
    Some(format!("{}{digest}:{prompts}:tok={tok}", storage::TASKS_PREFIX))
}

/// Forget the loaded tokenizer (after the source changed).
fn reset_tokenizer(state: AppState) {
    state.tokenizer.set(None);
    state.tokenizer_id.set(None);
    TOKENIZER_BYTES.with(|t| *t.borrow_mut() = None);
}

pub fn use_builtin_tokenizer(state: AppState) {
    reset_tokenizer(state);
    settings::update(state, |s| s.tokenizer_source = "builtin".into());
}

/// Load and check a tokenizer.json from a URL, and make it current.
pub async fn use_tokenizer_from_url(state: AppState, url: &str) -> Result<String, String> {
    let bytes =
        fetch_with_progress(state, url, "Downloading the tokenizer", MAX_TOKENIZER_BYTES).await?;
    adopt_tokenizer(state, bytes, url.to_string(), url.to_string()).await
}

/// Load and check an uploaded tokenizer.json, keep its bytes in IndexedDB,
/// and make it current.
pub async fn use_tokenizer_from_file(
    state: AppState,
    file: web_sys::File,
) -> Result<String, String> {
    let name = file.name();
    let bytes =
        read_file_with_progress(state, &file, "Reading the tokenizer", MAX_TOKENIZER_BYTES).await?;
    // Checked before it replaces the stored one: a bad file must not
    // spoil the tokenizer the next visit restores.
    let msg = adopt_tokenizer(state, bytes.clone(), format!("file:{name}"), name).await?;
    storage::save_bytes(storage::KEY_TOKENIZER_BYTES, &bytes)
        .await
        .map_err(|e| format!("{msg} It could not be kept for the next visit: {e}"))?;
    Ok(msg)
}

async fn adopt_tokenizer(
    state: AppState,
    bytes: Vec<u8>,
    source: String,
    origin: String,
) -> Result<String, String> {
    state.job.set(Job::Running { what: "Checking the tokenizer".into(), done: 0, total: 0 });
    yield_to_browser().await;
    let tok = match Tokenizer::from_json_bytes(&bytes, &origin) {
        Ok(t) => t,
        Err(e) => {
            state.job.set(Job::Failed(e.to_string()));
            return Err(e.to_string());
        }
    };
    let digest = storage::sha256_hex(&bytes).await?;
    let vocab = tok.vocab_size();
    state.tokenizer.set(Some(Arc::new(tok)));
    state.tokenizer_id.set(Some(digest));
    settings::update(state, |s| s.tokenizer_source = source);
    let msg = format!("Tokenizer {origin}: {vocab} tokens in the vocabulary.");
    state.job.set(Job::Done(msg.clone()));
    Ok(msg)
}

/// The tokenizer file of the current settings, with its origin.
async fn tokenizer_bytes(state: AppState) -> Result<(Vec<u8>, String), String> {
    if let Some(b) = TOKENIZER_BYTES.with(|t| t.borrow().clone()) {
        return Ok(b);
    }
    let source = state.settings.get_untracked().tokenizer_source;
    if source == "builtin" {
        let bytes = assets::fetch_bytes(assets::TOKENIZER_URL).await?;
        Ok((bytes, assets::TOKENIZER_URL.to_string()))
    } else if let Some(name) = source.strip_prefix("file:") {
        match storage::load_bytes(storage::KEY_TOKENIZER_BYTES).await? {
            Some(b) => Ok((b, name.to_string())),
            None => Err(format!(
                "the tokenizer file {name} is no longer stored; choose it again in Settings"
            )),
        }
    } else {
        let bytes =
            fetch_with_progress(state, &source, "Downloading the tokenizer", MAX_TOKENIZER_BYTES)
                .await?;
        Ok((bytes, source))
    }
}

/// Make sure `tokenizer_id` is known (fetching the file, not parsing it).
pub async fn ensure_tokenizer_id(state: AppState) -> Result<String, String> {
    if let Some(id) = state.tokenizer_id.get_untracked() {
        return Ok(id);
    }
    let (bytes, origin) = tokenizer_bytes(state).await?;
    let id = storage::sha256_hex(&bytes).await?;
    TOKENIZER_BYTES.with(|t| *t.borrow_mut() = Some((bytes, origin)));
    state.tokenizer_id.set(Some(id.clone()));
    Ok(id)
}

/// The parsed tokenizer of the current settings.
async fn ensure_tokenizer(state: AppState) -> Result<Arc<Tokenizer>, String> {
    if let (Some(t), Some(_)) =
        (state.tokenizer.get_untracked(), state.tokenizer_id.get_untracked())
    {
        return Ok(t);
    }
    ensure_tokenizer_id(state).await?;
    let (bytes, origin) = tokenizer_bytes(state).await?;
    let tok = Arc::new(Tokenizer::from_json_bytes(&bytes, &origin).map_err(|e| e.to_string())?);
    TOKENIZER_BYTES.with(|t| *t.borrow_mut() = None);
    state.tokenizer.set(Some(tok.clone()));
    Ok(tok)
}

/// Put cached tasks for the current dataset/settings/tokenizer in place, if
/// there are any. Returns whether it did.
pub async fn restore_cached(state: AppState) -> Result<bool, String> {
    if state.dataset_digest.get_untracked().is_none() {
        return Ok(false);
    }
    ensure_tokenizer_id(state).await?;
    let Some(key) = cache_key(state) else { return Ok(false) };
    let t0 = now_ms();
    let text = match storage::load_bytes(&key).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(false),
        Err(e) => {
            // An older form of the cache (a text): drop it and rebuild.
            let _ = storage::delete(&key).await;
            web_sys::console::warn_1(&format!("tasks cache dropped: {e}").into());
            return Ok(false);
        }
    };
    // One task per line, read a slice at a time: 500 tasks are ~30 MB of
    // JSON, one long stop of the page if parsed at once.
    let total = text.iter().filter(|&&b| b == b'\n').count() + 1;
    let what = format!("Reading {total} saved tasks");
    let job_before = state.job.get_untracked();
    state.job.set(Job::Running { what: what.clone(), done: 0, total });
    let mut tasks: Vec<Arc<Task>> = Vec::with_capacity(total);
    let mut slice_start = now_ms();
    for line in text.split(|&b| b == b'\n') {
        match serde_json::from_slice::<Task>(line) {
            Ok(t) => tasks.push(Arc::new(t)),
            Err(e) => {
                // A damaged (or older-format) record: drop it and rebuild.
                let _ = storage::delete(&key).await;
                web_sys::console::warn_1(
                    &format!("tasks cache dropped (task {}): {e}", tasks.len() + 1).into(),
                );
                state.job.set(job_before);
                return Ok(false);
            }
        }
        if now_ms() - slice_start > CHUNK_BUDGET_MS {
            state.job.set(Job::Running { what: what.clone(), done: tasks.len(), total });
            yield_to_browser().await;
            slice_start = now_ms();
        }
    }
    let stats = BuildStats {
        tasks: tasks.len(),
        ms: now_ms() - t0,
        max_chunk_ms: 0.0,
        chunks: 0,
        from_cache: true,
    };
    publish_stats(&stats);
    state.tasks.set(tasks);
    state.tasks_key.set(Some(key));
    state
        .job
        .set(Job::Done(format!("{} tasks restored from this browser's storage.", stats.tasks)));
    state.build_stats.set(Some(stats));
    Ok(true)
}

/// Start building the tasks (unless a job runs already).
pub fn start_build(state: AppState) {
    if matches!(state.job.get_untracked(), Job::Running { .. }) {
        return;
    }
    state.cancel.set(false);
    state.job.set(Job::Running { what: "Preparing".into(), done: 0, total: 0 });
    leptos::task::spawn_local(async move {
        if let Err(e) = build(state).await {
            state.job.set(Job::Failed(e));
        }
        state.cancel.set(false);
    });
}

async fn build(state: AppState) -> Result<(), String> {
    let Some(loaded) = state.dataset.get_untracked() else {
        return Err("No dataset is loaded: load one on the Dataset page first.".into());
    };
    if restore_cached(state).await? {
        return Ok(());
    }
    state.job.set(Job::Running { what: "Loading the tokenizer".into(), done: 0, total: 0 });
    yield_to_browser().await;
    let tok = ensure_tokenizer(state).await?;
    let Some(key) = cache_key(state) else { return Err("internal: no cache key".into()) };
    let settings = state.settings.get_untracked();
    let dataset = loaded.dataset.clone();
    let langs = settings::selected_languages(&settings);
    let specs: Vec<_> = context::task_specs(&dataset, langs.as_deref())
        .into_iter()
        .filter(|s| {
            let name = dataset
                .repos(s.language.name())
                .and_then(|r| r.get(s.repo_index))
                .map(|r| r.repo.as_str());
            let key = format!("{}::{}", s.language.name(), name.unwrap_or(""));
            !settings.excluded_repos.contains(&key)
        })
        .collect();
    if specs.is_empty() {
        return Err("No tasks: the selected languages and repos have no needles.".into());
    }
    let total = specs.len();
    let mut builder = ContextBuilder::new(&dataset, settings::context_options(&settings), &tok);
    let mut tasks: Vec<Arc<Task>> = Vec::with_capacity(total);
    // The cache file, a task's JSON per line, handed to the browser a task
    // at a time (one 35 MB string at the end was a long stop of the page).
    let parts = js_sys::Array::new();
    let t0 = now_ms();
    let mut max_chunk: f64 = 0.0;
    let mut chunks = 0;
    let what = format!("Building {total} tasks");
    state.job.set(Job::Running { what: what.clone(), done: 0, total });
    yield_to_browser().await;
    while tasks.len() < total {
        if state.cancel.get_untracked() {
            state.job.set(Job::Failed(format!(
                "Cancelled after {} of {total} tasks; nothing was kept. Build again to start over.",
                tasks.len()
            )));
            return Ok(());
        }
        let start = now_ms();
        while tasks.len() < total && now_ms() - start < CHUNK_BUDGET_MS {
            let spec = &specs[tasks.len()];
            let task = builder
                .build(spec)
                .map_err(|e| format!("Building task {} failed: {e}", tasks.len() + 1))?;
            let json = serde_json::to_string(&task)
                .map_err(|e| format!("cannot serialize a task: {e}"))?;
            if !tasks.is_empty() {
                parts.push(&wasm_bindgen::JsValue::from_str("\n"));
            }
            parts.push(&wasm_bindgen::JsValue::from_str(&json));
            tasks.push(Arc::new(task));
        }
        max_chunk = max_chunk.max(now_ms() - start);
        chunks += 1;
        state.job.set(Job::Running { what: what.clone(), done: tasks.len(), total });
        yield_to_browser().await;
    }
    let stats = BuildStats {
        tasks: total,
        ms: now_ms() - t0,
        max_chunk_ms: max_chunk,
        chunks,
        from_cache: false,
    };
    publish_stats(&stats);
    state.job.set(Job::Running {
        what: "Saving the tasks in this browser".into(),
        done: total,
        total,
    });
    state.tasks.set(tasks);
    state.tasks_key.set(Some(key.clone()));
    state.build_stats.set(Some(stats.clone()));
    // One task per line (serde_json's compact form has no raw newline), so
    // a reload can read it back a slice at a time. Stored as a Blob:
    // IndexedDB keeps it without cloning the text.
    yield_to_browser().await;
    let saved = match web_sys::Blob::new_with_str_sequence(&parts) {
        Ok(blob) => save_cache(&key, &blob).await,
        Err(e) => Err(storage::js_error("cannot make the cache file", &e)),
    };
    state.job.set(match saved {
        Ok(()) => Job::Done(format!("Built {total} tasks in {:.1} s.", stats.ms / 1000.0)),
        Err(e) => Job::Done(format!(
            "Built {total} tasks in {:.1} s (not saved: {e}).",
            stats.ms / 1000.0
        )),
    });
    Ok(())
}

/// Keep only this cache entry: one set of tasks is what the session uses,
/// and old ones would fill the origin's storage quota.
async fn save_cache(key: &str, file: &web_sys::Blob) -> Result<(), String> {
    for old in storage::keys().await? {
        if old.starts_with(storage::TASKS_PREFIX) && old != key {
            storage::delete(&old).await?;
        }
    }
    storage::save_blob(key, file).await
}

/// `window.__repoqaBuild`, read by the browser tests.
fn publish_stats(stats: &BuildStats) {
    let o = js_sys::Object::new();
    let set = |k: &str, v: wasm_bindgen::JsValue| {
        let _ = js_sys::Reflect::set(&o, &k.into(), &v);
    };
    set("tasks", (stats.tasks as f64).into());
    set("ms", stats.ms.into());
    set("maxChunkMs", stats.max_chunk_ms.into());
    set("chunks", (stats.chunks as f64).into());
    set("fromCache", stats.from_cache.into());
    let _ = js_sys::Reflect::set(&js_sys::global(), &"__repoqaBuild".into(), &o);
}
