//! The statistics of scores with their evidence (issue 26) against scipy
//! (tests/oracle/stats_oracle.py, scipy from PyPI): the Wilson interval and
//! McNemar's exact test to 1e-9 over a grid of cases; then the CLI's
//! contracts on the 30 published SCORES files: `repoqa leaderboard --ci`
//! gives each model its Wilson interval, and `repoqa compare` the paired
//! table, the exact test and the flipped tasks, as counted here from the
//! raw records.

use std::io::Read;
use std::path::PathBuf;

use repoqa::review::stats::{mcnemar_exact, wilson};
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
    let o = crate::repoqa_command().args(args).output().unwrap();
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
        let o = crate::repoqa_command()
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
        let d = got["difference"].as_f64().unwrap();
        assert_eq!(d, (want[1] as f64 - want[2] as f64) / want.iter().sum::<usize>() as f64);
        for key in ["ci_tasks", "ci_repos"] {
            let ci = &got[key];
            assert_eq!(
                (&ci["method"], &ci["level"], &ci["seed"]),
                (&json!("bootstrap"), &json!(0.95), &json!(0))
            );
            let (low, high) = (ci["low"].as_f64().unwrap(), ci["high"].as_f64().unwrap());
            assert!(
                -1.0 <= low && low <= d && d <= high && high <= 1.0,
                "{key} of {pa} vs {pb}: {ci}"
            );
        }
    }
    println!(
        "compare: {significant} of {} neighbouring published files differ at 0.05",
        files.len() - 1
    );
}

type Repos = Vec<(String, Vec<f64>)>;
type Groups = Vec<(String, Repos)>;
type BorrowedGroups<'a> = Vec<(&'a str, Repos)>;

/// `[[language, [[repo, [value, …]], …]], …]`: strata as the oracle reads
/// them, and ours.
fn strata_of(groups: &[(&str, Repos)]) -> (Value, repoqa::review::bootstrap::Strata) {
    let mut ours = repoqa::review::bootstrap::Strata::default();
    let mut json_groups = Vec::new();
    for (lang, repos) in groups {
        let mut rs = Vec::new();
        for (repo, values) in repos {
            for v in values {
                ours.push(lang, repo, *v);
            }
            rs.push(json!([repo, values]));
        }
        json_groups.push(json!([lang, rs]));
    }
    (Value::Array(json_groups), ours)
}

/// The pass values of one published file's records at 0.8, grouped.
fn published_groups(path: &PathBuf) -> Groups {
    let mut out: Groups = Vec::new();
    for (lang, tasks) in records(path).as_object().unwrap() {
        let mut repos: Vec<(String, Vec<f64>)> = Vec::new();
        for t in tasks.as_array().unwrap() {
            let repo = t["repo"].as_str().unwrap().to_string();
            let v = f64::from(u8::from(passes(t)));
            match repos.iter_mut().find(|(r, _)| *r == repo) {
                Some((_, vs)) => vs.push(v),
                None => repos.push((repo, vec![v])),
            }
        }
        out.push((lang.clone(), repos));
    }
    out
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol, "{what}: {a} against {b}");
}

