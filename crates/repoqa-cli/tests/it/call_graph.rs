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

    let o = repoqa(&["call-graph", "--dataset-path", demo, "--languages", "klingon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown language \"klingon\""));
}
