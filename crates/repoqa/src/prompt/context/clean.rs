//! Comment cleaning (upstream HEAD, docs/parity.md K1–K6).

use crate::code::lang::{GrammarError, Language, Span};

/// Comment captures of `source`, sorted by start, last first (stable, like
/// Python's `sort(reverse=True)`).
fn comment_spans_last_first(language: Language, source: &[u8]) -> Result<Vec<Span>, GrammarError> {
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
    let deleted: Vec<Span> = spans
        .into_iter()
        .filter(|s| {
            let text = &source[s.start..s.end];
            let is_path = context_paths.iter().any(|p| {
                text.len() == cp.len() + 7 + p.len()
                    && text.starts_with(cp.as_bytes())
                    && text[cp.len()..].starts_with(b" Path: ")
                    && &text[cp.len() + 7..] == p.as_bytes()
            });
            !is_path
        })
        .collect();
    Ok(String::from_utf8(replace_spans(source, &deleted, Replace::Delete)).ok())
}

/// What a comment span becomes.
#[derive(Clone, Copy, Debug)]
enum Replace {
    /// Nothing (`clean_segment_comments`).
    Delete,
    /// As many "\n" as it holds (`blank_comments`).
    Newlines,
}

impl Replace {
    fn apply(self, span: &[u8]) -> impl Iterator<Item = u8> {
        let n = match self {
            Replace::Delete => 0,
            Replace::Newlines => span.iter().filter(|&&ch| ch == b'\n').count(),
        };
        std::iter::repeat_n(b'\n', n)
    }
}

/// `source` with `last_first` replaced one after the other, from the first
/// of the list (the last in the text) on, as Python does it.
fn replace_spans(source: &[u8], last_first: &[Span], with: Replace) -> Vec<u8> {
    if !last_first.windows(2).all(|w| w[1].end <= w[0].start) {
        return replace_spans_one_by_one(source, last_first, with);
    }
    // Replacing disjoint spans from the last one back never moves a span
    // still to replace: the result is the text between them, with each
    // span's replacement in its place.
    let mut out = Vec::with_capacity(source.len());
    let mut at = 0;
    for s in last_first.iter().rev() {
        out.extend_from_slice(&source[at..s.start]);
        out.extend(with.apply(&source[s.start..s.end]));
        at = s.end;
    }
    out.extend_from_slice(&source[at..]);
    out
}

/// [`replace_spans`] literally: each replacement shifts the bytes after it
/// (the spans may overlap).
fn replace_spans_one_by_one(source: &[u8], last_first: &[Span], with: Replace) -> Vec<u8> {
    let mut out = source.to_vec();
    for s in last_first {
        // Python slices of the shrinking bytes clamp.
        let (a, b) = (s.start.min(out.len()), s.end.min(out.len()));
        let replacement: Vec<u8> = with.apply(&out[a..b]).collect();
        out.splice(a..b, replacement);
    }
    out
}

/// The comment blanking of `clean_partial_file`: each comment capture of the
/// whole file is replaced by as many "\n" as it spans.
pub(super) fn blank_comments(
    language: Language,
    whole: &str,
) -> Result<Option<String>, GrammarError> {
    let source = whole.as_bytes();
    let spans = comment_spans_last_first(language, source)?;
    Ok(String::from_utf8(replace_spans(source, &spans, Replace::Newlines)).ok())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_disjoint_spans_at_once_equals_one_by_one() {
        let source = b"0123\n456789\nabc\ndefghij";
        let cases: &[&[(usize, usize)]] = &[
            &[],
            &[(15, 18), (10, 12), (0, 3)],
            &[(18, 22), (12, 18), (3, 3), (0, 3)],
            // Overlapping or nested: the literal path.
            &[(10, 15), (8, 12)],
            &[(5, 9), (5, 7), (2, 16)],
        ];
        for spans in cases {
            let spans: Vec<Span> = spans.iter().map(|&(start, end)| Span { start, end }).collect();
            for with in [Replace::Delete, Replace::Newlines] {
                assert_eq!(
                    replace_spans(source, &spans, with),
                    replace_spans_one_by_one(source, &spans, with),
                    "{spans:?} {with:?}"
                );
            }
        }
    }
}
