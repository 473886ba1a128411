//! Making a QA set from the issues the filters keep ([`super::issues`]), as
//! the paper does with a model: first it rewrites each issue's title and
//! description into a question ([`QUESTION_TEMPLATE`]), and the issue's code
//! snippets (the fenced blocks of its description, as they are) are attached
//! below that question; then it writes the reference answer from the
//! question, the issue's labels, title and description and its comments
//! ([`REFERENCE_TEMPLATE`]). Both prompts are editable.
//!
//! Each step is one request per issue through the benchmark runner
//! ([`QuestionItem`], then [`ReferenceItem`]), so generation has the
//! runner's retries, run log and resume. The first step's lines
//! (`{"repository", "number", "question"}`) feed the second, whose lines
//! are the QA file itself ([`super::qa::QaItem`]: id `owner/name#number`,
//! the issue's URL and object kept).

use serde::{Deserialize, Serialize};

use super::issues::{Comment, Issue, IssueExport};
use super::judge::fill_template;
use super::qa::QaItem;
use super::CoreqaError;
use crate::llm::run::RunItem;
use crate::llm::wire::RequestParams;

/// The default question prompt: `{{repository}}`, `{{title}}` and
/// `{{description}}` are filled in.
pub const QUESTION_TEMPLATE: &str = "\
Below is a GitHub issue of the code repository {{repository}}. \
Rewrite its title and description as one clear, self-contained question that a developer using the repository would ask. \
Keep every detail needed to answer it (versions, inputs, what happens, what was expected), \
but leave out code blocks: the issue's code snippets will be attached below your question as they are. \
Reply with the question only.

## Issue title

{{title}}

## Issue description

{{description}}
";

/// The default reference-answer prompt: `{{repository}}`, `{{question}}`,
/// `{{labels}}`, `{{title}}`, `{{description}}` and `{{comments}}`.
pub const REFERENCE_TEMPLATE: &str = "\
Below are a question about the code repository {{repository}}, and the GitHub issue it came from with its discussion. \
Write the reference answer to the question: what the discussion established (the cause, the fix or the right usage), \
correct and complete, in the words of a maintainer, with code in fenced blocks where it helps. \
Use only what the issue and its comments say. Reply with the answer only.

## Question

{{question}}

## Issue labels

{{labels}}

## Issue title

{{title}}

## Issue description

{{description}}

## Issue comments

{{comments}}
";

/// The fenced blocks of an issue's description, each with its fences, in
/// order (an unclosed block runs to the end).
pub fn code_snippets(description: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<(&str, Vec<&str>)> = None;
    for line in description.lines() {
        let marker = super::fence_marker(line);
        match (&mut open, marker) {
            (None, Some(m)) => open = Some((m, vec![line])),
            (Some((m, lines)), Some(close)) if close == *m => {
                lines.push(line);
                out.push(lines.join("\n"));
                open = None;
            }
            (Some((_, lines)), _) => lines.push(line),
            (None, None) => {}
        }
    }
    if let Some((_, lines)) = open {
        out.push(lines.join("\n"));
    }
    out
}

/// A question: the model's rewrite, then the issue's snippets.
pub fn question_text(rewrite: &str, snippets: &[String]) -> String {
    let mut q = rewrite.trim().to_string();
    for s in snippets {
        q.push_str("\n\n");
        q.push_str(s);
    }
    q
}

/// `owner/name#number`.
pub fn qa_id(repository: &str, number: u64) -> String {
    format!("{repository}#{number}")
}

/// The issues `kept` (numbers), with their comments, in that order.
pub fn kept_issues<'e>(export: &'e IssueExport, kept: &[u64]) -> Vec<(&'e Issue, &'e [Comment])> {
    kept.iter()
        .filter_map(|n| {
            let issue = export.issues.iter().find(|i| i.number == *n)?;
            let comments =
                export.comments.get(&n.to_string()).map(Vec::as_slice).unwrap_or_default();
            Some((issue, comments))
        })
        .collect()
}

/// One question request.
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionItem {
    pub repository: String,
    pub number: u64,
    pub snippets: Vec<String>,
    pub prompt: String,
    pub prompt_ntokens: usize,
}

/// A line of the questions file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuestionLine {
    pub repository: String,
    pub number: u64,
    pub question: String,
    /// The sampling temperature the reply was asked at (absent in files
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

