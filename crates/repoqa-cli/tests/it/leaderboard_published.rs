//! The leaderboard over the 30 published SCORES files of the RepoQA paper
//! (tests/fixtures/published-scores/, public data of the RepoQA authors):
//! at 0.8 it reproduces the paper's Table 2 figures; at each of the eleven
//! official thresholds every language cell equals the file's own table bit
//! for bit; between them (0.55, 0.83, …) it equals a direct count of the
//! raw JSON records, made here without the library.

use std::io::Read;
use std::path::PathBuf;

use repoqa::report::ScoresFile;
use repoqa::review::leaderboard::{percent, Leaderboard, SortKey};
use repoqa::scoring::score::{THRESHOLDS, THRESHOLD_KEYS};
use serde_json::Value;

fn fixtures() -> PathBuf {
    repoqa_testkit::root().join("tests/fixtures/published-scores")
}

/// (file name without .gz, text) of every published `-SCORES.json`.
fn published() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(plain) = name.strip_suffix(".gz") else { continue };
        if !plain.ends_with("-SCORES.json") {
            continue;
        }
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        out.push((plain.to_string(), text));
    }
    out.sort();
    assert_eq!(out.len(), 30, "expected the 30 published SCORES files");
    out
}

fn parsed() -> Vec<(String, ScoresFile)> {
    published()
        .into_iter()
        .map(|(n, t)| {
            let f = ScoresFile::parse(&t, &n).unwrap();
            (n, f)
        })
        .collect()
}

fn board(files: &[(String, ScoresFile)], t: f64) -> Leaderboard {
    Leaderboard::from_files(files.iter().map(|(n, f)| (n.as_str(), f)), t).unwrap()
}

#[test]
fn table_2_figures_at_0_8() {
    let files = parsed();
    let lb = board(&files, 0.8);
    assert_eq!(lb.rows.len(), 30);
    let expect = [
        ("gpt-4o-2024-05-13", [95.0, 80.0, 85.0, 96.0, 97.0], 90.6),
        ("claude-3-opus-20240229", [93.0, 83.0, 88.0, 95.0, 94.0], 90.6),
    ];
    for (model, [py, cpp, rs, java, ts], avg) in expect {
        let row = lb.rows.iter().find(|r| r.model == model).unwrap();
        let got = |l: &str| 100.0 * row.languages[l].pass;
        assert_eq!(
            [got("python"), got("cpp"), got("rust"), got("java"), got("typescript")],
            [py, cpp, rs, java, ts],
            "{model}"
        );
        assert_eq!(percent(row.average), format!("{avg:.1}"), "{model}");
        assert_eq!(row.tasks, 500);
        println!(
            "leaderboard_published: {model} at 0.8: python {} cpp {} rust {} java {} typescript {} average {}",
            percent(row.languages["python"].pass),
            percent(row.languages["cpp"].pass),
            percent(row.languages["rust"].pass),
            percent(row.languages["java"].pass),
            percent(row.languages["typescript"].pass),
            percent(row.average)
        );
    }
    let mut sorted = lb.clone();
    sorted.sort(&SortKey::Average, true);
    println!("leaderboard_published: top 3 at 0.8:");
    for r in &sorted.rows[..3] {
        println!("  {} {}", r.model, percent(r.average));
    }
}

#[test]
fn official_thresholds_equal_each_file_table_bit_for_bit() {
    let files = parsed();
    let mut cells = 0;
    for (i, t) in THRESHOLDS.iter().enumerate() {
        let lb = board(&files, *t);
        for ((name, file), row) in files.iter().zip(&lb.rows) {
            let scores = &file.models[&row.model].scores;
            for (lang, cell) in &row.languages {
                let published = scores[lang][THRESHOLD_KEYS[i]]["pass@1"].as_f64().unwrap();
                assert_eq!(
                    cell.pass.to_bits(),
                    published.to_bits(),
                    "{name} {lang} at {}: {} vs {published}",
                    THRESHOLD_KEYS[i],
                    cell.pass
                );
                cells += 1;
            }
            // With 100 tasks per language the mean over languages is the
            // file's `all` row (up to float rounding of the mean).
            let all = scores["all"][THRESHOLD_KEYS[i]]["pass@1"].as_f64().unwrap();
            assert!(
                (row.average - all).abs() < 1e-12,
                "{name} average {} vs all {all}",
                row.average
            );
        }
    }
    println!("leaderboard_published: {cells} language cells equal the published tables at the 11 thresholds");
}

