//! Java: a file `p/q/Name.java` declares class `Name` of its `package`.
//! A file depends on the classes it imports (a wildcard import counts the
//! package's classes the file mentions; a static import names a member of
//! a class), then on the classes of its own package that it mentions.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::OnceLock;

use indexmap::IndexMap;
use regex::Regex;

use super::{basename, compile, Dependency, Uniq, PY_SPACE};

struct Patterns {
    package: Regex,
    import: Regex,
    word: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let c = |src: &str| compile(&src.replace(r"\s", PY_SPACE));
        Patterns {
            package: c(r"(?m)^\s*package\s+([\w.]+)\s*;"),
            import: c(r"(?m)^\s*import\s+(static\s+)?([\w.]+)(\.\*)?\s*;"),
            word: c(r"[A-Za-z_]\w*"),
        }
    })
}

pub(super) fn deps(content: &IndexMap<String, String>) -> Dependency {
    let p = patterns();
    let mut fq2path: HashMap<String, &str> = HashMap::new();
    let mut pkg_of: HashMap<&str, String> = HashMap::new();
    // Sorted by class name, as the builder iterates `sorted(items())`.
    let mut by_pkg: HashMap<String, BTreeMap<String, &str>> = HashMap::new();
    for (path, text) in content {
        let pkg = p.package.captures(text).map(|c| c[1].to_string()).unwrap_or_default();
        let name = basename(path);
        let cls = name.strip_suffix(".java").unwrap_or(name).to_string();
        let fq = if pkg.is_empty() { cls.clone() } else { format!("{pkg}.{cls}") };
        fq2path.insert(fq, path.as_str());
        pkg_of.insert(path.as_str(), pkg.clone());
        by_pkg.entry(pkg).or_default().insert(cls, path.as_str());
    }

    let mut out = Dependency::new();
    for (path, text) in content {
        let words: HashSet<&str> = p.word.find_iter(text).map(|m| m.as_str()).collect();
        let mut found = Uniq::default();
        for c in p.import.captures_iter(text) {
            let name = &c[2];
            if c.get(3).is_some() {
                if let Some(classes) = by_pkg.get(name) {
                    for (cls, f) in classes {
                        if words.contains(cls.as_str()) {
                            found.push(Some(f), path);
                        }
                    }
                    continue;
                }
            }
            // A static import names a member: the longest prefix that is a class.
            let parts: Vec<&str> = name.split('.').collect();
            if let Some(f) =
                (1..=parts.len()).rev().find_map(|k| fq2path.get(&parts[..k].join(".")))
            {
                found.push(Some(f), path);
            }
        }
        for (cls, f) in &by_pkg[&pkg_of[path.as_str()]] {
            if words.contains(cls.as_str()) {
                found.push(Some(f), path);
            }
        }
        out.insert(path.clone(), found.into_vec());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_wildcards_statics_and_own_package() {
        let content: IndexMap<String, String> = [
            ("src/a/Main.java", "package a;\nimport b.*;\nimport static b.Util.helper;\nclass Main { Other o; Tool t; }\n"),
            ("src/a/Other.java", "package a;\nclass Other {}\n"),
            ("src/b/Tool.java", "package b;\npublic class Tool {}\n"),
            ("src/b/Util.java", "package b;\nimport java.util.List;\npublic class Util { }\n"),
            ("src/b/Unused.java", "package b;\nclass Unused {}\n"),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
        let d = deps(&content);
        assert_eq!(
            d["src/a/Main.java"],
            ["src/b/Tool.java", "src/b/Util.java", "src/a/Other.java"]
        );
        assert!(d["src/a/Other.java"].is_empty());
        assert!(d["src/b/Util.java"].is_empty());
    }
}
