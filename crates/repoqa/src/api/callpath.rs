//! Building call-path tasks (NOT UPSTREAM; docs/call-path.md): `repoqa
//! prompts --task call-path` maps its flags to a [`CallPathPlan`], the page
//! its form; both [`CallPathPlan::check`] it (one typed error, one message)
//! and [`CallPathPlan::build`] it: each kept repository's call graph from
//! the dataset, its pairs selected (seeded; only pairs whose functions fit
//! one window of the plan's size), each task's window placed and its
//! prompt written. Its outputs are read ([`read_outputs`]) and scored
//! against the dataset's graphs ([`score_outputs`]) the same way.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::callpath::graph::{call_graph, CallGraph};
use crate::callpath::score::{score, CallPathScores, JudgedTask};
use crate::callpath::select::{select_fitting, PathPair, Selection};
use crate::callpath::task::{self, CallPathOutput, CallPathTask, FunctionRef};
use crate::callpath::verdict::{judge, trace, PathStep, PathVerdict, Reading};
use crate::callpath::window::{PathWindow, Windows};
use crate::code::lang::{GrammarError, Language};
use crate::code::tokenize::{Tokenizer, TokenizerError};
use crate::input::dataset::Dataset;
use crate::prompt::anatomy::{anatomy_of, Anatomy, Marked, PromptText};
use crate::prompt::context::{ContextError, MAX_CODE_CONTEXT_SIZE};
use crate::prompt::settings::{SettingsError, TaskFilter};

/// A build of call-path tasks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallPathPlan {
    pub code_context_size: usize,
    #[serde(default)]
    pub filter: TaskFilter,
    #[serde(default)]
    pub selection: Selection,
    /// Leave the code out of every prompt (`--closed-book`): the tasks,
    /// windows and depths are those built with the code.
    #[serde(default)]
    pub closed_book: bool,
}

/// Why a call-path plan cannot be built.
#[derive(Debug, Error)]
pub enum CallPathPlanError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error("--tasks-per-repo 0: ask for one task per repository or more")]
    NoTasksAsked,
    #[error("--path-lengths: give one length or more, each of 1 call or more")]
    PathLengths,
    #[error("--no-path-share {0}: a share from 0 to 1")]
    NoPathShare(f64),
    #[error("no repository of the dataset is kept by the languages and repos asked")]
    NoRepos,
}

/// Why outputs cannot be scored (or a task drawn) against the dataset.
#[derive(Debug, Error)]
pub enum CallPathScoreError {
    #[error(transparent)]
    Grammar(#[from] GrammarError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    #[error("{id}: {message}")]
    Task { id: String, message: String },
    #[error("{origin}, line {line}: {message}")]
    Line { origin: String, line: usize, message: String },
    #[error("{origin}: no call-path task in it")]
    Empty { origin: String },
    #[error("{origin}: not a call-path SCORES file ({message})")]
    ScoresFile { origin: String, message: String },
}

/// One scored task: the verdict and what was read, with what the
/// breakdowns need.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallPathResult {
    pub id: String,
    pub language: String,
    pub repo: String,
    /// Calls on the gold path; absent for a no-path task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_calls: Option<usize>,
    pub depth_spread: f64,
    pub code_context_size: usize,
    /// The gold shortest path, source to target; empty for a no-path task.
    #[serde(default)]
    pub path: Vec<String>,
    /// What the reply was read as; absent when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// The path read, traced on the graph step by step (what the verdict
    /// view draws); empty for `NO PATH` or an unreadable reply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<PathStep>,
    #[serde(flatten)]
    pub verdict: PathVerdict,
}

/// Outputs scored: what a SCORES file is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredCallPaths {
    pub scores: CallPathScores,
    pub results: Vec<CallPathResult>,
    /// The tasks were closed-book ([`closed_book_of`]).
    pub closed_book: bool,
}

