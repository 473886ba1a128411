//! The task record of the official files: one task dict of a tasks JSONL
//! file (and the fields an outputs line repeats), its id, and the protocol
//! it was built under. Prompt building (`crate::prompt`) makes them;
//! scoring and review read them without knowing how they were built.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A protocol name that is none of [`Protocol::ALL`].
#[derive(Debug, Error)]
#[error("unknown protocol {0:?} (expected official, corrected or no-context)")]
pub struct UnknownProtocol(pub String);

impl UnknownProtocol {
    fn of(s: &str) -> UnknownProtocol {
        UnknownProtocol(s.to_string())
    }
}

/// How prompts are built. `Official` is the official harness, quirks
/// included; `Corrected` is NOT OFFICIAL (its scores are not comparable
/// with published ones): the needle cut at the right character offsets (no
/// P3 shift), no line break inserted before it (P6), and the cleaning-mode
/// suffix built from the right files (K5); depth placement and token
/// budgets as official otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = UnknownProtocol,
    parse_err_fn = UnknownProtocol::of
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Protocol {
    /// The official construction (default; byte-identical to the harness).
    #[default]
    Official,
    /// NOT OFFICIAL, not comparable with published scores: no P3 shift, no
    /// P6 line break, the K5 suffix built from the right files.
    Corrected,
    /// NOT OFFICIAL, a control: each task built as the official one, then
    /// its code context left out, so the prompt holds the instruction and
    /// the description only. A run on it measures what a model answers from
    /// memory alone (contamination); compare it with the real run.
    #[serde(rename = "no-context")]
    #[strum(serialize = "no-context")]
    #[cfg_attr(feature = "cli", value(name = "no-context"))]
    NoContext,
}

impl Protocol {
    pub const ALL: &[Protocol] = <Protocol as strum::VariantArray>::VARIANTS;

    /// The option string (also `Display` and `FromStr`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn is_official(&self) -> bool {
        *self == Protocol::Official
    }

    /// The prompts hold a code context (every protocol but the control):
    /// the ones the audit looks for artifacts in.
    pub fn has_context(self) -> bool {
        self != Protocol::NoContext
    }

    /// What a file or table made under this protocol must say about it.
    pub fn label(self) -> &'static str {
        match self {
            Protocol::Official => "official protocol",
            Protocol::Corrected => {
                "corrected protocol (NOT OFFICIAL: not comparable with published scores)"
            }
            Protocol::NoContext => {
                "no-context control (NOT OFFICIAL: the prompts hold no code, so a pass is recalled from memory)"
            }
        }
    }
}

/// One task dict of the official harness, fields in the official order (J3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub repo: String,
    pub name: String,
    pub language: String,
    pub path: String,
    pub position_ratio: f64,
    pub description: String,
    pub instruction: String,
    pub template: String,
    pub code_context: String,
    pub needle_token_start: usize,
    pub needle_token_end: usize,
    pub code_context_ntokens: usize,
    /// NOT OFFICIAL when not `Official`: then written as an extra last
    /// field `"protocol"`; official tasks have no such field.
    #[serde(default, skip_serializing_if = "Protocol::is_official")]
    pub protocol: Protocol,
}

impl AsRef<Task> for Task {
    fn as_ref(&self) -> &Task {
        self
    }
}

impl Task {
    /// The prompt: the fields named by `template`, concatenated (P11).
    pub fn prompt(&self) -> String {
        fill_template(&self.template, |key| match key {
            "instruction" => &self.instruction,
            "code_context" => &self.code_context,
            "description" => &self.description,
            "repo" => &self.repo,
            "name" => &self.name,
            "language" => &self.language,
            "path" => &self.path,
            // The official template only names the three above.
            _ => "",
        })
    }

    /// `make_task_id`: "lang::repo::name".
    pub fn task_id(&self) -> String {
        task_id(&self.language, &self.repo, &self.name)
    }
}

/// A task's id, as upstream's `make_task_id` writes it:
/// `"<language>::<repo>::<needle name>"`. The one place the form is written.
pub fn task_id(language: &str, repo: &str, name: &str) -> String {
    format!("{language}::{repo}::{name}")
}

/// A prompt from a `template` (field names, one per line): each named
/// field's text, concatenated with nothing between (P11); a name `field`
/// does not know gives "".
pub fn fill_template<'a>(template: &str, field: impl Fn(&str) -> &'a str) -> String {
    template.split('\n').map(field).collect()
}
