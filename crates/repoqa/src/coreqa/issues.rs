//! The paper's issue filters (CoReQA §III-A): which closed GitHub issues of
//! a repository become questions. The input is a GitHub REST API export,
//! the objects as `GET /repos/{o}/{r}/issues?state=closed` and
//! `GET /repos/{o}/{r}/issues/{n}/comments` return them:
//!
//! ```json
//! {"repository": "owner/name",
//!  "issues": [ {issue object}, … ],
//!  "comments": {"<issue number>": [ {comment object}, … ], …}}
//! ```
//!
//! Fields not read here are kept, so an export round-trips. The filters,
//! in this order (each counts the issues it removes):
//!
//! 1. `pull_request`: the issues API also lists pull requests (objects with
//!    a `pull_request` field); they are not issues.
//! 2. `not_closed`: `state` is not `"closed"`.
//! 3. `label`: no label whose name holds "feat", "bug", "fix" or "error"
//!    (any case).
//! 4. `no_code`: the description holds no fenced code block (a line
//!    starting with ``` or ~~~ after at most three spaces).
//! 5. `image`: the description or a comment holds an image (Markdown
//!    `![…](…)`, an `<img` tag, a link to an image file — .png .jpg .jpeg
//!    .gif .webp .svg .bmp — or to GitHub's attachment hosts).
//! 6. `few_positive`: fewer than three positive comments, a positive
//!    comment being one with at least one +1, laugh, hooray, heart or
//!    rocket reaction.
//! 7. `points_elsewhere`: a positive comment only points to another issue
//!    or a commit: once its references (`#12`, `owner/repo#12`, issue,
//!    pull and commit URLs, commit hashes of 7–40 hex digits holding a
//!    digit and a letter) are taken out, nothing but punctuation and the
//!    words of [`POINTER_WORDS`] is left.
//! 8. `over_limit`: issues after the first 300 kept (in export order; the
//!    API lists the newest first).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Issues kept per repository at the most (the paper's cap).
pub const MAX_ISSUES_PER_REPO: usize = 300;
/// Positive comments an issue needs.
pub const MIN_POSITIVE_COMMENTS: usize = 3;
/// Label name parts that keep an issue.
pub const LABEL_PARTS: [&str; 4] = ["feat", "bug", "fix", "error"];
/// Reactions that make a comment positive.
pub const POSITIVE_REACTIONS: [&str; 5] = ["+1", "laugh", "hooray", "heart", "rocket"];
/// Words a comment that only points elsewhere may hold beside its
/// references ("Duplicate of #12", "Fixed in abc1234", "See #3.").
pub const POINTER_WORDS: [&str; 24] = [
    "see",
    "also",
    "fixed",
    "fix",
    "fixes",
    "in",
    "by",
    "via",
    "with",
    "duplicate",
    "dup",
    "of",
    "closed",
    "closing",
    "closes",
    "resolved",
    "resolves",
    "favor",
    "favour",
    "ref",
    "refs",
    "same",
    "as",
    "done",
];

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Label {
    #[serde(default)]
    pub name: String,
    #[serde(flatten)]
    pub rest: IndexMap<String, Value>,
}

/// An issue object of the REST API (the fields the filters read).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Issue {
    pub number: u64,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub labels: Vec<Label>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html_url: Option<String>,
    #[serde(flatten)]
    pub rest: IndexMap<String, Value>,
}

/// A comment object of the REST API.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    #[serde(default)]
    pub body: Option<String>,
    /// `{"+1": 2, "heart": 1, "total_count": 3, …}`.
    #[serde(default)]
    pub reactions: IndexMap<String, Value>,
    #[serde(flatten)]
    pub rest: IndexMap<String, Value>,
}

