//! The demo dataset (public/demo/repoqa-demo.json) is what `repoqa::curate`
//! makes of the demo sources (public/demo/sources.txt) with the
//! hand-written descriptions (public/demo/descriptions/<lang>.json).
//!
//!     cargo test -p repoqa --test it demo_dataset::                 check it is up to date
//!     cargo test -p repoqa --test it demo_dataset:: -- --ignored    regenerate it
//!
//! The demo sources are also curated by the corpus builder (via
//! tests/oracle/curate.py) to check the two agree on them too.

use repoqa_testkit as common;

use std::path::PathBuf;

use repoqa::code::lang::Language;
use repoqa::curate::{
    append_repo, curate_repo, read_source_dir, CurateOptions, CurateReport, Descriptions,
};
use repoqa::input::dataset::Dataset;
use serde_json::{json, Value};

fn demo_dir() -> PathBuf {
    common::root().join("public/demo")
}

struct DemoRepo {
    language: Language,
    dir: String,
    repo: String,
    entry: String,
    topic: String,
}

fn manifest() -> Vec<DemoRepo> {
    let text = std::fs::read_to_string(demo_dir().join("sources.txt")).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(c.len(), 5, "public/demo/sources.txt: {l}");
            DemoRepo {
                language: Language::from_name(c[0]).unwrap(),
                dir: c[1].into(),
                repo: c[2].into(),
                entry: c[3].into(),
                topic: c[4].into(),
            }
        })
        .collect()
}

fn curate(d: &DemoRepo) -> CurateReport {
    let files = read_source_dir(&demo_dir().join(&d.dir), d.language, Some(&d.entry)).unwrap();
    let path = demo_dir().join(format!("descriptions/{}.json", d.language));
    let descriptions =
        Descriptions::from_json(&std::fs::read(&path).unwrap(), &path.display().to_string())
            .unwrap();
    let mut opts = CurateOptions::new(d.language, d.repo.clone());
    opts.entry = Some(d.entry.clone());
    opts.topic = Some(d.topic.clone());
    curate_repo(&files, &opts, &descriptions).unwrap_or_else(|e| panic!("{}: {e}", d.repo))
}

/// The dataset and, per repo, what is still missing (empty when complete).
fn build() -> (Dataset, Vec<String>) {
    let mut dataset = Dataset::default();
    let mut problems = Vec::new();
    for d in manifest() {
        let report = curate(&d);
        for w in &report.warnings {
            problems.push(format!("{} ({}): {w}", d.repo, d.language));
        }
        for n in report.missing_descriptions() {
            problems.push(format!(
                "---- {} {} {}:{}-{}\n{}",
                d.language,
                n.name,
                n.path,
                n.start_line + 1,
                n.end_line,
                report.needle_code(n).unwrap_or_default()
            ));
        }
        append_repo(&mut dataset, d.language, report.repo);
    }
    (dataset, problems)
}

const OUT: &str = "repoqa-demo.json";

#[test]
#[ignore = "writes public/demo/repoqa-demo.json"]
fn regenerate_demo_dataset() {
    let (dataset, problems) = build();
    let text = dataset.to_json_string();
    std::fs::write(demo_dir().join(OUT), &text).unwrap();
    println!("wrote public/demo/{OUT}: {} bytes, {} needles", text.len(), dataset.needle_count());
    for p in &problems {
        println!("{p}");
    }
    assert!(problems.is_empty(), "{} problems (see above)", problems.len());
}

#[test]
fn demo_dataset_is_complete_and_up_to_date() {
    let (dataset, problems) = build();
    assert!(problems.is_empty(), "demo curation problems:\n{}", problems.join("\n"));
    let langs: Vec<&str> = dataset.languages.keys().map(String::as_str).collect();
    assert_eq!(langs, Language::ALL.iter().map(|l| l.name()).collect::<Vec<_>>());
    for (lang, repos) in &dataset.languages {
        for r in repos {
            assert_eq!(r.needles.len(), 10, "{lang} {}", r.repo);
            for n in &r.needles {
                // The model must find the function from what it does.
                let spelled =
                    regex::Regex::new(&format!(r"(?i)\b{}\b", regex::escape(&n.name))).unwrap();
                assert!(
                    !spelled.is_match(&n.description),
                    "{lang}: the description of {} spells its name",
                    n.name
                );
                for point in
                    ["1. **Purpose**:", "2. **Input**:", "3. **Output**:", "4. **Procedure**:"]
                {
                    assert!(
                        n.description.contains(point),
                        "{lang}: the description of {} lacks {point}",
                        n.name
                    );
                }
            }
        }
    }
    let text = dataset.to_json_string();
    assert!(text.len() < 1_000_000, "demo dataset is {} bytes", text.len());
    let committed = std::fs::read_to_string(demo_dir().join(OUT)).unwrap_or_default();
    assert!(
        committed == text,
        "public/demo/{OUT} is stale: run `cargo test -p repoqa --test it demo_dataset:: -- --ignored`"
    );
    // And it loads as a dataset.
    let loaded = Dataset::from_bytes(committed.as_bytes(), OUT).unwrap();
    assert_eq!(loaded.needle_count(), 60);
    println!(
        "public/demo/{OUT}: {} bytes, {} repos, {} needles",
        text.len(),
        langs.len(),
        loaded.needle_count()
    );
}

#[test]
fn demo_curation_equals_the_corpus_builder() {
    for d in manifest() {
        let report = curate(&d);
        let request = json!({
            "lang": d.language.name(),
            "repo": d.repo,
            "entry": d.entry,
            "content": report.repo.content,
        });
        let out = common::run_oracle("curate.py", &[], Some(request.to_string().as_bytes()));
        let theirs: Value = serde_json::from_slice(&out).unwrap();
        let ours = serde_json::to_value(&report.repo).unwrap();
        for key in ["dependency", "functions"] {
            assert_eq!(
                serde_json::to_string(&ours[key]).unwrap(),
                serde_json::to_string(&theirs[key]).unwrap(),
                "{} {key}",
                d.repo
            );
        }
        let mut sampled = serde_json::to_value(&report.sampled).unwrap();
        for n in sampled.as_array_mut().unwrap() {
            n.as_object_mut().unwrap().shift_remove("description");
        }
        assert_eq!(
            serde_json::to_string(&sampled).unwrap(),
            serde_json::to_string(&theirs["needles"]).unwrap(),
            "{}",
            d.repo
        );
        println!(
            "{:10} {:28} files={} edges={} functions={} candidates={} needles={}: equal to the builder",
            d.language.name(),
            d.repo,
            report.stats.files,
            report.stats.edges,
            report.stats.functions,
            report.stats.candidates,
            report.sampled.len()
        );
    }
}
