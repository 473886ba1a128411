//! C / C++: `#include "x.h"` and `<x.h>` (names with a dot only, so the
//! standard library's `<vector>` is skipped), looked up like a compiler with
//! include paths would: next to the including file, then in the entry dir,
//! in every `include`/`src`/`lib`/... directory of the content (sorted), and
//! in the entry's parent (for `<fmt/core.h>` style includes).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use indexmap::IndexMap;
use regex::Regex;

use super::{basename, compile, dirname, join, normpath, Dependency, Uniq, PY_SPACE};

const INCLUDE_DIRS: [&str; 7] = ["include", "src", "lib", "libs", "library", "libraries", "inc"];

fn include_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        compile(&r#"(?m)^\s*#\s*include\s*([<"])([^>"]+)[>"]"#.replace(r"\s", PY_SPACE))
    })
}

pub(super) fn deps(content: &IndexMap<String, String>, entry: &str) -> Dependency {
    let top = if entry == "." { "" } else { entry };
    let mut include_dirs: BTreeSet<&str> = BTreeSet::new();
    for path in content.keys() {
        let mut d = dirname(path);
        while !d.is_empty() {
            if INCLUDE_DIRS.contains(&basename(d)) {
                include_dirs.insert(d);
            }
            d = dirname(d);
        }
    }
    let mut roots: Vec<&str> = vec![top];
    roots.extend(include_dirs);
    if !top.is_empty() {
        roots.push(dirname(top));
    }

    let mut out = Dependency::new();
    for (path, text) in content {
        let mut found = Uniq::default();
        for c in include_re().captures_iter(text) {
            let inc = &c[2];
            if !inc.contains('.') {
                continue;
            }
            let hit = std::iter::once(dirname(path)).chain(roots.iter().copied()).find_map(|d| {
                let cand = if d.is_empty() { normpath(inc) } else { normpath(&join(d, inc)) };
                content.contains_key(&cand).then_some(cand)
            });
            found.push(hit.as_deref(), path);
        }
        out.insert(path.clone(), found.into_vec());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_resolve_against_the_file_then_the_roots() {
        let content: IndexMap<String, String> = [
            ("lib/fmt/core.h", "#include <vector>\n#include \"format.h\"\n"),
            ("lib/fmt/format.h", "  #  include <fmt/core.h>\n#include \"../fmt/core.h\"\n"),
            ("lib/fmt/src/os.cc", "#include \"fmt/os.h\"\n#include <os.h>\n"),
            ("lib/fmt/os.h", ""),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
        let d = deps(&content, "lib/fmt");
        assert_eq!(d["lib/fmt/core.h"], ["lib/fmt/format.h"]);
        assert_eq!(d["lib/fmt/format.h"], ["lib/fmt/core.h"]);
        assert_eq!(d["lib/fmt/src/os.cc"], ["lib/fmt/os.h"]);
    }
}
