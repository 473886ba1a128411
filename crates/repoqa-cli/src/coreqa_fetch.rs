//! `repoqa coreqa fetch`: a repository's closed issues and the comments
//! the paper's filters need, from GitHub's REST API, into the export that
//! `coreqa issues` and `coreqa build` read. The requests, headers, pages
//! and what a failure means are the core's (`repoqa::coreqa::github`, the
//! same as the page's fetch); here they are sent, GitHub's rate limit is
//! waited out (its reset, shown), and the work so far is kept in
//! `<out>.partial` so that a fetch cut short goes on where it stopped.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use repoqa::coreqa::github::{
    capped_note, check_repository, comments_url, cut_comments_note, headers, issues_url, last_page,
    needs_comments, read_page, request_error, RateLimit, GITHUB_API, MAX_COMMENT_PAGES,
    MAX_ISSUE_PAGES,
};
use repoqa::coreqa::issues::{Comment, Issue, IssueExport};
use repoqa::coreqa::CoreqaError;
use repoqa::llm::HttpRequest;
use serde::{Deserialize, Serialize};

use crate::error::{fs_read, fs_write, CliError};
use crate::http::{agent, get_with_headers, key_from_env};

#[derive(clap::Args)]
pub struct FetchArgs {
    /// The repository: owner/name (or its github.com address).
    #[arg(long)]
    pub repo: String,
    /// Where the export goes: the file `coreqa issues --export` and
    /// `coreqa build --export` read. Work so far is kept beside it in
    /// `<out>.partial` until the fetch ends; run again to go on.
    #[arg(long)]
    pub out: PathBuf,
    /// GitHub's REST API address (another for GitHub Enterprise).
    #[arg(long, default_value = GITHUB_API)]
    pub api_url: String,
    /// The longest wait for GitHub's rate limit to reset, in seconds;
    /// past it the fetch stops (and keeps what it has). The token, if any,
    /// comes from GITHUB_TOKEN (60 requests an hour without one).
    #[arg(long, default_value_t = 3600)]
    pub max_wait_s: u64,
    /// Seconds for one request.
    #[arg(long, default_value_t = 60)]
    pub timeout_s: u64,
}

/// What a fetch has read so far (`<out>.partial`).
#[derive(Default, Serialize, Deserialize)]
struct Progress {
    export: IssueExport,
    /// Issue pages read (from 1).
    pages: usize,
    /// The issue pages are all read.
    issues_done: bool,
    /// How many pages GitHub lists (its Link header), when it said.
    last_page: Option<usize>,
    /// The issue pages stopped at [`MAX_ISSUE_PAGES`] with more left.
    capped: bool,
    /// Issues whose comments were cut at [`MAX_COMMENT_PAGES`].
    cut: Vec<u64>,
}

fn partial_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".partial");
    PathBuf::from(p)
}

fn now_s() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A page's items, whether more may follow, the last page the Link header
/// names, and what GitHub said of the rate limit.
type Page<T> = (Vec<T>, bool, Option<usize>, RateLimit);

/// One GET, waiting out the rate limit.
fn page<T: serde::de::DeserializeOwned>(
    agent: &ureq::Agent,
    url: &str,
    token: Option<&str>,
    max_wait_s: u64,
) -> Result<Page<T>, CoreqaError> {
    let req = HttpRequest { url: url.to_string(), headers: headers(token), body: String::new() };
    let names =
        ["link", "x-ratelimit-remaining", "x-ratelimit-limit", "x-ratelimit-reset", "retry-after"];
    loop {
        let (reply, h) = get_with_headers(agent, &req, &names)
            .map_err(|e| CoreqaError::GitHub { message: format!("{url}: {e}") })?;
        let limit = RateLimit::from_headers(
            h[1].as_deref(),
            h[2].as_deref(),
            h[3].as_deref(),
            h[4].as_deref(),
        );
        if (200..300).contains(&reply.status) {
            let (items, more) = read_page(url, &reply.body)?;
            return Ok((items, more, h[0].as_deref().and_then(last_page), limit));
        }
        match limit.wait_s(reply.status, now_s()) {
            Some(wait) if wait <= max_wait_s => {
                eprintln!(
                    "coreqa fetch: GitHub's rate limit: HTTP {}; waiting {wait} s for it to reset, then asking again",
                    reply.status
                );
                std::thread::sleep(Duration::from_secs(wait));
            }
            Some(wait) => {
                let e = request_error(url, reply.status, &reply.body, token.is_some());
                return Err(CoreqaError::GitHub {
                    message: format!(
                        "{e}; it resets in {wait} s, longer than --max-wait-s {max_wait_s}"
                    ),
                });
            }
            None => return Err(request_error(url, reply.status, &reply.body, token.is_some())),
        }
    }
}

