//! The official prompt builder: `make_code_context` and the task list of
//! `evaluate_model` (docs/parity.md P1–P11), plus the comment-cleaning modes of
//! upstream HEAD (K1–K6), with the K5 bug reproduced by default and a
//! corrected variant behind `ContextOptions::fix_suffix_cleaning`.
//!
//! `Protocol::Corrected` (NOT OFFICIAL) builds the same tasks without the
//! artifacts that mark the needle (P3, P6, K5; see `crate::prompt::audit`); the
//! official construction stays the default, byte-identical.
//!
//! Speed: the official code tokenizes every line of every context again, and
//! then the three parts of the context as wholes. Here each line of a repo is
//! counted once (per repo, lazily), and the whole-part counts are *sums of
//! line counts*: with CodeLlama's tokenizer a newline is always the byte
//! token `<0x0A>` and never merges, so `len(tokenize(A + "\n" + B))` =
//! `len(tokenize(A + "\n"))` + the count of `B` without the `▁` that
//! `tokenize` prepends. Line counts themselves are sums of memoized word
//! counts (see `Counter`). Both are checked against whole-text tokenization
//! in the unit tests, and every count against the official code in
//! crates/repoqa/tests/it/parity_prompts.rs.

mod clean;
mod count;
pub mod depth;
mod locate;
mod threads;
mod walk;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::code::lang::{GrammarError, Language};
use crate::code::tokenize::{Tokenizer, TokenizerError};
use crate::input::dataset::{Dataset, Needle};
use crate::report::{Protocol, Task};

use count::Counter;
pub use count::{text_count, LineCounter};
pub use locate::{locate_needle, locate_needle_any_mode, placed_needle_text};
#[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
pub use threads::build_tasks_threaded;
pub use threads::default_threads;
pub(crate) use threads::repo_runs;
use walk::{make_code_context, Prepared};

/// `INSTRUCTION` of search_needle_function.py.
pub const INSTRUCTION: &str = "Based on the function description and code context, please retrieve and repeat the exact described function from the code context in a code block wrapped by ```:";

/// `TEMPLATE` of search_needle_function.py: the task fields a prompt is
/// made of, in order.
pub const TEMPLATE: &str = "instruction\ncode_context\ndescription\ninstruction";

/// The official default `code_context_size` (16 * 1024).
pub const DEFAULT_CODE_CONTEXT_SIZE: usize = 16 * 1024;

/// The mini-SNF: the official builder at 2,048 tokens of code, so a small
/// model (an 8k window, such as one run in the tab) sees whole prompts.
/// Its scores are not RepoQA's published 16k ones.
pub const MINI_CODE_CONTEXT_SIZE: usize = 2 * 1024;

/// The largest `code_context_size` taken (2^32 - 1 tokens: the same on
/// 32-bit wasm and natively, and far past any repository).
pub const MAX_CODE_CONTEXT_SIZE: usize = u32::MAX as usize;

#[derive(Debug, Error)]
pub enum ContextError {
    #[error("{0}")]
    Tokenizer(#[from] TokenizerError),
    #[error("{0}")]
    Grammar(#[from] GrammarError),
    #[error(
        "{language} repo {repo}: file {path:?} is in the dependency order but not in `content`"
    )]
    MissingFile { language: String, repo: String, path: String },
    #[error(
        "{language} repo {repo}: needle {needle:?} is in {path:?}, which is not in the repo's dependency order (the official harness fails on it)"
    )]
    NeedleNotInOrder { language: String, repo: String, needle: String, path: String },
    #[error("no task {language}[{repo_index}].needles[{needle_index}] in the dataset")]
    NoSuchTask { language: String, repo_index: usize, needle_index: usize },
    #[error("{language} repo {repo}, needle {needle:?}: removing comments left invalid UTF-8 (the official code fails the same way)")]
    Utf8 { language: String, repo: String, needle: String },
    #[error("unknown comment mode {0:?} (expected none, positional_padding or no_padding)")]
    UnknownCommentMode(String),
}

