//! `repoqa run` against the project's test model server
//! (tests/oracle/model_server.py) on 127.0.0.1, with the demo dataset at a
//! 2,048-token context: faults on, the process killed mid-run and started
//! again; every task ends answered exactly once, every request is the
//! official one, SCORES equals `repoqa score`; the three wire formats; a
//! refused key stops the run (exit 2); a too-long prompt fails its task
//! and the run goes on (exit 3).
//!
//!     cargo test -p repoqa-cli --test it run_cli::

use repoqa_testkit as common;
use repoqa_testkit::model_server;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use model_server::ModelServer;
use serde_json::{json, Value};

const KEY: &str = "sk-test-run-0123456789";
const MODEL: &str = "org/test-model";
const SIZE: &str = "2048";

fn demo() -> PathBuf {
    common::root().join("public/demo/repoqa-demo.json")
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("repoqa-run-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn repoqa() -> Command {
    let mut c = crate::repoqa_command();
    c.env("REPOQA_TOKENIZER", common::tokenizer_path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_KEY")
        .env_remove("GOOGLE_API_KEY");
    c
}

fn run_args(server: &ModelServer, backend: &str, dir: &Path) -> Vec<String> {
    let base = match backend {
        "google" => server.url("/v1beta"),
        _ => server.url("/v1"),
    };
    [
        "run",
        "--model",
        MODEL,
        "--backend",
        backend,
        "--base-url",
        &base,
        "--dataset-path",
        demo().to_str().unwrap(),
        "--code-context-size",
        SIZE,
        "--result-dir",
        dir.to_str().unwrap(),
        "--timeout-s",
        "2",
        "--max-retries",
        "4",
        "--retry-base-ms",
        "50",
    ]
    .map(String::from)
    .to_vec()
}

fn key_env(backend: &str) -> &'static str {
    match backend {
        "anthropic" => "ANTHROPIC_KEY",
        "google" => "GOOGLE_API_KEY",
        _ => "OPENAI_API_KEY",
    }
}

fn outputs_path(dir: &Path) -> PathBuf {
    dir.join(format!("ntoken_{SIZE}")).join("org_slash_test-model.jsonl")
}

/// A task line's prompt: its template's fields concatenated.
fn prompt_of(t: &Value) -> String {
    t["template"].as_str().unwrap().split('\n').map(|k| t[k].as_str().unwrap()).collect()
}

/// The official tasks of the demo at this size, by task id: their JSONL
/// line and their prompt.
fn official_tasks(dir: &Path) -> HashMap<String, (String, String)> {
    let out = dir.join("tasks.jsonl");
    let o = repoqa()
        .args(["prompts", "--dataset-path", demo().to_str().unwrap(), "--code-context-size", SIZE])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    text.lines()
        .map(|line| {
            let t: Value = serde_json::from_str(line).unwrap();
            let id = format!(
                "{}::{}::{}",
                t["language"].as_str().unwrap(),
                t["repo"].as_str().unwrap(),
                t["name"].as_str().unwrap()
            );
            (id, (line.to_string(), prompt_of(&t)))
        })
        .collect()
}

/// Task id of each line of an outputs file, checking each line is the
/// official task line plus `"output": [reply]`.
fn check_outputs(path: &Path, tasks: &HashMap<String, (String, String)>) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let id = format!(
                "{}::{}::{}",
                v["language"].as_str().unwrap(),
                v["repo"].as_str().unwrap(),
                v["name"].as_str().unwrap()
            );
            let (task_line, _) = &tasks[&id];
            let head = &task_line[..task_line.len() - 1];
            assert!(line.starts_with(head), "{id}: the line is not the official task line");
            assert!(
                line[head.len()..].starts_with(", \"output\": [\""),
                "{id}: {}",
                &line[head.len()..]
            );
            assert!(line.ends_with("\"]}"));
            id
        })
        .collect()
}

/// Every request the server saw is the official one for its task.
fn check_requests(server: &ModelServer, tasks: &HashMap<String, (String, String)>, format: &str) {
    let reqs = server.requests();
    assert!(!reqs.is_empty());
    for r in &reqs {
        assert_eq!(r["format"], format);
        let id = r["task"].as_str().expect("every request carries a known task");
        let prompt = &tasks[id].1;
        let want = match format {
            "openai" => json!({"model": MODEL, "messages": [{"role": "user", "content": prompt}],
                               "max_tokens": 1024, "temperature": 0.0, "n": 1}),
            "anthropic" => json!({"model": MODEL, "max_tokens": 1024,
                                  "messages": [{"role": "user", "content": prompt}], "temperature": 0.0}),
            _ => json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}],
                        "generationConfig": {"candidateCount": 1, "maxOutputTokens": 1024, "temperature": 0.0}}),
        };
        assert_eq!(r["body"], want, "{id}: not the official request");
    }
}

