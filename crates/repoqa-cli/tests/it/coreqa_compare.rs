//! `repoqa coreqa compare` on a fixed set of pairwise judgments
//! (tests/fixtures/coreqa/judgments.jsonl): Elo equal to the values worked
//! out by hand from the formula (docs/coreqa.md), the records, the
//! position-bias table, the first-position preference, and a message
//! naming the line of a bad judgment; and `repoqa coreqa breakdown` of
//! fixed judge scores by question length and issue year.

use repoqa_testkit as common;

use serde_json::{json, Value};

fn compare(args: &[&str]) -> std::process::Output {
    crate::repoqa_command().args(["coreqa", "compare"]).args(args).output().unwrap()
}

#[test]
fn elo_records_and_position_bias_of_fixed_judgments() {
    let fixture = common::root().join("tests/fixtures/coreqa/judgments.jsonl");
    let out = compare(&["--json", "--judgments", fixture.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    // By hand, K 32 from 1000, E = 1 / (1 + 10^((R_other - R) / 400)):
    //   q1 a>b: a 1016, b 984;
    //   q1 (b, a) → a: b loses with E_b = 1/(1+10^(32/400)): a 1016+32·E_b;
    //   q2 tie, then q2 (b, a) → b wins. Final (Python, same formula):
    let (a, b) = (1009.2130416923687, 990.7869583076313);
    let elo = &c["elo"];
    assert!((elo["model-a"].as_f64().unwrap() - a).abs() < 1e-9, "{elo}");
    assert!((elo["model-b"].as_f64().unwrap() - b).abs() < 1e-9, "{elo}");
    assert_eq!(c["judgments"], 4);
    assert_eq!(
        c["records"],
        json!([
            {"model": "model-a", "opponent": "model-b", "wins": 2, "ties": 1, "losses": 1},
            {"model": "model-b", "opponent": "model-a", "wins": 1, "ties": 1, "losses": 2}
        ])
    );
    assert_eq!(
        c["position_bias"],
        json!({"consistent": 1, "small_discrepancy": 1, "contradiction": 0, "unpaired": 0})
    );
    // Verdicts for the answer shown first: q1 (a), q2 second order (b);
    // for the second: q1 second order; one tie.
    assert_eq!(c["first_position"], json!({"first": 2, "second": 1, "tie": 1}));
    let iv = &c["bootstrap"]["model-a"];
    assert!(
        iv["low"].as_f64() <= iv["median"].as_f64() && iv["median"].as_f64() <= iv["high"].as_f64()
    );
    // The text form says the same.
    let out = compare(&["--judgments", fixture.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("model-a") && text.contains("1009.2"), "{text}");
    assert!(text.contains("1 consistent, 1 small discrepancy, 0 contradiction"), "{text}");
    assert!(
        text.contains("first-position preference: 2 first, 1 second, 1 ties (66.7% of decided verdicts for the answer shown first)"),
        "{text}"
    );
}

#[test]
fn judge_scores_by_question_length_and_issue_year() {
    let dir = common::scratch("coreqa_breakdown");
    // Five questions of 10 to 50 characters ("é" is one), issues opened in
    // 2022, 2022, 2024, 2024 and one without an issue.
    let years = [
        Some("2022-01-05T10:00:00Z"),
        Some("2022-09-01T00:00:00Z"),
        Some("2024-02-02T00:00:00Z"),
        Some("2024-12-31T23:59:59Z"),
        None,
    ];
    let qa: Vec<String> = (0..5)
        .map(|i| {
            let mut q = json!({"id": format!("o/r#{i}"), "repository": "o/r",
                "question": "é".repeat(10 * (5 - i)), "reference_answer": "r"});
            if let Some(y) = years[i] {
                q["issue"] = json!({"number": i, "created_at": y});
            }
            q.to_string()
        })
        .collect();
    let qa_path = dir.join("qa.jsonl");
    std::fs::write(&qa_path, qa.join("\n") + "\n").unwrap();
    // m1: question i scored i+1 and i+3 in its two repetitions (mean i+2);
    // m2: questions 0 and 1 only, 9 each.
    let mut judged = Vec::new();
    for i in 0..5u8 {
        for (rep, s) in [(1, i + 1), (2, i + 3)] {
            judged.push(json!({"question_id": format!("o/r#{i}"), "setting": "none", "model": "m1",
                "repetition": rep, "judge": "j", "scores": {"accuracy": s, "completeness": s, "relevance": s, "clarity": s},
                "reasoning": ""}).to_string());
        }
    }
    let m2: Vec<String> = (0..2)
        .map(|i| json!({"question_id": format!("o/r#{i}"), "setting": "retrieval", "model": "m2",
            "repetition": 1, "judge": "j", "scores": {"accuracy": 9, "completeness": 9, "relevance": 9, "clarity": 9},
            "reasoning": ""}).to_string())
        .collect();
    let (j1, j2) = (dir.join("m1.jsonl"), dir.join("m2.jsonl"));
    std::fs::write(&j1, judged.join("\n") + "\n").unwrap();
    std::fs::write(&j2, m2.join("\n") + "\n").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "coreqa",
            "breakdown",
            "--qa",
            qa_path.to_str().unwrap(),
            "--judgments",
            j1.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        crate::repoqa_command().args(&args).output().unwrap()
    };
    let out = run(&["--judgments", j2.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let b: Value = serde_json::from_slice(&out.stdout).unwrap();
    let length = &b["by_question_length"];
    // Shortest first: question 4 (10 characters) is Q1, question 0 is Q5.
    let groups: Vec<(String, String)> = length["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["label"].as_str().unwrap().into(), g["range"].as_str().unwrap().into()))
        .collect();
    assert_eq!(groups[0], ("Q1".to_string(), "10 characters".to_string()));
    assert_eq!(groups[4], ("Q5".to_string(), "50 characters".to_string()));
    let cell = |b: &Value, model: &str, group: &str| -> Option<f64> {
        b["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["model"] == model && c["group"] == group)
            .map(|c| c["overall"].as_f64().unwrap())
    };
    assert_eq!(cell(length, "m1", "Q1"), Some(6.0), "question 4: (5 + 7) / 2");
    assert_eq!(cell(length, "m1", "Q5"), Some(2.0), "question 0: (1 + 3) / 2");
    assert_eq!(cell(length, "m2", "Q4"), Some(9.0));
    assert_eq!(cell(length, "m2", "Q1"), None, "m2 was not judged on question 4");
    let year = &b["by_issue_year"];
    let labels: Vec<&str> =
        year["groups"].as_array().unwrap().iter().map(|g| g["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["2022", "2024", "unknown"]);
    assert_eq!(cell(year, "m1", "2022"), Some(2.5), "questions 0 and 1: (2 + 3) / 2");
    assert_eq!(cell(year, "m1", "2024"), Some(4.5));
    assert_eq!(cell(year, "m1", "unknown"), Some(6.0));
    // The text form: a line per model and setting, "–" where not judged.
    let out = run(&["--judgments", j2.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  2022     issues opened in 2022 (2 questions)"), "{text}");
    assert!(
        text.contains("m2                       retrieval      9.00        –        –"),
        "{text}"
    );
    // A judgments file given twice, or one of another QA file: an error
    // naming it, never a mean.
    let out = run(&["--judgments", j1.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("o/r#0::none::m1::1 is given twice"), "{err}");
    std::fs::write(&j2, judged[0].replace("o/r#0", "o/other#1") + "\n").unwrap();
    let out = run(&["--judgments", j2.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\"o/other#1\", which the QA file does not hold"), "{err}");
}

#[test]
fn a_bad_judgment_is_named_by_line() {
    let dir = common::scratch("coreqa_compare");
    let path = dir.join("bad.jsonl");
    std::fs::write(
        &path,
        "{\"question_id\": \"q\", \"first\": \"a\", \"second\": \"b\", \"verdict\": \"first\"}\n\n{\"question_id\": \"q\", \"first\": \"a\", \"second\": \"b\", \"verdict\": \"A\"}\n",
    )
    .unwrap();
    let out = compare(&["--judgments", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.jsonl, line 3: not a judgment") && err.contains("unknown variant"),
        "{err}"
    );
}
