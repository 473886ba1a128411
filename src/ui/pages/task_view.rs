//! The view of one task: the full prompt as text with the needle
//! highlighted, where it sits, its token counts, copy, and the answer box.
//!
//! Locating the needle in the prompt (asked of the compute engine, with the
//! task's audit: `repoqa::engine::Request::Locate`): the core's
//! `context::locate_needle` looks for the needle as the builder writes it (sliced as P3 says, and
//! with its comments removed as K3 does in the cleaning modes), nearest to
//! `needle_token_start / code_context_ntokens`; crates/repoqa/tests/it/needle_placement.rs
//! checks it finds the builder's own placement in every mode.

use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

use repoqa::engine::{Reply, Request};
use repoqa::prompt::audit::TaskAudit;
use repoqa::prompt::context::CommentMode;
use repoqa::report::Task;

use crate::ui::browser::clipboard;
use crate::ui::browser::dom::{scroll_to, set_hash};
use crate::ui::browser::engine;
use crate::ui::components::anatomy_strip::AnatomyStrip;
use crate::ui::components::answer_box::AnswerBox;
use crate::ui::components::markdown::Markdown;
use crate::ui::components::reasoning_fold::ReasoningFold;
use crate::ui::components::tour::tour_running;
use crate::ui::error::UiError;
use crate::ui::state::route::task_href;
use crate::ui::state::{use_state, AppState};

/// Where the needle is in `task.code_context` (byte range), and how it was
/// found.
#[derive(Clone, Debug, PartialEq)]
pub struct NeedleSpan {
    pub start: usize,
    pub end: usize,
    pub how: &'static str,
}

/// What the compute engine says of a shown task: where the builder put
/// the needle (`repoqa::prompt::context::locate_needle_any_mode`: the needle as
/// the builder writes it, cleaned in the cleaning modes; the mode the tasks
/// were built in first, then the others, for tasks shown after a settings
/// change) and the task's audit (`None` each: not found).
#[derive(Clone, Debug)]
struct Placed {
    span: Option<NeedleSpan>,
    audit: Option<TaskAudit>,
}

async fn place(state: AppState, task: Arc<Task>) -> Result<Placed, UiError> {
    let Some(loaded) = state.dataset.get_untracked() else {
        return Ok(Placed { span: None, audit: None });
    };
    let mode = state.settings.with_untracked(|s| s.build.comment_mode);
    let dataset = engine::dataset(&loaded.dataset, &loaded.origin).await?;
    match engine::call(&Request::Locate { dataset, mode, task: Box::new((*task).clone()) }).await? {
        Reply::Locate { needle, audit } => Ok(Placed {
            span: needle.map(|n| NeedleSpan {
                start: n.start,
                end: n.end,
                how: if n.mode == CommentMode::None { "exact" } else { "as cleaned" },
            }),
            audit,
        }),
        _ => Err(UiError::invalid("the engine answered another question than where the needle is")),
    }
}

/// Whether a key press belongs to what has the focus (typing, a list, a
/// scrolling code block) rather than to the page.
fn key_is_taken(ev: &leptos::ev::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    if ev.alt_key() || ev.ctrl_key() || ev.meta_key() || ev.shift_key() {
        return true;
    }
    let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
        return false;
    };
    matches!(el.tag_name().to_ascii_lowercase().as_str(), "input" | "textarea" | "select" | "pre")
        || el.closest("[contenteditable], .table-scroll, .tokens, svg").ok().flatten().is_some()
}

