//! Token counts as the official code takes them, with memoized counts
//! (see the module documentation of `context` for why sums of line counts
//! equal whole-part counts).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use tokenizers::Model as _;

use crate::code::tokenize::{Tokenizer, TokenizerError};

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
pub(super) struct Counter<'t> {
    pub(super) tok: &'t Tokenizer,
    pub(super) strip_nul: bool,
    words: bool,
    /// Contents of the added tokens (`<s>`…), split out before
    /// normalization: lines holding one are counted whole.
    added: Vec<String>,
    /// Counts of normalized words.
    word_memo: HashMap<String, usize, BuildHasherDefault<FxHasher>>,
    buf: String,
}

impl<'t> Counter<'t> {
    pub(super) fn new(tok: &'t Tokenizer, strip_nul: bool) -> Counter<'t> {
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
    pub(super) fn budget(&mut self, text: &str) -> Result<usize, TokenizerError> {
        if self.strip_nul && text.contains('\0') {
            return Ok(self.tok.tokens(text)?.iter().filter(|t| *t != "<0x00>").count());
        }
        self.count_piece(text, true)
    }

    /// Budget cost of a line: `line + "\n"`.
    pub(super) fn line(&mut self, line: &str) -> Result<usize, TokenizerError> {
        if self.strip_nul && line.contains('\0') {
            return self.budget(&format!("{line}\n"));
        }
        self.count_line(line, true)
    }

    /// Tokens that `line + "\n"` adds to a text when it follows a newline
    /// (no `▁` prepended): `len(tokenize("\n" + line + "\n")) - 2`.
    pub(super) fn line_inner(&mut self, line: &str) -> Result<usize, TokenizerError> {
        self.count_line(line, false)
    }

    /// `line + "\n"` at the start of a text (`pre`) or after a newline.
    pub(super) fn count_line(&mut self, line: &str, pre: bool) -> Result<usize, TokenizerError> {
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
    pub(super) fn count_piece(&mut self, piece: &str, pre: bool) -> Result<usize, TokenizerError> {
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
    pub(super) fn line_pair(&mut self, line: &str) -> Result<(usize, usize), TokenizerError> {
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
    pub(super) fn text(&mut self, text: &str) -> Result<usize, TokenizerError> {
        self.text_at(text, true)
    }

    /// The tokens `text` adds to a whole text it is part of: at its start
    /// (`at_start`, the whole text's count) or after a newline. A text cut
    /// at line starts is the sum of its pieces' counts.
    pub(super) fn text_at(&mut self, text: &str, at_start: bool) -> Result<usize, TokenizerError> {
        let mut n = 0;
        for (i, piece) in text.split_inclusive('\n').enumerate() {
            n += self.count_piece(piece, at_start && i == 0)?;
        }
        Ok(n)
    }
}

/// The word memo is hit millions of times with short keys; SipHash costs
/// more than the lookup itself there (the keys come from the dataset being
/// processed locally, so flooding resistance buys nothing).
#[derive(Default, Clone, Copy)]
pub(super) struct FxHasher(u64);

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
pub(super) fn word_sums_apply(tok: &Tokenizer) -> bool {
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

/// Token counts of texts and of their pieces cut at line starts, memoized
/// as the builder counts (for a view that splits a built context: the
/// pieces of a part add up to the part's count exactly).
pub struct LineCounter<'t>(Counter<'t>);

impl<'t> LineCounter<'t> {
    pub fn new(tok: &'t Tokenizer) -> LineCounter<'t> {
        LineCounter(Counter::new(tok, false))
    }

    /// `len(tokenize(text))`.
    pub fn text(&mut self, text: &str) -> Result<usize, TokenizerError> {
        self.0.text(text)
    }

    /// What `text` adds to a whole text: at its start (`at_start`) or
    /// after a newline in it.
    pub fn text_at(&mut self, text: &str, at_start: bool) -> Result<usize, TokenizerError> {
        self.0.text_at(text, at_start)
    }
}

/// `len(tokenizer.tokenize(text))` computed line by line with memoized
/// counts (see `Counter`). Each call checks the tokenizer's configuration
/// (a few ms); to count many texts, build tasks with a `ContextBuilder`.
pub fn text_count(tok: &Tokenizer, text: &str) -> Result<usize, TokenizerError> {
    Counter::new(tok, false).text(text)
}
