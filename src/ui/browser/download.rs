//! Offering a file to the user: a Blob (or data URL) behind a temporary
//! `<a download>`. Every export of the app goes through here.

use wasm_bindgen::JsCast;

use crate::ui::error::UiError;

/// Offer `text` as a download named `name`, of type `mime`.
pub fn download_text(name: &str, mime: &str, text: &str) -> Result<(), UiError> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|e| UiError::js(format!("cannot make {name}"), &e))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|e| UiError::js(format!("cannot make {name}"), &e))?;
    let r = download_url(name, &url);
    // Revoke later: the download starts asynchronously.
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    r
}

/// Click a temporary `<a download>` pointing at `url` (a blob: or data: URL).
pub fn download_url(name: &str, url: &str) -> Result<(), UiError> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or(UiError::NoWindow)?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|e| UiError::js("cannot download", &e))?
        .dyn_into()
        .map_err(|_| UiError::invalid("cannot download: not an anchor"))?;
    a.set_href(url);
    a.set_download(name);
    a.click();
    Ok(())
}
