//! The model API settings form (an OpenAI-compatible endpoint: URL, model,
//! key, sampling, timeout). Every change is applied and stored in this
//! browser (`state::curate::model_api`).

use leptos::prelude::*;
use repoqa::llm::{self, ApiSettings};

use crate::ui::error::UiError;
use crate::ui::state::curate::model_api;

/// The settings form. Every change is applied to `settings` and stored.
#[component]
pub fn ModelApiSettings(settings: RwSignal<ApiSettings>) -> impl IntoView {
    let saved = RwSignal::new(None::<Result<(), UiError>>);
    let edit = move |f: &dyn Fn(&mut ApiSettings)| {
        settings.update(|s| f(s));
        saved.set(Some(model_api::save(&settings.get_untracked())));
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
