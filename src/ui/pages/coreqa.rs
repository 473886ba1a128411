//! The CoReQA page: repository question answering judged by a model (Chen et
//! al., 2025). Load a QA set, answers, the judge's scores and pairwise
//! verdicts (files `repoqa coreqa build|answer|judge|pairwise` write, or
//! the demo's), and see per question every answer with the judge's scores
//! and reasoning, the judge's table (mean ± standard deviation over
//! repetitions per model, setting and language, beside BLEU) with a chart,
//! the same scores by question length and by issue year, and Elo with the
//! position-bias table and the first-position preference. Every number
//! comes from `repoqa::coreqa` (`judge::summarize`, `breakdown::breakdowns`,
//! `elo::compare`), so the page shows what `repoqa coreqa judge`,
//! `breakdown` and `compare` print.

use leptos::prelude::*;
use repoqa::coreqa::answer::{AnswerLine, ContextSetting};
use repoqa::coreqa::breakdown::{breakdowns, Breakdown};
use repoqa::coreqa::elo::{compare, Comparison};
use repoqa::coreqa::judge::{summarize, JudgeLine, JudgeRow, MeanStd, QuestionSpread, CRITERIA};
use repoqa::coreqa::qa::QaItem;

use repoqa::coreqa::files::CoreqaFile;
use repoqa::coreqa::github::GITHUB_API;
use repoqa::coreqa::issues::filter_issues;
use repoqa::llm::runlog::runlog_path_for;

use crate::ui::browser::dom::picked_files;
use crate::ui::browser::download::download_text;
use crate::ui::components::drop_zone::DropZone;
use crate::ui::jobs::coreqa::{
    add_own_question, fetch_issues, load_demo, load_files, load_url, remove, restore, OWN_QUESTIONS,
};
use crate::ui::jobs::use_runner;
use crate::ui::state::coreqa::CoreqaState;

/// A status line: a message, or an error as an alert.
fn status_line(id: &'static str, s: Option<Result<String, String>>) -> Option<AnyView> {
    s.map(|s| match s {
        Ok(m) => view! { <p id=id class="muted" role="status">{m}</p> }.into_any(),
        Err(e) => view! { <p id=id class="fail error-box" role="alert">{e}</p> }.into_any(),
    })
}

fn ms(m: MeanStd) -> String {
    format!("{:.2}±{:.2}", m.mean, m.std)
}

