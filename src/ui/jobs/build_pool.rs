//! The build job's workers: a build's repos shared out to a few Web Workers
//! (public/boot/engine-worker.js, the compute engine's wasm answering the
//! engine's one protocol: a `Request::Build` of each repo's share of
//! `repoqa::api::build::BuildPlan`, the plan the CLI builds too), one repo at a time each, and the
//! tasks gathered back in spec order. The cores work together and the page
//! only reads the tasks back, so no parse ever blocks it.
//!
//! If the workers cannot start (no module workers, a script that does not
//! load) the result is [`PoolError::Unavailable`] and the job builds in the
//! page instead; once tasks have come back, a fault is an error.

use std::sync::Arc;

use repoqa::api::build::RepoShare;
use repoqa::engine::{Reply, Request};
use repoqa::report::Task;
use wasm_bindgen::JsValue;

use super::Ctx;
use crate::ui::browser::dom::js_object;
use crate::ui::browser::engine::EngineFiles;
use crate::ui::browser::time::now_ms;
use crate::ui::browser::worker::{field_num, field_str, Workers};
use crate::ui::error::UiError;

/// At most this many workers: each holds a tokenizer and a repo.
const MAX_WORKERS: usize = 8;

/// How often a wait for the workers looks at Cancel.
const POLL_MS: i32 = 100;

/// Workers that have not taken a repo by then are taken not to work.
const START_MS: f64 = 30_000.0;

pub enum PoolError {
    /// No tasks came back: build in the page (the reason goes to the console).
    Unavailable(String),
    Failed(UiError),
}

impl From<UiError> for PoolError {
    fn from(e: UiError) -> PoolError {
        PoolError::Failed(e)
    }
}

/// A task as built by a worker, and its JSON line (for the cache).
pub struct Built {
    pub task: Arc<Task>,
    pub json: String,
}

/// Builds whose messages hold less than this are built in the page:
/// starting workers (a tokenizer each) takes longer than such a build (the
/// demo's 60 tasks take about 0.1 s in the page, 0.3 s with workers).
const SMALL_BUILD_BYTES: usize = 1 << 20;

/// How many workers a build of `shares` gets (0: build in the page): the
/// machine's cores, for a build that is not small. The browser tests set
/// `globalThis.__repoqaBuildWorkers` to "always" or "never" to choose.
pub fn worker_count(requests: &[String]) -> usize {
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    let n = (cores as usize).clamp(1, MAX_WORKERS).min(requests.len());
    let forced = js_sys::Reflect::get(&js_sys::global(), &"__repoqaBuildWorkers".into())
        .ok()
        .and_then(|v| v.as_string());
    match forced.as_deref() {
        Some("always") => n,
        Some("never") => 0,
        _ if requests.iter().map(String::len).sum::<usize>() < SMALL_BUILD_BYTES => 0,
        _ => n,
    }
}

/// Each share as the engine's request to build it (JSON), in order.
pub fn requests(shares: &[RepoShare]) -> Result<Vec<String>, UiError> {
    shares
        .iter()
        .map(|s| {
            let request = Request::Build { share: Box::new(s.share.clone()) };
            serde_json::to_string(&request).map_err(|e| UiError::invalid(e.to_string()))
        })
        .collect()
}

