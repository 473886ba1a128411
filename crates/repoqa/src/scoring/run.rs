//! A run: scored tasks grouped as `compute_score` groups them, and the
//! SCORES file made from them. The CLI scores a whole outputs file at once
//! ([`score_outputs`]); the app scores answers one at a time as they are
//! typed or imported. Both group the per-task records here, so the file one
//! writes is the file the other would. (This module uses `score`, never the
//! other way round.)

use indexmap::IndexMap;

use std::collections::HashSet;

use crate::input::dataset::Dataset;
use crate::report::{self, ModelOutput, ModelScores, ReportError, ScoresFile, TaskResult};
use crate::report::{Protocol, Task};
use crate::scoring::answers::model_output;
use crate::scoring::score::{
    pass_table, task_result, Evaluation, ScoreError, ScoreOptions, ScoreTable, Scorer,
};

/// `results` of a SCORES file: language → per-task records, languages in
/// order of first appearance, records in the order given (as
/// `compute_score` walks the outputs file).
pub fn group_results<'a>(
    scored: impl IntoIterator<Item = (&'a ModelOutput, &'a Evaluation)>,
) -> IndexMap<String, Vec<TaskResult>> {
    let mut results: IndexMap<String, Vec<TaskResult>> = IndexMap::new();
    for (o, e) in scored {
        results.entry(o.language.clone()).or_default().push(task_result(o, e));
    }
    results
}

/// Scored tasks with their pass@1 table.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub results: IndexMap<String, Vec<TaskResult>>,
    pub table: ScoreTable,
}

impl Run {
    /// Group `scored` and compute the table; an error when there is
    /// nothing to score (`ScoreError::NoTasks`).
    pub fn new<'a>(
        scored: impl IntoIterator<Item = (&'a ModelOutput, &'a Evaluation)>,
    ) -> Result<Run, ScoreError> {
        let results = group_results(scored);
        let table = pass_table(&results)?;
        Ok(Run { results, table })
    }

    /// The model's entry of the SCORES file. `train_size`: None = the
    /// official rule for the model's name (`report::train_size`). Its
    /// `protocol` is the official one: change it for tasks built otherwise.
    pub fn model_scores(
        &self,
        model: &str,
        eval_date: &str,
        train_size: Option<&str>,
    ) -> ModelScores {
        ModelScores {
            eval_date: eval_date.to_string(),
            train_size: train_size
                .map(str::to_string)
                .unwrap_or_else(|| report::train_size(model).value),
            scores: self.table.to_value(),
            results: self.results.clone(),
            // Set it for tasks built otherwise (NOT OFFICIAL).
            protocol: Protocol::Official,
            // Set them with `ModelScores::dated`.
            dataset_freshness: None,
            model_cutoff: None,
            // Set it for a run that left tasks without an answer.
            unanswered: None,
            replies: Default::default(),
        }
    }

    /// The SCORES file of one model (write it with `to_python_json`).
    pub fn scores_file(
        &self,
        model: &str,
        eval_date: &str,
        train_size: Option<&str>,
    ) -> ScoresFile {
        ScoresFile::single(model, self.model_scores(model, eval_date, train_size))
    }
}

/// A whole outputs file scored: the run, and each line's evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredRun {
    pub run: Run,
    /// One per output, in file order.
    pub evaluations: Vec<Evaluation>,
}

/// Score every output of a file in order against `dataset`, as
/// `compute_score` does; `progress(done, total)` after each.
pub fn score_outputs(
    dataset: &Dataset,
    options: ScoreOptions,
    outputs: &[ModelOutput],
    mut progress: impl FnMut(usize, usize),
) -> Result<ScoredRun, ScoreError> {
    let mut scorer = Scorer::new(dataset, options);
    let mut evaluations = Vec::with_capacity(outputs.len());
    for (i, o) in outputs.iter().enumerate() {
        evaluations.push(scorer.evaluate(o)?);
        progress(i + 1, outputs.len());
    }
    let run = Run::new(outputs.iter().zip(&evaluations))?;
    Ok(ScoredRun { run, evaluations })
}

/// The tasks of `selected` that no line of `outputs` answers, in order.
pub fn without_answer<'t>(
    selected: impl IntoIterator<Item = &'t Task>,
    outputs: &[ModelOutput],
) -> Vec<&'t Task> {
    let answered: HashSet<String> = outputs.iter().map(ModelOutput::task_id).collect();
    selected.into_iter().filter(|t| !answered.contains(&t.task_id())).collect()
}

/// Each task as a model that said nothing answers it: the official line
/// with `"output": [""]`, numbered from `first_line`. The official scorer
/// finds no function and no similarity in it, so it fails at every
/// threshold (`report::UnansweredScoring::Failures`).
pub fn no_answer_outputs(
    tasks: &[&Task],
    first_line: usize,
) -> Result<Vec<ModelOutput>, ReportError> {
    tasks
        .iter()
        .enumerate()
        .map(|(k, t)| model_output(t, "", first_line + k).map_err(ReportError::Message))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_scored_is_an_error() {
        assert!(matches!(Run::new(std::iter::empty()), Err(ScoreError::NoTasks)));
    }
}
