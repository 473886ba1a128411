//! Re-scoring a file's model outputs and comparing, task by task, with
//! the file's records; when they differ, which other scoring options
//! reproduce the file.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::Value;

use super::finding::{show, task_ref};
use super::{
    attribute_cells, check_dataset, scorable_outputs, Finding, Report, TaskRef, VerifyError,
    SIMILARITY_TOLERANCE,
};
use crate::input::dataset::Dataset;
use crate::report::{ModelOutput, ScoresFile, TaskResult, UnansweredScoring};
use crate::scoring::score::{task_result, Candidates, ScoreOptions, Scorer};

type Key<'a> = (&'a str, &'a str, &'a str, usize);

/// `(language, repo, name, occurrence)` → (index, record), for each task.
fn keyed(results: &IndexMap<String, Vec<TaskResult>>) -> IndexMap<Key<'_>, (usize, &TaskResult)> {
    let mut out = IndexMap::new();
    let mut count: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (lang, tasks) in results {
        for (i, t) in tasks.iter().enumerate() {
            let c = count.entry((lang.as_str(), t.repo.as_str(), t.name.as_str())).or_default();
            out.insert((lang.as_str(), t.repo.as_str(), t.name.as_str(), *c), (i, t));
            *c += 1;
        }
    }
    out
}

/// The file's per-task records against a re-scoring's, task by task
/// (matched by language, repo and needle, so a missing or extra task is
/// named rather than shifting every later one).
pub fn compare_tasks(
    model: &str,
    file: &IndexMap<String, Vec<TaskResult>>,
    rescored: &IndexMap<String, Vec<TaskResult>>,
) -> Vec<Finding> {
    let model_s = model.to_string();
    let mut out = Vec::new();
    let fl: Vec<String> = file.keys().cloned().collect();
    let rl: Vec<String> = rescored.keys().cloned().collect();
    let mut fs = fl.clone();
    let mut rs = rl.clone();
    fs.sort();
    rs.sort();
    if fl != rl && fs == rs {
        out.push(Finding::LanguageOrder { model: model_s.clone(), in_file: fl, rescored: rl });
    }
    let file_keyed = keyed(file);
    let ours_keyed = keyed(rescored);
    for (key, (i, o)) in &ours_keyed {
        let Some((fi, f)) = file_keyed.get(key) else {
            out.push(Finding::MissingTask { model: model_s.clone(), task: task_ref(key.0, *i, o) });
            continue;
        };
        let task = task_ref(key.0, *fi, f);
        let (Value::Object(fv), Value::Object(ov)) = (f.to_value(), o.to_value()) else {
            continue;
        };
        for (field, our_v) in &ov {
            let file_v = fv.get(field);
            let (a, b) = (show(file_v), show(Some(our_v)));
            if a == b {
                continue;
            }
            let close = field == "best_similar_score"
                && f.best_target.is_some()
                && o.best_target.is_some()
                && (f.score() - o.score()).abs() <= SIMILARITY_TOLERANCE;
            out.push(if close {
                Finding::Rounding {
                    model: model_s.clone(),
                    task: task.clone(),
                    in_file: a,
                    rescored: b,
                }
            } else {
                Finding::TaskField {
                    model: model_s.clone(),
                    task: task.clone(),
                    field: field.clone(),
                    in_file: a,
                    rescored: b,
                }
            });
        }
    }
    for (key, (i, f)) in &file_keyed {
        if !ours_keyed.contains_key(key) {
            out.push(Finding::ExtraTask { model: model_s.clone(), task: task_ref(key.0, *i, f) });
        }
    }
    out
}

/// The options to try when tasks differ: the other comment setting, and
/// the non-official candidate rule when the outputs carry their contexts.
pub fn alternative_options(given: ScoreOptions, have_contexts: bool) -> Vec<ScoreOptions> {
    let mut out = Vec::new();
    for candidates in [Candidates::Needles, Candidates::Context] {
        if candidates == Candidates::Context && !have_contexts {
            continue;
        }
        for ignore_comments in [false, true] {
            let o = ScoreOptions { ignore_comments, candidates };
            if o != given {
                out.push(o);
            }
        }
    }
    out
}

/// How options are written on the command line.
pub fn options_text(o: ScoreOptions) -> String {
    let mut parts = Vec::new();
    if o.ignore_comments {
        parts.push("--ignore-comments".to_string());
    }
    if o.candidates != Candidates::Needles {
        parts.push(format!("--candidates {} (not official)", o.candidates.name()));
    }
    if parts.is_empty() {
        "the official defaults".into()
    } else {
        parts.join(" ")
    }
}

