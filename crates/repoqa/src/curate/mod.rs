//! Dataset curation: turn a repository's files into a RepoQA repo entry
//! (`content`, `dependency`, `functions`, `needles`), with the semantics of
//! the upstream curation scripts as the corpus builder implements them
//! (tests/corpus/build.py; crates/repoqa/tests/it/parity_curate.rs compares the two on the
//! whole corpus, field for field).
//!
//! The steps, one module each:
//!
//! | module      | step |
//! |-------------|------|
//! | `files`     | `content`: the language's files under the entry dir, sorted, UTF-8 |
//! | `deps`      | `dependency`: imports per language, resolved to content files |
//! | `functions` | `functions`: FUNCTION_QUERY captures in file order, offsets (C1), code_ratio (C4) |
//! | `needles`   | candidates (unique name, ≤ 2000 bytes, one per 1/64 bin) and the seeded sample (C2) |
//! | `pyrandom`  | CPython's `random.Random` (MT19937, `sample`), for the same sample |
//! | `describe`  | descriptions from a JSON file; the annotation prompt for a model |
//! | `fill`      | after curation: prompts of the needles without a description, replies put back |
//! | `sha1`      | a content digest standing in for the commit when none is given |
//! | `archive`   | the input from a .zip, .tar or .tar.gz instead of a folder |
//! | `kept`      | the files as one record, kept by the page across a reload |
//! | `registry`  | fresh splits: packages first released after a date, their archives checked |
//!
//! The core takes the files in memory ([`SourceFile`]) so that the browser
//! can pass a picked folder or an unpacked archive; [`read_source_dir`]
//! reads a directory natively.

mod archive;
mod deps;
mod describe;
mod files;
mod fill;
mod functions;
mod kept;
mod needles;
mod pyrandom;
mod registry;

use std::fmt;

use indexmap::IndexMap;
use thiserror::Error;

pub use archive::{
    is_archive_name, read_archive, ArchiveContents, ArchiveError, ArchiveFormat, ArchiveLimits,
    ArchiveRead,
};
pub use deps::Dependency;
pub use describe::{annotation_prompt, description_from_reply, Descriptions};
pub use files::{
    count_by_language, directories_of, has_language_suffix, language_suffixes, EntryMatch,
};
pub use fill::DescribeJob;
pub use kept::{pack_files, unpack_files};
pub use needles::{default_seed, MAX_NEEDLE_BYTES, NEEDLES_PER_REPO, NUM_BINS};
pub use pyrandom::PyRandom;
pub use registry::{Digest, Registry, RegistryError, Release};

use crate::code::lang::{GrammarError, Language};
use crate::input::dataset::{topological_sort, Dataset, Needle, Repo};
use crate::step::{Step, Stepper};

/// Input files over this total (of the language's files under the entry)
/// are refused: parsing them would take minutes and the browser's memory.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 512 * 1024 * 1024;

/// One file of the repository: its path relative to the repository root
/// ("/" separators; "./" and "\\" are accepted) and its raw bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> SourceFile {
        SourceFile { path: path.into(), bytes: bytes.into() }
    }
}

/// What to curate and how.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CurateOptions {
    pub language: Language,
    /// "owner/name", recorded in the dataset; also the default seed.
    pub repo: String,
    /// Directory (relative to the root) whose files are kept; `None` or
    /// `"."` = the whole repository. Recorded as `entrypoint_path`.
    pub entry: Option<String>,
    /// Seed of the needle sample; [`default_seed`] (crc32 of `repo`) is the
    /// corpus builder's rule.
    pub seed: u64,
    /// Recorded as `commit_sha`; `None` = a SHA-1 of the content (paths
    /// and texts), like the corpus builder.
    pub commit_sha: Option<String>,
    pub topic: Option<String>,
    /// Refuse inputs above this many bytes (language files under the entry).
    pub max_input_bytes: u64,
    /// How `entry` selects files: as a directory (default) or as
    /// upstream's string prefix.
    pub entry_match: EntryMatch,
}

