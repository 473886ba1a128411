//! Token counts as the official harness computes them:
//! `len(tokenizer.tokenize(text))` with CodeLlama's tokenizer, one
//! independent call per piece of text (docs/parity.md T1–T4).
//!
//! Any HF `tokenizer.json` is accepted; the default is a Llama-2 file
//! (CodeLlama's vocabulary without its 16 infilling tokens, which never occur
//! in source code), fetched by `scripts/setup.sh` into `.tools/`.

use std::collections::HashMap;
use std::sync::Mutex;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum TokenizerError {
    #[error("tokenizer file {origin}: not a valid HF tokenizer.json: {message}")]
    Invalid { origin: String, message: String },
    #[error("tokenizer file {path}: {source}{}", missing_hint(source))]
    Io { path: String, source: std::io::Error },
    #[error("tokenizer failed on a text of {len} bytes: {message}")]
    Encode { len: usize, message: String },
}

/// What to do when the tokenizer file is not there.
fn missing_hint(e: &std::io::Error) -> &'static str {
    if e.kind() == std::io::ErrorKind::NotFound {
        "; give a HF tokenizer.json with --tokenizer FILE or the REPOQA_TOKENIZER variable (scripts/setup.sh fetches the default, CodeLlama's, into .tools/)"
    } else {
        ""
    }
}

/// A HF tokenizer used the way `transformers`' `tokenizer.tokenize()` uses it
/// (no special tokens added), with a memo of counts: the context builder asks
/// for the same lines over and over.
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    /// Where it came from, for messages and the self-check.
    pub origin: String,
    counts: Mutex<HashMap<String, usize>>,
}

impl Tokenizer {
    /// Load a `tokenizer.json` from its bytes; `origin` names it in errors.
    pub fn from_json_bytes(bytes: &[u8], origin: &str) -> Result<Tokenizer, TokenizerError> {
        let invalid =
            |message: String| TokenizerError::Invalid { origin: origin.to_string(), message };
        // tokenizers 0.22 panics (`expect("Helper")` in its decoder
        // deserializer) on some malformed JSON instead of returning an error
        // (found by crates/repoqa/tests/it/fuzz.rs); the syntax is checked here first.
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
            .map_err(|e| invalid(format!("not valid JSON: {e}")))?;
        let inner = parse_tokenizer(bytes).map_err(invalid)?;
        Ok(Tokenizer { inner, origin: origin.to_string(), counts: Mutex::new(HashMap::new()) })
    }

    /// What `build` makes with a counter of this tokenizer's tokens (for
    /// builders that take `FnMut(&str) -> usize`), or the first error
    /// counting gave, so nothing is asked with a wrong count.
    pub fn counted<T, B, E>(
        &self,
        build: impl FnOnce(&mut dyn FnMut(&str) -> usize) -> Result<T, B>,
    ) -> Result<T, E>
    where
        E: From<B> + From<TokenizerError>,
    {
        let mut error = None;
        let mut count = |p: &str| {
            self.count(p).unwrap_or_else(|e| {
                error.get_or_insert(e);
                0
            })
        };
        let made = build(&mut count)?;
        match error {
            Some(e) => Err(e.into()),
            None => Ok(made),
        }
    }

    /// `tokenizer.tokenize(text)`: the token strings.
    pub fn tokens(&self, text: &str) -> Result<Vec<String>, TokenizerError> {
        let enc = self
            .inner
            .encode(text, false)
            .map_err(|e| TokenizerError::Encode { len: text.len(), message: e.to_string() })?;
        Ok(enc.get_tokens().to_vec())
    }

    /// `len(tokenizer.tokenize(text))`, memoized.
    pub fn count(&self, text: &str) -> Result<usize, TokenizerError> {
        if let Some(n) = self.lock().get(text) {
            return Ok(*n);
        }
        let n = self.tokens(text)?.len();
        self.lock().insert(text.to_string(), n);
        Ok(n)
    }

    /// Size of the vocabulary (with added tokens), for the self-check.
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// The underlying HF tokenizer (read-only), for callers that check its
    /// configuration before taking shortcuts (context::Counter).
    pub fn hf(&self) -> &tokenizers::Tokenizer {
        &self.inner
    }

