//! The code context of a call-path task (NOT UPSTREAM; docs/call-path.md):
//! SNF's window — the official builder's file order, line walk and `Path:`
//! lines, at the task's `code_context_size` — placed so that every
//! function of the gold path (the source and the target of a no-path task)
//! is inside it whole, with each one's depth recorded.
//!
//! Built with the corrected construction (`Protocol::Corrected`, the leak
//! audit's: nothing marks the function the window is built around) and
//! comments kept.
//!
//! **Placement.** The window is built around the earliest of the functions
//! in file order (the *anchor*, in the needle's place). Built first with
//! the anchor at the top (no code above it), the window
//! reaches furthest down; if the last function is not inside it whole, the
//! task does not fit this size ([`Windows::place`] gives `None`, and selection
//! passes the pair over). Otherwise the tokens left below the last
//! function (the slack) are shared: `placement` of them go above the
//! anchor, so the span of functions sits at `placement` through the window
//! — a repository's tasks get `(i + 0.5) / n`, as SNF's needles get their
//! depths. A build that then loses a function at an edge (a count at a
//! file's boundary differs by a token) falls back to the anchor at the top.
//!
//! A function's **depth** is the share of the context's tokens before it,
//! as SNF's `position_ratio` is a needle's.

use std::collections::HashMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::graph::{CallGraph, FunctionNode};
use crate::code::lang::Language;
use crate::code::tokenize::Tokenizer;
use crate::input::dataset::{Dataset, Needle, Repo};
use crate::prompt::context::{
    emitted_needle, CommentMode, ContextBuilder, ContextError, ContextOptions, PlacedTask,
};
use crate::report::Protocol;

/// A built window: the code context and where each function is in it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathWindow {
    pub code_context: String,
    pub code_context_ntokens: usize,
    /// Each function's byte range in `code_context`, in the order asked.
    pub spans: Vec<Range<usize>>,
    /// Each function's depth: the share of the context's tokens before it.
    pub depths: Vec<f64>,
    /// Where the span of functions was put: 0 = at the top, 1 = as low as
    /// the window allows.
    pub placement: f64,
}

/// The record of `f` in `repo` as the builder's needle (no description).
fn as_needle(repo: &Repo, f: &FunctionNode) -> Option<Needle> {
    let record =
        repo.functions.get(&f.path)?.iter().find(|r| {
            r.name == f.name && r.start_byte == f.start_byte && r.end_byte == f.end_byte
        })?;
    Some(Needle::of_function(&f.path, record))
}

/// Builds the windows of one dataset's call-path tasks at one size,
/// keeping the current repo's file order and line counts.
pub struct Windows<'d, 't> {
    builder: ContextBuilder<'d, 't>,
    dataset: &'d Dataset,
    code_context_size: usize,
    /// The current repo and each file's rank in its file order.
    ranks: Option<(Language, usize, HashMap<&'d str, usize>)>,
}

impl<'d, 't> Windows<'d, 't> {
    pub fn new(dataset: &'d Dataset, code_context_size: usize, tokenizer: &'t Tokenizer) -> Self {
        let options = ContextOptions {
            code_context_size,
            protocol: Protocol::Corrected,
            ..ContextOptions::default()
        };
        Windows {
            builder: ContextBuilder::new(dataset, options, tokenizer),
            dataset,
            code_context_size,
            ranks: None,
        }
    }