/// SCORES written by the run equals `repoqa score` on its outputs, plus
/// an empty reply (`"output": [""]`, what a model that said nothing gives)
/// for each task the run left without an answer when it scored those as
/// failures; the fields naming those tasks aside.
fn check_scores(outputs: &Path, dir: &Path) {
    let ours = scores_of(outputs);
    let mut text = std::fs::read_to_string(outputs).unwrap();
    if ours[MODEL]["unanswered_scored_as"] == "failures" {
        let official = official_tasks(dir);
        for id in ours[MODEL]["unanswered_tasks"].as_array().unwrap() {
            let mut line: Value = serde_json::from_str(&official[id.as_str().unwrap()].0).unwrap();
            line["output"] = json!([""]);
            text.push_str(&format!("{line}\n"));
        }
    }
    let padded = dir.join("padded.jsonl");
    std::fs::write(&padded, text).unwrap();
    let again = dir.join("again-SCORES.json");
    let o = repoqa()
        .args(["score", "--dataset-path", demo().to_str().unwrap(), "--model", MODEL])
        .arg("--model-output-path")
        .arg(&padded)
        .arg("--out")
        .arg(&again)
        .arg("--overwrite")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let theirs: Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
    // What a run adds when tasks have no answer is left aside here.
    let strip = |mut v: Value| {
        let m = v[MODEL].as_object_mut().unwrap();
        for k in ["eval_date", "unanswered_count", "unanswered_scored_as", "unanswered_tasks"] {
            m.remove(k);
        }
        v
    };
    assert_eq!(strip(ours), strip(theirs), "SCORES differs from `repoqa score`");
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const FAULTS: &[&str] = &[
    "readability=429,429",
    "wrap=500",
    "justify=drop",
    "content_words=badjson",
    "frequencies=slow",
    "cross=trunc",
    "format_number=ctx",
    "monthlyAdjustment=500,drop,429",
    "parseTasks=badjson,slow",
    "mergeIntervals=nocors",
];

fn server_args(dataset: &Path, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> =
        ["--dataset", dataset.to_str().unwrap(), "--key", KEY, "--model", MODEL, "--slow-s", "3"]
            .map(String::from)
            .to_vec();
    for f in FAULTS {
        a.push("--fault".into());
        a.push((*f).into());
    }
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

#[test]
fn killed_mid_run_and_restarted_every_task_once_requests_official() {
    let dir = tmpdir("kill");
    let tasks = official_tasks(&dir);
    let args = server_args(&demo(), &["--latency-s", "0.15"]);
    let server =
        ModelServer::start(&common::root(), &args.iter().map(String::as_str).collect::<Vec<_>>());
    let outputs = outputs_path(&dir);

    // First run: killed once 20 answers are in.
    let mut child = repoqa()
        .args(run_args(&server, "openai", &dir))
        .env("OPENAI_API_KEY", KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        let n = std::fs::read_to_string(&outputs).map(|t| t.lines().count()).unwrap_or(0);
        if n >= 20 {
            break;
        }
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be killed");
        assert!(t0.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let first: HashSet<String> = check_outputs(&outputs, &tasks).into_iter().collect();
    let first_requests = server.requests().len();
    eprintln!("killed after {} answers, {first_requests} requests", first.len());

    // Second run: resumes, finishes; the too-long prompt fails (exit 3).
    let o = repoqa()
        .args(run_args(&server, "openai", &dir))
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains(&format!("resuming {}", outputs.display())), "{err}");
    assert!(err.contains("1 task(s) left without an answer:\n  cpp::repoqa-web/demo-geometry::format_number (the prompt is longer than the model's context"), "{err}");
    if !first.iter().any(|id| id.ends_with("::cross")) {
        // Its answer came in this run: the warning is this run's.
        assert!(err.contains("WARNING: 1 answer(s) came from silently truncated prompts"), "{err}");
    }

    assert!(std::fs::read_to_string(&outputs).unwrap().ends_with('\n'), "a cut last line");
    let ids = check_outputs(&outputs, &tasks);
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "a task answered twice");
    assert_eq!(ids.len(), tasks.len() - 1, "every task but the too-long one answered");
    assert!(!ids.iter().any(|id| id.ends_with("::format_number")));

    // No finished task was asked again by the second run.
    let reqs = server.requests();
    for r in &reqs[first_requests..] {
        let id = r["task"].as_str().unwrap();
        assert!(!first.contains(id), "{id} was answered before the kill but asked again");
    }
    check_requests(&server, &tasks, "openai");
    let stats = server.stats();
    eprintln!("fault run: {} requests in all, faults {}", reqs.len(), stats["faulted"]);
    for kind in ["429", "500", "drop", "badjson", "slow", "trunc", "ctx", "nocors"] {
        assert!(stats["faulted"][kind].as_u64().unwrap_or(0) >= 1, "fault {kind} never happened");
    }

    // The run log: what produced each answer, never the key; the failure.
    let log = std::fs::read_to_string(
        dir.join(format!("ntoken_{SIZE}/org_slash_test-model.runlog.jsonl")),
    )
    .unwrap();
    assert!(!log.contains(KEY));
    let records: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let answered = records.iter().filter(|r| r["status"] == "answered").count();
    assert_eq!(answered, ids.len(), "one record per answer");
    let r = records.iter().find(|r| r["task_id"].as_str().unwrap().ends_with("::cross")).unwrap();
    assert_eq!(r["truncated"], true);
    assert_eq!(r["provider"], "openai");
    assert_eq!(r["base_url"], server.url("/v1"));
    assert_eq!(r["params"]["max_tokens"], 1024);
    let r = records
        .iter()
        .find(|r| r["task_id"].as_str().unwrap().ends_with("::format_number"))
        .unwrap();
    assert_eq!(r["status"], "failed");
    // The task that failed counts as a failure, and is named.
    let failed = json!(["cpp::repoqa-web/demo-geometry::format_number"]);
    assert_eq!(scores_of(&outputs)[MODEL]["unanswered_tasks"], failed);
    check_scores(&outputs, &dir);

    // A third run asks only the failed task again, once.
    let before = server.requests().len();
    let o = repoqa()
        .args(run_args(&server, "openai", &dir))
        .arg("--only-failed")
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(text(&o).contains("1 task(s) failed in an earlier run, asked again"), "{}", text(&o));
    let after = server.requests();
    assert_eq!(after.len() - before, 1);
    assert!(after[before]["task"].as_str().unwrap().ends_with("::format_number"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn three_wire_formats_give_the_same_scores() {
    let dir = tmpdir("formats");
    let tasks = official_tasks(&dir);
    let mut tables = Vec::new();
    for backend in ["openai", "anthropic", "google"] {
        let server = ModelServer::start(
            &common::root(),
            &[
                "--dataset",
                demo().to_str().unwrap(),
                "--key",
                KEY,
                "--model",
                MODEL,
                "--fault",
                "wrap=429",
                "--fault",
                "line=500",
            ],
        );
        let sub = dir.join(backend);
        let o = repoqa()
            .args(run_args(&server, backend, &sub))
            .args(["--languages", "python,go", "--concurrency", "3"])
            .env(key_env(backend), KEY)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{backend}: {}", text(&o));
        let outputs = outputs_path(&sub);
        let ids = check_outputs(&outputs, &tasks);
        assert_eq!(ids.len(), 20, "{backend}");
        check_requests(&server, &tasks, backend);
        if backend == "anthropic" {
            for r in server.requests() {
                let h: Vec<&str> =
                    r["headers"].as_array().unwrap().iter().map(|h| h.as_str().unwrap()).collect();
                assert!(h.contains(&"x-api-key") && h.contains(&"anthropic-version"), "{h:?}");
                assert!(r["browser_access"].is_null(), "the CLI is not a browser");
            }
        }
        check_scores(&outputs, &sub);
        let scores: Value = serde_json::from_str(
            &std::fs::read_to_string(outputs.to_str().unwrap().replace(".jsonl", "-SCORES.json"))
                .unwrap(),
        )
        .unwrap();
        tables.push(scores[MODEL]["scores"].clone());
    }
    assert_eq!(tables[0], tables[1]);
    assert_eq!(tables[0], tables[2]);
    // The test server answers needles 0, 1, 4, 5, 8, 9 of each repo with
    // the needle itself.
    let pass = tables[0]["all"]["0.8"]["pass@1"].as_f64().unwrap();
    assert!((pass - 0.6).abs() < 1e-9, "{pass}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_refused_key_stops_the_run_with_what_to_fix() {
    let dir = tmpdir("key");
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo().to_str().unwrap(), "--key", KEY, "--model", MODEL],
    );
    let o = repoqa()
        .args(run_args(&server, "openai", &dir))
        .env("OPENAI_API_KEY", "sk-wrong")
        .output()
        .unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("HTTP 401, the API key was refused: Incorrect API key provided; check the key (OPENAI_API_KEY)"), "{err}");
    assert!(!err.contains("sk-wrong"));
    assert!(
        server.requests().len() <= 4,
        "stopped at once, not retried: {}",
        server.requests().len()
    );
    // A model the server does not have: 404 says to check the URL and model.
    let args: Vec<String> = run_args(&server, "openai", &dir)
        .into_iter()
        .map(|a| if a == MODEL { "no-such-model".to_string() } else { a })
        .collect();
    let o = repoqa().args(args).env("OPENAI_API_KEY", KEY).output().unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("HTTP 404: The model does not exist; check the base URL and the model name \"no-such-model\""), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_failed_after_an_interrupted_run_does_not_end_well_with_tasks_never_asked() {
    let dir = tmpdir("onlyfailed");
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo().to_str().unwrap(), "--key", KEY, "--model", MODEL],
    );
    let run = || {
        let mut c = repoqa();
        c.args(run_args(&server, "openai", &dir)).env("OPENAI_API_KEY", KEY);
        c
    };
    let o = run().output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // As an interrupted run leaves it: 5 answers, the 6th task failed, the
    // rest never asked.
    let outputs = outputs_path(&dir);
    let log_path = outputs.with_extension("runlog.jsonl");
    let total = std::fs::read_to_string(&outputs).unwrap().lines().count();
    let keep: String = std::fs::read_to_string(&outputs)
        .unwrap()
        .lines()
        .take(5)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&outputs, keep).unwrap();
    let log_text = std::fs::read_to_string(&log_path).unwrap();
    let mut records: Vec<Value> =
        log_text.lines().take(6).map(|l| serde_json::from_str(l).unwrap()).collect();
    records[5]["status"] = json!("failed");
    records[5]["reason"] = json!("HTTP 500");
    let failed_id = records[5]["task_id"].as_str().unwrap().to_string();
    std::fs::write(&log_path, records.iter().map(|r| format!("{r}\n")).collect::<String>())
        .unwrap();

    let before = server.requests().len();
    let o = run().arg("--only-failed").output().unwrap();
    let err = text(&o);
    let never = total - 6;
    assert_eq!(o.status.code(), Some(3), "not a success while {never} tasks have no answer: {err}");
    assert!(
        err.contains(&format!(
            "WARNING: {never} selected task(s) have no answer and were never asked"
        )),
        "{err}"
    );
    assert!(err.contains(&format!("{never} task(s) left without an answer:")), "{err}");
    assert!(err.contains("(never asked; --only-failed left it out)"), "{err}");
    assert!(
        err.contains(&format!("… and {} more: see the run log", never - 20)),
        "at most 20 named: {err}"
    );
    let asked: Vec<Value> = server.requests()[before..].to_vec();
    assert_eq!(asked.len(), 1, "only the failed task is asked");
    assert_eq!(asked[0]["task"].as_str(), Some(failed_id.as_str()));
    check_unanswered_scored_as_failures(&dir, &outputs, never, total, &err);

    // --score-answered-only: `repoqa score` on the outputs as they are,
    // the missing tasks still named.
    let o = run().args(["--only-failed", "--score-answered-only"]).output().unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!(
            "({} tasks; {never} without an answer, scored as left out)",
            total - never
        )),
        "the table's title says so: {stdout}"
    );
    let scores = scores_of(&outputs);
    assert_eq!(scores[MODEL]["unanswered_scored_as"], "left out");
    assert_eq!(scores[MODEL]["unanswered_count"], never);
    let tasks_in: usize = scores[MODEL]["results"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    assert_eq!(tasks_in, total - never);
    check_scores(&outputs, &dir);

    // A plain rerun asks the rest and ends well.
    let o = run().output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&outputs).unwrap().lines().count(), total);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The test server on the demo, with the key and model, and `extra` flags.
