//! The clock and a turn of the event loop: what every long job needs to
//! keep the page responsive.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Milliseconds since navigation (`performance.now()`).
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

/// Let the browser run input handlers and paint before the next chunk of
/// work: a macrotask (`setTimeout(0)`), not a microtask, which would not
/// give the event loop a turn.
pub async fn yield_to_browser() {
    sleep_ms(0).await;
}

/// Wait `ms` milliseconds (a `setTimeout`), giving the page turns meanwhile.
pub async fn sleep_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        if let Some(w) = web_sys::window() {
            if w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).is_ok() {
                return;
            }
        }
        let _ = resolve.call0(&JsValue::NULL);
    });
    let _ = JsFuture::from(promise).await;
}
