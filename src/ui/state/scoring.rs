//! Scoring state: the options, the export fields and the per-task score
//! cache, and one scoring pass over it. Every answered task is turned into the
//! `ModelOutput` the CLI would read from the exported outputs file
//! (`repoqa::scoring::answers::model_output`) and scored by the compute engine
//! (`repoqa::engine`, `Scorer::evaluate` in the engine's worker). Evaluations
//! are cached per task and recomputed only when the task's answer, the
//! scoring options, the task or the dataset changed, so typing in one answer
//! box re-scores one task.
//!
//! A pass is synchronous: what the cache holds is scored, the rest is
//! *pending* (never shown as a pass or a fail, never in a table) and queued
//! for the engine; when its answers come back they go into the cache and
//! [`Scoring::version`] moves, so every view re-reads. Shared by the answer
//! boxes (one verdict each) and the Results page (all of them) through
//! `AppState::scoring`. Scoring many answers at once (an import, new
//! options) is a job: `jobs/scoring.rs` fills this cache first.

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::engine::{Reply, Request};
use repoqa::input::dataset::Dataset;
use repoqa::report::Task;
use repoqa::report::{ModelOutput, TaskResult, Unanswered, UnansweredScoring};
use repoqa::scoring::score::{Evaluation, ScoreOptions, ScoreTable};

use crate::ui::browser::engine;
use crate::ui::browser::time::sleep_ms;
use crate::ui::error::UiError;
use crate::ui::storage;

/// One answered task, scored.
#[derive(Debug)]
pub struct TaskScore {
    pub task: Arc<Task>,
    pub answer: String,
    /// The line the CLI would read, or why it could not be made.
    pub output: Result<ModelOutput, UiError>,
    /// The evaluation, or why scoring failed (e.g. the task's repo is not in
    /// the loaded dataset); [`UiError::Pending`] while the engine has it.
    pub result: Result<Evaluation, UiError>,
}

impl TaskScore {
    /// The official pass rule at threshold `t` (false while pending).
    pub fn passes(&self, t: f64) -> bool {
        self.result.as_ref().map(|e| e.passes(t)).unwrap_or(false)
    }

    /// Its score is still being computed.
    pub fn pending(&self) -> bool {
        self.result.as_ref().is_err_and(UiError::is_pending)
    }

    /// The engine failed to score it: no verdict at all, pass or fail.
    pub fn unscored(&self) -> bool {
        matches!(self.result, Err(UiError::Engine(_)))
    }
}

/// Everything scored for the answered tasks, in task order.
#[derive(Debug)]
pub struct ScoredSet {
    pub items: Vec<Arc<TaskScore>>,
    /// `results` of the SCORES file: language → records, languages in order
    /// of first appearance (as `compute_score` groups the outputs file).
    pub results: IndexMap<String, Vec<TaskResult>>,
    /// The pass@1 table, or why there is none (no answers; some still
    /// being scored: [`UiError::Pending`]).
    pub table: Result<ScoreTable, UiError>,
    /// Tasks of the Run page's selection without an answer, and how the
    /// table counts them (as `repoqa run` does; `None`: every one answered).
    pub unanswered: Option<Unanswered>,
    /// Tasks not in the cache in this pass (now with the engine), and the
    /// time the pass took.
    pub rescored: usize,
    /// Of them, the tasks whose score has not come back yet (items and
    /// unanswered tasks counted as failures alike).
    pub pending: usize,
    pub ms: f64,
}

/// A shared value compared by identity, so memos only notify on a new pass.
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// What a cached evaluation depends on.
/// The task and dataset are compared by identity (rebuilt tasks or a new
/// dataset are new allocations); holding them keeps their addresses from
/// being reused while the entry lives.
#[derive(Clone)]
struct CacheKey {
    answer: String,
    options: ScoreOptions,
    task: Arc<Task>,
    dataset: Option<Arc<Dataset>>,
}

impl PartialEq for CacheKey {
    fn eq(&self, o: &Self) -> bool {
        let same_ds = match (&self.dataset, &o.dataset) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        self.answer == o.answer
            && self.options == o.options
            && Arc::ptr_eq(&self.task, &o.task)
            && same_ds
    }
}

