//! RepoQA "Searching Needle Function" (SNF), re-implemented with exact parity
//! to the official harness (PyPI `repoqa`, GitHub evalplus/repoqa).
//!
//! The core modules below are plain Rust: the native `repoqa` CLI, `cargo test`
//! and the wasm app in the browser all run the same code.
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `lang`     | the six languages: grammars, FUNCTION_QUERY, COMMENT_QUERY, comment prefix |
//! | `tokenize` | token counts with a HF `tokenizer.json` (CodeLlama-compatible by default) |
//! | `dataset`  | the RepoQA dataset file (official schema, key order kept), file order |
//! | `context`  | `make_code_context`: the ~16k-token code context around each needle, tasks |
//! | `sanitize` | `sanitize_output`: the function extracted from a model's answer; comment removal |
//! | `bleu`     | NLTK 3.8.1 `sentence_bleu` with smoothing method4, bit for bit |
//! | `score`    | `needle_evaluator` and the pass@1 table over thresholds × languages |
//! | `report`   | official files: tasks/outputs JSONL, `-SCORES.json` (Python `json.dumps` format) |
//! | `pyjson`   | Python-compatible JSON text (float repr, `ensure_ascii`) |
//! | `answers`  | answers typed or imported in the app ↔ built tasks; outputs JSONL export |
//! | `breakdown`| pass counts by depth bin, language and threshold (the app's charts) |
//! | `linediff` | LCS line diff of an answer's function against the needle |
//! | `curate`   | a repository's files → a dataset repo (deps, functions, needles), as upstream curates |
//! | `llm`      | an OpenAI-compatible chat API: request and reply (needle descriptions by a model) |

pub mod answers;
pub mod bleu;
pub mod breakdown;
pub mod context;
pub mod curate;
pub mod dataset;
pub mod error;
pub mod lang;
pub mod linediff;
pub mod llm;
pub mod pyjson;
pub mod report;
pub mod sanitize;
pub mod score;
pub mod selfcheck;
pub mod tokenize;

#[cfg(target_arch = "wasm32")]
mod wasm_alloc;

pub use error::Error;
