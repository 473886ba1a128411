//! Whose run Results shows: the model the answers belong to and the
//! length they were asked at, and (when other models, or this one at
//! other lengths, were run in this browser) a switch between those runs,
//! each kept whole (`state::runs`).

use leptos::prelude::*;

use crate::ui::error::UiError;
use crate::ui::format::thousands;
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::runs::{keep_runs_on_board, switch_to};
use crate::ui::jobs::scoring::ImportReport;
use crate::ui::jobs::use_runner;
use crate::ui::state::run::use_run_state;
use crate::ui::state::runs::{runs_kept, KeptRun};
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
    keep_runs_on_board(app, rs, runner, move || model_run.runner.busy());
    let on_change = move |ev: leptos::ev::Event| {
        let key = event_target_value(&ev);
        let model = crate::ui::state::runs::parse_run_key(&key).0;
        switching.set(true);
        error.set(None);
        switch_to(app, rs, runner, key, move |r| {
            match r {
                Ok(_) => import_report.set(None),
                Err(e) if e.is_cancelled() => {}
                Err(e) => error.set(Some(format!("Not switched to {model}'s run: {e}"))),
            }
            switching.set(false);
        });
    };
    // The length the tasks are built at now (tracked).
    let built = move || app.tasks_settings.with(|s| s.as_ref().map(|s| s.code_context_size));
    view! {
        {move || {
            let runs = runs.get();
            let current = runs[0].clone();
            if runs.len() < 2 {
                let at = current.ntoken.map(|n| format!(" at {} tokens", thousands(n)));
                return view! {
                    <p id="run-owner" class="muted" data-ntoken=current.ntoken.map(|n| n.to_string())>
                        "Answers of " <strong>{current.model}</strong>{at}
                    </p>
                }.into_any();
            }
            let mut sorted = runs.clone();
            sorted.sort();
            let current_key = current.key();
            view! {
                <div class="row" id="run-switch" data-runs=runs.len()>
                    <label for="run-switch-select">"Answers of "</label>
                    <select id="run-switch-select" prop:value=current_key.clone()
                        data-model=current.model.clone()
                        data-ntoken=current.ntoken.map(|n| n.to_string())
                        disabled=move || switching.get() || model_run.runner.busy() || runner.busy()
                        title=move || if model_run.runner.busy() { "A run is under way: switch when it ends" } else { "" }
                        on:change=on_change>
                        {sorted.into_iter().map(|r| {
                            let key = r.key();
                            view! {
                                <option value=key.clone() selected=key == current_key
                                    data-model=r.model.clone() data-ntoken=r.ntoken.map(|n| n.to_string())>
                                    {label(&r)}
                                </option>
                            }
                        }).collect_view()}
                    </select>
                    <span class="muted">{format!("{} runs kept in this browser, one per model and length; compare two under \"Two runs, task by task\"", runs.len())}</span>
                </div>
            }.into_any()
        }}
        {move || {
            let current = runs.with(|r| r[0].clone());
            let (asked, now) = (current.ntoken?, built()?);
            (asked != now).then(|| view! {
                <p class="warning" id="run-other-length" role="status">
                    {format!(
                        "{}'s answers here were asked at {} tokens; the tasks are built at {} now. Their scores do not depend on the length, but they are not a run at {}: a run started now asks {} at {} tokens and keeps this one beside it.",
                        current.model, thousands(asked), thousands(now), thousands(now), current.model, thousands(now)
                    )}
                </p>
            })
        }}
        {move || error.get().map(|e| view! { <p class="fail error-box" id="run-switch-error" role="alert">{e}</p> })}
    }
}

/// A run as the switch names it: its model, its length when known, and
/// how many answers it holds.
fn label(r: &KeptRun) -> String {
    match r.ntoken {
        Some(n) => format!("{} at {} tokens ({} answered)", r.model, thousands(n), r.answered),
        None => format!("{} ({} answered)", r.model, r.answered),
    }
}
