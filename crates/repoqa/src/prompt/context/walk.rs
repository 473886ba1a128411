//! A repo prepared once for all its needles, and the per-file walks that
//! fill the prefix and suffix around a needle (`make_code_context`).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::code::lang::{GrammarError, Language};
use crate::code::tokenize::TokenizerError;
use crate::input::dataset::{Needle, Repo};

use super::clean::{blank_comments, clean_partial_file, clean_segment_comments};
use super::count::{Counter, FxHasher};
use super::{CommentMode, ContextError, ContextOptions, NeedlePlacement, Protocol};

struct FileData<'d> {
    path: &'d str,
    text: &'d str,
    /// Byte offset of each line of `text.split("\n")`.
    line_starts: Vec<usize>,
    ascii: bool,
    /// `CP + " Path: " + path`.
    path_line: String,
    /// Budget count of each line (`usize::MAX` = not yet counted).
    line_cost: Vec<usize>,
    /// Count of each line inside a text (see `Counter::line_inner`).
    line_inner: Vec<usize>,
    path_cost: Option<usize>,
    path_inner: Option<usize>,
}

const UNCOUNTED: usize = usize::MAX;

impl<'d> FileData<'d> {
    fn new(path: &'d str, text: &'d str, language: Language) -> FileData<'d> {
        let mut line_starts = vec![0];
        line_starts
            .extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        let n = line_starts.len();
        FileData {
            path,
            text,
            line_starts,
            ascii: text.is_ascii(),
            path_line: format!("{} Path: {}", language.comment_prefix(), path),
            line_cost: vec![UNCOUNTED; n],
            line_inner: vec![UNCOUNTED; n],
            path_cost: None,
            path_inner: None,
        }
    }

    fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// End of line `i` (before its "\n").
    fn line_end(&self, i: usize) -> usize {
        self.line_starts.get(i + 1).map_or(self.text.len(), |s| s - 1)
    }

    fn line(&self, i: usize) -> &'d str {
        &self.text[self.line_starts[i]..self.line_end(i)]
    }

    /// The line holding byte `b`.
    fn line_of(&self, b: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= b) - 1
    }

    /// Byte offset of Python's `text[:cp]` end: `cp` code points, clamped
    /// (P3: the dataset's byte offsets are used as code-point indices).
    /// The needle's byte range in this file (see `needle_cut`).
    fn cut(&self, start: usize, end: usize, protocol: Protocol) -> (usize, usize) {
        match protocol {
            // P3: byte offsets used as code-point indices.
            Protocol::Official | Protocol::NoContext => {
                let a = self.cp_to_byte(start);
                (a, self.cp_to_byte(end).max(a))
            }
            Protocol::Corrected => needle_cut(self.text, start, end, protocol),
        }
    }

    fn cp_to_byte(&self, cp: usize) -> usize {
        if self.ascii {
            return cp.min(self.text.len());
        }
        self.text.char_indices().nth(cp).map_or(self.text.len(), |(b, _)| b)
    }
}

/// The byte range of `text` a needle with dataset offsets `start..end` is
/// cut from: official = the offsets used as code-point indices (P3, clamped
/// like a Python slice), corrected = as the UTF-8 byte offsets they are
/// (moved down to character boundaries, clamped).
pub(super) fn needle_cut(
    text: &str,
    start: usize,
    end: usize,
    protocol: Protocol,
) -> (usize, usize) {
    match protocol {
        Protocol::Official | Protocol::NoContext => {
            let cp = |i: usize| text.char_indices().nth(i).map_or(text.len(), |(b, _)| b);
            let a = cp(start);
            (a, cp(end).max(a))
        }
        Protocol::Corrected => {
            let floor = |mut b: usize| {
                b = b.min(text.len());
                while !text.is_char_boundary(b) {
                    b -= 1;
                }
                b
            };
            let a = floor(start);
            (a, floor(end).max(a))
        }
    }
}

pub(super) struct Prepared<'d> {
    language: Language,
    files: Vec<FileData<'d>>,
    /// Each file with its comments blanked (K2), computed when a context
    /// first needs it and kept for the repo's other needles: the same
    /// file is the top or bottom file of many contexts, and parsing it is
    /// most of the cost of the cleaning modes. `Some(None)`: not UTF-8.
    blanked: Vec<Option<Option<String>>>,
    /// In the cleaning modes (without `strip_nul`): the count inside a text
    /// of each repo line counted so far, by its text. A cleaned context is
    /// mostly the repo's own lines, so its count is mostly lookups here
    /// instead of word sums (see `text_count`).
    by_text: Option<HashMap<&'d str, usize, BuildHasherDefault<FxHasher>>>,
}

