//! The settings panel: which languages and repos, the context size, the
//! comment mode, the pass threshold and the tokenizer. Settings are saved
//! in IndexedDB on every change; the ones that change prompts are part of
//! the tasks cache key (`prompt_key`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use repoqa::context::{CommentMode, ContextOptions};
use repoqa::lang::Language;
use serde_json::{json, Value};
use wasm_bindgen::JsCast;

use super::state::{use_state, AppState, Settings};
use super::{build, storage};

/// Settings as stored (JSON).
pub fn to_json(s: &Settings) -> String {
    json!({
        "languages": s.languages,
        "excluded_repos": s.excluded_repos,
        "code_context_size": s.code_context_size,
        "comment_mode": s.comment_mode.as_str(),
        "threshold": s.threshold,
        "tokenizer_source": s.tokenizer_source,
    })
    .to_string()
}

/// Stored settings; a missing or malformed field keeps its default (an old
/// or hand-edited record never blocks the app).
pub fn from_json(text: &str) -> Settings {
    let mut s = Settings::default();
    let Ok(Value::Object(m)) = serde_json::from_str::<Value>(text) else { return s };
    let strings = |v: Option<&Value>| -> Option<Vec<String>> {
        Some(v?.as_array()?.iter().filter_map(|x| x.as_str().map(String::from)).collect())
    };
    if let Some(v) = strings(m.get("languages")) {
        s.languages = v;
    }
    if let Some(v) = strings(m.get("excluded_repos")) {
        s.excluded_repos = v;
    }
    if let Some(n) = m.get("code_context_size").and_then(Value::as_u64).filter(|&n| n > 0) {
        s.code_context_size = n as usize;
    }
    if let Some(mode) =
        m.get("comment_mode").and_then(Value::as_str).and_then(|x| x.parse::<CommentMode>().ok())
    {
        s.comment_mode = mode;
    }
    if let Some(t) = m.get("threshold").and_then(Value::as_f64).filter(|t| (0.0..=1.0).contains(t))
    {
        s.threshold = t;
    }
    if let Some(t) = m.get("tokenizer_source").and_then(Value::as_str) {
        s.tokenizer_source = t.to_string();
    }
    s
}

/// The settings that change the prompts, as a cache-key part.
pub fn prompt_key(s: &Settings) -> String {
    let mut langs = s.languages.clone();
    langs.sort();
    let mut repos = s.excluded_repos.clone();
    repos.sort();
    format!(
        "ctx={};mode={};langs={};skip={}",
        s.code_context_size,
        s.comment_mode,
        langs.join(","),
        repos.join(",")
    )
}

/// Options of the context builder for these settings (the official
/// defaults otherwise: K5 reproduced, NULs kept as upstream HEAD does).
pub fn context_options(s: &Settings) -> ContextOptions {
    ContextOptions {
        code_context_size: s.code_context_size,
        comment_mode: s.comment_mode,
        ..ContextOptions::default()
    }
}

/// The selected languages (None = all), as `task_specs` takes them.
pub fn selected_languages(s: &Settings) -> Option<Vec<Language>> {
    if s.languages.is_empty() {
        None
    } else {
        Some(s.languages.iter().filter_map(|l| Language::from_name(l).ok()).collect())
    }
}

/// Change the settings and save them.
pub fn update(state: AppState, f: impl FnOnce(&mut Settings)) {
    state.settings.update(f);
    let text = to_json(&state.settings.get_untracked());
    spawn_local(async move {
        if let Err(e) = storage::save_json(storage::KEY_SETTINGS, &text).await {
            web_sys::console::warn_1(&format!("settings not saved: {e}").into());
        }
    });
}

fn input_value(ev: &leptos::ev::Event) -> String {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .map(|i| i.value())
        .unwrap_or_default()
}

fn input_checked(ev: &leptos::ev::Event) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .is_some_and(|i| i.checked())
}

