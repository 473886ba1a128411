//! The Run panel's state: the form (everything but the key, kept in
//! IndexedDB), the key (in memory; in localStorage only when the user
//! ticks "remember on this device"), the run log (every answered or failed
//! task's record, in IndexedDB the moment it arrives) and what the running
//! job shows, and the other models' runs kept beside it (`runs.rs`). The rules (requests, retries, what to ask on resume) are the
//! core's (`repoqa::llm`).

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::llm::plan::{PlanGiven, RunPlan};
use repoqa::llm::run::RunStats;
use repoqa::llm::runlog::{RunLog, RunRecord, TaskSelection};
use repoqa::llm::schedule;
use repoqa::llm::wire::Endpoint;
use serde::{Deserialize, Serialize};

use crate::ui::browser::tab_model::Loaded;
use crate::ui::error::UiError;
use crate::ui::storage::{self, local};

/// IndexedDB: the form (JSON, never the key).
pub const KEY_RUN_FORM: &str = "run-form";
/// IndexedDB: the run log (JSONL of `RunRecord`s, never the key).
pub const KEY_RUN_LOG: &str = "run-log";
/// IndexedDB: present while a run is under way (a reload finds it).
pub const KEY_RUN_ACTIVE: &str = "run-active";
/// IndexedDB: other models' runs kept beside the current one (JSON
/// list of `ShelvedRun`s; `runs.rs`).
pub const KEY_RUN_SHELF: &str = "run-shelf";
/// IndexedDB: the code-context length the current answers were asked at
/// (JSON number; `runs.rs`).
pub const KEY_RUN_LENGTH: &str = "run-length";

/// A run kept beside the current one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShelvedRun {
    pub model: String,
    /// The code-context length its tasks were built at (`None`: not known,
    /// a run kept before lengths were told apart, or imported answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ntoken: Option<usize>,
    /// Task id → answer, as the Results page keeps them.
    pub answers: BTreeMap<String, String>,
    /// The run log as JSONL (`RunRecord::line`s).
    pub log: String,
}

/// localStorage: the key, only when "remember on this device" is ticked.
pub const LOCAL_RUN_KEY: &str = "repoqa-run-api-key";

/// The form, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunForm {
    pub preset: String,
    /// `api_key` is never serialized (`Endpoint` skips it).
    pub settings: Endpoint,
    pub concurrency: usize,
    pub timeout_s: f64,
    pub max_retries: u32,
    pub retry_base_ms: f64,
    pub selection: TaskSelection,
    pub remember_key: bool,
    /// The plan's figures the user gives (context window, prices, rate
    /// limit), as `repoqa run --plan`'s flags.
    pub plan: PlanGiven,
    /// Above this cost (USD, at most), Run shows the plan and asks first.
    pub confirm_above: Option<f64>,
    /// "Run at several lengths": the code-context lengths as typed
    /// (`repoqa run --code-context-size 1024,2048`'s list).
    pub lengths: String,
}

impl Default for RunForm {
    fn default() -> RunForm {
        let preset = repoqa::llm::presets::preset("vllm");
        let mut settings = Endpoint::default();
        if let Some(p) = preset {
            settings.provider = p.provider;
            settings.base_url = p.base_url.to_string();
        }
        RunForm {
            preset: preset.map(|p| p.id).unwrap_or("custom").to_string(),
            settings,
            concurrency: schedule::DEFAULT_CONCURRENCY,
            timeout_s: schedule::DEFAULT_TIMEOUT_S,
            max_retries: schedule::DEFAULT_MAX_RETRIES,
            retry_base_ms: 1000.0,
            selection: TaskSelection { seed: 1, ..TaskSelection::default() },
            remember_key: false,
            plan: PlanGiven::default(),
            confirm_above: None,
            lengths: String::new(),
        }
    }
}