    /// Forget memoized counts (e.g. after a dataset is unloaded).
    pub fn clear_memo(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // A poisoned memo only means another thread panicked mid-insert; the
        // map itself is still a valid cache.
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The project's tokenizer for this crate's own tests: `$REPOQA_TOKENIZER`,
/// or `.tools/tokenizer.json` of the checkout (put there by
/// `scripts/setup.sh`). The fronts find theirs themselves (the CLI's
/// `tokenizer_path`, the page its download).
#[cfg(test)]
pub(crate) fn test_tokenizer_path() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("REPOQA_TOKENIZER") {
        return p.into();
    }
    // This crate is crates/repoqa/ of the project: the project is two up.
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    core.ancestors().nth(2).unwrap_or(core).join(".tools/tokenizer.json")
}

/// `tokenizers::Tokenizer::from_bytes`; natively, a panic inside the
/// library on a file it cannot read becomes an error too.
fn parse_tokenizer(bytes: &[u8]) -> Result<tokenizers::Tokenizer, String> {
    #[cfg(not(target_arch = "wasm32"))]
    let mut tokenizer = std::panic::catch_unwind(|| tokenizers::Tokenizer::from_bytes(bytes))
        .map_err(|_| "the tokenizer library failed on this file".to_string())?
        .map_err(|e| e.to_string())?;
    #[cfg(target_arch = "wasm32")]
    let mut tokenizer = tokenizers::Tokenizer::from_bytes(bytes).map_err(|e| e.to_string())?;
    // The file's truncation and padding are for encoding model inputs;
    // `tokenizer.tokenize(text)`, which the official harness counts with,
    // applies neither. Dropped, so a file's settings cannot panic the
    // library (a `stride` not below `max_length`) or make it allocate
    // terabytes (padding to a fixed 2^40).
    tokenizer.with_truncation(None).map_err(|e| e.to_string())?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) fn test_tokenizer() -> &'static Tokenizer {
    static T: std::sync::OnceLock<Tokenizer> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let path = test_tokenizer_path();
        Tokenizer::from_file(&path).unwrap_or_else(|e| {
            panic!("{e}\n(run scripts/setup.sh to fetch the tokenizer, or set REPOQA_TOKENIZER)")
        })
    })
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_says_how_to_give_one() {
        let Err(e) = Tokenizer::from_file(std::path::Path::new("/no/such/tokenizer.json")) else {
            panic!("no file, no tokenizer")
        };
        let m = e.to_string();
        assert!(m.starts_with("tokenizer file /no/such/tokenizer.json: "), "{m}");
        assert!(m.contains("--tokenizer FILE or the REPOQA_TOKENIZER variable"), "{m}");
    }

    // docs/parity.md T1–T3, as printed by the official harness's tokenizer.
    #[test]
    fn quirks_of_per_call_tokenization() {
        let t = test_tokenizer();
        let toks = |s: &str| t.tokens(s).unwrap();
        assert_eq!(toks("def f():\n"), ["▁def", "▁f", "():", "<0x0A>"]);
        assert_eq!(toks("\n"), ["▁", "<0x0A>"]);
        assert!(toks("").is_empty());
        assert_eq!(toks(" "), ["▁▁"]);
        assert_eq!(toks("  \n"), ["▁▁▁", "<0x0A>"]);
        assert_eq!(toks("\tfoo\n"), ["▁", "<0x09>", "foo", "<0x0A>"]);
        assert_eq!(toks("...\n"), ["▁...", "<0x0A>"]);
        assert_eq!(toks("\r\n"), ["▁\r", "<0x0A>"]);
        assert_eq!(toks("<s> hi </s>\n"), ["<s>", "▁", "▁hi", "▁", "</s>", "▁", "<0x0A>"]);
    }

    #[test]
    fn count_is_memoized_and_equal_to_tokens() {
        let t = test_tokenizer();
        let s = "    return self.value  # café\n";
        assert_eq!(t.count(s).unwrap(), t.tokens(s).unwrap().len());
        assert_eq!(t.count(s).unwrap(), t.tokens(s).unwrap().len());
    }

    #[test]
    fn truncation_and_padding_of_the_file_are_not_applied() {
        let path = test_tokenizer_path();
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        // A stride not below max_length panics inside the library's
        // truncation; a fixed padding of 2^40 would allocate terabytes.
        json["truncation"] = serde_json::json!({
            "direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 5
        });
        json["padding"] = serde_json::json!({
            "strategy": {"Fixed": 1u64 << 40}, "direction": "Right", "pad_to_multiple_of": null,
            "pad_id": 0, "pad_type_id": 0, "pad_token": "<unk>"
        });
        let hostile =
            Tokenizer::from_json_bytes(json.to_string().as_bytes(), "hostile.json").unwrap();
        let text = "def main():\n    return compute(1, 2, 3)\n";
        assert_eq!(hostile.tokens(text).unwrap(), test_tokenizer().tokens(text).unwrap());
        assert_eq!(hostile.count(text).unwrap(), test_tokenizer().count(text).unwrap());
    }

    #[test]
    fn bad_file_is_a_clear_error() {
        let e = Tokenizer::from_json_bytes(b"{not json", "upload.json").err().unwrap();
        assert!(e.to_string().starts_with("tokenizer file upload.json:"), "{e}");
    }
}
