//! `repoqa coreqa`: CoReQA's retrieval context setting over a repository
//! folder. `chunk` prints the chunks LangChain's
//! `RecursiveCharacterTextSplitter` cuts from every text file; `retrieve`
//! ranks them for a question with rank-bm25's `BM25Okapi`; `issues` applies
//! the paper's filters to a GitHub issues export; `compare` turns a judge's
//! pairwise verdicts into Elo ratings, records, the position-bias table and
//! the first-position preference; `breakdown` splits a judge's scores by
//! question length and by issue year.

use std::path::PathBuf;

use crate::text_dir::read_text_dir;
use repoqa::coreqa::answer::read_answers;
use repoqa::coreqa::breakdown::breakdowns;
use repoqa::coreqa::elo::{compare, read_judgments, BOOTSTRAP_ROUNDS, BOOTSTRAP_SEED};
use repoqa::coreqa::issues::{filter_issues, read_export};
use repoqa::coreqa::judge::read_judge_lines;
use repoqa::coreqa::pairwise::read_pair_lines;
use repoqa::coreqa::pce::Discrepancy;
use repoqa::coreqa::qa::read_qa;
use repoqa::coreqa::report::report;
use repoqa::coreqa::splitter::{DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE};
use repoqa::coreqa::text_dir::TextDirLimits;
use repoqa::coreqa::whole_repo::repo_markdown;
use repoqa::coreqa::{
    chunk_files, question_context, retrieve, Bm25Okapi, Bm25Tokenize, Chunk, RecursiveSplitter,
};

use crate::error::{fs_read, fs_read_text, CliError};
use crate::stdout::{out, outln};

