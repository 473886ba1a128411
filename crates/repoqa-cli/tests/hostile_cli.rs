//! The CLI on careless or hostile input (issue 32): no panic or abort, no
//! unbounded read, no file of the user's destroyed, no overflow taken as a
//! value; each refusal names the flag or path. The case numbers are the
//! issue's.
//!
//!     cargo test --test hostile_cli

use repoqa_testkit as common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repoqa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_repoqa")).args(args).output().unwrap()
}

/// `repoqa ARGS` under bash with `limits` applied first (`ulimit …`).
fn repoqa_limited(limits: &str, args: &[&str]) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("{limits}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_repoqa"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit code 2 and one `repoqa: …` message containing `want`, no panic.
fn refused(out: &Output, want: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(want), "wanted {want:?} in:\n{err}");
}

fn demo() -> PathBuf {
    common::root().join("public/demo/repoqa-demo.json")
}

fn scratch(name: &str) -> PathBuf {
    let d = common::scratch("hostile_cli").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Outputs for every needle of the demo dataset, scored into `dir`:
/// (outputs, SCORES file).
fn scored(dir: &Path) -> (PathBuf, PathBuf) {
    let dataset: serde_json::Value =
        serde_json::from_slice(&std::fs::read(demo()).unwrap()).unwrap();
    let mut lines = String::new();
    for (language, repos) in dataset.as_object().unwrap() {
        for repo in repos.as_array().unwrap() {
            for needle in repo["needles"].as_array().unwrap() {
                let line = serde_json::json!({
                    "repo": repo["repo"], "name": needle["name"], "language": language,
                    "path": needle["path"], "position_ratio": 0.5, "needle_token_start": 0,
                    "needle_token_end": 0, "output": ["```\ndef f():\n    return 1\n```"],
                });
                lines.push_str(&format!("{line}\n"));
            }
        }
    }
    let outputs = dir.join("model.jsonl");
    std::fs::write(&outputs, lines).unwrap();
    let scores = dir.join("sample-SCORES.json");
    let demo = demo();
    let demo_s = s(&demo);
    let out = repoqa(&[
        "score",
        "--model-output-path",
        s(&outputs),
        "--dataset-path",
        demo_s,
        "--out",
        s(&scores),
        "--eval-date",
        "2024-01-01 00:00:00",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    (outputs, scores)
}

/// Files left in `dir` whose name marks an unfinished write.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part"))
        .collect()
}

// 1. A closed stdout is the end of the output: no panic, the exit code kept.
#[test]
fn closed_stdout_ends_quietly() {
    let dir = scratch("closed-stdout");
    let demo = demo();
    let demo_s = s(&demo);
    let (outputs, scores) = scored(&dir);
    let runs: [&[&str]; 3] = [
        &["leaderboard", "--scores", s(&scores)],
        &["verify", "--scores", s(&scores)],
        &["name-match", "--model-output-path", s(&outputs), "--dataset-path", demo_s],
    ];
    for args in runs {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader); // closed before the command writes a byte
        let out = Command::new(env!("CARGO_BIN_EXE_repoqa"))
            .args(args)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

// 2, 3. Run settings out of range are refused before anything is sent.
#[test]
fn run_settings_out_of_range_are_refused() {
    let dir = scratch("run-settings");
    let demo = demo();
    let demo_s = s(&demo);
    let base = ["run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"];
    let cases: [(&[&str], &str); 4] = [
        (&["--timeout-s", "1e308"], "--timeout-s: the timeout must be a number of seconds above 0 and at most 86400 (a day), not 1e308"),
        (&["--timeout-s", "NaN"], "--timeout-s: the timeout must be"),
        (&["--concurrency", "100000"], "--concurrency: the concurrency must be 1 to 256 requests in flight, not 100000"),
        (&["--retry-base-ms=-5"], "--retry-base-ms: the first retry delay must be 0 to 60000 milliseconds, not -5"),
    ];
    for (extra, want) in cases {
        let mut args: Vec<&str> = base.to_vec();
        args.extend(["--dataset-path", demo_s, "--result-dir", s(&dir)]);
        args.extend(extra);
        refused(&repoqa(&args), want);
    }
    assert!(std::fs::read_dir(&dir).unwrap().next().is_none(), "nothing is written");
}

// 4, 5. A tokenizer file's truncation and padding cannot panic or exhaust
// memory: counting never applies them.
#[test]
fn a_tokenizer_file_with_hostile_settings_is_counted_as_the_plain_one() {
    let dir = scratch("tokenizer");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(common::tokenizer_path()).unwrap()).unwrap();
    let stride = serde_json::json!({
        "direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 5
    });
    let padding = serde_json::json!({
        "strategy": {"Fixed": 1u64 << 40}, "direction": "Right", "pad_to_multiple_of": null,
        "pad_id": 0, "pad_type_id": 0, "pad_token": "<unk>"
    });
    for (name, key, value) in [("stride", "truncation", stride), ("padding", "padding", padding)] {
        let mut hostile = json.clone();
        hostile[key] = value;
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, hostile.to_string()).unwrap();
        let out = repoqa_limited("ulimit -v 4000000", &["self-check", "--tokenizer", s(&path)]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
    }
}

// 6-10. A device as an input is refused at once, naming the path (bounded
// memory: a read of /dev/zero would run into the limit and abort).
#[test]
fn a_device_given_as_an_input_is_refused_before_reading() {
    let dir = scratch("devices");
    let demo = demo();
    let demo_s = s(&demo);
    let (_, scores) = scored(&dir);
    let out_file = dir.join("tasks.jsonl");
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec!["prompts", "--dataset-path", "/dev/zero", "--out", s(&out_file)],
            "dataset /dev/zero: a device or socket, not a regular file",
        ),
        (
            vec![
                "prompts",
                "--dataset-path",
                demo_s,
                "--tokenizer",
                "/dev/zero",
                "--languages",
                "python",
                "--out",
                s(&out_file),
            ],
            "tokenizer file /dev/zero: a device or socket, not a regular file",
        ),
        (
            vec!["score", "--model-output-path", "/dev/zero", "--dataset-path", demo_s],
            "/dev/zero: a device or socket, not a regular file",
        ),
        (
            vec!["verify", "--scores", "/dev/zero"],
            "/dev/zero: a device or socket, not a regular file",
        ),
        (
            vec!["leaderboard", "--scores", s(&scores), "--scores", "/dev/zero"],
            "/dev/zero: a device or socket, not a regular file",
        ),
    ];
    for (args, want) in cases {
        refused(&repoqa_limited("ulimit -v 1000000", &args), want);
    }
    assert!(!out_file.exists());
}

