//! The app state: every signal the pages share, provided by `App`.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use repoqa::input::dataset::Dataset;
use repoqa::prompt::settings::BuildSettings;
use repoqa::report::Task;
use repoqa::scoring::score::ScoreOptions;

use super::scoring::Scoring;
use super::settings::Settings;

/// The loaded dataset and where it came from ("demo", a URL, a file name).
#[derive(Clone)]
pub struct LoadedDataset {
    pub dataset: Arc<Dataset>,
    pub origin: String,
}

impl LoadedDataset {
    /// The day its sources were first released on or after (a fresh
    /// split's; `None` for an undated dataset such as the official one).
    pub fn freshness(&self) -> Option<String> {
        repoqa::input::freshness::freshness(&self.dataset).map(|f| f.earliest.to_string())
    }
}

/// Shared state. `Copy`: every field is a signal handle.
#[derive(Clone, Copy)]
pub struct AppState {
    pub dataset: RwSignal<Option<LoadedDataset>>,
    pub settings: RwSignal<Settings>,
    /// Built tasks, in official order.
    pub tasks: RwSignal<Vec<Arc<Task>>>,
    /// Model answers by task id ("lang::repo::name").
    pub answers: RwSignal<BTreeMap<String, String>>,
    /// Scoring options, export fields and the per-task score cache (`scoring.rs`).
    pub scoring: Scoring,
    /// SHA-256 (hex) of the loaded dataset file's bytes.
    pub dataset_digest: RwSignal<Option<String>>,
    /// The last dataset load error (shown on the Dataset page).
    pub dataset_error: RwSignal<Option<String>>,
    /// SHA-256 (hex) of the tokenizer file of the current settings (its
    /// bytes are kept by `jobs::tokenizer`, parsed only in the engine).
    pub tokenizer_id: RwSignal<Option<String>>,
    /// The tasks cache key `tasks` were built (or restored) for; `None`
    /// when `tasks` is empty.
    pub tasks_key: RwSignal<Option<String>>,
    /// The settings `tasks` were built (or restored) with; `None` when
    /// `tasks` is empty.
    pub tasks_settings: RwSignal<Option<BuildSettings>>,
    /// Timing of the last build, for the Tasks page and the tests.
    pub build_stats: RwSignal<Option<BuildStats>>,
    /// The last length ladder's files (`jobs::build_ladder`), a length each.
    pub ladder: RwSignal<Vec<LadderFile>>,
    /// True once the saved session (IndexedDB) has been restored.
    pub restored: RwSignal<bool>,
    /// Which task the Tasks page shows: SNF, or call paths (NOT UPSTREAM).
    pub task_kind: RwSignal<repoqa::api::TaskKind>,
    /// The last call-path build (`jobs::call_path`).
    pub call_paths: RwSignal<Option<Arc<CallPathBuilt>>>,
    /// A model's call-path answers, scored (`jobs::call_path`).
    pub call_path_scores: RwSignal<Option<Arc<CallPathScored>>>,
    /// The call-path outputs of the last run from the Run page, kept in
    /// this browser (`jobs::call_path`).
    pub call_path_run: RwSignal<Option<Arc<CallPathRun>>>,
}

/// A model's run over call-path tasks from the Run page: its outputs file
/// as `repoqa run --task call-path` writes it (the task rows plus
/// `"output": [reply]`), a line per answer.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CallPathRun {
    pub model: String,
    pub code_context_size: usize,
    /// The outputs JSONL.
    pub text: String,
    /// The ids of the tasks answered in `text`, in its order.
    #[serde(default)]
    pub ids: Vec<String>,
}

/// A call-path outputs file scored in the page, as `repoqa score --task
/// call-path` scores it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallPathScored {
    /// The outputs file's name.
    pub name: String,
    /// The SCORES file `repoqa score --task call-path` writes of it.
    pub file: repoqa::api::callpath::CallPathScoresFile,
    /// Each task's reply as the model wrote it, by task id.
    pub replies: BTreeMap<String, String>,
}

