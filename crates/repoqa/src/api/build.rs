//! Building task prompts: the use case every front starts with. `repoqa
//! prompts` (and `run`, `bundle`, `audit`) maps its flags to a
//! [`BuildPlan`], the page maps its settings to the same plan; both
//! [`BuildPlan::check`] it against the dataset (one typed error, one
//! message) and build it — natively on threads ([`BuildPlan::build`]), or in
//! the page's Web Workers a repo at a time ([`BuildPlan::shares`], each
//! share built by the engine's `Request::Build` through [`build_share`]).
//!
//! A task reads only its own repo, so the shares' tasks are the whole
//! build's, in spec order (a unit test holds them equal; the browser tests
//! compare the page's tasks with the CLI's). A share is plain serde data —
//! the plan, the repo's needles and a dataset of that one repo — so it
//! crosses to a worker as JSON and is read back typed, with no mirror of
//! the settings in strings.

use std::ops::Range;

use serde::{Deserialize, Deserializer, Serialize};
use thiserror::Error;

use crate::code::lang::Language;
use crate::code::tokenize::Tokenizer;
use crate::input::dataset::Dataset;
use crate::prompt::context::{repo_runs, ContextBuilder, ContextError, TaskSpec};
use crate::prompt::settings::{BuildSettings, SettingsError};
use crate::report::Task;

/// A build of task prompts: the settings that change the prompts, and the
/// depth every needle is put at (NOT UPSTREAM; `None`: the official
/// `(i + 0.5) / n`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildPlan {
    pub settings: BuildSettings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
}

/// Why a build plan cannot be built.
#[derive(Debug, Error)]
pub enum BuildPlanError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("no tasks: the selected languages and repos have no needles")]
    NoTasks,
    #[error("the depth (position ratio) {0} is not a number from 0 to 1")]
    Depth(f64),
}

impl BuildPlan {
    /// The plan of `settings` at the official depths.
    pub fn new(settings: BuildSettings) -> BuildPlan {
        BuildPlan { settings, depth: None }
    }

    /// The tasks the plan builds from `dataset`, in the official order, or
    /// why there are none to build.
    pub fn check(&self, dataset: &Dataset) -> Result<Vec<TaskSpec>, BuildPlanError> {
        if let Some(d) = self.depth.filter(|d| !(0.0..=1.0).contains(d)) {
            return Err(BuildPlanError::Depth(d));
        }
        // As a user's typed size is checked (in u64: on wasm32 the largest
        // size is usize's own largest).
        let (n, max) = (
            self.settings.code_context_size as u64,
            crate::prompt::context::MAX_CODE_CONTEXT_SIZE as u64,
        );
        if n == 0 || n > max {
            return Err(SettingsError::ContextSize.into());
        }
        let specs = self.settings.task_specs(dataset)?;
        if specs.is_empty() {
            return Err(BuildPlanError::NoTasks);
        }
        Ok(specs)
    }

    /// Build the tasks of `specs` (from [`BuildPlan::check`]) on up to
    /// `threads` threads (one on wasm32), in spec order;
    /// `progress(done, total)` on the calling thread.
    pub fn build(
        &self,
        dataset: &Dataset,
        specs: &[TaskSpec],
        tokenizer: &Tokenizer,
        threads: usize,
        progress: impl FnMut(usize, usize),
    ) -> Result<Vec<Task>, ContextError> {
        self.settings.build_tasks_at(dataset, specs, tokenizer, threads, self.depth, progress)
    }

    /// The build of `specs` as one share per run of specs of one repo, in
    /// spec order, for builders that share no memory with the caller.
    pub fn shares(&self, dataset: &Dataset, specs: &[TaskSpec]) -> Vec<RepoShare> {
        repo_runs(specs)
            .into_iter()
            .map(|run| {
                let first = specs[run.start];
                let name = first.language.name();
                let repo = dataset.repos(name).and_then(|r| r.get(first.repo_index)).cloned();
                let mut one = Dataset::default();
                one.languages.insert(name.to_string(), repo.into_iter().collect());
                let share = BuildShare {
                    plan: self.clone(),
                    language: first.language,
                    needles: specs[run.clone()].iter().map(|s| s.needle_index).collect(),
                    dataset: one,
                };
                RepoShare { specs: run, share }
            })
            .collect()
    }
}

/// One repo's part of a build: the plan, the repo's needles (indexes, in
/// the build's order) and a dataset holding that repo alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildShare {
    pub plan: BuildPlan,
    pub language: Language,
    pub needles: Vec<usize>,
    #[serde(deserialize_with = "checked_dataset")]
    pub dataset: Dataset,
}

/// A share's dataset read with the dataset file's own checks.
fn checked_dataset<'de, D: Deserializer<'de>>(d: D) -> Result<Dataset, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Dataset::from_value(value, "a build share").map_err(serde::de::Error::custom)
}

