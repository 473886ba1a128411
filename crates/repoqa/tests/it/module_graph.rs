//! The core's shape, read from its source: its modules import each other
//! without a cycle — the top-level modules (the entries of `src/lib.rs`),
//! and inside every module that is a folder, its children and the folder's
//! own `mod.rs` — so each can be read knowing only what it uses; and no two
//! public types share a name, so a name says which one is meant. Paths are
//! resolved as the compiler does: `crate::…`, `super::…` (from the file's
//! place), `self::…`, groups `{a, b::c}`, and a name `lib.rs` re-exports
//! (`crate::Error` is `error`'s). A folder's `mod.rs` re-exporting its
//! children (`pub use child::X`) is its facade, not an import. Test modules
//! (`#[cfg(test)]` and what follows it in a file) do not count.

use std::collections::{BTreeMap, BTreeSet};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The text before the first `#[cfg(test)]`, without `//` comments.
fn code_before_tests(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths in `rest` after a `::` (a path, or a `{…}` group of paths),
/// each as its segments.
fn paths_after(rest: &str) -> Vec<Vec<String>> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        // Split the group at its top-level commas.
        let (mut depth, mut items, mut cur) = (0usize, Vec::new(), String::new());
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        items.push(cur);
        return items.iter().flat_map(|item| one_path(item.trim(), Vec::new())).collect();
    }
    one_path(rest, vec![Vec::new()])
}

/// The paths of `text` that starts with a name (`a`, `a::b`, `a::{b, c}`);
/// `bare` when it does not start with one.
fn one_path(text: &str, bare: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let head: String = text.chars().take_while(|c| is_ident(*c)).collect();
    if head.is_empty() {
        return bare;
    }
    match text[head.len()..].strip_prefix("::") {
        Some(more) => paths_after(more)
            .into_iter()
            .map(|mut p| {
                p.insert(0, head.clone());
                p
            })
            .collect(),
        None => vec![vec![head]],
    }
}

/// The module path of a file under `src/`: `llm/wire/reply.rs` is
/// `[llm, wire, reply]`, `llm/mod.rs` is `[llm]`, `lib.rs` is `[]`.
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.trim_end_matches(".rs");
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    if stem == "lib" || stem == "mod" {
        return Vec::new();
    }
    stem.split('/').map(str::to_string).collect()
}

/// Every absolute module path `code` (in the module `here`) names through
/// `crate::`, `super::` or `self::`.
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for prefix in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(prefix) {
            // A whole word: not `my_crate::` or the second `super::` of `super::super::`.
            if at > 0 && (is_ident(bytes[at - 1] as char) || code[..at].ends_with("::")) {
                continue;
            }
            let mut base: Vec<String> = match prefix {
                "crate::" => Vec::new(),
                "self::" => here.to_vec(),
                _ => here[..here.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = &code[at + prefix.len()..];
            while let Some(more) = rest.strip_prefix("super::") {
                base.pop();
                rest = more;
            }
            for p in paths_after(rest) {
                let mut full = base.clone();
                full.extend(p);
                out.push(full);
            }
        }
    }
    out
}

/// The folders that are modules (`x/mod.rs`) and their children's names.
fn folders(files: &[(String, String)]) -> BTreeMap<Vec<String>, BTreeSet<String>> {
    let mut out: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for (rel, _) in files {
        if rel.ends_with("/mod.rs") {
            out.entry(module_of(rel)).or_default();
        }
    }
    for (rel, _) in files {
        let m = module_of(rel);
        if let Some((last, parent)) = m.split_last() {
            if let Some(children) = out.get_mut(parent) {
                children.insert(last.clone());
            }
        }
    }
    out
}

/// The names `lib.rs` re-exports (`pub use error::Error;`) and their module.
fn reexports(files: &[(String, String)]) -> BTreeMap<String, String> {
    let lib = files.iter().find(|(rel, _)| rel == "lib.rs").map(|(_, t)| code_before_tests(t));
    let mut out = BTreeMap::new();
    for line in lib.unwrap_or_default().lines() {
        if let Some(path) = line.trim().strip_prefix("pub use ") {
            for p in paths_after(path.trim_end_matches(';')) {
                if let (Some(first), Some(last)) = (p.first(), p.last()) {
                    out.insert(last.clone(), first.clone());
                }
            }
        }
    }
    out
}

