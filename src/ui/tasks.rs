//! The Tasks page (build, filter, download) and the view of one task (the
//! full prompt as text with the needle highlighted, where it sits, its
//! token counts, copy).
//!
//! Locating the needle in the prompt: the core does not report the
//! character range of the needle inside `code_context`, so the view finds
//! the needle's text there. The needle text is sliced from the dataset as
//! `make_code_context` slices it (`start_byte..end_byte` used as code-point
//! indices, P3); if it occurs more than once, the occurrence whose position
//! is closest to `needle_token_start / code_context_ntokens` wins. With the
//! comment-cleaning modes the needle's comments are gone, so its exact
//! text may not occur: then its reference lines (S3) are tried, and if they
//! do not occur either the view says so instead of guessing.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::context::Task;
use repoqa::dataset::Dataset;
use repoqa::report;
use wasm_bindgen::JsCast;

use super::build;
use super::download::download_text;
use super::pager::{page_range, Pager};
use super::progress::Progress;
use super::settings;
use super::state::{use_state, AppState, Job};

/// `#task/<id>` for a task id.
pub fn task_href(id: &str) -> String {
    format!("#task/{}", String::from(js_sys::encode_uri_component(id)))
}

/// Where the needle is in `task.code_context` (byte range), and how it was
/// found.
#[derive(Clone, Debug, PartialEq)]
pub struct NeedleSpan {
    pub start: usize,
    pub end: usize,
    pub how: &'static str,
}

/// The needle text as `make_code_context` cuts it: code-point indices.
fn needle_text(dataset: &Dataset, task: &Task) -> Option<(String, Option<String>)> {
    let repo = dataset.repo(&task.language, &task.repo)?;
    let needle = repo.needles.iter().find(|n| n.name == task.name && n.path == task.path)?;
    let text = repo.content.get(&needle.path)?;
    let cp = |i: usize| text.char_indices().nth(i).map(|(b, _)| b).unwrap_or(text.len());
    let (a, b) = (cp(needle.start_byte), cp(needle.end_byte));
    let exact = text.get(a..b.max(a))?.to_string();
    let reference = repo.reference_text(&needle.path, needle.start_line, needle.end_line);
    Some((exact, reference))
}

pub fn locate_needle(dataset: &Dataset, task: &Task) -> Option<NeedleSpan> {
    let (exact, reference) = needle_text(dataset, task)?;
    let ctx = &task.code_context;
    let want = if task.code_context_ntokens > 0 {
        task.needle_token_start as f64 / task.code_context_ntokens as f64
    } else {
        0.5
    };
    let best = |pat: &str| -> Option<usize> {
        if pat.trim().is_empty() {
            return None;
        }
        ctx.match_indices(pat).map(|(i, _)| i).min_by(|&x, &y| {
            let dx = (x as f64 / ctx.len().max(1) as f64 - want).abs();
            let dy = (y as f64 / ctx.len().max(1) as f64 - want).abs();
            dx.total_cmp(&dy)
        })
    };
    if let Some(i) = best(&exact) {
        return Some(NeedleSpan { start: i, end: i + exact.len(), how: "exact" });
    }
    let reference = reference?;
    let i = best(&reference)?;
    Some(NeedleSpan { start: i, end: i + reference.len(), how: "reference lines" })
}