impl<'d> Prepared<'d> {
    pub(super) fn new(
        language: Language,
        repo: &'d Repo,
        options: &ContextOptions,
    ) -> Result<Prepared<'d>, ContextError> {
        let mut files = Vec::new();
        for path in repo.file_order() {
            let text = repo.content.get(path).ok_or_else(|| ContextError::MissingFile {
                language: language.name().to_string(),
                repo: repo.repo.clone(),
                path: path.to_string(),
            })?;
            files.push(FileData::new(path, text, language));
        }
        let blanked = vec![None; files.len()];
        let by_text = (options.comment_mode != CommentMode::None && !options.strip_nul)
            .then(HashMap::default);
        Ok(Prepared { language, files, blanked, by_text })
    }

    /// File `f` with its comments blanked (`blank_comments`), memoized.
    fn blanked(&mut self, f: usize) -> Result<Option<&str>, GrammarError> {
        if self.blanked[f].is_none() {
            self.blanked[f] = Some(blank_comments(self.language, self.files[f].text)?);
        }
        Ok(self.blanked[f].as_ref().and_then(|b| b.as_deref()))
    }

    fn text(&self, p: Piece) -> &str {
        match p {
            Piece::Line { file, line } => self.files[file].line(line),
            Piece::Path { file } => &self.files[file].path_line,
            Piece::Span { file, start, end } => &self.files[file].text[start..end],
            Piece::Ellipsis => "...",
        }
    }

    fn count_line(
        &mut self,
        c: &mut Counter,
        file: usize,
        line: usize,
    ) -> Result<(), TokenizerError> {
        let f = &mut self.files[file];
        if f.line_cost[line] == UNCOUNTED {
            (f.line_cost[line], f.line_inner[line]) = c.line_pair(f.line(line))?;
            if let Some(by_text) = &mut self.by_text {
                by_text.insert(f.line(line), f.line_inner[line]);
            }
        }
        Ok(())
    }

    /// `len(tokenize(text))` (= `Counter::text`): a line after the first
    /// that is a repo line already counted (`by_text`) adds that line's
    /// count inside a text; the others are counted as `Counter::text`
    /// counts them.
    fn text_count(&self, c: &mut Counter, text: &str) -> Result<usize, TokenizerError> {
        let Some(by_text) = &self.by_text else { return c.text(text) };
        let mut n = 0;
        for (i, piece) in text.split_inclusive('\n').enumerate() {
            let known = match piece.strip_suffix('\n') {
                Some(line) if i > 0 => by_text.get(line).copied(),
                _ => None,
            };
            n += match known {
                Some(k) => k,
                None => c.count_piece(piece, i == 0)?,
            };
        }
        Ok(n)
    }

    /// Budget cost of a piece: `len(tokenize(piece + "\n"))`.
    fn cost(&mut self, c: &mut Counter, p: Piece) -> Result<usize, TokenizerError> {
        match p {
            Piece::Line { file, line } => {
                self.count_line(c, file, line)?;
                Ok(self.files[file].line_cost[line])
            }
            Piece::Path { file } => {
                let f = &mut self.files[file];
                if f.path_cost.is_none() {
                    f.path_cost = Some(c.line(&f.path_line)?);
                }
                Ok(f.path_cost.unwrap_or(0))
            }
            Piece::Span { .. } | Piece::Ellipsis => {
                let text = self.text(p).to_string();
                c.line(&text)
            }
        }
    }

    /// Tokens of `piece + "\n"` when it follows a newline in a text.
    fn inner(&mut self, c: &mut Counter, p: Piece) -> Result<usize, TokenizerError> {
        let strip = c.strip_nul;
        let stripped = |s: &str| if strip { s.replace('\0', "") } else { s.to_string() };
        match p {
            Piece::Line { file, line } => {
                self.count_line(c, file, line)?;
                Ok(self.files[file].line_inner[line])
            }
            Piece::Path { file } => {
                let f = &mut self.files[file];
                if f.path_inner.is_none() {
                    f.path_inner = Some(c.line_inner(&stripped(&f.path_line))?);
                }
                Ok(f.path_inner.unwrap_or(0))
            }
            Piece::Span { .. } | Piece::Ellipsis => {
                let text = stripped(self.text(p));
                c.line_inner(&text)
            }
        }
    }

    /// `len(tokenize(text))` of the pieces joined, each + "\n" (P9).
    fn pieces_count(&mut self, c: &mut Counter, pieces: &[Piece]) -> Result<usize, TokenizerError> {
        let Some((&first, rest)) = pieces.split_first() else { return Ok(0) };
        let head = self.text(first);
        let mut n = if c.strip_nul && head.contains('\0') {
            c.count_line(&head.replace('\0', ""), true)?
        } else {
            let h = head.to_string();
            c.count_line(&h, true)?
        };
        for &p in rest {
            n += self.inner(c, p)?;
        }
        Ok(n)
    }

    fn push_text(&self, out: &mut String, pieces: &[Piece]) {
        for &p in pieces {
            out.push_str(self.text(p));
            out.push('\n');
        }
    }
}