/// Where a score is kept: the task id and the options it is scored with.
type Slot = (String, ScoreOptions);

/// An answer asked of the engine: its slot and the answer itself (answers
/// of two runs to one task are two asks, never one replacing the other).
type Ask = (String, ScoreOptions, String);

/// A score kept, with what it was computed from.
type Kept = (CacheKey, Arc<TaskScore>);

/// Answers kept per slot (a typed answer, the runs shown side by side).
const KEPT_PER_SLOT: usize = 4;

/// An answer for the engine to score.
struct Todo {
    key: CacheKey,
    dataset: Arc<Dataset>,
    output: ModelOutput,
}

/// Answers per request to the engine.
const CHUNK: usize = 50;

/// Scoring state: options, export fields and the per-task cache.
#[derive(Clone, Copy)]
pub struct Scoring {
    pub options: RwSignal<ScoreOptions>,
    /// Model name recorded in the SCORES file.
    pub model_name: RwSignal<String>,
    /// `eval_date` to record; empty = now.
    pub eval_date: RwSignal<String>,
    /// NOT UPSTREAM: the model's stated training cutoff (`YYYY-MM-DD`),
    /// recorded as `model_cutoff`; empty = none.
    pub model_cutoff: RwSignal<String>,
    /// How selected tasks without an answer count (`repoqa run`'s default:
    /// as failures; `--score-answered-only`: left out).
    pub unanswered: RwSignal<UnansweredScoring>,
    /// The last re-scoring for an options change: (sequence number,
    /// answers scored, milliseconds).
    pub last_rescore: RwSignal<(u32, usize, f64)>,
    /// The last scoring work the user started (an import or an options
    /// change): what it was, answers scored, milliseconds. What the
    /// Results page reports, so it never says "0 re-scored" right after an
    /// import scored everything in advance.
    pub last_scoring: RwSignal<Option<(String, usize, f64)>>,
    /// Whether saved answers were read back (or the read was started).
    pub answers_restore_started: StoredValue<bool>,
    /// Moves each time scores come back from the engine into the cache.
    pub version: RwSignal<u64>,
    /// By task id and options, the last few answers scored there: an
    /// options change warms its own entries while the page still shows the
    /// ones in force, and two answer sets shown at once (two runs) keep
    /// theirs.
    cache: StoredValue<HashMap<Slot, Vec<Kept>>, LocalStorage>,
    /// Answers waiting for the engine (task id → the newest), and those
    /// it has now.
    queue: StoredValue<IndexMap<Ask, Todo>, LocalStorage>,
    in_flight: StoredValue<HashMap<Ask, CacheKey>, LocalStorage>,
    draining: StoredValue<bool>,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring::new()
    }
}

impl Scoring {
    pub fn new() -> Scoring {
        Scoring {
            options: RwSignal::new(ScoreOptions::default()),
            model_name: RwSignal::new("model".to_string()),
            eval_date: RwSignal::new(String::new()),
            model_cutoff: RwSignal::new(String::new()),
            unanswered: RwSignal::new(UnansweredScoring::default()),
            last_rescore: RwSignal::new((0, 0, 0.0)),
            last_scoring: RwSignal::new(None),
            answers_restore_started: StoredValue::new(false),
            version: RwSignal::new(0),
            cache: StoredValue::new_local(HashMap::new()),
            queue: StoredValue::new_local(IndexMap::new()),
            in_flight: StoredValue::new_local(HashMap::new()),
            draining: StoredValue::new(false),
        }
    }

    fn insert(self, slot: Slot, key: CacheKey, score: Arc<TaskScore>) {
        self.cache.update_value(|c| {
            let kept = c.entry(slot).or_default();
            kept.retain(|(k, _)| *k != key);
            kept.push((key, score));
            if kept.len() > KEPT_PER_SLOT {
                kept.remove(0);
            }
        });
    }

    /// Whether nothing waits for the engine.
    fn settled(self) -> bool {
        !self.draining.get_value() && self.queue.with_value(IndexMap::is_empty)
    }
}

