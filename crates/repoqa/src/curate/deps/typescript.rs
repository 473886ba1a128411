//! TypeScript / JavaScript: relative module specifiers (`from './x'`,
//! `import './x'`, `import('./x')`, `require('./x')`) in source order,
//! resolved like a bundler would: the path itself, then with `.ts`, `.js`,
//! `/index.ts`, `/index.js`, `.d.ts` (a `.js`/`.mjs`/`.cjs` suffix in the
//! specifier is dropped first, as TypeScript's ESM imports spell it).

use std::sync::OnceLock;

use indexmap::IndexMap;
use regex::Regex;

use super::{compile, dirname, join, normpath, pattern, Dependency, Uniq, PY_SPACE};

fn specs() -> &'static [Regex] {
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    RES.get_or_init(|| {
        [
            r#"\bfrom\s*['"](\.{1,2}/[^'"]*|\.{1,2})['"]"#,
            r#"\bimport\s*['"](\.{1,2}/[^'"]*)['"]"#,
            r#"\bimport\(\s*['"](\.{1,2}/[^'"]*)['"]\s*\)"#,
            r#"\brequire\(\s*['"](\.{1,2}/[^'"]*)['"]\s*\)"#,
        ]
        .iter()
        .map(|src| compile(&src.replace(r"\s", PY_SPACE)))
        .collect()
    })
}

fn js_suffix() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    // Python's `$` also matches before a final "\n"; a path has none.
    pattern(&RE, r"\.(m|c)?js$")
}

pub(super) fn deps(content: &IndexMap<String, String>) -> Dependency {
    let mut out = Dependency::new();
    for (path, text) in content {
        let mut hits: Vec<(usize, &str)> = Vec::new();
        for re in specs() {
            hits.extend(
                re.captures_iter(text)
                    .filter_map(|c| Some((c.get(0)?.start(), c.get(1)?.as_str()))),
            );
        }
        hits.sort();
        let mut found = Uniq::default();
        for (_, spec) in hits {
            let base = normpath(&join(dirname(path), spec));
            let stem = js_suffix().replace(&base, "");
            let candidates = [
                base.clone(),
                format!("{stem}.ts"),
                format!("{stem}.js"),
                format!("{stem}/index.ts"),
                format!("{stem}/index.js"),
                format!("{stem}.d.ts"),
            ];
            if let Some(hit) = candidates.iter().find(|c| content.contains_key(c.as_str())) {
                found.push(Some(hit), path);
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
    fn relative_specifiers_resolve_in_source_order() {
        let content: IndexMap<String, String> = [
            ("src/index.ts", "export * from './core';\nconst u = require('./util.js');\nimport('./lazy')\nimport '../x';\nimport { a } from \"./dir\";\nimport p from 'lodash';\n"),
            ("src/core.ts", "import { b } from '.';\nimport type { T } from './types';\n"),
            ("src/util.js", ""),
            ("src/lazy.d.ts", ""),
            ("src/dir/index.ts", "import { z } from '..';"),
            ("src/types.ts", ""),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
        let d = deps(&content);
        assert_eq!(
            d["src/index.ts"],
            ["src/core.ts", "src/util.js", "src/lazy.d.ts", "src/dir/index.ts"]
        );
        assert_eq!(d["src/core.ts"], ["src/index.ts", "src/types.ts"]);
        assert_eq!(d["src/dir/index.ts"], ["src/index.ts"]);
    }
}
