//! The tests that run the `repoqa` binary: CLI options, scoring parity, verify,
//! leaderboard, the runner against the test model server and a real model, curation,
//! CoReQA.
//!
//! One binary for the crate's integration tests (the tokenizer and the grammars
//! linked once, not once per file); each file is a module. One file's tests:
//!
//!     cargo test -p repoqa-cli --test it run_cli::
//!
//! `scripts/test.sh` runs each module in a process of its own, one after
//! another, and times it, as when they were binaries of their own.

mod bundle_verify;
mod call_graph;
mod call_path_task;
mod cli_options;
mod coreqa_answer_judge;
mod coreqa_compare;
mod coreqa_issues;
mod coreqa_retrieval;
mod curate_archive;
mod curate_registry;
mod hostile_cli;
mod html_report;
mod leaderboard_published;
mod llm_describe;
mod name_match_replies;
mod no_context_control;
mod parity_score;
mod run_cli;
mod run_real_model;
mod run_reasoning;
mod sample_ladder;
mod stats_scipy;
mod verify_published;
mod verify_tampered;

use std::process::{Command, Output};

pub(crate) use repoqa_testkit::cli::{stderr, text};

/// The `repoqa` binary these tests run (built with them).
pub(crate) const REPOQA: &str = env!("CARGO_BIN_EXE_repoqa");

/// `repoqa` as a command that reaches no real model API
/// (`repoqa_testkit::cli`).
pub(crate) fn repoqa_command() -> Command {
    repoqa_testkit::cli::command(REPOQA)
}

/// `repoqa ARGS`, run to the end.
pub(crate) fn repoqa(args: &[&str]) -> Output {
    repoqa_testkit::cli::run(REPOQA, args)
}
