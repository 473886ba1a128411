//! The audit on the Results page: tasks whose prompt marks the needle's
//! place, per artifact and language (`repoqa::prompt::audit`), and its export as
//! JSON (the `repoqa audit --json` document).

use leptos::prelude::*;
use repoqa::engine::{Reply, Request};
use repoqa::prompt::audit::{self, Artifact, TaskAudit};

use crate::ui::browser::download::download_text;
use crate::ui::browser::engine;
use crate::ui::error::UiError;
use crate::ui::state::{use_state, AppState};

/// The audit of the built tasks, by the compute engine (none without a
/// dataset or tasks).
async fn audit_tasks(state: AppState) -> Result<Vec<TaskAudit>, UiError> {
    let (Some(loaded), tasks) = (state.dataset.get_untracked(), state.tasks.get_untracked()) else {
        return Ok(Vec::new());
    };
    if tasks.is_empty() {
        return Ok(Vec::new());
    }
    let settings = state.settings.with_untracked(|s| s.build.clone());
    let dataset = engine::dataset(&loaded.dataset, &loaded.origin).await?;
    let tasks = tasks.iter().map(|t| (**t).clone()).collect();
    match engine::call(&Request::Audit { dataset, settings, tasks }).await? {
        Reply::Audit { audits } => Ok(audits),
        _ => Err(UiError::invalid("the engine answered another question than the audit")),
    }
}

#[component]
pub fn AuditCard() -> impl IntoView {
    let state = use_state();
    let message = RwSignal::new(None::<Result<String, UiError>>);
    let computed = LocalResource::new(move || {
        // Again when the dataset, the tasks or the comment mode change.
        state.dataset.track();
        state.tasks.track();
        state.settings.with(|s| s.build.comment_mode);
        audit_tasks(state)
    });
    let audits = Memo::new(move |_| -> Vec<TaskAudit> {
        computed.get().and_then(Result::ok).unwrap_or_default()
    });
    let audit_error = move || computed.get().and_then(Result::err);
    let protocol =
        move || state.tasks.with(|ts| ts.first().map(|t| t.protocol).unwrap_or_default());
    let export = move |_| {
        let r = audits.with_untracked(|a| {
            let mut v = audit::report_json(a);
            if let serde_json::Value::Object(m) = &mut v {
                m.insert("protocol".into(), protocol().as_str().into());
            }
            let text =
                serde_json::to_string_pretty(&v).map_err(|e| UiError::invalid(e.to_string()))?;
            let name = if protocol().is_official() {
                "repoqa-audit.json".to_string()
            } else {
                format!("repoqa-audit-{}.json", protocol())
            };
            download_text(&name, "application/json", &text).map(|_| name)
        });
        message.set(Some(r));
    };
    view! {
        <section class="card" id="audit-card" data-protocol=move || protocol().as_str()
            data-affected=move || audits.with(|a| a.iter().filter(|t| !t.findings.is_empty()).count())>
            <h2>"Audit: prompts that mark the needle"</h2>
            <p class="note">"Artifacts of the official prompt construction by which the needle's place can be found without reading its description (docs/parity.md P6, P3, K5). An answerer that only looks for them and never reads the description passes most official tasks (see `repoqa audit`). A task's own audit, with the spot, is on its page."</p>
            {move || (!protocol().is_official()).then(|| view! {
                <p class="warning">"These tasks were built with the corrected protocol: NOT OFFICIAL, not comparable with published scores."</p>
            })}
            {move || {
                let counts = audits.with(|a| audit::counts(a));
                let n = audits.with(Vec::len);
                if let Some(e) = audit_error() {
                    return view! { <p class="fail" id="audit-error">{format!("The audit could not run: {e}")}</p> }.into_any();
                }
                if n == 0 && computed.get().is_none() && state.tasks.with(|t| !t.is_empty()) {
                    return view! { <p class="muted" id="audit-pending" role="status">"Auditing the tasks in the compute engine…"</p> }.into_any();
                }
                if n == 0 {
                    return view! { <p class="muted" id="audit-empty">"Build the tasks to audit them."</p> }.into_any();
                }
                let languages: Vec<String> = counts.values().next().map(|m| m.keys().cloned().collect()).unwrap_or_default();
                let totals: Vec<usize> = languages.iter().map(|l| audits.with(|a| a.iter().filter(|t| &t.language == l).count())).collect();
                let any: Vec<usize> = languages.iter().map(|l| audits.with(|a| a.iter().filter(|t| &t.language == l && !t.findings.is_empty()).count())).collect();
                view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label="prompt artifacts by language">
                    <table id="audit-table" class="scores">
                        <thead><tr><th>"Artifact"</th>
                            {languages.iter().map(|l| view! { <th>{l.clone()}</th> }).collect_view()}
                        </tr></thead>
                        <tbody>
                            {Artifact::ALL.into_iter().map(|a| {
                                let per = counts.get(a.name()).cloned().unwrap_or_default();
                                view! {
                                    <tr data-artifact=a.name()>
                                        <th title=a.explain()>{format!("{} ({})", a.name(), a.parity_id())}</th>
                                        {languages.iter().map(|l| view! { <td>{per.get(l).copied().unwrap_or(0)}</td> }).collect_view()}
                                    </tr>
                                }
                            }).collect_view()}
                            <tr><th>"any"</th>{any.into_iter().map(|n| view! { <td>{n}</td> }).collect_view()}</tr>
                            <tr><th>"tasks"</th>{totals.into_iter().map(|n| view! { <td>{n}</td> }).collect_view()}</tr>
                        </tbody>
                    </table>
                    </div>
                }.into_any()
            }}
            <p><button type="button" id="export-audit" on:click=export disabled=move || audits.with(Vec::is_empty)>"Download audit (JSON)"</button></p>
            {move || message.get().map(|m| match m {
                Ok(name) => view! { <p class="muted" id="audit-export-status">{format!("Saved {name}.")}</p> }.into_any(),
                Err(e) => view! { <p class="fail" id="audit-export-status">{e.to_string()}</p> }.into_any(),
            })}
        </section>
    }
}
