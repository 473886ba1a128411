//! Name-match beside the official score: the agent way (mcpbr) counts a
//! task solved when the needle's name appears anywhere in the reply. The
//! numbers are `repoqa::scoring::name_match`'s, on the same outputs lines the CLI's
//! `repoqa name-match` reads; unreliable matches are flagged.

use leptos::prelude::*;
use repoqa::report::ModelOutput;
use repoqa::scoring::name_match::{dataset_descriptions, name_match, tasks_from_outputs, Rate};

use crate::ui::state::scoring::{ScoredSet, Shared};
use crate::ui::state::use_state;

/// Rows listed at most (the rest are in the CLI's JSON).
const SHOWN: usize = 200;

fn pct(r: Rate) -> String {
    format!("{:.1}% ({}/{})", 100.0 * r.rate(), r.found, r.n)
}

#[component]
pub fn NameMatchCard(set: Memo<Shared<ScoredSet>>) -> impl IntoView {
    let state = use_state();
    let report = Memo::new(move |_| {
        let s = set.get();
        let outputs: Vec<ModelOutput> =
            s.items.iter().filter_map(|i| i.output.as_ref().ok().cloned()).collect();
        if outputs.is_empty() {
            return None;
        }
        let descriptions = state
            .dataset
            .with(|d| d.as_ref().map(|d| dataset_descriptions(&d.dataset)).unwrap_or_default());
        Some(name_match(&tasks_from_outputs(&outputs, &descriptions)))
    });
    view! {
        <section class="card" id="name-match-card">
            <h2>"Name-match (the agent way; not the official score)"</h2>
            <p class="muted">
                "Agent harnesses (mcpbr) count a task solved when the needle's name appears anywhere in the reply, "
                "in any case. That says little when the name is short or common, is written in the description, "
                "or is part of another needle's name: such tasks are flagged, and the rate without them is shown too. "
                "Same numbers as " <code>"repoqa name-match --model-output-path …"</code> "."
            </p>
            {move || match report.get() {
                None => view! { <p class="muted">"Appears once answers are scored."</p> }.into_any(),
                Some(r) => {
                    let flagged: Vec<_> = r.tasks.iter().filter(|t| !t.warnings.is_empty()).cloned().collect();
                    let hidden = flagged.len().saturating_sub(SHOWN);
                    view! {
                        <div class="table-scroll" tabindex="0" role="region" aria-label="name-only matches">
                        <table class="grid" id="name-match-table"
                            data-overall=r.overall.rate().to_string() data-reliable=r.reliable.rate().to_string()>
                            <thead><tr><th scope="col">"Language"</th><th scope="col">"Name found"</th></tr></thead>
                            <tbody>
                                <tr data-lang="all"><th scope="row">"all languages"</th><td>{pct(r.overall)}</td></tr>
                                {r.languages.iter().map(|(l, rate)| view! {
                                    <tr data-lang=l.clone() data-found=rate.found data-n=rate.n>
                                        <th scope="row">{l.clone()}</th><td>{pct(*rate)}</td>
                                    </tr>
                                }).collect_view()}
                                <tr data-lang="reliable"><th scope="row">"without flagged tasks"</th><td>{pct(r.reliable)}</td></tr>
                            </tbody>
                        </table>
                        </div>
                        {(!flagged.is_empty()).then(|| view! {
                            <details id="name-match-flagged">
                                <summary>{format!("{} flagged task(s): a match there says little", flagged.len())}</summary>
                                <ul class="findings">
                                    {flagged.into_iter().take(SHOWN).map(|t| {
                                        let why = t.warnings.iter().map(|w| w.describe()).collect::<Vec<_>>().join("; ");
                                        let codes = t.warnings.iter().map(|w| w.code()).collect::<Vec<_>>().join(" ");
                                        view! {
                                            <li data-name=t.name.clone() data-warnings=codes data-found=t.found.to_string()>
                                                <code>{t.task_id()}</code>
                                                {format!(" — name {}; {why}", if t.found { "found" } else { "not found" })}
                                            </li>
                                        }
                                    }).collect_view()}
                                </ul>
                                {(hidden > 0).then(|| view! { <p class="muted">{format!("… and {hidden} more.")}</p> })}
                            </details>
                        })}
                    }.into_any()
                }
            }}
        </section>
    }
}
