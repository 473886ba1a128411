//! `repoqa`: the native command-line tool over the same core as the web app.
//!
//! - `repoqa prompts`: the official task dicts (JSONL) for a dataset;
//! - `repoqa score`: score a model-outputs JSONL like `repoqa.compute_score`
//!   and write the official `-SCORES.json`;
//! - `repoqa verify`: recompute a SCORES file's table (and, given the
//!   outputs and dataset, every task) and list each mismatch;
//! - `repoqa curate`: turn a repository's source folder into a dataset repo;
//! - `repoqa self-check`: the grammars and tokenizer check of the web app's
//!   About page, natively (the browser test compares the two).
//!
//! Exit codes: 0 success, 1 `verify` found mismatches, 2 bad input (one line
//! naming the file, line and field).

mod curate;
mod describe;
mod input;
mod phases;
mod prompts;
mod score;
mod self_check;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use repoqa::score::{Candidates, ScoreOptions};

use crate::curate::CurateArgs;
use crate::prompts::CleanArg;
use crate::score::{CandidatesArg, ScoreArgs};

#[derive(Parser)]
#[command(
    name = "repoqa",
    version,
    about = "RepoQA Searching-Needle-Function: official prompts and scores, computed locally"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the official tasks (one JSON dict per line, official key order).
    Prompts {
        /// Dataset file (.json or .json.gz).
        #[arg(long)]
        dataset_path: PathBuf,
        #[arg(long, default_value_t = 16384)]
        code_context_size: usize,
        /// Comma-separated languages to keep (default: all, dataset order).
        #[arg(long, value_delimiter = ',')]
        languages: Option<Vec<String>>,
        /// NOT UPSTREAM (an addition): comma-separated repos ("owner/name")
        /// to keep, as the app's repo checkboxes do (default: all).
        #[arg(long, value_delimiter = ',')]
        repos: Option<Vec<String>>,
        /// Comment cleaning of upstream HEAD (none = PyPI 0.1.2 behaviour).
        #[arg(long, value_enum, default_value = "none")]
        clean_ctx_comments: CleanArg,
        /// HF tokenizer.json (default: $REPOQA_TOKENIZER or .tools/tokenizer.json).
        #[arg(long)]
        tokenizer: Option<PathBuf>,
        /// Output JSONL file (default: named after the dataset and settings,
        /// as the app names its download, e.g.
        /// repoqa-2024-04-20_ntoken_16384-tasks.jsonl).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Score model outputs like `repoqa.compute_score` and write the SCORES file.
    Score {
        /// Model outputs JSONL (task dicts with "output": [reply]).
        #[arg(long)]
        model_output_path: PathBuf,
        /// Dataset file (default: $REPOQA_DATA_OVERRIDE_PATH; nothing is downloaded).
        #[arg(long)]
        dataset_path: Option<PathBuf>,
        /// Remove comments from replies and references before comparing.
        #[arg(long)]
        ignore_comments: bool,
        /// Candidates a reply is matched against.
        #[arg(long, value_enum, default_value = "needles")]
        candidates: CandidatesArg,
        /// Model name (default: from the file name, `_slash_` → `/`, like the official tool).
        #[arg(long)]
        model: Option<String>,
        /// SCORES file to write (default: <outputs without extension>-SCORES.json);
        /// a file already there is kept as <file>.bak.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace an existing SCORES file at the default path (the old one is kept as <file>.bak, like the official tool).
        #[arg(long)]
        overwrite: bool,
        /// train_size to record (default: the official rules; hub lookups give "N/A" offline).
        #[arg(long)]
        train_size: Option<String>,
        /// eval_date to record (default: now, UTC, as `str(datetime)`).
        #[arg(long)]
        eval_date: Option<String>,
        /// Also write the per-task results as CSV.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Score the good lines even if some lines are broken (they are listed).
        #[arg(long)]
        skip_broken_lines: bool,
    },
    /// Check a SCORES file: recompute its table from its results; with the
    /// outputs and dataset, re-score every task too.
    Verify {
        #[arg(long)]
        scores: PathBuf,
        #[arg(long, requires = "dataset_path")]
        model_output_path: Option<PathBuf>,
        #[arg(long, requires = "model_output_path")]
        dataset_path: Option<PathBuf>,
        /// The scores were made with --ignore-comments.
        #[arg(long)]
        ignore_comments: bool,
        /// Re-score the good lines even if some outputs lines are broken.
        #[arg(long)]
        skip_broken_lines: bool,
    },
    /// Curate a repository into a RepoQA dataset repo (upstream semantics):
    /// files, dependencies, functions, 10 needles, descriptions.
    Curate(Box<CurateArgs>),
    /// Check the grammars and the tokenizer like the web app's About page.
    SelfCheck {
        /// HF tokenizer.json (default: $REPOQA_TOKENIZER or .tools/tokenizer.json).
        #[arg(long)]
        tokenizer: Option<PathBuf>,
        /// Print JSON (what the browser test reads).
        #[arg(long)]
        json: bool,
    },
}

/// A user-facing failure: the message (one line) and the exit code.
pub struct Failure(pub String, pub u8);

pub fn bad(msg: impl Into<String>) -> Failure {
    Failure(msg.into(), 2)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Prompts {
            dataset_path,
            code_context_size,
            languages,
            repos,
            clean_ctx_comments,
            tokenizer,
            out,
        } => prompts::run(prompts::PromptsArgs {
            dataset_path,
            code_context_size,
            languages: languages.unwrap_or_default(),
            repos: repos.unwrap_or_default(),
            clean: clean_ctx_comments,
            tokenizer,
            out,
        }),
        Command::Score {
            model_output_path,
            dataset_path,
            ignore_comments,
            candidates,
            model,
            out,
            overwrite,
            train_size,
            eval_date,
            csv,
            skip_broken_lines,
        } => score::run(ScoreArgs {
            outputs: model_output_path,
            dataset: dataset_path,
            options: ScoreOptions {
                ignore_comments,
                candidates: match candidates {
                    CandidatesArg::Needles => Candidates::Needles,
                    CandidatesArg::Context => Candidates::Context,
                },
            },
            model,
            out,
            overwrite,
            train_size,
            eval_date,
            csv,
            skip_broken_lines,
        }),
        Command::Verify {
            scores,
            model_output_path,
            dataset_path,
            ignore_comments,
            skip_broken_lines,
        } => verify::run(
            &scores,
            model_output_path.as_deref(),
            dataset_path.as_deref(),
            ignore_comments,
            skip_broken_lines,
        ),
        Command::Curate(args) => curate::run(*args),
        Command::SelfCheck { tokenizer, json } => self_check::run(tokenizer, json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(msg, code)) => {
            eprintln!("repoqa: {msg}");
            ExitCode::from(code)
        }
    }
}
