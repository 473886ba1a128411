//! The flags that read a score with its evidence, shared by `leaderboard`,
//! `compare`, `score` and `verify` (NOT UPSTREAM): the confidence level and
//! the bootstrap's resamples and seed (`repoqa::review::bootstrap`).

use repoqa::report::ModelScores;
use repoqa::review::bootstrap::{Resampling, DEFAULT_RESAMPLES, MAX_RESAMPLES};

use crate::error::{At, CliError};

#[derive(clap::Args, Clone, Copy)]
pub struct ResampleArgs {
    /// NOT UPSTREAM: resamples of the percentile bootstrap behind the
    /// intervals (stratified by language; by task and by repository).
    #[arg(long, default_value_t = DEFAULT_RESAMPLES)]
    pub resamples: usize,
    /// NOT UPSTREAM: the seed of the bootstrap's draws; the same seed gives
    /// the same intervals here and in the app.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

impl ResampleArgs {
    /// The resampling at confidence `level`, checked.
    pub fn at(self, level: f64) -> Result<Resampling, CliError> {
        if !(level > 0.0 && level < 1.0) {
            return Err(CliError::usage(format!(
                "--ci {level}: expected a confidence level between 0 and 1, such as 0.95"
            )));
        }
        if !(1..=MAX_RESAMPLES).contains(&self.resamples) {
            return Err(CliError::usage(format!(
                "--resamples {}: expected 1 to {MAX_RESAMPLES}",
                self.resamples
            )));
        }
        Ok(Resampling { level, resamples: self.resamples, seed: self.seed })
    }

    /// With `--ci LEVEL` given, its resampling.
    pub fn maybe(self, level: Option<f64>) -> Result<Option<Resampling>, CliError> {
        level.map(|l| self.at(l)).transpose()
    }
}

/// `repoqa score --ci` and `verify --ci`: after the official table, the
/// pass@1 at one threshold with its intervals (NOT UPSTREAM; the official
/// table is printed as it is either way).
#[derive(clap::Args, Clone, Copy)]
pub struct CiArgs {
    /// NOT UPSTREAM: also print pass@1 at --ci-threshold, overall and per
    /// language, with its Wilson and bootstrap intervals at this confidence
    /// (0.95: 95 %).
    #[arg(long, value_name = "LEVEL")]
    pub ci: Option<f64>,
    /// The threshold of the intervals (the paper's table uses 0.8).
    #[arg(long, default_value_t = 0.8)]
    pub ci_threshold: f64,
    #[command(flatten)]
    pub resample: ResampleArgs,
}

impl CiArgs {
    /// No intervals (`repoqa run`, which scores without them).
    pub fn none() -> CiArgs {
        CiArgs {
            ci: None,
            ci_threshold: 0.8,
            resample: ResampleArgs { resamples: DEFAULT_RESAMPLES, seed: 0 },
        }
    }

    /// With `--ci`, the threshold and resampling, checked.
    pub fn checked(self) -> Result<Option<(f64, Resampling)>, CliError> {
        let Some(r) = self.resample.maybe(self.ci)? else { return Ok(None) };
        let t =
            repoqa::review::leaderboard::check_threshold(self.ci_threshold).at("--ci-threshold")?;
        Ok(Some((t, r)))
    }
}

/// The evidence table of one model's records, titled.
pub fn render(
    model: &str,
    scores: &ModelScores,
    (threshold, resampling): (f64, Resampling),
) -> String {
    let table = repoqa::review::evidence::evidence(&scores.results, threshold, resampling);
    format!("{model}: {}", table.render_text())
}
