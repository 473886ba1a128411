//! The Run page's pre-flight plan (its "Plan" button and the check before
//! a costly run, in `jobs::run`): the core's `repoqa::llm::plan` over the
//! tasks a Start would ask, their prompts counted by the compute engine in
//! chunks (a job with progress and Cancel), the server's `/props` and the run log read as
//! `repoqa run --plan` reads them, so both show the same plan.

use leptos::prelude::*;
use repoqa::llm::plan::{make_plan, PlanSettings, PlanTask, RunPlan};
use repoqa::llm::wire::Endpoint;
use repoqa::report::Task;

use super::tokenizer::{count_in_engine, ensure_in_engine};
use super::Ctx;
use crate::ui::browser::fetch::get_text;
use crate::ui::error::UiError;
use crate::ui::state::run::RunState;
use crate::ui::state::AppState;

/// The plan of asking `tasks` through `endpoint` at `concurrency`.
pub async fn plan_of(
    ctx: &Ctx,
    app: AppState,
    rs: RunState,
    endpoint: &Endpoint,
    concurrency: usize,
    tasks: &[Task],
) -> Result<RunPlan, UiError> {
    ensure_in_engine(ctx, app).await?;
    let prompts: Vec<String> = tasks.iter().map(Task::prompt).collect();
    let counts = count_in_engine(ctx, &prompts, |done| {
        ctx.count(done, tasks.len());
        match ctx.cancelled() {
            true => Err(UiError::cancelled("the plan was not made")),
            false => Ok(()),
        }
    })
    .await?;
    let counted: Vec<PlanTask> = tasks
        .iter()
        .zip(counts)
        .map(|(t, n)| PlanTask { id: t.task_id(), prompt_tokens: n })
        .collect();
    let props = match endpoint.props_request() {
        Some(req) => match ctx.wait_for(get_text(&req.url, &req.headers, 1 << 20)).await {
            Ok((200..=299, body)) => Some(body),
            _ => None,
        },
        None => None,
    };
    let given = rs.form.with_untracked(|f| f.plan.clone());
    let log = rs.run_log();
    let settings = PlanSettings::new(endpoint, concurrency, &given, props.as_deref(), &log.records)
        .map_err(UiError::Invalid)?;
    Ok(make_plan(&counted, &settings))
}
