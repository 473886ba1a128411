//! The flags that decide which prompts are built, declared once for
//! `prompts`, `run` and `audit` (clap's `flatten`), and turned into the
//! core's one `BuildSettings`, so the three build the same tasks from the
//! same flags with the same defaults.

use std::path::{Path, PathBuf};

use clap::Args;

use repoqa::api::build::{BuildPlan, BuildPlanError};
use repoqa::code::tokenize::Tokenizer;
use repoqa::input::dataset::Dataset;
use repoqa::prompt::context::{CommentMode, TaskSpec};
use repoqa::prompt::settings::{parse_context_size, BuildSettings, TaskFilter};
use repoqa::report::{Protocol, Task};

use crate::error::CliError;
use crate::progress;

/// `--code-context-size`: 1 to `MAX_CODE_CONTEXT_SIZE` tokens (clap names
/// the flag in the message).
fn context_size_arg(text: &str) -> Result<usize, String> {
    parse_context_size(text).map_err(|e| e.to_string())
}

/// What selects and shapes the tasks.
#[derive(Args, Clone, Debug)]
pub struct BuildArgs {
    /// Tokens of code around the needle (upstream's flag and default).
    /// NOT UPSTREAM: `prompts` and `run` also take a comma-separated list,
    /// a length ladder (`4096,8192,16384`): each length is built (and run)
    /// in turn, into its own files.
    #[arg(long, value_delimiter = ',', default_values_t = [repoqa::prompt::context::DEFAULT_CODE_CONTEXT_SIZE], value_parser = context_size_arg)]
    pub code_context_size: Vec<usize>,
    /// Comma-separated languages to keep (default: all, dataset order).
    #[arg(long, value_delimiter = ',')]
    pub languages: Vec<String>,
    /// NOT UPSTREAM (an addition): comma-separated repos ("owner/name")
    /// to keep, as the app's repo checkboxes do (default: all).
    #[arg(long, value_delimiter = ',')]
    pub repos: Vec<String>,
    /// Comment cleaning of upstream HEAD (none = PyPI 0.1.2 behaviour; the
    /// cleaning modes also score with comments ignored, as upstream).
    #[arg(long, value_enum, default_value = "none")]
    pub clean_ctx_comments: CommentMode,
    /// HF tokenizer.json (default: $REPOQA_TOKENIZER or .tools/tokenizer.json).
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// How prompts are built: `corrected` is NOT OFFICIAL (its tasks carry
    /// `"protocol": "corrected"`).
    #[arg(long, value_enum, default_value = "official")]
    pub protocol: Protocol,
    /// NOT OFFICIAL, a control: `no-context` builds each task as the official
    /// one but without its code (the instruction and the description only),
    /// to measure what a model answers from memory alone; its tasks carry
    /// `"protocol": "no-context"` (the same as `--protocol no-context`).
    #[arg(long, value_enum, conflicts_with = "protocol")]
    pub control: Option<Control>,
    /// NOT OFFICIAL, the closed-book probe: the same as `--control
    /// no-context` (each task without its code; its files say
    /// `"protocol": "no-context"`). Run it beside the run with the code:
    /// `repoqa report` shows the memorized share, the tasks passed with no code.
    #[arg(long, conflicts_with_all = ["protocol", "control"])]
    pub closed_book: bool,
    /// NOT UPSTREAM, a depth grid (NIAH's depth × length chart):
    /// comma-separated depths from 0 to 1 (`0,0.25,0.5,0.75,1`); each puts
    /// every needle at that depth (its tasks' `position_ratio`) instead of
    /// the official (needle index + 0.5) / needles, a file (and run) per
    /// depth. Default: the official depths. For `prompts` and `run` only.
    #[arg(long, value_delimiter = ',', value_parser = depth_arg, allow_negative_numbers = true)]
    pub depths: Vec<f64>,
}

/// How call-path tasks are chosen (NOT UPSTREAM, docs/call-path.md): for
/// `prompts --task call-path` and `call-graph --tasks`.
#[derive(Args, Clone, Debug)]
pub struct CallPathArgs {
    /// Call-path tasks per repository.
    #[arg(long, default_value_t = repoqa::callpath::select::TASKS_PER_REPO)]
    pub tasks_per_repo: usize,
    /// The lengths (calls from A to B) a call-path task may have.
    #[arg(long, value_delimiter = ',', default_values_t = repoqa::callpath::select::PATH_LENGTHS, value_parser = clap::value_parser!(usize))]
    pub path_lengths: Vec<usize>,
    /// The share of no-path call-path tasks (0 to 1).
    #[arg(long, default_value_t = repoqa::callpath::select::NO_PATH_SHARE)]
    pub no_path_share: f64,
}

impl CallPathArgs {
    pub fn selection(&self) -> repoqa::callpath::select::Selection {
        repoqa::callpath::select::Selection {
            tasks_per_repo: self.tasks_per_repo,
            path_lengths: self.path_lengths.clone(),
            no_path_share: self.no_path_share,
        }
    }
}

