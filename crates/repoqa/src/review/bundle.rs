//! A self-verifying result bundle: one JSON file holding a run's SCORES
//! file and outputs (their texts, byte for byte), the build settings and
//! scoring option, the identity of the dataset (`identity::content_id`), the
//! SHA-256 of the tokenizer and of every task's prompt, and the tool's
//! version. `repoqa verify --bundle` (and the Verify page) rebuilds the
//! prompts from the dataset and tokenizer, checks each hash, re-scores every
//! answer and reports, task by task, where the claimed score disagrees —
//! no server involved.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::input::identity::sha256_hex;
use crate::prompt::settings::BuildSettings;
use crate::report::Task;
use crate::report::{read_model_outputs, OutputsFile, ScoresFile};

/// The format tag of a bundle file.
pub const FORMAT: &str = "repoqa-web-bundle/1";

#[derive(Debug, Error)]
pub enum BundleError {
    #[error("{origin}: not a result bundle: {message}")]
    Parse { origin: String, message: String },
    #[error("{origin}: a bundle of format {found:?}; this tool reads {FORMAT:?}")]
    Format { origin: String, found: String },
    #[error("{origin}: its SCORES file: {message}")]
    Scores { origin: String, message: String },
}

/// A bundle, as its JSON holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    pub format: String,
    /// The tool and version that wrote it.
    pub tool: String,
    pub model: String,
    /// The settings the prompts were built with (the tokenizer's source is
    /// informative: its SHA-256 decides).
    pub settings: BuildSettings,
    /// Scored with comments removed (`--ignore-comments`).
    pub ignore_comments: bool,
    /// `identity::content_id` of the dataset (the same for .json and .gz).
    pub dataset_sha256: String,
    pub tokenizer_sha256: String,
    /// Task id → SHA-256 of its prompt, for every answered task.
    pub prompts: IndexMap<String, String>,
    /// The outputs JSONL, as written.
    pub outputs: String,
    /// The SCORES file, as written.
    pub scores: String,
}

/// Where a bundle disagrees with the inputs it was checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BundleFinding {
    /// The dataset or the tokenizer is not the one the bundle names.
    Input { what: &'static str, claimed: String, actual: String },
    /// A task's prompt, rebuilt, hashes otherwise.
    PromptDiffers { task: String },
    /// A task of the bundle that the settings do not build.
    PromptNotBuilt { task: String },
}

impl std::fmt::Display for BundleFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BundleFinding::Input { what, claimed, actual } => write!(
                f,
                "MISMATCH {what}: the bundle names SHA-256 {claimed}, the one given is {actual}"
            ),
            BundleFinding::PromptDiffers { task } => write!(
                f,
                "MISMATCH prompt of task {task}: rebuilt from the dataset, it differs from the one the model was asked"
            ),
            BundleFinding::PromptNotBuilt { task } => {
                write!(f, "MISMATCH task {task}: the bundle's settings do not build it from this dataset")
            }
        }
    }
}

/// The SHA-256 of a task's prompt.
pub fn prompt_sha256(task: &Task) -> String {
    sha256_hex(task.prompt().as_bytes())
}

impl Bundle {
    /// A bundle of a run: `tasks` the built tasks (those with an answer in
    /// `outputs` are hashed), the texts as written.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: &str,
        settings: BuildSettings,
        ignore_comments: bool,
        dataset_sha256: String,
        tokenizer_sha256: String,
        tasks: &[impl AsRef<Task>],
        outputs: String,
        scores: String,
    ) -> Bundle {
        let answered: std::collections::HashSet<String> = read_model_outputs(&outputs)
            .outputs
            .iter()
            .map(|o| crate::report::task_id(&o.language, &o.repo, &o.name))
            .collect();
        let prompts = tasks
            .iter()
            .map(AsRef::as_ref)
            .filter(|t| answered.contains(&t.task_id()))
            .map(|t| (t.task_id(), prompt_sha256(t)))
            .collect();
        Bundle {
            format: FORMAT.to_string(),
            tool: crate::review::html_report::TOOL.to_string(),
            model: model.to_string(),
            settings,
            ignore_comments,
            dataset_sha256,
            tokenizer_sha256,
            prompts,
            outputs,
            scores,
        }
    }

    /// Read a bundle's JSON text (`origin` names it in errors).
    pub fn parse(text: &str, origin: &str) -> Result<Bundle, BundleError> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| BundleError::Parse {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        match v.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => {
                return Err(BundleError::Format {
                    origin: origin.to_string(),
                    found: other.to_string(),
                })
            }
            None => {
                return Err(BundleError::Parse {
                    origin: origin.to_string(),
                    message: "no \"format\" field".into(),
                })
            }
        }
        serde_json::from_value(v)
            .map_err(|e| BundleError::Parse { origin: origin.to_string(), message: e.to_string() })
    }

    /// The JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Its SCORES file, parsed.
    pub fn scores_file(&self, origin: &str) -> Result<ScoresFile, BundleError> {
        ScoresFile::parse(&self.scores, &format!("{origin} (scores)"))
            .map_err(|e| BundleError::Scores { origin: origin.to_string(), message: e.to_string() })
    }

    /// Its outputs, parsed.
    pub fn outputs_file(&self) -> OutputsFile {
        read_model_outputs(&self.outputs)
    }

    /// Check the inputs the prompts are rebuilt from: the dataset's
    /// identity, the tokenizer's SHA-256 and, for every task the bundle
    /// hashes, its rebuilt prompt (`tasks`: built with `self.settings`).
    pub fn check_inputs(
        &self,
        dataset_sha256: &str,
        tokenizer_sha256: &str,
        tasks: &[impl AsRef<Task>],
    ) -> Vec<BundleFinding> {
        let mut out = Vec::new();
        for (what, claimed, actual) in [
            ("dataset", &self.dataset_sha256, dataset_sha256),
            ("tokenizer", &self.tokenizer_sha256, tokenizer_sha256),
        ] {
            if claimed != actual {
                out.push(BundleFinding::Input {
                    what,
                    claimed: claimed.clone(),
                    actual: actual.to_string(),
                });
            }
        }
        let built: std::collections::HashMap<String, String> =
            tasks.iter().map(AsRef::as_ref).map(|t| (t.task_id(), prompt_sha256(t))).collect();
        for (task, sha) in &self.prompts {
            match built.get(task) {
                None => out.push(BundleFinding::PromptNotBuilt { task: task.clone() }),
                Some(s) if s != sha => {
                    out.push(BundleFinding::PromptDiffers { task: task.clone() })
                }
                Some(_) => {}
            }
        }
        out
    }
}
