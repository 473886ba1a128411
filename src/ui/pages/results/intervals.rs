//! The loaded answers' pass@1 at the page's threshold with its intervals
//! (`repoqa::review::evidence`, as `repoqa score --ci` prints them).

use leptos::prelude::*;
use repoqa::review::bootstrap::Resampling;
use repoqa::review::evidence::evidence;

use crate::ui::components::evidence_table::{EvidenceView, LevelSelect};
use crate::ui::state::scoring::{ScoredSet, Shared};
use crate::ui::state::use_state;

#[component]
pub fn IntervalsCard(set: Memo<Shared<ScoredSet>>) -> impl IntoView {
    let state = use_state();
    let level = RwSignal::new(0.95);
    let table = Memo::new(move |_| {
        let t = state.settings.with(|s| s.threshold);
        let r = Resampling::at(level.get());
        set.with(|s| (!s.results.is_empty()).then(|| evidence(&s.results, t, r)))
    });
    view! {
        <section class="card" id="intervals-card">
            <h2>"pass@1 with its intervals"</h2>
            <p class="muted" id="ci-note">{move || {
                let n = table.with(|t| t.as_ref().and_then(|t| t.rows.first()).map_or(0, |r| r.n));
                format!("At the pass threshold set under Scoring options. {n} pass-or-fail outcomes leave {} of noise: two runs whose intervals overlap may not differ (compare them task by task on the Leaderboard page).",
                    if n >= 400 { "a few points" } else { "many points" })
            }}</p>
            <LevelSelect id="ci-level" level=level/>
            {move || match table.get() {
                None => view! { <p class="muted" id="ci-empty">"Intervals appear once answers are scored."</p> }.into_any(),
                Some(t) => view! { <EvidenceView id="ci-table" table=t/> }.into_any(),
            }}
        </section>
    }
}