/// What the running (or last) run shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunLive {
    pub stats: RunStats,
    /// The run stopped: what to fix.
    pub stopped: Option<String>,
    /// A request got no HTTP status (CORS or unreachable): the last reason.
    /// Kept when a new run starts and after later failures of other kinds
    /// (a proxy's 5xx without CORS headers, a server that allows only
    /// some replies), until dismissed or the base URL changes.
    pub no_status: Option<String>,
    /// The last retry: its task (an index of the run) and reason, until
    /// that task is answered or fails.
    pub last_retry: Option<(usize, String)>,
    /// Requests sent and not answered yet.
    pub in_flight: usize,
    /// Tasks whose prompt the API reports as cut.
    pub truncated: Vec<String>,
    /// The first reply naming another model than the one asked for:
    /// `repoqa::llm::runlog::other_model_warning`'s text.
    pub other_model: Option<String>,
    /// Answers not saved (IndexedDB refused): the last error.
    pub save_error: Option<String>,
    /// The server's model list lacks the model asked for:
    /// `Endpoint::model_warning`'s text.
    pub unlisted_model: Option<String>,
    /// The run asks fewer requests at a time than set: the server's slots
    /// (`Endpoint::slots_limit`) or timeouts while others waited
    /// (`schedule::lowered_message`).
    pub concurrency_note: Option<String>,
}

/// The model in this tab (the "In this tab" preset): nothing loaded, a
/// file being loaded, a model ready, or why loading failed.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum TabModel {
    #[default]
    None,
    Loading {
        name: String,
        bytes: f64,
    },
    Ready(Loaded),
    Failed(String),
}

/// The panel's state. `Copy`: every field is a signal handle.
#[derive(Clone, Copy)]
pub struct RunState {
    pub form: RwSignal<RunForm>,
    /// The API key: in memory only (see `remember_key`).
    pub key: RwSignal<String>,
    pub log: RwSignal<Vec<RunRecord>>,
    pub live: RwSignal<RunLive>,
    /// A run was under way when the page was last left (reload, crash).
    pub interrupted: RwSignal<bool>,
    /// The saved form, log and marker were read back.
    pub restored: RwSignal<bool>,
    /// "Test connection": its verdict (ok, text).
    pub connection: RwSignal<Option<(bool, String)>>,
    /// Bumped by "New session": a run or test started before it stores
    /// nothing after it.
    pub session: RwSignal<u64>,
    /// The last pre-flight plan (`repoqa::llm::plan`).
    pub plan: RwSignal<Option<RunPlan>>,
    /// Other runs (another model's, or this model's at another length),
    /// kept whole beside the current one (`runs.rs`).
    pub shelf: RwSignal<Vec<ShelvedRun>>,
    /// The code-context length the current answers were asked at (`None`:
    /// not asked here, or not known).
    pub length: RwSignal<Option<usize>>,
    /// The model in this tab (not kept over a reload: the file is picked again).
    pub tab: RwSignal<TabModel>,
    /// How far the answer the model in this tab is writing for a run is;
    /// None when it writes none (a signal of its own: it moves with each
    /// token, and nothing else on the page needs to follow it).
    pub tab_progress: RwSignal<Option<repoqa::llm::in_tab::TabProgress>>,
}

impl Default for RunState {
    fn default() -> Self {
        RunState::new()
    }
}

impl RunState {
    pub fn new() -> RunState {
        RunState {
            form: RwSignal::new(RunForm::default()),
            key: RwSignal::new(String::new()),
            log: RwSignal::new(Vec::new()),
            live: RwSignal::new(RunLive::default()),
            interrupted: RwSignal::new(false),
            restored: RwSignal::new(false),
            connection: RwSignal::new(None),
            session: RwSignal::new(0),
            plan: RwSignal::new(None),
            shelf: RwSignal::new(Vec::new()),
            length: RwSignal::new(None),
            tab: RwSignal::new(TabModel::None),
            tab_progress: RwSignal::new(None),
        }
    }

    /// Back to a fresh start ("New session"): the default form, no key
    /// (a remembered one is forgotten too: the form that said to remember
    /// it is gone), no run log, progress, problems or verdict. A run still
    /// going sees `session` change and stores nothing more.
    pub fn reset(self) {
        self.session.update(|n| *n += 1);
        self.form.set(RunForm::default());
        self.key.set(String::new());
        self.log.set(Vec::new());
        self.shelf.set(Vec::new());
        self.length.set(None);
        self.live.set(RunLive::default());
        self.plan.set(None);
        self.interrupted.set(false);
        self.connection.set(None);
        // Nothing stored is left to read back.
        self.restored.set(true);
        if let Err(e) = local::remove(LOCAL_RUN_KEY) {
            leptos::logging::warn!("remembered key not forgotten: {e}");
        }
    }

