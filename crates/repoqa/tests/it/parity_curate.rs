//! Curation parity: for every repo of the realistic corpus
//! (tests/corpus/sources.txt), `curate_repo` on the cached sources must
//! give the repo the corpus builder (tests/corpus/build.py, itself checked
//! against the upstream curation scripts) wrote into
//! .tools/corpus/realistic.json, field for field and key order included:
//! content, dependency, functions, needles, and the commit digest.
//!
//! Descriptions are the builder's (taken from realistic.json); the seed is
//! the builder's rule, crc32 of the repo name (the `CurateOptions` default).
//!
//!     cargo test -p repoqa --test it parity_curate:: -- --nocapture

use repoqa_testkit as common;

use std::time::Instant;

use repoqa::code::lang::Language;
use repoqa::curate::{curate_repo, read_source_dir, CurateOptions, Descriptions};
use serde_json::Value;

struct Source {
    lang: String,
    id: String,
    repo: String,
    entry: String,
    topic: String,
}

fn sources() -> Vec<Source> {
    let path = common::root().join("tests/corpus/sources.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(c.len(), 8, "{}: {l}", path.display());
            Source {
                lang: c[0].into(),
                id: c[1].into(),
                repo: c[5].into(),
                entry: c[6].into(),
                topic: c[7].into(),
            }
        })
        .collect()
}

/// Differences between two JSON values, key order included; at most `max`.
fn diff(a: &Value, b: &Value, at: &str, out: &mut Vec<String>, max: usize) {
    if out.len() >= max {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<&String> = x.keys().collect();
            let ky: Vec<&String> = y.keys().collect();
            if kx != ky {
                let first =
                    kx.iter().zip(&ky).position(|(p, q)| p != q).unwrap_or(kx.len().min(ky.len()));
                out.push(format!(
                    "{at}: keys differ ({} vs {}); first difference at #{first}: {:?} vs {:?}",
                    kx.len(),
                    ky.len(),
                    kx.get(first),
                    ky.get(first)
                ));
            }
            for (k, v) in x {
                if let Some(w) = y.get(k) {
                    diff(v, w, &format!("{at}.{k}"), out, max);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(format!("{at}: {} vs {} items", x.len(), y.len()));
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff(v, w, &format!("{at}[{i}]"), out, max);
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            let same = match (x.as_u64(), y.as_u64()) {
                (Some(p), Some(q)) => p == q,
                _ => x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits),
            };
            if !same {
                out.push(format!("{at}: {x} vs {y}"));
            }
        }
        (x, y) if x == y => {}
        (x, y) => {
            let show = |v: &Value| {
                let s = v.to_string();
                if s.len() > 120 {
                    format!("{}…", &s[..s.char_indices().nth(120).map_or(s.len(), |(i, _)| i)])
                } else {
                    s
                }
            };
            out.push(format!("{at}: {} vs {}", show(x), show(y)));
        }
    }
}

