//! The CoReQA page's "Ask a model" card: answer the loaded questions,
//! judge the answers, compare two models' answers, through the Run page's
//! API settings (`jobs::coreqa_ask`). The prompts are shown and editable.

use leptos::prelude::*;
use repoqa::coreqa::answer::{ContextSetting, ANSWER_RUNS, ANSWER_TEMPERATURE, MAX_RUNS};
use repoqa::coreqa::files::CoreqaFile;
use repoqa::coreqa::generate::{QUESTION_TEMPLATE, REFERENCE_TEMPLATE};
use repoqa::coreqa::issues::filter_issues;
use repoqa::coreqa::judge::JUDGE_TEMPLATE;
use repoqa::coreqa::pairwise::PAIRWISE_TEMPLATE;
use repoqa::coreqa::prefilter::PREFILTER_TEMPLATE;
use repoqa::coreqa::splitter::{DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE};
use repoqa::coreqa::stability::{STABILITY_REPETITIONS, STABILITY_SEED};

use crate::ui::browser::dom::{folder_picker, picked_files};
use crate::ui::components::progress::{run_state, PauseCancel};
use crate::ui::jobs::coreqa::load_repo;
use crate::ui::jobs::coreqa_ask::{output_name, start};
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::use_runner;
use crate::ui::jobs::Line;
use crate::ui::state::coreqa::{AskForm, AskStep, CoreqaState};
use crate::ui::state::run::use_run_state;
use crate::ui::state::use_state;

fn step_of(value: &str) -> AskStep {
    match value {
        "judge" => AskStep::Judge,
        "pairwise" => AskStep::Pairwise,
        "build" => AskStep::Build,
        _ => AskStep::Answer,
    }
}

/// A prompt template shown and editable (`{id}-prompt`, its text area
/// `{id}-template`), with a way back to `default`.
fn prompt_editor(
    form: RwSignal<AskForm>,
    id: &'static str,
    summary: &'static str,
    get: fn(&AskForm) -> &String,
    field: fn(&mut AskForm) -> &mut String,
    default: &'static str,
) -> impl IntoView {
    view! {
        <details id=format!("{id}-prompt")>
            <summary>{summary}</summary>
            <textarea id=format!("{id}-template") class="prompt-editor" rows="14" spellcheck="false"
                prop:value=move || form.with(|f| get(f).clone())
                on:input=move |ev| form.update(|f| *field(f) = event_target_value(&ev))></textarea>
            <button type="button" on:click=move |_| form.update(|f| *field(f) = default.to_string())>"Back to the default"</button>
        </details>
    }
}

