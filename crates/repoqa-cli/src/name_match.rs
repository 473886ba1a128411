//! `repoqa name-match`: score model outputs the agent way (mcpbr): a task
//! is solved when the needle's name appears in the reply, case-insensitively.
//! NOT the official score; unreliable matches are flagged.

use std::collections::HashMap;
use std::path::PathBuf;

use repoqa::scoring::name_match::{dataset_descriptions, name_match, tasks_from_outputs};

use crate::error::CliError;
use crate::input::{load_dataset, read_outputs, InflateArgs};
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct NameMatchArgs {
    /// Model outputs JSONL (task dicts with "output": [reply]).
    #[arg(long)]
    model_output_path: PathBuf,
    /// Dataset for the needle descriptions, when the outputs lack them
    /// (descriptions are checked for the needle's name).
    #[arg(long)]
    dataset_path: Option<PathBuf>,
    /// Print `{"overall", "languages", "tasks": [{"language", "repo", "name", "found", "warnings"}]}`.
    #[arg(long)]
    json: bool,
    /// Use the good lines even if some lines are broken (they are listed).
    #[arg(long)]
    skip_broken_lines: bool,
}

pub fn run(a: NameMatchArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let outputs = read_outputs(&a.model_output_path, a.skip_broken_lines, false)?;
    let descriptions = match &a.dataset_path {
        Some(p) => dataset_descriptions(&load_dataset(p, inflate)?),
        None => HashMap::new(),
    };
    let tasks = tasks_from_outputs(&outputs, &descriptions);
    if tasks.is_empty() {
        return Err(CliError::usage(format!("{}: no tasks", a.model_output_path.display())));
    }
    let report = name_match(&tasks);
    if a.json {
        outln!("{}", report.to_json());
    } else {
        out!("{}", report.render_text());
    }
    Ok(())
}
