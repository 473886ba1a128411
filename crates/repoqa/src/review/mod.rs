//! Review: what is done with results once they exist. A SCORES file
//! checked against its records, a dataset and a re-scoring (`verify`);
//! many runs side by side (`leaderboard`) and one model over lengths
//! (`ladder`); a pass@1 with its intervals (`evidence`, from `stats` and
//! `bootstrap`); two runs task by task (`compare`); a run in a sentence
//! (`headline`), in one HTML file (`html_report`) and in a self-verifying
//! bundle (`bundle`). Each reads the official files (`crate::report`) and
//! scores (`crate::scoring::score`); nothing here reads a dataset's code or builds a
//! prompt.
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `verify`   | a SCORES file checked against its records, a dataset and a re-scoring: typed findings |
//! | `leaderboard` | pass@1 per language and average at any threshold, over many SCORES files |
//! | `ladder`   | one model at several context lengths: pass@1 by length, depth × length, the effective length |
//! | `stats`    | Wilson score interval of a pass@1, McNemar's exact test |
//! | `headline` | a run's score in one sentence: pass@1 at the threshold, n, its interval, what counts as a failure |
//! | `evidence` | a pass@1 with its Wilson and bootstrap intervals, overall and per language |
//! | `bootstrap`| seeded percentile bootstrap of a pass@1 or a paired difference, by task or by repository |
//! | `bundle`   | a self-verifying result bundle: SCORES, outputs, settings, input and prompt hashes |
//! | `html_report` | one self-contained HTML report: tables, intervals, SVG charts, input hashes, a paired comparison |
//! | `compare`  | two runs on the same tasks: the 2×2 table, the test, the intervals, the flipped tasks |
//! | `memorized` | a model's run with the code against its closed-book run: the memorized share |

pub mod bootstrap;
pub mod bundle;
pub mod compare;
pub mod evidence;
pub mod headline;
pub mod html_report;
pub mod ladder;
pub mod leaderboard;
pub mod memorized;
pub mod stats;
pub mod verify;
