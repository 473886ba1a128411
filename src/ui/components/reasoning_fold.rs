//! What the run log says of a task's answer, under the answer: a cut at
//! the token limit, and the model's thinking folded, as text, with its
//! token count (Results' task detail and the task view).

use leptos::prelude::*;

use crate::ui::format;
use crate::ui::state::run::RunState;

/// The run record's notes on task `task_id`'s answer; `prefix` names the
/// elements (`{prefix}-cut`, `{prefix}-reasoning`). Nothing when the run
/// log has no answer for it, or the answer came without thinking.
#[component]
pub fn ReasoningFold(task_id: String, prefix: &'static str) -> impl IntoView {
    let rs = use_context::<RunState>();
    move || {
        let record = rs.and_then(|rs| rs.answer_record(&task_id))?;
        let cut = record.cut.then(|| {
            view! {
                <p class="warning" id=format!("{prefix}-cut")>{format!(
                    "This answer was cut at the token limit (finish reason {:?}): it is scored as it came, and may be incomplete.",
                    record.finish_reason.as_deref().unwrap_or("")
                )}</p>
            }
        });
        let tokens = record.usage.reasoning_tokens;
        let text = record.reasoning.clone().filter(|t| !t.trim().is_empty());
        let thinking = (text.is_some() || tokens.is_some()).then(|| {
            let count = tokens
                .map(|n| format!(", {} tokens", format::thousands(n as usize)))
                .unwrap_or_default();
            let inline = if record.reasoning_inline {
                "; taken out of the reply's <think> block (NOT UPSTREAM)"
            } else {
                ""
            };
            view! {
                <details class="reasoning" id=format!("{prefix}-reasoning") data-tokens=tokens.unwrap_or(0)>
                    <summary>{format!("The model's thinking{count}: not part of the answer, not scored{inline}")}</summary>
                    {match text {
                        Some(t) => view! { <pre class="code" tabindex="0" aria-label="the model's thinking">{t}</pre> }.into_any(),
                        None => view! { <p class="muted">"The API counted the thinking's tokens but did not show it."</p> }.into_any(),
                    }}
                </details>
            }
        });
        Some(view! { {cut}{thinking} })
    }
}
