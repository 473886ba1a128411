//! The official prompt builder: `make_code_context` and the task list of
//! `evaluate_model` (docs/parity.md P1–P11), plus the comment-cleaning modes of
//! upstream HEAD (K1–K6), with the K5 bug reproduced by default and a
//! corrected variant behind `ContextOptions::fix_suffix_cleaning`.
//!
//! Speed: the official code tokenizes every line of every context again, and
//! then the three parts of the context as wholes. Here each line of a repo is
//! counted once (per repo, lazily), and the whole-part counts are *sums of
//! line counts*: with CodeLlama's tokenizer a newline is always the byte
//! token `<0x0A>` and never merges, so `len(tokenize(A + "\n" + B))` =
//! `len(tokenize(A + "\n"))` + the count of `B` without the `▁` that
//! `tokenize` prepends. Line counts themselves are sums of memoized word
//! counts (see `Counter`). Both are checked against whole-text tokenization
//! in the unit tests, and every count against the official code in
//! tests/parity_prompts.rs.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::dataset::{Dataset, Needle, Repo};
use crate::lang::{GrammarError, Language};
use crate::tokenize::{Tokenizer, TokenizerError};
use tokenizers::Model as _;

/// `INSTRUCTION` of search_needle_function.py.
pub const INSTRUCTION: &str = "Based on the function description and code context, please retrieve and repeat the exact described function from the code context in a code block wrapped by ```:";

/// `TEMPLATE` of search_needle_function.py: the task fields a prompt is
/// made of, in order.
pub const TEMPLATE: &str = "instruction\ncode_context\ndescription\ninstruction";

/// The official default `code_context_size` (16 * 1024).
pub const DEFAULT_CODE_CONTEXT_SIZE: usize = 16 * 1024;

#[derive(Debug, Error)]
pub enum ContextError {
    #[error("{0}")]
    Tokenizer(#[from] TokenizerError),
    #[error("{0}")]
    Grammar(#[from] GrammarError),
    #[error(
        "{language} repo {repo}: file {path:?} is in the dependency order but not in `content`"
    )]
    MissingFile { language: String, repo: String, path: String },
    #[error(
        "{language} repo {repo}: needle {needle:?} is in {path:?}, which is not in the repo's dependency order (the official harness fails on it)"
    )]
    NeedleNotInOrder { language: String, repo: String, needle: String, path: String },
    #[error("no task {language}[{repo_index}].needles[{needle_index}] in the dataset")]
    NoSuchTask { language: String, repo_index: usize, needle_index: usize },
    #[error("{language} repo {repo}, needle {needle:?}: removing comments left invalid UTF-8 (the official code fails the same way)")]
    Utf8 { language: String, repo: String, needle: String },
    #[error("unknown comment mode {0:?} (expected none, positional_padding or no_padding)")]
    UnknownCommentMode(String),
}

/// `--clean-ctx-comments` of upstream HEAD. PyPI 0.1.2 only has `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CommentMode {
    #[default]
    None,
    PositionalPadding,
    NoPadding,
}

impl CommentMode {
    pub const ALL: [CommentMode; 3] =
        [CommentMode::None, CommentMode::PositionalPadding, CommentMode::NoPadding];

    /// The official option string.
    pub fn as_str(self) -> &'static str {
        match self {
            CommentMode::None => "none",
            CommentMode::PositionalPadding => "positional_padding",
            CommentMode::NoPadding => "no_padding",
        }
    }
}

impl fmt::Display for CommentMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CommentMode {
    type Err = ContextError;
    /// The official strings. (Upstream silently treats any other string as
    /// `none`; here a typo is an error.)
    fn from_str(s: &str) -> Result<CommentMode, ContextError> {
        CommentMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| ContextError::UnknownCommentMode(s.to_string()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextOptions {
    /// Token budget of a context (official default 16384).
    pub code_context_size: usize,
    pub comment_mode: CommentMode,
    /// NOT OFFICIAL. Clean the suffix correctly instead of reproducing the
    /// upstream bug K5 (which drops the rest of the needle file and the
    /// middle files and glues the last file's `Path:` line to the needle).
    pub fix_suffix_cleaning: bool,
    /// PyPI 0.1.2 behaviour (P4/P10): `<0x00>` tokens are not counted in
    /// the budgets and `"\0"` is removed from the context. Off = upstream
    /// HEAD, which does neither. Identical unless the dataset has NULs.
    pub strip_nul: bool,
}

impl Default for ContextOptions {
    fn default() -> ContextOptions {
        ContextOptions {
            code_context_size: DEFAULT_CODE_CONTEXT_SIZE,
            comment_mode: CommentMode::None,
            fix_suffix_cleaning: false,
            strip_nul: false,
        }
    }
}

/// One task dict of the official harness, fields in the official order (J3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub repo: String,
    pub name: String,
    pub language: String,
    pub path: String,
    pub position_ratio: f64,
    pub description: String,
    pub instruction: String,
    pub template: String,
    pub code_context: String,
    pub needle_token_start: usize,
    pub needle_token_end: usize,
    pub code_context_ntokens: usize,
}

impl Task {
    /// The prompt: the fields named by `template`, concatenated (P11).
    pub fn prompt(&self) -> String {
        self.template
            .split('\n')
            .map(|key| match key {
                "instruction" => self.instruction.as_str(),
                "code_context" => self.code_context.as_str(),
                "description" => self.description.as_str(),
                "repo" => self.repo.as_str(),
                "name" => self.name.as_str(),
                "language" => self.language.as_str(),
                "path" => self.path.as_str(),
                // The official template only names the three above.
                _ => "",
            })
            .collect()
    }

    /// `make_task_id`: "lang::repo::name".
    pub fn task_id(&self) -> String {
        format!("{}::{}::{}", self.language, self.repo, self.name)
    }
}

/// Which needle a task is about: indexes into the dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskSpec {
    pub language: Language,
    pub repo_index: usize,
    pub needle_index: usize,
}

impl TaskSpec {
    pub fn language_name(&self) -> &'static str {
        self.language.name()
    }
}

