//! The Verify page: check a reported score offline. Give a -SCORES.json:
//! its table is recomputed from its per-task records and every record is
//! checked; with a dataset (a file, or the one loaded in the app) its
//! needles are compared; with the outputs JSONL too, every task is
//! re-scored here in the page (a job on the main line). Every finding
//! comes from `repoqa::review::verify`, the same code `repoqa verify` prints, and
//! names the cell or the task (language, repo, needle) with what the file
//! has against what was recomputed. The report downloads as JSON and as a
//! readable summary.

use leptos::prelude::*;
use repoqa::review::verify::{Finding, ModelSummary, HEADLINE_KEY};

use crate::ui::format;

use crate::ui::browser::dom::{focus_into_view, picked_files};
use crate::ui::browser::download::download_text;
use crate::ui::components::drop_zone::DropZone;
use crate::ui::components::progress::Progress;
use crate::ui::jobs::reviewers::{
    load_input, published_names, recompute, rescore, verify_published, VerifyInput,
};
use crate::ui::jobs::use_runner;
use crate::ui::pages::verify_bundle::BundleCard;
use crate::ui::state::reviewers::VerifyState;
use crate::ui::state::use_state;

/// The first file of a pick, given to the page as `kind`.
fn on_pick(vs: VerifyState, kind: VerifyInput) -> impl Fn(leptos::ev::Event) + Copy {
    move |ev| {
        let (input, files) = picked_files(&ev);
        if let Some(f) = files.into_iter().next() {
            load_input(vs, kind, f);
        }
        if let Some(i) = input {
            i.set_value("");
        }
    }
}

/// Findings listed on the page (the downloads hold them all).
const SHOWN_FINDINGS: usize = 300;

#[component]
pub fn VerifyPage() -> impl IntoView {
    let vs = expect_context::<VerifyState>();
    let app = use_state();
    let runner = use_runner();
    let on_drop = move |files: Vec<web_sys::File>| {
        for f in files {
            let kind = VerifyInput::guess(&f.name());
            load_input(vs, kind, f);
        }
    };
    let loaded_name = move || app.dataset.with(|d| d.as_ref().map(|d| d.origin.clone()));

    let has_report = move || vs.report.with(Option::is_some);
    view! {
        // The verdict first: a file verified from another page (a
        // Leaderboard row) opens on it, the form below for another file.
        <ReportCard/>
        <section class="card" id="verify">
            <h2>{move || if has_report() { "Verify another file" } else { "Verify a reported score" }}</h2>
            <p>
                "Drop a " <code>"-SCORES.json"</code> ": its pass@1 table is recomputed from its per-task records and each record is checked. "
                "Add the dataset to compare its needles, and the model outputs JSONL to re-score every task here in the page, offline. "
                "The checks are the ones " <code>"repoqa verify"</code> " runs."
            </p>
            <div class="verify-inputs">
                <label class="file-pick">"SCORES file: "
                    <input type="file" id="verify-scores" accept=".json,.gz,application/json,application/gzip"
                        on:change=on_pick(vs, VerifyInput::Scores)/>
                </label>
                <span class="muted" id="verify-scores-name">{move || vs.scores.get().map(|s| s.0).unwrap_or_default()}</span>
                <label class="file-pick">"Outputs JSONL (optional): "
                    <input type="file" id="verify-outputs" accept=".jsonl,.json,application/json"
                        on:change=on_pick(vs, VerifyInput::Outputs)/>
                </label>
                <span class="muted" id="verify-outputs-name">{move || vs.outputs.get().map(|o| {
                    let bad = if o.errors.is_empty() { String::new() } else { format!(", {} broken line(s)", o.errors.len()) };
                    format!("{}: {} outputs{bad}", o.name, o.outputs.len())
                }).unwrap_or_default()}</span>
                <label class="file-pick">"Dataset (optional): "
                    <input type="file" id="verify-dataset" accept=".json,.gz,application/json,application/gzip"
                        on:change=on_pick(vs, VerifyInput::Dataset)/>
                </label>
                <label>
                    <input type="checkbox" id="verify-use-loaded" prop:checked=move || vs.use_loaded.get()
                        on:change=move |ev| { vs.use_loaded.set(event_target_checked(&ev)); recompute(vs); }/>
                    {move || match loaded_name() {
                        Some(n) => format!(" use the dataset loaded in the app ({n}) when none is dropped"),
                        None => " use the dataset loaded in the app (none is loaded)".to_string(),
                    }}
                </label>
                <label>
                    <input type="checkbox" id="verify-ignore-comments" prop:checked=move || vs.ignore_comments.get()
                        on:change=move |ev| vs.ignore_comments.set(event_target_checked(&ev))/>
                    " the scores were made with --ignore-comments"
                </label>
            </div>
            <PublishedPicker/>
            <DropZone id="verify-drop" label="Drop the SCORES file, the outputs (.jsonl) and the dataset here" on_drop=on_drop/>
            <div class="row">
                <button type="button" id="verify-rescore" on:click=move |_| rescore(vs, runner)
                    aria-describedby="verify-rescore-why"
                    disabled=move || runner.busy() || vs.scores.with(Option::is_none) || vs.outputs.with(Option::is_none)>
                    "Re-score every task"
                </button>
                // Why it cannot be pressed yet, beside it.
                <span class="muted" id="verify-rescore-why">{move || match (vs.scores.with(Option::is_some), vs.outputs.with(Option::is_some)) {
                    (false, false) => " needs the SCORES file and the model outputs JSONL above",
                    (false, true) => " needs the SCORES file above",
                    (true, false) => " needs the model outputs JSONL above (the answers to re-score)",
                    (true, true) => "",
                }}</span>
            </div>
            <Progress/>
            {move || vs.error.get().map(|e| view! { <p class="fail error-box" id="verify-error" role="alert">{e}</p> })}
        </section>
        <BundleCard/>
    }
}

