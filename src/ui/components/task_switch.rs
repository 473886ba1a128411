//! The task switch the Tasks, Run and Results pages share: Searching
//! Needle Function (RepoQA's) or call paths (NOT UPSTREAM,
//! docs/call-path.md). One choice for the three pages (`AppState::task_kind`).

use leptos::prelude::*;
use repoqa::api::TaskKind;

use crate::ui::state::use_state;

#[component]
pub fn TaskSwitch() -> impl IntoView {
    let kind = use_state().task_kind;
    view! {
        <fieldset class="task-switch" id="task-switch">
            <legend>"Task"</legend>
            <label><input type="radio" name="task-kind" id="task-kind-snf"
                prop:checked=move || kind.get() == TaskKind::Snf
                on:change=move |_| kind.set(TaskKind::Snf)/>" Searching Needle Function (RepoQA's)"</label>
            " "
            <label><input type="radio" name="task-kind" id="task-kind-call-path"
                prop:checked=move || kind.get() == TaskKind::CallPath
                on:change=move |_| kind.set(TaskKind::CallPath)/>" Call paths (NOT UPSTREAM)"</label>
        </fieldset>
    }
}