/// Whether the outputs' tasks were closed-book: all of them or none; a
/// file that mixes the two is an error naming the first that differs (its
/// pass@1 would be neither run's).
pub fn closed_book_of(
    outputs: &[CallPathOutput],
    origin: &str,
) -> Result<bool, CallPathScoreError> {
    let first = outputs.first().is_some_and(|o| o.task.closed_book);
    match outputs.iter().position(|o| o.task.closed_book != first) {
        None => Ok(first),
        Some(i) => Err(CallPathScoreError::Line {
            origin: origin.to_string(),
            line: i + 1,
            message: format!(
                "a {} task after {} ones: score the closed-book answers and the answers with the code apart",
                if first { "with-code" } else { "closed-book" },
                if first { "closed-book" } else { "with-code" }
            ),
        }),
    }
}

/// [`score_outputs`] and [`closed_book_of`]: a SCORES file's contents.
pub fn score_file(
    dataset: &Dataset,
    outputs: &[CallPathOutput],
    origin: &str,
) -> Result<ScoredCallPaths, CallPathScoreError> {
    let closed_book = closed_book_of(outputs, origin)?;
    let (scores, results) = score_outputs(dataset, outputs, origin)?;
    Ok(ScoredCallPaths { scores, results, closed_book })
}

/// A scored outputs file: what `repoqa score --task call-path` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallPathScoresFile {
    /// Always `call-path`.
    pub task: String,
    /// What the file is (NOT UPSTREAM), for a reader of the file alone.
    pub protocol: String,
    pub model: String,
    pub eval_date: String,
    /// The tasks were closed-book (no code in the prompts).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed_book: bool,
    /// The dataset's freshness (`input::freshness`), for a dataset whose
    /// repositories all record their first release (a fresh split).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_freshness: Option<String>,
    #[serde(rename = "pass@1")]
    pub pass_at_1: Option<f64>,
    pub scores: CallPathScores,
    pub results: Vec<CallPathResult>,
}

/// Read an outputs file of call-path tasks (JSONL, the rows plus
/// `"output": [reply]`); a line that is not one is an error naming it.
pub fn read_outputs(text: &str, origin: &str) -> Result<Vec<CallPathOutput>, CallPathScoreError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |message: String| CallPathScoreError::Line {
            origin: origin.to_string(),
            line: i + 1,
            message,
        };
        let row: CallPathOutput = serde_json::from_str(line)
            .map_err(|e| at(format!("not a call-path task with its output ({e})")))?;
        if row.task.task != task::TASK {
            return Err(at(format!(
                "a {:?} task, not a call-path one (score SNF outputs without --task)",
                row.task.task
            )));
        }
        out.push(row);
    }
    if out.is_empty() {
        return Err(CallPathScoreError::Empty { origin: origin.to_string() });
    }
    Ok(out)
}

/// Judge each output against its repository's call graph in `dataset`
/// (a reply is its `output`'s first string; none is an empty reply) and
/// score them.
pub fn score_outputs(
    dataset: &Dataset,
    outputs: &[CallPathOutput],
    origin: &str,
) -> Result<(CallPathScores, Vec<CallPathResult>), CallPathScoreError> {
    let mut graphs: Vec<((String, String), CallGraph)> = Vec::new();
    let mut judged = Vec::with_capacity(outputs.len());
    let mut results = Vec::with_capacity(outputs.len());
    for (i, o) in outputs.iter().enumerate() {
        let t = &o.task;
        let at = |message: String| CallPathScoreError::Line {
            origin: origin.to_string(),
            line: i + 1,
            message,
        };
        let key = (t.language.clone(), t.repo.clone());
        let g = match graphs.iter().position(|(k, _)| *k == key) {
            Some(k) => k,
            None => {
                let language = Language::from_name(&t.language).map_err(|e| at(e.to_string()))?;
                let repo = dataset.repo(&t.language, &t.repo).ok_or_else(|| {
                    at(format!("the dataset has no {} repository {}", t.language, t.repo))
                })?;
                graphs.push((key, call_graph(repo, language)?));
                graphs.len() - 1
            }
        };
        let graph = &graphs[g].1;
        let pair = t.pair(graph).map_err(at)?;
        let reply = o.output.first().map_or("", String::as_str);
        let (reading, verdict) = judge(graph, &pair, reply);
        let steps = reading.as_ref().map(|r| trace(graph, &pair, r)).unwrap_or_default();
        judged.push(JudgedTask {
            language: t.language.clone(),
            path_calls: t.path_calls(),
            said_no_path: reading == Some(Reading::NoPath),
            verdict: verdict.clone(),
            depth_spread: t.depth_spread(),
            code_context_size: t.code_context_size,
        });
        results.push(CallPathResult {
            id: t.id(),
            language: t.language.clone(),
            repo: t.repo.clone(),
            path_calls: t.path_calls(),
            depth_spread: t.depth_spread(),
            code_context_size: t.code_context_size,
            path: t.path.clone(),
            reading,
            steps,
            verdict,
        });
    }
    Ok((score(&judged), results))
}

