//! CoReQA (Chen et al., 2025): repository question answering judged by a
//! model. This slice holds its retrieval context setting: a repository's
//! text files cut into chunks as LangChain's `RecursiveCharacterTextSplitter`
//! cuts them ([`splitter`]) and ranked for a question by rank-bm25's
//! `BM25Okapi` ([`bm25`]); both are held equal to those libraries by
//! crates/repoqa-cli/tests/it/coreqa_retrieval.rs. And the paper's filters
//! that pick the GitHub issues questions are made from ([`issues`]).

pub mod answer;
pub mod bm25;
pub mod breakdown;
pub mod elo;
pub mod files;
pub mod generate;
pub mod github;
pub mod issues;
pub mod judge;
pub mod levels;
pub mod pairwise;
pub mod pce;
pub mod prefilter;
pub mod qa;
pub mod report;
pub mod splitter;
pub mod stability;
pub mod text_dir;
pub mod whole_repo;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use bm25::{Bm25Okapi, Bm25Tokenize};
pub use splitter::RecursiveSplitter;

#[derive(Debug, Error)]
pub enum CoreqaError {
    #[error("chunk size must be > 0, got {0}")]
    ChunkSize(usize),
    #[error("chunk overlap ({overlap}) larger than the chunk size ({size})")]
    ChunkOverlap { size: usize, overlap: usize },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}: {what}")]
    TooLarge { path: String, what: String },
    #[error("the repository needs {tokens} tokens as Markdown, more than the window of {window}: use the retrieval setting, or a model with a larger window")]
    TooLong { tokens: usize, window: usize },
    #[error("no text to retrieve from: the repository has no chunks")]
    NoChunks,
    #[error("the repository {repo} has no text files: nothing to answer from (give the folder holding its code)")]
    EmptyRepository { repo: String },
    #[error("the questions of {repo} have no repository folder: a folder {repo} among the repositories given")]
    MissingRepository { repo: String },
    #[error("question {question_id:?}, {setting} setting: the prompt needs {tokens} tokens, more than the window of {window}; nothing was sent (a smaller --top or --chunk-size, or a model with a larger window)")]
    PromptTooLong { question_id: String, setting: String, tokens: usize, window: usize },
    #[error("{path}, line {line}: not a judgment {{\"question_id\", \"first\", \"second\", \"verdict\": first|second|tie}} ({message})")]
    Judgments { path: String, line: usize, message: String },
    #[error("{path}, line {line}: {message}")]
    Qa { path: String, line: usize, message: String },
    #[error("the judge prompt: {message}")]
    Template { message: String },
    #[error("an answer is to question {id:?}, which the QA file does not hold")]
    UnknownQuestion { id: String },
    #[error("the judgment {id} is given twice (the same question, setting, model and repetition): give each judgments file once")]
    DuplicateJudgment { id: String },
    #[error("{message}")]
    Setting { message: String },
    #[error("a stability check judges at least 1 answer at least twice (asked: {answers} answer(s), {repetitions} time(s) each)")]
    StabilitySample { answers: usize, repetitions: u32 },
    #[error("GitHub: {message}")]
    GitHub { message: String },
    #[error("{path}: not a GitHub issues export ({message})")]
    Export { path: String, message: String },
}

/// `record` as one JSON Lines line (with its newline), for a run's outputs.
pub(crate) fn jsonl_line<T: Serialize>(record: &T) -> Result<String, String> {
    serde_json::to_string(record).map(|l| l + "\n").map_err(|e| e.to_string())
}

/// `bytes` as text without a leading BOM, or an error naming the line of
/// the first byte that is not UTF-8.
pub(crate) fn utf8_text<'b>(bytes: &'b [u8], name: &str) -> Result<&'b str, CoreqaError> {
    let text = std::str::from_utf8(bytes).map_err(|e| CoreqaError::Qa {
        path: name.to_string(),
        line: 1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count(),
        message: "not UTF-8".into(),
    })?;
    Ok(text.strip_prefix(crate::input::limits::BOM).unwrap_or(text))
}

