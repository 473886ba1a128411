//! Verifying a reported score: a `-SCORES.json` checked against its own
//! per-task records, against a dataset, and against a re-scoring of the
//! model outputs. Every difference is a typed [`Finding`] that names the
//! cell or the task (language, repo, needle) and shows what the file has
//! against what was recomputed. `repoqa verify` and the Verify page both
//! print these findings; [`Report`] writes them as JSON and as a readable
//! summary.
//!
//! Values are compared as the text Python would write (docs/parity.md J2),
//! so `0` against `0.0` or a last-bit difference counts — except that a
//! similarity within 1e-12 of the file's is a note, not a mismatch
//! (docs/parity.md S5: a libm may differ from CPython's in the last bit).

use thiserror::Error;

use crate::scoring::score::ScoreError;

mod against_dataset;
mod finding;
mod records;
mod rescore;
mod summary;

pub use against_dataset::{add_dataset_check, check_dataset, scorable_outputs, shares_repos};
pub use finding::{DatasetProblem, Finding, TaskRef};
pub use records::{attribute_cells, check_file, check_records, check_table};
pub use rescore::{
    alternative_options, best_options, compare_tasks, differing_outputs, finish_rescore,
    options_text, rescore, Differing, Reproduce, Rescored,
};
pub use summary::{ModelSummary, Report, RowPair, HEADLINE_KEY};

/// Similarities closer than this are the same up to libm rounding (S5).
pub const SIMILARITY_TOLERANCE: f64 = 1e-12;

#[derive(Debug, Error)]
pub enum VerifyError {
    #[error("{source_name}: holds {models} models; re-scoring needs a single-model file")]
    ManyModels { source_name: String, models: usize },
    #[error(transparent)]
    Score(#[from] ScoreError),
}
#[cfg(test)]
mod tests {
    use indexmap::IndexMap;
    use serde_json::Value;

    use super::*;
    use crate::input::dataset::Dataset;
    use crate::report::{ModelScores, ScoresFile, UnansweredScoring};
    use crate::scoring::score::{pass_table, Candidates, ScoreOptions};
    use serde_json::{json, Number};

    use crate::report::test_record as rec;

    fn model_scores() -> ModelScores {
        let mut results = IndexMap::new();
        results.insert(
            "python".to_string(),
            vec![rec("f", Some("f"), 0.9), rec("g", Some("f"), 0.7), rec("h", None, 0.0)],
        );
        results.insert("rust".to_string(), vec![rec("r", Some("r"), 0.85)]);
        let scores = pass_table(&results).unwrap().to_value();
        ModelScores {
            eval_date: "d".into(),
            train_size: "N/A".into(),
            scores,
            results,
            protocol: Default::default(),
            dataset_freshness: None,
            model_cutoff: None,
            unanswered: None,
            replies: Default::default(),
        }
    }

    #[test]
    fn a_clean_file_has_no_findings() {
        let file = ScoresFile::single("m", model_scores());
        let r = Report::of_file("m-SCORES.json", &file);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert!(r.ok());
        assert!(r.summary_text().contains("verified, no mismatch"));
        // The numbers the verdict confirms: each row at 0.8, file beside ours.
        let h = &r.models[0].headline;
        assert_eq!(h.iter().map(|p| p.row.as_str()).collect::<Vec<_>>(), ["all", "python", "rust"]);
        assert!(h.iter().all(RowPair::agrees), "{h:?}");
        assert_eq!((h[1].n, h[1].recomputed), (3, 1.0 / 3.0));
        let mut ms = model_scores();
        ms.scores["python"]["0.8"]["pass@1"] = json!(0.9);
        let r = Report::of_file("x", &ScoresFile::single("m", ms));
        let python = &r.models[0].headline[1];
        assert_eq!((python.in_file, python.agrees()), (Some(0.9), false));
    }