impl CallPathScoresFile {
    /// The SCORES file of `model`'s scored results, dated `eval_date`
    /// (labelled NOT UPSTREAM, pass@1 the overall rate), with the freshness
    /// of the `dataset` they were scored against.
    pub fn new(
        model: String,
        eval_date: String,
        scored: ScoredCallPaths,
        dataset: &Dataset,
    ) -> CallPathScoresFile {
        let ScoredCallPaths { scores, results, closed_book } = scored;
        CallPathScoresFile {
            task: task::TASK.to_string(),
            protocol: if closed_book { task::CLOSED_BOOK_LABEL } else { task::LABEL }.to_string(),
            model,
            eval_date,
            closed_book,
            dataset_freshness: crate::input::freshness::freshness(dataset)
                .map(|f| f.earliest.to_string()),
            pass_at_1: scores.overall.pass_at_1,
            scores,
            results,
        }
    }

    /// The file's text as `repoqa score --task call-path` writes it
    /// (pretty JSON and a newline; the page's download is the same bytes).
    pub fn text(&self) -> String {
        // Strings, numbers and maps with string keys: cannot fail.
        let text = serde_json::to_string_pretty(self).unwrap_or_default();
        format!("{text}\n")
    }

    /// Read a call-path SCORES file (`repoqa score --task call-path`'s).
    pub fn read(text: &str, origin: &str) -> Result<CallPathScoresFile, CallPathScoreError> {
        let bad = |message: String| CallPathScoreError::ScoresFile {
            origin: origin.to_string(),
            message,
        };
        let file: CallPathScoresFile =
            serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if file.task != task::TASK {
            return Err(bad(format!("its task is {:?}", file.task)));
        }
        Ok(file)
    }

    /// Whether `json` is a call-path SCORES file (its `task` says so).
    pub fn is_one(json: &serde_json::Value) -> bool {
        json.get("task").and_then(|t| t.as_str()) == Some(task::TASK)
    }
}

/// One check of a call-path SCORES file and what it found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallPathCheck {
    pub ok: bool,
    /// What was checked and, when it failed, what differs.
    pub text: String,
}

/// The breakdowns' input of a scored result.
fn judged_of(r: &CallPathResult) -> JudgedTask {
    JudgedTask {
        language: r.language.clone(),
        path_calls: r.path_calls,
        verdict: r.verdict.clone(),
        said_no_path: r.reading == Some(Reading::NoPath),
        depth_spread: r.depth_spread,
        code_context_size: r.code_context_size,
    }
}

