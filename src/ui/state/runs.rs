//! One run per model and length: the answers belong to the model that
//! gave them, at the code-context length its tasks were built at (the
//! same task ids recur at every length, so a run at 8k must never be taken
//! for the run at 16k). The current run is live (the answers the Results
//! page scores, the Run page's run log, the model name the exports carry,
//! `RunState::length`); every other run is kept whole beside it (its
//! answers and run log, in IndexedDB under `KEY_RUN_SHELF`) until the
//! visitor switches back to it or asks that model at that length again,
//! which resumes it.

use std::collections::BTreeMap;

use leptos::prelude::*;
use repoqa::llm::runlog::{read_runlog, RecordStatus};

use super::answers::KEY_ANSWERS;
use super::app::AppState;
use super::run::{log_text, save_log, RunState, ShelvedRun, KEY_RUN_LENGTH, KEY_RUN_SHELF};
use super::scoring::persist_scoring;
use crate::ui::error::UiError;
use crate::ui::storage;

/// The model name of answers nobody named (`AppState::reset`'s).
pub const UNNAMED: &str = "model";

/// A run kept in this browser as the switch lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeptRun {
    pub model: String,
    /// Its code-context length (`None`: not known).
    pub ntoken: Option<usize>,
    pub answered: usize,
}

impl KeptRun {
    /// The switch's value for this run: the model, and its length after a
    /// tab (no model name holds one).
    pub fn key(&self) -> String {
        run_key(&self.model, self.ntoken)
    }
}

/// A run's key (see [`KeptRun::key`]).
pub fn run_key(model: &str, ntoken: Option<usize>) -> String {
    match ntoken {
        Some(n) => format!("{model}\t{n}"),
        None => model.to_string(),
    }
}

/// The model and length a [`run_key`] names.
pub fn parse_run_key(key: &str) -> (String, Option<usize>) {
    match key.rsplit_once('\t') {
        Some((m, n)) => match n.parse() {
            Ok(n) => (m.to_string(), Some(n)),
            Err(_) => (key.to_string(), None),
        },
        None => (key.to_string(), None),
    }
}

/// The code-context length the tasks are built at now (untracked).
pub fn tasks_length(app: AppState) -> Option<usize> {
    app.tasks_settings.with_untracked(|s| s.as_ref().map(|s| s.code_context_size))
}

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

/// Is the current run (`owner` at `owner_len`) the run of `model` at
/// `ntoken`? Answers nobody named, or of no known length, are taken as
/// theirs (an outputs file imported to be finished by a run).
fn is_current(owner: &str, owner_len: Option<usize>, model: &str, ntoken: Option<usize>) -> bool {
    owner == UNNAMED
        || (owner == model && (owner_len.is_none() || ntoken.is_none() || owner_len == ntoken))
}

/// Where `model`'s run at `ntoken` is on `shelf`: the one at that length,
/// else one of no known length.
fn shelved_at(shelf: &[ShelvedRun], model: &str, ntoken: Option<usize>) -> Option<usize> {
    shelf
        .iter()
        .position(|r| r.model == model && r.ntoken == ntoken)
        .or_else(|| shelf.iter().position(|r| r.model == model && r.ntoken.is_none()))
        .or_else(|| ntoken.is_none().then(|| shelf.iter().position(|r| r.model == model)).flatten())
}

/// The runs kept, with their answer counts (current first).
pub fn runs_kept(app: AppState, rs: RunState) -> Vec<KeptRun> {
    let mut out = vec![KeptRun {
        model: current_owner(app, rs),
        ntoken: rs.length.get(),
        answered: app.answers.with(BTreeMap::len),
    }];
    rs.shelf.with(|s| {
        out.extend(s.iter().map(|r| KeptRun {
            model: r.model.clone(),
            ntoken: r.ntoken,
            answered: r.answers.len(),
        }))
    });
    out
}

/// The answers of `model` at `ntoken` kept on the shelf (`None`: none kept
/// there, or they are the current ones).
pub fn shelved_answers(
    rs: RunState,
    model: &str,
    ntoken: Option<usize>,
) -> Option<BTreeMap<String, String>> {
    rs.shelf.with_untracked(|s| shelved_at(s, model, ntoken).map(|i| s[i].answers.clone()))
}

/// `f` of the answers a run of `model` at the tasks' length would resume
/// (tracked): the current ones when they are that run's or nobody's, its
/// kept run's, or none for a run not started yet.
pub fn with_answers_of<R>(
    app: AppState,
    rs: RunState,
    model: &str,
    f: impl FnOnce(&BTreeMap<String, String>) -> R,
) -> R {
    app.scoring.model_name.track();
    rs.log.track();
    let ntoken = app.tasks_settings.with(|s| s.as_ref().map(|s| s.code_context_size));
    let owner = current_owner(app, rs);
    let model = model.trim();
    if model.is_empty() || is_current(&owner, rs.length.get(), model, ntoken) {
        return app.answers.with(f);
    }
    rs.shelf.with(|shelf| match shelved_at(shelf, model, ntoken) {
        Some(i) => f(&shelf[i].answers),
        None => f(&BTreeMap::new()),
    })
}

/// Make `model`'s run at `ntoken` the current one: the current answers and
/// run log are kept under their model and length (unless there are none),
/// the run switched to is put back (none for a run not started yet), and
/// all is stored before this returns. Answers nobody named, or of no known
/// length, are taken as this run's. Returns how many answers it has.
pub async fn switch_run(
    app: AppState,
    rs: RunState,
    model: &str,
    ntoken: Option<usize>,
) -> Result<usize, UiError> {
    let model = model.trim();
    merge_saved_answers(app).await;
    let owner = current_owner(app, rs);
    let owner_len = rs.length.get_untracked();
    if is_current(&owner, owner_len, model, ntoken) {
        name_current(app, model);
        if ntoken.is_some() && owner_len != ntoken {
            set_length(rs, ntoken).await?;
        }
        return Ok(app.answers.with_untracked(BTreeMap::len));
    }
    let mut shelf = rs.shelf.get_untracked();
    let incoming =
        shelved_at(&shelf, model, ntoken).map(|i| shelf.remove(i)).unwrap_or_else(|| ShelvedRun {
            model: model.to_string(),
            ntoken,
            ..ShelvedRun::default()
        });
    let outgoing = ShelvedRun {
        model: owner,
        ntoken: owner_len,
        answers: app.answers.get_untracked(),
        log: rs.log.with_untracked(|l| log_text(l)),
    };
    if !outgoing.answers.is_empty() || !outgoing.log.is_empty() {
        shelf.retain(|r| r.model != outgoing.model || r.ntoken != outgoing.ntoken);
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
    set_length(rs, incoming.ntoken.or(ntoken)).await?;
    let n = incoming.answers.len();
    rs.shelf.set(shelf);
    app.answers.set(incoming.answers);
    rs.log.set(records);
    name_current(app, model);
    Ok(n)
}

/// The current run's length, stored.
async fn set_length(rs: RunState, ntoken: Option<usize>) -> Result<(), UiError> {
    let json = serde_json::to_string(&ntoken).unwrap_or_else(|_| "null".to_string());
    storage::save_json(KEY_RUN_LENGTH, &json).await?;
    rs.length.set(ntoken);
    Ok(())
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
