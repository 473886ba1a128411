//! Building the call-path tasks (NOT UPSTREAM, `repoqa::api::callpath`)
//! of the loaded dataset in the compute engine (`Request::CallPathBuild`):
//! the plan of the page's settings — context size, languages, repos — with
//! the default selection, as `repoqa prompts --task call-path` builds it;
//! and a model's outputs file read and scored against the dataset's call
//! graphs (`Request::CallPathScore`), as `repoqa score --task call-path`
//! scores it.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::api::callpath::CallPathPlan;
use repoqa::engine::{Reply, Request};

use super::{tokenizer, Job, Runner};
use crate::ui::browser::engine;
use crate::ui::browser::fetch::read_blob;
use crate::ui::error::UiError;
use crate::ui::format::count;
use crate::ui::state::app::{CallPathBuilt, CallPathScored};
use crate::ui::state::AppState;

/// The plan of the page's settings.
pub fn plan_of(state: AppState) -> CallPathPlan {
    state.settings.with_untracked(|s| CallPathPlan {
        filter: s.build.filter.clone(),
        ..CallPathPlan::new(s.build.code_context_size)
    })
}

/// Build the call-path tasks on the main job line; they replace the last
/// ones when the build ends well.
pub fn start_call_path_build(state: AppState, runner: Runner) {
    let plan = plan_of(state);
    let what = format!("Building call-path tasks at {} tokens", plan.code_context_size);
    runner.spawn(Job::new(what), move |ctx| async move {
        let loaded = state
            .dataset
            .get_untracked()
            .ok_or_else(|| UiError::invalid("Load a dataset first."))?;
        tokenizer::ensure_in_engine(&ctx, state).await?;
        let dataset = ctx.wait_for(engine::dataset(&loaded.dataset, &loaded.origin)).await?;
        let size = plan.code_context_size;
        let request = Request::CallPathBuild { dataset, plan: Box::new(plan) };
        match ctx.wait_for(engine::call(&request)).await? {
            Reply::CallPathBuild { tasks, shortfalls } => {
                let short = shortfalls.len();
                ctx.done_flawed(
                    format!(
                        "Built {} at {size} tokens{}.",
                        count(tasks.len(), "call-path task", "call-path tasks"),
                        if short > 0 {
                            format!(
                                "; {} gave fewer than asked (below)",
                                count(short, "repository", "repositories")
                            )
                        } else {
                            String::new()
                        }
                    ),
                    tasks.is_empty(),
                );
                state.call_paths.set(Some(Arc::new(CallPathBuilt {
                    tasks,
                    shortfalls,
                    code_context_size: size,
                    origin: loaded.origin.clone(),
                })));
                Ok(())
            }
            _ => {
                Err(UiError::invalid("the engine answered another question than a call-path build"))
            }
        }
    });
}

/// Read the outputs file `file` and score it against the loaded dataset.
pub fn start_call_path_score(state: AppState, runner: Runner, file: web_sys::File) {
    let name = file.name();
    runner.spawn(Job::new(format!("Scoring {name}")), move |ctx| async move {
        let loaded = state
            .dataset
            .get_untracked()
            .ok_or_else(|| UiError::invalid("Load the dataset the tasks were built from first."))?;
        let bytes = ctx.wait_for(read_blob(&file, &name)).await?;
        let text = String::from_utf8(bytes).map_err(|e| {
            UiError::invalid(format!(
                "{name}: not UTF-8 text (at byte {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        let outputs = repoqa::api::callpath::read_outputs(&text, &name)?;
        let dataset = ctx.wait_for(engine::dataset(&loaded.dataset, &loaded.origin)).await?;
        let request = Request::CallPathScore { dataset, outputs };
        match ctx.wait_for(engine::call(&request)).await? {
            Reply::CallPathScore { scores, results } => {
                let pass =
                    scores.overall.pass_at_1.map_or("–".to_string(), |p| format!("{p:.1}"));
                ctx.done(format!(
                    "Scored {}: pass@1 {pass}.",
                    count(results.len(), "call-path answer", "call-path answers")
                ));
                state.call_path_scores.set(Some(Arc::new(CallPathScored {
                    name: name.clone(),
                    scores: *scores,
                    results,
                })));
                Ok(())
            }
            _ => {
                Err(UiError::invalid("the engine answered another question than a call-path score"))
            }
        }
    });
}
