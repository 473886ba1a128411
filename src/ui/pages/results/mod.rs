//! The Results page: the score first (`headline`), answers in (import) and out (outputs JSONL), scoring
//! options, the official pass@1 table, charts, per-task results with a
//! detail view, and the official SCORES / CSV exports. Everything shown is
//! computed by the core (`repoqa::scoring::score`, `repoqa::report`,
//! `repoqa::scoring::breakdown`, `repoqa::scoring::linediff`) through `state::scoring` and
//! `jobs::scoring`; answers and dataset text are rendered as text nodes only.

mod answers;
mod audit;
mod call_paths;
mod export;
mod headline;
mod intervals;
mod name_match;
mod options;
mod run_switch;
pub(crate) mod table;
mod task_list;

use leptos::prelude::*;
use repoqa::scoring::breakdown::breakdown;
use repoqa::scoring::run::group_results;

use self::answers::AnswersCard;
use self::audit::AuditCard;
use self::call_paths::CallPathResults;
use self::export::ExportCard;
use self::headline::ScoreHeadline;
use self::intervals::IntervalsCard;
use self::name_match::NameMatchCard;
use self::options::OptionsCard;
use self::run_switch::RunSwitch;
use self::table::TableCard;
use self::task_list::{TaskDetail, TaskList};
use crate::ui::components::charts::Charts;
use crate::ui::components::progress::Progress;
use crate::ui::components::task_switch::TaskSwitch;
use crate::ui::error::UiError;
use crate::ui::format;
use crate::ui::jobs::scoring::ImportReport;
use crate::ui::pages::paired::PairedCard;
use crate::ui::state::answers::{ensure_answers_restored, score_set};
use crate::ui::state::run::RunState;
use crate::ui::state::use_state;

/// A time in milliseconds as the summary says it: "under 1 ms" rather than
/// "0 ms", which reads as if nothing was done.
fn ms_words(ms: f64) -> String {
    if ms < 1.0 {
        "under 1 ms".to_string()
    } else {
        format!("{ms:.0} ms")
    }
}

/// The Results page of the task chosen: SNF's, or call paths' (NOT
/// UPSTREAM).
#[component]
pub fn ResultsPage() -> impl IntoView {
    let kind = use_state().task_kind;
    view! {
        <TaskSwitch/>
        {move || match kind.get() {
            repoqa::api::TaskKind::Snf => view! { <SnfResults/> }.into_any(),
            repoqa::api::TaskKind::CallPath => view! { <CallPathResults/> }.into_any(),
        }}
    }
}

#[component]
fn SnfResults() -> impl IntoView {
    let state = use_state();
    ensure_answers_restored(state);
    // The Run page's selection says which tasks count as unanswered.
    use_context::<RunState>().inspect(|rs| rs.restore());
    let set = Memo::new(move |_| score_set(state));
    // Series hidden in the charts: kept while answers are re-scored.
    let hidden_series = RwSignal::new(Vec::<String>::new());
    let selected = RwSignal::new(None::<String>);
    let import_report = RwSignal::new(None::<Result<ImportReport, UiError>>);

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
            <RunSwitch import_report=import_report/>
            {move || {
                let n = state.tasks.with(Vec::len);
                if n == 0 {
                    view! { <p class="notice" id="results-no-tasks">"No tasks are built yet: load a dataset and build the tasks first. Answers are matched to tasks by id (language::repo::name)."</p> }.into_any()
                } else {
                    let s = set.get();
                    let threshold = state.settings.with(|st| st.threshold);
                    // How many of the answers pass, beside how many there are
                    // (an import says what it brought, not only that it came).
                    let passing = (s.pending == 0 && !s.items.is_empty())
                        .then(|| s.items.iter().filter(|t| t.passes(threshold)).count());
                    let passing_words = passing.map(|p| {
                        format!("{p} of them pass at {}; ", repoqa::review::leaderboard::fmt_threshold(threshold))
                    });
                    view! {
                        <p id="answer-summary" data-passing=passing>
                            {format!("{} of {n} tasks answered; ", s.items.len())}
                            {passing_words}
                            {match state.scoring.last_scoring.get() {
                                Some((what, k, ms)) => format!("{what} scored {k} answer(s) in {}.", ms_words(ms)),
                                None if s.rescored == 0 => "every score read from this browser's cache.".to_string(),
                                None => format!("scored {} in {}.", format::count(s.rescored, "answer", "answers"), ms_words(s.ms)),
                            }}
                        </p>
                    }.into_any()
                }
            }}
            <ScoreHeadline set=set/>
            // Imports and option changes run in slices: their progress and
            // Cancel show here.
            <Progress/>
        </section>
        <AnswersCard import_report=import_report/>
        <OptionsCard/>
        <TableCard set=set/>
        <IntervalsCard set=set/>
        // Two runs of yours (e.g. the real one and its no-context control,
        // each added with "Add to the Leaderboard") side by side.
        <PairedCard/>
        <NameMatchCard set=set/>
        <AuditCard/>
        <section class="card" id="charts-card" tabindex="-1">
            <h2>"Charts"</h2>
            {move || {
                let s = set.get();
                let threshold = state.settings.with(|st| st.threshold);
                // With no answer, the unanswered tasks counted as failures
                // would draw flat 0 % lines: nothing is drawn until one is in.
                if s.results.is_empty() || s.items.is_empty() {
                    view! { <p class="muted" id="charts-empty">"Charts appear once answers are scored."</p> }.into_any()
                } else {
                    // The answered tasks only: an unanswered task counted as a
                    // failure would draw a depth effect that is not there (a
                    // bin of unanswered tasks at 0 %). The table still counts
                    // them as `repoqa run` does.
                    let answered = group_results(s.items.iter().filter_map(|t| match (&t.output, &t.result) {
                        (Ok(o), Ok(e)) => Some((o, e)),
                        _ => None,
                    }));
                    let n: usize = answered.values().map(Vec::len).sum();
                    let (left_out, in_table) = s.unanswered.as_ref().map_or((0, false), |u| {
                        (u.tasks.len(), u.scoring == repoqa::report::UnansweredScoring::Failures)
                    });
                    let table = if in_table { "the table above counts them as failures, as repoqa run does" } else { "the table above leaves them out too" };
                    let series = breakdown(&answered, threshold);
                    view! {
                        {(left_out > 0).then(|| view! {
                            <p class="notice" id="charts-answered-only" data-answered=n data-left-out=left_out>
                                {format!(
                                    "The charts count the {} only; the {} left out ({table}). A bin with no answered task is left blank, not drawn at 0 %.",
                                    format::count(n, "answered task", "answered tasks"),
                                    format::count(left_out, "unanswered task is", "unanswered tasks are"),
                                )}
                            </p>
                        })}
                        <Charts series=series threshold=threshold hidden=hidden_series/>
                    }.into_any()
                }
            }}
        </section>
        <TaskList set=set selected=selected/>
        <TaskDetail set=set selected=selected/>
        <ExportCard set=set/>
    }
}
