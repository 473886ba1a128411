//! `--task call-path` on `prompts` and `score` (NOT UPSTREAM,
//! docs/call-path.md): the demo's tasks as JSONL rows, a stand-in model's
//! outputs scored — the gold path passes every task, the reversed path
//! none of the path tasks — and broken outputs refused by line.
//!
//!     cargo test -p repoqa-cli --test it call_path_task::

use std::path::Path;
use std::process::Output;

use repoqa_testkit as common;
use serde_json::Value;

use crate::repoqa;

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The demo's call-path tasks at 2048 tokens, written to `dir`.
/// Each line of a JSONL file.
fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A request's prompt (its last message) and the task row whose question it asks.
fn asked_task<'a>(request: &Value, rows: &'a [Value]) -> (String, &'a Value) {
    let prompt = request["body"]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let row = rows
        .iter()
        .find(|t| prompt.contains(t["question"].as_str().unwrap()))
        .expect("a task's question");
    (prompt, row)
}

fn demo_tasks(dir: &Path) -> Vec<Value> {
    let demo = common::root().join("public/demo/repoqa-demo.json");
    let tok = common::tokenizer_path();
    let out = dir.join("tasks.jsonl");
    let o = repoqa(&[
        "prompts",
        "--task",
        "call-path",
        "--dataset-path",
        demo.to_str().unwrap(),
        "--code-context-size",
        "2048",
        "--tokenizer",
        tok.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("NOT UPSTREAM"), "{err}");
    // A repository that gives fewer says so, with why.
    assert!(err.contains("warning: rust dtolnay/semver gives "), "{err}");
    std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON row"))
        .collect()
}

/// Score an outputs file of `body` written to `dir/name` (`--json`, and
/// `--overwrite` for a rerun).
fn score_file(dir: &Path, name: &str, body: String) -> Output {
    let demo = common::root().join("public/demo/repoqa-demo.json");
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    repoqa(&[
        "score",
        "--task",
        "call-path",
        "--dataset-path",
        demo.to_str().unwrap(),
        "--model-output-path",
        path.to_str().unwrap(),
        "--json",
        "--overwrite",
    ])
}

/// Write `rows` with `output: [answer(row)]` and score them.
fn score(dir: &Path, name: &str, rows: &[Value], answer: impl Fn(&Value) -> String) -> Output {
    let mut lines = String::new();
    for r in rows {
        let mut r = r.clone();
        r["output"] = Value::from(vec![answer(&r)]);
        lines.push_str(&format!("{r}\n"));
    }
    score_file(dir, name, lines)
}

fn names(r: &Value) -> Vec<String> {
    r["path"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
}

#[test]
fn the_demo_s_call_path_tasks_and_a_stand_in_model_s_scores() {
    let dir = common::scratch("call-path-task");
    let rows = demo_tasks(&dir);
    assert!(rows.len() >= 20, "{} tasks", rows.len());
    let no_path = rows.iter().filter(|r| names(r).is_empty()).count();
    // About the share asked (20 %), also where repositories are short of
    // path tasks: answering NO PATH everywhere is no strategy.
    assert!(no_path > 0 && no_path * 4 <= rows.len() + 4, "{no_path} of {}", rows.len());
    for r in &rows {
        assert_eq!(r["task"], "call-path");
        assert_eq!(r["code_context_size"], 2048);
        let path = names(r);
        if !path.is_empty() {
            assert_eq!(path.first().unwrap(), r["source"]["name"].as_str().unwrap());
            assert_eq!(path.last().unwrap(), r["target"]["name"].as_str().unwrap());
            assert_eq!(r["depths"].as_array().unwrap().len(), path.len());
        } else {
            assert!(r["no_path"].is_string(), "{r}");
            assert_eq!(r["depths"].as_array().unwrap().len(), 2);
        }
        let q = r["question"].as_str().unwrap();
        assert!(q.contains(r["source"]["name"].as_str().unwrap()), "{q}");
        assert!(q.contains(r["target"]["file"].as_str().unwrap()), "{q}");
        assert_eq!(r["template"], "instruction\ncode_context\nquestion\ninstruction");
    }

    // The gold path (NO PATH where there is none), numbered and arrowed
    // as models write it: every task passes.
    let gold = |r: &Value| {
        let p = names(r);
        if p.is_empty() {
            "NO PATH".to_string()
        } else {
            format!(
                "```\n{}\n```",
                p.iter()
                    .enumerate()
                    .map(|(i, n)| format!("{}. {n}", i + 1))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        }
    };
    let o = score(&dir, "gold.jsonl", &rows, gold);
    assert!(o.status.success(), "{}", text(&o));
    let s: Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(s["task"], "call-path");
    assert_eq!(s["pass@1"], 100.0, "{s}");
    assert_eq!(s["scores"]["no_path"]["recall"], 1.0);
    // The SCORES file beside the outputs, every result in it.
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("gold-SCORES.json")).unwrap())
            .unwrap();
    assert_eq!(file["results"].as_array().unwrap().len(), rows.len());
    assert!(file["protocol"].as_str().unwrap().contains("NOT UPSTREAM"));

    // verify: the file alone, then every reply judged again; a tampered
    // result and a tampered pass@1 are each named.
    let demo = common::root().join("public/demo/repoqa-demo.json");
    let scores = dir.join("gold-SCORES.json");
    let verify = |scores: &Path, rescore: bool| {
        let mut args = vec!["verify", "--scores", scores.to_str().unwrap()];
        let outputs = dir.join("gold.jsonl");
        if rescore {
            args.extend([
                "--model-output-path",
                outputs.to_str().unwrap(),
                "--dataset-path",
                demo.to_str().unwrap(),
            ]);
        }
        repoqa(&args)
    };
    for rescore in [false, true] {
        let o = verify(&scores, rescore);
        assert!(o.status.success(), "{}", text(&o));
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(said.contains("ok   the scores recomputed from the "), "{said}");
        assert_eq!(said.contains("equals its reply judged again"), rescore, "{said}");
    }
    let mut forged = file.clone();
    forged["results"][0]["verdict"] = "missed_path".into();
    forged["pass@1"] = 90.0.into();
    let forged_path = dir.join("forged-SCORES.json");
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    let o = verify(&forged_path, true);
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stdout);
    let first = file["results"][0]["id"].as_str().unwrap();
    assert!(said.contains("FAIL the scores recomputed from the"), "{said}");
    assert!(said.contains("FAIL pass@1 90.0 is NOT the scores' overall 100.0"), "{said}");
    assert!(
        said.contains(&format!("FAIL {first}: the file says missed path"))
            && said.contains("judged again: pass"),
        "{said}"
    );
    // --task call-path on an SNF SCORES file: refused, named.
    let snf = dir.join("snf-SCORES.json");
    std::fs::write(&snf, "{\"m\": {\"scores\": {}}}").unwrap();
    let o = repoqa(&["verify", "--task", "call-path", "--scores", snf.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o).contains("not a call-path SCORES file"), "{}", text(&o));

    // The reversed path: only the no-path tasks (answered NO PATH) pass.
    let reversed = |r: &Value| {
        let mut p = names(r);
        p.reverse();
        if p.is_empty() {
            "NO PATH".into()
        } else {
            p.join(" -> ")
        }
    };
    let o = score(&dir, "reversed.jsonl", &rows, reversed);
    assert!(o.status.success(), "{}", text(&o));
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    let want = 100.0 * no_path as f64 / rows.len() as f64;
    assert!((s["pass@1"].as_f64().unwrap() - want).abs() < 1e-9, "{s}");
    assert_eq!(s["scores"]["verdicts"]["pass"], no_path);

    // As text: the breakdowns, each verdict named.
    let o = score(&dir, "garbage.jsonl", &rows, |_| "I am not sure.".into());
    assert!(o.status.success());
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["pass@1"], 0.0);
    assert_eq!(s["scores"]["verdicts"]["unreadable"], rows.len());
}

