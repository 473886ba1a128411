//! The scoring options (a change re-scores every answer first, as a job)
//! and the pass threshold.

use leptos::prelude::*;
use repoqa::python::json::float_repr;
use repoqa::report::UnansweredScoring;
use repoqa::review::leaderboard::check_threshold;
use repoqa::scoring::score::{Candidates, ScoreOptions};

use crate::ui::jobs::scoring::change_options;
use crate::ui::jobs::use_runner;
use crate::ui::state::scoring::persist_scoring;
use crate::ui::state::settings;
use crate::ui::state::use_state;

#[component]
pub fn OptionsCard() -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let options = state.scoring.options;
    // Tasks built with a comment-cleaning mode are scored with comments
    // ignored, whatever is chosen here (the official harness's rule).
    let cleaned =
        move || state.tasks_settings.with(|s| s.as_ref().is_some_and(|s| s.cleans_comments()));
    let set_candidates = move |ev: leptos::ev::Event| {
        let c = if event_target_value(&ev) == "context" {
            Candidates::Context
        } else {
            Candidates::Needles
        };
        change_options(state, runner, ScoreOptions { candidates: c, ..options.get_untracked() });
    };
    // A value out of range (or none) is refused where it was typed, and the
    // tables keep the threshold they say; a good one is kept across reloads.
    let threshold_error = RwSignal::new(None::<String>);
    let set_threshold = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        let checked = text
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("{:?} is not a number", text.trim()))
            .and_then(|t| check_threshold(t).map_err(|e| e.to_string()));
        match checked {
            Ok(t) => {
                threshold_error.set(None);
                settings::update(state.settings, |s| s.threshold = t);
            }
            Err(e) => threshold_error.set(Some(format!(
                "Not changed: {e}. The results stay at {}; type a number from 0 to 1.",
                float_repr(state.settings.with_untracked(|s| s.threshold))
            ))),
        }
    };
    view! {
        <section class="card" id="options-card">
            <h2>"Scoring options"</h2>
            <div class="row">
                <label>
                    <input type="checkbox" id="opt-ignore-comments"
                        prop:checked=move || cleaned() || options.with(|o| o.ignore_comments)
                        disabled=move || runner.busy() || cleaned()
                        on:change=move |ev| {
                            let ignore_comments = event_target_checked(&ev);
                            change_options(state, runner, ScoreOptions { ignore_comments, ..options.get_untracked() });
                        }/>
                    " Ignore comments (strip them from answers and references, like --ignore-comments)"
                </label>
            </div>
            {move || cleaned().then(|| view! {
                <p class="muted" id="ignore-comments-cleaned">"On because the tasks were built with a comment-cleaning mode: the official harness then scores with comments ignored (search_needle_function with --clean-ctx-comments)."</p>
            })}
            <div class="row">
                <label for="opt-candidates">"Compare answers against "</label>
                <select id="opt-candidates" on:change=set_candidates
                    disabled=move || runner.busy()
                    prop:value=move || options.with(|o| o.candidates.name())>
                    <option value="needles">"the repo's needles (official)"</option>
                    <option value="context">"every repo function in the prompt (NOT official)"</option>
                </select>
            </div>
            {move || (options.with(|o| o.candidates) == Candidates::Context).then(|| view! {
                <p class="warning" id="not-official">"NOT OFFICIAL: with this option scores are not comparable with published RepoQA results, and exports are labelled CONTEXT."</p>
            })}
            <div class="row">
                <label for="opt-unanswered">"Selected tasks without an answer "</label>
                <select id="opt-unanswered"
                    prop:value=move || state.scoring.unanswered.get().as_str()
                    on:change=move |ev| {
                        if let Some(u) = UnansweredScoring::parse(&event_target_value(&ev)) {
                            state.scoring.unanswered.set(u);
                            persist_scoring(state.scoring);
                        }
                    }>
                    <option value="failures">"count as failures (as repoqa run does)"</option>
                    <option value="left out">"are left out (--score-answered-only)"</option>
                </select>
            </div>
            <div class="row">
                <label for="opt-threshold">"Pass threshold for the verdicts, lists and charts "</label>
                <input id="opt-threshold" type="number" min="0" max="1" step="0.05"
                    prop:value=move || state.settings.with(|s| s.threshold.to_string())
                    aria-invalid=move || threshold_error.with(Option::is_some).to_string()
                    aria-describedby="opt-threshold-error"
                    on:change=set_threshold/>
                <span class="muted">" (the table shows every threshold)"</span>
            </div>
            {move || threshold_error.get().map(|e| view! { <p id="opt-threshold-error" class="fail" role="alert">{e}</p> })}
        </section>
    }
}
