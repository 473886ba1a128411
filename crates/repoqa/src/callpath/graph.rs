//! A repository's static call graph, from the dataset alone (NOT UPSTREAM:
//! the call-path task, docs/call-path.md). Nodes are the repository's
//! function records (`functions`: file, name, lines), with the class,
//! `impl` or type that encloses them where there is one. An edge A → B
//! means A's lines hold a call whose callee's last identifier is B's name,
//! and B's name is unique among the repository's function records
//! (upstream's `is_unique`: a name two records share makes no edge, it is
//! listed in [`CallGraph::ambiguous`]). Context- and flow-insensitive, as
//! upstream's unfinished `interprocedural` branch defines it.
//!
//! A call belongs to the innermost function record whose lines hold it (a
//! nested function that is a record of its own owns its calls; a closure or
//! lambda that is not a record lends them to the function around it). What
//! counts as a call, per language, by tree-sitter's node kinds
//! ([`callee_name`]):
//!
//! | language | calls | the callee's name |
//! |---|---|---|
//! | Python | `call` | `f(…)` → f, `x.f(…)` → f |
//! | Java | `method_invocation`, `object_creation_expression` | `f(…)`, `x.f(…)` → f; `new T(…)` → T |
//! | TypeScript | `call_expression`, `new_expression` | `f(…)`, `x.f(…)` → f; `new T(…)` → T |
//! | Rust | `call_expression` (method calls too) | `f(…)`, `m::f(…)`, `T::f(…)`, `x.f(…)`, `f::<T>(…)` → f |
//! | Go | `call_expression` | `f(…)`, `pkg.f(…)`, `x.f(…)` → f |
//! | C++ | `call_expression`, `new_expression` | `f(…)`, `x.f(…)`, `x->f(…)`, `ns::f(…)`, `f<T>(…)` → f; `new T(…)` → T |
//!
//! Not counted: a call through a value (`fs[0](…)`, `(get())(…)`, a
//! function pointer or a callback passed in), Rust macros and the calls
//! inside their arguments (tree-sitter keeps a macro's arguments as
//! tokens), decorators that are not written as calls, and dynamic dispatch
//! beyond the name (`x.f()` names every `f`, so it makes an edge only when
//! one record is called `f`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::code::lang::{GrammarError, Language};
use crate::input::dataset::Repo;

/// A function record of the repository.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionNode {
    pub path: String,
    pub name: String,
    /// The class, `impl` or type around it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Lines `[start_line, end_line)`, 0-based, as the record gives them.
    pub start_line: usize,
    pub end_line: usize,
    /// The record's byte range in its file.
    pub start_byte: usize,
    pub end_byte: usize,
}

/// The call graph of one repository.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CallGraph {
    /// In dataset order: files in `functions` order, records in order.
    pub nodes: Vec<FunctionNode>,
    /// `edges[a]`: the nodes `a` calls, sorted, each once.
    pub edges: Vec<Vec<usize>>,
    /// Names that two or more records share: calls to them make no edge.
    pub ambiguous: BTreeSet<String>,
}

impl CallGraph {
    /// Every edge as (caller, callee) node indexes, callers in order.
    pub fn edge_list(&self) -> Vec<(usize, usize)> {
        self.edges.iter().enumerate().flat_map(|(a, bs)| bs.iter().map(move |&b| (a, b))).collect()
    }
}

/// One repository's graph, named.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RepoGraph {
    pub language: Language,
    pub repo: String,
    #[serde(flatten)]
    pub graph: CallGraph,
}

