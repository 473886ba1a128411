//! The optional pre-filter of `coreqa build`: before any question is
//! written, a model reads each issue the paper's filters kept (title,
//! description, comments) and says whether it is a question about the
//! repository that its discussion answers ("keep") or not ("drop"), with
//! its reasons. The paper screens its issues so with a model before people
//! look at them (8,977 → 2,127); its prompt is not published, so
//! [`PREFILTER_TEMPLATE`] is ours, and it is editable.
//!
//! Each issue is one [`PrefilterItem`] through the benchmark runner (its
//! retries, run log, resume; a reply without a verdict line is asked
//! again). Every verdict is a line of the pre-filter file
//! ([`PrefilterLine`]), and each QA item written from a kept issue carries
//! its verdict's model and reasons under `"prefilter"` ([`mark`]).

use serde::{Deserialize, Serialize};

use super::generate::{comments_text, qa_id, ReferenceItem};
use super::issues::{Comment, Issue};
use super::judge::fill_template;
use super::CoreqaError;
use crate::llm::run::RunItem;
use crate::llm::wire::RequestParams;

/// The default pre-filter prompt: `{{repository}}`, `{{title}}`,
/// `{{description}}` and `{{comments}}` are filled in. The reply ends with
/// `Verdict: keep` or `Verdict: drop`.
pub const PREFILTER_TEMPLATE: &str = "\
Below is a GitHub issue of the code repository {{repository}} with its discussion. \
It may become a question of a benchmark that asks models about the repository. \
Keep it when it asks something about the repository (how it behaves, how to use it, why something happens) \
and its discussion gives an answer that the repository's code or documentation can confirm. \
Drop it when it is a feature request or a plan, a discussion without an answer, \
a problem of the reporter's own setup, or not about this repository.

## Issue title

{{title}}

## Issue description

{{description}}

## Issue comments

{{comments}}

Give your reasons in a few sentences, then end with one line, exactly one of:
Verdict: keep
Verdict: drop
";

/// One pre-filter request: an issue and its prompt.
#[derive(Clone, Debug)]
pub struct PrefilterItem {
    pub repository: String,
    pub number: u64,
    /// The model asked (kept in the verdict's line).
    pub model: String,
    pub prompt: String,
    pub prompt_ntokens: usize,
}

/// A line of the pre-filter file: one issue's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefilterLine {
    pub repository: String,
    pub number: u64,
    pub model: String,
    pub keep: bool,
    /// The reply without its verdict line.
    pub reasons: String,
    /// The sampling temperature the reply was asked at (absent in files
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

impl PrefilterLine {
    /// The issue's id, `owner/name#number` (the QA item's id).
    pub fn id(&self) -> String {
        qa_id(&self.repository, self.number)
    }
}

/// The pre-filter requests for `issues` (as the filters keep them, with
/// their comments), each prompt counted by `count_tokens`.
pub fn prefilter_items(
    repository: &str,
    model: &str,
    issues: &[(&Issue, &[Comment])],
    template: &str,
    mut count_tokens: impl FnMut(&str) -> usize,
) -> Result<Vec<PrefilterItem>, CoreqaError> {
    let mut items = Vec::with_capacity(issues.len());
    for (issue, comments) in issues {
        let comments = comments_text(comments);
        let values = [
            ("repository", repository),
            ("title", issue.title.trim()),
            ("description", issue.body.as_deref().unwrap_or("").trim_end()),
            ("comments", comments.as_str()),
        ];
        let prompt = fill_template(template, &values, &["title"])?;
        items.push(PrefilterItem {
            repository: repository.to_string(),
            number: issue.number,
            model: model.to_string(),
            prompt_ntokens: count_tokens(&prompt),
            prompt,
        });
    }
    Ok(items)
}

/// The verdict a reply ends with (its last line that is not blank:
/// `Verdict: keep` or `Verdict: drop`, any case, Markdown emphasis
/// allowed), and the reply before it; `None` when it ends otherwise.
pub fn parse_verdict(reply: &str) -> Option<(bool, String)> {
    let trimmed = reply.trim_end();
    let (before, last) = match trimmed.rfind('\n') {
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => ("", trimmed),
    };
    let line: String =
        last.chars().filter(|c| !matches!(c, '*' | '_' | '`')).collect::<String>().to_lowercase();
    let rest = line.trim().strip_prefix("verdict")?.trim_start().strip_prefix(':')?;
    let keep = match rest.trim().trim_end_matches('.') {
        "keep" => true,
        "drop" => false,
        _ => return None,
    };
    Some((keep, before.trim().to_string()))
}

impl RunItem for PrefilterItem {
    fn whole_replies_only(&self) -> bool {
        true
    }
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
        parse_verdict(reply).map(|_| ()).ok_or_else(|| {
            "the pre-filter's reply does not end with a verdict line (Verdict: keep or Verdict: drop)"
                .to_string()
        })
    }
    fn output_line(&self, reply: &str, asked: &RequestParams) -> Result<String, String> {
        self.check_reply(reply)?;
        let (keep, reasons) = parse_verdict(reply).unwrap_or_default();
        let line = PrefilterLine {
            repository: self.repository.clone(),
            number: self.number,
            model: self.model.clone(),
            keep,
            reasons,
            temperature: Some(asked.temperature),
        };
        super::jsonl_line(&line)
    }
}

