//! The anatomy of a prompt, to scale (issue 24): the instruction, each
//! file of the code context, the needle at its depth, the description and
//! the instruction again, as bands whose widths are their token counts
//! (`repoqa::prompt::anatomy`, counts equal to the task's own fields). A band shows
//! its text when hovered, focused or tapped. A depth slider and a window
//! size rebuild the task through the core builder (as `repoqa prompts
//! --position-ratio R --code-context-size S`), so the needle visibly moves;
//! the audit's artifacts are marked on the strip with what they give away.
//! Dataset text is rendered as text.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::prompt::anatomy::{Band, Part, StripBand};
use repoqa::report::Task;

use crate::ui::format::thousands;
use crate::ui::jobs::anatomy::{show, Rebuild, Shown};
use crate::ui::jobs::use_runner;
use crate::ui::state::use_state;

/// The window sizes offered (tokens), besides the one the task was built
/// in; the small ones let a small repository (the demo's) move its needle.
const SIZES: [usize; 9] = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

/// About how many bands the strip draws: thinner files are joined in runs
/// (`Anatomy::strip`), so that a 128k-token prompt's hundreds of files
/// still leave every part in view on a phone.
const STRIP_BANDS: usize = 32;

/// At most this many characters of a band's text are shown.
const SHOWN_CHARS: usize = 3000;

/// A strip band's name: its band's, or for joined files their count and
/// the first and last of them.
fn strip_label(s: &StripBand) -> String {
    match (s.files, &s.band.path, &s.last_path) {
        (1, ..) => band_label(&s.band),
        (n, Some(first), Some(last)) => format!("{n} files, {first} … {last}"),
        (n, ..) => format!("{n} files"),
    }
}

fn band_label(b: &Band) -> String {
    match (b.part, &b.path) {
        (Part::Needle, Some(p)) => format!("the needle (in {p})"),
        (Part::File, Some(p)) => p.clone(),
        (Part::Padding, _) => "filler lines for removed comments".into(),
        (Part::Instruction, _) => "the instruction".into(),
        (Part::InstructionAgain, _) => "the instruction, again".into(),
        (Part::Description, _) => "the needle's description".into(),
        (_, None) => "code".into(),
    }
}

/// What a band says on the strip (cut off by its width): a file's name
/// without its folders, or the part.
fn short_label(b: &Band) -> String {
    match (b.part, &b.path) {
        (Part::Needle, _) => "needle".into(),
        (Part::File, Some(p)) => p.rsplit('/').next().unwrap_or(p).to_string(),
        (Part::Padding, _) => "filler".into(),
        (Part::Description, _) => "description".into(),
        _ => String::new(),
    }
}

/// The first `SHOWN_CHARS` characters of `text`, and how many are left out.
fn shown_text(text: &str) -> (String, usize) {
    let total = text.chars().count();
    if total <= SHOWN_CHARS {
        return (text.to_string(), 0);
    }
    (text.chars().take(SHOWN_CHARS).collect(), total - SHOWN_CHARS)
}

/// The command that writes the same task.
fn cli_command(shown: &Shown, built_size: usize) -> String {
    let (ratio, size) = match shown.rebuilt {
        Some(r) => (Some(r.position_ratio), r.code_context_size),
        None => (None, built_size),
    };
    let mut cmd = "repoqa prompts --dataset-path DATASET".to_string();
    if size != repoqa::prompt::context::DEFAULT_CODE_CONTEXT_SIZE {
        cmd.push_str(&format!(" --code-context-size {size}"));
    }
    if let Some(r) = ratio {
        cmd.push_str(&format!(" --position-ratio {r}"));
    }
    cmd.push_str(&format!(" --languages {} --repos {}", shown.task.language, shown.task.repo));
    cmd
}

