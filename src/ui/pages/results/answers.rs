//! Import / export / clear the answers.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::browser::dom::{focus_into_view, picked_files};
use crate::ui::browser::download::download_text;
use crate::ui::browser::fetch::read_blob;
use crate::ui::error::UiError;
use crate::ui::jobs::demo::{demo_loaded, import_samples, unname_samples};
use crate::ui::jobs::scoring::{import_answers, ImportReport};
use crate::ui::jobs::use_runner;
use crate::ui::state::answers::persist_answers;
use crate::ui::state::use_state;

/// Import / export / clear answers.
#[component]
pub fn AnswersCard(
    import_report: RwSignal<Option<Result<ImportReport, UiError>>>,
) -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let pasted = RwSignal::new(String::new());
    let report = move |r: Result<ImportReport, UiError>| import_report.set(Some(r));

    let on_file = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        let Some(file) = files.into_iter().next() else { return };
        let name = file.name();
        if let Some(i) = input {
            i.set_value("");
        }
        spawn_local(async move {
            // As bytes: a 35 MB file handed over as a JS string was a
            // ~100 ms conversion in one go; bytes are one copy.
            let bytes = match read_blob(&file, &name).await {
                Ok(b) => b,
                Err(e) => return report(Err(e)),
            };
            // A dataset, tasks, SCORES or tokenizer file dropped here: say
            // where it goes instead of a parser message per line.
            let kind = repoqa::input::sniff::FileKind::OutputsJsonl;
            if let Some(hint) = repoqa::input::sniff::wrong_file(&bytes, kind) {
                return report(Err(UiError::invalid(format!("{name}: {hint}"))));
            }
            match String::from_utf8(bytes) {
                Ok(t) => {
                    unname_samples(state);
                    import_answers(state, runner, t, name, report)
                }
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                    report(Err(UiError::invalid(format!(
                        "{name}: line {line} is not UTF-8 text (byte {at} of the file); an outputs JSONL is UTF-8"
                    ))));
                }
            }
        });
    };
    let on_paste_import = move |_| {
        let t = pasted.get_untracked();
        unname_samples(state);
        import_answers(state, runner, t, "pasted text".to_string(), report);
    };
    let export_outputs = move |_| {
        let tasks = state.tasks.get_untracked();
        let text =
            state.answers.with_untracked(|a| repoqa::scoring::answers::outputs_jsonl(&tasks, a));
        let model = state.scoring.model_name.get_untracked();
        // Named as upstream names outputs (the model's name only: `repoqa
        // score` reads it back); outputs on corrected prompts say so in
        // each line's "protocol" field, and their SCORES name says so.
        let r = text.map_err(UiError::from).and_then(|t| {
            download_text(&repoqa::naming::outputs_file_name(&model), "application/jsonl", &t)
        });
        if let Err(e) = r {
            report(Err(e.context("export failed")));
        }
    };
    // The demo's sample answers (public/demo/sample-answers.jsonl): written
    // by the project, some right and some wrong, so a first visit has a
    // table and charts. Recorded under a model name that says so.
    // The demo's sample answers, recorded under a model name that says so.
    let load_samples = move |_| {
        spawn_local(async move {
            // The button goes once there are answers: the keyboard's focus
            // goes to what the import did, not to the page top.
            let report_here = move |r| {
                report(r);
                focus_into_view("import-status");
            };
            import_samples(state, runner, report_here).await;
        });
    };
    let offer_samples = move || {
        state.answers.with(|a| a.is_empty())
            && !state.tasks.with(|t| t.is_empty())
            && demo_loaded(state)
    };
    let no_tasks = move || state.tasks.with(|t| t.is_empty());
    // Clearing asks first: the answers may be a paid model run's.
    let confirming = RwSignal::new(false);
    let clear = move |_| {
        confirming.set(true);
        focus_into_view("clear-confirm-no");
    };
    let really_clear = move |_| {
        state.answers.update(|a| a.clear());
        state.answers.with_untracked(persist_answers);
        unname_samples(state);
        confirming.set(false);
        focus_into_view("import-text");
    };
    let keep = move |_| {
        confirming.set(false);
        focus_into_view("clear-answers");
    };

    view! {
        <section class="card" id="answers-card" tabindex="-1">
            <h2>"Import and export answers"</h2>
            <p>
                "An outputs JSONL: the official format (each task dict with \"output\": [reply]), or one "
                <code>"{\"task_id\": …, \"output\": …}"</code> " (or " <code>"\"name\""</code>
                " when it names one task) per line. Only the first reply of a list is scored, as officially."
            </p>
            <div class="row">
                <label>"Outputs file " <input type="file" id="import-file" accept=".jsonl,.json,.txt,application/json" on:change=on_file/></label>
            </div>
            <label for="import-text">"…or paste JSONL"</label>
            <textarea id="import-text" rows="4" spellcheck="false"
                prop:value=move || pasted.get()
                on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
            {move || offer_samples().then(|| view! {
                <p class="note" id="sample-offer">
                    "No answers yet. "
                    <button type="button" id="load-samples" on:click=load_samples>"Load sample answers"</button>
                    " — 12 answers to the demo written by this project (not by a model): some right, some wrong in instructive ways, so you can see the table and charts."
                </p>
            })}
            {move || (no_tasks() && !state.answers.with(|a| a.is_empty())).then(|| view! {
                <p class="note" id="answers-kept">
                    {move || format!("{} kept; build the tasks (Tasks page) to score or export them.", crate::ui::format::count(state.answers.with(|a| a.len()), "answer is", "answers are"))}
                </p>
            })}
            <div class="row">
                <button type="button" id="import-pasted" on:click=on_paste_import>"Import pasted lines"</button>
                <button type="button" id="export-outputs" on:click=export_outputs
                    disabled=move || no_tasks() || state.answers.with(|a| a.is_empty())>"Export outputs JSONL"</button>
                <button type="button" id="clear-answers" on:click=clear
                    disabled=move || state.answers.with(|a| a.is_empty())>"Clear all answers"</button>
            </div>
            {move || (confirming.get() && !state.answers.with(|a| a.is_empty())).then(|| view! {
                <div class="warning" id="clear-confirm" role="group" aria-label="confirm clearing the answers">
                    <p>{format!(
                        "Delete all {}? Answers from a model run cost time and money to get again: export them first (Export outputs JSONL) if you may need them.",
                        crate::ui::format::count(state.answers.with(|a| a.len()), "answer", "answers"))}</p>
                    <div class="row">
                        <button type="button" id="clear-confirm-yes" class="danger" on:click=really_clear>"Delete them"</button>
                        <button type="button" id="clear-confirm-no" on:click=keep>"Keep them"</button>
                    </div>
                </div>
            })}
            {move || import_report.get().map(|r| match r {
                Err(e) => view! { <p class="fail" id="import-status" tabindex="-1" data-ok="false">{e.to_string()}</p> }.into_any(),
                Ok(r) => { let n_errors = r.errors.len(); view! {
                    <div id="import-status" tabindex="-1" data-ok="true" data-imported=r.imported data-errors=n_errors>
                        <p>{format!("{}: {} answer(s) imported, {} line(s) skipped.", r.origin, r.imported, n_errors)}</p>
                        {(!r.errors.is_empty()).then(|| view! {
                            <ul class="line-errors" id="import-errors">
                                {r.errors.into_iter().map(|e| view! {
                                    <li data-line=e.line>{format!("line {}: {}", e.line, e.message)}</li>
                                }).collect_view()}
                            </ul>
                        })}
                    </div>
                }.into_any() }
            })}
        </section>
    }
}