/// The records of a JSON Lines file (blank lines skipped), a line cut by a killed run (the last, without its newline)
/// left out when `resuming`; the first bad line is `bad((line, message))`.
pub(crate) fn read_lines<T: serde::de::DeserializeOwned>(
    text: &str,
    resuming: bool,
    bad: impl Fn((usize, String)) -> CoreqaError,
) -> Result<Vec<T>, CoreqaError> {
    let text = if resuming { &text[..crate::llm::runlog::complete_prefix_len(text)] } else { text };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(line).map_err(|e| bad((i + 1, e.to_string())))?);
    }
    Ok(out)
}

/// The fence a Markdown line opens or closes (``` or ~~~ after at most
/// three spaces), if any: the one rule for "a code block" in issues and
/// questions.
pub fn fence_marker(line: &str) -> Option<&'static str> {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return None;
    }
    ["```", "~~~"].into_iter().find(|m| rest.starts_with(m))
}

/// A text file of a repository: its `/`-separated path below the root and
/// its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextFile {
    pub path: String,
    pub text: String,
}

/// One chunk of a file: the `index`-th piece the splitter cut from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub path: String,
    pub index: usize,
    pub text: String,
}

/// A chunk retrieved for a question, with its BM25 score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Retrieved {
    pub path: String,
    pub index: usize,
    pub score: f64,
}

/// The chunks of `files`, in file order, each file's in the splitter's order.
pub fn chunk_files(files: &[TextFile], splitter: &RecursiveSplitter) -> Vec<Chunk> {
    files
        .iter()
        .flat_map(|f| {
            splitter.split_text(&f.text).into_iter().enumerate().map(|(index, text)| Chunk {
                path: f.path.clone(),
                index,
                text,
            })
        })
        .collect()
}

/// A chunk retrieved for a question, and which of its two queries found it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuestionChunk {
    #[serde(flatten)]
    pub chunk: Retrieved,
    /// `"text"` (the question's prose) or `"code"` (its code snippets).
    #[serde(rename = "for")]
    pub found_for: String,
}

/// CoReQA's retrieval context of a question: the `top_each` best chunks for
/// its prose, then the `top_each` best for its code snippets (none when it
/// has none), a chunk found by both listed once, under the prose (so at
/// most 2 × `top_each`: the paper's 5 + 5).
pub fn question_context(
    chunks: &[Chunk],
    index: &Bm25Okapi,
    question: &str,
    tokenize: Bm25Tokenize,
    top_each: usize,
) -> Vec<QuestionChunk> {
    let (prose, code) = qa::question_queries(question);
    let mut out: Vec<QuestionChunk> = Vec::new();
    for (query, label) in [(prose, "text"), (code, "code")] {
        if tokenize.tokens(&query).is_empty() {
            continue;
        }
        for chunk in retrieve(chunks, index, &query, tokenize, top_each) {
            if !out.iter().any(|q| q.chunk.path == chunk.path && q.chunk.index == chunk.index) {
                out.push(QuestionChunk { chunk, found_for: label.to_string() });
            }
        }
    }
    out
}

/// The `top` chunks that score best for `query`, best first; equal scores
/// keep chunk order.
pub fn retrieve(
    chunks: &[Chunk],
    index: &Bm25Okapi,
    query: &str,
    tokenize: Bm25Tokenize,
    top: usize,
) -> Vec<Retrieved> {
    let scores = index.scores(&tokenize.tokens(query));
    let mut order: Vec<usize> = (0..chunks.len()).collect();
    // A stable sort: ties stay in chunk order.
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    order
        .into_iter()
        .take(top)
        .map(|i| Retrieved {
            path: chunks[i].path.clone(),
            index: chunks[i].index,
            score: scores[i],
        })
        .collect()
}
