//! Answering CoReQA questions in the paper's three context settings: the
//! question alone (`none`), with the chunks BM25 retrieves for it
//! (`retrieval`, [`super::question_context`]), or with the whole repository
//! as Markdown (`whole`, [`super::whole_repo`]). Each question and setting
//! is one [`AnswerItem`], asked through the benchmark runner
//! ([`crate::llm::run`]), so answering has RepoQA's retries, faults, run
//! log, resume and truncation check. Every answer is one line of an
//! answers file ([`AnswerLine`], JSON Lines):
//!
//! ```json
//! {"question_id": "acme/widget#8", "setting": "retrieval", "model": "m", "answer": "…"}
//! ```

use serde::{Deserialize, Serialize};

use super::bm25::Bm25Okapi;
use super::qa::QaItem;
use super::splitter::{RecursiveSplitter, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE};
use super::whole_repo::{fence_language, fenced, repo_markdown};
use super::{chunk_files, question_context, Bm25Tokenize, Chunk, CoreqaError, TextFile};
use crate::llm::run::RunItem;
use crate::llm::wire::RequestParams;

/// What the answering model is given besides the question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::EnumString, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ContextSetting {
    /// The question alone.
    None,
    /// The question and the chunks BM25 retrieves for it (5 + 5).
    Retrieval,
    /// The question and the whole repository as Markdown.
    Whole,
}

/// Answers sampled per question and setting by default: the paper's five
/// runs, whose spread it reports per question and per model.
pub const ANSWER_RUNS: u32 = 5;

/// The answering model's default sampling temperature: the paper's 0.2.
pub const ANSWER_TEMPERATURE: f64 = 0.2;

/// The most runs one answering asks for.
pub const MAX_RUNS: u32 = 100;

impl ContextSetting {
    /// Every setting, in the paper's order.
    pub const ALL: [ContextSetting; 3] =
        [ContextSetting::None, ContextSetting::Retrieval, ContextSetting::Whole];
}

/// What goes into one answering prompt besides the question.
#[derive(Clone, Copy, Debug)]
pub enum AnswerContext<'a> {
    None,
    /// Retrieved chunks, best first.
    Chunks(&'a [&'a Chunk]),
    /// The repository as Markdown ([`super::whole_repo::repo_markdown`]).
    Whole(&'a str),
}

impl AnswerContext<'_> {
    pub fn setting(&self) -> ContextSetting {
        match self {
            AnswerContext::None => ContextSetting::None,
            AnswerContext::Chunks(_) => ContextSetting::Retrieval,
            AnswerContext::Whole(_) => ContextSetting::Whole,
        }
    }
}

/// The answering prompt of `qa` with `context`: who answers, the context
/// (if any), the question, what a good answer is.
pub fn answer_prompt(qa: &QaItem, context: AnswerContext<'_>) -> String {
    let mut p = format!(
        "You are an expert on the code repository {}. Answer a question about it.\n",
        qa.repository
    );
    match context {
        AnswerContext::None => {}
        AnswerContext::Chunks(chunks) => {
            p.push_str("\n## Code retrieved from the repository\n");
            for c in chunks {
                p.push_str(&format!(
                    "\n### {} (part {})\n\n{}",
                    c.path,
                    c.index + 1,
                    fenced(fence_language(&c.path), &c.text)
                ));
            }
        }
        AnswerContext::Whole(markdown) => {
            p.push_str("\n## The repository\n\n");
            p.push_str(markdown.trim_end());
            p.push('\n');
        }
    }
    p.push_str(&format!(
        "\n## Question\n\n{}\n\n## Your answer\n\nAnswer the question accurately and completely, \
         as a maintainer of the repository would. Explain the cause or the reasoning, and give \
         code in fenced blocks where it helps.\n",
        qa.question.trim_end()
    ));
    p
}

/// One question asked in one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct AnswerItem {
    pub question_id: String,
    pub setting: ContextSetting,
    /// The model asked (recorded in the answers line).
    pub model: String,
    /// Which sample of this question and setting, from 1 (`--runs`).
    pub run: u32,
    /// How many samples are asked of each question and setting.
    pub runs: u32,
    pub prompt: String,
    /// The prompt's token count (the truncation check's reference).
    pub prompt_ntokens: usize,
}