    /// The current session (see `session`), untracked.
    pub fn session_now(self) -> u64 {
        self.session.get_untracked()
    }

    /// The run log as the core reads it.
    pub fn run_log(self) -> RunLog {
        RunLog { records: self.log.get_untracked(), bad_lines: Vec::new() }
    }

    /// The run record of the answer task `id` has now (its last answered
    /// record), tracked: its thinking, tokens and whether it was cut.
    pub fn answer_record(self, id: &str) -> Option<RunRecord> {
        self.log.with(|log| {
            log.iter()
                .rev()
                .find(|r| {
                    r.task_id == id && r.status == repoqa::llm::runlog::RecordStatus::Answered
                })
                .cloned()
        })
    }

    /// Read the saved form, log, marker and (if remembered) key, once.
    pub fn restore(self) {
        if self.restored.get_untracked() {
            return;
        }
        let session = self.session_now();
        spawn_local(async move {
            let form = storage::load_json(KEY_RUN_FORM).await;
            let log = storage::load_json(KEY_RUN_LOG).await;
            let active = storage::load_json(KEY_RUN_ACTIVE).await;
            let shelf = storage::load_json(KEY_RUN_SHELF).await;
            let length = storage::load_json(KEY_RUN_LENGTH).await;
            if self.session_now() != session {
                // "New session" came first: what was read is forgotten.
                return;
            }
            if let Ok(Some(json)) = form {
                match serde_json::from_str::<RunForm>(&json) {
                    Ok(f) => self.form.set(f),
                    Err(e) => leptos::logging::warn!("saved run settings unreadable: {e}"),
                }
            }
            if let Ok(Some(text)) = log {
                let log = repoqa::llm::runlog::read_runlog(&text);
                self.log.set(log.records);
            }
            if let Ok(Some(json)) = shelf {
                self.shelf.set(read_shelf(&json));
            }
            if let Ok(Some(json)) = length {
                self.length.set(serde_json::from_str(&json).unwrap_or(None));
            }
            if let Ok(Some(_)) = active {
                self.interrupted.set(true);
            }
            if self.form.with_untracked(|f| f.remember_key) {
                if let Ok(Some(k)) = local::get(LOCAL_RUN_KEY) {
                    self.key.set(k);
                }
            }
            self.restored.set(true);
        });
    }

    /// Store the form (never the key); store or forget the key in
    /// localStorage as "remember on this device" says.
    pub fn save_form(self) -> Result<(), UiError> {
        let form = self.form.get_untracked();
        let json = serde_json::to_string(&form).unwrap_or_default();
        spawn_local(async move {
            if let Err(e) = storage::save_json(KEY_RUN_FORM, &json).await {
                leptos::logging::warn!("run settings not saved: {e}");
            }
        });
        let key = self.key.get_untracked();
        if form.remember_key && !key.trim().is_empty() {
            local::set(LOCAL_RUN_KEY, key.trim())
        } else {
            local::remove(LOCAL_RUN_KEY)
        }
    }
}

/// The run log's JSONL text.
pub fn log_text(records: &[RunRecord]) -> String {
    records.iter().map(RunRecord::line).collect()
}

/// Store the run log now (awaited: a reload right after finds it).
pub async fn save_log(records: &[RunRecord]) -> Result<(), UiError> {
    storage::save_json(KEY_RUN_LOG, &log_text(records)).await
}

/// Mark a run as under way (or no longer).
pub async fn mark_active(active: bool) {
    let r = if active {
        storage::save_json(KEY_RUN_ACTIVE, "1").await
    } else {
        storage::delete(KEY_RUN_ACTIVE).await
    };
    if let Err(e) = r {
        leptos::logging::warn!("run marker not saved: {e}");
    }
}

/// Use the run state provided by `App`.
pub fn use_run_state() -> RunState {
    expect_context::<RunState>()
}

/// The kept runs as stored (for `RunState::restore`).
pub fn read_shelf(json: &str) -> Vec<ShelvedRun> {
    match serde_json::from_str(json) {
        Ok(s) => s,
        Err(e) => {
            leptos::logging::warn!("kept runs unreadable: {e}");
            Vec::new()
        }
    }
}
