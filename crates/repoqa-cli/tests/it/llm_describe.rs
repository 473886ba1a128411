//! `repoqa curate --llm-*` against a real HTTP server: tests/oracle/
//! openai_stub.py, an OpenAI-compatible chat-completions endpoint WITHOUT a
//! model (none is reachable offline). It checks the key and the model name
//! and answers with a four-point description computed from the code in the
//! prompt, so every description is predictable; it can be told to fail for
//! chosen needles. The repo is the demo's Python sources.
//!
//!     cargo test -p repoqa-cli --test it llm_describe::

use repoqa_testkit as common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use repoqa::code::lang::Language;
use repoqa::curate::{curate_repo, read_source_dir, CurateOptions, CurateReport, Descriptions};
use repoqa::input::dataset::{Dataset, Needle};
use serde_json::Value;

const KEY: &str = "sk-stub-0123456789";
const MODEL: &str = "stub-model";
const REPO: &str = "repoqa-web/demo-textkit";

fn source() -> PathBuf {
    common::root().join("public/demo/python")
}

/// The demo repo curated without descriptions: the sampled needles.
fn undescribed() -> CurateReport {
    let files = read_source_dir(&source(), Language::Python, Some("textkit")).unwrap();
    let mut opts = CurateOptions::new(Language::Python, REPO);
    opts.entry = Some("textkit".into());
    curate_repo(&files, &opts, &Descriptions::new()).unwrap()
}

/// What the stub answers for a needle (see openai_stub.py `description`).
fn stub_description(report: &CurateReport, n: &Needle) -> String {
    let code = report.needle_code(n).unwrap();
    let lines = code.matches('\n').count() + 1;
    let chars = code.chars().count();
    format!(
        "\n1. **Purpose**: Stub description of a python function of {lines} lines and {chars} characters.\n\
2. **Input**: Whatever its parameters are.\n\
3. **Output**: Whatever it returns.\n\
4. **Procedure**: Runs its {lines} lines in order.\n"
    )
}

struct Stub {
    child: Child,
    port: u16,
}

impl Stub {
    fn start(fails: &[(&str, &str)]) -> Stub {
        let mut cmd = Command::new(common::oracle_python());
        cmd.arg(common::root().join("tests/oracle/openai_stub.py"))
            .args(["--key", KEY, "--model", MODEL]);
        for (name, kind) in fails {
            cmd.args(["--fail", &format!("{name}={kind}")]);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the stub server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("stub said {line:?}"));
        Stub { child, port }
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    fn stats(&self) -> Value {
        let body = ureq::get(&format!("http://127.0.0.1:{}/stats", self.port))
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        serde_json::from_str(&body).unwrap()
    }

    fn requests(&self) -> u64 {
        self.stats()["requests"].as_u64().unwrap()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `repoqa curate` on the demo's Python sources with the model flags,
/// the key in $STUB_KEY; `extra` adds or overrides flags.
fn curate(stub: &Stub, key: &str, out: &Path, extra: &[&str]) -> (Output, String) {
    let out_s = out.display().to_string();
    let src = source().display().to_string();
    let base = stub.base_url();
    let mut args = vec![
        "curate",
        "--language",
        "python",
        "--repo",
        REPO,
        "--source",
        &src,
        "--entry",
        "textkit",
    ];
    args.extend(["--out", &out_s, "--llm-base-url", &base, "--llm-api-key-env", "STUB_KEY"]);
    if !extra.contains(&"--llm-model") {
        args.extend(["--llm-model", MODEL]);
    }
    args.extend(extra);
    let output = crate::repoqa_command().args(&args).env("STUB_KEY", key).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains(KEY), "the key is printed:\n{stderr}");
    (output, stderr)
}

fn needles(path: &Path) -> Vec<Needle> {
    let d = Dataset::from_bytes(&std::fs::read(path).unwrap(), "out").unwrap();
    d.repos("python").unwrap()[0].needles.clone()
}

/// Every request the stub saw had the system message, then the user's.
fn assert_system_then_user(stats: &serde_json::Value) {
    let roles = stats["roles"].as_array().unwrap();
    assert!(roles.iter().all(|r| r == &serde_json::json!(["system", "user"])), "{roles:?}");
}

fn saved(path: &Path) -> Descriptions {
    Descriptions::from_json(&std::fs::read(path).unwrap(), "saved").unwrap()
}

#[test]
fn every_needle_is_described_and_a_rerun_calls_nothing() {
    let report = undescribed();
    let stub = Stub::start(&[]);
    let dir = common::scratch("llm_describe/all");
    let out = dir.join("ds.json");
    let (o, err) = curate(&stub, KEY, &out, &[]);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("[1/10] describing ") && err.contains("[10/10] describing "), "{err}");
    assert_eq!(stub.requests(), 10);
    let st = stub.stats();
    assert!(st["models"].as_array().unwrap().iter().all(|m| m == MODEL));
    assert_system_then_user(&st);

    // The sampled needles, in sample order, each with the stub's description.
    let got = needles(&out);
    assert_eq!(got.len(), 10);
    for (g, s) in got.iter().zip(&report.sampled) {
        assert_eq!(
            (&g.name, &g.path, g.start_byte, g.end_byte),
            (&s.name, &s.path, s.start_byte, s.end_byte)
        );
        assert_eq!(g.description, stub_description(&report, s), "{}", s.name);
    }
    // The same needles as the committed demo dataset (which has hand-written descriptions).
    let demo = Dataset::from_bytes(
        &std::fs::read(common::root().join("public/demo/repoqa-demo.json")).unwrap(),
        "demo",
    )
    .unwrap();
    let demo_names: Vec<&str> =
        demo.repos("python").unwrap()[0].needles.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(got.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), demo_names);