    /// The window of repo `repo_index` of `language` (whose graph is
    /// `graph`) holding the functions `nodes` (depths and spans in the
    /// order given) at `placement` (0 to 1); `None` when they do not fit one
    /// window of this size.
    pub fn place(
        &mut self,
        language: Language,
        repo_index: usize,
        graph: &CallGraph,
        nodes: &[usize],
        placement: f64,
    ) -> Result<Option<PathWindow>, ContextError> {
        let dataset = self.dataset;
        let Some(repo) = dataset.repos(language.name()).and_then(|r| r.get(repo_index)) else {
            return Ok(None);
        };
        if !matches!(&self.ranks, Some((l, r, _)) if *l == language && *r == repo_index) {
            let ranks = repo.file_order().into_iter().enumerate().map(|(i, p)| (p, i)).collect();
            self.ranks = Some((language, repo_index, ranks));
        }
        let Some((_, _, ranks)) = &self.ranks else { return Ok(None) };
        // The functions in file order, each with its text; a file outside
        // the order is never shown.
        let mut ranked = Vec::with_capacity(nodes.len());
        let mut texts = Vec::with_capacity(nodes.len());
        let mut needles = Vec::with_capacity(nodes.len());
        for &n in nodes {
            let f = &graph.nodes[n];
            let (Some(&rank), Some(source), Some(needle)) =
                (ranks.get(f.path.as_str()), repo.content.get(&f.path), as_needle(repo, f))
            else {
                return Ok(None);
            };
            ranked.push((rank, f.start_byte, n));
            let (text, _) =
                emitted_needle(language, source, &needle, CommentMode::None, Protocol::Corrected)?;
            texts.push(text);
            needles.push(needle);
        }
        let Some(&(_, _, anchor)) = ranked.iter().min() else { return Ok(None) };
        let Some(i) = nodes.iter().position(|&n| n == anchor) else { return Ok(None) };
        let anchor_needle = &needles[i];
        let b = &mut self.builder;
        let anchor_tokens = b.count(&texts[i])? as f64;
        // `make_code_context`'s prefix budget is size × ratio − anchor / 2:
        // the ratio that gives `above` tokens of code above the anchor.
        let size = self.code_context_size as f64;
        let ratio_for = |above: f64| ((above + anchor_tokens / 2.0) / size).clamp(0.0, 1.0);
        let top = b.build_around(language, repo_index, anchor_needle, ratio_for(0.0))?;
        let Some(top_spans) = find_all(language, graph, nodes, anchor, &top, &texts) else {
            return Ok(None);
        };
        let last_end = top_spans.iter().map(|s| s.end).max().unwrap_or(0);
        let below = top
            .task
            .code_context_ntokens
            .saturating_sub(b.count(&top.task.code_context[..last_end])?);
        let placement = placement.clamp(0.0, 1.0);
        let above = (below as f64 * placement).floor();
        let mut chosen = None;
        if above >= 1.0 {
            let moved = b.build_around(language, repo_index, anchor_needle, ratio_for(above))?;
            if let Some(spans) = find_all(language, graph, nodes, anchor, &moved, &texts) {
                chosen = Some((moved, spans, placement));
            }
        }
        let (built, spans, placement) = chosen.unwrap_or((top, top_spans, 0.0));
        let total = built.task.code_context_ntokens.max(1) as f64;
        let mut depths = Vec::with_capacity(spans.len());
        for s in &spans {
            depths.push(b.count(&built.task.code_context[..s.start])? as f64 / total);
        }
        Ok(Some(PathWindow {
            code_context_ntokens: built.task.code_context_ntokens,
            code_context: built.task.code_context,
            spans,
            depths,
            placement,
        }))
    }
}

/// Each function's span in the built context (the anchor's where the
/// builder put it), or `None` if one is not inside whole.
fn find_all(
    language: Language,
    graph: &CallGraph,
    nodes: &[usize],
    anchor: usize,
    built: &PlacedTask,
    texts: &[String],
) -> Option<Vec<Range<usize>>> {
    let ctx = built.task.code_context.as_str();
    let anchor_file = graph.nodes[anchor].path.as_str();
    let header = |path: &str| format!("{} Path: {path}", language.comment_prefix());
    let next_header = |from: usize| {
        let marker = format!("\n{} Path: ", language.comment_prefix());
        ctx[from..].find(&marker).map_or(ctx.len(), |i| from + i + 1)
    };
    let mut out = Vec::with_capacity(nodes.len());
    for (&n, text) in nodes.iter().zip(texts) {
        if n == anchor {
            out.push(built.needle.clone());
            continue;
        }
        let f = &graph.nodes[n];
        // The region of the context that holds f's file.
        let start = if f.path == anchor_file {
            built.needle.end
        } else {
            let h = header(&f.path);
            let at = line_start_match(ctx, &h)?;
            at + h.len()
        };
        let end = next_header(start);
        let i = ctx[start..end].find(text.as_str())?;
        out.push(start + i..start + i + text.len());
    }
    Some(out)
}

/// Where `line` is a whole line of `ctx`.
fn line_start_match(ctx: &str, line: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = ctx[from..].find(line) {
        let at = from + i;
        let starts = at == 0 || ctx.as_bytes()[at - 1] == b'\n';
        let end = at + line.len();
        let ends = end == ctx.len() || ctx.as_bytes()[end] == b'\n';
        if starts && ends {
            return Some(at);
        }
        from = at + 1;
    }
    None
}
