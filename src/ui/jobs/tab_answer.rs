//! The model in this tab answers one task while the page watches (Teach's
//! rounds): the official request for the task (`in_tab::endpoint`: greedy,
//! the OpenAI format, the loaded file's name), streamed as it is written,
//! on the model-run job line (a Run cannot ask the tab at the same time;
//! the line's Cancel — Teach's "Stop the model" — stops the answer). The reply in the end is read by the core as
//! any server's (`wire::read_reply`): what is scored is what a Run would
//! have stored.

use std::sync::Arc;

use leptos::task::spawn_local;
use repoqa::llm::in_tab::{self, Timing};
use repoqa::llm::wire::{read_reply, Answer, Outcome};
use repoqa::report::Task;

use super::{Job, Runner};
use crate::ui::browser::tab_model::{self, Writing};
use crate::ui::error::UiError;

/// A finished answer, and llama.cpp's timings of it.
#[derive(Clone, Debug, PartialEq)]
pub struct TabReply {
    pub answer: Answer,
    pub timing: Option<Timing>,
}

/// Ask the model loaded as `model` to answer `task` (on `runner`, the
/// model-run line), at most `max_tokens` new tokens, with no timeout (a
/// model in the tab is no server: `in_tab::PACE_NOTE`); `on_text` sees the
/// answer as it is written. Cancel on the job line stops the answer (llama.cpp checks
/// between tokens, so a prompt being read is read first).
pub async fn answer(
    runner: Runner,
    task: Arc<Task>,
    model: String,
    max_tokens: u32,
    on_text: impl Fn(Writing) + 'static,
) -> Result<TabReply, UiError> {
    let endpoint = in_tab::endpoint(&model, max_tokens);
    endpoint.validate().map_err(UiError::invalid)?;
    let what = format!("{model} answers {} in this tab", task.name);
    runner
        .run(Job::new(what).shown_on(&["teach"]), move |ctx| async move {
            let request = endpoint.request(&task.prompt());
            let watch = ctx.clone();
            let stopping = std::cell::Cell::new(false);
            let reply = tab_model::post_streaming(&request, move |w| {
                if watch.cancelled() && !stopping.replace(true) {
                    spawn_local(async {
                        let _ = tab_model::stop().await;
                    });
                }
                on_text(w);
            })
            .await;
            if ctx.cancelled() {
                return Err(UiError::cancelled(format!("Cancelled: {model} stopped writing.")));
            }
            let timing = reply.as_ref().ok().and_then(|r| in_tab::timing_of(&r.body));
            match read_reply(&endpoint, reply.as_ref()) {
                Outcome::Answer(answer) => {
                    ctx.done(match &timing {
                        Some(t) => format!("{model} answered: {}.", t.words()),
                        None => format!("{model} answered."),
                    });
                    Ok(TabReply { answer, timing })
                }
                Outcome::Retry { reason, .. }
                | Outcome::TaskFailed { reason }
                | Outcome::Stop { reason } => Err(UiError::invalid(reason)),
            }
        })
        .await
}
