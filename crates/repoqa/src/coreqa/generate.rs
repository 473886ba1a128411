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
/// `{{description}}` are filled in. Chain of thought first (the paper's CoT),
/// then the question after [`QUESTION_MARKER`] at the end, so it is
/// extracted, never guessed ([`read_question`]).
pub const QUESTION_TEMPLATE: &str = "\
Below is a GitHub issue of the code repository {{repository}}. \
Rewrite its title and description as one clear, self-contained question that a developer using the repository would ask. \
Keep every detail needed to answer it (versions, inputs, what happens, what was expected), \
but leave out code blocks: the issue's code snippets will be attached below your question as they are.

First think step by step: what the reporter was doing, what went wrong or what they wanted to know, \
and which details a maintainer needs to answer. \
Then end your reply with a line that starts with \"Question:\" followed by the question, and nothing after it.

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

/// What a question reply ends with: the question follows it.
pub const QUESTION_MARKER: &str = "Question:";

/// Questions sampled per issue by default (`--samples`): the paper's
/// self-consistency (it does not give its K; we take 3), the one most
/// consistent with the others kept ([`choose_question`]).
pub const QUESTION_SAMPLES: u32 = 3;

/// The most question samples per issue (`coreqa build --samples`).
pub const MAX_QUESTION_SAMPLES: u32 = 20;

/// The temperature several question samples are drawn at by default (the
/// paper's generation temperature, §VI); one sample is asked greedily.
pub const QUESTION_TEMPERATURE: f64 = 0.8;

/// The temperature the questions are asked at: `given`, else
/// [`QUESTION_TEMPERATURE`] for several samples and 0 for one.
pub fn question_temperature(samples: u32, given: Option<f64>) -> f64 {
    given.unwrap_or(if samples > 1 { QUESTION_TEMPERATURE } else { 0.0 })
}

/// The question in a reply that reasons first: the text after the last line
/// starting with [`QUESTION_MARKER`] (Markdown emphasis around it allowed),
/// to the end; and the reasoning before that line. A reply without it, or
/// with nothing after it, is an error (asked again, then reported).
pub fn read_question(reply: &str) -> Result<(String, String), String> {
    let lines: Vec<&str> = reply.lines().collect();
    let deco = |c: char| matches!(c, '*' | '_' | '#' | '>') || c.is_whitespace();
    let marked = lines.iter().rposition(|l| {
        let t = l.trim_start_matches(deco);
        t.get(..QUESTION_MARKER.len()).is_some_and(|h| h.eq_ignore_ascii_case(QUESTION_MARKER))
    });
    let Some(at) = marked else {
        return Err(format!(
            "the reply does not end with a line starting with \"{QUESTION_MARKER}\": {:?}",
            crate::llm::snippet(reply)
        ));
    };
    let first =
        lines[at].trim_start_matches(deco)[QUESTION_MARKER.len()..].trim_start_matches(deco);
    let mut question = vec![first];
    question.extend(&lines[at + 1..]);
    let question = question.join("\n").trim().to_string();
    if question.is_empty() {
        return Err(format!("the reply's \"{QUESTION_MARKER}\" line has no question after it"));
    }
    Ok((question, lines[..at].join("\n").trim().to_string()))
}

/// Words of a question for comparing samples: lowercase runs of letters
/// and digits.
fn words(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Jaccard similarity of two word sets (1 when both are empty).
fn jaccard(a: &std::collections::BTreeSet<String>, b: &std::collections::BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        1.0
    } else {
        a.intersection(b).count() as f64 / union as f64
    }
}

/// Self-consistency over question samples (the paper does not say how; we
/// keep the sample whose words overlap the others' most): the index in
/// `samples` of the one with the highest mean Jaccard similarity of its
/// word set to each other sample's, the first on a tie. None for no samples.
pub fn most_consistent(samples: &[&str]) -> Option<usize> {
    let sets: Vec<_> = samples.iter().map(|s| words(s)).collect();
    let score = |i: usize| -> f64 {
        if sets.len() < 2 {
            return 0.0;
        }
        let others: f64 =
            (0..sets.len()).filter(|&j| j != i).map(|j| jaccard(&sets[i], &sets[j])).sum();
        others / (sets.len() - 1) as f64
    };
    (0..sets.len())
        .fold(None, |best: Option<(usize, f64)>, i| {
            let s = score(i);
            match best {
                Some((_, b)) if b >= s => best,
                _ => Some((i, s)),
            }
        })
        .map(|(i, _)| i)
}

