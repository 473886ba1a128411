//! Scoring as answers arrive. Every answered task is turned into the
//! `ModelOutput` the CLI would read from the exported outputs file
//! (`repoqa::answers::model_output`) and scored by `repoqa::score::Scorer`.
//! Evaluations are cached per task and recomputed only when the task's
//! answer, the scoring options, the task or the dataset changed, so typing in
//! one answer box re-scores one task.
//!
//! Shared by the answer boxes (one verdict each) and the Results page (all
//! of them) through `AppState::scoring`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use indexmap::IndexMap;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::context::Task;
use repoqa::dataset::Dataset;
use repoqa::report::{ModelOutput, TaskResult};
use repoqa::score::{
    pass_table, task_result, Candidates, Evaluation, ScoreOptions, ScoreTable, Scorer,
};

use super::state::{AppState, Job};
use super::storage;

/// Storage key of the answers (a JSON object task id → answer).
pub const KEY_ANSWERS: &str = "answers";

/// One answered task, scored.
#[derive(Debug)]
pub struct TaskScore {
    pub task: Arc<Task>,
    pub answer: String,
    /// The line the CLI would read, or why it could not be made.
    pub output: Result<ModelOutput, String>,
    /// The evaluation, or why scoring failed (e.g. the task's repo is not in
    /// the loaded dataset).
    pub result: Result<Evaluation, String>,
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
    pub table: Result<ScoreTable, String>,
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
    /// The last re-scoring for an options change: (sequence number,
    /// answers scored, milliseconds).
    pub last_rescore: RwSignal<(u32, usize, f64)>,
    /// Whether saved answers were read back (or the read was started).
    answers_restore_started: StoredValue<bool>,
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
            last_rescore: RwSignal::new((0, 0, 0.0)),
            answers_restore_started: StoredValue::new(false),
            cache: StoredValue::new_local(HashMap::new()),
        }
    }
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

/// Score every answered task (tracked: tasks, answers, dataset, options).
pub fn score_set(state: AppState) -> Shared<ScoredSet> {
    let t0 = now_ms();
    let tasks = state.tasks.get();
    let answers = state.answers.get();
    let dataset = state.dataset.with(|d| d.as_ref().map(|d| d.dataset.clone()));
    let mut pass = Pass::new(dataset.as_ref(), state.scoring.options.get());
    let items: Vec<Arc<TaskScore>> = tasks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let id = t.task_id();
            let answer = answers.get(&id)?;
            Some(pass.score(state, t, &id, answer, i + 1))
        })
        .collect();
    let mut results: IndexMap<String, Vec<TaskResult>> = IndexMap::new();
    for s in &items {
        if let (Ok(o), Ok(e)) = (&s.output, &s.result) {
            results.entry(o.language.clone()).or_default().push(task_result(o, e));
        }
    }
    let table = pass_table(&results).map_err(|e| e.to_string());
    let rescored = pass.rescored;
    Shared(Arc::new(ScoredSet { items, results, table, rescored, ms: now_ms() - t0 }))
}

/// The score of one task's answer (tracked like [`score_set`]); `None`
/// when the task has no answer or is not built.
pub fn score_one(state: AppState, task_id: &str) -> Option<Shared<TaskScore>> {
    let answer = state.answers.with(|a| a.get(task_id).cloned())?;
    let tasks = state.tasks.get();
    let (i, task) = tasks.iter().enumerate().find(|(_, t)| t.task_id() == task_id)?;
    let dataset = state.dataset.with(|d| d.as_ref().map(|d| d.dataset.clone()));
    let mut pass = Pass::new(dataset.as_ref(), state.scoring.options.get());
    Some(Shared(pass.score(state, task, task_id, &answer, i + 1)))
}

/// One scoring pass: a `Scorer` (which prepares each repo's references
/// once per pass) and the count of cache misses.
struct Pass<'d> {
    dataset: Option<&'d Arc<Dataset>>,
    options: ScoreOptions,
    scorer: Option<Scorer<'d>>,
    rescored: usize,
}

