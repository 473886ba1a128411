//! The Run page: ask a model for every task from the browser and watch the
//! score fill in. The form (preset, format, base URL, model, key, request
//! and scheduling settings, which tasks), Test connection, Run / Pause /
//! Resume / Cancel with progress, ETA and tokens, the problems (a stop, a
//! failure before any HTTP status with how to allow browser origins, cut
//! prompts, failed tasks with their reasons and a retry), and the pass@1
//! table. The requests, retries and resume plan are the core's
//! (`repoqa::llm`), run by `jobs::run`; model text is shown as text only.

use leptos::prelude::*;
use repoqa::api::TaskKind;
use repoqa::llm::in_tab;
use repoqa::llm::plan::{preset_price, PRICES_AS_OF};
use repoqa::llm::presets::{self, ALLOW_ORIGINS, PRESETS};
use repoqa::llm::progress::{duration_label, time_left_label};
use repoqa::llm::reasoning::{
    check_effort, controls, efforts_of, family_of, Effort, Front, ReasoningMode, EFFORTS,
};
use repoqa::llm::runlog::{failed_tasks, select_tasks, RunLog};
use repoqa::llm::wire::{self, Provider};
use repoqa::report::Protocol;

use super::results::table::TableCard;
use crate::ui::browser::download::download_text;
use crate::ui::components::progress::{run_state, PauseCancel};
use crate::ui::components::task_switch::TaskSwitch;
use crate::ui::format;
use crate::ui::jobs::batch::{export_batch, import_batch};
use crate::ui::jobs::call_path::start_call_path_run;
use crate::ui::jobs::run::{start, start_at_lengths, start_plan, test_connection, use_model_run};
use crate::ui::jobs::Line;
use crate::ui::state::answers::{ensure_answers_restored, score_set};
use crate::ui::state::run::{log_text, use_run_state, RunForm, RunState};
use crate::ui::state::runs::with_answers_of;
use crate::ui::state::settings;
use crate::ui::state::use_state;

/// The advice on browser origins is about one server: another address
/// (or format) starts without it.
fn forget_no_status(rs: RunState) {
    rs.live.update(|l| l.no_status = None);
}

#[component]
pub fn RunPage() -> impl IntoView {
    let app = use_state();
    let rs = use_run_state();
    ensure_answers_restored(app);
    rs.restore();
    let set = Memo::new(move |_| score_set(app));
    let busy = move || use_model_run().runner.busy();
    let call_paths = move || app.task_kind.get() == TaskKind::CallPath;
    // The page's main job line (a build started here shows there).
    let main = crate::ui::jobs::use_runner();
    // The call-path run kept in this browser: its answered count, resumed.
    crate::ui::jobs::call_path::ensure_run_restored(app);

    view! {
        <TaskSwitch/>
        <section class="card" id="run-card">
            <h2>"Run a model"</h2>
            <p class="note">
                "The page sends each task's official request (the prompt as the only user message, no system message unless you set one, temperature 0, one sample) "
                "straight from this browser to the API, stores every answer the moment it arrives, and scores it like the Results page. "
                "A reload or a closed tab loses only the requests in flight: press Run again to ask the rest."
            </p>
            {move || (!call_paths() && app.tasks.with(Vec::is_empty)).then(|| match app.dataset.get() {
                None => view! {
                    <p class="notice" id="run-no-tasks">"No tasks are built yet: load a dataset and build the tasks first ("<a href="#tasks">"Tasks"</a>")."</p>
                }.into_any(),
                // A dataset is loaded (the demo on a first visit): one click
                // builds its tasks here, with the Tasks page's settings.
                Some(d) => view! {
                    <p class="notice" id="run-no-tasks" data-dataset=d.origin.clone()>
                        {format!("{} is loaded; its tasks are not built yet. ", d.origin)}
                        <button type="button" id="run-build-tasks" class="small"
                            on:click=move |_| crate::ui::jobs::build::start_build(app, main)>"Build the tasks"</button>
                        " (with the "<a href="#tasks">"Tasks"</a>" page's settings)"
                    </p>
                    <crate::ui::components::progress::Progress/>
                }.into_any(),
            })}
            {move || call_paths().then(|| match app.call_paths.get().filter(|b| !b.tasks.is_empty()) {
                None => view! {
                    <p class="notice" id="run-no-call-paths">"No call-path tasks are built yet: build them on the "<a href="#tasks">"Tasks"</a>" page (Task: call paths) first."</p>
                }.into_any(),
                Some(b) => view! {
                    <p class="notice" id="run-call-paths" data-tasks=b.tasks.len()>
                        {format!("Run asks the {} built at {} tokens (NOT UPSTREAM; the selection below applies), as ",
                            format::count(b.tasks.len(), "call-path task", "call-path tasks"), format::thousands(b.code_context_size))}
                        <code>"repoqa run --task call-path"</code>" asks them; the answers are scored on "<a href="#results">"Results"</a>"."</p>
                }.into_any(),
            })}
            {move || (rs.interrupted.get() && !busy()).then(|| view! {
                <p class="warning" id="run-interrupted">"A run was under way when this page was left. The answers that arrived are kept; press Run to ask only the rest."</p>
            })}
            <RunSettingsForm/>
            <RunControls/>
            <RunNotices/>
        </section>
        {move || (!call_paths()).then(|| view! {
            <BatchFiles/>
            <FailedTasks/>
            <TableCard set=set/>
        })}
    }
}

