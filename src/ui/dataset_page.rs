//! The Dataset page: load the built-in demo, a URL, or a local file (picker
//! or drag-and-drop), read it with a progress bar, check it with the core's
//! `DatasetLoader` in slices (whose errors name the file, place and field), and
//! show what it holds. Also restoring the saved session at startup.

use std::sync::Arc;

use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::dataset::{Dataset, DatasetLoader, Phase};
use serde_json::{json, Value};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::progress::{bytes_label, now_ms, yield_to_browser, Progress};
use super::settings::SettingsPanel;
use super::state::{use_state, AppState, Job, LoadedDataset, Settings};
use super::{build, settings, storage};

/// The built-in demo dataset (copied into dist/demo/ by Trunk).
pub const DEMO_URL: &str = "demo/repoqa-demo.json";

/// Larger files are refused: the page would run out of memory parsing them
/// (the official dataset is 37 MB of JSON).
pub const MAX_DATASET_BYTES: usize = 1 << 30;

/// Uploaded files up to this size are kept in IndexedDB for the next visit.
const MAX_STORED_BYTES: usize = 512 << 20;

/// Slice size when reading a local file.
const FILE_SLICE: f64 = 8.0 * 1024.0 * 1024.0;

/// Where a dataset came from (stored as `dataset-ref`).
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Demo,
    Url(String),
    File(String),
}

impl Source {
    fn to_json(&self) -> String {
        match self {
            Source::Demo => json!({"kind": "demo"}),
            Source::Url(u) => json!({"kind": "url", "url": u}),
            Source::File(n) => json!({"kind": "file", "name": n}),
        }
        .to_string()
    }

    fn from_json(text: &str) -> Option<Source> {
        let v: Value = serde_json::from_str(text).ok()?;
        match v.get("kind")?.as_str()? {
            "demo" => Some(Source::Demo),
            "url" => Some(Source::Url(v.get("url")?.as_str()?.to_string())),
            "file" => Some(Source::File(v.get("name")?.as_str()?.to_string())),
            _ => None,
        }
    }

    fn origin(&self) -> String {
        match self {
            Source::Demo => "demo (repoqa-demo.json)".into(),
            Source::Url(u) => u.clone(),
            Source::File(n) => n.clone(),
        }
    }
}

fn too_large(what: &str, size: usize, max: usize) -> String {
    format!(
        "{what} is {} — larger than the {} this page accepts. Use the command-line tool (`repoqa`) for it, or a smaller file.",
        bytes_label(size),
        bytes_label(max)
    )
}

/// GET `url` as bytes, reading the body as a stream so the progress bar
/// moves and `max` is enforced before everything is in memory.
pub async fn fetch_with_progress(
    state: AppState,
    url: &str,
    what: &str,
    max: usize,
) -> Result<Vec<u8>, String> {
    state.cancel.set(false);
    state.job.set(Job::Running { what: format!("{what}: connecting"), done: 0, total: 0 });
    let resp = gloo_net::http::Request::get(url).send().await.map_err(|e| {
        format!(
            "Could not fetch {url}: {e}. The server may be down, the address wrong, or — if it is another site — \
             it does not allow this page to read it (CORS: it must send Access-Control-Allow-Origin)."
        )
    })?;
    if !resp.ok() {
        return Err(format!(
            "Could not fetch {url}: HTTP {} {}",
            resp.status(),
            resp.status_text()
        ));
    }
    let total: usize =
        resp.headers().get("content-length").and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    if total > max {
        return Err(too_large(url, total, max));
    }
    let Some(body) = resp.body() else { return Ok(Vec::new()) };
    let reader: web_sys::ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|_| format!("{url}: the response body cannot be read as a stream"))?;
    let mut out: Vec<u8> = Vec::with_capacity(total);
    let mut last_update = now_ms();
    loop {
        if state.cancel.get_untracked() {
            let _ = reader.cancel();
            return Err(format!("Cancelled while downloading {url}."));
        }
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|e| format!("Download of {url} failed: {}", storage::js_error("read", &e)))?;
        let done = js_sys::Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        if let Ok(value) = js_sys::Reflect::get(&chunk, &"value".into()) {
            let arr: Uint8Array = value.unchecked_into();
            let old = out.len();
            let n = arr.length() as usize;
            if old + n > max {
                let _ = reader.cancel();
                return Err(too_large(url, old + n, max));
            }
            out.resize(old + n, 0);
            arr.copy_to(&mut out[old..]);
        }
        if now_ms() - last_update > 50.0 {
            last_update = now_ms();
            let label = if total > 0 {
                format!("{what}: {} of {}", bytes_label(out.len()), bytes_label(total))
            } else {
                format!("{what}: {}", bytes_label(out.len()))
            };
            state.job.set(Job::Running { what: label, done: out.len(), total });
        }
    }
    Ok(out)
}