fn plain_server(extra: &[&str]) -> ModelServer {
    let demo = demo();
    let mut args = vec!["--dataset", demo.to_str().unwrap(), "--key", KEY, "--model", MODEL];
    args.extend(extra);
    ModelServer::start(&common::root(), &args)
}

fn scores_of(outputs: &Path) -> Value {
    let p = outputs.to_str().unwrap().replace(".jsonl", "-SCORES.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// After a run that left `never` of `total` tasks without an answer: the
/// SCORES file counts them as failures over all `total` tasks, names them,
/// equals `repoqa score` on the outputs plus an empty reply
/// (`"output": [""]`) for each, and `repoqa verify` accepts it against the
/// outputs as they are, but not once such a task is made to pass.
fn check_unanswered_scored_as_failures(
    dir: &Path,
    outputs: &Path,
    never: usize,
    total: usize,
    err: &str,
) {
    assert!(
        err.contains(&format!("{never} selected task(s) have no answer: scored as failures")),
        "{err}"
    );
    let scores = scores_of(outputs);
    let m = &scores[MODEL];
    assert_eq!(m["unanswered_count"], never);
    assert_eq!(m["unanswered_scored_as"], "failures");
    let missing: Vec<String> = m["unanswered_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(missing.len(), never);
    let tasks_in: usize =
        m["results"].as_object().unwrap().values().map(|v| v.as_array().unwrap().len()).sum();
    assert_eq!(tasks_in, total, "every selected task is in the score");
    // The same as the official scorer's on the outputs plus empty replies.
    check_scores(outputs, dir);

    // Verified against the outputs as they are; a passing unanswered task
    // is a mismatch.
    let scores_path = PathBuf::from(outputs.to_str().unwrap().replace(".jsonl", "-SCORES.json"));
    let verify = |scores: &Path| {
        repoqa()
            .args(["verify", "--dataset-path", demo().to_str().unwrap()])
            .arg("--scores")
            .arg(scores)
            .arg("--model-output-path")
            .arg(outputs)
            .output()
            .unwrap()
    };
    let o = verify(&scores_path);
    assert_eq!(o.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&o.stdout), text(&o));
    let mut forged = scores.clone();
    let (lang, repo, name) = {
        let mut p = missing[0].split("::");
        (
            p.next().unwrap().to_string(),
            p.next().unwrap().to_string(),
            p.next().unwrap().to_string(),
        )
    };
    for r in forged[MODEL]["results"][&lang].as_array_mut().unwrap() {
        if r["repo"] == repo.as_str() && r["name"] == name.as_str() {
            r["is_best_similar"] = json!(true);
            r["best_similar_score"] = json!(1.0);
            r["best_target"] = json!(name);
        }
    }
    let forged_path = dir.join("forged-SCORES.json");
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    let o = verify(&forged_path);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_ne!(o.status.code(), Some(0), "a forged pass on an unanswered task: {out}");
    assert!(out.contains(&name), "the forged task is named: {out}");
}

/// Defect 1 of issue 27: a server that answers one request at a time
/// (llama.cpp, Ollama with one slot), asked at the default concurrency 4
/// with a timeout shorter than four answers take: the queue wait counted
/// against the timeout and abandoned requests piled up.
#[test]
fn a_one_slot_server_is_asked_one_request_at_a_time() {
    let one_slot = |props: bool| {
        let mut a = vec!["--slots", "1", "--latency-s", "0.6"];
        if props {
            a.push("--props");
        }
        plain_server(&a)
    };
    let ask = |server: &ModelServer, dir: &Path| {
        let o = repoqa()
            .args(run_args(server, "openai", dir))
            .args(["--filter", "python::"])
            .env("OPENAI_API_KEY", KEY)
            .output()
            .unwrap();
        let answered = std::fs::read_to_string(outputs_path(dir)).unwrap().lines().count();
        (o, answered)
    };

    // llama.cpp says how many slots it has: one request at a time, none
    // abandoned, none asked twice.
    let dir = tmpdir("oneslot-props");
    let server = one_slot(true);
    let (o, answered) = ask(&server, &dir);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("answers 1 request(s) at a time (its /props total_slots): concurrency lowered from 4 to 1"),
        "{err}"
    );
    assert!(err.contains("(concurrency 1, timeout 2 s)"), "{err}");
    assert_eq!(answered, 10);
    assert_eq!(server.stats()["max_busy"], 1);
    let posts = server.requests().len();
    assert_eq!(posts, 10, "every task asked once: {err}");
    let _ = std::fs::remove_dir_all(&dir);

    // A server that does not say: the first timeout while others wait
    // lowers the concurrency, and every task ends answered.
    let dir = tmpdir("oneslot-adapt");
    let server = one_slot(false);
    let (o, answered) = ask(&server, &dir);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("timed out while others were waiting"), "{err}");
    assert!(err.contains("concurrency lowered to 2"), "{err}");
    assert_eq!(answered, 10);
    let posts = server.requests().len();
    println!("one slot, no /props: 10 tasks answered with {posts} requests");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Defects 5 and 6 of issue 27: in a log (stderr not a terminal) the
/// progress is a plain line every few seconds, never carriage-return
/// redraws; before the first reply it says no time left rather than "ETA
/// 0 s", and elapsed time moves while no reply comes; Ctrl-C says where the
/// answers are and to run the same command again, and exits 130.
#[test]
fn progress_in_a_log_is_lines_and_ctrl_c_says_how_to_resume() {
    let dir = tmpdir("progress");
    let server = plain_server(&["--latency-s", "1.5"]);
    let child = repoqa()
        .args(run_args(&server, "openai", &dir))
        .args(["--filter", "python::", "--concurrency", "1", "--progress-every", "0.5"])
        .env("OPENAI_API_KEY", KEY)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(3800));
    let st = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(!err.contains('\r'), "carriage returns in a log: {err:?}");
    let lines: Vec<&str> =
        err.lines().filter(|l| l.starts_with("run: ") && l.contains("/10")).collect();
    assert!(lines.len() >= 4, "a line every 0.5 s: {err}");
    assert!(
        lines[0].starts_with("run: 0/10")
            && lines[0].ends_with("time left known after the first reply"),
        "{err}"
    );
    assert!(!err.contains("ETA"), "{err}");
    assert!(lines.iter().any(|l| l.contains("about ") && l.contains(" s left")), "{err}");
    let kept = outputs_path(&dir);
    assert!(
        err.contains(&format!(
            "run: interrupted. Every answer that arrived is kept in {}",
            kept.display()
        )) && err.contains("run the same command again to resume"),
        "{err}"
    );
    let answered = std::fs::read_to_string(&kept).unwrap().lines().count();
    assert!((1..10).contains(&answered), "{answered} answers kept");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pre-flight plan: `--plan` asks nothing and writes nothing; its
/// token sum is the sum over the official prompts, counted with the
/// benchmark's tokenizer; the tasks that do not fit the server's window
/// (llama.cpp's /props n_ctx) with room for the answer are listed; the
/// cost follows the given prices.
#[test]
fn a_plan_counts_the_prompts_lists_what_does_not_fit_and_asks_nothing() {
    let dir = tmpdir("plan");
    let demo = demo();
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo.to_str().unwrap(), "--slots", "1", "--props", "--n-ctx", "3000"],
    );
    let tok = repoqa::code::tokenize::Tokenizer::from_file(&common::tokenizer_path()).unwrap();
    let official = official_tasks(&dir);
    let counts: HashMap<String, usize> =
        official.iter().map(|(id, (_, prompt))| (id.clone(), tok.count(prompt).unwrap())).collect();
    let sum: usize = counts.values().sum();
    let mut too_long: Vec<&String> =
        counts.iter().filter(|(_, &n)| n + 1024 > 3000).map(|(id, _)| id).collect();
    too_long.sort();
    assert!(
        !too_long.is_empty() && too_long.len() < counts.len(),
        "a window that splits the tasks"
    );

    let out_dir = dir.join("results");
    let o = repoqa()
        .args(run_args(&server, "openai", &out_dir))
        .args(["--plan", "--price-in", "1", "--price-out", "2", "--rate-limit", "30"])
        .output()
        .unwrap();
    let (stdout, err) = (String::from_utf8_lossy(&o.stdout).into_owned(), text(&o));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let n = counts.len();
    let fmt = |x: usize| repoqa::llm::plan::thousands(x as u64);
    assert!(
        stdout.starts_with(&format!("{n} task(s) to ask: {} prompt tokens", fmt(sum))),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("at most {} completion tokens (1024 per task)", fmt(n * 1024))),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "context window 3,000 tokens (the server's /props n_ctx): {} task(s) do not fit",
            too_long.len()
        )),
        "{stdout}"
    );
    let listed: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("  ") && l.ends_with(" prompt tokens)"))
        .map(|l| l.trim().split(' ').next().unwrap().to_string())
        .collect();
    // At most 20 named, each one that does not fit; then how many more.
    assert_eq!(listed.len(), too_long.len().min(20), "{stdout}");
    assert!(listed.iter().all(|id| too_long.contains(&id)), "{stdout}");
    if too_long.len() > 20 {
        assert!(stdout.contains(&format!("  … and {} more", too_long.len() - 20)), "{stdout}");
    }
    let cost = sum as f64 * 1.0 / 1e6 + (n * 1024) as f64 * 2.0 / 1e6;
    assert!(stdout.contains(&format!("= at most ${cost:.2}")), "{stdout}");
    assert!(
        stdout.contains("time: about 2 min 00 s (a limit of 30 requests per minute)"),
        "{stdout}"
    );
    assert!(server.requests().is_empty(), "a plan asked the server");
    assert!(!out_dir.exists(), "a plan wrote files");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Batch files: `repoqa batch export` writes each selected task's live
