//! Floor 3: the app's state, shared by every page through Leptos context.
//! Pages read and write these signals; they never compute scores or prompts
//! themselves (that is the core's job, called from `jobs/` and the memos in
//! `answers.rs`). Long jobs and their progress line are `jobs/`' own.

pub mod answers;
pub mod app;
pub mod coreqa;
pub mod curate;
pub mod reviewers;
pub mod route;
pub mod run;
pub mod runs;
pub mod scoring;
pub mod settings;

pub use self::app::{use_state, AppState, BuildStats, LadderFile, LoadedDataset};
