//! Building the tasks in the compute engine: the page's settings as the
//! core's `repoqa::api::build::BuildPlan` (the plan `repoqa prompts` builds),
//! checked, and its shares built by the engine's `Request::Build`: a large build in a pool of Web Workers
//! (`build_pool`), a small one in the page's own engine worker a repo at a
//! time, so the page keeps answering clicks and Cancel works either way.
//! Built tasks are cached in IndexedDB under (dataset digest, prompt
//! settings, tokenizer digest), a file with one task's JSON per line.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::api::build::{BuildPlan, RepoShare};
use repoqa::engine::{Reply, Request};
use repoqa::report::Task;
use wasm_bindgen::JsValue;

use super::build_pool::{self, PoolError};
use super::{tokenizer, Ctx, Job, Runner};
use crate::ui::browser::dom::{js_object, publish_global, warn};
use crate::ui::browser::engine;
use crate::ui::browser::time::now_ms;
use crate::ui::error::UiError;
use crate::ui::state::{AppState, BuildStats};
use crate::ui::storage;

/// Largest stretch of the page's own work (reading cached tasks, handing
/// built ones over) between two turns of the page.
pub(super) const BUILD_BUDGET_MS: f64 = 30.0;

/// The tasks cache key for the current dataset, settings and tokenizer.
pub fn cache_key(state: AppState) -> Option<String> {
    let digest = state.dataset_digest.get_untracked()?;
    let tok = state.tokenizer_id.get_untracked()?;
    let key = state.settings.with_untracked(|s| s.build.clone().cache_key(&digest, &tok));
    Some(format!("{}{key}", storage::TASKS_PREFIX))
}

/// Are the tasks shown built for the current dataset, settings and
/// tokenizer? (Tracked.)
pub fn tasks_current(state: AppState) -> bool {
    let Some(key) = state.tasks_key.get() else { return false };
    let Some(digest) = state.dataset_digest.get() else { return false };
    let head = state.settings.with(|s| s.build.clone().cache_key_head(&digest));
    let head = format!("{}{head}", storage::TASKS_PREFIX);
    match state.tokenizer_id.get() {
        Some(tok) => key == format!("{head}{tok}"),
        None => key.starts_with(&head),
    }
}

/// Put cached tasks for the current dataset/settings/tokenizer in place, if
/// there are any (a step of the build and dataset jobs). Returns whether it
/// did; a damaged cache is dropped (and rebuilt later).
pub async fn restore_cached(ctx: &Ctx, state: AppState) -> Result<bool, UiError> {
    if state.dataset_digest.get_untracked().is_none() {
        return Ok(false);
    }
    tokenizer::ensure_id(ctx, state).await?;
    let Some(key) = cache_key(state) else { return Ok(false) };
    let t0 = now_ms();
    let text = match storage::load_bytes(&key).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(false),
        Err(e) => {
            // An older form of the cache (a text): drop it and rebuild.
            let _ = storage::delete(&key).await;
            warn(&format!("tasks cache dropped: {e}"));
            return Ok(false);
        }
    };
    // One task per line, read a slice at a time: 500 tasks are ~30 MB of
    // JSON, one long stop of the page if parsed at once.
    let total = text.iter().filter(|&&b| b == b'\n').count() + 1;
    ctx.progress(format!("Reading {total} saved tasks"), 0, total);
    let mut tasks: Vec<Arc<Task>> = Vec::with_capacity(total);
    for line in text.split(|&b| b == b'\n') {
        match serde_json::from_slice::<Task>(line) {
            Ok(t) => tasks.push(Arc::new(t)),
            Err(e) => {
                // A damaged (or older-format) record: drop it and rebuild.
                let _ = storage::delete(&key).await;
                warn(&format!("tasks cache dropped (task {}): {e}", tasks.len() + 1));
                return Ok(false);
            }
        }
        // Reading saved tasks is not cancelled: it is what the session had.
        let _ = ctx.tick(tasks.len(), total).await;
    }
    let stats = BuildStats {
        tasks: tasks.len(),
        ms: now_ms() - t0,
        max_chunk_ms: 0.0,
        chunks: 0,
        from_cache: true,
        workers: 0,
    };
    publish_stats(&stats);
    state.set_tasks(tasks, key, state.settings.with_untracked(|s| s.build.clone()));
    ctx.done(format!("{} tasks restored from this browser's storage.", stats.tasks));
    state.build_stats.set(Some(stats));
    Ok(true)
}

