//! `repoqa prompts`: the official task dicts (JSONL) for a dataset.

use std::path::PathBuf;

use clap::ValueEnum;

use repoqa::context::{build_tasks_threaded, CommentMode, Protocol};
use repoqa::naming;
use repoqa::report;
use repoqa::settings::{parse_context_size, BuildSettings, TaskFilter};

use crate::error::{fs_write, refuse_overwriting_inputs, CliError};
use crate::input::load_dataset;
use crate::phases::Phases;

/// Upstream's spellings (`search_needle_function --clean-ctx-comments`),
/// with the earlier kebab-case ones kept as aliases.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CleanArg {
    None,
    #[value(name = "positional_padding", alias = "positional-padding")]
    PositionalPadding,
    #[value(name = "no_padding", alias = "no-padding")]
    NoPadding,
}

/// The options of `repoqa prompts`.
pub struct PromptsArgs {
    pub dataset_path: PathBuf,
    pub code_context_size: usize,
    pub languages: Vec<String>,
    pub repos: Vec<String>,
    pub clean: CleanArg,
    pub tokenizer: Option<PathBuf>,
    pub protocol: ProtocolArg,
    pub out: Option<PathBuf>,
    pub name_protocol: bool,
    /// Threads building tasks.
    pub jobs: usize,
}

impl CleanArg {
    pub fn mode(self) -> CommentMode {
        match self {
            CleanArg::None => CommentMode::None,
            CleanArg::PositionalPadding => CommentMode::PositionalPadding,
            CleanArg::NoPadding => CommentMode::NoPadding,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProtocolArg {
    /// The official construction (default; byte-identical to the harness).
    Official,
    /// NOT OFFICIAL, not comparable with published scores: no P3 shift, no
    /// P6 line break, the K5 suffix built from the right files.
    Corrected,
}

impl ProtocolArg {
    pub fn protocol(self) -> Protocol {
        match self {
            ProtocolArg::Official => Protocol::Official,
            ProtocolArg::Corrected => Protocol::Corrected,
        }
    }
}

/// `--code-context-size` of `prompts`, `run` and `audit`: 1 to
/// `MAX_CODE_CONTEXT_SIZE` tokens (clap names the flag in the message).
pub fn context_size_arg(text: &str) -> Result<usize, String> {
    parse_context_size(text).map_err(|e| e.to_string())
}

pub fn run(a: PromptsArgs) -> Result<(), CliError> {
    let mut phases = Phases::start();
    let dataset = load_dataset(&a.dataset_path)?;
    phases.mark("load-dataset");
    let tok_path = a.tokenizer.unwrap_or_else(repoqa::tokenize::default_tokenizer_path);
    // The app's settings type, so both fronts select and name tasks alike.
    let settings = BuildSettings {
        code_context_size: a.code_context_size,
        comment_mode: a.clean.mode(),
        filter: TaskFilter { languages: a.languages, repos: a.repos, excluded_repos: Vec::new() },
        tokenizer_source: tok_path.display().to_string(),
        protocol: a.protocol.protocol(),
    };
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from(naming::tasks_file_name(&a.dataset_path.display().to_string(), &settings))
    });
    refuse_overwriting_inputs(
        "--out",
        &out,
        &[("--dataset-path", &a.dataset_path), ("--tokenizer", &tok_path)],
    )?;
    if a.name_protocol {
        eprintln!("repoqa: note: {}", repoqa::name_protocol::LABEL);
    }
    if !settings.protocol.is_official() {
        eprintln!(
            "repoqa: NOTE: {}; every task carries \"protocol\": \"{}\"",
            settings.protocol.label(),
            settings.protocol
        );
    }
    for name in settings.filter.unknown_names(&dataset) {
        eprintln!("repoqa: note: the dataset {} has no {name}", a.dataset_path.display());
    }
    let specs = settings.filter.task_specs(&dataset)?;
    if specs.is_empty() {
        return Err(CliError::usage(format!(
            "{}: no tasks: the selected languages and repos have no needles",
            a.dataset_path.display()
        )));
    }
    let tok = repoqa::tokenize::Tokenizer::from_file(&tok_path)?;
    phases.mark("load-tokenizer");
    let total = specs.len();
    let tasks = build_tasks_threaded(
        &dataset,
        &specs,
        &settings.context_options(),
        &tok,
        a.jobs,
        |done, total| {
            if done % 10 == 0 || done == total {
                eprint!("\rprompts: {done}/{total} tasks");
            }
        },
    )?;
    let mut text = String::new();
    for task in &tasks {
        let line = if a.name_protocol {
            repoqa::name_protocol::task_line(task)
        } else {
            report::jsonl_line(task)
        };
        text.push_str(&line?);
    }
    eprintln!();
    phases.mark("build-prompts");
    if out.exists() {
        eprintln!("repoqa: replacing {}", out.display());
    }
    let tag = settings.protocol.as_str();
    if !settings.protocol.is_official() && !out.to_string_lossy().contains(tag) {
        eprintln!("repoqa: NOTE: name the file after the protocol, e.g. tasks-{tag}.jsonl");
    }
    fs_write(&out, text)?;
    phases.mark("write");
    eprintln!("prompts: wrote {total} tasks to {}", out.display());
    Ok(())
}