/// Check a call-path SCORES file: its scores and pass@1 recomputed from its
/// results; with `rescored` (its outputs judged again against the dataset,
/// [`score_outputs`]), every result equal to the one judged again, by id.
pub fn verify(
    file: &CallPathScoresFile,
    rescored: Option<&[CallPathResult]>,
) -> Vec<CallPathCheck> {
    let mut out = Vec::new();
    let n = file.results.len();
    let recomputed = score(&file.results.iter().map(judged_of).collect::<Vec<_>>());
    out.push(CallPathCheck {
        ok: recomputed == file.scores,
        text: if recomputed == file.scores {
            format!("the scores recomputed from the {n} results equal the file's")
        } else {
            format!(
                "the scores recomputed from the {n} results differ: pass@1 {} ({} of {}), the file says {} ({} of {})",
                pct(recomputed.overall.pass_at_1),
                recomputed.overall.passed,
                recomputed.overall.total,
                pct(file.scores.overall.pass_at_1),
                file.scores.overall.passed,
                file.scores.overall.total
            )
        },
    });
    let same_head = file.pass_at_1 == file.scores.overall.pass_at_1;
    out.push(CallPathCheck {
        ok: same_head,
        text: format!(
            "pass@1 {} {} the scores' overall {}",
            pct(file.pass_at_1),
            if same_head { "is" } else { "is NOT" },
            pct(file.scores.overall.pass_at_1)
        ),
    });
    if let Some(again) = rescored {
        let by_id: std::collections::HashMap<&str, &CallPathResult> =
            again.iter().map(|r| (r.id.as_str(), r)).collect();
        let mut differ = 0;
        for r in &file.results {
            let text = match by_id.get(r.id.as_str()) {
                None => format!("{}: in the file, not in the outputs", r.id),
                Some(a) if *a == r => continue,
                Some(a) => format!(
                    "{}: the file says {}, judged again: {}",
                    r.id,
                    verdict_label(&r.verdict),
                    verdict_label(&a.verdict)
                ),
            };
            differ += 1;
            out.push(CallPathCheck { ok: false, text });
        }
        let file_ids: std::collections::HashSet<&str> =
            file.results.iter().map(|r| r.id.as_str()).collect();
        for a in again.iter().filter(|a| !file_ids.contains(a.id.as_str())) {
            differ += 1;
            out.push(CallPathCheck {
                ok: false,
                text: format!("{}: answered in the outputs, not in the file", a.id),
            });
        }
        if differ == 0 {
            out.push(CallPathCheck {
                ok: true,
                text: format!("every one of the {n} results equals its reply judged again"),
            });
        }
    }
    out
}

fn pct(p: Option<f64>) -> String {
    p.map_or("–".into(), |p| format!("{p:.1}"))
}

/// A call-path task's prompt as bands (`prompt::anatomy`), each function
/// of its gold path — the source and the target of a no-path task —
/// marked with its name where its text is in the window: what the task
/// view's anatomy strip draws. The task's repository must be `dataset`'s.
pub fn anatomy(
    dataset: &Dataset,
    task: &CallPathTask,
    tokenizer: &Tokenizer,
) -> Result<Anatomy, CallPathScoreError> {
    let at = |message: String| CallPathScoreError::Task { id: task.id(), message };
    let language = Language::from_name(&task.language).map_err(|e| at(e.to_string()))?;
    let repo = dataset.repo(&task.language, &task.repo).ok_or_else(|| {
        at(format!("the dataset has no {} repository {}", task.language, task.repo))
    })?;
    let graph = call_graph(repo, language)?;
    let missing =
        |f: &FunctionRef| at(format!("the dataset's {} has no function {}", task.repo, f.label()));
    let source = task.source.node(&graph).ok_or_else(|| missing(&task.source))?;
    let target = task.target.node(&graph).ok_or_else(|| missing(&task.target))?;
    let nodes: Vec<usize> = if task.path.len() < 2 {
        vec![source, target]
    } else {
        let last = task.path.len() - 1;
        let mut nodes = vec![source];
        for name in &task.path[1..last] {
            let n =
                graph.nodes.iter().position(|n| n.name == *name).ok_or_else(|| {
                    at(format!("the dataset's {} has no function {name}", task.repo))
                })?;
            nodes.push(n);
        }
        nodes.push(target);
        nodes
    };
    let mut marked: Vec<Marked> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let f = &graph.nodes[n];
        let text = repo.content.get(&f.path).and_then(|c| c.get(f.start_byte..f.end_byte));
        let found = text
            .filter(|t| !t.is_empty())
            .and_then(|t| task.code_context.find(t).map(|start| start..start + t.len()));
        let Some(bytes) = found else { continue };
        if marked.iter().any(|m| m.bytes == bytes) {
            continue;
        }
        marked.push(Marked { bytes, path: f.path.clone(), name: Some(f.name.clone()) });
    }
    marked.sort_by_key(|m| m.bytes.start);
    let text = PromptText {
        instruction: &task.instruction,
        code_context: &task.code_context,
        question: &task.question,
        language: &task.language,
        repo: &task.repo,
    };
    Ok(anatomy_of(&text, &marked, &[], Some(dataset), tokenizer)?)
}

