//! The Leaderboard's length ladders (issue 51): each model loaded at two
//! code-context lengths or more (files in upstream's `ntoken_<N>/`
//! folders) or at two depths of a grid (`ntoken_<N>/depth_<r>/`), a model at a time on the main job line. The numbers are
//! `repoqa::review::ladder`'s, at the CLI's default intervals (95 %, the default
//! resamples, seed 0), so each equals `repoqa ladder --json`.

use leptos::prelude::*;
use repoqa::review::bootstrap::Resampling;
use repoqa::review::ladder::{ladders, Ladder};

use super::{Job, Runner};
use crate::ui::error::UiError;
use crate::ui::format::count;
use crate::ui::state::reviewers::{LadderBoard, LeaderboardState};

/// The confidence level of a ladder's intervals (`repoqa ladder --ci`'s default).
pub const LADDER_LEVEL: f64 = 0.95;

/// Compute the ladders for the files, threshold and fraction loaded now;
/// a job whose inputs changed before it ran or while it runs stops
/// quietly (the newest one fills in).
pub fn ladder_evidence(st: LeaderboardState, runner: Runner) {
    let stamp = st.ladder_stamp();
    if st.ladders.with_untracked(|l| l.stamp == Some(stamp)) {
        return;
    }
    let files = st.at_lengths();
    let models = LeaderboardState::ladder_models(&files);
    st.ladders.set(LadderBoard {
        stamp: Some(stamp),
        complete: models.is_empty(),
        ..LadderBoard::default()
    });
    if models.is_empty() {
        return;
    }
    let what = format!("Length ladders of {}", count(models.len(), "model", "models"));
    runner.spawn(Job::new(what.clone()).queue(), move |ctx| async move {
        let (t, fraction) = (f64::from_bits(stamp.0), f64::from_bits(stamp.1));
        let resampling = Resampling::at(LADDER_LEVEL);
        let refs: Vec<_> = files.iter().map(|(n, s, f)| (*n, s.as_str(), &**f)).collect();
        let total = models.len();
        ctx.progress(what.clone(), 0, total);
        for (i, m) in models.iter().enumerate() {
            if st.ladder_stamp() != stamp {
                return Ok(());
            }
            let r = ladders(&refs, Some(m), t, fraction, resampling);
            st.ladders.update(|b| {
                if b.stamp == Some(stamp) {
                    match r {
                        Ok(ls) => b.ladders.extend(ls.into_iter().filter(Ladder::is_shown)),
                        Err(e) => b.errors.push(e),
                    }
                }
            });
            ctx.tick(i + 1, total).await.map_err(|_| {
                UiError::cancelled(
                    "Ladders cancelled; change the threshold or load a file to compute them again.",
                )
            })?;
        }
        st.ladders.update(|b| b.complete = b.stamp == Some(stamp));
        ctx.done(format!(
            "{what}: pass@1 by length with intervals at {}% ({} resamples, seed {}).",
            100.0 * LADDER_LEVEL,
            resampling.resamples,
            resampling.seed
        ));
        Ok(())
    });
}
