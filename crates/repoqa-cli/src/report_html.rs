//! `repoqa report`: one self-contained HTML file from SCORES files
//! (`repoqa::review::html_report`): each run's official table, its pass@1 with
//! Wilson and bootstrap intervals, inline SVG charts, the inputs' SHA-256
//! and the tool's version; with `--compare`, the first two runs task by
//! task; a model given at several lengths (SCORES files in upstream's
//! `ntoken_<N>/` folders, as `repoqa run --code-context-size 4096,8192`
//! writes them) also gets pass@1 by length and the needle depth × length
//! heatmap. It opens in any browser with JavaScript off and no network.

use std::path::PathBuf;

use repoqa::input::identity::{content_id, sha256_hex};
use repoqa::review::compare::compare;
use repoqa::review::html_report::{default_title, input_label, render, ReportInput, ReportRun};
use repoqa::review::ladder::{ladders, Ladder, DEFAULT_FRACTION};
use repoqa::review::leaderboard::{check_threshold, read_scores};

use crate::error::{fs_read, fs_write, refuse_overwriting_inputs, At, CliError};
use crate::intervals::ResampleArgs;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// SCORES files (plain or gzipped); each model gets a section, in order.
    #[arg(long, num_args = 1.., required = true)]
    scores: Vec<PathBuf>,
    /// The pass threshold of the intervals and charts (the paper's table
    /// uses 0.8; the official table shows every threshold).
    #[arg(long, default_value_t = 0.8)]
    threshold: f64,
    /// The confidence level of the intervals.
    #[arg(long, value_name = "LEVEL", default_value_t = 0.95)]
    ci: f64,
    #[command(flatten)]
    resample: ResampleArgs,
    /// Also compare the first two models task by task (the 2×2 table,
    /// McNemar's test, the difference's intervals, the flipped tasks).
    #[arg(long)]
    compare: bool,
    /// Record the identity of the dataset the runs were scored on.
    #[arg(long)]
    dataset_path: Option<PathBuf>,
    /// Record the SHA-256 of the tokenizer the prompts were built with.
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// The report's title (default: the models' names).
    #[arg(long)]
    title: Option<String>,
    /// The HTML file to write.
    #[arg(long)]
    out: PathBuf,
    /// Which task's SCORES files: `call-path` (NOT UPSTREAM) writes the
    /// call-path report (a call-path SCORES file is known by its `task`
    /// field anyway).
    #[arg(long, value_enum, default_value = "snf")]
    task: repoqa::api::TaskKind,
}

pub fn run(a: ReportArgs) -> Result<(), CliError> {
    if a.task == repoqa::api::TaskKind::CallPath || first_is_call_path(&a.scores) {
        return call_path_report(a);
    }
    let threshold = check_threshold(a.threshold).at("--threshold")?;
    let resampling = a.resample.at(a.ci)?;
    let (read, mut hashes) = read_scores_files(&a)?;
    let mut files = Vec::new();
    for (name, bytes) in read {
        files.push((
            name.clone(),
            repoqa::review::ladder::ntoken_of_path(&name),
            read_scores(&bytes, &name)?,
        ));
    }
    // A model given at two lengths or more, or at two depths of a grid,
    // gets its ladder.
    let at_lengths: Vec<_> =
        files.iter().filter_map(|(name, n, f)| Some(((*n)?, name.as_str(), f))).collect();
    let ladders: Vec<Ladder> = ladders(&at_lengths, None, threshold, DEFAULT_FRACTION, resampling)
        .map_err(CliError::usage)?
        .into_iter()
        .filter(Ladder::is_shown)
        .collect();
    let files: Vec<_> = files.into_iter().map(|(_, _, f)| f).collect();
    if let Some(d) = &a.dataset_path {
        hashes.push(dataset_identity(d)?);
    }
    if let Some(t) = &a.tokenizer {
        hashes.push((
            input_label("tokenizer", &t.display().to_string()),
            sha256_hex(&fs_read(t, "tokenizer")?),
        ));
    }
    let runs: Vec<ReportRun> = files
        .iter()
        .flat_map(|f| f.models.iter().map(|(m, s)| ReportRun { model: m.clone(), scores: s }))
        .collect();
    if runs.is_empty() {
        return Err(CliError::usage("the SCORES files hold no model".to_string()));
    }
    let (mut paired, mut paired_error) = (None, None);
    if a.compare {
        match runs.as_slice() {
            [x, y, ..] => match compare(x.scores, y.scores, threshold) {
                Ok(p) => paired = Some(p),
                Err(e) => paired_error = Some(e.to_string()),
            },
            _ => {
                return Err(CliError::usage(
                    "--compare needs two models (two SCORES files, or one file of two)".to_string(),
                ))
            }
        }
    }
    let title = a.title.unwrap_or_else(|| {
        default_title(&runs.iter().map(|r| r.model.as_str()).collect::<Vec<_>>())
    });
    let html = render(&ReportInput {
        title,
        threshold,
        resampling,
        runs,
        inputs: hashes,
        paired,
        paired_error: paired_error.clone(),
        ladders,
    });
    fs_write(&a.out, html)?;
    eprintln!("repoqa: wrote {}", a.out.display());
    if let Some(e) = paired_error {
        eprintln!("repoqa: NOTE: the runs were not compared: {e}");
    }
    Ok(())
}