impl QuestionLine {
    pub fn id(&self) -> String {
        qa_id(&self.repository, self.number)
    }
}

/// The question requests for `issues` of `repository`.
pub fn question_items(
    repository: &str,
    issues: &[(&Issue, &[Comment])],
    template: &str,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<QuestionItem>, CoreqaError> {
    let mut items = Vec::with_capacity(issues.len());
    for (issue, _) in issues {
        let description = issue.body.as_deref().unwrap_or("").trim_end();
        let values = [
            ("repository", repository),
            ("title", issue.title.trim()),
            ("description", description),
        ];
        let prompt = fill_template(template, &values, &["title", "description"])?;
        items.push(QuestionItem {
            repository: repository.to_string(),
            number: issue.number,
            snippets: code_snippets(description),
            prompt_ntokens: count_tokens(&prompt),
            prompt,
        });
    }
    Ok(items)
}

fn not_blank(reply: &str) -> Result<(), String> {
    if reply.trim().is_empty() {
        Err("the reply is blank".into())
    } else {
        Ok(())
    }
}

impl RunItem for QuestionItem {
    fn task_id(&self) -> String {
        qa_id(&self.repository, self.number)
    }
    fn prompt(&self) -> String {
        self.prompt.clone()
    }
    fn prompt_ntokens(&self) -> usize {
        self.prompt_ntokens
    }
    fn check_reply(&self, reply: &str) -> Result<(), String> {
        not_blank(reply)
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        let line = QuestionLine {
            repository: self.repository.clone(),
            number: self.number,
            question: question_text(reply, &self.snippets),
            temperature: Some(asked.temperature),
        };
        super::jsonl_line(&line)
    }
}

/// The temperature reference answers are written at by default: the
/// paper's 0.8 (§VI: "diverse reference answers").
pub const REFERENCE_TEMPERATURE: f64 = 0.8;

/// The field of each QA item `build` writes that records the temperature
/// its reference answer was written at.
pub const REFERENCE_TEMPERATURE_FIELD: &str = "reference_temperature";

/// Read a questions file, leaving out a cut last line when `resuming`.
pub fn read_questions(
    text: &str,
    name: &str,
    resuming: bool,
) -> Result<Vec<QuestionLine>, CoreqaError> {
    super::read_lines(text, resuming, |e| CoreqaError::Qa {
        path: name.to_string(),
        line: e.0,
        message: format!(
            "not a question line {{\"repository\", \"number\", \"question\"}} ({})",
            e.1
        ),
    })
}

/// One reference-answer request; its line is the QA item with the reply
/// as the reference answer.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceItem {
    pub qa: QaItem,
    pub prompt: String,
    pub prompt_ntokens: usize,
}

/// The comments as the reference prompt shows them: numbered, with their
/// positive reactions.
pub(crate) fn comments_text(comments: &[Comment]) -> String {
    if comments.is_empty() {
        return "(none)".into();
    }
    let mut out = Vec::new();
    for (k, c) in comments.iter().enumerate() {
        let positive: u64 = super::issues::POSITIVE_REACTIONS
            .iter()
            .filter_map(|r| c.reactions.get(*r).and_then(serde_json::Value::as_u64))
            .sum();
        out.push(format!(
            "### Comment {} ({positive} positive reactions)\n\n{}",
            k + 1,
            c.body.as_deref().unwrap_or("").trim_end()
        ));
    }
    out.join("\n\n")
}