/// A run through the provider's batch API: the requests exported as a
/// file, the results imported back (`jobs::batch`); the key never enters
/// the page.
#[component]
fn BatchFiles() -> impl IntoView {
    let app = use_state();
    let rs = use_run_state();
    let runner = use_model_run().runner;
    let busy = move || runner.busy();
    let on_files = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        // The same files again must fire `change` next time.
        input.set_value("");
        if !files.is_empty() {
            import_batch(app, rs, runner, files);
        }
    };
    view! {
        <section class="card" id="batch-card">
            <h2>"Batch files: no key in this page, half the price"</h2>
            <p class="note">
                "Export the requests Run would send (the same selection, only tasks without an answer) as an OpenAI Batch API file (JSONL) or an Anthropic Message Batches file (JSON) for the API format chosen above, submit it with the provider's own tools, then import its results here (for OpenAI, the output file and the error file). "
                "The answers and run records are those a live run stores for the same replies, and the Results page scores them alike. The formats: docs/batch-files.md."
            </p>
            <div class="row">
                <button type="button" id="batch-export" disabled=busy on:click=move |_| export_batch(app, rs, runner)>"Export batch file"</button>
                <label>"Import results… "
                    <input type="file" id="batch-import" multiple accept=".jsonl,.json,application/json" disabled=busy on:change=on_files/>
                </label>
            </div>
        </section>
    }
}

