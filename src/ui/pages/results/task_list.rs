//! Per-task results at the current threshold, and one task in depth.

use std::sync::Arc;

use leptos::prelude::*;
use repoqa::python::json::float_repr;
use repoqa::report;
use repoqa::scoring::breakdown::depth_bin;
use repoqa::scoring::linediff::{line_diff, DiffOp};

use crate::ui::browser::dom::focus_into_view;
use crate::ui::components::pager::{page_range, Pager};
use crate::ui::components::reasoning_fold::ReasoningFold;
use crate::ui::components::verdict_steps::VerdictSteps;
use crate::ui::format;
use crate::ui::state::scoring::{ScoredSet, Shared, TaskScore};
use crate::ui::state::use_state;

/// Per-task results at the current threshold.
#[component]
pub fn TaskList(set: Memo<Shared<ScoredSet>>, selected: RwSignal<Option<String>>) -> impl IntoView {
    let state = use_state();
    let page = RwSignal::new(0usize);
    let total = Signal::derive(move || set.with(|s| s.items.len()));
    view! {
        <section class="card" id="task-results-card" tabindex="-1">
            <h2>"Per-task results"</h2>
            {move || {
                let s = set.get();
                let t = state.settings.with(|st| st.threshold);
                if s.items.is_empty() {
                    return view! { <p class="muted">"No answered tasks."</p> }.into_any();
                }
                view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label="answered tasks">
                    <table class="grid" id="task-results">
                        <thead><tr>
                            <th scope="col">"Task"</th><th scope="col">"Depth"</th>
                            <th scope="col">{format!("Pass @ {t}")}</th><th scope="col">"Best similarity"</th>
                            <th scope="col">"Closest needle"</th><th scope="col"><span class="sr-only">"Details"</span></th>
                        </tr></thead>
                        <tbody>
                            {s.items[page_range(page.get(), s.items.len())].iter().map(|item| task_row(item, t, selected)).collect_view()}
                        </tbody>
                    </table>
                    </div>
                    <Pager id="results" total=total page=page/>
                }.into_any()
            }}
        </section>
    }
}

fn task_row(item: &Arc<TaskScore>, t: f64, selected: RwSignal<Option<String>>) -> impl IntoView {
    let id = item.task.task_id();
    let depth = format!("{:.0}%", 100.0 * item.task.position_ratio);
    let bin = depth_bin(item.task.position_ratio);
    let (pass, sim, sim_repr, target, error) = match &item.result {
        Ok(e) => (
            e.passes(t),
            format::similarity(e.best_similarity),
            report::similarity_number(e.best_target.as_deref(), e.best_similarity).to_string(),
            e.best_target.clone().unwrap_or_default(),
            None,
        ),
        Err(err) => (false, "—".into(), String::new(), String::new(), Some(err.to_string())),
    };
    let pending = item.pending();
    let verdict = match (pass, pending, &error) {
        (true, _, _) => "pass",
        (_, true, _) => "scoring…",
        (_, _, Some(_)) => "error",
        _ => "fail",
    };
    let (verdict_class, pass_attr) = match (pass, pending) {
        (true, _) => ("pass", "true"),
        (_, true) => ("muted", "pending"),
        _ => ("fail", "false"),
    };
    let select_id = id.clone();
    let is_selected = {
        let id = id.clone();
        move || selected.with(|s| s.as_deref() == Some(id.as_str()))
    };
    let (id_attr, target_attr, id_for_button) = (id.clone(), target.clone(), id.clone());
    view! {
        <tr class="task-row" data-task-id=id_attr data-pass=pass_attr data-best-similarity=sim_repr
            data-best-target=target_attr data-bin=bin class:selected=is_selected>
            <td class="task-id"><code>{id}</code></td>
            <td class="task-depth" data-label="depth ">{depth}</td>
            <td class=format!("task-verdict {verdict_class}")>{verdict}</td>
            <td class="task-similarity" data-label="similarity ">{sim}</td>
            <td class="task-closest" data-label="closest: ">{error.unwrap_or(target)}</td>
            <td class="task-details"><button type="button" class="details" id=details_button_id(&id_for_button) on:click=move |_| {
                selected.set(Some(select_id.clone()));
                // The panel is below the table: bring it (and the focus) there.
                focus_into_view("task-detail");
            }>"Details"</button></td>
        </tr>
    }
}

/// The id of a task row's Details button.
fn details_button_id(task_id: &str) -> String {
    format!("details-{task_id}")
}

