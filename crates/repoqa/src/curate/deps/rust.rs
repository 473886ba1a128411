//! Rust: `mod x;` declarations, `crate::` / `super::` / `self::` paths and
//! groups (`crate::a::{b, c as d}`), each resolved to the longest module
//! prefix that is a file of the content (`a/mod.rs`, `a.rs`, `lib.rs` for
//! the crate root). Found in that order: module declarations, then groups,
//! then paths.

use std::collections::HashMap;
use std::sync::OnceLock;

use indexmap::IndexMap;
use regex::Regex;

use super::{compile, pattern, relpath, Dependency, Uniq, PY_SPACE};

type ModPath = Vec<String>;

fn path_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    pattern(&RE, r"\b(crate|super|self)((?:::\w+)+)")
}

fn group_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    pattern(&RE, r"\b(crate|super|self)((?:::\w+)*)::\{([^{}]*)\}")
}

fn mod_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        compile(
            &r"(?m)^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;"
                .replace(r"\s", PY_SPACE),
        )
    })
}

pub(super) fn deps(content: &IndexMap<String, String>, entry: &str) -> Dependency {
    let src = if entry == "." { "" } else { entry };
    let mut mod2path: HashMap<ModPath, &str> = HashMap::new();
    let mut path2mod: HashMap<&str, ModPath> = HashMap::new();
    for path in content.keys() {
        let rel = if src.is_empty() { path.clone() } else { relpath(path, src) };
        let stem = rel.strip_suffix(".rs").unwrap_or(&rel);
        let mut parts: ModPath = stem.split('/').map(str::to_string).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            parts.pop();
        }
        mod2path.entry(parts.clone()).or_insert(path.as_str());
        path2mod.insert(path.as_str(), parts);
    }
    let resolve = |base: &[String], comps: &[&str]| -> Option<&str> {
        let comps: Vec<&str> = comps.iter().copied().filter(|c| !c.is_empty()).collect();
        (0..=comps.len()).rev().find_map(|k| {
            let mut cand: ModPath = base.to_vec();
            cand.extend(comps[..k].iter().map(|s| s.to_string()));
            mod2path.get(&cand).copied()
        })
    };
    let base_of = |kw: &str, module: &[String]| -> ModPath {
        match kw {
            "crate" => Vec::new(),
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            _ => module.to_vec(),
        }
    };

    let mut out = Dependency::new();
    for (path, text) in content {
        let module = &path2mod[path.as_str()];
        let mut found = Uniq::default();
        for c in mod_re().captures_iter(text) {
            let mut cand = module.clone();
            cand.push(c[1].to_string());
            found.push(mod2path.get(&cand).copied(), path);
        }
        for c in group_re().captures_iter(text) {
            let head: Vec<&str> = c[2].split("::").collect();
            let base = base_of(&c[1], module);
            for item in c[3].split(',') {
                let item = py_strip(item);
                let item = item.split(" as ").next().unwrap_or(item);
                let mut comps = head.clone();
                comps.extend(item.split("::"));
                found.push(resolve(&base, &comps), path);
            }
        }
        for c in path_re().captures_iter(text) {
            let comps: Vec<&str> = c[2].split("::").collect();
            found.push(resolve(&base_of(&c[1], module), &comps), path);
        }
        out.insert(path.clone(), found.into_vec());
    }
    out
}

/// Python's `str.strip()`: Unicode whitespace plus \x1c-\x1f.
pub(super) fn py_strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_groups_and_paths() {
        let content: IndexMap<String, String> = [
            ("src/lib.rs", "pub mod a;\n#[cfg(test)]\nmod b;\nuse crate::a::{x, b::Y as Z};\n"),
            (
                "src/a/mod.rs",
                "mod inner;\nuse super::b;\nfn f() { self::inner::g(); crate::b::h(); }\n",
            ),
            ("src/a/inner.rs", "use super::super::b::*;\n"),
            ("src/b.rs", "use crate::{a, b};"),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
        let d = deps(&content, "src");
        assert_eq!(d["src/lib.rs"], ["src/a/mod.rs", "src/b.rs"]);
        assert_eq!(d["src/a/mod.rs"], ["src/a/inner.rs", "src/b.rs"]);
        // `super::super::b` reads as `super` + path [super, b]: the builder's rule.
        assert_eq!(d["src/a/inner.rs"], ["src/a/mod.rs"]);
        assert_eq!(d["src/b.rs"], ["src/a/mod.rs"]);
    }
}