#[component]
pub fn SettingsPanel() -> impl IntoView {
    let state = use_state();
    let settings = state.settings;
    let ctx_error = RwSignal::new(None::<String>);
    let tok_url = RwSignal::new(String::new());
    let tok_message = RwSignal::new(None::<Result<String, String>>);

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
        update(state, |s| {
            let mut chosen: Vec<String> =
                if s.languages.is_empty() { all.clone() } else { s.languages.clone() };
            chosen.retain(|l| *l != lang);
            if on {
                chosen.push(lang);
            }
            // Keep file order; "all" is stored as empty.
            let ordered: Vec<String> = all.iter().filter(|l| chosen.contains(l)).cloned().collect();
            s.languages = if ordered.len() == all.len() { Vec::new() } else { ordered };
        });
    };
    let toggle_repo = move |key: String, on: bool| {
        update(state, |s| {
            s.excluded_repos.retain(|r| *r != key);
            if !on {
                s.excluded_repos.push(key);
            }
        });
    };

    let load_tokenizer_url = move || {
        let url = tok_url.get_untracked().trim().to_string();
        if url.is_empty() {
            tok_message.set(Some(Err("Enter the URL of a tokenizer.json.".into())));
            return;
        }
        spawn_local(async move {
            tok_message.set(Some(Ok(format!("Loading {url}…"))));
            match build::use_tokenizer_from_url(state, &url).await {
                Ok(msg) => tok_message.set(Some(Ok(msg))),
                Err(e) => tok_message.set(Some(Err(e))),
            }
        });
    };
    let on_tok_file = move |ev: leptos::ev::Event| {
        let file = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .and_then(|i| i.files())
            .and_then(|f| f.get(0));
        let Some(file) = file else { return };
        spawn_local(async move {
            tok_message.set(Some(Ok(format!("Reading {}…", file.name()))));
            match build::use_tokenizer_from_file(state, file).await {
                Ok(msg) => tok_message.set(Some(Ok(msg))),
                Err(e) => tok_message.set(Some(Err(e))),
            }
        });
    };
    let use_builtin = move |_| {
        build::use_builtin_tokenizer(state);
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
                            let lang_on = move || settings.with(|s| s.languages.is_empty() || s.languages.contains(&l1));
                            let l2 = lang.clone();
                            view! {
                                <details class="lang-block">
                                    <summary>
                                        <label>
                                            <input type="checkbox" class="lang-check" data-lang=lang.clone()
                                                prop:checked=lang_on
                                                on:change=move |ev| toggle_language(l2.clone(), input_checked(&ev), all.clone()) />
                                            {lang.clone()}
                                        </label>
                                        <span class="muted">{format!(" ({} repos)", repos.len())}</span>
                                    </summary>
                                    <ul class="repo-list">
                                        {repos.into_iter().map(|(repo, needles)| {
                                            let key = format!("{lang}::{repo}");
                                            let k1 = key.clone();
                                            let on = move || settings.with(|s| !s.excluded_repos.contains(&k1));
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
                            }
                        }).collect_view().into_any()
                    }}
                </fieldset>
                <fieldset>
                    <legend>"Prompts"</legend>
                    <label>"Context size (tokens) "
                        <input id="ctx-size" type="number" min="1" step="1"
                            prop:value=move || settings.with(|s| s.code_context_size.to_string())
                            on:change=move |ev| {
                                match input_value(&ev).trim().parse::<usize>() {
                                    Ok(n) if n > 0 => { ctx_error.set(None); update(state, |s| s.code_context_size = n); }
                                    _ => ctx_error.set(Some("The context size must be a whole number of tokens above 0.".into())),
                                }
                            } />
                    </label>
                    <span class="muted">" default 16384"</span>
                    {move || ctx_error.get().map(|e| view! { <p class="fail">{e}</p> })}
                    <p>
                        <label>"Comments in the context "
                            <select id="comment-mode" on:change=move |ev| {
                                let v = ev.target()
                                    .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                                    .map(|s| s.value()).unwrap_or_default();
                                if let Ok(mode) = v.parse::<CommentMode>() { update(state, |s| s.comment_mode = mode); }
                            }>
                                {CommentMode::ALL.into_iter().map(|m| view! {
                                    <option value=m.as_str() selected=move || settings.with(|s| s.comment_mode == m)>{m.as_str()}</option>
                                }).collect_view()}
                            </select>
                        </label>
                    </p>
                    <p class="note">"none = PyPI repoqa 0.1.2 (the published results). positional_padding and no_padding remove comments; they exist only in upstream HEAD (GitHub), not in the released package."</p>
                </fieldset>
                <fieldset>
                    <legend>"Scoring"</legend>
                    <label>"Pass threshold "
                        <input id="threshold" type="number" min="0" max="1" step="0.05"
                            prop:value=move || settings.with(|s| s.threshold.to_string())
                            on:change=move |ev| {
                                if let Ok(t) = input_value(&ev).trim().parse::<f64>() {
                                    if (0.0..=1.0).contains(&t) { update(state, |s| s.threshold = t); }
                                }
                            } />
                    </label>
                    <span class="muted">" default 0.8"</span>
                </fieldset>
                <fieldset>
                    <legend>"Tokenizer"</legend>
                    <p>"Current: " <code id="tokenizer-source">{move || settings.with(|s| s.tokenizer_source.clone())}</code></p>
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
                        Err(e) => view! { <p class="fail" id="tokenizer-message">{e}</p> }.into_any(),
                    })}
                </fieldset>
            </div>
        </section>
    }
}