/// The tasks of `evaluate_model`, in its order (P1): languages in file
/// order (those in `languages` if given), repos in order, needles in order;
/// repos without needles give none.
pub fn task_specs(dataset: &Dataset, languages: Option<&[Language]>) -> Vec<TaskSpec> {
    let mut out = Vec::with_capacity(dataset.needle_count());
    for (key, repos) in &dataset.languages {
        let Ok(language) = Language::from_name(key) else { continue };
        if languages.is_some_and(|ls| !ls.contains(&language)) {
            continue;
        }
        for (repo_index, repo) in repos.iter().enumerate() {
            for needle_index in 0..repo.needles.len() {
                out.push(TaskSpec { language, repo_index, needle_index });
            }
        }
    }
    out
}

/// Build one task. To build many, use `ContextBuilder` (or `build_tasks`):
/// it checks the tokenizer once and keeps the line counts of a repo and the
/// word counts between tasks.
pub fn build_task(
    dataset: &Dataset,
    spec: &TaskSpec,
    options: &ContextOptions,
    tokenizer: &Tokenizer,
) -> Result<Task, ContextError> {
    ContextBuilder::new(dataset, *options, tokenizer).build(spec)
}

/// Build the tasks of `specs` in order; `progress(done, total)` is called
/// after each one.
pub fn build_tasks(
    dataset: &Dataset,
    specs: &[TaskSpec],
    options: &ContextOptions,
    tokenizer: &Tokenizer,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<Task>, ContextError> {
    let mut builder = ContextBuilder::new(dataset, *options, tokenizer);
    let mut out = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        out.push(builder.build(spec)?);
        progress(i + 1, specs.len());
    }
    Ok(out)
}

/// Builds tasks one at a time (so a UI can show progress between them),
/// keeping the line counts of the current repo.
pub struct ContextBuilder<'d, 't> {
    dataset: &'d Dataset,
    options: ContextOptions,
    counter: Counter<'t>,
    current: Option<(Language, usize, Prepared<'d>)>,
}

impl<'d, 't> ContextBuilder<'d, 't> {
    pub fn new(
        dataset: &'d Dataset,
        options: ContextOptions,
        tokenizer: &'t Tokenizer,
    ) -> ContextBuilder<'d, 't> {
        ContextBuilder {
            dataset,
            options,
            counter: Counter::new(tokenizer, options.strip_nul),
            current: None,
        }
    }

