//! The user's settings: which languages and repos, the context size, the
//! comment mode, the pass threshold and the tokenizer. Saved in IndexedDB on
//! every change; the ones that change prompts are part of the tasks cache
//! key (`BuildSettings::cache_key`, through `Settings::build`, the core type).

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::prompt::settings::BuildSettings;
use serde::{Deserialize, Serialize};

use crate::ui::browser::dom::warn;
use crate::ui::storage;

/// What the user chose; persisted as the core's serde form of the build
/// settings (the same type `repoqa prompts` builds from its flags: the
/// filter, the cache key, the builder options and the download names all
/// come from it) plus the pass threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    #[serde(flatten)]
    pub build: BuildSettings,
    /// Pass threshold shown in summaries (the table shows all of 0.0..1.0).
    pub threshold: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { build: BuildSettings::default(), threshold: 0.8 }
    }
}

/// Settings as stored (JSON).
pub fn to_json(s: &Settings) -> String {
    // Numbers, strings and lists: serializing cannot fail.
    serde_json::to_string(s).unwrap_or_default()
}

/// Stored settings. A missing field keeps its default; a record that does
/// not read as settings (hand-edited, or from another version) gives the
/// defaults, with a warning: it never blocks the app.
pub fn from_json(text: &str) -> Settings {
    match serde_json::from_str::<Settings>(text) {
        Ok(mut s) => {
            let d = Settings::default();
            if s.build.code_context_size == 0 {
                s.build.code_context_size = d.build.code_context_size;
            }
            if !(0.0..=1.0).contains(&s.threshold) {
                s.threshold = d.threshold;
            }
            s
        }
        Err(e) => {
            warn(&format!("stored settings unreadable ({e}); the defaults are used"));
            Settings::default()
        }
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