// 12-14. A write that fails part-way (here a file-size limit, as a full
// disk would) leaves the file that was there intact, and no stray file.
#[test]
fn a_failed_write_keeps_the_previous_file() {
    let dir = scratch("failed-write");
    let demo = demo();
    let demo_s = s(&demo);
    let textkit = common::root().join("public/demo/python/textkit");
    let textkit_s = s(&textkit);
    let csv = dir.join("r.csv");
    let csv_s = s(&csv);
    let (outputs, _) = scored(&dir);
    // bash's `ulimit -f` counts KiB; SIGXFSZ ignored so the write fails
    // with an error instead of killing the process.
    let limit = "trap '' XFSZ; ulimit -f 4";

    let tasks = dir.join("tasks.jsonl");
    std::fs::write(&tasks, "previous tasks\n").unwrap();
    let out = repoqa_limited(
        limit,
        &["prompts", "--dataset-path", demo_s, "--languages", "python", "--out", s(&tasks)],
    );
    refused(&out, &format!("cannot write {}", tasks.display()));
    assert_eq!(std::fs::read_to_string(&tasks).unwrap(), "previous tasks\n");

    let scores = dir.join("kept-SCORES.json");
    std::fs::write(&scores, "previous scores\n").unwrap();
    let out = repoqa_limited(
        limit,
        &[
            "score",
            "--model-output-path",
            s(&outputs),
            "--dataset-path",
            demo_s,
            "--out",
            s(&scores),
            "--overwrite",
            "--csv",
            csv_s,
        ],
    );
    refused(&out, "cannot write");
    assert_eq!(std::fs::read_to_string(&scores).unwrap(), "previous scores\n");

    let dataset = dir.join("dataset.json");
    std::fs::copy(&demo, &dataset).unwrap();
    let before = std::fs::read(&dataset).unwrap();
    let out = repoqa_limited(
        limit,
        &[
            "curate",
            "--language",
            "python",
            "--repo",
            "me/textkit",
            "--source",
            textkit_s,
            "--append",
            s(&dataset),
        ],
    );
    refused(&out, &format!("cannot write {}", dataset.display()));
    assert!(std::fs::read(&dataset).unwrap() == before, "the dataset appended to is unchanged");
    assert_eq!(leftovers(&dir), Vec::<String>::new());
}

