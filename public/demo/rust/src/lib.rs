//! A snapshot of a few modules of RepoQA Web itself (the `repoqa` crate),
//! kept here as the Rust repo of the demo dataset so that the demo does not
//! change whenever the project's sources do.

pub mod bleu;
pub mod lang;
pub mod pyjson;
pub mod tokenize;
