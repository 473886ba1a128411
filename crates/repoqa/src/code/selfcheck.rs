//! The self-check shown on the app's "About / self-check" page and read by
//! the browser smoke test: every grammar parses a snippet and finds its
//! function with the official query, and the tokenizer counts a sample line.
//! The same function runs natively in `cargo test`, so the browser's figures
//! can be compared with native ones.

use crate::code::lang::{Grammar, Language};
use crate::code::tokenize::Tokenizer;

/// The line whose token count the browser must report identically to native.
pub const SAMPLE_LINE: &str = "    def visit_test(self, node: ast.AST) -> None:  # café ✓\n";

/// One snippet per language, each holding exactly one function that the
/// official FUNCTION_QUERY finds.
pub fn sample(language: Language) -> &'static str {
    match language {
        Language::Python => "import os\n\ndef needle(path):\n    \"\"\"Doc.\"\"\"\n    return os.path.basename(path)\n",
        Language::Cpp => "#include <string>\nstatic int needle(const std::string& s) {\n  return (int)s.size(); // size\n}\n",
        Language::Java => "package p;\nclass A {\n  /** doc */\n  int needle(String s) { return s.length(); }\n}\n",
        Language::TypeScript => "import { x } from './x';\nexport function needle(s: string): number {\n  return s.length + x; // len\n}\n",
        Language::Rust => "use std::fmt;\n/// Doc.\npub fn needle(s: &str) -> usize {\n    s.len() // len\n}\n",
        Language::Go => "package p\n\n// Needle doc.\nfunc needle(s string) int {\n\treturn len(s)\n}\n",
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GrammarCheck {
    pub language: Language,
    pub grammar: String,
    /// Parsed without an ERROR node.
    pub parsed: bool,
    /// Functions found by FUNCTION_QUERY (1 expected).
    pub functions: usize,
    /// Comments found by COMMENT_QUERY (≥ 1 expected).
    pub comments: usize,
    pub first_function: String,
    pub error: Option<String>,
}

impl GrammarCheck {
    pub fn ok(&self) -> bool {
        self.parsed && self.functions == 1 && self.comments >= 1 && self.error.is_none()
    }
}

pub fn check_grammar(language: Language) -> GrammarCheck {
    let src = sample(language).as_bytes();
    let g = language.grammar();
    let mut check = GrammarCheck {
        language,
        grammar: language.grammar_crate().to_string(),
        parsed: false,
        functions: 0,
        comments: 0,
        first_function: String::new(),
        error: None,
    };
    match g.parse(src) {
        Ok(tree) => {
            check.parsed = !Grammar::has_error(&tree);
            let f = g.function_spans(&tree, src);
            check.functions = f.len();
            check.comments = g.comment_spans(&tree, src).len();
            if let Some(s) = f.first() {
                check.first_function = String::from_utf8_lossy(&src[s.start..s.end]).into_owned();
            }
        }
        Err(e) => check.error = Some(e.to_string()),
    }
    check
}

pub fn check_all_grammars() -> Vec<GrammarCheck> {
    Language::ALL.iter().copied().map(check_grammar).collect()
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TokenizerCheck {
    pub origin: String,
    pub vocab_size: usize,
    pub sample_tokens: Vec<String>,
    pub sample_count: usize,
}

pub fn check_tokenizer(
    tok: &Tokenizer,
) -> Result<TokenizerCheck, crate::code::tokenize::TokenizerError> {
    let sample_tokens = tok.tokens(SAMPLE_LINE)?;
    Ok(TokenizerCheck {
        origin: tok.origin.clone(),
        vocab_size: tok.vocab_size(),
        sample_count: sample_tokens.len(),
        sample_tokens,
    })
}

/// The whole self-check as JSON (what `repoqa self-check --json` prints and
/// the browser smoke test compares with the page).
pub fn report_json(
    tok: &Tokenizer,
) -> Result<serde_json::Value, crate::code::tokenize::TokenizerError> {
    let t = check_tokenizer(tok)?;
    let grammars: Vec<serde_json::Value> = check_all_grammars()
        .into_iter()
        .map(|g| {
            serde_json::json!({
                "language": g.language.name(),
                "grammar": g.grammar,
                "ok": g.ok(),
                "functions": g.functions,
                "comments": g.comments,
            })
        })
        .collect();
    Ok(serde_json::json!({
        "grammars": grammars,
        "tokenizer": {
            "origin": t.origin,
            "vocab_size": t.vocab_size,
            "sample_line": SAMPLE_LINE,
            "sample_count": t.sample_count,
            "sample_tokens": t.sample_tokens,
        },
    }))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn all_six_grammars_pass_the_self_check() {
        for c in check_all_grammars() {
            assert!(c.ok(), "{c:?}");
            assert!(c.first_function.contains("needle"), "{c:?}");
        }
    }

    #[test]
    fn tokenizer_self_check_counts_the_sample_line() {
        let c = check_tokenizer(crate::code::tokenize::test_tokenizer()).unwrap();
        assert_eq!(c.sample_count, c.sample_tokens.len());
        assert_eq!(c.vocab_size, 32000);
    }
}
