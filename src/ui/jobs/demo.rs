//! The demo's sample answers and the one-click tour ("Try the demo" on
//! Home): the demo's tasks built, its sample answers scored, the Results
//! page shown.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::build::{build_queued, tasks_current};
use super::scoring::{import_answers, ImportReport};
use super::Runner;
use crate::ui::browser::dom::{focus_when_drawn, set_hash};
use crate::ui::browser::fetch::fetch_bytes;
use crate::ui::error::UiError;
use crate::ui::state::scoring::persist_scoring;
use crate::ui::state::AppState;

/// The demo's sample answers (public/demo/sample-answers.jsonl): written by
/// the project, some right and some wrong, so a first visit has a table and
/// charts.
pub const SAMPLE_ANSWERS_URL: &str = "demo/sample-answers.jsonl";
/// The model name they are recorded under: it says what they are.
pub const SAMPLE_MODEL: &str = "SAMPLE-answers-not-a-model";

/// Answers of the visitor's own (pasted, a file, or after Clear) are no
/// project samples: the set is no longer named for them ("model", nobody's,
/// until named).
pub fn unname_samples(state: AppState) {
    if state.scoring.model_name.with_untracked(|m| m == SAMPLE_MODEL) {
        state.scoring.model_name.set(crate::ui::state::runs::UNNAMED.to_string());
        persist_scoring(state.scoring);
    }
}

/// Is the loaded dataset the built-in demo? (Tracked.)
pub fn demo_loaded(state: AppState) -> bool {
    state.dataset.with(|d| d.as_ref().is_some_and(|d| d.origin.starts_with("demo")))
}

/// Fetch the sample answers and import them (`report` gets the outcome).
pub async fn import_samples(
    state: AppState,
    runner: Runner,
    report: impl Fn(Result<ImportReport, UiError>) + 'static,
) {
    let text = fetch_bytes(SAMPLE_ANSWERS_URL).await.and_then(|b| {
        String::from_utf8(b).map_err(|_| UiError::invalid("the sample answers are not UTF-8"))
    });
    match text {
        Ok(t) => {
            // They are nobody's run: with no answers yet (the only time
            // they are offered), the set is named for them, so no model's
            // run gets them (another model's run is named for that model).
            let unnamed =
                state.scoring.model_name.with_untracked(|m| m.trim().is_empty() || m == "model");
            if unnamed || state.answers.with_untracked(|a| a.is_empty()) {
                state.scoring.model_name.set(SAMPLE_MODEL.to_string());
                persist_scoring(state.scoring);
            }
            import_answers(
                state,
                runner,
                t,
                "SAMPLE answers (written by the project, not a model)".into(),
                report,
            )
        }
        Err(e) => report(Err(e.context("sample answers"))),
    }
}

/// The tour: build the demo's tasks (unless built for these settings),
/// score the sample answers (unless there are answers already), and show
/// the page `then` (a hash without `#`: Results from Home, the guided
/// tour's own step from it). What fails is written to `error`.
pub fn try_demo(
    state: AppState,
    runner: Runner,
    error: RwSignal<Option<String>>,
    then: &'static str,
) {
    error.set(None);
    spawn_local(async move {
        if state.tasks.with_untracked(Vec::is_empty) || !untrack(|| tasks_current(state)) {
            if let Err(e) = build_queued(state, runner).await {
                error.set(Some(e.to_string()));
                return;
            }
        }
        if state.answers.with_untracked(|a| a.is_empty()) {
            import_samples(state, runner, move |r| {
                if let Err(e) = r {
                    error.set(Some(e.to_string()));
                }
            })
            .await;
        }
        if error.get_untracked().is_none() {
            set_hash(then);
            // The button is gone with its page: the focus goes to the
            // score (or the page, while the engine scores), not <body>.
            if then == "results" {
                focus_when_drawn("score-headline", "app-main", 300);
            }
        }
    });
}
