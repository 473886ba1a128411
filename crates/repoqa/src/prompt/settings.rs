//! The settings that decide which prompts are built, as one typed value both
//! fronts use: the context size, the comment-cleaning mode, which languages
//! and repos, and which tokenizer. The app stores them (their serde form) and
//! keys its tasks cache with them; the CLI fills the same value from its
//! flags. Built once, so the two cannot disagree on what a filter keeps or
//! which settings make a different set of tasks.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::code::lang::Language;
use crate::code::tokenize::Tokenizer;
use crate::input::dataset::Dataset;
use crate::prompt::context::{
    self, CommentMode, ContextBuilder, ContextError, ContextOptions, TaskSpec,
};
use crate::report::{Protocol, Task};
use crate::scoring::score::ScoreOptions;

#[derive(Debug, Error, PartialEq)]
pub enum SettingsError {
    #[error("--languages: {0}")]
    Language(String),
    #[error("the context size must be a whole number of tokens from 1 to 4294967295")]
    ContextSize,
    #[error("the position ratio must be a number from 0 to 1, not {0:?}")]
    PositionRatio(String),
    #[error("{0:?} is not a context size: each length must be a whole number of tokens from 1 to 4294967295")]
    ContextSizeIn(String),
    #[error("no context size given: type lengths separated by commas, such as 4096,8192,16384")]
    NoContextSizes,
}

/// Which tasks of a dataset to build. Empty lists mean "all".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskFilter {
    /// Languages to keep (dataset keys, as `--languages` takes them).
    pub languages: Vec<String>,
    /// Repos to keep ("owner/name", any language; `--repos`).
    pub repos: Vec<String>,
    /// Repos to leave out, "language::owner/name" (the app's checkboxes).
    pub excluded_repos: Vec<String>,
}

impl TaskFilter {
    /// Whether everything is kept.
    pub fn is_all(&self) -> bool {
        self.languages.is_empty() && self.repos.is_empty() && self.excluded_repos.is_empty()
    }

    /// The selected languages as `task_specs` takes them (None = all).
    /// An unknown language name is an error (not silently nothing).
    pub fn language_list(&self) -> Result<Option<Vec<Language>>, SettingsError> {
        if self.languages.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(self.languages.len());
        for name in &self.languages {
            let l = Language::from_name(name.trim())
                .map_err(|e| SettingsError::Language(e.to_string()))?;
            out.push(l);
        }
        Ok(Some(out))
    }

    /// Whether the repo `name` of `language` is kept by the repo lists.
    pub fn keeps_repo(&self, language: &str, name: &str) -> bool {
        (self.repos.is_empty() || self.repos.iter().any(|r| r == name))
            && !self
                .excluded_repos
                .iter()
                .any(|r| r.split_once("::").is_some_and(|(l, n)| l == language && n == name))
    }

    /// The tasks of `dataset` this filter keeps, in the official order
    /// (languages in file order, repos in order, needles in order: P1).
    pub fn task_specs(&self, dataset: &Dataset) -> Result<Vec<TaskSpec>, SettingsError> {
        let langs = self.language_list()?;
        Ok(context::task_specs(dataset, langs.as_deref())
            .into_iter()
            .filter(|s| {
                let name = dataset
                    .repos(s.language.name())
                    .and_then(|r| r.get(s.repo_index))
                    .map(|r| r.repo.as_str())
                    .unwrap_or("");
                self.keeps_repo(s.language.name(), name)
            })
            .collect())
    }

    /// Names in the filter that the dataset does not have (a typo keeps
    /// nothing; the CLI says so).
    pub fn unknown_names(&self, dataset: &Dataset) -> Vec<String> {
        let mut out = Vec::new();
        for l in &self.languages {
            if dataset.repos(l.trim()).is_none() {
                out.push(format!("language {}", l.trim()));
            }
        }
        for r in &self.repos {
            if !dataset.languages.values().flatten().any(|x| x.repo == *r) {
                out.push(format!("repo {r}"));
            }
        }
        out
    }
}

/// Where the tokenizer comes from. Its identity in the cache key is the
/// digest of its file (`BuildSettings::cache_key`), not this name.
pub const BUILTIN_TOKENIZER: &str = "builtin";

/// Everything that changes the prompts. Its serde form is what the app
/// stores (a missing field keeps its default).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BuildSettings {
    pub code_context_size: usize,
    pub comment_mode: CommentMode,
    #[serde(flatten)]
    pub filter: TaskFilter,
    /// "builtin", a URL, or "file:<name>" (the app); a path (the CLI).
    pub tokenizer_source: String,
    /// How prompts are built; `corrected` is NOT OFFICIAL.
    pub protocol: Protocol,
}