/// The call graph of every repository of `dataset` in `languages` (all
/// when empty), in file order; natively on the machine's cores, a
/// repository per thread at a time (parsing is most of the time), in
/// wasm32 on the calling thread. The first error in file order is returned.
pub fn dataset_graphs(
    dataset: &crate::input::dataset::Dataset,
    languages: &[Language],
) -> Result<Vec<RepoGraph>, GrammarError> {
    let mut repos = Vec::new();
    for (key, list) in &dataset.languages {
        let language = Language::from_name(key)?;
        if !languages.is_empty() && !languages.contains(&language) {
            continue;
        }
        repos.extend(list.iter().map(|r| (language, r)));
    }
    let one = |&(language, repo): &(Language, &Repo)| -> Result<RepoGraph, GrammarError> {
        Ok(RepoGraph { language, repo: repo.repo.clone(), graph: call_graph(repo, language)? })
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = crate::prompt::context::default_threads().clamp(1, repos.len().max(1));
        if threads > 1 {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let mut slots: Vec<Option<Result<RepoGraph, GrammarError>>> =
                (0..repos.len()).map(|_| None).collect();
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|_| {
                        s.spawn(|| {
                            let mut mine = Vec::new();
                            loop {
                                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(r) = repos.get(i) else { break mine };
                                mine.push((i, one(r)));
                            }
                        })
                    })
                    .collect();
                for h in handles {
                    match h.join() {
                        Ok(mine) => mine.into_iter().for_each(|(i, g)| slots[i] = Some(g)),
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                }
            });
            // Every index was taken by one thread: every slot is filled.
            return slots.into_iter().flatten().collect();
        }
    }
    repos.iter().map(one).collect()
}

/// The call graph of `repo`, a repository in `language`. A file that does
/// not parse is an error naming it.
pub fn call_graph(repo: &Repo, language: Language) -> Result<CallGraph, GrammarError> {
    let mut nodes = Vec::new();
    // Per file: the node indexes of its records.
    let mut per_file: Vec<(&str, Vec<usize>)> = Vec::new();
    for (path, records) in &repo.functions {
        let mut ids = Vec::new();
        for f in records {
            ids.push(nodes.len());
            nodes.push(FunctionNode {
                path: path.clone(),
                name: f.name.clone(),
                class: None,
                start_line: f.start_line,
                end_line: f.end_line.max(f.start_line + 1),
                start_byte: f.start_byte,
                end_byte: f.end_byte,
            });
        }
        per_file.push((path.as_str(), ids));
    }
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &nodes {
        *count.entry(n.name.as_str()).or_default() += 1;
    }
    let unique: BTreeMap<String, usize> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| count.get(n.name.as_str()) == Some(&1))
        .map(|(i, n)| (n.name.clone(), i))
        .collect();
    let ambiguous: BTreeSet<String> =
        count.iter().filter(|(_, c)| **c > 1).map(|(n, _)| n.to_string()).collect();

    let grammar = language.grammar();
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); nodes.len()];
    for (path, ids) in &per_file {
        let Some(text) = repo.content.get(*path) else { continue };
        let tree = grammar.parse(text.as_bytes())?;
        let source = text.as_bytes();
        // The innermost record holding each line (the latest start, then
        // the earliest end): records laid down in that order, each over
        // the lines before it.
        let lines = text.bytes().filter(|&b| b == b'\n').count() + 1;
        let mut owner_of: Vec<Option<usize>> = vec![None; lines];
        let mut order = ids.clone();
        order.sort_by_key(|&i| (nodes[i].start_line, std::cmp::Reverse(nodes[i].end_line)));
        for &i in &order {
            let end = nodes[i].end_line.min(lines);
            for slot in owner_of.iter_mut().take(end).skip(nodes[i].start_line) {
                *slot = Some(i);
            }
        }
        // One walk: the function node starting on each line (the innermost
        // of a line's, for the records' classes) and the calls.
        let mut starts: BTreeMap<usize, tree_sitter::Node> = BTreeMap::new();
        pre_order(&tree, |node| {
            if grammar.is_function(node) || is_method_like(language, node) {
                starts.insert(node.start_position().row, node);
            }
            let Some(callee) = callee_name(language, node, source) else { return };
            let line = node.start_position().row;
            let owner = owner_of.get(line).copied().flatten();
            if let (Some(a), Some(&b)) = (owner, unique.get(callee)) {
                edges[a].insert(b);
            }
        });
        for &i in ids {
            nodes[i].class = starts
                .get(&nodes[i].start_line)
                .and_then(|f| enclosing_class(language, *f, source));
        }
    }
    Ok(CallGraph {
        nodes,
        edges: edges.into_iter().map(|s| s.into_iter().collect()).collect(),
        ambiguous,
    })
}

