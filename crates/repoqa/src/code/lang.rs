//! The six RepoQA languages: tree-sitter grammars, the official
//! `FUNCTION_QUERY` / `COMMENT_QUERY` (repoqa/utility.py) and the comment
//! prefix of the synthetic `Path:` lines (search_needle_function.py).

use std::sync::OnceLock;

use thiserror::Error;
use tree_sitter::{Parser, Query, QueryCursor, Tree};

#[derive(Debug, Error)]
pub enum GrammarError {
    #[error("unknown language {name:?} (expected one of python, cpp, java, typescript, rust, go)")]
    UnknownLanguage { name: String },
    #[error("tree-sitter could not parse {language} source of {len} bytes")]
    ParseFailed { language: Language, len: usize },
}

impl GrammarError {
    fn unknown_language(name: &str) -> GrammarError {
        GrammarError::UnknownLanguage { name: name.to_string() }
    }
}

/// A language of the benchmark, named as in the dataset's top-level keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = GrammarError,
    parse_err_fn = GrammarError::unknown_language
)]
pub enum Language {
    Python,
    Cpp,
    Java,
    TypeScript,
    Rust,
    Go,
}

impl Language {
    /// In the order of the official dataset file.
    pub const ALL: &[Language] = <Language as strum::VariantArray>::VARIANTS;

    /// The dataset key: `python`, `cpp`, `java`, `typescript`, `rust`, `go`.
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn from_name(name: &str) -> Result<Language, GrammarError> {
        name.parse()
    }

    /// `COMMENT_PREFIX` of search_needle_function.py.
    pub fn comment_prefix(self) -> &'static str {
        match self {
            Language::Python => "#",
            _ => "//",
        }
    }

    /// `FUNCTION_QUERY` of repoqa/utility.py.
    pub fn function_query_source(self) -> &'static str {
        match self {
            Language::Python => "(function_definition name: (_)) @fdef",
            Language::Java => "(method_declaration name: (_)) @fdef",
            Language::TypeScript => "(function_declaration name: (_)) @fdef",
            Language::Rust => "(function_item name: (_)) @fdef",
            Language::Cpp => {
                "(function_definition declarator: (function_declarator declarator: (identifier))) @fdef"
            }
            Language::Go => "(function_declaration name: (_)) @fdef",
        }
    }

    /// `COMMENT_QUERY` of repoqa/utility.py: several queries whose captures
    /// the official code concatenates, query by query.
    pub fn comment_query_sources(self) -> &'static [&'static str] {
        match self {
            Language::Python => {
                &["(block (expression_statement (string) @docstring))", "(comment) @comment"]
            }
            Language::Java | Language::Rust => {
                &["(line_comment) @comment", "(block_comment) @comment"]
            }
            Language::Cpp | Language::TypeScript | Language::Go => &["(comment) @comment"],
        }
    }

    /// The grammar crate and version compiled into this build: the releases
    /// nearest to the grammars bundled in tree-sitter-languages 1.10.2 (the
    /// official harness's parser). Java and TypeScript are its exact
    /// sources; Python, C++ and Go have the same parse tables, with small
    /// lexer/scanner differences; Rust is the release just before its commit.
    pub fn grammar_crate(self) -> &'static str {
        match self {
            Language::Python => "tree-sitter-python 0.20.4",
            Language::Cpp => "tree-sitter-cpp 0.20.3",
            Language::Java => "tree-sitter-java 0.20.2",
            Language::TypeScript => "tree-sitter-typescript 0.20.3",
            Language::Rust => "tree-sitter-rust 0.20.4",
            Language::Go => "tree-sitter-go 0.20.0",
        }
    }

    pub fn ts_language(self) -> tree_sitter::Language {
        // The grammar crates return tree-sitter 0.20's `Language` (replaced
        // by crates/tree-sitter-shim): a pointer to the grammar's static,
        // ABI-14 `TSLanguage` tables, which tree-sitter-c2rust 0.22.6 reads
        // (ABI 13–14). That runtime release, not a newer one, because its
        // error recovery on broken code matches the C core of py-tree-sitter
        // 0.21.3, the official harness's (crates/repoqa/tests/it/parity_grammar.rs).
        let raw = match self {
            Language::Python => tree_sitter_python::language(),
            Language::Cpp => tree_sitter_cpp::language(),
            Language::Java => tree_sitter_java::language(),
            Language::TypeScript => tree_sitter_typescript::language_typescript(),
            Language::Rust => tree_sitter_rust::language(),
            Language::Go => tree_sitter_go::language(),
        }
        .into_raw();
        // Python's scanner with the official grammar's comment rule
        // (crate::python::scanner).
        let raw = match self {
            // SAFETY: `raw` is tree-sitter-python's static `TSLanguage`.
            Language::Python => {
                unsafe { crate::python::scanner::with_official_comment_rule(raw) }.unwrap_or(raw)
            }
            _ => raw,
        };
        // SAFETY: `raw` is the non-null address of a `TSLanguage` that lives
        // for the whole program (static data of the linked grammar C code,
        // or its copy leaked by python::scanner).
        unsafe { tree_sitter::Language::from_raw(raw.cast()) }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The compiled grammar and queries of this language (built once).
    pub fn grammar(self) -> &'static Grammar {
        static GRAMMARS: [OnceLock<Grammar>; 6] = [const { OnceLock::new() }; 6];
        GRAMMARS[self.index()].get_or_init(|| Grammar::new(self))
    }
}