#[component]
pub fn AnatomyStrip(task: Arc<Task>) -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let built_size = state
        .tasks_settings
        .with_untracked(|b| b.as_ref().map(|b| b.code_context_size))
        .unwrap_or_else(|| state.settings.with_untracked(|s| s.build.code_context_size));
    let ratio = RwSignal::new(task.position_ratio);
    let size = RwSignal::new(built_size);
    let shown = RwSignal::new(None::<Result<Shown, String>>);
    let picked = RwSignal::new(None::<usize>);
    let started = RwSignal::new(false);
    let original = StoredValue::new(task.clone());
    let built_ratio = task.position_ratio;
    // Only the latest request's result is shown (a slider moved by
    // keyboard asks for several rebuilds in a row).
    let latest = StoredValue::new(0u64);
    let load = move |rebuild: Option<Rebuild>| {
        let task = original.get_value();
        started.set(true);
        latest.update_value(|n| *n += 1);
        let mine = latest.get_value();
        spawn_local(async move {
            let r = show(state, runner, task, rebuild).await.map_err(|e| e.to_string());
            if latest.get_value() != mine {
                return;
            }
            picked.set(
                r.as_ref()
                    .ok()
                    .and_then(|s| s.anatomy.bands.iter().position(|b| b.part == Part::Needle)),
            );
            shown.set(Some(r));
        });
    };
    let rebuild = move || {
        let r = Rebuild {
            position_ratio: ratio.get_untracked(),
            code_context_size: size.get_untracked(),
            protocol: None,
        };
        let official = r.code_context_size == built_size && r.position_ratio == built_ratio;
        load((!official).then_some(r));
    };
    let toggled = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let open = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            .is_some_and(|d| d.open());
        if open && !started.get_untracked() {
            rebuild();
        }
    };
    let reset = move |_| {
        ratio.set(built_ratio);
        size.set(built_size);
        rebuild();
    };
    let sizes: Vec<usize> = {
        let mut v = SIZES.to_vec();
        if !v.contains(&built_size) {
            v.push(built_size);
            v.sort_unstable();
        }
        v
    };
    view! {
        <details id="anatomy" class="anatomy" on:toggle=toggled>
            <summary>"Anatomy of this prompt: what the model is given, to scale"</summary>
            <p class="muted small">"Each band is a part of the prompt, as wide as its tokens. Hover, focus or tap a band to read it. Move the needle or change the window: the task is rebuilt by the same code as "<code>"repoqa prompts"</code>"."</p>
            <div class="row anatomy-controls">
                <span class="control anatomy-depth">
                    <label for="anatomy-ratio">"Depth (position_ratio)"</label>
                    <input type="range" id="anatomy-ratio" min="0" max="1" step="0.01"
                        prop:value=move || ratio.get().to_string()
                        on:input=move |ev| if let Ok(r) = repoqa::prompt::settings::parse_position_ratio(&event_target_value(&ev)) { ratio.set(r) }
                        on:change=move |_| rebuild()/>
                    <output id="anatomy-ratio-value" for="anatomy-ratio">{move || format!("{:.2}", ratio.get())}</output>
                </span>
                <span class="control">
                <label for="anatomy-size">"Window"</label>
                <select id="anatomy-size" on:change=move |ev| {
                    if let Ok(n) = event_target_value(&ev).parse::<usize>() { size.set(n); rebuild(); }
                }>
                    {sizes.into_iter().map(|n| view! {
                        <option value=n.to_string() selected=move || size.get() == n>{format!("{} tokens", thousands(n))}</option>
                    }).collect_view()}
                </select>
                </span>
                <button type="button" id="anatomy-reset" on:click=reset>"Back to the task as built"</button>
            </div>
            {move || match shown.get() {
                None => view! { <p class="muted" id="anatomy-wait">{move || if started.get() { "Counting tokens…" } else { "" }}</p> }.into_any(),
                Some(Err(e)) => view! { <p class="fail" id="anatomy-error">{e}</p> }.into_any(),
                Some(Ok(s)) => view! { <AnatomyBody shown=s picked=picked built=(built_ratio, built_size)/> }.into_any(),
            }}
        </details>
    }
}

