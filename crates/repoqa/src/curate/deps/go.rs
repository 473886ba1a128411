//! Go: the files of one directory form a package and see each other's
//! top-level names without imports. A file depends on the files of its
//! package that declare an identifier it mentions (a `_test.go` file's
//! declarations only count for tests), then on the files of imported
//! packages inside the content that declare the `pkg.Name`s it uses.

use std::collections::HashMap;
use std::sync::OnceLock;

use indexmap::IndexMap;
use regex::Regex;

use super::{compile, dirname, Dependency, Uniq, PY_SPACE};

/// The patterns of the corpus builder, with Python's `\s`.
struct Patterns {
    decl: Regex,
    group: Regex,
    group_name: Regex,
    import_block: Regex,
    import_line: Regex,
    import_spec: Regex,
    word: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let c = |src: &str| compile(&src.replace(r"\s", PY_SPACE));
        Patterns {
            decl: c(r"(?m)^(?:func\s+(?:\([^)]*\)\s*)?(\w+)|type\s+(\w+)|(?:var|const)\s+(\w+))"),
            group: c(r"(?ms)^(?:var|const|type)\s*\(\n(.*?)^\)"),
            group_name: c(r"(?m)^\t(\w+)"),
            import_block: c(r"(?ms)^import\s*\((.*?)\)"),
            import_line: c(r#"(?m)^import\s+(\w+\s+)?"([^"]+)""#),
            import_spec: c(r#"(?m)^\s*(\w+\s+)?"([^"]+)""#),
            word: c(r"[A-Za-z_]\w*"),
        }
    })
}

/// identifier → files declaring it, per directory.
type Table<'a> = HashMap<&'a str, Vec<&'a str>>;

pub(super) fn deps(content: &IndexMap<String, String>) -> Dependency {
    let p = patterns();
    let mut decls: HashMap<&str, Table> = HashMap::new();
    for (path, text) in content {
        let mut names: Vec<&str> = p
            .decl
            .captures_iter(text)
            .filter_map(|c| (1..=3).find_map(|i| c.get(i)).map(|m| m.as_str()))
            .collect();
        for g in p.group.captures_iter(text) {
            if let Some(body) = g.get(1) {
                names.extend(
                    p.group_name
                        .captures_iter(body.as_str())
                        .filter_map(|c| c.get(1))
                        .map(|m| m.as_str()),
                );
            }
        }
        let table = decls.entry(dirname(path)).or_default();
        for n in names {
            if n == "_" || n == "init" {
                continue;
            }
            let files = table.entry(n).or_default();
            if !files.contains(&path.as_str()) {
                files.push(path.as_str());
            }
        }
    }
    let mut dirs: Vec<&str> = decls.keys().copied().collect();
    dirs.sort();
    let dir_of_import = |ipath: &str| -> Option<&str> {
        dirs.iter().copied().find(|d| {
            !d.is_empty()
                && (ipath == *d
                    || ipath.ends_with(&format!("/{d}"))
                    || d.ends_with(&format!("/{ipath}")))
        })
    };

    let mut out = Dependency::new();
    for (path, text) in content {
        let own_dir = dirname(path);
        let own = &decls[own_dir];
        let is_test = path.ends_with("_test.go");
        let mut found = Uniq::default();
        for w in p.word.find_iter(text) {
            for f in own.get(w.as_str()).map(Vec::as_slice).unwrap_or(&[]) {
                // Only tests see _test.go declarations.
                if is_test || !f.ends_with("_test.go") {
                    found.push(Some(f), path);
                }
            }
        }
        let mut imports: Vec<(String, String)> = p
            .import_line
            .captures_iter(text)
            .map(|c| (c.get(1).map_or("", |m| m.as_str()).to_string(), c[2].to_string()))
            .collect();
        for block in p.import_block.captures_iter(text) {
            let body = block.get(1).map_or("", |m| m.as_str());
            imports.extend(
                p.import_spec
                    .captures_iter(body)
                    .map(|c| (c.get(1).map_or("", |m| m.as_str()).to_string(), c[2].to_string())),
            );
        }
        for (alias, ipath) in imports {
            let Some(d) = dir_of_import(&ipath) else { continue };
            if d == own_dir {
                continue;
            }
            let alias = super::rust::py_strip(&alias);
            let name =
                if alias.is_empty() { ipath.rsplit('/').next().unwrap_or(&ipath) } else { alias };
            let uses = compile(&format!(r"\b{}\.(\w+)", regex::escape(name)));
            for c in uses.captures_iter(text) {
                for f in decls[d].get(&c[1]).map(Vec::as_slice).unwrap_or(&[]) {
                    found.push(Some(f), path);
                }
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
    fn package_names_and_imported_packages() {
        let content: IndexMap<String, String> = [
            ("a/a.go", "package a\n\nfunc Run() { helper(); T{} }\n"),
            ("a/b.go", "package a\n\nfunc helper() {}\ntype (\n\tT struct{}\n)\n"),
            ("a/b_test.go", "package a\n\nfunc testOnly() { Run() }\n"),
            ("a/c.go", "package a\n\nfunc x() { testOnly() }\n"),
            ("m.go", "package main\n\nimport (\n\t\"fmt\"\n\tz \"example.com/mod/a\"\n)\n\nfunc main() { z.Run(); fmt.Println() }\n"),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
        let d = deps(&content);
        assert_eq!(d["a/a.go"], ["a/b.go"]);
        assert!(d["a/b.go"].is_empty());
        assert_eq!(d["a/b_test.go"], ["a/a.go"]);
        assert!(d["a/c.go"].is_empty());
        assert_eq!(d["m.go"], ["a/a.go"]);
    }
}
