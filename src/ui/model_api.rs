//! A model behind an OpenAI-compatible API, from the browser: the settings
//! form (kept in this browser's localStorage, key included) and
//! [`describe_missing`], which asks the model for the needles a curation
//! left without a description. Requests go straight from the page to the
//! endpoint with `fetch`, so the endpoint must allow cross-origin requests
//! (CORS); the request and the reading of replies are `repoqa::llm`'s.

use js_sys::{Function, Reflect};
use leptos::prelude::*;
use repoqa::curate::{CurateReport, Descriptions};
use repoqa::llm::{self, ApiSettings, HttpReply, HttpRequest, LlmError, Progress};
use wasm_bindgen::{JsCast, JsValue};

/// The localStorage key of the settings (JSON of [`ApiSettings`]).
pub const STORAGE_KEY: &str = "repoqa-model-api";

/// `localStorage.<method>(args…)`; `Err` when storage is unavailable
/// (private windows, blocked cookies) or refuses (quota).
fn local_storage(method: &str, args: &[&str]) -> Result<JsValue, String> {
    let fail = |e: JsValue| {
        format!("localStorage.{method}: {}", e.as_string().unwrap_or_else(|| format!("{e:?}")))
    };
    let storage = Reflect::get(&js_sys::global(), &"localStorage".into()).map_err(fail)?;
    if storage.is_null() || storage.is_undefined() {
        return Err("this browser offers no localStorage".into());
    }
    let f: Function =
        Reflect::get(&storage, &method.into()).map_err(fail)?.dyn_into().map_err(fail)?;
    let args: js_sys::Array = args.iter().map(|a| JsValue::from_str(a)).collect();
    f.apply(&storage, &args).map_err(fail)
}

/// The stored settings, or the defaults (nothing stored, or unreadable).
pub fn load_settings() -> ApiSettings {
    local_storage("getItem", &[STORAGE_KEY])
        .ok()
        .and_then(|v| v.as_string())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Store the settings (the key too: it stays in this browser).
pub fn save_settings(settings: &ApiSettings) -> Result<(), String> {
    let text = serde_json::to_string(settings).map_err(|e| e.to_string())?;
    local_storage("setItem", &[STORAGE_KEY, &text]).map(|_| ())
}

/// The settings form. Every change is applied to `settings` and stored.
#[component]
pub fn ModelApiSettings(settings: RwSignal<ApiSettings>) -> impl IntoView {
    let saved = RwSignal::new(None::<Result<(), String>>);
    let edit = move |f: &dyn Fn(&mut ApiSettings)| {
        settings.update(|s| f(s));
        saved.set(Some(save_settings(&settings.get_untracked())));
    };
    let problem = move || settings.with(|s| s.validate().err().map(|e| e.to_string()));
    view! {
        <fieldset class="model-api" id="model-api">
            <legend>"Model API (OpenAI-compatible)"</legend>
            <label>
                "Base URL "
                <input type="url" id="model-api-base-url" placeholder="https://api.openai.com/v1"
                    prop:value=move || settings.with(|s| s.base_url.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); edit(&|s| s.base_url = v.trim().to_string()) } />
            </label>
            <label>
                "Model "
                <input type="text" id="model-api-model" placeholder="gpt-4o-mini"
                    prop:value=move || settings.with(|s| s.model.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); edit(&|s| s.model = v.trim().to_string()) } />
            </label>
            <label>
                "API key "
                <input type="password" id="model-api-key" autocomplete="off" placeholder="(none for a local server)"
                    prop:value=move || settings.with(|s| s.api_key.clone().unwrap_or_default())
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().to_string();
                        edit(&|s| s.api_key = Some(v.clone()).filter(|k| !k.is_empty()))
                    } />
            </label>
            <button type="button" id="model-api-forget-key"
                disabled=move || settings.with(|s| s.api_key.is_none())
                on:click=move |_| edit(&|s| s.api_key = None)>"Forget the key"</button>
            <label>
                "Temperature "
                <input type="number" id="model-api-temperature" min="0" max="2" step="0.1" placeholder="server default"
                    prop:value=move || settings.with(|s| s.temperature.map(|t| t.to_string()).unwrap_or_default())
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().parse::<f64>().ok();
                        edit(&|s| s.temperature = v)
                    } />
            </label>
            <label>
                "Max tokens "
                <input type="number" id="model-api-max-tokens" min="1" step="1" placeholder="server default"
                    prop:value=move || settings.with(|s| s.max_tokens.map(|t| t.to_string()).unwrap_or_default())
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().parse::<u32>().ok().filter(|&n| n > 0);
                        edit(&|s| s.max_tokens = v)
                    } />
            </label>
            <label>
                "Timeout (s) "
                <input type="number" id="model-api-timeout" min="1" step="1"
                    prop:value=move || settings.with(|s| s.timeout_secs.to_string())
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().parse::<u64>().ok().filter(|&n| n > 0);
                        edit(&|s| s.timeout_secs = v.unwrap_or(llm::DEFAULT_TIMEOUT_SECS))
                    } />
            </label>
            <p class="muted">
                "The key is kept in this browser only (localStorage) and sent only to this URL. "
                "The page calls the endpoint directly, so the endpoint must allow requests from this page "
                "(CORS: Access-Control-Allow-Origin); many hosted APIs and local servers can be set to."
            </p>
            {move || problem().map(|p| view! { <p class="warn" id="model-api-problem">{p}</p> })}
            {move || match saved.get() {
                Some(Err(e)) => Some(view! { <p class="warn">{format!("Not remembered: {e}")}</p> }),
                _ => None,
            }}
        </fieldset>
    }
}