pub fn fetch(a: FetchArgs) -> Result<(), CliError> {
    let repo = check_repository(&a.repo)?;
    let token = key_from_env(&["GITHUB_TOKEN"]);
    let agent = agent(Duration::from_secs(a.timeout_s.max(1)), 1);
    let partial = partial_path(&a.out);
    let mut p: Progress = match std::fs::metadata(&partial) {
        Ok(_) => {
            let bytes = fs_read(&partial, "partial fetch")?;
            let p: Progress = serde_json::from_slice(&bytes).map_err(|e| {
                CliError::usage(format!(
                    "{}: not a partial fetch ({e}); remove it to start over",
                    partial.display()
                ))
            })?;
            if p.export.repository != repo {
                return Err(CliError::usage(format!(
                    "{}: a partial fetch of {}, not {repo}; remove it or give another --out",
                    partial.display(),
                    p.export.repository
                )));
            }
            eprintln!(
                "coreqa fetch: going on from {} ({} issue pages and the comments of {} issues read)",
                partial.display(),
                p.pages,
                p.export.comments.len()
            );
            p
        }
        Err(_) => Progress {
            export: IssueExport { repository: repo.clone(), ..IssueExport::default() },
            ..Progress::default()
        },
    };
    let keep =
        |p: &Progress| -> Result<(), CliError> { fs_write(&partial, serde_json::to_vec(p)?) };
    let r = fetch_into(&mut p, &a, &agent, &repo, token.as_deref(), &keep);
    if let Err(e) = r {
        keep(&p)?;
        eprintln!(
            "coreqa fetch: stopped; what was read is kept in {}: run the same command again to go on",
            partial.display()
        );
        return Err(e);
    }
    fs_write(&a.out, serde_json::to_string_pretty(&p.export)?)?;
    let _ = std::fs::remove_file(&partial);
    let n = p.export.issues.len();
    eprintln!(
        "coreqa fetch: {n} closed issues and pull requests of {repo}, and the comments of {}, in {}",
        p.export.comments.len(),
        a.out.display()
    );
    if p.capped {
        eprintln!("coreqa fetch: {}.", capped_note(n, p.last_page));
    }
    if let Some(note) = cut_comments_note(&p.cut) {
        eprintln!("coreqa fetch: {note}");
    }
    Ok(())
}

/// "; 4,987 of 5,000 requests left this hour", when GitHub said.
fn left(limit: &RateLimit) -> String {
    limit.left_text().map(|t| format!("; {t}")).unwrap_or_default()
}

/// Read the pages and comments `p` does not have yet, keeping `p` after
/// each page of issues and every few issues' comments.
fn fetch_into(
    p: &mut Progress,
    a: &FetchArgs,
    agent: &ureq::Agent,
    repo: &str,
    token: Option<&str>,
    keep: &dyn Fn(&Progress) -> Result<(), CliError>,
) -> Result<(), CliError> {
    while !p.issues_done && p.pages < MAX_ISSUE_PAGES {
        let n = p.pages + 1;
        let (items, more, last, limit): Page<Issue> =
            page(agent, &issues_url(&a.api_url, repo, n), token, a.max_wait_s)?;
        let of = p.last_page.or(last).map(|l| format!(" of {l}")).unwrap_or_default();
        eprintln!("coreqa fetch: {repo}: closed issues, page {n}{of} read{}", left(&limit));
        p.export.issues.extend(items);
        p.pages = n;
        p.last_page = p.last_page.or(last);
        p.issues_done = !more;
        keep(p)?;
    }
    // Stopped at the most pages a fetch reads: the rest are left out (and
    // said so).
    if !p.issues_done {
        p.capped = true;
        p.issues_done = true;
    }
    let wanted: Vec<u64> = p
        .export
        .issues
        .iter()
        .filter(|i| needs_comments(i))
        .map(|i| i.number)
        .filter(|n| !p.export.comments.contains_key(&n.to_string()))
        .collect();
    for (k, number) in wanted.iter().enumerate() {
        let mut all: Vec<Comment> = Vec::new();
        let mut limit = RateLimit::default();
        for n in 1..=MAX_COMMENT_PAGES {
            let (items, more, _, l): Page<Comment> =
                page(agent, &comments_url(&a.api_url, repo, *number, n), token, a.max_wait_s)?;
            limit = l;
            all.extend(items);
            if more && n == MAX_COMMENT_PAGES {
                p.cut.push(*number);
            }
            if !more {
                break;
            }
        }
        p.export.comments.insert(number.to_string(), all);
        eprintln!(
            "coreqa fetch: {repo}: comments of #{number} read ({} of {}){}",
            k + 1,
            wanted.len(),
            left(&limit)
        );
        if (k + 1) % 10 == 0 {
            keep(p)?;
        }
    }
    Ok(())
}
