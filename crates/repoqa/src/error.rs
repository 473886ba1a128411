//! Errors of the core, typed and carrying the context a user needs to fix
//! their input (which file, line, repo or field).

use thiserror::Error;

/// Any error of the core. Each module has its own error type; each converts
/// into this one with `?`, and a front converts this one (or any of them,
/// through [`for_each_error_type!`](crate::for_each_error_type)) into its
/// own error once. Messages are one line and name what is wrong and where.
#[derive(Debug, Error)]
pub enum Error {
    #[error("{0}")]
    Tokenizer(#[from] crate::code::tokenize::TokenizerError),
    #[error("{0}")]
    Grammar(#[from] crate::code::lang::GrammarError),
    #[error("{0}")]
    Dataset(#[from] crate::input::dataset::DatasetError),
    #[error("{0}")]
    Context(#[from] crate::prompt::context::ContextError),
    #[error("{0}")]
    Report(#[from] crate::report::ReportError),
    #[error("{0}")]
    Score(#[from] crate::scoring::score::ScoreError),
    #[error("{0}")]
    Curate(#[from] crate::curate::CurateError),
    #[error("{0}")]
    Archive(#[from] crate::curate::ArchiveError),
    #[error("{0}")]
    Registry(#[from] crate::curate::RegistryError),
    #[error("{0}")]
    Settings(#[from] crate::prompt::settings::SettingsError),
    #[error("{0}")]
    Leaderboard(#[from] crate::review::leaderboard::LeaderboardError),
    #[error("{0}")]
    Gunzip(#[from] crate::input::limits::GunzipError),
    #[error("{0}")]
    Verify(#[from] crate::review::verify::VerifyError),
    #[error("{0}")]
    Audit(#[from] crate::prompt::audit::measure::AuditError),
    #[error("{0}")]
    Agent(#[from] crate::prompt::agent::AgentError),
    #[error("{0}")]
    Llm(#[from] crate::llm::LlmError),
    #[error("{0}")]
    Transport(#[from] crate::llm::wire::TransportError),
    #[error("{0}")]
    RunLimit(#[from] crate::llm::schedule::RunLimitError),
    #[error("{0}")]
    Coreqa(#[from] crate::coreqa::CoreqaError),
    #[error("{0}")]
    Batch(#[from] crate::llm::batch::BatchError),
    #[error("{0}")]
    Compare(#[from] crate::review::compare::CompareError),
    #[error("{0}")]
    Bundle(#[from] crate::review::bundle::BundleError),
    #[error("{0}")]
    Engine(#[from] crate::error::EngineError),
    #[error("{0}")]
    Gguf(#[from] crate::llm::gguf::GgufError),
    #[error("{0}")]
    BuildPlan(#[from] crate::api::build::BuildPlanError),
    #[error("{0}")]
    CallPathPlan(#[from] crate::api::callpath::CallPathPlanError),
    #[error("{0}")]
    CallPathBuild(#[from] crate::api::callpath::CallPathBuildError),
    #[error("{0}")]
    CallPathScore(#[from] crate::api::callpath::CallPathScoreError),
    #[error("{0}")]
    ScorePlan(#[from] crate::api::score::ScorePlanError),
    #[error("{0}")]
    CoreqaPlan(#[from] crate::api::coreqa::CoreqaPlanError),
}

/// What the compute engine ([`crate::engine`]) refuses: a request for a
/// dataset or tokenizer it does not hold, a request it cannot read, a
/// needle the dataset lacks.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error(
        "the engine does not hold dataset {asked} this request was made for (it holds {held:?})"
    )]
    NoDataset { asked: u32, held: Vec<u32> },
    #[error("the engine has no tokenizer yet (it is sent before a request that needs it)")]
    NoTokenizer,
    #[error("the engine could not read a request: {0}")]
    BadRequest(String),
    #[error(
        "The loaded dataset has no needle {name} in {path} of {repo}: load the dataset these tasks were built from."
    )]
    NoSuchNeedle { name: String, path: String, repo: String },
    #[error(
        "The needle's text was not found in this context, so the prompt cannot be cut around it."
    )]
    NeedleNotFound,
}

/// Calls `$m!(…)` with every error type of the core that converts into
/// [`Error`], so that a front writes its `From` conversions once, through
/// `Error`, from one list (a front cannot implement `From<E>` for all `E:
/// Into<Error>` at once). `crates/repoqa/tests/it/module_graph.rs` checks that
/// every public error enum of the core is here.
#[macro_export]
macro_rules! for_each_error_type {
    ($m:ident) => {
        $m!(
            $crate::code::tokenize::TokenizerError,
            $crate::code::lang::GrammarError,
            $crate::input::dataset::DatasetError,
            $crate::prompt::context::ContextError,
            $crate::report::ReportError,
            $crate::scoring::score::ScoreError,
            $crate::curate::CurateError,
            $crate::curate::ArchiveError,
            $crate::curate::RegistryError,
            $crate::prompt::settings::SettingsError,
            $crate::review::leaderboard::LeaderboardError,
            $crate::input::limits::GunzipError,
            $crate::review::verify::VerifyError,
            $crate::prompt::audit::measure::AuditError,
            $crate::prompt::agent::AgentError,
            $crate::llm::LlmError,
            $crate::llm::wire::TransportError,
            $crate::llm::schedule::RunLimitError,
            $crate::coreqa::CoreqaError,
            $crate::llm::batch::BatchError,
            $crate::review::compare::CompareError,
            $crate::review::bundle::BundleError,
            $crate::error::EngineError,
            $crate::llm::gguf::GgufError,
            $crate::api::build::BuildPlanError,
            $crate::api::callpath::CallPathPlanError,
            $crate::api::callpath::CallPathBuildError,
            $crate::api::callpath::CallPathScoreError,
            $crate::api::score::ScorePlanError,
            $crate::api::coreqa::CoreqaPlanError
        );
    };
}