impl Comment {
    pub fn is_positive(&self) -> bool {
        POSITIVE_REACTIONS
            .iter()
            .any(|r| self.reactions.get(*r).and_then(Value::as_u64).unwrap_or(0) > 0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IssueExport {
    pub repository: String,
    pub issues: Vec<Issue>,
    /// Comments per issue number (as a string, JSON's object keys).
    #[serde(default)]
    pub comments: IndexMap<String, Vec<Comment>>,
}

/// Why an issue was left out: the filter that removed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[derive(strum::IntoStaticStr, strum::Display, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Filter {
    PullRequest,
    NotClosed,
    Label,
    NoCode,
    Image,
    FewPositive,
    PointsElsewhere,
    OverLimit,
}

/// What the filters did: the issues kept (numbers, in export order) and
/// how many each filter removed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FilterReport {
    pub repository: String,
    pub issues: usize,
    pub removed: IndexMap<Filter, usize>,
    pub kept: Vec<u64>,
}

/// The first filter `issue` fails, if any (the limit aside).
pub fn failed_filter(issue: &Issue, comments: &[Comment]) -> Option<Filter> {
    let body = issue.body.as_deref().unwrap_or("");
    if issue.pull_request.is_some() {
        return Some(Filter::PullRequest);
    }
    if issue.state != "closed" {
        return Some(Filter::NotClosed);
    }
    let labelled = issue.labels.iter().any(|l| {
        let name = l.name.to_lowercase();
        LABEL_PARTS.iter().any(|p| name.contains(p))
    });
    if !labelled {
        return Some(Filter::Label);
    }
    if !has_code_block(body) {
        return Some(Filter::NoCode);
    }
    if has_image(body) || comments.iter().any(|c| has_image(c.body.as_deref().unwrap_or(""))) {
        return Some(Filter::Image);
    }
    let positive: Vec<&Comment> = comments.iter().filter(|c| c.is_positive()).collect();
    if positive.len() < MIN_POSITIVE_COMMENTS {
        return Some(Filter::FewPositive);
    }
    if positive.iter().any(|c| only_points_elsewhere(c.body.as_deref().unwrap_or(""))) {
        return Some(Filter::PointsElsewhere);
    }
    None
}

/// Run the filters over an export.
pub fn filter_issues(export: &IssueExport) -> FilterReport {
    use strum::VariantArray;
    let mut removed: IndexMap<Filter, usize> = Filter::VARIANTS.iter().map(|f| (*f, 0)).collect();
    let mut kept = Vec::new();
    let none: Vec<Comment> = Vec::new();
    for issue in &export.issues {
        let comments = export.comments.get(&issue.number.to_string()).unwrap_or(&none);
        let failed = failed_filter(issue, comments)
            .or((kept.len() >= MAX_ISSUES_PER_REPO).then_some(Filter::OverLimit));
        match failed {
            Some(f) => *removed.entry(f).or_insert(0) += 1,
            None => kept.push(issue.number),
        }
    }
    FilterReport {
        repository: export.repository.clone(),
        issues: export.issues.len(),
        removed,
        kept,
    }
}

/// A fenced code block: a line that starts (after at most three spaces)
/// with ``` or ~~~.
pub fn has_code_block(text: &str) -> bool {
    text.lines().any(|l| super::fence_marker(l).is_some())
}

/// An image in Markdown or HTML, or a link to an image file or to GitHub's
/// attachment hosts.
pub fn has_image(text: &str) -> bool {
    let lower = text.to_lowercase();
    if lower.contains("<img")
        || lower.contains("user-images.githubusercontent.com")
        || lower.contains("github.com/user-attachments/")
    {
        return true;
    }
    if has_markdown_image(&lower) {
        return true;
    }
    lower
        .split(|c: char| {
            c.is_whitespace() || matches!(c, '(' | ')' | '<' | '>' | '"' | '\'' | '[' | ']')
        })
        .any(|w| {
            (w.starts_with("http://") || w.starts_with("https://"))
                && [".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp"]
                    .iter()
                    .any(|e| w.split(['?', '#']).next().unwrap_or("").ends_with(e))
        })
}

/// Markdown's `![alt](target)`.
fn has_markdown_image(lower: &str) -> bool {
    lower.match_indices("![").any(|(at, _)| {
        let rest = &lower[at + 2..];
        rest.find("](").is_some_and(|close| !rest[..close].contains('\n'))
    })
}

/// Whether a comment, its references to other issues and commits taken
/// out, holds only punctuation and [`POINTER_WORDS`] (and held a
/// reference).
pub fn only_points_elsewhere(text: &str) -> bool {
    let mut references = 0;
    let mut words = Vec::new();
    for token in text.split_whitespace() {
        let t = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '#' && c != '/');
        if t.is_empty() {
            continue;
        }
        if is_reference(t) {
            references += 1;
        } else {
            words.push(t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase());
        }
    }
    references > 0 && words.iter().all(|w| w.is_empty() || POINTER_WORDS.contains(&w.as_str()))
}