/// Read a local file in slices (progress, cancel, never one huge copy that
/// blocks the page).
pub async fn read_file_with_progress(
    state: AppState,
    file: &web_sys::File,
    what: &str,
    max: usize,
) -> Result<Vec<u8>, String> {
    state.cancel.set(false);
    let name = file.name();
    let size = file.size();
    if size > max as f64 {
        return Err(too_large(&name, size as usize, max));
    }
    let total = size as usize;
    let mut out: Vec<u8> = Vec::with_capacity(total);
    let mut start = 0.0;
    while start < size {
        if state.cancel.get_untracked() {
            return Err(format!("Cancelled while reading {name}."));
        }
        state.job.set(Job::Running {
            what: format!("{what} {name}: {} of {}", bytes_label(out.len()), bytes_label(total)),
            done: out.len(),
            total,
        });
        let end = (start + FILE_SLICE).min(size);
        let blob =
            file.slice_with_f64_and_f64(start, end).map_err(|e| storage::js_error(&name, &e))?;
        let buf = JsFuture::from(blob.array_buffer())
            .await
            .map_err(|e| format!("Could not read {name}: {}", storage::js_error("read", &e)))?;
        let arr = Uint8Array::new(&buf);
        let old = out.len();
        out.resize(old + arr.length() as usize, 0);
        arr.copy_to(&mut out[old..]);
        start = end;
    }
    Ok(out)
}

/// Main-thread time per slice of dataset reading before the page gets a
/// turn (input, paint).
const READ_SLICE_MS: f64 = 25.0;

/// Bytes of JSON per loader step; steps repeat until the slice's time is up.
const READ_STEP_BYTES: usize = 256 << 10;

/// Inflate, parse and check `bytes` as a dataset a slice at a time
/// (`DatasetLoader`), with progress and Cancel, so a 200 MB file never
/// freezes the page: only a single repo is parsed in one go.
async fn read_dataset(state: AppState, bytes: &[u8], origin: &str) -> Result<Dataset, String> {
    state.cancel.set(false);
    let mut loader = DatasetLoader::new(bytes, origin);
    loop {
        let p = loader.progress();
        let what = match p.phase {
            Phase::Inflating => format!(
                "Decompressing {origin}: {} of {}",
                bytes_label(p.done),
                bytes_label(p.total)
            ),
            _ => format!(
                "Reading {origin}: {} of {}, {} repos",
                bytes_label(p.done),
                bytes_label(p.total),
                p.repos
            ),
        };
        state.job.set(Job::Running { what, done: p.done, total: p.total });
        yield_to_browser().await;
        if state.cancel.get_untracked() {
            return Err(format!("Cancelled while reading {origin}; the previous dataset is kept."));
        }
        let start = now_ms();
        let mut finished = false;
        while !finished && now_ms() - start < READ_SLICE_MS {
            finished = loader.step(READ_STEP_BYTES);
        }
        if finished {
            return loader.finish().map_err(|e| e.to_string());
        }
    }
}

/// What to do with a dataset's bytes in IndexedDB.
#[derive(Clone, PartialEq)]
enum Bytes {
    /// An upload: keep the file for the next visit.
    Save(web_sys::File),
    /// Restored from storage: they are there already.
    Keep,
    /// The demo or a URL: fetched again next time.
    Forget,
}

/// Check `bytes` as a dataset and make it the current one.
async fn adopt_dataset(
    state: AppState,
    bytes: Vec<u8>,
    source: Source,
    policy: Bytes,
) -> Result<(), String> {
    let origin = source.origin();
    let dataset = read_dataset(state, &bytes, &origin).await?;
    let digest = storage::sha256_hex(&bytes).await?;
    let changed = state.dataset_digest.get_untracked().as_deref() != Some(digest.as_str());
    let needles = dataset.needle_count();
    state.dataset.set(Some(LoadedDataset { dataset: Arc::new(dataset), origin: origin.clone() }));
    state.dataset_digest.set(Some(digest));
    state.dataset_error.set(None);
    if changed {
        state.tasks.set(Vec::new());
        state.tasks_key.set(None);
        state.build_stats.set(None);
    }
    let prior = storage::load_json(storage::KEY_DATASET_REF)
        .await
        .ok()
        .flatten()
        .and_then(|t| Source::from_json(&t));
    if changed && prior.is_some() && prior.as_ref() != Some(&source) {
        // The language/repo choices were about another dataset.
        settings::update(state, |s| {
            s.languages.clear();
            s.excluded_repos.clear();
        });
    }
    let mut note = String::new();
    if let Bytes::Save(file) = &policy {
        if bytes.len() <= MAX_STORED_BYTES {
            if let Err(e) = storage::save_blob(storage::KEY_DATASET_BYTES, file).await {
                note = format!(" (not remembered for the next visit: {e})");
            }
        } else {
            note = " (too large to remember for the next visit)".into();
        }
    } else if policy == Bytes::Forget {
        let _ = storage::delete(storage::KEY_DATASET_BYTES).await;
    }
    if let Err(e) = storage::save_json(storage::KEY_DATASET_REF, &source.to_json()).await {
        note = format!(" (not remembered for the next visit: {e})");
    }
    state.job.set(Job::Done(format!("Loaded {origin}: {needles} needles.{note}")));
    if let Err(e) = build::restore_cached(state).await {
        web_sys::console::warn_1(&format!("tasks cache: {e}").into());
    }
    Ok(())
}

