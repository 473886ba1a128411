//! Building the tasks at several code-context lengths in one go (a length
//! ladder, issue 51), for download: each length is built as the session's
//! tasks are (`build::build_shares`: Web Workers, Cancel between repos) and
//! kept as its official tasks JSONL in a Blob behind an object URL, offered
//! as a link until the page is left. The session's own tasks stay as they
//! are. `repoqa prompts --code-context-size 4096,8192,…` writes the same
//! files.

use leptos::prelude::*;
use repoqa::api::build::BuildPlan;
use repoqa::report;
use wasm_bindgen::JsValue;

use super::build::{build_shares, BUILD_BUDGET_MS};
use super::{tokenizer, Ctx, Job, Runner};
use crate::ui::error::UiError;
use crate::ui::format::{count, thousands};
use crate::ui::state::{AppState, LadderFile};

/// Start building the tasks at `lengths` (unless a job runs already).
pub fn start_ladder_build(state: AppState, runner: Runner, lengths: Vec<usize>) {
    if runner.busy_untracked() || lengths.is_empty() {
        return;
    }
    let what = format!("Building a length ladder ({})", count(lengths.len(), "length", "lengths"));
    runner.spawn(Job::new(what).budget_ms(BUILD_BUDGET_MS), move |ctx| async move {
        build_ladder(&ctx, state, &lengths).await
    });
}

/// Forget the last ladder's files (their object URLs revoked).
pub fn clear_ladder(state: AppState) {
    for f in state.ladder.get_untracked() {
        let _ = web_sys::Url::revoke_object_url(&f.url);
    }
    state.ladder.set(Vec::new());
}

async fn build_ladder(ctx: &Ctx, state: AppState, lengths: &[usize]) -> Result<(), UiError> {
    let Some(loaded) = state.dataset.get_untracked() else {
        return Err(UiError::invalid("No dataset is loaded: load one on the Dataset page first."));
    };
    ctx.progress("Loading the tokenizer", 0, 0);
    tokenizer::ensure_id(ctx, state).await?;
    let settings = state.settings.get_untracked().build;
    clear_ladder(state);
    for (i, &n) in lengths.iter().enumerate() {
        let mut s = settings.clone();
        s.code_context_size = n;
        let plan = BuildPlan::new(s.clone());
        let specs = plan.check(&loaded.dataset)?;
        let total = specs.len();
        let kept = state.ladder.with_untracked(|l| {
            l.iter().map(|f| thousands(f.ntoken)).collect::<Vec<_>>().join(", ")
        });
        let cancelled = |done: usize| {
            let before = if kept.is_empty() {
                "nothing was kept".to_string()
            } else {
                format!("the lengths built before it ({kept}) stay below")
            };
            UiError::cancelled(format!(
                "Cancelled at {} tokens after {done} of {total} tasks; {before}.",
                thousands(n)
            ))
        };
        let what = format!(
            "Building {total} tasks at {} tokens (length {} of {})",
            thousands(n),
            i + 1,
            lengths.len()
        );
        ctx.progress(what.clone(), 0, total);
        ctx.turn().await.map_err(|_| cancelled(0))?;
        let shares = plan.shares(&loaded.dataset, &specs);
        let (built, _) = build_shares(ctx, state, &what, &shares, total, &cancelled).await?;
        // The official tasks JSONL (`json.dumps(task)` a line), written a
        // task at a time between turns of the page.
        ctx.progress(format!("Writing the {}-token tasks file", thousands(n)), 0, total);
        let parts = js_sys::Array::new();
        for (done, b) in built.into_iter().enumerate() {
            parts.push(&JsValue::from_str(&report::jsonl_line(b.task.as_ref())?));
            ctx.tick(done + 1, total).await.map_err(|_| cancelled(total))?;
        }
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type("application/jsonl");
        let name = repoqa::naming::tasks_file_name(&loaded.origin, &s);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
            .map_err(|e| UiError::js(format!("cannot make {name}"), &e))?;
        let url = web_sys::Url::create_object_url_with_blob(&blob)
            .map_err(|e| UiError::js(format!("cannot make {name}"), &e))?;
        state.ladder.update(|l| {
            l.push(LadderFile { ntoken: n, name, tasks: total, bytes: blob.size(), url })
        });
    }
    ctx.done(format!(
        "Built the tasks at {}: a file a length below.",
        count(lengths.len(), "length", "lengths")
    ));
    Ok(())
}