    #[test]
    fn an_edited_cell_is_named_with_its_counts() {
        let mut ms = model_scores();
        ms.scores["python"]["0.6"]["pass@1"] = json!(0.5);
        let f = check_table("m", &ms);
        assert_eq!(
            f,
            [Finding::Cell {
                model: "m".into(),
                row: "python".into(),
                threshold: "0.6".into(),
                in_file: Some("0.5".into()),
                recomputed: "0.3333333333333333".into(),
                passed: 1,
                n: 3,
                follows_from: Vec::new(),
            }]
        );
        assert_eq!(
            f[0].to_string(),
            "scores.python.0.6: file has 0.5, recomputed 0.3333333333333333 (1/3 tasks pass)"
        );
    }

    #[test]
    fn a_flipped_verdict_is_pinpointed_without_outputs() {
        let mut ms = model_scores();
        ms.results["python"][1].is_best_similar = true;
        let f = check_records("m", &ms.results);
        assert_eq!(f.len(), 1);
        let t = f[0].task().unwrap();
        assert_eq!(
            (t.language.as_str(), t.index, t.repo.as_str(), t.needle.as_str()),
            ("python", 1, "a/b", "g")
        );
        assert!(
            f[0].to_string().contains("is_best_similar is true but best_target is \"f\""),
            "{}",
            f[0]
        );
        // The table, recomputed from the edited records, no longer matches.
        assert!(check_table("m", &ms)
            .iter()
            .any(|f| matches!(f, Finding::Cell { row, .. } if row == "python")));
    }

    #[test]
    fn fields_of_the_wrong_type_or_range_are_findings() {
        let mut ms = model_scores();
        assert!(check_records("m", &ms.results).is_empty());
        ms.results["python"][0].needle_position = Value::String("abc".into());
        ms.results["python"][1].needle_position = serde_json::json!(1.5);
        ms.results["python"][2].token_start = serde_json::json!(-3);
        ms.results["rust"][0].token_start = serde_json::json!(9);
        ms.results["rust"][0].token_end = serde_json::json!(2);
        let f: Vec<String> =
            check_records("m", &ms.results).iter().map(|f| f.to_string()).collect();
        assert_eq!(f.len(), 4, "{f:#?}");
        assert!(f[0].ends_with("needle_position is \"abc\", not a number in [0, 1]"), "{}", f[0]);
        assert!(f[1].ends_with("needle_position is 1.5, not a number in [0, 1]"), "{}", f[1]);
        assert!(
            f[2].ends_with("position.token_start is -3, not a whole number of tokens"),
            "{}",
            f[2]
        );
        assert!(f[3].ends_with("position.token_start 9 is past token_end 2"), "{}", f[3]);
    }

    #[test]
    fn task_comparison_names_fields_missing_and_extra_tasks() {
        let file = model_scores().results;
        let mut ours = file.clone();
        ours["python"][0] = rec("f", Some("g"), 0.95);
        ours["python"].remove(2);
        ours["rust"].push(rec("s", None, 0.0));
        ours["rust"][0].best_similar_score = Number::from_f64(0.85 + 1e-15).unwrap();
        let f = compare_tasks("m", &file, &ours);
        let kinds: Vec<&str> = f.iter().map(Finding::kind).collect();
        assert_eq!(
            kinds,
            ["task-field", "task-field", "task-field", "rounding", "missing-task", "extra-task"],
            "{f:#?}"
        );
        assert_eq!(
            f[0].to_string(),
            "task python a/b f (results.python[0]): is_best_similar: file has true, re-scored false"
        );
        assert!(f[1].to_string().contains("best_similar_score: file has 0.9, re-scored 0.95"));
        assert!(f[2].to_string().contains("best_target: file has \"f\", re-scored \"g\""));
        assert!(!f[3].is_mismatch());
        assert_eq!(f[4].task().unwrap().needle, "s");
        assert_eq!(f[5].task().unwrap().needle, "h");
    }

