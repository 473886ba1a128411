//! Name-match (the agent way, as mcpbr scores RepoQA) on crafted replies
//! for the demo dataset's needles: what is found, and the warnings where a
//! match says little (short or common names, a name in the description, a
//! name inside another needle's name). Through the library and the CLI
//! (`repoqa name-match`, `repoqa agent-export` / `agent-import`).

use repoqa_testkit as common;

use std::path::PathBuf;

use repoqa::input::dataset::Dataset;
use repoqa::scoring::name_match::{name_match, NameTask, Warning};
use serde_json::{json, Value};

fn demo_path() -> PathBuf {
    common::root().join("public/demo/repoqa-demo.json")
}

/// One outputs line per demo needle. Replies: python names the function in
/// prose (upper case), cpp in a code block, java repeats a word of its
/// description only, the rest say nothing useful.
fn crafted_outputs(dataset: &Dataset) -> String {
    let mut text = String::new();
    for (lang, repos) in &dataset.languages {
        for r in repos {
            for (i, n) in r.needles.iter().enumerate() {
                let reply = match lang.as_str() {
                    "python" => format!("The function is {}.", n.name.to_uppercase()),
                    "cpp" => format!("```cpp\nint {}() {{ return 0; }}\n```", n.name),
                    "java" => "I think it is the main method; it calls parse on the owner.".into(),
                    _ => "I could not find it.".to_string(),
                };
                let line = json!({
                    "repo": r.repo, "name": n.name, "language": lang,
                    "position_ratio": (i as f64 + 0.5) / 10.0,
                    "needle_token_start": 0, "needle_token_end": 1,
                    "output": [reply],
                });
                text.push_str(&serde_json::to_string(&line).unwrap());
                text.push('\n');
            }
        }
    }
    text
}

#[test]
fn crafted_replies_and_warnings() {
    let d = Dataset::from_file(&demo_path()).unwrap();
    let outputs = repoqa::report::read_model_outputs(&crafted_outputs(&d)).outputs;
    let tasks = repoqa::scoring::name_match::tasks_from_outputs(
        &outputs,
        &repoqa::scoring::name_match::dataset_descriptions(&d),
    );
    let r = name_match(&tasks);
    assert_eq!(r.languages["python"].found, 10);
    assert_eq!(r.languages["cpp"].found, 10);
    assert_eq!(r.languages["rust"].found, 0);
    // java: "main", "parse" and "owner" match by accident, and are flagged.
    let java: Vec<(&str, bool, Vec<&str>)> = r
        .tasks
        .iter()
        .filter(|t| t.language == "java" && t.found)
        .map(|t| (t.name.as_str(), t.found, t.warnings.iter().map(Warning::code).collect()))
        .collect();
    assert_eq!(
        java,
        [
            ("main", true, vec!["short-name", "common-name"]),
            ("owner", true, vec![]),
            ("parse", true, vec!["common-name"]),
        ]
    );
    let line = r.tasks.iter().find(|t| t.name == "line").unwrap();
    assert_eq!(line.warnings.iter().map(Warning::code).collect::<Vec<_>>(), ["short-name"]);
    println!(
        "name_match_replies: overall {:.3}, reliable {}/{}",
        r.overall.rate(),
        r.reliable.found,
        r.reliable.n
    );

    // Description and other-needle warnings on hand-made tasks.
    let t = |name: &str, description: &str, reply: &str| NameTask {
        language: "python".into(),
        repo: "x/y".into(),
        name: name.into(),
        description: description.into(),
        reply: reply.into(),
    };
    let r = name_match(&[
        t("merge_rows", "\nFunction Description:Wraps merge_rows for tables.\n", "merge_rows"),
        t("load_table", "", "It is load_table_rows."),
        t("load_table_rows", "", "No idea."),
    ]);
    assert_eq!(r.tasks[0].warnings, [Warning::InDescription]);
    assert!(r.tasks[1].found, "a longer name containing the needle's matches");
    assert_eq!(r.tasks[1].warnings, [Warning::PartOfOtherName("load_table_rows".into())]);
    assert!(r.tasks[2].warnings.is_empty());
}

