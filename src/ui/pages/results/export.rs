//! The official SCORES file and the per-task CSV, with the model name and
//! eval_date they record.

use leptos::prelude::*;
use repoqa::naming;
use repoqa::report::{self, ScoresFile};
use repoqa::review::html_report;

use crate::ui::browser::download::download_text;
use crate::ui::error::UiError;
use crate::ui::state::answers::{run_folder, score_plan, scores_file_of};
use crate::ui::state::reviewers::{LeaderboardState, SENT_SOURCE};
use crate::ui::state::run::RunState;
use crate::ui::state::scoring::{persist_scoring, ScoredSet, Shared};
use crate::ui::state::use_state;

#[component]
pub fn ExportCard(set: Memo<Shared<ScoredSet>>) -> impl IntoView {
    let state = use_state();
    let run_state = use_context::<RunState>();
    let scoring = state.scoring;
    let message = RwSignal::new(None::<Result<String, UiError>>);
    // What the scoring says beside its numbers (`ScorePlan::notices`), and
    // a cutoff that is no date.
    let notices = move || -> Vec<(bool, bool, String)> {
        scoring.options.track();
        scoring.model_name.track();
        scoring.model_cutoff.track();
        let plan = score_plan(state, &scoring.model_name.get_untracked());
        if let Err(e) = plan.check() {
            return vec![(true, true, e.to_string())];
        }
        let protocol = state.tasks.with(|ts| ts.first().map(|t| t.protocol).unwrap_or_default());
        state.dataset.with(|d| match d {
            Some(d) => plan
                .notices(protocol, &d.dataset)
                .into_iter()
                .map(|n| (n.is_warning(), n.not_official(), n.to_string()))
                .collect(),
            None => Vec::new(),
        })
    };

    // The run as a SCORES file: the model's name and its file.
    let scores_file = move || -> Result<(String, ScoresFile, String), UiError> {
        let s = set.get_untracked();
        let log = run_state.map(|rs| rs.run_log());
        scores_file_of(state, &s, &scoring.model_name.get_untracked(), log.as_ref())
    };
    let export_scores = move |_| {
        let r = scores_file().and_then(|(_, file, name)| {
            download_text(&name, "application/json", &file.to_python_json())?;
            Ok(format!("Saved {name}."))
        });
        message.set(Some(r));
    };
    // Beside the published and loaded runs on the Leaderboard page (its
    // paired comparison), replacing an earlier copy of these answers.
    let to_leaderboard = move |_| {
        let r = scores_file().map(|(model, file, name)| {
            let lb = expect_context::<LeaderboardState>();
            // In the run's folder (`ntoken_<N>/`) when the run log shows
            // the answers given to these very tasks: runs sent at several
            // lengths make a length ladder there.
            let log = run_state.map(|rs| rs.run_log()).unwrap_or_default();
            let folder = run_folder(state, &log).map(|d| format!("{d}/")).unwrap_or_default();
            lb.put_answers(
                format!("{SENT_SOURCE}/{folder}{name}"),
                file,
                state.answers.get_untracked(),
            );
            format!("Added {model} to the Leaderboard page: compare it there with any loaded run.")
        });
        message.set(Some(r));
    };
    // The run as one self-contained HTML report (tables, intervals at the
    // page's threshold, charts, the inputs' hashes), like `repoqa report`.
    let export_report = move |_| {
        let r = scores_file().and_then(|(model, file, name)| {
            let text = file.to_python_json();
            let scores =
                file.models.get(&model).ok_or_else(|| UiError::invalid("no scored answers"))?;
            let mut inputs = vec![(
                html_report::input_label("SCORES", &name),
                repoqa::input::identity::sha256_hex(text.as_bytes()),
            )];
            if let (Some(d), Some(id)) =
                (state.dataset.get_untracked(), state.dataset_digest.get_untracked())
            {
                inputs
                    .push((html_report::input_label("dataset (its JSON content)", &d.origin), id));
            }
            if let Some(id) = state.tokenizer_id.get_untracked() {
                let source = state.settings.with_untracked(|s| s.build.tokenizer_source.clone());
                inputs.push((html_report::input_label("tokenizer", &source), id));
            }
            let html = html_report::render(&html_report::ReportInput {
                title: html_report::default_title(&[&model]),
                threshold: state.settings.with_untracked(|s| s.threshold),
                resampling: repoqa::review::bootstrap::Resampling::at(0.95),
                runs: vec![html_report::ReportRun { model: model.clone(), scores }],
                inputs,
                paired: None,
                paired_error: None,
                ladders: Vec::new(),
            });
            let report = naming::report_file_name(&[&model]);
            download_text(&report, "text/html", &html)?;
            Ok(format!("Saved {report}: it opens in any browser, without scripts or network."))
        });
        message.set(Some(r));
    };
    // A self-verifying bundle of the run (`repoqa::review::bundle`): anyone with
    // the dataset checks it with `repoqa verify --bundle` or on Verify.
    let export_bundle = move |_| {
        let r = scores_file().and_then(|(model, file, _)| {
            let tasks = state.tasks.get_untracked();
            let settings = state
                .tasks_settings
                .get_untracked()
                .ok_or_else(|| UiError::invalid("build the tasks first"))?;
            let (Some(dataset), Some(tokenizer)) =
                (state.dataset_digest.get_untracked(), state.tokenizer_id.get_untracked())
            else {
                return Err(UiError::invalid(
                    "the dataset's and the tokenizer's hashes are not known yet: build the tasks first",
                ));
            };
            let outputs = state.answers.with_untracked(|a| repoqa::scoring::answers::outputs_jsonl(&tasks, a))?;
            let ignore_comments = untrack(|| state.score_options()).ignore_comments;
            let bundle = repoqa::review::bundle::Bundle::new(
                &model,
                settings,
                ignore_comments,
                dataset,
                tokenizer,
                &tasks,
                outputs,
                file.to_python_json(),
            );
            let name = format!("{}.bundle.json", naming::model_file_stem(&model));
            download_text(&name, "application/json", &bundle.to_json())?;
            Ok(format!(
                "Saved {name}: {} prompts hashed; check it with repoqa verify --bundle or on the Verify page.",
                bundle.prompts.len()
            ))
        });
        message.set(Some(r));
    };
    let export_csv = move |_| {
        let s = set.get_untracked();
        let model = scoring.model_name.get_untracked();
        let name = naming::results_csv_name(&model);
        let r = if s.results.is_empty() {
            Err(UiError::invalid("no scored answers"))
        } else {
            download_text(&name, "text/csv", &report::results_csv(&s.results))
                .map(|_| format!("Saved {name}."))
        };
        message.set(Some(r));
    };
    let none = move || set.with(|s| s.results.is_empty());

    view! {
        <section class="card" id="export-card">
            <h2>"Export scores"</h2>
            <div class="row">
                <label for="model-name">"Model name "</label>
                // As wide as its name (a model name is often long:
                // "SAMPLE-answers-not-a-model", "claude-3-5-sonnet-20240620").
                <input id="model-name" type="text" class="model-name" prop:value=move || scoring.model_name.get()
                    size=move || scoring.model_name.with(|m| m.chars().count().clamp(20, 60))
                    on:input=move |ev| {
                        scoring.model_name.set(event_target_value(&ev));
                        persist_scoring(scoring);
                    }/>
                <span class="muted">{move || format!(" train_size: {}", report::train_size(&scoring.model_name.get()).value)}</span>
            </div>
            <div class="row">
                <label for="eval-date">"eval_date "</label>
                <input id="eval-date" type="text" placeholder="now (UTC)" prop:value=move || scoring.eval_date.get()
                    on:input=move |ev| {
                        scoring.eval_date.set(event_target_value(&ev));
                        persist_scoring(scoring);
                    }/>
            </div>
            <div class="row">
                <label for="model-cutoff">"Training cutoff "</label>
                <input id="model-cutoff" type="text" placeholder="YYYY-MM-DD (optional)" prop:value=move || scoring.model_cutoff.get()
                    on:input=move |ev| {
                        message.set(None);
                        scoring.model_cutoff.set(event_target_value(&ev));
                        persist_scoring(scoring);
                    }/>
                <span class="muted">" the model's, as its makers state it: recorded as model_cutoff (NOT UPSTREAM) and checked against the dataset's date"</span>
            </div>
            // What the CLI's `score` says of the same scoring, in its words.
            <ul class="notices" id="export-notices">
                {move || notices().into_iter().map(|(warning, not_official, text)| view! {
                    <li class=if warning || not_official { "warning" } else { "muted" }
                        data-warning=warning.to_string() data-not-official=not_official.to_string()>{text}</li>
                }).collect_view()}
            </ul>
            <div class="row">
                <button type="button" id="export-scores" on:click=export_scores disabled=none>"Download SCORES.json"</button>
                <button type="button" id="export-csv" on:click=export_csv disabled=none>"Download per-task CSV"</button>
                <button type="button" id="export-bundle" on:click=export_bundle disabled=none>"Download bundle"</button>
                <button type="button" id="export-report" on:click=export_report disabled=none>"Download report (HTML)"</button>
                <button type="button" id="export-to-leaderboard" on:click=to_leaderboard disabled=none>"Add to the Leaderboard"</button>
            </div>
            {move || message.get().map(|m| match m {
                Ok(m) => {
                    let link = m.starts_with("Added").then(|| view! { " "<a href="#leaderboard">"Open the Leaderboard"</a> });
                    view! { <p class="muted" id="export-status">{m}{link}</p> }.into_any()
                }
                Err(e) => view! { <p class="fail" id="export-status">{e.to_string()}</p> }.into_any(),
            })}
        </section>
    }
}
