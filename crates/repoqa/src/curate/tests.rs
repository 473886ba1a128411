//! End-to-end tests of `curate_repo` on small synthetic repos: the steps
//! together, every error, the warnings.

use super::*;

/// A Python package of `n` small functions spread over two files, with
/// non-ASCII text before some of them.
fn python_repo(n: usize) -> Vec<SourceFile> {
    let mut a = String::from("\"\"\"Módulo de ejemplo ✓.\"\"\"\nfrom .b import helper_0\n\n");
    let mut b = String::from("import os\n\n");
    for i in 0..n {
        let body = format!(
            "def helper_{i}(x):\n    # añade {i} — comentario\n    total = x + {i}\n    return total * 2\n\n\n"
        );
        if i % 2 == 0 {
            b.push_str(&body);
        } else {
            a.push_str(&body);
        }
    }
    vec![
        SourceFile::new("pkg/a.py", a.into_bytes()),
        SourceFile::new("pkg/b.py", b.into_bytes()),
        SourceFile::new("README.md", b"# not python".to_vec()),
    ]
}

fn opts() -> CurateOptions {
    let mut o = CurateOptions::new(Language::Python, "demo/pkg");
    o.entry = Some("pkg".to_string());
    o.topic = Some("testing".to_string());
    o
}

fn all_described(report: &CurateReport) -> Descriptions {
    report
        .sampled
        .iter()
        .map(|n| (n.name.clone(), format!("\n1. **Purpose**: {}.\n", n.name.len())))
        .collect()
}

#[test]
fn steps_one_file_at_a_time_then_the_needles() {
    let files = python_repo(14);
    let o = opts();
    let none = Descriptions::new();
    let curation = Curation::new(&files, &o, &none);
    assert_eq!(curation.progress(), (0, 0));
    let mut seen = Vec::new();
    let report = crate::step::drive(curation, 1, |c| seen.push(c.progress())).unwrap();
    // Files and dependencies, then one file per step; `finish` (needles)
    // ends it.
    assert_eq!(seen, [(0, 2), (1, 2), (2, 2)]);
    assert_eq!(report.repo.functions.keys().collect::<Vec<_>>(), ["pkg/b.py", "pkg/a.py"]);
    assert_eq!(report.sampled.len(), 10);
    assert_eq!(report.repo, curate_repo(&files, &o, &none).unwrap().repo);
    // An error in the first step comes from the first step.
    let empty: Vec<SourceFile> = Vec::new();
    assert!(matches!(Curation::new(&empty, &o, &none).step(1), Err(CurateError::NoFiles { .. })));
}

#[test]
fn curates_a_small_repo_end_to_end() {
    let files = python_repo(14);
    let first = curate_repo(&files, &opts(), &Descriptions::new()).unwrap();
    assert_eq!(first.sampled.len(), 10);
    assert!(first.repo.needles.is_empty());
    assert_eq!(first.missing_descriptions().len(), 10);
    assert!(first.warnings.contains(&CurateWarning::FewerNeedles { kept: 0, sampled: 10 }));

    let report = curate_repo(&files, &opts(), &all_described(&first)).unwrap();
    let repo = &report.repo;
    assert_eq!(repo.content.keys().collect::<Vec<_>>(), ["pkg/a.py", "pkg/b.py"]);
    assert_eq!(repo.dependency["pkg/a.py"], ["pkg/b.py"]);
    assert_eq!(repo.file_order(), ["pkg/b.py", "pkg/a.py"]);
    assert_eq!(repo.functions.keys().collect::<Vec<_>>(), ["pkg/b.py", "pkg/a.py"]);
    assert_eq!(repo.needles.len(), 10);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.stats.functions, 14);
    assert_eq!(repo.entrypoint_path.as_deref(), Some("pkg"));
    assert_eq!(repo.commit_sha.as_deref(), Some(content_digest(&repo.content).as_str()));
    // Same seed, same needles; the sample is a function of the seed.
    let names: Vec<&str> = repo.needles.iter().map(|n| n.name.as_str()).collect();
    let again = curate_repo(&files, &opts(), &all_described(&first)).unwrap();
    assert_eq!(again.repo, report.repo);
    let mut other = opts();
    other.seed += 1;
    let other = curate_repo(&files, &other, &Descriptions::new()).unwrap();
    let other_names: Vec<&str> = other.sampled.iter().map(|n| n.name.as_str()).collect();
    assert_ne!(names, other_names);
    // Each needle's code is its function; the global offsets of a.py count
    // b.py's code points, not its (larger) byte length.
    for n in &repo.needles {
        let code = report.needle_code(n).unwrap();
        assert!(code.starts_with(&format!("def {}(x):", n.name)), "{code}");
        if n.path == "pkg/a.py" {
            let b = &repo.content["pkg/b.py"];
            assert!(b.len() > b.chars().count());
            assert_eq!(n.global_start_byte, Some(b.chars().count() + n.start_byte));
        }
    }
    // The result is a valid dataset.
    let mut dataset = Dataset::default();
    assert!(!append_repo(&mut dataset, Language::Python, report.repo.clone()));
    assert!(append_repo(&mut dataset, Language::Python, report.repo.clone()));
    let text = dataset.to_json_string();
    let back = Dataset::from_bytes(text.as_bytes(), "curated").unwrap();
    assert_eq!(back.needle_count(), 10);
}

