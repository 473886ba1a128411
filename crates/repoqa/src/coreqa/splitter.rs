//! LangChain's `RecursiveCharacterTextSplitter` (langchain-text-splitters
//! 1.1.3), as constructed with `chunk_size` and `chunk_overlap` only: the
//! default separators `["\n\n", "\n", " ", ""]` taken literally, separators
//! kept at the start of the piece that follows them, lengths in code points
//! (`len`), every chunk stripped of Python whitespace and dropped if empty.
//!
//! The text is cut at every occurrence of the first separator that occurs in
//! it; pieces shorter than the chunk size are merged back greedily (up to
//! the chunk size, the next chunk starting with the last pieces that fit in
//! the overlap); a longer piece is cut again with the separators after that
//! one, down to single characters.

use super::CoreqaError;
use crate::scoring::sanitize::py_strip;

/// LangChain's defaults (`TextSplitter.__init__`).
pub const DEFAULT_CHUNK_SIZE: usize = 4000;
pub const DEFAULT_CHUNK_OVERLAP: usize = 200;
/// `RecursiveCharacterTextSplitter`'s default separators.
pub const DEFAULT_SEPARATORS: [&str; 4] = ["\n\n", "\n", " ", ""];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecursiveSplitter {
    chunk_size: usize,
    chunk_overlap: usize,
    separators: Vec<String>,
}

impl RecursiveSplitter {
    /// The splitter with the default separators; LangChain's checks on the
    /// sizes (size > 0, overlap ≤ size).
    pub fn new(chunk_size: usize, chunk_overlap: usize) -> Result<RecursiveSplitter, CoreqaError> {
        if chunk_size == 0 {
            return Err(CoreqaError::ChunkSize(chunk_size));
        }
        if chunk_overlap > chunk_size {
            return Err(CoreqaError::ChunkOverlap { size: chunk_size, overlap: chunk_overlap });
        }
        Ok(RecursiveSplitter {
            chunk_size,
            chunk_overlap,
            separators: DEFAULT_SEPARATORS.iter().map(|s| s.to_string()).collect(),
        })
    }

    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    pub fn chunk_overlap(&self) -> usize {
        self.chunk_overlap
    }

    /// `split_text(text)`.
    pub fn split_text(&self, text: &str) -> Vec<String> {
        self.split(text, &self.separators)
    }

    /// `_split_text`.
    fn split(&self, text: &str, separators: &[String]) -> Vec<String> {
        let mut separator = separators.last().map(String::as_str).unwrap_or("");
        let mut rest: &[String] = &[];
        for (i, s) in separators.iter().enumerate() {
            if s.is_empty() {
                separator = "";
                break;
            }
            if text.contains(s.as_str()) {
                separator = s;
                rest = &separators[i + 1..];
                break;
            }
        }
        let mut chunks = Vec::new();
        let mut good: Vec<&str> = Vec::new();
        for piece in pieces(text, separator) {
            if piece.chars().count() < self.chunk_size {
                good.push(piece);
                continue;
            }
            if !good.is_empty() {
                chunks.extend(self.merge(&good));
                good.clear();
            }
            if rest.is_empty() {
                chunks.push(piece.to_string());
            } else {
                chunks.extend(self.split(piece, rest));
            }
        }
        if !good.is_empty() {
            chunks.extend(self.merge(&good));
        }
        chunks
    }

    /// `_merge_splits(splits, "")` (the separator is kept in the pieces, so
    /// they are joined with nothing).
    fn merge(&self, pieces: &[&str]) -> Vec<String> {
        let mut docs = Vec::new();
        let mut current: std::collections::VecDeque<(&str, usize)> = Default::default();
        let mut total = 0usize;
        for &piece in pieces {
            let len = piece.chars().count();
            if total + len > self.chunk_size && !current.is_empty() {
                docs.extend(join(&current));
                while total > self.chunk_overlap || (total + len > self.chunk_size && total > 0) {
                    match current.pop_front() {
                        Some((_, first)) => total -= first,
                        None => break,
                    }
                }
            }
            current.push_back((piece, len));
            total += len;
        }
        docs.extend(join(&current));
        docs
    }
}

/// `_join_docs(docs, "")`: joined, stripped, `None` if nothing is left.
fn join(current: &std::collections::VecDeque<(&str, usize)>) -> Option<String> {
    let text: String = current.iter().map(|(p, _)| *p).collect();
    let stripped = py_strip(&text);
    (!stripped.is_empty()).then(|| stripped.to_string())
}

/// `_split_text_with_regex(text, re.escape(separator), keep_separator=True)`:
/// cut before every occurrence of `separator` (left to right, not
/// overlapping), so each piece after the first starts with it; the empty
/// separator cuts between characters; empty pieces are dropped.
fn pieces<'t>(text: &'t str, separator: &str) -> Vec<&'t str> {
    if separator.is_empty() {
        return text.char_indices().map(|(i, c)| &text[i..i + c.len_utf8()]).collect();
    }
    let mut out = Vec::new();
    let mut start = 0;
    for (at, _) in text.match_indices(separator) {
        out.push(&text[start..at]);
        start = at;
    }
    out.push(&text[start..]);
    out.retain(|p| !p.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(size: usize, overlap: usize, text: &str) -> Vec<String> {
        RecursiveSplitter::new(size, overlap).unwrap().split_text(text)
    }

    #[test]
    fn short_text_is_one_stripped_chunk() {
        assert_eq!(split(100, 10, "  hello world \n"), ["hello world"]);
        assert!(split(100, 10, " \n\n ").is_empty());
    }

    #[test]
    fn separators_stay_at_the_start_of_the_next_piece() {
        // As LangChain 1.1.3 prints for these inputs.
        assert_eq!(split(10, 0, "aaaa\n\nbbbb\n\ncccc"), ["aaaa\n\nbbbb", "cccc"]);
        assert_eq!(split(12, 4, "one two three four five"), ["one two", "two three", "four five"]);
        assert_eq!(split(3, 1, "abcdefg"), ["abc", "cde", "efg"]);
    }

    #[test]
    fn sizes_are_checked_as_langchain_does() {
        assert!(matches!(RecursiveSplitter::new(0, 0), Err(CoreqaError::ChunkSize(0))));
        assert!(matches!(
            RecursiveSplitter::new(10, 11),
            Err(CoreqaError::ChunkOverlap { size: 10, overlap: 11 })
        ));
    }
}
