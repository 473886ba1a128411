//! Loading the CoReQA page's files (picked, dropped, or the demo's), each
//! told apart and read by the core (`repoqa::coreqa::files`), and keeping
//! them in IndexedDB so a reload finds them.

use std::sync::Arc;

use indexmap::IndexMap;
use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::coreqa::files::{read_coreqa_file, CoreqaFile, MAX_COREQA_FILE_BYTES};
use repoqa::coreqa::github::{
    capped_note, check_repository, comments_url, cut_comments_note, headers, issues_url, last_page,
    needs_comments, read_page, request_error, MAX_COMMENT_PAGES, MAX_ISSUE_PAGES,
};
use repoqa::coreqa::issues::{Comment, Issue, IssueExport};
use repoqa::coreqa::qa::QaItem;
use repoqa::coreqa::text_dir::{text_files, TextDirLimits};
use serde::{Deserialize, Serialize};

use super::{Job, Runner};
use crate::ui::browser::dom::relative_path;
use crate::ui::browser::fetch::{fetch_bytes, get_text_and_header, read_blob};
use crate::ui::error::UiError;
use crate::ui::format::bytes_label;
use crate::ui::state::coreqa::{AskForm, CoreqaState, LoadedCoreqa, RepoText};
use crate::ui::storage;

/// Where the loaded files are kept.
const KEY_FILES: &str = "coreqa-files";

/// The demo (Trunk copies `public/demo/coreqa/` to `demo/coreqa/`): four
/// questions about the demo's semver crate (Rust) and four about the
/// inflection package (Python), and answers and verdicts from the
/// project's test model server (a deterministic stand-in, not a model).
pub const DEMO_FILES: [&str; 6] = [
    "semver-qa.jsonl",
    "inflection-qa.jsonl",
    "answers-good-model.jsonl",
    "answers-weak-model.jsonl",
    "judge-scores.jsonl",
    "pairwise-none.jsonl",
];

#[derive(Serialize, Deserialize)]
struct Saved {
    name: String,
    text: String,
    /// The run log of the replies asked into it from the page (JSON Lines
    /// of run records, as the CLI's `<output>.runlog.jsonl`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    log: String,
}

fn parse(name: String, bytes: Vec<u8>) -> Result<LoadedCoreqa, UiError> {
    let file = read_coreqa_file(&bytes, &name)?;
    // read_coreqa_file checked the bytes are UTF-8.
    let text: Arc<str> = String::from_utf8_lossy(&bytes).into();
    Ok(LoadedCoreqa { name, text, file: Arc::new(file) })
}

/// Where the "Ask a model" card's settings are kept.
const KEY_ASK_FORM: &str = "coreqa-ask-form";

/// Store the "Ask a model" card's settings (in the background).
pub fn save_form(st: CoreqaState) -> Result<(), UiError> {
    let json = serde_json::to_string(&st.ask.get_untracked())?;
    spawn_local(async move {
        if let Err(e) = storage::save_json(KEY_ASK_FORM, &json).await {
            leptos::logging::warn!("CoReQA settings not saved: {e}");
        }
    });
    Ok(())
}

/// Store every file on the page now (awaited: a reload right after finds
/// them).
pub async fn save(st: CoreqaState) -> Result<(), UiError> {
    let saved: Vec<Saved> = st.files.with_untracked(|fs| {
        st.logs.with_untracked(|logs| {
            fs.iter()
                .map(|f| Saved {
                    name: f.name.clone(),
                    text: f.text.to_string(),
                    log: logs.get(&f.name).cloned().unwrap_or_default(),
                })
                .collect()
        })
    });
    storage::save_json(KEY_FILES, &serde_json::to_string(&saved)?).await
}

