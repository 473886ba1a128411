//! Step 3 of curation: the repo's `functions`, {file: [records]} in file
//! order (the topological order of `dependency`), each record a capture of
//! the official FUNCTION_QUERY with its offsets:
//!
//! * `start_line` / `end_line` (exclusive) and `start_byte` / `end_byte` in
//!   the file (UTF-8 bytes, as tree-sitter reports them);
//! * global offsets (C1): lines of earlier files count `count("\n") + 1`
//!   each, and bytes of earlier files count their **code points** (the
//!   builder adds `len(str)`), while the offset inside the file is in bytes;
//! * `code_ratio` (C4): bytes of COMMENT_QUERY captures over the bytes of
//!   the function, parsed on its own.
//!
//! The name is the `name` field of the capture; for C++ (C3) it is the
//! `declarator.declarator` text.

use std::sync::OnceLock;

use indexmap::IndexMap;
use serde_json::Number;
use tree_sitter::{Node, Query, QueryCursor};

use super::CurateError;
use crate::code::lang::Language;
use crate::input::dataset::Function;
use crate::step::{Step, Stepper};

/// FUNCTION_QUERY compiled once per language (lang.rs keeps its own copy
/// private and reports spans only; the name needs the node).
fn function_query(language: Language) -> &'static Query {
    static QUERIES: [OnceLock<Query>; 6] = [const { OnceLock::new() }; 6];
    let i = Language::ALL.iter().position(|&l| l == language).unwrap_or(0);
    QUERIES[i].get_or_init(|| {
        // The official query is a constant; lang.rs's tests compile it.
        Query::new(&language.ts_language(), language.function_query_source())
            .unwrap_or_else(|e| panic!("official query for {language} does not compile: {e}"))
    })
}

/// The whole analysis in one call (the tests' shorthand).
#[cfg(test)]
fn analyze(
    language: Language,
    content: &IndexMap<String, String>,
    order: &[&str],
) -> Result<IndexMap<String, Vec<Function>>, CurateError> {
    let order = order.iter().map(|p| p.to_string()).collect();
    Ok(FunctionWalk::new(language, content.clone(), order).finish()?.functions)
}

/// The function analysis a file at a time ([`Stepper`]: its budget counts
/// files), so that the page can yield between files; `analyze` runs it to
/// the end.
pub(crate) struct FunctionWalk {
    language: Language,
    content: IndexMap<String, String>,
    order: Vec<String>,
    next: usize,
    gline: usize,
    gbyte: usize,
    out: IndexMap<String, Vec<Function>>,
}

/// What the walk gives back: the files it read and their functions.
pub(crate) struct Walked {
    pub content: IndexMap<String, String>,
    pub functions: IndexMap<String, Vec<Function>>,
}

impl FunctionWalk {
    /// Walk `order` (paths of `content`) in `language`.
    pub(crate) fn new(
        language: Language,
        content: IndexMap<String, String>,
        order: Vec<String>,
    ) -> FunctionWalk {
        FunctionWalk { language, content, order, next: 0, gline: 0, gbyte: 0, out: IndexMap::new() }
    }

    /// Analyse the next file of the order; false once none is left.
    fn step_one(&mut self) -> Result<bool, CurateError> {
        let language = self.language;
        let Some(path) = self.order.get(self.next) else { return Ok(false) };
        self.next += 1;
        let Some(code) = self.content.get(path) else { return Ok(true) };
        let src = code.as_bytes();
        let tree = language.grammar().parse(src)?;
        let mut cursor = QueryCursor::new();
        let mut records = Vec::new();
        let (gline, gbyte) = (self.gline, self.gbyte);
        for (m, idx) in cursor.captures(function_query(language), tree.root_node(), src) {
            let node = m.captures[idx].node;
            let (start, end) = (node.start_byte(), node.end_byte());
            let mut f = Function::default();
            f.name = function_name(node, language, src);
            f.start_line = node.start_position().row;
            f.end_line = node.end_position().row + 1;
            f.start_byte = start;
            f.end_byte = end;
            f.global_start_line = Some(gline + f.start_line);
            f.global_end_line = Some(gline + f.end_line);
            f.global_start_byte = Some(gbyte + start);
            f.global_end_byte = Some(gbyte + end);
            f.code_ratio = Number::from_f64(code_ratio(language, &src[start..end])?);
            records.push(f);
        }
        self.out.insert(path.clone(), records);
        self.gbyte += code.chars().count();
        self.gline += code.matches('\n').count() + 1;
        Ok(true)
    }
}