/// Read a pre-filter file, leaving out a cut last line when `resuming`.
pub fn read_prefilter(
    text: &str,
    name: &str,
    resuming: bool,
) -> Result<Vec<PrefilterLine>, CoreqaError> {
    super::read_lines(text, resuming, |e| {
        CoreqaError::Qa {
        path: name.to_string(),
        line: e.0,
        message: format!(
            "not a pre-filter line {{\"repository\", \"number\", \"model\", \"keep\", \"reasons\"}} ({})",
            e.1
        ),
    }
    })
}

/// The pre-filter file beside a QA file (`qa.jsonl` → `qa.prefilter.jsonl`).
pub fn prefilter_file_name(qa_file: &str) -> String {
    format!("{}.prefilter.jsonl", qa_file.strip_suffix(".jsonl").unwrap_or(qa_file))
}

/// The verdict that counts for an issue: its last in `verdicts`.
fn last_verdict<'a>(
    verdicts: &'a [PrefilterLine],
    repository: &str,
    number: u64,
) -> Option<&'a PrefilterLine> {
    verdicts.iter().rfind(|v| v.repository == repository && v.number == number)
}

/// Keep of `issues` those whose verdict is "keep"; an issue without a
/// verdict (its request failed) goes no further until a rerun gets one.
pub fn retain_kept(
    issues: &mut Vec<(&Issue, &[Comment])>,
    repository: &str,
    verdicts: &[PrefilterLine],
) {
    issues.retain(|(issue, _)| {
        last_verdict(verdicts, repository, issue.number).is_some_and(|v| v.keep)
    });
}

/// Each reference request of an issue with a verdict in `verdicts` gets it
/// in its QA item, `"prefilter": {"model", "keep", "reasons"}` (the last
/// verdict of an issue counts).
pub fn mark(items: &mut [ReferenceItem], verdicts: &[PrefilterLine]) {
    for item in items {
        if let Some(v) = verdicts.iter().rfind(|v| v.id() == item.qa.id) {
            item.qa.rest.insert(
                "prefilter".into(),
                serde_json::json!({"model": v.model, "keep": v.keep, "reasons": v.reasons}),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_is_the_last_line() {
        assert_eq!(
            parse_verdict("It asks how.\n\nVerdict: keep\n"),
            Some((true, "It asks how.".into()))
        );
        assert_eq!(parse_verdict("A plan.\n**Verdict: Drop.**"), Some((false, "A plan.".into())));
        assert_eq!(parse_verdict("verdict:keep"), Some((true, String::new())));
        assert_eq!(parse_verdict("Verdict: keep\nbut maybe not"), None);
        assert_eq!(parse_verdict("Verdict: maybe"), None);
        assert_eq!(parse_verdict(""), None);
    }

    #[test]
    fn an_item_asks_about_the_issue_and_its_line_keeps_the_verdict() {
        let issue: Issue = serde_json::from_str(
            r#"{"number": 7, "title": " Spin fails ", "body": "spin(0) raises", "state": "closed", "labels": []}"#,
        )
        .unwrap();
        let comment: Comment =
            serde_json::from_str(r#"{"body": "Use spin(1).", "reactions": {"+1": 2}}"#).unwrap();
        let comments = [comment];
        let items = prefilter_items(
            "acme/widget",
            "m",
            &[(&issue, &comments[..])],
            PREFILTER_TEMPLATE,
            |t| t.len(),
        )
        .unwrap();
        let p = &items[0].prompt;
        assert!(
            p.contains("## Issue title\n\nSpin fails\n\n## Issue description\n\nspin(0) raises"),
            "{p}"
        );
        assert!(p.contains("### Comment 1 (2 positive reactions)\n\nUse spin(1)."), "{p}");
        assert!(p.ends_with("Verdict: keep\nVerdict: drop\n"), "{p}");
        assert_eq!(items[0].task_id(), "acme/widget#7");
        assert!(items[0].check_reply("Looks fine.").is_err());
        let line = items[0]
            .output_line(
                "Answered by a maintainer.\nVerdict: keep",
                &crate::llm::wire::Endpoint::default().params(),
            )
            .unwrap();
        let back = read_prefilter(&line, "f", false).unwrap();
        assert_eq!(
            back,
            [PrefilterLine {
                temperature: Some(0.0),
                repository: "acme/widget".into(),
                number: 7,
                model: "m".into(),
                keep: true,
                reasons: "Answered by a maintainer.".into()
            }]
        );
        assert_eq!(back[0].id(), "acme/widget#7");
        assert_eq!(prefilter_file_name("out/qa.jsonl"), "out/qa.prefilter.jsonl");
    }
}
