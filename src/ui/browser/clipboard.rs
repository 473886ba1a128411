//! Writing text to the system clipboard.

use wasm_bindgen_futures::JsFuture;

use crate::ui::error::UiError;

/// Put `text` on the clipboard.
pub async fn write_text(text: &str) -> Result<(), UiError> {
    let w = web_sys::window().ok_or(UiError::NoWindow)?;
    JsFuture::from(w.navigator().clipboard().write_text(text))
        .await
        .map(|_| ())
        .map_err(|e| UiError::js("Copy failed", &e))
}