/// All tasks as the official tasks JSONL (`json.dumps(task)` per line).
fn tasks_jsonl(tasks: &[Arc<Task>]) -> Result<String, String> {
    let mut out = String::new();
    for t in tasks {
        out.push_str(&report::jsonl_line(t.as_ref()).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// Are the tasks shown built for the current dataset, settings and
/// tokenizer?
fn tasks_current(state: AppState) -> bool {
    let Some(key) = state.tasks_key.get() else { return false };
    let Some(digest) = state.dataset_digest.get() else { return false };
    let prompts = settings::prompt_key(&state.settings.get());
    let head = format!("{}{digest}:{prompts}:tok=", super::storage::TASKS_PREFIX);
    match state.tokenizer_id.get() {
        Some(tok) => key == format!("{head}{tok}"),
        None => key.starts_with(&head),
    }
}

#[component]
pub fn TasksPage() -> impl IntoView {
    let state = use_state();
    let lang = RwSignal::new(String::new());
    let repo = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let query = RwSignal::new(String::new());
    let download_error = RwSignal::new(None::<String>);
    // Which page of the (filtered) list is shown, and how many rows match.
    let page = RwSignal::new(0usize);
    let shown = RwSignal::new(0usize);

    let filtered = move || {
        let answers = state.answers.get();
        let (l, r, s, q) = (lang.get(), repo.get(), status.get(), query.get().to_lowercase());
        // Verdicts of the answered tasks (scoring.rs caches them per task).
        let threshold = state.settings.with(|st| st.threshold);
        let verdicts: std::collections::HashMap<String, bool> = if answers.is_empty() {
            Default::default()
        } else {
            super::scoring::score_set(state)
                .items
                .iter()
                .map(|i| (i.task.task_id(), i.passes(threshold)))
                .collect()
        };
        state.tasks.with(|tasks| {
            tasks
                .iter()
                .enumerate()
                .filter(|(_, t)| l.is_empty() || t.language == l)
                .filter(|(_, t)| r.is_empty() || t.repo == r)
                .filter(|(_, t)| {
                    let answered = answers.get(&t.task_id()).is_some_and(|a| !a.trim().is_empty());
                    let verdict = verdicts.get(&t.task_id()).copied();
                    match s.as_str() {
                        "answered" => answered,
                        "unanswered" => !answered,
                        "pass" => answered && verdict == Some(true),
                        "fail" => answered && verdict == Some(false),
                        _ => true,
                    }
                })
                .filter(|(_, t)| q.is_empty() || t.task_id().to_lowercase().contains(&q))
                .map(|(i, t)| {
                    let answered = answers.get(&t.task_id()).is_some_and(|a| !a.trim().is_empty());
                    let label = match (answered, verdicts.get(&t.task_id())) {
                        (false, _) => "—",
                        (true, Some(true)) => "pass",
                        (true, Some(false)) => "fail",
                        (true, None) => "answered",
                    };
                    (i, t.clone(), answered, label)
                })
                .collect::<Vec<_>>()
        })
    };
    let languages = move || {
        state.tasks.with(|ts| {
            let mut v: Vec<String> = Vec::new();
            for t in ts {
                if !v.contains(&t.language) {
                    v.push(t.language.clone());
                }
            }
            v
        })
    };
    let repos = move || {
        let l = lang.get();
        state.tasks.with(|ts| {
            let mut v: Vec<String> = Vec::new();
            for t in ts.iter().filter(|t| l.is_empty() || t.language == l) {
                if !v.contains(&t.repo) {
                    v.push(t.repo.clone());
                }
            }
            v
        })
    };
    let download = move |_| {
        let r = state.tasks.with_untracked(|ts| tasks_jsonl(ts));
        match r.and_then(|text| download_text("repoqa-tasks.jsonl", "application/jsonl", &text)) {
            Ok(()) => download_error.set(None),
            Err(e) => download_error.set(Some(e)),
        }
    };
    let select_value = |ev: &leptos::ev::Event| {
        ev.target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            .map(|s| s.value())
            .unwrap_or_default()
    };

    view! {
        <section class="card" id="build-card">
            <h2>"Build the tasks"</h2>
            {move || match state.dataset.get() {
                None => view! { <p>"No dataset yet: " <a href="#dataset">"load one"</a> "."</p> }.into_any(),
                Some(d) => {
                    let s = state.settings.get();
                    view! {
                        <p>
                            "Dataset " <strong>{d.origin.clone()}</strong>
                            {format!(" · languages: {} · context {} tokens · comments: {} · tokenizer: {}",
                                if s.languages.is_empty() { "all".to_string() } else { s.languages.join(", ") },
                                s.code_context_size, s.comment_mode, s.tokenizer_source)}
                            {(!s.excluded_repos.is_empty()).then(|| format!(" · {} repos left out", s.excluded_repos.len()))}
                            " · " <a href="#dataset">"change"</a>
                        </p>
                    }.into_any()
                }
            }}
            <p>
                <button type="button" id="build-tasks" class="primary"
                    disabled=move || state.dataset.get().is_none() || matches!(state.job.get(), Job::Running { .. })
                    on:click=move |_| build::start_build(state)>
                    {move || if state.tasks.with(|t| t.is_empty()) { "Build tasks" } else { "Rebuild tasks" }}
                </button>
                {move || (!state.tasks.with(|t| t.is_empty()) && !tasks_current(state)).then(|| view! {
                    <span class="fail" id="tasks-stale">" The settings changed since these tasks were built: build again."</span>
                })}
            </p>
            <Progress/>
            {move || state.build_stats.get().map(|s| view! {
                <p class="muted" id="build-stats" data-tasks=s.tasks.to_string() data-ms=format!("{:.0}", s.ms)
                    data-from-cache=s.from_cache.to_string() data-max-chunk-ms=format!("{:.1}", s.max_chunk_ms)>
                    {if s.from_cache {
                        format!("{} tasks read from this browser's storage in {:.0} ms (not rebuilt).", s.tasks, s.ms)
                    } else {
                        format!("{} tasks built in {:.2} s, in {} steps; the page was never blocked longer than {:.0} ms.",
                            s.tasks, s.ms / 1000.0, s.chunks, s.max_chunk_ms)
                    }}
                </p>
            })}
        </section>
        <section class="card" id="task-list-card">
            <h2>"Tasks " <span class="muted" id="task-count" data-count=move || state.tasks.with(|t| t.len()).to_string()>
                {move || format!("({})", state.tasks.with(|t| t.len()))}</span></h2>
            <div class="filters">
                <label>"Language "
                    <select id="filter-lang" on:change=move |ev| { lang.set(select_value(&ev)); repo.set(String::new()); page.set(0); }>
                        <option value="">"all"</option>
                        {move || languages().into_iter().map(|l| view! { <option value=l.clone() selected=lang.get() == l>{l.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Repo "
                    <select id="filter-repo" on:change=move |ev| { repo.set(select_value(&ev)); page.set(0); }>
                        <option value="">"all"</option>
                        {move || repos().into_iter().map(|r| view! { <option value=r.clone() selected=repo.get() == r>{r.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Status "
                    <select id="filter-status" on:change=move |ev| { status.set(select_value(&ev)); page.set(0); }>
                        <option value="">"all"</option>
                        <option value="answered">"answered"</option>
                        <option value="unanswered">"unanswered"</option>
                        <option value="pass">"pass (at the threshold)"</option>
                        <option value="fail">"fail"</option>
                    </select>
                </label>
                <label>"Search " <input type="search" id="filter-text" placeholder="name or repo"
                    on:input=move |ev| { query.set(event_target_value(&ev)); page.set(0); } /></label>
                <button type="button" id="download-tasks" disabled=move || state.tasks.with(|t| t.is_empty())
                    on:click=download>"Download tasks (JSONL)"</button>
            </div>
            {move || download_error.get().map(|e| view! { <p class="fail">{e}</p> })}
            <table class="grid tasks">
                <thead><tr><th>"#"</th><th>"Language"</th><th>"Repo"</th><th>"Needle"</th><th>"Depth"</th><th>"Context tokens"</th><th>"Answer"</th></tr></thead>
                <tbody id="task-rows">
                    {move || {
                        let rows = filtered();
                        shown.set(rows.len());
                        let range = page_range(page.get(), rows.len());
                        rows.into_iter().skip(range.start).take(range.len()).map(|(i, t, answered, label)| {
                            let id = t.task_id();
                            view! {
                                <tr class="task-row" data-task-id=id.clone() data-answered=answered.to_string()>
                                    <td>{i + 1}</td>
                                    <td>{t.language.clone()}</td>
                                    <td>{t.repo.clone()}</td>
                                    <td><a href=task_href(&id)>{t.name.clone()}</a></td>
                                    <td>{format!("{:.0}%", t.position_ratio * 100.0)}</td>
                                    <td>{t.code_context_ntokens}</td>
                                    <td class=match label { "pass" => "pass", "fail" => "fail", _ => "" }>{label}</td>
                                </tr>
                            }
                        }).collect_view()
                    }}
                </tbody>
            </table>
            <Pager id="tasks" total=shown page=page/>
            {move || (state.tasks.with(|t| t.is_empty())).then(|| view! {
                <p class="muted" id="no-tasks">"No tasks yet: build them above."</p>
            })}
        </section>
    }
}

#[component]
pub fn TaskView(id: String) -> impl IntoView {
    let state = use_state();
    let copied = RwSignal::new(None::<Result<String, String>>);
    let id_for_find = id.clone();
    let found = move || {
        let index = state.tasks.with(|ts| ts.iter().position(|t| t.task_id() == id_for_find))?;
        let task = state.tasks.with(|ts| ts[index].clone());
        let total = state.tasks.with(|ts| ts.len());
        Some((index, total, task))
    };
    view! {
        {move || match found() {
            None => view! {
                <section class="card" id="task-view" data-found="false">
                    <h2>"Task not found"</h2>
                    <p>{format!("There is no built task {:?}. ", id)} <a href="#tasks">"Back to the tasks"</a></p>
                </section>
            }.into_any(),
            Some((index, total, task)) => {
                let span = state.dataset.with(|d| d.as_ref().and_then(|d| locate_needle(&d.dataset, &task)));
                let prompt = task.prompt();
                let ctx = task.code_context.as_str();
                let (before, needle, after) = match &span {
                    Some(s) => (&ctx[..s.start], &ctx[s.start..s.end], &ctx[s.end..]),
                    None => (ctx, "", ""),
                };
                let head = format!("{}{}", task.instruction, before);
                let tail = format!("{}{}{}", after, task.description, task.instruction);
                let needle_text = needle.to_string();
                let start_pct = if task.code_context_ntokens > 0 { task.needle_token_start as f64 * 100.0 / task.code_context_ntokens as f64 } else { 0.0 };
                let end_pct = if task.code_context_ntokens > 0 { task.needle_token_end as f64 * 100.0 / task.code_context_ntokens as f64 } else { 0.0 };
                let prev = (index > 0).then(|| state.tasks.with(|ts| ts[index - 1].task_id()));
                let next = (index + 1 < total).then(|| state.tasks.with(|ts| ts[index + 1].task_id()));
                let copy_text = prompt.clone();
                let copy = move |_| {
                    let text = copy_text.clone();
                    leptos::task::spawn_local(async move {
                        let r = match web_sys::window() {
                            Some(w) => wasm_bindgen_futures::JsFuture::from(w.navigator().clipboard().write_text(&text))
                                .await
                                .map(|_| format!("Copied {} characters.", text.chars().count()))
                                .map_err(|e| super::storage::js_error("Copy failed", &e)),
                            None => Err("Copy failed: no window".into()),
                        };
                        copied.set(Some(r));
                    });
                };
                let jump = move |_| {
                    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("needle")) {
                        el.scroll_into_view();
                    }
                };
                let task_id = task.task_id();
                view! {
                    <section class="card" id="task-view" data-found="true" data-task-id=task_id.clone()
                        data-needle-found=span.is_some().to_string()
                        data-needle-how=span.as_ref().map(|s| s.how).unwrap_or("none")>
                        <p class="crumbs"><a href="#tasks">"← Tasks"</a>
                            {format!("  ·  task {} of {total}  ·  ", index + 1)}
                            {prev.map(|p| view! { <a href=task_href(&p) id="prev-task">"previous"</a> })}
                            " "
                            {next.map(|n| view! { <a href=task_href(&n) id="next-task">"next"</a> })}
                        </p>
                        <h2>{task.name.clone()}</h2>
                        <dl class="facts">
                            <dt>"Task id"</dt><dd><code>{task_id.clone()}</code></dd>
                            <dt>"File"</dt><dd><code>{task.path.clone()}</code></dd>
                            <dt>"Depth (position_ratio)"</dt><dd id="position-ratio">{format!("{}", task.position_ratio)}</dd>
                            <dt>"Needle tokens"</dt><dd id="needle-tokens">{format!("{} … {} of {} context tokens ({:.1}% – {:.1}%)",
                                task.needle_token_start, task.needle_token_end, task.code_context_ntokens, start_pct, end_pct)}</dd>
                            <dt>"Prompt"</dt><dd>{format!("{} characters", prompt.chars().count())}</dd>
                        </dl>
                        <div class="depth" title="Where the needle sits in the code context (by tokens)">
                            <div class="depth-needle" style:left=format!("{start_pct:.2}%")
                                style:width=format!("{:.2}%", (end_pct - start_pct).max(0.5))></div>
                            <div class="depth-ratio" style:left=format!("{:.2}%", task.position_ratio * 100.0)></div>
                        </div>
                        <p class="muted small">"Bar: the code context by tokens; blue = the needle, line = position_ratio."</p>
                        <p class="desc"><strong>"Description: "</strong>{task.description.trim().to_string()}</p>
                        <p>
                            <button type="button" id="copy-prompt" on:click=copy>"Copy prompt"</button>
                            " "
                            <button type="button" id="jump-needle" on:click=jump disabled=span.is_none()>"Go to the needle"</button>
                            {move || copied.get().map(|r| match r {
                                Ok(m) => view! { <span class="pass" id="copy-status">" " {m}</span> }.into_any(),
                                Err(e) => view! { <span class="fail" id="copy-status">" " {e}</span> }.into_any(),
                            })}
                        </p>
                        {span.is_none().then(|| view! {
                            <p class="fail" id="needle-missing">"The needle's text was not found in this context (the comment-cleaning modes change it), so it is not highlighted."</p>
                        })}
                        <AnswerSlot task_id=task_id.clone()/>
                        <h3>"Prompt"</h3>
                        <pre id="prompt" class="prompt">{head}<mark id="needle">{needle_text}</mark>{tail}</pre>
                    </section>
                }.into_any()
            }
        }}
    }
}

/// Where the answer box goes (`answers.rs`, built separately).
#[component]
fn AnswerSlot(task_id: String) -> impl IntoView {
    view! { <div id="answer-slot" data-task-id=task_id.clone()><super::answers::AnswerBox task_id=task_id.clone()/></div> }
}