/// A dataset could not be loaded: the error box says why (the progress
/// line is cleared rather than repeating it).
fn fail(state: AppState, message: String) {
    state.dataset_error.set(Some(message));
    state.job.set(Job::Idle);
}

/// A job is running: say so (loading now would race with it).
fn busy(state: AppState) -> bool {
    let Job::Running { what, .. } = state.job.get_untracked() else { return false };
    state.dataset_error.set(Some(format!(
        "Busy ({what}): wait for it to finish or press Cancel, then load again."
    )));
    true
}

pub fn load_demo(state: AppState) {
    if busy(state) {
        return;
    }
    spawn_local(async move {
        let r = async {
            let bytes =
                fetch_with_progress(state, DEMO_URL, "Downloading the demo", MAX_DATASET_BYTES)
                    .await?;
            adopt_dataset(state, bytes, Source::Demo, Bytes::Forget).await
        }
        .await;
        if let Err(e) = r {
            fail(state, e);
        }
    });
}

pub fn load_url(state: AppState, url: String) {
    if busy(state) {
        return;
    }
    spawn_local(async move {
        let r = async {
            let bytes = fetch_with_progress(state, &url, "Downloading", MAX_DATASET_BYTES).await?;
            adopt_dataset(state, bytes, Source::Url(url.clone()), Bytes::Forget).await
        }
        .await;
        if let Err(e) = r {
            fail(state, e);
        }
    });
}

pub fn load_file(state: AppState, file: web_sys::File) {
    if busy(state) {
        return;
    }
    spawn_local(async move {
        let name = file.name();
        let r = async {
            let bytes = read_file_with_progress(state, &file, "Reading", MAX_DATASET_BYTES).await?;
            adopt_dataset(state, bytes, Source::File(name.clone()), Bytes::Save(file.clone())).await
        }
        .await;
        if let Err(e) = r {
            fail(state, e);
        }
    });
}

/// At startup: settings, then the dataset of the last visit (the demo on
/// the first), then its cached tasks.
pub fn restore_session(state: AppState) {
    spawn_local(async move {
        if let Ok(Some(text)) = storage::load_json(storage::KEY_SETTINGS).await {
            state.settings.set(settings::from_json(&text));
        }
        let source = match storage::load_json(storage::KEY_DATASET_REF).await {
            Ok(Some(t)) => Source::from_json(&t).unwrap_or(Source::Demo),
            _ => Source::Demo,
        };
        let r = async {
            let bytes = match &source {
                Source::Demo => fetch_with_progress(state, DEMO_URL, "Downloading the demo", MAX_DATASET_BYTES).await?,
                Source::Url(u) => fetch_with_progress(state, u, "Downloading", MAX_DATASET_BYTES).await?,
                Source::File(name) => match storage::load_bytes(storage::KEY_DATASET_BYTES).await? {
                    Some(b) => b,
                    None => {
                        return Err(format!(
                            "The file {name} of the last session was not kept (too large?): choose it again."
                        ))
                    }
                },
            };
            let policy = if matches!(source, Source::File(_)) { Bytes::Keep } else { Bytes::Forget };
            adopt_dataset(state, bytes, source.clone(), policy).await?;
            Ok::<(), String>(())
        }
        .await;
        if let Err(e) = r {
            fail(state, e);
        }
        state.restored.set(true);
    });
}

