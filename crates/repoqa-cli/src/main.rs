//! `repoqa`: the native command-line tool over the same core as the web app.
//!
//! - `repoqa prompts`: the official task dicts (JSONL) for a dataset;
//! - `repoqa score`: score a model-outputs JSONL like `repoqa.compute_score`
//!   and write the official `-SCORES.json`;
//! - `repoqa verify`: recompute a SCORES file's table (and, given the
//!   outputs and dataset, every task) and list each mismatch;
//! - `repoqa leaderboard`: pass@1 per language and average at any threshold
//!   over one or many SCORES files;
//! - `repoqa ladder`: a model's runs at several context lengths: pass@1 by
//!   length, depth × length, the effective context length;
//! - `repoqa name-match`, `repoqa agent-export` / `agent-import`: the agent
//!   way (mcpbr's name match; NOT the official score);
//! - `repoqa curate`: turn a repository's source folder into a dataset repo;
//! - `repoqa audit`: the artifacts by which official prompts mark the needle,
//!   per task and per language, and what an answerer that only looks for
//!   them scores (`--protocol corrected`: the same without them);
//! - `repoqa run`: ask a model behind an API every task (upstream's
//!   `search_needle_function`), resumably, then score like `repoqa score`;
//! - `repoqa self-check`: the grammars and tokenizer check of the web app's
//!   About page, natively (the browser test compares the two).
//!
//! Exit codes: 0 success, 1 `verify` found mismatches, 2 bad input (one line
//! naming the file, line and field), 3 `run` left tasks failed (named).

mod agent;
mod ask;
mod audit;
mod build_args;
mod bundle;
mod call_graph;
mod call_path;
mod compare;
mod coreqa;
mod coreqa_ask;
mod coreqa_fetch;
mod curate;
mod curate_registry;
mod describe;
mod error;
mod http;
mod input;
mod interrupt;
mod intervals;
mod ladder;
mod leaderboard;
mod name_match;
mod phases;
mod preflight;
mod progress;
mod prompts;
mod report_html;
mod run;
mod score;
mod self_check;
mod stdout;
mod text_dir;
mod tokenizer_path;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use repoqa::scoring::score::{Candidates, ScoreOptions};

use crate::audit::AuditArgs;
use crate::curate::CurateArgs;
use crate::score::ScoreArgs;

#[derive(Parser)]
#[command(
    name = "repoqa",
    version,
    about = "RepoQA Searching-Needle-Function: official prompts and scores, computed locally"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    inflate: input::InflateArgs,
}

