//! Scoring as `compute_score` does it (docs/parity.md S3, S4, S6, S7):
//! `needle_evaluator` for one reply, the per-task records, and the pass@1
//! table over thresholds × languages (the checks behind `repoqa verify` are in
//! [`crate::review::verify`]).
//!
//! Official behaviour is the default ([`Candidates::Needles`]). The paper's
//! stricter rule ([`Candidates::Context`]: every function of the repo that
//! appears in the prompt competes with the needle) is available as a clearly
//! labelled, non-official option.

use std::collections::HashMap;
use std::rc::Rc;

use indexmap::IndexMap;
use serde_json::{Map, Value};
use thiserror::Error;

use crate::code::lang::Language;
use crate::input::dataset::{Dataset, Repo};
use crate::report::{similarity_number, ModelOutput, TaskResult};
use crate::scoring::bleu::{BleuSteps, References};
use crate::scoring::sanitize::{remove_comments, sanitize_detailed, SanitizeSource};

#[derive(Debug, Error)]
pub enum ScoreError {
    #[error("outputs line {line}: unknown language {language:?} (expected python, cpp, java, typescript, rust or go)")]
    UnknownLanguage { line: usize, language: String },
    #[error("outputs line {line}: the dataset has no language {language:?}")]
    LanguageNotInDataset { line: usize, language: String },
    #[error("outputs line {line}: repo {repo:?} is not in the dataset's {language} repos")]
    RepoNotFound { line: usize, language: String, repo: String },
    #[error(
        "dataset: repo {repo:?}: needle {name:?} points to {path:?}, which is not in its content"
    )]
    MissingFile { repo: String, name: String, path: String },
    #[error(
        "outputs line {line}: --candidates context needs the task's \"code_context\" field, which is missing"
    )]
    MissingCodeContext { line: usize },
    #[error("no tasks to score (the official scorer fails on an empty outputs file)")]
    NoTasks,
    #[error("{0}")]
    Message(String),
}

/// The thresholds of the official table, as the Python literals.
pub const THRESHOLDS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// Their keys in the JSON file (`repr` of each float).
pub const THRESHOLD_KEYS: [&str; 11] =
    ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"];

/// Which functions a reply is compared against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Candidates {
    /// Official: the repo's needles, in needle order.
    #[default]
    Needles,
    /// NOT OFFICIAL (the paper's stricter description): every function of
    /// the repo whose whole-line text occurs verbatim in the task's
    /// `code_context`, in dataset order (files as listed in `functions`,
    /// functions in file order), then any needle not among them. Scores
    /// made this way are not comparable with published ones.
    #[cfg_attr(
        feature = "cli",
        value(help = "NOT OFFICIAL: every repo function that appears in the prompt")
    )]
    Context,
}

impl Candidates {
    /// The `--candidates` value (also `Display` and `FromStr`).
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// How replies are scored; stored by the page as it is (serde).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ScoreOptions {
    /// `--ignore-comments`: strip comments from the reply and every reference.
    pub ignore_comments: bool,
    pub candidates: Candidates,
}

/// A function a reply can be matched to.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub name: String,
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
    pub is_needle: bool,
    /// `"\n".join(content[path].split("\n")[start_line:end_line])` (S3).
    pub reference: String,
    /// What BLEU compares: `reference`, without comments if requested.
    pub compared: String,
}

/// The similarity of the reply to one candidate.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CandidateScore {
    pub name: String,
    pub path: String,
    pub is_needle: bool,
    pub similarity: f64,
}

/// `needle_evaluator`'s result, with what the UI needs to explain it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Evaluation {
    /// `sanitize_output(reply)`.
    pub sanitized: String,
    pub sanitize_source: SanitizeSource,
    /// What BLEU saw: `sanitized`, without comments if requested.
    pub compared: String,
    /// The candidate with the strictly greatest positive similarity (first
    /// wins ties); `None` when every similarity is 0.
    pub best_target: Option<String>,
    /// Its similarity; 0 when `best_target` is `None` (the official JSON
    /// then shows the int `0`).
    pub best_similarity: f64,
    /// `best_target == name` of the task.
    pub is_best_similar: bool,
    /// Similarity against every candidate, in candidate order.
    pub candidates: Vec<CandidateScore>,
}

