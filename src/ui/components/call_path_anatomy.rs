//! A call-path task's prompt to scale (NOT UPSTREAM, docs/call-path.md):
//! the instruction, each file of the window, every function of the gold
//! path (the source and the target of a no-path task) marked in the bands
//! with its name and its place on the path, the question and the
//! instruction again — the core's `api::callpath::anatomy` in the engine
//! (`jobs::call_path::anatomy`). A band shows its text when hovered,
//! focused or tapped. Dataset text is rendered as text.

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::callpath::task::CallPathTask;
use repoqa::prompt::anatomy::{Anatomy, Part};

use crate::ui::format::thousands;
use crate::ui::jobs::call_path::anatomy;
use crate::ui::jobs::use_runner;
use crate::ui::state::use_state;

/// About how many bands the strip draws (thin files joined in runs).
const STRIP_BANDS: usize = 32;

/// At most this many characters of a band's text are shown.
const SHOWN_CHARS: usize = 3000;

#[component]
pub fn CallPathAnatomy(task: CallPathTask) -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let shown = RwSignal::new(None::<Result<Anatomy, String>>);
    let picked = RwSignal::new(None::<usize>);
    {
        let task = task.clone();
        spawn_local(async move {
            let r = anatomy(state, runner, task).await.map_err(|e| e.to_string());
            shown.try_set(Some(r));
        });
    }
    let task = StoredValue::new(task);
    view! {
        <div class="anatomy" id="call-path-anatomy">
            <h3>"The prompt, to scale: the path's functions marked"</h3>
            {move || match shown.get() {
                None => view! { <p class="muted" id="call-path-anatomy-wait">"Counting tokens…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="fail" id="call-path-anatomy-error">{e}</p> }.into_any(),
                Some(Ok(a)) => view! { <CallPathAnatomyBody anatomy=a task=task.get_value() picked=picked/> }.into_any(),
            }}
        </div>
    }
}

/// A marked function's place: on the path, or the source or the target of
/// a no-path task.
fn function_role(task: &CallPathTask, name: &str) -> String {
    if task.path.is_empty() {
        if name == task.source.name { "the source" } else { "the target" }.to_string()
    } else {
        let k = task.path.iter().position(|p| p == name).map_or(0, |k| k + 1);
        format!("function {k} of {} on the path", task.path.len())
    }
}

