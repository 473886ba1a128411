//! The statistics of scores with their evidence (issue 26) against scipy
//! (tests/oracle/stats_oracle.py, scipy from PyPI): the Wilson interval and
//! McNemar's exact test to 1e-9 over a grid of cases; then the CLI's
//! contracts on the 30 published SCORES files: `repoqa leaderboard --ci`
//! gives each model its Wilson interval, and `repoqa compare` the paired
//! table, the exact test and the flipped tasks, as counted here from the
//! raw records.

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

use repoqa::stats::{mcnemar_exact, wilson};
use repoqa_testkit as common;
use serde_json::{json, Value};

#[test]
fn wilson_and_mcnemar_equal_scipy() {
    let mut wilson_cases = Vec::new();
    for n in [1usize, 2, 7, 10, 49, 50, 99, 100, 250, 500] {
        for k in [0, 1, n / 3, n / 2, n.saturating_sub(1), n] {
            for level in [0.5, 0.8, 0.9, 0.95, 0.99, 0.999] {
                wilson_cases.push(json!([k, n, level]));
            }
        }
    }
    let mut mcnemar_cases = Vec::new();
    for b in [0usize, 1, 2, 3, 5, 8, 13, 21, 40, 77, 150, 300] {
        for c in [0usize, 1, 2, 4, 9, 13, 20, 41, 76, 150, 299] {
            mcnemar_cases.push(json!([b, c]));
        }
    }
    let input = json!({"wilson": wilson_cases, "mcnemar": mcnemar_cases}).to_string();
    let out = common::run_oracle_with(
        common::stats_oracle_python(),
        "stats_oracle.py",
        &[],
        Some(input.as_bytes()),
    );
    let scipy: Value = serde_json::from_slice(&out).unwrap();
    let mut worst = 0.0f64;
    for (case, want) in wilson_cases.iter().zip(scipy["wilson"].as_array().unwrap()) {
        let (k, n, level) = (
            case[0].as_u64().unwrap() as usize,
            case[1].as_u64().unwrap() as usize,
            case[2].as_f64().unwrap(),
        );
        let ours = wilson(k, n, level).unwrap();
        for (a, b) in
            [(ours.low, want[0].as_f64().unwrap()), (ours.high, want[1].as_f64().unwrap())]
        {
            worst = worst.max((a - b).abs());
            assert!((a - b).abs() <= 1e-9, "wilson({k}, {n}, {level}): {a} against scipy's {b}");
        }
    }
    for (case, want) in mcnemar_cases.iter().zip(scipy["mcnemar"].as_array().unwrap()) {
        let (b, c) = (case[0].as_u64().unwrap() as usize, case[1].as_u64().unwrap() as usize);
        let (ours, theirs) = (mcnemar_exact(b, c), want.as_f64().unwrap());
        worst = worst.max((ours - theirs).abs());
        assert!(
            (ours - theirs).abs() <= 1e-9,
            "mcnemar({b}, {c}): {ours} against scipy's {theirs}"
        );
    }
    println!(
        "stats: {} Wilson intervals and {} McNemar p-values equal scipy's, largest difference {worst:e}",
        wilson_cases.len(),
        mcnemar_cases.len()
    );
}

fn published() -> Vec<PathBuf> {
    let dir = common::root().join("tests/fixtures/published-scores");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("-SCORES.json.gz"))
        .collect();
    out.sort();
    out
}

fn records(path: &PathBuf) -> Value {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v.as_object().unwrap().values().next().unwrap()["results"].clone()
}

/// A task passes at 0.8 as the official table counts it.
fn passes(t: &Value) -> bool {
    t["is_best_similar"].as_bool().unwrap() && t["best_similar_score"].as_f64().unwrap() >= 0.8
}

fn repoqa(args: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_repoqa")).args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn leaderboard_intervals_and_paired_comparisons_of_the_published_files() {
    let files = published();
    assert_eq!(files.len(), 30);
    let paths: Vec<String> = files.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let mut args = vec!["leaderboard", "--threshold", "0.8", "--ci", "0.95", "--json", "--scores"];
    args.extend(paths.iter().map(String::as_str));
    let board = repoqa(&args);
    for m in board["models"].as_array().unwrap() {
        let ci = &m["ci"];
        assert_eq!(ci["method"], "wilson");
        assert_eq!(ci["level"], 0.95);
        let (low, high) = (ci["low"].as_f64().unwrap(), ci["high"].as_f64().unwrap());
        assert!(low <= high && low >= 0.0 && high <= 1.0, "{m}");
        for lang in m["languages"].as_object().unwrap().keys() {
            assert_eq!(ci[lang]["method"], "wilson", "{m}");
        }
    }

    // Each pair of neighbouring files: the paired table from the raw
    // records, and the CLI's equal to it.
    let mut significant = 0;
    for pair in files.windows(2) {
        let (a, b) = (records(&pair[0]), records(&pair[1]));
        let mut want = [0usize; 4];
        let mut flipped = 0;
        let mut same_tasks = true;
        for (lang, tasks) in a.as_object().unwrap() {
            for ta in tasks.as_array().unwrap() {
                let Some(tb) = b[lang].as_array().and_then(|bt| {
                    bt.iter().find(|t| t["repo"] == ta["repo"] && t["name"] == ta["name"])
                }) else {
                    same_tasks = false;
                    continue;
                };
                let (pa, pb) = (passes(ta), passes(tb));
                want[match (pa, pb) {
                    (true, true) => 0,
                    (true, false) => 1,
                    (false, true) => 2,
                    (false, false) => 3,
                }] += 1;
                flipped += usize::from(pa != pb);
            }
        }
        let (pa, pb) = (pair[0].to_string_lossy(), pair[1].to_string_lossy());
        let o = Command::new(env!("CARGO_BIN_EXE_repoqa"))
            .args(["compare", &pa, &pb, "--threshold", "0.8", "--json"])
            .output()
            .unwrap();
        if !same_tasks {
            assert_eq!(o.status.code(), Some(2), "different task sets are refused");
            assert!(String::from_utf8_lossy(&o.stderr).contains("not on the same tasks"));
            continue;
        }
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got: Value = serde_json::from_slice(&o.stdout).unwrap();
        let counts = [&got["both"], &got["only_a"], &got["only_b"], &got["neither"]]
            .map(|v| v.as_u64().unwrap() as usize);
        assert_eq!(counts, want, "{pa} vs {pb}");
        assert_eq!(got["flipped"].as_array().unwrap().len(), flipped);
        let p = got["mcnemar_p"].as_f64().unwrap();
        assert_eq!(p, mcnemar_exact(want[1], want[2]));
        significant += usize::from(p < 0.05);
    }
    println!(
        "compare: {significant} of {} neighbouring published files differ at 0.05",
        files.len() - 1
    );
}