impl Default for BuildSettings {
    fn default() -> BuildSettings {
        BuildSettings {
            code_context_size: context::DEFAULT_CODE_CONTEXT_SIZE,
            comment_mode: CommentMode::None,
            filter: TaskFilter::default(),
            tokenizer_source: BUILTIN_TOKENIZER.to_string(),
            protocol: Protocol::Official,
        }
    }
}

impl BuildSettings {
    /// The tasks of `dataset` these settings select, in the official order
    /// (languages in file order, repos in order, needles in order: P1).
    pub fn task_specs(&self, dataset: &Dataset) -> Result<Vec<TaskSpec>, SettingsError> {
        self.filter.task_specs(dataset)
    }

    /// Build the tasks of `specs` (from [`BuildSettings::task_specs`]) with
    /// these settings on up to `threads` threads (one on wasm32), in spec
    /// order, every needle at `depth` (a `position_ratio` from 0 to 1, NOT
    /// UPSTREAM: a depth grid's row, the task view's slider; `None` is the
    /// official `(i + 0.5) / n`); `progress(done, total)` on the calling
    /// thread. The fronts build through `api::build::BuildPlan`.
    pub fn build_tasks_at(
        &self,
        dataset: &Dataset,
        specs: &[TaskSpec],
        tokenizer: &Tokenizer,
        threads: usize,
        depth: Option<f64>,
        progress: impl FnMut(usize, usize),
    ) -> Result<Vec<Task>, ContextError> {
        let options = self.context_options();
        context::build_tasks_threaded(dataset, specs, &options, tokenizer, threads, depth, progress)
    }

    /// A builder of single tasks with these settings (a front that builds a
    /// task at a time, yielding between them: the page without workers).
    pub fn builder<'d, 't>(
        &self,
        dataset: &'d Dataset,
        tokenizer: &'t Tokenizer,
    ) -> ContextBuilder<'d, 't> {
        ContextBuilder::new(dataset, self.context_options(), tokenizer)
    }

    /// The options answers to these tasks are scored with, from the ones a
    /// user chose: the official harness ignores comments when the contexts
    /// were cleaned (`search_needle_function` passes `eval_ignore_comments
    /// or clean_ctx_comments != "none"` to `compute_score`, docs/parity.md
    /// R7), whatever was chosen.
    pub fn score_options(&self, chosen: ScoreOptions) -> ScoreOptions {
        ScoreOptions { ignore_comments: chosen.ignore_comments || self.cleans_comments(), ..chosen }
    }

    /// Whether the contexts are cleaned of comments (a cleaning mode).
    pub fn cleans_comments(&self) -> bool {
        self.comment_mode != CommentMode::None
    }

    /// Options of the context builder (the official defaults otherwise: K5
    /// reproduced, NULs kept as upstream HEAD does).
    #[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
    pub fn context_options(&self) -> ContextOptions {
        ContextOptions {
            code_context_size: self.code_context_size,
            comment_mode: self.comment_mode,
            protocol: self.protocol,
            ..ContextOptions::default()
        }
    }

    /// The settings that change the prompts, as one string (lists sorted,
    /// so the order of clicks does not matter). The tokenizer is not in
    /// it: the cache key holds its file's digest instead.
    pub fn prompt_key(&self) -> String {
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v.join(",")
        };
        let mut key = format!(
            "ctx={};mode={};langs={};skip={}",
            self.code_context_size,
            self.comment_mode,
            sorted(&self.filter.languages),
            sorted(&self.filter.excluded_repos)
        );
        // Added only when used, so keys made before `repos` existed stay valid.
        if !self.filter.repos.is_empty() {
            key.push_str(&format!(";repos={}", sorted(&self.filter.repos)));
        }
        // Official keys stay as they were (caches made before the option).
        if !self.protocol.is_official() {
            key.push_str(&format!(";protocol={}", self.protocol.as_str()));
        }
        key
    }

    /// The key of a set of built tasks: the dataset's content identity
    /// (`identity::content_id`), these settings and the tokenizer file's
    /// digest. Equal keys mean byte-identical tasks.
    pub fn cache_key(&self, dataset_id: &str, tokenizer_id: &str) -> String {
        format!("{dataset_id}:{}:tok={tokenizer_id}", self.prompt_key())
    }

    /// The part of `cache_key` before the tokenizer (to find tasks built
    /// with the same settings whatever the tokenizer).
    pub fn cache_key_head(&self, dataset_id: &str) -> String {
        format!("{dataset_id}:{}:tok=", self.prompt_key())
    }
}

