//! Step 2 of curation: the repo's `dependency` map, {file: [files it
//! imports]}, one analysis per language. The rules are those of the corpus
//! builder (tests/corpus/build.py), which the parity test compares with on
//! every corpus repo: keys in content order, values in first-seen order
//! without duplicates or the file itself. Python reads the syntax tree;
//! the other languages scan the text with the builder's patterns.

mod cpp;
mod go;
mod java;
mod python;
mod rust;
mod typescript;

use std::collections::HashSet;
use std::sync::OnceLock;

use indexmap::IndexMap;
use regex::Regex;

use super::{CurateError, CurateWarning};
use crate::code::lang::Language;

pub type Dependency = IndexMap<String, Vec<String>>;

/// The dependency map of `content` (its keys in order). `entry` is the
/// normalized entry directory (`"."` for the root).
pub(crate) fn analyze(
    language: Language,
    content: &IndexMap<String, String>,
    entry: &str,
    warnings: &mut Vec<CurateWarning>,
) -> Result<Dependency, CurateError> {
    Ok(match language {
        Language::Python => python::deps(content, entry, warnings)?,
        Language::Rust => rust::deps(content, entry),
        Language::TypeScript => typescript::deps(content),
        Language::Go => go::deps(content),
        Language::Java => java::deps(content),
        Language::Cpp => cpp::deps(content, entry),
    })
}

/// Values keep first-seen order; empty, self and repeated entries go.
#[derive(Default)]
pub(crate) struct Uniq {
    seen: HashSet<String>,
    out: Vec<String>,
}

impl Uniq {
    pub(crate) fn push(&mut self, item: Option<&str>, self_path: &str) {
        if let Some(x) = item {
            if !x.is_empty() && x != self_path && !self.seen.contains(x) {
                self.seen.insert(x.to_string());
                self.out.push(x.to_string());
            }
        }
    }

    pub(crate) fn into_vec(self) -> Vec<String> {
        self.out
    }
}

/// Compile one of this module's constant patterns once.
pub(crate) fn pattern(cell: &'static OnceLock<Regex>, src: &str) -> &'static Regex {
    cell.get_or_init(|| compile(src))
}

/// Compile a constant pattern of this module.
pub(crate) fn compile(src: &str) -> Regex {
    // The patterns are constants of this module and the unit tests compile
    // every one of them; a failure here is a bug in this build.
    Regex::new(src).unwrap_or_else(|e| panic!("bad dependency pattern {src:?}: {e}"))
}

/// Python's `\s` (str.isspace) also holds the separators \x1c-\x1f.
pub(crate) const PY_SPACE: &str = r"[\s\x1c-\x1f]";

// ---- posixpath, for the paths of the dataset (relative, "/"-separated).

pub(crate) fn dirname(p: &str) -> &str {
    match p.rfind('/') {
        Some(i) => {
            let head = &p[..i + 1];
            let trimmed = head.trim_end_matches('/');
            if trimmed.is_empty() {
                head
            } else {
                trimmed
            }
        }
        None => "",
    }
}

pub(crate) fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

pub(crate) fn join(a: &str, b: &str) -> String {
    if b.starts_with('/') || a.is_empty() {
        b.to_string()
    } else if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `os.path.normpath` (posix).
pub(crate) fn normpath(p: &str) -> String {
    if p.is_empty() {
        return ".".to_string();
    }
    let slashes = if p.starts_with("//") && !p.starts_with("///") {
        2
    } else if p.starts_with('/') {
        1
    } else {
        0
    };
    let mut comps: Vec<&str> = Vec::new();
    for c in p.split('/') {
        if c.is_empty() || c == "." {
            continue;
        }
        if c != ".." || (slashes == 0 && comps.is_empty()) || comps.last() == Some(&"..") {
            comps.push(c);
        } else if !comps.is_empty() {
            comps.pop();
        }
    }
    let out = format!("{}{}", "/".repeat(slashes), comps.join("/"));
    if out.is_empty() {
        ".".to_string()
    } else {
        out
    }
}

/// `os.path.relpath(path, start)` for two relative paths.
pub(crate) fn relpath(path: &str, start: &str) -> String {
    let split = |s: &str| -> Vec<String> {
        let n = normpath(s);
        if n == "." {
            Vec::new()
        } else {
            n.split('/').map(str::to_string).collect()
        }
    };
    let (p, s) = (split(path), split(start));
    let common = p.iter().zip(&s).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); s.len() - common];
    parts.extend(p[common..].iter().cloned());
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_path_helpers_match_python() {
        // Expected values from Python's posixpath.
        assert_eq!(dirname("a/b/c.py"), "a/b");
        assert_eq!(dirname("c.py"), "");
        assert_eq!(basename("a/b/c.py"), "c.py");
        assert_eq!(join("", "./x"), "./x");
        assert_eq!(join("a", "/x"), "/x");
        assert_eq!(normpath("a/./b/../c"), "a/c");
        assert_eq!(normpath("../x"), "../x");
        assert_eq!(normpath("a/../../x"), "../x");
        assert_eq!(normpath("a/.."), ".");
        assert_eq!(normpath("/../x"), "/x");
        assert_eq!(normpath("//a//b/"), "//a/b");
        assert_eq!(normpath("///a"), "/a");
        assert_eq!(relpath("src/black/a.py", "src"), "black/a.py");
        assert_eq!(relpath("x/a.py", "src"), "../x/a.py");
        assert_eq!(relpath("src", "src"), ".");
    }

    #[test]
    fn uniq_keeps_first_seen() {
        let mut u = Uniq::default();
        for x in [Some("b"), None, Some("a"), Some("self"), Some("b"), Some(""), Some("c")] {
            u.push(x, "self");
        }
        assert_eq!(u.into_vec(), ["b", "a", "c"]);
    }
}