/// The modules declared only for tests (`#[cfg(test)] mod tests;`): their
/// files are tests, not the module's code.
fn test_modules(files: &[(String, String)]) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for (rel, text) in files {
        let here = module_of(rel);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for w in lines.windows(2) {
            if w[0] == "#[cfg(test)]" {
                if let Some(name) = w[1].strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
                    let mut m = here.clone();
                    m.push(name.to_string());
                    out.insert(m);
                }
            }
        }
    }
    out
}

/// The module graphs: `""` → the top-level modules' graph; a folder's
/// path (`"llm"`, `"llm::wire"`) → the graph of its children and its
/// `mod.rs` (the node named as the folder).
fn graphs(files: &[(String, String)]) -> BTreeMap<String, Graph> {
    let folders = folders(files);
    let reexported = reexports(files);
    let tops: BTreeSet<String> =
        files.iter().filter_map(|(rel, _)| module_of(rel).first().cloned()).collect();
    let tests = test_modules(files);
    let mut out: BTreeMap<String, Graph> = BTreeMap::new();
    for (rel, text) in files {
        let here = module_of(rel);
        let Some(top) = here.first() else { continue };
        if tests.contains(&here) {
            continue;
        }
        let code = code_before_tests(text);
        let is_facade = rel.ends_with("/mod.rs");
        // Top level: every path's first segment (a re-exported name is its module's).
        let mut uses = BTreeSet::new();
        for p in named_paths(&code, &here) {
            let Some(first) = p.first() else { continue };
            let m = reexported.get(first).unwrap_or(first);
            if tops.contains(m) && m != top {
                uses.insert(m.clone());
            }
        }
        out.entry(String::new()).or_default().entry(top.clone()).or_default().extend(uses);
        // Each folder the file is in (or whose mod.rs it is).
        for (folder, children) in &folders {
            if !here.starts_with(folder) {
                continue;
            }
            let name = folder.join("::");
            let node_of = |p: &[String]| -> Option<String> {
                if !p.starts_with(folder) {
                    return None;
                }
                Some(match p.get(folder.len()) {
                    Some(c) if children.contains(c) => format!("{name}::{c}"),
                    _ => name.clone(),
                })
            };
            let Some(me) = node_of(&here) else { continue };
            let facade = is_facade && me == name;
            let g = out.entry(name.clone()).or_default();
            let mut edges = BTreeSet::new();
            for line in code.lines() {
                let t = line.trim_start();
                if facade && (t.starts_with("pub use ") || t.starts_with("pub(crate) use ")) {
                    continue;
                }
                for p in named_paths(line, &here) {
                    if let Some(n) = node_of(&p).filter(|n| *n != me) {
                        edges.insert(n);
                    }
                }
            }
            g.entry(me).or_default().extend(edges);
        }
    }
    out
}

