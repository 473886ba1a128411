//! Scoring many answers at once, as jobs on the main line: new scoring
//! options (every answer re-scored before the options switch) and an
//! import of an outputs JSONL. Both fill the score cache of
//! `state::scoring` a chunk at a time (the compute engine scores, in its
//! worker), so the reactive pass that follows finds everything scored.

use std::collections::HashMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::report::LineError;
use repoqa::scoring::score::ScoreOptions;

use super::{Ctx, Job, Runner};
use crate::ui::browser::time::now_ms;
use crate::ui::error::UiError;
use crate::ui::state::answers::persist_answers;
use crate::ui::state::scoring::{persist_scoring, settle, Pass};
use crate::ui::state::AppState;

/// What an import did.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportReport {
    pub origin: String,
    pub imported: usize,
    pub errors: Vec<LineError>,
}

/// Answers per wait for the engine: progress and Cancel between two.
const CHUNK: usize = 100;

/// Score `answers` (task id, reply) with `options` into the cache, showing
/// `what` with the count done. Returns how many were scored and the
/// milliseconds it took (the engine's work and the messages to it);
/// `Err(Stop)` if cancelled.
pub(super) async fn warm_scores(
    ctx: &Ctx,
    state: AppState,
    answers: &[(&str, &str)],
    options: ScoreOptions,
    what: &str,
) -> Result<(usize, f64), super::Stop> {
    let tasks = state.tasks.get_untracked();
    let index: HashMap<String, usize> =
        tasks.iter().enumerate().map(|(i, t)| (t.task_id(), i)).collect();
    let dataset = state.dataset.with_untracked(|d| d.as_ref().map(|d| d.dataset.clone()));
    let mut pass = Pass::new(dataset.as_ref(), options);
    let total = answers.len();
    ctx.progress(what, 0, total);
    // A turn first: the progress line shows, and Cancel works even for a
    // pass shorter than one chunk.
    ctx.turn().await?;
    let start = now_ms();
    let mut done = 0;
    for chunk in answers.chunks(CHUNK) {
        for (id, reply) in chunk {
            if let Some(&i) = index.get(*id) {
                pass.score(state.scoring, &tasks[i], id, reply, i + 1);
            }
        }
        ctx.wait_for(settle(state.scoring)).await;
        done += chunk.len();
        ctx.count(done, total);
        ctx.check()?;
    }
    Ok((pass.rescored, now_ms() - start))
}

/// Change the scoring options without stopping the page: every answer is
/// scored with the new options in slices first, then the options switch
/// (the results update at once from the cache). `last_rescore` records
/// what it took, for the page and the tests.
pub fn change_options(state: AppState, runner: Runner, new: ScoreOptions) {
    if runner.busy_untracked() {
        return;
    }
    let answers = state.answers.get_untracked();
    let what = format!("Scoring {} answers with the new options", answers.len());
    runner.spawn(Job::new(&what), move |ctx| async move {
        let pairs: Vec<(&str, &str)> =
            answers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let options = state.score_options_for(new);
        let Ok((n, ms)) = warm_scores(&ctx, state, &pairs, options, &what).await else {
            // The inputs show the options in force again.
            state.scoring.options.update(|_| {});
            return Err(UiError::cancelled("Cancelled: the scoring options were not changed."));
        };
        state.scoring.options.set(new);
        persist_scoring(state.scoring);
        state.scoring.last_rescore.update(|r| *r = (r.0 + 1, n, ms));
        state.scoring.last_scoring.set(Some(("the options change".into(), n, ms)));
        ctx.done(format!("Scored {n} answers with the new options in {ms:.0} ms."));
        Ok(())
    });
}

/// Import an outputs JSONL: lines are read a slice at a time and the new
/// answers scored into the cache before they are shown, with progress, so
/// a 35 MB official-format file (500 tasks with their prompts) never
/// freezes the page. `report` gets what was imported, or why not.
pub fn import_answers(
    state: AppState,
    runner: Runner,
    text: String,
    origin: String,
    report: impl Fn(Result<ImportReport, UiError>) + 'static,
) {
    let tasks = state.tasks.get_untracked();
    if tasks.is_empty() {
        return report(Err(UiError::invalid(
            "No tasks are built yet: build the tasks, then import their answers.",
        )));
    }
    if runner.busy_untracked() {
        return report(Err(UiError::invalid(
            "Busy: wait for the current job to finish or cancel it, then import again.",
        )));
    }
    let what = format!("Importing answers from {origin}");
    spawn_local(async move {
        let r = runner
            .run(Job::new(&what), move |ctx| async move {
                let cancelled = || {
                    UiError::cancelled(format!(
                        "Import of {origin} cancelled; no answer was changed."
                    ))
                };
                let all = repoqa::scoring::answers::lines(&text);
                let total = all.len();
                let mut importer = repoqa::scoring::answers::AnswersImporter::new(&tasks);
                ctx.turn().await.map_err(|_| cancelled())?;
                for (k, (line, content)) in all.iter().enumerate() {
                    importer.line(*line, content);
                    ctx.tick(k + 1, total).await.map_err(|_| cancelled())?;
                }
                let found = importer.finish();
                let imported = found.answers.len();
                // Nothing usable is a failure, said as one (never "Imported 0").
                if imported == 0 {
                    let why = match (total, found.errors.first()) {
                        (0, _) => "it is empty: there is no line to read".to_string(),
                        (_, Some(e)) => format!(
                            "none of its {total} line(s) is an answer to a built task (line {}: {})",
                            e.line, e.message
                        ),
                        _ => format!("none of its {total} line(s) is an answer to a built task"),
                    };
                    return Err(UiError::invalid(format!("Nothing imported from {origin}: {why}.")));
                }
                let pairs: Vec<(&str, &str)> =
                    found.answers.iter().map(|a| (a.task_id.as_str(), a.reply.as_str())).collect();
                let what = format!("Scoring {imported} imported answers");
                let options = state.score_options_for(state.scoring.options.get_untracked());
                let (_, ms) = warm_scores(&ctx, state, &pairs, options, &what)
                    .await
                    .map_err(|_| cancelled())?;
                state.scoring.last_scoring.set(Some(("the import".into(), imported, ms)));
                if imported > 0 {
                    state.answers.update(|a| {
                        for ans in found.answers {
                            a.insert(ans.task_id, ans.reply);
                        }
                    });
                    state.answers.with_untracked(persist_answers);
                }
                let errors = found.errors.len();
                ctx.done(format!(
                    "Imported {imported} answers from {origin}; {errors} lines not used."
                ));
                Ok(ImportReport { origin, imported, errors: found.errors })
            })
            .await;
        // A cancelled import says so on the job line only.
        if !matches!(&r, Err(e) if e.is_cancelled()) {
            report(r);
        }
    });
}
