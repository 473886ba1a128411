//! The UI's floors (see `src/ui/mod.rs`): every module of `src/ui` may use
//! only modules of its own floor or below, and the modules do not import
//! each other in a cycle. This reads the `crate::ui::…`, `super::…` and
//! `self::…` paths of each file (imports and inline paths alike) and fails
//! with the offending paths.
//!
//! And the fronts' boundary: the web app (`src/`) and the CLI
//! (`crates/repoqa-cli/src`) reach the core (`crates/repoqa`) only through
//! its public API — no `#[path]` or `include!` of source files, no copied
//! stretch of a core module — and the core's manifest names no front's
//! dependency.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The floor of a module, by its first path segment under `ui`.
fn floor(module: &[String]) -> usize {
    match module.first().map(String::as_str) {
        None => 7,
        Some("error" | "format") => 0,
        Some("browser") => 1,
        Some("storage") => 2,
        Some("state") => 3,
        Some("jobs") => 4,
        Some("components") => 5,
        Some("pages") => 6,
        Some(other) => panic!("src/ui/{other}: not on any floor; add it to tests/ui_layers.rs"),
    }
}

/// Module path of a file under `src/ui` (`jobs/mod.rs` → `jobs`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The text without comments and string literals (paths in them are not
/// imports).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path starting with `crate::ui::`, `super::` or `self::`, as
/// segments; `a::{b, c::d}` groups are expanded.
fn paths(code: &str, root: &[&str]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let boundary = i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':');
        if boundary && is_ident(chars[i]) {
            let (segs, end) = read_path(&chars, i);
            let head = segs.first().map(|s| s.as_str());
            let rooted = matches!(head, Some("super" | "self"))
                || (segs.len() > root.len()
                    && segs[0] == "crate"
                    && segs[1..=root.len()].iter().zip(root).all(|(a, b)| a == b));
            if rooted && segs.len() > 1 {
                if chars.get(end) == Some(&'{') {
                    let close = (end..chars.len()).find(|&k| chars[k] == '}').unwrap_or(end);
                    let inner: String = chars[end + 1..close].iter().collect();
                    for item in inner.split(',') {
                        let item = item.trim();
                        let item = item.split(" as ").next().unwrap_or("").trim();
                        if item.is_empty() || item == "self" {
                            found.push(segs.clone());
                            continue;
                        }
                        let mut full = segs.clone();
                        full.extend(item.split("::").map(|s| s.trim().to_string()));
                        found.push(full);
                    }
                    i = close + 1;
                    continue;
                }
                found.push(segs);
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
}

/// The `a::b::c` path starting at `i`, and where it ends (after a
/// trailing `::` when a `{` group follows).
fn read_path(chars: &[char], mut i: usize) -> (Vec<String>, usize) {
    let mut segs = Vec::new();
    loop {
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        segs.push(chars[start..i].iter().collect::<String>());
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            i += 2;
            if chars.get(i).is_some_and(|&c| is_ident(c)) {
                continue;
            }
        }
        return (segs, i);
    }
}

/// The module a path points into: the longest known module prefix of its
/// absolute form (segments under `ui`).
fn resolve(
    from: &[String],
    is_mod_rs: bool,
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    root: &[&str],
) -> Option<Vec<String>> {
    // `self` of a mod.rs is its directory module; of a file, the file's module.
    let mut base: Vec<String> = from.to_vec();
    let mut rest = path;
    if rest.first().map(String::as_str) == Some("crate") {
        // `crate::` and the tree's own root (`ui` for src/ui).
        base.clear();
        rest = &rest[1..];
        for seg in root {
            match rest.first() {
                Some(r) if r == seg => rest = &rest[1..],
                _ => return None,
            }
        }
    } else {
        let _ = is_mod_rs;
        while let Some(head) = rest.first() {
            match head.as_str() {
                "self" => rest = &rest[1..],
                "super" => {
                    base.pop()?;
                    rest = &rest[1..];
                }
                _ => break,
            }
        }
    }
    let mut abs = base;
    abs.extend(rest.iter().cloned());
    (0..=abs.len()).rev().map(|n| abs[..n].to_vec()).find(|m| modules.contains(m))
}