/// The top-level graph alone.
fn graph(files: &[(String, String)]) -> Graph {
    graphs(files).remove("").unwrap_or_default()
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
    let all = graphs(&files);
    let g = &all[""];
    // The reader saw the stages: each imports the one below it.
    let edge = |g: &Graph, a: &str, b: &str| g.get(a).is_some_and(|uses| uses.contains(b));
    assert!(g.len() > 10, "{g:?}");
    for (a, b) in
        [("review", "scoring"), ("prompt", "scoring"), ("scoring", "report"), ("input", "code")]
    {
        assert!(edge(g, a, b), "{a} -> {b} not seen: {g:?}");
    }
    // … `crate::Error` as error's, and the folders' insides.
    assert!(edge(g, "engine", "error"), "engine -> error (crate::Error) not seen");
    assert!(edge(&all["llm"], "llm::run", "llm::wire"), "llm::run -> llm::wire not seen");
    assert!(all.contains_key("llm::wire") && all.contains_key("coreqa"), "{:?}", all.keys());
    let cycles: Vec<String> = all
        .iter()
        .filter_map(|(name, g)| {
            let c = find_cycle(g)?;
            Some(format!("{}: {}", if name.is_empty() { "crate" } else { name }, c.join(" -> ")))
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "the core's modules import each other in a circle:\n{}",
        cycles.join("\n")
    );
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
    // A name lib.rs re-exports is its module's: `crate::Error` is error's.
    let planted = vec![
        (
            "lib.rs".to_string(),
            "pub mod engine;\npub mod error;\npub use error::Error;\n".to_string(),
        ),
        ("engine.rs".to_string(), "fn f() -> crate::Error { todo!() }\n".to_string()),
        ("error.rs".to_string(), "pub enum Error { E(crate::engine::E) }\n".to_string()),
    ];
    assert_eq!(
        find_cycle(&graph(&planted)),
        Some(vec!["engine".into(), "error".into(), "engine".into()])
    );
    // Inside a folder: a child that uses its mod.rs's items while the
    // mod.rs's own code uses the child (super::, nested groups); the
    // mod.rs's re-exports are its facade and make no edge.
    let folder = |mod_rs: &str| {
        vec![
            ("llm/mod.rs".to_string(), mod_rs.to_string()),
            (
                "llm/wire/mod.rs".to_string(),
                "use super::HttpRequest;\n#[cfg(test)]\nmod tests;\n".to_string(),
            ),
            (
                "llm/wire/reply.rs".to_string(),
                "use super::super::{plan::{thousands}, x};\n".to_string(),
            ),
            ("llm/plan.rs".to_string(), "pub fn thousands() {}\n".to_string()),
            // A test module's file is not the folder's code.
            ("llm/wire/tests.rs".to_string(), "use crate::llm::HttpRequest;\n".to_string()),
        ]
    };
    let g = graphs(&folder(
        "pub mod plan;\npub mod wire;\npub use wire::Endpoint;\npub struct HttpRequest;\n",
    ));
    assert_eq!(find_cycle(&g["llm"]), None, "{:?}", g["llm"]);
    assert!(g["llm"]["llm::wire"].contains("llm::plan"), "{:?}", g["llm"]);
    let g = graphs(&folder(
        "pub mod wire;\npub struct HttpRequest;\nfn f() { wire::g(); self::wire::h() }\n",
    ));
    assert_eq!(find_cycle(&g["llm"]), Some(vec!["llm".into(), "llm::wire".into(), "llm".into()]));
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

/// The core's own code (tests aside) that touches files or the
/// environment: `std::fs`, `std::env::var`, `File::open`.
fn io_in(files: &[(String, String)]) -> BTreeSet<String> {
    let tests = test_modules(files);
    files
        .iter()
        .filter(|(rel, _)| !tests.contains(&module_of(rel)))
        .filter(|(_, text)| {
            let code = code_before_tests(text);
            ["std::fs", "env::var", "File::open"].iter().any(|p| code.contains(p))
        })
        .map(|(rel, _)| rel.clone())
        .collect()
}

/// ARCHITECTURE.md, "No I/O in the core": the fronts read, the core is given
/// bytes. `input/input_file.rs` is the one native-only helper the CLI reads
/// inputs with; `curate/mod.rs`'s folder walk is the last to move to the CLI
/// (issue 81, slice f). A new file here that reads files or the environment
/// fails this test.
#[test]
fn the_core_reads_no_file_and_no_environment() {
    let found = io_in(&core_files());
    let allowed: BTreeSet<String> =
        ["input/input_file.rs", "curate/mod.rs"].iter().map(|s| s.to_string()).collect();
    assert_eq!(found, allowed, "the core's code that reads files or the environment");
    // The check sees a planted read.
    let planted = vec![(
        "prompt/planted.rs".to_string(),
        "pub fn f() -> String { std::env::var(\"X\").unwrap_or_default() }\n".to_string(),
    )];
    assert_eq!(io_in(&planted), BTreeSet::from(["prompt/planted.rs".to_string()]));
}