/// The reference requests for the issues whose question is in `questions`
/// (others are left out), in `issues` order; `language` goes into each item.
pub fn reference_items(
    repository: &str,
    issues: &[(&Issue, &[Comment])],
    questions: &[QuestionLine],
    language: Option<&str>,
    template: &str,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<ReferenceItem>, CoreqaError> {
    let mut items = Vec::new();
    for (issue, comments) in issues {
        let Some(q) =
            questions.iter().rfind(|q| q.repository == repository && q.number == issue.number)
        else {
            continue;
        };
        let labels: Vec<&str> = issue.labels.iter().map(|l| l.name.as_str()).collect();
        let comments = comments_text(comments);
        let values = [
            ("repository", repository),
            ("question", q.question.as_str()),
            ("labels", &labels.join(", ")),
            ("title", issue.title.trim()),
            ("description", issue.body.as_deref().unwrap_or("").trim_end()),
            ("comments", comments.as_str()),
        ];
        let prompt = fill_template(template, &values, &["question"])?;
        let qa = QaItem {
            id: qa_id(repository, issue.number),
            repository: repository.to_string(),
            language: language.map(str::to_string),
            issue_url: issue.html_url.clone(),
            question: q.question.clone(),
            reference_answer: String::new(),
            reference_chunks: None,
            issue: serde_json::to_value(issue).ok(),
            rest: Default::default(),
        };
        items.push(ReferenceItem { qa, prompt_ntokens: count_tokens(&prompt), prompt });
    }
    Ok(items)
}

impl RunItem for ReferenceItem {
    fn task_id(&self) -> String {
        self.qa.id.clone()
    }
    fn prompt(&self) -> String {
        self.prompt.clone()
    }
    fn prompt_ntokens(&self) -> usize {
        self.prompt_ntokens
    }
    fn check_reply(&self, reply: &str) -> Result<(), String> {
        not_blank(reply)
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        let mut qa = QaItem { reference_answer: reply.trim().to_string(), ..self.qa.clone() };
        // Kept among the item's other fields, which readers keep as they are.
        qa.rest.insert(REFERENCE_TEMPERATURE_FIELD.into(), asked.temperature.into());
        super::jsonl_line(&qa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_the_fenced_blocks_as_they_are() {
        let body = "It fails:\n\n```python\nspin(0)\n```\ntext\n~~~\nTraceback\n```\nstill in\n~~~\n```sh\nopen";
        assert_eq!(
            code_snippets(body),
            ["```python\nspin(0)\n```", "~~~\nTraceback\n```\nstill in\n~~~", "```sh\nopen"]
        );
        assert_eq!(
            question_text(" Why does spin(0) fail? \n", &code_snippets(body)[..1]),
            "Why does spin(0) fail?\n\n```python\nspin(0)\n```"
        );
    }

    #[test]
    fn items_fill_the_prompts_and_lines_are_qa_items() {
        let export: IssueExport = serde_json::from_str(
            r#"{"repository": "a/b", "issues": [{"number": 7, "title": "Spin fails", "state": "closed",
                "labels": [{"name": "bug"}], "body": "It fails:\n```py\nspin(0)\n```",
                "html_url": "https://github.com/a/b/issues/7"}],
                "comments": {"7": [{"body": "Use spin(1).", "reactions": {"+1": 2, "heart": 1}}]}}"#,
        )
        .unwrap();
        let issues = kept_issues(&export, &[7, 99]);
        assert_eq!(issues.len(), 1);
        let qs = question_items("a/b", &issues, QUESTION_TEMPLATE, |_| 5).unwrap();
        assert!(qs[0]
            .prompt
            .contains("## Issue title\n\nSpin fails\n\n## Issue description\n\nIt fails:\n```py"));
        let line = qs[0]
            .output_line("Why does spin fail?", &crate::llm::wire::Endpoint::default().params())
            .unwrap();
        let q = read_questions(&line, "f", false).unwrap();
        assert_eq!(q[0].question, "Why does spin fail?\n\n```py\nspin(0)\n```");
        assert!(qs[0].check_reply("  ").is_err());
        let rs =
            reference_items("a/b", &issues, &q, Some("python"), REFERENCE_TEMPLATE, |_| 5).unwrap();
        assert!(rs[0].prompt.contains("## Issue labels\n\nbug\n"));
        assert!(rs[0].prompt.contains("### Comment 1 (3 positive reactions)\n\nUse spin(1)."));
        let line = rs[0]
            .output_line("Call spin(1).\n", &crate::llm::wire::Endpoint::default().params())
            .unwrap();
        let qa = super::super::qa::read_qa(line.as_bytes(), "f").unwrap();
        assert_eq!(qa[0].id, "a/b#7");
        assert_eq!(qa[0].reference_answer, "Call spin(1).");
        assert_eq!(qa[0].language.as_deref(), Some("python"));
        assert_eq!(qa[0].issue_url.as_deref(), Some("https://github.com/a/b/issues/7"));
        assert_eq!(qa[0].issue.as_ref().unwrap()["number"], 7);
        let none = reference_items("a/b", &issues, &[], None, REFERENCE_TEMPLATE, |_| 5).unwrap();
        assert!(none.is_empty());
    }
}