impl CurateOptions {
    /// Defaults: whole repository, seed = crc32(repo), content digest as
    /// commit, no topic, 512 MiB limit.
    pub fn new(language: Language, repo: impl Into<String>) -> CurateOptions {
        let repo = repo.into();
        CurateOptions {
            language,
            seed: default_seed(&repo),
            repo,
            entry: None,
            commit_sha: None,
            topic: None,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            entry_match: EntryMatch::Directory,
        }
    }
}

#[derive(Debug, Error)]
pub enum CurateError {
    #[error("entry directory {entry:?} leaves the repository root")]
    BadEntry { entry: String },
    #[error("input path {path:?} leaves the repository root")]
    BadPath { path: String },
    #[error("the input lists {path} twice")]
    DuplicatePath { path: String },
    #[error("no {language} files ({suffixes}) under {entry} among {inputs} input files")]
    NoFiles { language: Language, suffixes: String, entry: String, inputs: usize },
    #[error("all {files} {language} files are binary or not UTF-8; nothing to curate")]
    AllUndecodable { language: Language, files: usize },
    #[error(
        "the {files} {language} files hold {bytes} bytes ({mib:.1} MiB), over the limit of {limit_mib:.0} MiB; choose a smaller entry directory",
        mib = *bytes as f64 / 1048576.0,
        limit_mib = *limit as f64 / 1048576.0
    )]
    TooLarge { language: Language, bytes: u64, limit: u64, files: usize },
    #[error("{repo}: no {language} functions found in {files} files ({hint})", hint = query_hint(*language))]
    NoFunctions { repo: String, language: Language, files: usize },
    #[error(
        "{repo}: the content has {chars} characters, too small to spread needles over {bins} bins"
    )]
    TooSmall { repo: String, chars: usize, bins: usize },
    #[error(
        "{repo}: only {candidates} of {functions} functions can be needles, {needed} are needed (a needle has a name no other function has, at most {max} bytes, and is the first function of its 1/{bins} of the repository)",
        max = MAX_NEEDLE_BYTES,
        bins = NUM_BINS
    )]
    TooFewNeedles { repo: String, candidates: usize, functions: usize, needed: usize },
    #[error("descriptions {origin}: {message}")]
    Descriptions { origin: String, message: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{0}")]
    Grammar(#[from] GrammarError),
}

/// What the official FUNCTION_QUERY counts as a function, for error messages.
fn query_hint(language: Language) -> &'static str {
    match language {
        Language::Python => "only `def` functions count",
        Language::Cpp => {
            "only definitions whose name is a plain identifier count, not `A::f` or operators"
        }
        Language::Java => "only method declarations count",
        Language::TypeScript => {
            "only `function` declarations count, not methods or arrow functions"
        }
        Language::Rust => "only `fn` items count",
        Language::Go => "only `func` declarations count, not methods",
    }
}

/// Something the user should know; the dataset was still built.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CurateWarning {
    /// Skipped: not UTF-8 (binary?); `at_byte` is the first invalid byte.
    NotUtf8 { path: String, at_byte: usize },
    /// The Python file does not parse; it gets no dependencies.
    PythonSyntax { path: String },
    /// A sampled needle without a description; left out of `needles`.
    MissingDescription { name: String, path: String, start_line: usize, end_line: usize },
    /// Fewer needles than sampled because descriptions are missing.
    FewerNeedles { kept: usize, sampled: usize },
    /// A description whose name is not a sampled needle (unused).
    UnusedDescription { name: String },
}

impl fmt::Display for CurateWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CurateWarning::NotUtf8 { path, at_byte } => {
                write!(f, "{path}: skipped, binary or not UTF-8 (invalid byte at offset {at_byte})")
            }
            CurateWarning::PythonSyntax { path } => {
                write!(f, "{path}: Python syntax error; no dependencies recorded for it")
            }
            CurateWarning::MissingDescription { name, path, start_line, end_line } => write!(
                f,
                "needle {name} ({path}, lines {}-{end_line}) has no description; left out",
                start_line + 1
            ),
            CurateWarning::FewerNeedles { kept, sampled } => write!(
                f,
                "only {kept} of the {sampled} sampled needles have a description; the repo has {kept} needles"
            ),
            CurateWarning::UnusedDescription { name } => {
                write!(f, "description for {name:?} unused: it is not a sampled needle")
            }
        }
    }
}