/// A share and the specs of the build it covers (indexes into the build's
/// spec list).
#[derive(Clone, Debug, PartialEq)]
pub struct RepoShare {
    pub specs: Range<usize>,
    pub share: BuildShare,
}

/// A share that failed: how many of its tasks were built before the error.
#[derive(Debug)]
pub struct ShareError {
    pub built: usize,
    pub error: ContextError,
}

/// Build the tasks of `share`, calling `task` with each one's JSON line
/// (compact, no raw newline) in order.
pub fn build_share(
    share: &BuildShare,
    tokenizer: &Tokenizer,
    mut task: impl FnMut(String),
) -> Result<(), ShareError> {
    let options = share.plan.settings.context_options();
    let mut builder =
        ContextBuilder::new(&share.dataset, options, tokenizer).at_position_ratio(share.plan.depth);
    for (built, &needle_index) in share.needles.iter().enumerate() {
        let spec = TaskSpec { language: share.language, repo_index: 0, needle_index };
        let t: Task = builder.build(&spec).map_err(|error| ShareError { built, error })?;
        // Serializing a task (strings and numbers) cannot fail.
        task(serde_json::to_string(&t).unwrap_or_default());
    }
    Ok(())
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::code::tokenize::test_tokenizer;
    use crate::prompt::context::tests::{dataset, python_repos};
    use crate::prompt::context::CommentMode;
    use crate::report::Protocol;

    #[test]
    fn shares_build_the_tasks_of_one_builder() {
        let tok = test_tokenizer();
        let d = python_repos(3, &[2, 4]);
        for mode in CommentMode::ALL.iter().copied() {
            for protocol in Protocol::ALL.iter().copied() {
                for depth in [None, Some(0.25)] {
                    let settings = BuildSettings {
                        code_context_size: 64,
                        comment_mode: mode,
                        protocol,
                        ..BuildSettings::default()
                    };
                    let plan = BuildPlan { settings, depth };
                    let specs = plan.check(&d).expect("specs");
                    let want = plan.build(&d, &specs, tok, 1, |_, _| {}).expect("builds");
                    let shares = plan.shares(&d, &specs);
                    assert_eq!(shares.len(), 3);
                    let mut got = Vec::new();
                    for s in &shares {
                        // Through JSON, as a worker gets it.
                        let json = serde_json::to_string(&s.share).expect("json");
                        let back: BuildShare = serde_json::from_str(&json).expect("reads");
                        assert_eq!(back, s.share);
                        build_share(&back, tok, |json| got.push(json)).expect("share");
                    }
                    let want: Vec<String> =
                        want.iter().map(|t| serde_json::to_string(t).expect("json")).collect();
                    assert_eq!(got, want, "{mode} {protocol} {depth:?}");
                }
            }
        }
    }

    #[test]
    fn a_failing_share_says_how_far_it_got_and_a_bad_one_is_refused() {
        let tok = test_tokenizer();
        let mut d = dataset(
            "python",
            &[("a.py", "def f():\n    pass\n")],
            &[("a.py", "f", 0, 17), ("a.py", "f", 0, 17)],
        );
        let repos = d.languages.get_mut("python").expect("python");
        repos[0].needles[1].path = "missing.py".to_string();
        let plan = BuildPlan::default();
        let specs = plan.check(&d).expect("specs");
        let shares = plan.shares(&d, &specs);
        let mut got = 0;
        let e = build_share(&shares[0].share, tok, |_| got += 1).expect_err("fails");
        assert_eq!((e.built, got), (1, 1));
        assert!(e.error.to_string().contains("missing.py"), "{}", e.error);
        // A share whose dataset fails the dataset file's checks is refused.
        let mut json = serde_json::to_value(&shares[0].share).expect("json");
        json["dataset"] = serde_json::json!({"klingon": []});
        let e = serde_json::from_value::<BuildShare>(json).expect_err("refused").to_string();
        assert!(e.contains("a build share"), "{e}");
    }

    #[test]
    fn a_plan_is_checked_alike_for_both_fronts() {
        let d = python_repos(2, &[2]);
        let plan = |f: &dyn Fn(&mut BuildPlan)| {
            let mut p = BuildPlan::default();
            f(&mut p);
            p.check(&d).map(|s| s.len()).map_err(|e| e.to_string())
        };
        assert_eq!(plan(&|_| {}), Ok(2));
        assert_eq!(
            plan(&|p| p.settings.filter.languages = vec!["go".into()]),
            Err("no tasks: the selected languages and repos have no needles".into())
        );
        assert_eq!(
            plan(&|p| p.depth = Some(1.5)),
            Err("the depth (position ratio) 1.5 is not a number from 0 to 1".into())
        );
        assert!(plan(&|p| p.settings.code_context_size = 0).is_err());
        assert!(plan(&|p| p.settings.filter.languages = vec!["klingon".into()]).is_err());
    }
}