impl Evaluation {
    /// Pass at threshold `t` (S6).
    pub fn passes(&self, t: f64) -> bool {
        self.is_best_similar && self.best_similarity >= t
    }
}

/// `needle_evaluator(reply, ground_truth, repo, lang, ignore_comments)` over
/// prepared candidates.
pub fn evaluate_reply(
    reply: &str,
    ground_truth: &str,
    lang: Language,
    ignore_comments: bool,
    candidates: &[Candidate],
) -> Evaluation {
    let (s, compared) = compared_text(reply, lang, ignore_comments);
    // The references are prepared and the reply streamed once: memory in
    // proportion to the candidates, not to the reply (see `References`).
    let texts: Vec<&str> = candidates.iter().map(|c| c.compared.as_str()).collect();
    let similarities = References::new(&texts).similarities(&compared);
    let mut best_target: Option<&str> = None;
    let mut best_similarity = 0.0;
    let mut scores = Vec::with_capacity(candidates.len());
    for (c, &similarity) in candidates.iter().zip(&similarities) {
        // Strict `>` from 0: ties keep the earlier candidate, zeros never win.
        if similarity > best_similarity {
            best_similarity = similarity;
            best_target = Some(&c.name);
        }
        scores.push(CandidateScore {
            name: c.name.clone(),
            path: c.path.clone(),
            is_needle: c.is_needle,
            similarity,
        });
    }
    Evaluation {
        is_best_similar: best_target == Some(ground_truth),
        best_target: best_target.map(str::to_string),
        best_similarity,
        sanitized: s.text,
        sanitize_source: s.source,
        compared,
        candidates: scores,
    }
}

/// What BLEU compares of a reply: `sanitize_output(reply)`, without
/// comments if requested.
fn compared_text(
    reply: &str,
    lang: Language,
    ignore_comments: bool,
) -> (crate::scoring::sanitize::Sanitized, String) {
    let s = sanitize_detailed(reply, lang);
    let compared = if ignore_comments { remove_comments(&s.text, lang) } else { s.text.clone() };
    (s, compared)
}

/// One similarity of a scored reply, step by step: the two texts BLEU
/// compared (the reply's function and the candidate, as the options make
/// them) and [`BleuSteps`], computed by the scorer's own code.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Explanation {
    pub candidate: String,
    pub path: String,
    pub hypothesis: String,
    pub reference: String,
    pub steps: BleuSteps,
}

/// Python's `"\n".join(text.split("\n")[start:end])` for non-negative bounds.
pub fn whole_lines(text: &str, start: usize, end: usize) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let end = end.min(lines.len());
    let start = start.min(end);
    lines[start..end].join("\n")
}

/// The candidates of one repo, prepared once (comment removal parses each
/// reference with tree-sitter, so it is worth caching).
#[derive(Debug)]
struct RepoCandidates {
    needles: Vec<Candidate>,
    /// Context mode only: every function record (needles marked), in order.
    functions: Vec<Candidate>,
}

/// Scores model outputs against a dataset, caching each repo's references.
pub struct Scorer<'d> {
    dataset: &'d Dataset,
    pub options: ScoreOptions,
    cache: HashMap<(String, String), Rc<RepoCandidates>>,
}

