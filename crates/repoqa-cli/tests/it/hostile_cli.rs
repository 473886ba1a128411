//! The CLI on careless or hostile input (issue 32): no panic or abort, no
//! unbounded read, no file of the user's destroyed, no overflow taken as a
//! value; each refusal names the flag or path. The case numbers are the
//! issue's.
//!
//!     cargo test -p repoqa-cli --test it hostile_cli::

use crate::{repoqa, stderr};
use repoqa_testkit as common;
use repoqa_testkit::model_server::ModelServer;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `repoqa ARGS` under bash with `limits` applied first (`ulimit …`).
fn repoqa_limited(limits: &str, args: &[&str]) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("{limits}; exec \"$0\" \"$@\""))
        .arg(crate::REPOQA)
        .args(args)
        .output()
        .unwrap()
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
        let out = crate::repoqa_command()
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
    let out = crate::repoqa_command()
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

/// A copy of the demo's Python repository in `dir/textkit`.
fn textkit_copy(dir: &Path) -> PathBuf {
    let from = common::root().join("public/demo/python/textkit");
    let to = dir.join("textkit");
    let copied = Command::new("cp").arg("-r").arg(&from).arg(&to).status().unwrap();
    assert!(copied.success());
    to
}

// 11. A folder holding a FIFO, a link to /dev/zero and a link to a file
// outside it: each is skipped and named, nothing blocks, nothing from
// outside enters the dataset.
#[test]
fn curation_skips_special_files_and_links_out_of_the_folder() {
    let dir = scratch("curate-special");
    let repo = textkit_copy(&dir);
    std::fs::write(dir.join("secret.py"), "def leaked_secret():\n    return 42\n").unwrap();
    let made = Command::new("mkfifo").arg(repo.join("fifo.py")).status().unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", repo.join("zero.py")).unwrap();
    std::os::unix::fs::symlink(dir.join("secret.py"), repo.join("outside.py")).unwrap();
    let out_file = dir.join("dataset.json");
    let out = repoqa_limited(
        "ulimit -v 2000000",
        &[
            "curate",
            "--language",
            "python",
            "--repo",
            "me/textkit",
            "--source",
            s(&repo),
            "--out",
            s(&out_file),
        ],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    for (name, reason) in [
        ("fifo.py", "not a regular file (a FIFO, socket or device); not read"),
        ("outside.py", "a link to a file outside the folder; not read"),
        ("zero.py", "a link to a file outside the folder; not read"),
    ] {
        assert!(err.contains(&format!("{}: {name}: {reason}", repo.display())), "{name}: {err}");
    }
    let dataset = std::fs::read_to_string(&out_file).unwrap();
    assert!(!dataset.contains("leaked_secret"));
}

// 21. The same tasks twice in an outputs file are not scored twice.
#[test]
fn repeated_tasks_in_the_outputs_are_refused_or_scored_once() {
    let dir = scratch("repeated");
    let (outputs, _) = scored(&dir);
    let text = std::fs::read_to_string(&outputs).unwrap();
    let five: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    let twice = dir.join("twice.jsonl");
    std::fs::write(&twice, format!("{five}{five}")).unwrap();
    let demo = demo();
    let args = ["score", "--model-output-path", s(&twice), "--dataset-path", s(&demo)];
    let out = repoqa(&args);
    refused(&out, "5 broken line(s) (listed above); fix them or pass --skip-broken-lines to score the other 5");
    assert!(stderr(&out).contains("line 6: task "), "{}", stderr(&out));
    assert!(stderr(&out).contains(" was already answered on line 1; this line is ignored"));
    let out = repoqa(&[&args[..], &["--skip-broken-lines", "--overwrite"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let count = || {
        let scores: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("twice-SCORES.json")).unwrap()).unwrap();
        let results = scores["twice"]["results"].as_object().unwrap().clone();
        results.values().map(|v| v.as_array().unwrap().len()).sum::<usize>()
    };
    assert_eq!(count(), 5, "each task scored once");
    // Asked for, every line counts, as the official scorer counts them.
    let out = repoqa(&[&args[..], &["--allow-repeated-tasks", "--overwrite"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(count(), 10);
}

// 22. A SCORES record whose fields have the wrong type fails verification.
#[test]
fn verify_checks_the_types_of_the_records() {
    let dir = scratch("verify-types");
    let (_, scores) = scored(&dir);
    let mut file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&scores).unwrap()).unwrap();
    let model = file.as_object().unwrap().keys().next().unwrap().clone();
    let results = file[&model]["results"].as_object_mut().unwrap();
    let first = results.values_mut().next().unwrap();
    first[0]["needle_position"] = serde_json::json!("abc");
    std::fs::write(&scores, file.to_string()).unwrap();
    let out = repoqa(&["verify", "--scores", s(&scores)]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("needle_position is \"abc\", not a number in [0, 1]"), "{text}");
}

// 23, 24. An archive with a repeated entry or an absolute member path is
// refused, naming the entry.
#[test]
fn archives_with_repeated_or_absolute_entries_are_refused() {
    use std::io::Write;
    let dir = scratch("archives");
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, body) in
        [("p/a.py", "def a():\n    return 1\n"), ("p/b.py", "def b():\n    return 2\n")]
    {
        w.start_file(name, opts).unwrap();
        w.write_all(body.as_bytes()).unwrap();
    }
    let mut z = w.finish().unwrap().into_inner();
    // The writer refuses a repeated name: rename the second entry by hand.
    let mut at = 0;
    while let Some(i) = z[at..].windows(6).position(|x| x == b"p/b.py") {
        z[at + i + 2] = b'a';
        at += i + 6;
    }
    let zip_path = dir.join("repeat.zip");
    std::fs::write(&zip_path, z).unwrap();
    let args = |src: &Path, out: &Path| -> Vec<String> {
        ["curate", "--language", "python", "--repo", "me/x", "--source", s(src), "--out", s(out)]
            .map(String::from)
            .to_vec()
    };
    let out_file = dir.join("d.json");
    let out = crate::repoqa_command().args(args(&zip_path, &out_file)).output().unwrap();
    refused(&out, "repeat.zip: two entries are both \"p/a.py\"");

    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.as_old_mut().name[..13].copy_from_slice(b"/etc/evil.py\0");
    h.set_size(2);
    h.set_cksum();
    b.append(&h, &b"x\n"[..]).unwrap();
    let tar_path = dir.join("abs.tar");
    std::fs::write(&tar_path, b.into_inner().unwrap()).unwrap();
    let out = crate::repoqa_command().args(args(&tar_path, &out_file)).output().unwrap();
    refused(&out, "abs.tar: entry \"/etc/evil.py\" has an absolute path; refused");
    assert!(!out_file.exists());
}

/// `repoqa run` on the demo's 10 Python tasks against `server`, with
/// `limits` (`ulimit …`) applied first; results go to `dir`.
fn run_on(server: &ModelServer, dir: &Path, limits: &str, extra: &[&str]) -> Output {
    let demo = demo();
    let base = server.url("/v1");
    let mut args = vec![
        "run",
        "--model",
        "org/m",
        "--base-url",
        &base,
        "--dataset-path",
        s(&demo),
        "--code-context-size",
        "2048",
        "--languages",
        "python",
        "--result-dir",
        s(dir),
        "--timeout-s",
        "20",
        "--max-retries",
        "1",
        "--retry-base-ms",
        "10",
    ];
    args.extend(extra);
    Command::new("bash")
        .arg("-c")
        .arg(format!("{limits}; exec \"$0\" \"$@\""))
        .arg(crate::REPOQA)
        .args(&args)
        .env("REPOQA_TOKENIZER", common::tokenizer_path())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

fn outputs_of(dir: &Path) -> Vec<String> {
    let path = dir.join("ntoken_2048/org_slash_m.jsonl");
    std::fs::read_to_string(path).unwrap_or_default().lines().map(String::from).collect()
}

fn model_server(faults: &str) -> ModelServer {
    let demo = demo();
    ModelServer::start(&common::root(), &["--dataset", s(&demo), "--fault", faults])
}

// 25. A 302 (which would turn the POST into a GET) stops the run, naming
// the redirect; nothing is stored.
#[test]
fn a_redirect_stops_the_run() {
    let dir = scratch("redirect");
    let server = model_server("*=redirect");
    let out = run_on(&server, &dir, "true", &[]);
    refused(&out, "the server redirected the request (HTTP 302 to http://127.0.0.1:");
    assert!(stderr(&out).contains("/landing); redirects are not followed"), "{}", stderr(&out));
    assert_eq!(outputs_of(&dir), Vec::<String>::new());
}

// 26. A reply whose content is a number is malformed: asked again, then
// the task fails; never stored as an empty answer.
#[test]
fn a_reply_with_a_number_for_text_is_never_stored() {
    let dir = scratch("numcontent");
    let server = model_server("*=numcontent");
    let out = run_on(&server, &dir, "true", &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("10 task(s) left without an answer"), "{err}");
    assert!(err.contains("with a text content"), "{err}");
    assert_eq!(outputs_of(&dir), Vec::<String>::new());
}

// 27. Replies naming another model: one warning with both names, and each
// such reply marked in the run log.
#[test]
fn replies_from_another_model_are_warned_about_once_and_logged() {
    let dir = scratch("othermodel");
    let server = model_server("*=othermodel");
    let out = run_on(&server, &dir, "true", &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("WARNING: asked for model \"org/m\", but the reply to ").count(),
        1,
        "{err}"
    );
    assert!(err.contains("names \"other-model-9\""), "{err}");
    let log = std::fs::read_to_string(dir.join("ntoken_2048/org_slash_m.runlog.jsonl")).unwrap();
    assert_eq!(log.matches("\"answered_by\":\"other-model-9\"").count(), 10, "{log}");
    assert_eq!(outputs_of(&dir).len(), 10);
}

// 28. A gzip reply that inflates to 1 GiB fails its task in bounded memory.
#[test]
fn a_compressed_reply_bomb_fails_its_task_in_bounded_memory() {
    let dir = scratch("gzipbomb");
    let server = model_server("*=gzipbomb");
    let out = run_on(&server, &dir, "ulimit -v 1500000", &["--concurrency", "2"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(!err.contains("memory allocation") && !err.contains("panicked"), "{err}");
    assert_eq!(outputs_of(&dir), Vec::<String>::new());
}

// 29. A second run on the same outputs file is refused while the first
// holds it; the first still answers each task once.
#[test]
fn a_second_run_on_the_same_outputs_is_refused() {
    let dir = scratch("two-runs");
    let demo = demo();
    let server =
        ModelServer::start(&common::root(), &["--dataset", s(&demo), "--latency-s", "0.3"]);
    let first = {
        let (dir, base) = (dir.clone(), server.url("/v1"));
        std::thread::spawn(move || {
            let demo = self::demo();
            crate::repoqa_command()
                .args(["run", "--model", "org/m", "--base-url", &base, "--dataset-path", s(&demo)])
                .args([
                    "--code-context-size",
                    "2048",
                    "--languages",
                    "python",
                    "--result-dir",
                    s(&dir),
                ])
                .args(["--concurrency", "1"])
                .env("REPOQA_TOKENIZER", common::tokenizer_path())
                .env_remove("OPENAI_API_KEY")
                .output()
                .unwrap()
        })
    };
    // Wait until the first run has its outputs file (it is locked then).
    let log = dir.join("ntoken_2048/org_slash_m.runlog.jsonl");
    let t0 = std::time::Instant::now();
    while !log.exists() && t0.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = run_on(&server, &dir, "true", &[]);
    refused(&second, "another `repoqa run` is writing this model outputs file (it is locked)");
    let first = first.join().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(outputs_of(&dir).len(), 10, "each task once");
}

// 30. Curation whose every description request fails is a failure.
#[test]
fn curation_with_no_description_obtained_fails() {
    let dir = scratch("describe-fails");
    let demo = demo();
    // The model server knows no needle-description prompt: it answers 400.
    let server = ModelServer::start(&common::root(), &["--dataset", s(&demo)]);
    let textkit = common::root().join("public/demo/python/textkit");
    let out_file = dir.join("d.json");
    let base = server.url("/v1");
    let out = crate::repoqa_command()
        .args(["curate", "--language", "python", "--repo", "me/t", "--source", s(&textkit)])
        .args(["--out", s(&out_file), "--llm-base-url", &base, "--llm-model", "m"])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    refused(&out, "none of the 10 needles could be described; the first error (");
    assert!(stderr(&out).contains("HTTP 400"), "{}", stderr(&out));
    assert!(!out_file.exists());
}
