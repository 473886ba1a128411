//! A task's anatomy for the task view (`repoqa::prompt::anatomy`): the prompt cut
//! into bands with token counts, for the task as built or rebuilt at
//! another depth and window size through the core builder
//! (`ContextBuilder::at_position_ratio`, as `repoqa prompts
//! --position-ratio R --code-context-size S` builds it), with the audit's
//! artifacts of that build — computed by the compute engine
//! (`repoqa::engine::Request::Anatomy`).

use std::sync::Arc;

use leptos::prelude::*;

use repoqa::engine::{Placement, Reply, Request};
use repoqa::prompt::anatomy::Anatomy;
use repoqa::prompt::audit::TaskAudit;
use repoqa::prompt::settings::BuildSettings;
use repoqa::report::{Protocol, Task};

use super::{tokenizer, Ctx, Job, Runner};
use crate::ui::browser::engine;
use crate::ui::error::UiError;
use crate::ui::state::AppState;

/// Depth and window size to rebuild a task at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rebuild {
    pub position_ratio: f64,
    pub code_context_size: usize,
    /// Build under this protocol rather than the tasks' (Teach's corrected
    /// prompt); `None`: the tasks' own.
    pub protocol: Option<Protocol>,
}

impl Rebuild {
    fn placement(self) -> Placement {
        Placement { position_ratio: self.position_ratio, code_context_size: self.code_context_size }
    }
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

/// The engine's id of the dataset the tasks were built from (given to it
/// with the tokenizer), and the settings they were built with.
async fn engine_ready(ctx: &Ctx, state: AppState) -> Result<(u32, BuildSettings), UiError> {
    let loaded = state
        .dataset
        .get_untracked()
        .ok_or_else(|| UiError::invalid("Load the dataset the tasks were built from first."))?;
    let settings = state
        .tasks_settings
        .get_untracked()
        .unwrap_or_else(|| state.settings.with_untracked(|s| s.build.clone()));
    tokenizer::ensure_in_engine(ctx, state).await?;
    let id = ctx.wait_for(engine::dataset(&loaded.dataset, &loaded.origin)).await?;
    Ok((id, settings))
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
            let (dataset, mut settings) = engine_ready(&ctx, state).await?;
            if let Some(p) = r.protocol {
                settings.protocol = p;
            }
            let request = Request::Rebuild {
                dataset,
                settings,
                task: Box::new((*task).clone()),
                at: r.placement(),
            };
            match ctx.wait_for(engine::call(&request)).await? {
                Reply::Rebuild { task } => Ok(Arc::new(*task)),
                _ => Err(UiError::invalid("the engine answered another question than a rebuild")),
            }
        })
        .await
}

/// The anatomy of `task`, or of `task` rebuilt as `rebuild` says. Gives
/// the engine the tokenizer if no build has yet.
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
            let (dataset, settings) = engine_ready(&ctx, state).await?;
            let request = Request::Anatomy {
                dataset,
                settings,
                task: Box::new((*task).clone()),
                at: rebuild.map(Rebuild::placement),
            };
            match ctx.wait_for(engine::call(&request)).await? {
                Reply::Anatomy { task: shown, anatomy, audit } => {
                    // Not rebuilt: the task shown is the task of the run, as it is.
                    let task = if rebuild.is_some() { Arc::new(*shown) } else { task };
                    Ok(Shown { task, anatomy, audit, rebuilt: rebuild })
                }
                _ => Err(UiError::invalid("the engine answered another question than an anatomy")),
            }
        })
        .await
}
