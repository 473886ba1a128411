//! The Leaderboard page: published and your own SCORES files side by side,
//! like the paper's Table 2 but at any threshold (a slider from 0 to 1),
//! sortable, with task counts; chosen models compared in the charts; per
//! model, the needles it missed and what it picked instead. Every number
//! comes from `repoqa::review::leaderboard` (the official pass rule applied to
//! the per-task records), so at the official thresholds it equals each
//! file's own table and at any other it equals `repoqa leaderboard`.

use leptos::prelude::*;
use repoqa::python::json::float_repr;
use repoqa::review::evidence::percent_span;
use repoqa::review::ladder::ntoken_of_path;
use repoqa::review::leaderboard::{fmt_threshold, misses, percent, Leaderboard, SortKey};
use repoqa::scoring::breakdown::breakdown;

use crate::ui::browser::dom::{picked_files, set_hash};
use crate::ui::components::charts::Charts;
use crate::ui::components::drop_zone::DropZone;
use crate::ui::components::evidence_table::LevelSelect;
use crate::ui::components::pager::{page_range, Pager};
use crate::ui::components::progress::Progress;
use crate::ui::format::thousands;
use crate::ui::jobs::reviewers::{
    leaderboard_evidence, load_files, load_published, load_url, verify_file,
};
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::runs::keep_runs_on_board;
use crate::ui::jobs::use_runner;
use crate::ui::pages::ladder::LadderCard;
use crate::ui::pages::paired::PairedCard;
use crate::ui::state::answers::ensure_answers_restored;
use crate::ui::state::reviewers::{once_each, LeaderboardState, VerifyState};
use crate::ui::state::run::use_run_state;
use crate::ui::state::use_state;

