//! The Curate page's state, kept while the app runs (navigating away and
//! back keeps it) and, but for the result, across a reload
//! (`jobs::curate_keep`): the files read, the options, the descriptions,
//! the last curation and the repos collected so far. Its jobs run on
//! their own line (`jobs::curate`).

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use model_api::DescribeModel;
use repoqa::code::lang::Language;
use repoqa::curate::{CurateReport, Descriptions, EntryMatch, SourceFile};
use repoqa::input::dataset::Dataset;

/// The files read from one folder or archive.
pub struct Input {
    /// The folder's or archive's name, as picked.
    pub name: String,
    /// Source files of every language, paths relative to the repository root.
    pub files: Vec<SourceFile>,
    /// Files per language, most first.
    pub counts: Vec<(Language, usize)>,
    /// What was read, for the user ("zip, 312 entries, root rxjs-7.8.1/").
    pub summary: String,
    pub read_ms: f64,
}

/// The page's state, kept while the app runs (navigating away and back
/// keeps it). `Copy`: every field is a signal handle.
#[derive(Clone, Copy)]
pub struct CurateState {
    pub input: RwSignal<Option<Arc<Input>>>,
    pub language: RwSignal<Option<Language>>,
    pub entry: RwSignal<String>,
    /// How the entry selects files: its directory, or upstream's string
    /// prefix (`path.startswith(entrypoint)`, docs/parity.md C5).
    pub entry_match: RwSignal<EntryMatch>,
    pub repo: RwSignal<String>,
    /// Empty = the default, crc32 of the repo name.
    pub seed: RwSignal<String>,
    pub descriptions: RwSignal<Descriptions>,
    pub descriptions_name: RwSignal<Option<String>>,
    /// Descriptions written in the page, by needle name; over the file's.
    pub edits: RwSignal<BTreeMap<String, String>>,
    pub report: RwSignal<Option<Arc<CurateReport>>>,
    pub curate_ms: RwSignal<Option<f64>>,
    /// Repos appended so far (any languages), one dataset.
    pub collection: RwSignal<Dataset>,
    /// The last step's message (the job line shows progress meanwhile).
    pub status: RwSignal<String>,
    pub error: RwSignal<Option<String>>,
    /// The model that writes missing descriptions (stored in this browser;
    /// its key only if `remember_key`).
    pub model: RwSignal<DescribeModel>,
    /// "Remember the key on this device" (off: the key is in memory only).
    pub remember_key: RwSignal<bool>,
    pub describing: RwSignal<bool>,
    /// A curation runs (its Stop button shows).
    pub curating: RwSignal<bool>,
    /// What the last model run gave (kept while the repo is curated again).
    pub model_message: RwSignal<Option<Result<String, String>>>,
    /// What was kept from the last visit has been read back
    /// (`jobs::curate_keep`); until then nothing is saved over it.
    pub restored: RwSignal<bool>,
    /// What was read back, said once on the page ("Kept from your last
    /// visit: …").
    pub restored_note: RwSignal<Option<String>>,
}

impl CurateState {
    pub fn new() -> CurateState {
        let (model, remember_key) = model_api::load();
        CurateState {
            input: RwSignal::new(None),
            language: RwSignal::new(None),
            entry: RwSignal::new(".".to_string()),
            entry_match: RwSignal::new(EntryMatch::Directory),
            repo: RwSignal::new(String::new()),
            seed: RwSignal::new(String::new()),
            descriptions: RwSignal::new(Descriptions::new()),
            descriptions_name: RwSignal::new(None),
            edits: RwSignal::new(BTreeMap::new()),
            report: RwSignal::new(None),
            curate_ms: RwSignal::new(None),
            collection: RwSignal::new(Dataset::default()),
            status: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            model: RwSignal::new(model),
            remember_key: RwSignal::new(remember_key),
            describing: RwSignal::new(false),
            curating: RwSignal::new(false),
            model_message: RwSignal::new(None),
            restored: RwSignal::new(false),
            restored_note: RwSignal::new(None),
        }
    }

    /// A new input: defaults from it, results of the old one dropped.
    pub fn adopt(self, input: Input) {
        let language = input.counts.first().filter(|c| c.1 > 0).map(|c| c.0);
        self.repo.set(format!("local/{}", repo_name_from(&input.name)));
        self.language.set(language);
        self.entry.set(".".to_string());
        self.seed.set(String::new());
        self.edits.set(BTreeMap::new());
        self.report.set(None);
        self.curate_ms.set(None);
        self.model_message.set(None);
        self.input.set(Some(Arc::new(input)));
    }

