//! `repoqa agent-export` / `repoqa agent-import`: RepoQA the agent way
//! (as mcpbr runs it). Export writes one task per line (`instance_id`
//! `repoqa_<i>`, repo, language, description, function_name); import reads
//! `{"instance_id", "response"}` objects and scores them by name match
//! against the exported tasks. NOT the official score.

use std::path::PathBuf;

use repoqa::prompt::agent::{
    export_tasks, read_results, read_tasks, score_results, tasks_jsonl, ExportOptions,
};

use crate::error::{fs_read_text, fs_write, CliError};
use crate::input::{load_dataset, InflateArgs};
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct AgentExportArgs {
    /// Dataset file (.json or .json.gz).
    #[arg(long)]
    dataset_path: PathBuf,
    /// Comma-separated languages to keep (default: all).
    #[arg(long, value_delimiter = ',')]
    languages: Option<Vec<String>>,
    /// Export a sample of this many tasks (ids are then 0..n-1).
    #[arg(long)]
    sample: Option<usize>,
    /// Seed of the sample (the same seed picks the same tasks).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output JSONL file.
    #[arg(long)]
    out: PathBuf,
}

pub fn export(a: AgentExportArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let dataset = load_dataset(&a.dataset_path, inflate)?;
    if let Some(ls) = &a.languages {
        for l in ls {
            if dataset.repos(l.trim()).is_none() {
                return Err(CliError::usage(format!(
                    "--languages: the dataset has no language {l:?} (it has {:?})",
                    dataset.languages.keys().collect::<Vec<_>>()
                )));
            }
        }
    }
    let options = ExportOptions {
        languages: a.languages.map(|ls| ls.iter().map(|l| l.trim().to_string()).collect()),
        sample: a.sample,
        seed: a.seed,
    };
    let tasks = export_tasks(&dataset, &options);
    fs_write(&a.out, tasks_jsonl(&tasks))?;
    eprintln!("agent-export: wrote {} tasks to {}", tasks.len(), a.out.display());
    Ok(())
}

#[derive(clap::Args)]
pub struct AgentImportArgs {
    /// The tasks written by `repoqa agent-export`.
    #[arg(long)]
    tasks: PathBuf,
    /// Agent results: `{"instance_id", "response"}` per line, or a JSON array.
    #[arg(long)]
    results: PathBuf,
    /// Print the name-match report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn import(a: AgentImportArgs) -> Result<(), CliError> {
    let tasks_text = fs_read_text(&a.tasks, "agent tasks")?;
    let tasks = read_tasks(&tasks_text, &a.tasks.display().to_string())?;
    let results = read_results(&fs_read_text(&a.results, "agent results")?);
    for e in &results.errors {
        eprintln!("repoqa: {}: {e}", a.results.display());
    }
    let s = score_results(&tasks, &results);
    for (what, ids) in [
        ("without a response (counted as not found)", &s.unanswered),
        ("unknown (ignored)", &s.unknown),
        ("answered more than once (the first counts)", &s.duplicates),
    ] {
        if !ids.is_empty() {
            eprintln!("repoqa: {} instance id(s) {what}: {}", ids.len(), ids.join(", "));
        }
    }
    if a.json {
        outln!("{}", s.report.to_json());
    } else {
        out!("{}", s.report.render_text());
    }
    Ok(())
}