/// The published SCORES files the app ships with, one to verify at a click
/// (the list is read when the page opens; a file is fetched when chosen).
#[component]
fn PublishedPicker() -> impl IntoView {
    let vs = expect_context::<VerifyState>();
    let names = LocalResource::new(published_names);
    let chosen = RwSignal::new(String::new());
    // The picker follows the file being verified when it is a published
    // one (a Leaderboard row's "verify" included), so it never names
    // another file than the report below.
    Effect::new(move |_| {
        let name = vs.scores.with(|s| {
            s.as_ref().and_then(|(n, _)| n.strip_prefix("published/").map(str::to_string))
        });
        if let Some(n) = name {
            if chosen.get_untracked() != n {
                chosen.set(n);
            }
        }
    });
    move || {
        let list = match names.get() {
            Some(Ok(list)) if !list.is_empty() => list,
            Some(Err(e)) => return view! { <p class="muted" id="verify-published-error">{format!("The published files are not available here: {e}")}</p> }.into_any(),
            _ => return ().into_any(),
        };
        if chosen.get_untracked().is_empty() {
            chosen.set(list[0].clone());
        }
        view! {
            <div class="row" id="verify-published-row">
                <label for="verify-published">"Or a published file: "</label>
                <select id="verify-published" on:change=move |ev| chosen.set(event_target_value(&ev))>
                    {list.into_iter().map(|n| {
                        let label = n.trim_end_matches("-SCORES.json.gz").replace("_slash_", "/");
                        view! { <option value=n.clone() selected=move || chosen.with(|c| c == &n)>{label}</option> }
                    }).collect_view()}
                </select>
                <button type="button" id="verify-published-go" on:click=move |_| verify_published(vs, chosen.get_untracked())>"Verify it"</button>
            </div>
        }.into_any()
    }
}