/// Put the files read on the page, store them, and say what was loaded
/// and what was not.
async fn take(st: CoreqaState, read: Vec<Result<LoadedCoreqa, UiError>>) {
    let (mut loaded, mut errors) = (Vec::new(), Vec::new());
    for r in read {
        match r {
            Ok(l) => {
                loaded.push(format!("{} ({}, {})", l.name, l.file.kind(), l.file.len()));
                st.add(l);
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    if let Err(e) = save(st).await {
        errors.push(format!("Not saved for the next visit: {e}"));
    }
    report(st, loaded, errors);
}

fn report(st: CoreqaState, loaded: Vec<String>, errors: Vec<String>) {
    st.status.set(Some(if errors.is_empty() {
        Ok(format!("Loaded {}.", loaded.join(", ")))
    } else {
        Err(errors.join(" "))
    }));
}

/// Load picked or dropped files.
pub fn load_files(st: CoreqaState, files: Vec<web_sys::File>) {
    spawn_local(async move {
        let mut read = Vec::new();
        for f in files {
            let name = f.name();
            let r = async {
                let size = f.size() as u64;
                if size > MAX_COREQA_FILE_BYTES {
                    return Err(UiError::TooLarge {
                        what: name.clone(),
                        size: size as usize,
                        max: MAX_COREQA_FILE_BYTES as usize,
                    });
                }
                parse(name.clone(), read_blob(&f, &name).await?)
            }
            .await;
            read.push(r);
        }
        take(st, read).await;
    });
}

/// Load the demo's files.
pub fn load_demo(st: CoreqaState) {
    st.status.set(Some(Ok("Loading the demo…".into())));
    spawn_local(async move {
        let mut read = Vec::new();
        for name in DEMO_FILES {
            let r = async {
                parse(name.to_string(), fetch_bytes(&format!("demo/coreqa/{name}")).await?)
            }
            .await;
            read.push(r);
        }
        take(st, read).await;
    });
}

/// Read back the files saved by an earlier visit (once per page load).
pub fn restore(st: CoreqaState) {
    if st.restored.get_untracked() {
        return;
    }
    st.restored.set(true);
    spawn_local(async move {
        if let Ok(Some(json)) = storage::load_json(KEY_ASK_FORM).await {
            match serde_json::from_str::<AskForm>(&json) {
                Ok(f) => st.ask.set(f),
                Err(e) => leptos::logging::warn!("saved CoReQA settings unreadable: {e}"),
            }
        }
        let saved = match storage::load_json(KEY_FILES).await {
            Ok(Some(json)) => serde_json::from_str::<Vec<Saved>>(&json).unwrap_or_default(),
            _ => return,
        };
        let mut errors = Vec::new();
        for s in saved {
            if !s.log.is_empty() {
                st.logs.update(|logs| {
                    logs.entry(s.name.clone()).or_insert(s.log);
                });
            }
            match parse(s.name, s.text.into_bytes()) {
                Ok(l) if st.files.with_untracked(|fs| fs.iter().all(|f| f.name != l.name)) => {
                    st.add(l)
                }
                Ok(_) => {}
                Err(e) => errors.push(e.to_string()),
            }
        }
        if !errors.is_empty() {
            st.status.set(Some(Err(errors.join(" "))));
        }
    });
}

/// Remove one file (`None`: all of them).
pub fn remove(st: CoreqaState, name: Option<String>) {
    st.files.update(|fs| fs.retain(|f| name.as_ref().is_some_and(|n| &f.name != n)));
    st.logs.update(|logs| logs.retain(|n, _| name.as_ref().is_some_and(|m| n != m)));
    spawn_local(async move {
        let r = if st.files.with_untracked(Vec::is_empty) {
            storage::delete(KEY_FILES).await
        } else {
            save(st).await
        };
        if let Err(e) = r {
            st.status.set(Some(Err(format!("Not saved for the next visit: {e}"))));
        }
    });
}

/// The most a GitHub API reply may hold (a page of 100 issues is far less).
const MAX_PAGE_BYTES: usize = 64 << 20;

/// One page from GitHub's API: its items, whether more may follow, and
/// the number of the last page when the reply's `Link` header names it.
async fn github_page<T: serde::de::DeserializeOwned>(
    url: &str,
    headers: &[(String, String)],
    has_token: bool,
) -> Result<(Vec<T>, bool, Option<usize>), UiError> {
    let (status, body, link) =
        get_text_and_header(url, headers, MAX_PAGE_BYTES, Some("Link")).await?;
    if !(200..300).contains(&status) {
        return Err(request_error(url, status, &body, has_token).into());
    }
    let (items, more) = read_page(url, &body)?;
    Ok((items, more, link.as_deref().and_then(last_page)))
}

/// Fetch a repository's closed issues and the comments the filters need
/// from GitHub's API at `api` (`repoqa::coreqa::github`), and add the
/// export to the page's files. The token is used for these requests only,
/// never kept.
/// Progress and the outcome go to `status` (the form's own line), what the
/// fetch left out (issues past [`MAX_ISSUE_PAGES`] pages, comments past
/// [`MAX_COMMENT_PAGES`]) to `left_out`, a warning of its own.
pub fn fetch_issues(
    st: CoreqaState,
    status: RwSignal<Option<Result<String, String>>>,
    left_out: RwSignal<Option<String>>,
    repository: String,
    token: String,
    api: String,
) {
    left_out.set(None);
    spawn_local(async move {
        let r = async {
            let repo = check_repository(&repository)?;
            let has_token = !token.trim().is_empty();
            let headers = headers(Some(&token));
            let mut issues: Vec<Issue> = Vec::new();
            // The pages there are (from the first reply's Link header), and
            // whether the last page read still had more after it.
            let (mut pages, mut capped) = (None, false);
            for page in 1..=MAX_ISSUE_PAGES {
                let of = pages.map(|n: usize| format!(" of {n}")).unwrap_or_default();
                status.set(Some(Ok(format!("GitHub: {repo}: closed issues, page {page}{of}…"))));
                let (items, more, last) =
                    github_page::<Issue>(&issues_url(&api, &repo, page), &headers, has_token).await?;
                pages = pages.or(last);
                issues.extend(items);
                capped = more && page == MAX_ISSUE_PAGES;
                if !more {
                    break;
                }
            }
            let wanted: Vec<u64> =
                issues.iter().filter(|i| needs_comments(i)).map(|i| i.number).collect();
            let mut comments: IndexMap<String, Vec<Comment>> = IndexMap::new();
            // Issues with more comments than a fetch reads.
            let mut cut: Vec<u64> = Vec::new();
            for (k, number) in wanted.iter().enumerate() {
                status.set(Some(Ok(format!(
                    "GitHub: {repo}: comments of #{number} ({} of {})…",
                    k + 1,
                    wanted.len()
                ))));
                let mut all = Vec::new();
                for page in 1..=MAX_COMMENT_PAGES {
                    let url = comments_url(&api, &repo, *number, page);
                    let (items, more, _) = github_page::<Comment>(&url, &headers, has_token).await?;
                    all.extend(items);
                    if more && page == MAX_COMMENT_PAGES {
                        cut.push(*number);
                    }
                    if !more {
                        break;
                    }
                }
                comments.insert(number.to_string(), all);
            }
            let export = IssueExport { repository: repo.clone(), issues, comments };
            let text = serde_json::to_string_pretty(&export)?;
            let name = format!("{}-issues.json", repo.replace('/', "_"));
            let n = export.issues.len();
            st.add(LoadedCoreqa { name: name.clone(), text: text.into(), file: Arc::new(CoreqaFile::Export(export)) });
            save(st).await?;
            let mut notes: Vec<String> = Vec::new();
            if capped {
                notes.push(format!("{}.", capped_note(n, pages)));
            }
            notes.extend(cut_comments_note(&cut));
            left_out.set((!notes.is_empty()).then(|| notes.join(" ")));
            Ok::<String, UiError>(format!(
                "Fetched {n} closed issues and pull requests of {repo}, and the comments of {} ({name}).",
                wanted.len()
            ))
        }
        .await;
        status.set(Some(r.map_err(|e| e.to_string())));
    });
}

/// The file the page's own questions go to.
pub const OWN_QUESTIONS: &str = "my-questions.jsonl";

/// Add a question written in the page to [`OWN_QUESTIONS`] (its id:
/// `repository#my-N`, the first N not taken): what was done, or why not.
pub fn add_own_question(
    st: CoreqaState,
    repository: String,
    language: String,
    question: String,
    reference: String,
) -> Result<String, String> {
    let r: Result<String, UiError> = (|| {
        let repository = check_repository(&repository)?;
        if question.trim().is_empty() || reference.trim().is_empty() {
            return Err(UiError::invalid("Write the question and its reference answer."));
        }
        let mut items: Vec<QaItem> = st.files.with_untracked(|fs| {
            fs.iter()
                .find(|f| f.name == OWN_QUESTIONS)
                .and_then(|f| match &*f.file {
                    CoreqaFile::Qa(items) => Some(items.clone()),
                    _ => None,
                })
                .unwrap_or_default()
        });
        let taken: std::collections::HashSet<String> =
            st.questions().into_iter().map(|q| q.id).collect();
        let id = (1..)
            .map(|n| format!("{repository}#my-{n}"))
            .find(|id| !taken.contains(id))
            .unwrap_or_default();
        items.push(QaItem {
            id: id.clone(),
            repository,
            language: Some(language.trim().to_string()).filter(|l| !l.is_empty()),
            issue_url: None,
            question: question.trim_end().to_string(),
            reference_answer: reference.trim_end().to_string(),
            reference_chunks: None,
            issue: None,
            rest: Default::default(),
        });
        let mut text = String::new();
        for item in &items {
            text.push_str(&serde_json::to_string(item)?);
            text.push('\n');
        }
        st.add(LoadedCoreqa {
            name: OWN_QUESTIONS.to_string(),
            text: text.into(),
            file: Arc::new(CoreqaFile::Qa(items)),
        });
        Ok::<String, UiError>(id)
    })();
    let id = r.map_err(|e| e.to_string())?;
    spawn_local(async move {
        if let Err(e) = save(st).await {
            st.status.set(Some(Err(format!("Not saved for the next visit: {e}"))));
        }
    });
    Ok(format!("Added {id} to {OWN_QUESTIONS}."))
}

/// Read the repository the retrieval and whole settings use: every text
/// file of a picked folder (`folder`) or of one archive, by the rules
/// `repoqa coreqa answer --repo` reads a folder with
/// (`repoqa::coreqa::text_dir::text_files`).
pub fn load_repo(st: CoreqaState, runner: Runner, files: Vec<web_sys::File>, folder: bool) {
    let job = Job::new("Reading the repository");
    runner.spawn(job, move |ctx| async move {
        let limits = TextDirLimits::default();
        let (name, read, mut skipped, what) = if folder {
            let Some(first) = files.first() else {
                return Err(UiError::invalid("The folder is empty."));
            };
            let name = relative_path(first).split('/').next().unwrap_or("folder").to_string();
            let (mut read, mut skipped) = (Vec::new(), Vec::new());
            let total = files.len();
            for (i, f) in files.iter().enumerate() {
                // "name/src/lib.rs" -> "src/lib.rs", as the folder's root.
                let full = relative_path(f);
                let path = full.split_once('/').map(|(_, p)| p.to_string()).unwrap_or(full);
                if path.split('/').any(|c| c == ".git") {
                    continue;
                }
                if f.size() as u64 > limits.max_file_bytes {
                    let limit = repoqa::input::limits::size_label(limits.max_file_bytes);
                    skipped.push((path, format!("larger than {limit}")));
                    continue;
                }
                let bytes = read_blob(f, &path).await?;
                read.push((path, bytes));
                if ctx.over_budget() {
                    ctx.progress(format!("Reading {name}: {i} of {total} files…"), i, total);
                    let _ = ctx.turn().await;
                }
            }
            let what = format!("folder {name}: {total} files");
            (name, read, skipped, what)
        } else {
            let [file] = &files[..] else {
                return Err(UiError::invalid("Pick one archive (.zip, .tar or .tar.gz)."));
            };
            let name = file.name();
            let (contents, size) = super::curate::unpack_archive(&ctx, file, true).await?;
            let what = format!(
                "{} archive {name} ({}): {} entries",
                contents.format.name(),
                bytes_label(size),
                contents.entries
            );
            let read = contents.files.into_iter().map(|f| (f.path, f.bytes)).collect();
            (name, read, Vec::new(), what)
        };
        let mut dir = text_files(&name, read, limits)?;
        skipped.append(&mut dir.skipped);
        dir.skipped = skipped;
        if dir.files.is_empty() {
            return Err(UiError::invalid(format!(
                "{name}: no text file to read (UTF-8, no NUL byte)."
            )));
        }
        let left_out = if dir.skipped.is_empty() {
            String::new()
        } else {
            format!(
                ", {} left out ({})",
                dir.skipped.len(),
                dir.skipped
                    .iter()
                    .map(|(p, why)| format!("{p}: {why}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        };
        let summary = format!("{what}, {} text files{left_out}", dir.files.len());
        ctx.done(format!("Read the repository {summary}."));
        st.repo.set(Some(Arc::new(RepoText { dir, summary })));
        Ok(())
    });
}

/// Load a QA, answers or verdicts file (or an issues export) from `url`:
/// read with the file limit, named by the URL's last path segment.
pub fn load_url(st: CoreqaState, runner: Runner, url: String) {
    let url = url.trim().to_string();
    if url.is_empty() {
        return st.status.set(Some(Err("Give the file's address (http:// or https://).".into())));
    }
    let name = url
        .split(['?', '#'])
        .next()
        .and_then(|u| u.trim_end_matches('/').rsplit('/').next())
        .filter(|n| !n.is_empty() && !n.contains(':'))
        .unwrap_or("from-url.jsonl")
        .to_string();
    runner.spawn(Job::new(format!("Loading {name}")), move |ctx| async move {
        let max = MAX_COREQA_FILE_BYTES as usize;
        let loaded = async {
            let bytes = super::fetch::fetch_with_progress(&ctx, &url, &name, max).await?;
            parse(name.clone(), bytes)
        }
        .await;
        take(st, vec![loaded]).await;
        Ok(())
    });
}
