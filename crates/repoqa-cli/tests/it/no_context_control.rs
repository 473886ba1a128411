//! `--control no-context` (issue 26): the no-context control. Each task is
//! the official one without its code — every other field equal, the prompt
//! the instruction, the description and the instruction again — marked
//! `"protocol": "no-context"`, scored into a `-NO-CONTEXT-SCORES.json` that
//! says so, and paired with the real run by `repoqa compare`.
//!
//!     cargo test -p repoqa-cli --test it no_context_control::

use crate::repoqa;
use std::path::{Path, PathBuf};
use std::process::Output;

use repoqa_testkit as common;
use serde_json::Value;

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn build(dir: &Path, name: &str, extra: &[&str]) -> (PathBuf, String) {
    let out = dir.join(name);
    let dataset = common::root().join("public/demo/repoqa-demo.json");
    let tok = common::tokenizer_path();
    let mut args = vec![
        "prompts",
        "--dataset-path",
        dataset.to_str().unwrap(),
        "--code-context-size",
        "2048",
        "--tokenizer",
        tok.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let err = ok(&repoqa(&args));
    (out, err)
}

/// Outputs: each task answered with the demo's sample answer or a refusal.
fn answer(tasks: &[Value], path: &Path) {
    let mut text = String::new();
    for t in tasks {
        let mut t = t.clone();
        t["output"] = common::demo_answer_or(&t, "I cannot see the code.");
        text.push_str(&format!("{t}\n"));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_control_is_the_official_task_without_its_code_and_pairs_with_the_real_run() {
    let dir = common::scratch("no_context_control");
    let (official, _) = build(&dir, "official.jsonl", &[]);
    let (control, note) = build(&dir, "control.jsonl", &["--control", "no-context"]);
    assert!(note.contains("no-context control"), "{note}");
    let (o, c) = (lines(&official), lines(&control));
    assert_eq!(o.len(), c.len());
    assert!(!o.is_empty());
    for (o, c) in o.iter().zip(&c) {
        assert_eq!(c["protocol"], "no-context");
        assert_eq!(c["closed_book"], true, "the file says it was closed-book (issue 83)");
        assert_eq!(c["code_context"], "");
        let mut same = c.clone();
        same.as_object_mut().unwrap().remove("protocol");
        same.as_object_mut().unwrap().remove("closed_book");
        same["code_context"] = o["code_context"].clone();
        assert_eq!(&same, o, "every other field is the official task's");
        // The prompt: the template's fields, the code left out.
        assert_eq!(c["template"], "instruction\ncode_context\ndescription\ninstruction");
    }
    // The same as --protocol no-context; not with another protocol.
    let (alias, _) = build(&dir, "alias.jsonl", &["--protocol", "no-context"]);
    assert_eq!(std::fs::read(&alias).unwrap(), std::fs::read(&control).unwrap());
    let o = repoqa(&[
        "prompts",
        "--dataset-path",
        "x",
        "--control",
        "no-context",
        "--protocol",
        "corrected",
    ]);
    assert_eq!(o.status.code(), Some(2));

    // Scored: a not-official file that says what it is.
    let dataset = common::root().join("public/demo/repoqa-demo.json");
    let d = dataset.to_str().unwrap();
    let (real_out, control_out) = (dir.join("model.jsonl"), dir.join("model-control.jsonl"));
    answer(&lines(&official), &real_out);
    answer(&c, &control_out);
    let real_scores = dir.join("model-SCORES.json");
    ok(&repoqa(&[
        "score",
        "--model-output-path",
        real_out.to_str().unwrap(),
        "--dataset-path",
        d,
        "--out",
        real_scores.to_str().unwrap(),
    ]));
    let err = ok(&repoqa(&[
        "score",
        "--model-output-path",
        control_out.to_str().unwrap(),
        "--dataset-path",
        d,
        "--overwrite",
    ]));
    assert!(err.contains("no-context control"), "{err}");
    let control_scores = dir.join("model-control-NO-CONTEXT-SCORES.json");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&control_scores).unwrap()).unwrap();
    assert_eq!(v["model-control"]["protocol"], "no-context");

    // Paired with the real run, task by task.
    let o = repoqa(&[
        "compare",
        real_scores.to_str().unwrap(),
        control_scores.to_str().unwrap(),
        "--json",
    ]);
    ok(&o);
    let paired: Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = ["both", "only_a", "only_b", "neither"]
        .iter()
        .map(|k| paired[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(n as usize, c.len());

    // The audit looks for artifacts in a context the control does not have.
    let o = repoqa(&["audit", "--dataset-path", d, "--control", "no-context"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("has none"));
}

/// `--closed-book` (issue 83) is the control by another name, and `repoqa
/// report` given a model's run with the code and its closed-book run shows
/// "Is the model remembering?": the memorized share (the tasks passed with
/// no code), the passes shared, and McNemar's test — the counts `repoqa
/// compare` gives for the same two files.
#[test]
fn the_closed_book_probe_and_the_memorized_share_in_the_report() {
    let dir = common::scratch("closed_book_probe");
    let (official, _) = build(&dir, "official.jsonl", &[]);
    let (control, _) = build(&dir, "control.jsonl", &["--control", "no-context"]);
    let (closed, note) = build(&dir, "closed.jsonl", &["--closed-book"]);
    assert!(note.contains("no-context control"), "{note}");
    assert_eq!(std::fs::read(&closed).unwrap(), std::fs::read(&control).unwrap());
    let o = repoqa(&["prompts", "--dataset-path", "x", "--closed-book", "--control", "no-context"]);
    assert_eq!(o.status.code(), Some(2));

    // The same model, with the code and closed-book (every other sample
    // answer "remembered").
    let dataset = common::root().join("public/demo/repoqa-demo.json");
    let d = dataset.to_str().unwrap();
    std::fs::create_dir_all(dir.join("closed")).unwrap();
    let (open_out, closed_out) = (dir.join("model.jsonl"), dir.join("closed/model.jsonl"));
    answer(&lines(&official), &open_out);
    let mut text = String::new();
    for (i, t) in lines(&closed).iter().enumerate() {
        let mut t = t.clone();
        t["output"] = if i % 2 == 0 {
            common::demo_answer_or(&t, "I cannot see the code.")
        } else {
            Value::from(vec!["I cannot see the code."])
        };
        text.push_str(&format!("{t}\n"));
    }
    std::fs::write(&closed_out, text).unwrap();
    let score = |out: &Path| {
        ok(&repoqa(&[
            "score",
            "--model-output-path",
            out.to_str().unwrap(),
            "--dataset-path",
            d,
            "--overwrite",
        ]))
    };
    score(&open_out);
    score(&closed_out);
    let (open_scores, closed_scores) =
        (dir.join("model-SCORES.json"), dir.join("closed/model-NO-CONTEXT-SCORES.json"));
    let o = repoqa(&[
        "compare",
        open_scores.to_str().unwrap(),
        closed_scores.to_str().unwrap(),
        "--json",
    ]);
    ok(&o);
    let p: Value = serde_json::from_slice(&o.stdout).unwrap();
    let count = |k: &str| p[k].as_u64().unwrap();
    let n = count("both") + count("only_a") + count("only_b") + count("neither");
    assert!(count("both") > 0, "{p}");
    let html_path = dir.join("report.html");
    ok(&repoqa(&[
        "report",
        "--scores",
        open_scores.to_str().unwrap(),
        closed_scores.to_str().unwrap(),
        "--out",
        html_path.to_str().unwrap(),
    ]));
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.contains("<section id=\"memorized\"><h2>Is the model remembering?</h2>"));
    let share = (count("both") + count("only_b")) as f64 / n as f64;
    let row = format!(
        "<tr data-model=\"model\" data-open=\"{}\" data-share=\"{}\" data-both=\"{}\" data-only-open=\"{}\" data-only-closed=\"{}\"",
        repoqa::python::json::float_repr((count("both") + count("only_a")) as f64 / n as f64),
        repoqa::python::json::float_repr(share),
        count("both"),
        count("only_a"),
        count("only_b"),
    );
    assert!(html.contains(&row), "{row}\n{html:.2000}");
    // One run alone: no such section.
    ok(&repoqa(&[
        "report",
        "--scores",
        open_scores.to_str().unwrap(),
        "--out",
        dir.join("one.html").to_str().unwrap(),
    ]));
    assert!(!std::fs::read_to_string(dir.join("one.html")).unwrap().contains("id=\"memorized\""));
}