/// What another set of options must give a differing task to explain the
/// file's record: its verdict, target and similarity.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Reproduce {
    pub is_best_similar: bool,
    pub best_target: Option<String>,
    pub score: f64,
}

impl Reproduce {
    pub fn of(record: &TaskResult) -> Reproduce {
        Reproduce {
            is_best_similar: record.is_best_similar,
            best_target: record.best_target.clone(),
            score: record.score(),
        }
    }

    /// Whether re-scored record `r` reproduces it (similarity up to rounding).
    pub fn by(&self, r: &TaskResult) -> bool {
        r.is_best_similar == self.is_best_similar
            && r.best_target == self.best_target
            && (r.score() - self.score).abs() <= SIMILARITY_TOLERANCE
    }
}

/// The tasks a re-scoring found differing from the file, with their
/// outputs: what [`best_options`] tries other options on. Serde: the page
/// has the compute engine try them.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Differing {
    pub model: String,
    /// The options of the re-scoring.
    pub given: ScoreOptions,
    pub tasks: Vec<(ModelOutput, Reproduce)>,
}

impl Differing {
    /// The [`Finding::OtherOptions`] note of [`best_options`]' answer.
    pub fn note(&self, best: Option<(usize, ScoreOptions)>) -> Option<Finding> {
        best.map(|(reproduced, options)| Finding::OtherOptions {
            model: self.model.clone(),
            options: options_text(options),
            reproduced,
            differing: self.tasks.len(),
        })
    }
}

/// Re-score the differing tasks with each alternative to the given
/// options: the first set that reproduces every one of them, or else the
/// one reproducing most (if any), with how many it reproduces.
pub fn best_options(differing: &Differing, dataset: &Dataset) -> Option<(usize, ScoreOptions)> {
    if differing.tasks.is_empty() {
        return None;
    }
    let have_contexts = differing.tasks.iter().all(|(o, _)| o.code_context().is_some());
    let mut best: Option<(usize, ScoreOptions)> = None;
    for options in alternative_options(differing.given, have_contexts) {
        let mut scorer = Scorer::new(dataset, options);
        let mut reproduced = 0;
        for (o, want) in &differing.tasks {
            let Ok(e) = scorer.evaluate(o) else { continue };
            reproduced += usize::from(want.by(&task_result(o, &e)));
        }
        if reproduced > best.map_or(0, |b| b.0) {
            best = Some((reproduced, options));
        }
        if reproduced == differing.tasks.len() {
            break;
        }
    }
    best
}

/// The differing tasks of a comparison, paired with their outputs.
pub fn differing_outputs<'a>(
    findings: &[Finding],
    outputs: &'a [ModelOutput],
    file: &'a IndexMap<String, Vec<TaskResult>>,
) -> Vec<(&'a ModelOutput, &'a TaskResult)> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for f in findings {
        let Finding::TaskField { task, .. } = f else { continue };
        if seen.contains(&task) {
            continue;
        }
        seen.push(task);
        let Some(record) = file.get(&task.language).and_then(|ts| ts.get(task.index)) else {
            continue;
        };
        if let Some(o) = outputs
            .iter()
            .find(|o| o.language == task.language && o.repo == task.repo && o.name == task.needle)
        {
            out.push((o, record));
        }
    }
    out
}

/// What a re-scoring was made from.
#[derive(Clone, Debug, PartialEq)]
pub struct Rescored {
    pub outputs: String,
    pub tasks: usize,
    pub options: ScoreOptions,
}

/// Re-score outputs and compare them with a single-model file: the
/// dataset check, the task comparison, the re-scored table against the
/// file's, and an options hint. `progress(done, total)` after each task.
/// The page does the scoring in slices itself and calls
/// [`finish_rescore`] with the results.
#[allow(clippy::too_many_arguments)]
pub fn rescore(
    report: &mut Report,
    file: &ScoresFile,
    outputs: &[ModelOutput],
    outputs_name: &str,
    dataset: &Dataset,
    dataset_name: &str,
    options: ScoreOptions,
    mut progress: impl FnMut(usize, usize),
) -> Result<(), VerifyError> {
    if file.models.len() != 1 {
        return Err(VerifyError::ManyModels {
            source_name: report.source.clone(),
            models: file.models.len(),
        });
    }
    let (usable, dataset_findings) = scorable_outputs(outputs, dataset);
    let mut scorer = Scorer::new(dataset, options);
    let mut results: IndexMap<String, Vec<TaskResult>> = IndexMap::new();
    for (k, &i) in usable.iter().enumerate() {
        let o = &outputs[i];
        let e = scorer.evaluate(o)?;
        results.entry(o.language.clone()).or_default().push(task_result(o, &e));
        progress(k + 1, usable.len());
    }
    let differing = finish_rescore(
        report,
        file,
        outputs,
        outputs_name,
        dataset,
        dataset_name,
        options,
        dataset_findings,
        &results,
    );
    let note = differing.note(best_options(&differing, dataset));
    report.findings.extend(note);
    Ok(())
}