/// Figures of one curation, for the user.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CurateStats {
    pub files: usize,
    pub skipped_files: usize,
    /// Code points of the content (the needle bins are 1/64 of it).
    pub chars: usize,
    pub edges: usize,
    pub functions: usize,
    pub candidates: usize,
}

/// The curated repo and what happened on the way (serde: the compute
/// engine's reply to the page).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CurateReport {
    pub language: Language,
    /// Needles with a description only.
    pub repo: Repo,
    /// All sampled needles in sample order; the description is empty for
    /// those without one.
    pub sampled: Vec<Needle>,
    pub warnings: Vec<CurateWarning>,
    pub stats: CurateStats,
}

impl CurateReport {
    /// Sampled needles that have no description yet.
    pub fn missing_descriptions(&self) -> Vec<&Needle> {
        self.sampled.iter().filter(|n| n.description.is_empty()).collect()
    }

    /// The source text of a needle (its byte range in its file).
    pub fn needle_code(&self, needle: &Needle) -> Option<String> {
        let text = self.repo.content.get(&needle.path)?;
        let bytes = text.as_bytes().get(needle.start_byte..needle.end_byte)?;
        Some(String::from_utf8_lossy(bytes).into_owned())
    }

    /// A descriptions file to fill in: every sampled needle name with its
    /// description so far ("" when missing), in sample order.
    pub fn description_template(&self) -> String {
        let map: IndexMap<&str, &str> =
            self.sampled.iter().map(|n| (n.name.as_str(), n.description.as_str())).collect();
        serde_json::to_string_pretty(&map).unwrap_or_default()
    }
}

/// Curate one repository. `files` are all its files (others than the
/// language's are ignored); see the module doc for the steps.
pub fn curate_repo(
    files: &[SourceFile],
    opts: &CurateOptions,
    descriptions: &Descriptions,
) -> Result<CurateReport, CurateError> {
    Curation::new(files, opts, descriptions).finish()
}

/// Curation a step at a time ([`Stepper`]), so that the page can give the
/// browser a turn between steps: the files and their dependencies, then
/// the function analysis one file per step (the budget counts files); the
/// needles in `finish`. [`curate_repo`] runs it to the end; both give the
/// same result.
pub struct Curation<'a> {
    files: &'a [SourceFile],
    opts: &'a CurateOptions,
    descriptions: &'a Descriptions,
    analysing: Option<Box<Analysing>>,
}

/// The state between the dependency analysis and the needles.
struct Analysing {
    entry: String,
    warnings: Vec<CurateWarning>,
    skipped_files: usize,
    dependency: Dependency,
    /// The function analysis; it holds the files' content.
    walk: functions::FunctionWalk,
}

impl<'a> Curation<'a> {
    pub fn new(
        files: &'a [SourceFile],
        opts: &'a CurateOptions,
        descriptions: &'a Descriptions,
    ) -> Curation<'a> {
        Curation { files, opts, descriptions, analysing: None }
    }

    /// The files of the language under the entry and their dependencies.
    fn start(&self) -> Result<Analysing, CurateError> {
        let language = self.opts.language;
        let how = self.opts.entry_match;
        let entry = files::entry_for_match(self.opts.entry.as_deref(), how)?;
        let mut warnings = Vec::new();
        let content = files::collect(
            self.files,
            language,
            &entry,
            how,
            self.opts.max_input_bytes,
            &mut warnings,
        )?;
        let skipped_files = warnings.len();
        let dir = if entry == "." { "." } else { entry.trim_end_matches('/') };
        let dependency = deps::analyze(language, &content, dir, &mut warnings)?;
        let order = topological_sort(&dependency).into_iter().map(str::to_string).collect();
        let walk = functions::FunctionWalk::new(language, content, order);
        Ok(Analysing { entry, warnings, skipped_files, dependency, walk })
    }
}