/// A verdict as a line says it: its name and what it names.
pub fn verdict_label(v: &PathVerdict) -> String {
    match v {
        PathVerdict::Pass => "pass".into(),
        PathVerdict::Longer { calls, shortest } => {
            format!("longer ({calls} calls, the shortest {shortest})")
        }
        PathVerdict::NotACall { from, to } => format!("not a call ({from} does not call {to})"),
        PathVerdict::UnknownName { name } => format!("unknown name ({name})"),
        PathVerdict::WrongEnds { first, last } => format!("wrong ends ({first} … {last})"),
        PathVerdict::MissedPath => "missed path (NO PATH where one exists)".into(),
        PathVerdict::ClaimedPath => "claimed path (a path where none exists)".into(),
        PathVerdict::Unreadable { reason } => format!("unreadable ({reason})"),
    }
}

/// A model's call-path runs at several context lengths side by side (a
/// length ladder: `repoqa run --task call-path --code-context-size
/// 4096,16384,…`): the scores over every length's results, whose
/// `by_context_length` and `by_path_length_and_context` are the ladder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallPathLadder {
    pub model: String,
    /// The lengths run, ascending.
    pub lengths: Vec<usize>,
    pub scores: CallPathScores,
}

/// The ladders of `files` (SCORES files of any lengths and models), a
/// model per ladder in the order first met.
pub fn ladders(files: &[CallPathScoresFile]) -> Vec<CallPathLadder> {
    let mut models: Vec<&str> = Vec::new();
    for f in files {
        if !models.contains(&f.model.as_str()) {
            models.push(&f.model);
        }
    }
    models
        .into_iter()
        .map(|m| {
            // A closed-book run is another experiment, not a rung.
            let mine: Vec<&CallPathScoresFile> =
                files.iter().filter(|f| f.model == m && !f.closed_book).collect();
            let judged: Vec<JudgedTask> =
                mine.iter().flat_map(|f| f.results.iter().map(judged_of)).collect();
            let scores = score(&judged);
            CallPathLadder {
                model: m.to_string(),
                lengths: scores.by_context_length.keys().copied().collect(),
                scores,
            }
        })
        .collect()
}

/// A model's call-path run with the code beside its closed-book run, task
/// by task (the tasks both answered).
#[derive(Clone, Debug, PartialEq)]
pub struct CallPathRemembering {
    pub model: String,
    /// Passed in both, only with the code, only closed-book, in neither.
    pub both: usize,
    pub only_open: usize,
    pub only_closed: usize,
    pub neither: usize,
}

impl CallPathRemembering {
    pub fn tasks(&self) -> usize {
        self.both + self.only_open + self.only_closed + self.neither
    }

    /// pass@1 with the code over the paired tasks.
    pub fn open_pass(&self) -> f64 {
        (self.both + self.only_open) as f64 / self.tasks().max(1) as f64
    }

    /// The memorized share: the paired tasks passed with no code.
    pub fn share(&self) -> f64 {
        (self.both + self.only_closed) as f64 / self.tasks().max(1) as f64
    }

    /// McNemar's exact p of the two runs.
    pub fn mcnemar_p(&self) -> f64 {
        crate::review::stats::mcnemar_exact(self.only_open, self.only_closed)
    }
}

/// For each model with a closed-book file and a file with the code (the
/// first of each), the two compared over the tasks both hold.
pub fn remembering(files: &[CallPathScoresFile]) -> Vec<CallPathRemembering> {
    let mut out: Vec<CallPathRemembering> = Vec::new();
    for open in files.iter().filter(|f| !f.closed_book) {
        if out.iter().any(|r| r.model == open.model) {
            continue;
        }
        let Some(closed) = files.iter().find(|f| f.closed_book && f.model == open.model) else {
            continue;
        };
        let passed: std::collections::HashMap<(&str, usize), bool> = closed
            .results
            .iter()
            .map(|r| ((r.id.as_str(), r.code_context_size), r.verdict.passed()))
            .collect();
        let mut r = CallPathRemembering {
            model: open.model.clone(),
            both: 0,
            only_open: 0,
            only_closed: 0,
            neither: 0,
        };
        for t in &open.results {
            let Some(&c) = passed.get(&(t.id.as_str(), t.code_context_size)) else { continue };
            match (t.verdict.passed(), c) {
                (true, true) => r.both += 1,
                (true, false) => r.only_open += 1,
                (false, true) => r.only_closed += 1,
                (false, false) => r.neither += 1,
            }
        }
        if r.tasks() > 0 {
            out.push(r);
        }
    }
    out
}