#[test]
fn missing_and_unused_descriptions_are_warnings() {
    let files = python_repo(14);
    let first = curate_repo(&files, &opts(), &Descriptions::new()).unwrap();
    let mut d = all_described(&first);
    let dropped = first.sampled[3].name.clone();
    d.insert(dropped.clone(), "   ");
    d.insert("not_a_needle", "text");
    let r = curate_repo(&files, &opts(), &d).unwrap();
    assert_eq!(r.repo.needles.len(), 9);
    assert!(r.repo.needles.iter().all(|n| n.name != dropped && !n.description.is_empty()));
    let shown: Vec<String> = r.warnings.iter().map(ToString::to_string).collect();
    assert!(
        shown.iter().any(|w| w.starts_with(&format!("needle {dropped} (pkg/"))
            && w.ends_with("has no description; left out")),
        "{shown:?}"
    );
    assert!(shown.contains(
        &"only 9 of the 10 sampled needles have a description; the repo has 9 needles".to_string()
    ));
    assert!(shown.contains(
        &"description for \"not_a_needle\" unused: it is not a sampled needle".to_string()
    ));
    let template: serde_json::Value = serde_json::from_str(&r.description_template()).unwrap();
    assert_eq!(template[&dropped], "");
    assert_eq!(template.as_object().unwrap().len(), 10);
}

#[test]
fn errors_say_what_is_wrong() {
    let none = Descriptions::new();
    let e = curate_repo(&[], &opts(), &none).unwrap_err().to_string();
    assert_eq!(e, "no python files (.py) under pkg among 0 input files");
    let binary = [SourceFile::new("pkg/x.py", vec![0xff, 0xfe, 0])];
    let e = curate_repo(&binary, &opts(), &none).unwrap_err().to_string();
    assert_eq!(e, "all 1 python files are binary or not UTF-8; nothing to curate");
    let mut small = opts();
    small.max_input_bytes = 1000;
    let e = curate_repo(&python_repo(14), &small, &none).unwrap_err().to_string();
    assert!(e.starts_with("the 2 python files hold "), "{e}");
    assert!(e.ends_with("over the limit of 0 MiB; choose a smaller entry directory"), "{e}");
    let no_fn = [SourceFile::new("pkg/x.py", "x = 1\n".repeat(40).into_bytes())];
    let e = curate_repo(&no_fn, &opts(), &none).unwrap_err().to_string();
    assert_eq!(e, "demo/pkg: no python functions found in 1 files (only `def` functions count)");
    let e = curate_repo(&python_repo(7), &opts(), &none).unwrap_err().to_string();
    assert!(e.starts_with("demo/pkg: only 7 of 7 functions can be needles, 10 are needed"), "{e}");
    let tiny = [SourceFile::new("pkg/x.py", b"def f(): pass\n".to_vec())];
    let e = curate_repo(&tiny, &opts(), &none).unwrap_err().to_string();
    assert_eq!(
        e,
        "demo/pkg: the content has 14 characters, too small to spread needles over 64 bins"
    );
    let mut bad = opts();
    bad.entry = Some("../up".to_string());
    let e = curate_repo(&python_repo(14), &bad, &none).unwrap_err().to_string();
    assert_eq!(e, "entry directory \"../up\" leaves the repository root");
}

#[test]
fn skipped_files_are_reported() {
    let mut files = python_repo(14);
    files.push(SourceFile::new("pkg/latin1.py", b"s = '\xe9'\n".to_vec()));
    let r = curate_repo(&files, &opts(), &Descriptions::new()).unwrap();
    assert_eq!(r.stats.skipped_files, 1);
    assert_eq!(
        r.warnings[0].to_string(),
        "pkg/latin1.py: skipped, binary or not UTF-8 (invalid byte at offset 5)"
    );
}

