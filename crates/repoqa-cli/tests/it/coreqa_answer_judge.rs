//! `repoqa coreqa answer` and `repoqa coreqa judge` end to end against the
//! project's test model server (tests/oracle/model_server.py --coreqa) on
//! 127.0.0.1, over the demo's semver repository and four questions about it
//! (public/demo/coreqa/semver-qa.jsonl): two models answer in the three
//! context settings (a server error on the way is retried), a rerun asks
//! nothing again, a judge grades every answer twice and the table's means
//! and standard deviations are the ones the server's fixed scores give; a
//! judge that never gives its scores is asked again, then reported failed
//! (exit 3), and a rerun asks only that one.
//!
//!     cargo test -p repoqa-cli --test it coreqa_answer_judge::

use crate::text;
use std::path::{Path, PathBuf};
use std::process::Output;

use repoqa_testkit as common;
use repoqa_testkit::model_server::ModelServer;
use serde_json::{json, Value};

fn qa() -> PathBuf {
    common::root().join("public/demo/coreqa/semver-qa.jsonl")
}

fn semver() -> PathBuf {
    common::root().join("public/demo/third_party/semver")
}

fn repoqa(args: &[&str]) -> Output {
    crate::repoqa_command()
        .env("REPOQA_TOKENIZER", common::tokenizer_path())
        .env_remove("OPENAI_API_KEY")
        .args(args)
        .output()
        .unwrap()
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn reference(id: &str) -> String {
    let text = std::fs::read_to_string(qa()).unwrap();
    text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|v| v["id"] == id).unwrap()
        ["reference_answer"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `repoqa coreqa <args>` against `server`, one request at a time, quick
/// retries, writing `out`.
fn ask(server: &ModelServer, out: &Path, args: &[&str]) -> Output {
    let url = server.url("/v1");
    let common = ["--base-url", &url, "--concurrency", "1", "--retry-base-ms", "1", "--output"];
    let mut all: Vec<&str> = vec!["coreqa"];
    all.extend(args);
    all.extend(common);
    all.push(out.to_str().unwrap());
    repoqa(&all)
}

fn answer(server: &ModelServer, model: &str, settings: &str, out: &Path) -> Output {
    let (qa, repo) = (qa(), semver());
    let args = ["answer", "--qa", qa.to_str().unwrap(), "--repo", repo.to_str().unwrap()];
    let more = ["--setting", settings, "--window", "1000000", "--model", model, "--runs", "1"];
    ask(server, out, &[&args[..], &more[..]].concat())
}

fn judge(server: &ModelServer, answers: &[&Path], out: &Path, extra: &[&str]) -> Output {
    let qa = qa();
    let mut args = vec!["judge", "--qa", qa.to_str().unwrap(), "--model", "judge-model"];
    for a in answers {
        args.extend(["--answers", a.to_str().unwrap()]);
    }
    args.extend(extra);
    ask(server, out, &args)
}

#[test]
fn two_models_answer_in_three_settings_and_a_judge_grades_them() {
    let dir = common::scratch("coreqa-answer-judge");
    let (good, weak, judged) =
        (dir.join("good.jsonl"), dir.join("weak.jsonl"), dir.join("judged.jsonl"));
    for f in [&good, &weak, &judged] {
        let _ = std::fs::remove_file(f);
        let _ = std::fs::remove_file(f.with_extension("runlog.jsonl"));
    }
    let server = ModelServer::start(&common::root(), &["--coreqa", qa().to_str().unwrap()]);
    server.control(&json!({"faults": {"answer:dtolnay/semver#2": ["500"]}}));

    let o = answer(&server, "good-model", "none,retrieval,whole", &good);
    assert!(o.status.success(), "{}", text(&o));
    let got = lines(&good);
    assert_eq!(got.len(), 12, "4 questions × 3 settings");
    for line in &got {
        let id = line["question_id"].as_str().unwrap();
        let r = reference(id);
        let want = match line["setting"].as_str().unwrap() {
            "none" => r.split(". ").next().unwrap().to_string(),
            _ => r,
        };
        assert_eq!(line["answer"], want.as_str(), "{line}");
        assert_eq!(line["model"], "good-model");
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 13, "12 answers and one retry after the HTTP 500");
    // Each setting's prompt carries its context.
    let prompt =
        |i: usize| requests[i]["body"]["messages"][0]["content"].as_str().unwrap().to_string();
    let all: Vec<String> = (0..requests.len()).map(prompt).collect();
    assert!(all.iter().any(|p| p.contains("## Code retrieved from the repository")
        && p.contains("### src/eval.rs (part 1)\n\n```rust\n")));
    assert!(all.iter().any(|p| p.contains("## The repository\n\n# Repository dtolnay/semver")));
    assert_eq!(
        all.iter()
            .filter(|p| !p.contains("\n## Code retrieved") && !p.contains("\n## The repository"))
            .count(),
        5
    );

    // A rerun resumes: nothing is asked again.
    let o = answer(&server, "good-model", "none,retrieval,whole", &good);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 request(s) to ask"), "{}", text(&o));
    assert_eq!(server.requests().len(), 13);

    let o = answer(&server, "weak-model", "none,retrieval", &weak);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(lines(&weak).len(), 8);

    // The whole repository in a window too small for it: refused, with the count.
    let o = repoqa(&[
        "coreqa",
        "answer",
        "--qa",
        qa().to_str().unwrap(),
        "--repo",
        semver().to_str().unwrap(),
        "--setting",
        "whole",
        "--window",
        "1000",
        "--model",
        "m",
        "--base-url",
        &server.url("/v1"),
        "--output",
        dir.join("none.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("more than the window of 1000"), "{}", text(&o));

    server.control(&json!({"reset": true, "faults": {}}));
    let o = judge(&server, &[&good, &weak], &judged, &["--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let verdicts = lines(&judged);
    assert_eq!(verdicts.len(), 40, "20 answers judged twice");
    assert!(verdicts
        .iter()
        .all(|v| v["reasoning"] == "Comparing the candidate with the reference point by point."));
    let table: Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = |model: &str, setting: &str| -> Value {
        table
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["model"] == model && r["setting"] == setting)
            .unwrap_or_else(|| panic!("no row {model} {setting} in {table}"))
            .clone()
    };
    let ms = |r: &Value, c: &str| {
        (r["criteria"][c]["mean"].as_f64().unwrap(), r["criteria"][c]["std"].as_f64().unwrap())
    };
    // The server scores the reference 9s (accuracy +1 on the second
    // request), its first sentence 7/5/8/8, anything else 2/2/4/6.
    for setting in ["retrieval", "whole"] {
        let r = row("good-model", setting);
        assert_eq!(ms(&r, "accuracy"), (9.5, 0.5));
        assert_eq!(ms(&r, "completeness"), (9.0, 0.0));
        assert_eq!(r["questions"], 4);
        assert_eq!(r["repetitions"], 2);
        assert_eq!(r["language"], "rust");
        assert!(r["bleu"].as_f64().unwrap() > 0.99, "{r}");
    }
    let r = row("good-model", "none");
    assert_eq!(ms(&r, "accuracy"), (7.5, 0.5));
    assert_eq!(
        (r["overall"]["mean"].as_f64().unwrap(), r["overall"]["std"].as_f64().unwrap()),
        (7.125, 0.125)
    );
    let r = row("weak-model", "none");
    assert_eq!(ms(&r, "accuracy"), (2.5, 0.5));
    assert_eq!(ms(&r, "clarity"), (6.0, 0.0));
    assert!(r["bleu"].as_f64().unwrap() < 0.2, "{r}");

    // Rerun: every judgment is there, nothing is asked.
    let before = server.requests().len();
    let o = judge(&server, &[&good, &weak], &judged, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.requests().len(), before);
    assert!(text(&o).contains("good-model"), "the table is printed: {}", text(&o));
}

/// Issue 53, the paper's sampling as the default: every question is asked
/// five times at 0.2 (no flag given), the later runs marked in their
/// lines; a rerun asks nothing; the judge grades every run and its table's
/// deviation is over the runs, with the spread per question printed and in
/// the JSON.
#[test]
fn answers_sampled_in_several_runs_are_judged_run_by_run() {
    let dir = common::scratch("coreqa-runs");
    let (answers, judged) = (dir.join("runs.jsonl"), dir.join("runs-judged.jsonl"));
    for f in [&answers, &judged] {
        let _ = std::fs::remove_file(f);
        let _ = std::fs::remove_file(f.with_extension("runlog.jsonl"));
    }
    let server = ModelServer::start(&common::root(), &["--coreqa", qa().to_str().unwrap()]);
    let (qa, repo) = (qa(), semver());
    let args = [
        "answer",
        "--qa",
        qa.to_str().unwrap(),
        "--repo",
        repo.to_str().unwrap(),
        "--setting",
        "none",
        "--model",
        "good-model",
    ];
    let o = ask(&server, &answers, &args);
    assert!(o.status.success(), "{}", text(&o));
    let got = lines(&answers);
    assert_eq!(got.len(), 20, "4 questions × 5 runs");
    let mut runs: Vec<(String, u64)> = got
        .iter()
        .map(|l| (l["question_id"].as_str().unwrap().to_string(), l["run"].as_u64().unwrap_or(1)))
        .collect();
    runs.sort();
    let first: Vec<(String, u64)> = (1..=5).map(|r| ("dtolnay/semver#1".into(), r)).collect();
    assert_eq!(runs[..5], first[..]);
    assert!(
        got.iter().filter(|l| l.get("run").is_none()).count() == 4,
        "the first run's lines carry no \"run\""
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 20);
    assert!(requests.iter().all(|r| r["body"]["temperature"] == 0.2), "every request at 0.2");
    // Resumed: nothing asked again.
    let o = ask(&server, &answers, &args);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.requests().len(), 20);

    let o = judge(&server, &[&answers], &judged, &["--json"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(lines(&judged).len(), 40, "20 answers × 2 repetitions");
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &rows[0];
    assert_eq!(
        (row["runs"].as_u64(), row["repetitions"].as_u64(), row["questions"].as_u64()),
        (Some(5), Some(2), Some(4))
    );
    // Each question's spread over its runs, in the row.
    let spread = row["per_question"].as_array().unwrap();
    assert_eq!(spread.len(), 4, "{row}");
    assert!(spread.iter().all(|s| s["runs"] == 5 && s["overall"]["std"] == 0.0), "{row}");
    // The test server answers alike at any temperature: the runs agree.
    assert_eq!(row["overall"]["std"].as_f64(), Some(0.0));
    let o = judge(&server, &[&answers], &judged, &[]);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.contains("per question, the overall score over its runs:"), "{t}");
    assert!(
        t.contains("  dtolnay/semver#1 good-model none: ") && t.contains(" over 5 runs"),
        "{t}"
    );
}

/// Issue 53's defects: an empty repository folder is refused before any
/// request (it used to send four requests whose "repository" was nothing,
/// exit 0), and so is a retrieval prompt longer than `--window`, naming the
/// question; nothing is written.
#[test]
fn an_empty_repository_or_a_prompt_over_the_window_is_refused_before_any_request() {
    let dir = common::scratch("coreqa-refused");
    let empty = dir.join("empty-repo");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dir.join("answers.jsonl");
    let _ = std::fs::remove_file(&out);
    let server = ModelServer::start(&common::root(), &["--coreqa", qa().to_str().unwrap()]);
    let qa = qa();
    let answer_in = |repo: &Path, setting: &str, window: &str| {
        let (qa, repo) = (qa.to_str().unwrap(), repo.to_str().unwrap());
        let args = ["answer", "--qa", qa, "--repo", repo, "--setting", setting];
        ask(&server, &out, &[&args[..], &["--window", window, "--model", "m"][..]].concat())
    };
    for setting in ["whole", "retrieval", "none,whole"] {
        let o = answer_in(&empty, setting, "8000");
        assert_eq!(o.status.code(), Some(2), "{setting}: {}", text(&o));
        assert!(text(&o).contains("has no text files"), "{setting}: {}", text(&o));
    }
    let o = answer_in(&semver(), "retrieval", "200");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("retrieval setting: the prompt needs"), "{}", text(&o));
    assert!(text(&o).contains("more than the window of 200; nothing was sent"), "{}", text(&o));
    assert!(server.requests().is_empty(), "asked: {:?}", server.requests());
    assert!(!out.exists() || std::fs::read_to_string(&out).unwrap().is_empty());
}

#[test]
fn questions_of_two_repositories_are_each_answered_from_their_own_folder() {
    let dir = common::scratch("coreqa-two-repos");
    let _ = std::fs::remove_dir_all(&dir);
    let repos = dir.join("repos");
    std::fs::create_dir_all(repos.join("dtolnay")).unwrap();
    std::os::unix::fs::symlink(semver(), repos.join("dtolnay/semver")).unwrap();
    std::fs::create_dir_all(repos.join("acme/widget")).unwrap();
    std::fs::write(
        repos.join("acme/widget/widget.py"),
        "def spin(turns):\n    # WIDGET_MARKER: zero turns are refused\n    if turns <= 0:\n        raise ValueError(turns)\n",
    )
    .unwrap();
    // Two questions about semver, one about the widget between them.
    let semver_qa: Vec<String> =
        std::fs::read_to_string(qa()).unwrap().lines().take(2).map(str::to_string).collect();
    let widget = json!({"id": "acme/widget#1", "repository": "acme/widget", "language": "python",
        "question": "Why does spin(0) fail?", "reference_answer": "Zero turns are refused."});
    let qa_path = dir.join("two-qa.jsonl");
    std::fs::write(&qa_path, format!("{}\n{widget}\n{}\n", semver_qa[0], semver_qa[1])).unwrap();
    let out = dir.join("answers.jsonl");
    let server = ModelServer::start(&common::root(), &["--coreqa", qa_path.to_str().unwrap()]);
    let answer_from = |root: &Path| {
        let args = ["answer", "--qa", qa_path.to_str().unwrap(), "--repos", root.to_str().unwrap()];
        let more =
            ["--setting", "none,whole", "--window", "1000000", "--model", "m", "--runs", "1"];
        ask(&server, &out, &[&args[..], &more[..]].concat())
    };
    let o = answer_from(&repos);
    assert!(o.status.success(), "{}", text(&o));
    // Every question in each setting, in the QA file's order.
    let got: Vec<(String, String)> = lines(&out)
        .iter()
        .map(|l| (l["question_id"].as_str().unwrap().into(), l["setting"].as_str().unwrap().into()))
        .collect();
    assert_eq!(got.len(), 6, "{got:?}");
    // The whole setting's prompt is its own repository's: the widget's
    // question sees the widget, semver's see semver.
    let prompts: Vec<String> = server.requests().iter().map(|r| r.to_string()).collect();
    let widget_prompts: Vec<&String> = prompts
        .iter()
        .filter(|p| p.contains("Why does spin(0) fail?"))
        .filter(|p| p.contains("WIDGET_MARKER") || p.contains("Apache License"))
        .collect();
    assert_eq!(widget_prompts.len(), 1, "one whole-setting prompt for the widget question");
    assert!(!widget_prompts[0].contains("Apache License"), "semver's code in the widget's prompt");
    for p in prompts.iter().filter(|p| p.contains("WIDGET_MARKER")) {
        assert!(p.contains("Why does spin(0) fail?"), "the widget's code went to another question");
    }
    let semver_whole = prompts.iter().filter(|p| p.contains("Apache License")).count();
    assert_eq!(semver_whole, 2, "a whole-setting prompt of semver for each of its questions");
    // A repository without its folder is refused before any request.
    let before = server.requests().len();
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(out.with_extension("runlog.jsonl"));
    std::fs::remove_file(repos.join("acme/widget/widget.py")).unwrap();
    std::fs::remove_dir(repos.join("acme/widget")).unwrap();
    let o = answer_from(&repos);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--repos: no folder"), "{}", text(&o));
    assert!(text(&o).contains("for the questions of acme/widget"), "{}", text(&o));
    assert_eq!(server.requests().len(), before, "nothing was sent");
}

#[test]
fn a_judge_reply_without_scores_is_asked_again_then_reported() {
    let dir = common::scratch("coreqa-judge-malformed");
    let (answers, judged) = (dir.join("answers.jsonl"), dir.join("judged.jsonl"));
    for f in [&answers, &judged] {
        let _ = std::fs::remove_file(f);
        let _ = std::fs::remove_file(f.with_extension("runlog.jsonl"));
    }
    let server = ModelServer::start(&common::root(), &["--coreqa", qa().to_str().unwrap()]);
    let o = answer(&server, "good-model", "none", &answers);
    assert!(o.status.success(), "{}", text(&o));

    // One malformed reply, then a good one: retried, no trace in the file.
    // Another question's judge never gives scores: failed after 1 + 2 tries.
    let bad = vec!["judgebad"; 10];
    server.control(&json!({"reset": true, "faults": {
        "judge:dtolnay/semver#1": ["judgebad"],
        "judge:dtolnay/semver#3": bad,
    }}));
    let o = judge(&server, &[&answers], &judged, &["--repetitions", "1", "--max-retries", "2"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("dtolnay/semver#3::none::good-model::1"), "{t}");
    assert!(t.contains("the judge's reply does not end with the four score lines"), "{t}");
    assert!(t.contains("gave up after 3 attempts"), "{t}");
    let mut ids: Vec<String> =
        lines(&judged).iter().map(|v| v["question_id"].as_str().unwrap().to_string()).collect();
    ids.sort();
    assert_eq!(ids, ["dtolnay/semver#1", "dtolnay/semver#2", "dtolnay/semver#4"]);
    assert_eq!(server.requests().len(), 2 + 1 + 3 + 1);

    // Fixed: the rerun asks the failed one only.
    server.control(&json!({"reset": true, "faults": {}}));
    let o = judge(&server, &[&answers], &judged, &["--repetitions", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("1 request(s) to ask"), "{}", text(&o));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(lines(&judged).len(), 4);
}

/// Elo by the formula (start 1000, K 32, scale 400), for the check below.
fn elo_by_hand(games: &[(usize, usize, f64)]) -> [f64; 2] {
    let mut r = [1000.0f64, 1000.0];
    for &(a, b, score) in games {
        let expected = 1.0 / (1.0 + 10f64.powf((r[b] - r[a]) / 400.0));
        let delta = 32.0 * (score - expected);
        r[a] += delta;
        r[b] -= delta;
    }
    r
}

/// Fresh files `names` in a scratch folder `dir` (with their run logs
/// gone), a test model server on the demo's questions, and the good and
/// weak models' answers in the none setting (the first two files).
fn two_models_answered(dir: &str, names: &[&str]) -> (Vec<PathBuf>, ModelServer) {
    let dir = common::scratch(dir);
    let files: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    for f in &files {
        let _ = std::fs::remove_file(f);
        let _ = std::fs::remove_file(f.with_extension("runlog.jsonl"));
    }
    let server = ModelServer::start(&common::root(), &["--coreqa", qa().to_str().unwrap()]);
    for (model, out) in [("good-model", &files[0]), ("weak-model", &files[1])] {
        let o = answer(&server, model, "none", out);
        assert!(o.status.success(), "{}", text(&o));
    }
    (files, server)
}

#[test]
fn pairs_are_judged_in_both_orders_and_rated() {
    let (files, server) =
        two_models_answered("coreqa-pairwise", &["good.jsonl", "weak.jsonl", "pairs.jsonl"]);
    let [good, weak, pairs] = [&files[0], &files[1], &files[2]];
    // On question 4 the judge always prefers the answer shown first, and
    // one reply on question 2 has no verdict (asked again).
    server.control(&json!({"reset": true, "faults": {
        "pair:dtolnay/semver#4": ["prefera", "prefera"],
        "pair:dtolnay/semver#2": ["judgebad"],
    }}));
    let qa = qa();
    let args = ["pairwise", "--qa", qa.to_str().unwrap(), "--model", "judge-model"];
    let files = ["--answers", good.to_str().unwrap(), "--answers", weak.to_str().unwrap()];
    let o = ask(&server, pairs, &[&args[..], &files[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(lines(pairs).len(), 8, "4 questions × 2 orders");
    assert_eq!(server.requests().len(), 9, "one retry");
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["judgments"], 8);
    let bias = &c["position_bias"];
    assert_eq!((bias["consistent"].as_u64(), bias["contradiction"].as_u64()), (Some(3), Some(1)));
    let good_vs_weak = &c["records"][0];
    assert_eq!(good_vs_weak["model"], "good-model");
    let wtl = ["wins", "ties", "losses"].map(|k| good_vs_weak[k].as_u64().unwrap());
    assert_eq!(wtl, [7, 0, 1]);
    // Played in question order, good (0) shown first, then weak (1) first.
    let mut games = Vec::new();
    for q in 1..=4 {
        games.push((0, 1, 1.0));
        games.push((1, 0, if q == 4 { 1.0 } else { 0.0 }));
    }
    let want = elo_by_hand(&games);
    assert!((c["elo"]["good-model"].as_f64().unwrap() - want[0]).abs() < 1e-9, "{c}");
    assert!((c["elo"]["weak-model"].as_f64().unwrap() - want[1]).abs() < 1e-9, "{c}");
    // compare reads the same file (its order is the arrival order, which
    // at concurrency 1 with one quick retry may differ; the records not).
    let o = repoqa(&["coreqa", "compare", "--judgments", pairs.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let again: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(again["records"], c["records"]);
    assert_eq!(again["position_bias"], c["position_bias"]);
}

#[test]
fn a_qa_file_is_built_from_the_issues_the_filters_keep() {
    let dir = common::scratch("coreqa-build");
    let out = dir.join("qa.jsonl");
    for f in ["qa.jsonl", "qa.runlog.jsonl", "qa.questions.jsonl", "qa.questions.runlog.jsonl"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let export = common::root().join("tests/fixtures/coreqa/issues-export.json");
    let server = ModelServer::start(&common::root(), &[]);
    // One question request fails once (retried); one reference request
    // always fails (reported, exit 3).
    let always = vec!["500"; 10];
    server.control(&json!({"faults": {
        "question:Issue 9": ["500"],
        "reference:Issue 10": always,
    }}));
    let args = [
        "build",
        "--export",
        export.to_str().unwrap(),
        "--language",
        "python",
        "--model",
        "writer",
    ];
    let o = ask(&server, &out, &[&args[..], &["--max-retries", "2"]].concat());
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("acme/widget: 10 issues, removed by the filters: pull_request 1, not_closed 1, label 1, no_code 1, image 1, few_positive 1, points_elsewhere 1; kept 3"), "{t}");
    assert!(t.contains("acme/widget#10 (") && t.contains("gave up after 3 attempts"), "{t}");
    let questions = lines(&dir.join("qa.questions.jsonl"));
    assert_eq!(questions.len(), 9, "3 issues × 3 samples (the paper's self-consistency)");
    let q8 = questions.iter().find(|q| q["number"] == 8 && q.get("sample").is_none()).unwrap();
    // The model reasoned first; the question came after "Question:".
    assert_eq!(q8["reasoning"], "The reporter hit a problem: Issue 8.");
    assert_eq!(q8["samples"], 3);
    assert_eq!(
        q8["question"],
        "How do I resolve the problem \"Issue 8\"?\n\n```python\nwidget.spin(0)\n```"
    );
    let q10 = questions.iter().find(|q| q["number"] == 10).unwrap();
    assert!(q10["question"].as_str().unwrap().ends_with("?\n\n   ~~~\n   widget.spin(-1)\n   ~~~"));
    let mut qa = lines(&out);
    qa.sort_by_key(|q| q["id"].as_str().unwrap().to_string());
    let ids: Vec<&str> = qa.iter().map(|q| q["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["acme/widget#8", "acme/widget#9"]);
    assert_eq!(qa[0]["reference_answer"], "The maintainers answered: Try calling `reset()` first.");
    assert_eq!(qa[0]["language"], "python");
    assert_eq!(qa[0]["issue_url"], "https://github.com/acme/widget/issues/8");
    assert_eq!(qa[0]["issue"]["number"], 8);
    assert_eq!(qa[0]["question"], q8["question"]);
    // Issue 80: the temperatures each file was made at, in the file: three
    // question samples at 0.8, the reference answers at the paper's 0.8.
    assert!(questions.iter().all(|q| q["temperature"] == 0.8), "{questions:?}");
    assert!(qa.iter().all(|q| q["reference_temperature"] == 0.8), "{qa:?}");
    // Every sample recorded with the QA item, and which was kept (the test
    // server's samples are alike: the first).
    assert_eq!(qa[0]["question_samples"].as_array().map(Vec::len), Some(3));
    assert_eq!(qa[0]["question_sample"], 1);

    // Fixed: the rerun asks the one reference left, nothing else, at 0.8.
    server.control(&json!({"reset": true, "faults": {}}));
    let o = ask(&server, &out, &args);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.requests()[0]["body"]["temperature"], 0.8);
    assert_eq!(lines(&out).len(), 3);
    // The file is a QA file `answer` reads.
    let o = repoqa(&[
        "coreqa",
        "retrieve",
        "--repo",
        semver().to_str().unwrap(),
        "--qa",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
}

/// Issue 53 item 5: `build --prefilter` asks the writing model first
/// whether each kept issue is worth a question (the test server drops a
/// title ending in an odd digit); a reply without a verdict is asked
/// again; only kept issues become questions, each QA item keeps its
/// verdict, and a rerun asks nothing.
#[test]
fn the_pre_filter_drops_issues_before_any_question_is_written() {
    let dir = common::scratch("coreqa-prefilter");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("qa.jsonl");
    let export = common::root().join("tests/fixtures/coreqa/issues-export.json");
    let server = ModelServer::start(&common::root(), &[]);
    server.control(&json!({"faults": {"prefilter:Issue 8": ["judgebad"]}}));
    let args = ["build", "--export", export.to_str().unwrap(), "--model", "writer", "--prefilter"];
    let o = ask(&server, &out, &args);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("the pre-filter kept 2 of 3 issue(s), dropped 1 (verdicts in "), "{t}");
    let verdicts = lines(&dir.join("qa.prefilter.jsonl"));
    assert_eq!(verdicts.len(), 3);
    let nine = verdicts.iter().find(|v| v["number"] == 9).unwrap();
    assert_eq!(nine["keep"], false);
    assert_eq!(nine["reasons"], "The discussion leaves it open.");
    assert_eq!(nine["model"], "writer");
    let mut numbers: Vec<u64> = lines(&dir.join("qa.questions.jsonl"))
        .iter()
        .map(|q| q["number"].as_u64().unwrap())
        .collect();
    numbers.dedup();
    assert_eq!(numbers, [8, 10], "no question for the dropped issue");
    let qa = lines(&out);
    assert_eq!(qa.len(), 2);
    for item in &qa {
        assert_eq!(
            item["prefilter"],
            json!({"model": "writer", "keep": true, "reasons": "The discussion answers it."}),
            "{item}"
        );
    }
    // 3 verdicts (one asked twice), 2 × 3 question samples, 2 references.
    assert_eq!(server.requests().len(), 12);
    // A rerun asks nothing.
    server.control(&json!({"reset": true, "faults": {}}));
    let o = ask(&server, &out, &args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    // The prompt is printed.
    let o = repoqa(&["coreqa", "prompt", "prefilter"]);
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("Verdict: keep\nVerdict: drop\n"));
}

/// Issue 80: the evaluator's tables from the files of one run against the
/// test model server — two models answer, the judge grades each answer
/// twice, pairs are judged in both orders (on question 4 the judge prefers
/// whichever answer it sees first: the verdict flips with the order), and
/// `coreqa report --baseline weak-model` gives Table V's row of each model
/// with the figures the server's fixed scores give, worked out by hand.
#[test]
fn the_evaluator_s_tables_come_from_a_run_s_files() {
    let names = ["good.jsonl", "weak.jsonl", "judged.jsonl", "pairs.jsonl"];
    let (files, server) = two_models_answered("coreqa-report", &names);
    let [good, weak, judged, pairs] = [&files[0], &files[1], &files[2], &files[3]];
    let o = judge(&server, &[good, weak], judged, &[]);
    assert!(o.status.success(), "{}", text(&o));
    server.control(
        &json!({"reset": true, "faults": {"pair:dtolnay/semver#4": ["prefera", "prefera"]}}),
    );
    let qa = qa();
    let args = ["pairwise", "--qa", qa.to_str().unwrap(), "--model", "judge-model"];
    let files = ["--answers", good.to_str().unwrap(), "--answers", weak.to_str().unwrap()];
    let o = ask(&server, pairs, &[&args[..], &files[..]].concat());
    assert!(o.status.success(), "{}", text(&o));

    // Each file records the temperature and runs it was made with.
    assert!(lines(good).iter().all(|l| l["temperature"] == 0.2 && l["runs"] == 1));
    assert!(lines(judged).iter().all(|l| l["temperature"] == 0.2 && l["repetitions"] == 2));
    assert!(lines(pairs).iter().all(|l| l["temperature"] == 0.2));
    let (q, j, p) = (qa.to_str().unwrap(), judged.to_str().unwrap(), pairs.to_str().unwrap());
    let (g, w) = (good.to_str().unwrap(), weak.to_str().unwrap());
    let args = ["coreqa", "report", "--qa", q, "--judgments", j, "--answers", g, "--answers", w];
    let more = ["--pairwise", p, "--baseline", "weak-model"];
    let o = repoqa(&[&args[..], &more[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["baseline"], "weak-model");
    assert_eq!(r["by_language"], json!([]), "one language: Table V only");
    let row = |m: &str| {
        r["overall"].as_array().unwrap().iter().find(|x| x["model"] == m).unwrap().clone()
    };
    let (good_row, weak_row) = (row("good-model"), row("weak-model"));
    let ms = |v: &Value, c: &str| {
        (v["criteria"][c]["mean"].as_f64().unwrap(), v["criteria"][c]["std"].as_f64().unwrap())
    };
    // The server: 7/5/8/8 for an answer the reference starts with (the good
    // model without context), 2/2/4/6 otherwise; its second judgment of an
    // answer adds 1 to accuracy. One run: the spread is over the two
    // judgments' means.
    assert_eq!(ms(&good_row, "accuracy"), (7.5, 0.5));
    assert_eq!(ms(&good_row, "completeness"), (5.0, 0.0));
    assert_eq!(ms(&good_row, "relevance"), (8.0, 0.0));
    assert_eq!(ms(&weak_row, "accuracy"), (2.5, 0.5));
    assert_eq!(ms(&weak_row, "clarity"), (6.0, 0.0));
    // Levels: the good model's accuracy is 7 or 8 (level 7-8) every time;
    // the weak model's 2 or 3, half in each of the two lowest levels.
    assert_eq!(good_row["levels"]["criteria"]["accuracy"], json!([0, 0, 0, 8, 0]));
    assert_eq!(weak_row["levels"]["criteria"]["accuracy"], json!([4, 4, 0, 0, 0]));
    // PCE against the weak model: 3 questions won in both orders, question
    // 4 a tie (the verdict flips with the order): 100 × (3 + ½) / 4 = 87.5.
    let pce = &good_row["pce"];
    assert_eq!(
        (
            pce["pce"].as_f64(),
            pce["comparisons"].as_u64(),
            pce["wins"].as_u64(),
            pce["ties"].as_u64()
        ),
        (Some(87.5), Some(4), Some(3), Some(1))
    );
    assert_eq!(
        (weak_row["pce"]["pce"].as_f64(), weak_row["pce"]["baseline"].as_bool()),
        (Some(50.0), Some(true))
    );
    assert!(good_row["bleu"].as_f64().unwrap() > weak_row["bleu"].as_f64().unwrap());
    // The text form: the table, the baseline's mark, the choice labelled.
    let o = repoqa(&[&args[..], &more[..]].concat());
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(
        t.starts_with(
            "Table V's shape: per model and context setting (1 run of answers, mean ± SD)\n"
        ),
        "{t}"
    );
    assert!(t.contains("good-model") && t.contains("7.50 ± 0.50") && t.contains("87.5"), "{t}");
    assert!(
        t.contains("50.0*") && t.contains("* weak-model: the baseline, 50.0 by construction."),
        "{t}"
    );
    assert!(
        t.contains(
            "counts as a tie (the paper does not say; --pce-discrepancy decided counts it a win)"
        ),
        "{t}"
    );
    // --pce-discrepancy decided: the same here (no win met a tie).
    let o = repoqa(&[&args[..], &more[..], &["--json", "--pce-discrepancy", "decided"]].concat());
    let d: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(d["discrepancy"], "decided");
    let o = repoqa(&[&args[..], &["--pce-discrepancy", "sometimes"]].concat());
    assert!(!o.status.success());
}

/// Issue 80, Table VI: `judge --stability 3` judges a seeded sample of three
/// answers five times each; per answer the server's accuracy goes 7, 8, 7,
/// 8, 7 (its k-th judgment of one answer adds k % 2): mean 7.4, population
/// deviation √0.24.
#[test]
fn the_judge_s_stability_is_a_sample_judged_five_times() {
    let names = ["good.jsonl", "weak.jsonl", "stable.jsonl"];
    let (files, server) = two_models_answered("coreqa-stability", &names);
    let (good, stable) = (&files[0], &files[2]);
    let o = judge(&server, &[good], stable, &["--stability", "3", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let judged = lines(stable);
    assert_eq!(judged.len(), 15, "3 answers × 5");
    assert!(judged.iter().all(|l| l["repetitions"] == 5));
    let mut questions: Vec<&str> =
        judged.iter().map(|l| l["question_id"].as_str().unwrap()).collect();
    questions.dedup();
    assert_eq!(questions.len(), 3);
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &rows[0];
    assert_eq!((row["answers"].as_u64(), row["repetitions"].as_u64()), (Some(3), Some(5)));
    let acc = &row["criteria"]["accuracy"];
    assert!((acc["mean"].as_f64().unwrap() - 7.4).abs() < 1e-12, "{row}");
    assert!((acc["std"].as_f64().unwrap() - 0.24f64.sqrt()).abs() < 1e-12, "{row}");
    assert_eq!(row["criteria"]["completeness"], json!({"mean": 5.0, "std": 0.0}));
    // The same seed samples the same answers: a rerun asks nothing.
    let before = server.requests().len();
    let o = judge(&server, &[good], stable, &["--stability", "3"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.requests().len(), before);
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(t.starts_with("Table VI's shape: the judge's stability"), "{t}");
    assert!(t.contains("7.40 ± 0.49"), "{t}");
    // Each line names the sample's seed: `coreqa report` given the check
    // beside the judge's scores makes Table VI of it and leaves it out of
    // Table V (whose figures are the scores' alone).
    assert!(judged.iter().all(|l| l["stability_seed"] == 42), "{judged:?}");
    let scores = files[0].with_file_name("scores.jsonl");
    let _ = std::fs::remove_file(&scores);
    let _ = std::fs::remove_file(scores.with_extension("runlog.jsonl"));
    let o = judge(&server, &[good], &scores, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(lines(&scores).iter().all(|l| l.get("stability_seed").is_none()));
    let (q, g) = (qa(), good.to_str().unwrap());
    let args = ["coreqa", "report", "--qa", q.to_str().unwrap(), "--answers", g, "--json"];
    let alone = repoqa(&[&args[..], &["--judgments", scores.to_str().unwrap()]].concat());
    let both = ["--judgments", scores.to_str().unwrap(), "--judgments", stable.to_str().unwrap()];
    let with = repoqa(&[&args[..], &both[..]].concat());
    assert!(alone.status.success() && with.status.success(), "{}", text(&with));
    let (alone, with): (Value, Value) = (
        serde_json::from_slice(&alone.stdout).unwrap(),
        serde_json::from_slice(&with.stdout).unwrap(),
    );
    assert_eq!(alone["overall"], with["overall"], "the check is not in Table V");
    assert!(alone.get("stability").is_none());
    assert_eq!(
        with["stability"], rows,
        "Table VI: the check's rows, as judge --stability gives them"
    );
    let o = repoqa(&[&args[..args.len() - 1], &both[..]].concat());
    let t = String::from_utf8_lossy(&o.stdout);
    assert!(
        t.contains("\nTable VI's shape: the judge's stability") && t.contains("7.40 ± 0.49"),
        "{t}"
    );
}

/// Issue 80: an answer cut at the token limit is never stored as a whole
/// one: its task fails, saying what to raise; a rerun asks only it.
#[test]
fn a_cut_answer_is_reported_not_stored() {
    let dir = common::scratch("coreqa-cut");
    let out = dir.join("cut.jsonl");
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(out.with_extension("runlog.jsonl"));
    let server = ModelServer::start(&common::root(), &["--coreqa", qa().to_str().unwrap()]);
    server.control(&json!({"faults": {"answer:dtolnay/semver#2": ["cut", "cut", "cut"]}}));
    let o = answer(&server, "good-model", "none", &out);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("dtolnay/semver#2::none") && t.contains("the reply was cut at the token limit (finish reason \"length\"): an incomplete reply is not stored as a whole one; raise --max-new-tokens"), "{t}");
    let stored: Vec<String> =
        lines(&out).iter().map(|l| l["question_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(stored, ["dtolnay/semver#1", "dtolnay/semver#3", "dtolnay/semver#4"]);
    assert_eq!(server.requests().len(), 4, "asked once: cut again if asked again");
    server.control(&json!({"reset": true, "faults": {}}));
    let o = answer(&server, "good-model", "none", &out);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(lines(&out).len(), 4);
}

/// Issue 80: with answers in several runs, pairwise compares run r of one
/// model with run r of the other, and the report's PCE is the mean ± SD
/// of the runs' PCE. Two runs; on question 4 the judge prefers the answer
/// it sees first in run 1 only (a tie there): run 1's PCE is
/// 100 × (3 + ½) / 4 = 87.5, run 2's 100.0, so 93.75 ± 6.25.
#[test]
fn pce_over_answer_runs_has_a_mean_and_a_spread() {
    let dir = common::scratch("coreqa-pce-runs");
    let names = ["good.jsonl", "weak.jsonl", "pairs.jsonl", "pairs-first.jsonl"];
    let files: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    for f in &files {
        let _ = std::fs::remove_file(f);
        let _ = std::fs::remove_file(f.with_extension("runlog.jsonl"));
    }
    let server = ModelServer::start(&common::root(), &["--coreqa", qa().to_str().unwrap()]);
    let (qa, repo) = (qa(), semver());
    for (model, out) in [("good-model", &files[0]), ("weak-model", &files[1])] {
        let args = ["answer", "--qa", qa.to_str().unwrap(), "--repo", repo.to_str().unwrap()];
        let more = ["--setting", "none", "--model", model, "--runs", "2"];
        let o = ask(&server, out, &[&args[..], &more[..]].concat());
        assert!(o.status.success(), "{}", text(&o));
    }
    // Items go question by question, run by run, the good model's answer
    // first then the weak one's: the two faults fall on run 1 of question 4.
    server.control(
        &json!({"reset": true, "faults": {"pair:dtolnay/semver#4": ["prefera", "prefera"]}}),
    );
    let (good, weak) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let args = ["pairwise", "--qa", qa.to_str().unwrap(), "--model", "judge-model"];
    let answers = ["--answers", good, "--answers", weak];
    let o = ask(&server, &files[2], &[&args[..], &answers[..]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let pairs = lines(&files[2]);
    assert_eq!(pairs.len(), 16, "4 questions × 2 runs × 2 orders");
    assert_eq!(pairs.iter().filter(|l| l["run"] == 2).count(), 8);
    assert_eq!(server.requests().len(), 16);
    // --runs 1: the first run's pairs only (the same faults again).
    server.control(
        &json!({"reset": true, "faults": {"pair:dtolnay/semver#4": ["prefera", "prefera"]}}),
    );
    let o = ask(&server, &files[3], &[&args[..], &answers[..], &["--runs", "1"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(lines(&files[3]).len(), 8);

    // The judge's table gives the report its rows.
    let judged = dir.join("judged.jsonl");
    let _ = std::fs::remove_file(&judged);
    let _ = std::fs::remove_file(judged.with_extension("runlog.jsonl"));
    let o = judge(&server, &[&files[0], &files[1]], &judged, &[]);
    assert!(o.status.success(), "{}", text(&o));

    let report = |pairs: &Path, json: bool| -> Output {
        let (p, j) = (pairs.to_str().unwrap(), judged.to_str().unwrap());
        let args = ["coreqa", "report", "--qa", qa.to_str().unwrap(), "--judgments", j];
        let more = ["--pairwise", p, "--baseline", "weak-model"];
        let o =
            repoqa(&[&args[..], &more[..], if json { &["--json"][..] } else { &[][..] }].concat());
        assert!(o.status.success(), "{}", text(&o));
        o
    };
    let good_pce = |pairs: &Path| -> Value {
        let r: Value = serde_json::from_slice(&report(pairs, true).stdout).unwrap();
        let rows = r["overall"].as_array().unwrap();
        rows.iter().find(|x| x["model"] == "good-model").unwrap()["pce"].clone()
    };
    let p = good_pce(&files[2]);
    let counts = |p: &Value| {
        ["comparisons", "wins", "ties", "losses", "runs"].map(|k| p[k].as_u64().unwrap())
    };
    assert_eq!(counts(&p), [8, 7, 1, 0, 2], "{p}");
    assert_eq!((p["pce"].as_f64(), p["pce_sd"].as_f64()), (Some(93.75), Some(6.25)), "{p}");
    let t = String::from_utf8_lossy(&report(&files[2], false).stdout).to_string();
    let good_line = t.lines().find(|l| l.starts_with("none") && l.contains("good-model")).unwrap();
    assert!(good_line.contains(" ± 6.2"), "{t}");
    assert!(t.contains("run r of each model is compared with run r of the baseline"), "{t}");
    // The first run only: one PCE, no spread.
    let p = good_pce(&files[3]);
    assert_eq!(counts(&p), [4, 3, 1, 0, 1], "{p}");
    assert_eq!((p["pce"].as_f64(), p.get("pce_sd")), (Some(87.5), None), "{p}");
}
