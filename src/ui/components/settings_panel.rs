//! The settings panel: which languages and repos, the context size, the
//! comment mode, the pass threshold and the tokenizer (`state::settings`
//! saves every change; `jobs::tokenizer` loads another tokenizer).

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::prompt::context::{CommentMode, DEFAULT_CODE_CONTEXT_SIZE, MINI_CODE_CONTEXT_SIZE};
use repoqa::report::Protocol;

use crate::ui::browser::dom::{
    picked_files, target_checked as input_checked, target_value as input_value,
};
use crate::ui::error::UiError;
use crate::ui::jobs::{tokenizer, use_runner};
use crate::ui::state::settings::update;
use crate::ui::state::use_state;

#[component]
pub fn SettingsPanel() -> impl IntoView {
    let state = use_state();
    let runner = use_runner();
    let settings = state.settings;
    let ctx_error = RwSignal::new(None::<String>);
    let tok_url = RwSignal::new(String::new());
    let tok_message = RwSignal::new(None::<Result<String, UiError>>);

    // Languages and repos of the loaded dataset, in file order.
    let catalog = move || {
        state.dataset.with(|d| {
            d.as_ref()
                .map(|d| {
                    d.dataset
                        .languages
                        .iter()
                        .map(|(lang, repos)| {
                            let names: Vec<(String, usize)> =
                                repos.iter().map(|r| (r.repo.clone(), r.needles.len())).collect();
                            (lang.clone(), names)
                        })
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    };

    let toggle_language = move |lang: String, on: bool, all: Vec<String>| {
        update(state.settings, |s| {
            let mut chosen: Vec<String> = if s.build.filter.languages.is_empty() {
                all.clone()
            } else {
                s.build.filter.languages.clone()
            };
            chosen.retain(|l| *l != lang);
            if on {
                chosen.push(lang);
            }
            // Keep file order; "all" is stored as empty.
            let ordered: Vec<String> = all.iter().filter(|l| chosen.contains(l)).cloned().collect();
            s.build.filter.languages =
                if ordered.len() == all.len() { Vec::new() } else { ordered };
        });
    };
    let toggle_repo = move |key: String, on: bool| {
        update(state.settings, |s| {
            s.build.filter.excluded_repos.retain(|r| *r != key);
            if !on {
                s.build.filter.excluded_repos.push(key);
            }
        });
    };

    let load_tokenizer_url = move || {
        let url = tok_url.get_untracked().trim().to_string();
        if url.is_empty() {
            tok_message.set(Some(Err(UiError::invalid("Enter the URL of a tokenizer.json."))));
            return;
        }
        spawn_local(async move {
            tok_message.set(Some(Ok(format!("Loading {url}…"))));
            tok_message.set(Some(tokenizer::use_url(state, runner, url).await));
        });
    };
    let on_tok_file = move |ev: leptos::ev::Event| {
        let Some(file) = picked_files(&ev).1.into_iter().next() else { return };
        spawn_local(async move {
            tok_message.set(Some(Ok(format!("Reading {}…", file.name()))));
            tok_message.set(Some(tokenizer::use_file(state, runner, file).await));
        });
    };
    let use_builtin = move |_| {
        tokenizer::use_builtin(state);
        tok_message.set(Some(Ok("Using the built-in tokenizer.".into())));
    };

    view! {
        <section class="card" id="settings">
            <h2>"Settings"</h2>
            <div class="settings-grid">
                <fieldset>
                    <legend>"Languages and repos"</legend>
                    {move || {
                        let cat = catalog();
                        if cat.is_empty() {
                            return view! { <p class="muted">"Load a dataset first."</p> }.into_any();
                        }
                        let all: Vec<String> = cat.iter().map(|(l, _)| l.clone()).collect();
                        cat.into_iter().map(|(lang, repos)| {
                            let all = all.clone();
                            let l1 = lang.clone();
                            let lang_on = move || settings.with(|s| s.build.filter.languages.is_empty() || s.build.filter.languages.contains(&l1));
                            let l2 = lang.clone();
                            view! {
                                // The language's checkbox beside its disclosure, not
                                // inside the <summary> (a control in a control).
                                <div class="lang-block">
                                    <label>
                                        <input type="checkbox" class="lang-check" data-lang=lang.clone()
                                            prop:checked=lang_on
                                            on:change=move |ev| toggle_language(l2.clone(), input_checked(&ev), all.clone()) />
                                        {lang.clone()}
                                    </label>
                                    <details class="lang-repos">
                                    <summary class="muted">{crate::ui::format::count(repos.len(), "repo", "repos")}</summary>
                                    <ul class="repo-list">
                                        {repos.into_iter().map(|(repo, needles)| {
                                            let key = format!("{lang}::{repo}");
                                            let k1 = key.clone();
                                            let on = move || settings.with(|s| !s.build.filter.excluded_repos.contains(&k1));
                                            view! {
                                                <li><label>
                                                    <input type="checkbox" class="repo-check" data-repo=key.clone()
                                                        prop:checked=on
                                                        on:change=move |ev| toggle_repo(key.clone(), input_checked(&ev)) />
                                                    {repo}<span class="muted">{format!(" — {needles} needles")}</span>
                                                </label></li>
                                            }
                                        }).collect_view()}
                                    </ul>
                                    </details>
                                </div>
                            }
                        }).collect_view().into_any()
                    }}
                </fieldset>
                <fieldset>
                    <legend>"Prompts"</legend>
                    <label>"Context size (tokens) "
                        <input id="ctx-size" type="number" min="1" step="1"
                            prop:value=move || settings.with(|s| s.build.code_context_size.to_string())
                            on:change=move |ev| {
                                match repoqa::prompt::settings::parse_context_size(&input_value(&ev)) {
                                    Ok(n) => { ctx_error.set(None); update(state.settings, |s| s.build.code_context_size = n); }
                                    Err(e) => ctx_error.set(Some(format!("{e}."))),
                                }
                            } />
                    </label>
                    <span class="muted">" default 16384"</span>
                    {move || ctx_error.get().map(|e| view! { <p class="fail">{e}</p> })}
                    <p class="row wrap" id="ctx-presets">
                        <button type="button" id="ctx-official"
                            aria-pressed=move || settings.with(|s| (s.build.code_context_size == DEFAULT_CODE_CONTEXT_SIZE).to_string())
                            on:click=move |_| { ctx_error.set(None); update(state.settings, |s| s.build.code_context_size = DEFAULT_CODE_CONTEXT_SIZE); }>
                            "RepoQA: 16,384"
                        </button>
                        <button type="button" id="ctx-mini"
                            aria-pressed=move || settings.with(|s| (s.build.code_context_size == MINI_CODE_CONTEXT_SIZE).to_string())
                            on:click=move |_| { ctx_error.set(None); update(state.settings, |s| s.build.code_context_size = MINI_CODE_CONTEXT_SIZE); }>
                            "Mini-SNF: 2,048"
                        </button>
                    </p>
                    <p class="note" id="ctx-mini-note">"Mini-SNF: the same official construction with 2,048 tokens of code, so a small model "
                        "(an 8k window) sees whole prompts; equal to "<code>"repoqa prompts --code-context-size 2048"</code>
                        ". A way to watch a small model do the task, not a leaderboard entry: its scores are not comparable with RepoQA's published 16k results."</p>
                    <p>
                        <label>"Comments in the context "
                            <select id="comment-mode" on:change=move |ev| {
                                let v = input_value(&ev);
                                if let Ok(mode) = v.parse::<CommentMode>() { update(state.settings, |s| s.build.comment_mode = mode); }
                            }>
                                {CommentMode::ALL.iter().copied().map(|m| view! {
                                    <option value=m.as_str() selected=move || settings.with(|s| s.build.comment_mode == m)>{m.as_str()}</option>
                                }).collect_view()}
                            </select>
                        </label>
                    </p>
                    <p class="note">"none = PyPI repoqa 0.1.2 (the published results). positional_padding and no_padding remove comments; they exist only in upstream HEAD (GitHub), not in the released package."</p>
                    <p>
                        <label>"Prompt construction "
                            <select id="protocol" on:change=move |ev| {
                                let v = input_value(&ev);
                                if let Ok(p) = v.parse::<Protocol>() { update(state.settings, |s| s.build.protocol = p); }
                            }>
                                {Protocol::ALL.iter().copied().map(|p| view! {
                                    <option value=p.as_str() selected=move || settings.with(|s| s.build.protocol == p)>{p.label()}</option>
                                }).collect_view()}
                            </select>
                        </label>
                    </p>
                    <p class="note">"official = the harness's construction, quirks included: its prompts mark the needle (see a task's audit). corrected = the same tasks without those marks (needle cut at the right characters, no inserted line break, the cleaning-mode suffix from the right files): NOT OFFICIAL, its scores are not comparable with published ones."</p>
                    <p class="note">"no-context = a control: each official task without its code (the instruction and the description only), to measure what a model answers from memory alone; compare its run with the real one on the Leaderboard page."</p>
                    {move || settings.with(|s| (!s.build.protocol.is_official()).then(|| s.build.protocol.label())).map(|l| view! {
                        <p class="warning" id="protocol-warning">{format!("Selected: {l}. Tasks, answers and scores made now are not comparable with published scores.")}</p>
                    })}
                </fieldset>
                <fieldset>
                    <legend>"Scoring"</legend>
                    <label>"Pass threshold "
                        <input id="threshold" type="number" min="0" max="1" step="0.05"
                            prop:value=move || settings.with(|s| s.threshold.to_string())
                            on:change=move |ev| {
                                if let Ok(t) = input_value(&ev).trim().parse::<f64>() {
                                    if (0.0..=1.0).contains(&t) { update(state.settings, |s| s.threshold = t); }
                                }
                            } />
                    </label>
                    <span class="muted">" default 0.8"</span>
                </fieldset>
                <fieldset>
                    <legend>"Tokenizer"</legend>
                    <p>"Current: " <code id="tokenizer-source">{move || settings.with(|s| s.build.tokenizer_source.clone())}</code></p>
                    <p><button type="button" id="tokenizer-builtin" on:click=use_builtin>"Built-in (CodeLlama vocabulary)"</button></p>
                    <p>
                        <input type="url" id="tokenizer-url" placeholder="https://…/tokenizer.json"
                            prop:value=move || tok_url.get()
                            on:input=move |ev| tok_url.set(input_value(&ev)) />
                        <button type="button" id="load-tokenizer-url" on:click=move |_| load_tokenizer_url()>"Load URL"</button>
                    </p>
                    <p><label>"or a file: " <input type="file" id="tokenizer-file" accept=".json,application/json" on:change=on_tok_file /></label></p>
                    {move || tok_message.get().map(|m| match m {
                        Ok(t) => view! { <p class="muted" id="tokenizer-message">{t}</p> }.into_any(),
                        Err(e) => view! { <p class="fail" id="tokenizer-message">{e.to_string()}</p> }.into_any(),
                    })}
                </fieldset>
            </div>
        </section>
    }
}
