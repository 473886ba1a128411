//! `repoqa call-graph` (NOT UPSTREAM): the call-path task's call graphs of a
//! dataset, a line per repository or JSON, from the core's one graph.

use serde_json::Value;

use crate::repoqa;

#[test]
fn the_demo_s_call_graphs_as_lines_and_as_json() {
    let demo = repoqa_testkit::root().join("public/demo/repoqa-demo.json");
    let demo = demo.to_str().unwrap();
    let o = repoqa(&["call-graph", "--dataset-path", demo, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let graphs: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let graphs = graphs.as_array().unwrap();
    let languages: Vec<&str> = graphs.iter().map(|g| g["language"].as_str().unwrap()).collect();
    assert_eq!(languages, ["python", "cpp", "java", "typescript", "rust", "go"]);
    // Every edge joins two of the repository's nodes; the demo's Python
    // repository calls between its functions.
    for g in graphs {
        let n = g["nodes"].as_array().unwrap().len();
        for out in g["edges"].as_array().unwrap() {
            assert!(out.as_array().unwrap().iter().all(|b| (b.as_u64().unwrap() as usize) < n));
        }
    }
    let python = &graphs[0];
    let edges: usize =
        python["edges"].as_array().unwrap().iter().map(|e| e.as_array().unwrap().len()).sum();
    assert!(edges > 5, "{python}");

    let o = repoqa(&["call-graph", "--dataset-path", demo, "--languages", "go"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with("go ")
            && text.contains(" functions ")
            && text.contains(" calls between them"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("NOT UPSTREAM"));

    // --tasks: the demo's Python repository gives its 10 tasks, 2 of them
    // no-path; each gold path starts at the source and ends at the target.
    let python_tasks = ["call-graph", "--dataset-path", demo, "--languages", "python", "--tasks"];
    let o = repoqa(&[&python_tasks[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let g: Value = serde_json::from_slice(&o.stdout).unwrap();
    let pairs = g[0]["tasks"]["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 10);
    assert_eq!(pairs.iter().filter(|p| p.get("no_path").is_some()).count(), 2);
    for p in pairs.iter().filter(|p| p.get("no_path").is_none()) {
        let path = p["path"].as_array().unwrap();
        assert_eq!((&path[0], path.last().unwrap()), (&p["source"], &p["target"]), "{p}");
    }
    // Asking more than a repository has: fewer, with a warning naming it.
    let o = repoqa(&[&python_tasks[..], &["--tasks-per-repo", "500"]].concat());
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: repoqa-web/demo-textkit gives ")
            && err.contains(" of the 500 call-path tasks asked"),
        "{err}"
    );
    let o = repoqa(&["call-graph", "--dataset-path", demo, "--tasks", "--no-path-share", "2"]);
    assert_eq!(o.status.code(), Some(2));

    let o = repoqa(&["call-graph", "--dataset-path", demo, "--languages", "klingon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown language \"klingon\""));
}