/// One task in depth: the extracted function, every candidate's BLEU, and a
/// line diff against the needle.
#[component]
pub fn TaskDetail(
    set: Memo<Shared<ScoredSet>>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    let state = use_state();
    move || {
        let id = selected.get()?;
        let s = set.get();
        let item = s.items.iter().find(|i| i.task.task_id() == id)?.clone();
        let t = state.settings.with(|st| st.threshold);
        let reference = state.dataset.with(|d| {
            let ds = &d.as_ref()?.dataset;
            let repo = ds.repo(&item.task.language, &item.task.repo)?;
            let n = repo.needles.iter().find(|n| n.name == item.task.name)?;
            repo.reference_text(&n.path, n.start_line, n.end_line)
        });
        let body = match &item.result {
            Err(e) if e.is_pending() => view! { <p class="muted" role="status">"Scoring this answer in the compute engine…"</p> }.into_any(),
            Err(e) => view! { <p class="fail">"Cannot score: " {e.to_string()}</p> }.into_any(),
            Ok(e) => {
                let pass = e.passes(t);
                let mut cands = e.candidates.clone();
                cands.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
                let diff = reference.as_deref().map(|r| line_diff(r, &e.sanitized));
                let steps = item.output.as_ref().ok().map(|o| {
                    view! {
                        <VerdictSteps output=o.clone() evaluation=e.clone() needle=item.task.name.clone()/>
                    }
                });
                view! {
                    <p>
                        <span class=if pass { "pass" } else { "fail" } id="detail-verdict" data-pass=pass.to_string()>
                            {if pass { "PASS" } else { "FAIL" }}</span>
                        {format!(" at threshold {t}. Closest: {} (similarity {}).",
                            e.best_target.as_deref().unwrap_or("none"), format::similarity(e.best_similarity))}
                        {(!e.is_best_similar).then_some(" The closest candidate is not this task's needle.")}
                    </p>
                    <h3>"Function extracted from the answer"</h3>
                    <p class="muted">{format!("Found by: {}.", e.sanitize_source.describe())}</p>
                    <pre class="code" id="detail-sanitized" tabindex="0" aria-label="the function extracted from the answer">{e.sanitized.clone()}</pre>
                    <h3>"Similarity to every candidate"</h3>
                    <table class="grid" id="detail-candidates">
                        <thead><tr><th>"Candidate"</th><th>"File"</th><th>"BLEU"</th></tr></thead>
                        <tbody>
                            {cands.into_iter().map(|c| { let (name_attr, truth) = (c.name.clone(), c.name == item.task.name); view! {
                                <tr data-name=name_attr data-similarity=float_repr(c.similarity)
                                    class:truth=truth>
                                    <td><code>{c.name}</code>{(!c.is_needle).then_some(" (not a needle)")}</td>
                                    <td><code>{c.path}</code></td>
                                    <td>{format::similarity(c.similarity)}</td>
                                </tr>
                            }}).collect_view()}
                        </tbody>
                    </table>
                    {steps}
                    <h3>"Line diff: needle (−) → answer's function (+)"</h3>
                    {match diff {
                        None => view! { <p class="muted">"The needle's text is not in the loaded dataset."</p> }.into_any(),
                        Some(d) => view! {
                            <pre class="code diff" id="detail-diff" tabindex="0" aria-label="line diff">
                                {d.into_iter().map(|l| {
                                    let class = match l.op { DiffOp::Same => "diff-same", DiffOp::Removed => "diff-del", DiffOp::Added => "diff-add" };
                                    view! { <span class=class>{format!("{}{}\n", l.op.marker(), l.text)}</span> }
                                }).collect_view()}
                            </pre>
                        }.into_any(),
                    }}
                }.into_any()
            }
        };
        let fold_id = id.clone();
        let id_attr = id.clone();
        Some(view! {
            <section class="card" id="task-detail" tabindex="-1" data-task-id=id_attr>
                <h2>"Task " <code>{id}</code></h2>
                <button type="button" id="detail-close" on:click=move |_| {
                    // Back to the Details button that opened it, not the page top.
                    if let Some(id) = selected.get_untracked() {
                        focus_into_view(details_button_id(&id));
                    }
                    selected.set(None);
                }>"Close"</button>
                <h3>"The answer as pasted"</h3>
                <pre class="code" id="detail-answer" tabindex="0" aria-label="the answer as pasted">{item.answer.clone()}</pre>
                <ReasoningFold task_id=fold_id prefix="detail"/>
                {body}
            </section>
        })
    }
}
