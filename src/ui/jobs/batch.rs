//! Batch files from the Run page: the tasks Run would ask written as an
//! OpenAI Batch API or Anthropic Message Batches file (no key in the page:
//! the user submits it with the provider's tools), and the provider's
//! results read back into the answers and run log a live run stores. The
//! core's `repoqa::llm::batch` does both, as for `repoqa batch
//! export|import`, so the page's file and answers equal the CLI's.

use leptos::prelude::*;
use repoqa::llm::batch;
use repoqa::{naming, report};

use super::ask::{endpoint_unchecked, RunSession, Sink};
use super::fetch::read_file_with_progress;
use super::run::{run_todo, selection_of, TaskSink};
use super::{Job, Runner};
use crate::ui::browser::download::download_text;
use crate::ui::error::UiError;
use crate::ui::state::run::RunState;
use crate::ui::state::AppState;

/// The largest results file read (a 500-task batch's is a few MB).
const MAX_RESULTS_BYTES: usize = 256 << 20;

/// "Export batch file": the requests of the tasks Run would ask, downloaded.
pub fn export_batch(app: AppState, rs: RunState, runner: Runner) {
    let endpoint = endpoint_unchecked(rs);
    let selection = rs.form.with_untracked(|f| selection_of(f, false, None));
    runner.spawn(Job::new("Writing the batch file"), move |ctx| async move {
        let t = run_todo(app, rs, &selection).await?;
        if t.todo.is_empty() {
            ctx.done(format!("Nothing to export: {} selected task(s) answered already.", t.finished));
            return Ok(());
        }
        let text = batch::export(&endpoint, &t.tasks, &t.todo)?;
        let name = naming::batch_file_name(&endpoint.model, endpoint.provider);
        download_text(&name, "application/json", &text)?;
        ctx.done(format!(
            "Saved {name}: {} request(s). Submit it to the {} batch API, then import its results here.",
            t.todo.len(),
            endpoint.provider
        ));
        Ok(())
    });
}

/// "Import results": the provider's results files (OpenAI's output and
/// error files, or Anthropic's results) into the answers and run log.
pub fn import_batch(app: AppState, rs: RunState, runner: Runner, files: Vec<web_sys::File>) {
    let endpoint = endpoint_unchecked(rs);
    let selection = rs.form.with_untracked(|f| selection_of(f, false, None));
    let session = RunSession::now(rs);
    runner.spawn(Job::new("Importing batch results"), move |ctx| async move {
        let mut results = Vec::new();
        for file in &files {
            let bytes =
                read_file_with_progress(&ctx, file, "Reading", MAX_RESULTS_BYTES).await?;
            let name = file.name();
            let text = String::from_utf8(bytes)
                .map_err(|_| UiError::invalid(format!("{name}: not UTF-8 text")))?;
            results.extend(batch::read_results(endpoint.provider, &text, &name)?);
        }
        let t = run_todo(app, rs, &selection).await?;
        let imported =
            batch::import(endpoint, &t.tasks, &t.ids, &t.todo, &results, report::now_eval_date);
        if let Some(first) = imported.unknown.first() {
            return Err(UiError::invalid(format!(
                "{} result(s) name no task of these (first: custom_id {first:?}): they come from another task list; build the tasks and select them as when the batch file was exported",
                imported.unknown.len()
            )));
        }
        let mut sink = TaskSink::new(app, rs, session);
        let (mut answered, mut failed) = (0, 0);
        for event in imported.events {
            match &event {
                repoqa::llm::run::RunEvent::Answered { .. } => answered += 1,
                repoqa::llm::run::RunEvent::Failed { .. } => failed += 1,
                _ => {}
            }
            sink.event(event);
        }
        sink.store().await;
        let left = t.todo.len() - answered - failed;
        ctx.done(format!(
            "Imported {} result(s): {answered} answered, {failed} failed; {left} selected task(s) without a result.",
            results.len()
        ));
        Ok(())
    });
}
