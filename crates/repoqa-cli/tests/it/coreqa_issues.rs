//! The paper's issue filters (repoqa::coreqa::issues) on a fixture GitHub
//! REST API export (tests/fixtures/coreqa/issues-export.json, written by
//! hand): one issue removed by each filter, three kept, through the CLI;
//! the export round-trips through the core's types; a broken export gets a
//! message naming the file.

use repoqa_testkit as common;

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

    let out = crate::repoqa_command()
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
        let out = crate::repoqa_command()
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

/// One request the GitHub stand-in saw: its path and query, and its
/// Authorization header.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, Option<String>)>>>;

/// GitHub's REST API for acme/widget on 127.0.0.1, from the fixture: one
/// page of issues, each issue's comments; every request recorded. A fault
/// `(path fragment, status, headers)` answers the first request whose path
/// and query hold the fragment, once.
/// A fault of the stand-in: (path fragment, status, headers).
type Fault = (&'static str, u16, Vec<(&'static str, String)>);

fn github_stand_in(faults: Vec<Fault>) -> (u16, Seen) {
    use std::io::{BufRead, BufReader, Write};
    let export: Value = serde_json::from_slice(&std::fs::read(fixture()).unwrap()).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Default::default();
    let log = seen.clone();
    let faults = std::sync::Mutex::new(faults);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let target = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let mut auth = None;
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    if k.eq_ignore_ascii_case("authorization") {
                        auth = Some(v.trim().to_string());
                    }
                }
            }
            log.lock().unwrap().push((target.clone(), auth));
            let (path, query) = target.split_once('?').unwrap_or((&target, ""));
            let page: usize =
                query.split('&').find_map(|kv| kv.strip_prefix("page=")?.parse().ok()).unwrap_or(1);
            let fault = {
                let mut f = faults.lock().unwrap();
                f.iter().position(|(frag, ..)| target.contains(frag)).map(|i| f.remove(i))
            };
            let limits = vec![
                ("X-RateLimit-Limit", "5000".to_string()),
                ("X-RateLimit-Remaining", "4999".to_string()),
            ];
            let (status, headers, body) = match fault {
                Some((_, status, headers)) => {
                    (status, headers, json!({"message": "API rate limit exceeded"}))
                }
                None => {
                    let items = if page > 1 {
                        json!([])
                    } else if path == "/repos/acme/widget/issues" {
                        export["issues"].clone()
                    } else if let Some(n) = path
                        .strip_prefix("/repos/acme/widget/issues/")
                        .and_then(|r| r.strip_suffix("/comments"))
                    {
                        export["comments"].get(n).cloned().unwrap_or(json!([]))
                    } else {
                        json!({"message": "Not Found"})
                    };
                    (200, limits, items)
                }
            };
            let body = body.to_string();
            let mut head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            let _ = stream.write_all(format!("{head}\r\n{body}").as_bytes());
        }
    });
    (port, seen)
}

fn now_s() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

#[test]
fn fetch_reads_the_api_waits_out_its_rate_limit_and_goes_on_where_it_stopped() {
    let dir = common::scratch("coreqa_fetch");
    let out = dir.join("widget-issues.json");
    let partial = dir.join("widget-issues.json.partial");
    let _ = (std::fs::remove_file(&out), std::fs::remove_file(&partial));
    let reset = now_s() + 1;
    let (port, seen) = github_stand_in(vec![
        // Out of requests at the first page: wait for the reset, ask again.
        (
            "/issues?state=closed",
            403,
            vec![
                ("X-RateLimit-Remaining", "0".to_string()),
                ("X-RateLimit-Limit", "60".to_string()),
                ("X-RateLimit-Reset", reset.to_string()),
            ],
        ),
        // A server fault at issue 9's comments: the fetch stops, keeps the rest.
        ("/issues/9/comments", 502, vec![]),
    ]);
    let fetch = || {
        crate::repoqa_command()
            .args(["coreqa", "fetch", "--repo", "acme/widget", "--api-url"])
            .arg(format!("http://127.0.0.1:{port}"))
            .arg("--out")
            .arg(&out)
            .env("GITHUB_TOKEN", "t0k")
            .output()
            .unwrap()
    };
    let first = fetch();
    let said = String::from_utf8_lossy(&first.stderr).to_string();
    assert!(!first.status.success(), "{said}");
    assert!(said.contains("GitHub's rate limit: HTTP 403; waiting"), "{said}");
    assert!(said.contains("/issues/9/comments?per_page=100&page=1: HTTP 502"), "{said}");
    assert!(said.contains("run the same command again to go on"), "{said}");
    assert!(partial.exists() && !out.exists());
    let before = seen.lock().unwrap().len();

    let second = fetch();
    let said = String::from_utf8_lossy(&second.stderr).to_string();
    assert!(second.status.success(), "{said}");
    assert!(said.contains("going on from"), "{said}");
    assert!(said.contains("4,999 of 5,000 requests left this hour"), "{said}");
    assert!(!partial.exists(), "the partial file is removed at the end");
    // The second run asked only for what the first did not get.
    let again: Vec<String> = seen.lock().unwrap()[before..].iter().map(|r| r.0.clone()).collect();
    assert!(again.iter().all(|p| p.contains("/comments")), "{again:?}");
    assert!(again[0].contains("/issues/9/comments"), "{again:?}");
    // Every request carried the token.
    assert!(seen.lock().unwrap().iter().all(|r| r.1.as_deref() == Some("Bearer t0k")));

    // The export gives the filters' counts the fixture gives.
    let report = |export: &std::path::Path| -> Value {
        let o = crate::repoqa_command()
            .args(["coreqa", "issues", "--json", "--export"])
            .arg(export)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    assert_eq!(report(&out), report(&fixture()));

    // A reset further off than --max-wait-s: the fetch stops and says when.
    let (port, _) = github_stand_in(vec![(
        "/issues?state=closed",
        403,
        vec![
            ("X-RateLimit-Remaining", "0".to_string()),
            ("X-RateLimit-Reset", (now_s() + 3000).to_string()),
        ],
    )]);
    let o = crate::repoqa_command()
        .args(["coreqa", "fetch", "--repo", "https://github.com/acme/widget", "--max-wait-s", "5"])
        .arg("--api-url")
        .arg(format!("http://127.0.0.1:{port}"))
        .arg("--out")
        .arg(dir.join("later.json"))
        .env_remove("GITHUB_TOKEN")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(said.contains("GitHub allows 60 requests an hour without a token"), "{said}");
    assert!(said.contains("longer than --max-wait-s 5"), "{said}");
}