/// Call `visit` on every node of `tree`, parents before children.
fn pre_order<'t>(tree: &'t tree_sitter::Tree, mut visit: impl FnMut(tree_sitter::Node<'t>)) {
    crate::code::lang::pre_order(tree, |n| {
        visit(n);
        true
    });
}

/// The text of `node`, if it is UTF-8.
fn text<'s>(node: tree_sitter::Node, source: &'s [u8]) -> Option<&'s str> {
    std::str::from_utf8(source.get(node.start_byte()..node.end_byte())?).ok()
}

/// The last identifier of a callee expression: `f`, `x.f`, `m::f`,
/// `f::<T>`, `f<T>` → f; anything else (a call through a value) → None.
fn last_name<'s>(node: tree_sitter::Node, source: &'s [u8]) -> Option<&'s str> {
    let field = |f: &str| node.child_by_field_name(f);
    match node.kind() {
        "identifier" | "field_identifier" | "property_identifier" | "type_identifier" => {
            text(node, source)
        }
        // Python `x.f`, C++'s and Go's selectors, TS `x.f`, Rust `x.f`.
        "attribute" => last_name(field("attribute")?, source),
        "member_expression" => last_name(field("property")?, source),
        "selector_expression" => last_name(field("field")?, source),
        "field_expression" => last_name(field("field")?, source),
        // Rust `m::f`, C++ `ns::f`.
        "scoped_identifier" | "qualified_identifier" | "scoped_type_identifier" => {
            last_name(field("name")?, source)
        }
        // Rust `f::<T>`, C++ `f<T>`, Java/TS generic types.
        "generic_function" => last_name(field("function")?, source),
        "template_function" | "template_type" => last_name(field("name")?, source),
        "generic_type" => {
            let mut c = node.walk();
            let first = node.named_children(&mut c).next()?;
            last_name(first, source)
        }
        _ => None,
    }
}

/// If `node` is a call, its callee's last identifier (the table above).
pub fn callee_name<'s>(
    language: Language,
    node: tree_sitter::Node,
    source: &'s [u8],
) -> Option<&'s str> {
    let field = |f: &str| node.child_by_field_name(f);
    let callee = match (language, node.kind()) {
        (Language::Python, "call") => field("function")?,
        (Language::Java, "method_invocation") => field("name")?,
        (Language::Java, "object_creation_expression") => field("type")?,
        (Language::TypeScript, "call_expression") => field("function")?,
        (Language::TypeScript, "new_expression") => field("constructor")?,
        (Language::Rust | Language::Go | Language::Cpp, "call_expression") => field("function")?,
        (Language::Cpp, "new_expression") => field("type")?,
        _ => return None,
    };
    last_name(callee, source)
}

/// The class, `impl` or type around the function node `f`: its nearest
/// enclosing class-like node (a Go method: its receiver's type).
fn enclosing_class(language: Language, f: tree_sitter::Node, source: &[u8]) -> Option<String> {
    if language == Language::Go {
        let recv = f.child_by_field_name("receiver")?;
        let mut found = None;
        pre_order_node(recv, &mut |n| {
            if found.is_none() && n.kind() == "type_identifier" {
                found = text(n, source).map(str::to_string);
            }
        });
        return found;
    }
    let mut p = f.parent();
    while let Some(n) = p {
        let name = match (language, n.kind()) {
            (Language::Python, "class_definition")
            | (
                Language::Java,
                "class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "record_declaration",
            )
            | (Language::TypeScript, "class_declaration" | "abstract_class_declaration")
            | (Language::Cpp, "class_specifier" | "struct_specifier") => {
                n.child_by_field_name("name")
            }
            (Language::Rust, "impl_item") => n.child_by_field_name("type"),
            (Language::Rust, "trait_item") => n.child_by_field_name("name"),
            _ => None,
        };
        if let Some(name) = name {
            return last_name(name, source).or_else(|| text(name, source)).map(str::to_string);
        }
        p = n.parent();
    }
    None
}

