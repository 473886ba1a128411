//! The demo's sample answers (public/demo/sample-answers.jsonl, written by
//! scripts/sample_answers.py; SAMPLES, not a model's replies) scored the way
//! the app scores them: imported onto the demo's built tasks, each turned
//! into the outputs line `repoqa score` would read, scored, grouped into a
//! run. The verdicts are pinned, so the samples keep showing what they are
//! meant to show (some pass, some fail in instructive ways), and the run
//! equals what `run::score_outputs` makes of the exported outputs file.

use repoqa_testkit as common;

use repoqa::code::tokenize::Tokenizer;
use repoqa::input::dataset::Dataset;
use repoqa::prompt::settings::BuildSettings;
use repoqa::report::read_model_outputs;
use repoqa::scoring::answers::{import_answers, model_output, outputs_jsonl};
use repoqa::scoring::run::{score_outputs, Run};
use repoqa::scoring::score::{ScoreOptions, Scorer};

#[test]
fn sample_answers_score_as_pinned() {
    let root = common::root();
    let dataset = Dataset::from_file(&root.join("public/demo/repoqa-demo.json")).unwrap();
    let tok = Tokenizer::from_file(&common::tokenizer_path()).unwrap();
    let settings = BuildSettings::default();
    let specs = settings.filter.task_specs(&dataset).unwrap();
    let mut builder =
        repoqa::prompt::context::ContextBuilder::new(&dataset, settings.context_options(), &tok);
    let tasks: Vec<_> = specs.iter().map(|s| builder.build(s).unwrap()).collect();

    let text = std::fs::read_to_string(root.join("public/demo/sample-answers.jsonl")).unwrap();
    assert!(
        text.lines().all(|l| l.contains("\"sample\": \"SAMPLE ANSWER")),
        "every line is marked"
    );
    let import = import_answers(&text, &tasks);
    assert!(import.errors.is_empty(), "{:?}", import.errors);
    assert_eq!(import.answers.len(), 12);

    // As the app scores them: one at a time, in task order.
    let mut scorer = Scorer::new(&dataset, ScoreOptions::default());
    let mut scored = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        if let Some(a) = import.answers.iter().find(|a| a.task_id == t.task_id()) {
            let o = model_output(t, &a.reply, i + 1).unwrap();
            let e = scorer.evaluate(&o).unwrap();
            scored.push((o, e));
        }
    }
    let verdicts: Vec<(String, bool, Option<String>, String)> = scored
        .iter()
        .map(|(o, e)| {
            (
                o.name.clone(),
                e.passes(0.8),
                e.best_target.clone(),
                format!("{:.3}", e.best_similarity),
            )
        })
        .collect();
    let run = Run::new(scored.iter().map(|(o, e)| (o, e))).unwrap();
    let all = run.table.row("all").unwrap();
    println!("{verdicts:#?}\npassed at 0.0..=1.0: {:?}", all.passed);

    let expected: &[(&str, bool, Option<&str>)] = PINNED;
    let got: Vec<(&str, bool, Option<&str>)> =
        verdicts.iter().map(|(n, p, b, _)| (n.as_str(), *p, b.as_deref())).collect();
    assert_eq!(got, expected);
    assert_eq!(all.n, 12);
    assert_eq!(all.passed, PASSED_BY_THRESHOLD);

    // The exported outputs file, scored by the CLI's path, gives the same run.
    let answers = import.answers.iter().map(|a| (a.task_id.clone(), a.reply.clone())).collect();
    let file = read_model_outputs(&outputs_jsonl(&tasks, &answers).unwrap());
    let cli =
        score_outputs(&dataset, ScoreOptions::default(), &file.outputs, |_, _| {}).unwrap().run;
    assert_eq!(cli.results, run.results);
    assert_eq!(cli.table, run.table);
}

/// (needle, passes at 0.8, best match), in task order.
const PINNED: &[(&str, bool, Option<&str>)] = &[
    ("readability", true, Some("readability")),
    ("wrap", true, Some("wrap")),
    // Another function of the repo wins: a fail at every threshold.
    ("format_number", false, Some("cross")),
    ("closest_pair_distance", true, Some("closest_pair_distance")),
    // Prose only: nothing is similar at all.
    ("main", false, None),
    // Truncated (0.276) and half left out (0.495): the best match, under 0.8.
    ("monthlyAdjustment", false, Some("monthlyAdjustment")),
    ("parseTasks", true, Some("parseTasks")),
    ("mergeIntervals", true, Some("mergeIntervals")),
    ("matches_req", true, Some("matches_req")),
    ("pre_is_compatible", true, Some("pre_is_compatible")),
    ("SplitCSVLine", true, Some("SplitCSVLine")),
    ("summarize", false, Some("summarize")),
];
/// Tasks passed at the thresholds 0.0, 0.1, …, 1.0.
const PASSED_BY_THRESHOLD: [usize; 11] = [10, 10, 10, 9, 9, 8, 8, 8, 8, 8, 6];