/// Ask the model for every needle of `report` without a description, one
/// after the other. Returns the descriptions obtained (apply them with
/// `report.apply_descriptions`) and, for every other missing needle, its
/// name and why: the error, "cancelled", or "not asked: …" after an error
/// that every request would repeat (key, URL, model, network). Those
/// needles stay out of the tasks. `on_progress(done, total)` is called
/// before the first request and after each; `cancel()` is checked before
/// each request (one under way finishes or times out).
pub async fn describe_missing(
    settings: &ApiSettings,
    report: &CurateReport,
    on_progress: impl Fn(usize, usize),
    cancel: impl Fn() -> bool,
) -> (Descriptions, Vec<(String, String)>) {
    let jobs = report.describe_jobs();
    let total = jobs.len();
    let timeout = settings.timeout_secs;
    on_progress(0, total);
    let run = llm::describe_needles(
        settings,
        &jobs,
        move |req: HttpRequest| async move { post(&req, timeout).await },
        |p| {
            if let Progress::Answered { index, .. } = p {
                on_progress(index + 1, total);
            }
        },
        cancel,
    )
    .await;
    (run.obtained, run.failures)
}

/// POST with `fetch`; every HTTP status is a reply. A failure before any
/// status is what the browser reports for CORS refusals, unreachable hosts
/// and timeouts alike; the message says so.
async fn post(req: &HttpRequest, timeout_secs: u64) -> Result<HttpReply, LlmError> {
    let failed = |e: gloo_net::Error| {
        let text = e.to_string();
        let message = if text.contains("TimeoutError") {
            format!("no reply within {timeout_secs} s (raise the timeout in the model settings)")
        } else {
            format!(
                "the endpoint may not allow browser requests (CORS) or is unreachable ({text}); \
                 check the URL, and that the server sends Access-Control-Allow-Origin for this page"
            )
        };
        LlmError::Transport { url: req.url.clone(), message }
    };
    let timeout = web_sys::AbortSignal::timeout_with_u32(
        timeout_secs.saturating_mul(1000).min(u32::MAX as u64) as u32,
    );
    let mut call = gloo_net::http::Request::post(&req.url).abort_signal(Some(&timeout));
    for (k, v) in &req.headers {
        call = call.header(k, v);
    }
    let resp = call.body(req.body.as_str()).map_err(failed)?.send().await.map_err(failed)?;
    let status = resp.status();
    let retry_after = resp.headers().get("retry-after");
    let body = resp.text().await.map_err(failed)?;
    Ok(HttpReply { status, retry_after, body })
}
