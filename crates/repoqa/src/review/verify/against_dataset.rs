//! A SCORES file against a dataset: tasks whose needle the dataset lacks,
//! needles without a task (a partial run), outputs it cannot score.

use super::{DatasetProblem, Finding, Report};
use crate::input::dataset::Dataset;
use crate::input::freshness::freshness;
use crate::report::{ModelOutput, ModelScores, ScoresFile};

/// A model's tasks against a dataset's needles: tasks whose needle the
/// dataset lacks (mismatches), then one coverage note if some needles of
/// the dataset have no task in the file (a partial run).
pub fn check_dataset(model: &str, ms: &ModelScores, dataset: &Dataset) -> Vec<Finding> {
    let results = &ms.results;
    let mut out = Vec::new();
    let fresh = freshness(dataset).map(|f| f.earliest.to_string());
    if ms.dataset_freshness != fresh {
        out.push(Finding::Freshness {
            model: model.to_string(),
            in_file: ms.dataset_freshness.clone(),
            dataset: fresh,
        });
    }
    let mut seen: std::collections::HashSet<(&str, &str, &str)> = Default::default();
    for (lang, tasks) in results {
        let repos = dataset.repos(lang);
        for t in tasks {
            seen.insert((lang.as_str(), t.repo.as_str(), t.name.as_str()));
            let problem = match repos {
                None => Some(DatasetProblem::LanguageMissing),
                Some(repos) => match repos.iter().find(|r| r.repo == t.repo) {
                    None => Some(DatasetProblem::RepoMissing),
                    Some(r) if !r.needles.iter().any(|n| n.name == t.name) => {
                        Some(DatasetProblem::NeedleMissing)
                    }
                    Some(_) => None,
                },
            };
            if let Some(problem) = problem {
                out.push(Finding::Dataset {
                    language: lang.clone(),
                    repo: t.repo.clone(),
                    needle: Some(t.name.clone()),
                    problem,
                });
            }
        }
    }
    let declared: std::collections::HashSet<&str> =
        ms.unanswered.iter().flat_map(|u| u.tasks.iter().map(String::as_str)).collect();
    let (mut needles, mut missing) = (0, Vec::new());
    for (lang, repos) in &dataset.languages {
        for r in repos {
            for n in &r.needles {
                needles += 1;
                if !seen.contains(&(lang.as_str(), r.repo.as_str(), n.name.as_str())) {
                    missing.push(crate::report::task_id(lang, &r.repo, &n.name));
                }
            }
        }
    }
    // One finding per missing language or repo is enough.
    out.dedup_by(|a, b| match (a, b) {
        (
            Finding::Dataset { language: l1, repo: r1, problem: p1, .. },
            Finding::Dataset { language: l2, repo: r2, problem: p2, .. },
        ) => {
            l1 == l2
                && p1 == p2
                && (*p1 == DatasetProblem::LanguageMissing
                    || (*p1 == DatasetProblem::RepoMissing && r1 == r2))
        }
        _ => false,
    });
    if !missing.is_empty() {
        out.push(Finding::Coverage {
            model: model.to_string(),
            with_task: needles - missing.len(),
            needles,
            declared: missing.iter().filter(|id| declared.contains(id.as_str())).count(),
            missing,
        });
    }
    out
}

/// Outputs the dataset can score, and a finding for each it cannot (its
/// language or repo is missing). Their indexes into `outputs` are returned.
pub fn scorable_outputs(outputs: &[ModelOutput], dataset: &Dataset) -> (Vec<usize>, Vec<Finding>) {
    let mut ok = Vec::new();
    let mut findings = Vec::new();
    for (i, o) in outputs.iter().enumerate() {
        let problem = match dataset.repos(&o.language) {
            None => Some(DatasetProblem::LanguageMissing),
            Some(repos) => match repos.iter().find(|r| r.repo == o.repo) {
                None => Some(DatasetProblem::RepoMissing),
                Some(r) if !r.needles.iter().any(|n| n.name == o.name) => {
                    // Scorable (it just cannot pass), but say so.
                    findings.push(Finding::Dataset {
                        language: o.language.clone(),
                        repo: o.repo.clone(),
                        needle: Some(o.name.clone()),
                        problem: DatasetProblem::NeedleMissing,
                    });
                    None
                }
                Some(_) => None,
            },
        };
        match problem {
            Some(problem) => findings.push(Finding::Dataset {
                language: o.language.clone(),
                repo: o.repo.clone(),
                needle: Some(o.name.clone()),
                problem,
            }),
            None => ok.push(i),
        }
    }
    (ok, findings)
}

/// Whether the dataset holds at least one repository the file's tasks come
/// from: a dataset that shares none (the demo, for a published file) is
/// another benchmark, and comparing needles with it says nothing.
pub fn shares_repos(file: &ScoresFile, dataset: &Dataset) -> bool {
    file.models.values().any(|ms| {
        ms.results.iter().any(|(lang, tasks)| {
            dataset
                .repos(lang)
                .is_some_and(|repos| tasks.iter().any(|t| repos.iter().any(|r| r.repo == t.repo)))
        })
    })
}

/// The dataset check alone (no outputs): the file's tasks against the
/// dataset's needles.
pub fn add_dataset_check(
    report: &mut Report,
    file: &ScoresFile,
    dataset: &Dataset,
    dataset_name: &str,
) {
    report.dataset = Some(dataset_name.to_string());
    for (model, ms) in &file.models {
        report.findings.extend(check_dataset(model, ms, dataset));
    }
}
