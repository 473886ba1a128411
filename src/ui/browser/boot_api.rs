//! What public/boot/boot.js offers the page on `window` — the offline copy
//! (`repoqaOffline`), the in-tab model (`repoqaTabModel`), the models kept
//! for it (`repoqaModelStore`) — and the one way the page calls it: a
//! method that answers a promise.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::ui::error::UiError;

/// One of boot.js's offers.
pub struct BootApi {
    /// The global object's name (`window.repoqaTabModel`).
    pub global: &'static str,
    /// What messages call it ("The model in this tab").
    pub what: &'static str,
    /// Why it is missing when boot.js did not start the page.
    pub missing: &'static str,
}

impl BootApi {
    /// Call `method` with `args` and await its promise.
    pub async fn call(&self, method: &str, args: &[JsValue]) -> Result<JsValue, UiError> {
        let api = js_sys::Reflect::get(&js_sys::global(), &self.global.into())
            .ok()
            .filter(JsValue::is_object)
            .ok_or_else(|| UiError::invalid(self.missing))?;
        let f: js_sys::Function = js_sys::Reflect::get(&api, &method.into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| {
                UiError::invalid(format!("boot.js offers no {}.{method}", self.global))
            })?;
        let args: js_sys::Array = args.iter().collect();
        let promise: js_sys::Promise = f
            .apply(&api, &args)
            .map_err(|e| UiError::js(self.what, &e))?
            .dyn_into()
            .map_err(|e| UiError::js(self.what, &e))?;
        JsFuture::from(promise).await.map_err(|e| UiError::js(self.what, &e))
    }
}
