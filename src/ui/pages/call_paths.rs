//! The Tasks page's call-path side (NOT UPSTREAM, docs/call-path.md):
//! build the call-path tasks of the loaded dataset (`jobs::call_path`, the
//! core's `api::callpath` in the engine), see each pair and its gold path,
//! download the tasks as `repoqa prompts --task call-path` writes them;
//! once a model's answers are scored (Results), each task's verdict in its
//! row.

use leptos::prelude::*;

use crate::ui::browser::download::download_text;
use crate::ui::components::call_path_anatomy::CallPathAnatomy;
use crate::ui::components::progress::Progress;
use crate::ui::error::UiError;
use crate::ui::jobs::call_path::start_call_path_build;
use crate::ui::jobs::use_runner;
use crate::ui::state::use_state;

/// The tasks as JSONL, a compact JSON row each (the CLI's bytes).
fn tasks_jsonl(tasks: &[repoqa::callpath::task::CallPathTask]) -> Result<String, UiError> {
    let mut out = String::new();
    for t in tasks {
        out.push_str(&serde_json::to_string(t)?);
        out.push('\n');
    }
    Ok(out)
}

#[component]
pub fn CallPathTasks() -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let download_error = RwSignal::new(None::<UiError>);
    // The task whose prompt is shown below the table.
    let viewed = RwSignal::new(None::<String>);
    let download = move |_| {
        let Some(built) = state.call_paths.get_untracked() else { return };
        let name = repoqa::naming::call_path_tasks_file_name(
            &built.origin,
            built.code_context_size,
            false,
        );
        match tasks_jsonl(&built.tasks)
            .and_then(|text| download_text(&name, "application/jsonl", &text))
        {
            Ok(()) => download_error.set(None),
            Err(e) => download_error.set(Some(e)),
        }
    };
    // Built at other settings than the page's now.
    let stale = move || {
        state.call_paths.with(|b| {
            b.as_ref().is_some_and(|b| {
                let plan = crate::ui::jobs::call_path::plan_of(state);
                b.code_context_size != plan.code_context_size
            })
        })
    };
    // Each scored task's verdict, by task id.
    let verdicts = move || {
        state.call_path_scores.with(|s| {
            s.as_ref()
                .map(|s| {
                    s.file
                        .results
                        .iter()
                        .map(|r| {
                            (
                                r.id.clone(),
                                (
                                    r.verdict.passed(),
                                    repoqa::api::callpath::verdict_label(&r.verdict),
                                ),
                            )
                        })
                        .collect::<std::collections::HashMap<_, _>>()
                })
                .unwrap_or_default()
        })
    };
    view! {
        <section class="card" id="call-path-card">
            <h2>"Build call-path tasks " <span class="muted" id="call-path-label">"(NOT UPSTREAM)"</span></h2>
            <p class="note">"Given two functions A and B of a repository, the model names the shortest chain of calls from A to B, one function per line, or answers NO PATH — the \"more complex task\" RepoQA's paper promised and its unfinished interprocedural branch began. The call graph comes from the dataset itself; each repository gives up to 10 pairs (2 to 4 calls, a fifth with no path) whose functions all fit one window, SNF's window at the context size below. The tasks are what "
                <code>"repoqa prompts --task call-path"</code>" writes."</p>
            {move || state.dataset.get().map(|d| {
                let plan = crate::ui::jobs::call_path::plan_of(state);
                view! {
                    <p>"Dataset " <strong>{d.origin.clone()}</strong>
                        {format!(" · context {} tokens · languages: {}", plan.code_context_size,
                            if plan.filter.languages.is_empty() { "all".to_string() } else { plan.filter.languages.join(", ") })}
                        " · " <a href="#dataset">"change"</a></p>
                }
            })}
            <p>
                <button type="button" id="build-call-paths" class="primary"
                    disabled=move || state.dataset.get().is_none()
                    aria-disabled=move || runner.busy().to_string()
                    on:click=move |_| start_call_path_build(state, runner)>
                    {move || if state.call_paths.with(Option::is_none) { "Build call-path tasks" } else { "Rebuild call-path tasks" }}
                </button>
                {move || (!runner.busy() && stale()).then(|| view! {
                    <span class="fail" id="call-paths-stale">" The context size changed since these tasks were built: build again."</span>
                })}
            </p>
            <Progress/>
            {move || state.call_paths.get().filter(|b| !b.shortfalls.is_empty()).map(|b| view! {
                <details id="call-path-shortfalls">
                    <summary>{format!("{} gave fewer tasks than asked", crate::ui::format::count(b.shortfalls.len(), "repository", "repositories"))}</summary>
                    <ul>{b.shortfalls.iter().map(|s| view! { <li>{s.text()}</li> }).collect_view()}</ul>
                </details>
            })}
        </section>
        <section class="card" id="call-path-list-card">
            <h2>"Call-path tasks " <span class="muted" id="call-path-count"
                data-count=move || state.call_paths.with(|b| b.as_ref().map_or(0, |b| b.tasks.len())).to_string()>
                {move || format!("({})", state.call_paths.with(|b| b.as_ref().map_or(0, |b| b.tasks.len())))}</span></h2>
            <p>
                <button type="button" id="download-call-paths" disabled=move || state.call_paths.with(Option::is_none)
                    on:click=download>"Download call-path tasks (JSONL)"</button>
            </p>
            {move || download_error.get().map(|e| view! { <p class="fail" role="alert">{e.to_string()}</p> })}
            {move || match state.call_paths.get() {
                None => view! { <p class="muted" id="no-call-paths">"No call-path tasks yet: build them above."</p> }.into_any(),
                Some(b) => view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label="call-path tasks">
                        <table class="grid" id="call-path-table">
                            <thead><tr><th>"#"</th><th class="wide-only">"Language"</th><th>"From → to"</th><th class="wide-only">"Shortest path"</th><th class="wide-only">"Depths"</th><th>"Verdict"</th></tr></thead>
                            <tbody>
                                {let verdicts = verdicts(); b.tasks.iter().enumerate().map(move |(i, t)| {
                                    let (class, label) = match verdicts.get(&t.id()) {
                                        None => ("muted", "—".to_string()),
                                        Some((true, l)) => ("pass", l.clone()),
                                        Some((false, l)) => ("fail", l.clone()),
                                    };
                                    let gold = if t.path.is_empty() {
                                        "NO PATH".to_string()
                                    } else {
                                        format!("{} calls: {}", t.path.len() - 1, t.path.join(" → "))
                                    };
                                    let depths = t.depths.iter().map(|d| format!("{:.0}%", d * 100.0)).collect::<Vec<_>>().join(", ");
                                    view! {
                                        <tr class="call-path-row" data-id=t.id() data-calls=t.path_calls().map_or("none".to_string(), |c| c.to_string())>
                                            <td>{i + 1}</td>
                                            <td class="wide-only">{t.language.clone()}</td>
                                            <td class="call-path-pair"><code>{t.source.name.clone()}</code>" → "<code>{t.target.name.clone()}</code>
                                                <br/><span class="muted">{format!("{} · {} → {}", t.repo, t.source.file, t.target.file)}</span>
                                                // On a phone the path goes under the pair: no column off-screen.
                                                <span class="narrow-only">{gold.clone()}</span></td>
                                            <td class="wide-only">{gold}</td>
                                            <td class="wide-only">{depths}</td>
                                            <td><span class=class>{label}</span><br/>
                                                <button type="button" class="small call-path-view"
                                                    on:click={let id = t.id(); move |_| {
                                                        viewed.set(Some(id.clone()));
                                                        crate::ui::browser::dom::focus_into_view("call-path-task-view");
                                                    }}>"View"</button></td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }.into_any(),
            }}
        </section>
        {move || {
            let id = viewed.get()?;
            let task = state.call_paths.with(|b| b.as_ref().and_then(|b| b.tasks.iter().find(|t| t.id() == id).cloned()))?;
            let gold = if task.path.is_empty() { "NO PATH".to_string() } else { task.path.join(" → ") };
            Some(view! {
                <section class="card" id="call-path-task-view" tabindex="-1" aria-labelledby="call-path-task-title">
                    <h2 id="call-path-task-title">{format!("{} → {}", task.source.name, task.target.name)}</h2>
                    <p class="muted">{format!("{} · {} · {} → {}", task.language, task.repo, task.source.file, task.target.file)}</p>
                    <p>"The answer: " <strong id="call-path-task-gold">{gold}</strong></p>
                    <CallPathAnatomy task=task.clone()/>
                    <details id="call-path-task-prompt">
                        <summary>"The whole prompt"</summary>
                        <pre class="prompt" tabindex="0">{task.prompt()}</pre>
                    </details>
                </section>
            })
        }}
        <p class="note" id="call-path-next">"Next: ask a model these tasks on the "<a href="#run">"Run"</a>" page, or score an outputs file on "<a href="#results">"Results"</a>" (Task: call paths)."</p>
    }
}
