//! CoReQA's retrieval against the references the issue names, installed
//! from PyPI (tests/oracle/coreqa-requirements.txt; tests/oracle/
//! coreqa_retrieval.py): `repoqa coreqa chunk` against LangChain's
//! `RecursiveCharacterTextSplitter` (every chunk's text identical) and
//! `repoqa coreqa retrieve --bm25-tokenize split` against rank-bm25's
//! `BM25Okapi` (the top 10 identical, scores within 1e-9), on the realistic
//! corpus's 18 repositories written out as folders, with their 180 needle
//! descriptions as the questions.

use repoqa_testkit as common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// (chunk size, overlap): LangChain's defaults, and two that cut finer.
const SETTINGS: [(usize, usize); 3] = [(4000, 200), (1000, 200), (300, 0)];
const TOP: usize = 10;

struct Repo {
    dir: PathBuf,
    name: String,
    questions: Vec<String>,
}

/// The corpus's repositories as folders under a scratch folder of the
/// test's own (`tag`): tests run in parallel processes.
fn corpus_repos(tag: &str) -> Vec<Repo> {
    let corpus: Value =
        serde_json::from_slice(&std::fs::read(common::corpus_path()).unwrap()).unwrap();
    let scratch = common::scratch(&format!("coreqa_retrieval_{tag}"));
    let mut repos = Vec::new();
    for (language, list) in corpus.as_object().unwrap() {
        for (i, repo) in list.as_array().unwrap().iter().enumerate() {
            let dir = scratch.join(format!("{language}-{i}"));
            let _ = std::fs::remove_dir_all(&dir);
            for (path, text) in repo["content"].as_object().unwrap() {
                let file = dir.join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, text.as_str().unwrap()).unwrap();
            }
            let questions = repo["needles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["description"].as_str().unwrap().to_string())
                .collect();
            repos.push(Repo { dir, name: repo["repo"].as_str().unwrap().to_string(), questions });
        }
    }
    assert_eq!(repos.len(), 18, "the realistic corpus has 18 repositories");
    repos
}

fn ours(args: &[&str]) -> Value {
    let out = crate::repoqa_command().args(args).output().unwrap();
    assert!(out.status.success(), "repoqa {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn oracle(args: &[&str], stdin: Option<&[u8]>) -> Value {
    let out =
        common::run_oracle_with(common::coreqa_oracle_python(), "coreqa_retrieval.py", args, stdin);
    serde_json::from_slice(&out).unwrap()
}

fn dir_arg(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn chunks_equal_langchains_recursive_splitter() {
    let mut total = 0;
    for repo in corpus_repos("chunks") {
        for (size, overlap) in SETTINGS {
            let (s, o) = (size.to_string(), overlap.to_string());
            let dir = dir_arg(&repo.dir);
            let mine = ours(&[
                "coreqa",
                "chunk",
                "--repo",
                dir,
                "--chunk-size",
                &s,
                "--chunk-overlap",
                &o,
                "--json",
            ]);
            let theirs = oracle(&["chunk", dir, &s, &o], None);
            let n = theirs.as_array().unwrap().len();
            assert!(n > 0, "{}: no chunks", repo.name);
            assert_eq!(mine, theirs, "{} at chunk size {size}, overlap {overlap}", repo.name);
            total += n;
        }
    }
    println!("{total} chunks over 18 repositories and {} settings: identical", SETTINGS.len());
}

#[test]
fn bm25_top_10_and_scores_equal_rank_bm25() {
    let (mut questions, mut exact, mut worst) = (0, 0, 0.0f64);
    for repo in corpus_repos("bm25") {
        for (size, overlap) in [SETTINGS[1], SETTINGS[2]] {
            let (s, o, top) = (size.to_string(), overlap.to_string(), TOP.to_string());
            let dir = dir_arg(&repo.dir);
            let stdin = serde_json::to_vec(&repo.questions).unwrap();
            let theirs = oracle(&["retrieve", dir, &s, &o, &top], Some(&stdin));
            for (question, want) in repo.questions.iter().zip(theirs.as_array().unwrap()) {
                let got = ours(&[
                    "coreqa",
                    "retrieve",
                    "--repo",
                    dir,
                    "--query",
                    question,
                    "--top",
                    &top,
                    "--chunk-size",
                    &s,
                    "--chunk-overlap",
                    &o,
                    "--bm25-tokenize",
                    "split",
                    "--json",
                ]);
                let (got, want) = (got.as_array().unwrap(), want.as_array().unwrap());
                assert_eq!(got.len(), TOP.min(want.len()));
                assert_eq!(got.len(), want.len(), "{}: {question}", repo.name);
                for (g, w) in got.iter().zip(want) {
                    assert_eq!(
                        (&g["path"], &g["index"]),
                        (&w["path"], &w["index"]),
                        "{}",
                        repo.name
                    );
                    let (a, b) = (g["score"].as_f64().unwrap(), w["score"].as_f64().unwrap());
                    assert!((a - b).abs() <= 1e-9, "{}: {question}: {a} vs {b}", repo.name);
                    worst = worst.max((a - b).abs());
                    exact += usize::from(a.to_bits() == b.to_bits());
                }
                questions += 1;
            }
        }
    }
    assert_eq!(questions, 360);
    println!(
        "{questions} questions: top {TOP} identical; {exact} of {} scores equal to the bit, largest difference {worst:e}",
        questions * TOP
    );
}

/// A FIFO, a link to a device and a link out of the folder are never read
/// (the links are named as left out); binary files are not text; sizes are
/// checked as LangChain checks them.
#[test]
fn hostile_folders_and_bad_sizes_get_a_message() {
    let dir = common::scratch("coreqa_hostile");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join("a.txt"), "alpha beta\n\ngamma").unwrap();
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main").unwrap();
    std::fs::write(dir.join("bin.dat"), b"a\0b").unwrap();
    std::fs::write(dir.join("latin1.txt"), b"caf\xe9").unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.join("passwd")).unwrap();
    let fifo = dir.join("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = crate::repoqa_command()
        .args(["coreqa", "chunk", "--json", "--repo", dir_arg(&dir)])
        .output()
        .unwrap();
    assert!(out.status.success());
    let chunks: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        chunks,
        serde_json::json!([{"path": "a.txt", "index": 0, "text": "alpha beta\n\ngamma"}])
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("left out passwd: a link") && err.contains("left out zero: a link"),
        "{err}"
    );

    for (args, says) in [
        (["--chunk-size", "0", "--chunk-overlap", "0"], "chunk size must be > 0"),
        (
            ["--chunk-size", "10", "--chunk-overlap", "20"],
            "chunk overlap (20) larger than the chunk size (10)",
        ),
    ] {
        let out = crate::repoqa_command()
            .args(["coreqa", "chunk", "--repo", dir_arg(&dir)])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains(says));
    }
    let missing = dir.join("no-such-folder");
    let empty = common::scratch("coreqa_empty");
    for (folder, says) in [(&missing, "no-such-folder"), (&empty, "no chunks")] {
        let out = crate::repoqa_command()
            .args(["coreqa", "retrieve", "--query", "x", "--repo", dir_arg(folder)])
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{says}");
    }
}

