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
use repoqa::naming;

use super::scoring::warm_scores;
use super::{Ctx, Job, Runner, Stop};
use crate::ui::error::UiError;
use crate::ui::state::answers::{score_answers_settled, scores_file_of};
use crate::ui::state::reviewers::{LeaderboardState, RUNS_SOURCE};
use crate::ui::state::run::RunState;
use crate::ui::state::runs::{
    current_owner, parse_run_key, runs_kept, shelved_answers, switch_run,
};
use crate::ui::state::AppState;

/// Score the kept answers of `model` at `ntoken` into the cache (nothing
/// for a run not kept, or the current one).
pub async fn warm_run(
    ctx: &Ctx,
    app: AppState,
    rs: RunState,
    model: &str,
    ntoken: Option<usize>,
) -> Result<(), Stop> {
    let Some(answers) = shelved_answers(rs, model, ntoken) else {
        return Ok(());
    };
    let pairs: Vec<(&str, &str)> = answers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let options = app.score_options_for(app.scoring.options.get_untracked());
    let what = format!("Scoring {model}'s {} answers", pairs.len());
    warm_scores(ctx, app, &pairs, options, &what).await.map(|_| ())
}

/// Show the run `key` names (`state::runs::run_key`) on the main job line;
/// `done` gets the outcome (its answer count).
pub fn switch_to(
    app: AppState,
    rs: RunState,
    runner: Runner,
    key: String,
    done: impl Fn(Result<usize, UiError>) + 'static,
) {
    let (model, ntoken) = parse_run_key(&key);
    spawn_local(async move {
        let r = runner
            .run(Job::new(format!("Switching to {model}'s run")), move |ctx| async move {
                warm_run(&ctx, app, rs, &model, ntoken).await.map_err(|_| {
                    UiError::cancelled(format!("Not switched to {model}'s run: cancelled."))
                })?;
                let n = switch_run(app, rs, &model, ntoken).await?;
                ctx.done(format!("{model}'s run: {n} answers."));
                Ok(n)
            })
            .await;
        done(r);
    });
}

/// Keep every run kept in this browser on the Leaderboard's list from the
/// page that calls it (Results, the Leaderboard: so a ladder run shows on
/// the Leaderboard without Results being opened first, also after a
/// reload), whenever two runs or more are kept; again when one gains
/// answers or what their SCORES depend on changes (the Run page's
/// selection, the scoring options, the tasks). When the page opens with
/// every run already on the list, as it is, nothing is redone.
/// `busy`: a model run is under way (tracked; its runs go on when it ends).
pub fn keep_runs_on_board(
    app: AppState,
    rs: RunState,
    runner: Runner,
    busy: impl Fn() -> bool + 'static,
) {
    let lb = expect_context::<LeaderboardState>();
    let kept = Memo::new(move |_| {
        app.scoring.model_name.track();
        rs.shelf.track();
        rs.log.track();
        let mut r = runs_kept(app, rs);
        r.sort();
        r
    });
    let selection = Memo::new(move |_| rs.form.with(|f| f.selection.clone()));
    Effect::new(move |prev: Option<()>| {
        let n = kept.with(Vec::len);
        selection.track();
        app.scoring.unanswered.track();
        app.scoring.options.track();
        app.tasks.track();
        if n >= 2 && rs.restored.get() && !busy() {
            untrack(|| {
                if prev.is_none() && on_board_already(app, rs, lb) {
                    return;
                }
                put_runs_on_board(app, rs, runner, lb)
            });
        }
    });
}

/// Whether every run kept here is on the Leaderboard's list with the
/// answers it has now.
fn on_board_already(app: AppState, rs: RunState, lb: LeaderboardState) -> bool {
    lb.files.with_untracked(|fs| {
        let on = |a: &BTreeMap<String, String>| {
            a.is_empty()
                || fs
                    .iter()
                    .any(|f| f.source.starts_with(RUNS_SOURCE) && f.answers.as_deref() == Some(a))
        };
        app.answers.with_untracked(on)
            && rs.shelf.with_untracked(|s| s.iter().all(|r| on(&r.answers)))
    })
}

/// Every run kept in this browser, the current one too, among the
/// Leaderboard's runs as `RUNS_SOURCE/<its SCORES file name>` (in its
/// length's `ntoken_<N>/` folder when the length is known, so runs of a
/// model at two lengths make its length ladder there): each scored into
/// the cache a slice at a time, its SCORES file made as Results exports it.
pub fn put_runs_on_board(app: AppState, rs: RunState, runner: Runner, lb: LeaderboardState) {
    type Kept = (String, Option<usize>, BTreeMap<String, String>, RunLog);
    let mut runs: Vec<Kept> = vec![(
        current_owner(app, rs),
        rs.length.get_untracked(),
        app.answers.get_untracked(),
        rs.run_log(),
    )];
    rs.shelf.with_untracked(|s| {
        runs.extend(
            s.iter().map(|r| (r.model.clone(), r.ntoken, r.answers.clone(), read_runlog(&r.log))),
        )
    });
    runs.retain(|(_, _, a, _)| !a.is_empty());
    let protocol =
        app.tasks.with_untracked(|ts| ts.first().map(|t| t.protocol).unwrap_or_default());
    let selection = rs.form.with_untracked(|f| f.selection.clone());
    let what = format!("Putting the {} runs kept here beside each other", runs.len());
    runner.spawn(Job::new(&what).queue(), move |ctx| async move {
        let options = app.score_options_for(app.scoring.options.get_untracked());
        let mut put = 0;
        for (model, ntoken, answers, log) in runs {
            let pairs: Vec<(&str, &str)> =
                answers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let scoring = format!("Scoring {model}'s {} answers", pairs.len());
            if warm_scores(&ctx, app, &pairs, options, &scoring).await.is_err() {
                return Err(UiError::cancelled("Cancelled: not every run kept is on the list."));
            }
            let set = ctx.wait_for(score_answers_settled(app, &answers, &selection)).await;
            match scores_file_of(app, &set, &model, Some(&log)) {
                Ok((_, file, name)) => {
                    let folder = ntoken.map(|n| format!("{}/", naming::run_dir(n, protocol)));
                    let source = format!("{RUNS_SOURCE}/{}{name}", folder.unwrap_or_default());
                    lb.put_answers(source, file, answers);
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