    /// The descriptions a run uses: the file's, then the page's edits.
    pub fn merged_descriptions(self) -> Descriptions {
        let mut d = self.descriptions.get_untracked();
        for (name, text) in self.edits.get_untracked() {
            d.insert(name, text);
        }
        d
    }
}

/// "rxjs-7.8.1.tar.gz" → "rxjs-7.8.1"; characters a repo name would not
/// have become "-".
fn repo_name_from(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let stem_len = [".tar.gz", ".tgz", ".tar", ".zip"]
        .iter()
        .find(|s| lower.ends_with(*s))
        .map_or(name.len(), |s| name.len() - s.len());
    let stem: String = name[..stem_len]
        .chars()
        .map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '-' })
        .collect();
    if stem.is_empty() {
        "repo".to_string()
    } else {
        stem
    }
}

impl Default for CurateState {
    fn default() -> Self {
        CurateState::new()
    }
}

/// The model API settings, kept in this browser's localStorage; the key
/// as the Run page keeps its own: in memory only, unless "remember the key
/// on this device" is ticked.
pub mod model_api {
    use repoqa::llm::{self, Endpoint};
    use serde::{Deserialize, Serialize};

    use crate::ui::error::UiError;
    use crate::ui::storage::local;

    /// The model that writes needle descriptions: the core's one
    /// [`Endpoint`] (asked with the description sampling), and how long a
    /// request may take.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct DescribeModel {
        #[serde(flatten)]
        pub endpoint: Endpoint,
        pub timeout_secs: u64,
    }

    impl Default for DescribeModel {
        fn default() -> DescribeModel {
            DescribeModel {
                endpoint: Endpoint {
                    sampling: llm::describe_sampling(),
                    from_browser: true,
                    ..Endpoint::default()
                },
                timeout_secs: llm::DEFAULT_TIMEOUT_SECS,
            }
        }
    }

    /// The localStorage key of the settings (JSON of [`DescribeModel`]
    /// without the key, and whether to remember it).
    pub const STORAGE_KEY: &str = "repoqa-model-api";
    /// The localStorage key of the API key: only when it is remembered.
    pub const KEY_STORAGE_KEY: &str = "repoqa-model-api-key";

    #[derive(Default, Serialize, Deserialize)]
    #[serde(default)]
    struct Stored {
        #[serde(flatten)]
        settings: DescribeModel,
        remember_key: bool,
        /// A key stored with the settings by earlier versions (read, never
        /// written).
        #[serde(skip_serializing)]
        api_key: Option<String>,
    }

    /// The stored settings and whether the key is remembered (the
    /// defaults when nothing readable is stored). A key stored with the
    /// settings (before the key was kept apart) counts as remembered, so
    /// the box shows it ticked; the next change stores it apart, or drops it.
    pub fn load() -> (DescribeModel, bool) {
        let stored: Stored = local::get(STORAGE_KEY)
            .ok()
            .flatten()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        let mut settings = stored.settings;
        settings.endpoint.from_browser = true;
        if let Some(key) = stored.api_key.filter(|k| !k.is_empty()) {
            settings.endpoint.api_key = Some(key);
            return (settings, true);
        }
        if stored.remember_key {
            settings.endpoint.api_key =
                local::get(KEY_STORAGE_KEY).ok().flatten().filter(|k| !k.is_empty());
        }
        (settings, stored.remember_key)
    }

    /// Store the settings; the key only if `remember_key`, else it is
    /// removed from this browser's storage.
    pub fn save(settings: &DescribeModel, remember_key: bool) -> Result<(), UiError> {
        // The key is not serialized with the endpoint (`Endpoint` skips it).
        let stored = Stored { settings: settings.clone(), remember_key, api_key: None };
        local::set(STORAGE_KEY, &serde_json::to_string(&stored)?)?;
        match settings.endpoint.api_key.as_deref().filter(|_| remember_key) {
            Some(key) => local::set(KEY_STORAGE_KEY, key),
            None => local::remove(KEY_STORAGE_KEY),
        }
    }
}