#[component]
pub fn TaskView(id: String) -> impl IntoView {
    let state = use_state();
    let copied = RwSignal::new(None::<Result<String, UiError>>);
    // The previous and next task by keyboard (← →), as the links do.
    let keys_id = id.clone();
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let step: isize = match ev.key().as_str() {
            "ArrowLeft" => -1,
            "ArrowRight" => 1,
            _ => return,
        };
        if key_is_taken(&ev) || tour_running() {
            return;
        }
        let target = state.tasks.with_untracked(|ts| {
            let i = ts.iter().position(|t| t.task_id() == keys_id)? as isize + step;
            ts.get(usize::try_from(i).ok()?).map(|t| t.task_id())
        });
        if let Some(t) = target {
            ev.prevent_default();
            set_hash(&task_href(&t));
        }
    });
    on_cleanup(move || keys.remove());
    let id_for_find = id.clone();
    let found = move || {
        let index = state.tasks.with(|ts| ts.iter().position(|t| t.task_id() == id_for_find))?;
        let task = state.tasks.with(|ts| ts[index].clone());
        let total = state.tasks.with(|ts| ts.len());
        Some((index, total, task))
    };
    view! {
        {move || match found() {
            None => view! {
                <section class="card" id="task-view" data-found="false">
                    <h2>"Task not found"</h2>
                    <p>{format!("There is no built task {:?}. ", id)} <a href="#tasks">"Back to the tasks"</a></p>
                </section>
            }.into_any(),
            Some((index, total, task)) => {
                // The needle's place and the audit come from the engine;
                // until then the prompt is shown without its mark.
                let placed = LocalResource::new({
                    let task = task.clone();
                    move || {
                        state.dataset.track();
                        place(state, task.clone())
                    }
                });
                let span = move || placed.get().and_then(Result::ok).and_then(|p| p.span);
                let found_state = move || match placed.get() {
                    None => "pending",
                    Some(Err(_)) => "error",
                    Some(Ok(p)) if p.span.is_some() => "true",
                    Some(Ok(_)) => "false",
                };
                let prompt = task.prompt();
                let marked = {
                    let task = task.clone();
                    move || {
                        let ctx = task.code_context.as_str();
                        let (before, needle, after) = match span() {
                            Some(s) => (&ctx[..s.start], &ctx[s.start..s.end], &ctx[s.end..]),
                            None => (ctx, "", ""),
                        };
                        let head = format!("{}{}", task.instruction, before);
                        let tail = format!("{}{}{}", after, task.description, task.instruction);
                        view! { {head}<mark id="needle">{needle.to_string()}</mark>{tail} }
                    }
                };
                let start_pct = if task.code_context_ntokens > 0 { task.needle_token_start as f64 * 100.0 / task.code_context_ntokens as f64 } else { 0.0 };
                let end_pct = if task.code_context_ntokens > 0 { task.needle_token_end as f64 * 100.0 / task.code_context_ntokens as f64 } else { 0.0 };
                let prev = (index > 0).then(|| state.tasks.with(|ts| ts[index - 1].task_id()));
                let next = (index + 1 < total).then(|| state.tasks.with(|ts| ts[index + 1].task_id()));
                let copy_text = prompt.clone();
                let copy = move |_| {
                    let text = copy_text.clone();
                    spawn_local(async move {
                        let r = clipboard::write_text(&text)
                            .await
                            .map(|_| format!("Copied {} characters.", text.chars().count()));
                        copied.set(Some(r));
                    });
                };
                let jump = move |_| scroll_to("needle");
                let task_id = task.task_id();
                // Why the ratio and the needle's tokens differ, in words
                // (`repoqa::prompt::context::depth`), with the budget it was built for.
                let budget = state.tasks_settings.with(|b| b.as_ref().map(|b| b.code_context_size))
                    .unwrap_or_else(|| state.settings.with(|s| s.build.code_context_size));
                let depth_words = repoqa::prompt::context::depth::Depth::of(&task, budget).words();
                view! {
                    <section class="card" id="task-view" data-found="true" data-task-id=task_id.clone()
                        data-needle-found=found_state
                        data-needle-how=move || span().map(|s| s.how).unwrap_or("none")>
                        <p class="crumbs"><a href="#tasks">"← Tasks"</a>
                            {format!("  ·  task {} of {total}  ·  ", index + 1)}
                            {prev.map(|p| view! { <a href=task_href(&p) id="prev-task">"previous"</a> })}
                            " "
                            {next.map(|n| view! { <a href=task_href(&n) id="next-task">"next"</a> })}
                            <span class="muted small">"  (keys ← →)"</span>
                        </p>
                        <h2>{task.name.clone()}</h2>
                        <dl class="facts">
                            <dt>"Task id"</dt><dd><code>{task_id.clone()}</code></dd>
                            <dt>"File"</dt><dd><code>{task.path.clone()}</code></dd>
                            <dt>"Depth (position_ratio)"</dt><dd id="position-ratio">{format!("{}", task.position_ratio)}</dd>
                            <dt>"Needle tokens"</dt><dd id="needle-tokens">{format!("{} … {} of {} context tokens ({:.1}% – {:.1}%)",
                                task.needle_token_start, task.needle_token_end, task.code_context_ntokens, start_pct, end_pct)}</dd>
                            <dt>"Prompt"</dt><dd>{format!("{} characters", prompt.chars().count())}</dd>
                        </dl>
                        <div class="depth" title="Where the needle sits in the code context (by tokens)">
                            <div class="depth-needle" style:left=format!("{start_pct:.2}%")
                                style:width=format!("{:.2}%", (end_pct - start_pct).max(0.5))></div>
                            <div class="depth-ratio" style:left=format!("{:.2}%", task.position_ratio * 100.0)></div>
                        </div>
                        <p class="muted small">"Bar: the code context by tokens; blue = the needle, line = position_ratio."</p>
                        <p class="note" id="depth-words">{depth_words}</p>
                        <div class="desc" id="task-description"><strong>"Description"</strong>
                            <Markdown text=task.description.trim().to_string()/></div>
                        <p>
                            <button type="button" id="copy-prompt" on:click=copy>"Copy prompt"</button>
                            " "
                            <button type="button" id="jump-needle" on:click=jump disabled=move || span().is_none()>"Go to the needle"</button>
                            {move || copied.get().map(|r| match r {
                                Ok(m) => view! { <span class="pass" id="copy-status">" " {m}</span> }.into_any(),
                                Err(e) => view! { <span class="fail" id="copy-status">" " {e.to_string()}</span> }.into_any(),
                            })}
                        </p>
                        {move || match placed.get() {
                            Some(Ok(p)) if p.span.is_none() => Some(view! {
                                <p class="fail" id="needle-missing">"The needle's text was not found in this context (the comment-cleaning modes change it), so it is not highlighted."</p>
                            }.into_any()),
                            Some(Err(e)) => Some(view! {
                                <p class="fail" id="needle-error">{format!("Where the needle is could not be found out: {e}")}</p>
                            }.into_any()),
                            _ => None,
                        }}
                        <AnatomyStrip task=task.clone()/>
                        <TaskAuditBlock task=task.clone() placed=placed/>
                        <AnswerSlot task_id=task_id.clone()/>
                        <h3>"Prompt"</h3>
                        <pre id="prompt" class="prompt" tabindex="0" aria-label="the prompt">{marked}</pre>
                    </section>
                }.into_any()
            }
        }}
    }
}

