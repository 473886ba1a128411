//! The call-path task's call graph (NOT UPSTREAM) held to an independent
//! one: for every Python repository of the demo and of the realistic
//! corpus, `repoqa::callpath::graph` (tree-sitter) and
//! `tests/oracle/call_graph.py` (Python's own `ast`) give the same edges
//! on every file `ast` parses.

use std::collections::BTreeSet;
use std::path::Path;

use repoqa::callpath::graph::call_graph;
use repoqa::code::lang::Language;
use repoqa::input::dataset::Dataset;
use serde_json::Value;

fn agree_on(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dataset = Dataset::from_bytes(&bytes, "test").expect("the dataset reads");
    let out = repoqa_testkit::run_oracle("call_graph.py", &[path.to_str().unwrap()], None);
    let oracle: Value = serde_json::from_slice(&out).expect("the oracle's JSON");
    let mut edges = 0;
    let repos = dataset.repos("python").expect("python repositories");
    assert!(!repos.is_empty());
    for repo in repos {
        let g = call_graph(repo, Language::Python).expect("the graph");
        let theirs = &oracle[&repo.repo];
        let unparsed: BTreeSet<&str> =
            theirs["unparsed"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        let want: BTreeSet<(usize, usize)> = theirs["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[0].as_u64().unwrap() as usize, e[1].as_u64().unwrap() as usize))
            .collect();
        // Edges out of files `ast` did not parse are ours alone.
        let got: BTreeSet<(usize, usize)> = g
            .edge_list()
            .into_iter()
            .filter(|(a, _)| !unparsed.contains(g.nodes[*a].path.as_str()))
            .collect();
        let name = |i: usize| format!("{}::{}", g.nodes[i].path, g.nodes[i].name);
        let only = |x: &BTreeSet<(usize, usize)>, y: &BTreeSet<(usize, usize)>| -> Vec<String> {
            x.difference(y).map(|&(a, b)| format!("{} -> {}", name(a), name(b))).collect()
        };
        assert!(
            got == want,
            "{} ({}): ours only {:?}; the oracle's only {:?}",
            repo.repo,
            path.display(),
            only(&got, &want),
            only(&want, &got)
        );
        edges += got.len();
    }
    edges
}

#[test]
fn python_call_graphs_equal_the_ast_oracle_on_the_demo_and_the_corpus() {
    let demo = repoqa_testkit::root().join("public/demo/repoqa-demo.json");
    let n = agree_on(&demo);
    assert!(n > 5, "the demo's Python repository has {n} edges");
    let n = agree_on(&repoqa_testkit::corpus_path());
    assert!(n > 50, "the corpus's Python repositories have {n} edges");
}

/// Over every repository of the realistic corpus: each gold path is a path
/// of the graph and a shortest one, 2 to 4 calls, between different files;
/// each no-path task has no path and tempts as it says; the selection is
/// the same twice.
#[test]
fn selected_tasks_over_the_corpus_are_valid_and_stable() {
    use repoqa::callpath::graph::dataset_graphs;
    use repoqa::callpath::select::{select, shortest_paths_len, Selection, Temptation};
    let bytes = std::fs::read(repoqa_testkit::corpus_path()).unwrap();
    let dataset = Dataset::from_bytes(&bytes, "corpus").unwrap();
    let (mut paths, mut no_paths, mut short) = (0, 0, Vec::new());
    for rg in dataset_graphs(&dataset, &[]).unwrap() {
        let g = &rg.graph;
        let seed = repoqa::curate::default_seed(&rg.repo);
        let t = select(g, &Selection::default(), seed);
        assert_eq!(select(g, &Selection::default(), seed), t, "{}", rg.repo);
        if t.shortfall.is_some() {
            short.push(format!("{} ({})", rg.repo, t.pairs.len()));
        }
        for p in &t.pairs {
            assert_ne!(g.nodes[p.source].path, g.nodes[p.target].path, "{}: {p:?}", rg.repo);
            match p.no_path {
                None => {
                    paths += 1;
                    let calls = p.path.len() - 1;
                    assert!((2..=4).contains(&calls), "{}: {p:?}", rg.repo);
                    assert!(p.path.windows(2).all(|w| g.edges[w[0]].contains(&w[1])), "{p:?}");
                    assert_eq!(shortest_paths_len(g, p.source, p.target), Some(calls), "{p:?}");
                }
                Some(why) => {
                    no_paths += 1;
                    assert_eq!(shortest_paths_len(g, p.source, p.target), None, "{p:?}");
                    if why == Temptation::Reversed {
                        assert!(shortest_paths_len(g, p.target, p.source).is_some(), "{p:?}");
                    }
                }
            }
        }
    }
    // 18 repositories: most give their 10 tasks.
    assert!(paths > 100 && no_paths > 20, "{paths} path tasks, {no_paths} no-path tasks");
    assert!(short.len() <= 6, "repositories with fewer tasks: {short:?}");
}

/// Stand-in models over every task of the corpus: one that answers the
/// gold path (or NO PATH) passes every task; one that answers the gold path
/// reversed passes none of the path tasks; garbage is unreadable, named.
#[test]
fn stand_in_answers_over_the_corpus_score_what_they_should() {
    use repoqa::callpath::graph::dataset_graphs;
    use repoqa::callpath::select::{dataset_tasks, Selection};
    use repoqa::callpath::verdict::{judge, PathVerdict};
    let bytes = std::fs::read(repoqa_testkit::corpus_path()).unwrap();
    let dataset = Dataset::from_bytes(&bytes, "corpus").unwrap();
    let graphs = dataset_graphs(&dataset, &[]).unwrap();
    let tasks = dataset_tasks(&graphs, &Selection::default());
    let mut n = 0;
    for (rg, t) in graphs.iter().zip(&tasks) {
        let g = &rg.graph;
        for p in &t.pairs {
            n += 1;
            let names: Vec<&str> = p.path.iter().map(|&i| g.nodes[i].name.as_str()).collect();
            let gold = if p.path.is_empty() { "NO PATH".to_string() } else { names.join(" -> ") };
            assert_eq!(judge(g, p, &gold).1, PathVerdict::Pass, "{}: {gold}", rg.repo);
            if !p.path.is_empty() {
                let reversed: Vec<&str> = names.iter().rev().copied().collect();
                assert!(!judge(g, p, &reversed.join("\n")).1.passed(), "{}: {reversed:?}", rg.repo);
                assert_eq!(judge(g, p, "NO PATH").1, PathVerdict::MissedPath);
            }
            for garbage in ["", "\u{0}\u{feff}", "I am not sure.", &"x".repeat(10_000)] {
                let v = judge(g, p, garbage).1;
                assert!(!v.passed(), "{garbage:.20?}: {v:?}");
            }
        }
    }
    assert!(n > 150, "{n} tasks");
}
