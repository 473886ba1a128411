//! Scoring a pathological reply (megabytes, millions of lines) costs in
//! proportion to its size and gives the official result exactly.
//!
//! - `pathological_replies_cost_in_proportion`: one task of the demo
//!   dataset answered with a 12 MB reply of each shape, scored in a child
//!   process (this binary again) that prints its time and peak memory
//!   (`VmHWM`); memory above the process's baseline must stay within a small
//!   multiple of the reply (a few times; a fenced block of megabytes of dense
//!   code is parsed whole, as the official code does, and tree-sitter's tree
//!   of it takes about 55 times the block).
//! - `pathological_replies_score_as_the_official_harness`: the same shapes
//!   at 256 KB (the official harness takes a minute per shape at 1 MB and
//!   far longer at 12 MB; REPOQA_REPLY_ORACLE_KB sets the size), scored by the
//!   oracle (PyPI repoqa 0.1.2) and by us: the SCORES files are equal.
//!
//! ```text
//! cargo test --release --test pathological_reply -- --nocapture
//! REPOQA_REPLY_MB=12 REPOQA_REPLY_BEFORE=1 ...   (reply size; rows for the old BLEU)
//! ```

use repoqa_testkit as common;

use std::process::Command;
use std::time::Instant;

use repoqa::input::dataset::Dataset;
use repoqa::report::{self, ScoresFile};
use repoqa::scoring::run::score_outputs;
use repoqa::scoring::score::{Candidates, ScoreOptions};

const DEMO: &str = include_str!("../../../public/demo/repoqa-demo.json");
const MODEL: &str = "pathological/model";
const EVAL_DATE: &str = "2024-06-01 00:00:00.000000";

/// The shapes, by name: what a broken or hostile model could send.
const SHAPES: &[&str] = &[
    // One fenced block of code, megabytes long; the needle at its end.
    "one-big-block",
    // The same without any function: every block is parsed in vain.
    "big-block-no-function",
    // Millions of tiny fenced blocks.
    "many-fences",
    // Millions of short lines of prose, no fence: BLEU over the whole reply.
    "million-lines",
    // One line of megabytes with no whitespace: one huge token.
    "one-token",
];

/// A reply of about `size` bytes of the shape `shape`, answering the needle
/// whose code is `needle`.
fn reply(shape: &str, size: usize, needle: &str) -> String {
    let mut s = String::with_capacity(size + needle.len() + 64);
    match shape {
        "one-big-block" | "big-block-no-function" => {
            s.push_str("Here it is:\n```python\n");
            let mut i = 0u64;
            while s.len() < size {
                s.push_str(&format!(
                    "value_{i} = compute(value_{}, {i}) + [x for x in range({i})]\n",
                    i / 2
                ));
                i += 1;
            }
            if shape == "one-big-block" {
                s.push_str(needle);
                s.push('\n');
            }
            s.push_str("```\n");
        }
        "many-fences" => {
            while s.len() < size {
                s.push_str("```\nx\n```\n");
            }
            s.push_str("```python\n");
            s.push_str(needle);
            s.push_str("\n```\n");
        }
        "million-lines" => {
            let mut i = 0u64;
            while s.len() < size {
                s.push_str(&format!("line {} of text\n", i % 5000));
                i += 1;
            }
            s.push_str(needle);
        }
        "one-token" => {
            while s.len() < size {
                s.push_str("abcdefghij");
            }
        }
        other => panic!("unknown shape {other}"),
    }
    s
}

/// The outputs JSONL: one task (the first python needle of the demo)
/// answered with `reply`.
fn outputs(dataset: &Dataset, reply_text: &str) -> String {
    let repo = &dataset.repos("python").unwrap()[0];
    let needle = &repo.needles[0];
    let line = serde_json::json!({
        "repo": repo.repo, "name": needle.name, "language": "python",
        "position_ratio": 0.5, "needle_token_start": 1, "needle_token_end": 2,
        "output": [reply_text],
    });
    format!("{line}\n")
}

fn needle_code(dataset: &Dataset) -> String {
    let repo = &dataset.repos("python").unwrap()[0];
    let n = &repo.needles[0];
    repo.reference_text(&n.path, n.start_line, n.end_line).unwrap()
}