/// `retrieve --qa`: each question's context is the top 5 for its prose,
/// then the top 5 for its code snippets, a chunk found by both listed once
/// (the single-query retrieval it is made of is the one held equal to
/// rank-bm25 above); a bad QA file is named with its line.
#[test]
fn question_contexts_join_the_prose_and_code_retrievals() {
    let repos = corpus_repos("qa");
    let repo = &repos[0];
    let dir = dir_arg(&repo.dir);
    let code = "```\ndef main():\n    return parse(argv)\n```";
    let items: Vec<Value> = repo
        .questions
        .iter()
        .take(3)
        .enumerate()
        .map(|(i, q)| {
            serde_json::json!({"id": format!("q{i}"), "repository": repo.name,
                               "question": format!("{q}\n{code}\nWhy?"), "reference_answer": "-"})
        })
        .collect();
    let qa_dir = common::scratch("coreqa_qa");
    let qa = qa_dir.join("qa.jsonl");
    let lines: Vec<String> = items.iter().map(Value::to_string).collect();
    std::fs::write(&qa, lines.join("\n")).unwrap();
    let got = ours(&["coreqa", "retrieve", "--repo", dir, "--qa", qa.to_str().unwrap(), "--json"]);
    for (item, context) in items.iter().zip(got.as_array().unwrap()) {
        assert_eq!(context["id"], item["id"]);
        let question = item["question"].as_str().unwrap();
        let prose = question.replace(&format!("\n{code}"), "");
        let mut want: Vec<Value> = Vec::new();
        for (query, label) in
            [(prose.as_str(), "text"), ("def main():\n    return parse(argv)", "code")]
        {
            let found = ours(&["coreqa", "retrieve", "--repo", dir, "--query", query, "--json"]);
            for mut c in found.as_array().unwrap().iter().cloned() {
                let same = |w: &Value| w["path"] == c["path"] && w["index"] == c["index"];
                if !want.iter().any(same) {
                    c["for"] = label.into();
                    want.push(c);
                }
            }
        }
        assert_eq!(&context["chunks"], &Value::Array(want), "{}", item["id"]);
    }
    std::fs::write(&qa, format!("{}\n{{\"id\": \"x\"}}\n", lines[0])).unwrap();
    let out = crate::repoqa_command()
        .args(["coreqa", "retrieve", "--repo", dir, "--qa", qa.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("qa.jsonl, line 2") && err.contains("missing field"),
        "{err}"
    );
}

/// `coreqa whole`: the demo's Python sources as one Markdown text, each
/// file verbatim under its heading; it fits a window of exactly its token
/// count, and one token less is refused with the count.
#[test]
fn the_whole_repository_fits_or_says_how_many_tokens() {
    let repo = common::root().join("public/demo/python");
    let whole = |window: usize, json: bool| {
        let mut cmd = crate::repoqa_command();
        cmd.args(["coreqa", "whole", "--name", "demo-textkit", "--window", &window.to_string()]);
        cmd.arg("--repo").arg(&repo).env("REPOQA_TOKENIZER", common::tokenizer_path());
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let count: Value = serde_json::from_slice(&whole(1_000_000, true).stdout).unwrap();
    let tokens = count["tokens"].as_u64().unwrap() as usize;
    assert!(tokens > 1000 && count["fits"] == true, "{count}");
    let out = whole(tokens, false);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let markdown = String::from_utf8(out.stdout).unwrap();
    assert!(markdown.starts_with("# Repository demo-textkit\n"));
    for file in
        ["textkit/__init__.py", "textkit/layout.py", "textkit/stats.py", "textkit/tokens.py"]
    {
        let text = std::fs::read_to_string(repo.join(file)).unwrap();
        assert!(markdown.contains(&format!("## {file}\n\n```python\n{text}```\n")), "{file}");
    }
    let out = whole(tokens - 1, false);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(
        err.contains(&format!("needs {tokens} tokens"))
            && err.contains(&format!("window of {}", tokens - 1)),
        "{err}"
    );
}
