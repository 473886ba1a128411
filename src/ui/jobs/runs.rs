//! Switching between the runs kept in this browser, one per model
//! (`state::runs`): the run switched to is scored into the cache a slice
//! at a time first (as an import is), so a 500-task run never stops the
//! page; then it becomes the current one. And every run kept, on the
//! Leaderboard's list of runs, so two can be compared task by task
//! without exporting either.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::llm::runlog::{read_runlog, RunLog};

use super::scoring::warm_scores;
use super::{Ctx, Job, Runner, Stop};
use crate::ui::error::UiError;
use crate::ui::state::answers::{score_answers_settled, scores_file_of};
use crate::ui::state::reviewers::LeaderboardState;
use crate::ui::state::run::RunState;
use crate::ui::state::runs::{current_owner, switch_run};
use crate::ui::state::AppState;

/// Score `model`'s kept answers into the cache (nothing for a model not
/// kept, or the current one's).
pub async fn warm_run(ctx: &Ctx, app: AppState, rs: RunState, model: &str) -> Result<(), Stop> {
    let Some(answers) =
        rs.shelf.with_untracked(|s| s.iter().find(|r| r.model == model).map(|r| r.answers.clone()))
    else {
        return Ok(());
    };
    let pairs: Vec<(&str, &str)> = answers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let options = app.score_options_for(app.scoring.options.get_untracked());
    let what = format!("Scoring {model}'s {} answers", pairs.len());
    warm_scores(ctx, app, &pairs, options, &what).await.map(|_| ())
}

/// Show `model`'s run on the main job line; `done` gets the outcome (its
/// answer count).
pub fn switch_to(
    app: AppState,
    rs: RunState,
    runner: Runner,
    model: String,
    done: impl Fn(Result<usize, UiError>) + 'static,
) {
    spawn_local(async move {
        let r = runner
            .run(Job::new(format!("Switching to {model}'s run")), move |ctx| async move {
                warm_run(&ctx, app, rs, &model).await.map_err(|_| {
                    UiError::cancelled(format!("Not switched to {model}'s run: cancelled."))
                })?;
                let n = switch_run(app, rs, &model).await?;
                ctx.done(format!("{model}'s run: {n} answers."));
                Ok(n)
            })
            .await;
        done(r);
    });
}

/// Where the runs kept in this browser appear among the Leaderboard's
/// runs (and so in "Two runs, task by task").
pub const RUNS_SOURCE: &str = "runs in this browser";

/// Every run kept in this browser, the current one too, among the
/// Leaderboard's runs as `RUNS_SOURCE/<its SCORES file name>`: each scored
/// into the cache a slice at a time, its SCORES file made as Results
/// exports it. Returns how many runs were put there.
pub fn put_runs_on_board(app: AppState, rs: RunState, runner: Runner, lb: LeaderboardState) {
    let mut runs: Vec<(String, BTreeMap<String, String>, RunLog)> =
        vec![(current_owner(app, rs), app.answers.get_untracked(), rs.run_log())];
    rs.shelf.with_untracked(|s| {
        runs.extend(s.iter().map(|r| (r.model.clone(), r.answers.clone(), read_runlog(&r.log))))
    });
    runs.retain(|(_, a, _)| !a.is_empty());
    let selection = rs.form.with_untracked(|f| f.selection.clone());
    let what = format!("Putting the {} runs kept here beside each other", runs.len());
    runner.spawn(Job::new(&what).queue(), move |ctx| async move {
        let options = app.score_options_for(app.scoring.options.get_untracked());
        let mut put = 0;
        for (model, answers, log) in runs {
            let pairs: Vec<(&str, &str)> =
                answers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let scoring = format!("Scoring {model}'s {} answers", pairs.len());
            if warm_scores(&ctx, app, &pairs, options, &scoring).await.is_err() {
                return Err(UiError::cancelled("Cancelled: not every run kept is on the list."));
            }
            let set = ctx.wait_for(score_answers_settled(app, &answers, &selection)).await;
            match scores_file_of(app, &set, &model, Some(&log)) {
                Ok((_, file, name)) => {
                    lb.put_answers(format!("{RUNS_SOURCE}/{name}"), file, answers);
                    put += 1;
                }
                Err(e) => leptos::logging::warn!("{model}'s run not compared: {e}"),
            }
        }
        ctx.done(format!(
            "{put} runs kept in this browser are on the Leaderboard's list, to compare."
        ));
        Ok(())
    });
}