    // The descriptions were saved next to the dataset; a rerun on them asks nothing.
    let file = dir.join("ds.descriptions.json");
    let d = saved(&file);
    assert_eq!(d.len(), 10);
    for n in &got {
        assert_eq!(d.get(&n.name), Some(n.description.as_str()));
    }
    let first = std::fs::read(&out).unwrap();
    let (o, err) = curate(&stub, KEY, &out, &["--descriptions", &file.display().to_string()]);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("the model is not called"), "{err}");
    assert_eq!(stub.requests(), 10, "no request on the rerun");
    assert_eq!(std::fs::read(&out).unwrap(), first);
}

#[test]
fn failing_needles_are_reported_by_name_and_left_out() {
    let report = undescribed();
    let name = |i: usize| report.sampled[i].name.as_str();
    let fails = [(name(2), "500"), (name(5), "429"), (name(7), "badjson"), (name(9), "nopoints")];
    let stub = Stub::start(&fails);
    let dir = common::scratch("llm_describe/fail");
    let out = dir.join("ds.json");
    let file = dir.join("mine.json");
    let (o, err) = curate(&stub, KEY, &out, &["--descriptions-out", &file.display().to_string()]);
    assert!(o.status.success(), "{err}");
    assert_eq!(stub.requests(), 10);
    for (needle, says) in [
        (name(2), "HTTP 500: stub: internal error"),
        (name(5), "HTTP 429, rate limited (Retry-After: 7): stub: rate limit reached"),
        (name(7), "is not JSON: \"<html><body>Bad gateway page</body></html>\""),
        (name(9), "no numbered points 1 to 4 (purpose, input, output, procedure): \"I would rather not describe this function.\""),
    ] {
        assert!(err.contains(&format!("curate: {needle}: ")) && err.contains(says), "{needle}: {says}\n{err}");
        assert!(err.contains(&format!("warning: needle {needle} (")), "{needle} not in the warnings\n{err}");
    }
    assert!(
        err.contains(&format!(
            "4 of 10 needles could not be described and are left out: {}, {}, {}, {}",
            name(2),
            name(5),
            name(7),
            name(9)
        )),
        "{err}"
    );
    let got = needles(&out);
    let kept: Vec<&str> = got.iter().map(|n| n.name.as_str()).collect();
    let expected: Vec<&str> = [0, 1, 3, 4, 6, 8].map(name).to_vec();
    assert_eq!(kept, expected);
    assert!(got.iter().all(|n| !n.description.trim().is_empty()));
    assert_eq!(saved(&file).len(), 6);

    // A rerun on the saved descriptions asks only for the four others.
    let healthy = Stub::start(&[]);
    let (o, err) = curate(
        &healthy,
        KEY,
        &out,
        &[
            "--descriptions",
            &file.display().to_string(),
            "--descriptions-out",
            &file.display().to_string(),
        ],
    );
    assert!(o.status.success(), "{err}");
    assert_eq!(healthy.requests(), 4);
    let got = needles(&out);
    assert_eq!(got.len(), 10);
    for (g, s) in got.iter().zip(&report.sampled) {
        assert_eq!(g.description, stub_description(&report, s), "{}", s.name);
    }
    assert_eq!(saved(&file).len(), 10);
}

