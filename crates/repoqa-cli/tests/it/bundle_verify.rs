//! `repoqa bundle` and `repoqa verify --bundle` (issue 26): a bundle of a
//! run verifies against its dataset and tokenizer; a forged verdict, an
//! edited prompt hash, other build settings or an edited dataset are each
//! reported by name; a broken bundle is refused with a message.
//!
//!     cargo test -p repoqa-cli --test it bundle_verify::

use crate::repoqa;
use std::path::{Path, PathBuf};
use std::process::Output;

use repoqa_testkit as common;
use serde_json::Value;

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn demo() -> PathBuf {
    common::root().join("public/demo/repoqa-demo.json")
}

/// A scored run of the demo at 2048 tokens and its bundle.
fn bundle_of_a_run(dir: &Path) -> PathBuf {
    let tok = common::tokenizer_path();
    let (tasks, outputs, scores, bundle) = (
        dir.join("tasks.jsonl"),
        dir.join("m.jsonl"),
        dir.join("m-SCORES.json"),
        dir.join("m.bundle.json"),
    );
    let d = demo();
    let o = repoqa(&[
        "prompts",
        "--dataset-path",
        d.to_str().unwrap(),
        "--code-context-size",
        "2048",
        "--tokenizer",
        tok.to_str().unwrap(),
        "--out",
        tasks.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let mut lines = String::new();
    for l in std::fs::read_to_string(&tasks).unwrap().lines() {
        let mut t: Value = serde_json::from_str(l).unwrap();
        t["output"] = common::demo_answer_or(&t, "no idea");
        lines.push_str(&format!("{t}\n"));
    }
    std::fs::write(&outputs, lines).unwrap();
    let _ = std::fs::remove_file(&scores);
    let o = repoqa(&[
        "score",
        "--model-output-path",
        outputs.to_str().unwrap(),
        "--dataset-path",
        d.to_str().unwrap(),
        "--out",
        scores.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = repoqa(&[
        "bundle",
        "--model-output-path",
        outputs.to_str().unwrap(),
        "--scores",
        scores.to_str().unwrap(),
        "--dataset-path",
        d.to_str().unwrap(),
        "--code-context-size",
        "2048",
        "--tokenizer",
        tok.to_str().unwrap(),
        "--out",
        bundle.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    bundle
}

fn verify(bundle: &Path, dataset: &Path) -> Output {
    let tok = common::tokenizer_path();
    repoqa(&[
        "verify",
        "--bundle",
        bundle.to_str().unwrap(),
        "--dataset-path",
        dataset.to_str().unwrap(),
        "--tokenizer",
        tok.to_str().unwrap(),
    ])
}

fn edited(dir: &Path, bundle: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(bundle).unwrap()).unwrap();
    edit(&mut v);
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn a_bundle_verifies_and_every_forgery_is_named() {
    let dir = common::scratch("bundle_verify");
    let bundle = bundle_of_a_run(&dir);
    let o = verify(&bundle, &demo());
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("60 prompts rebuilt"), "{}", text(&o));

    // A verdict forged in the SCORES text: that task is named.
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&bundle).unwrap()).unwrap();
    let scores: Value = serde_json::from_str(v["scores"].as_str().unwrap()).unwrap();
    let failing = scores["m"]["results"]["java"]
        .as_array()
        .unwrap()
        .iter()
        .position(|t| !t["is_best_similar"].as_bool().unwrap())
        .expect("a failed java task");
    let forged_name = scores["m"]["results"]["java"][failing]["name"].as_str().unwrap().to_string();
    let forged = edited(&dir, &bundle, "forged.json", |v| {
        let mut s: Value = serde_json::from_str(v["scores"].as_str().unwrap()).unwrap();
        s["m"]["results"]["java"][failing]["is_best_similar"] = Value::Bool(true);
        s["m"]["results"]["java"][failing]["best_similar_score"] = serde_json::json!(1.0);
        v["scores"] = Value::String(s.to_string());
    });
    let o = verify(&forged, &demo());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains(&forged_name), "{}", text(&o));

    // An edited prompt hash: that task's prompt is named.
    let (task, _) = v["prompts"].as_object().unwrap().iter().next().unwrap();
    let task = task.clone();
    let hashed = edited(&dir, &bundle, "hash.json", |v| {
        v["prompts"][&task] = Value::String("0".repeat(64));
    });
    let o = verify(&hashed, &demo());
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains(&format!("prompt of task {task}")), "{}", text(&o));

    // Other settings: no prompt rebuilds the same.
    let other = edited(&dir, &bundle, "settings.json", |v| {
        v["settings"]["code_context_size"] = serde_json::json!(1024);
    });
    let o = verify(&other, &demo());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o).matches("MISMATCH prompt of task").count(), 60, "{}", text(&o));

    // An edited dataset: its identity, and the one prompt it changes.
    let mut ds: Value = serde_json::from_str(&std::fs::read_to_string(demo()).unwrap()).unwrap();
    let needle = ds["python"][0]["needles"][0].clone();
    let desc = needle["description"].as_str().unwrap().to_string();
    ds["python"][0]["needles"][0]["description"] = Value::String(format!("{desc} (edited)"));
    let edited_ds = dir.join("edited-dataset.json");
    std::fs::write(&edited_ds, serde_json::to_string(&ds).unwrap()).unwrap();
    let o = verify(&bundle, &edited_ds);
    assert_eq!(o.status.code(), Some(1));
    let t = text(&o);
    assert!(t.contains("MISMATCH dataset"), "{t}");
    let id = format!(
        "python::{}::{}",
        ds["python"][0]["repo"].as_str().unwrap(),
        needle["name"].as_str().unwrap()
    );
    assert!(t.contains(&format!("prompt of task {id}")), "{t}");
    assert_eq!(t.matches("MISMATCH prompt of task").count(), 1, "{t}");

    // Broken bundles are refused with what is wrong.
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{not json").unwrap();
    let o = verify(&junk, &demo());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("not a result bundle"), "{}", text(&o));
    let future = edited(&dir, &bundle, "future.json", |v| {
        v["format"] = Value::String("repoqa-web-bundle/9".into())
    });
    let o = verify(&future, &demo());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("repoqa-web-bundle/9"), "{}", text(&o));
    let o = repoqa(&["verify", "--bundle", future.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "--bundle needs --dataset-path");
}
