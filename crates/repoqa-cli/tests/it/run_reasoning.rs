//! `repoqa run` with reasoning models, against the project's test model
//! server (tests/oracle/model_server.py), which answers as each provider's
//! reasoning models do: OpenAI's o-series refuse `max_tokens` and a
//! temperature, Gemini 2.5 thinks by default inside `maxOutputTokens`,
//! Claude thinks when asked, Qwen3 and R1 distills put `<think>` inline,
//! DeepSeek's API sends `reasoning_content`. Every task is answered right
//! after a thinking whose first code block is another needle (what a
//! scorer reading the thinking would take).
//!
//!     cargo test -p repoqa-cli --test it run_reasoning::

use crate::stderr;
use repoqa_testkit as common;
use repoqa_testkit::model_server::ModelServer;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};

const SIZE: &str = "2048";
const TASKS: &str = "8";

fn demo() -> PathBuf {
    common::root().join("public/demo/repoqa-demo.json")
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("repoqa-reasoning-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn server() -> ModelServer {
    ModelServer::start(&common::root(), &["--dataset", demo().to_str().unwrap()])
}

/// `repoqa run` of `model` over `backend`, 8 sampled tasks, with `extra` flags.
/// (pass@1 in SCORES is a fraction: 1.0 is every task.)
fn run(server: &ModelServer, backend: &str, model: &str, dir: &Path, extra: &[&str]) -> Output {
    run_tasks(server, backend, model, dir, TASKS, extra)
}

/// `run` over `tasks` sampled tasks.
fn run_tasks(
    server: &ModelServer,
    backend: &str,
    model: &str,
    dir: &Path,
    tasks: &str,
    extra: &[&str],
) -> Output {
    let base = if backend == "google" { server.url("/v1beta") } else { server.url("/v1") };
    let mut c = crate::repoqa_command();
    c.env("REPOQA_TOKENIZER", common::tokenizer_path())
        .env("OPENAI_API_KEY", "sk-test")
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("GOOGLE_API_KEY", "sk-test")
        .args(["run", "--model", model, "--backend", backend, "--base-url", &base])
        .arg("--dataset-path")
        .arg(demo())
        .args(["--code-context-size", SIZE, "--tasks", tasks, "--retry-base-ms", "10"])
        .arg("--result-dir")
        .arg(dir)
        .args(extra);
    c.output().unwrap()
}

fn stem(model: &str) -> String {
    model.replace('/', "_slash_")
}

fn outputs(dir: &Path, model: &str) -> String {
    let p = dir.join(format!("ntoken_{SIZE}")).join(format!("{}.jsonl", stem(model)));
    std::fs::read_to_string(p).unwrap_or_default()
}

fn runlog(dir: &Path, model: &str) -> Vec<Value> {
    let p = dir.join(format!("ntoken_{SIZE}")).join(format!("{}.runlog.jsonl", stem(model)));
    let text = std::fs::read_to_string(p).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn scores(dir: &Path, model: &str) -> Value {
    let p = dir.join(format!("ntoken_{SIZE}")).join(format!("{}-SCORES.json", stem(model)));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let v: Value = serde_json::from_str(&text).unwrap();
    v[model].clone()
}

fn pass_at_08(s: &Value) -> f64 {
    s["scores"]["all"]["0.8"]["pass@1"].as_f64().unwrap()
}

/// The bodies the server received for `model`.
fn bodies(server: &ModelServer, model: &str) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| {
            r["body"]["model"] == model || r["path"].as_str().is_some_and(|p| p.contains(model))
        })
        .map(|r| r["body"].clone())
        .collect()
}