/// A language's tree-sitter grammar with its official queries compiled.
pub struct Grammar {
    pub language: Language,
    ts: tree_sitter::Language,
    /// Compiled on first use (tests and diagnostics only: `function_spans`
    /// matches the same pattern by walking the tree, see `is_function`).
    function_query: OnceLock<Query>,
    /// Compiled on first use: scoring without --ignore-comments never needs
    /// them, and compiling a query is a large share of a short scoring run.
    comment_queries: OnceLock<Vec<Query>>,
    /// The node kinds `comment_spans` looks for, as symbol ids.
    comment_kinds: OnceLock<CommentKinds>,
}

/// The named node kinds of a language's COMMENT_QUERYs, as the public symbol
/// ids `Node::kind_id` reports (a name not in the grammar is `u16::MAX`,
/// which no node has).
struct CommentKinds {
    /// How many COMMENT_QUERYs there are.
    queries: usize,
    /// `(kind) @c` patterns: (kind, index of the query).
    plain: Vec<(u16, usize)>,
    /// Python's `(block (expression_statement (string) @c))` (query 0):
    /// the ids of string, expression_statement and block.
    docstring: Option<(u16, u16, u16)>,
}

impl CommentKinds {
    fn new(language: Language, ts: &tree_sitter::Language) -> CommentKinds {
        let id = |kind: &str| match ts.id_for_node_kind(kind, true) {
            0 => u16::MAX,
            k => k,
        };
        let queries = language.comment_query_sources().len();
        match language {
            Language::Python => CommentKinds {
                queries,
                plain: vec![(id("comment"), 1)],
                docstring: Some((id("string"), id("expression_statement"), id("block"))),
            },
            Language::Java | Language::Rust => CommentKinds {
                queries,
                plain: vec![(id("line_comment"), 0), (id("block_comment"), 1)],
                docstring: None,
            },
            Language::Cpp | Language::TypeScript | Language::Go => {
                CommentKinds { queries, plain: vec![(id("comment"), 0)], docstring: None }
            }
        }
    }
}

