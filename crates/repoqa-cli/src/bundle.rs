//! `repoqa bundle` writes a self-verifying result bundle of a run
//! (`repoqa::review::bundle`); `repoqa verify --bundle` rebuilds its prompts from the
//! dataset and tokenizer, checks every hash, re-scores every answer and
//! reports, task by task, where the claimed score disagrees.

use std::path::{Path, PathBuf};

use repoqa::input::identity::{content_id, sha256_hex};
use repoqa::prompt::settings::BuildSettings;
use repoqa::report::{read_model_outputs, ScoresFile};
use repoqa::review::bundle::Bundle;
use repoqa::review::verify::{self, Report};
use repoqa::scoring::score::{Candidates, ScoreOptions};

use crate::build_args::{build_tasks, select_tasks, BuildArgs};
use crate::error::{fs_read, fs_read_text, fs_write, refuse_overwriting_inputs, CliError};
use crate::input::{load_dataset, InflateArgs};
use crate::progress;
use crate::stdout::out;

#[derive(clap::Args)]
pub struct BundleArgs {
    /// The run's outputs JSONL.
    #[arg(long)]
    model_output_path: PathBuf,
    /// The run's SCORES file (of one model).
    #[arg(long)]
    scores: PathBuf,
    /// The dataset the prompts were built from.
    #[arg(long)]
    dataset_path: PathBuf,
    /// How the prompts were built (and the tokenizer).
    #[command(flatten)]
    build: BuildArgs,
    /// The scores were made with --ignore-comments.
    #[arg(long)]
    ignore_comments: bool,
    /// The bundle file to write (JSON).
    #[arg(long)]
    out: PathBuf,
}

/// The dataset's identity and the tokenizer's SHA-256, from their files.
fn input_hashes(dataset: &Path, tokenizer: &Path) -> Result<(String, String), CliError> {
    let id = content_id(&fs_read(dataset, "dataset")?).map_err(|e| {
        CliError::usage(format!("{}: not a readable dataset: {e}", dataset.display()))
    })?;
    Ok((id, sha256_hex(&fs_read(tokenizer, "tokenizer")?)))
}

/// Build the tasks of `settings` from the dataset with the tokenizer file.
fn tasks_of(
    settings: &BuildSettings,
    dataset_path: &Path,
    tokenizer: &Path,
    inflate: &InflateArgs,
) -> Result<(repoqa::input::dataset::Dataset, Vec<repoqa::report::Task>), CliError> {
    let dataset = load_dataset(dataset_path, inflate)?;
    let tok = repoqa::code::tokenize::Tokenizer::from_file(tokenizer)?;
    let specs = select_tasks(settings, &dataset, dataset_path)?;
    let tasks = build_tasks(
        settings,
        &dataset,
        &specs,
        &tok,
        repoqa::prompt::context::default_threads(),
        "rebuilding prompts:",
    )?;
    Ok((dataset, tasks))
}

pub fn write(a: BundleArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    refuse_overwriting_inputs(
        "--out",
        &a.out,
        &[
            ("--model-output-path", &a.model_output_path),
            ("--scores", &a.scores),
            ("--dataset-path", &a.dataset_path),
        ],
    )?;
    let outputs = fs_read_text(&a.model_output_path, "outputs file")?;
    let scores = fs_read_text(&a.scores, "scores file")?;
    let file = ScoresFile::parse(&scores, &a.scores.display().to_string())?;
    let [(model, _)] = file.models.iter().collect::<Vec<_>>()[..] else {
        return Err(CliError::usage(format!(
            "{}: holds {} models; a bundle is of one run",
            a.scores.display(),
            file.models.len()
        )));
    };
    let settings = a.build.settings()?;
    let tokenizer = a.build.tokenizer_path();
    let (dataset_id, tokenizer_id) = input_hashes(&a.dataset_path, &tokenizer)?;
    let (_, tasks) = tasks_of(&settings, &a.dataset_path, &tokenizer, inflate)?;
    let bundle = Bundle::new(
        model,
        settings,
        a.ignore_comments,
        dataset_id,
        tokenizer_id,
        &tasks,
        outputs,
        scores,
    );
    let answered = read_model_outputs(&bundle.outputs).outputs.len();
    if bundle.prompts.len() < answered {
        eprintln!(
            "repoqa: NOTE: {} of {answered} answered tasks are not built by these settings; the bundle will not verify (were the prompts built with other flags?)",
            answered - bundle.prompts.len()
        );
    }
    fs_write(&a.out, bundle.to_json())?;
    eprintln!(
        "repoqa: wrote {} ({} prompts hashed); check it with repoqa verify --bundle {} --dataset-path …",
        a.out.display(),
        bundle.prompts.len(),
        a.out.display()
    );
    Ok(())
}

/// `repoqa verify --bundle`.
pub fn verify_bundle(
    path: &Path,
    dataset_path: &Path,
    tokenizer: Option<PathBuf>,
    inflate: &InflateArgs,
) -> Result<(), CliError> {
    let origin = path.display().to_string();
    let bundle = Bundle::parse(&fs_read_text(path, "bundle")?, &origin)?;
    let file = bundle.scores_file(&origin)?;
    let outputs = bundle.outputs_file();
    let tokenizer = tokenizer.unwrap_or_else(crate::tokenizer_path::default_tokenizer_path);
    let (dataset_id, tokenizer_id) = input_hashes(dataset_path, &tokenizer)?;
    let settings = BuildSettings {
        tokenizer_source: tokenizer.display().to_string(),
        ..bundle.settings.clone()
    };
    let (dataset, tasks) = tasks_of(&settings, dataset_path, &tokenizer, inflate)?;
    let findings = bundle.check_inputs(&dataset_id, &tokenizer_id, &tasks);

    let mut report = Report::of_file(&origin, &file);
    for e in &outputs.errors {
        report
            .findings
            .push(verify::Finding::OutputsLine { line: e.line, message: e.message.clone() });
    }
    let options =
        ScoreOptions { ignore_comments: bundle.ignore_comments, candidates: Candidates::Needles };
    verify::rescore(
        &mut report,
        &file,
        &outputs.outputs,
        &format!("{origin} (outputs)"),
        &dataset,
        &dataset_path.display().to_string(),
        options,
        progress::rescoring,
    )?;
    out!(
        "{origin}: {} by {}; {} prompts rebuilt from the dataset and tokenizer\n",
        bundle.model,
        bundle.tool,
        bundle.prompts.len()
    );
    for f in &findings {
        out!("{f}\n");
    }
    out!("{}", report.summary_text());
    let count = findings.len() + report.mismatches();
    if count == 0 {
        Ok(())
    } else {
        Err(CliError::Mismatches { file: origin, count })
    }
}
