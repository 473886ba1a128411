//! A repo's share of a task build as text, for a builder that shares no
//! memory with the caller (the page's Web Workers): [`repo_shares`] writes
//! each repo with the build's settings as one JSON message, [`build_share`]
//! builds its tasks and hands each one back as its JSON line. A task reads
//! only its own repo, so these are the tasks of [`build_tasks`] (a unit
//! test holds them equal, and the browser tests compare the page's tasks
//! with the CLI's).
//!
//! [`build_tasks`]: super::build_tasks

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::code::lang::Language;
use crate::code::tokenize::Tokenizer;
use crate::input::dataset::Dataset;

use super::threads::repo_runs;
use super::{ContextBuilder, ContextError, ContextOptions, Task, TaskSpec};

/// The settings and needles of a share (`"head"` of the message).
#[derive(Debug, Serialize, Deserialize)]
struct Head {
    language: String,
    /// Needle indexes of the repo, in the build's order.
    needles: Vec<usize>,
    code_context_size: usize,
    clean_ctx_comments: String,
    fix_suffix_cleaning: bool,
    strip_nul: bool,
    protocol: String,
}

/// The message as read back: the dataset stays JSON until it is checked.
#[derive(Deserialize)]
struct Message {
    head: Head,
    dataset: serde_json::Value,
}

/// One repo's share of a build: the specs it covers (indexes into the
/// build's spec list) and the message that holds all it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct RepoShare {
    pub specs: Range<usize>,
    pub message: String,
}

/// The shares of a build of `specs`: one per run of specs of one repo, in
/// spec order.
#[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
pub fn repo_shares(
    dataset: &Dataset,
    specs: &[TaskSpec],
    options: &ContextOptions,
) -> Vec<RepoShare> {
    repo_runs(specs)
        .into_iter()
        .map(|run| {
            let first = specs[run.start];
            let language = first.language.name();
            let repo = dataset.repos(language).and_then(|r| r.get(first.repo_index)).cloned();
            let mut one = Dataset::default();
            one.languages.insert(language.to_string(), repo.into_iter().collect());
            let head = Head {
                language: language.to_string(),
                needles: specs[run.clone()].iter().map(|s| s.needle_index).collect(),
                code_context_size: options.code_context_size,
                clean_ctx_comments: options.comment_mode.as_str().to_string(),
                fix_suffix_cleaning: options.fix_suffix_cleaning,
                strip_nul: options.strip_nul,
                protocol: options.protocol.as_str().to_string(),
            };
            // Serializing strings, numbers and maps of them cannot fail.
            let head = serde_json::to_string(&head).unwrap_or_default();
            let message = format!("{{\"head\":{head},\"dataset\":{}}}", one.to_json_string());
            RepoShare { specs: run, message }
        })
        .collect()
}

/// A share that failed: how many of its tasks were built before the error.
#[derive(Debug)]
pub struct ShareError {
    pub built: usize,
    pub error: ContextError,
}

/// Build the tasks of a share message, calling `task` with each one's JSON
/// line (compact, no raw newline) in order.
pub fn build_share(
    message: &str,
    tokenizer: &Tokenizer,
    mut task: impl FnMut(String),
) -> Result<(), ShareError> {
    let bad = |what: String| ShareError { built: 0, error: ContextError::BadShare(what) };
    let Message { head, dataset } =
        serde_json::from_str(message).map_err(|e| bad(e.to_string()))?;
    let dataset = Dataset::from_value(dataset, "build message").map_err(|e| bad(e.to_string()))?;
    let language = Language::from_name(&head.language).map_err(|e| bad(e.to_string()))?;
    let options = ContextOptions {
        code_context_size: head.code_context_size,
        comment_mode: head
            .clean_ctx_comments
            .parse()
            .map_err(|e: ContextError| bad(e.to_string()))?,
        fix_suffix_cleaning: head.fix_suffix_cleaning,
        strip_nul: head.strip_nul,
        protocol: head
            .protocol
            .parse()
            .map_err(|e: crate::report::UnknownProtocol| bad(e.to_string()))?,
    };
    let mut builder = ContextBuilder::new(&dataset, options, tokenizer);
    for (built, &needle_index) in head.needles.iter().enumerate() {
        let spec = TaskSpec { language, repo_index: 0, needle_index };
        let t: Task = builder.build(&spec).map_err(|error| ShareError { built, error })?;
        // Serializing a task (strings and numbers) cannot fail.
        task(serde_json::to_string(&t).unwrap_or_default());
    }
    Ok(())
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::code::tokenize::test_tokenizer;
    use crate::prompt::context::tests::{dataset, python_repos};
    use crate::prompt::context::{build_tasks, task_specs, CommentMode};
    use crate::report::Protocol;

    #[test]
    fn shares_build_the_tasks_of_one_builder() {
        let tok = test_tokenizer();
        let d = python_repos(3, &[2, 4]);
        let specs = task_specs(&d, None);
        for mode in CommentMode::ALL.iter().copied() {
            for protocol in Protocol::ALL.iter().copied() {
                let options = ContextOptions {
                    code_context_size: 64,
                    comment_mode: mode,
                    protocol,
                    ..ContextOptions::default()
                };
                let want = build_tasks(&d, &specs, &options, tok, |_, _| {}).expect("builds");
                let shares = repo_shares(&d, &specs, &options);
                assert_eq!(shares.len(), 3);
                let mut got = Vec::new();
                for share in &shares {
                    build_share(&share.message, tok, |json| got.push(json)).expect("share");
                }
                let want: Vec<String> =
                    want.iter().map(|t| serde_json::to_string(t).expect("json")).collect();
                assert_eq!(got, want, "{mode} {protocol}");
            }
        }
    }

    #[test]
    fn a_failing_share_says_how_far_it_got() {
        let tok = test_tokenizer();
        let mut d = dataset(
            "python",
            &[("a.py", "def f():\n    pass\n")],
            &[("a.py", "f", 0, 17), ("a.py", "f", 0, 17)],
        );
        let repos = d.languages.get_mut("python").expect("python");
        repos[0].needles[1].path = "missing.py".to_string();
        let specs = task_specs(&d, None);
        let shares = repo_shares(&d, &specs, &ContextOptions::default());
        let mut got = 0;
        let e = build_share(&shares[0].message, tok, |_| got += 1).expect_err("fails");
        assert_eq!((e.built, got), (1, 1));
        assert!(e.error.to_string().contains("missing.py"), "{}", e.error);

        let e = build_share("{\"head\":{}}", tok, |_| {}).expect_err("bad");
        assert!(matches!(e.error, ContextError::BadShare(_)), "{}", e.error);
    }
}