#[test]
fn bootstrap_equals_its_reference_and_agrees_with_scipy() {
    use repoqa::review::bootstrap::{bootstrap, Resampling, Unit};
    // Small strata of uneven sizes, values 0/1 and paired −1/0/1.
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut cases = Vec::new();
    let mut ours_all = Vec::new();
    for (i, (unit, level, resamples, seed)) in [
        (Unit::Task, 0.95, 400usize, 0u64),
        (Unit::Repo, 0.95, 400, 0),
        (Unit::Task, 0.8, 999, 12_345),
        (Unit::Repo, 0.99, 1000, u64::MAX),
        (Unit::Task, 0.5, 37, 3),
        (Unit::Repo, 0.9, 250, 99),
    ]
    .into_iter()
    .enumerate()
    {
        let paired = i % 2 == 1 && i > 2;
        let mut groups: BorrowedGroups = Vec::new();
        for lang in ["python", "cpp", "rust"].iter().take(1 + i % 3) {
            let repos = (0..1 + next(4))
                .map(|r| {
                    let values = (0..1 + next(9))
                        .map(|_| if paired { next(3) as f64 - 1.0 } else { next(2) as f64 })
                        .collect();
                    (format!("{lang}-r{r}"), values)
                })
                .collect();
            groups.push((lang, repos));
        }
        let (json_strata, strata) = strata_of(&groups);
        let r = Resampling { level, resamples, seed };
        cases.push(json!({"strata": json_strata, "unit": unit.as_str(), "level": level,
            "resamples": resamples, "seed": seed}));
        ours_all.push(bootstrap(&strata, unit, r));
    }
    // A published run, by task and by repository, through the CLI.
    let files = published();
    let groups = published_groups(&files[0]);
    let borrowed: BorrowedGroups = groups.iter().map(|(l, r)| (l.as_str(), r.clone())).collect();
    let (json_strata, _) = strata_of(&borrowed);
    for unit in ["task", "repo"] {
        cases.push(json!({"strata": json_strata, "unit": unit, "level": 0.95,
            "resamples": 500, "seed": 11}));
    }
    // scipy's own bootstrap on one stratum: 100 tasks, k of them passing.
    let mut scipy_cases = Vec::new();
    for (k, seed) in [(50u64, 1u64), (83, 2), (95, 3)] {
        let values: Vec<f64> = (0..100).map(|i| f64::from(u8::from(i < k))).collect();
        scipy_cases
            .push(json!({"values": values, "level": 0.95, "resamples": 20000, "seed": seed}));
    }
    let input = json!({"wilson": [], "mcnemar": [], "bootstrap": cases,
        "scipy_bootstrap": scipy_cases})
    .to_string();
    let out = common::run_oracle_with(
        common::stats_oracle_python(),
        "stats_oracle.py",
        &[],
        Some(input.as_bytes()),
    );
    let want: Value = serde_json::from_slice(&out).unwrap();
    let want_b = want["bootstrap"].as_array().unwrap();
    let pair = |v: &Value| (v[0].as_f64().unwrap(), v[1].as_f64().unwrap());
    let mut worst = 0.0f64;
    let mut compared = 0;
    for (i, ours) in ours_all.iter().enumerate() {
        if want_b[i]["all"].is_null() {
            assert_eq!(ours.all, None, "case {i}: a language of one unit has no overall interval");
        } else {
            let (lo, hi) = pair(&want_b[i]["all"]);
            let all = ours.all.unwrap();
            for (a, b) in [(all.low, lo), (all.high, hi)] {
                worst = worst.max((a - b).abs());
                close(a, b, 1e-12, &format!("case {i} overall"));
            }
            compared += 1;
        }
        let langs = want_b[i]["languages"].as_array().unwrap();
        assert_eq!(langs.len(), ours.languages.len());
        for l in langs {
            let got = ours.languages[l[0].as_str().unwrap()];
            let (lo, hi) = pair(&l[1]);
            close(got.low, lo, 1e-12, &format!("case {i} {}", l[0]));
            close(got.high, hi, 1e-12, &format!("case {i} {}", l[0]));
            worst = worst.max((got.low - lo).abs()).max((got.high - hi).abs());
        }
    }
    assert!(compared >= 3, "only {compared} cases had an overall interval");
    // The CLI's leaderboard on the published run, with the same seed.
    let path = files[0].to_string_lossy().into_owned();
    let board = repoqa(&[
        "leaderboard",
        "--scores",
        &path,
        "--ci",
        "0.95",
        "--resamples",
        "500",
        "--seed",
        "11",
        "--json",
    ]);
    let model = &board["models"][0];
    for (j, key) in ["ci_tasks", "ci_repos"].into_iter().enumerate() {
        let w = &want_b[ours_all.len() + j];
        let (lo, hi) = pair(&w["all"]);
        assert_eq!(model[key]["method"], "bootstrap");
        assert_eq!(model[key]["resamples"], 500);
        close(model[key]["low"].as_f64().unwrap(), lo, 1e-12, key);
        close(model[key]["high"].as_f64().unwrap(), hi, 1e-12, key);
        for l in w["languages"].as_array().unwrap() {
            let lang = l[0].as_str().unwrap();
            let (lo, hi) = pair(&l[1]);
            close(model[key][lang]["low"].as_f64().unwrap(), lo, 1e-12, lang);
            close(model[key][lang]["high"].as_f64().unwrap(), hi, 1e-12, lang);
        }
    }
    // scipy's resampling differs from ours; the intervals agree up to the
    // Monte Carlo error of 20,000 resamples (the grid of means is 0.01).
    for (case, theirs) in
        [(50usize, 1u64), (83, 2), (95, 3)].iter().zip(want["scipy_bootstrap"].as_array().unwrap())
    {
        let mut s = repoqa::review::bootstrap::Strata::default();
        for i in 0..100 {
            s.push("python", &format!("r{}", i / 10), f64::from(u8::from(i < case.0)));
        }
        let ours =
            bootstrap(&s, Unit::Task, Resampling { level: 0.95, resamples: 20000, seed: case.1 })
                .all
                .unwrap();
        let (lo, hi) = pair(theirs);
        close(ours.low, lo, 0.015, &format!("{} of 100, against scipy", case.0));
        close(ours.high, hi, 0.015, &format!("{} of 100, against scipy", case.0));
    }
    println!(
        "bootstrap: {} cases equal the reference ({compared} with an overall interval; largest difference {worst:e}); 3 agree with scipy.stats.bootstrap",
        ours_all.len() + 2
    );
}

