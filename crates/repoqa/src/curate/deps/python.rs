//! Python imports: every `import` / `from ... import` statement anywhere in
//! the file (also inside functions), in source order, resolved against the
//! modules of the content. Module names are relative to the entry's parent
//! (`src/black/trans.py` is `black.trans`); `from .x import y` is resolved
//! against the importing module's package like the interpreter does.
//!
//! The corpus builder reads Python's own `ast`; a file it cannot parse gets
//! no dependencies. Here the tree-sitter grammar stands in for `ast` and a
//! tree with a syntax error is treated the same way (with a warning).

use indexmap::IndexMap;
use tree_sitter::Node;

use super::{dirname, relpath, Dependency, Uniq};
use crate::code::lang::Language;
use crate::curate::{CurateError, CurateWarning};

/// One imported name: `import a.b` (module "a.b") or `from <base> import
/// name` (base already made absolute; `*` for a wildcard).
enum Import {
    Module(String),
    From { base: String, name: String },
}

pub(super) fn deps(
    content: &IndexMap<String, String>,
    entry: &str,
    warnings: &mut Vec<CurateWarning>,
) -> Result<Dependency, CurateError> {
    let pkg_root = if entry == "." { "" } else { dirname(entry) };
    let rel_of =
        |path: &str| if pkg_root.is_empty() { path.to_string() } else { relpath(path, pkg_root) };
    let mut mod2path: IndexMap<String, &str> = IndexMap::new();
    for path in content.keys() {
        let rel = rel_of(path);
        let mut module = strip_py(&rel).replace('/', ".");
        if let Some(m) = module.strip_suffix(".__init__") {
            module = m.to_string();
        }
        // Later files win, like the builder's dict assignment.
        mod2path.insert(module, path.as_str());
    }
    let longest = |module: &str| -> Option<&str> {
        let parts: Vec<&str> = module.split('.').collect();
        (1..=parts.len()).rev().find_map(|k| mod2path.get(&parts[..k].join(".")).copied())
    };

    let grammar = Language::Python.grammar();
    let mut out = Dependency::new();
    for (path, text) in content {
        let tree = grammar.parse(text.as_bytes())?;
        if tree.root_node().has_error() {
            warnings.push(CurateWarning::PythonSyntax { path: path.clone() });
            out.insert(path.clone(), Vec::new());
            continue;
        }
        let rel = rel_of(path);
        // The importing module's package: its dotted name minus the last part.
        let dotted = strip_py(&rel).replace('/', ".");
        let mut package: Vec<&str> = dotted.split('.').collect();
        package.pop();
        let mut found = Uniq::default();
        for import in imports(tree.root_node(), text.as_bytes(), &package) {
            match import {
                Import::Module(m) => found.push(longest(&m), path),
                Import::From { base, name } => {
                    let sub = if base.is_empty() { name } else { format!("{base}.{name}") };
                    let hit = mod2path.get(&sub).copied().or_else(|| {
                        if base.is_empty() {
                            None
                        } else {
                            longest(&base)
                        }
                    });
                    found.push(hit, path);
                }
            }
        }
        out.insert(path.clone(), found.into_vec());
    }
    Ok(out)
}

/// `rel[:-3]`: the path without its 3-character suffix.
fn strip_py(rel: &str) -> &str {
    let cut = rel.char_indices().rev().nth(2).map(|(i, _)| i).unwrap_or(0);
    &rel[..cut]
}

/// The imports of a tree in source order.
fn imports(root: Node, src: &[u8], package: &[&str]) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut statements = Vec::new();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                statements.push(node)
            }
            _ => {
                let mut cursor = node.walk();
                stack.extend(node.named_children(&mut cursor));
            }
        }
    }
    // Python's ast sorts by (lineno, col_offset): the start of the statement.
    statements.sort_by_key(|n| n.start_byte());
    for node in statements {
        let mut cursor = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
        match node.kind() {
            "import_statement" => {
                for n in names {
                    out.push(Import::Module(imported_name(n, src)));
                }
            }
            kind => {
                let base = if kind == "future_import_statement" {
                    "__future__".to_string()
                } else {
                    from_base(node, src, package)
                };
                let mut cursor = node.walk();
                if node.named_children(&mut cursor).any(|c| c.kind() == "wildcard_import") {
                    out.push(Import::From { base: base.clone(), name: "*".to_string() });
                }
                for n in names {
                    out.push(Import::From { base: base.clone(), name: imported_name(n, src) });
                }
            }
        }
    }
    out
}

