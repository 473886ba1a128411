//! A call-path reply read and judged (NOT UPSTREAM; docs/call-path.md).
//!
//! **Reading** ([`read_reply`]) is lenient, and what was read is shown in
//! the verdict: code-fence lines are dropped; a line is an answer line when
//! it is one function name, or names joined by arrows (`->`, `→`, `=>`),
//! each name possibly numbered (`1.`, `2)`), bulleted (`-`, `*`, `•`),
//! quoted in backticks or bold (never underscores: `_private` is a name), followed by `()` or its arguments, or
//! qualified (`Class.method`, `file.py::name`, `pkg/file.go:name` → the last
//! identifier); a line of prose (words with spaces between them) is not,
//! nor is a heading (a line ending in `:`), and a label before the answer on
//! its line (`Path: a -> b`) is dropped. A line that says `NO PATH` (any case, with punctuation around it) answers
//! that there is none. When a reply holds both, the last one given is the
//! answer; a reply with neither is unreadable, named so.
//!
//! **Judging** ([`judge`]): a path task passes when the names make a path
//! of the graph — each name calls the next — from the source to the target
//! of the shortest length (any shortest path counts); a valid but longer
//! path, a step that is not a call (named), a wrong start or end, a name
//! the repository has no function of, and `NO PATH` are each their own
//! verdict. A no-path task passes only on `NO PATH`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::graph::CallGraph;
use super::select::{shortest_paths_len, PathPair};

/// What a reply answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// Function names, from source to target, as read.
    Path(Vec<String>),
    NoPath,
}

/// How a reply fared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum PathVerdict {
    /// A shortest path, or `NO PATH` where there is none.
    Pass,
    /// A path of the graph from the source to the target, longer than the
    /// shortest.
    Longer { calls: usize, shortest: usize },
    /// A step that is not a call.
    NotACall { from: String, to: String },
    /// A name no function of the repository has.
    UnknownName { name: String },
    /// The path does not start at the source or end at the target.
    WrongEnds { first: String, last: String },
    /// `NO PATH` where a path exists.
    MissedPath,
    /// A path claimed where there is none.
    ClaimedPath,
    /// Neither names nor `NO PATH`.
    Unreadable { reason: String },
}

impl PathVerdict {
    pub fn passed(&self) -> bool {
        *self == PathVerdict::Pass
    }
}

/// `text` as a function name, if it is one: numbering, bullets, quotes,
/// emphasis, a call's parentheses and a qualifier stripped.
fn name_of(text: &str) -> Option<String> {
    let mut t = text.trim();
    // Bullets and numbering: "- ", "* ", "• ", "1.", "2)", "(3)".
    loop {
        let before = t;
        t = t.trim_start_matches(['-', '*', '•', '+']).trim_start();
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            let rest = &t[digits..];
            if let Some(r) = rest.strip_prefix(['.', ')', ':']) {
                t = r.trim_start();
            }
        }
        if t == before {
            break;
        }
    }
    // Not `_`: Python's private names start with one (`_helper`, `__init__`).
    let t = t.trim_matches(['`', '*', '"', '\'', ',', ';', '.']);
    // A call's parentheses and its arguments.
    let t = match t.find('(') {
        Some(i) if t.ends_with(')') => &t[..i],
        _ => t,
    };
    let t = t.trim_end_matches(['`', '*', ',', ';', '.', ':']);
    // The last identifier of `Class.method`, `file.py::name`, `a/b.go:name`.
    let last = t.rsplit([':', '.', '/', '\\', '#']).next().unwrap_or("");
    let is_ident = !last.is_empty()
        && last.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !last.starts_with(|c: char| c.is_ascii_digit());
    // A qualifier with spaces inside is prose ("the function main").
    (is_ident && !t.contains(char::is_whitespace)).then(|| last.to_string())
}