impl ContextError {
    fn unknown_comment_mode(s: &str) -> ContextError {
        ContextError::UnknownCommentMode(s.to_string())
    }
}

/// `--clean-ctx-comments` of upstream HEAD. PyPI 0.1.2 only has `None`.
/// On the command line: upstream's spellings, with the earlier kebab-case
/// ones kept as aliases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
#[strum(
    serialize_all = "snake_case",
    parse_err_ty = ContextError,
    parse_err_fn = ContextError::unknown_comment_mode
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum CommentMode {
    /// Comments kept (the official default).
    #[default]
    None,
    /// Comments removed; the tokens removed come back as filler comment
    /// lines at the top and bottom, so the needle keeps its depth.
    #[cfg_attr(feature = "cli", value(name = "positional_padding", alias = "positional-padding"))]
    PositionalPadding,
    /// Comments removed; the context gets shorter.
    #[cfg_attr(feature = "cli", value(name = "no_padding", alias = "no-padding"))]
    NoPadding,
}

impl CommentMode {
    pub const ALL: &[CommentMode] = <CommentMode as strum::VariantArray>::VARIANTS;

    /// The official option string (also `Display`; `FromStr` takes only
    /// these: upstream silently treats any other string as `none`, here a
    /// typo is an error).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Where the builder put the needle: `needle` is its byte range in the
/// task's `code_context` (after cleaning, in the comment modes), `cut` the
/// byte range of the needle file it was cut from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NeedlePlacement {
    pub needle: std::ops::Range<usize>,
    pub cut: std::ops::Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
pub struct ContextOptions {
    /// Token budget of a context (official default 16384).
    pub code_context_size: usize,
    pub comment_mode: CommentMode,
    /// NOT OFFICIAL. Clean the suffix correctly instead of reproducing the
    /// upstream bug K5 (which drops the rest of the needle file and the
    /// middle files and glues the last file's `Path:` line to the needle).
    pub fix_suffix_cleaning: bool,
    /// PyPI 0.1.2 behaviour (P4/P10): `<0x00>` tokens are not counted in
    /// the budgets and `"\0"` is removed from the context. Off = upstream
    /// HEAD, which does neither. Identical unless the dataset has NULs.
    pub strip_nul: bool,
    /// `Official` (default) or the corrected construction (NOT OFFICIAL).
    pub protocol: Protocol,
}

impl Default for ContextOptions {
    fn default() -> ContextOptions {
        ContextOptions {
            code_context_size: DEFAULT_CODE_CONTEXT_SIZE,
            comment_mode: CommentMode::None,
            fix_suffix_cleaning: false,
            strip_nul: false,
            protocol: Protocol::Official,
        }
    }
}

/// Which needle a task is about: indexes into the dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskSpec {
    pub language: Language,
    pub repo_index: usize,
    pub needle_index: usize,
}

impl TaskSpec {
    pub fn language_name(&self) -> &'static str {
        self.language.name()
    }
}

/// The tasks of `evaluate_model`, in its order (P1): languages in file
/// order (those in `languages` if given), repos in order, needles in order;
/// repos without needles give none.
#[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
pub fn task_specs(dataset: &Dataset, languages: Option<&[Language]>) -> Vec<TaskSpec> {
    let mut out = Vec::with_capacity(dataset.needle_count());
    for (key, repos) in &dataset.languages {
        let Ok(language) = Language::from_name(key) else { continue };
        if languages.is_some_and(|ls| !ls.contains(&language)) {
            continue;
        }
        for (repo_index, repo) in repos.iter().enumerate() {
            for needle_index in 0..repo.needles.len() {
                out.push(TaskSpec { language, repo_index, needle_index });
            }
        }
    }
    out
}