/// The question kept for issue `number` of `repository` from its lines in
/// `questions`: with `samples` samples, once every one of them is written,
/// the most consistent ([`most_consistent`]), with all of them in sample
/// order; None until then.
pub fn choose_question<'q>(
    questions: &'q [QuestionLine],
    repository: &str,
    number: u64,
    samples: u32,
) -> Option<(&'q QuestionLine, Vec<&'q QuestionLine>)> {
    let all: Vec<&QuestionLine> = (1..=samples.max(1))
        .map(|s| {
            questions
                .iter()
                .rfind(|q| q.repository == repository && q.number == number && q.sample == s)
        })
        .collect::<Option<Vec<_>>>()?;
    let texts: Vec<&str> = all.iter().map(|q| q.question.as_str()).collect();
    let best = most_consistent(&texts)?;
    Some((all[best], all))
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

/// One question request: one sample of an issue's question.
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionItem {
    pub repository: String,
    pub number: u64,
    /// Which sample, from 1, of how many.
    pub sample: u32,
    pub samples: u32,
    /// The prompt asks for [`QUESTION_MARKER`] (the default does): the
    /// question is read after it; otherwise the whole reply is the question
    /// (a template of one's own that asks for it alone).
    pub marked: bool,
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
    /// Which sample, from 1; absent for the first.
    #[serde(
        default = "super::answer::first_run",
        skip_serializing_if = "super::answer::is_first_run"
    )]
    pub sample: u32,
    /// How many samples are asked per issue (absent in files written before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// The model's reasoning before its question (chain of thought).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
}

impl QuestionLine {
    pub fn id(&self) -> String {
        sample_id(&self.repository, self.number, self.sample)
    }
}

/// A question sample's id in the run log: `owner/name#number`, then
/// `…::sample2` and so on.
pub fn sample_id(repository: &str, number: u64, sample: u32) -> String {
    if sample <= 1 {
        qa_id(repository, number)
    } else {
        format!("{}::sample{sample}", qa_id(repository, number))
    }
}