/// Function nodes the function query does not match but records hold:
/// Go methods, TypeScript methods, C++ functions with a qualified name.
fn is_method_like(language: Language, n: tree_sitter::Node) -> bool {
    matches!(
        (language, n.kind()),
        (Language::Go, "method_declaration")
            | (Language::TypeScript, "method_definition")
            | (Language::Cpp, "function_definition")
            | (Language::Java, "constructor_declaration")
    )
}

/// [`pre_order`] from `node`.
fn pre_order_node<'t>(node: tree_sitter::Node<'t>, visit: &mut impl FnMut(tree_sitter::Node<'t>)) {
    visit(node);
    let mut c = node.walk();
    for child in node.children(&mut c) {
        pre_order_node(child, visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::dataset::Dataset;

    /// A repository of `files` whose function records are every function
    /// node of the files (as a curation finds them), in file order.
    fn repo(language: Language, files: &[(&str, &str)]) -> Repo {
        let grammar = language.grammar();
        let mut functions = serde_json::Map::new();
        for (path, text) in files {
            let tree = grammar.parse(text.as_bytes()).expect("parses");
            let mut records = Vec::new();
            pre_order(&tree, |n| {
                if !(grammar.is_function(n) || is_method_like(language, n)) {
                    return;
                }
                let name = n
                    .child_by_field_name("name")
                    .or_else(|| {
                        let d = n.child_by_field_name("declarator")?;
                        d.child_by_field_name("declarator")
                    })
                    .and_then(|x| {
                        last_name(x, text.as_bytes()).or_else(|| super::text(x, text.as_bytes()))
                    });
                let Some(name) = name else { return };
                records.push(serde_json::json!({
                    "name": name,
                    "start_line": n.start_position().row,
                    "end_line": n.end_position().row + 1,
                    "start_byte": n.start_byte(), "end_byte": n.end_byte(),
                }));
            });
            functions.insert(path.to_string(), records.into());
        }
        let content: serde_json::Map<String, serde_json::Value> =
            files.iter().map(|(p, t)| (p.to_string(), (*t).into())).collect();
        let v = serde_json::json!({language.name(): [{"repo": "o/r", "content": content,
            "dependency": {}, "functions": functions, "needles": []}]});
        let d = Dataset::from_bytes(v.to_string().as_bytes(), "test").expect("reads");
        d.languages[language.name()][0].clone()
    }

    /// The edges as "caller -> callee" names (class-qualified where there
    /// is a class), sorted.
    fn edges(language: Language, files: &[(&str, &str)]) -> Vec<String> {
        let g = call_graph(&repo(language, files), language).expect("graph");
        let name = |i: usize| {
            let n = &g.nodes[i];
            match &n.class {
                Some(c) => format!("{c}.{}", n.name),
                None => n.name.clone(),
            }
        };
        let mut out: Vec<String> =
            g.edge_list().into_iter().map(|(a, b)| format!("{} -> {}", name(a), name(b))).collect();
        out.sort();
        out
    }

    #[test]
    fn python_calls_methods_recursion_and_nested_functions() {
        let a = "\
import b

def main(x):
    helper(x)
    b.Parser().parse(x)
    return [render(y) for y in x]

def helper(x):
    if x:
        return helper(x[1:])
    def inner():
        return render(x)
    return inner
";
        let b = "\
class Parser:
    def parse(self, x):
        return self.tokens(x)

    def tokens(self, x):
        f = lambda y: render(y)
        return f(x)

def render(y):
    return str(y)
";
        assert_eq!(
            edges(Language::Python, &[("a.py", a), ("b.py", b)]),
            [
                "Parser.parse -> Parser.tokens",
                "Parser.tokens -> render",
                "helper -> helper",
                "inner -> render",
                "main -> Parser.parse",
                "main -> helper",
                "main -> render",
            ]
        );
    }

    #[test]
    fn a_name_two_records_share_makes_no_edge() {
        let a = "def run():\n    save()\n    load()\n\ndef save():\n    pass\n";
        let b = "class Store:\n    def save(self):\n        pass\n\ndef load():\n    pass\n";
        let g = call_graph(&repo(Language::Python, &[("a.py", a), ("b.py", b)]), Language::Python)
            .expect("graph");
        assert_eq!(g.ambiguous.iter().collect::<Vec<_>>(), ["save"]);
        assert_eq!(edges(Language::Python, &[("a.py", a), ("b.py", b)]), ["run -> load"]);
    }

    #[test]
    fn java_invocations_and_creations() {
        let a = "\
class App {
    void start() {
        Engine e = new Engine();
        e.boot();
        log(\"x\");
    }
    void log(String s) { System.out.println(s); }
}
class Engine {
    void boot() { start2(); }
    void start2() { boot(); }
}
";
        assert_eq!(
            edges(Language::Java, &[("App.java", a)]),
            [
                "App.start -> App.log",
                "App.start -> Engine.boot",
                "Engine.boot -> Engine.start2",
                "Engine.start2 -> Engine.boot"
            ]
        );
    }

    #[test]
    fn typescript_calls_methods_and_arrow_functions() {
        let a = "\
export function main(xs: number[]) {
  const f = (x: number) => double(x);
  return xs.map(f).map((x) => new Box(x).show());
}
function double(x: number) { return twice(x); }
function twice(x: number) { return x * 2; }
class Box {
  constructor(private x: number) {}
  show() { return twice(this.x); }
}
";
        // `new Box(…)` names the class, which is no record (its
        // constructor is one, named `constructor`).
        assert_eq!(
            edges(Language::TypeScript, &[("a.ts", a)]),
            ["Box.show -> twice", "double -> twice", "main -> Box.show", "main -> double"]
        );
    }

    #[test]
    fn rust_paths_methods_generics_and_no_macros() {
        let a = "\
fn main() {
    let p = Parser::new();
    p.parse();
    util::helper::<u8>();
    println!(\"{}\", hidden());
}
struct Parser;
impl Parser {
    fn new() -> Parser { Parser }
    fn parse(&self) { self.step(); }
    fn step(&self) { self.parse(); }
}
fn hidden() -> u8 { 0 }
mod util { pub fn helper<T>() {} }
";
        assert_eq!(
            edges(Language::Rust, &[("a.rs", a)]),
            [
                "Parser.parse -> Parser.step",
                "Parser.step -> Parser.parse",
                "main -> Parser.new",
                "main -> Parser.parse",
                "main -> helper"
            ]
        );
    }

    #[test]
    fn go_functions_methods_and_packages() {
        let a = "\
package main

func main() {
	s := NewServer()
	s.Serve()
	fmt.Println(helper())
}

func NewServer() *Server { return &Server{} }

func (s *Server) Serve() { s.handle() }

func (s *Server) handle() { go func() { helper() }() }

func helper() int { return 1 }
";
        assert_eq!(
            edges(Language::Go, &[("main.go", a)]),
            [
                "Server.Serve -> Server.handle",
                "Server.handle -> helper",
                "main -> NewServer",
                "main -> Server.Serve",
                "main -> helper"
            ]
        );
    }

    #[test]
    fn cpp_calls_members_namespaces_and_templates() {
        let a = "\
int twice(int x) { return x * 2; }
namespace util { int clamp(int x) { return twice(x); } }
template <typename T> T id(T x) { return x; }
int main() {
    util::clamp(1);
    id<int>(2);
    auto f = [](int x) { return twice(x); };
    return f(3);
}
";
        assert_eq!(
            edges(Language::Cpp, &[("a.cpp", a)]),
            ["clamp -> twice", "main -> clamp", "main -> id", "main -> twice"]
        );
    }

    /// Third graphs per language: a name two functions share makes no edge
    /// (overloads, same-name methods), a cycle across files is kept, a call
    /// in a nested closure or lambda is its enclosing function's.
    #[test]
    fn python_cycles_across_files_decorators_and_shared_names() {
        let a = "\
from b import pong

def ping(n):
    return pong(n - 1) if n else 0

@register(\"x\")
def handler():
    return list(map(lambda v: ping(v), [1]))

def register(name):
    return lambda f: f
";
        let b = "\
def pong(n):
    from a import ping
    return ping(n)

class A:
    def close(self):
        pass

class B:
    def close(self):
        pass

def shutdown(x):
    x.close()
";
        // `@register(...)` is on the line before `def handler`: no record
        // holds it, so it makes no edge; `close` is shared: no edge.
        assert_eq!(
            edges(Language::Python, &[("a.py", a), ("b.py", b)]),
            ["handler -> ping", "ping -> pong", "pong -> ping"]
        );
    }

    #[test]
    fn java_overloads_share_a_name_and_lambdas_lend_their_calls() {
        let a = "\
class Io {
    void write(int x) { flush(); }
    void write(String s) { flush(); }
    void flush() { }
    void all(java.util.List<Integer> xs) {
        xs.forEach(x -> write(x));
        xs.forEach(x -> flush());
    }
}
";
        assert_eq!(
            edges(Language::Java, &[("Io.java", a)]),
            ["Io.all -> Io.flush", "Io.write -> Io.flush", "Io.write -> Io.flush"]
        );
    }

    #[test]
    fn typescript_same_name_methods_and_a_cycle_across_files() {
        let a = "\
export function even(n: number): boolean { return n === 0 ? true : odd(n - 1); }
class Cat { speak() { return 'meow'; } }
class Dog { speak() { return 'woof'; } }
export function chorus(xs: Array<Cat | Dog>) { return xs.map((x) => x.speak()); }
";
        let b =
            "export function odd(n: number): boolean { return n === 0 ? false : even(n - 1); }\n";
        assert_eq!(
            edges(Language::TypeScript, &[("a.ts", a), ("b.ts", b)]),
            ["even -> odd", "odd -> even"]
        );
    }

    #[test]
    fn rust_same_name_methods_closures_and_trait_impls() {
        let a = "\
trait Draw { fn draw(&self); }
struct A;
struct B;
impl Draw for A { fn draw(&self) { helper(); } }
impl Draw for B { fn draw(&self) { helper(); } }
fn helper() {}
fn paint(xs: &[Box<dyn Draw>]) {
    xs.iter().for_each(|x| x.draw());
    let f = || helper();
    f();
}
";
        // Three records are called `draw` (the trait's, A's, B's): no edge.
        assert_eq!(
            edges(Language::Rust, &[("a.rs", a)]),
            ["A.draw -> helper", "B.draw -> helper", "paint -> helper"]
        );
    }

    #[test]
    fn go_closures_recursion_and_same_name_methods() {
        let a = "\
package p

type A struct{}
type B struct{}

func (a A) Close() error { return nil }
func (b B) Close() error { return nil }

func walk(n int) int {
	if n == 0 {
		return 0
	}
	return walk(n - 1)
}

func run(xs []A) {
	defer func() { walk(3) }()
	for _, x := range xs {
		x.Close()
	}
}
";
        assert_eq!(edges(Language::Go, &[("p.go", a)]), ["run -> walk", "walk -> walk"]);
    }

    #[test]
    fn cpp_overloads_methods_and_a_cycle() {
        let a = "\
void log(int x) {}
void log(const char* s) {}
int pong(int n);
int ping(int n) { log(n); return n ? pong(n - 1) : 0; }
int pong(int n) { return ping(n); }
struct Box { int size() { return ping(1); } };
";
        // `log` is overloaded (two records): no edge.
        assert_eq!(
            edges(Language::Cpp, &[("a.cpp", a)]),
            ["Box.size -> ping", "ping -> pong", "pong -> ping"]
        );
    }
}
