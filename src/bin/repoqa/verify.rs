//! `repoqa verify`: recompute a SCORES file's table (and, given the
//! outputs and dataset, every task) and list each mismatch.

use std::io::Write;
use std::path::Path;

use repoqa::report::ScoresFile;
use repoqa::score::{self, Candidates, ScoreOptions, Scorer};

use crate::input::{load_dataset, read_outputs, read_text};
use crate::{bad, Failure};

pub fn run(
    scores_path: &Path,
    outputs: Option<&Path>,
    dataset: Option<&Path>,
    ignore_comments: bool,
    skip_broken_lines: bool,
) -> Result<(), Failure> {
    let text = read_text(scores_path, "scores file")?;
    let file = ScoresFile::parse(&text, &scores_path.display().to_string())
        .map_err(|e| bad(e.to_string()))?;
    let mut mismatches = Vec::new();
    for (model, ms) in &file.models {
        let found = score::verify_table(ms);
        println!(
            "{}: {model}: table of {} rows recomputed from {} tasks: {}",
            scores_path.display(),
            ms.scores.as_object().map_or(0, |o| o.len()),
            ms.task_count(),
            if found.is_empty() {
                "OK".to_string()
            } else {
                format!("{} mismatch(es)", found.len())
            }
        );
        mismatches.extend(found.into_iter().map(|m| (model.clone(), m)));
    }
    if let (Some(outputs_path), Some(dataset_path)) = (outputs, dataset) {
        if file.models.len() != 1 {
            return Err(bad(format!(
                "{}: holds {} models; re-scoring needs a single-model file",
                scores_path.display(),
                file.models.len()
            )));
        }
        let outputs = read_outputs(outputs_path, skip_broken_lines)?;
        let dataset = load_dataset(dataset_path)?;
        let options = ScoreOptions { ignore_comments, candidates: Candidates::Needles };
        let run = Scorer::new(&dataset, options)
            .score_all(&outputs, |done, total| {
                if done % 25 == 0 || done == total {
                    eprint!("\rre-scoring: {done}/{total}");
                }
            })
            .map_err(|e| bad(e.to_string()))?;
        eprintln!();
        let (model, ms) = file.models.iter().next().expect("one model");
        let found = score::verify_results(&ms.results, &run.results);
        println!(
            "{}: {model}: {} tasks re-scored from {}: {}",
            scores_path.display(),
            run.evaluations.len(),
            outputs_path.display(),
            if found.is_empty() {
                "OK".to_string()
            } else {
                format!("{} mismatch(es)", found.len())
            }
        );
        mismatches.extend(found.into_iter().map(|m| (model.clone(), m)));
        let ours = run.table.to_value();
        if repoqa::pyjson::dumps(&ours) != repoqa::pyjson::dumps(&ms.scores) {
            mismatches.push((
                model.clone(),
                score::Mismatch {
                    at: "scores (from re-scored tasks)".into(),
                    expected: "the file's table".into(),
                    actual: "a different table".into(),
                },
            ));
        }
    }
    let mut stdout = std::io::stdout().lock();
    for (model, m) in &mismatches {
        let _ = writeln!(stdout, "MISMATCH {model}: {m}");
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(Failure(format!("{}: {} mismatch(es)", scores_path.display(), mismatches.len()), 1))
    }
}
