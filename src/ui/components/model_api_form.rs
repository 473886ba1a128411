//! The model API settings form (the core's one `Endpoint`: format, URL,
//! model, key, sampling; and a timeout). Every change is applied and stored in this
//! browser (`state::curate::model_api`); the key only when "remember the
//! key on this device" is ticked, as on the Run page.

use leptos::prelude::*;
use repoqa::llm::{self, Provider};

use crate::ui::error::UiError;
use crate::ui::state::curate::model_api::{self, DescribeModel};

/// The settings form. Every change is applied to `settings` and stored;
/// the key is stored only while `remember_key` is on.
#[component]
pub fn ModelApiSettings(
    settings: RwSignal<DescribeModel>,
    remember_key: RwSignal<bool>,
) -> impl IntoView {
    let saved = RwSignal::new(None::<Result<(), UiError>>);
    let store = move || {
        saved.set(Some(model_api::save(&settings.get_untracked(), remember_key.get_untracked())));
    };
    let edit = move |f: &dyn Fn(&mut DescribeModel)| {
        settings.update(|s| f(s));
        store();
    };
    let problem = move || settings.with(|s| s.endpoint.validate().err());
    view! {
        <fieldset class="model-api" id="model-api">
            <legend>"Model API"</legend>
            <label>
                "API format "
                <select id="model-api-provider" prop:value=move || settings.with(|s| s.endpoint.provider.name().to_string())
                    on:change=move |ev| {
                        if let Some(p) = Provider::from_name(&event_target_value(&ev)) { edit(&|s| s.endpoint.provider = p) }
                    }>
                    {Provider::ALL.iter().map(|p| view! { <option value=p.name()>{p.label()}</option> }).collect_view()}
                </select>
            </label>
            <label>
                "Base URL "
                <input type="url" id="model-api-base-url" placeholder=move || settings.with(|s| s.endpoint.provider.default_base_url())
                    prop:value=move || settings.with(|s| s.endpoint.base_url.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); edit(&|s| s.endpoint.base_url = v.trim().to_string()) } />
            </label>
            <label>
                "Model "
                <input type="text" id="model-api-model" placeholder="gpt-4o-mini"
                    prop:value=move || settings.with(|s| s.endpoint.model.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); edit(&|s| s.endpoint.model = v.trim().to_string()) } />
            </label>
            <label>
                "API key "
                <input type="password" id="model-api-key" autocomplete="off" placeholder="(none for a local server)"
                    prop:value=move || settings.with(|s| s.endpoint.api_key.clone().unwrap_or_default())
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().to_string();
                        edit(&|s| s.endpoint.api_key = Some(v.clone()).filter(|k| !k.is_empty()))
                    } />
            </label>
            <button type="button" id="model-api-forget-key"
                disabled=move || settings.with(|s| s.endpoint.api_key.is_none())
                on:click=move |_| edit(&|s| s.endpoint.api_key = None)>"Forget the key"</button>
            <label>
                <input type="checkbox" id="model-api-remember-key" prop:checked=move || remember_key.get()
                    on:change=move |ev| { remember_key.set(event_target_checked(&ev)); store(); } />
                " remember the key on this device"
            </label>
            {move || remember_key.get().then(|| view! {
                <p class="warning small" id="model-api-remember-warning">"The key will be stored unencrypted in this browser's localStorage, readable by anyone using this profile and by any script on this page's origin. Untick to forget it."</p>
            })}
            <label>
                "Temperature "
                <input type="number" id="model-api-temperature" min="0" max="2" step="0.1" placeholder="server default"
                    prop:value=move || settings.with(|s| s.endpoint.sampling.temperature.map(|t| t.to_string()).unwrap_or_default())
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().parse::<f64>().ok();
                        edit(&|s| s.endpoint.sampling.temperature = v)
                    } />
            </label>
            <label>
                "Max tokens "
                <input type="number" id="model-api-max-tokens" min="1" step="1" placeholder="server default"
                    prop:value=move || settings.with(|s| s.endpoint.sampling.max_tokens.map(|t| t.to_string()).unwrap_or_default())
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().parse::<u32>().ok().filter(|&n| n > 0);
                        edit(&|s| s.endpoint.sampling.max_tokens = v)
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
                "The key is kept in this page's memory (gone at a reload) unless you tick \"remember\", and is sent only to this URL. "
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
