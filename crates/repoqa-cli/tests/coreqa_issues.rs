//! The paper's issue filters (repoqa::coreqa::issues) on a fixture GitHub
//! REST API export (tests/fixtures/coreqa/issues-export.json, written by
//! hand): one issue removed by each filter, three kept, through the CLI;
//! the export round-trips through the core's types; a broken export gets a
//! message naming the file.

use repoqa_testkit as common;

use std::process::Command;

use repoqa::coreqa::issues::{failed_filter, read_export, Filter};
use serde_json::{json, Value};

fn fixture() -> std::path::PathBuf {
    common::root().join("tests/fixtures/coreqa/issues-export.json")
}

#[test]
fn each_filter_removes_its_issue() {
    let bytes = std::fs::read(fixture()).unwrap();
    let export = read_export(&bytes, "fixture").unwrap();
    let want = [
        (1, Some(Filter::PullRequest)),
        (2, Some(Filter::NotClosed)),
        (3, Some(Filter::Label)),
        (4, Some(Filter::NoCode)),
        (5, Some(Filter::Image)),
        (6, Some(Filter::FewPositive)),
        (7, Some(Filter::PointsElsewhere)),
        (8, None),
        (9, None),
        (10, None),
    ];
    for (issue, (number, filter)) in export.issues.iter().zip(want) {
        assert_eq!(issue.number, number);
        let comments = &export.comments[&number.to_string()];
        assert_eq!(failed_filter(issue, comments), filter, "issue #{number}");
    }

    let out = Command::new(env!("CARGO_BIN_EXE_repoqa"))
        .args(["coreqa", "issues", "--json", "--export"])
        .arg(fixture())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report,
        json!({
            "repository": "acme/widget",
            "issues": 10,
            "removed": {"pull_request": 1, "not_closed": 1, "label": 1, "no_code": 1, "image": 1,
                        "few_positive": 1, "points_elsewhere": 1, "over_limit": 0},
            "kept": [8, 9, 10]
        })
    );
}

#[test]
fn the_export_round_trips() {
    let bytes = std::fs::read(fixture()).unwrap();
    let export = read_export(&bytes, "fixture").unwrap();
    let original: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(serde_json::to_value(&export).unwrap(), original);
}

#[test]
fn a_broken_export_is_named() {
    let dir = common::scratch("coreqa_issues");
    for (name, text, says) in [
        ("truncated.json", "{\"repository\": \"a/b\", \"issues\": [", "EOF while parsing"),
        ("wrong.json", "{\"repository\": \"a/b\", \"issues\": {}}", "expected a sequence"),
        (
            "number.json",
            "{\"repository\": \"a/b\", \"issues\": [{\"number\": \"x\"}]}",
            "invalid type",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_repoqa"))
            .args(["coreqa", "issues", "--export"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(err.contains(name) && err.contains("not a GitHub issues export"), "{err}");
        assert!(err.contains(says), "{err}");
    }
}