/// Pass counts straight from the JSON, per model and language.
fn direct(text: &str, t: f64) -> Vec<(String, String, usize, usize)> {
    let v: Value = serde_json::from_str(text).unwrap();
    let mut out = Vec::new();
    for (model, m) in v.as_object().unwrap() {
        for (lang, tasks) in m["results"].as_object().unwrap() {
            let tasks = tasks.as_array().unwrap();
            let passed = tasks
                .iter()
                .filter(|x| {
                    x["is_best_similar"].as_bool().unwrap()
                        && x["best_similar_score"].as_f64().unwrap() >= t
                })
                .count();
            out.push((model.clone(), lang.clone(), passed, tasks.len()));
        }
    }
    out
}

#[test]
fn thresholds_between_the_official_ones_are_direct_counts() {
    let texts = published();
    let files = parsed();
    for t in [0.05, 0.55, 0.83, 0.95, 0.999] {
        let lb = board(&files, t);
        for ((_, text), row) in texts.iter().zip(&lb.rows) {
            for (model, lang, passed, n) in direct(text, t) {
                assert_eq!(model, row.model);
                let cell = row.languages[&lang];
                assert_eq!((cell.passed, cell.n), (passed, n), "{model} {lang} at {t}");
                assert_eq!(cell.pass, passed as f64 / n as f64);
            }
        }
        let gpt = lb.rows.iter().find(|r| r.model == "gpt-4o-2024-05-13").unwrap();
        println!(
            "leaderboard_published: gpt-4o-2024-05-13 at {t}: average {}",
            percent(gpt.average)
        );
    }
}

/// COMBINED-RESULTS.json holds only the tables (no per-task records), so
/// it cannot be recounted at other thresholds: it is refused, naming why.
#[test]
fn the_combined_file_is_refused_with_the_missing_field() {
    let path = fixtures().join("COMBINED-RESULTS.json.gz");
    let bytes = std::fs::read(path).unwrap();
    let e = repoqa::review::leaderboard::read_scores(&bytes, "COMBINED-RESULTS.json").unwrap_err();
    assert!(e.to_string().contains(".results: missing"), "{e}");
}

#[test]
fn cli_leaderboard_json_equals_a_direct_count() {
    let bin = crate::REPOQA;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("-SCORES.json.gz"))
        .collect();
    paths.sort();
    let texts = published();
    for t in ["0.55", "0.83", "0.8"] {
        let out = std::process::Command::new(bin)
            .args(["leaderboard", "--threshold", t, "--sort", "model", "--json", "--scores"])
            .args(&paths)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["threshold"].as_f64().unwrap().to_string(), t);
        let models = v["models"].as_array().unwrap();
        assert_eq!(models.len(), 30);
        let tf: f64 = t.parse().unwrap();
        for (_, text) in &texts {
            let counts = direct(text, tf);
            let model = &counts[0].0;
            let row = models.iter().find(|m| &m["model"] == model).unwrap();
            assert_eq!(
                row.as_object().unwrap().keys().collect::<Vec<_>>(),
                ["model", "languages", "average", "tasks"]
            );
            let mut sum = 0.0;
            for (_, lang, passed, n) in &counts {
                let pass = row["languages"][lang].as_f64().unwrap();
                assert_eq!(pass, *passed as f64 / *n as f64, "{model} {lang} at {t}");
                sum += pass;
            }
            assert_eq!(row["average"].as_f64().unwrap(), sum / counts.len() as f64);
            assert_eq!(row["tasks"], 500);
        }
    }
    let out = std::process::Command::new(bin)
        .args(["leaderboard", "--scores"])
        .args(&paths)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let gpt = text.lines().find(|l| l.starts_with("gpt-4o-2024-05-13")).unwrap();
    let cells: Vec<&str> = gpt.split_whitespace().collect();
    assert_eq!(cells[1..], ["95.0", "80.0", "96.0", "97.0", "85.0", "90.6", "500"], "{text}");
    println!("leaderboard_published: CLI at 0.8: {gpt}");
    let bad = std::process::Command::new(bin)
        .args(["leaderboard", "--threshold", "1.5", "--scores"])
        .arg(&paths[0])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