#[component]
pub fn AskCard() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    let app = use_state();
    let rs = use_run_state();
    // The API settings are the Run page's, saved by it: read them back
    // after a reload even if the Run page is not visited.
    rs.restore();
    let main = use_runner();
    let folder_ref = folder_picker();
    let on_repo = move |ev: leptos::ev::Event, folder: bool| {
        let (input, files) = picked_files(&ev);
        load_repo(st, main, files, folder);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let runner = use_model_run().runner;
    let busy = move || runner.busy();
    let line = runner.line_signal();
    let form = st.ask;
    let step = move || form.with(|f| f.step);
    let run_model = move || rs.form.with(|f| f.settings.model.trim().to_string());
    let api = move || {
        rs.form.with(|f| {
            format!(
                "{} at {}, concurrency {}, {} s per request",
                f.settings.provider,
                f.settings.base_url_shown(),
                f.concurrency,
                f.timeout_s
            )
        })
    };
    let key_note = move || if rs.key.with(|k| k.trim().is_empty()) { "no key" } else { "a key" };
    let output = move || {
        let f = form.get();
        let model = if f.model.trim().is_empty() { run_model() } else { f.model.clone() };
        let export = st.export_of(&f).map(|(n, _)| n);
        output_name(&f, &model, export.as_deref())
    };
    let exports = move || {
        st.files.with(|fs| {
            fs.iter()
                .filter(|f| matches!(*f.file, CoreqaFile::Export(_)))
                .map(|f| f.name.clone())
                .collect::<Vec<_>>()
        })
    };
    let kept_note = move || {
        let f = form.get();
        match st.export_of(&f) {
            Some((name, file)) => match &*file {
                CoreqaFile::Export(e) => {
                    let r = filter_issues(e);
                    format!(
                        "{name}: {} of {} issues pass the paper's filters",
                        r.kept.len(),
                        r.issues
                    )
                }
                _ => String::new(),
            },
            None => "No issues export on the page: fetch one below or load a file.".into(),
        }
    };
    let repo_note = move || {
        st.repo.with(|r| match r {
            Some(r) => r.summary.clone(),
            None => "none yet: pick its folder or archive (questions about several repositories: one holding a folder per owner/name)".into(),
        })
    };
    let (done, total) = (
        move || match line.get() {
            Line::Running { done, .. } => done,
            _ => 0,
        },
        move || match line.get() {
            Line::Running { total, .. } => total,
            _ => 0,
        },
    );
    let percent = move || {
        if matches!(line.get(), Line::Done(_) | Line::Flawed(_)) {
            "100".into()
        } else if total() > 0 {
            format!("{:.1}", done() as f64 * 100.0 / total() as f64)
        } else {
            "0".into()
        }
    };
    let state_attr = move || run_state(runner);
    let setting_box = move |s: ContextSetting| {
        let id = format!("cq-ask-setting-{s}");
        view! {
            <label class="inline">
                <input type="checkbox" id=id
                    prop:checked=move || form.with(|f| f.settings.contains(&s))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        form.update(|f| {
                            f.settings.retain(|x| *x != s);
                            if on {
                                f.settings.push(s);
                                f.settings.sort();
                            }
                        });
                    }/>
                {format!(" {s}")}
            </label>
        }
    };
    view! {
        <section class="card" id="cq-ask">
            <h2>"Ask a model"</h2>
            <p>
                "Write questions from a repository's issues, answer the loaded questions, have a judge score the answers, "
                "or compare two models' answers, through "
                "the API set on the Run page (its format, address and key; the model is the one named here, else the Run page's): " <span id="cq-ask-api">{api}</span> ", " {key_note} ". "
                <a href="#run">"Change them on the Run page"</a> ". Every reply is saved here the moment it arrives; "
                "pressing Ask again after a reload asks only what is missing."
            </p>
            <div class="row wrap">
                <label>"Step "
                    <select id="cq-ask-step" on:change=move |ev| {
                        let s = step_of(&event_target_value(&ev));
                        // The answering model is no judge of its own answers:
                        // from answering to judging (or back) the field starts empty.
                        let judging = |s: AskStep| matches!(s, AskStep::Judge | AskStep::Pairwise);
                        form.update(|f| {
                            if judging(f.step) != judging(s) {
                                f.model.clear();
                            }
                            f.step = s;
                        });
                    }>
                        <option value="answer" selected=move || step() == AskStep::Answer>"Answer the questions"</option>
                        <option value="judge" selected=move || step() == AskStep::Judge>"Judge the answers (scores)"</option>
                        <option value="pairwise" selected=move || step() == AskStep::Pairwise>"Compare two models (pairwise)"</option>
                        <option value="build" selected=move || step() == AskStep::Build>"Write questions from issues"</option>
                    </select>
                </label>
                <label>{move || match step() { AskStep::Answer => "Answering model ", AskStep::Build => "Writing model ", _ => "Judge model " }}
                    <input type="text" id="cq-ask-model" placeholder=run_model
                        prop:value=move || form.with(|f| f.model.clone())
                        on:input=move |ev| form.update(|f| f.model = event_target_value(&ev))/>
                </label>
            </div>
            {move || {
                let judging = matches!(step(), AskStep::Judge | AskStep::Pairwise);
                let judge = form.with(|f| if f.model.trim().is_empty() { run_model() } else { f.model.trim().to_string() });
                let answered = judging && !judge.is_empty() && st.answers().iter().any(|a| a.model == judge);
                answered.then(|| view! {
                    <p class="warning" id="cq-ask-self-judge" role="status">{format!(
                        "The judge, {judge}, gave answers being judged: a model judging itself favours its own answers. Name another judge model."
                    )}</p>
                })
            }}
            <Show when=move || step() == AskStep::Answer>
                <div class="row wrap" id="cq-ask-settings">
                    "Context: " {ContextSetting::ALL.iter().map(|s| setting_box(*s)).collect_view()}
                    <label>"Window (tokens, for whole) "
                        <input type="number" id="cq-ask-window" min="1" placeholder="e.g. 128000"
                            prop:value=move || form.with(|f| f.window.map(|w| w.to_string()).unwrap_or_default())
                            on:input=move |ev| {
                                let w = event_target_value(&ev).trim().parse().ok();
                                form.update(|f| f.window = w);
                            }/>
                    </label>
                </div>
                <div class="row wrap" id="cq-ask-sampling">
                    <label>"Runs "
                        <input type="number" id="cq-ask-runs" min="1" max=MAX_RUNS step="1"
                            prop:value=move || form.with(|f| if f.runs == 0 { String::new() } else { f.runs.to_string() })
                            on:input=move |ev| {
                                let n = event_target_value(&ev).trim().parse().unwrap_or(0);
                                form.update(|f| f.runs = n);
                            }/>
                    </label>
                    <label>"Temperature "
                        <input type="number" id="cq-ask-temperature" min="0" max="2" step="0.1"
                            prop:value=move || form.with(|f| f.temperature.map(|t| t.to_string()).unwrap_or_default())
                            on:input=move |ev| {
                                let t = event_target_value(&ev).trim().parse().ok();
                                form.update(|f| f.temperature = t);
                            }/>
                    </label>
                    <span class="muted">{format!(
                        "The paper samples every answer {ANSWER_RUNS} times at temperature {ANSWER_TEMPERATURE} and reports the mean and spread per question and per model; 1 run at 0 gives one greedy answer."
                    )}</span>
                </div>
                <div class="row wrap">
                    <span>"Repository for retrieval and whole: " <span id="cq-ask-repo">{repo_note}</span></span>
                    <label class="file-pick">"folder "
                        <input type="file" id="cq-repo-folder" node_ref=folder_ref on:change=move |ev| on_repo(ev, true)/>
                    </label>
                    <label class="file-pick">"or archive "
                        <input type="file" id="cq-repo-archive" accept=".zip,.tar,.tar.gz,.tgz" on:change=move |ev| on_repo(ev, false)/>
                    </label>
                </div>
                <p class="muted">"Every text file (UTF-8) is read, as " <code>"repoqa coreqa answer --repo DIR"</code>
                    {format!(" reads a folder; BM25 over chunks of {DEFAULT_CHUNK_SIZE} characters ({DEFAULT_CHUNK_OVERLAP} overlapping; LangChain's splitter), 5 chunks for the question's prose and 5 for its code.")}</p>
            </Show>
            <Show when=move || step() == AskStep::Judge>
                <div class="row wrap">
                    <label>"Repetitions "
                        <input type="number" id="cq-ask-reps" min="1" max="20"
                            disabled=move || form.with(|f| f.stability > 0)
                            prop:value=move || form.with(|f| if f.stability > 0 { STABILITY_REPETITIONS } else { f.repetitions }.to_string())
                            on:input=move |ev| {
                                let n = event_target_value(&ev).trim().parse().unwrap_or(1);
                                form.update(|f| f.repetitions = n);
                            }/>
                    </label>
                    <span class="muted">"The paper judges each answer twice (5 for its robustness check), at temperature 0.2."</span>
                </div>
                <div class="row wrap">
                    <label>"Stability check: judge a sample of "
                        <input type="number" id="cq-ask-stability" min="0" max="100000" step="1" placeholder="off"
                            prop:value=move || form.with(|f| if f.stability == 0 { String::new() } else { f.stability.to_string() })
                            on:input=move |ev| {
                                let n = event_target_value(&ev).trim().parse().unwrap_or(0);
                                form.update(|f| f.stability = n);
                            }/>
                        {format!(" answers {STABILITY_REPETITIONS} times each")}
                    </label>
                    <span class="muted" id="cq-ask-stability-note">{format!(
                        "The paper's Table VI: 200 answers, each judged {STABILITY_REPETITIONS} times, to show how much the judge's score of one answer moves. \
                         Empty: the judge's scores. The sample is drawn with seed {STABILITY_SEED} from the answers loaded, as repoqa coreqa judge --stability N draws it; \
                         its judgments go to their own file, and the tables below show them as Table VI, apart from the scores."
                    )}</span>
                </div>
                {prompt_editor(form, "cq-ask-judge", "The judge's prompt (editable)", |f| &f.judge_template, |f| &mut f.judge_template, JUDGE_TEMPLATE)}
            </Show>
            <Show when=move || step() == AskStep::Pairwise>
                <div class="row wrap">
                    <label>"Setting compared "
                        <select id="cq-ask-pair-setting" on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Ok(s) = v.parse::<ContextSetting>() {
                                form.update(|f| f.pair_setting = s);
                            }
                        }>
                            {ContextSetting::ALL.iter().map(|s| {
                                let s = *s;
                                view! { <option value=s.to_string() selected=move || form.with(|f| f.pair_setting == s)>{s.to_string()}</option> }
                            }).collect_view()}
                        </select>
                    </label>
                    <span class="muted">"Every pair of models, in both orders, at temperature 0.2."</span>
                </div>
                {prompt_editor(form, "cq-ask-pair", "The pairwise prompt (editable)", |f| &f.pairwise_template, |f| &mut f.pairwise_template, PAIRWISE_TEMPLATE)}
            </Show>
            <Show when=move || step() == AskStep::Build>
                <div class="row wrap">
                    <label>"Issues export "
                        <select id="cq-ask-export" on:change=move |ev| {
                            let v = event_target_value(&ev);
                            form.update(|f| f.export = v);
                        }>
                            {move || exports().into_iter().map(|n| {
                                let value = n.clone();
                                let selected = form.with(|f| f.export == n);
                                view! { <option value=value selected=selected>{n.clone()}</option> }
                            }).collect_view()}
                        </select>
                    </label>
                    <label>"Language (written into each item) "
                        <input type="text" id="cq-ask-language" placeholder="e.g. rust"
                            prop:value=move || form.with(|f| f.language.clone())
                            on:input=move |ev| form.update(|f| f.language = event_target_value(&ev))/>
                    </label>
                </div>
                <div class="row wrap">
                    <label class="inline">
                        <input type="checkbox" id="cq-ask-prefilter"
                            prop:checked=move || form.with(|f| f.prefilter)
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                form.update(|f| f.prefilter = on);
                            }/>
                        " First have the model screen each issue (keep or drop, with its reasons)"
                    </label>
                    <span class="muted">"As " <code>"repoqa coreqa build --prefilter"</code>
                        ". The paper screens its issues with a model before people look at them; its prompt is not published: this one is ours."</span>
                </div>
                <Show when=move || form.with(|f| f.prefilter)>
                    {prompt_editor(form, "cq-ask-prefilter", "The pre-filter prompt (editable; ours, not the paper's)", |f| &f.prefilter_template, |f| &mut f.prefilter_template, PREFILTER_TEMPLATE)}
                </Show>
                <p class="muted" id="cq-ask-kept">{kept_note}
                    ". A question is written from each kept issue's title and description (its code snippets attached as they are), "
                    "then a reference answer from the question, the labels, title, description and comments. "
                    {move || {
                        let k = form.with(|f| f.samples);
                        let t = repoqa::coreqa::generate::question_temperature(k.max(1), None);
                        format!(
                            "As the paper does, the model reasons first and ends with its question; {k} question(s) are sampled per issue at temperature {t} and the one whose words overlap the others' most is kept, all of them recorded (as repoqa coreqa build --samples {k}); reference answers are written at {}.",
                            repoqa::coreqa::generate::REFERENCE_TEMPERATURE
                        )
                    }}</p>
                <div class="row wrap">
                    <label>"Question samples per issue "
                        <input type="number" id="cq-ask-samples" min="1" max=repoqa::coreqa::generate::MAX_QUESTION_SAMPLES step="1"
                            prop:value=move || form.with(|f| if f.samples == 0 { String::new() } else { f.samples.to_string() })
                            on:input=move |ev| {
                                let n = event_target_value(&ev).trim().parse().unwrap_or(0);
                                form.update(|f| f.samples = n);
                            }/>
                    </label>
                    <span class="muted">{format!(
                        "The paper samples several and keeps the most consistent; it does not say how many: we default to {} (1: one question per issue, at temperature 0).",
                        repoqa::coreqa::generate::QUESTION_SAMPLES
                    )}</span>
                </div>
                {prompt_editor(form, "cq-ask-question", "The question prompt (editable)", |f| &f.question_template, |f| &mut f.question_template, QUESTION_TEMPLATE)}
                {prompt_editor(form, "cq-ask-reference", "The reference-answer prompt (editable)", |f| &f.reference_template, |f| &mut f.reference_template, REFERENCE_TEMPLATE)}
            </Show>
            <div class="row">
                <button type="button" class="primary" id="cq-ask-start" disabled=busy
                    on:click=move |_| start(app, rs, st, runner)>"Ask"</button>
                <PauseCancel runner=runner prefix="cq-ask"/>
                <span class="muted">"into " <code id="cq-ask-output">{output}</code></span>
            </div>
            <div id="cq-ask-progress" class="job" data-state=state_attr data-finished=move || runner.finished()
                data-done=done data-total=total role="status" aria-live="polite">
                <progress max="100" value=percent></progress>
                <span>{move || if total() > 0 { format!("{} / {}", done(), total()) } else { String::new() }}</span>
                <span>{move || st.live.with(|l| if l.stats.total == 0 { String::new() } else {
                    format!("{} answered, {} failed, {} retries", l.stats.answered, l.stats.failed, l.stats.retries)
                })}</span>
            </div>
            <p id="cq-ask-message" class=move || line.get().class()>
                {move || match line.get() { Line::Running { what, .. } => what, l => l.message().unwrap_or_default().to_string() }}
            </p>
            {move || st.live.with(|l| l.last_retry.clone()).map(|r| view! { <p class="muted" id="cq-ask-retry">"Last retry: " {r}</p> })}
            {move || st.live.with(|l| l.save_error.clone()).map(|e| view! { <p class="fail error-box" role="alert">"Not saved: " {e}</p> })}
            <Show when=move || st.live.with(|l| !l.failed.is_empty())>
                <details id="cq-ask-failed" open>
                    <summary>{move || format!("{} request(s) failed (Ask again to retry them)", st.live.with(|l| l.failed.len()))}</summary>
                    <ul class="plain-list">
                        {move || st.live.with(|l| l.failed.iter().take(20).map(|(id, why)| view! {
                            <li><code>{id.clone()}</code> ": " {why.clone()}</li>
                        }).collect_view())}
                    </ul>
                </details>
            </Show>
        </section>
    }
}