#[component]
pub fn LeaderboardPage() -> impl IntoView {
    let st = expect_context::<LeaderboardState>();
    let url = RwSignal::new(String::new());
    // Each file's own table is checked once per file set; the threshold
    // slider only recounts (`Leaderboard::at_threshold`).
    // Each run once (a run kept here and the same run sent from Results are one row).
    let checked = Memo::new(move |_| {
        st.files.with(|files| {
            Leaderboard::from_files(once_each(files).map(|f| (f.source.as_str(), &*f.file)), 0.8)
                .ok()
        })
    });
    let board = Memo::new(move |_| {
        let files = st.files.get();
        let t = st.threshold.get();
        let (key, desc) = st.sort.get();
        let pairs = once_each(&files).map(|f| (f.source.as_str(), &*f.file));
        let mut b = checked
            .with(|c| match c {
                Some(c) => c.at_threshold(pairs, t),
                None => Leaderboard::from_files(pairs, t),
            })
            .unwrap_or(Leaderboard { threshold: t, rows: Vec::new(), remembering: Vec::new() });
        b.sort(&key, desc);
        b
    });
    let on_file = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        load_files(st, files);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    // The intervals column: computed on the job line whenever the files,
    // the threshold or the level change while it is shown.
    let runner = use_runner();
    // The runs kept in this browser (a ladder run's lengths among them)
    // reach this page on their own, once each.
    let (app, rs, model_run) = (use_state(), use_run_state(), use_model_run());
    ensure_answers_restored(app);
    rs.restore();
    keep_runs_on_board(app, rs, runner, move || model_run.runner.busy());
    let show_ci = RwSignal::new(st.ci_level.get_untracked().is_some());
    let level = RwSignal::new(st.ci_level.get_untracked().unwrap_or(0.95));
    Effect::new(move |_| {
        let l = show_ci.get().then(|| level.get());
        if st.ci_level.get_untracked() != l {
            st.ci_level.set(l);
        }
    });
    Effect::new(move |_| {
        st.files.track();
        st.threshold.track();
        if st.ci_level.get().is_some() {
            leaderboard_evidence(st, runner);
        }
    });
    let set_threshold = move |v: String| {
        if let Ok(t) = v.trim().parse::<f64>() {
            if (0.0..=1.0).contains(&t) {
                st.threshold.set(t);
            }
        }
    };

    view! {
        <section class="card" id="leaderboard">
            <h2>"Leaderboard"</h2>
            <p>
                "pass@1 per language and the mean over languages (the paper's Table 2 at 0.8), from the per-task records of "
                "SCORES files: a task passes when its best target is the needle and its similarity is at least the threshold. "
                "At the official thresholds (0.0, 0.1, …, 1.0) each cell equals the file's own table, "
                "unless the row is marked \"table differs\": that file's table says otherwise than its records."
            </p>
            <div class="load-options">
                <button type="button" id="lb-load-published" on:click=move |_| load_published(st)>"Load the published results (30 models)"</button>
                <label class="file-pick">"SCORES files: "
                    <input type="file" id="lb-files" multiple accept=".json,.gz,application/json,application/gzip" on:change=on_file/>
                </label>
                <form class="url-form" on:submit=move |ev| {
                    ev.prevent_default();
                    let u = url.get_untracked().trim().to_string();
                    if !u.is_empty() { load_url(st, u); }
                }>
                    <input type="url" id="lb-url" placeholder="https://…/model-SCORES.json"
                        prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                    <button type="submit" id="lb-url-load">"Load URL"</button>
                </form>
            </div>
            <DropZone id="lb-drop" label="Drop -SCORES.json files here" on_drop=move |files| load_files(st, files)/>
            <p id="lb-credit" class="muted">
                "Built-in collection: the per-task results published by the RepoQA authors (Jiawei Liu et al., "
                <a href="https://evalplus.github.io/repoqa.html" target="_blank" rel="noopener">"RepoQA: Evaluating Long Context Code Understanding"</a>
                ", 2024); all credit for the data is theirs. Loaded only when asked for."
            </p>
            {move || st.status.get().map(|s| match s {
                Ok(m) => view! { <p id="lb-status" class="muted" role="status">{m}</p> }.into_any(),
                Err(e) => view! { <p id="lb-status" class="fail error-box" role="alert">{e}</p> }.into_any(),
            })}
            <div class="row threshold-row">
                <label for="lb-threshold">"Threshold "</label>
                <input type="range" id="lb-threshold" min="0" max="1" step="0.01"
                    prop:value=move || st.threshold.get().to_string()
                    on:input=move |ev| set_threshold(event_target_value(&ev))/>
                <input type="number" id="lb-threshold-num" min="0" max="1" step="0.001" class="num" aria-label="Threshold (exact value)"
                    prop:value=move || st.threshold.get().to_string()
                    on:change=move |ev| set_threshold(event_target_value(&ev))/>
                <span id="lb-threshold-value">{move || fmt_threshold(st.threshold.get())}</span>
            </div>
            <div class="row ci-row">
                <label><input type="checkbox" id="lb-ci" prop:checked=move || show_ci.get()
                    on:change=move |ev| show_ci.set(event_target_checked(&ev))/>
                    " Intervals: bootstrap by repository (the one to quote); Wilson and bootstrap by task in each interval's title"</label>
                <LevelSelect id="lb-ci-level" level=level/>
            </div>
            {move || show_ci.get().then(|| view! { <Progress/> })}
        </section>
        <LeaderboardTable board=board/>
        <LadderCard/>
        <CompareCard board=board/>
        <PairedCard/>
        <MissesCard/>
    }
}

/// A row's "verify" action: its SCORES file on the Verify page.
fn verify_button(
    st: LeaderboardState,
    vs: VerifyState,
    source: String,
    model: String,
) -> impl IntoView {
    view! {
        <button type="button" class="lb-verify link-button" aria-label=format!("verify {model}'s SCORES file")
            title="Check this file's table against its own records on the Verify page"
            on:click=move |_| {
                let file = st.files.with_untracked(|fs| fs.iter().find(|f| f.source == source).map(|f| f.file.clone()));
                if let Some(file) = file {
                    verify_file(vs, source.clone(), file);
                    set_hash("verify");
                }
            }>"verify"</button>
    }
}

/// The mark of a row whose file's own table differs from its records
/// (`repoqa::review::leaderboard::Row::table_differs`): the row shows the records.
fn table_differs(parts: usize) -> Option<impl IntoView> {
    (parts > 0).then(|| {
        let what = crate::ui::format::count(parts, "part", "parts");
        let verb = if parts == 1 { "differs" } else { "differ" };
        view! {
            <span class="lb-table-differs fail" role="note"
                title=format!("{what} of this file's own table {verb} from its per-task records; this row shows the records. Verify names each one.")>
                "table differs"</span>" "
        }
    })
}

