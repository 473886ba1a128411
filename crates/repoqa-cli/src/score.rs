//! `repoqa score`: score a model-outputs JSONL like `repoqa.compute_score`
//! and write the official `-SCORES.json`.

use std::path::PathBuf;

use repoqa::api::score::{with_run_notes, ScoreNotice, ScorePlan};
use repoqa::report::{self, ReplyNotes, ScoresFile, Unanswered};
use repoqa::scoring::score::ScoreOptions;

use crate::error::{fs_write, io, refuse_overwriting_inputs, At, CliError, FileOp};
use crate::input::{dataset_path_or_env, load_dataset, read_outputs, InflateArgs};
use crate::intervals::CiArgs;
use crate::phases::Phases;
use crate::progress;
use crate::stdout::outln;

pub struct ScoreArgs {
    pub outputs: PathBuf,
    pub dataset: Option<PathBuf>,
    pub options: ScoreOptions,
    pub model: Option<String>,
    pub out: Option<PathBuf>,
    pub overwrite: bool,
    pub train_size: Option<String>,
    pub eval_date: Option<String>,
    pub csv: Option<PathBuf>,
    pub skip_broken_lines: bool,
    pub allow_repeated_tasks: bool,
    /// `repoqa run`: the selected tasks left without an answer (already
    /// added to the outputs as empty replies when scored as failures).
    pub unanswered: Option<Unanswered>,
    /// `repoqa run`: replies cut at the token limit, thinking taken out
    /// (from the run log; NOT UPSTREAM fields of the SCORES file).
    pub replies: ReplyNotes,
    /// `--ci`: the pass@1 with its intervals after the table.
    pub ci: CiArgs,
    /// `--model-cutoff` (YYYY-MM-DD), recorded in the SCORES file.
    pub model_cutoff: Option<String>,
}

/// A `YYYY-MM-DD` flag value.
pub fn parse_day(text: &str) -> Result<String, String> {
    repoqa::input::freshness::Day::parse(text)
        .map(|d| d.to_string())
        .ok_or_else(|| format!("{text:?} is not a date YYYY-MM-DD"))
}

pub fn run(a: ScoreArgs, inflate: &InflateArgs) -> Result<(), CliError> {
    let dataset_path = dataset_path_or_env(a.dataset.clone())?;
    let mut phases = Phases::start();
    let outputs = read_outputs(&a.outputs, a.skip_broken_lines, a.allow_repeated_tasks)?;
    phases.mark("read-outputs");
    let dataset = load_dataset(&dataset_path, inflate)?;
    phases.mark("load-dataset");
    score_and_write(a, &dataset_path, &dataset, outputs)
}

/// Score `outputs` (read from `a.outputs`) against `dataset` (read from
/// `dataset_path`), print the table and write the SCORES file (and the
/// CSV): `repoqa score` after its inputs are read, and `repoqa run` after
/// its answers are in.
pub fn score_and_write(
    a: ScoreArgs,
    dataset_path: &std::path::Path,
    dataset: &repoqa::input::dataset::Dataset,
    outputs: Vec<report::ModelOutput>,
) -> Result<(), CliError> {
    let outputs_str = a.outputs.to_string_lossy().into_owned();
    let ci = a.ci.checked()?;
    let mut phases = Phases::start();
    let plan = ScorePlan {
        options: a.options,
        model: a.model.unwrap_or_else(|| repoqa::naming::model_name_from_path(&outputs_str)),
        eval_date: a.eval_date,
        train_size: a.train_size,
        model_cutoff: a.model_cutoff,
    };
    plan.check()?;
    let model = plan.model.clone();
    // An explicit --out names the file to write: an existing one there is
    // replaced (kept as a .bak, below). Only the default name asks for
    // --overwrite, so a rerun never silently moves an earlier result.
    let explicit_out = a.out.is_some();
    let protocol = report::outputs_protocol(&outputs).at(a.outputs.display())?;
    let out = a.out.unwrap_or_else(|| {
        // Never let a non-official file take the official name.
        PathBuf::from(repoqa::naming::scores_path_for(
            &outputs_str,
            protocol,
            plan.official_candidates(),
        ))
    });
    let inputs = [("--model-output-path", a.outputs.as_path()), ("--dataset-path", dataset_path)];
    refuse_overwriting_inputs("--out", &out, &inputs)?;
    if let Some(csv) = &a.csv {
        refuse_overwriting_inputs("--csv", csv, &inputs)?;
        refuse_overwriting_inputs("--csv", csv, &[("--out", &out)])?;
    }
    if out.exists() && !a.overwrite && !explicit_out {
        return Err(CliError::usage(format!(
            "{} already exists; pass --overwrite (it is then kept as a .bak) or --out",
            out.display()
        )));
    }

    let total = outputs.len();
    let scored = plan.score(dataset, &outputs, |done, total| {
        if done % 25 == 0 || done == total {
            progress::count(&format!("scoring {model}: {done}/{total}"), done == total);
        }
    })?;
    phases.mark("score");
    for notice in plan.notices(protocol, dataset) {
        let kind = if notice.is_warning() { "WARNING" } else { "NOTE" };
        let flag = match notice {
            ScoreNotice::TrainSizeLookup(_) => "; use --train-size to set it",
            ScoreNotice::ContextCandidates => " (--candidates context)",
            _ => "",
        };
        eprintln!("repoqa: {kind}: {notice}{flag}");
    }
    let run = scored.run.run;
    let scores = with_run_notes(scored.entry, a.unanswered, a.replies);
    let missing =
        scores.unanswered.as_ref().map(|u| format!("; {}", u.label())).unwrap_or_default();
    let file = ScoresFile::single(&model, scores);

    outln!(
        "{}",
        run.table.render_text(&format!(
            "Scores (%) of {model} at different thresholds ({total} tasks{missing})"
        ))
    );
    if let Some((ci, scores)) = ci.zip(file.models.get(&model)) {
        outln!("{}", crate::intervals::render(&model, scores, ci));
    }

    if out.exists() {
        let mut bak = PathBuf::from(format!("{}.bak", out.display()));
        while bak.exists() {
            bak = PathBuf::from(format!("{}.bak", bak.display()));
        }
        // A copy, not a move: until the new file is whole, the old stays.
        std::fs::copy(&out, &bak).map_err(|e| io(FileOp::BackUp, &out, e))?;
        eprintln!("repoqa: backed up {} to {}", out.display(), bak.display());
    }
    fs_write(&out, file.to_python_json())?;
    eprintln!("repoqa: wrote {}", out.display());
    if let Some(csv) = a.csv {
        fs_write(&csv, report::results_csv(&run.results))?;
        eprintln!("repoqa: wrote {}", csv.display());
    }
    Ok(())
}
