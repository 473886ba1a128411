//! The official pass@1 table.

use leptos::prelude::*;
use repoqa::python::json::float_repr;
use repoqa::report::UnansweredScoring;
use repoqa::scoring::score::THRESHOLD_KEYS;

use crate::ui::state::scoring::{ScoredSet, Shared};

/// The thresholds a narrow screen shows: 0.8 (the headline) and the ends
/// of interest; the others are hidden there by the stylesheet.
const NARROW_KEYS: [&str; 3] = ["0.5", "0.8", "1.0"];

fn narrow_class(key: &str) -> &'static str {
    if NARROW_KEYS.contains(&key) {
        ""
    } else {
        "wide-only"
    }
}

/// The official table: rows `all` + languages, columns the thresholds,
/// percentages with one decimal as `print_result_table` prints them; the
/// best and worst cell of each column marked as it colours them.
#[component]
pub fn TableCard(set: Memo<Shared<ScoredSet>>) -> impl IntoView {
    view! {
        <section class="card" id="table-card" tabindex="-1">
            <h2>"pass@1 (%) at each threshold"</h2>
            {move || set.with(|s| s.unanswered.as_ref().map(|u| {
                let (class, what) = match u.scoring {
                    UnansweredScoring::Failures => ("notice", "each counts as a failure, as in repoqa run; a full run is comparable"),
                    UnansweredScoring::AnsweredOnly => ("warning", "they are left out, so this score is NOT comparable with a full run's"),
                };
                view! {
                    <p class=class id="unanswered-note" data-count=u.tasks.len() data-scoring=u.scoring.as_str()>
                        {format!("{} task(s) of the Run page's selection have no answer: {what}. The SCORES file lists them (unanswered_tasks); change this under Scoring options.", u.tasks.len())}
                    </p>
                }
            }))}
            {move || match &set.get().table {
                Err(e) if e.is_pending() => view! {
                    <p class="muted" id="score-table-pending" role="status">
                        <span class="spinner" aria-hidden="true"></span>
                        {format!(" Scoring {} answer(s) in the compute engine; the table follows.", set.with(|s| s.pending))}
                    </p>
                }.into_any(),
                Err(e) => view! { <p class="muted" id="score-table-empty">{e.to_string()}</p> }.into_any(),
                Ok(table) => {
                    let cols: Vec<(f64, f64)> = (0..THRESHOLD_KEYS.len())
                        .map(|i| {
                            let vals = table.rows.iter().map(|r| r.pass_at_1[i]);
                            (vals.clone().fold(f64::MIN, f64::max), vals.fold(f64::MAX, f64::min))
                        })
                        .collect();
                    view! {
                        <div class="table-scroll" tabindex="0" role="region" aria-label="pass@1 by threshold">
                        <table class="grid score-table" id="score-table">
                            <thead><tr>
                                <th scope="col">"Threshold"</th>
                                {THRESHOLD_KEYS.iter().map(|k| view! { <th scope="col" class=narrow_class(k)>{*k}</th> }).collect_view()}
                                <th scope="col">"tasks"</th>
                            </tr></thead>
                            <tbody>
                                {table.rows.iter().map(|r| {
                                    // Plain text: a star needs an emoji font (an empty box without one).
                                    let label = if r.name == "all" { "all languages".to_string() } else { r.name.clone() };
                                    view! {
                                        <tr data-row=r.name.clone() class:all-row=r.name == "all">
                                            <th scope="row">{label}</th>
                                            {r.pass_at_1.iter().enumerate().map(|(i, v)| {
                                                let (max, min) = cols[i];
                                                // A column whose rows are all alike has no best or worst.
                                                let mark = if max - min < 0.01 { "" } else if max - v < 0.01 { "best" } else if v - min < 0.01 { "worst" } else { "" };
                                                let class = format!("{mark} {}", narrow_class(THRESHOLD_KEYS[i]));
                                                view! {
                                                    <td class=class data-threshold=THRESHOLD_KEYS[i] data-value=float_repr(*v)
                                                        data-passed=r.passed[i]>{format!("{:.1}", 100.0 * v)}</td>
                                                }
                                            }).collect_view()}
                                            <td data-n=r.n>{r.n}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                        </div>
                        <p class="muted legend" id="score-legend">
                            <span class="best-key">"green"</span>": the best language at that threshold; "
                            <span class="worst-key">"red"</span>": the worst (as the official table colours them)."
                        </p>
                        <p class="muted narrow-only" id="score-narrow-note">"On a narrow screen the table shows the thresholds 0.5, 0.8 (the headline) and 1.0; all eleven on a wider screen and in the exported SCORES file."</p>
                    }.into_any()
                }
            }}
        </section>
    }
}
