//! Verification catches and pinpoints tampering:
//! - a published SCORES file (tests/fixtures/published-scores/) with one
//!   task's verdict flipped, or one table cell edited, is rejected by the
//!   file-only checks, naming the task (language, repo, needle) or the cell;
//! - a SCORES file scored from outputs on the demo dataset, tampered
//!   consistently (one task given another best target and its table
//!   recomputed, so the file agrees with itself), is caught by re-scoring,
//!   naming the task and the fields; a missing task, a file scored with
//!   --ignore-comments and a dataset whose needles differ are named too.

use std::io::Read;
use std::path::PathBuf;

use indexmap::IndexMap;
use repoqa::input::dataset::Dataset;
use repoqa::report::{read_model_outputs, ModelOutput, ScoresFile, TaskResult};
use repoqa::review::verify::{self, DatasetProblem, Finding, Report};
use repoqa::scoring::run::score_outputs;
use repoqa::scoring::score::{pass_table, Candidates, ScoreOptions};
use serde_json::{json, Number};

fn root() -> PathBuf {
    repoqa_testkit::root()
}

fn published(name: &str) -> String {
    let path = root().join("tests/fixtures/published-scores").join(format!("{name}.gz"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn published_file_with_a_flipped_task_and_an_edited_cell() {
    let text = published("gpt-4o-2024-05-13-SCORES.json");
    let clean = ScoresFile::parse(&text, "gpt-4o").unwrap();
    assert!(Report::of_file("gpt-4o", &clean).ok());

    // One flipped verdict: python[7] passes in the file; say it did not.
    let mut flipped = clean.clone();
    let ms = flipped.models.get_index_mut(0).unwrap().1;
    let t = &mut ms.results["python"][7];
    assert!(t.is_best_similar);
    t.is_best_similar = false;
    let (repo, needle) = (t.repo.clone(), t.name.clone());
    let r = Report::of_file("flipped-SCORES.json", &flipped);
    assert!(!r.ok());
    let tasks: Vec<_> = r.findings.iter().filter_map(Finding::task).collect();
    assert_eq!(tasks.len(), 1, "{:#?}", r.findings);
    assert_eq!(
        (
            tasks[0].language.as_str(),
            tasks[0].index,
            tasks[0].repo.as_str(),
            tasks[0].needle.as_str()
        ),
        ("python", 7, repo.as_str(), needle.as_str())
    );
    let cells: Vec<(String, String)> = r
        .findings
        .iter()
        .filter_map(|f| match f {
            Finding::Cell { row, threshold, .. } => Some((row.clone(), threshold.clone())),
            _ => None,
        })
        .collect();
    assert!(cells.contains(&("python".into(), "0.0".into())), "{cells:?}");
    assert!(cells.contains(&("all".into(), "0.0".into())), "{cells:?}");
    // The cells follow from the flipped record: one mismatch, the cells
    // grouped under it.
    assert_eq!(r.mismatches(), 1, "{:#?}", r.findings);
    assert_eq!(r.derived(), cells.len());
    let grouped = r.grouped();
    assert_eq!(grouped.len(), 1);
    assert_eq!(grouped[0].1.len(), cells.len());
    println!("verify_tampered: flipped python[7] ({repo} {needle}):");
    for f in &r.findings {
        println!("  {f}");
    }

    // One edited cell.
    let mut edited = clean.clone();
    edited.models.get_index_mut(0).unwrap().1.scores["java"]["0.8"]["pass@1"] = json!(0.9);
    let r = Report::of_file("edited-SCORES.json", &edited);
    assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
    assert_eq!(
        r.findings[0].to_string(),
        "scores.java.0.8: file has 0.9, recomputed 0.96 (96/100 tasks pass)"
    );
    println!("verify_tampered: edited cell: {}", r.findings[0]);
}

/// Demo outputs: each needle's own code in a fenced block, except that
/// every fifth reply repeats the next needle instead. `comment` adds a
/// trailing comment to the first line of each reply.
fn demo_outputs(dataset: &Dataset, comment: bool) -> Vec<ModelOutput> {
    let mut text = String::new();
    for (lang, repos) in &dataset.languages {
        let cp = if lang == "python" { "#" } else { "//" };
        for r in repos {
            for (i, n) in r.needles.iter().enumerate() {
                let pick = if i % 5 == 4 { &r.needles[(i + 1) % r.needles.len()] } else { n };
                let mut code =
                    r.reference_text(&pick.path, pick.start_line, pick.end_line).unwrap();
                if comment {
                    let first = code.find('\n').unwrap_or(code.len());
                    code.insert_str(
                        first,
                        &format!(" {cp} reviewers: an added comment, several words long"),
                    );
                }
                let line = json!({
                    "repo": r.repo, "name": n.name, "language": lang,
                    "position_ratio": (i as f64 + 0.5) / r.needles.len() as f64,
                    "needle_token_start": 100 * i, "needle_token_end": 100 * i + 50,
                    "description": format!("\nFunction Description:{}\n", n.description),
                    "output": [format!("Here it is:\n```{lang}\n{code}\n```\n")],
                });
                text.push_str(&serde_json::to_string(&line).unwrap());
                text.push('\n');
            }
        }
    }
    let f = read_model_outputs(&text);
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    f.outputs
}

fn demo_dataset() -> Dataset {
    Dataset::from_file(&root().join("public/demo/repoqa-demo.json")).unwrap()
}

fn scores_file(dataset: &Dataset, outputs: &[ModelOutput], options: ScoreOptions) -> ScoresFile {
    let run = score_outputs(dataset, options, outputs, |_, _| {}).unwrap().run;
    ScoresFile::single(
        "demo-model",
        run.model_scores("demo-model", "2026-01-01 00:00:00", Some("N/A")),
    )
}

fn with_table(mut file: ScoresFile) -> ScoresFile {
    let ms = file.models.get_index_mut(0).unwrap().1;
    ms.scores = pass_table(&ms.results).unwrap().to_value();
    file
}

fn verify_all(
    file: &ScoresFile,
    outputs: &[ModelOutput],
    dataset: &Dataset,
    options: ScoreOptions,
) -> Report {
    let mut report = Report::of_file("demo-model-SCORES.json", file);
    verify::rescore(
        &mut report,
        file,
        outputs,
        "demo.jsonl",
        dataset,
        "repoqa-demo.json",
        options,
        |_, _| {},
    )
    .unwrap();
    report
}

fn results_mut(file: &mut ScoresFile) -> &mut IndexMap<String, Vec<TaskResult>> {
    &mut file.models.get_index_mut(0).unwrap().1.results
}

#[test]
fn rescoring_pinpoints_a_consistently_tampered_task() {
    let dataset = demo_dataset();
    let outputs = demo_outputs(&dataset, false);
    let options = ScoreOptions::default();
    let file = scores_file(&dataset, &outputs, options);
    let clean = verify_all(&file, &outputs, &dataset, options);
    assert!(clean.ok(), "{}", clean.summary_text());
    assert_eq!(clean.rescored.as_ref().unwrap().tasks, 60);

    // java[2] passes; make the file say it picked another needle.
    let mut tampered = file.clone();
    let t = &mut results_mut(&mut tampered)["java"][2];
    assert!(t.is_best_similar);
    let (repo, needle) = (t.repo.clone(), t.name.clone());
    t.best_target = Some("deposit".into());
    t.is_best_similar = false;
    t.best_similar_score = Number::from_f64(0.61).unwrap();
    let tampered = with_table(tampered);
    assert!(Report::of_file("x", &tampered).ok(), "consistent with itself");
    let r = verify_all(&tampered, &outputs, &dataset, options);
    assert!(!r.ok());
    let fields: Vec<String> = r
        .findings
        .iter()
        .filter_map(|f| match f {
            Finding::TaskField { task, field, .. } => {
                assert_eq!((task.language.as_str(), task.index), ("java", 2));
                assert_eq!(
                    (task.repo.as_str(), task.needle.as_str()),
                    (repo.as_str(), needle.as_str())
                );
                Some(field.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(fields, ["is_best_similar", "best_similar_score", "best_target"]);
    let summary = r.summary_text();
    assert!(
        summary.contains(&format!(
            "MISMATCH demo-model: task java {repo} {needle} (results.java[2]): best_target: file has \"deposit\", re-scored \"{needle}\""
        )),
        "{summary}"
    );
    println!("verify_tampered: consistent tamper caught by re-scoring:\n{summary}");

    // A task left out of the file.
    let mut missing = file.clone();
    let gone = results_mut(&mut missing)["go"].remove(3);
    let missing = with_table(missing);
    let r = verify_all(&missing, &outputs, &dataset, options);
    let named: Vec<String> =
        r.findings.iter().filter(|f| f.is_mismatch()).map(|f| f.to_string()).collect();
    assert!(
        named.iter().any(|s| s.contains(&format!("go {} {}", gone.repo, gone.name))
            && s.contains("in the outputs but not in the file")),
        "{named:#?}"
    );
    // The dataset's needle without a task: the coverage note, not a
    // mismatch of its own.
    let coverage = r.findings.iter().find(|f| f.kind() == "coverage").expect("a coverage note");
    assert!(!coverage.is_mismatch());
    assert!(
        coverage.to_string().starts_with("coverage: 59 of 60 needles")
            && coverage.to_string().contains(&gone.name),
        "{coverage}"
    );
}

#[test]
fn a_file_made_with_other_options_is_recognised() {
    let dataset = demo_dataset();
    let outputs = demo_outputs(&dataset, true);
    let ic = ScoreOptions { ignore_comments: true, candidates: Candidates::Needles };
    let file = scores_file(&dataset, &outputs, ic);
    assert!(verify_all(&file, &outputs, &dataset, ic).ok());
    let r = verify_all(&file, &outputs, &dataset, ScoreOptions::default());
    assert!(!r.ok());
    let hint = r.findings.iter().find_map(|f| match f {
        Finding::OtherOptions { options, reproduced, differing, .. } => {
            Some((options.clone(), *reproduced, *differing))
        }
        _ => None,
    });
    let (options, reproduced, differing) = hint.expect("an options hint");
    assert_eq!(options, "--ignore-comments");
    assert_eq!(reproduced, differing);
    assert!(differing > 0);
    println!("verify_tampered: scored with --ignore-comments, verified without: {differing} tasks differ, all reproduced with {options}");
}

#[test]
fn a_dataset_whose_needles_differ_is_named() {
    let dataset = demo_dataset();
    let outputs = demo_outputs(&dataset, false);
    let file = scores_file(&dataset, &outputs, ScoreOptions::default());
    let mut other = dataset.clone();
    other.languages["rust"][0].needles[1].name = "renamed_needle".into();
    let mut report = Report::of_file("x", &file);
    verify::add_dataset_check(&mut report, &file, &other, "other.json");
    let got: Vec<(Option<String>, DatasetProblem)> = report
        .findings
        .iter()
        .filter_map(|f| match f {
            Finding::Dataset { needle, problem, .. } => Some((needle.clone(), problem.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(got, [(Some("matches_req".into()), DatasetProblem::NeedleMissing)]);
    // The renamed needle has no task: the coverage note names it.
    let missing: Vec<&String> = report
        .findings
        .iter()
        .filter_map(|f| match f {
            Finding::Coverage { missing, .. } => Some(missing),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(missing.len(), 1, "{:#?}", report.findings);
    assert!(missing[0].ends_with("::renamed_needle"), "{missing:?}");
}

fn scratch() -> PathBuf {
    let d = root().join("target/test-scratch/verify_tampered");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cli(args: &[&str]) -> (i32, String) {
    let out = crate::repoqa_command().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn cli_verify_names_the_task_and_the_cell() {
    let dir = scratch();
    // Published file: one flipped verdict and one edited cell.
    let text = published("claude-3-opus-20240229-SCORES.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let m = "claude-3-opus-20240229";
    let repo = v[m]["results"]["rust"][4]["repo"].as_str().unwrap().to_string();
    let needle = v[m]["results"]["rust"][4]["name"].as_str().unwrap().to_string();
    let flipped = !v[m]["results"]["rust"][4]["is_best_similar"].as_bool().unwrap();
    v[m]["results"]["rust"][4]["is_best_similar"] = json!(flipped);
    v[m]["scores"]["cpp"]["0.3"]["pass@1"] = json!(0.99);
    let path = dir.join("tampered-SCORES.json");
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    let (code, out) = cli(&["verify", "--scores", path.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("MISMATCH {m}: task rust {repo} {needle} (results.rust[4]): is_best_similar is {flipped}")),
        "{out}"
    );
    assert!(
        out.contains(&format!("MISMATCH {m}: scores.cpp.0.3: file has 0.99, recomputed ")),
        "{out}"
    );
    println!("verify_tampered: CLI on a tampered published file:\n{out}");

    // Demo: re-scoring names the task whose target was changed.
    let dataset = demo_dataset();
    let outputs = demo_outputs(&dataset, false);
    let mut text = String::new();
    for o in &outputs {
        text.push_str(
            &serde_json::to_string(&serde_json::Value::Object(o.record.clone())).unwrap(),
        );
        text.push('\n');
    }
    let outputs_path = dir.join("demo.jsonl");
    std::fs::write(&outputs_path, text).unwrap();
    let mut file = scores_file(&dataset, &outputs, ScoreOptions::default());
    let t = &mut results_mut(&mut file)["typescript"][0];
    let (repo, needle) = (t.repo.clone(), t.name.clone());
    t.best_target = Some("renderGantt".into());
    t.is_best_similar = false;
    let file = with_table(file);
    let scores_path = dir.join("demo-SCORES.json");
    std::fs::write(&scores_path, file.to_python_json()).unwrap();
    let demo = root().join("public/demo/repoqa-demo.json");
    let args = [
        "verify",
        "--scores",
        scores_path.to_str().unwrap(),
        "--model-output-path",
        outputs_path.to_str().unwrap(),
        "--dataset-path",
        demo.to_str().unwrap(),
    ];
    let (code, out) = cli(&args);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "MISMATCH demo-model: task typescript {repo} {needle} (results.typescript[0]): best_target: file has \"renderGantt\", re-scored \"{needle}\""
        )),
        "{out}"
    );
    assert!(out.contains("table of 7 rows recomputed from 60 tasks: OK"), "{out}");
    println!("verify_tampered: CLI re-scoring:\n{out}");
}
