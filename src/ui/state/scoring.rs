//! Scoring state: the options, the export fields and the per-task score
//! cache, and one scoring pass over it. Every answered task is turned into the
//! `ModelOutput` the CLI would read from the exported outputs file
//! (`repoqa::answers::model_output`) and scored by `repoqa::score::Scorer`.
//! Evaluations are cached per task and recomputed only when the task's
//! answer, the scoring options, the task or the dataset changed, so typing in
//! one answer box re-scores one task.
//!
//! Shared by the answer boxes (one verdict each) and the Results page (all
//! of them) through `AppState::scoring`. Scoring many answers at once (an
//! import, new options) is a job: `jobs/scoring.rs` warms this cache.

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::context::Task;
use repoqa::dataset::Dataset;
use repoqa::report::{ModelOutput, TaskResult, Unanswered, UnansweredScoring};
use repoqa::score::{Evaluation, ScoreOptions, ScoreTable, Scorer};

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
    /// the loaded dataset).
    pub result: Result<Evaluation, UiError>,
}

impl TaskScore {
    /// The official pass rule at threshold `t`.
    pub fn passes(&self, t: f64) -> bool {
        self.result.as_ref().map(|e| e.passes(t)).unwrap_or(false)
    }
}

/// Everything scored for the answered tasks, in task order.
#[derive(Debug)]
pub struct ScoredSet {
    pub items: Vec<Arc<TaskScore>>,
    /// `results` of the SCORES file: language → records, languages in order
    /// of first appearance (as `compute_score` groups the outputs file).
    pub results: IndexMap<String, Vec<TaskResult>>,
    /// The pass@1 table, or why there is none (no answers).
    pub table: Result<ScoreTable, UiError>,
    /// Tasks of the Run page's selection without an answer, and how the
    /// table counts them (as `repoqa run` does; `None`: every one answered).
    pub unanswered: Option<Unanswered>,
    /// Tasks scored in this pass (cache misses), and the time it took.
    pub rescored: usize,
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

/// Scoring state: options, export fields and the per-task cache.
#[derive(Clone, Copy)]
pub struct Scoring {
    pub options: RwSignal<ScoreOptions>,
    /// Model name recorded in the SCORES file.
    pub model_name: RwSignal<String>,
    /// `eval_date` to record; empty = now.
    pub eval_date: RwSignal<String>,
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
    cache: StoredValue<HashMap<String, (CacheKey, Arc<TaskScore>)>, LocalStorage>,
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
            unanswered: RwSignal::new(UnansweredScoring::default()),
            last_rescore: RwSignal::new((0, 0, 0.0)),
            last_scoring: RwSignal::new(None),
            answers_restore_started: StoredValue::new(false),
            cache: StoredValue::new_local(HashMap::new()),
        }
    }
}

/// One scoring pass: a `Scorer` (which prepares each repo's references
/// once per pass) and the count of cache misses.
pub struct Pass<'d> {
    dataset: Option<&'d Arc<Dataset>>,
    options: ScoreOptions,
    scorer: Option<Scorer<'d>>,
    /// Cache misses so far.
    pub rescored: usize,
}

impl<'d> Pass<'d> {
    pub fn new(dataset: Option<&'d Arc<Dataset>>, options: ScoreOptions) -> Pass<'d> {
        Pass {
            dataset,
            options,
            scorer: dataset.map(|d| Scorer::new(d.as_ref(), options)),
            rescored: 0,
        }
    }

    /// Score one answer (or take it from the cache).
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
            dataset: self.dataset.cloned(),
        };
        let cache = scoring.cache;
        if let Some(hit) =
            cache.with_value(|c| c.get(id).filter(|(k, _)| *k == key).map(|(_, s)| s.clone()))
        {
            return hit;
        }
        self.rescored += 1;
        let output = repoqa::answers::model_output(task, answer, line).map_err(UiError::Invalid);
        let result = match (&output, self.scorer.as_mut()) {
            (Err(e), _) => Err(e.clone()),
            (Ok(_), None) => Err(UiError::invalid("no dataset is loaded")),
            (Ok(o), Some(scorer)) => scorer.evaluate(o).map_err(UiError::from),
        };
        let score =
            Arc::new(TaskScore { task: task.clone(), answer: answer.to_string(), output, result });
        cache.update_value(|c| {
            c.insert(id.to_string(), (key, score.clone()));
        });
        score
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
    if let Some(u) = stored.unanswered.as_deref().and_then(UnansweredScoring::parse) {
        scoring.unanswered.set(u);
    }
}