/// Why a build failed.
#[derive(Debug, Error)]
pub enum CallPathBuildError {
    #[error(transparent)]
    Grammar(#[from] GrammarError),
    #[error(transparent)]
    Context(#[from] ContextError),
}

/// A kept repository: where it is in the dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepoRef {
    pub language: Language,
    pub repo_index: usize,
}

/// A repository that gave fewer tasks than asked, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shortfall {
    pub language: String,
    pub repo: String,
    pub given: usize,
    pub asked: usize,
    /// Pairs passed over because their functions do not fit one window.
    pub unfit: usize,
}

impl Shortfall {
    /// One line for a warning.
    pub fn text(&self) -> String {
        let unfit = match self.unfit {
            0 => String::new(),
            1 => " (1 pair's functions do not fit one window)".to_string(),
            n => format!(" ({n} pairs' functions do not fit one window)"),
        };
        format!(
            "{} {} gives {} of the {} call-path tasks asked{unfit}",
            self.language, self.repo, self.given, self.asked
        )
    }
}

/// One repository's part of a build.
struct RepoPart {
    tasks: Vec<CallPathTask>,
    shortfall: Option<Shortfall>,
}

/// What a build gives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallPathBuild {
    pub tasks: Vec<CallPathTask>,
    pub shortfalls: Vec<Shortfall>,
}

impl CallPathPlan {
    pub fn new(code_context_size: usize) -> CallPathPlan {
        CallPathPlan {
            code_context_size,
            filter: TaskFilter::default(),
            selection: Selection::default(),
            closed_book: false,
        }
    }

    /// The repositories the plan builds from, or why it cannot be built.
    pub fn check(&self, dataset: &Dataset) -> Result<Vec<RepoRef>, CallPathPlanError> {
        let n = self.code_context_size as u64;
        if n == 0 || n > MAX_CODE_CONTEXT_SIZE as u64 {
            return Err(SettingsError::ContextSize.into());
        }
        let s = &self.selection;
        if s.tasks_per_repo == 0 {
            return Err(CallPathPlanError::NoTasksAsked);
        }
        if s.path_lengths.is_empty() || s.path_lengths.contains(&0) {
            return Err(CallPathPlanError::PathLengths);
        }
        if !(0.0..=1.0).contains(&s.no_path_share) {
            return Err(CallPathPlanError::NoPathShare(s.no_path_share));
        }
        let languages = self.filter.language_list()?;
        let mut out = Vec::new();
        for (key, repos) in &dataset.languages {
            let Ok(language) = Language::from_name(key) else { continue };
            if languages.as_ref().is_some_and(|ls| !ls.contains(&language)) {
                continue;
            }
            for (repo_index, repo) in repos.iter().enumerate() {
                if self.filter.keeps_repo(key, &repo.repo) {
                    out.push(RepoRef { language, repo_index });
                }
            }
        }
        if out.is_empty() {
            return Err(CallPathPlanError::NoRepos);
        }
        Ok(out)
    }