/// A line of the context, before its "\n" is added.
#[derive(Clone, Copy, Debug)]
enum Piece {
    /// Line `line` of file `file` (index in file order).
    Line { file: usize, line: usize },
    /// The `<CP> Path: <path>` line of a file.
    Path { file: usize },
    /// Part of a line of the needle file (next to the needle).
    Span { file: usize, start: usize, end: usize },
    /// The `...` line ending a truncated forward chunk.
    Ellipsis,
}

/// `_backward_tokenizable_lines`: `pieces` in text order, taken from the
/// last one up while they fit. Returns (first taken index, tokens, broke).
fn backward(
    prep: &mut Prepared,
    c: &mut Counter,
    pieces: &[Piece],
    budget: i64,
) -> Result<(usize, i64, bool), TokenizerError> {
    let mut n: i64 = 0;
    for i in (0..pieces.len()).rev() {
        let cost = prep.cost(c, pieces[i])? as i64;
        if n + cost > budget {
            return Ok((i + 1, n, true));
        }
        n += cost;
    }
    Ok((0, n, false))
}

/// `_forward_tokenizable_lines`: the pieces taken from the first while
/// they fit, then `...` if one did not. Appends to `out`; returns
/// (tokens, broke, pieces taken before `...`).
fn forward(
    prep: &mut Prepared,
    c: &mut Counter,
    pieces: impl Iterator<Item = Piece>,
    budget: i64,
    out: &mut Vec<Piece>,
) -> Result<(i64, bool, usize), TokenizerError> {
    let mut n: i64 = 0;
    let mut taken = 0;
    for p in pieces {
        let cost = prep.cost(c, p)? as i64;
        if n + cost > budget {
            out.push(Piece::Ellipsis);
            n += prep.cost(c, Piece::Ellipsis)? as i64;
            return Ok((n, true, taken));
        }
        out.push(p);
        n += cost;
        taken += 1;
    }
    Ok((n, false, taken))
}

fn file_pieces(prep: &Prepared, file: usize) -> impl Iterator<Item = Piece> + use<> {
    let n = prep.files[file].line_count();
    std::iter::once(Piece::Path { file }).chain((0..n).map(move |line| Piece::Line { file, line }))
}

pub(super) struct CodeContext {
    pub(super) code_context: String,
    /// Byte range of the needle (as placed, cleaned in the cleaning modes)
    /// in `code_context`.
    pub(super) needle: std::ops::Range<usize>,
    pub(super) needle_token_start: usize,
    pub(super) needle_token_end: usize,
    pub(super) code_context_ntokens: usize,
    pub(super) placement: NeedlePlacement,
}

/// Where the outermost next file's chunk starts in the suffix and what it
/// holds (for the corrected suffix cleaning).
struct BottomChunk {
    start: usize,
    path_line: bool,
    lines: usize,
    broke: bool,
}

/// What the walk before the needle took (P6, then whole previous files).
struct Before {
    pieces: Vec<Piece>,
    /// The needle's line began before the needle and its start was taken.
    line_start_taken: bool,
    /// The outermost previous file visited.
    top_file: Option<usize>,
}

