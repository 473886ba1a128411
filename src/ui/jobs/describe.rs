//! Needle descriptions by a model behind an OpenAI-compatible API, from
//! the browser: [`describe_missing`] asks for the needles a curation left
//! without a description. Requests go straight from the page to the
//! endpoint with `fetch`, so the endpoint must allow cross-origin requests
//! (CORS); the request and the reading of replies are `repoqa::llm`'s.

use crate::ui::browser::fetch::post_model_request;
use repoqa::curate::{CurateReport, Descriptions};
use repoqa::llm::{self, HttpRequest, Progress};

use crate::ui::state::curate::model_api::DescribeModel;

/// Ask the model for every needle of `report` without a description, one
/// after the other. Returns the descriptions obtained (apply them with
/// `report.apply_descriptions`) and, for every other missing needle, its
/// name and why: the error, "cancelled", or "not asked: …" after an error
/// that every request would repeat (key, URL, model, network). Those
/// needles stay out of the tasks. `on_progress(done, total)` is called
/// before the first request and after each; `cancel()` is checked before
/// each request (one under way finishes or times out).
pub async fn describe_missing(
    settings: &DescribeModel,
    report: &CurateReport,
    on_progress: impl Fn(usize, usize),
    cancel: impl Fn() -> bool,
) -> (Descriptions, Vec<(String, String)>) {
    let jobs = report.describe_jobs();
    let total = jobs.len();
    let timeout_ms = settings.timeout_secs.saturating_mul(1000).min(u32::MAX as u64) as u32;
    on_progress(0, total);
    let run = llm::describe_needles(
        &settings.endpoint,
        &jobs,
        move |req: HttpRequest| async move { post_model_request(&req, timeout_ms).await },
        |p| {
            if let Progress::Answered { index, .. } = p {
                on_progress(index + 1, total);
            }
        },
        cancel,
    )
    .await;
    (run.obtained, run.failures)
}
