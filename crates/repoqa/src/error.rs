//! Errors of the core, typed and carrying the context a user needs to fix
//! their input (which file, line, repo or field).

use thiserror::Error;

/// Any error of the core. Each module has its own variants; messages are one
/// line and name what is wrong and where.
#[derive(Debug, Error)]
pub enum Error {
    #[error("{0}")]
    Tokenizer(#[from] crate::tokenize::TokenizerError),
    #[error("{0}")]
    Grammar(#[from] crate::lang::GrammarError),
    #[error("{0}")]
    Dataset(#[from] crate::dataset::DatasetError),
    #[error("{0}")]
    Context(#[from] crate::context::ContextError),
    #[error("{0}")]
    Report(#[from] crate::report::ReportError),
    #[error("{0}")]
    Score(#[from] crate::score::ScoreError),
    #[error("{0}")]
    Curate(#[from] crate::curate::CurateError),
    #[error("{0}")]
    Settings(#[from] crate::settings::SettingsError),
}
