//! The user's settings: which languages and repos, the context size, the
//! comment mode, the pass threshold and the tokenizer. Saved in IndexedDB on
//! every change; the ones that change prompts are part of the tasks cache
//! key (`prompt_key`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::context::{CommentMode, ContextOptions};
use repoqa::lang::Language;
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

/// Settings as stored (JSON).
pub fn to_json(s: &Settings) -> String {
    json!({
        "languages": s.languages,
        "excluded_repos": s.excluded_repos,
        "code_context_size": s.code_context_size,
        "comment_mode": s.comment_mode.as_str(),
        "threshold": s.threshold,
        "tokenizer_source": s.tokenizer_source,
    })
    .to_string()
}

/// Stored settings; a missing or malformed field keeps its default (an old
/// or hand-edited record never blocks the app).
pub fn from_json(text: &str) -> Settings {
    let mut s = Settings::default();
    let Ok(Value::Object(m)) = serde_json::from_str::<Value>(text) else { return s };
    let strings = |v: Option<&Value>| -> Option<Vec<String>> {
        Some(v?.as_array()?.iter().filter_map(|x| x.as_str().map(String::from)).collect())
    };
    if let Some(v) = strings(m.get("languages")) {
        s.languages = v;
    }
    if let Some(v) = strings(m.get("excluded_repos")) {
        s.excluded_repos = v;
    }
    if let Some(n) = m.get("code_context_size").and_then(Value::as_u64).filter(|&n| n > 0) {
        s.code_context_size = n as usize;
    }
    if let Some(mode) =
        m.get("comment_mode").and_then(Value::as_str).and_then(|x| x.parse::<CommentMode>().ok())
    {
        s.comment_mode = mode;
    }
    if let Some(t) = m.get("threshold").and_then(Value::as_f64).filter(|t| (0.0..=1.0).contains(t))
    {
        s.threshold = t;
    }
    if let Some(t) = m.get("tokenizer_source").and_then(Value::as_str) {
        s.tokenizer_source = t.to_string();
    }
    s
}

/// The settings that change the prompts, as a cache-key part.
pub fn prompt_key(s: &Settings) -> String {
    let mut langs = s.languages.clone();
    langs.sort();
    let mut repos = s.excluded_repos.clone();
    repos.sort();
    format!(
        "ctx={};mode={};langs={};skip={}",
        s.code_context_size,
        s.comment_mode,
        langs.join(","),
        repos.join(",")
    )
}

/// Options of the context builder for these settings (the official
/// defaults otherwise: K5 reproduced, NULs kept as upstream HEAD does).
pub fn context_options(s: &Settings) -> ContextOptions {
    ContextOptions {
        code_context_size: s.code_context_size,
        comment_mode: s.comment_mode,
        ..ContextOptions::default()
    }
}

/// The selected languages (None = all), as `task_specs` takes them.
pub fn selected_languages(s: &Settings) -> Option<Vec<Language>> {
    if s.languages.is_empty() {
        None
    } else {
        Some(s.languages.iter().filter_map(|l| Language::from_name(l).ok()).collect())
    }
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