#[component]
pub fn CoreqaPage() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    restore(st);
    let main = use_runner();
    let url = RwSignal::new(String::new());
    let on_file = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        load_files(st, files);
        if let Some(i) = input {
            i.set_value("");
        }
    };
    view! {
        <section class="card" id="coreqa">
            <h2>"CoReQA: questions about a repository, judged by a model"</h2>
            <p>
                "CoReQA (Chen et al., 2025) asks free-form questions drawn from a repository's GitHub issues and grades "
                "the answers with a model judge on accuracy, completeness, relevance and clarity (1 to 10), because BLEU "
                "cannot grade answers that mix prose and code. Load the files the command-line tool writes "
                "(" <code>"repoqa coreqa build"</code> ", " <code>"answer"</code> ", " <code>"judge"</code> ", "
                <code>"pairwise"</code> "); every number below is computed from them here, as the tool computes it."
            </p>
            <div class="load-options">
                <button type="button" id="cq-load-demo" on:click=move |_| load_demo(st)>"Load the demo"</button>
                <label class="file-pick">"QA, answers or verdict files: "
                    <input type="file" id="cq-files" multiple accept=".json,.jsonl,application/json" on:change=on_file/>
                </label>
                <button type="button" id="cq-clear" on:click=move |_| remove(st, None)
                    disabled=move || st.files.with(Vec::is_empty) && st.logs.with(|l| l.is_empty())>"Remove all"</button>
            </div>
            <DropZone id="cq-drop" label="Drop QA, answers or verdict files here" on_drop=move |files| load_files(st, files)/>
            <form class="row wrap" id="cq-url-form" on:submit=move |ev| {
                ev.prevent_default();
                load_url(st, main, url.get_untracked());
            }>
                <label>"Or from an address: "
                    <input type="url" id="cq-url" placeholder="https://…/qa.jsonl"
                        prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                </label>
                <button type="submit" id="cq-url-load">"Load"</button>
            </form>
            <p class="muted" id="cq-demo-note">
                "The demo: four questions about the semver crate (Rust, the RepoQA demo's) and four about the inflection package "
                "(Python, 0.5.1 from PyPI, MIT), answered by two stand-in models and "
                "judged by the project's test model server (deterministic replies, not a real model), to show the page."
            </p>
            {move || status_line("cq-status", st.status.get())}
            <ul id="cq-loaded" class="plain-list">
                <For each=move || st.files.get() key=|f| (f.name.clone(), f.text.len()) let:f>
                    {
                        let name = f.name.clone();
                        let (file, text) = (f.name.clone(), f.text.clone());
                        let log_name = runlog_path_for(&f.name);
                        let log_of = f.name.clone();
                        let log = move || st.logs.with(|l| l.get(&log_of).cloned());
                        let download = move |name: &str, text: &str| {
                            if let Err(e) = download_text(name, "application/x-ndjson", text) {
                                st.status.set(Some(Err(e.to_string())));
                            }
                        };
                        view! {
                            <li data-kind=f.file.kind()>
                                <span class="file-name">{f.name.clone()}</span>
                                {format!(" — {}, {} record(s) ", f.file.kind(), f.file.len())}
                                <button type="button" class="link-button cq-download" on:click=move |_| download(&file, &text)>"download"</button>
                                {move || log().map(|l| {
                                    let n = log_name.clone();
                                    view! { " " <button type="button" class="link-button cq-download-log" on:click=move |_| download(&n, &l)>"run log"</button> }
                                })}
                                " "
                                <button type="button" class="link-button" on:click=move |_| remove(st, Some(name.clone()))>"remove"</button>
                            </li>
                        }
                    }
                </For>
            </ul>
        </section>
        <super::coreqa_ask::AskCard/>
        <JudgeCard/>
        <super::coreqa_report::ReportCard/>
        <BreakdownCard/>
        <PairwiseCard/>
        <QuestionsCard/>
        <IssuesCard/>
    }
}