#[test]
fn curation_equals_the_corpus_builder_on_every_corpus_repo() {
    let corpus: Value =
        serde_json::from_slice(&std::fs::read(common::corpus_path()).unwrap()).unwrap();
    let src_dir = common::tools().join("corpus/src");
    let mut failures = Vec::new();
    let (mut repos, mut files, mut edges, mut functions, mut needles, mut tolerated_repos) =
        (0, 0, 0, 0, 0, 0);
    let t0 = Instant::now();
    for s in sources() {
        let language = Language::from_name(&s.lang).unwrap();
        let expected = corpus[&s.lang]
            .as_array()
            .and_then(|rs| {
                rs.iter().find(|r| {
                    r["repo"] == s.repo.as_str() && r["entrypoint_path"] == s.entry.as_str()
                })
            })
            .unwrap_or_else(|| panic!("{} {} not in realistic.json", s.lang, s.repo));
        let base = src_dir.join(&s.id);
        assert!(
            base.join(".complete").exists(),
            "{} not fetched: run tests/corpus/build.sh",
            base.display()
        );
        let t = Instant::now();
        let inputs = read_source_dir(&base, language, Some(&s.entry)).unwrap();
        let mut opts = CurateOptions::new(language, s.repo.clone());
        opts.entry = Some(s.entry.clone());
        opts.topic = Some(s.topic.clone());
        let descriptions: Descriptions = expected["needles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["name"].as_str().unwrap().to_string(),
                    n["description"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let report = match curate_repo(&inputs, &opts, &descriptions) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{} {}: {e}", s.lang, s.repo));
                continue;
            }
        };
        let ours: Value = serde_json::to_value(&report.repo).unwrap();
        let name = format!("{}/{}", s.lang, s.repo);
        let mut diffs = Vec::new();
        // Everything but the functions and needles: exact, key order included.
        let strip = |v: &Value| {
            let mut v = v.clone();
            let m = v.as_object_mut().unwrap();
            for k in ["functions", "needles"] {
                m.insert(k.to_string(), Value::Null);
            }
            v
        };
        diff(&strip(&ours), &strip(expected), &name, &mut diffs, 15);
        // Functions: file by file. The two grammar generations (ours and
        // tree_sitter_languages 1.10.2) recover from syntax errors
        // differently, so a file that either of them parses with an error may
        // differ (reported); a file both parse cleanly must not.
        let (of, ef) = (&ours["functions"], &expected["functions"]);
        let ok: Vec<&String> = of.as_object().unwrap().keys().collect();
        let ek: Vec<&String> = ef.as_object().unwrap().keys().collect();
        if ok != ek {
            diffs.push(format!("{name}.functions: file order differs"));
        }
        let differing: Vec<&String> =
            ok.iter().copied().filter(|p| of[p.as_str()] != ef[p.as_str()]).collect();
        let mut tolerated = Vec::new();
        if differing.is_empty() {
            diff(
                &ours["needles"],
                &expected["needles"],
                &format!("{name}.needles"),
                &mut diffs,
                15,
            );
        } else {
            let content = &expected["content"];
            let theirs_err: Value = serde_json::from_slice(&common::run_oracle(
                "curate.py",
                &["parse_errors"],
                Some(
                    serde_json::json!({"lang": s.lang, "content": content}).to_string().as_bytes(),
                ),
            ))
            .unwrap();
            let grammar = language.grammar();
            for p in &differing {
                let text = report.repo.content[p.as_str()].as_bytes();
                let ours_err =
                    grammar.parse(text).map(|t| t.root_node().has_error()).unwrap_or(true);
                let n_ours = of[p.as_str()].as_array().map_or(0, Vec::len);
                let n_theirs = ef[p.as_str()].as_array().map_or(0, Vec::len);
                if ours_err || theirs_err[p.as_str()] == true {
                    tolerated.push(format!(
                        "{p}: {n_ours} vs {n_theirs} functions (syntax error for {})",
                        match (ours_err, theirs_err[p.as_str()] == true) {
                            (true, true) => "both grammars",
                            (true, false) => "our grammar",
                            _ => "the official grammar",
                        }
                    ));
                } else {
                    diff(
                        &of[p.as_str()],
                        &ef[p.as_str()],
                        &format!("{name}.functions[{p}]"),
                        &mut diffs,
                        15,
                    );
                }
            }
            // The needles then differ too; check ours are what the builder
            // samples from *our* functions.
            let picked: Value = serde_json::from_slice(&common::run_oracle(
                "curate.py",
                &["select"],
                Some(
                    serde_json::json!({"repo": s.repo, "content": content, "functions": of})
                        .to_string()
                        .as_bytes(),
                ),
            ))
            .unwrap();
            let mut sampled = serde_json::to_value(&report.sampled).unwrap();
            for n in sampled.as_array_mut().unwrap() {
                n.as_object_mut().unwrap().shift_remove("description");
            }
            diff(&sampled, &picked, &format!("{name}.sampled"), &mut diffs, 15);
        }
        let st = &report.stats;
        println!(
            "{:10} {:30} files={:3} edges={:4} functions={:4} candidates={:2} needles={:2} warnings={} diffs={} ({:.1}s)",
            s.lang,
            s.repo,
            st.files,
            st.edges,
            st.functions,
            st.candidates,
            report.repo.needles.len(),
            report.warnings.len(),
            diffs.len(),
            t.elapsed().as_secs_f64()
        );
        for t in &tolerated {
            println!("    grammar difference (tolerated): {t}");
        }
        if tolerated.is_empty() {
            for w in &report.warnings {
                println!("    warning: {w}");
            }
        } else {
            let theirs: Vec<&str> = expected["needles"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|n| n["name"].as_str())
                .collect();
            let changed =
                report.sampled.iter().filter(|n| !theirs.contains(&n.name.as_str())).count();
            println!("    needles: {changed} of 10 sampled differ from the corpus through these files; all equal to the builder's sample from our functions");
            tolerated_repos += 1;
        }
        for d in &diffs {
            println!("    DIFF {d}");
        }
        if !diffs.is_empty() {
            failures.push(format!(
                "{} {}: {} differences (first: {})",
                s.lang,
                s.repo,
                diffs.len(),
                diffs[0]
            ));
        }
        repos += 1;
        files += st.files;
        edges += st.edges;
        functions += st.functions;
        needles += report.repo.needles.len();
    }
    println!(
        "curation parity: {repos} repos, {files} files, {edges} dependency edges, {functions} functions, {needles} needles; {} repos with differences, {tolerated_repos} with grammar-recovery differences only ({:.1}s)",
        failures.len(),
        t0.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
