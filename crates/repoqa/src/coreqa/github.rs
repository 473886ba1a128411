//! Fetching a repository's issues export from GitHub's REST API (the page
//! does it with `fetch`; GitHub's API allows browser requests): which
//! requests to send, with which headers, and what a failed one means. The
//! export is the one `repoqa coreqa issues --export` reads
//! ([`super::issues::IssueExport`]).
//!
//! Closed issues come 100 per page (`GET /repos/{o}/{r}/issues?state=closed`,
//! newest first, pull requests included as the API lists them) until a
//! page holds fewer than 100 or [`MAX_ISSUE_PAGES`] pages are read; a fetch
//! stopped there says so, with how many GitHub lists (its `Link` header's
//! last page, [`capped_note`]), never a silent cut. Comments
//! (`GET /repos/{o}/{r}/issues/{n}/comments`, 100 per page) are fetched only
//! for the issues that pass the filters that need no comments (not a pull
//! request, closed, labelled, a code block and no image in the
//! description): the others fail the same filter whatever their comments
//! say, so the filter counts equal those of a full export, with far fewer
//! requests (GitHub allows 60 an hour without a token).

use super::issues::{failed_filter, Filter, Issue};
use super::CoreqaError;

/// GitHub's API.
pub const GITHUB_API: &str = "https://api.github.com";
/// Items per page (GitHub's most).
pub const PER_PAGE: usize = 100;
/// Issue pages read at most (5,000 issues and pull requests).
pub const MAX_ISSUE_PAGES: usize = 50;
/// Comment pages read at most per issue.
pub const MAX_COMMENT_PAGES: usize = 10;

/// `owner/name`, checked (letters, digits, `-`, `_`, `.`; one `/`).
pub fn check_repository(name: &str) -> Result<String, CoreqaError> {
    let name = name.trim().trim_end_matches('/');
    let name = name.strip_prefix("https://github.com/").unwrap_or(name);
    let ok_part = |p: &str| {
        !p.is_empty()
            && p != "."
            && p != ".."
            && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match name.split_once('/') {
        Some((o, r)) if ok_part(o) && ok_part(r) => Ok(format!("{o}/{r}")),
        _ => Err(CoreqaError::GitHub {
            message: format!("{name:?} is not a repository: give it as owner/name"),
        }),
    }
}

/// The address of page `page` (from 1) of the closed issues.
pub fn issues_url(api: &str, repository: &str, page: usize) -> String {
    format!(
        "{}/repos/{repository}/issues?state=closed&per_page={PER_PAGE}&page={page}",
        api.trim_end_matches('/')
    )
}

/// The address of page `page` (from 1) of an issue's comments.
pub fn comments_url(api: &str, repository: &str, number: u64, page: usize) -> String {
    format!(
        "{}/repos/{repository}/issues/{number}/comments?per_page={PER_PAGE}&page={page}",
        api.trim_end_matches('/')
    )
}

/// The headers of every request; the token, when given, as a bearer token.
pub fn headers(token: Option<&str>) -> Vec<(String, String)> {
    let mut h = vec![
        ("Accept".to_string(), "application/vnd.github+json".to_string()),
        ("X-GitHub-Api-Version".to_string(), "2022-11-28".to_string()),
    ];
    if let Some(t) = token.map(str::trim).filter(|t| !t.is_empty()) {
        h.push(("Authorization".to_string(), format!("Bearer {t}")));
    }
    h
}

/// Whether an issue's comments can change whether the filters keep it.
pub fn needs_comments(issue: &Issue) -> bool {
    matches!(failed_filter(issue, &[]), None | Some(Filter::FewPositive))
}

/// What a failed request means, with what to do.
pub fn request_error(url: &str, status: u16, body: &str, has_token: bool) -> CoreqaError {
    let says = crate::llm::api_message(body).map(|m| format!(": {m}")).unwrap_or_default();
    let message = match status {
        401 => format!("{url}: HTTP 401{says}; the token was refused (check it, or leave it out)"),
        403 | 429 if !has_token => format!(
            "{url}: HTTP {status}{says}; GitHub allows 60 requests an hour without a token: give a token (a fine-grained one with read access to public repositories is enough), or wait"
        ),
        403 | 429 => format!("{url}: HTTP {status}{says}; GitHub's rate limit for this token: wait"),
        404 => format!(
            "{url}: HTTP 404{says}; no such repository, or a private one (give a token that can read it)"
        ),
        _ => format!("{url}: HTTP {status}{says}"),
    };
    CoreqaError::GitHub { message }
}

/// GitHub's rate-limit headers of a reply (`X-RateLimit-Remaining`,
/// `X-RateLimit-Limit`, `X-RateLimit-Reset` in Unix seconds) and
/// `Retry-After` (seconds), as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateLimit {
    pub remaining: Option<u64>,
    pub limit: Option<u64>,
    pub reset: Option<u64>,
    pub retry_after: Option<u64>,
}