/// Whether a line says there is no path.
fn says_no_path(line: &str) -> bool {
    let words: String = line
        .chars()
        .map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { ' ' })
        .collect();
    words.split_whitespace().collect::<Vec<_>>() == ["no", "path"]
}

/// Read a reply (see the module's rules).
pub fn read_reply(reply: &str) -> Result<Reading, String> {
    let mut answer: Option<Reading> = None;
    // Whether the last line read was an answer line: consecutive answer
    // lines make one path; any other line ends it.
    let mut in_run = false;
    for line in reply.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("```") || t.starts_with("~~~") {
            continue;
        }
        // Bold is read through; a heading ("Answer:", "The path:") is not a
        // name; a label before the answer on its line ("Path: a -> b") is
        // dropped.
        let bold = t.replace("**", "");
        let t = bold.trim();
        if t.ends_with(':') && !t.ends_with("::") {
            in_run = false;
            continue;
        }
        let t = t.rsplit_once(": ").map_or(t, |(_, rest)| rest.trim());
        if says_no_path(t) {
            answer = Some(Reading::NoPath);
            in_run = false;
            continue;
        }
        let pieces = t.split("->").flat_map(|p| p.split('→')).flat_map(|p| p.split("=>"));
        match pieces.map(name_of).collect::<Option<Vec<String>>>() {
            Some(names) if !names.is_empty() => {
                match (&mut answer, in_run) {
                    (Some(Reading::Path(path)), true) => path.extend(names),
                    _ => answer = Some(Reading::Path(names)),
                }
                in_run = true;
            }
            _ => in_run = false,
        }
    }
    answer.ok_or_else(|| {
        format!(
            "no function names and no NO PATH in the reply: {:?}",
            crate::llm::snippet_line(reply)
        )
    })
}

/// Judge a reply to `task` on `graph`.
pub fn judge(graph: &CallGraph, task: &PathPair, reply: &str) -> (Option<Reading>, PathVerdict) {
    let reading = match read_reply(reply) {
        Ok(r) => r,
        Err(reason) => return (None, PathVerdict::Unreadable { reason }),
    };
    let verdict = judge_reading(graph, task, &reading);
    (Some(reading), verdict)
}

/// Judge what was read.
pub fn judge_reading(graph: &CallGraph, task: &PathPair, reading: &Reading) -> PathVerdict {
    let names = match (reading, task.no_path.is_some()) {
        (Reading::NoPath, true) => return PathVerdict::Pass,
        (Reading::NoPath, false) => return PathVerdict::MissedPath,
        (Reading::Path(names), _) => names,
    };
    let source = &graph.nodes[task.source];
    let target = &graph.nodes[task.target];
    let (Some(first), Some(last)) = (names.first(), names.last()) else {
        return PathVerdict::Unreadable { reason: "an empty path".into() };
    };
    if *first != source.name || *last != target.name || names.len() < 2 {
        return if task.no_path.is_some() {
            PathVerdict::ClaimedPath
        } else {
            PathVerdict::WrongEnds { first: first.clone(), last: last.clone() }
        };
    }
    // Names → nodes: the ends are the task's; a name between them is the
    // one function so named (a callee's name is unique, or it makes no edge).
    let mut count: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        let e = count.entry(n.name.as_str()).or_insert((0, i));
        e.0 += 1;
    }
    let mut nodes = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let node = if k == 0 {
            task.source
        } else if k == names.len() - 1 {
            task.target
        } else {
            match count.get(name.as_str()) {
                Some(&(1, i)) => i,
                Some(_) => {
                    // A shared name: no call reaches it by name.
                    let from = names[k - 1].clone();
                    return PathVerdict::NotACall { from, to: name.clone() };
                }
                None => return PathVerdict::UnknownName { name: name.clone() },
            }
        };
        nodes.push(node);
    }
    for w in nodes.windows(2) {
        if !graph.edges[w[0]].contains(&w[1]) {
            return PathVerdict::NotACall {
                from: graph.nodes[w[0]].name.clone(),
                to: graph.nodes[w[1]].name.clone(),
            };
        }
    }
    if task.no_path.is_some() {
        // Cannot happen (a valid path contradicts the graph), said plainly.
        return PathVerdict::ClaimedPath;
    }
    let calls = nodes.len() - 1;
    let shortest = shortest_paths_len(graph, task.source, task.target).unwrap_or(calls);
    if calls == shortest {
        PathVerdict::Pass
    } else {
        PathVerdict::Longer { calls, shortest }
    }
}