/// P6: the needle file up to the needle `a`, from the bottom, then the
/// previous files from the top, while `prefix_size` tokens last.
fn take_before(
    prep: &mut Prepared,
    c: &mut Counter,
    nf: usize,
    a: usize,
    mut prefix_size: i64,
) -> Result<Before, ContextError> {
    let nfile = &prep.files[nf];
    let k = nfile.line_of(a);
    let mut own: Vec<Piece> = Vec::with_capacity(k + 2);
    own.push(Piece::Path { file: nf });
    own.extend((0..k).map(|line| Piece::Line { file: nf, line }));
    own.push(Piece::Span { file: nf, start: nfile.line_starts[k], end: a });
    let (first, ntokens, mut broke) = backward(prep, c, &own, prefix_size)?;
    prefix_size -= ntokens;
    // Chunks of previous files, outermost last.
    let mut prev_chunks: Vec<Vec<Piece>> = Vec::new();
    let mut top_file: Option<usize> = None;
    let mut index = nf as i64 - 1;
    while !broke && prefix_size > 0 && index >= 0 {
        let f = index as usize;
        top_file = Some(f);
        let mut chunk = Vec::new();
        let pieces = file_pieces(prep, f);
        let (n, br, _) = forward(prep, c, pieces, prefix_size, &mut chunk)?;
        broke = br;
        prefix_size -= n;
        prev_chunks.push(chunk);
        index -= 1;
    }
    let mut pieces: Vec<Piece> = prev_chunks.into_iter().rev().flatten().collect();
    pieces.extend_from_slice(&own[first..]);
    Ok(Before { pieces, line_start_taken: first < own.len(), top_file })
}

/// What the walk after the needle took (P8).
struct After {
    pieces: Vec<Piece>,
    /// The last next file visited, with what of it was taken.
    bottom: Option<(usize, BottomChunk)>,
}

/// P8: the rest of the needle file after `b`, then the next files, while
/// `suffix_size` tokens last.
fn take_after(
    prep: &mut Prepared,
    c: &mut Counter,
    nf: usize,
    b: usize,
    mut suffix_size: i64,
) -> Result<After, ContextError> {
    let kb = nfile_line_of(prep, nf, b);
    let mut suffix_pieces: Vec<Piece> = Vec::new();
    let first_suffix = Piece::Span { file: nf, start: b, end: prep.files[nf].line_end(kb) };
    let n_lines = prep.files[nf].line_count();
    let pieces = std::iter::once(first_suffix)
        .chain((kb + 1..n_lines).map(|line| Piece::Line { file: nf, line }));
    let (n, mut broke, _) = forward(prep, c, pieces, suffix_size, &mut suffix_pieces)?;
    suffix_size -= n;
    let mut bottom: Option<(usize, BottomChunk)> = None;
    let mut index = nf + 1;
    while !broke && suffix_size > 0 && index < prep.files.len() {
        let start = suffix_pieces.len();
        let pieces = file_pieces(prep, index);
        let (n, br, taken) = forward(prep, c, pieces, suffix_size, &mut suffix_pieces)?;
        bottom = Some((
            index,
            BottomChunk { start, path_line: taken > 0, lines: taken.saturating_sub(1), broke: br },
        ));
        broke = br;
        suffix_size -= n;
        index += 1;
    }
    Ok(After { pieces: suffix_pieces, bottom })
}

/// The three parts of a context and their token counts, joined: the
/// needle's byte range and token span come from where the parts meet.
fn join_parts(
    prefix: String,
    needle_text: &str,
    suffix: &str,
    (prefix_tokens, needle_tokens, suffix_tokens): (usize, usize, usize),
    cut: std::ops::Range<usize>,
) -> CodeContext {
    let mut code_context = prefix;
    let at = code_context.len();
    code_context.push_str(needle_text);
    let needle = at..code_context.len();
    code_context.push_str(suffix);
    CodeContext {
        code_context,
        needle: needle.clone(),
        needle_token_start: prefix_tokens,
        needle_token_end: prefix_tokens + needle_tokens,
        code_context_ntokens: prefix_tokens + needle_tokens + suffix_tokens,
        placement: NeedlePlacement { needle, cut },
    }
}