#[test]
fn broken_call_path_outputs_and_snf_flags_are_refused_by_name() {
    let dir = common::scratch("call-path-broken");
    let rows = demo_tasks(&dir);
    let demo = common::root().join("public/demo/repoqa-demo.json");
    let score_file = |name: &str, body: String| score_file(&dir, name, body);
    let mut good = rows[0].clone();
    good["output"] = Value::from(vec!["NO PATH"]);
    // Line 2 is cut.
    let o = score_file("cut.jsonl", format!("{good}\n{{\"task\": \"call-path\", \"re\n"));
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("cut.jsonl, line 2: not a call-path task"), "{}", text(&o));
    // An SNF outputs line.
    let o = score_file("snf.jsonl", "{\"repo\": \"a\", \"output\": [\"x\"]}\n".into());
    assert!(text(&o).contains("snf.jsonl, line 1"), "{}", text(&o));
    // A task of a repository the dataset does not have.
    let mut other = good.clone();
    other["repo"] = "someone/else".into();
    let o = score_file("other.jsonl", format!("{other}\n"));
    assert!(text(&o).contains("line 1: the dataset has no "), "{}", text(&o));
    // Empty.
    let o = score_file("empty.jsonl", String::new());
    assert!(text(&o).contains("no call-path task in it"), "{}", text(&o));
    // SNF-only flags.
    let o = repoqa(&[
        "prompts",
        "--task",
        "call-path",
        "--dataset-path",
        demo.to_str().unwrap(),
        "--depths",
        "0.5",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("--depths is for SNF tasks"), "{}", text(&o));
    let o =
        repoqa(&["prompts", "--dataset-path", demo.to_str().unwrap(), "--no-path-share", "0.5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("give --task call-path"), "{}", text(&o));
}

/// `repoqa run --task call-path` against the project's test model server
/// on 127.0.0.1: every request is a task's prompt, a fault is retried, a
/// rerun asks nothing again, and the run's SCORES file equals `repoqa score
/// --task call-path` on its outputs.
#[test]
fn a_call_path_run_against_the_test_model_server_scores_as_score_does() {
    use repoqa_testkit::model_server::ModelServer;
    let dir = common::scratch("call-path-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rows = demo_tasks(&dir);
    let demo = common::root().join("public/demo/repoqa-demo.json");
    let (key, model) = ("sk-test-call-path-0123", "org/test-model");
    // The first task's source gets a 500 then an answer.
    let fault = format!("callpath:{}=500", rows[0]["source"]["name"].as_str().unwrap());
    let server = ModelServer::start(
        &common::root(),
        &["--dataset", demo.to_str().unwrap(), "--key", key, "--model", model, "--fault", &fault],
    );
    let tok = common::tokenizer_path();
    let base = server.url("/v1");
    let results = dir.join("results");
    let args = [
        "run",
        "--task",
        "call-path",
        "--model",
        model,
        "--backend",
        "openai",
        "--base-url",
        &base,
        "--dataset-path",
        demo.to_str().unwrap(),
        "--code-context-size",
        "2048",
        "--tokenizer",
        tok.to_str().unwrap(),
        "--result-dir",
        results.to_str().unwrap(),
        "--retry-base-ms",
        "50",
    ];
    let run = || crate::repoqa_command().args(args).env("OPENAI_API_KEY", key).output().unwrap();
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let outputs = results.join("ntoken_2048-call-path/org_slash_test-model.jsonl");
    let lines = jsonl(&outputs);
    assert_eq!(lines.len(), rows.len());
    // Each request was a task's prompt: instruction, code, question, instruction.
    let requests = server.requests();
    assert_eq!(requests.len(), rows.len() + 1, "one retry");
    for r in &requests {
        let (prompt, row) = asked_task(r, &rows);
        let want = format!(
            "{}{}{}{}",
            row["instruction"].as_str().unwrap(),
            row["code_context"].as_str().unwrap(),
            row["question"].as_str().unwrap(),
            row["instruction"].as_str().unwrap()
        );
        assert_eq!(prompt, want);
    }
    // The run's SCORES equal `score`'s on the same outputs.
    let run_scores: Value = serde_json::from_str(
        &std::fs::read_to_string(outputs.to_str().unwrap().replace(".jsonl", "-SCORES.json"))
            .unwrap(),
    )
    .unwrap();
    let o = repoqa(&[
        "score",
        "--task",
        "call-path",
        "--dataset-path",
        demo.to_str().unwrap(),
        "--model-output-path",
        outputs.to_str().unwrap(),
        "--out",
        dir.join("again-SCORES.json").to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let again: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(again["scores"], run_scores["scores"]);
    assert_eq!(run_scores["model"], model);
    // The server answers NO PATH for an even-length source name: those
    // pass on the no-path tasks only; its two-name paths never pass.
    let want = rows
        .iter()
        .filter(|r| names(r).is_empty() && r["source"]["name"].as_str().unwrap().len() % 2 == 0)
        .count();
    assert_eq!(run_scores["scores"]["overall"]["passed"], want);
    // A rerun asks nothing again.
    let before = server.requests().len();
    let o = run();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(server.requests().len(), before);

    // A second length, then the ladder of both: each length's column is
    // that run's own scores.
    let o = crate::repoqa_command()
        .args(args.map(|a| if a == "2048" { "4096" } else { a }))
        .env("OPENAI_API_KEY", key)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let ladder_json = || {
        let o = repoqa(&[
            "ladder",
            "--task",
            "call-path",
            "--result-dir",
            results.to_str().unwrap(),
            "--json",
        ]);
        assert!(o.status.success(), "{}", text(&o));
        serde_json::from_slice::<Value>(&o.stdout).unwrap()
    };
    let ladders = ladder_json();
    let l = &ladders[0];
    assert_eq!(l["model"], model);
    assert_eq!(l["lengths"], serde_json::json!([2048, 4096]));
    assert_eq!(l["scores"]["by_context_length"]["2048"], run_scores["scores"]["overall"]);
    let at_4096: Value = serde_json::from_str(
        &std::fs::read_to_string(
            results.join("ntoken_4096-call-path/org_slash_test-model-SCORES.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(l["scores"]["by_context_length"]["4096"], at_4096["scores"]["overall"]);
    let o = repoqa(&["ladder", "--task", "call-path", "--result-dir", results.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("Call-path pass@1 of org/test-model by context length:"), "{said}");
    assert!(said.lines().any(|l| l.trim_start().starts_with("all ")), "{said}");

    // Closed-book (issue 83): the same tasks with no code, in a folder of
    // their own (the run with the code is not resumed from), every request
    // the instruction, the question and the instruction only.
    let before = server.requests().len();
    let o = crate::repoqa_command()
        .args(args)
        .arg("--closed-book")
        .env("OPENAI_API_KEY", key)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let closed = results.join("ntoken_2048-call-path-closed-book/org_slash_test-model.jsonl");
    let closed_lines = jsonl(&closed);
    assert_eq!(closed_lines.len(), rows.len());
    assert!(closed_lines.iter().all(|l| l["closed_book"] == true && l["code_context"] == ""));
    let asked = &server.requests()[before..];
    assert_eq!(asked.len(), rows.len());
    for r in asked {
        let (prompt, row) = asked_task(r, &rows);
        let code = row["code_context"].as_str().unwrap();
        assert!(code.len() > 100 && !prompt.contains(code.trim()));
        for line in code.lines().map(str::trim).filter(|l| l.len() >= 30) {
            assert!(!prompt.contains(line), "the closed-book prompt holds code: {line}");
        }
        let instruction = row["instruction"].as_str().unwrap();
        assert_eq!(
            prompt,
            format!("{instruction}{}{instruction}", row["question"].as_str().unwrap())
        );
    }
    let closed_scores =
        results.join("ntoken_2048-call-path-closed-book/org_slash_test-model-SCORES.json");
    let file: Value = serde_json::from_slice(&std::fs::read(&closed_scores).unwrap()).unwrap();
    assert_eq!(file["closed_book"], true);
    assert!(file["protocol"].as_str().unwrap().starts_with("call-path task, closed-book"));
    // The ladder leaves the closed-book run out; report pairs the two.
    let ladders = ladder_json();
    assert_eq!(ladders[0]["scores"]["by_context_length"]["2048"], run_scores["scores"]["overall"]);
    let html = dir.join("remembering.html");
    let o = repoqa(&[
        "report",
        "--scores",
        outputs.to_str().unwrap().replace(".jsonl", "-SCORES.json").as_str(),
        closed_scores.to_str().unwrap(),
        "--out",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.contains("<h2>Is the model remembering?</h2>"), "{html:.2000}");
    let open_pass =
        run_scores["scores"]["overall"]["passed"].as_u64().unwrap() as f64 / rows.len() as f64;
    assert!(
        html.contains(&format!(
            "<tr data-model=\"org/test-model\" data-share=\"{}\"",
            file["scores"]["overall"]["passed"].as_u64().unwrap() as f64 / rows.len() as f64
        )),
        "{html:.200}"
    );
    assert!(open_pass > 0.0);
    // A file mixing closed-book and with-code answers is refused by name.
    let mixed = dir.join("mixed.jsonl");
    let mut text_mixed = std::fs::read_to_string(&outputs).unwrap();
    text_mixed.push_str(&std::fs::read_to_string(&closed).unwrap());
    std::fs::write(&mixed, text_mixed).unwrap();
    let d = demo.to_str().unwrap();
    let o = repoqa(&[
        "score",
        "--task",
        "call-path",
        "--dataset-path",
        d,
        "--model-output-path",
        mixed.to_str().unwrap(),
        "--out",
        dir.join("mixed-SCORES.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("a closed-book task after with-code ones"), "{}", text(&o));
}

/// `repoqa report` on call-path SCORES files (known by their `task` field,
/// or `--task call-path`): one self-contained HTML file with each file's
/// pass@1, its tables and every task's verdict; names escaped; SNF's
/// `--compare` and an SNF SCORES file refused by name.
#[test]
fn a_call_path_report_holds_each_file_s_scores_and_every_task() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let rows = demo_tasks(dir);
    let answer = |reverse: bool| {
        move |r: &Value| {
            let mut p = names(r);
            if reverse {
                p.reverse();
            }
            if p.is_empty() {
                "NO PATH".to_string()
            } else {
                p.join(" -> ")
            }
        }
    };
    assert!(score(dir, "gold.jsonl", &rows, answer(false)).status.success());
    let o = score(dir, "reversed.jsonl", &rows, answer(true));
    assert!(o.status.success());
    let reversed: Value = serde_json::from_slice(&o.stdout).unwrap();
    let html_path = dir.join("report.html");
    let scores = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let o = repoqa(&[
        "report",
        "--scores",
        &scores("gold-SCORES.json"),
        &scores("reversed-SCORES.json"),
        "--out",
        html_path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.contains("<title>Call-path report (NOT UPSTREAM): "), "{html:.300}");
    assert!(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    assert!(!html.contains("<script"));
    assert!(html.contains("id=\"run-0\"") && html.contains("data-pass=\"100\""));
    let pass = reversed["pass@1"].as_f64().unwrap();
    assert!(html.contains(&format!("data-pass=\"{pass}\"")), "{pass}");
    assert!(html.contains(&format!("<strong>pass@1 {pass:.1}</strong>")));
    for r in &rows {
        let id = format!(
            "{}::{}:{}->{}:{}",
            r["repo"].as_str().unwrap(),
            r["source"]["file"].as_str().unwrap(),
            r["source"]["name"].as_str().unwrap(),
            r["target"]["file"].as_str().unwrap(),
            r["target"]["name"].as_str().unwrap()
        );
        let escaped = id.replace('>', "&gt;");
        assert_eq!(html.matches(&format!("data-id=\"{escaped}\"")).count(), 2, "{id}");
    }
    // A model's name is text, never markup.
    let mut forged: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("gold-SCORES.json")).unwrap())
            .unwrap();
    forged["model"] = "<b>m</b>".into();
    std::fs::write(dir.join("forged-SCORES.json"), forged.to_string()).unwrap();
    let out2 = dir.join("report2.html");
    let o = repoqa(&[
        "report",
        "--task",
        "call-path",
        "--scores",
        &scores("forged-SCORES.json"),
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let html = std::fs::read_to_string(&out2).unwrap();
    assert!(html.contains("&lt;b&gt;m&lt;/b&gt;") && !html.contains("<b>m</b>"));
    // Refused by name.
    let o = repoqa(&[
        "report",
        "--scores",
        &scores("gold-SCORES.json"),
        &scores("reversed-SCORES.json"),
        "--compare",
        "--out",
        dir.join("r3.html").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("--compare compares SNF runs"), "{}", text(&o));
    let snf = dir.join("snf-SCORES.json");
    std::fs::write(&snf, "{\"m\": {\"scores\": {}}}").unwrap();
    let o = repoqa(&[
        "report",
        "--task",
        "call-path",
        "--scores",
        snf.to_str().unwrap(),
        "--out",
        dir.join("r4.html").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("not a call-path SCORES file"), "{}", text(&o));
}
