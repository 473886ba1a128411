//! The Tasks page: build the tasks (`jobs::build`), filter them, page
//! through them, and download them as the official tasks JSONL.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::report;
use repoqa::report::Task;

use crate::ui::browser::dom::target_value;
use crate::ui::browser::download::download_text;
use crate::ui::components::pager::{page_range, Pager};
use crate::ui::components::progress::Progress;
use crate::ui::components::task_switch::TaskSwitch;
use crate::ui::error::UiError;
use crate::ui::format::{bytes_label, thousands};
use crate::ui::jobs::build::{start_build, tasks_current};
use crate::ui::jobs::build_ladder::start_ladder_build;
use crate::ui::jobs::use_runner;
use crate::ui::pages::call_paths::CallPathTasks;
use crate::ui::state::answers::score_set;
use crate::ui::state::route::{task_href, TaskListView};
use crate::ui::state::use_state;

/// All tasks as the official tasks JSONL (`json.dumps(task)` per line).
fn tasks_jsonl(tasks: &[Arc<Task>]) -> Result<String, UiError> {
    let mut out = String::new();
    for t in tasks {
        out.push_str(&report::jsonl_line(t.as_ref())?);
    }
    Ok(out)
}

#[component]
pub fn TasksPage() -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    // The filters and the list's page live in the app's state, so opening a
    // task and coming back returns to the same view of the list.
    let TaskListView { lang, repo, status, query, page } = expect_context::<TaskListView>();
    let download_error = RwSignal::new(None::<UiError>);
    // How many rows match.
    let shown = RwSignal::new(0usize);

    let filtered = move || {
        let answers = state.answers.get();
        let (l, r, s, q) = (lang.get(), repo.get(), status.get(), query.get().to_lowercase());
        // Verdicts of the answered tasks (scoring.rs caches them per task).
        let threshold = state.settings.with(|st| st.threshold);
        let verdicts: std::collections::HashMap<String, bool> = if answers.is_empty() {
            Default::default()
        } else {
            score_set(state)
                .items
                .iter()
                .filter(|i| !i.pending())
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
        // Named after the dataset and the settings, as `repoqa prompts` names
        // it; tasks of the corrected protocol (NOT OFFICIAL) say so in the
        // name too (each one also carries "protocol": "corrected").
        let protocol = state.tasks.with_untracked(|ts| ts.first().map(|t| t.protocol));
        let origin = state.dataset.with_untracked(|d| d.as_ref().map(|d| d.origin.clone()));
        let name = state.settings.with_untracked(|s| {
            let mut b = s.build.clone();
            b.protocol = protocol.unwrap_or(b.protocol);
            repoqa::naming::tasks_file_name(origin.as_deref().unwrap_or(""), &b)
        });
        match r.and_then(|text| download_text(&name, "application/jsonl", &text)) {
            Ok(()) => download_error.set(None),
            Err(e) => download_error.set(Some(e)),
        }
    };
    let select_value = |ev: &leptos::ev::Event| target_value(ev);
    // The length ladder: lengths as typed, and what was wrong with them.
    let ladder_text = RwSignal::new("4096,8192,16384,32768".to_string());
    let ladder_error = RwSignal::new(None::<String>);
    let build_ladder = move |_| match repoqa::prompt::settings::parse_context_sizes(
        &ladder_text.get_untracked(),
    ) {
        Ok(lengths) => {
            ladder_error.set(None);
            start_ladder_build(state, runner, lengths);
        }
        Err(e) => ladder_error.set(Some(format!("Lengths: {e}."))),
    };

    use repoqa::api::TaskKind;
    let kind = state.task_kind;
    let switch = view! { <TaskSwitch/> };
    let snf = move || {
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
                                    if s.build.filter.languages.is_empty() { "all".to_string() } else { s.build.filter.languages.join(", ") },
                                    s.build.code_context_size, s.build.comment_mode, s.build.tokenizer_source)}
                                {(!s.build.filter.excluded_repos.is_empty()).then(|| format!(" · {} left out", crate::ui::format::count(s.build.filter.excluded_repos.len(), "repo", "repos")))}
                                {(!s.build.protocol.is_official()).then(|| view! { <strong class="fail" id="build-protocol">{format!(" · {}", s.build.protocol.label())}</strong> })}
                                " · " <a href="#dataset">"change"</a>
                            </p>
                        }.into_any()
                    }
                }}
                // Contexts far under the size asked (the demo's small
                // repositories): said, with why, beside the size.
                {move || {
                    if runner.busy() {
                        return None;
                    }
                    let size = state.tasks_settings.with(|b| b.as_ref().map(|b| b.code_context_size))?;
                    let (short, n, min) = state.tasks.with(|ts| {
                        let short = ts.iter().filter(|t| t.code_context_ntokens * 10 < size * 9).count();
                        Some((short, ts.len(), ts.iter().map(|t| t.code_context_ntokens).min()?))
                    })?;
                    (short > 0).then(|| view! {
                        <p class="note" id="context-range" data-short=short data-min=min data-size=size>
                            {format!(
                                "{} hold fewer tokens than the {} asked (the fewest {}): their repositories have less code than the window, so such a task's context is all of its repository's code. A larger repository fills the window.",
                                if short == n { format!("All {n} tasks") } else { format!("{short} of the {n} tasks") },
                                crate::ui::format::thousands(size), crate::ui::format::thousands(min)
                            )}
                        </p>
                    })
                }}
                <p>
                    // Not `disabled` while a job runs: a disabled button drops the
                    // keyboard's focus to the page top. A click then does nothing
                    // (start_build waits for no job), and the button says so.
                    <button type="button" id="build-tasks" class="primary"
                        disabled=move || state.dataset.get().is_none()
                        aria-disabled=move || runner.busy().to_string()
                        on:click=move |_| start_build(state, runner)>
                        {move || if state.tasks.with(|t| t.is_empty()) { "Build tasks" } else { "Rebuild tasks" }}
                    </button>
                    // While a build runs, the warning and the last build's
                    // figures would contradict it: they wait for its end.
                    {move || (!runner.busy() && !state.tasks.with(|t| t.is_empty()) && !tasks_current(state)).then(|| view! {
                        <span class="fail" id="tasks-stale">" The settings changed since these tasks were built: build again."</span>
                    })}
                </p>
                <Progress/>
                {move || state.build_stats.get().filter(|_| !runner.busy()).map(|s| view! {
                    <p class="muted" id="build-stats" data-tasks=s.tasks.to_string() data-ms=format!("{:.0}", s.ms)
                        data-from-cache=s.from_cache.to_string() data-max-chunk-ms=format!("{:.1}", s.max_chunk_ms)
                        data-workers=s.workers.to_string()>
                        {if s.from_cache {
                            // The job's line says "60 tasks restored from this
                            // browser's storage": here only what it does not.
                            format!("Read in {:.0} ms, not rebuilt: the dataset, tokenizer and settings are those they were built with.", s.ms)
                        } else {
                            let by = match s.workers {
                                0 => "by the compute engine's worker".to_string(),
                                1 => "by 1 background worker".to_string(),
                                n => format!("by {n} background workers, a repo each at a time"),
                            };
                            format!("{} tasks built in {:.2} s {by}, in {} steps; the page was never blocked longer than {:.0} ms.",
                                s.tasks, s.ms / 1000.0, s.chunks, s.max_chunk_ms)
                        }}
                    </p>
                })}
                <details id="ladder-build">
                    <summary>"Build a length ladder: these tasks at several context lengths, a file each"</summary>
                    <p class="note">"Each length is built with the settings above, only the context size changed, and offered as its own tasks file: byte for byte what "
                        <code>"repoqa prompts --code-context-size 4096,8192,…"</code>" writes. The tasks below stay as they are. To run a model over the ladder, use "
                        <a href="#run">"Run"</a>"'s \"Run at several lengths\", or "
                        <code>"repoqa run --code-context-size …"</code>" and load its result directory on the " <a href="#leaderboard">"Leaderboard"</a>
                        ". The files are kept until you leave the page."</p>
                    <p>
                        <label>"Lengths (tokens, comma-separated) "
                            <input type="text" id="ladder-lengths" inputmode="numeric" spellcheck="false"
                                aria-invalid=move || ladder_error.get().is_some().to_string()
                                prop:value=move || ladder_text.get()
                                on:input=move |ev| ladder_text.set(event_target_value(&ev)) /></label>
                        " "
                        <button type="button" id="build-ladder"
                            disabled=move || state.dataset.get().is_none()
                            aria-disabled=move || runner.busy().to_string()
                            on:click=build_ladder>"Build the ladder"</button>
                    </p>
                    {move || ladder_error.get().map(|e| view! { <p class="fail" id="ladder-error" role="alert">{e}</p> })}
                    {move || {
                        let files = state.ladder.get();
                        (!files.is_empty()).then(|| view! {
                            <ul id="ladder-files">
                                {files.into_iter().map(|f| view! {
                                    <li data-ntoken=f.ntoken data-tasks=f.tasks>
                                        <a href=f.url.clone() download=f.name.clone()>{format!("{} tokens", thousands(f.ntoken))}</a>
                                        <span class="muted">{format!(" — {} tasks, {}: {}", f.tasks, bytes_label(f.bytes as usize), f.name)}</span>
                                    </li>
                                }).collect_view()}
                            </ul>
                        })
                    }}
                </details>
                {move || (!runner.busy() && !state.tasks.with(|t| t.is_empty()) && tasks_current(state)).then(|| view! {
                    <p id="tasks-next-steps">"Next: answer them — paste or import a model's answers on "
                        <a href="#results">"Results"</a> ", or ask a model here in the page on " <a href="#run">"Run"</a> "."</p>
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
                            <option value="answered" selected=move || status.get() == "answered">"answered"</option>
                            <option value="unanswered" selected=move || status.get() == "unanswered">"unanswered"</option>
                            <option value="pass" selected=move || status.get() == "pass">"pass (at the threshold)"</option>
                            <option value="fail" selected=move || status.get() == "fail">"fail"</option>
                        </select>
                    </label>
                    <label>"Search " <input type="search" id="filter-text" placeholder="name or repo" prop:value=move || query.get()
                        on:input=move |ev| { query.set(event_target_value(&ev)); page.set(0); } /></label>
                    <button type="button" id="download-tasks" disabled=move || state.tasks.with(|t| t.is_empty())
                        on:click=download>"Download tasks (JSONL)"</button>
                </div>
                {move || download_error.get().map(|e| view! { <p class="fail">{e.to_string()}</p> })}
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
    };
    view! {
        {switch}
        {move || match kind.get() {
            TaskKind::Snf => snf().into_any(),
            TaskKind::CallPath => view! { <CallPathTasks/> }.into_any(),
        }}
    }
}
