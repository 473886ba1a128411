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
/// Written by hand ([`Serialize`] below) so that a closed-book task also
/// says `"closed_book": true`; read with the derive, which ignores that
/// field (`outputs_protocol` checks it against the protocol).
#[derive(Clone, Debug, PartialEq, Deserialize)]
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
    /// field `"protocol"`; official tasks have no such field. NOT UPSTREAM:
    /// the no-context protocol (the closed-book probe) is also written
    /// `"closed_book": true` after it, as every file of the probe says.
    #[serde(default)]
    pub protocol: Protocol,
}

impl Serialize for Task {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let closed_book = self.protocol == Protocol::NoContext;
        let extra = usize::from(!self.protocol.is_official()) + usize::from(closed_book);
        let mut t = s.serialize_struct("Task", 12 + extra)?;
        t.serialize_field("repo", &self.repo)?;
        t.serialize_field("name", &self.name)?;
        t.serialize_field("language", &self.language)?;
        t.serialize_field("path", &self.path)?;
        t.serialize_field("position_ratio", &self.position_ratio)?;
        t.serialize_field("description", &self.description)?;
        t.serialize_field("instruction", &self.instruction)?;
        t.serialize_field("template", &self.template)?;
        t.serialize_field("code_context", &self.code_context)?;
        t.serialize_field("needle_token_start", &self.needle_token_start)?;
        t.serialize_field("needle_token_end", &self.needle_token_end)?;
        t.serialize_field("code_context_ntokens", &self.code_context_ntokens)?;
        if !self.protocol.is_official() {
            t.serialize_field("protocol", &self.protocol)?;
        }
        if closed_book {
            t.serialize_field("closed_book", &true)?;
        }
        t.end()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn task(protocol: Protocol) -> Task {
        Task {
            repo: "r".into(),
            name: "f".into(),
            language: "python".into(),
            path: "a.py".into(),
            position_ratio: 0.5,
            description: "d".into(),
            instruction: "i".into(),
            template: "instruction\ncode_context\ndescription\ninstruction".into(),
            code_context: String::new(),
            needle_token_start: 1,
            needle_token_end: 2,
            code_context_ntokens: 3,
            protocol,
        }
    }

    /// The official order; `protocol` and `closed_book` only where they
    /// say something, and every protocol reads back as written.
    #[test]
    fn a_task_writes_the_official_fields_then_what_its_protocol_adds() {
        let keys = |p| -> Vec<String> {
            let v = serde_json::to_value(task(p)).expect("writes");
            v.as_object().expect("an object").keys().cloned().collect()
        };
        let official = keys(Protocol::Official);
        assert_eq!(official.first().map(String::as_str), Some("repo"));
        assert_eq!(official.last().map(String::as_str), Some("code_context_ntokens"));
        assert_eq!(official.len(), 12);
        assert_eq!(keys(Protocol::Corrected)[12..], ["protocol"]);
        assert_eq!(keys(Protocol::NoContext)[12..], ["protocol", "closed_book"]);
        for p in Protocol::ALL {
            let json = serde_json::to_string(&task(*p)).expect("writes");
            assert_eq!(serde_json::from_str::<Task>(&json).expect("reads"), task(*p));
        }
        let json = serde_json::to_string(&task(Protocol::NoContext)).expect("writes");
        assert!(json.ends_with(r#""protocol":"no-context","closed_book":true}"#), "{json}");
    }
}
