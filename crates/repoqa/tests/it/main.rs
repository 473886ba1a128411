//! The core's integration tests: parity against the official harness (prompts, BLEU,
//! grammars, curation) and llama.cpp (the GGUF header), the demo dataset, fuzzing, the module graph.
//!
//! One binary for the crate's integration tests (the tokenizer and the grammars
//! linked once, not once per file); each file is a module. One file's tests:
//!
//!     cargo test -p repoqa --test it parity_bleu::
//!
//! `scripts/test.sh` runs each module in a process of its own, one after
//! another, and times it, as when they were binaries of their own.

mod anatomy_counts;
mod audit_prompts;
mod callpath_oracle;
mod demo_dataset;
mod explain_steps;
mod function_walk;
mod fuzz;
mod module_graph;
mod needle_placement;
mod parity_bleu;
mod parity_curate;
mod parity_gguf;
mod parity_grammar;
mod parity_prompts;
mod sample_answers;
