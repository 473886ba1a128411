//! One run per model: the answers belong to the model that gave them.
//! The current run is live (the answers the Results page scores, the Run
//! page's run log, the model name the exports carry); every other model's
//! run is kept whole beside it (its answers and run log, in IndexedDB under
//! `KEY_RUN_SHELF`) until the visitor switches back to it or runs that
//! model again, which resumes it.

use std::collections::BTreeMap;

use leptos::prelude::*;
use repoqa::llm::runlog::{read_runlog, RecordStatus};

use super::answers::KEY_ANSWERS;
use super::app::AppState;
use super::run::{log_text, save_log, RunState, ShelvedRun, KEY_RUN_SHELF};
use super::scoring::persist_scoring;
use crate::ui::error::UiError;
use crate::ui::storage;

/// The model name of answers nobody named (`AppState::reset`'s).
pub const UNNAMED: &str = "model";

/// Whose the current answers are: the model name they carry, or the model
/// the run log's last answer came from; [`UNNAMED`] when neither says.
pub fn current_owner(app: AppState, rs: RunState) -> String {
    let name = app.scoring.model_name.get_untracked();
    let name = name.trim();
    if !name.is_empty() && name != UNNAMED {
        return name.to_string();
    }
    rs.log
        .with_untracked(|log| {
            log.iter().rev().find(|r| r.status == RecordStatus::Answered).map(|r| r.model.clone())
        })
        .unwrap_or_else(|| UNNAMED.to_string())
}

/// The models of the runs kept, with their answer counts (current first).
pub fn runs_kept(app: AppState, rs: RunState) -> Vec<(String, usize)> {
    let mut out = vec![(current_owner(app, rs), app.answers.with(BTreeMap::len))];
    rs.shelf.with(|s| out.extend(s.iter().map(|r| (r.model.clone(), r.answers.len()))));
    out
}

/// `f` of `model`'s answers (tracked): the current ones when they are
/// `model`'s or nobody's, its kept run's, or none for a model not run yet.
pub fn with_answers_of<R>(
    app: AppState,
    rs: RunState,
    model: &str,
    f: impl FnOnce(&BTreeMap<String, String>) -> R,
) -> R {
    app.scoring.model_name.track();
    rs.log.track();
    let owner = current_owner(app, rs);
    let model = model.trim();
    if owner == model || owner == UNNAMED || model.is_empty() {
        return app.answers.with(f);
    }
    rs.shelf.with(|shelf| match shelf.iter().find(|r| r.model == model) {
        Some(r) => f(&r.answers),
        None => f(&BTreeMap::new()),
    })
}

/// Make `model`'s run the current one: the current answers and run log
/// are kept under their model (unless there are none), `model`'s own are
/// put back (none for a model not run yet), and all is stored before this
/// returns. Answers nobody named are taken as `model`'s (an outputs file
/// imported to be finished by a run). Returns how many answers `model`
/// has.
pub async fn switch_run(app: AppState, rs: RunState, model: &str) -> Result<usize, UiError> {
    let model = model.trim();
    merge_saved_answers(app).await;
    let owner = current_owner(app, rs);
    if owner == model || owner == UNNAMED {
        name_current(app, model);
        return Ok(app.answers.with_untracked(BTreeMap::len));
    }
    let mut shelf = rs.shelf.get_untracked();
    let incoming = shelf
        .iter()
        .position(|r| r.model == model)
        .map(|i| shelf.remove(i))
        .unwrap_or_else(|| ShelvedRun { model: model.to_string(), ..ShelvedRun::default() });
    let outgoing = ShelvedRun {
        model: owner,
        answers: app.answers.get_untracked(),
        log: rs.log.with_untracked(|l| log_text(l)),
    };
    if !outgoing.answers.is_empty() || !outgoing.log.is_empty() {
        shelf.retain(|r| r.model != outgoing.model);
        shelf.push(outgoing);
    }
    let shelf_json = serde_json::to_string(&shelf)
        .map_err(|e| UiError::Storage(format!("runs not kept: {e}")))?;
    let answers_json = serde_json::to_string(&incoming.answers)
        .map_err(|e| UiError::Storage(format!("answers not saved: {e}")))?;
    let records = read_runlog(&incoming.log).records;
    // Stored first: a reload in between finds every run whole (the one
    // going out is on the shelf before the current slot is overwritten).
    storage::save_json(KEY_RUN_SHELF, &shelf_json).await?;
    storage::save_json(KEY_ANSWERS, &answers_json).await?;
    save_log(&records).await?;
    let n = incoming.answers.len();
    rs.shelf.set(shelf);
    app.answers.set(incoming.answers);
    rs.log.set(records);
    name_current(app, model);
    Ok(n)
}

/// The current answers carry `model`'s name (and so do their exports).
fn name_current(app: AppState, model: &str) {
    if app.scoring.model_name.with_untracked(|m| m != model) {
        app.scoring.model_name.set(model.to_string());
        persist_scoring(app.scoring);
    }
}

/// Merge the answers saved in IndexedDB (a reload restores them lazily):
/// what is kept or asked must know every stored answer.
pub async fn merge_saved_answers(app: AppState) {
    if let Ok(Some(json)) = storage::load_json(KEY_ANSWERS).await {
        if let Ok(saved) = serde_json::from_str::<BTreeMap<String, String>>(&json) {
            if saved.keys().any(|k| app.answers.with_untracked(|a| !a.contains_key(k))) {
                app.answers.update(|a| {
                    for (k, v) in saved {
                        a.entry(k).or_insert(v);
                    }
                });
            }
        }
    }
}