/// The audit of this task (`repoqa::prompt::audit`, computed by the engine): which
/// artifacts of the prompt construction mark its needle, each with its spot
/// highlighted, as text.
#[component]
fn TaskAuditBlock(
    task: Arc<Task>,
    placed: LocalResource<Result<Placed, UiError>>,
) -> impl IntoView {
    let protocol = task.protocol;
    let audit = move || placed.get().map(|r| r.map(|p| p.audit));
    let ctx = task.code_context.clone();
    let stage = move || match audit() {
        None => "pending",
        Some(Err(_)) => "error",
        Some(Ok(_)) => "done",
    };
    let names = move || match audit() {
        Some(Ok(Some(a))) => a.artifacts().iter().map(|x| x.name()).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    };
    let body = move || {
        match audit() {
        None => view! { <p class="muted" id="task-audit-pending">"Auditing this prompt in the compute engine…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="fail" id="task-audit-error">{format!("The audit could not be made: {e}")}</p> }.into_any(),
        Some(Ok(None)) => view! { <p class="muted" id="audit-missing">"The audit needs the needle in the loaded dataset and in this context; it was not found."</p> }.into_any(),
        Some(Ok(Some(a))) if a.findings.is_empty() => view! {
            <p class="pass" id="audit-clean">{format!("No artifact: nothing in this prompt marks the needle's place ({} prompts).", protocol)}</p>
        }.into_any(),
        Some(Ok(Some(a))) => {
            let ctx = ctx.clone();
            view! {
                <p>{format!("{} of the {} construction {} the needle's place; a reader could find it without the description:",
                    crate::ui::format::count(a.findings.len(), "artifact", "artifacts"), protocol,
                    if a.findings.len() == 1 { "marks" } else { "mark" })}</p>
                <ul class="audit-findings">
                    {a.findings.into_iter().map(|f| {
                        let (before, spot, after) = repoqa::prompt::audit::excerpt(&ctx, &f.spot, 60);
                        view! {
                            <li class="audit-finding" data-artifact=f.artifact.name()>
                                <strong>{f.artifact.name()}</strong>
                                {format!(" ({}): {}", f.artifact.parity_id(), f.artifact.explain())}
                                <pre class="prompt audit-excerpt" tabindex="0" aria-label="where the artifact is">{before}<mark class="artifact">{spot}</mark>{after}</pre>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            }.into_any()
        }
    }
    };
    view! {
        <div id="task-audit" class="audit" data-artifacts=names data-state=stage data-protocol=protocol.as_str()>
            <h3>"Audit"</h3>
            {(!protocol.is_official()).then(|| view! {
                <p class="warning">"Built with the corrected protocol: NOT OFFICIAL, not comparable with published scores."</p>
            })}
            {body}
        </div>
    }
}

/// Where the answer box goes.
#[component]
fn AnswerSlot(task_id: String) -> impl IntoView {
    view! {
        <div id="answer-slot" data-task-id=task_id.clone()>
            <AnswerBox task_id=task_id.clone()/>
            <ReasoningFold task_id=task_id.clone() prefix="task"/>
        </div>
    }
}