/// Build the tasks once the running job (the session restore at startup)
/// has ended, and wait for the build.
pub async fn build_queued(state: AppState, runner: Runner) -> Result<(), UiError> {
    runner
        .run(Job::new("Preparing").budget_ms(BUILD_BUDGET_MS).queue(), move |ctx| async move {
            build(&ctx, state).await
        })
        .await
}

/// Start building the tasks (unless a job runs already).
pub fn start_build(state: AppState, runner: Runner) {
    if runner.busy_untracked() {
        return;
    }
    runner.spawn(Job::new("Preparing").budget_ms(BUILD_BUDGET_MS), move |ctx| async move {
        build(&ctx, state).await
    });
}

async fn build(ctx: &Ctx, state: AppState) -> Result<(), UiError> {
    let Some(loaded) = state.dataset.get_untracked() else {
        return Err(UiError::invalid("No dataset is loaded: load one on the Dataset page first."));
    };
    if restore_cached(ctx, state).await? {
        return Ok(());
    }
    ctx.progress("Loading the tokenizer", 0, 0);
    let _ = ctx.turn().await;
    tokenizer::ensure_id(ctx, state).await?;
    let Some(key) = cache_key(state) else {
        return Err(UiError::invalid("internal: no cache key"));
    };
    let settings = state.settings.get_untracked();
    let dataset = loaded.dataset.clone();
    let build_settings = settings.build.clone();
    let plan = BuildPlan::new(build_settings.clone());
    let specs = plan.check(&dataset)?;
    let total = specs.len();
    // The cache file, a task's JSON per line, handed to the browser a task
    // at a time (one 35 MB string at the end was a long stop of the page).
    let parts = js_sys::Array::new();
    let cancelled = |done: usize| {
        UiError::cancelled(format!(
            "Cancelled after {done} of {total} tasks; nothing was kept. Build again to start over."
        ))
    };
    let what = format!("Building {total} tasks");
    ctx.progress(what.clone(), 0, total);
    ctx.turn().await.map_err(|_| cancelled(0))?;
    ctx.restart_slice_stats();
    let t0 = now_ms();
    let mut tasks: Vec<Arc<Task>> = Vec::with_capacity(total);
    let shares = plan.shares(&dataset, &specs);
    let (built, workers) = build_shares(ctx, state, &what, &shares, total, cancelled).await?;
    for b in built {
        if !tasks.is_empty() {
            parts.push(&JsValue::from_str("\n"));
        }
        parts.push(&JsValue::from_str(&b.json));
        tasks.push(b.task);
    }
    let (max_chunk_ms, chunks) = ctx.slice_stats();
    let stats = BuildStats {
        tasks: total,
        ms: now_ms() - t0,
        max_chunk_ms,
        chunks,
        from_cache: false,
        workers,
    };
    publish_stats(&stats);
    ctx.progress("Saving the tasks in this browser", total, total);
    state.set_tasks(tasks, key.clone(), build_settings);
    state.build_stats.set(Some(stats.clone()));
    // One task per line (serde_json's compact form has no raw newline), so
    // a reload can read it back a slice at a time. Stored as a Blob:
    // IndexedDB keeps it without cloning the text.
    let _ = ctx.turn().await;
    let saved = match web_sys::Blob::new_with_str_sequence(&parts) {
        Ok(blob) => save_cache(&key, &blob).await,
        Err(e) => Err(UiError::js("cannot make the cache file", &e)),
    };
    // The time is on the build's own line (Tasks page), said once.
    ctx.done(match saved {
        Ok(()) => format!("Built {total} tasks; kept in this browser for the next visit."),
        Err(e) => format!("Built {total} tasks (not kept in this browser: {e})."),
    });
    Ok(())
}