/// K6: filler lines `<cp> Line Number k` for the tokens cleaning removed,
/// at the very top and the very bottom, so the needle keeps its depth.
#[allow(clippy::too_many_arguments)]
fn pad_positions(
    prep: &Prepared,
    c: &mut Counter,
    cp: &str,
    position_ratio: f64,
    (prefix_orig, needle_orig, suffix_orig): (usize, usize, usize),
    prefix_cleaned: &mut String,
    needle_cleaned: &str,
    suffix_cleaned: &mut String,
) -> Result<(), ContextError> {
    let prefix_clean = prep.text_count(c, prefix_cleaned)? as i64;
    let needle_clean = prep.text_count(c, needle_cleaned)? as i64;
    let suffix_clean = prep.text_count(c, suffix_cleaned)? as i64;
    let removed = needle_orig as i64 - needle_clean;
    let needle_prefix = (removed as f64 * position_ratio) as i64;
    let needle_suffix = removed - needle_prefix;
    let mut pad_prefix = needle_prefix + prefix_orig as i64 - prefix_clean - 1;
    let mut pad_suffix = needle_suffix + suffix_orig as i64 - suffix_clean - 1;
    let mut line = 0usize;
    let mut dummy = String::new();
    // Each dummy line is counted as `len(tokenize(current))`; `budget`
    // gives that count from the memoized words instead of a whole
    // tokenizer call per line (K6).
    while pad_prefix > 0 {
        let current = format!("{cp} Line Number {line}\n");
        pad_prefix -= c.budget(&current)? as i64;
        dummy.push_str(&current);
        line += 1;
    }
    dummy.push('\n');
    dummy.push_str(prefix_cleaned);
    *prefix_cleaned = dummy;
    while pad_suffix > 0 {
        let current = format!("{cp} Line Number {line}\n");
        pad_suffix -= c.budget(&current)? as i64;
        suffix_cleaned.push_str(&current);
        line += 1;
    }
    suffix_cleaned.push('\n');
    Ok(())
}