#[component]
fn CallPathAnatomyBody(
    anatomy: Anatomy,
    task: CallPathTask,
    picked: RwSignal<Option<usize>>,
) -> impl IntoView {
    let total = anatomy.total_tokens.max(1) as f64;
    let prompt = task.prompt();
    let bands = anatomy.strip(STRIP_BANDS);
    let marked: Vec<(usize, String, f64)> = bands
        .iter()
        .enumerate()
        .filter(|(_, s)| s.band.part == Part::Needle)
        .map(|(i, s)| {
            let name = s.band.name.clone().unwrap_or_default();
            let middle = s.band.first_token as f64 + s.band.tokens as f64 / 2.0;
            (i, name, 100.0 * middle / total)
        })
        .collect();
    let summary = format!(
        "{} tokens in all: the instruction {} · the code context {} with {} marked · the question {} · the instruction again {}.",
        thousands(anatomy.total_tokens),
        thousands(anatomy.tokens_of(Part::Instruction)),
        thousands(anatomy.context_bands().map(|b| b.tokens).sum()),
        crate::ui::format::count(marked.len(), "function", "functions"),
        thousands(anatomy.tokens_of(Part::Description)),
        thousands(anatomy.tokens_of(Part::InstructionAgain)),
    );
    let label = |t: &CallPathTask, s: &repoqa::prompt::anatomy::StripBand| match (
        s.band.part,
        &s.band.name,
    ) {
        (Part::Needle, Some(n)) => {
            format!("{n}, {} (in {})", function_role(t, n), s.band.path.clone().unwrap_or_default())
        }
        (Part::Instruction, _) => "the instruction".into(),
        (Part::InstructionAgain, _) => "the instruction, again".into(),
        (Part::Description, _) => "the question".into(),
        (Part::Padding, _) => "filler lines".into(),
        _ if s.files > 1 => format!(
            "{} files, {} … {}",
            s.files,
            s.band.path.clone().unwrap_or_default(),
            s.last_path.clone().unwrap_or_default()
        ),
        _ => s.band.path.clone().unwrap_or_else(|| "code".into()),
    };
    let band_views = bands.iter().enumerate().map(|(i, s)| {
        let b = &s.band;
        let title = format!("{}: {} tokens", label(&task, s), thousands(b.tokens));
        let select = move || picked.set(Some(i));
        let short = match (b.part, &b.path) {
            (Part::Needle, _) => b.name.clone().unwrap_or_default(),
            (Part::Description, _) => "question".into(),
            (Part::File, _) if s.files > 1 => format!("{} files", s.files),
            (Part::File, Some(p)) => p.rsplit('/').next().unwrap_or(p).to_string(),
            (Part::File, None) => "code".into(),
            _ => String::new(),
        };
        view! {
            <button type="button" class=format!("band band-{}", b.part.name())
                class:picked=move || picked.get() == Some(i)
                data-part=b.part.name() data-name=b.name.clone().unwrap_or_default()
                data-tokens=b.tokens.to_string() data-index=i.to_string()
                style:flex-grow=b.tokens.max(1).to_string()
                aria-label=title.clone() title=title
                on:mouseenter=move |_| select() on:focus=move |_| select() on:click=move |_| select()>
                <span class="band-label" aria-hidden="true">{short}</span>
            </button>
        }
    }).collect_view();
    let mark_views = marked.iter().map(|(_, name, left)| view! {
        <span class="anatomy-mark path-mark" style:left=format!("{left:.2}%") title=name.clone() aria-hidden="true">"▼"</span>
    }).collect_view();
    let t2 = task.clone();
    view! {
        <div id="call-path-anatomy-view" data-marked=marked.len().to_string() data-total=anatomy.total_tokens.to_string()>
            <p id="call-path-anatomy-summary">{summary}</p>
            <div class="anatomy-track">
                <div class="anatomy-marks">{mark_views}</div>
                <div class="anatomy-strip" role="group" aria-label="the prompt's parts, to scale">{band_views}</div>
            </div>
            <p class="anatomy-legend small muted">
                <span><span class="key band-instruction"></span>" instruction"</span>
                <span><span class="key band-file"></span>" a file of the repository"</span>
                <span><span class="key band-needle"></span>" a function of the path (▼)"</span>
                <span><span class="key band-description"></span>" the question"</span>
            </p>
            <ol class="path-marks-list" id="call-path-anatomy-marks">
                {marked.iter().map(|(i, name, left)| {
                    let i = *i;
                    view! {
                        <li data-name=name.clone()>
                            <button type="button" class="small" on:click=move |_| picked.set(Some(i))>
                                <code>{name.clone()}</code></button>
                            {format!(" at {left:.0} % of the prompt: {}", function_role(&t2, name))}
                        </li>
                    }
                }).collect_view()}
            </ol>
            {move || picked.get().and_then(|i| bands.get(i).cloned()).map(|s| {
                let text = prompt.get(s.band.bytes.clone()).unwrap_or_default();
                let total_chars = text.chars().count();
                let head: String = text.chars().take(SHOWN_CHARS).collect();
                view! {
                    <div id="call-path-anatomy-band" data-part=s.band.part.name() data-name=s.band.name.clone().unwrap_or_default()>
                        <p><strong>{label(&task, &s)}</strong>{format!(": {} tokens, from token {} of the prompt", thousands(s.band.tokens), thousands(s.band.first_token))}</p>
                        <pre class="prompt anatomy-text" tabindex="0" aria-label="the band's text">{head}</pre>
                        {(total_chars > SHOWN_CHARS).then(|| view! { <p class="muted small">{format!("… and {} more characters.", thousands(total_chars - SHOWN_CHARS))}</p> })}
                    </div>
                }
            })}
        </div>
    }
}