impl<'d> Scorer<'d> {
    pub fn new(dataset: &'d Dataset, options: ScoreOptions) -> Scorer<'d> {
        Scorer { dataset, options, cache: HashMap::new() }
    }

    /// Score one output line.
    pub fn evaluate(&mut self, output: &ModelOutput) -> Result<Evaluation, ScoreError> {
        let ignore = self.options.ignore_comments;
        self.with_candidates(output, |lang, candidates| {
            evaluate_reply(&output.reply, &output.name, lang, ignore, candidates)
        })
    }

    /// `f` of `output`'s language and the candidates its reply is compared
    /// with: the repo's needles, or (`--candidates context`) the functions
    /// its prompt shows. The one choice `evaluate` and `explain` share.
    fn with_candidates<T>(
        &mut self,
        output: &ModelOutput,
        f: impl FnOnce(Language, &[Candidate]) -> T,
    ) -> Result<T, ScoreError> {
        let lang = Language::from_name(&output.language).map_err(|_| {
            ScoreError::UnknownLanguage { line: output.line, language: output.language.clone() }
        })?;
        let prepared = self.repo_candidates(output, lang)?;
        match self.options.candidates {
            Candidates::Needles => Ok(f(lang, &prepared.needles)),
            Candidates::Context => {
                let context = output
                    .code_context()
                    .ok_or(ScoreError::MissingCodeContext { line: output.line })?;
                Ok(f(lang, &context_candidates(&prepared, context)))
            }
        }
    }

    /// The similarity of `output`'s reply to its candidate `name` (at
    /// `path`), step by step; None when the reply has no such candidate.
    pub fn explain(
        &mut self,
        output: &ModelOutput,
        name: &str,
        path: &str,
    ) -> Result<Option<Explanation>, ScoreError> {
        let ignore = self.options.ignore_comments;
        self.with_candidates(output, |lang, candidates| {
            let c = candidates.iter().find(|c| c.name == name && c.path == path)?;
            let (_, compared) = compared_text(&output.reply, lang, ignore);
            let steps = References::new(&[c.compared.as_str()]).steps(&compared).remove(0);
            Some(Explanation {
                candidate: c.name.clone(),
                path: c.path.clone(),
                hypothesis: compared,
                reference: c.compared.clone(),
                steps,
            })
        })
    }

    fn repo_candidates(
        &mut self,
        output: &ModelOutput,
        lang: Language,
    ) -> Result<Rc<RepoCandidates>, ScoreError> {
        let key = (output.language.clone(), output.repo.clone());
        if let Some(c) = self.cache.get(&key) {
            return Ok(c.clone());
        }
        let repos = self.dataset.repos(&output.language).ok_or_else(|| {
            ScoreError::LanguageNotInDataset {
                line: output.line,
                language: output.language.clone(),
            }
        })?;
        // `_get_repo`: the first repo with that name.
        let repo = repos.iter().find(|r| r.repo == output.repo).ok_or_else(|| {
            ScoreError::RepoNotFound {
                line: output.line,
                language: output.language.clone(),
                repo: output.repo.clone(),
            }
        })?;
        let prepared = Rc::new(prepare_repo(repo, lang, self.options)?);
        self.cache.insert(key, prepared.clone());
        Ok(prepared)
    }
}

/// Where a candidate function is: enough to cut its reference out of the repo.
struct Site<'a> {
    name: &'a str,
    path: &'a str,
    start_line: usize,
    end_line: usize,
    is_needle: bool,
}

fn make_candidate(
    repo: &Repo,
    site: Site<'_>,
    lang: Language,
    ignore_comments: bool,
) -> Result<Candidate, ScoreError> {
    let reference =
        repo.reference_text(site.path, site.start_line, site.end_line).ok_or_else(|| {
            ScoreError::MissingFile {
                repo: repo.repo.clone(),
                name: site.name.to_string(),
                path: site.path.to_string(),
            }
        })?;
    let compared =
        if ignore_comments { remove_comments(&reference, lang) } else { reference.clone() };
    Ok(Candidate {
        name: site.name.to_string(),
        path: site.path.to_string(),
        start_line: site.start_line,
        end_line: site.end_line,
        is_needle: site.is_needle,
        reference,
        compared,
    })
}

fn prepare_repo(
    repo: &Repo,
    lang: Language,
    options: ScoreOptions,
) -> Result<RepoCandidates, ScoreError> {
    let ic = options.ignore_comments;
    let mut needles = Vec::with_capacity(repo.needles.len());
    for n in &repo.needles {
        let site = Site {
            name: &n.name,
            path: &n.path,
            start_line: n.start_line,
            end_line: n.end_line,
            is_needle: true,
        };
        needles.push(make_candidate(repo, site, lang, ic)?);
    }
    let mut functions = Vec::new();
    if options.candidates == Candidates::Context {
        for (path, records) in &repo.functions {
            for f in records {
                let is_needle = repo.needles.iter().any(|n| n.name == f.name && &n.path == path);
                let site = Site {
                    name: &f.name,
                    path,
                    start_line: f.start_line,
                    end_line: f.end_line,
                    is_needle,
                };
                functions.push(make_candidate(repo, site, lang, ic)?);
            }
        }
    }
    Ok(RepoCandidates { needles, functions })
}

