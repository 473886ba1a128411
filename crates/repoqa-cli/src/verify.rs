//! `repoqa verify`: check a SCORES file with the core's verification
//! (`repoqa::review::verify`, the same code as the web app's Verify page): its
//! table recomputed from its per-task records, each record checked for
//! consistency, and, given the outputs and dataset, every task re-scored.
//! Each mismatch line names the cell, or the task (language, repo, needle).

use std::path::Path;

use repoqa::review::leaderboard::read_scores;
use repoqa::review::verify::{self, Report};
use repoqa::scoring::score::{Candidates, ScoreOptions};

use crate::error::{fs_read, CliError};
use crate::input::{load_dataset, read_outputs, InflateArgs};
use crate::intervals::CiArgs;
use crate::progress;
use crate::stdout::out;

/// How to re-score and what to print beside the findings.
pub struct VerifyOptions {
    pub ignore_comments: bool,
    pub skip_broken_lines: bool,
    pub allow_repeated_tasks: bool,
    /// `--ci`: each model's pass@1 with its intervals after the findings.
    pub ci: CiArgs,
    /// `--task`: a call-path file is known by its `task` field anyway;
    /// `call-path` refuses any other file.
    pub task: repoqa::api::TaskKind,
}

pub fn run(
    scores_path: &Path,
    outputs: Option<&Path>,
    dataset: Option<&Path>,
    o: VerifyOptions,
    inflate: &InflateArgs,
) -> Result<(), CliError> {
    let VerifyOptions { ignore_comments, skip_broken_lines, allow_repeated_tasks, ci, task } = o;
    let ci = ci.checked()?;
    // Plain or gzipped, as the leaderboard and the Verify page read it
    // (the published files are kept as `.json.gz`).
    let bytes = fs_read(scores_path, "scores file")?;
    // A call-path SCORES file (NOT UPSTREAM) says so in its `task`.
    if let Ok(text) = std::str::from_utf8(&bytes) {
        let json = serde_json::from_str::<serde_json::Value>(text).unwrap_or_default();
        let call_path = repoqa::api::callpath::CallPathScoresFile::is_one(&json);
        if call_path || task == repoqa::api::TaskKind::CallPath {
            return crate::call_path::verify(scores_path, text, outputs, dataset, inflate);
        }
    }
    let source = scores_path.display().to_string();
    let file = read_scores(&bytes, &source)?;
    let mut report = Report::of_file(&source, &file);
    if let (Some(outputs_path), Some(dataset_path)) = (outputs, dataset) {
        let outputs = read_outputs(outputs_path, skip_broken_lines, allow_repeated_tasks)?;
        let data = load_dataset(dataset_path, inflate)?;
        let options = ScoreOptions { ignore_comments, candidates: Candidates::Needles };
        verify::rescore(
            &mut report,
            &file,
            &outputs,
            &outputs_path.display().to_string(),
            &data,
            &dataset_path.display().to_string(),
            options,
            progress::rescoring,
        )?;
    }
    out!("{}", report.summary_text());
    if let Some(ci) = ci {
        for (model, scores) in &file.models {
            out!("\n{}", crate::intervals::render(model, scores, ci));
        }
    }
    if report.ok() {
        Ok(())
    } else {
        Err(CliError::Mismatches { file: source, count: report.mismatches() })
    }
}