#[test]
fn a_wrong_key_or_model_stops_with_a_message_to_act_on() {
    let stub = Stub::start(&[]);
    let dir = common::scratch("llm_describe/refused");
    let out = dir.join("ds.json");
    let _ = std::fs::remove_file(&out);
    let (o, err) = curate(&stub, "sk-wrong", &out, &[]);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "HTTP 401, the API key was refused: Incorrect API key provided; check the key"
        ),
        "{err}"
    );
    assert!(err.contains("stopped describing needles"), "{err}");
    assert_eq!(stub.requests(), 1, "stops at the first refusal");
    assert!(!out.exists(), "no dataset after a refusal");

    let (o, err) = curate(&stub, KEY, &out, &["--llm-model", "no-such-model"]);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("HTTP 404: The model `no-such-model` does not exist; check the base URL (it usually ends in /v1) and the model name \"no-such-model\""),
        "{err}"
    );

    // Nothing listens: the message says so, before any status.
    let closed = format!("http://127.0.0.1:{}/v1", stub.port);
    drop(stub);
    let out_s = out.display().to_string();
    let src = source().display().to_string();
    let o = crate::repoqa_command()
        .args([
            "curate",
            "--language",
            "python",
            "--repo",
            REPO,
            "--source",
            &src,
            "--entry",
            "textkit",
            "--out",
            &out_s,
        ])
        .args(["--llm-base-url", &closed, "--llm-model", MODEL])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "the request to {closed}/chat/completions failed before an HTTP status"
        )),
        "{err}"
    );
    assert!(err.contains("$OPENAI_API_KEY is not set"), "{err}");
}

/// `--llm-backend anthropic`: the same descriptions through Anthropic's
/// Messages format (the system message in "system", the key in
/// `x-api-key`), with the key read from the flag's variable.
#[test]
fn anthropic_format_gives_the_same_descriptions() {
    let report = undescribed();
    let stub = Stub::start(&[]);
    let dir = common::scratch("llm_describe/anthropic");
    let out = dir.join("ds.json");
    let (o, err) = curate(&stub, KEY, &out, &["--llm-backend", "anthropic"]);
    assert!(o.status.success(), "{err}");
    assert_eq!(stub.requests(), 10);
    let st = stub.stats();
    assert_system_then_user(&st);
    let got = needles(&out);
    assert_eq!(got.len(), 10);
    for (g, s) in got.iter().zip(&report.sampled) {
        assert_eq!(g.description, stub_description(&report, s), "{}", s.name);
    }
    // A wrong key is refused in this format too, naming the URL.
    let (o, err) =
        curate(&stub, "sk-wrong", &dir.join("bad.json"), &["--llm-backend", "anthropic"]);
    assert!(!o.status.success());
    assert!(err.contains("/v1/messages: HTTP 401, the API key was refused"), "{err}");
}
