//! `repoqa report`: one self-contained HTML file. On two published runs
//! with `--compare`: no script and no request allowed (its CSP), every
//! interval equal to `repoqa leaderboard --ci`'s, the paired table and the
//! flipped tasks equal to `repoqa compare`'s; text from a file is escaped;
//! runs on other tasks are reported as not compared.
//!
//!     cargo test -p repoqa-cli --test it html_report::

use crate::repoqa;
use std::path::PathBuf;

use repoqa_testkit as common;
use serde_json::Value;

fn published(model: &str) -> PathBuf {
    common::root().join(format!("tests/fixtures/published-scores/{model}-SCORES.json.gz"))
}

fn json(args: &[&str]) -> Value {
    let o = repoqa(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The value of attribute `name` in a tag's text.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// Every `<tr …>` opening tag inside the element that starts at `marker`
/// and ends at the next `</table>`.
fn rows<'a>(html: &'a str, marker: &str) -> Vec<&'a str> {
    let start = html.find(marker).unwrap_or_else(|| panic!("no {marker}"));
    let end = start + html[start..].find("</table>").unwrap();
    html[start..end]
        .split("<tr")
        .skip(1)
        .map(|t| &t[..t.find('>').unwrap()])
        .filter(|t| !t.is_empty())
        .collect()
}

fn num(tag: &str, name: &str) -> Option<f64> {
    attr(tag, name).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap())
}

fn close(got: Option<f64>, want: &Value, what: &str) {
    match (got, want.as_f64()) {
        (None, None) => {}
        (Some(g), Some(w)) => assert!((g - w).abs() <= 1e-12, "{what}: {g} against {w}"),
        (g, _) => panic!("{what}: {g:?} against {want}"),
    }
}

#[test]
fn a_report_of_two_published_runs_equals_the_cli_numbers_and_needs_no_script() {
    let dir = common::scratch("html_report");
    let (a, b) = ("claude-3-opus-20240229", "gpt-4o-2024-05-13");
    let (pa, pb) = (published(a), published(b));
    let (pa, pb) = (pa.to_str().unwrap(), pb.to_str().unwrap());
    let out = dir.join("report.html");
    let o = repoqa(&[
        "report",
        "--scores",
        pa,
        pb,
        "--compare",
        "--threshold",
        "0.8",
        "--ci",
        "0.9",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    assert!(!html.to_lowercase().contains("<script"), "a report holds no script");
    assert!(!html.contains("src=\"") && !html.contains("href=\"http"), "no remote resource");
    assert_eq!(html.matches("<svg").count(), 4, "two charts per run");
    for f in [&pa, &pb] {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            html.contains(&repoqa::input::identity::sha256_hex(&bytes)),
            "the report names {f}'s SHA-256"
        );
    }

    let board =
        json(&["leaderboard", "--scores", pa, pb, "--threshold", "0.8", "--ci", "0.9", "--json"]);
    for (i, m) in board["models"].as_array().unwrap().iter().enumerate() {
        let model = m["model"].as_str().unwrap();
        let section = html.find(&format!("id=\"run-{i}\" data-model=\"{model}\"")).unwrap();
        let tags = rows(&html[section..], "<table class=\"evidence\"");
        assert_eq!(tags.len(), 1 + m["languages"].as_object().unwrap().len());
        for tag in tags {
            let row = attr(tag, "data-row").unwrap();
            let pick = |key: &str| if row == "all" { m[key].clone() } else { m[key][row].clone() };
            for (prefix, key) in [("wilson", "ci"), ("task", "ci_tasks"), ("repo", "ci_repos")] {
                close(
                    num(tag, &format!("data-{prefix}-low")),
                    &pick(key)["low"],
                    &format!("{model} {row} {key}"),
                );
                close(
                    num(tag, &format!("data-{prefix}-high")),
                    &pick(key)["high"],
                    &format!("{model} {row} {key}"),
                );
            }
        }
    }

    let want = json(&["compare", pa, pb, "--threshold", "0.8", "--ci", "0.9", "--json"]);
    let tags = rows(&html, "<table class=\"paired\"");
    for tag in &tags {
        let row = attr(tag, "data-row").unwrap();
        let w = if row == "all" { want.clone() } else { want["languages"][row].clone() };
        for (a, k) in [
            ("data-both", "both"),
            ("data-only-a", "only_a"),
            ("data-only-b", "only_b"),
            ("data-neither", "neither"),
        ] {
            assert_eq!(num(tag, a), w[k].as_f64(), "{row} {k}");
        }
        close(num(tag, "data-p"), &w["mcnemar_p"], row);
        close(num(tag, "data-difference"), &w["difference"], row);
        close(num(tag, "data-repo-low"), &w["ci_repos"]["low"], row);
        close(num(tag, "data-task-high"), &w["ci_tasks"]["high"], row);
    }
    let flips = rows(&html, "<table class=\"flipped\"");
    assert_eq!(flips.len(), want["flipped"].as_array().unwrap().len());
    for (tag, f) in flips.iter().zip(want["flipped"].as_array().unwrap()) {
        assert_eq!(attr(tag, "data-name"), f["name"].as_str());
    }
    println!(
        "report: {} bytes; intervals, paired table and {} flipped tasks equal the CLI's",
        html.len(),
        flips.len()
    );
}

#[test]
fn text_from_a_file_is_escaped_and_runs_on_other_tasks_are_not_compared() {
    let dir = common::scratch("html_report");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(
            std::fs::File::open(published("gpt-4o-2024-05-13")).unwrap(),
        ),
        &mut text,
    )
    .unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let mut m = v["gpt-4o-2024-05-13"].take();
    m["results"]["rust"].as_array_mut().unwrap().pop();
    m["results"]["python"][0]["name"] = Value::String("<img src=x onerror=alert(1)>".into());
    let hostile = "<script>alert('x')</script>";
    let file = dir.join("hostile-SCORES.json");
    std::fs::write(&file, serde_json::json!({ hostile: m }).to_string()).unwrap();
    let out = dir.join("hostile.html");
    let pa = published("claude-3-opus-20240229");
    let o = repoqa(&[
        "report",
        "--scores",
        pa.to_str().unwrap(),
        file.to_str().unwrap(),
        "--compare",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not compared"));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        !html.contains("<script>") && !html.contains("<img src=x"),
        "unescaped text from a file"
    );
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(html.contains("not on the same tasks"), "the refusal is in the report");

    let o = repoqa(&[
        "report",
        "--scores",
        pa.to_str().unwrap(),
        "--compare",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--compare needs two models"));
}