/// The id an answer is known by in the run log: `question_id::setting`
/// for the first run (the id of files written before runs), then
/// `question_id::setting::run2` and so on.
pub fn answer_id(question_id: &str, setting: ContextSetting, run: u32) -> String {
    if run <= 1 {
        format!("{question_id}::{setting}")
    } else {
        format!("{question_id}::{setting}::run{run}")
    }
}

/// The run of a line that names none: the first (files written before
/// runs, and `--runs 1`, hold one answer per question and setting).
pub(crate) fn first_run() -> u32 {
    1
}

pub(crate) fn is_first_run(run: &u32) -> bool {
    *run == 1
}

impl RunItem for AnswerItem {
    fn whole_replies_only(&self) -> bool {
        true
    }
    fn task_id(&self) -> String {
        answer_id(&self.question_id, self.setting, self.run)
    }
    fn prompt(&self) -> String {
        self.prompt.clone()
    }
    fn prompt_ntokens(&self) -> usize {
        self.prompt_ntokens
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        let line = AnswerLine {
            question_id: self.question_id.clone(),
            setting: self.setting,
            model: self.model.clone(),
            run: self.run,
            answer: reply.to_string(),
            temperature: Some(asked.temperature),
            runs: Some(self.runs),
        };
        super::jsonl_line(&line)
    }
}

/// How the answering prompts are made: the model, the settings, the
/// repository the context settings read, how retrieval picks chunks and
/// the model's window (the whole setting needs it).
#[derive(Clone, Copy, Debug)]
pub struct AnswerSetup<'a> {
    pub model: &'a str,
    pub settings: &'a [ContextSetting],
    /// The repository's name and its text files (sorted by path).
    pub repository: Option<(&'a str, &'a [TextFile])>,
    /// Chunks per query in the retrieval setting (the paper: 5 + 5).
    pub top: usize,
    pub chunk_size: usize,
    pub chunk_overlap: usize,
    pub tokenize: Bm25Tokenize,
    /// The answering model's window in tokens.
    pub window: Option<usize>,
    /// Answers sampled per question and setting (the paper: 5 at
    /// temperature 0.2), each an item of its own with the same prompt.
    pub runs: u32,
}

impl<'a> AnswerSetup<'a> {
    /// The paper's retrieval (5 + 5 chunks, the splitter's defaults, BM25
    /// over whitespace tokens), no repository, no window.
    pub fn new(model: &'a str, settings: &'a [ContextSetting]) -> AnswerSetup<'a> {
        AnswerSetup {
            model,
            settings,
            repository: None,
            top: 5,
            chunk_size: DEFAULT_CHUNK_SIZE,
            chunk_overlap: DEFAULT_CHUNK_OVERLAP,
            tokenize: Bm25Tokenize::Split,
            window: None,
            runs: 1,
        }
    }
}

