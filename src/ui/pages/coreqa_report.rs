//! The CoReQA page's "The paper's tables": Table V's shape (per model and
//! context setting), Table IV's (per language), PCE against a baseline the
//! visitor picks, BLEU beside the judge, and a chart of the five levels per
//! model — all `repoqa::coreqa::report::report` over the loaded files, the
//! figures `repoqa coreqa report` prints.

use leptos::prelude::*;
use repoqa::coreqa::judge::CRITERIA;
use repoqa::coreqa::levels::RANGES;
use repoqa::coreqa::pce::Discrepancy;
use repoqa::coreqa::report::{report, CoreqaReport, PceCell, ReportRow};
use repoqa::coreqa::stability::StabilityRow;

use crate::ui::state::coreqa::CoreqaState;

/// The levels' colours, lowest first (ColorBrewer's RdYlBu, safe for
/// colour-blind readers), and the ink of a label on each (white on the two
/// dark ends, the text colour on the light middle).
const LEVEL_FILL: [&str; 5] = ["#d7191c", "#fdae61", "#ffffbf", "#abd9e9", "#2c7bb6"];
const LEVEL_INK: [&str; 5] = ["#ffffff", "#1d2330", "#1d2330", "#1d2330", "#ffffff"];

fn pce_text(p: &Option<PceCell>) -> String {
    p.as_ref().map_or("–".to_string(), |p| p.text(" (baseline)"))
}

#[component]
pub fn ReportCard() -> impl IntoView {
    let st = expect_context::<CoreqaState>();
    // The models pairwise verdicts name, in the order they first appear.
    let models = Memo::new(move |_| {
        let mut seen: Vec<String> = Vec::new();
        for p in st.pairs() {
            for m in [p.judgment.first, p.judgment.second] {
                if !seen.contains(&m) {
                    seen.push(m);
                }
            }
        }
        seen
    });
    // None: the first model of the verdicts.
    let chosen = RwSignal::new(None::<String>);
    let baseline = move || {
        let list = models.get();
        chosen.get().filter(|c| list.contains(c)).or_else(|| list.first().cloned())
    };
    let rule = RwSignal::new(Discrepancy::Tie);
    let tables = Memo::new(move |_| {
        // The stability check's judgments too: the report makes Table VI of
        // them and leaves them out of the others.
        let judged = st.judged_with_checks();
        (!judged.is_empty()).then(|| {
            report(
                &st.questions(),
                &judged,
                &st.answers(),
                &st.pairs(),
                baseline().as_deref(),
                rule.get(),
            )
        })
    });
    view! {
        <section class="card" id="cq-report">
            <h2>"The paper's tables"</h2>
            {move || match tables.get() {
                None => view! { <p class="muted" id="cq-report-empty">"No judge scores loaded yet: the tables need a QA file and the judgments "<code>"repoqa coreqa judge"</code>" writes (and pairwise verdicts for PCE)."</p> }.into_any(),
                Some(r) => view! {
                    <p class="muted">
                        "As the CoReQA paper reports its results (Tables V and IV): each criterion's mean ± standard deviation over the answer runs, "
                        "PCE (pairwise comparison against a baseline model, 50.0 by construction; with several answer runs, the mean ± SD of each run's PCE), and the answers' BLEU beside the judge's figures. "
                        "The same figures as "<code>"repoqa coreqa report"</code>"."
                    </p>
                    <div class="row wrap">
                        <label>"Baseline for PCE "
                            <select id="cq-report-baseline" disabled=move || models.with(Vec::is_empty)
                                on:change=move |ev| chosen.set(Some(event_target_value(&ev)))>
                                {move || {
                                    let b = baseline();
                                    let list = models.get();
                                    if list.is_empty() {
                                        return view! { <option value="">"no pairwise verdicts loaded"</option> }.into_any();
                                    }
                                    list.into_iter().map(|m| {
                                        let selected = b.as_deref() == Some(m.as_str());
                                        view! { <option value=m.clone() selected=selected>{m.clone()}</option> }
                                    }).collect_view().into_any()
                                }}
                            </select>
                        </label>
                        <label>"A win in one order, a tie in the other "
                            <select id="cq-report-discrepancy"
                                on:change=move |ev| rule.set(Discrepancy::from_name(&event_target_value(&ev)).unwrap_or_default())>
                                <option value="tie" selected=move || rule.get() == Discrepancy::Tie>"counts as a tie (our default)"</option>
                                <option value="decided" selected=move || rule.get() == Discrepancy::Decided>"counts as a win"</option>
                            </select>
                        </label>
                    </div>
                    {report_tables(&r)}
                }.into_any(),
            }}
        </section>
    }
}

fn report_tables(r: &CoreqaReport) -> impl IntoView {
    let runs = r.overall.iter().map(|x| x.runs).max().unwrap_or(1);
    view! {
        <h3>{format!("Per model and context setting ({runs} run{} of answers)", if runs == 1 { "" } else { "s" })}</h3>
        {table("cq-report-overall", &r.overall, false)}
        {(!r.by_language.is_empty()).then(|| view! {
            <h3>"Per language"</h3>
            {table("cq-report-languages", &r.by_language, true)}
        })}
        {levels_chart(&r.overall)}
        {(!r.stability.is_empty()).then(|| stability_table(&r.stability))}
        <ul class="muted small" id="cq-report-notes">
            {r.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}
        </ul>
    }
}