/// Call `visit` on every node of `tree`, parents before children (document
/// order), until it returns false.
pub(crate) fn pre_order<'t>(tree: &'t Tree, mut visit: impl FnMut(tree_sitter::Node<'t>) -> bool) {
    let mut cursor = tree.walk();
    loop {
        if !visit(cursor.node()) {
            return;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// A byte range `[start, end)` of a capture in the parsed source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Grammar {
    fn new(language: Language) -> Grammar {
        let ts = language.ts_language();
        // The queries are constants of this file; a failure is a bug in this
        // build (a grammar without the node kinds), caught by the unit tests.
        Grammar {
            language,
            ts,
            function_query: OnceLock::new(),
            comment_queries: OnceLock::new(),
            comment_kinds: OnceLock::new(),
        }
    }

    pub fn parse(&self, source: &[u8]) -> Result<Tree, GrammarError> {
        // One parser per language and thread, reused: a reply of a million
        // tiny fenced blocks is a million parses, and making a parser costs
        // more than parsing an empty block.
        thread_local! {
            static PARSERS: std::cell::RefCell<[Option<Parser>; 6]> =
                const { std::cell::RefCell::new([None, None, None, None, None, None]) };
        }
        let failed = || GrammarError::ParseFailed { language: self.language, len: source.len() };
        PARSERS.with(|cell| {
            let Ok(mut parsers) = cell.try_borrow_mut() else {
                // Re-entered (cannot happen today): a parser of its own.
                let mut parser = Parser::new();
                parser.set_language(&self.ts).map_err(|_| failed())?;
                return parser.parse(source, None).ok_or_else(failed);
            };
            let slot = &mut parsers[self.language.index()];
            if slot.is_none() {
                let mut parser = Parser::new();
                parser.set_language(&self.ts).map_err(|_| failed())?;
                *slot = Some(parser);
            }
            let parser = slot.as_mut().ok_or_else(failed)?;
            parser.reset();
            parser.parse(source, None).ok_or_else(failed)
        })
    }

    /// Captures of `FUNCTION_QUERY`, in the order tree-sitter's
    /// `query.captures()` reports them (document order, outer first).
    ///
    /// Each official FUNCTION_QUERY is one pattern with one capture, so it is
    /// matched by a pre-order walk with [`Grammar::is_function`] instead of a
    /// compiled query: compiling it costs the pure-Rust runtime ~40M
    /// instructions per language, more than scoring a whole dataset.
    /// `tests::walk_equals_the_official_query` holds the two together.
    pub fn function_spans(&self, tree: &Tree, _source: &[u8]) -> Vec<Span> {
        let mut out = Vec::new();
        self.walk_functions(tree, |s| {
            out.push(s);
            true
        });
        out
    }

    /// The first capture of `FUNCTION_QUERY` (what `sanitize_output` takes).
    pub fn first_function_span(&self, tree: &Tree) -> Option<Span> {
        let mut first = None;
        self.walk_functions(tree, |s| {
            first = Some(s);
            false
        });
        first
    }

    /// The same captures through the compiled official query.
    pub fn function_spans_by_query(&self, tree: &Tree, source: &[u8]) -> Vec<Span> {
        let q = self.function_query.get_or_init(|| {
            compile(&self.ts, self.language, self.language.function_query_source())
        });
        captures(q, tree, source)
    }

    /// Pre-order walk calling `found` for each node the FUNCTION_QUERY
    /// matches, until it returns false.
    fn walk_functions(&self, tree: &Tree, mut found: impl FnMut(Span) -> bool) {
        pre_order(tree, |node| {
            !self.is_function(node)
                || found(Span { start: node.start_byte(), end: node.end_byte() })
        });
    }

    /// Does `node` match this language's FUNCTION_QUERY pattern?
    /// `(kind field: (_))` = a node of that kind with a named child in the
    /// field; C++ additionally requires the declarator chain
    /// `function_declarator` → `identifier`.
    pub fn is_function(&self, node: tree_sitter::Node) -> bool {
        let named_field = |n: tree_sitter::Node, field: &str| {
            let mut cursor = n.walk();
            let found = n.children_by_field_name(field, &mut cursor).any(|c| c.is_named());
            found
        };
        match self.language {
            Language::Python => node.kind() == "function_definition" && named_field(node, "name"),
            Language::Java => node.kind() == "method_declaration" && named_field(node, "name"),
            Language::TypeScript | Language::Go => {
                node.kind() == "function_declaration" && named_field(node, "name")
            }
            Language::Rust => node.kind() == "function_item" && named_field(node, "name"),
            Language::Cpp => {
                node.kind() == "function_definition"
                    && node.children_by_field_name("declarator", &mut node.walk()).any(|d| {
                        d.kind() == "function_declarator"
                            && d.children_by_field_name("declarator", &mut d.walk())
                                .any(|i| i.kind() == "identifier")
                    })
            }
        }
    }

    /// Captures of every `COMMENT_QUERY`, concatenated query by query as the
    /// official code does (`capture_list += query.captures(root)`).
    ///
    /// Matched by one pre-order walk instead of the compiled queries (the
    /// query engine of the pure-Rust runtime took most of the time of the
    /// comment-cleaning modes): each official COMMENT_QUERY is one pattern
    /// with one capture, `(kind) @c` or Python's docstring pattern
    /// `(block (expression_statement (string) @c))`, whose children are
    /// direct (visible) children. `comment_spans_by_query` is the compiled
    /// form; crates/repoqa/tests/it/function_walk.rs holds the two together.
    pub fn comment_spans(&self, tree: &Tree, _source: &[u8]) -> Vec<Span> {
        let kinds = self.comment_kinds.get_or_init(|| CommentKinds::new(self.language, &self.ts));
        let mut per_query: Vec<Vec<Span>> = vec![Vec::new(); kinds.queries];
        let mut cursor = tree.walk();
        // The visible ancestors' kinds (the parents a query's nested pattern
        // is matched against; 0 for an anonymous one). Node kinds are
        // compared by symbol id: `kind()` reads the name as a C string.
        let mut ancestors: Vec<u16> = Vec::new();
        loop {
            let node = cursor.node();
            let named = node.is_named();
            let id = if named { node.kind_id() } else { 0 };
            if named {
                if let Some(&(_, query)) = kinds.plain.iter().find(|(k, _)| *k == id) {
                    per_query[query].push(Span { start: node.start_byte(), end: node.end_byte() });
                } else if let Some((string, statement, block)) = kinds.docstring {
                    let n = ancestors.len();
                    if id == string
                        && n >= 2
                        && ancestors[n - 1] == statement
                        && ancestors[n - 2] == block
                    {
                        per_query[0].push(Span { start: node.start_byte(), end: node.end_byte() });
                    }
                }
            }
            if cursor.goto_first_child() {
                ancestors.push(id);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return per_query.into_iter().flatten().collect();
                }
                ancestors.pop();
            }
        }
    }

    /// The same captures through the compiled official queries.
    pub fn comment_spans_by_query(&self, tree: &Tree, source: &[u8]) -> Vec<Span> {
        let queries = self.comment_queries.get_or_init(|| {
            self.language
                .comment_query_sources()
                .iter()
                .map(|q| compile(&self.ts, self.language, q))
                .collect()
        });
        queries.iter().flat_map(|q| captures(q, tree, source)).collect()
    }

    /// Number of nodes with errors, for diagnostics.
    pub fn has_error(tree: &Tree) -> bool {
        tree.root_node().has_error()
    }
}

/// The queries are constants of this file; a failure is a bug in this build
/// (a grammar without the node kinds), caught by the unit tests.
fn compile(ts: &tree_sitter::Language, language: Language, source: &str) -> Query {
    Query::new(ts, source)
        .unwrap_or_else(|e| panic!("official query for {language} does not compile: {e}"))
}

fn captures(query: &Query, tree: &Tree, source: &[u8]) -> Vec<Span> {
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    for (m, idx) in cursor.captures(query, tree.root_node(), source) {
        let node = m.captures[idx].node;
        out.push(Span { start: node.start_byte(), end: node.end_byte() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_official_query_compiles_and_finds_a_function() {
        let samples = [
            (Language::Python, "def f(x):\n    return x\n"),
            (Language::Cpp, "int f(int x) { return x; }\n"),
            (Language::Java, "class A { int f(int x) { return x; } }\n"),
            (Language::TypeScript, "function f(x: number): number { return x; }\n"),
            (Language::Rust, "fn f(x: i32) -> i32 { x }\n"),
            (Language::Go, "package m\nfunc f(x int) int { return x }\n"),
        ];
        for (lang, src) in samples {
            let g = lang.grammar();
            let tree = g.parse(src.as_bytes()).unwrap();
            assert!(!Grammar::has_error(&tree), "{lang}: parse error");
            let spans = g.function_spans(&tree, src.as_bytes());
            assert_eq!(spans.len(), 1, "{lang}: {spans:?}");
        }
    }

    #[test]
    fn names_round_trip() {
        for l in Language::ALL.iter().copied() {
            assert_eq!(Language::from_name(l.name()).unwrap(), l);
        }
        assert!(Language::from_name("cobol").is_err());
    }
}