impl RateLimit {
    /// From the headers' texts (absent or unreadable ones are `None`).
    pub fn from_headers(
        remaining: Option<&str>,
        limit: Option<&str>,
        reset: Option<&str>,
        retry_after: Option<&str>,
    ) -> RateLimit {
        let n = |h: Option<&str>| h.and_then(|v| v.trim().parse().ok());
        RateLimit {
            remaining: n(remaining),
            limit: n(limit),
            reset: n(reset),
            retry_after: n(retry_after),
        }
    }

    /// How long to wait (seconds, from `now` in Unix seconds) before asking
    /// again after a reply of `status`: a 403 or 429 with no requests left
    /// waits for the reset, one with `Retry-After` for that; `None` for any
    /// other reply (a refusal that waiting does not cure).
    pub fn wait_s(&self, status: u16, now: u64) -> Option<u64> {
        if !matches!(status, 403 | 429) {
            return None;
        }
        if let Some(s) = self.retry_after {
            return Some(s);
        }
        match (self.remaining, self.reset) {
            (Some(0), Some(reset)) => Some(reset.saturating_sub(now) + 1),
            _ => None,
        }
    }

    /// "4,987 of 5,000 requests left this hour", when GitHub said.
    pub fn left_text(&self) -> Option<String> {
        let (left, of) = (self.remaining?, self.limit?);
        Some(format!(
            "{} of {} requests left this hour",
            crate::llm::progress::thousands(left),
            crate::llm::progress::thousands(of)
        ))
    }
}

/// The number of the last page a `Link` header names (`<…&page=87>;
/// rel="last"`, as GitHub sends on every page but the last): how many
/// pages there are in all.
pub fn last_page(link: &str) -> Option<usize> {
    link.split(',').find_map(|part| {
        let (target, params) = part.split_once(';')?;
        if !params.split(';').any(|p| p.trim().eq_ignore_ascii_case("rel=\"last\"")) {
            return None;
        }
        let url = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        let query = url.split_once('?')?.1;
        query.split('&').find_map(|kv| kv.strip_prefix("page=")?.parse().ok())
    })
}

/// What a fetch that stopped at [`MAX_ISSUE_PAGES`] with pages left read,
/// said plainly: `read` issues and pull requests, the newest, of about
/// `last_page × 100` (when the API said how many pages there are).
pub fn capped_note(read: usize, last_page: Option<usize>) -> String {
    let of = match last_page {
        Some(n) => format!(
            "GitHub lists about {} ({n} pages of {PER_PAGE})",
            crate::llm::progress::thousands((n * PER_PAGE) as u64)
        ),
        None => "GitHub lists more".to_string(),
    };
    format!(
        "Not all of them: these are the newest {}; {of}, and a fetch reads at most {MAX_ISSUE_PAGES} pages, so the older ones are not in this export",
        crate::llm::progress::thousands(read as u64)
    )
}

/// What a fetch says of the issues whose comments it cut at
/// [`MAX_COMMENT_PAGES`]; `None` when it cut none.
pub fn cut_comments_note(cut: &[u64]) -> Option<String> {
    if cut.is_empty() {
        return None;
    }
    let list: Vec<String> = cut.iter().map(|n| format!("#{n}")).collect();
    Some(format!(
        "Comments past the first {} of {} are not read.",
        crate::llm::progress::thousands((MAX_COMMENT_PAGES * PER_PAGE) as u64),
        list.join(", ")
    ))
}

