//! The `repoqa` binary's option handling: upstream's value spellings, and
//! what an explicit `--out` does to a file already there.
//!
//!     cargo test -p repoqa-cli --test it cli_options::

use crate::{repoqa, stderr};
use repoqa_testkit as common;

use std::path::{Path, PathBuf};

fn demo_dataset() -> PathBuf {
    common::root().join("public/demo/repoqa-demo.json")
}

/// One model-outputs line for the demo dataset's first needle.
fn write_outputs(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(demo_dataset()).unwrap();
    let dataset: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (language, repos) = dataset.as_object().unwrap().iter().next().unwrap();
    let repo = &repos[0];
    let line = serde_json::json!({
        "repo": repo["repo"],
        "name": repo["needles"][0]["name"],
        "language": language,
        "path": repo["needles"][0]["path"],
        "position_ratio": 0.05,
        "needle_token_start": 0,
        "needle_token_end": 0,
        "output": ["I could not find it."],
    });
    let path = dir.join("cli_options-model.jsonl");
    std::fs::write(&path, format!("{line}\n")).unwrap();
    path
}

#[test]
fn clean_ctx_comments_accepts_upstream_and_earlier_spellings() {
    let missing = common::scratch("cli_options").join("no-such-dataset.json");
    let missing = missing.to_str().unwrap();
    for value in ["none", "positional_padding", "no_padding", "positional-padding", "no-padding"] {
        let out = repoqa(&[
            "prompts",
            "--dataset-path",
            missing,
            "--clean-ctx-comments",
            value,
            "--out",
            "unused.jsonl",
        ]);
        // The value is accepted: the failure is the missing dataset.
        assert_eq!(out.status.code(), Some(2), "{value}");
        assert!(stderr(&out).starts_with("repoqa: dataset "), "{value}: {}", stderr(&out));
    }
    let out = repoqa(&[
        "prompts",
        "--dataset-path",
        missing,
        "--clean-ctx-comments",
        "padding",
        "--out",
        "unused.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid value"), "{}", stderr(&out));
}

#[test]
fn explicit_out_replaces_an_existing_file_and_keeps_a_bak() {
    let dir = common::scratch("cli_options");
    let outputs = write_outputs(&dir);
    let scores = dir.join("explicit-SCORES.json");
    let bak = dir.join("explicit-SCORES.json.bak");
    let _ = std::fs::remove_file(&bak);
    std::fs::write(&scores, "earlier result\n").unwrap();
    let dataset = demo_dataset();
    let args = [
        "score",
        "--model-output-path",
        outputs.to_str().unwrap(),
        "--dataset-path",
        dataset.to_str().unwrap(),
        "--train-size",
        "N/A",
        "--eval-date",
        "2024-06-24 00:00:00.000000",
        "--out",
        scores.to_str().unwrap(),
    ];
    let out = repoqa(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("backed up {} to {}", scores.display(), bak.display())),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&bak).unwrap(), "earlier result\n");
    let written = std::fs::read_to_string(&scores).unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(&written).is_ok(), "{written}");

    // The default name still asks for --overwrite, and says how.
    let default = dir.join("cli_options-model-SCORES.json");
    std::fs::write(&default, "earlier result\n").unwrap();
    let out = repoqa(&args[..args.len() - 2]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("pass --overwrite"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&default).unwrap(), "earlier result\n");
}

#[test]
fn position_ratio_puts_every_needle_at_one_depth_and_refuses_other_numbers() {
    let dir = common::scratch("cli_options");
    let demo = demo_dataset();
    let demo = demo.to_str().unwrap();
    for bad in ["1.5", "-0.1", "NaN", "half"] {
        let out = repoqa(&["prompts", "--dataset-path", demo, "--position-ratio", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("from 0 to 1"), "{bad}: {}", stderr(&out));
    }
    let out_path = dir.join("ratio-tasks.jsonl");
    let out = repoqa(&[
        "prompts",
        "--dataset-path",
        demo,
        "--code-context-size",
        "2048",
        "--position-ratio",
        "0.25",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("NOT UPSTREAM"), "{}", stderr(&out));
    let text = std::fs::read_to_string(&out_path).unwrap();
    let tasks: Vec<serde_json::Value> =
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(tasks.len(), 60);
    assert!(tasks.iter().all(|t| t["position_ratio"] == 0.25));
}

/// With no `--tokenizer`: `$REPOQA_TOKENIZER` first; without it, the
/// `.tools/tokenizer.json` of the current folder or the nearest one above
/// it (nothing compiled into the binary decides it).
#[test]
fn the_default_tokenizer_is_found_where_the_cli_is_run() {
    let base = common::scratch("default-tokenizer");
    let inner = base.join("a/b");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::create_dir_all(base.join(".tools")).unwrap();
    let nearest = base.join(".tools/tokenizer.json");
    let self_check = |env: Option<&Path>| {
        let mut c = crate::repoqa_command();
        c.args(["self-check", "--json"]).current_dir(&inner);
        match env {
            Some(p) => c.env("REPOQA_TOKENIZER", p),
            None => c.env_remove("REPOQA_TOKENIZER"),
        };
        c.output().unwrap()
    };
    // The nearest folder's file is the one read (the checkout's, further
    // up, is not): a broken one is refused by its path.
    std::fs::write(&nearest, "{}").unwrap();
    let broken = self_check(None);
    assert!(!broken.status.success());
    assert!(stderr(&broken).contains(&nearest.display().to_string()), "{}", stderr(&broken));
    std::fs::copy(common::tokenizer_path(), &nearest).unwrap();
    let found = self_check(None);
    assert!(found.status.success(), "{}", stderr(&found));
    let report: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert!(report["tokenizer"]["vocab_size"].as_u64().is_some_and(|n| n > 0), "{report}");
    // The variable wins over the folder, and a wrong one is named.
    let named = self_check(Some(&base.join("no-such-tokenizer.json")));
    assert!(!named.status.success());
    assert!(stderr(&named).contains("no-such-tokenizer.json"), "{}", stderr(&named));
    std::fs::remove_dir_all(&base).unwrap();
}