/// One finding as a list item, with the table cells that follow from it
/// folded underneath.
fn finding_item(f: &Finding, derived: Vec<&Finding>) -> AnyView {
    let task = f.task().cloned();
    let (row, threshold) = match f {
        Finding::Cell { row, threshold, .. } => (Some(row.clone()), Some(threshold.clone())),
        _ => (None, None),
    };
    let who = f.model().map(|m| format!("{m}: ")).unwrap_or_default();
    let label = if f.is_mismatch() {
        "MISMATCH "
    } else if f.is_derived() {
        "follows: "
    } else {
        "note "
    };
    let follows = (!derived.is_empty()).then(|| {
        let n = derived.len();
        let mut rows: Vec<String> = derived
            .iter()
            .filter_map(|d| match d {
                Finding::Cell { row, .. } => Some(row.clone()),
                _ => None,
            })
            .collect();
        rows.dedup();
        let summary = format!(
            "{} that follow from it (rows {})",
            format::count(n, "table cell", "table cells"),
            rows.join(", ")
        );
        let cells = derived.into_iter().map(|d| finding_item(d, Vec::new())).collect_view();
        view! {
            <details class="derived" data-derived=n>
                <summary>{summary}</summary>
                <ul>{cells}</ul>
            </details>
        }
    });
    view! {
        <li class=if f.is_mismatch() { "fail" } else { "muted" }
            data-kind=f.kind() data-mismatch=f.is_mismatch().to_string()
            data-derived=f.is_derived().to_string()
            data-language=task.as_ref().map(|t| t.language.clone())
            data-repo=task.as_ref().map(|t| t.repo.clone())
            data-needle=task.as_ref().map(|t| t.needle.clone())
            data-row=row data-threshold=threshold>
            {label}{who}{f.to_string()}
            {follows}
        </li>
    }
    .into_any()
}

