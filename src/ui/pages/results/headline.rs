//! The top of Results: the score in words and a number
//! (`repoqa::review::headline`), what counts as a failure, and one move to the
//! charts, the table, each task or the import form.

use leptos::prelude::*;
use repoqa::python::json::float_repr;
use repoqa::review::headline::headline;

use crate::ui::browser::dom::focus_into_view;
use crate::ui::jobs::demo::{demo_loaded, SAMPLE_MODEL};
use crate::ui::state::scoring::{ScoredSet, Shared};
use crate::ui::state::use_state;

/// The cards a visitor jumps to: (label, section id).
const JUMPS: [(&str, &str); 4] = [
    ("Charts", "charts-card"),
    ("Table by threshold", "table-card"),
    ("Each task", "task-results-card"),
    ("Import answers", "answers-card"),
];

#[component]
pub fn ScoreHeadline(set: Memo<Shared<ScoredSet>>) -> impl IntoView {
    let state = use_state();
    let head = Memo::new(move |_| {
        let t = state.settings.with(|s| s.threshold);
        set.with(|s| {
            (!s.results.is_empty()).then(|| headline(&s.results, t, s.unanswered.as_ref()))
        })
    });
    let demo = move || demo_loaded(state) && state.scoring.model_name.with(|m| m == SAMPLE_MODEL);
    // The jump links: right under the numbers, so they share the first
    // screen with them, even on a phone.
    let jumps = move || {
        view! {
            <nav class="jump-links" id="results-jumps" aria-label="Results: jump to">
                <span class="muted">"Jump to: "</span>
                {JUMPS.iter().map(|&(label, id)| view! {
                    <button type="button" class="link-button" data-target=id
                        on:click=move |_| focus_into_view(id)>{label}</button>
                }).collect_view()}
            </nav>
        }
    };
    // What the tasks were (closed-book) and how fresh their sources are,
    // as a SCORES file records them.
    let provenance = move || {
        let closed = state.tasks.with(|ts| {
            ts.first().is_some_and(|t| t.protocol == repoqa::report::Protocol::NoContext)
        });
        let fresh = state.dataset.with(|d| d.as_ref().and_then(|d| d.freshness()));
        let mut said = Vec::new();
        if closed {
            said.push("Closed-book: the prompts held no code (the no-context control), so every pass was recalled from memory.".to_string());
        }
        if let Some(d) = &fresh {
            said.push(format!("The dataset's sources were first released on {d} or later."));
        }
        (!said.is_empty()).then(|| {
            view! {
                <p id="headline-provenance" data-closed-book=closed.to_string()
                    data-freshness=fresh.unwrap_or_default()>{said.join(" ")}</p>
            }
        })
    };
    view! {
        {move || match head.get() {
            None if set.with(|s| s.pending > 0) => view! {
                <p class="muted" id="score-pending" role="status">
                    <span class="spinner" aria-hidden="true"></span>
                    {move || format!(" Scoring {} answer(s) in the compute engine…", set.with(|s| s.pending))}
                </p>
                {jumps()}
            }.into_any(),
            None => jumps().into_any(),
            Some(h) => {
            let total = state.tasks.with(Vec::len);
            view! {
                <div class="score-headline" id="score-headline" role="group" aria-labelledby="headline-pass" tabindex="-1"
                    data-passed=h.passed data-n=h.n data-threshold=float_repr(h.threshold)>
                    <p class="headline-number">
                        <span class="big" id="headline-pass">{format!("pass@1 {}", h.pass_percent())}</span>
                        {h.scoring.is_some_and(|s| s == repoqa::report::UnansweredScoring::AnsweredOnly)
                            .then(|| view! { <span class="fail" id="headline-not-comparable">" (not comparable with a full run)"</span> })}
                    </p>
                    <p id="headline-counts">{h.counts()}</p>
                    {provenance()}
                    {h.answered_only().map(|a| view! { <p id="headline-answered">{a}</p> })}
                    {jumps()}
                    <p class="muted" id="headline-rule">{h.failure_rule()}</p>
                    {demo().then(|| view! {
                        <p class="notice" id="headline-demo">
                            {format!("These are the demo's {} sample answers, written by this project (some right, some wrong), not a model's: they answer {} of its {total} tasks. A model's run answers every task.", h.answered, h.answered)}
                        </p>
                    })}
                </div>
            }.into_any()
            }
        }}
    }
}
