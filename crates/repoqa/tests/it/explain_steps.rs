//! The similarity shown step by step (`Scorer::explain`, issue 24) is the
//! scorer's own value, bit for bit, for every candidate of every task: on
//! the demo with its sample answers, and on the realistic corpus with a
//! reply per task (the needle with a line dropped, or another needle), with
//! and without `--ignore-comments`; and the tokens it highlights as matched
//! are as many as the counts it shows.

use repoqa::input::dataset::Dataset;
use repoqa::report::{read_model_outputs, ModelOutput};
use repoqa::scoring::bleu::{matched_tokens, py_tokens};
use repoqa::scoring::score::{Candidates, ScoreOptions, Scorer};
use serde_json::json;

/// An outputs line with the task fields the scorer's reader requires.
fn output_line(lang: &str, repo: &str, name: &str, reply: &str) -> String {
    json!({"repo": repo, "name": name, "language": lang, "position_ratio": 0.5,
        "needle_token_start": 0, "needle_token_end": 1, "description": "",
        "output": [reply]})
    .to_string()
}

fn read(text: &str) -> Vec<ModelOutput> {
    let file = read_model_outputs(text);
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    assert!(!file.outputs.is_empty());
    file.outputs
}

fn check(dataset: &Dataset, outputs: &[ModelOutput], label: &str) -> usize {
    let mut checked = 0;
    for ignore_comments in [false, true] {
        let options = ScoreOptions { ignore_comments, candidates: Candidates::Needles };
        let mut scorer = Scorer::new(dataset, options);
        let repos: Vec<_> = outputs.iter().map(|o| (o.language.clone(), o.repo.clone())).collect();
        for (o, (lang, repo)) in outputs.iter().zip(repos) {
            let e = scorer.evaluate(o).unwrap();
            let paths: Vec<(String, String)> = dataset
                .repos(&lang)
                .and_then(|rs| rs.iter().find(|r| r.repo == repo))
                .map(|r| r.needles.iter().map(|n| (n.name.clone(), n.path.clone())).collect())
                .unwrap_or_default();
            for c in &e.candidates {
                let x = scorer.explain(o, &c.name, &c.path).unwrap().expect("the candidate");
                assert_eq!(
                    x.steps.similarity.to_bits(),
                    c.similarity.to_bits(),
                    "{label} {}::{}::{} vs {}: steps {} scorer {}",
                    o.language,
                    o.repo,
                    o.name,
                    c.name,
                    x.steps.similarity,
                    c.similarity
                );
                let (h, r) = (py_tokens(&x.hypothesis), py_tokens(&x.reference));
                for step in &x.steps.orders {
                    assert_eq!(matched_tokens(&h, &r, step.n).matches, step.matches);
                }
                checked += 1;
            }
            assert_eq!(e.candidates.len(), paths.len());
        }
    }
    checked
}

#[test]
fn steps_equal_the_scorer_on_the_demo_samples() {
    let root = repoqa_testkit::root();
    let bytes = std::fs::read(root.join("public/demo/repoqa-demo.json")).unwrap();
    let dataset = Dataset::from_bytes(&bytes, "repoqa-demo.json").unwrap();
    let samples = std::fs::read_to_string(root.join("public/demo/sample-answers.jsonl")).unwrap();
    let mut text = String::new();
    for l in samples.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let s = |k: &str| v[k].as_str().unwrap().to_string();
        text.push_str(&output_line(
            &s("language"),
            &s("repo"),
            &s("name"),
            v["output"][0].as_str().unwrap(),
        ));
        text.push('\n');
    }
    let outputs = read(&text);
    assert_eq!(outputs.len(), samples.lines().count());
    let n = check(&dataset, &outputs, "demo");
    println!("explain_steps: demo, {} sample answers: {n} similarities equal", outputs.len());
}

#[test]
fn steps_equal_the_scorer_on_the_realistic_corpus() {
    let bytes = std::fs::read(repoqa_testkit::corpus_path()).unwrap();
    let dataset = Dataset::from_bytes(&bytes, "realistic.json").unwrap();
    let mut text = String::new();
    for (lang, repos) in &dataset.languages {
        for r in repos {
            for (i, n) in r.needles.iter().enumerate() {
                let code = r.reference_text(&n.path, n.start_line, n.end_line).unwrap_or_default();
                let reply = if i % 3 == 2 {
                    let other = &r.needles[(i + 1) % r.needles.len()];
                    r.reference_text(&other.path, other.start_line, other.end_line)
                        .unwrap_or_default()
                } else {
                    let mut ls: Vec<&str> = code.lines().collect();
                    if ls.len() > 2 {
                        ls.remove(ls.len() / 2);
                    }
                    ls.join("\n")
                };
                let reply = format!("Here it is:\n```{lang}\n{reply}\n```\n");
                text.push_str(&output_line(lang, &r.repo, &n.name, &reply));
                text.push('\n');
            }
        }
    }
    let outputs = read(&text);
    let needles: usize = dataset.languages.values().flatten().map(|r| r.needles.len()).sum();
    assert_eq!(outputs.len(), needles);
    let n = check(&dataset, &outputs, "realistic");
    println!("explain_steps: realistic corpus, {} replies: {n} similarities equal", outputs.len());
}
