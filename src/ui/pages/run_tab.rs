//! The Run page's "In this tab": the model the page runs itself. Pick a
//! GGUF file, fetch one from an address that allows this page, or use one
//! kept in this browser; its size and what it says of itself are shown
//! before anything loads; the window; Load (kept in this browser on the
//! way, unless unticked); what was loaded and how fast it answers. The
//! engine is fetched only on Load (`jobs::tab_model`); the runner then asks
//! it like any server.

use leptos::prelude::*;
use repoqa::llm::gguf::GgufInfo;
use repoqa::llm::in_tab;

use crate::ui::browser::model_store::{self, Kept};
use crate::ui::browser::offline;
use crate::ui::format;
use crate::ui::jobs::run::use_model_run;
use crate::ui::jobs::tab_model;
use crate::ui::state::run::{use_run_state, TabModel};

/// The model in this tab: pick a GGUF file (its size shown, or why it is
/// refused, before anything is loaded), the window, Load; what was loaded
/// and how many threads it runs on. The engine is fetched only on Load
/// (`jobs::tab_model`); the runner then asks it like any server.
#[component]
pub fn TabModelSettings() -> impl IntoView {
    let rs = use_run_state();
    let busy = move || use_model_run().runner.busy();
    // The file to load, and whether it is the copy kept in this browser.
    let picked = RwSignal::new_local(None::<web_sys::File>);
    let from_store = RwSignal::new(false);
    let keep = RwSignal::new(true);
    let kept = RwSignal::new(Vec::<Kept>::new());
    let storage = RwSignal::new(None::<String>);
    let url = RwSignal::new(String::new());
    let refresh = move || {
        leptos::task::spawn_local(async move {
            match model_store::list().await {
                Ok(list) => kept.set(list),
                Err(e) => storage.set(Some(e.to_string())),
            }
            if let Ok((usage, quota)) = model_store::estimate().await {
                if quota > 0.0 {
                    storage.set(Some(format!(
                        "This site keeps {} of the {} this browser allows it.",
                        in_tab::megabytes(usage as u64),
                        in_tab::megabytes(quota as u64)
                    )));
                }
            }
        });
    };
    refresh();
    // The picked file's header: None while it is read.
    let header = RwSignal::new(None::<Result<GgufInfo, String>>);
    let window = RwSignal::new(in_tab::DEFAULT_WINDOW);
    // A file to load: its header read first (what it says of itself).
    let pick = move |file: web_sys::File, stored: bool| {
        header.set(None);
        picked.set(Some(file.clone()));
        from_store.set(stored);
        leptos::task::spawn_local(async move {
            let read = tab_model::read_header(&file).await;
            // A file picked since is the one that counts.
            if picked.with_untracked(|p| p.as_ref().is_some_and(|p| p == &file)) {
                if let Err(why) = &read {
                    rs.tab.set(TabModel::Failed(why.clone()));
                } else if rs.tab.with_untracked(|t| matches!(t, TabModel::Failed(_))) {
                    rs.tab.set(TabModel::None);
                }
                header.set(Some(read));
            }
        });
    };
    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|l| l.get(0)) {
            pick(file, false);
        }
    };
    let use_kept = move |name: String| {
        leptos::task::spawn_local(async move {
            match model_store::file(&name).await {
                Ok(file) => pick(file, true),
                Err(e) => {
                    rs.tab.set(TabModel::Failed(e.to_string()));
                    refresh();
                }
            }
        });
    };
    let forget = move |name: String| {
        leptos::task::spawn_local(async move {
            if let Err(e) = model_store::forget(&name).await {
                rs.tab.set(TabModel::Failed(e.to_string()));
            }
            if from_store.get_untracked()
                && picked.with_untracked(|p| p.as_ref().is_some_and(|p| p.name() == name))
            {
                picked.set(None);
                header.set(None);
            }
            refresh();
        });
    };
    let on_fetch = move |_| {
        let address = url.get_untracked();
        tab_model::fetch(address, move |got| {
            refresh();
            match got {
                Ok(file) => pick(file, true),
                Err(why) => rs.tab.set(TabModel::Failed(why)),
            }
        });
    };
    let trained = move || {
        header.with(|h| h.as_ref().and_then(|h| h.as_ref().ok()).and_then(|i| i.context_length))
    };
    let picked_line = move || {
        let f = picked.get()?;
        Some(match header.get() {
            None => format!("Reading what {} says of itself…", f.name()),
            Some(Ok(info)) => in_tab::describe(&f.name(), f.size() as u64, &info),
            Some(Err(_)) => format!("{}: {}", f.name(), in_tab::megabytes(f.size() as u64)),
        })
    };
    // llama.cpp's own timings of the answers given here, after each answer.
    let speed = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        let _answers = rs.log.with(Vec::len);
        if !rs.tab.with(|t| matches!(t, TabModel::Ready(_))) {
            return;
        }
        leptos::task::spawn_local(async move {
            let t = crate::ui::browser::tab_model::timings().await;
            speed.set(in_tab::speed_line(&t));
        });
    });
    // One thread for want of the host's headers, and a reload would give
    // more (the app's offline worker adds them): say so before a load.
    // None until known (the offline worker's install, on a first visit).
    let can_reload = RwSignal::new(None::<bool>);
    leptos::task::spawn_local(async move {
        let more = offline::reload_isolates().await;
        let _ = can_reload.try_set(Some(more));
    });
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency()) as u32;
    let on_load = move |_| {
        if let Some(f) = picked.get_untracked() {
            let keep = keep.get_untracked() && !from_store.get_untracked();
            tab_model::load(rs, f, (window.get_untracked(), trained()), keep, refresh);
        }
    };
    let state = move || {
        rs.tab.with(|t| match t {
            TabModel::None => "none",
            TabModel::Loading { .. } => "loading",
            TabModel::Ready(_) => "ready",
            TabModel::Failed(_) => "failed",
        })
    };
    let status = move || {
        rs.tab.with(|t| match t {
            TabModel::None => "No model is loaded in this tab.".to_string(),
            TabModel::Loading { name, bytes } => format!(
                "Loading {name} ({})… the first time, the engine (about 10 MB) is fetched too.",
                in_tab::megabytes(*bytes as u64)
            ),
            TabModel::Ready(m) => {
                let threads = if m.threads == 1 {
                    if m.isolated { "1 thread".to_string() } else {
                        "1 thread: this page is not cross-origin isolated, so the engine cannot share memory between threads (a host that sends Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp lets it use every core)".to_string()
                    }
                } else {
                    format!("{} threads", m.threads)
                };
                let template = if m.chat_template { "" } else { " It carries no chat template: llama.cpp's default is used." };
                format!(
                    "Loaded {} ({}): window {} tokens (trained with {}); {threads}.{template}",
                    m.name,
                    in_tab::megabytes(m.bytes as u64),
                    format::thousands(m.window as usize),
                    format::thousands(m.trained_window as usize)
                )
            }
            TabModel::Failed(why) => why.clone(),
        })
    };
    view! {
        <fieldset id="run-tab" class="tab-model"
            data-reload-isolates=move || can_reload.get().map_or("unknown", |r| if r { "yes" } else { "no" })>
            <legend>"The model in this tab"</legend>
            <p class="note" id="run-tab-note">
                {in_tab::NOT_A_LEADERBOARD_ENTRY}
                " llama.cpp, compiled to WebAssembly, runs a GGUF model on this computer's processor: no key, no server, nothing sent anywhere. "
                "Each task gets the official request through the model's chat template, greedy. For a small model to see whole prompts, build the tasks at Mini-SNF (2,048 tokens) on the Dataset page."
            </p>
            {move || (can_reload.get() == Some(true) && in_tab::threads(cores) > 1).then(|| view! {
                <p class="notice" id="run-tab-threads">
                    {in_tab::reload_for_threads(in_tab::threads(cores))}" "
                    <button type="button" id="run-tab-reload" disabled=busy
                        on:click=move |_| { if let Some(w) = web_sys::window() { let _ = w.location().reload(); } }>
                        "Reload with threads"</button>
                </p>
            })}
            <div class="row wrap">
                <label>"GGUF file "
                    <input type="file" id="run-tab-file" accept=".gguf" disabled=busy on:change=on_file/>
                </label>
                <label>"or its address "
                    <input type="url" id="run-tab-url" placeholder="https://…/model.gguf" spellcheck="false"
                        prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                </label>
                <button type="button" id="run-tab-fetch" disabled=move || busy() || url.with(|u| u.trim().is_empty())
                    on:click=on_fetch>"Fetch"</button>
            </div>
            <KeptModels kept=kept storage=storage busy=Signal::derive(busy) use_kept=use_kept forget=forget/>
            <div class="row wrap">
                <label>"Window (tokens) "
                    <input type="number" id="run-tab-window" min=in_tab::MIN_WINDOW step="512"
                        max=move || trained().map_or(u64::from(in_tab::MAX_WINDOW), |t| t.min(u64::from(in_tab::MAX_WINDOW)))
                        prop:value=move || window.get().to_string()
                        on:change=move |ev| {
                            if let Ok(n) = event_target_value(&ev).trim().parse::<u32>() { window.set(n) }
                        }/>
                </label>
                <label class="check"><input type="checkbox" id="run-tab-keep" prop:checked=move || keep.get()
                    disabled=move || from_store.get()
                    on:change=move |ev| keep.set(event_target_checked(&ev))/>
                    {move || if from_store.get() { " Kept in this browser" } else { " Keep it in this browser (a reload or the next visit loads it without picking it again)" }}</label>
                <button type="button" id="run-tab-load"
                    disabled=move || busy() || !header.with(|h| matches!(h, Some(Ok(_))))
                    on:click=on_load>"Load"</button>
            </div>
            {move || picked_line().map(|l| view! { <p class="small" id="run-tab-picked">{l}</p> })}
            <p id="run-tab-status" data-state=state class=move || match state() { "failed" => "fail", "ready" => "pass", _ => "" }>{status}</p>
            {move || speed.get().map(|l| view! { <p class="small" id="run-tab-speed">{l}</p> })}
        </fieldset>
    }
}

/// The models kept in this browser: each can be used (then loaded) or let
/// go; and how much this site keeps.
#[component]
fn KeptModels(
    kept: RwSignal<Vec<Kept>>,
    storage: RwSignal<Option<String>>,
    busy: Signal<bool>,
    use_kept: impl Fn(String) + Copy + Send + Sync + 'static,
    forget: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        let list = kept.get();
        (!list.is_empty()).then(|| view! {
            <div id="run-tab-kept">
                <p class="small">"Kept in this browser: "{move || storage.get().unwrap_or_default()}</p>
                <ul class="kept-models">
                    {list.into_iter().map(|k| {
                        let (a, b) = (k.name.clone(), k.name.clone());
                        view! {
                            <li data-name=k.name.clone()>
                                {format!("{} ({}) ", k.name, in_tab::megabytes(k.bytes as u64))}
                                <button type="button" class="run-tab-use" disabled=move || busy.get()
                                    aria-label=format!("use {}", k.name) on:click=move |_| use_kept(a.clone())>"Use"</button>
                                " "
                                <button type="button" class="run-tab-forget" disabled=move || busy.get()
                                    aria-label=format!("forget {}", k.name) on:click=move |_| forget(b.clone())>"Forget"</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </div>
        })
    }
}