impl Stepper for Curation<'_> {
    type Output = CurateReport;
    type Error = CurateError;

    /// The first step reads the files and their dependencies; each next
    /// one analyses up to `budget` files' functions; `Done` once all are.
    fn step(&mut self, budget: usize) -> Result<Step, CurateError> {
        match self.analysing.as_mut() {
            None => {
                self.analysing = Some(Box::new(self.start()?));
                Ok(Step::More)
            }
            Some(a) => a.walk.step(budget),
        }
    }

    /// Files whose functions are analysed, and the language's files in all
    /// (0 of 0 before the first step).
    fn progress(&self) -> (usize, usize) {
        self.analysing.as_ref().map_or((0, 0), |a| a.walk.progress())
    }

    /// The needles, their descriptions, and the report (after the steps
    /// that are left).
    fn finish(mut self) -> Result<CurateReport, CurateError> {
        let a = match self.analysing.take() {
            Some(a) => *a,
            None => self.start()?,
        };
        let Analysing { entry, mut warnings, skipped_files, dependency, walk } = a;
        let (opts, descriptions, language) = (self.opts, self.descriptions, self.opts.language);
        let functions::Walked { content, functions } = walk.finish()?;
        let nfunctions: usize = functions.values().map(Vec::len).sum();
        if nfunctions == 0 {
            return Err(CurateError::NoFunctions {
                repo: opts.repo.clone(),
                language,
                files: content.len(),
            });
        }
        let candidates = needles::candidates(&opts.repo, &content, &functions)?;
        if candidates.len() < NEEDLES_PER_REPO {
            return Err(CurateError::TooFewNeedles {
                repo: opts.repo.clone(),
                candidates: candidates.len(),
                functions: nfunctions,
                needed: NEEDLES_PER_REPO,
            });
        }
        let mut sampled = needles::sample(&candidates, opts.seed);
        let ncandidates = candidates.len();

        let mut kept = Vec::new();
        for n in &mut sampled {
            match descriptions.get(&n.name) {
                Some(d) => {
                    n.description = d.to_string();
                    kept.push(n.clone());
                }
                None => warnings.push(CurateWarning::MissingDescription {
                    name: n.name.clone(),
                    path: n.path.clone(),
                    start_line: n.start_line,
                    end_line: n.end_line,
                }),
            }
        }
        if kept.len() < sampled.len() {
            warnings.push(CurateWarning::FewerNeedles { kept: kept.len(), sampled: sampled.len() });
        }
        for name in descriptions.names() {
            if !sampled.iter().any(|n| n.name == name) {
                warnings.push(CurateWarning::UnusedDescription { name: name.to_string() });
            }
        }

        let stats = CurateStats {
            files: content.len(),
            skipped_files,
            chars: content.values().map(|t| t.chars().count()).sum(),
            edges: dependency.values().map(Vec::len).sum(),
            functions: nfunctions,
            candidates: ncandidates,
        };
        let mut repo = Repo::default();
        repo.repo = opts.repo.clone();
        repo.commit_sha = Some(opts.commit_sha.clone().unwrap_or_else(|| content_digest(&content)));
        repo.entrypoint_path = Some(entry);
        repo.topic = opts.topic.clone();
        repo.functions = functions;
        repo.dependency = dependency;
        repo.content = content;
        repo.needles = kept;
        Ok(CurateReport { language, repo, sampled, warnings, stats })
    }
}