/// The task of `language`'s repo `repo` whose needle is `name` in `path`
/// (a built task's names), if the dataset has it.
pub fn spec_of(dataset: &Dataset, task: &Task) -> Option<TaskSpec> {
    let language = Language::from_name(&task.language).ok()?;
    let repos = dataset.repos(&task.language)?;
    let repo_index = repos.iter().position(|r| r.repo == task.repo)?;
    let needle_index = repos[repo_index]
        .needles
        .iter()
        .position(|n| n.name == task.name && n.path == task.path)?;
    Some(TaskSpec { language, repo_index, needle_index })
}

/// Build the tasks of `specs` in order; `progress(done, total)` is called
/// after each one.
#[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
pub fn build_tasks(
    dataset: &Dataset,
    specs: &[TaskSpec],
    options: &ContextOptions,
    tokenizer: &Tokenizer,
    mut progress: impl FnMut(usize, usize),
) -> Result<Vec<Task>, ContextError> {
    let mut builder = ContextBuilder::new(dataset, *options, tokenizer);
    let mut out = Vec::with_capacity(specs.len());
    for (i, spec) in specs.iter().enumerate() {
        out.push(builder.build(spec)?);
        progress(i + 1, specs.len());
    }
    Ok(out)
}

/// The needle as the builder puts it in the context under `protocol` and
/// `mode`, and the byte range of its file it is cut from: official = the
/// dataset's byte offsets used as code-point indices (P3), corrected = as
/// byte offsets; cleaned of comments in the cleaning modes (K4). For
/// finding a built task's needle again (`crate::prompt::audit::locate`).
pub fn emitted_needle(
    language: Language,
    source: &str,
    needle: &crate::input::dataset::Needle,
    mode: CommentMode,
    protocol: Protocol,
) -> Result<(String, std::ops::Range<usize>), ContextError> {
    let (a, b) = walk::needle_cut(source, needle.start_byte, needle.end_byte, protocol);
    let raw = &source[a..b];
    let text = if mode == CommentMode::None {
        raw.to_string()
    } else {
        clean::clean_segment_comments(language, raw, &[needle.path.as_str()])?.ok_or_else(|| {
            ContextError::Utf8 {
                language: language.name().to_string(),
                repo: String::new(),
                needle: needle.name.clone(),
            }
        })?
    };
    Ok((text, a..b))
}

/// Builds tasks one at a time (so a UI can show progress between them),
/// keeping the line counts of the current repo.
pub struct ContextBuilder<'d, 't> {
    dataset: &'d Dataset,
    options: ContextOptions,
    counter: Counter<'t>,
    current: Option<(Language, usize, Prepared<'d>)>,
    /// NOT UPSTREAM: every task's needle at this ratio instead of the
    /// official `(i + 0.5) / n` (teaching: the same task at other depths).
    position_ratio: Option<f64>,
}

impl<'d, 't> ContextBuilder<'d, 't> {
    #[cfg_attr(not(feature = "internals"), visibility::make(pub(crate)))]
    pub fn new(
        dataset: &'d Dataset,
        options: ContextOptions,
        tokenizer: &'t Tokenizer,
    ) -> ContextBuilder<'d, 't> {
        ContextBuilder {
            dataset,
            options,
            counter: Counter::new(tokenizer, options.strip_nul),
            current: None,
            position_ratio: None,
        }
    }

    /// NOT UPSTREAM: place every needle at `ratio` (0 to 1) instead of the
    /// official `(needle index + 0.5) / needles`; the task's
    /// `position_ratio` says so. `None` is the official placement.
    pub fn at_position_ratio(mut self, ratio: Option<f64>) -> ContextBuilder<'d, 't> {
        self.position_ratio = ratio;
        self
    }

    pub fn build(&mut self, spec: &TaskSpec) -> Result<Task, ContextError> {
        Ok(self.build_placed(spec)?.task)
    }