    pub fn build(&mut self, spec: &TaskSpec) -> Result<Task, ContextError> {
        let missing = || ContextError::NoSuchTask {
            language: spec.language.name().to_string(),
            repo_index: spec.repo_index,
            needle_index: spec.needle_index,
        };
        let repos = self.dataset.repos(spec.language.name()).ok_or_else(missing)?;
        let repo = repos.get(spec.repo_index).ok_or_else(missing)?;
        let needle = repo.needles.get(spec.needle_index).ok_or_else(missing)?;
        let same = matches!(&self.current, Some((l, r, _)) if *l == spec.language && *r == spec.repo_index);
        if !same {
            self.current =
                Some((spec.language, spec.repo_index, Prepared::new(spec.language, repo)?));
        }
        let Some((_, _, prepared)) = self.current.as_mut() else { unreachable!("set above") };
        let position_ratio = (spec.needle_index as f64 + 0.5) / repo.needles.len() as f64;
        let ctx = make_code_context(
            prepared,
            &mut self.counter,
            repo,
            needle,
            position_ratio,
            &self.options,
        )?;
        Ok(Task {
            repo: repo.repo.clone(),
            name: needle.name.clone(),
            language: spec.language.name().to_string(),
            path: needle.path.clone(),
            position_ratio,
            description: format!("\nFunction Description:{}\n", needle.description),
            instruction: INSTRUCTION.to_string(),
            template: TEMPLATE.to_string(),
            code_context: ctx.code_context,
            needle_token_start: ctx.needle_token_start,
            needle_token_end: ctx.needle_token_end,
            code_context_ntokens: ctx.code_context_ntokens,
        })
    }
}

// ---------------------------------------------------------------------------
// Token counts

/// Token counts as the official code takes them, with memoized counts.
///
/// With a Llama-style tokenizer (checked in `word_sums_apply`) a line's count
/// is the sum of the counts of its "words": the normalized text (`▁` +
/// text, spaces → `▁`) is cut before every `▁` that follows another
/// character. No vocabulary piece holds a `▁` after another character, so
/// no BPE merge crosses such a cut and each side is tokenized on its own.
/// Words repeat across code far more than lines do, so almost every count is
/// a memo hit. A word is counted by the BPE model itself, on its normalized
/// text.
struct Counter<'t> {
    tok: &'t Tokenizer,
    strip_nul: bool,
    words: bool,
    /// Contents of the added tokens (`<s>`…), split out before
    /// normalization: lines holding one are counted whole.
    added: Vec<String>,
    /// Counts of normalized words.
    word_memo: HashMap<String, usize, BuildHasherDefault<FxHasher>>,
    buf: String,
}