/// Parse a context size typed by a user: 1 to `MAX_CODE_CONTEXT_SIZE`
/// tokens (a number past it is refused, never wrapped).
pub fn parse_context_size(text: &str) -> Result<usize, SettingsError> {
    match text.trim().parse::<u64>() {
        Ok(n) if n > 0 && n <= crate::prompt::context::MAX_CODE_CONTEXT_SIZE as u64 => {
            Ok(n as usize)
        }
        _ => Err(SettingsError::ContextSize),
    }
}

/// Parse a list of context sizes typed by a user (a length ladder,
/// `4096,8192,16384`, as `--code-context-size` takes it): in the order
/// given, each once; spaces and empty entries are ignored.
pub fn parse_context_sizes(text: &str) -> Result<Vec<usize>, SettingsError> {
    let mut out: Vec<usize> = Vec::new();
    for piece in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let n = parse_context_size(piece)
            .map_err(|_| SettingsError::ContextSizeIn(piece.to_string()))?;
        if !out.contains(&n) {
            out.push(n);
        }
    }
    if out.is_empty() {
        return Err(SettingsError::NoContextSizes);
    }
    Ok(out)
}

/// Parse a needle depth typed by a user: a number from 0 to 1.
pub fn parse_position_ratio(text: &str) -> Result<f64, SettingsError> {
    match text.trim().parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(SettingsError::PositionRatio(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Dataset {
        Dataset::from_bytes(include_bytes!("../../../../public/demo/repoqa-demo.json"), "demo")
            .unwrap()
    }

    #[test]
    fn serde_form_is_the_stored_one() {
        let s = BuildSettings {
            code_context_size: 2048,
            comment_mode: CommentMode::NoPadding,
            filter: TaskFilter {
                languages: vec!["go".into()],
                repos: vec![],
                excluded_repos: vec!["go::a/b".into()],
            },
            tokenizer_source: "file:t.json".into(),
            protocol: Protocol::Corrected,
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["comment_mode"], "no_padding");
        assert_eq!(v["languages"][0], "go");
        assert_eq!(v["excluded_repos"][0], "go::a/b");
        assert_eq!(v["protocol"], "corrected");
        let back: BuildSettings = serde_json::from_value(v).unwrap();
        assert_eq!(back, s);
    }

    /// Each option enum's serde form is its official string (the one
    /// `as_str` gives and `FromStr` takes), and round-trips.
    #[test]
    fn option_enums_serialize_as_their_official_strings() {
        // serde, `Display`, `FromStr` and the name method: one spelling.
        fn round_trip<T>(values: &[T], name: impl Fn(&T) -> String)
        where
            T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
            T: std::fmt::Display + std::str::FromStr,
        {
            assert!(!values.is_empty());
            for v in values {
                let json = serde_json::to_value(v).unwrap();
                assert_eq!(json, serde_json::Value::String(name(v)), "{v:?}");
                assert_eq!(&serde_json::from_value::<T>(json).unwrap(), v);
                assert_eq!(v.to_string(), name(v));
                assert!(name(v).parse::<T>().ok().as_ref() == Some(v), "{v:?}");
            }
        }
        round_trip(CommentMode::ALL, |m| m.as_str().to_string());
        let spelled: Vec<String> =
            CommentMode::ALL.iter().map(|m| serde_json::to_string(m).unwrap()).collect();
        assert_eq!(spelled, ["\"none\"", "\"positional_padding\"", "\"no_padding\""]);
        round_trip(Protocol::ALL, |p| p.as_str().to_string());
        round_trip(crate::llm::Provider::ALL, |p| p.name().to_string());
        let candidates = <crate::scoring::score::Candidates as strum::VariantArray>::VARIANTS;
        round_trip(candidates, |c| c.name().to_string());
        let languages: Vec<String> = Language::ALL.iter().map(|l| l.to_string()).collect();
        assert_eq!(languages, ["python", "cpp", "java", "typescript", "rust", "go"]);
        for l in Language::ALL {
            assert_eq!(Language::from_name(l.name()).ok(), Some(*l));
        }
        assert!(Language::from_name("TypeScript").is_err());
        assert!("cpp ".parse::<Protocol>().is_err());
        assert!(serde_json::from_str::<CommentMode>("\"positional-padding\"").is_err());
        assert!(serde_json::from_str::<Protocol>("\"Official\"").is_err());
    }

    #[test]
    fn missing_fields_keep_defaults_and_bad_ones_are_refused() {
        // Settings stored before the protocol existed, and others' fields.
        let old: BuildSettings =
            serde_json::from_str(r#"{"languages": ["go"], "threshold": 0.5}"#).unwrap();
        let want = BuildSettings {
            filter: TaskFilter { languages: vec!["go".into()], ..TaskFilter::default() },
            ..BuildSettings::default()
        };
        assert_eq!(old, want);
        for bad in
            [r#"{"code_context_size": -3}"#, r#"{"comment_mode": "nope"}"#, r#"{"languages": 7}"#]
        {
            assert!(serde_json::from_str::<BuildSettings>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn prompt_key_is_order_free_and_unchanged_for_old_settings() {
        let mut a = BuildSettings::default();
        a.filter.excluded_repos = vec!["go::x".into(), "cpp::y".into()];
        let mut b = a.clone();
        b.filter.excluded_repos.reverse();
        assert_eq!(a.prompt_key(), b.prompt_key());
        // The form the app has stored keys in since before this module.
        assert_eq!(a.prompt_key(), "ctx=16384;mode=none;langs=;skip=cpp::y,go::x");
        assert_eq!(a.cache_key("D", "T"), "D:ctx=16384;mode=none;langs=;skip=cpp::y,go::x:tok=T");
        assert!(a.cache_key("D", "T").starts_with(&a.cache_key_head("D")));
        b.filter.repos = vec!["r".into()];
        assert_ne!(a.prompt_key(), b.prompt_key());
    }

    #[test]
    fn filter_keeps_languages_and_repos() {
        let d = demo();
        let all = TaskFilter::default().task_specs(&d).unwrap();
        assert_eq!(all.len(), 60);
        let f = TaskFilter { languages: vec!["go".into(), "python".into()], ..Default::default() };
        let specs = f.task_specs(&d).unwrap();
        assert_eq!(specs.len(), 20);
        // Dataset order, not the order given.
        assert_eq!(specs[0].language, Language::Python);
        let f = TaskFilter { repos: vec!["repoqa-web/demo-bank".into()], ..Default::default() };
        assert!(f.task_specs(&d).unwrap().iter().all(|s| s.language == Language::Java));
        let f = TaskFilter {
            excluded_repos: vec!["java::repoqa-web/demo-bank".into()],
            ..Default::default()
        };
        assert_eq!(f.task_specs(&d).unwrap().len(), 50);
        let f = TaskFilter {
            languages: vec!["klingon".into()],
            repos: vec!["no/such".into()],
            ..Default::default()
        };
        assert!(f.task_specs(&d).is_err());
        assert_eq!(f.unknown_names(&d), vec!["language klingon", "repo no/such"]);
    }

    #[test]
    fn cleaned_contexts_are_scored_ignoring_comments() {
        use crate::scoring::score::Candidates;
        let mut s = BuildSettings::default();
        let chosen =
            |ignore_comments| ScoreOptions { ignore_comments, candidates: Candidates::Context };
        assert_eq!(s.score_options(chosen(false)), chosen(false));
        assert_eq!(s.score_options(chosen(true)), chosen(true));
        for mode in [CommentMode::PositionalPadding, CommentMode::NoPadding] {
            s.comment_mode = mode;
            assert!(s.cleans_comments());
            assert_eq!(s.score_options(chosen(false)), chosen(true), "{mode}");
        }
    }

    #[test]
    fn context_sizes() {
        assert_eq!(parse_context_size(" 512 "), Ok(512));
        assert_eq!(parse_context_size("0"), Err(SettingsError::ContextSize));
        assert_eq!(parse_context_sizes(" 4096, 8192,,4096 ,"), Ok(vec![4096, 8192]));
        assert_eq!(
            parse_context_sizes("4096,8k"),
            Err(SettingsError::ContextSizeIn("8k".to_string()))
        );
        assert_eq!(parse_context_sizes(" , "), Err(SettingsError::NoContextSizes));
        assert_eq!(parse_context_size("1e3"), Err(SettingsError::ContextSize));
        assert_eq!(parse_context_size("4294967295"), Ok(4294967295));
        // An overflow is refused, never taken as another value.
        for big in ["4294967296", "9223372036854775808", "18446744073709551616"] {
            assert_eq!(parse_context_size(big), Err(SettingsError::ContextSize), "{big}");
        }
    }
}