/// SHA-1 over `path \0 text \0` of every file in order: the corpus
/// builder's stand-in for a commit id (a picked folder has no git metadata
/// either). Not used for anything security related.
pub fn content_digest(content: &IndexMap<String, String>) -> String {
    use sha1::{Digest, Sha1};
    let mut h = Sha1::new();
    for (path, text) in content {
        h.update(path.as_bytes());
        h.update(b"\0");
        h.update(text.as_bytes());
        h.update(b"\0");
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Add a curated repo to a dataset under its language (the language key
/// is added at the end if new). A repo of the same name and language is
/// replaced in place; returns whether that happened.
pub fn append_repo(dataset: &mut Dataset, language: Language, repo: Repo) -> bool {
    let repos = dataset.languages.entry(language.name().to_string()).or_default();
    match repos.iter_mut().find(|r| r.repo == repo.repo) {
        Some(old) => {
            *old = repo;
            true
        }
        None => {
            repos.push(repo);
            false
        }
    }
}

/// If every path starts with the same directory (a folder picked in the
/// browser, an archive with one top directory), remove it and return it.
pub fn strip_common_root(files: &mut [SourceFile]) -> Option<String> {
    let first = files.first()?.path.trim_start_matches("./").split('/').next()?.to_string();
    let prefix = format!("{first}/");
    if first.is_empty()
        || !files.iter().all(|f| f.path.trim_start_matches("./").starts_with(&prefix))
    {
        return None;
    }
    for f in files.iter_mut() {
        f.path = f.path.trim_start_matches("./")[prefix.len()..].to_string();
    }
    Some(first)
}

/// Read the language's files under `root/entry` (paths relative to
/// `root`). Symlinked directories are not followed, like `os.walk`; what
/// is not a regular file inside the folder is left out (the list of what
/// was left out is [`read_source_dir_matching`]'s).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_source_dir(
    root: &std::path::Path,
    language: Language,
    entry: Option<&str>,
) -> Result<Vec<SourceFile>, CurateError> {
    read_source_dir_matching(root, language, entry, EntryMatch::Directory).map(|d| d.files)
}

/// [`read_source_dir`] for an entry matched by `how`: under the prefix
/// rule, the files of the entry's parent directory (curation keeps those
/// whose path starts with the entry).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_source_dir_matching(
    root: &std::path::Path,
    language: Language,
    entry: Option<&str>,
    how: EntryMatch,
) -> Result<SourceDir, CurateError> {
    let entry = files::entry_for_match(entry, how)?;
    let entry = files::walk_root_of(&entry, how);
    let top = if entry == "." { root.to_path_buf() } else { root.join(entry) };
    let io = |p: &std::path::Path, e: std::io::Error| CurateError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    if !top.is_dir() {
        return Err(CurateError::Io {
            path: top.display().to_string(),
            message: "not a directory".to_string(),
        });
    }
    let root_real = std::fs::canonicalize(root).map_err(|e| io(root, e))?;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut stack = vec![top];
    while let Some(dir) = stack.pop() {
        for item in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let item = item.map_err(|e| io(&dir, e))?;
            let path = item.path();
            let kind = item.file_type().map_err(|e| io(&path, e))?;
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(rel) = path.strip_prefix(root) else { continue };
            let rel: Vec<String> =
                rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let rel = rel.join("/");
            if !has_language_suffix(&rel, language) || path.is_dir() {
                continue;
            }
            if let Some(reason) = not_a_source_file(&path, kind, &root_real) {
                skipped.push(SkippedFile { path: rel, reason });
                continue;
            }
            let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
            out.push(SourceFile { path: rel, bytes });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(SourceDir { files: out, skipped })
}

/// The files of a folder [`read_source_dir_matching`] read, and the ones
/// with the language's suffix that it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceDir {
    pub files: Vec<SourceFile>,
    pub skipped: Vec<SkippedFile>,
}

/// A file left out of a folder's reading, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedFile {
    /// Relative to the folder, "/" separators.
    pub path: String,
    pub reason: &'static str,
}

/// Why the entry at `path` is not read as a source file, if it is not: a
/// FIFO (reading it would block), a socket or a device (`/dev/zero` never
/// ends), a link that is broken, leaves the folder `root_real` (a
/// dataset never takes a file from outside the folder given) or ends at
/// anything but a regular file.
#[cfg(not(target_arch = "wasm32"))]
fn not_a_source_file(
    path: &std::path::Path,
    kind: std::fs::FileType,
    root_real: &std::path::Path,
) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    if !kind.is_symlink() {
        return Some("not a regular file (a FIFO, socket or device); not read");
    }
    let Ok(target) = std::fs::canonicalize(path) else {
        return Some("a broken link; not read");
    };
    if !target.starts_with(root_real) {
        return Some("a link to a file outside the folder; not read");
    }
    match std::fs::metadata(&target) {
        Ok(m) if m.is_file() => None,
        _ => Some("a link to something other than a regular file; not read"),
    }
}

#[cfg(test)]
mod tests;