    /// Build the tasks of `repos` (from [`CallPathPlan::check`]), in their
    /// order; `progress(done, total)` after each repository, on the calling
    /// thread. Natively a repository per thread at a time (each with its
    /// own window builder; the tasks are the same whatever the number), in
    /// wasm32 on the calling thread. The first error in repository order is
    /// returned.
    pub fn build(
        &self,
        dataset: &Dataset,
        repos: &[RepoRef],
        tokenizer: &Tokenizer,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<CallPathBuild, CallPathBuildError> {
        let mut parts: Vec<Option<Result<RepoPart, CallPathBuildError>>> =
            (0..repos.len()).map(|_| None).collect();
        #[cfg(not(target_arch = "wasm32"))]
        let threads = crate::prompt::context::default_threads().clamp(1, repos.len().max(1));
        #[cfg(target_arch = "wasm32")]
        let threads = 1;
        if threads > 1 {
            #[cfg(not(target_arch = "wasm32"))]
            {
                let next = std::sync::atomic::AtomicUsize::new(0);
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::scope(|s| {
                    for _ in 0..threads {
                        let tx = tx.clone();
                        let next = &next;
                        s.spawn(move || {
                            let mut windows =
                                Windows::new(dataset, self.code_context_size, tokenizer);
                            loop {
                                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(r) = repos.get(i) else { break };
                                let part = self.build_repo(&mut windows, dataset, *r);
                                if tx.send((i, part)).is_err() {
                                    break;
                                }
                            }
                        });
                    }
                    drop(tx);
                    for (done, (i, part)) in rx.iter().enumerate() {
                        parts[i] = Some(part);
                        progress(done + 1, repos.len());
                    }
                });
            }
        } else {
            let mut windows = Windows::new(dataset, self.code_context_size, tokenizer);
            for (i, r) in repos.iter().enumerate() {
                parts[i] = Some(self.build_repo(&mut windows, dataset, *r));
                progress(i + 1, repos.len());
            }
        }
        let mut out = CallPathBuild::default();
        // Every index was taken by one thread: every slot is filled.
        for part in parts.into_iter().flatten() {
            let part = part?;
            out.tasks.extend(part.tasks);
            out.shortfalls.extend(part.shortfall);
        }
        Ok(out)
    }

    /// One repository's tasks, and its shortfall if it gave fewer.
    fn build_repo(
        &self,
        windows: &mut Windows,
        dataset: &Dataset,
        r: RepoRef,
    ) -> Result<RepoPart, CallPathBuildError> {
        let mut part = RepoPart { tasks: Vec::new(), shortfall: None };
        let Some(repo) = dataset.repos(r.language.name()).and_then(|l| l.get(r.repo_index)) else {
            return Ok(part);
        };
        let graph = call_graph(repo, r.language)?;
        let seed = crate::curate::default_seed(&repo.repo);
        let chosen = select_fitting(&graph, &self.selection, seed, |pair| {
            let nodes = functions_of(pair);
            Ok::<bool, ContextError>(
                windows.place(r.language, r.repo_index, &graph, &nodes, 0.0)?.is_some(),
            )
        })?;
        let n = chosen.pairs.len();
        for (i, pair) in chosen.pairs.iter().enumerate() {
            let placement = (i as f64 + 0.5) / n as f64;
            let nodes = functions_of(pair);
            // Selection found it fits; a window is there to place.
            let Some(w) = windows.place(r.language, r.repo_index, &graph, &nodes, placement)?
            else {
                continue;
            };
            part.tasks.push(self.task(r.language, &repo.repo, &graph, pair, w));
        }
        if part.tasks.len() < self.selection.tasks_per_repo {
            part.shortfall = Some(Shortfall {
                language: r.language.name().to_string(),
                repo: repo.repo.clone(),
                given: part.tasks.len(),
                asked: self.selection.tasks_per_repo,
                unfit: chosen.unfit,
            });
        }
        Ok(part)
    }

    fn task(
        &self,
        language: Language,
        repo: &str,
        graph: &CallGraph,
        pair: &PathPair,
        w: PathWindow,
    ) -> CallPathTask {
        let source = FunctionRef::of(&graph.nodes[pair.source]);
        let target = FunctionRef::of(&graph.nodes[pair.target]);
        CallPathTask {
            task: task::TASK.to_string(),
            repo: repo.to_string(),
            language: language.name().to_string(),
            question: task::question(&source, &target),
            source,
            target,
            path: pair.path.iter().map(|&n| graph.nodes[n].name.clone()).collect(),
            no_path: pair.no_path,
            depths: w.depths,
            placement: w.placement,
            code_context_size: self.code_context_size,
            code_context_ntokens: if self.closed_book { 0 } else { w.code_context_ntokens },
            instruction: task::INSTRUCTION.to_string(),
            code_context: if self.closed_book { String::new() } else { w.code_context },
            template: task::TEMPLATE.to_string(),
            protocol: if self.closed_book { task::CLOSED_BOOK_LABEL } else { task::LABEL }
                .to_string(),
            closed_book: self.closed_book,
        }
    }
}

/// The functions a pair's window must hold: the gold path's, or the source
/// and the target of a no-path task.
fn functions_of(pair: &PathPair) -> Vec<usize> {
    if pair.path.is_empty() {
        vec![pair.source, pair.target]
    } else {
        pair.path.clone()
    }
}