/// The question requests for `issues` of `repository`, `samples` per issue.
pub fn question_items(
    repository: &str,
    issues: &[(&Issue, &[Comment])],
    template: &str,
    samples: u32,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<QuestionItem>, CoreqaError> {
    let samples = samples.max(1);
    let marked = template.contains(QUESTION_MARKER);
    let mut items = Vec::with_capacity(issues.len() * samples as usize);
    for (issue, _) in issues {
        let description = issue.body.as_deref().unwrap_or("").trim_end();
        let values = [
            ("repository", repository),
            ("title", issue.title.trim()),
            ("description", description),
        ];
        let prompt = fill_template(template, &values, &["title", "description"])?;
        let prompt_ntokens = count_tokens(&prompt);
        for sample in 1..=samples {
            items.push(QuestionItem {
                repository: repository.to_string(),
                number: issue.number,
                sample,
                samples,
                marked,
                snippets: code_snippets(description),
                prompt_ntokens,
                prompt: prompt.clone(),
            });
        }
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

impl QuestionItem {
    /// The question and the reasoning before it in `reply`.
    fn read(&self, reply: &str) -> Result<(String, Option<String>), String> {
        if self.marked {
            read_question(reply).map(|(q, r)| (q, Some(r).filter(|r| !r.is_empty())))
        } else {
            not_blank(reply).map(|()| (reply.trim().to_string(), None))
        }
    }
}

impl RunItem for QuestionItem {
    fn whole_replies_only(&self) -> bool {
        true
    }
    fn task_id(&self) -> String {
        sample_id(&self.repository, self.number, self.sample)
    }
    fn prompt(&self) -> String {
        self.prompt.clone()
    }
    fn prompt_ntokens(&self) -> usize {
        self.prompt_ntokens
    }
    fn check_reply(&self, reply: &str) -> Result<(), String> {
        self.read(reply).map(|_| ())
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        let (question, reasoning) = self.read(reply)?;
        let line = QuestionLine {
            repository: self.repository.clone(),
            number: self.number,
            question: question_text(&question, &self.snippets),
            temperature: Some(asked.temperature),
            sample: self.sample,
            samples: Some(self.samples),
            reasoning,
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

/// The reference requests for the issues whose `samples` question samples
/// are all in `questions` (others are left out until they are), each with
/// its most consistent question ([`choose_question`]), in `issues` order;
/// `language` goes into each item. With several samples each QA item keeps
/// them all (`question_samples`, in sample order) and which was kept
/// (`question_sample`, from 1).
pub fn reference_items(
    repository: &str,
    issues: &[(&Issue, &[Comment])],
    questions: &[QuestionLine],
    samples: u32,
    language: Option<&str>,
    template: &str,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<ReferenceItem>, CoreqaError> {
    let mut items = Vec::new();
    for (issue, comments) in issues {
        let Some((q, all)) = choose_question(questions, repository, issue.number, samples) else {
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
        let mut rest = indexmap::IndexMap::new();
        if all.len() > 1 {
            let texts: Vec<&str> = all.iter().map(|s| s.question.as_str()).collect();
            rest.insert("question_samples".to_string(), serde_json::json!(texts));
            rest.insert("question_sample".to_string(), q.sample.into());
        }
        let qa = QaItem {
            id: qa_id(repository, issue.number),
            repository: repository.to_string(),
            language: language.map(str::to_string),
            issue_url: issue.html_url.clone(),
            question: q.question.clone(),
            reference_answer: String::new(),
            reference_chunks: None,
            issue: serde_json::to_value(issue).ok(),
            rest,
        };
        items.push(ReferenceItem { qa, prompt_ntokens: count_tokens(&prompt), prompt });
    }
    Ok(items)
}

impl RunItem for ReferenceItem {
    fn whole_replies_only(&self) -> bool {
        true
    }
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
    fn the_question_is_read_after_its_marker_never_guessed() {
        let (q, r) =
            read_question("The reporter calls spin(0).\n\n**Question:** Why does\nspin(0) fail?\n")
                .unwrap();
        assert_eq!(
            (q.as_str(), r.as_str()),
            ("Why does\nspin(0) fail?", "The reporter calls spin(0).")
        );
        // The last marker counts (the reasoning may quote one).
        let (q, _) = read_question("question: a draft\nQUESTION: the final one").unwrap();
        assert_eq!(q, "the final one");
        assert!(read_question("Why does spin(0) fail?")
            .unwrap_err()
            .contains("does not end with a line starting with \"Question:\""));
        assert!(read_question("Reasons.\nQuestion:   \n")
            .unwrap_err()
            .contains("no question after it"));
    }

    #[test]
    fn self_consistency_keeps_the_sample_closest_to_the_others_worked_by_hand() {
        // Word sets: a {why, does, spin, fail}, b {why, does, spin, fail, on, zero},
        // c {how, to, reset}. Jaccard a-b 4/6, a-c 0, b-c 0: a scores 1/3, b 1/3,
        // c 0: a tie between a and b, the first kept.
        let a = "Why does spin fail?";
        let b = "Why does spin fail on zero?";
        let c = "How to reset?";
        assert_eq!(most_consistent(&[a, b, c]), Some(0));
        assert_eq!(most_consistent(&[c, b, a]), Some(1), "the first of the tie, b");
        // d {why, does, spin, fail, on, zero, here}: b-d 6/7, a-d 4/7: b scores
        // (4/6 + 6/7) / 2 over a, d, the highest.
        let d = "Why does spin fail on zero here?";
        assert_eq!(most_consistent(&[a, b, d]), Some(1));
        assert_eq!(most_consistent(&[a]), Some(0));
        assert_eq!(most_consistent(&[]), None);
        let line = |n: u32, text: &str| QuestionLine {
            repository: "a/b".into(),
            number: 7,
            question: text.into(),
            temperature: Some(0.8),
            sample: n,
            samples: Some(3),
            reasoning: None,
        };
        let lines = [line(1, c), line(2, b), line(3, d)];
        let (kept, all) = choose_question(&lines, "a/b", 7, 3).unwrap();
        assert_eq!((kept.sample, all.len()), (2, 3));
        assert!(choose_question(&lines[..2], "a/b", 7, 3).is_none(), "sample 3 not written yet");
        assert_eq!(lines[1].id(), "a/b#7::sample2");
        assert_eq!(lines[0].id(), "a/b#7");
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
        let qs = question_items("a/b", &issues, QUESTION_TEMPLATE, 1, |_| 5).unwrap();
        assert!(qs[0]
            .prompt
            .contains("## Issue title\n\nSpin fails\n\n## Issue description\n\nIt fails:\n```py"));
        let line = qs[0]
            .output_line(
                "It fails on zero.\n\nQuestion: Why does spin fail?",
                &crate::llm::wire::Endpoint::default().params(),
            )
            .unwrap();
        let q = read_questions(&line, "f", false).unwrap();
        assert_eq!(q[0].question, "Why does spin fail?\n\n```py\nspin(0)\n```");
        assert_eq!(q[0].reasoning.as_deref(), Some("It fails on zero."));
        assert!(qs[0].check_reply("  ").is_err());
        assert!(qs[0].check_reply("Why does spin fail?").is_err(), "no Question: line");
        let rs = reference_items("a/b", &issues, &q, 1, Some("python"), REFERENCE_TEMPLATE, |_| 5)
            .unwrap();
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
        let none =
            reference_items("a/b", &issues, &[], 1, None, REFERENCE_TEMPLATE, |_| 5).unwrap();
        assert!(none.is_empty());
    }
}
