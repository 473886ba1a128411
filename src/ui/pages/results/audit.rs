//! The audit on the Results page: tasks whose prompt marks the needle's
//! place, per artifact and language (`repoqa::audit`), and its export as
//! JSON (the `repoqa audit --json` document).

use leptos::prelude::*;
use repoqa::audit::{self, locate::audit_built_tasks, Artifact, TaskAudit};

use crate::ui::browser::download::download_text;
use crate::ui::error::UiError;
use crate::ui::state::use_state;

#[component]
pub fn AuditCard() -> impl IntoView {
    let state = use_state();
    let message = RwSignal::new(None::<Result<String, UiError>>);
    let audits = Memo::new(move |_| -> Vec<TaskAudit> {
        let mode = state.settings.with(|s| s.build.comment_mode);
        state.dataset.with(|d| match d {
            Some(d) => {
                state.tasks.with(|ts| audit_built_tasks(&d.dataset, ts.iter().map(|t| &**t), mode))
            }
            None => Vec::new(),
        })
    });
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