/// One scoring pass: cache hits, and the misses queued for the engine.
pub struct Pass {
    dataset: Option<Arc<Dataset>>,
    options: ScoreOptions,
    /// Cache misses so far.
    pub rescored: usize,
    /// Answers queued in this pass (the engine is asked after it).
    queued: usize,
}

impl Pass {
    pub fn new(dataset: Option<&Arc<Dataset>>, options: ScoreOptions) -> Pass {
        Pass { dataset: dataset.cloned(), options, rescored: 0, queued: 0 }
    }

    /// Score one answer from the cache, or queue it for the engine (its
    /// result is then [`UiError::Pending`] until it is back).
    pub fn score(
        &mut self,
        scoring: Scoring,
        task: &Arc<Task>,
        id: &str,
        answer: &str,
        line: usize,
    ) -> Arc<TaskScore> {
        let key = CacheKey {
            answer: answer.to_string(),
            options: self.options,
            task: task.clone(),
            dataset: self.dataset.clone(),
        };
        let slot: Slot = (id.to_string(), self.options);
        let cache = scoring.cache;
        if let Some(hit) = cache
            .with_value(|c| c.get(&slot)?.iter().find(|(k, _)| *k == key).map(|(_, s)| s.clone()))
        {
            return hit;
        }
        self.rescored += 1;
        let output =
            repoqa::scoring::answers::model_output(task, answer, line).map_err(UiError::Invalid);
        let score = |result| {
            Arc::new(TaskScore {
                task: task.clone(),
                answer: answer.to_string(),
                output: output.clone(),
                result,
            })
        };
        let (todo, result) = match (&output, &self.dataset) {
            (Err(e), _) => (None, Err(e.clone())),
            (Ok(_), None) => (None, Err(UiError::invalid("no dataset is loaded"))),
            (Ok(o), Some(d)) => (
                Some(Todo { key: key.clone(), dataset: d.clone(), output: o.clone() }),
                Err(UiError::Pending),
            ),
        };
        let Some(todo) = todo else {
            let s = score(result);
            scoring.insert(slot, key, s.clone());
            return s;
        };
        let ask: Ask = (slot.0.clone(), slot.1, answer.to_string());
        let waiting = scoring.queue.with_value(|q| q.get(&ask).is_some_and(|t| t.key == key))
            || scoring.in_flight.with_value(|f| f.get(&ask).is_some_and(|k| *k == key));
        if !waiting {
            scoring.queue.update_value(|q| {
                q.shift_remove(&ask);
                q.insert(ask, todo);
            });
            self.queued += 1;
        }
        score(result)
    }

    /// After the pass: ask the engine for what it queued (in the
    /// background; [`Scoring::version`] moves when answers are back).
    pub fn finish(self, scoring: Scoring) {
        if self.queued > 0 && !scoring.draining.get_value() {
            spawn_local(drain(scoring));
        }
    }
}

/// Send the queue to the engine a chunk at a time until it is empty,
/// filling the cache (an engine that fails gives each of its answers that
/// error). One drain runs at a time.
async fn drain(scoring: Scoring) {
    if scoring.draining.get_value() {
        return;
    }
    scoring.draining.set_value(true);
    loop {
        // A chunk of answers about one dataset under one set of options,
        // oldest first.
        let batch: Vec<(Ask, Todo)> = scoring
            .queue
            .try_update_value(|q| {
                let Some((dataset, options)) =
                    q.first().map(|(_, t)| (t.dataset.clone(), t.key.options))
                else {
                    return Vec::new();
                };
                let asks: Vec<Ask> = q
                    .iter()
                    .filter(|(_, t)| Arc::ptr_eq(&t.dataset, &dataset) && t.key.options == options)
                    .take(CHUNK)
                    .map(|(ask, _)| ask.clone())
                    .collect();
                asks.into_iter().filter_map(|a| q.shift_remove(&a).map(|t| (a, t))).collect()
            })
            .unwrap_or_default();
        let Some((_, first)) = batch.first() else { break };
        let (dataset, options) = (first.dataset.clone(), first.key.options);
        scoring.in_flight.update_value(|f| {
            for (ask, t) in &batch {
                f.insert(ask.clone(), t.key.clone());
            }
        });
        let outputs: Vec<ModelOutput> = batch.iter().map(|(_, t)| t.output.clone()).collect();
        let n = outputs.len();
        let results = evaluate(&dataset, options, outputs).await;
        scoring.in_flight.update_value(|f| {
            for (ask, _) in &batch {
                f.remove(ask);
            }
        });
        let results: Vec<Result<Evaluation, UiError>> = match results {
            Ok(r) => r,
            Err(e) => (0..n).map(|_| Err(UiError::Engine(e.to_string()))).collect(),
        };
        for (((id, options, _), t), result) in batch.into_iter().zip(results) {
            let score = Arc::new(TaskScore {
                task: t.key.task.clone(),
                answer: t.key.answer.clone(),
                output: Ok(t.output),
                result,
            });
            scoring.insert((id, options), t.key, score);
        }
        scoring.version.update(|v| *v += 1);
    }
    scoring.draining.set_value(false);
}

