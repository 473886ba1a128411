//! The core's front door: one module per use case, each a serde-able,
//! checked plan both fronts map their flags or forms to, so a use case is
//! assembled once (see ARCHITECTURE.md, "Entry points").
//!
//! | module | the use case |
//! |---|---|
//! | `build` | task prompts from a dataset: [`build::BuildPlan`] |
//! | `callpath` | call-path tasks from a dataset (NOT UPSTREAM): [`callpath::CallPathPlan`] |
//! | `callpath_report` | a call-path report, one HTML file from SCORES files: [`callpath_report::render`] |
//! | `coreqa` | asking models for CoReQA (answers, judgments, pairwise verdicts): [`coreqa::AnswerPlan`], [`coreqa::JudgePlan`], [`coreqa::PairwisePlan`] |
//! | `score` | a model's answers scored into its SCORES file: [`score::ScorePlan`] |

pub mod build;
pub mod callpath;
pub mod callpath_report;
pub mod coreqa;
pub mod score;

use serde::{Deserialize, Serialize};

/// Which task is built, run and scored: RepoQA's Searching Needle Function
/// (the default), or the call-path task (NOT UPSTREAM, [`callpath`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum TaskKind {
    #[default]
    Snf,
    CallPath,
}