    /// Build a task and say where its needle is in `code_context`: the
    /// byte range the builder put it at (for the cleaning modes, the
    /// cleaned needle between the cleaned prefix and suffix), and the
    /// placement (with the cut in the needle file) for the audit. The task
    /// view marks the range; searching the needle's text instead fails
    /// whenever cleaning changed it.
    pub fn build_placed(&mut self, spec: &TaskSpec) -> Result<PlacedTask, ContextError> {
        let missing = || ContextError::NoSuchTask {
            language: spec.language.name().to_string(),
            repo_index: spec.repo_index,
            needle_index: spec.needle_index,
        };
        let dataset = self.dataset;
        let repos = dataset.repos(spec.language.name()).ok_or_else(missing)?;
        let repo = repos.get(spec.repo_index).ok_or_else(missing)?;
        let needle = repo.needles.get(spec.needle_index).ok_or_else(missing)?;
        let position_ratio = self
            .position_ratio
            .unwrap_or((spec.needle_index as f64 + 0.5) / repo.needles.len() as f64);
        self.place(spec.language, spec.repo_index, repo, needle, position_ratio)
    }

    /// NOT UPSTREAM (the call-path task, `crate::callpath::window`): the
    /// context of repo `repo_index` of `language` around `function` — any
    /// function record of the repo, as a needle without a description — at
    /// `position_ratio`: the official builder's window and walk with
    /// `function` in the needle's place.
    pub fn build_around(
        &mut self,
        language: Language,
        repo_index: usize,
        function: &Needle,
        position_ratio: f64,
    ) -> Result<PlacedTask, ContextError> {
        let dataset = self.dataset;
        let repo =
            dataset.repos(language.name()).and_then(|r| r.get(repo_index)).ok_or_else(|| {
                ContextError::NoSuchTask {
                    language: language.name().to_string(),
                    repo_index,
                    needle_index: 0,
                }
            })?;
        self.place(language, repo_index, repo, function, position_ratio)
    }

    /// `len(tokenize(text))`, with the counts this builder has memoized.
    pub fn count(&mut self, text: &str) -> Result<usize, TokenizerError> {
        self.counter.text(text)
    }

    fn place(
        &mut self,
        language: Language,
        repo_index: usize,
        repo: &'d crate::input::dataset::Repo,
        needle: &Needle,
        position_ratio: f64,
    ) -> Result<PlacedTask, ContextError> {
        let same = matches!(&self.current, Some((l, r, _)) if *l == language && *r == repo_index);
        if !same {
            self.current =
                Some((language, repo_index, Prepared::new(language, repo, &self.options)?));
        }
        let Some((_, _, prepared)) = self.current.as_mut() else { unreachable!("set above") };
        let ctx = make_code_context(
            prepared,
            &mut self.counter,
            repo,
            needle,
            position_ratio,
            &self.options,
        )?;
        let needle_range =
            if self.options.protocol == Protocol::NoContext { 0..0 } else { ctx.needle.clone() };
        let task = Task {
            repo: repo.repo.clone(),
            name: needle.name.clone(),
            language: language.name().to_string(),
            path: needle.path.clone(),
            position_ratio,
            description: format!("\nFunction Description:{}\n", needle.description),
            instruction: INSTRUCTION.to_string(),
            template: TEMPLATE.to_string(),
            // The control keeps every field of the official task (the depth and
            // token span the real run had) but the code.
            code_context: if self.options.protocol == Protocol::NoContext {
                String::new()
            } else {
                ctx.code_context
            },
            needle_token_start: ctx.needle_token_start,
            needle_token_end: ctx.needle_token_end,
            code_context_ntokens: ctx.code_context_ntokens,
            protocol: self.options.protocol,
        };
        Ok(PlacedTask { task, needle: needle_range, placement: ctx.placement })
    }
}

/// A task and where the builder placed its needle.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedTask {
    pub task: Task,
    /// Byte range of the needle in `task.code_context` (on char boundaries).
    pub needle: std::ops::Range<usize>,
    /// Where the builder put the needle and the cut it came from (the audit).
    pub placement: NeedlePlacement,
}