/// Build `shares` (covering `total` specs) in `n` workers. `cancelled(done)`
/// makes the error a Cancel ends with.
pub async fn build_in_workers(
    ctx: &Ctx,
    shares: &[RepoShare],
    requests: &[String],
    total: usize,
    n: usize,
    tokenizer: (&[u8], &str),
    cancelled: impl Fn(usize) -> UiError,
) -> Result<Vec<Built>, PoolError> {
    let unavailable = |e: UiError| PoolError::Unavailable(e.to_string());
    let files = EngineFiles::find().map_err(unavailable)?;
    let tok = js_sys::Uint8Array::from(tokenizer.0);
    let init = files
        .init(&[("tokenizer", tok.into()), ("origin", tokenizer.1.into())])
        .await
        .map_err(unavailable)?;
    let workers = Workers::start(&files.script, n).map_err(unavailable)?;
    for i in 0..workers.len() {
        workers.post(i, &init).map_err(unavailable)?;
    }

    let started = now_ms();
    let mut slots: Vec<Option<Built>> = (0..total).map(|_| None).collect();
    let mut received = vec![0usize; shares.len()];
    let mut busy: Vec<Option<usize>> = vec![None; workers.len()];
    let mut next_share = 0;
    let mut done = 0;
    // The first failing task in spec order so far, and its error.
    let mut error: Option<(usize, String)> = None;
    let dispatch = |w: usize,
                    next_share: &mut usize,
                    busy: &mut Vec<Option<usize>>,
                    error: &Option<(usize, String)>| {
        let Some(share) = shares.get(*next_share) else { return Ok(()) };
        // Shares after a failed task are not built (one builder stops there).
        if error.as_ref().is_some_and(|(at, _)| share.specs.start > *at) {
            return Ok(());
        }
        let msg = js_object(&[
            ("kind", "call".into()),
            ("id", JsValue::from_f64(*next_share as f64)),
            ("request", requests[*next_share].as_str().into()),
        ]);
        workers.post(w, &msg)?;
        busy[w] = Some(*next_share);
        *next_share += 1;
        Ok::<(), UiError>(())
    };

    loop {
        let idle = busy.iter().all(Option::is_none);
        let nothing_left = next_share >= shares.len()
            || error.as_ref().is_some_and(|(at, _)| shares[next_share].specs.start > *at);
        if done == total || (idle && nothing_left && next_share > 0) {
            break;
        }
        let next = ctx.wait_for(workers.next(POLL_MS)).await;
        // Waiting resets the slice, so `tick` alone would seldom see Cancel.
        ctx.check().map_err(|_| cancelled(done))?;
        let Some((w, data)) = next else {
            if next_share == 0 && now_ms() - started > START_MS {
                return Err(PoolError::Unavailable(
                    "the build workers did not start in 30 s".into(),
                ));
            }
            continue;
        };
        let share_of = |data: &JsValue| {
            field_num(data, "id").map(|id| id as usize).filter(|&id| id < shares.len())
        };
        match field_str(&data, "kind").as_str() {
            "ready" => dispatch(w, &mut next_share, &mut busy, &error)?,
            "reply" => {
                let Some(id) = share_of(&data) else { continue };
                let start = shares[id].specs.start;
                let reply: Reply =
                    serde_json::from_str(&field_str(&data, "reply")).map_err(|e| {
                        UiError::invalid(format!(
                            "Building task {} failed: a worker's reply could not be read: {e}",
                            start + 1
                        ))
                    })?;
                let Reply::Build { tasks, error: failed } = reply else {
                    return Err(PoolError::Failed(UiError::invalid(
                        "a build worker answered another question than a build",
                    )));
                };
                for (k, json) in tasks.into_iter().enumerate() {
                    let task: Task = serde_json::from_str(&json).map_err(|e| {
                        UiError::invalid(format!(
                            "Building task {} failed: a worker sent back {e}",
                            start + k + 1
                        ))
                    })?;
                    if let Some(slot) = slots.get_mut(start + k) {
                        *slot = Some(Built { task: Arc::new(task), json });
                        done += 1;
                    }
                    received[id] += 1;
                }
                if let Some(why) = failed {
                    let at = start + received[id];
                    if error.as_ref().is_none_or(|(j, _)| at < *j) {
                        error = Some((at, why));
                    }
                }
                busy[w] = None;
                // `tick` shows the count only at the end of a slice, and
                // waiting for workers starts new slices: show it now.
                ctx.count(done, total);
                ctx.tick(done, total).await.map_err(|_| cancelled(done))?;
                dispatch(w, &mut next_share, &mut busy, &error)?;
            }
            "error" => {
                // The request itself was refused (no tokenizer, unreadable).
                let Some(id) = share_of(&data) else { continue };
                let at = shares[id].specs.start;
                if error.as_ref().is_none_or(|(j, _)| at < *j) {
                    error = Some((at, field_str(&data, "error")));
                }
                busy[w] = None;
                dispatch(w, &mut next_share, &mut busy, &error)?;
            }
            "failed" => {
                let why = field_str(&data, "error");
                if done == 0 {
                    return Err(PoolError::Unavailable(format!("a build worker failed: {why}")));
                }
                return Err(PoolError::Failed(UiError::invalid(format!(
                    "A build worker stopped after {done} of {total} tasks: {why}. Build again."
                ))));
            }
            _ => {}
        }
    }
    if let Some((at, why)) = error {
        return Err(PoolError::Failed(UiError::invalid(format!(
            "Building task {} failed: {why}",
            at + 1
        ))));
    }
    let built: Vec<Built> = slots.into_iter().flatten().collect();
    if built.len() != total {
        return Err(PoolError::Failed(UiError::invalid(format!(
            "The build workers sent back {} of {total} tasks. Build again.",
            built.len()
        ))));
    }
    Ok(built)
}