// Writing whole-or-nothing still lets an output go to a pipe.
#[test]
fn an_output_to_a_pipe_is_written_directly() {
    let demo = demo();
    let out = Command::new(env!("CARGO_BIN_EXE_repoqa"))
        .args(["prompts", "--dataset-path", s(&demo), "--languages", "python", "--out"])
        .arg("/dev/stdout")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 10, "the python tasks of the demo");
    assert!(text.starts_with("{\"repo\": "), "{}", &text[..80.min(text.len())]);
}

// 15-17. An output that is one of the command's inputs is refused before
// anything is written, even with --overwrite and under another name.
#[test]
fn an_output_naming_an_input_is_refused() {
    let dir = scratch("same-file");
    let demo = demo();
    let demo_s = s(&demo);
    let textkit = common::root().join("public/demo/python/textkit");
    let textkit_s = s(&textkit);
    let (outputs, _) = scored(&dir);
    let dataset = dir.join("dataset.json");
    std::fs::copy(&demo, &dataset).unwrap();
    let alias = dir.join("alias.json");
    std::os::unix::fs::symlink(&dataset, &alias).unwrap();
    let descriptions = dir.join("descriptions.json");
    std::fs::copy(common::root().join("public/demo/descriptions/python.json"), &descriptions)
        .unwrap();
    let kept = |p: &Path| std::fs::read(p).unwrap();
    let (d0, o0, s0) = (kept(&dataset), kept(&outputs), kept(&descriptions));

    let out = repoqa(&["prompts", "--dataset-path", s(&dataset), "--out", s(&alias)]);
    refused(&out, &format!("--out {}: that is the file given as --dataset-path", alias.display()));
    let out = repoqa(&[
        "score",
        "--model-output-path",
        s(&outputs),
        "--dataset-path",
        demo_s,
        "--out",
        s(&outputs),
        "--overwrite",
    ]);
    refused(&out, "that is the file given as --model-output-path");
    let out = repoqa(&[
        "curate",
        "--language",
        "python",
        "--repo",
        "me/textkit",
        "--source",
        textkit_s,
        "--descriptions",
        s(&descriptions),
        "--out",
        s(&descriptions),
    ]);
    refused(&out, "that is the file given as --descriptions");
    assert!(kept(&dataset) == d0 && kept(&outputs) == o0 && kept(&descriptions) == s0);
    assert!(!dir.join(format!("{}.bak", outputs.display())).exists());
}

// 20. A number past a flag's range is refused, never wrapped into another.
#[test]
fn an_overflowing_context_size_is_refused() {
    let demo = demo();
    let demo_s = s(&demo);
    for sub in ["prompts", "audit"] {
        let out =
            repoqa(&[sub, "--dataset-path", demo_s, "--code-context-size", "9223372036854775808"]);
        refused(&out, "--code-context-size");
        assert!(stderr(&out).contains("from 1 to 4294967295"), "{}", stderr(&out));
    }
}
