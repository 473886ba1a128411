//! The Leaderboard's length ladder (issue 51): a model's runs at several
//! code-context lengths side by side, read from a result directory of
//! `repoqa run --code-context-size 4096,8192,…` (its `ntoken_<N>/`
//! folders) or from runs sent here at several lengths. Per model: pass@1
//! by length with its intervals, per language, the effective context
//! length, the needle depth × length heatmap, and a depth grid's table
//! when the runs have one (`repoqa run --depths`). The numbers are
//! `repoqa::review::ladder`'s (`jobs::ladder`), equal to `repoqa ladder --json`.

use leptos::prelude::*;
use repoqa::python::json::float_repr;
use repoqa::review::evidence::percent_span;
use repoqa::review::ladder::Ladder;
use repoqa::review::leaderboard::{fmt_threshold, percent};

use crate::ui::browser::dom::{folder_picker, picked_files};
use crate::ui::components::charts::LadderCharts;
use crate::ui::format::thousands;
use crate::ui::jobs::ladder::{ladder_evidence, LADDER_LEVEL};
use crate::ui::jobs::reviewers::{load_files, load_sample_ladder};
use crate::ui::jobs::use_runner;
use crate::ui::state::reviewers::LeaderboardState;

#[component]
pub fn LadderCard() -> impl IntoView {
    let st = expect_context::<LeaderboardState>();
    let runner = use_runner();
    Effect::new(move |_| {
        st.files.track();
        st.threshold.track();
        st.fraction.track();
        ladder_evidence(st, runner);
    });
    let folder_ref = folder_picker();
    let on_folder = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        load_files(st, files);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let set_fraction = move |v: String| {
        if let Ok(f) = v.trim().parse::<f64>() {
            if f > 0.0 && f <= 1.0 {
                st.fraction.set(f);
            }
        }
    };
    view! {
        <section class="card" id="lb-ladder-card">
            <h2>"Length ladder"</h2>
            <p>
                "A model's runs at several code-context lengths: pass@1 by length, the needle depth × length heatmap and the "
                <em>"effective context length"</em>
                ", the longest length up to which every length keeps at least the share below of the model's pass@1 at its shortest length. "
                "Pick the result directory of " <code>"repoqa run --code-context-size 4096,8192,16384"</code>
                " (its " <code>"ntoken_<N>"</code> " folders say each file's length), or send your answers here from Results after building at each length."
            </p>
            <p>
                <button type="button" id="lb-load-sample-ladder" on:click=move |_| load_sample_ladder(st)>"Load the sample ladder"</button>
                " — SAMPLE answers to the demo at 1,024, 2,048 and 4,096 tokens, written by this project (not a model's replies), to see what a ladder shows."
            </p>
            <div class="row load-options">
                <label class="file-pick">"Result directory: "
                    <input type="file" id="lb-folder" multiple node_ref=folder_ref on:change=on_folder/>
                </label>
                <label>"Keeps at least "
                    <input type="number" id="ladder-fraction" class="num" min="0.05" max="1" step="0.05"
                        prop:value=move || st.fraction.get().to_string()
                        on:change=move |ev| set_fraction(event_target_value(&ev))/>
                    " of the shortest length's pass@1"
                </label>
            </div>
            {move || {
                let board = st.ladders.get();
                let t = fmt_threshold(st.threshold.get());
                let errors = board.errors.iter().map(|e| view! { <p class="fail error-box ladder-error" role="alert">{e.clone()}</p> }).collect_view();
                let body = if board.ladders.is_empty() && board.complete {
                    view! {
                        <p class="muted" id="ladder-empty">"No model is loaded at two lengths or more yet: each SCORES file's length comes from the "
                            <code>"ntoken_<N>"</code>" folder it is in (a depth grid's, "<code>"ntoken_<N>/depth_<r>"</code>")."</p>
                    }.into_any()
                } else if !board.complete {
                    view! { <p class="muted" id="ladder-computing" role="status">"Computing the ladders (pass@1 by length, with intervals)…"</p> }.into_any()
                } else {
                    let sections = board.ladders.iter().map(|l| ladder_section(l, &t)).collect_view();
                    view! {
                        {sections}
                        <LadderCharts ladders=board.ladders.clone() threshold=t.clone()/>
                    }.into_any()
                };
                view! { {errors} {body} }
            }}
        </section>
    }
}

/// What the effective length says, in words (the rule of `repoqa::review::ladder`).
fn effective_text(l: &Ladder) -> String {
    let share = format!("{:.0}%", 100.0 * l.fraction);
    match (l.effective, l.rungs.first()) {
        (_, Some(b)) if l.rungs.len() == 1 => format!(
            "One length only ({} tokens): no effective length to find. The depth grid below compares its depths.",
            thousands(b.ntoken)
        ),
        (Some(n), Some(b)) => format!(
            "Effective context length: {} tokens. Every length up to it keeps at least {share} of the {}-token pass@1 ({}).",
            thousands(n),
            thousands(b.ntoken),
            percent(b.pass())
        ),
        (None, Some(b)) if b.pass() <= 0.0 => format!(
            "Effective context length: none. At {} tokens, its shortest length, the model passes nothing.",
            thousands(b.ntoken)
        ),
        (None, Some(b)) => format!(
            "Effective context length: none above {} tokens. The next length keeps less than {share} of its pass@1 ({}).",
            thousands(b.ntoken),
            percent(b.pass())
        ),
        _ => "One length only: nothing to compare.".to_string(),
    }
}

