//! Audit a whole dataset, and score the artifact-only answerer on it with
//! the official scorer.

use thiserror::Error;

use super::{answerer, audit_task, TaskAudit};
use crate::code::tokenize::Tokenizer;
use crate::input::dataset::Dataset;
use crate::prompt::context::{ContextBuilder, ContextError, TaskSpec};
use crate::prompt::settings::BuildSettings;
use crate::report::Task;
use crate::report::{self, ReportError};
use crate::scoring::run::{score_outputs, Run};
use crate::scoring::score::{ScoreError, ScoreOptions};

#[derive(Debug, Error)]
pub enum AuditError {
    #[error("{0}")]
    Context(#[from] ContextError),
    #[error("{0}")]
    Report(#[from] ReportError),
    #[error("{0}")]
    Score(#[from] ScoreError),
    #[error("artifact-only answers: {0}")]
    Outputs(String),
}

/// The tasks of a dataset under some options, and their audits (same order).
#[derive(Clone, Debug)]
pub struct AuditRun {
    pub tasks: Vec<Task>,
    pub audits: Vec<TaskAudit>,
}

/// Build with `settings` and audit the tasks of `specs`;
/// `progress(done, total)` after each.
pub fn audit_dataset(
    dataset: &Dataset,
    specs: &[TaskSpec],
    settings: &BuildSettings,
    tokenizer: &Tokenizer,
    mut progress: impl FnMut(usize, usize),
) -> Result<AuditRun, AuditError> {
    let options = settings.context_options();
    let mut builder = ContextBuilder::new(dataset, options, tokenizer);
    let mut tasks = Vec::with_capacity(specs.len());
    let mut audits = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        let crate::prompt::context::PlacedTask { task, placement, .. } =
            builder.build_placed(spec)?;
        // `build_placed` succeeded, so the spec and the needle file exist.
        let repo = dataset.repos(spec.language.name()).and_then(|r| r.get(spec.repo_index));
        let needle = repo.and_then(|r| r.needles.get(spec.needle_index));
        if let (Some(repo), Some(needle)) = (repo, needle) {
            let source = repo.content.get(&needle.path).map_or("", String::as_str);
            audits.push(audit_task(
                &task,
                spec.language,
                source,
                needle,
                &placement,
                options.comment_mode,
            ));
        }
        tasks.push(task);
        progress(i + 1, specs.len());
    }
    Ok(AuditRun { tasks, audits })
}

/// The artifact-only answerer's outputs for `tasks`: a model-outputs JSONL
/// text (each task dict + `"output": [answer]`), ready for `repoqa score`.
pub fn baseline_outputs(tasks: &[Task]) -> Result<String, AuditError> {
    let mut out = String::new();
    for t in tasks {
        out.push_str(&report::output_line(t, &[answerer::answer(&t.prompt())])?);
    }
    Ok(out)
}

/// Score the artifact-only answerer on `tasks` with the official scorer,
/// as the official harness scores tasks built with `settings`
/// ([`BuildSettings::score_options`]: comments ignored in the cleaning
/// modes, R7).
pub fn score_baseline(
    dataset: &Dataset,
    tasks: &[Task],
    settings: &BuildSettings,
) -> Result<Run, AuditError> {
    let text = baseline_outputs(tasks)?;
    let file = report::read_model_outputs(&text);
    if let Some(e) = file.errors.first() {
        return Err(AuditError::Outputs(e.to_string()));
    }
    let options = settings.score_options(ScoreOptions::default());
    Ok(score_outputs(dataset, options, &file.outputs, |_, _| {})?.run)
}