    #[test]
    fn dataset_needles_are_compared() {
        let d = Dataset::from_value(
            json!({"python": [{"repo": "a/b", "content": {"m.py": "x\n"}, "dependency": {"m.py": []},
                "functions": {}, "needles": [
                    {"name": "f", "start_line": 0, "end_line": 1, "start_byte": 0, "end_byte": 1, "path": "m.py", "description": "d"},
                    {"name": "g", "start_line": 0, "end_line": 1, "start_byte": 0, "end_byte": 1, "path": "m.py", "description": "d"},
                    {"name": "k", "start_line": 0, "end_line": 1, "start_byte": 0, "end_byte": 1, "path": "m.py", "description": "d"}
                ]}]}),
            "d.json",
        )
        .unwrap();
        let ms = model_scores();
        let f = check_dataset("m", &ms, &d);
        let got: Vec<(String, DatasetProblem)> = f
            .iter()
            .filter_map(|f| match f {
                Finding::Dataset { needle, problem, .. } => {
                    Some((needle.clone().unwrap_or_default(), problem.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            [
                ("h".to_string(), DatasetProblem::NeedleMissing),
                ("r".to_string(), DatasetProblem::LanguageMissing)
            ]
        );
        // The needle without a task is one coverage note, not a mismatch.
        let last = f.last().unwrap();
        assert_eq!(last.kind(), "coverage");
        assert!(!last.is_mismatch());
        assert_eq!(
            last.to_string(),
            "coverage: 2 of 3 needles of the dataset have a task in the file; 1 have none (python::a/b::k): the scores cover only the file's tasks"
        );
        // Listed as unanswered: said so.
        let mut partial = ms.clone();
        partial.unanswered = Some(crate::report::Unanswered {
            scoring: UnansweredScoring::AnsweredOnly,
            tasks: vec!["python::a/b::k".into()],
        });
        let f = check_dataset("m", &partial, &d);
        assert!(f.last().unwrap().to_string().ends_with("; the other 1 are listed as unanswered"));
    }

    #[test]
    fn cells_that_follow_from_a_flipped_verdict_are_grouped_under_it() {
        let mut ms = model_scores();
        ms.results["python"][1].is_best_similar = true;
        let r = Report::of_file("x", &ScoresFile::single("m", ms.clone()));
        let grouped = r.grouped();
        assert_eq!(r.mismatches(), 1, "{:#?}", r.findings);
        assert!(r.derived() > 0);
        assert_eq!(grouped.len(), 1, "{grouped:#?}");
        assert_eq!(grouped[0].0.kind(), "inconsistent-record");
        assert!(grouped[0].1.iter().all(|c| c.is_derived() && !c.is_mismatch()));
        assert!(
            r.summary_text().contains("  follows from it: scores.python."),
            "{}",
            r.summary_text()
        );
        assert_eq!(r.to_value()["derived_cells"], json!(r.derived()));

        // A cell edited besides stands on its own.
        ms.scores["rust"]["0.0"]["pass@1"] = json!(0.1);
        let r = Report::of_file("x", &ScoresFile::single("m", ms));
        assert_eq!(r.mismatches(), 2, "{:#?}", r.findings);
        assert!(r.verdict_text().starts_with("2 mismatches, and "), "{}", r.verdict_text());
    }

    #[test]
    fn report_json_and_options() {
        let mut ms = model_scores();
        ms.scores["all"]["0.0"]["pass@1"] = json!(0.1);
        let r = Report::of_file("x", &ScoresFile::single("m", ms));
        let v = r.to_value();
        assert_eq!(v["ok"], json!(false));
        assert_eq!(v["findings"][0]["kind"], json!("cell"));
        assert_eq!(v["findings"][0]["row"], json!("all"));
        assert!(r.summary_text().contains("MISMATCH m: scores.all.0.0: file has 0.1"));
        assert_eq!(alternative_options(ScoreOptions::default(), false).len(), 1);
        assert_eq!(alternative_options(ScoreOptions::default(), true).len(), 3);
        assert_eq!(
            options_text(ScoreOptions { ignore_comments: true, candidates: Candidates::Needles }),
            "--ignore-comments"
        );
    }
}