#[component]
fn LeaderboardTable(board: Memo<Leaderboard>) -> impl IntoView {
    let st = expect_context::<LeaderboardState>();
    let vs = expect_context::<VerifyState>();
    let sort_button = move |key: SortKey, label: String| {
        let k2 = key.clone();
        let data = match &key {
            SortKey::Model => "model".to_string(),
            SortKey::Average => "average".to_string(),
            SortKey::Tasks => "tasks".to_string(),
            SortKey::Language(l) => l.clone(),
        };
        let arrow = move || {
            let (k, desc) = st.sort.get();
            if k == k2 {
                if desc {
                    " ▼"
                } else {
                    " ▲"
                }
            } else {
                ""
            }
        };
        let k3 = key.clone();
        view! {
            <button type="button" class="sort" data-sort=data on:click=move |_| {
                st.sort.update(|(k, desc)| {
                    if *k == k3 { *desc = !*desc } else { *k = k3.clone(); *desc = k3 != SortKey::Model }
                })
            }>{label}{arrow}</button>
        }
    };
    view! {
        <section class="card" id="lb-table-card">
            {move || {
                let b = board.get();
                if b.rows.is_empty() {
                    return view! { <p class="muted" id="lb-empty">"No SCORES files loaded yet."</p> }.into_any();
                }
                let langs = b.languages();
                // Files of a result directory carry their length (`ntoken_<N>/`).
                let at_lengths = b.rows.iter().any(|r| ntoken_of_path(&r.source).is_some());
                let head = langs.iter().map(|l| view! { <th class="wide-only">{sort_button(SortKey::Language(l.clone()), l.clone())}</th> }).collect_view();
                let ci = st.ci_level.get();
                let ev = st.evidence.get();
                let rows = b.rows.iter().map(|r| {
                    let ci_cells = ci.map(|_| match ev.get(&r.source, &r.model).and_then(|t| t.rows.first()) {
                        Some(all) => {
                            let (lo, hi) = all.by_repo.map(|i| (float_repr(i.low), float_repr(i.high))).unwrap_or_default();
                            view! {
                                <td class="num wide-only" data-all=float_repr(all.pass()) data-passed=all.passed>{percent(all.pass())}</td>
                                <td class="num quote" data-repo-low=lo data-repo-high=hi
                                    data-wilson=percent_span(all.wilson) data-task=percent_span(all.by_task)
                                    title=format!("Wilson {}; bootstrap by task {}; by repository {}", percent_span(all.wilson), percent_span(all.by_task), percent_span(all.by_repo))>
                                    {percent_span(all.by_repo)}</td>
                            }.into_any()
                        }
                        None => view! { <td class="num muted wide-only">"…"</td><td class="num muted">"…"</td> }.into_any(),
                    });
                    let model = r.model.clone();
                    // The file's model: one model may be loaded from several files.
                    let m2 = format!("{}\u{1f}{model}", r.source);
                    let m3 = m2.clone();
                    let cells = langs.iter().map(|l| match r.languages.get(l) {
                        Some(c) => view! {
                            <td class="num wide-only" data-lang=l.clone() data-pass=float_repr(c.pass) data-passed=c.passed data-n=c.n
                                title=format!("{} of {} tasks pass", c.passed, c.n)>{percent(c.pass)}</td>
                        }.into_any(),
                        None => view! { <td class="num muted wide-only">"–"</td> }.into_any(),
                    }).collect_view();
                    let ntoken = ntoken_of_path(&r.source);
                    let length_cell = at_lengths.then(|| view! {
                        <td class="num" data-ntoken=ntoken.map(|n| n.to_string()).unwrap_or_default()>
                            {ntoken.map(thousands).unwrap_or_else(|| "–".into())}</td>
                    });
                    view! {
                        <tr data-model=model.clone() data-source=r.source.clone() data-table-differs=r.table_differs
                            data-ntoken=ntoken.map(|n| n.to_string())>
                            <td class="wide-only"><input type="checkbox" class="lb-compare" data-model=model.clone() data-source=r.source.clone()
                                aria-label=format!("compare {model}")
                                prop:checked=move || st.compare.with(|c| c.contains(&m2))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    st.compare.update(|c| {
                                        c.retain(|x| x != &m3);
                                        if on { c.push(m3.clone()); }
                                    });
                                }/></td>
                            <th scope="row" class="model">{model.clone()}" "
                                {r.closed_book.then(|| view! {
                                    <span class="lb-closed-book notice-tag" title="closed-book: the prompts held no code (the no-context control), so a pass was recalled from memory">"closed-book"</span>" "
                                })}
                                {r.dataset_freshness.clone().map(|d| view! {
                                    <span class="lb-fresh muted" data-freshness=d.clone() title="the dataset's sources were first released on this day or later">{format!("sources from {d}")}</span>" "
                                })}
                                {table_differs(r.table_differs)}
                                {verify_button(st, vs, r.source.clone(), model.clone())}</th>
                            {length_cell}
                            {cells}
                            <td class="num avg" data-average=float_repr(r.average)>{percent(r.average)}</td>
                            <td class="num" data-tasks=r.tasks>{r.tasks}</td>
                            {ci_cells}
                        </tr>
                    }
                }).collect_view();
                view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label="leaderboard">
                        <table id="lb-table" class="grid score-table" data-threshold=fmt_threshold(b.threshold)>
                            <caption>{format!("pass@1 (%) at threshold {}; {}", fmt_threshold(b.threshold), crate::ui::format::count(b.rows.len(), "model", "models"))}</caption>
                            <thead><tr>
                                <th class="wide-only">"Compare"</th>
                                <th>{sort_button(SortKey::Model, "Model".into())}</th>
                                {at_lengths.then(|| view! { <th scope="col" title="the code-context length of the run (its ntoken_<N> folder)">"Tokens"</th> })}
                                {head}
                                <th>{sort_button(SortKey::Average, "Avg.".into())}</th>
                                <th>{sort_button(SortKey::Tasks, "Tasks".into())}</th>
                                {ci.map(|l| view! {
                                    <th scope="col" class="wide-only" title="passed / tasks over all languages">"All"</th>
                                    <th scope="col" title="percentile bootstrap resampling repositories, stratified by language: the interval to quote">{format!("{}% CI by repository", 100.0 * l)}</th>
                                })}
                            </tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                    <p class="muted narrow-only" id="lb-narrow-note">"On a narrow screen: each model's average over the languages; the per-language columns and Compare on a wider screen."</p>
                    {remembering(&b)}
                }.into_any()
            }}
        </section>
    }
}