/// Call-path tasks built on the Tasks page (NOT UPSTREAM,
/// `repoqa::api::callpath`): what `repoqa prompts --task call-path` writes.
#[derive(Clone, Debug, PartialEq)]
pub struct CallPathBuilt {
    pub tasks: Vec<repoqa::callpath::task::CallPathTask>,
    /// Each repository that gave fewer than asked, and why.
    pub shortfalls: Vec<repoqa::api::callpath::Shortfall>,
    pub code_context_size: usize,
    /// The dataset file they were built from (the download's name).
    pub origin: String,
}

/// One length of a ladder built on the Tasks page: its official tasks
/// JSONL, held by the browser behind an object URL until the page is left.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderFile {
    pub ntoken: usize,
    /// The download's name (`repoqa::naming::tasks_file_name`).
    pub name: String,
    pub tasks: usize,
    pub bytes: f64,
    /// A `blob:` URL.
    pub url: String,
}

/// How the current tasks were obtained.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BuildStats {
    pub tasks: usize,
    /// Wall time of the build (or of the cache read).
    pub ms: f64,
    /// The longest stretch the page was blocked between two yields.
    pub max_chunk_ms: f64,
    pub chunks: usize,
    pub from_cache: bool,
    /// Web Workers of a pool that built the tasks (0: the page's own engine
    /// worker, a repo at a time).
    pub workers: usize,
}

impl Default for AppState {
    fn default() -> AppState {
        AppState::new()
    }
}

impl AppState {
    pub fn new() -> AppState {
        AppState {
            dataset: RwSignal::new(None),
            settings: RwSignal::new(Settings::default()),
            tasks: RwSignal::new(Vec::new()),
            answers: RwSignal::new(BTreeMap::new()),
            scoring: Scoring::new(),
            dataset_digest: RwSignal::new(None),
            dataset_error: RwSignal::new(None),
            tokenizer_id: RwSignal::new(None),
            tasks_key: RwSignal::new(None),
            tasks_settings: RwSignal::new(None),
            build_stats: RwSignal::new(None),
            ladder: RwSignal::new(Vec::new()),
            restored: RwSignal::new(false),
            task_kind: RwSignal::new(repoqa::api::TaskKind::Snf),
            call_paths: RwSignal::new(None),
            call_path_scores: RwSignal::new(None),
            call_path_run: RwSignal::new(None),
        }
    }
}

impl AppState {
    /// Back to a fresh start ("New session"): no dataset, tasks or answers,
    /// default settings and scoring options.
    pub fn reset(self) {
        self.settings.set(Settings::default());
        self.dataset.set(None);
        self.dataset_digest.set(None);
        self.dataset_error.set(None);
        self.clear_tasks();
        self.answers.set(Default::default());
        self.scoring.options.set(Default::default());
        self.scoring.model_name.set("model".to_string());
        self.scoring.eval_date.set(String::new());
        self.scoring.model_cutoff.set(String::new());
        self.tokenizer_id.set(None);
        self.call_paths.set(None);
        self.call_path_scores.set(None);
        self.call_path_run.set(None);
    }
}

impl AppState {
    /// Show `tasks`, built (or restored) with `settings` under the tasks
    /// cache key `key`.
    pub fn set_tasks(self, tasks: Vec<Arc<Task>>, key: String, settings: BuildSettings) {
        self.tasks.set(tasks);
        self.tasks_key.set(Some(key));
        self.tasks_settings.set(Some(settings));
    }

    /// No tasks (and no build timing).
    pub fn clear_tasks(self) {
        self.tasks.set(Vec::new());
        self.tasks_key.set(None);
        self.tasks_settings.set(None);
        self.build_stats.set(None);
    }

    /// The options answers are scored with (tracked): the chosen ones, with
    /// comments ignored when the tasks were built with a comment-cleaning
    /// mode, as the official harness scores them
    /// (`BuildSettings::score_options`).
    pub fn score_options(self) -> ScoreOptions {
        let chosen = self.scoring.options.get();
        self.tasks_settings.with(|s| s.as_ref().map_or(chosen, |s| s.score_options(chosen)))
    }

    /// [`AppState::score_options`] for `chosen` options (untracked).
    pub fn score_options_for(self, chosen: ScoreOptions) -> ScoreOptions {
        self.tasks_settings
            .with_untracked(|s| s.as_ref().map_or(chosen, |s| s.score_options(chosen)))
    }
}

/// The state provided by `App`.
pub fn use_state() -> AppState {
    expect_context::<AppState>()
}