/// The engine's evaluations of `outputs` (one per output, in order).
async fn evaluate(
    dataset: &Arc<Dataset>,
    options: ScoreOptions,
    outputs: Vec<ModelOutput>,
) -> Result<Vec<Result<Evaluation, UiError>>, UiError> {
    let n = outputs.len();
    let id = engine::dataset(dataset, "the loaded dataset").await?;
    let reply = engine::call(&Request::Evaluate { dataset: id, options, outputs }).await?;
    let Reply::Evaluate { evaluations } = reply else {
        return Err(UiError::invalid("the engine answered another question than scoring"));
    };
    if evaluations.len() != n {
        return Err(UiError::invalid(format!(
            "the engine scored {} of {n} answers",
            evaluations.len()
        )));
    }
    Ok(evaluations.into_iter().map(|e| e.map_err(UiError::Invalid)).collect())
}

/// Wait until every queued answer is back from the engine (a job's way to
/// have the cache full before it moves on).
pub async fn settle(scoring: Scoring) {
    while !scoring.settled() {
        if scoring.draining.get_value() {
            sleep_ms(10).await;
        } else {
            drain(scoring).await;
        }
    }
}

/// Storage key of the scoring options and export fields.
const KEY_SCORING: &str = "scoring";

/// The scoring options and export fields as stored (IndexedDB).
#[derive(Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
struct StoredScoring {
    #[serde(flatten)]
    options: ScoreOptions,
    model_name: Option<String>,
    eval_date: Option<String>,
    model_cutoff: Option<String>,
    /// `UnansweredScoring::as_str`.
    unanswered: Option<String>,
}

/// Save the scoring options, model name and eval_date (IndexedDB), so a
/// reload scores the same way; failures are logged.
pub fn persist_scoring(scoring: Scoring) {
    let stored = StoredScoring {
        options: scoring.options.get_untracked(),
        model_name: Some(scoring.model_name.get_untracked()),
        eval_date: Some(scoring.eval_date.get_untracked()),
        model_cutoff: Some(scoring.model_cutoff.get_untracked()),
        unanswered: Some(scoring.unanswered.get_untracked().as_str().to_string()),
    };
    // Plain strings and flags: serializing cannot fail.
    let json = serde_json::to_string(&stored).unwrap_or_default();
    spawn_local(async move {
        if let Err(e) = storage::save_json(KEY_SCORING, &json).await {
            leptos::logging::warn!("scoring options not saved: {e}");
        }
    });
}

/// Put saved scoring options back (missing fields keep their defaults; a
/// record that cannot be read is left alone).
pub async fn restore_scoring(scoring: Scoring) {
    let Ok(Some(text)) = storage::load_json(KEY_SCORING).await else { return };
    let Ok(stored) = serde_json::from_str::<StoredScoring>(&text) else {
        leptos::logging::warn!("stored scoring options unreadable; the defaults are kept");
        return;
    };
    scoring.options.set(stored.options);
    if let Some(m) = stored.model_name {
        scoring.model_name.set(m);
    }
    if let Some(d) = stored.eval_date {
        scoring.eval_date.set(d);
    }
    if let Some(d) = stored.model_cutoff {
        scoring.model_cutoff.set(d);
    }
    if let Some(u) = stored.unanswered.as_deref().and_then(UnansweredScoring::parse) {
        scoring.unanswered.set(u);
    }
}