/// Build `shares` (covering `total` tasks) in Web Workers, a repo each at
/// a time; a small build in the page's engine worker (starting a pool would
/// take longer than the build). The tasks in order, and the pool's size
/// (0: the engine worker). `what` is the build's line, shown again once
/// the tokenizer (whose download has a line of its own) is in.
pub(super) async fn build_shares(
    ctx: &Ctx,
    state: AppState,
    what: &str,
    shares: &[RepoShare],
    total: usize,
    cancelled: impl Fn(usize) -> UiError,
) -> Result<(Vec<build_pool::Built>, usize), UiError> {
    let requests = build_pool::requests(shares)?;
    let workers = build_pool::worker_count(&requests);
    if workers == 0 {
        tokenizer::ensure_in_engine(ctx, state).await?;
        ctx.progress(what, 0, total);
        return Ok((build_in_engine(ctx, shares, total, cancelled).await?, 0));
    }
    let (bytes, origin) = tokenizer::bytes(ctx, state).await?;
    ctx.progress(what, 0, total);
    let tok = (&bytes[..], origin.as_str());
    match build_pool::build_in_workers(ctx, shares, &requests, total, workers, tok, cancelled)
        .await
    {
        Ok(built) => Ok((built, workers)),
        Err(PoolError::Failed(e)) => Err(e),
        Err(PoolError::Unavailable(why)) => Err(UiError::invalid(format!(
            "The compute engine could not start ({why}), so the tasks cannot be built in this browser. Reload the page to try again."
        ))),
    }
}

/// Build `shares` (covering `total` specs) in the page's engine worker, a
/// share at a time, with progress and Cancel between two.
async fn build_in_engine(
    ctx: &Ctx,
    shares: &[RepoShare],
    total: usize,
    cancelled: impl Fn(usize) -> UiError,
) -> Result<Vec<build_pool::Built>, UiError> {
    let mut built = Vec::with_capacity(total);
    for share in shares {
        let request = Request::Build { share: Box::new(share.share.clone()) };
        let (tasks, error) = match ctx.wait_for(engine::call(&request)).await? {
            Reply::Build { tasks, error } => (tasks, error),
            _ => return Err(UiError::invalid("the engine answered another question than a build")),
        };
        for json in tasks {
            let task: Task = serde_json::from_str(&json).map_err(|e| {
                UiError::invalid(format!(
                    "Building task {} failed: the engine sent back {e}",
                    built.len() + 1
                ))
            })?;
            built.push(build_pool::Built { task: Arc::new(task), json });
        }
        if let Some(why) = error {
            return Err(UiError::invalid(format!(
                "Building task {} failed: {why}",
                built.len() + 1
            )));
        }
        ctx.count(built.len(), total);
        ctx.tick(built.len(), total).await.map_err(|_| cancelled(built.len()))?;
    }
    Ok(built)
}

/// Keep only this cache entry: one set of tasks is what the session uses,
/// and old ones would fill the origin's storage quota.
async fn save_cache(key: &str, file: &web_sys::Blob) -> Result<(), UiError> {
    for old in storage::keys().await? {
        if old.starts_with(storage::TASKS_PREFIX) && old != key {
            storage::delete(&old).await?;
        }
    }
    storage::save_blob(key, file).await
}

/// `window.__repoqaBuild`, read by the browser tests.
fn publish_stats(stats: &BuildStats) {
    let o = js_object(&[
        ("tasks", (stats.tasks as f64).into()),
        ("ms", stats.ms.into()),
        ("maxChunkMs", stats.max_chunk_ms.into()),
        ("chunks", (stats.chunks as f64).into()),
        ("fromCache", stats.from_cache.into()),
        ("workers", (stats.workers as f64).into()),
    ]);
    publish_global("__repoqaBuild", &o);
}
