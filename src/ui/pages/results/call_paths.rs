//! The Results page's call-path side (NOT UPSTREAM, docs/call-path.md): a
//! model's call-path answers — the Run page's run, or an outputs file —
//! scored as `repoqa score --task call-path` scores them (`jobs::call_path`,
//! the core's `api::callpath` in the engine): pass@1, pass by path length ×
//! how far apart the path's functions sit (the spread of their depths),
//! each task's verdict, and a verdict view that draws the model's path over
//! the graph's shortest one, step by step. Replies and names are text.

use leptos::prelude::*;
use repoqa::api::callpath::{verdict_label, CallPathResult};
use repoqa::callpath::score::PassRate;
use repoqa::callpath::verdict::Reading;

use crate::ui::browser::download::download_text;
use crate::ui::components::progress::Progress;
use crate::ui::error::UiError;
use crate::ui::jobs::call_path::{
    ensure_run_restored, run_file_name, start_call_path_score, start_run_score,
};
use crate::ui::jobs::use_runner;
use crate::ui::state::app::CallPathScored;
use crate::ui::state::use_state;

/// The spread bins of the score's cross table, in order.
const SPREADS: [&str; 4] = ["0-25%", "25-50%", "50-75%", "75-100%"];

fn cell(r: Option<&PassRate>) -> String {
    r.and_then(|r| r.pass_at_1.map(|p| format!("{p:.0}% ({}/{})", r.passed, r.total)))
        .unwrap_or_else(|| "–".into())
}

/// The source's and the target's names in a task id
/// (`repo::file:name->file:name`).
fn ends_of(id: &str) -> (String, String) {
    let name = |s: &str| s.rsplit(':').next().unwrap_or(s).to_string();
    id.split_once("->").map(|(a, b)| (name(a), name(b))).unwrap_or_default()
}

/// The report `repoqa report --task call-path` writes of the SCORES file
/// named `name` (its inputs: that file and its SHA-256).
fn report_html(s: &CallPathScored, name: &str) -> String {
    use repoqa::api::callpath_report::{default_title, render, CallPathReport};
    let text = s.file.text();
    let files = [s.file.clone()];
    let inputs = vec![(
        repoqa::review::html_report::input_label("SCORES", name),
        repoqa::input::identity::sha256_hex(text.as_bytes()),
    )];
    render(&CallPathReport { title: default_title(&files), level: 0.95, files: &files, inputs })
}

fn share(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |p| format!("{:.0}%", p * 100.0))
}