impl<'t> Counter<'t> {
    fn new(tok: &'t Tokenizer, strip_nul: bool) -> Counter<'t> {
        let added: Vec<String> =
            tok.hf().get_added_tokens_decoder().into_values().map(|t| t.content).collect();
        Counter {
            tok,
            strip_nul,
            words: word_sums_apply(tok),
            added,
            word_memo: HashMap::default(),
            buf: String::new(),
        }
    }

    /// `len(tokenize(text))`, or 0.1.2's `count_tokens` (no `<0x00>`).
    fn budget(&mut self, text: &str) -> Result<usize, TokenizerError> {
        if self.strip_nul && text.contains('\0') {
            return Ok(self.tok.tokens(text)?.iter().filter(|t| *t != "<0x00>").count());
        }
        self.count_piece(text, true)
    }

    /// Budget cost of a line: `line + "\n"`.
    fn line(&mut self, line: &str) -> Result<usize, TokenizerError> {
        if self.strip_nul && line.contains('\0') {
            return self.budget(&format!("{line}\n"));
        }
        self.count_line(line, true)
    }

    /// Tokens that `line + "\n"` adds to a text when it follows a newline
    /// (no `▁` prepended): `len(tokenize("\n" + line + "\n")) - 2`.
    fn line_inner(&mut self, line: &str) -> Result<usize, TokenizerError> {
        self.count_line(line, false)
    }

    /// `line + "\n"` at the start of a text (`pre`) or after a newline.
    fn count_line(&mut self, line: &str, pre: bool) -> Result<usize, TokenizerError> {
        if self.words && !self.added.iter().any(|a| line.contains(a.as_str())) {
            return self.word_sum(line, pre, true);
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        if !pre {
            buf.push('\n');
        }
        buf.push_str(line);
        buf.push('\n');
        let n = self.tok.count(&buf);
        self.buf = buf;
        Ok(n?.saturating_sub(if pre { 0 } else { 2 }))
    }

    /// A piece of text without "\n" inside, except possibly at its end.
    fn count_piece(&mut self, piece: &str, pre: bool) -> Result<usize, TokenizerError> {
        match piece.strip_suffix('\n') {
            Some(line) if !line.contains('\n') => self.count_line(line, pre),
            _ if piece.contains('\n') => self.text(piece),
            _ if self.words && !self.added.iter().any(|a| piece.contains(a.as_str())) => {
                self.word_sum(piece, pre, false)
            }
            _ if pre => self.tok.count(piece),
            _ => Ok(self.tok.count(&format!("\n{piece}"))?.saturating_sub(2)),
        }
    }

    fn word_sum(&mut self, line: &str, pre: bool, newline: bool) -> Result<usize, TokenizerError> {
        let (with, without) = self.word_sums(line, newline, pre, !pre)?;
        Ok(if pre { with } else { without })
    }

    /// The word sums of `line` (+ "\n") with `▁` prepended and without:
    /// they differ only in the first word. `want_*` skip an unneeded one.
    fn word_sums(
        &mut self,
        line: &str,
        newline: bool,
        want_with: bool,
        want_without: bool,
    ) -> Result<(usize, usize), TokenizerError> {
        if line.is_empty() && !newline {
            // `▁` is only prepended to a non-empty text.
            return Ok((0, 0));
        }
        let (mut with, mut without) = (0, 0);
        let mut first = true;
        let mut spaces = 0;
        let mut start = 0;
        let mut in_word = false;
        let mut i = 0;
        let bytes = line.as_bytes();
        // Words end before a space (' ' or a literal '▁') that follows
        // another character. Scanning bytes is enough: both are found by
        // their first byte and no other character starts with those bytes
        // (0x20; 0xE2 0x96 0x81).
        while i <= bytes.len() {
            let (is_end, space_len) = if i == bytes.len() {
                (true, 0)
            } else if bytes[i] == b' ' {
                (false, 1)
            } else if bytes[i..].starts_with("\u{2581}".as_bytes()) {
                (false, 3)
            } else {
                (false, 0)
            };
            if is_end || (space_len > 0 && in_word) {
                let word = if in_word { &line[start..i] } else { "" };
                let nl = is_end && newline;
                if is_end && !nl && word.is_empty() && spaces == 0 && !first {
                    break;
                }
                if first {
                    if want_with {
                        with += self.word(spaces + 1, word, nl)?;
                    }
                    if want_without && (spaces > 0 || !word.is_empty() || nl) {
                        without += self.word(spaces, word, nl)?;
                    }
                    first = false;
                } else {
                    let n = self.word(spaces, word, nl)?;
                    with += n;
                    without += n;
                }
                if is_end {
                    break;
                }
                spaces = 0;
                in_word = false;
            }
            if space_len > 0 {
                spaces += 1;
                i += space_len;
            } else {
                if !in_word {
                    in_word = true;
                    start = i;
                }
                i += 1;
            }
        }
        Ok((with, without))
    }

    /// (Budget cost, count inside a text) of a line, computed together.
    fn line_pair(&mut self, line: &str) -> Result<(usize, usize), TokenizerError> {
        if self.words
            && !(self.strip_nul && line.contains('\0'))
            && !self.added.iter().any(|a| line.contains(a.as_str()))
        {
            return self.word_sums(line, true, true, true);
        }
        let cost = self.line(line)?;
        let inner = if self.strip_nul {
            self.line_inner(&line.replace('\0', ""))?
        } else {
            self.line_inner(line)?
        };
        Ok((cost, inner))
    }

    /// Tokens of the normalized word `▁^spaces + word (+ "\n")`: the BPE
    /// model's own tokenization of it (the pipeline around it only
    /// normalizes, which is done here), memoized.
    fn word(&mut self, spaces: usize, word: &str, newline: bool) -> Result<usize, TokenizerError> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        for _ in 0..spaces {
            buf.push('\u{2581}');
        }
        buf.push_str(word);
        if newline {
            buf.push('\n');
        }
        let n = match self.word_memo.get(buf.as_str()) {
            Some(&n) => Ok(n),
            None => match self.tok.hf().get_model().tokenize(&buf) {
                Ok(tokens) => {
                    self.word_memo.insert(buf.clone(), tokens.len());
                    Ok(tokens.len())
                }
                Err(e) => Err(TokenizerError::Encode { len: buf.len(), message: e.to_string() }),
            },
        };
        self.buf = buf;
        n
    }

    /// `len(tokenize(text))` of a whole text, as a sum over its lines.
    fn text(&mut self, text: &str) -> Result<usize, TokenizerError> {
        let mut n = 0;
        for (i, piece) in text.split_inclusive('\n').enumerate() {
            n += self.count_piece(piece, i == 0)?;
        }
        Ok(n)
    }
}

/// The word memo is hit millions of times with short keys; SipHash costs
/// more than the lookup itself there (the keys come from the dataset being
/// processed locally, so flooding resistance buys nothing).
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Whether word sums (see `Counter`) equal whole-text counts for this
/// tokenizer: normalizer = prepend `▁` + spaces → `▁`, no pre-tokenizer, a
/// BPE model without dropout, and no vocabulary piece with a `▁` after
/// another character. Other tokenizers are counted line by line.
fn word_sums_apply(tok: &Tokenizer) -> bool {
    let hf = tok.hf();
    if hf.get_pre_tokenizer().is_some() {
        return false;
    }
    let expected = serde_json::json!({"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u{2581}"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"}]});
    match hf.get_normalizer().map(serde_json::to_value) {
        Some(Ok(v)) if v == expected => {}
        _ => return false,
    }
    match hf.get_model() {
        tokenizers::ModelWrapper::BPE(bpe) if bpe.dropout.is_none() => {}
        _ => return false,
    }
    hf.get_vocab(false).keys().all(|piece| {
        let mut prev_other = false;
        piece.chars().all(|c| {
            let ok = !(c == '\u{2581}' && prev_other);
            prev_other = c != '\u{2581}';
            ok
        })
    })
}

/// `len(tokenizer.tokenize(text))` computed line by line with memoized
/// counts (see `Counter`). Each call checks the tokenizer's configuration
/// (a few ms); to count many texts, build tasks with a `ContextBuilder`.
pub fn text_count(tok: &Tokenizer, text: &str) -> Result<usize, TokenizerError> {
    Counter::new(tok, false).text(text)
}

// ---------------------------------------------------------------------------
// A repo prepared once for all its needles

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
    fn cp_to_byte(&self, cp: usize) -> usize {
        if self.ascii {
            return cp.min(self.text.len());
        }
        self.text.char_indices().nth(cp).map_or(self.text.len(), |(b, _)| b)
    }
}

struct Prepared<'d> {
    language: Language,
    files: Vec<FileData<'d>>,
}

impl<'d> Prepared<'d> {
    fn new(language: Language, repo: &'d Repo) -> Result<Prepared<'d>, ContextError> {
        let mut files = Vec::new();
        for path in repo.file_order() {
            let text = repo.content.get(path).ok_or_else(|| ContextError::MissingFile {
                language: language.name().to_string(),
                repo: repo.repo.clone(),
                path: path.to_string(),
            })?;
            files.push(FileData::new(path, text, language));
        }
        Ok(Prepared { language, files })
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
        }
        Ok(())
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

struct CodeContext {
    code_context: String,
    needle_token_start: usize,
    needle_token_end: usize,
    code_context_ntokens: usize,
}

/// Where the outermost next file's chunk starts in the suffix and what it
/// holds (for the corrected suffix cleaning).
struct BottomChunk {
    start: usize,
    path_line: bool,
    lines: usize,
    broke: bool,
}

fn make_code_context(
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
    // P3: byte offsets used as code-point indices.
    let a = prep.files[nf].cp_to_byte(needle.start_byte);
    let b = prep.files[nf].cp_to_byte(needle.end_byte).max(a);
    let text = prep.files[nf].text;
    let needle_code = &text[a..b];
    let needle_budget_tokens = c.budget(needle_code)?;

    // P5.
    let size = options.code_context_size as i64;
    let mut prefix_size = (size as f64 * position_ratio - needle_budget_tokens as f64 / 2.0) as i64;
    let mut suffix_size = size - needle_budget_tokens as i64 - prefix_size;

    // P6: the needle file up to the needle, from the bottom.
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
    // K1.
    let mut context_paths: Vec<&str> = vec![needle.path.as_str()];
    let mut top_file: Option<usize> = None;
    let mut index = nf as i64 - 1;
    while !broke && prefix_size > 0 && index >= 0 {
        let f = index as usize;
        context_paths.insert(0, prep.files[f].path);
        top_file = Some(f);
        let mut chunk = Vec::new();
        let pieces = file_pieces(prep, f);
        let (n, br, _) = forward(prep, c, pieces, prefix_size, &mut chunk)?;
        broke = br;
        prefix_size -= n;
        prev_chunks.push(chunk);
        index -= 1;
    }
    let mut prefix_pieces: Vec<Piece> = prev_chunks.into_iter().rev().flatten().collect();
    prefix_pieces.extend_from_slice(&own[first..]);

    // P8: the rest of the needle file, then the next files.
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
        context_paths.push(prep.files[index].path);
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

    let mut code_prefix = String::new();
    prep.push_text(&mut code_prefix, &prefix_pieces);
    let mut code_suffix = String::new();
    prep.push_text(&mut code_suffix, &suffix_pieces);

    if options.comment_mode == CommentMode::None {
        // P9, with the counts of the lines already known.
        let prefix_tokens = prep.pieces_count(c, &prefix_pieces)?;
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
        let mut code_context = code_prefix;
        code_context.push_str(&needle_text);
        code_context.push_str(&code_suffix);
        return Ok(CodeContext {
            code_context,
            needle_token_start: prefix_tokens,
            needle_token_end: prefix_tokens + needle_tokens,
            code_context_ntokens: prefix_tokens + needle_tokens + suffix_tokens,
        });
    }

    // Comment cleaning (K1–K6) works on the texts.
    let prefix_orig = prep.pieces_count(c, &prefix_pieces)?;
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
    let mut prefix_cleaned = match top_file.filter(|&f| !prep.files[f].text.is_empty()) {
        Some(f) => {
            let second = format!("{cp} Path: {}", context_paths[1]);
            let lines: Vec<&str> = code_prefix.split('\n').collect();
            let top_lines = lines.iter().position(|l| l.contains(&second)).unwrap_or(lines.len());
            let top = clean_partial_file(
                language,
                prep.files[f].text,
                top_lines as i64,
                context_paths[0],
            )?
            .ok_or_else(utf8_error)?;
            let rest = clean(&lines[top_lines..].join("\n"))?.ok_or_else(utf8_error)?;
            top + &rest
        }
        None => clean(&code_prefix)?.ok_or_else(utf8_error)?,
    };
    let needle_cleaned = clean(needle_code)?.ok_or_else(utf8_error)?;
    let bottom = bottom.filter(|(f, _)| !prep.files[*f].text.is_empty());
    let mut suffix_cleaned = match bottom {
        Some((f, chunk)) if options.fix_suffix_cleaning => {
            // Corrected: the text before the last file is cleaned as a
            // segment, the last file as a whole like the top file, keeping
            // exactly the lines the context holds.
            let mut head = String::new();
            prep.push_text(&mut head, &suffix_pieces[..chunk.start]);
            let mut out = clean(&head)?.ok_or_else(utf8_error)?;
            let whole = blank_comments(language, prep.files[f].text)?.ok_or_else(utf8_error)?;
            if chunk.path_line {
                out.push_str(&prep.files[f].path_line);
                out.push('\n');
            }
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
            let bottom = clean_partial_file(language, prep.files[f].text, count as i64, last)?
                .ok_or_else(utf8_error)?;
            rest + &bottom
        }
        None => clean(&code_suffix)?.ok_or_else(utf8_error)?,
    };
    let mut needle_final = needle_cleaned;

    if options.comment_mode == CommentMode::PositionalPadding {
        // K6.
        let prefix_clean = c.text(&prefix_cleaned)? as i64;
        let needle_clean = c.text(&needle_final)? as i64;
        let suffix_clean = c.text(&suffix_cleaned)? as i64;
        let removed = needle_orig as i64 - needle_clean;
        let needle_prefix = (removed as f64 * position_ratio) as i64;
        let needle_suffix = removed - needle_prefix;
        let mut pad_prefix = needle_prefix + prefix_orig as i64 - prefix_clean - 1;
        let mut pad_suffix = needle_suffix + suffix_orig as i64 - suffix_clean - 1;
        let mut line = 0usize;
        let mut dummy = String::new();
        while pad_prefix > 0 {
            let current = format!("{cp} Line Number {line}\n");
            pad_prefix -= c.tok.count(&current)? as i64;
            dummy.push_str(&current);
            line += 1;
        }
        dummy.push('\n');
        dummy.push_str(&prefix_cleaned);
        prefix_cleaned = dummy;
        while pad_suffix > 0 {
            let current = format!("{cp} Line Number {line}\n");
            pad_suffix -= c.tok.count(&current)? as i64;
            suffix_cleaned.push_str(&current);
            line += 1;
        }
        suffix_cleaned.push('\n');
    }
    if options.strip_nul {
        prefix_cleaned.retain(|ch| ch != '\0');
        needle_final.retain(|ch| ch != '\0');
        suffix_cleaned.retain(|ch| ch != '\0');
    }
    let start = c.text(&prefix_cleaned)?;
    let end = start + c.text(&needle_final)?;
    let total = end + c.text(&suffix_cleaned)?;
    let mut code_context = prefix_cleaned;
    code_context.push_str(&needle_final);
    code_context.push_str(&suffix_cleaned);
    Ok(CodeContext {
        code_context,
        needle_token_start: start,
        needle_token_end: end,
        code_context_ntokens: total,
    })
}

fn nfile_line_of(prep: &Prepared, file: usize, b: usize) -> usize {
    prep.files[file].line_of(b)
}

// ---------------------------------------------------------------------------
// Comment cleaning (upstream HEAD)

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
fn clean_segment_comments(
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
fn blank_comments(language: Language, whole: &str) -> Result<Option<String>, GrammarError> {
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
/// lines of the blanked whole file (Python slice: a negative end counts
/// from the back) + `"...\n"` glued to the last kept line.
fn clean_partial_file(
    language: Language,
    whole: &str,
    partial_lines: i64,
    path: &str,
) -> Result<Option<String>, GrammarError> {
    let Some(blanked) = blank_comments(language, whole)? else { return Ok(None) };
    let lines: Vec<&str> = blanked.split('\n').collect();
    let end = python_slice_end(lines.len(), partial_lines - 1);
    let mut out = format!("{} Path: {}\n", language.comment_prefix(), path);
    out.push_str(&lines[..end].join("\n"));
    out.push_str("...\n");
    Ok(Some(out))
}

/// The end index of Python's `list[:end]` for a list of `len` items.
fn python_slice_end(len: usize, end: i64) -> usize {
    if end >= 0 {
        (end as usize).min(len)
    } else {
        len.saturating_sub(end.unsigned_abs() as usize)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::tokenize::test_tokenizer;

    /// A dataset of one repo from (path, text) files in dependency order and
    /// needles given as (path, name, start_byte, end_byte).
    fn dataset(
        language: &str,
        files: &[(&str, &str)],
        needles: &[(&str, &str, usize, usize)],
    ) -> Dataset {
        let content: serde_json::Map<String, serde_json::Value> =
            files.iter().map(|(p, t)| (p.to_string(), (*t).into())).collect();
        // A chain: each file imports the previous one, so the order is the list's.
        let dependency: serde_json::Map<String, serde_json::Value> = files
            .iter()
            .enumerate()
            .map(|(i, (p, _))| {
                let deps: Vec<serde_json::Value> =
                    if i > 0 { vec![files[i - 1].0.into()] } else { vec![] };
                (p.to_string(), deps.into())
            })
            .collect();
        let needles: Vec<serde_json::Value> = needles
            .iter()
            .map(|(path, name, s, e)| {
                let text = files.iter().find(|f| f.0 == *path).unwrap().1;
                let start_line = text[..*s].matches('\n').count();
                let end_line = text[..*e].matches('\n').count() + 1;
                serde_json::json!({"name": name, "start_line": start_line, "end_line": end_line,
                    "start_byte": s, "end_byte": e, "path": path, "description": "d"})
            })
            .collect();
        let v = serde_json::json!({language: [{"repo": "o/r", "content": content, "dependency": dependency,
            "needles": needles}]});
        Dataset::from_bytes(v.to_string().as_bytes(), "test").unwrap()
    }

    fn tasks(d: &Dataset, options: ContextOptions) -> Vec<Task> {
        let specs = task_specs(d, None);
        build_tasks(d, &specs, &options, test_tokenizer(), |_, _| {}).unwrap()
    }

    fn opts(size: usize) -> ContextOptions {
        ContextOptions { code_context_size: size, ..ContextOptions::default() }
    }

    #[test]
    fn text_count_equals_whole_text_tokenization() {
        let t = test_tokenizer();
        for text in [
            "",
            "\n",
            "\n\n",
            "def f():\n    return 1\n",
            "  x\n\ty\r\n<s> hi </s>\nlast",
            "</s>\n<unk>\n\n  \n…café ✓ 😀\nx",
            "a\n<s>\n",
            "    \n",
        ] {
            assert_eq!(text_count(t, text).unwrap(), t.tokens(text).unwrap().len(), "{text:?}");
        }
    }

    #[test]
    fn word_sums_apply_to_the_default_tokenizer_and_match_direct_counts() {
        let t = test_tokenizer();
        assert!(word_sums_apply(t));
        let mut c = Counter::new(t, false);
        for line in [
            "",
            " ",
            "  ",
            "x",
            " x",
            "a b",
            "a  ",
            "    return self.x  # café ✓",
            "\tfoo",
            "a\u{2581}b",
            "<s> hi </s>",
            "x\r",
        ] {
            assert_eq!(
                c.line(line).unwrap(),
                t.tokens(&format!("{line}\n")).unwrap().len(),
                "{line:?}"
            );
            let inner = t.tokens(&format!("\n{line}\n")).unwrap().len() - 2;
            assert_eq!(c.line_inner(line).unwrap(), inner, "{line:?}");
            assert_eq!(c.budget(line).unwrap(), t.tokens(line).unwrap().len(), "{line:?}");
        }
    }

    #[test]
    fn negative_prefix_budget_truncates_toward_zero() {
        // P5: int(-197.6) == -197; a negative budget takes nothing before the
        // needle, not even its (partial) line.
        let p = (16.0f64 * 0.05 - 397.0 / 2.0) as i64;
        assert_eq!(p, -197);
        let body = "def needle():\n".to_string() + &"    x = 1\n".repeat(60);
        let text = format!("import os\n{body}");
        let d = dataset("python", &[("a.py", &text)], &[("a.py", "needle", 10, text.len() - 1)]);
        let t = &tasks(&d, opts(16))[0];
        assert!(t.code_context.starts_with("def needle():"), "{:?}", &t.code_context[..40]);
        assert_eq!(t.needle_token_start, 0);
    }

    #[test]
    fn prefix_repeats_the_partial_line_with_an_extra_newline() {
        // P6: "    " before an indented method is followed by "\n".
        let text = "class A:\n    def visit(self):\n        return 1\n";
        let s = text.find("def").unwrap();
        let e = text.find("return 1").unwrap() + 8;
        let d = dataset("python", &[("a.py", text)], &[("a.py", "visit", s, e)]);
        let t = &tasks(&d, opts(1000))[0];
        assert_eq!(
            t.code_context,
            "# Path: a.py\nclass A:\n    \ndef visit(self):\n        return 1\n\n"
        );
        assert_eq!(
            t.needle_token_start,
            test_tokenizer().tokens("# Path: a.py\nclass A:\n    \n").unwrap().len()
        );
    }

    #[test]
    fn byte_offsets_are_used_as_code_point_indices() {
        // P3: "é" is 2 bytes but 1 code point, so the slice starts 1 char late.
        let text = "# café\ndef f():\n    return 1\n";
        let s = text.find("def").unwrap();
        let e = text.len() - 1;
        let d = dataset("python", &[("a.py", text)], &[("a.py", "f", s, e)]);
        let t = &tasks(&d, opts(1000))[0];
        assert_eq!(t.code_context, "# Path: a.py\n# café\nd\nef f():\n    return 1\n\n");
        let chars: Vec<char> = text.chars().collect();
        let needle: String = chars[s..e].iter().collect();
        let prefix = "# Path: a.py\n# café\nd\n";
        let n = test_tokenizer().tokens(prefix).unwrap().len();
        assert_eq!(t.needle_token_start, n);
        assert_eq!(t.needle_token_end, n + test_tokenizer().tokens(&needle).unwrap().len());
    }

    #[test]
    fn forward_chunks_end_with_an_ellipsis_and_path_lines_head_files() {
        let a = "x = 1\n".repeat(400);
        let b = "def f():\n    return 2\n";
        let d = dataset("python", &[("a.py", &a), ("b.py", b)], &[("b.py", "f", 0, b.len() - 1)]);
        let t = &tasks(&d, opts(200))[0];
        assert!(t.code_context.starts_with("# Path: a.py\nx = 1\n"), "{}", t.code_context);
        assert!(
            t.code_context.contains("x = 1\n...\n# Path: b.py\n\ndef f():"),
            "{}",
            t.code_context
        );
        assert_eq!(t.task_id(), "python::o/r::f");
        assert_eq!(
            t.prompt(),
            format!("{INSTRUCTION}{}{}{INSTRUCTION}", t.code_context, t.description)
        );
    }

    #[test]
    fn task_order_and_position_ratios() {
        let text = "def a():\n    pass\ndef b():\n    pass\n";
        let d =
            dataset("python", &[("a.py", text)], &[("a.py", "a", 0, 17), ("a.py", "b", 18, 35)]);
        let ts = tasks(&d, opts(100));
        assert_eq!(ts.iter().map(|t| t.position_ratio).collect::<Vec<_>>(), [0.25, 0.75]);
        assert_eq!(ts[1].name, "b");
        assert!(task_specs(&d, Some(&[Language::Rust])).is_empty());
        let keys: Vec<String> = match serde_json::to_value(&ts[0]).unwrap() {
            serde_json::Value::Object(m) => m.keys().cloned().collect(),
            _ => unreachable!(),
        };
        assert_eq!(
            keys,
            [
                "repo",
                "name",
                "language",
                "path",
                "position_ratio",
                "description",
                "instruction",
                "template",
                "code_context",
                "needle_token_start",
                "needle_token_end",
                "code_context_ntokens"
            ]
        );
    }

    #[test]
    fn comment_modes_parse_and_print_the_official_strings() {
        for m in CommentMode::ALL {
            assert_eq!(m.to_string().parse::<CommentMode>().unwrap(), m);
        }
        assert!("positional-padding".parse::<CommentMode>().is_err());
    }

    #[test]
    fn python_slices_with_negative_ends() {
        assert_eq!(python_slice_end(5, -1), 4);
        assert_eq!(python_slice_end(5, -9), 0);
        assert_eq!(python_slice_end(5, 9), 5);
    }

    #[test]
    fn suffix_bug_k5_and_its_fix() {
        let a = "def a():\n    # note\n    return 1\n";
        let b = "def b():\n    return 2  # two\n\nx = 3\n";
        let c = "def c():\n    # see\n    return 3\n";
        let d =
            dataset("python", &[("a.py", a), ("b.py", b), ("c.py", c)], &[("b.py", "b", 0, 28)]);
        let mut o = opts(10_000);
        o.comment_mode = CommentMode::NoPadding;
        let buggy = &tasks(&d, o)[0];
        // The rest of b.py is dropped and c.py's path line glued to the needle.
        assert!(buggy.code_context.contains("return 2  # Path: c.py\n"), "{}", buggy.code_context);
        o.fix_suffix_cleaning = true;
        let fixed = &tasks(&d, o)[0];
        assert!(
            fixed
                .code_context
                .ends_with("return 2  \n\nx = 3\n\n# Path: c.py\ndef c():\n    \n    return 3\n\n"),
            "{}",
            fixed.code_context
        );
        // Without comments the corrected cleaning keeps the context as is.
        let plain = dataset(
            "python",
            &[("a.py", "x = 1\n"), ("b.py", "def b():\n    return 2\n"), ("c.py", "y = 2\n")],
            &[("b.py", "b", 0, 21)],
        );
        let none = &tasks(&plain, opts(10_000))[0];
        let fixed = &tasks(&plain, o)[0];
        assert_eq!(
            none.code_context.split("def b").nth(1),
            fixed.code_context.split("def b").nth(1)
        );
    }
}
