//! `Grammar::function_spans` and `Grammar::comment_spans` match
//! FUNCTION_QUERY and COMMENT_QUERY by walking the tree instead of compiling
//! the queries (see crates/repoqa/src/code/lang.rs). This holds the two
//! together on every file of the realistic corpus and the demo, whole and cut
//! at many points (cut files are full of ERROR and MISSING nodes, the cases
//! where a hand-written matcher could drift from the query engine).

use repoqa_testkit as common;

use repoqa::code::lang::Language;
use repoqa::input::dataset::Dataset;

fn check(dataset: &Dataset, origin: &str) -> (usize, usize) {
    let (mut texts, mut spans) = (0, 0);
    for (key, repos) in &dataset.languages {
        let lang = Language::from_name(key).unwrap();
        let g = lang.grammar();
        for repo in repos {
            for (path, text) in &repo.content {
                let bytes = text.as_bytes();
                // The whole file, then prefixes cut at 7 points (char boundaries).
                let mut cuts: Vec<usize> = (1..8).map(|k| bytes.len() * k / 8).collect();
                cuts.push(bytes.len());
                for cut in cuts {
                    let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap();
                    let src = &bytes[..cut];
                    let tree = g.parse(src).unwrap();
                    let walk = g.function_spans(&tree, src);
                    let query = g.function_spans_by_query(&tree, src);
                    assert_eq!(walk, query, "{origin}: {lang} {} {path} cut at {cut}", repo.repo);
                    assert_eq!(g.first_function_span(&tree), query.first().copied());
                    let comments = g.comment_spans(&tree, src);
                    let by_query = g.comment_spans_by_query(&tree, src);
                    assert_eq!(
                        comments, by_query,
                        "{origin}: {lang} {} {path} cut at {cut}: comment captures",
                        repo.repo
                    );
                    texts += 1;
                    spans += walk.len() + comments.len();
                }
            }
        }
    }
    (texts, spans)
}

#[test]
fn walk_equals_the_official_query_on_the_demo_and_the_corpus() {
    let demo = common::root().join("public/demo/repoqa-demo.json");
    let d = Dataset::from_file(&demo).unwrap();
    let (t, s) = check(&d, "demo");
    println!("demo: {t} texts, {s} function and comment captures, walk == query");
    let corpus = common::corpus_path();
    let d = Dataset::from_file(&corpus).unwrap();
    let (t, s) = check(&d, "corpus");
    println!(
        "corpus: {t} texts (whole files and 7 cuts each), {s} function and comment captures, walk == query"
    );
}
