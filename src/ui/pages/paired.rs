//! The Leaderboard page's paired comparison: two loaded runs (published,
//! imported or your own exported SCORES) on the same tasks, task by task
//! at the page's threshold — the 2×2 table overall and per language,
//! McNemar's exact test, the difference A − B with its bootstrap intervals
//! by task and by repository, and the tasks that flipped, each opening
//! both sides. Every number is `repoqa::review::compare`'s, as `repoqa compare`
//! prints it.

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use repoqa::naming::report_file_name;
use repoqa::python::json::float_repr;
use repoqa::report::task_id;
use repoqa::review::bootstrap::Resampling;
use repoqa::review::compare::{compare, Counts, DifferenceIntervals, Flip, Paired};
use repoqa::review::evidence::{bounds_repr, points, points_span};
use repoqa::review::html_report::{default_title, input_label, render, ReportInput, ReportRun};
use repoqa::review::leaderboard::fmt_threshold;

use crate::ui::browser::download::download_text;
use crate::ui::components::evidence_table::LevelSelect;
use crate::ui::components::pager::{page_range, Pager};
use crate::ui::state::reviewers::LeaderboardState;
use crate::ui::state::route::task_href;
use crate::ui::state::use_state;

/// How the flipped tasks are ordered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FlipOrder {
    Language,
    Depth,
    Change,
}

/// One row of the paired table.
fn counts_row(
    name: &str,
    c: &Counts,
    ci: &DifferenceIntervals,
    lang: Option<&str>,
) -> impl IntoView {
    let (tl, th) = bounds_repr(ci.tasks.get(lang));
    let (rl, rh) = bounds_repr(ci.repos.get(lang));
    let label = if name == "all" { "all languages".to_string() } else { name.to_string() };
    view! {
        <tr data-row=name.to_string() class:all-row=name == "all" data-both=c.both data-only-a=c.only_a
            data-only-b=c.only_b data-neither=c.neither data-p=float_repr(c.mcnemar_p())
            data-difference=float_repr(c.difference()) data-task-low=tl data-task-high=th
            data-repo-low=rl data-repo-high=rh>
            <th scope="row">{label}</th>
            <td class="num">{c.both}</td>
            <td class="num">{c.only_a}</td>
            <td class="num">{c.only_b}</td>
            <td class="num">{c.neither}</td>
            <td class="num">{format!("{:.4}", c.mcnemar_p())}</td>
            <td class="num">{points(c.difference())}</td>
            <td class="num">{points_span(ci.tasks.get(lang))}</td>
            <td class="num quote">{points_span(ci.repos.get(lang))}</td>
        </tr>
    }
}

/// One side of a flipped task.
fn side(
    label: &str,
    model: &str,
    passes: bool,
    similarity: f64,
    target: &Option<String>,
    answer: Option<String>,
) -> impl IntoView {
    view! {
        <div class="side" data-side=label.to_string()>
            <h4>{format!("{label}: {model}")}</h4>
            <p class=if passes { "pass" } else { "fail" }>{if passes { "passes" } else { "does not pass" }}</p>
            <p>"Similarity (smoothed BLEU) "<strong>{format!("{similarity:.4}")}</strong></p>
            <p>"Closest function: "{match target {
                Some(t) => view! { <code>{t.clone()}</code> }.into_any(),
                None => view! { <span class="muted">"nothing"</span> }.into_any(),
            }}</p>
            // Your own answers are in the app (a SCORES file holds no answer).
            {answer.map(|a| view! { <pre class="answer" tabindex="0">{a}</pre> })}
        </div>
    }
}

