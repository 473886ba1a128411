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

use super::qa::QaItem;
use super::whole_repo::{fence_language, fenced};
use super::{Chunk, CoreqaError};
use crate::llm::run::RunItem;

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
    pub prompt: String,
    /// The prompt's token count (the truncation check's reference).
    pub prompt_ntokens: usize,
}

/// The id an answer is known by in the run log: `question_id::setting`.
pub fn answer_id(question_id: &str, setting: ContextSetting) -> String {
    format!("{question_id}::{setting}")
}

impl RunItem for AnswerItem {
    fn task_id(&self) -> String {
        answer_id(&self.question_id, self.setting)
    }
    fn prompt(&self) -> String {
        self.prompt.clone()
    }
    fn prompt_ntokens(&self) -> usize {
        self.prompt_ntokens
    }
    fn output_line(&self, reply: &str) -> Result<String, String> {
        let line = AnswerLine {
            question_id: self.question_id.clone(),
            setting: self.setting,
            model: self.model.clone(),
            answer: reply.to_string(),
        };
        super::jsonl_line(&line)
    }
}

/// One line of an answers file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerLine {
    pub question_id: String,
    pub setting: ContextSetting,
    pub model: String,
    pub answer: String,
}

impl AnswerLine {
    pub fn id(&self) -> String {
        answer_id(&self.question_id, self.setting)
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
    fn answers_round_trip_and_a_cut_last_line_is_dropped_on_resume() {
        let item = AnswerItem {
            question_id: "a/b#1".into(),
            setting: ContextSetting::Retrieval,
            model: "m".into(),
            prompt: "p".into(),
            prompt_ntokens: 1,
        };
        assert_eq!(item.task_id(), "a/b#1::retrieval");
        let line = item.output_line("the answer").unwrap();
        assert_eq!(
            line,
            "{\"question_id\":\"a/b#1\",\"setting\":\"retrieval\",\"model\":\"m\",\"answer\":\"the answer\"}\n"
        );
        let text = format!("{line}{{\"question_id\": \"cut");
        assert_eq!(read_answers(&text, "f", true).unwrap().len(), 1);
        let err = read_answers(&text, "f", false).unwrap_err().to_string();
        assert!(err.starts_with("f, line 2: not an answer"), "{err}");
    }
}