fn scores(dataset: &Dataset, outputs_text: &str, ignore_comments: bool) -> String {
    let file = report::read_model_outputs(outputs_text);
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    let options = ScoreOptions { ignore_comments, candidates: Candidates::Needles };
    let run = score_outputs(dataset, options, &file.outputs, |_, _| {}).unwrap().run;
    let ts = report::train_size(MODEL).value;
    ScoresFile::single(MODEL, run.model_scores(MODEL, EVAL_DATE, Some(&ts))).to_python_json()
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The child: score one shape, print size, time and memory.
#[test]
fn child() {
    let Ok(case) = std::env::var("REPOQA_REPLY_CASE") else { return };
    let (shape, size) = case.split_once(':').unwrap();
    let size: usize = size.parse().unwrap();
    let dataset = Dataset::from_bytes(DEMO.as_bytes(), "demo").unwrap();
    let text = outputs(&dataset, &reply(shape, size, &needle_code(&dataset)));
    let file = report::read_model_outputs(&text);
    let reply_len = file.outputs[0].reply.len();
    drop(file);
    let base = status_kib("VmRSS:");
    let t = Instant::now();
    let (best_target, best_score) = if std::env::var_os("REPOQA_REPLY_INTERNED").is_some() {
        // What scoring did before the streamed BLEU: the reply's tokens and
        // n-grams interned (`Hypothesis`), then each candidate compared.
        let file = report::read_model_outputs(&text);
        let o = &file.outputs[0];
        let lang = repoqa::code::lang::Language::Python;
        let sanitized = repoqa::scoring::sanitize::sanitize_output(&o.reply, lang);
        let hyp = repoqa::scoring::bleu::Hypothesis::from_text(&sanitized);
        let repo = dataset.repo("python", &o.repo).unwrap();
        let mut best = (String::from("null"), 0.0f64);
        for n in &repo.needles {
            let r = repo.reference_text(&n.path, n.start_line, n.end_line).unwrap();
            let sim = hyp.similarity(&r);
            if sim > best.1 {
                best = (format!("{:?}", n.name), sim);
            }
        }
        (best.0, best.1.to_string())
    } else {
        let result = scores(&dataset, &text, false);
        let v: serde_json::Value = serde_json::from_str(&result).unwrap();
        let task = &v[MODEL]["results"]["python"][0];
        (task["best_target"].to_string(), task["best_similar_score"].to_string())
    };
    let secs = t.elapsed().as_secs_f64();
    let peak = status_kib("VmHWM:");
    println!("\nREPLY\t{reply_len}\t{secs:.3}\t{base}\t{peak}\t{best_target}\t{best_score}");
}

#[test]
fn pathological_replies_cost_in_proportion() {
    let mb: usize =
        std::env::var("REPOQA_REPLY_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(12);
    let exe = std::env::current_exe().unwrap();
    println!(
        "{:<22} {:>9} {:>8} {:>10} {:>8}  best target (similarity)",
        "shape", "reply", "time", "memory", "× reply"
    );
    let mut failures = Vec::new();
    // REPOQA_REPLY_BEFORE=1 adds a row per shape for the interning BLEU
    // that scoring used before (for the benchmark's before/after).
    let before = std::env::var_os("REPOQA_REPLY_BEFORE").is_some();
    let runs = SHAPES.iter().flat_map(|s| {
        let old = before.then_some((*s, true));
        std::iter::once((*s, false)).chain(old)
    });
    for (shape, interned) in runs {
        let mut cmd = Command::new(&exe);
        cmd.args(["child", "--exact", "--nocapture", "--test-threads=1"])
            .env("REPOQA_REPLY_CASE", format!("{shape}:{}", mb << 20));
        if interned {
            cmd.env("REPOQA_REPLY_INTERNED", "1");
        }
        let out = cmd.output().unwrap();
        let shape = if interned { format!("{shape} (before)") } else { shape.to_string() };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("REPLY\t")) else {
            failures
                .push(format!("{shape}: child failed: {}", String::from_utf8_lossy(&out.stderr)));
            continue;
        };
        let f: Vec<&str> = line.split('\t').collect();
        let (len, secs, base, peak): (f64, f64, f64, f64) = (
            f[0].parse().unwrap(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        let used = (peak - base).max(0.0) * 1024.0;
        let times = used / len;
        println!(
            "{shape:<22} {:>7.1}MB {:>7.2}s {:>7.0}MiB {:>8.1}  {} ({})",
            len / 1e6,
            secs,
            used / 1048576.0,
            times,
            f[4],
            f[5]
        );
        // A fenced block is parsed whole by tree-sitter, as the official
        // code does, and its tree takes about 55× the block for dense code:
        // that shape's bound is the parser's. Every other shape stays within
        // a few times the reply.
        let bound = if shape.contains("block") { 80.0 } else { 8.0 };
        if times > bound && !interned {
            failures.push(format!("{shape}: {times:.1}× the reply in memory"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn pathological_replies_score_as_the_official_harness() {
    let dataset = Dataset::from_bytes(DEMO.as_bytes(), "demo").unwrap();
    let needle = needle_code(&dataset);
    let dir = common::scratch("pathological_reply");
    let ds_path = dir.join("demo.json");
    std::fs::write(&ds_path, DEMO).unwrap();
    for shape in SHAPES {
        let kb: usize = std::env::var("REPOQA_REPLY_ORACLE_KB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256);
        let text = outputs(&dataset, &reply(shape, kb << 10, &needle));
        let path = dir.join(format!("{shape}.jsonl"));
        std::fs::write(&path, &text).unwrap();
        for ignore_comments in [false, true] {
            let ours = scores(&dataset, &text, ignore_comments);
            let flag = if ignore_comments { "1" } else { "0" };
            let t = Instant::now();
            let theirs = common::run_oracle(
                "score.py",
                &[
                    "score",
                    ds_path.to_str().unwrap(),
                    path.to_str().unwrap(),
                    MODEL,
                    flag,
                    EVAL_DATE,
                ],
                None,
            );
            let theirs = String::from_utf8(theirs).unwrap();
            println!(
                "{shape} (ignore_comments {ignore_comments}): official {:.1}s",
                t.elapsed().as_secs_f64()
            );
            assert_eq!(ours, theirs, "{shape}, ignore_comments {ignore_comments}");
        }
    }
}