#[component]
fn AnatomyBody(
    shown: Shown,
    picked: RwSignal<Option<usize>>,
    /// The position ratio and window the task of the run was built with.
    built: (f64, usize),
) -> impl IntoView {
    let (built_ratio, built_size) = built;
    let a = &shown.anatomy;
    let t = &shown.task;
    let total = a.total_tokens.max(1) as f64;
    let prompt = Arc::new(t.prompt());
    // Where the depth aims the needle's middle (`context::depth`): ratio ×
    // window, in the prompt's tokens; past the context's end when the
    // repository has less code than the window.
    let budget = shown.rebuilt.map_or(built_size, |r| r.code_context_size);
    let depth = repoqa::prompt::context::depth::Depth::of(t, budget);
    let context_start = a.tokens_of(Part::Instruction);
    let aim_token = context_start as f64 + depth.aimed_middle.min(t.code_context_ntokens as f64);
    let aim_title = if depth.aimed_middle > t.code_context_ntokens as f64 {
        format!(
            "The aim, {} × {} = {:.0} tokens, is past the context's {} tokens: the repository has less code than the window.",
            t.position_ratio, thousands(budget), depth.aimed_middle, thousands(t.code_context_ntokens)
        )
    } else {
        format!(
            "The aim: the needle's middle at {} × {} = {:.0} tokens into the context.",
            t.position_ratio,
            thousands(budget),
            depth.aimed_middle
        )
    };
    let before = t.needle_token_start;
    let needle = t.needle_token_end - t.needle_token_start;
    let after = t.code_context_ntokens - t.needle_token_end;
    let files = {
        let mut paths: Vec<&str> = a.context_bands().filter_map(|b| b.path.as_deref()).collect();
        paths.sort_unstable();
        paths.dedup();
        paths.len()
    };
    let summary = format!(
        "{} tokens in all: the instruction {} · the code context {} ({} before the needle, the needle {}, {} after it; {} file(s)) · the description {} · the instruction again {}.",
        thousands(a.total_tokens),
        thousands(a.tokens_of(Part::Instruction)),
        thousands(t.code_context_ntokens),
        thousands(before),
        thousands(needle),
        thousands(after),
        files,
        thousands(a.tokens_of(Part::Description)),
        thousands(a.tokens_of(Part::InstructionAgain)),
    );
    let rebuilt_note = shown.rebuilt.map(|r| {
        view! {
            <p class="warning" id="anatomy-rebuilt">{format!(
                "Rebuilt at position_ratio {} in a {}-token window: NOT the task of the run (that one is at {} in {} tokens). Its needle now spans tokens {}–{} of {}.",
                r.position_ratio, thousands(r.code_context_size), built_ratio, thousands(built_size),
                thousands(t.needle_token_start), thousands(t.needle_token_end), thousands(t.code_context_ntokens)
            )}</p>
        }
    });
    let line = repoqa::report::jsonl_line(t.as_ref()).unwrap_or_default();
    let cmd = cli_command(&shown, built_size);
    let bands = a.strip(STRIP_BANDS);
    let marks = a.marks.clone();
    let explain = |art: repoqa::prompt::audit::Artifact| {
        format!("{} ({}): {}", art.name(), art.parity_id(), art.explain())
    };
    let band_views = bands.iter().enumerate().map(|(i, s)| {
        let b = &s.band;
        let label = strip_label(s);
        let title = format!("{label}: {} tokens", thousands(b.tokens));
        let select = move || picked.set(Some(i));
        view! {
            <button type="button" class=format!("band band-{}", b.part.name())
                class:picked=move || picked.get() == Some(i)
                data-part=b.part.name() data-path=b.path.clone().unwrap_or_default()
                data-tokens=b.tokens.to_string() data-index=i.to_string() data-files=s.files.to_string()
                style:flex-grow=b.tokens.max(1).to_string()
                aria-label=title.clone() title=title
                on:mouseenter=move |_| select() on:focus=move |_| select() on:click=move |_| select()>
                <span class="band-label" aria-hidden="true">{if s.files > 1 { format!("{} files", s.files) } else { short_label(b) }}</span>
            </button>
        }
    }).collect_view();
    let mark_views = marks.iter().map(|m| {
        let left = 100.0 * m.token as f64 / total;
        view! {
            <span class="anatomy-mark" data-artifact=m.artifact.name() style:left=format!("{left:.2}%")
                title=explain(m.artifact) aria-hidden="true">"▼"</span>
        }
    }).collect_view();
    let mark_list = (!marks.is_empty()).then(|| view! {
        <ul id="anatomy-marks-list" class="anatomy-marks-list">
            {marks.iter().map(|m| view! {
                <li data-artifact=m.artifact.name() data-token=m.token.to_string()>
                    <strong>{format!("▼ {}", m.artifact.name())}</strong>
                    {format!(" at about token {} of the prompt: {}", thousands(m.token), m.artifact.explain())}
                </li>
            }).collect_view()}
        </ul>
    });
    let no_marks = (marks.is_empty() && shown.audit.is_some()).then(|| view! {
        <p class="pass small" id="anatomy-no-marks">"No artifact of the construction marks this needle's place."</p>
    });
    let ids = (a.tokens_of(Part::Instruction), t.code_context_ntokens);
    let prompt_for_band = prompt.clone();
    view! {
        <div id="anatomy-view" data-before=before.to_string() data-needle=needle.to_string()
            data-after=after.to_string() data-context=ids.1.to_string()
            data-instruction=ids.0.to_string() data-total=a.total_tokens.to_string()
            data-rebuilt=shown.rebuilt.is_some().to_string()
            data-position-ratio=t.position_ratio.to_string()
            data-needle-start=t.needle_token_start.to_string() data-needle-end=t.needle_token_end.to_string()
            data-ntokens=t.code_context_ntokens.to_string()>
            {rebuilt_note}
            <p id="anatomy-summary">{summary}</p>
            <div class="anatomy-track">
                <div class="anatomy-marks">{mark_views}</div>
                <span class="anatomy-aim" id="anatomy-aim" data-aimed=format!("{:.0}", depth.aimed_middle)
                    style:left=format!("{:.2}%", 100.0 * aim_token / total) title=aim_title aria-hidden="true"></span>
                <div class="anatomy-strip" id="anatomy-strip" role="group" aria-label="the prompt's parts, to scale">{band_views}</div>
            </div>
            <p class="anatomy-legend small muted">
                <span><span class="key band-instruction"></span>" instruction"</span>
                <span><span class="key band-file"></span>" a file of the repository"</span>
                <span><span class="key band-needle"></span>" the needle"</span>
                <span><span class="key band-description"></span>" description"</span>
                <span><span class="anatomy-mark-key">"▼"</span>" an artifact that marks the needle"</span>
                <span><span class="anatomy-aim-key"></span>" where the depth aims the needle's middle (ratio × window)"</span>
            </p>
            {mark_list}
            {no_marks}
            {move || picked.get().and_then(|i| bands.get(i).cloned()).map(|s| {
                let label = strip_label(&s);
                let b = s.band;
                let text = prompt_for_band.get(b.bytes.clone()).unwrap_or_default();
                let (head, left) = shown_text(text);
                view! {
                    <div id="anatomy-band" data-part=b.part.name() data-tokens=b.tokens.to_string()>
                        <p><strong>{label}</strong>{format!(
                            ": {} tokens, tokens {}–{} of the prompt ({:.1}%–{:.1}%)",
                            thousands(b.tokens), thousands(b.first_token), thousands(b.first_token + b.tokens),
                            100.0 * b.first_token as f64 / total, 100.0 * (b.first_token + b.tokens) as f64 / total
                        )}</p>
                        <pre class="prompt anatomy-text" tabindex="0" aria-label="the band's text">{head}</pre>
                        {(left > 0).then(|| view! { <p class="muted small">{format!("… and {} more characters (the whole prompt is below).", thousands(left))}</p> })}
                    </div>
                }
            })}
            <details id="anatomy-task-line">
                <summary>"This task as a line of "<code>"repoqa prompts"</code></summary>
                <p class="small"><code id="anatomy-command">{cmd}</code></p>
                <pre class="prompt" id="anatomy-jsonl" tabindex="0" aria-label="the task as JSON">{line}</pre>
            </details>
        </div>
    }
}
