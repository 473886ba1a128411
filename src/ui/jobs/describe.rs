//! Needle descriptions by a model behind an OpenAI-compatible API, from
//! the browser: [`describe_missing`] asks for the needles a curation left
//! without a description. Requests go straight from the page to the
//! endpoint with `fetch`, so the endpoint must allow cross-origin requests
//! (CORS); the request and the reading of replies are `repoqa::llm`'s.

use crate::ui::browser::fetch::{post_http, PostError};
use repoqa::curate::{CurateReport, Descriptions};
use repoqa::llm::{self, ApiSettings, HttpReply, HttpRequest, LlmError, Progress};

/// Ask the model for every needle of `report` without a description, one
/// after the other. Returns the descriptions obtained (apply them with
/// `report.apply_descriptions`) and, for every other missing needle, its
/// name and why: the error, "cancelled", or "not asked: …" after an error
/// that every request would repeat (key, URL, model, network). Those
/// needles stay out of the tasks. `on_progress(done, total)` is called
/// before the first request and after each; `cancel()` is checked before
/// each request (one under way finishes or times out).
pub async fn describe_missing(
    settings: &ApiSettings,
    report: &CurateReport,
    on_progress: impl Fn(usize, usize),
    cancel: impl Fn() -> bool,
) -> (Descriptions, Vec<(String, String)>) {
    let jobs = report.describe_jobs();
    let total = jobs.len();
    let timeout = settings.timeout_secs;
    on_progress(0, total);
    let run = llm::describe_needles(
        settings,
        &jobs,
        move |req: HttpRequest| async move { post(&req, timeout).await },
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

/// POST with `fetch`; every HTTP status is a reply. A failure before any
/// status is what the browser reports for CORS refusals, unreachable hosts
/// and timeouts alike; the message says so.
async fn post(req: &HttpRequest, timeout_secs: u64) -> Result<HttpReply, LlmError> {
    let failed = |e: PostError| {
        let message = match e {
            PostError::Redirect => {
                return LlmError::Redirect { url: req.url.clone(), status: 0, location: None }
            }
            PostError::TooLong => e.to_string(),
            PostError::Fetch(e) if e.to_string().contains("TimeoutError") => {
                format!(
                    "no reply within {timeout_secs} s (raise the timeout in the model settings)"
                )
            }
            PostError::Fetch(e) => format!(
                "the endpoint may not allow browser requests (CORS) or is unreachable ({e}); \
                 check the URL, and that the server sends Access-Control-Allow-Origin for this page"
            ),
        };
        LlmError::Transport { url: req.url.clone(), message }
    };
    let timeout_ms = timeout_secs.saturating_mul(1000).min(u32::MAX as u64) as u32;
    post_http(req, timeout_ms).await.map_err(failed)
}