/// `x` (a fraction) as a percentage with one decimal, as the tables show it.
fn percent(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// The verdict's numbers in words: each model's overall pass@1 at the
/// official threshold, the file's and the one recomputed from its records
/// (named by model when the file holds several; the verdict names them
/// first).
fn headline_words(models: &[ModelSummary]) -> String {
    models
        .iter()
        .filter_map(|m| {
            let all = m.headline.iter().find(|p| p.row == "all")?;
            let file = all.in_file.map_or("no number".to_string(), percent);
            let sign = if all.agrees() { "=" } else { "≠" };
            let who = if models.len() > 1 { format!("{}: ", m.model) } else { String::new() };
            Some(format!(
                "{who}pass@1 at {HEADLINE_KEY}: {file} in the file {sign} {} recomputed from its {} tasks.",
                percent(all.recomputed),
                format::thousands(all.n)
            ))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The models a report verified, as its verdict names them first.
fn models_named(models: &[ModelSummary]) -> String {
    match models {
        [] => "This file".to_string(),
        [one] => one.model.clone(),
        many => many.iter().map(|m| m.model.as_str()).collect::<Vec<_>>().join(", "),
    }
}

/// The file's table beside the recomputed one, at the official threshold,
/// every row (a row that differs marked): one table a model.
fn numbers_table(models: &[ModelSummary]) -> impl IntoView {
    models
        .iter()
        .filter(|m| !m.headline.is_empty())
        .map(|m| {
            let rows = m
                .headline
                .iter()
                .map(|p| {
                    let ok = p.agrees();
                    view! {
                        <tr data-model=m.model.clone() data-row=p.row.clone() data-agrees=ok.to_string()>
                            <th scope="row">{p.row.clone()}</th>
                            <td class="n wide-only">{format::thousands(p.n)}</td>
                            <td class="n">{p.in_file.map_or("—".to_string(), percent)}</td>
                            <td class="n">{percent(p.recomputed)}</td>
                            <td class=if ok { "pass" } else { "fail" }>{if ok { "same" } else { "differs" }}</td>
                        </tr>
                    }
                })
                .collect_view();
            let label = format!("{}: pass@1 at threshold {HEADLINE_KEY}, the file's table beside the one recomputed from its records", m.model);
            let title = label.clone();
            view! {
                <p class="verify-numbers-title">{title}</p>
                <div class="table-scroll" tabindex="0" role="region" aria-label=label>
                    <table class="grid compact verify-numbers" data-model=m.model.clone()>
                        <thead><tr><th>"Row"</th><th class="n wide-only">"Tasks"</th><th class="n">"In the file"</th><th class="n">"Recomputed"</th><th>"Same?"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
        })
        .collect_view()
}

#[component]
fn ReportCard() -> impl IntoView {
    let vs = expect_context::<VerifyState>();
    let status = RwSignal::new(None::<String>);
    let download = move |json: bool| {
        let Some(r) = vs.report.get_untracked() else { return };
        let res = if json {
            download_text("verification-report.json", "application/json", &r.to_json())
        } else {
            download_text("verification-summary.txt", "text/plain;charset=utf-8", &r.summary_text())
        };
        status.set(res.err().map(|e| e.to_string()));
    };
    // A new verdict (Verify it, a dropped file, a Leaderboard row's verify,
    // made before this page was drawn) is brought into view with the
    // focus, so a screen reader reads it; a report looked at before is
    // left where it is when the page opens again.
    Effect::new(move |_| {
        if vs.report.with(Option::is_some) && vs.focus_pending.get() {
            vs.focus_pending.set(false);
            focus_into_view("verify-verdict");
        }
    });
    move || {
        vs.report.get().map(|r| {
            let ok = r.ok();
            let verdict = if ok && r.findings.is_empty() {
                "verified, no mismatch.".to_string()
            } else if ok {
                format!("verified, no mismatch ({}, notes only).", format::count(r.findings.len(), "finding", "findings"))
            } else {
                format!("not verified: {}.", r.verdict_text())
            };
            let who = models_named(&r.models);
            let checks = r.summary_text().lines().take_while(|l| !l.starts_with("MISMATCH") && !l.starts_with("note")).map(|l| view! { <li>{l.to_string()}</li> }).collect_view();
            let grouped = r.grouped();
            let hidden = grouped.len().saturating_sub(SHOWN_FINDINGS);
            let items = grouped.into_iter().take(SHOWN_FINDINGS)
                .map(|(f, derived)| finding_item(f, derived)).collect_view();
            view! {
                <section class="card" id="verify-report">
                    <h2>"Report"</h2>
                    <p id="verify-verdict" tabindex="-1" data-ok=ok.to_string() data-mismatches=r.mismatches()
                        data-models=who.clone()
                        class=if ok { "pass" } else { "fail" } role="status"><strong class="verify-who">{who.clone()}</strong>" — "{verdict}" "{headline_words(&r.models)}</p>
                    {move || vs.loaded_unrelated.get().map(|n| view! {
                        <p class="notice" id="verify-loaded-unrelated">{format!("Needles not compared: the dataset {n} holds none of this file's repositories. Drop the file's dataset in the form below to compare them.")}</p>
                    })}
                    {numbers_table(&r.models)}
                    <ul id="verify-checks">{checks}</ul>
                    <ul id="verify-findings" class="findings">{items}</ul>
                    {(hidden > 0).then(|| view! { <p class="muted" id="verify-hidden">{format!("… and {} more, in the downloads.", format::count(hidden, "finding", "findings"))}</p> })}
                    <div class="row">
                        <button type="button" id="verify-download-json" on:click=move |_| download(true)>"Download the report (JSON)"</button>
                        <button type="button" id="verify-download-text" on:click=move |_| download(false)>"Download the summary (text)"</button>
                        {move || status.get().map(|e| view! { <span class="fail">{e}</span> })}
                    </div>
                </section>
            }
        })
    }
}