fn table(id: &'static str, rows: &[ReportRow], by_language: bool) -> impl IntoView {
    let body = rows
        .iter()
        .map(|r| {
            view! {
                <tr data-model=r.model.clone() data-setting=r.setting.to_string() data-language=r.language.clone()
                    data-pce=r.pce.as_ref().and_then(|p| p.pce).map(|v| format!("{v:.1}")).unwrap_or_default()>
                    {by_language.then(|| view! { <td class="key">{r.language.clone()}</td> })}
                    <td class="key">{r.setting.to_string()}</td>
                    <td class="key">{r.model.clone()}</td>
                    <td class="n">{r.questions}</td>
                    {(0..4).map(|c| view! { <td class="n">{r.criteria.get(c).label()}</td> }).collect_view()}
                    <td class="n pce">{pce_text(&r.pce)}</td>
                    <td class="n bleu">{r.bleu.map_or("–".to_string(), |b| format!("{:.1}", b * 100.0))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label=id>
            <table class="grid" id=id>
                <thead><tr>
                    {by_language.then(|| view! { <th>"language"</th> })}
                    <th>"setting"</th><th>"model"</th><th class="n">"questions"</th>
                    <th class="n">"Acc."</th><th class="n">"Cmpt."</th><th class="n">"Rel."</th><th class="n">"Clarity"</th>
                    <th class="n">"PCE"</th><th class="n">"BLEU ×100"</th>
                </tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// Table VI: the judge's stability check, per model and setting.
fn stability_table(rows: &[StabilityRow]) -> impl IntoView {
    let body = rows
        .iter()
        .map(|r| {
            view! {
                <tr data-model=r.model.clone() data-setting=r.setting.to_string()>
                    <td class="key">{r.setting.to_string()}</td>
                    <td class="key">{r.model.clone()}</td>
                    <td class="n">{r.answers}</td>
                    <td class="n">{r.repetitions}</td>
                    {(0..4).map(|c| view! { <td class="n">{r.criteria.get(c).label()}</td> }).collect_view()}
                    <td class="n bleu">{r.bleu.map_or("–".to_string(), |b| format!("{:.1}", b * 100.0))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"The judge's stability (Table VI)"</h3>
        <p class="muted">"Each answer of the sample judged several times: per criterion, the mean of the answers' mean scores ± the mean of their standard deviations (the paper: around 0.55 over five judgments)."</p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="the judge's stability">
            <table class="grid" id="cq-report-stability">
                <thead><tr>
                    <th>"setting"</th><th>"model"</th><th class="n">"answers"</th><th class="n">"judged"</th>
                    <th class="n">"Acc."</th><th class="n">"Cmpt."</th><th class="n">"Rel."</th><th class="n">"Clarity"</th>
                    <th class="n">"BLEU ×100"</th>
                </tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// Per model and setting, four stacked bars (one per criterion): the share
/// of the judgments at each of the five levels.
fn levels_chart(rows: &[ReportRow]) -> impl IntoView {
    const W: f64 = 360.0;
    const LABEL: f64 = 74.0;
    const BAR: f64 = 9.0;
    const GAP: f64 = 3.0;
    const HEAD: f64 = 16.0;
    let block = HEAD + 4.0 * (BAR + GAP) + 8.0;
    let plot = W - LABEL;
    let top = 30.0;
    let height = top + rows.len() as f64 * block;
    let legend = RANGES
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let x = i as f64 * 58.0;
            view! {
                <rect x=x y="4" width="10" height="10" fill=LEVEL_FILL[i] stroke="#5b6475" stroke-width="0.5"></rect>
                <text x=x + 13.0 y="13" font-size="10" fill="#1d2330">{r.to_string()}</text>
            }
        })
        .collect_view();
    let blocks = rows.iter().enumerate().map(|(i, r)| {
        let y0 = top + i as f64 * block;
        let name = format!("{} · {}", r.model, r.setting);
        let bars = (0..4).map(|c| {
            let y = y0 + HEAD + c as f64 * (BAR + GAP);
            let shares = r.levels.shares(c);
            let mut x = LABEL;
            let segments = shares.iter().enumerate().filter(|(_, s)| **s > 0.0).map(|(l, s)| {
                let w = plot * s / 100.0;
                let seg = view! {
                    <rect class="bar level" x=x y=y width=w height=BAR fill=LEVEL_FILL[l]
                        data-criterion=CRITERIA[c] data-level=RANGES[l] data-share=format!("{s:.1}")>
                        <title>{format!("{name}, {}: {s:.0}% of judgments at {}", CRITERIA[c], RANGES[l])}</title>
                    </rect>
                    {(*s >= 12.0).then(|| view! {
                        <text class="cell-label" x=x + w / 2.0 y=y + BAR - 1.5 font-size="7.5" text-anchor="middle" fill=LEVEL_INK[l]>{format!("{s:.0}%")}</text>
                    })}
                };
                x += w;
                seg
            }).collect_view();
            view! {
                <text x="0" y=y + BAR - 1.0 font-size="9" fill="#5b6475">{CRITERIA[c]}</text>
                {segments}
            }
        }).collect_view();
        view! {
            <g data-model=r.model.clone() data-setting=r.setting.to_string()>
                <text x="0" y=y0 + 11.0 font-size="11" fill="#1d2330">{name}</text>
                {bars}
            </g>
        }
    }).collect_view();
    view! {
        <figure class="chart" id="cq-levels-chart">
            <svg viewBox=format!("0 0 {W} {height}") role="img"
                aria-label="The share of the judge's scores at each of the five levels, per model, setting and criterion">
                {legend}
                {blocks}
            </svg>
            <figcaption class="muted">"The five levels of the judge's scores (1-2 mostly incorrect … 9-10 correct, for accuracy), per criterion: the share of all judgments."</figcaption>
        </figure>
    }
}