/// Every question of `qa` in every setting of `setup` (question by
/// question), each prompt counted by `count_tokens`. The retrieval setting
/// chunks the repository and indexes the chunks once; the whole setting
/// is refused, with the tokens it needs, when the repository does not fit
/// the window; a repository without files is refused, and so is any
/// prompt longer than the window when one is given.
pub fn answer_items(
    qa: &[QaItem],
    setup: &AnswerSetup<'_>,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<AnswerItem>, CoreqaError> {
    let mut settings = setup.settings.to_vec();
    settings.sort();
    settings.dedup();
    let needs = |s: ContextSetting| settings.contains(&s);
    let repo = match setup.repository {
        Some(r) => Some(r),
        None if needs(ContextSetting::Retrieval) || needs(ContextSetting::Whole) => {
            return Err(CoreqaError::Setting {
                message: "the retrieval and whole settings need the repository's files".into(),
            })
        }
        None => None,
    };
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut markdown = String::new();
    if let Some((name, files)) = repo {
        if files.is_empty() {
            return Err(CoreqaError::EmptyRepository { repo: name.to_string() });
        }
        if needs(ContextSetting::Retrieval) {
            let splitter = RecursiveSplitter::new(setup.chunk_size, setup.chunk_overlap)?;
            chunks = chunk_files(files, &splitter);
        }
        if needs(ContextSetting::Whole) {
            let Some(window) = setup.window else {
                return Err(CoreqaError::Setting {
                    message: "the whole setting needs the answering model's window in tokens"
                        .into(),
                });
            };
            markdown = repo_markdown(name, files);
            let tokens = count_tokens(&markdown);
            if tokens > window {
                return Err(CoreqaError::TooLong { tokens, window });
            }
        }
    }
    let index = if chunks.is_empty() {
        None
    } else {
        let corpus: Vec<Vec<&str>> =
            chunks.iter().map(|c| setup.tokenize.tokens(&c.text)).collect();
        Bm25Okapi::new(&corpus)
    };
    if needs(ContextSetting::Retrieval) && index.is_none() {
        return Err(CoreqaError::NoChunks);
    }
    let mut items = Vec::with_capacity(qa.len() * settings.len());
    for q in qa {
        for &setting in &settings {
            let picked: Vec<&Chunk>;
            let context = match (setting, &index) {
                (ContextSetting::None, _) => AnswerContext::None,
                (ContextSetting::Whole, _) => AnswerContext::Whole(&markdown),
                (ContextSetting::Retrieval, Some(index)) => {
                    let found =
                        question_context(&chunks, index, &q.question, setup.tokenize, setup.top);
                    picked = found
                        .iter()
                        .filter_map(|f| {
                            chunks
                                .iter()
                                .find(|c| c.path == f.chunk.path && c.index == f.chunk.index)
                        })
                        .collect();
                    AnswerContext::Chunks(&picked)
                }
                (ContextSetting::Retrieval, None) => AnswerContext::None,
            };
            let prompt = answer_prompt(q, context);
            let prompt_ntokens = count_tokens(&prompt);
            // Every prompt fits the window when one is given, before any is sent.
            if let Some(window) = setup.window.filter(|w| prompt_ntokens > *w) {
                return Err(CoreqaError::PromptTooLong {
                    question_id: q.id.clone(),
                    setting: setting.to_string(),
                    tokens: prompt_ntokens,
                    window,
                });
            }
            for run in 1..=setup.runs.max(1) {
                items.push(AnswerItem {
                    question_id: q.id.clone(),
                    setting,
                    model: setup.model.to_string(),
                    run,
                    runs: setup.runs.max(1),
                    prompt_ntokens,
                    prompt: prompt.clone(),
                });
            }
        }
    }
    Ok(items)
}

/// [`answer_items`] over the questions of several repositories: each
/// question answered from its own repository's files (`repos`, by
/// `owner/name`), the items in the QA file's order. Every repository the
/// questions name must be given, and every prompt must fit the window,
/// before any request is sent. `setup.repository` is ignored.
pub fn answer_items_across(
    qa: &[QaItem],
    repos: &[(&str, &[TextFile])],
    setup: &AnswerSetup<'_>,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<AnswerItem>, CoreqaError> {
    let mut items = Vec::with_capacity(qa.len() * setup.settings.len());
    for name in super::qa::repositories(qa) {
        let Some(&(_, files)) = repos.iter().find(|(r, _)| *r == name) else {
            return Err(CoreqaError::MissingRepository { repo: name.to_string() });
        };
        let group: Vec<QaItem> = qa.iter().filter(|q| q.repository == name).cloned().collect();
        let one = AnswerSetup { repository: Some((name, files)), ..*setup };
        items.extend(answer_items(&group, &one, &mut count_tokens)?);
    }
    // Back in the QA file's order (a stable sort keeps the settings' order).
    let at: std::collections::HashMap<&str, usize> =
        qa.iter().enumerate().map(|(i, q)| (q.id.as_str(), i)).collect();
    items.sort_by_key(|i| at.get(i.question_id.as_str()).copied().unwrap_or(usize::MAX));
    Ok(items)
}

/// One line of an answers file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerLine {
    pub question_id: String,
    pub setting: ContextSetting,
    pub model: String,
    /// Which sample, from 1; absent in a file of one run.
    #[serde(default = "first_run", skip_serializing_if = "is_first_run")]
    pub run: u32,
    pub answer: String,
    /// The sampling temperature the reply was asked at (absent in files
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// How many runs were asked of each question and setting (absent in
    /// files written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<u32>,
}

impl AnswerLine {
    pub fn id(&self) -> String {
        answer_id(&self.question_id, self.setting, self.run)
    }
}

