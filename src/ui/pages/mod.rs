//! Floor 6: one module per page. A page lays out components and state,
//! and starts jobs; it computes nothing itself.

pub mod about;
pub mod call_paths;
pub mod coreqa;
pub mod coreqa_ask;
pub mod coreqa_report;
pub mod curate;
pub mod dataset;
pub mod home;
pub mod ladder;
pub mod leaderboard;
pub mod paired;
pub mod results;
pub mod run;
pub mod run_tab;
pub mod task_view;
pub mod tasks;
pub mod teach;
pub mod verify;
pub mod verify_bundle;