/// One name of a model's path as the verdict view draws it: whether the
/// repository has a function so named, and whether the name before it
/// calls it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathStep {
    pub name: String,
    /// A function of the repository has this name (at the ends, the task's
    /// own functions when the names match).
    pub known: bool,
    /// The step before calls this one in the graph; absent for the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub called: Option<bool>,
}

/// Each name of a path `reading` of `task`, traced on `graph`: the steps
/// the verdict view draws over the gold path. Names resolve as
/// [`judge_reading`] resolves them (the ends are the task's functions when
/// named so; a name between is the one function so named, and a shared
/// name is reached by no call). Empty for `NO PATH`.
pub fn trace(graph: &CallGraph, task: &PathPair, reading: &Reading) -> Vec<PathStep> {
    let Reading::Path(names) = reading else { return Vec::new() };
    let mut count: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        let e = count.entry(n.name.as_str()).or_insert((0, i));
        e.0 += 1;
    }
    let last = names.len().saturating_sub(1);
    let mut before: Option<usize> = None;
    let mut steps = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let node = if k == 0 && graph.nodes[task.source].name == *name {
            Some(task.source)
        } else if k == last && graph.nodes[task.target].name == *name {
            Some(task.target)
        } else {
            match count.get(name.as_str()) {
                Some(&(1, i)) => Some(i),
                _ => None,
            }
        };
        let called = (k > 0).then(|| match (before, node) {
            (Some(a), Some(b)) => graph.edges[a].contains(&b),
            _ => false,
        });
        steps.push(PathStep {
            name: name.clone(),
            known: count.contains_key(name.as_str()),
            called,
        });
        before = node;
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callpath::graph::FunctionNode;
    use crate::callpath::select::Temptation;

    fn graph() -> CallGraph {
        // main -> parse -> lex -> read; main -> run -> read; read -> main is not an edge.
        // 0 main, 1 parse, 2 lex, 3 read, 4 run, 5 orphan
        let names = ["main", "parse", "lex", "read", "run", "orphan"];
        let nodes = names
            .iter()
            .enumerate()
            .map(|(i, n)| FunctionNode {
                path: format!("f{i}.py"),
                name: n.to_string(),
                class: None,
                start_line: 0,
                end_line: 1,
                start_byte: 0,
                end_byte: 0,
            })
            .collect();
        CallGraph {
            nodes,
            edges: vec![vec![1, 4], vec![2], vec![3], vec![], vec![2], vec![]],
            ambiguous: Default::default(),
        }
    }

    fn path_task() -> PathPair {
        PathPair { source: 0, target: 3, path: vec![0, 1, 2, 3], no_path: None }
    }

    #[test]
    fn replies_are_read_leniently() {
        let p = |names: &[&str]| Ok(Reading::Path(names.iter().map(|s| s.to_string()).collect()));
        assert_eq!(read_reply("main\nparse\nlex\nread"), p(&["main", "parse", "lex", "read"]));
        assert_eq!(
            read_reply("```\nmain -> run → lex => read\n```"),
            p(&["main", "run", "lex", "read"])
        );
        assert_eq!(
            read_reply("The path:\n\n1. `main()`\n2. **Parser.parse**\n3) lexer.py::lex(text)\n- io/read.go:read\n"),
            p(&["main", "parse", "lex", "read"])
        );
        assert_eq!(read_reply("There is none.\n\n**NO PATH.**"), Ok(Reading::NoPath));
        // Headings and labels are not names.
        assert_eq!(read_reply("Answer:\nmain\nread"), p(&["main", "read"]));
        assert_eq!(read_reply("**Path:** main -> read"), p(&["main", "read"]));
        assert_eq!(read_reply("Answer: NO PATH"), Ok(Reading::NoPath));
        assert_eq!(read_reply("No path"), Ok(Reading::NoPath));
        assert_eq!(read_reply("`_helper` -> __init__"), p(&["_helper", "__init__"]));
        // The last answer given counts.
        assert_eq!(
            read_reply("NO PATH\nWait, there is one:\nmain -> run -> lex -> read"),
            p(&["main", "run", "lex", "read"])
        );
        assert_eq!(read_reply("main -> read\nOn reflection:\nNO PATH"), Ok(Reading::NoPath));
        for bad in ["", "I cannot tell.", "```\n```", "The function main calls parse."] {
            let e = read_reply(bad).unwrap_err();
            assert!(e.starts_with("no function names and no NO PATH in the reply"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn the_gold_path_passes_and_every_other_answer_is_named() {
        let g = graph();
        let t = path_task();
        let j = |reply: &str| judge(&g, &t, reply).1;
        assert_eq!(j("main -> parse -> lex -> read"), PathVerdict::Pass);
        // A valid path, longer than the shortest.
        let mut g2 = graph();
        g2.edges[1].push(4);
        let longer = judge(&g2, &t, "main -> parse -> run -> lex -> read").1;
        assert_eq!(longer, PathVerdict::Longer { calls: 4, shortest: 3 });
        // Any shortest path passes: main -> run -> lex -> read is as short.
        assert_eq!(j("main\nrun\nlex\nread"), PathVerdict::Pass);
        assert_eq!(
            j("main -> parse -> read"),
            PathVerdict::NotACall { from: "parse".into(), to: "read".into() }
        );
        assert_eq!(
            j("main -> nothing -> read"),
            PathVerdict::UnknownName { name: "nothing".into() }
        );
        assert_eq!(
            j("read -> lex -> parse -> main"),
            PathVerdict::WrongEnds { first: "read".into(), last: "main".into() }
        );
        assert_eq!(j("NO PATH"), PathVerdict::MissedPath);
        assert!(matches!(j("¯\\_(ツ)_/¯ no idea"), PathVerdict::Unreadable { .. }));
        let no =
            PathPair { source: 3, target: 0, path: vec![], no_path: Some(Temptation::Reversed) };
        assert_eq!(judge(&g, &no, "NO PATH").1, PathVerdict::Pass);
        assert_eq!(
            judge(&g, &no, "read -> main").1,
            PathVerdict::NotACall { from: "read".into(), to: "main".into() }
        );
        assert_eq!(judge(&g, &no, "lex -> read").1, PathVerdict::ClaimedPath);
    }

    #[test]
    fn a_path_is_traced_step_by_step() {
        let g = graph();
        let t = path_task();
        let steps = |reply: &str| {
            let r = read_reply(reply).unwrap();
            trace(&g, &t, &r).into_iter().map(|s| (s.name, s.known, s.called)).collect::<Vec<_>>()
        };
        let s = |n: &str, known: bool, called: Option<bool>| (n.to_string(), known, called);
        assert_eq!(
            steps("main -> parse -> lex -> read"),
            vec![
                s("main", true, None),
                s("parse", true, Some(true)),
                s("lex", true, Some(true)),
                s("read", true, Some(true))
            ]
        );
        assert_eq!(
            steps("main -> nothing -> read"),
            vec![
                s("main", true, None),
                s("nothing", false, Some(false)),
                s("read", true, Some(false))
            ]
        );
        assert_eq!(steps("read -> lex"), vec![s("read", true, None), s("lex", true, Some(false))]);
        assert!(trace(&g, &t, &Reading::NoPath).is_empty());
    }
}
