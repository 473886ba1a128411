//! The Results page: answers in (import) and out (outputs JSONL), scoring
//! options, the official pass@1 table, charts, per-task results with a
//! detail view, and the official SCORES / CSV exports. Everything shown is
//! computed by the core (`repoqa::score`, `repoqa::report`,
//! `repoqa::breakdown`, `repoqa::linediff`); answers and dataset text are
//! rendered as text nodes only.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::breakdown::{breakdown, depth_bin};
use repoqa::linediff::{line_diff, DiffOp};
use repoqa::pyjson::float_repr;
use repoqa::report::{self, LineError, ModelScores, ScoresFile};
use repoqa::score::{Candidates, ScoreOptions, THRESHOLD_KEYS};
use wasm_bindgen::JsCast;

use super::charts::Charts;
use super::download::download_text;
use super::pager::{page_range, Pager};
use super::progress::{now_ms, yield_to_browser, Progress};
use super::scoring::{
    change_options, ensure_answers_restored, persist_answers, persist_scoring, score_set,
    warm_scores, ScoredSet, Shared, TaskScore,
};
use super::state::{use_state, AppState, Job};

/// What the last import did.
#[derive(Clone, Debug, PartialEq)]
struct ImportReport {
    origin: String,
    imported: usize,
    errors: Vec<LineError>,
}

#[component]
pub fn ResultsPage() -> impl IntoView {
    let state = use_state();
    ensure_answers_restored(state);
    let set = Memo::new(move |_| score_set(state));
    let selected = RwSignal::new(None::<String>);
    let import_report = RwSignal::new(None::<Result<ImportReport, String>>);

    view! {
        <section
            class="card results"
            id="results"
            data-tasks=move || state.tasks.with(Vec::len)
            data-answered=move || set.with(|s| s.items.len())
            data-rescored=move || set.with(|s| s.rescored)
            data-score-ms=move || set.with(|s| format!("{:.1}", s.ms))
            data-option-rescores=move || state.scoring.last_rescore.with(|r| r.0)
            data-option-rescored=move || state.scoring.last_rescore.with(|r| r.1)
            data-option-score-ms=move || state.scoring.last_rescore.with(|r| format!("{:.1}", r.2))
        >
            <h2>"Answers and results"</h2>
            {move || {
                let n = state.tasks.with(Vec::len);
                if n == 0 {
                    view! { <p class="notice" id="results-no-tasks">"No tasks are built yet: load a dataset and build the tasks first. Answers are matched to tasks by id (language::repo::name)."</p> }.into_any()
                } else {
                    let s = set.get();
                    view! {
                        <p id="answer-summary">
                            {format!("{} of {n} tasks answered; ", s.items.len())}
                            {format!("last scoring pass re-scored {} in {:.0} ms.", s.rescored, s.ms)}
                        </p>
                    }.into_any()
                }
            }}
            // Imports and option changes run in slices: their progress and
            // Cancel show here.
            <Progress/>
        </section>
        <AnswersCard import_report=import_report/>
        <OptionsCard/>
        <TableCard set=set/>
        <section class="card" id="charts-card">
            <h2>"Charts"</h2>
            {move || {
                let s = set.get();
                let threshold = state.settings.with(|st| st.threshold);
                if s.results.is_empty() {
                    view! { <p class="muted">"Charts appear once answers are scored."</p> }.into_any()
                } else {
                    let series = breakdown(&s.results, threshold);
                    view! { <Charts series=series threshold=threshold/> }.into_any()
                }
            }}
        </section>
        <TaskList set=set selected=selected/>
        <TaskDetail set=set selected=selected/>
        <ExportCard set=set/>
    }
}