/// Context mode: functions visible in the prompt, then missing needles.
fn context_candidates(prepared: &RepoCandidates, context: &str) -> Vec<Candidate> {
    let mut chosen: Vec<Candidate> = prepared
        .functions
        .iter()
        .filter(|f| {
            f.is_needle || (!f.reference.is_empty() && context.contains(f.reference.as_str()))
        })
        .cloned()
        .collect();
    for n in &prepared.needles {
        if !chosen.iter().any(|c| c.is_needle && c.name == n.name && c.path == n.path) {
            chosen.push(n.clone());
        }
    }
    chosen
}

/// The per-task record `compute_score` writes for an output.
pub fn task_result(output: &ModelOutput, e: &Evaluation) -> TaskResult {
    TaskResult {
        repo: output.repo.clone(),
        name: output.name.clone(),
        needle_position: output.position_ratio.clone(),
        is_best_similar: e.is_best_similar,
        best_similar_score: similarity_number(e.best_target.as_deref(), e.best_similarity),
        best_target: e.best_target.clone(),
        token_start: output.needle_token_start.clone(),
        token_end: output.needle_token_end.clone(),
    }
}

/// One row of the table: `all` or a language.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreRow {
    pub name: String,
    /// Tasks in the row.
    pub n: usize,
    /// Tasks passed at each threshold.
    pub passed: [usize; 11],
    /// pass@1 at each threshold: `np.mean` of 0/1 values, i.e. the exact
    /// sum divided by n once.
    pub pass_at_1: [f64; 11],
}

/// The `scores` table: `all`, then languages in order of first appearance.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreTable {
    pub rows: Vec<ScoreRow>,
}

fn row(name: &str, tasks: &[&TaskResult]) -> ScoreRow {
    let mut passed = [0usize; 11];
    for t in tasks {
        let score = t.score();
        for (i, th) in THRESHOLDS.iter().enumerate() {
            if t.is_best_similar && score >= *th {
                passed[i] += 1;
            }
        }
    }
    let n = tasks.len();
    let pass_at_1 = passed.map(|c| c as f64 / n as f64);
    ScoreRow { name: name.to_string(), n, passed, pass_at_1 }
}

/// The pass@1 table of `compute_score` from per-task records.
pub fn pass_table(results: &IndexMap<String, Vec<TaskResult>>) -> Result<ScoreTable, ScoreError> {
    let all: Vec<&TaskResult> = results.values().flatten().collect();
    if all.is_empty() {
        return Err(ScoreError::NoTasks);
    }
    let mut rows = vec![row("all", &all)];
    for (lang, tasks) in results {
        // A language key only exists with tasks in the official code; an
        // empty list would make numpy fail, so it is left out here.
        if !tasks.is_empty() {
            rows.push(row(lang, &tasks.iter().collect::<Vec<_>>()));
        }
    }
    Ok(ScoreTable { rows })
}

impl ScoreTable {
    /// `{row: {"0.0": {"pass@1": x}, …}, …}` as in the SCORES file.
    pub fn to_value(&self) -> Value {
        let mut out = Map::new();
        for r in &self.rows {
            let mut cells = Map::new();
            for (key, v) in THRESHOLD_KEYS.iter().zip(r.pass_at_1) {
                let mut cell = Map::new();
                cell.insert("pass@1".into(), crate::python::json::float_value(v));
                cells.insert((*key).into(), Value::Object(cell));
            }
            out.insert(r.name.clone(), Value::Object(cells));
        }
        Value::Object(out)
    }

    pub fn row(&self, name: &str) -> Option<&ScoreRow> {
        self.rows.iter().find(|r| r.name == name)
    }