/// Read an answers file (JSON Lines; blank lines skipped). A line cut by a
/// killed run (the last, without its newline) is left out when `resuming`;
/// any other bad line is an error naming it.
pub fn read_answers(
    text: &str,
    name: &str,
    resuming: bool,
) -> Result<Vec<AnswerLine>, CoreqaError> {
    super::read_lines(text, resuming, |e| {
        CoreqaError::Qa {
        path: name.to_string(),
        line: e.0,
        message: format!(
            "not an answer {{\"question_id\", \"setting\": none|retrieval|whole, \"model\", \"answer\"}} ({})",
            e.1
        ),
    }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qa() -> QaItem {
        serde_json::from_str(
            r#"{"id": "a/b#1", "repository": "a/b", "question": "Why?\n```py\nf()\n```", "reference_answer": "R"}"#,
        )
        .unwrap()
    }

    #[test]
    fn prompts_carry_the_context_of_their_setting() {
        let none = answer_prompt(&qa(), AnswerContext::None);
        assert!(none.starts_with("You are an expert on the code repository a/b."));
        assert!(none.contains("## Question\n\nWhy?\n```py\nf()\n```\n\n## Your answer"));
        assert!(!none.contains("## Code retrieved"));
        let chunk = Chunk { path: "src/x.py".into(), index: 2, text: "def f():\n    ```".into() };
        let with = answer_prompt(&qa(), AnswerContext::Chunks(&[&chunk]));
        assert!(
            with.contains("### src/x.py (part 3)\n\n````python\ndef f():\n    ```\n````\n"),
            "{with}"
        );
        let whole = answer_prompt(&qa(), AnswerContext::Whole("# Repository a/b\n"));
        assert!(whole.contains("## The repository\n\n# Repository a/b\n\n## Question"));
        assert_eq!(AnswerContext::Whole("").setting(), ContextSetting::Whole);
    }

    #[test]
    fn an_empty_repository_and_a_prompt_over_the_window_are_refused_before_anything_is_asked() {
        let qa = vec![qa()];
        let words = |t: &str| t.split_whitespace().count();
        for setting in [[ContextSetting::Retrieval], [ContextSetting::Whole]] {
            let setup = AnswerSetup {
                repository: Some(("a/b", &[])),
                window: Some(1000),
                ..AnswerSetup::new("m", &setting)
            };
            let e = answer_items(&qa, &setup, words).unwrap_err();
            assert!(matches!(e, CoreqaError::EmptyRepository { .. }), "{}: {e}", setting[0]);
            assert!(e.to_string().contains("the repository a/b has no text files"), "{e}");
        }
        let files = [TextFile { path: "x.py".into(), text: "def f():\n    return 1\n".repeat(40) }];
        let setup = AnswerSetup {
            repository: Some(("a/b", &files)),
            window: Some(60),
            ..AnswerSetup::new("m", &[ContextSetting::None, ContextSetting::Retrieval])
        };
        let e = answer_items(&qa, &setup, words).unwrap_err();
        assert!(
            matches!(&e, CoreqaError::PromptTooLong { setting, window: 60, .. } if setting == "retrieval"),
            "{e}"
        );
        assert!(
            e.to_string().contains("question \"a/b#1\", retrieval setting: the prompt needs"),
            "{e}"
        );
        // Within the window, every setting's prompt is built.
        let roomy = AnswerSetup { window: Some(100_000), ..setup };
        assert_eq!(answer_items(&qa, &roomy, words).unwrap().len(), 2);
    }

    #[test]
    fn answers_round_trip_and_a_cut_last_line_is_dropped_on_resume() {
        let item = AnswerItem {
            run: 1,
            runs: 5,
            question_id: "a/b#1".into(),
            setting: ContextSetting::Retrieval,
            model: "m".into(),
            prompt: "p".into(),
            prompt_ntokens: 1,
        };
        assert_eq!(item.task_id(), "a/b#1::retrieval");
        let mut asked = crate::llm::wire::Endpoint::default().params();
        asked.temperature = 0.2;
        let line = item.output_line("the answer", &asked).unwrap();
        assert_eq!(
            line,
            "{\"question_id\":\"a/b#1\",\"setting\":\"retrieval\",\"model\":\"m\",\"answer\":\"the answer\",\"temperature\":0.2,\"runs\":5}\n"
        );
        let text = format!("{line}{{\"question_id\": \"cut");
        assert_eq!(read_answers(&text, "f", true).unwrap().len(), 1);
        let err = read_answers(&text, "f", false).unwrap_err().to_string();
        assert!(err.starts_with("f, line 2: not an answer"), "{err}");
    }
}