/// request as the provider documents a batch request (docs/batch-files.md),
/// and `repoqa batch import` of the results the test server gives for it
/// (in the provider's documented result format) writes the outputs a live
/// run writes on the same replies, byte for byte, and the same run-log
/// records (time and latency aside); a task whose request failed (a prompt
/// too long) fails alike. No key is needed for either.
#[test]
fn batch_files_give_the_outputs_of_a_live_run() {
    for backend in ["openai", "anthropic"] {
        let dir = tmpdir(&format!("batch-{backend}"));
        let server = plain_server(&["--fault", "format_number=ctx"]);
        let live = dir.join("live");
        let o = repoqa()
            .args(run_args(&server, backend, &live))
            .args(["--concurrency", "1"])
            .env(key_env(backend), KEY)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{}", text(&o));
        let bodies: Vec<Value> = server.requests().iter().map(|r| r["body"].clone()).collect();

        // Export: the documented request shape, each body the live one.
        let batch = dir.join("batch");
        let file = dir.join("requests.txt");
        let mut args = run_args(&server, backend, &batch);
        args.remove(0);
        let o = repoqa()
            .args(["batch", "export", "--out", file.to_str().unwrap()])
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let exported = std::fs::read_to_string(&file).unwrap();
        let requests: Vec<Value> = if backend == "openai" {
            exported.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
        } else {
            let v: Value = serde_json::from_str(&exported).unwrap();
            assert_eq!(v.as_object().unwrap().keys().collect::<Vec<_>>(), ["requests"]);
            v["requests"].as_array().unwrap().clone()
        };
        assert_eq!(requests.len(), 60);
        let mut seen = HashSet::new();
        for r in &requests {
            let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
            let (id, body) = if backend == "openai" {
                assert_eq!(keys, ["custom_id", "method", "url", "body"], "{r}");
                assert_eq!(r["method"], "POST");
                assert_eq!(r["url"], "/v1/chat/completions");
                (r["custom_id"].as_str().unwrap(), &r["body"])
            } else {
                assert_eq!(keys, ["custom_id", "params"], "{r}");
                (r["custom_id"].as_str().unwrap(), &r["params"])
            };
            assert!(
                (1..=64).contains(&id.len())
                    && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
                "custom_id {id:?} breaks ^[a-zA-Z0-9_-]{{1,64}}$"
            );
            assert!(seen.insert(id.to_string()), "custom_id {id} twice");
            assert!(bodies.contains(body), "{id}: not the live request: {body}");
        }
        assert!(!batch.exists(), "an export wrote run files");

        // The server answers the batch; the import equals the live run.
        let answered = server.batch(backend, &exported);
        let results = dir.join("results.jsonl");
        let errors = dir.join("errors.jsonl");
        std::fs::write(&results, answered["results"].as_str().unwrap()).unwrap();
        std::fs::write(&errors, answered["errors"].as_str().unwrap()).unwrap();
        let mut import = repoqa();
        import.args(["batch", "import", "--results", results.to_str().unwrap()]);
        if backend == "openai" {
            import.args(["--errors", errors.to_str().unwrap()]);
        }
        let o = import.args(&args).output().unwrap();
        let err = text(&o);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert!(
            err.contains("format_number (the prompt is longer than the model's context"),
            "{err}"
        );
        let read = |d: &Path| std::fs::read_to_string(outputs_path(d)).unwrap();
        assert_eq!(read(&batch), read(&live), "{backend}: the outputs differ from the live run's");
        let records = |d: &Path| -> Vec<Value> {
            let p = outputs_path(d).with_extension("runlog.jsonl");
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| {
                    let mut v: Value = serde_json::from_str(l).unwrap();
                    let m = v.as_object_mut().unwrap();
                    m.remove("time");
                    m.remove("latency_ms");
                    v
                })
                .collect()
        };
        let (ours, theirs) = (records(&batch), records(&live));
        assert_eq!(ours.len(), theirs.len(), "{backend}: the run logs differ in length");
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a, b, "{backend}: a run-log record differs from the live run's");
        }
        // Hostile results: a broken line is named; results from another task
        // list are refused; neither writes anything.
        let broken = dir.join("broken.jsonl");
        std::fs::write(&broken, "\n{\"custom_id\": \"t0-x\", \"oops\n").unwrap();
        let other = dir.join("other.jsonl");
        let first = answered["results"].as_str().unwrap().lines().next().unwrap();
        let (cid, _) = (first.split("\"custom_id\": \"").nth(1).unwrap().split_once('"')).unwrap();
        std::fs::write(&other, first.replace(cid, "t0-000000000000")).unwrap();
        for (bad, says) in
            [(&broken, "broken.jsonl: line 2: not JSON"), (&other, "name no task of this run")]
        {
            let before = read(&batch);
            let o = repoqa()
                .args(["batch", "import", "--results", bad.to_str().unwrap()])
                .args(&args)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(2), "{}", text(&o));
            assert!(text(&o).contains(says), "{}", text(&o));
            assert_eq!(read(&batch), before, "a refused import wrote");
        }
        println!("batch {backend}: 60 requests exported, 59 answers imported byte-identical to the live run's");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_selection_asks_a_seeded_sample_named_needles_or_the_first_tasks() {
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo().to_str().unwrap(), "--key", KEY, "--model", MODEL],
    );
    // The tasks one run asked (the server's log), and its exit and stderr.
    let asked = |extra: &[&str]| {
        let dir = tmpdir(&format!("select{}", extra.join("").replace([',', ':'], "_")));
        let before = server.requests().len();
        let o = repoqa()
            .args(run_args(&server, "openai", &dir))
            .args(extra)
            .env("OPENAI_API_KEY", KEY)
            .output()
            .unwrap();
        let mut tasks: Vec<String> = server.requests()[before..]
            .iter()
            .filter_map(|r| r["task"].as_str().map(String::from))
            .collect();
        tasks.sort();
        let lines = std::fs::read_to_string(outputs_path(&dir)).unwrap_or_default().lines().count();
        let _ = std::fs::remove_dir_all(&dir);
        (o.status.code(), tasks, lines, text(&o))
    };
    let (code, five, lines, err) = asked(&["--tasks", "5", "--seed", "3"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!((five.len(), lines), (5, 5), "{err}");
    assert!(err.contains("run: 5 of 60 tasks selected"), "{err}");
    assert_eq!(asked(&["--tasks", "5", "--seed", "3"]).1, five, "the same seed, the same tasks");
    assert_ne!(asked(&["--tasks", "5", "--seed", "4"]).1, five);
    let (code, named, ..) = asked(&["--needles", "wrap,format_number"]);
    assert_eq!(code, Some(0));
    let names: Vec<&str> = named.iter().map(|t| t.rsplit("::").next().unwrap()).collect();
    assert_eq!(names.len(), 2, "{named:?}");
    assert!(names.contains(&"wrap") && names.contains(&"format_number"), "{named:?}");
    let (code, first, ..) = asked(&["--filter", "python::", "--max-tasks", "2"]);
    assert_eq!(code, Some(0));
    assert_eq!(first.len(), 2);
    assert!(first.iter().all(|t| t.starts_with("python::")), "{first:?}");
    let (code, none, _, err) = asked(&["--needles", "no_such_function"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(none.is_empty());
    assert!(err.contains("no task matches --filter/--needles"), "{err}");
}

#[test]
fn a_model_the_server_does_not_list_is_warned_about() {
    let dir = tmpdir("models");
    let run = |server: &ModelServer| {
        let _ = std::fs::remove_dir_all(&dir);
        repoqa()
            .args(run_args(server, "openai", &dir))
            .args(["--tasks", "2"])
            .env("OPENAI_API_KEY", KEY)
            .output()
            .unwrap()
    };
    // llama-cpp-python answers to any name: the list is the only tell.
    let demo = demo();
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo.to_str().unwrap(), "--models", "qwen2.5-0.5b-instruct"],
    );
    let o = run(&server);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(0), "a warning, not a stop: {err}");
    assert!(
        err.contains(&format!(
            "run: WARNING: the server at {} lists 1 model(s) (qwen2.5-0.5b-instruct), not \"{MODEL}\"",
            server.url("/v1")
        )),
        "{err}"
    );
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo.to_str().unwrap(), "--models", &format!("other,{MODEL}")],
    );
    let o = run(&server);
    assert!(!text(&o).contains("WARNING: the server"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_server_that_is_down_stops_the_run_at_once() {
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tmpdir("down");
    let base = format!("http://127.0.0.1:{port}/v1");
    let demo = demo();
    let args = [
        "run",
        "--model",
        MODEL,
        "--base-url",
        &base,
        "--dataset-path",
        demo.to_str().unwrap(),
        "--code-context-size",
        SIZE,
        "--result-dir",
        dir.to_str().unwrap(),
        "--max-retries",
        "4",
        "--retry-base-ms",
        "50",
    ];
    let started = Instant::now();
    let o = repoqa().args(args).env("OPENAI_API_KEY", KEY).output().unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let why = format!("STOPPED: cannot connect to {base}: Connection refused");
    assert_eq!(err.matches(&why).count(), 1, "said once, whatever was in flight: {err}");
    assert!(err.contains("check that the server is running and the base URL"), "{err}");
    assert!(!err.contains("again in"), "nothing retried: {err}");
    assert!(err.len() < 2000, "a few lines, not one per attempt: {} bytes", err.len());
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_configuration_exits_2() {
    let dir = tmpdir("config");
    let demo = demo();
    let base = [
        "run",
        "--model",
        "m",
        "--dataset-path",
        demo.to_str().unwrap(),
        "--result-dir",
        dir.to_str().unwrap(),
    ];
    let o = repoqa().args(base).args(["--backend", "vllm"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("--backend openai --base-url"), "{}", text(&o));
    let o = repoqa().args(base).args(["--backend", "anthropic"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("no API key for anthropic (set ANTHROPIC_API_KEY or ANTHROPIC_KEY)"),
        "{}",
        text(&o)
    );
    let o = repoqa().args(base).args(["--base-url", "localhost:8000/v1"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("must start with http://"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `repoqa ladder --result-dir DIR --json`, which must succeed.
fn ladder_json(results: &Path) -> Value {
    let ladder = repoqa()
        .args(["ladder", "--result-dir", results.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(ladder.status.success(), "{}", text(&ladder));
    serde_json::from_slice(&ladder.stdout).unwrap()
}

/// A length ladder (issue 51): one `repoqa run --code-context-size
/// 1024,2048` writes upstream's layout for each length, its requests those
/// of `repoqa prompts` at that length; `repoqa ladder --json` gives each
/// length's overall pass@1 equal to that length's SCORES file; a plan
/// covers every length and asks nothing; `prompts` writes one file per
/// length, each equal to a one-length build.
#[test]
fn a_length_ladder_runs_every_length_in_one_command() {
    // `repoqa prompts` on the demo's python and go.
    let prompts = || {
        let mut c = repoqa();
        c.args(["prompts", "--dataset-path", demo().to_str().unwrap()]);
        c.args(["--languages", "python,go"]);
        c
    };
    let dir = tmpdir("ladder");
    let server = plain_server(&[]);
    let results = dir.join("results");
    let mut args = run_args(&server, "openai", &results);
    let size = args.iter().position(|a| a == "--code-context-size").unwrap() + 1;
    args[size] = "1024,2048".into();
    let plan = repoqa().args(&args).args(["--languages", "python,go", "--plan"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&plan.stdout).into_owned();
    assert_eq!(plan.status.code(), Some(0), "{}", text(&plan));
    assert_eq!(stdout.matches("20 task(s) to ask: ").count(), 2, "a plan per length: {stdout}");
    assert!(server.requests().is_empty(), "a plan asked the server");

    let o = repoqa()
        .args(&args)
        .args(["--languages", "python,go", "--concurrency", "3"])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("a length ladder, 2 lengths (1024, 2048)"), "{}", text(&o));
    let mut sent: Vec<String> = server
        .requests()
        .iter()
        .filter_map(|r| r["body"]["messages"][0]["content"].as_str().map(str::to_string))
        .collect();
    sent.sort();
    sent.dedup();
    let mut expected = Vec::new();
    for n in ["1024", "2048"] {
        let outputs = results.join(format!("ntoken_{n}")).join("org_slash_test-model.jsonl");
        let lines = std::fs::read_to_string(&outputs).unwrap();
        assert_eq!(lines.lines().count(), 20, "{n}");
        // The prompts of that length, as `repoqa prompts` builds them.
        let tasks = dir.join(format!("tasks-{n}.jsonl"));
        let p = prompts()
            .args(["--code-context-size", n, "--out", tasks.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(p.status.success(), "{}", text(&p));
        for l in std::fs::read_to_string(&tasks).unwrap().lines() {
            let t: Value = serde_json::from_str(l).unwrap();
            expected.push(prompt_of(&t));
        }
    }
    expected.sort();
    assert_eq!(sent.len(), 40, "every task of both lengths asked once");
    assert_eq!(sent, expected, "the requests are the official prompts of each length");

    let v = ladder_json(&results);
    let lengths = v["models"][0]["lengths"].as_array().unwrap();
    assert_eq!(v["models"][0]["model"], MODEL);
    assert_eq!(lengths.len(), 2);
    for l in lengths {
        let n = l["ntoken"].as_u64().unwrap();
        let scores =
            scores_of(&results.join(format!("ntoken_{n}")).join("org_slash_test-model.jsonl"));
        assert_eq!(l["pass@1"], scores[MODEL]["scores"]["all"]["0.8"]["pass@1"], "{n}");
        assert_eq!(l["n"], 20);
    }
    let text_out =
        repoqa().args(["ladder", "--result-dir", results.to_str().unwrap()]).output().unwrap();
    let shown = String::from_utf8_lossy(&text_out.stdout).into_owned();
    assert!(
        shown.contains("needle depth × length") && shown.contains("effective context length"),
        "{shown}"
    );
    println!("{shown}");

    // The report over both lengths' SCORES files: pass@1 by length equal to
    // each file's, and the depth × length heatmap counting every task.
    let report = dir.join("report.html");
    let files: Vec<String> = ["1024", "2048"]
        .iter()
        .map(|n| {
            let p = results.join(format!("ntoken_{n}")).join("org_slash_test-model-SCORES.json");
            p.to_str().unwrap().to_string()
        })
        .collect();
    let r = repoqa()
        .args(["report", "--scores", &files[0], &files[1], "--out", report.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", text(&r));
    let html = std::fs::read_to_string(&report).unwrap();
    assert_eq!(html.matches("<section class=\"ladder\"").count(), 1, "one model, one ladder");
    for l in lengths {
        let n = l["ntoken"].as_u64().unwrap();
        let row = format!("<tr data-ntoken=\"{n}\" data-pass=\"");
        let at = html.find(&row).unwrap_or_else(|| panic!("{n}: no row in the report"));
        let pass: f64 = html[at + row.len()..].split('"').next().unwrap().parse().unwrap();
        assert_eq!(Some(pass), l["pass@1"].as_f64(), "{n}");
    }
    let heat = &html[html.find("<table class=\"heatmap\">").expect("a heatmap")..];
    let heat = &heat[..heat.find("</table>").unwrap()];
    let cells: usize = heat
        .split("data-n=\"")
        .skip(1)
        .filter_map(|c| c.split('"').next()?.parse::<usize>().ok())
        .sum();
    assert_eq!(cells, 40, "the heatmap counts every task of both lengths once");

    // prompts: one file per length, each the one-length build.
    let both =
        prompts().current_dir(&dir).args(["--code-context-size", "1024,2048"]).output().unwrap();
    assert!(both.status.success(), "{}", text(&both));
    for n in ["1024", "2048"] {
        let made: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|f| f.contains(&format!("ntoken_{n}")) && f.ends_with(".jsonl"))
            .collect();
        assert_eq!(made.len(), 1, "{n}: {made:?}");
        assert_eq!(
            std::fs::read(dir.join(&made[0])).unwrap(),
            std::fs::read(dir.join(format!("tasks-{n}.jsonl"))).unwrap(),
            "{n}"
        );
    }
    // A list where one length is meant is refused, naming the flag.
    let audit = repoqa()
        .args([
            "audit",
            "--dataset-path",
            demo().to_str().unwrap(),
            "--code-context-size",
            "1024,2048",
        ])
        .output()
        .unwrap();
    assert_eq!(audit.status.code(), Some(2));
    assert!(text(&audit).contains("this command builds at one length"), "{}", text(&audit));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A depth grid (issue 51, NOT UPSTREAM): one `repoqa run --depths 0,0.5,1
/// --code-context-size 1024,2048` runs every needle at each depth and
/// length into `ntoken_<N>/depth_<r>/`, its requests those of `repoqa
/// prompts --position-ratio r` (whose parity with the official builder at
/// any ratio `parity_prompts` holds); `repoqa ladder --json` gives a grid
/// cell per file, equal to its SCORES file, and each length pooled over
/// its depths; `prompts --depths` writes a file per depth and length.
#[test]
fn a_depth_grid_runs_every_depth_and_length_in_one_command() {
    let prompts = || {
        let mut c = repoqa();
        c.args(["prompts", "--dataset-path", demo().to_str().unwrap(), "--languages", "python"]);
        c
    };
    let dir = tmpdir("depth-grid");
    let server = plain_server(&[]);
    let results = dir.join("results");
    let mut args = run_args(&server, "openai", &results);
    let size = args.iter().position(|a| a == "--code-context-size").unwrap() + 1;
    args[size] = "1024,2048".into();
    let o = repoqa()
        .args(&args)
        .args(["--languages", "python", "--depths", "0,0.5,1", "--concurrency", "3"])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("a depth grid, every needle at each of 3 depths (0, 0.5, 1)"),
        "{}",
        text(&o)
    );
    let mut sent: Vec<String> = server
        .requests()
        .iter()
        .filter_map(|r| r["body"]["messages"][0]["content"].as_str().map(str::to_string))
        .collect();
    assert_eq!(sent.len(), 60, "10 tasks at each of 2 lengths and 3 depths, each asked once");
    sent.sort();
    let mut expected = Vec::new();
    for n in ["1024", "2048"] {
        for (d, dir_name) in [("0", "depth_0"), ("0.5", "depth_0.5"), ("1", "depth_1")] {
            let outputs = results
                .join(format!("ntoken_{n}"))
                .join(dir_name)
                .join("org_slash_test-model.jsonl");
            let lines = std::fs::read_to_string(&outputs).unwrap();
            assert_eq!(lines.lines().count(), 10, "{n} {d}");
            let scores = scores_of(&outputs);
            for t in scores[MODEL]["results"]["python"].as_array().unwrap() {
                assert_eq!(t["needle_position"].as_f64(), d.parse::<f64>().ok(), "{n} {d}");
            }
            let tasks = dir.join(format!("tasks-{n}-{d}.jsonl"));
            let p = prompts()
                .args(["--code-context-size", n, "--position-ratio", d])
                .args(["--out", tasks.to_str().unwrap()])
                .output()
                .unwrap();
            assert!(p.status.success(), "{}", text(&p));
            for l in std::fs::read_to_string(&tasks).unwrap().lines() {
                expected.push(prompt_of(&serde_json::from_str(l).unwrap()));
            }
        }
    }
    expected.sort();
    assert_eq!(sent, expected, "the requests are the prompts at each depth and length");

    let v = ladder_json(&results);
    let m = &v["models"][0];
    let cells = m["depth_grid"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for c in cells {
        let (n, depth) = (c["ntoken"].as_u64().unwrap(), c["depth"].as_f64().unwrap());
        let scores = scores_of(
            &results
                .join(format!("ntoken_{n}"))
                .join(format!("depth_{depth}"))
                .join("org_slash_test-model.jsonl"),
        );
        assert_eq!(c["pass@1"], scores[MODEL]["scores"]["all"]["0.8"]["pass@1"], "{n} {depth}");
        assert_eq!(c["n"], 10);
    }
    for l in m["lengths"].as_array().unwrap() {
        assert_eq!(l["n"], 30, "a length pools its three depths: {l}");
        let n = l["ntoken"].as_u64();
        let passed: u64 = cells
            .iter()
            .filter(|c| c["ntoken"].as_u64() == n)
            .map(|c| c["passed"].as_u64().unwrap())
            .sum();
        assert_eq!(l["passed"].as_u64(), Some(passed));
    }
    let shown =
        repoqa().args(["ladder", "--result-dir", results.to_str().unwrap()]).output().unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    assert!(shown.contains("depth grid (NOT UPSTREAM"), "{shown}");
    println!("{shown}");

    // The report over the six SCORES files: the same grid, cell by cell.
    let report = dir.join("grid.html");
    let mut r = repoqa();
    r.args(["report", "--out", report.to_str().unwrap(), "--scores"]);
    for c in cells {
        let depth = c["depth"].as_f64().unwrap();
        let n = c["ntoken"].as_u64().unwrap();
        let p = results
            .join(format!("ntoken_{n}"))
            .join(format!("depth_{depth}"))
            .join("org_slash_test-model-SCORES.json");
        r.arg(p);
    }
    let r = r.output().unwrap();
    assert!(r.status.success(), "{}", text(&r));
    let html = std::fs::read_to_string(&report).unwrap();
    for c in cells {
        let cell = format!(
            "data-depth=\"{}\" data-ntoken=\"{}\" data-pass=\"{}\" data-passed=\"{}\" data-n=\"10\"",
            c["depth"], c["ntoken"], c["pass@1"], c["passed"]
        );
        assert!(html.contains(&cell), "no {cell} in the report's depth grid");
    }
    // One length at three depths is a ladder section too: the grid alone.
    let one = dir.join("grid-1024.html");
    let mut r = repoqa();
    r.args(["report", "--out", one.to_str().unwrap(), "--scores"]);
    for d in ["0", "0.5", "1"] {
        r.arg(
            results
                .join("ntoken_1024")
                .join(format!("depth_{d}"))
                .join("org_slash_test-model-SCORES.json"),
        );
    }
    let r = r.output().unwrap();
    assert!(r.status.success(), "{}", text(&r));
    let html = std::fs::read_to_string(&one).unwrap();
    assert_eq!(html.matches(" data-depth=").count(), 3, "the 1024-token grid in {html}");
    assert!(html.contains("One length only: no effective length to find"), "{html}");

    // prompts --depths: a file per depth and length, each the one-depth build.
    let grid = prompts()
        .current_dir(&dir)
        .args(["--code-context-size", "1024,2048", "--depths", "0,0.5,1"])
        .output()
        .unwrap();
    assert!(grid.status.success(), "{}", text(&grid));
    let made: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|f| f.contains("_ratio_") && f.ends_with("-tasks.jsonl"))
        .collect();
    assert_eq!(made.len(), 6, "{made:?}");
    let one = made.iter().find(|f| f.contains("ntoken_2048") && f.contains("_ratio_0.5-")).unwrap();
    assert_eq!(
        std::fs::read(dir.join(one)).unwrap(),
        std::fs::read(dir.join("tasks-2048-0.5.jsonl")).unwrap()
    );
    // A grid where the official depths are meant is refused, naming the flag.
    let audit = repoqa()
        .args(["audit", "--dataset-path", demo().to_str().unwrap(), "--depths", "0,1"])
        .output()
        .unwrap();
    assert_eq!(audit.status.code(), Some(2));
    assert!(
        text(&audit).contains("--depths: this command builds at the official depths"),
        "{}",
        text(&audit)
    );
    let bad = prompts().args(["--depths", "0,1.5"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run --closed-book` (issue 83) through every wire format: no request
/// holds any of the code (checked against the needle's own lines, which the
/// run with the code does send), every request holds the needle's
/// description, and the SCORES file says it was closed-book.
#[test]
fn closed_book_requests_hold_no_code_in_any_wire_format() {
    let dir = tmpdir("closed-book");
    let open_book = official_tasks(&dir);
    let dataset: Value = serde_json::from_slice(&std::fs::read(demo()).unwrap()).unwrap();
    // Each python needle's code lines of 30 characters or more, and its description.
    let mut needles: HashMap<String, (Vec<String>, String)> = HashMap::new();
    for repo in dataset["python"].as_array().unwrap() {
        for n in repo["needles"].as_array().unwrap() {
            let text = repo["content"][n["path"].as_str().unwrap()].as_str().unwrap();
            let code = &text.as_bytes()[n["start_byte"].as_u64().unwrap() as usize
                ..n["end_byte"].as_u64().unwrap() as usize];
            let lines: Vec<String> = String::from_utf8_lossy(code)
                .lines()
                .map(str::trim)
                .filter(|l| l.len() >= 30)
                .map(String::from)
                .collect();
            let id = format!(
                "python::{}::{}",
                repo["repo"].as_str().unwrap(),
                n["name"].as_str().unwrap()
            );
            needles.insert(id, (lines, n["description"].as_str().unwrap().to_string()));
        }
    }
    for backend in ["openai", "anthropic", "google"] {
        let server = ModelServer::start(
            &common::root(),
            &["--dataset", demo().to_str().unwrap(), "--key", KEY, "--model", MODEL],
        );
        let sub = dir.join(backend);
        let o = repoqa()
            .args(run_args(&server, backend, &sub))
            .args(["--languages", "python", "--closed-book", "--model-cutoff", "2026-01-01"])
            .env(key_env(backend), KEY)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{backend}: {}", text(&o));
        let reqs = server.requests();
        assert_eq!(reqs.len(), 10, "{backend}");
        for r in &reqs {
            let id = r["task"].as_str().unwrap();
            let body = r["body"].to_string();
            let (lines, description) = &needles[id];
            assert!(!lines.is_empty(), "{id}");
            // The control: the run with the code sends these lines.
            let with_code = serde_json::to_string(&open_book[id].1).unwrap();
            assert!(lines.iter().any(|l| with_code.contains(&escaped(l))), "{id}");
            for l in lines {
                assert!(
                    !body.contains(&escaped(l)),
                    "{backend} {id}: the closed-book request holds code: {l}"
                );
            }
            assert!(body.contains(&escaped(description)), "{backend} {id}: no description");
        }
        let scores = walk_scores(&sub);
        assert_eq!(scores.len(), 1, "{backend}: {scores:?}");
        let file: Value = serde_json::from_slice(&std::fs::read(&scores[0]).unwrap()).unwrap();
        assert_eq!(file[MODEL]["closed_book"], true, "{backend}");
        assert_eq!(file[MODEL]["protocol"], "no-context", "{backend}");
        assert_eq!(file[MODEL]["model_cutoff"], "2026-01-01", "{backend}");
        assert!(file[MODEL].get("dataset_freshness").is_none(), "the demo's sources have no date");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `text` as it stands inside a JSON string.
fn escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

/// Every `*-SCORES.json` under `dir`.
fn walk_scores(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with("SCORES.json") {
                out.push(p);
            }
        }
    }
    out
}