type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// (edges between modules, upward imports found).
fn check(files: &[(Vec<String>, bool, String)]) -> (Graph, Vec<String>) {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.0.clone()).collect();
    let mut graph = Graph::new();
    let mut upward = Vec::new();
    for (module, is_mod_rs, text) in files {
        let code = code_only(text);
        for p in paths(&code, &["ui"]) {
            let Some(target) = resolve(module, *is_mod_rs, &p, &modules, &["ui"]) else { continue };
            if &target == module {
                continue;
            }
            if floor(&target) > floor(module) {
                upward.push(format!(
                    "ui::{} (floor {}) uses {} in ui::{} (floor {})",
                    module.join("::"),
                    floor(module),
                    p.join("::"),
                    target.join("::"),
                    floor(&target)
                ));
            }
            graph.entry(module.clone()).or_default().insert(target);
        }
    }
    (graph, upward)
}

/// A cycle in `graph`, if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<Vec<String>>> {
    fn visit(
        n: &Vec<String>,
        graph: &Graph,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let at = stack.iter().position(|m| m == n).unwrap_or(0);
                let mut cycle = stack[at..].to_vec();
                cycle.push(n.clone());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

fn load_ui() -> Vec<(Vec<String>, bool, String)> {
    load_tree("src/ui")
}

/// Each Rust file under `dir` (from the workspace root) as (its module
/// path under `dir`, whether it is a mod.rs, its text).
fn load_tree(dir: &str) -> Vec<(Vec<String>, bool, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    repoqa_testkit::rust_files(&root)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).unwrap_or(&p).to_path_buf();
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (module_of(&rel), rel.ends_with("mod.rs"), text)
        })
        .collect()
}

#[test]
fn ui_imports_point_down_and_have_no_cycle() {
    let files = load_ui();
    assert!(files.len() > 20, "src/ui not found or nearly empty");
    let (graph, upward) = check(&files);
    assert!(upward.is_empty(), "imports that point up a floor:\n{}", upward.join("\n"));
    if let Some(cycle) = find_cycle(&graph) {
        let names: Vec<String> = cycle.iter().map(|m| format!("ui::{}", m.join("::"))).collect();
        panic!("import cycle in src/ui: {}", names.join(" → "));
    }
}

/// The CLI's modules (`crates/repoqa-cli/src`, each file a module of the
/// crate root): their imports of each other form no cycle.
#[test]
fn cli_modules_import_each_other_without_a_cycle() {
    let files = load_tree("crates/repoqa-cli/src");
    assert!(files.len() > 20, "crates/repoqa-cli/src not found or nearly empty");
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.0.clone()).collect();
    let mut graph = Graph::new();
    for (module, is_mod_rs, text) in &files {
        for p in paths(&code_only(text), &[]) {
            if let Some(target) = resolve(module, *is_mod_rs, &p, &modules, &[]) {
                if &target != module {
                    graph.entry(module.clone()).or_default().insert(target);
                }
            }
        }
    }
    assert!(
        graph.values().map(BTreeSet::len).sum::<usize>() > 20,
        "too few imports seen: {graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
        panic!("import cycle in the CLI: {}", names.join(" → "));
    }
}

#[test]
fn the_check_sees_cycles_and_upward_imports() {
    let f = |m: &str, text: &str| {
        let module: Vec<String> =
            m.split('/').filter(|s| !s.is_empty()).map(String::from).collect();
        (module, false, text.to_string())
    };
    let files = vec![
        f("jobs", "pub mod a; pub mod b;"),
        f("jobs/a", "use super::b::{x, y as z};\nfn g() { super::b::x(); }"),
        f("jobs/b", "use super::a::f; // use crate::ui::pages::p;\nlet s = \"crate::ui::pages\";"),
        f("state", "use crate::ui::jobs::Runner;"),
        f("pages", ""),
    ];
    let (graph, upward) = check(&files);
    assert_eq!(upward.len(), 1, "{upward:?}");
    assert!(upward[0].contains("ui::state (floor 3) uses crate::ui::jobs::Runner"));
    let cycle = find_cycle(&graph).expect("the a ↔ b cycle");
    assert!(cycle.len() == 3, "{cycle:?}");
}

/// A file's code lines for comparing: comments and string contents gone,
/// trimmed, and only lines with some substance (not `}` or `)`).
fn code_lines(text: &str) -> Vec<String> {
    code_only(text)
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| l.chars().filter(|c| is_ident(*c)).count() >= 3)
        .collect()
}

/// Runs of this many consecutive code lines shared with a core file count
/// as a copied module.
const COPY_RUN: usize = 10;

