//! Loading a dataset: the built-in demo, a URL, or a local file (picker or
//! drag-and-drop), read with progress, checked by the core's
//! `DatasetLoader` in slices (whose errors name the file, place and field),
//! remembered for the next visit. Also restoring the saved session at
//! startup, and starting a new one.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::input::dataset::{Dataset, DatasetLoader, Phase};
use repoqa::step::{Step, Stepper};
use serde_json::{json, Value};

use super::fetch::{fetch_with_progress, read_file_with_progress};
use super::{build, Ctx, Job, Line, Runner};
use crate::ui::browser::dom::{confirm, warn};
use crate::ui::browser::time::{now_ms, sleep_ms};
use crate::ui::error::UiError;
use crate::ui::format::bytes_label;
use crate::ui::state::run::RunState;
use crate::ui::state::{settings, AppState, LoadedDataset};
use crate::ui::storage;

/// The built-in demo dataset (copied into dist/demo/ by Trunk).
pub const DEMO_URL: &str = "demo/repoqa-demo.json";

/// Larger files are refused: the page would run out of memory parsing them
/// (the official dataset is 37 MB of JSON).
pub const MAX_DATASET_BYTES: usize = 1 << 30;

/// Uploaded files up to this size are kept in IndexedDB for the next visit.
const MAX_STORED_BYTES: usize = 512 << 20;

/// Bytes of JSON per loader step; steps repeat until the slice's time is up.
const READ_STEP_BYTES: usize = 256 << 10;

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

