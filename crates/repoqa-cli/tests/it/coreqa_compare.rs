//! `repoqa coreqa compare` on a fixed set of pairwise judgments
//! (tests/fixtures/coreqa/judgments.jsonl): Elo equal to the values worked
//! out by hand from the formula (docs/coreqa.md), the records, the
//! position-bias table, and a message naming the line of a bad judgment.

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
    let iv = &c["bootstrap"]["model-a"];
    assert!(
        iv["low"].as_f64() <= iv["median"].as_f64() && iv["median"].as_f64() <= iv["high"].as_f64()
    );
    // The text form says the same.
    let out = compare(&["--judgments", fixture.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("model-a") && text.contains("1009.2"), "{text}");
    assert!(text.contains("1 consistent, 1 small discrepancy, 0 contradiction"), "{text}");
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
