//! localStorage: small synchronous values kept in this browser (the model
//! API settings, key included, which must not go to IndexedDB's session
//! that "New session" clears with the rest).

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::ui::error::UiError;

/// `localStorage.<method>(args…)`; `Err` when storage is unavailable
/// (private windows, blocked cookies) or refuses (quota).
fn call(method: &str, args: &[&str]) -> Result<JsValue, UiError> {
    let fail = |e: JsValue| UiError::js(format!("localStorage.{method}"), &e);
    let storage = Reflect::get(&js_sys::global(), &"localStorage".into()).map_err(fail)?;
    if storage.is_null() || storage.is_undefined() {
        return Err(UiError::Storage("this browser offers no localStorage".into()));
    }
    let f: Function =
        Reflect::get(&storage, &method.into()).map_err(fail)?.dyn_into().map_err(fail)?;
    let args: js_sys::Array = args.iter().map(|a| JsValue::from_str(a)).collect();
    f.apply(&storage, &args).map_err(fail)
}

/// The text stored under `key`, if any.
pub fn get(key: &str) -> Result<Option<String>, UiError> {
    Ok(call("getItem", &[key])?.as_string())
}

/// Store `text` under `key`.
pub fn set(key: &str, text: &str) -> Result<(), UiError> {
    call("setItem", &[key, text]).map(|_| ())
}

/// Remove `key` (no error when absent).
pub fn remove(key: &str) -> Result<(), UiError> {
    call("removeItem", &[key]).map(|_| ())
}