impl Stepper for FunctionWalk {
    type Output = Walked;
    type Error = CurateError;

    /// Analyse up to `budget` files of the order.
    fn step(&mut self, budget: usize) -> Result<Step, CurateError> {
        for _ in 0..budget.max(1) {
            if !self.step_one()? {
                return Ok(Step::Done);
            }
        }
        Ok(Step::More)
    }

    /// Files analysed so far, and in all.
    fn progress(&self) -> (usize, usize) {
        (self.next, self.order.len())
    }

    fn finish(mut self) -> Result<Walked, CurateError> {
        while self.step_one()? {}
        Ok(Walked { content: self.content, functions: self.out })
    }
}

fn function_name(node: Node, language: Language, src: &[u8]) -> String {
    let name = if language == Language::Cpp {
        node.child_by_field_name("declarator").and_then(|d| d.child_by_field_name("declarator"))
    } else {
        node.child_by_field_name("name")
    };
    name.map(|n| String::from_utf8_lossy(&src[n.start_byte()..n.end_byte()]).into_owned())
        .unwrap_or_default()
}

/// C4: comment bytes of the function parsed alone, over its bytes.
pub(crate) fn code_ratio(language: Language, code: &[u8]) -> Result<f64, CurateError> {
    if code.is_empty() {
        return Ok(0.0);
    }
    let grammar = language.grammar();
    let tree = grammar.parse(code)?;
    let comments: usize = grammar.comment_spans(&tree, code).iter().map(|s| s.end - s.start).sum();
    Ok(comments as f64 / code.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_code_points_of_earlier_files_and_bytes_in_the_file() {
        // "é" is 2 bytes, 1 code point; "✓" 3 bytes, 1 code point.
        let content: IndexMap<String, String> = [
            ("a.py", "# café ✓\ndef f():\n    return 1\n"),
            ("b.py", "s = 'é'\ndef g(x):\n    # ✓ note\n    return x\n"),
        ]
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
        let fns = analyze(Language::Python, &content, &["a.py", "b.py"]).unwrap();
        let f = &fns["a.py"][0];
        assert_eq!(
            (f.name.as_str(), f.start_line, f.end_line, f.start_byte, f.end_byte),
            ("f", 1, 3, 12, 33)
        );
        assert_eq!((f.global_start_byte, f.global_start_line), (Some(12), Some(1)));
        let g = &fns["b.py"][0];
        // In-file bytes: "s = 'é'\n" is 9 bytes; a.py has 31 code points, 3 lines + 1.
        assert_eq!((g.start_byte, g.start_line), (9, 1));
        assert_eq!((g.global_start_byte, g.global_end_byte), (Some(31 + 9), Some(31 + g.end_byte)));
        assert_eq!((g.global_start_line, g.global_end_line), (Some(5), Some(8)));
        // "# ✓ note" is 10 bytes of a 37-byte function.
        assert_eq!(g.end_byte - g.start_byte, 37);
        assert_eq!(g.code_ratio.as_ref().and_then(Number::as_f64), Some(10.0 / 37.0));
        assert_eq!(f.code_ratio.as_ref().and_then(Number::as_f64), Some(0.0));
    }

    #[test]
    fn cpp_names_are_the_inner_declarator() {
        let src =
            "static int add(int a, int b) { return a + b; } // c\nint *ptr(void) { return 0; }\n";
        let content: IndexMap<String, String> =
            [("x.cc".to_string(), src.to_string())].into_iter().collect();
        let fns = analyze(Language::Cpp, &content, &["x.cc"]).unwrap();
        let names: Vec<&str> = fns["x.cc"].iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["add"]);
    }
}