#[derive(Subcommand)]
enum BatchCommand {
    /// Write the selected tasks' official requests (those without an
    /// answer in the outputs file) as an OpenAI Batch API input file
    /// (JSONL) or an Anthropic Message Batches request body (JSON), for
    /// `repoqa run`'s flags (--backend openai|anthropic); nothing is sent.
    Export {
        /// The batch file to write.
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        run: Box<run::RunArgs>,
    },
    /// Read a batch's results (and OpenAI's error file) into the outputs
    /// file and run log `repoqa run` writes, then score them as it does.
    Import {
        /// The provider's results file (OpenAI output file, Anthropic
        /// results JSONL).
        #[arg(long)]
        results: PathBuf,
        /// OpenAI's error file, if the batch has one.
        #[arg(long)]
        errors: Option<PathBuf>,
        #[command(flatten)]
        run: Box<run::RunArgs>,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Build the official tasks (one JSON dict per line, official key order).
    Prompts(prompts::PromptsArgs),
    /// Audit the prompts: for every task, the artifacts by which the official
    /// construction marks the needle (stray-line-break, extra-blank-line,
    /// shifted-needle, glued-path), counts per language, and the score of an
    /// answerer that only looks for them.
    Audit(AuditArgs),
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
        candidates: Candidates,
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
        /// NOT UPSTREAM: the model's training cutoff as its maker states it
        /// (YYYY-MM-DD), recorded in the SCORES file; a dataset first
        /// released before it is warned about (see `curate --registry`).
        #[arg(long, value_parser = score::parse_day)]
        model_cutoff: Option<String>,
        /// Also write the per-task results as CSV.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Score the good lines even if some lines are broken (they are listed).
        #[arg(long)]
        skip_broken_lines: bool,
        /// NOT UPSTREAM (an addition): score every line even when a task is
        /// answered more than once, each counting, as the official scorer
        /// counts them (by default a repeated task is a broken line).
        #[arg(long)]
        allow_repeated_tasks: bool,
        #[command(flatten)]
        ci: intervals::CiArgs,
        /// Which task the outputs answer: `call-path` (NOT UPSTREAM,
        /// docs/call-path.md) judges each reply's chain of calls against
        /// the dataset's call graph.
        #[arg(long, value_enum, default_value = "snf")]
        task: repoqa::api::TaskKind,
        /// With --task call-path: print the scores as one JSON object
        /// (`pass@1` the overall pass rate).
        #[arg(long)]
        json: bool,
    },
    /// Check a SCORES file: recompute its table from its results; with the
    /// outputs and dataset, re-score every task too.
    Verify {
        #[arg(long, required_unless_present = "bundle")]
        scores: Option<PathBuf>,
        #[arg(long, requires = "dataset_path")]
        model_output_path: Option<PathBuf>,
        /// The dataset to re-score against (with --model-output-path or --bundle).
        #[arg(long)]
        dataset_path: Option<PathBuf>,
        /// NOT UPSTREAM: a result bundle (`repoqa bundle`): rebuild its
        /// prompts from --dataset-path and --tokenizer, check every hash,
        /// re-score every answer.
        #[arg(long, conflicts_with_all = ["scores", "model_output_path"], requires = "dataset_path")]
        bundle: Option<PathBuf>,
        /// The tokenizer of a bundle's prompts (default: $REPOQA_TOKENIZER or .tools/tokenizer.json).
        #[arg(long, requires = "bundle")]
        tokenizer: Option<PathBuf>,
        /// The scores were made with --ignore-comments.
        #[arg(long)]
        ignore_comments: bool,
        /// Re-score the good lines even if some outputs lines are broken.
        #[arg(long)]
        skip_broken_lines: bool,
        /// NOT UPSTREAM (an addition): score every line even when a task is
        /// answered more than once, each counting, as the official scorer
        /// counts them (by default a repeated task is a broken line).
        #[arg(long)]
        allow_repeated_tasks: bool,
        #[command(flatten)]
        ci: intervals::CiArgs,
        /// Which task the SCORES file is of (a call-path file, NOT
        /// UPSTREAM, is known by its `task` field; `call-path` refuses any
        /// other).
        #[arg(long, value_enum, default_value = "snf")]
        task: repoqa::api::TaskKind,
    },
    /// pass@1 per language and average at any threshold, from one or many
    /// SCORES files (the paper's Table 2 at 0.8).
    Leaderboard(leaderboard::LeaderboardArgs),
    /// NOT UPSTREAM: a model's runs at several code-context lengths: pass@1
    /// by length, depth × length, the effective context length.
    Ladder(ladder::LadderArgs),
    /// NOT OFFICIAL: the agent way (mcpbr): the needle's name in the reply.
    NameMatch(name_match::NameMatchArgs),
    /// Agent-style tasks (instance ids repoqa_0…) for agent harnesses.
    AgentExport(agent::AgentExportArgs),
    /// NOT OFFICIAL: score agent results ({instance_id, response}) by name match.
    AgentImport(agent::AgentImportArgs),
    /// Curate a repository into a RepoQA dataset repo (upstream semantics):
    /// files, dependencies, functions, 10 needles, descriptions.
    Curate(Box<CurateArgs>),
    /// NOT UPSTREAM: each repository's static call graph, as the call-path
    /// task reads it from the dataset (docs/call-path.md): a line per
    /// repository, or every node and edge with --json.
    CallGraph(call_graph::CallGraphArgs),
    /// Ask a model every task over its API (OpenAI-compatible, Anthropic,
    /// Google), resumably, then score the outputs like `repoqa score`.
    Run(Box<run::RunArgs>),
    /// NOT UPSTREAM: two runs on the same tasks, paired: the 2×2 table of
    /// passes, McNemar's exact test and the tasks that flipped.
    Compare(compare::CompareArgs),
    /// NOT UPSTREAM: one self-contained HTML report from SCORES files
    /// (tables, intervals, charts, input hashes; `--compare` for two runs),
    /// readable with JavaScript off and no network.
    Report(Box<report_html::ReportArgs>),
    /// NOT UPSTREAM: a self-verifying result bundle of a run (SCORES,
    /// outputs, settings, the dataset's, tokenizer's and prompts' hashes);
    /// check one with `repoqa verify --bundle`.
    Bundle(Box<bundle::BundleArgs>),
    /// NOT UPSTREAM: a run through the providers' batch APIs (half the
    /// price, no key here): export the requests, import the results.
    #[command(subcommand)]
    Batch(BatchCommand),
    /// CoReQA (repository question answering): the retrieval context
    /// setting, chunks by LangChain's recursive splitter ranked by BM25.
    #[command(subcommand)]
    Coreqa(coreqa::CoreqaCommand),
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

/// `repoqa run` (and a batch's export or import) of the task `--task`
/// names: SNF's run, or the call-path task's (NOT UPSTREAM).
fn run_task(
    args: run::RunArgs,
    inflate: &input::InflateArgs,
    asking: run::Asking,
) -> Result<(), error::CliError> {
    match args.task {
        repoqa::api::TaskKind::CallPath => call_path::run(&args, inflate, &asking),
        repoqa::api::TaskKind::Snf => run::run_as(args, inflate, asking),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let inflate = &cli.inflate;
    let result = match cli.command {
        Command::Prompts(args) => prompts::run(args, inflate),
        Command::Audit(args) => audit::run(args, inflate),
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
            model_cutoff,
            csv,
            skip_broken_lines,
            allow_repeated_tasks,
            ci,
            task,
            json,
        } => match task {
            repoqa::api::TaskKind::CallPath => {
                let snf_only = [
                    (ignore_comments, "--ignore-comments"),
                    (candidates != Candidates::Needles, "--candidates"),
                    (train_size.is_some(), "--train-size"),
                    (model_cutoff.is_some(), "--model-cutoff"),
                    (csv.is_some(), "--csv"),
                    (skip_broken_lines, "--skip-broken-lines"),
                    (allow_repeated_tasks, "--allow-repeated-tasks"),
                ];
                match snf_only.iter().find(|(given, _)| *given) {
                    Some((_, flag)) => Err(error::CliError::usage(format!(
                        "{flag} is for SNF outputs, not --task call-path"
                    ))),
                    None => input::dataset_path_or_env(dataset_path).and_then(|dataset| {
                        call_path::score(
                            call_path::CallPathScoreArgs {
                                outputs: &model_output_path,
                                dataset: &dataset,
                                model,
                                out,
                                overwrite,
                                eval_date,
                                json,
                            },
                            inflate,
                        )
                    }),
                }
            }
            repoqa::api::TaskKind::Snf => score::run(
                ScoreArgs {
                    outputs: model_output_path,
                    dataset: dataset_path,
                    options: ScoreOptions { ignore_comments, candidates },
                    model,
                    out,
                    overwrite,
                    train_size,
                    eval_date,
                    csv,
                    skip_broken_lines,
                    allow_repeated_tasks,
                    unanswered: None,
                    replies: Default::default(),
                    ci,
                    model_cutoff,
                },
                inflate,
            ),
        },
        Command::Verify {
            scores,
            model_output_path,
            dataset_path,
            bundle,
            tokenizer,
            ignore_comments,
            skip_broken_lines,
            allow_repeated_tasks,
            ci,
            task,
        } => match (bundle, scores, dataset_path) {
            (Some(b), _, Some(d)) => bundle::verify_bundle(&b, &d, tokenizer, inflate),
            (None, Some(s), d) if d.is_none() || model_output_path.is_some() => verify::run(
                &s,
                model_output_path.as_deref(),
                d.as_deref(),
                verify::VerifyOptions {
                    ignore_comments,
                    skip_broken_lines,
                    allow_repeated_tasks,
                    ci,
                    task,
                },
                inflate,
            ),
            _ => Err(crate::error::CliError::usage(
                "--dataset-path goes with --model-output-path (re-score) or --bundle".to_string(),
            )),
        },
        Command::Leaderboard(args) => leaderboard::run(args),
        Command::Ladder(args) => ladder::run(args),
        Command::NameMatch(args) => name_match::run(args, inflate),
        Command::AgentExport(args) => agent::export(args, inflate),
        Command::AgentImport(args) => agent::import(args),
        Command::Curate(args) if args.fresh.registry.is_some() => {
            curate_registry::run(&args, inflate)
        }
        Command::Curate(args) => curate::run(*args, inflate),
        Command::CallGraph(args) => call_graph::run(args, inflate),
        Command::Run(args) => run_task(*args, inflate, run::Asking::Live),
        Command::Compare(args) => compare::run(args),
        Command::Report(args) => report_html::run(*args),
        Command::Bundle(args) => bundle::write(*args, inflate),
        Command::Batch(BatchCommand::Export { out, run }) => {
            run_task(*run, inflate, run::Asking::Export(out))
        }
        Command::Batch(BatchCommand::Import { results, errors, run }) => {
            run_task(*run, inflate, run::Asking::Import { results, errors })
        }
        Command::Coreqa(command) => coreqa::run(command),
        Command::SelfCheck { tokenizer, json } => self_check::run(tokenizer, json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("repoqa: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
