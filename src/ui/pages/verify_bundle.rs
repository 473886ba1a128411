//! The Verify page's result bundle (`repoqa::review::bundle`): give a bundle and
//! its SCORES file and outputs are taken from it; its prompts are checked
//! against the tasks built here from the loaded dataset and tokenizer with
//! the bundle's settings (one click sets them), and "Re-score every task"
//! checks its claims — what `repoqa verify --bundle` does.

use leptos::prelude::*;
use repoqa::prompt::settings::BuildSettings;
use repoqa::review::bundle::BundleFinding;

use crate::ui::browser::dom::picked_files;
use crate::ui::jobs::reviewers::{load_input, VerifyInput};
use crate::ui::state::reviewers::VerifyState;
use crate::ui::state::settings;
use crate::ui::state::use_state;

/// What the check of a bundle's inputs came to.
#[derive(Clone, PartialEq)]
enum Check {
    /// The tasks here are built with other settings (or not at all).
    OtherSettings,
    /// The dataset's or the tokenizer's hash is not known yet.
    NoHashes,
    Done(Vec<BundleFinding>),
}

/// Settings compared without the tokenizer's source: its hash decides.
fn same_build(a: &BuildSettings, b: &BuildSettings) -> bool {
    BuildSettings { tokenizer_source: String::new(), ..a.clone() }
        == BuildSettings { tokenizer_source: String::new(), ..b.clone() }
}

#[component]
pub fn BundleCard() -> impl IntoView {
    let vs = expect_context::<VerifyState>();
    let app = use_state();
    let check = Memo::new(move |_| {
        let (_, b) = vs.bundle.get()?;
        let built = app.tasks_settings.get();
        if !built.as_ref().is_some_and(|s| same_build(s, &b.settings)) {
            return Some(Check::OtherSettings);
        }
        let (Some(d), Some(t)) = (app.dataset_digest.get(), app.tokenizer_id.get()) else {
            return Some(Check::NoHashes);
        };
        Some(Check::Done(app.tasks.with(|ts| b.check_inputs(&d, &t, ts))))
    });
    let on_pick = move |ev: leptos::ev::Event| {
        let (input, files) = picked_files(&ev);
        if let Some(f) = files.into_iter().next() {
            load_input(vs, VerifyInput::Bundle, f);
        }
        if let Some(i) = input {
            i.set_value("");
        }
    };
    let use_settings = move |_| {
        if let Some((_, b)) = vs.bundle.get_untracked() {
            settings::update(app.settings, |s| {
                let source = s.build.tokenizer_source.clone();
                s.build = BuildSettings { tokenizer_source: source, ..b.settings.clone() };
            });
        }
    };
    view! {
        <section class="card" id="verify-bundle-card">
            <h2>"A result bundle"</h2>
            <p class="muted">
                "A bundle ("<code>"repoqa bundle"</code>", or Download bundle on Results) holds a run's SCORES file and outputs with the hashes of the dataset, the tokenizer and every prompt. "
                "Its prompts are checked against the tasks built here; then Re-score every task checks its claims. The same checks as "<code>"repoqa verify --bundle"</code>"."
            </p>
            <label class="file-pick">"Bundle: "
                <input type="file" id="verify-bundle" accept=".json,application/json" on:change=on_pick/>
            </label>
            {move || vs.bundle.get().map(|(name, b)| view! {
                <p id="verify-bundle-name">{format!(
                    "{name}: {} by {}; {} prompts hashed; context {} tokens, comments {}, {}.",
                    b.model, b.tool, b.prompts.len(), b.settings.code_context_size, b.settings.comment_mode, b.settings.protocol.label()
                )}</p>
            })}
            {move || check.get().map(|c| match c {
                Check::OtherSettings => view! {
                    <p class="notice" id="verify-bundle-settings-note">
                        "The tasks built here use other settings than the bundle's (or none are built). "
                        <button type="button" id="verify-bundle-use-settings" on:click=use_settings>"Use the bundle's settings"</button>
                        " then load its dataset and "<a href="#tasks">"build the tasks"</a>"."
                    </p>
                }.into_any(),
                Check::NoHashes => view! {
                    <p class="notice" id="verify-bundle-hashes-note">"The dataset's or the tokenizer's hash is not known yet: build the tasks."</p>
                }.into_any(),
                Check::Done(findings) if findings.is_empty() => view! {
                    <p class="pass" id="verify-bundle-ok" data-findings="0">
                        {vs.bundle.with(|b| b.as_ref().map(|(_, b)| b.prompts.len()).unwrap_or(0)).to_string()}
                        " prompts rebuilt here match the bundle's; the dataset and the tokenizer are the ones it names. Re-score every task to check its claims."
                    </p>
                }.into_any(),
                Check::Done(findings) => view! {
                    <p class="fail" id="verify-bundle-bad" data-findings=findings.len()>{format!("{} mismatch(es) in the bundle's inputs:", findings.len())}</p>
                    <ul id="verify-bundle-findings">
                        {findings.iter().map(|f| view! { <li>{f.to_string()}</li> }).collect_view()}
                    </ul>
                }.into_any(),
            })}
        </section>
    }
}