/// Each model loaded with a run with the code and a closed-book run: the
/// two compared task by task (`repoqa::review::leaderboard::Remembering`).
fn remembering(b: &Leaderboard) -> Option<impl IntoView> {
    (!b.remembering.is_empty()).then(|| {
        let rows = b
            .remembering
            .iter()
            .map(|m| {
                view! {
                    <tr data-model=m.model.clone() data-open=float_repr(m.open_pass) data-share=float_repr(m.share)
                        data-p=float_repr(m.mcnemar_p) data-tasks=m.tasks>
                        <th scope="row">{m.model.clone()}</th>
                        <td class="num">{percent(m.open_pass)}</td>
                        <td class="num quote">{percent(m.share)}</td>
                        <td class="num">{format!("{:.4}", m.mcnemar_p)}</td>
                        <td class="num wide-only">{m.tasks}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div id="lb-remembering">
                <h3>"Is the model remembering?"</h3>
                <p class="muted">"Each model loaded with a run with the code and a closed-book run (NOT UPSTREAM: the no-context control, the same tasks with no code), compared task by task at this threshold. pass@1 in %; the memorized share is the share of the tasks passed with no code."</p>
                <div class="table-scroll" tabindex="0" role="region" aria-label="is the model remembering">
                    <table class="grid" id="lb-remembering-table">
                        <thead><tr><th>"Model"</th><th>"With the code"</th><th>"Closed-book (memorized)"</th><th>"McNemar p"</th><th class="wide-only">"Tasks"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </div>
        }
    })
}

/// The chosen models in the charts: one series per model (all its tasks).
#[component]
fn CompareCard(board: Memo<Leaderboard>) -> impl IntoView {
    let hidden_series = RwSignal::new(Vec::<String>::new());
    let st = expect_context::<LeaderboardState>();
    view! {
        <section class="card" id="lb-compare-card">
            <h2>"Compare models"</h2>
            {move || {
                let chosen = st.compare.get();
                let t = st.threshold.get();
                let runs = st.runs();
                let _ = board.get();
                let series: Vec<_> = chosen
                    .iter()
                    .filter_map(|key| {
                        let (model, loaded) = st.model_of(key)?;
                        let ms = loaded.file.models.get(&model)?;
                        let mut s = breakdown(&ms.results, t).into_iter().next()?;
                        s.name = runs.iter().find(|(k, _)| k == key).map_or(model, |(_, l)| l.clone());
                        Some(s)
                    })
                    .collect();
                if series.is_empty() {
                    view! { <p class="muted">"Tick models in the table to compare them."</p> }.into_any()
                } else {
                    view! { <div id="lb-charts"><Charts series=series threshold=t hidden=hidden_series rows="model"/></div> }.into_any()
                }
            }}
        </section>
    }
}

/// Per model: every task it does not pass at the threshold, and what it
/// picked instead.
#[component]
fn MissesCard() -> impl IntoView {
    let st = expect_context::<LeaderboardState>();
    let page = RwSignal::new(0usize);
    let list = Memo::new(move |_| {
        let t = st.threshold.get();
        let Some(key) = st.miss_model.get() else { return Vec::new() };
        st.model_of(&key)
            .and_then(|(m, loaded)| loaded.file.models.get(&m).map(|ms| misses(&ms.results, t)))
            .unwrap_or_default()
    });
    let total_rows = Signal::derive(move || list.with(Vec::len));
    view! {
        <section class="card" id="lb-misses-card">
            <h2>"Missed needles"</h2>
            <label>"Model "
                <select id="lb-miss-model" on:change=move |ev| {
                    let v = event_target_value(&ev);
                    page.set(0);
                    st.miss_model.set((!v.is_empty()).then_some(v));
                }>
                    <option value="">"(choose)"</option>
                    {move || st.runs().into_iter().map(|(key, label)| {
                        let k2 = key.clone();
                        view! { <option value=key selected=move || st.miss_model.with(|x| x.as_deref() == Some(k2.as_str()))>{label}</option> }
                    }).collect_view()}
                </select>
            </label>
            {move || {
                let l = list.get();
                if st.miss_model.with(Option::is_none) {
                    return view! { <p class="muted">"Choose a model to list the tasks it does not pass at this threshold."</p> }.into_any();
                }
                let total = l.len();
                let range = page_range(page.get(), total);
                let rows = l[range].iter().map(|m| view! {
                    <tr data-language=m.language.clone() data-repo=m.repo.clone() data-needle=m.needle.clone() data-kind=m.kind.label()>
                        <td>{m.language.clone()}</td>
                        <td>{m.repo.clone()}</td>
                        <td><code>{m.needle.clone()}</code></td>
                        <td>{m.best_target.clone().map(|b| view! { <code>{b}</code> }.into_any()).unwrap_or_else(|| view! { <span class="muted">"nothing"</span> }.into_any())}</td>
                        <td class="num">{format!("{:.3}", m.similarity)}</td>
                        <td class="num">{format!("{:.0}%", 100.0 * m.position)}</td>
                        <td>{m.kind.label()}</td>
                    </tr>
                }).collect_view();
                view! {
                    <p id="lb-miss-count">{format!("{total} task(s) not passed at threshold {}.", fmt_threshold(st.threshold.get()))}</p>
                    <div class="table-scroll" tabindex="0" role="region" aria-label="tasks not passed">
                        <table id="lb-misses" class="grid">
                            <thead><tr><th>"Language"</th><th>"Repo"</th><th>"Needle"</th><th>"Picked"</th><th>"Similarity"</th><th>"Depth"</th><th>"Why"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                    <Pager id="lb-misses" page=page total=total_rows/>
                }.into_any()
            }}
        </section>
    }
}