#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod tests {
    use super::clean::python_slice_end;
    use super::count::word_sums_apply;
    use super::*;
    use crate::code::tokenize::test_tokenizer;

    /// A dataset of one repo from (path, text) files in dependency order and
    /// needles given as (path, name, start_byte, end_byte). The audit's
    /// tests use it too.
    pub(crate) fn dataset(
        language: &str,
        files: &[(&str, &str)],
        needles: &[(&str, &str, usize, usize)],
    ) -> Dataset {
        let content: serde_json::Map<String, serde_json::Value> =
            files.iter().map(|(p, t)| (p.to_string(), (*t).into())).collect();
        // A chain: each file imports the previous one, so the order is the list's.
        let dependency: serde_json::Map<String, serde_json::Value> = files
            .iter()
            .enumerate()
            .map(|(i, (p, _))| {
                let deps: Vec<serde_json::Value> =
                    if i > 0 { vec![files[i - 1].0.into()] } else { vec![] };
                (p.to_string(), deps.into())
            })
            .collect();
        let needles: Vec<serde_json::Value> = needles
            .iter()
            .map(|(path, name, s, e)| {
                let text = files.iter().find(|f| f.0 == *path).unwrap().1;
                let start_line = text[..*s].matches('\n').count();
                let end_line = text[..*e].matches('\n').count() + 1;
                serde_json::json!({"name": name, "start_line": start_line, "end_line": end_line,
                    "start_byte": s, "end_byte": e, "path": path, "description": "d"})
            })
            .collect();
        let v = serde_json::json!({language: [{"repo": "o/r", "content": content, "dependency": dependency,
            "needles": needles}]});
        Dataset::from_bytes(v.to_string().as_bytes(), "test").unwrap()
    }

    /// `repos` copies of a repo of six small Python files (`m0.py` …, each
    /// with a function `fN` and comments), with needles `fN` for each N of
    /// `needle_files`: enough for several builders to share out.
    pub(crate) fn python_repos(repos: usize, needle_files: &[usize]) -> Dataset {
        let body = |n: usize| format!("# file {n}\ndef f{n}(x):\n    # add\n    return x + {n}\n");
        let files: Vec<(String, String)> = (0..6).map(|n| (format!("m{n}.py"), body(n))).collect();
        let file_refs: Vec<(&str, &str)> =
            files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let names: Vec<(String, String)> =
            needle_files.iter().map(|&n| (format!("m{n}.py"), format!("f{n}"))).collect();
        let needles: Vec<(&str, &str, usize, usize)> = needle_files
            .iter()
            .zip(&names)
            .map(|(&n, (p, f))| {
                (p.as_str(), f.as_str(), body(n).find("def").unwrap_or(0), body(n).len())
            })
            .collect();
        let mut d = dataset("python", &file_refs, &needles);
        let list = d.languages.get_mut("python").expect("python");
        let one = list[0].clone();
        for k in 1..repos {
            let mut r = one.clone();
            r.repo = format!("repo{k}");
            list.push(r);
        }
        d
    }

    fn tasks(d: &Dataset, options: ContextOptions) -> Vec<Task> {
        let specs = task_specs(d, None);
        build_tasks(d, &specs, &options, test_tokenizer(), |_, _| {}).unwrap()
    }

    fn opts(size: usize) -> ContextOptions {
        ContextOptions { code_context_size: size, ..ContextOptions::default() }
    }

    #[test]
    fn text_count_equals_whole_text_tokenization() {
        let t = test_tokenizer();
        for text in [
            "",
            "\n",
            "\n\n",
            "def f():\n    return 1\n",
            "  x\n\ty\r\n<s> hi </s>\nlast",
            "</s>\n<unk>\n\n  \n…café ✓ 😀\nx",
            "a\n<s>\n",
            "    \n",
        ] {
            assert_eq!(text_count(t, text).unwrap(), t.tokens(text).unwrap().len(), "{text:?}");
        }
    }

    #[test]
    fn word_sums_apply_to_the_default_tokenizer_and_match_direct_counts() {
        let t = test_tokenizer();
        assert!(word_sums_apply(t));
        let mut c = Counter::new(t, false);
        for line in [
            "",
            " ",
            "  ",
            "x",
            " x",
            "a b",
            "a  ",
            "    return self.x  # café ✓",
            "\tfoo",
            "a\u{2581}b",
            "<s> hi </s>",
            "x\r",
        ] {
            assert_eq!(
                c.line(line).unwrap(),
                t.tokens(&format!("{line}\n")).unwrap().len(),
                "{line:?}"
            );
            let inner = t.tokens(&format!("\n{line}\n")).unwrap().len() - 2;
            assert_eq!(c.line_inner(line).unwrap(), inner, "{line:?}");
            assert_eq!(c.budget(line).unwrap(), t.tokens(line).unwrap().len(), "{line:?}");
        }
    }

    #[test]
    fn negative_prefix_budget_truncates_toward_zero() {
        // P5: int(-197.6) == -197; a negative budget takes nothing before the
        // needle, not even its (partial) line.
        let p = (16.0f64 * 0.05 - 397.0 / 2.0) as i64;
        assert_eq!(p, -197);
        let body = "def needle():\n".to_string() + &"    x = 1\n".repeat(60);
        let text = format!("import os\n{body}");
        let d = dataset("python", &[("a.py", &text)], &[("a.py", "needle", 10, text.len() - 1)]);
        let t = &tasks(&d, opts(16))[0];
        assert!(t.code_context.starts_with("def needle():"), "{:?}", &t.code_context[..40]);
        assert_eq!(t.needle_token_start, 0);
    }

    #[test]
    fn prefix_repeats_the_partial_line_with_an_extra_newline() {
        // P6: "    " before an indented method is followed by "\n".
        let text = "class A:\n    def visit(self):\n        return 1\n";
        let s = text.find("def").unwrap();
        let e = text.find("return 1").unwrap() + 8;
        let d = dataset("python", &[("a.py", text)], &[("a.py", "visit", s, e)]);
        let t = &tasks(&d, opts(1000))[0];
        assert_eq!(
            t.code_context,
            "# Path: a.py\nclass A:\n    \ndef visit(self):\n        return 1\n\n"
        );
        assert_eq!(
            t.needle_token_start,
            test_tokenizer().tokens("# Path: a.py\nclass A:\n    \n").unwrap().len()
        );
    }

    #[test]
    fn byte_offsets_are_used_as_code_point_indices() {
        // P3: "é" is 2 bytes but 1 code point, so the slice starts 1 char late.
        let text = "# café\ndef f():\n    return 1\n";
        let s = text.find("def").unwrap();
        let e = text.len() - 1;
        let d = dataset("python", &[("a.py", text)], &[("a.py", "f", s, e)]);
        let t = &tasks(&d, opts(1000))[0];
        assert_eq!(t.code_context, "# Path: a.py\n# café\nd\nef f():\n    return 1\n\n");
        let chars: Vec<char> = text.chars().collect();
        let needle: String = chars[s..e].iter().collect();
        let prefix = "# Path: a.py\n# café\nd\n";
        let n = test_tokenizer().tokens(prefix).unwrap().len();
        assert_eq!(t.needle_token_start, n);
        assert_eq!(t.needle_token_end, n + test_tokenizer().tokens(&needle).unwrap().len());
    }

    #[test]
    fn forward_chunks_end_with_an_ellipsis_and_path_lines_head_files() {
        let a = "x = 1\n".repeat(400);
        let b = "def f():\n    return 2\n";
        let d = dataset("python", &[("a.py", &a), ("b.py", b)], &[("b.py", "f", 0, b.len() - 1)]);
        let t = &tasks(&d, opts(200))[0];
        assert!(t.code_context.starts_with("# Path: a.py\nx = 1\n"), "{}", t.code_context);
        assert!(
            t.code_context.contains("x = 1\n...\n# Path: b.py\n\ndef f():"),
            "{}",
            t.code_context
        );
        assert_eq!(t.task_id(), "python::o/r::f");
        assert_eq!(
            t.prompt(),
            format!("{INSTRUCTION}{}{}{INSTRUCTION}", t.code_context, t.description)
        );
    }

    #[test]
    fn task_order_and_position_ratios() {
        let text = "def a():\n    pass\ndef b():\n    pass\n";
        let d =
            dataset("python", &[("a.py", text)], &[("a.py", "a", 0, 17), ("a.py", "b", 18, 35)]);
        let ts = tasks(&d, opts(100));
        assert_eq!(ts.iter().map(|t| t.position_ratio).collect::<Vec<_>>(), [0.25, 0.75]);
        assert_eq!(ts[1].name, "b");
        assert!(task_specs(&d, Some(&[Language::Rust])).is_empty());
        let keys: Vec<String> = match serde_json::to_value(&ts[0]).unwrap() {
            serde_json::Value::Object(m) => m.keys().cloned().collect(),
            _ => unreachable!(),
        };
        assert_eq!(
            keys,
            [
                "repo",
                "name",
                "language",
                "path",
                "position_ratio",
                "description",
                "instruction",
                "template",
                "code_context",
                "needle_token_start",
                "needle_token_end",
                "code_context_ntokens"
            ]
        );
    }

    #[test]
    fn comment_modes_parse_and_print_the_official_strings() {
        for &m in CommentMode::ALL {
            assert_eq!(m.to_string().parse::<CommentMode>().unwrap(), m);
        }
        let typo = "positional-padding".parse::<CommentMode>();
        assert!(
            matches!(typo, Err(ContextError::UnknownCommentMode(s)) if s == "positional-padding")
        );
    }

    #[test]
    fn python_slices_with_negative_ends() {
        assert_eq!(python_slice_end(5, -1), 4);
        assert_eq!(python_slice_end(5, -9), 0);
        assert_eq!(python_slice_end(5, 9), 5);
    }

    #[test]
    fn suffix_bug_k5_and_its_fix() {
        let a = "def a():\n    # note\n    return 1\n";
        let b = "def b():\n    return 2  # two\n\nx = 3\n";
        let c = "def c():\n    # see\n    return 3\n";
        let d =
            dataset("python", &[("a.py", a), ("b.py", b), ("c.py", c)], &[("b.py", "b", 0, 28)]);
        let mut o = opts(10_000);
        o.comment_mode = CommentMode::NoPadding;
        let buggy = &tasks(&d, o)[0];
        // The rest of b.py is dropped and c.py's path line glued to the needle.
        assert!(buggy.code_context.contains("return 2  # Path: c.py\n"), "{}", buggy.code_context);
        o.fix_suffix_cleaning = true;
        let fixed = &tasks(&d, o)[0];
        assert!(
            fixed
                .code_context
                .ends_with("return 2  \n\nx = 3\n\n# Path: c.py\ndef c():\n    \n    return 3\n\n"),
            "{}",
            fixed.code_context
        );
        // Without comments the corrected cleaning keeps the context as is.
        let plain = dataset(
            "python",
            &[("a.py", "x = 1\n"), ("b.py", "def b():\n    return 2\n"), ("c.py", "y = 2\n")],
            &[("b.py", "b", 0, 21)],
        );
        let none = &tasks(&plain, opts(10_000))[0];
        let fixed = &tasks(&plain, o)[0];
        assert_eq!(
            none.code_context.split("def b").nth(1),
            fixed.code_context.split("def b").nth(1)
        );
    }
}