/// Whether the first SCORES file is a call-path one (its `task` field).
fn first_is_call_path(scores: &[PathBuf]) -> bool {
    let Some(first) = scores.first() else { return false };
    let Ok(text) = std::fs::read_to_string(first) else { return false };
    serde_json::from_str::<serde_json::Value>(&text)
        .is_ok_and(|json| repoqa::api::callpath::CallPathScoresFile::is_one(&json))
}

/// `repoqa report --task call-path`: the call-path report
/// (`api::callpath_report`) of call-path SCORES files.
fn call_path_report(a: ReportArgs) -> Result<(), CliError> {
    use repoqa::api::callpath::CallPathScoresFile;
    use repoqa::api::callpath_report::{default_title, render, CallPathReport};
    if a.compare {
        return Err(CliError::usage(
            "--compare compares SNF runs task by task; a call-path report has no comparison yet"
                .to_string(),
        ));
    }
    let level = a.resample.at(a.ci)?.level;
    let (read, mut hashes) = read_scores_files(&a)?;
    let mut files = Vec::new();
    for (name, bytes) in read {
        let text = String::from_utf8(bytes).map_err(|e| {
            CliError::usage(format!(
                "{name}: not UTF-8 text (at byte {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        files.push(CallPathScoresFile::read(&text, &name)?);
    }
    if let Some(d) = &a.dataset_path {
        hashes.push(dataset_identity(d)?);
    }
    let title = a.title.unwrap_or_else(|| default_title(&files));
    let html = render(&CallPathReport { title, level, files: &files, inputs: hashes });
    fs_write(&a.out, html)?;
    eprintln!("repoqa: wrote {}", a.out.display());
    Ok(())
}

/// The dataset's line of a report's inputs: its name and the SHA-256 of
/// its JSON content.
fn dataset_identity(d: &std::path::Path) -> Result<(String, String), CliError> {
    let bytes = fs_read(d, "dataset")?;
    let id = content_id(&bytes)
        .map_err(|e| CliError::usage(format!("{}: not a readable dataset: {e}", d.display())))?;
    Ok((input_label("dataset (its JSON content)", &d.display().to_string()), id))
}

/// Each `--scores` file's name and bytes, and the report's input line of
/// each (its SHA-256), once `--out` is known not to be one of the inputs.
#[allow(clippy::type_complexity)]
fn read_scores_files(
    a: &ReportArgs,
) -> Result<(Vec<(String, Vec<u8>)>, Vec<(String, String)>), CliError> {
    let mut inputs: Vec<(&str, &std::path::Path)> =
        a.scores.iter().map(|p| ("--scores", p.as_path())).collect();
    inputs.extend(a.dataset_path.iter().map(|p| ("--dataset-path", p.as_path())));
    inputs.extend(a.tokenizer.iter().map(|p| ("--tokenizer", p.as_path())));
    refuse_overwriting_inputs("--out", &a.out, &inputs)?;
    let mut read = Vec::new();
    let mut hashes = Vec::new();
    for path in &a.scores {
        let name = path.display().to_string();
        let bytes = fs_read(path, "scores file")?;
        hashes.push((input_label("SCORES", &name), sha256_hex(&bytes)));
        read.push((name, bytes));
    }
    Ok((read, hashes))
}