/// One page of issues or comments: its items (as JSON values, so every
/// field is kept) and whether more pages may follow.
pub fn read_page<T: serde::de::DeserializeOwned>(
    url: &str,
    body: &str,
) -> Result<(Vec<T>, bool), CoreqaError> {
    let items: Vec<T> = serde_json::from_str(body).map_err(|e| CoreqaError::GitHub {
        message: format!("{url}: not a list of GitHub objects ({e})"),
    })?;
    let more = items.len() >= PER_PAGE;
    Ok((items, more))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_header_says_how_many_pages_there_are() {
        let link = r#"<https://api.github.com/repositories/1/issues?state=closed&per_page=100&page=2>; rel="next", <https://api.github.com/repositories/1/issues?state=closed&per_page=100&page=87>; rel="last""#;
        assert_eq!(last_page(link), Some(87));
        // The last page names no "last"; a header without pages says nothing.
        assert_eq!(
            last_page(
                r#"<https://x/issues?page=86>; rel="prev", <https://x/issues?page=1>; rel="first""#
            ),
            None
        );
        assert_eq!(last_page(""), None);
        assert_eq!(last_page("<https://x/issues?per_page=100>; rel=\"last\""), None);
        assert_eq!(cut_comments_note(&[]), None);
        assert_eq!(
            cut_comments_note(&[7, 12]).unwrap(),
            "Comments past the first 1,000 of #7, #12 are not read."
        );
        assert_eq!(
            capped_note(5000, Some(87)),
            "Not all of them: these are the newest 5,000; GitHub lists about 8,700 (87 pages of 100), and a fetch reads at most 50 pages, so the older ones are not in this export"
        );
    }

    #[test]
    fn a_rate_limited_reply_waits_for_the_reset() {
        let r = RateLimit::from_headers(Some("0"), Some("60"), Some("1000"), None);
        assert_eq!(r.wait_s(403, 990), Some(11));
        assert_eq!(r.wait_s(403, 2000), Some(1));
        assert_eq!(r.wait_s(404, 990), None);
        let left = RateLimit::from_headers(Some("4987"), Some("5000"), Some("1"), None);
        assert_eq!(left.wait_s(403, 0), None, "requests are left: a refusal waiting will not cure");
        assert_eq!(left.left_text().unwrap(), "4,987 of 5,000 requests left this hour");
        assert_eq!(RateLimit::from_headers(None, None, None, Some("7")).wait_s(429, 0), Some(7));
        assert_eq!(RateLimit::from_headers(Some("x"), None, None, None), RateLimit::default());
    }

    #[test]
    fn requests_and_what_failures_mean() {
        assert_eq!(check_repository(" https://github.com/acme/widget/ ").unwrap(), "acme/widget");
        for bad in ["acme", "acme/", "a/b/c", "../x", "a b/c"] {
            assert!(check_repository(bad).is_err(), "{bad}");
        }
        assert_eq!(
            issues_url("http://127.0.0.1:9/", "a/b", 2),
            "http://127.0.0.1:9/repos/a/b/issues?state=closed&per_page=100&page=2"
        );
        assert_eq!(
            comments_url(GITHUB_API, "a/b", 7, 1),
            "https://api.github.com/repos/a/b/issues/7/comments?per_page=100&page=1"
        );
        assert_eq!(headers(Some(" t ")).last().unwrap().1, "Bearer t");
        assert_eq!(headers(Some("")).len(), 2);
        let e = request_error("u", 403, r#"{"message": "API rate limit exceeded"}"#, false);
        assert!(e
            .to_string()
            .contains("API rate limit exceeded; GitHub allows 60 requests an hour"));
        let (items, more) = read_page::<serde_json::Value>("u", "[1, 2]").unwrap();
        assert_eq!((items.len(), more), (2, false));
        assert!(read_page::<serde_json::Value>("u", "{}").is_err());
    }

    #[test]
    fn comments_are_fetched_only_where_they_can_matter() {
        let issue = |body: &str, state: &str| -> Issue {
            serde_json::from_value(serde_json::json!({
                "number": 1, "title": "t", "state": state, "labels": [{"name": "bug"}], "body": body
            }))
            .unwrap()
        };
        assert!(needs_comments(&issue("```\nx\n```", "closed")));
        assert!(!needs_comments(&issue("no code", "closed")));
        assert!(!needs_comments(&issue("```\nx\n```", "open")));
        assert!(!needs_comments(&issue("```\nx\n```\n![a](b.png)", "closed")));
    }
}
