//! The reviewers' jobs: loading SCORES files for the Leaderboard (the
//! built-in published collection only when asked for, files, a URL), the
//! Verify page's inputs, and its re-scoring of every task on the main job
//! line (a slice at a time, with progress and Cancel). The checks and the
//! numbers are the core's (`repoqa::review::verify`, `repoqa::review::leaderboard`).

use std::sync::Arc;

use indexmap::IndexMap;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::engine::{Reply, Request};
use repoqa::input::dataset::Dataset;
use repoqa::report::{read_model_outputs, TaskResult};
use repoqa::review::bootstrap::Resampling;
use repoqa::review::bundle::Bundle;
use repoqa::review::leaderboard::{model_row, read_scores};
use repoqa::review::verify::{self, Finding, Report};
use repoqa::scoring::score::{task_result, Candidates, ScoreOptions};
use serde_json::Value;

use super::{Job, Runner};
use crate::ui::browser::dom::relative_path;
use crate::ui::browser::engine;
use crate::ui::browser::fetch::{fetch_bytes, read_blob};
use crate::ui::error::UiError;
use crate::ui::format::count;
use crate::ui::state::reviewers::{BoardEvidence, LeaderboardState, VerifyOutputs, VerifyState};

/// Where the built-in collection is served (Trunk copies
/// `public/published/` there).
pub const PUBLISHED: &str = "published/";

fn scores(bytes: &[u8], origin: &str) -> Result<repoqa::report::ScoresFile, UiError> {
    read_scores(bytes, origin).map_err(|e| UiError::invalid(e.to_string()))
}