/// Issues from GitHub: fetch an export (or load one), and what the paper's
/// filters make of each export loaded.
#[component]
fn IssuesCard() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    let repo = RwSignal::new(String::new());
    // The token lives in this form only: never saved, never sent elsewhere.
    let token = RwSignal::new(String::new());
    let api = RwSignal::new(GITHUB_API.to_string());
    let status = RwSignal::new(None::<Result<String, String>>);
    // What a fetch left out (more issues than it reads, long comment threads).
    let left_out = RwSignal::new(None::<String>);
    let reports = Memo::new(move |_| {
        st.files.with(|fs| {
            fs.iter()
                .filter_map(|f| match &*f.file {
                    CoreqaFile::Export(e) => {
                        Some((f.name.clone(), f.text.clone(), filter_issues(e)))
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
    });
    view! {
        <section class="card" id="cq-issues">
            <h2>"Questions from GitHub issues"</h2>
            <p>
                "CoReQA's questions come from closed issues with a feat, bug, fix or error label, a code snippet, no "
                "images, at least three positive comments and none that only points elsewhere (at most 300 per "
                "repository). Fetch a repository's issues from GitHub's API (it allows browser requests; without a token "
                "GitHub allows 60 requests an hour), or load an export; then make questions and reference answers from "
                "the kept issues with " <code>"repoqa coreqa build --export FILE"</code> "."
            </p>
            <form class="gh-form" on:submit=move |ev| {
                ev.prevent_default();
                fetch_issues(st, status, left_out, repo.get_untracked(), token.get_untracked(), api.get_untracked());
            }>
                <label>"Repository "
                    <input type="text" id="cq-gh-repo" placeholder="owner/name" required
                        prop:value=move || repo.get() on:input=move |ev| repo.set(event_target_value(&ev))/>
                </label>
                <label>"Token (optional) "
                    <input type="password" id="cq-gh-token" autocomplete="off"
                        prop:value=move || token.get() on:input=move |ev| token.set(event_target_value(&ev))/>
                </label>
                <button type="submit" id="cq-gh-fetch">"Fetch the issues"</button>
                <details>
                    <summary>"API address"</summary>
                    <input type="url" id="cq-gh-api"
                        prop:value=move || api.get() on:input=move |ev| api.set(event_target_value(&ev))/>
                </details>
            </form>
            {move || status_line("cq-gh-status", status.get())}
            {move || left_out.get().map(|m| view! { <p id="cq-gh-left-out" class="warning" role="status">{m}</p> })}
            {move || reports.get().into_iter().map(|(name, text, r)| {
                let removed = r.removed.iter().map(|(f, n)| view! {
                    <tr data-filter=f.to_string()><td>{f.to_string()}</td><td class="n">{*n}</td></tr>
                }).collect_view();
                let kept: Vec<String> = r.kept.iter().map(|n| format!("#{n}")).collect();
                let file = name.clone();
                view! {
                    <div class="cq-export" data-name=name.clone()>
                        <h3>{format!("{}: {} issues and pull requests ({name})", r.repository, r.issues)}</h3>
                        <table class="grid compact cq-filters">
                            <thead><tr><th>"removed by"</th><th class="n">"issues"</th></tr></thead>
                            <tbody>{removed}</tbody>
                        </table>
                        <p class="cq-kept">{format!("Kept {}: {}", kept.len(), kept.join(" "))}</p>
                        <button type="button" class="cq-download-export" on:click=move |_| {
                            if let Err(e) = download_text(&file, "application/json", &text) {
                                st.status.set(Some(Err(e.to_string())));
                            }
                        }>"Download the export"</button>
                    </div>
                }
            }).collect_view()}
        </section>
    }
}

/// A question of your own, added to my-questions.jsonl (downloadable).
#[component]
fn OwnQuestionForm() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    let repo = RwSignal::new(String::new());
    let lang = RwSignal::new(String::new());
    let question = RwSignal::new(String::new());
    let reference = RwSignal::new(String::new());
    let note = RwSignal::new(None::<Result<String, String>>);
    let own_text = Memo::new(move |_| {
        st.files.with(|fs| fs.iter().find(|f| f.name == OWN_QUESTIONS).map(|f| f.text.to_string()))
    });
    view! {
        <details id="cq-own">
            <summary>"Write a question of your own"</summary>
            <form class="cq-own-form" on:submit=move |ev| {
                ev.prevent_default();
                let r = add_own_question(st, repo.get_untracked(), lang.get_untracked(), question.get_untracked(), reference.get_untracked());
                if r.is_ok() {
                    question.set(String::new());
                    reference.set(String::new());
                }
                note.set(Some(r));
            }>
                <label>"Repository "<input type="text" id="cq-own-repo" placeholder="owner/name"
                    prop:value=move || repo.get() on:input=move |ev| repo.set(event_target_value(&ev))/></label>
                <label>"Language "<input type="text" id="cq-own-lang" placeholder="python"
                    prop:value=move || lang.get() on:input=move |ev| lang.set(event_target_value(&ev))/></label>
                <label class="wide">"Question (code in fenced blocks) "<textarea id="cq-own-question" rows="4"
                    prop:value=move || question.get() on:input=move |ev| question.set(event_target_value(&ev))></textarea></label>
                <label class="wide">"Reference answer "<textarea id="cq-own-reference" rows="4"
                    prop:value=move || reference.get() on:input=move |ev| reference.set(event_target_value(&ev))></textarea></label>
                <button type="submit" id="cq-own-add">"Add the question"</button>
                {move || own_text.get().map(|text| view! {
                    <button type="button" id="cq-own-download" on:click=move |_| {
                        if let Err(e) = download_text(OWN_QUESTIONS, "application/x-ndjson", &text) {
                            st.status.set(Some(Err(e.to_string())));
                        }
                    }>{format!("Download {OWN_QUESTIONS}")}</button>
                })}
            </form>
            {move || status_line("cq-own-status", note.get())}
        </details>
    }
}

/// Judge scores per model, setting and language, and the chart.
#[component]
fn JudgeCard() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    let rows = Memo::new(move |_| summarize(&st.questions(), &st.judged(), &st.answers()));
    view! {
        <section class="card" id="cq-judge">
            <h2>"Judge scores"</h2>
            {move || {
                let rows = rows.get();
                if rows.is_empty() {
                    return view! { <p class="muted" id="cq-judge-empty">"No judge scores loaded yet (a QA file and the judgments "<code>"repoqa coreqa judge"</code>" writes)."</p> }.into_any();
                }
                let body = rows.iter().map(|r| view! {
                    <tr data-model=r.model.clone() data-setting=r.setting.to_string() data-language=r.language.clone()>
                        <td class="key">{r.model.clone()}</td>
                        <td class="key">{r.setting.to_string()}</td>
                        <td class="key">{r.language.clone()}</td>
                        <td class="n">{r.questions}</td>
                        <td class="n">{r.repetitions}</td>
                        {(0..4).map(|c| view! { <td class="n">{ms(r.criteria.get(c))}</td> }).collect_view()}
                        <td class="n overall">{ms(r.overall)}</td>
                        <td class="n bleu">{r.bleu.map_or("—".to_string(), |b| format!("{b:.3}"))}</td>
                    </tr>
                }).collect_view();
                let runs = rows.iter().map(|r| r.runs).max().unwrap_or(1);
                let spread = if runs > 1 {
                    format!(
                        "Answers sampled in up to {runs} runs: each criterion's mean over the questions in each run (a question's \
                         repetitions averaged first), then the mean and the population standard deviation of those means over the \
                         runs (a model answered once: over its repetitions). "
                    )
                } else {
                    "Each criterion: its mean over the questions in each repetition, then the mean and the population \
                     standard deviation of those means over the repetitions. ".to_string()
                };
                view! {
                    <p class="muted" id="cq-judge-spread" data-runs=runs>
                        {spread}
                        "BLEU (RepoQA's smoothed BLEU of each answer against its reference, 0 to 1) is shown beside the judge's overall score."
                    </p>
                    <div class="table-scroll" tabindex="0" role="region" aria-label="judge scores">
                        <table class="grid" id="cq-judge-table">
                            <thead><tr>
                                <th>"model"</th><th>"setting"</th><th>"language"</th><th class="n">"questions"</th><th class="n">"reps"</th>
                                {CRITERIA.map(|c| view! { <th class="n">{c}</th> }).collect_view()}
                                <th class="n">"overall"</th><th class="n">"BLEU"</th>
                            </tr></thead>
                            <tbody>{body}</tbody>
                        </table>
                    </div>
                    {per_question_table(&rows)}
                    {judge_chart(&rows)}
                }.into_any()
            }}
        </section>
    }
}

/// Each question's overall score over its runs (the paper's spread per
/// question), for the rows answered in more than one run; nothing else.
fn per_question_table(rows: &[JudgeRow]) -> Option<impl IntoView> {
    // A question is in its language's row and in the row over all
    // languages: each language row once.
    let spreads: Vec<&QuestionSpread> =
        rows.iter().filter(|r| r.language != "all").flat_map(|r| &r.per_question).collect();
    if spreads.is_empty() {
        return None;
    }
    let body = spreads
        .iter()
        .map(|s| {
            view! {
                <tr data-question=s.question_id.clone() data-model=s.model.clone() data-setting=s.setting.to_string()>
                    <td class="key">{s.question_id.clone()}</td>
                    <td class="key">{s.model.clone()}</td>
                    <td class="key">{s.setting.to_string()}</td>
                    <td class="n">{s.runs}</td>
                    <td class="n overall">{ms(s.overall)}</td>
                </tr>
            }
        })
        .collect_view();
    Some(view! {
        <details id="cq-judge-questions">
            <summary>{format!("Per question: the overall score over its runs ({} rows)", spreads.len())}</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label="judge scores per question">
                <table class="grid">
                    <thead><tr>
                        <th>"question"</th><th>"model"</th><th>"setting"</th><th class="n">"runs"</th><th class="n">"overall"</th>
                    </tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </details>
    })
}

/// Bars per model and setting (the rows over all languages, or the one
/// language): the judge's overall score out of 10 and BLEU, on one scale.
fn judge_chart(rows: &[JudgeRow]) -> impl IntoView {
    let shown: Vec<&JudgeRow> = rows
        .iter()
        .filter(|r| {
            r.language == "all"
                || !rows
                    .iter()
                    .any(|o| o.model == r.model && o.setting == r.setting && o.language == "all")
        })
        .collect();
    // Labels above the bars, so the bars keep the width on a phone.
    const W: f64 = 360.0;
    const BAR: f64 = 10.0;
    const ROW: f64 = 14.0 + 2.0 * BAR + 10.0;
    let plot = W - 44.0;
    let height = 24.0 + shown.len() as f64 * ROW;
    let bars = shown.iter().enumerate().map(|(i, r)| {
        let y = 24.0 + i as f64 * ROW;
        let judge = r.overall.mean / 10.0;
        let bleu = r.bleu.unwrap_or(0.0);
        let label = format!("{} · {}", r.model, r.setting);
        let (yj, yb) = (y + 14.0, y + 14.0 + BAR);
        view! {
            <g>
                <text x="0" y=y + 10.0 font-size="11" fill="#1d2330">{label.clone()}</text>
                <rect class="bar" x="0" y=yj width=plot * judge height=BAR fill="#2f6fde" data-series="judge" data-value=format!("{:.3}", r.overall.mean)>
                    <title>{format!("{label}: judge overall {:.2} / 10", r.overall.mean)}</title>
                </rect>
                <text x=plot * judge + 3.0 y=yj + BAR - 1.0 font-size="9" fill="#1d2330">{format!("{:.2}", r.overall.mean)}</text>
                <rect class="bar" x="0" y=yb width=plot * bleu height=BAR fill="#e08a1e" data-series="bleu" data-value=format!("{bleu:.3}")>
                    <title>{format!("{label}: BLEU {bleu:.3}")}</title>
                </rect>
                <text x=plot * bleu + 3.0 y=yb + BAR - 1.0 font-size="9" fill="#1d2330">{format!("{bleu:.3}")}</text>
            </g>
        }
    }).collect_view();
    view! {
        <figure class="chart" id="cq-judge-chart">
            <svg viewBox=format!("0 0 {W} {height}") role="img" aria-label="Judge overall score (out of 10) and BLEU per model and setting">
                <text x="0" y="12" font-size="11" fill="#2f6fde">"■ judge overall / 10"</text>
                <text x="150" y="12" font-size="11" fill="#e08a1e">"■ BLEU (0 to 1)"</text>
                {bars}
            </svg>
            <figcaption class="muted">"The judge tells a right answer in other words from a wrong one; BLEU mostly measures wording."</figcaption>
        </figure>
    }
}

/// The paper's breakdowns of the judge's scores: by question length
/// (quintiles of the QA file's questions) and by the year each question's
/// issue was opened (`coreqa::breakdown`, as `repoqa coreqa breakdown`).
#[component]
fn BreakdownCard() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    let breakdowns = Memo::new(move |_| {
        let judged = st.judged();
        (!judged.is_empty())
            .then(|| breakdowns(&st.questions(), &judged).map_err(|e| e.to_string()))
    });
    view! {
        <section class="card" id="cq-breakdown">
            <h2>"Judge scores by question length and by issue year"</h2>
            {move || match breakdowns.get() {
                None => view! { <p class="muted" id="cq-breakdown-empty">"No judge scores loaded yet."</p> }.into_any(),
                Some(Err(e)) => view! { <p class="fail error-box" id="cq-breakdown-error" role="alert">{e}</p> }.into_any(),
                Some(Ok(b)) => view! {
                    <p class="muted">
                        "Each cell: a model's mean overall score (the four criteria, out of 10) over the group's questions, "
                        "a question's score being the mean of its judgments; \"–\" where the model was not judged on the group."
                    </p>
                    <h3>"By question length"</h3>
                    <p class="muted">"The QA file's questions ranked by the characters of their text and cut into five groups of (nearly) equal size, the same for every model."</p>
                    {breakdown_table(&b.by_question_length, "cq-breakdown-length", "judge scores by question length")}
                    <h3>"By the year the issue was opened"</h3>
                    <p class="muted">"From each question's issue (its "<code>"created_at"</code>", kept by "<code>"repoqa coreqa build"</code>")."</p>
                    {breakdown_table(&b.by_issue_year, "cq-breakdown-year", "judge scores by issue year")}
                }.into_any(),
            }}
        </section>
    }
}

/// One breakdown: a row per model and setting, a column per group.
fn breakdown_table(b: &Breakdown, id: &'static str, label: &'static str) -> impl IntoView {
    // The cells come sorted by model and setting: one row each.
    let mut rows: Vec<(&str, ContextSetting)> =
        b.cells.iter().map(|c| (c.model.as_str(), c.setting)).collect();
    rows.dedup();
    let head = b.groups.iter().map(|g| view! {
        <th class="n" data-group=g.label.clone()>{g.label.clone()}<br/><span class="muted small">{format!("{} · {}\u{a0}q", g.range, g.questions)}</span></th>
    }).collect_view();
    let body = rows.into_iter().map(|(model, setting)| {
        let cells = b.groups.iter().map(|g| {
            let cell = b.cells.iter().find(|c| c.model == model && c.setting == setting && c.group == g.label);
            match cell {
                Some(c) => view! { <td class="n" data-group=g.label.clone() title=format!("{} of {} questions judged", c.judged, g.questions)>{format!("{:.2}", c.overall)}</td> }.into_any(),
                None => view! { <td class="n muted" data-group=g.label.clone()>"–"</td> }.into_any(),
            }
        }).collect_view();
        view! {
            <tr data-model=model.to_string() data-setting=setting.to_string()>
                <td class="key">{model.to_string()}</td><td class="key">{setting.to_string()}</td>{cells}
            </tr>
        }
    }).collect_view();
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label=label>
            <table class="grid compact" id=id>
                <thead><tr><th>"model"</th><th>"setting"</th>{head}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// Elo, records and the position-bias table of the pairwise verdicts.
#[component]
fn PairwiseCard() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    let comparison = Memo::new(move |_| {
        let pairs = st.pairs();
        (!pairs.is_empty()).then(|| {
            let judgments: Vec<_> = pairs.into_iter().map(|p| p.judgment).collect();
            compare(
                &judgments,
                repoqa::coreqa::elo::BOOTSTRAP_ROUNDS,
                repoqa::coreqa::elo::BOOTSTRAP_SEED,
            )
        })
    });
    view! {
        <section class="card" id="cq-pairwise">
            <h2>"Pairwise comparison and Elo"</h2>
            {move || match comparison.get() {
                None => view! { <p class="muted" id="cq-pairwise-empty">"No pairwise verdicts loaded yet ("<code>"repoqa coreqa pairwise"</code>" writes them)."</p> }.into_any(),
                Some(c) => pairwise_view(&c).into_any(),
            }}
        </section>
    }
}

fn pairwise_view(c: &Comparison) -> impl IntoView {
    let elo = c
        .elo
        .iter()
        .map(|(model, rating)| {
            let b = &c.bootstrap[model];
            view! {
                <tr data-model=model.clone()>
                    <td class="key">{model.clone()}</td>
                    <td class="n elo">{format!("{rating:.1}")}</td>
                    <td class="n">{format!("{:.1}", b.median)}</td>
                    <td class="n">{format!("{:.1} – {:.1}", b.low, b.high)}</td>
                </tr>
            }
        })
        .collect_view();
    let records = c.records.iter().map(|r| view! {
        <tr data-model=r.model.clone() data-opponent=r.opponent.clone()>
            <td class="key">{r.model.clone()}</td><td class="key">{r.opponent.clone()}</td>
            <td class="n wins">{r.record.wins}</td><td class="n">{r.record.ties}</td><td class="n">{r.record.losses}</td>
        </tr>
    }).collect_view();
    let p = &c.position_bias;
    let f = c.first_position;
    view! {
        <p class="muted">
            {format!("{} verdicts, played in the files' order as one game each: start 1000, K 32; the interval is the 2.5% to 97.5% range over {} shuffles of that order (seed {}).", c.judgments, c.bootstrap_rounds, c.bootstrap_seed)}
        </p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Elo ratings">
            <table class="grid compact" id="cq-elo">
                <thead><tr><th>"model"</th><th class="n">"Elo"</th><th class="n">"median"</th><th class="n">"95% interval"</th></tr></thead>
                <tbody>{elo}</tbody>
            </table>
        </div>
        <div class="table-scroll" tabindex="0" role="region" aria-label="wins, ties and losses">
            <table class="grid compact" id="cq-records">
                <thead><tr><th>"model"</th><th>"against"</th><th class="n">"wins"</th><th class="n">"ties"</th><th class="n">"losses"</th></tr></thead>
                <tbody>{records}</tbody>
            </table>
        </div>
        <h3>"Position bias"</h3>
        <p class="muted">"For each question and pair judged in both orders: the same verdict both times, a tie one time only, or opposite winners."</p>
        <table class="grid compact" id="cq-bias">
            <tbody>
                <tr><td>"consistent"</td><td class="n" data-bias="consistent">{p.consistent}</td></tr>
                <tr><td>"small discrepancy"</td><td class="n" data-bias="small_discrepancy">{p.small_discrepancy}</td></tr>
                <tr><td>"contradiction"</td><td class="n" data-bias="contradiction">{p.contradiction}</td></tr>
                <tr><td>"judged in one order only"</td><td class="n" data-bias="unpaired">{p.unpaired}</td></tr>
            </tbody>
        </table>
        <h3>"First-position preference"</h3>
        <p id="cq-first-position" data-first=f.first data-second=f.second data-tie=f.tie>
            {format!("{} verdicts for the answer the judge saw first, {} for the one it saw second, {} ties", f.first, f.second, f.tie)}
            {f.rate().map(|r| format!(": {:.1}% of decided verdicts went to the first (50% is no preference when every pair is asked in both orders).", 100.0 * r))}
        </p>
    }
}

/// The questions, each opening to its reference and every answer with the
/// judge's scores and reasoning.
#[component]
fn QuestionsCard() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    let data = Memo::new(move |_| (st.questions(), st.answers(), st.judged()));
    view! {
        <section class="card" id="cq-questions">
            <h2>"Questions"</h2>
            <OwnQuestionForm/>
            {move || {
                let (questions, answers, judged) = data.get();
                if questions.is_empty() {
                    return view! { <p class="muted" id="cq-questions-empty">"No QA file loaded yet."</p> }.into_any();
                }
                let list = questions.iter().map(|q| question_view(q, &answers, &judged)).collect_view();
                view! {
                    <p class="muted" id="cq-question-count">{format!("{} question(s).", questions.len())}</p>
                    <div id="cq-question-list">{list}</div>
                }.into_any()
            }}
        </section>
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    match line.char_indices().nth(140) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

fn question_view(q: &QaItem, answers: &[AnswerLine], judged: &[JudgeLine]) -> impl IntoView {
    let mine: Vec<&AnswerLine> = answers.iter().filter(|a| a.question_id == q.id).collect();
    let answer_views = mine.iter().map(|a| {
        let verdicts: Vec<&JudgeLine> = judged
            .iter()
            .filter(|j| j.question_id == a.question_id && j.model == a.model && j.setting == a.setting)
            .collect();
        let scores = verdicts.iter().map(|j| {
            let s = j.scores;
            view! {
                <li>
                    {format!("repetition {} ({}): accuracy {}, completeness {}, relevance {}, clarity {}", j.repetition, j.judge, s.accuracy, s.completeness, s.relevance, s.clarity)}
                    {(!j.reasoning.is_empty()).then(|| view! { <pre class="reasoning">{j.reasoning.clone()}</pre> })}
                </li>
            }
        }).collect_view();
        view! {
            <div class="cq-answer" data-model=a.model.clone() data-setting=a.setting.to_string()>
                <h4>{format!("{} · {}", a.model, a.setting)}</h4>
                <pre class="code">{a.answer.clone()}</pre>
                <ul class="plain-list">{scores}</ul>
            </div>
        }
    }).collect_view();
    let issue = q.issue_url.clone().filter(|u| u.starts_with("https://"));
    view! {
        <details class="cq-question" data-id=q.id.clone()>
            <summary>
                <code>{q.id.clone()}</code>
                {q.language.clone().map(|l| format!(" ({l})"))}
                " "
                {first_line(&q.question)}
                {format!(" — {} answer(s)", mine.len())}
            </summary>
            <h4>"Question"</h4>
            <pre class="code">{q.question.clone()}</pre>
            {issue.map(|u| view! { <p><a href=u.clone() target="_blank" rel="noopener noreferrer">{u.clone()}</a></p> })}
            <h4>"Reference answer"</h4>
            <pre class="code">{q.reference_answer.clone()}</pre>
            {answer_views}
        </details>
    }
}