/// The absolute module a `from` statement imports from.
fn from_base(node: Node, src: &[u8], package: &[&str]) -> String {
    let Some(module) = node.child_by_field_name("module_name") else {
        return String::new();
    };
    if module.kind() != "relative_import" {
        return dotted(module, src);
    }
    let mut level = 0usize;
    let mut name = None;
    let mut cursor = module.walk();
    for c in module.named_children(&mut cursor) {
        match c.kind() {
            "import_prefix" => level = text(c, src).chars().filter(|&ch| ch == '.').count(),
            "dotted_name" => name = Some(dotted(c, src)),
            _ => {}
        }
    }
    // package[: len(package) - (level - 1)], with Python's negative slicing.
    let mut parts: Vec<String> = if level > 1 {
        let end = package.len() as isize - (level as isize - 1);
        let end = if end < 0 { (package.len() as isize + end).max(0) } else { end } as usize;
        package[..end.min(package.len())].iter().map(|s| s.to_string()).collect()
    } else {
        package.iter().map(|s| s.to_string()).collect()
    };
    parts.extend(name);
    parts.join(".")
}

/// The name of an `import` list entry: `a.b` or the name of `a.b as c`.
fn imported_name(node: Node, src: &[u8]) -> String {
    match node.kind() {
        "aliased_import" => {
            node.child_by_field_name("name").map(|n| dotted(n, src)).unwrap_or_default()
        }
        _ => dotted(node, src),
    }
}

/// `a . b` is the module "a.b" to Python.
fn dotted(node: Node, src: &[u8]) -> String {
    if node.kind() != "dotted_name" {
        return text(node, src);
    }
    let mut cursor = node.walk();
    let parts: Vec<String> = node.named_children(&mut cursor).map(|c| text(c, src)).collect();
    parts.join(".")
}

fn text(node: Node, src: &[u8]) -> String {
    String::from_utf8_lossy(&src[node.start_byte()..node.end_byte()]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)], entry: &str) -> Dependency {
        let content: IndexMap<String, String> =
            files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        let mut w = Vec::new();
        deps(&content, entry, &mut w).unwrap()
    }

    #[test]
    fn resolves_absolute_relative_nested_and_wildcard_imports() {
        let d = run(
            &[
                ("src/pkg/__init__.py", "from .core import run\nfrom pkg.util import *\n"),
                ("src/pkg/core.py", "import os\ndef f():\n    from . import util\n    import pkg.sub.deep as d\n"),
                ("src/pkg/sub/__init__.py", ""),
                ("src/pkg/sub/deep.py", "from ..util import (a,\n  b)\nfrom ... import core\nfrom __future__ import annotations\n"),
                ("src/pkg/util.py", "import pkg . core; import pkg"),
            ],
            "src/pkg",
        );
        assert_eq!(d["src/pkg/__init__.py"], ["src/pkg/core.py", "src/pkg/util.py"]);
        assert_eq!(d["src/pkg/core.py"], ["src/pkg/util.py", "src/pkg/sub/deep.py"]);
        // `from ... import core` climbs above the top package: unresolved.
        assert_eq!(d["src/pkg/sub/deep.py"], ["src/pkg/util.py"]);
        assert_eq!(d["src/pkg/util.py"], ["src/pkg/core.py", "src/pkg/__init__.py"]);
        assert!(d["src/pkg/sub/__init__.py"].is_empty());
    }

    #[test]
    fn a_file_with_a_syntax_error_has_no_dependencies() {
        let content: IndexMap<String, String> = [("a.py", "import b\ndef (:\n"), ("b.py", "")]
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        let mut w = Vec::new();
        let d = deps(&content, ".", &mut w).unwrap();
        assert!(d["a.py"].is_empty());
        assert_eq!(w, [CurateWarning::PythonSyntax { path: "a.py".into() }]);
    }
}