/// Import / export / clear answers.
#[component]
fn AnswersCard(import_report: RwSignal<Option<Result<ImportReport, String>>>) -> impl IntoView {
    let state = use_state();
    let pasted = RwSignal::new(String::new());

    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        let name = file.name();
        input.set_value("");
        spawn_local(async move {
            // As bytes: a 35 MB file handed over as a JS string was a
            // ~100 ms conversion in one go; bytes are one copy.
            let read = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await;
            let bytes = match read {
                Ok(buf) => js_sys::Uint8Array::new(&buf).to_vec(),
                Err(e) => {
                    import_report.set(Some(Err(super::storage::js_error(
                        &format!("{name}: could not read the file"),
                        &e,
                    ))));
                    return;
                }
            };
            match String::from_utf8(bytes) {
                Ok(t) => import_text(state, t, name, import_report),
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                    import_report.set(Some(Err(format!(
                        "{name}: line {line} is not UTF-8 text (byte {at} of the file); an outputs JSONL is UTF-8"
                    ))));
                }
            }
        });
    };
    let on_paste_import = move |_| {
        let t = pasted.get_untracked();
        import_text(state, t, "pasted text".to_string(), import_report);
    };
    let export_outputs = move |_| {
        let tasks = state.tasks.get_untracked();
        let text = state.answers.with_untracked(|a| repoqa::answers::outputs_jsonl(&tasks, a));
        let model = state.scoring.model_name.get_untracked();
        let r = text.map_err(|e| e.to_string()).and_then(|t| {
            download_text(&format!("{}.jsonl", model_file_stem(&model)), "application/jsonl", &t)
        });
        if let Err(e) = r {
            import_report.set(Some(Err(format!("export failed: {e}"))));
        }
    };
    let clear = move |_| {
        state.answers.update(|a| a.clear());
        state.answers.with_untracked(persist_answers);
    };

    view! {
        <section class="card" id="answers-card">
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
            <div class="row">
                <button type="button" id="import-pasted" on:click=on_paste_import>"Import pasted lines"</button>
                <button type="button" id="export-outputs" on:click=export_outputs
                    disabled=move || state.answers.with(|a| a.is_empty())>"Export outputs JSONL"</button>
                <button type="button" id="clear-answers" on:click=clear
                    disabled=move || state.answers.with(|a| a.is_empty())>"Clear all answers"</button>
            </div>
            {move || import_report.get().map(|r| match r {
                Err(e) => view! { <p class="fail" id="import-status" data-ok="false">{e}</p> }.into_any(),
                Ok(r) => { let n_errors = r.errors.len(); view! {
                    <div id="import-status" data-ok="true" data-imported=r.imported data-errors=n_errors>
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

/// Import an outputs JSONL: lines are read a slice at a time and the new
/// answers scored into the cache before they are shown, with progress, so
/// a 35 MB official-format file (500 tasks with their prompts) never
/// freezes the page.
fn import_text(
    state: AppState,
    text: String,
    origin: String,
    report: RwSignal<Option<Result<ImportReport, String>>>,
) {
    let tasks = state.tasks.get_untracked();
    if tasks.is_empty() {
        report.set(Some(Err(
            "No tasks are built yet: build the tasks, then import their answers.".into(),
        )));
        return;
    }
    if matches!(state.job.get_untracked(), Job::Running { .. }) {
        report.set(Some(Err(
            "Busy: wait for the current job to finish or cancel it, then import again.".into(),
        )));
        return;
    }
    state.cancel.set(false);
    spawn_local(async move {
        let all = repoqa::answers::lines(&text);
        let total = all.len();
        let mut importer = repoqa::answers::AnswersImporter::new(&tasks);
        let what = format!("Importing answers from {origin}");
        let mut k = 0;
        while k < total {
            state.job.set(Job::Running { what: what.clone(), done: k, total });
            yield_to_browser().await;
            if state.cancel.get_untracked() {
                state.cancel.set(false);
                state.job.set(Job::Failed(format!(
                    "Import of {origin} cancelled; no answer was changed."
                )));
                return;
            }
            let start = now_ms();
            while k < total && now_ms() - start < 25.0 {
                importer.line(all[k].0, all[k].1);
                k += 1;
            }
        }
        let found = importer.finish();
        let imported = found.answers.len();
        let pairs: Vec<(&str, &str)> =
            found.answers.iter().map(|a| (a.task_id.as_str(), a.reply.as_str())).collect();
        let what = format!("Scoring {imported} imported answers");
        if warm_scores(state, &pairs, state.scoring.options.get_untracked(), &what).await.is_none()
        {
            state.cancel.set(false);
            state
                .job
                .set(Job::Failed(format!("Import of {origin} cancelled; no answer was changed.")));
            return;
        }
        if imported > 0 {
            state.answers.update(|a| {
                for ans in found.answers {
                    a.insert(ans.task_id, ans.reply);
                }
            });
            state.answers.with_untracked(persist_answers);
        }
        let errors = found.errors.len();
        state.job.set(Job::Done(format!(
            "Imported {imported} answers from {origin}; {errors} lines not used."
        )));
        report.set(Some(Ok(ImportReport { origin, imported, errors: found.errors })));
    });
}

#[component]
fn OptionsCard() -> impl IntoView {
    let state = use_state();
    let options = state.scoring.options;
    let set_candidates = move |ev: leptos::ev::Event| {
        let c = if event_target_value(&ev) == "context" {
            Candidates::Context
        } else {
            Candidates::Needles
        };
        change_options(state, ScoreOptions { candidates: c, ..options.get_untracked() });
    };
    let set_threshold = move |ev: leptos::ev::Event| {
        if let Ok(t) = event_target_value(&ev).trim().parse::<f64>() {
            if (0.0..=1.0).contains(&t) {
                state.settings.update(|s| s.threshold = t);
            }
        }
    };
    view! {
        <section class="card" id="options-card">
            <h2>"Scoring options"</h2>
            <div class="row">
                <label>
                    <input type="checkbox" id="opt-ignore-comments"
                        prop:checked=move || options.with(|o| o.ignore_comments)
                        disabled=move || matches!(state.job.get(), Job::Running { .. })
                        on:change=move |ev| {
                            let ignore_comments = event_target_checked(&ev);
                            change_options(state, ScoreOptions { ignore_comments, ..options.get_untracked() });
                        }/>
                    " Ignore comments (strip them from answers and references, like --ignore-comments)"
                </label>
            </div>
            <div class="row">
                <label for="opt-candidates">"Compare answers against "</label>
                <select id="opt-candidates" on:change=set_candidates
                    disabled=move || matches!(state.job.get(), Job::Running { .. })
                    prop:value=move || options.with(|o| o.candidates.name())>
                    <option value="needles">"the repo's needles (official)"</option>
                    <option value="context">"every repo function in the prompt (NOT official)"</option>
                </select>
            </div>
            {move || (options.with(|o| o.candidates) == Candidates::Context).then(|| view! {
                <p class="warning" id="not-official">"NOT OFFICIAL: with this option scores are not comparable with published RepoQA results, and exports are labelled CONTEXT."</p>
            })}
            <div class="row">
                <label for="opt-threshold">"Pass threshold for the verdicts, lists and charts "</label>
                <input id="opt-threshold" type="number" min="0" max="1" step="0.05"
                    prop:value=move || state.settings.with(|s| s.threshold.to_string())
                    on:change=set_threshold/>
                <span class="muted">" (the table shows every threshold)"</span>
            </div>
        </section>
    }
}

/// The official table: rows `all` + languages, columns the thresholds,
/// percentages with one decimal as `print_result_table` prints them; the
/// best and worst cell of each column marked as it colours them.
#[component]
fn TableCard(set: Memo<Shared<ScoredSet>>) -> impl IntoView {
    view! {
        <section class="card" id="table-card">
            <h2>"pass@1 (%) at each threshold"</h2>
            {move || match &set.get().table {
                Err(e) => view! { <p class="muted" id="score-table-empty">{e.clone()}</p> }.into_any(),
                Ok(table) => {
                    let cols: Vec<(f64, f64)> = (0..THRESHOLD_KEYS.len())
                        .map(|i| {
                            let vals = table.rows.iter().map(|r| r.pass_at_1[i]);
                            (vals.clone().fold(f64::MIN, f64::max), vals.fold(f64::MAX, f64::min))
                        })
                        .collect();
                    view! {
                        <div class="table-scroll">
                        <table class="grid score-table" id="score-table">
                            <thead><tr>
                                <th scope="col">"Threshold"</th>
                                {THRESHOLD_KEYS.iter().map(|k| view! { <th scope="col">{*k}</th> }).collect_view()}
                                <th scope="col">"tasks"</th>
                            </tr></thead>
                            <tbody>
                                {table.rows.iter().map(|r| {
                                    let label = if r.name == "all" { "⭐all".to_string() } else { r.name.clone() };
                                    view! {
                                        <tr data-row=r.name.clone() class:all-row=r.name == "all">
                                            <th scope="row">{label}</th>
                                            {r.pass_at_1.iter().enumerate().map(|(i, v)| {
                                                let (max, min) = cols[i];
                                                let class = if max - v < 0.01 { "best" } else if v - min < 0.01 { "worst" } else { "" };
                                                view! {
                                                    <td class=class data-threshold=THRESHOLD_KEYS[i] data-value=float_repr(*v)
                                                        data-passed=r.passed[i]>{format!("{:.1}", 100.0 * v)}</td>
                                                }
                                            }).collect_view()}
                                            <td data-n=r.n>{r.n}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                        </div>
                    }.into_any()
                }
            }}
        </section>
    }
}

/// Per-task results at the current threshold.
#[component]
fn TaskList(set: Memo<Shared<ScoredSet>>, selected: RwSignal<Option<String>>) -> impl IntoView {
    let state = use_state();
    let page = RwSignal::new(0usize);
    let total = Signal::derive(move || set.with(|s| s.items.len()));
    view! {
        <section class="card" id="task-results-card">
            <h2>"Per-task results"</h2>
            {move || {
                let s = set.get();
                let t = state.settings.with(|st| st.threshold);
                if s.items.is_empty() {
                    return view! { <p class="muted">"No answered tasks."</p> }.into_any();
                }
                view! {
                    <div class="table-scroll">
                    <table class="grid" id="task-results">
                        <thead><tr>
                            <th scope="col">"Task"</th><th scope="col">"Depth"</th>
                            <th scope="col">{format!("Pass @ {t}")}</th><th scope="col">"Best similarity"</th>
                            <th scope="col">"Closest needle"</th><th scope="col"></th>
                        </tr></thead>
                        <tbody>
                            {s.items[page_range(page.get(), s.items.len())].iter().map(|item| task_row(item, t, selected)).collect_view()}
                        </tbody>
                    </table>
                    </div>
                    <Pager id="results" total=total page=page/>
                }.into_any()
            }}
        </section>
    }
}

fn task_row(item: &Arc<TaskScore>, t: f64, selected: RwSignal<Option<String>>) -> impl IntoView {
    let id = item.task.task_id();
    let depth = format!("{:.0}%", 100.0 * item.task.position_ratio);
    let bin = depth_bin(item.task.position_ratio);
    let (pass, sim, sim_repr, target, error) = match &item.result {
        Ok(e) => (
            e.passes(t),
            format!("{:.4}", e.best_similarity),
            report::similarity_number(e.best_target.as_deref(), e.best_similarity).to_string(),
            e.best_target.clone().unwrap_or_default(),
            None,
        ),
        Err(err) => (false, "—".into(), String::new(), String::new(), Some(err.clone())),
    };
    let select_id = id.clone();
    let is_selected = {
        let id = id.clone();
        move || selected.with(|s| s.as_deref() == Some(id.as_str()))
    };
    let (id_attr, target_attr) = (id.clone(), target.clone());
    view! {
        <tr class="task-row" data-task-id=id_attr data-pass=pass.to_string() data-best-similarity=sim_repr
            data-best-target=target_attr data-bin=bin class:selected=is_selected>
            <td><code>{id}</code></td>
            <td>{depth}</td>
            <td class=if pass { "pass" } else { "fail" }>{if pass { "pass" } else if error.is_some() { "error" } else { "fail" }}</td>
            <td>{sim}</td>
            <td>{error.unwrap_or(target)}</td>
            <td><button type="button" class="details" on:click=move |_| selected.set(Some(select_id.clone()))>"Details"</button></td>
        </tr>
    }
}

/// One task in depth: the extracted function, every candidate's BLEU, and a
/// line diff against the needle.
#[component]
fn TaskDetail(set: Memo<Shared<ScoredSet>>, selected: RwSignal<Option<String>>) -> impl IntoView {
    let state = use_state();
    move || {
        let id = selected.get()?;
        let s = set.get();
        let item = s.items.iter().find(|i| i.task.task_id() == id)?.clone();
        let t = state.settings.with(|st| st.threshold);
        let reference = state.dataset.with(|d| {
            let ds = &d.as_ref()?.dataset;
            let repo = ds.repo(&item.task.language, &item.task.repo)?;
            let n = repo.needles.iter().find(|n| n.name == item.task.name)?;
            repo.reference_text(&n.path, n.start_line, n.end_line)
        });
        let body = match &item.result {
            Err(e) => view! { <p class="fail">"Cannot score: " {e.clone()}</p> }.into_any(),
            Ok(e) => {
                let pass = e.passes(t);
                let mut cands = e.candidates.clone();
                cands.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
                let diff = reference.as_deref().map(|r| line_diff(r, &e.sanitized));
                view! {
                    <p>
                        <span class=if pass { "pass" } else { "fail" } id="detail-verdict" data-pass=pass.to_string()>
                            {if pass { "PASS" } else { "FAIL" }}</span>
                        {format!(" at threshold {t}. Closest: {} (similarity {}).",
                            e.best_target.as_deref().unwrap_or("none"), float_repr(e.best_similarity))}
                        {(!e.is_best_similar).then_some(" The closest candidate is not this task's needle.")}
                    </p>
                    <h3>"Function extracted from the answer"</h3>
                    <p class="muted">{format!("Found by: {:?}", e.sanitize_source)}</p>
                    <pre class="code" id="detail-sanitized">{e.sanitized.clone()}</pre>
                    <h3>"Similarity to every candidate"</h3>
                    <table class="grid" id="detail-candidates">
                        <thead><tr><th>"Candidate"</th><th>"File"</th><th>"BLEU"</th></tr></thead>
                        <tbody>
                            {cands.into_iter().map(|c| { let (name_attr, truth) = (c.name.clone(), c.name == item.task.name); view! {
                                <tr data-name=name_attr data-similarity=float_repr(c.similarity)
                                    class:truth=truth>
                                    <td><code>{c.name}</code>{(!c.is_needle).then_some(" (not a needle)")}</td>
                                    <td><code>{c.path}</code></td>
                                    <td>{format!("{:.4}", c.similarity)}</td>
                                </tr>
                            }}).collect_view()}
                        </tbody>
                    </table>
                    <h3>"Line diff: needle (−) → answer's function (+)"</h3>
                    {match diff {
                        None => view! { <p class="muted">"The needle's text is not in the loaded dataset."</p> }.into_any(),
                        Some(d) => view! {
                            <pre class="code diff" id="detail-diff">
                                {d.into_iter().map(|l| {
                                    let class = match l.op { DiffOp::Same => "diff-same", DiffOp::Removed => "diff-del", DiffOp::Added => "diff-add" };
                                    view! { <span class=class>{format!("{}{}\n", l.op.marker(), l.text)}</span> }
                                }).collect_view()}
                            </pre>
                        }.into_any(),
                    }}
                }.into_any()
            }
        };
        let id_attr = id.clone();
        Some(view! {
            <section class="card" id="task-detail" data-task-id=id_attr>
                <h2>"Task " <code>{id}</code></h2>
                <button type="button" on:click=move |_| selected.set(None)>"Close"</button>
                <h3>"The answer as pasted"</h3>
                <pre class="code" id="detail-answer">{item.answer.clone()}</pre>
                {body}
            </section>
        })
    }
}

/// `model` as the official file-name convention spells it (`/` → `_slash_`),
/// so `repoqa score` on the exported outputs derives the same model name.
fn model_file_stem(model: &str) -> String {
    model.replace('/', "_slash_")
}

fn now_eval_date() -> String {
    let ms = js_sys::Date::now();
    let secs = (ms / 1000.0).floor();
    report::format_eval_date(
        secs as i64,
        ((ms - secs * 1000.0) * 1000.0).round().clamp(0.0, 999_999.0) as u32,
    )
}

#[component]
fn ExportCard(set: Memo<Shared<ScoredSet>>) -> impl IntoView {
    let state = use_state();
    let scoring = state.scoring;
    let message = RwSignal::new(None::<Result<String, String>>);
    let official = move || scoring.options.with(|o| o.candidates == Candidates::Needles);

    let export_scores = move |_| {
        let s = set.get_untracked();
        let r = (|| -> Result<String, String> {
            let table = s.table.as_ref().map_err(|e| e.clone())?;
            let model = scoring.model_name.get_untracked();
            let model = if model.trim().is_empty() { "model".to_string() } else { model };
            let date = scoring.eval_date.get_untracked();
            let eval_date = if date.trim().is_empty() { now_eval_date() } else { date };
            let scores = ModelScores {
                eval_date,
                train_size: report::train_size(&model).value,
                scores: table.to_value(),
                results: s.results.clone(),
            };
            let text = ScoresFile::single(&model, scores).to_python_json();
            let opts: ScoreOptions = scoring.options.get_untracked();
            let suffix = if opts.candidates == Candidates::Needles {
                "-SCORES.json"
            } else {
                "-CONTEXT-SCORES.json"
            };
            let name = format!("{}{suffix}", model_file_stem(&model));
            download_text(&name, "application/json", &text)?;
            Ok(name)
        })();
        message.set(Some(r));
    };
    let export_csv = move |_| {
        let s = set.get_untracked();
        let model = scoring.model_name.get_untracked();
        let name = format!("{}-results.csv", model_file_stem(&model));
        let r = if s.results.is_empty() {
            Err("no scored answers".to_string())
        } else {
            download_text(&name, "text/csv", &report::results_csv(&s.results)).map(|_| name)
        };
        message.set(Some(r));
    };
    let none = move || set.with(|s| s.results.is_empty());

    view! {
        <section class="card" id="export-card">
            <h2>"Export scores"</h2>
            <div class="row">
                <label for="model-name">"Model name "</label>
                <input id="model-name" type="text" prop:value=move || scoring.model_name.get()
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
            {move || (!official()).then(|| view! {
                <p class="warning">"These scores use the NOT official \"context\" candidates; the file is named -CONTEXT-SCORES.json."</p>
            })}
            <div class="row">
                <button type="button" id="export-scores" on:click=export_scores disabled=none>"Download SCORES.json"</button>
                <button type="button" id="export-csv" on:click=export_csv disabled=none>"Download per-task CSV"</button>
            </div>
            {move || message.get().map(|m| match m {
                Ok(name) => view! { <p class="muted" id="export-status">{format!("Saved {name}.")}</p> }.into_any(),
                Err(e) => view! { <p class="fail" id="export-status">{e}</p> }.into_any(),
            })}
        </section>
    }
}
