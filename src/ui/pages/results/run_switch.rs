//! Whose run Results shows: the model the answers belong to, and (when
//! other models were run in this browser) a switch between their runs,
//! each kept whole (`state::runs`).

use leptos::prelude::*;

use crate::ui::error::UiError;
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::runs::{put_runs_on_board, switch_to};
use crate::ui::jobs::scoring::ImportReport;
use crate::ui::jobs::use_runner;
use crate::ui::state::reviewers::LeaderboardState;
use crate::ui::state::run::use_run_state;
use crate::ui::state::runs::runs_kept;
use crate::ui::state::use_state;

/// `import_report`: the last import's outcome, another run's once switched.
#[component]
pub fn RunSwitch(import_report: RwSignal<Option<Result<ImportReport, UiError>>>) -> impl IntoView {
    let app = use_state();
    let rs = use_run_state();
    let model_run = use_model_run();
    let runner = use_runner();
    let error = RwSignal::new(None::<String>);
    let switching = RwSignal::new(false);
    let runs = Memo::new(move |_| {
        // Tracked: the model name, the answers and the runs kept.
        app.scoring.model_name.track();
        rs.shelf.track();
        rs.log.track();
        runs_kept(app, rs)
    });
    // Several runs: each on the Leaderboard's list, so "Two runs, task by
    // task" compares any two of them (again when one gains answers).
    let lb = expect_context::<LeaderboardState>();
    let kept = Memo::new(move |_| {
        let mut r = runs.get();
        r.sort();
        r
    });
    // What their SCORES depend on besides the answers: the Run page's
    // selection (read back after a reload), the scoring options, the tasks.
    let selection = Memo::new(move |_| rs.form.with(|f| f.selection.clone()));
    Effect::new(move |_| {
        let n = kept.with(Vec::len);
        selection.track();
        app.scoring.unanswered.track();
        app.scoring.options.track();
        app.tasks.track();
        if n >= 2 && rs.restored.get() && !model_run.runner.busy() {
            untrack(|| put_runs_on_board(app, rs, runner, lb));
        }
    });
    let on_change = move |ev: leptos::ev::Event| {
        let model = event_target_value(&ev);
        switching.set(true);
        error.set(None);
        switch_to(app, rs, runner, model.clone(), move |r| {
            match r {
                Ok(_) => import_report.set(None),
                Err(e) if e.is_cancelled() => {}
                Err(e) => error.set(Some(format!("Not switched to {model}'s run: {e}"))),
            }
            switching.set(false);
        });
    };
    view! {
        {move || {
            let runs = runs.get();
            let (current, _) = runs[0].clone();
            if runs.len() < 2 {
                return view! { <p id="run-owner" class="muted">"Answers of " <strong>{current}</strong></p> }.into_any();
            }
            let mut sorted = runs.clone();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            view! {
                <div class="row" id="run-switch" data-runs=runs.len()>
                    <label for="run-switch-select">"Answers of "</label>
                    <select id="run-switch-select" prop:value=current.clone()
                        disabled=move || switching.get() || model_run.runner.busy() || runner.busy()
                        title=move || if model_run.runner.busy() { "A run is under way: switch when it ends" } else { "" }
                        on:change=on_change>
                        {sorted.into_iter().map(|(m, n)| view! {
                            <option value=m.clone() selected=m == current>{format!("{m} ({n} answered)")}</option>
                        }).collect_view()}
                    </select>
                    <span class="muted">{format!("{} runs kept in this browser, one per model; compare two under \"Two runs, task by task\"", runs.len())}</span>
                </div>
            }.into_any()
        }}
        {move || error.get().map(|e| view! { <p class="fail error-box" id="run-switch-error" role="alert">{e}</p> })}
    }
}