#[component]
pub fn PairedCard() -> impl IntoView {
    let st = expect_context::<LeaderboardState>();
    let state = use_state();
    let level = RwSignal::new(0.95);
    let order = RwSignal::new(FlipOrder::Language);
    let page = RwSignal::new(0usize);
    let open = RwSignal::new(None::<String>);
    /// The runs' names, the comparison and the answer texts of each (for a
    /// run of the app's own answers).
    type Answers = Option<Arc<BTreeMap<String, String>>>;
    type Outcome = Result<(String, String, Paired, DifferenceIntervals, [Answers; 2]), String>;
    let result = Memo::new(move |_| -> Option<Outcome> {
        let (Some(a), Some(b)) = st.paired.get() else { return None };
        let (ma, fa) = st.model_of(&a)?;
        let (mb, fb) = st.model_of(&b)?;
        let (ra, rb) = (fa.file.models.get(&ma)?, fb.file.models.get(&mb)?);
        let t = st.threshold.get();
        Some(match compare(ra, rb, t) {
            Ok(p) => {
                let ci = p.intervals(Resampling::at(level.get()));
                Ok((ma, mb, p, ci, [fa.answers.clone(), fb.answers.clone()]))
            }
            Err(e) => Err(e.to_string()),
        })
    });
    let pick = move |which: usize| {
        move |ev: leptos::ev::Event| {
            let v = event_target_value(&ev);
            let v = (!v.is_empty()).then_some(v);
            page.set(0);
            open.set(None);
            st.paired.update(|p| if which == 0 { p.0 = v } else { p.1 = v });
        }
    };
    let select = move |id: &'static str, which: usize| {
        view! {
            <select id=id on:change=pick(which)>
                <option value="">"(choose)"</option>
                {move || st.runs().into_iter().map(|(key, label)| {
                    let k2 = key.clone();
                    let chosen = move || st.paired.with(|p| (if which == 0 { &p.0 } else { &p.1 }).as_deref() == Some(k2.as_str()));
                    view! { <option value=key selected=chosen>{label}</option> }
                }).collect_view()}
            </select>
        }
    };
    let sort_button = move |o: FlipOrder, label: &'static str, data: &'static str| {
        view! {
            <button type="button" class="sort" data-sort=data aria-pressed=move || (order.get() == o).to_string()
                on:click=move |_| { order.set(o); page.set(0); }>{label}</button>
        }
    };
    let report_message = RwSignal::new(None::<Result<String, String>>);
    // The comparison as one self-contained HTML file: the same bytes as
    // `repoqa report --scores A B --compare` with this threshold and level.
    let download_report = move |_| {
        let r = (|| -> Result<String, String> {
            let (Some(a), Some(b)) = st.paired.get_untracked() else {
                return Err("choose A and B first".into());
            };
            let ((ma, fa), (mb, fb)) = st
                .model_of(&a)
                .zip(st.model_of(&b))
                .ok_or_else(|| "a chosen run is no longer loaded".to_string())?;
            let (Some(ra), Some(rb)) = (fa.file.models.get(&ma), fb.file.models.get(&mb)) else {
                return Err("a chosen run is no longer loaded".into());
            };
            let threshold = st.threshold.get_untracked();
            let resampling = Resampling::at(level.get_untracked());
            let mut inputs = vec![(input_label("SCORES", &fa.source), fa.sha256.clone())];
            if fb.source != fa.source {
                inputs.push((input_label("SCORES", &fb.source), fb.sha256.clone()));
            }
            let (paired, paired_error) = match compare(ra, rb, threshold) {
                Ok(p) => (Some(p), None),
                Err(e) => (None, Some(e.to_string())),
            };
            let html = render(&ReportInput {
                title: default_title(&[&ma, &mb]),
                threshold,
                resampling,
                runs: vec![
                    ReportRun { model: ma.clone(), scores: ra },
                    ReportRun { model: mb.clone(), scores: rb },
                ],
                inputs,
                paired,
                paired_error,
                ladders: Vec::new(),
            });
            let name = report_file_name(&[&ma, &mb]);
            download_text(&name, "text/html", &html).map_err(|e| e.to_string())?;
            Ok(format!("Saved {name}: it opens in any browser, without scripts or network."))
        })();
        report_message.set(Some(r));
    };
    let flips_total = Signal::derive(move || {
        result.with(|r| match r {
            Some(Ok((_, _, p, ..))) => p.flipped.len(),
            _ => 0,
        })
    });
    view! {
        <section class="card" id="lb-paired-card">
            <h2>"Two runs, task by task"</h2>
            <p class="muted">
                "Pick two runs on the same tasks: the tasks both pass, only one passes, neither passes; McNemar's exact test on the tasks they disagree on; "
                "and the difference of their pass@1 with its bootstrap intervals. The same numbers as "<code>"repoqa compare A B"</code>"."
            </p>
            <div class="row paired-pick">
                <label>"A "{select("cmp-a", 0)}</label>
                <label>"B "{select("cmp-b", 1)}</label>
                <LevelSelect id="cmp-level" level=level/>
                <button type="button" id="cmp-report" on:click=download_report
                    disabled=move || result.with(|r| !matches!(r, Some(Ok(_))))>"Download report (HTML)"</button>
            </div>
            {move || report_message.get().map(|m| match m {
                Ok(m) => view! { <p class="muted" id="cmp-report-status">{m}</p> }.into_any(),
                Err(e) => view! { <p class="fail" id="cmp-report-status">{e}</p> }.into_any(),
            })}
            {move || match result.get() {
                None => view! { <p class="muted" id="cmp-empty">"Choose A and B among the runs: those kept in this browser (one per model, listed once there are two), those added with \"Add to the Leaderboard\", and the SCORES files loaded on the Leaderboard page."</p> }.into_any(),
                Some(Err(e)) => view! { <p class="fail error-box" id="cmp-error" role="alert">{e}</p> }.into_any(),
                Some(Ok((ma, mb, p, ci, [answers_a, answers_b]))) => {
                    let r = ci.repos.resampling;
                    let rows = std::iter::once(counts_row("all", &p.all, &ci, None).into_any())
                        .chain(p.languages.iter().map(|(l, c)| counts_row(l, c, &ci, Some(l)).into_any()))
                        .collect_view();
                    let pv = p.all.mcnemar_p();
                    let verdict = if pv < 0.05 {
                        format!("McNemar's exact test: p = {pv:.4}. The runs differ at the 0.05 level.")
                    } else {
                        format!("McNemar's exact test: p = {pv:.4}. No difference at the 0.05 level: the gap is within the noise of these tasks.")
                    };
                    let quote = match ci.repos.all {
                        Some(i) if i.low > 0.0 || i.high < 0.0 => format!("The repository interval of A − B, {}, excludes 0.", points_span(Some(i))),
                        Some(i) => format!("The repository interval of A − B, {}, includes 0.", points_span(Some(i))),
                        None => "A language with one repository leaves no repository interval.".to_string(),
                    };
                    let mut flips: Vec<Flip> = p.flipped.clone();
                    match order.get() {
                        FlipOrder::Language => {}
                        FlipOrder::Depth => flips.sort_by(|x, y| x.depth().total_cmp(&y.depth())),
                        FlipOrder::Change => flips.sort_by(|x, y| {
                            (y.b_similarity - y.a_similarity).abs().total_cmp(&(x.b_similarity - x.a_similarity).abs())
                        }),
                    }
                    let total = flips.len();
                    let built: std::collections::HashSet<String> =
                        state.tasks.with(|ts| ts.iter().map(|t| t.task_id()).collect());
                    let list = flips[page_range(page.get(), total)].iter().map(|f| {
                        let id = task_id(&f.language, &f.repo, &f.name);
                        let id2 = id.clone();
                        let id3 = id.clone();
                        let is_open = move || open.with(|o| o.as_deref() == Some(id2.as_str()));
                        let is_open2 = is_open.clone();
                        let link = built.contains(&id).then(|| view! { <a class="open-task" href=task_href(&id)>"Open the task"</a> });
                        let (ma, mb, f2) = (ma.clone(), mb.clone(), f.clone());
                        let answer_of = |a: &Answers| a.as_ref().and_then(|a| a.get(&id).cloned());
                        let (answer_a, answer_b) = (answer_of(&answers_a), answer_of(&answers_b));
                        view! {
                            <tr class="flip" data-task-id=id.clone() data-language=f.language.clone() data-repo=f.repo.clone()
                                data-name=f.name.clone() data-a=f.a.to_string() data-b=f.b.to_string()
                                data-a-similarity=float_repr(f.a_similarity) data-b-similarity=float_repr(f.b_similarity)
                                data-depth=float_repr(f.depth())>
                                <td>{f.language.clone()}</td>
                                <td>{f.repo.clone()}</td>
                                <td><code>{f.name.clone()}</code></td>
                                <td class="num">{format!("{:.0}%", 100.0 * f.depth())}</td>
                                <td>{if f.a { "A only" } else { "B only" }}</td>
                                <td class="num">{format!("{:.3} → {:.3}", f.a_similarity, f.b_similarity)}</td>
                                <td><button type="button" class="flip-details" aria-expanded=move || is_open().to_string()
                                    on:click=move |_| open.update(|o| *o = if o.as_deref() == Some(id3.as_str()) { None } else { Some(id3.clone()) })>
                                    "Details"</button></td>
                            </tr>
                            {move || is_open2().then(|| view! {
                                <tr class="flip-detail"><td colspan="7">
                                    <div class="side-by-side">
                                        {side("A", &ma, f2.a, f2.a_similarity, &f2.a_target, answer_a.clone())}
                                        {side("B", &mb, f2.b, f2.b_similarity, &f2.b_target, answer_b.clone())}
                                    </div>
                                    {link.clone()}
                                </td></tr>
                            })}
                        }
                    }).collect_view();
                    view! {
                        <div class="table-scroll" tabindex="0" role="region" aria-label="paired table">
                            <table class="grid score-table" id="cmp-table" data-threshold=fmt_threshold(p.threshold)
                                data-level=r.level.to_string() data-resamples=r.resamples data-seed=r.seed>
                                <caption>{format!("A = {ma}, B = {mb}: {} tasks at threshold {}", p.all.tasks(), fmt_threshold(p.threshold))}</caption>
                                <thead><tr>
                                    <th scope="col">"Language"</th><th scope="col">"both"</th><th scope="col">"only A"</th>
                                    <th scope="col">"only B"</th><th scope="col">"neither"</th><th scope="col">"McNemar p"</th>
                                    <th scope="col">"A − B (points)"</th>
                                    <th scope="col">{format!("{}% CI by task", 100.0 * r.level)}</th>
                                    <th scope="col">"by repository"</th>
                                </tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </div>
                        <p id="cmp-verdict">{verdict}" "{quote}</p>
                        <p class="note">
                            {format!("Bootstrap: percentile, {} resamples, seed {}, stratified by language. ", r.resamples, r.seed)}
                            <strong>"Quote the repository interval"</strong>
                            ": a repository's needles come from one code base, so its tasks are not independent and the task interval is too narrow."
                        </p>
                        <h3 id="cmp-flipped-title">{format!("{total} task(s) flipped")}</h3>
                        {(total > 0).then(|| view! {
                            <div class="row">"Order: "
                                {sort_button(FlipOrder::Language, "language", "language")}
                                {sort_button(FlipOrder::Depth, "depth", "depth")}
                                {sort_button(FlipOrder::Change, "similarity change", "change")}
                            </div>
                            <div class="table-scroll" tabindex="0" role="region" aria-label="flipped tasks">
                                <table class="grid" id="cmp-flipped">
                                    <thead><tr><th scope="col">"Language"</th><th scope="col">"Repo"</th><th scope="col">"Needle"</th>
                                        <th scope="col">"Depth"</th><th scope="col">"Passed by"</th><th scope="col">"Similarity A → B"</th><th scope="col"><span class="sr-only">"Details"</span></th></tr></thead>
                                    <tbody>{list}</tbody>
                                </table>
                            </div>
                        })}
                        <Pager id="cmp-flipped" page=page total=flips_total/>
                    }.into_any()
                }
            }}
        </section>
    }
}
