//! `repoqa compare A B`: two runs on the same tasks, paired at a threshold
//! (the core's `repoqa::review::compare`): the 2×2 table overall and per language,
//! McNemar's exact test, the bootstrap intervals of the difference (by task
//! and by repository), and the tasks that flipped; `--json` for tools.

use std::path::{Path, PathBuf};

use repoqa::report::ModelScores;
use repoqa::review::compare::compare;
use repoqa::review::leaderboard::{check_threshold, read_scores};

use crate::error::{fs_read, At, CliError};
use crate::intervals::ResampleArgs;
use crate::stdout::{out, outln};

#[derive(clap::Args)]
pub struct CompareArgs {
    /// The SCORES file of run A, then of run B (plain or gzipped), each of
    /// one model, on the same tasks.
    #[arg(num_args = 2, required = true, value_names = ["A", "B"])]
    files: Vec<PathBuf>,
    /// A task passes when its best target is the needle and its similarity
    /// is at least this (the paper's table uses 0.8).
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// Print `{"both", "only_a", "only_b", "neither", "mcnemar_p",
    /// "languages", "flipped": [{"language", "repo", "name", "a", "b", …}]}`.
    #[arg(long)]
    json: bool,
    /// The confidence of the bootstrap intervals of A − B.
    #[arg(long, value_name = "LEVEL", default_value_t = 0.95)]
    ci: f64,
    #[command(flatten)]
    resample: ResampleArgs,
}

/// The one model of a SCORES file, with its name.
fn one_model(path: &Path) -> Result<(String, ModelScores), CliError> {
    let name = path.display().to_string();
    let file = read_scores(&fs_read(path, "scores file")?, &name)?;
    if file.models.len() != 1 {
        return Err(CliError::usage(format!(
            "{name}: holds {} models; compare needs a file of one model",
            file.models.len()
        )));
    }
    let (model, scores) = file
        .models
        .into_iter()
        .next()
        .ok_or_else(|| CliError::usage(format!("{name}: holds no model")))?;
    Ok((model, scores))
}

pub fn run(a: CompareArgs) -> Result<(), CliError> {
    let threshold = check_threshold(a.threshold).at("--threshold")?;
    let (name_a, run_a) = one_model(&a.files[0])?;
    let (name_b, run_b) = one_model(&a.files[1])?;
    let resampling = a.resample.at(a.ci)?;
    let paired = compare(&run_a, &run_b, threshold)?;
    if a.json {
        outln!("{}", repoqa::python::json::dumps(&paired.to_value(resampling)));
    } else {
        out!("{}", paired.render_text(&name_a, &name_b, resampling));
    }
    Ok(())
}
