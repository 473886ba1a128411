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

/// Over every repository of the realistic corpus at 2k, 16k and 64k
/// tokens: every function of each task's gold path (the source and the
/// target of a no-path task) is inside its window whole, at the depth the
/// task records; the gold paths are still valid and shortest; what a
/// repository cannot give is said. A larger window fits more pairs.
#[test]
fn call_path_windows_over_the_corpus_hold_every_gold_function() {
    use repoqa::api::callpath::CallPathPlan;
    use repoqa::callpath::graph::dataset_graphs;
    use repoqa::code::tokenize::Tokenizer;
    let bytes = std::fs::read(repoqa_testkit::corpus_path()).unwrap();
    let dataset = Dataset::from_bytes(&bytes, "corpus").unwrap();
    let tok = Tokenizer::from_file(&repoqa_testkit::tokenizer_path()).expect("tokenizer");
    let graphs = dataset_graphs(&dataset, &[]).unwrap();
    let mut counts = Vec::new();
    for size in [2048, 16384, 65536] {
        let plan = CallPathPlan::new(size);
        let repos = plan.check(&dataset).expect("plan");
        let built = plan.build(&dataset, &repos, &tok, |_, _| {}).expect("builds");
        for t in &built.tasks {
            let rg = graphs
                .iter()
                .find(|g| g.repo == t.repo && g.language.name() == t.language)
                .expect("repo");
            let g = &rg.graph;
            let repo = dataset.repo(&t.language, &t.repo).expect("repo");
            let by_ref = |r: &repoqa::callpath::task::FunctionRef| {
                g.nodes
                    .iter()
                    .position(|n| {
                        n.name == r.name && n.path == r.file && n.start_line == r.start_line
                    })
                    .expect("the source and the target are records")
            };
            let by_name = |name: &str| g.nodes.iter().position(|n| n.name == name).expect("node");
            let (a, b) = (by_ref(&t.source), by_ref(&t.target));
            let nodes: Vec<usize> = if t.path.is_empty() {
                vec![a, b]
            } else {
                let k = t.path.len() - 1;
                (0..=k)
                    .map(|i| {
                        if i == 0 {
                            a
                        } else if i == k {
                            b
                        } else {
                            by_name(&t.path[i])
                        }
                    })
                    .collect()
            };
            assert_eq!(nodes.len(), t.depths.len(), "{}", t.id());
            for (&n, depth) in nodes.iter().zip(&t.depths) {
                let f = &g.nodes[n];
                let text = &repo.content[&f.path][f.start_byte..f.end_byte];
                assert!(
                    t.code_context.contains(text),
                    "{size}: {}: {} not in its window",
                    t.id(),
                    f.name
                );
                assert!((0.0..1.0).contains(depth), "{}: depth {depth}", t.id());
            }
            // SNF's own windows run over by up to ~1.5 % here (the `Path:`
            // lines are not in the official budget): the same bound.
            assert!(
                t.code_context_ntokens <= size + size / 32,
                "{size}: {} tokens",
                t.code_context_ntokens
            );
            if let Some(calls) = t.path_calls() {
                let p = &nodes;
                assert!(p.windows(2).all(|w| g.edges[w[0]].contains(&w[1])), "{}", t.id());
                assert_eq!(
                    repoqa::callpath::select::shortest_paths_len(g, p[0], p[calls]),
                    Some(calls)
                );
            }
            assert!(t.prompt().contains(&t.question));
        }
        for s in &built.shortfalls {
            assert!(s.given < s.asked, "{}", s.text());
        }
        let spread: f64 = built.tasks.iter().map(|t| t.depth_spread()).sum::<f64>()
            / built.tasks.len().max(1) as f64;
        eprintln!(
            "{size}: {} tasks, {} repositories short ({} unfit pairs), mean depth spread {spread:.2}",
            built.tasks.len(),
            built.shortfalls.len(),
            built.shortfalls.iter().map(|s| s.unfit).sum::<usize>()
        );
        counts.push(built.tasks.len());
    }
    assert!(counts[0] <= counts[1] && counts[1] <= counts[2], "{counts:?}");
    assert!(counts[1] > 120, "{counts:?} tasks at 2k, 16k, 64k");
}