#[test]
fn common_root_is_stripped() {
    let mut files = vec![
        SourceFile::new("repo/a.py", b"".to_vec()),
        SourceFile::new("./repo/pkg/b.py", b"".to_vec()),
    ];
    assert_eq!(strip_common_root(&mut files).as_deref(), Some("repo"));
    assert_eq!(files[0].path, "a.py");
    assert_eq!(files[1].path, "pkg/b.py");
    assert_eq!(strip_common_root(&mut files), None);
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn reads_a_directory() {
    let dir = std::env::temp_dir().join(format!("repoqa-curate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("pkg/sub")).unwrap();
    std::fs::write(dir.join("pkg/a.py"), "x = 1\n").unwrap();
    std::fs::write(dir.join("pkg/sub/b.py"), "y = 2\n").unwrap();
    std::fs::write(dir.join("pkg/c.txt"), "z").unwrap();
    std::fs::write(dir.join("top.py"), "").unwrap();
    let files = read_source_dir(&dir, Language::Python, Some("pkg")).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["pkg/a.py", "pkg/sub/b.py"]);
    assert!(read_source_dir(&dir, Language::Python, Some("nope")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A FIFO (reading would block), a link to a device (reading never ends)
/// and a link to a file outside the folder are left out and listed; a link
/// to a file inside is read.
#[cfg(unix)]
#[test]
fn special_files_and_links_out_of_the_folder_are_skipped() {
    let base = std::env::temp_dir().join(format!("repoqa-curate-special-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let dir = base.join("repo");
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(dir.join("pkg/a.py"), "x = 1\n").unwrap();
    std::fs::write(base.join("secret.py"), "KEY = 1\n").unwrap();
    let fifo = dir.join("pkg/fifo.py");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", dir.join("pkg/zero.py")).unwrap();
    std::os::unix::fs::symlink(base.join("secret.py"), dir.join("pkg/out.py")).unwrap();
    std::os::unix::fs::symlink(dir.join("pkg/a.py"), dir.join("pkg/in.py")).unwrap();
    std::os::unix::fs::symlink(dir.join("pkg/gone.py"), dir.join("pkg/broken.py")).unwrap();
    let read = read_source_dir_matching(&dir, Language::Python, Some("pkg"), EntryMatch::Directory)
        .unwrap();
    let paths: Vec<&str> = read.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["pkg/a.py", "pkg/in.py"]);
    assert_eq!(read.files[1].bytes, b"x = 1\n");
    let skipped: Vec<(&str, &str)> =
        read.skipped.iter().map(|f| (f.path.as_str(), f.reason)).collect();
    assert_eq!(
        skipped,
        [
            ("pkg/broken.py", "a broken link; not read"),
            ("pkg/fifo.py", "not a regular file (a FIFO, socket or device); not read"),
            ("pkg/out.py", "a link to a file outside the folder; not read"),
            ("pkg/zero.py", "a link to a file outside the folder; not read"),
        ]
    );
    std::fs::remove_dir_all(&base).unwrap();
}

/// Upstream's `path.startswith(entrypoint)` against our directory rule, on
/// the case where they differ: `src/black` next to `src/blackd`.
#[test]
fn entry_match_prefix_takes_siblings_that_share_the_prefix() {
    let mut files = python_repo(14);
    for f in &mut files {
        f.path = f.path.replace("pkg/", "src/black/");
    }
    files.push(SourceFile::new("src/blackd/server.py", b"def serve():\n    return 1\n".to_vec()));
    files.push(SourceFile::new("src/black.py", b"def shim():\n    return 2\n".to_vec()));
    files.push(SourceFile::new("src/other/x.py", b"def x():\n    return 3\n".to_vec()));
    let mut o = opts();
    o.entry = Some("src/black".to_string());
    let none = Descriptions::new();
    let paths = |o: &CurateOptions| -> Vec<String> {
        let r = curate_repo(&files, o, &none).unwrap();
        r.repo.content.keys().cloned().collect()
    };
    assert_eq!(paths(&o), ["src/black/a.py", "src/black/b.py"]);
    o.entry_match = EntryMatch::Prefix;
    assert_eq!(
        paths(&o),
        ["src/black.py", "src/black/a.py", "src/black/b.py", "src/blackd/server.py"]
    );
    let r = curate_repo(&files, &o, &none).unwrap();
    assert_eq!(r.repo.entrypoint_path.as_deref(), Some("src/black"));
    // A trailing "/" makes the prefix a directory again, as in Python.
    o.entry = Some("src/black/".to_string());
    assert_eq!(paths(&o), ["src/black/a.py", "src/black/b.py"]);
    assert_eq!(files::walk_root_of("src/black", EntryMatch::Prefix), "src");
    assert_eq!(files::walk_root_of("black", EntryMatch::Prefix), ".");
    assert_eq!(files::walk_root_of(".", EntryMatch::Prefix), ".");
    assert_eq!(files::walk_root_of("src/black", EntryMatch::Directory), "src/black");
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn entry_match_prefix_reads_the_parent_directory() {
    let dir = std::env::temp_dir().join(format!("repoqa-prefix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (p, t) in [("src/black/a.py", "def a(): pass\n"), ("src/blackd/b.py", "def b(): pass\n")] {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
    let read = |how| -> Vec<String> {
        read_source_dir_matching(&dir, Language::Python, Some("src/black"), how)
            .unwrap()
            .files
            .into_iter()
            .map(|f| f.path)
            .collect()
    };
    assert_eq!(read(EntryMatch::Directory), ["src/black/a.py"]);
    assert_eq!(read(EntryMatch::Prefix), ["src/black/a.py", "src/blackd/b.py"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn content_digest_is_the_corpus_builders_sha1() {
    // hashlib.sha1(b"a.py\0abc\0b/c.py\0\0").hexdigest()
    let mut content = IndexMap::new();
    content.insert("a.py".to_string(), "abc".to_string());
    content.insert("b/c.py".to_string(), String::new());
    assert_eq!(content_digest(&content), "e6920c984966db20493aaacd04d92d13381f964f");
    // No files: the SHA-1 of nothing.
    assert_eq!(content_digest(&IndexMap::new()), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}