#[test]
fn a_model_that_thinks_then_answers_right_scores_100_through_every_api() {
    let server = server();
    let cases: &[(&str, &str, &[&str], usize)] = &[
        // (backend, model, flags, answers whose inline <think> was taken out)
        ("openai", "o4-mini", &[], 0),
        ("anthropic", "claude-sonnet-4-5", &["--reasoning", "on", "--reasoning-budget", "4096"], 0),
        ("google", "gemini-2.5-flash", &[], 0),
        ("openai", "Qwen/Qwen3-8B", &[], 8),
        ("openai", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", &[], 8),
        ("openai", "deepseek-reasoner", &[], 0),
    ];
    for &(backend, model, flags, removed) in cases {
        let dir = tmpdir(&stem(model));
        let o = run(&server, backend, model, &dir, flags);
        let err = stderr(&o);
        assert!(o.status.success(), "{model}: {err}");
        assert!(err.contains("NOT UPSTREAM: asked as a reasoning model"), "{model}: {err}");
        let s = scores(&dir, model);
        assert_eq!(pass_at_08(&s), 1.0, "{model}: {err}");
        assert_eq!(s["inline_reasoning_removed"].as_u64().unwrap_or(0), removed as u64, "{model}");
        assert!(s.get("cut_replies").is_none(), "{model}");
        let out = outputs(&dir, model);
        assert_eq!(out.lines().count(), 8, "{model}");
        assert!(
            !out.contains("think>") && !out.contains("could fit this one"),
            "{model}: the thinking is not stored as the answer"
        );
        let log = runlog(&dir, model);
        // OpenAI shows no thinking, only its tokens; the others show it.
        let shown =
            |r: &Value| r["reasoning"].as_str().is_some_and(|t| t.contains("could fit this one"));
        let counted = |r: &Value| r["usage"]["reasoning_tokens"] == 2000;
        let logged = |r: &Value| if model == "o4-mini" { counted(r) } else { shown(r) };
        assert!(log.iter().all(logged), "{model}: {log:?}");
        assert!(
            log.iter().all(|r| r["params"]["reasoning"]["budget"].as_u64().is_some()),
            "{model}"
        );
    }
    // Each provider's request as documented.
    for b in bodies(&server, "o4-mini") {
        assert_eq!(b["max_completion_tokens"], 16384 + 1024, "{b}");
        assert!(b.get("max_tokens").is_none() && b.get("temperature").is_none(), "{b}");
    }
    for b in bodies(&server, "claude-sonnet-4-5") {
        assert_eq!(b["thinking"], serde_json::json!({"type": "enabled", "budget_tokens": 4096}));
        assert_eq!(b["max_tokens"], 4096 + 1024);
        assert!(b.get("temperature").is_none(), "{b}");
    }
    for b in bodies(&server, "gemini-2.5-flash") {
        let c = &b["generationConfig"];
        assert_eq!(c["maxOutputTokens"], 16384 + 1024, "{b}");
        assert_eq!(c["thinkingConfig"]["thinkingBudget"], 16384, "{b}");
    }
    for b in bodies(&server, "Qwen/Qwen3-8B") {
        assert_eq!(
            (b["max_tokens"].clone(), b["temperature"].clone()),
            (serde_json::json!(17408), serde_json::json!(0.0))
        );
    }
}

#[test]
fn keep_reasoning_stores_the_content_whole_as_upstream() {
    let server = server();
    let dir = tmpdir("keep");
    let model = "qwen3:8b";
    let o = run(&server, "openai", model, &dir, &["--keep-reasoning"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = outputs(&dir, model);
    assert_eq!(out.lines().filter(|l| l.contains("<think>")).count(), 8);
    // The sanitizer takes the thinking's code block: another needle.
    let s = scores(&dir, model);
    assert!(pass_at_08(&s) < 0.5, "the trap upstream falls into: {s}");
    assert!(s.get("inline_reasoning_removed").is_none());
}

#[test]
fn a_budget_spent_on_thinking_fails_the_task_then_only_failed_asks_it_again() {
    let server = server();
    let dir = tmpdir("budget");
    let model = "o4-mini";
    let o = run(&server, "openai", model, &dir, &["--reasoning-budget", "100"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("cut at the token limit before any answer (finish reason \"length\")"),
        "{err}"
    );
    assert!(err.contains("raise --reasoning-budget"), "{err}");
    assert_eq!(outputs(&dir, model), "", "nothing stored");
    let o = run(&server, "openai", model, &dir, &["--only-failed"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("8 task(s) failed in an earlier run, asked again"), "{err}");
    assert_eq!(pass_at_08(&scores(&dir, model)), 1.0);

    // Gemini asked the official way: its default thinking fills the 1,024 tokens.
    let dir = tmpdir("gemini-off");
    let model = "gemini-2.5-pro";
    let o = run(&server, "google", model, &dir, &["--reasoning", "off"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("the model reasons, and 1,024 thinking tokens filled the 1,024 tokens meant for the answer; ask it as a reasoning model (--reasoning on"), "{err}");
    assert_eq!(outputs(&dir, model), "");
    let o = run(&server, "google", model, &dir, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(pass_at_08(&scores(&dir, model)), 1.0);

    // An answer cut after it began: stored as it came, counted, named in SCORES.
    let dir = tmpdir("cut");
    let model = "claude-opus-4-1";
    let flags = ["--reasoning", "on", "--reasoning-budget", "1024", "--max-new-tokens", "5"];
    let o = run(&server, "anthropic", model, &dir, &flags);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("8 answer(s) were cut at the token limit and are scored as they came"),
        "{err}"
    );
    let s = scores(&dir, model);
    assert_eq!(s["cut_replies_count"], 8, "{s}");
    assert_eq!(outputs(&dir, model).lines().count(), 8);
    assert!(runlog(&dir, model)
        .iter()
        .all(|r| r["cut"] == true && r["finish_reason"] == "max_tokens"));
}

#[test]
fn the_official_request_to_an_o_series_model_stops_the_run_saying_what_to_do() {
    let server = server();
    let dir = tmpdir("o3-off");
    let o = run(&server, "openai", "o3", &dir, &["--reasoning", "off"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("Unsupported parameter: 'max_tokens'"), "{err}");
    assert!(err.contains("ask it as one (--reasoning on)"), "{err}");
    // A plain model is asked the official way, byte for byte.
    let dir = tmpdir("plain");
    let o = run(&server, "openai", "org/test-model", &dir, &[]);
    assert!(!stderr(&o).contains("reasoning model"));
    for b in bodies(&server, "org/test-model") {
        let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["model", "messages", "max_tokens", "temperature", "n"], "{b}");
    }
}

/// What a request carries: JSON pointer → value (null: absent).
type Wanted = Vec<(&'static str, Value)>;

#[test]
fn every_documented_effort_is_sent_as_each_api_takes_it_and_any_other_refused_before_a_request() {
    // A thinking of 500 tokens fits the smallest effort's budget (1,024).
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo().to_str().unwrap(), "--think-tokens", "500"],
    );

    // (backend, model, effort, what the request carries: JSON pointer → value, null: absent)
    let n = Value::Null;
    let cases: Vec<(&str, &str, &str, Wanted)> = vec![
        (
            "openai",
            "gpt-5.2",
            "none",
            vec![("/reasoning_effort", json!("none")), ("/max_completion_tokens", json!(1024))],
        ),
        (
            "openai",
            "gpt-5.2",
            "low",
            vec![("/reasoning_effort", json!("low")), ("/max_completion_tokens", json!(5120))],
        ),
        (
            "openai",
            "gpt-5.2",
            "medium",
            vec![("/reasoning_effort", json!("medium")), ("/max_completion_tokens", json!(17408))],
        ),
        (
            "openai",
            "gpt-5.2",
            "high",
            vec![("/reasoning_effort", json!("high")), ("/max_completion_tokens", json!(33792))],
        ),
        (
            "openai",
            "gpt-5.2",
            "xhigh",
            vec![
                ("/reasoning_effort", json!("xhigh")),
                ("/max_completion_tokens", json!(66560)),
                ("/temperature", n.clone()),
            ],
        ),
        (
            "openai",
            "gpt-5-mini",
            "minimal",
            vec![("/reasoning_effort", json!("minimal")), ("/max_completion_tokens", json!(2048))],
        ),
        // An open-weight thinker: the budget only (its server refuses "minimal").
        (
            "openai",
            "Qwen/Qwen3-8B",
            "minimal",
            vec![("/max_tokens", json!(2048)), ("/reasoning_effort", n.clone())],
        ),
        (
            "anthropic",
            "claude-sonnet-4-5",
            "none",
            vec![
                ("/thinking", json!({"type": "disabled"})),
                ("/max_tokens", json!(1024)),
                ("/temperature", json!(0.0)),
            ],
        ),
        (
            "anthropic",
            "claude-sonnet-4-5",
            "minimal",
            vec![
                ("/thinking/budget_tokens", json!(1024)),
                ("/max_tokens", json!(2048)),
                ("/temperature", n.clone()),
            ],
        ),
        (
            "anthropic",
            "claude-opus-4-1",
            "xhigh",
            vec![("/thinking/budget_tokens", json!(64000)), ("/max_tokens", json!(65024))],
        ),
        (
            "google",
            "gemini-2.5-flash",
            "none",
            vec![
                ("/generationConfig/thinkingConfig/thinkingBudget", json!(0)),
                ("/generationConfig/maxOutputTokens", json!(1024)),
            ],
        ),
        (
            "google",
            "gemini-2.5-pro",
            "xhigh",
            vec![("/generationConfig/thinkingConfig/thinkingBudget", json!(32768))],
        ),
        (
            "google",
            "gemini-3-flash-preview",
            "minimal",
            vec![
                ("/generationConfig/thinkingConfig/thinkingLevel", json!("minimal")),
                ("/generationConfig/thinkingConfig/thinkingBudget", n.clone()),
            ],
        ),
        (
            "google",
            "gemini-3-pro-preview",
            "low",
            vec![("/generationConfig/thinkingConfig/thinkingLevel", json!("low"))],
        ),
    ];
    for (backend, model, effort, want) in &cases {
        server.control(&json!({"reset": true}));
        let dir = tmpdir(&format!("effort-{}-{effort}", stem(model)));
        let o = run_tasks(&server, backend, model, &dir, "2", &["--reasoning-effort", effort]);
        let err = stderr(&o);
        assert!(o.status.success(), "{model} {effort}: {err}");
        assert_eq!(pass_at_08(&scores(&dir, model)), 1.0, "{model} {effort}: {err}");
        let sent = bodies(&server, model);
        assert_eq!(sent.len(), 2, "{model} {effort}");
        for b in &sent {
            for (ptr, v) in want {
                assert_eq!(
                    b.pointer(ptr).unwrap_or(&Value::Null),
                    v,
                    "{model} {effort} {ptr}: {b}"
                );
            }
        }
        // The run records what was asked, in the provider's own terms.
        let log = runlog(&dir, model);
        let r = &log[0]["params"]["reasoning"];
        assert_eq!(r["effort"], *effort, "{model}: {r}");
        assert!(r["control"].as_str().is_some_and(|c| !c.is_empty()), "{model}: {r}");
    }
    // A value the model does not take: refused before any request, naming those it takes.
    let refused: &[(&str, &str, &str, &str)] = &[
        ("openai", "gpt-5-mini", "none", "it takes minimal, low, medium, high"),
        ("openai", "gpt-5.1", "xhigh", "it takes none, low, medium, high"),
        ("openai", "o3", "minimal", "it takes low, medium, high"),
        ("google", "gemini-2.5-pro", "none", "it takes minimal, low, medium, high, xhigh"),
        ("google", "gemini-3-pro-preview", "medium", "it takes low, high"),
        ("openai", "deepseek-reasoner", "none", "it takes minimal, low, medium, high, xhigh"),
    ];
    server.control(&json!({"reset": true}));
    for (backend, model, effort, takes) in refused {
        let dir = tmpdir(&format!("refused-{}-{effort}", stem(model)));
        let o = run_tasks(&server, backend, model, &dir, "2", &["--reasoning-effort", effort]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{model} {effort}: {err}");
        assert!(err.contains(&format!("--reasoning-effort {effort}:")), "{err}");
        assert!(
            err.contains(takes) && err.contains("this app's list of models, checked 2026-11-27"),
            "{err}"
        );
    }
    assert_eq!(server.requests().len(), 0, "nothing was sent for a refused effort");
}