/// "New session": forget everything stored, then start over with the demo.
pub fn new_session(state: AppState) {
    let ok = web_sys::window()
        .and_then(|w| w.confirm_with_message("Start a new session? This forgets the dataset, settings, tasks, answers and results stored in this browser.").ok())
        .unwrap_or(false);
    if !ok {
        return;
    }
    spawn_local(async move {
        if let Err(e) = storage::clear_all().await {
            state.job.set(Job::Failed(format!("Could not clear the stored session: {e}")));
            return;
        }
        state.settings.set(Settings::default());
        state.dataset.set(None);
        state.dataset_digest.set(None);
        state.dataset_error.set(None);
        state.tasks.set(Vec::new());
        state.tasks_key.set(None);
        state.build_stats.set(None);
        state.answers.set(Default::default());
        state.scoring.options.set(Default::default());
        state.scoring.model_name.set("model".to_string());
        state.scoring.eval_date.set(String::new());
        state.tokenizer.set(None);
        state.tokenizer_id.set(None);
        state.job.set(Job::Idle);
        load_demo(state);
    });
}

#[component]
pub fn DatasetPage() -> impl IntoView {
    let state = use_state();
    let url = RwSignal::new(String::new());
    let dragging = RwSignal::new(false);

    let on_file = move |ev: leptos::ev::Event| {
        let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(file) = input.as_ref().and_then(|i| i.files()).and_then(|f| f.get(0)) {
            load_file(state, file);
        }
        // Choosing the same file again should load it again.
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let file = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0));
        match file {
            Some(f) => load_file(state, f),
            None => fail(state, "Nothing to load: drop a .json or .json.gz file.".into()),
        }
    };

    view! {
        <section class="card" id="dataset">
            <h2>"Dataset"</h2>
            <p>"A RepoQA dataset file (" <code>".json"</code> " or " <code>".json.gz"</code>
               ", the official schema). Everything stays in this browser."</p>
            <div class="load-options">
                <button type="button" id="load-demo" on:click=move |_| load_demo(state)>"Use the built-in demo"</button>
                <form class="url-form" on:submit=move |ev| {
                    ev.prevent_default();
                    let u = url.get_untracked().trim().to_string();
                    if u.is_empty() { fail(state, "Enter the URL of a dataset file.".into()); } else { load_url(state, u); }
                }>
                    <input type="url" id="dataset-url" placeholder="https://…/repoqa-2024-04-20.json.gz"
                        prop:value=move || url.get()
                        on:input=move |ev| url.set(event_target_value(&ev)) />
                    <button type="submit" id="load-url">"Load URL"</button>
                </form>
                <label class="file-pick">"Or a file: "
                    <input type="file" id="dataset-file" accept=".json,.gz,application/json,application/gzip" on:change=on_file />
                </label>
            </div>
            <div id="drop-zone" class="drop-zone" class:dragging=move || dragging.get()
                on:dragover=move |ev: leptos::ev::DragEvent| { ev.prevent_default(); dragging.set(true); }
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop>
                "Drop a dataset file here"
            </div>
            <Progress/>
            {move || state.dataset_error.get().map(|e| view! {
                <p class="fail error-box" id="dataset-error" role="alert">{e}</p>
            })}
        </section>
        <DatasetSummary/>
        <SettingsPanel/>
        <section class="card">
            <h2>"Session"</h2>
            <p>"The dataset, settings, built tasks and answers are kept in this browser (IndexedDB) until you start over."</p>
            <button type="button" id="new-session" on:click=move |_| new_session(state)>"New session"</button>
        </section>
    }
}

/// What the loaded dataset holds, by language.
#[component]
fn DatasetSummary() -> impl IntoView {
    let state = use_state();
    view! {
        {move || state.dataset.get().map(|d| {
            let ds = d.dataset.clone();
            let rows: Vec<(String, usize, usize, usize)> = ds.languages.iter().map(|(lang, repos)| {
                let files: usize = repos.iter().map(|r| r.content.len()).sum();
                let needles: usize = repos.iter().map(|r| r.needles.len()).sum();
                (lang.clone(), repos.len(), files, needles)
            }).collect();
            let repos: usize = rows.iter().map(|r| r.1).sum();
            let nlang = rows.len();
            view! {
                <section class="card" id="dataset-summary" data-needles=ds.needle_count().to_string()
                    data-repos=repos.to_string() data-languages=nlang.to_string()>
                    <h2>"Loaded: " <span id="dataset-origin">{d.origin.clone()}</span></h2>
                    <p>{format!("{nlang} languages, {repos} repos, {} needles (= tasks).", ds.needle_count())}</p>
                    <table class="grid">
                        <thead><tr><th>"Language"</th><th>"Repos"</th><th>"Files"</th><th>"Needles"</th></tr></thead>
                        <tbody>
                            {rows.into_iter().map(|(l, r, f, n)| view! {
                                <tr data-lang=l.clone()><td>{l.clone()}</td><td>{r}</td><td>{f}</td><td>{n}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    <p><a href="#tasks">"Build and browse the tasks →"</a></p>
                </section>
            }
        })}
    }
}
