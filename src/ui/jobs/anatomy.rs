//! A task's anatomy for the task view (`repoqa::anatomy`): the prompt cut
//! into bands with token counts, for the task as built or rebuilt at
//! another depth and window size through the core builder
//! (`ContextBuilder::at_position_ratio`, as `repoqa prompts
//! --position-ratio R --code-context-size S` builds it), with the audit's
//! artifacts of that build.

use std::sync::Arc;

use leptos::prelude::*;

use repoqa::anatomy::Anatomy;
use repoqa::audit::TaskAudit;
use repoqa::context::{PlacedTask, Task};
use repoqa::dataset::Dataset;
use repoqa::settings::BuildSettings;
use repoqa::tokenize::Tokenizer;

use super::{tokenizer, Job, Runner};
use crate::ui::error::UiError;
use crate::ui::state::AppState;

/// Depth and window size to rebuild a task at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rebuild {
    pub position_ratio: f64,
    pub code_context_size: usize,
}

/// What the view shows: the task (as built, or rebuilt), its bands and
/// its audit.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub task: Arc<Task>,
    pub anatomy: Anatomy,
    pub audit: Option<TaskAudit>,
    /// `Some` when `task` is a rebuild (NOT the task of the run).
    pub rebuilt: Option<Rebuild>,
}

/// `task` built again with the settings it was built with, but at
/// `r`'s depth and window.
fn build_at(
    dataset: &Dataset,
    settings: &BuildSettings,
    tok: &Tokenizer,
    task: &Task,
    r: Rebuild,
) -> Result<PlacedTask, UiError> {
    let spec = repoqa::context::spec_of(dataset, task).ok_or_else(|| {
        UiError::invalid(format!(
            "The loaded dataset has no needle {} in {} of {}: load the dataset these tasks were built from.",
            task.name, task.path, task.repo
        ))
    })?;
    let settings = BuildSettings { code_context_size: r.code_context_size, ..settings.clone() };
    Ok(settings
        .builder(dataset, tok)
        .at_position_ratio(Some(r.position_ratio))
        .build_placed(&spec)
        .map_err(repoqa::Error::from)?)
}

/// The dataset and the settings the tasks were built with.
fn dataset_and_settings(state: AppState) -> Result<(Arc<Dataset>, BuildSettings), UiError> {
    let dataset = state
        .dataset
        .with_untracked(|d| d.as_ref().map(|d| d.dataset.clone()))
        .ok_or_else(|| UiError::invalid("Load the dataset the tasks were built from first."))?;
    let settings = state
        .tasks_settings
        .get_untracked()
        .unwrap_or_else(|| state.settings.with_untracked(|s| s.build.clone()));
    Ok((dataset, settings))
}

/// `task` rebuilt as `r` says (the exercise's small window).
pub async fn rebuild(
    state: AppState,
    runner: Runner,
    task: Arc<Task>,
    r: Rebuild,
) -> Result<Arc<Task>, UiError> {
    let what = format!("Building {} in {} tokens", task.name, r.code_context_size);
    runner
        .run(Job::new(what).queue(), move |ctx| async move {
            let (dataset, settings) = dataset_and_settings(state)?;
            let tok = tokenizer::ensure_parsed(&ctx, state).await?;
            Ok(Arc::new(build_at(&dataset, &settings, &tok, &task, r)?.task))
        })
        .await
}

/// The anatomy of `task`, or of `task` rebuilt as `rebuild` says. Loads
/// the tokenizer if no build has yet.
pub async fn show(
    state: AppState,
    runner: Runner,
    task: Arc<Task>,
    rebuild: Option<Rebuild>,
) -> Result<Shown, UiError> {
    let what = match rebuild {
        Some(r) => format!(
            "Rebuilding {} at position_ratio {} in {} tokens",
            task.name, r.position_ratio, r.code_context_size
        ),
        None => format!("Counting the tokens of {}'s prompt", task.name),
    };
    runner
        .run(Job::new(what).queue(), move |ctx| async move {
            let (dataset, settings) = dataset_and_settings(state)?;
            let tok = tokenizer::ensure_parsed(&ctx, state).await?;
            let mode = settings.comment_mode;
            let (task, needle) = match rebuild {
                Some(r) => {
                    let placed = build_at(&dataset, &settings, &tok, &task, r)?;
                    (Arc::new(placed.task), Some(placed.needle))
                }
                None => (task, None),
            };
            let needle = needle
                .or_else(|| repoqa::context::locate_needle_any_mode(&dataset, &task, mode).map(|(r, _)| r))
                .ok_or_else(|| {
                    UiError::invalid(
                        "The needle's text was not found in this context, so the prompt cannot be cut around it.",
                    )
                })?;
            let audit = task
                .protocol
                .has_context()
                .then(|| repoqa::audit::locate::audit_built_task(&dataset, &task, mode))
                .flatten();
            let findings = audit.as_ref().map(|a| a.findings.as_slice()).unwrap_or(&[]);
            let anatomy =
                repoqa::anatomy::anatomy(&task, needle, findings, Some(&dataset), &tok)
                    .map_err(repoqa::Error::from)?;
            Ok(Shown { task, anatomy, audit, rebuilt: rebuild })
        })
        .await
}