#[derive(clap::Subcommand)]
pub enum CoreqaCommand {
    /// Ask a model every question of a QA file in the chosen context
    /// settings, through the same runner as `repoqa run` (retries, run log,
    /// resume): JSON Lines of {"question_id", "setting", "model", "answer"}.
    Answer(Box<crate::coreqa_ask::AnswerArgs>),
    /// Grade answers with a judge model (accuracy, completeness, relevance,
    /// clarity, 1 to 10; temperature 0.2; each answer --repetitions times)
    /// and print the mean ± standard deviation per model, setting and
    /// language beside the answers' BLEU.
    Judge(Box<crate::coreqa_ask::JudgeArgs>),
    /// Judge pairs of models' answers in one setting, each pair in both
    /// orders (Verdict: A, B or tie; temperature 0.2), and print Elo, the
    /// records and the position-bias table as `compare` does, with the
    /// judgments played in question order (the file's lines come in the
    /// order replies arrive).
    Pairwise(Box<crate::coreqa_ask::PairwiseArgs>),
    /// Make a QA file from a GitHub issues export: the paper's filters
    /// pick the issues, then a model rewrites each into a question (its code
    /// snippets attached) and writes its reference answer from the issue's
    /// discussion, through the same runner as `repoqa run`.
    Build(Box<crate::coreqa_ask::GenerateArgs>),
    /// Fetch a repository's closed issues, with the comments the paper's
    /// filters need, from GitHub's REST API into an export (`--out`) that
    /// `issues` and `build` read; the token from GITHUB_TOKEN; GitHub's
    /// rate limit waited out; a fetch cut short goes on when run again.
    Fetch(Box<crate::coreqa_fetch::FetchArgs>),
    /// Print a default prompt (a starting point for a --template of your own).
    Prompt {
        #[arg(value_enum)]
        which: PromptKind,
    },
    /// The chunks of every text file of a repository folder (sorted path
    /// order), as RecursiveCharacterTextSplitter(chunk_size, chunk_overlap)
    /// .split_text cuts them with the default separators.
    Chunk {
        #[command(flatten)]
        chunks: ChunkArgs,
        /// Print a JSON list of {"path", "index", "text"}.
        #[arg(long)]
        json: bool,
    },
    /// The chunks that score best for a question by BM25 Okapi (rank-bm25's
    /// BM25Okapi: k1 1.5, b 0.75, epsilon 0.25), best first, ties in chunk
    /// order. With --qa: each question's retrieval context (the best --top
    /// for its prose, then for its code snippets).
    Retrieve {
        #[command(flatten)]
        chunks: ChunkArgs,
        /// The question.
        #[arg(long, required_unless_present = "qa", conflicts_with = "qa")]
        query: Option<String>,
        /// A CoReQA QA file (JSON list or JSON Lines of {"id",
        /// "repository", "question", "reference_answer", …}): the context
        /// of every question, as [{"id", "chunks": [{"path", "index",
        /// "score", "for": "text"|"code"}]}].
        #[arg(long)]
        qa: Option<PathBuf>,
        /// How many chunks (per query with --qa: the paper takes 5 for the
        /// question text and 5 for its code).
        #[arg(long, default_value_t = 5)]
        top: usize,
        /// How chunks and the question become BM25 tokens: `split` is
        /// Python's str.split().
        #[arg(long, value_enum, default_value_t = Bm25Tokenize::Split)]
        bm25_tokenize: Bm25Tokenize,
        /// Print a JSON list of {"path", "index", "score"}.
        #[arg(long)]
        json: bool,
    },
    /// The whole repository as Markdown (CoReQA's third context setting),
    /// when its token count fits --window; otherwise an error saying how
    /// many tokens it needs.
    Whole {
        /// The repository folder (text files as for `chunk`).
        #[arg(long)]
        repo: PathBuf,
        /// The answering model's context window, in tokens.
        #[arg(long)]
        window: usize,
        /// The name in the Markdown's title (default: the folder's name).
        #[arg(long)]
        name: Option<String>,
        /// HF tokenizer.json that counts the tokens (default:
        /// $REPOQA_TOKENIZER or .tools/tokenizer.json, CodeLlama's).
        #[arg(long)]
        tokenizer: Option<PathBuf>,
        /// Print {"tokens", "window", "fits"} instead of the Markdown (and
        /// succeed either way).
        #[arg(long)]
        json: bool,
    },
    /// The paper's filters over a GitHub REST API issues export
    /// ({"repository", "issues": [...], "comments": {"<number>": [...]}}):
    /// how many issues each removed, and the issues kept.
    Issues {
        /// The export (JSON).
        #[arg(long)]
        export: PathBuf,
        /// Print {"repository", "issues", "removed": {filter: n}, "kept": [numbers]}.
        #[arg(long)]
        json: bool,
    },
    /// Elo ratings (K 32, from 1000, in the file's order; and a bootstrap
    /// over shuffled orders), wins/ties/losses, the position-bias table and
    /// the first-position preference of pairwise judgments (JSONL of {"question_id", "first", "second",
    /// "verdict": "first"|"second"|"tie"}).
    Compare {
        /// The judgments (JSONL).
        #[arg(long)]
        judgments: PathBuf,
        /// Shuffles for the bootstrap interval.
        #[arg(long, default_value_t = BOOTSTRAP_ROUNDS)]
        bootstrap: usize,
        /// Seed of the shuffles.
        #[arg(long, default_value_t = BOOTSTRAP_SEED)]
        seed: u64,
        /// Print the whole comparison as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The paper's breakdowns of a judge's scores: by question length (the
    /// QA file's questions in five quintiles by characters) and by the year
    /// each question's issue was opened; per model and setting, the mean
    /// over a group's questions of each question's mean over its
    /// judgments
    Breakdown {
        /// The QA file the answers were to.
        #[arg(long)]
        qa: PathBuf,
        /// A judgments file of `repoqa coreqa judge` (the option repeated
        /// for several).
        #[arg(long, required = true)]
        judgments: Vec<PathBuf>,
        /// Print {"by_question_length", "by_issue_year"}, each {"groups",
        /// "cells"}, as JSON.
        #[arg(long)]
        json: bool,
    },
    /// The CoReQA evaluator's tables (the paper's Tables V and IV): per
    /// model and context setting, then per language, each criterion's mean
    /// ± standard deviation over the answer runs, PCE against a baseline
    /// model, the answers' BLEU and the share of judgments at each of the
    /// five levels
    Report {
        /// The QA file the answers were to.
        #[arg(long)]
        qa: PathBuf,
        /// A judgments file of `repoqa coreqa judge` (repeated for several).
        #[arg(long, required = true)]
        judgments: Vec<PathBuf>,
        /// An answers file of `repoqa coreqa answer`, for the BLEU column
        /// (repeated for several).
        #[arg(long)]
        answers: Vec<PathBuf>,
        /// A judgments file of `repoqa coreqa pairwise`, for PCE (repeated
        /// for several settings).
        #[arg(long)]
        pairwise: Vec<PathBuf>,
        /// The model PCE is against (50.0 by construction; the paper's is
        /// DeepSeek-V2).
        #[arg(long)]
        baseline: Option<String>,
        /// How a win in one order and a tie in the other counts in PCE: a
        /// tie (the paper does not say; our default) or the decided verdict.
        #[arg(long, default_value = "tie", value_parser = ["tie", "decided"])]
        pce_discrepancy: String,
        /// Print {"baseline", "discrepancy", "overall", "by_language",
        /// "notes"} as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The prompts `repoqa coreqa prompt` prints.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum PromptKind {
    /// `build --prefilter`'s prompt (keep or drop an issue).
    Prefilter,
    /// `build`'s question prompt.
    Question,
    /// `build`'s reference-answer prompt.
    Reference,
    /// `judge`'s prompt.
    Judge,
    /// `pairwise`'s prompt.
    Pairwise,
}

#[derive(clap::Args)]
pub struct ChunkArgs {
    /// The repository folder: every regular file whose bytes are UTF-8
    /// without NUL, outside `.git`; links are not followed.
    #[arg(long)]
    repo: PathBuf,
    /// Most characters (code points) of a chunk (LangChain's default).
    #[arg(long, default_value_t = DEFAULT_CHUNK_SIZE)]
    chunk_size: usize,
    /// Characters a chunk may share with the one before (LangChain's default).
    #[arg(long, default_value_t = DEFAULT_CHUNK_OVERLAP)]
    chunk_overlap: usize,
}

impl ChunkArgs {
    fn chunks(&self) -> Result<Vec<Chunk>, CliError> {
        let splitter = RecursiveSplitter::new(self.chunk_size, self.chunk_overlap)
            .map_err(|e| CliError::usage(format!("--chunk-size/--chunk-overlap: {e}")))?;
        let dir = read_text_dir(&self.repo, TextDirLimits::default())?;
        for (path, why) in &dir.skipped {
            eprintln!("repoqa: coreqa: left out {path}: {why}");
        }
        Ok(chunk_files(&dir.files, &splitter))
    }
}

pub fn run(command: CoreqaCommand) -> Result<(), CliError> {
    match command {
        CoreqaCommand::Answer(a) => return crate::coreqa_ask::answer(*a),
        CoreqaCommand::Judge(a) => return crate::coreqa_ask::judge(*a),
        CoreqaCommand::Pairwise(a) => return crate::coreqa_ask::pairwise(*a),
        CoreqaCommand::Build(a) => return crate::coreqa_ask::generate(*a),
        CoreqaCommand::Fetch(a) => return crate::coreqa_fetch::fetch(*a),
        CoreqaCommand::Prompt { which } => out!(
            "{}",
            match which {
                PromptKind::Prefilter => repoqa::coreqa::prefilter::PREFILTER_TEMPLATE,
                PromptKind::Question => repoqa::coreqa::generate::QUESTION_TEMPLATE,
                PromptKind::Reference => repoqa::coreqa::generate::REFERENCE_TEMPLATE,
                PromptKind::Judge => repoqa::coreqa::judge::JUDGE_TEMPLATE,
                PromptKind::Pairwise => repoqa::coreqa::pairwise::PAIRWISE_TEMPLATE,
            }
        ),
        CoreqaCommand::Chunk { chunks, json } => {
            let chunks = chunks.chunks()?;
            if json {
                // Strings and numbers: serializing cannot fail.
                outln!("{}", serde_json::to_string(&chunks).unwrap_or_default());
            } else {
                for c in &chunks {
                    outln!("{} #{}: {} characters", c.path, c.index, c.text.chars().count());
                }
                eprintln!("repoqa: coreqa: {} chunks", chunks.len());
            }
        }
        CoreqaCommand::Compare { judgments, bootstrap, seed, json } => {
            let name = judgments.display().to_string();
            let list = read_judgments(&fs_read(&judgments, "judgments file")?, &name)?;
            crate::coreqa_ask::print_comparison(&compare(&list, bootstrap, seed), json);
        }
        CoreqaCommand::Breakdown { qa, judgments, json } => {
            let items = read_qa(&fs_read(&qa, "QA file")?, &qa.display().to_string())?;
            let mut judged = Vec::new();
            for path in &judgments {
                let text = fs_read_text(path, "judgments file")?;
                judged.extend(read_judge_lines(&text, &path.display().to_string(), false)?);
            }
            let b = breakdowns(&items, &judged)?;
            if json {
                // Finite means and strings: serializing cannot fail.
                outln!("{}", serde_json::to_string(&b).unwrap_or_default());
            } else {
                out!("{}", b.render_text());
            }
        }
        CoreqaCommand::Report {
            qa,
            judgments,
            answers,
            pairwise,
            baseline,
            pce_discrepancy,
            json,
        } => {
            let items = read_qa(&fs_read(&qa, "QA file")?, &qa.display().to_string())?;
            let mut judged = Vec::new();
            for path in &judgments {
                let text = fs_read_text(path, "judgments file")?;
                judged.extend(read_judge_lines(&text, &path.display().to_string(), false)?);
            }
            let mut answered = Vec::new();
            for path in &answers {
                let text = fs_read_text(path, "answers file")?;
                answered.extend(read_answers(&text, &path.display().to_string(), false)?);
            }
            let mut pairs = Vec::new();
            for path in &pairwise {
                let text = fs_read_text(path, "pairwise judgments file")?;
                pairs.extend(read_pair_lines(&text, &path.display().to_string(), false)?);
            }
            // clap allows only the two names.
            let rule = Discrepancy::from_name(&pce_discrepancy).unwrap_or_default();
            let r = report(&items, &judged, &answered, &pairs, baseline.as_deref(), rule);
            if json {
                // Finite figures and strings: serializing cannot fail.
                outln!("{}", serde_json::to_string(&r).unwrap_or_default());
            } else {
                out!("{}", r.render_text());
            }
        }
        CoreqaCommand::Whole { repo, window, name, tokenizer, json } => {
            let path = tokenizer.unwrap_or_else(crate::tokenizer_path::default_tokenizer_path);
            let tok = repoqa::code::tokenize::Tokenizer::from_file(&path)?;
            let dir = read_text_dir(&repo, TextDirLimits::default())?;
            for (path, why) in &dir.skipped {
                eprintln!("repoqa: coreqa: left out {path}: {why}");
            }
            let name = name.unwrap_or_else(|| {
                repo.file_name().map_or_else(
                    || repo.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                )
            });
            let markdown = repo_markdown(&name, &dir.files);
            let tokens = tok.tokens(&markdown)?.len();
            if json {
                outln!(
                    "{}",
                    serde_json::json!({"tokens": tokens, "window": window, "fits": tokens <= window})
                );
            } else if tokens > window {
                return Err(repoqa::coreqa::CoreqaError::TooLong { tokens, window }.into());
            } else {
                out!("{markdown}");
                eprintln!(
                    "repoqa: coreqa: {} files, {tokens} tokens (window {window})",
                    dir.files.len()
                );
            }
        }
        CoreqaCommand::Issues { export, json } => {
            let name = export.display().to_string();
            let report = filter_issues(&read_export(&fs_read(&export, "issues export")?, &name)?);
            if json {
                // Strings and numbers: serializing cannot fail.
                outln!("{}", serde_json::to_string(&report).unwrap_or_default());
            } else {
                outln!("{}: {} issues", report.repository, report.issues);
                for (filter, n) in &report.removed {
                    outln!("  {:<18} removed {n}", filter.to_string());
                }
                let kept: Vec<String> = report.kept.iter().map(|n| format!("#{n}")).collect();
                outln!("  kept {}: {}", kept.len(), kept.join(" "));
            }
        }
        CoreqaCommand::Retrieve { chunks, query, qa, top, bm25_tokenize, json } => {
            let items = match &qa {
                Some(path) => {
                    let name = path.display().to_string();
                    Some(read_qa(&fs_read(path, "QA file")?, &name)?)
                }
                None => None,
            };
            let chunks = chunks.chunks()?;
            let corpus: Vec<Vec<&str>> =
                chunks.iter().map(|c| bm25_tokenize.tokens(&c.text)).collect();
            let index = Bm25Okapi::new(&corpus).ok_or(repoqa::coreqa::CoreqaError::NoChunks)?;
            if let Some(items) = items {
                let contexts: Vec<serde_json::Value> = items
                    .iter()
                    .map(|item| {
                        let found =
                            question_context(&chunks, &index, &item.question, bm25_tokenize, top);
                        serde_json::json!({"id": item.id, "chunks": found})
                    })
                    .collect();
                if json {
                    outln!("{}", serde_json::Value::Array(contexts));
                } else {
                    for (item, context) in items.iter().zip(&contexts) {
                        let n = context["chunks"].as_array().map_or(0, Vec::len);
                        outln!("{}: {n} chunks", item.id);
                    }
                }
                return Ok(());
            }
            let query = query.unwrap_or_default();
            let found = retrieve(&chunks, &index, &query, bm25_tokenize, top);
            if json {
                // Every chunk has a token, so the mean length is positive and
                // no score is NaN: serializing cannot fail.
                outln!("{}", serde_json::to_string(&found).unwrap_or_default());
            } else {
                for r in &found {
                    outln!("{:>10.4}  {} #{}", r.score, r.path, r.index);
                }
            }
        }
    }
    Ok(())
}