/// The file names of the published collection (`published/index.json`).
pub async fn published_names() -> Result<Vec<String>, UiError> {
    let index = fetch_bytes(&format!("{PUBLISHED}index.json")).await?;
    let index: Value = serde_json::from_slice(&index)?;
    let mut names: Vec<String> = index["files"]
        .as_array()
        .map(|fs| fs.iter().filter_map(|f| f["file"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    names.dedup();
    Ok(names)
}

/// Verify this SCORES file from now on: it replaces the one on the Verify
/// page, with the outputs and bundle that went with the old one.
pub fn verify_file(vs: VerifyState, name: String, file: Arc<repoqa::report::ScoresFile>) {
    vs.outputs.set(None);
    vs.bundle.set(None);
    vs.error.set(None);
    vs.scores.set(Some((name, file)));
    recompute(vs);
}

/// Verify one file of the published collection (fetched now).
pub fn verify_published(vs: VerifyState, name: String) {
    spawn_local(async move {
        let r = async {
            let bytes = fetch_bytes(&format!("{PUBLISHED}{name}")).await?;
            scores(&bytes, &name)
        }
        .await;
        match r {
            Ok(file) => verify_file(vs, format!("published/{name}"), Arc::new(file)),
            Err(e) => vs.error.set(Some(e.to_string())),
        }
    });
}

/// Load the 30 published files (only now: the first page load never pays
/// for them).
pub fn load_published(st: LeaderboardState) {
    st.status.set(Some(Ok("Loading the published results…".into())));
    spawn_local(async move {
        let r = async {
            let names = published_names().await?;
            let mut read = Vec::with_capacity(names.len());
            for (i, name) in names.iter().enumerate() {
                st.status.set(Some(Ok(format!(
                    "Loading the published results: {} of {}…",
                    i + 1,
                    names.len()
                ))));
                let bytes = fetch_bytes(&format!("{PUBLISHED}{name}")).await?;
                let file = scores(&bytes, name)?;
                read.push((format!("published/{name}"), file, bytes));
            }
            // All at once: the rows appear together and never move while
            // the files arrive (a click meant for one row cannot land on
            // another).
            let added = st.add_all(read);
            Ok::<(usize, usize), UiError>((names.len(), added))
        }
        .await;
        // Files loaded before are not loaded twice: say what is there, and
        // what is new (never "Loaded 0" beside 30 rows).
        st.status.set(Some(r.map(published_status).map_err(|e| e.to_string())));
    });
}

/// Where the sample ladder is served (Trunk copies `public/demo/`), its
/// lengths, and its model's name: SAMPLE answers written by this project
/// (`scripts/sample_ladder.py`), not a model's.
pub const SAMPLE_LADDER: &str = "demo/sample-ladder/";
pub const SAMPLE_LADDER_LENGTHS: [usize; 3] = [1024, 2048, 4096];
pub const SAMPLE_LADDER_MODEL: &str = "SAMPLE-ladder-not-a-model";

/// Load the sample ladder (its three lengths at once, each in its length's
/// `ntoken_<N>/` folder, so the ladder card draws it).
pub fn load_sample_ladder(st: LeaderboardState) {
    st.status.set(Some(Ok("Loading the sample ladder…".into())));
    spawn_local(async move {
        let r = async {
            let mut read = Vec::new();
            for n in SAMPLE_LADDER_LENGTHS {
                let path = format!("ntoken_{n}/{SAMPLE_LADDER_MODEL}-SCORES.json");
                let bytes = fetch_bytes(&format!("{SAMPLE_LADDER}{path}")).await?;
                let file = scores(&bytes, &path)?;
                read.push((format!("sample ladder/{path}"), file, bytes));
            }
            Ok::<usize, UiError>(st.add_all(read))
        }
        .await;
        st.status.set(Some(r.map(|_| {
            format!("Loaded the sample ladder ({SAMPLE_LADDER_MODEL}): answers written by this project at three lengths, not a model's replies.")
        }).map_err(|e| e.to_string())));
    });
}

/// What loading the `total` published files said, `added` of them new.
fn published_status((total, added): (usize, usize)) -> String {
    let files = count(total, "published file", "published files");
    match added {
        a if a == total => format!("Loaded {files}."),
        0 => format!("The {files} are loaded already."),
        a => format!("The {files} are loaded ({a} new, {} already here).", total - a),
    }
}

/// Whether a file of a picked folder is a SCORES file (`-SCORES.json` or
/// `.json.gz`, as `repoqa ladder` reads a run directory); a file picked or
/// dropped on its own is read whatever its name.
fn is_scores_name(name: &str) -> bool {
    name.ends_with("-SCORES.json") || name.ends_with("-SCORES.json.gz")
}

/// Load SCORES files picked or dropped, or every SCORES file of a picked
/// folder (a run's result directory: each file's source is its path in
/// the folder, so `ntoken_<N>/` gives its length).
pub fn load_files(st: LeaderboardState, files: Vec<web_sys::File>) {
    spawn_local(async move {
        let mut read = Vec::new();
        let mut skipped = 0;
        let mut errors = Vec::new();
        for f in files {
            let name = relative_path(&f);
            if name.contains('/') && !is_scores_name(&f.name()) {
                skipped += 1;
                continue;
            }
            let r = async {
                let bytes = read_blob(&f, &name).await?;
                scores(&bytes, &name).map(|file| (file, bytes))
            }
            .await;
            match r {
                Ok((file, bytes)) => read.push((name, file, bytes)),
                Err(e) => errors.push(e.to_string()),
            }
        }
        let loaded = st.add_all(read);
        let others = match skipped {
            0 => String::new(),
            n => format!(
                "; {} in the folder left alone (only -SCORES.json files are read)",
                count(n, "other file", "other files")
            ),
        };
        st.status.set(Some(if errors.is_empty() {
            Ok(format!("Loaded {}{others}.", count(loaded, "file", "files")))
        } else {
            Err(errors.join("; "))
        }));
    });
}

/// Load a SCORES file from a URL.
pub fn load_url(st: LeaderboardState, url: String) {
    spawn_local(async move {
        let r = async {
            let bytes = fetch_bytes(&url).await?;
            let file = scores(&bytes, &url)?;
            st.add(url.clone(), file, &bytes);
            Ok::<(), UiError>(())
        }
        .await;
        st.status.set(Some(r.map(|_| format!("Loaded {url}.")).map_err(|e| e.to_string())));
    });
}

/// The checks that need no re-scoring: records, table, dataset needles.
pub fn recompute(vs: VerifyState) {
    let Some((name, file)) = vs.scores.get_untracked() else {
        vs.report.set(None);
        return;
    };
    let mut report = Report::of_file(&name, &file);
    if let Some((dname, d)) = vs.chosen_dataset() {
        verify::add_dataset_check(&mut report, &file, &d, &dname);
    }
    vs.focus_pending.set(true);
    vs.report.set(Some(report));
}

/// A file given to the Verify page: a SCORES file, an outputs JSONL or a
/// dataset, told apart by `kind`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum VerifyInput {
    Scores,
    Outputs,
    Dataset,
    /// A result bundle: its SCORES file and outputs at once.
    Bundle,
}

impl VerifyInput {
    /// By file name, for drops.
    pub fn guess(name: &str) -> VerifyInput {
        let n = name.to_lowercase();
        if n.ends_with(".bundle.json") {
            VerifyInput::Bundle
        } else if n.ends_with("-scores.json") || n.ends_with("-scores.json.gz") {
            VerifyInput::Scores
        } else if n.ends_with(".jsonl") {
            VerifyInput::Outputs
        } else {
            VerifyInput::Dataset
        }
    }
}

/// Read one input and recompute what needs no re-scoring.
pub fn load_input(vs: VerifyState, kind: VerifyInput, file: web_sys::File) {
    spawn_local(async move {
        let name = file.name();
        let r = async {
            let bytes = read_blob(&file, &name).await?;
            match kind {
                VerifyInput::Scores => {
                    vs.scores.set(Some((name.clone(), Arc::new(scores(&bytes, &name)?))));
                }
                VerifyInput::Outputs => {
                    let text = String::from_utf8(bytes).map_err(|e| {
                        UiError::invalid(format!(
                            "{name}: not UTF-8 text (byte {})",
                            e.utf8_error().valid_up_to()
                        ))
                    })?;
                    let parsed = read_model_outputs(&text);
                    vs.outputs.set(Some(VerifyOutputs {
                        name: name.clone(),
                        outputs: Arc::new(parsed.outputs),
                        errors: parsed.errors,
                    }));
                }
                VerifyInput::Dataset => {
                    let d = Dataset::from_bytes(&bytes, &name)?;
                    vs.dataset.set(Some((name.clone(), Arc::new(d))));
                }
                VerifyInput::Bundle => {
                    let text = std::str::from_utf8(&bytes).map_err(|e| {
                        UiError::invalid(format!(
                            "{name}: not UTF-8 text (byte {})",
                            e.valid_up_to()
                        ))
                    })?;
                    let b =
                        Bundle::parse(text, &name).map_err(|e| UiError::invalid(e.to_string()))?;
                    let file = b.scores_file(&name).map_err(|e| UiError::invalid(e.to_string()))?;
                    let parsed = b.outputs_file();
                    vs.scores.set(Some((format!("{name} (scores)"), Arc::new(file))));
                    vs.outputs.set(Some(VerifyOutputs {
                        name: format!("{name} (outputs)"),
                        outputs: Arc::new(parsed.outputs),
                        errors: parsed.errors,
                    }));
                    vs.ignore_comments.set(b.ignore_comments);
                    vs.bundle.set(Some((name.clone(), Arc::new(b))));
                }
            }
            Ok::<(), UiError>(())
        }
        .await;
        match r {
            Ok(()) => {
                vs.error.set(None);
                recompute(vs);
            }
            Err(e) => vs.error.set(Some(e.to_string())),
        }
    });
}

/// Outputs per request to the engine while re-scoring: progress and Cancel
/// between two.
const RESCORE_CHUNK: usize = 50;

/// Re-score every output on the job line (in the compute engine, a chunk
/// at a time), then compare with the file.
pub fn rescore(vs: VerifyState, runner: Runner) {
    let (Some((name, file)), Some(outs)) = (vs.scores.get_untracked(), vs.outputs.get_untracked())
    else {
        vs.error.set(Some("Re-scoring needs the SCORES file and the outputs JSONL.".into()));
        return;
    };
    let Some((dname, dataset)) = vs.chosen_dataset() else {
        vs.error.set(Some(
            "Re-scoring needs the dataset: give it here, or load it in the app (Dataset page) and tick \"use the loaded dataset\"."
                .into(),
        ));
        return;
    };
    if file.models.len() != 1 {
        vs.error.set(Some(format!(
            "{name} holds {} models; re-scoring needs a single-model file.",
            file.models.len()
        )));
        return;
    }
    let options = ScoreOptions {
        ignore_comments: vs.ignore_comments.get_untracked(),
        candidates: Candidates::Needles,
    };
    vs.error.set(None);
    let what = format!("Re-scoring {} outputs", outs.outputs.len());
    runner.spawn(Job::new(what.clone()), move |ctx| async move {
        let outputs = outs.outputs.clone();
        let (usable, dataset_findings) = verify::scorable_outputs(&outputs, &dataset);
        let mut results: IndexMap<String, Vec<TaskResult>> = IndexMap::new();
        let total = usable.len();
        ctx.progress(what, 0, total);
        let id = ctx.wait_for(engine::dataset(&dataset, &dname)).await?;
        for (k, chunk) in usable.chunks(RESCORE_CHUNK).enumerate() {
            let batch: Vec<_> = chunk.iter().map(|&i| outputs[i].clone()).collect();
            let request = Request::Evaluate { dataset: id, options, outputs: batch };
            let reply = ctx.wait_for(engine::call(&request)).await?;
            let Reply::Evaluate { evaluations } = reply else {
                return Err(UiError::invalid(
                    "the engine answered another question than re-scoring",
                ));
            };
            if evaluations.len() != chunk.len() {
                return Err(UiError::invalid(format!(
                    "the engine scored {} of {} outputs",
                    evaluations.len(),
                    chunk.len()
                )));
            }
            for (&i, e) in chunk.iter().zip(evaluations) {
                let o = &outputs[i];
                let e = e.map_err(UiError::Invalid)?;
                results.entry(o.language.clone()).or_default().push(task_result(o, &e));
            }
            ctx.check().map_err(|_| {
                UiError::cancelled("Re-scoring cancelled; the report is unchanged.")
            })?;
            let done = (k * RESCORE_CHUNK + chunk.len()).min(total);
            ctx.count(done, total);
            ctx.tick(done, total).await.map_err(|_| {
                UiError::cancelled("Re-scoring cancelled; the report is unchanged.")
            })?;
        }
        let mut report = Report::of_file(&name, &file);
        let mut findings = dataset_findings;
        for e in &outs.errors {
            findings.push(Finding::OutputsLine { line: e.line, message: e.message.clone() });
        }
        let differing = verify::finish_rescore(
            &mut report,
            &file,
            &outputs,
            &outs.name,
            &dataset,
            &dname,
            options,
            findings,
            &results,
        );
        // Which other options explain the differing records: the engine
        // re-scores them with each.
        if !differing.tasks.is_empty() {
            let request = Request::BestOptions { dataset: id, differing: Box::new(differing.clone()) };
            let best = match ctx.wait_for(engine::call(&request)).await? {
                Reply::BestOptions { best } => best,
                _ => {
                    return Err(UiError::invalid(
                        "the engine answered another question than which options explain the differences",
                    ))
                }
            };
            report.findings.extend(differing.note(best));
        }
        ctx.done_flawed(
            format!("Re-scored {total} tasks: {}.", report.verdict_text()),
            !report.ok(),
        );
        vs.focus_pending.set(true);
        vs.report.set(Some(report));
        Ok(())
    });
}

/// The leaderboard's intervals at its threshold and level, a model at a
/// time on the main job line (a 500-task model takes two bootstraps of
/// 10,000 resamples). A job whose threshold, level or files changed
/// before it ran or while it runs stops quietly: the newest one fills in.
pub fn leaderboard_evidence(st: LeaderboardState, runner: Runner) {
    let Some(stamp) = st.evidence_stamp() else { return };
    if st.evidence.with_untracked(|e| e.stamp == Some(stamp) && e.complete) {
        return;
    }
    let level = f64::from_bits(stamp.1);
    let what = format!("Intervals at {}%", 100.0 * level);
    runner.spawn(Job::new(what.clone()).queue(), move |ctx| async move {
        if st.evidence_stamp() != Some(stamp) {
            return Ok(());
        }
        let t = f64::from_bits(stamp.0);
        let resampling = Resampling::at(level);
        let models: Vec<(String, String, Arc<repoqa::report::ScoresFile>)> =
            st.files.with_untracked(|fs| {
                fs.iter()
                    .flat_map(|f| {
                        f.file.models.keys().map(|m| (f.source.clone(), m.clone(), f.file.clone()))
                    })
                    .collect()
            });
        st.evidence.set(BoardEvidence { stamp: Some(stamp), tables: Vec::new(), complete: false });
        let total = models.len();
        ctx.progress(format!("{what}: {total} models"), 0, total);
        for (i, (source, model, file)) in models.into_iter().enumerate() {
            if st.evidence_stamp() != Some(stamp) {
                return Ok(());
            }
            let Some(scores) = file.models.get(&model) else { continue };
            let table = model_row(&model, &source, &scores.results, t).evidence(t, resampling);
            st.evidence.update(|e| {
                if e.stamp == Some(stamp) {
                    e.tables.push(((source, model), table));
                }
            });
            ctx.tick(i + 1, total)
                .await
                .map_err(|_| UiError::cancelled("Intervals cancelled; tick the box again to compute them."))?;
        }
        st.evidence.update(|e| e.complete = e.stamp == Some(stamp));
        ctx.done(format!(
            "{what} of {total} models: Wilson, and bootstrap by task and by repository ({} resamples, seed {}).",
            resampling.resamples, resampling.seed
        ));
        Ok(())
    });
}