impl<'d> Pass<'d> {
    fn new(dataset: Option<&'d Arc<Dataset>>, options: ScoreOptions) -> Pass<'d> {
        Pass {
            dataset,
            options,
            scorer: dataset.map(|d| Scorer::new(d.as_ref(), options)),
            rescored: 0,
        }
    }

    fn score(
        &mut self,
        state: AppState,
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
        let cache = state.scoring.cache;
        if let Some(hit) =
            cache.with_value(|c| c.get(id).filter(|(k, _)| *k == key).map(|(_, s)| s.clone()))
        {
            return hit;
        }
        self.rescored += 1;
        let output = repoqa::answers::model_output(task, answer, line);
        let result = match (&output, self.scorer.as_mut()) {
            (Err(e), _) => Err(e.clone()),
            (Ok(_), None) => Err("no dataset is loaded".to_string()),
            (Ok(o), Some(scorer)) => scorer.evaluate(o).map_err(|e| e.to_string()),
        };
        let score =
            Arc::new(TaskScore { task: task.clone(), answer: answer.to_string(), output, result });
        cache.update_value(|c| {
            c.insert(id.to_string(), (key, score.clone()));
        });
        score
    }
}

/// Score `answers` (task id, reply) into the cache a slice at a time,
/// giving the browser a turn every ~25 ms, so that the reactive pass run
/// when they are added to `AppState::answers` finds them scored and the
/// page never stops for the whole batch (500 answers take ~0.3 s).
/// `options`: the options to score with (the current ones, or new ones
/// about to be set). The job line shows `what` with the count done, and
/// its Cancel stops the pass. Returns how many were scored and the
/// milliseconds spent scoring (yields excluded), or None if cancelled.
pub async fn warm_scores(
    state: AppState,
    answers: &[(&str, &str)],
    options: ScoreOptions,
    what: &str,
) -> Option<(usize, f64)> {
    let tasks = state.tasks.get_untracked();
    let index: HashMap<String, usize> =
        tasks.iter().enumerate().map(|(i, t)| (t.task_id(), i)).collect();
    let dataset = state.dataset.with_untracked(|d| d.as_ref().map(|d| d.dataset.clone()));
    let mut pass = Pass::new(dataset.as_ref(), options);
    let mut busy_ms = 0.0;
    let total = answers.len();
    state.job.set(Job::Running { what: what.to_string(), done: 0, total });
    // A turn first: the progress line shows, and Cancel works even for a
    // pass shorter than one slice.
    super::progress::yield_to_browser().await;
    if state.cancel.get_untracked() {
        return None;
    }
    let mut start = now_ms();
    for (k, (id, reply)) in answers.iter().enumerate() {
        if let Some(&i) = index.get(*id) {
            pass.score(state, &tasks[i], id, reply, i + 1);
        }
        if now_ms() - start > 25.0 {
            busy_ms += now_ms() - start;
            state.job.set(Job::Running { what: what.to_string(), done: k + 1, total });
            super::progress::yield_to_browser().await;
            if state.cancel.get_untracked() {
                return None;
            }
            start = now_ms();
        }
    }
    Some((pass.rescored, busy_ms + now_ms() - start))
}

/// Change the scoring options without stopping the page: every answer is
/// scored with the new options in slices first, then the options switch
/// (the results update at once from the cache). `last_rescore` records
/// what it took, for the page and the tests.
pub fn change_options(state: AppState, new: ScoreOptions) {
    if matches!(state.job.get_untracked(), Job::Running { .. }) {
        return;
    }
    state.cancel.set(false);
    spawn_local(async move {
        let answers = state.answers.get_untracked();
        let pairs: Vec<(&str, &str)> =
            answers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let what = format!("Scoring {} answers with the new options", pairs.len());
        let Some((n, ms)) = warm_scores(state, &pairs, new, &what).await else {
            // The inputs show the options in force again.
            state.scoring.options.update(|_| {});
            state.cancel.set(false);
            state.job.set(Job::Failed("Cancelled: the scoring options were not changed.".into()));
            return;
        };
        state.scoring.options.set(new);
        persist_scoring(state.scoring);
        state.scoring.last_rescore.update(|r| *r = (r.0 + 1, n, ms));
        state.job.set(Job::Done(format!("Scored {n} answers with the new options in {ms:.0} ms.")));
    });
}

/// Save the answers (IndexedDB, key [`KEY_ANSWERS`]); failures are logged,
/// the page keeps working without persistence.
pub fn persist_answers(answers: &BTreeMap<String, String>) {
    let json = match serde_json::to_string(answers) {
        Ok(j) => j,
        Err(e) => return leptos::logging::warn!("answers not saved: {e}"),
    };
    spawn_local(async move {
        if let Err(e) = storage::save_json(KEY_ANSWERS, &json).await {
            leptos::logging::warn!("answers not saved: {e}");
        }
    });
}

/// Storage key of the scoring options and export fields.
const KEY_SCORING: &str = "scoring";

/// Save the scoring options, model name and eval_date (IndexedDB), so a
/// reload scores the same way; failures are logged.
pub fn persist_scoring(scoring: Scoring) {
    let o = scoring.options.get_untracked();
    let json = serde_json::json!({
        "ignore_comments": o.ignore_comments,
        "candidates": o.candidates.name(),
        "model_name": scoring.model_name.get_untracked(),
        "eval_date": scoring.eval_date.get_untracked(),
    })
    .to_string();
    spawn_local(async move {
        if let Err(e) = storage::save_json(KEY_SCORING, &json).await {
            leptos::logging::warn!("scoring options not saved: {e}");
        }
    });
}

/// Put saved scoring options back (fields missing or unreadable keep
/// their defaults).
async fn restore_scoring(scoring: Scoring) {
    let Ok(Some(text)) = storage::load_json(KEY_SCORING).await else { return };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { return };
    scoring.options.update(|o| {
        if let Some(b) = v.get("ignore_comments").and_then(|b| b.as_bool()) {
            o.ignore_comments = b;
        }
        match v.get("candidates").and_then(|c| c.as_str()) {
            Some("context") => o.candidates = Candidates::Context,
            Some("needles") => o.candidates = Candidates::Needles,
            _ => {}
        }
    });
    if let Some(m) = v.get("model_name").and_then(|m| m.as_str()) {
        scoring.model_name.set(m.to_string());
    }
    if let Some(d) = v.get("eval_date").and_then(|d| d.as_str()) {
        scoring.eval_date.set(d.to_string());
    }
}

/// Read saved answers and scoring options back once per page load;
/// answers typed meanwhile win.
pub fn ensure_answers_restored(state: AppState) {
    let started = state.scoring.answers_restore_started;
    if started.get_value() {
        return;
    }
    started.set_value(true);
    spawn_local(async move {
        restore_scoring(state.scoring).await;
        match storage::load_json(KEY_ANSWERS).await {
            Ok(Some(json)) => match serde_json::from_str::<BTreeMap<String, String>>(&json) {
                Ok(saved) if !saved.is_empty() => state.answers.update(|a| {
                    for (k, v) in saved {
                        a.entry(k).or_insert(v);
                    }
                }),
                Ok(_) => {}
                Err(e) => leptos::logging::warn!("saved answers unreadable: {e}"),
            },
            Ok(None) => {}
            Err(e) => leptos::logging::warn!("saved answers not read: {e}"),
        }
    });
}