#[component]
pub fn CallPathResults() -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    ensure_run_restored(state);
    let selected = RwSignal::new(None::<String>);
    let download_error = RwSignal::new(None::<UiError>);
    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let file = input.files().and_then(|l| l.get(0));
        // The same file again must fire `change` next time.
        input.set_value("");
        if let Some(file) = file {
            selected.set(None);
            start_call_path_score(state, runner, file);
        }
    };
    let download = move |_| {
        let Some(run) = state.call_path_run.get_untracked() else { return };
        match download_text(&run_file_name(&run), "application/jsonl", &run.text) {
            Ok(()) => download_error.set(None),
            Err(e) => download_error.set(Some(e)),
        }
    };
    // The SCORES file as `repoqa score --task call-path` writes it, and the
    // report as `repoqa report` writes it of that file (the same bytes).
    let scores_name = |s: &CallPathScored| {
        let path =
            repoqa::naming::scores_path_for(&s.name, repoqa::report::Protocol::Official, true);
        path.rsplit(['/', '\\']).next().unwrap_or(&path).to_string()
    };
    let download_scores = move || {
        let Some(s) = state.call_path_scores.get_untracked() else { return };
        let r = download_text(&scores_name(&s), "application/json", &s.file.text());
        download_error.set(r.err());
    };
    let download_report = move || {
        let Some(s) = state.call_path_scores.get_untracked() else { return };
        let name = scores_name(&s);
        let html = report_html(&s, &name);
        let file = format!("{}.html", name.trim_end_matches(".json"));
        download_error.set(download_text(&file, "text/html", &html).err());
    };
    view! {
        <section class="card results" id="call-path-score-card">
            <h2>"Call-path answers and results " <span class="muted">"(NOT UPSTREAM)"</span></h2>
            <p class="note">"A model's answers to the call-path tasks: the Run page's run, or an outputs file — the tasks (the page's, or the CLI's) with "<code>"\"output\": [reply]"</code>" on each line, what "
                <code>"repoqa run --task call-path"</code>" writes. They are scored as "<code>"repoqa score --task call-path"</code>
                " scores them, against the loaded dataset's own call graphs: a shortest path, or NO PATH where there is none, passes."</p>
            {move || state.call_path_run.get().map(|run| {
                let n = run.text.lines().filter(|l| !l.trim().is_empty()).count();
                view! {
                    <p class="row" id="call-path-run" data-answers=n>
                        <span>{format!("The Run page's run: {} at {} tokens, {}.", run.model, crate::ui::format::thousands(run.code_context_size), crate::ui::format::count(n, "answer", "answers"))}</span>
                        <button type="button" id="score-call-path-run" disabled=move || state.dataset.with(Option::is_none)
                            on:click=move |_| { selected.set(None); start_run_score(state, runner); }>"Score this run"</button>
                        <button type="button" id="download-call-path-run" on:click=download>"Download its outputs (JSONL)"</button>
                    </p>
                }
            })}
            {move || download_error.get().map(|e| view! { <p class="fail" role="alert">{e.to_string()}</p> })}
            <p><label>"Outputs file (JSONL) "
                <input type="file" id="call-path-outputs" accept=".jsonl,.json,application/jsonl"
                    disabled=move || state.dataset.with(Option::is_none) on:change=on_file/></label></p>
            {move || state.dataset.with(Option::is_none).then(|| view! {
                <p class="notice" id="call-path-no-dataset">"Load the dataset the tasks were built from first ("<a href="#dataset">"Dataset"</a>"): the answers are judged on its call graphs."</p>
            })}
            <Progress/>
            {move || state.call_path_scores.get().map(|s| {
                let pass = s.file.scores.overall.pass_at_1;
                let verdicts = s.file.scores.verdicts.iter().map(|(k, n)| format!("{} {n}", k.replace('_', " "))).collect::<Vec<_>>().join(", ");
                let np = s.file.scores.no_path;
                view! {
                    <div class="score-headline">
                        <p id="call-path-pass" data-pass=pass.map_or(String::new(), |p| format!("{p}"))>
                            "pass@1 " <strong>{pass.map_or("–".to_string(), |p| format!("{p:.1}%"))}</strong>
                            {format!(" of {} answers ({})", s.file.results.len(), s.name)}</p>
                        <p class="muted" id="call-path-verdicts">{format!("Verdicts: {verdicts}. NO PATH answers: precision {}, recall {}.", share(np.precision), share(np.recall))}</p>
                    </div>
                    <p class="row">
                        <button type="button" id="download-call-path-scores" on:click=move |_| download_scores()>"Download SCORES (JSON)"</button>
                        <button type="button" id="download-call-path-report" on:click=move |_| download_report()>"Download the report (HTML)"</button>
                    </p>
                    <h3>"Pass by path length and depth"</h3>
                    <p class="note">"Rows: calls on the shortest path (none: the no-path tasks). Columns: how far apart the path's functions sit in the window — the spread of their depths, from 0-25 % (close together) to 75-100 % (from one end of the context to the other)."
                        <span class="narrow-only">" On a phone, by path length only: the spread columns show on a wider screen."</span></p>
                    <div class="table-scroll" tabindex="0" role="region" aria-label="pass@1 by path length and depth spread">
                        <table class="grid score-table" id="call-path-matrix">
                            <thead><tr><th>"Path"</th>{SPREADS.iter().map(|b| view! { <th class="wide-only">{format!("spread {b}")}</th> }).collect_view()}<th>"all"</th></tr></thead>
                            <tbody>
                                {s.file.scores.by_path_length.iter().map(|(len, all)| {
                                    let row = s.file.scores.by_path_length_and_spread.get(len);
                                    view! {
                                        <tr data-length=len.clone()>
                                            <th>{len.clone()}</th>
                                            {SPREADS.iter().map(|b| view! { <td class="wide-only">{cell(row.and_then(|r| r.get(*b)))}</td> }).collect_view()}
                                            <td>{cell(Some(all))}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }
            })}
        </section>
        {move || state.call_path_scores.get().map(|s| {
            let rows = s.file.results.clone();
            view! {
                <section class="card" id="call-path-results-card">
                    <h2>"Each task"</h2>
                    <div class="table-scroll" tabindex="0" role="region" aria-label="each call-path task's verdict">
                        <table class="grid" id="call-path-results">
                            <thead><tr><th>"#"</th><th>"Task"</th><th class="wide-only">"Calls"</th><th>"Verdict"</th></tr></thead>
                            <tbody>
                                {rows.into_iter().enumerate().map(|(i, r)| {
                                    let id = r.id.clone();
                                    let class = if r.verdict.passed() { "pass" } else { "fail" };
                                    let (from, to) = ends_of(&r.id);
                                    view! {
                                        <tr class="call-path-result" data-id=r.id.clone()>
                                            <td>{i + 1}</td>
                                            <td><code>{from}</code>" → "<code>{to}</code><br/><span class="muted">{format!("{} · {}", r.language, r.repo)}</span></td>
                                            <td class="wide-only">{r.path_calls.map_or("none".to_string(), |c| c.to_string())}</td>
                                            // The button under the verdict: no column off a phone's screen.
                                            <td><span class=class>{verdict_label(&r.verdict)}</span><br/>
                                                <button type="button" class="small call-path-details"
                                                aria-expanded=move || (selected.get().as_deref() == Some(id.as_str())).to_string()
                                                on:click={let id = r.id.clone(); move |_| {
                                                    selected.set(Some(id.clone()));
                                                    // The view opens below the table: brought into view, with the focus.
                                                    crate::ui::browser::dom::focus_into_view("call-path-verdict");
                                                }}>"Details"</button></td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                </section>
            }
        })}
        {move || {
            let id = selected.get()?;
            let s = state.call_path_scores.get()?;
            let r = s.file.results.iter().find(|r| r.id == id)?.clone();
            let reply = s.replies.get(&id).cloned();
            Some(view! { <CallPathVerdict result=r reply=reply/> })
        }}
    }
}

/// One task's verdict: what the reply was read as, the graph's shortest
/// path and the model's path drawn one above the other — each of the
/// model's steps marked a call or not, each name known or not — and the
/// reply as text.
#[component]
fn CallPathVerdict(result: CallPathResult, reply: Option<String>) -> impl IntoView {
    let passed = result.verdict.passed();
    let gold = result.path.clone();
    let on_gold = |name: &str| gold.iter().any(|g| g == name);
    let (source, target) = ends_of(&result.id);
    let gold_row = if gold.is_empty() {
        view! {
            <p class="path-none" id="path-gold-none">{format!("No chain of calls leads from {source} to {target}: the answer is NO PATH.")}</p>
        }
        .into_any()
    } else {
        view! {
            <ol class="path-chain" id="path-gold" aria-label="the shortest path in the call graph">
                {gold.iter().enumerate().map(|(k, name)| view! {
                    <li class="path-step">
                        {(k > 0).then(|| view! { <span class="path-edge call" title="calls">"→"<span class="sr-only">" calls "</span></span> })}
                        <code class="path-node gold">{name.clone()}</code>
                    </li>
                }).collect_view()}
            </ol>
        }
        .into_any()
    };
    let answer_row = match &result.reading {
        None => view! { <p class="path-none fail" id="path-answer-none">"Nothing could be read as names or NO PATH."</p> }.into_any(),
        Some(Reading::NoPath) => view! {
            <p class=if passed { "path-none pass" } else { "path-none fail" } id="path-answer-none">"NO PATH"</p>
        }
        .into_any(),
        Some(Reading::Path(_)) => view! {
            <ol class="path-chain" id="path-answer" aria-label="the model's path">
                {result.steps.iter().map(|s| {
                    let node = if !s.known { "path-node unknown" } else if on_gold(&s.name) { "path-node gold" } else { "path-node other" };
                    let edge = s.called.map(|c| if c {
                        view! { <span class="path-edge call" title="calls" data-call="true">"→"<span class="sr-only">" calls "</span></span> }.into_any()
                    } else {
                        view! { <span class="path-edge not-call" title="does not call" data-call="false">"✕"<span class="sr-only">" does not call "</span></span> }.into_any()
                    });
                    view! {
                        <li class="path-step" data-known=s.known.to_string()>
                            {edge}
                            <code class=node>{s.name.clone()}</code>
                            {(!s.known).then(|| view! { <span class="small fail">" (no such function)"</span> })}
                        </li>
                    }
                }).collect_view()}
            </ol>
        }
        .into_any(),
    };
    view! {
        <section class="card" id="call-path-verdict" tabindex="-1" aria-labelledby="call-path-verdict-title">
            <h2 id="call-path-verdict-title">{format!("{source} → {target}")}</h2>
            <p class="muted">{format!("{} · {} · {}", result.language, result.repo, result.id)}</p>
            <p id="call-path-verdict-label" class=if passed { "pass" } else { "fail" }
                data-passed=passed.to_string()>{format!("{}: {}", if passed { "PASS" } else { "FAIL" }, verdict_label(&result.verdict))}</p>
            <div class="path-rows">
                <h3>"The call graph's shortest path"</h3>
                {gold_row}
                <h3>"The model's answer, as read"</h3>
                {answer_row}
                <p class="note">"An arrow is a call in the graph; ✕ is a step the graph has no call for. A name in blue is on the shortest path shown above, in grey another function of the repository (another shortest path also passes), in red no function of the repository."</p>
            </div>
            {reply.map(|r| view! {
                <details id="call-path-reply">
                    <summary>"The reply as the model wrote it"</summary>
                    <pre class="reply" tabindex="0">{r}</pre>
                </details>
            })}
        </section>
    }
}
