//! Comment cleaning (upstream HEAD, docs/parity.md K1–K6).

use crate::lang::{GrammarError, Language};

/// Comment captures of `source`, sorted by start, last first (stable, like
/// Python's `sort(reverse=True)`).
fn comment_spans_last_first(
    language: Language,
    source: &[u8],
) -> Result<Vec<crate::lang::Span>, GrammarError> {
    let g = language.grammar();
    let tree = g.parse(source)?;
    let mut spans = g.comment_spans(&tree, source);
    spans.sort_by_key(|s| std::cmp::Reverse(s.start));
    Ok(spans)
}

/// `clean_segment_comments` (K3): delete every comment capture except the
/// synthetic `Path:` lines, from the last one back. `Ok(None)` if the result
/// is not UTF-8 (Python raises).
pub(super) fn clean_segment_comments(
    language: Language,
    segment: &str,
    context_paths: &[&str],
) -> Result<Option<String>, GrammarError> {
    let source = segment.as_bytes();
    let cp = language.comment_prefix();
    let spans = comment_spans_last_first(language, source)?;
    let mut out = source.to_vec();
    for s in spans {
        let text = &source[s.start..s.end];
        let is_path = context_paths.iter().any(|p| {
            text.len() == cp.len() + 7 + p.len()
                && text.starts_with(cp.as_bytes())
                && text[cp.len()..].starts_with(b" Path: ")
                && &text[cp.len() + 7..] == p.as_bytes()
        });
        if is_path {
            continue;
        }
        // Python slices of the shrinking bytes clamp.
        let (a, b) = (s.start.min(out.len()), s.end.min(out.len()));
        out.drain(a..b);
    }
    Ok(String::from_utf8(out).ok())
}

/// The comment blanking of `clean_partial_file`: each comment capture of the
/// whole file is replaced by as many "\n" as it spans.
pub(super) fn blank_comments(
    language: Language,
    whole: &str,
) -> Result<Option<String>, GrammarError> {
    let source = whole.as_bytes();
    let spans = comment_spans_last_first(language, source)?;
    let mut out = source.to_vec();
    for s in spans {
        let (a, b) = (s.start.min(out.len()), s.end.min(out.len()));
        let newlines = out[a..b].iter().filter(|&&ch| ch == b'\n').count();
        out.splice(a..b, std::iter::repeat_n(b'\n', newlines));
    }
    Ok(String::from_utf8(out).ok())
}

/// `clean_partial_file` (K2): path comment + the first `partial_lines - 1`
/// lines of the blanked whole file (`blanked`, from [`blank_comments`];
/// Python slice: a negative end counts from the back) + `"...\n"` glued to
/// the last kept line.
pub(super) fn clean_partial_file(
    language: Language,
    blanked: &str,
    partial_lines: i64,
    path: &str,
) -> String {
    let lines: Vec<&str> = blanked.split('\n').collect();
    let end = python_slice_end(lines.len(), partial_lines - 1);
    let mut out = format!("{} Path: {}\n", language.comment_prefix(), path);
    out.push_str(&lines[..end].join("\n"));
    out.push_str("...\n");
    out
}

/// The end index of Python's `list[:end]` for a list of `len` items.
pub(super) fn python_slice_end(len: usize, end: i64) -> usize {
    if end >= 0 {
        (end as usize).min(len)
    } else {
        len.saturating_sub(end.unsigned_abs() as usize)
    }
}