/// One model's ladder: its effective length and pass@1 by length.
fn ladder_section(l: &Ladder, threshold: &str) -> impl IntoView {
    let mut langs: Vec<String> = Vec::new();
    for r in &l.rungs {
        for k in r.languages.keys() {
            if !langs.contains(k) {
                langs.push(k.clone());
            }
        }
    }
    let head = langs
        .iter()
        .map(|k| view! { <th scope="col" class="wide-only">{k.clone()}</th> })
        .collect_view();
    let rows = l
        .rungs
        .iter()
        .map(|r| {
            let bounds = |i: Option<repoqa::review::stats::RateInterval>| i.map(|i| (float_repr(i.low), float_repr(i.high))).unwrap_or_default();
            let ((lo, hi), (wlo, whi)) = (bounds(r.all.by_repo), bounds(r.all.wilson));
            let cells = langs
                .iter()
                .map(|k| match r.languages.get(k).and_then(|c| c.rate().map(|p| (p, *c))) {
                    Some((p, c)) => view! {
                        <td class="num wide-only" data-lang=k.clone() data-pass=float_repr(p)
                            title=format!("{} of {} tasks pass", c.passed, c.n)>{percent(p)}</td>
                    }
                    .into_any(),
                    None => view! { <td class="num muted wide-only">"–"</td> }.into_any(),
                })
                .collect_view();
            view! {
                <tr data-ntoken=r.ntoken data-pass=float_repr(r.pass()) data-passed=r.all.passed data-n=r.all.n
                    data-repo-low=lo data-repo-high=hi data-wilson-low=wlo data-wilson-high=whi data-source=r.source.clone()>
                    <th scope="row" class="num" title=r.source.clone()>{thousands(r.ntoken)}</th>
                    <td class="num avg">{percent(r.pass())}</td>
                    <td class="num">{format!("{} of {}", r.all.passed, r.all.n)}</td>
                    <td class="num quote" title=format!("Wilson {}; bootstrap by task {}", percent_span(r.all.wilson), percent_span(r.all.by_task))>
                        {percent_span(r.all.by_repo)}</td>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="ladder" data-model=l.model.clone() data-effective=l.effective.map(|n| n.to_string()).unwrap_or_default()>
            <h3>{l.model.clone()}</h3>
            <p class="ladder-effective">{effective_text(l)}</p>
            <div class="table-scroll" tabindex="0" role="region" aria-label=format!("{}: pass@1 by length", l.model)>
                <table class="grid score-table ladder-lengths">
                    <caption>{format!("pass@1 (%) at threshold {threshold} by code-context length")}</caption>
                    <thead><tr>
                        <th scope="col">"Tokens"</th>
                        <th scope="col">"pass@1"</th>
                        <th scope="col">"Passed"</th>
                        <th scope="col" title="percentile bootstrap resampling repositories, stratified by language: the interval to quote">
                            {format!("{:.0}% CI by repository", 100.0 * LADDER_LEVEL)}</th>
                        {head}
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {l.rungs.iter().all(|r| r.all.by_repo.is_none()).then(|| view! {
                <p class="note ladder-no-repo-ci">"– in the CI column: an interval by repository needs two repositories or more in every language, and these runs have one in some (the demo has one per language). Each pass@1's Wilson and by-task intervals are in its tooltip."</p>
            })}
            {(!l.grid.is_empty()).then(|| depth_grid(l, threshold))}
        </section>
    }
}

/// A depth grid's table (NOT UPSTREAM, `repoqa run --depths`): a row per
/// depth, a column per length, each cell one SCORES file's pass@1.
fn depth_grid(l: &Ladder, threshold: &str) -> impl IntoView {
    let (depths, lengths) = l.grid_axes();
    let head = lengths
        .iter()
        .map(|n| view! { <th scope="col" class="num">{thousands(*n)}</th> })
        .collect_view();
    let rows = depths
        .into_iter()
        .map(|d| {
            let cells = lengths
                .iter()
                .map(|n| {
                    match l.grid_cell(d, *n).and_then(|c| c.count.rate().map(|p| (p, c))) {
                        Some((p, c)) => view! {
                            <td class="num" data-depth=float_repr(d) data-ntoken=*n data-pass=float_repr(p)
                                data-passed=c.count.passed data-n=c.count.n
                                title=format!("{} of {} tasks pass ({})", c.count.passed, c.count.n, c.source)>{percent(p)}</td>
                        }
                        .into_any(),
                        None => view! { <td class="num muted">"–"</td> }.into_any(),
                    }
                })
                .collect_view();
            view! { <tr><th scope="row" class="num">{format!("{:.0}%", 100.0 * d)}</th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label=format!("{}: depth grid", l.model)>
            <table class="grid score-table ladder-grid">
                <caption>{format!("Depth grid (not upstream, --depths: every needle at each depth), pass@1 (%) at threshold {threshold}, a run per cell; above, a length without an official-depth run pools these")}</caption>
                <thead><tr><th scope="col">"Depth"</th>{head}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
