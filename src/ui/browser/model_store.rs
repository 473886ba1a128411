//! Models kept in this browser for the in-tab model, as boot.js offers them
//! (`window.repoqaModelStore`, over public/boot/model-store.js and the
//! origin's private file system): a GGUF picked or fetched once is there
//! after a reload and on the next visit.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::boot_api::BootApi;
use crate::ui::error::UiError;

/// A kept model: its file name and size.
#[derive(Clone, Debug, PartialEq)]
pub struct Kept {
    pub name: String,
    pub bytes: f64,
}

const API: BootApi = BootApi {
    global: "repoqaModelStore",
    what: "The models kept in this browser",
    missing: "this page was started without boot.js, so it cannot keep a model",
};

async fn call(method: &str, args: &[JsValue]) -> Result<JsValue, UiError> {
    API.call(method, args).await
}

fn kept(v: &JsValue) -> Kept {
    Kept {
        name: js_sys::Reflect::get(v, &"name".into())
            .ok()
            .and_then(|x| x.as_string())
            .unwrap_or_default(),
        bytes: js_sys::Reflect::get(v, &"bytes".into())
            .ok()
            .and_then(|x| x.as_f64())
            .unwrap_or(0.0),
    }
}

/// The kept models, by name.
pub async fn list() -> Result<Vec<Kept>, UiError> {
    let v = call("list", &[]).await?;
    let list: js_sys::Array = v.dyn_into().map_err(|e| UiError::js(API.what, &e))?;
    Ok(list.iter().map(|k| kept(&k)).collect())
}

/// The kept model `name`, as a file the engine can load.
pub async fn file(name: &str) -> Result<web_sys::File, UiError> {
    call("file", &[name.into()]).await?.dyn_into().map_err(|e| UiError::js(API.what, &e))
}

/// Let the kept model `name` go.
pub async fn forget(name: &str) -> Result<(), UiError> {
    call("forget", &[name.into()]).await.map(|_| ())
}

/// The bytes this origin stores, and the most it may.
pub async fn estimate() -> Result<(f64, f64), UiError> {
    let v = call("estimate", &[]).await?;
    let n =
        |k: &str| js_sys::Reflect::get(&v, &k.into()).ok().and_then(|x| x.as_f64()).unwrap_or(0.0);
    Ok((n("usage"), n("quota")))
}

/// `on_progress(bytes, total)` as a JS callback (0 total: unknown).
fn progress(on_progress: impl Fn(f64, f64) + 'static) -> Closure<dyn Fn(JsValue, JsValue)> {
    Closure::new(move |b: JsValue, t: JsValue| {
        on_progress(b.as_f64().unwrap_or(0.0), t.as_f64().unwrap_or(0.0))
    })
}

/// Keep `file` (a picked one) under its name.
pub async fn keep(
    file: &web_sys::File,
    on_progress: impl Fn(f64, f64) + 'static,
) -> Result<Kept, UiError> {
    let cb = progress(on_progress);
    let v = call("keep", &[file.into(), file.name().into(), cb.as_ref().clone()]).await;
    drop(cb);
    Ok(kept(&v?))
}

/// Fetch `url` into the store as `name` (at most `max_bytes`).
pub async fn fetch_keep(
    url: &str,
    name: &str,
    max_bytes: u64,
    on_progress: impl Fn(f64, f64) + 'static,
) -> Result<Kept, UiError> {
    let cb = progress(on_progress);
    let args = [url.into(), name.into(), (max_bytes as f64).into(), cb.as_ref().clone()];
    let v = call("fetchKeep", &args).await;
    drop(cb);
    Ok(kept(&v?))
}

/// Stop the download under way, if any.
pub async fn stop() -> Result<(), UiError> {
    call("stop", &[]).await.map(|_| ())
}
