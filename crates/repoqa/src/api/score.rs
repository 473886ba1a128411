//! Scoring a model's answers into its SCORES file: `repoqa score` (and
//! `run` once its answers are in) maps its flags to a [`ScorePlan`], the
//! page's Results maps its fields (model, eval date, scoring options) to
//! the same plan; both [`ScorePlan::check`] it, make the model's entry with
//! [`ScorePlan::entry`] (the defaults, the dataset's date, the protocol
//! the tasks were built with) and say the same [`ScoreNotice`]s about it.
//! The CLI scores a whole outputs file at once ([`ScorePlan::score`]); the
//! page scores answers one at a time as they come and hands its table and
//! results to [`ScorePlan::entry`] — the file is the same either way.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::input::dataset::Dataset;
use crate::input::freshness::{freshness, Day};
use crate::report::{
    self, ModelOutput, ModelScores, Protocol, ReplyNotes, ReportError, TaskResult, Unanswered,
};
use crate::scoring::run::{score_outputs, ScoredRun};
use crate::scoring::score::{Candidates, ScoreError, ScoreOptions, ScoreTable};

/// A scoring of one model's answers: how replies are scored and what the
/// model's entry records beyond the scores.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScorePlan {
    pub options: ScoreOptions,
    /// The model's name (the CLI's default: the outputs file's stem).
    pub model: String,
    /// `eval_date`; `None` or blank: now, in UTC.
    pub eval_date: Option<String>,
    /// `train_size`; `None`: the official rule for the model's name.
    pub train_size: Option<String>,
    /// NOT UPSTREAM: the model's stated training cutoff, `YYYY-MM-DD`.
    pub model_cutoff: Option<String>,
}

/// Why a score plan cannot be scored.
#[derive(Debug, Error)]
pub enum ScorePlanError {
    #[error("the model cutoff {0:?} is not a date YYYY-MM-DD")]
    ModelCutoff(String),
    #[error("the model's name is empty")]
    NoModel,
    #[error(transparent)]
    Outputs(#[from] ReportError),
    #[error(transparent)]
    Score(#[from] ScoreError),
}

/// What a scoring says beside its numbers, in the same words on both
/// fronts (the CLI adds the flag that changes it, `--train-size`).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ScoreNotice {
    #[error("the \"context\" candidates are NOT the official scoring; these scores are not comparable with published ones")]
    ContextCandidates,
    #[error("the prompts were built with the {}", .0.label())]
    Protocol(Protocol),
    #[error("train_size of {0} needs a Hugging Face hub lookup (no network here): writing \"N/A\", as the official tool does when the lookup fails")]
    TrainSizeLookup(String),
    #[error("the dataset's sources were first released on {0} or later")]
    Freshness(String),
    #[error("{model}'s stated training cutoff ({cutoff}) is on or after the dataset's freshness ({freshness}): it may have been trained on some of these sources")]
    CutoffAfterFreshness { model: String, cutoff: String, freshness: String },
}

impl ScoreNotice {
    /// Something that may make the scores mean less than they seem (the
    /// rest are notes: how they differ from the official ones, facts).
    pub fn is_warning(&self) -> bool {
        matches!(self, ScoreNotice::CutoffAfterFreshness { .. })
    }

    /// The scores are NOT OFFICIAL (not comparable with published ones).
    pub fn not_official(&self) -> bool {
        matches!(self, ScoreNotice::ContextCandidates | ScoreNotice::Protocol(_))
    }
}

/// A whole outputs file scored: the run (each line's evaluation, the
/// table) and the model's entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored {
    pub run: ScoredRun,
    pub entry: ModelScores,
}

impl ScorePlan {
    /// The official scoring of `model`'s answers, recorded today.
    pub fn new(model: impl Into<String>, options: ScoreOptions) -> ScorePlan {
        ScorePlan { options, model: model.into(), ..ScorePlan::default() }
    }

    /// The plan's own fields are usable: a model named, a cutoff that is a
    /// date.
    pub fn check(&self) -> Result<(), ScorePlanError> {
        if self.model.trim().is_empty() {
            return Err(ScorePlanError::NoModel);
        }
        match &self.model_cutoff {
            Some(c) if Day::parse(c).is_none() => Err(ScorePlanError::ModelCutoff(c.clone())),
            _ => Ok(()),
        }
    }

    /// The scores are the official ones (`--candidates needles`).
    pub fn official_candidates(&self) -> bool {
        self.options.candidates == Candidates::Needles
    }

    /// The SCORES file's name as upstream names it, with the not-official
    /// parts marked (`naming::scores_file_name`).
    pub fn file_name(&self, protocol: Protocol) -> String {
        crate::naming::scores_file_name(&self.model, protocol, self.official_candidates())
    }

    /// Check the plan and the outputs (one protocol), then score every
    /// line against `dataset` as `compute_score` does and make the entry.
    pub fn score(
        &self,
        dataset: &Dataset,
        outputs: &[ModelOutput],
        progress: impl FnMut(usize, usize),
    ) -> Result<Scored, ScorePlanError> {
        self.check()?;
        let protocol = report::outputs_protocol(outputs)?;
        let run = score_outputs(dataset, self.options, outputs, progress)?;
        let entry = self.entry(dataset, protocol, &run.run.table, run.run.results.clone());
        Ok(Scored { run, entry })
    }