fn is_reference(t: &str) -> bool {
    let lower = t.to_lowercase();
    if let Some(path) = lower
        .strip_prefix("https://github.com/")
        .or_else(|| lower.strip_prefix("http://github.com/"))
    {
        let parts: Vec<&str> = path.split('/').collect();
        return parts.len() >= 4 && matches!(parts[2], "issues" | "pull" | "commit" | "commits");
    }
    // #12 or owner/repo#12
    if let Some((before, number)) = lower.rsplit_once('#') {
        let repo_ok = before.is_empty()
            || (before.split('/').count() == 2
                && !before.starts_with('/')
                && !before.ends_with('/'));
        return repo_ok && !number.is_empty() && number.chars().all(|c| c.is_ascii_digit());
    }
    // A commit hash, maybe owner/repo@hash.
    let hash = lower.rsplit_once('@').map_or(lower.as_str(), |(_, h)| h);
    (7..=40).contains(&hash.len())
        && hash.chars().all(|c| c.is_ascii_hexdigit())
        && hash.chars().any(|c| c.is_ascii_digit())
        && hash.chars().any(|c| c.is_ascii_alphabetic())
}

/// Read an export (`name` for messages).
pub fn read_export(bytes: &[u8], name: &str) -> Result<IssueExport, super::CoreqaError> {
    let text = bytes.strip_prefix(crate::input::limits::BOM.as_bytes()).unwrap_or(bytes);
    serde_json::from_slice(text)
        .map_err(|e| super::CoreqaError::Export { path: name.to_string(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_and_images() {
        assert!(has_code_block("x\n```rust\nfn f() {}\n```"));
        assert!(has_code_block("   ~~~\ncode\n   ~~~"));
        assert!(!has_code_block("    ```\nindented four: code, not a fence"));
        assert!(!has_code_block("inline `code` only"));
        for text in [
            "![shot](a.png)",
            "<IMG src=x>",
            "see https://example.com/a/b.JPG?raw=1",
            "https://github.com/user-attachments/assets/123",
        ] {
            assert!(has_image(text), "{text}");
        }
        for text in ["![ not an image\n](x)", "https://example.com/page.html", "a png file"] {
            assert!(!has_image(text), "{text}");
        }
    }

    #[test]
    fn comments_that_only_point_elsewhere() {
        for text in [
            "Duplicate of #12",
            "See #3.",
            "Fixed in abc1234",
            "fixed by acme/widget#40",
            "https://github.com/acme/widget/commit/0123456789abcdef0123456789abcdef01234567",
            "Closing in favor of https://github.com/acme/widget/issues/9",
            "#5",
        ] {
            assert!(only_points_elsewhere(text), "{text}");
        }
        for text in [
            "Fixed in abc1234: the trick was to pin the version.",
            "Thanks!",
            "Same here",
            "see the docs",
            "deadbeef",
            "1234567",
        ] {
            assert!(!only_points_elsewhere(text), "{text}");
        }
    }

    fn passing(number: u64) -> (Issue, Vec<Comment>) {
        let issue = Issue {
            number,
            state: "closed".into(),
            labels: vec![Label { name: "bug".into(), ..Label::default() }],
            body: Some("```\nx\n```".into()),
            ..Issue::default()
        };
        let mut reactions = IndexMap::new();
        reactions.insert("+1".to_string(), Value::from(1));
        let c = Comment { body: Some("works".into()), reactions, ..Comment::default() };
        (issue, vec![c.clone(), c.clone(), c])
    }

    #[test]
    fn at_most_300_issues_are_kept() {
        let mut export = IssueExport { repository: "a/b".into(), ..IssueExport::default() };
        for n in 1..=302 {
            let (issue, comments) = passing(n);
            export.comments.insert(n.to_string(), comments);
            export.issues.push(issue);
        }
        let report = filter_issues(&export);
        assert_eq!(report.kept, (1..=300).collect::<Vec<u64>>());
        assert_eq!(report.removed[&Filter::OverLimit], 2);
    }
}