    /// A plain-text version of the official rich table: percentages with
    /// one decimal, thresholds as columns.
    pub fn render_text(&self, title: &str) -> String {
        let name_w = self.rows.iter().map(|r| r.name.len() + 1).max().unwrap_or(4).max(9);
        let mut out = format!("{title}\n{:<name_w$}", "Threshold");
        for k in THRESHOLD_KEYS {
            out.push_str(&format!(" {k:>5}"));
        }
        out.push_str(&format!(" {:>5}\n", "n"));
        for r in &self.rows {
            let label = if r.name == "all" { "*all".to_string() } else { r.name.clone() };
            out.push_str(&format!("{label:<name_w$}"));
            for v in r.pass_at_1 {
                out.push_str(&format!(" {:>5.1}", 100.0 * v));
            }
            out.push_str(&format!(" {:>5}\n", r.n));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Number};

    fn cand(name: &str, text: &str) -> Candidate {
        Candidate {
            name: name.into(),
            path: "m.py".into(),
            start_line: 0,
            end_line: 1,
            is_needle: true,
            reference: text.into(),
            compared: text.into(),
        }
    }

    fn rec(best: bool, score: Number) -> TaskResult {
        TaskResult {
            repo: "a/b".into(),
            name: "f".into(),
            needle_position: json!(0.5),
            is_best_similar: best,
            best_similar_score: score,
            best_target: None,
            token_start: json!(1),
            token_end: json!(2),
        }
    }

    #[test]
    fn best_target_is_strictly_greatest_first_wins() {
        let f = "def f(x):\n    return x + 1";
        let cands = [cand("g", "def g(y):\n    return y * 2"), cand("f", f), cand("f2", f)];
        let e =
            evaluate_reply(&format!("```python\n{f}\n```"), "f", Language::Python, false, &cands);
        assert_eq!(e.best_target.as_deref(), Some("f"));
        assert!(e.is_best_similar);
        assert_eq!(e.best_similarity, 1.0);
        assert_eq!(e.candidates.len(), 3);
        assert_eq!(e.candidates[2].similarity, 1.0);
        assert!(e.passes(1.0));
    }

    #[test]
    fn no_overlap_means_no_target_and_int_zero() {
        let cands = [cand("f", "def f(x):\n    return x")];
        let e = evaluate_reply("", "f", Language::Python, false, &cands);
        assert_eq!(e.best_target, None);
        assert!(!e.is_best_similar && !e.passes(0.0));
        assert_eq!(similarity_number(None, e.best_similarity), Number::from(0));
    }

    #[test]
    fn whole_lines_like_python_slicing() {
        assert_eq!(whole_lines("a\nb\nc\n", 1, 3), "b\nc");
        assert_eq!(whole_lines("a\nb", 1, 10), "b");
        assert_eq!(whole_lines("a\nb", 5, 10), "");
        assert_eq!(whole_lines("a\nb\n", 0, 3), "a\nb\n");
    }

    #[test]
    fn table_is_count_over_n_with_all_first() {
        let f = |x: f64| Number::from_f64(x).unwrap();
        let mut results = IndexMap::new();
        results.insert(
            "rust".to_string(),
            vec![rec(true, f(0.95)), rec(false, f(0.99)), rec(true, f(0.1))],
        );
        results.insert("python".to_string(), vec![rec(true, f(1.0)), rec(false, Number::from(0))]);
        let t = pass_table(&results).unwrap();
        let names: Vec<&str> = t.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["all", "rust", "python"]);
        assert_eq!(t.rows[0].passed, [3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1]);
        assert_eq!(t.rows[0].pass_at_1[0], 0.6);
        assert_eq!(t.rows[1].pass_at_1[1], 2.0 / 3.0);
        // 0.1 >= 0.1 passes (same double as the Python literal).
        assert_eq!(t.rows[1].passed[1], 2);
        let v = t.to_value();
        assert_eq!(
            crate::python::json::dumps(&v["python"]),
            r#"{"0.0": {"pass@1": 0.5}, "0.1": {"pass@1": 0.5}, "0.2": {"pass@1": 0.5}, "0.3": {"pass@1": 0.5}, "0.4": {"pass@1": 0.5}, "0.5": {"pass@1": 0.5}, "0.6": {"pass@1": 0.5}, "0.7": {"pass@1": 0.5}, "0.8": {"pass@1": 0.5}, "0.9": {"pass@1": 0.5}, "1.0": {"pass@1": 0.5}}"#
        );
        assert!(matches!(pass_table(&IndexMap::new()), Err(ScoreError::NoTasks)));
    }
}