/// Inflate, parse and check `bytes` as a dataset a slice at a time
/// (`DatasetLoader`), with progress and Cancel, so a 200 MB file never
/// freezes the page: only a single repo is parsed in one go.
///
/// Returns the dataset and its identity (`repoqa::input::identity`: the digest of
/// its JSON text, the same for a `.json` and its `.json.gz`). A file that
/// is another of the project's files (an outputs JSONL, a SCORES file…)
/// gets a message saying where it goes instead of the parser's.
async fn read_dataset(ctx: &Ctx, bytes: &[u8], origin: &str) -> Result<(Dataset, String), UiError> {
    let wrong_kind = |e: repoqa::input::dataset::DatasetError| -> UiError {
        match repoqa::input::sniff::wrong_file(bytes, repoqa::input::sniff::FileKind::Dataset) {
            Some(hint) => UiError::invalid(format!("{origin}: {hint}")),
            None => e.into(),
        }
    };
    let mut loader = DatasetLoader::new(bytes, origin);
    loop {
        let p = loader.load_progress();
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
        ctx.progress(what, p.done, p.total);
        ctx.turn().await.map_err(|_| {
            UiError::cancelled(format!(
                "Cancelled while reading {origin}; the previous dataset is kept."
            ))
        })?;
        while !ctx.over_budget() {
            if loader.step(READ_STEP_BYTES).map_err(wrong_kind)?.is_done() {
                let mut id = repoqa::input::identity::ContentId::new(loader.json());
                while id.step(repoqa::input::identity::SLICE) == Ok(Step::More) {
                    if ctx.over_budget() {
                        // A cancel here is seen by the job's next check.
                        let _ = ctx.turn().await;
                    }
                }
                let Ok(digest) = id.finish();
                return Ok((loader.finish().map_err(wrong_kind)?, digest));
            }
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

/// Check `bytes` as a dataset and make it the current one, then put its
/// saved tasks back if there are any.
async fn adopt_dataset(
    ctx: &Ctx,
    state: AppState,
    bytes: Vec<u8>,
    source: Source,
    policy: Bytes,
) -> Result<(), UiError> {
    let origin = source.origin();
    let (dataset, digest) = read_dataset(ctx, &bytes, &origin).await?;
    let changed = state.dataset_digest.get_untracked().as_deref() != Some(digest.as_str());
    let needles = dataset.needle_count();
    state.dataset.set(Some(LoadedDataset { dataset: Arc::new(dataset), origin: origin.clone() }));
    state.dataset_digest.set(Some(digest));
    state.dataset_error.set(None);
    if changed {
        state.clear_tasks();
    }
    let prior = storage::load_json(storage::KEY_DATASET_REF)
        .await
        .ok()
        .flatten()
        .and_then(|t| Source::from_json(&t));
    if changed && prior.is_some() && prior.as_ref() != Some(&source) {
        // The language/repo choices were about another dataset.
        settings::update(state.settings, |s| {
            s.build.filter.languages.clear();
            s.build.filter.excluded_repos.clear();
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
    ctx.done(format!("Loaded {origin}: {needles} needles.{note}"));
    ctx.progress("Looking for saved tasks", 0, 0);
    if let Err(e) = build::restore_cached(ctx, state).await {
        warn(&format!("tasks cache: {e}"));
    }
    Ok(())
}

/// A dataset could not be loaded: the error box says why (the job line is
/// cleared rather than repeating it).
pub fn fail(state: AppState, error: &UiError) {
    state.dataset_error.set(Some(error.to_string()));
}

/// Run a dataset load on the main line; a failure (or a busy line) goes to
/// the Dataset page's error box.
fn load(state: AppState, runner: Runner, job: Job, source: Source, read: Read) {
    spawn_local(async move {
        let r = runner
            .run(job.quiet_errors(), move |ctx| async move {
                let (bytes, policy) = match read {
                    Read::Fetch(url, what) => (
                        fetch_with_progress(&ctx, &url, &what, MAX_DATASET_BYTES).await?,
                        Bytes::Forget,
                    ),
                    Read::File(file) => {
                        let bytes =
                            read_file_with_progress(&ctx, &file, "Reading", MAX_DATASET_BYTES)
                                .await?;
                        (bytes, Bytes::Save(file))
                    }
                };
                adopt_dataset(&ctx, state, bytes, source, policy).await
            })
            .await;
        if let Err(e) = r {
            fail(state, &e);
        }
    });
}

/// How a load gets its bytes.
enum Read {
    Fetch(String, String),
    File(web_sys::File),
}

pub fn load_demo(state: AppState, runner: Runner) {
    let what = "Downloading the demo".to_string();
    load(state, runner, Job::new(&what), Source::Demo, Read::Fetch(DEMO_URL.into(), what));
}

pub fn load_url(state: AppState, runner: Runner, url: String) {
    let read = Read::Fetch(url.clone(), "Downloading".into());
    load(state, runner, Job::new("Downloading"), Source::Url(url), read);
}

pub fn load_file(state: AppState, runner: Runner, file: web_sys::File) {
    let source = Source::File(file.name());
    load(state, runner, Job::new("Reading"), source, Read::File(file));
}

/// At startup: settings, then the dataset of the last visit (the demo on
/// the first), then its cached tasks.
pub fn restore_session(state: AppState, runner: Runner) {
    spawn_local(async move {
        let r = runner
            .run(
                // Said where the dataset and tasks are, not on whatever
                // page the app was opened at.
                Job::new("Loading the last session")
                    .quiet_errors()
                    .shown_on(&["home", "dataset", "tasks"]),
                move |ctx| async move {
                if let Ok(Some(text)) = storage::load_json(storage::KEY_SETTINGS).await {
                    state.settings.set(settings::from_json(&text));
                }
                let source = match storage::load_json(storage::KEY_DATASET_REF).await {
                    Ok(Some(t)) => Source::from_json(&t).unwrap_or(Source::Demo),
                    _ => Source::Demo,
                };
                let bytes = match &source {
                    Source::Demo => {
                        fetch_with_progress(&ctx, DEMO_URL, "Downloading the demo", MAX_DATASET_BYTES)
                            .await?
                    }
                    Source::Url(u) => {
                        fetch_with_progress(&ctx, u, "Downloading", MAX_DATASET_BYTES).await?
                    }
                    Source::File(name) => {
                        match storage::load_bytes(storage::KEY_DATASET_BYTES).await? {
                            Some(b) => b,
                            None => {
                                return Err(UiError::invalid(format!(
                                    "The file {name} of the last session was not kept (too large?): choose it again."
                                )))
                            }
                        }
                    }
                };
                let policy =
                    if matches!(source, Source::File(_)) { Bytes::Keep } else { Bytes::Forget };
                adopt_dataset(&ctx, state, bytes, source, policy).await
            })
            .await;
        if let Err(e) = r {
            fail(state, &e);
        }
        state.restored.set(true);
    });
}

/// "New session": forget everything stored, then start over with the demo.
/// A model run (on `model`, the Run page's line) is ended first: it stores
/// answers as they arrive, and none of the old session may land in the new.
pub fn new_session(state: AppState, runner: Runner, model: Runner, rs: RunState) {
    if !confirm("Start a new session? This forgets the dataset, settings, tasks, answers and results stored in this browser.") {
        return;
    }
    spawn_local(async move {
        rs.reset();
        model.cancel();
        let asked = now_ms();
        while model.busy_untracked() && now_ms() - asked < 10_000.0 {
            sleep_ms(50).await;
        }
        if let Err(e) = storage::clear_all().await {
            runner.show(Line::Failed(format!("Could not clear the stored session: {e}")));
            return;
        }
        state.reset();
        rs.reset();
        super::tokenizer::reset(state);
        runner.show(Line::Idle);
        model.show(Line::Idle);
        load_demo(state, runner);
    });
}
