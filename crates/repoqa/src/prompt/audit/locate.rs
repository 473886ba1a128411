//! Audit a task already built (restored from a cache, imported), without
//! the builder: its needle is found again in its code context.
//!
//! The needle's text is cut from the dataset as the task's protocol cuts it
//! (and cleaned in the comment modes, `context::emitted_needle`); if it
//! occurs more than once, the occurrence whose position is closest to
//! `needle_token_start / code_context_ntokens` is taken.

use super::{audit_task, TaskAudit};
use crate::code::lang::Language;
use crate::input::dataset::Dataset;
use crate::prompt::context::{emitted_needle, CommentMode, NeedlePlacement};
use crate::report::Task;

/// Where `task`'s needle is in its code context, if it can be found.
pub fn locate(dataset: &Dataset, task: &Task, mode: CommentMode) -> Option<NeedlePlacement> {
    let language = Language::from_name(&task.language).ok()?;
    let repo = dataset.repos(&task.language)?.iter().find(|r| r.repo == task.repo)?;
    let needle = repo.needles.iter().find(|n| n.name == task.name && n.path == task.path)?;
    let source = repo.content.get(&needle.path)?;
    let (text, cut) = emitted_needle(language, source, needle, mode, task.protocol).ok()?;
    let ctx = &task.code_context;
    if text.is_empty() {
        return None;
    }
    let want = if task.code_context_ntokens > 0 {
        task.needle_token_start as f64 / task.code_context_ntokens as f64
    } else {
        0.5
    };
    let far = |i: usize| (i as f64 / ctx.len().max(1) as f64 - want).abs();
    let at = ctx
        .match_indices(text.as_str())
        .map(|(i, _)| i)
        .min_by(|&x, &y| far(x).total_cmp(&far(y)))?;
    Some(NeedlePlacement { needle: at..at + text.len(), cut })
}

/// The audit of a built task (None if its needle is not found in the
/// dataset or in its context).
pub fn audit_built_task(dataset: &Dataset, task: &Task, mode: CommentMode) -> Option<TaskAudit> {
    let placement = locate(dataset, task, mode)?;
    let language = Language::from_name(&task.language).ok()?;
    let repo = dataset.repos(&task.language)?.iter().find(|r| r.repo == task.repo)?;
    let needle = repo.needles.iter().find(|n| n.name == task.name && n.path == task.path)?;
    let source = repo.content.get(&needle.path)?;
    Some(audit_task(task, language, source, needle, &placement, mode))
}

/// Audits of built tasks, in order; tasks whose needle is not found are
/// left out (their number is `tasks.len() - result.len()`).
pub fn audit_built_tasks<'t>(
    dataset: &Dataset,
    tasks: impl IntoIterator<Item = &'t Task>,
    mode: CommentMode,
) -> Vec<TaskAudit> {
    tasks.into_iter().filter_map(|t| audit_built_task(dataset, t, mode)).collect()
}