    /// The model's entry of the SCORES file for a scored `table` and its
    /// `results`, the tasks built under `protocol`: the eval date (now
    /// when none), the train size (the official rule when none), the
    /// dataset's freshness and the stated cutoff. Set `unanswered` and
    /// `replies` on it for a run that has them.
    pub fn entry(
        &self,
        dataset: &Dataset,
        protocol: Protocol,
        table: &ScoreTable,
        results: IndexMap<String, Vec<TaskResult>>,
    ) -> ModelScores {
        let eval_date = match self.eval_date.as_deref().map(str::trim) {
            Some(d) if !d.is_empty() => d.to_string(),
            _ => report::now_eval_date(),
        };
        let train_size =
            self.train_size.clone().unwrap_or_else(|| report::train_size(&self.model).value);
        ModelScores {
            eval_date,
            train_size,
            scores: table.to_value(),
            results,
            protocol,
            dataset_freshness: None,
            model_cutoff: None,
            unanswered: None,
            replies: ReplyNotes::default(),
        }
        .dated(dataset, self.model_cutoff.as_deref())
    }

    /// What to say about the scores of tasks built under `protocol` from
    /// `dataset`: how they differ from the official ones, the dataset's
    /// date, a stated cutoff on or after it, a train size the official code
    /// would look up.
    pub fn notices(&self, protocol: Protocol, dataset: &Dataset) -> Vec<ScoreNotice> {
        let mut out = Vec::new();
        if !self.official_candidates() {
            out.push(ScoreNotice::ContextCandidates);
        }
        if !protocol.is_official() {
            out.push(ScoreNotice::Protocol(protocol));
        }
        if self.train_size.is_none() && report::train_size(&self.model).needs_hub_lookup {
            out.push(ScoreNotice::TrainSizeLookup(self.model.clone()));
        }
        if let Some(f) = freshness(dataset) {
            out.push(ScoreNotice::Freshness(f.earliest.to_string()));
            let cutoff = self.model_cutoff.as_deref().and_then(Day::parse);
            if let Some(cutoff) = cutoff.filter(|c| *c >= f.earliest) {
                out.push(ScoreNotice::CutoffAfterFreshness {
                    model: self.model.clone(),
                    cutoff: cutoff.to_string(),
                    freshness: f.earliest.to_string(),
                });
            }
        }
        out
    }
}

/// An entry's unanswered tasks and reply notes, set on it: a run's.
pub fn with_run_notes(
    mut entry: ModelScores,
    unanswered: Option<Unanswered>,
    replies: ReplyNotes,
) -> ModelScores {
    entry.unanswered = unanswered;
    entry.replies = replies;
    entry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::dataset::Dataset;

    fn dated_dataset(first_release: &str) -> Dataset {
        let v = serde_json::json!({"python": [{"repo": "p", "content": {"m.py": "def f():\n    return 1\n"},
            "dependency": {"m.py": []}, "functions": {},
            "needles": [{"name": "f", "start_line": 0, "end_line": 2, "start_byte": 0,
                "end_byte": 22, "path": "m.py", "description": "returns one"}],
            "first_release": first_release}]});
        Dataset::from_value(v, "test").expect("a dataset")
    }

    fn output(reply: &str) -> ModelOutput {
        let line = serde_json::json!({"repo": "p", "name": "f", "language": "python",
            "position_ratio": 0.5, "needle_token_start": 0, "needle_token_end": 1,
            "output": [reply]});
        let file = report::read_model_outputs(&line.to_string());
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        file.outputs.into_iter().next().expect("one line")
    }

    #[test]
    fn a_plan_is_checked_before_anything_is_scored() {
        let d = dated_dataset("2026-03-01");
        let bad = ScorePlan {
            model_cutoff: Some("March".into()),
            ..ScorePlan::new("m", Default::default())
        };
        let e = bad.score(&d, &[output("x")], |_, _| {}).expect_err("refused");
        assert_eq!(e.to_string(), "the model cutoff \"March\" is not a date YYYY-MM-DD");
        let e = ScorePlan::default().check().expect_err("refused");
        assert_eq!(e.to_string(), "the model's name is empty");
    }

    /// The entry records the dataset's date and the cutoff, and the plan
    /// warns when the cutoff is on or after the date.
    #[test]
    fn the_entry_is_dated_and_a_late_cutoff_is_a_warning() {
        let d = dated_dataset("2026-03-01");
        let plan = ScorePlan {
            eval_date: Some("2026-12-07 10:00".into()),
            model_cutoff: Some("2026-06-30".into()),
            ..ScorePlan::new("org/m", Default::default())
        };
        let scored =
            plan.score(&d, &[output("def f():\n    return 1\n")], |_, _| {}).expect("scored");
        let e = &scored.entry;
        assert_eq!(e.eval_date, "2026-12-07 10:00");
        assert_eq!(e.train_size, "N/A");
        assert_eq!(e.dataset_freshness.as_deref(), Some("2026-03-01"));
        assert_eq!(e.model_cutoff.as_deref(), Some("2026-06-30"));
        let notices = plan.notices(e.protocol, &d);
        let last = notices.last().expect("notices");
        assert!(last.is_warning(), "{notices:?}");
        assert_eq!(last.to_string(), "org/m's stated training cutoff (2026-06-30) is on or after the dataset's freshness (2026-03-01): it may have been trained on some of these sources");
        assert!(notices.contains(&ScoreNotice::TrainSizeLookup("org/m".into())));
        let early = ScorePlan { model_cutoff: Some("2025-12-31".into()), ..plan.clone() };
        let e = early.score(&d, &[output("x")], |_, _| {}).expect("scored").entry;
        assert!(!early.notices(e.protocol, &d).iter().any(ScoreNotice::is_warning));
        assert_eq!(plan.file_name(Protocol::NoContext), "org_slash_m-NO-CONTEXT-SCORES.json");
    }
}
