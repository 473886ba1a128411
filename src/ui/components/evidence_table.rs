//! A pass@1 with its evidence as a table: rows "all" and each language;
//! pass@1, n, the Wilson interval and the bootstrap intervals by task and
//! by repository (`repoqa::review::evidence`), with the note on which to quote. The
//! Results page shows it for the loaded answers, the Leaderboard page for a
//! chosen model; `repoqa score --ci` and `leaderboard --ci` print the same.

use leptos::prelude::*;
use repoqa::python::json::float_repr;
use repoqa::review::evidence::{bounds_repr, percent_span, EvidenceTable};
use repoqa::review::leaderboard::fmt_threshold;

/// The confidence levels offered.
pub const LEVELS: [f64; 4] = [0.8, 0.9, 0.95, 0.99];

/// A select of [`LEVELS`] bound to `level`.
#[component]
pub fn LevelSelect(id: &'static str, level: RwSignal<f64>) -> impl IntoView {
    view! {
        <label class="level-select">"Confidence "
            <select id=id on:change=move |ev| {
                if let Ok(l) = event_target_value(&ev).parse::<f64>() {
                    level.set(l);
                }
            }>
                {LEVELS.iter().map(|&l| view! {
                    <option value=l.to_string() selected=move || level.get() == l>{format!("{}%", 100.0 * l)}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

/// The table of `table` (`id` for the element).
#[component]
pub fn EvidenceView(id: &'static str, table: EvidenceTable) -> impl IntoView {
    let r = table.resampling;
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let label =
                if row.name == "all" { "all languages".to_string() } else { row.name.clone() };
            let (wl, wh) = bounds_repr(row.wilson);
            let (tl, th) = bounds_repr(row.by_task);
            let (rl, rh) = bounds_repr(row.by_repo);
            view! {
                <tr data-row=row.name.clone() class:all-row=row.name == "all"
                    data-pass=float_repr(row.pass()) data-passed=row.passed data-n=row.n
                    data-wilson-low=wl data-wilson-high=wh data-task-low=tl data-task-high=th
                    data-repo-low=rl data-repo-high=rh>
                    <th scope="row">{label}</th>
                    <td class="num">{format!("{:.1}", 100.0 * row.pass())}</td>
                    <td class="num">{row.n}</td>
                    <td class="num">{percent_span(row.wilson)}</td>
                    <td class="num">{percent_span(row.by_task)}</td>
                    <td class="num quote">{percent_span(row.by_repo)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="pass@1 with its intervals">
            <table class="grid score-table evidence-table" id=id data-threshold=fmt_threshold(table.threshold)
                data-level=r.level.to_string() data-resamples=r.resamples data-seed=r.seed>
                <caption>{format!("pass@1 (%) at threshold {} with {}% intervals", fmt_threshold(table.threshold), 100.0 * r.level)}</caption>
                <thead><tr>
                    <th scope="col">"Language"</th>
                    <th scope="col">"pass@1"</th>
                    <th scope="col">"n"</th>
                    <th scope="col" title="Wilson score interval: the tasks taken as independent">"Wilson"</th>
                    <th scope="col" title="percentile bootstrap resampling tasks">"by task"</th>
                    <th scope="col" title="percentile bootstrap resampling repositories: the one to quote">"by repository"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="note">
            {format!("Bootstrap: percentile, {} resamples, seed {}, stratified by language (the same as repoqa score --ci). ", r.resamples, r.seed)}
            <strong>"Quote the repository interval"</strong>
            ": a repository's needles come from one code base, so its tasks are not independent and the task-based intervals are too narrow. A language with one repository has none (-)."
        </p>
    }
}