/// What in `fronts` (path, text) reaches into `core` (path, text) other than
/// through its public API: a `#[path]` attribute or an `include!` of source,
/// or a run of `COPY_RUN` code lines that a core file also has.
fn boundary_breaches(fronts: &[(String, String)], core: &[(String, String)]) -> Vec<String> {
    use std::collections::HashMap;
    let mut runs: HashMap<Vec<String>, &str> = HashMap::new();
    for (path, text) in core {
        for w in code_lines(text).windows(COPY_RUN) {
            runs.entry(w.to_vec()).or_insert(path);
        }
    }
    let mut found = Vec::new();
    for (path, text) in fronts {
        let code: String = code_only(text).split_whitespace().collect();
        if code.contains("#[path=") {
            found.push(format!("{path}: a #[path] attribute (use the core through `repoqa::`)"));
        }
        if code.contains("include!(") {
            found.push(format!("{path}: include! of source (use the core through `repoqa::`)"));
        }
        let lines = code_lines(text);
        if let Some((i, from)) =
            lines.windows(COPY_RUN).enumerate().find_map(|(i, w)| runs.get(w).map(|f| (i, *f)))
        {
            found.push(format!(
                "{path}: {COPY_RUN} code lines from `{}` on are a copy of {from}",
                lines[i]
            ));
        }
    }
    found
}

fn read_tree(dir: &Path) -> Vec<(String, String)> {
    let root = repoqa_testkit::root();
    repoqa_testkit::rust_files(&root.join(dir))
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.strip_prefix(&root).unwrap_or(&p).display().to_string(), text)
        })
        .collect()
}

#[test]
fn fronts_reach_the_core_only_through_its_public_api() {
    let core = read_tree(Path::new("crates/repoqa/src"));
    let mut fronts = read_tree(Path::new("src"));
    fronts.extend(read_tree(Path::new("crates/repoqa-cli/src")));
    assert!(core.len() > 30 && fronts.len() > 40, "the core or the fronts not found");
    let breaches = boundary_breaches(&fronts, &core);
    assert!(breaches.is_empty(), "the fronts reach into the core:\n{}", breaches.join("\n"));
}

#[test]
fn the_boundary_check_sees_includes_and_copies() {
    let body: String =
        (0..12).map(|i| format!("    let value_{i} = compute(input, {i});\n")).collect();
    let core = vec![("core/a.rs".to_string(), format!("pub fn f() {{\n{body}}}\n"))];
    let fronts = vec![
        (
            "ok.rs".to_string(),
            "use repoqa::a::f;\n// #[path = \"x.rs\"]\nfn g() { f() }\n".to_string(),
        ),
        ("path.rs".to_string(), "#[path = \"../../crates/repoqa/src/a.rs\"]\nmod a;\n".to_string()),
        ("incl.rs".to_string(), "include!(\"../core/a.rs\");\n".to_string()),
        (
            "copy.rs".to_string(),
            format!("fn h() {{\n  // copied\n{}}}\n", body.replace("    ", "\t")),
        ),
    ];
    let found = boundary_breaches(&fronts, &core);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(found[0].starts_with("path.rs: a #[path]"), "{found:#?}");
    assert!(found[1].starts_with("incl.rs: include!"), "{found:#?}");
    assert!(
        found[2].starts_with("copy.rs: 10 code lines") && found[2].ends_with("copy of core/a.rs")
    );
}

/// The dependencies (not dev-dependencies) a manifest's text names.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line.ends_with("dependencies]") && !line.ends_with("dev-dependencies]");
        } else if in_deps && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                names.push(name.trim().to_string());
            }
        }
    }
    names
}

