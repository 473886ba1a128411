//! `repoqa leaderboard`: pass@1 per language and the mean over languages,
//! at any threshold, from the per-task records of one or many SCORES files
//! (plain or `.json.gz`), like the paper's Table 2.

use std::path::PathBuf;

use repoqa::review::leaderboard::{read_scores, Leaderboard, SortKey};

use crate::error::{fs_read, At, CliError};
use crate::intervals::ResampleArgs;
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct LeaderboardArgs {
    /// SCORES files (`-SCORES.json`, or gzipped); a file may hold many models.
    #[arg(long, num_args = 1.., required = true)]
    scores: Vec<PathBuf>,
    /// A task passes when its best target is the needle and its similarity
    /// is at least this (any value from 0 to 1; the paper's table uses 0.8).
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// Sort rows by `average` (default), `model`, `tasks` or a language.
    #[arg(long, default_value = "average")]
    sort: String,
    /// Ascending instead of best first.
    #[arg(long)]
    ascending: bool,
    /// Print `{"threshold", "models": [{"model", "languages", "average", "tasks"}]}`.
    #[arg(long)]
    json: bool,
    /// NOT UPSTREAM: each model's intervals at this confidence (0.95: 95 %)
    /// for its overall pass@1 and each language: Wilson's (JSON "ci") and
    /// the bootstrap's by task and by repository ("ci_tasks", "ci_repos").
    #[arg(long, value_name = "LEVEL")]
    ci: Option<f64>,
    #[command(flatten)]
    resample: ResampleArgs,
}

pub fn run(a: LeaderboardArgs) -> Result<(), CliError> {
    let mut files = Vec::new();
    for path in &a.scores {
        let name = path.display().to_string();
        let bytes = fs_read(path, "scores file")?;
        files.push((name.clone(), read_scores(&bytes, &name)?));
    }
    let mut board =
        Leaderboard::from_files(files.iter().map(|(n, f)| (n.as_str(), f)), a.threshold)
            .at("--threshold")?;
    let key = match a.sort.as_str() {
        "average" => SortKey::Average,
        "model" => SortKey::Model,
        "tasks" => SortKey::Tasks,
        lang if board.languages().iter().any(|l| l == lang) => SortKey::Language(lang.into()),
        other => {
            return Err(CliError::usage(format!(
                "--sort {other:?}: expected average, model, tasks or one of the languages {:?}",
                board.languages()
            )))
        }
    };
    board.sort(&key, !a.ascending && key != SortKey::Model);
    let ci = a.resample.maybe(a.ci)?;
    if a.json {
        outln!("{}", repoqa::python::json::dumps(&board.to_value_with_ci(ci)));
    } else {
        out!("{}", board.render_text_with_ci(ci));
    }
    Ok(())
}
