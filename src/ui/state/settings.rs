//! The user's settings: which languages and repos, the context size, the
//! comment mode, the pass threshold and the tokenizer. Saved in IndexedDB on
//! every change; the ones that change prompts are part of the tasks cache
//! key (`BuildSettings::cache_key`, through `Settings::build`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::context::{CommentMode, Protocol};
use repoqa::settings::{BuildSettings, TaskFilter};
use serde_json::{json, Value};

use crate::ui::browser::dom::warn;
use crate::ui::storage;

/// What the user chose; persisted.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Languages to include (dataset keys); empty = all.
    pub languages: Vec<String>,
    /// Repos to leave out ("lang::owner/name").
    pub excluded_repos: Vec<String>,
    pub code_context_size: usize,
    pub comment_mode: CommentMode,
    /// How prompts are built: official (default) or the corrected
    /// construction (NOT OFFICIAL, not comparable with published scores).
    pub protocol: Protocol,
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
            protocol: Protocol::Official,
            threshold: 0.8,
            tokenizer_source: "builtin".to_string(),
        }
    }
}

impl Settings {
    /// The settings that change the prompts, as the core's typed value
    /// (the same one `repoqa prompts` builds from its flags): the filter,
    /// the cache key, the builder options and the download names all come
    /// from it.
    pub fn build(&self) -> BuildSettings {
        BuildSettings {
            code_context_size: self.code_context_size,
            comment_mode: self.comment_mode,
            filter: TaskFilter {
                languages: self.languages.clone(),
                repos: Vec::new(),
                excluded_repos: self.excluded_repos.clone(),
            },
            tokenizer_source: self.tokenizer_source.clone(),
            protocol: self.protocol,
        }
    }
}

/// Settings as stored (JSON): the core's serde form of the build settings
/// plus the threshold.
pub fn to_json(s: &Settings) -> String {
    let mut v = s.build().to_value();
    if let Value::Object(m) = &mut v {
        m.insert("threshold".into(), json!(s.threshold));
    }
    v.to_string()
}

/// Stored settings; a missing or malformed field keeps its default (an old
/// or hand-edited record never blocks the app).
pub fn from_json(text: &str) -> Settings {
    let v = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    let b = BuildSettings::from_value(&v);
    let mut s = Settings {
        languages: b.filter.languages,
        excluded_repos: b.filter.excluded_repos,
        code_context_size: b.code_context_size,
        comment_mode: b.comment_mode,
        tokenizer_source: b.tokenizer_source,
        protocol: b.protocol,
        ..Settings::default()
    };
    if let Some(t) = v.get("threshold").and_then(Value::as_f64).filter(|t| (0.0..=1.0).contains(t))
    {
        s.threshold = t;
    }
    s
}

/// Change the settings and save them.
pub fn update(settings: RwSignal<Settings>, f: impl FnOnce(&mut Settings)) {
    settings.update(f);
    let text = to_json(&settings.get_untracked());
    spawn_local(async move {
        if let Err(e) = storage::save_json(storage::KEY_SETTINGS, &text).await {
            warn(&format!("settings not saved: {e}"));
        }
    });
}
