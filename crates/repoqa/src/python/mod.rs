//! Python compatibility: behaving byte for byte as the libraries the
//! official code runs on, where Rust's own would differ. `json` writes JSON
//! text as Python's `json.dumps` does (the official files are compared as
//! bytes); `scanner` is tree-sitter-python 0.20.4's external scanner as the
//! official grammar runs it. (NLTK's BLEU is `crate::scoring::bleu`, Python's
//! `random` `crate::curate::pyrandom`: each beside the one stage that uses it.)
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `json`     | Python-compatible JSON text (float repr, `ensure_ascii`) |
//! | `scanner`  | tree-sitter-python 0.20.4's external scanner as the official grammar runs it |

pub mod json;
pub(crate) mod scanner;