pub(super) fn make_code_context(
    prep: &mut Prepared,
    c: &mut Counter,
    repo: &Repo,
    needle: &Needle,
    position_ratio: f64,
    options: &ContextOptions,
) -> Result<CodeContext, ContextError> {
    let language = prep.language;
    let nf = prep.files.iter().position(|f| f.path == needle.path).ok_or_else(|| {
        ContextError::NeedleNotInOrder {
            language: language.name().to_string(),
            repo: repo.repo.clone(),
            needle: needle.name.clone(),
            path: needle.path.clone(),
        }
    })?;
    let corrected = options.protocol == Protocol::Corrected;
    let (a, b) = prep.files[nf].cut(needle.start_byte, needle.end_byte, options.protocol);
    let text = prep.files[nf].text;
    let needle_code = &text[a..b];
    let needle_budget_tokens = c.budget(needle_code)?;

    // P5.
    // Sizes are checked to fit (`MAX_CODE_CONTEXT_SIZE`); never wrap.
    let size = i64::try_from(options.code_context_size).unwrap_or(i64::MAX);
    let prefix_size = (size as f64 * position_ratio - needle_budget_tokens as f64 / 2.0) as i64;
    let suffix_size = size - needle_budget_tokens as i64 - prefix_size;

    let before = take_before(prep, c, nf, a, prefix_size)?;
    let After { pieces: suffix_pieces, bottom } = take_after(prep, c, nf, b, suffix_size)?;
    // K1: the paths of every file visited, top to bottom.
    let top = before.top_file.unwrap_or(nf);
    let last = bottom.as_ref().map_or(nf, |(f, _)| *f);
    let context_paths: Vec<&str> = (top..=last).map(|f| prep.files[f].path).collect();
    let prefix_pieces = before.pieces;

    let mut code_prefix = String::new();
    prep.push_text(&mut code_prefix, &prefix_pieces);
    // P6 corrected: the part of the needle's line before it (the last own
    // piece, when taken) keeps no line break of its own.
    let joined = corrected && before.line_start_taken;
    if joined {
        code_prefix.pop();
    }
    let mut code_suffix = String::new();
    prep.push_text(&mut code_suffix, &suffix_pieces);

    if options.comment_mode == CommentMode::None {
        // P9, with the counts of the lines already known.
        let mut prefix_tokens = prep.pieces_count(c, &prefix_pieces)?;
        let suffix_tokens = prep.pieces_count(c, &suffix_pieces)?;
        let (needle_text, needle_tokens) = if options.strip_nul && needle_code.contains('\0') {
            let s = needle_code.replace('\0', "");
            let n = c.text(&s)?;
            (s, n)
        } else {
            (needle_code.to_string(), c.text(needle_code)?)
        };
        if options.strip_nul {
            // P10.
            code_prefix.retain(|ch| ch != '\0');
            code_suffix.retain(|ch| ch != '\0');
        }
        if joined {
            prefix_tokens = c.text(&code_prefix)?;
        }
        let counts = (prefix_tokens, needle_tokens, suffix_tokens);
        return Ok(join_parts(code_prefix, &needle_text, &code_suffix, counts, a..b));
    }

    // Comment cleaning (K1–K6) works on the texts.
    let prefix_orig =
        if joined { c.text(&code_prefix)? } else { prep.pieces_count(c, &prefix_pieces)? };
    let suffix_orig = prep.pieces_count(c, &suffix_pieces)?;
    let needle_orig = c.text(needle_code)?;
    let cp = language.comment_prefix();
    let utf8_error = || ContextError::Utf8 {
        language: language.name().to_string(),
        repo: repo.repo.clone(),
        needle: needle.name.clone(),
    };
    let clean = |segment: &str| clean_segment_comments(language, segment, &context_paths);

    // K2: the top file is cleaned as a whole (a cut file may not parse).
    let mut prefix_cleaned = match before.top_file.filter(|&f| !prep.files[f].text.is_empty()) {
        Some(f) => {
            let second = format!("{cp} Path: {}", context_paths[1]);
            let lines: Vec<&str> = code_prefix.split('\n').collect();
            let top_lines = lines.iter().position(|l| l.contains(&second)).unwrap_or(lines.len());
            let blanked = prep.blanked(f)?.ok_or_else(utf8_error)?;
            let top = clean_partial_file(language, blanked, top_lines as i64, context_paths[0]);
            let rest = clean(&lines[top_lines..].join("\n"))?.ok_or_else(utf8_error)?;
            top + &rest
        }
        None => clean(&code_prefix)?.ok_or_else(utf8_error)?,
    };
    let mut needle_final = clean(needle_code)?.ok_or_else(utf8_error)?;
    let bottom = bottom.filter(|(f, _)| !prep.files[*f].text.is_empty());
    let mut suffix_cleaned = match bottom {
        Some((f, chunk)) if options.fix_suffix_cleaning || corrected => {
            // Corrected: the text before the last file is cleaned as a
            // segment, the last file as a whole like the top file, keeping
            // exactly the lines the context holds.
            let mut head = String::new();
            prep.push_text(&mut head, &suffix_pieces[..chunk.start]);
            let mut out = clean(&head)?.ok_or_else(utf8_error)?;
            if chunk.path_line {
                out.push_str(&prep.files[f].path_line);
                out.push('\n');
            }
            let whole = prep.blanked(f)?.ok_or_else(utf8_error)?;
            for line in whole.split('\n').take(chunk.lines) {
                out.push_str(line);
                out.push('\n');
            }
            if chunk.broke {
                out.push_str("...\n");
            }
            out
        }
        Some((f, _)) => {
            // K5, as upstream: the *prefix* is searched for the last path.
            let last = context_paths[context_paths.len() - 1];
            let target = format!("{cp} Path: {last}");
            let lines: Vec<&str> = code_prefix.split('\n').collect();
            let count = lines.iter().position(|l| l.contains(&target)).unwrap_or(lines.len());
            let rest = clean(&lines[count..].join("\n"))?.ok_or_else(utf8_error)?;
            let blanked = prep.blanked(f)?.ok_or_else(utf8_error)?;
            let bottom = clean_partial_file(language, blanked, count as i64, last);
            rest + &bottom
        }
        None => clean(&code_suffix)?.ok_or_else(utf8_error)?,
    };

    if options.comment_mode == CommentMode::PositionalPadding {
        pad_positions(
            prep,
            c,
            cp,
            position_ratio,
            (prefix_orig, needle_orig, suffix_orig),
            &mut prefix_cleaned,
            &needle_final,
            &mut suffix_cleaned,
        )?;
    }
    if options.strip_nul {
        prefix_cleaned.retain(|ch| ch != '\0');
        needle_final.retain(|ch| ch != '\0');
        suffix_cleaned.retain(|ch| ch != '\0');
    }
    let start = prep.text_count(c, &prefix_cleaned)?;
    let needle_tokens = prep.text_count(c, &needle_final)?;
    let suffix_tokens = prep.text_count(c, &suffix_cleaned)?;
    let counts = (start, needle_tokens, suffix_tokens);
    Ok(join_parts(prefix_cleaned, &needle_final, &suffix_cleaned, counts, a..b))
}

fn nfile_line_of(prep: &Prepared, file: usize, b: usize) -> usize {
    prep.files[file].line_of(b)
}