/// Where the model is, what to ask, how fast, and which tasks: every
/// change is stored (the key only when "remember" is ticked).
#[component]
fn RunSettingsForm() -> impl IntoView {
    let app = use_state();
    let rs = use_run_state();
    let form = rs.form;
    let edit = move |f: &dyn Fn(&mut RunForm)| {
        form.update(|s| f(s));
        if let Err(e) = rs.save_form() {
            leptos::logging::warn!("key not remembered: {e}");
        }
    };
    let forget_no_status = move || forget_no_status(rs);
    // The list price a blank price field stands for.
    let price_hint = move |input: bool| {
        form.with(|f| match preset_price(&f.settings.model) {
            Some(p) => {
                format!("{} (list price)", if input { p.input_per_m } else { p.output_per_m })
            }
            None => "unknown for this model".to_string(),
        })
    };
    let ids =
        Memo::new(move |_| app.tasks.with(|ts| ts.iter().map(|t| t.task_id()).collect::<Vec<_>>()));
    // The call-path side's tasks and the ids its kept run answered, when
    // that run is the form's model's at the tasks' length.
    let call_path_ids = Memo::new(move |_| {
        app.call_paths.with(|b| {
            b.as_ref()
                .map(|b| (b.tasks.iter().map(|t| t.id()).collect::<Vec<_>>(), b.code_context_size))
        })
    });
    let selected = move || {
        let sel = form.with(|f| f.selection.clone());
        if app.task_kind.get() == repoqa::api::TaskKind::CallPath {
            let model = form.with(|f| f.settings.model.trim().to_string());
            return call_path_ids.with(|c| {
                let Some((ids, size)) = c else { return (0, 0) };
                let picked = select_tasks(ids, &sel);
                let answered: std::collections::HashSet<String> =
                    app.call_path_run.with(|r| match r {
                        Some(r) if r.model == model && r.code_context_size == *size => {
                            r.ids.iter().cloned().collect()
                        }
                        _ => Default::default(),
                    });
                (picked.len(), picked.iter().filter(|&&i| answered.contains(&ids[i])).count())
            });
        }
        ids.with(|ids| {
            let picked = select_tasks(ids, &sel);
            // The answers of the model on the form: another model's do not count.
            let model = form.with(|f| f.settings.model.clone());
            let answered = with_answers_of(app, rs, &model, |a| {
                picked.iter().filter(|&&i| a.contains_key(&ids[i])).count()
            });
            (picked.len(), answered)
        })
    };
    // The model in this tab: no server, so no address, key, reasoning
    // switch, pacing or price to set (its own panel and notes instead).
    let tab = move || form.with(|f| in_tab::is_tab(&f.settings.base_url));
    // A memo: the model-in-tab panel is made once when the preset is
    // chosen, not again at each change of the form (the file picked and
    // the window typed are its own). It comes right after "Where": picking
    // the model is the next step.
    let in_tab_on = Memo::new(move |_| tab());
    let on_preset = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        if let Some(p) = presets::preset(&id) {
            if form.with_untracked(|f| {
                f.settings.base_url != p.base_url || f.settings.provider != p.provider
            }) {
                forget_no_status();
            }
            edit(&|f| {
                // The tab's smaller answer limit (in_tab::ANSWER_LIMIT_NOTE)
                // in place of upstream's, and back, unless one was typed.
                let (was, now) = (in_tab::is_tab(&f.settings.base_url), in_tab::is_tab(p.base_url));
                let (official, small) =
                    (Some(wire::DEFAULT_MAX_NEW_TOKENS), Some(in_tab::DEFAULT_MAX_NEW_TOKENS));
                let limit = &mut f.settings.sampling.max_tokens;
                if now && !was && *limit == official {
                    *limit = small;
                } else if was && !now && *limit == small {
                    *limit = official;
                }
                f.preset = p.id.to_string();
                f.settings.provider = p.provider;
                f.settings.base_url = p.base_url.to_string();
            });
        }
    };
    let num = |ev: &leptos::ev::Event| event_target_value(ev).trim().parse::<f64>().ok();
    view! {
        <div class="settings-grid" id="run-form">
            <fieldset>
                <legend>"Where"</legend>
                <label>"Preset "
                    <select id="run-preset" on:change=on_preset prop:value=move || form.with(|f| f.preset.clone())>
                        {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                    </select>
                </label>
                <label hidden=tab>"API format "
                    <select id="run-provider" prop:value=move || form.with(|f| f.settings.provider.name().to_string())
                        on:change=move |ev| {
                            if let Some(p) = Provider::from_name(&event_target_value(&ev)) {
                                if form.with_untracked(|f| f.settings.provider != p) { forget_no_status() }
                                edit(&|f| f.settings.provider = p)
                            }
                        }>
                        <option value="openai">"OpenAI Chat Completions"</option>
                        <option value="anthropic">"Anthropic Messages"</option>
                        <option value="google">"Google Gemini generateContent"</option>
                    </select>
                </label>
                <label hidden=tab>"Base URL "
                    <input type="url" id="run-base-url" placeholder=move || form.with(|f| f.settings.provider.default_base_url())
                        prop:value=move || form.with(|f| f.settings.base_url.clone())
                        on:change=move |ev| {
                            let v = event_target_value(&ev).trim().to_string();
                            if form.with_untracked(|f| f.settings.base_url != v) { forget_no_status() }
                            edit(&|f| f.settings.base_url = v.clone())
                        }/>
                </label>
                <label>"Model "
                    <input type="text" id="run-model" placeholder="e.g. Qwen/CodeQwen1.5-7B-Chat" list="run-model-suggestions"
                        prop:value=move || form.with(|f| f.settings.model.clone())
                        on:change=move |ev| { let v = event_target_value(&ev).trim().to_string(); edit(&|f| f.settings.model = v.clone()) }/>
                </label>
                <datalist id="run-model-suggestions">
                    {move || {
                        let p = form.with(|f| f.settings.provider);
                        presets::MODELS.iter().filter(|(q, _)| *q == p).map(|(_, m)| {
                            let price = preset_price(m).map(|pr| format!("list price ${} in / ${} out per million tokens", pr.input_per_m, pr.output_per_m)).unwrap_or_default();
                            view! { <option value=*m>{price}</option> }
                        }).collect_view()
                    }}
                </datalist>
                <label hidden=tab>"API key "
                    <input type="password" id="run-key" autocomplete="off" placeholder=move || {
                        let needs = form.with(|f| presets::preset(&f.preset).is_some_and(|p| p.needs_key));
                        if needs { "required" } else { "(none for a local server)" }
                    }
                        prop:value=move || rs.key.get()
                        on:change=move |ev| {
                            rs.key.set(event_target_value(&ev).trim().to_string());
                            if let Err(e) = rs.save_form() { leptos::logging::warn!("key not remembered: {e}"); }
                        }/>
                </label>
                <label class="check" hidden=tab>
                    <input type="checkbox" id="run-remember-key" prop:checked=move || form.with(|f| f.remember_key)
                        on:change=move |ev| { let on = event_target_checked(&ev); edit(&|f| f.remember_key = on) }/>
                    " remember the key on this device"
                </label>
                {move || (form.with(|f| f.remember_key) && !tab()).then(|| view! {
                    <p class="warning small" id="run-remember-warning">"The key will be stored unencrypted in this browser's localStorage, readable by anyone using this profile and by any script on this page's origin. Untick to forget it."</p>
                })}
                <p class="note" hidden=tab>"The key stays in memory unless you tick the box; it is sent only to this URL and never written to answers, run records, exports or the address bar."</p>
            </fieldset>
            {move || in_tab_on.get().then(|| view! { <super::run_tab::TabModelSettings/> })}
            <fieldset>
                <legend>"Request"</legend>
                <label>"Max new tokens "
                    <input type="number" id="run-max-new-tokens" min="1" step="1"
                        prop:value=move || form.with(|f| f.settings.sampling.max_tokens.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| { if let Some(n) = num(&ev).filter(|n| *n >= 1.0) { edit(&|f| f.settings.sampling.max_tokens = Some(n as u32)) } }/>
                </label>
                <p class="note" id="run-tab-limit-note" hidden=move || !tab()>{in_tab::ANSWER_LIMIT_NOTE}</p>
                <label>"System message "
                    <textarea id="run-system" rows="2" placeholder="none (as the official harness)"
                        prop:value=move || form.with(|f| f.settings.sampling.system_message.clone().unwrap_or_default())
                        on:change=move |ev| { let v = event_target_value(&ev); edit(&|f| f.settings.sampling.system_message = Some(v.clone()).filter(|s| !s.is_empty())) }></textarea>
                </label>
                <label>"Stop sequences (one per line) "
                    <textarea id="run-stop" rows="2" placeholder="e.g. <|im_end|>"
                        prop:value=move || form.with(|f| f.settings.sampling.stop.join("\n"))
                        on:change=move |ev| {
                            let v: Vec<String> = event_target_value(&ev).lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
                            edit(&|f| f.settings.sampling.stop = v.clone())
                        }></textarea>
                </label>
            </fieldset>
            <fieldset id="run-reasoning-settings" hidden=tab>
                <legend>"Reasoning"</legend>
                <label>"Reasoning "
                    <select id="run-reasoning" prop:value=move || form.with(|f| f.settings.reasoning.mode.to_string())
                        on:change=move |ev| {
                            if let Ok(m) = event_target_value(&ev).parse::<ReasoningMode>() { edit(&|f| f.settings.reasoning.mode = m) }
                        }>
                        <option value="auto">"auto (known reasoning models)"</option>
                        <option value="on">"on (any model)"</option>
                        <option value="off">"off (RepoQA's own request)"</option>
                    </select>
                </label>
                <label>"Effort "
                    <select id="run-reasoning-effort" prop:value=move || form.with(|f| f.settings.reasoning.effort.map(|e| e.to_string()).unwrap_or_default())
                        on:change=move |ev| {
                            let e = event_target_value(&ev).parse::<Effort>().ok();
                            edit(&|f| f.settings.reasoning.effort = e)
                        }>
                        // Every effort; those the model's family does not take (by the
                        // table of models) shown and disabled, saying so.
                        {move || {
                            let (model, chosen) = form.with(|f| (f.settings.model.clone(), f.settings.reasoning.effort));
                            let takes = efforts_of(&model);
                            let family = family_of(&model).map(|f| f.label);
                            let default = view! { <option value="" selected=chosen.is_none()>"the model's default"</option> };
                            let efforts = EFFORTS.iter().map(|e| {
                                let taken = takes.contains(e);
                                let text = match family {
                                    Some(f) if !taken => format!("{e} (not taken by {f})"),
                                    _ => e.to_string(),
                                };
                                view! { <option value=e.name() disabled=!taken selected=chosen == Some(*e)>{text}</option> }
                            }).collect_view();
                            (default, efforts)
                        }}
                    </select>
                </label>
                <p class="note" id="run-effort-controls">{move || form.with(|f| controls(f.settings.provider, &f.settings.model))}</p>
                {move || form.with(|f| check_effort(&f.settings.model, &f.settings.reasoning, Front::Page).err()).map(|e| view! {
                    <p class="warning small" id="run-effort-problem" role="alert">{e}</p>
                })}
                <label>"Thinking budget (tokens; blank: the effort's, 16,384 for medium) "
                    <input type="number" id="run-reasoning-budget" min="0" step="1024" placeholder="16384"
                        prop:value=move || form.with(|f| f.settings.reasoning.budget.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| {
                            let n = num(&ev).filter(|n| *n >= 0.0 && *n <= f64::from(u32::MAX)).map(|n| n as u32);
                            edit(&|f| f.settings.reasoning.budget = n)
                        }/>
                </label>
                <label class="check">
                    <input type="checkbox" id="run-keep-reasoning" prop:checked=move || form.with(|f| f.settings.reasoning.keep_reasoning)
                        on:change=move |ev| { let on = event_target_checked(&ev); edit(&|f| f.settings.reasoning.keep_reasoning = on) }/>
                    " store each reply whole, <think> and all (as the official harness)"
                </label>
                <p class="note" id="run-reasoning-note" data-thinking=move || form.with(|f| f.settings.thinking().is_some().to_string())>
                    {move || form.with(|f| {
                        let mut e = f.settings.clone();
                        e.from_browser = true;
                        e.reasoning_summary()
                    })}
                </p>
                // The label the app puts on every departure from the official
                // harness, explained where a newcomer first meets it.
                <p class="note small" id="run-not-upstream-legend"
                    hidden=move || !form.with(|f| f.settings.thinking().is_some())>
                    <strong>"NOT UPSTREAM"</strong>
                    " marks what RepoQA's official harness (evalplus/repoqa) does not do. The run's answers and scores record it, so its pass@1 is never passed off as an official one; Reasoning: off asks exactly as the official harness does."
                </p>
                <p class="note">"A reasoning model thinks before it answers: its thinking gets a budget of its own beside max new tokens (the answer's), the answer is what follows the thinking, and a reply cut at the token limit before any answer is a failed task saying what to raise, never an empty answer."</p>
            </fieldset>
            <fieldset>
                <legend>"Scheduling"</legend>
                <p class="note" id="run-tab-pace" hidden=move || !tab()>{in_tab::PACE_NOTE}</p>
                <label hidden=tab>"Concurrency "
                    <input type="number" id="run-concurrency" min="1" max="256" step="1"
                        prop:value=move || form.with(|f| f.concurrency.to_string())
                        on:change=move |ev| { if let Some(n) = num(&ev) { edit(&|f| f.concurrency = n as usize) } }/>
                </label>
                <label hidden=tab>"Timeout per request (s) "
                    <input type="number" id="run-timeout" min="1" step="1"
                        prop:value=move || form.with(|f| f.timeout_s.to_string())
                        on:change=move |ev| { if let Some(n) = num(&ev) { edit(&|f| f.timeout_s = n) } }/>
                </label>
                <label hidden=tab>"Retries (429, 5xx, drops, timeouts) "
                    <input type="number" id="run-max-retries" min="0" step="1"
                        prop:value=move || form.with(|f| f.max_retries.to_string())
                        on:change=move |ev| { if let Some(n) = num(&ev).filter(|n| *n >= 0.0) { edit(&|f| f.max_retries = n as u32) } }/>
                </label>
                <label hidden=tab>"First retry delay (ms) "
                    <input type="number" id="run-retry-base" min="0" step="100"
                        prop:value=move || form.with(|f| f.retry_base_ms.to_string())
                        on:change=move |ev| { if let Some(n) = num(&ev) { edit(&|f| f.retry_base_ms = n) } }/>
                </label>
            </fieldset>
            <fieldset>
                <legend>"Which tasks"</legend>
                // SNF's prompts (its no-context control); the call-path
                // tasks have one protocol.
                <div hidden=move || app.task_kind.get() == repoqa::api::TaskKind::CallPath>
                <label>"Prompts "
                    <select id="run-protocol" on:change=move |ev| {
                        if let Ok(p) = event_target_value(&ev).parse::<Protocol>() {
                            settings::update(app.settings, |s| s.build.protocol = p);
                        }
                    }>
                        {Protocol::ALL.iter().copied().map(|p| view! {
                            <option value=p.as_str() selected=move || app.settings.with(|s| s.build.protocol == p)>{p.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <p class="note">"Closed-book: the no-context control asks every task without its code, so what passes is what the model remembers. Run it after the real run under the same model name and add both to the Leaderboard (Results → Add to the Leaderboard): it shows the memorized share and the two runs task by task."</p>
                {move || {
                    let chosen = app.settings.with(|s| s.build.protocol);
                    let built = app.tasks.with(|ts| ts.first().map(|t| t.protocol));
                    built.filter(|b| *b != chosen).map(|b| view! {
                        <p class="notice" id="run-protocol-rebuild">
                            {format!("The tasks were built with the {}; ", b.label())}
                            <a href="#tasks">"rebuild them"</a>" to ask these prompts."
                        </p>
                    })
                }}
                </div>
                <label>"Task id contains "
                    <input type="text" id="run-filter" placeholder="all (e.g. python:: or a repo)"
                        prop:value=move || form.with(|f| f.selection.filter.clone())
                        on:change=move |ev| { let v = event_target_value(&ev); edit(&|f| f.selection.filter = v.clone()) }/>
                </label>
                <label>"Sample of N (seeded) "
                    <input type="number" id="run-sample" min="1" step="1" placeholder="all"
                        prop:value=move || form.with(|f| f.selection.sample.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| { let n = num(&ev).filter(|n| *n >= 1.0).map(|n| n as usize); edit(&|f| f.selection.sample = n) }/>
                </label>
                <label>"Seed "
                    <input type="number" id="run-seed" min="0" step="1"
                        prop:value=move || form.with(|f| f.selection.seed.to_string())
                        on:change=move |ev| { if let Some(n) = num(&ev).filter(|n| *n >= 0.0) { edit(&|f| f.selection.seed = n as u64) } }/>
                </label>
                <p id="run-selection" data-selected=move || selected().0 data-answered=move || selected().1>
                    {move || {
                        let (n, a) = selected();
                        let model = form.with(|f| f.settings.model.trim().to_string());
                        let by = if model.is_empty() || a == 0 { String::new() } else { format!(" by {model}") };
                        format!("{n} task(s) selected, {a} answered already{by}, {} to ask.", n - a)
                    }}
                </p>
            </fieldset>
            <fieldset>
                <legend>"Plan and cost"</legend>
                <label>"Context window (tokens) "
                    <input type="number" id="run-context-window" min="1" step="1" placeholder="auto"
                        prop:value=move || form.with(|f| f.plan.context_window.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| { let n = num(&ev).filter(|n| *n >= 1.0).map(|n| n as usize); edit(&|f| f.plan.context_window = n) }/>
                </label>
                <label hidden=tab>"USD per million input tokens "
                    <input type="number" id="run-price-in" min="0" step="any" placeholder=move || price_hint(true)
                        prop:value=move || form.with(|f| f.plan.price_in.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| { let n = num(&ev).filter(|n| *n >= 0.0); edit(&|f| f.plan.price_in = n) }/>
                </label>
                <label hidden=tab>"USD per million output tokens "
                    <input type="number" id="run-price-out" min="0" step="any" placeholder=move || price_hint(false)
                        prop:value=move || form.with(|f| f.plan.price_out.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| { let n = num(&ev).filter(|n| *n >= 0.0); edit(&|f| f.plan.price_out = n) }/>
                </label>
                <label hidden=tab>"Rate limit (requests per minute) "
                    <input type="number" id="run-rate-limit" min="0" step="any" placeholder="none"
                        prop:value=move || form.with(|f| f.plan.rate_limit_rpm.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| { let n = num(&ev).filter(|n| *n > 0.0); edit(&|f| f.plan.rate_limit_rpm = n) }/>
                </label>
                <label hidden=tab>"Ask before a run that may cost over (USD) "
                    <input type="number" id="run-confirm-above" min="0" step="any" placeholder="never ask"
                        prop:value=move || form.with(|f| f.confirm_above.map(|n| n.to_string()).unwrap_or_default())
                        on:change=move |ev| { let n = num(&ev).filter(|n| *n >= 0.0); edit(&|f| f.confirm_above = n) }/>
                </label>
                <p class="note" id="run-tab-cost" hidden=move || !tab()>"Nothing to pay and no rate limit: the model runs on this computer."</p>
                <p class="muted" hidden=tab>{format!("A window left blank is the server's, if it says (llama.cpp's /props). Prices left blank come from a table of list prices as published in {PRICES_AS_OF}: estimates, to check against the provider's page. Plan counts every prompt's tokens before a single request.")}</p>
            </fieldset>
        </div>
    }
}

/// Test connection; Run, Pause / Resume, Cancel; the run's progress line
/// (done, ETA, tokens) and its last message.
#[component]
fn RunControls() -> impl IntoView {
    let app = use_state();
    let rs = use_run_state();
    let runner = use_model_run().runner;
    let busy = move || runner.busy();
    let line = runner.line_signal();
    let percent = move || match line.get() {
        Line::Running { done, total, .. } if total > 0 => {
            (done as f64 * 100.0 / total as f64).min(100.0)
        }
        Line::Done(_) | Line::Flawed(_) => 100.0,
        _ => 0.0,
    };
    let counts = move || match line.get() {
        Line::Running { done, total, .. } => (done, total),
        _ => (0, 0),
    };
    let state_attr = move || run_state(runner);
    let call_paths = move || app.task_kind.get() == TaskKind::CallPath;
    // Elapsed and time left move every second while a run waits for a
    // reply, not only when one arrives.
    let tick = RwSignal::new(0u64);
    if let Ok(h) = set_interval_with_handle(
        move || {
            if runner.busy_untracked() {
                tick.update(|t| *t += 1);
            }
        },
        std::time::Duration::from_secs(1),
    ) {
        on_cleanup(move || h.clear());
    }
    view! {
        <div class="row">
            <button type="button" id="run-test-connection" on:click=move |_| test_connection(rs)>"Test connection"</button>
            {move || rs.connection.get().map(|(ok, text)| view! {
                <span id="run-connection-status" class=if ok { "pass" } else { "fail" } data-ok=ok.to_string()>{text}</span>
            })}
        </div>
        <div class="row">
            <button type="button" class="primary" id="run-start" disabled=busy
                on:click=move |_| match app.task_kind.get_untracked() {
                    TaskKind::Snf => start(app, rs, runner, false, None),
                    TaskKind::CallPath => start_call_path_run(app, rs, runner),
                }>"Run"</button>
            // The plan counts SNF's prompts; the call-path side has none yet.
            <button type="button" id="run-plan" disabled=busy hidden=call_paths
                on:click=move |_| start_plan(app, rs, runner)>"Plan"</button>
            <PauseCancel runner=runner prefix="run"/>
        </div>
        {move || (!call_paths()).then(|| view! { <LengthsRun/> })}
        // The run's status: in place before the first run; once a run has
        // started, kept at the bottom of the screen while the long form
        // above is in view, so its progress and its end are seen from
        // wherever the page is scrolled.
        <div id="run-status" class="run-status" class:sticky=move || !matches!(line.get(), Line::Idle)
            data-sticky=move || (!matches!(line.get(), Line::Idle)).to_string()>
        <div id="run-progress" class="job" data-state=state_attr data-finished=move || runner.finished()
            data-done=move || counts().0 data-total=move || counts().1 role="status" aria-live="polite">
            <progress max="100" value=move || format!("{:.1}", percent())></progress>
            <span>{move || { let (d, t) = counts(); if t > 0 { format!("{d} / {t}") } else { String::new() } }}</span>
            <span id="run-eta">{move || {
                tick.track();
                runner.elapsed_ms().map(|(e, done, total)| if runner.paused() {
                    format!("{} elapsed, paused", duration_label(e))
                } else {
                    format!("{} elapsed, {}", duration_label(e), time_left_label(e, done, total))
                }).unwrap_or_default()
            }}</span>
            <span id="run-tokens" data-prompt=move || rs.live.with(|l| l.stats.prompt_tokens) data-completion=move || rs.live.with(|l| l.stats.completion_tokens)>
                {move || rs.live.with(|l| if l.stats.total == 0 { String::new() } else {
                    format!("{} answered, {} failed, {} retries; tokens: {} prompt + {} completion", l.stats.answered, l.stats.failed, l.stats.retries, l.stats.prompt_tokens, l.stats.completion_tokens)
                })}
            </span>
        </div>
        // The model in this tab's answer as it goes (each token moves it;
        // not a live region, which would read every token aloud).
        {move || rs.tab_progress.get().filter(|_| runner.busy()).map(|p| view! {
            <p id="run-tab-progress" class="small" data-written=p.written
                data-read=p.read.map(|r| r.0).unwrap_or_default()>{p.words()}</p>
        })}
        <p id="run-message" class=move || line.get().class() data-flawed=move || matches!(line.get(), Line::Flawed(_)).to_string()>
            {move || match line.get() {
                Line::Running { .. } if runner.paused() => match rs.live.with(|l| l.in_flight) {
                    0 => "Paused: nothing in flight. Resume to go on.".to_string(),
                    n => format!("Paused: {} still finishing; nothing new is sent.", format::count(n, "request", "requests")),
                },
                Line::Running { what, .. } => what,
                l => l.message().unwrap_or_default().to_string(),
            }}
        </p>
        // After a run that answered something: where its scores are.
        {move || (matches!(line.get(), Line::Done(_) | Line::Flawed(_)) && rs.live.with(|l| l.stats.answered > 0)).then(|| view! {
            <p id="run-next-steps">"Next: the answers are scored on "<a href="#results">"Results"</a>
                {move || if call_paths() {
                    view! { " (Task: call paths: pass@1 by path length and depth, each task's verdict drawn over the call graph)." }.into_any()
                } else {
                    view! { " (pass@1, charts, exports); compare models on the "<a href="#leaderboard">"Leaderboard"</a>"." }.into_any()
                }}</p>
        })}
        </div>
    }
}

/// What went wrong or needs a look while or after running: a stop, the
/// last retry, answers not stored, another model answering, cut prompts,
/// and a request without an HTTP status (with how to allow this origin).
#[component]
fn RunNotices() -> impl IntoView {
    let rs = use_run_state();
    let busy = move || use_model_run().runner.busy();
    let forget_no_status = move || forget_no_status(rs);
    let origin = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .and_then(|h| presets::origin_of(&h))
        .unwrap_or_default();
    view! {
        {move || rs.live.with(|l| l.stopped.clone()).map(|r| view! {
            <p class="error-box" id="run-stopped">{format!("The run stopped: {r}")}</p>
        })}
        {move || rs.live.with(|l| l.last_retry.clone()).filter(|_| busy()).map(|(_, r)| view! {
            <p class="note" id="run-last-retry">{format!("Retrying: {r}")}</p>
        })}
        {move || rs.live.with(|l| l.save_error.clone()).map(|e| view! {
            <p class="warning" id="run-save-error">{format!("Answers could not be stored in this browser ({e}); they are kept in memory only: export them before leaving.")}</p>
        })}
        {move || rs.live.with(|l| l.other_model.clone()).map(|w| view! {
            <p class="warning" id="run-other-model">{w}</p>
        })}
        {move || rs.live.with(|l| l.unlisted_model.clone()).map(|w| view! {
            <p class="warning" id="run-unlisted-model">{w}</p>
        })}
        {move || rs.live.with(|l| l.concurrency_note.clone()).map(|w| view! {
            <p class="note" id="run-concurrency-note">{w}</p>
        })}
        {move || rs.plan.with(|p| p.as_ref().map(|p| {
            let cost = p.max_cost().map(|c| format!("{c:.6}")).unwrap_or_default();
            view! {
                <div id="run-plan-box" data-tasks=p.tasks data-prompt-tokens=p.prompt_tokens data-max-cost=cost>
                    <h3>"Plan"</h3>
                    <ul id="run-plan-lines">
                        // Indented lines (the tasks that do not fit) under theirs.
                        {p.lines().into_iter().map(|l| {
                            let sub = l.starts_with("  ");
                            view! { <li class:sub=sub>{l.trim().to_string()}</li> }
                        }).collect_view()}
                    </ul>
                </div>
            }
        }))}
        {move || rs.live.with(|l| (!l.truncated.is_empty()).then(|| l.truncated.clone())).map(|ids| view! {
            <p class="error-box" id="run-truncated">{format!(
                "WARNING: the API counted far fewer prompt tokens than the task holds for {} task(s) ({}): the server cut the prompt silently (Ollama's default context is 4,096 tokens). Their scores are meaningless: raise the server's context size and ask them again.",
                ids.len(), ids.join(", "))}</p>
        })}
        {
            let origin = origin.clone();
            move || rs.live.with(|l| l.no_status.clone()).map(|m| view! {
                <div class="warning" id="run-cors-help">
                    <p><strong>"A request got no HTTP status"</strong>{browser_words(&m)}</p>
                    <p>{format!(
                        "Either the server is not running at that address, or it does not allow this page's origin ({origin}) to read its replies (CORS). To allow it:"
                    )}</p>
                    <ul>
                        {ALLOW_ORIGINS.iter().map(|(who, how)| view! { <li><strong>{*who}</strong>": "{*how}</li> }).collect_view()}
                    </ul>
                    <button type="button" id="run-cors-dismiss" class="small" on:click=move |_| forget_no_status()>"Dismiss"</button>
                </div>
            })
        }
    }
}

/// What the browser itself said of a request without an HTTP status, as
/// " (the browser said: …)." — the explanation the transport adds
/// (`presets::NO_STATUS`) is the box's own text, not repeated.
fn browser_words(m: &str) -> String {
    let own = m.strip_prefix(presets::NO_STATUS).map(str::trim).unwrap_or(m);
    let own = own.strip_prefix('(').and_then(|o| o.strip_suffix(')')).unwrap_or(own).trim();
    if own.is_empty() {
        ".".to_string()
    } else {
        format!(" (the browser said: {own}).")
    }
}

/// The tasks that failed (with why, and a retry each or all) and the run
/// records' download.
#[component]
fn FailedTasks() -> impl IntoView {
    let app = use_state();
    let rs = use_run_state();
    let runner = use_model_run().runner;
    let busy = move || runner.busy();
    let failed = Memo::new(move |_| {
        let log = RunLog { records: rs.log.get(), bad_lines: Vec::new() };
        app.answers.with(|a| failed_tasks(&log, |id| a.contains_key(id)))
    });
    let download_log = move |_| {
        let text = rs.log.with_untracked(|l| log_text(l));
        if let Err(e) = download_text("run-log.jsonl", "application/jsonl", &text) {
            leptos::logging::warn!("{e}");
        }
    };
    view! {
    <section class="card" id="run-failed-card">
        <h2>"Failed tasks"</h2>
        {move || {
            let f = failed.get();
            if f.is_empty() {
                view! { <p class="muted" id="run-no-failed">"None."</p> }.into_any()
            } else {
                view! {
                    <ul id="run-failed">
                        {f.into_iter().map(|(id, why)| {
                            let retry_id = id.clone();
                            view! {
                                <li data-task-id=id.clone()>
                                    <code>{id.clone()}</code>": "{why}" "
                                    <button type="button" class="retry-one" disabled=busy
                                        on:click=move |_| start(app, rs, runner, true, Some(retry_id.clone()))>"Retry"</button>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                    <button type="button" id="run-retry-failed" disabled=busy
                        on:click=move |_| start(app, rs, runner, true, None)>"Retry the failed tasks"</button>
                }.into_any()
            }
        }}
        <div class="row">
            <button type="button" id="run-download-log" on:click=download_log disabled=move || rs.log.with(Vec::is_empty)>
                "Download run records (JSONL)"
            </button>
            <span class="note">"What produced each answer: provider, model, base URL (no key), parameters, time, latency, tokens; and why a task failed. The answers themselves are exported on the "<a href="#results">"Results"</a>" page (outputs JSONL, SCORES)."</span>
        </div>
    </section>
    }
}

/// "Run at several lengths": the tasks built at each length in turn and
/// the model asked at each, every length a run of its own
/// (`jobs::run::start_at_lengths`; `repoqa run --code-context-size
/// 1024,2048` in the CLI).
#[component]
fn LengthsRun() -> impl IntoView {
    let app = use_state();
    let rs = use_run_state();
    let runner = use_model_run().runner;
    let main = crate::ui::jobs::use_runner();
    let error = RwSignal::new(None::<String>);
    let text = move || rs.form.with(|f| f.lengths.clone());
    let on_input = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        error.set(None);
        rs.form.update(|f| f.lengths = v);
    };
    let go = move |_| match repoqa::prompt::settings::parse_context_sizes(&text()) {
        Ok(lengths) => {
            error.set(None);
            start_at_lengths(app, rs, runner, main, lengths);
        }
        Err(e) => error.set(Some(format!("Lengths: {e}."))),
    };
    view! {
        <details id="run-lengths-box" open=move || !text().trim().is_empty()>
            <summary>"Run at several lengths (a length ladder)"</summary>
            <p class="note">"The tasks are built at each length in turn (the settings of the Tasks page, only the context size changed) and the selection above is asked at each, as "
                <code>"repoqa run --code-context-size 4096,8192,…"</code>
                " does. Each length is a run of its own: Results switches between them, and the "
                <a href="#leaderboard">"Leaderboard"</a>" draws the model's pass@1 by length. A length asked before resumes. Long prompts cost more: press Plan at one length first."</p>
            <div class="row">
                <label>"Lengths (tokens, comma-separated) "
                    <input type="text" id="run-lengths" inputmode="numeric" spellcheck="false" placeholder="4096,8192,16384"
                        aria-invalid=move || error.get().is_some().to_string()
                        prop:value=text on:input=on_input
                        on:change=move |_| if let Err(e) = rs.save_form() { leptos::logging::warn!("key not remembered: {e}") }/>
                </label>
                <button type="button" id="run-at-lengths" disabled=move || runner.busy()
                    on:click=go>"Run at each length"</button>
            </div>
            {move || error.get().map(|e| view! { <p class="fail" id="run-lengths-error" role="alert">{e}</p> })}
        </details>
    }
}