/// `--depths`: each a number from 0 to 1.
fn depth_arg(text: &str) -> Result<f64, String> {
    repoqa::prompt::settings::parse_position_ratio(text).map_err(|e| e.to_string())
}

/// The controls `--control` builds.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Control {
    #[value(name = "no-context")]
    NoContext,
}

impl BuildArgs {
    /// The tokenizer file: `--tokenizer`, else the default.
    pub fn tokenizer_path(&self) -> PathBuf {
        self.tokenizer.clone().unwrap_or_else(crate::tokenizer_path::default_tokenizer_path)
    }

    /// The tokenizer of `--tokenizer` (or the default), loaded.
    pub fn load_tokenizer(&self) -> Result<Tokenizer, CliError> {
        Ok(Tokenizer::from_file(&self.tokenizer_path())?)
    }

    /// The lengths asked for, in the order given, each once.
    pub fn lengths(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for &n in &self.code_context_size {
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }

    /// The depths asked for (`--depths`), in the order given, each once;
    /// `[None]` (the official depths) without the flag.
    pub fn depths(&self) -> Vec<Option<f64>> {
        let mut out: Vec<Option<f64>> = Vec::new();
        for &d in &self.depths {
            if !out.contains(&Some(d)) {
                out.push(Some(d));
            }
        }
        if out.is_empty() {
            out.push(None);
        }
        out
    }

    /// The core's settings for these flags, for a command that builds at
    /// one length and the official depths: a list or a depth grid is
    /// refused, naming what takes one.
    pub fn settings(&self) -> Result<BuildSettings, CliError> {
        if !self.depths.is_empty() {
            return Err(CliError::usage(
                "--depths: this command builds at the official depths; a depth grid is for `repoqa prompts` and `repoqa run`",
            ));
        }
        match self.lengths()[..] {
            [n] => Ok(self.settings_at(n)),
            _ => Err(CliError::usage(format!(
                "--code-context-size {}: this command builds at one length; a list (a length ladder) is for `repoqa prompts` and `repoqa run`",
                self.code_context_size.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
            ))),
        }
    }

    /// The core's settings for these flags at `code_context_size` tokens.
    pub fn settings_at(&self, code_context_size: usize) -> BuildSettings {
        BuildSettings {
            code_context_size,
            comment_mode: self.clean_ctx_comments,
            filter: TaskFilter {
                languages: self.languages.clone(),
                repos: self.repos.clone(),
                excluded_repos: Vec::new(),
            },
            tokenizer_source: self.tokenizer_path().display().to_string(),
            protocol: match self.control {
                Some(Control::NoContext) => Protocol::NoContext,
                None if self.closed_book => Protocol::NoContext,
                None => self.protocol,
            },
        }
    }
}

/// The tasks `settings` select from the dataset at `dataset_path`, saying
/// on stderr what a user should know (a not-official protocol, names the
/// dataset lacks). No tasks is an error naming the dataset.
pub fn select_tasks(
    settings: &BuildSettings,
    dataset: &Dataset,
    dataset_path: &Path,
) -> Result<Vec<TaskSpec>, CliError> {
    if !settings.protocol.is_official() {
        eprintln!(
            "repoqa: NOTE: {}; every task carries \"protocol\": \"{}\"",
            settings.protocol.label(),
            settings.protocol
        );
    }
    for name in settings.filter.unknown_names(dataset) {
        eprintln!("repoqa: note: the dataset {} has no {name}", dataset_path.display());
    }
    // The core's plan says what is built, or why nothing is (the page
    // checks the same plan); the message names the dataset here.
    BuildPlan::new(settings.clone()).check(dataset).map_err(|e| match e {
        BuildPlanError::NoTasks => CliError::usage(format!("{}: {e}", dataset_path.display())),
        other => other.into(),
    })
}

/// Build the tasks of `specs` with `settings` on `threads` threads,
/// progress on stderr as `label done/total tasks`.
pub fn build_tasks(
    settings: &BuildSettings,
    dataset: &Dataset,
    specs: &[TaskSpec],
    tokenizer: &Tokenizer,
    threads: usize,
    label: &str,
) -> Result<Vec<Task>, CliError> {
    build_tasks_at(settings, dataset, specs, tokenizer, threads, None, label)
}

/// [`build_tasks`] with every needle at `depth` (a depth grid's row;
/// `None`: the official depths).
pub fn build_tasks_at(
    settings: &BuildSettings,
    dataset: &Dataset,
    specs: &[TaskSpec],
    tokenizer: &Tokenizer,
    threads: usize,
    depth: Option<f64>,
    label: &str,
) -> Result<Vec<Task>, CliError> {
    let plan = BuildPlan { settings: settings.clone(), depth };
    let tasks = plan.build(dataset, specs, tokenizer, threads, |done, total| {
        if done % 10 == 0 || done == total {
            progress::count(&format!("{label} {done}/{total} tasks"), done == total);
        }
    })?;
    Ok(tasks)
}