#[test]
fn score_and_verify_print_the_same_intervals_as_the_leaderboard_and_keep_the_official_table() {
    let dir = common::scratch("stats_scipy");
    let dataset = common::root().join("public/demo/repoqa-demo.json");
    // The demo's tasks, answered with its sample answers where it has one.
    let tasks = dir.join("demo-tasks.jsonl");
    let o = crate::repoqa_command()
        .args([
            "prompts",
            "--dataset-path",
            dataset.to_str().unwrap(),
            "--code-context-size",
            "2048",
        ])
        .arg("--tokenizer")
        .arg(common::tokenizer_path())
        .arg("--out")
        .arg(&tasks)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut lines = String::new();
    for l in std::fs::read_to_string(&tasks).unwrap().lines() {
        let mut t: Value = serde_json::from_str(l).unwrap();
        let answer = common::demo_answer_or(&t, "I could not find it.");
        t.as_object_mut().unwrap().remove("prompt");
        t["output"] = answer;
        lines.push_str(&format!("{t}\n"));
    }
    let outputs = dir.join("demo-model.jsonl");
    std::fs::write(&outputs, lines).unwrap();
    let scores = dir.join("demo-model-SCORES.json");
    let run = |extra: &[&str]| {
        // An explicit --out keeps an earlier file as .bak: start clean.
        let _ = std::fs::remove_file(&scores);
        let mut args = vec![
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
        args.extend(extra);
        let o = crate::repoqa_command().args(&args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (String::from_utf8(o.stdout).unwrap(), std::fs::read(&scores).unwrap())
    };
    let (plain, file_plain) = run(&[]);
    let (with_ci, file_ci) =
        run(&["--ci", "0.9", "--ci-threshold", "0.5", "--resamples", "2000", "--seed", "5"]);
    // The official table and the file stay as they are; the intervals follow.
    assert!(with_ci.starts_with(plain.trim_end()), "{with_ci}");
    assert_eq!(file_plain, file_ci);
    assert!(with_ci.contains("at threshold 0.5 with 90% intervals"), "{with_ci}");

    let s = scores.to_str().unwrap();
    let board = repoqa(&[
        "leaderboard",
        "--scores",
        s,
        "--threshold",
        "0.5",
        "--ci",
        "0.9",
        "--resamples",
        "2000",
        "--seed",
        "5",
        "--json",
    ]);
    let m = &board["models"][0];
    let span = |ci: &Value| match (ci["low"].as_f64(), ci["high"].as_f64()) {
        (Some(low), Some(high)) => format!("{:.1}–{:.1}", 100.0 * low, 100.0 * high),
        _ => "-".to_string(),
    };
    let mut rows =
        vec![("all".to_string(), m["ci"].clone(), m["ci_tasks"].clone(), m["ci_repos"].clone())];
    for l in m["languages"].as_object().unwrap().keys() {
        rows.push((
            l.clone(),
            m["ci"][l].clone(),
            m["ci_tasks"][l].clone(),
            m["ci_repos"][l].clone(),
        ));
    }
    let line_of = |text: &str, name: &str| {
        text.lines()
            .rev()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} row in {text}"))
            .to_string()
    };
    let o = crate::repoqa_command()
        .args([
            "verify",
            "--scores",
            s,
            "--ci",
            "0.9",
            "--ci-threshold",
            "0.5",
            "--resamples",
            "2000",
            "--seed",
            "5",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let verified = String::from_utf8(o.stdout).unwrap();
    for (name, wilson, tasks, repos) in &rows {
        let want: Vec<String> = [wilson, tasks, repos].iter().map(|c| span(c)).collect();
        for text in [&with_ci, &verified] {
            let line = line_of(text, name);
            let got: Vec<&str> = line.split_whitespace().skip(3).collect();
            assert_eq!(got, want, "{name}: {line}");
        }
    }
}
