//! The offline copy, as boot.js offers it (`window.repoqaOffline`, over the
//! service worker public/boot/sw.js): what this browser keeps of the build,
//! and keeping the rest when the visitor asks.

use wasm_bindgen::prelude::*;

use super::boot_api::BootApi;
use crate::ui::error::UiError;

/// What the offline copy holds, in the build's files and their bytes as
/// served (before any compression by the host).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kept {
    pub kept_files: usize,
    pub kept_bytes: f64,
    pub missing_files: usize,
    pub missing_bytes: f64,
    /// The pages the worker serves are cross-origin isolated (it adds the
    /// two headers: threads for the model in the tab on any host).
    pub isolates: bool,
}

/// What is kept now. Waits for the service worker's install on a first
/// visit; an error says why there is no offline copy here.
pub async fn status() -> Result<Kept, UiError> {
    call("status", &JsValue::UNDEFINED).await
}

/// Keep every file not kept yet, `on_progress(done, total)` bytes as they come.
pub async fn keep_all(on_progress: impl Fn(f64, f64) + 'static) -> Result<Kept, UiError> {
    let cb = Closure::<dyn Fn(f64, f64)>::new(on_progress);
    let kept = call("keep", cb.as_ref()).await;
    drop(cb);
    kept
}

/// This page is cross-origin isolated (the engine of the model in the tab
/// can run threads).
pub fn isolated() -> bool {
    web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"crossOriginIsolated".into()).ok())
        .and_then(|x| x.as_bool())
        .unwrap_or(false)
}

/// This page is not cross-origin isolated, and a reload would make it so
/// (the offline worker is set up and adds the headers the host did not
/// send). Waits for the worker's install on a first visit.
pub async fn reload_isolates() -> bool {
    !isolated() && status().await.is_ok_and(|k| k.isolates)
}

async fn call(method: &str, arg: &JsValue) -> Result<Kept, UiError> {
    const API: BootApi = BootApi {
        global: "repoqaOffline",
        what: "The offline copy",
        missing: "this page was started without boot.js, so it has no offline copy",
    };
    let v = API.call(method, std::slice::from_ref(arg)).await?;
    let num =
        |k: &str| js_sys::Reflect::get(&v, &k.into()).ok().and_then(|x| x.as_f64()).unwrap_or(0.0);
    Ok(Kept {
        kept_files: num("keptFiles") as usize,
        kept_bytes: num("keptBytes"),
        missing_files: num("missingFiles") as usize,
        missing_bytes: num("missingBytes"),
        isolates: js_sys::Reflect::get(&v, &"isolates".into())
            .ok()
            .and_then(|x| x.as_bool())
            .unwrap_or(false),
    })
}
