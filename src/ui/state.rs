//! The app's state, shared by every page through Leptos context. Pages read
//! and write these signals; they never compute scores or prompts themselves
//! (that is the core's job, called from `build.rs`, `results.rs`, …).

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use repoqa::context::{CommentMode, Task};
use repoqa::dataset::Dataset;
use repoqa::tokenize::Tokenizer;

/// What the user chose; persisted.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Languages to include (dataset keys); empty = all.
    pub languages: Vec<String>,
    /// Repos to leave out ("lang::owner/name").
    pub excluded_repos: Vec<String>,
    pub code_context_size: usize,
    pub comment_mode: CommentMode,
    /// Pass threshold shown in summaries (the table shows all of 0.0..1.0).
    pub threshold: f64,
    /// Where the tokenizer comes from: "builtin", or a URL / file name.
    pub tokenizer_source: String,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            languages: Vec::new(),
            excluded_repos: Vec::new(),
            code_context_size: repoqa::context::DEFAULT_CODE_CONTEXT_SIZE,
            comment_mode: CommentMode::None,
            threshold: 0.8,
            tokenizer_source: "builtin".to_string(),
        }
    }
}

/// Progress of a long job (loading, building, scoring, importing).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Job {
    #[default]
    Idle,
    Running {
        what: String,
        done: usize,
        total: usize,
    },
    Failed(String),
    Done(String),
}

/// The loaded dataset and where it came from ("demo", a URL, a file name).
#[derive(Clone)]
pub struct LoadedDataset {
    pub dataset: Arc<Dataset>,
    pub origin: String,
}

/// Shared state. `Copy`: every field is a signal handle.
#[derive(Clone, Copy)]
pub struct AppState {
    pub dataset: RwSignal<Option<LoadedDataset>>,
    pub tokenizer: RwSignal<Option<Arc<Tokenizer>>>,
    pub settings: RwSignal<Settings>,
    /// Built tasks, in official order.
    pub tasks: RwSignal<Vec<Arc<Task>>>,
    /// Model answers by task id ("lang::repo::name").
    pub answers: RwSignal<BTreeMap<String, String>>,
    /// The current long job, shown by the progress bar.
    pub job: RwSignal<Job>,
    /// Set to ask the running job to stop at its next chunk.
    pub cancel: RwSignal<bool>,
    /// Scoring options, export fields and the per-task score cache (`scoring.rs`).
    pub scoring: super::scoring::Scoring,
    /// SHA-256 (hex) of the loaded dataset file's bytes.
    pub dataset_digest: RwSignal<Option<String>>,
    /// The last dataset load error (shown on the Dataset page).
    pub dataset_error: RwSignal<Option<String>>,
    /// SHA-256 (hex) of the tokenizer file `tokenizer` was loaded from.
    pub tokenizer_id: RwSignal<Option<String>>,
    /// The tasks cache key `tasks` were built (or restored) for; `None`
    /// when `tasks` is empty.
    pub tasks_key: RwSignal<Option<String>>,
    /// Timing of the last build, for the Tasks page and the tests.
    pub build_stats: RwSignal<Option<BuildStats>>,
    /// True once the saved session (IndexedDB) has been restored.
    pub restored: RwSignal<bool>,
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
}

impl AppState {
    pub fn new() -> AppState {
        AppState {
            dataset: RwSignal::new(None),
            tokenizer: RwSignal::new(None),
            settings: RwSignal::new(Settings::default()),
            tasks: RwSignal::new(Vec::new()),
            answers: RwSignal::new(BTreeMap::new()),
            job: RwSignal::new(Job::Idle),
            cancel: RwSignal::new(false),
            scoring: super::scoring::Scoring::new(),
            dataset_digest: RwSignal::new(None),
            dataset_error: RwSignal::new(None),
            tokenizer_id: RwSignal::new(None),
            tasks_key: RwSignal::new(None),
            build_stats: RwSignal::new(None),
            restored: RwSignal::new(false),
        }
    }
}

/// The state provided by `App`.
pub fn use_state() -> AppState {
    expect_context::<AppState>()
}
