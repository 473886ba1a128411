//! The core's shape, read from its source: its top-level modules (the
//! entries of `src/lib.rs`) import each other without a cycle, so each can
//! be read knowing only what it uses; and no two public types share a
//! name, so a name says which one is meant. Test modules (`#[cfg(test)]`
//! and what follows it in a file) do not count.

use std::collections::{BTreeMap, BTreeSet};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The text before the first `#[cfg(test)]`, without `//` comments.
fn code_before_tests(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The top-level modules a text names through `crate::X` (also in
/// `crate::{X, Y::…}` groups).
fn crate_modules(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            found.extend(group.split(',').map(ident).filter(|m| !m.is_empty()));
        } else {
            let m = ident(rest);
            if !m.is_empty() {
                found.insert(m);
            }
        }
    }
    found
}

/// Top-level module → the other top-level modules it imports.
fn graph(files: &[(String, String)]) -> Graph {
    let mut g = Graph::new();
    for (rel, text) in files {
        let top = rel.split('/').next().unwrap_or("").trim_end_matches(".rs").to_string();
        if top == "lib" {
            continue;
        }
        let uses = crate_modules(&code_before_tests(text));
        let entry = g.entry(top.clone()).or_default();
        entry.extend(uses.into_iter().filter(|m| *m != top));
    }
    g
}

/// A cycle of modules, if there is one.
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut cycle = path[i..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in g.get(node).into_iter().flatten() {
            if let Some(c) = visit(g, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|n| visit(g, n, &mut Vec::new(), &mut done))
}

fn core_files() -> Vec<(String, String)> {
    let src = repoqa_testkit::root().join("crates/repoqa/src");
    repoqa_testkit::rust_files(&src)
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.strip_prefix(&src).unwrap_or(&p).display().to_string(), text)
        })
        .collect()
}

#[test]
fn core_modules_import_each_other_without_a_cycle() {
    let files = core_files();
    let g = graph(&files);
    // The reader saw the stages: each imports the one below it.
    let edge = |a: &str, b: &str| g.get(a).is_some_and(|uses| uses.contains(b));
    assert!(g.len() > 10, "{g:?}");
    for (a, b) in
        [("review", "scoring"), ("prompt", "scoring"), ("scoring", "report"), ("input", "code")]
    {
        assert!(edge(a, b), "{a} -> {b} not seen: {g:?}");
    }
    if let Some(cycle) = find_cycle(&g) {
        panic!("the core's modules import each other in a circle: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let files = vec![
        ("a.rs".to_string(), "use crate::{b::X, c};\n".to_string()),
        ("b/mod.rs".to_string(), "fn f() { crate::c::g() }\n".to_string()),
        ("c.rs".to_string(), "// crate::a in a comment\n#[cfg(test)]\nuse crate::a;\n".to_string()),
    ];
    assert_eq!(find_cycle(&graph(&files)), None);
    let mut with_cycle = files.clone();
    with_cycle.push(("c/extra.rs".to_string(), "use crate::a::Y;\n".to_string()));
    assert_eq!(
        find_cycle(&graph(&with_cycle)),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

#[test]
fn no_two_public_types_share_a_name() {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (rel, text) in core_files() {
        for line in code_before_tests(&text).lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if let ["pub", "struct" | "enum" | "type" | "trait", name, ..] = words.as_slice() {
                let name: String =
                    name.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                seen.entry(name).or_default().push(rel.clone());
            }
        }
    }
    assert!(seen.len() > 50, "public types not found: {}", seen.len());
    let shared: Vec<String> = seen
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(name, files)| format!("{name}: {}", files.join(", ")))
        .collect();
    assert!(shared.is_empty(), "public types with the same name:\n{}", shared.join("\n"));
}

/// Every public `…Error` enum of the core converts into `repoqa::Error`
/// (`#[from]`) and is in `for_each_error_type!`, the list the fronts convert
/// from: a new error type cannot be forgotten by one front only.
#[test]
fn every_core_error_type_converts_into_the_core_error() {
    let files = core_files();
    let error_rs = &files.iter().find(|(rel, _)| rel == "error.rs").expect("error.rs").1;
    let (enum_part, macro_part) =
        error_rs.split_once("macro_rules!").expect("for_each_error_type! in error.rs");
    let mut found = 0;
    for (rel, text) in &files {
        for line in code_before_tests(text).lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if let ["pub", "enum", name, ..] = words.as_slice() {
                let name: String =
                    name.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.ends_with("Error") || name == "Error" {
                    continue;
                }
                found += 1;
                let from = format!("::{name})");
                assert!(
                    enum_part.contains(&from),
                    "{name} ({rel}) has no #[from] variant in repoqa::Error"
                );
                assert!(
                    macro_part.contains(&format!("::{name},"))
                        || macro_part.contains(&format!("::{name}\n")),
                    "{name} ({rel}) is missing from for_each_error_type!"
                );
            }
        }
    }
    assert!(found >= 16, "error enums found: {found}");
}