#[test]
fn the_core_names_no_front_dependency() {
    let path = repoqa_testkit::root().join("crates/repoqa/Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let deps = dependencies(&text);
    assert!(
        deps.iter().any(|d| d == "tree-sitter") && deps.iter().any(|d| d == "pxfm"),
        "{deps:?}"
    );
    let front = ["clap", "ureq", "leptos", "web-sys", "gloo-net", "js-sys", "wasm-bindgen"];
    // Only clap may be named, optional, behind the `cli` feature: it derives
    // `ValueEnum` on the core's option enums for the CLI (issue 34), and the
    // page and a plain build of the core never compile it.
    let optional_clap =
        text.lines().any(|l| l.starts_with("clap =") && l.contains("optional = true"))
            && text.contains("cli = [\"dep:clap\"]");
    let named: Vec<&String> = deps
        .iter()
        .filter(|d| front.contains(&d.as_str()))
        .filter(|d| !(d.as_str() == "clap" && optional_clap))
        .collect();
    assert!(named.is_empty(), "crates/repoqa/Cargo.toml names front dependencies: {named:?}");
}

/// The core's context-building internals a front must not use: every
/// front builds tasks through `repoqa::api::build::BuildPlan` (its `check`,
/// `build` and `shares`; `BuildSettings::builder` for a single task), so
/// one set of settings makes one set of tasks whichever front asks. The compiler
/// enforces it: these are `pub(crate)` unless the core's `internals`
/// feature is on, which only the core's own tests turn on (they set the
/// non-official options `strip_nul` and `fix_suffix_cleaning`; see
/// `no_front_turns_on_the_core_internals`). This check stays for the test
/// builds, where cargo unifies that feature into every crate's build.
const BUILD_INTERNALS: [&str; 6] = [
    "ContextOptions",
    "ContextBuilder",
    "build_tasks",
    "build_tasks_threaded",
    "task_specs",
    "repo_shares",
];

/// The names a text takes from `repoqa::prompt::context`
/// (`repoqa::prompt::context::X` and `context::X` paths and `{…}` groups, comments and strings left out).
fn context_names(text: &str) -> Vec<String> {
    let mut code = code_only(text).split_whitespace().collect::<Vec<_>>().join(" ");
    for (spaced, tight) in [(" :", ":"), (": ", ":"), (" {", "{"), ("{ ", "{"), (" }", "}")] {
        code = code.replace(spaced, tight);
    }
    code = code.replace(", ", ",").replace(" ,", ",");
    let mut names = Vec::new();
    for (at, _) in code.match_indices("context::") {
        // `context::X` after `use repoqa::prompt::context;` too; not `use_context::`.
        let before = code[..at].chars().next_back();
        let in_prompt = code[..at].ends_with("repoqa::prompt::");
        if before.is_some_and(|c| is_ident(c) || (c == ':' && !in_prompt)) {
            continue;
        }
        let rest = &code[at + "context::".len()..];
        let group = match rest.strip_prefix('{') {
            Some(g) => &g[..g.find('}').unwrap_or(g.len())],
            None => &rest[..rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len())],
        };
        for item in group.split(',') {
            let name = item.split(" as ").next().unwrap_or("").split("::").next().unwrap_or("");
            if !name.is_empty() {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Only the core's own dev-dependency on itself may turn on `internals`:
/// a front's manifest or a script that did would undo the visibility the
/// feature guards.
#[test]
fn no_front_turns_on_the_core_internals() {
    let root = repoqa_testkit::root();
    let read = |path: &Path| {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let mut found = Vec::new();
    for path in ["Cargo.toml", "crates/repoqa-cli/Cargo.toml", "crates/repoqa-testkit/Cargo.toml"] {
        if read(&root.join(path)).contains("internals") {
            found.push(path.to_string());
        }
    }
    let mut scripts = vec![root.join(".ci/run")];
    for entry in std::fs::read_dir(root.join("scripts")).expect("scripts/").flatten() {
        scripts.push(entry.path());
    }
    for path in scripts.iter().filter(|p| p.is_file()) {
        let text = read(path);
        if text.contains("repoqa/internals") || text.contains("--all-features") {
            found.push(path.display().to_string());
        }
    }
    assert!(scripts.len() > 5, "scripts/ not found");
    assert!(found.is_empty(), "these turn on the core's `internals` feature: {found:?}");
    let core = read(&root.join("crates/repoqa/Cargo.toml"));
    assert!(
        core.contains("repoqa = { path = \".\", features = [\"internals\"] }"),
        "the core's tests no longer build with `internals`: parity tests would not compile"
    );
}

#[test]
fn fronts_build_tasks_only_through_the_build_settings() {
    let mut fronts = read_tree(Path::new("src"));
    fronts.extend(read_tree(Path::new("crates/repoqa-cli/src")));
    let mut found = Vec::new();
    for (path, text) in &fronts {
        for name in context_names(text) {
            if BUILD_INTERNALS.contains(&name.as_str()) {
                found.push(format!("{path}: repoqa::prompt::context::{name}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "build tasks through repoqa::prompt::settings::BuildSettings instead:\n{}",
        found.join("\n")
    );
    // The check itself sees both forms.
    let sample = "use repoqa::prompt::context::{self, ContextOptions as O,\n  Task};\n\
                  let t = repoqa::prompt::context::build_tasks_threaded(d);\n\
                  let s = context::task_specs(d); let c = expect_context::<X>();\n\
                  // repoqa::prompt::context::task_specs in a comment is no use\n";
    assert_eq!(
        context_names(sample),
        ["self", "ContextOptions", "Task", "build_tasks_threaded", "task_specs"]
    );
}
