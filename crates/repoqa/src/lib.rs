//! RepoQA "Searching Needle Function" (SNF), re-implemented with exact parity
//! to the official harness (PyPI `repoqa`, GitHub evalplus/repoqa).
//!
//! The core modules below are plain Rust: the native `repoqa` CLI, `cargo test`
//! and the wasm app in the browser all run the same code.
//!
//! | module     | what it computes |
//! |------------|------------------|
//! | `api`      | the front door: a checked plan per use case both fronts map to (`build`: task prompts; `callpath`: call-path tasks, their outputs scored) |
//! | `callpath` | the call-path task (NOT UPSTREAM): `graph` (a repository's call graph from the dataset), `select`, `window`, `task`, `verdict`, `score` |
//! | `code`     | languages and tokens: `lang` (grammars, the official queries), `tokenize` (a HF `tokenizer.json`'s counts), `selfcheck` (both work here) |
//! | `input`    | what users give, read within limits: `dataset` (the RepoQA dataset file, official schema, file order), `identity`, `limits`, `sniff`, `input_file` (native) |
//! | `prompt`   | the official prompt builder and what is read off a prompt: `context`, `settings`, `anatomy`, `audit`, `name_protocol`, `agent` |
//! | `report`   | official files: tasks/outputs JSONL, `-SCORES.json` (Python `json.dumps` format) |
//! | `naming`   | the official files' names, in one home: outputs/SCORES as upstream (the SCORES path beside an outputs file, the model read back from a name), tasks after dataset and settings |
//! | `scoring`  | an answer scored as upstream scores it: `sanitize`, `bleu`, `score`, `answers`, `run`, `name_match`, `breakdown`, `linediff` |
//! | `review`   | results read, checked and compared: `verify`, `leaderboard`, `ladder`, `evidence`, `stats`, `bootstrap`, `compare`, `headline`, `html_report`, `bundle` |
//! | `python`   | Python compatibility, byte for byte: `json` (json.dumps text: float repr, `ensure_ascii`), `scanner` (tree-sitter-python 0.20.4's external scanner) |
//! | `curate`   | a repository's files → a dataset repo (deps, functions, needles), as upstream curates |
//! | `llm`      | model APIs: needle descriptions; the benchmark runner (OpenAI, Anthropic, Google formats; scheduling; run log, resume) |
//! | `exercise` | "Be the model": the functions of a context a student can pick, a pick as a reply, students vs models by depth |
//! | `engine`   | the compute engine as requests and replies (the page's engine worker runs it) |
//! | `step`     | the one shape of work done a step at a time (dataset loader, archive, curation, digest) |
//! | `coreqa`   | CoReQA: questions from issues, retrieval (LangChain's splitter, BM25), answers, a judge's scores, pairwise verdicts, Elo |
//! | `error`    | the core's typed errors, with the file, line, repo or field they concern |
//! | `seeded`   | SplitMix64, a seed's same stream natively and in the browser |
//! | `wasm_alloc` | the C allocator the grammars call in wasm32 |
//!
//! ARCHITECTURE.md at the repository's root groups these by the stage of the
//! pipeline they serve and says where each number is computed.

#![warn(unreachable_pub)]

pub mod api;
pub mod callpath;
pub mod code;
pub mod coreqa;
pub mod curate;
pub mod engine;
pub mod error;
pub mod exercise;
pub mod input;
pub mod llm;
pub mod naming;
pub mod prompt;
pub mod python;
pub mod report;
pub mod review;
pub mod scoring;
mod seeded;
pub mod step;

#[cfg(target_arch = "wasm32")]
mod wasm_alloc;

pub use error::Error;

/// The code map stays true: every module declared here is named in the
/// table above and in ARCHITECTURE.md, and every module of a stage in its
/// stage's table.
#[cfg(test)]
mod code_map {
    const LIB: &str = include_str!("lib.rs");
    const MAP: &str = include_str!("../../../ARCHITECTURE.md");
    /// The stages that group modules: (name, its `mod.rs`).
    const STAGES: &[(&str, &str)] = &[
        ("code", include_str!("code/mod.rs")),
        ("input", include_str!("input/mod.rs")),
        ("prompt", include_str!("prompt/mod.rs")),
        ("python", include_str!("python/mod.rs")),
        ("review", include_str!("review/mod.rs")),
        ("scoring", include_str!("scoring/mod.rs")),
    ];

    /// The modules `text` declares, and the text of its module table.
    fn declared(text: &str) -> (Vec<&str>, String) {
        let modules = text
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                ["pub mod ", "pub(crate) mod ", "mod "].iter().find_map(|p| l.strip_prefix(p))
            })
            .filter_map(|m| m.strip_suffix(';'))
            .collect();
        (modules, text.lines().filter(|l| l.starts_with("//! | `")).collect())
    }

    #[test]
    fn every_module_is_in_the_table_and_the_code_map() {
        let (modules, table) = declared(LIB);
        assert!(modules.len() > 5, "{modules:?}");
        for m in modules {
            let named = format!("`{m}`");
            assert!(table.contains(&named), "{m}: not in lib.rs's table");
            assert!(MAP.contains(&named), "{m}: not in ARCHITECTURE.md");
        }
        for (stage, text) in STAGES {
            assert!(LIB.contains(&format!("pub mod {stage};")), "{stage}: not declared");
            let (modules, table) = declared(text);
            assert!(modules.len() > 1, "{stage}: {modules:?}");
            for m in modules {
                assert!(table.contains(&format!("`{m}`")), "{stage}::{m}: not in {stage}'s table");
                assert!(MAP.contains(&format!("`{m}`")), "{stage}::{m}: not in ARCHITECTURE.md");
            }
        }
    }
}