fn repoqa(args: &[&str]) -> (i32, String, String) {
    let out = crate::repoqa_command().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_name_match_json() {
    let d = Dataset::from_file(&demo_path()).unwrap();
    let dir = common::scratch("name_match_replies");
    let outputs = dir.join("crafted.jsonl");
    std::fs::write(&outputs, crafted_outputs(&d)).unwrap();
    let (code, stdout, stderr) = repoqa(&[
        "name-match",
        "--model-output-path",
        outputs.to_str().unwrap(),
        "--dataset-path",
        demo_path().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["languages"]["python"], json!(1.0));
    assert_eq!(v["languages"]["rust"], json!(0.0));
    assert_eq!(v["overall"], json!(23.0 / 60.0));
    let keys: Vec<&String> = v["tasks"][0].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["language", "repo", "name", "found", "warnings"]);
    let (code, text, _) = repoqa(&["name-match", "--model-output-path", outputs.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(text.contains("NOT the official"), "{text}");
    assert!(text.contains("warning java repoqa-web/demo-bank main (found)"), "{text}");
    println!("name_match_replies: CLI overall {}", v["overall"]);
}

#[test]
fn cli_agent_export_and_import() {
    let dir = common::scratch("name_match_replies");
    let tasks = dir.join("agent-tasks.jsonl");
    let demo = demo_path();
    let (code, _, stderr) = repoqa(&[
        "agent-export",
        "--dataset-path",
        demo.to_str().unwrap(),
        "--languages",
        "python,go",
        "--sample",
        "7",
        "--seed",
        "3",
        "--out",
        tasks.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&tasks).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 7);
    assert_eq!(lines[0]["instance_id"], json!("repoqa_0"));
    assert_eq!(lines[6]["instance_id"], json!("repoqa_6"));
    assert!(lines.iter().all(|l| l["language"] == "python" || l["language"] == "go"));
    // Answer the first three with their names, the fourth wrongly.
    let mut results = String::new();
    for (i, l) in lines.iter().take(4).enumerate() {
        let response = if i < 3 {
            format!("Found it: `{}`", l["function_name"].as_str().unwrap())
        } else {
            "no".into()
        };
        results.push_str(
            &serde_json::to_string(&json!({"instance_id": l["instance_id"], "response": response}))
                .unwrap(),
        );
        results.push('\n');
    }
    let results_path = dir.join("agent-results.jsonl");
    std::fs::write(&results_path, results).unwrap();
    let (code, stdout, stderr) = repoqa(&[
        "agent-import",
        "--tasks",
        tasks.to_str().unwrap(),
        "--results",
        results_path.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["overall"], json!(3.0 / 7.0));
    assert!(stderr.contains("3 instance id(s) without a response"), "{stderr}");
}

#[test]
fn cli_name_protocol_prompts_change_only_the_instruction() {
    let dir = common::scratch("name_match_replies");
    let demo = demo_path();
    let tok = common::tokenizer_path();
    let run = |out: &PathBuf, extra: &[&str]| {
        let mut args = vec![
            "prompts",
            "--dataset-path",
            demo.to_str().unwrap(),
            "--languages",
            "python",
            "--tokenizer",
            tok.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, _, stderr) = repoqa(&args);
        assert_eq!(code, 0, "{stderr}");
        stderr
    };
    let official = dir.join("official.jsonl");
    let named = dir.join("name-protocol.jsonl");
    run(&official, &[]);
    let stderr = run(&named, &["--name-protocol"]);
    assert!(stderr.contains("NOT the official SNF protocol"), "{stderr}");
    let read = |p: &PathBuf| -> Vec<Value> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (a, b) = (read(&official), read(&named));
    assert_eq!(a.len(), 10);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x["code_context"], y["code_context"]);
        assert_eq!(x["description"], y["description"]);
        assert_eq!(y["instruction"], json!(repoqa::prompt::name_protocol::NAME_INSTRUCTION));
        assert_eq!(y["protocol"], json!(repoqa::prompt::name_protocol::PROTOCOL_FIELD));
        assert!(x.get("protocol").is_none());
    }
}
