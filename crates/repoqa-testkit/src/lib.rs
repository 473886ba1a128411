//! What the workspace's Rust tests share (imported as `use repoqa_testkit as
//! common;`): where the official harness (the oracle venv), the tokenizer and
//! the realistic corpus live, running the official code, and the test model
//! server. All of them are installed by `scripts/setup.sh`; a missing one is a
//! clear failure, never a silent skip.

pub mod model_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The checkout's top folder (this crate is `crates/repoqa-testkit`), where
/// `.tools/`, `tests/oracle/`, `tests/fixtures/` and `target/` are.
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

pub fn tools() -> PathBuf {
    root().join(".tools")
}

/// Python of the oracle venv (PyPI repoqa==0.1.2 and its pinned deps).
pub fn oracle_python() -> PathBuf {
    let p = tools().join("oracle/bin/python");
    assert!(
        p.exists(),
        "{} missing: run scripts/setup.sh (it creates the oracle venv)",
        p.display()
    );
    p
}

pub fn tokenizer_path() -> PathBuf {
    let p = repoqa::tokenize::default_tokenizer_path();
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
    let mut cmd = Command::new(oracle_python());
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