/// The comparison half of [`rescore`], given the re-scored records (in
/// outputs order) and the findings of [`scorable_outputs`]: the tasks that
/// differ come back, for [`best_options`] (whose [`Differing::note`] goes
/// last into the report).
#[allow(clippy::too_many_arguments)]
pub fn finish_rescore(
    report: &mut Report,
    file: &ScoresFile,
    outputs: &[ModelOutput],
    outputs_name: &str,
    dataset: &Dataset,
    dataset_name: &str,
    options: ScoreOptions,
    dataset_findings: Vec<Finding>,
    rescored: &IndexMap<String, Vec<TaskResult>>,
) -> Differing {
    let Some((model, ms)) = file.models.iter().next() else { return Differing::default() };
    report.dataset = Some(dataset_name.to_string());
    report.findings.extend(check_dataset(model, ms, dataset));
    for f in dataset_findings {
        if !report.findings.contains(&f) {
            report.findings.push(f);
        }
    }
    let with_unanswered;
    let rescored = match &ms.unanswered {
        Some(u) if u.scoring == UnansweredScoring::Failures => {
            with_unanswered = add_no_answers(&ms.results, rescored, &u.tasks);
            &with_unanswered
        }
        _ => rescored,
    };
    let compared = compare_tasks(model, &ms.results, rescored);
    let fixes = rescored_fixes(&compared, rescored);
    attribute_cells(&mut report.findings, model, ms, &fixes);
    let tasks = differing_outputs(&compared, outputs, &ms.results)
        .into_iter()
        .map(|(o, r)| (o.clone(), Reproduce::of(r)))
        .collect();
    report.findings.extend(compared);
    report.rescored = Some(Rescored {
        outputs: outputs_name.to_string(),
        tasks: rescored.values().map(Vec::len).sum(),
        options,
    });
    Differing { model: model.clone(), given: options, tasks }
}

/// The file's records that differ from the re-scoring (not by rounding
/// alone), each with its re-scored record.
fn rescored_fixes(
    compared: &[Finding],
    rescored: &IndexMap<String, Vec<TaskResult>>,
) -> Vec<(TaskRef, TaskResult)> {
    let mut out: Vec<(TaskRef, TaskResult)> = Vec::new();
    for f in compared {
        let Finding::TaskField { task, .. } = f else { continue };
        if out.iter().any(|(t, _)| t == task) {
            continue;
        }
        let Some(r) = rescored
            .get(&task.language)
            .and_then(|rs| rs.iter().find(|r| r.repo == task.repo && r.name == task.needle))
        else {
            continue;
        };
        out.push((task.clone(), r.clone()));
    }
    out
}

/// The re-scoring plus, for each task the file lists as unanswered and
/// scored as a failure that the outputs do not answer, the record an empty
/// reply gets (no target, similarity 0), with the file's own task fields:
/// a file that passes such a task is then a mismatch.
fn add_no_answers(
    file: &IndexMap<String, Vec<TaskResult>>,
    rescored: &IndexMap<String, Vec<TaskResult>>,
    unanswered: &[String],
) -> IndexMap<String, Vec<TaskResult>> {
    let listed: std::collections::HashSet<&str> = unanswered.iter().map(String::as_str).collect();
    let mut out = rescored.clone();
    for (lang, records) in file {
        for r in records {
            let id = crate::report::task_id(lang, &r.repo, &r.name);
            let have = rescored
                .get(lang)
                .is_some_and(|rs| rs.iter().any(|o| o.repo == r.repo && o.name == r.name));
            if listed.contains(id.as_str()) && !have {
                out.entry(lang.clone()).or_default().push(TaskResult {
                    is_best_similar: false,
                    best_similar_score: 0.into(),
                    best_target: None,
                    ..r.clone()
                });
            }
        }
    }
    out
}
